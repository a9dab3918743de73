/*
 * Experiment 21 (async-copy): staging tiles from global into shared memory
 * through registers, with cp.async, and with the Tensor Memory Accelerator
 * (cp.async.bulk 1-D and a 2-D tensor map), on a streaming reduction and a
 * tiled transpose. async_copy.c's mirror emits what these kernels issue per
 * thread; keep them in step.
 *
 * The pipelines (S = stages, G = gridDim.x, a block's tiles t = b, b+G, ...):
 *   reg:    S tiles at a time: S loads into registers (ld.global.nc, the
 *           read-only path), S stores to shared
 *           memory, __syncthreads, consume the S tiles, __syncthreads.
 *   cp.async: S buffers in a ring; tile i+S is issued as soon as tile i is
 *           consumed, each tile its own commit group; `cp.async.wait_group
 *           S-1` before a tile is read waits for the oldest one only.
 *   bulk / tensor: the same ring, one mbarrier per buffer; warp 0 issues the
 *           copies (one instruction per tile: lane 0, or 32 lanes for the
 *           transpose's 32 row copies), every thread waits on the barrier's
 *           phase, nobody else issues anything.
 * Code for sm_80 (cp.async) and sm_90 (TMA) is compiled only for those
 * architectures; the host waives the variants a device cannot run.
 */
#include <cuda.h> /* CUtensorMap and the driver's enums only: nothing links libcuda */
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "experiments/async_copy/async_copy_kernels.h"
#include "gpu/gpu_internal.h"

typedef unsigned long long u64;

/* ---- PTX wrappers -------------------------------------------------------- */

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

template <int W> struct vec_of;
template <> struct vec_of<4> { typedef float type; };
template <> struct vec_of<8> { typedef float2 type; };
template <> struct vec_of<16> { typedef float4 type; };

#if __CUDA_ARCH__ >= 800
template <int W, bool CG> __device__ __forceinline__ void cp_async(unsigned dst, const float *src)
{
    if (CG)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(W)
                     : "memory");
}
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
#endif

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
/* Makes the initialised barriers visible to the async proxy (the TMA unit). */
__device__ __forceinline__ void mbar_fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
/* Arrive once and expect `bytes` of transactions in the current phase. */
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
/* Wait until the phase of parity `parity` has completed. */
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
}
/* Orders this thread's earlier shared-memory accesses (generic proxy) before
 * later async-proxy accesses: a buffer read by the block is refilled by TMA
 * only after the reads. */
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void bulk_copy(unsigned dst, const float *src, unsigned bytes,
                                          unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];\n" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ void tensor_copy_2d(unsigned dst, const CUtensorMap *map, int c0,
                                               int c1, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"((u64)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
#endif

/* ---- tiles --------------------------------------------------------------- */

/* Float offset in in[] of chunk q (W bytes) of tile t: the reduce's tiles are
 * 1024 consecutive floats; the transpose's are 32 rows of 32 floats of a
 * matrix nx wide, K = 128/W chunks per row. */
template <int WL, int W>
__device__ __forceinline__ u64 chunk_offset(u64 t, unsigned q, u64 nx, unsigned *row,
                                            unsigned *col)
{
    if (WL == CML_AC_REDUCE) {
        *row = 0;
        *col = q * (W / 4);
        return t * CML_AC_TILE_FLOATS + *col;
    }
    const u64 tiles_x = nx / CML_AC_SIDE;
    const u64 bx = t % tiles_x, by = t / tiles_x;
    *row = q / (128 / W);
    *col = (q % (128 / W)) * (W / 4);
    return (by * CML_AC_SIDE + *row) * nx + bx * CML_AC_SIDE + *col;
}

/* Consume a staged tile. Reduce: each thread adds its 4 floats (one 16-byte
 * shared load) into acc, in double (exact, see async_copy.c). Transpose: warp
 * w writes rows w, w+8, w+16, w+24 of the output tile, lane l reading tile
 * row l (a column of the tile: the bank pattern depends on the pitch P, or
 * on the swizzle) and writing one coalesced row of out[]. */
template <int WL, int P, bool SWZ>
__device__ __forceinline__ void consume(const float *tile, u64 t, double *acc, float *out, u64 nx,
                                        u64 ny)
{
    const unsigned tid = threadIdx.x;
    if (WL == CML_AC_REDUCE) {
        const float4 v = *reinterpret_cast<const float4 *>(tile + 4 * tid);
        *acc += (double)v.x + (double)v.y + (double)v.z + (double)v.w;
        return;
    }
    const unsigned lane = tid & 31u, warp = tid >> 5;
    const u64 tiles_x = nx / CML_AC_SIDE;
    const u64 bx = t % tiles_x, by = t / tiles_x;
#pragma unroll
    for (unsigned k = 0; k < CML_AC_SIDE / (CML_AC_BLOCK / 32); k++) {
        const unsigned c = warp + k * (CML_AC_BLOCK / 32);
        const float v = SWZ ? tile[cml_ac_swizzle(lane, c)] : tile[lane * P + c];
        out[(bx * CML_AC_SIDE + c) * ny + by * CML_AC_SIDE + lane] = v;
    }
}

/* The reduce's end: the block's threads' sums into out[blockIdx.x]: warp
 * shuffles, lane 0 of each warp stores its warp's sum, warp 0 adds them. */
__device__ __forceinline__ void reduce_epilogue(double acc, double *out)
{
    __shared__ double warp_sums[CML_AC_BLOCK / 32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0)
        warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        double v = lane < CML_AC_BLOCK / 32 ? warp_sums[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

/* ---- through registers --------------------------------------------------- */

template <int WL, int W, int S>
__global__ void __launch_bounds__(CML_AC_BLOCK)
    ac_reg(const float *__restrict__ in, void *out, u64 tiles, u64 nx, u64 ny)
{
    typedef typename vec_of<W>::type V;
    constexpr unsigned C = 16 / W; /* chunks per thread per tile */
    constexpr unsigned P = CML_AC_SIDE + 1;
    constexpr unsigned STAGE = WL == CML_AC_REDUCE ? CML_AC_TILE_FLOATS : CML_AC_SIDE * P;
    __shared__ __align__(16) float buf[S * STAGE];
    const unsigned tid = threadIdx.x;
    const u64 G = gridDim.x;
    double acc = 0.0;
    for (u64 t0 = blockIdx.x; t0 < tiles; t0 += S * G) {
        V v[S][C];
#pragma unroll
        for (unsigned s = 0; s < S; s++)
            if (t0 + s * G < tiles) {
#pragma unroll
                for (unsigned c = 0; c < C; c++) {
                    unsigned row, col;
                    const u64 off = chunk_offset<WL, W>(t0 + s * G, c * CML_AC_BLOCK + tid, nx,
                                                        &row, &col);
                    v[s][c] = __ldg(reinterpret_cast<const V *>(in + off));
                }
            }
#pragma unroll
        for (unsigned s = 0; s < S; s++)
            if (t0 + s * G < tiles) {
#pragma unroll
                for (unsigned c = 0; c < C; c++) {
                    unsigned row, col;
                    (void)chunk_offset<WL, W>(t0 + s * G, c * CML_AC_BLOCK + tid, nx, &row, &col);
                    if (WL == CML_AC_REDUCE) {
                        *reinterpret_cast<V *>(buf + s * STAGE + col) = v[s][c];
                    } else {
                        /* one float at a time into rows of 33 */
                        const float *f = reinterpret_cast<const float *>(&v[s][c]);
#pragma unroll
                        for (unsigned j = 0; j < W / 4; j++)
                            buf[s * STAGE + row * P + col + j] = f[j];
                    }
                }
            }
        __syncthreads();
#pragma unroll
        for (unsigned s = 0; s < S; s++)
            if (t0 + s * G < tiles)
                consume<WL, P, false>(buf + s * STAGE, t0 + s * G, &acc,
                                      static_cast<float *>(out), nx, ny);
        __syncthreads();
    }
    if (WL == CML_AC_REDUCE)
        reduce_epilogue(acc, static_cast<double *>(out));
}

/* ---- cp.async (LDGSTS) --------------------------------------------------- */

template <int WL, int W, int S, bool CG>
__global__ void __launch_bounds__(CML_AC_BLOCK)
    ac_ldgsts(const float *__restrict__ in, void *out, u64 tiles, u64 nx, u64 ny)
{
#if __CUDA_ARCH__ >= 800
    constexpr unsigned C = 16 / W;
    constexpr unsigned P = CML_AC_SIDE + W / 4;
    constexpr unsigned STAGE = WL == CML_AC_REDUCE ? CML_AC_TILE_FLOATS : CML_AC_SIDE * P;
    __shared__ __align__(16) float buf[S * STAGE];
    const unsigned tid = threadIdx.x;
    const u64 G = gridDim.x;
    double acc = 0.0;
    /* Every thread copies its own chunks: no register holds the data. */
    auto issue = [&](u64 t, float *stage) {
#pragma unroll
        for (unsigned c = 0; c < C; c++) {
            unsigned row, col;
            const u64 off = chunk_offset<WL, W>(t, c * CML_AC_BLOCK + tid, nx, &row, &col);
            cp_async<W, CG>(smem_addr(stage + row * P + col), in + off);
        }
    };
#pragma unroll
    for (unsigned s = 0; s < S; s++) {
        if (blockIdx.x + s * G < tiles)
            issue(blockIdx.x + s * G, buf + s * STAGE);
        cp_async_commit(); /* one group per tile, empty past the end */
    }
    unsigned s = 0;
    for (u64 t = blockIdx.x; t < tiles; t += G) {
        cp_async_wait<S - 1>(); /* this thread's copies of tile t are done */
        __syncthreads();        /* ... and every other thread's */
        consume<WL, P, false>(buf + s * STAGE, t, &acc, static_cast<float *>(out), nx, ny);
        __syncthreads(); /* the buffer is free */
        if (t + S * G < tiles)
            issue(t + S * G, buf + s * STAGE);
        cp_async_commit();
        s = s + 1 == S ? 0 : s + 1;
    }
    cp_async_wait<0>();
    if (WL == CML_AC_REDUCE)
        reduce_epilogue(acc, static_cast<double *>(out));
#else
    (void)in, (void)out, (void)tiles, (void)nx, (void)ny;
#endif
}

/* ---- TMA: cp.async.bulk and cp.async.bulk.tensor ------------------------- */

template <int WL, int S, bool TENSOR>
__global__ void __launch_bounds__(CML_AC_BLOCK)
    ac_tma(const __grid_constant__ CUtensorMap map, const float *__restrict__ in, void *out,
           u64 tiles, u64 nx, u64 ny)
{
#if __CUDA_ARCH__ >= 900
    /* Reduce: dense 4 KiB buffers. Transpose: rows of 36 floats for the 32
     * row copies (16-byte aligned), or dense rows swizzled by the tensor map,
     * which needs its buffers 1024-byte aligned: the slack makes room. */
    constexpr bool SWZ = TENSOR && WL == CML_AC_TRANSPOSE;
    constexpr unsigned P = WL == CML_AC_TRANSPOSE && !TENSOR ? CML_AC_SIDE + 4 : CML_AC_SIDE;
    constexpr unsigned STAGE = WL == CML_AC_REDUCE ? CML_AC_TILE_FLOATS : CML_AC_SIDE * P;
    constexpr unsigned SLACK = SWZ ? 1024 - 128 : 0;
    __shared__ __align__(128) unsigned char raw[S * STAGE * 4 + SLACK];
    __shared__ __align__(8) unsigned long long bar[S];
    float *buf = reinterpret_cast<float *>(raw + (SWZ ? (1024u - (smem_addr(raw) & 1023u)) & 1023u
                                                      : 0u));
    const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
    const u64 G = gridDim.x;
    double acc = 0.0;
    if (tid == 0) {
        for (unsigned s = 0; s < S; s++)
            mbar_init(smem_addr(&bar[s]), 1);
        mbar_fence_init();
    }
    __syncthreads();
    /* Warp 0 refills buffer s with tile t: one arrival that expects the
     * tile's 4096 bytes, then the copy (the transpose's bulk method: one
     * 128-byte row per lane, all completing on the same barrier). */
    auto issue = [&](u64 t, unsigned s) {
        float *stage = buf + s * STAGE;
        const unsigned b = smem_addr(&bar[s]);
        fence_proxy_async();
        if (lane == 0)
            mbar_expect_tx(b, CML_AC_TILE_BYTES);
        __syncwarp();
        const u64 tiles_x = nx / CML_AC_SIDE;
        if (TENSOR && lane == 0) {
            const int c0 = WL == CML_AC_REDUCE ? 0 : (int)((t % tiles_x) * CML_AC_SIDE);
            const int c1 = WL == CML_AC_REDUCE ? (int)(t * (CML_AC_TILE_FLOATS / CML_AC_REDUCE_ROW))
                                               : (int)((t / tiles_x) * CML_AC_SIDE);
            tensor_copy_2d(smem_addr(stage), &map, c0, c1, b);
        } else if (!TENSOR && WL == CML_AC_REDUCE && lane == 0) {
            bulk_copy(smem_addr(stage), in + t * CML_AC_TILE_FLOATS, CML_AC_TILE_BYTES, b);
        } else if (!TENSOR && WL == CML_AC_TRANSPOSE) {
            const u64 bx = t % tiles_x, by = t / tiles_x;
            bulk_copy(smem_addr(stage + lane * P),
                      in + (by * CML_AC_SIDE + lane) * nx + bx * CML_AC_SIDE, CML_AC_SIDE * 4, b);
        }
    };
    if (warp == 0)
        for (unsigned s = 0; s < S; s++)
            if (blockIdx.x + s * G < tiles)
                issue(blockIdx.x + s * G, s);
    unsigned s = 0, phase = 0;
    for (u64 t = blockIdx.x; t < tiles; t += G) {
        mbar_wait(smem_addr(&bar[s]), phase);
        consume<WL, P, SWZ>(buf + s * STAGE, t, &acc, static_cast<float *>(out), nx, ny);
        __syncthreads(); /* every thread has read buffer s */
        if (warp == 0 && t + S * G < tiles)
            issue(t + S * G, s);
        if (++s == S) {
            s = 0;
            phase ^= 1u;
        }
    }
    if (WL == CML_AC_REDUCE)
        reduce_epilogue(acc, static_cast<double *>(out));
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
