/*
 * extern "C" launchers of stencil.cu: the kernels of the book's
 * chapter05/constantStencil.cu and constantReadOnly.cu.
 */
#ifndef CML_BOOK_STENCIL_KERNELS_H
#define CML_BOOK_STENCIL_KERNELS_H

#include <stddef.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CML_BOOK_RADIUS 4
#define CML_BOOK_BDIM 32
#define CML_BOOK_ISIZE (1u << 24)

typedef enum cml_book_stencil_kernel {
    CML_ST_LOOP = 0,   /* constantStencil.cu stencil_1d(in, out, N): grid-stride loop */
    CML_ST_CONST,      /* constantReadOnly.cu stencil_1d(in, out) */
    CML_ST_READ_ONLY,  /* constantReadOnly.cu stencil_1d_read_only(in, out, dcoef) */
    CML_ST_KERNEL_COUNT
} cml_book_stencil_kernel;

/* kernel<<<grid, BDIM>>>(d_in + RADIUS, d_out + RADIUS[, isize | d_coef]):
 * in and out point to the allocations (isize + 2 * RADIUS floats); the
 * launcher adds the book's RADIUS offset. */
typedef struct cml_book_stencil_launch {
    float *in, *out, *coef;
    int isize;
    unsigned grid;
    int kernel; /* cml_book_stencil_kernel */
} cml_book_stencil_launch;

/* The book's setup_coef_constant(): a0..a4 into the __constant__ coef, and
 * (d_coef not NULL) into d_coef as constantReadOnly's cudaMemcpy does. */
CML_LAUNCHER cml_status cml_book_stencil_setup(float *d_coef);
CML_LAUNCHER cml_status cml_book_stencil_launch_fn(void *args);
CML_LAUNCHER const void *cml_book_stencil_kernel_fn(int kernel);

#ifdef __cplusplus
}
#endif
#endif
