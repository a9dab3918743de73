/*
 * Summary statistics. The sample counts are small (tens to a few thousand
 * timings), so sorting a copy is simpler and as fast as quickselect, gives
 * min, max and median at once, and leaves the caller's order untouched.
 */
#include "core/stats.h"

#include "core/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

cml_status cml_stats_compute(const double *x, size_t n, cml_stats *out)
{
    if (!x || !out || n == 0)
        return CML_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return CML_EINVAL;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return CML_ENOMEM;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);

    memset(out, 0, sizeof *out);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);

    /* Two passes (mean, then squared deviations): stable for timings whose
     * spread is tiny next to their mean, where the one-pass formula cancels. */
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    out->mean = sum / (double)n;
    if (n > 1) {
        double ss = 0.0;
        for (size_t i = 0; i < n; i++) {
            double d = s[i] - out->mean;
            ss += d * d;
        }
        out->stddev = sqrt(ss / (double)(n - 1));
    }
    out->cv = out->mean != 0.0 ? out->stddev / fabs(out->mean) : 0.0;
    free(s);
    return CML_OK;
}

double cml_stats_median(const double *x, size_t n)
{
    cml_stats st;
    if (cml_stats_compute(x, n, &st) != CML_OK)
        return NAN;
    return st.median;
}

double cml_gbs(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
}

cml_status cml_timing_from_samples(const double *ms, size_t n, unsigned warmup,
                                   struct cml_timing *out)
{
    cml_stats s;
    cml_status st = cml_stats_compute(ms, n, &s);
    if (st != CML_OK)
        return st;
    out->warmup = warmup;
    out->reps = (unsigned)n;
    out->median_ms = s.median;
    out->min_ms = s.min;
    out->max_ms = s.max;
    out->mean_ms = s.mean;
    out->cv = s.cv;
    return CML_OK;
}

int cml_stats_median_settled(const cml_stats *s, size_t min_n, double precision)
{
    if (!s || s->n == 0 || s->n < min_n || !(precision > 0) || !isfinite(s->cv))
        return 0;
    /* 1.96 * sqrt(pi / 2): the 95% half-width of a median in standard
     * deviations of one sample, times sqrt(n) */
    const double k = 1.96 * 1.2533141373155001;
    return k * s->cv <= precision * sqrt((double)s->n);
}
