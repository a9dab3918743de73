/*
 * The HTML report's data tables and their weight (src/report/html.c,
 * html_counters.c, html_chart_data.c, chart_plan.c's counters chart):
 *   - every table sits in a box that scrolls sideways (<div class="scroll">,
 *     overflow-x:auto), charts' figures may shrink (min-width:0), so no
 *     table makes the page wider than the window;
 *   - each experiment's records and its counters are folded under
 *     <details>, the summary line saying how many;
 *   - the counters are a row per record and a column per counter, each
 *     cell the reading and how it stands against the model;
 *   - a counter reading the same as one already charted is drawn once, its
 *     last drawing kept (the picture does not change);
 *   - a scatter chart's data table names each series once.
 * The page of the committed suite stays under 3 MB: tests/cli/
 * test_results_files.sh.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/html.h"
#include "test_util.h"

/* The page of r into *buf (the caller frees it). */
static void render_html(const cml_results *r, char **buf)
{
    size_t len = 0;
    FILE *f = open_memstream(buf, &len);
    if (!f) {
        perror("open_memstream");
        exit(2);
    }
    CHECK(cml_report_html(f, r) == CML_OK);
    fclose(f);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + k, needle))
        n++;
    return n;
}

static void counter(cml_record *rec, const char *name, double measured, int has_prediction,
                    double predicted)
{
    cml_counter *c = &rec->counters[rec->ncounters++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->measured = measured;
    c->has_prediction = has_prediction;
    c->predicted = predicted;
}

static cml_record *stride_record(cml_results *r, int stride)
{
    char variant[32];
    snprintf(variant, sizeof variant, "stride=%d", stride);
    cml_record *rec = cml_results_add(r, "stride", variant);
    cml_record_add_param(rec, "stride", stride, NULL);
    rec->bytes_read = 1 << 20;
    rec->measured = 1;
    rec->verify = CML_VERIFY_PASSED;
    rec->timing = (cml_timing){1, 20, 0.5, 0.49, 0.51, 0.5, 0.01};
    rec->bandwidth_gbs = 2000.0 / stride;
    return rec;
}

/* Four records of stride: three read the sectors counter alike (5000 of
 * 5000 predicted), one differs; the second counter comes in later, once
 * without a prediction, once predicted 0; the last record has none. */
static void build(cml_results *r)
{
    cml_results_init(r);
    snprintf(r->tool_version, sizeof r->tool_version, "0.1.0");
    r->has_device = 1;
    snprintf(r->device.name, sizeof r->device.name, "Test GPU");
    r->peak_gbs = 3000;
    cml_results_diag(r, CML_DIAG_WARNING, NULL, "a diagnostic, in a table too");
    counter(stride_record(r, 1), "l1tex__t_sectors.sum", 5000, 1, 5000);
    cml_record *b = stride_record(r, 2);
    counter(b, "l1tex__t_sectors.sum", 5100, 1, 5000);
    counter(b, "dram__bytes_read.sum", 640, 0, 0);
    cml_record *c = stride_record(r, 4);
    counter(c, "l1tex__t_sectors.sum", 5000, 1, 5000);
    counter(c, "dram__bytes_read.sum", 7, 1, 0);
    counter(stride_record(r, 8), "l1tex__t_sectors.sum", 5000, 1, 5000);
    stride_record(r, 16);
}

static void test_page(void)
{
    cml_results r;
    build(&r);
    char *s = NULL;
    render_html(&r, &s);
    /* Every table in a box that scrolls; figures may shrink. */
    CHECK(count(s, "<table") > 5);
    CHECK(count(s, "<table") == count(s, "<div class=\"scroll\"><table"));
    CHECK(count(s, "</table>") == count(s, "<table"));
    CHECK_STR_CONTAINS(s, ".scroll{overflow-x:auto;max-width:100%}");
    CHECK_STR_CONTAINS(s, "min-width:0;max-width:100%;box-sizing:border-box}");
    /* Folded: the records, then the counters. */
    const char *rec = strstr(s, "<details class=\"data\"><summary>Every record's figures: 5 rows"
                                "</summary>\n");
    const char *ctr = strstr(s, "<details class=\"data\"><summary>Hardware counters beside the "
                                "model's predictions: 6 readings of 2 counters in 4 records"
                                "</summary>\n<div class=\"scroll\"><table class=\"counters\">");
    CHECK(rec && ctr && rec < ctr);
    CHECK(rec && strstr(rec, "<table class=\"records\">") < strstr(rec, "</details>"));
    /* The counters: a column per counter, in order of first appearance. */
    CHECK_STR_CONTAINS(s, "<thead><tr><th scope=\"col\">variant</th><th scope=\"col\">"
                          "l1tex__t_sectors.sum</th><th scope=\"col\">dram__bytes_read.sum</th>"
                          "</tr></thead>");
    CHECK_STR_CONTAINS(s, "<tr><th scope=\"row\">stride=1</th><td class=\"agree\">= 5000</td>"
                          "<td class=\"na\">-</td></tr>");
    CHECK_STR_CONTAINS(s, "<tr><th scope=\"row\">stride=2</th><td class=\"differ\">5100<br>"
                          "&#8800; 5000 (1.02x)</td><td>640</td></tr>");
    /* Predicted 0: no ratio to give. */
    CHECK_STR_CONTAINS(s, "<tr><th scope=\"row\">stride=4</th><td class=\"agree\">= 5000</td>"
                          "<td class=\"differ\">7<br>&#8800; 0</td></tr>");
    /* No row for the record without counters. */
    CHECK(strstr(ctr ? ctr : s, "stride=16") == NULL);
    /* The counters chart: the sentence counts every reading... */
    CHECK_STR_CONTAINS(s, "3 of 5 counter readings agree with the model");
    free(s);
    cml_results_free(&r);
}

/* ...but draws a repeated reading once, its last drawing kept. */
static void test_counters_chart(void)
{
    cml_results r;
    build(&r);
    const cml_record *recs[5];
    for (size_t i = 0; i < 5; i++)
        recs[i] = &r.items[i];
    cml_chart_plan *plan = malloc(sizeof *plan);
    cml_chart_plan_build(plan, NULL, 0, recs, 5);
    CHECK(plan->ncharts == 1);
    if (plan->ncharts == 1) {
        const cml_chart *c = &plan->charts[0];
        CHECK(c->nseries == 2);
        const cml_chart_series *s = &c->series[0];
        CHECK(!strcmp(s->name, "l1tex__t_sectors.sum"));
        /* Readings in order: 5000, 5100, 5000, 5000; drawn: 5100, 5000. */
        CHECK(s->n == 2);
        if (s->n == 2) {
            CHECK(s->x[0] == 5000 && s->y[0] == 5100);
            CHECK(s->x[1] == 5000 && s->y[1] == 5000);
        }
        /* The data table: a row per drawn point, the series named once. */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        cml_chart_data_html(f, c);
        fclose(f);
        CHECK_STR_CONTAINS(buf, "<tbody>\n<tr><th scope=\"rowgroup\" rowspan=\"2\">"
                                "l1tex__t_sectors.sum</th><td>5000</td><td>5100</td></tr>\n"
                                "<tr><td>5000</td><td>5000</td></tr>\n</tbody>\n<tbody>\n"
                                "<tr><th scope=\"rowgroup\" rowspan=\"1\">dram__bytes_read.sum"
                                "</th><td>0</td><td>7</td></tr>\n</tbody>");
        free(buf);
    }
    cml_chart_plan_free(plan);
    free(plan);
    cml_results_free(&r);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_page();
    test_counters_chart();
    return cml_test_summary("test_html_tables");
}
