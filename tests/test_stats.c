/* Summary statistics (core/stats.c): median of odd and even counts, min,
 * max, mean, standard deviation and cv of known data, one element, and the
 * promise that the input array is left as it was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "test_util.h"

static void test_odd(void)
{
    const double x[] = {5.0, 1.0, 4.0, 2.0, 3.0};
    double copy[5];
    memcpy(copy, x, sizeof x);
    cml_stats s;
    CHECK(cml_stats_compute(copy, 5, &s) == CML_OK);
    CHECK_EQ_U64(s.n, 5);
    CHECK_NEAR(s.median, 3.0, 0);
    CHECK_NEAR(s.min, 1.0, 0);
    CHECK_NEAR(s.max, 5.0, 0);
    CHECK_NEAR(s.mean, 3.0, 1e-15);
    /* sample variance of 1..5 is 2.5 */
    CHECK_NEAR(s.stddev, sqrt(2.5), 1e-12);
    CHECK_NEAR(s.cv, sqrt(2.5) / 3.0, 1e-12);
    /* unsorted input unchanged */
    CHECK(memcmp(copy, x, sizeof x) == 0);
}

static void test_even(void)
{
    double x[] = {10.0, 2.0, 8.0, 4.0};
    cml_stats s;
    CHECK(cml_stats_compute(x, 4, &s) == CML_OK);
    CHECK_NEAR(s.median, 6.0, 0); /* mean of 4 and 8 */
    CHECK_NEAR(s.min, 2.0, 0);
    CHECK_NEAR(s.max, 10.0, 0);
    CHECK_NEAR(s.mean, 6.0, 1e-15);
    CHECK_NEAR(x[0], 10.0, 0);
    CHECK_NEAR(x[1], 2.0, 0);
    CHECK_NEAR(cml_stats_median(x, 4), 6.0, 0);
}

static void test_known_cv(void)
{
    /* 2,4,4,4,5,5,7,9: mean 5, sum of squares 32, sample sd sqrt(32/7). */
    const double x[] = {9, 4, 2, 5, 4, 7, 4, 5};
    cml_stats s;
    CHECK(cml_stats_compute(x, 8, &s) == CML_OK);
    CHECK_NEAR(s.mean, 5.0, 1e-15);
    CHECK_NEAR(s.stddev, sqrt(32.0 / 7.0), 1e-12);
    CHECK_NEAR(s.cv, sqrt(32.0 / 7.0) / 5.0, 1e-12);
    CHECK_NEAR(s.median, 4.5, 0);
}

static void test_one_and_equal(void)
{
    const double one = 0.125;
    cml_stats s;
    CHECK(cml_stats_compute(&one, 1, &s) == CML_OK);
    CHECK_NEAR(s.median, 0.125, 0);
    CHECK_NEAR(s.min, 0.125, 0);
    CHECK_NEAR(s.max, 0.125, 0);
    CHECK_NEAR(s.stddev, 0.0, 0);
    CHECK_NEAR(s.cv, 0.0, 0);

    /* Identical timings: no spread, and no rounding drift in the mean. */
    double same[7];
    for (int i = 0; i < 7; i++)
        same[i] = 0.1;
    CHECK(cml_stats_compute(same, 7, &s) == CML_OK);
    CHECK_NEAR(s.cv, 0.0, 1e-15);
    CHECK(s.min <= s.median && s.median <= s.max);
}

static void test_errors(void)
{
    cml_stats s;
    double x[] = {1.0, NAN, 2.0};
    CHECK(cml_stats_compute(x, 0, &s) == CML_EINVAL);
    CHECK(cml_stats_compute(NULL, 3, &s) == CML_EINVAL);
    CHECK(cml_stats_compute(x, 3, &s) == CML_EINVAL); /* NaN refused */
    CHECK(isnan(cml_stats_median(x, 0)));
}

static void test_large_random(void)
{
    /* A permutation of 0..1000: median 500 whatever the order. */
    enum { N = 1001 };
    double *x = malloc(N * sizeof *x);
    CHECK(x != NULL);
    if (!x)
        return;
    for (int i = 0; i < N; i++)
        x[i] = (double)((i * 379) % N);
    cml_stats s;
    CHECK(cml_stats_compute(x, N, &s) == CML_OK);
    CHECK_NEAR(s.median, 500.0, 0);
    CHECK_NEAR(s.min, 0.0, 0);
    CHECK_NEAR(s.max, 1000.0, 0);
    CHECK_NEAR(x[1], 379.0, 0);
    free(x);
}

int main(void)
{
    test_odd();
    test_even();
    test_known_cv();
    test_one_and_equal();
    test_errors();
    test_large_random();
    return cml_test_summary("test_stats");
}
