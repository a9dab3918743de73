/*
 * The HTML report. Charts are chosen per experiment but built from what the
 * records carry: a sweep is drawn over a parameter when records have it as a
 * number, series are the other parameters that vary, a metric that a record
 * does not have (no measurement, no model class, no counter) leaves its point
 * out, and a chart with nothing to draw is not written. So records from an
 * older or newer cumemlab, model-only runs and runs with measurements all
 * render, each with the charts its numbers allow.
 */
#include "report/html.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_util.h"
#include "report/svg_chart.h"

#define MAX_CHARTS 10
#define MAX_SENTENCES 16
#define SENTENCE_LEN 480
#define MAX_NAMES (CML_RECORD_MAX_PARAMS * 4)

static void esc(FILE *out, const char *s) { cml_xml_escape(out, s); }

/* ------------------------------------------------------------------ */
/* Groups and parameters                                              */
/* ------------------------------------------------------------------ */

typedef struct group {
    const char *key;
    const cml_record **recs;
    size_t n;
} group;

/* "256" -> 1 and *out = 256: a choice whose name is a number. */
static int label_number(const char *s, double *out)
{
    char *end;
    if (!s[0])
        return 0;
    double v = strtod(s, &end);
    if (*end != '\0' || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* The parameter as a number: its value, or its choice name when that is a
 * number ("block": "256"); 0 for a name such as "ca". */
static int param_num(const cml_record *rec, const char *name, double *out)
{
    const cml_record_param *p = cml_record_find_param(rec, name);
    if (!p)
        return 0;
    if (!p->label[0]) {
        *out = (double)p->value;
        return 1;
    }
    return label_number(p->label, out);
}

static void param_text(const cml_record_param *p, char *buf, size_t len)
{
    if (p->label[0])
        snprintf(buf, len, "%s", p->label);
    else
        snprintf(buf, len, "%" PRId64, p->value);
}

static int param_is(const cml_record *rec, const char *name, const char *label)
{
    const cml_record_param *p = cml_record_find_param(rec, name);
    if (!p)
        return 0;
    char t[48];
    param_text(p, t, sizeof t);
    return strcmp(t, label) == 0;
}

typedef struct names {
    char v[MAX_NAMES][24];
    size_t n;
} names;

static int in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

/* Names of the parameters that differ between the records (or are missing
 * from some), in the order they first appear; `exclude` never counts. */
static void varying_params(const cml_record *const *recs, size_t n, const char *const *exclude,
                           names *out)
{
    names all;
    all.n = 0;
    out->n = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < recs[i]->nparams && k < CML_RECORD_MAX_PARAMS; k++) {
            const char *nm = recs[i]->params[k].name;
            size_t j = 0;
            while (j < all.n && strcmp(all.v[j], nm) != 0)
                j++;
            if (j == all.n && all.n < MAX_NAMES)
                snprintf(all.v[all.n++], sizeof all.v[0], "%s", nm);
        }
    for (size_t j = 0; j < all.n; j++) {
        if (in_list(exclude, all.v[j]))
            continue;
        int varies = 0;
        char first[48] = "";
        for (size_t i = 0; i < n && !varies; i++) {
            const cml_record_param *p = cml_record_find_param(recs[i], all.v[j]);
            char t[48];
            if (!p) {
                varies = 1;
                break;
            }
            param_text(p, t, sizeof t);
            if (i == 0)
                snprintf(first, sizeof first, "%s", t);
            else if (strcmp(first, t) != 0)
                varies = 1;
        }
        if (varies)
            snprintf(out->v[out->n++], sizeof out->v[0], "%s", all.v[j]);
    }
}

/* The record's values of the `vary` parameters: "path=ca block=256" (named),
 * or "ca block=256" (bare: choice names alone, numbers with their name). */
static void key_text(const cml_record *rec, const names *vary, int bare, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < vary->n; j++) {
        const cml_record_param *p = cml_record_find_param(rec, vary->v[j]);
        if (!p)
            continue;
        char t[48];
        param_text(p, t, sizeof t);
        int w;
        if (bare && p->label[0] && !label_number(p->label, &(double){0}))
            w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", t);
        else
            w = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", p->name, t);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

static void join_names(const names *v, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < v->n; j++) {
        int w = snprintf(buf + used, len - used, "%s%s", j ? sep : "", v->v[j]);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

/* ------------------------------------------------------------------ */
/* Metrics: a number per record, NAN when the record does not have it  */
/* ------------------------------------------------------------------ */

typedef double (*metric_fn)(const cml_record *rec, const char *arg);

static int is_ok(const cml_record *rec) { return rec->state == CML_REC_OK; }

static double m_bandwidth(const cml_record *rec, const char *arg)
{
    (void)arg;
    if (!is_ok(rec) || !rec->measured || !isfinite(rec->bandwidth_gbs))
        return NAN;
    return rec->bandwidth_gbs;
}

static double m_time_us(const cml_record *rec, const char *arg)
{
    (void)arg;
    if (!is_ok(rec) || !rec->measured || !isfinite(rec->timing.median_ms))
        return NAN;
    return rec->timing.median_ms * 1e3;
}

/* The global class (loads or stores) with the lower modern efficiency: the
 * access an offset, stride or layout experiment is about. -1 if none. */
static int worst_global(const cml_record *rec)
{
    if (!rec->has_model)
        return -1;
    int best = -1;
    double worst = INFINITY;
    for (int c = CML_CLASS_GLOBAL_LD; c <= CML_CLASS_GLOBAL_ST; c++) {
        double e;
        if (!rec->model[CML_RULES_MODERN].cls[c].instructions ||
            !cml_rep_efficiency(&rec->model[CML_RULES_MODERN].cls[c], &e))
            continue;
        if (e < worst) {
            worst = e;
            best = c;
        }
    }
    return best;
}

static double class_eff(const cml_record *rec, int rules, int c)
{
    double e;
    if (c < 0 || !rec->model[rules].cls[c].instructions ||
        !cml_rep_efficiency(&rec->model[rules].cls[c], &e))
        return NAN;
    return 100.0 * e;
}

static double m_eff_modern(const cml_record *rec, const char *arg)
{
    (void)arg;
    return class_eff(rec, CML_RULES_MODERN, worst_global(rec));
}

static double m_eff_fermi(const cml_record *rec, const char *arg)
{
    (void)arg;
    return class_eff(rec, CML_RULES_FERMI, worst_global(rec));
}

static double m_spr_modern(const cml_record *rec, const char *arg)
{
    (void)arg;
    int c = worst_global(rec);
    double v;
    if (c < 0 || !cml_rep_sectors_per_request(&rec->model[CML_RULES_MODERN].cls[c], &v))
        return NAN;
    return v;
}

static int class_index(const char *name)
{
    for (int c = 0; c < (int)CML_CLASS_COUNT; c++)
        if (strcmp(cml_rep_class_name(c), name) == 0)
            return c;
    return -1;
}

/* arg: a class name; sectors per request under the modern rules. */
static double m_class_spr(const cml_record *rec, const char *arg)
{
    int c = class_index(arg);
    double v;
    if (c < 0 || !rec->has_model || !rec->model[CML_RULES_MODERN].cls[c].instructions ||
        !cml_rep_sectors_per_request(&rec->model[CML_RULES_MODERN].cls[c], &v))
        return NAN;
    return v;
}

/* Shared memory: the load class, else the store class. */
static const cml_traffic *shared_traffic(const cml_record *rec)
{
    if (!rec->has_model)
        return NULL;
    const cml_traffic *t = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    if (t->instructions)
        return t;
    t = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_ST];
    return t->instructions ? t : NULL;
}

static double m_shared_conflicts(const cml_record *rec, const char *arg)
{
    (void)arg;
    const cml_traffic *t = shared_traffic(rec);
    if (!t || !cml_rep_requests(t))
        return NAN;
    return (double)t->bank_conflicts / (double)cml_rep_requests(t);
}

static double m_shared_wavefronts(const cml_record *rec, const char *arg)
{
    (void)arg;
    const cml_traffic *t = shared_traffic(rec);
    double v;
    if (!t || !cml_rep_wavefronts_per_request(t, &v))
        return NAN;
    return v;
}

static double m_const_serialized(const cml_record *rec, const char *arg)
{
    (void)arg;
    double v;
    if (!rec->has_model ||
        !rec->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD].instructions ||
        !cml_rep_serialized_per_request(&rec->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD], &v))
        return NAN;
    return v;
}

static double m_extra(const cml_record *rec, const char *arg)
{
    if (!is_ok(rec))
        return NAN;
    for (unsigned i = 0; i < rec->nextra && i < 8; i++)
        if (strcmp(rec->extra[i].name, arg) == 0)
            return isfinite(rec->extra[i].value) ? rec->extra[i].value : NAN;
    return NAN;
}

/* Occupancy in percent: the measured launch's, else the model's figure. */
static double m_occupancy(const cml_record *rec, const char *arg)
{
    (void)arg;
    if (!is_ok(rec))
        return NAN;
    if (rec->occupancy >= 0 && isfinite(rec->occupancy))
        return 100.0 * rec->occupancy;
    double v = m_extra(rec, "model_occupancy");
    return isfinite(v) ? 100.0 * v : NAN;
}

typedef struct metric {
    const char *name;          /* series prefix when a chart shows two metrics */
    metric_fn fn;
    const char *arg;
    const char *lead;          /* how a sentence names it: "under the modern rules" */
} metric;

/* ------------------------------------------------------------------ */
/* Chart sets: the charts of one experiment and the sentences they give */
/* ------------------------------------------------------------------ */

typedef struct chart_set {
    cml_chart charts[MAX_CHARTS];
    size_t n;
    char sent[MAX_SENTENCES][SENTENCE_LEN];
    size_t nsent;
    int oom;
} chart_set;

static void say(chart_set *cs, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(chart_set *cs, const char *fmt, ...)
{
    if (cs->nsent >= MAX_SENTENCES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cs->sent[cs->nsent], SENTENCE_LEN, fmt, ap);
    va_end(ap);
    /* Sentences start with a capital letter. */
    char *s = cs->sent[cs->nsent];
    if (s[0] >= 'a' && s[0] <= 'z')
        s[0] = (char)(s[0] - 'a' + 'A');
    cs->nsent++;
}

static cml_chart *new_chart(chart_set *cs, cml_chart_kind kind, const char *title,
                            const char *xlabel, const char *ylabel)
{
    if (cs->n >= MAX_CHARTS)
        return NULL;
    cml_chart *c = &cs->charts[cs->n++];
    cml_chart_init(c, kind, title, xlabel, ylabel);
    c->width = 560;
    c->height = 300;
    return c;
}

/* Drop the last chart (nothing to draw). */
static void drop_last(chart_set *cs)
{
    cml_chart_free(&cs->charts[--cs->n]);
}

static void add_point(chart_set *cs, cml_chart_series *s, double x, double y)
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
        join_names(vary, "/", joined, sizeof joined);
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
    if (!strcmp(unit, "GB/s"))
        snprintf(buf, len, "%.1f GB/s", v);
    else if (!strcmp(unit, "%"))
        snprintf(buf, len, "%.1f%%", v);
    else if (!strcmp(unit, "x"))
        snprintf(buf, len, "%.3gx", v);
    else if (!unit[0])
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.3g %s", v, unit);
}

/* One sentence about a line: where it starts, where it ends up. */
static void describe_series(chart_set *cs, const cml_chart_series *s, const char *xname,
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
    double big = fmax(fabs(hi), fabs(lo));
    if (big == 0 || (hi - lo) <= 0.03 * big) {
        say(cs, "%s stayed at %s from %s %s to %s %s.", who, y0, xname, x0, xname, xl);
    } else if (s->y[ifirst] >= hi - 0.03 * big) {
        say(cs, "%s fell from %s at %s %s to %s at %s %s (%.0f%% lower).", who, y0, xname, x0,
            ymin, xname, xmin, 100.0 * (s->y[ifirst] - lo) / fabs(s->y[ifirst]));
    } else if (s->y[ifirst] <= lo + 0.03 * big) {
        if (lo > 0)
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

typedef struct sweep_spec {
    const char *title;
    const char *xparam, *xname, *xlabel;
    cml_scale xscale;
    cml_tick_format xfmt;
    const char *ylabel;
    cml_tick_format yfmt;
    const char *only_param, *only_label;   /* records with this choice only */
    metric m[2];
    const char *what, *unit;               /* for the sentences */
    int describe;                          /* sentences for the first metric's lines */
} sweep_spec;

/* Records of g that a chart may use: ok, with the choice asked for. */
static size_t select_records(const group *g, const char *only_param, const char *only_label,
                             const char *need_param, const cml_record **sel)
{
    size_t n = 0;
    double v;
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *rec = g->recs[i];
        if (!is_ok(rec))
            continue;
        /* A record without the parameter is kept: older or newer records
         * may not carry it. */
        if (only_param && cml_record_find_param(rec, only_param) &&
            !param_is(rec, only_param, only_label))
            continue;
        if (need_param && !param_num(rec, need_param, &v))
            continue;
        sel[n++] = rec;
    }
    return n;
}

/* A line chart of metric(s) against a numeric parameter. */
static void sweep_chart(chart_set *cs, const group *g, const sweep_spec *sp)
{
    const cml_record **sel = malloc((g->n ? g->n : 1) * sizeof *sel);
    if (!sel) {
        cs->oom = 1;
        return;
    }
    size_t ns = select_records(g, sp->only_param, sp->only_label, sp->xparam, sel);
    const char *exclude[] = {sp->xparam, "n", NULL};
    names vary;
    varying_params(sel, ns, exclude, &vary);
    cml_chart *c = ns ? new_chart(cs, CML_CHART_LINE, sp->title, sp->xlabel, sp->ylabel) : NULL;
    if (!c) {
        free(sel);
        return;
    }
    c->x.scale = sp->xscale;
    c->x.format = sp->xfmt;
    c->x.from_zero = 0;
    c->y.format = sp->yfmt;
    int two = sp->m[1].fn != NULL;
    size_t first_of_m0 = 0, end_of_m0 = 0;
    int dropped = 0;
    for (int m = 0; m < 2 && sp->m[m].fn; m++) {
        size_t first = c->nseries;
        for (size_t i = 0; i < ns; i++) {
            double x, y = sp->m[m].fn(sel[i], sp->m[m].arg);
            if (!isfinite(y) || !param_num(sel[i], sp->xparam, &x))
                continue;
            char key[200], name[256];
            key_text(sel[i], &vary, 0, key, sizeof key);
            if (two)
                snprintf(name, sizeof name, "%s%s%s", sp->m[m].name, key[0] ? ": " : "", key);
            else
                snprintf(name, sizeof name, "%s", key[0] ? key : sp->what);
            cml_chart_series *s = cml_chart_series_named(c, name);
            if (!s)
                dropped = 1;
            add_point(cs, s, x, y);
        }
        collapse_series(c, first, two ? sp->m[m].name : NULL, &vary);
        if (m == 0) {
            first_of_m0 = first;
            end_of_m0 = c->nseries;
        }
    }
    free(sel);
    if (cml_chart_drawable_points(c) == 0) {
        drop_last(cs);
        return;
    }
    if (sp->describe) {
        /* A sentence per line, up to four: "under the modern rules, with
         * path=ca, the predicted efficiency fell from ...". */
        size_t said = 0;
        for (int m = 0; m < 2 && sp->m[m].fn; m++) {
            /* Two metrics (modern and Fermi): the first two lines of each. */
            size_t from = m ? end_of_m0 : first_of_m0, to = m ? c->nseries : end_of_m0;
            if (two && to > from + 2)
                to = from + 2;
            for (size_t i = from; i < to && said < 4; i++, said++) {
                const char *key = c->series[i].name;
                if (two) { /* the key without its "metric: " prefix */
                    size_t pl = strlen(sp->m[m].name);
                    key = !strncmp(key, sp->m[m].name, pl) && key[pl] == ':' ? key + pl + 2 : "";
                } else if (end_of_m0 - first_of_m0 < 2) {
                    key = "";
                }
                char who[320];
                snprintf(who, sizeof who, "%s%s%s%s%s%s", two && sp->m[m].lead ? sp->m[m].lead : "",
                         two && sp->m[m].lead ? ", " : "", key[0] ? "with " : "", key,
                         key[0] ? ", " : "", sp->what);
                describe_series(cs, &c->series[i], sp->xname, sp->xfmt, who, sp->unit);
            }
        }
    }
    if (dropped)
        say(cs, "The chart \"%s\" shows the first %d series only.", sp->title,
            CML_CHART_MAX_SERIES);
}

typedef struct bar_spec {
    const char *title, *ylabel;
    cml_tick_format yfmt;
    const char *series_param;              /* one colour per value; NULL: one series */
    const char *only_param, *only_label;
    metric m;
    const char *what, *unit;
    int describe;
} bar_spec;

/* A grouped bar chart: categories are the varying parameters other than
 * the series parameter. */
static void bar_chart(chart_set *cs, const group *g, const bar_spec *sp)
{
    const cml_record **sel = malloc((g->n ? g->n : 1) * sizeof *sel);
    if (!sel) {
        cs->oom = 1;
        return;
    }
    size_t ns = select_records(g, sp->only_param, sp->only_label, NULL, sel);
    const char *exclude[] = {sp->series_param ? sp->series_param : "", "n", NULL};
    names vary, sv;
    varying_params(sel, ns, exclude, &vary);
    cml_chart *c = ns ? new_chart(cs, CML_CHART_BAR, sp->title, "", sp->ylabel) : NULL;
    if (!c) {
        free(sel);
        return;
    }
    c->y.format = sp->yfmt;
    sv.n = 0;
    if (sp->series_param)
        snprintf(sv.v[sv.n++], sizeof sv.v[0], "%s", sp->series_param);
    for (size_t i = 0; i < ns; i++) {
        double y = sp->m.fn(sel[i], sp->m.arg);
        if (!isfinite(y))
            continue;
        char cat[200], ser[200];
        key_text(sel[i], &vary, 1, cat, sizeof cat);
        key_text(sel[i], &sv, 0, ser, sizeof ser);
        long k = cml_chart_category(c, cat[0] ? cat : "all");
        if (k < 0) {
            cs->oom = 1;
            continue;
        }
        cml_chart_series *s = cml_chart_series_named(c, ser[0] ? ser : sp->what);
        add_point(cs, s, (double)k, y);
    }
    free(sel);
    collapse_series(c, 0, NULL, &sv);
    if (cml_chart_drawable_points(c) == 0) {
        drop_last(cs);
        return;
    }
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
    fmt_value(vh, sizeof vh, hi, sp->unit);
    fmt_value(vl, sizeof vl, lo, sp->unit);
    int multi = c->nseries > 1;
    snprintf(wh, sizeof wh, "%s%s%s", multi ? hs : "", multi && strcmp(hc, "all") ? ", " : "",
             strcmp(hc, "all") ? hc : "");
    snprintf(wl, sizeof wl, "%s%s%s", multi ? ls : "", multi && strcmp(lc, "all") ? ", " : "",
             strcmp(lc, "all") ? lc : "");
    if (nb < 2)
        return;
    if (hi - lo <= 0.03 * fmax(fabs(hi), fabs(lo)))
        say(cs, "%s is %s for every variant drawn.", sp->what, vh);
    else if (lo > 0)
        say(cs, "%s ranges from %s (%s) to %s (%s), %.2fx apart.", sp->what, vl, wl, vh, wh,
            hi / lo);
    else
        say(cs, "%s ranges from %s (%s) to %s (%s).", sp->what, vl, wl, vh, wh);
}

/* Bars of named extra numbers (e.g. the link arithmetic of transfers). */
static void extras_chart(chart_set *cs, const group *g, const char *title, const char *ylabel,
                         const char *only_param, const char *only_label, const char *ignore,
                         const char *const *extra_names, const char *const *legend)
{
    const cml_record **sel = malloc((g->n ? g->n : 1) * sizeof *sel);
    if (!sel) {
        cs->oom = 1;
        return;
    }
    size_t ns = select_records(g, only_param, only_label, NULL, sel);
    const char *exclude[] = {"n", ignore ? ignore : "", NULL};
    names vary;
    varying_params(sel, ns, exclude, &vary);
    cml_chart *c = ns ? new_chart(cs, CML_CHART_BAR, title, "", ylabel) : NULL;
    if (!c) {
        free(sel);
        return;
    }
    for (size_t i = 0; i < ns; i++) {
        char cat[200];
        key_text(sel[i], &vary, 1, cat, sizeof cat);
        for (size_t e = 0; extra_names[e]; e++) {
            double y = m_extra(sel[i], extra_names[e]);
            if (!isfinite(y))
                continue;
            long k = cml_chart_category(c, cat[0] ? cat : "all");
            cml_chart_series *s = cml_chart_series_named(c, legend[e]);
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
    if (cml_chart_drawable_points(c) == 0)
        drop_last(cs);
}

/* Hardware counters against the model's predictions: a point per counter
 * and record, the line y = x where they agree. */
static void counters_chart(chart_set *cs, const group *g)
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
    for (size_t i = 0; i < g->n; i++)
        for (unsigned k = 0; k < g->recs[i]->ncounters && k < CML_RECORD_MAX_COUNTERS; k++) {
            const cml_counter *ct = &g->recs[i]->counters[k];
            if (!ct->has_prediction || !isfinite(ct->measured) || !isfinite(ct->predicted))
                continue;
            add_point(cs, cml_chart_series_named(c, ct->name), ct->predicted, ct->measured);
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
/* The experiments: which charts each one gets                        */
/* ------------------------------------------------------------------ */

static const metric BW = {"measured", m_bandwidth, NULL, NULL};
static const metric EFF_MODERN = {"modern", m_eff_modern, NULL, "under the modern rules"};
static const metric EFF_FERMI = {"Fermi/Kepler", m_eff_fermi, NULL,
                                 "under the Fermi/Kepler rules"};
static const metric SPR = {"modern", m_spr_modern, NULL, NULL};
static const metric NONE = {NULL, NULL, NULL, NULL};

/* Bandwidth, efficiency and sectors per request against an offset. */
static void charts_offset(chart_set *cs, const group *g, const char *dir)
{
    char t1[96], t2[96], t3[96], xl[64];
    snprintf(xl, sizeof xl, "%s offset (floats)", dir);
    snprintf(t1, sizeof t1, "Measured bandwidth vs %s offset", dir);
    snprintf(t2, sizeof t2, "Predicted efficiency vs %s offset", dir);
    snprintf(t3, sizeof t3, "Predicted sectors per request vs %s offset", dir);
    sweep_spec bw = {t1, "offset", "offset", xl, CML_SCALE_LINEAR, CML_FMT_NUMBER,
                     "bandwidth (GB/s)", CML_FMT_NUMBER, NULL, NULL, {BW, NONE},
                     "bandwidth", "GB/s", 1};
    sweep_spec eff = {t2, "offset", "offset", xl, CML_SCALE_LINEAR, CML_FMT_NUMBER,
                      "bytes used / bytes moved (%)", CML_FMT_PERCENT, NULL, NULL,
                      {EFF_MODERN, EFF_FERMI}, "the predicted efficiency", "%", 1};
    sweep_spec spr = {t3, "offset", "offset", xl, CML_SCALE_LINEAR, CML_FMT_NUMBER,
                      "32-byte sectors per request", CML_FMT_NUMBER, NULL, NULL, {SPR, NONE},
                      "sectors per request", "", 0};
    sweep_chart(cs, g, &bw);
    sweep_chart(cs, g, &eff);
    sweep_chart(cs, g, &spr);
}

static void charts_read_offset(chart_set *cs, const group *g) { charts_offset(cs, g, "read"); }
static void charts_write_offset(chart_set *cs, const group *g) { charts_offset(cs, g, "write"); }

static void charts_aos_soa(chart_set *cs, const group *g)
{
    bar_spec bw = {"Measured bandwidth: AoS vs SoA", "bandwidth (GB/s)", CML_FMT_NUMBER,
                   "layout", NULL, NULL, BW, "bandwidth", "GB/s", 1};
    bar_spec eff = {"Predicted efficiency: AoS vs SoA", "bytes used / bytes moved (%)",
                    CML_FMT_PERCENT, "layout", NULL, NULL, EFF_MODERN,
                    "the predicted efficiency", "%", 1};
    bar_chart(cs, g, &bw);
    bar_chart(cs, g, &eff);
}

static void charts_unroll(chart_set *cs, const group *g)
{
    metric inflight = {"bytes in flight", m_extra, "bytes_in_flight_per_thread", NULL};
    bar_spec bw = {"Measured bandwidth by unrolling and access width", "bandwidth (GB/s)",
                   CML_FMT_NUMBER, "unroll", NULL, NULL, BW, "bandwidth", "GB/s", 1};
    bar_spec fl = {"Bytes in flight per thread", "bytes per thread", CML_FMT_NUMBER, "unroll",
                   NULL, NULL, inflight, "bytes in flight per thread", "B", 0};
    bar_chart(cs, g, &bw);
    bar_chart(cs, g, &fl);
}

static void charts_parallelism(chart_set *cs, const group *g)
{
    metric occ = {"occupancy", m_occupancy, NULL, NULL};
    sweep_spec bw = {"Measured bandwidth vs block size", "block", "block size", "threads per block",
                     CML_SCALE_LOG2, CML_FMT_NUMBER, "bandwidth (GB/s)", CML_FMT_NUMBER, NULL,
                     NULL, {BW, NONE}, "bandwidth", "GB/s", 1};
    sweep_spec oc = {"Occupancy vs block size", "block", "block size", "threads per block",
                     CML_SCALE_LOG2, CML_FMT_NUMBER, "occupancy (%)", CML_FMT_PERCENT, NULL, NULL,
                     {occ, NONE}, "occupancy", "%", 1};
    sweep_chart(cs, g, &bw);
    sweep_chart(cs, g, &oc);
}

static void charts_stride(chart_set *cs, const group *g)
{
    sweep_spec bw = {"Measured bandwidth vs stride", "stride", "stride", "stride (elements)",
                     CML_SCALE_LOG2, CML_FMT_NUMBER, "bandwidth (GB/s)", CML_FMT_NUMBER, NULL,
                     NULL, {BW, NONE}, "bandwidth", "GB/s", 1};
    sweep_spec eff = {"Predicted efficiency vs stride", "stride", "stride", "stride (elements)",
                      CML_SCALE_LOG2, CML_FMT_NUMBER, "bytes used / bytes moved (%)",
                      CML_FMT_PERCENT, NULL, NULL, {EFF_MODERN, EFF_FERMI},
                      "the predicted efficiency", "%", 1};
    bar_spec other = {"Measured bandwidth: broadcast, gather and scatter", "bandwidth (GB/s)",
                      CML_FMT_NUMBER, NULL, NULL, NULL, BW, "bandwidth", "GB/s", 0};
    bar_spec oeff = {"Predicted efficiency: broadcast, gather and scatter",
                     "bytes used / bytes moved (%)", CML_FMT_PERCENT, NULL, NULL, NULL, EFF_MODERN,
                     "the predicted efficiency without a stride", "%", 1};
    sweep_chart(cs, g, &bw);
    sweep_chart(cs, g, &eff);
    /* The patterns without a stride, as bars. */
    group ng = {g->key, malloc((g->n ? g->n : 1) * sizeof(cml_record *)), 0};
    if (!ng.recs) {
        cs->oom = 1;
        return;
    }
    double v;
    for (size_t i = 0; i < g->n; i++)
        if (!param_num(g->recs[i], "stride", &v))
            ng.recs[ng.n++] = g->recs[i];
    if (ng.n) {
        bar_chart(cs, &ng, &other);
        bar_chart(cs, &ng, &oeff);
    }
    free(ng.recs);
}

static void charts_read_only(chart_set *cs, const group *g)
{
    metric spr = {"modern", m_class_spr, "global_ld", NULL};
    bar_spec bw = {"Measured bandwidth by load path", "bandwidth (GB/s)", CML_FMT_NUMBER, "path",
                   NULL, NULL, BW, "bandwidth", "GB/s", 1};
    bar_spec sp = {"Predicted load sectors per request", "32-byte sectors per request",
                   CML_FMT_NUMBER, "path", NULL, NULL, spr, "sectors per load request", "", 1};
    bar_chart(cs, g, &bw);
    bar_chart(cs, g, &sp);
}

static void charts_pitch2d(chart_set *cs, const group *g)
{
    bar_spec bw = {"Measured bandwidth by row layout", "bandwidth (GB/s)", CML_FMT_NUMBER,
                   "layout", NULL, NULL, BW, "bandwidth", "GB/s", 1};
    bar_spec eff = {"Predicted efficiency by row layout", "bytes used / bytes moved (%)",
                    CML_FMT_PERCENT, "layout", NULL, NULL, EFF_MODERN,
                    "the predicted efficiency", "%", 1};
    bar_chart(cs, g, &bw);
    bar_chart(cs, g, &eff);
}

static void charts_local(chart_set *cs, const group *g)
{
    metric spr = {"modern", m_class_spr, "local_ld", NULL};
    bar_spec bw = {"Measured bandwidth by local-memory pattern", "bandwidth (GB/s)",
                   CML_FMT_NUMBER, NULL, NULL, NULL, BW, "bandwidth", "GB/s", 1};
    bar_spec sp = {"Predicted local-load sectors per request", "32-byte sectors per request",
                   CML_FMT_NUMBER, NULL, NULL, NULL, spr, "local-load sectors per request", "", 1};
    bar_chart(cs, g, &bw);
    bar_chart(cs, g, &sp);
}

static void charts_constant(chart_set *cs, const group *g)
{
    metric ser = {"predicted", m_const_serialized, NULL, NULL};
    metric tm = {"measured", m_time_us, NULL, NULL};
    sweep_spec ps = {"Constant-memory serialization vs distinct addresses per warp", "k",
                     "k =", "distinct addresses per warp (k)", CML_SCALE_LOG2, CML_FMT_NUMBER,
                     "constant accesses per warp read", CML_FMT_NUMBER, "pattern", "serial",
                     {ser, NONE}, "the predicted serialization", "x", 1};
    sweep_spec mt = {"Measured kernel time vs distinct addresses per warp", "k", "k =",
                     "distinct addresses per warp (k)", CML_SCALE_LOG2, CML_FMT_NUMBER,
                     "median time (us)", CML_FMT_NUMBER, "pattern", "serial", {tm, NONE},
                     "the kernel time", "us", 1};
    bar_spec st = {"Measured stencil bandwidth by coefficient memory", "bandwidth (GB/s)",
                   CML_FMT_NUMBER, NULL, "pattern", "stencil", BW, "stencil bandwidth", "GB/s", 1};
    sweep_chart(cs, g, &ps);
    sweep_chart(cs, g, &mt);
    bar_chart(cs, g, &st);
}

static void charts_shuffle(chart_set *cs, const group *g)
{
    metric wf = {"shared wavefronts", m_extra, "smem_wavefronts_per_block", NULL};
    bar_spec bw = {"Measured bandwidth by shuffle operation", "bandwidth (GB/s)", CML_FMT_NUMBER,
                   NULL, NULL, NULL, BW, "bandwidth", "GB/s", 1};
    bar_spec sm = {"Predicted shared-memory wavefronts per block", "wavefronts per block",
                   CML_FMT_NUMBER, NULL, NULL, NULL, wf, "shared-memory wavefronts per block", "",
                   1};
    bar_chart(cs, g, &bw);
    bar_chart(cs, g, &sm);
}

static void charts_shared_banks(chart_set *cs, const group *g)
{
    metric conf = {"predicted", m_shared_conflicts, NULL, NULL};
    metric tm = {"measured", m_time_us, NULL, NULL};
    metric wf = {"predicted", m_shared_wavefronts, NULL, NULL};
    sweep_spec pc = {"Predicted bank conflicts vs stride", "stride", "stride",
                     "stride between lanes (elements)", CML_SCALE_LOG2, CML_FMT_NUMBER,
                     "bank conflicts per request", CML_FMT_NUMBER, "pattern", "stride",
                     {conf, NONE}, "bank conflicts per request", "", 1};
    sweep_spec mt = {"Measured kernel time vs stride", "stride", "stride",
                     "stride between lanes (elements)", CML_SCALE_LOG2, CML_FMT_NUMBER,
                     "median time (us)", CML_FMT_NUMBER, "pattern", "stride", {tm, NONE},
                     "the kernel time", "us", 1};
    bar_spec tw = {"Predicted wavefronts per shared load: tiles and padding",
                   "wavefronts per request", CML_FMT_NUMBER, "pad", "pattern", "tile", wf,
                   "wavefronts per request", "", 1};
    sweep_chart(cs, g, &pc);
    sweep_chart(cs, g, &mt);
    bar_chart(cs, g, &tw);
}

static void charts_transfers(chart_set *cs, const group *g)
{
    metric alloc = {"allocate", m_extra, "alloc_us", "to allocate"};
    metric freeing = {"free", m_extra, "free_us", "to free"};
    sweep_spec bw = {"Measured transfer bandwidth vs transfer size", "size", "size",
                     "bytes per transfer", CML_SCALE_LOG2, CML_FMT_BYTES, "bandwidth (GB/s)",
                     CML_FMT_NUMBER, "mode", "copy", {BW, NONE}, "bandwidth", "GB/s", 1};
    sweep_spec al = {"Measured allocation and free cost vs size", "size", "size",
                     "bytes allocated", CML_SCALE_LOG2, CML_FMT_BYTES, "time (us)",
                     CML_FMT_NUMBER, "mode", "alloc", {alloc, freeing}, "the time", "us", 0};
    static const char *const link_extras[] = {"raw_gbs", "pinned_typical_gbs",
                                              "pageable_high_gbs", "pageable_low_gbs", NULL};
    static const char *const link_legend[] = {"link (raw)", "pinned (typical)",
                                              "pageable (high)", "pageable (low)", NULL};
    sweep_chart(cs, g, &bw);
    extras_chart(cs, g, "Predicted copy rates by PCIe link (arithmetic)", "GB/s", "mode", "link",
                 "size", link_extras, link_legend);
    sweep_chart(cs, g, &al);
}

static void charts_peak(chart_set *cs, const group *g)
{
    bar_spec bw = {"Measured bandwidth by kernel", "bandwidth (GB/s)", CML_FMT_NUMBER, "shape",
                   NULL, NULL, BW, "bandwidth", "GB/s", 1};
    bar_chart(cs, g, &bw);
}

static void charts_none(chart_set *cs, const group *g)
{
    (void)cs;
    (void)g;
}

/* An experiment this report does not know: its bandwidth per variant. */
static void charts_default(chart_set *cs, const group *g)
{
    bar_spec bw = {"Measured bandwidth by variant", "bandwidth (GB/s)", CML_FMT_NUMBER, NULL, NULL,
                   NULL, BW, "bandwidth", "GB/s", 1};
    bar_chart(cs, g, &bw);
}

typedef struct exp_view {
    const char *key, *title;
    void (*charts)(chart_set *cs, const group *g);
} exp_view;

static const exp_view views[] = {
    {"read-offset", "Misaligned reads", charts_read_offset},
    {"write-offset", "Misaligned writes", charts_write_offset},
    {"aos-soa", "Array of structures vs structure of arrays", charts_aos_soa},
    {"unroll", "Unrolling and bytes in flight", charts_unroll},
    {"parallelism", "Exposing parallelism", charts_parallelism},
    {"stride", "Strided and scattered access", charts_stride},
    {"read-only", "Read-only cache", charts_read_only},
    {"pitch2d", "2D arrays and pitch", charts_pitch2d},
    {"local", "Local memory", charts_local},
    {"constant", "Constant memory", charts_constant},
    {"shuffle", "Warp shuffle", charts_shuffle},
    {"shared-banks", "Shared memory banks", charts_shared_banks},
    {"transfers", "Host-device transfers", charts_transfers},
    {"device-vars", "Device variables", charts_none},
    {"device-facts", "The memory model of this GPU", charts_none},
    {"peak-bandwidth", "Peak bandwidth reference", charts_peak},
};

static const exp_view *find_view(const char *key)
{
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        if (strcmp(views[i].key, key) == 0)
            return &views[i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Tables                                                             */
/* ------------------------------------------------------------------ */

typedef enum col_kind {
    COL_PARAM, COL_VARIANT, COL_STATE, COL_MEDIAN, COL_CV, COL_GBS, COL_PEAK, COL_VERIFY,
    COL_OCC, COL_MODEL, COL_EXTRA
} col_kind;

typedef enum model_what { W_SPR, W_TPR, W_EFF, W_WF, W_CONF, W_SER } model_what;

typedef struct col {
    col_kind kind;
    int cls, rules;
    model_what what;
    char name[40];             /* parameter or extra name */
    char group[48];
    char head[64];
} col;

#define MAX_COLS 80

typedef struct table_layout {
    col cols[MAX_COLS];
    size_t n;
    int median_us;             /* every median below 1 ms: show microseconds */
} table_layout;

static col *add_col(table_layout *L, col_kind k, const char *grp, const char *head)
{
    if (L->n >= MAX_COLS)
        return NULL;
    col *c = &L->cols[L->n++];
    memset(c, 0, sizeof *c);
    c->kind = k;
    snprintf(c->group, sizeof c->group, "%s", grp);
    snprintf(c->head, sizeof c->head, "%s", head);
    return c;
}

/* 1 if the varying parameters tell every record apart. */
static int params_identify(const group *g, const names *vary)
{
    if (vary->n == 0)
        return g->n <= 1;
    for (size_t i = 0; i < g->n; i++)
        for (size_t k = i + 1; k < g->n; k++) {
            char a[256], b[256];
            key_text(g->recs[i], vary, 0, a, sizeof a);
            key_text(g->recs[k], vary, 0, b, sizeof b);
            if (strcmp(a, b) == 0)
                return 0;
        }
    return 1;
}

static double model_value(const cml_record *rec, const col *c)
{
    const cml_traffic *t = &rec->model[c->rules].cls[c->cls];
    double v;
    if (!rec->has_model || !t->instructions)
        return NAN;
    switch (c->what) {
    case W_SPR: return cml_rep_sectors_per_request(t, &v) ? v : NAN;
    case W_TPR: return cml_rep_transactions_per_request(t, &v) ? v : NAN;
    case W_EFF: return cml_rep_efficiency(t, &v) ? 100.0 * v : NAN;
    case W_WF: return cml_rep_wavefronts_per_request(t, &v) ? v : NAN;
    case W_CONF:
        return cml_rep_requests(t) ? (double)t->bank_conflicts / (double)cml_rep_requests(t) : NAN;
    case W_SER: return cml_rep_serialized_per_request(t, &v) ? v : NAN;
    }
    return NAN;
}

/* Shared or constant figures differ between the rule sets somewhere. */
static int rules_differ(const group *g, int cls, model_what what)
{
    col a, b;
    memset(&a, 0, sizeof a);
    a.cls = cls;
    a.what = what;
    b = a;
    a.rules = CML_RULES_MODERN;
    b.rules = CML_RULES_FERMI;
    for (size_t i = 0; i < g->n; i++) {
        double x = model_value(g->recs[i], &a), y = model_value(g->recs[i], &b);
        if (isfinite(x) != isfinite(y) || (isfinite(x) && x != y))
            return 1;
    }
    return 0;
}

static int class_in_group(const group *g, int cls)
{
    for (size_t i = 0; i < g->n; i++)
        if (cml_rep_class_has_traffic(g->recs[i], cls))
            return 1;
    return 0;
}

static void build_table(table_layout *L, const group *g, const names *vary)
{
    memset(L, 0, sizeof *L);
    if (params_identify(g, vary) && vary->n) {
        for (size_t j = 0; j < vary->n; j++) {
            col *c = add_col(L, COL_PARAM, "", vary->v[j]);
            if (c)
                snprintf(c->name, sizeof c->name, "%s", vary->v[j]);
        }
    } else {
        add_col(L, COL_VARIANT, "", "variant");
    }
    int any_state = 0, any_measured = 0, any_peak = 0, any_occ = 0;
    double max_median = 0;
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        any_state |= r->state != CML_REC_OK;
        if (r->measured) {
            any_measured = 1;
            if (isfinite(r->timing.median_ms) && r->timing.median_ms > max_median)
                max_median = r->timing.median_ms;
        }
        any_peak |= r->measured && r->peak_fraction >= 0;
        any_occ |= r->occupancy >= 0;
    }
    if (any_state)
        add_col(L, COL_STATE, "", "state");
    if (any_measured) {
        L->median_us = max_median < 1.0;
        add_col(L, COL_MEDIAN, "measured", L->median_us ? "median (us)" : "median (ms)");
        add_col(L, COL_CV, "measured", "cv (%)");
        add_col(L, COL_GBS, "measured", "GB/s");
        if (any_peak)
            add_col(L, COL_PEAK, "measured", "% of peak");
        add_col(L, COL_VERIFY, "measured", "verify");
    }
    if (any_occ)
        add_col(L, COL_OCC, "launch", "occupancy (%)");
    for (int cls = 0; cls < (int)CML_CLASS_COUNT; cls++) {
        if (!class_in_group(g, cls))
            continue;
        const char *cn = cml_rep_class_name(cls);
        char grp[48];
        col *c;
        if (cls <= CML_CLASS_LOCAL_ST) {
            snprintf(grp, sizeof grp, "model %s, modern", cn);
            if ((c = add_col(L, COL_MODEL, grp, "sect/req"))) { c->cls = cls; c->what = W_SPR; }
            if ((c = add_col(L, COL_MODEL, grp, "eff (%)"))) { c->cls = cls; c->what = W_EFF; }
            snprintf(grp, sizeof grp, "model %s, Fermi", cn);
            if ((c = add_col(L, COL_MODEL, grp, "trans/req"))) {
                c->cls = cls; c->what = W_TPR; c->rules = CML_RULES_FERMI;
            }
            if ((c = add_col(L, COL_MODEL, grp, "eff (%)"))) {
                c->cls = cls; c->what = W_EFF; c->rules = CML_RULES_FERMI;
            }
        } else if (cls <= CML_CLASS_SHARED_ST) {
            int differ = rules_differ(g, cls, W_WF) || rules_differ(g, cls, W_CONF);
            for (int r = 0; r < (differ ? 2 : 1); r++) {
                snprintf(grp, sizeof grp, "model %s, %s", cn,
                         differ ? (r ? "Fermi" : "modern") : "both rule sets");
                if ((c = add_col(L, COL_MODEL, grp, "wf/req"))) {
                    c->cls = cls; c->what = W_WF; c->rules = r;
                }
                if ((c = add_col(L, COL_MODEL, grp, "conflicts/req"))) {
                    c->cls = cls; c->what = W_CONF; c->rules = r;
                }
            }
        } else {
            int differ = rules_differ(g, cls, W_SER);
            for (int r = 0; r < (differ ? 2 : 1); r++) {
                snprintf(grp, sizeof grp, "model %s, %s", cn,
                         differ ? (r ? "Fermi" : "modern") : "both rule sets");
                if ((c = add_col(L, COL_MODEL, grp, "ser/req"))) {
                    c->cls = cls; c->what = W_SER; c->rules = r;
                }
            }
        }
    }
    /* Extra numbers: the union of names, in order of appearance. */
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        for (unsigned k = 0; k < r->nextra && k < 8; k++) {
            int seen = 0;
            for (size_t j = 0; j < L->n; j++)
                seen |= L->cols[j].kind == COL_EXTRA && !strcmp(L->cols[j].name, r->extra[k].name);
            if (seen)
                continue;
            char head[64];
            if (r->extra[k].unit[0])
                snprintf(head, sizeof head, "%.40s (%.12s)", r->extra[k].name, r->extra[k].unit);
            else
                snprintf(head, sizeof head, "%.40s", r->extra[k].name);
            col *c = add_col(L, COL_EXTRA, "more figures", head);
            if (c)
                snprintf(c->name, sizeof c->name, "%s", r->extra[k].name);
        }
    }
}

static void num_cell(FILE *out, double v, const char *fmt)
{
    if (!isfinite(v)) {
        fputs("<td class=\"num na\">-</td>", out);
        return;
    }
    fputs("<td class=\"num\">", out);
    fprintf(out, fmt, v);
    fputs("</td>", out);
}

/* A count prints whole ("5242880"), anything else with 6 digits. */
static void count_cell(FILE *out, double v)
{
    if (isfinite(v) && v == floor(v) && fabs(v) < 1e15)
        num_cell(out, v, "%.0f");
    else
        num_cell(out, v, "%.6g");
}

static void write_cell(FILE *out, const table_layout *L, const col *c, const cml_record *r,
                       int first)
{
    char t[64];
    int ok = is_ok(r);
    switch (c->kind) {
    case COL_PARAM: {
        const cml_record_param *p = cml_record_find_param(r, c->name);
        if (p)
            param_text(p, t, sizeof t);
        else
            snprintf(t, sizeof t, "-");
        fputs(first ? "<th scope=\"row\">" : "<td>", out);
        esc(out, t);
        fputs(first ? "</th>" : "</td>", out);
        return;
    }
    case COL_VARIANT:
        fputs("<th scope=\"row\">", out);
        esc(out, r->variant);
        fputs("</th>", out);
        return;
    case COL_STATE:
        if (r->state == CML_REC_OK) {
            fputs("<td>ok</td>", out);
        } else {
            fputs(r->state == CML_REC_WAIVED ? "<td class=\"waived\">waived: "
                                             : "<td class=\"failed\">FAILED: ",
                  out);
            esc(out, r->note);
            fputs("</td>", out);
        }
        return;
    case COL_MEDIAN:
        num_cell(out, ok && r->measured ? r->timing.median_ms * (L->median_us ? 1e3 : 1) : NAN,
                 L->median_us ? "%.2f" : "%.3f");
        return;
    case COL_CV:
        num_cell(out, ok && r->measured ? 100.0 * r->timing.cv : NAN, "%.2f");
        return;
    case COL_GBS:
        num_cell(out, m_bandwidth(r, NULL), "%.1f");
        return;
    case COL_PEAK:
        num_cell(out, ok && r->measured && r->peak_fraction >= 0 ? 100.0 * r->peak_fraction : NAN,
                 "%.1f");
        return;
    case COL_VERIFY:
        fputs(r->verify == CML_VERIFY_PASSED   ? "<td>passed</td>"
              : r->verify == CML_VERIFY_FAILED ? "<td class=\"failed\">FAILED</td>"
                                               : "<td class=\"na\">-</td>",
              out);
        return;
    case COL_OCC:
        num_cell(out, r->occupancy >= 0 ? 100.0 * r->occupancy : NAN, "%.1f");
        return;
    case COL_MODEL:
        num_cell(out, ok ? model_value(r, c) : NAN, c->what == W_EFF ? "%.1f" : "%.2f");
        return;
    case COL_EXTRA: {
        double v = NAN;
        for (unsigned k = 0; k < r->nextra && k < 8; k++)
            if (!strcmp(r->extra[k].name, c->name))
                v = r->extra[k].value;
        count_cell(out, v);
        return;
    }
    }
}

static void write_records_table(FILE *out, const group *g, const char *caption)
{
    const char *exclude[] = {NULL};
    names vary;
    varying_params(g->recs, g->n, exclude, &vary);
    table_layout *L = malloc(sizeof *L);
    if (!L)
        return;
    build_table(L, g, &vary);

    /* Parameters that are the same in every row, said once. */
    if (g->n > 1 && g->recs[0]->nparams) {
        int said = 0;
        const cml_record *r0 = g->recs[0];
        for (unsigned k = 0; k < r0->nparams && k < CML_RECORD_MAX_PARAMS; k++) {
            int varies = 0;
            for (size_t j = 0; j < vary.n; j++)
                varies |= !strcmp(vary.v[j], r0->params[k].name);
            if (varies)
                continue;
            char t[48];
            param_text(&r0->params[k], t, sizeof t);
            fputs(said ? ", " : "<p class=\"fixed\">The same in every row: ", out);
            esc(out, r0->params[k].name);
            fputs(" = ", out);
            esc(out, t);
            said = 1;
        }
        if (said)
            fputs(".</p>\n", out);
    }
    fputs("<div class=\"scroll\"><table class=\"records\">\n<caption>", out);
    esc(out, caption);
    fputs("</caption>\n<thead>\n<tr>", out);
    for (size_t i = 0; i < L->n;) {
        size_t j = i + 1;
        while (j < L->n && !strcmp(L->cols[j].group, L->cols[i].group))
            j++;
        if (L->cols[i].group[0]) {
            fprintf(out, "<th scope=\"colgroup\" colspan=\"%zu\">", j - i);
            esc(out, L->cols[i].group);
            fputs("</th>", out);
        } else {
            fprintf(out, "<td colspan=\"%zu\"></td>", j - i);
        }
        i = j;
    }
    fputs("</tr>\n<tr>", out);
    for (size_t i = 0; i < L->n; i++) {
        fputs("<th scope=\"col\">", out);
        esc(out, L->cols[i].head);
        fputs("</th>", out);
    }
    fputs("</tr>\n</thead>\n<tbody>\n", out);
    for (size_t r = 0; r < g->n; r++) {
        fputs("<tr>", out);
        for (size_t i = 0; i < L->n; i++)
            write_cell(out, L, &L->cols[i], g->recs[r], i == 0);
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n", out);
    free(L);
}

/* The parameter names of a record, joined: records that carry the same
 * parameters share a table (a transfer sweep and a zero-copy kernel do not
 * need each other's columns). */
static void param_signature(const cml_record *rec, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < rec->nparams && k < CML_RECORD_MAX_PARAMS; k++) {
        int w = snprintf(buf + used, len - used, "%s,", rec->params[k].name);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

/* Every record in an HTML table: one table per parameter signature, in order
 * of first appearance, captioned by what sets the table apart. */
static void write_tables(FILE *out, const group *g, const char *title)
{
    const cml_record **part = malloc((g->n ? g->n : 1) * sizeof *part);
    char *done = calloc(g->n ? g->n : 1, 1);
    if (!part || !done) {
        free(part);
        free(done);
        return;
    }
    const char *exclude[] = {NULL};
    names whole;
    varying_params(g->recs, g->n, exclude, &whole);
    size_t nparts = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (done[i])
            continue;
        char sig[CML_RECORD_MAX_PARAMS * 25], other[CML_RECORD_MAX_PARAMS * 25];
        param_signature(g->recs[i], sig, sizeof sig);
        group sub = {g->key, part, 0};
        for (size_t k = i; k < g->n; k++) {
            if (done[k])
                continue;
            param_signature(g->recs[k], other, sizeof other);
            if (strcmp(sig, other) == 0) {
                part[sub.n++] = g->recs[k];
                done[k] = 1;
            }
        }
        nparts++;
        /* Caption: the choices that are the same in this table but vary in
         * the experiment ("mode = copy"), when the experiment has several. */
        char caption[320];
        size_t used = (size_t)snprintf(caption, sizeof caption, "%s", title);
        int tagged = 0;
        if (sub.n < g->n) {
            names inner;
            varying_params(sub.recs, sub.n, exclude, &inner);
            for (size_t j = 0; j < whole.n && used < sizeof caption; j++) {
                int varies = 0;
                for (size_t q = 0; q < inner.n; q++)
                    varies |= !strcmp(inner.v[q], whole.v[j]);
                const cml_record_param *p = cml_record_find_param(sub.recs[0], whole.v[j]);
                if (varies || !p || !p->label[0])
                    continue;
                int w = snprintf(caption + used, sizeof caption - used, "%s%s = %s",
                                 tagged ? ", " : ": ", p->name, p->label);
                if (w > 0)
                    used += (size_t)w;
                tagged = 1;
            }
        }
        if (!tagged && used < sizeof caption)
            snprintf(caption + used, sizeof caption - used, nparts > 1 || sub.n < g->n
                                                                ? ": more records"
                                                                : ": every record");
        write_records_table(out, &sub, caption);
    }
    free(part);
    free(done);
}

static void write_counters_table(FILE *out, const group *g)
{
    int any = 0;
    for (size_t i = 0; i < g->n; i++)
        any |= g->recs[i]->ncounters > 0;
    if (!any)
        return;
    fputs("<div class=\"scroll\"><table class=\"counters\">\n<caption>Hardware counters beside "
          "the model's predictions</caption>\n<thead><tr><th scope=\"col\">variant</th>"
          "<th scope=\"col\">counter</th><th scope=\"col\">measured</th>"
          "<th scope=\"col\">predicted</th><th scope=\"col\">agreement</th>"
          "<th scope=\"col\">measured / predicted</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        for (unsigned k = 0; k < r->ncounters && k < CML_RECORD_MAX_COUNTERS; k++) {
            const cml_counter *ct = &r->counters[k];
            fputs("<tr><th scope=\"row\">", out);
            esc(out, r->variant);
            fputs("</th><td><code>", out);
            esc(out, ct->name);
            fputs("</code></td>", out);
            count_cell(out, ct->measured);
            count_cell(out, ct->has_prediction ? ct->predicted : NAN);
            if (!ct->has_prediction)
                fputs("<td class=\"na\">no prediction</td>", out);
            else if (cml_rep_counter_agrees(ct->measured, ct->predicted))
                fputs("<td class=\"agree\">= agrees</td>", out);
            else
                fputs("<td class=\"differ\">&#8800; differs</td>", out);
            num_cell(out,
                     ct->has_prediction && ct->predicted != 0 ? ct->measured / ct->predicted : NAN,
                     "%.4g");
            fputs("</tr>\n", out);
        }
    }
    fputs("</tbody>\n</table></div>\n", out);
}

/* ------------------------------------------------------------------ */
/* Page                                                               */
/* ------------------------------------------------------------------ */

static const char *const css =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#1a1a1a;background:#fafafa;margin:0;line-height:1.45}\n"
    "main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}\n"
    "h1{font-size:1.7em;margin:.4em 0 .2em}h2{font-size:1.3em;margin:1.8em 0 .4em;"
    "border-bottom:2px solid #ddd;padding-bottom:.2em}\n"
    "code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em;"
    "background:#f0f0f0;padding:0 .25em;border-radius:3px}\n"
    ".meta{color:#555}.banner{background:#fff4d6;border:1px solid #e6c35c;padding:.6em .9em;"
    "border-radius:4px}\n.peak{font-size:1.1em}\n"
    "table{border-collapse:collapse;font-size:.86em;background:#fff;margin:.4em 0 1em}\n"
    "caption{text-align:left;font-weight:600;padding:.3em 0}\n"
    "th,td{border:1px solid #d8d8d8;padding:.25em .5em;vertical-align:top}\n"
    "thead th{background:#f1f3f5}tbody tr:nth-child(even){background:#f8f9fa}\n"
    "th[scope=row]{text-align:left;font-weight:normal;white-space:nowrap}\n"
    "table.records td{white-space:nowrap}table.records td.waived,table.records td.failed"
    "{white-space:normal;min-width:16em}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    ".na{color:#999}.failed,.differ{color:#b00020;font-weight:600}.waived{color:#8a6d00}"
    ".agree{color:#1b7f3b}\n"
    ".scroll{overflow-x:auto}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:12px 20px}\n"
    "figure{margin:0;background:#fff;border:1px solid #e3e3e3;border-radius:4px;padding:8px}\n"
    "figcaption{font-weight:600;margin:0 0 4px 4px}\n"
    "svg.chart{max-width:100%;height:auto;display:block}\n"
    ".computed{font-size:1.02em}.findings li{margin:.2em 0}.fixed{color:#555;font-size:.9em}\n"
    "nav ol{columns:2;padding-left:1.4em}\n"
    "footer{color:#777;font-size:.85em;margin-top:3em}\n";

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
    cml_fmt_tick(buf, len, (double)b, 0, CML_FMT_BYTES);
}

static void fact_row(FILE *out, const char *name, const char *value)
{
    fputs("<tr><th scope=\"row\">", out);
    esc(out, name);
    fputs("</th><td>", out);
    esc(out, value);
    fputs("</td></tr>\n", out);
}

static void write_header(FILE *out, const cml_results *r, size_t ngroups)
{
    fputs("<header>\n<h1>cumemlab report</h1>\n<p class=\"meta\">cumemlab ", out);
    esc(out, r->tool_version[0] ? r->tool_version : "(version unknown)");
    fprintf(out, " &middot; %zu record%s from %zu experiment%s", r->count, r->count == 1 ? "" : "s",
            ngroups, ngroups == 1 ? "" : "s");
    if (r->command_line[0]) {
        fputs(" &middot; command: <code>", out);
        esc(out, r->command_line);
        fputs("</code>", out);
    }
    fputs("</p>\n", out);
    if (r->model_only)
        fputs("<p class=\"banner\" role=\"note\"><strong>No GPU was used:</strong> every figure "
              "in this report is the model's prediction, not a measurement.</p>\n",
              out);
    if (r->has_device) {
        const cml_device_facts *d = &r->device;
        char v[320], a[48], b[48];
        int theo = isfinite(d->theoretical_gbs) && d->theoretical_gbs > 0;
        int peak = isfinite(r->peak_gbs) && r->peak_gbs > 0;
        fprintf(out, "<p class=\"peak\">%s peak bandwidth: <strong>",
                peak && r->peak_given ? "Reference (given with --peak)" : "Measured");
        if (peak) {
            fprintf(out, "%.1f GB/s</strong>", r->peak_gbs);
            if (theo)
                fprintf(out, " (%.1f%% of the theoretical %.1f GB/s)",
                        100.0 * r->peak_gbs / d->theoretical_gbs, d->theoretical_gbs);
        } else {
            fputs("not measured</strong>", out);
        }
        fputs("; every &ldquo;% of peak&rdquo; below is relative to it.</p>\n", out);
        fputs("<table class=\"facts\">\n<caption>The GPU</caption>\n<tbody>\n", out);
        snprintf(v, sizeof v, "%d: %s", d->index, d->name);
        fact_row(out, "device", v);
        snprintf(v, sizeof v, "%d.%d (sm_%d%d)", d->cc_major, d->cc_minor, d->cc_major,
                 d->cc_minor);
        fact_row(out, "compute capability", v);
        snprintf(v, sizeof v, "%d SMs, warps of %d threads, up to %d threads per block, %d per SM",
                 d->sm_count, d->warp_size, d->max_threads_per_block, d->max_threads_per_sm);
        fact_row(out, "multiprocessors", v);
        snprintf(v, sizeof v, "%d per block, %d per SM (32-bit)", d->regs_per_block,
                 d->regs_per_sm);
        fact_row(out, "registers", v);
        fmt_bytes(a, sizeof a, d->shared_per_block);
        fmt_bytes(b, sizeof b, d->shared_per_sm);
        snprintf(v, sizeof v, "%s per block, %s per SM", a, b);
        fact_row(out, "shared memory", v);
        fmt_bytes(a, sizeof a, d->const_bytes);
        fact_row(out, "constant memory", a);
        fmt_bytes(a, sizeof a, d->l2_bytes);
        fact_row(out, "L2 cache", a);
        fmt_bytes(a, sizeof a, d->global_bytes);
        snprintf(v, sizeof v, "%s, bus %d bits, memory clock %.0f MHz%s", a, d->bus_width_bits,
                 d->mem_clock_khz / 1000.0, d->ecc_enabled ? ", ECC on" : "");
        fact_row(out, "global memory", v);
        if (theo)
            snprintf(v, sizeof v, "%.1f GB/s", d->theoretical_gbs);
        else
            snprintf(v, sizeof v, "unknown");
        fact_row(out, "theoretical bandwidth", v);
        snprintf(v, sizeof v, "driver %d.%d, runtime %d.%d", d->driver_version / 1000,
                 (d->driver_version % 1000) / 10, d->runtime_version / 1000,
                 (d->runtime_version % 1000) / 10);
        fact_row(out, "CUDA", v);
        fputs("</tbody>\n</table>\n", out);
    } else if (!r->model_only) {
        fputs("<p class=\"meta\">No device facts in these results.</p>\n", out);
    }
    fputs("</header>\n", out);
}

/* Anchor of group i: only letters, digits and '-'. */
static void anchor(char *buf, size_t len, size_t i, const char *key)
{
    int w = snprintf(buf, len, "exp-%zu-", i + 1);
    size_t n = w > 0 ? (size_t)w : 0;
    for (const char *p = key; *p && n + 1 < len; p++) {
        char ch = *p;
        int okc = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        buf[n++] = okc ? ch : '-';
    }
    buf[n] = '\0';
}

static void group_title(const group *g, char *buf, size_t len)
{
    const exp_view *v = find_view(g->key);
    if (v)
        snprintf(buf, len, "%s (%s)", v->title, g->key);
    else
        snprintf(buf, len, "%s", g->key);
}

static void write_findings(FILE *out, const group *g)
{
    /* Each distinct sentence once; named by its variant when only one record has it. */
    size_t shown = 0, total = 0;
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        int dup = 0;
        for (size_t k = 0; k < i && !dup; k++)
            dup = !strcmp(g->recs[k]->finding, r->finding);
        total += r->finding[0] && !dup;
    }
    if (!total)
        return;
    fputs("<ul class=\"findings\">\n", out);
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        if (!r->finding[0])
            continue;
        int dup = 0;
        size_t same = 0;
        for (size_t k = 0; k < i && !dup; k++)
            dup = !strcmp(g->recs[k]->finding, r->finding);
        if (dup)
            continue;
        for (size_t k = 0; k < g->n; k++)
            same += !strcmp(g->recs[k]->finding, r->finding);
        if (shown == 4 && total > 5)
            fprintf(out, "</ul>\n<details><summary>%zu more findings</summary>\n"
                         "<ul class=\"findings\">\n",
                    total - shown);
        fputs("<li>", out);
        if (same == 1 && r->variant[0] && g->n > 1) {
            fputs("<strong>", out);
            esc(out, r->variant);
            fputs(":</strong> ", out);
        }
        esc(out, r->finding);
        fputs("</li>\n", out);
        shown++;
    }
    fputs(shown > 4 && total > 5 ? "</ul>\n</details>\n" : "</ul>\n", out);
}

static cml_status write_group(FILE *out, const group *g, size_t index)
{
    char id[96], title[160];
    anchor(id, sizeof id, index, g->key);
    group_title(g, title, sizeof title);
    fprintf(out,
            "<section class=\"experiment\" id=\"%s\" aria-labelledby=\"%s-h\">\n"
            "<h2 id=\"%s-h\">",
            id, id, id);
    esc(out, title);
    fputs("</h2>\n", out);

    chart_set *cs = calloc(1, sizeof *cs);
    if (!cs)
        return CML_ENOMEM;
    const exp_view *v = find_view(g->key);
    (v ? v->charts : charts_default)(cs, g);
    counters_chart(cs, g);

    size_t waived = 0, failed = 0, measured = 0;
    for (size_t i = 0; i < g->n; i++) {
        waived += g->recs[i]->state == CML_REC_WAIVED;
        failed += g->recs[i]->state == CML_REC_FAILED;
        measured += g->recs[i]->measured;
    }
    fputs("<p class=\"computed\">", out);
    fprintf(out, "%zu record%s", g->n, g->n == 1 ? "" : "s");
    if (measured)
        fprintf(out, ", %zu measured on the GPU", measured);
    else
        fputs(", the model's predictions only", out);
    if (waived)
        fprintf(out, ", %zu waived", waived);
    if (failed)
        fprintf(out, ", <span class=\"failed\">%zu FAILED</span>", failed);
    fputs(".", out);
    for (size_t i = 0; i < cs->nsent; i++) {
        fputc(' ', out);
        esc(out, cs->sent[i]);
    }
    fputs("</p>\n", out);
    write_findings(out, g);

    cml_status st = CML_OK;
    if (cs->n) {
        fputs("<div class=\"charts\">\n", out);
        for (size_t i = 0; i < cs->n; i++) {
            fputs("<figure>\n<figcaption>", out);
            esc(out, cs->charts[i].title);
            fputs("</figcaption>\n", out);
            if (cml_chart_svg(out, &cs->charts[i]) != CML_OK)
                st = CML_EIO;
            fputs("</figure>\n", out);
        }
        fputs("</div>\n", out);
    }
    for (size_t i = 0; i < cs->n; i++)
        cml_chart_free(&cs->charts[i]);
    if (cs->oom)
        st = CML_ENOMEM;
    free(cs);

    write_tables(out, g, title);
    write_counters_table(out, g);
    fputs("</section>\n", out);
    return st;
}

/* Group the records by experiment, in order of first appearance. */
static group *make_groups(const cml_results *r, size_t *ngroups, const cml_record ***storage)
{
    group *gs = malloc((r->count ? r->count : 1) * sizeof *gs);
    const cml_record **all = malloc((r->count ? r->count : 1) * sizeof *all);
    size_t ng = 0, used = 0;
    if (!gs || !all) {
        free(gs);
        free(all);
        return NULL;
    }
    for (size_t i = 0; i < r->count; i++) {
        int seen = 0;
        for (size_t k = 0; k < ng && !seen; k++)
            seen = !strcmp(gs[k].key, r->items[i].experiment);
        if (seen)
            continue;
        group *g = &gs[ng++];
        g->key = r->items[i].experiment;
        g->recs = all + used;
        g->n = 0;
        for (size_t k = i; k < r->count; k++)
            if (!strcmp(r->items[k].experiment, g->key))
                all[used + g->n++] = &r->items[k];
        used += g->n;
    }
    *ngroups = ng;
    *storage = all;
    return gs;
}

cml_status cml_report_html(FILE *out, const cml_results *r)
{
    size_t ng = 0;
    const cml_record **storage = NULL;
    group *gs = make_groups(r, &ng, &storage);
    if (!gs)
        return CML_ENOMEM;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"cumemlab\">\n<title>cumemlab report",
          out);
    if (r->has_device) {
        fputs(": ", out);
        esc(out, r->device.name);
    } else if (r->model_only) {
        fputs(" (model only)", out);
    }
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", css);
    write_header(out, r, ng);
    if (ng) {
        fputs("<nav aria-label=\"experiments\">\n<h2>Experiments</h2>\n<ol>\n", out);
        for (size_t i = 0; i < ng; i++) {
            char id[96], title[160];
            anchor(id, sizeof id, i, gs[i].key);
            group_title(&gs[i], title, sizeof title);
            fprintf(out, "<li><a href=\"#%s\">", id);
            esc(out, title);
            fprintf(out, "</a> &middot; %zu record%s</li>\n", gs[i].n, gs[i].n == 1 ? "" : "s");
        }
        fputs("</ol>\n</nav>\n", out);
    } else {
        fputs("<p>No records.</p>\n", out);
    }
    cml_status st = CML_OK;
    for (size_t i = 0; i < ng; i++) {
        cml_status s = write_group(out, &gs[i], i);
        if (s != CML_OK && st == CML_OK)
            st = s;
    }
    fputs("<footer id=\"cml-end\">Written by cumemlab ", out);
    esc(out, r->tool_version);
    fputs(". Bandwidth counts the bytes each kernel must move (every input read once, every "
          "output written once) over the median time, in GB/s (10<sup>9</sup> bytes per "
          "second). Efficiency is bytes used / bytes moved. &ldquo;modern&rdquo; applies the "
          "rules of Volta to Hopper (32-byte sectors); &ldquo;Fermi&rdquo; those of the "
          "Fermi/Kepler textbooks.</footer>\n</main>\n</body>\n</html>\n",
          out);
    free((void *)storage);
    free(gs);
    if (st == CML_OK && (fflush(out) != 0 || ferror(out)))
        st = CML_EIO;
    return st;
}
