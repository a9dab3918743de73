/* Kernels of bench/gpu/shared_contention.c (shared_contention_kernels.h). */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"
#include "shared_contention_kernels.h"

/* Each 32x32 block stores one tile row per warp and loads one tile column
 * per warp: with pitch 33 both are one wavefront per instruction (lane l in
 * bank (l + row) mod 32 or l), with pitch 32 the column load is 32. */
__global__ void sc_transpose(const float *__restrict__ in, float *__restrict__ out, unsigned n,
                             unsigned pitch, int source, int store)
{
    __shared__ float tile[32 * 33]; /* + the launch's dynamic shared memory, never touched:
                                       it only limits the blocks an SM can hold */
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned x = blockIdx.x * 32 + tx, y = blockIdx.y * 32 + ty;
    const size_t at = (size_t)y * n + x;
    float v;
    if (source == CML_SC_LOAD_CA)
        v = __ldca(in + at);
    else if (source == CML_SC_LOAD_CG)
        v = __ldcg(in + at);
    else
        v = (float)(x ^ y);
    tile[ty * pitch + tx] = v;
    __syncthreads();
    const float w = tile[tx * pitch + ty];
    if (store)
        out[(size_t)(blockIdx.x * 32 + ty) * n + blockIdx.y * 32 + tx] = w;
    else if (__float_as_uint(w) == 0xFFFFFFFFu) /* a NaN no source gives: keeps the load */
        out[0] = w;
}

extern "C" cml_status cml_sc_allow_smem(size_t bytes)
{
    CML_CU(cudaFuncSetAttribute(sc_transpose, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)bytes));
    return CML_OK;
}

extern "C" cml_status cml_sc_launch(void *args)
{
    const cml_sc_launch_args *a = (const cml_sc_launch_args *)args;
    dim3 grid(a->n / 32, a->n / 32), block(32, 32);
    sc_transpose<<<grid, block, a->smem_extra>>>(a->in, a->out, a->n, a->pitch, a->source,
                                                 a->store);
    CML_CU_LAUNCH();
    return CML_OK;
}
