/* Experiment 14 (device variables): the kernel mirrors, shared with the GPU
 * run (device_vars.cu). */
#ifndef CML_EXP_DEVICE_VARS_H
#define CML_EXP_DEVICE_VARS_H

#include "lab/experiment.h"

typedef enum cml_devvar_kind {
    CML_DEVVAR_DEVICE = 0, /* dev_add: devData += 2.0f             */
    CML_DEVVAR_CONSTANT    /* const_read: devData = constData + 2.0f */
} cml_devvar_kind;

typedef struct cml_devvar_args {
    cml_devvar_kind kind;
} cml_devvar_args;

void cml_devvar_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_device_vars;

#endif
