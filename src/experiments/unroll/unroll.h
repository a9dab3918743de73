/* Experiment 4 (unrolling and bytes in flight): the model mirror and the
 * experiment, exported for the registry and the tests. */
#ifndef CML_EXP_UNROLL_H
#define CML_EXP_UNROLL_H

#include "lab/experiment.h"

typedef struct cml_unroll_args {
    uint64_t nv;      /* vector elements per array */
    uint64_t offset;  /* read offset in vector elements */
    unsigned unroll;  /* U: independent accesses per thread (1, 2, 4) */
    unsigned width;   /* bytes per access (4, 8, 16) */
} cml_unroll_args;

void cml_unroll_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_unroll_trace(cml_record *rec, const cml_unroll_args *a, unsigned block);

extern const cml_experiment cml_exp_unroll;

#endif
