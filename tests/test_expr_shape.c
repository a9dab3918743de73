/*
 * Tests of cml_expr_shape_of (src/model/expr_shape.c) against a brute-force
 * evaluation of every thread: an affine answer must give every thread's
 * value as first[t] + step * b and the exact range; a bounded answer must
 * hold every value and promise that no evaluation fails; a failing answer
 * must name the first thread that fails. Hand-picked expressions (the
 * built-in set, strides, offsets, the padded and shuffled forms, those that
 * repeat only in part, those that overflow or divide by zero beyond block
 * 0) and a few thousand random ones, over launches whose blocks are and are
 * not whole warps, with partial last blocks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cumemlab/expr.h"
#include "test_util.h"

typedef struct launch_case {
    uint64_t bdx, bdy, threads;
    int64_t n;
} launch_case;

static const launch_case launches[] = {
    {256, 1, 4096, 4096}, {33, 1, 1000, 1000}, {32, 8, 3000, 5000}, {7, 3, 200, 64},
    {1, 1, 50, 50},       {100, 1, 1, 1},      {48, 2, 97, 1 << 20}, {1024, 1, 3000, 3000},
};
#define NLAUNCH (sizeof launches / sizeof launches[0])

static unsigned failures_shown;

/* Evaluate every thread and compare with the analysis. Returns the shape
 * (for the callers' own expectations). */
static cml_expr_shape check_one(const char *text, const launch_case *lc)
{
    cml_expr_shape sh;
    memset(&sh, 0, sizeof sh);
    cml_expr *e = NULL;
    cml_expr_error err;
    if (cml_expr_parse(text, &e, &err) != CML_OK) {
        fprintf(stderr, "parse failed: %s: %s\n", text, err.message);
        CHECK(0);
        return sh;
    }
    const uint64_t block = lc->bdx * lc->bdy, grid = (lc->threads + block - 1) / block;
    cml_expr_launch l = {lc->bdx, lc->bdy, lc->threads, lc->n};
    int64_t *first = malloc(block * sizeof *first);
    CHECK(first != NULL);
    CHECK(cml_expr_shape_of(e, &l, first, &sh) == CML_OK);
    int ok = 1;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t first_fail = UINT64_MAX;
    for (uint64_t i = 0; i < lc->threads; i++) {
        const uint64_t b = i / block, t = i % block;
        cml_expr_vars v = {(int64_t)i,          (int64_t)(t % lc->bdx), (int64_t)(t / lc->bdx),
                           (int64_t)b,          0,                      (int64_t)lc->bdx,
                           (int64_t)lc->bdy,    (int64_t)grid,          1,
                           (int64_t)(t % 32u),  lc->n};
        int64_t x;
        if (cml_expr_eval(e, &v, &x, NULL) != CML_OK) {
            if (first_fail == UINT64_MAX)
                first_fail = i;
            continue;
        }
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        if (sh.affine && first && x != first[t] + sh.step * (int64_t)b)
            ok = 0;
        if (sh.bounded && (x < sh.lo || x > sh.hi))
            ok = 0;
    }
    if (first_fail != UINT64_MAX) {
        /* a failure: named exactly, or at least not promised away */
        ok &= !sh.bounded && !sh.affine;
        if (sh.fails)
            ok &= sh.fail_thread == first_fail;
    } else {
        ok &= !sh.fails;
        if (sh.affine)
            ok &= sh.lo == lo && sh.hi == hi;
    }
    CHECK(ok);
    if (!ok && failures_shown++ < 10)
        fprintf(stderr, "shape wrong: '%s' launch %llux%llu threads %llu: affine %d step %lld "
                "bounded %d [%lld, %lld] fails %d at %llu; brute force [%lld, %lld], first "
                "failure %llu\n",
                text, (unsigned long long)lc->bdx, (unsigned long long)lc->bdy,
                (unsigned long long)lc->threads, sh.affine, (long long)sh.step, sh.bounded,
                (long long)sh.lo, (long long)sh.hi, sh.fails,
                (unsigned long long)sh.fail_thread, (long long)lo, (long long)hi,
                (unsigned long long)first_fail);
    free(first);
    cml_expr_free(e);
    return sh;
}

/* Affine on every launch, with the step given per block of `block`
 * threads as step_i * block + step_b. */
static void expect_affine(const char *text, int64_t step_i, int64_t step_b)
{
    for (size_t k = 0; k < NLAUNCH; k++) {
        cml_expr_shape sh = check_one(text, &launches[k]);
        const int64_t block = (int64_t)(launches[k].bdx * launches[k].bdy);
        CHECK(sh.affine);
        if (!sh.affine)
            fprintf(stderr, "not affine: '%s' launch %zu\n", text, k);
        CHECK_EQ_I64(sh.step, step_i * block + step_b);
    }
}

static void test_affine(void)
{
    expect_affine("i", 1, 0);
    expect_affine("i + 11", 1, 0);
    expect_affine("i*2", 2, 0);
    expect_affine("i*32", 32, 0);
    expect_affine("0", 0, 0);
    expect_affine("ty + tx*bdy", 0, 0);
    expect_affine("tx*33", 0, 0);
    expect_affine("lane", 0, 0);
    expect_affine("bx*bdx*bdy + ty*bdx + tx", 1, 0);
    expect_affine("i - tx + (tx ^ 1)", 1, 0);
    expect_affine("-i + 100000", -1, 0);
    expect_affine("~i + 100000", -1, 0);
    expect_affine("bx*1000 + lane", 0, 1000);
    expect_affine("min(i, 1000000000)", 1, 0);
    expect_affine("max(i*2, -5)", 2, 0);
    expect_affine("(i*8) >> 3", 1, 0);
    expect_affine("((i << 5) + 7) >> 5", 1, 0);
    expect_affine("i*3 - i", 2, 0);
}

/* The shape depends on the launch: i % 32 repeats per block only when the
 * block is whole warps; i/2 only when the step is even. Checked against
 * brute force either way, and affine where the algebra says so. */
static void test_launch_dependent(void)
{
    static const char *const texts[] = {"(i%32)*33", "i % 32", "i / 2", "i & 31", "i | 3", "i ^ 7",
                                        "(i % 64) * 2 + bx", "i % 1000", "i >> 4",
                                        "(i / 32) * 32", "i % 33"};
    for (size_t x = 0; x < sizeof texts / sizeof texts[0]; x++)
        for (size_t k = 0; k < NLAUNCH; k++)
            check_one(texts[x], &launches[k]);
    const launch_case warps = {256, 1, 4096, 4096}, odd = {33, 1, 1000, 1000};
    CHECK(check_one("i % 32", &warps).affine);
    CHECK_EQ_I64(check_one("i % 32", &warps).step, 0);
    CHECK(check_one("i % 32", &odd).bounded);
    CHECK(!check_one("i % 32", &odd).affine);
    CHECK(check_one("i / 2", &warps).affine);
    CHECK_EQ_I64(check_one("i / 2", &warps).step, 128);
    CHECK(!check_one("i / 2", &odd).affine);
}

/* No period: a sound bound, and no failure promised where none can be. */
static void test_no_period(void)
{
    static const char *const texts[] = {"(i*i) % n", "(i*7919) % n", "i*i", "(i ^ (i >> 3)) % n",
                                        "min(i, n - 1)", "max(i - 500, 0)", "i / (tx + 1)",
                                        "(i * 2654435761) % 4096"};
    for (size_t x = 0; x < sizeof texts / sizeof texts[0]; x++)
        for (size_t k = 0; k < NLAUNCH; k++)
            check_one(texts[x], &launches[k]);
    const launch_case big = {256, 1, (uint64_t)1 << 30, (int64_t)1 << 30};
    cml_expr *e = NULL;
    CHECK(cml_expr_parse("(i*i)%n", &e, NULL) == CML_OK);
    cml_expr_launch l = {big.bdx, big.bdy, big.threads, big.n};
    cml_expr_shape sh;
    CHECK(cml_expr_shape_of(e, &l, NULL, &sh) == CML_OK);
    /* 2^30 threads: i*i < 2^60 fits, and % n of a value >= 0 is 0..n-1 */
    CHECK(!sh.affine && sh.bounded && !sh.fails);
    CHECK_EQ_I64(sh.lo, 0);
    CHECK_EQ_I64(sh.hi, ((int64_t)1 << 30) - 1);
    cml_expr_free(e);
}

/* Failures: in block 0 (named), beyond it (not promised away). */
static void test_failures(void)
{
    static const char *const texts[] = {"100 / (i - 40)", "i % (tx - 5)", "1 << (i - 10)",
                                        "i * 4611686018427387904", "(i - 3) << 2",
                                        "100 / (bx - 2)", "-(i - 9223372036854775807 - 1)",
                                        "i / (i - i)", "(i*i*i*i*i) % 7"};
    for (size_t x = 0; x < sizeof texts / sizeof texts[0]; x++)
        for (size_t k = 0; k < NLAUNCH; k++)
            check_one(texts[x], &launches[k]);
    const launch_case lc = {256, 1, 4096, 4096};
    cml_expr_shape sh = check_one("100 / (i - 40)", &lc);
    CHECK(sh.fails);
    CHECK_EQ_U64(sh.fail_thread, 40);
    sh = check_one("100 / (bx - 2)", &lc);
    CHECK(!sh.bounded && !sh.affine);
}

/* ---- random expressions --------------------------------------------------- */

static uint64_t rng = 0x243F6A8885A308D3ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void gen(char *buf, size_t len, int depth)
{
    static const char *const leaves[] = {"i", "tx", "ty", "bx", "lane", "n", "bdx", "bdy", "gdx",
                                         "0", "1", "3", "32", "33", "128", "1000", "-7"};
    static const char *const ops[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"};
    if (depth == 0 || rnd(4) == 0) {
        snprintf(buf, len, "%s", leaves[rnd(sizeof leaves / sizeof leaves[0])]);
        return;
    }
    char a[512], b[512];
    gen(a, sizeof a, depth - 1);
    gen(b, sizeof b, depth - 1);
    unsigned k = rnd(12);
    if (k == 10)
        snprintf(buf, len, "min(%s, %s)", a, b);
    else if (k == 11)
        snprintf(buf, len, "max(%s, %s)", a, b);
    else if (k == 5 || k == 6) /* shifts by small counts mostly */
        snprintf(buf, len, "(%s) %s %u", a, ops[k], rnd(8));
    else
        snprintf(buf, len, "(%s) %s (%s)", a, ops[k], b);
}

static void test_random(void)
{
    char text[2048];
    for (int r = 0; r < 3000; r++) {
        gen(text, sizeof text, 1 + (int)rnd(4));
        check_one(text, &launches[rnd(NLAUNCH)]);
    }
}

int main(void)
{
    test_affine();
    test_launch_dependent();
    test_no_period();
    test_failures();
    test_random();
    return cml_test_summary("test_expr_shape");
}
