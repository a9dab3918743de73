/*
 * Experiments 1 and 2: the bodies of the misaligned read and write kernels,
 * one thread per element, written once for the kernels (offset.cu, one per
 * cache path) and the model's mirror (offset.c): gpu/kernel_body.h.
 * i = blockIdx.x*blockDim.x + threadIdx.x, k = i + offset.
 */
#ifndef CML_OFFSET_BODY_H
#define CML_OFFSET_BODY_H

#include <stdint.h>

#include "gpu/kernel_body.h"

/* read-offset: if (k < n) C[i] = A[k] + B[k]; loads through `ld` (ca, cg
 * or nc), the store plain. */
CML_BODY void cml_read_offset_body(CML_CTX, const float *A, const float *B, float *C, uint64_t n,
                                   uint64_t offset, unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    uint64_t k = i + offset;
    if (k < n) {
        float a = CML_LD(0, ld, float, A, k);
        float b = CML_LD(1, ld, float, B, k);
        CML_ST(2, CML_ST_PLAIN, C, i, a + b);
    }
}

/* write-offset: if (k < n) C[k] = A[i] + B[i]; plain loads, the store
 * through `st` (wb, cg or cs). */
CML_BODY void cml_write_offset_body(CML_CTX, const float *A, const float *B, float *C,
                                    uint64_t n, uint64_t offset, unsigned st)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    uint64_t k = i + offset;
    if (k < n) {
        float a = CML_LD(0, CML_LD_PLAIN, float, A, i);
        float b = CML_LD(1, CML_LD_PLAIN, float, B, i);
        CML_ST(2, st, C, k, a + b);
    }
}

#endif
