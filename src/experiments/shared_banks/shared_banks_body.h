/*
 * Experiment 12: the shared-memory bank kernels: a W x H tile written and
 * read by rows or columns `iters` times (static tiles for the textbook's
 * shapes and pads 0-2, a dynamic tile for any pad), one shared store and
 * load per lane at a stride of 4-, 8- or 16-byte elements, and a checker
 * that recomputes every output word.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that shared_banks.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (shared_banks.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * Each body repeats its shared accesses `iters` times so that the time is
 * spent in shared memory, not in launching or in global memory; every round
 * feeds the next (v), so the compiler can drop none of them. Sites: 0 the
 * shared store, 1 the shared load (one of each per round), 2 the global
 * store. The mirror runs one round (iters = 1): every round issues the same
 * warp instructions, and the experiment multiplies. The tile arithmetic the
 * kernels, the checker and the host reference share is here too.
 */
#ifndef CML_SHARED_BANKS_BODY_H
#define CML_SHARED_BANKS_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "core/random.h" /* CML_HD */
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per thread t of a W x H tile with rows of P words: the word it writes
 * ("row" = tile[t / W][t % W], "col" = tile[t % H][t / H]) and reads. */
CML_HD unsigned cml_banks_cell(unsigned t, unsigned W, unsigned H, unsigned P, int col)
{
    return col ? (t % H) * P + t / H : (t / W) * P + t % W;
}

/* The thread that wrote cell c (the inverse of cml_banks_cell). */
CML_HD unsigned cml_banks_writer(unsigned c, unsigned W, unsigned H, unsigned P, int col)
{
    return col ? (c % P) * H + c / P : (c / P) * W + c % P;
}

/*
 * The value thread t of block b leaves in out[] after `iters` rounds of
 * "tile[wr(t)] = v; sync; v = tile[rd(t)] + 1; sync" starting from v = its
 * out[] index b*W*H + t: round k gives thread t the value of thread
 * writer(rd(t)) plus one, so the result is that index chased `iters` times,
 * plus iters.
 */
CML_HD uint32_t cml_banks_tile_value(uint64_t b, unsigned t, unsigned W, unsigned H, unsigned P,
                                     int write_col, int read_col, unsigned iters)
{
    unsigned x = t;
    for (unsigned k = 0; k < iters; k++)
        x = cml_banks_writer(cml_banks_cell(x, W, H, P, read_col), W, H, P, write_col);
    return (uint32_t)(b * W * H + x + iters);
}

typedef struct cml_banks_launch_args {
    unsigned *out;     /* tile: blocks*W*H words; stride: blocks*block*elem/4 words */
    uint64_t blocks;
    unsigned iters;
    int stride_kind;   /* 0: tile, 1: stride */
    /* tile */
    unsigned W, H, P;
    int write_col, read_col;
    int dynamic;       /* 0: static shared memory (W, H in {32x32, 32x16, 16x32}, P - W <= 2) */
    /* stride */
    unsigned elem;     /* 4, 8 or 16 */
    unsigned stride;   /* elements */
    unsigned block;    /* threads, a multiple of 32 (cml_banks_stride_block) */
    /* dynamic shared memory to launch with: 0, the kernel's own
     * (cml_banks_smem); more: cml_gpu_one_block_per_sm's figure */
    size_t smem;
} cml_banks_launch_args;

/* Threads per block of a stride kernel: up to 8 warps, as many as keep the
 * block's shared memory (block * stride * elem bytes) within 48 KiB. */
static inline unsigned cml_banks_stride_block(unsigned elem, unsigned stride)
{
    const unsigned per_warp = 32u * stride * elem;
    unsigned warps = per_warp ? 49152u / per_warp : 0;
    if (warps < 1)
        warps = 1;
    if (warps > 8)
        warps = 8;
    return 32u * warps;
}

/* Words of out[] a launch writes. */
static inline uint64_t cml_banks_out_words(const cml_banks_launch_args *a)
{
    return a->stride_kind ? a->blocks * a->block * (a->elem / 4u)
                          : a->blocks * (uint64_t)a->W * a->H;
}

/* 1 if a static kernel exists for this tile (else use dynamic). */
CML_LAUNCHER int cml_banks_has_static(unsigned W, unsigned H, unsigned P);
/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for a shape, pad, element size or stride out of range, or a
 * static tile that was not compiled. */
CML_LAUNCHER cml_status cml_banks_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: none). */
CML_LAUNCHER const void *cml_banks_kernel(const cml_banks_launch_args *a);
/* Dynamic shared memory of a launch (bytes). */
CML_LAUNCHER size_t cml_banks_smem(const cml_banks_launch_args *a);
/* Count wrong words of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong index into d_counters[1] (all ones): tile word
 * g must be cml_banks_tile_value of its block and thread, stride word w
 * must be w + iters, every word past cml_banks_out_words the poison. */
CML_LAUNCHER cml_status cml_banks_check(const cml_banks_launch_args *a, uint64_t cap,
                                        unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

typedef enum cml_banks_kind {
    CML_BANKS_TILE = 0, /* a W x H word tile written and read by rows or columns */
    CML_BANKS_STRIDE    /* s[t * stride] of 4-, 8- or 16-byte elements          */
} cml_banks_kind;

typedef struct cml_banks_args {
    cml_banks_kind kind;
    /* tile */
    unsigned W, H;       /* tile columns (= blockDim.x) and rows (= blockDim.y) */
    unsigned P;          /* padded row length in words: W + pad                 */
    int write_col, read_col;
    /* stride */
    unsigned elem;       /* element bytes: 4, 8 or 16 */
    unsigned stride;     /* in elements               */
} cml_banks_args;

/* The mirror emits ONE round of a kernel's loop (sites 0 and 1) and the
 * final global store (site 2): every round issues the same warp
 * instructions, so the experiment multiplies the shared classes by the
 * round count `iters`, which is exact.
 * Tiles: works for the GPU's 2-D block (W, H) and for a 1-D block of W*H
 * threads (both number threads x fastest, so the warps are the same).
 * Strides: a 1-D block of any multiple of 32 threads. */
void cml_banks_mirror(const cml_thread *t, const void *args, cml_emitter *e);

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

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

/* The dynamic shared memory of every kernel in this file (one declaration:
 * extern __shared__ arrays of one translation unit must agree), aligned for
 * the 16-byte accesses. */
extern __shared__ __align__(16) unsigned smem_dyn[];

/* Static tiles: the textbook's tile[H][P], flattened (same offsets). */
#define TILE_STATIC(W, H, P)                                                                 \
    __global__ void smem_tile_##W##x##H##_p##P(unsigned *__restrict__ out, int write_col,    \
                                               int read_col, int iters)                      \
    {                                                                                        \
        __shared__ unsigned tile[(H) * (P)];                                                 \
        cml_banks_tile_body(CML_KERNEL_CTX, tile, W, H, P, out, write_col, read_col, iters); \
    }

TILE_STATIC(32, 32, 32)
TILE_STATIC(32, 32, 33)
TILE_STATIC(32, 32, 34)
TILE_STATIC(32, 16, 32)
TILE_STATIC(32, 16, 33)
TILE_STATIC(32, 16, 34)
TILE_STATIC(16, 32, 16)
TILE_STATIC(16, 32, 17)
TILE_STATIC(16, 32, 18)

/* The dynamic tile: H * P words of dynamic shared memory, any pad. */
__global__ void smem_tile_dyn(unsigned *__restrict__ out, unsigned W, unsigned H, unsigned P,
                              int write_col, int read_col, int iters)
{
    cml_banks_tile_body(CML_KERNEL_CTX, smem_dyn, W, H, P, out, write_col, read_col, iters);
}

typedef void (*tile_kernel)(unsigned *, int, int, int);

static tile_kernel pick_static(unsigned W, unsigned H, unsigned P)
{
    static const struct { unsigned W, H, P; tile_kernel k; } table[] = {
        {32, 32, 32, smem_tile_32x32_p32}, {32, 32, 33, smem_tile_32x32_p33},
        {32, 32, 34, smem_tile_32x32_p34}, {32, 16, 32, smem_tile_32x16_p32},
        {32, 16, 33, smem_tile_32x16_p33}, {32, 16, 34, smem_tile_32x16_p34},
        {16, 32, 16, smem_tile_16x32_p16}, {16, 32, 17, smem_tile_16x32_p17},
        {16, 32, 18, smem_tile_16x32_p18},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].W == W && table[i].H == H && table[i].P == P)
            return table[i].k;
    return NULL;
}

extern "C" int cml_banks_has_static(unsigned W, unsigned H, unsigned P)
{
    return pick_static(W, H, P) != NULL;
}

/* Strides: the bodies' volatile shared accesses, in dynamic shared memory. */
__global__ void smem_stride_4(unsigned *__restrict__ out, int stride, int iters)
{
    cml_banks_stride4_body(CML_KERNEL_CTX, CML_SHARED_SPACE(smem_dyn), out, stride, iters);
}

__global__ void smem_stride_8(unsigned *__restrict__ out, int stride, int iters)
{
    cml_banks_stride8_body(CML_KERNEL_CTX, CML_SHARED_SPACE(smem_dyn), out, stride, iters);
}

__global__ void smem_stride_16(unsigned *__restrict__ out, int stride, int iters)
{
    cml_banks_stride16_body(CML_KERNEL_CTX, CML_SHARED_SPACE(smem_dyn), out, stride, iters);
}

typedef void (*stride_kernel)(unsigned *, int, int);

static stride_kernel pick_stride(unsigned elem)
{
    return elem == 4 ? smem_stride_4 : elem == 8 ? smem_stride_8 : elem == 16 ? smem_stride_16
                                                                              : NULL;
}

/* A dynamic tile: full warps, at most 1024 threads, at most 32 words of
 * padding per row. */
static int valid_tile(unsigned W, unsigned H, unsigned P)
{
    return W > 0 && H > 0 && W * H <= 1024 && (W * H) % 32 == 0 && P >= W && P - W <= 32;
}

extern "C" const void *cml_banks_kernel(const cml_banks_launch_args *a)
{
    if (a->stride_kind)
        return (const void *)pick_stride(a->elem);
    return a->dynamic ? (const void *)smem_tile_dyn : (const void *)pick_static(a->W, a->H, a->P);
}

extern "C" size_t cml_banks_smem(const cml_banks_launch_args *a)
{
    if (a->stride_kind)
        return (size_t)a->block * a->stride * a->elem;
    return a->dynamic ? (size_t)a->H * a->P * 4u : 0u;
}

extern "C" cml_status cml_banks_launch(void *vctx)
{
    const cml_banks_launch_args *a = (const cml_banks_launch_args *)vctx;
    if (a->blocks == 0 || a->blocks > 0x7fffffffull || a->iters > 0x7fffffffu)
        return CML_EINVAL;
    if (a->stride_kind) {
        stride_kernel k = pick_stride(a->elem);
        size_t smem = cml_banks_smem(a);
        if (!k || a->stride == 0 || a->block == 0 || a->block % 32 || a->block > 1024 ||
            smem > 49152 || (a->smem && a->smem < smem))
            return CML_EINVAL;
        k<<<(unsigned)a->blocks, a->block, a->smem ? a->smem : smem>>>(a->out, (int)a->stride,
                                                                        (int)a->iters);
    } else if (a->dynamic) {
        if (!valid_tile(a->W, a->H, a->P))
            return CML_EINVAL;
        if (a->smem && a->smem < cml_banks_smem(a))
            return CML_EINVAL;
        smem_tile_dyn<<<(unsigned)a->blocks, dim3(a->W, a->H),
                        a->smem ? a->smem : cml_banks_smem(a)>>>(
            a->out, a->W, a->H, a->P, a->write_col, a->read_col, (int)a->iters);
    } else {
        tile_kernel k = pick_static(a->W, a->H, a->P);
        if (!k)
            return CML_EINVAL;
        k<<<(unsigned)a->blocks, dim3(a->W, a->H), a->smem>>>(a->out, a->write_col,
                                                              a->read_col, (int)a->iters);
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/* Checker: every word of out[0, cap) against the value the contract
 * implies (tile: the chased index; stride: w + iters), poison past the
 * output. */
__global__ void banks_check(const unsigned *__restrict__ out, uint64_t cap, uint64_t words,
                            cml_banks_launch_args a, unsigned long long *bad,
                            unsigned long long *first_bad)
{
    const uint64_t cells = (uint64_t)a.W * a.H;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t want = 0xFFFFFFFFu;
        if (j < words)
            want = a.stride_kind ? (uint32_t)(j + a.iters)
                                 : cml_banks_tile_value(j / cells, (unsigned)(j % cells), a.W, a.H,
                                                        a.P, a.write_col, a.read_col, a.iters);
        if (out[j] != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_banks_check(const cml_banks_launch_args *a, uint64_t cap,
                                      unsigned long long *d_counters)
{
    if (!a->stride_kind && (a->W == 0 || a->H == 0))
        return CML_EINVAL;
    banks_check<<<1024, 256>>>(a->out, cap, cml_banks_out_words(a), *a, d_counters,
                               d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
