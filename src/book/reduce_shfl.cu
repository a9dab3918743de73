/*
 * The kernels main() of the book's chapter05/reduceIntegerShfl.cu launches,
 * reduceSmem and reduceShfl, as the book writes them (DIM 128, SMEMDIM 4,
 * the volatile warp unrolling, warpReduce by __shfl_xor), the shuffles in
 * their _sync form (shfl_kernels.h says why) and the warp unrolling with
 * __syncwarp() between its steps (below: the same accesses, without the
 * race the book's lock-step assumption leaves on Volta and later). The C mirror in reduce_shfl.c
 * emits exactly their accesses.
 */
#include <cuda_runtime.h>

#include "book/shfl_kernels.h"
#include "gpu/gpu_internal.h"

#define DIM     128
#define SMEMDIM 4     // 128/32 = 8

/* The book's __shfl_xor(v, m): all 32 lanes of a full warp take part. */
#define __shfl_xor(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))

static __global__ void reduceSmem (int *g_idata, int *g_odata, unsigned int n)
{
    __shared__ int smem[DIM];

    // set thread ID
    unsigned int tid = threadIdx.x;

    // boundary check
    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;

    if (idx >= n) return;

    // convert global data pointer to the local pointer of this block
    int *idata = g_idata + blockIdx.x * blockDim.x;

    // set to smem by each threads
    smem[tid] = idata[tid];
    __syncthreads();

    // in-place reduction in shared memory
    if (blockDim.x >= 1024 && tid < 512) smem[tid] += smem[tid + 512];
    __syncthreads();
    if (blockDim.x >= 512 && tid < 256) smem[tid] += smem[tid + 256];
    __syncthreads();
    if (blockDim.x >= 256 && tid < 128) smem[tid] += smem[tid + 128];
    __syncthreads();
    if (blockDim.x >= 128 && tid < 64)  smem[tid] += smem[tid + 64];
    __syncthreads();

    // unrolling warp
    if (tid < 32)
    {
        volatile int *vsmem = smem;
        // The book's six steps are `vsmem[tid] += vsmem[tid + k]`, with no
        // barrier: on Volta and later the lanes of a warp are not in lock
        // step, so a lane could read vsmem[tid + k] before its owner wrote
        // it (compute-sanitizer's racecheck reports it). Each step below
        // does the book's same two volatile loads and one store, with
        // __syncwarp() between the reads and the write and after the write:
        // the accesses, and so the counters, are the book's.
        #define WARP_STEP(k) { int a = vsmem[tid]; int b = vsmem[tid + (k)]; \
                               __syncwarp(); vsmem[tid] = a + b; __syncwarp(); }
        WARP_STEP(32)
        WARP_STEP(16)
        WARP_STEP( 8)
        WARP_STEP( 4)
        WARP_STEP( 2)
        WARP_STEP( 1)
        #undef WARP_STEP
    }

    // write result for this block to global mem
    if (tid == 0) g_odata[blockIdx.x] = smem[0];
}

__inline__ __device__ int warpReduce(int localSum)
{
    localSum += __shfl_xor(localSum, 16);
    localSum += __shfl_xor(localSum, 8);
    localSum += __shfl_xor(localSum, 4);
    localSum += __shfl_xor(localSum, 2);
    localSum += __shfl_xor(localSum, 1);

    return localSum;
}

static __global__ void reduceShfl (int *g_idata, int *g_odata, unsigned int n)
{
    // shared memory for each warp sum
    __shared__ int smem[SMEMDIM];

    // boundary check
    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;

    if (idx >= n) return;

    // calculate lane index and warp index
    int laneIdx = threadIdx.x % warpSize;
    int warpIdx = threadIdx.x / warpSize;

    // blcok-wide warp reduce
    int localSum = warpReduce(g_idata[idx]);

    // save warp sum to shared memory
    if (laneIdx == 0) smem[warpIdx] = localSum;

    // block synchronization
    __syncthreads();

    // last warp reduce
    if (threadIdx.x < warpSize) localSum = (threadIdx.x < SMEMDIM) ?
        smem[laneIdx] : 0;

    if (warpIdx == 0) localSum = warpReduce(localSum);

    // write result for this block to global mem
    if (threadIdx.x == 0) g_odata[blockIdx.x] = localSum;
}

extern "C" const void *cml_book_reduce_kernel_fn(int kernel)
{
    switch (kernel) {
    case CML_RED_SMEM: return (const void *)reduceSmem;
    case CML_RED_SHFL: return (const void *)reduceShfl;
    default: return NULL;
    }
}

extern "C" cml_status cml_book_reduce_launch_fn(void *vctx)
{
    const cml_book_reduce_launch *a = (const cml_book_reduce_launch *)vctx;
    /* Whole blocks only: the book's kernels return early past n before
     * their barriers and shuffles, which a partial block would reach. */
    if (a->grid == 0 || a->n != a->grid * DIM)
        return CML_EINVAL;
    dim3 block (DIM, 1);
    switch (a->kernel) {
    case CML_RED_SMEM: reduceSmem<<<a->grid, block>>>(a->idata, a->odata, a->n); break;
    case CML_RED_SHFL: reduceShfl<<<a->grid, block>>>(a->idata, a->odata, a->n); break;
    default: return CML_EINVAL;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}
