/*
 * cumemlab model --expr 'EXPR': the model's view of a pattern the user
 * describes as the element index each thread reads (or writes).
 *
 * The launch is a 1-D grid of (bdx x bdy) blocks covering `threads`
 * threads; thread i accesses element EXPR of an array of n elements of
 * `elem` bytes starting `base` bytes past a 128-byte boundary. Threads whose
 * index falls outside 0..n-1 are treated as guarded off (inactive), the way
 * a kernel's `if (idx < n)` would, and counted.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cumemlab/expr.h"
#include "experiments/common.h"

static const char *const elem_choices[] = {"1", "2", "4", "8", "16", NULL};
static const char *const op_choices[] = {"load", "store", NULL};
static const char *const space_choices[] = {"global", "shared", "constant", "local", NULL};

static const cml_param_def expr_params[] = {
    {"elem", "bytes per element (access width)", 0, 0, "4", elem_choices, 0},
    {"n", "elements in the array (0: as many as threads)", 0, (int64_t)1 << 40, "0", NULL, 0},
    {"threads", "threads launched", 1, (int64_t)1 << 30, "2^20", NULL, 0},
    {"bdx", "block width (threads in x)", 1, 1024, "256", NULL, 0},
    {"bdy", "block height (threads in y)", 1, 1024, "1", NULL, 0},
    {"op", "load or store", 0, 0, "load", op_choices, 0},
    {"space", "memory space", 0, 0, "global", space_choices, 0},
    {"base", "byte offset of the array from a 128-byte boundary", 0, 4096, "0", NULL, 0},
};

static const cml_experiment expr_pseudo = {
    "model --expr", 0, "Index expression", "", expr_params,
    sizeof expr_params / sizeof expr_params[0], NULL, NULL, "",
};

typedef struct expr_args {
    const cml_expr *e;
    uint64_t n, threads, elem, base;
    cml_space space;
    cml_op op;
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
    int64_t idx;
    if (cml_expr_eval(a->e, &v, &idx, &a->err) != CML_OK) {
        a->failed = 1;
        a->fail_thread = i;
        return;
    }
    if (idx < 0 || (uint64_t)idx >= a->n) {
        a->out_of_range++;
        return;
    }
    uint64_t addr = a->base + (uint64_t)idx * a->elem;
    if (a->space == CML_SPACE_GLOBAL)
        addr += cml_array_base(0);
    cml_emit(em, 0, a->space, a->op, CML_CACHE_CA, (unsigned)a->elem, addr);
}

/* --block XxY is a convenience for --bdx X --bdy Y. */
static int apply_block(const char *value, cml_param_values *pv)
{
    char x[32], y[32] = "1";
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
        strcpy(y, sep + 1);
    char err[256];
    if (cml_param_set(pv, "bdx", x, err, sizeof err) ||
        cml_param_set(pv, "bdy", y, err, sizeof err)) {
        fprintf(stderr, "cumemlab: --block %s: %s\n", value, err);
        return CML_EXIT_USAGE;
    }
    return CML_EXIT_OK;
}

static int single_values(const cml_param_values *pv)
{
    for (size_t i = 0; i < pv->ndefs; i++)
        if (pv->list[i].count != 1) {
            fprintf(stderr, "cumemlab: --%s: one value expected with --expr\n",
                    pv->defs[i].name);
            return 0;
        }
    return 1;
}

int cml_cmd_expr(const cml_cli *cli)
{
    cml_param_values pv;
    char err[512];
    if (cml_param_defaults(expr_params, expr_pseudo.nparams, &pv, err, sizeof err))
        return CML_EXIT_FAIL;
    for (int i = 0; i < cli->nsettings; i++) {
        const cml_setting *s = &cli->settings[i];
        int rc;
        if (s->value && !strcmp(s->name, "block"))
            rc = apply_block(s->value, &pv);
        else if (s->value) {
            char item[600];
            snprintf(item, sizeof item, "%s=%s", s->name, s->value);
            rc = cml_cli_apply_text(item, &expr_pseudo, &pv, NULL);
        } else
            rc = cml_cli_apply_text(s->name, &expr_pseudo, &pv, NULL);
        if (rc)
            return rc;
    }
    if (cli->npos) {
        fprintf(stderr, "cumemlab: model --expr takes no experiment name ('%s')\n", cli->pos[0]);
        return CML_EXIT_USAGE;
    }
    if (!single_values(&pv))
        return CML_EXIT_USAGE;

    cml_expr *e = NULL;
    cml_expr_error perr;
    if (cml_expr_parse(cli->expr, &e, &perr) != CML_OK) {
        char shown[8192];
        cml_expr_format_error(cli->expr, &perr, shown, sizeof shown);
        fprintf(stderr, "cumemlab: --expr: %s\n%s\n", perr.message, shown);
        return CML_EXIT_USAGE;
    }
    expr_args a = {0};
    a.e = e;
    a.elem = (uint64_t)1 << cml_param_first(&pv, "elem");
    a.threads = (uint64_t)cml_param_first(&pv, "threads");
    a.n = (uint64_t)cml_param_first(&pv, "n");
    if (a.n == 0)
        a.n = a.threads;
    a.base = (uint64_t)cml_param_first(&pv, "base");
    a.op = (cml_op)cml_param_first(&pv, "op");
    static const cml_space spaces[] = {CML_SPACE_GLOBAL, CML_SPACE_SHARED, CML_SPACE_CONSTANT,
                                       CML_SPACE_LOCAL};
    a.space = spaces[cml_param_first(&pv, "space")];
    uint64_t bdx = (uint64_t)cml_param_first(&pv, "bdx"), bdy = (uint64_t)cml_param_first(&pv, "bdy");
    if (bdx * bdy > 1024) {
        fprintf(stderr, "cumemlab: --bdx x --bdy: %llu threads per block (allowed 1..1024)\n",
                (unsigned long long)(bdx * bdy));
        cml_expr_free(e);
        return CML_EXIT_USAGE;
    }
    if (a.space == CML_SPACE_CONSTANT && a.op == CML_OP_STORE) {
        fprintf(stderr, "cumemlab: --op store: constant memory is read-only in kernels\n");
        cml_expr_free(e);
        return CML_EXIT_USAGE;
    }
    if (a.base % a.elem) {
        fprintf(stderr, "cumemlab: --base %llu: must be a multiple of --elem %llu (the hardware "
                "faults on misaligned accesses)\n", (unsigned long long)a.base,
                (unsigned long long)a.elem);
        cml_expr_free(e);
        return CML_EXIT_USAGE;
    }

    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_record *rec = cml_results_add(&r, "expr", cli->expr);
    int rc = CML_EXIT_OK;
    if (!rec) {
        rc = CML_EXIT_FAIL;
    } else {
        for (size_t i = 0; i < pv.ndefs; i++) {
            /* record what was used: n resolved from "0 = as many as threads" */
            int64_t v = strcmp(expr_params[i].name, "n") ? pv.list[i].v[0] : (int64_t)a.n;
            cml_record_add_param(rec, expr_params[i].name, v,
                                 cml_param_choice(&expr_params[i], v));
        }
        uint64_t blocks = cml_div_up(a.threads, bdx * bdy);
        cml_status st = cml_exp_trace(rec, cml_dim1(blocks), cml_dim2(bdx, bdy), expr_mirror, &a);
        if (a.failed) {
            fprintf(stderr, "cumemlab: --expr: at thread %llu: %s\n",
                    (unsigned long long)a.fail_thread, a.err.message);
            rc = CML_EXIT_USAGE;
        } else if (st != CML_OK) {
            fprintf(stderr, "cumemlab: --expr: %s%s\n", cml_status_str(st),
                    st == CML_EMISALIGNED ? " (an address is not a multiple of --elem)" : "");
            rc = CML_EXIT_USAGE;
        } else {
            /* cml_exp_trace ran the mirror once per rule set */
            a.out_of_range /= CML_RULES_COUNT;
            uint64_t accessed = a.threads - a.out_of_range;
            rec->bytes_read = a.op == CML_OP_LOAD ? accessed * a.elem : 0;
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
        }
    }
    if (rc == CML_EXIT_OK)
        rc = cml_cli_emit(cli, &r);
    cml_results_free(&r);
    cml_expr_free(e);
    return rc;
}
