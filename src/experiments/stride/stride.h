/* Experiment 6 (strided and scattered access): the model mirror and the
 * experiment, exported for the registry and the tests. */
#ifndef CML_EXP_STRIDE_H
#define CML_EXP_STRIDE_H

#include "lab/experiment.h"

typedef struct cml_stride_args {
    int pattern;      /* cml_stride_pattern (stride_kernels.h) */
    uint64_t n;       /* see cml_stride_launch_args */
    uint64_t stride;  /* read/write */
    uint64_t window;  /* gather/scatter: a power of two */
} cml_stride_args;

void cml_stride_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_stride_trace(cml_record *rec, const cml_stride_args *a, unsigned block);

extern const cml_experiment cml_exp_stride;

#endif
