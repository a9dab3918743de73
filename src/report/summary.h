/*
 * The one-screen summary the terminal table and the HTML report lead with:
 * for each experiment, its best and its worst variant by the experiment's
 * main figure, how many times better the best is, and the sentence that
 * explains it. The long per-record tables follow it.
 *
 * The main figure of an experiment comes from the charts its registry row
 * declares (core/chart_spec.h), as the results carry them (a file's
 * "experiments"; for a file without them, the registry's row:
 * cml_chart_plan_describe), in their order: the first measured figure
 * (bandwidth, higher is better; kernel time, lower is better) that at least
 * two of the records a chart draws carry; else (a model-only run, say) the
 * first of the other figures whose direction is known (efficiency and
 * occupancy: higher is better; sectors, wavefronts, conflicts and
 * serialized accesses per request: lower is better; an extra figure: as
 * its metric declares, `better`). An experiment without such a chart (or
 * one the registry does not know) is compared by measured bandwidth, or by
 * measured time where its variants move less than 1 MiB; and where nothing
 * was measured, by the model's own figures of every record: efficiency,
 * then sectors per request, shared wavefronts, constant serialization. The
 * records compared are those the chart draws (a sweep's records, the
 * choice it is restricted to), so that times are compared only between
 * variants that do the same work.
 *
 * The sentence: the worst variant's finding, else the next finding after
 * it among the experiment's records (an experiment writes the sentence
 * about a whole sweep on the sweep's last record), else the last one
 * before it.
 */
#ifndef CML_REPORT_SUMMARY_H
#define CML_REPORT_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "core/chart_spec.h"
#include "core/record.h"

typedef struct cml_summary_row {
    const char *experiment;        /* registry key (points into the results) */
    size_t nrecords;               /* records of the experiment */
    cml_metric_id metric;          /* CML_METRIC_NONE: fewer than two to compare */
    const char *metric_arg;
    char metric_name[48];          /* an extra figure as its chart names it ("bytes in
                                      flight", "DRAM reads (model)"): its label */
    int higher_is_better;
    size_t compared;               /* records that carried the figure */
    const cml_record *best, *worst;
    double best_value, worst_value;
    double ratio;                  /* best over worst as "times better" (>= 1); NAN when
                                      a value is not positive */
    char best_name[96], worst_name[96]; /* what tells them apart: "offset=0 ca" */
    const cml_record *explained;   /* the record whose finding is shown; NULL: none */
} cml_summary_row;

typedef struct cml_summary {
    cml_summary_row *rows;         /* one per experiment, in order of first appearance */
    size_t n;
} cml_summary;

/* The summary of r (which must outlive it). CML_ENOMEM when out of memory
 * (s is then empty). */
cml_status cml_summary_build(const cml_results *r, cml_summary *s);
void cml_summary_free(cml_summary *s);

/* The direction of a figure: 1 higher is better, -1 lower is better, 0
 * unknown (an extra figure, say). */
int cml_summary_direction(cml_metric_id id);

/* How the summary names a figure ("GB/s", "time us", "eff %", "sect/req"),
 * and a row's figure (an extra one by its chart's name for it). */
const char *cml_summary_metric_label(cml_metric_id id);
const char *cml_summary_row_label(const cml_summary_row *row);

/* A figure's value for reading: "2620.0", "80.0", "4.00", "0.0123". */
void cml_summary_fmt_value(char *buf, size_t len, double v);

/* The terminal summary: a title, a row per experiment, within `width`
 * columns and about `max_lines` lines (at least one line per experiment;
 * the findings take the room left: lines of their own when there is room
 * for them, else the end of the row), every cut at a word boundary with
 * "...". Nothing when there are no rows. */
void cml_summary_print(FILE *out, const cml_summary *s, size_t width, size_t max_lines);

/* The HTML summary: a <table> with a row per experiment, the experiment
 * linked to its section (`anchor_of` gives the anchor of row i, experiment
 * key, with `ctx`; NULL: no links), long names and findings cut at a word
 * boundary with the whole text one click away (a tooltip, <details>).
 * `caption`: the table's caption. */
typedef void (*cml_summary_anchor_fn)(char *buf, size_t len, size_t i, const char *key,
                                      const void *ctx);
void cml_summary_html(FILE *out, const cml_summary *s, const char *caption,
                      cml_summary_anchor_fn anchor_of, const void *ctx);

#endif
