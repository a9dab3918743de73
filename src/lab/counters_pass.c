/* The experiments' counters pass, deferred and batched (counters_pass.h). */
#include "lab/counters_pass.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counter_map.h"
#include "counters/counters.h"

/* One queued launch: what to profile, for which record. Every launch reads
 * every metric of the counter map: a kernel's surprises (a spill to local
 * memory, shared traffic the model did not expect) are what counters are for. */
typedef struct job {
    cml_launch_fn launch;
    void *ctx;          /* owned copy of the launcher's arguments */
    size_t index;       /* the record, in p->out */
} job;

/* The backend of cml_counters_pass_open. */
typedef struct real_backend {
    struct cml_counters *profiler;
    cml_gpu *gpu;
} real_backend;

struct cml_counters_pass {
    cml_counters_backend b;
    real_backend real;  /* b.user for a pass over CUPTI and the harness */
    cml_results *out;
    job *jobs;
    size_t n, cap;
    uint64_t mark;      /* buffers numbered below this may be used by a queued launch */
    int flushing;
    int windows_warned; /* a window's failure said for these results */
    size_t windows_read; /* windows read in one pass, all results */
};

cml_counters_pass *cml_counters_pass_new(const cml_counters_backend *backend)
{
    if (!backend || !backend->measure)
        return NULL;
    cml_counters_pass *p = calloc(1, sizeof *p);
    if (p)
        p->b = *backend;
    return p;
}

static void drop_jobs(cml_counters_pass *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->jobs[i].ctx);
    p->n = 0;
}

void cml_counters_pass_free(cml_counters_pass *p)
{
    if (!p)
        return;
    drop_jobs(p);
    free(p->jobs);
    free(p);
}

void cml_counters_pass_begin(cml_counters_pass *p, cml_results *out)
{
    if (!p)
        return;
    /* What was queued for other results is read into them first. */
    if (p->out != out) {
        cml_counters_pass_flush(p);
        p->windows_warned = 0;
    }
    p->out = out;
}

size_t cml_counters_pass_pending(const cml_counters_pass *p)
{
    return p ? p->n : 0;
}

size_t cml_counters_pass_windows(const cml_counters_pass *p)
{
    return p ? p->windows_read : 0;
}

cml_status cml_counters_pass_add(cml_counters_pass *p, cml_record *rec, cml_launch_fn launch,
                                 const void *ctx, size_t ctx_size)
{
    if (!p || !p->out || !rec || !launch || (!ctx && ctx_size) || rec < p->out->items ||
        rec >= p->out->items + p->out->count)
        return CML_EINVAL;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        job *jobs = realloc(p->jobs, cap * sizeof *jobs);
        if (!jobs)
            return CML_ENOMEM;
        p->jobs = jobs;
        p->cap = cap;
    }
    job *j = &p->jobs[p->n];
    memset(j, 0, sizeof *j);
    j->ctx = malloc(ctx_size ? ctx_size : 1);
    if (!j->ctx)
        return CML_ENOMEM;
    if (ctx_size)
        memcpy(j->ctx, ctx, ctx_size);
    j->launch = launch;
    j->index = (size_t)(rec - p->out->items);
    p->n++;
    p->mark = p->b.next_alloc ? p->b.next_alloc(p->b.user) : UINT64_MAX;
    return CML_OK;
}

/* rec->counters[] from the values of the map's metrics: metrics that read
 * 0 where the model predicts 0 (or nothing) are left out, so a record lists
 * the traffic its kernel has. */
static void fill_record(cml_record *rec, const double *v)
{
    const size_t n = cml_counter_map_count();
    rec->ncounters = 0;
    for (size_t i = 0; i < n && rec->ncounters < CML_RECORD_MAX_COUNTERS; i++) {
        const cml_counter_def *d = cml_counter_map_at(i);
        double pred = 0;
        int has = rec->has_model &&
                  cml_counter_predict_levels(d, &rec->model[CML_RULES_MODERN],
                                             rec->has_levels ? &rec->levels : NULL, &pred);
        if (isnan(v[i]) || (v[i] == 0 && (!has || pred == 0) && !cml_counter_kept_at_zero(d)))
            continue;
        cml_counter *c = &rec->counters[rec->ncounters++];
        snprintf(c->name, sizeof c->name, "%s", d->metric);
        c->measured = v[i];
        c->has_prediction = has;
        c->predicted = has ? pred : 0;
    }
}

/* A launch that failed fails its record like any launch; a profiler that
 * failed only leaves the record without counters, and says so. */
static void note_failure(cml_record *rec, cml_status st, const char *err)
{
    if (st == CML_ECUDA) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "%s: %s", cml_status_str(st), err);
    } else if (!rec->note[0]) {
        cml_record_note(rec, "counters not read: %s", *err ? err : cml_status_str(st));
    }
}

/* Window `win`'s values of k launches (w, its metrics' order) in place of
 * the map's (v, the map's order, n a launch). */
static void put_window(size_t win, const double *w, size_t k, double *v)
{
    const size_t n = cml_counter_map_count();
    for (size_t m = 0; m < CML_COUNTER_WINDOW_METRICS; m++) {
        const cml_counter_def *d = cml_counter_map_find(cml_counter_window(win)[m]);
        if (!d)
            continue;
        const size_t row = (size_t)(d - cml_counter_map_at(0));
        for (size_t j = 0; j < k; j++)
            v[j * n + row] = w[j * CML_COUNTER_WINDOW_METRICS + m];
    }
}

/* The windows (counter_map.h, CML_COUNTER_WINDOWS) of the k launches whose
 * map values v holds: each window's metrics profiled again in a session of
 * their own, their values put in place of the map session's where that
 * session took one pass. Otherwise the map's values stay, from different
 * replays, and the results' diagnostics say so once (validate's DRAM floor
 * then sets counts of different replays against each other). A launch
 * that faults in a window's session fails its record. */
static void run_windows(cml_counters_pass *p, job **at, size_t k, const cml_launch_fn *launch,
                        void *const *ctx, double *v)
{
    double w[CML_COUNTERS_MAX_BATCH * CML_COUNTER_WINDOW_METRICS];
    char err[512];
    for (size_t win = 0; win < CML_COUNTER_WINDOWS; win++) {
        size_t failed = SIZE_MAX;
        err[0] = '\0';
        cml_status st = p->b.measure(p->b.user, k, launch, ctx, cml_counter_window(win),
                                     CML_COUNTER_WINDOW_METRICS, w, &failed, err, sizeof err);
        const size_t passes = st == CML_OK && p->b.passes ? p->b.passes(p->b.user) : 1;
        if (st == CML_ECUDA && failed < k) /* a launch that faults fails its record */
            note_failure(&p->out->items[at[failed]->index], st, err);
        if (st != CML_OK || passes != 1) {
            if (!p->windows_warned)
                (void)cml_results_diag(
                    p->out, CML_DIAG_WARNING, p->out->items[at[0]->index].experiment,
                    "the DRAM %s counters and L2's by who asked were read in different "
                    "replays of a launch (their own session: %s); validate's DRAM floor sets "
                    "them against each other all the same",
                    win ? "write" : "read",
                    st != CML_OK ? (*err ? err : cml_status_str(st)) : "more than one pass");
            p->windows_warned = 1;
            continue;
        }
        p->windows_read++;
        put_window(win, w, k, v);
    }
}

/* Profile the k jobs at[0..k-1] in one session, then their windows. A
 * launch that fails is taken out and the others are profiled again, so one
 * bad launch costs only its own record. */
static void run_batch(cml_counters_pass *p, job **at, size_t k)
{
    cml_launch_fn launch[CML_COUNTERS_MAX_BATCH];
    void *ctx[CML_COUNTERS_MAX_BATCH];
    const size_t n = cml_counter_map_count();
    double *v = malloc((k * n > 0 ? k * n : 1) * sizeof *v);
    char err[512];
    while (k > 0) {
        for (size_t j = 0; j < k; j++) {
            launch[j] = at[j]->launch;
            ctx[j] = at[j]->ctx;
        }
        size_t failed = SIZE_MAX;
        err[0] = '\0';
        cml_status st = v ? p->b.measure(p->b.user, k, launch, ctx, cml_counter_map_metrics(), n,
                                         v, &failed, err, sizeof err)
                          : CML_ENOMEM;
        if (!v)
            snprintf(err, sizeof err, "out of host memory");
        if (st == CML_OK) {
            run_windows(p, at, k, launch, ctx, v);
            for (size_t j = 0; j < k; j++)
                fill_record(&p->out->items[at[j]->index], v + j * n);
            break;
        }
        if (st == CML_ECUDA && failed < k) {
            note_failure(&p->out->items[at[failed]->index], st, err);
            memmove(at + failed, at + failed + 1, (k - failed - 1) * sizeof *at);
            k--;
            continue;
        }
        for (size_t j = 0; j < k; j++)
            note_failure(&p->out->items[at[j]->index], st, err);
        break;
    }
    free(v);
}

void cml_counters_pass_flush(cml_counters_pass *p)
{
    if (!p || p->flushing || p->n == 0)
        return;
    p->flushing = 1;
    job *at[CML_COUNTERS_MAX_BATCH];
    for (size_t i = 0; p->out && i < p->n; i += CML_COUNTERS_MAX_BATCH) {
        size_t k = p->n - i < CML_COUNTERS_MAX_BATCH ? p->n - i : CML_COUNTERS_MAX_BATCH;
        for (size_t j = 0; j < k; j++)
            at[j] = &p->jobs[i + j];
        run_batch(p, at, k);
    }
    drop_jobs(p);
    /* nothing queued reads the kept buffers any more */
    if (p->b.release)
        p->b.release(p->b.user);
    p->flushing = 0;
}

int cml_counters_pass_on_buffer(void *pass, uint64_t seq, cml_buffer_event event)
{
    cml_counters_pass *p = pass;
    if (!p || p->n == 0)
        return CML_BUFFER_FREE_NOW;
    switch (event) {
    case CML_BUFFER_FREE_KEEPABLE:
        /* kept for the launches queued, profiled together later (the
         * session's start and stop cost about 85 ms a batch on an H100:
         * bench/results/2026-11-27-h100-suite-60s.md) */
        if (seq < p->mark)
            return CML_BUFFER_KEEP;
        break;
    case CML_BUFFER_FREE:
        if (seq < p->mark)
            cml_counters_pass_flush(p);
        break;
    case CML_BUFFER_POISON:
        if (p->n >= CML_COUNTERS_MAX_BATCH)
            cml_counters_pass_flush(p);
        break;
    case CML_BUFFER_NEED_MEMORY:
        cml_counters_pass_flush(p);
        break;
    }
    return CML_BUFFER_FREE_NOW;
}

/* ---- the real backend: CUPTI and the harness ------------------------------ */

static cml_status real_measure(void *user, size_t k, const cml_launch_fn *launch,
                               void *const *ctx, const char *const *metrics, size_t n,
                               double *values, size_t *failed, char *err, size_t errlen)
{
    const real_backend *r = user;
    cml_status st =
        cml_counters_measure_batch(r->profiler, k, launch, ctx, metrics, n, values, failed);
    if (st != CML_OK)
        snprintf(err, errlen, "%s", cml_counters_error(r->profiler));
    return st;
}

static uint64_t real_next_alloc(void *user)
{
    return cml_gpu_next_alloc(((const real_backend *)user)->gpu);
}

static void real_release(void *user)
{
    cml_gpu_release_kept(((real_backend *)user)->gpu);
}

static size_t real_passes(void *user)
{
    return cml_counters_passes(((const real_backend *)user)->profiler);
}

cml_counters_pass *cml_counters_pass_open(struct cml_counters *profiler, cml_gpu *gpu)
{
    if (!profiler || !gpu)
        return NULL;
    cml_counters_backend b = {real_measure, real_next_alloc, NULL, real_release, real_passes};
    cml_counters_pass *p = cml_counters_pass_new(&b);
    if (p) {
        p->real.profiler = profiler;
        p->real.gpu = gpu;
        p->b.user = &p->real;
    }
    return p;
}

cml_status cml_counters_now(struct cml_counters *profiler, cml_record *rec, cml_launch_fn launch,
                            void *ctx)
{
    double v[CML_RECORD_MAX_COUNTERS];
    size_t n = cml_counter_map_count();
    if (n > CML_RECORD_MAX_COUNTERS)
        return CML_EINVAL;
    cml_status st = cml_counters_measure(profiler, launch, ctx, cml_counter_map_metrics(), n, v);
    if (st != CML_OK) {
        note_failure(rec, st, cml_counters_error(profiler));
        return st == CML_ECUDA ? st : CML_OK;
    }
    /* The windows, as a batch's (run_windows): a record read at once is the
     * same measurement as one read in a batch. */
    for (size_t win = 0; win < CML_COUNTER_WINDOWS; win++) {
        double w[CML_COUNTER_WINDOW_METRICS];
        st = cml_counters_measure(profiler, launch, ctx, cml_counter_window(win),
                                  CML_COUNTER_WINDOW_METRICS, w);
        if (st == CML_ECUDA) {
            note_failure(rec, st, cml_counters_error(profiler));
            return st;
        }
        if (st == CML_OK && cml_counters_passes(profiler) == 1)
            put_window(win, w, 1, v); /* else the map's values stay */
    }
    fill_record(rec, v);
    return CML_OK;
}
