/*
 * Probes: small dedicated kernels (probe_kernels.cu) that settle the open
 * questions of docs/model.md §9 with hardware counters, each beside what the
 * model predicts for the same warp instruction. `cumemlab validate` runs
 * them after the experiments; docs/model-evidence.md records the answers.
 *
 * A probe is one warp-level instruction pattern: lane l accesses
 *   base + a*l + b*(l/2) + c*(l/4) + d*(l%16)   bytes into its region,
 * with the lanes of `active` taking part, issued `repeat` times per region,
 * over warps x iters fresh regions (cold caches for every region: each pass
 * also starts with a flushed L2).
 */
#ifndef CML_PROBES_H
#define CML_PROBES_H

#include <stddef.h>
#include <stdint.h>

#include "counters/counters.h"
#include "counters/probe_kernels.h"
#include "cumemlab/model.h"
#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_probe_def {
    const char *id;        /* "E4 offset-11 twice, cg" */
    const char *question;  /* "E1" .. "E7", or "1.5" for a worked example */
    int kind;              /* cml_probe_kind */
    int cache;             /* loads 0 ca 1 cg 2 nc; stores 0 wb 1 cg 2 cs */
    unsigned width;
    uint32_t base, a, b, c, d; /* lane offset formula (above), bytes */
    uint32_t active;
    unsigned repeat, iters, warps;
    uint64_t region;       /* bytes between regions (0: 4096) */
} cml_probe_def;

/* The metrics every probe reads: the counter map's, then
 * smsp__inst_executed_op_shared_ld.sum and _st.sum. */
#define CML_PROBE_MAX_METRICS 32
const char *const *cml_probe_metrics(size_t *n);

typedef struct cml_probe_result {
    const cml_probe_def *def;
    uint64_t issues;            /* probed instructions issued (warps*iters*repeat) */
    cml_kernel_traffic model;   /* the model's totals for those instructions */
    double value[CML_PROBE_MAX_METRICS]; /* measured, in cml_probe_metrics order */
} cml_probe_result;

size_t cml_probe_count(void);
const cml_probe_def *cml_probe_at(size_t i);

/* Lane offsets of a probe. */
void cml_probe_offsets(const cml_probe_def *d, uint32_t off[32]);

/*
 * The model's totals for a probe (CPU only): each issue analysed with
 * cml_model_access under the modern rules (for st-then-ld, the store and
 * the load), times warps*iters*repeat. CML_EINVAL/CML_EMISALIGNED for a
 * malformed probe.
 */
cml_status cml_probe_model(const cml_probe_def *d, cml_kernel_traffic *out, uint64_t *issues);

/* Run a probe on the GPU with counters. err gets one line on failure. */
cml_status cml_probe_run(cml_gpu *g, cml_counters *c, const cml_probe_def *d,
                         cml_probe_result *r, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
