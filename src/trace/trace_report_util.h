/*
 * What the reports of a trace share (trace_report.c: text, JSON, CSV;
 * trace_html.c: HTML): the report's parts (cml_tf_report), the ranking of
 * the instructions over every launch, an instruction's name, source line
 * and figures as the tables show them,
 * the lab's sentence about it, and the what-if transforms of the
 * instructions the reports detail (trace_whatif.h), computed once.
 */
#ifndef CML_TRACE_REPORT_UTIL_H
#define CML_TRACE_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace_model.h"
#include "trace/trace_sources.h"
#include "trace/trace_whatif.h"

/* The what-if transforms of a report (cml_tfr_whatif). */
typedef struct cml_tfr_whatifs {
    cml_wi_list **site;     /* site[k][s]: the transforms of models[k].sites[s],
                               for the detailed ones */
    cml_ws_launch *shape;   /* shape[k]: launch k's block-shape what-if, for
                               the launches with a detailed instruction */
} cml_tfr_whatifs;

/* A trace's report: what every writer (trace_report.h) is given. */
typedef struct cml_tf_report {
    const cml_trace *t;
    const cml_tf_model *models; /* models[i]: the model of t->kernel[i] */
    const char *path;           /* the trace file, as named to the user */
    size_t top;                 /* instructions shown in full (their picture) */
    size_t ranked;              /* instructions in the ranking */
    const cml_tf_sources *src;  /* source lines (NULL: none) */
    cml_tfr_whatifs *whatif;    /* the what-if transforms of the detailed
                                   instructions (cml_tfr_whatif); NULL: none */
    const char *tool_version;   /* cumemlab's, for the HTML (NULL: not said) */
} cml_tf_report;

/* One instruction of one launch, for the ranking over every launch. */
typedef struct cml_tfr_ranked {
    size_t kernel;
    const cml_tf_site *site;
} cml_tfr_ranked;

/* Every instruction of every launch, most waste first (then launch, pc);
 * *n of them. NULL on out of memory (free the array). */
cml_tfr_ranked *cml_tfr_rank(const cml_tf_report *r, size_t *n);

/* The name a person reads: demangled when known ("?" for no such id). */
const char *cml_tfr_func_name(const cml_trace *t, uint32_t id);

/* The site's source line: buf = "FILE:LINE" (the file's last component),
 * "" when the trace has no line for it; *full (if not NULL) the whole file
 * name. The line, or 0. */
uint32_t cml_tfr_source(const cml_tf_report *r, const cml_tf_site *s, char *buf, size_t len,
                        const char **full);

/* The lab's sentence about one instruction (its figures as a record's). */
void cml_tfr_explain(const cml_tf_site *s, char *buf, size_t len);

/* One instruction's main figures, as the tables show them: per request,
 * sectors (shared: wavefronts, "wf") and the efficiency in percent; "-"
 * without a request (an atomic, or every warp refused). */
void cml_tfr_site_figures(const cml_tf_site *s, char *spr, char *eff, size_t len);

/* The what-if transforms of the instructions the reports detail (the
 * first r->top of the ranking) into r->whatif, the block shape's fitted
 * over the whole launch of each (trace_shape.h). CML_OK, or CML_ENOMEM
 * and the model's errors (r->whatif then NULL). */
cml_status cml_tfr_whatif(cml_tf_report *r);
void cml_tfr_whatif_free(cml_tf_report *r);
/* The transforms of site s of launch k; NULL when they were not examined
 * (not detailed, or r->whatif not computed). */
const cml_wi_list *cml_tfr_whatif_of(const cml_tf_report *r, size_t k, const cml_tf_site *s);

/* ---- the what-if transforms in each format (trace_whatif_report.c) ---- */

struct cml_json;

/* One transform in a line: "pad each row of 128 B by 1 element (4 B):
 * requests 64 -> 64, wavefronts 2048 -> 64, conflicts 1984 -> 0; saves
 * 253952 bytes (64 of 64 warps)". */
void cml_tfr_whatif_line(const cml_tf_site *s, const cml_wi *w, char *buf, size_t len);
/* Under a block shape of site s: the launch's fitted instructions
 * together and each other one under it ("the block shape is one choice
 * for the launch; its 2 fitted instructions together: wasted bytes 28672
 * -> 4096, saves 24576 bytes; k +0x0000 global load: sectors 128 -> 128,
 * saves nothing"). 1, or 0 when there is no such line (no shape, or s the
 * only instruction fitted). */
int cml_tfr_whatif_launch_line(const cml_tf_report *r, const cml_tf_site *s,
                               const cml_wi_list *l, char *buf, size_t len);
/* The text's block under a detailed instruction (nothing when l is NULL). */
void cml_tfr_whatif_text(FILE *out, const cml_tf_report *r, const cml_tf_site *s,
                         const cml_wi_list *l, unsigned width);
/* The JSON member "whatif": null when not examined, else an array. */
void cml_tfr_whatif_json(struct cml_json *j, const cml_tf_report *r, const cml_tf_site *s,
                         const cml_wi_list *l);
/* The CSV's what-if columns (CML_TFR_WHATIF_CSV_COLUMNS), each after a
 * comma, and the row's end: transform w of list l, or empty (w NULL, an
 * instruction's own row). */
#define CML_TFR_WHATIF_CSV_COLUMNS                                                             \
    "whatif,pad_elements,stride_bytes,width_bytes,warps_changed,saved_bytes,block_x,block_y,"  \
    "block_z,launch_saved_bytes"
void cml_tfr_whatif_csv(FILE *out, const cml_wi_list *l, const cml_wi *w);

#endif
