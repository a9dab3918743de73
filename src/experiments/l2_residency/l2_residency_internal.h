/*
 * Experiment 19's pieces its two host files share (not a public header):
 *   l2_residency.c      options, sizes, the model and its sentences, the row
 *   l2_residency_gpu.c  the measurement, the persisting-L2 limit and its
 *                       restoration, the findings across the records
 */
#ifndef CML_EXP_L2_RESIDENCY_INTERNAL_H
#define CML_EXP_L2_RESIDENCY_INTERNAL_H

#include "experiments/l2_residency/l2_residency.h"
#include "experiments/l2_residency/l2_residency_kernels.h"
#include "lab/common.h"

/* One point of the sweep; the options' fields (declared innermost first). */
typedef struct l2r_settings {
    int64_t ratio, prop, policy, hot, stream;
} l2r_settings;

/* hit-prop's choices, in order. */
enum { L2R_PROP_PERSISTING = 0, L2R_PROP_STREAMING };

/* The sizes of one point: from the device, or an H100's when there is none
 * (model only: `assumed` says so in the finding). */
typedef struct l2r_geom {
    uint64_t l2, persist_max;  /* bytes; persist_max 0: the device has no persisting L2 */
    uint64_t hot, chunks;      /* the hot set: bytes, 512-byte chunks */
    uint64_t stream, nv;       /* x and out: bytes each, float4s */
    int assumed;
} l2r_geom;

void cml_l2r_geometry(const cml_plan *plan, const l2r_settings *s, l2r_geom *g);

/* The run's state: the stream the window is set on, and the persisting-L2
 * limit as it was before the experiment touched it. */
typedef struct l2r_state {
    void *stream;
    int have_before, changed;
    size_t limit_before;
    size_t max_window;         /* cudaDevAttrMaxAccessPolicyWindowSize; 0: not read */
} l2r_state;

/* Fixed seeds: x, h, and the chunk hash. */
#define L2R_SEED_X 0x12E5000000000001ull
#define L2R_SEED_H 0x12E5000000000002ull
#define L2R_SEED_CHUNK 0x12E5000000000003ull

/* The counters by name (counter_map.c): NaN when the record has none. */
double cml_l2r_counter(const cml_record *rec, const char *metric);

/* l2_residency.c: the model's sentence for rec (and its extras), with the
 * set-aside and the window's bytes (a window covers at most
 * cudaDevAttrMaxAccessPolicyWindowSize), both in MiB. */
void cml_l2r_model_finding(const cml_plan *plan, cml_record *rec, const l2r_settings *s,
                           const l2r_geom *g, double set_aside, double window);

/* l2_residency_gpu.c */
cml_status cml_l2r_measure(cml_sweep *ctx, void *settings, cml_record *rec);
void cml_l2r_finish(cml_sweep *ctx);
void cml_l2r_release(cml_sweep *ctx);

#endif
