/*
 * The results file's "dram_background" (docs/json-schema.md): validate's
 * launches that keep L2 busy with no DRAM access of their own, the
 * control of the DRAM noise floor (core/dram_background.h). Untrusted
 * like the rest of the file: each control is an object of three numbers, ms within (0, 60000] and bytes
 * finite and >= 0, at most CML_DRAM_BACKGROUND_MAX of them; anything else
 * is one line naming the member. The rates beside them are what a writer
 * derived and are recomputed, not trusted.
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

static int number(const cml_jval *o, size_t i, const char *key, double *out, char *err,
                  size_t errlen)
{
    const cml_jval *v = cml_jobject_get(o, key);
    if (!v)
        return fail(o, err, errlen, "dram_background.controls[%zu]: missing member \"%s\"", i,
                    key);
    if (v->type != CML_J_NUMBER || !cml_jval_double(v, out))
        return fail(v, err, errlen, "dram_background.controls[%zu].%s: expected a number", i,
                    key);
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
    if (c->type != CML_J_ARRAY)
        return fail(c, err, errlen, "dram_background.controls: expected an array");
    if (c->count > CML_DRAM_BACKGROUND_MAX)
        return fail(c, err, errlen, "dram_background.controls: %zu controls, at most %d",
                    c->count, CML_DRAM_BACKGROUND_MAX);
    for (size_t i = 0; i < c->count; i++) {
        const cml_jval *o = &c->items[i];
        if (o->type != CML_J_OBJECT)
            return fail(o, err, errlen, "dram_background.controls[%zu]: expected an object",
                        i);
        if (!number(o, i, "ms", &b.ms[i], err, errlen) ||
            !number(o, i, "read_bytes", &b.read_bytes[i], err, errlen) ||
            !number(o, i, "write_bytes", &b.write_bytes[i], err, errlen))
            return 0;
        b.n = i + 1;
        char what[64];
        if (cml_dram_background_check(&b, what, sizeof what))
            return fail(o, err, errlen,
                        "dram_background.%s: out of range (ms in (0, %.0f], bytes finite and "
                        ">= 0)",
                        what, CML_DRAM_BACKGROUND_MAX_MS);
    }
    r->background = b;
    return 1;
}
