/*
 * The GPU harness: the only host code that calls the CUDA runtime.
 * Experiments (.c) use it to allocate, fill, poison, time, verify and read
 * device facts; kernels live in src/experiments/NAME.cu behind extern "C"
 * launchers. Every CUDA call is checked; the first failure is kept as a
 * message naming the call, file, line and CUDA error string.
 */
#ifndef CML_GPU_H
#define CML_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"
#include "cumemlab/model.h"
#include "model/status_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_gpu cml_gpu;

/* Number of usable devices; 0 with a one-line reason in `why` ("no CUDA
 * device found", "CUDA driver too old: ..."). Never fails otherwise. */
int cml_gpu_count(char *why, size_t whylen);

/* The path from GPU a to GPU b (a != b) as CUDA sees it. */
typedef struct cml_gpu_link {
    int peer_access;      /* a can load from and store to b's memory (cudaDeviceCanAccessPeer) */
    int performance_rank; /* the driver's relative rank of the path (0 best); -1 without access */
    int native_atomics;   /* atomics on b's memory work from a */
} cml_gpu_link;
/* CML_ECUDA with the message (cml_gpu_error) when CUDA cannot say; a == b
 * is CML_EINVAL. Without CUDA: CML_ENOGPU. */
cml_status cml_gpu_link_between(int a, int b, cml_gpu_link *out);
/* Kernels on GPU a may then use GPU b's memory (cudaDeviceEnablePeerAccess,
 * once per pair and process); the current device is unchanged. */
cml_status cml_gpu_enable_peer(int a, int b);

/* Open device `index`, read its facts. CML_ENOGPU / CML_EINVAL with a message. */
cml_status cml_gpu_open(int index, cml_gpu **out, char *err, size_t errlen);
void cml_gpu_close(cml_gpu *g);
const cml_device_facts *cml_gpu_facts(const cml_gpu *g);

/* The message of the last GPU failure in this thread ("" if none): the
 * harness's checks and the launchers' share this one channel, so it names
 * the failing call whichever of them failed. g may be NULL. */
const char *cml_gpu_error(const cml_gpu *g);

/* Device memory. */
/* A device buffer; `seq` is its allocation number on its cml_gpu (1, 2, ...
 * in order of allocation; 0 when nothing is allocated). */
typedef struct cml_dbuf { void *ptr; size_t bytes; uint64_t seq; } cml_dbuf;
cml_status cml_gpu_alloc(cml_gpu *g, cml_dbuf *b, size_t bytes);
void cml_gpu_free(cml_gpu *g, cml_dbuf *b);
/* Free and total device memory now (cudaMemGetInfo): what an experiment
 * checks before it asks for a buffer that may not fit. */
cml_status cml_gpu_mem_info(cml_gpu *g, size_t *free_bytes, size_t *total_bytes);
cml_status cml_gpu_upload(cml_gpu *g, cml_dbuf *dst, const void *src, size_t bytes);
cml_status cml_gpu_download(cml_gpu *g, void *dst, const cml_dbuf *src, size_t bytes);

/*
 * Buffer events: `hook` is called just before a buffer of this device (a
 * cml_dbuf, or cml_mem memory of host_memory.h) is freed or poisoned, with
 * the buffer's allocation number. The experiments' deferred counters pass
 * (src/lab/counters_pass.h) uses it to profile the launches it holds
 * while the buffers they read still exist. NULL removes the hook.
 *
 * CML_BUFFER_FREE_KEEPABLE is a cml_gpu_free whose memory the harness may
 * keep: a hook that returns CML_BUFFER_KEEP has the memory kept, untouched,
 * until cml_gpu_release_kept (where it fits in half the free device memory
 * beside what is kept; else the hook hears CML_BUFFER_FREE right after), so
 * launches it holds still read it and are profiled later in one batch
 * instead of one batch per freed buffer. Any other event or return value:
 * the memory is freed when the hook returns. Before an
 * allocation fails for want of memory while memory is kept, the hook gets
 * CML_BUFFER_NEED_MEMORY (seq 0): it should finish with the kept memory and
 * call cml_gpu_release_kept; the allocation is then tried again.
 */
typedef enum cml_buffer_event {
    CML_BUFFER_FREE = 0,
    CML_BUFFER_POISON,
    CML_BUFFER_FREE_KEEPABLE,
    CML_BUFFER_NEED_MEMORY
} cml_buffer_event;
enum { CML_BUFFER_FREE_NOW = 0, CML_BUFFER_KEEP = 1 };
typedef int (*cml_buffer_hook)(void *user, uint64_t seq, cml_buffer_event event);
void cml_gpu_set_buffer_hook(cml_gpu *g, cml_buffer_hook hook, void *user);
/* Free the memory kept for the hook (above); bytes kept now. */
void cml_gpu_release_kept(cml_gpu *g);
size_t cml_gpu_kept_bytes(const cml_gpu *g);
/* The allocation number the next buffer will get: every buffer allocated
 * before now has a smaller one. */
uint64_t cml_gpu_next_alloc(const cml_gpu *g);

/* Pseudo-random contents, never zeros: element i of a buffer filled with
 * `seed` is cml_random_f32(seed, i) (see core/random.h), so host code can
 * recompute any element without a copy. */
cml_status cml_gpu_fill_f32(cml_gpu *g, cml_dbuf *b, size_t count, uint64_t seed);
/* Poison: every byte 0xFF (a NaN for floats), before each timed kernel. */
cml_status cml_gpu_poison(cml_gpu *g, cml_dbuf *b);

/* A launcher starts one kernel (asynchronously) and returns the launch
 * status; ctx is the experiment's own argument block. */
typedef cml_status (*cml_launch_fn)(void *ctx);

/* Warm up (`warmup` launches, then untimed batches until the times settle),
 * then take at least `reps` samples with CUDA events: a sample is one launch,
 * or a batch of back-to-back launches lasting about 1 ms over its size.
 * While the samples' cv is above the noise limit, more are taken (all kept,
 * out->reps says how many); median, min, max, mean, cv. Checks every launch
 * and the final synchronisation. */
cml_status cml_gpu_time(cml_gpu *g, cml_launch_fn launch, void *ctx, unsigned warmup,
                        unsigned reps, cml_timing *out);

/* Wall seconds spent in cml_gpu_time so far (warm-up and samples): with
 * cml_counters_seconds, how a run's time divides (lab.c's diagnostics). */
double cml_gpu_timed_seconds(const cml_gpu *g);

/* The rest of a run's time on the device, by phase: allocating and freeing
 * (device, pinned, managed), copies through cml_gpu_upload/download, fills
 * and poisons (device and host), checks (cml_exp_verify's checker, on
 * either side, and host comparisons), and the model of each point. */
typedef enum cml_gpu_phase {
    CML_GPU_PHASE_ALLOC = 0,
    CML_GPU_PHASE_COPY,
    CML_GPU_PHASE_FILL,
    CML_GPU_PHASE_CHECK,
    CML_GPU_PHASE_MODEL,  /* an experiment's variant(): the model of a point */
    CML_GPU_PHASES
} cml_gpu_phase;
/* Seconds spent in a phase so far; add to it (a caller that times its own). */
double cml_gpu_phase_seconds(const cml_gpu *g, cml_gpu_phase phase);
void cml_gpu_phase_add(cml_gpu *g, cml_gpu_phase phase, double seconds);
/* Wall-clock seconds, for the difference of two readings. */
double cml_gpu_clock(void);

/* The stopping rule of cml_gpu_time: at least 5 samples (or the samples
 * asked for, if fewer), then stop once the median is known to within
 * `precision` at 95% confidence (cml_stats_median_settled), at most
 * max_factor times the samples asked for. The default is 0.5% and 4x;
 * precision 0 or max_factor 1 takes exactly the samples asked for (a
 * user's --reps). */
void cml_gpu_set_noise_limit(cml_gpu *g, double precision, unsigned max_factor);
/* On: each timed sample (not the warm-up's) follows an untimed launch of
 * the same work queued right before it, so that the sample starts on hot
 * hardware with no idle gap, as nvbandwidth times its copies (a warm-up
 * launch, then the timed one, in a blocked stream). Off by default. */
void cml_gpu_set_warm_before(cml_gpu *g, int on);

/* Occupancy of `kernel` (a __global__ function's address, from a .cu
 * launcher) at this block size and dynamic shared memory: active warps per
 * SM / maximum warps per SM. */
cml_status cml_gpu_occupancy(cml_gpu *g, const void *kernel, unsigned block, size_t smem,
                             double *fraction);

/* Record the outcome of a CUDA call (used by .cu launchers through
 * CML_CU_CHECK); returns CML_OK or CML_ECUDA. */
cml_status cml_gpu_check(int cuda_error, const char *expr, const char *file, int line);

#ifdef __cplusplus
}
#endif
#endif
