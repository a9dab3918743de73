/*
 * Kernels compiled at run time (NVRTC, gpu/nvrtc.h), loaded and launched
 * through the CUDA runtime's library API (CUDA 12+): cudaLibraryLoadData
 * takes the cubin, cudaLibraryGetKernel gives a cudaKernel_t, which the
 * runtime accepts wherever it takes a __global__ function's address
 * (cudaLaunchKernel, cudaFuncSetAttribute, the occupancy calculator, so
 * cml_gpu_occupancy too), and cudaLibraryGetGlobal gives a __constant__ or
 * __device__ variable's address for cml_gpu_upload.
 *
 * Every call is checked like the rest of the harness (CML_CU): a failure
 * leaves its message on the device handle and returns CML_ECUDA.
 *
 * In a build without CUDA (CML_NO_CUDA) module.c is left out, like every
 * src/gpu file that includes a CUDA header: these declarations are weak
 * references there (gpu/launcher.h), reached only through an open GPU.
 */
#ifndef CML_GPU_MODULE_H
#define CML_GPU_MODULE_H

#include <stddef.h>

#include "cumemlab/model.h"
#include "gpu/gpu.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_module cml_module;

/* Load a cubin (or fatbin) image on g's device. The image may be freed
 * after the call. */
CML_LAUNCHER cml_status cml_module_load(cml_gpu *g, const void *image, cml_module **out);

/* Unload; kernels and globals of m are invalid afterwards. NULL is fine.
 * Anything that may still launch them (a queued counters pass) must have
 * run first. */
CML_LAUNCHER void cml_module_unload(cml_module *m);

/* The kernel `name` (an extern "C" __global__ function) as a handle for
 * cml_module_launch, cml_module_set_smem and cml_gpu_occupancy. */
CML_LAUNCHER cml_status cml_module_kernel(cml_module *m, const char *name, const void **kernel);

/* The device address and size of the global `name`. */
CML_LAUNCHER cml_status cml_module_global(cml_module *m, const char *name, void **dptr,
                                          size_t *bytes);

/* Allow `bytes` of dynamic shared memory per block (above 48 KiB a kernel
 * must opt in, up to the device's shared_per_block_optin). */
CML_LAUNCHER cml_status cml_module_set_smem(cml_gpu *g, const void *kernel, size_t bytes);

/* Launch on the default stream (where the harness times), asynchronously;
 * args[k] points at the k-th kernel parameter's value. The launch status is
 * checked (the harness's last-error text names the call on failure). */
CML_LAUNCHER cml_status cml_module_launch(const void *kernel, cml_dim3 grid, cml_dim3 block,
                                          size_t smem, void **args);

#ifdef __cplusplus
}
#endif
#endif
