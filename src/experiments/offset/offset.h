/* Experiments 1 and 2 (misaligned reads and writes): shared declarations of
 * the model mirror and the GPU run. */
#ifndef CML_EXP_OFFSET_H
#define CML_EXP_OFFSET_H

#include "lab/experiment.h"

typedef struct cml_offset_args {
    uint64_t n, offset;
    cml_cache cache; /* load path (read-offset) or store path (write-offset) */
    int write;
} cml_offset_args;

void cml_offset_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_read_offset;
extern const cml_experiment cml_exp_write_offset;

#endif
