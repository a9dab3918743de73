/*
 * What every command shares: the results header, writing the outputs, the
 * GPU session (open, facts, measured peak) and running one experiment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "counters/counters.h"
#include "experiments/counters_pass.h"
#include "experiments/peak.h"
#include "gpu/gpu.h"
#include "report/report.h"
#include "report/html.h"

void cml_cli_results_init(const cml_cli *cli, cml_results *r)
{
    cml_results_init(r);
    snprintf(r->command_line, sizeof r->command_line, "%s", cli->command_line);
    snprintf(r->tool_version, sizeof r->tool_version, "%s", CUMEMLAB_VERSION);
    r->model_only = 1;
}

int cml_cli_emit(const cml_cli *cli, const cml_results *r)
{
    char err[512];
    int rc = CML_EXIT_OK;
    if (!cli->quiet && cml_report_table(stdout, r) != CML_OK) {
        fprintf(stderr, "cumemlab: cannot write the table to standard output\n");
        rc = CML_EXIT_FAIL;
    }
    fflush(stdout);
    if (cli->json_path &&
        cml_report_write_file(cli->json_path, cml_report_json, r, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: --json: %s\n", err);
        rc = CML_EXIT_FAIL;
    }
    if (cli->csv_path &&
        cml_report_write_file(cli->csv_path, cml_report_csv, r, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: --csv: %s\n", err);
        rc = CML_EXIT_FAIL;
    }
    if (cli->html_path &&
        cml_report_write_file(cli->html_path, cml_report_html, r, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: --html: %s\n", err);
        rc = CML_EXIT_FAIL;
    }
    return rc;
}

int cml_session_open(const cml_cli *cli, cml_session *s, int need_peak, char *why, size_t whylen)
{
    memset(s, 0, sizeof *s);
    s->plan.where = cli->where;
    s->plan.size_bytes = cli->size_bytes;
    s->plan.reps = cli->reps;
    s->plan.warmup = cli->warmup;
    s->plan.quick = cli->quick;
    s->plan.counters = cli->counters;
    if (cli->model_only) {
        snprintf(why, whylen, "--model given");
        return 0;
    }
    int count = cml_gpu_count(why, whylen);
    if (count <= 0)
        return 0;
    if (cli->device >= count) {
        snprintf(why, whylen, "--device %d: this machine has %d GPU%s (allowed 0..%d)",
                 cli->device, count, count == 1 ? "" : "s", count - 1);
        return -1;
    }
    char err[512];
    if (cml_gpu_open(cli->device, &s->gpu, err, sizeof err) != CML_OK) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    s->plan.gpu = s->gpu;
    s->plan.dev = cml_gpu_facts(s->gpu);
    /* --reps N: exactly N samples, never more for a noisy kernel. */
    if (cli->reps)
        cml_gpu_set_noise_limit(s->gpu, 0.0, 1);
    if (need_peak && cli->peak_gbs) {
        s->plan.peak_gbs = (double)cli->peak_gbs; /* --peak: the user's reference */
        s->peak_given = 1;
    } else if (need_peak) {
        /* The reference is DRAM's peak whatever --where/--size ask of the
         * experiments: at L2 sizes it would measure the cache instead. */
        cml_plan dram = s->plan;
        dram.where = CML_WHERE_DRAM;
        dram.size_bytes = 0;
        if (cml_peak_measure(&dram, &s->plan.peak_gbs) != CML_OK) {
            snprintf(why, whylen, "measuring the peak bandwidth failed: %s",
                     cml_gpu_error(s->gpu));
            cml_gpu_close(s->gpu);
            s->gpu = NULL;
            return -1;
        }
    }
    /* Hardware counters, after the peak (which needs none), for every
     * command but `device`, which lists facts and reads no counter. With
     * --counters auto a profiler that cannot run here is said once, and the
     * run goes on without it. */
    if (cli->counters != CML_COUNTERS_OFF && strcmp(cli->command, "device") != 0) {
        char cwhy[512] = "";
        cml_status cst = cml_counters_open(cli->device, &s->plan.profiler, cwhy, sizeof cwhy);
        if (cst != CML_OK && cli->counters == CML_COUNTERS_ON) {
            snprintf(why, whylen, "--counters on: hardware counters unavailable: %s", cwhy);
            cml_gpu_close(s->gpu);
            s->gpu = NULL;
            s->plan.gpu = NULL;
            s->plan.dev = NULL;
            return -1;
        }
        if (cst != CML_OK)
            fprintf(stderr, "cumemlab: hardware counters unavailable (%s); measuring without "
                            "them.\n",
                    cwhy);
        /* The experiments' counters passes go through a queue profiled in
         * batches, flushed before any buffer they read is freed. */
        if (cst == CML_OK) {
            s->plan.counters_pass = cml_counters_pass_open(s->plan.profiler, s->gpu);
            if (s->plan.counters_pass)
                cml_gpu_set_buffer_hook(s->gpu, cml_counters_pass_on_buffer,
                                        s->plan.counters_pass);
        }
    }
    return 1;
}

void cml_session_fill(const cml_session *s, cml_results *r)
{
    if (!s->gpu)
        return;
    r->model_only = 0;
    r->has_device = 1;
    r->device = *s->plan.dev;
    r->peak_gbs = s->plan.peak_gbs;
    r->peak_given = s->peak_given;
}

void cml_session_close(cml_session *s)
{
    /* CML_COUNTERS_TIMING=1: where the counters' time went, on stderr. */
    const char *t = getenv("CML_COUNTERS_TIMING");
    if (s->plan.profiler && t && *t && *t != '0') {
        char line[512];
        cml_counters_timing(s->plan.profiler, line, sizeof line);
        fprintf(stderr, "cumemlab: counters: %s\n", line);
    }
    if (s->gpu)
        cml_gpu_set_buffer_hook(s->gpu, NULL, NULL);
    cml_counters_pass_free(s->plan.counters_pass); /* empty: each run flushed it */
    s->plan.counters_pass = NULL;
    cml_counters_close(s->plan.profiler);
    s->plan.profiler = NULL;
    if (s->gpu)
        cml_gpu_close(s->gpu);
    s->gpu = NULL;
}

/*
 * A progress line on stderr: "[3/16] stride ... 4.2 s elapsed", rewritten in
 * place as each experiment starts. Only when stderr is a terminal (never in
 * a pipe or a log, and never in the JSON/CSV/HTML, which are files), and only
 * once the run has taken a second: short runs stay silent. name == NULL ends
 * the run: the line is cleared, and the next call starts a new clock.
 * C11's timespec_get, not a POSIX clock: the elapsed time is for a person.
 */
void cml_progress(size_t i, size_t n, const char *name)
{
    static int tty = -1;
    static int running, shown;
    static struct timespec start;
    if (tty < 0)
        tty = isatty(STDERR_FILENO);
    if (!tty)
        return;
    if (!name) {
        if (shown)
            fputs("\r\033[K", stderr);
        fflush(stderr);
        running = shown = 0;
        return;
    }
    struct timespec now;
    if (!timespec_get(&now, TIME_UTC))
        return;
    if (!running) {
        start = now;
        running = 1;
    }
    double elapsed =
        (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
    if (elapsed < 1.0)
        return;
    fprintf(stderr, "\r\033[K[%zu/%zu] %s ... %.1f s elapsed", i + 1, n, name, elapsed);
    fflush(stderr);
    shown = 1;
}

int cml_cli_run_experiment(const cml_cli *cli, const cml_experiment *exp, const cml_plan *plan,
                           const char *extra_settings, cml_results *r)
{
    cml_param_values pv;
    char err[512];
    if (cml_param_defaults(exp->params, exp->nparams, &pv, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: %s: bad default: %s\n", exp->key, err);
        return CML_EXIT_FAIL;
    }
    int rc = cml_cli_apply_text(extra_settings, exp, &pv, NULL);
    if (!rc)
        rc = cml_cli_apply_settings(cli, exp, &pv);
    if (rc)
        return rc;
    cml_experiment_fn fn = (plan->gpu && exp->run) ? exp->run : exp->model;
    cml_plan local = *plan;
    if (!exp->run)
        local.gpu = NULL; /* this experiment runs on the model alone so far */
    size_t before = r->count;
    cml_counters_pass_begin(local.counters_pass, r);
    cml_status st = fn(&local, &pv, r);
    /* Every queued counters pass is read before the records are. */
    cml_counters_pass_flush(local.counters_pass);
    cml_counters_pass_begin(local.counters_pass, NULL);
    int failed = 0;
    for (size_t i = before; i < r->count; i++)
        failed |= r->items[i].state == CML_REC_FAILED;
    if (st != CML_OK) {
        const char *msg = plan->gpu ? cml_gpu_error(plan->gpu) : "";
        fprintf(stderr, "cumemlab: %s: %s%s%s\n", exp->key, cml_status_str(st), *msg ? ": " : "",
                msg);
        return CML_EXIT_FAIL;
    }
    return failed ? CML_EXIT_FAIL : CML_EXIT_OK;
}
