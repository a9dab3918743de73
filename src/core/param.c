/*
 * Parameter lists: "0:32,128", "2^20", "4M", "ca,cg,nc", "all".
 * Every value is range-checked against its declaration, and every error is
 * one line naming the option and what it allows.
 */
#include "core/param.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t choice_count(const cml_param_def *def)
{
    size_t n = 0;
    while (def->choices && def->choices[n])
        n++;
    return n;
}

static int64_t def_min(const cml_param_def *def)
{
    return def->choices ? 0 : def->min;
}

static int64_t def_max(const cml_param_def *def)
{
    return def->choices ? (int64_t)choice_count(def) - 1 : def->max;
}

void cml_param_describe_range(const cml_param_def *def, char *buf, size_t len)
{
    if (len == 0)
        return;
    if (def->choices) {
        size_t used = 0;
        buf[0] = '\0';
        for (size_t i = 0; def->choices[i]; i++) {
            int w = snprintf(buf + used, len - used, "%s%s", i ? "|" : "", def->choices[i]);
            if (w < 0 || (size_t)w >= len - used)
                break;
            used += (size_t)w;
        }
        return;
    }
    snprintf(buf, len, "%s%s%lld..%lld", (def->flags & CML_PARAM_OR_ZERO) ? "0 or " : "",
             (def->flags & CML_PARAM_POW2) ? "powers of two in " : "", (long long)def->min,
             (long long)def->max);
}

const char *cml_param_choice(const cml_param_def *def, int64_t v)
{
    if (!def->choices || v < 0 || v >= (int64_t)choice_count(def))
        return NULL;
    return def->choices[v];
}

static cml_status fail(char *err, size_t errlen, const cml_param_def *def, const char *what,
                       const char *token, size_t toklen)
{
    char range[256];
    cml_param_describe_range(def, range, sizeof range);
    if (err && errlen)
        snprintf(err, errlen, "--%s: %s '%.*s' (allowed: %s)", def->name, what, (int)toklen,
                 token, range);
    return CML_EINVAL;
}

/*
 * One integer: decimal or 0x hex, optional k/K/M/G/T suffix (x1024^n), or
 * 2^k. 1 when it is one; -1 when it is well formed but does not fit in 64
 * bits (2^70, 99999999999999999999: "out of range", not "not an
 * integer"); 0 for anything else.
 */
static int parse_int(const char *s, size_t len, int64_t *out)
{
    char buf[64];
    if (len == 0)
        return 0;
    if (len >= sizeof buf) {
        size_t d = 0;
        while (d < len && isdigit((unsigned char)s[d]))
            d++;
        return d == len ? -1 : 0;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    const char *caret = strchr(buf, '^');
    if (caret) {
        if (caret - buf != 1 || buf[0] != '2')
            return 0;
        char *end;
        errno = 0;
        long k = strtol(caret + 1, &end, 10);
        if (*end || end == caret + 1 || k < 0 || !isdigit((unsigned char)caret[1]))
            return 0;
        if (errno || k > 62)
            return -1;
        *out = (int64_t)1 << k;
        return 1;
    }
    char *end;
    errno = 0;
    int base = 10;
    const char *digits = buf[0] == '-' ? buf + 1 : buf;
    if (!isdigit((unsigned char)*digits))
        return 0;
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
        base = 16;
    long long v = strtoll(buf, &end, base);
    if (errno == ERANGE)
        return -1;
    int64_t mult = 1;
    if (*end) {
        if (end[1])
            return 0;
        switch (*end) {
        case 'k': case 'K': mult = 1024; break;
        case 'm': case 'M': mult = 1024 * 1024; break;
        case 'g': case 'G': mult = (int64_t)1024 * 1024 * 1024; break;
        case 't': case 'T': mult = (int64_t)1024 * 1024 * 1024 * 1024; break;
        default: return 0;
        }
    }
    if (v > INT64_MAX / mult || v < INT64_MIN / mult)
        return -1;
    *out = (int64_t)v * mult;
    return 1;
}

static int parse_choice(const cml_param_def *def, const char *s, size_t len, int64_t *out)
{
    for (size_t i = 0; def->choices[i]; i++) {
        if (strlen(def->choices[i]) == len && strncmp(def->choices[i], s, len) == 0) {
            *out = (int64_t)i;
            return 1;
        }
    }
    return 0;
}

static cml_status push(cml_param_list *out, int64_t v, const cml_param_def *def, char *err,
                       size_t errlen)
{
    if (out->count >= CML_MAX_VALUES) {
        if (err && errlen)
            snprintf(err, errlen, "--%s: too many values (at most %d)", def->name, CML_MAX_VALUES);
        return CML_EINVAL;
    }
    out->v[out->count++] = v;
    return CML_OK;
}

cml_status cml_param_parse(const cml_param_def *def, const char *text, cml_param_list *out,
                           char *err, size_t errlen)
{
    out->count = 0;
    out->given = 0;
    if (!text || !*text)
        return fail(err, errlen, def, "empty value", "", 0);
    const int64_t lo = def_min(def), hi = def_max(def);
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return fail(err, errlen, def, "empty item in", text, strlen(text));
        if (def->choices) {
            if (len == 3 && strncmp(p, "all", 3) == 0) {
                for (int64_t v = lo; v <= hi; v++)
                    if (push(out, v, def, err, errlen))
                        return CML_EINVAL;
            } else {
                int64_t v;
                if (!parse_choice(def, p, len, &v))
                    return fail(err, errlen, def, "unknown value", p, len);
                if (push(out, v, def, err, errlen))
                    return CML_EINVAL;
            }
        } else {
            /* a, a:b or a:b:step */
            const char *c1 = memchr(p, ':', len);
            int64_t a, b, step = 1;
            if (!c1) {
                int r = parse_int(p, len, &a);
                if (r < 0)
                    return fail(err, errlen, def, "out of range:", p, len);
                if (!r)
                    return fail(err, errlen, def, "not an integer:", p, len);
                b = a;
            } else {
                const char *c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - p));
                size_t blen = (size_t)((c2 ? c2 : p + len) - (c1 + 1));
                int ra = parse_int(p, (size_t)(c1 - p), &a), rb = parse_int(c1 + 1, blen, &b);
                if (ra < 0 || rb < 0)
                    return fail(err, errlen, def, "out of range:", p, len);
                if (!ra || !rb)
                    return fail(err, errlen, def, "bad range", p, len);
                if (c2 && parse_int(c2 + 1, (size_t)(p + len - (c2 + 1)), &step) != 1)
                    return fail(err, errlen, def, "bad range step", p, len);
                if (step <= 0 || b < a)
                    return fail(err, errlen, def, "empty or reversed range", p, len);
            }
            const int zero_ok = (def->flags & CML_PARAM_OR_ZERO) != 0;
            if ((a < lo && !(zero_ok && a == 0)) || b > hi)
                return fail(err, errlen, def, "out of range:", p, len);
            for (int64_t v = a;; v += step) {
                if (v < lo && !(zero_ok && v == 0)) {
                    char num[32];
                    snprintf(num, sizeof num, "%lld", (long long)v);
                    return fail(err, errlen, def, "out of range:", num, strlen(num));
                }
                if ((def->flags & CML_PARAM_POW2) && v != 0 && (v & (v - 1)) != 0) {
                    char num[32];
                    snprintf(num, sizeof num, "%lld", (long long)v);
                    return fail(err, errlen, def, "not a power of two:", num, strlen(num));
                }
                if (push(out, v, def, err, errlen))
                    return CML_EINVAL;
                if (v > b - step)
                    break;
            }
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return CML_OK;
}

cml_status cml_param_defaults(const cml_param_def *defs, size_t ndefs, cml_param_values *out,
                              char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (ndefs > CML_MAX_PARAMS) {
        if (err && errlen)
            snprintf(err, errlen, "too many parameters declared (%zu)", ndefs);
        return CML_EINVAL;
    }
    out->defs = defs;
    out->ndefs = ndefs;
    for (size_t i = 0; i < ndefs; i++) {
        cml_status st = cml_param_parse(&defs[i], defs[i].def, &out->list[i], err, errlen);
        if (st)
            return st;
    }
    return CML_OK;
}

int cml_param_index(const cml_param_values *pv, const char *name)
{
    for (size_t i = 0; i < pv->ndefs; i++)
        if (strcmp(pv->defs[i].name, name) == 0)
            return (int)i;
    return -1;
}

cml_status cml_param_set(cml_param_values *pv, const char *name, const char *text, char *err,
                         size_t errlen)
{
    int i = cml_param_index(pv, name);
    if (i < 0) {
        if (err && errlen)
            snprintf(err, errlen, "--%s: unknown option for this experiment", name);
        return CML_EINVAL;
    }
    cml_param_list list;
    cml_status st = cml_param_parse(&pv->defs[i], text, &list, err, errlen);
    if (st)
        return st;
    list.given = 1;
    pv->list[i] = list;
    return CML_OK;
}
