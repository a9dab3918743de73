/*
 * Axes: the range of a linear value axis (chart_range.h), and the ticks at
 * nice numbers and their labels that every axis uses (svg_chart.h).
 */
#include "report/chart_range.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Ticks and formatting                                               */
/* ------------------------------------------------------------------ */

size_t cml_nice_ticks(double lo, double hi, size_t max_ticks, double *ticks, double *step)
{
    *step = 0;
    if (!isfinite(lo) || !isfinite(hi) || max_ticks == 0)
        return 0;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (lo == hi || max_ticks < 2) {
        ticks[0] = lo;
        return 1;
    }
    /* Every quantity below is kept finite for any finite lo and hi: the
     * span is taken as hi/k - lo/k (hi - lo overflows for +-1e308), a step
     * that overflows or underflows is not a step, and the tick count is
     * checked before it becomes a size (NaN or 1e300 cast to size_t is
     * undefined, and was a write past ticks[]). */
    const double k = (double)(max_ticks - 1);
    double rough = hi / k - lo / k;
    if (rough > 0 && isfinite(rough)) {
        double mag = pow(10.0, floor(log10(rough)));
        static const double mult[] = {1, 2, 5, 10, 20, 50, 100};
        for (size_t m = 0; m < sizeof mult / sizeof mult[0]; m++) {
            double s = mult[m] * mag;
            if (!(s > 0) || !isfinite(s) || s < rough * (1 - 1e-12))
                continue;
            double first = floor(lo / s + 1e-9) * s;
            double last = ceil(hi / s - 1e-9) * s;
            double count = floor((last / s - first / s) + 0.5) + 1;
            if (!isfinite(first) || !isfinite(last) || !(count >= 2) ||
                count > (double)max_ticks)
                continue;
            size_t n = (size_t)count;
            for (size_t i = 0; i < n; i++) {
                double t = first + (double)i * s;
                if (fabs(t) < s * 1e-9)
                    t = 0; /* -0 and 1e-17 print as 0 */
                ticks[i] = t;
            }
            *step = s;
            return n;
        }
    }
    /* A span too small to divide (subnormal) or too large for nice steps:
     * the two ends alone. */
    ticks[0] = lo;
    ticks[1] = hi;
    *step = isfinite(hi - lo) ? hi - lo : DBL_MAX;
    return 2;
}

size_t cml_log_ticks(double lo, double hi, double base, size_t max_ticks, double *ticks)
{
    if (!(lo > 0) || !(hi > 0) || !isfinite(lo) || !isfinite(hi) || max_ticks == 0 ||
        !(base > 1))
        return 0;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    double lb = log(base);
    /* The small tolerance keeps exact powers (log2(1024) = 10) on their tick. */
    long e0 = (long)floor(log(lo) / lb + 1e-9);
    long e1 = (long)ceil(log(hi) / lb - 1e-9);
    /* base^e must stay a finite positive number (5e-324 is 2^-1074; with
     * the tolerance above its tick would round to 0, whose log is -inf). */
    while (pow(base, (double)e0) <= 0)
        e0++;
    while (!isfinite(pow(base, (double)e1)))
        e1--;
    if (e1 <= e0) {
        if (isfinite(pow(base, (double)(e0 + 1))))
            e1 = e0 + 1;
        else
            e0 = e1 - 1;
    }
    long span = e1 - e0;
    long k = 1;
    if (max_ticks > 1)
        k = (span + (long)max_ticks - 2) / ((long)max_ticks - 1);
    if (k < 1)
        k = 1;
    size_t n = 0;
    for (long e = e0; n < max_ticks; e += k) {
        if (e > e1 && !isfinite(pow(base, (double)e)))
            e = e1; /* a step past the largest finite power stops at it */
        ticks[n++] = pow(base, (double)e);
        if (e >= e1)
            break;
    }
    return n;
}

/* Decimals that show a step of `step` exactly (steps are 1, 2, 5 x 10^k). */
static int decimals_for(double step)
{
    if (!(step > 0) || step >= 1)
        return 0;
    int d = (int)ceil(-log10(step) - 1e-9);
    return d > 9 ? 9 : d;
}

void cml_fmt_tick(char *buf, size_t len, double v, double step, cml_tick_format fmt)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return;
    }
    if (fmt == CML_FMT_BYTES) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double a = fabs(v);
        int u = 0;
        while (a >= 1024 && u < 5) {
            a /= 1024;
            u++;
        }
        double scaled = v / pow(1024.0, u);
        snprintf(buf, len, "%.3g %s", scaled, units[u]);
        return;
    }
    const char *suffix = fmt == CML_FMT_PERCENT ? "%" : "";
    if (step > 0) {
        /* An axis: one scale for all its ticks, chosen from the step. */
        double scale = 1;
        const char *si = "";
        if (fmt == CML_FMT_NUMBER || fmt == CML_FMT_WHOLE) {
            if (step >= 1e12) { scale = 1e12; si = "T"; }
            else if (step >= 1e9) { scale = 1e9; si = "G"; }
            else if (step >= 1e6) { scale = 1e6; si = "M"; }
            else if (step >= 1e3 && fabs(v) >= 1e4) { scale = 1e3; si = "k"; }
        }
        double sv = v / scale;
        if (v == 0)
            snprintf(buf, len, "0%s", suffix);
        else
            snprintf(buf, len, "%.*f%s%s", decimals_for(step / scale), sv, si, suffix);
        return;
    }
    /* A single value (a tooltip or a log tick): four significant digits. */
    double a = fabs(v);
    if ((fmt == CML_FMT_NUMBER || fmt == CML_FMT_WHOLE) && a >= 1e4) {
        static const struct { double s; const char *n; } si[] = {
            {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
        for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
            if (a >= si[i].s) {
                snprintf(buf, len, "%.4g%s", v / si[i].s, si[i].n);
                return;
            }
    }
    snprintf(buf, len, "%.4g%s", v, suffix);
}


/* Ticks at nice numbers over [lo, hi]; the axis from the first to the last. */
static void ticks_over(double lo, double hi, size_t max_ticks, cml_axis_range *out)
{
    out->nticks = cml_nice_ticks(lo, hi, max_ticks, out->ticks, &out->step);
    if (out->nticks >= 2) {
        out->lo = out->ticks[0];
        out->hi = out->ticks[out->nticks - 1];
    } else {
        out->lo = lo;
        out->hi = hi;
    }
}

void cml_axis_range_choose(double lo, double hi, int from_zero, int zoom, size_t max_ticks,
                           cml_axis_range *out)
{
    memset(out, 0, sizeof *out);
    if (max_ticks > CML_CHART_MAX_TICKS)
        max_ticks = CML_CHART_MAX_TICKS;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (from_zero && zoom && lo > 0 && hi - lo <= CML_AXIS_ZOOM_SPREAD * hi) {
        double start = hi > lo ? lo - 0.25 * (hi - lo) : lo * 0.95;
        double end = hi > lo ? hi : hi * 1.05;
        ticks_over(start, end, max_ticks, out);
        if (out->nticks >= 2 && out->lo > 0) {
            out->broken = 1;
            return;
        }
        memset(out, 0, sizeof *out);
    }
    if (from_zero) {
        if (lo > 0)
            lo = 0;
        if (hi < 0)
            hi = 0;
    }
    if (lo == hi) {
        double pad = lo != 0 ? fabs(lo) * 0.5 : 1.0;
        lo -= pad;
        hi += pad;
        if (from_zero && lo < 0 && hi - pad >= 0)
            lo = 0;
    }
    ticks_over(lo, hi, max_ticks, out);
}

void cml_axis_range_whole(double lo, double hi, size_t max_ticks, cml_axis_range *out)
{
    memset(out, 0, sizeof *out);
    if (max_ticks > CML_CHART_MAX_TICKS)
        max_ticks = CML_CHART_MAX_TICKS;
    if (max_ticks < 2)
        max_ticks = 2;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    /* Whole numbers far beyond any category (1e300, say) are no categories:
     * such data gets the ordinary axis. */
    if (!isfinite(lo) || !isfinite(hi) || fabs(lo) > 1e15 || fabs(hi) > 1e15) {
        cml_axis_range_choose(isfinite(lo) ? lo : 0, isfinite(hi) ? hi : 0, 0, 0, max_ticks,
                              out);
        return;
    }
    double a = floor(lo), b = ceil(hi);
    if (b <= a)
        b = a + 1;
    /* every k-th whole number, k the smallest that fits */
    double k = ceil((b - a) / (double)(max_ticks - 1));
    if (k < 1)
        k = 1;
    b = a + k * ceil((b - a) / k);
    size_t n = (size_t)((b - a) / k) + 1;
    for (size_t i = 0; i < n && i < max_ticks; i++)
        out->ticks[i] = a + (double)i * k;
    out->nticks = n < max_ticks ? n : max_ticks;
    out->lo = a;
    out->hi = out->ticks[out->nticks - 1];
    out->step = k;
}
