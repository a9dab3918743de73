/* extern "C" launchers of shuffle.cu, callable from C. */
#ifndef CML_SHUFFLE_KERNELS_H
#define CML_SHUFFLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

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
#endif
