/*
 * Experiment 16: the peak bandwidth kernels, their checker and the sum's
 * reference. See peak.h for the arithmetic of each kernel and why it can be
 * verified bit for bit.
 *
 * The C mirror in peak.c (cml_peak_mirror) emits exactly the accesses of
 * these kernels, site by site; keep them in step.
 *
 * Why these shapes reach the memory's limit: every access is 16 bytes
 * (float4) and a warp's 32 accesses cover 512 contiguous bytes, i.e. four
 * whole 128-byte lines, so no sector is fetched twice or half used; inputs
 * go through the read-only path (__ldg) and stores are plain write-back.
 * The grid-stride shape keeps every SM full of resident warps (grid from the
 * occupancy calculator) and takes four float4s per loop iteration; the
 * one-shot shape puts CML_PEAK_PER_THREAD loads in
 * flight per thread before the first store. Both are measured and the better
 * one is reported, since which wins depends on the GPU.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/peak.h"
#include "gpu/gpu_internal.h"

#define K CML_PEAK_PER_THREAD

/* ---- the element operations, with no contraction into FMA ------------- */

__device__ __forceinline__ float op_copy(float x, float y)
{
    (void)y;
    return x;
}
__device__ __forceinline__ float op_scale(float x, float y)
{
    (void)y;
    return __fmul_rn(CML_PEAK_SCALAR, x);
}
__device__ __forceinline__ float op_add(float x, float y)
{
    return __fadd_rn(x, y);
}
__device__ __forceinline__ float op_triad(float x, float y)
{
    return __fadd_rn(x, __fmul_rn(CML_PEAK_SCALAR, y));
}

#define APPLY4(FN, a, b) make_float4(FN(a.x, b.x), FN(a.y, b.y), FN(a.z, b.z), FN(a.w, b.w))

/* ---- elementwise kernels ---------------------------------------------- */

/* Grid-stride: thread t takes float4 t, t + stride, t + 2 stride, ... The
 * main loop takes four of them per iteration, all loads issued before the
 * first store (an unroll pragma would not do it: the compiler guards every
 * unrolled step with its own exit test); the remainder loop takes the last
 * < 4; then the < 4 trailing floats (n not a multiple of 4) go to threads
 * 0..2 of the grid. */
#define GRID_STRIDE_KERNEL(NAME, FN, NEEDS_Y)                                                  \
    __global__ void NAME(const float *__restrict__ x, const float *__restrict__ y,             \
                         float *__restrict__ z, uint64_t n)                                    \
    {                                                                                          \
        const float4 *x4 = (const float4 *)x;                                                  \
        const float4 *y4 = (const float4 *)y;                                                  \
        float4 *z4 = (float4 *)z;                                                              \
        const uint64_t n4 = n / 4;                                                             \
        const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;                              \
        uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;                          \
        const uint64_t t = i;                                                                  \
        for (; i + 3 * stride < n4; i += 4 * stride) {                                         \
            float4 a[4], b[4];                                                                 \
            _Pragma("unroll") for (unsigned k = 0; k < 4; k++) a[k] = __ldg(x4 + i + k * stride); \
            _Pragma("unroll") for (unsigned k = 0; k < 4; k++) b[k] =                          \
                NEEDS_Y ? __ldg(y4 + i + k * stride) : a[k];                                   \
            _Pragma("unroll") for (unsigned k = 0; k < 4; k++) z4[i + k * stride] =            \
                APPLY4(FN, a[k], b[k]);                                                        \
        }                                                                                      \
        for (; i < n4; i += stride) {                                                          \
            float4 a = __ldg(x4 + i);                                                          \
            float4 b = NEEDS_Y ? __ldg(y4 + i) : a;                                            \
            z4[i] = APPLY4(FN, a, b);                                                          \
        }                                                                                      \
        const uint64_t r = n4 * 4 + t;                                                         \
        if (r < n) {                                                                           \
            float av = __ldg(x + r);                                                           \
            float bv = NEEDS_Y ? __ldg(y + r) : av;                                            \
            z[r] = FN(av, bv);                                                                 \
        }                                                                                      \
    }

/* One-shot: block b covers float4s [b*blockDim*K, (b+1)*blockDim*K); thread
 * t takes base + k*blockDim (k < K), so each of the K loads is a coalesced
 * warp access; all loads are issued before the first store. The trailing
 * floats go to the first threads of block 0. */
#define ONE_SHOT_KERNEL(NAME, FN, NEEDS_Y)                                                     \
    __global__ void NAME(const float *__restrict__ x, const float *__restrict__ y,             \
                         float *__restrict__ z, uint64_t n)                                    \
    {                                                                                          \
        const float4 *x4 = (const float4 *)x;                                                  \
        const float4 *y4 = (const float4 *)y;                                                  \
        float4 *z4 = (float4 *)z;                                                              \
        const uint64_t n4 = n / 4;                                                             \
        const uint64_t base = (uint64_t)blockIdx.x * blockDim.x * K + threadIdx.x;             \
        float4 a[K], b[K];                                                                     \
        _Pragma("unroll") for (unsigned k = 0; k < K; k++)                                     \
        {                                                                                      \
            uint64_t i = base + (uint64_t)k * blockDim.x;                                      \
            if (i < n4)                                                                        \
                a[k] = __ldg(x4 + i);                                                          \
        }                                                                                      \
        _Pragma("unroll") for (unsigned k = 0; k < K; k++)                                     \
        {                                                                                      \
            uint64_t i = base + (uint64_t)k * blockDim.x;                                      \
            if (NEEDS_Y && i < n4)                                                             \
                b[k] = __ldg(y4 + i);                                                          \
        }                                                                                      \
        _Pragma("unroll") for (unsigned k = 0; k < K; k++)                                     \
        {                                                                                      \
            uint64_t i = base + (uint64_t)k * blockDim.x;                                      \
            if (i < n4)                                                                        \
                z4[i] = NEEDS_Y ? APPLY4(FN, a[k], b[k]) : APPLY4(FN, a[k], a[k]);             \
        }                                                                                      \
        const uint64_t r = n4 * 4 + threadIdx.x;                                               \
        if (blockIdx.x == 0 && r < n) {                                                        \
            float av = __ldg(x + r);                                                           \
            float bv = NEEDS_Y ? __ldg(y + r) : av;                                            \
            z[r] = FN(av, bv);                                                                 \
        }                                                                                      \
    }

GRID_STRIDE_KERNEL(peak_copy_gs, op_copy, 0)
GRID_STRIDE_KERNEL(peak_scale_gs, op_scale, 0)
GRID_STRIDE_KERNEL(peak_add_gs, op_add, 1)
GRID_STRIDE_KERNEL(peak_triad_gs, op_triad, 1)
ONE_SHOT_KERNEL(peak_copy_os, op_copy, 0)
ONE_SHOT_KERNEL(peak_scale_os, op_scale, 0)
ONE_SHOT_KERNEL(peak_add_os, op_add, 1)
ONE_SHOT_KERNEL(peak_triad_os, op_triad, 1)

/* ---- the read-only sum -------------------------------------------------- */

/*
 * Sum of a block's values into thread 0: shuffles within each warp, lane 0
 * of each warp writes its warp's sum to shared memory, warp 0 adds those.
 * Needs blockDim.x a multiple of 32 (full-mask shuffles); the host checks.
 */
__device__ __forceinline__ double warp_sum(double v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xFFFFFFFFu, v, off);
    return v;
}

__device__ double block_sum(double v)
{
    __shared__ double warp_sums[32];
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[w] = v;
    __syncthreads();
    v = 0.0;
    if (w == 0) {
        if (lane < (blockDim.x >> 5))
            v = warp_sums[lane];
        v = warp_sum(v);
    }
    return v;
}

/* float4 loads, accumulated in double: exact for n < 2^29 (see peak.h), so
 * the order of additions (and of the atomics below) cannot change the result. */
__device__ __forceinline__ double sum4(float4 a)
{
    return ((double)a.x + (double)a.y) + ((double)a.z + (double)a.w);
}

/*
 * The end of both sum kernels: thread 0 adds the block's sum into a slot,
 * then takes a ticket; the block with the last ticket adds the slots into
 * *result and zeroes slots and ticket for the next launch. The fence makes
 * the slot update visible to every block before the ticket says it is there.
 */
__device__ void sum_finish(double block_total, double *slots, unsigned *ticket, double *result)
{
    __shared__ int is_last;
    if (threadIdx.x == 0) {
        atomicAdd(&slots[blockIdx.x % CML_PEAK_SUM_SLOTS], block_total);
        __threadfence();
        is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    /* Also orders block_sum's reads of its shared array before the second
     * block_sum below writes it again. */
    __syncthreads();
    if (!is_last)
        return;
    double v = 0.0;
    if (threadIdx.x < CML_PEAK_SUM_SLOTS) {
        /* Read and zero in one atomic: the slot is ready for the next launch. */
        unsigned long long bits = atomicExch((unsigned long long *)&slots[threadIdx.x], 0ull);
        v = __longlong_as_double((long long)bits);
    }
    v = block_sum(v);
    if (threadIdx.x == 0) {
        *result = v;
        *ticket = 0u;
    }
}

/* The grid-stride shape of the elementwise kernels: four independent
 * 16-byte loads in flight per thread per main-loop iteration. */
__global__ void peak_sum_gs(const float *__restrict__ x, uint64_t n, double *slots,
                            unsigned *ticket, double *result)
{
    const float4 *x4 = (const float4 *)x;
    const uint64_t n4 = n / 4;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t t = i;
    double acc = 0.0;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a[4];
#pragma unroll
        for (unsigned k = 0; k < 4; k++)
            a[k] = __ldg(x4 + i + k * stride);
#pragma unroll
        for (unsigned k = 0; k < 4; k++)
            acc += sum4(a[k]);
    }
    for (; i < n4; i += stride)
        acc += sum4(__ldg(x4 + i));
    const uint64_t r = n4 * 4 + t;
    if (r < n)
        acc += (double)__ldg(x + r);
    sum_finish(block_sum(acc), slots, ticket, result);
}

__global__ void peak_sum_os(const float *__restrict__ x, uint64_t n, double *slots,
                            unsigned *ticket, double *result)
{
    const float4 *x4 = (const float4 *)x;
    const uint64_t n4 = n / 4;
    const uint64_t base = (uint64_t)blockIdx.x * blockDim.x * K + threadIdx.x;
    float4 a[K];
#pragma unroll
    for (unsigned k = 0; k < K; k++) {
        uint64_t i = base + (uint64_t)k * blockDim.x;
        a[k] = i < n4 ? __ldg(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    double acc = 0.0;
#pragma unroll
    for (unsigned k = 0; k < K; k++)
        acc += sum4(a[k]);
    const uint64_t r = n4 * 4 + threadIdx.x;
    if (blockIdx.x == 0 && r < n)
        acc += (double)__ldg(x + r);
    sum_finish(block_sum(acc), slots, ticket, result);
}

/* ---- launchers ---------------------------------------------------------- */

typedef void (*elementwise_kernel)(const float *, const float *, float *, uint64_t);
typedef void (*sum_kernel)(const float *, uint64_t, double *, unsigned *, double *);

static elementwise_kernel pick_elementwise(int op, int shape)
{
    static const elementwise_kernel gs[] = {peak_copy_gs, peak_scale_gs, peak_add_gs,
                                            peak_triad_gs};
    static const elementwise_kernel os[] = {peak_copy_os, peak_scale_os, peak_add_os,
                                            peak_triad_os};
    if (op < CML_PEAK_COPY || op > CML_PEAK_TRIAD)
        return NULL;
    return shape == CML_PEAK_ONE_SHOT ? os[op] : gs[op];
}

extern "C" const void *cml_peak_kernel(cml_peak_op op, cml_peak_shape shape)
{
    if (op == CML_PEAK_SUM)
        return shape == CML_PEAK_ONE_SHOT ? (const void *)peak_sum_os : (const void *)peak_sum_gs;
    return (const void *)pick_elementwise(op, shape);
}

extern "C" cml_status cml_peak_launch(void *vctx)
{
    const cml_peak_args *a = (const cml_peak_args *)vctx;
    if (a->op == CML_PEAK_MEMCPY) {
        CML_CU(cudaMemcpyAsync(a->z, a->x, (size_t)a->n * sizeof(float),
                               cudaMemcpyDeviceToDevice, 0));
        return CML_OK;
    }
    if (a->grid == 0 || a->block == 0 || a->block % 32u != 0)
        return CML_EINVAL;
    if (a->op == CML_PEAK_SUM) {
        sum_kernel k = a->shape == CML_PEAK_ONE_SHOT ? peak_sum_os : peak_sum_gs;
        k<<<a->grid, a->block>>>(a->x, a->n, a->slots, a->ticket, a->result);
        CML_CU_LAUNCH();
        return CML_OK;
    }
    elementwise_kernel k = pick_elementwise(a->op, a->shape);
    if (!k)
        return CML_EINVAL;
    k<<<a->grid, a->block>>>(a->x, a->y, a->z, a->n);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* ---- verification ------------------------------------------------------- */

__device__ __forceinline__ float expected(int op, uint64_t seed_x, uint64_t seed_y, uint64_t i)
{
    float xv = cml_random_f32(seed_x, i);
    switch (op) {
    case CML_PEAK_SCALE: return op_scale(xv, 0.0f);
    case CML_PEAK_ADD: return op_add(xv, cml_random_f32(seed_y, i));
    case CML_PEAK_TRIAD: return op_triad(xv, cml_random_f32(seed_y, i));
    default: return xv; /* copy, memcpy */
    }
}

/* Every element, bit for bit: a NaN from the poison never compares equal. */
__global__ void peak_check(const float *__restrict__ z, uint64_t n, int op, uint64_t seed_x,
                           uint64_t seed_y, unsigned long long *bad, unsigned long long *first_bad)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (__float_as_uint(z[i]) != __float_as_uint(expected(op, seed_x, seed_y, i))) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)i);
        }
    }
}

extern "C" cml_status cml_peak_check(const cml_peak_args *a, uint64_t seed_x, uint64_t seed_y,
                                     unsigned long long *d_counters)
{
    if (a->n == 0)
        return CML_OK;
    uint64_t want = (a->n + 255) / 256;
    unsigned grid = (unsigned)(want < 4096 ? want : 4096);
    peak_check<<<grid, 256>>>(a->z, a->n, (int)a->op, seed_x, seed_y, d_counters,
                              d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* The reference sum straight from the generator (not from memory), so a
 * wrong input element or a skipped one changes the kernel's sum but not
 * this. Exact for n < 2^29, so the atomics' order does not matter. */
__global__ void peak_reference_sum(uint64_t n, uint64_t seed, double *sum)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    double acc = 0.0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        acc += (double)cml_random_f32(seed, i);
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        atomicAdd(sum, acc);
}

extern "C" cml_status cml_peak_reference_sum(uint64_t n, uint64_t seed, double *d_sum)
{
    if (n == 0)
        return CML_OK;
    uint64_t want = (n + 255) / 256;
    unsigned grid = (unsigned)(want < 2048 ? want : 2048);
    peak_reference_sum<<<grid, 256>>>(n, seed, d_sum);
    CML_CU_LAUNCH();
    return CML_OK;
}
