#define _POSIX_C_SOURCE 200809L /* open_memstream */
/*
 * The layout of a bar chart with many bars (peak-bandwidth's comparison of
 * kernels and shapes, issue 23): the chart takes the report's width when
 * its bars need it, and no category label, turned to fit, runs past the
 * chart's left or bottom edge. A few bars keep the default width.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/svg_chart.h"
#include "test_util.h"

static const char *const kernels[] = {"copy", "scale", "add", "triad", "sum", "fill"};
static const char *const shapes[] = {"gs-v16-u1", "gs-v16-u4", "gs-v16-u8", "os-v16-u1",
                                     "os-v16-u4", "os-v8-u1"};

/* peak-bandwidth records: kernels x sizes, one series per shape. */
static size_t make_records(cml_results *r, size_t nkernels, size_t nsizes)
{
    static const int64_t sizes[] = {(int64_t)256 << 20, (int64_t)1 << 30, (int64_t)4 << 30};
    cml_results_init(r);
    for (size_t s = 0; s < nsizes; s++)
        for (size_t k = 0; k < nkernels; k++)
            for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++) {
                cml_record *rec = cml_results_add(r, "peak-bandwidth", "v");
                cml_record_add_param(rec, "shape", (int64_t)h, shapes[h]);
                cml_record_add_param(rec, "block", 256, "");
                cml_record_add_param(rec, "kernel", (int64_t)k, kernels[k]);
                cml_record_add_param(rec, "size", s < 3 ? sizes[s] : (int64_t)(s + 1) << 20, "");
                rec->measured = 1;
                rec->verify = CML_VERIFY_PASSED;
                rec->timing.median_ms = 1;
                rec->bandwidth_gbs = 2800 + 50.0 * (double)h + 10.0 * (double)k;
                rec->bytes_read = 1u << 30;
            }
    return r->count;
}

static const cml_chart *plan_bars(cml_results *r, cml_chart_plan *p, const cml_record **recs)
{
    for (size_t i = 0; i < r->count; i++)
        recs[i] = &r->items[i];
    cml_chart_plan_experiment(p, "peak-bandwidth", recs, r->count);
    for (size_t i = 0; i < p->ncharts; i++)
        if (p->charts[i].kind == CML_CHART_BAR)
            return &p->charts[i];
    return NULL;
}

/* Every label turned by 35 degrees: its start (left end) stays inside the
 * chart, by the same glyph width the writer assumes (6.6 px). */
static void check_labels_inside(const char *svg, double width, double height)
{
    size_t n = 0;
    for (const char *t = svg; (t = strstr(t, "<text x=\"")); t++) {
        double x, y;
        if (sscanf(t, "<text x=\"%lf\" y=\"%lf\"", &x, &y) != 2)
            continue;
        const char *gt = strchr(t, '>');
        if (!gt || !strstr(t, "rotate(-35") || strstr(t, "rotate(-35") > gt)
            continue;
        const char *end = strstr(gt, "</text>");
        if (!end)
            continue;
        size_t chars = (size_t)(end - gt - 1);
        double run = 6.6 * (double)chars;
        CHECK(x - 0.819 * run >= 0);
        CHECK(y + 0.574 * run <= height);
        CHECK(x <= width);
        n++;
    }
    CHECK(n > 0);
}

static void test_many_bars(void)
{
    cml_results r;
    size_t n = make_records(&r, 6, 3); /* 18 categories of 6 bars */
    const cml_record **recs = calloc(n, sizeof *recs);
    cml_chart_plan *p = calloc(1, sizeof *p);
    CHECK(recs && p);
    if (recs && p) {
        const cml_chart *c = plan_bars(&r, p, recs);
        CHECK(c != NULL);
        if (c) {
            CHECK_EQ_U64(c->ncategories, 18);
            CHECK_EQ_U64(c->nseries, 6);
            /* 18 x (6 x 6 + 10) + 96 = 924 px, more than the default 560 */
            CHECK_EQ_I64(c->width, 924);
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            CHECK(f && cml_chart_svg(f, c) == CML_OK);
            if (f)
                fclose(f);
            double w = 0, h = 0;
            CHECK(buf && sscanf(strstr(buf, "<svg"), "<svg class=\"chart\" width=\"%lf\" "
                                                     "height=\"%lf\"", &w, &h) == 2);
            CHECK_NEAR(w, 924, 0);
            if (buf)
                check_labels_inside(buf, w, h);
            CHECK(buf && strstr(buf, ">scale size=1073741824</text>"));
            free(buf);
        }
        cml_chart_plan_free(p);
    }
    free(p);
    free(recs);
    cml_results_free(&r);
}

/* Far more bars than the page holds (60 categories of 6): the report's
 * width, no more, and the longest labels still whole and inside. */
static void test_page_width(void)
{
    cml_results r;
    size_t n = make_records(&r, 6, 10);
    for (size_t i = 0; i < n; i++) /* a block that varies: longer labels */
        r.items[i].params[1].value = 1024 - 32 * (int64_t)(i % 2);
    const cml_record **recs = calloc(n, sizeof *recs);
    cml_chart_plan *p = calloc(1, sizeof *p);
    CHECK(recs && p);
    if (recs && p) {
        const cml_chart *c = plan_bars(&r, p, recs);
        CHECK(c && c->width == 1120);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = c ? open_memstream(&buf, &len) : NULL;
        CHECK(f && cml_chart_svg(f, c) == CML_OK);
        if (f)
            fclose(f);
        double w = 0, h = 0;
        CHECK(buf && sscanf(strstr(buf, "<svg"), "<svg class=\"chart\" width=\"%lf\" "
                                                 "height=\"%lf\"", &w, &h) == 2);
        if (buf)
            check_labels_inside(buf, w, h);
        /* 31 characters, whole (labels were cut at 28) */
        CHECK(buf && strstr(buf, ">block=1024 scale size=1073741824</text>"));
        free(buf);
        cml_chart_plan_free(p);
    }
    free(p);
    free(recs);
    cml_results_free(&r);
}

/* Two kernels of one size, one shape each: the default width. */
static void test_few_bars(void)
{
    cml_results r;
    make_records(&r, 2, 1);
    r.count = 2; /* gs-v16-u1 and gs-v16-u4 of copy */
    const cml_record *recs[2];
    cml_chart_plan *p = calloc(1, sizeof *p);
    CHECK(p != NULL);
    if (p) {
        const cml_chart *c = plan_bars(&r, p, recs);
        CHECK(c && c->width == 560);
        cml_chart_plan_free(p);
    }
    free(p);
    r.count = 12;
    cml_results_free(&r);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_many_bars();
    test_page_width();
    test_few_bars();
    return cml_test_summary("test_chart_layout");
}
