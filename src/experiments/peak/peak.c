/*
 * Experiment 16: the peak bandwidth references (host side: options, the
 * records of a sweep, the row). peak.h lists the kernels and the shapes;
 * peak_model.c is the model, peak_bench.c the GPU side, peak_findings.c
 * the class references and what the run says about them.
 *
 * For each kernel (fill, sum, copy, scale, add, triad) in each shape, and
 * for cudaMemcpy and cudaMemset, at each size:
 *   - the model: the kernel's own body (src/lab/peak_body.h) compiled as
 *     its C mirror, traced under both rule sets;
 *     every access is a whole vector of a coalesced warp, so the model must
 *     predict 100% efficiency;
 *   - on a GPU: random inputs (filled once per size), the output poisoned
 *     once before the warm-up and the timed launches, every element
 *     verified after them; bandwidth = bytes the algorithm must move /
 *     median time per launch.
 * The best verified figure of each class (read, write, copy, triad:
 * core/peak_class.h) becomes that class's reference, and every record's
 * "% of peak" is its share of its own class's reference.
 *
 * Sizes: 256 MiB, 1 GiB and 4 GiB per array by default, each capped at
 * min(a quarter of the free device memory, 8 GiB) when the run starts; a
 * size capped to one already in the list is not run twice. A global --size
 * (`suite --size 64k`) or --where l2|l1 runs the one size they give instead
 * (`run peak-bandwidth --size 1G,4G` is this experiment's own list). Without
 * a GPU the model is the same at every size (peak_model.c), so it is shown
 * at the first size only, unless sizes are given.
 */
#include "experiments/peak/peak.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/peak/peak_internal.h"
#include "gpu/host_memory.h"

static const char *const kernel_names[] = {"copy", "scale", "add",    "triad", "sum",
                                           "fill", "memcpy", "memset", NULL};

#define SHAPE_NAME(ID, NAME, LAYOUT, W, U, CS, QUICK) NAME,
static const char *const shape_names[] = {CML_PEAK_SHAPES(SHAPE_NAME) NULL};
#undef SHAPE_NAME

/* The driver's calls have no shape and no block: one record each, without
 * them. The default shapes: both layouts, 16-byte accesses at 1, 4 and 8
 * per thread, the streaming hints, and 8-byte one-shot accesses (the
 * peers' element); shape=all adds the rest. */
#define KERNELS "kernel=copy,scale,add,triad,sum,fill"
#define DEFAULT_SHAPES                                                                           \
    "gs-v16-u1,gs-v16-u4,gs-v16-u8,gs-v16-u4-cs,os-v16-u1,os-v16-u4,os-v16-u4-cs,os-v8-u1"
static const cml_param_def peak_params[] = {
    {"shape",
     "gs-vW-uU: grid-stride, grid = SMs x resident blocks, U accesses of W bytes per "
     "iteration; os-vW-uU: one-shot, U per thread; -cs: streaming hints (__ldcs/__stcs)",
     0, 0, DEFAULT_SHAPES, shape_names, 0, CML_FIELD(peak_settings, shape), KERNELS},
    {"block", "threads per block (a multiple of 32)", 32, 1024, "256", NULL, 0,
     CML_FIELD(peak_settings, block), KERNELS},
    {"kernel",
     "fill (write only), sum (read only), copy, scale, add, triad, memcpy (cudaMemcpy D2D), "
     "memset (cudaMemset)",
     0, 0, "all", kernel_names, 0, CML_FIELD(peak_settings, kernel), NULL},
    {"size", "bytes per array (each capped at min(free device memory / 4, 8 GiB))", 16,
     (int64_t)1 << 36, "256M,1G,4G", NULL, 0, CML_FIELD(peak_settings, size), NULL},
};

/* The largest array of a run: a quarter of the free memory (add and triad
 * use three arrays), at most 8 GiB, in whole MiB. */
#define CAP_MAX ((uint64_t)8 << 30)

static uint64_t size_cap(const cml_plan *plan, peak_state *st)
{
    if (!plan->gpu)
        return 0; /* no cap: the model allocates nothing */
    if (!st->cap_bytes) {
        size_t free_b = 0, total_b = 0;
        uint64_t cap = CAP_MAX;
        if (cml_gpu_memory_info(plan->gpu, &free_b, &total_b) == CML_OK && free_b / 4 < cap)
            cap = (uint64_t)free_b / 4;
        cap &= ~(((uint64_t)1 << 20) - 1);
        st->cap_bytes = cap ? cap : (uint64_t)1 << 20;
    }
    return st->cap_bytes;
}

/* The size a list value stands for here (the plan's one size, or the value
 * under the cap). */
static uint64_t resolve(const cml_plan *plan, uint64_t value, uint64_t cap, int plan_size)
{
    if (plan_size)
        return cml_plan_elements(plan, sizeof(float), 3) * sizeof(float);
    return cap && value > cap ? cap : value;
}

/* The bytes per array of this point into *bytes; 0, or 1 when an earlier
 * value of the size list already stands for the same size (the point is
 * then dropped). */
static int point_size(cml_sweep *ctx, const peak_settings *s, uint64_t *bytes)
{
    const cml_plan *plan = ctx->plan;
    const int idx = cml_param_index(ctx->values, "size");
    const cml_param_list *l = idx >= 0 ? &ctx->values->list[idx] : NULL;
    const int given = l && l->given;
    /* A global --size (suite --size 64k) or --where l2|l1 is one size for
     * every experiment, this one included. */
    const int plan_size = plan->size_bytes || plan->where != CML_WHERE_DRAM;
    const uint64_t cap = size_cap(plan, ctx->state);
    size_t pos = 0;
    while (l && pos < l->count && l->v[pos] != s->size)
        pos++;
    *bytes = resolve(plan, (uint64_t)s->size, cap, plan_size);
    /* Without a GPU the model is the same at every size: the first one. */
    if (!plan->gpu && !given && pos > 0)
        return 1;
    for (size_t k = 0; l && k < pos; k++)
        if (resolve(plan, (uint64_t)l->v[k], cap, plan_size) == *bytes)
            return 1;
    return 0;
}

static void variant_name(char *buf, size_t len, cml_peak_op op, cml_peak_shape shape,
                         unsigned block, uint64_t bytes)
{
    char size[16];
    cml_peak_size_label(size, sizeof size, bytes);
    buf[0] = '\0';
    cml_variant_add_label(buf, len, "kernel", cml_peak_op_name(op));
    if (op < CML_PEAK_KERNEL_OPS) {
        cml_variant_add_label(buf, len, "shape", cml_peak_shape_name(shape));
        cml_variant_add(buf, len, "block", block);
    }
    cml_variant_add_label(buf, len, "size", size);
}

/* The sentence of a record before (or without) a measurement. */
static void model_finding(cml_record *rec, cml_peak_op op, cml_peak_shape shape, uint64_t n,
                          uint64_t traced_n)
{
    const char *cls = cml_peak_class_name(cml_peak_op_class(op));
    if (op >= CML_PEAK_KERNEL_OPS) {
        cml_record_finding(rec, "%s runs the driver's own %s, so there is no kernel to mirror; it "
                                "moves %llu bytes (class %s).",
                           op == CML_PEAK_MEMCPY ? "cudaMemcpy device-to-device" : "cudaMemset",
                           op == CML_PEAK_MEMCPY ? "copy" : "fill",
                           (unsigned long long)(rec->bytes_read + rec->bytes_written), cls);
        return;
    }
    const cml_peak_shape_def *d = cml_peak_shape_at(shape);
    char traced[96] = "", tsize[32];
    if (traced_n < n) {
        cml_fmt_bytes(tsize, sizeof tsize, 4.0 * (double)traced_n);
        snprintf(traced, sizeof traced, " (Counted on %s per array: the same access at any size.)",
                 tsize);
    }
    const cml_class c = op == CML_PEAK_FILL ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    const cml_traffic *t = &rec->model[CML_RULES_MODERN].cls[c];
    cml_record_finding(rec,
                       "%s (%s, class %s): %llu %s requests of %u-byte accesses at %.2f sectors "
                       "each, %.1f%% of fetched bytes used (Fermi rules %.1f%%): whole warps "
                       "fill whole 128-byte lines; %u bytes per thread per %s.%s",
                       cml_peak_op_name(op), d->name, cls, (unsigned long long)t->requests,
                       c == CML_CLASS_GLOBAL_ST ? "store" : "load", d->width,
                       cml_exp_spr(rec, c), 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, c),
                       100.0 * cml_exp_eff(rec, CML_RULES_FERMI, c), d->width * d->unroll,
                       d->layout == CML_PEAK_GRID_STRIDE ? "loop iteration" : "launch",
                       traced);
}

/* At the sweep's first point: the traces of every point, made at once
 * (cml_peak_trace_prefill), with the sizes and grids the points will have. */
static void prefill_traces(cml_sweep *ctx, const cml_record *rec)
{
    peak_state *g = ctx->state;
    if (g->prefilled)
        return;
    g->prefilled = 1;
    const cml_plan *plan = ctx->plan;
    const cml_param_values *pv = ctx->values;
    const int is = cml_param_index(pv, "shape"), ib = cml_param_index(pv, "block");
    const int ik = cml_param_index(pv, "kernel"), iz = cml_param_index(pv, "size");
    if (is < 0 || ib < 0 || ik < 0 || iz < 0)
        return;
    const cml_param_list *ls = &pv->list[is], *lb = &pv->list[ib];
    const cml_param_list *lk = &pv->list[ik], *lz = &pv->list[iz];
    const int plan_size = plan->size_bytes || plan->where != CML_WHERE_DRAM;
    const uint64_t cap = size_cap(plan, g);
    cml_peak_trace_job *jobs = calloc(ls->count * lb->count * lk->count * lz->count + 1, sizeof *jobs);
    size_t nj = 0;
    for (size_t z = 0; jobs && z < lz->count; z++) {
        if (!plan->gpu && !lz->given && z > 0)
            break; /* without a GPU only the first size is a point (point_size) */
        const uint64_t n = resolve(plan, (uint64_t)lz->v[z], cap, plan_size) / sizeof(float);
        for (size_t k = 0; k < lk->count; k++) {
            const cml_peak_op op = (cml_peak_op)lk->v[k];
            for (size_t s = 0; op < CML_PEAK_KERNEL_OPS && s < ls->count; s++)
                for (size_t b = 0; b < lb->count; b++) {
                    const unsigned block = (unsigned)lb->v[b];
                    const cml_peak_shape shape = (cml_peak_shape)ls->v[s];
                    unsigned grid = cml_peak_model_grid(plan, shape, n, block);
                    if (block % 32u != 0 ||
                        (plan->gpu && cml_peak_device_grid(plan->gpu, op, shape, n, block, &grid,
                                                           NULL) != CML_OK))
                        continue;
                    jobs[nj++] = (cml_peak_trace_job){op, shape, n, grid, block};
                }
        }
    }
    if (jobs)
        cml_peak_trace_prefill(&g->memo, &rec->cache, jobs, nj);
    free(jobs);
}

/* One point: the size resolved, the record and the model (traced over the
 * grid the GPU run will launch, when a GPU is open). */
static cml_status peak_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    peak_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    uint64_t bytes = 0;
    prefill_traces(ctx, rec);
    if (point_size(ctx, s, &bytes))
        return CML_SKIP_POINT;
    s->size = (int64_t)bytes;
    const uint64_t n = bytes / sizeof(float);
    const cml_peak_op op = (cml_peak_op)s->kernel;
    const cml_peak_shape shape = (cml_peak_shape)s->shape;
    const unsigned block = (unsigned)s->block;
    uint64_t traced_n = n;
    variant_name(rec->variant, sizeof rec->variant, op, shape, block, bytes);
    rec->bytes_read = cml_peak_bytes_read(op, n);
    rec->bytes_written = cml_peak_bytes_written(op, n);
    if (op < CML_PEAK_KERNEL_OPS) {
        if (block % 32u != 0) {
            cml_sweep_waive(ctx, rec, "block=%u: the peak kernels use whole warps (a multiple "
                                      "of 32 threads)", block);
            return CML_OK;
        }
        unsigned grid = cml_peak_model_grid(plan, shape, n, block);
        if (plan->gpu) {
            cml_status st = cml_peak_device_grid(plan->gpu, op, shape, n, block, &grid, NULL);
            if (st != CML_OK)
                return cml_exp_fail(plan, rec, st);
        }
        peak_state *g = ctx->state;
        cml_status st = cml_peak_trace(rec, op, shape, n, grid, block, &traced_n, &g->memo);
        if (st != CML_OK)
            return st;
        rec->grid = grid;
        rec->block = block;
    }
    model_finding(rec, op, shape, n, traced_n);
    return CML_OK;
}

/* One point on the GPU: the bench of this size (the previous size's
 * counters read first, while its buffers exist), then time and verify. */
static cml_status peak_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const peak_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    peak_state *g = ctx->state;
    const uint64_t n = (uint64_t)s->size / sizeof(float);
    const cml_peak_op op = (cml_peak_op)s->kernel;
    /* The driver's calls have no block; the bench wants a valid one all the same. */
    const unsigned block = op >= CML_PEAK_KERNEL_OPS ? 256u : (unsigned)s->block;
    if (g->open && g->bench.n != n) {
        cml_peak_read_counters(ctx, g->size_first, ctx->point);
        cml_peak_bench_close(&g->bench);
        g->open = 0;
    }
    if (!g->open) {
        cml_status st = cml_peak_bench_open(plan->gpu, n, block, &g->bench);
        if (st != CML_OK)
            return cml_exp_fail(plan, rec, st);
        g->open = 1;
        g->size_first = ctx->point;
    }
    g->bench.block = block;
    const unsigned warmup = plan->warmup ? plan->warmup : 3;
    const unsigned reps = plan->reps ? plan->reps : (plan->quick ? 5 : 10);
    return cml_peak_measure_variant(plan, &g->bench, rec, op, (cml_peak_shape)s->shape, warmup,
                                    reps);
}

static void peak_finish(cml_sweep *ctx)
{
    peak_state *g = ctx->state;
    if (ctx->plan->gpu && g->open)
        cml_peak_read_counters(ctx, g->size_first, ctx->out->count);
    cml_peak_finish(ctx);
}

static void peak_release(cml_sweep *ctx)
{
    peak_state *g = ctx->state;
    if (g->open)
        cml_peak_bench_close(&g->bench);
    g->open = 0;
    cml_peak_trace_memo_free(&g->memo);
}

static const cml_chart_spec peak_charts[] = {
    {.shape = CML_PLOT_BARS,
     .title = "Measured bandwidth by kernel and shape",
     .ylabel = "bandwidth (GB/s)",
     .yfmt = CML_FMT_NUMBER,
     .series_param = "shape",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}},
     .what = "bandwidth",
     .unit = "GB/s",
     .describe = 1},
};

const cml_experiment cml_exp_peak = {
    .key = "peak-bandwidth",
    .number = 16,
    .title = "Peak bandwidth references",
    .summary = "fill, sum, copy, scale, add, triad in grid-stride and one-shot shapes, "
               "cudaMemcpy and cudaMemset, at several sizes: the measured peak of each class "
               "(read, write, copy, triad)",
    .doc = "docs/experiments/peak-bandwidth.md",
    .options = peak_params,
    .noptions = CML_COUNT(peak_params),
    .settings_size = sizeof(peak_settings),
    .state_size = sizeof(peak_state),
    .tour = "size=1G shape=gs-v16-u4,os-v16-u1", /* the two layouts; the suite tries all */
    .variant = peak_variant,
    .measure = peak_measure,
    .finish = peak_finish,
    .release = peak_release,
    .charts = peak_charts,
    .ncharts = CML_COUNT(peak_charts),
    .validate = NULL, /* no counters row: validate lists it as skipped */
};
