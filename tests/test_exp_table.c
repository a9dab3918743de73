/*
 * The tables experiments open their reports with (core/exp_table.h): kept
 * by the results, written as "tables" by the JSON reporter and read back
 * the same (texts, numbers with their decimals, null for none), refused by
 * the reader with one line naming the member for every bound and type a
 * file could break, and printed by the text report after the experiment's
 * title and before its main table, and by the HTML report under its heading.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/exp_table.h"
#include "report/html.h"
#include "report/json_read.h"
#include "report_test_util.h"
#include "test_util.h"

static void build(cml_results *r, int with_table)
{
    cml_results_init(r);
    cml_record *rec = cml_results_add(r, "hierarchy", "ws=65536 op=read");
    rec->state = CML_REC_OK;
    cml_record_add_param(rec, "ws", 65536, "");
    if (!with_table)
        return;
    cml_exp_table t;
    memset(&t, 0, sizeof t);
    snprintf(t.experiment, sizeof t.experiment, "hierarchy");
    snprintf(t.title, sizeof t.title, "Levels: a test.");
    t.ncols = 3;
    t.nrows = 2;
    snprintf(t.column[0], sizeof t.column[0], "level");
    snprintf(t.column[1], sizeof t.column[1], "GB/s");
    snprintf(t.column[2], sizeof t.column[2], "cycles");
    t.decimals[1] = 0;
    t.decimals[2] = 1;
    cml_table_text(&t, 0, 0, "L1");
    cml_table_number(&t, 0, 1, 20000.25);
    cml_table_number(&t, 0, 2, 35.04);
    cml_table_text(&t, 1, 0, "L2 near");
    cml_table_number(&t, 1, 1, NAN);
    cml_table_number(&t, 1, 2, 279.0);
    CHECK_EQ_I64(cml_exp_tables_add(&r->tables, &t), CML_OK);
}

static void test_add_bounds(void)
{
    cml_exp_tables s = {0};
    cml_exp_table t;
    memset(&t, 0, sizeof t);
    t.ncols = 1;
    t.nrows = 1;
    CHECK_EQ_I64(cml_exp_tables_add(&s, &t), CML_EINVAL); /* no experiment */
    snprintf(t.experiment, sizeof t.experiment, "x");
    t.ncols = CML_TABLE_MAX_COLS + 1;
    CHECK_EQ_I64(cml_exp_tables_add(&s, &t), CML_EINVAL);
    t.ncols = 1;
    t.nrows = 0;
    CHECK_EQ_I64(cml_exp_tables_add(&s, &t), CML_EINVAL);
    t.nrows = 1;
    t.decimals[0] = 7;
    CHECK_EQ_I64(cml_exp_tables_add(&s, &t), CML_EINVAL);
    t.decimals[0] = 6;
    CHECK_EQ_I64(cml_exp_tables_add(&s, &t), CML_OK);
    CHECK_EQ_U64(s.n, 1);
    /* A text longer than a cell is cut, not overrun. */
    cml_table_text(&t, 0, 0, "0123456789012345678901234567890123456789");
    CHECK_EQ_U64(strlen(t.cell[0][0].text), CML_TABLE_TEXT - 1);
    cml_table_text(&t, CML_TABLE_MAX_ROWS, 0, "ignored"); /* out of bounds: nothing */
    /* How the reports write a cell: a number with its column's decimals, a
     * huge one narrow, none as "-", a text as it is. */
    char cell[64];
    cml_table_number(&t, 0, 0, 279.04);
    cml_table_cell_text(cell, sizeof cell, &t, 0, 0);
    CHECK_STR_EQ(cell, "279.040000");
    t.decimals[0] = 1;
    cml_table_cell_text(cell, sizeof cell, &t, 0, 0);
    CHECK_STR_EQ(cell, "279.0");
    cml_table_number(&t, 0, 0, -1e308);
    cml_table_cell_text(cell, sizeof cell, &t, 0, 0);
    CHECK_STR_EQ(cell, "-1e+308");
    cml_table_number(&t, 0, 0, NAN);
    cml_table_cell_text(cell, sizeof cell, &t, 0, 0);
    CHECK_STR_EQ(cell, "-");
    cml_table_text(&t, 0, 0, "L2 far");
    cml_table_cell_text(cell, sizeof cell, &t, 0, 0);
    CHECK_STR_EQ(cell, "L2 far");
    cml_exp_tables_free(&s);
    CHECK(s.v == NULL && s.n == 0);
}

static void test_round_trip(void)
{
    cml_results r;
    build(&r, 1);
    char *json = render_to_memory(cml_report_json, &r, NULL, NULL);
    CHECK_STR_CONTAINS(json, "\"tables\": [");
    CHECK_STR_CONTAINS(json, "\"name\": \"cycles\"");
    cml_results back;
    char err[512] = "";
    CHECK_EQ_I64(cml_results_from_json(json, strlen(json), &back, err, sizeof err), CML_OK);
    CHECK_EQ_U64(back.tables.n, 1);
    if (back.tables.n == 1) {
        const cml_exp_table *t = &back.tables.v[0];
        CHECK_STR_EQ(t->experiment, "hierarchy");
        CHECK_STR_EQ(t->title, "Levels: a test.");
        CHECK_EQ_U64(t->ncols, 3);
        CHECK_EQ_U64(t->nrows, 2);
        CHECK_STR_EQ(t->column[2], "cycles");
        CHECK_EQ_I64(t->decimals[2], 1);
        CHECK_STR_EQ(t->cell[1][0].text, "L2 near");
        CHECK_NEAR(t->cell[0][1].value, 20000.25, 0);
        CHECK(isnan(t->cell[1][1].value) && t->cell[1][1].text[0] == '\0');
    }
    /* Written again, the same text. */
    char *again = render_to_memory(cml_report_json, &back, NULL, NULL);
    CHECK_STR_EQ(again, json);
    free(again);
    cml_results_free(&back);
    /* The text report: the title, then the table, before the main table
     * (whose header starts with the parameter "ws"). */
    char *text = render_to_memory(cml_report_table, &r, NULL, NULL);
    const char *title = strstr(text, "Levels: a test.");
    const char *l1 = strstr(text, "20000    35.0");
    const char *near = strstr(text, "L2 near      -   279.0");
    const char *main_head = title ? strstr(title, "ws") : NULL;
    CHECK(title && l1 && near && main_head);
    CHECK(title < l1 && l1 < near && near < main_head);
    free(text);
    /* The HTML report: the same table under the experiment's heading. */
    char *html = render_to_memory(cml_report_html, &r, NULL, NULL);
    const char *table = strstr(html, "<table class=\"records opening\">\n<caption>Levels: a test.");
    CHECK(table != NULL);
    if (table) {
        CHECK_STR_CONTAINS(table, "<th scope=\"col\">cycles</th>");
        CHECK_STR_CONTAINS(table, "<th scope=\"row\">L2 near</th><td>-</td><td>279.0</td>");
    }
    free(html);
    free(json);
    cml_results_free(&r);
    /* No table: no "tables" member. */
    build(&r, 0);
    json = render_to_memory(cml_report_json, &r, NULL, NULL);
    CHECK(strstr(json, "\"tables\"") == NULL);
    free(json);
    cml_results_free(&r);
}

/* A results file whose "tables" is `tables`: refused, the message naming
 * `what`, on one line, and nothing kept. */
static void expect_refused(const char *tables, const char *what)
{
    cml_results r;
    build(&r, 0);
    char *json = render_to_memory(cml_report_json, &r, NULL, NULL);
    cml_results_free(&r);
    char *at = strstr(json, "\"records\"");
    CHECK(at != NULL);
    if (!at) {
        free(json);
        return;
    }
    const size_t head = (size_t)(at - json), n = strlen(json) + strlen(tables) + 16;
    char *doc = malloc(n);
    snprintf(doc, n, "%.*s\"tables\": %s, %s", (int)head, json, tables, at);
    char err[512] = "";
    cml_results back;
    CHECK_EQ_I64(cml_results_from_json(doc, strlen(doc), &back, err, sizeof err), CML_EINVAL);
    cml_test_checks++;
    if (!strstr(err, what)) {
        cml_test_failures++;
        fprintf(stderr, "tables %s: error \"%s\", expected \"%s\"\n", tables, err, what);
    }
    CHECK(strchr(err, '\n') == NULL);
    CHECK_EQ_U64(back.tables.n, 0);
    cml_results_free(&back);
    free(doc);
    free(json);
}

#define COLS "\"columns\": [{\"name\": \"a\", \"decimals\": 1}]"
#define HEAD "{\"experiment\": \"x\", \"title\": \"t\", "

static void test_refused(void)
{
    expect_refused("{}", "tables: expected an array");
    expect_refused("[1]", "tables[0]: expected an object");
    expect_refused("[{\"title\": \"t\", " COLS ", \"rows\": [[1]]}]",
                   "missing member \"experiment\"");
    expect_refused("[{\"experiment\": \"\", \"title\": \"t\", " COLS ", \"rows\": [[1]]}]",
                   "tables[0].experiment: empty");
    expect_refused("[{\"experiment\": \"0123456789012345678901234567890123\", \"title\": \"t\", "
                   COLS ", \"rows\": [[1]]}]",
                   "tables[0].experiment: string of 34 bytes is too long (at most 31)");
    expect_refused("[{\"experiment\": \"x\", \"title\": \"a\\nb\", " COLS ", \"rows\": [[1]]}]",
                   "tables[0].title: control character");
    expect_refused("[" HEAD "\"columns\": [], \"rows\": [[1]]}]",
                   "tables[0].columns: expected an array of 1 to 10 columns");
    expect_refused("[" HEAD "\"columns\": [{\"name\": \"a\", \"decimals\": 7}], \"rows\": [[1]]}]",
                   "tables[0].columns[0].decimals: expected an integer in 0..6");
    expect_refused("[" HEAD "\"columns\": [{\"name\": \"a\", \"decimals\": 1.5}], \"rows\": [[1]]}]",
                   "tables[0].columns[0].decimals: expected an integer in 0..6");
    expect_refused("[" HEAD "\"columns\": [{\"name\": 3, \"decimals\": 1}], \"rows\": [[1]]}]",
                   "tables[0].columns[0].name: expected a string");
    expect_refused("[" HEAD COLS ", \"rows\": []}]",
                   "tables[0].rows: expected an array of 1 to 16 rows");
    expect_refused("[" HEAD COLS ", \"rows\": [[1, 2]]}]",
                   "tables[0].rows[0]: expected an array of 1 cells");
    expect_refused("[" HEAD COLS ", \"rows\": [[true]]}]",
                   "tables[0].rows[0][0]: expected a string, a number or null");
    expect_refused("[" HEAD COLS ", \"rows\": [[1e999]]}]",
                   "tables[0].rows[0][0]: 1e999 is not a finite number");
    expect_refused("[" HEAD COLS ", \"rows\": [[\"\\u0007\"]]}]",
                   "tables[0].rows[0][0].text: control character");
    /* 17 rows */
    char rows[512] = "[" HEAD COLS ", \"rows\": [";
    for (int i = 0; i < 17; i++)
        strcat(rows, i ? ", [1]" : "[1]");
    strcat(rows, "]}]");
    expect_refused(rows, "tables[0].rows: expected an array of 1 to 16 rows");
}

int main(void)
{
    test_add_bounds();
    test_round_trip();
    test_refused();
    return cml_test_summary("test_exp_table");
}
