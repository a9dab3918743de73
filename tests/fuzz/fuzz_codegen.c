/*
 * libFuzzer target for the parser and the CUDA C generator together
 * (src/model/expr.c, src/model/expr_codegen.c).
 *
 * Arbitrary bytes become a NUL-terminated text. When it parses:
 *   - its C text (cml_expr_c_text) must be a sentence of the small grammar
 *     below and nothing else, so only the generator's own tokens can reach
 *     the compiler:
 *       E    := VAR | NUM "LL" | "(-" NUM "LL)" | MIN | "(-" E ")" | "(~" E ")"
 *             | "(" E " " OP " " E ")" | FN "(" E ", " E ")"
 *       VAR  := i | tx | ty | bx | by | bdx | bdy | gdx | gdy | lane | n
 *       OP   := + | - | * | / | % | << | & | ^ | "|"
 *       FN   := cml_shr | cml_min | cml_max | cml_mod
 *       MIN  := "(-9223372036854775807LL - 1LL)"
 *   - evaluated with C's rules (the kernel's), with every C-undefined step
 *     noted, it must give the model's value (cml_expr_eval) wherever the
 *     model gives one, without undefined behaviour: the generated kernel
 *     computes what the model predicts;
 *   - every kernel generated from it (several operations, spaces, widths
 *     and paths, picked from the input) holds it in exactly one place:
 *     with that place replaced, the source is byte for byte the kernel of
 *     the expression 0; and it is printable ASCII.
 * A failure aborts (libFuzzer reports it with the input).
 *
 * C leaves INT64_MIN % -1 undefined where the model says 0 (expr.c): the
 * generator prints '%' only for a constant divisor other than -1, and
 * cml_mod (0 for -1) otherwise; a C '%' meeting -1 is a failure here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cumemlab/expr.h"
#include "cumemlab/expr_kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int cond)
{
    if (!cond)
        abort();
}

/* ---- the grammar, evaluated with C's rules ------------------------------ */

typedef struct cur {
    const char *s;
    const cml_expr_vars *v;
    int ub;       /* a C-undefined step was taken */
} cur;

static int lit(cur *c, const char *t)
{
    size_t n = strlen(t);
    if (strncmp(c->s, t, n) != 0)
        return 0;
    c->s += n;
    return 1;
}

static int is_ident(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

/* Decimal digits of at most 19 characters fitting int64_t. */
static int number(cur *c, int64_t *out)
{
    uint64_t x = 0;
    int digits = 0;
    while (*c->s >= '0' && *c->s <= '9') {
        if (++digits > 19)
            return 0;
        x = x * 10 + (uint64_t)(*c->s++ - '0');
    }
    if (!digits || x > (uint64_t)INT64_MAX)
        return 0;
    *out = (int64_t)x;
    return 1;
}

static int var(cur *c, int64_t *out)
{
    static const char *const names[] = {"lane", "bdx", "bdy", "gdx", "gdy", "tx", "ty",
                                        "bx",   "by",  "i",   "n"};
    const int64_t vals[] = {c->v->lane, c->v->bdx, c->v->bdy, c->v->gdx, c->v->gdy, c->v->tx,
                            c->v->ty,   c->v->bx,  c->v->by,  c->v->i,   c->v->n};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t n = strlen(names[k]);
        if (!strncmp(c->s, names[k], n) && !is_ident(c->s[n])) {
            c->s += n;
            *out = vals[k];
            return 1;
        }
    }
    return 0;
}

/* a OP b with C's int64 rules; c->ub set on an undefined step. */
static int64_t apply(cur *c, const char *op, int64_t a, int64_t b)
{
    int64_t r = 0;
    if (!strcmp(op, "+")) {
        c->ub |= __builtin_add_overflow(a, b, &r);
    } else if (!strcmp(op, "-")) {
        c->ub |= __builtin_sub_overflow(a, b, &r);
    } else if (!strcmp(op, "*")) {
        c->ub |= __builtin_mul_overflow(a, b, &r);
    } else if (!strcmp(op, "/") || !strcmp(op, "%")) {
        if (b == 0 || (a == INT64_MIN && b == -1)) {
            c->ub = 1;
            return 0;
        }
        r = op[0] == '/' ? a / b : a % b;
    } else if (!strcmp(op, "<<")) {
        if (b < 0 || b > 63 || a < 0 || (b > 0 && a > (INT64_MAX >> b))) {
            c->ub = 1;
            return 0;
        }
        r = (int64_t)((uint64_t)a << b);
    } else if (!strcmp(op, "&")) {
        r = a & b;
    } else if (!strcmp(op, "|")) {
        r = a | b;
    } else {
        r = a ^ b;
    }
    return r;
}

static int expr_c(cur *c, int64_t *out);

static int call(cur *c, const char *fn, int64_t *out)
{
    int64_t a, b;
    if (!lit(c, fn) || !lit(c, "(") || !expr_c(c, &a) || !lit(c, ", ") || !expr_c(c, &b) ||
        !lit(c, ")"))
        return 0;
    if (!strcmp(fn, "cml_min")) {
        *out = a < b ? a : b;
    } else if (!strcmp(fn, "cml_mod")) {
        c->ub |= b == 0; /* as C's %, but 0 for a divisor of -1 */
        *out = b == 0 || b == -1 ? 0 : a % b;
    } else if (!strcmp(fn, "cml_max")) {
        *out = a > b ? a : b;
    } else if (b < 0 || b > 63) {
        c->ub = 1; /* the helper's shift */
        *out = 0;
    } else {
        *out = a >= 0 ? (int64_t)((uint64_t)a >> b) : (int64_t) ~(~(uint64_t)a >> b);
    }
    return 1;
}

static int expr_c(cur *c, int64_t *out)
{
    int64_t a, b;
    if (lit(c, "(-9223372036854775807LL - 1LL)")) {
        *out = INT64_MIN;
        return 1;
    }
    if (*c->s >= '0' && *c->s <= '9')
        return number(c, out) && lit(c, "LL");
    if (!strncmp(c->s, "cml_", 4))
        return call(c, !strncmp(c->s, "cml_shr", 7)   ? "cml_shr"
                       : !strncmp(c->s, "cml_min", 7) ? "cml_min"
                       : !strncmp(c->s, "cml_mod", 7) ? "cml_mod"
                                                      : "cml_max",
                    out);
    if (var(c, out))
        return 1;
    if (!lit(c, "("))
        return 0;
    if (lit(c, "-")) {
        if (*c->s >= '0' && *c->s <= '9') {
            if (!number(c, &a) || !lit(c, "LL)"))
                return 0;
            *out = -a;
            return 1;
        }
        if (!expr_c(c, &a) || !lit(c, ")"))
            return 0;
        c->ub |= a == INT64_MIN;
        *out = a == INT64_MIN ? 0 : -a;
        return 1;
    }
    if (lit(c, "~")) {
        if (!expr_c(c, &a) || !lit(c, ")"))
            return 0;
        *out = ~a;
        return 1;
    }
    if (!expr_c(c, &a) || !lit(c, " "))
        return 0;
    static const char *const ops[] = {"<<", "+", "-", "*", "/", "%", "&", "|", "^"};
    const char *op = NULL;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0] && !op; k++)
        if (lit(c, ops[k]))
            op = ops[k];
    if (!op || !lit(c, " ") || !expr_c(c, &b) || !lit(c, ")"))
        return 0;
    *out = apply(c, op, a, b);
    return 1;
}

/* ---- the checks --------------------------------------------------------- */

static void vars_from(const uint8_t *data, size_t size, size_t seed, cml_expr_vars *v)
{
    int64_t *f[] = {&v->i,   &v->tx,  &v->ty,  &v->bx,   &v->by, &v->bdx,
                    &v->bdy, &v->gdx, &v->gdy, &v->lane, &v->n};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        uint64_t x = 0x9e3779b97f4a7c15u * (seed + k + 1);
        for (size_t b = 0; b < 8 && size > 0; b++)
            x = x << 8 ^ data[(seed + k * 8 + b) % size];
        /* small values most of the time, as a launch has them */
        *f[k] = seed % 3 ? (int64_t)(x % 4096) : (int64_t)x;
    }
}

/* The C text is a sentence of the grammar, and computes the model's value. */
static void check_text(const cml_expr *e, const char *text, const cml_expr_vars *v)
{
    cur c = {text, v, 0};
    int64_t got = 0;
    require(expr_c(&c, &got));
    require(*c.s == '\0');
    int64_t want = 0;
    if (cml_expr_eval(e, v, &want, NULL) != CML_OK)
        return; /* refused before any kernel is compiled */
    require(!c.ub);
    require(got == want);
}

/* src with the first `what` + text + ";" replaced by `what` + "0LL;". */
static char *replaced(const char *src, const char *what, const char *text)
{
    size_t wl = strlen(what), tl = strlen(text);
    const char *at = strstr(src, what);
    require(at != NULL);
    require(!strncmp(at + wl, text, tl) && at[wl + tl] == ';');
    size_t head = (size_t)(at - src) + wl, n = strlen(src);
    char *out = malloc(n + 8);
    require(out != NULL);
    memcpy(out, src, head);
    strcpy(out + head, "0LL");
    strcpy(out + head + 3, at + wl + tl);
    return out;
}

static void check_kernel(const cml_expr *e, const char *text, const cml_expr *zero,
                         cml_expr_kernel k)
{
    k.index = e;
    k.src = k.op == CML_EXPR_COPY ? e : NULL;
    char *src = NULL;
    if (cml_expr_kernel_check(&k, NULL, 0) != CML_OK) {
        require(cml_expr_kernel_source(&k, &src) == CML_EINVAL && src == NULL);
        return;
    }
    require(cml_expr_kernel_source(&k, &src) == CML_OK && src != NULL);
    for (const char *p = src; *p; p++)
        require(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
    char *once = replaced(src, "const cml_i64 idx = ", text);
    if (k.src) {
        char *twice = replaced(once, "const cml_i64 s = ", text);
        free(once);
        once = twice;
    }
    cml_expr_kernel z = k;
    z.index = zero;
    z.src = k.src ? zero : NULL;
    char *ref = NULL;
    require(cml_expr_kernel_source(&z, &ref) == CML_OK);
    require(strcmp(once, ref) == 0);
    free(ref);
    free(once);
    free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > CML_EXPR_MAX_LEN + 8)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cml_expr *e = NULL, *zero = NULL;
    cml_expr_error err;
    if (cml_expr_parse(text, &e, &err) != CML_OK) {
        free(text);
        return 0;
    }
    char *c = NULL;
    require(cml_expr_c_text(e, &c) == CML_OK && c != NULL);
    for (size_t seed = 0; seed < 6; seed++) {
        cml_expr_vars v;
        vars_from(data, size, seed, &v);
        check_text(e, c, &v);
    }
    require(cml_expr_parse("0", &zero, &err) == CML_OK);
    /* a few kernels, picked by the input */
    static const cml_space spaces[] = {CML_SPACE_GLOBAL, CML_SPACE_SHARED, CML_SPACE_CONSTANT,
                                       CML_SPACE_LOCAL};
    static const unsigned elems[] = {1, 2, 4, 8, 16, 3};
    unsigned h = 2166136261u;
    for (size_t b = 0; b < size; b++)
        h = (h ^ data[b]) * 16777619u;
    for (unsigned r = 0; r < 4; r++, h = h * 1103515245u + 12345u) {
        cml_expr_kernel k = {NULL, NULL, (cml_expr_op)(h % 3), spaces[(h >> 4) % 4],
                             (cml_cache)((h >> 8) % 4), elems[(h >> 12) % 6]};
        check_kernel(e, c, zero, k);
    }
    free(c);
    cml_expr_free(zero);
    cml_expr_free(e);
    free(text);
    return 0;
}
