/*
 * Experiment 17: the bodies of the transpose kernels, written once for the
 * kernels (transpose.cu) and the model's mirror (transpose.c):
 * gpu/kernel_body.h. in[] is ny rows of nx floats; a transpose writes out[]
 * as nx rows of ny floats. (x, y) is the thread's global 2-D index; the
 * launch shape is cml_tr_shape's. All accesses plain.
 */
#ifndef CML_TRANSPOSE_BODY_H
#define CML_TRANSPOSE_BODY_H

#include <stdint.h>

#include "experiments/transpose/transpose_kernels.h"
#include "gpu/kernel_body.h"

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

#endif
