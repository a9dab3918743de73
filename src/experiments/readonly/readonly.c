/*
 * Experiment 7: the read-only cache. The same kernels through plain L1-cached
 * loads (ca), L2-only loads (cg, __ldcg), the read-only path (nc, __ldg) and
 * streaming loads (cs, __ldcs: evict-first, L1 still filled), on streaming
 * data and on data that is re-used.
 *
 * Kernels (bodies in readonly_body.h, run by the kernels and by the
 * mirror below), one thread per output, i = blockIdx.x*blockDim.x +
 * threadIdx.x; LOAD is __ldca, __ldcg, __ldg or __ldcs; stores plain:
 *   copy:       if (i < n) C[i] = LOAD(&A[i]);                     (sites 0, 1)
 *   stencil:    if (i < n-8) C[i] = sum_{k<9} c_k * LOAD(&A[i+k]);  (sites 0..8, 9)
 *               computed as acc = c0*v0, acc += ck*vk in that order with
 *               __fmul_rn/__fadd_rn (no FMA contraction), so the checkers
 *               compare bit for bit: the comparison is exact, no tolerance.
 *   hot-gather: if (i < n) C[i] = LOAD(&T[hot(i)]);                (sites 0, 1)
 *               T: m floats (16 KiB .. 4 MiB by default), hot(i) a hash that
 *               spreads each warp over 32 lines of the table (readonly_body.h)
 * The stencil's output i is centred on input i+4; the last 8 floats of C are
 * not outputs and must keep the poison.
 *
 * Bandwidth counts what the algorithm must move: copy n in + n out; stencil
 * n in (each input once, though nine threads load it) + n-8 out; hot-gather
 * n out + the n floats gathered (a table element read by many threads is
 * counted each time: the table is tiny, and the gather's useful work is n
 * reads). The model counts the loads as issued; whether the re-reads are
 * served by L1 or by L2 is what the measurement shows.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/readonly/readonly_body.h"
#include "lab/common.h"

static const char *const ro_patterns[] = {"copy", "stencil", "hot-gather", NULL};
static const char *const ro_paths[] = {"ca", "cg", "nc", "cs", NULL};
static const cml_cache ro_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_NC, CML_CACHE_CS};

/* One point of the sweep; the options' fields. */
typedef struct readonly_settings {
    int64_t path, table, pattern, block, n;
} readonly_settings;

/* Declared fastest-varying first, and table before the pattern it applies
 * to: paths within a table within a pattern within block, the order the
 * records have always come in. The variant name keeps its own order
 * (readonly_name). */
static const cml_param_def readonly_params[] = {
    {"path",
     "load path: ca = L1 and L2 (plain), cg = L2 only (__ldcg), nc = read-only (__ldg), cs = "
     "streaming (__ldcs: fills L1, its hits do not keep the line)",
     0, 0, "ca,cg,nc", ro_paths, 0, CML_FIELD(readonly_settings, path), NULL},
    {"table", "hot-gather: table size in bytes, a power of two (16k..4M spans L1 to L2)", 128,
     (int64_t)1 << 30, "16k,256k,4M", NULL, CML_PARAM_POW2, CML_FIELD(readonly_settings, table),
     "pattern=hot-gather"},
    {"pattern", "copy: C[i] = A[i]; stencil: 9-point 1-D stencil; hot-gather: C[i] = T[hash(i)]",
     0, 0, "copy,stencil,hot-gather", ro_patterns, 0, CML_FIELD(readonly_settings, pattern), NULL},
    {"block", "threads per block", 32, 1024, "256", NULL, 0, CML_FIELD(readonly_settings, block),
     NULL},
    {"n", "elements per array (0: each array larger than L2, 4x L2 in all)", 0,
     (int64_t)1 << 34, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(readonly_settings, n), NULL},
};

/* The kernels' own bodies (readonly_body.h), with the arguments the
 * launcher gives them (readonly_body.h), on the model's arrays A, C and T. */
void cml_readonly_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_readonly_args *a = vargs;
    const float *A = CML_ARRAY(const float, 0), *T = CML_ARRAY(const float, 2);
    float *C = CML_ARRAY(float, 1);
    const cml_ctx c = CML_MIRROR_CTX(t, e);
    const uint64_t threads = cml_readonly_threads(a->pattern, a->n);
    switch (a->pattern) {
    case CML_RO_COPY: cml_ro_copy_body(c, A, C, threads, a->cache); break;
    case CML_RO_STENCIL: cml_ro_stencil_body(c, A, C, threads, a->cache); break;
    default: cml_ro_hot_body(c, T, C, threads, a->m, a->cache); break;
    }
}

/*
 * With blocks of whole warps every full block has the same traffic: copy
 * and stencil blocks are translates by block*4 bytes (a multiple of 128);
 * a hot-gather warp's table addresses are the same pattern shifted by a
 * multiple of 128 bytes modulo the table (readonly_body.h), and its
 * stores are 128 aligned bytes. Only the blocks reaching the guard differ.
 * Other block sizes: copy and stencil blocks repeat with the line period of
 * block*4 bytes; a hot-gather warp then spans two hash groups, whose shifts
 * are pseudo-random: no period, so a large grid is sampled (trace_sample.h)
 * and a small one walked.
 */
cml_status cml_readonly_trace(cml_record *rec, const cml_readonly_args *a, unsigned block)
{
    uint64_t threads = cml_readonly_threads(a->pattern, a->n);
    uint64_t nblocks = cml_div_up(threads, block);
    const int odd = block % CML_WARP_SIZE != 0;
    if (odd && a->pattern == CML_RO_HOT_GATHER) {
        const cml_exp_sample_kind kinds[] = {{CML_SPACE_GLOBAL, CML_OP_LOAD, 4, 1},
                                             {CML_SPACE_GLOBAL, CML_OP_STORE, 4, 1}};
        return cml_exp_trace_sample(rec, cml_dim1(nblocks), cml_dim1(block), cml_readonly_mirror,
                                    a, kinds, 2, CML_EXP_SAMPLE_WARPS);
    }
    return cml_exp_trace_1d_period(rec, nblocks, block, 0, nblocks - threads / block,
                                   odd ? cml_exp_line_period(4u * block) : 1u,
                                   cml_readonly_mirror, a);
}

static const char *path_words(int path)
{
    switch (path) {
    case CML_RO_CA: return "plain loads (ca, L1 and L2)";
    case CML_RO_CG: return "__ldcg (cg, L2 only)";
    case CML_RO_CS: return "__ldcs (cs, streaming: L1 keeps a line no longer for its hits)";
    default: return "__ldg (nc, read-only path)";
    }
}

static void readonly_finding(const cml_plan *plan, cml_record *rec, const cml_readonly_args *a,
                             int path)
{
    char text[384], tbuf[32], cbuf[32], where[128] = "";
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    switch (a->pattern) {
    case CML_RO_COPY:
        snprintf(text, sizeof text,
                 "Streaming copy through %s: every byte is used once (%.2f sectors per request, "
                 "%.0f%% used), so there is no re-use for a cache to exploit and the path "
                 "should hardly change the bandwidth.",
                 path_words(path), spr, eff);
        break;
    case CML_RO_STENCIL: {
        double ratio = rec->bytes_read ? (double)ld->sectors * CML_SECTOR_BYTES /
                                             (double)rec->bytes_read
                                       : 0.0;
        snprintf(text, sizeof text,
                 "9-point stencil through %s: each input float is loaded by 9 threads, so the "
                 "loads ask for %.1fx the bytes the algorithm must read (%.2f sectors per "
                 "request); %s",
                 path_words(path), ratio, spr,
                 path == CML_RO_CG ? "cg skips L1, so every re-read is an L2 request."
                                   : "L1 can serve the re-reads, leaving DRAM near 1x.");
        break;
    }
    default: {
        double bytes = (double)a->m * 4;
        double lpr = ld->requests ? (double)ld->lines / (double)ld->requests : 0.0;
        cml_fmt_bytes(tbuf, sizeof tbuf, bytes);
        if (plan && plan->dev && plan->dev->l2_bytes) {
            if (plan->dev->shared_per_sm && bytes <= (double)plan->dev->shared_per_sm) {
                cml_fmt_bytes(cbuf, sizeof cbuf, (double)plan->dev->shared_per_sm);
                snprintf(where, sizeof where, " It fits in an SM's L1/shared memory (%s): "
                         "re-reads can stay on the SM.", cbuf);
            } else if (bytes <= (double)plan->dev->l2_bytes / 2) {
                cml_fmt_bytes(cbuf, sizeof cbuf, (double)plan->dev->l2_bytes);
                snprintf(where, sizeof where, " It lives in L2 (%s), beyond L1.", cbuf);
            } else {
                cml_fmt_bytes(cbuf, sizeof cbuf, (double)plan->dev->l2_bytes);
                snprintf(where, sizeof where, " It is not small next to L2 (%s).", cbuf);
            }
        }
        snprintf(text, sizeof text,
                 "Gather from a %s table through %s: a warp's 32 loads hit %.1f sectors on "
                 "%.1f lines per request, %.1f%% of the moved bytes used.%s",
                 tbuf, path_words(path), spr, lpr, eff, where);
        break;
    }
    }
    cml_exp_finding_measured(rec, text);
}

/* "pattern=hot-gather path=ca table=16384 block=256": the name the
 * variant has always had, whatever order the options are swept in. */
static void readonly_name(cml_record *rec, const readonly_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "pattern", ro_patterns[s->pattern]);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "path", ro_paths[s->path]);
    if (s->pattern == CML_RO_HOT_GATHER)
        cml_variant_add(rec->variant, sizeof rec->variant, "table", (long long)s->table);
    cml_variant_add(rec->variant, sizeof rec->variant, "block", (long long)s->block);
}

static cml_readonly_args readonly_args(const readonly_settings *s)
{
    const int hot = s->pattern == CML_RO_HOT_GATHER;
    cml_readonly_args a = {(int)s->pattern, ro_cache[s->path], (uint64_t)s->n,
                           hot ? (uint64_t)s->table / 4 : 0};
    return a;
}

/* One variant's record with the model's prediction. n = 0: each array
 * larger than L2. A variant that cannot run is marked (failed or waived,
 * with the reason) and not measured. */
static cml_status readonly_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    readonly_settings *s = vs;
    if (s->n == 0)
        s->n = (int64_t)cml_plan_elements(ctx->plan, 4, 2);
    readonly_name(rec, s);
    const int pattern = (int)s->pattern, hot = pattern == CML_RO_HOT_GATHER;
    const cml_readonly_args a = readonly_args(s);
    if (hot && (s->table % 4 != 0 || a.m < 32 || (a.m & (a.m - 1)) != 0)) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "table=%lld bytes: the table must be a power of two of at least "
                        "128 bytes", (long long)s->table);
        return CML_OK;
    }
    uint64_t outs = cml_readonly_threads(pattern, a.n);
    if (outs == 0) {
        cml_sweep_waive(ctx, rec, "n=%llu leaves no output (the stencil needs more than 8 inputs)",
                        (unsigned long long)a.n);
        return CML_OK;
    }
    rec->bytes_read = 4 * (pattern == CML_RO_STENCIL ? a.n : outs);
    rec->bytes_written = 4 * outs;
    if (hot)
        cml_record_add_extra(rec, "table_bytes", (double)s->table, "B");
    cml_status st = cml_readonly_trace(rec, &a, (unsigned)s->block);
    if (st)
        return st;
    readonly_finding(ctx->plan, rec, &a, (int)s->path);
    return CML_OK;
}

/* The engine's buffers: A (slot 0) and C (slot 2) of n floats, and the
 * table T (slot 1), which only grows: sized for the largest table met so
 * far, a variant uses its prefix. */
typedef struct readonly_state {
    uint64_t capT; /* floats */
} readonly_state;

#define SEED_A 0x2E4D000000000001ull
#define SEED_T 0x2E4D000000000002ull

static cml_status readonly_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_readonly_check(ctx, SEED_A, SEED_T, d_counters);
}

/* Measure one variant: poison C, time, check every float of C. */
static cml_status readonly_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const readonly_settings *s = vs;
    readonly_state *g = ctx->state;
    const cml_readonly_args a = readonly_args(s);
    cml_dbuf *p = cml_sweep_buffer(ctx, rec, 0, a.n * sizeof(float), SEED_A);
    if (!p)
        return CML_ECUDA;
    const cml_dbuf A = *p;
    if (!(p = cml_sweep_buffer(ctx, rec, 2, a.n * sizeof(float), 0)))
        return CML_ECUDA;
    cml_dbuf C = *p;
    const float *T = NULL;
    if (a.pattern == CML_RO_HOT_GATHER) {
        uint64_t capT = a.m > g->capT ? a.m : g->capT;
        if (!(p = cml_sweep_buffer(ctx, rec, 1, capT * sizeof(float), SEED_T)))
            return CML_ECUDA;
        g->capT = capT;
        T = p->ptr;
    }
    const int path = (int)s->path;
    const unsigned block = (unsigned)s->block;
    cml_readonly_launch_args args = {.A = A.ptr, .T = T, .C = C.ptr, .n = a.n, .m = a.m,
                                     .cap = a.n, .block = block, .pattern = a.pattern,
                                     .path = path};
    cml_status st = cml_exp_measure(ctx->plan, rec, &C, cml_readonly_launch, &args,
                                    cml_readonly_kernel(a.pattern, path), block, 0,
                                    readonly_check_cb, &args);
    if (st == CML_OK)
        readonly_finding(ctx->plan, rec, &a, path);
    return st;
}

/* Bandwidth and load sectors per request, one bar colour per load path. */
static const cml_chart_spec readonly_charts[] = {
    {.shape = CML_PLOT_BARS, .title = "Measured bandwidth by load path",
     .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER, .series_param = "path",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_BARS, .title = "Predicted load sectors per request",
     .ylabel = "32-byte sectors per request", .yfmt = CML_FMT_NUMBER, .series_param = "path",
     .m = {{"modern", CML_METRIC_CLASS_SPR, "global_ld", NULL, 0}},
     .what = "sectors per load request", .unit = "", .describe = 1},
};

static const char *const readonly_validate_settings[] = {
    "pattern=copy,stencil,hot-gather path=ca,cg,nc,cs", NULL};
/* Cache levels (docs/model-evidence.md): loads of one sector by several
 * warps while its miss is in flight go to L2 once (§4.7: the .cg
 * hot-gather's 3-5% of the load sectors, the stencil's 23%, merged by the
 * L2 Request Coalescer), and a gather table as large as L1, or larger,
 * hits more than LRU over 248 KiB predicts (§4.9: up to 1.2% of the load
 * sectors): both inside the model's intervals (docs/model.md §16.8,
 * l1_merge and l1_pooled). */
static const cml_validate_spec readonly_validate = {readonly_validate_settings, NULL, 0};

const cml_experiment cml_exp_readonly = {
    .key = "read-only",
    .number = 7,
    .title = "Read-only cache",
    .summary = "Copy, 9-point stencil and hot-table gather through plain (ca), L2-only (cg) and "
               "__ldg (nc) loads",
    .doc = "docs/experiments/read-only.md",
    .options = readonly_params,
    .noptions = CML_COUNT(readonly_params),
    .settings_size = sizeof(readonly_settings),
    .state_size = sizeof(readonly_state),
    .tour = "pattern=copy,stencil,hot-gather path=ca,nc table=16k,4M",
    .variant = readonly_variant,
    .measure = readonly_measure,
    .charts = readonly_charts,
    .ncharts = CML_COUNT(readonly_charts),
    .validate = &readonly_validate,
};
