/*
 * Hardware counters through CUPTI's range profiler (counters.h).
 *
 * The sequence, per batch of launches (CUDA 13 range profiler, user range,
 * user replay; the CUDA samples' range_profiling with one range per launch):
 *   host side, once per metric list:  cuptiProfilerHostInitialize (chip,
 *     counter availability) -> ConfigAddMetrics -> GetConfigImage ->
 *     GetNumOfPasses;
 *   target side: cuptiRangeProfilerEnable(ctx) -> GetCounterDataSize ->
 *     CounterDataImageInitialize -> SetConfig; then per pass: Start, and
 *     for each launch: flush L2, PushRange, launch, synchronize, PopRange;
 *     Stop, until Stop says every pass was submitted -> DecodeData ->
 *     GetCounterDataInfo -> cuptiProfilerHostEvaluateToGpuValues per range
 *     -> Disable (or kept for the next batch).
 * The profiler is enabled only around a measurement, so the timed launches
 * of the experiments run exactly as they would without it.
 *
 * libcupti is opened with dlopen (CMakeLists.txt says why); the functions
 * are looked up into one table. Without CUPTI at configure time
 * (CML_HAVE_CUPTI undefined) this file is the stub at the end.
 */
#include "counters/counters.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters/counter_map.h"
#include "counters/counters_cuda.h"
#include "counters/cupti_messages.h"
#include "gpu/gpu_internal.h"

#if defined(CML_HAVE_CUPTI)

#include "counters/cupti_core.h"

/* ---- the handle --------------------------------------------------------- */

#define MAX_CONFIGS 8
#define MAX_CHECKED 96
#define MAX_PASSES 64

/* A metric list's configuration, with when it was last used (the cache of
 * MAX_CONFIGS evicts the least recently used). */
typedef struct config {
    cml_cupti_config f;
    unsigned long long last_use;
} config;

typedef struct checked_metric {
    char name[128];
    int ok;
    char why[200];
} checked_metric;

struct cml_counters {
    int device, cu_device;
    CUcontext ctx;
    cml_cupti_target target;
    config cfg[MAX_CONFIGS];
    unsigned long long tick;
    checked_metric checked[MAX_CHECKED];
    size_t nchecked;
    void *flush;
    uint64_t flush_bytes;
    size_t passes;
    CUpti_RangeProfiler_Object *obj; /* enabled range profiler, NULL when disabled */
    int keep;                        /* keep it enabled between measurements */
    const config *obj_for;           /* the configuration it was last set up with */
    uint8_t *data;                   /* counter data image ... */
    size_t data_size;
    const config *data_for;          /* ... sized for this configuration */
    struct {
        unsigned long long measurements, sessions, passes;
        double enable_ms, config_ms, flush_ms, start_ms, range_ms, launch_ms, stop_ms, decode_ms;
        double total_ms; /* all of cml_counters_measure_batch, configurations included */
    } t;                             /* where the time goes (cml_counters_timing) */
    char err[512];
};

static void range_disable(cml_counters *c);

#define CALL(c, fn, p, label)                                           \
    do {                                                                \
        CUptiResult r_ = cml_cupti.fn(p);                               \
        if (r_ != CUPTI_SUCCESS) {                                      \
            cml_cupti_explain_call((c)->err, sizeof (c)->err, #fn, r_); \
            goto label;                                                 \
        }                                                               \
    } while (0)

static void config_free(config *f)
{
    cml_cupti_config_free(&f->f);
    f->last_use = 0;
}

/* The cached configuration of exactly this list, or a new one in the least
 * recently used slot. */
static cml_status config_get(cml_counters *c, const char **names, size_t n, config **out)
{
    config *victim = &c->cfg[0];
    for (int i = 0; i < MAX_CONFIGS; i++) {
        config *f = &c->cfg[i];
        if (f->f.host && f->f.n == n) {
            size_t k = 0;
            while (k < n && strcmp(f->f.names[k], names[k]) == 0)
                k++;
            if (k == n) {
                f->last_use = ++c->tick;
                *out = f;
                return CML_OK;
            }
        }
        if (!f->f.host || f->last_use < victim->last_use)
            victim = f;
        if (!f->f.host)
            break;
    }
    if (c->data_for == victim)
        c->data_for = NULL; /* its counter data image was sized for the old list */
    if (c->obj_for == victim)
        range_disable(c);
    config_free(victim);
    if (cml_cupti_config_build(&c->target, &victim->f, names, n, c->err, sizeof c->err) != 0)
        return strstr(c->err, "out of host memory") ? CML_ENOMEM : CML_EUNSUPPORTED;
    victim->last_use = ++c->tick;
    *out = victim;
    return CML_OK;
}

int cml_counters_metric_ok(cml_counters *c, const char *metric, char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    if (!c || !metric)
        return 0;
    for (size_t i = 0; i < c->nchecked; i++)
        if (strcmp(c->checked[i].name, metric) == 0) {
            if (why && whylen)
                snprintf(why, whylen, "%s", c->checked[i].why);
            return c->checked[i].ok;
        }
    checked_metric m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "%s", metric);
    char saved[sizeof c->err];
    memcpy(saved, c->err, sizeof saved);
    if (strlen(metric) >= sizeof m.name)
        snprintf(m.why, sizeof m.why, "metric name too long");
    else
        m.ok = cml_cupti_metric_ok(&c->target, metric, m.why, sizeof m.why);
    memcpy(c->err, saved, sizeof saved);
    if (c->nchecked < MAX_CHECKED)
        c->checked[c->nchecked++] = m;
    if (why && whylen)
        snprintf(why, whylen, "%s", m.why);
    return m.ok;
}

/* Stop an unfinished pass (after a failure): pop, stop, ignore errors. */
static void abort_pass(CUpti_RangeProfiler_Object *obj, int pushed, int started)
{
    if (pushed) {
        CUpti_RangeProfiler_PopRange_Params p = {
            .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = obj;
        (void)cml_cupti.cuptiRangeProfilerPopRange(&p);
    }
    if (started) {
        CUpti_RangeProfiler_Stop_Params p = {
            .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = obj;
        (void)cml_cupti.cuptiRangeProfilerStop(&p);
    }
}

static double now_ms(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Milliseconds since *t0, and *t0 moved to now: one step of a breakdown. */
static double lap_ms(double *t0)
{
    double t = now_ms(), d = t - *t0;
    *t0 = t;
    return d;
}

/* Disable the range profiler (destroying its object), if enabled. */
static void range_disable(cml_counters *c)
{
    if (!c->obj)
        return;
    double t0 = now_ms();
    CUpti_RangeProfiler_Disable_Params dis = {
        .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = c->obj;
    (void)cml_cupti.cuptiRangeProfilerDisable(&dis);
    c->obj = NULL;
    c->t.enable_ms += now_ms() - t0;
}

/*
 * Profile k launches with configuration f, one range each, in one session:
 * per pass, Start once, then for every launch flush L2, push its range,
 * launch, synchronize, pop; Stop after the last. values[j * f->f.n + m] is
 * metric m of launch j. One Start per pass for the whole batch is the point:
 * Start costs 15-50 ms per pass on an H100 whatever the kernel, so the whole
 * counter map (6 passes) costs about 14 ms per launch in a batch of 32
 * instead of 85 alone (bench/results/2026-11-22-h100-counters-batching.md).
 * On a failed launch *failed is its index.
 */
static cml_status profile(cml_counters *c, config *f, size_t k, const cml_launch_fn *launch,
                          void *const *ctx, double *values, size_t *failed)
{
    cml_status st = CML_EUNSUPPORTED;
    int pushed = 0, started = 0;
    double t0 = now_ms();

    /* A kept profiler object goes on scheduling the passes of the
     * configuration it first ran (seen on CUDA 13.0: a 1-pass list then took
     * 6 passes), so a new configuration gets a new object. */
    if (c->obj && c->obj_for != f)
        range_disable(c);
    if (!c->obj) {
        CUpti_RangeProfiler_Enable_Params en = {
            .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        en.ctx = c->ctx;
        CALL(c, cuptiRangeProfilerEnable, &en, out);
        c->obj = en.pRangeProfilerObject;
        c->obj_for = f;
        c->data_for = NULL;
    }
    CUpti_RangeProfiler_Object *obj = c->obj;
    c->t.enable_ms += lap_ms(&t0);

    /* The counter data image: sized by the profiler object for this
     * configuration's metrics and a full batch, initialised afresh for every
     * session. */
    if (c->data_for != f) {
        free(c->data);
        c->data = NULL;
        if (cml_cupti_data_alloc(obj, &f->f, CML_COUNTERS_MAX_BATCH, &c->data, &c->data_size,
                                 c->err, sizeof c->err) != 0)
            goto out;
        c->data_for = f;
    }
    if (cml_cupti_data_init(obj, c->data, c->data_size, c->err, sizeof c->err) != 0)
        goto out;

    /* Always the largest batch: an object kept enabled goes on with the
     * ranges per pass of its first configuration (seen on CUDA 13.0: set up
     * with 1, a later session of 32 recorded 2 ranges). */
    if (cml_cupti_set_config(obj, &f->f, c->data, c->data_size, CUPTI_UserRange,
                             CUPTI_UserReplay, CML_COUNTERS_MAX_BATCH, c->err,
                             sizeof c->err) != 0)
        goto out;
    c->t.config_ms += lap_ms(&t0);

    size_t pass = 0;
    for (int all_submitted = 0; !all_submitted; pass++) {
        if (pass >= MAX_PASSES) {
            snprintf(c->err, sizeof c->err, "the profiler asked for more than %d passes",
                     MAX_PASSES);
            goto out;
        }
        for (size_t j = 0; j < k; j++) {
            /* Start before the flush, not between it and the first range:
             * what Start does (95 ms a measurement on the H200) left the
             * first range of every pass more lines dirty in L2 than the
             * others, which a kernel streaming through L2 wrote back (the
             * first of eight stream controls wrote 47-55 KB to DRAM, the
             * rest 15-38 KB; H200, docs/model-evidence.md §2.1). Between
             * ranges the session is started anyway: only pushed ranges are
             * counted. */
            if (!started) {
                CUpti_RangeProfiler_Start_Params start = {
                    .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
                start.pRangeProfilerObject = obj;
                CALL(c, cuptiRangeProfilerStart, &start, out);
                started = 1;
                c->t.start_ms += lap_ms(&t0);
            }
            /* Cold caches for every range, as ncu's --cache-control all. The
             * flush runs outside any range, and is waited for before the
             * range opens, so none of its traffic is counted. */
            cml_gpu_clear_last_error();
            cml_status fs = cml_ctr_cuda_flush(c->flush, c->flush_bytes);
            if (fs == CML_OK)
                fs = cml_ctr_cuda_sync();
            if (fs != CML_OK) {
                st = CML_ECUDA;
                snprintf(c->err, sizeof c->err, "L2 flush: %s", cml_gpu_last_error());
                goto out;
            }
            c->t.flush_ms += lap_ms(&t0);
            /* A name of its own: ranges of one name are one range to the
             * profiler, their counts summed (seen on CUDA 13.0). */
            char range_name[32];
            snprintf(range_name, sizeof range_name, "cumemlab-%zu", j);
            CUpti_RangeProfiler_PushRange_Params push = {
                .structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
            push.pRangeProfilerObject = obj;
            push.pRangeName = range_name;
            CALL(c, cuptiRangeProfilerPushRange, &push, out);
            pushed = 1;
            c->t.range_ms += lap_ms(&t0);
            cml_gpu_clear_last_error();
            cml_status ls = launch[j](ctx[j]);
            if (ls == CML_OK)
                ls = cml_ctr_cuda_sync();
            if (ls != CML_OK) {
                st = ls == CML_ECUDA ? CML_ECUDA : ls;
                if (failed)
                    *failed = j;
                snprintf(c->err, sizeof c->err, "profiled launch (pass %zu): %s", pass + 1,
                         *cml_gpu_last_error() ? cml_gpu_last_error() : cml_status_str(ls));
                goto out;
            }
            c->t.launch_ms += lap_ms(&t0);
            CUpti_RangeProfiler_PopRange_Params pop = {
                .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
            pop.pRangeProfilerObject = obj;
            CALL(c, cuptiRangeProfilerPopRange, &pop, out);
            pushed = 0;
            c->t.range_ms += lap_ms(&t0);
        }
        CUpti_RangeProfiler_Stop_Params stop = {
            .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        stop.pRangeProfilerObject = obj;
        CALL(c, cuptiRangeProfilerStop, &stop, out);
        started = 0;
        all_submitted = stop.isAllPassSubmitted != 0;
        c->t.stop_ms += lap_ms(&t0);
    }
    c->passes = pass;
    c->t.passes += pass;
    c->t.sessions++;

    if (cml_cupti_decode(obj, &f->f, c->data, c->data_size, k, values, c->err, sizeof c->err) != 0)
        goto out;
    c->t.decode_ms += now_ms() - t0;
    c->t.measurements += k;
    st = CML_OK;
out:
    if (c->obj) {
        abort_pass(c->obj, pushed, started);
        /* After a failure start over from a fresh profiler object. */
        if (st != CML_OK || !c->keep)
            range_disable(c);
    }
    return st;
}

void cml_counters_keep_enabled(cml_counters *c, int keep)
{
    if (!c)
        return;
    c->keep = keep != 0;
    if (!c->keep)
        range_disable(c);
}

void cml_counters_detach(cml_counters *c)
{
    if (c)
        range_disable(c);
}

void cml_counters_timing(const cml_counters *c, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    if (!c || !c->t.measurements) {
        snprintf(buf, len, "no measurement yet");
        return;
    }
    const double n = (double)c->t.measurements;
    const double s = c->t.sessions ? (double)c->t.sessions : 1.0;
    snprintf(buf, len,
             "%llu measurements in %llu sessions (%.1f each), %.2f passes per session; ms per "
             "measurement: enable/disable %.2f, config %.2f, flush %.2f, start %.2f, push+pop "
             "%.2f, launch %.2f, stop %.2f, decode+evaluate %.2f",
             c->t.measurements, c->t.sessions, n / s, (double)c->t.passes / s,
             c->t.enable_ms / n, c->t.config_ms / n, c->t.flush_ms / n, c->t.start_ms / n,
             c->t.range_ms / n, c->t.launch_ms / n, c->t.stop_ms / n, c->t.decode_ms / n);
}

cml_status cml_counters_measure_batch(cml_counters *c, size_t k, const cml_launch_fn *launch,
                                      void *const *ctx, const char *const *metrics, size_t n,
                                      double *values, size_t *failed)
{
    if (failed)
        *failed = SIZE_MAX;
    if (!c || !launch || !ctx || k == 0 || k > CML_COUNTERS_MAX_BATCH || (!metrics && n) ||
        (!values && n))
        return CML_EINVAL;
    for (size_t j = 0; j < k; j++)
        if (!launch[j])
            return CML_EINVAL;
    c->err[0] = '\0';
    const double t0 = now_ms();
    const char **ok = calloc(n ? n : 1, sizeof *ok);
    size_t *where = calloc(n ? n : 1, sizeof *where);
    double *got = calloc(k * (n ? n : 1), sizeof *got);
    cml_status st = CML_ENOMEM;
    if (!ok || !where || !got) {
        snprintf(c->err, sizeof c->err, "out of host memory");
        goto out;
    }
    size_t nok = 0;
    for (size_t i = 0; i < k * n; i++)
        values[i] = NAN;
    for (size_t i = 0; i < n; i++) {
        if (cml_counters_metric_ok(c, metrics[i], NULL, 0)) {
            where[nok] = i;
            ok[nok++] = metrics[i];
        }
    }
    if (nok == 0) {
        st = CML_EUNSUPPORTED;
        snprintf(c->err, sizeof c->err, "none of the %zu metrics can be collected here", n);
        goto out;
    }
    config *f = NULL;
    st = config_get(c, ok, nok, &f);
    if (st == CML_OK)
        st = profile(c, f, k, launch, ctx, got, failed);
    if (st == CML_OK)
        for (size_t j = 0; j < k; j++)
            for (size_t m = 0; m < nok; m++)
                values[j * n + where[m]] = got[j * nok + m];
out:
    free(ok);
    free(where);
    free(got);
    c->t.total_ms += now_ms() - t0;
    return st;
}

double cml_counters_seconds(const cml_counters *c)
{
    return c ? c->t.total_ms / 1e3 : 0.0;
}

cml_status cml_counters_measure(cml_counters *c, cml_launch_fn launch, void *ctx,
                                const char *const *metrics, size_t n, double *values)
{
    if (!launch)
        return CML_EINVAL;
    return cml_counters_measure_batch(c, 1, &launch, &ctx, metrics, n, values, NULL);
}

/* The stream controls of cml_counters_dram_background, in one batch (as
 * the records are profiled), into out; v holds nm values per launch. */
static cml_status stream_controls(cml_counters *c, size_t streams, const char *const *names,
                                  size_t nm, size_t rd, size_t wr, double *v,
                                  cml_dram_background *out)
{
    cml_ctr_stream_args a[CML_DRAM_BACKGROUND_MAX];
    cml_launch_fn fn[CML_DRAM_BACKGROUND_MAX];
    void *ctx[CML_DRAM_BACKGROUND_MAX];
    for (size_t i = 0; i < streams; i++) {
        a[i] = (cml_ctr_stream_args){c->flush, c->flush_bytes, 0};
        fn[i] = cml_ctr_cuda_stream;
        ctx[i] = &a[i];
    }
    cml_status st = cml_counters_measure_batch(c, streams, fn, ctx, names, nm, v, NULL);
    for (size_t i = 0; st == CML_OK && i < streams; i++) {
        if (!isfinite(v[i * nm + rd]) || !isfinite(v[i * nm + wr]) || !(a[i].ms > 0)) {
            snprintf(c->err, sizeof c->err,
                     "stream control %zu: no DRAM bytes or no length (%.3f ms)", i, a[i].ms);
            return CML_EUNSUPPORTED;
        }
        out->stream_ms[i] = a[i].ms;
        out->stream_read_bytes[i] = v[i * nm + rd];
        out->stream_write_bytes[i] = v[i * nm + wr];
        out->stream_n = i + 1;
    }
    return st;
}

cml_status cml_counters_dram_background(cml_counters *c, const double *ms, size_t n,
                                        size_t streams, cml_dram_background *out)
{
    if (!c || !ms || !out || n > CML_DRAM_BACKGROUND_MAX || streams > CML_DRAM_BACKGROUND_MAX)
        return CML_EINVAL;
    memset(out, 0, sizeof *out);
    /* The whole counter map, as every record is profiled: the same
     * configuration as the experiments' ranges (a control profiled with
     * two metrics only left the first range of the next configuration
     * 13 MB of DRAM writes no kernel made, H200, 2026-11-28). */
    const size_t nm = cml_counter_map_count();
    const char *const *names = cml_counter_map_metrics();
    size_t rd = nm, wr = nm;
    for (size_t k = 0; k < nm; k++) {
        if (!strcmp(names[k], "dram__bytes_read.sum"))
            rd = k;
        if (!strcmp(names[k], "dram__bytes_write.sum"))
            wr = k;
    }
    double *v = calloc(nm ? nm * CML_DRAM_BACKGROUND_MAX : 1, sizeof *v);
    if (!v)
        return CML_ENOMEM;
    cml_status st = CML_OK;
    for (size_t i = 0; i < n; i++) {
        if (!(ms[i] > 0 && ms[i] <= CML_DRAM_BACKGROUND_MAX_MS)) {
            st = CML_EINVAL;
            break;
        }
        /* The set is the flush buffer's first 32 KiB (it exists as long as
         * the profiler, and is 3x L2): read once from DRAM at most, 32 KiB
         * of the floor's fixed 256 KiB, then from L2. */
        cml_ctr_busy_args a = {(unsigned long long)(ms[i] * 1e6), c->flush, 8192u};
        st = cml_counters_measure(c, cml_ctr_cuda_l2_busy, &a, names, nm, v);
        if (st != CML_OK)
            break;
        if (rd == nm || wr == nm || !isfinite(v[rd]) || !isfinite(v[wr])) {
            snprintf(c->err, sizeof c->err,
                     "this device has no dram__bytes_read.sum / dram__bytes_write.sum: no DRAM "
                     "background control");
            st = CML_EUNSUPPORTED;
            break;
        }
        out->ms[i] = ms[i];
        out->read_bytes[i] = v[rd];
        out->write_bytes[i] = v[wr];
        out->n = i + 1;
    }
    if (st == CML_OK && streams && rd < nm && wr < nm)
        st = stream_controls(c, streams, names, nm, rd, wr, v, out);
    free(v);
    return st;
}

int cml_counters_built(void)
{
    return 1;
}

cml_status cml_counters_open(int device, cml_counters **out, char *why, size_t whylen)
{
    if (!out || !why || whylen == 0)
        return CML_EINVAL;
    *out = NULL;
    why[0] = '\0';
    cml_counters *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, whylen, "out of host memory");
        return CML_ENOMEM;
    }
    c->device = device;
    /* Kept enabled by default: enabling costs more than the rest of a
     * measurement, and an idle profiler leaves timed launches alone (both
     * measured: docs/model-evidence.md §1). CML_COUNTERS_KEEP=0 turns it off. */
    const char *keep = getenv("CML_COUNTERS_KEEP");
    c->keep = keep && *keep ? atoi(keep) != 0 : 1;
    void *ctx = NULL;
    cml_status st = cml_ctr_cuda_context(device, &ctx, &c->cu_device, why, whylen);
    if (st != CML_OK) {
        free(c);
        return st;
    }
    c->ctx = (CUcontext)ctx;
    if (cml_cupti_acquire(why, whylen) != 0) {
        free(c);
        return CML_EUNSUPPORTED;
    }
    if (cml_cupti_target_facts(c->cu_device, c->device, c->ctx, &c->target, c->err,
                               sizeof c->err) != 0)
        st = strstr(c->err, "out of host memory") ? CML_ENOMEM : CML_EUNSUPPORTED;
    if (st == CML_OK)
        st = cml_ctr_cuda_flush_alloc(&c->flush, &c->flush_bytes, c->err, sizeof c->err);
    if (st == CML_OK) {
        /* The whole map, once, on an empty kernel: every later measurement
         * reuses this configuration, and a handle handed out works. */
        size_t n = cml_counter_map_count();
        double *v = calloc(n, sizeof *v);
        if (!v) {
            st = CML_ENOMEM;
            snprintf(c->err, sizeof c->err, "out of host memory");
        } else {
            st = cml_counters_measure(c, cml_ctr_cuda_noop, NULL, cml_counter_map_metrics(), n, v);
            free(v);
        }
    }
    if (st != CML_OK) {
        snprintf(why, whylen, "%s", c->err[0] ? c->err : cml_status_str(st));
        cml_counters_close(c);
        return st == CML_ENOMEM ? CML_ENOMEM : st == CML_ECUDA ? CML_ECUDA : CML_EUNSUPPORTED;
    }
    c->err[0] = '\0';
    *out = c;
    return CML_OK;
}

void cml_counters_close(cml_counters *c)
{
    if (!c)
        return;
    range_disable(c);
    free(c->data);
    for (int i = 0; i < MAX_CONFIGS; i++)
        config_free(&c->cfg[i]);
    cml_ctr_cuda_free(c->flush);
    free(c->target.avail);
    free(c);
    cml_cupti_release();
}

const char *cml_counters_chip(const cml_counters *c)
{
    return c ? c->target.chip : "";
}

/* ---- the small accessors ------------------------------------------------- */

const char *cml_counters_error(const cml_counters *c)
{
    return c ? c->err : "";
}

size_t cml_counters_passes(const cml_counters *c)
{
    return c ? c->passes : 0;
}

uint64_t cml_counters_flush_bytes(const cml_counters *c)
{
    return c ? c->flush_bytes : 0;
}

#endif /* CML_HAVE_CUPTI; counters_stub.c is the build without it */
