/*
 * The tables an experiment opens its report with (core/exp_table.h), as
 * the terminal report prints them: each table's title wrapped at
 * `text_width`, then its columns, numbers with the column's decimals and
 * "-" for none, in panels of at most `max_width` columns.
 */
#ifndef CML_REPORT_TABLE_OPENING_H
#define CML_REPORT_TABLE_OPENING_H

#include <stdio.h>

#include "core/record.h"

/* The tables of r whose experiment is `key`, in their order, each after an
 * empty line; how many (nothing printed when none). */
size_t cml_report_opening(FILE *out, const cml_results *r, const char *key, size_t max_width,
                          size_t text_width);

#endif
