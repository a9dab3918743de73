/*
 * The hierarchy experiment's kernels (docs/experiments/hierarchy.md).
 *
 * Bandwidth: every block of CML_HIER_BLOCK threads walks `per_block` rows of
 * the working set from its own first row (hierarchy_kernels.h), 16 rows per
 * unrolled step, each thread loading or storing one 4-byte word per row: a
 * warp instruction is 128 contiguous bytes. The loads are inline PTX
 * (ld.global.ca / .cg / .nc), volatile (the stores too) so that the compiler neither drops nor
 * hoists a re-read of the same address: a working set smaller than what a
 * launch walks is re-read many times inside the kernel, which is what makes
 * a small working set measure L1 or L2 rather than the launch.
 *   read:  acc += word (mod 2^32) over the walk; out[thread] = acc
 *   write: C[i] = cml_hier_write_value(i, key)
 *   copy:  C[i] = A[i]
 * Latency: one warp follows pointers, `p = *p`, all lanes on the same
 * address, timed inside the kernel with clock64 and %globaltimer.
 *
 * The C mirror in hierarchy_model.c emits exactly these accesses.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "experiments/hierarchy/hierarchy_kernels.h"
#include "gpu/gpu_internal.h"

template <int PATH>
__device__ __forceinline__ uint32_t ld32(const uint32_t *p)
{
    uint32_t v;
    if (PATH == CML_HIER_CA)
        asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
    else if (PATH == CML_HIER_CG)
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    else
        asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

template <int PATH>
__device__ __forceinline__ uint64_t ld64(const uint64_t *p)
{
    uint64_t v;
    if (PATH == CML_HIER_CA)
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p));
    else if (PATH == CML_HIER_CG)
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
    else
        asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
}

/* Stores are volatile too: the small arrays' steps store to the same word
 * several times, and a compiler may keep only the last of plain stores. */
__device__ __forceinline__ void st32(uint32_t *p, uint32_t v)
{
    asm volatile("st.global.u32 [%0], %1;" : : "l"(p), "r"(v));
}

#define ROW CML_HIER_BLOCK /* words per row */

/* What one thread does with one row: OP at word p (and q, copy). */
template <int OP, int PATH>
struct row_op {
    __device__ __forceinline__ static void step16(const uint32_t *p, uint32_t *q, uint64_t i,
                                                  uint32_t key, uint32_t &acc, const int *offs)
    {
        if (OP == CML_HIER_READ) {
            uint32_t v[CML_HIER_STEP];
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                v[u] = ld32<PATH>(p + offs[u]);
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                acc += v[u];
        } else if (OP == CML_HIER_WRITE) {
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                st32(q + offs[u], cml_hier_write_value(i + (uint64_t)offs[u], key));
        } else {
            uint32_t v[CML_HIER_STEP];
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                v[u] = ld32<CML_HIER_CA>(p + offs[u]);
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                st32(q + offs[u], v[u]);
        }
    }
    __device__ __forceinline__ static void one(const uint32_t *p, uint32_t *q, uint64_t i,
                                               uint32_t key, uint32_t &acc)
    {
        if (OP == CML_HIER_READ)
            acc += ld32<PATH>(p);
        else if (OP == CML_HIER_WRITE)
            st32(q, cml_hier_write_value(i, key));
        else
            st32(q, ld32<CML_HIER_CA>(p));
    }
};

/* The walk (hierarchy_kernels.h). SMALL: an array of SMALL rows (1, 2, 4,
 * 8), each step covering 16 / SMALL whole passes from row 0; 0: any array,
 * in segments up to the array's end, 16 rows per step and one at a time
 * for a segment's last rows when it is not a multiple of 16. */
template <int OP, int PATH, int SMALL>
__global__ void __launch_bounds__(CML_HIER_BLOCK)
    hier_bw(const uint32_t *A, uint32_t *C, uint32_t *out, uint64_t rows, uint64_t per_block,
            uint32_t grid, uint32_t key)
{
    const unsigned t = threadIdx.x;
    uint32_t acc = 0;
    if (SMALL) {
        int offs[CML_HIER_STEP];
#pragma unroll
        for (int u = 0; u < (int)CML_HIER_STEP; u++)
            offs[u] = (u % (SMALL ? SMALL : 1)) * (int)ROW;
        for (uint64_t j = 0; j < per_block; j += CML_HIER_STEP)
            row_op<OP, PATH>::step16(A + t, C + t, t, key, acc, offs);
    } else {
        int offs[CML_HIER_STEP];
#pragma unroll
        for (int u = 0; u < (int)CML_HIER_STEP; u++)
            offs[u] = u * (int)ROW;
        uint64_t r = cml_hier_block_start(blockIdx.x, grid, rows);
        uint64_t left = per_block;
        while (left > 0) {
            const uint64_t seg = rows - r < left ? rows - r : left;
            uint64_t i = r * ROW + t;
            uint64_t k = 0;
            for (; k + CML_HIER_STEP <= seg; k += CML_HIER_STEP, i += CML_HIER_STEP * ROW)
                row_op<OP, PATH>::step16(A + i, C + i, i, key, acc, offs);
            for (; k < seg; k++, i += ROW)
                row_op<OP, PATH>::one(A + i, C + i, i, key, acc);
            left -= seg;
            r = 0;
        }
    }
    if (OP == CML_HIER_READ)
        out[(uint64_t)blockIdx.x * ROW + t] = acc;
}

/* The partitioned walk (cml_hier_stream_word): a grid-stride loop, 16
 * loads in flight per thread, the index stepped by T and wrapped once at W
 * (T <= W) rather than divided. */
template <int OP, int PATH>
__global__ void __launch_bounds__(CML_HIER_BLOCK)
    hier_bw_stream(const uint32_t *A, uint32_t *C, uint32_t *out, uint64_t rows,
                   uint64_t per_block, uint32_t grid, uint32_t key)
{
    const uint64_t T = (uint64_t)grid * ROW, W = rows * ROW;
    uint64_t i = (uint64_t)blockIdx.x * ROW + threadIdx.x;
    uint32_t acc = 0;
    for (uint64_t j = 0; j < per_block; j += CML_HIER_STEP) {
        uint64_t idx[CML_HIER_STEP];
#pragma unroll
        for (int u = 0; u < (int)CML_HIER_STEP; u++) {
            idx[u] = i;
            i += T;
            if (i >= W)
                i -= W;
        }
        if (OP == CML_HIER_WRITE) {
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                st32(C + idx[u], cml_hier_write_value(idx[u], key));
        } else {
            constexpr int LP = OP == CML_HIER_READ ? PATH : CML_HIER_CA;
            uint32_t v[CML_HIER_STEP];
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                v[u] = ld32<LP>(A + idx[u]);
#pragma unroll
            for (int u = 0; u < (int)CML_HIER_STEP; u++) {
                if (OP == CML_HIER_READ)
                    acc += v[u];
                else
                    st32(C + idx[u], v[u]);
            }
        }
    }
    if (OP == CML_HIER_READ)
        out[(uint64_t)blockIdx.x * ROW + threadIdx.x] = acc;
}

typedef void (*bw_kernel)(const uint32_t *, uint32_t *, uint32_t *, uint64_t, uint64_t, uint32_t,
                          uint32_t);

/* [op][path][small: 0, 1, 2, 4, 8 as index 0..4]; write and copy ignore the path. */
#define SMALLS(OP, PATH)                                                                    \
    {hier_bw<OP, PATH, 0>, hier_bw<OP, PATH, 1>, hier_bw<OP, PATH, 2>, hier_bw<OP, PATH, 4>, \
     hier_bw<OP, PATH, 8>}
static const bw_kernel read_kernels[CML_HIER_PATH_COUNT][5] = {
    SMALLS(CML_HIER_READ, CML_HIER_CA), SMALLS(CML_HIER_READ, CML_HIER_CG),
    SMALLS(CML_HIER_READ, CML_HIER_NC)};
static const bw_kernel write_kernels[5] = SMALLS(CML_HIER_WRITE, CML_HIER_CA);
static const bw_kernel copy_kernels[5] = SMALLS(CML_HIER_COPY, CML_HIER_CA);
static const bw_kernel stream_read_kernels[CML_HIER_PATH_COUNT] = {
    hier_bw_stream<CML_HIER_READ, CML_HIER_CA>, hier_bw_stream<CML_HIER_READ, CML_HIER_CG>,
    hier_bw_stream<CML_HIER_READ, CML_HIER_NC>};

static int small_index(uint64_t rows)
{
    switch (cml_hier_small_rows(rows)) {
    case 1: return 1;
    case 2: return 2;
    case 4: return 3;
    case 8: return 4;
    default: return 0;
    }
}

static bw_kernel pick(int op, int path, uint64_t rows, int stream)
{
    if (path < 0 || path >= CML_HIER_PATH_COUNT)
        return NULL;
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

extern "C" const void *cml_hier_bw_kernel(int op, int path, uint64_t rows, int stream)
{
    return (const void *)pick(op, path, rows, stream);
}

/* The arguments a kernel may run with: a walk of whole steps over arrays
 * that exist, on the arrays its operation uses. */
static int bw_args_ok(const cml_hier_bw_args *a)
{
    if (!a || !pick(a->op, a->path, a->rows, a->stream) || a->rows == 0 || a->grid == 0 ||
        a->per_block == 0 || a->per_block % CML_HIER_STEP != 0 ||
        (a->stream && a->rows < a->grid))
        return 0;
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
    pick(a->op, a->path, a->rows, a->stream)<<<a->grid, CML_HIER_BLOCK>>>(a->A, a->C, a->out, a->rows,
                                                              a->per_block, a->grid, a->key);
    CML_CU_LAUNCH();
    return CML_OK;
}

__device__ void count_bad(unsigned long long *bad, unsigned long long *first, uint64_t j)
{
    atomicAdd(bad, 1ull);
    atomicMin(first, (unsigned long long)j);
}

/* Read: thread (b, t) walked rows (start + j) mod rows, j < per_block: q
 * whole passes over every row and `rem` rows from its start. The sum is
 * recomputed from the fill's formula, not from the array. */
__global__ void hier_read_check(const uint32_t *out, uint64_t rows, uint64_t per_block,
                                uint32_t grid, int stream, uint64_t seed,
                                unsigned long long *bad, unsigned long long *first)
{
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
        const uint64_t q = per_block / rows, rem = per_block % rows;
        uint32_t pass = 0, part = 0;
        if (q)
            for (uint64_t r = 0; r < rows; r++)
                pass += cml_hier_input_word(seed, r * ROW + t);
        for (uint64_t k = 0; k < rem; k++)
            part += cml_hier_input_word(seed, cml_hier_row(b, grid, rows, k) * ROW + t);
        const uint32_t want = (uint32_t)q * pass + part;
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
        hier_read_check<<<1024, 256>>>(a->out, a->rows, a->per_block, a->grid, a->stream, seed,
                                       d_counters, d_counters + 1);
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
        const uint64_t s = cml_hier_perm_apply(&perm, p);
        const uint64_t n = cml_hier_perm_apply(&perm, p + 1 == perm.m ? 0 : p + 1);
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

__device__ __forceinline__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One warp: every lane follows the same pointers (one request and one
 * sector per hop), lane 0 reports. */
template <int PATH>
__global__ void hier_chase(uint64_t *cursor, uint64_t *out, uint64_t hops)
{
    uint64_t p = ld64<PATH>(cursor);
    const uint64_t start = p;
    for (uint64_t k = 0; k < hops * (CML_HIER_CHASE_WALKS - 1); k += CML_HIER_STEP) {
#pragma unroll
        for (int u = 0; u < (int)CML_HIER_STEP; u++)
            p = ld64<PATH>((const uint64_t *)(uintptr_t)p);
    }
    const long long c0 = clock64();
    const uint64_t t0 = global_ns();
    for (uint64_t k = 0; k < hops; k += CML_HIER_STEP) {
#pragma unroll
        for (int u = 0; u < (int)CML_HIER_STEP; u++)
            p = ld64<PATH>((const uint64_t *)(uintptr_t)p);
    }
    const long long c1 = clock64();
    const uint64_t t1 = global_ns();
    if (threadIdx.x == 0) {
        ulonglong2 *o = (ulonglong2 *)out;
        o[0] = make_ulonglong2(start, p);
        o[1] = make_ulonglong2((unsigned long long)(c1 - c0), t1 - t0);
        *cursor = p;
    }
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
static cml_status prefer_l1(const void *fn)
{
    CML_CU(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                (int)cudaSharedmemCarveoutMaxL1));
    return CML_OK;
}

extern "C" cml_status cml_hier_chase_launch(void *vctx)
{
    const cml_hier_chase_args *a = (const cml_hier_chase_args *)vctx;
    if (!a || !a->cursor || !a->out || a->hops == 0 || a->hops % CML_HIER_STEP != 0 ||
        a->path < 0 || a->path >= CML_HIER_PATH_COUNT || ((uintptr_t)a->out & 15u) != 0)
        return CML_EINVAL;
    static int preferred[CML_HIER_PATH_COUNT];
    if (!preferred[a->path]) {
        cml_status st = prefer_l1((const void *)chases[a->path]);
        if (st != CML_OK)
            return st;
        preferred[a->path] = 1;
    }
    chases[a->path]<<<1, CML_WARP_SIZE>>>(a->cursor, a->out, a->hops);
    CML_CU_LAUNCH();
    return CML_OK;
}
