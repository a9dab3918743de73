/*
 * The counter map: every hardware metric cumemlab reads, the model's output
 * that predicts it (class and field of cml_kernel_traffic under the modern
 * rules) and how the two are compared. Pure C, no CUDA: the CPU tests check
 * it and the experiments use it to fill rec->counters[].
 *
 * Kinds:
 *   EXACT    a count; agreement is measured == predicted.
 *   PERCENT  a percentage (ncu's *.pct); agreement within 0.01 points.
 *   RELATIVE a count the cache levels predict (cumemlab/cache.h): L1 hit and
 *            L2 sectors agree within 1%, DRAM bytes within 2% (each with a
 *            noise floor, CML_NOISE_FLOOR_*: a difference under it is noise,
 *            and a counter whose figures both lie under it is not judged;
 *            `validate` measures the 1% against the sectors the kernel asks
 *            for).
 *   INFO     measured and reported, not judged: the model has no prediction
 *            for it (issued SASS instructions include predicated-off ones a
 *            mirror cannot see).
 */
#ifndef CML_COUNTER_MAP_H
#define CML_COUNTER_MAP_H

#include <stddef.h>

#include "core/dram_background.h"
#include "cumemlab/cache.h"
#include "cumemlab/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The noise floors of the cache-level counters, in bytes: what a kernel's
 * counters show that no access of the kernel made (docs/model-evidence.md
 * §2.1 gives the measurements). DRAM: 256 KiB, the most that kernels with
 * no DRAM traffic predicted measured (shared-banks writes, 262144 bytes on
 * the H100 and the H200; reads at most 96768). L1 hits and L2 sectors:
 * 32 KiB (1024 sectors), 8x the most measured where the model predicts
 * none (122 sectors, constant's L1 hits).
 */
#define CML_NOISE_FLOOR_SECTOR_BYTES 32768.0
#define CML_NOISE_FLOOR_DRAM_BYTES CML_DRAM_BACKGROUND_FIXED_BYTES

/* L1TEX's L2 read sectors that hit in the partition they reached first. */
#define CML_METRIC_L2_READ_HIT_TEX "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"

/*
 * L2 read misses by who asked (INFO rows of the map). A GPC's request that
 * misses counts once under GPC (its L2 partition's miss) and, where the
 * line's home is the other partition, once more under FABRIC (the miss
 * there); a unit outside the GPCs (host interface, copy engines, memory
 * management) counts under neither. DEVICE - GPC - FABRIC sectors are
 * thus read misses of units outside the GPCs, or fewer: the FABRIC count
 * also holds such units' forwarded misses, which the difference keeps.
 */
#define CML_METRIC_L2_READ_MISS_DEVICE "lts__t_sectors_aperture_device_op_read_lookup_miss.sum"
#define CML_METRIC_L2_READ_MISS_GPC "lts__t_sectors_srcnode_gpc_aperture_device_op_read_lookup_miss.sum"
#define CML_METRIC_L2_READ_MISS_FABRIC "lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum"

/* L2 write sectors to device memory by who wrote them, counted as the read
 * misses are (DEVICE - GPC - FABRIC: writes of units outside the GPCs), and
 * the two DRAM counters: docs/model-evidence.md §2.1. */
#define CML_METRIC_L2_WRITE_DEVICE "lts__t_sectors_aperture_device_op_write.sum"
#define CML_METRIC_L2_WRITE_GPC "lts__t_sectors_srcnode_gpc_aperture_device_op_write.sum"
#define CML_METRIC_L2_WRITE_FABRIC "lts__t_sectors_srcunit_ltcfabric_op_write.sum"
#define CML_METRIC_DRAM_READ "dram__bytes_read.sum"
#define CML_METRIC_DRAM_WRITE "dram__bytes_write.sum"

/*
 * The windows: metrics read in a profiling session of their own, so that
 * they come from one pass, one replay of the launch (the whole map takes
 * several, each a replay of its own, and what units outside the GPCs do
 * differs from one replay to the next). Window 0: DRAM reads and the three
 * read-miss counters; window 1: DRAM writes and the three write counters.
 * validate's DRAM floor sets a DRAM count against the outside units'
 * traffic of the same replay.
 */
#define CML_COUNTER_WINDOWS 2
#define CML_COUNTER_WINDOW_METRICS 4
/* Window w's metric names (w < CML_COUNTER_WINDOWS), or NULL. */
const char *const *cml_counter_window(size_t w);

typedef enum cml_ctr_kind {
    CML_CTR_EXACT = 0,
    CML_CTR_PERCENT,
    CML_CTR_INFO,
    CML_CTR_RELATIVE
} cml_ctr_kind;

/* The cml_traffic field (or derived figure) a metric is compared with. */
typedef enum cml_ctr_field {
    CML_CTR_NONE = 0,         /* INFO metrics: no prediction                       */
    CML_CTR_INSTRUCTIONS,     /* cml_traffic.instructions                          */
    CML_CTR_REQUESTS,         /* cml_traffic.requests                              */
    CML_CTR_SECTORS,          /* cml_traffic.sectors                               */
    CML_CTR_WAVEFRONTS,       /* cml_traffic.wavefronts                            */
    CML_CTR_BANK_CONFLICTS,   /* cml_traffic.bank_conflicts                        */
    CML_CTR_EFFICIENCY,       /* 100 * requested_bytes / efficiency_bytes          */
    CML_CTR_L1_HIT,           /* cml_levels.l1_hit_sectors                         */
    CML_CTR_L2_READ,          /* cml_levels.l2_read_sectors                        */
    CML_CTR_L2_WRITE,         /* cml_levels.l2_write_sectors                       */
    CML_CTR_DRAM_READ,        /* cml_levels.dram_read_bytes                        */
    CML_CTR_DRAM_WRITE,       /* cml_levels.dram_write_bytes                       */
    CML_CTR_FIELD_COUNT
} cml_ctr_field;

typedef struct cml_counter_def {
    const char *metric;   /* ncu / CUPTI metric name with its rollup */
    int cls;              /* cml_class, or -1 when the metric spans classes */
    cml_ctr_field field;
    cml_ctr_kind kind;
    const char *meaning;  /* one line for tables and docs */
} cml_counter_def;

size_t cml_counter_map_count(void);
const cml_counter_def *cml_counter_map_at(size_t i);
/* The entry of a metric name, NULL if it is not in the map. */
const cml_counter_def *cml_counter_map_find(const char *metric);
/* The metric names in map order (cml_counter_map_count() of them), ready
 * for cml_counters_measure. */
const char *const *cml_counter_map_metrics(void);

/* The model's prediction of `d` from whole-kernel traffic (modern rules):
 * 1 and *out set, or 0 when the map has no prediction for it (INFO, or a
 * cache-level metric: see cml_counter_predict_levels) or the prediction is
 * undefined (a percentage of a class with no traffic). */
int cml_counter_predict(const cml_counter_def *d, const cml_kernel_traffic *t, double *out);

/* The same, with the cache levels for the metrics they predict (lv NULL:
 * those have no prediction). */
int cml_counter_predict_levels(const cml_counter_def *d, const cml_kernel_traffic *t,
                               const cml_levels *lv, double *out);

/* Whether measured agrees with predicted under d's kind (INFO: always 1;
 * RELATIVE: within the tolerance of its field, relative to the larger of
 * the two, or within the field's floor). */
int cml_counter_agrees(const cml_counter_def *d, double measured, double predicted);

/* RELATIVE metrics: the tolerance as a fraction (0.01 or 0.02) and the
 * noise floor in the metric's unit (CML_NOISE_FLOOR_*: 1024 sectors,
 * 262144 bytes); 0 for other kinds. */
double cml_counter_tolerance(const cml_counter_def *d);
double cml_counter_floor(const cml_counter_def *d);

/* Whether `validate` judges a counter: every one but a RELATIVE one whose
 * measured value and the model's upper bound both lie at or under its
 * noise floor (cml_counter_floor), where a figure is noise. A measured
 * value that is not a number is judged (and differs). */
int cml_counter_judged(const cml_counter_def *d, double measured, double model_hi);

/* The model's interval [*lo, *hi] for a cache-level metric d predicted as
 * `predicted` (cml_counter_predict_levels): the figure's lo/hi of lv
 * (cml_levels.lo, .hi) scaled as the prediction is to the figure (a metric
 * may count bytes where the figure counts sectors, or a part of it). A
 * point (predicted) for other metrics, or when lv is NULL or unbounded. */
void cml_counter_level_bounds(const cml_counter_def *d, const cml_levels *lv, double predicted,
                              double *lo, double *hi);

/* Whether a record keeps d's value when it is 0 (a counter the model does
 * not predict is left out at 0): the L2 hit and the L2 read-miss and write
 * counters by who asked, where 0 is a figure (l2-residency's hit rate,
 * validate's DRAM floors) and absent means not collected. */
int cml_counter_kept_at_zero(const cml_counter_def *d);

/* What units outside the GPCs moved over a range, in bytes, from a trio of
 * counters by who asked (values `device`, `gpc`, `fabric` in sectors): the
 * DRAM bytes they read for L2 read misses (CML_METRIC_L2_READ_MISS_*), or
 * the bytes they wrote into L2 (CML_METRIC_L2_WRITE_*). 32 x (device - gpc
 * - fabric), 0 where that is not above 0 or a value is not a finite count
 * >= 0 (a file's values, or counters this GPU cannot collect: NAN). */
double cml_counter_outside_gpc_bytes(double device, double gpc, double fabric);

const char *cml_ctr_kind_name(cml_ctr_kind k);    /* "exact", "percent", "info", "relative" */
const char *cml_ctr_field_name(cml_ctr_field f);  /* "sectors", ...            */

#ifdef __cplusplus
}
#endif
#endif
