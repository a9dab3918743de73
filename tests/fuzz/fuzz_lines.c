/*
 * libFuzzer target for a cubin's line table (src/trace/trace_lines.c).
 * Besides the sanitizers' own checks, it aborts when an invariant breaks:
 * an error is one NUL-terminated line; what parses has every row's
 * function and file in range, rows sorted by function then pc, and every
 * lookup of a row's own pc finds a row of that function at or before it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    cml_tf_lines l;
    char err[300];
    if (cml_tf_lines_parse(copy, size, &l, err, sizeof err) != 0) {
        if (!memchr(err, 0, sizeof err) || strchr(err, '\n'))
            abort();
        free(copy);
        return 0;
    }
    for (size_t i = 0; i < l.nrows; i++) {
        const cml_tf_line *r = &l.rows[i];
        if (r->func >= l.nfuncs || r->file >= l.nfiles)
            abort();
        if (i && (r->func < l.rows[i - 1].func ||
                  (r->func == l.rows[i - 1].func && r->pc < l.rows[i - 1].pc)))
            abort();
        const cml_tf_line *f = cml_tf_lines_find(&l, l.funcs[r->func], r->pc);
        if (f && (f->func != r->func || f->pc > r->pc))
            abort();
    }
    cml_tf_lines_free(&l);
    free(copy);
    return 0;
}
