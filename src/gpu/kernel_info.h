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

/*
 * The dynamic shared memory to launch `kernel` (at `block` threads, needing
 * `smem` dynamic bytes of its own) with so that an SM holds ONE of its blocks
 * at a time: the block then asks for more than half of the SM's shared
 * memory. *dyn gets the bytes to launch with (>= smem); the kernel's
 * cudaFuncAttributeMaxDynamicSharedMemorySize is raised to allow it (a
 * per-kernel attribute, not a device-wide setting). The occupancy calculator
 * must then answer one block per SM, else CML_EUNSUPPORTED with the reason
 * (cml_gpu_last_error). docs/model-evidence.md §4.3 uses such launches as the
 * control of the shared-memory counters of mixed kernels.
 */
cml_status cml_gpu_one_block_per_sm(cml_gpu *g, const void *kernel, unsigned block, size_t smem,
                                    size_t *dyn);

#ifdef __cplusplus
}
#endif
#endif
