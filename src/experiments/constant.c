/*
 * Experiment 10: constant memory.
 *
 * CONTRACT: the kernels the mirrors below stand for (constant.cu, a later
 * issue, must be exactly this). Blocks are 1-D, a multiple of 32 threads, so
 * threadIdx.x % 32 is the lane.
 *
 * (a) Serialization: k distinct addresses per warp.
 *
 *   __constant__ float c_tab[16384];                   // 64 KB: all of it
 *   __global__ void const_serial(const float *in, float *out,
 *                                unsigned long long n, int k, int stride)
 *   {
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *       if (i < n)
 *           out[i] = in[i]                             // site 0: global load
 *                  + c_tab[(threadIdx.x % 32 % k) * stride];  // site 1: LDC (index varies by lane)
 *   }                                                  // site 2: global store
 *
 * (b) The 1-D 9-point stencil (radius R = 4) with a shared tile and halo, as
 *     in the textbook's stencil_1d but with nine coefficients:
 *
 *   #define R 4
 *   __constant__ float c_coef[2 * R + 1];
 *   // n is a multiple of blockDim.x. `in` points 128 bytes into an allocation
 *   // of n + 64 floats, so in[-R .. n+R-1] exist and in[0] is 128-byte aligned.
 *   __global__ void stencil_const(const float *in, float *out, unsigned long long n)
 *   {
 *       extern __shared__ float tile[];                // blockDim.x + 2R floats
 *       unsigned tx = threadIdx.x;
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + tx;
 *       tile[tx + R] = in[i];                          // site 0: global load, site 1: shared store
 *       if (tx < R) {
 *           tile[tx] = in[i - R];                      // site 2, site 3: left halo
 *           tile[tx + blockDim.x + R] = in[i + blockDim.x];  // site 4, site 5: right halo
 *       }
 *       __syncthreads();
 *       float sum = 0.0f;
 *   #pragma unroll
 *       for (int j = 0; j < 2 * R + 1; j++)
 *           sum += c_coef[j] * tile[tx + j];           // site 6+j: coefficient, site 15+j: shared load
 *       out[i] = sum;                                  // site 24: global store
 *   }
 *   stencil_readonly: the same with a parameter const float *__restrict__ coef
 *       (global memory) read as __ldg(&coef[j]).
 *   stencil_global: the same with a parameter const float *coef (no
 *       __restrict__) read as coef[j].
 *
 * Unrolled, c_coef[j] has a compile-time index, so the compiler usually
 * folds it into the instruction as an immediate constant operand (no LDC):
 * either way every lane reads the same address, which the model counts as
 * one constant read with serialization 1. The GPU run reads the SASS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/constant.h"

#define R CML_STENCIL_RADIUS
#define TAPS (2u * CML_STENCIL_RADIUS + 1u)

/* Sites of the stencil mirror (see the contract). */
enum {
    SITE_IN = 0, SITE_TILE_ST, SITE_HALO_L_LD, SITE_HALO_L_ST, SITE_HALO_R_LD, SITE_HALO_R_ST,
    SITE_COEF0 = 6, SITE_TILE_LD0 = SITE_COEF0 + TAPS, SITE_OUT = SITE_TILE_LD0 + TAPS
};

enum { PATTERN_SERIAL = 0, PATTERN_STENCIL };

static const char *const pattern_names[] = {"serial", "stencil", NULL};
static const char *const coef_names[] = {"constant", "readonly", "global", NULL};
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

static const cml_param_def constant_params[] = {
    {"pattern", "serial (k distinct __constant__ addresses per warp) or stencil (9-point, "
                "shared tile + halo)", 0, 0, "serial,stencil", pattern_names, 0},
    {"k", "serial: distinct addresses per warp (lane l reads c_tab[(l%k)*stride])", 1, 32,
     "1,2,4,8,16,32", NULL, 0},
    {"stride", "serial: floats between the k addresses (31*stride < 16384)", 1, 528, "1", NULL, 0},
    {"coef", "stencil: coefficients in __constant__, read-only global (__ldg) or plain global",
     0, 0, "constant,readonly,global", coef_names, 0},
    {"block", "threads per block", 0, 0, "256", block_names, 0},
    {"n", "elements (the stencil rounds up to a multiple of the block)", 32, (int64_t)1 << 30,
     "2^20", NULL, 0},
};

void cml_const_serial_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_const_serial_args *a = vargs;
    const uint64_t in = cml_array_base(0), out = cml_array_base(1);
    const uint64_t i = cml_gtid(t);
    if (i >= a->n)
        return;
    const uint64_t idx = (uint64_t)(t->tid.x % CML_WARP_SIZE % a->k) * a->stride;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
    cml_emit(e, 1, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * idx);
    cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * i);
}

void cml_stencil_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_stencil_args *a = vargs;
    const uint64_t in = cml_array_base(0) + CML_STENCIL_LEAD_BYTES;
    const uint64_t out = cml_array_base(1), coef = cml_array_base(2);
    const uint64_t tx = t->tid.x, bdx = t->bdim.x, i = cml_gtid(t);
    if (i >= a->n)
        return; /* never taken: n is a multiple of the block */
    if (!a->coef_only) {
        cml_emit(e, SITE_IN, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
        cml_emit(e, SITE_TILE_ST, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * (tx + R));
        if (tx < R) {
            cml_emit(e, SITE_HALO_L_LD, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
                     in + 4 * i - 4 * R);
            cml_emit(e, SITE_HALO_L_ST, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * tx);
            cml_emit(e, SITE_HALO_R_LD, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
                     in + 4 * (i + bdx));
            cml_emit(e, SITE_HALO_R_ST, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4,
                     4 * (tx + bdx + R));
        }
    }
    for (unsigned j = 0; j < TAPS; j++) {
        switch (a->coef) {
        case CML_COEF_CONSTANT:
            cml_emit(e, SITE_COEF0 + j, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 4u * j);
            break;
        case CML_COEF_READONLY:
            cml_emit(e, SITE_COEF0 + j, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, 4,
                     coef + 4u * j);
            break;
        case CML_COEF_GLOBAL:
            cml_emit(e, SITE_COEF0 + j, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
                     coef + 4u * j);
            break;
        }
        if (!a->coef_only)
            cml_emit(e, SITE_TILE_LD0 + j, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4,
                     4 * (tx + j));
    }
    if (!a->coef_only)
        cml_emit(e, SITE_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * i);
}

static double per_instr(uint64_t v, uint64_t instructions)
{
    return instructions ? (double)v / (double)instructions : 0.0;
}

static cml_status serial_variant(cml_results *out, uint64_t n, unsigned k, unsigned stride,
                                 int64_t block_choice)
{
    const unsigned block = block_sizes[block_choice];
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "pattern", "serial");
    cml_variant_add(variant, sizeof variant, "k", k);
    cml_variant_add(variant, sizeof variant, "stride", stride);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "constant", variant);
    cml_record_add_param(rec, "pattern", PATTERN_SERIAL, "serial");
    cml_record_add_param(rec, "k", k, NULL);
    cml_record_add_param(rec, "stride", stride, NULL);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    /* in[] once, out[] once; the constant table is a few bytes of cache. */
    rec->bytes_read = 4 * n;
    rec->bytes_written = 4 * n;
    if ((uint64_t)(CML_WARP_SIZE - 1) * stride >= CML_CONST_TAB_FLOATS) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "stride %u: c_tab[31*stride] is beyond the 64 KB table", stride);
        return CML_EINVAL;
    }
    cml_const_serial_args args = {n, k, stride};
    /* Blocks differ by a shift of 4*block bytes (a multiple of 128) in in[]
     * and out[], and read c_tab identically; the last may be partial. */
    cml_status st = cml_exp_trace_1d(rec, cml_div_up(n, block), block, 0, 1,
                                     cml_const_serial_mirror, &args);
    if (st)
        return st;
    const cml_traffic *c = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD];
    const double ser = per_instr(c->serialized, c->instructions);
    const unsigned span = ((k - 1u) * stride + 1u) * 4u;
    cml_record_add_extra(rec, "serialized_per_read", ser, "");
    cml_record_add_extra(rec, "span_bytes", span, "B");
    if (k == 1)
        cml_record_finding(rec,
                           "k = 1: every lane reads c_tab[0], a broadcast: %.2f constant access "
                           "per warp read, the full constant-cache rate; in[] and out[] %.2f "
                           "sectors per request.",
                           ser, cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
    else
        cml_record_finding(rec,
                           "k = %u distinct addresses per warp (lane l reads c_tab[(l%%%u)*%u]): "
                           "the constant cache serves one address at a time, so each warp read "
                           "becomes %.2f serialized accesses, 1/%.0f of the broadcast rate; they "
                           "span %u B (if the hardware replays per cache line instead, the GPU "
                           "run shows fewer).",
                           k, k, stride, ser, ser, span);
    return CML_OK;
}

static cml_status stencil_variant(cml_results *out, uint64_t n_param, int64_t coef,
                                  int64_t block_choice)
{
    const unsigned block = block_sizes[block_choice];
    const uint64_t n = cml_div_up(n_param, block) * block;
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "pattern", "stencil");
    cml_variant_add_label(variant, sizeof variant, "coef", coef_names[coef]);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "constant", variant);
    cml_record_add_param(rec, "pattern", PATTERN_STENCIL, "stencil");
    cml_record_add_param(rec, "coef", coef, coef_names[coef]);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    /* Each input once (with the 2R halo elements at the ends), each output
     * once; the nine coefficients are negligible. */
    rec->bytes_read = 4 * (n + 2 * R);
    rec->bytes_written = 4 * n;

    cml_stencil_args args = {n, (cml_coef_where)coef, 0};
    const uint64_t nblocks = n / block;
    /* Blocks differ by a shift of 4*block bytes in in[] and out[]; the tile
     * and the coefficients are the same in every block. */
    cml_status st = cml_exp_trace_1d(rec, nblocks, block, 0, 0, cml_stencil_mirror, &args);
    if (st)
        return st;

    const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
    const cml_traffic *sld = &m->cls[CML_CLASS_SHARED_LD], *sst = &m->cls[CML_CLASS_SHARED_ST];
    const double tile_wf = per_instr(sld->wavefronts + sst->wavefronts,
                                     sld->instructions + sst->instructions);
    const uint64_t conflicts = sld->bank_conflicts + sst->bank_conflicts;
    cml_record_add_extra(rec, "tile_wavefronts_per_req", tile_wf, "");

    if (coef == CML_COEF_CONSTANT) {
        const cml_traffic *c = &m->cls[CML_CLASS_CONST_LD];
        const double ser = per_instr(c->serialized, c->instructions);
        cml_record_add_extra(rec, "coef_per_read", ser, "accesses");
        cml_record_finding(rec,
                           "Coefficients in __constant__: all lanes read the same c_coef[j], "
                           "%.2f serialized access per read (a broadcast) for each of the %u "
                           "taps; tile %.2f shared wavefronts per request, %llu conflicts; in[] "
                           "%.2f sectors per request, halo loads included.",
                           ser, TAPS, tile_wf, (unsigned long long)conflicts,
                           cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
        return CML_OK;
    }

    /* The coefficient loads share the global-load class with in[]: trace
     * them alone to give their own figures. */
    cml_record *scratch = calloc(1, sizeof *scratch); /* a record is a few KB */
    if (!scratch)
        return CML_ENOMEM;
    cml_stencil_args only = {n, (cml_coef_where)coef, 1};
    st = cml_exp_trace_1d(scratch, nblocks, block, 0, 0, cml_stencil_mirror, &only);
    const cml_traffic coef_tr = scratch->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    free(scratch);
    if (st) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model (coefficients alone): %s", cml_status_str(st));
        return st;
    }
    const double coef_spr = cml_traffic_sectors_per_request(&coef_tr);
    cml_record_add_extra(rec, "coef_per_read", coef_spr, "sectors");
    cml_record_finding(rec,
                       "Coefficients in %s global memory: each of the %u loads per thread is "
                       "warp-uniform, %.2f sector per request with %.1f%% of it used (4 of 32 B); "
                       "__constant__ broadcasts them instead. Tile %.2f shared wavefronts per "
                       "request, %llu conflicts; all global loads %.2f sectors per request.",
                       coef == CML_COEF_READONLY ? "read-only (__ldg)" : "plain", TAPS, coef_spr,
                       100.0 * cml_traffic_efficiency(&coef_tr), tile_wf,
                       (unsigned long long)conflicts, cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
    return CML_OK;
}

static cml_status constant_model(const cml_plan *plan, const cml_param_values *pv,
                                 cml_results *out)
{
    (void)plan;
    const cml_param_list *patterns = cml_param_get(pv, "pattern");
    const cml_param_list *ks = cml_param_get(pv, "k");
    const cml_param_list *strides = cml_param_get(pv, "stride");
    const cml_param_list *coefs = cml_param_get(pv, "coef");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const uint64_t n = (uint64_t)cml_param_first(pv, "n");

    for (size_t pi = 0; pi < patterns->count; pi++)
        for (size_t bi = 0; bi < blocks->count; bi++) {
            cml_status st = CML_OK;
            if (patterns->v[pi] == PATTERN_SERIAL) {
                for (size_t si = 0; si < strides->count && !st; si++)
                    for (size_t ki = 0; ki < ks->count && !st; ki++)
                        st = serial_variant(out, n, (unsigned)ks->v[ki], (unsigned)strides->v[si],
                                            blocks->v[bi]);
            } else {
                for (size_t ci = 0; ci < coefs->count && !st; ci++)
                    st = stencil_variant(out, n, coefs->v[ci], blocks->v[bi]);
            }
            if (st)
                return st;
        }
    return CML_OK;
}

const cml_experiment cml_exp_constant = {
    "constant", 10, "Constant memory",
    "__constant__ reads at 1..32 distinct addresses per warp (serialization), and a 9-point "
    "stencil with its coefficients in constant, read-only or plain global memory",
    constant_params, sizeof constant_params / sizeof constant_params[0],
    constant_model, NULL, "pattern=serial,stencil k=1,2,32",
};
