/* Experiment 12 (shared memory banks): the kernel mirror and its arguments,
 * shared with the GPU run (shared_banks.cu). */
#ifndef CML_EXP_SHARED_BANKS_H
#define CML_EXP_SHARED_BANKS_H

#include "lab/experiment.h"

typedef enum cml_banks_kind {
    CML_BANKS_TILE = 0, /* a W x H word tile written and read by rows or columns */
    CML_BANKS_STRIDE    /* s[t * stride] of 4-, 8- or 16-byte elements          */
} cml_banks_kind;

typedef struct cml_banks_args {
    cml_banks_kind kind;
    /* tile */
    unsigned W, H;       /* tile columns (= blockDim.x) and rows (= blockDim.y) */
    unsigned P;          /* padded row length in words: W + pad                 */
    int write_col, read_col;
    /* stride */
    unsigned elem;       /* element bytes: 4, 8 or 16 */
    unsigned stride;     /* in elements               */
} cml_banks_args;

/* The mirror emits ONE round of a kernel's loop (sites 0 and 1) and the
 * final global store (site 2): every round issues the same warp
 * instructions, so the experiment multiplies the shared classes by the
 * round count `iters`, which is exact.
 * Tiles: works for the GPU's 2-D block (W, H) and for a 1-D block of W*H
 * threads (both number threads x fastest, so the warps are the same).
 * Strides: a 1-D block of any multiple of 32 threads. */
void cml_banks_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_shared_banks;

#endif
