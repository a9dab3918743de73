/*
 * libFuzzer target for the index-expression parser and evaluator.
 *
 * Arbitrary bytes become a NUL-terminated text (cut at the first NUL, as any
 * C caller would see them). A parse that succeeds is evaluated with several
 * variable sets, including extremes and values taken from the input; a parse
 * that fails has its error formatted into buffers of several sizes. Besides
 * the sanitizers' own checks, it aborts when an invariant breaks:
 *   - a failed parse gives a column in 1..len+1 (or the length limit's) and
 *     a NUL-terminated message;
 *   - evaluation is deterministic, its errors carry a column inside the
 *     text, and variables outside cml_expr_vars_used() do not change the
 *     value;
 *   - formatting stays inside its buffer and NUL-terminates it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cumemlab/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort (a crash libFuzzer reports, with the input) unless cond holds. */
static void require(int cond)
{
    if (!cond) abort();
}

/* Fill v from the input bytes at `seed` (any bytes, any values). */
static void vars_from(const uint8_t *data, size_t size, size_t seed, cml_expr_vars *v)
{
    int64_t *f[] = {&v->i,   &v->tx,  &v->ty,  &v->bx,   &v->by, &v->bdx,
                    &v->bdy, &v->gdx, &v->gdy, &v->lane, &v->n};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        uint64_t x = 0x9e3779b97f4a7c15u * (seed + k + 1);
        for (size_t b = 0; b < 8 && size > 0; b++) x = x << 8 ^ data[(seed + k * 8 + b) % size];
        *f[k] = (int64_t)x;
    }
}

/* Evaluate e with v and check the result's invariants. */
static void eval_checked(const cml_expr *e, const cml_expr_vars *v, size_t len)
{
    int64_t r1 = 0, r2 = 0;
    cml_expr_error err;
    memset(&err, 0x55, sizeof err);
    cml_status s1 = cml_expr_eval(e, v, &r1, &err);
    cml_status s2 = cml_expr_eval(e, v, &r2, NULL);
    require(s1 == s2);
    if (s1 == CML_OK) {
        require(r1 == r2);
        /* changing every unused variable leaves the value alone */
        unsigned used = cml_expr_vars_used(e);
        cml_expr_vars w = *v;
        int64_t *f[] = {&w.i,   &w.tx,  &w.ty,  &w.bx,   &w.by, &w.bdx,
                        &w.bdy, &w.gdx, &w.gdy, &w.lane, &w.n};
        for (unsigned k = 0; k < sizeof f / sizeof f[0]; k++)
            if (!(used & 1u << k)) *f[k] = ~*f[k] ^ 12345;
        int64_t r3 = 0;
        require(cml_expr_eval(e, &w, &r3, NULL) == CML_OK && r3 == r1);
    } else {
        require(s1 == CML_EINVAL);
        require(err.column >= 1 && err.column <= len);
        require(memchr(err.message, '\0', sizeof err.message) != NULL);
        char buf[300];
        cml_expr_format_error("", &err, buf, sizeof buf);
        require(memchr(buf, '\0', sizeof buf) != NULL);
    }
}

/* Format err for text into heap buffers of several sizes (exact size, so
 * ASan sees any overrun). */
static void format_checked(const char *text, const cml_expr_error *err)
{
    static const size_t sizes[] = {1, 2, 4, 5, 6, 16, 17, 40, 243, 300, 9000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        char *buf = malloc(sizes[k]);
        if (!buf) return;
        memset(buf, 'x', sizes[k]);
        cml_expr_format_error(text, err, buf, sizes[k]);
        require(memchr(buf, '\0', sizes[k]) != NULL);
        free(buf);
    }
}

/* One input: parse, then evaluate or format; see the file comment. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t len = strlen(text);

    cml_expr *e = NULL;
    cml_expr_error err;
    memset(&err, 0x55, sizeof err);
    cml_status s = cml_expr_parse(text, &e, &err);
    if (s == CML_OK) {
        require(e != NULL);
        require(len <= CML_EXPR_MAX_LEN);
        static const cml_expr_vars fixed[] = {
            {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
            {1000, 8, 3, 3, 0, 32, 4, 16, 1, 8, 4096},
            {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
            {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX,
             INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX},
            {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN,
             INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN},
            {63, 64, 31, 32, 1, 2, 3, 7, 8, 31, 65},
        };
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
            eval_checked(e, &fixed[k], len);
        for (size_t seed = 0; seed < 3; seed++) {
            cml_expr_vars v;
            vars_from(data, size, seed * 7, &v);
            eval_checked(e, &v, len);
        }
        cml_expr_free(e);
    } else {
        require(s == CML_EINVAL);
        require(memchr(err.message, '\0', sizeof err.message) != NULL);
        require(err.message[0] != '\0');
        if (len > CML_EXPR_MAX_LEN)
            require(err.column == CML_EXPR_MAX_LEN + 1);
        else
            require(err.column >= 1 && err.column <= len + 1);
        format_checked(text, &err);
    }
    free(text);
    return 0;
}
