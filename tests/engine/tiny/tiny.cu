/*
 * The engine test's experiment, kernel side: out[i] = k * in[i*stride] for
 * i < n, one thread per output element. tiny.c mirrors exactly these
 * accesses for the model.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpu/gpu_internal.h"
#include "tiny/tiny_kernels.h"

__global__ void tiny_strided_scale(const float *__restrict__ in, float *__restrict__ out,
                                   uint64_t n, uint64_t stride, float k)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = k * in[i * stride];
}

extern "C" const void *tiny_kernel(void)
{
    return (const void *)tiny_strided_scale;
}

extern "C" cml_status tiny_launch(void *vctx)
{
    const tiny_launch_args *a = (const tiny_launch_args *)vctx;
    if (a->block == 0)
        return CML_EINVAL;
    uint64_t grid = (a->n + a->block - 1) / a->block;
    tiny_strided_scale<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n, a->stride, a->k);
    CML_CU_LAUNCH();
    return CML_OK;
}
