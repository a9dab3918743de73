/*
 * The timing expectations the GPU tests do not assert, measured and
 * reported. A test that fails because a card was busy, throttled or shared
 * says nothing about the program; these figures still matter to a person
 * reading a card's results, so they are printed here, each beside the bound
 * it is expected to keep and whether it kept it:
 *
 *   harness   the median's 95% half-width on a trivial kernel under the
 *             stopping rule (5 to 27 samples, target 0.5%); a launcher that synchronises itself: the whole
 *             timing within 5 s and its median below 50 ms (one 50 ms hold
 *             timeout in all, not one per sample)        (tests/gpu/test_harness.c)
 *   profiler  a launch timed with the profiler kept enabled (idle) within
 *             10% of the same launch with it disabled    (tests/gpu/test_counters.c)
 *   peak      every class's reference below 105% of the theoretical
 *             bandwidth; a pure read or write stream at least as fast as
 *             copy and triad (no bus turnaround); the lab's quick search
 *             above half of the full experiment's reference
 *                                                        (tests/gpu/test_peak.c)
 *
 * Usage: bench_gpu_timing [--quick] (--quick, or CML_QUICK_TEST set: one
 * small size for the peak experiment). Needs a GPU: says why and exits 2
 * without one. Otherwise exits 0 whatever the figures: it reports, it does
 * not judge; "NOT KEPT" marks a bound a figure missed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "core/stats.h"
#include "counters/counters.h"
#include "experiments/offset/offset_body.h"
#include "experiments/peak/peak.h"
#include "gpu/gpu.h"
#include "lab/experiment.h"
#include "lab/sweep.h"

static unsigned missed; /* bounds a figure did not keep */

static double wall_s(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One line: what was measured, its value and unit, the bound it is expected
 * to keep, and whether it kept it. */
static void report(const char *what, double value, const char *unit, const char *bound, int kept)
{
    printf("  %-50s %12.4f %-5s %-22s %s\n", what, value, unit, bound, kept ? "kept" : "NOT KEPT");
    missed += !kept;
}

/* A launcher that waits for the GPU itself (as a symbol copy does). */
static cml_status launch_and_wait(void *ctx)
{
    cml_status st = cml_peak_launch(ctx);
    if (st == CML_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = CML_ECUDA;
    return st;
}

static void harness(cml_gpu *g)
{
    printf("harness (tests/gpu/test_harness.c):\n");
    cml_peak_bench bench;
    if (cml_peak_bench_open(g, 4096, 256, &bench) != CML_OK) {
        printf("  not measured: %s\n", cml_gpu_error(g));
        return;
    }
    cml_peak_args a;
    cml_timing t;
    if (cml_peak_configure(&bench, CML_PEAK_COPY, CML_PEAK_GS_V16_U4, &a, NULL) == CML_OK) {
        /* At least 5 samples, up to 27, until the median is pinned to 0.5%. */
        cml_gpu_set_noise_limit(g, 0.005, 3);
        if (cml_gpu_time(g, cml_peak_launch, &a, 2, 9, &t) == CML_OK) {
            char what[96];
            cml_stats got = {.n = t.reps, .median = t.median_ms, .mean = t.mean_ms, .cv = t.cv};
            const double half = 1.96 * 1.2533141373155001 * t.cv / sqrt((double)t.reps);
            snprintf(what, sizeof what, "median's 95%% half-width, 4096-float copy, %u samples",
                     t.reps);
            report(what, 100.0 * half, "%", "<= 0.5", cml_stats_median_settled(&got, 5, 0.005));
        }
        cml_gpu_set_noise_limit(g, 1e-9, 3);
        const double t0 = wall_s();
        if (cml_gpu_time(g, launch_and_wait, &a, 1, 4, &t) == CML_OK) {
            const double took = wall_s() - t0;
            report("a synchronising launcher: the whole timing", took, "s", "< 5", took < 5.0);
            report("a synchronising launcher: median sample", t.median_ms, "ms", "< 50",
                   t.median_ms < 50.0);
        }
        cml_gpu_set_noise_limit(g, 0.005, 4); /* the default again */
    }
    cml_peak_bench_close(&bench);
}

static void profiler(cml_gpu *g)
{
    printf("profiler (tests/gpu/test_counters.c):\n");
    char why[512];
    cml_counters *c = NULL;
    if (cml_counters_open(0, &c, why, sizeof why) != CML_OK) {
        printf("  not measured: the hardware counters are unavailable: %s\n", why);
        return;
    }
    const uint64_t n = (uint64_t)1 << 22; /* floats per array, 16 MiB */
    cml_dbuf A = {0}, B = {0}, C = {0};
    if (cml_gpu_alloc(g, &A, n * 4) != CML_OK || cml_gpu_fill_f32(g, &A, n, 1) != CML_OK ||
        cml_gpu_alloc(g, &B, n * 4) != CML_OK || cml_gpu_fill_f32(g, &B, n, 2) != CML_OK ||
        cml_gpu_alloc(g, &C, n * 4) != CML_OK) {
        printf("  not measured: %s\n", cml_gpu_error(g));
    } else {
        cml_offset_launch_args a = {A.ptr, B.ptr, C.ptr, n, 0, 256, 0, 0};
        const char *names[1] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"};
        double v[1];
        cml_timing off, on;
        cml_counters_keep_enabled(c, 0);
        cml_status st = cml_gpu_time(g, cml_offset_launch, &a, 3, 30, &off);
        cml_counters_keep_enabled(c, 1);
        if (st == CML_OK)
            st = cml_counters_measure(c, cml_offset_launch, &a, names, 1, v);
        if (st == CML_OK)
            st = cml_gpu_time(g, cml_offset_launch, &a, 3, 30, &on);
        if (st == CML_OK) {
            const double diff = 100.0 * (on.median_ms - off.median_ms) / off.median_ms;
            printf("  read offset 0, 2^22 floats: profiler disabled %.4f ms (cv %.2f%%), kept "
                   "enabled %.4f ms (cv %.2f%%)\n",
                   off.median_ms, 100.0 * off.cv, on.median_ms, 100.0 * on.cv);
            report("kept enabled against disabled", diff, "%", "within +-10", fabs(diff) <= 10.0);
        } else {
            printf("  not measured: %s\n", cml_gpu_error(g));
        }
    }
    cml_gpu_free(g, &A);
    cml_gpu_free(g, &B);
    cml_gpu_free(g, &C);
    cml_counters_close(c);
}

static void peak(cml_gpu *g, int quick)
{
    printf("peak bandwidth (tests/gpu/test_peak.c):\n");
    const cml_experiment *e = &cml_exp_peak;
    cml_param_values pv;
    char err[256];
    if (cml_param_defaults(e->options, e->noptions, &pv, err, sizeof err) != CML_OK) {
        printf("  not measured: %s\n", err);
        return;
    }
    cml_plan plan;
    memset(&plan, 0, sizeof plan);
    if (quick) {
        if (cml_param_set(&pv, "size", "4194316", err, sizeof err) != CML_OK) {
            printf("  not measured: %s\n", err);
            return;
        }
        plan.warmup = 1;
        plan.reps = 3;
    }
    plan.gpu = g;
    plan.dev = cml_gpu_facts(g);
    plan.where = CML_WHERE_DRAM;
    cml_results out;
    cml_results_init(&out);
    if (cml_sweep_run(e, &plan, &pv, &out) != CML_OK) {
        printf("  not measured: %s\n", cml_gpu_error(g));
        cml_results_free(&out);
        return;
    }
    const double theo = plan.dev->theoretical_gbs;
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        char what[80];
        snprintf(what, sizeof what, "%s reference (%.1f GB/s), of theoretical",
                 cml_peak_class_name(c), out.peaks.gbs[c]);
        report(what, 100.0 * out.peaks.gbs[c] / theo, "%", "< 105", out.peaks.gbs[c] < 1.05 * theo);
    }
    /* A pure stream never turns the bus around: it is expected to beat every mix. */
    const double pure = out.peaks.gbs[CML_PEAK_CLASS_READ] > out.peaks.gbs[CML_PEAK_CLASS_WRITE]
                            ? out.peaks.gbs[CML_PEAK_CLASS_READ]
                            : out.peaks.gbs[CML_PEAK_CLASS_WRITE];
    report("pure stream against copy", pure / out.peaks.gbs[CML_PEAK_CLASS_COPY], "x", ">= 1",
           pure >= out.peaks.gbs[CML_PEAK_CLASS_COPY]);
    report("pure stream against triad", pure / out.peaks.gbs[CML_PEAK_CLASS_TRIAD], "x", ">= 1",
           pure >= out.peaks.gbs[CML_PEAK_CLASS_TRIAD]);
    cml_peak_refs q;
    if (cml_peak_measure(&plan, &q) == CML_OK) {
        for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
            char what[80];
            snprintf(what, sizeof what, "quick search, %s, of the experiment's",
                     cml_peak_class_name(c));
            report(what, 100.0 * q.gbs[c] / out.peaks.gbs[c], "%", "> 50",
                   q.gbs[c] > 0.5 * out.peaks.gbs[c]);
        }
    } else {
        printf("  quick search not measured: %s\n", cml_gpu_error(g));
    }
    cml_results_free(&out);
}

int main(int argc, char **argv)
{
    int quick = getenv("CML_QUICK_TEST") != NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "bench_gpu_timing: unknown argument '%s' (usage: bench_gpu_timing "
                            "[--quick])\n", argv[i]);
            return 2;
        }
    }
    char why[512];
    cml_gpu *g = NULL;
    if (cml_gpu_open(0, &g, why, sizeof why) != CML_OK) {
        fprintf(stderr, "bench_gpu_timing: needs a GPU: %s\n", why);
        return 2;
    }
    const cml_device_facts *f = cml_gpu_facts(g);
    printf("bench_gpu_timing on %s (%d SMs, theoretical %.1f GB/s): figure, bound, kept\n",
           f->name, f->sm_count, f->theoretical_gbs);
    harness(g);
    profiler(g);
    peak(g, quick);
    printf("%u bound%s not kept (reported, not judged)\n", missed, missed == 1 ? "" : "s");
    cml_gpu_close(g);
    return 0;
}
