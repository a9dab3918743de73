/*
 * extern "C" launchers of read_segment.cu (the kernels of the book's
 * chapter04/readSegment.cu and readSegmentUnroll.cu) and write_segment.cu
 * (chapter04/writeSegment.cu), callable from C.
 */
#ifndef CML_BOOK_SEGMENT_KERNELS_H
#define CML_BOOK_SEGMENT_KERNELS_H

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels, by the book's names. */
typedef enum cml_book_seg_kernel {
    CML_SEG_READ_WARMUP = 0, /* readSegment.cu warmup: C[i] = A[k] + B[k] */
    CML_SEG_READ_OFFSET,     /* readOffset */
    CML_SEG_READ_UNROLL2,    /* readOffsetUnroll2 (readSegmentUnroll.cu) */
    CML_SEG_READ_UNROLL4,    /* readOffsetUnroll4 */
    CML_SEG_WRITE_WARMUP,    /* writeSegment.cu warmup: C[k] = A[i] + B[i] */
    CML_SEG_WRITE_OFFSET,    /* writeOffset */
    CML_SEG_WRITE_UNROLL2,   /* writeOffsetUnroll2 */
    CML_SEG_WRITE_UNROLL4,   /* writeOffsetUnroll4 */
    CML_SEG_KERNEL_COUNT
} cml_book_seg_kernel;

/* One launch as the book's main() makes it: kernel<<<grid, block>>>(A, B,
 * C, n, offset), with the n the book passes (nElem, nElem / 2, ...). */
typedef struct cml_book_seg_launch {
    float *A, *B, *C;
    int n, offset;
    unsigned grid, block;
    int kernel; /* cml_book_seg_kernel */
} cml_book_seg_launch;

/* Launch (asynchronously); the launch status is checked. Each file
 * launches its own kernels and refuses the others' (CML_EINVAL). */
CML_LAUNCHER cml_status cml_book_read_segment_launch(void *args);
CML_LAUNCHER cml_status cml_book_write_segment_launch(void *args);
/* The __global__ function of a kernel, for the occupancy calculator. */
CML_LAUNCHER const void *cml_book_read_segment_kernel(int kernel);
CML_LAUNCHER const void *cml_book_write_segment_kernel(int kernel);

#ifdef __cplusplus
}
#endif
#endif
