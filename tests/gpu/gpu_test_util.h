/*
 * Helpers shared by the GPU tests (tests/gpu/test_*.c): open the device or
 * skip, a plan that measures on it, an experiment's tour run end to end,
 * and for the kernel tests the download of an output buffer, a run of a
 * device checker, and the check that a checker catches planted errors.
 * Like ../test_util.h, everything is static: each test file is one
 * executable.
 */
#ifndef CML_GPU_TEST_UTIL_H
#define CML_GPU_TEST_UTIL_H

#include "lab/lab.h"
#include "lab/sweep.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/experiment.h"
#include "gpu/gpu.h"
#include "../test_util.h"

/* ---- the device --------------------------------------------------------- */

/*
 * Opens device 0 into *g and returns 0. Without a GPU: "SKIP: <reason>" on
 * stdout and 77, which ctest counts as skipped; a device that is present
 * but cannot be opened: "<what>: <error>" on stderr and 1. main returns
 * what is not 0.
 */
/* Under compute-sanitizer (CML_QUICK_TEST) timings mean nothing: exactly
 * the samples asked for, never extra ones for a noisy kernel. */
static inline void gpu_test_quick_timing(cml_gpu *g)
{
    if (getenv("CML_QUICK_TEST"))
        cml_gpu_set_noise_limit(g, 0.0, 1);
}

static inline int gpu_test_open(cml_gpu **g, const char *what)
{
    char why[512] = "";
    if (cml_gpu_count(why, sizeof why) == 0) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    char err[640] = "";
    if (cml_gpu_open(0, g, err, sizeof err) != CML_OK) {
        fprintf(stderr, "%s: %s\n", what, err);
        return 1;
    }
    gpu_test_quick_timing(*g);
    return 0;
}

/* The host copy of the last output fetch() downloaded: whole 32-bit words
 * (index it by word), grown as needed, freed by gpu_test_close(). */
static uint32_t *fetched;
static size_t fetched_cap; /* bytes */

/* Frees what the helpers hold, then closes g. */
static inline void gpu_test_close(cml_gpu *g)
{
    free(fetched);
    fetched = NULL;
    fetched_cap = 0;
    cml_gpu_close(g);
}

/* A plan that measures on g with its facts: 1 warm-up, 3 repetitions,
 * everything else zero (the experiment's defaults). */
static inline void gpu_test_plan(cml_plan *plan, cml_gpu *g)
{
    memset(plan, 0, sizeof *plan);
    plan->gpu = g;
    plan->dev = cml_gpu_facts(g);
    plan->warmup = 1;
    plan->reps = 3;
}

/* ---- an experiment's tour ---------------------------------------------- */

/* x's defaults with the settings of its tour applied, each step CHECKed:
 * the defaults, then per "name=list" its '=' and its value. */
static inline void tour_params(const cml_experiment *x, cml_param_values *pv)
{
    char err[512] = "";
    cml_status st = cml_lab_options(x, x->tour, "its tour", pv, err, sizeof err);
    if (st)
        fprintf(stderr, "%s: %s\n", x->key, err);
    CHECK(st == CML_OK);
}

/* Runs x on plan through the sweep engine into *r (initialised here, freed
 * by the caller): CML_OK and at least one record are CHECKed; a failure
 * prints the status and the harness's last error. */
static inline cml_status tour_run(const cml_experiment *x, const cml_plan *plan,
                                  const cml_param_values *pv, cml_results *r)
{
    cml_results_init(r);
    cml_status st = cml_sweep_run(x, plan, pv, r);
    if (st)
        fprintf(stderr, "%s tour: %s: %s\n", x->key, cml_status_str(st),
                cml_gpu_error(plan->gpu));
    CHECK(st == CML_OK);
    CHECK(r->count > 0);
    return st;
}

/* One record of a tour: OK, verified and measured (three checks); its
 * state, verdict and note are printed when it is not OK or not verified. */
static inline void check_tour_record(const cml_experiment *x, const cml_record *rec)
{
    if (rec->state != CML_REC_OK || rec->verify != CML_VERIFY_PASSED)
        fprintf(stderr, "%s %s: state %d verify %d: %s\n", x->key, rec->variant,
                (int)rec->state, (int)rec->verify, rec->note);
    CHECK(rec->state == CML_REC_OK);
    CHECK(rec->verify == CML_VERIFY_PASSED);
    CHECK(rec->measured);
}

/* ---- kernel outputs and device checkers --------------------------------- */

/* The bits of a float, for exact comparisons. */
static inline uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Download `bytes` of b into `fetched`; 1 on success (the host buffer and
 * the download are CHECKed). */
static inline int fetch(cml_gpu *g, const cml_dbuf *b, size_t bytes)
{
    if (bytes > fetched_cap) {
        free(fetched);
        fetched = malloc((bytes + 3) / 4 * sizeof *fetched);
        fetched_cap = fetched ? bytes : 0;
    }
    CHECK(fetched != NULL);
    if (!fetched)
        return 0;
    cml_status st = cml_gpu_download(g, fetched, b, bytes);
    CHECK(st == CML_OK);
    return st == CML_OK;
}

/* The expected bits of output word q (the poison where nothing may be
 * written). */
typedef uint32_t (*want_fn)(const void *ctx, uint64_t q);

/* want_fn of a host reference: ctx is its uint32_t array. */
static inline uint32_t ref_want(const void *ctx, uint64_t q)
{
    return ((const uint32_t *)ctx)[q];
}

/* Compare fetched[0, cap) with want(ctx, q), one check; print how many
 * `noun` ("floats", "words") differ and the first. */
static inline void compare_words(const char *what, const char *noun, uint64_t cap, want_fn want,
                                 const void *ctx)
{
    uint64_t wrong = 0, first = 0;
    for (uint64_t q = 0; q < cap; q++)
        if (fetched[q] != want(ctx, q) && !wrong++)
            first = q;
    if (wrong)
        fprintf(stderr, "%s: %llu wrong %s, first at %llu (0x%08x, want 0x%08x)\n", what,
                (unsigned long long)wrong, noun, (unsigned long long)first, fetched[first],
                want(ctx, first));
    CHECK_EQ_U64(wrong, 0);
}

/* A device checker: counts into d_counters[0] the bad elements of the
 * output described by ctx, and the lowest bad index into d_counters[1]. */
typedef cml_status (*check_fn)(void *ctx, unsigned long long *d_counters);

/* Run a device checker; *bad, *first from its counters. */
static inline int device_check(cml_gpu *g, check_fn fn, void *ctx, unsigned long long *bad,
                               unsigned long long *first)
{
    cml_dbuf c = {0};
    unsigned long long h[2] = {0, ~0ull};
    cml_status st = cml_gpu_alloc(g, &c, sizeof h);
    if (!st)
        st = cml_gpu_upload(g, &c, h, sizeof h);
    if (!st)
        st = fn(ctx, (unsigned long long *)c.ptr);
    if (!st)
        st = cml_gpu_download(g, h, &c, sizeof h);
    cml_gpu_free(g, &c);
    CHECK(st == CML_OK);
    *bad = h[0];
    *first = h[1];
    return st == CML_OK;
}

/* Write `len` bytes at byte offset `at` of b. */
static inline void plant(cml_gpu *g, cml_dbuf *b, size_t at, const void *value, size_t len)
{
    cml_dbuf view = {(char *)b->ptr + at, len, 0};
    CHECK(cml_gpu_upload(g, &view, value, len) == CML_OK);
}

/*
 * The device checker passes on the kernel's output in `out` (just fetched),
 * then catches a planted wrong value in an element the kernel wrote (its
 * right value with the lowest bit flipped) at byte `written`, and `stray`
 * (its `unit` low bytes, little-endian) planted at byte `unwritten` where
 * only the poison may be (each SIZE_MAX: none). `unit` is the element size
 * (at most 8); the checker reports the lowest bad index in `index_unit`
 * bytes (1: a byte offset, 4: a float).
 */
static inline void check_checker_bytes(cml_gpu *g, const char *what, check_fn fn, void *ctx,
                                       cml_dbuf *out, size_t unit, size_t index_unit,
                                       size_t written, size_t unwritten, uint64_t stray)
{
    unsigned long long bad, first;
    if (!device_check(g, fn, ctx, &bad, &first))
        return;
    if (bad)
        fprintf(stderr, "%s: device checker: %llu bad, first %llu\n", what, bad, first);
    CHECK_EQ_U64(bad, 0);
    unsigned long long expect = 0, lowest = ~0ull;
    unsigned char v[8];
    if (written != SIZE_MAX) {
        memcpy(v, (const unsigned char *)fetched + written, unit);
        v[0] ^= 1u; /* the right value, one bit off */
        plant(g, out, written, v, unit);
        expect++;
        lowest = written / index_unit;
    }
    if (unwritten != SIZE_MAX) {
        for (size_t k = 0; k < unit; k++)
            v[k] = (unsigned char)(stray >> (8 * k));
        plant(g, out, unwritten, v, unit);
        expect++;
        if (unwritten / index_unit < lowest)
            lowest = unwritten / index_unit;
    }
    if (!expect || !device_check(g, fn, ctx, &bad, &first))
        return;
    if (bad != expect || first != lowest)
        fprintf(stderr, "%s: planted %llu (lowest %llu), checker found %llu (first %llu)\n", what,
                expect, lowest, bad, first);
    CHECK_EQ_U64(bad, expect);
    CHECK_EQ_U64(first, lowest);
}

/* The byte offset of 32-bit word idx for check_checker_bytes (UINT64_MAX,
 * no word: SIZE_MAX). */
static inline size_t word_at(uint64_t idx)
{
    return idx == UINT64_MAX ? SIZE_MAX : (size_t)idx * 4;
}

#endif
