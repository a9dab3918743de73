/*
 * The kernels of the book's chapter04/sumArrayZerocpy.cu (sumArrays on
 * device memory, sumArraysZeroCopy on mapped host memory: the same body)
 * and of sumMatrixGPUManaged.cu / sumMatrixGPUManual.cu (sumMatrixGPU, on
 * managed or on device memory), as the book writes them. The C mirror in
 * sum_memory.c emits exactly their accesses.
 */
#include <cuda_runtime.h>

#include "book/sum_memory_kernels.h"
#include "gpu/gpu_internal.h"

static __global__ void sumArrays(float *A, float *B, float *C, const int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < N) C[i] = A[i] + B[i];
}

static __global__ void sumArraysZeroCopy(float *A, float *B, float *C, const int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < N) C[i] = A[i] + B[i];
}

// grid 2D block 2D
static __global__ void sumMatrixGPU(float *MatA, float *MatB, float *MatC, int nx,
                                    int ny)
{
    unsigned int ix = threadIdx.x + blockIdx.x * blockDim.x;
    unsigned int iy = threadIdx.y + blockIdx.y * blockDim.y;
    unsigned int idx = iy * nx + ix;

    if (ix < nx && iy < ny)
    {
        MatC[idx] = MatA[idx] + MatB[idx];
    }
}

extern "C" const void *cml_book_sum_kernel_fn(int kernel)
{
    switch (kernel) {
    case CML_SUM_ARRAYS: return (const void *)sumArrays;
    case CML_SUM_ZERO_COPY: return (const void *)sumArraysZeroCopy;
    case CML_SUM_MATRIX: return (const void *)sumMatrixGPU;
    default: return NULL;
    }
}

extern "C" cml_status cml_book_sum_launch_fn(void *vctx)
{
    const cml_book_sum_launch *a = (const cml_book_sum_launch *)vctx;
    if (!a->gx || !a->gy || !a->bx || !a->by || a->bx * a->by > 1024 || a->gy > 65535)
        return CML_EINVAL;
    switch (a->kernel) {
    case CML_SUM_ARRAYS: sumArrays<<<a->gx, a->bx>>>(a->A, a->B, a->C, a->nx); break;
    case CML_SUM_ZERO_COPY: sumArraysZeroCopy<<<a->gx, a->bx>>>(a->A, a->B, a->C, a->nx); break;
    case CML_SUM_MATRIX: {
        dim3 block(a->bx, a->by);
        dim3 grid(a->gx, a->gy);
        sumMatrixGPU<<<grid, block>>>(a->A, a->B, a->C, a->nx, a->ny);
        break;
    }
    default: return CML_EINVAL;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}
