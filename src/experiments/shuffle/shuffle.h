/* Experiment 11 (warp shuffle): kernel mirrors and their arguments, shared
 * with the GPU run (shuffle.cu). */
#ifndef CML_EXP_SHUFFLE_H
#define CML_EXP_SHUFFLE_H

#include "experiments/shuffle/shuffle_kernels.h" /* cml_shfl_op */
#include "lab/experiment.h"

typedef struct cml_shuffle_args {
    uint64_t n;
    cml_shfl_op op;
} cml_shuffle_args;

/* The reductions (REDUCE_*, WREDUCE_*) and the permutation kernels (the
 * others: in[] and out[] only, since a shuffle moves registers, not memory). */
void cml_shuffle_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* Source lane of lane `lane` for a shuffle op as PTX shfl.sync defines it
 * (CUDA's c operand: segment mask 32 - width); returns `lane` itself where
 * the hardware keeps the lane's own value. */
unsigned cml_shfl_source(cml_shfl_op op, unsigned lane, unsigned arg, unsigned width);

extern const cml_experiment cml_exp_shuffle;

#endif
