/*
 * The kernels of the book's chapter04/writeSegment.cu, as the book writes
 * them: names, parameter types, index arithmetic and guards. Note that the
 * book's writeOffsetUnroll2 and writeOffsetUnroll4 index i without the
 * unrolling factor (i = blockIdx.x * blockDim.x + threadIdx.x), so
 * neighbouring blocks write some elements twice (the same value), and its
 * main() passes n = nElem / 2 to both: the kernels, and so the counters,
 * are the book's. The C mirror in write_segment.c emits exactly their
 * accesses; keep the two in step.
 */
#include <cuda_runtime.h>

#include "book/segment_kernels.h"
#include "gpu/gpu_internal.h"

static __global__ void writeOffset(float *A, float *B, float *C, const int n,
                                   int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[k] = A[i] + B[i];
}

static __global__ void warmup(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[k] = A[i] + B[i];
}

static __global__ void writeOffsetUnroll2(float *A, float *B, float *C, const int n,
                                          int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k + blockDim.x < n)
    {
        C[k]            = A[i]            + B[i];
        C[k + blockDim.x] = A[i + blockDim.x] + B[i + blockDim.x];
    }
}

static __global__ void writeOffsetUnroll4(float *A, float *B, float *C, const int n,
                                          int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k + 3 * blockDim.x < n)
    {
        C[k]              = A[i]              + B[i];
        C[k + blockDim.x]   = A[i +  blockDim.x] + B[i +  blockDim.x];
        C[k + 2 * blockDim.x] = A[i + 2 * blockDim.x] + B[i + 2 * blockDim.x];
        C[k + 3 * blockDim.x] = A[i + 3 * blockDim.x] + B[i + 3 * blockDim.x];
    }
}

typedef void (*seg_kernel)(float *, float *, float *, const int, int);

static seg_kernel pick(int kernel)
{
    switch (kernel) {
    case CML_SEG_WRITE_WARMUP: return warmup;
    case CML_SEG_WRITE_OFFSET: return writeOffset;
    case CML_SEG_WRITE_UNROLL2: return writeOffsetUnroll2;
    case CML_SEG_WRITE_UNROLL4: return writeOffsetUnroll4;
    default: return NULL;
    }
}

extern "C" const void *cml_book_write_segment_kernel(int kernel)
{
    return (const void *)pick(kernel);
}

extern "C" cml_status cml_book_write_segment_launch(void *vctx)
{
    const cml_book_seg_launch *a = (const cml_book_seg_launch *)vctx;
    seg_kernel k = pick(a->kernel);
    if (!k || a->grid == 0 || a->block == 0 || a->block > 1024)
        return CML_EINVAL;
    k<<<a->grid, a->block>>>(a->A, a->B, a->C, a->n, a->offset);
    CML_CU_LAUNCH();
    return CML_OK;
}
