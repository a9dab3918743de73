/*
 * The HTML report's tables of one experiment's records (html.c writes the
 * page around them): every record in a <table> whose columns follow what
 * the records carry (the parameters that tell them apart, the measured
 * figures when measured, the model's figures per access class and rule
 * set, the extra figures), one table per set of parameters
 * (html_tables.c); and the hardware counters beside the model's
 * predictions (html_counters.c). All text is escaped.
 */
#ifndef CML_REPORT_HTML_TABLES_H
#define CML_REPORT_HTML_TABLES_H

#include <stddef.h>
#include <stdio.h>

#include "core/record.h"

/* Every record of recs[0..n) (all of one experiment), in one table per
 * parameter signature (records that carry the same parameters), in order of
 * first appearance, each captioned `title` and what sets it apart. */
void cml_html_records_tables(FILE *out, const cml_record *const *recs, size_t n,
                             const char *title);

/* The hardware counters of the records beside the model's predictions, a
 * row per record and a column per counter, folded under a <details>;
 * nothing when no record has counters (html_counters.c). */
void cml_html_counters_table(FILE *out, const cml_record *const *recs, size_t n);

#endif
