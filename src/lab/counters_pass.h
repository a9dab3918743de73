/*
 * The experiments' counters pass, deferred and batched.
 *
 * Every timed variant gets its hardware counters read in launches of its own
 * (cml_exp_time). Profiling each launch on its own costs about 85 ms on an
 * H100 (the whole counter map, 6 passes), nearly all of it CUPTI starting
 * the passes, whatever the kernel; 32 launches in one profiling session cost
 * about 14 ms each (bench/results/2026-11-22-h100-counters-batching.md).
 * So cml_exp_time does not
 * profile right away: it queues the launcher, a copy of its arguments and the
 * record's index here, and the queue is profiled in sessions of up to
 * CML_COUNTERS_MAX_BATCH launches, every metric of the counter map each:
 *   - at the end of each experiment (cml_counters_pass_flush, called by
 *     whoever runs it, before the records are read);
 *   - before a buffer that a queued launch may use is freed (the harness's
 *     buffer hook, cml_counters_pass_on_buffer: a buffer allocated before the
 *     newest queued launch), so no replay touches freed memory;
 *   - when a buffer is about to be poisoned and a full batch is waiting: a
 *     poison starts a variant's measurement, the point where the replays'
 *     output writes cannot disturb a verification (the poison and the new
 *     variant's launches overwrite them).
 * Replaying later gives the counts the launch had then because they depend
 * only on the addresses the kernels touch, which follow from their
 * arguments (copied) and never from data: no kernel of the experiments
 * reads an address or an index from memory.
 *
 * The profiler and the harness sit behind a small backend, so that the
 * queueing rules are tested on the CPU (tests/test_counters_pass.c).
 */
#ifndef CML_COUNTERS_PASS_H
#define CML_COUNTERS_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"
#include "gpu/gpu.h"

struct cml_counters;

/* What the pass needs from the profiler and the harness. */
typedef struct cml_counters_backend {
    /* cml_counters_measure_batch; `err` receives the profiler's message. */
    cml_status (*measure)(void *user, size_t k, const cml_launch_fn *launch, void *const *ctx,
                          const char *const *metrics, size_t n, double *values, size_t *failed,
                          char *err, size_t errlen);
    /* cml_gpu_next_alloc: buffers numbered below it exist already. */
    uint64_t (*next_alloc)(void *user);
    void *user;
    /* cml_gpu_release_kept, after the launches that read the kept buffers
     * were profiled (NULL: nothing is kept). */
    void (*release)(void *user);
    /* cml_counters_passes: the passes the last measure took (NULL: a
     * backend that cannot say; its windows are taken as one pass). */
    size_t (*passes)(void *user);
} cml_counters_backend;

typedef struct cml_counters_pass cml_counters_pass;

/* A pass over `backend` (copied); NULL when out of memory. */
cml_counters_pass *cml_counters_pass_new(const cml_counters_backend *backend);
/* A pass over an open profiler and the harness's device `gpu` (the one the
 * profiler reads); NULL when either is NULL or out of memory. */
cml_counters_pass *cml_counters_pass_open(struct cml_counters *profiler, cml_gpu *gpu);
/* Drops anything still queued (flush first). NULL is fine. */
void cml_counters_pass_free(cml_counters_pass *p);

/* The results the queued records belong to, until the next begin (which
 * flushes what was queued for other results): records are found by index,
 * since the array may move as it grows. */
void cml_counters_pass_begin(cml_counters_pass *p, cml_results *out);

/*
 * Queue the counters of `rec` (a record of the results given to begin):
 * `launch(copy of ctx)` will be profiled with every metric of the counter
 * map, beside the record's model. ctx_size bytes of ctx are copied; the
 * launcher must not rely on anything else that the caller owns. Returns
 * CML_EINVAL when rec is not in those results (nothing queued), CML_ENOMEM.
 */
cml_status cml_counters_pass_add(cml_counters_pass *p, cml_record *rec, cml_launch_fn launch,
                                 const void *ctx, size_t ctx_size);

/* Profile everything queued and fill the records: rec->counters[] beside
 * the model's prediction; a launch that fails fails its record (state and
 * note); a profiler failure leaves the records without counters, noted. */
void cml_counters_pass_flush(cml_counters_pass *p);

/* Launches waiting. */
size_t cml_counters_pass_pending(const cml_counters_pass *p);
/* Window sessions (counter_map.h, CML_COUNTER_WINDOWS) read in one pass
 * and put in place of the map's values, over the pass's life. */
size_t cml_counters_pass_windows(const cml_counters_pass *p);

/* The harness's buffer hook (cml_gpu_set_buffer_hook) with user = the pass:
 * a buffer a queued launch may read is kept where the harness can keep it
 * (CML_BUFFER_KEEP; released after the next flush), else the queue is
 * profiled before it goes; a poison with a full batch waiting, or a want of
 * memory, profiles the queue too. */
int cml_counters_pass_on_buffer(void *pass, uint64_t seq, cml_buffer_event event);

/*
 * Profile one launch now and fill rec the same way (no queue: for callers
 * without a pass, e.g. tests that run an experiment directly).
 */
cml_status cml_counters_now(struct cml_counters *profiler, cml_record *rec, cml_launch_fn launch,
                            void *ctx);

#endif
