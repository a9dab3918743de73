/*
 * The engine's helpers that every experiment file uses (and the book's
 * programs, and the engine's own sweep): sizes, running a kernel mirror
 * under both rule sets into a record, composing variant names, and on a
 * GPU timing, verifying and the run's buffers.
 */
#ifndef CML_LAB_COMMON_H
#define CML_LAB_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "lab/experiment.h"
#include "lab/trace.h"
#include "lab/trace_repeat.h"
#include "lab/trace_sample.h"

/* Number of SMs and resident threads per SM to size grid-stride launches:
 * the device's when known, else an H100's (132, 2048) and the record says so. */
unsigned cml_exp_sm_count(const cml_plan *plan);

/* Scale every class of rec's model (both rules) by k: a kernel traced in
 * part (one pass of several, one warp of many alike) counted whole. The
 * cache levels are the caller's: what repeats in them is its mechanism. */
void cml_exp_scale_traffic(cml_record *rec, uint64_t k);
unsigned cml_exp_threads_per_sm(const cml_plan *plan);

/* Append "name=value" (or the choice label) to a variant string. */
void cml_variant_add(char *buf, size_t len, const char *name, long long value);
void cml_variant_add_label(char *buf, size_t len, const char *name, const char *label);
/* `variant` with one option set: "a=1 b=2" with "b=3" gives "a=1 b=3"; an
 * option the variant does not name is appended ("a=1 b=2 c=4"). The option
 * is matched at the start of a word, up to its '='. */
void cml_variant_with(const char *variant, const char *setting, char *buf, size_t len);

/* The `residency` option of kernels that use shared memory: validate's
 * control of their shared-memory counters (docs/model-evidence.md 4.3). */
extern const char *const cml_residency_names[]; /* "many", "one" */
enum { CML_RESIDENCY_MANY, CML_RESIDENCY_ONE };
#define CML_RESIDENCY_HELP                                                                  \
    "blocks an SM holds at once: as many as fit (many) or one (each block asks for more "  \
    "than half of the SM's shared memory: the control of docs/model-evidence.md 4.3)"

/* Launch `kernel` one block per SM (residency=one): *dyn gets the dynamic
 * shared memory to launch it with (cml_gpu_one_block_per_sm). Where the
 * device cannot, rec is waived with the reason and CML_EUNSUPPORTED comes
 * back (the measure function then returns CML_OK); a CUDA error fails rec. */
cml_status cml_exp_one_block_per_sm(cml_sweep *ctx, cml_record *rec, const void *kernel,
                                    unsigned block, size_t smem, size_t *dyn);

/* Add a record for (experiment, variant) or fail with CML_ENOMEM. */
#define CML_EXP_ADD(rec, out, exp, variant)                  \
    do {                                                     \
        (rec) = cml_results_add((out), (exp), (variant));    \
        if (!(rec))                                          \
            return CML_ENOMEM;                               \
    } while (0)

/*
 * A cache-level figure of a record for a finding: the hardware counter when
 * the record has it (returns 1, "measured"), else the model's levels
 * (returns 0), else -1 (no figure). `field` is one of CML_CTR_L1_HIT ..
 * CML_CTR_DRAM_WRITE (counters/counter_map.h).
 */
int cml_exp_level(const cml_record *rec, int field, double *value);

/* DRAM bytes the model's cache levels say a record's kernel moves (read,
 * written during the kernel, and still dirty in L2 at its end) per byte
 * the algorithm needs (bytes_read + bytes_written); 0 without levels. */
double cml_exp_dram_ratio(const cml_record *rec);

/* Human-readable sizes for findings: "64.0 MiB". */
void cml_fmt_bytes(char *buf, size_t len, double bytes);

/* Modern-rule shortcuts for findings. */
double cml_exp_spr(const cml_record *rec, cml_class c);  /* sectors per request */
double cml_exp_eff(const cml_record *rec, cml_rules r, cml_class c); /* efficiency 0..1 */

/* ---- GPU side (only with plan->gpu) ---------------------------------- */

#include "gpu/gpu.h"

/* The one place a failed GPU step is recorded: marks rec failed with the
 * harness's message for `st` (the failing call, file, line and CUDA error)
 * and returns st. */
cml_status cml_exp_fail(const cml_plan *plan, cml_record *rec, cml_status st);

/*
 * A device buffer the engine owns for the run (freed when the experiment
 * ends): slot `slot` of bytes `bytes`, filled with random floats of `seed`
 * (0: left as allocated; poison it yourself). Kept across the points while
 * the size and seed stay the same, re-allocated when they change. NULL on
 * failure, with rec marked failed.
 */
cml_dbuf *cml_sweep_buffer(cml_sweep *ctx, cml_record *rec, unsigned slot, size_t bytes,
                           uint64_t seed);

/* Defaults when the plan leaves them 0. */
#define CML_EXP_WARMUP 3u
#define CML_EXP_REPS 20u

/*
 * Time `launch(ctx)` on plan->gpu and fill rec: timing, bandwidth from
 * bytes_read + bytes_written over the median, share of plan->peak_gbs, and
 * occupancy of `kernel` at `block` threads and `smem` bytes of dynamic
 * shared memory (kernel may be NULL). On failure the record is marked failed
 * with the harness's message.
 *
 * With a profiler the record's counters are read too, usually later: the
 * launch is queued with a copy of *ctx (ctx_size bytes) for the deferred
 * counters pass (counters_pass.h), so ctx must point to the launcher's
 * whole argument struct and the launcher may use nothing else the caller
 * owns. cml_exp_time passes sizeof *(ctx) itself.
 */
cml_status cml_exp_time_copy(const cml_plan *plan, cml_record *rec, cml_launch_fn launch,
                             void *ctx, size_t ctx_size, const void *kernel, unsigned block,
                             size_t smem);
#define cml_exp_time(plan, rec, launch, ctx, kernel, block, smem) \
    cml_exp_time_copy((plan), (rec), (launch), (ctx), sizeof *(ctx), (kernel), (block), (smem))

/* A device-side checker: counts wrong elements into d_counters[0] and the
 * lowest wrong index into d_counters[1]. */
typedef cml_status (*cml_check_fn)(void *ctx, unsigned long long *d_counters);

/*
 * Run `check` and set rec->verify. A mismatch marks the record failed (its
 * figures must not be read as results) and returns CML_EVERIFY; a CUDA error
 * returns CML_ECUDA.
 */
cml_status cml_exp_verify(const cml_plan *plan, cml_record *rec, cml_check_fn check, void *ctx);

/* Allocate `count` random floats (seeded) / a poisoned output of `count`
 * floats; on failure the record carries the message. */
cml_status cml_exp_alloc_random(const cml_plan *plan, cml_record *rec, cml_dbuf *b, size_t count,
                                uint64_t seed);
cml_status cml_exp_alloc(const cml_plan *plan, cml_record *rec, cml_dbuf *b, size_t bytes);

/* A sentence explaining class `c` of a record's prediction from its numbers
 * (sectors per request against the ideal, efficiency, Fermi's view, shared
 * wavefronts, constant serialization). Used where no experiment-specific
 * sentence fits, e.g. for user expressions. */
void cml_exp_explain(const cml_record *rec, cml_class c, char *buf, size_t len);

/* The streaming experiments' three arrays: two random inputs A, B (seeds
 * seed_a, seed_b) and an output C of n floats each, in the engine's buffer
 * slots 0, 1 and 2 (kept across the points while n stays the same).
 * CML_ECUDA with rec marked failed when one cannot be had. */
typedef struct cml_exp_abc {
    cml_dbuf *A, *B, *C;
} cml_exp_abc;
cml_status cml_sweep_abc(cml_sweep *ctx, cml_record *rec, uint64_t n, uint64_t seed_a,
                         uint64_t seed_b, cml_exp_abc *g);

/* The measurement of a variant: poison `out`, time `launch` (cml_exp_time),
 * then check every output element (cml_exp_verify). */
cml_status cml_exp_measure_copy(const cml_plan *plan, cml_record *rec, cml_dbuf *out,
                                cml_launch_fn launch, void *ctx, size_t ctx_size,
                                const void *kernel, unsigned block, size_t smem,
                                cml_check_fn check, void *check_ctx);
#define cml_exp_measure(plan, rec, out, launch, ctx, kernel, block, smem, check, check_ctx)     \
    cml_exp_measure_copy((plan), (rec), (out), (launch), (ctx), sizeof *(ctx), (kernel), (block), \
                         (smem), (check), (check_ctx))

/* rec->finding = text, plus " Measured X GB/s (Y% of peak)." when measured, and
 * the sample and its bound when the model was sampled (cml_exp_sample_note). */
void cml_exp_finding_measured(cml_record *rec, const char *text);

#endif
