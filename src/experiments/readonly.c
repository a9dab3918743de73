/*
 * Experiment 7: the read-only cache. The same kernels through plain L1-cached
 * loads (ca), L2-only loads (cg, __ldcg) and the read-only path (nc, __ldg),
 * on streaming data and on data that is re-used.
 *
 * Kernels (readonly.cu), one thread per output, i = blockIdx.x*blockDim.x +
 * threadIdx.x; LOAD is __ldca, __ldcg or __ldg; stores plain:
 *   copy:       if (i < n) C[i] = LOAD(&A[i]);                     (sites 0, 1)
 *   stencil:    if (i < n-8) C[i] = sum_{k<9} c_k * LOAD(&A[i+k]);  (sites 0..8, 9)
 *               computed as acc = c0*v0, acc += ck*vk in that order with
 *               __fmul_rn/__fadd_rn (no FMA contraction), so the checkers
 *               compare bit for bit: the comparison is exact, no tolerance.
 *   hot-gather: if (i < n) C[i] = LOAD(&T[hot(i)]);                (sites 0, 1)
 *               T: m floats (16 KiB .. 4 MiB by default), hot(i) a hash that
 *               spreads each warp over 32 lines of the table (readonly_kernels.h)
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

#include "experiments/common.h"
#include "experiments/readonly.h"
#include "experiments/readonly_kernels.h"

static const char *const ro_patterns[] = {"copy", "stencil", "hot-gather", NULL};
static const char *const ro_paths[] = {"ca", "cg", "nc", NULL};
static const cml_cache ro_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_NC};

static const cml_param_def readonly_params[] = {
    {"pattern", "copy: C[i] = A[i]; stencil: 9-point 1-D stencil; hot-gather: C[i] = T[hash(i)]",
     0, 0, "copy,stencil,hot-gather", ro_patterns, 0},
    {"path", "load path: ca = L1 and L2 (plain), cg = L2 only (__ldcg), nc = read-only (__ldg)",
     0, 0, "ca,cg,nc", ro_paths, 0},
    {"table", "hot-gather: table size in bytes, a power of two (16k..4M spans L1 to L2)", 128,
     (int64_t)1 << 30, "16k,256k,4M", NULL, CML_PARAM_POW2},
    {"block", "threads per block", 32, 1024, "256", NULL, 0},
    {"n", "elements per array (0: each array larger than L2, 4x L2 in all)", 0,
     (int64_t)1 << 34, "0", NULL, 0},
};

void cml_readonly_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_readonly_args *a = vargs;
    const uint64_t A = cml_array_base(0), C = cml_array_base(1), T = cml_array_base(2);
    const uint64_t i = cml_gtid(t);
    if (i >= cml_readonly_threads(a->pattern, a->n))
        return;
    switch (a->pattern) {
    case CML_RO_COPY:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, A + 4 * i);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    case CML_RO_STENCIL:
        for (unsigned k = 0; k < CML_STENCIL_POINTS; k++)
            cml_emit(e, k, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, A + 4 * (i + k));
        cml_emit(e, CML_STENCIL_POINTS, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    default:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, T + 4 * cml_hot_index(i, a->m));
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    }
}

/*
 * With blocks of whole warps every full block has the same traffic: copy
 * and stencil blocks are translates by block*4 bytes (a multiple of 128);
 * a hot-gather warp's table addresses are the same pattern shifted by a
 * multiple of 128 bytes modulo the table (readonly_kernels.h), and its
 * stores are 128 aligned bytes. Only the blocks reaching the guard differ.
 * Other block sizes are traced in full.
 */
cml_status cml_readonly_trace(cml_record *rec, const cml_readonly_args *a, unsigned block)
{
    uint64_t threads = cml_readonly_threads(a->pattern, a->n);
    uint64_t nblocks = cml_div_up(threads, block);
    if (block % CML_WARP_SIZE != 0)
        return cml_exp_trace(rec, cml_dim1(nblocks), cml_dim1(block), cml_readonly_mirror, a);
    return cml_exp_trace_1d(rec, nblocks, block, 0, nblocks - threads / block,
                            cml_readonly_mirror, a);
}

static const char *path_words(int path)
{
    switch (path) {
    case CML_RO_CA: return "plain loads (ca, L1 and L2)";
    case CML_RO_CG: return "__ldcg (cg, L2 only)";
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

static uint64_t readonly_n(const cml_plan *plan, const cml_param_values *pv)
{
    uint64_t n = (uint64_t)cml_param_first(pv, "n");
    return n ? n : cml_plan_elements(plan, 4, 2);
}

/* One variant's record with the model's prediction; *out_rec is NULL when
 * the variant cannot run (the record says why). */
static cml_status readonly_variant(const cml_plan *plan, const cml_param_values *pv, int pattern,
                                   int path, int64_t table, unsigned block, cml_results *out,
                                   cml_record **out_rec, cml_readonly_args *args)
{
    uint64_t n = readonly_n(plan, pv);
    int hot = pattern == CML_RO_HOT_GATHER;
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "pattern", ro_patterns[pattern]);
    cml_variant_add_label(variant, sizeof variant, "path", ro_paths[path]);
    if (hot)
        cml_variant_add(variant, sizeof variant, "table", (long long)table);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "read-only", variant);
    cml_record_add_param(rec, "pattern", pattern, ro_patterns[pattern]);
    cml_record_add_param(rec, "path", path, ro_paths[path]);
    if (hot)
        cml_record_add_param(rec, "table", table, NULL);
    cml_record_add_param(rec, "block", block, NULL);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    *out_rec = NULL;
    uint64_t m = hot ? (uint64_t)table / 4 : 0;
    if (hot && (table % 4 != 0 || m < 32 || (m & (m - 1)) != 0)) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "table=%lld bytes: the table must be a power of two of at least "
                        "128 bytes", (long long)table);
        return CML_OK;
    }
    cml_readonly_args a = {pattern, ro_cache[path], n, m};
    uint64_t outs = cml_readonly_threads(pattern, n);
    if (outs == 0) {
        rec->state = CML_REC_WAIVED;
        cml_record_note(rec, "n=%llu leaves no output (the stencil needs more than 8 inputs)",
                        (unsigned long long)n);
        return CML_OK;
    }
    rec->bytes_read = 4 * (pattern == CML_RO_STENCIL ? n : outs);
    rec->bytes_written = 4 * outs;
    if (hot)
        cml_record_add_extra(rec, "table_bytes", (double)table, "B");
    cml_status st = cml_readonly_trace(rec, &a, block);
    if (st)
        return st;
    readonly_finding(plan, rec, &a, path);
    *out_rec = rec;
    *args = a;
    return CML_OK;
}

/* Device buffers kept across a sweep: A and C of n floats, the table T
 * sized for the largest table of the sweep (a variant uses its prefix). */
typedef struct readonly_gpu {
    cml_dbuf A, T, C;
    uint64_t n, capT;
} readonly_gpu;

#define SEED_A 0x2E4D000000000001ull
#define SEED_T 0x2E4D000000000002ull

static void readonly_gpu_free(const cml_plan *plan, readonly_gpu *g)
{
    cml_gpu_free(plan->gpu, &g->A);
    cml_gpu_free(plan->gpu, &g->T);
    cml_gpu_free(plan->gpu, &g->C);
    g->n = g->capT = 0;
}

static cml_status readonly_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_readonly_check(ctx, SEED_A, SEED_T, d_counters);
}

/* Measure one variant: poison C, time, check every float of C. */
static cml_status readonly_measure(const cml_plan *plan, readonly_gpu *g, cml_record *rec,
                                   const cml_readonly_args *a, int path, unsigned block)
{
    cml_status st;
    if (g->n != a->n) {
        cml_gpu_free(plan->gpu, &g->A);
        cml_gpu_free(plan->gpu, &g->C);
        g->n = 0;
        st = cml_exp_alloc_random(plan, rec, &g->A, a->n, SEED_A);
        if (!st)
            st = cml_exp_alloc(plan, rec, &g->C, a->n * sizeof(float));
        if (st)
            return st;
        g->n = a->n;
    }
    if (a->pattern == CML_RO_HOT_GATHER && g->capT < a->m) {
        cml_gpu_free(plan->gpu, &g->T);
        g->capT = 0;
        if ((st = cml_exp_alloc_random(plan, rec, &g->T, a->m, SEED_T)) != CML_OK)
            return st;
        g->capT = a->m;
    }
    cml_readonly_launch_args args = {.A = g->A.ptr, .T = g->T.ptr, .C = g->C.ptr, .n = a->n,
                                     .m = a->m, .cap = g->n, .block = block,
                                     .pattern = a->pattern, .path = path};
    st = cml_gpu_poison(plan->gpu, &g->C);
    if (st) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "%s", cml_gpu_error(plan->gpu));
        return st;
    }
    st = cml_exp_time(plan, rec, cml_readonly_launch, &args, cml_readonly_kernel(a->pattern, path),
                      block, 0);
    if (st)
        return st;
    st = cml_exp_verify(plan, rec, readonly_check_cb, &args);
    if (st == CML_OK)
        readonly_finding(plan, rec, a, path);
    return st;
}

static cml_status readonly_sweep(const cml_plan *plan, const cml_param_values *pv,
                                 cml_results *out)
{
    const cml_param_list *pl = cml_param_get(pv, "pattern");
    const cml_param_list *hl = cml_param_get(pv, "path");
    const cml_param_list *tl = cml_param_get(pv, "table");
    const cml_param_list *bl = cml_param_get(pv, "block");
    readonly_gpu g = {0};
    cml_status st = CML_OK;
    for (size_t b = 0; b < bl->count && !st; b++)
        for (size_t p = 0; p < pl->count && !st; p++) {
            int pattern = (int)pl->v[p];
            size_t tables = pattern == CML_RO_HOT_GATHER ? tl->count : 1;
            for (size_t t = 0; t < tables && !st; t++)
                for (size_t h = 0; h < hl->count && !st; h++) {
                    int path = (int)hl->v[h];
                    unsigned block = (unsigned)bl->v[b];
                    cml_record *rec;
                    cml_readonly_args a;
                    st = readonly_variant(plan, pv, pattern, path, tl->v[t], block, out, &rec,
                                          &a);
                    if (!st && rec && plan->gpu) {
                        st = readonly_measure(plan, &g, rec, &a, path, block);
                        if (st == CML_EVERIFY)
                            st = CML_OK; /* recorded as a failed variant; go on */
                    }
                }
        }
    if (plan->gpu)
        readonly_gpu_free(plan, &g);
    return st;
}

const cml_experiment cml_exp_readonly = {
    "read-only", 7, "Read-only cache",
    "Copy, 9-point stencil and hot-table gather through plain (ca), L2-only (cg) and __ldg (nc) loads",
    readonly_params, sizeof readonly_params / sizeof readonly_params[0],
    readonly_sweep, readonly_sweep, "pattern=copy,stencil,hot-gather path=ca,nc table=16k,4M",
};
