/*
 * Experiment 18 (expr.h): resolving a point. Which expression, the launch,
 * and the bounds rule of a run (docs/experiments/expr.md): every running
 * thread's index is evaluated on the host, must lie in 0..n-1, and the
 * arrays sized from n must fit the device; anything else is refused with
 * one line naming the expression, the range it reaches and the limit,
 * before a kernel is generated or compiled.
 */
#include "experiments/expr/expr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/host_fill.h"
#include "gpu/host_memory.h"
#include "lab/common.h"

/* The range pass's findings, kept for the same inputs (the command line
 * checks every point before the run, which resolves them again). */
typedef struct range_key {
    char *text, *src_text;
    int64_t op, space, elem, bdx, bdy, threads, n_eval, bound_ok;
} range_key;

typedef struct range_result {
    int64_t lo, hi, src_lo, src_hi;
    int uniform;
    int affine;           /* from the shapes: thread t of block b at first[t] + step*b */
    int64_t step, src_step;
    int bound_only;       /* lo..hi (and src_lo..src_hi) are sound bounds, not the range */
    int unbounded;        /* too many threads to evaluate, and no bound found */
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
           a->bdy == b->bdy && a->threads == b->threads && a->n_eval == b->n_eval &&
           a->bound_ok == b->bound_ok && a->text &&
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

/* What one part of the range pass reads and writes (cml_host_parallel). */
typedef struct range_job {
    const cml_expr_point *p;
    int copy;
    int64_t n_eval;
    const int64_t *first, *first_src; /* block 0's index and source per thread */
    range_result part[CML_HOST_MAX_PARTS];
} range_job;

static void range_init(range_result *r)
{
    memset(r, 0, sizeof *r);
    r->lo = r->src_lo = INT64_MAX;
    r->hi = r->src_hi = INT64_MIN;
    r->uniform = 1;
}

/* Blocks [b_lo, b_hi) into r; with first == NULL (block 0 itself) the
 * values are stored into first_out instead of compared. */
static void range_blocks(const range_job *j, uint64_t b_lo, uint64_t b_hi, range_result *r,
                         int64_t *first_out, int64_t *first_src_out)
{
    const cml_expr_point *p = j->p;
    cml_expr_vars v;
    thread_vars(p, 0, j->n_eval, &v);
    cml_expr_error err;
    for (uint64_t b = b_lo; b < b_hi && !r->failed; b++) {
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
                return;
            }
            r->lo = x < r->lo ? x : r->lo;
            r->hi = x > r->hi ? x : r->hi;
            if (j->copy) {
                r->src_lo = s < r->src_lo ? s : r->src_lo;
                r->src_hi = s > r->src_hi ? s : r->src_hi;
            }
            if (first_out) {
                first_out[t] = x;
                first_src_out[t] = s;
            } else if (b < p->full_blocks && r->uniform) {
                /* shifts in modular arithmetic: no overflow, and equal
                 * shifts are equal address shifts */
                uint64_t dx = (uint64_t)x - (uint64_t)j->first[t];
                uint64_t dy = (uint64_t)s - (uint64_t)j->first_src[t];
                if (t == 0) {
                    d = dx;
                    ds = dy;
                } else if (dx != d || dy != ds) {
                    r->uniform = 0;
                }
            }
        }
        if (!first_out && b < p->full_blocks &&
            ((d * p->elem) % CML_LINE_BYTES || (j->copy && (ds * p->elem) % CML_LINE_BYTES)))
            r->uniform = 0;
    }
}

static void range_part(void *user, size_t part, size_t lo, size_t hi)
{
    range_job *j = user;
    range_init(&j->part[part]);
    range_blocks(j, 1 + (uint64_t)lo, 1 + (uint64_t)hi, &j->part[part], NULL, NULL);
}

/* Threads whose indices the range pass evaluates at most without a GPU;
 * beyond, an expression with no period is bounded by interval arithmetic
 * (expr_shape.c) or refused. */
#define RANGE_THREADS ((uint64_t)1 << 24)

/*
 * The range pass answered from the shapes (cml_expr_shape_of), in the work
 * of one block: an evaluation failure in block 0 (the first failing
 * thread, as the pass would find it); the exact ranges of affine
 * expressions; or, with bound_ok and more than RANGE_THREADS threads,
 * sound bounds (or `unbounded`). CML_EUNSUPPORTED: the pass must run.
 */
static cml_status range_by_shape(const cml_expr_point *p, int copy, int64_t n_eval, int bound_ok,
                                 range_result *r)
{
    range_init(r);
    const cml_expr_launch l = {p->bdx, p->bdy, p->threads, n_eval};
    cml_expr_shape sh, ss;
    memset(&ss, 0, sizeof ss);
    cml_status st = cml_expr_shape_of(p->index, &l, NULL, &sh);
    if (st == CML_OK && copy && p->src) {
        st = cml_expr_shape_of(p->src, &l, NULL, &ss);
    } else if (copy) { /* the source is i */
        ss.affine = ss.bounded = 1;
        ss.step = (int64_t)p->block;
        ss.lo = 0;
        ss.hi = (int64_t)p->threads - 1;
    }
    if (st != CML_OK)
        return st;
    if (sh.fails || ss.fails) {
        const uint64_t at = sh.fails && (!ss.fails || sh.fail_thread <= ss.fail_thread)
                                ? sh.fail_thread
                                : ss.fail_thread;
        cml_expr_vars v;
        thread_vars(p, at, n_eval, &v);
        cml_expr_error err;
        int64_t x;
        r->failed = 1;
        r->at = at;
        r->src_failed = cml_expr_eval(p->index, &v, &x, &err) == CML_OK;
        if (r->src_failed)
            cml_expr_eval(p->src, &v, &x, &err);
        snprintf(r->message, sizeof r->message, "%s", err.message);
        return CML_OK;
    }
    if (sh.affine && (!copy || ss.affine)) {
        r->affine = 1;
    } else if (bound_ok && p->threads > RANGE_THREADS) {
        r->bound_only = 1;
        r->unbounded = !sh.bounded || (copy && !ss.bounded);
    } else {
        return CML_EUNSUPPORTED;
    }
    r->lo = sh.lo;
    r->hi = sh.hi;
    r->step = sh.step;
    if (copy) {
        r->src_lo = ss.lo;
        r->src_hi = ss.hi;
        r->src_step = ss.step;
    }
    return CML_OK;
}

/*
 * Evaluate the index (and a copy's source) for every running thread: the
 * range each reaches, and whether every full block is block 0 shifted by
 * whole 128-byte lines in every array it touches (then the model traces
 * one block for all of them: exactly the same totals, in O(block) work).
 * Block 0 first, then the other blocks split over the host's cores (tens
 * of millions of threads at DRAM sizes); the first failing thread is the
 * lowest of the parts', as a single pass would find.
 */
static cml_status range_pass(const cml_expr_point *p, int copy, int64_t n_eval, range_result *r)
{
    range_init(r);
    int64_t *first = malloc(2 * p->block * sizeof *first);
    range_job *j = malloc(sizeof *j);
    if (!first || !j) {
        free(first);
        free(j);
        return CML_ENOMEM;
    }
    j->p = p;
    j->copy = copy;
    j->n_eval = n_eval;
    j->first = first;
    j->first_src = first + p->block;
    range_blocks(j, 0, 1, r, first, first + p->block);
    if (!r->failed && p->grid > 1) {
        size_t parts = cml_host_parallel(p->grid - 1, 64, range_part, j);
        for (size_t k = 0; k < parts; k++) {
            const range_result *q = &j->part[k];
            if (q->failed) {
                if (!r->failed || q->at < r->at) {
                    r->failed = 1;
                    r->at = q->at;
                    r->src_failed = q->src_failed;
                    snprintf(r->message, sizeof r->message, "%s", q->message);
                }
                continue;
            }
            r->lo = q->lo < r->lo ? q->lo : r->lo;
            r->hi = q->hi > r->hi ? q->hi : r->hi;
            r->src_lo = q->src_lo < r->src_lo ? q->src_lo : r->src_lo;
            r->src_hi = q->src_hi > r->src_hi ? q->src_hi : r->src_hi;
            r->uniform &= q->uniform;
        }
    }
    free(j);
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
    if (s->space != CML_EXPR_SP_GLOBAL) {
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
        REFUSE("--path %s: a load path (stores take wb, cg or cs)", cml_expr_path_choices[s->path]);
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
    const cml_expr_builtin *b = s->expr >= 0 ? cml_expr_builtin_at((size_t)s->expr) : NULL;
    if (!b)
        return CML_SKIP_POINT;
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

static cml_status resolve(const cml_plan *plan, uint64_t mem_limit, uint64_t smem_limit,
                          cml_expr_settings *s, cml_expr_point *p, int *too_big, char *why,
                          size_t len)
{
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
    p->kernel.space = cml_expr_space(s->space);
    p->kernel.cache = cache;
    p->kernel.elem = p->elem;
    char kerr[160];
    if (cml_expr_kernel_check(&p->kernel, kerr, sizeof kerr) != CML_OK)
        REFUSE("%s", kerr);
    p->bdx = (uint64_t)s->bdx;
    p->bdy = (uint64_t)s->bdy;
    p->block = p->bdx * p->bdy;
    if (p->block > 1024)
        REFUSE("--block %" PRIu64 "x%" PRIu64 ": %" PRIu64 " threads per block (allowed 1..1024)",
               p->bdx, p->bdy, p->block);
    p->base = (uint64_t)s->base;
    if (p->base % p->elem)
        REFUSE("--base %" PRIu64 ": must be a multiple of --elem %u (the hardware faults on "
               "misaligned accesses)",
               p->base, p->elem);
    if (p->base && s->space != CML_EXPR_SP_GLOBAL)
        REFUSE("--base %" PRIu64 ": global memory only", p->base);
    if (!s->threads)
        s->threads = (int64_t)cml_expr_default_threads(plan, (int)s->space);
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
    const char *n_from = s->n > 0 ? "--n" : s->space == CML_EXPR_SP_SHARED
                                                ? "the block's threads: the expression uses n"
                                                : "the threads: the expression uses n";
    int64_t n_eval = s->n > 0 ? s->n : !uses_n ? 0 : s->space == CML_EXPR_SP_SHARED ? (int64_t)p->block
                                                                          : (int64_t)p->threads;
    const int copy = s->op == CML_EXPR_COPY;
    /* Without a GPU nothing will fault: a sound bound is enough where
     * evaluating every thread would take too long. */
    const int bound_ok = !(plan && plan->gpu);
    range_key key = {(char *)p->text, (char *)p->src_text, s->op, s->space, s->elem,
                     s->bdx, s->bdy, s->threads, n_eval, bound_ok};
    range_result r;
    int found = 0;
    for (size_t k = 0; k < RANGE_MEMO && !found; k++)
        if (key_equal(&memo[k].key, &key)) {
            r = memo[k].res;
            found = 1;
        }
    if (!found) {
        st = range_by_shape(p, copy, n_eval, bound_ok, &r);
        if (st == CML_EUNSUPPORTED)
            st = range_pass(p, copy, n_eval, &r);
        if (st != CML_OK)
            REFUSE("out of memory");
        memo_put(&key, &r);
    }
    if (r.unbounded)
        REFUSE("--threads %" PRIu64 ": '%.60s' has no period and no bound the model can find, and "
               "without a GPU at most %" PRIu64 " threads are evaluated one by one (allowed "
               "1..%" PRIu64 " for it)",
               p->threads, p->text, RANGE_THREADS, RANGE_THREADS);
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
    if (s->space == CML_EXPR_SP_SHARED) {
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
    } else if (s->space == CML_EXPR_SP_CONSTANT) {
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

    /* Blocks repeat when each is the one `period` before it shifted by
     * whole lines: the index (and source) by step * elem bytes per block
     * (affine), or by whole lines (the pass's uniform check); a load's
     * 8-byte results by block * 8 bytes; a tile's copy by whole lines by
     * construction. 0: no period (walked, or sampled when large). */
    p->period = 0;
    if (r.affine || r.uniform) {
        uint64_t per = r.affine ? cml_exp_line_period((uint64_t)r.step * elem) : 1u;
        if (r.affine && copy && cml_exp_line_period((uint64_t)r.src_step * elem) > per)
            per = cml_exp_line_period((uint64_t)r.src_step * elem);
        if (s->op == CML_EXPR_LOAD && cml_exp_line_period(8u * p->block) > per)
            per = cml_exp_line_period(8u * p->block);
        p->period = per;
    }
    p->uniform = p->period == 1;
    p->range_bound = r.bound_only;
    if (p->period == 0 && p->tile_len && p->threads > RANGE_THREADS)
        REFUSE("--threads %" PRIu64 ": '%.60s' in %s memory has no period, and the model walks "
               "such a pattern's every thread (allowed 1..%" PRIu64 " for it)",
               p->threads, p->text, s->space == CML_EXPR_SP_SHARED ? "shared" : "constant",
               RANGE_THREADS);
    return CML_OK;
}

uint64_t cml_expr_default_threads(const cml_plan *plan, int space)
{
    return space == CML_EXPR_SP_GLOBAL ? cml_plan_elements(plan, 4, 2) : (uint64_t)1 << 20;
}

cml_status cml_expr_point_resolve(const cml_plan *plan, uint64_t mem_limit, uint64_t smem_limit,
                                  cml_expr_settings *s, cml_expr_point *p, int *too_big,
                                  char *why, size_t len)
{
    memset(p, 0, sizeof *p);
    *too_big = 0;
    why[0] = '\0';
    cml_status st = resolve(plan, mem_limit, smem_limit, s, p, too_big, why, len);
    if (st != CML_OK) {
        /* nothing held, the names kept for the caller's message */
        cml_expr_free(p->index);
        cml_expr_free(p->src);
        p->index = p->src = NULL;
        p->kernel.index = p->kernel.src = NULL;
    }
    return st;
}

void cml_expr_point_free(cml_expr_point *p)
{
    cml_expr_free(p->index);
    cml_expr_free(p->src);
    p->index = p->src = NULL;
}

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
    const cml_param_def *d = &cml_exp_expr.options[level];
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
    if (pv->ndefs != cml_exp_expr.noptions || pv->defs != cml_exp_expr.options)
        return CML_EINVAL;
    check_walk w;
    memset(&w, 0, sizeof w);
    w.plan = plan;
    w.pv = pv;
    w.mem_limit = cml_expr_mem_limit(plan);
    w.smem_limit = cml_expr_smem_limit(plan);
    w.why = why;
    w.len = len;
    return check_level(&w, cml_exp_expr.noptions - 1);
}
