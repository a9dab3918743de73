/*
 * Experiment 6: strided and scattered access. Five kernels (strided read,
 * strided write, warp broadcast, windowed gather and scatter) and one checker
 * that recomputes every element of C, written or not.
 *
 * The kernels' bodies are in stride_body.h, which the model's mirror
 * (stride.c) compiles too. Loads are __ldca (the ca path), stores plain.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/stride/stride_body.h"
#include "experiments/stride/stride_kernels.h"
#include "gpu/gpu_internal.h"

__global__ void stride_read(const float *__restrict__ A, float *__restrict__ C, uint64_t m,
                            uint64_t s)
{
    cml_stride_read_body(CML_KERNEL_CTX, A, C, m, s);
}

__global__ void stride_write(const float *__restrict__ A, float *__restrict__ C, uint64_t m,
                             uint64_t s)
{
    cml_stride_write_body(CML_KERNEL_CTX, A, C, m, s);
}

__global__ void stride_broadcast(const float *__restrict__ A, float *__restrict__ C, uint64_t n)
{
    cml_stride_broadcast_body(CML_KERNEL_CTX, A, C, n);
}

__global__ void stride_gather(const float *__restrict__ A, float *__restrict__ C, uint64_t n,
                              uint64_t full, uint64_t w)
{
    cml_stride_gather_body(CML_KERNEL_CTX, A, C, n, full, w);
}

__global__ void stride_scatter(const float *__restrict__ A, float *__restrict__ C, uint64_t n,
                               uint64_t full, uint64_t w)
{
    cml_stride_scatter_body(CML_KERNEL_CTX, A, C, n, full, w);
}

extern "C" const void *cml_stride_kernel(int pattern)
{
    switch (pattern) {
    case CML_STRIDE_READ: return (const void *)stride_read;
    case CML_STRIDE_WRITE: return (const void *)stride_write;
    case CML_STRIDE_BROADCAST: return (const void *)stride_broadcast;
    case CML_STRIDE_GATHER: return (const void *)stride_gather;
    case CML_STRIDE_SCATTER: return (const void *)stride_scatter;
    default: return NULL;
    }
}

static int window_ok(uint64_t w)
{
    return w != 0 && (w & (w - 1)) == 0;
}

extern "C" cml_status cml_stride_launch(void *vctx)
{
    const cml_stride_launch_args *a = (const cml_stride_launch_args *)vctx;
    if (a->block == 0 || a->block > 1024 || a->pattern < 0 ||
        a->pattern >= CML_STRIDE_PATTERN_COUNT)
        return CML_EINVAL;
    if ((a->pattern == CML_STRIDE_READ || a->pattern == CML_STRIDE_WRITE) && a->stride == 0)
        return CML_EINVAL;
    if ((a->pattern == CML_STRIDE_GATHER || a->pattern == CML_STRIDE_SCATTER) &&
        !window_ok(a->window))
        return CML_EINVAL;
    uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    uint64_t grid = (threads + a->block - 1) / a->block;
    if (grid == 0)
        return CML_OK; /* nothing to do: a zero grid is a launch error */
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    const unsigned g = (unsigned)grid, b = a->block;
    const uint64_t full = a->window ? a->n / a->window * a->window : 0;
    switch (a->pattern) {
    case CML_STRIDE_READ: stride_read<<<g, b>>>(a->A, a->C, threads, a->stride); break;
    case CML_STRIDE_WRITE: stride_write<<<g, b>>>(a->A, a->C, threads, a->stride); break;
    case CML_STRIDE_BROADCAST: stride_broadcast<<<g, b>>>(a->A, a->C, a->n); break;
    case CML_STRIDE_GATHER: stride_gather<<<g, b>>>(a->A, a->C, a->n, full, a->window); break;
    default: stride_scatter<<<g, b>>>(a->A, a->C, a->n, full, a->window); break;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/*
 * Checker over C[0, cap): for each element j, the A index the pattern
 * stores into it, or "unwritten" (then j must still hold the poison). For
 * the scatter, the element stored into j is the one perm sends there:
 * perm's inverse, the same formula with P's inverse.
 */
__global__ void stride_check(const float *__restrict__ C, uint64_t cap, uint64_t n, uint64_t s,
                             uint64_t full, uint64_t w, int pattern, uint64_t seed,
                             unsigned long long *bad, unsigned long long *first_bad)
{
    const uint64_t m = s ? n / s : 0;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        int written = 0;
        uint64_t src = 0;
        switch (pattern) {
        case CML_STRIDE_READ:
            written = j < m;
            src = j * s;
            break;
        case CML_STRIDE_WRITE:
            written = j < m * s && j % s == 0;
            src = j / s;
            break;
        case CML_STRIDE_BROADCAST:
            written = j < n;
            src = j / 32u;
            break;
        case CML_STRIDE_GATHER:
            written = j < n;
            src = written ? cml_stride_perm(j, full, w, CML_STRIDE_P) : 0;
            break;
        default:
            written = j < n;
            src = written ? cml_stride_perm(j, full, w, CML_STRIDE_P_INV) : 0;
            break;
        }
        uint32_t got = __float_as_uint(C[j]);
        int ok = written ? got == __float_as_uint(cml_random_f32(seed, src)) : got == 0xFFFFFFFFu;
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_stride_check(const cml_stride_launch_args *a, uint64_t seed,
                                       unsigned long long *d_counters)
{
    if (a->pattern < 0 || a->pattern >= CML_STRIDE_PATTERN_COUNT)
        return CML_EINVAL;
    if ((a->pattern == CML_STRIDE_GATHER || a->pattern == CML_STRIDE_SCATTER) &&
        !window_ok(a->window))
        return CML_EINVAL;
    uint64_t s = (a->pattern == CML_STRIDE_READ || a->pattern == CML_STRIDE_WRITE) ? a->stride : 0;
    if ((a->pattern == CML_STRIDE_READ || a->pattern == CML_STRIDE_WRITE) && s == 0)
        return CML_EINVAL;
    uint64_t full = a->window ? a->n / a->window * a->window : 0;
    stride_check<<<1024, 256>>>(a->C, a->cap, a->n, s, full, a->window, a->pattern, seed,
                                d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
