/*
 * What a reader needs to draw an experiment's records: its number, title
 * and chart specs (core/chart_spec.h). A results set carries one per
 * experiment (cml_results.descs), so that a saved file is drawn from the
 * file alone ("experiments" in docs/json-schema.md) rather than from the
 * registry of whichever cumemlab reads it. The results own every string
 * and array of their descriptions. (No record.h here: the results hold a
 * cml_exp_descs, and record.c frees it.)
 */
#ifndef CML_EXP_DESC_H
#define CML_EXP_DESC_H

#include <stddef.h>

#include "core/chart_spec.h"
#include "cumemlab/status.h"

/* Bounds a description must keep (the reader refuses more; the registry's
 * rows keep well inside them): charts per experiment, strings per list
 * (extra_names, xmark_labels, ...), bytes of one text. */
#define CML_DESC_MAX_CHARTS 16
#define CML_DESC_MAX_LIST 16
#define CML_DESC_MAX_TEXT 255

typedef struct cml_exp_desc {
    char key[32];                  /* the records' `experiment` */
    int number;                    /* its number in the lab; 0: none */
    const char *title;             /* NULL: none (the report then shows the key) */
    const cml_chart_spec *charts;  /* its charts, in order; none: only the counters chart */
    size_t ncharts;
    void *owned;                   /* the one block holding everything above */
} cml_exp_desc;

/* Descriptions, one per key, in the order they were added. */
typedef struct cml_exp_descs {
    cml_exp_desc *v;
    size_t n, cap;
} cml_exp_descs;

/*
 * Add a description of experiment `key`: a deep copy of title and specs
 * (every string and list), so the caller's may go away. CML_EINVAL when
 * key is empty or too long, s already describes key, a text is longer than
 * CML_DESC_MAX_TEXT, or a count passes its bound above (err, if not NULL,
 * says which); CML_ENOMEM.
 */
cml_status cml_exp_descs_add(cml_exp_descs *s, const char *key, int number, const char *title,
                             const cml_chart_spec *specs, size_t nspecs, char *err,
                             size_t errlen);

/* The description of `key`, or NULL. */
const cml_exp_desc *cml_exp_descs_find(const cml_exp_descs *s, const char *key);

/* Release every description (cml_results_free does). */
void cml_exp_descs_free(cml_exp_descs *s);

#endif
