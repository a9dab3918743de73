/*
 * Experiment 10: the bodies of the constant-memory kernels, written once
 * for the kernels (constant.cu) and the model's mirrors (constant.c):
 * gpu/kernel_body.h. Blocks are 1-D, a multiple of 32 threads, so
 * threadIdx.x % 32 is the lane. Global accesses plain except the read-only
 * coefficients (__ldg).
 */
#ifndef CML_CONSTANT_BODY_H
#define CML_CONSTANT_BODY_H

#include <stdint.h>

#include "experiments/constant/constant.h"
#include "gpu/kernel_body.h"

/*
 * The table takes almost all of the 64 KB a module may hold: 64 KB minus
 * 256 bytes, because c_coef lives in the same module (ptxas refuses more:
 * "File uses too much global constant data"). The model puts both at
 * offset 0 of the constant bank: it counts the distinct addresses of a
 * warp, and c_coef's real place, after c_tab, is as line-aligned.
 */
CML_CONSTANT_ARRAY(float, c_tab, CML_CONST_TAB_FLOATS, 0);
CML_CONSTANT_ARRAY(float, c_coef, 2 * CML_STENCIL_RADIUS + 1, 0);

/* (a) Serialization, k distinct addresses per warp: out[i] = in[i] (site 0)
 * + c_tab[(lane % k) * stride] (site 1, an LDC: its index varies by lane);
 * the store is site 2. */
CML_BODY void cml_const_serial_body(CML_CTX, const float *in, float *out, unsigned long long n,
                                    int k, int stride)
{
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float a = CML_LD(0, CML_LD_PLAIN, float, in, i);
        float c = CML_LDC(1, float, c_tab, (CML_TID_X % 32 % k) * stride);
        CML_ST(2, CML_ST_PLAIN, out, i, a + c);
    }
}

/* Sites of the stencil. */
enum {
    CML_CST_IN = 0,      /* in[i]                   */
    CML_CST_TILE_ST,     /* tile[tx + R] = ...      */
    CML_CST_HALO_L_LD,   /* in[i - R]               */
    CML_CST_HALO_L_ST,   /* tile[tx] = ...          */
    CML_CST_HALO_R_LD,   /* in[i + blockDim.x]      */
    CML_CST_HALO_R_ST,   /* tile[tx + blockDim.x + R] = ... */
    CML_CST_COEF0 = 6,   /* coefficient j: 6 + j    */
    CML_CST_TILE_LD0 = CML_CST_COEF0 + 2 * CML_STENCIL_RADIUS + 1, /* tile[tx + j]: 15 + j */
    CML_CST_OUT = CML_CST_TILE_LD0 + 2 * CML_STENCIL_RADIUS + 1    /* out[i]: 24 */
};

/* The sites of the coefficient loads alone (the mirror's coef_only). */
#define CML_CST_COEF_SITES (((UINT64_C(1) << (2 * CML_STENCIL_RADIUS + 1)) - 1) << CML_CST_COEF0)

/*
 * (b) The 1-D 9-point stencil (radius R = 4) with a shared tile of
 * blockDim.x + 2R inputs (dynamic shared memory), the halo loaded by the
 * first R threads; then nine taps in a fixed order, each product and sum
 * rounded on its own (no FMA), so the checker and the host agree bit for
 * bit. The coefficient j is c_coef[j] (where = CML_COEF_CONSTANT),
 * __ldg(&coef[j]) (READONLY) or coef[j] (GLOBAL). n is a multiple of
 * blockDim.x: no thread is outside. in[] is reached at i - R by a signed
 * index: in points 128 bytes into its allocation (constant.c's contract).
 */
CML_BODY void cml_const_stencil_body(CML_CTX, const float *in, float *out, unsigned long long n,
                                     int where, const float *coef)
{
    CML_SHARED_EXTERN(float, tile, 0);
    unsigned tx = CML_TID_X;
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + tx;
    (void)n;
    float v = CML_LD(CML_CST_IN, CML_LD_PLAIN, float, in, i);
    CML_STS(CML_CST_TILE_ST, tile, tx + CML_STENCIL_RADIUS, v);
    if (tx < CML_STENCIL_RADIUS) {
        float l = CML_LD(CML_CST_HALO_L_LD, CML_LD_PLAIN, float, in,
                         (long long)i - (long long)CML_STENCIL_RADIUS);
        CML_STS(CML_CST_HALO_L_ST, tile, tx, l);
        float r = CML_LD(CML_CST_HALO_R_LD, CML_LD_PLAIN, float, in, i + CML_BDIM_X);
        CML_STS(CML_CST_HALO_R_ST, tile, tx + CML_BDIM_X + CML_STENCIL_RADIUS, r);
    }
    CML_SYNC();
    float sum = 0.0f;
    CML_UNROLL for (int j = 0; j < 2 * (int)CML_STENCIL_RADIUS + 1; j++)
    {
        float c = 0.0f;
        if (where == CML_COEF_CONSTANT)
            c = CML_LDC(CML_CST_COEF0 + j, float, c_coef, j);
        else if (where == CML_COEF_READONLY)
            c = CML_LD(CML_CST_COEF0 + j, CML_LD_NC, float, coef, j);
        else if (where == CML_COEF_GLOBAL)
            c = CML_LD(CML_CST_COEF0 + j, CML_LD_PLAIN, float, coef, j);
        float t = CML_LDS(CML_CST_TILE_LD0 + j, float, tile, tx + j);
        sum = CML_FADD_RN(sum, CML_FMUL_RN(c, t));
    }
    CML_ST(CML_CST_OUT, CML_ST_PLAIN, out, i, sum);
}

#endif
