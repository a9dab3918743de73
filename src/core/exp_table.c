/* Tables an experiment opens its report with (exp_table.h). */
#include "core/exp_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

cml_status cml_exp_tables_add(cml_exp_tables *s, const cml_exp_table *t)
{
    if (!t->experiment[0] || t->ncols == 0 || t->ncols > CML_TABLE_MAX_COLS || t->nrows == 0 ||
        t->nrows > CML_TABLE_MAX_ROWS)
        return CML_EINVAL;
    for (unsigned c = 0; c < t->ncols; c++)
        if (t->decimals[c] < 0 || t->decimals[c] > CML_TABLE_MAX_DECIMALS)
            return CML_EINVAL;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 2;
        cml_exp_table *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return CML_ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = *t;
    return CML_OK;
}

void cml_exp_tables_free(cml_exp_tables *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

void cml_table_number(cml_exp_table *t, unsigned row, unsigned col, double v)
{
    if (row >= CML_TABLE_MAX_ROWS || col >= CML_TABLE_MAX_COLS)
        return;
    t->cell[row][col].text[0] = '\0';
    t->cell[row][col].value = v;
}

void cml_table_text(cml_exp_table *t, unsigned row, unsigned col, const char *text)
{
    if (row >= CML_TABLE_MAX_ROWS || col >= CML_TABLE_MAX_COLS)
        return;
    snprintf(t->cell[row][col].text, sizeof t->cell[row][col].text, "%s", text);
    t->cell[row][col].value = NAN;
}

void cml_table_cell_text(char *buf, size_t len, const cml_exp_table *t, unsigned row,
                         unsigned col)
{
    if (row >= CML_TABLE_MAX_ROWS || col >= CML_TABLE_MAX_COLS) {
        snprintf(buf, len, "-");
        return;
    }
    const cml_table_cell *x = &t->cell[row][col];
    const int dec = t->decimals[col] < 0                        ? 0
                    : t->decimals[col] > CML_TABLE_MAX_DECIMALS ? CML_TABLE_MAX_DECIMALS
                                                                : t->decimals[col];
    if (x->text[0])
        snprintf(buf, len, "%.*s", CML_TABLE_TEXT - 1, x->text);
    else if (isfinite(x->value) && fabs(x->value) < 1e12)
        snprintf(buf, len, "%.*f", dec, x->value);
    else if (isfinite(x->value))
        snprintf(buf, len, "%.6g", x->value);
    else
        snprintf(buf, len, "-");
}
