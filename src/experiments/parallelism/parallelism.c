/*
 * Experiment 5: exposing parallelism. The same vector add at every block
 * size from one warp to 1024 threads, launched one element per thread or as
 * a grid-stride loop over a grid that fills every SM exactly once, with the
 * occupancy beside the bandwidth.
 *
 * Kernels (parallelism_body.h), loads __ldca (ca), stores plain:
 *   one:        i = blockIdx.x*blockDim.x + threadIdx.x;
 *               if (i < n) C[i] = A[i] + B[i];                    (sites 0, 1, 2)
 *               grid = ceil(n / block)
 *   gridstride: for (i = blockIdx.x*blockDim.x + threadIdx.x; i < n;
 *                    i += gridDim.x*blockDim.x) C[i] = A[i] + B[i];  (sites 0, 1, 2)
 *               grid = SMs x blocks resident per SM (capped at ceil(n / block))
 * Blocks resident per SM: on a GPU, the occupancy calculator's figure for
 * this kernel and block; in the model, threads per SM / threads per block
 * (whole warps), capped by the blocks-per-SM limit (32 on Volta..Hopper):
 * registers and shared memory do not limit a kernel this small.
 *
 * Both modes issue the same warp instructions (the grid-stride loop's
 * iteration k of block b is block b + k*grid of the other), so the model
 * predicts the same traffic for both, and any difference in bandwidth is
 * parallelism alone: resident warps to hide latency, the blocks-per-SM cap
 * that halves occupancy at 32 threads, block scheduling, the last wave.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/parallelism/parallelism_body.h"
#include "lab/common.h"

static const char *const modes[] = {"one", "gridstride", NULL};

/* One point of the sweep: the options' fields, then what the variant
 * derives for the measurement. */
typedef struct parallelism_settings {
    int64_t block, mode, n;
    uint64_t grid;   /* blocks launched */
    unsigned per_sm; /* blocks resident per SM */
} parallelism_settings;

/* Declared fastest-varying first: block sizes within a mode, the order the
 * records have always come in. The variant name keeps its own order
 * (parallelism_name). */
static const cml_param_def parallelism_params[] = {
    {"block", "threads per block", 32, 1024, "32,64,128,256,512,1024", NULL, 0,
     CML_FIELD(parallelism_settings, block), NULL},
    {"mode", "one = one element per thread; gridstride = a loop over SMs x resident blocks", 0,
     0, "one,gridstride", modes, 0, CML_FIELD(parallelism_settings, mode), NULL},
    {"n", "elements per array (0: each array larger than L2, 4x L2 in all)", 0,
     (int64_t)1 << 34, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(parallelism_settings, n), NULL},
};

/* The kernels' own bodies (parallelism_body.h) on the model's arrays. */
void cml_parallelism_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_parallelism_args *a = vargs;
    const float *A = CML_ARRAY(const float, 0), *B = CML_ARRAY(const float, 1);
    float *C = CML_ARRAY(float, 2);
    if (a->gridstride)
        cml_add_gridstride_body(CML_MIRROR_CTX(t, e), A, B, C, a->n);
    else
        cml_add_one_body(CML_MIRROR_CTX(t, e), A, B, C, a->n);
}

/*
 * One-per-thread blocks are translates of each other by block*4 bytes (a
 * multiple of 128 when the block is a multiple of 32 threads, of 128 again
 * every 32/gcd(block, 32) blocks for the others); only the last one meets
 * the guard. A grid-stride
 * launch is traced as its one-per-thread equivalent (see parallelism_body.h): its
 * own mirror would emit 3 accesses per loop iteration, beyond the tracer's
 * per-thread limit at DRAM sizes, and give the same totals.
 */
cml_status cml_parallelism_trace(cml_record *rec, const cml_parallelism_args *a, unsigned block,
                                 uint64_t grid)
{
    cml_parallelism_args one = {a->n, 0};
    uint64_t nblocks = cml_div_up(a->n, block);
    cml_status st = cml_exp_trace_1d_period(rec, nblocks, block, 0, nblocks - a->n / block,
                                            cml_exp_line_period(4u * block),
                                            cml_parallelism_mirror, &one);
    if (st == CML_OK && a->gridstride)
        rec->grid = grid;
    return st;
}

/* The most blocks one SM can hold: the device's, else Volta..Hopper's 32. */
static unsigned blocks_cap(const cml_plan *plan)
{
    return (plan && plan->dev && plan->dev->max_blocks_per_sm > 0)
               ? (unsigned)plan->dev->max_blocks_per_sm
               : 32u;
}

/* Blocks of `block` threads the model expects resident on one SM. */
static unsigned model_blocks_per_sm(const cml_plan *plan, unsigned block)
{
    unsigned threads = cml_exp_threads_per_sm(plan);
    unsigned cap = blocks_cap(plan);
    unsigned whole = (unsigned)cml_div_up(block, CML_WARP_SIZE) * CML_WARP_SIZE;
    unsigned b = threads / whole;
    if (b > cap)
        b = cap;
    return b ? b : 1;
}

/* Blocks resident per SM: the occupancy calculator's on a GPU (for the
 * kernel of this mode), else the model's. */
static cml_status blocks_per_sm(const cml_plan *plan, int gridstride, unsigned block,
                                unsigned *out)
{
    *out = model_blocks_per_sm(plan, block);
    if (!plan->gpu)
        return CML_OK;
    const cml_device_facts *f = cml_gpu_facts(plan->gpu);
    double frac;
    cml_status st = cml_gpu_occupancy(plan->gpu, cml_parallelism_kernel(gridstride), block, 0,
                                      &frac);
    if (st)
        return st;
    int warp = f->warp_size > 0 ? f->warp_size : 32;
    double max_warps = (double)f->max_threads_per_sm / warp;
    double warps_per_block = (double)cml_div_up(block, (uint64_t)warp);
    /* fraction = blocks * warps per block / max warps, from integers */
    unsigned b = (unsigned)(frac * max_warps / warps_per_block + 0.5);
    *out = b ? b : 1;
    return CML_OK;
}

static void parallelism_finding(const cml_plan *plan, cml_record *rec, int gridstride,
                                uint64_t n, unsigned block, unsigned per_sm, double occupancy)
{
    char text[384];
    double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    unsigned whole = (unsigned)cml_div_up(block, CML_WARP_SIZE) * CML_WARP_SIZE;
    const char *limit = per_sm >= blocks_cap(plan) && per_sm * whole < cml_exp_threads_per_sm(plan)
                            ? ", held down by the blocks-per-SM limit"
                            : "";
    if (gridstride)
        snprintf(text, sizeof text,
                 "Grid-stride over %llu blocks (%u SMs x %u resident, %.1f elements per "
                 "thread), occupancy %.0f%%%s; traffic as one-per-thread (%.2f sectors per "
                 "request, %.0f%% used): any difference in bandwidth is parallelism alone.",
                 (unsigned long long)rec->grid, cml_exp_sm_count(plan), per_sm,
                 (double)n / ((double)rec->grid * block), 100.0 * occupancy, limit, spr, eff);
    else
        snprintf(text, sizeof text,
                 "One element per thread: %llu blocks of %u, at most %u resident per SM, "
                 "occupancy %.0f%%%s; %.2f sectors per request, %.0f%% used: bandwidth follows "
                 "the warps in flight to hide DRAM latency.",
                 (unsigned long long)rec->grid, block, per_sm, 100.0 * occupancy, limit, spr, eff);
    cml_exp_finding_measured(rec, text);
}

/* The model's occupancy: resident threads (whole warps) / threads per SM. */
static double model_occupancy(const cml_plan *plan, unsigned block, unsigned per_sm)
{
    double whole = (double)(cml_div_up(block, CML_WARP_SIZE) * CML_WARP_SIZE);
    double occ = per_sm * whole / cml_exp_threads_per_sm(plan);
    return occ > 1.0 ? 1.0 : occ;
}

/* "mode=one block=32": the name the variant has always had, whatever
 * order the options are swept in. */
static void parallelism_name(cml_record *rec, const parallelism_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "mode", modes[s->mode]);
    cml_variant_add(rec->variant, sizeof rec->variant, "block", (long long)s->block);
}

/* One variant's record with the model's prediction; the grid and the
 * blocks resident per SM go into the settings for the measurement. n = 0:
 * each array larger than L2. */
static cml_status parallelism_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    parallelism_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    if (s->n == 0)
        s->n = (int64_t)cml_plan_elements(plan, 4, 3);
    parallelism_name(rec, s);
    const uint64_t n = (uint64_t)s->n;
    const int gridstride = (int)s->mode;
    const unsigned block = (unsigned)s->block;
    rec->bytes_read = 8 * n;
    rec->bytes_written = 4 * n;

    unsigned per_sm;
    cml_status st = blocks_per_sm(plan, gridstride, block, &per_sm);
    if (st)
        return cml_exp_fail(plan, rec, st); /* the occupancy query, on a GPU */
    uint64_t one_grid = cml_div_up(n, block);
    uint64_t grid = one_grid;
    if (gridstride) {
        grid = (uint64_t)cml_exp_sm_count(plan) * per_sm;
        if (grid > one_grid)
            grid = one_grid; /* more blocks than elements would only idle */
    }
    cml_record_add_extra(rec, "blocks_per_sm", per_sm, "");
    cml_record_add_extra(rec, "model_occupancy", model_occupancy(plan, block, per_sm), "");

    if (cml_div_up(n, block) > 0x7FFFFFFFu) {
        /* --size 1T at 32 threads a block: the model's one-per-thread grid
         * (the grid-stride loop's equivalent too) would need more blocks
         * than CUDA's 2^31 - 1 */
        cml_sweep_waive(ctx, rec,
                        "n=%llu at %u threads a block needs %llu blocks, more than a 1-D grid "
                        "holds (2^31 - 1): --n (or --size) at most %llu here",
                        (unsigned long long)n, block, (unsigned long long)cml_div_up(n, block),
                        (unsigned long long)0x7FFFFFFFu * block);
        return CML_OK;
    }
    cml_parallelism_args args = {n, gridstride};
    st = cml_parallelism_trace(rec, &args, block, grid);
    if (st)
        return st;
    parallelism_finding(plan, rec, gridstride, n, block, per_sm,
                        model_occupancy(plan, block, per_sm));
    s->grid = grid;
    s->per_sm = per_sm;
    return CML_OK;
}

#define SEED_A 0x9A2A000000000001ull
#define SEED_B 0x9A2A000000000002ull

static cml_status parallelism_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_parallelism_check(ctx, SEED_A, SEED_B, d_counters);
}

/* Measure one variant: poison C, time, check every element; the finding is
 * rebuilt with the measured occupancy and bandwidth. The engine keeps A, B
 * and C across the variants of the sweep. */
static cml_status parallelism_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const parallelism_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    const uint64_t n = (uint64_t)s->n;
    cml_exp_abc g;
    if (cml_sweep_abc(ctx, rec, n, SEED_A, SEED_B, &g) != CML_OK)
        return CML_ECUDA;
    const int gridstride = (int)s->mode;
    const unsigned block = (unsigned)s->block;
    cml_parallelism_launch_args args = {.A = g.A->ptr, .B = g.B->ptr, .C = g.C->ptr, .n = n,
                                        .cap = n, .grid = (unsigned)s->grid, .block = block,
                                        .gridstride = gridstride};
    cml_status st = cml_exp_measure(plan, rec, g.C, cml_parallelism_launch, &args,
                                    cml_parallelism_kernel(gridstride), block, 0,
                                    parallelism_check_cb, &args);
    if (st == CML_OK) {
        double occ = rec->occupancy >= 0 ? rec->occupancy
                                         : model_occupancy(plan, block, s->per_sm);
        parallelism_finding(plan, rec, gridstride, n, block, s->per_sm, occ);
    }
    return st;
}

/* Bandwidth and occupancy against the block size, a line per mode. */
static const cml_chart_spec parallelism_charts[] = {
    {.shape = CML_PLOT_SWEEP, .title = "Measured bandwidth vs block size", .xparam = "block",
     .xname = "block size", .xlabel = "threads per block", .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER, .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER,
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_SWEEP, .title = "Occupancy vs block size", .xparam = "block",
     .xname = "block size", .xlabel = "threads per block", .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER, .ylabel = "occupancy (%)", .yfmt = CML_FMT_PERCENT,
     .m = {{"occupancy", CML_METRIC_OCCUPANCY, NULL, NULL, 0}}, .what = "occupancy", .unit = "%",
     .describe = 1},
};

static const char *const parallelism_validate_settings[] = {"", NULL};
static const cml_validate_spec parallelism_validate = {parallelism_validate_settings, NULL, 0};

const cml_experiment cml_exp_parallelism = {
    .key = "parallelism",
    .number = 5,
    .title = "Exposing parallelism",
    .summary = "C[i] = A[i] + B[i] at block sizes 32..1024, one element per thread vs a "
               "grid-stride loop",
    .doc = "docs/experiments/parallelism.md",
    .options = parallelism_params,
    .noptions = CML_COUNT(parallelism_params),
    .settings_size = sizeof(parallelism_settings),
    .tour = "mode=one,gridstride block=32,256,1024",
    .variant = parallelism_variant,
    .measure = parallelism_measure,
    .charts = parallelism_charts,
    .ncharts = CML_COUNT(parallelism_charts),
    .validate = &parallelism_validate,
};
