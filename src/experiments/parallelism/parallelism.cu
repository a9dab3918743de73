/*
 * Experiment 5: exposing parallelism. C[i] = A[i] + B[i], one element per
 * thread or in a grid-stride loop over a grid sized to fill the GPU once,
 * and a checker that recomputes every output element.
 *
 * The kernels' bodies are in parallelism_body.h, which the model's mirror
 * (parallelism.c) compiles too.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/parallelism/parallelism_body.h"
#include "experiments/parallelism/parallelism_kernels.h"
#include "gpu/gpu_internal.h"

__global__ void add_one(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, uint64_t n)
{
    cml_add_one_body(CML_KERNEL_CTX, A, B, C, n);
}

__global__ void add_gridstride(const float *__restrict__ A, const float *__restrict__ B,
                               float *__restrict__ C, uint64_t n)
{
    cml_add_gridstride_body(CML_KERNEL_CTX, A, B, C, n);
}

extern "C" const void *cml_parallelism_kernel(int gridstride)
{
    return gridstride ? (const void *)add_gridstride : (const void *)add_one;
}

extern "C" cml_status cml_parallelism_launch(void *vctx)
{
    const cml_parallelism_launch_args *a = (const cml_parallelism_launch_args *)vctx;
    if (a->block == 0 || a->block > 1024)
        return CML_EINVAL;
    if (a->n == 0)
        return CML_OK; /* nothing to do: a zero grid is a launch error */
    if (a->gridstride) {
        if (a->grid == 0 || a->grid > 0x7FFFFFFFu)
            return CML_EINVAL;
        add_gridstride<<<a->grid, a->block>>>(a->A, a->B, a->C, a->n);
    } else {
        uint64_t grid = (a->n + a->block - 1) / a->block;
        if (grid > 0x7FFFFFFFull)
            return CML_EINVAL;
        add_one<<<(unsigned)grid, a->block>>>(a->A, a->B, a->C, a->n);
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/* Checker: C[i] = A[i] + B[i] bit for bit for i < n, poison beyond. */
__global__ void parallelism_check(const float *__restrict__ C, uint64_t cap, uint64_t n,
                                  uint64_t seed_a, uint64_t seed_b, unsigned long long *bad,
                                  unsigned long long *first_bad)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < cap;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t got = __float_as_uint(C[i]);
        int ok;
        if (i < n)
            ok = got == __float_as_uint(cml_random_f32(seed_a, i) + cml_random_f32(seed_b, i));
        else
            ok = got == 0xFFFFFFFFu;
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)i);
        }
    }
}

extern "C" cml_status cml_parallelism_check(const cml_parallelism_launch_args *a,
                                            uint64_t seed_a, uint64_t seed_b,
                                            unsigned long long *d_counters)
{
    parallelism_check<<<1024, 256>>>(a->C, a->cap, a->n, seed_a, seed_b, d_counters,
                                     d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
