/*
 * Experiment 7: the bodies of the read-only cache's kernels, written once
 * for the kernels (readonly.cu, one per load path) and the model's mirror
 * (readonly.c): gpu/kernel_body.h. One thread per output, i = blockIdx.x *
 * blockDim.x + threadIdx.x; loads through `ld` (ca, cg or nc), stores
 * plain in every variant: only the load path changes.
 */
#ifndef CML_READONLY_BODY_H
#define CML_READONLY_BODY_H

#include <stdint.h>

#include "experiments/readonly/readonly_kernels.h"
#include "gpu/kernel_body.h"

/* i < n: C[i] = A[i] */
CML_BODY void cml_ro_copy_body(CML_CTX, const float *A, float *C, uint64_t n, unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, ld, float, A, i);
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < n - 8: C[i] = stencil(A[i .. i+8]); nine loads (sites 0-8), each
 * input element is read by nine threads (the re-use a cache can serve). */
CML_BODY void cml_ro_stencil_body(CML_CTX, const float *A, float *C, uint64_t outs, unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < outs) {
        float v[CML_STENCIL_POINTS];
        CML_UNROLL for (unsigned k = 0; k < CML_STENCIL_POINTS; k++)
            v[k] = CML_LD(k, ld, float, A + i, k);
        CML_ST(CML_STENCIL_POINTS, CML_ST_PLAIN, C, i, cml_stencil9(v));
    }
}

/* i < n: C[i] = T[hot(i)] */
CML_BODY void cml_ro_hot_body(CML_CTX, const float *T, float *C, uint64_t n, uint64_t m,
                              unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, ld, float, T, cml_hot_index(i, m));
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

#endif
