/*
 * Experiment 16's pieces that its host files share (not a public header):
 *   peak.c           options, the row, the records of a sweep (variant, measure)
 *   peak_model.c     the mirror (the kernels' bodies, lab/peak_body.h) and its trace
 *   peak_findings.c  the class references of a run and the sentences on them
 * The kernels, the bench on a GPU, verification and the names and bytes of
 * each op are the lab's (src/lab/peak.h), which measures with them too.
 */
#ifndef CML_EXP_PEAK_INTERNAL_H
#define CML_EXP_PEAK_INTERNAL_H

#include "experiments/peak/peak.h"
#include "lab/common.h"

/* One point of the sweep; the options' fields (declared innermost first). */
typedef struct peak_settings {
    int64_t shape, block, kernel, size;
} peak_settings;

/* The per-class limits the counters can explain (peak_findings.c): the
 * metrics read for each class's best records, in this order. */
enum {
    PEAK_DIAG_DRAM_READ = 0,
    PEAK_DIAG_DRAM_WRITE,
    PEAK_DIAG_DRAM_BUSY,
    PEAK_DIAG_SM_ACTIVE,
    PEAK_DIAG_SM_ELAPSED,
    PEAK_DIAG_OCCUPANCY,
    PEAK_DIAG_COUNT
};
extern const char *const cml_peak_diag_metrics[PEAK_DIAG_COUNT];

/* The traces a sweep made, by what decides them (the traced n, the grid,
 * the op, shape and block): past the traced n every size has the same
 * trace, so a suite's 3 sizes trace each kernel once (a trace is tens of
 * milliseconds of the peak's run: bench/results/2026-11-27-h100-suite-60s.md). */
typedef struct cml_peak_trace_memo {
    struct peak_trace_entry {
        int op, shape;
        unsigned grid, block;
        uint64_t traced_n;
        int has_model, has_levels;
        cml_kernel_traffic model[CML_RULES_COUNT];
        cml_cache_config cache;
        cml_levels levels;
        struct cml_model_sample sample;
    } *items;
    size_t n, cap;
} cml_peak_trace_memo;

/* The run's state: one bench (buffers of n floats, filled once per size,
 * whatever the block), the device's size cap, which records of the current
 * size already had their counters read, and the traces made. */
typedef struct peak_state {
    cml_peak_bench bench;
    int open;
    uint64_t cap_bytes;     /* largest array: min(free memory / 4, 8 GiB); 0: not yet */
    size_t size_first;      /* first record of the bench's size */
    cml_peak_trace_memo memo;
    int prefilled;          /* the sweep's traces were made at its first point */
} peak_state;

/* peak_model.c: trace op/shape at n floats (grid-stride over gs_grid
 * blocks) into rec->model under both rule sets; traced at a smaller n
 * (noted, and *traced_n) when n is large. A trace `memo` holds (may be
 * NULL) is copied instead of made again; a new one is added to it. */
cml_status cml_peak_trace(cml_record *rec, cml_peak_op op, cml_peak_shape shape, uint64_t n,
                          unsigned gs_grid, unsigned block, uint64_t *traced_n,
                          cml_peak_trace_memo *memo);
void cml_peak_trace_memo_free(cml_peak_trace_memo *memo);

/* What decides one trace: the op and shape at n floats, over gs_grid blocks
 * of `block` threads (the launch's grid). */
typedef struct cml_peak_trace_job {
    cml_peak_op op;
    cml_peak_shape shape;
    uint64_t n;
    unsigned grid, block;
} cml_peak_trace_job;

/* Make the traces of `jobs` that memo does not hold yet, at the same time
 * over the host's cores (the model is a pure function of them: a suite's
 * 150 points trace in the time of a few), into memo; `cache` is the cache
 * levels' configuration every point gets. The points then find them there. */
void cml_peak_trace_prefill(cml_peak_trace_memo *memo, const cml_cache_config *cache,
                            const cml_peak_trace_job *jobs, size_t njobs);
/* Launch grid without a device: the grid-stride grid fills every SM with
 * resident threads, the one-shot grid covers the array. */
unsigned cml_peak_model_grid(const cml_plan *plan, cml_peak_shape shape, uint64_t n,
                             unsigned block);
/* Bytes the shape's threads touch per access and per step: W x U. */
unsigned cml_peak_bytes_per_thread(cml_peak_shape shape);

/* peak_findings.c: read the counters of the best record of each class among
 * records [first, end) of ctx->out (those of the bench's size), while the
 * bench still holds their buffers. No profiler: nothing. */
void cml_peak_read_counters(cml_sweep *ctx, size_t first, size_t end);
/* After the sweep: the class references, every record's share of its
 * class, and the findings on the bests, the layouts and the sizes. */
void cml_peak_finish(cml_sweep *ctx);

#endif
