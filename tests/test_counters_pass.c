/*
 * The deferred counters pass on the CPU, over a fake profiler: launches are
 * queued, not profiled, until a flush; a free of a buffer older than the
 * newest queued launch flushes, a younger one does not; a poison flushes
 * only a full batch; sessions hold at most CML_COUNTERS_MAX_BATCH launches,
 * every metric of the map each; each record gets its own launch's values (by index,
 * after the results array has moved); the launcher sees the arguments as
 * they were when queued; a failing launch fails its record only, and a
 * profiler failure leaves notes, not failures.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "counters/counter_map.h"
#include "counters/counters.h"
#include "lab/counters_pass.h"
#include "test_util.h"

typedef struct args { int id; } args;

/* The fake profiler's state. */
static struct {
    size_t calls, k[64], n[64];
    int seen[1024];          /* launches made, per id */
    int fail_id;             /* this launch fails with CML_ECUDA (-1: none) */
    cml_status profiler_st;  /* CML_OK, or a profiler failure for every call */
    uint64_t next_alloc;
    size_t releases;         /* release calls */
    size_t calls_at_release; /* measure calls made when it was last called */
    int zero;                /* every value 0 */
    /* The window sessions (counter_map.h): calls, their launches per id,
     * the passes they report, a failure for every one, and an offset added
     * to their values (so that a test tells them from the map's). */
    size_t window_calls, window_n;
    int in_window, window_seen[1024];
    int window_fail_id;      /* this launch fails in a window's session only */
    size_t window_passes;
    cml_status window_st;
    double window_offset;
    size_t last_passes;
} fake;

static cml_status fake_launch(void *ctx)
{
    const args *a = ctx;
    if (a->id >= 0 && a->id < 1024)
        (fake.in_window ? fake.window_seen : fake.seen)[a->id]++;
    return a->id == fake.fail_id || (fake.in_window && a->id == fake.window_fail_id) ? CML_ECUDA
                                                                                   : CML_OK;
}

/* Value of metric m for launch id: never 0. */
static double value_of(int id, size_t m)
{
    return 1000.0 * (id + 1) + (double)m;
}

static cml_status fake_measure(void *user, size_t k, const cml_launch_fn *launch,
                               void *const *ctx, const char *const *metrics, size_t n,
                               double *values, size_t *failed, char *err, size_t errlen)
{
    (void)user;
    /* A window: its own few metrics (the map's are many more). */
    fake.in_window = n != cml_counter_map_count();
    if (fake.in_window) {
        fake.window_calls++;
        fake.window_n = n;
        fake.last_passes = fake.window_passes;
    } else {
        if (fake.calls < 64) {
            fake.k[fake.calls] = k;
            fake.n[fake.calls] = n;
        }
        fake.calls++;
        fake.last_passes = 6;
    }
    *failed = SIZE_MAX;
    if (fake.profiler_st != CML_OK || (fake.in_window && fake.window_st != CML_OK)) {
        snprintf(err, errlen, "fake profiler refuses");
        return fake.profiler_st != CML_OK ? fake.profiler_st : fake.window_st;
    }
    for (size_t j = 0; j < k; j++) {
        if (launch[j](ctx[j]) != CML_OK) {
            *failed = j;
            snprintf(err, errlen, "launch %d failed", ((const args *)ctx[j])->id);
            return CML_ECUDA;
        }
        for (size_t m = 0; m < n; m++) {
            /* a metric's value by its row in the map, whichever session */
            const cml_counter_def *d = cml_counter_map_find(metrics[m]);
            const size_t row = d ? (size_t)(d - cml_counter_map_at(0)) : 999;
            values[j * n + m] =
                fake.zero ? 0
                          : value_of(((const args *)ctx[j])->id, row) +
                                (fake.in_window ? fake.window_offset : 0);
        }
    }
    return CML_OK;
}

static size_t fake_passes(void *user)
{
    (void)user;
    return fake.last_passes;
}

static uint64_t fake_next_alloc(void *user)
{
    (void)user;
    return fake.next_alloc;
}

static void fake_release(void *user)
{
    (void)user;
    fake.releases++;
    fake.calls_at_release = fake.calls;
}

static cml_counters_pass *new_pass(void)
{
    memset(&fake, 0, sizeof fake);
    fake.fail_id = -1;
    fake.window_fail_id = -1;
    fake.next_alloc = 10;
    fake.window_passes = 1;
    cml_counters_backend b = {fake_measure, fake_next_alloc, NULL, fake_release, fake_passes};
    cml_counters_pass *p = cml_counters_pass_new(&b);
    CHECK(p != NULL);
    return p;
}

/* Add record `id` to r and queue its launch. */
static void queue(cml_counters_pass *p, cml_results *r, int id)
{
    char name[32];
    snprintf(name, sizeof name, "v%d", id);
    cml_record *rec = cml_results_add(r, "fake", name);
    CHECK(rec != NULL);
    if (!rec)
        return;
    args a = {id};
    CHECK(cml_counters_pass_add(p, rec, fake_launch, &a, sizeof a) == CML_OK);
}

/* Record i of r holds launch id's values for every metric of the map. */
static void check_filled(const cml_results *r, size_t i, int id)
{
    const cml_record *rec = &r->items[i];
    size_t n = cml_counter_map_count();
    CHECK(rec->state == CML_REC_OK);
    CHECK(rec->ncounters == (n < CML_RECORD_MAX_COUNTERS ? n : CML_RECORD_MAX_COUNTERS));
    for (unsigned m = 0; m < rec->ncounters; m++) {
        CHECK_NEAR(rec->counters[m].measured, value_of(id, m), 0.0);
        CHECK(!strcmp(rec->counters[m].name, cml_counter_map_at(m)->metric));
        CHECK(!rec->counters[m].has_prediction); /* no model in these records */
    }
}

static void test_deferred_until_flush(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    for (int id = 0; id < 3; id++)
        queue(p, &r, id);
    CHECK(fake.calls == 0);
    CHECK(cml_counters_pass_pending(p) == 3);
    CHECK(r.items[0].ncounters == 0);
    cml_counters_pass_flush(p);
    CHECK(fake.calls == 1);
    CHECK(fake.k[0] == 3);
    CHECK(fake.n[0] == cml_counter_map_count());
    CHECK(cml_counters_pass_pending(p) == 0);
    for (int id = 0; id < 3; id++) {
        check_filled(&r, (size_t)id, id);
        CHECK(fake.seen[id] == 1);
    }
    /* Nothing left: a second flush profiles nothing. */
    cml_counters_pass_flush(p);
    CHECK(fake.calls == 1);
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

static void test_free_and_poison_hooks(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    fake.next_alloc = 10; /* buffers 1..9 exist when the launches are queued */
    queue(p, &r, 0);
    queue(p, &r, 1);
    /* Buffers allocated later (10 and up) cannot be used by them. */
    cml_counters_pass_on_buffer(p, 10, CML_BUFFER_FREE);
    cml_counters_pass_on_buffer(p, 25, CML_BUFFER_FREE);
    CHECK(fake.calls == 0);
    /* A poison with less than a full batch waiting: nothing yet. */
    cml_counters_pass_on_buffer(p, 3, CML_BUFFER_POISON);
    CHECK(fake.calls == 0);
    /* Freeing buffer 9, which they may read: profiled first. */
    cml_counters_pass_on_buffer(p, 9, CML_BUFFER_FREE);
    CHECK(fake.calls == 1);
    CHECK(cml_counters_pass_pending(p) == 0);
    check_filled(&r, 1, 1);
    /* A free with nothing queued does nothing. */
    cml_counters_pass_on_buffer(p, 1, CML_BUFFER_FREE);
    CHECK(fake.calls == 1);

    /* A full batch waits for the next poison (the start of a variant). */
    int id = 2;
    for (; id < 2 + CML_COUNTERS_MAX_BATCH - 1; id++)
        queue(p, &r, id);
    cml_counters_pass_on_buffer(p, 3, CML_BUFFER_POISON);
    CHECK(fake.calls == 1);
    queue(p, &r, id++);
    CHECK(cml_counters_pass_pending(p) == CML_COUNTERS_MAX_BATCH);
    CHECK(fake.calls == 1); /* queuing never profiles: a verification may follow */
    cml_counters_pass_on_buffer(p, 3, CML_BUFFER_POISON);
    CHECK(fake.calls == 2);
    CHECK(fake.k[1] == CML_COUNTERS_MAX_BATCH);
    for (size_t i = 0; i < r.count; i++)
        check_filled(&r, i, (int)i);
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

/* A buffer the queue may read is kept, where the harness can keep it,
 * instead of profiling the queue before it goes; the kept memory is
 * released only after the launches were profiled. */
static void test_kept_buffers(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    /* nothing queued: nothing to keep a buffer for */
    CHECK(cml_counters_pass_on_buffer(p, 3, CML_BUFFER_FREE_KEEPABLE) == CML_BUFFER_FREE_NOW);
    fake.next_alloc = 10;
    queue(p, &r, 0);
    /* buffers 1..9 may be read by launch 0: kept, nothing profiled yet */
    CHECK(cml_counters_pass_on_buffer(p, 9, CML_BUFFER_FREE_KEEPABLE) == CML_BUFFER_KEEP);
    CHECK(cml_counters_pass_on_buffer(p, 1, CML_BUFFER_FREE_KEEPABLE) == CML_BUFFER_KEEP);
    /* a later buffer, none of theirs: freed now */
    CHECK(cml_counters_pass_on_buffer(p, 10, CML_BUFFER_FREE_KEEPABLE) == CML_BUFFER_FREE_NOW);
    CHECK(fake.calls == 0 && fake.releases == 0);
    /* the next variant's buffers and launch join the same batch */
    fake.next_alloc = 12;
    queue(p, &r, 1);
    CHECK(cml_counters_pass_on_buffer(p, 11, CML_BUFFER_FREE_KEEPABLE) == CML_BUFFER_KEEP);
    CHECK(fake.calls == 0);
    /* the harness short of memory: profiled, then released */
    CHECK(cml_counters_pass_on_buffer(p, 0, CML_BUFFER_NEED_MEMORY) == CML_BUFFER_FREE_NOW);
    CHECK(fake.calls == 1 && fake.k[0] == 2);
    CHECK(fake.releases == 1 && fake.calls_at_release == 1);
    check_filled(&r, 0, 0);
    check_filled(&r, 1, 1);
    /* a buffer that cannot be kept still profiles the queue before it goes */
    queue(p, &r, 2);
    CHECK(cml_counters_pass_on_buffer(p, 5, CML_BUFFER_FREE) == CML_BUFFER_FREE_NOW);
    CHECK(fake.calls == 2 && fake.releases == 2);
    /* the end of an experiment's run: its flush releases what was kept */
    queue(p, &r, 3);
    CHECK(cml_counters_pass_on_buffer(p, 4, CML_BUFFER_FREE_KEEPABLE) == CML_BUFFER_KEEP);
    cml_counters_pass_flush(p);
    CHECK(fake.calls == 3 && fake.releases == 3 && fake.calls_at_release == 3);
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

static void test_batches_and_moving_records(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    /* 70 launches: the results array grows (and moves) while they wait. */
    const int total = 70;
    for (int id = 0; id < total; id++)
        queue(p, &r, id);
    CHECK(r.cap >= (size_t)total);
    cml_counters_pass_flush(p);
    CHECK(fake.calls == 3);
    CHECK(fake.k[0] == CML_COUNTERS_MAX_BATCH);
    CHECK(fake.k[1] == CML_COUNTERS_MAX_BATCH);
    CHECK(fake.k[2] == (size_t)total - 2 * CML_COUNTERS_MAX_BATCH);
    for (int id = 0; id < total; id++) {
        check_filled(&r, (size_t)id, id);
        CHECK(fake.seen[id] == 1);
    }
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

/* A new set of results: what was queued for the old one is read into it. */
static void test_begin_flushes(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r1, r2;
    cml_results_init(&r1);
    cml_results_init(&r2);
    cml_counters_pass_begin(p, &r1);
    queue(p, &r1, 0);
    queue(p, &r1, 1);
    cml_counters_pass_begin(p, &r1); /* the same results: nothing to do */
    CHECK(fake.calls == 0);
    cml_counters_pass_begin(p, &r2);
    CHECK(fake.calls == 1);
    check_filled(&r1, 1, 1);
    queue(p, &r2, 5);
    cml_counters_pass_begin(p, NULL);
    check_filled(&r2, 0, 5);
    cml_counters_pass_free(p);
    cml_results_free(&r1);
    cml_results_free(&r2);
}

static void test_arguments_copied(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    cml_record *rec = cml_results_add(&r, "fake", "copy");
    args a = {7};
    CHECK(cml_counters_pass_add(p, rec, fake_launch, &a, sizeof a) == CML_OK);
    a.id = 8; /* the caller's struct changes (or goes out of scope) */
    cml_counters_pass_flush(p);
    CHECK(fake.seen[7] == 1);
    CHECK(fake.seen[8] == 0);
    check_filled(&r, 0, 7);
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

static void test_failures(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    for (int id = 0; id < 10; id++)
        queue(p, &r, id);
    fake.fail_id = 5;
    cml_counters_pass_flush(p);
    /* The failing launch fails its record; the others are profiled again. */
    CHECK(fake.calls == 2);
    CHECK(fake.k[0] == 10 && fake.k[1] == 9);
    CHECK(r.items[5].state == CML_REC_FAILED);
    CHECK_STR_CONTAINS(r.items[5].note, "launch 5 failed");
    CHECK(r.items[5].ncounters == 0);
    for (int id = 0; id < 10; id++)
        if (id != 5)
            check_filled(&r, (size_t)id, id);
    cml_counters_pass_free(p);
    cml_results_free(&r);

    /* The profiler fails: records keep their state, say why, get nothing. */
    p = new_pass();
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    for (int id = 0; id < 3; id++)
        queue(p, &r, id);
    fake.profiler_st = CML_EUNSUPPORTED;
    cml_counters_pass_flush(p);
    for (size_t i = 0; i < 3; i++) {
        CHECK(r.items[i].state == CML_REC_OK);
        CHECK(r.items[i].ncounters == 0);
        CHECK_STR_CONTAINS(r.items[i].note, "counters not read: fake profiler refuses");
    }
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

static void test_bad_use(void)
{
    cml_counters_pass *p = new_pass();
    cml_results r, other;
    cml_results_init(&r);
    cml_results_init(&other);
    cml_record *rec = cml_results_add(&r, "fake", "x");
    cml_record *stranger = cml_results_add(&other, "fake", "y");
    args a = {1};
    /* No results begun, or a record of other results: refused, not queued. */
    CHECK(cml_counters_pass_add(p, rec, fake_launch, &a, sizeof a) == CML_EINVAL);
    cml_counters_pass_begin(p, &r);
    CHECK(cml_counters_pass_add(p, stranger, fake_launch, &a, sizeof a) == CML_EINVAL);
    CHECK(cml_counters_pass_add(p, rec, NULL, &a, sizeof a) == CML_EINVAL);
    CHECK(cml_counters_pass_pending(p) == 0);
    CHECK(cml_counters_pass_new(NULL) == NULL);
    /* NULL everywhere is harmless. */
    cml_counters_pass_begin(NULL, &r);
    cml_counters_pass_flush(NULL);
    cml_counters_pass_on_buffer(NULL, 1, CML_BUFFER_FREE);
    CHECK(cml_counters_pass_pending(NULL) == 0);
    cml_counters_pass_free(NULL);
    CHECK(cml_counters_pass_open(NULL, NULL) == NULL);
    /* Freeing a pass with launches still queued drops them. */
    CHECK(cml_counters_pass_add(p, rec, fake_launch, &a, sizeof a) == CML_OK);
    cml_counters_pass_free(p);
    CHECK(fake.calls == 0);
    cml_results_free(&r);
    cml_results_free(&other);
}

/* A counter read as 0 that the model does not predict is left out of the
 * record, but for the L2 hit and the L2 read-miss and write counters by who
 * asked: a 0 there is a figure (l2-residency's hit rate, validate's DRAM
 * floors), absent means not read. */
static void test_zeros_kept(void)
{
    cml_counters_pass *p = new_pass();
    fake.zero = 1;
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    queue(p, &r, 0);
    cml_counters_pass_flush(p);
    const cml_record *rec = &r.items[0];
    CHECK(rec->ncounters == 7);
    for (unsigned m = 0; m < rec->ncounters; m++) {
        CHECK(rec->counters[m].measured == 0);
        CHECK(cml_counter_kept_at_zero(cml_counter_map_find(rec->counters[m].name)));
    }
    CHECK(rec->ncounters == 7 && !strcmp(rec->counters[0].name, CML_METRIC_L2_READ_HIT_TEX) &&
          !strcmp(rec->counters[3].name, CML_METRIC_L2_READ_MISS_FABRIC) &&
          !strcmp(rec->counters[4].name, CML_METRIC_L2_WRITE_DEVICE) &&
          !strcmp(rec->counters[6].name, CML_METRIC_L2_WRITE_FABRIC));
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

/* Whether metric name is one of a window's. */
static int in_a_window(const char *name)
{
    for (size_t w = 0; w < CML_COUNTER_WINDOWS; w++)
        for (size_t m = 0; m < CML_COUNTER_WINDOW_METRICS; m++)
            if (!strcmp(cml_counter_window(w)[m], name))
                return 1;
    return 0;
}

/* Each window's metrics are profiled again, in a session of their own
 * after the map's, over the same launches; the window's values replace the
 * map's where that session took one pass. Where it took more, or failed,
 * the map's values stay and the results say so once; a launch that faults
 * there fails its record. */
static void test_windows(void)
{
    /* One pass: the windows' values, the rest the map's. */
    cml_counters_pass *p = new_pass();
    fake.window_offset = 0.25;
    cml_results r;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    for (int id = 0; id < 3; id++)
        queue(p, &r, id);
    cml_counters_pass_flush(p);
    CHECK(fake.calls == 1 && fake.window_calls == CML_COUNTER_WINDOWS);
    CHECK(fake.window_n == CML_COUNTER_WINDOW_METRICS);
    CHECK(cml_counters_pass_windows(p) == CML_COUNTER_WINDOWS);
    size_t windowed = 0;
    for (int id = 0; id < 3; id++) {
        const cml_record *rec = &r.items[id];
        CHECK(fake.seen[id] == 1 && fake.window_seen[id] == CML_COUNTER_WINDOWS);
        for (unsigned m = 0; m < rec->ncounters; m++) {
            const int w = in_a_window(rec->counters[m].name);
            windowed += (size_t)w;
            CHECK_NEAR(rec->counters[m].measured, value_of(id, m) + (w ? 0.25 : 0), 0.0);
        }
    }
    CHECK(windowed == 3 * CML_COUNTER_WINDOWS * CML_COUNTER_WINDOW_METRICS);
    CHECK(r.ndiags == 0);
    cml_counters_pass_free(p);
    cml_results_free(&r);

    /* Two passes, then a failure: the map's values, one warning each. */
    for (int bad = 0; bad < 2; bad++) {
        p = new_pass();
        fake.window_offset = 0.25;
        if (bad)
            fake.window_st = CML_EUNSUPPORTED;
        else
            fake.window_passes = 2;
        cml_results_init(&r);
        cml_counters_pass_begin(p, &r);
        queue(p, &r, 0);
        queue(p, &r, 1);
        cml_counters_pass_flush(p);
        queue(p, &r, 2);
        cml_counters_pass_flush(p);
        for (int id = 0; id < 3; id++)
            check_filled(&r, (size_t)id, id);
        CHECK(cml_counters_pass_windows(p) == 0);
        CHECK(r.ndiags == 1 && r.diags[0].level == CML_DIAG_WARNING &&
              strstr(r.diags[0].message, bad ? "fake profiler refuses" : "more than one pass"));
        cml_counters_pass_free(p);
        cml_results_free(&r);
    }

    /* A launch that faults in a window's session fails its record. */
    p = new_pass();
    fake.window_fail_id = 1;
    cml_results_init(&r);
    cml_counters_pass_begin(p, &r);
    queue(p, &r, 0);
    queue(p, &r, 1);
    cml_counters_pass_flush(p);
    CHECK(r.items[0].state == CML_REC_OK && r.items[1].state == CML_REC_FAILED);
    CHECK(strstr(r.items[1].note, "launch 1 failed") != NULL);
    cml_counters_pass_free(p);
    cml_results_free(&r);
}

int main(void)
{
    test_deferred_until_flush();
    test_free_and_poison_hooks();
    test_kept_buffers();
    test_batches_and_moving_records();
    test_begin_flushes();
    test_arguments_copied();
    test_failures();
    test_bad_use();
    test_zeros_kept();
    test_windows();
    return cml_test_summary("test_counters_pass");
}
