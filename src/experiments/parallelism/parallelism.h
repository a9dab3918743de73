/* Experiment 5 (exposing parallelism): the model mirror and the experiment,
 * exported for the registry and the tests. */
#ifndef CML_EXP_PARALLELISM_H
#define CML_EXP_PARALLELISM_H

#include "lab/experiment.h"

typedef struct cml_parallelism_args {
    uint64_t n;
    int gridstride; /* 0: one element per thread */
} cml_parallelism_args;

/* The kernel of either mode, thread by thread (grid-stride: the whole loop). */
void cml_parallelism_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/*
 * The model of one launch of `grid` blocks of `block` threads (grid is
 * ignored for one-per-thread, which launches ceil(n / block)). A grid-stride
 * launch issues exactly the warp instructions of the one-per-thread launch
 * (iteration k of block b is block b + k*grid of the other), so both are
 * traced as the latter, in O(1) blocks; rec->grid is set to `grid`.
 */
cml_status cml_parallelism_trace(cml_record *rec, const cml_parallelism_args *a, unsigned block,
                                 uint64_t grid);

extern const cml_experiment cml_exp_parallelism;

#endif
