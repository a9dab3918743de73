/* Helpers shared by the experiment files. */
#include "lab/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/stats.h"
#include "counters/counter_map.h"
#include "gpu/gpu_internal.h"
#include "gpu/kernel_info.h"
#include "lab/counters_pass.h"

uint64_t cml_plan_elements(const cml_plan *plan, uint64_t elem_bytes, uint64_t arrays)
{
    if (elem_bytes == 0 || arrays == 0)
        return 0;
    if (plan && plan->size_bytes)
        return plan->size_bytes / elem_bytes;
    uint64_t l2 = (plan && plan->dev) ? plan->dev->l2_bytes : 0;
    uint64_t total;
    switch (plan ? plan->where : CML_WHERE_DRAM) {
    case CML_WHERE_L1:
        /* A quarter of the smallest L1 of current GPUs, per SM, summed over
         * a handful of blocks: small enough that every SM's slice stays in L1. */
        total = 16u * 1024u * arrays;
        return total / elem_bytes / arrays;
    case CML_WHERE_L2:
        /* Half of L2 for all arrays together. */
        total = l2 ? l2 / 2 : (uint64_t)16 << 20;
        return total / arrays / elem_bytes;
    case CML_WHERE_DRAM:
    default:
        if (!l2)
            return (uint64_t)1 << 24; /* model only: 64 MiB per float array */
        /* Each array alone is larger than L2, all together 4x L2 at least:
         * a kernel's working set cannot be served from the cache. */
        total = l2 * 4;
        if (total / arrays < l2 * 3 / 2)
            total = l2 * 3 / 2 * arrays;
        return total / arrays / elem_bytes;
    }
}

unsigned cml_exp_sm_count(const cml_plan *plan)
{
    return (plan && plan->dev && plan->dev->sm_count > 0) ? (unsigned)plan->dev->sm_count : 132u;
}

void cml_exp_scale_traffic(cml_record *rec, uint64_t k)
{
    for (int r = 0; r < CML_RULES_COUNT; r++)
        for (int c = 0; c <= CML_CLASS_COUNT; c++) {
            /* c == CML_CLASS_COUNT: the copy engine's reads */
            cml_traffic *at = c < CML_CLASS_COUNT ? &rec->model[r].cls[c] : &rec->model[r].bulk;
            cml_traffic t;
            memset(&t, 0, sizeof t);
            cml_traffic_add_scaled(&t, at, k);
            *at = t;
        }
}

unsigned cml_exp_threads_per_sm(const cml_plan *plan)
{
    return (plan && plan->dev && plan->dev->max_threads_per_sm > 0)
               ? (unsigned)plan->dev->max_threads_per_sm
               : 2048u;
}

void cml_variant_add(char *buf, size_t len, const char *name, long long value)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s=%lld", used ? " " : "", name, value);
}

void cml_variant_add_label(char *buf, size_t len, const char *name, const char *label)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", name, label);
}

const char *const cml_residency_names[] = {"many", "one", NULL};

void cml_variant_with(const char *variant, const char *setting, char *buf, size_t len)
{
    const char *eq = strchr(setting, '=');
    size_t keylen = eq ? (size_t)(eq - setting) + 1 : strlen(setting);
    const char *at = NULL;
    for (const char *p = variant; *p && !at; p++)
        if ((p == variant || p[-1] == ' ') && strncmp(p, setting, keylen) == 0)
            at = p;
    if (!at) {
        snprintf(buf, len, "%s%s%s", variant, *variant ? " " : "", setting);
        return;
    }
    const char *end = strchr(at, ' ');
    snprintf(buf, len, "%.*s%s%s", (int)(at - variant), variant, setting, end ? end : "");
}

int cml_exp_level(const cml_record *rec, int field, double *value)
{
    for (size_t i = 0; i < cml_counter_map_count(); i++) {
        const cml_counter_def *d = cml_counter_map_at(i);
        if ((int)d->field != field)
            continue;
        for (unsigned k = 0; k < rec->ncounters; k++) {
            if (strcmp(rec->counters[k].name, d->metric) == 0) {
                *value = rec->counters[k].measured;
                return 1;
            }
        }
        /* A counter that read 0 is left out of a measured record. */
        if (rec->measured && rec->ncounters > 0) {
            *value = 0;
            return 1;
        }
        if (!rec->has_levels)
            return -1;
        return cml_counter_predict_levels(d, &rec->model[CML_RULES_MODERN], &rec->levels,
                                          value)
                   ? 0
                   : -1;
    }
    return -1;
}

double cml_exp_dram_ratio(const cml_record *rec)
{
    const double need = (double)(rec->bytes_read + rec->bytes_written);
    if (!rec->has_levels || need <= 0)
        return 0.0;
    const cml_levels *l = &rec->levels;
    return (double)(l->dram_read_bytes + l->dram_write_bytes + l->l2_dirty_end_bytes) / need;
}

void cml_fmt_bytes(char *buf, size_t len, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

double cml_exp_spr(const cml_record *rec, cml_class c)
{
    return cml_traffic_sectors_per_request(&rec->model[CML_RULES_MODERN].cls[c]);
}

double cml_exp_eff(const cml_record *rec, cml_rules r, cml_class c)
{
    return cml_traffic_efficiency(&rec->model[r].cls[c]);
}

/* ---- GPU side ---------------------------------------------------------- */

cml_status cml_exp_fail(const cml_plan *plan, cml_record *rec, cml_status st)
{
    rec->state = CML_REC_FAILED;
    /* A launcher called directly (a checker, a symbol copy) records its CUDA
     * failure in the harness's last-error text, not on the device handle. */
    const char *msg = plan->gpu ? cml_gpu_error(plan->gpu) : "";
    if (!*msg)
        msg = cml_gpu_last_error();
    cml_record_note(rec, "%s%s%s", cml_status_str(st), *msg ? ": " : "", msg);
    return st;
}

cml_status cml_exp_time_copy(const cml_plan *plan, cml_record *rec, cml_launch_fn launch,
                             void *ctx, size_t ctx_size, const void *kernel, unsigned block,
                             size_t smem)
{
    unsigned warmup = plan->warmup ? plan->warmup : CML_EXP_WARMUP;
    unsigned reps = plan->reps ? plan->reps : CML_EXP_REPS;
    cml_status st = cml_gpu_time(plan->gpu, launch, ctx, warmup, reps, &rec->timing);
    if (st != CML_OK)
        return cml_exp_fail(plan, rec, st);
    rec->measured = 1;
    rec->bandwidth_gbs = cml_gbs((double)(rec->bytes_read + rec->bytes_written),
                                 rec->timing.median_ms);
    cml_record_set_peak(rec, &plan->peaks); /* against its class's reference */
    if (kernel) {
        double occ;
        if (cml_gpu_occupancy(plan->gpu, kernel, block, smem, &occ) == CML_OK)
            rec->occupancy = occ;
    }
    if (!plan->profiler)
        return CML_OK;
    /* The counters pass: queued, profiled later in batches (counters_pass.h);
     * at once when no pass collects this record's results. */
    if (plan->counters_pass &&
        cml_counters_pass_add(plan->counters_pass, rec, launch, ctx, ctx_size) == CML_OK)
        return CML_OK;
    return cml_counters_now(plan->profiler, rec, launch, ctx);
}

cml_status cml_exp_verify(const cml_plan *plan, cml_record *rec, cml_check_fn check, void *ctx)
{
    cml_dbuf counters = {0};
    unsigned long long host[2] = {0, ~0ull};
    cml_status st = cml_gpu_alloc(plan->gpu, &counters, sizeof host);
    if (st == CML_OK)
        st = cml_gpu_upload(plan->gpu, &counters, host, sizeof host);
    const double t0 = cml_gpu_clock();
    if (st == CML_OK)
        st = check(ctx, (unsigned long long *)counters.ptr);
    cml_gpu_phase_add(plan->gpu, CML_GPU_PHASE_CHECK, cml_gpu_clock() - t0);
    if (st == CML_OK)
        st = cml_gpu_download(plan->gpu, host, &counters, sizeof host);
    cml_gpu_free(plan->gpu, &counters);
    if (st != CML_OK)
        return cml_exp_fail(plan, rec, st);
    if (host[0] != 0) {
        rec->verify = CML_VERIFY_FAILED;
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "verification failed: %llu wrong elements, first at index %llu",
                        host[0], host[1]);
        return CML_EVERIFY;
    }
    rec->verify = CML_VERIFY_PASSED;
    return CML_OK;
}

cml_status cml_exp_alloc(const cml_plan *plan, cml_record *rec, cml_dbuf *b, size_t bytes)
{
    cml_status st = cml_gpu_alloc(plan->gpu, b, bytes);
    return st == CML_OK ? st : cml_exp_fail(plan, rec, st);
}

cml_status cml_exp_alloc_random(const cml_plan *plan, cml_record *rec, cml_dbuf *b, size_t count,
                                uint64_t seed)
{
    cml_status st = cml_exp_alloc(plan, rec, b, count * sizeof(float));
    if (st != CML_OK)
        return st;
    st = cml_gpu_fill_f32(plan->gpu, b, count, seed);
    return st == CML_OK ? st : cml_exp_fail(plan, rec, st);
}

void cml_exp_explain(const cml_record *rec, cml_class c, char *buf, size_t len)
{
    const cml_traffic *m = &rec->model[CML_RULES_MODERN].cls[c];
    const cml_traffic *f = &rec->model[CML_RULES_FERMI].cls[c];
    if (m->instructions == 0) {
        snprintf(buf, len, "No %s instruction was executed.", cml_class_name(c));
        return;
    }
    double req = (double)m->requests;
    double lanes_bytes = (double)m->requested_bytes / req;
    double eff = 100.0 * cml_traffic_efficiency(m);
    switch (c) {
    case CML_CLASS_SHARED_LD:
    case CML_CLASS_SHARED_ST: {
        double wf = (double)m->wavefronts / req, ideal = (double)m->ideal_wavefronts / req;
        if (m->bank_conflicts == 0)
            snprintf(buf, len,
                     "Each request is served in %.2f wavefront%s, the minimum for its width: no "
                     "two lanes need different words of one bank.",
                     wf, wf == 1.0 ? "" : "s");
        else
            snprintf(buf, len,
                     "Each request needs %.2f wavefronts where %.2f would do: lanes ask for "
                     "different words in the same bank, so the bank serves them one after "
                     "another (%.2f conflicts per request).",
                     wf, ideal, (double)m->bank_conflicts / req);
        return;
    }
    case CML_CLASS_CONST_LD: {
        double ser = (double)m->serialized / req;
        snprintf(buf, len,
                 ser <= 1.0 ? "All lanes read one address: constant memory broadcasts it in one "
                              "access per request (%.2f)."
                            : "The lanes read %.2f different addresses per request: constant "
                              "memory serves one address at a time, so the request is "
                              "serialized that many times.",
                 ser);
        return;
    }
    default: {
        double spr = (double)m->sectors / req;
        /* The fewest sectors that could hold what the lanes asked for. */
        double ideal = lanes_bytes / CML_SECTOR_BYTES;
        if (ideal < 1.0)
            ideal = 1.0;
        double feff = 100.0 * cml_traffic_efficiency(f);
        const char *why;
        if (eff >= 99.95)
            why = "the lanes' bytes fill every sector they touch: fully coalesced";
        else if (lanes_bytes < (double)m->lane_bytes / req)
            why = "several lanes share addresses, so little data is asked for per sector";
        else if (spr >= 31.5)
            why = "every lane lands in its own sector: no coalescing at all";
        else
            why = "the lanes' bytes are spread over more sectors than they fill";
        snprintf(buf, len,
                 "Each request touches %.2f sectors of 32 B for %.0f useful bytes (at least "
                 "%.2f needed): %.1f%% of the fetched bytes are used, because %s. Under the "
                 "Fermi rules: %.2f transactions per request, %.1f%%.",
                 spr, lanes_bytes, ideal, eff, why,
                 f->requests ? (double)f->transactions / (double)f->requests : 0.0, feff);
        return;
    }
    }
}

cml_status cml_exp_measure_copy(const cml_plan *plan, cml_record *rec, cml_dbuf *out,
                                cml_launch_fn launch, void *ctx, size_t ctx_size,
                                const void *kernel, unsigned block, size_t smem,
                                cml_check_fn check, void *check_ctx)
{
    cml_status st = cml_gpu_poison(plan->gpu, out);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time_copy(plan, rec, launch, ctx, ctx_size, kernel, block, smem);
    if (st)
        return st;
    return cml_exp_verify(plan, rec, check, check_ctx);
}

void cml_exp_finding_measured(cml_record *rec, const char *text)
{
    /* A sampled model says so, with the bound of its busiest class. */
    char sampled[256];
    const cml_traffic *m = rec->model[CML_RULES_MODERN].cls;
    cml_exp_sample_note(rec,
                        m[CML_CLASS_GLOBAL_ST].sectors > m[CML_CLASS_GLOBAL_LD].sectors
                            ? CML_CLASS_GLOBAL_ST
                            : CML_CLASS_GLOBAL_LD,
                        sampled, sizeof sampled);
    if (rec->measured && rec->peak_fraction >= 0)
        cml_record_finding(rec, "%s Measured %.1f GB/s (%.0f%% of peak).%s", text,
                           rec->bandwidth_gbs, 100.0 * rec->peak_fraction, sampled);
    else if (rec->measured && cml_peak_class_resident(rec->peak_class))
        cml_record_finding(rec, "%s Measured %.1f GB/s, %s: its working set fits in %s, so "
                           "this is that cache's figure, no share of the DRAM peak.%s",
                           text, rec->bandwidth_gbs, cml_peak_class_label(rec->peak_class),
                           rec->peak_class == CML_PEAK_CLASS_L1_RESIDENT ? "L1" : "L2", sampled);
    else if (rec->measured)
        cml_record_finding(rec, "%s Measured %.1f GB/s.%s", text, rec->bandwidth_gbs, sampled);
    else
        cml_record_finding(rec, "%s%s", text, sampled);
}
