/*
 * Experiment 5: the bodies of C[i] = A[i] + B[i], one element per thread or
 * in a grid-stride loop, written once for the kernels (parallelism.cu) and
 * the model's mirror (parallelism.c): gpu/kernel_body.h. Loads __ldca
 * (sites 0 and 1, the ca path), the store plain (site 2).
 */
#ifndef CML_PARALLELISM_BODY_H
#define CML_PARALLELISM_BODY_H

#include <stdint.h>

#include "gpu/kernel_body.h"

/* i = global thread; if (i < n) C[i] = A[i] + B[i] */
CML_BODY void cml_add_one_body(CML_CTX, const float *A, const float *B, float *C, uint64_t n)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float a = CML_LD(0, CML_LD_CA, float, A, i);
        float b = CML_LD(1, CML_LD_CA, float, B, i);
        CML_ST(2, CML_ST_PLAIN, C, i, a + b);
    }
}

/* for (i = global thread; i < n; i += gridDim.x*blockDim.x) C[i] = A[i] + B[i] */
CML_BODY void cml_add_gridstride_body(CML_CTX, const float *A, const float *B, float *C,
                                      uint64_t n)
{
    const uint64_t stride = (uint64_t)CML_GDIM_X * CML_BDIM_X;
    for (uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X; i < n; i += stride) {
        float a = CML_LD(0, CML_LD_CA, float, A, i);
        float b = CML_LD(1, CML_LD_CA, float, B, i);
        CML_ST(2, CML_ST_PLAIN, C, i, a + b);
    }
}

#endif
