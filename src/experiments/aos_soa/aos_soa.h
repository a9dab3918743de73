/* Experiment 3 (array of structures vs structure of arrays): the model
 * mirror and the experiment, exported for the registry and the tests. */
#ifndef CML_EXP_AOS_SOA_H
#define CML_EXP_AOS_SOA_H

#include "lab/experiment.h"

typedef struct cml_aos_soa_args {
    uint64_t n;        /* elements (structs) */
    uint64_t pitch;    /* SoA: floats between field arrays, cml_aos_soa_pitch(n) */
    unsigned fields;   /* F */
    unsigned touched;  /* T <= F */
    int soa;
} cml_aos_soa_args;

void cml_aos_soa_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_aos_soa_trace(cml_record *rec, const cml_aos_soa_args *a, unsigned block);

extern const cml_experiment cml_exp_aos_soa;

#endif
