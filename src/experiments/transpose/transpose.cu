/*
 * Matrix transpose (experiment 17): the kernels exactly as the contract at
 * the top of transpose.c states them (the C mirror there emits these
 * accesses), and a checker that recomputes every output element from the
 * counter-based random input.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/transpose/transpose_kernels.h"
#include "gpu/gpu_internal.h"

typedef unsigned long long u64;

/* The reference: a copy of the same shape and the same launch. */
__global__ void tr_copy(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny)
{
    u64 x = (u64)blockIdx.x * blockDim.x + threadIdx.x, y = (u64)blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny)
        out[y * nx + x] = in[y * nx + x];
}

/* Reads a row of in[] per warp, writes a column of out[]. */
__global__ void tr_naive_row(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny)
{
    u64 x = (u64)blockIdx.x * blockDim.x + threadIdx.x, y = (u64)blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny)
        out[x * ny + y] = in[y * nx + x];
}

/* Threads over out[] (ny wide, nx tall): reads a column of in[], writes a row. */
__global__ void tr_naive_col(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny)
{
    u64 x = (u64)blockIdx.x * blockDim.x + threadIdx.x, y = (u64)blockIdx.y * blockDim.y + threadIdx.y;
    if (x < ny && y < nx)
        out[y * ny + x] = in[x * nx + y];
}

/* naive-row with 4 independent elements per thread, blockDim.x apart. */
__global__ void tr_unroll_row(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny)
{
    u64 x0 = (u64)blockIdx.x * blockDim.x * CML_TR_UNROLL + threadIdx.x;
    u64 y = (u64)blockIdx.y * blockDim.y + threadIdx.y;
#pragma unroll
    for (unsigned k = 0; k < CML_TR_UNROLL; k++) {
        u64 x = x0 + (u64)k * blockDim.x;
        if (x < nx && y < ny)
            out[x * ny + y] = in[y * nx + x];
    }
}

/* naive-col with 4 independent elements per thread, blockDim.x apart. */
__global__ void tr_unroll_col(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny)
{
    u64 x0 = (u64)blockIdx.x * blockDim.x * CML_TR_UNROLL + threadIdx.x;
    u64 y = (u64)blockIdx.y * blockDim.y + threadIdx.y;
#pragma unroll
    for (unsigned k = 0; k < CML_TR_UNROLL; k++) {
        u64 x = x0 + (u64)k * blockDim.x;
        if (x < ny && y < nx)
            out[y * ny + x] = in[x * nx + y];
    }
}

/*
 * Through a 32x32 tile of shared memory, blocks of 32x32 threads: the tile
 * is filled by rows from a coalesced read of in[], and emptied by columns
 * into a coalesced write of out[]. Rows of P floats: P = 32 puts a column
 * in one bank (32-way conflict), P = 33 spreads it over all 32.
 */
#define TR_SMEM_KERNEL(NAME, P)                                                              \
    __global__ void NAME(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny) \
    {                                                                                        \
        __shared__ float tile[CML_TR_TILE * (P)];                                            \
        unsigned tx = threadIdx.x, ty = threadIdx.y;                                         \
        u64 x = (u64)blockIdx.x * CML_TR_TILE + tx, y = (u64)blockIdx.y * CML_TR_TILE + ty;  \
        if (x < nx && y < ny)                                                                \
            tile[ty * (P) + tx] = in[y * nx + x];                                            \
        __syncthreads();                                                                     \
        u64 ox = (u64)blockIdx.y * CML_TR_TILE + tx, oy = (u64)blockIdx.x * CML_TR_TILE + ty; \
        if (ox < ny && oy < nx)                                                              \
            out[oy * ny + ox] = tile[tx * (P) + ty];                                         \
    }

TR_SMEM_KERNEL(tr_smem, CML_TR_TILE)
TR_SMEM_KERNEL(tr_smem_pad, CML_TR_TILE + 1)

typedef void (*tr_kernel)(const float *, float *, u64, u64);

static tr_kernel pick(int k)
{
    static const tr_kernel table[CML_TR_KERNEL_COUNT] = {
        tr_copy, tr_naive_row, tr_naive_col, tr_unroll_row, tr_unroll_col, tr_smem, tr_smem_pad,
    };
    return k >= 0 && k < CML_TR_KERNEL_COUNT ? table[k] : NULL;
}

extern "C" const void *cml_transpose_kernel(int kernel)
{
    return (const void *)pick(kernel);
}

extern "C" cml_status cml_transpose_launch(void *vctx)
{
    const cml_transpose_launch_args *a = (const cml_transpose_launch_args *)vctx;
    tr_kernel k = pick(a->kernel);
    if (!k || a->nx == 0 || a->ny == 0 || a->bx == 0 || a->by == 0 ||
        (u64)a->bx * a->by > 1024 || a->nx > 0xffffffffull || a->ny > 0xffffffffull)
        return CML_EINVAL;
    cml_dim3 g, b;
    cml_tr_shape(a->kernel, a->nx, a->ny, a->bx, a->by, &g, &b);
    if (g.y > 65535 || g.x == 0 || g.y == 0)
        return CML_EINVAL;
    k<<<dim3(g.x, g.y), dim3(b.x, b.y), a->smem>>>(a->in, a->out, a->nx, a->ny);
    CML_CU_LAUNCH();
    return CML_OK;
}

__global__ void transpose_check(const float *__restrict__ out, u64 nx, u64 ny, u64 cap, int copy,
                                uint64_t seed, unsigned long long *bad,
                                unsigned long long *first_bad)
{
    const u64 total = nx * ny;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (u64)gridDim.x * blockDim.x) {
        uint32_t want = 0xFFFFFFFFu;
        if (j < total) {
            u64 src = copy ? j : (j % ny) * nx + j / ny;
            want = __float_as_uint(cml_random_f32(seed, src));
        }
        if (__float_as_uint(out[j]) != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_transpose_check(const cml_transpose_launch_args *a, uint64_t seed,
                                          unsigned long long *d_counters)
{
    transpose_check<<<1024, 256>>>(a->out, a->nx, a->ny, a->cap, a->kernel == CML_TR_COPY, seed,
                                   d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
