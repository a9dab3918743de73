/*
 * Experiment 21 (async-copy): staging tiles from global into shared memory
 * through registers, with cp.async, and with the Tensor Memory Accelerator
 * (cp.async.bulk 1-D and a 2-D tensor map), on a streaming reduction and a
 * tiled transpose.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * shapes the kernels, the model's mirror (async_copy.c) and the tests
 * share, the launch arguments and the launchers' prototypes (extern "C",
 * callable from C), the kernels' per-thread bodies, which the C compiler
 * makes the model's mirror, and under __CUDACC__ the kernels, their tables,
 * the tensor map's encoding and the launchers, which nvcc compiles through
 * the file the build generates for the folder (cmake/experiments.cmake).
 *
 * Every kernel is a persistent block of CML_AC_BLOCK threads that walks the
 * tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... of its workload, each
 * tile 4 KiB of floats, staged from global into shared memory by one of the
 * methods below and then consumed from shared memory. The pipelines
 * (S = stages, G = gridDim.x, a block's tiles t = b, b+G, ...):
 *   reg:    S tiles at a time: S loads into registers (ld.global.nc, the
 *           read-only path), S stores to shared memory, __syncthreads,
 *           consume the S tiles, __syncthreads.
 *   cp.async: S buffers in a ring; tile i+S is issued as soon as tile i is
 *           consumed, each tile its own commit group; `cp.async.wait_group
 *           S-1` before a tile is read waits for the oldest one only.
 *   bulk / tensor: the same ring, one mbarrier per buffer; warp 0 issues the
 *           copies (one instruction per tile: lane 0, or 32 lanes for the
 *           transpose's 32 row copies), every thread waits on the barrier's
 *           phase, nobody else issues anything.
 * Code for sm_80 (cp.async) and sm_90 (TMA) is compiled only for those
 * architectures; the host waives the variants a device cannot run.
 *
 * Sites, per tile and thread (W: the bytes of one copy instruction; chunk
 * c < 16/W of the thread's 16 bytes of the tile):
 *   c         reg: the W-byte __ldg of chunk c; cp.async: its global read
 *   4 + c     reduce, reg: the W-byte shared store of chunk c; cp.async (both
 *             workloads): its shared write
 *   4+4c+j    transpose, reg: float j of chunk c stored into rows of 33
 *   20        reduce consumer: the 16-byte shared load at 16 * tid
 *   24+2k, 25+2k  transpose consumer, k < 4 (column c = warp + 8k): the shared
 *             load of tile row `lane`, column c, and the 4-byte store of out[]
 *   32, 33, 34    the reduce's end, once per block: lane 0 of each warp stores
 *             its warp's sum (8 bytes at 8 * warp), warp 0's lanes 0..7 load
 *             them, thread 0 stores out[b]
 *   36        bulk, tensor: the copy engine's global reads of the tile (no
 *             thread's load: cache CML_CACHE_BULK, gpu/kernel_body_async.h)
 */
#ifndef CML_ASYNC_COPY_BODY_H
#define CML_ASYNC_COPY_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/kernel_body_async.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shape helpers below serve host code, kernels and mirror alike (in a
 * kernel, constant expressions: the kernels size their buffers with them). */
#if defined(__CUDACC__)
#define CML_AC_HD static constexpr __host__ __device__ inline
#else
#define CML_AC_HD static inline
#endif

/* How a tile gets into shared memory (the `method` option's choices). */
typedef enum cml_ac_method {
    CML_AC_REG = 0,  /* ld.global into registers, st.shared, __syncthreads       */
    CML_AC_ASYNC_CA, /* cp.async.ca.shared.global, 4/8/16 bytes (sm_80+)         */
    CML_AC_ASYNC_CG, /* cp.async.cg.shared.global, 16 bytes, bypasses L1 (sm_80+) */
    CML_AC_BULK,     /* cp.async.bulk (TMA, 1-D) + mbarrier (sm_90+)              */
    CML_AC_TENSOR,   /* cp.async.bulk.tensor.2d with a tensor map (sm_90+)        */
    CML_AC_METHOD_COUNT
} cml_ac_method;

/* What the block does with a staged tile (the `workload` option's choices). */
typedef enum cml_ac_workload {
    CML_AC_REDUCE = 0, /* sum of every float, in double: one sum per block        */
    CML_AC_TRANSPOSE,  /* a 32x32 tile of in[] written transposed into out[]      */
    CML_AC_WORKLOAD_COUNT
} cml_ac_workload;

#define CML_AC_BLOCK 256u       /* threads per block, every kernel       */
#define CML_AC_TILE_BYTES 4096u /* one tile: 1024 floats or 32x32 floats */
#define CML_AC_TILE_FLOATS 1024u
#define CML_AC_SIDE 32u         /* the transpose tile's side             */
#define CML_AC_MAX_STAGES 4u
#define CML_AC_TMAP_BYTES 128u  /* sizeof(CUtensorMap)                   */
/* The reduce's 2-D view for the tensor map: rows of 256 floats, a tile is
 * 4 of them (a box of 256 x 4). */
#define CML_AC_REDUCE_ROW 256u

/* The model's assumption for a loaded DRAM read on Volta..Hopper (an order
 * of magnitude: docs/experiments/async-copy.md), the latency in Little's law. */
#define CML_AC_DRAM_LATENCY_NS 800.0

/* The minimum compute capability (major * 10 + minor) of a method. */
CML_AC_HD int cml_ac_min_cc(int method)
{
    return method == CML_AC_BULK || method == CML_AC_TENSOR ? 90
           : method == CML_AC_REG                          ? 0
                                                           : 80;
}

/* Row pitch, in floats, of the transpose tile in shared memory. The register
 * path re-lays the data as it stores it, so it pads each row by one float
 * (33: a column read touches 32 banks). A copy that never passes through
 * registers lands as the bytes it copies: cp.async's W-byte chunks need rows
 * that are multiples of W (32 + W/4 floats), a bulk copy 16-byte aligned
 * rows (36), and the tensor map writes dense rows of 32 that its 128-byte
 * swizzle spreads over the banks instead (cml_ac_swizzle). */
CML_AC_HD unsigned cml_ac_pitch(int method, unsigned width)
{
    switch (method) {
    case CML_AC_REG: return CML_AC_SIDE + 1;
    case CML_AC_ASYNC_CA:
    case CML_AC_ASYNC_CG: return CML_AC_SIDE + width / 4;
    case CML_AC_BULK: return CML_AC_SIDE + 4;
    default: return CML_AC_SIDE;
    }
}

/* Float index of tile cell (row, col) under the tensor map's 128-byte
 * swizzle: the 16-byte chunk col/4 of row r lands at chunk (col/4) ^ (r%8)
 * (the tile is 1024-byte aligned, where the pattern starts). */
CML_AC_HD unsigned cml_ac_swizzle(unsigned row, unsigned col)
{
    return row * CML_AC_SIDE + ((((col >> 2) ^ (row & 7u)) << 2) | (col & 3u));
}

/* Bytes of one stage buffer in shared memory. */
CML_AC_HD unsigned cml_ac_stage_bytes(int workload, int method, unsigned width)
{
    if (workload == CML_AC_REDUCE)
        return CML_AC_TILE_BYTES;
    return CML_AC_SIDE * cml_ac_pitch(method, width) * 4u;
}

/* One launch: the ctx of cml_async_launch (a cml_launch_fn). Self-contained:
 * the counters pass keeps a copy and launches it later. */
typedef struct cml_async_launch_args {
    const float *in;     /* reduce: n floats; transpose: ny rows of nx floats  */
    void *out;           /* reduce: `cap` doubles; transpose: nx rows of ny floats */
    uint64_t n, nx, ny;  /* n a multiple of 1024; nx, ny multiples of 32       */
    uint64_t cap;        /* reduce: doubles in out (>= grid)                    */
    unsigned grid;       /* persistent blocks                                   */
    unsigned pad_smem;   /* dynamic shared memory reserved (unused) to hold the
                            resident blocks per SM down                          */
    int method, workload, width, stages;
    /* tensor: the CUtensorMap cml_async_encode_map encoded (bytes: C code never
     * sees the driver's types; the launcher copies it into an aligned one) */
    unsigned char tmap[CML_AC_TMAP_BYTES];
} cml_async_launch_args;

/* The __global__ function of a variant (width is ignored by bulk and tensor,
 * 16 for async-cg); NULL for a combination that has none. */
CML_LAUNCHER const void *cml_async_kernel(int workload, int method, int width, int stages);
/* Blocks of a variant resident per SM (*per_sm) and the dynamic shared
 * memory (*pad, reserved, unused) that holds them to `want` (0: as many as
 * fit, no pad). Sets the kernel's attributes first, for good: the carveout
 * that favours shared memory (so the occupancy calculator and the launch
 * agree) and dynamic shared memory up to the device's limit (so a launch
 * queued earlier with a larger pad still runs). */
CML_LAUNCHER cml_status cml_async_residency(int workload, int method, int width, int stages,
                                            unsigned want, unsigned *per_sm, unsigned *pad);
/* The tensor method's tensor map into a->tmap, encoded through the driver
 * entry point the runtime hands out (cudaGetDriverEntryPointByVersion:
 * nothing links libcuda); needs a->in and the sizes. Errors name the call. */
CML_LAUNCHER cml_status cml_async_encode_map(cml_async_launch_args *a);
/* Launch one variant (asynchronously); the launch status is checked.
 * CML_EINVAL for arguments outside the shapes above. */
CML_LAUNCHER cml_status cml_async_launch(void *args);

#ifdef __cplusplus
}
#endif

/* ---- tiles ---------------------------------------------------------------- */

/* Float offset in in[] of chunk q (W bytes) of tile t: the reduce's tiles are
 * 1024 consecutive floats; the transpose's are 32 rows of 32 floats of a
 * matrix nx wide, K = 128/W chunks per row. *row, *col: the chunk's place in
 * the tile. */
CML_BODY uint64_t cml_ac_chunk_offset(int WL, unsigned W, uint64_t t, unsigned q, uint64_t nx,
                                      unsigned *row, unsigned *col)
{
    if (WL == CML_AC_REDUCE) {
        *row = 0;
        *col = q * (W / 4);
        return t * CML_AC_TILE_FLOATS + *col;
    }
    const uint64_t tiles_x = nx / CML_AC_SIDE;
    const uint64_t bx = t % tiles_x, by = t / tiles_x;
    *row = q / (128 / W);
    *col = (q % (128 / W)) * (W / 4);
    return (by * CML_AC_SIDE + *row) * nx + bx * CML_AC_SIDE + *col;
}

/* Consume tile t, staged at `tile` with rows of P floats (or swizzled: SWZ).
 * Reduce: each thread adds its 4 floats (one 16-byte shared load) into acc,
 * in double (exact, see async_copy.c). Transpose: warp w writes rows w, w+8,
 * w+16, w+24 of the output tile, lane l reading tile row l (a column of the
 * tile: the bank pattern depends on the pitch P, or on the swizzle) and
 * writing one coalesced row of out[]. */
CML_BODY void cml_ac_consume(CML_CTX, const float *tile, uint64_t t, double *acc, float *out,
                             uint64_t nx, uint64_t ny, int WL, unsigned P, int SWZ)
{
    const unsigned tid = CML_TID_X;
    if (WL == CML_AC_REDUCE) {
        const float4 v = CML_LDS(20, float4, (const float4 *)(tile + 4 * tid), 0);
        *acc += (double)v.x + (double)v.y + (double)v.z + (double)v.w;
        return;
    }
    const unsigned lane = tid & 31u, warp = tid >> 5;
    const uint64_t tiles_x = nx / CML_AC_SIDE;
    const uint64_t bx = t % tiles_x, by = t / tiles_x;
    CML_UNROLL
    for (unsigned k = 0; k < CML_AC_SIDE / (CML_AC_BLOCK / 32); k++) {
        const unsigned c = warp + k * (CML_AC_BLOCK / 32);
        const float v = SWZ ? CML_LDS(24 + 2 * k, float, tile, cml_ac_swizzle(lane, c))
                            : CML_LDS(24 + 2 * k, float, tile, lane * P + c);
        CML_ST(25 + 2 * k, CML_ST_PLAIN, out,
               (bx * CML_AC_SIDE + c) * ny + by * CML_AC_SIDE + lane, v);
    }
}

/* The reduce's end: the block's threads' sums into out[blockIdx.x]: warp
 * shuffles, lane 0 of each warp stores its warp's sum, warp 0 adds them. */
CML_BODY void cml_ac_reduce_end(CML_CTX, double acc, double *out)
{
    CML_SHARED_ARRAY(double, warp_sums, CML_AC_BLOCK / 32, 0);
    const unsigned lane = CML_TID_X & 31u, warp = CML_TID_X >> 5;
    for (int o = 16; o > 0; o >>= 1)
        acc += CML_SHFL_DOWN(0xffffffffu, acc, o);
    if (lane == 0)
        CML_STS(32, warp_sums, warp, acc);
    CML_SYNC();
    if (warp == 0) {
        double v = lane < CML_AC_BLOCK / 32 ? CML_LDS(33, double, warp_sums, lane) : 0.0;
        for (int o = 16; o > 0; o >>= 1)
            v += CML_SHFL_DOWN(0xffffffffu, v, o);
        if (lane == 0)
            CML_ST(34, CML_ST_PLAIN, out, CML_BID_X, v);
    }
}

/* ---- through registers --------------------------------------------------- */

/* The register path (WL a workload, W the bytes of a load, S the stages:
 * constants in each kernel), buf the block's S stage buffers. */
CML_BODY void cml_ac_reg_body(CML_CTX, const float *in, void *out, float *buf, uint64_t tiles,
                              uint64_t nx, uint64_t ny, int WL, unsigned W, unsigned S)
{
    const unsigned C = 16 / W; /* chunks per thread per tile */
    const unsigned P = cml_ac_pitch(CML_AC_REG, W);
    const unsigned STAGE = cml_ac_stage_bytes(WL, CML_AC_REG, W) / 4;
    const unsigned tid = CML_TID_X;
    const uint64_t G = CML_GDIM_X;
    double acc = 0.0;
    for (uint64_t t0 = CML_BID_X; t0 < tiles; t0 += S * G) {
        /* the staged chunks, S x C of W bytes (one of the three, by W) */
        float v4[CML_AC_MAX_STAGES][4];
        float2 v8[CML_AC_MAX_STAGES][2];
        float4 v16[CML_AC_MAX_STAGES][1];
        CML_UNROLL
        for (unsigned s = 0; s < S; s++)
            if (t0 + s * G < tiles) {
                CML_UNROLL
                for (unsigned c = 0; c < C; c++) {
                    unsigned row, col;
                    const uint64_t off =
                        cml_ac_chunk_offset(WL, W, t0 + s * G, c * CML_AC_BLOCK + tid, nx, &row,
                                            &col);
                    if (W == 4)
                        v4[s][c] = CML_LD(c, CML_LD_NC, float, in, off);
                    else if (W == 8)
                        v8[s][c] = CML_LD(c, CML_LD_NC, float2, (const float2 *)(in + off), 0);
                    else
                        v16[s][c] = CML_LD(c, CML_LD_NC, float4, (const float4 *)(in + off), 0);
                }
            }
        CML_UNROLL
        for (unsigned s = 0; s < S; s++)
            if (t0 + s * G < tiles) {
                CML_UNROLL
                for (unsigned c = 0; c < C; c++) {
                    unsigned row, col;
                    (void)cml_ac_chunk_offset(WL, W, t0 + s * G, c * CML_AC_BLOCK + tid, nx, &row,
                                              &col);
                    if (WL == CML_AC_REDUCE) {
                        if (W == 4)
                            CML_STS(4 + c, buf + s * STAGE, col, v4[s][c]);
                        else if (W == 8)
                            CML_STS(4 + c, (float2 *)(buf + s * STAGE + col), 0, v8[s][c]);
                        else
                            CML_STS(4 + c, (float4 *)(buf + s * STAGE + col), 0, v16[s][c]);
                    } else {
                        /* one float at a time into rows of 33 */
                        const float *f = W == 4   ? &v4[s][c]
                                         : W == 8 ? (const float *)&v8[s][c]
                                                  : (const float *)&v16[s][c];
                        CML_UNROLL
                        for (unsigned j = 0; j < W / 4; j++)
                            CML_STS(4 + 4 * c + j, buf, s * STAGE + row * P + col + j, f[j]);
                    }
                }
            }
        CML_SYNC();
        CML_UNROLL
        for (unsigned s = 0; s < S; s++)
            if (t0 + s * G < tiles)
                cml_ac_consume(CML_CTX_ARG, buf + s * STAGE, t0 + s * G, &acc, (float *)out, nx,
                               ny, WL, P, 0);
        CML_SYNC();
    }
    if (WL == CML_AC_REDUCE)
        cml_ac_reduce_end(CML_CTX_ARG, acc, (double *)out);
}

/* ---- cp.async (LDGSTS) --------------------------------------------------- */

/* Every thread (tid) copies its own chunks of tile t into `stage`: no
 * register holds the data. */
CML_BODY void cml_ac_ldgsts_issue(CML_CTX, const float *in, uint64_t t, float *stage, unsigned tid,
                                  uint64_t nx, int WL, unsigned W, unsigned P, int CG)
{
    const unsigned C = 16 / W;
    CML_UNROLL
    for (unsigned c = 0; c < C; c++) {
        unsigned row, col;
        const uint64_t off = cml_ac_chunk_offset(WL, W, t, c * CML_AC_BLOCK + tid, nx, &row, &col);
        CML_CP_ASYNC(c, 4 + c, CG ? CML_CACHE_CG : CML_CACHE_CA, W,
                     CML_SHARED_SPACE(stage + row * P + col), in, off);
    }
}

/* The cp.async path (CG: .cg, else .ca), buf the block's S stage buffers. */
CML_BODY void cml_ac_ldgsts_body(CML_CTX, const float *in, void *out, float *buf, uint64_t tiles,
                                 uint64_t nx, uint64_t ny, int WL, unsigned W, unsigned S, int CG)
{
    const int method = CG ? CML_AC_ASYNC_CG : CML_AC_ASYNC_CA;
    const unsigned P = cml_ac_pitch(method, W);
    const unsigned STAGE = cml_ac_stage_bytes(WL, method, W) / 4;
    const unsigned tid = CML_TID_X;
    const uint64_t G = CML_GDIM_X;
    double acc = 0.0;
    CML_UNROLL
    for (unsigned s = 0; s < S; s++) {
        if (CML_BID_X + s * G < tiles)
            cml_ac_ldgsts_issue(CML_CTX_ARG, in, CML_BID_X + s * G, buf + s * STAGE, tid, nx, WL,
                                W, P, CG);
        CML_CP_ASYNC_COMMIT(); /* one group per tile, empty past the end */
    }
    unsigned s = 0;
    for (uint64_t t = CML_BID_X; t < tiles; t += G) {
        CML_CP_ASYNC_WAIT(S - 1); /* this thread's copies of tile t are done */
        CML_SYNC();               /* ... and every other thread's */
        cml_ac_consume(CML_CTX_ARG, buf + s * STAGE, t, &acc, (float *)out, nx, ny, WL, P, 0);
        CML_SYNC(); /* the buffer is free */
        if (t + S * G < tiles)
            cml_ac_ldgsts_issue(CML_CTX_ARG, in, t + S * G, buf + s * STAGE, tid, nx, WL, W, P,
                                CG);
        CML_CP_ASYNC_COMMIT();
        s = s + 1 == S ? 0 : s + 1;
    }
    CML_CP_ASYNC_WAIT(0);
    if (WL == CML_AC_REDUCE)
        cml_ac_reduce_end(CML_CTX_ARG, acc, (double *)out);
}

/* ---- TMA: cp.async.bulk and cp.async.bulk.tensor ------------------------- */

/* Warp 0 (lane: the thread's lane) refills buffer s of `buf` (stages of
 * STAGE floats) with tile t: one arrival on mbarrier bar[s] that expects the
 * tile's 4096 bytes, then the copy (the transpose's bulk method: one
 * 128-byte row per lane, all completing on the same barrier). tmap: the
 * tensor map (TENSOR), whose box the body also names for the mirror: the
 * reduce's 4 rows of 1024 bytes (one contiguous tile), the transpose's 32
 * rows of 128 bytes, nx floats apart. No thread's load or store: the
 * mirror emits the copy engine's reads (site 36, gpu/kernel_body_async.h). */
CML_BODY void cml_ac_tma_issue(CML_CTX, const void *tmap, const float *in, uint64_t t,
                               unsigned s, float *buf, unsigned long long *bar, unsigned STAGE,
                               unsigned lane, uint64_t nx, int WL, unsigned P, int TENSOR)
{
    float *stage = buf + s * STAGE;
    const unsigned b = CML_SHARED_SPACE(&bar[s]);
    CML_FENCE_PROXY_ASYNC();
    if (lane == 0)
        CML_MBAR_EXPECT_TX(b, CML_AC_TILE_BYTES);
    CML_SYNCWARP();
    const uint64_t tiles_x = nx / CML_AC_SIDE;
    if (TENSOR && lane == 0) {
        const int c0 = WL == CML_AC_REDUCE ? 0 : (int)((t % tiles_x) * CML_AC_SIDE);
        const int c1 = WL == CML_AC_REDUCE ? (int)(t * (CML_AC_TILE_FLOATS / CML_AC_REDUCE_ROW))
                                           : (int)((t / tiles_x) * CML_AC_SIDE);
        const int R = WL == CML_AC_REDUCE;
        const unsigned row_bytes = R ? CML_AC_REDUCE_ROW * 4 : CML_AC_SIDE * 4;
        CML_CP_ASYNC_TENSOR_2D(36, CML_SHARED_SPACE(stage), tmap, c0, c1, b, in,
                               (uint64_t)c1 * (R ? CML_AC_REDUCE_ROW : nx) + (uint64_t)c0,
                               row_bytes, R ? CML_AC_TILE_BYTES / row_bytes : CML_AC_SIDE,
                               R ? (uint64_t)row_bytes : nx * 4);
    } else if (!TENSOR && WL == CML_AC_REDUCE && lane == 0) {
        CML_CP_ASYNC_BULK(36, CML_SHARED_SPACE(stage), in, t * CML_AC_TILE_FLOATS,
                          CML_AC_TILE_BYTES, b);
    } else if (!TENSOR && WL == CML_AC_TRANSPOSE) {
        const uint64_t bx = t % tiles_x, by = t / tiles_x;
        CML_CP_ASYNC_BULK(36, CML_SHARED_SPACE(stage + lane * P), in,
                          (by * CML_AC_SIDE + lane) * nx + bx * CML_AC_SIDE, CML_AC_SIDE * 4, b);
    }
}

/* The TMA paths (TENSOR: the tensor map, else cp.async.bulk). raw: the
 * block's S stage buffers, and room to align them to 1024 bytes where the
 * tensor map swizzles (the transpose); bar: S mbarriers. */
CML_BODY void cml_ac_tma_body(CML_CTX, const void *tmap, const float *in, void *out,
                              unsigned char *raw, unsigned long long *bar, uint64_t tiles,
                              uint64_t nx, uint64_t ny, int WL, unsigned S, int TENSOR)
{
    /* Reduce: dense 4 KiB buffers. Transpose: rows of 36 floats for the 32
     * row copies (16-byte aligned), or dense rows swizzled by the tensor map,
     * which needs its buffers 1024-byte aligned. */
    const int method = TENSOR ? CML_AC_TENSOR : CML_AC_BULK;
    const int SWZ = TENSOR && WL == CML_AC_TRANSPOSE;
    const unsigned P = cml_ac_pitch(method, 16);
    const unsigned STAGE = cml_ac_stage_bytes(WL, method, 16) / 4;
    float *buf =
        (float *)(raw + (SWZ ? (1024u - (CML_SHARED_SPACE(raw) & 1023u)) & 1023u : 0u));
    const unsigned tid = CML_TID_X, lane = tid & 31u, warp = tid >> 5;
    const uint64_t G = CML_GDIM_X;
    double acc = 0.0;
    if (tid == 0) {
        for (unsigned s = 0; s < S; s++)
            CML_MBAR_INIT(CML_SHARED_SPACE(&bar[s]), 1);
        CML_MBAR_FENCE_INIT();
    }
    CML_SYNC();
    if (warp == 0)
        for (unsigned s = 0; s < S; s++)
            if (CML_BID_X + s * G < tiles)
                cml_ac_tma_issue(CML_CTX_ARG, tmap, in, CML_BID_X + s * G, s, buf, bar, STAGE,
                                 lane, nx, WL, P, TENSOR);
    unsigned s = 0, phase = 0;
    for (uint64_t t = CML_BID_X; t < tiles; t += G) {
        CML_MBAR_WAIT(CML_SHARED_SPACE(&bar[s]), phase);
        cml_ac_consume(CML_CTX_ARG, buf + s * STAGE, t, &acc, (float *)out, nx, ny, WL, P, SWZ);
        CML_SYNC(); /* every thread has read buffer s */
        const uint64_t next = t + S * G;
        if (warp == 0 && next < tiles)
            cml_ac_tma_issue(CML_CTX_ARG, tmap, in, next, s, buf, bar, STAGE, lane, nx, WL, P,
                             TENSOR);
        if (++s == S) {
            s = 0;
            phase ^= 1u;
        }
    }
    if (WL == CML_AC_REDUCE)
        cml_ac_reduce_end(CML_CTX_ARG, acc, (double *)out);
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda.h> /* CUtensorMap and the driver's enums only: nothing links libcuda */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdarg.h>
#include <string.h>

#include "gpu/gpu_internal.h"

typedef unsigned long long u64;

template <int WL, int W, int S>
__global__ void __launch_bounds__(CML_AC_BLOCK)
    ac_reg(const float *__restrict__ in, void *out, u64 tiles, u64 nx, u64 ny)
{
    __shared__ __align__(16) float buf[S * cml_ac_stage_bytes(WL, CML_AC_REG, W) / 4];
    cml_ac_reg_body(CML_KERNEL_CTX, in, out, buf, tiles, nx, ny, WL, W, S);
}

template <int WL, int W, int S, bool CG>
__global__ void __launch_bounds__(CML_AC_BLOCK)
    ac_ldgsts(const float *__restrict__ in, void *out, u64 tiles, u64 nx, u64 ny)
{
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) float
        buf[S * cml_ac_stage_bytes(WL, CG ? CML_AC_ASYNC_CG : CML_AC_ASYNC_CA, W) / 4];
    cml_ac_ldgsts_body(CML_KERNEL_CTX, in, out, buf, tiles, nx, ny, WL, W, S, CG);
#else
    (void)in, (void)out, (void)tiles, (void)nx, (void)ny;
#endif
}

/* The stage buffers, and where the tensor map swizzles (the transpose) the
 * slack that lets them start on 1024 bytes. */
template <int WL, int S, bool TENSOR>
__global__ void __launch_bounds__(CML_AC_BLOCK)
    ac_tma(const __grid_constant__ CUtensorMap map, const float *__restrict__ in, void *out,
           u64 tiles, u64 nx, u64 ny)
{
#if __CUDA_ARCH__ >= 900
    constexpr unsigned SLACK = TENSOR && WL == CML_AC_TRANSPOSE ? 1024 - 128 : 0;
    __shared__ __align__(128) unsigned char
        raw[S * cml_ac_stage_bytes(WL, TENSOR ? CML_AC_TENSOR : CML_AC_BULK, 16) + SLACK];
    __shared__ __align__(8) unsigned long long bar[S];
    cml_ac_tma_body(CML_KERNEL_CTX, &map, in, out, raw, bar, tiles, nx, ny, WL, S, TENSOR);
#else
    (void)map, (void)in, (void)out, (void)tiles, (void)nx, (void)ny;
#endif
}
/* ---- tables ------------------------------------------------------------- */

typedef void (*plain_kernel)(const float *, void *, u64, u64, u64);
typedef void (*tma_kernel)(const CUtensorMap, const float *, void *, u64, u64, u64);

#define AC_STAGES(K, ...) {K<__VA_ARGS__, 1>, K<__VA_ARGS__, 2>, K<__VA_ARGS__, 3>, K<__VA_ARGS__, 4>}
#define AC_STAGES_CG(WL) \
    {ac_ldgsts<WL, 16, 1, true>, ac_ldgsts<WL, 16, 2, true>, ac_ldgsts<WL, 16, 3, true>, \
     ac_ldgsts<WL, 16, 4, true>}
#define AC_STAGES_CA(WL, W) \
    {ac_ldgsts<WL, W, 1, false>, ac_ldgsts<WL, W, 2, false>, ac_ldgsts<WL, W, 3, false>, \
     ac_ldgsts<WL, W, 4, false>}
#define AC_STAGES_TMA(WL, T) {ac_tma<WL, 1, T>, ac_tma<WL, 2, T>, ac_tma<WL, 3, T>, ac_tma<WL, 4, T>}

/* [workload][width 4, 8, 16][stages - 1] */
static const plain_kernel reg_kernels[2][3][4] = {
    {AC_STAGES(ac_reg, 0, 4), AC_STAGES(ac_reg, 0, 8), AC_STAGES(ac_reg, 0, 16)},
    {AC_STAGES(ac_reg, 1, 4), AC_STAGES(ac_reg, 1, 8), AC_STAGES(ac_reg, 1, 16)},
};
static const plain_kernel ca_kernels[2][3][4] = {
    {AC_STAGES_CA(0, 4), AC_STAGES_CA(0, 8), AC_STAGES_CA(0, 16)},
    {AC_STAGES_CA(1, 4), AC_STAGES_CA(1, 8), AC_STAGES_CA(1, 16)},
};
/* [workload][stages - 1] */
static const plain_kernel cg_kernels[2][4] = {AC_STAGES_CG(0), AC_STAGES_CG(1)};
static const tma_kernel bulk_kernels[2][4] = {AC_STAGES_TMA(0, false), AC_STAGES_TMA(1, false)};
static const tma_kernel tensor_kernels[2][4] = {AC_STAGES_TMA(0, true), AC_STAGES_TMA(1, true)};

static int width_index(int width)
{
    return width == 4 ? 0 : width == 8 ? 1 : width == 16 ? 2 : -1;
}

/* The kernel of a variant as either type; NULL for none. */
static void pick(int workload, int method, int width, int stages, plain_kernel *plain,
                 tma_kernel *tma)
{
    *plain = NULL;
    *tma = NULL;
    const int w = width_index(width);
    if (workload < 0 || workload >= CML_AC_WORKLOAD_COUNT || stages < 1 ||
        stages > (int)CML_AC_MAX_STAGES)
        return;
    switch (method) {
    case CML_AC_REG:
        if (w >= 0)
            *plain = reg_kernels[workload][w][stages - 1];
        break;
    case CML_AC_ASYNC_CA:
        if (w >= 0)
            *plain = ca_kernels[workload][w][stages - 1];
        break;
    case CML_AC_ASYNC_CG:
        if (width == 16)
            *plain = cg_kernels[workload][stages - 1];
        break;
    case CML_AC_BULK: *tma = bulk_kernels[workload][stages - 1]; break;
    case CML_AC_TENSOR: *tma = tensor_kernels[workload][stages - 1]; break;
    default: break;
    }
}

extern "C" const void *cml_async_kernel(int workload, int method, int width, int stages)
{
    plain_kernel p;
    tma_kernel t;
    pick(workload, method, width, stages, &p, &t);
    return p ? (const void *)p : (const void *)t;
}

/* ---- host side ------------------------------------------------------------ */

static cml_status fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_gpu_set_last_error_v(fmt, ap);
    va_end(ap);
    return CML_ECUDA;
}

/* The tensor map of a variant: reduce, in[] as rows of 256 floats and a box
 * of 4 rows (one tile, dense); transpose, in[] as ny rows of nx floats and a
 * 32x32 box with the 128-byte swizzle. */
static cml_status encode_map(cml_async_launch_args *a)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (!encode) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        CML_CU(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !fn)
            return fail("cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", 12000): "
                        "the driver has no such entry point (query result %d)",
                        (int)found);
        encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    cuuint64_t dims[2], strides[1];
    cuuint32_t box[2], elem_strides[2] = {1, 1};
    CUtensorMapSwizzle swizzle;
    if (a->workload == CML_AC_REDUCE) {
        dims[0] = CML_AC_REDUCE_ROW;
        dims[1] = a->n / CML_AC_REDUCE_ROW;
        box[0] = CML_AC_REDUCE_ROW;
        box[1] = CML_AC_TILE_FLOATS / CML_AC_REDUCE_ROW;
        swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
    } else {
        dims[0] = a->nx;
        dims[1] = a->ny;
        box[0] = box[1] = CML_AC_SIDE;
        swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    }
    strides[0] = dims[0] * sizeof(float);
    CUtensorMap map;
    memset(&map, 0, sizeof map);
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)a->in, dims, strides,
                        box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return fail("cuTensorMapEncodeTiled(%llu x %llu floats, box %u x %u) failed: CUresult %d",
                    (u64)dims[0], (u64)dims[1], (unsigned)box[0], (unsigned)box[1], (int)r);
    static_assert(sizeof map == CML_AC_TMAP_BYTES, "CUtensorMap is 128 bytes");
    memcpy(a->tmap, &map, sizeof map);
    return CML_OK;
}

extern "C" cml_status cml_async_encode_map(cml_async_launch_args *a)
{
    memset(a->tmap, 0, sizeof a->tmap);
    if (a->method != CML_AC_TENSOR || !a->in)
        return CML_EINVAL;
    return encode_map(a);
}

extern "C" cml_status cml_async_residency(int workload, int method, int width, int stages,
                                          unsigned want, unsigned *per_sm, unsigned *pad)
{
    const void *k = cml_async_kernel(workload, method, width, stages);
    if (!k)
        return CML_EINVAL;
    int dev = 0, smem_sm = 0, reserved = 0, optin = 0;
    CML_CU(cudaGetDevice(&dev));
    CML_CU(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    CML_CU(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    CML_CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaFuncAttributes fa;
    CML_CU(cudaFuncGetAttributes(&fa, k));
    const int dyn_max = optin - (int)fa.sharedSizeBytes;
    CML_CU(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                (int)cudaSharedmemCarveoutMaxShared));
    CML_CU(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                dyn_max > 0 ? dyn_max : 0));
    int natural = 0;
    CML_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&natural, k, CML_AC_BLOCK, 0));
    int p = 0;
    if (want > 0 && (int)want < natural) {
        /* want blocks fill the SM's shared memory, want + 1 do not fit */
        p = smem_sm / (int)want - reserved - (int)fa.sharedSizeBytes;
        if (p > dyn_max)
            p = dyn_max;
        if (p < 0)
            p = 0;
    }
    int got = 0;
    CML_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, k, CML_AC_BLOCK, (size_t)p));
    if (got <= 0)
        return fail("cudaOccupancyMaxActiveBlocksPerMultiprocessor: no block of this kernel "
                    "fits an SM with %d bytes of dynamic shared memory", p);
    *per_sm = (unsigned)got;
    *pad = (unsigned)p;
    return CML_OK;
}

extern "C" cml_status cml_async_launch(void *vctx)
{
    const cml_async_launch_args *a = (const cml_async_launch_args *)vctx;
    plain_kernel plain;
    tma_kernel tma;
    pick(a->workload, a->method, a->width, a->stages, &plain, &tma);
    if ((!plain && !tma) || a->grid == 0 || !a->in || !a->out)
        return CML_EINVAL;
    u64 tiles;
    if (a->workload == CML_AC_REDUCE) {
        if (a->n == 0 || a->n % CML_AC_TILE_FLOATS || a->cap < a->grid)
            return CML_EINVAL;
        tiles = a->n / CML_AC_TILE_FLOATS;
    } else {
        if (a->nx == 0 || a->ny == 0 || a->nx % CML_AC_SIDE || a->ny % CML_AC_SIDE)
            return CML_EINVAL;
        tiles = (a->nx / CML_AC_SIDE) * (a->ny / CML_AC_SIDE);
    }
    if (tma) {
        CUtensorMap map; /* aligned as the driver wants; the args hold its bytes */
        memcpy(&map, a->tmap, sizeof map);
        tma<<<a->grid, CML_AC_BLOCK, a->pad_smem>>>(map, a->in, a->out, tiles, a->nx, a->ny);
    } else {
        plain<<<a->grid, CML_AC_BLOCK, a->pad_smem>>>(a->in, a->out, tiles, a->nx, a->ny);
    }
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
