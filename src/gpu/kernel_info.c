/* cudaFuncGetAttributes behind a status (see kernel_info.h). */
#include <cuda_runtime_api.h>
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
