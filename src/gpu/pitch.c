/*
 * Pitched allocations: cudaMallocPitch behind a status, like every harness
 * call (CML_CU leaves the failing call, file, line and CUDA's message on
 * the device handle).
 */
#include <cuda_runtime_api.h>

#include "gpu/gpu_internal.h"
#include "gpu/pitch.h"

cml_status cml_gpu_alloc_pitch(cml_gpu *g, cml_dbuf *b, size_t row_bytes, size_t height,
                               size_t *pitch_bytes)
{
    if (!g || !b || !pitch_bytes)
        return CML_EINVAL;
    b->ptr = NULL;
    b->bytes = 0;
    b->seq = 0;
    *pitch_bytes = 0;
    if (row_bytes == 0 || height == 0)
        return CML_EINVAL;
    void *p = NULL;
    size_t pitch = 0;
    CML_CU(cudaMallocPitch(&p, &pitch, row_bytes, height));
    b->ptr = p;
    b->bytes = pitch * height;
    b->seq = cml_gpu_take_alloc_number(g);
    *pitch_bytes = pitch;
    return CML_OK;
}

cml_status cml_gpu_pitch_for(cml_gpu *g, size_t row_bytes, size_t *pitch_bytes)
{
    cml_dbuf probe = {0};
    cml_status st = cml_gpu_alloc_pitch(g, &probe, row_bytes, 1, pitch_bytes);
    if (st != CML_OK)
        return st;
    cml_gpu_free(g, &probe);
    /* cml_gpu_free cannot return a status; a failed cudaFree leaves its
     * message on g, and the next CUDA call reports the sticky error. */
    return CML_OK;
}
