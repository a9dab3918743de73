/*
 * The numbers behind a chart (html.h: cml_chart_data_html): a <details>
 * element under the chart's SVG holding a <table> of every point the chart
 * draws, so the exact figures are one click away without a script. Line
 * charts: a row per x, a column per series; bar charts: a row per
 * category, a column per series; scatter charts (and lines with two points
 * at one x): a row per point, grouped by series.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/svg_chart.h"

static int drawn(const cml_chart *c, double x, double y)
{
    if (c->kind == CML_CHART_BAR)
        return isfinite(x) && x >= 0 && x < (double)c->ncategories && isfinite(y);
    return isfinite(x) && isfinite(y) && (c->x.scale == CML_SCALE_LINEAR || x > 0) &&
           (c->y.scale == CML_SCALE_LINEAR || y > 0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A figure as the table shows it: six significant digits, bytes as sizes. */
static void value_cell(FILE *out, double v, cml_tick_format fmt)
{
    char buf[64];
    if (fmt == CML_FMT_BYTES)
        cml_fmt_tick(buf, sizeof buf, v, 0, fmt);
    else
        snprintf(buf, sizeof buf, "%.6g%s", v, fmt == CML_FMT_PERCENT ? "%" : "");
    fputs("<td>", out); /* right-aligned by the table's style (html.c) */
    cml_xml_escape(out, buf);
    fputs("</td>", out);
}

static void head_cell(FILE *out, const char *text)
{
    fputs("<th scope=\"col\">", out);
    cml_xml_escape(out, text);
    fputs("</th>", out);
}

/* The first point of series s at x (or category x); -1 when none. */
static long point_at(const cml_chart *c, const cml_chart_series *s, double x)
{
    for (size_t k = 0; k < s->n; k++)
        if (s->x[k] == x && drawn(c, s->x[k], s->y[k]))
            return (long)k;
    return -1;
}

/* Does any series have two drawn points at one x? */
static int repeats_x(const cml_chart *c)
{
    for (size_t i = 0; i < c->nseries; i++) {
        const cml_chart_series *s = &c->series[i];
        for (size_t k = 0; k < s->n; k++)
            if (drawn(c, s->x[k], s->y[k]) && point_at(c, s, s->x[k]) != (long)k)
                return 1;
    }
    return 0;
}

/* A row per point, the points of each series in a row group named once
 * (a counters chart has a thousand points under names of 50 characters). */
static void list_rows(FILE *out, const cml_chart *c)
{
    fputs("<thead><tr>", out);
    head_cell(out, "series");
    head_cell(out, c->kind == CML_CHART_BAR ? "variant" : c->x.label[0] ? c->x.label : "x");
    head_cell(out, c->y.label[0] ? c->y.label : "y");
    fputs("</tr></thead>\n<tbody>\n", out);
    int groups = 0;
    for (size_t i = 0; i < c->nseries; i++) {
        const cml_chart_series *s = &c->series[i];
        size_t m = 0, row = 0;
        for (size_t k = 0; k < s->n; k++)
            m += drawn(c, s->x[k], s->y[k]) != 0;
        if (m == 0)
            continue;
        if (groups++)
            fputs("</tbody>\n<tbody>\n", out);
        for (size_t k = 0; k < s->n; k++) {
            if (!drawn(c, s->x[k], s->y[k]))
                continue;
            if (row++ == 0) {
                fprintf(out, "<tr><th scope=\"rowgroup\" rowspan=\"%zu\">", m);
                cml_xml_escape(out, s->name);
                fputs("</th>", out);
            } else {
                fputs("<tr>", out);
            }
            if (c->kind == CML_CHART_BAR) {
                fputs("<td class=\"txt\">", out);
                cml_xml_escape(out, c->categories[(size_t)s->x[k]]);
                fputs("</td>", out);
            } else {
                value_cell(out, s->x[k], c->x.format);
            }
            value_cell(out, s->y[k], c->y.format);
            fputs("</tr>\n", out);
        }
    }
}

/* Rows by x (line charts) or by category (bars), a column per series. */
static void pivot_rows(FILE *out, const cml_chart *c, const double *xs, size_t nx)
{
    int bar = c->kind == CML_CHART_BAR;
    fputs("<thead><tr>", out);
    head_cell(out, bar ? (c->x.label[0] ? c->x.label : "variant")
                       : (c->x.label[0] ? c->x.label : "x"));
    for (size_t i = 0; i < c->nseries; i++)
        if (c->series[i].n)
            head_cell(out, c->series[i].name);
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t r = 0; r < nx; r++) {
        fputs("<tr><th scope=\"row\">", out);
        if (bar) {
            cml_xml_escape(out, c->categories[(size_t)xs[r]]);
        } else {
            char buf[64];
            if (c->x.format == CML_FMT_BYTES)
                cml_fmt_tick(buf, sizeof buf, xs[r], 0, c->x.format);
            else
                snprintf(buf, sizeof buf, "%.6g", xs[r]);
            cml_xml_escape(out, buf);
        }
        fputs("</th>", out);
        for (size_t i = 0; i < c->nseries; i++) {
            const cml_chart_series *s = &c->series[i];
            if (!s->n)
                continue;
            long k = point_at(c, s, xs[r]);
            if (k < 0)
                fputs("<td class=\"na\">-</td>", out);
            else
                value_cell(out, s->y[k], c->y.format);
        }
        fputs("</tr>\n", out);
    }
}

void cml_chart_data_html(FILE *out, const cml_chart *c)
{
    size_t total = 0;
    for (size_t i = 0; i < c->nseries; i++)
        total += c->series[i].n;
    if (total == 0 || cml_chart_drawable_points(c) == 0)
        return;
    /* The distinct x values (or category indices) drawn, in order. */
    double *xs = malloc(total * sizeof *xs);
    if (!xs)
        return;
    size_t nx = 0;
    for (size_t i = 0; i < c->nseries; i++)
        for (size_t k = 0; k < c->series[i].n; k++)
            if (drawn(c, c->series[i].x[k], c->series[i].y[k]))
                xs[nx++] = c->series[i].x[k];
    qsort(xs, nx, sizeof *xs, cmp_double);
    size_t u = 0;
    for (size_t k = 0; k < nx; k++)
        if (u == 0 || xs[k] != xs[u - 1])
            xs[u++] = xs[k];
    fputs("<details class=\"chart-data\"><summary>data</summary>\n<div class=\"scroll\">"
          "<table class=\"chart-data\">\n<caption>",
          out);
    cml_xml_escape(out, c->title);
    fputs("</caption>\n", out);
    if (c->kind == CML_CHART_SCATTER || repeats_x(c))
        list_rows(out, c);
    else
        pivot_rows(out, c, xs, u);
    fputs("</tbody>\n</table></div>\n</details>\n", out);
    free(xs);
}
