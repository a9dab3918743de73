/*
 * Experiment 4: unrolling and bytes in flight (the textbook's
 * readSegmentUnroll, plus vector accesses).
 *
 * Kernels (unroll.cu), U = 1, 2, 4 accesses per thread of W = 4, 8, 16 bytes
 * (float, float2, float4); nv = vector elements per array, offset counted in
 * vectors (so every access stays naturally aligned):
 *   i0 = blockIdx.x*blockDim.x*U + threadIdx.x
 *   for j < U: k = i0 + j*blockDim.x + offset;
 *              if (k < nv) { a_j = A[k]; b_j = B[k]; }          (sites 3j, 3j+1)
 *   for j < U: i = i0 + j*blockDim.x;
 *              if (i + offset < nv) C[i] = a_j + b_j;             (site 3j+2)
 * Loads are __ldca (ca), stores plain. Each of the U accesses has its own
 * guard, unlike the textbook's kernel, which skipped the last partial chunk.
 *
 * A warp's access j always covers 32 consecutive vectors, so unrolling does
 * not change the traffic per request; it changes how many requests each
 * thread has in flight at once (2U loads of W bytes), and by Little's law
 * (bandwidth = bytes in flight / latency) that is what a memory-bound kernel
 * needs when there are too few threads to cover DRAM latency.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/unroll.h"
#include "experiments/unroll_kernels.h"

static const cml_param_def unroll_params[] = {
    {"unroll", "independent accesses per thread, U: 1, 2 or 4", 1, 4, "1,2,4", NULL,
     CML_PARAM_POW2},
    {"width", "bytes per access: 4 (float), 8 (float2) or 16 (float4)", 4, 16, "4,8,16", NULL,
     CML_PARAM_POW2},
    {"offset", "read offset, in elements of the access width (keeps loads aligned)", 0, 1 << 20,
     "0,11", NULL, 0},
    {"block", "threads per block", 32, 1024, "512", NULL, 0},
    {"n", "floats per array, the same bytes for every width (0: each array larger than L2, "
          "4x L2 in all)",
     0, (int64_t)1 << 34, "0", NULL, 0},
};

void cml_unroll_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_unroll_args *a = vargs;
    const uint64_t A = cml_array_base(0), B = cml_array_base(1), C = cml_array_base(2);
    const uint64_t w = a->width, bd = t->bdim.x;
    const uint64_t i0 = (uint64_t)t->bid.x * bd * a->unroll + t->tid.x;
    for (unsigned j = 0; j < a->unroll; j++) {
        uint64_t k = i0 + j * bd + a->offset;
        if (k < a->nv) {
            cml_emit(e, 3 * j, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, a->width, A + w * k);
            cml_emit(e, 3 * j + 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, a->width, B + w * k);
        }
    }
    for (unsigned j = 0; j < a->unroll; j++) {
        uint64_t i = i0 + j * bd;
        if (i + a->offset < a->nv)
            cml_emit(e, 3 * j + 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, a->width, C + w * i);
    }
}

/*
 * Block b covers elements [b*block*U, (b+1)*block*U), reading from offset
 * further on: the one before it shifted by block*U*W bytes in every array, a
 * multiple of 128 when the block is a multiple of 32 threads. Blocks whose
 * last read passes nv (the guards) are the tail; no block differs at the
 * start. Other block sizes are traced in full.
 */
cml_status cml_unroll_trace(cml_record *rec, const cml_unroll_args *a, unsigned block)
{
    uint64_t nblocks = cml_unroll_grid(a->nv, block, a->unroll);
    if (block % CML_WARP_SIZE != 0)
        return cml_exp_trace(rec, cml_dim1(nblocks), cml_dim1(block), cml_unroll_mirror, a);
    uint64_t per = (uint64_t)block * a->unroll;
    uint64_t full = a->nv > a->offset ? (a->nv - a->offset) / per : 0;
    uint64_t tail = full >= nblocks ? 0 : nblocks - full;
    return cml_exp_trace_1d(rec, nblocks, block, 0, tail, cml_unroll_mirror, a);
}

/* The model's sentence (bytes in flight, traffic per request) and the
 * measured bandwidth when there is one. Threads per SM: the occupancy's when
 * measured, else a full SM. */
static void unroll_finding(const cml_plan *plan, cml_record *rec, const cml_unroll_args *a)
{
    char text[384], per_sm[32];
    unsigned flight = 2 * a->unroll * a->width;
    double threads = (double)cml_exp_threads_per_sm(plan);
    if (rec->occupancy > 0)
        threads *= rec->occupancy;
    cml_fmt_bytes(per_sm, sizeof per_sm, threads * flight);
    double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    snprintf(text, sizeof text,
             "U=%u: %u independent %u-byte loads (A and B) per thread keep %u B in flight per "
             "thread, %s per SM at %.0f resident threads; %.2f sectors per request, %.1f%% "
             "used. Bandwidth = bytes in flight / latency (Little) until DRAM saturates.",
             a->unroll, 2 * a->unroll, a->width, flight, per_sm, threads, spr, eff);
    cml_exp_finding_measured(rec, text);
}

/* Floats per array: the n parameter, else each array larger than L2. */
static uint64_t unroll_n(const cml_plan *plan, const cml_param_values *pv)
{
    uint64_t n = (uint64_t)cml_param_first(pv, "n");
    return n ? n : cml_plan_elements(plan, 4, 3);
}

static int valid_unroll(int64_t u) { return u == 1 || u == 2 || u == 4; }
static int valid_width(int64_t w) { return w == 4 || w == 8 || w == 16; }

/* One variant's record with the model's prediction; *out_rec is NULL when
 * the variant cannot run (recorded as failed, with the reason). */
static cml_status unroll_variant(const cml_plan *plan, const cml_param_values *pv,
                                 unsigned unroll, unsigned width, uint64_t offset,
                                 unsigned block, cml_results *out, cml_record **out_rec)
{
    uint64_t n = unroll_n(plan, pv);
    char variant[96] = "";
    cml_variant_add(variant, sizeof variant, "unroll", unroll);
    cml_variant_add(variant, sizeof variant, "width", width);
    cml_variant_add(variant, sizeof variant, "offset", (long long)offset);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "unroll", variant);
    cml_record_add_param(rec, "unroll", unroll, NULL);
    cml_record_add_param(rec, "width", width, NULL);
    cml_record_add_param(rec, "offset", (int64_t)offset, NULL);
    cml_record_add_param(rec, "block", block, NULL);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    *out_rec = NULL;
    if (!valid_unroll(unroll) || !valid_width(width)) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "no kernel for unroll=%u width=%u: unroll is 1, 2 or 4 and width "
                        "4, 8 or 16 bytes", unroll, width);
        return CML_OK;
    }
    cml_unroll_args args = {n / (width / 4), offset, unroll, width};
    if (args.nv == 0) {
        rec->state = CML_REC_WAIVED;
        cml_record_note(rec, "n=%llu floats is less than one %u-byte element",
                        (unsigned long long)n, width);
        return CML_OK;
    }
    uint64_t active = offset < args.nv ? args.nv - offset : 0;
    rec->bytes_read = 2ull * width * active;
    rec->bytes_written = (uint64_t)width * active;
    cml_record_add_extra(rec, "bytes_in_flight_per_thread", 2.0 * unroll * width, "B");
    cml_status st = cml_unroll_trace(rec, &args, block);
    if (st)
        return st;
    unroll_finding(plan, rec, &args);
    *out_rec = rec;
    return CML_OK;
}

#define SEED_A 0x0A11000000000001ull
#define SEED_B 0x0A11000000000002ull

static cml_status unroll_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_unroll_check(ctx, SEED_A, SEED_B, d_counters);
}

/* Measure one variant: poison C, time the kernel, check every float. */
static cml_status unroll_measure(const cml_plan *plan, cml_exp_abc *g, cml_record *rec,
                                 const cml_unroll_args *a, unsigned block, uint64_t n)
{
    cml_status st = cml_exp_abc_ensure(plan, rec, g, n, SEED_A, SEED_B);
    if (st)
        return st;
    cml_unroll_launch_args args = {.A = g->A.ptr, .B = g->B.ptr, .C = g->C.ptr, .nv = a->nv,
                                   .offset = a->offset, .cap = n, .unroll = a->unroll,
                                   .width = a->width, .block = block};
    st = cml_exp_measure(plan, rec, &g->C, cml_unroll_launch, &args,
                         cml_unroll_kernel(a->unroll, a->width), block, 0, unroll_check_cb, &args);
    if (st == CML_OK)
        unroll_finding(plan, rec, a);
    return st;
}

static cml_status unroll_sweep(const cml_plan *plan, const cml_param_values *pv, cml_results *out)
{
    const cml_param_list *ul = cml_param_get(pv, "unroll");
    const cml_param_list *wl = cml_param_get(pv, "width");
    const cml_param_list *ol = cml_param_get(pv, "offset");
    const cml_param_list *bl = cml_param_get(pv, "block");
    const uint64_t n = unroll_n(plan, pv);
    cml_exp_abc g = {0};
    cml_status st = CML_OK;
    for (size_t b = 0; b < bl->count && !st; b++)
        for (size_t w = 0; w < wl->count && !st; w++)
            for (size_t u = 0; u < ul->count && !st; u++)
                for (size_t o = 0; o < ol->count && !st; o++) {
                    cml_record *rec;
                    unsigned unroll = (unsigned)ul->v[u], width = (unsigned)wl->v[w];
                    unsigned block = (unsigned)bl->v[b];
                    st = unroll_variant(plan, pv, unroll, width, (uint64_t)ol->v[o], block, out,
                                        &rec);
                    if (!st && rec && plan->gpu) {
                        cml_unroll_args a = {n / (width / 4), (uint64_t)ol->v[o], unroll, width};
                        st = unroll_measure(plan, &g, rec, &a, block, n);
                        if (st == CML_EVERIFY)
                            st = CML_OK; /* recorded as a failed variant; go on */
                    }
                }
    if (plan->gpu)
        cml_exp_abc_free(plan, &g);
    return st;
}

const cml_experiment cml_exp_unroll = {
    "unroll", 4, "Unrolling and bytes in flight",
    "C[i] = A[i+offset] + B[i+offset] with 1, 2, 4 accesses per thread of 4, 8, 16 bytes",
    unroll_params, sizeof unroll_params / sizeof unroll_params[0],
    unroll_sweep, unroll_sweep, "unroll=1,4 width=4,16 offset=0",
};
