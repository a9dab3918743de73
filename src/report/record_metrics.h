/*
 * The figures the report's charts take from each record, by the metric a
 * registry row names (core/chart_spec.h: CML_METRIC_*). A record that does
 * not have the figure (not measured, no model class, no such extra, not ok)
 * gives NAN, and the chart leaves its point out: so model-only runs, runs
 * with measurements and records of other versions all draw what they have.
 */
#ifndef CML_REPORT_RECORD_METRICS_H
#define CML_REPORT_RECORD_METRICS_H

#include "core/chart_spec.h"
#include "core/record.h"

/* How many extra figures the record holds: nextra, bounded by the room the
 * record has for them (every one of them is read: charts and tables). */
unsigned cml_rep_nextra(const cml_record *rec);

/* The record's figure for metric `id` (`arg`: the class name of
 * CML_METRIC_CLASS_SPR, the extra's name of CML_METRIC_EXTRA); NAN when the
 * record does not have it. */
double cml_rep_metric(const cml_record *rec, cml_metric_id id, const char *arg);

/* A latency record: one whose figure is the time of a dependent load, not
 * a bandwidth. It says so by its extras "cycles_per_load" and
 * "ns_per_load" (docs/json-schema.md, "extra"), which hierarchy's chase and
 * cluster-smem's latency test give: 1 and both (NAN where one is missing),
 * else 0. The table shows them where a bandwidth record has its GB/s. */
int cml_rep_latency(const cml_record *rec, double *cycles, double *ns);

#endif
