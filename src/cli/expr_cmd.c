/*
 * Index expressions on the command line.
 *
 * cumemlab model --expr 'EXPR' [--expr 'EXPR2' ...]: the model's view of a
 * pattern the user describes as the element index each thread reads (or
 * writes), one record per expression. The launch is a 1-D grid of
 * (bdx x bdy) blocks covering `threads` threads; thread i accesses element
 * EXPR of an array of n elements of `elem` bytes starting `base` bytes past
 * a 128-byte boundary (--op copy: reads element SRC, default i, and writes
 * element EXPR). Threads whose index falls outside 0..n-1 are treated as
 * guarded off (inactive), the way a kernel's `if (idx < n)` would, and
 * counted. With --show-kernel it prints the CUDA C kernel that run --expr
 * would compile instead (include/cumemlab/expr_kernel.h).
 *
 * cumemlab run --expr 'EXPR' ... (and run expr): the expr experiment
 * (src/experiments/expr/expr.c) through the run engine: each expression's
 * kernel compiled with NVRTC, run, verified and counted beside the model of
 * that kernel. There no thread is ever guarded off: an expression whose
 * index leaves the arrays is refused before anything is compiled (exit 2,
 * one line naming the expression, the range it reaches and the limit).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "core/random.h"
#include "cumemlab/expr.h"
#include "cumemlab/expr_kernel.h"
#include "experiments/expr/expr.h"
#include "experiments/expr/expr_runs.h"
#include "lab/common.h"
#include "lab/lab.h"
#include "lab/progress.h"

static const char *const elem_choices[] = {"1", "2", "4", "8", "16", NULL};
static const char *const op_choices[] = {"load", "store", "copy", NULL};
static const char *const space_choices[] = {"global", "shared", "constant", "local", NULL};
static const char *const path_choices[] = {"auto", "ca", "cg", "nc", "cs", "wb", NULL};

/* The options of `model --expr`, one value each. */
typedef struct expr_settings {
    int64_t elem, n, threads, bdx, bdy, op, space, base, path;
} expr_settings;

#define EXPR_FIELD(m) CML_FIELD(expr_settings, m), NULL
static const cml_param_def expr_params[] = {
    {"elem", "bytes per element (access width)", 0, 0, "4", elem_choices, 0, EXPR_FIELD(elem)},
    {"n", "elements in the array (0: as many as threads)", 0, (int64_t)1 << 40, "0", NULL, 0,
     EXPR_FIELD(n)},
    {"threads", "threads launched (0: global, sized by --where/--size; shared, constant and "
                "local 2^20)",
     0, (int64_t)1 << 30, "0", NULL, 0, EXPR_FIELD(threads)},
    {"bdx", "block width (threads in x)", 1, 1024, "256", NULL, 0, EXPR_FIELD(bdx)},
    {"bdy", "block height (threads in y)", 1, 1024, "1", NULL, 0, EXPR_FIELD(bdy)},
    {"op", "load, store or copy (reads --src, writes EXPR)", 0, 0, "load", op_choices, 0,
     EXPR_FIELD(op)},
    {"space", "memory space", 0, 0, "global", space_choices, 0, EXPR_FIELD(space)},
    {"base", "byte offset of the array from a 128-byte boundary", 0, 4096, "0", NULL, 0,
     EXPR_FIELD(base)},
    {"path", "global path: loads ca|cg|nc|cs, stores wb|cg|cs (auto: ca, wb)", 0, 0, "auto",
     path_choices, 0, EXPR_FIELD(path)},
};
enum { P_THREADS = 2, P_PATH = 8 }; /* threads: its range; path: recorded only when given */

/* Not in the registry: a row only so that option messages name it. */
static const cml_experiment expr_pseudo = {
    .key = "model --expr",
    .title = "Index expression",
    .options = expr_params,
    .noptions = CML_COUNT(expr_params),
    .settings_size = sizeof(expr_settings),
};

typedef struct expr_args {
    const cml_expr *e, *src;
    uint64_t n, threads, elem, base;
    uint64_t bdx, bdy, blocks;
    cml_space space;
    cml_op op;
    int copy;
    cml_cache cache;
    int failed;
    cml_expr_error err;
    uint64_t fail_thread;
} expr_args;

/* The variables of thread i of the launch (a 1-D grid of bdx x bdy). */
static void thread_vars(const expr_args *a, uint64_t i, cml_expr_vars *v)
{
    const uint64_t block = a->bdx * a->bdy, t = i % block;
    const cml_expr_vars x = {(int64_t)i,      (int64_t)(t % a->bdx), (int64_t)(t / a->bdx),
                             (int64_t)(i / block), 0,                (int64_t)a->bdx,
                             (int64_t)a->bdy, (int64_t)a->blocks,    1,
                             (int64_t)(t % CML_WARP_SIZE),           (int64_t)a->n};
    *v = x;
}

/* Thread i's index and source (i without --src); CML_EINVAL with a->err
 * filled when an evaluation fails. */
static cml_status thread_indices(expr_args *a, uint64_t i, int64_t *idx, int64_t *s)
{
    cml_expr_vars v;
    thread_vars(a, i, &v);
    *s = (int64_t)i;
    if (cml_expr_eval(a->e, &v, idx, &a->err) != CML_OK ||
        (a->src && cml_expr_eval(a->src, &v, s, &a->err) != CML_OK))
        return CML_EINVAL;
    return CML_OK;
}

/* Whether a thread with these indices is guarded off (an index outside
 * 0..n-1: inactive, as a kernel's `if` would leave it). */
static int guarded(const expr_args *a, int64_t idx, int64_t s)
{
    return idx < 0 || (uint64_t)idx >= a->n || (a->copy && (s < 0 || (uint64_t)s >= a->n));
}

static void expr_mirror(const cml_thread *t, const void *vargs, cml_emitter *em)
{
    expr_args *a = (expr_args *)vargs; /* the tracer runs threads one by one */
    if (a->failed)
        return;
    uint64_t per_block = (uint64_t)t->bdim.x * t->bdim.y;
    uint64_t i = ((uint64_t)t->bid.y * t->gdim.x + t->bid.x) * per_block +
                 (uint64_t)t->tid.y * t->bdim.x + t->tid.x;
    if (i >= a->threads)
        return;
    int64_t idx, s;
    if (thread_indices(a, i, &idx, &s) != CML_OK) {
        a->failed = 1;
        a->fail_thread = i;
        return;
    }
    if (guarded(a, idx, s))
        return;
    uint64_t at = a->space == CML_SPACE_GLOBAL ? cml_array_base(0) + a->base : a->base;
    if (a->copy) {
        /* read element s of the source, write element idx of the destination */
        cml_emit(em, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, (unsigned)a->elem,
                 at + (uint64_t)s * a->elem);
        cml_emit(em, 1, CML_SPACE_GLOBAL, CML_OP_STORE, a->cache, (unsigned)a->elem,
                 cml_array_base(1) + a->base + (uint64_t)idx * a->elem);
        return;
    }
    cml_emit(em, 0, a->space, a->op, a->cache, (unsigned)a->elem, at + (uint64_t)idx * a->elem);
}

/* --block X or XxY (each side a value or a list) sets bdx and bdy. */
static int apply_block(const char *value, cml_param_values *pv)
{
    char x[256], y[256] = "1";
    const char *sep = strchr(value, 'x');
    size_t xl = sep ? (size_t)(sep - value) : strlen(value);
    if (xl == 0 || xl >= sizeof x || (sep && (!sep[1] || strlen(sep + 1) >= sizeof y))) {
        fprintf(stderr, "cumemlab: --block: expected N or NxM (e.g. 256 or 32x8), got '%s'\n",
                value);
        return CML_EXIT_USAGE;
    }
    memcpy(x, value, xl);
    x[xl] = '\0';
    if (sep)
        snprintf(y, sizeof y, "%s", sep + 1);
    /* The message names --block, which the user typed, not the --bdx and
     * --bdy it sets. */
    char err[256];
    if (cml_param_set(pv, "bdx", x, err, sizeof err) ||
        cml_param_set(pv, "bdy", y, err, sizeof err)) {
        fprintf(stderr, "cumemlab: --block: '%s' is not N or NxM with each side in 1..1024\n",
                value);
        return CML_EXIT_USAGE;
    }
    return CML_EXIT_OK;
}

/* The command line's settings onto pv (exp's options; --block XxY). */
static int apply_settings(const cml_cli *cli, const cml_experiment *exp, cml_param_values *pv)
{
    char err[512];
    for (int i = 0; i < cli->nsettings; i++) {
        const cml_setting *s = &cli->settings[i];
        /* "--name value", or "name=value" as typed */
        char name[64];
        const char *value = s->value;
        if (!value) {
            const char *eq = strchr(s->name, '=');
            snprintf(name, sizeof name, "%.*s", (int)(eq - s->name), s->name);
            value = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", s->name);
        }
        /* the experiment calls --op access (shuffle's --op is another) */
        if (exp == &cml_exp_expr && !strcmp(name, "op"))
            snprintf(name, sizeof name, "access");
        int rc = CML_EXIT_OK;
        if (!strcmp(name, "block")) {
            rc = apply_block(value, pv);
        } else if (cml_lab_set_option(exp, pv, name, value, NULL, err, sizeof err)) {
            fprintf(stderr, "cumemlab: %s\n", err);
            rc = CML_EXIT_USAGE;
        }
        if (rc)
            return rc;
    }
    return CML_EXIT_OK;
}

/* One value per option, into the settings struct. */
static int single_values(const cml_param_values *pv, expr_settings *out)
{
    for (size_t i = 0; i < pv->ndefs; i++) {
        if (pv->list[i].count != 1) {
            fprintf(stderr, "cumemlab: --%s: one value expected with model --expr\n",
                    pv->defs[i].name);
            return 0;
        }
        *(int64_t *)(void *)((char *)out + pv->defs[i].field - 1) = pv->list[i].v[0];
    }
    return 1;
}

/* Parse one expression; on error a message with a caret under the place. */
static int parse_or_say(const char *opt, const char *text, cml_expr **out)
{
    cml_expr_error perr;
    if (cml_expr_parse(text, out, &perr) == CML_OK)
        return 1;
    char shown[8192];
    cml_expr_format_error(text, &perr, shown, sizeof shown);
    fprintf(stderr, "cumemlab: %s: %s\n%s\n", opt, perr.message, shown);
    return 0;
}

/* The cache operator of --path for the operation; 0 with a message when
 * the path is not one of the operation's. */
static int path_cache(const expr_settings *set, cml_cache *cache)
{
    static const cml_cache caches[] = {CML_CACHE_CA, CML_CACHE_CA, CML_CACHE_CG,
                                       CML_CACHE_NC, CML_CACHE_CS, CML_CACHE_CA};
    const int load = set->op == 0;
    if ((load && set->path == 5) || (!load && (set->path == 1 || set->path == 3))) {
        fprintf(stderr, "cumemlab: --path %s: %s\n", path_choices[set->path],
                load ? "a store path (loads take ca, cg, nc or cs)"
                     : "a load path (stores take wb, cg or cs)");
        return 0;
    }
    *cache = caches[set->path];
    return 1;
}

static const cml_space spaces[] = {CML_SPACE_GLOBAL, CML_SPACE_SHARED, CML_SPACE_CONSTANT,
                                   CML_SPACE_LOCAL};

/* --show-kernel: the CUDA C source of each expression's kernel. */
static int show_kernels(const cml_cli *cli, cml_expr **es, const cml_expr *src,
                        const expr_settings *set, cml_cache cache)
{
    for (int k = 0; k < cli->nexprs; k++) {
        cml_expr_kernel kern = {es[k], src, (cml_expr_op)set->op, spaces[set->space], cache,
                                1u << set->elem};
        char err[256];
        if (cml_expr_kernel_check(&kern, err, sizeof err) != CML_OK) {
            fprintf(stderr, "cumemlab: --show-kernel: %s\n", err);
            return CML_EXIT_USAGE;
        }
        char *source = NULL;
        if (cml_expr_kernel_source(&kern, &source) != CML_OK) {
            fprintf(stderr, "cumemlab: --show-kernel: out of memory\n");
            return CML_EXIT_FAIL;
        }
        if (cli->nexprs > 1)
            printf("%s/* expression %d of %d */\n", k ? "\n" : "", k + 1, cli->nexprs);
        fputs(source, stdout);
        free(source);
    }
    return CML_EXIT_OK;
}

/* Threads left inactive by the guard: exact, or (half > 0) estimated. */
typedef struct inactive_count {
    uint64_t threads;
    double half; /* the estimate's half-width at CML_EXP_SAMPLE_CONFIDENCE */
} inactive_count;

/* Threads whose indices are evaluated at most to count the inactive ones;
 * beyond, a uniform sample of them. */
#define COUNT_THREADS ((uint64_t)1 << 21)
#define SAMPLE_THREADS ((uint64_t)1 << 16)

/*
 * The inactive threads of a launch the model did not walk block by block:
 * none when the shapes bound every index inside 0..n-1; else every thread
 * evaluated (few), or a uniform sample of threads (with replacement) and
 * Hoeffding's bound. CML_EINVAL with a->failed set when an evaluation
 * fails.
 */
static cml_status count_inactive(expr_args *a, const cml_expr_shape *sh, unsigned nx,
                                 inactive_count *out)
{
    out->threads = 0;
    out->half = 0.0;
    int inside = 1;
    for (unsigned k = 0; k < nx; k++)
        inside &= sh[k].bounded && sh[k].lo >= 0 && (uint64_t)sh[k].hi < a->n;
    if (inside)
        return CML_OK;
    const int all = a->threads <= COUNT_THREADS;
    const uint64_t m = all ? a->threads : SAMPLE_THREADS;
    uint64_t state = 0xC0FFEE, out_n = 0;
    for (uint64_t j = 0; j < m; j++) {
        const uint64_t i = all ? j : cml_mix64(state++) % a->threads;
        int64_t idx, s;
        if (thread_indices(a, i, &idx, &s) != CML_OK) {
            a->failed = 1;
            a->fail_thread = i;
            return CML_EINVAL;
        }
        out_n += (uint64_t)guarded(a, idx, s);
    }
    if (all) {
        out->threads = out_n;
        return CML_OK;
    }
    out->threads = (uint64_t)((double)out_n * (double)a->threads / (double)m + 0.5);
    out->half = (double)a->threads * sqrt(log(2.0 / (1.0 - CML_EXP_SAMPLE_CONFIDENCE)) /
                                          (2.0 * (double)m));
    return CML_OK;
}

/* Blocks traced one by one at most, in threads, on the exact path (the
 * blocks whose threads the guard splits). */
#define SINGLE_THREADS ((uint64_t)1 << 20)

/*
 * The model of the launch into rec: exact from a few blocks when the index
 * (and source) are affine in the block (cml_expr_shape_of; the blocks that
 * the guard splits traced one by one); else the whole walk when the grid
 * is small, a sample of its warps when it is not. An evaluation that fails
 * in block 0 is found by the shape, later ones by the walk or the sample.
 */
static cml_status model_launch(expr_args *a, cml_record *rec, inactive_count *inactive)
{
    const uint64_t block = a->bdx * a->bdy;
    const cml_dim3 grid = cml_dim1(a->blocks), shape = cml_dim2(a->bdx, a->bdy);
    const unsigned nx = a->copy ? 2u : 1u;
    int64_t *first = malloc(2 * block * sizeof *first);
    if (!first)
        return CML_ENOMEM;
    const cml_expr_launch l = {a->bdx, a->bdy, a->threads, (int64_t)a->n};
    cml_expr_shape sh[2];
    memset(sh, 0, sizeof sh);
    cml_status st = cml_expr_shape_of(a->e, &l, first, &sh[0]);
    if (st == CML_OK && a->copy && a->src) {
        st = cml_expr_shape_of(a->src, &l, first + block, &sh[1]);
    } else if (st == CML_OK && a->copy) { /* the source is i */
        const uint64_t T = a->threads < block ? a->threads : block;
        for (uint64_t t = 0; t < T; t++)
            first[block + t] = (int64_t)t;
        sh[1].affine = sh[1].bounded = 1;
        sh[1].step = (int64_t)block;
        sh[1].lo = 0;
        sh[1].hi = (int64_t)a->threads - 1;
    }
    uint64_t at = UINT64_MAX;
    for (unsigned k = 0; st == CML_OK && k < nx; k++)
        if (sh[k].fails && sh[k].fail_thread < at)
            at = sh[k].fail_thread;
    if (st == CML_OK && at != UINT64_MAX) {
        /* the first thread to fail: the evaluator says why */
        int64_t idx, s;
        thread_indices(a, at, &idx, &s);
        a->failed = 1;
        a->fail_thread = at;
        free(first);
        return CML_EINVAL;
    }
    const cml_expr_walk w[2] = {{first, sh[0].step}, {first + block, sh[1].step}};
    cml_exp_axis axis;
    uint64_t out = 0;
    if (st == CML_OK && sh[0].affine && sh[nx - 1u].affine &&
        cml_expr_runs(w, nx, block, a->threads, a->n, a->elem, SINGLE_THREADS / block + 1u,
                      &axis, &out) == CML_OK) {
        const cml_exp_axis axes[3] = {axis, cml_exp_axis_ends(1, 0, 1, 0),
                                      cml_exp_axis_ends(1, 0, 1, 0)};
        st = cml_exp_trace_axes(rec, grid, shape, axes, expr_mirror, a, NULL);
        inactive->threads = out;
    } else if (st == CML_OK) {
        const cml_exp_sample_kind copy[2] = {{CML_SPACE_GLOBAL, CML_OP_LOAD, (unsigned)a->elem, 1},
                                             {CML_SPACE_GLOBAL, CML_OP_STORE, (unsigned)a->elem, 1}};
        const cml_exp_sample_kind one = {a->space, a->op, (unsigned)a->elem, 1};
        st = cml_exp_trace_sample(rec, grid, shape, expr_mirror, a, a->copy ? copy : &one,
                                  a->copy ? 2u : 1u, CML_EXP_SAMPLE_WARPS);
        if (st == CML_OK && !a->failed)
            st = count_inactive(a, sh, nx, inactive);
    }
    free(first);
    return st;
}

/* One expression's record: the model of its access pattern. */
static int model_one(const cml_cli *cli, int k, const cml_expr *e, const cml_expr *src,
                     const expr_settings *set, const cml_param_values *pv, cml_cache cache,
                     cml_results *r)
{
    expr_args a;
    memset(&a, 0, sizeof a);
    a.e = e;
    a.src = src;
    a.elem = (uint64_t)1 << set->elem;
    a.threads = (uint64_t)set->threads;
    a.n = (uint64_t)set->n;
    a.base = (uint64_t)set->base;
    a.copy = set->op == 2;
    a.op = set->op == 0 ? CML_OP_LOAD : CML_OP_STORE;
    a.space = spaces[set->space];
    a.cache = cache;
    const uint64_t bdx = (uint64_t)set->bdx, bdy = (uint64_t)set->bdy;
    char variant[96];
    snprintf(variant, sizeof variant, "%.92s", cli->exprs[k]);
    cml_record *rec = cml_results_add(r, "expr", variant);
    if (!rec)
        return CML_EXIT_FAIL;
    /* The expression's text as the label of its place, so that a row names it. */
    char label[32];
    size_t tl = strlen(cli->exprs[k]);
    if (tl < sizeof label)
        snprintf(label, sizeof label, "%s", cli->exprs[k]);
    else
        snprintf(label, sizeof label, "%.28s...", cli->exprs[k]);
    cml_record_add_param(rec, "expr", k, label);
    for (size_t i = 0; i < pv->ndefs; i++) {
        if (i == P_PATH && !pv->list[i].given)
            continue;
        int64_t v = *(const int64_t *)(const void *)((const char *)set + expr_params[i].field - 1);
        cml_record_add_param(rec, expr_params[i].name, v, cml_param_choice(&expr_params[i], v));
    }
    a.bdx = bdx;
    a.bdy = bdy;
    a.blocks = cml_div_up(a.threads, bdx * bdy);
    inactive_count inactive = {0, 0.0};
    cml_status st = model_launch(&a, rec, &inactive);
    if (a.failed) {
        fprintf(stderr, "cumemlab: --expr %s: at thread %llu: %s\n", cli->exprs[k],
                (unsigned long long)a.fail_thread, a.err.message);
        return CML_EXIT_USAGE;
    }
    if (st != CML_OK) {
        fprintf(stderr, "cumemlab: --expr %s: %s%s\n", cli->exprs[k], cml_status_str(st),
                st == CML_EMISALIGNED ? " (an address is not a multiple of --elem)" : "");
        return st == CML_ENOMEM ? CML_EXIT_FAIL : CML_EXIT_USAGE;
    }
    uint64_t accessed = a.threads - inactive.threads;
    rec->bytes_read = a.op == CML_OP_LOAD || a.copy ? accessed * a.elem : 0;
    rec->bytes_written = a.op == CML_OP_STORE ? accessed * a.elem : 0;
    cml_record_add_extra(rec, "inactive", (double)inactive.threads, "threads");
    const cml_class pattern = cml_class_of(a.space, a.op);
    char why[384], sampled[256] = "", left[160] = "";
    cml_exp_explain(rec, pattern, why, sizeof why);
    cml_exp_sample_note(rec, pattern, sampled, sizeof sampled);
    if (inactive.threads && inactive.half > 0)
        snprintf(left, sizeof left, " About %llu thread(s) (+-%.0f, from a sample of threads) had "
                 "an index outside 0..%llu and were left inactive.",
                 (unsigned long long)inactive.threads, inactive.half,
                 (unsigned long long)(a.n - 1));
    else if (inactive.threads)
        snprintf(left, sizeof left, " %llu thread(s) had an index outside 0..%llu and were left "
                 "inactive.", (unsigned long long)inactive.threads,
                 (unsigned long long)(a.n - 1));
    cml_record_finding(rec, "%s%s%s", why, left, sampled);
    return CML_EXIT_OK;
}

int cml_cmd_expr(const cml_cli *cli)
{
    if (!cli->nexprs) {
        fprintf(stderr, "cumemlab: --%s: give the expression with --expr EXPR\n",
                cli->show_kernel ? "show-kernel" : "src");
        return CML_EXIT_USAGE;
    }
    cml_param_values pv;
    char err[512];
    if (cml_param_defaults(expr_params, expr_pseudo.noptions, &pv, err, sizeof err))
        return CML_EXIT_FAIL;
    int rc = apply_settings(cli, &expr_pseudo, &pv);
    if (rc)
        return rc;
    if (cli->npos) {
        fprintf(stderr, "cumemlab: model --expr takes no experiment name ('%s')\n", cli->pos[0]);
        return CML_EXIT_USAGE;
    }
    expr_settings set;
    if (!single_values(&pv, &set))
        return CML_EXIT_USAGE;
    if (cli->src && set.op != 2) {
        fprintf(stderr, "cumemlab: --src: only with --op copy\n");
        return CML_EXIT_USAGE;
    }
    cml_cache cache;
    if (!path_cache(&set, &cache))
        return CML_EXIT_USAGE;

    cml_expr *es[CML_CLI_MAX_EXPRS] = {NULL}, *src = NULL;
    rc = CML_EXIT_OK;
    for (int k = 0; k < cli->nexprs && !rc; k++)
        if (!parse_or_say("--expr", cli->exprs[k], &es[k]))
            rc = CML_EXIT_USAGE;
    if (!rc && cli->src && !parse_or_say("--src", cli->src, &src))
        rc = CML_EXIT_USAGE;
    if (!rc && cli->show_kernel)
        rc = show_kernels(cli, es, src, &set, cache);
    if (rc || cli->show_kernel)
        goto done;

    /* Recorded as used: the threads run --expr would launch (the size
     * follows --where and --size, as the streaming experiments' does), and
     * n "0 = as many as threads". */
    if (!set.threads) {
        cml_plan plan;
        memset(&plan, 0, sizeof plan);
        plan.where = cli->where;
        plan.size_bytes = cli->size_bytes;
        uint64_t t = cml_expr_default_threads(&plan, (int)set.space);
        if (t == 0 || t > (uint64_t)expr_params[P_THREADS].max) {
            fprintf(stderr, "cumemlab: --size %llu: %llu threads of 4 bytes, outside what model "
                    "--expr traces (1..%lld threads; --threads sets them)\n",
                    (unsigned long long)cli->size_bytes, (unsigned long long)t,
                    (long long)expr_params[P_THREADS].max);
            rc = CML_EXIT_USAGE;
            goto done;
        }
        set.threads = (int64_t)t;
    }
    set.n = set.n ? set.n : set.threads;
    uint64_t elem = (uint64_t)1 << set.elem, bdx = (uint64_t)set.bdx, bdy = (uint64_t)set.bdy;
    if (bdx * bdy > 1024) {
        fprintf(stderr, "cumemlab: --block %llux%llu: %llu threads per block (allowed 1..1024)\n",
                (unsigned long long)bdx, (unsigned long long)bdy, (unsigned long long)(bdx * bdy));
        rc = CML_EXIT_USAGE;
    } else if (spaces[set.space] == CML_SPACE_CONSTANT && set.op != 0) {
        fprintf(stderr, "cumemlab: --op %s: constant memory is read-only in kernels\n",
                op_choices[set.op]);
        rc = CML_EXIT_USAGE;
    } else if (set.op == 2 && set.space != 0) {
        fprintf(stderr, "cumemlab: --op copy: a global-memory operation (--space global)\n");
        rc = CML_EXIT_USAGE;
    } else if ((uint64_t)set.base % elem) {
        fprintf(stderr, "cumemlab: --base %llu: must be a multiple of --elem %llu (the hardware "
                "faults on misaligned accesses)\n", (unsigned long long)set.base,
                (unsigned long long)elem);
        rc = CML_EXIT_USAGE;
    }
    if (rc)
        goto done;
    cml_results r;
    cml_cli_results_init(cli, &r);
    for (int k = 0; k < cli->nexprs && !rc; k++) {
        /* "[2/16] model --expr ... 1.3 s elapsed" on a terminal past a second */
        cml_progress((size_t)k, (size_t)cli->nexprs, "model --expr");
        rc = model_one(cli, k, es[k], src, &set, &pv, cache, &r);
    }
    if (rc)
        cml_progress(0, 0, NULL); /* the line goes before a message */
    if (rc == CML_EXIT_OK)
        rc = cml_cli_emit_run(cli, &r);
    cml_results_free(&r);
done:
    for (int k = 0; k < cli->nexprs; k++)
        cml_expr_free(es[k]);
    cml_expr_free(src);
    return rc;
}

/* ---- run --expr ------------------------------------------------------- */

int cml_cmd_run_expr(const cml_cli *cli)
{
    const cml_experiment *exp = &cml_exp_expr;
    if (cli->help)
        return cml_print_experiment_help(exp);
    const cml_experiment *named = cli->npos == 1 ? cml_experiment_find(cli->pos[0]) : NULL;
    if (cli->npos > 1 || (cli->npos == 1 && named != exp)) {
        fprintf(stderr, "cumemlab: run --expr takes no other experiment ('%s')\n",
                cli->pos[cli->npos > 1 ? 1 : 0]);
        return CML_EXIT_USAGE;
    }
    if (cli->src && !cli->nexprs) {
        fprintf(stderr, "cumemlab: --src: give the expressions with --expr EXPR\n");
        return CML_EXIT_USAGE;
    }
    /* The expressions as typed, --src last: the experiment's options index
     * them (expr=0:k-1, src=k+1). Syntax errors are refused here, with a
     * caret under the place. */
    const char *list[CML_CLI_MAX_EXPRS + 1];
    size_t nlist = 0;
    for (int k = 0; k < cli->nexprs; k++) {
        cml_expr *e = NULL;
        if (!parse_or_say("--expr", cli->exprs[k], &e))
            return CML_EXIT_USAGE;
        cml_expr_free(e);
        list[nlist++] = cli->exprs[k];
    }
    char extra[64] = "";
    if (cli->src) {
        cml_expr *e = NULL;
        if (!parse_or_say("--src", cli->src, &e))
            return CML_EXIT_USAGE;
        cml_expr_free(e);
        list[nlist++] = cli->src;
    }
    if (cli->nexprs)
        snprintf(extra, sizeof extra, "expr=0:%d src=%d", cli->nexprs - 1,
                 cli->src ? cli->nexprs + 1 : 0);
    cml_param_values pv;
    char err[512];
    if (cml_lab_options(exp, extra, NULL, &pv, err, sizeof err)) {
        fprintf(stderr, "cumemlab: %s: %s\n", exp->key, err);
        return CML_EXIT_USAGE;
    }
    int rc = apply_settings(cli, exp, &pv);
    if (rc)
        return rc;

    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_lab_settings ls = cml_cli_lab_settings(cli);
    ls.exprs = nlist ? list : NULL;
    ls.nexprs = nlist;
    cml_lab lab;
    cml_lab_state got = cml_lab_open(&lab, &ls, &r);
    char why[320];
    if (got != CML_LAB_GPU) {
        /* No GPU: a refusal is still a usage error; otherwise one line. */
        rc = CML_EXIT_FAIL;
        if (got == CML_LAB_MODEL && cml_expr_check_all(&lab.plan, &pv, why, sizeof why)) {
            fprintf(stderr, "cumemlab: %s\n", why);
            rc = CML_EXIT_USAGE;
        } else if (got == CML_LAB_MODEL) {
            fprintf(stderr, "cumemlab: run %s needs a GPU: %s (cumemlab model --expr EXPR shows "
                            "the model's prediction)\n",
                    cli->nexprs ? "--expr" : "expr", lab.why);
        } else { /* a GPU is there: what stopped the run */
            fprintf(stderr, "cumemlab: run %s: %s\n", cli->nexprs ? "--expr" : "expr", lab.why);
        }
        cml_lab_close(&lab);
        cml_results_free(&r);
        return rc;
    }
    /* Every point checked before anything is compiled or run. */
    if (cml_expr_check_all(&lab.plan, &pv, why, sizeof why)) {
        fprintf(stderr, "cumemlab: %s\n", why);
        cml_lab_close(&lab);
        cml_results_free(&r);
        return CML_EXIT_USAGE;
    }
    cml_status st = cml_lab_run(&lab, exp, &pv, &r);
    cml_lab_close(&lab);
    int erc = cml_cli_emit_run(cli, &r);
    cml_results_free(&r);
    return st != CML_OK ? CML_EXIT_FAIL : erc;
}
