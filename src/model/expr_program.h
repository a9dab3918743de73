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

#endif
