/*
 * The reports of a trace (docs/trace.md): the terminal's one-screen summary
 * first (the launches, then the instructions ranked by the bytes they
 * waste), then for the worst instructions a typical warp's lanes, the
 * model's figures and the sentence that says why; JSON (schema
 * "cumemlab-trace", docs/json-schema.md) and CSV (one row per
 * instruction). Each writer has the shape of cml_output_fn, so that
 * cml_output_write puts its file in place.
 */
#ifndef CML_TRACE_REPORT_H
#define CML_TRACE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "trace/trace_model.h"
#include "trace/trace_report_util.h"

/* cml_tf_report, what a report is made of: trace_report_util.h. */

cml_status cml_tf_report_text(FILE *out, const void *report);
cml_status cml_tf_report_json(FILE *out, const void *report);
cml_status cml_tf_report_csv(FILE *out, const void *report);
/* The HTML page (trace_html.c): self-contained, the lab's style. */
cml_status cml_tf_report_html(FILE *out, const void *report);

/*
 * A warp's lanes as 32 characters (and a NUL) in line: '.' for an inactive
 * lane; global and local: the sector the lane's bytes are in, numbered
 * 0-9 then a-v by address among the warp's sectors (at most 32);
 * shared: the bank of the lane's first word, 0-9 then a-v. Returns the
 * distinct sectors (global, local) or banks (shared) the active lanes use.
 */
unsigned cml_tf_picture(const cml_tf_ins *r, char line[33]);

#endif
