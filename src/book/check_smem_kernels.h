/*
 * extern "C" launchers of check_smem_square.cu and check_smem_rectangle.cu:
 * the kernels of the book's chapter05/checkSmemSquare.cu and
 * checkSmemRectangle.cu (their kernels share names, not bodies, so each
 * file keeps its own).
 */
#ifndef CML_BOOK_CHECK_SMEM_KERNELS_H
#define CML_BOOK_CHECK_SMEM_KERNELS_H

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_book_smem_kernel {
    /* checkSmemSquare.cu: BDIMX = BDIMY = 32, IPAD 1 */
    CML_SQ_ROW_ROW = 0,     /* setRowReadRow */
    CML_SQ_COL_COL,         /* setColReadCol */
    CML_SQ_ROW_COL,         /* setRowReadCol */
    CML_SQ_ROW_COL_DYN,     /* setRowReadColDyn */
    CML_SQ_ROW_COL_PAD,     /* setRowReadColPad */
    CML_SQ_ROW_COL_DYN_PAD, /* setRowReadColDynPad */
    /* checkSmemRectangle.cu: BDIMX 32, BDIMY 16, IPAD 2 */
    CML_RE_ROW_ROW,         /* setRowReadRow */
    CML_RE_COL_COL,         /* setColReadCol */
    CML_RE_COL_COL2,        /* setColReadCol2 */
    CML_RE_ROW_COL,         /* setRowReadCol */
    CML_RE_ROW_COL_DYN,     /* setRowReadColDyn */
    CML_RE_ROW_COL_PAD,     /* setRowReadColPad */
    CML_RE_ROW_COL_DYN_PAD, /* setRowReadColDynPad */
    CML_SMEM_KERNEL_COUNT
} cml_book_smem_kernel;

/* kernel<<<1, (BDIMX, BDIMY), smem>>>(out): one block, as main() runs it;
 * smem is the dynamic shared memory the Dyn kernels get (0 for the others). */
typedef struct cml_book_smem_launch {
    int *out;
    size_t smem;
    int kernel; /* cml_book_smem_kernel */
} cml_book_smem_launch;

CML_LAUNCHER cml_status cml_book_smem_square_launch(void *args);
CML_LAUNCHER cml_status cml_book_smem_rectangle_launch(void *args);
CML_LAUNCHER const void *cml_book_smem_square_kernel(int kernel);
CML_LAUNCHER const void *cml_book_smem_rectangle_kernel(int kernel);

#ifdef __cplusplus
}
#endif
#endif
