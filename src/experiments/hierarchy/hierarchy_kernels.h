/*
 * The hierarchy experiment's kernels, launchers and checkers (nvcc only):
 * the bodies of hierarchy_body.h, which includes this file at its end
 * under __CUDACC__, as kernels; the file the build generates for the
 * folder compiles them (cmake/experiments.cmake).
 */
#ifndef CML_HIERARCHY_KERNELS_H
#define CML_HIERARCHY_KERNELS_H

/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

#define ROW CML_HIER_BLOCK /* words per row */

/* The whole walk (parts = 0) and, with SMALL = 0, the sliced write and copy too. */
template <int OP, int PATH, int SMALL>
__global__ void __launch_bounds__(CML_HIER_BLOCK)
    hier_bw(const uint32_t *A, uint32_t *C, uint32_t *out, uint64_t rows, uint64_t per_block,
            uint32_t grid, uint32_t key, uint64_t parts, uint64_t chunk, int sums)
{
    (void)chunk;
    cml_hier_bw_body(CML_KERNEL_CTX, OP, PATH, SMALL, 0, SMALL ? 0 : parts, 0, 0, sums, A, C, out,
                     rows, per_block, grid, key);
}

template <int OP, int PATH>
__global__ void __launch_bounds__(CML_HIER_BLOCK)
    hier_bw_stream(const uint32_t *A, uint32_t *C, uint32_t *out, uint64_t rows,
                   uint64_t per_block, uint32_t grid, uint32_t key, uint64_t parts,
                   uint64_t chunk, int sums)
{
    (void)parts;
    (void)chunk;
    cml_hier_bw_body(CML_KERNEL_CTX, OP, PATH, 0, 1, 0, 0, 0, sums, A, C, out, rows, per_block,
                     grid, key);
}

/* The sliced read: gpu-l2-cache's blocks of 1024 threads, two resident on
 * an SM of 2048 threads as its are: 32 registers a thread at most (42
 * unbounded left one block an SM, which idles between blocks: 8-26% below
 * gpu-l2-cache on an H200, bench/results/h200/2026-11-29-slice-chunks/).
 * The SMs of 1024 or 1536 threads (sm_75, sm_86, sm_87, sm_89, sm_12x)
 * hold one such block whatever its registers. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 700 || __CUDA_ARCH__ == 720 || \
                               __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || \
                               __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030)
#define CML_HIER_CHUNK_RESIDENT 2
#else
#define CML_HIER_CHUNK_RESIDENT 1
#endif
template <int PATH, int ROTATE>
__global__ void __launch_bounds__(CML_HIER_CHUNK_BLOCK, CML_HIER_CHUNK_RESIDENT)
    hier_chunk_read(const uint32_t *A, uint32_t *C, uint32_t *out, uint64_t rows,
                    uint64_t per_block, uint32_t grid, uint32_t key, uint64_t parts,
                    uint64_t chunk, int sums)
{
    cml_hier_bw_body(CML_KERNEL_CTX, CML_HIER_READ, PATH, 0, 0, parts, chunk, ROTATE, sums, A,
                     C, out, rows, per_block, grid, key);
}

typedef void (*bw_kernel)(const uint32_t *, uint32_t *, uint32_t *, uint64_t, uint64_t, uint32_t,
                          uint32_t, uint64_t, uint64_t, int);

/* [op][path][small: 0, 1, 2, 4, 8 as index 0..4]; write and copy ignore the path. */
#define SMALLS(OP, PATH)                                                                    \
    {hier_bw<OP, PATH, 0>, hier_bw<OP, PATH, 1>, hier_bw<OP, PATH, 2>, hier_bw<OP, PATH, 4>, \
     hier_bw<OP, PATH, 8>}
static const bw_kernel read_kernels[CML_HIER_PATH_COUNT][5] = {
    SMALLS(CML_HIER_READ, CML_HIER_CA), SMALLS(CML_HIER_READ, CML_HIER_CG),
    SMALLS(CML_HIER_READ, CML_HIER_NC)};
static const bw_kernel write_kernels[5] = SMALLS(CML_HIER_WRITE, CML_HIER_CA);
static const bw_kernel copy_kernels[5] = SMALLS(CML_HIER_COPY, CML_HIER_CA);
/* [path][rotate: cml_hier_chunk_rotates] */
static const bw_kernel chunk_read_kernels[CML_HIER_PATH_COUNT][2] = {
    {hier_chunk_read<CML_HIER_CA, 0>, hier_chunk_read<CML_HIER_CA, 1>},
    {hier_chunk_read<CML_HIER_CG, 0>, hier_chunk_read<CML_HIER_CG, 1>},
    {hier_chunk_read<CML_HIER_NC, 0>, hier_chunk_read<CML_HIER_NC, 1>}};
static const bw_kernel stream_read_kernels[CML_HIER_PATH_COUNT] = {
    hier_bw_stream<CML_HIER_READ, CML_HIER_CA>, hier_bw_stream<CML_HIER_READ, CML_HIER_CG>,
    hier_bw_stream<CML_HIER_READ, CML_HIER_NC>};

static int small_index(uint64_t rows)
{
    static const int index[9] = {0, 1, 2, 0, 3, 0, 0, 0, 4};
    return index[cml_hier_small_rows(rows)];
}

static bw_kernel pick(int op, int path, uint64_t rows, int stream, uint64_t chunk,
                      uint64_t per_block)
{
    if (path < 0 || path >= CML_HIER_PATH_COUNT)
        return NULL;
    if (chunk)
        return op == CML_HIER_READ && !stream
                   ? chunk_read_kernels[path][cml_hier_chunk_rotates(chunk, per_block)]
                   : NULL;
    if (stream) {
        switch (op) {
        case CML_HIER_READ: return stream_read_kernels[path];
        case CML_HIER_WRITE: return hier_bw_stream<CML_HIER_WRITE, CML_HIER_CA>;
        case CML_HIER_COPY: return hier_bw_stream<CML_HIER_COPY, CML_HIER_CA>;
        default: return NULL;
        }
    }
    int s = small_index(rows);
    switch (op) {
    case CML_HIER_READ: return read_kernels[path][s];
    case CML_HIER_WRITE: return write_kernels[s];
    case CML_HIER_COPY: return copy_kernels[s];
    default: return NULL;
    }
}

extern "C" const void *cml_hier_bw_kernel(int op, int path, uint64_t rows, int stream,
                                          uint64_t chunk, uint64_t per_block)
{
    return (const void *)pick(op, path, rows, stream, chunk, per_block);
}

/* The arguments a kernel may run with: a walk of whole steps over arrays
 * that exist, on the arrays its operation uses. */
static int bw_args_ok(const cml_hier_bw_args *a)
{
    if (!a || !pick(a->op, a->path, a->rows, a->stream, a->chunk, a->per_block) || a->rows == 0 ||
        a->grid == 0 || a->per_block == 0 || a->per_block % CML_HIER_STEP != 0 ||
        (a->stream && a->rows < a->grid))
        return 0;
    if (a->chunk) /* the sliced read: whole chunks, 16 loads a thread a step */
        return a->parts && a->rows / a->parts / CML_HIER_STEP == a->chunk &&
               a->rows % (a->parts * CML_HIER_STEP) == 0 &&
               a->per_block % (CML_HIER_STEP * CML_HIER_CHUNK_BLOCK / CML_HIER_BLOCK) == 0 &&
               a->A && a->out;
    if (a->parts && (a->op == CML_HIER_READ || a->stream || a->rows % a->parts != 0 ||
                     a->rows / a->parts < CML_HIER_STEP))
        return 0; /* (a sliced read is the chunks') */
    if (a->op == CML_HIER_READ)
        return a->A && a->out;
    if (a->op == CML_HIER_WRITE)
        return a->C != NULL;
    return a->A && a->C;
}

extern "C" cml_status cml_hier_bw_launch(void *vctx)
{
    const cml_hier_bw_args *a = (const cml_hier_bw_args *)vctx;
    if (!bw_args_ok(a) || a->grid > 0x7FFFFFFFu)
        return CML_EINVAL;
    const bw_kernel k = pick(a->op, a->path, a->rows, a->stream, a->chunk, a->per_block);
    k<<<a->grid, cml_hier_bw_block(a->op, a->chunk)>>>(
        a->A, a->C, a->out, a->rows, a->per_block, a->grid, a->key, a->parts, a->chunk,
        a->sums);
    CML_CU_LAUNCH();
    return CML_OK;
}

__device__ void count_bad(unsigned long long *bad, unsigned long long *first, uint64_t j)
{
    atomicAdd(bad, 1ull);
    atomicMin(first, (unsigned long long)j);
}

/* Read: thread (b, t) walked rows (start + j) mod rows, j < per_block: q
 * whole passes over every row and `rem` rows from its start (the sliced
 * read: its chunk's words, load by load). The sum is recomputed from the
 * fill's formula, not from the array. */
__global__ void hier_read_check(const uint32_t *out, uint64_t rows, uint64_t per_block,
                                uint32_t grid, int stream, uint64_t parts, uint64_t chunk,
                                uint64_t seed, unsigned long long *bad,
                                unsigned long long *first)
{
    if (chunk) { /* the sliced read: every thread's loads, one by one */
        const uint64_t loads = per_block * CML_HIER_BLOCK / CML_HIER_CHUNK_BLOCK;
        for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
             j < (uint64_t)grid * CML_HIER_CHUNK_BLOCK; j += (uint64_t)gridDim.x * blockDim.x) {
            const uint64_t b = j / CML_HIER_CHUNK_BLOCK, T = j % CML_HIER_CHUNK_BLOCK;
            uint32_t want = 0;
            for (uint64_t k = 0; k < loads; k++)
                want += cml_hier_input_word(seed, cml_hier_chunk_word(b, T, parts, chunk, k));
            if (out[j] != want)
                count_bad(bad, first, j);
        }
        return;
    }
    if (stream) { /* each thread's own words, one by one */
        for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
             j < (uint64_t)grid * ROW; j += (uint64_t)gridDim.x * blockDim.x) {
            uint32_t want = 0;
            for (uint64_t k = 0; k < per_block; k++)
                want += cml_hier_input_word(seed, cml_hier_stream_word(j / ROW, j % ROW, grid,
                                                                       rows, k));
            if (out[j] != want)
                count_bad(bad, first, j);
        }
        return;
    }
    const uint64_t threads = (uint64_t)grid * ROW;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < threads;
         j += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t b = j / ROW, t = j % ROW;
        uint32_t want = 0;
        const uint64_t q = per_block / rows, rem = per_block % rows;
        uint32_t pass = 0, part = 0;
        if (q)
            for (uint64_t r = 0; r < rows; r++)
                pass += cml_hier_input_word(seed, r * ROW + t);
        for (uint64_t k = 0; k < rem; k++)
            part += cml_hier_input_word(seed, cml_hier_row(b, grid, rows, k) * ROW + t);
        want = (uint32_t)q * pass + part;
        if (out[j] != want)
            count_bad(bad, first, j);
    }
}

/* Write and copy: every word of C. */
__global__ void hier_store_check(const uint32_t *C, uint64_t words, int op, uint32_t key,
                                 uint64_t seed, unsigned long long *bad, unsigned long long *first)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < words;
         j += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t want = op == CML_HIER_WRITE ? cml_hier_write_value(j, key)
                                                   : cml_hier_input_word(seed, j);
        if (C[j] != want)
            count_bad(bad, first, j);
    }
}

extern "C" cml_status cml_hier_bw_check(const cml_hier_bw_args *a, uint64_t seed,
                                        unsigned long long *d_counters)
{
    if (!bw_args_ok(a) || !d_counters)
        return CML_EINVAL;
    if (a->op == CML_HIER_READ)
        hier_read_check<<<1024, 256>>>(a->out, a->rows, a->per_block, a->grid, a->stream,
                                       a->parts, a->chunk, seed, d_counters, d_counters + 1);
    else
        hier_store_check<<<1024, 256>>>(a->C, a->rows * ROW, a->op, a->key, seed, d_counters,
                                        d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* ---- latency ------------------------------------------------------------ */

__global__ void hier_build(uint64_t *table, cml_hier_perm perm, uint64_t hop_words)
{
    for (uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; p < perm.m;
         p += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t s;
        const uint64_t n = cml_hier_chase_link(&perm, p, &s);
        table[s * hop_words] = (uint64_t)(uintptr_t)(table + n * hop_words);
    }
}

extern "C" cml_status cml_hier_chase_build(uint64_t *table, const cml_hier_perm *perm,
                                           uint64_t hop_words)
{
    if (!table || !perm || perm->m < 2 || hop_words == 0)
        return CML_EINVAL;
    hier_build<<<1024, 256>>>(table, *perm, hop_words);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* A warp a block: every lane follows the same pointers (one request and
 * one sector per hop), lane 0 reports. */
template <int PATH>
__global__ void hier_chase(uint64_t *cursor, uint64_t *out, uint64_t hops)
{
    cml_hier_chase_body(CML_KERNEL_CTX, PATH, cursor, out, hops, NULL, 0);
}

typedef void (*chase_kernel)(uint64_t *, uint64_t *, uint64_t);
static const chase_kernel chases[CML_HIER_PATH_COUNT] = {
    hier_chase<CML_HIER_CA>, hier_chase<CML_HIER_CG>, hier_chase<CML_HIER_NC>};

extern "C" const void *cml_hier_chase_kernel(int path)
{
    return path >= 0 && path < CML_HIER_PATH_COUNT ? (const void *)chases[path] : NULL;
}

/* The chase wants the whole L1 as cache (no shared memory carved out), as
 * a latency benchmark on its own would get; a per-kernel preference, set
 * once, not a device-wide setting. */
static cml_status prefer_l1(const void *fn, int *done)
{
    if (*done)
        return CML_OK;
    CML_CU(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                (int)cudaSharedmemCarveoutMaxL1));
    *done = 1;
    return CML_OK;
}

/* A chase launch's shape: cursors and output, whole steps of hops, warps
 * and path in range (the chase's output 16-byte words, aligned). */
static int chase_shape_ok(const void *cursor, const void *out, uint64_t hops, uint32_t warps,
                          int path)
{
    return cursor && out && hops != 0 && hops % CML_HIER_STEP == 0 && warps != 0 &&
           warps <= CML_HIER_CHASE_MAX_WARPS && path >= 0 && path < CML_HIER_PATH_COUNT;
}

extern "C" cml_status cml_hier_chase_launch(void *vctx)
{
    const cml_hier_chase_args *a = (const cml_hier_chase_args *)vctx;
    if (!a || !chase_shape_ok(a->cursor, a->out, a->hops, a->warps, a->path) ||
        ((uintptr_t)a->out & 15u) != 0)
        return CML_EINVAL;
    static int preferred[CML_HIER_PATH_COUNT];
    cml_status st = prefer_l1((const void *)chases[a->path], &preferred[a->path]);
    if (st != CML_OK)
        return st;
    chases[a->path]<<<a->warps, CML_WARP_SIZE>>>(a->cursor, a->out, a->hops);
    CML_CU_LAUNCH();
    return CML_OK;
}

template <int PATH>
__global__ void hier_chase_hist(uint64_t *cursor, uint32_t *hist, uint64_t hops)
{
    cml_hier_chase_hist_body(CML_KERNEL_CTX, PATH, cursor, hist, hops, NULL, 0);
}

typedef void (*hist_kernel)(uint64_t *, uint32_t *, uint64_t);
static const hist_kernel hists[CML_HIER_PATH_COUNT] = {
    hier_chase_hist<CML_HIER_CA>, hier_chase_hist<CML_HIER_CG>, hier_chase_hist<CML_HIER_NC>};

extern "C" cml_status cml_hier_chase_hist_launch(const cml_hier_hist_args *a)
{
    if (!a || !chase_shape_ok(a->cursor, a->hist, a->hops, a->warps, a->path))
        return CML_EINVAL;
    static int preferred[CML_HIER_PATH_COUNT]; /* as the chase: the whole L1 as cache */
    cml_status st = prefer_l1((const void *)hists[a->path], &preferred[a->path]);
    if (st != CML_OK)
        return st;
    hists[a->path]<<<a->warps, CML_WARP_SIZE>>>(a->cursor, a->hist, a->hops);
    CML_CU_LAUNCH();
    return CML_OK;
}

#undef ROW

#endif
