/*
 * The parameters of records as the HTML report reads them (record_params.h).
 */
#include "report/record_params.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cml_rep_label_number(const char *s, double *out)
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

int cml_rep_param_num(const cml_record *rec, const char *name, double *out)
{
    const cml_record_param *p = cml_record_find_param(rec, name);
    if (!p)
        return 0;
    if (!p->label[0]) {
        *out = (double)p->value;
        return 1;
    }
    return cml_rep_label_number(p->label, out);
}

void cml_rep_param_text(const cml_record_param *p, char *buf, size_t len)
{
    if (p->label[0])
        snprintf(buf, len, "%s", p->label);
    else
        snprintf(buf, len, "%" PRId64, p->value);
}

int cml_rep_param_is(const cml_record *rec, const char *name, const char *label)
{
    const cml_record_param *p = cml_record_find_param(rec, name);
    if (!p)
        return 0;
    char t[48];
    cml_rep_param_text(p, t, sizeof t);
    return strcmp(t, label) == 0;
}

static int in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

void cml_rep_varying_params(const cml_record *const *recs, size_t n, const char *const *exclude,
                            cml_rep_names *out)
{
    cml_rep_names all;
    all.n = 0;
    out->n = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < recs[i]->nparams && k < CML_RECORD_MAX_PARAMS; k++) {
            const char *nm = recs[i]->params[k].name;
            size_t j = 0;
            while (j < all.n && strcmp(all.v[j], nm) != 0)
                j++;
            if (j == all.n && all.n < CML_REP_MAX_NAMES)
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
            cml_rep_param_text(p, t, sizeof t);
            if (i == 0)
                snprintf(first, sizeof first, "%s", t);
            else if (strcmp(first, t) != 0)
                varies = 1;
        }
        if (varies)
            snprintf(out->v[out->n++], sizeof out->v[0], "%s", all.v[j]);
    }
}

void cml_rep_param_key(const cml_record *rec, const cml_rep_names *vary, int bare, char *buf,
                       size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < vary->n; j++) {
        const cml_record_param *p = cml_record_find_param(rec, vary->v[j]);
        if (!p)
            continue;
        char t[48];
        cml_rep_param_text(p, t, sizeof t);
        int w;
        if (bare && p->label[0] && !cml_rep_label_number(p->label, &(double){0}))
            w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", t);
        else
            w = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", p->name, t);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

void cml_rep_names_join(const cml_rep_names *v, const char *sep, char *buf, size_t len)
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
