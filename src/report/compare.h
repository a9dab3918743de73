/*
 * Two runs compared record by record (`cumemlab report A.json B.json`).
 *
 * Records are matched by experiment and variant (the n-th record of a name
 * in A with the n-th of that name in B); a record with no match is "only
 * in A" or "only in B". For each matched pair: both measurements and the
 * ratios B / A of bandwidth and of median time, the hardware counters whose
 * measured values differ (or that one run lacks), and the model's figures
 * where they differ. The two runs are labelled by their device names when
 * those differ, else by their file names (else by their paths, else "A"
 * and "B"). Renderers: the terminal (a compact line per experiment and the
 * records found in one run only), JSON (schema "cumemlab-comparison",
 * docs/json-schema.md), CSV (a row per record) and HTML (both runs on the
 * same charts, the comparison tables, each run's summary).
 */
#ifndef CML_REPORT_COMPARE_H
#define CML_REPORT_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/record.h"

/* One record of A, of B, or both. */
typedef struct cml_cmp_pair {
    const cml_record *a, *b;        /* NULL: not in that run */
    double bw_a, bw_b, bw_ratio;    /* measured GB/s; B / A; NAN where not known */
    double ms_a, ms_b, time_ratio;  /* median ms; B / A; NAN where not known */
    size_t counters_differ;         /* counters whose measured values differ or that
                                       one of the two lacks (0 unless both are there) */
    int model_differs;              /* the model's figures differ (or one has none) */
} cml_cmp_pair;

/* One experiment's pairs and what they add up to. */
typedef struct cml_cmp_experiment {
    const char *key;
    size_t first, n;                /* its pairs: pairs[first .. first + n) */
    size_t both, only_a, only_b;
    /* B / A over the pairs that have it: the geometric mean, the lowest
     * and the highest (NAN and NULL when no pair has it) */
    double bw_mean, bw_min, bw_max;
    const cml_cmp_pair *bw_min_pair, *bw_max_pair;
    char bw_min_name[96], bw_max_name[96]; /* their parameters that vary in the
                                              experiment: "offset=11 ca" */
    size_t bw_n;
    double time_mean;
    size_t time_n;
    size_t counters_differ, model_differ; /* pairs with a difference */
} cml_cmp_experiment;

typedef struct cml_comparison {
    const cml_results *run[2];      /* A, B */
    char label[2][160];             /* how the reports name each run */
    char file[2][512];              /* the files they were read from, as given */
    cml_cmp_pair *pairs;            /* grouped by experiment, in order of first
                                       appearance (A's, then B's); within one, A's
                                       records in A's order, then B's others */
    size_t npairs;
    cml_cmp_experiment *exps;
    size_t nexps;
} cml_comparison;

/* Compare b with a (both must outlive c). path_a and path_b name the files
 * (for the labels; NULL or "" when not from a file). CML_ENOMEM when out of
 * memory (c is then empty and may be freed). */
cml_status cml_compare_build(cml_comparison *c, const cml_results *a, const char *path_a,
                             const cml_results *b, const char *path_b);
void cml_compare_free(cml_comparison *c);

/* A counter of a pair whose measured values differ, or that one run lacks. */
typedef struct cml_cmp_counter {
    const char *name;
    double a, b;                    /* NAN: not in that run */
} cml_cmp_counter;

/* The pair's differing counters, in A's order then B's others: up to max of
 * them into out; returns how many there are. */
size_t cml_cmp_counter_diffs(const cml_cmp_pair *p, cml_cmp_counter *out, size_t max);

/* A figure of the model that differs between the two records of a pair. */
typedef struct cml_cmp_model_diff {
    int rules, cls;                 /* CML_RULES_*, CML_CLASS_* */
    const char *field;              /* "sectors", as in the JSON */
    uint64_t a, b;
} cml_cmp_model_diff;

/* The pair's differing model figures (none when a record has no model:
 * model_differs alone says so), up to max of them into out; returns how
 * many there are. */
size_t cml_cmp_model_diffs(const cml_cmp_pair *p, cml_cmp_model_diff *out, size_t max);

/* "offset=11 path=ca" for a pair (its variant). */
const char *cml_cmp_variant(const cml_cmp_pair *p);
const char *cml_cmp_experiment_key(const cml_cmp_pair *p);

/* The renderers (cml_output_fn-shaped: ctx is the cml_comparison);
 * CML_EIO when the stream failed. */
cml_status cml_compare_table(FILE *out, const void *c);
cml_status cml_compare_json(FILE *out, const void *c);
cml_status cml_compare_csv(FILE *out, const void *c);
cml_status cml_compare_html(FILE *out, const void *c);

#endif
