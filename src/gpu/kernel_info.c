/* cudaFuncGetAttributes behind a status (see kernel_info.h). */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <string.h>

#include "gpu/gpu_internal.h"
#include "gpu/kernel_info.h"

cml_status cml_gpu_kernel_info(cml_gpu *g, const void *kernel, cml_kernel_info *out)
{
    if (!g || !kernel || !out)
        return CML_EINVAL;
    memset(out, 0, sizeof *out);
    struct cudaFuncAttributes a;
    memset(&a, 0, sizeof a);
    CML_CU(cudaFuncGetAttributes(&a, kernel));
    out->regs = a.numRegs;
    out->local_bytes = a.localSizeBytes;
    out->shared_bytes = a.sharedSizeBytes;
    out->const_bytes = a.constSizeBytes;
    out->max_threads = a.maxThreadsPerBlock;
    out->binary_version = a.binaryVersion;
    out->ptx_version = a.ptxVersion;
    return CML_OK;
}

static cml_status refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_gpu_set_last_error_v(fmt, ap);
    va_end(ap);
    return CML_EUNSUPPORTED;
}

cml_status cml_gpu_one_block_per_sm(cml_gpu *g, const void *kernel, unsigned block, size_t smem,
                                    size_t *dyn)
{
    if (!g || !kernel || !dyn || block == 0)
        return CML_EINVAL;
    struct cudaFuncAttributes a;
    memset(&a, 0, sizeof a);
    CML_CU(cudaFuncGetAttributes(&a, kernel));
    int dev = 0, per_sm = 0, optin = 0, reserved = 0;
    CML_CU(cudaGetDevice(&dev));
    CML_CU(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    CML_CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CML_CU(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    /* Two blocks would need 2 * (static + dynamic + reserved) bytes; ask for
     * 1 KiB more than half of the SM, whatever the allocation granularity. */
    size_t half = (size_t)per_sm / 2 + 1024, own = a.sharedSizeBytes + (size_t)reserved;
    size_t want = half > own + smem ? half - own : smem;
    if (a.sharedSizeBytes + want > (size_t)optin)
        return refuse("one block per SM needs %zu bytes of shared memory per block, above the "
                      "%d a block may have on this device",
                      a.sharedSizeBytes + want, optin);
    CML_CU(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)want));
    int blocks = 0;
    CML_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, (int)block, want));
    if (blocks != 1)
        return refuse("with %zu bytes of dynamic shared memory the occupancy calculator still "
                      "gives %d blocks per SM, not 1", want, blocks);
    *dyn = want;
    return CML_OK;
}
