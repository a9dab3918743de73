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

const char *cml_dram_background_check(const cml_dram_background *b, char *what, size_t len)
{
    if (!b)
        return NULL;
    if (b->n > CML_DRAM_BACKGROUND_MAX) {
        snprintf(what, len, "controls (%zu, at most %d)", b->n, CML_DRAM_BACKGROUND_MAX);
        return what;
    }
    for (size_t i = 0; i < b->n; i++) {
        const char *bad = !(b->ms[i] > 0 && b->ms[i] <= CML_DRAM_BACKGROUND_MAX_MS) ? "ms"
                          : !(isfinite(b->read_bytes[i]) && b->read_bytes[i] >= 0) ? "read_bytes"
                          : !(isfinite(b->write_bytes[i]) && b->write_bytes[i] >= 0)
                              ? "write_bytes"
                              : NULL;
        if (bad) {
            snprintf(what, len, "controls[%zu].%s", i, bad);
            return what;
        }
    }
    return NULL;
}
