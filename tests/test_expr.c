/*
 * Tests of the index-expression parser and evaluator (src/model/expr.c):
 * values (precedence, associativity, unary operators, min/max, numbers,
 * variables), evaluation errors with their columns, malformed inputs with
 * their exact columns and messages, limits (length, nesting, long unary
 * chains), error formatting, and a randomized differential test against an
 * independent tree evaluator that uses 128-bit arithmetic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cumemlab/expr.h"
#include "test_util.h"

__extension__ typedef __int128 i128;

static const cml_expr_vars zero_vars;

/* Parse and evaluate `text` with `v`; CHECKs that both succeed (reporting
 * `line`) and returns the value (0 on failure). */
static int64_t eval_ok(const char *text, const cml_expr_vars *v, int line)
{
    cml_expr *e = NULL;
    cml_expr_error err = {0, ""};
    int64_t r = 0;
    cml_status s = cml_expr_parse(text, &e, &err);
    cml_test_checks++;
    if (s != CML_OK) {
        cml_test_failures++;
        fprintf(stderr, "line %d: parse of \"%s\" failed: %s (column %zu)\n", line, text,
                err.message, err.column);
        return 0;
    }
    s = cml_expr_eval(e, v, &r, &err);
    cml_test_checks++;
    if (s != CML_OK) {
        cml_test_failures++;
        fprintf(stderr, "line %d: eval of \"%s\" failed: %s\n", line, text, err.message);
    }
    cml_expr_free(e);
    return r;
}

#define VAL(text, expected) CHECK_EQ_I64(eval_ok((text), &zero_vars, __LINE__), (expected))
#define VALV(text, vars, expected) CHECK_EQ_I64(eval_ok((text), (vars), __LINE__), (expected))

/* Parse `text` (which must parse), evaluate with `v` and CHECK that this fails
 * at `column` with a message containing `needle`. */
static void eval_fails(const char *text, const cml_expr_vars *v, size_t column,
                       const char *needle, int line)
{
    cml_expr *e = NULL;
    cml_expr_error err = {0, ""};
    int64_t r = 12345;
    cml_test_checks++;
    if (cml_expr_parse(text, &e, &err) != CML_OK) {
        cml_test_failures++;
        fprintf(stderr, "line %d: parse of \"%s\" failed: %s\n", line, text, err.message);
        return;
    }
    cml_status s = cml_expr_eval(e, v, &r, &err);
    cml_test_checks++;
    if (s != CML_EINVAL) {
        cml_test_failures++;
        fprintf(stderr, "line %d: eval of \"%s\" gave %lld, expected an error\n", line, text,
                (long long)r);
    } else {
        if (err.column != column) {
            cml_test_failures++;
            fprintf(stderr, "line %d: \"%s\": error column %zu, expected %zu (%s)\n", line, text,
                    err.column, column, err.message);
        }
        cml_test_checks++;
        CHECK_STR_CONTAINS(err.message, needle);
        /* and without an error struct it still fails, without crashing */
        CHECK(cml_expr_eval(e, v, &r, NULL) == CML_EINVAL);
    }
    cml_expr_free(e);
}

#define EVAL_FAILS(text, col, needle) eval_fails((text), &zero_vars, (col), (needle), __LINE__)
#define EVAL_FAILSV(text, vars, col, needle) eval_fails((text), (vars), (col), (needle), __LINE__)

/* CHECK that parsing `text` fails at `column` with a message containing
 * `needle` (and a second needle, if not NULL), leaving *out untouched. */
static void parse_fails(const char *text, size_t column, const char *needle,
                        const char *needle2, int line)
{
    cml_expr *sentinel = (cml_expr *)&zero_vars, *e = sentinel;
    cml_expr_error err = {0, ""};
    cml_status s = cml_expr_parse(text, &e, &err);
    cml_test_checks++;
    if (s != CML_EINVAL) {
        cml_test_failures++;
        fprintf(stderr, "line %d: parse of \"%.60s\" did not fail (status %d)\n", line, text,
                (int)s);
        if (s == CML_OK) cml_expr_free(e);
        return;
    }
    CHECK(e == sentinel);
    cml_test_checks++;
    if (err.column != column) {
        cml_test_failures++;
        fprintf(stderr, "line %d: \"%.60s\": error column %zu, expected %zu (%s)\n", line, text,
                err.column, column, err.message);
    }
    CHECK_STR_CONTAINS(err.message, needle);
    if (needle2) CHECK_STR_CONTAINS(err.message, needle2);
    CHECK(strlen(err.message) < sizeof err.message);
}

#define PARSE_FAILS(text, col, needle) parse_fails((text), (col), (needle), NULL, __LINE__)
#define PARSE_FAILS2(text, col, n1, n2) parse_fails((text), (col), (n1), (n2), __LINE__)

/* --- values ------------------------------------------------------------- */

/* Precedence and associativity follow C. */
static void test_precedence(void)
{
    VAL("1+2*3", 7);
    VAL("(1+2)*3", 9);
    VAL("1<<2+1", 8);
    VAL("6&3|8", 10);
    VAL("5^1&3", 4);
    VAL("1|2^3", 1);
    VAL("3|4&1", 3);
    VAL("2+3<<1", 10);
    VAL("1<<3>>1", 4);
    VAL("7-2*3", 1);
    VAL("12&10^6", 14);   /* (12&10)^6 = 8^6 */
    VAL("1|6^5&3", 7);    /* 1|(6^(5&3)) = 1|(6^1) */
    VAL("20-4/2*3", 14);
    VAL("2*3%4", 2);
    VAL("20%7*2", 12);
    VAL("100/10/5", 2);
    VAL("2-3-4", -5);
    VAL("2-(3-4)", 3);
    VAL("1<<2<<3", 32);
    VAL("256>>2>>3", 8);
    VAL("((((7))))", 7);
    VAL("-2*3", -6);
    VAL("-(2+3)", -5);
    VAL("-8>>1+1", -2);

    /* the same with variables, so that nothing is folded at parse time */
    cml_expr_vars v = zero_vars;
    v.i = 1;
    v.tx = 2;
    v.ty = 3;
    v.n = 100;
    VALV("i+tx*ty", &v, 7);
    VALV("(i+tx)*ty", &v, 9);
    VALV("i<<tx+i", &v, 8);
    VALV("6&ty|8", &v, 10);
    VALV("5^i&ty", &v, 4);
    VALV("i|tx^ty", &v, 1);
    VALV("n/10/(tx+ty)", &v, 2);
    VALV("n/(tx*5)/(tx+ty)", &v, 2);
    VALV("tx-ty-4", &v, -5);
    VALV("tx-(ty-4)", &v, 3);
    VALV("i<<tx<<ty", &v, 32);
    VALV("n*i>>tx>>i", &v, 12);
    VALV("-tx*ty", &v, -6);
    VALV("-(tx+ty)", &v, -5);
    VALV("n-tx*ty%4", &v, 98);
}

/* Unary operators, including long chains. */
static void test_unary(void)
{
    VAL("-3", -3);
    VAL("+3", 3);
    VAL("- -3", 3);
    VAL("--3", 3);
    VAL("+-+3", -3);
    VAL("~0", -1);
    VAL("~5", -6);
    VAL("~-1", 0);
    VAL("-~1", 2);
    VAL("~~7", 7);
    VAL("-~-~0", 2);
    VAL("2*-3", -6);
    VAL("2- -3", 5);
    VAL("-i", -0);
    cml_expr_vars v = zero_vars;
    v.i = 5;
    VALV("-i*2", &v, -10);
    VALV("~i+1", &v, -5);
    VALV("- - - i", &v, -5);
    VALV("-(-9223372036854775807-1+i)", &v, INT64_MAX - 4);

    /* chains far longer than the nesting limit are fine: a loop, not recursion */
    static char buf[4200];
    for (int k = 0; k < 4000; k++) buf[k] = k % 2 ? '-' : '~';
    strcpy(buf + 4000, "i");
    /* (~-)^2000 i: ~(-x) = x - 1, so 2000 pairs subtract 2000 */
    VALV(buf, &v, 5 - 2000);
    for (int k = 0; k < 4001; k++) buf[k] = '-';
    strcpy(buf + 4001, "7");
    VAL(buf, -7);
}

/* Division, remainder and shifts follow C, with >> arithmetic. */
static void test_division_and_shifts(void)
{
    VAL("7/2", 3);
    VAL("-7/2", -3);
    VAL("7/-2", -3);
    VAL("-7/-2", 3);
    VAL("7%3", 1);
    VAL("-7%3", -1);
    VAL("7%-3", 1);
    VAL("-7%-3", -1);
    VAL("(-9223372036854775807-1) % -1", 0);
    VAL("(-9223372036854775807-1) / 1", INT64_MIN);
    VAL("-7>>1", -4);
    VAL("-1>>63", -1);
    VAL("-8>>3", -1);
    VAL("-9>>3", -2);
    VAL("(-9223372036854775807-1)>>63", -1);
    VAL("0x7fffffffffffffff>>62", 1);
    VAL("1<<0", 1);
    VAL("1<<62", INT64_C(4611686018427387904));
    VAL("3<<61", INT64_C(6917529027641081856));
    VAL("0<<63", 0);
    VAL("5>>0", 5);
    cml_expr_vars v = zero_vars;
    v.i = -7;
    VALV("i>>1", &v, -4);
    VALV("i/2", &v, -3);
    VALV("i%2", &v, -1);
    VALV("i%-1", &v, 0);
    /* by powers of two (a specialised path) */
    VALV("i/4", &v, -1);
    VALV("i%4", &v, -3);
    VALV("i/1", &v, -7);
    VALV("i%1", &v, 0);
    VALV("i/2/2", &v, -1);
    VALV("(i-1)/8", &v, -1);
    VALV("(i-1)%8", &v, 0);
    VALV("(i-2)%8", &v, -1);
    VALV("-i/4", &v, 1);
    VALV("-i%4", &v, 3);
    v.i = INT64_MIN;
    VALV("i/0x4000000000000000", &v, -2);
    VALV("i%0x4000000000000000", &v, 0);
    VALV("(i+1)%0x4000000000000000", &v, -INT64_C(0x3fffffffffffffff));
    VALV("(i+1)/0x4000000000000000", &v, -1);
    VALV("i/2", &v, INT64_MIN / 2);
    VALV("i%32", &v, 0);
    v.i = INT64_MAX;
    VALV("i/0x4000000000000000", &v, 1);
    VALV("i%0x4000000000000000", &v, INT64_C(0x3fffffffffffffff));
    VALV("i%32", &v, 31);
    VALV("i/32", &v, INT64_MAX / 32);
}

/* min/max, nested and with whitespace. */
static void test_min_max(void)
{
    VAL("min(3,4)", 3);
    VAL("max(3,4)", 4);
    VAL("min(-1, 1)", -1);
    VAL("max(-1, -2)", -1);
    VAL("min(max(1,5),3)", 3);
    VAL("max(min(1,5),min(7,max(2,9)))", 7);
    VAL(" min ( 1 , 2 ) ", 1);
    VAL("min(1+2*3, 2<<2)", 7);
    VAL("2*max(1,2)+1", 5);
    VAL("-min(1,2)", -1);
    cml_expr_vars v = zero_vars;
    v.i = 100;
    v.n = 64;
    VALV("min(i, n - 1)", &v, 63);
    VALV("max(i, n - 1)", &v, 100);
    VALV("min(3, i)", &v, 3);
    VALV("max(3, i)", &v, 100);
}

/* Numbers: decimal, hex, limits. */
static void test_numbers(void)
{
    VAL("0", 0);
    VAL("007", 7);
    VAL("0x10", 16);
    VAL("0XfF", 255);
    VAL("0x0", 0);
    VAL("0x7fffffffffffffff", INT64_MAX);
    VAL("0x00000000000000000000001", 1);
    VAL("9223372036854775807", INT64_MAX);
    VAL("-9223372036854775807-1", INT64_MIN);
    VAL("123456789012", INT64_C(123456789012));
    VAL(" \t1\n+\r2\v*\f3 ", 7);
}

/* Every variable, the global-index formula, and vars_used. */
static void test_variables(void)
{
    cml_expr_vars v = {.i = 1, .tx = 2, .ty = 3, .bx = 4, .by = 5, .bdx = 6, .bdy = 7,
                       .gdx = 8, .gdy = 9, .lane = 10, .n = 11};
    static const struct {
        const char *name;
        int64_t value;
        int bit;
    } vars[] = {{"i", 1, CML_EXPR_VAR_I},         {"tx", 2, CML_EXPR_VAR_TX},
                {"ty", 3, CML_EXPR_VAR_TY},       {"bx", 4, CML_EXPR_VAR_BX},
                {"by", 5, CML_EXPR_VAR_BY},       {"bdx", 6, CML_EXPR_VAR_BDX},
                {"bdy", 7, CML_EXPR_VAR_BDY},     {"gdx", 8, CML_EXPR_VAR_GDX},
                {"gdy", 9, CML_EXPR_VAR_GDY},     {"lane", 10, CML_EXPR_VAR_LANE},
                {"n", 11, CML_EXPR_VAR_N}};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        VALV(vars[k].name, &v, vars[k].value);
        cml_expr *e = NULL;
        CHECK(cml_expr_parse(vars[k].name, &e, NULL) == CML_OK);
        CHECK_EQ_U64(cml_expr_vars_used(e), 1u << vars[k].bit);
        cml_expr_free(e);
    }
    VALV("tx + ty*bdx", &v, 2 + 3 * 6);
    VALV("(by*gdx + bx)*bdx*bdy + ty*bdx + tx", &v, (5 * 8 + 4) * 6 * 7 + 3 * 6 + 2);
    VALV("i+tx+ty+bx+by+bdx+bdy+gdx+gdy+lane+n", &v, 66);

    cml_expr *e = NULL;
    CHECK(cml_expr_parse("i+tx+ty+bx+by+bdx+bdy+gdx+gdy+lane+n", &e, NULL) == CML_OK);
    CHECK_EQ_U64(cml_expr_vars_used(e), (1u << 11) - 1);
    cml_expr_free(e);
    CHECK(cml_expr_parse("lane * 4 + n*0 + lane", &e, NULL) == CML_OK);
    CHECK_EQ_U64(cml_expr_vars_used(e), (1u << CML_EXPR_VAR_LANE) | (1u << CML_EXPR_VAR_N));
    cml_expr_free(e);
    CHECK(cml_expr_parse("min(1, 2) * 0x20", &e, NULL) == CML_OK);
    CHECK_EQ_U64(cml_expr_vars_used(e), 0);
    cml_expr_free(e);
    CHECK_EQ_U64(cml_expr_vars_used(NULL), 0);

    /* the README's pattern, thread by thread, against C */
    CHECK(cml_expr_parse("(i % 32) * 33", &e, NULL) == CML_OK);
    int mismatches = 0;
    for (int64_t i = 0; i < 4096; i++) {
        cml_expr_vars t = zero_vars;
        t.i = i;
        int64_t r = -1;
        if (cml_expr_eval(e, &t, &r, NULL) != CML_OK || r != (i % 32) * 33) mismatches++;
    }
    CHECK_EQ_I64(mismatches, 0);
    cml_expr_free(e);
    /* constant on the left of a commutative and of a non-commutative op */
    v.i = 10;
    VALV("3 - i", &v, -7);
    VALV("100 / i", &v, 10);
    VALV("1 << i", &v, 1024);
    VALV("3 * i + 2", &v, 32);
    VALV("min(3, i) + max(i, 30) + (5 & i) + (5 | i) + (5 ^ i)", &v, 3 + 30 + 0 + 15 + 15);
}

/* --- errors at evaluation ------------------------------------------------ */

/* Overflow, division by zero and shift errors, at the operator's column. */
static void test_eval_errors(void)
{
    EVAL_FAILS("9223372036854775807 + 1", 21, "overflow");
    EVAL_FAILS("0x7fffffffffffffff * 2", 20, "overflow");
    EVAL_FAILS("-9223372036854775807 - 2", 22, "overflow");
    EVAL_FAILS("1/0", 2, "division by zero");
    EVAL_FAILS("1 % 0", 3, "remainder by zero");
    EVAL_FAILS("(-9223372036854775807-1) / -1", 26, "overflow");
    EVAL_FAILS("-(-9223372036854775807-1)", 1, "overflow");
    EVAL_FAILS("1 << 64", 3, "shift count 64");
    EVAL_FAILS("1 << -1", 3, "shift count -1");
    EVAL_FAILS("1 >> 64", 3, "outside 0..63");
    EVAL_FAILS("-1 << 1", 4, "left shift of negative value -1");
    EVAL_FAILS("1 << 63", 3, "overflow");
    EVAL_FAILS("3 << 62", 3, "overflow");
    EVAL_FAILS("min(1/0, 2)", 6, "division by zero");
    EVAL_FAILS("1 + 2 + (3 / (2 - 2))", 12, "division by zero");
    /* the first failure in evaluation order is reported */
    EVAL_FAILS("(1/0) + (1%0)", 3, "division by zero");

    cml_expr_vars v = zero_vars;
    v.i = INT64_MAX;
    EVAL_FAILSV("i + 1", &v, 3, "9223372036854775807 + 1");
    EVAL_FAILSV("1 + i", &v, 3, "overflow");
    EVAL_FAILSV("2 * i", &v, 3, "overflow");
    EVAL_FAILSV("i * i", &v, 3, "overflow");
    EVAL_FAILSV("-i - 2", &v, 4, "overflow");
    v.i = INT64_MIN;
    EVAL_FAILSV("-i", &v, 1, "overflow");
    EVAL_FAILSV("i / -1", &v, 3, "overflow");
    EVAL_FAILSV("i - 1", &v, 3, "overflow");
    VALV("~i", &v, INT64_MAX);
    VALV("i % -1", &v, 0);
    v.i = 0;
    EVAL_FAILSV("100 / i", &v, 5, "division by zero");
    EVAL_FAILSV("100 % i", &v, 5, "remainder by zero");
    EVAL_FAILSV("i % i", &v, 3, "remainder by zero");
    v.i = -3;
    EVAL_FAILSV("i << 2", &v, 3, "negative");
    EVAL_FAILSV("1 << i", &v, 3, "shift count -3");
    EVAL_FAILSV("8 >> i", &v, 3, "shift count -3");
    v.i = 64;
    EVAL_FAILSV("1 >> i", &v, 3, "shift count 64");

    /* null arguments */
    cml_expr *e = NULL;
    int64_t r;
    cml_expr_error err;
    CHECK(cml_expr_parse("1", &e, NULL) == CML_OK);
    CHECK(cml_expr_eval(NULL, &zero_vars, &r, &err) == CML_EINVAL);
    CHECK(cml_expr_eval(e, NULL, &r, NULL) == CML_EINVAL);
    CHECK(cml_expr_eval(e, &zero_vars, NULL, &err) == CML_EINVAL);
    cml_expr_free(e);
    cml_expr_free(NULL);
    CHECK(cml_expr_parse(NULL, &e, &err) == CML_EINVAL);
    CHECK(cml_expr_parse("1", NULL, &err) == CML_EINVAL);
}

/* --- malformed input ----------------------------------------------------- */

/* Syntax errors, each with its exact column and message. */
static void test_parse_errors(void)
{
    PARSE_FAILS("", 1, "empty expression");
    PARSE_FAILS("   ", 1, "empty expression");
    PARSE_FAILS("1+", 3, "unexpected end of expression at column 3");
    PARSE_FAILS("1 +  ", 6, "unexpected end of expression");
    PARSE_FAILS2("(1", 3, "expected ')'", "'(' opened at column 1");
    PARSE_FAILS2("2*(1+(3)", 9, "expected ')' at column 9", "opened at column 3");
    PARSE_FAILS2("(1 2)", 4, "opened at column 1", "found '2'");
    PARSE_FAILS("1)", 2, "unexpected ')' at column 2");
    PARSE_FAILS("()", 2, "unexpected ')' at column 2");
    PARSE_FAILS("(i % 32))", 9, "unexpected ')' at column 9");
    PARSE_FAILS("min(1)", 6, "too few arguments to 'min'");
    PARSE_FAILS("max(1)", 6, "too few arguments to 'max'");
    PARSE_FAILS("min(1,2,3)", 8, "too many arguments to 'min'");
    PARSE_FAILS("min()", 5, "unexpected ')'");
    PARSE_FAILS("min(1 2)", 7, "expected ','");
    PARSE_FAILS2("min(1,2", 8, "expected ')'", "'min(' opened at column 4");
    PARSE_FAILS("min 1", 5, "expected '(' after 'min'");
    PARSE_FAILS("max", 4, "expected '(' after 'max'");
    PARSE_FAILS("min(1,max(2,", 13, "unexpected end of expression");
    PARSE_FAILS2("foo", 1, "unknown variable 'foo'",
                 "(known: i, tx, ty, bx, by, bdx, bdy, gdx, gdy, lane, n)");
    PARSE_FAILS("i + j", 5, "unknown variable 'j' at column 5 (known: i, tx,");
    PARSE_FAILS("I", 1, "unknown variable 'I'");
    PARSE_FAILS("lanes", 1, "unknown variable 'lanes'");
    PARSE_FAILS2("foo(1)", 1, "unknown function 'foo'", "known: min, max");
    PARSE_FAILS("1 2", 3, "unexpected '2' at column 3");
    PARSE_FAILS("i i", 3, "unexpected 'i' at column 3");
    PARSE_FAILS("3 $ 4", 3, "unexpected character '$' at column 3");
    PARSE_FAILS("1 < 2", 3, "did you mean '<<'");
    PARSE_FAILS("1 >= 2", 3, "unexpected character '>'");
    PARSE_FAILS("1 + * 2", 5, "unexpected '*' at column 5");
    PARSE_FAILS("1,2", 2, "unexpected ',' at column 2");
    PARSE_FAILS("*", 1, "unexpected '*'");
    PARSE_FAILS("1 + \x80", 5, "unexpected byte 0x80 at column 5");
    PARSE_FAILS("1\x01", 2, "unexpected byte 0x01");
    PARSE_FAILS("99999999999999999999", 1, "does not fit in int64");
    PARSE_FAILS("9223372036854775808", 1, "does not fit in int64");
    PARSE_FAILS("1 + 0x8000000000000000", 5, "'0x8000000000000000' at column 5 does not fit");
    PARSE_FAILS("0x", 1, "invalid number '0x'");
    PARSE_FAILS("1 + 0xZ", 5, "invalid number '0xZ'");
    PARSE_FAILS("12ab", 1, "invalid number '12ab'");
    PARSE_FAILS("1e5", 1, "invalid number");
    PARSE_FAILS("2i", 1, "invalid number '2i'");
    PARSE_FAILS("-", 2, "unexpected end of expression");
    PARSE_FAILS("~)", 2, "unexpected ')'");

    /* a long unknown name is cut in the message, which still ends sensibly */
    static char name[1100];
    memset(name, 'q', 1000);
    name[1000] = '\0';
    PARSE_FAILS2(name, 1, "unknown variable 'qqqqqqqqqqqqqqqqqqqqqqqq...' at column 1", "lane, n)");
    /* a long bad number too */
    memset(name, '9', 1000);
    PARSE_FAILS(name, 1, "does not fit in int64");
}

/* Nesting, length and the C stack. */
static void test_limits(void)
{
    static char buf[110000];
    /* 256 levels of '(' are fine, the 257th is refused at its column */
    int k = 0;
    for (int d = 0; d < 256; d++) buf[k++] = '(';
    buf[k++] = '1';
    for (int d = 0; d < 256; d++) buf[k++] = ')';
    buf[k] = '\0';
    VAL(buf, 1);
    k = 0;
    for (int d = 0; d < 300; d++) buf[k++] = '(';
    buf[k++] = '1';
    for (int d = 0; d < 300; d++) buf[k++] = ')';
    buf[k] = '\0';
    PARSE_FAILS(buf, 257, "nesting deeper than 256 levels at column 257");
    /* and min/max calls count as nesting */
    k = 0;
    for (int d = 0; d < 300; d++) k += sprintf(buf + k, "min(1,");
    buf[k++] = '1';
    for (int d = 0; d < 300; d++) buf[k++] = ')';
    buf[k] = '\0';
    PARSE_FAILS(buf, 256 * 6 + 4, "nesting deeper than 256");
    /* the maximum nesting, each level holding six operators open: the
     * deepest C recursion and a deep value stack (constants pending on the
     * left of each operator) */
    k = 0;
    for (int d = 0; d < 256; d++) k += sprintf(buf + k, "0|0^1&1<<0+1*(");
    k += sprintf(buf + k, "i");
    for (int d = 0; d < 256; d++) buf[k++] = ')';
    buf[k] = '\0';
    CHECK(strlen(buf) <= CML_EXPR_MAX_LEN);
    cml_expr_vars v = zero_vars;
    v.i = 3;
    int64_t x = 3;
    for (int d = 0; d < 256; d++) x = 0 | (0 ^ (1 & (1 << (0 + 1 * x))));
    VALV(buf, &v, x);

    /* 100000 '(' are refused for their length, without touching the stack */
    memset(buf, '(', 100000);
    buf[100000] = '\0';
    PARSE_FAILS(buf, CML_EXPR_MAX_LEN + 1, "longer than 4096 bytes");
    /* exactly CML_EXPR_MAX_LEN bytes is fine, one more is not */
    k = 0;
    buf[k++] = '1';
    while (k + 2 <= (int)CML_EXPR_MAX_LEN) {
        buf[k++] = '+';
        buf[k++] = '1';
    }
    while (k < (int)CML_EXPR_MAX_LEN) buf[k++] = ' ';
    buf[k] = '\0';
    CHECK_EQ_U64(strlen(buf), CML_EXPR_MAX_LEN);
    VAL(buf, 2048);
    buf[k++] = ' ';
    buf[k] = '\0';
    PARSE_FAILS(buf, CML_EXPR_MAX_LEN + 1, "longer than");
    /* the longest flat expression of variables evaluates (no folding) */
    k = 0;
    buf[k++] = 'i';
    while (k + 2 <= (int)CML_EXPR_MAX_LEN) {
        buf[k++] = '+';
        buf[k++] = 'i';
    }
    buf[k] = '\0';
    v.i = 2;
    VALV(buf, &v, 2 * 2048);
}

/* --- error display ------------------------------------------------------- */

/* Parse `text`, which must fail, and format the error into a buffer of `len`. */
static void format_of(const char *text, char *buf, size_t len)
{
    cml_expr *e = NULL;
    cml_expr_error err = {0, ""};
    CHECK(cml_expr_parse(text, &e, &err) == CML_EINVAL);
    cml_expr_format_error(text, &err, buf, len);
}

/* Two lines, the caret under the column, bounded by the buffer. */
static void test_format(void)
{
    char buf[512];
    format_of("1 + )", buf, sizeof buf);
    CHECK(strcmp(buf, "1 + )\n    ^") == 0);
    format_of("(1", buf, sizeof buf);
    CHECK(strcmp(buf, "(1\n  ^") == 0);
    format_of("3 $ 4", buf, sizeof buf);
    CHECK(strcmp(buf, "3 $ 4\n  ^") == 0);
    format_of("1\t+ \x80", buf, sizeof buf);
    CHECK(strcmp(buf, "1 + ?\n    ^") == 0);
    format_of("", buf, sizeof buf);
    CHECK(strcmp(buf, "\n^") == 0);

    cml_expr_error err = {0, "not about a place"};
    cml_expr_format_error("i + 1", &err, buf, sizeof buf);
    CHECK(strcmp(buf, "i + 1") == 0);
    cml_expr_format_error("i + 1", NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "i + 1") == 0);
    err.column = 99; /* past the end: clamped to just after it */
    cml_expr_format_error("i+1", &err, buf, sizeof buf);
    CHECK(strcmp(buf, "i+1\n   ^") == 0);
    err.column = 1;
    cml_expr_format_error(NULL, &err, buf, sizeof buf);
    CHECK(strcmp(buf, "\n^") == 0);

    /* eval errors too */
    cml_expr *e = NULL;
    CHECK(cml_expr_parse("i * (2 / (i - i))", &e, NULL) == CML_OK);
    CHECK(cml_expr_eval(e, &zero_vars, &(int64_t){0}, &err) == CML_EINVAL);
    cml_expr_format_error("i * (2 / (i - i))", &err, buf, sizeof buf);
    CHECK(strcmp(buf, "i * (2 / (i - i))\n       ^") == 0);
    cml_expr_free(e);

    /* a long text: a window around the column, the caret under the bad byte */
    static char text[4097];
    for (int place = 0; place < 3; place++) {
        memset(text, '1', 4000);
        for (int k = 1; k < 4000; k += 2) text[k] = '+';
        size_t bad = place == 0 ? 10 : place == 1 ? 2000 : 3998; /* 0-based, on a '1' */
        text[bad] = '$';
        text[4000] = '\0';
        format_of(text, buf, sizeof buf);
        char *nl = strchr(buf, '\n');
        CHECK(nl != NULL);
        if (!nl) continue;
        size_t w1 = (size_t)(nl - buf), caret = strlen(nl + 1) - 1;
        CHECK(w1 <= 120);
        CHECK(nl[1 + caret] == '^');
        CHECK(caret < w1);
        CHECK(buf[caret] == '$');
        int left = strncmp(buf, "...", 3) == 0;
        int right = w1 >= 3 && strncmp(nl - 3, "...", 3) == 0;
        CHECK(left == (place != 0));
        CHECK(right == (place != 2));
    }
    /* an error at the very end of a long text */
    memset(text, '1', 4000);
    for (int k = 1; k < 4000; k += 2) text[k] = '+';
    text[3999] = '+';
    text[4000] = '\0';
    format_of(text, buf, sizeof buf);
    CHECK(strncmp(buf, "...", 3) == 0);
    {
        char *nl = strchr(buf, '\n');
        CHECK(nl && nl[-1] == '+' && strlen(nl + 1) == (size_t)(nl - buf) + 1);
    }

    /* every small buffer: terminated, never overrun (exact-size heap blocks
     * so that AddressSanitizer sees a single byte too many) */
    for (size_t len = 1; len < 64; len++) {
        for (int t = 0; t < 3; t++) {
            const char *s = t == 0 ? "1 + )" : t == 1 ? text : "";
            char *small = malloc(len);
            if (!small) continue;
            memset(small, 'x', len);
            format_of(s, small, len);
            CHECK(memchr(small, '\0', len) != NULL);
            if (len >= 13 && t == 0) CHECK(strcmp(small, "1 + )\n    ^") == 0);
            free(small);
        }
    }
    cml_expr_format_error("1", &err, NULL, 10); /* no buffer: nothing happens */
    buf[0] = 'x';
    cml_expr_format_error("1", &err, buf, 0);
    CHECK(buf[0] == 'x');
}

/* --- differential test ----------------------------------------------------- */

/* A random expression tree, rendered to text with minimal (and some extra)
 * parentheses and random whitespace, and evaluated by an independent
 * recursive evaluator in 128-bit arithmetic. */
enum { N_CONST, N_VAR, N_NEG, N_NOT, N_PLUS, N_BIN };
typedef struct node {
    int kind;
    int op; /* N_BIN: index into bin_ops */
    int64_t value;
    int var;
    struct node *a, *b;
    size_t column; /* of the operator, filled by render */
} node;

static const struct {
    const char *text;
    int prec; /* 7 = function call */
} bin_ops[] = {{"+", 5}, {"-", 5},  {"*", 6}, {"/", 6}, {"%", 6},   {"<<", 4},
               {">>", 4}, {"&", 3}, {"|", 1}, {"^", 2}, {"min", 7}, {"max", 7}};
enum { B_ADD, B_SUB, B_MUL, B_DIV, B_MOD, B_SHL, B_SHR, B_AND, B_OR, B_XOR, B_MIN, B_MAX, B_COUNT };
static const char *const var_names[] = {"i", "tx", "ty", "bx", "by", "bdx",
                                        "bdy", "gdx", "gdy", "lane", "n"};

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
/* xorshift64*: a deterministic random stream for the test. */
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* A random interesting int64 (as a non-negative literal when `literal`). */
static int64_t interesting(int literal)
{
    static const int64_t pool[] = {0, 1, 2, 3, 5, 7, 31, 32, 33, 63, 64, 100, 1000,
                                   INT64_C(2147483648), INT64_C(4611686018427387904), INT64_MAX,
                                   INT64_C(3037000499), INT64_C(3037000500), -1, -2, -64,
                                   INT64_MIN, INT64_MIN + 1};
    int64_t v = (rnd() % 4 == 0) ? (int64_t)(rnd() % 2000) - 1000 : pool[rnd() % (sizeof pool / sizeof pool[0])];
    if (literal && v < 0) v = v == INT64_MIN ? INT64_MAX : -v;
    return v;
}

/* Build a random tree of at most `depth` levels. */
static node *gen(int depth)
{
    node *n = calloc(1, sizeof *n);
    if (!n) abort();
    int r = (int)(rnd() % 10);
    if (depth == 0 || r < 2) {
        if (rnd() % 2) {
            n->kind = N_CONST;
            n->value = interesting(1);
        } else {
            n->kind = N_VAR;
            n->var = (int)(rnd() % 11);
        }
    } else if (r < 3) {
        n->kind = (int)(N_NEG + rnd() % 3);
        n->a = gen(depth - 1);
    } else {
        n->kind = N_BIN;
        n->op = (int)(rnd() % B_COUNT);
        n->a = gen(depth - 1);
        n->b = gen(depth - 1);
    }
    return n;
}

/* Free a tree. */
static void drop(node *n)
{
    if (!n) return;
    drop(n->a);
    drop(n->b);
    free(n);
}

/* Append to the render buffer. */
typedef struct { char buf[4096]; size_t len; } out_t;
static void add(out_t *o, const char *s)
{
    size_t l = strlen(s);
    if (o->len + l < sizeof o->buf) {
        memcpy(o->buf + o->len, s, l + 1);
        o->len += l;
    }
}
static void space(out_t *o) { if (rnd() % 4 == 0) add(o, rnd() % 2 ? " " : "\t"); }

/* Precedence of a node as an operand (8 = atom). */
static int node_prec(const node *n)
{
    if (n->kind == N_BIN) return bin_ops[n->op].prec;
    if (n->kind == N_CONST || n->kind == N_VAR) return 8;
    return 7; /* unary */
}

static void render(node *n, out_t *o);
/* Render operand `c` of a context needing precedence >= need. */
static void render_operand(node *c, int need, out_t *o)
{
    int paren = node_prec(c) < need || rnd() % 8 == 0;
    if (paren) { add(o, "("); space(o); }
    render(c, o);
    if (paren) { space(o); add(o, ")"); }
}

/* Render n as text, recording operator columns. */
static void render(node *n, out_t *o)
{
    char tmp[64];
    switch (n->kind) {
    case N_CONST:
        if (rnd() % 3)
            snprintf(tmp, sizeof tmp, "%lld", (long long)n->value);
        else
            snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)n->value);
        add(o, tmp);
        break;
    case N_VAR: add(o, var_names[n->var]); break;
    case N_NEG: case N_NOT: case N_PLUS:
        n->column = o->len + 1;
        add(o, n->kind == N_NEG ? "-" : n->kind == N_NOT ? "~" : "+");
        space(o);
        render_operand(n->a, 7, o);
        break;
    case N_BIN:
        if (bin_ops[n->op].prec == 7) {
            n->column = o->len + 1;
            add(o, bin_ops[n->op].text);
            add(o, "(");
            space(o);
            render(n->a, o);
            add(o, ",");
            space(o);
            render(n->b, o);
            add(o, ")");
        } else {
            int p = bin_ops[n->op].prec;
            render_operand(n->a, p, o);
            space(o);
            n->column = o->len + 1;
            add(o, bin_ops[n->op].text);
            space(o);
            render_operand(n->b, p + 1, o);
        }
        break;
    }
}

/* Reference evaluation: 0 and *r, or the column of the first failing
 * operator in evaluation order (left operand, right operand, operator). */
static size_t ref_eval(const node *n, const int64_t *vars, int64_t *r)
{
    int64_t a = 0, b = 0; /* set by ref_eval before use; gcc -O3 cannot see it */
    size_t c;
    switch (n->kind) {
    case N_CONST: *r = n->value; return 0;
    case N_VAR: *r = vars[n->var]; return 0;
    case N_NEG: case N_NOT: case N_PLUS:
        if ((c = ref_eval(n->a, vars, &a)) != 0) return c;
        if (n->kind == N_PLUS) { *r = a; return 0; }
        if (n->kind == N_NOT) { *r = -a - 1 ; return 0; }
        if (a == INT64_MIN) return n->column;
        *r = -a;
        return 0;
    default: break;
    }
    if ((c = ref_eval(n->a, vars, &a)) != 0) return c;
    if ((c = ref_eval(n->b, vars, &b)) != 0) return c;
    i128 x = a, y = b, z = 0;
    switch (n->op) {
    case B_ADD: z = x + y; break;
    case B_SUB: z = x - y; break;
    case B_MUL: z = x * y; break;
    case B_DIV: if (y == 0) return n->column; z = x / y; break;
    case B_MOD: if (y == 0) return n->column; z = x % y; break;
    case B_SHL:
        if (y < 0 || y > 63 || x < 0) return n->column;
        z = x * ((i128)1 << (int)y);
        break;
    case B_SHR: {
        if (y < 0 || y > 63) return n->column;
        i128 d = (i128)1 << (int)y;
        z = x / d;
        if (x % d != 0 && x < 0) z -= 1; /* floor */
        break;
    }
    case B_AND: z = a & b; break;
    case B_OR: z = a | b; break;
    case B_XOR: z = a ^ b; break;
    case B_MIN: z = x < y ? x : y; break;
    case B_MAX: z = x > y ? x : y; break;
    }
    if (z < INT64_MIN || z > INT64_MAX) return n->column;
    *r = (int64_t)z;
    return 0;
}

/* Bit set of the variables in a tree. */
static unsigned tree_vars(const node *n)
{
    if (!n) return 0;
    return (n->kind == N_VAR ? 1u << n->var : 0u) | tree_vars(n->a) | tree_vars(n->b);
}

/* Thousands of random expressions: same value, or an error at the same
 * column, as the reference; same vars_used. */
static void test_differential(void)
{
    int mismatches = 0, errors = 0, values = 0;
    for (int t = 0; t < 20000; t++) {
        node *tree = gen(1 + (int)(rnd() % 6));
        out_t o = {{0}, 0};
        render(tree, &o);
        cml_expr *e = NULL;
        cml_expr_error err = {0, ""};
        if (cml_expr_parse(o.buf, &e, &err) != CML_OK) {
            if (mismatches++ < 10)
                fprintf(stderr, "differential: \"%s\" did not parse: %s\n", o.buf, err.message);
            drop(tree);
            continue;
        }
        if (cml_expr_vars_used(e) != tree_vars(tree)) mismatches++;
        for (int s = 0; s < 4; s++) {
            int64_t vars[11];
            cml_expr_vars v;
            for (int k = 0; k < 11; k++) vars[k] = s == 0 ? k : interesting(0);
            v.i = vars[0]; v.tx = vars[1]; v.ty = vars[2]; v.bx = vars[3]; v.by = vars[4];
            v.bdx = vars[5]; v.bdy = vars[6]; v.gdx = vars[7]; v.gdy = vars[8];
            v.lane = vars[9]; v.n = vars[10];
            int64_t want = 0, got = 0;
            size_t col = ref_eval(tree, vars, &want);
            cml_status st = cml_expr_eval(e, &v, &got, &err);
            int bad = col ? (st != CML_EINVAL || err.column != col) : (st != CML_OK || got != want);
            if (col) errors++; else values++;
            if (bad && mismatches++ < 10)
                fprintf(stderr, "differential: \"%s\" (i=%lld): got %s %lld col %zu, want %s %lld col %zu\n",
                        o.buf, (long long)v.i, st == CML_OK ? "value" : err.message, (long long)got,
                        st == CML_OK ? (size_t)0 : err.column, col ? "error" : "value",
                        (long long)want, col);
        }
        cml_expr_free(e);
        drop(tree);
    }
    CHECK_EQ_I64(mismatches, 0);
    CHECK(errors > 1000 && values > 20000); /* both paths well exercised */
    printf("differential: %d values and %d errors agree\n", values, errors);
}

/* Not a check: how fast per-thread evaluation is. */
static void report_speed(void)
{
    cml_expr *e = NULL;
    if (cml_expr_parse("(i % 32) * 33 + min(tx, n - 1)", &e, NULL) != CML_OK) return;
    cml_expr_vars v = zero_vars;
    v.n = 1 << 20;
    int64_t sum = 0, r = 0;
    clock_t t0 = clock();
    const int64_t count = 1 << 22;
    for (int64_t i = 0; i < count; i++) {
        v.i = i;
        v.tx = i & 255;
        if (cml_expr_eval(e, &v, &r, NULL) == CML_OK) sum += r;
    }
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("eval speed: %.1f ns per thread (checksum %lld)\n", s * 1e9 / (double)count,
           (long long)sum);
    cml_expr_free(e);
}

int main(void)
{
    test_precedence();
    test_unary();
    test_division_and_shifts();
    test_min_max();
    test_numbers();
    test_variables();
    test_eval_errors();
    test_parse_errors();
    test_limits();
    test_format();
    test_differential();
    report_speed();
    return cml_test_summary("test_expr");
}
