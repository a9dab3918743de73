/*
 * Pitched device allocations (cudaMallocPitch) through the harness: the
 * driver chooses the row length, and the caller learns what it chose.
 */
#ifndef CML_GPU_PITCH_H
#define CML_GPU_PITCH_H

#include <stddef.h>

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Allocate `height` rows of at least `row_bytes` bytes with cudaMallocPitch.
 * On success *pitch_bytes is the row length the driver chose (>= row_bytes),
 * b->ptr the first row and b->bytes = pitch * height, so the buffer can be
 * poisoned, copied and freed (cml_gpu_free) like any other. On failure b is
 * empty, *pitch_bytes is 0 and cml_gpu_error(g) names the failing call.
 */
cml_status cml_gpu_alloc_pitch(cml_gpu *g, cml_dbuf *b, size_t row_bytes, size_t height,
                               size_t *pitch_bytes);

/* The pitch cudaMallocPitch chooses for rows of `row_bytes` (allocates one
 * row and frees it): for the model, before any buffer of that shape exists. */
cml_status cml_gpu_pitch_for(cml_gpu *g, size_t row_bytes, size_t *pitch_bytes);

#ifdef __cplusplus
}
#endif
#endif
