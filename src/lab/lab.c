/*
 * The run engine (lab.h): the device, its peak and its counters opened once
 * per command; each experiment run through the sweep engine with the
 * counters pass around it; diagnostics for whatever the run could not do.
 */
#include "lab/lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters/counters.h"
#include "gpu/gpu.h"
#include "lab/counters_pass.h"
#include "lab/peak.h"
#include "lab/peak_cache.h"
#include "lab/progress.h"
#include "lab/sweep.h"

/* Give up the device and say why (the lab then has no GPU). */
static cml_lab_state open_failed(cml_lab *lab, cml_results *r)
{
    cml_lab_close(lab);
    cml_results_diag(r, CML_DIAG_ERROR, NULL, "%s", lab->why);
    return CML_LAB_FAILED;
}

#define NO_COUNTERS "--counters on: hardware counters unavailable: "

/* The profiler, after the peak (which needs none). With --counters auto a
 * profiler that cannot run here is a warning, and the run goes on. */
static cml_lab_state open_counters(cml_lab *lab, const cml_lab_settings *s, cml_results *r)
{
    char why[sizeof lab->why - sizeof NO_COUNTERS + 1] = ""; /* fits after the prefix */
    cml_status st = cml_counters_open(s->device, &lab->plan.profiler, why, sizeof why);
    if (st != CML_OK) {
        lab->plan.profiler = NULL;
        if (s->counters == CML_COUNTERS_ON) {
            snprintf(lab->why, sizeof lab->why, NO_COUNTERS "%s", why);
            return open_failed(lab, r);
        }
        cml_results_diag(r, CML_DIAG_WARNING, NULL,
                         "hardware counters unavailable (%s); measured without them", why);
        return CML_LAB_GPU;
    }
    /* The experiments' counters passes go through a queue profiled in
     * batches, flushed before any buffer they read is freed. */
    lab->plan.counters_pass = cml_counters_pass_open(lab->plan.profiler, lab->gpu);
    if (lab->plan.counters_pass)
        cml_gpu_set_buffer_hook(lab->gpu, cml_counters_pass_on_buffer, lab->plan.counters_pass);
    return CML_LAB_GPU;
}

/* Wall seconds since *t0 (timespec_get, TIME_UTC). */
static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    timespec_get(&t1, TIME_UTC);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* The peak references kept for this GPU (lab/peak_cache.h), when the
 * settings allow and the entry matches: 1, said in the diagnostics. */
static int reuse_peak(cml_lab *lab, const cml_lab_settings *s, cml_results *r)
{
    if (s->peak_cache != CML_PEAK_CACHE_USE)
        return 0;
    char when[64], why[512], path[1200];
    if (cml_peak_cache_load(lab->plan.dev, &lab->plan.peaks, when, sizeof when, why,
                            sizeof why) != CML_OK)
        return 0;
    if (cml_peak_cache_path(lab->plan.dev, path, sizeof path, why, sizeof why) != CML_OK)
        path[0] = '\0';
    cml_results_diag(r, CML_DIAG_INFO, NULL,
                     "peak references of this GPU reused from %s (measured %s; the key: UUID, "
                     "driver, runtime and clocks); --peak measure measures them again",
                     path, when);
    return 1;
}

/* The CUDA tool loaded into this process, if any, named for the message:
 * the library CUDA_INJECTION64_PATH gives the driver (Nsight Compute, and
 * `cumemlab trace` for the program it records), or compute-sanitizer,
 * which leaves that variable empty and sets its own (seen under CUDA
 * 13.0's: NV_SANITIZER_INJECTION_PORT_BASE, NVTX_INJECTION64_PATH). NULL
 * when none. */
static const char *injected_tool(void)
{
    const char *lib = getenv("CUDA_INJECTION64_PATH");
    if (lib && lib[0])
        return lib;
    const char *port = getenv("NV_SANITIZER_INJECTION_PORT_BASE");
    return port && port[0] ? "compute-sanitizer" : NULL;
}

/* After a measured peak: how long it took, and the entry kept for the next
 * run (a failure to keep it is a warning, never the run's). References
 * measured under an injected tool are not kept: its instrumentation slows
 * the kernels, not the driver's copies (read 181.6 and triad 281.7 GB/s
 * where the H100 does 3139.5 and 3055.8, measured under `cumemlab trace`
 * and reused by every later run on that GPU, 2026-11-28; read 260.8 on an
 * H200 after a run under compute-sanitizer, 2026-11-29). */
static void keep_peak(cml_lab *lab, const cml_lab_settings *s, cml_results *r, double secs)
{
    char why[512] = "", path[1200] = "";
    if (s->peak_cache == CML_PEAK_CACHE_OFF) {
        cml_results_diag(r, CML_DIAG_INFO, NULL, "peak references measured in %.1f s", secs);
        return;
    }
    const char *tool = injected_tool();
    if (tool) {
        cml_results_diag(r, CML_DIAG_WARNING, NULL,
                         "peak references measured in %.1f s under a CUDA tool loaded into this "
                         "process (%.300s): its instrumentation slows the kernels, so this run's "
                         "peak %% may read high, and they are not kept for the next runs",
                         secs, tool);
        return;
    }
    if (cml_peak_cache_store(lab->plan.dev, &lab->plan.peaks, why, sizeof why) != CML_OK) {
        cml_results_diag(r, CML_DIAG_WARNING, NULL,
                         "peak references measured in %.1f s, not kept for the next run: %s",
                         secs, why);
        return;
    }
    (void)cml_peak_cache_path(lab->plan.dev, path, sizeof path, why, sizeof why);
    cml_results_diag(r, CML_DIAG_INFO, NULL,
                     "peak references measured in %.1f s and kept in %s for the next runs on "
                     "this GPU",
                     secs, path);
}

cml_lab_state cml_lab_open(cml_lab *lab, const cml_lab_settings *s, cml_results *r)
{
    memset(lab, 0, sizeof *lab);
    lab->plan.where = s->where;
    lab->plan.size_bytes = s->size_bytes;
    lab->plan.reps = s->reps;
    lab->plan.warmup = s->warmup;
    lab->plan.quick = s->quick;
    lab->plan.textbook = s->textbook;
    lab->plan.counters = s->counters;
    lab->plan.exprs = s->exprs;
    lab->plan.nexprs = s->nexprs;
    if (s->progress) {
        lab->plan.progress = cml_progress_point;
        cml_progress_quiet(s->quiet);
    }
    r->model_only = 1;
    if (s->model_only) {
        /* Asked for: the results' model_only says it; no fallback to report. */
        snprintf(lab->why, sizeof lab->why, "--model given");
        return CML_LAB_MODEL;
    }
    int count = cml_gpu_count(lab->why, sizeof lab->why);
    if (count <= 0) {
        cml_results_diag(r, CML_DIAG_INFO, NULL,
                         "no GPU used (%s): the model alone runs, and every figure is a "
                         "prediction",
                         lab->why);
        return CML_LAB_MODEL;
    }
    if (s->device >= count) {
        snprintf(lab->why, sizeof lab->why, "--device %d: this machine has %d GPU%s (allowed 0..%d)",
                 s->device, count, count == 1 ? "" : "s", count - 1);
        return open_failed(lab, r);
    }
    if (cml_gpu_open(s->device, &lab->gpu, lab->why, sizeof lab->why) != CML_OK)
        return open_failed(lab, r);
    lab->plan.gpu = lab->gpu;
    lab->plan.dev = cml_gpu_facts(lab->gpu);
    /* --reps N: exactly N samples, never more for a noisy kernel. */
    if (s->reps)
        cml_gpu_set_noise_limit(lab->gpu, 0.0, 1);
    int peak_given = 0;
    if (s->measure_peak && s->peak_gbs > 0) {
        cml_peak_refs_given(&lab->plan.peaks, s->peak_gbs); /* --peak: the user's reference */
        peak_given = 1;
    } else if (s->measure_peak && !reuse_peak(lab, s, r)) {
        /* The references are DRAM's whatever --where/--size ask of the
         * experiments: at L2 sizes they would measure the cache instead. */
        cml_plan dram = lab->plan;
        dram.where = CML_WHERE_DRAM;
        dram.size_bytes = 0;
        struct timespec t0;
        timespec_get(&t0, TIME_UTC);
        if (cml_peak_measure(&dram, &lab->plan.peaks) != CML_OK) {
            snprintf(lab->why, sizeof lab->why, "measuring the peak bandwidth failed: %s",
                     cml_gpu_error(lab->gpu));
            return open_failed(lab, r);
        }
        keep_peak(lab, s, r, seconds_since(&t0));
    }
    lab->plan.peak_gbs = cml_peak_refs_max(&lab->plan.peaks);
    r->model_only = 0;
    r->has_device = 1;
    r->device = *lab->plan.dev;
    r->peak_gbs = lab->plan.peak_gbs;
    r->peaks = lab->plan.peaks;
    r->peak_given = peak_given;
    if (s->counters == CML_COUNTERS_OFF)
        return CML_LAB_GPU;
    return open_counters(lab, s, r);
}

cml_status cml_lab_set_option(const cml_experiment *exp, cml_param_values *pv, const char *name,
                              const char *value, const char *origin, char *err, size_t errlen)
{
    if (cml_param_index(pv, name) < 0) {
        char known[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < exp->noptions && used + 1 < sizeof known; i++) {
            int w = snprintf(known + used, sizeof known - used, "%s--%s", i ? ", " : "",
                             exp->options[i].name);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        snprintf(err, errlen, "--%s: not an option of %s%s%s (its options: %s)", name, exp->key,
                 origin ? " in " : "", origin ? origin : "", exp->noptions ? known : "none");
        return CML_EINVAL;
    }
    return cml_param_set(pv, name, value, err, errlen);
}

cml_status cml_lab_options(const cml_experiment *exp, const char *text, const char *origin,
                           cml_param_values *pv, char *err, size_t errlen)
{
    cml_status st = cml_param_defaults(exp->options, exp->noptions, pv, err, errlen);
    if (st)
        return st;
    const char *p = text ? text : "";
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        const char *eq = memchr(p, '=', len);
        char name[64], value[512];
        size_t nlen = eq ? (size_t)(eq - p) : 0, vlen = eq ? len - nlen - 1 : 0;
        if (!eq || nlen == 0 || nlen >= sizeof name || vlen >= sizeof value) {
            snprintf(err, errlen, "malformed setting '%.*s'%s%s (expected name=value)", (int)len,
                     p, origin ? " in " : "", origin ? origin : "");
            return CML_EINVAL;
        }
        memcpy(name, p, nlen);
        name[nlen] = '\0';
        memcpy(value, eq + 1, vlen);
        value[vlen] = '\0';
        st = cml_lab_set_option(exp, pv, name, value, origin, err, errlen);
        if (st)
            return st;
        p += len;
    }
    return CML_OK;
}

size_t cml_lab_points(const cml_experiment *exp, const cml_param_values *pv)
{
    return cml_sweep_points(exp, pv);
}

cml_status cml_lab_check_options(const cml_experiment *exp, const cml_param_values *pv,
                                 char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    return exp->check ? exp->check(pv, err, errlen) : CML_OK;
}

cml_status cml_lab_run(cml_lab *lab, const cml_experiment *exp, const cml_param_values *pv,
                       cml_results *r)
{
    char err[512];
    if (cml_sweep_check_row(exp, err, sizeof err) != CML_OK) {
        cml_results_diag(r, CML_DIAG_ERROR, exp->key, "not run: %s", err);
        return CML_EINVAL;
    }
    const size_t before = r->count;
    struct timespec t0;
    timespec_get(&t0, TIME_UTC);
    const double timed0 = cml_gpu_timed_seconds(lab->gpu);
    double phase0[CML_GPU_PHASES];
    for (int k = 0; k < CML_GPU_PHASES; k++)
        phase0[k] = cml_gpu_phase_seconds(lab->gpu, (cml_gpu_phase)k);
    const double counted0 = cml_counters_seconds(lab->plan.profiler);
    cml_counters_pass_begin(lab->plan.counters_pass, r);
    cml_status st = cml_sweep_run(exp, &lab->plan, pv, r);
    /* Every queued counters pass is read before the records are. */
    cml_counters_pass_flush(lab->plan.counters_pass);
    cml_counters_pass_begin(lab->plan.counters_pass, NULL);
    /* On the GPU, what the experiment cost and where it went (the suite's
     * time by experiment: bench/results/); a model-only run is
     * deterministic and says nothing. */
    if (lab->gpu) {
        const double all = seconds_since(&t0);
        const double timed = cml_gpu_timed_seconds(lab->gpu) - timed0;
        const double counted = cml_counters_seconds(lab->plan.profiler) - counted0;
        double ph[CML_GPU_PHASES], rest = all - timed - counted;
        for (int k = 0; k < CML_GPU_PHASES; k++) {
            ph[k] = cml_gpu_phase_seconds(lab->gpu, (cml_gpu_phase)k) - phase0[k];
            rest -= ph[k];
        }
        cml_results_diag(r, CML_DIAG_INFO, exp->key,
                         "%zu records in %.1f s: timing %.1f s, counters %.1f s, model %.1f s, "
                         "allocations %.1f s, copies %.1f s, fills %.1f s, checks %.1f s, the "
                         "rest %.1f s",
                         r->count - before, all, timed, counted, ph[CML_GPU_PHASE_MODEL],
                         ph[CML_GPU_PHASE_ALLOC], ph[CML_GPU_PHASE_COPY],
                         ph[CML_GPU_PHASE_FILL], ph[CML_GPU_PHASE_CHECK], rest);
    }
    size_t failed = 0;
    for (size_t i = before; i < r->count; i++) {
        const cml_record *rec = &r->items[i];
        if (rec->state == CML_REC_WAIVED)
            cml_results_diag(r, CML_DIAG_WARNING, exp->key, "%s waived: %s", rec->variant,
                             rec->note);
        if (rec->state == CML_REC_FAILED) {
            failed++;
            cml_results_diag(r, CML_DIAG_ERROR, exp->key, "%s failed: %s", rec->variant,
                             rec->note);
        }
    }
    if (st != CML_OK) {
        const char *msg = lab->gpu ? cml_gpu_error(lab->gpu) : "";
        cml_results_diag(r, CML_DIAG_ERROR, exp->key, "stopped after %zu record%s: %s%s%s",
                         r->count - before, r->count - before == 1 ? "" : "s",
                         cml_status_str(st), *msg ? ": " : "", msg);
        return st;
    }
    return failed ? CML_EVERIFY : CML_OK;
}

void cml_lab_close(cml_lab *lab)
{
    /* CML_COUNTERS_TIMING=1: where the counters' time went, on stderr (a
     * developer's switch, not a result). */
    const char *t = getenv("CML_COUNTERS_TIMING");
    if (lab->plan.profiler && t && *t && *t != '0') {
        char line[512];
        cml_counters_timing(lab->plan.profiler, line, sizeof line);
        fprintf(stderr, "cumemlab: counters: %s\n", line);
    }
    if (lab->gpu)
        cml_gpu_set_buffer_hook(lab->gpu, NULL, NULL);
    cml_counters_pass_free(lab->plan.counters_pass); /* empty: each run flushed it */
    lab->plan.counters_pass = NULL;
    cml_counters_close(lab->plan.profiler);
    lab->plan.profiler = NULL;
    if (lab->gpu)
        cml_gpu_close(lab->gpu);
    lab->gpu = NULL;
    lab->plan.gpu = NULL;
    lab->plan.dev = NULL;
}
