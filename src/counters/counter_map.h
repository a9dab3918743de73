/*
 * The counter map: every hardware metric cumemlab reads, the model's output
 * that predicts it (class and field of cml_kernel_traffic under the modern
 * rules) and how the two are compared. Pure C, no CUDA: the CPU tests check
 * it and the experiments use it to fill rec->counters[].
 *
 * Kinds:
 *   EXACT    a count; agreement is measured == predicted.
 *   PERCENT  a percentage (ncu's *.pct); agreement within 0.01 points.
 *   INFO     measured and reported, not judged: the model has no prediction
 *            for it (L1 hits, L2 sectors and DRAM bytes depend on cache state
 *            across warps, which the per-instruction model leaves out; issued
 *            SASS instructions include predicated-off ones a mirror cannot see).
 */
#ifndef CML_COUNTER_MAP_H
#define CML_COUNTER_MAP_H

#include <stddef.h>

#include "cumemlab/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_ctr_kind { CML_CTR_EXACT = 0, CML_CTR_PERCENT, CML_CTR_INFO } cml_ctr_kind;

/* The cml_traffic field (or derived figure) a metric is compared with. */
typedef enum cml_ctr_field {
    CML_CTR_NONE = 0,         /* INFO metrics: no prediction                       */
    CML_CTR_INSTRUCTIONS,     /* cml_traffic.instructions                          */
    CML_CTR_REQUESTS,         /* cml_traffic.requests                              */
    CML_CTR_SECTORS,          /* cml_traffic.sectors                               */
    CML_CTR_WAVEFRONTS,       /* cml_traffic.wavefronts                            */
    CML_CTR_BANK_CONFLICTS,   /* cml_traffic.bank_conflicts                        */
    CML_CTR_EFFICIENCY,       /* 100 * requested_bytes / efficiency_bytes          */
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
 * 1 and *out set, or 0 when the map has no prediction for it (INFO) or the
 * prediction is undefined (a percentage of a class with no traffic). */
int cml_counter_predict(const cml_counter_def *d, const cml_kernel_traffic *t, double *out);

/* Whether measured agrees with predicted under d's kind (INFO: always 1). */
int cml_counter_agrees(const cml_counter_def *d, double measured, double predicted);

const char *cml_ctr_kind_name(cml_ctr_kind k);    /* "exact", "percent", "info" */
const char *cml_ctr_field_name(cml_ctr_field f);  /* "sectors", ...            */

#ifdef __cplusplus
}
#endif
#endif
