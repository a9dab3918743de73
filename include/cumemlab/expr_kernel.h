/*
 * An index expression as a CUDA C kernel: the source that `cumemlab run
 * --expr` compiles at run time (NVRTC) and `cumemlab model --expr
 * --show-kernel` prints. The source is generated from the parsed
 * expression (its compiled program), never by pasting the user's text, so
 * no input can inject code: only the lab's own tokens reach the compiler.
 *
 * The kernel, for thread i of a 1-D grid of (bdx x bdy) blocks:
 *
 *     idx = EXPR;  if (i >= threads || idx < 0 || idx >= n) return;
 *     load   out[i] = fold(src[idx])      the loaded element folded to 64 bits
 *                                         and written once, so the load stays
 *     store  dst[idx] = value(idx)        a value of the element's index: every
 *                                         writer of one element writes the same
 *     copy   dst[idx] = src[SRC]          SRC = i unless --src gives another
 *
 * Spaces: global (through the load or store path asked for), shared (a tile
 * of `tile_len` elements per block: loads read a tile filled from src;
 * stores write into a poisoned tile that is then copied to dst, one tile per
 * block), constant (loads of a __constant__ array filled from the host).
 * The exact accesses, the tile's fill and copy included, are described once,
 * in the kernel's plan (src/model/expr_plan.h): this source is printed from
 * it, and the model's mirror of the kernel (the expr experiment's) emits by
 * walking it.
 */
#ifndef CUMEMLAB_EXPR_KERNEL_H
#define CUMEMLAB_EXPR_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/expr.h"
#include "cumemlab/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_expr_op { CML_EXPR_LOAD = 0, CML_EXPR_STORE, CML_EXPR_COPY } cml_expr_op;

typedef struct cml_expr_kernel {
    const cml_expr *index;   /* the element each thread accesses */
    const cml_expr *src;     /* copy: the element read (NULL: i) */
    cml_expr_op op;
    cml_space space;         /* CML_SPACE_GLOBAL, _SHARED or _CONSTANT */
    cml_cache cache;         /* global: the load path (ca/cg/nc/cs) or store path (ca = wb) */
    unsigned elem;           /* bytes per element: 1, 2, 4, 8 or 16 */
} cml_expr_kernel;

/* The kernel's name in the generated source (extern "C", not mangled). */
#define CML_EXPR_KERNEL_NAME "cml_expr_kernel"
/* The constant array's name and capacity in bytes (64 KiB bank). */
#define CML_EXPR_CONST_NAME "cml_expr_const"
#define CML_EXPR_CONST_BYTES 65536u

/* Arguments of the generated kernel, in order:
 *   const T *src, T *dst, unsigned long long *out, long long n,
 *   long long threads, long long tile_len
 * (T the element type; unused pointers may be NULL). */

/* Whether k is a kernel the generator makes; CML_EINVAL with a one-line
 * reason in err (a constant-memory store, an element size not 1..16, ...). */
cml_status cml_expr_kernel_check(const cml_expr_kernel *k, char *err, size_t errlen);

/* The whole CUDA C source of k, NUL-terminated, in *out (free() it).
 * CML_EINVAL as cml_expr_kernel_check; CML_ENOMEM. */
cml_status cml_expr_kernel_source(const cml_expr_kernel *k, char **out);

/* The expression as a C expression over the kernel's variables (i, tx, ty,
 * bx, by, bdx, bdy, gdx, gdy, lane, n, all long long), fully parenthesised,
 * with cml_* helpers for the operations whose C meaning differs from the
 * model's (arithmetic >>, min, max); *out malloc'ed. */
cml_status cml_expr_c_text(const cml_expr *e, char **out);

#ifdef __cplusplus
}
#endif
#endif
