/*
 * Experiment 5: exposing parallelism. C[i] = A[i] + B[i], one element per
 * thread or in a grid-stride loop over a grid sized to fill the GPU once,
 * and a checker that recomputes every output element.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that parallelism.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (parallelism.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * Loads __ldca (sites 0 and 1, the ca path), the store plain (site 2).
 */
#ifndef CML_PARALLELISM_BODY_H
#define CML_PARALLELISM_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

typedef struct cml_parallelism_args {
    uint64_t n;
    int gridstride; /* 0: one element per thread */
} cml_parallelism_args;

/* The kernel of either mode, thread by thread (grid-stride: the whole loop). */
void cml_parallelism_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/*
 * The model of one launch of `grid` blocks of `block` threads (grid is
 * ignored for one-per-thread, which launches ceil(n / block)). A grid-stride
 * launch issues exactly the warp instructions of the one-per-thread launch
 * (iteration k of block b is block b + k*grid of the other), so both are
 * traced as the latter, in O(1) blocks; rec->grid is set to `grid`.
 */
cml_status cml_parallelism_trace(cml_record *rec, const cml_parallelism_args *a, unsigned block,
                                 uint64_t grid);

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_parallelism_launch_args {
    const float *A, *B;
    float *C;
    uint64_t n;       /* elements per array */
    uint64_t cap;     /* floats allocated in C: the checker checks all of them */
    unsigned grid;    /* grid-stride: blocks to launch; one-per-thread: ignored */
    unsigned block;
    int gridstride;   /* 0: one element per thread, grid = ceil(n / block) */
} cml_parallelism_launch_args;

/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_parallelism_launch(void *args);
/* The __global__ function, for the occupancy calculator. */
CML_LAUNCHER const void *cml_parallelism_kernel(int gridstride);
/* Count wrong floats of C[0, cap) into d_counters[0] (zeroed by the caller),
 * the lowest wrong index into d_counters[1] (all ones from the caller):
 * C[i] = A[i] + B[i] for i < n, the poison 0xFFFFFFFF beyond. A and B were
 * filled with cml_random_f32(seed_a / seed_b, i). */
CML_LAUNCHER cml_status cml_parallelism_check(const cml_parallelism_launch_args *a, uint64_t seed_a,
                                              uint64_t seed_b, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

/* i = global thread; if (i < n) C[i] = A[i] + B[i] */
CML_BODY void cml_add_one_body(CML_CTX, const float *A, const float *B, float *C, uint64_t n)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float a = CML_LD(0, CML_LD_CA, float, A, i);
        float b = CML_LD(1, CML_LD_CA, float, B, i);
        CML_ST(2, CML_ST_PLAIN, C, i, a + b);
    }
}

/* for (i = global thread; i < n; i += gridDim.x*blockDim.x) C[i] = A[i] + B[i] */
CML_BODY void cml_add_gridstride_body(CML_CTX, const float *A, const float *B, float *C,
                                      uint64_t n)
{
    const uint64_t stride = (uint64_t)CML_GDIM_X * CML_BDIM_X;
    for (uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X; i < n; i += stride) {
        float a = CML_LD(0, CML_LD_CA, float, A, i);
        float b = CML_LD(1, CML_LD_CA, float, B, i);
        CML_ST(2, CML_ST_PLAIN, C, i, a + b);
    }
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "core/random.h"
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
#endif /* __CUDACC__ */

#endif
