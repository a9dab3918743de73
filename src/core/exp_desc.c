/*
 * Descriptions of experiments carried by a results set (exp_desc.h). Each
 * is copied into one block, sized by a first pass over what it holds, so
 * that freeing the results frees it in one call and a description never
 * points into memory the caller (a registry row, a parsed file) owns.
 */
#include "core/exp_desc.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bump allocator over the block: with base NULL it only counts. */
typedef struct bump {
    char *base;
    size_t used;
} bump;

static void *take(bump *b, size_t bytes)
{
    const size_t a = alignof(max_align_t);
    b->used = (b->used + a - 1) / a * a;
    void *p = b->base ? b->base + b->used : NULL;
    b->used += bytes;
    return p;
}

static const char *copy_text(bump *b, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = take(b, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static const char *const *copy_list(bump *b, const char *const *list)
{
    if (!list)
        return NULL;
    size_t n = 0;
    while (list[n])
        n++;
    const char **p = take(b, (n + 1) * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        const char *s = copy_text(b, list[i]);
        if (p)
            p[i] = s;
    }
    if (p)
        p[n] = NULL;
    return p;
}

/* Copy specs into b (or count their bytes); the copy's address. */
static cml_chart_spec *copy_specs(bump *b, const cml_chart_spec *specs, size_t n)
{
    cml_chart_spec *out = take(b, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        const cml_chart_spec *s = &specs[i];
        cml_chart_spec c = *s;
        c.title = copy_text(b, s->title);
        c.xparam = copy_text(b, s->xparam);
        c.xname = copy_text(b, s->xname);
        c.xlabel = copy_text(b, s->xlabel);
        c.ylabel = copy_text(b, s->ylabel);
        c.only_param = copy_text(b, s->only_param);
        c.only_label = copy_text(b, s->only_label);
        c.without_param = copy_text(b, s->without_param);
        c.series_param = copy_text(b, s->series_param);
        for (size_t k = 0; k < sizeof s->m / sizeof s->m[0]; k++) {
            c.m[k].name = copy_text(b, s->m[k].name);
            c.m[k].arg = copy_text(b, s->m[k].arg);
            c.m[k].lead = copy_text(b, s->m[k].lead);
        }
        c.what = copy_text(b, s->what);
        c.unit = copy_text(b, s->unit);
        c.extra_names = copy_list(b, s->extra_names);
        c.extra_legend = copy_list(b, s->extra_legend);
        c.ignore_param = copy_text(b, s->ignore_param);
        c.xmark_extras = copy_list(b, s->xmark_extras);
        c.xmark_labels = copy_list(b, s->xmark_labels);
        if (out)
            out[i] = c;
    }
    return out;
}

static cml_status refuse(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static cml_status refuse(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return CML_EINVAL;
}

/* A text within its bound (NULL is fine). */
static int text_ok(const char *s) { return !s || strlen(s) <= CML_DESC_MAX_TEXT; }

static int list_ok(const char *const *list)
{
    size_t n = 0;
    for (; list && list[n]; n++)
        if (n >= CML_DESC_MAX_LIST || !text_ok(list[n]))
            return 0;
    return 1;
}

/* Every text and list of spec s within its bound. */
static int spec_ok(const cml_chart_spec *s)
{
    const char *texts[] = {s->title,        s->xparam,       s->xname,     s->xlabel,
                           s->ylabel,       s->only_param,   s->only_label, s->without_param,
                           s->series_param, s->what,         s->unit,      s->ignore_param,
                           s->m[0].name,    s->m[0].arg,     s->m[0].lead, s->m[1].name,
                           s->m[1].arg,     s->m[1].lead};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (!text_ok(texts[i]))
            return 0;
    return list_ok(s->extra_names) && list_ok(s->extra_legend) && list_ok(s->xmark_extras) &&
           list_ok(s->xmark_labels);
}

cml_status cml_exp_descs_add(cml_exp_descs *s, const char *key, int number, const char *title,
                             const cml_chart_spec *specs, size_t nspecs, char *err,
                             size_t errlen)
{
    if (!key || !key[0] || strlen(key) >= sizeof s->v[0].key)
        return refuse(err, errlen, "experiment key empty or longer than %zu bytes",
                      sizeof s->v[0].key - 1);
    if (cml_exp_descs_find(s, key))
        return refuse(err, errlen, "experiment \"%s\" described twice", key);
    if (nspecs > CML_DESC_MAX_CHARTS)
        return refuse(err, errlen, "%zu charts (at most %d)", nspecs, CML_DESC_MAX_CHARTS);
    if (!text_ok(title))
        return refuse(err, errlen, "title longer than %d bytes", CML_DESC_MAX_TEXT);
    for (size_t i = 0; i < nspecs; i++)
        if (!spec_ok(&specs[i]))
            return refuse(err, errlen,
                          "chart %zu: a text longer than %d bytes or a list of more than %d",
                          i, CML_DESC_MAX_TEXT, CML_DESC_MAX_LIST);
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        cml_exp_desc *d = realloc(s->v, cap * sizeof *d);
        if (!d)
            return CML_ENOMEM;
        s->v = d;
        s->cap = cap;
    }
    bump count = {NULL, 0};
    (void)copy_text(&count, title);
    (void)copy_specs(&count, specs, nspecs);
    char *block = malloc(count.used ? count.used : 1);
    if (!block)
        return CML_ENOMEM;
    bump fill = {block, 0};
    cml_exp_desc *d = &s->v[s->n++];
    memset(d, 0, sizeof *d);
    snprintf(d->key, sizeof d->key, "%s", key);
    d->number = number;
    d->title = copy_text(&fill, title);
    d->charts = nspecs ? copy_specs(&fill, specs, nspecs) : NULL;
    d->ncharts = nspecs;
    d->owned = block;
    return CML_OK;
}

const cml_exp_desc *cml_exp_descs_find(const cml_exp_descs *s, const char *key)
{
    for (size_t i = 0; key && i < s->n; i++)
        if (strcmp(s->v[i].key, key) == 0)
            return &s->v[i];
    return NULL;
}

void cml_exp_descs_free(cml_exp_descs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].owned);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}
