/*
 * Chart planning (chart_plan.h): the charts of an experiment's records, as
 * its registry row declares them, and the sentences they give.
 */
#include "report/chart_plan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/record_metrics.h"
#include "report/record_params.h"
#include "report/report_util.h"

typedef cml_rep_names names;

/* The records being planned (all of one experiment). */
typedef struct group {
    const cml_record *const *recs;
    size_t n;
} group;

static int is_ok(const cml_record *rec) { return rec->state == CML_REC_OK; }

static double metric(const cml_metric_ref *m, const cml_record *rec)
{
    return cml_rep_metric(rec, m->id, m->arg);
}

/* ------------------------------------------------------------------ */
/* The plan: charts and sentences                                     */
/* ------------------------------------------------------------------ */

static void say(cml_chart_plan *cs, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(cml_chart_plan *cs, const char *fmt, ...)
{
    if (cs->nsentences >= CML_PLAN_MAX_SENTENCES)
        return;
    /* Formatted in a larger buffer first: a sentence too long for its place
     * loses whole words (cml_text_cut_words), never half of one. */
    char text[2 * CML_PLAN_SENTENCE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *s = cs->sentences[cs->nsentences];
    cml_text_cut_words(s, CML_PLAN_SENTENCE_LEN, text, CML_PLAN_SENTENCE_LEN);
    /* Sentences start with a capital letter. */
    if (s[0] >= 'a' && s[0] <= 'z')
        s[0] = (char)(s[0] - 'a' + 'A');
    cs->nsentences++;
}

static const char *str(const char *s) { return s ? s : ""; }

/* Measured figures: their charts zoom in on close values (chart_range.h). */
static int measured_metric(cml_metric_id id)
{
    return id == CML_METRIC_BANDWIDTH || id == CML_METRIC_TIME_US;
}

static cml_chart *new_chart(cml_chart_plan *cs, cml_chart_kind kind, const char *title,
                            const char *xlabel, const char *ylabel)
{
    if (cs->ncharts >= CML_PLAN_MAX_CHARTS)
        return NULL;
    cml_chart *c = &cs->charts[cs->ncharts++];
    cml_chart_init(c, kind, str(title), str(xlabel), str(ylabel));
    c->width = 560;
    c->height = 300;
    return c;
}

/* A title that names its two groups of series ("...: model and counters")
 * names only the one drawn when the other has nothing (a run on the model
 * alone has no counters). */
static void title_for_drawn(cml_chart *c, const char *a, int has_a, const char *b, int has_b)
{
    if (has_a == has_b || !a || !b)
        return;
    char tail[160];
    snprintf(tail, sizeof tail, ": %s and %s", a, b);
    size_t tl = strlen(c->title), sl = strlen(tail);
    if (tl <= sl || strcmp(c->title + tl - sl, tail) != 0)
        return;
    snprintf(c->title + tl - sl, sizeof c->title - (tl - sl), ": %s", has_a ? a : b);
}

/* A bar chart as wide as its bars need (about 6 px a bar, 10 between
 * categories, and the axes' margins), from the default width up to the
 * report's (main is 1200 px, less its padding and the figure's): 192 bars
 * of peak-bandwidth in 560 px were slivers under labels that overlapped. */
#define PLAN_MAX_WIDTH 1120

static void fit_bars(cml_chart *c)
{
    double want = 96.0 + (double)c->ncategories * (6.0 * (double)c->nseries + 10.0);
    if (want > (double)c->width)
        c->width = want > PLAN_MAX_WIDTH ? PLAN_MAX_WIDTH : (int)want;
}

/* Drop the last chart (nothing to draw). */
static void drop_last(cml_chart_plan *cs)
{
    cml_chart_free(&cs->charts[--cs->ncharts]);
}

static void add_point(cml_chart_plan *cs, cml_chart_series *s, double x, double y)
{
    if (s && cml_chart_add_point(s, x, y) != CML_OK)
        cs->oom = 1;
}

static void remove_series(cml_chart *c, size_t i)
{
    free(c->series[i].x);
    free(c->series[i].y);
    memmove(&c->series[i], &c->series[i + 1], (c->nseries - i - 1) * sizeof c->series[0]);
    c->nseries--;
}

static int series_equal(const cml_chart_series *a, const cml_chart_series *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t k = 0; k < a->n; k++)
        if (a->x[k] != b->x[k] || a->y[k] != b->y[k])
            return 0;
    return 1;
}

/* Series first..end that draw the same line become one: named for what they
 * share ("modern, every path") when all of them agree, else by their keys
 * joined ("Fermi/Kepler: path=cg, path=nc"). The model often predicts the
 * same for several load paths, and lines drawn on top of each other would
 * hide that. */
static void collapse_series(cml_chart *c, size_t first, const char *prefix, const names *vary)
{
    size_t count = c->nseries - first;
    if (count < 2)
        return;
    int all = 1;
    for (size_t i = first + 1; i < c->nseries; i++)
        all &= series_equal(&c->series[first], &c->series[i]);
    if (all) {
        while (c->nseries > first + 1)
            remove_series(c, c->nseries - 1);
        char joined[64];
        cml_rep_names_join(vary, "/", joined, sizeof joined);
        snprintf(c->series[first].name, sizeof c->series[first].name, "%s%severy %s",
                 prefix ? prefix : "", prefix ? ", " : "", joined[0] ? joined : "variant");
        return;
    }
    size_t plen = prefix ? strlen(prefix) + 2 : 0; /* "prefix: " */
    for (size_t i = first; i < c->nseries; i++)
        for (size_t k = i + 1; k < c->nseries;) {
            if (!series_equal(&c->series[i], &c->series[k])) {
                k++;
                continue;
            }
            char *name = c->series[i].name;
            const char *other = c->series[k].name;
            if (strlen(other) > plen)
                other += plen;
            size_t used = strlen(name);
            snprintf(name + used, sizeof c->series[i].name - used, ", %s", other);
            remove_series(c, k);
        }
}

static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
    /* One decimal for figures a GPU gives; beyond 1e9 (only a damaged or
     * hand-made file has them) three digits and an exponent, not 300. */
    const int plain = fabs(v) < 1e9;
    if (!strcmp(unit, "GB/s"))
        snprintf(buf, len, plain ? "%.1f GB/s" : "%.3g GB/s", v);
    else if (!strcmp(unit, "%"))
        snprintf(buf, len, plain ? "%.1f%%" : "%.3g%%", v);
    else if (!strcmp(unit, "x"))
        snprintf(buf, len, "%.3gx", v);
    else if (!unit[0])
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.3g %s", v, unit);
}

/* One sentence about a line: where it starts, where it ends up. */
static void describe_series(cml_chart_plan *cs, const cml_chart_series *s, const char *xname,
                            cml_tick_format xfmt, const char *who, const char *unit)
{
    size_t n = 0, imin = 0, imax = 0, ifirst = 0, ilast = 0;
    for (size_t k = 0; k < s->n; k++) {
        if (!isfinite(s->x[k]) || !isfinite(s->y[k]))
            continue;
        if (n == 0) {
            imin = imax = ifirst = ilast = k;
        } else {
            if (s->x[k] < s->x[ifirst]) ifirst = k;
            if (s->x[k] > s->x[ilast]) ilast = k;
            if (s->y[k] < s->y[imin] || (s->y[k] == s->y[imin] && s->x[k] < s->x[imin])) imin = k;
            if (s->y[k] > s->y[imax] || (s->y[k] == s->y[imax] && s->x[k] < s->x[imax])) imax = k;
        }
        n++;
    }
    if (n < 2)
        return;
    char x0[48], xl[48], xmin[48], xmax[48], y0[48], ymin[48], ymax[48];
    cml_fmt_tick(x0, sizeof x0, s->x[ifirst], 0, xfmt);
    cml_fmt_tick(xl, sizeof xl, s->x[ilast], 0, xfmt);
    cml_fmt_tick(xmin, sizeof xmin, s->x[imin], 0, xfmt);
    cml_fmt_tick(xmax, sizeof xmax, s->x[imax], 0, xfmt);
    fmt_value(y0, sizeof y0, s->y[ifirst], unit);
    fmt_value(ymin, sizeof ymin, s->y[imin], unit);
    fmt_value(ymax, sizeof ymax, s->y[imax], unit);
    double hi = s->y[imax], lo = s->y[imin];
    /* Halves keep the spread finite when the figures are near +-1e308. */
    double big = fmax(fabs(hi), fabs(lo));
    if (big == 0 || (hi / 2 - lo / 2) <= 0.015 * big) {
        say(cs, "%s stayed at %s from %s %s to %s %s.", who, y0, xname, x0, xname, xl);
    } else if (s->y[ifirst] >= hi - 0.03 * big) {
        say(cs, "%s fell from %s at %s %s to %s at %s %s (%.0f%% lower).", who, y0, xname, x0,
            ymin, xname, xmin, 100.0 * ((s->y[ifirst] / 2 - lo / 2) / fabs(s->y[ifirst] / 2)));
    } else if (s->y[ifirst] <= lo + 0.03 * big) {
        if (lo > 0 && isfinite(hi / lo))
            say(cs, "%s rose from %s at %s %s to %s at %s %s (%.2fx).", who, y0, xname, x0, ymax,
                xname, xmax, hi / lo);
        else
            say(cs, "%s rose from %s at %s %s to %s at %s %s.", who, y0, xname, x0, ymax, xname,
                xmax);
    } else {
        say(cs, "%s ranged from %s at %s %s to %s at %s %s.", who, ymin, xname, xmin, ymax, xname,
            xmax);
    }
}

int cml_chart_spec_selects(const cml_chart_spec *sp, const cml_record *rec)
{
    double v;
    if (!is_ok(rec))
        return 0;
    /* A record without the parameter is kept: older or newer records may
     * not carry it. */
    if (sp->only_param && cml_record_find_param(rec, sp->only_param) &&
        !cml_rep_param_is(rec, sp->only_param, str(sp->only_label)))
        return 0;
    /* A sweep draws the records that have its x as a number. */
    if (sp->shape == CML_PLOT_SWEEP && sp->xparam && !cml_rep_param_num(rec, sp->xparam, &v))
        return 0;
    /* Stride's patterns without a stride, say: bars beside its sweeps. */
    if (sp->without_param && cml_rep_param_num(rec, sp->without_param, &v))
        return 0;
    return 1;
}

/* Records of g that a chart may use (cml_chart_spec_selects). */
static size_t select_records(const group *g, const cml_chart_spec *sp, const cml_record **sel)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        if (cml_chart_spec_selects(sp, g->recs[i]))
            sel[n++] = g->recs[i];
    return n;
}

/* ------------------------------------------------------------------ */
/* The shapes of chart a spec can ask for                             */
/* ------------------------------------------------------------------ */

/* A line chart of metric(s) against a numeric parameter. */
static void sweep_chart(cml_chart_plan *cs, const group *g, const cml_chart_spec *sp)
{
    if (!sp->xparam)
        return;
    const cml_record **sel = malloc((g->n ? g->n : 1) * sizeof *sel);
    if (!sel) {
        cs->oom = 1;
        return;
    }
    size_t ns = select_records(g, sp, sel);
    const char *exclude[] = {sp->xparam, "n", NULL};
    const char *what = str(sp->what), *xname = str(sp->xname);
    names vary;
    cml_rep_varying_params(sel, ns, exclude, &vary);
    cml_chart *c = ns ? new_chart(cs, CML_CHART_LINE, sp->title, sp->xlabel, sp->ylabel) : NULL;
    if (!c) {
        free(sel);
        return;
    }
    c->x.scale = sp->xscale;
    c->x.format = sp->xfmt;
    c->x.from_zero = 0;
    c->y.format = sp->yfmt;
    int two = sp->m[1].id != CML_METRIC_NONE;
    c->y.zoom = measured_metric(sp->m[0].id) && (!two || measured_metric(sp->m[1].id));
    size_t first_of_m0 = 0, end_of_m0 = 0;
    int dropped = 0;
    for (int m = 0; m < 2 && sp->m[m].id != CML_METRIC_NONE; m++) {
        const char *mname = str(sp->m[m].name);
        size_t first = c->nseries;
        for (size_t i = 0; i < ns; i++) {
            double x, y = metric(&sp->m[m], sel[i]);
            if (!isfinite(y) || !cml_rep_param_num(sel[i], sp->xparam, &x))
                continue;
            char key[200], name[256];
            cml_rep_param_key(sel[i], &vary, 0, key, sizeof key);
            if (two)
                snprintf(name, sizeof name, "%s%s%s", mname, key[0] ? ": " : "", key);
            else
                snprintf(name, sizeof name, "%s", key[0] ? key : what);
            cml_chart_series *s = cml_chart_series_named(c, name);
            if (!s)
                dropped = 1;
            add_point(cs, s, x, y);
        }
        collapse_series(c, first, two ? mname : NULL, &vary);
        if (m == 0) {
            first_of_m0 = first;
            end_of_m0 = c->nseries;
        }
    }
    /* Vertical marks: each named figure as the first selected record has it. */
    for (size_t k = 0; sp->xmark_extras && sp->xmark_labels && sp->xmark_extras[k] &&
                       sp->xmark_labels[k];
         k++)
        for (size_t i = 0; i < ns; i++) {
            double x = cml_rep_metric(sel[i], CML_METRIC_EXTRA, sp->xmark_extras[k]);
            if (isfinite(x)) {
                (void)cml_chart_add_xmark(c, x, sp->xmark_labels[k]);
                break;
            }
        }
    free(sel);
    if (cml_chart_drawable_points(c) == 0) {
        drop_last(cs);
        return;
    }
    if (two)
        title_for_drawn(c, sp->m[0].name, end_of_m0 > first_of_m0, sp->m[1].name,
                        c->nseries > end_of_m0);
    if (sp->describe) {
        /* A sentence per line, up to four: "under the modern rules, with
         * path=ca, the predicted efficiency fell from ...". */
        size_t said = 0;
        for (int m = 0; m < 2 && sp->m[m].id != CML_METRIC_NONE; m++) {
            /* Two metrics (modern and Fermi): the first two lines of each. */
            size_t from = m ? end_of_m0 : first_of_m0, to = m ? c->nseries : end_of_m0;
            if (two && to > from + 2)
                to = from + 2;
            for (size_t i = from; i < to && said < 4; i++, said++) {
                const char *key = c->series[i].name;
                if (two) { /* the key without its "metric: " prefix */
                    const char *mname = str(sp->m[m].name);
                    size_t pl = strlen(mname);
                    key = !strncmp(key, mname, pl) && key[pl] == ':' ? key + pl + 2 : "";
                } else if (end_of_m0 - first_of_m0 < 2) {
                    key = "";
                }
                char who[320];
                snprintf(who, sizeof who, "%s%s%s%s%s%s", two && sp->m[m].lead ? sp->m[m].lead : "",
                         two && sp->m[m].lead ? ", " : "", key[0] ? "with " : "", key,
                         key[0] ? ", " : "", what);
                describe_series(cs, &c->series[i], xname, sp->xfmt, who, str(sp->unit));
            }
        }
    }
    if (dropped)
        say(cs, "The chart \"%s\" shows the first %d series only.", str(sp->title),
            CML_CHART_MAX_SERIES);
}

/* A grouped bar chart of m[0]: categories are the varying parameters other
 * than the series parameter. */
static void bar_chart(cml_chart_plan *cs, const group *g, const cml_chart_spec *sp)
{
    const cml_record **sel = malloc((g->n ? g->n : 1) * sizeof *sel);
    if (!sel) {
        cs->oom = 1;
        return;
    }
    size_t ns = select_records(g, sp, sel);
    const char *exclude[] = {sp->series_param ? sp->series_param : "", "n", NULL};
    const char *what = str(sp->what), *unit = str(sp->unit);
    names vary, sv;
    cml_rep_varying_params(sel, ns, exclude, &vary);
    cml_chart *c = ns ? new_chart(cs, CML_CHART_BAR, sp->title, "", sp->ylabel) : NULL;
    if (!c) {
        free(sel);
        return;
    }
    c->y.format = sp->yfmt;
    c->y.zoom = measured_metric(sp->m[0].id);
    sv.n = 0;
    if (sp->series_param)
        snprintf(sv.v[sv.n++], sizeof sv.v[0], "%s", sp->series_param);
    for (size_t i = 0; i < ns; i++) {
        double y = metric(&sp->m[0], sel[i]);
        if (!isfinite(y))
            continue;
        char cat[200], ser[200];
        cml_rep_param_key(sel[i], &vary, 1, cat, sizeof cat);
        cml_rep_param_key(sel[i], &sv, 0, ser, sizeof ser);
        long k = cml_chart_category(c, cat[0] ? cat : "all");
        if (k < 0) {
            cs->oom = 1;
            continue;
        }
        cml_chart_series *s = cml_chart_series_named(c, ser[0] ? ser : what);
        add_point(cs, s, (double)k, y);
    }
    free(sel);
    collapse_series(c, 0, NULL, &sv);
    if (cml_chart_drawable_points(c) == 0) {
        drop_last(cs);
        return;
    }
    fit_bars(c);
    if (!sp->describe)
        return;
    /* The highest and the lowest bar. */
    double hi = -INFINITY, lo = INFINITY;
    const char *hs = "", *ls = "", *hc = "", *lc = "";
    size_t nb = 0;
    for (size_t i = 0; i < c->nseries; i++)
        for (size_t k = 0; k < c->series[i].n; k++) {
            double y = c->series[i].y[k];
            const char *cat = c->categories[(size_t)c->series[i].x[k]];
            nb++;
            if (y > hi) { hi = y; hs = c->series[i].name; hc = cat; }
            if (y < lo) { lo = y; ls = c->series[i].name; lc = cat; }
        }
    char vh[48], vl[48], wh[256], wl[256];
    fmt_value(vh, sizeof vh, hi, unit);
    fmt_value(vl, sizeof vl, lo, unit);
    int multi = c->nseries > 1;
    snprintf(wh, sizeof wh, "%s%s%s", multi ? hs : "", multi && strcmp(hc, "all") ? ", " : "",
             strcmp(hc, "all") ? hc : "");
    snprintf(wl, sizeof wl, "%s%s%s", multi ? ls : "", multi && strcmp(lc, "all") ? ", " : "",
             strcmp(lc, "all") ? lc : "");
    if (nb < 2)
        return;
    if (hi - lo <= 0.03 * fmax(fabs(hi), fabs(lo)))
        say(cs, "%s is %s for every variant drawn.", what, vh);
    else if (lo > 0)
        say(cs, "%s ranges from %s (%s) to %s (%s), %.2fx apart.", what, vl, wl, vh, wh, hi / lo);
    else
        say(cs, "%s ranges from %s (%s) to %s (%s).", what, vl, wl, vh, wh);
}

/* Bars of named extra numbers (e.g. the link arithmetic of transfers): a
 * series per name, a category per record. */
static void extras_chart(cml_chart_plan *cs, const group *g, const cml_chart_spec *sp)
{
    if (!sp->extra_names || !sp->extra_legend)
        return;
    const cml_record **sel = malloc((g->n ? g->n : 1) * sizeof *sel);
    if (!sel) {
        cs->oom = 1;
        return;
    }
    size_t ns = select_records(g, sp, sel);
    const char *exclude[] = {"n", sp->ignore_param ? sp->ignore_param : "", NULL};
    names vary;
    cml_rep_varying_params(sel, ns, exclude, &vary);
    cml_chart *c = ns ? new_chart(cs, CML_CHART_BAR, sp->title, "", sp->ylabel) : NULL;
    if (!c) {
        free(sel);
        return;
    }
    c->y.format = sp->yfmt;
    for (size_t i = 0; i < ns; i++) {
        char cat[200];
        cml_rep_param_key(sel[i], &vary, 1, cat, sizeof cat);
        for (size_t e = 0; sp->extra_names[e] && sp->extra_legend[e]; e++) {
            double y = cml_rep_metric(sel[i], CML_METRIC_EXTRA, sp->extra_names[e]);
            if (!isfinite(y))
                continue;
            long k = cml_chart_category(c, cat[0] ? cat : "all");
            cml_chart_series *s = cml_chart_series_named(c, sp->extra_legend[e]);
            if (k < 0) {
                cs->oom = 1;
                continue;
            }
            /* Records that differ only in the ignored parameter: the first. */
            int dup = 0;
            for (size_t q = 0; s && q < s->n && !dup; q++)
                dup = s->x[q] == (double)k;
            if (!dup)
                add_point(cs, s, (double)k, y);
        }
    }
    free(sel);
    if (cml_chart_drawable_points(c) == 0) {
        drop_last(cs);
        return;
    }
    fit_bars(c);
    if (sp->extra_legend[0] && sp->extra_legend[1] && !sp->extra_legend[2]) {
        int has[2] = {0, 0};
        for (size_t i = 0; i < c->nseries; i++)
            for (int e = 0; e < 2; e++)
                has[e] |= c->series[i].n > 0 && !strcmp(c->series[i].name, sp->extra_legend[e]);
        title_for_drawn(c, sp->extra_legend[0], has[0], sp->extra_legend[1], has[1]);
    }
}

/* Hardware counters against the model's predictions: a point per counter
 * and record, the line y = x where they agree. Every experiment gets it
 * when its records carry counters with predictions; no row declares it. */
static void counters_chart(cml_chart_plan *cs, const group *g)
{
    size_t total = 0, agree = 0;
    double worst_ratio = 1;
    const cml_record *wrec = NULL;
    const cml_counter *wctr = NULL;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < g->n; i++)
        for (unsigned k = 0; k < g->recs[i]->ncounters && k < CML_RECORD_MAX_COUNTERS; k++) {
            const cml_counter *ct = &g->recs[i]->counters[k];
            if (!ct->has_prediction || !isfinite(ct->measured) || !isfinite(ct->predicted))
                continue;
            total++;
            if (cml_rep_counter_agrees(ct->measured, ct->predicted)) {
                agree++;
            } else {
                double a = fabs(ct->measured), b = fabs(ct->predicted);
                double r = (a > 0 && b > 0) ? fmax(a / b, b / a) : INFINITY;
                if (!wctr || r > worst_ratio) {
                    worst_ratio = r;
                    wrec = g->recs[i];
                    wctr = ct;
                }
            }
            lo = fmin(lo, fmin(ct->measured, ct->predicted));
            hi = fmax(hi, fmax(ct->measured, ct->predicted));
        }
    if (total == 0)
        return;
    cml_chart *c = new_chart(cs, CML_CHART_SCATTER,
                             "Hardware counters: measured vs the model's prediction", "predicted",
                             "measured");
    if (!c)
        return;
    c->diagonal = 1;
    c->x.from_zero = c->y.from_zero = 0;
    if (lo > 0 && hi / lo > 50)
        c->x.scale = c->y.scale = CML_SCALE_LOG10;
    else
        c->x.from_zero = c->y.from_zero = 1;
    /* A reading the same as one already drawn (the same counter, predicted
     * and measured: most records of a sweep agree exactly) is the same
     * mark drawn again over itself: only its last drawing is kept, so the
     * picture is the same (what each pixel shows last is unchanged) and the
     * chart and its data table a fraction of the size (the suite's
     * counters charts: 9,000 marks, 1,440 distinct). */
    for (size_t i = 0; i < g->n; i++)
        for (unsigned k = 0; k < g->recs[i]->ncounters && k < CML_RECORD_MAX_COUNTERS; k++) {
            const cml_counter *ct = &g->recs[i]->counters[k];
            if (!ct->has_prediction || !isfinite(ct->measured) || !isfinite(ct->predicted))
                continue;
            cml_chart_series *s = cml_chart_series_named(c, ct->name);
            for (size_t q = 0; s && q < s->n; q++)
                if (s->x[q] == ct->predicted && s->y[q] == ct->measured) {
                    memmove(&s->x[q], &s->x[q + 1], (s->n - q - 1) * sizeof s->x[0]);
                    memmove(&s->y[q], &s->y[q + 1], (s->n - q - 1) * sizeof s->y[0]);
                    s->n--;
                    break;
                }
            add_point(cs, s, ct->predicted, ct->measured);
        }
    if (cml_chart_drawable_points(c) == 0) {
        drop_last(cs);
        return;
    }
    if (agree == total) {
        say(cs, "All %zu counter readings with a prediction agree with the model.", total);
    } else if (wctr) {
        char m[48], p[48];
        fmt_value(m, sizeof m, wctr->measured, "");
        fmt_value(p, sizeof p, wctr->predicted, "");
        say(cs, "%zu of %zu counter readings agree with the model; the largest disagreement is "
                "%s for %s: measured %s, predicted %s.",
            agree, total, wctr->name, wrec->variant, m, p);
    }
}

/* ------------------------------------------------------------------ */
/* Plans                                                              */
/* ------------------------------------------------------------------ */

/* An experiment the registry does not know (records of another version of
 * cumemlab): its bandwidth per variant. */
static const cml_chart_spec charts_default[] = {CML_CHART_BANDWIDTH_BY_VARIANT};

/* The table cml_chart_plan_use_rows was given: one per process, set once
 * by the program before it reports (the rows never change while it runs). */
static const cml_experiment *const *known_rows;
static size_t known_count;

void cml_chart_plan_use_rows(const cml_experiment *const *rows, size_t count)
{
    known_rows = rows;
    known_count = rows ? count : 0;
}

const cml_experiment *cml_chart_plan_row(const char *key)
{
    for (size_t i = 0; key && i < known_count; i++)
        if (known_rows[i] && known_rows[i]->key && strcmp(known_rows[i]->key, key) == 0)
            return known_rows[i];
    return NULL;
}

void cml_chart_plan_build(cml_chart_plan *plan, const cml_chart_spec *specs, size_t nspecs,
                          const cml_record *const *recs, size_t n)
{
    memset(plan, 0, sizeof *plan);
    group g = {recs, n};
    for (size_t i = 0; specs && i < nspecs; i++) {
        switch (specs[i].shape) {
        case CML_PLOT_SWEEP: sweep_chart(plan, &g, &specs[i]); break;
        case CML_PLOT_BARS: bar_chart(plan, &g, &specs[i]); break;
        case CML_PLOT_EXTRAS: extras_chart(plan, &g, &specs[i]); break;
        }
    }
    counters_chart(plan, &g);
}

cml_desc_source cml_chart_plan_describe(const cml_results *r, const char *key,
                                        cml_exp_desc *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->key, sizeof out->key, "%s", key ? key : "");
    const cml_exp_desc *own = r ? cml_exp_descs_find(&r->descs, key) : NULL;
    if (own) {
        *out = *own;
        out->owned = NULL; /* a view: r keeps the block */
        return CML_DESC_RESULTS;
    }
    /* The fallback: a file that does not describe the experiment (written
     * before files did) is drawn as this cumemlab's registry draws it,
     * exactly as such files always were. */
    const cml_experiment *row = cml_chart_plan_row(key);
    if (!row)
        return CML_DESC_NONE;
    out->number = row->number;
    out->title = row->title;
    out->charts = row->charts;
    out->ncharts = row->charts ? row->ncharts : 0;
    return CML_DESC_REGISTRY;
}

void cml_chart_plan_results(cml_chart_plan *plan, const cml_results *r, const char *key,
                            const cml_record *const *recs, size_t n)
{
    cml_exp_desc d;
    if (cml_chart_plan_describe(r, key, &d) != CML_DESC_NONE)
        cml_chart_plan_build(plan, d.charts, d.ncharts, recs, n);
    else
        cml_chart_plan_build(plan, charts_default, CML_COUNT(charts_default), recs, n);
}

void cml_chart_plan_experiment(cml_chart_plan *plan, const char *key,
                               const cml_record *const *recs, size_t n)
{
    cml_chart_plan_results(plan, NULL, key, recs, n);
}

void cml_chart_plan_free(cml_chart_plan *plan)
{
    for (size_t i = 0; i < plan->ncharts; i++)
        cml_chart_free(&plan->charts[i]);
    plan->ncharts = 0;
}
