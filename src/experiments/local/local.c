/*
 * Experiment 9: local memory.
 *
 * The kernels and the mirror below run the same bodies (local_body.h): per-thread arrays, and a struct, indexed at run time, so
 * they live in the thread's local frame; the spill kernel, whose 48 live
 * values do not fit the 32 registers it is allowed, so ptxas spills; and
 * the register-only twin of each, with no local access at all.
 *
 * The spill traffic is ptxas's, not the source's: the mirror emits
 * spill_store_bytes / 4 stores and spill_load_bytes / 4 loads at one frame
 * offset per slot (a spill slot is the same per-thread scalar in every
 * lane), the byte counts ptxas printed for this kernel (the build-time
 * table); the kernel has no loop, so each spill instruction runs exactly
 * once per thread. ptxas may spill in 8- or 16-byte accesses: the sectors
 * are the same (a same-index access of w bytes per lane is w sectors per
 * warp, so sectors per warp = spill bytes per thread), the requests then
 * fewer than the mirror's.
 *
 * The model maps frame offsets to physical addresses itself (consecutive
 * 4-byte words of one thread are 128 bytes apart, the 32 lanes
 * interleaved), so the mirror emits frame offsets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/local/local_body.h"
#include "gpu/kernel_info.h"
#include "lab/common.h"

static const char *const pattern_names[] = {"same-index", "lane-varying", "struct", "spill",
                                            NULL};
static const char *const impl_names[] = {"local", "registers", NULL};
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

/* One point of the sweep; the options' fields. */
typedef struct local_settings {
    int64_t impl, pattern, K, block, index, n;
} local_settings;

/* Declared fastest-varying first: the kernel and its register twin next
 * to each other (local_summary compares them), within a pattern, within
 * K, within block: the order the records have always come in. The variant
 * name keeps its own order (local_name). */
static const cml_param_def local_params[] = {
    {"impl", "local (the kernel under study) and/or registers (its register-only twin)", 0, 0,
     "local,registers", impl_names, 0, CML_FIELD(local_settings, impl), NULL},
    {"pattern",
     "same-index (all lanes arr[s]), lane-varying (lane l: arr[(l+s)%K]), struct (the same "
     "through a struct's fields), spill (48 live values under a 32-register cap; K unused)",
     0, 0, "same-index,lane-varying,struct,spill", pattern_names, 0,
     CML_FIELD(local_settings, pattern), NULL},
    {"K", "per-thread array length (floats) / struct fields used", 8, CML_LOCAL_KMAX, "32", NULL, 0,
     CML_FIELD(local_settings, K), NULL},
    {"block", "threads per block", 0, 0, "256", block_names, 0, CML_FIELD(local_settings, block),
     NULL},
    {"index", "run-time index s (used modulo K)", 0, CML_LOCAL_KMAX - 1, "1", NULL,
     CML_PARAM_NOVARIANT, CML_FIELD(local_settings, index), NULL},
    {"n", "threads, one element of in[] and out[] each", 32, (int64_t)1 << 30, "2^20", NULL,
     CML_PARAM_NOVARIANT, CML_FIELD(local_settings, n), NULL},
};

const cml_ptxas_entry *cml_local_ptxas_find(const char *name)
{
    for (unsigned i = 0; name && i < cml_local_ptxas_count; i++)
        if (strcmp(cml_local_ptxas[i].name, name) == 0)
            return &cml_local_ptxas[i];
    return NULL;
}

/* The kernels' own bodies (local_body.h), on the model's arrays in (0) and
 * out (1), through the window of cml_local_args. */
void cml_local_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_local_args *a = vargs;
    const float *in = CML_ARRAY(const float, 0);
    float *out = CML_ARRAY(float, 1);
    cml_window w = {a->emit_lo, a->emit_hi, 0};
    const cml_ctx c = CML_MIRROR_CTX_WINDOW(t, e, &w);
    const int K = (int)a->K, s = (int)a->s;
    const int lane_varying = a->pattern != CML_LOCAL_SAME_INDEX;
    if (a->pattern == CML_LOCAL_SPILL)
        cml_local_spill_body(c, in, out, a->n, a->regs ? 0u : a->spill_store_bytes,
                             a->regs ? 0u : a->spill_load_bytes);
    else if (a->regs)
        cml_local_regs_body(c, in, out, a->n, K, s, lane_varying);
    else if (a->pattern == CML_LOCAL_STRUCT)
        cml_local_struct_body(c, in, out, a->n, K, s);
    else
        cml_local_array_body(c, in, out, a->n, K, s, lane_varying);
}

/* Emissions of one thread with work (what the windows must cover). */
static unsigned local_emissions(const cml_local_args *a)
{
    if (a->regs)
        return 2u;
    if (a->pattern == CML_LOCAL_SPILL)
        return 2u + a->spill_store_bytes / 4u + a->spill_load_bytes / 4u;
    return a->K + 3u;
}

/*
 * Trace the kernel in windows of emissions (see cml_local_args) and add the
 * windows' totals into rec. Exact: every thread with work makes the same
 * sequence of accesses, so window k of each lane holds the same
 * instructions, and the model has no state across instructions.
 */
static cml_status local_trace(cml_record *rec, uint64_t nblocks, unsigned block,
                              cml_local_args *a)
{
    const unsigned total = local_emissions(a), step = CML_MAX_EMITS - 6u;
    cml_kernel_traffic sum[CML_RULES_COUNT];
    memset(sum, 0, sizeof sum);
    int windows = 0;
    cml_record *scratch = malloc(sizeof *scratch); /* a record is a few KB */
    if (!scratch)
        return CML_ENOMEM;
    for (unsigned lo = 0; lo < total; lo += step) {
        a->emit_lo = lo;
        a->emit_hi = lo + step;
        memset(scratch, 0, sizeof *scratch);
        scratch->cache = rec->cache;
        windows++;
        /* Blocks differ only by a shift of 4*block bytes (a multiple of 128)
         * in in[] and out[]; the last block may be partial. */
        cml_status st = cml_exp_trace_1d(scratch, nblocks, block, 0, 1, cml_local_mirror, a);
        if (st) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "%s", scratch->note);
            free(scratch);
            return st;
        }
        for (int r = 0; r < CML_RULES_COUNT; r++)
            for (int c = 0; c < CML_CLASS_COUNT; c++)
                cml_traffic_add(&sum[r].cls[c], &scratch->model[r].cls[c]);
    }
    /* The cache levels need each warp's instructions in order: they are
     * the one window's when the kernel fits in one (K up to about 120),
     * else not modelled. */
    rec->has_levels = windows == 1 && scratch->has_levels;
    rec->levels = scratch->levels;
    free(scratch);
    memcpy(rec->model, sum, sizeof sum);
    rec->has_model = 1;
    rec->grid = nblocks;
    rec->block = block;
    return CML_OK;
}

static double per_instr(uint64_t v, uint64_t instructions)
{
    return instructions ? (double)v / (double)instructions : 0.0;
}

/* " ptxas (sm_90): 19 regs, 1024 B stack, 0/0 B spilled." or why there are none. */
static void ptxas_clause(char *buf, size_t len, const cml_ptxas_entry *p)
{
    if (!p)
        snprintf(buf, len, " No ptxas figures%s%s.", cml_local_ptxas_status[0] ? ": " : "",
                 cml_local_ptxas_status);
    else
        snprintf(buf, len, " ptxas (%s): %d regs, %u B stack, %u/%u B spilled/reloaded.",
                 cml_local_ptxas_arch, p->regs, p->stack_bytes, p->spill_store_bytes,
                 p->spill_load_bytes);
}

static void local_finding(cml_record *rec, const cml_local_args *a, const cml_ptxas_entry *p)
{
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_LOCAL_LD];
    const cml_traffic *st = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_LOCAL_ST];
    const double ld_spr = per_instr(ld->sectors, ld->requests);
    const double st_spr = per_instr(st->sectors, st->requests);
    const double ld_eff = 100.0 * cml_traffic_efficiency(ld);
    /* A warp's 32 four-byte values cannot come in fewer sectors than this. */
    const unsigned best = CML_WARP_SIZE * 4u / CML_SECTOR_BYTES;
    const unsigned distinct = a->K < CML_WARP_SIZE ? a->K : CML_WARP_SIZE;
    char px[160];
    ptxas_clause(px, sizeof px, p);
    if (a->regs) {
        cml_record_finding(rec,
                           "Register twin of %s: the same loop and arithmetic with no array in "
                           "memory, so no local traffic: its time is the baseline the local "
                           "kernel is compared with.%s",
                           pattern_names[a->pattern], px);
        return;
    }
    switch (a->pattern) {
    case CML_LOCAL_SAME_INDEX:
        cml_record_finding(rec,
                           "All lanes load arr[%u]: local memory interleaves the threads' 4-byte "
                           "words, so the warp's 32 values are 128 contiguous bytes: %.2f sectors "
                           "per local load request (%.1f%% used, %u at best); the %u stores %.2f."
                           "%s",
                           a->s, ld_spr, ld_eff, best, a->K, st_spr, px);
        break;
    case CML_LOCAL_LANE_VARYING:
    case CML_LOCAL_STRUCT: {
        const int is_struct = a->pattern == CML_LOCAL_STRUCT;
        cml_record_finding(rec,
                           "%s: lane l loads %s[(l+%u)%%%u], %u frame offsets per warp, each in "
                           "its own 128-byte row of the interleave: %.2f sectors per local load "
                           "request (%.1f%% used) against %u for one index.%s",
                           is_struct ? "Struct fields are frame slots like array elements"
                                     : "Lane-varying index",
                           is_struct ? "b.f" : "arr", a->s, a->K, distinct, ld_spr, ld_eff, best,
                           px);
        break;
    }
    case CML_LOCAL_SPILL:
        cml_record_finding(rec,
                           "48 live values under a 32-register cap: ptxas spills %u B and reloads "
                           "%u B per thread, each slot one frame offset for all lanes: %.2f "
                           "sectors per local load request, %.2f per store (%.1f%% used).%s",
                           a->spill_store_bytes, a->spill_load_bytes, ld_spr, st_spr, ld_eff, px);
        break;
    }
}

/* ---- the variants --------------------------------------------------------- */

/* The run's state: the K of its first point. The spill kernel has no K, so
 * it runs at that one K only: one set of spill records per block (a K
 * listed twice, K=32,32, gives them twice). */
typedef struct local_state {
    int started;
    int64_t first_K;
} local_state;

/* "pattern=same-index K=32 block=256 impl=local" (no K for spill): the
 * name the variant has always had, whatever order the options are swept
 * in. */
static void local_name(cml_record *rec, const local_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "pattern", pattern_names[s->pattern]);
    if (s->pattern != CML_LOCAL_SPILL)
        cml_variant_add(rec->variant, sizeof rec->variant, "K", (long long)s->K);
    cml_variant_add(rec->variant, sizeof rec->variant, "block", block_sizes[s->block]);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "impl", impl_names[s->impl]);
}

/* The ptxas row of a point's kernel, or NULL. */
static const cml_ptxas_entry *point_ptxas(const local_settings *s)
{
    return cml_local_ptxas_find(cml_local_kernel_name((int)s->pattern, (int)s->impl));
}

/* One variant's record with the model's prediction. K and index are
 * recorded as the kernel uses them: the spill kernel's 48 values, and the
 * index modulo K. */
static cml_status local_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    local_settings *s = vs;
    local_state *g = ctx->state;
    if (!g->started) {
        g->started = 1;
        g->first_K = s->K;
    }
    const int regs = (int)s->impl;
    if (s->pattern == CML_LOCAL_SPILL) {
        if (s->K != g->first_K)
            return CML_SKIP_POINT;
        s->K = CML_LOCAL_SPILL_VALUES;
    }
    s->index %= s->K;
    local_name(rec, s);
    const uint64_t n = (uint64_t)s->n;
    const unsigned block = block_sizes[s->block];
    const cml_ptxas_entry *p = point_ptxas(s);
    cml_local_args args = {n, (unsigned)s->K, (unsigned)s->index, (cml_local_pattern)s->pattern,
                           regs, 0, 0, 0, 0};
    if (s->pattern == CML_LOCAL_SPILL && p) {
        args.spill_store_bytes = p->spill_store_bytes;
        args.spill_load_bytes = p->spill_load_bytes;
    }
    /* The algorithm's bytes: in[] read once, out[] written once; local
     * traffic is the cost under study, not work. */
    rec->bytes_read = 4 * n;
    rec->bytes_written = 4 * n;

    cml_status st = local_trace(rec, cml_div_up(n, block), block, &args);
    if (st)
        return st;
    const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
    cml_record_add_extra(rec, "local_bytes",
                         (double)CML_SECTOR_BYTES * (double)(m->cls[CML_CLASS_LOCAL_LD].sectors +
                                                             m->cls[CML_CLASS_LOCAL_ST].sectors),
                         "B");
    if (p) {
        cml_record_add_extra(rec, "regs", p->regs, "");
        cml_record_add_extra(rec, "stack_bytes", p->stack_bytes, "B");
        cml_record_add_extra(rec, "spill_stores", p->spill_store_bytes, "B");
        cml_record_add_extra(rec, "spill_loads", p->spill_load_bytes, "B");
    }
    local_finding(rec, &args, p);
    if (s->pattern == CML_LOCAL_SPILL && !regs && !p) {
        /* Without ptxas's figures the spill traffic is unknown, not zero:
         * say so rather than predict 0. */
        cml_record_note(rec, "no ptxas figures: spill traffic not modelled");
    }
    return CML_OK;
}

/* ---- GPU side ------------------------------------------------------------ */

enum { SEED_IN = 0x10CA1ull, OUT_MARGIN = 32 };

static cml_status local_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_local_check(ctx, SEED_IN, d_counters);
}

/* Append the measured clause to the finding (it must still fit). */
static void finding_append(cml_record *rec, const char *text)
{
    size_t used = strlen(rec->finding);
    if (used < sizeof rec->finding)
        snprintf(rec->finding + used, sizeof rec->finding - used, "%s", text);
}

/* Measure one variant: poison out, time, check every float, and read what
 * the runtime says about the kernel (registers, local bytes per thread).
 * The engine keeps in (slot 0) and out (slot 1) across the variants. */
static cml_status local_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const local_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    const uint64_t n = (uint64_t)s->n;
    const unsigned block = block_sizes[s->block];
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, n * sizeof(float), SEED_IN);
    cml_dbuf *out = in ? cml_sweep_buffer(ctx, rec, 1, (n + OUT_MARGIN) * sizeof(float), 0) : NULL;
    if (!out)
        return CML_ECUDA;
    cml_local_launch_args la = {
        in->ptr, out->ptr, n, n + OUT_MARGIN, (int)s->K, (int)s->index,
        block, (int)s->pattern, (int)s->impl,
    };
    const void *kernel = cml_local_kernel(la.pattern, la.regs);
    cml_kernel_info ki;
    cml_status st = cml_gpu_kernel_info(plan->gpu, kernel, &ki);
    if (!st)
        st = cml_gpu_poison(plan->gpu, out);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_local_launch, &la, kernel, block, 0);
    if (!st)
        st = cml_exp_verify(plan, rec, local_check_cb, &la);
    /* A wrong output still ran: what the runtime says about the kernel
     * stands. */
    if ((st == CML_OK || st == CML_EVERIFY) && ki.binary_version) {
        cml_record_add_extra(rec, "rt_regs", ki.regs, "");
        cml_record_add_extra(rec, "rt_local_bytes", (double)ki.local_bytes, "B");
        char buf[128];
        snprintf(buf, sizeof buf, " Runtime (sm_%d): %d regs, %zu B local.", ki.binary_version,
                 ki.regs, ki.local_bytes);
        finding_append(rec, buf);
    }
    return st;
}

/*
 * The cost of local memory: the local kernel's time over its twin's, when
 * both were measured and verified. Records [first, last] are the impls of
 * one pattern, K and block.
 */
static void local_summary(cml_sweep *ctx, size_t first, size_t last)
{
    size_t local_rec = (size_t)-1, twin_rec = (size_t)-1;
    for (size_t i = first; i <= last; i++) {
        const local_settings *s = cml_sweep_settings_of(ctx, i);
        if (s && s->impl)
            twin_rec = i;
        else if (s)
            local_rec = i;
    }
    if (local_rec == (size_t)-1 || twin_rec == (size_t)-1)
        return;
    cml_record *lr = &ctx->out->items[local_rec], *tr = &ctx->out->items[twin_rec];
    if (lr->measured && tr->measured && lr->state == CML_REC_OK && tr->state == CML_REC_OK &&
        tr->timing.median_ms > 0) {
        const double slow = lr->timing.median_ms / tr->timing.median_ms;
        char buf[128];
        cml_record_add_extra(lr, "slowdown", slow, "x");
        snprintf(buf, sizeof buf, " Measured %.1f us, %.2fx the twin's %.1f us.",
                 1e3 * lr->timing.median_ms, slow, 1e3 * tr->timing.median_ms);
        finding_append(lr, buf);
    }
}

/* Bandwidth and the predicted local-load sectors per request, a bar per
 * variant. */
static const cml_chart_spec local_charts[] = {
    {.shape = CML_PLOT_BARS, .title = "Measured bandwidth by local-memory pattern",
     .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER,
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_BARS, .title = "Predicted local-load sectors per request",
     .ylabel = "32-byte sectors per request", .yfmt = CML_FMT_NUMBER,
     .m = {{"modern", CML_METRIC_CLASS_SPR, "local_ld", NULL, 0}},
     .what = "local-load sectors per request", .unit = "", .describe = 1},
};

static const char *const local_validate_settings[] = {"", NULL};
/* No explained differences: the frames of the resident blocks fill L1
 * almost exactly, and how many of a thread's local loads still find their
 * line depends on how the blocks' phases interleave (docs/model-evidence.md
 * §4.10: 12-27% of the load sectors), beyond what an explanation may
 * cover; those L2 reads stay unexplained until the model's interval holds
 * them (§4.12). */
static const cml_validate_spec local_validate = {local_validate_settings, NULL, 0};

const cml_experiment cml_exp_local = {
    .key = "local",
    .number = 9,
    .title = "Local memory",
    .summary = "per-thread float arrays indexed at run time: same index in all lanes (coalesced) "
               "vs lane-varying indices, large structs and register spills, each against a "
               "register twin",
    .doc = "docs/experiments/local.md",
    .options = local_params,
    .noptions = CML_COUNT(local_params),
    .settings_size = sizeof(local_settings),
    .state_size = sizeof(local_state),
    .tour = "pattern=same-index,lane-varying,spill K=32",
    .variant = local_variant,
    .measure = local_measure,
    .summarize = local_summary,
    .charts = local_charts,
    .ncharts = CML_COUNT(local_charts),
    .validate = &local_validate,
};
