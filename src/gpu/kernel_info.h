/*
 * What the CUDA runtime says about a compiled kernel (cudaFuncGetAttributes):
 * the figures of the SASS that really runs on this device, to set beside
 * what ptxas printed at build time.
 */
#ifndef CML_GPU_KERNEL_INFO_H
#define CML_GPU_KERNEL_INFO_H

#include <stddef.h>

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_kernel_info {
    int regs;              /* numRegs: registers per thread                        */
    size_t local_bytes;    /* localSizeBytes: local memory (stack frame) per thread */
    size_t shared_bytes;   /* sharedSizeBytes: static shared memory per block       */
    size_t const_bytes;    /* constSizeBytes: user constant memory of the kernel    */
    int max_threads;       /* maxThreadsPerBlock (launch bounds and registers)     */
    int binary_version;    /* the SASS architecture that runs, e.g. 90             */
    int ptx_version;       /* the PTX it was compiled from, e.g. 90                */
} cml_kernel_info;

/* Fill *out for `kernel` (a __global__ function's address from a .cu
 * launcher). CML_EINVAL for a NULL kernel; CML_ECUDA with the message on g. */
cml_status cml_gpu_kernel_info(cml_gpu *g, const void *kernel, cml_kernel_info *out);

#ifdef __cplusplus
}
#endif
#endif
