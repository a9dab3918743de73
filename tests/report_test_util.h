/*
 * A reporter's output in memory, for the tests of the reporters and the
 * reader (test_report.c, test_json_read.c, test_json_stream.c,
 * test_report_mutations.c). The including file defines _POSIX_C_SOURCE
 * (open_memstream) before its first include.
 */
#ifndef CML_REPORT_TEST_UTIL_H
#define CML_REPORT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"

/* fn(r) into a malloc'd, NUL-terminated buffer (the caller frees it); its
 * length into *len and the reporter's status into *st, each when not NULL.
 * Without memory for the stream the test cannot go on: exit 2. */
static inline char *render_to_memory(cml_report_fn fn, const cml_results *r, size_t *len,
                                     cml_status *st)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) {
        perror("open_memstream");
        exit(2);
    }
    cml_status s = fn(f, r);
    if (fclose(f) != 0 && s == CML_OK)
        s = CML_EIO;
    if (len)
        *len = n;
    if (st)
        *st = s;
    return buf;
}

#endif
