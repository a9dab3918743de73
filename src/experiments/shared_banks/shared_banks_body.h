/*
 * Experiment 12: the bodies of the shared-memory bank kernels, written once
 * for the kernels (shared_banks.cu) and the model's mirror (shared_banks.c):
 * gpu/kernel_body.h. Each repeats its shared accesses `iters` times so that
 * the time is spent in shared memory, not in launching or in global memory;
 * every round feeds the next (v), so the compiler can drop none of them.
 * Sites: 0 the shared store, 1 the shared load (one of each per round), 2
 * the global store. The mirror runs one round (iters = 1): every round
 * issues the same warp instructions, and the experiment multiplies.
 */
#ifndef CML_SHARED_BANKS_BODY_H
#define CML_SHARED_BANKS_BODY_H

#include "gpu/kernel_body.h"

/*
 * The loop of the tile kernels on a W x H tile with rows of P words
 * (blockDim = (W, H)). "row" = tile[threadIdx.y][threadIdx.x]; "col" =
 * tile[icol][irow], the transposed coordinates of the thread's linear
 * index. The two offsets are computed once, so the loop body is one shared
 * store, a barrier, one shared load and a barrier; the barriers keep a
 * round's load from racing the next round's store (another thread's cell).
 * W, H and P are compile-time constants in the static kernels once this is
 * inlined.
 */
CML_BODY void cml_banks_tile_body(CML_CTX, unsigned *tile, unsigned W, unsigned H, unsigned P,
                                  unsigned *out, int write_col, int read_col, int iters)
{
    unsigned idx = CML_TID_Y * CML_BDIM_X + CML_TID_X;
    unsigned irow = idx / H, icol = idx % H;        /* blockDim.y == H */
    unsigned row = CML_TID_Y * P + CML_TID_X;       /* tile[threadIdx.y][threadIdx.x] */
    unsigned col = icol * P + irow;                 /* tile[icol][irow] */
    unsigned wr = write_col ? col : row, rd = read_col ? col : row;
    unsigned long long g = (unsigned long long)CML_BID_X * W * H + idx;
    unsigned v = (unsigned)g;
    for (int it = 0; it < iters; it++) {
        CML_STS(0, tile, wr, v);
        CML_SYNC();
        v = CML_LDS(1, unsigned, tile, rd) + 1u;
        CML_SYNC();
    }
    CML_ST(2, CML_ST_PLAIN, out, g, v);
}

/*
 * The stride kernels: thread t's element t * stride of `elem`-byte elements
 * (unsigned, uint2, uint4) in dynamic shared memory at shared address
 * `smem`, each thread on its own element, so no barrier is needed: one
 * volatile store and one volatile load per round, chained through v.
 * Element g's words start at word g * (elem/4): word w starts as w.
 */
CML_BODY void cml_banks_stride4_body(CML_CTX, unsigned smem, unsigned *out, int stride,
                                     int iters)
{
    unsigned t = CML_TID_X, a = smem + t * (unsigned)stride * 4u;
    unsigned long long g = (unsigned long long)CML_BID_X * CML_BDIM_X + t;
    unsigned v = (unsigned)g;
    for (int it = 0; it < iters; it++) {
        CML_STS_VOLATILE(0, a, v);
        v = CML_LDS_VOLATILE(1, unsigned, a) + 1u;
    }
    CML_ST(2, CML_ST_PLAIN, out, g, v);
}

CML_BODY void cml_banks_stride8_body(CML_CTX, unsigned smem, unsigned *out, int stride,
                                     int iters)
{
    unsigned t = CML_TID_X, a = smem + t * (unsigned)stride * 8u;
    unsigned long long g = (unsigned long long)CML_BID_X * CML_BDIM_X + t;
    uint2 v = make_uint2((unsigned)(2 * g), (unsigned)(2 * g + 1));
    for (int it = 0; it < iters; it++) {
        CML_STS_VOLATILE(0, a, v);
        v = CML_LDS_VOLATILE(1, uint2, a);
        v.x += 1u;
        v.y += 1u;
    }
    CML_ST(2, CML_ST_PLAIN, (uint2 *)out, g, v);
}

CML_BODY void cml_banks_stride16_body(CML_CTX, unsigned smem, unsigned *out, int stride,
                                      int iters)
{
    unsigned t = CML_TID_X, a = smem + t * (unsigned)stride * 16u;
    unsigned long long g = (unsigned long long)CML_BID_X * CML_BDIM_X + t;
    uint4 v = make_uint4((unsigned)(4 * g), (unsigned)(4 * g + 1), (unsigned)(4 * g + 2),
                         (unsigned)(4 * g + 3));
    for (int it = 0; it < iters; it++) {
        CML_STS_VOLATILE(0, a, v);
        v = CML_LDS_VOLATILE(1, uint4, a);
        v.x += 1u;
        v.y += 1u;
        v.z += 1u;
        v.w += 1u;
    }
    CML_ST(2, CML_ST_PLAIN, (uint4 *)out, g, v);
}

#endif
