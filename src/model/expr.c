/*
 * Integer index expressions (see include/cumemlab/expr.h for the grammar).
 *
 * cml_expr_parse() is a recursive-descent parser (with an operator stack for
 * the binary operators within one level of parentheses) that compiles the
 * text straight into a flat postfix program; there is no tree. While it
 * emits, it folds operations on constants ("2*16" becomes 32) and fuses a
 * constant right operand into its operator ("i % 32" is two instructions:
 * VAR i, MODP2 32; "i * 33" is VAR i, MULK 33). Neither changes a value or
 * an error: a fold that would fail is left for evaluation to report.
 * cml_expr_eval() runs the program with a fixed-size value stack and the top
 * of the stack in a local: no allocation, no recursion, one switch per
 * instruction.
 *
 * Limits that keep hostile input harmless: at most CML_EXPR_MAX_LEN bytes,
 * at most CML_EXPR_MAX_DEPTH nested '(' or min/max calls (the parser
 * recurses only there, about 300 bytes of C stack per level at -O2, so
 * under 100 KiB for the deepest input), while binary operators use an
 * explicit operator stack and chains of unary operators a loop.
 *
 * Arithmetic (all in int64_t, never undefined behaviour):
 *   + - *     overflow is an error;
 *   / %       by zero is an error; '/' truncates toward zero and '%' takes the
 *             sign of the dividend, as in C; INT64_MIN / -1 is an overflow
 *             error, while INT64_MIN % -1 is 0 (the remainder is representable);
 *   << >>     the count must be 0..63; '<<' of a negative value, or a result
 *             that does not fit, is an error; '>>' of a negative value is an
 *             arithmetic shift (rounds toward minus infinity: -7 >> 1 == -4);
 *   unary -   of INT64_MIN is an overflow error; '~' and '+' never fail;
 *   & | ^     on the two's complement representation.
 * Numbers are decimal (leading zeros allowed, never octal) or 0x hex, and
 * must fit in int64_t (at most 9223372036854775807 / 0x7fffffffffffffff).
 */
#include "cumemlab/expr.h"
#include "model/expr_program.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CML_EXPR_MAX_DEPTH 256u  /* nested '(' and min/max calls */
#define CML_EXPR_STACK_MAX 2048u /* evaluation stack; depth 256 needs < 1800 */
#define CML_EXPR_STACK_SMALL 24u /* stack on the fast path, enough for most */
#define CML_EXPR_SHOW_TOKEN 24   /* bytes of a token quoted in a message */
#define CML_EXPR_FORMAT_WIDTH 120u

/* ------------------------------------------------------------------------- */
/* The program                                                                */
/* ------------------------------------------------------------------------- */

/* Variables, in the order of the CML_EXPR_VAR_* enum. */
static const struct {
    const char *name;
    uint16_t off;
} expr_vars[] = {
    {"i", offsetof(cml_expr_vars, i)},       {"tx", offsetof(cml_expr_vars, tx)},
    {"ty", offsetof(cml_expr_vars, ty)},     {"bx", offsetof(cml_expr_vars, bx)},
    {"by", offsetof(cml_expr_vars, by)},     {"bdx", offsetof(cml_expr_vars, bdx)},
    {"bdy", offsetof(cml_expr_vars, bdy)},   {"gdx", offsetof(cml_expr_vars, gdx)},
    {"gdy", offsetof(cml_expr_vars, gdy)},   {"lane", offsetof(cml_expr_vars, lane)},
    {"n", offsetof(cml_expr_vars, n)},
};
#define EXPR_NVARS (sizeof expr_vars / sizeof expr_vars[0])
#define EXPR_KNOWN_VARS "i, tx, ty, bx, by, bdx, bdy, gdx, gdy, lane, n"

/* Operator spellings for messages, indexed by OP_ADD.. OP_MAX. */
static const char *const op_text[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
                                      "min", "max"};

/* Fill *err (if not NULL) with `column` and a printf-formatted message,
 * truncated to fit. */
static void set_error(cml_expr_error *err, size_t column, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_error(cml_expr_error *err, size_t column, const char *fmt, ...)
{
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    err->column = column;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* Describe why `op` (a plain or K form) failed on a and b, at `column`. */
static void arith_error(cml_expr_error *err, unsigned op, int why, int64_t a, int64_t b,
                        size_t column)
{
    if (op >= OP_ADDK) op -= OP_K_DELTA;
    const char *sym = op >= OP_ADD && op <= OP_MAX ? op_text[op - OP_ADD] : "?";
    switch (why) {
    case A_DIVZERO: set_error(err, column, "division by zero at column %zu", column); break;
    case A_MODZERO: set_error(err, column, "remainder by zero at column %zu", column); break;
    case A_SHIFTCOUNT:
        set_error(err, column, "shift count %" PRId64 " at column %zu is outside 0..63", b,
                  column);
        break;
    case A_SHLNEG:
        set_error(err, column, "left shift of negative value %" PRId64 " at column %zu", a,
                  column);
        break;
    default:
        set_error(err, column,
                  "integer overflow at column %zu: %" PRId64 " %s %" PRId64
                  " does not fit in int64",
                  column, a, sym, b);
        break;
    }
}

/* ------------------------------------------------------------------------- */
/* Evaluation                                                                 */
/* ------------------------------------------------------------------------- */

#if defined(__GNUC__)
#define EXPR_INLINE __attribute__((always_inline)) inline
#define EXPR_NOINLINE __attribute__((noinline))
#else
#define EXPR_INLINE inline
#define EXPR_NOINLINE
#endif

/* Run e's program with value stack st (at least e->stack slots). Same
 * contract as cml_expr_eval. Inlined twice, for a small and a large stack. */
static EXPR_INLINE cml_status run_program(const cml_expr *e, const cml_expr_vars *v, int64_t *st,
                                     int64_t *out, cml_expr_error *err)
{
    const char *vbase = (const char *)v;
    const cml_insn *p = e->code, *end = e->code + e->n;
    size_t sp = 0;
    int64_t top = 0, a = 0, b = 0;
    int why = A_OK;

#define BINARY_CASES(OP)                                                                  \
    case OP:                                                                              \
        a = st[--sp];                                                                     \
        b = top;                                                                          \
        if ((why = cml_expr_arith(OP, a, b, &top)) != A_OK) goto fail;                    \
        break;                                                                            \
    case OP + OP_K_DELTA:                                                                 \
        a = top;                                                                          \
        b = p->k;                                                                         \
        if ((why = cml_expr_arith(OP, a, b, &top)) != A_OK) goto fail;                    \
        break;

    for (; p != end; ++p) {
        switch (p->op) {
        case OP_CONST:
            st[sp++] = top;
            top = p->k;
            break;
        case OP_VAR:
            st[sp++] = top;
            top = *(const int64_t *)(const void *)(vbase + p->off);
            break;
        case OP_NEG:
            if (top == INT64_MIN) {
                set_error(err, p->column,
                          "integer overflow at column %" PRIu32 ": -(%" PRId64
                          ") does not fit in int64",
                          p->column, top);
                return CML_EINVAL;
            }
            top = -top;
            break;
        case OP_NOT: top = ~top; break;
        case OP_DIVP2: /* truncates toward zero, like '/' */
            top = top >= 0 ? top >> p->off : -(int64_t)((0u - (uint64_t)top) >> p->off);
            break;
        case OP_MODP2: /* takes the sign of the dividend, like '%' */
            top = top >= 0 ? top & (p->k - 1)
                           : -(int64_t)((0u - (uint64_t)top) & (uint64_t)(p->k - 1));
            break;
        BINARY_CASES(OP_ADD)
        BINARY_CASES(OP_SUB)
        BINARY_CASES(OP_MUL)
        BINARY_CASES(OP_DIV)
        BINARY_CASES(OP_MOD)
        BINARY_CASES(OP_SHL)
        BINARY_CASES(OP_SHR)
        BINARY_CASES(OP_AND)
        BINARY_CASES(OP_OR)
        BINARY_CASES(OP_XOR)
        BINARY_CASES(OP_MIN)
        BINARY_CASES(OP_MAX)
        default: /* not reached: the parser emits only the codes above */
            set_error(err, 0, "corrupt expression program");
            return CML_EINVAL;
        }
    }
#undef BINARY_CASES
    *out = top;
    return CML_OK;
fail:
    arith_error(err, p->op, why, a, b, p->column);
    return CML_EINVAL;
}

/* cml_expr_eval for programs that need a deep stack, kept out of line so
 * that the common case has a small frame. */
static EXPR_NOINLINE cml_status eval_big(const cml_expr *e, const cml_expr_vars *v,
                                         int64_t *out, cml_expr_error *err)
{
    int64_t st[CML_EXPR_STACK_MAX];
    return run_program(e, v, st, out, err);
}

/* Evaluate e for one set of variable values; see expr.h. Does not allocate;
 * safe to call concurrently on the same e. */
cml_status cml_expr_eval(const cml_expr *e, const cml_expr_vars *v, int64_t *out,
                         cml_expr_error *err)
{
    if (!e || !v || !out) {
        set_error(err, 0, "cml_expr_eval: null argument");
        return CML_EINVAL;
    }
    if (e->stack <= CML_EXPR_STACK_SMALL) {
        int64_t st[CML_EXPR_STACK_SMALL];
        return run_program(e, v, st, out, err);
    }
    return eval_big(e, v, out, err);
}

/* Bit set of the variables that appear in the text (1u << CML_EXPR_VAR_x),
 * even where they cannot change the value ("i*0"); 0 for NULL. */
unsigned cml_expr_vars_used(const cml_expr *e) { return e ? e->vars : 0u; }

/* Release e (NULL is fine). */
void cml_expr_free(cml_expr *e) { free(e); }

/* ------------------------------------------------------------------------- */
/* Lexer                                                                      */
/* ------------------------------------------------------------------------- */

typedef enum tkind {
    T_END, T_NUM, T_IDENT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_SHL, T_SHR,
    T_AMP, T_PIPE, T_CARET, T_TILDE, T_LPAREN, T_RPAREN, T_COMMA
} tkind;

typedef struct token {
    tkind kind;
    size_t start; /* 0-based byte offset */
    size_t len;
    int64_t value; /* T_NUM */
} token;

typedef struct parser {
    const char *s;
    size_t len;
    size_t pos; /* next byte to lex */
    token tok;  /* current token */
    cml_insn *code;
    size_t n;       /* instructions emitted; never exceeds len + 1 */
    size_t sp, max_sp;
    size_t depth;
    unsigned vars;
    cml_expr_error *err;
} parser;

/* True for the whitespace allowed between tokens. */
static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* True for bytes that may continue an identifier or a number. */
static bool is_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Value of hex digit c, or -1. */
static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Record a parse error at 0-based offset `at` (column at + 1). Returns false
 * so that callers can `return fail(...)`. */
static bool fail(parser *p, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static bool fail(parser *p, size_t at, const char *fmt, ...)
{
    if (p->err) {
        va_list ap;
        va_start(ap, fmt);
        p->err->column = at + 1;
        vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Length of t's text to quote in a message and whether it was cut. */
static int show_len(const token *t) { return t->len > CML_EXPR_SHOW_TOKEN ? CML_EXPR_SHOW_TOKEN : (int)t->len; }
static const char *show_more(const token *t) { return t->len > CML_EXPR_SHOW_TOKEN ? "..." : ""; }

/* Lex a number starting at p->pos (a digit) into p->tok. */
static bool lex_number(parser *p)
{
    const unsigned char *s = (const unsigned char *)p->s;
    size_t start = p->pos, end = start;
    while (end < p->len && is_word(s[end])) end++;
    token *t = &p->tok;
    t->kind = T_NUM;
    t->start = start;
    t->len = end - start;
    p->pos = end;

    uint64_t v = 0;
    bool bad = false, big = false;
    if (t->len >= 2 && s[start] == '0' && (s[start + 1] == 'x' || s[start + 1] == 'X')) {
        if (t->len == 2) bad = true;
        for (size_t k = start + 2; k < end && !bad; k++) {
            int d = hex_value(s[k]);
            if (d < 0) bad = true;
            else if (v > ((uint64_t)INT64_MAX >> 4)) big = true;
            else v = v << 4 | (uint64_t)d;
        }
    } else {
        for (size_t k = start; k < end && !bad; k++) {
            if (s[k] < '0' || s[k] > '9') bad = true;
            else if (v > ((uint64_t)INT64_MAX - (uint64_t)(s[k] - '0')) / 10) big = true;
            else v = v * 10 + (uint64_t)(s[k] - '0');
        }
    }
    if (bad)
        return fail(p, start, "invalid number '%.*s%s' at column %zu", show_len(t), p->s + start,
                    show_more(t), start + 1);
    if (big)
        return fail(p, start, "number '%.*s%s' at column %zu does not fit in int64",
                    show_len(t), p->s + start, show_more(t), start + 1);
    t->value = (int64_t)v;
    return true;
}

/* Advance to the next token. False (with the error set) on a lexical error. */
static bool next(parser *p)
{
    const unsigned char *s = (const unsigned char *)p->s;
    while (p->pos < p->len && is_space(s[p->pos])) p->pos++;
    token *t = &p->tok;
    t->start = p->pos;
    t->len = 1;
    if (p->pos >= p->len) {
        t->kind = T_END;
        t->len = 0;
        return true;
    }
    unsigned char c = s[p->pos];
    if (c >= '0' && c <= '9') return lex_number(p);
    if (is_word(c)) {
        size_t end = p->pos;
        while (end < p->len && is_word(s[end])) end++;
        t->kind = T_IDENT;
        t->len = end - p->pos;
        p->pos = end;
        return true;
    }
    switch (c) {
    case '+': t->kind = T_PLUS; break;
    case '-': t->kind = T_MINUS; break;
    case '*': t->kind = T_STAR; break;
    case '/': t->kind = T_SLASH; break;
    case '%': t->kind = T_PERCENT; break;
    case '&': t->kind = T_AMP; break;
    case '|': t->kind = T_PIPE; break;
    case '^': t->kind = T_CARET; break;
    case '~': t->kind = T_TILDE; break;
    case '(': t->kind = T_LPAREN; break;
    case ')': t->kind = T_RPAREN; break;
    case ',': t->kind = T_COMMA; break;
    case '<':
    case '>':
        if (p->pos + 1 < p->len && s[p->pos + 1] == c) {
            t->kind = c == '<' ? T_SHL : T_SHR;
            t->len = 2;
            break;
        }
        return fail(p, p->pos, "unexpected character '%c' at column %zu (did you mean '%c%c'?)",
                    c, p->pos + 1, c, c);
    default:
        if (c > ' ' && c < 0x7f)
            return fail(p, p->pos, "unexpected character '%c' at column %zu", c, p->pos + 1);
        return fail(p, p->pos, "unexpected byte 0x%02x at column %zu", c, p->pos + 1);
    }
    p->pos += t->len;
    return true;
}

/* ------------------------------------------------------------------------- */
/* Code generation with constant folding                                      */
/* ------------------------------------------------------------------------- */

/* Append one instruction. The parser emits at most one per token, so the
 * buffer (len + 1 entries) cannot overflow. */
static void emit(parser *p, uint8_t op, int64_t k, uint16_t off, size_t at)
{
    cml_insn *in = &p->code[p->n++];
    in->op = op;
    in->k = k;
    in->off = off;
    in->column = (uint32_t)(at + 1);
    if (op == OP_CONST || op == OP_VAR) {
        if (++p->sp > p->max_sp) p->max_sp = p->sp;
    }
}

/* Emit unary minus (OP_NEG) or '~' (OP_NOT) at offset `at`, folding it into
 * a preceding constant when that cannot fail. */
static void emit_unary(parser *p, uint8_t op, size_t at)
{
    cml_insn *last = &p->code[p->n - 1];
    if (last->op == OP_CONST && (op == OP_NOT || last->k != INT64_MIN)) {
        last->k = op == OP_NOT ? ~last->k : -last->k;
        return;
    }
    emit(p, op, 0, 0, at);
}

/* True if op (OP_ADD..OP_MAX) is commutative, so a constant left operand
 * may become the right one. */
static bool commutative(uint8_t op)
{
    return op == OP_ADD || op == OP_MUL || op == OP_AND || op == OP_OR || op == OP_XOR ||
           op == OP_MIN || op == OP_MAX;
}

/* Emit binary op (OP_ADD..OP_MAX) at offset `at`. Both operands are already
 * emitted; a constant right operand (or a constant left one of a commutative
 * op whose right one is a single variable) is fused into the operator, and
 * two constant operands are folded unless that fails (the failure is then
 * left for evaluation to report, at this column). */
static void emit_binary(parser *p, uint8_t op, size_t at)
{
    p->sp--;
    cml_insn *c = p->code;
    size_t n = p->n;
    if (n >= 2 && c[n - 1].op == OP_CONST) {
        if (c[n - 2].op == OP_CONST) {
            int64_t r;
            if (cml_expr_arith(op, c[n - 2].k, c[n - 1].k, &r) == A_OK) {
                c[n - 2].k = r;
                p->n--;
                return;
            }
        }
        int64_t k = c[n - 1].k;
        p->n--;
        unsigned lg = 0;
        if ((op == OP_DIV || op == OP_MOD) && k >= 2 && (k & (k - 1)) == 0) {
            while (((int64_t)1 << lg) != k) lg++;
            emit(p, op == OP_DIV ? OP_DIVP2 : OP_MODP2, k, (uint16_t)lg, at);
            return;
        }
        emit(p, (uint8_t)(op + OP_K_DELTA), k, 0, at);
        return;
    }
    if (n >= 2 && commutative(op) && c[n - 1].op == OP_VAR && c[n - 2].op == OP_CONST) {
        cml_insn var = c[n - 1];
        int64_t k = c[n - 2].k;
        c[n - 2] = var;
        p->n--;
        emit(p, (uint8_t)(op + OP_K_DELTA), k, 0, at);
        return;
    }
    emit(p, op, 0, 0, at);
}

/* ------------------------------------------------------------------------- */
/* Parser                                                                     */
/* ------------------------------------------------------------------------- */

static bool parse_binary(parser *p);

/* Precedence of t as a binary operator (1 = '|' .. 6 = '*'), 0 if not one
 * (the end of an operand list); *op receives the OP_ code. */
static int binary_prec(tkind t, uint8_t *op)
{
    switch (t) {
    case T_PIPE: *op = OP_OR; return 1;
    case T_CARET: *op = OP_XOR; return 2;
    case T_AMP: *op = OP_AND; return 3;
    case T_SHL: *op = OP_SHL; return 4;
    case T_SHR: *op = OP_SHR; return 4;
    case T_PLUS: *op = OP_ADD; return 5;
    case T_MINUS: *op = OP_SUB; return 5;
    case T_STAR: *op = OP_MUL; return 6;
    case T_SLASH: *op = OP_DIV; return 6;
    case T_PERCENT: *op = OP_MOD; return 6;
    default: return 0;
    }
}

/* Complain that the current token cannot start an operand. */
static bool unexpected(parser *p)
{
    const token *t = &p->tok;
    if (t->kind == T_END)
        return fail(p, t->start, "unexpected end of expression at column %zu", t->start + 1);
    return fail(p, t->start, "unexpected '%.*s%s' at column %zu", show_len(t), p->s + t->start,
                show_more(t), t->start + 1);
}

/* Enter one more level of '(' or min/max at offset `at`; false past the limit. */
static bool enter(parser *p, size_t at)
{
    if (++p->depth > CML_EXPR_MAX_DEPTH)
        return fail(p, at, "nesting deeper than %u levels at column %zu", CML_EXPR_MAX_DEPTH,
                    at + 1);
    return true;
}

/* Parse min(a, b) or max(a, b); the current token is the name. */
static bool parse_call(parser *p, uint8_t op)
{
    const char *name = op == OP_MIN ? "min" : "max";
    size_t name_at = p->tok.start;
    if (!next(p)) return false;
    if (p->tok.kind != T_LPAREN)
        return fail(p, p->tok.start, "expected '(' after '%s' at column %zu", name,
                    p->tok.start + 1);
    size_t open_at = p->tok.start;
    if (!enter(p, open_at) || !next(p) || !parse_binary(p)) return false;
    if (p->tok.kind != T_COMMA) {
        if (p->tok.kind == T_RPAREN)
            return fail(p, p->tok.start, "too few arguments to '%s' at column %zu (it takes 2)",
                        name, p->tok.start + 1);
        return fail(p, p->tok.start,
                    "expected ',' at column %zu after the first argument of '%s'",
                    p->tok.start + 1, name);
    }
    if (!next(p) || !parse_binary(p)) return false;
    if (p->tok.kind == T_COMMA)
        return fail(p, p->tok.start, "too many arguments to '%s' at column %zu (it takes 2)",
                    name, p->tok.start + 1);
    if (p->tok.kind != T_RPAREN)
        return fail(p, p->tok.start, "expected ')' at column %zu to close '%s(' opened at column %zu",
                    p->tok.start + 1, name, open_at + 1);
    p->depth--;
    emit_binary(p, op, name_at);
    return next(p);
}

/* Parse a primary: number, variable, ( expr ), min/max call. */
static bool parse_primary(parser *p)
{
    token *t = &p->tok;
    switch (t->kind) {
    case T_NUM:
        emit(p, OP_CONST, t->value, 0, t->start);
        return next(p);
    case T_IDENT: {
        const char *w = p->s + t->start;
        for (size_t v = 0; v < EXPR_NVARS; v++) {
            if (strlen(expr_vars[v].name) == t->len && memcmp(expr_vars[v].name, w, t->len) == 0) {
                emit(p, OP_VAR, 0, expr_vars[v].off, t->start);
                p->vars |= 1u << v;
                return next(p);
            }
        }
        if (t->len == 3 && memcmp(w, "min", 3) == 0) return parse_call(p, OP_MIN);
        if (t->len == 3 && memcmp(w, "max", 3) == 0) return parse_call(p, OP_MAX);
        size_t k = p->pos;
        while (k < p->len && is_space((unsigned char)p->s[k])) k++;
        if (k < p->len && p->s[k] == '(')
            return fail(p, t->start, "unknown function '%.*s%s' at column %zu (known: min, max)",
                        show_len(t), w, show_more(t), t->start + 1);
        return fail(p, t->start, "unknown variable '%.*s%s' at column %zu (known: " EXPR_KNOWN_VARS ")",
                    show_len(t), w, show_more(t), t->start + 1);
    }
    case T_LPAREN: {
        size_t open_at = t->start;
        if (!enter(p, open_at) || !next(p) || !parse_binary(p)) return false;
        if (t->kind != T_RPAREN) {
            if (t->kind == T_END)
                return fail(p, t->start, "expected ')' at column %zu to close '(' opened at column %zu",
                            t->start + 1, open_at + 1);
            return fail(p, t->start,
                        "expected ')' at column %zu to close '(' opened at column %zu, found '%.*s%s'",
                        t->start + 1, open_at + 1, show_len(t), p->s + t->start, show_more(t));
        }
        p->depth--;
        return next(p);
    }
    default: return unexpected(p);
    }
}

/* Parse a unary: a run of '+', '-', '~' then a primary. The run is handled
 * by a loop (then replayed right to left from the text), not recursion, so
 * "- - - ... 1" costs no C stack. */
static bool parse_unary(parser *p)
{
    size_t run_start = p->tok.start;
    bool any = false;
    while (p->tok.kind == T_PLUS || p->tok.kind == T_MINUS || p->tok.kind == T_TILDE) {
        any = true;
        if (!next(p)) return false;
    }
    size_t run_end = p->tok.start;
    if (!parse_primary(p)) return false;
    if (any) {
        /* Between run_start and run_end there are only unary operator bytes
         * and whitespace; apply them innermost (rightmost) first. */
        for (size_t k = run_end; k-- > run_start;) {
            char c = p->s[k];
            if (c == '-') emit_unary(p, OP_NEG, k);
            else if (c == '~') emit_unary(p, OP_NOT, k);
        }
    }
    return true;
}

/* Parse operands joined by binary operators, left associative, by
 * operator precedence with an explicit operator stack (at most one pending
 * operator per precedence level, so 6 entries): the C recursion is only
 * through '(' and min/max, three small frames per nesting level. */
static bool parse_binary(parser *p)
{
    struct {
        uint32_t at; /* offset of the operator (the text is < 2^32 bytes) */
        uint8_t op;
        uint8_t prec;
    } pending[6];
    int npending = 0;
    if (!parse_unary(p)) return false;
    for (;;) {
        uint8_t op = 0;
        int prec = binary_prec(p->tok.kind, &op);
        /* everything pending that binds at least as tightly is complete */
        while (npending > 0 && pending[npending - 1].prec >= prec) {
            npending--;
            emit_binary(p, pending[npending].op, pending[npending].at);
        }
        if (prec == 0) return true;
        pending[npending].op = op;
        pending[npending].prec = (uint8_t)prec;
        pending[npending].at = (uint32_t)p->tok.start;
        npending++;
        if (!next(p) || !parse_unary(p)) return false;
    }
}

/* Parse `text` into a program; see expr.h. Errors name the column (1-based)
 * and, for unknown names, list what is known. Returns CML_ENOMEM (with a
 * message, column 0) only if the host is out of memory. Operations on
 * constants that would fail ("1/0") are not errors here: evaluation
 * reports them, at their column. */
cml_status cml_expr_parse(const char *text, cml_expr **out, cml_expr_error *err)
{
    if (!text || !out) {
        set_error(err, 0, "cml_expr_parse: null argument");
        return CML_EINVAL;
    }
    size_t len = 0;
    while (len <= CML_EXPR_MAX_LEN && text[len] != '\0') len++;
    if (len > CML_EXPR_MAX_LEN) {
        set_error(err, CML_EXPR_MAX_LEN + 1, "expression longer than %u bytes",
                  (unsigned)CML_EXPR_MAX_LEN);
        return CML_EINVAL;
    }

    parser p;
    memset(&p, 0, sizeof p);
    p.s = text;
    p.len = len;
    p.err = err;
    p.code = malloc((len + 1) * sizeof *p.code);
    if (!p.code) {
        set_error(err, 0, "out of memory");
        return CML_ENOMEM;
    }
    bool ok = next(&p);
    if (ok && p.tok.kind == T_END) ok = fail(&p, 0, "empty expression");
    ok = ok && parse_binary(&p);
    if (ok && p.tok.kind != T_END) ok = unexpected(&p);
    if (ok && p.max_sp > CML_EXPR_STACK_MAX) /* not reachable with the depth limit */
        ok = fail(&p, 0, "expression too complex (needs more than %u stack slots)",
                  CML_EXPR_STACK_MAX);
    if (!ok) {
        free(p.code);
        return CML_EINVAL;
    }

    cml_expr *e = malloc(sizeof *e + p.n * sizeof *p.code);
    if (!e) {
        free(p.code);
        set_error(err, 0, "out of memory");
        return CML_ENOMEM;
    }
    e->n = p.n;
    e->stack = p.max_sp;
    e->vars = p.vars;
    memcpy(e->code, p.code, p.n * sizeof *p.code);
    free(p.code);
    *out = e;
    return CML_OK;
}

/* ------------------------------------------------------------------------- */
/* Error display                                                              */
/* ------------------------------------------------------------------------- */

/* Append c to buf if there is room for it and a terminating NUL. */
static void put(char *buf, size_t len, size_t *at, char c)
{
    if (*at + 1 < len) buf[(*at)++] = c;
}

/* See expr.h: the text and a caret under err->column, bounded by len. */
void cml_expr_format_error(const char *text, const cml_expr_error *err, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    if (!text) text = "";
    size_t n = strlen(text);
    bool caret = err && err->column > 0;
    size_t col0 = caret ? err->column - 1 : 0;
    if (col0 > n) col0 = n;

    /* Width of each line: both lines, '\n' and NUL must fit in len. */
    if (len < 5) { /* no room for anything useful */
        buf[0] = '\0';
        return;
    }
    size_t w = (len - 3) / 2;
    if (w > CML_EXPR_FORMAT_WIDTH) w = CML_EXPR_FORMAT_WIDTH;

    size_t start = 0, end = n;
    bool lm = false, rm = false; /* "..." on the left / right */
    if (n > w) {
        if (w < 12) { /* too narrow for markers: a bare window with the column */
            start = col0 >= w ? col0 - w + 1 : 0;
            end = start + w < n ? start + w : n;
        } else if (col0 < w - 3) {
            end = w - 3;
            rm = true;
        } else if (col0 >= n - (w - 3)) {
            start = n - (w - 3);
            lm = true;
        } else {
            size_t c = w - 6;
            start = col0 - c / 2;
            end = start + c;
            lm = rm = true;
        }
    }

    size_t at = 0;
    if (lm) for (int k = 0; k < 3; k++) put(buf, len, &at, '.');
    for (size_t k = start; k < end; k++) {
        unsigned char c = (unsigned char)text[k];
        put(buf, len, &at, c >= ' ' && c < 0x7f ? (char)c : is_space(c) ? ' ' : '?');
    }
    if (rm) for (int k = 0; k < 3; k++) put(buf, len, &at, '.');
    if (caret) {
        put(buf, len, &at, '\n');
        size_t indent = col0 - start + (lm ? 3 : 0);
        for (size_t k = 0; k < indent; k++) put(buf, len, &at, ' ');
        put(buf, len, &at, '^');
    }
    buf[at] = '\0';
}
