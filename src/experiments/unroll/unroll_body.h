/*
 * Experiment 4: the body of the unrolled read-offset kernels, written once
 * for the kernels (unroll.cu) and the model's mirror (unroll.c):
 * gpu/kernel_body.h. One function per vector type VT (float, float2,
 * float4) and unroll factor U, as there is one kernel per pair: U sizes
 * the register arrays, so it is a constant on both sides.
 *
 * i0 = blockIdx.x*blockDim.x*U + threadIdx.x; access j is element
 * i_j = i0 + j*blockDim.x, read from k_j = i_j + offset:
 *   if (k_j < nv) C[i_j] = A[k_j] + B[k_j]      for j < U
 * All 2U loads of a thread (sites 3j, 3j+1) come before its first store
 * (site 3j+2): two unrolled loops over register arrays, so the loads are in
 * flight together, which is the point of unrolling. Each access has its own
 * guard, so no tail is skipped. Loads __ldca (ca), stores plain.
 */
#ifndef CML_UNROLL_BODY_H
#define CML_UNROLL_BODY_H

#include <stdint.h>

#include "gpu/kernel_body.h"

CML_BODY float cml_unroll_add1(float a, float b)
{
    return a + b;
}

CML_BODY float2 cml_unroll_add2(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}

CML_BODY float4 cml_unroll_add4(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

#define CML_UNROLL_BODY(NAME, VT, U, ADD)                                                     \
    CML_BODY void NAME(CML_CTX, const VT *A, const VT *B, VT *C, uint64_t nv, uint64_t offset) \
    {                                                                                         \
        const uint64_t i0 = (uint64_t)CML_BID_X * CML_BDIM_X * (U) + CML_TID_X;               \
        VT a[U], b[U];                                                                        \
        CML_UNROLL for (unsigned j = 0; j < (U); j++)                                         \
        {                                                                                     \
            uint64_t k = i0 + (uint64_t)j * CML_BDIM_X + offset;                              \
            if (k < nv) {                                                                     \
                a[j] = CML_LD(3 * j, CML_LD_CA, VT, A, k);                                    \
                b[j] = CML_LD(3 * j + 1, CML_LD_CA, VT, B, k);                                \
            }                                                                                 \
        }                                                                                     \
        CML_UNROLL for (unsigned j = 0; j < (U); j++)                                         \
        {                                                                                     \
            uint64_t i = i0 + (uint64_t)j * CML_BDIM_X;                                       \
            if (i + offset < nv)                                                              \
                CML_ST(3 * j + 2, CML_ST_PLAIN, C, i, ADD(a[j], b[j]));                       \
        }                                                                                     \
    }

CML_UNROLL_BODY(cml_unroll1_f1_body, float, 1, cml_unroll_add1)
CML_UNROLL_BODY(cml_unroll2_f1_body, float, 2, cml_unroll_add1)
CML_UNROLL_BODY(cml_unroll4_f1_body, float, 4, cml_unroll_add1)
CML_UNROLL_BODY(cml_unroll1_f2_body, float2, 1, cml_unroll_add2)
CML_UNROLL_BODY(cml_unroll2_f2_body, float2, 2, cml_unroll_add2)
CML_UNROLL_BODY(cml_unroll4_f2_body, float2, 4, cml_unroll_add2)
CML_UNROLL_BODY(cml_unroll1_f4_body, float4, 1, cml_unroll_add4)
CML_UNROLL_BODY(cml_unroll2_f4_body, float4, 2, cml_unroll_add4)
CML_UNROLL_BODY(cml_unroll4_f4_body, float4, 4, cml_unroll_add4)

#endif
