/*
 * Integer index expressions over the thread index, e.g. "i*2 + 1",
 * "(i % 32) * 33", "min(i, n - 1)", "tx + ty*bdx".
 *
 * Grammar (C precedence, left associative, 64-bit signed integers):
 *   expr    := or
 *   or      := xor ( '|' xor )*
 *   xor     := and ( '^' and )*
 *   and     := shift ( '&' shift )*
 *   shift   := add ( ('<<' | '>>') add )*
 *   add     := mul ( ('+' | '-') mul )*
 *   mul     := unary ( ('*' | '/' | '%') unary )*
 *   unary   := ('-' | '+' | '~') unary | primary
 *   primary := NUMBER | VARIABLE | '(' expr ')' | ('min'|'max') '(' expr ',' expr ')'
 * NUMBER: decimal or 0x hexadecimal. VARIABLE: see cml_expr_vars.
 * Evaluation never invokes undefined behaviour: overflow, division by zero
 * and shifts outside 0..63 are reported as errors.
 */
#ifndef CUMEMLAB_EXPR_H
#define CUMEMLAB_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_expr cml_expr;

/* Values of the variables an expression may use. */
typedef struct cml_expr_vars {
    int64_t i;        /* global linear thread index: (by*gdx + bx)*bdx*bdy + ty*bdx + tx */
    int64_t tx, ty;   /* threadIdx.x, threadIdx.y */
    int64_t bx, by;   /* blockIdx.x, blockIdx.y   */
    int64_t bdx, bdy; /* blockDim.x, blockDim.y   */
    int64_t gdx, gdy; /* gridDim.x, gridDim.y     */
    int64_t lane;     /* lane in the warp         */
    int64_t n;        /* array length in elements */
} cml_expr_vars;

/* Where parsing or evaluation failed, for a message that points at it. */
typedef struct cml_expr_error {
    size_t column;      /* 1-based column in the text (0 if not about a place) */
    char message[128];  /* e.g. "expected ')' to close '(' at column 3" */
} cml_expr_error;

/* Parse `text` (NUL-terminated, at most CML_EXPR_MAX_LEN bytes). On failure
 * returns CML_EINVAL and fills *err; *out is set only on success. */
#define CML_EXPR_MAX_LEN 4096u
cml_status cml_expr_parse(const char *text, cml_expr **out, cml_expr_error *err);

/* Evaluate. CML_EINVAL with *err filled on overflow, division by zero or a
 * bad shift count (err may be NULL). */
cml_status cml_expr_eval(const cml_expr *e, const cml_expr_vars *v, int64_t *out,
                         cml_expr_error *err);

/* Bit set of variables used: 1u << CML_EXPR_VAR_x. */
enum {
    CML_EXPR_VAR_I, CML_EXPR_VAR_TX, CML_EXPR_VAR_TY, CML_EXPR_VAR_BX, CML_EXPR_VAR_BY,
    CML_EXPR_VAR_BDX, CML_EXPR_VAR_BDY, CML_EXPR_VAR_GDX, CML_EXPR_VAR_GDY,
    CML_EXPR_VAR_LANE, CML_EXPR_VAR_N
};
unsigned cml_expr_vars_used(const cml_expr *e);

void cml_expr_free(cml_expr *e);

/*
 * What an expression does over a 1-D launch of `threads` threads in blocks
 * of bdx x bdy (thread t of block b: i = b*bdx*bdy + t, tx = t % bdx,
 * ty = t / bdx, lane = t % 32, bx = b, by = 0, gdx = the blocks, gdy = 1,
 * n as given), found without evaluating every thread.
 */
typedef struct cml_expr_launch {
    uint64_t bdx, bdy, threads;
    int64_t n;
} cml_expr_launch;

typedef struct cml_expr_shape {
    int fails;        /* 1: the evaluation fails at thread `fail_thread` (the
                         first in launch order to fail) */
    uint64_t fail_thread;
    int affine;       /* 1: thread t of block b (every one that runs) has the
                         value first[t] + step * b, and no evaluation fails */
    int64_t step;     /* affine: elements from one block to the next */
    int bounded;      /* 1: no evaluation fails, and lo..hi holds every value
                         (affine: the exact range; otherwise a sound bound
                         from interval arithmetic) */
    int64_t lo, hi;
} cml_expr_shape;

/*
 * The shape of `e` over launch `l`. `first` (room for bdx*bdy values, or
 * NULL) gets block 0's values when the shape is affine. Work: the threads
 * of one block times the program's length. CML_EINVAL for NULL arguments
 * or an empty launch, CML_ENOMEM. Not affine is an answer, not an error:
 * the expression may have no period ((i*i) % n), or the analysis may not
 * see one.
 */
cml_status cml_expr_shape_of(const cml_expr *e, const cml_expr_launch *l, int64_t *first,
                             cml_expr_shape *out);

/* Render `err` for a terminal, into buf (always NUL-terminated when len > 0,
 * never written past len): two lines, the expression text and a caret under
 * err->column, with no trailing newline, e.g. "(i % 32) $ 33\n         ^".
 * Bytes that are not printable ASCII are shown as ' ' (whitespace) or '?' so
 * that the caret stays aligned. A text wider than 120 columns, or than half
 * of buf, is cut to a window around the column, marked with "...". With
 * err == NULL or err->column == 0 only the text line is written. */
void cml_expr_format_error(const char *text, const cml_expr_error *err, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
