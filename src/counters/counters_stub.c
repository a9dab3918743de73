/*
 * The counters layer of a build without CUPTI's headers (or with
 * -DCUMEMLAB_CUPTI=OFF): nothing can be read, and every entry point of
 * counters.h says so. counters.c is the build with CUPTI.
 */
#include "counters/counters.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if !defined(CML_HAVE_CUPTI)

/* Built without CUPTI's headers (or with -DCUMEMLAB_CUPTI=OFF): nothing can
 * be read, and every entry point says so. */
struct cml_counters {
    char err[64];
};

#define STUB_WHY                                                                          \
    "built without CUPTI (not found when cumemlab was configured, or -DCUMEMLAB_CUPTI=OFF)"

int cml_counters_built(void)
{
    return 0;
}

cml_status cml_counters_open(int device, cml_counters **out, char *why, size_t whylen)
{
    (void)device;
    if (out)
        *out = NULL;
    if (!out || !why || whylen == 0)
        return CML_EINVAL;
    snprintf(why, whylen, "%s", STUB_WHY);
    return CML_EUNSUPPORTED;
}

void cml_counters_close(cml_counters *c)
{
    (void)c;
}

cml_status cml_counters_measure(cml_counters *c, cml_launch_fn launch, void *ctx,
                                const char *const *metrics, size_t n, double *values)
{
    return cml_counters_measure_batch(c, 1, &launch, &ctx, metrics, n, values, NULL);
}

cml_status cml_counters_measure_batch(cml_counters *c, size_t k, const cml_launch_fn *launch,
                                      void *const *ctx, const char *const *metrics, size_t n,
                                      double *values, size_t *failed)
{
    (void)c;
    (void)launch;
    (void)ctx;
    (void)metrics;
    if (failed)
        *failed = SIZE_MAX;
    for (size_t i = 0; values && i < k * n; i++)
        values[i] = NAN;
    return CML_EUNSUPPORTED;
}

int cml_counters_metric_ok(cml_counters *c, const char *metric, char *why, size_t whylen)
{
    (void)c;
    (void)metric;
    if (why && whylen)
        snprintf(why, whylen, "%s", STUB_WHY);
    return 0;
}

const char *cml_counters_chip(const cml_counters *c)
{
    (void)c;
    return "";
}

void cml_counters_keep_enabled(cml_counters *c, int keep)
{
    (void)c;
    (void)keep;
}

void cml_counters_detach(cml_counters *c)
{
    (void)c;
}

double cml_counters_seconds(const cml_counters *c)
{
    (void)c;
    return 0.0;
}

void cml_counters_timing(const cml_counters *c, char *buf, size_t len)
{
    (void)c;
    if (buf && len)
        snprintf(buf, len, "%s", STUB_WHY);
}

const char *cml_counters_error(const cml_counters *c)
{
    return c ? c->err : "";
}

size_t cml_counters_passes(const cml_counters *c)
{
    (void)c;
    return 0;
}

uint64_t cml_counters_flush_bytes(const cml_counters *c)
{
    (void)c;
    return 0;
}

cml_status cml_counters_dram_background(cml_counters *c, const double *ms, size_t n,
                                        size_t streams, cml_dram_background *out)
{
    (void)ms;
    (void)n;
    (void)streams;
    if (out)
        memset(out, 0, sizeof *out);
    /* No profiler opens in this build, so there is none to ask. */
    return c ? CML_EUNSUPPORTED : CML_EINVAL;
}

#endif /* !CML_HAVE_CUPTI */
