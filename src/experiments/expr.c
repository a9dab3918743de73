/*
 * Experiment 18: your own access pattern, measured (expr.h). This file: the
 * options, the built-in set, resolving a point, the model's mirror of the
 * generated kernel and the record; expr_gpu.c compiles, runs and checks.
 *
 * The kernel (src/model/expr_codegen.c, one thread per i < threads of a
 * 1-D grid of bdx x bdy blocks), and what the mirror emits for it, in the
 * kernel's order (site numbers in brackets):
 *   global load   out[i] = fold(src[idx])      ld src [0], st out 8 B [1]
 *   global store  dst[idx] = value(idx)        st dst [0]
 *   global copy   dst[idx] = src[s]            ld src [0], st dst [1]
 *   constant load out[i] = fold(const[idx])    ld const [0] (16-byte elements:
 *                                              two 8-byte LDC [0], [6]), st out
 *                                              8 B [1]
 *   shared load   tile[j] = src[j], every j < tile_len, by the whole block
 *                 (ld src [2], st tile [3]); then out[i] = fold(tile[idx])
 *                 (ld tile [0], st out 8 B [1])
 *   shared store  tile[j] = poison, every j (st tile [3]); tile[idx] =
 *                 value(idx) (st tile [0]); then dst[block's tile + j] =
 *                 tile[j], every j (ld tile [4], st dst [5])
 * Threads with i >= threads skip everything but the tile loops. The guard
 * idx < n never fires in a run: resolving refuses a point where any
 * running thread's index falls outside 0..n-1 (the bounds rule, below and
 * in docs/experiments/expr.md).
 */
#include "experiments/expr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/common.h"
#include "gpu/host_memory.h"

static const char *const path_choices[] = {"auto", "ca", "cg", "nc", "cs", "wb", NULL};
static const char *const op_choices[] = {"load", "store", "copy", NULL};
static const char *const space_choices[] = {"global", "shared", "constant", NULL};
static const char *const elem_choices[] = {"1", "2", "4", "8", "16", NULL};
static const cml_space spaces[] = {CML_SPACE_GLOBAL, CML_SPACE_SHARED, CML_SPACE_CONSTANT};
enum { SP_GLOBAL = 0, SP_SHARED, SP_CONSTANT };

/* The built-in set: the patterns `validate` compares with the counters,
 * each with its own operation, space and block. */
typedef struct builtin {
    const char *name, *text;
    cml_expr_op op;
    int space;
    unsigned bdx, bdy;
} builtin;

static const builtin builtins[] = {
    {"contiguous", "i", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"offset 11", "i + 11", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 2", "i*2", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 4", "i*4", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 8", "i*8", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 16", "i*16", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"stride 32", "i*32", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"padded 33", "(i%32)*33", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"broadcast", "0", CML_EXPR_LOAD, SP_GLOBAL, 256, 1},
    {"transposed store", "ty + tx*bdy", CML_EXPR_STORE, SP_GLOBAL, 32, 8},
    {"contiguous store", "i", CML_EXPR_STORE, SP_GLOBAL, 256, 1},
    {"copy to stride 2", "i*2", CML_EXPR_COPY, SP_GLOBAL, 256, 1},
    {"shared column", "tx*32", CML_EXPR_LOAD, SP_SHARED, 32, 8},
    {"shared padded column", "tx*33", CML_EXPR_LOAD, SP_SHARED, 32, 8},
    {"shared column store", "tx*32", CML_EXPR_STORE, SP_SHARED, 32, 8},
    {"constant broadcast", "0", CML_EXPR_LOAD, SP_CONSTANT, 256, 1},
    {"constant per lane", "lane", CML_EXPR_LOAD, SP_CONSTANT, 256, 1},
};
/* The expr option's default, "0:<count - 1>": tests/test_expr_experiment.c
 * checks it against the table. */
#define BUILTIN_ALL "0:16"

size_t cml_expr_builtin_count(void)
{
    return CML_COUNT(builtins);
}

#define F(m) CML_FIELD(cml_expr_settings, m)
static const cml_param_def expr_params[] = {
    {"expr", "the expression: the command line's --expr (it sets this), else the built-in set",
     0, 63, BUILTIN_ALL, NULL, 0, F(expr), NULL},
    {"src", "copy: 1 + the --src expression's place in that list (0: each thread reads i)", 0,
     64, "0", NULL, CML_PARAM_NOVARIANT, F(src), "op=copy"},
    {"path", "global path: loads ca|cg|nc|cs, stores wb|cg|cs (auto: ca, wb)", 0, 0, "auto",
     path_choices, 0, F(path), "space=global"},
    {"op", "load, store or copy (the built-in set: each pattern's own)", 0, 0, "load",
     op_choices, 0, F(op), NULL},
    {"space", "global, shared or constant (the built-in set: each pattern's own)", 0, 0,
     "global", space_choices, 0, F(space), NULL},
    {"elem", "bytes per element", 0, 0, "4", elem_choices, 0, F(elem), NULL},
    {"bdx", "block width, threads in x (the built-in set: each pattern's own)", 1, 1024, "256",
     NULL, 0, F(bdx), NULL},
    {"bdy", "block height, threads in y (the built-in set: each pattern's own)", 1, 1024, "1",
     NULL, 0, F(bdy), NULL},
    {"threads", "threads launched (0: global, sized by --where/--size; shared and constant 2^20)",
     0, (int64_t)1 << 31, "0", NULL, CML_PARAM_NOVARIANT, F(threads), NULL},
    {"n", "elements per array; every index must lie in 0..n-1 (0: the range reached)", 0,
     (int64_t)1 << 40, "0", NULL, CML_PARAM_NOVARIANT, F(n), NULL},
    {"base", "byte offset of the indexed arrays from a 128-byte boundary (global)", 0, 4096,
     "0", NULL, 0, F(base), NULL},
};

/* ---- resolving a point ------------------------------------------------ */

/* The range pass's findings, kept for the same inputs (the command line
 * checks every point before the run, which resolves them again). */
typedef struct range_key {
    char *text, *src_text;
    int64_t op, space, elem, bdx, bdy, threads, n_eval;
} range_key;

typedef struct range_result {
    int64_t lo, hi, src_lo, src_hi;
    int uniform;
    int failed;           /* an evaluation error at thread `at` */
    uint64_t at;
    char message[128];
    int src_failed;       /* ... in the source expression */
} range_result;

#define RANGE_MEMO 32
static struct {
    range_key key;
    range_result res;
} memo[RANGE_MEMO];
static size_t memo_next;

static int key_equal(const range_key *a, const range_key *b)
{
    return a->op == b->op && a->space == b->space && a->elem == b->elem && a->bdx == b->bdx &&
           a->bdy == b->bdy && a->threads == b->threads && a->n_eval == b->n_eval && a->text &&
           b->text && !strcmp(a->text, b->text) &&
           ((!a->src_text && !b->src_text) ||
            (a->src_text && b->src_text && !strcmp(a->src_text, b->src_text)));
}

static char *dup_text(const char *s)
{
    if (!s)
        return NULL;
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

static void memo_put(const range_key *k, const range_result *r)
{
    size_t at = memo_next++ % RANGE_MEMO;
    free(memo[at].key.text);
    free(memo[at].key.src_text);
    memo[at].key = *k;
    memo[at].key.text = dup_text(k->text);
    memo[at].key.src_text = dup_text(k->src_text);
    memo[at].res = *r;
    if (!memo[at].key.text || (k->src_text && !memo[at].key.src_text)) {
        free(memo[at].key.text); /* out of memory: just not remembered */
        free(memo[at].key.src_text);
        memset(&memo[at], 0, sizeof memo[at]);
    }
}

/* The variables of thread i of the point's launch (1-D grid, gdy = 1). */
static void thread_vars(const cml_expr_point *p, uint64_t i, int64_t n, cml_expr_vars *v)
{
    uint64_t b = i / p->block, t = i % p->block;
    v->i = (int64_t)i;
    v->tx = (int64_t)(t % p->bdx);
    v->ty = (int64_t)(t / p->bdx);
    v->bx = (int64_t)b;
    v->by = 0;
    v->bdx = (int64_t)p->bdx;
    v->bdy = (int64_t)p->bdy;
    v->gdx = (int64_t)p->grid;
    v->gdy = 1;
    v->lane = (int64_t)(t & 31u);
    v->n = n;
}

int64_t cml_expr_point_eval(const cml_expr_point *p, const cml_expr *e, uint64_t i)
{
    cml_expr_vars v;
    thread_vars(p, i, (int64_t)p->n, &v);
    int64_t x = 0;
    if (cml_expr_eval(e, &v, &x, NULL) != CML_OK)
        return -1; /* cannot happen after resolving; -1 is outside every array */
    return x;
}

/*
 * Evaluate the index (and a copy's source) for every running thread: the
 * range each reaches, and whether every full block is block 0 shifted by
 * whole 128-byte lines in every array it touches (then the model traces
 * one block for all of them: exactly the same totals, in O(block) work).
 */
static cml_status range_pass(const cml_expr_point *p, int copy, int64_t n_eval, range_result *r)
{
    memset(r, 0, sizeof *r);
    r->lo = r->src_lo = INT64_MAX;
    r->hi = r->src_hi = INT64_MIN;
    r->uniform = 1;
    int64_t *first = malloc(2 * p->block * sizeof *first);
    if (!first)
        return CML_ENOMEM;
    int64_t *first_src = first + p->block;
    cml_expr_vars v;
    thread_vars(p, 0, n_eval, &v);
    cml_expr_error err;
    for (uint64_t b = 0; b < p->grid; b++) {
        uint64_t d = 0, ds = 0;
        v.bx = (int64_t)b;
        for (uint64_t t = 0; t < p->block; t++) {
            uint64_t i = b * p->block + t;
            if (i >= p->threads)
                break;
            v.i = (int64_t)i;
            v.tx = (int64_t)(t % p->bdx);
            v.ty = (int64_t)(t / p->bdx);
            v.lane = (int64_t)(t & 31u);
            int64_t x, s = (int64_t)i;
            if (cml_expr_eval(p->index, &v, &x, &err) != CML_OK ||
                (p->src && cml_expr_eval(p->src, &v, &s, &err) != CML_OK)) {
                r->failed = 1;
                r->src_failed = p->src && cml_expr_eval(p->index, &v, &x, NULL) == CML_OK;
                r->at = i;
                snprintf(r->message, sizeof r->message, "%s", err.message);
                free(first);
                return CML_OK;
            }
            r->lo = x < r->lo ? x : r->lo;
            r->hi = x > r->hi ? x : r->hi;
            if (copy) {
                r->src_lo = s < r->src_lo ? s : r->src_lo;
                r->src_hi = s > r->src_hi ? s : r->src_hi;
            }
            if (b == 0) {
                first[t] = x;
                first_src[t] = s;
            } else if (b < p->full_blocks && r->uniform) {
                /* shifts in modular arithmetic: no overflow, and equal
                 * shifts are equal address shifts */
                uint64_t dx = (uint64_t)x - (uint64_t)first[t];
                uint64_t dy = (uint64_t)s - (uint64_t)first_src[t];
                if (t == 0) {
                    d = dx;
                    ds = dy;
                } else if (dx != d || dy != ds) {
                    r->uniform = 0;
                }
            }
        }
        if (b > 0 && b < p->full_blocks &&
            ((d * p->elem) % CML_LINE_BYTES || (copy && (ds * p->elem) % CML_LINE_BYTES)))
            r->uniform = 0;
    }
    free(first);
    return CML_OK;
}

static uint64_t round_up(uint64_t a, uint64_t m)
{
    return cml_div_up(a, m) * m;
}

uint64_t cml_expr_mem_limit(const cml_plan *plan)
{
    size_t free_b = 0;
    if (plan && plan->gpu && cml_gpu_memory_info(plan->gpu, &free_b, NULL) == CML_OK)
        return (uint64_t)free_b / 10 * 9;
    return (uint64_t)1 << 40;
}

uint64_t cml_expr_smem_limit(const cml_plan *plan)
{
    if (plan && plan->dev && plan->dev->shared_per_block_optin)
        return plan->dev->shared_per_block_optin;
    if (plan && plan->dev && plan->dev->shared_per_block)
        return plan->dev->shared_per_block;
    return 227u * 1024u;
}

#define REFUSE(...)                                  \
    do {                                             \
        snprintf(why, len, __VA_ARGS__);             \
        return CML_EINVAL;                           \
    } while (0)

/* Parse `text` for --expr or --src; one line with the column on error. */
static cml_status parse_one(const char *opt, const char *text, cml_expr **out, char *why,
                            size_t len)
{
    cml_expr_error perr;
    if (cml_expr_parse(text, out, &perr) == CML_OK)
        return CML_OK;
    snprintf(why, len, "%s '%.60s': %s", opt, text, perr.message);
    return CML_EINVAL;
}

/* The path option against the operation: the cache operator, and the
 * resolved value (auto: ca for loads, wb for stores). */
static cml_status resolve_path(cml_expr_settings *s, cml_cache *cache, char *why, size_t len)
{
    static const cml_cache load_cache[] = {CML_CACHE_CA, CML_CACHE_CA, CML_CACHE_CG,
                                           CML_CACHE_NC, CML_CACHE_CS};
    *cache = CML_CACHE_CA;
    if (s->space != SP_GLOBAL) {
        s->path = CML_EXPR_PATH_AUTO; /* shared and constant have no paths */
        return CML_OK;
    }
    if (s->op == CML_EXPR_LOAD) {
        if (s->path == CML_EXPR_PATH_WB)
            REFUSE("--path wb: a store path (loads take ca, cg, nc or cs)");
        if (s->path == CML_EXPR_PATH_AUTO)
            s->path = CML_EXPR_PATH_CA;
        *cache = load_cache[s->path];
        return CML_OK;
    }
    if (s->path == CML_EXPR_PATH_CA || s->path == CML_EXPR_PATH_NC)
        REFUSE("--path %s: a load path (stores take wb, cg or cs)", path_choices[s->path]);
    if (s->path == CML_EXPR_PATH_AUTO)
        s->path = CML_EXPR_PATH_WB;
    *cache = s->path == CML_EXPR_PATH_CG ? CML_CACHE_CG
             : s->path == CML_EXPR_PATH_CS ? CML_CACHE_CS
                                           : CML_CACHE_CA;
    return CML_OK;
}

/* Which expression the point runs; the built-in pattern's settings. */
static cml_status pick_expression(const cml_plan *plan, cml_expr_settings *s, cml_expr_point *p,
                                  char *why, size_t len)
{
    if (plan && plan->exprs) {
        if (s->expr < 0 || (uint64_t)s->expr >= plan->nexprs)
            return CML_SKIP_POINT;
        p->text = plan->exprs[s->expr];
        if (s->op == CML_EXPR_COPY && s->src > 0) {
            if ((uint64_t)s->src > plan->nexprs)
                REFUSE("src=%lld: there are %zu expressions", (long long)s->src, plan->nexprs);
            p->src_text = plan->exprs[s->src - 1];
        }
        if (s->op != CML_EXPR_COPY)
            s->src = 0;
        return CML_OK;
    }
    if (s->expr < 0 || (uint64_t)s->expr >= CML_COUNT(builtins))
        return CML_SKIP_POINT;
    const builtin *b = &builtins[s->expr];
    p->text = b->text;
    p->name = b->name;
    s->op = b->op;
    s->space = b->space;
    s->bdx = b->bdx;
    s->bdy = b->bdy;
    s->src = 0;
    return CML_OK;
}

/* Bytes of `count` elements of `elem` bytes plus `extra`, or UINT64_MAX
 * when that does not fit in 64 bits. */
static uint64_t bytes_of(uint64_t count, uint64_t elem, uint64_t extra)
{
    if (count > (UINT64_MAX - extra) / elem)
        return UINT64_MAX;
    return count * elem + extra;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The range check: every running thread's index in 0..n-1. */
static cml_status check_range(const cml_expr_point *p, const char *opt, const char *text,
                              int64_t lo, int64_t hi, int n_fixed, const char *n_from,
                              char *why, size_t len)
{
    if (lo < 0)
        REFUSE("%s '%.60s' reaches elements %" PRId64 "..%" PRId64 ": an index below 0 (a run "
               "never guards a thread off)",
               opt, text, lo, hi);
    if (n_fixed && (uint64_t)hi >= p->n)
        REFUSE("%s '%.60s' reaches elements %" PRId64 "..%" PRId64 ", past the %" PRIu64
               " elements of the array (n, %s): every index must lie in 0..n-1",
               opt, text, lo, hi, p->n, n_from);
    return CML_OK;
}

cml_status cml_expr_point_resolve(const cml_plan *plan, uint64_t mem_limit, uint64_t smem_limit,
                                  cml_expr_settings *s, cml_expr_point *p, int *too_big,
                                  char *why, size_t len)
{
    memset(p, 0, sizeof *p);
    *too_big = 0;
    why[0] = '\0';
    cml_status st = pick_expression(plan, s, p, why, len);
    if (st != CML_OK)
        return st;
    if (parse_one("--expr", p->text, &p->index, why, len) != CML_OK ||
        (p->src_text && parse_one("--src", p->src_text, &p->src, why, len) != CML_OK))
        return CML_EINVAL;
    cml_cache cache;
    if (resolve_path(s, &cache, why, len) != CML_OK)
        return CML_EINVAL;
    p->elem = 1u << s->elem;
    p->kernel.index = p->index;
    p->kernel.src = p->src;
    p->kernel.op = (cml_expr_op)s->op;
    p->kernel.space = spaces[s->space];
    p->kernel.cache = cache;
    p->kernel.elem = p->elem;
    char kerr[160];
    if (cml_expr_kernel_check(&p->kernel, kerr, sizeof kerr) != CML_OK)
        REFUSE("%s", kerr);
    p->bdx = (uint64_t)s->bdx;
    p->bdy = (uint64_t)s->bdy;
    p->block = p->bdx * p->bdy;
    if (p->block > 1024)
        REFUSE("--bdx x --bdy: %" PRIu64 " threads per block (allowed 1..1024)", p->block);
    p->base = (uint64_t)s->base;
    if (p->base % p->elem)
        REFUSE("--base %" PRIu64 ": must be a multiple of --elem %u (the hardware faults on "
               "misaligned accesses)",
               p->base, p->elem);
    if (p->base && s->space != SP_GLOBAL)
        REFUSE("--base %" PRIu64 ": global memory only", p->base);
    if (!s->threads)
        s->threads = s->space == SP_GLOBAL ? (int64_t)cml_plan_elements(plan, 4, 2)
                                           : (int64_t)1 << 20;
    p->threads = (uint64_t)s->threads;
    p->grid = cml_div_up(p->threads, p->block);
    p->full_blocks = p->threads / p->block;
    if (p->grid > INT32_MAX)
        REFUSE("--threads %" PRIu64 ": %" PRIu64 " blocks of %" PRIu64 " threads exceed a 1-D "
               "grid",
               p->threads, p->grid, p->block);

    /* n: --n; or, for an expression that uses n, the natural size (the
     * threads; shared: the block); else the end of the range reached. */
    const unsigned n_bit = 1u << CML_EXPR_VAR_N;
    const int uses_n = ((cml_expr_vars_used(p->index) | cml_expr_vars_used(p->src)) & n_bit) != 0;
    const int n_fixed = s->n > 0 || uses_n;
    const char *n_from = s->n > 0 ? "--n" : s->space == SP_SHARED
                                                ? "the block's threads: the expression uses n"
                                                : "the threads: the expression uses n";
    int64_t n_eval = s->n > 0 ? s->n : !uses_n ? 0 : s->space == SP_SHARED ? (int64_t)p->block
                                                                          : (int64_t)p->threads;
    const int copy = s->op == CML_EXPR_COPY;
    range_key key = {(char *)p->text, (char *)p->src_text, s->op, s->space, s->elem,
                     s->bdx, s->bdy, s->threads, n_eval};
    range_result r;
    int found = 0;
    for (size_t k = 0; k < RANGE_MEMO && !found; k++)
        if (key_equal(&memo[k].key, &key)) {
            r = memo[k].res;
            found = 1;
        }
    if (!found) {
        st = range_pass(p, copy, n_eval, &r);
        if (st != CML_OK)
            REFUSE("out of memory");
        memo_put(&key, &r);
    }
    if (r.failed)
        REFUSE("%s '%.60s': at thread %" PRIu64 ": %s", r.src_failed ? "--src" : "--expr",
               r.src_failed ? p->src_text : p->text, r.at, r.message);
    p->lo = r.lo;
    p->hi = r.hi;
    p->src_lo = r.src_lo;
    p->src_hi = r.src_hi;
    if (n_fixed)
        p->n = (uint64_t)n_eval;
    else
        p->n = (uint64_t)(copy && r.src_hi > r.hi ? r.src_hi : r.hi) + 1u;
    if (check_range(p, "--expr", p->text, r.lo, r.hi, n_fixed || copy, n_from, why, len) ||
        (copy && check_range(p, "--src", p->src_text ? p->src_text : "i", r.src_lo, r.src_hi,
                             1, n_fixed ? n_from : "the index's range", why, len)))
        return CML_EINVAL;
    s->n = (int64_t)p->n;

    /* The arrays, the tile, the constant bank. */
    const uint64_t elem = p->elem;
    uint64_t arrays = 0;
    if (s->space == SP_SHARED) {
        p->tile_len = round_up(p->n, CML_LINE_BYTES / elem);
        p->smem = (size_t)bytes_of(p->tile_len, elem, 0);
        if (p->tile_len > smem_limit / elem) {
            *too_big = 1;
            REFUSE("--expr '%.60s' reaches elements %" PRId64 "..%" PRId64 ": a tile of %" PRIu64
                   " bytes of shared memory per block, more than the %" PRIu64 " a block may "
                   "have here",
                   p->text, r.lo, r.hi, bytes_of(p->tile_len, elem, 0), smem_limit);
        }
        if (s->op == CML_EXPR_LOAD)
            p->src_bytes = round_up(bytes_of(p->tile_len, elem, 0), 16);
        else
            p->dst_bytes = bytes_of(p->grid, bytes_of(p->tile_len, elem, 0), 0);
    } else if (s->space == SP_CONSTANT) {
        if (p->n > CML_EXPR_CONST_BYTES / elem)
            REFUSE("--expr '%.60s' reaches elements %" PRId64 "..%" PRId64 ": %" PRIu64
                   " bytes, more than the %u bytes of the constant bank",
                   p->text, r.lo, r.hi, bytes_of(p->n, elem, 0), CML_EXPR_CONST_BYTES);
    } else {
        uint64_t one = bytes_of(p->n, elem, p->base);
        one = one == UINT64_MAX ? one : round_up(one, 16);
        if (s->op != CML_EXPR_STORE)
            p->src_bytes = one;
        if (s->op != CML_EXPR_LOAD)
            p->dst_bytes = one;
    }
    if (s->op == CML_EXPR_LOAD)
        p->out_bytes = bytes_of(p->threads, 8, 0);
    arrays = add_sat(add_sat(p->src_bytes, p->dst_bytes), p->out_bytes);
    if (arrays > mem_limit) {
        char need[32], have[32];
        cml_fmt_bytes(need, sizeof need, (double)arrays);
        cml_fmt_bytes(have, sizeof have, (double)mem_limit);
        *too_big = 1;
        REFUSE("--expr '%.60s' reaches elements %" PRId64 "..%" PRId64 ": %s of arrays, more "
               "than the %s %s",
               p->text, r.lo, r.hi, need, have,
               plan && plan->gpu ? "this device can give (90% of its free memory)"
                                 : "the model allows (1 TiB)");
    }

    /* One block stands for all when they are the same shifted by whole
     * lines: the index (and source) shifts, checked above, and the 8-byte
     * results of a block (block * 8 bytes apart) or its tile's copy (whole
     * lines by construction). */
    p->uniform = r.uniform && (s->op != CML_EXPR_LOAD || p->block % 16 == 0);
    return CML_OK;
}

void cml_expr_point_free(cml_expr_point *p)
{
    cml_expr_free(p->index);
    cml_expr_free(p->src);
    p->index = p->src = NULL;
}

/* ---- the mirror ------------------------------------------------------- */

enum { PH_FILL, PH_MAIN, PH_COPY };
enum { S_IDX = 0, S_OUT = 1, S_FILL_LD = 2, S_FILL_ST = 3, S_COPY_LD = 4, S_COPY_ST = 5,
       S_CONST_HI = 6 };
/* Loop iterations per trace call: the tracer keeps at most CML_MAX_EMITS
 * accesses per thread, and a fill iteration makes two. Splitting a loop
 * changes no instruction: the k-th iteration of a warp is one instruction
 * wherever the split falls. */
#define CHUNK 100u

typedef struct trace_args {
    const cml_expr_point *p;
    int phase;
    uint64_t it0, it1;  /* the tile loops' iterations of this call */
    uint64_t first;     /* the real index of the traced grid's block 0 */
} trace_args;

static void mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const trace_args *a = vargs;
    const cml_expr_point *p = a->p;
    const unsigned w = p->elem;
    const uint64_t b = a->first + t->bid.x;
    const uint64_t tt = (uint64_t)t->tid.y * p->bdx + t->tid.x;
    const uint64_t i = b * p->block + tt;
    const uint64_t SRC = cml_array_base(0) + p->base, DST = cml_array_base(1) + p->base,
                   OUT = cml_array_base(2);
    if (a->phase != PH_MAIN) {
        for (uint64_t it = a->it0; it < a->it1; it++) {
            uint64_t j = it * p->block + tt;
            if (j >= p->tile_len)
                break;
            if (a->phase == PH_FILL) {
                if (p->kernel.op == CML_EXPR_LOAD)
                    cml_emit(e, S_FILL_LD, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, w,
                             SRC + j * w);
                cml_emit(e, S_FILL_ST, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, w, j * w);
            } else {
                cml_emit(e, S_COPY_LD, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, w, j * w);
                cml_emit(e, S_COPY_ST, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, w,
                         DST + (b * p->tile_len + j) * w);
            }
        }
        return;
    }
    if (i >= p->threads)
        return;
    const int64_t idx = cml_expr_point_eval(p, p->index, i);
    if (idx < 0 || (uint64_t)idx >= p->n)
        return; /* the kernel's guard; never taken in a resolved point */
    const uint64_t x = (uint64_t)idx;
    const cml_cache c = p->kernel.cache;
    switch (p->kernel.space) {
    case CML_SPACE_CONSTANT:
        if (w == 16) {
            /* LDC moves at most 8 bytes: a 16-byte element is two loads */
            cml_emit(e, S_IDX, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 8, x * w);
            cml_emit(e, S_CONST_HI, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 8, x * w + 8);
        } else {
            cml_emit(e, S_IDX, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, w, x * w);
        }
        cml_emit(e, S_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 8, OUT + 8 * i);
        return;
    case CML_SPACE_SHARED:
        if (p->kernel.op == CML_EXPR_LOAD) {
            cml_emit(e, S_IDX, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, w, x * w);
            cml_emit(e, S_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 8, OUT + 8 * i);
        } else {
            cml_emit(e, S_IDX, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, w, x * w);
        }
        return;
    default:
        break;
    }
    if (p->kernel.op == CML_EXPR_LOAD) {
        cml_emit(e, S_IDX, CML_SPACE_GLOBAL, CML_OP_LOAD, c, w, SRC + x * w);
        cml_emit(e, S_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 8, OUT + 8 * i);
    } else if (p->kernel.op == CML_EXPR_STORE) {
        cml_emit(e, S_IDX, CML_SPACE_GLOBAL, CML_OP_STORE, c, w, DST + x * w);
    } else {
        const int64_t s = p->src ? cml_expr_point_eval(p, p->src, i) : (int64_t)i;
        if (s < 0 || (uint64_t)s >= p->n)
            return;
        /* the kernel's src[s] is a plain load; the path is the store's */
        cml_emit(e, S_IDX, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, w,
                 SRC + (uint64_t)s * w);
        cml_emit(e, S_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, c, w, DST + x * w);
    }
}

/* Blocks [first, first + count) of the point's grid, every phase, added
 * into *out. */
static cml_status trace_blocks(const cml_expr_point *p, cml_rules rules, uint64_t first,
                               uint64_t count, cml_kernel_traffic *out)
{
    if (count == 0)
        return CML_OK;
    trace_args a = {p, PH_FILL, 0, 0, first};
    const cml_dim3 grid = cml_dim1(count), block = cml_dim2(p->bdx, p->bdy);
    const uint64_t iters = p->tile_len ? cml_div_up(p->tile_len, p->block) : 0;
    cml_status st = CML_OK;
    for (uint64_t it = 0; st == CML_OK && it < iters; it += CHUNK) {
        a.it0 = it;
        a.it1 = it + CHUNK < iters ? it + CHUNK : iters;
        st = cml_trace_kernel(rules, grid, block, mirror, &a, out);
    }
    a.phase = PH_MAIN;
    if (st == CML_OK)
        st = cml_trace_kernel(rules, grid, block, mirror, &a, out);
    a.phase = PH_COPY;
    for (uint64_t it = 0; st == CML_OK && p->kernel.op == CML_EXPR_STORE && it < iters;
         it += CHUNK) {
        a.it0 = it;
        a.it1 = it + CHUNK < iters ? it + CHUNK : iters;
        st = cml_trace_kernel(rules, grid, block, mirror, &a, out);
    }
    return st;
}

/* acc += k * t, every field of every class. */
static void add_scaled(cml_kernel_traffic *acc, const cml_kernel_traffic *t, uint64_t k)
{
    for (int c = 0; c < CML_CLASS_COUNT; c++) {
        cml_traffic *a = &acc->cls[c];
        const cml_traffic *x = &t->cls[c];
        a->instructions += k * x->instructions;
        a->requests += k * x->requests;
        a->sectors += k * x->sectors;
        a->lines += k * x->lines;
        a->transactions += k * x->transactions;
        a->transaction_bytes += k * x->transaction_bytes;
        a->efficiency_bytes += k * x->efficiency_bytes;
        a->requested_bytes += k * x->requested_bytes;
        a->lane_bytes += k * x->lane_bytes;
        a->wavefronts += k * x->wavefronts;
        a->ideal_wavefronts += k * x->ideal_wavefronts;
        a->bank_conflicts += k * x->bank_conflicts;
        a->serialized += k * x->serialized;
    }
}

cml_status cml_expr_point_trace(const cml_expr_point *p, cml_record *rec)
{
    for (int r = 0; r < CML_RULES_COUNT; r++) {
        cml_kernel_traffic total, one;
        memset(&total, 0, sizeof total);
        memset(&one, 0, sizeof one);
        cml_status st;
        if (p->uniform && p->full_blocks > 1) {
            st = trace_blocks(p, (cml_rules)r, 0, 1, &one);
            if (st == CML_OK) {
                add_scaled(&total, &one, p->full_blocks);
                st = trace_blocks(p, (cml_rules)r, p->full_blocks, p->grid - p->full_blocks,
                                  &total);
            }
        } else {
            st = trace_blocks(p, (cml_rules)r, 0, p->grid, &total);
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
    /* The bytes the threads ask of global memory (unique per instruction:
     * a broadcast counts once per warp), the 8-byte results included. */
    rec->bytes_read = rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].requested_bytes;
    rec->bytes_written = rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST].requested_bytes;
    return CML_OK;
}

/* ---- the record ------------------------------------------------------- */

/* "i*2 op=store elem=8": the expression, then what differs from the
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
        cml_variant_add_label(buf, len, "op", op_choices[s->op]);
    if (s->space != SP_GLOBAL)
        cml_variant_add_label(buf, len, "space", space_choices[s->space]);
    if (s->path != CML_EXPR_PATH_AUTO && s->path != CML_EXPR_PATH_CA &&
        s->path != CML_EXPR_PATH_WB)
        cml_variant_add_label(buf, len, "path", path_choices[s->path]);
    if (s->elem != 2)
        cml_variant_add_label(buf, len, "elem", elem_choices[s->elem]);
    if (s->bdx != 256 || s->bdy != 1) {
        char b[32];
        snprintf(b, sizeof b, "%lldx%lld", (long long)s->bdx, (long long)s->bdy);
        cml_variant_add_label(buf, len, "block", b);
    }
    if (s->base)
        cml_variant_add(buf, len, "base", (long long)s->base);
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
    if (rc != CML_OK) {
        cml_expr_point_free(&st->point);
        if (too_big) {
            cml_sweep_waive(ctx, rec, "%s", why);
            return CML_OK;
        }
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "refused: %s", why);
        return CML_EINVAL;
    }
    st->have_point = 1;
    st->point_index = ctx->point;
    const cml_expr_point *p = &st->point;
    rc = cml_expr_point_trace(p, rec);
    if (rc != CML_OK)
        return rc;
    if (p->tile_len)
        cml_record_add_extra(rec, "tile_bytes", (double)p->smem, "B");
    char text[384];
    cml_exp_explain(rec, pattern_class(p), text, sizeof text);
    cml_record_finding(rec, "%s", text);
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
        else if (!ctx->plan->exprs && s->expr >= 0 && (uint64_t)s->expr < CML_COUNT(builtins))
            text = builtins[s->expr].name;
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
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL}, {NULL, CML_METRIC_NONE, NULL, NULL}},
     .what = "bandwidth", .unit = "GB/s", .describe = 1},
    {.shape = CML_PLOT_EXTRAS, .title = "Compile time by expression",
     .ylabel = "milliseconds", .yfmt = CML_FMT_NUMBER,
     .m = {{NULL, CML_METRIC_NONE, NULL, NULL}, {NULL, CML_METRIC_NONE, NULL, NULL}},
     .what = "compile time", .unit = "ms", .extra_names = compile_names,
     .extra_legend = compile_legend},
};

static const char *const expr_validate_settings[] = {"", NULL};
static const cml_validate_spec expr_validate = {expr_validate_settings, NULL, 0};

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

/* ---- the command line's check ---------------------------------------- */

typedef struct check_walk {
    const cml_plan *plan;
    const cml_param_values *pv;
    uint64_t mem_limit, smem_limit;
    cml_expr_settings s;
    char *why;
    size_t len;
} check_walk;

static cml_status check_level(check_walk *w, size_t level)
{
    if (level == (size_t)-1) {
        cml_expr_settings s = w->s;
        cml_expr_point p;
        int too_big;
        cml_status st = cml_expr_point_resolve(w->plan, w->mem_limit, w->smem_limit, &s, &p,
                                               &too_big, w->why, w->len);
        cml_expr_point_free(&p);
        return st == CML_SKIP_POINT ? CML_OK : st;
    }
    const cml_param_def *d = &expr_params[level];
    const cml_param_list *l = &w->pv->list[level];
    for (size_t k = 0; k < l->count; k++) {
        *(int64_t *)(void *)((char *)&w->s + d->field - 1) = l->v[k];
        cml_status st = check_level(w, level - 1);
        if (st != CML_OK)
            return st;
    }
    return CML_OK;
}

cml_status cml_expr_check_all(const cml_plan *plan, const cml_param_values *pv, char *why,
                              size_t len)
{
    if (pv->ndefs != CML_COUNT(expr_params) || pv->defs != expr_params)
        return CML_EINVAL;
    check_walk w;
    memset(&w, 0, sizeof w);
    w.plan = plan;
    w.pv = pv;
    w.mem_limit = cml_expr_mem_limit(plan);
    w.smem_limit = cml_expr_smem_limit(plan);
    w.why = why;
    w.len = len;
    return check_level(&w, CML_COUNT(expr_params) - 1);
}
