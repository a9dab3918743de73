/*
 * A table an experiment opens its report with (docs/json-schema.md,
 * "tables"): a title, named columns and rows of cells, each a text or a
 * number. The experiment makes it from its records after its sweep (the
 * hierarchy: level x bandwidth and latency); the results carry it, so the
 * text report prints it before the experiment's main table and a saved file
 * keeps it ("tables" in the JSON). Fixed bounds: a table a reader accepts
 * from an untrusted file is one these hold.
 */
#ifndef CML_EXP_TABLE_H
#define CML_EXP_TABLE_H

#include <stddef.h>

#include "cumemlab/status.h"

#define CML_TABLE_MAX_COLS 10
#define CML_TABLE_MAX_ROWS 16
#define CML_TABLE_TEXT 32   /* bytes of a column name or a text cell, NUL included */
#define CML_TABLE_TITLE 256
#define CML_TABLE_MAX_DECIMALS 6

typedef struct cml_table_cell {
    char text[CML_TABLE_TEXT]; /* "" : the cell is `value` (NaN: none, "-") */
    double value;
} cml_table_cell;

typedef struct cml_exp_table {
    char experiment[32];       /* the records' `experiment` */
    char title[CML_TABLE_TITLE];
    unsigned ncols, nrows;
    char column[CML_TABLE_MAX_COLS][CML_TABLE_TEXT];
    int decimals[CML_TABLE_MAX_COLS]; /* how a number of the column is written */
    cml_table_cell cell[CML_TABLE_MAX_ROWS][CML_TABLE_MAX_COLS];
} cml_exp_table;

/* The tables of a results set, in the order they were added. */
typedef struct cml_exp_tables {
    cml_exp_table *v;
    size_t n, cap;
} cml_exp_tables;

/* Add a copy of t. CML_EINVAL when its experiment is empty, a count is 0 or
 * beyond its bound, or a column's decimals are outside 0..6; CML_ENOMEM. */
cml_status cml_exp_tables_add(cml_exp_tables *s, const cml_exp_table *t);
void cml_exp_tables_free(cml_exp_tables *s);

/* Set cell (row, col) of t to a number or a text (cut to fit); ignored out of bounds. */
void cml_table_number(cml_exp_table *t, unsigned row, unsigned col, double v);
void cml_table_text(cml_exp_table *t, unsigned row, unsigned col, const char *text);

/* Cell (row, col) as the reports write it: its text, a number with its
 * column's decimals (%.6g from 1e12 on: a file may hold any number), or
 * "-" for none. */
void cml_table_cell_text(char *buf, size_t len, const cml_exp_table *t, unsigned row,
                         unsigned col);

#endif
