/*
 * The results file's "dram_background" (docs/json-schema.md): validate's
 * launches that keep L2 busy with no DRAM access of their own, the
 * control of the DRAM noise floor, and its stream controls when measured
 * (core/dram_background.h). Untrusted like the rest of the file: each
 * control is an object of three numbers, ms within (0, 60000] and bytes
 * finite and >= 0, at most CML_DRAM_BACKGROUND_MAX in each list; anything
 * else is one line naming the member. The rates and the dirty bytes beside
 * them are what a writer derived and are recomputed, not trusted.
 */
#include "report/json_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/dram_background.h"

static int fail(const cml_jval *v, char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(const cml_jval *v, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_jtext_vlocate(v->line, v->col, v->offset, err, errlen, fmt, ap);
    va_end(ap);
    return 0;
}

static int number(const cml_jval *o, const char *list, size_t i, const char *key, double *out,
                  char *err, size_t errlen)
{
    const cml_jval *v = cml_jobject_get(o, key);
    if (!v)
        return fail(o, err, errlen, "dram_background.%s[%zu]: missing member \"%s\"", list, i,
                    key);
    if (v->type != CML_J_NUMBER || !cml_jval_double(v, out))
        return fail(v, err, errlen, "dram_background.%s[%zu].%s: expected a number", list, i,
                    key);
    return 1;
}

/* One list of controls (`list` of v, an array of at most
 * CML_DRAM_BACKGROUND_MAX objects of three numbers) into ms, rd, wr and *n,
 * each checked as it is read against the whole of b. */
static int controls(const cml_jval *c, const char *list, cml_dram_background *b, size_t *n,
                    double *ms, double *rd, double *wr, char *err, size_t errlen)
{
    if (c->type != CML_J_ARRAY)
        return fail(c, err, errlen, "dram_background.%s: expected an array", list);
    if (c->count > CML_DRAM_BACKGROUND_MAX)
        return fail(c, err, errlen, "dram_background.%s: %zu controls, at most %d", list,
                    c->count, CML_DRAM_BACKGROUND_MAX);
    for (size_t i = 0; i < c->count; i++) {
        const cml_jval *o = &c->items[i];
        if (o->type != CML_J_OBJECT)
            return fail(o, err, errlen, "dram_background.%s[%zu]: expected an object", list, i);
        if (!number(o, list, i, "ms", &ms[i], err, errlen) ||
            !number(o, list, i, "read_bytes", &rd[i], err, errlen) ||
            !number(o, list, i, "write_bytes", &wr[i], err, errlen))
            return 0;
        *n = i + 1;
        char what[64];
        if (cml_dram_background_check(b, what, sizeof what))
            return fail(o, err, errlen,
                        "dram_background.%s: out of range (ms in (0, %.0f], bytes finite and "
                        ">= 0)",
                        what, CML_DRAM_BACKGROUND_MAX_MS);
    }
    return 1;
}

int cml_jread_background(const cml_jval *v, cml_results *r, char *err, size_t errlen)
{
    cml_dram_background b;
    memset(&b, 0, sizeof b);
    if (v->type == CML_J_NULL) {
        r->background = b;
        return 1;
    }
    if (v->type != CML_J_OBJECT)
        return fail(v, err, errlen, "dram_background: expected an object or null");
    const cml_jval *c = cml_jobject_get(v, "controls");
    if (!c)
        return fail(v, err, errlen, "dram_background: missing member \"controls\"");
    if (!controls(c, "controls", &b, &b.n, b.ms, b.read_bytes, b.write_bytes, err, errlen))
        return 0;
    /* Absent in files written before validate measured it. */
    const cml_jval *s = cml_jobject_get(v, "stream_controls");
    if (s && !controls(s, "stream_controls", &b, &b.stream_n, b.stream_ms, b.stream_read_bytes,
                       b.stream_write_bytes, err, errlen))
        return 0;
    r->background = b;
    return 1;
}
