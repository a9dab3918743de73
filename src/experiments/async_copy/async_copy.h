/* Experiment 21 (async-copy: staging global memory into shared memory
 * through registers, cp.async and TMA): the model mirror and the row. */
#ifndef CML_EXP_ASYNC_COPY_H
#define CML_EXP_ASYNC_COPY_H

#include "experiments/async_copy/async_copy_kernels.h"
#include "lab/experiment.h"

/* What one thread of a kernel does with one tile (async_copy.c says how the
 * launch is traced as one tile per block). */
typedef struct cml_async_args {
    int workload, method;  /* cml_ac_workload, cml_ac_method */
    unsigned width;        /* bytes per copy instruction of reg and cp.async */
    uint64_t nx;           /* transpose: in[] is ny rows of nx floats */
    uint64_t ny;
    /* 0: what the LSU counters see (cp.async's copies are not ld.global);
     * 1: cp.async's global reads emitted as loads, for their sector figures */
    int ldgsts_as_loads;
} cml_async_args;

/* One thread's accesses for tile t->bid.x, block of CML_AC_BLOCK threads. */
void cml_async_tile_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model's assumption for a loaded DRAM read on Volta..Hopper (an order
 * of magnitude: docs/experiments/async-copy.md), the latency in Little's law. */
#define CML_AC_DRAM_LATENCY_NS 800.0

extern const cml_experiment cml_exp_async_copy;

#endif
