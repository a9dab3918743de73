/*
 * Experiment 6: the bodies of the strided and scattered kernels, written
 * once for the kernels (stride.cu) and the model's mirror (stride.c):
 * gpu/kernel_body.h. One thread per element processed, i = blockIdx.x *
 * blockDim.x + threadIdx.x; loads __ldca (site 0), stores plain (site 1).
 */
#ifndef CML_STRIDE_BODY_H
#define CML_STRIDE_BODY_H

#include <stdint.h>

#include "experiments/stride/stride_kernels.h"
#include "gpu/kernel_body.h"

/* i < m = n / s: C[i] = A[i*s] */
CML_BODY void cml_stride_read_body(CML_CTX, const float *A, float *C, uint64_t m, uint64_t s)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < m) {
        float v = CML_LD(0, CML_LD_CA, float, A, i * s);
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < m = n / s: C[i*s] = A[i] */
CML_BODY void cml_stride_write_body(CML_CTX, const float *A, float *C, uint64_t m, uint64_t s)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < m) {
        float v = CML_LD(0, CML_LD_CA, float, A, i);
        CML_ST(1, CML_ST_PLAIN, C, i * s, v);
    }
}

/* i < n: C[i] = A[i/32] (every lane of an aligned warp on one address) */
CML_BODY void cml_stride_broadcast_body(CML_CTX, const float *A, float *C, uint64_t n)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_CA, float, A, i / 32u);
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < n: C[i] = A[perm(i)] */
CML_BODY void cml_stride_gather_body(CML_CTX, const float *A, float *C, uint64_t n, uint64_t full,
                                     uint64_t w)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_CA, float, A, cml_stride_perm(i, full, w, CML_STRIDE_P));
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < n: C[perm(i)] = A[i] */
CML_BODY void cml_stride_scatter_body(CML_CTX, const float *A, float *C, uint64_t n, uint64_t full,
                                      uint64_t w)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_CA, float, A, i);
        CML_ST(1, CML_ST_PLAIN, C, cml_stride_perm(i, full, w, CML_STRIDE_P), v);
    }
}

#endif
