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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "cumemlab/expr.h"
#include "cumemlab/expr_kernel.h"
#include "experiments/common.h"
#include "experiments/expr/expr.h"
#include "lab/lab.h"

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
    cml_space space;
    cml_op op;
    int copy;
    cml_cache cache;
    uint64_t out_of_range;
    int failed;
    cml_expr_error err;
    uint64_t fail_thread;
} expr_args;

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
    cml_expr_vars v = {(int64_t)i, t->tid.x, t->tid.y, t->bid.x, t->bid.y, t->bdim.x,
                       t->bdim.y, t->gdim.x, t->gdim.y, t->lane, (int64_t)a->n};
    int64_t idx, s = (int64_t)i;
    if (cml_expr_eval(a->e, &v, &idx, &a->err) != CML_OK ||
        (a->src && cml_expr_eval(a->src, &v, &s, &a->err) != CML_OK)) {
        a->failed = 1;
        a->fail_thread = i;
        return;
    }
    if (idx < 0 || (uint64_t)idx >= a->n || (a->copy && (s < 0 || (uint64_t)s >= a->n))) {
        a->out_of_range++;
        return;
    }
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
    uint64_t blocks = cml_div_up(a.threads, bdx * bdy);
    cml_status st = cml_exp_trace(rec, cml_dim1(blocks), cml_dim2(bdx, bdy), expr_mirror, &a);
    if (a.failed) {
        fprintf(stderr, "cumemlab: --expr %s: at thread %llu: %s\n", cli->exprs[k],
                (unsigned long long)a.fail_thread, a.err.message);
        return CML_EXIT_USAGE;
    }
    if (st != CML_OK) {
        fprintf(stderr, "cumemlab: --expr %s: %s%s\n", cli->exprs[k], cml_status_str(st),
                st == CML_EMISALIGNED ? " (an address is not a multiple of --elem)" : "");
        return CML_EXIT_USAGE;
    }
    /* cml_exp_trace ran the mirror once per rule set */
    a.out_of_range /= CML_RULES_COUNT;
    uint64_t accessed = a.threads - a.out_of_range;
    rec->bytes_read = a.op == CML_OP_LOAD || a.copy ? accessed * a.elem : 0;
    rec->bytes_written = a.op == CML_OP_STORE ? accessed * a.elem : 0;
    cml_record_add_extra(rec, "inactive", (double)a.out_of_range, "threads");
    char why[384];
    cml_exp_explain(rec, cml_class_of(a.space, a.op), why, sizeof why);
    if (a.out_of_range)
        cml_record_finding(rec, "%s %llu thread(s) had an index outside 0..%llu and were "
                           "left inactive.", why, (unsigned long long)a.out_of_range,
                           (unsigned long long)(a.n - 1));
    else
        cml_record_finding(rec, "%s", why);
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
    for (int k = 0; k < cli->nexprs && !rc; k++)
        rc = model_one(cli, k, es[k], src, &set, &pv, cache, &r);
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
