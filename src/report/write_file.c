/* Writing a report file safely: temporary name in the same folder, then
 * rename, so readers never see a partial file and a failure leaves none. */
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cml_status cml_report_write_file(const char *path, cml_report_fn writer, const cml_results *r,
                                 char *err, size_t errlen)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        return CML_ENOMEM;
    }
    snprintf(tmp, n + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return CML_EIO;
    }
    cml_status st = writer(f, r);
    int write_failed = ferror(f);
    int close_failed = fclose(f) != 0;
    if (st == CML_OK && (write_failed || close_failed)) {
        snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        st = CML_EIO;
    } else if (st != CML_OK) {
        snprintf(err, errlen, "%s: %s", path, cml_status_str(st));
    }
    if (st == CML_OK && rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot rename into place: %s", path, strerror(errno));
        st = CML_EIO;
    }
    if (st != CML_OK)
        remove(tmp);
    free(tmp);
    return st;
}
