/* Writing a report file safely: temporary name in the same folder, then
 * rename, so readers never see a partial file and a failure leaves none. */
#include "report/report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* snprintf into err when the caller gave room for a message. */
static void set_err(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/*
 * Promise: on CML_OK, `path` holds exactly what `writer` wrote; on any
 * failure (cannot create, writer error, short write, close or rename error)
 * `path` is left as it was, the temporary file is removed, and err holds a
 * one-line reason naming the path.
 */
cml_status cml_report_write_file(const char *path, cml_report_fn writer, const cml_results *r,
                                 char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    if (!path || !path[0] || !writer) {
        set_err(err, errlen, "no output file name");
        return CML_EINVAL;
    }
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp) {
        set_err(err, errlen, "%s: out of memory", path);
        return CML_ENOMEM;
    }
    snprintf(tmp, n + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        set_err(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return CML_EIO;
    }
    errno = 0;
    cml_status st = writer(f, r);
    int saved = errno;
    int write_failed = fflush(f) != 0 || ferror(f);
    if (write_failed)
        saved = errno;
    int close_failed = fclose(f) != 0;
    if (close_failed && !write_failed)
        saved = errno;
    if (st != CML_OK) {
        if (st == CML_EIO && saved)
            set_err(err, errlen, "%s: %s: %s", path, cml_status_str(st), strerror(saved));
        else
            set_err(err, errlen, "%s: %s", path, cml_status_str(st));
    } else if (write_failed || close_failed) {
        set_err(err, errlen, "%s: write failed: %s", path,
                saved ? strerror(saved) : "unknown error");
        st = CML_EIO;
    } else if (rename(tmp, path) != 0) {
        set_err(err, errlen, "%s: cannot rename into place: %s", path, strerror(errno));
        st = CML_EIO;
    }
    if (st != CML_OK)
        remove(tmp);
    free(tmp);
    return st;
}
