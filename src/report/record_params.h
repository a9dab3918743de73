/*
 * The parameters of records as the HTML report reads them (chart_plan.c for
 * series and categories, html_tables.c for columns and captions): a value
 * as text, as a number, which parameters vary across records, and a record's
 * values of those. Records from older or newer runs may lack a parameter;
 * every function here says so rather than guessing.
 */
#ifndef CML_REPORT_RECORD_PARAMS_H
#define CML_REPORT_RECORD_PARAMS_H

#include <stddef.h>

#include "core/record.h"

#define CML_REP_MAX_NAMES (CML_RECORD_MAX_PARAMS * 4)

/* A list of parameter names. */
typedef struct cml_rep_names {
    char v[CML_REP_MAX_NAMES][24];
    size_t n;
} cml_rep_names;

/* "256" -> 1 and *out = 256: a choice whose name is a number. */
int cml_rep_label_number(const char *s, double *out);

/* The parameter as a number: its value, or its choice name when that is a
 * number ("block": "256"); 0 for a name such as "ca" or a missing one. */
int cml_rep_param_num(const cml_record *rec, const char *name, double *out);

/* The parameter's choice name, else its value. */
void cml_rep_param_text(const cml_record_param *p, char *buf, size_t len);

/* 1 if the record has the parameter and its text is `label`. */
int cml_rep_param_is(const cml_record *rec, const char *name, const char *label);

/* Names of the parameters that differ between the records (or are missing
 * from some), in the order they first appear; `exclude` (NULL-terminated,
 * may be NULL) never counts. */
void cml_rep_varying_params(const cml_record *const *recs, size_t n, const char *const *exclude,
                            cml_rep_names *out);

/* The record's values of the `vary` parameters: "path=ca block=256" (named),
 * or "ca block=256" (bare: choice names alone, numbers with their name). */
void cml_rep_param_key(const cml_record *rec, const cml_rep_names *vary, int bare, char *buf,
                       size_t len);

/* The names joined by `sep`, cut where the buffer ends. */
void cml_rep_names_join(const cml_rep_names *v, const char *sep, char *buf, size_t len);

#endif
