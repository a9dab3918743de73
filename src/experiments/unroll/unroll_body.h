/*
 * Experiment 4: the read-offset kernel with U = 1, 2, 4 independent accesses
 * per thread (the textbook's readSegmentUnroll) and with 4-, 8- and 16-byte
 * accesses (float, float2, float4): nine kernels in one binary, and a checker
 * that recomputes every output float from the counter-based random inputs.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that unroll.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (unroll.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * One body per vector type VT (float, float2, float4) and unroll factor U,
 * as there is one kernel per pair: U sizes the register arrays, so it is a
 * constant on both sides. i0 = blockIdx.x*blockDim.x*U + threadIdx.x;
 * access j is element i_j = i0 + j*blockDim.x, read from k_j = i_j + offset:
 *   if (k_j < nv) C[i_j] = A[k_j] + B[k_j]      for j < U
 * All 2U loads of a thread (sites 3j, 3j+1) come before its first store
 * (site 3j+2): two unrolled loops over register arrays, so the loads are in
 * flight together, which is the point of unrolling. Each access has its own
 * guard, so no tail is skipped (the textbook's kernel dropped the last
 * partial block-of-U). Loads __ldca (ca), stores plain.
 */
#ifndef CML_UNROLL_BODY_H
#define CML_UNROLL_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

typedef struct cml_unroll_args {
    uint64_t nv;      /* vector elements per array */
    uint64_t offset;  /* read offset in vector elements */
    unsigned unroll;  /* U: independent accesses per thread (1, 2, 4) */
    unsigned width;   /* bytes per access (4, 8, 16) */
} cml_unroll_args;

void cml_unroll_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_unroll_trace(cml_record *rec, const cml_unroll_args *a, unsigned block);

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_unroll_launch_args {
    const float *A, *B; /* viewed as float, float2 or float4 by width */
    float *C;
    uint64_t nv;        /* vector elements per array (floats / (width / 4)) */
    uint64_t offset;    /* read offset, in vector elements */
    uint64_t cap;       /* floats allocated in C: the checker checks all of them */
    unsigned unroll;    /* 1, 2 or 4 independent accesses per thread */
    unsigned width;     /* bytes per access: 4, 8 or 16 */
    unsigned block;
} cml_unroll_launch_args;

/* Blocks of a launch: ceil(nv / (block * unroll)); the mirror's grid too. */
static inline uint64_t cml_unroll_grid(uint64_t nv, unsigned block, unsigned unroll)
{
    uint64_t per = (uint64_t)block * unroll;
    return per ? (nv + per - 1) / per : 0;
}

/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for an unroll or width without a kernel. */
CML_LAUNCHER cml_status cml_unroll_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: none). */
CML_LAUNCHER const void *cml_unroll_kernel(unsigned unroll, unsigned width);
/* Count wrong floats of C[0, cap) into d_counters[0] (zeroed by the caller),
 * the lowest wrong float index into d_counters[1] (all ones from the
 * caller): C's vector e must be A[e+offset] + B[e+offset] where e + offset <
 * nv, every other float the poison 0xFFFFFFFF. A and B were filled with
 * cml_random_f32(seed, float index). */
CML_LAUNCHER cml_status cml_unroll_check(const cml_unroll_launch_args *a, uint64_t seed_a,
                                         uint64_t seed_b, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

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

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "core/random.h"
#include "gpu/gpu_internal.h"

#define UNROLL_KERNEL(NAME, VT, BODY)                                                         \
    __global__ void NAME(const VT *__restrict__ A, const VT *__restrict__ B,                 \
                         VT *__restrict__ C, uint64_t nv, uint64_t offset)                    \
    {                                                                                         \
        BODY(CML_KERNEL_CTX, A, B, C, nv, offset);                                            \
    }

UNROLL_KERNEL(readUnroll1_f1, float, cml_unroll1_f1_body)
UNROLL_KERNEL(readUnroll2_f1, float, cml_unroll2_f1_body)
UNROLL_KERNEL(readUnroll4_f1, float, cml_unroll4_f1_body)
UNROLL_KERNEL(readUnroll1_f2, float2, cml_unroll1_f2_body)
UNROLL_KERNEL(readUnroll2_f2, float2, cml_unroll2_f2_body)
UNROLL_KERNEL(readUnroll4_f2, float2, cml_unroll4_f2_body)
UNROLL_KERNEL(readUnroll1_f4, float4, cml_unroll1_f4_body)
UNROLL_KERNEL(readUnroll2_f4, float4, cml_unroll2_f4_body)
UNROLL_KERNEL(readUnroll4_f4, float4, cml_unroll4_f4_body)

/* Table index of (unroll, width), or -1. */
static int pick(unsigned unroll, unsigned width)
{
    int u = unroll == 1 ? 0 : unroll == 2 ? 1 : unroll == 4 ? 2 : -1;
    int w = width == 4 ? 0 : width == 8 ? 1 : width == 16 ? 2 : -1;
    return (u < 0 || w < 0) ? -1 : w * 3 + u;
}

extern "C" const void *cml_unroll_kernel(unsigned unroll, unsigned width)
{
    static const void *const kernels[] = {
        (const void *)readUnroll1_f1, (const void *)readUnroll2_f1, (const void *)readUnroll4_f1,
        (const void *)readUnroll1_f2, (const void *)readUnroll2_f2, (const void *)readUnroll4_f2,
        (const void *)readUnroll1_f4, (const void *)readUnroll2_f4, (const void *)readUnroll4_f4,
    };
    int k = pick(unroll, width);
    return k < 0 ? NULL : kernels[k];
}

extern "C" cml_status cml_unroll_launch(void *vctx)
{
    const cml_unroll_launch_args *a = (const cml_unroll_launch_args *)vctx;
    int k = pick(a->unroll, a->width);
    if (k < 0 || a->block == 0 || a->block > 1024)
        return CML_EINVAL;
    uint64_t grid = cml_unroll_grid(a->nv, a->block, a->unroll);
    if (grid == 0)
        return CML_OK; /* nothing to do: a zero grid is a launch error */
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    const unsigned g = (unsigned)grid, b = a->block;
    const uint64_t nv = a->nv, off = a->offset;
    const float *A = a->A, *B = a->B;
    float *C = a->C;
    switch (k) {
    case 0: readUnroll1_f1<<<g, b>>>(A, B, C, nv, off); break;
    case 1: readUnroll2_f1<<<g, b>>>(A, B, C, nv, off); break;
    case 2: readUnroll4_f1<<<g, b>>>(A, B, C, nv, off); break;
    case 3: readUnroll1_f2<<<g, b>>>((const float2 *)A, (const float2 *)B, (float2 *)C, nv, off); break;
    case 4: readUnroll2_f2<<<g, b>>>((const float2 *)A, (const float2 *)B, (float2 *)C, nv, off); break;
    case 5: readUnroll4_f2<<<g, b>>>((const float2 *)A, (const float2 *)B, (float2 *)C, nv, off); break;
    case 6: readUnroll1_f4<<<g, b>>>((const float4 *)A, (const float4 *)B, (float4 *)C, nv, off); break;
    case 7: readUnroll2_f4<<<g, b>>>((const float4 *)A, (const float4 *)B, (float4 *)C, nv, off); break;
    default: readUnroll4_f4<<<g, b>>>((const float4 *)A, (const float4 *)B, (float4 *)C, nv, off); break;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/*
 * Checker, float by float over C[0, cap): float q belongs to vector e =
 * q / vec, component q % vec. Written vectors (e + offset < nv) must be the
 * sum of the same components of A and B at vector e + offset, bit for bit
 * (component-wise float adds, one rounding each); every other float,
 * including whatever lies past the nv vectors, must still be the poison.
 */
__global__ void unroll_check(const float *__restrict__ C, uint64_t cap, uint64_t nv,
                             uint64_t offset, unsigned vec, uint64_t seed_a, uint64_t seed_b,
                             unsigned long long *bad, unsigned long long *first_bad)
{
    for (uint64_t q = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; q < cap;
         q += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t e = q / vec, c = q % vec;
        uint32_t got = __float_as_uint(C[q]);
        int ok;
        if (e < nv && e + offset < nv) {
            uint64_t src = (e + offset) * vec + c;
            ok = got == __float_as_uint(cml_random_f32(seed_a, src) + cml_random_f32(seed_b, src));
        } else {
            ok = got == 0xFFFFFFFFu;
        }
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)q);
        }
    }
}

extern "C" cml_status cml_unroll_check(const cml_unroll_launch_args *a, uint64_t seed_a,
                                       uint64_t seed_b, unsigned long long *d_counters)
{
    if (pick(a->unroll, a->width) < 0)
        return CML_EINVAL;
    unroll_check<<<1024, 256>>>(a->C, a->cap, a->nv, a->offset, a->width / 4, seed_a, seed_b,
                                d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
