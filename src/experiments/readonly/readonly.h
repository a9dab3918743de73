/* Experiment 7 (read-only cache): the model mirror and the experiment,
 * exported for the registry and the tests. */
#ifndef CML_EXP_READONLY_H
#define CML_EXP_READONLY_H

#include "lab/experiment.h"

typedef struct cml_readonly_args {
    int pattern;      /* cml_ro_pattern (readonly_kernels.h) */
    cml_cache cache;  /* the loads' path: CA, CG or NC */
    uint64_t n;       /* see cml_readonly_launch_args */
    uint64_t m;       /* hot-gather: table floats, a power of two >= 32 */
} cml_readonly_args;

void cml_readonly_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_readonly_trace(cml_record *rec, const cml_readonly_args *a, unsigned block);

extern const cml_experiment cml_exp_readonly;

#endif
