/*
 * Experiment 10: constant memory.
 *
 * The kernels, whose bodies (constant_body.h) nvcc and the mirrors
 * below both compile. Blocks are 1-D, a multiple of 32 threads, so
 * threadIdx.x % 32 is the lane.
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

#include "experiments/constant/constant_body.h"
#include "lab/common.h"

#define R CML_STENCIL_RADIUS
#define TAPS (2u * CML_STENCIL_RADIUS + 1u)

enum { PATTERN_SERIAL = 0, PATTERN_STENCIL };

static const char *const pattern_names[] = {"serial", "stencil", NULL};
static const char *const coef_names[] = {"constant", "readonly", "global", NULL};
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

/* One point of the sweep; the options' fields. */
typedef struct constant_settings {
    int64_t k, stride, coef, block, residency, pattern, n;
} constant_settings;

/* Declared fastest-varying first, and k, stride and coef before the
 * pattern they apply to: k within stride (one serialization curve per
 * stride) or the coefficient memories, within block, within pattern, the
 * order the records have always come in. The variant name keeps its own
 * order (constant_name). */
static const cml_param_def constant_params[] = {
    {"k", "serial: distinct addresses per warp (lane l reads c_tab[(l%k)*stride])", 1, 32,
     "1,2,4,8,16,32", NULL, 0, CML_FIELD(constant_settings, k), "pattern=serial"},
    {"stride", "serial: floats between the k addresses (1: all in one 128 B line; 32: one line "
               "each; 31*stride < 16320)", 1, 526, "1,32", NULL, 0,
     CML_FIELD(constant_settings, stride), "pattern=serial"},
    {"coef", "stencil: coefficients in __constant__, read-only global (__ldg) or plain global",
     0, 0, "constant,readonly,global", coef_names, 0, CML_FIELD(constant_settings, coef),
     "pattern=stencil"},
    {"block", "threads per block", 0, 0, "256", block_names, 0,
     CML_FIELD(constant_settings, block), NULL},
    {"residency", "stencil: " CML_RESIDENCY_HELP, 0, 0, "many", cml_residency_names, 0,
     CML_FIELD(constant_settings, residency), "pattern=stencil"},
    {"pattern", "serial (k distinct __constant__ addresses per warp) or stencil (9-point, "
                "shared tile + halo)", 0, 0, "serial,stencil", pattern_names, 0,
     CML_FIELD(constant_settings, pattern), NULL},
    {"n", "elements (0: from the plan, see above; the stencil rounds up to a multiple of the "
          "block)", 0, (int64_t)1 << 30, "0", NULL, CML_PARAM_NOVARIANT,
     CML_FIELD(constant_settings, n), NULL},
};

/* The kernels' own bodies (constant_body.h) on the model's arrays: in[],
 * out[] and the global coefficients. */
void cml_const_serial_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_const_serial_args *a = vargs;
    cml_const_serial_body(CML_MIRROR_CTX(t, e), CML_ARRAY(const float, 0), CML_ARRAY(float, 1),
                          a->n, (int)a->k, (int)a->stride);
}

void cml_stencil_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_stencil_args *a = vargs;
    /* in points 128 bytes into its allocation, as on the GPU */
    const float *in = CML_ARRAY(const float, 0) + CML_STENCIL_LEAD_BYTES / sizeof(float);
    const cml_ctx c = a->coef_only ? CML_MIRROR_CTX_SITES(t, e, CML_CST_COEF_SITES)
                                   : CML_MIRROR_CTX(t, e);
    cml_const_stencil_body(c, in, CML_ARRAY(float, 1), a->n, (int)a->coef,
                           CML_ARRAY(const float, 2));
}

static double per_instr(uint64_t v, uint64_t instructions)
{
    return instructions ? (double)v / (double)instructions : 0.0;
}

/* Distinct 128-byte lines of c_tab among the k addresses of one warp read
 * (the hardware may replay per line rather than per address: docs/model.md §6.1). */
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

/* ---- the variants --------------------------------------------------------- */

/* "pattern=serial k=2 stride=1 block=256", "pattern=stencil coef=constant
 * block=256": the name the variant has always had, whatever order the
 * options are swept in. */
static void constant_name(cml_record *rec, const constant_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "pattern",
                          pattern_names[s->pattern]);
    if (s->pattern == PATTERN_SERIAL) {
        cml_variant_add(rec->variant, sizeof rec->variant, "k", (long long)s->k);
        cml_variant_add(rec->variant, sizeof rec->variant, "stride", (long long)s->stride);
    } else {
        cml_variant_add_label(rec->variant, sizeof rec->variant, "coef", coef_names[s->coef]);
    }
    cml_variant_add(rec->variant, sizeof rec->variant, "block", block_sizes[s->block]);
    /* Only the control says so: every other variant keeps its old name. */
    if (s->pattern == PATTERN_STENCIL && s->residency == CML_RESIDENCY_ONE)
        cml_variant_add_label(rec->variant, sizeof rec->variant, "residency", "one");
}

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

static cml_status serial_variant(cml_sweep *ctx, constant_settings *s, cml_record *rec)
{
    const unsigned k = (unsigned)s->k, stride = (unsigned)s->stride;
    const unsigned block = block_sizes[s->block];
    s->n = (int64_t)serial_elements(ctx->plan, (uint64_t)s->n);
    const uint64_t n = (uint64_t)s->n;
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
    return CML_OK;
}

static cml_status stencil_variant(cml_sweep *ctx, constant_settings *s, cml_record *rec)
{
    const int64_t coef = s->coef;
    const unsigned block = block_sizes[s->block];
    const uint64_t n0 = s->n ? (uint64_t)s->n : cml_plan_elements(ctx->plan, 4, 2);
    const uint64_t n = cml_div_up(n0, block) * block;
    s->n = (int64_t)n;
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
    cml_record_add_extra(rec, "coef_sectors_per_read", coef_spr, "");
    cml_record_finding(rec,
                       "Coefficients in %s global memory: each of the %u loads per thread "
                       "is warp-uniform, %.2f sector per request with %.1f%% of it used (4 "
                       "of 32 B); __constant__ broadcasts them instead. Tile %.2f shared "
                       "wavefronts per request, %llu conflicts; all global loads %.2f "
                       "sectors per request.",
                       coef == CML_COEF_READONLY ? "read-only (__ldg)" : "plain", TAPS, coef_spr,
                       100.0 * cml_traffic_efficiency(&coef_tr), tile_wf,
                       (unsigned long long)conflicts, cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
    return CML_OK;
}

/* One variant's record with the model's prediction; n is recorded as the
 * kernel runs it. */
static cml_status constant_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    constant_settings *s = vs;
    constant_name(rec, s);
    return s->pattern == PATTERN_SERIAL ? serial_variant(ctx, s, rec)
                                        : stencil_variant(ctx, s, rec);
}

/* ---- GPU side ------------------------------------------------------------ */

enum { SEED_IN = 0xC0A57ull, SEED_TAB = 0x7AB1Eull, SEED_COEF = 0xC0EFull };
/* in[] of the stencil starts this many floats into its allocation. */
#define LEAD_FLOATS (CML_STENCIL_LEAD_BYTES / 4u)
/* Floats past n in out[] that must stay poisoned. */
#define OUT_MARGIN 32u

/* The run's state. The engine keeps the buffers across the variants: one
 * input of n + 64 floats (slot 0: the serial kernel reads it from its
 * start, the stencil from 32 floats in), out (slot 1) and the coefficients
 * in global memory (slot 2). */
typedef struct constant_state {
    const void *uploaded_to; /* the coefficient buffer the tables went with */
    /* The measured cycles of the broadcast (k = 1) of the current sweep of
     * k (one stride and block), when it ran before this variant (0: not
     * known); constant_summary clears it after each sweep. */
    double k1_cycles;
} constant_state;

static cml_status constant_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_constant_check(ctx, SEED_IN, SEED_TAB, SEED_COEF, d_counters);
}

/* Run one variant: its buffers, poison out, time, check every float. */
static cml_status constant_run(cml_sweep *ctx, cml_record *rec, cml_constant_launch_args *la,
                               int one_per_sm)
{
    const cml_plan *plan = ctx->plan;
    constant_state *g = ctx->state;
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, (la->n + 2 * LEAD_FLOATS) * sizeof(float),
                                    SEED_IN);
    cml_dbuf *out =
        in ? cml_sweep_buffer(ctx, rec, 1, (la->n + OUT_MARGIN) * sizeof(float), 0) : NULL;
    cml_dbuf *coef = out ? cml_sweep_buffer(ctx, rec, 2, TAPS * sizeof(float), 0) : NULL;
    if (!coef)
        return CML_ECUDA;
    if (g->uploaded_to != coef->ptr) {
        cml_status st = cml_constant_upload(SEED_TAB, SEED_COEF, (float *)coef->ptr);
        if (st) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "uploading the constant table: %s", cml_gpu_error(plan->gpu));
            return st;
        }
        g->uploaded_to = coef->ptr;
    }
    la->in_first = la->pattern == CML_CONST_STENCIL ? LEAD_FLOATS : 0;
    la->in = (const float *)in->ptr + la->in_first;
    la->out = (float *)out->ptr;
    la->coef = (const float *)coef->ptr;
    la->cap = la->n + OUT_MARGIN;
    size_t smem = 0;
    const void *kernel = cml_constant_kernel(la->pattern, la->coef_where, la->block, &smem);
    cml_status st;
    if (one_per_sm) {
        st = cml_exp_one_block_per_sm(ctx, rec, kernel, la->block, smem, &smem);
        if (st)
            return st == CML_EUNSUPPORTED ? CML_OK : st;
        la->smem = smem;
    }
    st = cml_gpu_poison(plan->gpu, out);
    if (st)
        return cml_exp_fail(plan, rec, st);
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

/* The measured clause of a serial variant: SM cycles per warp read, and
 * what serialization adds to the broadcast of the same stride and block. */
static void serial_measured(cml_sweep *ctx, const constant_settings *s, cml_record *rec,
                            cml_status st)
{
    const cml_plan *plan = ctx->plan;
    constant_state *g = ctx->state;
    if (st != CML_OK || !rec->measured || rec->state != CML_REC_OK) {
        if (s->k == 1)
            g->k1_cycles = 0;
        return;
    }
    /* SM cycles per warp read: the whole GPU's time, in cycles of the SM
     * clock the device reports (its maximum), times the SMs, over the
     * warps; it includes the warp's global load and store. */
    const double warps = (double)cml_div_up((uint64_t)s->n, CML_WARP_SIZE);
    const double hz = plan->dev ? 1e3 * (double)plan->dev->sm_clock_khz : 0.0;
    const double cyc = rec->timing.median_ms * 1e-3 * hz * cml_exp_sm_count(plan) / warps;
    char buf[160];
    cml_record_add_extra(rec, "sm_cycles_per_warp", cyc, "cycles");
    if (s->k == 1) {
        g->k1_cycles = cyc;
        snprintf(buf, sizeof buf, " Measured %.1f SM cycles per warp (load, LDC, store), "
                 "%.0f GB/s.", cyc, rec->bandwidth_gbs);
    } else if (g->k1_cycles > 0) {
        /* What serialization adds to the same kernel's broadcast. */
        cml_record_add_extra(rec, "cycles_over_k1", cyc - g->k1_cycles, "cycles");
        snprintf(buf, sizeof buf, " Measured %.1f SM cycles per warp, %+.1f over k = 1; "
                 "%.0f GB/s.", cyc, cyc - g->k1_cycles, rec->bandwidth_gbs);
    } else {
        snprintf(buf, sizeof buf, " Measured %.1f SM cycles per warp, %.0f GB/s.", cyc,
                 rec->bandwidth_gbs);
    }
    finding_append(rec, buf);
}

/* Measure one variant. A wrong output is a failed record and the sweep
 * goes on; a CUDA error ends it. */
static cml_status constant_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const constant_settings *s = vs;
    cml_constant_launch_args la;
    memset(&la, 0, sizeof la);
    la.n = (uint64_t)s->n;
    la.block = block_sizes[s->block];
    if (s->pattern == PATTERN_SERIAL) {
        la.k = (int)s->k;
        la.stride = (int)s->stride;
        la.pattern = CML_CONST_SERIAL;
    } else {
        la.pattern = CML_CONST_STENCIL;
        la.coef_where = (int)s->coef;
    }
    cml_status st = constant_run(ctx, rec, &la, s->residency == CML_RESIDENCY_ONE);
    if (s->pattern == PATTERN_SERIAL) {
        serial_measured(ctx, s, rec, st);
    } else if (st == CML_OK && rec->measured && rec->state == CML_REC_OK) {
        char buf[96];
        snprintf(buf, sizeof buf, " Measured %.1f GB/s (%.1f us).", rec->bandwidth_gbs,
                 1e3 * rec->timing.median_ms);
        finding_append(rec, buf);
    }
    return st;
}

/* After each sweep of k: the next one compares with its own broadcast. */
static void constant_summary(cml_sweep *ctx, size_t first, size_t last)
{
    (void)first;
    (void)last;
    ((constant_state *)ctx->state)->k1_cycles = 0;
}

/* The serialization (predicted) and the kernel time (measured) against k,
 * and the stencil's bandwidth by coefficient memory. */
static const cml_chart_spec constant_charts[] = {
    {.shape = CML_PLOT_SWEEP,
     .title = "Constant-memory serialization vs distinct addresses per warp", .xparam = "k",
     .xname = "k =", .xlabel = "distinct addresses per warp (k)", .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER, .ylabel = "constant accesses per warp read",
     .yfmt = CML_FMT_NUMBER, .only_param = "pattern", .only_label = "serial",
     .m = {{"predicted", CML_METRIC_CONST_SERIALIZED, NULL, NULL, 0}},
     .what = "the predicted serialization", .unit = "x", .describe = 1},
    {.shape = CML_PLOT_SWEEP, .title = "Measured kernel time vs distinct addresses per warp",
     .xparam = "k", .xname = "k =", .xlabel = "distinct addresses per warp (k)",
     .xscale = CML_SCALE_LOG2, .xfmt = CML_FMT_NUMBER, .ylabel = "median time (us)",
     .yfmt = CML_FMT_NUMBER, .only_param = "pattern", .only_label = "serial",
     .m = {{"measured", CML_METRIC_TIME_US, NULL, NULL, 0}}, .what = "the kernel time",
     .unit = "us", .describe = 1},
    {.shape = CML_PLOT_BARS, .title = "Measured stencil bandwidth by coefficient memory",
     .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER, .only_param = "pattern",
     .only_label = "stencil", .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}},
     .what = "stencil bandwidth", .unit = "GB/s", .describe = 1},
};

/* The stencil again with one block per SM: the control of its shared
 * counters (docs/model-evidence.md §4.1). */
static const char *const constant_validate_settings[] = {"", "pattern=stencil residency=one",
                                                         NULL};
static const cml_validate_spec constant_validate = {constant_validate_settings, NULL, 0};

const cml_experiment cml_exp_constant = {
    .key = "constant",
    .number = 10,
    .title = "Constant memory",
    .summary = "__constant__ reads at 1..32 distinct addresses per warp (serialization), and a "
               "9-point stencil with its coefficients in constant, read-only or plain global "
               "memory",
    .doc = "docs/experiments/constant.md",
    .options = constant_params,
    .noptions = CML_COUNT(constant_params),
    .settings_size = sizeof(constant_settings),
    .state_size = sizeof(constant_state),
    .tour = "pattern=serial,stencil k=1,2,8,32 stride=1,32",
    .variant = constant_variant,
    .measure = constant_measure,
    .summarize = constant_summary,
    .charts = constant_charts,
    .ncharts = CML_COUNT(constant_charts),
    .validate = &constant_validate,
};
