/*
 * The counters measured for a traced launch (the trace's CNTR chunks,
 * trace_file.h) beside the model's figures for the same launch: one row
 * per metric of the lab's counter map, judged as `validate` judges the
 * lab's own kernels where the comparison means something (docs/trace.md,
 * "Measured counters").
 */
#ifndef CML_TRACE_MEASURED_H
#define CML_TRACE_MEASURED_H

#include <stdio.h>

#include "counters/counter_map.h"
#include "report/json_writer.h"
#include "trace/trace_report_util.h"

typedef enum cml_tfm_verdict {
    CML_TFM_AGREES = 0,   /* equal (counts), or inside the model's interval  */
    CML_TFM_DIFFERS,
    CML_TFM_NOT_JUDGED,   /* see `why`                                        */
} cml_tfm_verdict;

typedef struct cml_tfm_row {
    const char *metric;
    const cml_counter_def *def; /* NULL: not a metric of the counter map     */
    double measured;
    int has_model;
    double model, lo, hi;       /* the model's point and interval            */
    cml_tfm_verdict verdict;
    const char *why;            /* not judged: why                           */
} cml_tfm_row;

/*
 * The rows of launch k (at most CML_TF_MAX_METRICS; *n of them) and the
 * launch's counters chunk, or NULL when none was measured for it (then *n
 * is 0). Nothing is judged when the trace sampled the launch (the model
 * then covers only the warps recorded) or when the chunk says it failed.
 */
const cml_tf_counters *cml_tfm_rows(const cml_tf_report *r, size_t k, cml_tfm_row *rows,
                                    size_t *n);

const char *cml_tfm_verdict_name(cml_tfm_verdict v);

/*
 * The per-instruction counters (PCNT chunk) of instruction s of launch k:
 * its row of values, with *pc the chunk, or NULL (none measured, or not one
 * of the kernel's own instructions). cml_tfm_pc_model gives the model's
 * figure for metric m of the chunk at s (1), or 0 where the model has none
 * to set beside it: "smsp__sass_inst_executed" and the per-space
 * instruction counts are the warp instructions recorded, the sectors of
 * global or local memory (not "ideal") the model's sectors.
 */
const uint64_t *cml_tfm_pc_values(const cml_tf_report *r, size_t k, const cml_tf_site *s,
                                  const cml_tf_pc_counters **pc);
int cml_tfm_pc_model(const char *metric, const cml_tf_site *s, double *model);

/* The lines of instruction s under its detail (text) and its "measured"
 * member (JSON: null when none). */
void cml_tfm_site_text(FILE *out, const cml_tf_report *r, size_t k, const cml_tf_site *s);
void cml_tfm_site_json(cml_json *j, const cml_tf_report *r, size_t k, const cml_tf_site *s); /* "agrees", "differs", "not judged" */

/* The text section ("Measured counters ...") for every launch that has one. */
void cml_tfm_text(FILE *out, const cml_tf_report *r);
/* The HTML section (a table per launch), nothing when no launch has one. */
void cml_tfm_html(FILE *out, const cml_tf_report *r);
/* The "measured" member of launch k's JSON object (null when none). */
void cml_tfm_json(cml_json *j, const cml_tf_report *r, size_t k);

#endif
