/*
 * Experiment 6: strided and scattered access.
 *
 * Kernels (stride.cu), one thread per element processed, i = blockIdx.x *
 * blockDim.x + threadIdx.x; loads __ldca (ca), stores plain; site 0 is the
 * load, site 1 the store:
 *   stride:       m = n / s; if (i < m) C[i] = A[i*s];
 *   stride-write: m = n / s; if (i < m) C[i*s] = A[i];
 *   broadcast:    if (i < n) C[i] = A[i/32];      (a warp's lanes on one float)
 *   gather:       if (i < n) C[i] = A[perm(i)];
 *   scatter:      if (i < n) C[perm(i)] = A[i];
 * perm(i) = (i/W)*W + ((i%W)*P)%W, P odd (stride_kernels.h), W a power of
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

#include "experiments/common.h"
#include "experiments/stride.h"
#include "experiments/stride_kernels.h"

static const char *const patterns[] = {"stride", "stride-write", "broadcast", "gather",
                                       "scatter", NULL};

static const cml_param_def stride_params[] = {
    {"pattern",
     "stride: C[i] = A[i*s]; stride-write: C[i*s] = A[i]; broadcast: C[i] = A[i/32]; gather: "
     "C[i] = A[perm(i)]; scatter: C[perm(i)] = A[i]",
     0, 0, "stride,stride-write,broadcast,gather,scatter", patterns, 0},
    {"stride", "element stride s of the stride patterns", 1, 1024, "1,2,4,8,16,32,64,128", NULL, 0},
    {"window",
     "gather/scatter: elements W permuted among themselves, a power of two (0: the whole "
     "array, n rounded down to a power of two)",
     0, (int64_t)1 << 34, "32,1024,0", NULL, CML_PARAM_POW2},
    {"block", "threads per block", 32, 1024, "256", NULL, 0},
    {"n", "elements of the larger array (0: larger than L2, 4x L2 for both arrays; strided "
          "arrays grow with the stride)",
     0, (int64_t)1 << 34, "0", NULL, 0},
};

void cml_stride_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_stride_args *a = vargs;
    const uint64_t A = cml_array_base(0), C = cml_array_base(1);
    const uint64_t i = cml_gtid(t);
    const uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    if (i >= threads)
        return;
    uint64_t src = i, dst = i;
    const uint64_t full = a->window ? a->n / a->window * a->window : 0;
    switch (a->pattern) {
    case CML_STRIDE_READ: src = i * a->stride; break;
    case CML_STRIDE_WRITE: dst = i * a->stride; break;
    case CML_STRIDE_BROADCAST: src = i / 32u; break;
    case CML_STRIDE_GATHER: src = cml_stride_perm(i, full, a->window, CML_STRIDE_P); break;
    default: dst = cml_stride_perm(i, full, a->window, CML_STRIDE_P); break;
    }
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 4 * src);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * dst);
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
 * (left in place) differ: the tail. Other block sizes are traced in full.
 */
cml_status cml_stride_trace(cml_record *rec, const cml_stride_args *a, unsigned block)
{
    uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    uint64_t nblocks = cml_div_up(threads, block);
    if (block % CML_WARP_SIZE != 0)
        return cml_exp_trace(rec, cml_dim1(nblocks), cml_dim1(block), cml_stride_mirror, a);
    uint64_t regular = threads; /* threads before the first irregular one */
    if (a->pattern == CML_STRIDE_GATHER || a->pattern == CML_STRIDE_SCATTER)
        regular = a->n / a->window * a->window;
    uint64_t full = regular / block;
    uint64_t tail = full >= nblocks ? 0 : nblocks - full;
    return cml_exp_trace_1d(rec, nblocks, block, 0, tail, cml_stride_mirror, a);
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
                 "sectors move whole, so useful bandwidth drops with the stride until every "
                 "float costs a sector of its own (stride >= 8).",
                 (unsigned long long)a->stride, store ? "stores" : "loads",
                 (unsigned long long)(4 * a->stride), spr, lpr, eff, feff);
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

/* Elements of the variant's larger array (see the file comment). */
static uint64_t stride_n(const cml_plan *plan, const cml_param_values *pv, int pattern,
                         uint64_t s, int64_t window)
{
    uint64_t n = (uint64_t)cml_param_first(pv, "n");
    if (n == 0) {
        n = cml_plan_elements(plan, 4, 2);
        if ((pattern == CML_STRIDE_READ || pattern == CML_STRIDE_WRITE) && s > 8) {
            uint64_t most = (plan && plan->dev && plan->dev->global_bytes)
                                ? plan->dev->global_bytes / 16
                                : UINT64_MAX / 1024;
            n = n > most / (s / 8) ? most : n * (s / 8);
        }
    }
    if ((pattern == CML_STRIDE_GATHER || pattern == CML_STRIDE_SCATTER) && window == 0)
        n = pow2_floor(n);
    return n;
}

/* One variant's record with the model's prediction; *out_rec is NULL when
 * the variant cannot run (the record says why). */
static cml_status stride_variant(const cml_plan *plan, const cml_param_values *pv, int pattern,
                                 uint64_t s, int64_t window, unsigned block, cml_results *out,
                                 cml_record **out_rec, cml_stride_args *args)
{
    uint64_t n = stride_n(plan, pv, pattern, s, window);
    int strided = pattern == CML_STRIDE_READ || pattern == CML_STRIDE_WRITE;
    int windowed = pattern == CML_STRIDE_GATHER || pattern == CML_STRIDE_SCATTER;
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "pattern", patterns[pattern]);
    if (strided)
        cml_variant_add(variant, sizeof variant, "stride", (long long)s);
    if (windowed)
        cml_variant_add(variant, sizeof variant, "window", (long long)window);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "stride", variant);
    cml_record_add_param(rec, "pattern", pattern, patterns[pattern]);
    if (strided)
        cml_record_add_param(rec, "stride", (int64_t)s, NULL);
    if (windowed)
        cml_record_add_param(rec, "window", window, NULL);
    cml_record_add_param(rec, "block", block, NULL);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    *out_rec = NULL;
    uint64_t w = window == 0 ? n : (uint64_t)window;
    if (windowed && (w & (w - 1)) != 0) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "window=%lld is not a power of two: the permutation needs one",
                        (long long)window);
        return CML_OK;
    }
    cml_stride_args a = {pattern, n, strided ? s : 0, windowed ? w : 0};
    uint64_t threads = cml_stride_threads(pattern, n, a.stride);
    if (threads == 0) {
        rec->state = CML_REC_WAIVED;
        cml_record_note(rec, "no element to process: n=%llu, stride %llu",
                        (unsigned long long)n, (unsigned long long)s);
        return CML_OK;
    }
    rec->bytes_read = 4 * (pattern == CML_STRIDE_BROADCAST ? cml_div_up(n, 32) : threads);
    rec->bytes_written = 4 * threads;
    cml_status st = cml_stride_trace(rec, &a, block);
    if (st)
        return st;
    stride_finding(rec, &a, window);
    *out_rec = rec;
    *args = a;
    return CML_OK;
}

/* Device buffers kept across a sweep, grown as variants need more. */
typedef struct stride_gpu {
    cml_dbuf A, C;
    uint64_t capA, capC; /* floats */
} stride_gpu;

#define SEED_A 0x57A1DE0000000001ull

static void stride_gpu_free(const cml_plan *plan, stride_gpu *g)
{
    cml_gpu_free(plan->gpu, &g->A);
    cml_gpu_free(plan->gpu, &g->C);
    g->capA = g->capC = 0;
}

static cml_status stride_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_stride_check(ctx, SEED_A, d_counters);
}

/* Measure one variant: poison C, time, check every float of C. */
static cml_status stride_measure(const cml_plan *plan, stride_gpu *g, cml_record *rec,
                                 const cml_stride_args *a, unsigned block)
{
    uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    uint64_t needA = a->pattern == CML_STRIDE_WRITE ? threads
                     : a->pattern == CML_STRIDE_BROADCAST ? cml_div_up(a->n, 32)
                                                          : a->n;
    uint64_t needC = a->pattern == CML_STRIDE_READ ? threads : a->n;
    cml_status st;
    if (g->capA < needA) {
        cml_gpu_free(plan->gpu, &g->A);
        g->capA = 0;
        if ((st = cml_exp_alloc_random(plan, rec, &g->A, needA, SEED_A)) != CML_OK)
            return st;
        g->capA = needA;
    }
    if (g->capC < needC) {
        cml_gpu_free(plan->gpu, &g->C);
        g->capC = 0;
        if ((st = cml_exp_alloc(plan, rec, &g->C, needC * sizeof(float))) != CML_OK)
            return st;
        g->capC = needC;
    }
    cml_stride_launch_args args = {.A = g->A.ptr, .C = g->C.ptr, .n = a->n, .stride = a->stride,
                                   .window = a->window, .cap = g->capC, .block = block,
                                   .pattern = a->pattern};
    st = cml_gpu_poison(plan->gpu, &g->C);
    if (st) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "%s", cml_gpu_error(plan->gpu));
        return st;
    }
    st = cml_exp_time(plan, rec, cml_stride_launch, &args, cml_stride_kernel(a->pattern), block, 0);
    if (st)
        return st;
    return cml_exp_verify(plan, rec, stride_check_cb, &args);
}

static cml_status stride_sweep(const cml_plan *plan, const cml_param_values *pv, cml_results *out)
{
    const cml_param_list *pl = cml_param_get(pv, "pattern");
    const cml_param_list *sl = cml_param_get(pv, "stride");
    const cml_param_list *wl = cml_param_get(pv, "window");
    const cml_param_list *bl = cml_param_get(pv, "block");
    stride_gpu g = {0};
    cml_status st = CML_OK;
    for (size_t b = 0; b < bl->count && !st; b++)
        for (size_t p = 0; p < pl->count && !st; p++) {
            int pattern = (int)pl->v[p];
            /* the list this pattern sweeps: strides, windows, or nothing */
            const cml_param_list *vl = pattern == CML_STRIDE_READ || pattern == CML_STRIDE_WRITE
                                           ? sl
                                       : pattern == CML_STRIDE_BROADCAST ? NULL
                                                                         : wl;
            size_t count = vl ? vl->count : 1;
            for (size_t v = 0; v < count && !st; v++) {
                uint64_t s = vl == sl ? (uint64_t)sl->v[v] : 0;
                int64_t window = vl == wl ? wl->v[v] : 0;
                unsigned block = (unsigned)bl->v[b];
                cml_record *rec;
                cml_stride_args a;
                st = stride_variant(plan, pv, pattern, s, window, block, out, &rec, &a);
                if (!st && rec && plan->gpu) {
                    st = stride_measure(plan, &g, rec, &a, block);
                    if (st == CML_OK)
                        stride_finding(rec, &a, window);
                    else if (st == CML_EVERIFY)
                        st = CML_OK; /* recorded as a failed variant; go on */
                }
            }
        }
    if (plan->gpu)
        stride_gpu_free(plan, &g);
    return st;
}

const cml_experiment cml_exp_stride = {
    "stride", 6, "Strided and scattered access",
    "Strided reads and writes, warp broadcast, and gather/scatter within windows of W elements",
    stride_params, sizeof stride_params / sizeof stride_params[0],
    stride_sweep, stride_sweep, "pattern=stride,broadcast,gather stride=1,2,8,32 window=32,1024,0",
};
