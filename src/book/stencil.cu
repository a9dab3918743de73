/*
 * The kernels of the book's chapter05/constantStencil.cu and
 * constantReadOnly.cu, as the book writes them: RADIUS 4, BDIM 32, the
 * five finite-difference coefficients in __constant__ memory (or, for
 * stencil_1d_read_only, in global memory read through a const
 * __restrict__ pointer), a shared tile of BDIM + 2 * RADIUS floats with
 * its halo, and tmp += coef[i] * (smem[sidx + i] - smem[sidx - i]) for
 * i = 1..4. main() launches them on d_in + RADIUS and d_out + RADIUS: 16
 * bytes into each allocation. The C mirror in stencil.c emits exactly
 * their accesses.
 */
#include <cuda_runtime.h>

#include "book/stencil_kernels.h"
#include "gpu/gpu_internal.h"

#define RADIUS 4
#define BDIM 32

// constant memory
__constant__ float coef[RADIUS + 1];

// FD coeffecient
#define a0     0.00000f
#define a1     0.80000f
#define a2    -0.20000f
#define a3     0.03809f
#define a4    -0.00357f

/* constantStencil.cu */
static __global__ void stencil_1d(float *in, float *out, int N)
{
    // shared memory
    __shared__ float smem[BDIM + 2 * RADIUS];

    // index to global memory
    int idx = blockIdx.x * blockDim.x + threadIdx.x;

    while (idx < N)
    {

        // index to shared memory for stencil calculatioin
        int sidx = threadIdx.x + RADIUS;

        // Read data from global memory into shared memory
        smem[sidx] = in[idx];

        // read halo part to shared memory
        if (threadIdx.x < RADIUS)
        {
            smem[sidx - RADIUS] = in[idx - RADIUS];
            smem[sidx + BDIM] = in[idx + BDIM];
        }

        // Synchronize (ensure all the data is available)
        __syncthreads();

        // Apply the stencil
        float tmp = 0.0f;

#pragma unroll
        for (int i = 1; i <= RADIUS; i++)
        {
            tmp += coef[i] * (smem[sidx + i] - smem[sidx - i]);
        }

        // Store the result
        out[idx] = tmp;

        idx += gridDim.x * blockDim.x;
    }
}

/* constantReadOnly.cu */
static __global__ void stencil_1d(float *in, float *out)
{
    // shared memory
    __shared__ float smem[BDIM + 2 * RADIUS];

    // index to global memory
    int idx = threadIdx.x + blockIdx.x * blockDim.x;

    // index to shared memory for stencil calculatioin
    int sidx = threadIdx.x + RADIUS;

    // Read data from global memory into shared memory
    smem[sidx] = in[idx];

    // read halo part to shared memory
    if (threadIdx.x < RADIUS)
    {
        smem[sidx - RADIUS] = in[idx - RADIUS];
        smem[sidx + BDIM] = in[idx + BDIM];
    }

    // Synchronize (ensure all the data is available)
    __syncthreads();

    // Apply the stencil
    float tmp = 0.0f;
#pragma unroll

    for (int i = 1; i <= RADIUS; i++)
    {
        tmp += coef[i] * (smem[sidx + i] - smem[sidx - i]);
    }

    // Store the result
    out[idx] = tmp;
}

static __global__ void stencil_1d_read_only (float* in,
                                             float* out,
                                             const float *__restrict__ dcoef)
{
    // shared memory
    __shared__ float smem[BDIM + 2 * RADIUS];

    // index to global memory
    int idx = threadIdx.x + blockIdx.x * blockDim.x;

    // index to shared memory for stencil calculatioin
    int sidx = threadIdx.x + RADIUS;

    // Read data from global memory into shared memory
    smem[sidx] = in[idx];

    // read halo part to shared memory
    if (threadIdx.x < RADIUS)
    {
        smem[sidx - RADIUS] = in[idx - RADIUS];
        smem[sidx + BDIM] = in[idx + BDIM];
    }

    // Synchronize (ensure all the data is available)
    __syncthreads();

    // Apply the stencil
    float tmp = 0.0f;
#pragma unroll

    for (int i = 1; i <= RADIUS; i++)
    {
        tmp += dcoef[i] * (smem[sidx + i] - smem[sidx - i]);
    }

    // Store the result
    out[idx] = tmp;
}

extern "C" cml_status cml_book_stencil_setup(float *d_coef)
{
    const float h_coef[] = {a0, a1, a2, a3, a4};
    CML_CU(cudaMemcpyToSymbol( coef, h_coef, (RADIUS + 1) * sizeof(float)));
    if (d_coef)
        CML_CU(cudaMemcpy(d_coef, h_coef, (RADIUS + 1) * sizeof(float),
                          cudaMemcpyHostToDevice));
    return CML_OK;
}

extern "C" const void *cml_book_stencil_kernel_fn(int kernel)
{
    switch (kernel) {
    case CML_ST_LOOP: return (const void *)(void (*)(float *, float *, int))stencil_1d;
    case CML_ST_CONST: return (const void *)(void (*)(float *, float *))stencil_1d;
    case CML_ST_READ_ONLY: return (const void *)stencil_1d_read_only;
    default: return NULL;
    }
}

extern "C" cml_status cml_book_stencil_launch_fn(void *vctx)
{
    const cml_book_stencil_launch *a = (const cml_book_stencil_launch *)vctx;
    /* Every kernel reads in[idx - RADIUS .. idx + BDIM + RADIUS - 1] of its
     * blocks; a grid of isize / BDIM blocks (or fewer, looping) stays inside
     * the isize + 2 * RADIUS floats. */
    if (a->grid == 0 || a->isize <= 0 || a->isize % BDIM ||
        a->grid > (unsigned)(a->isize / BDIM) ||
        (a->kernel != CML_ST_LOOP && a->grid != (unsigned)(a->isize / BDIM)) ||
        (a->kernel == CML_ST_READ_ONLY && !a->coef))
        return CML_EINVAL;
    dim3 block (BDIM, 1);
    dim3 grid (a->grid, 1);
    switch (a->kernel) {
    case CML_ST_LOOP:
        stencil_1d<<<grid, block>>>(a->in + RADIUS, a->out + RADIUS, a->isize);
        break;
    case CML_ST_CONST: stencil_1d<<<grid, block>>>(a->in + RADIUS, a->out + RADIUS); break;
    case CML_ST_READ_ONLY:
        stencil_1d_read_only<<<grid, block>>>(a->in + RADIUS, a->out + RADIUS, a->coef);
        break;
    default: return CML_EINVAL;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}
