/*
 * Experiment 12: the shared-memory bank kernels, whose bodies are in
 * shared_banks_body.h (the model's mirror in shared_banks.c compiles them
 * too): a W x H tile written and read by rows or columns `iters`
 * times (static tiles for the textbook's shapes and pads 0-2, a dynamic
 * tile for any pad), one shared store and load per lane at a stride of 4-,
 * 8- or 16-byte elements, and a checker that recomputes every output word.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "experiments/shared_banks/shared_banks_body.h"
#include "experiments/shared_banks/shared_banks_kernels.h"
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
