/* Matrix transpose (experiment 17: global coalescing meets shared memory):
 * the kernel mirror and its arguments, shared with the GPU run. */
#ifndef CML_EXP_TRANSPOSE_H
#define CML_EXP_TRANSPOSE_H

#include "experiments/transpose/transpose_kernels.h" /* cml_tr_kernel, cml_tr_shape */
#include "lab/experiment.h"

typedef struct cml_transpose_args {
    uint64_t nx, ny; /* in[] is ny rows of nx floats */
    cml_tr_kernel kernel;
} cml_transpose_args;

/* One thread of kernel a->kernel, launched as cml_tr_shape says. */
void cml_transpose_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/*
 * The model of a whole launch into rec (both rule sets, rec->grid/block).
 * When nx and ny are multiples of 32 and of the block's footprint, every
 * block issues the same traffic (see transpose.c): five blocks (the four
 * corners and the middle) are traced, must agree, and one stands for all,
 * which is exact. Otherwise the blocks repeat with a period of one or a few
 * blocks away from the last row and column (cml_exp_trace_axes: exact too;
 * small grids are traced whole). *traced_blocks says how many blocks were
 * traced.
 */
cml_status cml_transpose_model(cml_record *rec, const cml_transpose_args *a, unsigned bx,
                               unsigned by, uint64_t *traced_blocks);

extern const cml_experiment cml_exp_transpose;

#endif
