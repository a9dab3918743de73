/*
 * The results file's "experiments" (docs/json-schema.md): for each
 * experiment, its number, title and chart specs, read back into the
 * results' descriptions (core/exp_desc.h) so that the reports draw the file
 * from the file alone. Untrusted like the rest of the file: every member is
 * checked for its type and bounds, with one line naming it on error, and
 * the reports never see a spec the reader did not check (an enum is one of
 * its names, a text is one line within CML_DESC_MAX_TEXT bytes, a list
 * within CML_DESC_MAX_LIST strings).
 */
#include "report/json_read.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/exp_desc.h"
#include "report/chart_spec_json.h"

typedef struct rd {
    char *err;
    size_t errlen;
} rd;

static int fail(rd *c, const cml_jval *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(rd *c, const cml_jval *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_jtext_vlocate(v->line, v->col, v->offset, c->err, c->errlen, fmt, ap);
    va_end(ap);
    return 0;
}

static const cml_jval *member(rd *c, const cml_jval *o, const char *where, const char *key)
{
    const cml_jval *v = cml_jobject_get(o, key);
    if (!v)
        fail(c, o, "%s: missing member \"%s\"", where, key);
    return v;
}

/* A text of a description: one line (no control characters: titles and
 * labels go to the terminal as they are), within its bound. */
static int text_ok(rd *c, const cml_jval *v, const char *where, const char *key)
{
    if (v->len > CML_DESC_MAX_TEXT)
        return fail(c, v, "%s.%s: string of %zu bytes is too long (at most %d)", where, key,
                    v->len, CML_DESC_MAX_TEXT);
    for (size_t i = 0; i < v->len; i++)
        if ((unsigned char)v->text[i] < 0x20 || v->text[i] == 0x7f)
            return fail(c, v, "%s.%s: control character in the text (byte %zu)", where, key,
                        i);
    return 1;
}

/* A string or null: *out the tree's text (it outlives the copy) or NULL. */
static int get_text(rd *c, const cml_jval *o, const char *where, const char *key,
                    const char **out)
{
    const cml_jval *v = member(c, o, where, key);
    if (!v)
        return 0;
    if (v->type == CML_J_NULL) {
        *out = NULL;
        return 1;
    }
    if (v->type != CML_J_STRING)
        return fail(c, v, "%s.%s: expected a string or null", where, key);
    if (!text_ok(c, v, where, key))
        return 0;
    *out = v->text;
    return 1;
}

/* One of `names` (NULL-terminated): its index. */
static int get_name(rd *c, const cml_jval *o, const char *where, const char *key,
                    const char *const *names, int first, int *out)
{
    const cml_jval *v = member(c, o, where, key);
    if (!v)
        return 0;
    if (v->type != CML_J_STRING)
        return fail(c, v, "%s.%s: expected a string", where, key);
    char allowed[200] = "";
    size_t used = 0;
    for (int i = first; names[i]; i++) {
        if (strcmp(v->text, names[i]) == 0) {
            *out = i;
            return 1;
        }
        int w = snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"", i > first ? ", " : "",
                         names[i]);
        if (w > 0 && (size_t)w < sizeof allowed - used)
            used += (size_t)w;
    }
    return fail(c, v, "%s.%s: unknown value \"%.40s\" (allowed: %s)", where, key, v->text,
                allowed);
}

/* A list of strings or null, into list[0..CML_DESC_MAX_LIST] (NULL-
 * terminated); *out list or NULL. */
static int get_list(rd *c, const cml_jval *o, const char *where, const char *key,
                    const char **list, const char *const **out)
{
    const cml_jval *v = member(c, o, where, key);
    if (!v)
        return 0;
    if (v->type == CML_J_NULL) {
        *out = NULL;
        return 1;
    }
    if (v->type != CML_J_ARRAY)
        return fail(c, v, "%s.%s: expected an array of strings or null", where, key);
    if (v->count > CML_DESC_MAX_LIST)
        return fail(c, v, "%s.%s: %zu strings (at most %d)", where, key, v->count,
                    CML_DESC_MAX_LIST);
    for (size_t i = 0; i < v->count; i++) {
        const cml_jval *s = &v->items[i];
        char at[32];
        snprintf(at, sizeof at, "%s[%zu]", key, i);
        if (s->type != CML_J_STRING)
            return fail(c, s, "%s.%s: expected a string", where, at);
        if (!text_ok(c, s, where, at))
            return 0;
        list[i] = s->text;
    }
    list[v->count] = NULL;
    *out = list;
    return 1;
}

static int read_metric(rd *c, const cml_jval *o, const char *where, cml_metric_ref *m)
{
    int id;
    const char *better;
    if (o->type != CML_J_OBJECT)
        return fail(c, o, "%s: expected an object", where);
    /* "none" (index 0) marks an unused metric in C; the file leaves it out. */
    if (!get_text(c, o, where, "name", &m->name) ||
        !get_name(c, o, where, "metric", cml_chart_metric_names, 1, &id) ||
        !get_text(c, o, where, "arg", &m->arg) || !get_text(c, o, where, "lead", &m->lead) ||
        !get_text(c, o, where, "better", &better))
        return 0;
    m->id = (cml_metric_id)id;
    m->better = 0;
    if (better && !strcmp(better, "higher"))
        m->better = 1;
    else if (better && !strcmp(better, "lower"))
        m->better = -1;
    else if (better)
        return fail(c, cml_jobject_get(o, "better"),
                    "%s.better: unknown value \"%.40s\" (allowed: \"higher\", \"lower\", null)",
                    where, better);
    return 1;
}

/* The lists of one spec: the strings stay in the tree, these hold them. */
typedef struct spec_lists {
    const char *v[4][CML_DESC_MAX_LIST + 1];
} spec_lists;

static int read_chart(rd *c, const cml_jval *o, const char *where, cml_chart_spec *sp,
                      spec_lists *ls)
{
    int shape, xscale, xfmt, yfmt;
    if (o->type != CML_J_OBJECT)
        return fail(c, o, "%s: expected an object", where);
    memset(sp, 0, sizeof *sp);
    if (!get_name(c, o, where, "shape", cml_chart_shape_names, 0, &shape) ||
        !get_text(c, o, where, "title", &sp->title) ||
        !get_text(c, o, where, "xparam", &sp->xparam) ||
        !get_text(c, o, where, "xname", &sp->xname) ||
        !get_text(c, o, where, "xlabel", &sp->xlabel) ||
        !get_name(c, o, where, "xscale", cml_chart_scale_names, 0, &xscale) ||
        !get_name(c, o, where, "xformat", cml_chart_format_names, 0, &xfmt) ||
        !get_text(c, o, where, "ylabel", &sp->ylabel) ||
        !get_name(c, o, where, "yformat", cml_chart_format_names, 0, &yfmt) ||
        !get_text(c, o, where, "only_param", &sp->only_param) ||
        !get_text(c, o, where, "only_label", &sp->only_label) ||
        !get_text(c, o, where, "without_param", &sp->without_param) ||
        !get_text(c, o, where, "series_param", &sp->series_param))
        return 0;
    sp->shape = (cml_chart_shape)shape;
    sp->xscale = (cml_scale)xscale;
    sp->xfmt = (cml_tick_format)xfmt;
    sp->yfmt = (cml_tick_format)yfmt;
    const cml_jval *ms = member(c, o, where, "metrics");
    if (!ms)
        return 0;
    const size_t maxm = sizeof sp->m / sizeof sp->m[0];
    if (ms->type != CML_J_ARRAY)
        return fail(c, ms, "%s.metrics: expected an array", where);
    if (ms->count > maxm)
        return fail(c, ms, "%s.metrics: %zu metrics (at most %zu)", where, ms->count, maxm);
    for (size_t i = 0; i < ms->count; i++) {
        char at[160];
        snprintf(at, sizeof at, "%s.metrics[%zu]", where, i);
        if (!read_metric(c, &ms->items[i], at, &sp->m[i]))
            return 0;
    }
    const cml_jval *d = member(c, o, where, "describe");
    if (!d)
        return 0;
    if (d->type != CML_J_TRUE && d->type != CML_J_FALSE)
        return fail(c, d, "%s.describe: expected a boolean", where);
    sp->describe = d->type == CML_J_TRUE;
    return get_text(c, o, where, "what", &sp->what) && get_text(c, o, where, "unit", &sp->unit) &&
           get_list(c, o, where, "extra_names", ls->v[0], &sp->extra_names) &&
           get_list(c, o, where, "extra_legend", ls->v[1], &sp->extra_legend) &&
           get_text(c, o, where, "ignore_param", &sp->ignore_param) &&
           get_list(c, o, where, "xmark_extras", ls->v[2], &sp->xmark_extras) &&
           get_list(c, o, where, "xmark_labels", ls->v[3], &sp->xmark_labels);
}

/* One description: 1 ok, 0 malformed, -1 out of memory. */
static int read_desc(rd *c, const cml_jval *o, size_t index, cml_results *r)
{
    char where[48];
    snprintf(where, sizeof where, "experiments[%zu]", index);
    if (o->type != CML_J_OBJECT)
        return fail(c, o, "%s: expected an object", where);
    const cml_jval *k = member(c, o, where, "key");
    if (!k)
        return 0;
    if (k->type != CML_J_STRING)
        return fail(c, k, "%s.key: expected a string", where);
    if (k->len == 0 || k->len >= sizeof r->descs.v[0].key)
        return fail(c, k, "%s.key: %zu bytes (1 to %zu)", where, k->len,
                    sizeof r->descs.v[0].key - 1);
    if (!text_ok(c, k, where, "key"))
        return 0;
    if (cml_exp_descs_find(&r->descs, k->text))
        return fail(c, k, "%s.key: \"%s\" is described twice", where, k->text);
    const cml_jval *n = member(c, o, where, "number");
    int64_t number = 0;
    if (!n)
        return 0;
    if (n->type != CML_J_NULL &&
        (n->type != CML_J_NUMBER || !cml_jval_i64(n, &number) || number < 1 || number > INT_MAX))
        return fail(c, n, "%s.number: expected an integer in 1..%d or null, found %s", where,
                    INT_MAX, n->type == CML_J_NUMBER ? n->text : "another type");
    const char *title;
    if (!get_text(c, o, where, "title", &title))
        return 0;
    const cml_jval *cs = member(c, o, where, "charts");
    if (!cs)
        return 0;
    if (cs->type != CML_J_ARRAY)
        return fail(c, cs, "%s.charts: expected an array", where);
    if (cs->count > CML_DESC_MAX_CHARTS)
        return fail(c, cs, "%s.charts: %zu charts (at most %d)", where, cs->count,
                    CML_DESC_MAX_CHARTS);
    cml_chart_spec specs[CML_DESC_MAX_CHARTS];
    spec_lists lists[CML_DESC_MAX_CHARTS]; /* 9 KiB in all */
    for (size_t i = 0; i < cs->count; i++) {
        char at[96];
        snprintf(at, sizeof at, "%s.charts[%zu]", where, i);
        if (!read_chart(c, &cs->items[i], at, &specs[i], &lists[i]))
            return 0;
    }
    /* Everything was checked against the bounds above, so what is left is
     * memory. */
    cml_status st = cml_exp_descs_add(&r->descs, k->text, (int)number, title, specs, cs->count,
                                         NULL, 0);
    if (st == CML_EINVAL)
        return fail(c, o, "%s: refused", where);
    return st == CML_OK ? 1 : -1;
}

int cml_jread_experiments(const cml_jval *v, cml_results *r, char *err, size_t errlen)
{
    rd c = {err, errlen};
    if (v->type != CML_J_ARRAY)
        return fail(&c, v, "experiments: expected an array");
    for (size_t i = 0; i < v->count; i++) {
        int ok = read_desc(&c, &v->items[i], i, r);
        if (ok <= 0)
            return ok;
    }
    return 1;
}
