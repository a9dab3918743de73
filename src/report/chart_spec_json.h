/*
 * A chart spec (core/chart_spec.h) as JSON: the one form both documents
 * that carry specs use, the registry (`cumemlab list --json`) and the
 * results file's "experiments" (docs/json-schema.md), so that a reader of
 * either knows the other. The enums are written as names, never as their C
 * values, so that a reader need not know them.
 */
#ifndef CML_REPORT_CHART_SPEC_JSON_H
#define CML_REPORT_CHART_SPEC_JSON_H

#include "core/chart_spec.h"
#include "report/json_writer.h"

/* The names, NULL-terminated, each at the index of its enum value. */
extern const char *const cml_chart_shape_names[];   /* "sweep", "bars", "extras" */
extern const char *const cml_chart_scale_names[];   /* "linear", "log2", "log10" */
extern const char *const cml_chart_format_names[];  /* "number", "bytes", "percent", "whole" */
extern const char *const cml_chart_metric_names[];  /* "none", "bandwidth", ... */

/* One spec as an object (docs/json-schema.md, `charts[]`). */
void cml_chart_spec_json(cml_json *j, const cml_chart_spec *c);

#endif
