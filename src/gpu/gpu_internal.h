/* Internal to the harness and the .cu launchers. */
#ifndef CML_GPU_INTERNAL_H
#define CML_GPU_INTERNAL_H

#include <stdarg.h>

#include "gpu/gpu.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check a CUDA runtime call; on failure remember the message (the harness's
 * one error channel: cml_gpu_error, cml_gpu_last_error) and return
 * CML_ECUDA from the enclosing function. */
#define CML_CU(call)                                                                     \
    do {                                                                                 \
        cml_status cml_st_ = cml_gpu_check((int)(call), #call, __FILE__, __LINE__);      \
        if (cml_st_ != CML_OK)                                                           \
            return cml_st_;                                                              \
    } while (0)

/* Check the launch just made (configuration errors show up here). */
#define CML_CU_LAUNCH() CML_CU(cudaGetLastError())

/* The message of the last failed check in this thread ("" if none). */
const char *cml_gpu_last_error(void);
/* Forget it (before calling a launcher, so a stale message is never blamed). */
void cml_gpu_clear_last_error(void);
/* Set the message to a harness's own words (printf-style). */
void cml_gpu_set_last_error_v(const char *fmt, va_list ap);

/* Take the next allocation number (host_memory.c numbers its memory with the
 * device buffers) / tell the buffer hook, if any, about an event. */
uint64_t cml_gpu_take_alloc_number(cml_gpu *g);
/* Call the buffer hook (none while it runs); its answer, CML_BUFFER_FREE_NOW
 * without one. */
int cml_gpu_buffer_event(cml_gpu *g, uint64_t seq, cml_buffer_event event);

/* Fill kernel of the harness (src/gpu/fill.cu): p[i] = cml_random_f32(seed, i)
 * for i < n, grid-stride; returns the launch status. */
CML_LAUNCHER cml_status cml_gpu_launch_fill_f32(float *p, size_t n, uint64_t seed, unsigned grid,
                                                unsigned block);

/* Stream hold (src/gpu/hold.cu): a one-thread kernel that returns once
 * *release (mapped host memory) is nonzero, or after timeout_ns with
 * *timed_out set. */
CML_LAUNCHER cml_status cml_gpu_launch_hold(const int *release, int *timed_out,
                                            unsigned long long timeout_ns);

#ifdef __cplusplus
}
#endif
#endif
