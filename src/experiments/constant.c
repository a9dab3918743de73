/*
 * Experiment 10: constant memory.
 *
 * CONTRACT: the kernels the mirrors below stand for (constant.cu is exactly
 * this). Blocks are 1-D, a multiple of 32 threads, so threadIdx.x % 32 is
 * the lane.
 *
 * (a) Serialization: k distinct addresses per warp.
 *
 *   __constant__ float c_tab[16320];   // 64 KB less 256 B: c_coef shares the
 *                                      // module's 64 KB (ptxas refuses more)
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
 *           tile[tx] = in[(long long)i - R];           // site 2, site 3: left halo
 *           tile[tx + blockDim.x + R] = in[i + blockDim.x];  // site 4, site 5: right halo
 *       }
 *       __syncthreads();
 *       float sum = 0.0f;
 *   #pragma unroll
 *       for (int j = 0; j < 2 * R + 1; j++)            // one rounding per operation, no FMA:
 *           sum = __fadd_rn(sum, __fmul_rn(c_coef[j], tile[tx + j]));  // exact checks
 *                                                      // site 6+j: coefficient, site 15+j: shared load
 *       out[i] = sum;                                  // site 24: global store
 *   }
 *   stencil_readonly: the same with a parameter const float *__restrict__ coef
 *       (global memory) read as __ldg(&coef[j]).
 *   stencil_global: the same with a parameter const float *coef (no
 *       __restrict__) read as coef[j].
 *
 * Unrolled, c_coef[j] has a compile-time index, so there is no per-thread
 * LDC: on sm_90 ptxas loads the nine coefficients into uniform registers
 * (ULDC.64 pairs from c[0x3][...]) for the FMULs, where the textbooks show
 * an immediate c[][] operand of the FMUL (docs/experiments/constant.md has
 * the SASS of the H100 build). Either way every lane reads the same
 * address, which the model counts as one constant read with serialization 1
 * per tap. const_serial's index depends on the lane, so it is an LDC.
 *
 * Sizes: n = 0 (the default) sizes in[] and out[] from the plan. The
 * stencil streams them from DRAM (each array larger than L2). The
 * serialization kernel keeps them L2-resident (half the L2 for both, as
 * --where l2), because its subject is the constant cache: from DRAM the
 * global traffic would hide up to ~16-way serialization; --where l1 and
 * --size still apply.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/constant.h"
#include "experiments/constant_kernels.h"

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
    {"stride", "serial: floats between the k addresses (1: all in one 128 B line; 32: one line "
               "each; 31*stride < 16320)", 1, 526, "1,32", NULL, 0},
    {"coef", "stencil: coefficients in __constant__, read-only global (__ldg) or plain global",
     0, 0, "constant,readonly,global", coef_names, 0},
    {"block", "threads per block", 0, 0, "256", block_names, 0},
    {"n", "elements (0: from the plan, see above; the stencil rounds up to a multiple of the "
          "block)", 0, (int64_t)1 << 30, "0", NULL, 0},
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

/* Distinct 128-byte lines of c_tab among the k addresses of one warp read
 * (the hardware may replay per line rather than per address: MODEL.md §5). */
static unsigned serial_lines(unsigned k, unsigned stride)
{
    unsigned lines = 0;
    long last = -1;
    for (unsigned l = 0; l < k; l++) { /* addresses ascend with l */
        long line = (long)(4u * l * stride / CML_LINE_BYTES);
        if (line != last)
            lines++;
        last = line;
    }
    return lines;
}

/* ---- GPU side ------------------------------------------------------------ */

enum { SEED_IN = 0xC0A57ull, SEED_TAB = 0x7AB1Eull, SEED_COEF = 0xC0EFull };
/* in[] of the stencil starts this many floats into its allocation. */
#define LEAD_FLOATS (CML_STENCIL_LEAD_BYTES / 4u)
/* Floats past n in out[] that must stay poisoned. */
#define OUT_MARGIN 32u

/* Buffers kept across the variants: one input of n + 64 floats (the
 * serial kernel reads it from its start, the stencil from 32 floats in),
 * out, and the coefficients in global memory. */
typedef struct constant_gpu {
    cml_dbuf in, out, coef;
    uint64_t n;
    int uploaded;
} constant_gpu;

static void constant_gpu_free(const cml_plan *plan, constant_gpu *g)
{
    cml_gpu_free(plan->gpu, &g->in);
    cml_gpu_free(plan->gpu, &g->out);
    cml_gpu_free(plan->gpu, &g->coef);
    g->n = 0;
    g->uploaded = 0; /* the device copy of the coefficients went with coef */
}

static cml_status constant_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_constant_check(ctx, SEED_IN, SEED_TAB, SEED_COEF, d_counters);
}

/* Measure one variant: buffers for n (kept if the last variant had the
 * same n), poison out, time, check every float. */
static cml_status constant_measure(const cml_plan *plan, constant_gpu *g, cml_record *rec,
                                   cml_constant_launch_args *la)
{
    cml_status st = CML_OK;
    if (g->n != la->n) {
        constant_gpu_free(plan, g);
        st = cml_exp_alloc_random(plan, rec, &g->in, la->n + 2 * LEAD_FLOATS, SEED_IN);
        if (!st)
            st = cml_exp_alloc(plan, rec, &g->out, (la->n + OUT_MARGIN) * sizeof(float));
        if (!st && !g->coef.ptr)
            st = cml_exp_alloc(plan, rec, &g->coef, TAPS * sizeof(float));
        if (st)
            return st;
        g->n = la->n;
    }
    if (!g->uploaded) {
        st = cml_constant_upload(SEED_TAB, SEED_COEF, (float *)g->coef.ptr);
        if (st) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "uploading the constant table: %s", cml_gpu_error(plan->gpu));
            return st;
        }
        g->uploaded = 1;
    }
    la->in_first = la->pattern == CML_CONST_STENCIL ? LEAD_FLOATS : 0;
    la->in = (const float *)g->in.ptr + la->in_first;
    la->out = (float *)g->out.ptr;
    la->coef = (const float *)g->coef.ptr;
    la->cap = la->n + OUT_MARGIN;
    size_t smem = 0;
    const void *kernel = cml_constant_kernel(la->pattern, la->coef_where, la->block, &smem);
    st = cml_gpu_poison(plan->gpu, &g->out);
    if (st) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "%s", cml_gpu_error(plan->gpu));
        return st;
    }
    st = cml_exp_time(plan, rec, cml_constant_launch, la, kernel, la->block, smem);
    if (st)
        return st;
    return cml_exp_verify(plan, rec, constant_check_cb, la);
}

/* Append text to the finding (it must still fit). */
static void finding_append(cml_record *rec, const char *text)
{
    size_t used = strlen(rec->finding);
    if (used < sizeof rec->finding)
        snprintf(rec->finding + used, sizeof rec->finding - used, "%s", text);
}

/* The GPU run of a variant when there is one; a wrong output is a failed
 * record and the sweep goes on, a CUDA error ends it. */
static cml_status maybe_measure(const cml_plan *plan, constant_gpu *g, cml_record *rec,
                                cml_constant_launch_args *la)
{
    if (!plan->gpu)
        return CML_OK;
    cml_status st = constant_measure(plan, g, rec, la);
    return st == CML_EVERIFY ? CML_OK : st;
}

/* ---- the variants --------------------------------------------------------- */

/* Elements of the serial kernel: n, or L2-resident from the plan (see the
 * contract: the constant cache is the subject, DRAM would hide it). */
static uint64_t serial_elements(const cml_plan *plan, uint64_t n)
{
    if (n)
        return n;
    cml_plan l2 = *plan;
    if (l2.where == CML_WHERE_DRAM)
        l2.where = CML_WHERE_L2;
    return cml_plan_elements(&l2, 4, 2);
}

/* *k1_cycles: the measured cycles of the broadcast (k = 1) of the same
 * stride and block, when it ran before this variant (0: not known); set by
 * the k = 1 variant. */
static cml_status serial_variant(const cml_plan *plan, constant_gpu *g, cml_results *out,
                                 uint64_t n_param, unsigned k, unsigned stride,
                                 int64_t block_choice, double *k1_cycles)
{
    const unsigned block = block_sizes[block_choice];
    const uint64_t n = serial_elements(plan, n_param);
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
        cml_record_note(rec, "stride %u: c_tab[31*stride] is beyond the %u-float table", stride,
                        CML_CONST_TAB_FLOATS);
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
    const unsigned lines = serial_lines(k, stride);
    cml_record_add_extra(rec, "serialized_per_read", ser, "");
    cml_record_add_extra(rec, "span_bytes", span, "B");
    cml_record_add_extra(rec, "lines_per_read", lines, "");
    if (k == 1)
        cml_record_finding(rec,
                           "k = 1: every lane reads c_tab[0], a broadcast: %.2f constant access "
                           "per warp read, the full constant-cache rate; in[] and out[] %.2f "
                           "sectors per request.",
                           ser, cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
    else
        cml_record_finding(rec,
                           "k = %u addresses per warp (lane l reads c_tab[(l%%%u)*%u]) in %u "
                           "128-B line%s: served one address at a time, each warp read is %.2f "
                           "serialized accesses, 1/%.0f of the broadcast rate (if the hardware "
                           "replays per line instead, %u).",
                           k, k, stride, lines, lines == 1 ? "" : "s", ser, ser, lines);

    cml_constant_launch_args la;
    memset(&la, 0, sizeof la);
    la.n = n;
    la.k = (int)k;
    la.stride = (int)stride;
    la.block = block;
    la.pattern = CML_CONST_SERIAL;
    st = maybe_measure(plan, g, rec, &la);
    if (!st && rec->measured && rec->state == CML_REC_OK) {
        /* SM cycles per warp read: the whole GPU's time, in cycles of the
         * SM clock the device reports (its maximum), times the SMs, over the
         * warps; it includes the warp's global load and store. */
        const double warps = (double)cml_div_up(n, CML_WARP_SIZE);
        const double hz = plan->dev ? 1e3 * (double)plan->dev->sm_clock_khz : 0.0;
        const double cyc = rec->timing.median_ms * 1e-3 * hz * cml_exp_sm_count(plan) / warps;
        char buf[160];
        cml_record_add_extra(rec, "sm_cycles_per_warp", cyc, "cycles");
        if (k == 1) {
            *k1_cycles = cyc;
            snprintf(buf, sizeof buf, " Measured %.1f SM cycles per warp (load, LDC, store), "
                     "%.0f GB/s.", cyc, rec->bandwidth_gbs);
        } else if (*k1_cycles > 0) {
            /* What serialization adds to the same kernel's broadcast. */
            cml_record_add_extra(rec, "cycles_over_k1", cyc - *k1_cycles, "cycles");
            snprintf(buf, sizeof buf, " Measured %.1f SM cycles per warp, %+.1f over k = 1; "
                     "%.0f GB/s.", cyc, cyc - *k1_cycles, rec->bandwidth_gbs);
        } else {
            snprintf(buf, sizeof buf, " Measured %.1f SM cycles per warp, %.0f GB/s.", cyc,
                     rec->bandwidth_gbs);
        }
        finding_append(rec, buf);
    } else if (k == 1) {
        *k1_cycles = 0;
    }
    return st;
}

static cml_status stencil_variant(const cml_plan *plan, constant_gpu *g, cml_results *out,
                                  uint64_t n_param, int64_t coef, int64_t block_choice)
{
    const unsigned block = block_sizes[block_choice];
    const uint64_t n0 = n_param ? n_param : cml_plan_elements(plan, 4, 2);
    const uint64_t n = cml_div_up(n0, block) * block;
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
        cml_record_add_extra(rec, "coef_accesses_per_read", ser, "");
        cml_record_finding(rec,
                           "Coefficients in __constant__: all lanes read the same c_coef[j], "
                           "%.2f serialized access per read (a broadcast) for each of the %u "
                           "taps; tile %.2f shared wavefronts per request, %llu conflicts; in[] "
                           "%.2f sectors per request, halo loads included.",
                           ser, TAPS, tile_wf, (unsigned long long)conflicts,
                           cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
    } else {
        /* The coefficient loads share the global-load class with in[]:
         * trace them alone to give their own figures. */
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
        cml_record_add_extra(rec, "coef_sectors_per_read", coef_spr, "");
        cml_record_finding(rec,
                           "Coefficients in %s global memory: each of the %u loads per thread "
                           "is warp-uniform, %.2f sector per request with %.1f%% of it used (4 "
                           "of 32 B); __constant__ broadcasts them instead. Tile %.2f shared "
                           "wavefronts per request, %llu conflicts; all global loads %.2f "
                           "sectors per request.",
                           coef == CML_COEF_READONLY ? "read-only (__ldg)" : "plain", TAPS,
                           coef_spr, 100.0 * cml_traffic_efficiency(&coef_tr), tile_wf,
                           (unsigned long long)conflicts, cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
    }

    cml_constant_launch_args la;
    memset(&la, 0, sizeof la);
    la.n = n;
    la.block = block;
    la.pattern = CML_CONST_STENCIL;
    la.coef_where = (int)coef;
    st = maybe_measure(plan, g, rec, &la);
    if (!st && rec->measured && rec->state == CML_REC_OK) {
        char buf[96];
        snprintf(buf, sizeof buf, " Measured %.1f GB/s (%.1f us).", rec->bandwidth_gbs,
                 1e3 * rec->timing.median_ms);
        finding_append(rec, buf);
    }
    return st;
}

static cml_status constant_sweep(const cml_plan *plan, const cml_param_values *pv,
                                 cml_results *out)
{
    const cml_param_list *patterns = cml_param_get(pv, "pattern");
    const cml_param_list *ks = cml_param_get(pv, "k");
    const cml_param_list *strides = cml_param_get(pv, "stride");
    const cml_param_list *coefs = cml_param_get(pv, "coef");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const uint64_t n = (uint64_t)cml_param_first(pv, "n");
    constant_gpu g;
    memset(&g, 0, sizeof g);
    cml_status st = CML_OK;

    for (size_t pi = 0; pi < patterns->count && !st; pi++)
        for (size_t bi = 0; bi < blocks->count && !st; bi++) {
            if (patterns->v[pi] == PATTERN_SERIAL) {
                for (size_t si = 0; si < strides->count && !st; si++) {
                    double k1_cycles = 0;
                    for (size_t ki = 0; ki < ks->count && !st; ki++)
                        st = serial_variant(plan, &g, out, n, (unsigned)ks->v[ki],
                                            (unsigned)strides->v[si], blocks->v[bi],
                                            &k1_cycles);
                }
            } else {
                for (size_t ci = 0; ci < coefs->count && !st; ci++)
                    st = stencil_variant(plan, &g, out, n, coefs->v[ci], blocks->v[bi]);
            }
        }
    if (plan->gpu)
        constant_gpu_free(plan, &g);
    return st;
}

const cml_experiment cml_exp_constant = {
    "constant", 10, "Constant memory",
    "__constant__ reads at 1..32 distinct addresses per warp (serialization), and a 9-point "
    "stencil with its coefficients in constant, read-only or plain global memory",
    constant_params, sizeof constant_params / sizeof constant_params[0],
    constant_sweep, constant_sweep, "pattern=serial,stencil k=1,2,8,32 stride=1,32",
};
