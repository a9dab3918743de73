/*
 * Experiment 16: the peak bandwidth references swept over every kernel,
 * shape, block and size. The kernels, their bench and the lab's quick
 * measurement are the engine's (src/lab/peak.h); this experiment adds the
 * model's mirror of each kernel, the sweep's records and the findings.
 */
#ifndef CML_EXP_PEAK_H
#define CML_EXP_PEAK_H

#include "lab/experiment.h"
#include "lab/peak.h"

/* The C mirror of a peak kernel for the model (one thread's accesses). */
typedef struct cml_peak_mirror_args {
    cml_peak_op op;
    cml_peak_shape shape;
    uint64_t n;
} cml_peak_mirror_args;
void cml_peak_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_peak;

#endif
