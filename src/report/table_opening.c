/* The terminal's opening tables of an experiment (table_opening.h). */
#include "report/table_opening.h"

#include <stdlib.h>
#include <string.h>

#include "report/text_table.h"

static void print_one(FILE *out, const cml_exp_table *t, size_t max_width, size_t text_width)
{
    fputc('\n', out);
    cml_tt_wrap(out, "", t->title, text_width, 0);
    cml_tt tt;
    cml_tt_init(&tt, 2);
    const unsigned ncols = t->ncols < CML_TABLE_MAX_COLS ? t->ncols : CML_TABLE_MAX_COLS;
    const unsigned nrows = t->nrows < CML_TABLE_MAX_ROWS ? t->nrows : CML_TABLE_MAX_ROWS;
    for (unsigned c = 0; c < ncols; c++)
        cml_tt_add(&tt, NULL, NULL, t->column[c], c == 0 ? CML_TT_LEFT : CML_TT_RIGHT,
                   CML_TT_KEEP - (c != 0));
    cml_tt_row *rows = malloc(nrows * sizeof *rows); /* 12 KiB a row: not on the stack */
    if (!rows) {
        fputs("(out of memory: table not shown)\n", out);
        return;
    }
    for (unsigned r = 0; r < nrows; r++) {
        cml_tt_clear(rows[r], ncols);
        for (unsigned c = 0; c < ncols; c++) {
            char cell[CML_TABLE_TEXT + 32];
            cml_table_cell_text(cell, sizeof cell, t, r, c);
            cml_tt_set(rows[r], (int)c, "%s", cell);
        }
        cml_tt_measure(&tt, rows[r], CML_TT_NO_SPAN);
    }
    const size_t panels = cml_tt_fit(&tt, max_width);
    for (size_t p = 0; p < panels; p++) {
        if (p)
            fputc('\n', out);
        cml_tt_print_header(&tt, out, p);
        for (unsigned r = 0; r < nrows; r++)
            cml_tt_print_row(&tt, out, rows[r], CML_TT_NO_SPAN, NULL, max_width, p);
    }
    free(rows);
}

size_t cml_report_opening(FILE *out, const cml_results *r, const char *key, size_t max_width,
                          size_t text_width)
{
    size_t n = 0;
    for (size_t i = 0; i < r->tables.n; i++)
        if (strcmp(r->tables.v[i].experiment, key) == 0) {
            print_one(out, &r->tables.v[i], max_width, text_width);
            n++;
        }
    return n;
}
