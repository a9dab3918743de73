/*
 * Hardware counters, read inside cumemlab through CUPTI's range profiler
 * (CUDA 12.6+ API: cupti_range_profiler.h, cupti_profiler_host.h), never by
 * running or scraping another tool.
 *
 * One measurement profiles ONE launch of a kernel, in a range of its own: the
 * launcher is called once per profiling pass (user replay; the experiments'
 * kernels write the same output every time, so a replay changes nothing),
 * and before every range L2 is flushed by reading a buffer larger than L2, so
 * each starts with cold caches as Nsight Compute's default `--cache-control
 * all` does (docs/model-evidence.md §1) and the counts compare with the
 * model's cold-cache figures. Up to CML_COUNTERS_MAX_BATCH measurements share
 * one profiling session (cml_counters_measure_batch), which is what makes
 * counters cheap: starting a pass costs tens of milliseconds whatever the
 * kernel.
 *
 * Where the profiler cannot run (no CUPTI or no CUDA in this build, libcupti
 * missing at run time, no permission to read counters (ERR_NVGPUCTRPERM), an
 * unsupported device, another profiler attached) cml_counters_open answers
 * CML_EUNSUPPORTED with a one-line reason, and CML_ENOGPU without a GPU;
 * nothing here prints or exits.
 *
 * This layer and its .cu helper are the one place besides src/gpu that
 * calls CUDA: the profiler needs the device's context and a flush buffer.
 */
#ifndef CML_COUNTERS_H
#define CML_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/dram_background.h"
#include "cumemlab/model.h"
#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_counters cml_counters;

/* 1 if this build can read counters (CUPTI was found at configure time),
 * 0 if the counters layer is the stub that always says "built without CUPTI". */
int cml_counters_built(void);

/*
 * Open the profiler on CUDA device `device` (the harness must have opened
 * it, or open it next: the device's primary context is used). Loads
 * libcupti, checks the device, builds the configuration for the counter map
 * (counter_map.h) and profiles one empty launch, so that a handle returned
 * here is known to work. On failure *out is NULL and `why` holds one line:
 * CML_EUNSUPPORTED (profiler unavailable, see above), CML_ENOGPU (no device),
 * CML_ENOMEM.
 */
cml_status cml_counters_open(int device, cml_counters **out, char *why, size_t whylen);

/* Release everything (NULL is fine). */
void cml_counters_close(cml_counters *c);

/*
 * Profile one launch: values[i] receives metric i over the launch, or NaN
 * when this device does not have that metric (cml_counters_metric_ok says
 * why). `launch` is called once per pass (cml_counters_passes) after an L2
 * flush; it must start the same work each time. Returns CML_OK, CML_ECUDA
 * (a launch or CUDA call failed: cml_counters_error), CML_EUNSUPPORTED (the
 * profiler failed: cml_counters_error) or CML_EINVAL.
 */
cml_status cml_counters_measure(cml_counters *c, cml_launch_fn launch, void *ctx,
                                const char *const *metrics, size_t n, double *values);

/* Launches one profiling session may hold. */
#define CML_COUNTERS_MAX_BATCH 32

/*
 * Profile k launches (1..CML_COUNTERS_MAX_BATCH) with the same metrics in one
 * session: launch j is launch[j](ctx[j]) and gets values[j * n + i]. Every
 * launcher is called once per pass, in order, so each must still be able to
 * run (its buffers alive) when this is called. On CML_ECUDA *failed (may be
 * NULL) is the index of the launch that failed, else SIZE_MAX; no value is
 * set then.
 */
cml_status cml_counters_measure_batch(cml_counters *c, size_t k, const cml_launch_fn *launch,
                                      void *const *ctx, const char *const *metrics, size_t n,
                                      double *values, size_t *failed);

/*
 * Keep the range profiler enabled between measurements (1) instead of
 * enabling it around each one (0, the default). Keeping it saves the
 * enable/disable cost of every measurement; the launches in between (the
 * experiments' timed ones) then run with the profiler attached but idle.
 */
void cml_counters_keep_enabled(cml_counters *c, int keep);

/*
 * Detach the profiler from the code it has seen: the range profiler object
 * kept enabled between measurements is disabled now (the next measurement
 * enables a fresh one). Call it before unloading a library whose kernels
 * ran while the profiler was enabled: the object keeps the lazily loaded
 * functions it saw, and a library unloaded under it leaves it pointing at
 * freed code. Seen on CUDA 13.0, driver 580, H100 and H200: after `expr`
 * unloaded its NVRTC libraries, the next profiled launch faulted inside
 * libcuda (gone with CML_COUNTERS_KEEP=0 or CUDA_MODULE_LOADING=EAGER);
 * tests/gpu/test_expr_fault.c reproduces it. NULL: nothing.
 */
void cml_counters_detach(cml_counters *c);

/* One line: measurements so far, in how many sessions, passes per session,
 * and milliseconds per measurement spent in each step (enable, configure,
 * flush, start, push and pop, launch, stop, decode and evaluate). */
void cml_counters_timing(const cml_counters *c, char *buf, size_t len);

/* Wall seconds spent measuring counters so far (every batch, its
 * configuration and its passes). 0 for NULL. */
double cml_counters_seconds(const cml_counters *c);

/* 1 if `metric` can be collected on this device, else 0 with the reason in
 * `why` (may be NULL). Checked once per name and remembered. */
int cml_counters_metric_ok(cml_counters *c, const char *metric, char *why, size_t whylen);

/* The message of the last failure ("" if none). */
const char *cml_counters_error(const cml_counters *c);
/* CUPTI's name for the chip ("GH100"), "" before open. */
const char *cml_counters_chip(const cml_counters *c);
/* Passes the last session needed (launches of each kernel). */
size_t cml_counters_passes(const cml_counters *c);
/* Bytes read before each range to flush L2. */
uint64_t cml_counters_flush_bytes(const cml_counters *c);

/*
 * The DRAM background control (core/dram_background.h): n launches of a
 * block of 256 threads on every SM, each reading 32 KiB that L2 holds
 * (no DRAM access of their own past its first touch) for ms[i]
 * milliseconds, 0 < ms <= 60000, each profiled as a kernel is, for
 * dram__bytes_read.sum and dram__bytes_write.sum, into *out; then
 * `streams` stream controls (at most CML_DRAM_BACKGROUND_MAX), each the
 * L2 flush read again in a range of its own after the flush, as every
 * record's range begins, timed by events. CML_EUNSUPPORTED
 * (cml_counters_error says why) where the profiler cannot run or the
 * device has no DRAM counters, CML_ECUDA for a failed launch, CML_EINVAL
 * for bad arguments.
 */
cml_status cml_counters_dram_background(cml_counters *c, const double *ms, size_t n,
                                        size_t streams, cml_dram_background *out);

#ifdef __cplusplus
}
#endif
#endif
