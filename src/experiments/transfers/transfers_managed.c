/*
 * transfers, mode=managed: cudaMallocManaged data written on the host, then
 * used by a kernel (the textbook's sumMatrixGPUManaged / Manual and
 * Unified_Memory). Each point (um bytes per array) gives one record per
 * step: fault (first touch: migration on demand), warm (the second run),
 * prefetch (cudaMemPrefetchAsync of both arrays), prefetched (the kernel
 * after it), readback (the host reading the results back) and manual
 * (cudaMalloc + cudaMemcpy in, kernel, cudaMemcpy out). On the CPU alone
 * only the kernel steps, which the model traces.
 *
 * The kernel (its body in transfers_body.h, run by transfers.cu and by
 * the mirror below; sumMatrixGPUManaged_scale):
 *   if (i < n) out[i] = 2 * in[i];                // site 0: load, site 1: store
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "core/stats.h"
#include "experiments/transfers/transfers_body.h"
#include "experiments/transfers/transfers_internal.h"
#include "experiments/transfers/transfers_kernels.h"
#include "gpu/host_fill.h"

/* The kernel's own body (transfers_body.h) on the model's arrays. */
void cml_um_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_um_args *a = vargs;
    cml_um_scale_body(CML_MIRROR_CTX(t, e), CML_ARRAY(const float, 0), CML_ARRAY(float, 1), a->n);
}

/* Is step s a kernel launch (traced by the model)? */
static int step_is_kernel(int s)
{
    return s == STEP_FAULT || s == STEP_WARM || s == STEP_PREFETCHED || s == STEP_MANUAL;
}

size_t tr_um_steps(const cml_sweep *ctx, int *steps)
{
    size_t k = 0;
    for (int s = 0; s < STEP_COUNT; s++)
        if (ctx->plan->gpu || step_is_kernel(s))
            steps[k++] = s; /* no kernel, no model: measured only */
    return k;
}

static void um_name(char *buf, size_t len, const tr_settings *s, int step)
{
    buf[0] = '\0';
    cml_variant_add_label(buf, len, "mode", "managed");
    cml_variant_add(buf, len, "um", (long long)s->um);
    cml_variant_add_label(buf, len, "step", tr_step_names[step]);
}

/* The model's figures of a step that depend on the link quoted. */
static void um_quote(cml_record *rec, const tr_settings *s, int step, const tr_link *lk)
{
    const uint64_t n = (uint64_t)s->um / 4;
    const double pinned = lk->raw_gbs * CML_PCIE_PINNED_SHARE; /* GB/s */
    char sz[32];
    cml_fmt_bytes(sz, sizeof sz, (double)(4 * n));
    uint64_t lo = 0, hi = 0;
    cml_um_migration_bounds(4 * n, &lo, &hi);
    /* Both arrays are written on the host first (in[] with the data, out[]
     * with the poison), so both migrate when the kernel touches them. */
    lo *= 2;
    hi *= 2;
    const double link_ms_lo = cml_pcie_time_ms((double)lo, pinned);
    const double spr = rec->has_model ? cml_exp_spr(rec, CML_CLASS_GLOBAL_LD) : 0.0;
    const char *link = tr_link_names[lk->link];
    switch (step) {
    case STEP_FAULT:
        tr_set_extra(rec, "migrate_low_bytes", (double)lo, "B");
        tr_set_extra(rec, "migrate_high_bytes", (double)hi, "B");
        tr_set_extra(rec, "link_time_ms", link_ms_lo, "ms");
        cml_record_finding(rec,
                           "Model: on first touch in[] and out[] (2 x %s, written on the host) "
                           "migrate on demand in groups of 4 KiB to 2 MiB: %.0f-%.0f MiB over "
                           "PCIe, at least %.2f ms at %s's typical %.1f GB/s, plus the fault "
                           "handling; the kernel itself: %.2f sectors per request.",
                           sz, (double)lo / 1048576.0, (double)hi / 1048576.0, link_ms_lo, link,
                           pinned, spr);
        break;
    case STEP_WARM:
    case STEP_PREFETCHED:
        cml_record_finding(rec,
                           "Model: %s the pages are resident on the device, so the kernel is a "
                           "device-memory stream: %.2f sectors per request for its loads and "
                           "stores, %.1f%% of the fetched bytes used.",
                           step == STEP_WARM ? "on the second run" : "after the prefetch", spr,
                           100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD));
        break;
    case STEP_PREFETCH:
        tr_set_extra(rec, "link_time_ms", link_ms_lo, "ms");
        cml_record_finding(rec,
                           "Model: cudaMemPrefetchAsync moves both arrays (%.0f MiB) as whole "
                           "ranges, at close to a pinned copy: about %.2f ms at %s's typical "
                           "%.1f GB/s.",
                           (double)lo / 1048576.0, link_ms_lo, link, pinned);
        break;
    case STEP_READBACK:
        tr_set_extra(rec, "link_time_ms", link_ms_lo / 2, "ms");
        cml_record_finding(rec,
                           "Model: the host reading out[] (%s) faults its pages back one group "
                           "at a time: at least %.2f ms at the link's typical %.1f GB/s.",
                           sz, link_ms_lo / 2, pinned);
        break;
    default: /* manual */
        tr_set_extra(rec, "link_time_ms", link_ms_lo, "ms");
        cml_record_finding(rec,
                           "Model: cudaMalloc + cudaMemcpy of %s in and %s out (pageable host "
                           "memory, staged by the driver): at least %.2f ms at %s's typical "
                           "pinned %.1f GB/s, plus the kernel (%.2f sectors per request).",
                           sz, sz, link_ms_lo, link, pinned, spr);
        break;
    }
}

/* One step's record with the model's view of it. */
static cml_status um_model(cml_record *rec, const tr_settings *s, int step, const tr_link *lk)
{
    const unsigned block = tr_block_sizes[s->block];
    const uint64_t n = (uint64_t)s->um / 4;
    switch (step) {
    case STEP_PREFETCH: rec->bytes_read = 8 * n; break;
    case STEP_READBACK: rec->bytes_read = 4 * n; break;
    default:
        rec->bytes_read = 4 * n;
        rec->bytes_written = 4 * n;
        break;
    }
    if (step_is_kernel(step)) {
        cml_um_args args = {n};
        cml_status st =
            cml_exp_trace_1d(rec, cml_div_up(n, block), block, 0, 1, cml_um_mirror, &args);
        if (st)
            return st;
    }
    um_quote(rec, s, step, lk);
    return CML_OK;
}

cml_status tr_um_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec)
{
    const tr_state *st = tr_state_of(ctx);
    if (s->block != st->um_block)
        return CML_SKIP_POINT; /* managed runs at the first block listed */
    s->um = s->um / 4 * 4;
    int steps[STEP_COUNT];
    const size_t nsteps = tr_um_steps(ctx, steps);
    const size_t index = ctx->point;
    /* The point's record is the first step's; the others follow it. */
    um_name(rec->variant, sizeof rec->variant, s, steps[0]);
    for (size_t k = 1; k < nsteps; k++) {
        char v[96];
        um_name(v, sizeof v, s, steps[k]);
        if (!cml_sweep_add_record(ctx, &ctx->out->items[index], v))
            return CML_ENOMEM;
    }
    for (size_t k = 0; k < nsteps; k++) {
        cml_status e = um_model(&ctx->out->items[index + k], s, steps[k], &st->quoted);
        if (e)
            return e;
    }
    return CML_OK;
}

/* ------------------------------------------------------------------------ */
/* GPU run                                                                  */
/* ------------------------------------------------------------------------ */

static cml_status um_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_um_check(ctx, TR_SEED_UM, d_counters);
}

typedef struct um_run {
    cml_mem in, outm;          /* managed */
    cml_dbuf d_in, d_out;      /* manual: device memory */
    float *ref_in, *ref_out;   /* host reference: random, and 2 * random */
    float *hbuf;               /* host buffer the results are read into */
    double samples[STEP_COUNT][16];
    unsigned ns[STEP_COUNT];
} um_run;

static void um_run_free(cml_gpu *g, um_run *u)
{
    cml_mem_free(g, &u->in);
    cml_mem_free(g, &u->outm);
    cml_gpu_free(g, &u->d_in);
    cml_gpu_free(g, &u->d_out);
    free(u->ref_in);
    free(u->ref_out);
    free(u->hbuf);
}

/*
 * One cycle of the managed-memory sequence; `timed` keeps the samples.
 * Steps: host writes in[] and poisons out[] (pages on the host); kernel
 * (first touch: faults); device-side check; poison out[] on the device;
 * kernel again (warm); host copies out[] back (readback) and compares.
 * Then the same with cudaMemPrefetchAsync before the kernel, and the manual
 * cudaMalloc + cudaMemcpy version. Records are failed on a mismatch.
 * r[s]: the record of step s.
 */
static cml_status um_cycle(const cml_plan *plan, cml_xfer *x, um_run *u, uint64_t n,
                           unsigned block, int prefetch_ok, int timed, cml_record **r)
{
    const size_t bytes = 4 * n;
    double ms[STEP_COUNT];
    size_t bad = 0;
    cml_status st;
    cml_um_launch_args a = {u->in.ptr, u->outm.ptr, n, block};

    /* Without prefetch: first touch, then warm. */
    memcpy(u->in.ptr, u->ref_in, bytes);
    memset(u->outm.ptr, 0xFF, bytes);
    if ((st = cml_xfer_start(x)) || (st = cml_xfer_launch(x, cml_um_launch, &a)) ||
        (st = cml_xfer_stop(x, &ms[0])))
        return cml_exp_fail(plan, r[STEP_FAULT], st);
    st = cml_exp_verify(plan, r[STEP_FAULT], um_check_cb, &a);
    if (st != CML_OK && st != CML_EVERIFY)
        return st;
    if ((st = cml_xfer_memset(x, u->outm.ptr, 0xFF, bytes)) || (st = cml_xfer_start(x)) ||
        (st = cml_xfer_launch(x, cml_um_launch, &a)) || (st = cml_xfer_stop(x, &ms[STEP_WARM])) ||
        (st = cml_xfer_sync(x)))
        return cml_exp_fail(plan, r[STEP_WARM], st);
    double t0 = cml_host_clock_ms();
    memcpy(u->hbuf, u->outm.ptr, bytes);
    ms[STEP_READBACK] = cml_host_clock_ms() - t0;
    int ok = tr_host_same(plan->gpu, u->hbuf, u->ref_out, bytes, &bad);
    tr_verified(r[STEP_WARM], ok, bad, "out[] read back on the host");
    tr_verified(r[STEP_READBACK], ok, bad, "out[] read back on the host");

    /* With prefetch. */
    if (prefetch_ok) {
        memcpy(u->in.ptr, u->ref_in, bytes);
        memset(u->outm.ptr, 0xFF, bytes);
        if ((st = cml_xfer_start(x)) || (st = cml_xfer_prefetch(x, u->in.ptr, bytes)) ||
            (st = cml_xfer_prefetch(x, u->outm.ptr, bytes)) ||
            (st = cml_xfer_stop(x, &ms[STEP_PREFETCH])))
            return cml_exp_fail(plan, r[STEP_PREFETCH], st);
        if ((st = cml_xfer_start(x)) || (st = cml_xfer_launch(x, cml_um_launch, &a)) ||
            (st = cml_xfer_stop(x, &ms[STEP_PREFETCHED])) || (st = cml_xfer_sync(x)))
            return cml_exp_fail(plan, r[STEP_PREFETCHED], st);
        memcpy(u->hbuf, u->outm.ptr, bytes);
        ok = tr_host_same(plan->gpu, u->hbuf, u->ref_out, bytes, &bad);
        tr_verified(r[STEP_PREFETCHED], ok, bad, "out[] read back on the host");
        tr_verified(r[STEP_PREFETCH], ok, bad, "out[] read back on the host");
    }

    /* Manual: cudaMemcpy in, kernel, cudaMemcpy out, all between one pair
     * of events (pageable host buffers, as the textbook's program). */
    cml_um_launch_args m = {u->d_in.ptr, u->d_out.ptr, n, block};
    memset(u->hbuf, 0xFF, bytes);
    if ((st = cml_gpu_poison(plan->gpu, &u->d_out)) || (st = cml_xfer_start(x)) ||
        (st = cml_xfer_copy(x, u->d_in.ptr, u->ref_in, bytes, CML_DIR_H2D)) ||
        (st = cml_xfer_launch(x, cml_um_launch, &m)) ||
        (st = cml_xfer_copy(x, u->hbuf, u->d_out.ptr, bytes, CML_DIR_D2H)) ||
        (st = cml_xfer_stop(x, &ms[STEP_MANUAL])))
        return cml_exp_fail(plan, r[STEP_MANUAL], st);
    tr_verified(r[STEP_MANUAL], tr_host_same(plan->gpu, u->hbuf, u->ref_out, bytes, &bad), bad,
                "the result copied back");

    if (timed)
        for (int s = 0; s < STEP_COUNT; s++) {
            if (!prefetch_ok && (s == STEP_PREFETCH || s == STEP_PREFETCHED))
                continue;
            if (u->ns[s] < 16)
                u->samples[s][u->ns[s]++] = ms[s];
        }
    return CML_OK;
}

/* Findings of the measured steps r[0..STEP_COUNT), against each other and
 * the link quoted. */
static void um_findings(cml_record **r, uint64_t um, const tr_link *lk)
{
    const double pinned = lk->raw_gbs * CML_PCIE_PINNED_SHARE;
    char sz[32];
    cml_fmt_bytes(sz, sizeof sz, (double)um);
#define OK_(s) (r[s]->state == CML_REC_OK && r[s]->measured)
#define MS_(s) (r[s]->timing.median_ms)
    if (OK_(STEP_FAULT)) {
        const double link_ms = cml_pcie_time_ms(2.0 * (double)um, pinned);
        const double ratio = MS_(STEP_FAULT) / link_ms;
        cml_record_finding(
            r[STEP_FAULT],
            "First touch: the kernel faults in[] and out[] (2 x %s, written on the host) over "
            "PCIe: %.2f ms, %.1f GB/s, %.1fx the %.2f ms the same bytes take at the link's "
            "typical %.1f GB/s: %s.",
            sz, MS_(STEP_FAULT), r[STEP_FAULT]->bandwidth_gbs, ratio, link_ms, pinned,
            ratio > 2.0 ? "page-fault handling, not the link, sets the pace"
                        : "migration on demand runs close to the link's rate here");
    }
    if (OK_(STEP_WARM)) {
        char more[64] = "";
        if (OK_(STEP_FAULT))
            snprintf(more, sizeof more, "; the first touch took %.0fx longer",
                     MS_(STEP_FAULT) / MS_(STEP_WARM));
        cml_record_finding(r[STEP_WARM],
                           "Second run, pages resident: %.3f ms (%.0f GB/s), device-memory "
                           "speed%s.",
                           MS_(STEP_WARM), r[STEP_WARM]->bandwidth_gbs, more);
    }
    if (OK_(STEP_PREFETCH))
        cml_record_finding(r[STEP_PREFETCH],
                           "cudaMemPrefetchAsync of both arrays: %.2f ms, %.1f GB/s (%.0f%% of "
                           "the link's typical pinned %.1f GB/s): %s.",
                           MS_(STEP_PREFETCH), r[STEP_PREFETCH]->bandwidth_gbs,
                           100.0 * r[STEP_PREFETCH]->bandwidth_gbs / pinned, pinned,
                           r[STEP_PREFETCH]->bandwidth_gbs > 0.5 * pinned
                               ? "whole ranges move at close to copy speed, without faults"
                               : "well below a pinned copy: the driver still migrates in pieces");
    char vs_warm[64] = "";
    if (OK_(STEP_WARM) && OK_(STEP_PREFETCHED)) {
        const double q = MS_(STEP_PREFETCHED) / MS_(STEP_WARM);
        if (q < 1.25)
            snprintf(vs_warm, sizeof vs_warm, ", as the warm run");
        else
            snprintf(vs_warm, sizeof vs_warm, ", %.1fx the warm run", q);
    }
    if (OK_(STEP_PREFETCHED))
        cml_record_finding(r[STEP_PREFETCHED],
                           "Kernel after the prefetch: %.3f ms (%.0f GB/s)%s; prefetch + kernel "
                           "%.2f ms against %.2f ms of first touch.",
                           MS_(STEP_PREFETCHED), r[STEP_PREFETCHED]->bandwidth_gbs, vs_warm,
                           MS_(STEP_PREFETCHED) + (OK_(STEP_PREFETCH) ? MS_(STEP_PREFETCH) : 0),
                           OK_(STEP_FAULT) ? MS_(STEP_FAULT) : 0.0);
    if (OK_(STEP_READBACK))
        cml_record_finding(r[STEP_READBACK],
                           "The host reading out[] back (memcpy, monotonic clock): %.2f ms, "
                           "%.1f GB/s: its pages migrate back on CPU page faults.",
                           MS_(STEP_READBACK), r[STEP_READBACK]->bandwidth_gbs);
    if (OK_(STEP_MANUAL)) {
        char um_total[120] = "";
        if (OK_(STEP_FAULT) && OK_(STEP_READBACK))
            snprintf(um_total, sizeof um_total,
                     " against managed first touch + readback %.2f ms%s",
                     MS_(STEP_FAULT) + MS_(STEP_READBACK),
                     OK_(STEP_PREFETCH) ? " and prefetch + kernel + readback" : "");
        char pf[48] = "";
        if (OK_(STEP_PREFETCH) && OK_(STEP_PREFETCHED) && OK_(STEP_READBACK))
            snprintf(pf, sizeof pf, " %.2f ms",
                     MS_(STEP_PREFETCH) + MS_(STEP_PREFETCHED) + MS_(STEP_READBACK));
        cml_record_finding(r[STEP_MANUAL],
                           "Manual (sumMatrixGPUManual): cudaMemcpy in (pageable), kernel, "
                           "cudaMemcpy out: %.2f ms%s%s.",
                           MS_(STEP_MANUAL), um_total, pf);
    }
#undef OK_
#undef MS_
}

static void waive_all(cml_sweep *ctx, cml_record **r, const char *why)
{
    for (int s = 0; s < STEP_COUNT; s++)
        cml_sweep_waive(ctx, r[s], "%s", why);
}

/* The point's six step records, from rec (fault) on. */
cml_status tr_um_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec)
{
    const cml_plan *plan = ctx->plan;
    const cml_device_facts *f = plan->dev;
    const uint64_t n = (uint64_t)s->um / 4;
    const size_t bytes = 4 * n;
    cml_record *r[STEP_COUNT];
    for (int k = 0; k < STEP_COUNT; k++)
        r[k] = rec + k;
    if (!f->managed_memory) {
        waive_all(ctx, r, "this device has no managed memory (cudaDevAttrManagedMemory is 0)");
        return CML_OK;
    }
    cml_xfer *x;
    cml_status st = tr_xfer(ctx, rec, &x);
    if (st != CML_OK)
        return st;
    /* The safety cap: never ask for managed memory the card might not have. */
    size_t free_b = 0;
    if ((st = cml_gpu_memory_info(plan->gpu, &free_b, NULL)) != CML_OK)
        return cml_exp_fail(plan, rec, st);
    uint64_t cap = free_b / 8;
    if (cap > ((uint64_t)1 << 30))
        cap = (uint64_t)1 << 30;
    if (2 * (uint64_t)bytes > cap) {
        char why[200];
        snprintf(why, sizeof why,
                 "2 x %.1f MiB of managed memory exceeds the cap of %.1f MiB (1/8 of the %.0f MiB "
                 "free on the device, at most 1 GiB)",
                 (double)bytes / 1048576.0, (double)cap / 1048576.0, (double)free_b / 1048576.0);
        waive_all(ctx, r, why);
        return CML_OK;
    }
    const int prefetch_ok = f->concurrent_managed != 0;
    if (!prefetch_ok) {
        cml_sweep_waive(ctx, r[STEP_PREFETCH],
                        "cudaMemPrefetchAsync needs concurrent managed access "
                        "(cudaDevAttrConcurrentManagedAccess is 0): managed data migrates at "
                        "launch");
        cml_sweep_waive(ctx, r[STEP_PREFETCHED], "%s", r[STEP_PREFETCH]->note);
    }
    um_run u;
    memset(&u, 0, sizeof u);
    u.ref_in = malloc(bytes);
    u.ref_out = malloc(bytes);
    u.hbuf = malloc(bytes);
    if (!u.ref_in || !u.ref_out || !u.hbuf) {
        um_run_free(plan->gpu, &u);
        return CML_ENOMEM;
    }
    for (uint64_t i = 0; i < n; i++) {
        u.ref_in[i] = cml_random_f32(TR_SEED_UM, i);
        u.ref_out[i] = 2.0f * u.ref_in[i]; /* exact: a power of two */
    }
    memset(u.hbuf, 0, bytes); /* touch it now, not inside the timed readback */
    if ((st = cml_mem_alloc(plan->gpu, &u.in, CML_MEM_MANAGED, bytes)) ||
        (st = cml_mem_alloc(plan->gpu, &u.outm, CML_MEM_MANAGED, bytes)) ||
        (st = cml_gpu_alloc(plan->gpu, &u.d_in, bytes)) ||
        (st = cml_gpu_alloc(plan->gpu, &u.d_out, bytes))) {
        um_run_free(plan->gpu, &u);
        return cml_exp_fail(plan, rec, st);
    }
    /* One untimed cycle (its first touch also pays for the driver's first
     * use of the range), then the timed ones. */
    unsigned cycles = plan->reps ? plan->reps : (plan->quick ? 2 : 3);
    if (cycles > 16)
        cycles = 16;
    const unsigned block = tr_block_sizes[s->block];
    for (unsigned c = 0; c <= cycles && st == CML_OK; c++)
        st = um_cycle(plan, x, &u, n, block, prefetch_ok, c > 0, r);
    um_run_free(plan->gpu, &u);
    if (st != CML_OK)
        return st;
    for (int k = 0; k < STEP_COUNT; k++) {
        if (r[k]->state != CML_REC_OK || u.ns[k] == 0)
            continue;
        cml_timing tm;
        if ((st = cml_timing_from_samples(u.samples[k], u.ns[k], 1, &tm)) != CML_OK)
            return st;
        tr_measured(r[k], &tm);
    }
    um_findings(r, bytes, &tr_state_of(ctx)->quoted);
    return CML_OK;
}

void tr_um_requote(cml_sweep *ctx, size_t first, size_t end)
{
    const tr_link *lk = &tr_state_of(ctx)->quoted;
    int steps[STEP_COUNT];
    const size_t nsteps = tr_um_steps(ctx, steps);
    for (size_t p = first; p + nsteps <= end; p += nsteps) {
        const tr_settings *s = tr_settings_of(ctx, p);
        if (!s || s->mode != MODE_MANAGED)
            continue;
        cml_record *r[STEP_COUNT];
        for (size_t k = 0; k < nsteps; k++) {
            r[k] = &ctx->out->items[p + k];
            um_quote(r[k], s, steps[k], lk);
        }
        if (ctx->plan->gpu)
            um_findings(r, (uint64_t)s->um, lk);
    }
}
