/* Experiment 10 (constant memory): kernel mirrors and their arguments,
 * shared with the GPU run (constant.cu through constant_kernels.h). */
#ifndef CML_EXP_CONSTANT_H
#define CML_EXP_CONSTANT_H

#include "lab/experiment.h"

#define CML_STENCIL_RADIUS 4u
/* c_tab holds 64 KB - 256 B of floats: a module may hold 64 KB of
 * __constant__ data in all, and c_coef shares the module (ptxas refuses
 * 16384 floats plus the coefficients: "too much global constant data"). */
#define CML_CONST_TAB_FLOATS 16320u
/* in[] of the stencil points this many bytes into its allocation, so that
 * in[i - RADIUS] exists for i = 0 while in[0] stays 128-byte aligned. */
#define CML_STENCIL_LEAD_BYTES 128u

typedef enum cml_coef_where {
    CML_COEF_CONSTANT = 0, /* __constant__ float c_coef[9]            */
    CML_COEF_READONLY,     /* global, read through __ldg (LDG.CONSTANT) */
    CML_COEF_GLOBAL        /* global, plain loads                       */
} cml_coef_where;

/* Serialization kernel: lane l reads c_tab[(l % k) * stride]. */
typedef struct cml_const_serial_args {
    uint64_t n;
    unsigned k, stride;
} cml_const_serial_args;

/* The 9-point stencil with a shared tile and halo. */
typedef struct cml_stencil_args {
    uint64_t n;              /* a multiple of the block size */
    cml_coef_where coef;
    int coef_only;           /* model only: emit just the 9 coefficient loads
                                (to report their traffic on its own)        */
} cml_stencil_args;

void cml_const_serial_mirror(const cml_thread *t, const void *args, cml_emitter *e);
void cml_stencil_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_constant;

#endif
