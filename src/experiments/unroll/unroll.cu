/*
 * Experiment 4: the read-offset kernel with U = 1, 2, 4 independent accesses
 * per thread (the textbook's readSegmentUnroll) and with 4-, 8- and 16-byte
 * accesses (float, float2, float4): nine kernels in one binary, and a checker
 * that recomputes every output float from the counter-based random inputs.
 *
 * The kernels' bodies are in unroll_body.h, which the model's mirror
 * (unroll.c) compiles too. All 2U loads of a thread are issued before its
 * first store, so they are in flight together: that is the point of
 * unrolling. Each access has its own guard, so no tail is skipped (the
 * textbook's kernel dropped the last partial block-of-U).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/unroll/unroll_body.h"
#include "experiments/unroll/unroll_kernels.h"
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
