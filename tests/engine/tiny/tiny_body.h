/*
 * The engine test's experiment, its kernel: out[i] = k * in[i*stride] for
 * i < n, one thread per output element. Everything of the kernel is here,
 * written once (gpu/kernel_body.h): the launch arguments and the launcher
 * that tiny.c calls, the per-thread body, and under __CUDACC__ the
 * __global__ function and its launcher. nvcc compiles this header into the
 * kernel (through the file the build generates for the folder,
 * cmake/experiments.cmake), the C compiler (tiny.c) into the model's
 * mirror.
 */
#ifndef CML_TEST_TINY_BODY_H
#define CML_TEST_TINY_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tiny_launch_args {
    const float *in;
    float *out;
    uint64_t n, stride;
    float k;          /* out[i] = k * in[i*stride] */
    unsigned block;
} tiny_launch_args;

/* Launch the kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status tiny_launch(void *args);
/* The __global__ function, for the occupancy calculator. */
CML_LAUNCHER const void *tiny_kernel(void);

#ifdef __cplusplus
}
#endif

/* One thread: site 0 loads in[i*stride], site 1 stores out[i] (both plain). */
CML_BODY void tiny_body(CML_CTX, const float *in, float *out, uint64_t n, uint64_t stride,
                        float k)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_PLAIN, float, in, i * stride);
        CML_ST(1, CML_ST_PLAIN, out, i, k * v);
    }
}

#ifdef __CUDACC__
/* ---- the kernel and its launcher (nvcc only) ---------------------------- */
#include "gpu/gpu_internal.h"

__global__ void tiny_strided_scale(const float *__restrict__ in, float *__restrict__ out,
                                   uint64_t n, uint64_t stride, float k)
{
    tiny_body(CML_KERNEL_CTX, in, out, n, stride, k);
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
#endif /* __CUDACC__ */

#endif
