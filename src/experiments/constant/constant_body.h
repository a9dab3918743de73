/*
 * Experiment 10 (constant memory): its kernels, written once
 * (gpu/kernel_body.h). The mirrors' arguments and the launch arguments; the
 * stencil arithmetic that the kernels, the checker and the host tests
 * share; the launchers that constant.c calls; the kernels' bodies, which
 * the C compiler makes the model's mirrors (constant.c); and under
 * __CUDACC__ the kernels, their launchers and checker, which nvcc compiles
 * through the file the build generates for the folder
 * (cmake/experiments.cmake). Blocks are 1-D, a multiple of 32 threads, so
 * threadIdx.x % 32 is the lane. Global accesses plain except the read-only
 * coefficients (__ldg).
 */
#ifndef CML_CONSTANT_BODY_H
#define CML_CONSTANT_BODY_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"

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

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel families, in the order of the experiment's `pattern` choices. */
typedef enum cml_const_pattern { CML_CONST_SERIAL = 0, CML_CONST_STENCIL } cml_const_pattern;

/* Stencil taps: 2 * radius + 1. */
#define CML_CONST_TAPS (2 * CML_STENCIL_RADIUS + 1)

/*
 * One output of the 9-point stencil from its nine inputs v[0..8] (in[i-4]
 * .. in[i+4]) and coefficients c[0..8], in the kernels' fixed order:
 * sum = 0, then sum += c[j] * v[j] for j = 0..8, every product and sum
 * rounded to float on its own. On the device __fmul_rn/__fadd_rn forbid
 * FMA contraction; on the host each operation is its own statement (ISO C
 * does not contract across statements, x86-64 evaluates float in float).
 * Kernel, device checker and host reference therefore agree bit for bit.
 */
CML_HD float cml_const_stencil_ref(const float *v, const float *c)
{
    float sum = 0.0f;
    for (unsigned j = 0; j < CML_CONST_TAPS; j++) {
#if defined(__CUDA_ARCH__)
        sum = __fadd_rn(sum, __fmul_rn(c[j], v[j]));
#else
        float p = c[j] * v[j];
        sum = sum + p;
#endif
    }
    return sum;
}

typedef struct cml_constant_launch_args {
    const float *in;     /* in[0]: the first input element                       */
    float *out;
    const float *coef;   /* stencil: the 9 coefficients in global memory           */
    uint64_t n;          /* threads (outputs); the stencil's is a multiple of block */
    uint64_t cap;        /* floats allocated in out: the checker checks all of them */
    uint64_t in_first;   /* in[i] = cml_random_f32(seed_in, in_first + i)          */
    int k, stride;       /* serial: lane l reads c_tab[(l % k) * stride]           */
    unsigned block;      /* threads per block, a multiple of 32                    */
    int pattern;         /* cml_const_pattern                                      */
    int coef_where;      /* stencil: cml_coef_where (constant, readonly, global)   */
    size_t smem;         /* stencil: dynamic shared memory to launch with (0: the
                            tile's own; more: cml_gpu_one_block_per_sm's figure) */
} cml_constant_launch_args;

/* Fill the __constant__ table (c_tab[q] = cml_random_f32(seed_tab, q), all
 * CML_CONST_TAB_FLOATS of it) and the coefficients (c_coef[j] and, when
 * d_coef is not NULL, d_coef[j] = cml_random_f32(seed_coef, j)) with
 * cudaMemcpyToSymbol / cudaMemcpy. Synchronous. */
CML_LAUNCHER cml_status cml_constant_upload(uint64_t seed_tab, uint64_t seed_coef, float *d_coef);
/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_constant_launch(void *args);
/* The __global__ function (NULL: bad choice), for the occupancy
 * calculator; *smem gets its dynamic shared memory at `block` threads. */
CML_LAUNCHER const void *cml_constant_kernel(int pattern, int coef_where, unsigned block,
                                             size_t *smem);
/* Count wrong floats of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong index into d_counters[1] (all ones from the
 * caller): outputs bit for bit, the poison past n. */
CML_LAUNCHER cml_status cml_constant_check(const cml_constant_launch_args *a, uint64_t seed_in,
                                           uint64_t seed_tab, uint64_t seed_coef,
                                           unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

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

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

/*
 * Experiment 10: constant memory. A __constant__ table read at k distinct
 * addresses per warp (serialization), and the 9-point stencil with a
 * shared tile and halo whose coefficients sit in __constant__ memory, in
 * global memory read through the read-only path (__ldg) or in plain global
 * memory.
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
#endif /* __CUDACC__ */

#endif
