/*
 * Reporters: they only ever see result records.
 * Files are written to a temporary name in the same folder and renamed, so a
 * failed run leaves no partial file.
 */
#ifndef CML_REPORT_H
#define CML_REPORT_H

#include <stdio.h>

#include "core/record.h"

/* Terminal tables, one per experiment, aligned, with units; predicted vs
 * measured where both exist; the finding sentence under each table. */
cml_status cml_report_table(FILE *out, const cml_results *r);

/* JSON (schema documented in docs/json-schema.md): numbers are numbers. */
cml_status cml_report_json(FILE *out, const cml_results *r);

/* The model's figures as the results' JSON writes them (docs/json-schema.md,
 * `model`): a traffic class (every field, sectors_per_request,
 * efficiency), and the cache levels with what they assumed. Other
 * documents that carry the model's figures (cumemlab-trace) use them. */
struct cml_json;
void cml_json_traffic(struct cml_json *j, const cml_traffic *t);
void cml_json_levels(struct cml_json *j, const cml_levels *l, const cml_cache_config *c);

/* CSV: one row per record, fixed header. */
cml_status cml_report_csv(FILE *out, const cml_results *r);
/* One CSV field (RFC 4180): quoted, its quotes doubled, only when it holds
 * a comma, a quote, CR or LF. */
void cml_csv_field(FILE *out, const char *s);
/* One CSV number in the shortest form that reads back exactly; an empty
 * field when v is not finite. */
void cml_csv_double(FILE *out, double v);

/* Write with `writer` to `path` through a temporary file and rename.
 * On failure writes a one-line reason into err and leaves no file. */
typedef cml_status (*cml_report_fn)(FILE *out, const cml_results *r);
cml_status cml_report_write_file(const char *path, cml_report_fn writer, const cml_results *r,
                                 char *err, size_t errlen);

#endif
