/*
 * Experiment 11: the warp-shuffle kernels: block and warp sums of unsigned
 * words (modulo 2^32, so every result is exact and order-independent) by a
 * shared-memory tree and by __shfl_down_sync, the four shuffles as
 * permutations of in[] into out[], a fill kernel for random words and a
 * checker that recomputes every output.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that shuffle.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (shuffle.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * Blocks are 1-D, a power of two from 32 to 1024 threads, so every warp is
 * full and threadIdx.x % 32 is the lane. All memory accesses plain; a
 * shuffle moves registers, no memory.
 */
#ifndef CML_SHUFFLE_BODY_H
#define CML_SHUFFLE_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operations of experiment 11 (the `op` parameter's choices, in order). */
typedef enum cml_shfl_op {
    CML_SHFL_REDUCE_SMEM = 0, /* block sum, tree in shared memory              */
    CML_SHFL_REDUCE_SHFL,     /* block sum, __shfl_down_sync + 32 words smem     */
    CML_SHFL_BROADCAST,       /* __shfl_sync(mask, v, src, width)               */
    CML_SHFL_UP,              /* __shfl_up_sync(mask, v, delta, width)          */
    CML_SHFL_DOWN,            /* __shfl_down_sync(mask, v, delta, width)        */
    CML_SHFL_XOR,             /* __shfl_xor_sync(mask, v, laneMask, width)      */
    CML_SHFL_WREDUCE_SMEM,    /* warp sum, warp-synchronous tree in shared mem  */
    CML_SHFL_WREDUCE_SHFL,    /* warp sum, five __shfl_down_sync                */
    CML_SHFL_OP_COUNT
} cml_shfl_op;

/* 1: the op is one of the four reductions. */
static inline int cml_shfl_is_reduction(cml_shfl_op op)
{
    return op == CML_SHFL_REDUCE_SMEM || op == CML_SHFL_REDUCE_SHFL ||
           op == CML_SHFL_WREDUCE_SMEM || op == CML_SHFL_WREDUCE_SHFL;
}

/* 1: a warp reduction (one sum per 32 elements), 0: a block or no reduction. */
static inline int cml_shfl_is_warp_reduction(cml_shfl_op op)
{
    return op == CML_SHFL_WREDUCE_SMEM || op == CML_SHFL_WREDUCE_SHFL;
}

typedef struct cml_shuffle_launch_args {
    const unsigned *in;  /* n words, cml_random_u32(seed, i) */
    unsigned *out;       /* cap words */
    uint64_t n, cap;
    unsigned block;      /* a power of two, 32..1024 */
    int op;              /* cml_shfl_op */
    int arg;             /* source lane, delta or lane mask (permutations) */
    int width;           /* 2..32, a power of two (permutations) */
    /* Source lane of each lane for the permutation (the checker's table,
     * filled by the host from cml_shfl_source: the model's reading of PTX). */
    unsigned char src[32];
} cml_shuffle_launch_args;

/* Words of out[] a launch writes: n (permutations), ceil(n/32) (warp sums),
 * ceil(n/block) (block sums). */
static inline uint64_t cml_shuffle_outputs(int op, uint64_t n, unsigned block)
{
    if (op == CML_SHFL_REDUCE_SMEM || op == CML_SHFL_REDUCE_SHFL)
        return block ? (n + block - 1) / block : 0;
    if (cml_shfl_is_warp_reduction((cml_shfl_op)op))
        return (n + 31) / 32;
    return n;
}

/* Fill p[0, n) with cml_random_u32(seed, i). */
CML_LAUNCHER cml_status cml_shuffle_fill_u32(unsigned *p, uint64_t n, uint64_t seed);
/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for a bad op, block, width or an argument out of 0..31. */
CML_LAUNCHER cml_status cml_shuffle_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: bad op). */
CML_LAUNCHER const void *cml_shuffle_kernel(int op);
/* Dynamic shared memory a launch uses (bytes). */
CML_LAUNCHER size_t cml_shuffle_smem(int op, unsigned block);
/* Count wrong words of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong index into d_counters[1] (all ones): each
 * output the op writes must be exact (sums modulo 2^32, permuted words bit
 * for bit, lanes past n reading 0), every other word the poison 0xFFFFFFFF. */
CML_LAUNCHER cml_status cml_shuffle_check(const cml_shuffle_launch_args *a, uint64_t seed,
                                          unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

typedef struct cml_shuffle_args {
    uint64_t n;
    cml_shfl_op op;
} cml_shuffle_args;

/* The reductions (REDUCE_*, WREDUCE_*) and the permutation kernels (the
 * others: in[] and out[] only, since a shuffle moves registers, not memory). */
void cml_shuffle_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* Source lane of lane `lane` for a shuffle op as PTX shfl.sync defines it
 * (CUDA's c operand: segment mask 32 - width); returns `lane` itself where
 * the hardware keeps the lane's own value. */
unsigned cml_shfl_source(cml_shfl_op op, unsigned lane, unsigned arg, unsigned width);

#define CML_SHFL_FULL_MASK 0xffffffffu

/* Sites: 0 the load of in[], 1 the first shared store; tree level L:
 * CML_SHFL_SITE_TREE0 + 3L (load smem[tid]), + 1 (load smem[tid + s]),
 * + 2 (store smem[tid]); then the final load and the store of the sum. */
#define CML_SHFL_SITE_TREE0 2u
#define CML_SHFL_SITE_SMEM_FINAL 32u
#define CML_SHFL_SITE_SMEM_OUT 33u
#define CML_SHFL_SITE_WTREE_FINAL 17u
#define CML_SHFL_SITE_WTREE_OUT 18u

/* Block sum by a tree in shared memory (blockDim.x words of dynamic smem). */
CML_BODY void cml_reduce_smem_body(CML_CTX, const unsigned *in, unsigned *out,
                                   unsigned long long n)
{
    CML_SHARED_EXTERN(unsigned, smem, 0);
    unsigned tid = CML_TID_X;
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + tid;
    unsigned v = (i < n) ? CML_LD(0, CML_LD_PLAIN, unsigned, in, i) : 0u;
    CML_STS(1, smem, tid, v);
    CML_SYNC();
    unsigned level = 0;
    for (unsigned s = CML_BDIM_X / 2; s > 0; s >>= 1, level++) {
        if (tid < s) {
            const unsigned site = CML_SHFL_SITE_TREE0 + 3 * level;
            unsigned b = CML_LDS(site + 1, unsigned, smem, tid + s);
            unsigned a = CML_LDS(site, unsigned, smem, tid);
            CML_STS(site + 2, smem, tid, a + b);
        }
        CML_SYNC();
    }
    if (tid == 0) {
        unsigned sum = CML_LDS(CML_SHFL_SITE_SMEM_FINAL, unsigned, smem, 0);
        CML_ST(CML_SHFL_SITE_SMEM_OUT, CML_ST_PLAIN, out, CML_BID_X, sum);
    }
}

/* Block sum by shuffles: each warp in registers, one word per warp through
 * shared memory (site 1, read back at site 2), warp 0 sums those and
 * stores the block's sum (site 3). */
CML_BODY void cml_reduce_shfl_body(CML_CTX, const unsigned *in, unsigned *out,
                                   unsigned long long n)
{
    CML_SHARED_ARRAY(unsigned, smem, 32, 0);
    unsigned tid = CML_TID_X, lane = tid % 32, warp = tid / 32;
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + tid;
    unsigned v = (i < n) ? CML_LD(0, CML_LD_PLAIN, unsigned, in, i) : 0u;
    for (int off = 16; off > 0; off >>= 1)
        v += CML_SHFL_DOWN(CML_SHFL_FULL_MASK, v, off);
    if (lane == 0)
        CML_STS(1, smem, warp, v);
    CML_SYNC();
    if (warp == 0) {
        v = (lane < CML_BDIM_X / 32) ? CML_LDS(2, unsigned, smem, lane) : 0u;
        for (int off = 16; off > 0; off >>= 1)
            v += CML_SHFL_DOWN(CML_SHFL_FULL_MASK, v, off);
        if (lane == 0)
            CML_ST(3, CML_ST_PLAIN, out, CML_BID_X, v);
    }
}

/* Warp sum by a warp-synchronous tree in shared memory: each warp owns 32
 * words of the block's blockDim.x; __syncwarp orders the lanes' accesses. */
CML_BODY void cml_warp_reduce_smem_body(CML_CTX, const unsigned *in, unsigned *out,
                                        unsigned long long n)
{
    CML_SHARED_EXTERN(unsigned, smem, 0);
    unsigned tid = CML_TID_X, lane = tid % 32;
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + tid;
    unsigned v = (i < n) ? CML_LD(0, CML_LD_PLAIN, unsigned, in, i) : 0u;
    CML_STS(1, smem, tid, v);
    CML_SYNCWARP();
    unsigned level = 0;
    for (unsigned s = 16; s > 0; s >>= 1, level++) {
        if (lane < s) {
            const unsigned site = CML_SHFL_SITE_TREE0 + 3 * level;
            unsigned b = CML_LDS(site + 1, unsigned, smem, tid + s);
            unsigned a = CML_LDS(site, unsigned, smem, tid);
            CML_STS(site + 2, smem, tid, a + b);
        }
        CML_SYNCWARP();
    }
    if (lane == 0 && i < n) {
        unsigned sum = CML_LDS(CML_SHFL_SITE_WTREE_FINAL, unsigned, smem, tid);
        CML_ST(CML_SHFL_SITE_WTREE_OUT, CML_ST_PLAIN, out, i / 32, sum);
    }
}

/* Warp sum by five shuffles, in registers: the load (site 0) and lane 0's
 * store of the sum (site 1). */
CML_BODY void cml_warp_reduce_shfl_body(CML_CTX, const unsigned *in, unsigned *out,
                                        unsigned long long n)
{
    unsigned lane = CML_TID_X % 32;
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + CML_TID_X;
    unsigned v = (i < n) ? CML_LD(0, CML_LD_PLAIN, unsigned, in, i) : 0u;
    for (int off = 16; off > 0; off >>= 1)
        v += CML_SHFL_DOWN(CML_SHFL_FULL_MASK, v, off);
    if (lane == 0 && i < n)
        CML_ST(1, CML_ST_PLAIN, out, i / 32, v);
}

/* The permutations (SHFL: CML_SHFL, _UP, _DOWN or _XOR): every lane takes
 * part (lanes past n with 0), only lanes inside the array load (site 0)
 * and store (site 1). */
#define CML_SHFL_PERM_BODY(NAME, SHFL)                                                       \
    CML_BODY void NAME(CML_CTX, const unsigned *in, unsigned *out, unsigned long long n,     \
                       int arg, int width)                                                   \
    {                                                                                        \
        unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + CML_TID_X;       \
        unsigned v = (i < n) ? CML_LD(0, CML_LD_PLAIN, unsigned, in, i) : 0u;                \
        v = SHFL(CML_SHFL_FULL_MASK, v, arg, width);                                         \
        if (i < n)                                                                           \
            CML_ST(1, CML_ST_PLAIN, out, i, v);                                              \
    }

CML_SHFL_PERM_BODY(cml_shfl_bcast_body, CML_SHFL)
CML_SHFL_PERM_BODY(cml_shfl_up_body, CML_SHFL_UP)
CML_SHFL_PERM_BODY(cml_shfl_down_body, CML_SHFL_DOWN)
CML_SHFL_PERM_BODY(cml_shfl_xor_body, CML_SHFL_XOR)

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "core/random.h"
#include "gpu/gpu_internal.h"

#define REDUCE_KERNEL(NAME, BODY)                                                            \
    __global__ void NAME(const unsigned *__restrict__ in, unsigned *__restrict__ out,       \
                         unsigned long long n)                                              \
    {                                                                                       \
        BODY(CML_KERNEL_CTX, in, out, n);                                                   \
    }

#define SHFL_KERNEL(NAME, BODY)                                                             \
    __global__ void NAME(const unsigned *__restrict__ in, unsigned *__restrict__ out,       \
                         unsigned long long n, int arg, int width)                          \
    {                                                                                       \
        BODY(CML_KERNEL_CTX, in, out, n, arg, width);                                       \
    }

REDUCE_KERNEL(reduce_smem, cml_reduce_smem_body)
REDUCE_KERNEL(reduce_shfl, cml_reduce_shfl_body)
REDUCE_KERNEL(warp_reduce_smem, cml_warp_reduce_smem_body)
REDUCE_KERNEL(warp_reduce_shfl, cml_warp_reduce_shfl_body)
SHFL_KERNEL(shfl_bcast, cml_shfl_bcast_body)
SHFL_KERNEL(shfl_up, cml_shfl_up_body)
SHFL_KERNEL(shfl_down, cml_shfl_down_body)
SHFL_KERNEL(shfl_xor, cml_shfl_xor_body)

typedef void (*reduce_kernel)(const unsigned *, unsigned *, unsigned long long);
typedef void (*perm_kernel)(const unsigned *, unsigned *, unsigned long long, int, int);

extern "C" const void *cml_shuffle_kernel(int op)
{
    switch (op) {
    case CML_SHFL_REDUCE_SMEM: return (const void *)reduce_smem;
    case CML_SHFL_REDUCE_SHFL: return (const void *)reduce_shfl;
    case CML_SHFL_WREDUCE_SMEM: return (const void *)warp_reduce_smem;
    case CML_SHFL_WREDUCE_SHFL: return (const void *)warp_reduce_shfl;
    case CML_SHFL_BROADCAST: return (const void *)shfl_bcast;
    case CML_SHFL_UP: return (const void *)shfl_up;
    case CML_SHFL_DOWN: return (const void *)shfl_down;
    case CML_SHFL_XOR: return (const void *)shfl_xor;
    default: return NULL;
    }
}

extern "C" size_t cml_shuffle_smem(int op, unsigned block)
{
    return (op == CML_SHFL_REDUCE_SMEM || op == CML_SHFL_WREDUCE_SMEM) ? (size_t)block * 4u : 0u;
}

static int valid_block(unsigned b)
{
    return b >= 32 && b <= 1024 && (b & (b - 1)) == 0;
}

static int valid_width(int w)
{
    return w >= 2 && w <= 32 && (w & (w - 1)) == 0;
}

extern "C" cml_status cml_shuffle_launch(void *vctx)
{
    const cml_shuffle_launch_args *a = (const cml_shuffle_launch_args *)vctx;
    const void *k = cml_shuffle_kernel(a->op);
    if (!k || !valid_block(a->block) || a->n == 0)
        return CML_EINVAL;
    const uint64_t grid = (a->n + a->block - 1) / a->block;
    if (grid > 0x7fffffffull)
        return CML_EINVAL;
    if (cml_shfl_is_reduction((cml_shfl_op)a->op)) {
        ((reduce_kernel)k)<<<(unsigned)grid, a->block, cml_shuffle_smem(a->op, a->block)>>>(
            a->in, a->out, a->n);
    } else {
        if (!valid_width(a->width) || a->arg < 0 || a->arg > 31)
            return CML_EINVAL;
        ((perm_kernel)k)<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n, a->arg, a->width);
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

__global__ void fill_u32(unsigned *p, unsigned long long n, uint64_t seed)
{
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        p[i] = cml_random_u32(seed, i);
}

extern "C" cml_status cml_shuffle_fill_u32(unsigned *p, uint64_t n, uint64_t seed)
{
    fill_u32<<<1024, 256>>>(p, n, seed);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* The checker's table of source lanes, by value. */
struct src_table {
    unsigned char src[32];
};

/*
 * Checker: output word j of out[0, cap) against what the op must leave
 * there, recomputed from cml_random_u32 (the input is never read back, so a
 * kernel that corrupted in[] cannot hide it):
 *   block sum b: sum of in[b*block, min(n, (b+1)*block)) modulo 2^32;
 *   warp sum w: the same over 32 words;
 *   permutation: in[base + src[lane]] if that index is < n, else 0 (the
 *   source lane is past the array and took part with 0);
 *   every word past the outputs: the poison 0xFFFFFFFF.
 */
__global__ void shuffle_check(const unsigned *__restrict__ out, uint64_t n, uint64_t cap, int op,
                              unsigned block, struct src_table t, uint64_t seed,
                              unsigned long long *bad, unsigned long long *first_bad)
{
    const int red = op == CML_SHFL_REDUCE_SMEM || op == CML_SHFL_REDUCE_SHFL;
    const int wred = op == CML_SHFL_WREDUCE_SMEM || op == CML_SHFL_WREDUCE_SHFL;
    const uint64_t span = red ? block : wred ? 32u : 1u;
    const uint64_t outputs = (n + span - 1) / span;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        unsigned want = 0xFFFFFFFFu;
        if (j < outputs) {
            if (red || wred) {
                uint64_t lo = j * span, hi = lo + span < n ? lo + span : n;
                unsigned s = 0;
                for (uint64_t k = lo; k < hi; k++)
                    s += cml_random_u32(seed, k);
                want = s;
            } else {
                uint64_t src = (j & ~(uint64_t)31) + t.src[j % 32];
                want = src < n ? cml_random_u32(seed, src) : 0u;
            }
        }
        if (out[j] != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_shuffle_check(const cml_shuffle_launch_args *a, uint64_t seed,
                                        unsigned long long *d_counters)
{
    struct src_table t;
    for (int l = 0; l < 32; l++)
        t.src[l] = a->src[l];
    shuffle_check<<<1024, 256>>>(a->out, a->n, a->cap, a->op, a->block, t, seed, d_counters,
                                 d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
