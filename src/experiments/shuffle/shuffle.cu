/*
 * Experiment 11: the warp-shuffle kernels, whose bodies are in
 * shuffle_body.h (the model's mirror in shuffle.c compiles them too):
 * block and warp sums of unsigned words (modulo 2^32, so every result is
 * exact and order-independent) by a shared-memory tree and by
 * __shfl_down_sync, the four shuffles as permutations of in[] into out[],
 * a fill kernel for random words and a checker that recomputes every output.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/shuffle/shuffle_body.h"
#include "experiments/shuffle/shuffle_kernels.h"
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
