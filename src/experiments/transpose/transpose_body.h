/*
 * Matrix transpose (experiment 17: global coalescing meets shared memory):
 * the kernels and a checker that recomputes every output element from the
 * counter-based random input.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that transpose.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (transpose.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * in[] is ny rows of nx floats; a transpose writes out[] as nx rows of ny
 * floats. (x, y) is the thread's global 2-D index; the launch shape is
 * cml_tr_shape's, which the kernels, the mirror and the tests share. All
 * accesses plain. The checker is also async-copy's, which verifies its
 * transposed tiles with it (cml_transpose_check).
 */
#ifndef CML_TRANSPOSE_BODY_H
#define CML_TRANSPOSE_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

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

typedef struct cml_transpose_args {
    uint64_t nx, ny; /* in[] is ny rows of nx floats */
    cml_tr_kernel kernel;
} cml_transpose_args;

/* One thread of kernel a->kernel, launched as cml_tr_shape says. */
void cml_transpose_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/*
 * The model of a whole launch into rec (both rule sets, rec->grid/block).
 * When nx and ny are multiples of 32 and of the block's footprint, every
 * block issues the same traffic (see transpose.c): five blocks (the four
 * corners and the middle) are traced, must agree, and one stands for all,
 * which is exact. Otherwise the blocks repeat with a period of one or a few
 * blocks away from the last row and column (cml_exp_trace_axes: exact too;
 * small grids are traced whole). *traced_blocks says how many blocks were
 * traced.
 */
cml_status cml_transpose_model(cml_record *rec, const cml_transpose_args *a, unsigned bx,
                               unsigned by, uint64_t *traced_blocks);

/* The reference: a copy of the same shape and the same launch.
 * Site 0: global load, site 1: global store. */
CML_BODY void cml_tr_copy_body(CML_CTX, const float *in, float *out, uint64_t nx, uint64_t ny)
{
    uint64_t x = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    uint64_t y = (uint64_t)CML_BID_Y * CML_BDIM_Y + CML_TID_Y;
    if (x < nx && y < ny) {
        float v = CML_LD(0, CML_LD_PLAIN, float, in, y * nx + x);
        CML_ST(1, CML_ST_PLAIN, out, y * nx + x, v);
    }
}

/* Reads a row of in[] per warp (site 0), writes a column of out[] (site 1). */
CML_BODY void cml_tr_naive_row_body(CML_CTX, const float *in, float *out, uint64_t nx,
                                    uint64_t ny)
{
    uint64_t x = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    uint64_t y = (uint64_t)CML_BID_Y * CML_BDIM_Y + CML_TID_Y;
    if (x < nx && y < ny) {
        float v = CML_LD(0, CML_LD_PLAIN, float, in, y * nx + x);
        CML_ST(1, CML_ST_PLAIN, out, x * ny + y, v);
    }
}

/* Threads over out[] (ny wide, nx tall): reads a column of in[] (site 0),
 * writes a row (site 1). */
CML_BODY void cml_tr_naive_col_body(CML_CTX, const float *in, float *out, uint64_t nx,
                                    uint64_t ny)
{
    uint64_t x = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    uint64_t y = (uint64_t)CML_BID_Y * CML_BDIM_Y + CML_TID_Y;
    if (x < ny && y < nx) {
        float v = CML_LD(0, CML_LD_PLAIN, float, in, x * nx + y);
        CML_ST(1, CML_ST_PLAIN, out, y * ny + x, v);
    }
}

/* naive-row with 4 independent elements per thread, blockDim.x apart;
 * element k: site 2k the load, 2k+1 the store. */
CML_BODY void cml_tr_unroll_row_body(CML_CTX, const float *in, float *out, uint64_t nx,
                                     uint64_t ny)
{
    uint64_t x0 = (uint64_t)CML_BID_X * CML_BDIM_X * CML_TR_UNROLL + CML_TID_X;
    uint64_t y = (uint64_t)CML_BID_Y * CML_BDIM_Y + CML_TID_Y;
    CML_UNROLL for (unsigned k = 0; k < CML_TR_UNROLL; k++)
    {
        uint64_t x = x0 + (uint64_t)k * CML_BDIM_X;
        if (x < nx && y < ny) {
            float v = CML_LD(2 * k, CML_LD_PLAIN, float, in, y * nx + x);
            CML_ST(2 * k + 1, CML_ST_PLAIN, out, x * ny + y, v);
        }
    }
}

/* naive-col with 4 independent elements per thread, blockDim.x apart. */
CML_BODY void cml_tr_unroll_col_body(CML_CTX, const float *in, float *out, uint64_t nx,
                                     uint64_t ny)
{
    uint64_t x0 = (uint64_t)CML_BID_X * CML_BDIM_X * CML_TR_UNROLL + CML_TID_X;
    uint64_t y = (uint64_t)CML_BID_Y * CML_BDIM_Y + CML_TID_Y;
    CML_UNROLL for (unsigned k = 0; k < CML_TR_UNROLL; k++)
    {
        uint64_t x = x0 + (uint64_t)k * CML_BDIM_X;
        if (x < ny && y < nx) {
            float v = CML_LD(2 * k, CML_LD_PLAIN, float, in, x * nx + y);
            CML_ST(2 * k + 1, CML_ST_PLAIN, out, y * ny + x, v);
        }
    }
}

/*
 * Through a 32x32 tile of shared memory, blocks of 32x32 threads: the tile
 * is filled by rows from a coalesced read of in[] (site 0; site 1 the
 * shared store), and emptied by columns (site 2, the shared load) into a
 * coalesced write of out[] (site 3). Rows of P floats: P = 32 puts a column
 * in one bank (32-way conflict), P = 33 spreads it over all 32. The guards
 * are exact: tile cell (r, c) is read exactly when it was written.
 */
#define CML_TR_SMEM_BODY(NAME, P)                                                            \
    CML_BODY void NAME(CML_CTX, const float *in, float *out, uint64_t nx, uint64_t ny)       \
    {                                                                                        \
        CML_SHARED_ARRAY(float, tile, CML_TR_TILE * (P), 0);                                 \
        unsigned tx = CML_TID_X, ty = CML_TID_Y;                                             \
        uint64_t x = (uint64_t)CML_BID_X * CML_TR_TILE + tx;                                 \
        uint64_t y = (uint64_t)CML_BID_Y * CML_TR_TILE + ty;                                 \
        if (x < nx && y < ny) {                                                              \
            float v = CML_LD(0, CML_LD_PLAIN, float, in, y * nx + x);                        \
            CML_STS(1, tile, ty * (P) + tx, v);                                              \
        }                                                                                    \
        CML_SYNC();                                                                          \
        uint64_t ox = (uint64_t)CML_BID_Y * CML_TR_TILE + tx;                                \
        uint64_t oy = (uint64_t)CML_BID_X * CML_TR_TILE + ty;                                \
        if (ox < ny && oy < nx) {                                                            \
            float v = CML_LDS(2, float, tile, tx * (P) + ty);                                \
            CML_ST(3, CML_ST_PLAIN, out, oy * ny + ox, v);                                   \
        }                                                                                    \
    }

CML_TR_SMEM_BODY(cml_tr_smem_body, CML_TR_TILE)
CML_TR_SMEM_BODY(cml_tr_smem_pad_body, CML_TR_TILE + 1)

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "core/random.h"
#include "gpu/gpu_internal.h"

typedef unsigned long long u64;

#define TR_KERNEL(NAME, BODY)                                                                \
    __global__ void NAME(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny) \
    {                                                                                        \
        BODY(CML_KERNEL_CTX, in, out, nx, ny);                                               \
    }

TR_KERNEL(tr_copy, cml_tr_copy_body)
TR_KERNEL(tr_naive_row, cml_tr_naive_row_body)
TR_KERNEL(tr_naive_col, cml_tr_naive_col_body)
TR_KERNEL(tr_unroll_row, cml_tr_unroll_row_body)
TR_KERNEL(tr_unroll_col, cml_tr_unroll_col_body)
TR_KERNEL(tr_smem, cml_tr_smem_body)
TR_KERNEL(tr_smem_pad, cml_tr_smem_pad_body)

typedef void (*tr_kernel)(const float *, float *, u64, u64);

static tr_kernel pick(int k)
{
    static const tr_kernel table[CML_TR_KERNEL_COUNT] = {
        tr_copy, tr_naive_row, tr_naive_col, tr_unroll_row, tr_unroll_col, tr_smem, tr_smem_pad,
    };
    return k >= 0 && k < CML_TR_KERNEL_COUNT ? table[k] : NULL;
}

extern "C" const void *cml_transpose_kernel(int kernel)
{
    return (const void *)pick(kernel);
}

extern "C" cml_status cml_transpose_launch(void *vctx)
{
    const cml_transpose_launch_args *a = (const cml_transpose_launch_args *)vctx;
    tr_kernel k = pick(a->kernel);
    if (!k || a->nx == 0 || a->ny == 0 || a->bx == 0 || a->by == 0 ||
        (u64)a->bx * a->by > 1024 || a->nx > 0xffffffffull || a->ny > 0xffffffffull)
        return CML_EINVAL;
    cml_dim3 g, b;
    cml_tr_shape(a->kernel, a->nx, a->ny, a->bx, a->by, &g, &b);
    if (g.y > 65535 || g.x == 0 || g.y == 0)
        return CML_EINVAL;
    k<<<dim3(g.x, g.y), dim3(b.x, b.y), a->smem>>>(a->in, a->out, a->nx, a->ny);
    CML_CU_LAUNCH();
    return CML_OK;
}

__global__ void transpose_check(const float *__restrict__ out, u64 nx, u64 ny, u64 cap, int copy,
                                uint64_t seed, unsigned long long *bad,
                                unsigned long long *first_bad)
{
    const u64 total = nx * ny;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (u64)gridDim.x * blockDim.x) {
        uint32_t want = 0xFFFFFFFFu;
        if (j < total) {
            u64 src = copy ? j : (j % ny) * nx + j / ny;
            want = __float_as_uint(cml_random_f32(seed, src));
        }
        if (__float_as_uint(out[j]) != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_transpose_check(const cml_transpose_launch_args *a, uint64_t seed,
                                          unsigned long long *d_counters)
{
    transpose_check<<<1024, 256>>>(a->out, a->nx, a->ny, a->cap, a->kernel == CML_TR_COPY, seed,
                                   d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
