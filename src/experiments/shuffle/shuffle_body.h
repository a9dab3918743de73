/*
 * Experiment 11: the bodies of the warp-shuffle kernels, written once for
 * the kernels (shuffle.cu) and the model's mirror (shuffle.c):
 * gpu/kernel_body.h. Blocks are 1-D, a power of two from 32 to 1024
 * threads, so every warp is full and threadIdx.x % 32 is the lane. Block
 * and warp sums of unsigned words (modulo 2^32, so every result is exact
 * and order-independent) by a shared-memory tree and by __shfl_down_sync,
 * and the four shuffles as permutations of in[] into out[]. All memory
 * accesses plain; a shuffle moves registers, no memory.
 */
#ifndef CML_SHUFFLE_BODY_H
#define CML_SHUFFLE_BODY_H

#include "gpu/kernel_body.h"

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

#endif
