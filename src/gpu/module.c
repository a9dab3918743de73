/*
 * Run-time compiled kernels through the CUDA runtime's library API
 * (module.h). cudaLibrary_t rather than the driver's cuModule: the harness
 * links only the runtime (static), and the runtime's handles work with its
 * own launch, attribute and occupancy calls, so the rest of the harness
 * treats these kernels like the ones nvcc built.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "gpu/gpu_internal.h"
#include "gpu/module.h"

struct cml_module {
    cml_gpu *gpu;
    cudaLibrary_t lib;
};

cml_status cml_module_load(cml_gpu *g, const void *image, cml_module **out)
{
    *out = NULL;
    if (!g || !image)
        return CML_EINVAL;
    cml_module *m = calloc(1, sizeof *m);
    if (!m)
        return CML_ENOMEM;
    m->gpu = g;
    cml_status st = cml_gpu_check((int)cudaLibraryLoadData(&m->lib, image, NULL, NULL, 0, NULL,
                                                           NULL, 0),
                                  "cudaLibraryLoadData(&m->lib, image, ...)", __FILE__, __LINE__);
    if (st != CML_OK) {
        free(m);
        return st;
    }
    *out = m;
    return CML_OK;
}

void cml_module_unload(cml_module *m)
{
    if (!m)
        return;
    /* Nothing useful to do with a failure here: the library is gone for us
     * either way, and the harness keeps the message for a later report. */
    (void)cml_gpu_check((int)cudaLibraryUnload(m->lib), "cudaLibraryUnload(m->lib)", __FILE__,
                        __LINE__);
    free(m);
}

cml_status cml_module_kernel(cml_module *m, const char *name, const void **kernel)
{
    if (!m || !name || !kernel)
        return CML_EINVAL;
    cudaKernel_t k = NULL;
    CML_CU(cudaLibraryGetKernel(&k, m->lib, name));
    *kernel = (const void *)k;
    return CML_OK;
}

cml_status cml_module_global(cml_module *m, const char *name, void **dptr, size_t *bytes)
{
    if (!m || !name || !dptr)
        return CML_EINVAL;
    size_t b = 0;
    CML_CU(cudaLibraryGetGlobal(dptr, &b, m->lib, name));
    if (bytes)
        *bytes = b;
    return CML_OK;
}

cml_status cml_module_set_smem(cml_gpu *g, const void *kernel, size_t bytes)
{
    (void)g; /* the current device: the one g opened */
    if (!kernel)
        return CML_EINVAL;
    CML_CU(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return CML_OK;
}

cml_status cml_module_launch(const void *kernel, cml_dim3 grid, cml_dim3 block, size_t smem,
                             void **args)
{
    if (!kernel)
        return CML_EINVAL;
    dim3 g = {grid.x, grid.y, grid.z}, b = {block.x, block.y, block.z};
    CML_CU(cudaLaunchKernel(kernel, g, b, args, smem, 0));
    CML_CU_LAUNCH();
    return CML_OK;
}
