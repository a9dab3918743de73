/*
 * The HTML report: one self-contained file (inline CSS, charts as inline
 * SVG drawn by svg_chart.c, no script, no external reference; a Content
 * Security Policy forbids the page any fetch), readable offline and
 * printable. Reporters only see records: it renders a live run and a run
 * read back from JSON (json_read.h) the same way.
 *
 * Layout: a header (tool version, command line, the device facts and the
 * measured peak bandwidth, or the model-only banner), the run's diagnostics
 * when it has any, a list of the experiments, then for each experiment
 * (titled by its registry row): a paragraph computed from the numbers plus
 * the records' findings, its charts (those its registry row declares, drawn
 * from what the records carry: chart_plan.h), every record in an HTML
 * <table> and the hardware counters beside the model's predictions when
 * there are any (html_tables.h).
 */
#ifndef CML_REPORT_HTML_H
#define CML_REPORT_HTML_H

#include <stdio.h>

#include "core/record.h"

/* The whole report as one HTML document (a cml_report_fn, for
 * cml_report_write_file); CML_EIO if the stream failed, CML_ENOMEM. */
cml_status cml_report_html(FILE *out, const cml_results *r);

#endif
