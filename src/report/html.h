/*
 * The HTML report: one self-contained file (inline CSS, charts as inline
 * SVG drawn by svg_chart.c, no script, no external reference; a Content
 * Security Policy forbids the page any fetch), readable offline and
 * printable. Reporters only see records: it renders a live run and a run
 * read back from JSON (json_read.h) the same way.
 *
 * Layout: a header (tool version, command line, the measured peak
 * bandwidth, or the model-only banner), the run's diagnostics when it has
 * any, the one-screen summary (summary.h), the device facts, a list of the
 * experiments, then for each experiment
 * (titled by its registry row): a paragraph computed from the numbers plus
 * the records' findings, its charts (those its registry row declares, drawn
 * from what the records carry: chart_plan.h; each with its numbers one
 * click away under it), every record in an HTML
 * <table> and the hardware counters beside the model's predictions when
 * there are any (html_tables.h).
 */
#ifndef CML_REPORT_HTML_H
#define CML_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "core/record.h"

/* The whole report as one HTML document (a cml_report_fn, for
 * cml_report_write_file); CML_EIO if the stream failed, CML_ENOMEM. */
cml_status cml_report_html(FILE *out, const cml_results *r);

/* Pieces the comparison report (compare.h) shares with this page. */

/* The document up to <main>: head, Content Security Policy, style; `title`
 * is the <title> text (escaped here). */
void cml_html_begin(FILE *out, const char *title);
/* The footer and the end of the document. */
void cml_html_end(FILE *out, const char *tool_version);
/* The same with the footer's first sentences (HTML, written as it is) of
 * the caller's own: what its figures are (cml_html_end's: bandwidth). */
void cml_html_end_note(FILE *out, const char *tool_version, const char *note_html);
/* A run's reference: the model-only banner, or its peak bandwidth. */
void cml_html_run_peak(FILE *out, const cml_results *r);
/* A run's device facts as a table (nothing without them). */
void cml_html_device_table(FILE *out, const cml_results *r);
/* Anchor of the i-th experiment's section ("exp-3-aos-soa"): letters,
 * digits and '-'. */
void cml_html_anchor(char *buf, size_t len, size_t i, const char *key);
/* An experiment's heading: "1. Misaligned reads (read-offset)", numbered
 * and titled as r describes it (the number cumemlab list and the README
 * give it; for results without descriptions, the registry's:
 * cml_chart_plan_describe); the key alone for an experiment neither
 * describes. r may be NULL (the registry alone). */
void cml_html_experiment_title(char *buf, size_t len, const cml_results *r, const char *key);

struct cml_chart;
/* The numbers a chart draws, one click away under it: a <details> with a
 * <table> of every drawn point (x or category, then a column per series).
 * Nothing for a chart with no point. */
void cml_chart_data_html(FILE *out, const struct cml_chart *c);

#endif
