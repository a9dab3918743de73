/*
 * Experiment 6: strided and scattered access.
 *
 * Kernels (bodies in stride_body.h, run by the kernels and by the mirror
 * below), one thread per element processed, i = blockIdx.x *
 * blockDim.x + threadIdx.x; loads __ldca (ca), stores plain; site 0 is the
 * load, site 1 the store:
 *   stride:       m = n / s; if (i < m) C[i] = A[i*s];
 *   stride-write: m = n / s; if (i < m) C[i*s] = A[i];
 *   broadcast:    if (i < n) C[i] = A[i/32];      (a warp's lanes on one float)
 *   gather:       if (i < n) C[i] = A[perm(i)];
 *   scatter:      if (i < n) C[perm(i)] = A[i];
 * perm(i) = (i/W)*W + ((i%W)*P)%W, P odd (stride_body.h), W a power of
 * two: a bijection of each window of W elements; a last partial window stays
 * in place. W = 32: a shuffle inside one 128-byte line, which coalesces
 * fully; W = 1024: a warp's lanes spread over a 4 KiB window, one sector
 * each; window=0: W = n rounded down to a power of two (and n with it), the
 * lanes spread over the whole array.
 *
 * Bandwidth counts the useful elements: each element read once and each
 * written once (stride: n/s of each; broadcast: n/32 read, n written).
 *
 * Sizes: by default the strided array grows with the stride beyond 8 (a
 * stride of 8 floats already costs one 32-byte sector per element): the
 * sectors a large stride touches must still exceed L2, or repeated runs
 * would be served from the cache instead of DRAM. It is capped at a quarter
 * of the device's memory.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/stride/stride_body.h"
#include "lab/common.h"

static const char *const patterns[] = {"stride", "stride-write", "broadcast", "gather",
                                       "scatter", NULL};

/* One point of the sweep; the options' fields. */
typedef struct stride_settings {
    int64_t stride, window, pattern, block, n;
} stride_settings;

/* Declared fastest-varying first, and stride and window before the
 * pattern they apply to: strides (or windows) within a pattern within
 * block, the order the records have always come in. The variant name keeps
 * its own order (stride_name). */
static const cml_param_def stride_params[] = {
    {"stride", "element stride s of the stride patterns", 1, 1024, "1,2,4,8,16,32,64,128", NULL, 0,
     CML_FIELD(stride_settings, stride), "pattern=stride,stride-write"},
    {"window",
     "gather/scatter: elements W permuted among themselves, a power of two (0: the whole "
     "array, n rounded down to a power of two)",
     0, (int64_t)1 << 34, "32,1024,0", NULL, CML_PARAM_POW2, CML_FIELD(stride_settings, window),
     "pattern=gather,scatter"},
    {"pattern",
     "stride: C[i] = A[i*s]; stride-write: C[i*s] = A[i]; broadcast: C[i] = A[i/32]; gather: "
     "C[i] = A[perm(i)]; scatter: C[perm(i)] = A[i]",
     0, 0, "stride,stride-write,broadcast,gather,scatter", patterns, 0,
     CML_FIELD(stride_settings, pattern), NULL},
    {"block", "threads per block", 32, 1024, "256", NULL, 0, CML_FIELD(stride_settings, block),
     NULL},
    {"n", "elements of the larger array (0: larger than L2, 4x L2 for both arrays; strided "
          "arrays grow with the stride)",
     0, (int64_t)1 << 34, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(stride_settings, n), NULL},
};

/* The kernels' own bodies (stride_body.h), with the arguments the launcher
 * gives them (stride_body.h), on the model's arrays A and C. */
void cml_stride_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_stride_args *a = vargs;
    const float *A = CML_ARRAY(const float, 0);
    float *C = CML_ARRAY(float, 1);
    const cml_ctx c = CML_MIRROR_CTX(t, e);
    const uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    const uint64_t full = a->window ? a->n / a->window * a->window : 0;
    switch (a->pattern) {
    case CML_STRIDE_READ: cml_stride_read_body(c, A, C, threads, a->stride); break;
    case CML_STRIDE_WRITE: cml_stride_write_body(c, A, C, threads, a->stride); break;
    case CML_STRIDE_BROADCAST: cml_stride_broadcast_body(c, A, C, a->n); break;
    case CML_STRIDE_GATHER: cml_stride_gather_body(c, A, C, a->n, full, a->window); break;
    default: cml_stride_scatter_body(c, A, C, a->n, full, a->window); break;
    }
}

/*
 * With blocks of whole warps, every full warp produces the same traffic:
 *   stride/stride-write: each block is the one before shifted by block*s*4
 *   and block*4 bytes (multiples of 128);
 *   broadcast: every warp loads one float (one sector, one line) and stores
 *   128 aligned bytes, wherever they are;
 *   gather/scatter: a warp covers 32 window positions p0..p0+31 with p0 a
 *   multiple of 32 (or 32/W whole windows when W < 32); its permuted
 *   addresses are {(p0*P + l*P) mod W}, the same set for every warp shifted
 *   by p0*P mod W, a multiple of 32 elements (128 bytes) taken modulo W, a
 *   multiple of 32: that maps lines onto lines and keeps each address's
 *   place in its line, so sectors and lines per request are the same.
 * Only the blocks reaching the i < threads guard or the last partial window
 * (left in place) differ: the tail.
 *
 * Other block sizes put a warp's first position p0 = b*block + 32k at
 * different places from block to block, and they repeat when block*P is a
 * multiple of what decides a warp's traffic: p0 modulo 32 for the strides
 * (the line period of block*4 bytes); modulo 1024 for the broadcast (its
 * 32 lanes read one or two floats, p0/32, and where those sit in their
 * line repeats every 32 of them); modulo the window for gather and scatter
 * (a warp that starts in a window's last 31 positions reaches into the
 * next window). Where that period is most of the grid, a large grid is
 * sampled (trace_sample.h) and a small one walked.
 */
static uint64_t odd_block_period(const cml_stride_args *a, unsigned block)
{
    uint64_t span = 32; /* positions whose residue decides a warp's traffic */
    if (a->pattern == CML_STRIDE_BROADCAST)
        span = 1024;
    else if ((a->pattern == CML_STRIDE_GATHER || a->pattern == CML_STRIDE_SCATTER) &&
             a->window > span)
        span = a->window;
    uint64_t g = 1; /* gcd(block, span), span a power of two */
    while (g < span && block % (2 * g) == 0)
        g *= 2;
    return span / g;
}

cml_status cml_stride_trace(cml_record *rec, const cml_stride_args *a, unsigned block)
{
    uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    uint64_t nblocks = cml_div_up(threads, block);
    uint64_t regular = threads; /* threads before the first irregular one */
    if (a->pattern == CML_STRIDE_GATHER || a->pattern == CML_STRIDE_SCATTER)
        regular = a->n / a->window * a->window;
    uint64_t full = regular / block;
    uint64_t tail = full >= nblocks ? 0 : nblocks - full;
    const uint64_t period = block % CML_WARP_SIZE ? odd_block_period(a, block) : 1u;
    const uint64_t warps = nblocks * cml_div_up(block, CML_WARP_SIZE);
    if (period * 4u > nblocks && warps > CML_EXP_SAMPLE_WARPS) {
        const cml_exp_sample_kind kinds[] = {{CML_SPACE_GLOBAL, CML_OP_LOAD, 4, 1},
                                             {CML_SPACE_GLOBAL, CML_OP_STORE, 4, 1}};
        return cml_exp_trace_sample(rec, cml_dim1(nblocks), cml_dim1(block), cml_stride_mirror,
                                    a, kinds, 2, CML_EXP_SAMPLE_WARPS);
    }
    return cml_exp_trace_1d_period(rec, nblocks, block, 0, tail, period, cml_stride_mirror, a);
}

/* 2^floor(log2(n)), n > 0. */
static uint64_t pow2_floor(uint64_t n)
{
    uint64_t p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

static void stride_finding(cml_record *rec, const cml_stride_args *a, int64_t window_param)
{
    char text[384], wbuf[32];
    int store = a->pattern == CML_STRIDE_WRITE || a->pattern == CML_STRIDE_SCATTER;
    cml_class c = store ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    const cml_traffic *t = &rec->model[CML_RULES_MODERN].cls[c];
    double spr = cml_exp_spr(rec, c);
    double lpr = t->requests ? (double)t->lines / (double)t->requests : 0.0;
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, c);
    double feff = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, c);
    switch (a->pattern) {
    case CML_STRIDE_READ:
    case CML_STRIDE_WRITE:
        snprintf(text, sizeof text,
                 "Stride %llu: a warp's 32 %s are %llu bytes apart and fall in %.1f sectors on "
                 "%.1f lines per request, %.1f%% of the moved bytes used (Fermi: %.1f%%); "
                 "sectors move whole: DRAM moves %.2fx the bytes needed (model)%s.",
                 (unsigned long long)a->stride, store ? "stores" : "loads",
                 (unsigned long long)(4 * a->stride), spr, lpr, eff, feff,
                 cml_exp_dram_ratio(rec),
                 store && a->stride > 1
                     ? ", each part-written sector read before it is written back"
                     : (!store && a->stride >= 16 ? ", reads in 64-byte pieces" : ""));
        break;
    case CML_STRIDE_BROADCAST:
        snprintf(text, sizeof text,
                 "All 32 lanes of a warp load one float: one request of %.1f sector, %.1f%% of "
                 "it used (Fermi cached 128 B line: %.2f%%); the value is broadcast to the "
                 "lanes, so the loads are cheap and the coalesced stores (%.1f sectors per "
                 "request) carry the kernel.",
                 spr, eff, feff, cml_exp_spr(rec, CML_CLASS_GLOBAL_ST));
        break;
    default:
        if (window_param == 0)
            snprintf(wbuf, sizeof wbuf, "the whole array (%llu)", (unsigned long long)a->window);
        else
            snprintf(wbuf, sizeof wbuf, "%llu elements", (unsigned long long)a->window);
        if (a->n / a->window == 0) {
            snprintf(text, sizeof text,
                     "Window %s is larger than the array (n = %llu): nothing is permuted, so "
                     "this is a plain coalesced copy (%.1f sectors per request).",
                     wbuf, (unsigned long long)a->n, spr);
            break;
        }
        snprintf(text, sizeof text,
                 "%s within windows of %s: a warp's 32 %s land in %.1f sectors on %.1f lines "
                 "per request, %.1f%% of the moved bytes used (Fermi: %.1f%%); %s",
                 a->pattern == CML_STRIDE_GATHER ? "Gather" : "Scatter", wbuf,
                 store ? "stores" : "loads", spr, lpr, eff, feff,
                 spr <= 4.0 + 1e-9 ? "a shuffle inside the warp's own 128 bytes coalesces fully."
                                   : "each lane pays for a sector of its own.");
        break;
    }
    cml_exp_finding_measured(rec, text);
}

static int is_strided(int pattern)
{
    return pattern == CML_STRIDE_READ || pattern == CML_STRIDE_WRITE;
}

static int is_windowed(int pattern)
{
    return pattern == CML_STRIDE_GATHER || pattern == CML_STRIDE_SCATTER;
}

/* Elements of the variant's larger array (see the file comment). */
static uint64_t stride_n(const cml_plan *plan, const stride_settings *s)
{
    const int pattern = (int)s->pattern;
    const uint64_t stride = (uint64_t)s->stride;
    uint64_t n = (uint64_t)s->n;
    if (n == 0) {
        n = cml_plan_elements(plan, 4, 2);
        if (is_strided(pattern) && stride > 8) {
            uint64_t most = (plan && plan->dev && plan->dev->global_bytes)
                                ? plan->dev->global_bytes / 16
                                : UINT64_MAX / 1024;
            n = n > most / (stride / 8) ? most : n * (stride / 8);
        }
    }
    if (is_windowed(pattern) && s->window == 0)
        n = pow2_floor(n);
    return n;
}

/* "pattern=stride stride=2 block=256", "pattern=gather window=32 block=256":
 * the name the variant has always had, whatever order the options are swept
 * in. */
static void stride_name(cml_record *rec, const stride_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "pattern", patterns[s->pattern]);
    if (is_strided((int)s->pattern))
        cml_variant_add(rec->variant, sizeof rec->variant, "stride", (long long)s->stride);
    if (is_windowed((int)s->pattern))
        cml_variant_add(rec->variant, sizeof rec->variant, "window", (long long)s->window);
    cml_variant_add(rec->variant, sizeof rec->variant, "block", (long long)s->block);
}

/* The mirror's arguments at a point whose n is resolved; window 0 stands
 * for n (a power of two by then). */
static cml_stride_args stride_args(const stride_settings *s)
{
    const int pattern = (int)s->pattern;
    const uint64_t n = (uint64_t)s->n;
    cml_stride_args a = {pattern, n, is_strided(pattern) ? (uint64_t)s->stride : 0,
                         is_windowed(pattern) ? (s->window == 0 ? n : (uint64_t)s->window) : 0};
    return a;
}

/* One variant's record with the model's prediction. A variant that cannot
 * run is marked (failed or waived, with the reason) and not measured. */
static cml_status stride_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    stride_settings *s = vs;
    s->n = (int64_t)stride_n(ctx->plan, s);
    stride_name(rec, s);
    const int pattern = (int)s->pattern;
    const cml_stride_args a = stride_args(s);
    if (is_windowed(pattern) && (a.window & (a.window - 1)) != 0) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "window=%lld is not a power of two: the permutation needs one",
                        (long long)s->window);
        return CML_OK;
    }
    uint64_t threads = cml_stride_threads(pattern, a.n, a.stride);
    if (threads == 0) {
        cml_sweep_waive(ctx, rec, "no element to process: n=%llu, stride %llu",
                        (unsigned long long)a.n, (unsigned long long)s->stride);
        return CML_OK;
    }
    rec->bytes_read = 4 * (pattern == CML_STRIDE_BROADCAST ? cml_div_up(a.n, 32) : threads);
    rec->bytes_written = 4 * threads;
    cml_status st = cml_stride_trace(rec, &a, (unsigned)s->block);
    if (st)
        return st;
    stride_finding(rec, &a, s->window);
    return CML_OK;
}

/* A (the engine's slot 0) and C (slot 1) only grow across a sweep: a
 * variant uses a prefix of them, and the checker all of C. */
typedef struct stride_state {
    uint64_t capA, capC; /* floats */
} stride_state;

#define SEED_A 0x57A1DE0000000001ull

static cml_status stride_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_stride_check(ctx, SEED_A, d_counters);
}

/* Measure one variant: poison C, time, check every float of C. */
static cml_status stride_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const stride_settings *s = vs;
    stride_state *g = ctx->state;
    const cml_stride_args a = stride_args(s);
    uint64_t threads = cml_stride_threads(a.pattern, a.n, a.stride);
    uint64_t needA = a.pattern == CML_STRIDE_WRITE       ? threads
                     : a.pattern == CML_STRIDE_BROADCAST ? cml_div_up(a.n, 32)
                                                         : a.n;
    uint64_t needC = a.pattern == CML_STRIDE_READ ? threads : a.n;
    uint64_t capA = needA > g->capA ? needA : g->capA;
    uint64_t capC = needC > g->capC ? needC : g->capC;
    cml_dbuf *p = cml_sweep_buffer(ctx, rec, 0, capA * sizeof(float), SEED_A);
    if (!p)
        return CML_ECUDA;
    const cml_dbuf A = *p;
    if (!(p = cml_sweep_buffer(ctx, rec, 1, capC * sizeof(float), 0)))
        return CML_ECUDA;
    cml_dbuf C = *p;
    g->capA = capA;
    g->capC = capC;
    const unsigned block = (unsigned)s->block;
    cml_stride_launch_args args = {.A = A.ptr, .C = C.ptr, .n = a.n, .stride = a.stride,
                                   .window = a.window, .cap = capC, .block = block,
                                   .pattern = a.pattern};
    cml_status st = cml_exp_measure(ctx->plan, rec, &C, cml_stride_launch, &args,
                                    cml_stride_kernel(a.pattern), block, 0, stride_check_cb,
                                    &args);
    if (st == CML_OK)
        stride_finding(rec, &a, s->window);
    return st;
}

/* The strided patterns against the stride; the others (records without a
 * stride) as bars. */
static const cml_chart_spec stride_charts[] = {
    {.shape = CML_PLOT_SWEEP, .title = "Measured bandwidth vs stride", .xparam = "stride",
     .xname = "stride", .xlabel = "stride (elements)", .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER, .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER,
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_SWEEP, .title = "Predicted efficiency vs stride", .xparam = "stride",
     .xname = "stride", .xlabel = "stride (elements)", .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER, .ylabel = "bytes used / bytes moved (%)", .yfmt = CML_FMT_PERCENT,
     .m = {{"modern", CML_METRIC_EFF_MODERN, NULL, "under the modern rules", 0},
           {"Fermi/Kepler", CML_METRIC_EFF_FERMI, NULL, "under the Fermi/Kepler rules", 0}},
     .what = "the predicted efficiency", .unit = "%", .describe = 1},
    {.shape = CML_PLOT_BARS, .title = "Measured bandwidth: broadcast, gather and scatter",
     .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER, .without_param = "stride",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 0},
    {.shape = CML_PLOT_BARS, .title = "Predicted efficiency: broadcast, gather and scatter",
     .ylabel = "bytes used / bytes moved (%)", .yfmt = CML_FMT_PERCENT, .without_param = "stride",
     .m = {{"modern", CML_METRIC_EFF_MODERN, NULL, "under the modern rules", 0}},
     .what = "the predicted efficiency without a stride", .unit = "%", .describe = 1},
};

static const char *const stride_validate_settings[] = {
    "pattern=stride,stride-write stride=1:32",
    "pattern=broadcast",
    "pattern=gather,scatter window=32,1024,0",
    NULL,
};
/* Cache levels (docs/model-evidence.md): scattered stores of one block
 * meet in L1 (§4.5: 1.8% of the store sectors at window=1024), inside the
 * model's interval of L2 writes (docs/model.md §16.8, l1_merge). A window
 * of 1024's dirty residue (§4.6) and the whole-array permutation's DRAM
 * figures (§4.8: the model's are those of no reuse, up to 5x the bytes
 * measured at 32 MiB) are not explained (§4.12). */
static const cml_validate_spec stride_validate = {stride_validate_settings, NULL, 0};

const cml_experiment cml_exp_stride = {
    .key = "stride",
    .number = 6,
    .title = "Strided and scattered access",
    .summary = "Strided reads and writes, warp broadcast, and gather/scatter within windows of W "
               "elements",
    .doc = "docs/experiments/stride.md",
    .options = stride_params,
    .noptions = CML_COUNT(stride_params),
    .settings_size = sizeof(stride_settings),
    .state_size = sizeof(stride_state),
    .tour = "pattern=stride,broadcast,gather stride=1,2,8,32 window=32,1024,0",
    .variant = stride_variant,
    .measure = stride_measure,
    .charts = stride_charts,
    .ncharts = CML_COUNT(stride_charts),
    .validate = &stride_validate,
};
