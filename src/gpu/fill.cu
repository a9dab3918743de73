/* The harness's one kernel: fill a buffer with counter-based random floats,
 * so any element can be recomputed on the host (core/random.h). */
#include <cuda_runtime.h>

#include "core/random.h"
#include "gpu/gpu_internal.h"

/* Grid-stride with size_t indices: correct past 2^31 elements and for any
 * grid the caller picks. */
__global__ void cml_fill_f32_kernel(float *p, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = cml_random_f32(seed, (uint64_t)i);
}

extern "C" cml_status cml_gpu_launch_fill_f32(float *p, size_t n, uint64_t seed, unsigned grid,
                                              unsigned block)
{
    if (grid == 0 || block == 0)
        return CML_EINVAL;
    cml_fill_f32_kernel<<<grid, block>>>(p, n, seed);
    CML_CU_LAUNCH();
    return CML_OK;
}
