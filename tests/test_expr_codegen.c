/*
 * The CUDA C generator of index expressions (src/model/expr_codegen.c):
 * the C text of each operation against hand-written expectations, the
 * kernels' shapes for every operation and space, refusals, and (where
 * NVRTC is installed; it needs no GPU) every generated kernel of 30 varied
 * expressions compiled for sm_90 without a single warning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cumemlab/expr.h"
#include "cumemlab/expr_kernel.h"
#include "gpu/nvrtc.h"
#include "test_util.h"

static char *c_text(const char *text)
{
    cml_expr *e = NULL;
    cml_expr_error err;
    char *out = NULL;
    CHECK(cml_expr_parse(text, &e, &err) == CML_OK);
    if (e)
        CHECK(cml_expr_c_text(e, &out) == CML_OK);
    cml_expr_free(e);
    return out;
}

static void check_text(const char *expr, const char *want)
{
    char *got = c_text(expr);
    if (!got || strcmp(got, want) != 0)
        fprintf(stderr, "%s: got %s, want %s\n", expr, got ? got : "(null)", want);
    CHECK(got && !strcmp(got, want));
    free(got);
}

/* Each operation's C spelling: parenthesised, constants as long long,
 * arithmetic >> and min/max through helpers, folded constants folded. */
static void test_c_text(void)
{
    check_text("i", "i");
    check_text("i*2 + 1", "((i * 2LL) + 1LL)");
    check_text("(i % 32) * 33", "((i % 32LL) * 33LL)");
    check_text("i / 4", "(i / 4LL)");
    check_text("i / 3", "(i / 3LL)");
    check_text("i % 7", "(i % 7LL)");
    check_text("i % (n - 1)", "cml_mod(i, (n - 1LL))"); /* INT64_MIN % -1 is 0, as modelled */
    check_text("i % (0 - 1)", "cml_mod(i, (-1LL))");
    check_text("i >> 2", "cml_shr(i, 2LL)");
    check_text("i << tx", "(i << tx)");
    check_text("min(i, n - 1)", "cml_min(i, (n - 1LL))");
    check_text("max(0, tx - 3)", "cml_max(0LL, (tx - 3LL))");
    check_text("-i", "(-i)");
    check_text("~lane & 7", "((~lane) & 7LL)");
    check_text("2*16 + ty*bdx", "(32LL + (ty * bdx))");
    check_text("tx ^ ty | bx", "((tx ^ ty) | bx)");
    check_text("-9223372036854775807 - 1 + i", "(i + (-9223372036854775807LL - 1LL))");
    check_text("0 - 5", "(-5LL)");
    check_text("gdx*gdy + by", "((gdx * gdy) + by)");
}

static char *source(const char *index, const char *src, cml_expr_op op, cml_space space,
                    cml_cache cache, unsigned elem)
{
    cml_expr *e = NULL, *s = NULL;
    cml_expr_error err;
    char *out = NULL;
    CHECK(cml_expr_parse(index, &e, &err) == CML_OK);
    if (src)
        CHECK(cml_expr_parse(src, &s, &err) == CML_OK);
    cml_expr_kernel k = {e, s, op, space, cache, elem};
    cml_status st = cml_expr_kernel_source(&k, &out);
    if (st)
        fprintf(stderr, "%s: %s\n", index, cml_status_str(st));
    CHECK(st == CML_OK);
    cml_expr_free(e);
    cml_expr_free(s);
    return out;
}

/* The kernel's body for each operation and space. */
static void test_kernel_shapes(void)
{
    char *k = source("(i%32)*33", NULL, CML_EXPR_LOAD, CML_SPACE_GLOBAL, CML_CACHE_CG, 4);
    CHECK_STR_CONTAINS(k, "extern \"C\" __global__ void cml_expr_kernel(const unsigned int");
    CHECK_STR_CONTAINS(k, "const cml_i64 idx = ((i % 32LL) * 33LL);");
    CHECK_STR_CONTAINS(k, "out[i] = cml_fold(__ldcg(&src[idx]));");
    CHECK(strstr(k, "(i%32)*33") == NULL); /* the user's text never reaches the source */
    free(k);
    k = source("i*2", NULL, CML_EXPR_STORE, CML_SPACE_GLOBAL, CML_CACHE_CS, 16);
    CHECK_STR_CONTAINS(k, "__stcs(&dst[idx], cml_value(idx));");
    CHECK_STR_CONTAINS(k, "uint4 cml_value(cml_i64 j)");
    free(k);
    k = source("i*2", NULL, CML_EXPR_STORE, CML_SPACE_GLOBAL, CML_CACHE_CA, 1);
    CHECK_STR_CONTAINS(k, "dst[idx] = cml_value(idx);");
    CHECK_STR_CONTAINS(k, "--path wb");
    free(k);
    k = source("i + 1", "n - 1 - i", CML_EXPR_COPY, CML_SPACE_GLOBAL, CML_CACHE_CA, 8);
    CHECK_STR_CONTAINS(k, "const cml_i64 s = ((n - 1LL) - i);");
    CHECK_STR_CONTAINS(k, "dst[idx] = src[s];");
    free(k);
    k = source("tx*32", NULL, CML_EXPR_LOAD, CML_SPACE_SHARED, CML_CACHE_CA, 4);
    CHECK_STR_CONTAINS(k, "extern __shared__ unsigned int tile[];");
    CHECK_STR_CONTAINS(k, "tile[j] = src[j]");
    CHECK_STR_CONTAINS(k, "out[i] = cml_fold(tile[idx]);");
    free(k);
    k = source("tx*32", NULL, CML_EXPR_STORE, CML_SPACE_SHARED, CML_CACHE_CA, 2);
    CHECK_STR_CONTAINS(k, "tile[j] = (unsigned short)~0ull;");
    CHECK_STR_CONTAINS(k, "dst[(by * gdx + bx) * tile_len + j] = tile[j];");
    free(k);
    k = source("lane / 4", NULL, CML_EXPR_LOAD, CML_SPACE_CONSTANT, CML_CACHE_CA, 8);
    CHECK_STR_CONTAINS(k, "__constant__ unsigned long long cml_expr_const[8192];");
    CHECK_STR_CONTAINS(k, "out[i] = cml_fold(cml_expr_const[idx]);");
    free(k);
}

static void test_refused(void)
{
    cml_expr *e = NULL;
    cml_expr_error perr;
    char err[256];
    CHECK(cml_expr_parse("i", &e, &perr) == CML_OK);
    cml_expr_kernel k = {e, NULL, CML_EXPR_STORE, CML_SPACE_CONSTANT, CML_CACHE_CA, 4};
    CHECK(cml_expr_kernel_check(&k, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "read-only");
    k.space = CML_SPACE_GLOBAL;
    k.elem = 3;
    CHECK(cml_expr_kernel_check(&k, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "1, 2, 4, 8 or 16");
    k.elem = 4;
    k.cache = CML_CACHE_NC;
    CHECK(cml_expr_kernel_check(&k, err, sizeof err) == CML_EINVAL);
    k.cache = CML_CACHE_CA;
    k.src = e;
    CHECK(cml_expr_kernel_check(&k, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "--src");
    char *out = NULL;
    CHECK(cml_expr_kernel_source(&k, &out) == CML_EINVAL && out == NULL);
    cml_expr_free(e);
}

/* 30 expressions, over every operation, space, path and element size. */
static void test_nvrtc_compiles(void)
{
    cml_nvrtc *c = NULL;
    char why[256];
    if (cml_nvrtc_open(&c, why, sizeof why) != CML_OK) {
        printf("test_expr_codegen: NVRTC part skipped: %s\n", why);
        return;
    }
    static const char *const exprs[] = {
        "i",         "i + 11",        "i * 2",           "i * 32",        "(i % 32) * 33",
        "0",         "ty + tx * bdy", "tx * 32",         "i / 32",        "i >> 3",
        "i << 1",    "min(i, n - 1)", "max(0, i - 100)", "n - 1 - i",     "i ^ 1",
        "i & ~31",   "lane * 4",      "(i | 1) - 1",     "bx * bdx + tx", "by * gdx + bx",
        "i % 7",     "-i + n - 1",    "lane / 2",        "tx + ty * bdx", "(i * 5) % 1024",
        "i >> lane", "gdy * 0 + i",   "i * 1024 % n",    "i / 3 * 3",     "~(~i)",
    };
    const cml_space spaces[] = {CML_SPACE_GLOBAL, CML_SPACE_SHARED, CML_SPACE_CONSTANT};
    const unsigned elems[] = {1, 2, 4, 8, 16};
    for (size_t x = 0; x < sizeof exprs / sizeof exprs[0]; x++) {
        cml_space space = spaces[x % 3];
        cml_expr_op op = space == CML_SPACE_CONSTANT ? CML_EXPR_LOAD
                         : space == CML_SPACE_SHARED ? (cml_expr_op)(x % 2)
                                                     : (cml_expr_op)(x % 3);
        cml_cache cache = op == CML_EXPR_LOAD ? (cml_cache)(x % 4)
                                              : (x % 2 ? CML_CACHE_CG : CML_CACHE_CS);
        char *src = source(exprs[x], op == CML_EXPR_COPY && x % 2 ? "n - 1 - i" : NULL, op,
                           space, cache, elems[x % 5]);
        if (!src)
            continue;
        cml_nvrtc_result r;
        char err[4096] = "";
        cml_status st = cml_nvrtc_compile(c, src, 9, 0, &r, err, sizeof err);
        if (st != CML_OK || (r.log && r.log[0]))
            fprintf(stderr, "expression %s: %s%s\n%s\n", exprs[x], err, r.log ? r.log : "",
                    src);
        CHECK(st == CML_OK);
        CHECK(r.cubin_bytes > 0 && !r.cached);
        CHECK(r.log && r.log[0] == '\0'); /* no warnings */
        /* the same source again: from the cache */
        cml_nvrtc_result again;
        CHECK(cml_nvrtc_compile(c, src, 9, 0, &again, err, sizeof err) == CML_OK);
        CHECK(again.cached && again.cubin == r.cubin);
        free(src);
    }
    CHECK(cml_nvrtc_version(c) >= 12000);
    cml_nvrtc_close(c);
}

int main(void)
{
    test_c_text();
    test_kernel_shapes();
    test_refused();
    test_nvrtc_compiles();
    return cml_test_summary("test_expr_codegen");
}
