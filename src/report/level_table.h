/*
 * The opening table of an experiment whose records name the memory level
 * they exercise (the hierarchy's: docs/experiments/hierarchy.md): one row
 * per level, its working sets, the read, write and copy bandwidth and the
 * chase latency measured there (medians over its sizes), and where the
 * model puts those sizes. Built from the records alone, so `report` shows
 * it for any results file, and a model-only run shows the model's levels.
 */
#ifndef CML_REPORT_LEVEL_TABLE_H
#define CML_REPORT_LEVEL_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "core/record.h"

/* The levels a record may be placed at: L1, L2, DRAM, DRAM beyond the TLB's
 * reach. The codes are the records' `level_pred` and `level_meas` extras
 * (1, 2, 3, 4; 1.5 and 2.5 are the edges between two, in no row). */
#define CML_REP_LEVELS 4
/* The codes a model may give: the levels and the two edges (1, 1.5, 2,
 * 2.5, 3, 4). */
#define CML_REP_MODEL_LEVELS 6

typedef struct cml_rep_level_row {
    const char *name;     /* "L1" */
    double code;          /* 1 */
    size_t records;       /* records placed here: by their counters, else by the model */
    size_t by_counters;   /* of them, placed by their counters (level_meas) */
    size_t model_here;    /* of them, the model puts here too */
    size_t model_elsewhere[CML_REP_MODEL_LEVELS]; /* the others, by the model's code */
    size_t few_blocks;    /* of them, bandwidth records of fewer blocks than SMs: no median */
    double ws_lo, ws_hi;  /* their working sets (NAN: none has one) */
    double read_gbs;      /* the best read series' median (NAN: none measured) */
    char read_by[100];    /* that series: "cg slice" */
    double write_gbs, copy_gbs;   /* medians (NAN: none) */
    double cycles, ns;            /* the chases' median latency (NAN: none) */
} cml_rep_level_row;

/* 1 if some record carries `level_pred`: the experiment opens with the table. */
int cml_rep_has_levels_of_records(const cml_record *const *recs, size_t n);

/* Fills rows[CML_REP_LEVELS], *edge (records the model puts at an edge and
 * no counter placed) and *unknown (a level code that is none of the
 * levels'); 0, or -1 when out of memory (rows then unset). */
int cml_rep_level_rows(const cml_record *const *recs, size_t n, cml_rep_level_row *rows,
                       size_t *edge, size_t *unknown);

/* The table, its caption first; nothing for records without levels. */
void cml_rep_print_level_table(FILE *out, const cml_record *const *recs, size_t n,
                               size_t max_width);

/* The same table as HTML (the report's experiment section opens with it). */
void cml_rep_html_level_table(FILE *out, const cml_record *const *recs, size_t n);

#endif
