/*
 * extern "C" launchers of reduce_shfl.cu (the book's
 * chapter05/reduceIntegerShfl.cu) and simple_shfl.cu (simpleShfl.cu).
 *
 * The book calls __shfl, __shfl_up, __shfl_down and __shfl_xor, which CUDA
 * 9 replaced by the _sync forms and CUDA 13 no longer has for any GPU it
 * builds for. The kernels here call the _sync form with a member mask of
 * the lanes the launch has (every lane of a warp of 32; the first
 * blockDim.x lanes of a smaller block): the same SHFL instruction, the same
 * width and lane arguments, and no memory access either way.
 */
#ifndef CML_BOOK_SHFL_KERNELS_H
#define CML_BOOK_SHFL_KERNELS_H

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reduceIntegerShfl.cu ------------------------------------------------ */

#define CML_BOOK_REDUCE_DIM 128 /* the book's DIM: threads per block */

typedef enum cml_book_reduce_kernel {
    CML_RED_SMEM = 0, /* reduceSmem */
    CML_RED_SHFL,     /* reduceShfl */
    CML_RED_KERNEL_COUNT
} cml_book_reduce_kernel;

/* kernel<<<grid, DIM>>>(g_idata, g_odata, n) */
typedef struct cml_book_reduce_launch {
    int *idata, *odata;
    unsigned n, grid;
    int kernel;
} cml_book_reduce_launch;

CML_LAUNCHER cml_status cml_book_reduce_launch_fn(void *args);
CML_LAUNCHER const void *cml_book_reduce_kernel_fn(int kernel);

/* ---- simpleShfl.cu ------------------------------------------------------- */

#define CML_BOOK_SHFL_BDIMX 16
#define CML_BOOK_SHFL_SEGM 4

typedef enum cml_book_shfl_kernel {
    CML_SH_BROADCAST = 0, /* test_shfl_broadcast(out, in, srcLane) */
    CML_SH_WRAP,          /* test_shfl_wrap(out, in, offset) */
    CML_SH_UP,            /* test_shfl_up(out, in, delta) */
    CML_SH_DOWN,          /* test_shfl_down(out, in, delta) */
    CML_SH_XOR,           /* test_shfl_xor(out, in, mask) */
    CML_SH_XOR_INT4,      /* test_shfl_xor_int4(out, in, mask) */
    CML_SH_XOR_ARRAY,     /* test_shfl_xor_array(out, in, mask) */
    CML_SH_XOR_ELEMENT,   /* test_shfl_xor_element(out, in, mask, srcIdx, dstIdx) */
    CML_SH_SWAP_BASE,     /* test_shfl_xor_array_swap_base(out, in, mask, srcIdx, dstIdx) */
    CML_SH_ARRAY_SWAP,    /* test_shfl_xor_array_swap(out, in, mask, srcIdx, dstIdx) */
    CML_SH_SWAP,          /* test_shfl_swap(out, in, mask, firstIdx, secondIdx) */
    CML_SH_ARRAY,         /* test_shfl_array(out, in, offset) */
    CML_SH_KERNEL_COUNT
} cml_book_shfl_kernel;

/* kernel<<<1, block>>>(out, in, arg[, a2, a3]) */
typedef struct cml_book_shfl_launch {
    int *out, *in;
    int arg, a2, a3;
    unsigned block;
    int kernel;
} cml_book_shfl_launch;

CML_LAUNCHER cml_status cml_book_shfl_launch_fn(void *args);
CML_LAUNCHER const void *cml_book_shfl_kernel_fn(int kernel);

#ifdef __cplusplus
}
#endif
#endif
