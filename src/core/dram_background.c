/* The DRAM background control (dram_background.h). */
#include "core/dram_background.h"

#include <math.h>
#include <stdio.h>

double cml_dram_background_rate(const cml_dram_background *b, int write)
{
    double rate = 0;
    for (size_t i = 0; b && i < b->n && i < CML_DRAM_BACKGROUND_MAX; i++) {
        const double beyond = (write ? b->write_bytes[i] : b->read_bytes[i]) -
                              CML_DRAM_BACKGROUND_FIXED_BYTES;
        if (b->ms[i] > 0 && isfinite(beyond) && beyond / b->ms[i] > rate)
            rate = beyond / b->ms[i];
    }
    return rate;
}

double cml_dram_background_bytes(const cml_dram_background *b, int write, double ms)
{
    if (!(ms > 0) || !isfinite(ms))
        return 0;
    return cml_dram_background_rate(b, write) * ms;
}

double cml_dram_background_dirty(const cml_dram_background *b)
{
    const double rate = cml_dram_background_rate(b, 1);
    double dirty = 0;
    for (size_t i = 0; b && i < b->stream_n && i < CML_DRAM_BACKGROUND_MAX; i++) {
        double beyond = b->stream_write_bytes[i] - rate * b->stream_ms[i];
        /* A whole unit of the background caught by the control is the
         * fixed part's, which every floor holds already. */
        if (beyond >= CML_DRAM_BACKGROUND_FIXED_BYTES)
            beyond -= CML_DRAM_BACKGROUND_FIXED_BYTES;
        if (b->stream_ms[i] > 0 && isfinite(beyond) && beyond > dirty)
            dirty = beyond;
    }
    return dirty;
}

/* The first bad value of one list of n controls, named into what. */
static const char *check_list(const char *list, size_t n, const double *ms, const double *rd,
                              const double *wr, char *what, size_t len)
{
    if (n > CML_DRAM_BACKGROUND_MAX) {
        snprintf(what, len, "%s (%zu, at most %d)", list, n, CML_DRAM_BACKGROUND_MAX);
        return what;
    }
    for (size_t i = 0; i < n; i++) {
        const char *bad = !(ms[i] > 0 && ms[i] <= CML_DRAM_BACKGROUND_MAX_MS) ? "ms"
                          : !(isfinite(rd[i]) && rd[i] >= 0)                  ? "read_bytes"
                          : !(isfinite(wr[i]) && wr[i] >= 0)                  ? "write_bytes"
                                                                              : NULL;
        if (bad) {
            snprintf(what, len, "%s[%zu].%s", list, i, bad);
            return what;
        }
    }
    return NULL;
}

const char *cml_dram_background_check(const cml_dram_background *b, char *what, size_t len)
{
    if (!b)
        return NULL;
    const char *bad = check_list("controls", b->n, b->ms, b->read_bytes, b->write_bytes, what, len);
    return bad ? bad
               : check_list("stream_controls", b->stream_n, b->stream_ms, b->stream_read_bytes,
                            b->stream_write_bytes, what, len);
}
