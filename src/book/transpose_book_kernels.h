/*
 * extern "C" launchers of transpose_book.cu: the kernels of the book's
 * chapter04/transpose.cu.
 */
#ifndef CML_BOOK_TRANSPOSE_KERNELS_H
#define CML_BOOK_TRANSPOSE_KERNELS_H

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The book's kernels: its iKernel numbers 0..7, and its warmup. */
typedef enum cml_book_tr_kernel {
    CML_BTR_COPY_ROW = 0,   /* case 0: copyRow */
    CML_BTR_COPY_COL,       /* case 1: copyCol */
    CML_BTR_NAIVE_ROW,      /* case 2: transposeNaiveRow */
    CML_BTR_NAIVE_COL,      /* case 3: transposeNaiveCol */
    CML_BTR_UNROLL4_ROW,    /* case 4: transposeUnroll4Row */
    CML_BTR_UNROLL4_COL,    /* case 5: transposeUnroll4Col */
    CML_BTR_DIAGONAL_ROW,   /* case 6: transposeDiagonalRow */
    CML_BTR_DIAGONAL_COL,   /* case 7: transposeDiagonalCol */
    CML_BTR_WARMUP,         /* warmup (a copy by rows) */
    CML_BTR_KERNEL_COUNT
} cml_book_tr_kernel;

/* kernel<<<(gx, gy), (bx, by)>>>(out, in, nx, ny), as main() calls it:
 * out = d_C, in = d_A. */
typedef struct cml_book_tr_launch {
    float *out, *in;
    int nx, ny;
    unsigned gx, gy, bx, by;
    int kernel; /* cml_book_tr_kernel */
} cml_book_tr_launch;

CML_LAUNCHER cml_status cml_book_tr_launch_fn(void *args);
CML_LAUNCHER const void *cml_book_tr_kernel_fn(int kernel);

#ifdef __cplusplus
}
#endif
#endif
