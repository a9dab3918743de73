/*
 * extern "C" launchers of sum_memory.cu: the kernels of the book's
 * chapter04/sumArrayZerocpy.cu, sumMatrixGPUManaged.cu and
 * sumMatrixGPUManual.cu (the last two share sumMatrixGPU, body for body).
 */
#ifndef CML_BOOK_SUM_MEMORY_KERNELS_H
#define CML_BOOK_SUM_MEMORY_KERNELS_H

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_book_sum_kernel {
    CML_SUM_ARRAYS = 0,     /* sumArrays(A, B, C, N) */
    CML_SUM_ZERO_COPY,      /* sumArraysZeroCopy(A, B, C, N) */
    CML_SUM_MATRIX,         /* sumMatrixGPU(MatA, MatB, MatC, nx, ny) */
    CML_SUM_KERNEL_COUNT
} cml_book_sum_kernel;

/* sumArrays*<<<gx, bx>>>(A, B, C, nx) or sumMatrixGPU<<<(gx, gy), (bx,
 * by)>>>(A, B, C, nx, ny); A and B may be mapped host or managed memory. */
typedef struct cml_book_sum_launch {
    float *A, *B, *C;
    int nx, ny;
    unsigned gx, gy, bx, by;
    int kernel;
} cml_book_sum_launch;

CML_LAUNCHER cml_status cml_book_sum_launch_fn(void *args);
CML_LAUNCHER const void *cml_book_sum_kernel_fn(int kernel);

#ifdef __cplusplus
}
#endif
#endif
