/*
 * Experiment 14: the textbook's globalVariable, its two one-thread kernels
 * and the variables they use, written once for the kernels (device_vars.cu)
 * and the model's mirror (device_vars.c): gpu/kernel_body.h.
 *
 * devData is a 4-byte symbol in global memory, aligned at least to 4
 * bytes: one sector whatever its exact address (the mirror puts it at
 * global array 0). constData sits at offset 0 of the module's constant
 * bank.
 */
#ifndef CML_DEVICE_VARS_BODY_H
#define CML_DEVICE_VARS_BODY_H

#include "gpu/kernel_body.h"

CML_DEVICE_VAR(float, devData, 0);
CML_CONSTANT_VAR(float, constData, 0);

/* devData += 2.0f: a load (site 0) and a store (site 1) of devData. */
CML_BODY void cml_dev_add_body(CML_CTX)
{
    float v = CML_LD(0, CML_LD_PLAIN, float, CML_VAR(devData), 0);
    CML_ST(1, CML_ST_PLAIN, CML_VAR(devData), 0, v + 2.0f);
}

/* devData = constData + 2.0f: a constant load (site 0), a store (site 1). */
CML_BODY void cml_const_read_body(CML_CTX)
{
    float c = CML_LDC(0, float, CML_VAR(constData), 0);
    CML_ST(1, CML_ST_PLAIN, CML_VAR(devData), 0, c + 2.0f);
}

#endif
