/*
 * The two ways the model answers a large launch of an index expression
 * without walking it (what `model --expr` does), against the whole walk:
 *   - affine expressions (cml_expr_shape_of, cml_expr_runs and the exact
 *     shortcut of trace_repeat.c): the records IDENTICAL to the walk's,
 *     field by field, for guards that cut blocks at either end or leave
 *     blocks wholly out of range, blocks that are not whole warps, partial
 *     last blocks, copies with a source of their own; and the inactive
 *     threads counted exactly;
 *   - sampled grids (cml_exp_trace_sample): every figure within its stated
 *     half-width of the walk's, the half-width the formula's, and a grid of
 *     no more warps than the sample walked whole (exact).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cumemlab/expr.h"
#include "experiments/expr/expr_runs.h"
#include "lab/common.h"
#include "test_util.h"

/* The command line's mirror: thread i reads (or copies) element idx of an
 * array of n elements when idx (and the source) lie in 0..n-1. */
typedef struct xargs {
    const cml_expr *e, *src;
    uint64_t n, threads, elem, bdx, bdy, blocks;
    int copy;
} xargs;

static int indices(const xargs *a, uint64_t i, int64_t *idx, int64_t *s)
{
    const uint64_t block = a->bdx * a->bdy, t = i % block;
    const cml_expr_vars v = {(int64_t)i,      (int64_t)(t % a->bdx), (int64_t)(t / a->bdx),
                             (int64_t)(i / block), 0,                (int64_t)a->bdx,
                             (int64_t)a->bdy, (int64_t)a->blocks,    1,
                             (int64_t)(t % 32u), (int64_t)a->n};
    *s = (int64_t)i;
    return cml_expr_eval(a->e, &v, idx, NULL) == CML_OK &&
           (!a->src || cml_expr_eval(a->src, &v, s, NULL) == CML_OK);
}

static void xmirror(const cml_thread *t, const void *vargs, cml_emitter *em)
{
    const xargs *a = vargs;
    const uint64_t i = (uint64_t)t->bid.x * a->bdx * a->bdy + (uint64_t)t->tid.y * a->bdx + t->tid.x;
    int64_t idx, s;
    if (i >= a->threads || !indices(a, i, &idx, &s))
        return;
    if (idx < 0 || (uint64_t)idx >= a->n || (a->copy && (s < 0 || (uint64_t)s >= a->n)))
        return;
    const unsigned w = (unsigned)a->elem;
    if (a->copy) {
        cml_emit(em, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, w,
                 cml_array_base(0) + (uint64_t)s * w);
        cml_emit(em, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, w,
                 cml_array_base(1) + (uint64_t)idx * w);
    } else {
        cml_emit(em, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, w,
                 cml_array_base(0) + (uint64_t)idx * w);
    }
}

typedef struct xcase {
    const char *e, *src; /* src: NULL (i) unless copy */
    int copy;
    uint64_t bdx, bdy, threads, n, elem;
} xcase;

static const xcase cases[] = {
    {"i", NULL, 0, 256, 1, 200000, 200000, 4},
    {"i + 11", NULL, 0, 33, 1, 100000, 100000, 4},
    {"i - 1000", NULL, 0, 47, 1, 100000, 50000, 4},
    {"2000 - i", NULL, 0, 96, 1, 100000, 1500, 4},
    {"i*3 + 7", NULL, 0, 100, 1, 50000, 40000, 8},
    {"i*4", NULL, 0, 1000, 1, 600000, 1000, 4},
    {"(i%32)*33 + bx*64", NULL, 0, 256, 1, 300000, 10000000, 4},
    {"bx*1000 + lane", NULL, 0, 33, 1, 70000, 1500000, 2},
    {"tx*bdy + ty + bx*256", NULL, 0, 32, 8, 100000, 100000, 4},
    {"i*4", "i + 5", 1, 48, 1, 100001, 200000, 4},
    {"i", NULL, 1, 256, 1, 2000000, 2000000, 16},
    {"i - 500", "3000 - i", 1, 64, 1, 40000, 10000, 4},
};

static unsigned shown;

static void test_affine_exact(void)
{
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const xcase *x = &cases[c];
        xargs a;
        memset(&a, 0, sizeof a);
        CHECK(cml_expr_parse(x->e, (cml_expr **)&a.e, NULL) == CML_OK);
        if (x->src)
            CHECK(cml_expr_parse(x->src, (cml_expr **)&a.src, NULL) == CML_OK);
        a.n = x->n;
        a.threads = x->threads;
        a.elem = x->elem;
        a.bdx = x->bdx;
        a.bdy = x->bdy;
        a.copy = x->copy;
        const uint64_t block = a.bdx * a.bdy;
        a.blocks = (a.threads + block - 1) / block;
        /* the shapes, as the command line takes them */
        int64_t *first = malloc(2 * block * sizeof *first);
        CHECK(first != NULL);
        const cml_expr_launch l = {a.bdx, a.bdy, a.threads, (int64_t)a.n};
        cml_expr_shape sh[2];
        memset(sh, 0, sizeof sh);
        CHECK(cml_expr_shape_of(a.e, &l, first, &sh[0]) == CML_OK);
        if (a.src) {
            CHECK(cml_expr_shape_of(a.src, &l, first + block, &sh[1]) == CML_OK);
        } else {
            for (uint64_t t = 0; t < block; t++)
                first[block + t] = (int64_t)t;
            sh[1].affine = 1;
            sh[1].step = (int64_t)block;
        }
        CHECK(sh[0].affine && sh[1].affine);
        const cml_expr_walk w[2] = {{first, sh[0].step}, {first + block, sh[1].step}};
        cml_exp_axis axis;
        uint64_t inactive = 0;
        CHECK(cml_expr_runs(w, a.copy ? 2u : 1u, block, a.threads, a.n, a.elem, 4096, &axis,
                            &inactive) == CML_OK);
        const cml_exp_axis axes[3] = {axis, cml_exp_axis_ends(1, 0, 1, 0),
                                      cml_exp_axis_ends(1, 0, 1, 0)};
        cml_record *fast = calloc(1, sizeof *fast), *full = calloc(1, sizeof *full);
        CHECK(fast && full);
        uint64_t traced = 0;
        const cml_dim3 grid = cml_dim1(a.blocks), shape = cml_dim2(a.bdx, a.bdy);
        CHECK(cml_exp_trace_axes(fast, grid, shape, axes, xmirror, &a, &traced) == CML_OK);
        CHECK(cml_exp_trace(full, grid, shape, xmirror, &a) == CML_OK);
        const int same = memcmp(fast->model, full->model, sizeof fast->model) == 0 &&
                         memcmp(&fast->levels, &full->levels, sizeof fast->levels) == 0 &&
                         fast->grid == full->grid && fast->block == full->block;
        CHECK(same);
        CHECK(traced * 8 < a.blocks); /* the shortcut, not the walk */
        if (traced * 8 >= a.blocks)
            fprintf(stderr, "case %zu ('%s'): %llu of %llu blocks traced\n", c, x->e,
                    (unsigned long long)traced, (unsigned long long)a.blocks);
        /* the inactive threads, one by one */
        uint64_t out = 0, failed = 0;
        for (uint64_t i = 0; i < a.threads; i++) {
            int64_t idx, s;
            failed += !indices(&a, i, &idx, &s);
            out += idx < 0 || (uint64_t)idx >= a.n || (a.copy && (s < 0 || (uint64_t)s >= a.n));
        }
        CHECK_EQ_U64(failed, 0);
        CHECK_EQ_U64(inactive, out);
        if ((!same || inactive != out) && shown++ < 5)
            fprintf(stderr, "affine case %zu ('%s'): same %d, inactive %llu / %llu, traced %llu "
                    "of %llu blocks\n", c, x->e, same, (unsigned long long)inactive,
                    (unsigned long long)out, (unsigned long long)traced,
                    (unsigned long long)a.blocks);
        free(fast);
        free(full);
        free(first);
        cml_expr_free((cml_expr *)a.e);
        cml_expr_free((cml_expr *)a.src);
    }
}

/* A guard that splits more blocks than allowed: the caller samples. */
static void test_too_many_single(void)
{
    cml_expr *e = NULL;
    CHECK(cml_expr_parse("i + tx*100000", &e, NULL) == CML_OK);
    const uint64_t block = 256, threads = 1u << 20;
    int64_t *first = malloc(block * sizeof *first);
    const cml_expr_launch l = {block, 1, threads, 1 << 20};
    cml_expr_shape sh;
    CHECK(first && cml_expr_shape_of(e, &l, first, &sh) == CML_OK && sh.affine);
    const cml_expr_walk w = {first, sh.step};
    cml_exp_axis axis;
    uint64_t inactive = 0;
    /* the guard n = 2^20 cuts every block from about 1/10 of the way on */
    CHECK(cml_expr_runs(&w, 1, block, threads, 1 << 20, 4, 64, &axis, &inactive) ==
          CML_EUNSUPPORTED);
    free(first);
    cml_expr_free(e);
}

/* ---- the stored bound ------------------------------------------------------------ */

/* A half-width is stored as a float rounded up: read back, never below the
 * count that was set, and within one float step above it. */
static void test_bound_storage(void)
{
    static const uint64_t counts[] = {0,          1,          16777216u, 16777217u,
                                      (1ull << 53) + 1u, 123456789012345ull, UINT64_MAX};
    cml_record rec;
    memset(&rec, 0, sizeof rec);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        cml_traffic in, out;
        memset(&in, 0, sizeof in);
        in.sectors = counts[i];
        cml_sample_set_half(&rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_ST, &in);
        cml_sample_half(&rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_ST, &out);
        CHECK(out.sectors >= counts[i]);
        CHECK((double)(out.sectors - counts[i]) <= ldexp((double)counts[i], -23));
        CHECK_EQ_U64(out.requests, 0);
    }
    /* 16777217 is no float: the next one up, 16777218 */
    cml_traffic in, out;
    memset(&in, 0, sizeof in);
    in.lines = 16777217u;
    cml_sample_set_half(&rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD, &in);
    cml_sample_half(&rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD, &out);
    CHECK_EQ_U64(out.lines, 16777218u);
}

/* ---- sampled ----------------------------------------------------------------- */

static void test_sampled(void)
{
    xargs a;
    memset(&a, 0, sizeof a);
    CHECK(cml_expr_parse("(i*i) % n", (cml_expr **)&a.e, NULL) == CML_OK);
    a.threads = 1u << 20;
    a.n = a.threads;
    a.elem = 4;
    a.bdx = 256;
    a.bdy = 1;
    a.blocks = a.threads / 256;
    const cml_dim3 grid = cml_dim1(a.blocks), shape = cml_dim2(256, 1);
    const cml_exp_sample_kind kind = {CML_SPACE_GLOBAL, CML_OP_LOAD, 4, 1};
    cml_record *s = calloc(1, sizeof *s), *f = calloc(1, sizeof *f);
    CHECK(s && f);
    const uint64_t m = 4096, N = a.threads / 32;
    CHECK(cml_exp_trace_sample(s, grid, shape, xmirror, &a, &kind, 1, m) == CML_OK);
    CHECK(cml_exp_trace(f, grid, shape, xmirror, &a) == CML_OK);
    CHECK_EQ_U64(s->sample.warps, m);
    CHECK_EQ_U64(s->sample.of, N);
    CHECK_NEAR(s->sample.confidence, 0.99, 0);
    /* the half-width of the sectors: N * 32 * sqrt((1 - (m-1)/N) ln(200) / (2m)) */
    const double hw = (double)N * 32.0 *
                      sqrt((1.0 - (double)(m - 1) / (double)N) * log(200.0) / (2.0 * (double)m));
    cml_traffic hs;
    cml_sample_half(s, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD, &hs);
    CHECK(hw < 0x1p24); /* a float holds it exactly */
    CHECK_EQ_U64(hs.sectors, (uint64_t)ceil(hw));
    /* every figure of every class within its half-width of the walk's */
    for (int r = 0; r < CML_RULES_COUNT; r++)
        for (int c = 0; c < CML_CLASS_COUNT; c++) {
            const uint64_t *est = (const uint64_t *)(const void *)&s->model[r].cls[c];
            const uint64_t *tru = (const uint64_t *)(const void *)&f->model[r].cls[c];
            cml_traffic bound;
            cml_sample_half(s, r, c, &bound);
            const uint64_t *half = (const uint64_t *)(const void *)&bound;
            for (size_t k = 0; k < sizeof(cml_traffic) / 8; k++) {
                const double d = fabs((double)est[k] - (double)tru[k]);
                CHECK(d <= (double)half[k]);
            }
        }
    /* every warp issues one load: the instructions are exact */
    CHECK_EQ_U64(s->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].instructions, N);
    CHECK(s->has_levels);
    /* as many warps as the grid has: the walk itself, no sample */
    cml_record *w = calloc(1, sizeof *w);
    CHECK(w && cml_exp_trace_sample(w, grid, shape, xmirror, &a, &kind, 1, N) == CML_OK);
    CHECK_EQ_U64(w->sample.warps, 0);
    CHECK(memcmp(w->model, f->model, sizeof f->model) == 0);
    free(w);
    free(s);
    free(f);
    cml_expr_free((cml_expr *)a.e);
}

int main(void)
{
    test_affine_exact();
    test_too_many_single();
    test_bound_storage();
    test_sampled();
    return cml_test_summary("test_expr_runs");
}
