/*
 * Chart planning: an experiment's records -> the charts the HTML report
 * draws of them and the sentences those charts give. No HTML here: the
 * charts are cml_chart values (svg_chart.h) and the sentences plain text,
 * so a test can check what is planned without parsing a page.
 *
 * What an experiment draws is declared in its registry row
 * (cml_experiment.charts, core/chart_spec.h) and carried by the results
 * it produced (core/exp_desc.h: a results file's "experiments"), so that a
 * file is drawn as its producer declared, by whichever cumemlab reads it;
 * the registry's rows, handed to the report as data
 * (cml_chart_plan_use_rows), stand in only for results that carry no
 * description of an experiment (files of older versions). The planner
 * draws each spec
 * from what the records carry: a sweep over a parameter the records have as
 * a number, series from the other parameters that vary, a point left out
 * where a record lacks the metric (no measurement, no model class, no
 * counter), and a chart with nothing to draw not planned at all. So records
 * of an older or newer cumemlab, model-only runs and measured runs all
 * render, each with the charts its numbers allow.
 */
#ifndef CML_REPORT_CHART_PLAN_H
#define CML_REPORT_CHART_PLAN_H

#include <stddef.h>

#include "core/chart_spec.h"
#include "core/exp_desc.h"
#include "core/record.h"
#include "lab/experiment.h"
#include "report/svg_chart.h"

#define CML_PLAN_MAX_CHARTS 10
#define CML_PLAN_MAX_SENTENCES 16
#define CML_PLAN_SENTENCE_LEN 480

/* The charts of one experiment and the sentences they give. Large: allocate
 * it (calloc), fill it with cml_chart_plan_build or _experiment, release
 * the charts with cml_chart_plan_free. */
typedef struct cml_chart_plan {
    cml_chart charts[CML_PLAN_MAX_CHARTS];
    size_t ncharts;
    char sentences[CML_PLAN_MAX_SENTENCES][CML_PLAN_SENTENCE_LEN];
    size_t nsentences;
    int oom;                   /* a chart, point or category could not be stored */
} cml_chart_plan;

/* The rows the report knows experiments by (their numbers, titles and
 * charts): the registry's table, handed over by the program before it
 * reports (the command line: cml_registry_rows), so that the report reads
 * rows as data and includes no experiment. Until then every experiment is
 * drawn with the fallback charts and titled by its key alone. The table
 * must outlive the reports. */
void cml_chart_plan_use_rows(const cml_experiment *const *rows, size_t count);

/* The row of an experiment key among those rows: exact keys only (a
 * record's key that merely starts another experiment's key is not that
 * experiment); NULL when no row has the key. */
const cml_experiment *cml_chart_plan_row(const char *key);

/* Where a description came from (cml_chart_plan_describe). */
typedef enum cml_desc_source {
    CML_DESC_NONE = 0,      /* neither knows the key: the fallback chart, the key as title */
    CML_DESC_RESULTS,       /* the results' own (the file's) */
    CML_DESC_REGISTRY       /* the registry row: results that carry no description of it */
} cml_desc_source;

/* How the reports draw experiment `key` of results r (NULL: none): r's own
 * description, else, explicitly as a fallback for files written before
 * results described their experiments, the registry row of that key
 * (cml_chart_plan_row), else nothing. *out is filled in every case (for
 * CML_DESC_NONE: the key, number 0, no title, no charts); its pointers
 * live as long as r or the rows. */
cml_desc_source cml_chart_plan_describe(const cml_results *r, const char *key,
                                        cml_exp_desc *out);

/* Plan `specs` over records recs[0..n) (all of one experiment), then the
 * hardware counters against the model's predictions when any record has
 * both. Whatever *plan held is overwritten (free it first). */
void cml_chart_plan_build(cml_chart_plan *plan, const cml_chart_spec *specs, size_t nspecs,
                          const cml_record *const *recs, size_t n);

/* The charts of experiment `key` of results r: its description's specs
 * (cml_chart_plan_describe), or, for a key neither r nor the registry
 * describes, the measured bandwidth of each variant. */
void cml_chart_plan_results(cml_chart_plan *plan, const cml_results *r, const char *key,
                            const cml_record *const *recs, size_t n);

/* The same by the registry alone (cml_chart_plan_results with r NULL). */
void cml_chart_plan_experiment(cml_chart_plan *plan, const char *key,
                               const cml_record *const *recs, size_t n);

/* 1 if a chart of spec `sp` draws record rec: an ok record with the choice
 * the spec asks for (or without that parameter), with the sweep's x as a
 * number, without the spec's `without_param`. */
int cml_chart_spec_selects(const cml_chart_spec *sp, const cml_record *rec);

/* Release the charts (the plan may be built again afterwards). */
void cml_chart_plan_free(cml_chart_plan *plan);

#endif
