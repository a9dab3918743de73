/*
 * The kernels of the book's chapter04/readSegment.cu and
 * readSegmentUnroll.cu, as the book writes them (the two files share
 * warmup and readOffset, body for body): names, parameter types, the
 * unsigned index arithmetic and the guards are the book's, so that the
 * compiled instructions, and with them the hardware counters, are those of
 * the book's binaries. The C mirror in read_segment.c emits exactly their
 * accesses; keep the two in step.
 */
#include <cuda_runtime.h>

#include "book/segment_kernels.h"
#include "gpu/gpu_internal.h"

static __global__ void warmup(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = A[k] + B[k];
}

static __global__ void readOffset(float *A, float *B, float *C, const int n,
                                  int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = A[k] + B[k];
}

static __global__ void readOffsetUnroll2(float *A, float *B, float *C, const int n,
                                         int offset)
{
    unsigned int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    unsigned int k = i + offset;

    if (k + blockDim.x < n)
    {
        C[i]            = A[k] + B[k];
        C[i + blockDim.x] = A[k + blockDim.x] + B[k + blockDim.x];
    }
}

static __global__ void readOffsetUnroll4(float *A, float *B, float *C, const int n,
                                         int offset)
{
    unsigned int i = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    unsigned int k = i + offset;

    if (k + 3 * blockDim.x < n)
    {
        C[i]                  = A[k]                  + B[k];
        C[i + blockDim.x]     = A[k + blockDim.x]     + B[k + blockDim.x];
        C[i + 2 * blockDim.x] = A[k + 2 * blockDim.x] + B[k + 2 * blockDim.x];
        C[i + 3 * blockDim.x] = A[k + 3 * blockDim.x] + B[k + 3 * blockDim.x];
    }
}

typedef void (*seg_kernel)(float *, float *, float *, const int, int);

static seg_kernel pick(int kernel)
{
    switch (kernel) {
    case CML_SEG_READ_WARMUP: return warmup;
    case CML_SEG_READ_OFFSET: return readOffset;
    case CML_SEG_READ_UNROLL2: return readOffsetUnroll2;
    case CML_SEG_READ_UNROLL4: return readOffsetUnroll4;
    default: return NULL;
    }
}

extern "C" const void *cml_book_read_segment_kernel(int kernel)
{
    return (const void *)pick(kernel);
}

extern "C" cml_status cml_book_read_segment_launch(void *vctx)
{
    const cml_book_seg_launch *a = (const cml_book_seg_launch *)vctx;
    seg_kernel k = pick(a->kernel);
    if (!k || a->grid == 0 || a->block == 0 || a->block > 1024)
        return CML_EINVAL;
    k<<<a->grid, a->block>>>(a->A, a->B, a->C, a->n, a->offset);
    CML_CU_LAUNCH();
    return CML_OK;
}
