/*
 * Experiment 13: the zero-copy read kernel, the managed-memory kernel and
 * their checkers. The kernels' bodies are in transfers_body.h, which the
 * model's mirrors (cml_zerocopy_mirror, cml_um_mirror) compile too.
 *
 * The zero-copy kernel is the same code whatever `in` points to: device
 * memory, mapped host memory through cudaHostGetDevicePointer, or the host
 * pointer itself under unified virtual addressing. Only where the bytes
 * come from changes (HBM through L2, or the host over PCIe), which is what
 * the experiment compares.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/transfers/transfers_body.h"
#include "experiments/transfers/transfers_kernels.h"
#include "gpu/gpu_internal.h"

__global__ void sumArrayZerocpy_read(const float *__restrict__ in, float *__restrict__ out,
                                     uint64_t n, unsigned stride, unsigned offset)
{
    cml_zerocopy_read_body(CML_KERNEL_CTX, in, out, n, stride, offset);
}

__global__ void sumMatrixGPUManaged_scale(const float *__restrict__ in, float *__restrict__ out,
                                          uint64_t n)
{
    cml_um_scale_body(CML_KERNEL_CTX, in, out, n);
}

extern "C" const void *cml_zerocopy_kernel(void)
{
    return (const void *)sumArrayZerocpy_read;
}

extern "C" const void *cml_um_kernel(void)
{
    return (const void *)sumMatrixGPUManaged_scale;
}

extern "C" cml_status cml_zerocopy_launch(void *vctx)
{
    const cml_zerocopy_launch_args *a = (const cml_zerocopy_launch_args *)vctx;
    if (a->block == 0 || a->n == 0 || a->stride == 0)
        return CML_EINVAL;
    uint64_t grid = (a->n + a->block - 1) / a->block;
    sumArrayZerocpy_read<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n, a->stride,
                                                       a->offset);
    CML_CU_LAUNCH();
    return CML_OK;
}

extern "C" cml_status cml_um_launch(void *vctx)
{
    const cml_um_launch_args *a = (const cml_um_launch_args *)vctx;
    if (a->block == 0 || a->n == 0)
        return CML_EINVAL;
    uint64_t grid = (a->n + a->block - 1) / a->block;
    sumMatrixGPUManaged_scale<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* Bit-exact comparison of out[j] with want(j); mismatches counted, the
 * first kept. mode 0: zero-copy (want = random(seed, j*stride+offset));
 * mode 1: managed (want = 2 * random(seed, j)). */
__global__ void transfers_check(const float *__restrict__ out, uint64_t n, unsigned stride,
                                unsigned offset, int mode, uint64_t seed,
                                unsigned long long *bad, unsigned long long *first_bad)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += (uint64_t)gridDim.x * blockDim.x) {
        float want = mode == 0 ? cml_random_f32(seed, j * stride + offset)
                               : __fmul_rn(2.0f, cml_random_f32(seed, j));
        if (__float_as_uint(out[j]) != __float_as_uint(want)) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_zerocopy_check(const cml_zerocopy_launch_args *a, uint64_t seed,
                                         unsigned long long *d_counters)
{
    transfers_check<<<1024, 256>>>(a->out, a->n, a->stride, a->offset, 0, seed, d_counters,
                                   d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}

extern "C" cml_status cml_um_check(const cml_um_launch_args *a, uint64_t seed,
                                   unsigned long long *d_counters)
{
    transfers_check<<<1024, 256>>>(a->out, a->n, 1, 0, 1, seed, d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
