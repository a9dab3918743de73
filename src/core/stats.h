/*
 * Summary statistics of a small array of samples (timings, mostly): median,
 * minimum, maximum, mean, standard deviation and coefficient of variation.
 * Pure C; the input array is never modified (a sorted copy is used).
 */
#ifndef CML_STATS_H
#define CML_STATS_H

#include <stddef.h>

#include "cumemlab/model.h"

typedef struct cml_stats {
    size_t n;
    double median;  /* middle value; mean of the two middle values for even n */
    double min, max;
    double mean;
    double stddev;  /* sample standard deviation (n - 1); 0 for n == 1 */
    double cv;      /* stddev / mean; 0 when the mean is 0 */
} cml_stats;

/*
 * Summarise x[0..n-1]. CML_EINVAL for n == 0, a NULL pointer or a value that
 * is not finite (a NaN would make the median meaningless); CML_ENOMEM if the
 * sorted copy cannot be allocated. x is left unchanged.
 */
cml_status cml_stats_compute(const double *x, size_t n, cml_stats *out);

/*
 * The stopping rule of timed samples: whether `s` (n samples) pins its
 * median to within `precision` (a fraction: 0.005 is 0.5%) at 95%
 * confidence. The half-width of the median's 95% interval is estimated as
 * 1.96 * sqrt(pi/2) * cv / sqrt(n) of the median (the median's standard
 * error is sqrt(pi/2) times the mean's for samples near normal); the rule
 * holds once n >= min_n and that half-width is at most `precision`. A cv of
 * 0.2% settles at 5 samples, 1% at 25, 2% at 97 (README.md, "How it
 * measures").
 */
int cml_stats_median_settled(const cml_stats *s, size_t min_n, double precision);

/* Median of x[0..n-1] (x unchanged); NAN when n == 0 or on out of memory. */
double cml_stats_median(const double *x, size_t n);

/* Bandwidth in GB/s (1e9 bytes per second) of `bytes` moved in `ms`
 * milliseconds: the one place the tree turns bytes and time into GB/s.
 * 0 when ms is not positive (nothing was timed). */
double cml_gbs(double bytes, double ms);

/* Forward declaration: struct cml_timing lives in core/record.h. */
struct cml_timing;
/* The timing summary of samples ms[0..n-1] (milliseconds), after `warmup`
 * untimed runs: median, min, max, mean, cv. CML_EINVAL as cml_stats_compute. */
cml_status cml_timing_from_samples(const double *ms, size_t n, unsigned warmup,
                                   struct cml_timing *out);

#endif
