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

/* The stopping rule: settled once n >= min_n and 1.96 * sqrt(pi/2) * cv
 * <= precision * sqrt(n). By hand, precision 0.5%: 2.4564 * cv / 0.005 =
 * 491.3 * cv, so sqrt(n) >= 0.98 at cv 0.2% (n >= 1: the minimum of 5
 * decides), >= 4.913 at cv 1% (n >= 24.1: 25), >= 9.826 at cv 2% (n >= 96.6:
 * 97). */
static size_t first_settled(double cv, size_t min_n)
{
    for (size_t n = 1; n <= 1000; n++) {
        cml_stats s = {.n = n, .median = 1.0, .mean = 1.0, .cv = cv};
        if (cml_stats_median_settled(&s, min_n, 0.005))
            return n;
    }
    return 0;
}

static void test_median_settled(void)
{
    CHECK_EQ_U64(first_settled(0.002, 5), 5);
    CHECK_EQ_U64(first_settled(0.01, 5), 25);
    CHECK_EQ_U64(first_settled(0.02, 5), 97);
    CHECK_EQ_U64(first_settled(0.0, 5), 5);   /* identical samples */
    CHECK_EQ_U64(first_settled(0.0, 1), 1);
    CHECK_EQ_U64(first_settled(0.0102, 5), 26); /* 491.3 * 0.0102 = 5.011: 25.1 */
    cml_stats s = {.n = 100, .median = 1.0, .mean = 1.0, .cv = 0.0};
    CHECK(!cml_stats_median_settled(&s, 5, 0.0));   /* no precision: never */
    CHECK(!cml_stats_median_settled(NULL, 5, 0.005));
    s.cv = NAN;
    CHECK(!cml_stats_median_settled(&s, 5, 0.005));
}

int main(void)
{
    test_median_settled();
    test_odd();
    test_even();
    test_known_cv();
    test_one_and_equal();
    test_errors();
    test_large_random();
    return cml_test_summary("test_stats");
}
