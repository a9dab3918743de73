/*
 * The counters library of `cumemlab trace` (docs/trace.md): loaded into the
 * program's second run by the driver (CUDA_INJECTION64_PATH), it measures
 * the launches the trace records with the lab's counter map, through
 * CUPTI's range profiler in kernel replay (cupti_core.h): each chosen launch
 * is one range, and CUPTI replays it once per pass, saving and restoring the
 * device memory it writes, so the program computes exactly what it would
 * have (the lab's own launches use user replay instead: their kernels are
 * known to write the same output every time; a program's are not).
 *
 * Which launches: the trace's own choice (CML_TRACE_KERNEL, CML_TRACE_LAUNCH:
 * launch N of each chosen kernel, counted per kernel name), seen through
 * CUPTI's driver API callbacks for the launch calls. On a chosen launch's
 * entry the profiler is enabled on its context and started; on its exit it
 * is stopped, decoded and disabled again, so every other launch runs with
 * no profiler attached. Each measured launch becomes a CNTR chunk of the
 * file at CML_COUNTERS_OUT (trace_file.h), which cumemlab trace then copies
 * into the trace; a launch that could not be measured gets a chunk saying
 * why. Other settings: CML_COUNTERS_METRICS (the metrics, comma-separated),
 * CML_TRACE_COMMAND, CML_TRACE_VERBOSE.
 *
 * With CML_COUNTERS_MODE=sass the same launches are counted per
 * instruction instead (counters_sass.c, CUPTI's SASS metrics: the code is
 * patched, so this is a run of its own), each a PCNT chunk.
 *
 * Caches: kernel replay gives no hook to flush L2 between passes, so the
 * first pass sees the caches as the program left them and later passes as
 * the replay's memory restore left them. The L1-level counts (requests,
 * sectors, wavefronts, bank conflicts) do not depend on that; L2 and DRAM
 * figures are compared with the model's cold-cache figures knowing it.
 */
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/cupti_core.h"
#include "trace/inject/counters_sass.h"
#include "trace/inject/inject_common.h"
#include "trace/trace_file.h"

typedef struct kernel_count {
    char *name;
    uint64_t launches;
} kernel_count;

static struct {
    pthread_mutex_t lock;
    int on;
    const char *out, *command;
    uint64_t launch;
    char **metrics;          /* asked for */
    size_t nmetrics;
    cml_tf_writer *w;
    int failed;
    kernel_count *counts;
    size_t ncounts;
    /* The profiler, set up for one device at a time. */
    CUdevice dev;
    int have_target;
    char target_err[512];    /* why the device cannot be profiled ("": it can) */
    cml_cupti_target target;
    cml_cupti_config cfg;
    size_t *where;           /* cfg's metric m is metrics[where[m]] */
    /* The launch being measured (one at a time: the lock is held from its
     * entry to its exit only across the profiler calls, not the launch). */
    int active;
    CUpti_RangeProfiler_Object *obj;
    uint8_t *data;
    size_t data_size;
    char name[1024];
    uint64_t index;
    int sass; /* CML_COUNTERS_MODE=sass: per-instruction counters instead */
    int sass_counted;  /* one launch per run (sass_done says why) */
    const char *done;  /* CML_COUNTERS_DONE: kernels counted in earlier runs */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Whether kernel `name` was counted per instruction in an earlier run
 * (CML_COUNTERS_DONE, one mangled name a line). One launch per run: on
 * the H100 (CUDA 13) CUPTI's SASS metrics counted the first launch of a
 * run and nothing for a second, whatever was kept or reset between them
 * (a second cuptiSassMetricsSetConfig: CUPTI_ERROR_OUT_OF_MEMORY), so
 * cumemlab trace runs the program again for each kernel. */
static int sass_done(const char *name)
{
    size_t len = strlen(name);
    for (const char *p = g.done; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == len && !strncmp(p, name, len))
            return 1;
        p += n + (e ? 1u : 0u);
    }
    return 0;
}

/* The launch index of this call of kernel `name` (0 for its first). */
static uint64_t next_launch(const char *name)
{
    for (size_t i = 0; i < g.ncounts; i++)
        if (strcmp(g.counts[i].name, name) == 0)
            return g.counts[i].launches++;
    kernel_count *c = realloc(g.counts, (g.ncounts + 1u) * sizeof *c);
    char *copy = malloc(strlen(name) + 1u);
    if (c)
        g.counts = c;
    if (!c || !copy) {
        free(copy);
        return UINT64_MAX; /* out of memory: never chosen */
    }
    strcpy(copy, name);
    g.counts[g.ncounts].name = copy;
    g.counts[g.ncounts++].launches = 1;
    return 0;
}

/* A CNTR chunk for the launch being measured: values (cfg's order), or
 * none with `error`. */
/* The counters file, opened at the first chunk (the device is known then). */
static cml_tf_writer *writer(CUcontext ctx)
{
    if (!g.w && !g.failed) {
        g.w = cml_inj_open_writer(g.out, ctx, g.launch, 0, g.command);
        g.failed = g.w == NULL;
    }
    return g.w;
}

static void write_chunk(CUcontext ctx, const double *values, const char *error)
{
    if (!writer(ctx))
        return;
    double *v = malloc((g.nmetrics ? g.nmetrics : 1) * sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < g.nmetrics; i++)
        v[i] = NAN;
    for (size_t m = 0; values && m < g.cfg.n; m++)
        v[g.where[m]] = values[m];
    cml_tf_counters c = {g.name, g.index, values ? (uint32_t)g.cfg.passes : 0u,
                         error ? error : "", g.nmetrics, (const char **)g.metrics, v};
    if (cml_tf_write_counters(g.w, &c) != 0)
        cml_inj_say("the counters could not be written", g.out);
    free(v);
}

/* The device's facts and the configuration of the metrics it can collect,
 * once per device; 0, or -1 with the reason in g.target_err. */
static int setup_device(CUcontext ctx)
{
    CUdevice dev;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS) {
        snprintf(g.target_err, sizeof g.target_err, "the launch's device is not known");
        return -1;
    }
    if (g.have_target && dev == g.dev)
        return g.target_err[0] ? -1 : 0;
    if (g.have_target) {
        cml_cupti_config_free(&g.cfg);
        free(g.target.avail);
        free(g.where);
        g.where = NULL;
    }
    g.have_target = 1;
    g.dev = dev;
    g.target_err[0] = '\0';
    if (cml_cupti_target_facts((int)dev, (int)dev, ctx, &g.target, g.target_err,
                               sizeof g.target_err) != 0)
        return -1;
    const char **ok = calloc(g.nmetrics ? g.nmetrics : 1, sizeof *ok);
    g.where = calloc(g.nmetrics ? g.nmetrics : 1, sizeof *g.where);
    size_t nok = 0;
    for (size_t i = 0; ok && g.where && i < g.nmetrics; i++) {
        char why[256];
        if (cml_cupti_metric_ok(&g.target, g.metrics[i], why, sizeof why)) {
            g.where[nok] = i;
            ok[nok++] = g.metrics[i];
        } else {
            cml_inj_step("metric left out", g.metrics[i]);
        }
    }
    int rc = -1;
    if (!ok || !g.where)
        snprintf(g.target_err, sizeof g.target_err, "out of host memory");
    else if (nok == 0)
        snprintf(g.target_err, sizeof g.target_err, "none of the %zu metrics can be collected",
                 g.nmetrics);
    else
        rc = cml_cupti_config_build(&g.target, &g.cfg, ok, nok, g.target_err,
                                    sizeof g.target_err);
    free(ok);
    return rc;
}

static void disable(void)
{
    if (g.obj) {
        CUpti_RangeProfiler_Disable_Params dis = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        dis.pRangeProfilerObject = g.obj;
        (void)cml_cupti.cuptiRangeProfilerDisable(&dis);
    }
    g.obj = NULL;
    free(g.data);
    g.data = NULL;
}

#define CALL(fn, p)                                                       \
    do {                                                                  \
        CUptiResult r_ = cml_cupti.fn(p);                                 \
        if (r_ != CUPTI_SUCCESS) {                                        \
            cml_cupti_explain_call(err, sizeof err, #fn, r_);             \
            goto fail;                                                    \
        }                                                                 \
    } while (0)

/* Entering a chosen launch: enable, configure (auto range, kernel replay)
 * and start the profiler on its context. */
static void launch_enter(CUcontext ctx)
{
    char err[512] = "";
    static int acquired;
    if (!acquired && cml_cupti_acquire(err, sizeof err) != 0)
        goto fail;
    acquired = 1;
    if (setup_device(ctx) != 0) {
        snprintf(err, sizeof err, "%s", g.target_err);
        goto fail;
    }
    /* The launch measured alone: work queued before it on other streams
     * finished first (on the H100 a kernel of another stream still running
     * added one shared wavefront to trace_program's tile_columns). */
    CUresult sr = cuCtxSynchronize();
    if (sr != CUDA_SUCCESS) {
        const char *es = NULL;
        cuGetErrorString(sr, &es);
        snprintf(err, sizeof err, "the work before the launch failed: %s",
                 es ? es : "unknown CUDA error");
        goto fail;
    }
    CUpti_RangeProfiler_Enable_Params en = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    CALL(cuptiRangeProfilerEnable, &en);
    g.obj = en.pRangeProfilerObject;
    if (cml_cupti_data_alloc(g.obj, &g.cfg, 1, &g.data, &g.data_size, err, sizeof err) != 0 ||
        cml_cupti_data_init(g.obj, g.data, g.data_size, err, sizeof err) != 0)
        goto fail;
    if (cml_cupti_set_config(g.obj, &g.cfg, g.data, g.data_size, CUPTI_AutoRange,
                             CUPTI_KernelReplay, 1, err, sizeof err) != 0)
        goto fail;
    CUpti_RangeProfiler_Start_Params start = {
        .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = g.obj;
    CALL(cuptiRangeProfilerStart, &start);
    g.active = 1;
    cml_inj_step("profiling", g.name);
    return;
fail:
    disable();
    write_chunk(ctx, NULL, err);
}

/* Leaving it: stop (kernel replay has run every pass inside the launch),
 * decode, write, disable. */
static void launch_exit(CUcontext ctx, CUresult launch_result)
{
    char err[512] = "";
    double *values = NULL;
    g.active = 0;
    CUpti_RangeProfiler_Stop_Params stop = {
        .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = g.obj;
    CALL(cuptiRangeProfilerStop, &stop);
    if (launch_result != CUDA_SUCCESS) {
        const char *s = NULL;
        cuGetErrorString(launch_result, &s);
        snprintf(err, sizeof err, "the launch failed: %s", s ? s : "unknown CUDA error");
        goto fail;
    }
    if (!stop.isAllPassSubmitted) {
        snprintf(err, sizeof err, "kernel replay did not run every pass of the launch");
        goto fail;
    }
    values = malloc(g.cfg.n * sizeof *values);
    if (!values) {
        snprintf(err, sizeof err, "out of host memory");
        goto fail;
    }
    if (cml_cupti_decode(g.obj, &g.cfg, g.data, g.data_size, 1, values, err, sizeof err) != 0)
        goto fail;
    disable();
    write_chunk(ctx, values, NULL);
    free(values);
    cml_inj_step("measured", g.name);
    return;
fail:
    free(values);
    disable();
    write_chunk(ctx, NULL, err);
}

/* The PCNT chunk of the launch being measured: its rows, or none with
 * `error`. */
static void write_pc_chunk(CUcontext ctx, const cml_tf_pc_counters *pc, const char *error)
{
    if (!writer(ctx))
        return;
    cml_tf_pc_counters c = *pc;
    c.kernel = g.name;
    c.launch = g.index;
    c.error = error ? error : "";
    if (error)
        c.npcs = 0;
    if (cml_tf_write_pc_counters(g.w, &c) != 0)
        cml_inj_say("the per-instruction counters could not be written", g.out);
}

/* The third run's entry of a chosen launch: SASS metrics collection on. */
static void sass_enter(CUcontext ctx, CUfunction f)
{
    char err[512] = "";
    static int acquired;
    CUdevice dev;
    if (!acquired && cml_cupti_acquire(err, sizeof err) != 0)
        goto fail;
    acquired = 1;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS) {
        snprintf(err, sizeof err, "the launch's device is not known");
        goto fail;
    }
    if (cml_sass_begin(ctx, dev, f, err, sizeof err) != 0)
        goto fail;
    g.active = 1;
    cml_inj_step("counting per instruction", g.name);
    return;
fail:;
    cml_tf_pc_counters none;
    memset(&none, 0, sizeof none);
    write_pc_chunk(ctx, &none, err);
}

/* ... and its exit: the values of the kernel's own instructions written. */
static void sass_exit(CUcontext ctx, CUresult launch_result)
{
    char err[512] = "";
    cml_tf_pc_counters pc;
    g.active = 0;
    int rc = cml_sass_end(ctx, g.name, &pc, err, sizeof err);
    if (launch_result != CUDA_SUCCESS) {
        const char *s = NULL;
        cuGetErrorString(launch_result, &s);
        snprintf(err, sizeof err, "the launch failed: %s", s ? s : "unknown CUDA error");
        rc = -1;
    }
    write_pc_chunk(ctx, &pc, rc ? err : NULL);
    cml_sass_free(&pc);
    cml_inj_step("counted per instruction", g.name);
}

/* The launch calls' parameter blocks as far as the function: the first
 * members of generated_cuda_meta.h's cuLaunchKernel_params (and _ptsz,
 * cuLaunchCooperativeKernel_params) and cuLaunchKernelEx_params (and
 * _ptsz). That header cannot be included from C on its own (it needs the
 * driver's internal _v1 types), so the two shapes are spelled out here. */
typedef struct launch_params_head {
    CUfunction f;
} launch_params_head;
typedef struct launch_ex_params_head {
    const CUlaunchConfig *config;
    CUfunction f;
} launch_ex_params_head;

/* The function a launch call launches (NULL when not known). */
static CUfunction launched_function(CUpti_CallbackId cbid, const void *params)
{
    if (!params)
        return NULL;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return ((const launch_params_head *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return ((const launch_ex_params_head *)params)->f;
    default:
        return NULL;
    }
}

static int is_launch(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
}

static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    (void)user;
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !is_launch(cbid))
        return;
    const CUpti_CallbackData *d = data;
    /* One chosen launch at a time: the lock is taken at its entry and
     * released at its exit, on the same thread (CUPTI calls both there), so
     * another thread's launch waits rather than run inside the range. A
     * launch callback raised on this thread while it measures (nested in
     * the chosen launch) is let through, its exit too: `nested` counts them. */
    static __thread int measuring, nested;
    if (measuring) {
        if (d->callbackSite == CUPTI_API_ENTER) {
            nested++;
            return;
        }
        if (nested > 0) {
            nested--;
            return;
        }
        CUresult rc = CUDA_SUCCESS;
        if (d->functionReturnValue)
            rc = *(const CUresult *)d->functionReturnValue;
        if (g.sass)
            sass_exit(d->context, rc);
        else
            launch_exit(d->context, rc);
        measuring = 0;
        pthread_mutex_unlock(&g.lock);
        return;
    }
    if (d->callbackSite != CUPTI_API_ENTER)
        return;
    pthread_mutex_lock(&g.lock);
    const char *name = d->symbolName ? d->symbolName : "";
    int pick = 0;
    if (g.on && *name) {
        char *dem = cml_inj_demangle(name);
        pick = cml_inj_chosen(name, dem);
        free(dem);
    }
    uint64_t index = pick ? next_launch(name) : 0;
    if (pick && index == g.launch && !(g.sass && (g.sass_counted || sass_done(name)))) {
        snprintf(g.name, sizeof g.name, "%s", name);
        g.index = index;
        if (g.sass) {
            g.sass_counted = 1;
            sass_enter(d->context, launched_function(cbid, d->functionParams));
        } else {
            launch_enter(d->context);
        }
    }
    if (g.active)
        measuring = 1; /* the lock stays held until this launch's exit */
    else
        pthread_mutex_unlock(&g.lock);
}

static void finish(void)
{
    pthread_mutex_lock(&g.lock);
    if (g.on && !g.w && !g.failed)
        g.w = cml_inj_open_writer(g.out, NULL, g.launch, 0, g.command); /* nothing measured */
    if (g.w && cml_tf_writer_close(g.w) != 0)
        cml_inj_say("the counters file could not be written whole", g.out);
    g.w = NULL;
    g.on = 0;
    pthread_mutex_unlock(&g.lock);
}

/* The metric list, split at commas into g.metrics; 0 or -1. */
static int parse_metrics(const char *list)
{
    size_t n = 1;
    for (const char *s = list; *s; s++)
        n += *s == ',';
    if (n > CML_TF_MAX_METRICS)
        return -1;
    g.metrics = calloc(n, sizeof *g.metrics);
    if (!g.metrics)
        return -1;
    const char *s = list;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len) {
            char *m = malloc(len + 1u);
            if (!m)
                return -1;
            memcpy(m, s, len);
            m[len] = '\0';
            g.metrics[g.nmetrics++] = m;
        }
        s += len + (e ? 1u : 0u);
    }
    return g.nmetrics ? 0 : -1;
}

static int setup(void)
{
    cml_inj_verbose = cml_inj_env_u64("CML_TRACE_VERBOSE", 0) == 1;
    g.out = getenv("CML_COUNTERS_OUT");
    const char *metrics = getenv("CML_COUNTERS_METRICS");
    const char *mode = getenv("CML_COUNTERS_MODE");
    g.sass = mode && !strcmp(mode, "sass");
    g.done = getenv("CML_COUNTERS_DONE");
    if (!g.out || !*g.out || (!g.sass && (!metrics || parse_metrics(metrics) != 0))) {
        cml_inj_say("CML_COUNTERS_OUT and CML_COUNTERS_METRICS are not set: nothing is measured "
                    "(run the program through cumemlab trace)", NULL);
        return 0;
    }
    if (cml_inj_filter_init() != 0)
        return 0;
    g.command = getenv("CML_TRACE_COMMAND") ? getenv("CML_TRACE_COMMAND") : "";
    g.launch = cml_inj_env_u64("CML_TRACE_LAUNCH", 0);
    char why[512];
    /* Only loaded here: the profiler itself is initialised at the first
     * chosen launch, once the driver is (inside the driver's own start,
     * where this runs, cuptiProfilerInitialize fails: CUPTI_ERROR_UNKNOWN,
     * seen on CUDA 13.0, driver 580, H100). */
    if (!cml_cupti_load()) {
        cml_inj_say("the counters cannot be read", cml_cupti.why);
        return 0;
    }
    typedef CUptiResult (*subscribe_fn)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    typedef CUptiResult (*enable_fn)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                     CUpti_CallbackId);
    subscribe_fn subscribe;
    enable_fn enable;
    void *s = dlsym(cml_cupti.lib, "cuptiSubscribe"), *e = dlsym(cml_cupti.lib, "cuptiEnableCallback");
    if (!s || !e) {
        cml_inj_say("libcupti has no cuptiSubscribe/cuptiEnableCallback", NULL);
        return 0;
    }
    memcpy(&subscribe, &s, sizeof subscribe); /* object to function pointer, as POSIX allows */
    memcpy(&enable, &e, sizeof enable);
    static const CUpti_CallbackId ids[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
    CUpti_SubscriberHandle sub;
    CUptiResult r = subscribe(&sub, on_callback, NULL);
    for (size_t i = 0; r == CUPTI_SUCCESS && i < sizeof ids / sizeof ids[0]; i++)
        r = enable(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]);
    if (r != CUPTI_SUCCESS) {
        cml_cupti_explain_call(why, sizeof why, "cuptiSubscribe", r);
        cml_inj_say("cannot subscribe to CUPTI's launch callbacks", why);
        return 0;
    }
    g.on = 1;
    atexit(finish);
    cml_inj_step("counters library subscribed", NULL);
    return 1;
}

/* The driver's entry point and the library's constructor (inject.c says
 * why both, and why 1). */
CML_INJ_ENTRY(setup)
