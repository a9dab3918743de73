/*
 * The CUDA side of the counters layer (counters_cuda.cu): the device's
 * context for CUPTI, the L2 flush before each profiled pass, and an empty
 * kernel to try the profiler on. Internal to src/counters.
 */
#ifndef CML_COUNTERS_CUDA_H
#define CML_COUNTERS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/model.h"
#include "model/status_gpu.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Make `device` current (its primary context, the one the runtime and the
 * harness use) and return that context (a CUcontext) and the driver's
 * device handle (a CUdevice). The driver functions are reached through
 * cudaGetDriverEntryPointByVersion, so nothing links libcuda. CML_ENOGPU
 * or CML_ECUDA with a one-line reason.
 */
CML_LAUNCHER cml_status cml_ctr_cuda_context(int device, void **ctx, int *cu_device, char *why,
                                             size_t whylen);

/* A buffer of *bytes for the flush: 3x the L2 of the current device, at
 * least 64 MiB. CML_ECUDA with a reason. */
CML_LAUNCHER cml_status cml_ctr_cuda_flush_alloc(void **buf, uint64_t *bytes, char *why,
                                                 size_t whylen);
CML_LAUNCHER void cml_ctr_cuda_free(void *buf);

/* Read the whole flush buffer (ld.global.cg) and wait: L2 then holds only
 * clean lines of the buffer, so the next kernel starts with a cold L2 and
 * evicting those lines writes nothing to DRAM. CML_ECUDA on failure
 * (cml_gpu_last_error names the call). */
CML_LAUNCHER cml_status cml_ctr_cuda_flush(void *buf, uint64_t bytes);

/* The launch of the DRAM background's stream control
 * (core/dram_background.h): the flush kernel over the flush buffer (ctx: a
 * cml_ctr_stream_args), between two events, waited for; ms becomes the
 * longest of its launches so far (one per profiler pass). */
typedef struct cml_ctr_stream_args {
    void *buf;
    uint64_t bytes;
    double ms;
} cml_ctr_stream_args;
CML_LAUNCHER cml_status cml_ctr_cuda_stream(void *ctx);

/* cudaDeviceSynchronize, checked. */
CML_LAUNCHER cml_status cml_ctr_cuda_sync(void);

/* A cml_launch_fn that starts an empty kernel (ctx unused). */
CML_LAUNCHER cml_status cml_ctr_cuda_noop(void *ctx);

/* The launch of the DRAM background control (core/dram_background.h): a
 * block of 256 threads on every SM, each reading the first `words` 4-byte
 * words of `set` through .cg (L2 holds them after their first touch) until
 * `ns` nanoseconds passed on the global timer (ctx: a cml_ctr_busy_args;
 * set's first word is also the sink the kernel never writes in practice;
 * words >= 256). */
typedef struct cml_ctr_busy_args {
    unsigned long long ns;
    void *set;
    unsigned words;
} cml_ctr_busy_args;
CML_LAUNCHER cml_status cml_ctr_cuda_l2_busy(void *ctx);

#ifdef __cplusplus
}
#endif
#endif
