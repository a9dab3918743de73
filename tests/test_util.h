/*
 * A tiny test harness: CHECK-style assertions that print file:line and the
 * values, count failures, and a main-side summary. Each test file is one
 * executable; it exits 1 on any failure.
 */
#ifndef CML_TEST_UTIL_H
#define CML_TEST_UTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int cml_test_failures;
static int cml_test_checks;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        cml_test_checks++;                                                             \
        if (!(cond)) {                                                                 \
            cml_test_failures++;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                             \
    do {                                                                               \
        uint64_t cml_a_ = (uint64_t)(a), cml_b_ = (uint64_t)(b);                       \
        cml_test_checks++;                                                             \
        if (cml_a_ != cml_b_) {                                                        \
            cml_test_failures++;                                                       \
            fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n",  \
                    __FILE__, __LINE__, #a, cml_a_, #b, cml_b_);                       \
        }                                                                              \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                             \
    do {                                                                               \
        int64_t cml_a_ = (int64_t)(a), cml_b_ = (int64_t)(b);                          \
        cml_test_checks++;                                                             \
        if (cml_a_ != cml_b_) {                                                        \
            cml_test_failures++;                                                       \
            fprintf(stderr, "%s:%d: %s == %" PRId64 ", expected %s == %" PRId64 "\n",  \
                    __FILE__, __LINE__, #a, cml_a_, #b, cml_b_);                       \
        }                                                                              \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                          \
    do {                                                                               \
        double cml_a_ = (double)(a), cml_b_ = (double)(b);                             \
        cml_test_checks++;                                                             \
        if (!(fabs(cml_a_ - cml_b_) <= (tol))) {                                       \
            cml_test_failures++;                                                       \
            fprintf(stderr, "%s:%d: %s == %.9g, expected %.9g (tol %g)\n", __FILE__,   \
                    __LINE__, #a, cml_a_, cml_b_, (double)(tol));                      \
        }                                                                              \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                \
    do {                                                                               \
        cml_test_checks++;                                                             \
        if (strstr((hay), (needle)) == NULL) {                                         \
            cml_test_failures++;                                                       \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,       \
                    __LINE__, (hay), (needle));                                        \
        }                                                                              \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                             \
    do {                                                                               \
        cml_test_checks++;                                                             \
        if (strcmp((a), (b)) != 0) {                                                   \
            cml_test_failures++;                                                       \
            fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, (a), (b));   \
        }                                                                              \
    } while (0)

/*
 * FOUND(p): one check that p, what a lookup returned, is not NULL; it
 * prints file:line and the expression when it is. It returns whether p is
 * there, to guard the checks that read it:
 *
 *     const cml_record *rec = find(&r, "...");
 *     if (FOUND(rec)) { CHECK_EQ_U64(...rec...); }
 *
 * so that a lookup that comes back empty fails the test instead of
 * skipping the checks beneath it.
 */
#define FOUND(p) cml_test_found((p) != NULL, #p, __FILE__, __LINE__)

static inline int cml_test_found(int found, const char *what, const char *file, int line)
{
    cml_test_checks++;
    if (!found) {
        cml_test_failures++;
        fprintf(stderr, "%s:%d: %s not found: the checks on it did not run\n", file, line, what);
    }
    return found;
}

/* Call at the end of main: prints a summary, returns the exit status. */
static inline int cml_test_summary(const char *name)
{
    if (cml_test_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, cml_test_failures, cml_test_checks);
        return 1;
    }
    printf("%s: %d checks passed\n", name, cml_test_checks);
    return 0;
}

#endif
