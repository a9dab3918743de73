/*
 * The compiled form of an index expression (expr.c): a flat postfix
 * program. Shared by the evaluator (expr.c) and the CUDA C generator
 * (expr_codegen.c), which must agree on every operation's meaning; nothing
 * outside src/model includes it.
 */
#ifndef CML_MODEL_EXPR_PROGRAM_H
#define CML_MODEL_EXPR_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/expr.h"

enum {
    OP_CONST, /* push k */
    OP_VAR,   /* push the int64_t at byte offset `off` in cml_expr_vars */
    OP_NEG,
    OP_NOT,
    /* binary, both operands on the stack; same order as the K forms */
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_SHL, OP_SHR, OP_AND, OP_OR, OP_XOR,
    OP_MIN, OP_MAX,
    /* binary with the right operand the constant k */
    OP_ADDK, OP_SUBK, OP_MULK, OP_DIVK, OP_MODK, OP_SHLK, OP_SHRK, OP_ANDK, OP_ORK, OP_XORK,
    OP_MINK, OP_MAXK,
    /* '/' and '%' by the constant k = 2^off, 1 <= off <= 62: cannot fail */
    OP_DIVP2, OP_MODP2
};
#define OP_K_DELTA (OP_ADDK - OP_ADD)

typedef struct cml_insn {
    int64_t k;        /* OP_CONST and the K forms */
    uint32_t column;  /* 1-based column of the operator, for errors */
    uint16_t off;     /* OP_VAR: offsetof(cml_expr_vars, ...); OP_*P2: log2(k) */
    uint8_t op;
} cml_insn;

struct cml_expr {
    size_t n;        /* instructions */
    size_t stack;    /* stack slots the program needs */
    unsigned vars;   /* bit set of CML_EXPR_VAR_* */
    cml_insn code[]; /* postfix program */
};

/* Why an operation failed (cml_expr_arith). */
enum { A_OK = 0, A_OVERFLOW, A_DIVZERO, A_MODZERO, A_SHIFTCOUNT, A_SHLNEG };

/* Apply binary operator `op` (OP_ADD..OP_MAX) to a and b. Returns A_OK and
 * stores the result in *r, or an A_* reason and leaves *r unspecified. Never
 * invokes undefined behaviour, whatever the operands. */
static inline int cml_expr_arith(unsigned op, int64_t a, int64_t b, int64_t *r)
{
    switch (op) {
    case OP_ADD: return __builtin_add_overflow(a, b, r) ? A_OVERFLOW : A_OK;
    case OP_SUB: return __builtin_sub_overflow(a, b, r) ? A_OVERFLOW : A_OK;
    case OP_MUL: return __builtin_mul_overflow(a, b, r) ? A_OVERFLOW : A_OK;
    case OP_DIV:
        if (b == 0) return A_DIVZERO;
        if (a == INT64_MIN && b == -1) return A_OVERFLOW;
        *r = a / b;
        return A_OK;
    case OP_MOD:
        if (b == 0) return A_MODZERO;
        *r = b == -1 ? 0 : a % b; /* INT64_MIN % -1 is UB in C; the answer is 0 */
        return A_OK;
    case OP_SHL:
        if (b < 0 || b > 63) return A_SHIFTCOUNT;
        if (a < 0) return A_SHLNEG;
        if (a > (INT64_MAX >> b)) return A_OVERFLOW;
        *r = a << b; /* a >= 0 and a * 2^b fits: defined */
        return A_OK;
    case OP_SHR:
        if (b < 0 || b > 63) return A_SHIFTCOUNT;
        *r = a >= 0 ? a >> b : ~(~a >> b); /* arithmetic, without relying on the
                                              implementation-defined a >> b, a < 0 */
        return A_OK;
    case OP_AND: *r = a & b; return A_OK;
    case OP_OR: *r = a | b; return A_OK;
    case OP_XOR: *r = a ^ b; return A_OK;
    case OP_MIN: *r = a < b ? a : b; return A_OK;
    case OP_MAX: *r = a > b ? a : b; return A_OK;
    default: return A_OVERFLOW; /* not reached */
    }
}

#endif
