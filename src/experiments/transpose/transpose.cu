/*
 * Matrix transpose (experiment 17): the kernels, whose bodies are in
 * transpose_body.h (the model's mirror in transpose.c compiles them too),
 * and a checker that recomputes every output element from the
 * counter-based random input.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/transpose/transpose_body.h"
#include "experiments/transpose/transpose_kernels.h"
#include "gpu/gpu_internal.h"

typedef unsigned long long u64;

#define TR_KERNEL(NAME, BODY)                                                                \
    __global__ void NAME(const float *__restrict__ in, float *__restrict__ out, u64 nx, u64 ny) \
    {                                                                                        \
        BODY(CML_KERNEL_CTX, in, out, nx, ny);                                               \
    }

TR_KERNEL(tr_copy, cml_tr_copy_body)
TR_KERNEL(tr_naive_row, cml_tr_naive_row_body)
TR_KERNEL(tr_naive_col, cml_tr_naive_col_body)
TR_KERNEL(tr_unroll_row, cml_tr_unroll_row_body)
TR_KERNEL(tr_unroll_col, cml_tr_unroll_col_body)
TR_KERNEL(tr_smem, cml_tr_smem_body)
TR_KERNEL(tr_smem_pad, cml_tr_smem_pad_body)

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
