/*
 * The model side of a record (trace.c): a kernel's mirror traced under
 * both rule sets into rec->model, and the cache levels beneath; the cache
 * assumptions of a run; launch-shape arithmetic. The tracing shortcuts
 * (trace_repeat.h, trace_sample.h) build on it. Experiments reach all of
 * it through lab/common.h.
 */
#ifndef CML_LAB_TRACE_H
#define CML_LAB_TRACE_H

#include <stdint.h>

#include "core/record.h"
#include "cumemlab/cache.h"
#include "cumemlab/model.h"
#include "lab/experiment.h"

/* Run the mirror `fn` over grid x block under the modern and the Fermi rules
 * and store both predictions in rec->model (rec->has_model = 1), and the
 * cache levels under rec->cache in rec->levels (rec->has_levels = 1); also
 * sets rec->grid and rec->block. On error marks the record failed. */
cml_status cml_exp_trace(cml_record *rec, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                         const void *args);

/*
 * The cache levels of a record whose modern traffic is in rec->model
 * (cml_exp_trace and cml_exp_trace_1d call it): `fn` over grid x block
 * through cml_trace_levels under rec->cache (an H100 when unset) into
 * rec->levels, rec->has_levels = 1. A record without global or local
 * traffic gets zeros. On error marks the record failed.
 */
cml_status cml_exp_levels(cml_record *rec, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                          const void *args);

/* The cache levels' assumptions for a run of `plan`: the device's SMs,
 * residency limits, L1/shared and L2 sizes where known, else an H100's
 * (cml_cache_config_h100); no shared memory. The run engine puts it in
 * every record before the experiment's variant function runs. */
void cml_exp_cache_config(const cml_plan *plan, cml_cache_config *c);

/* ceil(a / b) for b > 0. */
static inline uint64_t cml_div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* 1-D launch shape helpers. */
static inline cml_dim3 cml_dim1(uint64_t x) { cml_dim3 d = {(uint32_t)x, 1, 1}; return d; }
static inline cml_dim3 cml_dim2(uint64_t x, uint64_t y)
{
    cml_dim3 d = {(uint32_t)x, (uint32_t)y, 1};
    return d;
}

/* Linear global thread index of a 1-D launch, and the warp base index. */
static inline uint64_t cml_gtid(const cml_thread *t)
{
    return (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
}

#endif
