/* extern "C" launchers of transpose.cu, callable from C, and the launch
 * shapes the kernels, the mirror and the tests share. */
#ifndef CML_TRANSPOSE_KERNELS_H
#define CML_TRANSPOSE_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels (the `kernel` parameter's choices, in order). in[] is ny rows
 * of nx floats; a transpose writes out[] as nx rows of ny floats, the copy
 * writes out[] in in[]'s shape. */
typedef enum cml_tr_kernel {
    CML_TR_COPY = 0,   /* out[y*nx + x] = in[y*nx + x]: the reference            */
    CML_TR_NAIVE_ROW,  /* reads rows, writes columns: out[x*ny + y] = in[y*nx + x] */
    CML_TR_NAIVE_COL,  /* reads columns, writes rows: out[y*ny + x] = in[x*nx + y] */
    CML_TR_UNROLL_ROW, /* naive-row, 4 elements per thread blockDim.x apart         */
    CML_TR_UNROLL_COL, /* naive-col, 4 elements per thread blockDim.x apart         */
    CML_TR_SMEM,       /* through a 32x32 shared tile (transposeSmem)               */
    CML_TR_SMEM_PAD,   /* the same with rows of 33 floats (transposeSmemPad)        */
    CML_TR_KERNEL_COUNT
} cml_tr_kernel;

#define CML_TR_TILE 32u
#define CML_TR_UNROLL 4u

/* 1 for the kernels that read columns (their threads walk out[] by rows). */
static inline int cml_tr_reads_columns(int k)
{
    return k == CML_TR_NAIVE_COL || k == CML_TR_UNROLL_COL;
}

/* The launch shape of kernel k over an nx x ny matrix with a bx x by block
 * (the tile kernels always use 32x32): grid (gx, gy) and block (tbx, tby).
 * Kernels that read columns run their grid over out[] (ny wide, nx tall);
 * the unrolled ones cover 4 * tbx columns per block. */
static inline void cml_tr_shape(int k, uint64_t nx, uint64_t ny, unsigned bx, unsigned by,
                                cml_dim3 *grid, cml_dim3 *block)
{
    if (k == CML_TR_SMEM || k == CML_TR_SMEM_PAD)
        bx = by = CML_TR_TILE;
    const uint64_t w = cml_tr_reads_columns(k) ? ny : nx, h = cml_tr_reads_columns(k) ? nx : ny;
    const uint64_t fx = (k == CML_TR_UNROLL_ROW || k == CML_TR_UNROLL_COL) ? (uint64_t)bx * 4u : bx;
    grid->x = (uint32_t)((w + fx - 1) / fx);
    grid->y = (uint32_t)((h + by - 1) / by);
    grid->z = 1;
    block->x = bx;
    block->y = by;
    block->z = 1;
}

typedef struct cml_transpose_launch_args {
    const float *in;   /* nx * ny floats, cml_random_f32(seed, i) */
    float *out;        /* cap floats, cap >= nx * ny */
    uint64_t nx, ny, cap;
    unsigned bx, by;   /* block (ignored by the tile kernels: 32x32) */
    int kernel;        /* cml_tr_kernel */
    size_t smem;       /* dynamic shared memory to launch with, unused by the kernel
                          (0, or cml_gpu_one_block_per_sm's figure: one block per SM) */
} cml_transpose_launch_args;

/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for a bad kernel, an empty matrix, a block of more than 1024
 * threads or a grid beyond the device's limits. */
CML_LAUNCHER cml_status cml_transpose_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: none). */
CML_LAUNCHER const void *cml_transpose_kernel(int kernel);
/* Count wrong floats of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong index into d_counters[1] (all ones): out[j] for
 * j < nx*ny must be in's element it stands for (copy: in[j]; transposes:
 * row r = j / ny, column c = j % ny holds in[c*nx + r]) bit for bit, every
 * float past nx*ny the poison 0xFFFFFFFF. */
CML_LAUNCHER cml_status cml_transpose_check(const cml_transpose_launch_args *a, uint64_t seed,
                                            unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
