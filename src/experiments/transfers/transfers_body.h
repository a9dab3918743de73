/*
 * Experiment 13: the bodies of the zero-copy read kernel and the
 * managed-memory kernel, written once for the kernels (transfers.cu) and
 * the model's mirrors (transfers_zerocopy.c, transfers_managed.c):
 * gpu/kernel_body.h. One thread per output, i = blockIdx.x * blockDim.x +
 * threadIdx.x; site 0 the load, site 1 the store, both plain.
 */
#ifndef CML_TRANSFERS_BODY_H
#define CML_TRANSFERS_BODY_H

#include <stdint.h>

#include "gpu/kernel_body.h"

/* sumArrayZerocpy_read: if (i < n) out[i] = in[i * stride + offset]. The
 * same code whatever `in` points to: device memory, mapped host memory
 * (over PCIe), or the host pointer itself under unified addressing. */
CML_BODY void cml_zerocopy_read_body(CML_CTX, const float *in, float *out, uint64_t n,
                                     unsigned stride, unsigned offset)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_PLAIN, float, in, i * stride + offset);
        CML_ST(1, CML_ST_PLAIN, out, i, v);
    }
}

/* sumMatrixGPUManaged_scale: if (i < n) out[i] = 2 * in[i] (one rounding). */
CML_BODY void cml_um_scale_body(CML_CTX, const float *in, float *out, uint64_t n)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_PLAIN, float, in, i);
        CML_ST(1, CML_ST_PLAIN, out, i, CML_FMUL_RN(2.0f, v));
    }
}

#endif
