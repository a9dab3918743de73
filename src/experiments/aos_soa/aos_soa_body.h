/*
 * Experiment 3: the bodies of the AoS and SoA update kernels, written once
 * for the kernels (aos_soa.cu) and the model's mirror (aos_soa.c):
 * gpu/kernel_body.h. One thread per element, i = blockIdx.x*blockDim.x +
 * threadIdx.x; the T touched fields are all loaded first (T independent
 * loads in flight, sites 0..T-1), then stored (sites 16..16+T-1).
 *
 * Loads go through __ldca: the ca path, and an inline PTX load the
 * compiler cannot merge into 8- or 16-byte loads (a struct of floats is
 * only 4-byte aligned, so the textbook's compiler emits one 4-byte load per
 * field too) nor turn into an .nc load. Stores plain.
 */
#ifndef CML_AOS_SOA_BODY_H
#define CML_AOS_SOA_BODY_H

#include <stdint.h>

#include "experiments/aos_soa/aos_soa_kernels.h"
#include "gpu/kernel_body.h"

/* The first store's site: loads take sites 0..CML_AOS_MAX_FIELDS-1. */
#define CML_AOS_STORE_SITE0 CML_AOS_MAX_FIELDS

/* AoS: struct i is floats in[i*F .. i*F+F-1]; tmp = in[i] field by field,
 * out[i].f_j = tmp.f_j + 10*(j+1), for j < T. */
CML_BODY void cml_aos_body(CML_CTX, const float *in, float *out, uint64_t n, unsigned fields,
                           unsigned touched)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    const float *src = in + i * fields;
    float *dst = out + i * fields;
    float tmp[CML_AOS_MAX_FIELDS];
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            tmp[j] = CML_LD(j, CML_LD_CA, float, src, j);
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            CML_ST(CML_AOS_STORE_SITE0 + j, CML_ST_PLAIN, dst, j, tmp[j] + cml_aos_soa_addend(j));
}

/* SoA: field j of element i is in[j*pitch + i]; the same update on the
 * first T field arrays. */
CML_BODY void cml_soa_body(CML_CTX, const float *in, float *out, uint64_t n, uint64_t pitch,
                           unsigned touched)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    float tmp[CML_AOS_MAX_FIELDS];
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            tmp[j] = CML_LD(j, CML_LD_CA, float, in + (uint64_t)j * pitch, i);
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            CML_ST(CML_AOS_STORE_SITE0 + j, CML_ST_PLAIN, out, (uint64_t)j * pitch + i,
                   tmp[j] + cml_aos_soa_addend(j));
}

#endif
