/*
 * Experiment 10: constant memory. A __constant__ table read at k distinct
 * addresses per warp (serialization), and the 9-point stencil with a
 * shared tile and halo whose coefficients sit in __constant__ memory, in
 * global memory read through the read-only path (__ldg) or in plain global
 * memory. The kernels' bodies are in constant_body.h, which the model's
 * mirrors (constant.c) compile too.
 *
 * What the SASS shows (cuobjdump -sass of the sm_90 build with CUDA 13.0;
 * docs/experiments/constant.md):
 *   const_serial:    one LDC R, c[0x3][R]: an indexed constant load (the
 *                    index depends on the lane, so it cannot be an operand);
 *                    bank 3 holds user __constant__ data, bank 0 parameters;
 *   stencil_const:   no per-thread LDC: the unrolled taps have constant
 *                    indices, and ptxas loads the coefficients into uniform
 *                    registers (four ULDC.64 and one ULDC from c[0x3][...]),
 *                    then FMUL R, R, UR: warp-wide by construction (the
 *                    textbooks show an immediate c[][] operand instead);
 *   stencil_readonly: nine LDG.E.CONSTANT (the read-only path) for coef;
 *   stencil_global:  nine plain LDG.E for coef.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/constant/constant.h"
#include "experiments/constant/constant_body.h"
#include "experiments/constant/constant_kernels.h"
#include "gpu/gpu_internal.h"

#define R CML_STENCIL_RADIUS

/* The kernels' bodies, and the __constant__ arrays c_tab and c_coef, are in
 * constant_body.h. */

__global__ void const_serial(const float *in, float *out, unsigned long long n, int k, int stride)
{
    cml_const_serial_body(CML_KERNEL_CTX, in, out, n, k, stride);
}

__global__ void stencil_const(const float *in, float *out, unsigned long long n)
{
    cml_const_stencil_body(CML_KERNEL_CTX, in, out, n, CML_COEF_CONSTANT, NULL);
}

__global__ void stencil_readonly(const float *in, float *out, unsigned long long n,
                                 const float *__restrict__ coef)
{
    cml_const_stencil_body(CML_KERNEL_CTX, in, out, n, CML_COEF_READONLY, coef);
}

__global__ void stencil_global(const float *in, float *out, unsigned long long n,
                               const float *coef)
{
    cml_const_stencil_body(CML_KERNEL_CTX, in, out, n, CML_COEF_GLOBAL, coef);
}

/* ---- host side ----------------------------------------------------------- */

extern "C" cml_status cml_constant_upload(uint64_t seed_tab, uint64_t seed_coef, float *d_coef)
{
    static float tab[CML_CONST_TAB_FLOATS]; /* 64 KB: not on the stack */
    float coef[2 * R + 1];
    for (unsigned q = 0; q < CML_CONST_TAB_FLOATS; q++)
        tab[q] = cml_random_f32(seed_tab, q);
    for (unsigned j = 0; j < 2 * R + 1; j++)
        coef[j] = cml_random_f32(seed_coef, j);
    CML_CU(cudaMemcpyToSymbol(c_tab, tab, sizeof tab));
    CML_CU(cudaMemcpyToSymbol(c_coef, coef, sizeof coef));
    if (d_coef)
        CML_CU(cudaMemcpy(d_coef, coef, sizeof coef, cudaMemcpyHostToDevice));
    return CML_OK;
}

extern "C" const void *cml_constant_kernel(int pattern, int coef_where, unsigned block,
                                           size_t *smem)
{
    if (smem)
        *smem = 0;
    if (pattern == CML_CONST_SERIAL)
        return (const void *)const_serial;
    if (pattern != CML_CONST_STENCIL)
        return NULL;
    if (smem)
        *smem = ((size_t)block + 2 * R) * sizeof(float);
    switch (coef_where) {
    case CML_COEF_CONSTANT: return (const void *)stencil_const;
    case CML_COEF_READONLY: return (const void *)stencil_readonly;
    case CML_COEF_GLOBAL: return (const void *)stencil_global;
    default: return NULL;
    }
}

/* Serial: k in 1..32 and the table reaches c_tab[31 * stride]; stencil: n
 * a multiple of the block, and the coefficients there when they are read. */
static int args_ok(const cml_constant_launch_args *a)
{
    if (a->block == 0 || a->block > 1024 || a->block % 32 || a->n > a->cap)
        return 0;
    if (a->pattern == CML_CONST_SERIAL)
        return a->k >= 1 && a->k <= 32 && a->stride >= 1 &&
               31ull * (unsigned)a->stride < CML_CONST_TAB_FLOATS;
    if (a->pattern == CML_CONST_STENCIL)
        return a->n % a->block == 0 && a->coef_where >= CML_COEF_CONSTANT &&
               a->coef_where <= CML_COEF_GLOBAL &&
               (a->coef_where == CML_COEF_CONSTANT || a->coef != NULL);
    return 0;
}

extern "C" cml_status cml_constant_launch(void *vctx)
{
    const cml_constant_launch_args *a = (const cml_constant_launch_args *)vctx;
    if (!args_ok(a))
        return CML_EINVAL;
    const uint64_t grid = (a->n + a->block - 1) / a->block;
    if (grid == 0)
        return CML_OK;
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    const unsigned g = (unsigned)grid, b = a->block;
    const size_t tile = ((size_t)b + 2 * R) * sizeof(float);
    if (a->smem && a->smem < tile)
        return CML_EINVAL;
    const size_t smem = a->smem ? a->smem : tile;
    if (a->pattern == CML_CONST_SERIAL) {
        const_serial<<<g, b>>>(a->in, a->out, a->n, a->k, a->stride);
    } else {
        switch (a->coef_where) {
        case CML_COEF_CONSTANT: stencil_const<<<g, b, smem>>>(a->in, a->out, a->n); break;
        case CML_COEF_READONLY:
            stencil_readonly<<<g, b, smem>>>(a->in, a->out, a->n, a->coef);
            break;
        default: stencil_global<<<g, b, smem>>>(a->in, a->out, a->n, a->coef); break;
        }
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/* out[j], j < n, recomputed from the seeds (not from c_tab or the device's
 * copy of the coefficients, so a wrong upload is caught too); past n the
 * poison. */
__global__ void constant_check(const float *__restrict__ out, uint64_t n, uint64_t cap,
                               uint64_t in_first, int pattern, int k, int stride,
                               uint64_t seed_in, uint64_t seed_tab, uint64_t seed_coef,
                               unsigned long long *bad, unsigned long long *first_bad)
{
    float c[2 * R + 1];
    for (unsigned j = 0; j < 2 * R + 1; j++)
        c[j] = cml_random_f32(seed_coef, j);
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t got = __float_as_uint(out[j]);
        uint32_t want = 0xFFFFFFFFu;
        if (j < n && pattern == CML_CONST_SERIAL) {
            const uint64_t q = (uint64_t)((unsigned)(j % 32u) % (unsigned)k) * (unsigned)stride;
            want = __float_as_uint(__fadd_rn(cml_random_f32(seed_in, in_first + j),
                                             cml_random_f32(seed_tab, q)));
        } else if (j < n) {
            float v[2 * R + 1];
            for (unsigned t = 0; t < 2 * R + 1; t++)
                v[t] = cml_random_f32(seed_in, in_first + j - R + t);
            want = __float_as_uint(cml_const_stencil_ref(v, c));
        }
        if (got != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_constant_check(const cml_constant_launch_args *a, uint64_t seed_in,
                                         uint64_t seed_tab, uint64_t seed_coef,
                                         unsigned long long *d_counters)
{
    if (!args_ok(a) || (a->pattern == CML_CONST_STENCIL && a->in_first < R))
        return CML_EINVAL;
    constant_check<<<1024, 256>>>(a->out, a->n, a->cap, a->in_first, a->pattern, a->k, a->stride,
                                  seed_in, seed_tab, seed_coef, d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
