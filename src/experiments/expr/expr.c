/*
 * Experiment 18: your own access pattern, measured (expr.h). This file: the
 * options, the built-in set, the model's mirror of the generated kernel and
 * the record; expr_bounds.c resolves a point (the bounds rule), expr_gpu.c
 * compiles, runs and checks.
 *
 * The kernel and its mirror come from one description, the kernel's plan
 * (src/model/expr_plan.h): cml_expr_kernel_source prints the CUDA C by
 * walking it, and the mirror below walks it over the point's launch with
 * the indices evaluated, so each access is emitted with the site, space,
 * path and width of the instruction the generator wrote. The mirror adds
 * only what the launch decides: which blocks and loop iterations are
 * traced. Threads with i >= threads skip everything but the tile loops.
 * The guard idx < n never fires in a run: resolving refuses a point where
 * any running thread's index falls outside 0..n-1 (the bounds rule:
 * expr_bounds.c, docs/experiments/expr.md).
 */
#include "experiments/expr/expr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/common.h"
#include "model/expr_plan.h"

const char *const cml_expr_path_choices[] = {"auto", "ca", "cg", "nc", "cs", "wb", NULL};
static const char *const op_choices[] = {"load", "store", "copy", NULL};
static const char *const space_choices[] = {"global", "shared", "constant", NULL};
static const char *const elem_choices[] = {"1", "2", "4", "8", "16", NULL};
enum { SP_GLOBAL = CML_EXPR_SP_GLOBAL, SP_SHARED = CML_EXPR_SP_SHARED,
       SP_CONSTANT = CML_EXPR_SP_CONSTANT };

/* The expr option's default, "0:<count - 1>" of the built-in set
 * (expr_builtins.c): tests/test_expr_experiment.c checks it against the
 * table. */
#define BUILTIN_ALL "0:16"

#define F(m) CML_FIELD(cml_expr_settings, m)
static const cml_param_def expr_params[] = {
    {"expr", "which expression: its place among the --expr given (set by them; written "
             "expr=LIST), else in the built-in set",
     0, 63, BUILTIN_ALL, NULL, 0, F(expr), NULL},
    {"src", "copy: 1 + the --src expression's place in that list (0: each thread reads i)", 0,
     64, "0", NULL, CML_PARAM_NOVARIANT, F(src), "access=copy"},
    {"path", "global path: loads ca|cg|nc|cs, stores wb|cg|cs (auto: ca, wb)", 0, 0, "auto",
     cml_expr_path_choices, 0, F(path), "space=global"},
    {"access", "load, store or copy (run --expr: --op; the built-in set: each pattern's own)",
     0, 0, "load", op_choices, 0, F(op), NULL},
    {"space", "global, shared or constant (the built-in set: each pattern's own)", 0, 0,
     "global", space_choices, 0, F(space), NULL},
    {"elem", "bytes per element", 0, 0, "4", elem_choices, 0, F(elem), NULL},
    {"bdx", "block width, threads in x (--block X or XxY sets bdx and bdy; the built-in set: "
            "each pattern's own)",
     1, 1024, "256", NULL, 0, F(bdx), NULL},
    {"bdy", "block height, threads in y (the built-in set: each pattern's own)", 1, 1024, "1",
     NULL, 0, F(bdy), NULL},
    {"threads", "threads launched (0: global, sized by --where/--size; shared and constant 2^20)",
     0, (int64_t)1 << 31, "0", NULL, CML_PARAM_NOVARIANT, F(threads), NULL},
    {"n", "elements per array; every index must lie in 0..n-1 (0: the range reached)", 0,
     (int64_t)1 << 40, "0", NULL, CML_PARAM_NOVARIANT, F(n), NULL},
    {"base", "byte offset of the indexed arrays from a 128-byte boundary (global)", 0, 4096,
     "0", NULL, 0, F(base), NULL},
    {"residency", CML_RESIDENCY_HELP, 0, 0, "many", cml_residency_names, 0, F(residency), NULL},
};

/* ---- the mirror ------------------------------------------------------- */

/* Loop iterations per trace call: the tracer keeps at most CML_MAX_EMITS
 * accesses per thread, and a fill iteration makes two. Splitting a loop
 * changes no instruction: the k-th iteration of a warp is one instruction
 * wherever the split falls. */
#define CHUNK 100u

typedef struct trace_args {
    const cml_expr_point *p;
    const cml_expr_plan *kplan; /* the kernel's plan: what the mirror walks */
    size_t phase;               /* the plan's phase this call traces */
    uint64_t it0, it1;          /* the tile loops' iterations of this call */
    uint64_t first;             /* the real index of the traced grid's block 0 */
} trace_args;

static int64_t eval_at(const void *p, const cml_expr *e, uint64_t i)
{
    return cml_expr_point_eval(p, e, i);
}

/* The generated kernel, thread by thread: the plan that printed its source
 * (cml_expr_kernel_source) walked over the point's launch. */
static void mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const trace_args *a = vargs;
    const cml_expr_point *p = a->p;
    const uint64_t b = a->first + t->bid.x;
    const uint64_t tt = (uint64_t)t->tid.y * p->bdx + t->tid.x;
    const cml_expr_plan_thread th = {
        .i = b * p->block + tt, .t = tt, .b = b, .block = p->block, .threads = p->threads,
        .n = p->n, .tile_len = p->tile_len, .base = p->base, .it0 = a->it0, .it1 = a->it1,
        .eval = eval_at, .ctx = p};
    cml_expr_plan_walk(a->kplan, a->phase, &th, e);
}

/* Blocks [first, first + count) of the point's grid, every phase, added
 * into *out. */
static cml_status trace_blocks(const cml_expr_point *p, const cml_expr_plan *kplan,
                               cml_rules rules, uint64_t first, uint64_t count,
                               cml_kernel_traffic *out)
{
    if (count == 0)
        return CML_OK;
    trace_args a = {p, kplan, 0, 0, 0, first};
    const cml_dim3 grid = cml_dim1(count), block = cml_dim2(p->bdx, p->bdy);
    const uint64_t iters = p->tile_len ? cml_div_up(p->tile_len, p->block) : 0;
    cml_status st = CML_OK;
    for (a.phase = 0; st == CML_OK && a.phase < kplan->nphases; a.phase++) {
        if (a.phase == kplan->main) {
            st = cml_trace_kernel(rules, grid, block, mirror, &a, out);
            continue;
        }
        for (uint64_t it = 0; st == CML_OK && it < iters; it += CHUNK) {
            a.it0 = it;
            a.it1 = it + CHUNK < iters ? it + CHUNK : iters;
            st = cml_trace_kernel(rules, grid, block, mirror, &a, out);
        }
    }
    return st;
}

/* acc += k * t, every field of every class. */
static void add_scaled(cml_kernel_traffic *acc, const cml_kernel_traffic *t, uint64_t k)
{
    for (int c = 0; c < CML_CLASS_COUNT; c++)
        cml_traffic_add_scaled(&acc->cls[c], &t->cls[c], k);
}

/* The most a warp of the point's kernel issues of each instruction: what
 * the sampled model's bounds rest on. The main phase's instructions, from
 * the plan (only a kernel without a tile is sampled: one with a tile is
 * walked), each once per warp. */
static size_t sample_kinds(const cml_expr_plan *kplan, cml_exp_sample_kind *k)
{
    cml_expr_plan_insn insn[CML_EXPR_PLAN_INSNS];
    const size_t n = cml_expr_plan_main_insns(kplan, insn);
    for (size_t q = 0; q < n; q++) {
        const cml_exp_sample_kind one = {insn[q].space, insn[q].op, insn[q].width, 1};
        k[q] = one;
    }
    return n;
}

cml_status cml_expr_point_trace(const cml_expr_point *p, cml_record *rec)
{
    cml_expr_plan kplan;
    cml_status pst = cml_expr_plan_make(&p->kernel, &kplan);
    if (pst != CML_OK) { /* resolving checked the kernel: not reached */
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model: %s", cml_status_str(pst));
        return pst;
    }
    const uint64_t warps = p->grid * cml_div_up(p->block, CML_WARP_SIZE);
    if (!p->uniform && p->period < 2 && p->tile_len == 0 && warps > CML_EXP_SAMPLE_WARPS &&
        p->grid <= 0x7FFFFFFFu) {
        /* No period and too many warps to walk: a sample of them, with the
         * bound it gives each figure (and the cache levels scaled by it). */
        trace_args a = {p, &kplan, kplan.main, 0, 0, 0};
        cml_exp_sample_kind kinds[CML_EXPR_PLAN_INSNS];
        const size_t nk = sample_kinds(&kplan, kinds);
        cml_status st = cml_exp_trace_sample(rec, cml_dim1(p->grid), cml_dim2(p->bdx, p->bdy),
                                             mirror, &a, kinds, nk, CML_EXP_SAMPLE_WARPS);
        if (st != CML_OK)
            return st;
        rec->bytes_read = rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].requested_bytes;
        rec->bytes_written =
            rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST].requested_bytes;
        return CML_OK;
    }
    for (int r = 0; r < CML_RULES_COUNT; r++) {
        cml_kernel_traffic total, one;
        memset(&total, 0, sizeof total);
        memset(&one, 0, sizeof one);
        cml_status st;
        if (p->uniform && p->full_blocks > 1) {
            st = trace_blocks(p, &kplan, (cml_rules)r, 0, 1, &one);
            if (st == CML_OK) {
                add_scaled(&total, &one, p->full_blocks);
                st = trace_blocks(p, &kplan, (cml_rules)r, p->full_blocks,
                                  p->grid - p->full_blocks, &total);
            }
        } else if (!p->uniform && p->period > 1 && p->full_blocks > p->period) {
            /* full block j moves the traffic of block j mod period: blocks
             * 0..period-1 q times, the first full_blocks mod period once
             * more, then the partial ones */
            const uint64_t q = p->full_blocks / p->period, rest = p->full_blocks % p->period;
            st = trace_blocks(p, &kplan, (cml_rules)r, 0, p->period, &one);
            if (st == CML_OK) {
                add_scaled(&total, &one, q);
                st = trace_blocks(p, &kplan, (cml_rules)r, 0, rest, &total);
            }
            if (st == CML_OK)
                st = trace_blocks(p, &kplan, (cml_rules)r, p->full_blocks,
                                  p->grid - p->full_blocks, &total);
        } else {
            st = trace_blocks(p, &kplan, (cml_rules)r, 0, p->grid, &total);
        }
        if (st != CML_OK) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "model: %s", cml_status_str(st));
            return st;
        }
        rec->model[r] = total;
    }
    rec->has_model = 1;
    rec->grid = p->grid;
    rec->block = p->block;
    if (p->tile_len == 0 && p->grid <= 0x7FFFFFFFu) {
        /* The cache levels of the one-phase kernels (global patterns; the
         * shared and constant ones' tile phases are not modelled there). */
        trace_args a = {p, &kplan, kplan.main, 0, 0, 0};
        cml_status st = cml_exp_levels(rec, cml_dim1(p->grid), cml_dim2(p->bdx, p->bdy), mirror,
                                       &a);
        if (st != CML_OK)
            return st;
    }
    /* The bytes the threads ask of global memory (unique per instruction:
     * a broadcast counts once per warp), the 8-byte results included. */
    rec->bytes_read = rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].requested_bytes;
    rec->bytes_written = rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST].requested_bytes;
    return CML_OK;
}

/* ---- the record ------------------------------------------------------- */

/* "i*2 access=store elem=8": the expression, then what differs from the
 * defaults (the built-in set: "stride 2: i*2"). */
static void variant_name(const cml_expr_point *p, const cml_expr_settings *s, char *buf,
                         size_t len)
{
    const char *text = p->text ? p->text : "?";
    size_t tl = strlen(text);
    if (p->name)
        snprintf(buf, len, "%s: %.60s%s", p->name, text, tl > 60 ? "..." : "");
    else
        snprintf(buf, len, "%.60s%s", text, tl > 60 ? "..." : "");
    if (p->name)
        return;
    if (s->op != CML_EXPR_LOAD)
        cml_variant_add_label(buf, len, "access", op_choices[s->op]);
    if (s->space != SP_GLOBAL)
        cml_variant_add_label(buf, len, "space", space_choices[s->space]);
    if (s->path != CML_EXPR_PATH_AUTO && s->path != CML_EXPR_PATH_CA &&
        s->path != CML_EXPR_PATH_WB)
        cml_variant_add_label(buf, len, "path", cml_expr_path_choices[s->path]);
    if (s->elem != 2)
        cml_variant_add_label(buf, len, "elem", elem_choices[s->elem]);
    if (s->bdx != 256 || s->bdy != 1) {
        char b[32];
        snprintf(b, sizeof b, "%lldx%lld", (long long)s->bdx, (long long)s->bdy);
        cml_variant_add_label(buf, len, "block", b);
    }
    if (s->base)
        cml_variant_add(buf, len, "base", (long long)s->base);
    if (p->src_text)
        cml_variant_add_label(buf, len, "src", p->src_text);
}

/* The class the expression's own access falls in. */
static cml_class pattern_class(const cml_expr_point *p)
{
    cml_op op = p->kernel.op == CML_EXPR_LOAD ? CML_OP_LOAD : CML_OP_STORE;
    return cml_class_of(p->kernel.space, op);
}

static cml_status expr_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    cml_expr_settings *s = vs;
    cml_expr_state *st = ctx->state;
    if (!st->limits_taken) {
        /* Once per run: the buffers of earlier points are still held later. */
        st->mem_limit = cml_expr_mem_limit(ctx->plan);
        st->smem_limit = cml_expr_smem_limit(ctx->plan);
        st->limits_taken = 1;
    }
    if (st->have_point)
        cml_expr_point_free(&st->point);
    st->have_point = 0;
    int too_big = 0;
    char why[256];
    cml_status rc = cml_expr_point_resolve(ctx->plan, st->mem_limit, st->smem_limit, s,
                                           &st->point, &too_big, why, sizeof why);
    if (rc == CML_SKIP_POINT) {
        cml_expr_point_free(&st->point);
        return rc;
    }
    variant_name(&st->point, s, rec->variant, sizeof rec->variant);
    if (s->residency == CML_RESIDENCY_ONE) /* only the control says so */
        cml_variant_add_label(rec->variant, sizeof rec->variant, "residency", "one");
    if (rc != CML_OK) {
        /* Only the sweeps that check nothing first get here (suite, the
         * tour, validate, model expr: run checks every point and stops
         * with exit 2): this point cannot run as set, say why and go on. */
        (void)too_big;
        cml_expr_point_free(&st->point);
        cml_sweep_waive(ctx, rec, "refused: %s", why);
        return CML_OK;
    }
    st->have_point = 1;
    st->point_index = ctx->point;
    const cml_expr_point *p = &st->point;
    rc = cml_expr_point_trace(p, rec);
    if (rc != CML_OK)
        return rc;
    if (p->tile_len)
        cml_record_add_extra(rec, "tile_bytes", (double)p->smem, "B");
    char text[384], sampled[256], bound[160] = "";
    cml_exp_explain(rec, pattern_class(p), text, sizeof text);
    cml_exp_sample_note(rec, pattern_class(p), sampled, sizeof sampled);
    if (p->range_bound)
        snprintf(bound, sizeof bound, " Every index lies in %lld..%lld (a bound from interval "
                 "arithmetic: too many threads to evaluate each).",
                 (long long)p->lo, (long long)p->hi);
    cml_record_finding(rec, "%s%s%s", text, sampled, bound);
    return CML_OK;
}

/* The expression's text as the `expr` parameter's label, so the tables and
 * the chart name each bar by its pattern (the engine fills the parameters
 * after the variant, so this is the first moment they can be labelled). */
static void expr_summary(cml_sweep *ctx, size_t first, size_t last)
{
    for (size_t k = first; k <= last; k++) {
        cml_record *rec = &ctx->out->items[k];
        const cml_expr_settings *s = cml_sweep_settings_of(ctx, k);
        if (!s)
            continue;
        const char *text = NULL;
        if (ctx->plan->exprs && s->expr >= 0 && (uint64_t)s->expr < ctx->plan->nexprs)
            text = ctx->plan->exprs[s->expr];
        else if (!ctx->plan->exprs && s->expr >= 0 &&
                 (uint64_t)s->expr < cml_expr_builtin_count())
            text = cml_expr_builtin_at((size_t)s->expr)->name;
        for (unsigned q = 0; text && q < rec->nparams; q++) {
            cml_record_param *prm = &rec->params[q];
            if (strcmp(prm->name, "expr") != 0)
                continue;
            size_t room = sizeof prm->label - 1, tl = strlen(text);
            if (tl <= room)
                snprintf(prm->label, sizeof prm->label, "%s", text);
            else
                snprintf(prm->label, sizeof prm->label, "%.*s...", (int)(room - 3), text);
        }
    }
}

/* Each pattern's bandwidth, and what compiling it cost. */
static const char *const compile_names[] = {"compile_ms", "cached_compile_ms", NULL};
static const char *const compile_legend[] = {"first compile (NVRTC)", "cached", NULL};
static const cml_chart_spec expr_charts[] = {
    {.shape = CML_PLOT_BARS, .title = "Measured bandwidth by expression",
     .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER,
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0},
           {NULL, CML_METRIC_NONE, NULL, NULL, 0}},
     .what = "bandwidth", .unit = "GB/s", .describe = 1},
    {.shape = CML_PLOT_EXTRAS, .title = "Compile time by expression",
     .ylabel = "milliseconds", .yfmt = CML_FMT_NUMBER,
     .m = {{NULL, CML_METRIC_NONE, NULL, NULL, 0}, {NULL, CML_METRIC_NONE, NULL, NULL, 0}},
     .what = "compile time", .unit = "ms", .extra_names = compile_names,
     .extra_legend = compile_legend},
};

/* The built-in set, then its shared-memory patterns with one block per SM:
 * their control. */
static const char *const expr_validate_settings[] = {"", "expr=12:14 residency=one", NULL};
/* The store into a shared tile mixes the tile's poison (stores), the
 * 32-way conflicted pattern (stores) and the copy-out (loads) across the
 * blocks an SM holds: its conflict-free copy-out loads count the
 * wavefronts they lose to the other blocks' stores (docs/model-evidence.md
 * §4.4, the mechanism measured in §4.3), which the control with one block
 * per SM shows each run. */
static const cml_explained_diff expr_explained[] = {
    {"shared column store", "_mem_shared_op_ld",
     "the copy-out loads lose wavefronts to another block's conflicted stores on the same SM",
     CML_EXCESS, 0.10, "§4.4 shared tile of an expression store (the mechanism of §4.3)",
     "residency=one"},
    /* The transposed store, whose blocks all store the same 256 floats
     * (§4.5, 98.6% fewer L2 writes), is inside the interval of L2 writes
     * (docs/model.md §16.8, l1_merge); the strided reads' dirty residue
     * (§4.6, no control) is not explained (§4.12). */
};
static const cml_validate_spec expr_validate = {expr_validate_settings, expr_explained,
                                                CML_COUNT(expr_explained)};

const cml_experiment cml_exp_expr = {
    .key = "expr",
    .number = 18,
    .title = "Your own access pattern",
    .summary = "an index expression compiled at run time (NVRTC), run, verified and counted "
               "beside the model: cumemlab run --expr 'i*2'",
    .doc = "docs/experiments/expr.md",
    .options = expr_params,
    .noptions = CML_COUNT(expr_params),
    .settings_size = sizeof(cml_expr_settings),
    .state_size = sizeof(cml_expr_state),
    .tour = "expr=0,1,6,7,8,9,12,16",
    .variant = expr_variant,
    .measure = cml_expr_measure,
    .summarize = expr_summary,
    .release = cml_expr_release,
    .charts = expr_charts,
    .ncharts = CML_COUNT(expr_charts),
    .validate = &expr_validate,
};
