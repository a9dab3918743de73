/*
 * extern "C" launchers of async_copy.cu, callable from C, and the shapes the
 * kernels, the model mirror (async_copy.c) and the tests share.
 *
 * Every kernel is a persistent block of CML_AC_BLOCK threads that walks the
 * tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... of its workload, each
 * tile 4 KiB of floats, staged from global into shared memory by one of the
 * methods below and then consumed from shared memory.
 */
#ifndef CML_ASYNC_COPY_KERNELS_H
#define CML_ASYNC_COPY_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shape helpers below serve host code and kernels alike. */
#if defined(__CUDACC__)
#define CML_AC_HD static __host__ __device__ inline
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
#endif
