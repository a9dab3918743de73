/*
 * The SVG chart writer and the HTML report, on the CPU: escaping of every
 * special character (and of bytes that are not UTF-8), nice ticks and their
 * labels, log axes (ticks at powers, equally spaced on the page), charts with
 * no data or with points that cannot be drawn (no NaN ever reaches an
 * attribute), bar labels, and whole reports: a model-only run, a measured
 * run with counters and a FAILED record, and an empty run, checked for a
 * self-contained page (no script, no external reference), escaped text,
 * balanced SVG, and the sentences computed from the numbers. The chart
 * planner without HTML (specs -> charts and sentences; the registry's rows
 * and titles, the default for a key it does not know), and the run's
 * diagnostics on the page.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/html.h"
#include "report/svg_chart.h"
#include "test_util.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

static FILE *mem_open(char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (!f) {
        perror("open_memstream");
        exit(2);
    }
    return f;
}

static char *escaped(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    cml_xml_escape(f, s);
    fclose(f);
    return buf;
}

static char *chart_text(const cml_chart *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    CHECK(cml_chart_svg(f, c) == CML_OK);
    fclose(f);
    return buf;
}

static char *report_text(const cml_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    CHECK(cml_report_html(f, r) == CML_OK);
    fclose(f);
    if (getenv("CML_TEST_SHOW"))
        fputs(buf, stdout);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + k, needle))
        n++;
    return n;
}

/* x of the <text> element whose content is exactly `label`; NAN if none. */
static double text_x(const char *svg, const char *label)
{
    char want[96];
    snprintf(want, sizeof want, ">%s</text>", label);
    const char *p = strstr(svg, want);
    if (!p)
        return NAN;
    const char *t = p;
    while (t > svg && strncmp(t, "<text x=\"", 9) != 0)
        t--;
    return t > svg ? atof(t + 9) : NAN;
}

/* Nothing that is not a number reaches a coordinate. */
static void check_no_nan(const char *s)
{
    CHECK(strstr(s, "nan") == NULL && strstr(s, "NaN") == NULL);
    CHECK(strstr(s, "inf\"") == NULL && strstr(s, "Infinity") == NULL);
}

/* ------------------------------------------------------------------ */
/* Escaping, ticks, formatting                                        */
/* ------------------------------------------------------------------ */

static void test_escape(void)
{
    char *e = escaped("<a href=\"x\">&'</a>");
    CHECK(!strcmp(e, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"));
    free(e);
    e = escaped("tab\there\nline \x01\x1f\x7f end");
    CHECK(!strcmp(e, "tab\there\nline     end"));
    free(e);
    e = escaped("caf\xc3\xa9 \xe2\x82\xac \xff \xc3 \xed\xa0\x80!");
    CHECK(!strcmp(e, "caf\xc3\xa9 \xe2\x82\xac &#xFFFD; &#xFFFD; &#xFFFD;&#xFFFD;&#xFFFD;!"));
    free(e);
    e = escaped("");
    CHECK(e && e[0] == '\0');
    free(e);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    cml_xml_escape(f, NULL);
    fclose(f);
    CHECK(len == 0);
    free(buf);
}

static void test_nice_ticks(void)
{
    double t[16], step;
    size_t n = cml_nice_ticks(0, 1234, 6, t, &step);
    CHECK(n == 4 && step == 500 && t[0] == 0 && t[3] == 1500);
    n = cml_nice_ticks(0.13, 0.87, 6, t, &step);
    CHECK(n == 6 && fabs(step - 0.2) < 1e-12 && t[0] == 0 && fabs(t[5] - 1.0) < 1e-12);
    n = cml_nice_ticks(-3, 7, 11, t, &step);
    CHECK(n == 11 && step == 1 && t[0] == -3 && t[10] == 7);
    n = cml_nice_ticks(2950, 2684.5, 7, t, &step); /* reversed */
    CHECK(n >= 2 && t[0] <= 2684.5 && t[n - 1] >= 2950 && n <= 7 && step == 50);
    n = cml_nice_ticks(0, 100, 7, t, &step);
    CHECK(n == 6 && step == 20 && t[5] == 100);
    n = cml_nice_ticks(-0.3, 0.3, 7, t, &step);
    CHECK(n == 7 && fabs(step - 0.1) < 1e-12);
    /* Ticks near zero are zero, not 5.55e-17. */
    int zero = 0;
    for (size_t i = 0; i < n; i++)
        zero |= t[i] == 0.0;
    CHECK(zero);
    n = cml_nice_ticks(5, 5, 7, t, &step);
    CHECK(n == 1 && t[0] == 5 && step == 0);
    CHECK(cml_nice_ticks(NAN, 1, 7, t, &step) == 0);
    CHECK(cml_nice_ticks(0, INFINITY, 7, t, &step) == 0);
    /* Never more than asked, for many ranges. */
    for (int k = -8; k <= 12; k++)
        for (double span = 1.0; span < 10.0; span += 0.37) {
            double lo = 0.3 * pow(10, k), hi = lo + span * pow(10, k);
            n = cml_nice_ticks(lo, hi, 7, t, &step);
            CHECK(n >= 2 && n <= 7 && t[0] <= lo && t[n - 1] >= hi * (1 - 1e-12));
        }
}

static void test_log_ticks(void)
{
    double t[16];
    size_t n = cml_log_ticks(4096, 1073741824.0, 2, 10, t);
    CHECK(n == 10 && t[0] == 4096 && t[1] == 16384 && t[9] == 1073741824.0);
    n = cml_log_ticks(32, 1024, 2, 11, t);
    CHECK(n == 6 && t[0] == 32 && t[5] == 1024);
    n = cml_log_ticks(1, 33, 2, 11, t);
    CHECK(n == 7 && t[0] == 1 && t[6] == 64);
    n = cml_log_ticks(3, 700, 10, 10, t);
    CHECK(n == 4 && t[0] == 1 && t[1] == 10 && t[3] == 1000);
    n = cml_log_ticks(1, 1e12, 10, 5, t); /* 13 powers, every third */
    CHECK(n == 5 && t[0] == 1 && t[1] == 1e3 && t[4] == 1e12);
    n = cml_log_ticks(1e3, 1e3, 10, 10, t); /* one value: a decade around it */
    CHECK(n == 2 && t[0] == 1e3 && t[1] == 1e4);
    CHECK(cml_log_ticks(0, 10, 10, 10, t) == 0);
    CHECK(cml_log_ticks(-1, 10, 2, 10, t) == 0);
}

static void test_format(void)
{
    char b[64];
    cml_fmt_tick(b, sizeof b, 4096, 0, CML_FMT_BYTES);
    CHECK(!strcmp(b, "4 KiB"));
    cml_fmt_tick(b, sizeof b, 1073741824.0, 0, CML_FMT_BYTES);
    CHECK(!strcmp(b, "1 GiB"));
    cml_fmt_tick(b, sizeof b, 512, 0, CML_FMT_BYTES);
    CHECK(!strcmp(b, "512 B"));
    cml_fmt_tick(b, sizeof b, 1536 * 1024, 0, CML_FMT_BYTES);
    CHECK(!strcmp(b, "1.5 MiB"));
    cml_fmt_tick(b, sizeof b, 1500, 500, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "1500"));
    cml_fmt_tick(b, sizeof b, 15000, 5000, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "15k"));
    cml_fmt_tick(b, sizeof b, 5000, 5000, CML_FMT_NUMBER); /* the axis's ticks agree */
    CHECK(!strcmp(b, "5000"));
    cml_fmt_tick(b, sizeof b, 3e6, 1e6, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "3M"));
    cml_fmt_tick(b, sizeof b, 0.25, 0.05, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "0.25"));
    cml_fmt_tick(b, sizeof b, 0.4, 0.2, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "0.4"));
    cml_fmt_tick(b, sizeof b, 0, 0.2, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "0"));
    cml_fmt_tick(b, sizeof b, 100, 20, CML_FMT_PERCENT);
    CHECK(!strcmp(b, "100%"));
    cml_fmt_tick(b, sizeof b, 12.5, 0, CML_FMT_PERCENT);
    CHECK(!strcmp(b, "12.5%"));
    cml_fmt_tick(b, sizeof b, 5242880, 0, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "5.243M"));
    cml_fmt_tick(b, sizeof b, NAN, 0, CML_FMT_NUMBER);
    CHECK(!strcmp(b, "-"));
}

/* ------------------------------------------------------------------ */
/* Charts                                                             */
/* ------------------------------------------------------------------ */

static void test_empty_chart(void)
{
    cml_chart c;
    cml_chart_init(&c, CML_CHART_LINE, "Nothing <here>", "x", "y");
    char *s = chart_text(&c);
    CHECK(!strncmp(s, "<svg ", 5));
    CHECK(strlen(s) > 7 && !strcmp(s + strlen(s) - 7, "</svg>\n"));
    CHECK_STR_CONTAINS(s, ">no data</text>");
    CHECK_STR_CONTAINS(s, "aria-label=\"Nothing &lt;here&gt;\"");
    CHECK(count(s, "<svg") == 1 && count(s, "</svg>") == 1);
    check_no_nan(s);
    free(s);
    /* Series whose points cannot be drawn are no data either. */
    cml_chart_series *ser = cml_chart_add_series(&c, "bad");
    CHECK(cml_chart_add_point(ser, NAN, 1) == CML_OK);
    CHECK(cml_chart_add_point(ser, 1, INFINITY) == CML_OK);
    c.x.scale = CML_SCALE_LOG2;
    CHECK(cml_chart_add_point(ser, 0, 1) == CML_OK);  /* 0 on a log axis */
    CHECK(cml_chart_add_point(ser, -4, 1) == CML_OK);
    CHECK(cml_chart_drawable_points(&c) == 0);
    s = chart_text(&c);
    CHECK_STR_CONTAINS(s, ">no data</text>");
    check_no_nan(s);
    free(s);
    cml_chart_free(&c);
    /* A bar chart without categories. */
    cml_chart_init(&c, CML_CHART_BAR, "bars", "", "y");
    s = chart_text(&c);
    CHECK_STR_CONTAINS(s, ">no data</text>");
    free(s);
    cml_chart_free(&c);
}

static void test_line_log_axis(void)
{
    cml_chart c;
    cml_chart_init(&c, CML_CHART_LINE, "Bandwidth vs size", "bytes", "GB/s");
    c.x.scale = CML_SCALE_LOG2;
    c.x.format = CML_FMT_BYTES;
    cml_chart_series *a = cml_chart_add_series(&c, "pinned & <fast>");
    cml_chart_series *b = cml_chart_add_series(&c, "pageable");
    /* Out of x order on purpose: the line is drawn in x order. */
    double sizes[] = {1048576, 4096, 65536, 16777216, 1073741824.0};
    for (int i = 0; i < 5; i++) {
        cml_chart_add_point(a, sizes[i], 50.0 * sizes[i] / (sizes[i] + 2e5));
        cml_chart_add_point(b, sizes[i], 24.0 * sizes[i] / (sizes[i] + 8e5));
    }
    cml_chart_add_point(b, NAN, 3);   /* never drawn */
    cml_chart_add_point(b, 0, 3);     /* never drawn on a log axis */
    CHECK(cml_chart_drawable_points(&c) == 10);
    char *s = chart_text(&c);
    check_no_nan(s);
    CHECK(count(s, "<polyline") == 2);
    CHECK(count(s, "<circle") == 5 + 1); /* series 0 markers + its legend marker */
    CHECK(count(s, "<rect x=") >= 5);    /* series 1 markers are squares */
    CHECK_STR_CONTAINS(s, "pinned &amp; &lt;fast&gt;");
    CHECK(strstr(s, "<fast>") == NULL);
    /* Ticks at 4 KiB, 16 KiB, ... 1 GiB, every power of four, equally spaced. */
    const char *labels[] = {"4 KiB", "16 KiB", "64 KiB", "256 KiB", "1 MiB", "4 MiB", "16 MiB",
                            "64 MiB", "256 MiB", "1 GiB"};
    double prev = NAN, gap = NAN;
    for (int i = 0; i < 10; i++) {
        double x = text_x(s, labels[i]);
        CHECK(isfinite(x));
        if (i == 1)
            gap = x - prev;
        if (i > 1)
            CHECK_NEAR(x - prev, gap, 0.11);
        prev = x;
    }
    CHECK(gap > 20);
    /* The first x tick is at the left edge of the plot, the last at the right. */
    CHECK_NEAR(text_x(s, "4 KiB"), 72.0, 0.01);
    CHECK_NEAR(text_x(s, "1 GiB"), 640.0 - 24.0, 0.01);
    /* The polyline of series 0 starts at the smallest size. */
    const char *pl = strstr(s, "points=\"");
    CHECK(pl && atof(pl + 8) == 72.0);
    /* Tooltips name the series and both values. */
    CHECK_STR_CONTAINS(s, "<title>pageable: bytes 4 KiB \xE2\x86\x92 ");
    /* The y axis starts at 0 (bandwidth) with nice ticks. */
    CHECK(isfinite(text_x(s, "0")) && isfinite(text_x(s, "10")) && isfinite(text_x(s, "50")));
    free(s);
    cml_chart_free(&c);
}

static void test_bars_and_scatter(void)
{
    cml_chart c;
    cml_chart_init(&c, CML_CHART_BAR, "AoS vs SoA", "", "GB/s");
    const char *cats[] = {"fields=2 touched=1", "fields=8 touched=1", "x<y"};
    cml_chart_series *aos = cml_chart_add_series(&c, "layout=aos");
    cml_chart_series *soa = cml_chart_add_series(&c, "layout=soa");
    for (int i = 0; i < 3; i++) {
        long k = cml_chart_category(&c, cats[i]);
        CHECK(k == i);
        cml_chart_add_point(aos, (double)k, 1000.0 / (i + 1));
        cml_chart_add_point(soa, (double)k, 2900);
    }
    CHECK(cml_chart_category(&c, cats[1]) == 1); /* found again, not added */
    CHECK(c.ncategories == 3);
    cml_chart_add_point(soa, 7, 1);   /* no such category: not drawn */
    cml_chart_add_point(soa, 0, NAN); /* not drawn */
    CHECK(cml_chart_drawable_points(&c) == 6);
    char *s = chart_text(&c);
    check_no_nan(s);
    CHECK(count(s, "fill=\"#0072B2\">") == 3 && count(s, "fill=\"#D55E00\">") == 3);
    CHECK_STR_CONTAINS(s, "x&lt;y");
    /* At 640 px every label fits its band on one line. */
    CHECK(count(s, "<tspan") == 0 && count(s, "rotate(-35") == 0);
    CHECK(isfinite(text_x(s, "fields=2 touched=1")));
    /* Bars stand on y = 0: every bar's bottom is the same line. */
    CHECK(count(s, "height=\"0.0\"") == 0);
    free(s);
    /* Narrower: the labels break at spaces into two lines each. */
    c.width = 300;
    s = chart_text(&c);
    CHECK(count(s, "<tspan") == 4 && count(s, "rotate(-35") == 0);
    CHECK_STR_CONTAINS(s, "dy=\"0\">fields=2</tspan>");
    CHECK_STR_CONTAINS(s, "dy=\"14\">touched=1</tspan>");
    free(s);
    /* A word that fits no line: every label is rotated instead. */
    cml_chart_category(&c, "a_very_long_unbreakable_category_name");
    s = chart_text(&c);
    CHECK(count(s, "<tspan") == 0 && count(s, "rotate(-35") == 4);
    /* cut to 36 characters, "..." included (no space to cut at) */
    CHECK_STR_CONTAINS(s, ">a_very_long_unbreakable_category_...</text>");
    free(s);
    cml_chart_free(&c);

    /* Predicted vs measured, log-log, with the line y = x. */
    cml_chart_init(&c, CML_CHART_SCATTER, "counters", "predicted", "measured");
    c.diagonal = 1;
    c.x.scale = c.y.scale = CML_SCALE_LOG10;
    cml_chart_series *k = cml_chart_add_series(&c, "sectors");
    cml_chart_add_point(k, 1e3, 1e3);
    cml_chart_add_point(k, 5e6, 5.2e6);
    s = chart_text(&c);
    check_no_nan(s);
    CHECK(count(s, "<polyline") == 0);
    CHECK(count(s, "stroke-dasharray=\"4 3\"") == 2); /* the line and its legend entry */
    CHECK_STR_CONTAINS(s, "predicted = measured");
    CHECK(isfinite(text_x(s, "1000")) && isfinite(text_x(s, "10M")));
    free(s);
    cml_chart_free(&c);

    /* Series beyond the maximum are refused, not overflowed. */
    cml_chart_init(&c, CML_CHART_LINE, "many", "x", "y");
    for (int i = 0; i < CML_CHART_MAX_SERIES; i++)
        CHECK(cml_chart_add_series(&c, "s") != NULL);
    CHECK(cml_chart_add_series(&c, "one too many") == NULL);
    CHECK(cml_chart_series_named(&c, "new") == NULL);
    CHECK(cml_chart_series_named(&c, "s") == &c.series[0]);
    cml_chart_free(&c);
}

/* ------------------------------------------------------------------ */
/* Whole reports                                                      */
/* ------------------------------------------------------------------ */

static cml_record *offset_record(cml_results *r, int64_t offset, const char *path, double gbs,
                                 double eff)
{
    char v[64];
    snprintf(v, sizeof v, "offset=%lld path=%s", (long long)offset, path);
    cml_record *rec = cml_results_add(r, "read-offset", v);
    cml_record_add_param(rec, "offset", offset, NULL);
    cml_record_add_param(rec, "path", 0, path);
    cml_record_add_param(rec, "n", 1 << 24, NULL);
    rec->bytes_read = 2u << 26;
    rec->bytes_written = 1u << 26;
    rec->has_model = 1;
    cml_traffic *t = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    t->instructions = t->requests = 1000;
    t->requested_bytes = 128000;
    t->efficiency_bytes = (uint64_t)(128000 / eff);
    t->sectors = t->efficiency_bytes / 32;
    cml_traffic *f = &rec->model[CML_RULES_FERMI].cls[CML_CLASS_GLOBAL_LD];
    *f = *t;
    if (gbs > 0) {
        rec->measured = 1;
        rec->timing = (cml_timing){1, 20, 0.07, 0.069, 0.071, 0.07, 0.004};
        rec->bandwidth_gbs = gbs;
        rec->peak_fraction = gbs / 3000;
        rec->verify = CML_VERIFY_PASSED;
    }
    cml_record_finding(rec, "Offset %lld: the finding <b>&amp;</b>.", (long long)offset);
    return rec;
}

static void check_page(const char *s)
{
    CHECK(!strncmp(s, "<!DOCTYPE html>\n<html lang=\"en\">", 32));
    CHECK(strlen(s) > 15 && !strcmp(s + strlen(s) - 8, "</html>\n"));
    CHECK_STR_CONTAINS(s, "<meta charset=\"utf-8\">");
    CHECK_STR_CONTAINS(s, "Content-Security-Policy\" content=\"default-src 'none'");
    /* Self-contained: no script, no external reference of any kind. */
    CHECK(strstr(s, "<script") == NULL);
    CHECK(strstr(s, "http://") == NULL && strstr(s, "https://") == NULL);
    CHECK(strstr(s, " src=") == NULL && strstr(s, "url(") == NULL && strstr(s, "@import") == NULL);
    CHECK(strstr(s, "<link") == NULL);
    CHECK(count(s, "<svg") == count(s, "</svg>"));
    CHECK(count(s, "<table") == count(s, "</table>"));
    CHECK(count(s, "<section") == count(s, "</section>"));
    CHECK(count(s, "<figure>") == count(s, "</figure>"));
    CHECK(count(s, "<svg") == count(s, "<figure>"));
    check_no_nan(s);
    CHECK_STR_CONTAINS(s, "<footer id=\"cml-end\">");
}

static void test_report_model_only(void)
{
    cml_results r;
    cml_results_init(&r);
    r.model_only = 1;
    snprintf(r.tool_version, sizeof r.tool_version, "0.1.0");
    snprintf(r.command_line, sizeof r.command_line, "cumemlab --model --html a<b>.html");
    offset_record(&r, 0, "ca", 0, 1.0);
    offset_record(&r, 1, "ca", 0, 0.8);
    offset_record(&r, 11, "ca", 0, 0.8);
    offset_record(&r, 32, "ca", 0, 1.0);
    char *s = report_text(&r);
    check_page(s);
    CHECK_STR_CONTAINS(s, "No GPU was used:");
    CHECK(strstr(s, "Measured peak") == NULL);
    CHECK_STR_CONTAINS(s, "<code>cumemlab --model --html a&lt;b&gt;.html</code>");
    CHECK(strstr(s, "<b>&amp;</b>") == NULL);
    CHECK_STR_CONTAINS(s, "the finding &lt;b&gt;&amp;amp;&lt;/b&gt;.");
    /* Model charts only: efficiency and sectors per request, no bandwidth. */
    CHECK_STR_CONTAINS(s, "<figcaption>Predicted efficiency vs read offset</figcaption>");
    CHECK_STR_CONTAINS(s, "<figcaption>Predicted sectors per request vs read offset</figcaption>");
    CHECK(strstr(s, "Measured bandwidth") == NULL);
    CHECK(count(s, "<svg") == 2);
    /* The sentence computed from the numbers. */
    CHECK_STR_CONTAINS(s, "Under the modern rules, the predicted efficiency fell from 100.0% at "
                          "offset 0 to 80.0% at offset 1 (20% lower).");
    /* Every record in the table, parameters as columns, n said once. */
    CHECK_STR_CONTAINS(s, "The same in every row: path = ca, n = 16777216.");
    CHECK(count(strstr(s, "<table class=\"records\""), "<tr><th scope=\"row\">") == 4);
    CHECK_STR_CONTAINS(s, "<th scope=\"row\">11</th>");
    /* The summary leads, before the device and the sections: no GPU, so
     * by the model's efficiency, the first of the best (offset 0) and of
     * the worst (offset 1), 100 / 80 = 1.25x, with the worst's finding. */
    CHECK(strstr(s, "id=\"summary\"") && strstr(s, "id=\"summary\"") < strstr(s, "<nav "));
    CHECK_STR_CONTAINS(s, "<tr><th scope=\"row\"><a href=\"#exp-1-read-offset\">read-offset</a>"
                          "</th><td class=\"by\">eff %</td><td><span class=\"num\">100.0</span> "
                          "offset=0</td><td><span class=\"num\">80.0</span> offset=1</td>"
                          "<td class=\"num\">1.25x</td><td class=\"finding\">Offset 1: the finding "
                          "&lt;b&gt;&amp;amp;&lt;/b&gt;.</td></tr>");
    /* Every chart has its numbers one click away. */
    CHECK(count(s, "<details class=\"chart-data\"><summary>data</summary>\n") == 2);
    CHECK_STR_CONTAINS(s, "<thead><tr><th scope=\"col\">read offset (floats)</th><th scope=\"col\">"
                          "modern</th><th scope=\"col\">Fermi/Kepler</th></tr></thead>");
    CHECK_STR_CONTAINS(s, "<tr><th scope=\"row\">11</th><td>80%</td><td>80%</td></tr>");
    free(s);
    cml_results_free(&r);
}

static void test_report_measured(void)
{
    cml_results r;
    cml_results_init(&r);
    snprintf(r.tool_version, sizeof r.tool_version, "0.1.0");
    r.has_device = 1;
    snprintf(r.device.name, sizeof r.device.name, "Test GPU \"<9000>\"");
    r.device.cc_major = 9;
    r.device.theoretical_gbs = 3352.32;
    r.device.global_bytes = 80ull << 30;
    r.peak_gbs = 3000;
    const char *paths[] = {"ca", "cg"};
    for (int p = 0; p < 2; p++) {
        offset_record(&r, 0, paths[p], 2950 - p * 40, 1.0);
        cml_record *rec = offset_record(&r, 11, paths[p], 2684.5 - p * 40, 0.8);
        rec->ncounters = 1;
        snprintf(rec->counters[0].name, sizeof rec->counters[0].name, "l1tex__t_sectors.sum");
        rec->counters[0].measured = 5000 + p * 100;
        rec->counters[0].predicted = 5000;
        rec->counters[0].has_prediction = 1;
        offset_record(&r, 32, paths[p], 2950 - p * 40, 1.0);
    }
    cml_record *bad = cml_results_add(&r, "stride", "stride=2");
    cml_record_add_param(bad, "stride", 2, NULL);
    bad->state = CML_REC_FAILED;
    bad->verify = CML_VERIFY_FAILED;
    cml_record_note(bad, "mismatch at C[3]: expected 1 <got> 2 & \"x\"");
    cml_record *odd = cml_results_add(&r, "from-the-future", "v=1");
    cml_record_add_param(odd, "v", 1, NULL);
    odd->measured = 1;
    odd->bandwidth_gbs = 12.5;
    odd->timing.median_ms = 2;

    char *s = report_text(&r);
    check_page(s);
    CHECK(strstr(s, "No GPU was used") == NULL);
    CHECK_STR_CONTAINS(s, "Measured peak bandwidth: <strong>3000.0 GB/s</strong> (89.5% of the "
                          "theoretical 3352.3 GB/s)");
    CHECK_STR_CONTAINS(s, "<title>cumemlab report: Test GPU &quot;&lt;9000&gt;&quot;</title>");
    CHECK_STR_CONTAINS(s, "<figcaption>Measured bandwidth vs read offset</figcaption>");
    CHECK_STR_CONTAINS(s, "With path=ca, bandwidth fell from 2950.0 GB/s at offset 0 to 2684.5 "
                          "GB/s at offset 11 (9% lower).");
    CHECK_STR_CONTAINS(s, "With path=cg, bandwidth fell from 2910.0 GB/s at offset 0 to 2644.5 "
                          "GB/s at offset 11 (9% lower).");
    /* Counters: a chart, a sentence and a table. */
    CHECK_STR_CONTAINS(s, "Hardware counters: measured vs the model&#39;s prediction");
    CHECK_STR_CONTAINS(s, "1 of 2 counter readings agree with the model; the largest "
                          "disagreement is l1tex__t_sectors.sum for offset=11 path=cg: measured "
                          "5.1e+03, predicted 5e+03.");
    CHECK_STR_CONTAINS(s, "<tr><th scope=\"row\">offset=11 path=ca</th>"
                          "<td class=\"agree\">= 5000</td></tr>");
    CHECK_STR_CONTAINS(s, "<tr><th scope=\"row\">offset=11 path=cg</th>"
                          "<td class=\"differ\">5100<br>&#8800; 5000 (1.02x)</td></tr>");
    /* The failed record: its note escaped, no figure shown for it. */
    CHECK_STR_CONTAINS(s, "FAILED: mismatch at C[3]: expected 1 &lt;got&gt; 2 &amp; &quot;x&quot;");
    CHECK_STR_CONTAINS(s, "<span class=\"failed\">1 FAILED</span>");
    /* An experiment this report does not know still gets its bandwidth. */
    CHECK_STR_CONTAINS(s, "<h2 id=\"exp-3-from-the-future-h\">from-the-future</h2>");
    CHECK_STR_CONTAINS(s, "<figcaption>Measured bandwidth by variant</figcaption>");
    /* Measured columns with units. */
    CHECK_STR_CONTAINS(s, "<th scope=\"col\">median (us)</th>");
    CHECK_STR_CONTAINS(s, "<td>70.00</td>");
    CHECK_STR_CONTAINS(s, "<td>2684.5</td>");
    free(s);
    cml_results_free(&r);
}

static void test_report_empty(void)
{
    cml_results r;
    cml_results_init(&r);
    char *s = report_text(&r);
    check_page(s);
    CHECK_STR_CONTAINS(s, "<p>No records.</p>");
    CHECK_STR_CONTAINS(s, "(version unknown)");
    CHECK(count(s, "<svg") == 0);
    free(s);
    cml_results_free(&r);
}

/* ------------------------------------------------------------------ */
/* Chart planning, without HTML                                       */
/* ------------------------------------------------------------------ */

static cml_record *stride_record(cml_results *r, const char *pattern, int64_t stride, double gbs)
{
    char v[64];
    snprintf(v, sizeof v, "pattern=%s stride=%lld", pattern, (long long)stride);
    cml_record *rec = cml_results_add(r, "test-stride", v);
    cml_record_add_param(rec, "pattern", 0, pattern);
    if (stride > 0) /* broadcast and gather have no stride */
        cml_record_add_param(rec, "stride", stride, NULL);
    rec->measured = 1;
    rec->bandwidth_gbs = gbs;
    rec->timing.median_ms = 1;
    return rec;
}

static const char *const test_extra_names[] = {"a_gbs", "b_gbs", NULL};
static const char *const test_extra_legend[] = {"A", "B", NULL};

static const cml_chart_spec test_specs[] = {
    {CML_PLOT_SWEEP, "Bandwidth vs stride", "stride", "stride", "stride (elements)",
     CML_SCALE_LOG2, CML_FMT_NUMBER, "bandwidth (GB/s)", CML_FMT_NUMBER, NULL, NULL, NULL, NULL,
     {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, "bandwidth", "GB/s", 1, NULL, NULL, NULL,
     NULL, NULL},
    /* No record has a model: not planned. */
    {CML_PLOT_BARS, "Efficiency by pattern", NULL, NULL, NULL, CML_SCALE_LINEAR, CML_FMT_NUMBER,
     "%", CML_FMT_PERCENT, NULL, NULL, NULL, NULL,
     {{"modern", CML_METRIC_EFF_MODERN, NULL, NULL, 0}}, "the efficiency", "%", 1, NULL, NULL, NULL,
     NULL, NULL},
    {CML_PLOT_BARS, "Bandwidth without a stride", NULL, NULL, NULL, CML_SCALE_LINEAR,
     CML_FMT_NUMBER, "bandwidth (GB/s)", CML_FMT_NUMBER, NULL, NULL, "stride", NULL,
     {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, "bandwidth without a stride", "GB/s", 1,
     NULL, NULL, NULL, NULL, NULL},
    {CML_PLOT_EXTRAS, "Extra figures", NULL, NULL, NULL, CML_SCALE_LINEAR, CML_FMT_NUMBER, "GB/s",
     CML_FMT_NUMBER, NULL, NULL, NULL, NULL, {{NULL, CML_METRIC_NONE, NULL, NULL, 0}}, NULL, NULL,
     0,
     test_extra_names, test_extra_legend, NULL, NULL, NULL},
};

static void test_plan_specs(void)
{
    cml_results r;
    cml_results_init(&r);
    stride_record(&r, "stride", 1, 100);
    stride_record(&r, "stride", 2, 50);
    stride_record(&r, "stride", 4, 25);
    stride_record(&r, "broadcast", 0, 80);
    stride_record(&r, "gather", 0, 20);
    cml_record_add_extra(&r.items[0], "a_gbs", 7, "GB/s");
    cml_record *bad = stride_record(&r, "stride", 8, 1);
    bad->state = CML_REC_FAILED; /* never drawn */
    const cml_record *recs[6];
    for (size_t i = 0; i < r.count; i++)
        recs[i] = &r.items[i];

    cml_chart_plan *p = malloc(sizeof *p);
    CHECK(p != NULL);
    cml_chart_plan_build(p, test_specs, CML_COUNT(test_specs), recs, r.count);
    CHECK(!p->oom);
    CHECK_EQ_U64(p->ncharts, 3);
    CHECK(!strcmp(p->charts[0].title, "Bandwidth vs stride"));
    CHECK(p->charts[0].kind == CML_CHART_LINE && p->charts[0].x.scale == CML_SCALE_LOG2);
    /* The sweep: the strided records only, one line (nothing else varies). */
    CHECK_EQ_U64(p->charts[0].nseries, 1);
    CHECK_EQ_U64(p->charts[0].series[0].n, 3);
    CHECK(!strcmp(p->charts[0].series[0].name, "bandwidth"));
    /* The bars: the records without a stride only. */
    CHECK(!strcmp(p->charts[1].title, "Bandwidth without a stride"));
    CHECK(p->charts[1].kind == CML_CHART_BAR);
    CHECK_EQ_U64(p->charts[1].ncategories, 2);
    CHECK(p->charts[1].ncategories == 2 && !strcmp(p->charts[1].categories[0], "broadcast") &&
          !strcmp(p->charts[1].categories[1], "gather"));
    /* The extras: one record has one of the two figures. */
    CHECK(!strcmp(p->charts[2].title, "Extra figures"));
    CHECK_EQ_U64(p->charts[2].nseries, 1);
    CHECK(!strcmp(p->charts[2].series[0].name, "A") && p->charts[2].series[0].y[0] == 7);
    CHECK_EQ_U64(p->nsentences, 2);
    CHECK(!strcmp(p->sentences[0],
                  "Bandwidth fell from 100.0 GB/s at stride 1 to 25.0 GB/s at stride 4 (75% lower)."));
    CHECK(!strcmp(p->sentences[1], "Bandwidth without a stride ranges from 20.0 GB/s (gather) to "
                                   "80.0 GB/s (broadcast), 4.00x apart."));
    cml_chart_plan_free(p);
    CHECK_EQ_U64(p->ncharts, 0);

    /* No specs: nothing but the counters chart, and no counters here. */
    cml_chart_plan_build(p, NULL, 0, recs, r.count);
    CHECK(p->ncharts == 0 && p->nsentences == 0);
    /* Counters with predictions: the scatter chart, whatever the specs. */
    r.items[0].ncounters = 1;
    snprintf(r.items[0].counters[0].name, sizeof r.items[0].counters[0].name, "sectors");
    r.items[0].counters[0].measured = r.items[0].counters[0].predicted = 64;
    r.items[0].counters[0].has_prediction = 1;
    cml_chart_plan_build(p, NULL, 0, recs, r.count);
    CHECK(p->ncharts == 1 && p->charts[0].kind == CML_CHART_SCATTER);
    CHECK(p->nsentences == 1 &&
          !strcmp(p->sentences[0], "All 1 counter readings with a prediction agree with the model."));
    cml_chart_plan_free(p);

    /* A key the registry does not know: bandwidth per variant. */
    cml_chart_plan_experiment(p, "from-the-future", recs, r.count);
    CHECK(p->ncharts >= 1 && !strcmp(p->charts[0].title, "Measured bandwidth by variant"));
    cml_chart_plan_free(p);
    free(p);
    cml_results_free(&r);
}

/* The registry's rows: exact keys only, each row's specs drawable, and the
 * planner draws what the row declares. */
static void test_plan_registry(void)
{
    const cml_experiment *ro = cml_chart_plan_row("read-offset");
    CHECK(ro != NULL && !strcmp(ro->key, "read-offset"));
    /* "read-off" is a unique prefix for the command line, not a key. */
    CHECK(cml_experiment_find("read-off") == ro);
    CHECK(cml_chart_plan_row("read-off") == NULL);
    CHECK(cml_chart_plan_row("") == NULL && cml_chart_plan_row("from-the-future") == NULL);

    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *e = cml_experiment_at(i);
        CHECK(cml_chart_plan_row(e->key) == e);
        CHECK(e->title != NULL);
        CHECK(e->ncharts == 0 || e->charts != NULL);
        CHECK(e->ncharts <= CML_PLAN_MAX_CHARTS - 1); /* room for the counters chart */
        for (size_t k = 0; k < e->ncharts && e->charts; k++) {
            const cml_chart_spec *sp = &e->charts[k];
            int ok = sp->title != NULL;
            if (sp->shape == CML_PLOT_SWEEP)
                ok &= sp->xparam && sp->xname && sp->m[0].id != CML_METRIC_NONE && sp->what &&
                      sp->unit && (sp->m[1].id == CML_METRIC_NONE || (sp->m[0].name && sp->m[1].name));
            else if (sp->shape == CML_PLOT_BARS)
                ok &= sp->m[0].id != CML_METRIC_NONE && sp->what && sp->unit;
            else if (sp->shape == CML_PLOT_EXTRAS) {
                size_t a = 0, b = 0;
                while (sp->extra_names && sp->extra_names[a])
                    a++;
                while (sp->extra_legend && sp->extra_legend[b])
                    b++;
                ok &= a > 0 && a == b;
            } else {
                ok = 0;
            }
            if (!ok)
                fprintf(stderr, "registry row %s: chart %zu (\"%s\") is not drawable\n", e->key,
                        k, sp->title ? sp->title : "");
            CHECK(ok);
        }
    }

    /* Records of read-offset get the charts of its row, nothing else. */
    cml_results r;
    cml_results_init(&r);
    offset_record(&r, 0, "ca", 2900, 1.0);
    offset_record(&r, 11, "ca", 2600, 0.8);
    offset_record(&r, 32, "ca", 2900, 1.0);
    const cml_record *recs[3] = {&r.items[0], &r.items[1], &r.items[2]};
    cml_chart_plan *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    CHECK(a && b);
    cml_chart_plan_experiment(a, "read-offset", recs, 3);
    cml_chart_plan_build(b, ro->charts, ro->ncharts, recs, 3);
    CHECK(a->ncharts == b->ncharts && a->nsentences == b->nsentences);
    CHECK(a->ncharts == ro->ncharts); /* every chart has something to draw here */
    for (size_t i = 0; i < a->ncharts && i < b->ncharts; i++)
        CHECK(!strcmp(a->charts[i].title, b->charts[i].title) &&
              !strcmp(a->charts[i].title, ro->charts[i].title));
    for (size_t i = 0; i < a->nsentences && i < b->nsentences; i++)
        CHECK(!strcmp(a->sentences[i], b->sentences[i]));
    cml_chart_plan_free(a);
    cml_chart_plan_free(b);
    free(a);
    free(b);
    cml_results_free(&r);
}

/* Every experiment of the registry is titled by its row, and linked. */
static void test_report_titles(void)
{
    cml_results r;
    cml_results_init(&r);
    for (size_t i = 0; i < cml_experiment_count(); i++)
        cml_results_add(&r, cml_experiment_at(i)->key, "v");
    cml_results_add(&r, "read-off", "v"); /* a prefix is not the experiment */
    char *s = report_text(&r);
    check_page(s);
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *e = cml_experiment_at(i);
        char want[400], id[96];
        size_t n = (size_t)snprintf(id, sizeof id, "exp-%zu-", i + 1);
        for (const char *k = e->key; *k && n + 1 < sizeof id; k++)
            id[n++] = (*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') ? *k : '-';
        id[n] = '\0';
        char *title = escaped(e->title);
        /* numbered as the registry (cumemlab list, the README) numbers it */
        snprintf(want, sizeof want, "<h2 id=\"%s-h\">%d. %s (%s)</h2>", id, e->number, title,
                 e->key);
        CHECK_STR_CONTAINS(s, want);
        snprintf(want, sizeof want, "<li><a href=\"#%s\">%d. %s (%s)</a>", id, e->number, title,
                 e->key);
        CHECK_STR_CONTAINS(s, want);
        free(title);
    }
    char want[160];
    snprintf(want, sizeof want, "<h2 id=\"exp-%zu-read-off-h\">read-off</h2>",
             cml_experiment_count() + 1);
    CHECK_STR_CONTAINS(s, want);
    CHECK_STR_CONTAINS(s, "Matrix transpose (transpose)</h2>");
    free(s);
    cml_results_free(&r);
}

/* ------------------------------------------------------------------ */
/* Diagnostics                                                        */
/* ------------------------------------------------------------------ */

static void test_report_diagnostics(void)
{
    cml_results r;
    cml_results_init(&r);
    offset_record(&r, 0, "ca", 0, 1.0);
    char *s = report_text(&r);
    CHECK(strstr(s, "Diagnostics") == NULL && strstr(s, "diagnostics") == NULL);
    free(s);

    CHECK(cml_results_diag(&r, CML_DIAG_WARNING, NULL, "counters unavailable: <libcupti> & \"x\"") ==
          CML_OK);
    CHECK(cml_results_diag(&r, CML_DIAG_ERROR, "read-offset", "variant path=nc failed") == CML_OK);
    CHECK(cml_results_diag(&r, CML_DIAG_INFO, "stride", "skipped: no <GPU>") == CML_OK);
    s = report_text(&r);
    check_page(s);
    CHECK(count(s, "<h2 id=\"diagnostics-h\">Diagnostics</h2>") == 1);
    /* Near the top: after the header, before the list of experiments. */
    const char *d = strstr(s, "id=\"diagnostics-h\"");
    CHECK(d && strstr(s, "</header>") < d && d < strstr(s, "<nav "));
    CHECK_STR_CONTAINS(s, "<tr><td class=\"waived\">warning</td><td>run</td><td>counters "
                          "unavailable: &lt;libcupti&gt; &amp; &quot;x&quot;</td></tr>");
    /* An experiment with a section is linked to it. */
    CHECK_STR_CONTAINS(s, "<tr><td class=\"failed\">error</td><td><a href=\"#exp-1-read-offset\">"
                          "read-offset</a></td><td>variant path=nc failed</td></tr>");
    CHECK_STR_CONTAINS(s, "<tr><td>info</td><td>stride</td><td>skipped: no &lt;GPU&gt;</td></tr>");
    CHECK(strstr(s, "<GPU>") == NULL && strstr(s, "<libcupti>") == NULL);
    /* One row per diagnostic. */
    const char *end = d ? strstr(d, "</section>") : NULL;
    CHECK(end != NULL);
    if (d && end) {
        char *sec = strndup(d, (size_t)(end - d));
        CHECK(count(sec, "<tr><td") == 3);
        free(sec);
    }
    free(s);

    /* Diagnostics and no records (an experiment failed before any). */
    cml_results e;
    cml_results_init(&e);
    cml_results_diag(&e, CML_DIAG_ERROR, "transpose", "out of memory");
    s = report_text(&e);
    check_page(s);
    CHECK_STR_CONTAINS(s, "<td class=\"failed\">error</td><td>transpose</td><td>out of memory</td>");
    CHECK_STR_CONTAINS(s, "<p>No records.</p>");
    free(s);
    cml_results_free(&e);
    cml_results_free(&r);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_escape();
    test_nice_ticks();
    test_log_ticks();
    test_format();
    test_empty_chart();
    test_line_log_axis();
    test_bars_and_scatter();
    test_report_model_only();
    test_report_measured();
    test_report_empty();
    test_plan_specs();
    test_plan_registry();
    test_report_titles();
    test_report_diagnostics();
    return cml_test_summary("test_html");
}
