/*
 * The SVG chart writer: scales, nice ticks, axes, marks and legend. Every
 * number written into the SVG is finite (a NaN attribute is an error the
 * browser reports): points that cannot be drawn are dropped before any
 * coordinate is computed, and every range is made non-empty first.
 */
#include "report/svg_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart_range.h"
#include "report/report_util.h"

/* Okabe-Ito colours: distinguishable with the common colour-vision
 * deficiencies; the yellow is left out (too pale on white). Series beyond
 * seven differ by their marker and dash pattern as well. */
static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000"};
#define NPALETTE (sizeof palette / sizeof palette[0])
static const char *const dashes[] = {"", "6 3", "2 3", "8 3 2 3"};

#define FONT_W 6.6   /* average glyph width of the 12 px sans-serif font, in px */
#define BAR_LABEL_MAX 36 /* characters of a bar chart's category label ("block=256 scale
                            size=1073741824"), cut at a word past them */
#define LEGEND_ROW 18.0

static void copy_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

void cml_chart_init(cml_chart *c, cml_chart_kind kind, const char *title, const char *x_label,
                    const char *y_label)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    copy_str(c->title, sizeof c->title, title);
    copy_str(c->x.label, sizeof c->x.label, x_label);
    copy_str(c->y.label, sizeof c->y.label, y_label);
    c->y.from_zero = 1;
}

void cml_chart_free(cml_chart *c)
{
    for (size_t i = 0; i < c->nseries; i++) {
        free(c->series[i].x);
        free(c->series[i].y);
    }
    free(c->categories);
    memset(c, 0, sizeof *c);
}

cml_chart_series *cml_chart_add_series(cml_chart *c, const char *name)
{
    if (c->nseries >= CML_CHART_MAX_SERIES)
        return NULL;
    cml_chart_series *s = &c->series[c->nseries++];
    memset(s, 0, sizeof *s);
    copy_str(s->name, sizeof s->name, name);
    return s;
}

cml_chart_series *cml_chart_series_named(cml_chart *c, const char *name)
{
    for (size_t i = 0; i < c->nseries; i++)
        if (strcmp(c->series[i].name, name) == 0)
            return &c->series[i];
    return cml_chart_add_series(c, name);
}

cml_status cml_chart_add_point(cml_chart_series *s, double x, double y)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        double *nx = realloc(s->x, cap * sizeof *nx);
        if (!nx)
            return CML_ENOMEM;
        s->x = nx;
        double *ny = realloc(s->y, cap * sizeof *ny);
        if (!ny)
            return CML_ENOMEM;
        s->y = ny;
        s->cap = cap;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
    return CML_OK;
}

cml_status cml_chart_add_xmark(cml_chart *c, double x, const char *label)
{
    if (c->nxmarks >= CML_CHART_MAX_XMARKS || !isfinite(x))
        return CML_EINVAL;
    c->xmarks[c->nxmarks].x = x;
    copy_str(c->xmarks[c->nxmarks++].label, sizeof c->xmarks[0].label, label);
    return CML_OK;
}

long cml_chart_category(cml_chart *c, const char *name)
{
    for (size_t i = 0; i < c->ncategories; i++)
        if (strcmp(c->categories[i], name) == 0)
            return (long)i;
    if (c->ncategories == c->capcategories) {
        size_t cap = c->capcategories ? c->capcategories * 2 : 8;
        char(*nc)[64] = realloc(c->categories, cap * sizeof *nc);
        if (!nc)
            return -1;
        c->categories = nc;
        c->capcategories = cap;
    }
    copy_str(c->categories[c->ncategories], sizeof c->categories[0], name);
    return (long)c->ncategories++;
}

/* Ticks and their labels (cml_nice_ticks, cml_log_ticks, cml_fmt_tick):
 * chart_range.c, with the rule for a value axis's range. */

void cml_xml_escape(FILE *out, const char *str)
{
    if (!str)
        return;
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned c = *s;
        switch (c) {
        case '&': fputs("&amp;", out); s++; continue;
        case '<': fputs("&lt;", out); s++; continue;
        case '>': fputs("&gt;", out); s++; continue;
        case '"': fputs("&quot;", out); s++; continue;
        case '\'': fputs("&#39;", out); s++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7f) {
            fputc(c == '\t' || c == '\n' ? (int)c : ' ', out);
            s++;
        } else if (c < 0x80) {
            fputc((int)c, out);
            s++;
        } else {
            size_t n = cml_rep_utf8_len(s);
            if (n == 0) {
                fputs("&#xFFFD;", out);
                s++;
            } else {
                fwrite(s, 1, n, out);
                s += n;
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* Scales                                                             */
/* ------------------------------------------------------------------ */

typedef struct scale {
    cml_scale kind;
    double lo, hi;             /* the axis range (first and last tick) */
    double p0, p1;             /* pixels of lo and hi */
    double ticks[CML_CHART_MAX_TICKS];
    size_t nticks;
    double step;               /* linear: tick step; log: 0 */
    int broken;                /* linear: starts above the 0 it should show */
} scale;

static int drawable(cml_scale s, double v)
{
    return isfinite(v) && (s == CML_SCALE_LINEAR || v > 0);
}

static double map(const scale *s, double v)
{
    /* Halves, so that an axis from -1e308 to 1e308 has a finite span; an
     * axis with no span (or a value the scale cannot place) maps to the
     * middle: a pixel is always a finite number inside a bounded range. */
    double num, den;
    if (s->kind == CML_SCALE_LINEAR) {
        num = v / 2 - s->lo / 2;
        den = s->hi / 2 - s->lo / 2;
    } else {
        num = log(v) - log(s->lo);
        den = log(s->hi) - log(s->lo);
    }
    double t = den > 0 && isfinite(den) ? num / den : 0.5;
    if (!isfinite(t))
        t = 0.5;
    else if (t < -1e6)
        t = -1e6;
    else if (t > 1e6)
        t = 1e6;
    return s->p0 + t * (s->p1 - s->p0);
}

/* Build the axis range and ticks from the data range [lo, hi]: linear
 * axes by the rule of chart_range.h. */
static void make_scale(scale *s, cml_scale kind, double lo, double hi, int from_zero, int zoom,
                       size_t max_ticks, cml_tick_format fmt)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    if (kind != CML_SCALE_LINEAR) {
        double base = kind == CML_SCALE_LOG2 ? 2.0 : 10.0;
        s->nticks = cml_log_ticks(lo, hi, base, max_ticks, s->ticks);
        if (s->nticks >= 2) {
            s->lo = s->ticks[0];
            s->hi = s->ticks[s->nticks - 1];
            return;
        }
        s->kind = CML_SCALE_LINEAR; /* cannot happen for positive data */
    }
    cml_axis_range ar;
    if (fmt == CML_FMT_WHOLE) /* categories: whole numbers only */
        cml_axis_range_whole(lo, hi, max_ticks, &ar);
    else
        cml_axis_range_choose(lo, hi, from_zero, zoom, max_ticks, &ar);
    s->lo = ar.lo;
    s->hi = ar.hi;
    s->step = ar.step;
    s->nticks = ar.nticks;
    memcpy(s->ticks, ar.ticks, sizeof s->ticks);
    s->broken = ar.broken;
}

/* ------------------------------------------------------------------ */
/* Writing                                                            */
/* ------------------------------------------------------------------ */

size_t cml_chart_drawable_points(const cml_chart *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nseries; i++)
        for (size_t k = 0; k < c->series[i].n; k++) {
            double x = c->series[i].x[k], y = c->series[i].y[k];
            if (c->kind == CML_CHART_BAR) {
                if (isfinite(x) && x >= 0 && x < (double)c->ncategories && isfinite(y))
                    n++;
            } else if (drawable(c->x.scale, x) && drawable(c->y.scale, y)) {
                n++;
            }
        }
    return n;
}

static int point_ok(const cml_chart *c, double x, double y)
{
    if (c->kind == CML_CHART_BAR)
        return isfinite(x) && x >= 0 && x < (double)c->ncategories && isfinite(y);
    return drawable(c->x.scale, x) && drawable(c->y.scale, y);
}

/* A marker of shape `shape` centred at (x, y). */
static void marker(FILE *out, int shape, double x, double y, const char *color, int hollow)
{
    switch (shape % 4) {
    case 0:
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"", x, y);
        break;
    case 1:
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\"", x - 3.5, y - 3.5);
        break;
    case 2:
        fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y - 4.5, x + 4.5, y + 3.5,
                x - 4.5, y + 3.5);
        break;
    default:
        fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y - 5, x + 5, y, x,
                y + 5, x - 5, y);
        break;
    }
    /* The second of two runs: an open marker in the same colour. */
    if (hollow)
        fprintf(out, " fill=\"#fff\" stroke=\"%s\" stroke-width=\"1.5\"", color);
    else
        fprintf(out, " fill=\"%s\"", color);
}

/* Which look (colour, marker, dash) series i has. */
static size_t look_of(const cml_chart_series *s, size_t i)
{
    return s->look > 0 ? (size_t)(s->look - 1) : i;
}

/* The dash pattern of series i: its look's, or the second run's. */
static const char *dash_of(const cml_chart_series *s, size_t i)
{
    return s->second ? "5 3" : dashes[look_of(s, i) % 4];
}

static void text_el(FILE *out, double x, double y, const char *anchor, const char *extra,
                    const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor,
            extra ? extra : "");
    cml_xml_escape(out, text);
    fputs("</text>\n", out);
}

/* Display length of a UTF-8 string, in characters. */
static size_t text_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

/* A display copy of s cut to at most max characters at a word boundary,
 * with "..." when cut (returns 1 then). */
static int clip_text(char *dst, size_t cap, const char *s, size_t max)
{
    return cml_text_cut_words(dst, cap, s, max);
}

/* Break a category label at spaces into at most 3 lines of at most
 * `maxchars` characters; 0 when it cannot be done. */
#define LABEL_LINES 3
static size_t wrap_label(const char *s, size_t maxchars, char lines[LABEL_LINES][64])
{
    size_t n = 0;
    lines[0][0] = '\0';
    const char *p = s;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t wl = strcspn(p, " ");
        char word[64];
        if (wl >= sizeof word)
            return 0;
        memcpy(word, p, wl);
        word[wl] = '\0';
        if (text_chars(word) > maxchars)
            return 0;
        if (n > 0 && text_chars(lines[n - 1]) + 1 + text_chars(word) <= maxchars &&
            strlen(lines[n - 1]) + 1 + wl < sizeof lines[0]) {
            size_t used = strlen(lines[n - 1]);
            lines[n - 1][used] = ' ';
            memcpy(lines[n - 1] + used + 1, word, wl + 1);
        } else {
            if (n == LABEL_LINES)
                return 0;
            memcpy(lines[n++], word, wl + 1);
        }
        p += wl;
    }
    return n;
}

typedef struct legend_layout {
    size_t rows;
    double x[CML_CHART_MAX_SERIES + 1], y[CML_CHART_MAX_SERIES + 1];
} legend_layout;

static void layout_legend(const cml_chart *c, double left, double right, double top,
                          legend_layout *L)
{
    memset(L, 0, sizeof *L);
    if (c->nseries == 0 && !c->diagonal)
        return;
    double x = left, y = top;
    size_t n = c->nseries + (c->diagonal ? 1 : 0);
    L->rows = 1;
    for (size_t i = 0; i <= CML_CHART_MAX_SERIES && i < n; i++) {
        const char *name = i < c->nseries ? c->series[i].name : "predicted = measured";
        double w = 34 + FONT_W * (double)(text_chars(name) > 60 ? 60 : text_chars(name)) + 18;
        if (x > left && x + w > right) {
            x = left;
            y += LEGEND_ROW;
            L->rows++;
        }
        L->x[i] = x;
        L->y[i] = y;
        x += w;
    }
}

static void write_legend(FILE *out, const cml_chart *c, const legend_layout *L)
{
    size_t n = c->nseries + (c->diagonal ? 1 : 0);
    if (n == 0)
        return;
    fputs("<g class=\"legend\">\n", out);
    for (size_t i = 0; i <= CML_CHART_MAX_SERIES && i < n; i++) {
        double x = L->x[i], y = L->y[i];
        char name[128];
        int clipped = 0;
        if (i < c->nseries) {
            const cml_chart_series *s = &c->series[i];
            size_t look = look_of(s, i);
            const char *col = palette[look % NPALETTE], *dash = dash_of(s, i);
            clipped = clip_text(name, sizeof name, s->name, 60);
            if (c->kind == CML_CHART_BAR) {
                fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"10\" fill=\"%s\"",
                        x, y - 9, col);
                if (s->second)
                    fprintf(out, " fill-opacity=\"0.45\" stroke=\"%s\"", col);
                fputs("/>", out);
            } else {
                if (c->kind == CML_CHART_LINE)
                    fprintf(out,
                            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                            "stroke-width=\"2\"%s%s%s/>",
                            x, y - 4, x + 24, y - 4, col, dash[0] ? " stroke-dasharray=\"" : "",
                            dash, dash[0] ? "\"" : "");
                marker(out, (int)look, x + 12, y - 4, col, s->second);
                fputs("/>", out);
            }
        } else {
            copy_str(name, sizeof name, "predicted = measured");
            fprintf(out,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
                    "stroke-dasharray=\"4 3\"/>",
                    x, y - 4, x + 24, y - 4);
        }
        if (clipped) {
            /* The whole name as the entry's tooltip. */
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\"><title>", x + 30, y);
            cml_xml_escape(out, c->series[i].name);
            fputs("</title>", out);
            cml_xml_escape(out, name);
            fputs("</text>\n", out);
        } else {
            text_el(out, x + 30, y, "start", NULL, name);
        }
    }
    fputs("</g>\n", out);
}

/* Points of a series in x order, for joining them into a line. */
typedef struct xy {
    double x, y;
} xy;

static int cmp_xy(const void *a, const void *b)
{
    double xa = ((const xy *)a)->x, xb = ((const xy *)b)->x;
    return xa < xb ? -1 : xa > xb;
}

static void tooltip(FILE *out, const cml_chart *c, const cml_chart_series *s, double x, double y)
{
    char xs[64], ys[64];
    if (c->kind == CML_CHART_BAR) {
        long k = (long)x;
        copy_str(xs, sizeof xs, c->categories[k]);
    } else {
        cml_fmt_tick(xs, sizeof xs, x, 0, c->x.format);
    }
    cml_fmt_tick(ys, sizeof ys, y, 0, c->y.format);
    fputs("<title>", out);
    if (s->name[0]) {
        cml_xml_escape(out, s->name);
        fputs(": ", out);
    }
    if (c->x.label[0] && c->kind != CML_CHART_BAR) {
        cml_xml_escape(out, c->x.label);
        fputc(' ', out);
    }
    cml_xml_escape(out, xs);
    fputs(" \xE2\x86\x92 ", out); /* an arrow */
    cml_xml_escape(out, ys);
    fputs("</title>", out);
}

cml_status cml_chart_svg(FILE *out, const cml_chart *c)
{
    const double W = c->width > 0 ? c->width : 640;
    const double H = c->height > 0 ? c->height : 320;
    const double MR = 24, MT = 14;
    double ML = 72, MB = 46;
    int bar = c->kind == CML_CHART_BAR;
    size_t npts = cml_chart_drawable_points(c);

    /* Data ranges over drawable points. */
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < c->nseries; i++)
        for (size_t k = 0; k < c->series[i].n; k++) {
            double x = c->series[i].x[k], y = c->series[i].y[k];
            if (!point_ok(c, x, y))
                continue;
            if (x < xlo) xlo = x;
            if (x > xhi) xhi = x;
            if (y < ylo) ylo = y;
            if (y > yhi) yhi = y;
        }
    if (c->diagonal && npts) {
        /* y = x must be visible: one range for both axes. */
        double lo = xlo < ylo ? xlo : ylo, hi = xhi > yhi ? xhi : yhi;
        xlo = ylo = lo;
        xhi = yhi = hi;
    }

    /* Bar labels: on one line when they fit their band, else broken at
     * spaces into up to three lines, else rotated. */
    double band = 0;
    int rotate = 0;
    size_t maxlabel = 0, maxlines = 1;
    if (bar && c->ncategories) {
        band = (W - ML - MR) / (double)c->ncategories;
        size_t fit = band > 6 + FONT_W ? (size_t)((band - 6) / FONT_W) : 1;
        for (size_t i = 0; i < c->ncategories; i++) {
            size_t n = text_chars(c->categories[i]);
            if (n > maxlabel)
                maxlabel = n;
            char lines[LABEL_LINES][64];
            size_t nl = n <= fit ? 1 : wrap_label(c->categories[i], fit, lines);
            if (nl == 0)
                rotate = 1;
            else if (nl > maxlines)
                maxlines = nl;
        }
        if (maxlabel > BAR_LABEL_MAX)
            maxlabel = BAR_LABEL_MAX;
        if (rotate) {
            /* A label turned 35 degrees ends at its band's middle and runs
             * left by cos 35 and down by sin 35 of its length: the margins
             * hold the longest, so none is cut at the chart's edge (the
             * left margin grows where the first bands' labels need it). */
            const double c35 = 0.819, s35 = 0.574;
            MB = 30 + FONT_W * (double)maxlabel * s35;
            for (int pass = 0; pass < 2; pass++) {
                double need = ML;
                for (size_t i = 0; i < c->ncategories; i++) {
                    size_t n = text_chars(c->categories[i]);
                    double run =
                        FONT_W * (double)(n > BAR_LABEL_MAX ? BAR_LABEL_MAX : n) * c35;
                    double room = band * ((double)i + 0.5);
                    if (run - room + 4 > need)
                        need = run - room + 4;
                }
                if (need > W / 3)
                    need = W / 3;
                ML = need;
                band = (W - ML - MR) / (double)c->ncategories;
            }
        } else {
            MB = 32 + 14.0 * (double)maxlines;
        }
    }
    const double plot_h = H - MT - MB > 60 ? H - MT - MB : 60;
    const double x0 = ML, x1 = W - MR, y0 = MT + plot_h, y1 = MT;
    legend_layout L;
    layout_legend(c, ML, W - 8, MT + plot_h + MB + 14, &L);
    double total_h = MT + plot_h + MB + (L.rows ? (double)L.rows * LEGEND_ROW + 8 : 0);

    fprintf(out,
            "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "role=\"img\" aria-label=\"",
            W, total_h, W, total_h);
    cml_xml_escape(out, c->title);
    fputs("\" font-family=\"sans-serif\" font-size=\"12\">\n<title>", out);
    cml_xml_escape(out, c->title);
    fputs("</title>\n", out);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
                 "stroke=\"#ccc\"/>\n",
            x0, y1, x1 - x0, y0 - y1);

    if (npts == 0) {
        text_el(out, (x0 + x1) / 2, (y0 + y1) / 2, "middle", " fill=\"#666\"", "no data");
        if (c->x.label[0])
            text_el(out, (x0 + x1) / 2, y0 + 36, "middle", NULL, c->x.label);
        fputs("</svg>\n", out);
        return ferror(out) ? CML_EIO : CML_OK;
    }

    scale sx, sy;
    if (bar) {
        memset(&sx, 0, sizeof sx);
        sx.kind = CML_SCALE_LINEAR;
        sx.lo = 0;
        sx.hi = (double)c->ncategories;
        sx.p0 = x0;
        sx.p1 = x1;
        make_scale(&sy, CML_SCALE_LINEAR, ylo, yhi, 1, c->y.zoom, 7, c->y.format);
    } else {
        make_scale(&sx, c->x.scale, xlo, xhi, c->x.from_zero, 0, 11, c->x.format);
        make_scale(&sy, c->y.scale, ylo, yhi, c->y.scale == CML_SCALE_LINEAR && c->y.from_zero,
                   c->y.zoom, 7, c->y.format);
        sx.p0 = x0;
        sx.p1 = x1;
    }
    sy.p0 = y0;
    sy.p1 = y1;

    /* Grid and y ticks. */
    fputs("<g class=\"axis y\">\n", out);
    for (size_t i = 0; i < sy.nticks; i++) {
        double py = map(&sy, sy.ticks[i]);
        char lab[64];
        cml_fmt_tick(lab, sizeof lab, sy.ticks[i], sy.step, c->y.format);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>",
                x0, py, x1, py);
        text_el(out, x0 - 6, py + 4, "end", NULL, lab);
    }
    fputs("</g>\n<g class=\"axis x\">\n", out);
    if (bar) {
        for (size_t i = 0; i < c->ncategories; i++) {
            double px = x0 + band * ((double)i + 0.5);
            char lab[128];
            clip_text(lab, sizeof lab, c->categories[i], BAR_LABEL_MAX);
            size_t fit = band > 6 + FONT_W ? (size_t)((band - 6) / FONT_W) : 1;
            char lines[LABEL_LINES][64];
            size_t nl = text_chars(lab) <= fit ? 1 : wrap_label(lab, fit, lines);
            if (rotate) {
                char tr[96];
                snprintf(tr, sizeof tr, " transform=\"rotate(-35 %.1f %.1f)\"", px, y0 + 14);
                text_el(out, px, y0 + 14, "end", tr, lab);
            } else if (nl <= 1) {
                text_el(out, px, y0 + 16, "middle", NULL, lab);
            } else {
                fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px, y0 + 16);
                for (size_t l = 0; l < nl; l++) {
                    fprintf(out, "<tspan x=\"%.1f\" dy=\"%s\">", px, l ? "14" : "0");
                    cml_xml_escape(out, lines[l]);
                    fputs("</tspan>", out);
                }
                fputs("</text>\n", out);
            }
        }
    } else {
        for (size_t i = 0; i < sx.nticks; i++) {
            double px = map(&sx, sx.ticks[i]);
            char lab[64];
            cml_fmt_tick(lab, sizeof lab, sx.ticks[i], sx.step, c->x.format);
            fprintf(out,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/>",
                    px, y1, px, y0);
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>",
                    px, y0, px, y0 + 4);
            text_el(out, px, y0 + 17, "middle", NULL, lab);
        }
    }
    fputs("</g>\n", out);
    /* Axis lines over the grid. */
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x0,
            y0, x1, y0);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x0,
            y0, x0, y1);
    if (sy.broken) {
        /* The axis leaves out the 0 it would show (chart_range.h): a break
         * across it near the bottom, and a note where it starts. */
        double by = y0 - 10;
        fprintf(out,
                "<g class=\"axis-break\"><rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"6\" "
                "fill=\"#fff\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#444\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#444\"/></g>\n",
                x0 - 7, by - 3, x0 - 7, by + 1, x0 + 7, by - 5, x0 - 7, by + 5, x0 + 7, by + 1);
        char lab[64], note[128];
        cml_fmt_tick(lab, sizeof lab, sy.lo, sy.step, c->y.format);
        snprintf(note, sizeof note, "y axis starts at %s, not 0", lab);
        text_el(out, x1, MT - 3, "end", " class=\"axis-note\" font-size=\"10\" fill=\"#555\"",
                note);
    }
    if (c->x.label[0])
        text_el(out, (x0 + x1) / 2, y0 + MB - 8, "middle", " font-weight=\"bold\"", c->x.label);
    if (c->y.label[0]) {
        char tr[96];
        double ly = (y0 + y1) / 2;
        /* beside the tick labels, wherever the left margin ends */
        const double lx = ML - 56;
        snprintf(tr, sizeof tr, " transform=\"rotate(-90 %.1f %.1f)\" font-weight=\"bold\"", lx,
                 ly);
        text_el(out, lx, ly, "middle", tr, c->y.label);
    }

    /* The reference line y = x. */
    if (c->diagonal) {
        double lo = sx.lo > sy.lo ? sx.lo : sy.lo, hi = sx.hi < sy.hi ? sx.hi : sy.hi;
        if (lo < hi && drawable(sx.kind, lo) && drawable(sy.kind, lo))
            fprintf(out,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
                    "stroke-dasharray=\"4 3\"/>\n",
                    map(&sx, lo), map(&sy, lo), map(&sx, hi), map(&sy, hi));
    }

    /* Vertical lines at the x marks inside the axis, labels staggered. */
    for (size_t i = 0; !bar && i < c->nxmarks; i++) {
        double x = c->xmarks[i].x;
        if (!drawable(sx.kind, x) || x < sx.lo || x > sx.hi)
            continue;
        double px = map(&sx, x);
        fprintf(out, "<line class=\"xmark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"#777\" stroke-dasharray=\"3 3\"/>\n",
                px, y1, px, y0);
        text_el(out, px + 3, y1 + 12 + 12 * (double)(i % 2), "start", " fill=\"#555\"",
                c->xmarks[i].label);
    }

    /* The marks. */
    size_t nbarseries = 0;
    for (size_t i = 0; i < c->nseries; i++)
        nbarseries += c->series[i].n > 0;
    size_t barslot = 0;
    for (size_t i = 0; i < c->nseries; i++) {
        const cml_chart_series *s = &c->series[i];
        const size_t look = look_of(s, i);
        const char *col = palette[look % NPALETTE], *dash = dash_of(s, i);
        if (s->n == 0)
            continue;
        fprintf(out, "<g class=\"series\" data-series=\"%zu\"", i);
        if (s->group[0]) {
            fputs(" data-group=\"", out);
            cml_xml_escape(out, s->group);
            fputc('"', out);
        }
        fputs(">\n", out);
        if (bar) {
            double gw = band * 0.8, bw = gw / (double)(nbarseries ? nbarseries : 1);
            double base = map(&sy, sy.lo > 0 ? sy.lo : (sy.hi < 0 ? sy.hi : 0));
            for (size_t k = 0; k < s->n; k++) {
                if (!point_ok(c, s->x[k], s->y[k]))
                    continue;
                double px = x0 + band * (floor(s->x[k]) + 0.1) + bw * (double)barslot;
                double py = map(&sy, s->y[k]);
                double top = py < base ? py : base, h = fabs(base - py);
                fprintf(out,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
                        px, top, bw > 1.5 ? bw - 1 : bw, h, col);
                if (s->second)
                    fprintf(out, " fill-opacity=\"0.45\" stroke=\"%s\"", col);
                fputc('>', out);
                tooltip(out, c, s, s->x[k], s->y[k]);
                fputs("</rect>\n", out);
            }
            barslot++;
        } else {
            xy *pt = malloc(s->n * sizeof *pt);
            size_t m = 0;
            if (!pt)
                return CML_ENOMEM;
            for (size_t k = 0; k < s->n; k++)
                if (point_ok(c, s->x[k], s->y[k])) {
                    pt[m].x = s->x[k];
                    pt[m++].y = s->y[k];
                }
            qsort(pt, m, sizeof *pt, cmp_xy);
            if (c->kind == CML_CHART_LINE && m > 1) {
                fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", col);
                if (dash[0])
                    fprintf(out, " stroke-dasharray=\"%s\"", dash);
                fputs(" points=\"", out);
                for (size_t k = 0; k < m; k++)
                    fprintf(out, "%s%.1f,%.1f", k ? " " : "", map(&sx, pt[k].x),
                            map(&sy, pt[k].y));
                fputs("\"/>\n", out);
            }
            for (size_t k = 0; k < m; k++) {
                marker(out, (int)look, map(&sx, pt[k].x), map(&sy, pt[k].y), col, s->second);
                fputc('>', out);
                tooltip(out, c, s, pt[k].x, pt[k].y);
                fputs(look % 4 == 0 ? "</circle>\n" : look % 4 == 1 ? "</rect>\n" : "</path>\n", out);
            }
            free(pt);
        }
        fputs("</g>\n", out);
    }
    write_legend(out, c, &L);
    fputs("</svg>\n", out);
    return ferror(out) ? CML_EIO : CML_OK;
}
