/*
 * What every command shares: the results header, the lab's settings from
 * the options, running one experiment through the lab, writing the outputs
 * and the progress line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "core/exp_desc.h"
#include "experiments/registry.h"
#include "report/report.h"
#include "report/html.h"

void cml_cli_results_init(const cml_cli *cli, cml_results *r)
{
    cml_results_init(r);
    snprintf(r->command_line, sizeof r->command_line, "%s", cli->command_line);
    snprintf(r->tool_version, sizeof r->tool_version, "%s", CUMEMLAB_VERSION);
    r->model_only = 1;
}

FILE *cml_cli_human_out(const cml_cli *cli)
{
    return cli->machine_stdout ? stderr : stdout;
}

cml_status cml_cli_describe(cml_results *r)
{
    const cml_experiment *const *rows = cml_registry_rows();
    const size_t nrows = cml_experiment_count();
    for (size_t i = 0; i < r->count; i++) {
        const char *key = r->items[i].experiment;
        if (cml_exp_descs_find(&r->descs, key))
            continue;
        for (size_t k = 0; k < nrows; k++) {
            const cml_experiment *e = rows[k];
            if (!e || !e->key || strcmp(e->key, key) != 0)
                continue;
            char err[160];
            cml_status st = cml_exp_descs_add(&r->descs, key, e->number, e->title, e->charts,
                                                 e->charts ? e->ncharts : 0, err, sizeof err);
            /* A row out of the bounds a reader enforces is a mistake in the
             * row, which the tests catch (test_json_read): say so, and
             * write the file without it rather than one no reader takes. */
            if (st == CML_EINVAL)
                fprintf(stderr, "cumemlab: %s: not described in the results: %s\n", key, err);
            else if (st != CML_OK)
                return st;
            break;
        }
    }
    return CML_OK;
}

int cml_cli_emit(const cml_cli *cli, cml_results *r)
{
    if (cml_cli_describe(r) != CML_OK) {
        fprintf(stderr, "cumemlab: out of memory\n");
        return CML_EXIT_FAIL;
    }
    return cml_cli_emit_read(cli, r);
}

int cml_cli_emit_read(const cml_cli *cli, const cml_results *r)
{
    char err[512];
    int rc = CML_EXIT_OK;
    cml_progress(0, 0, NULL); /* the progress line, if any, goes before the table */
    FILE *human = cml_cli_human_out(cli);
    if (!cli->quiet && cml_report_table(human, r) != CML_OK) {
        fprintf(stderr, "cumemlab: cannot write the table to standard %s\n",
                human == stdout ? "output" : "error");
        rc = CML_EXIT_FAIL;
    }
    fflush(human);
    /* The run's diagnostics, once, on the terminal's error stream (the
     * files carry them too). */
    for (size_t i = 0; i < r->ndiags; i++) {
        const cml_diagnostic *d = &r->diags[i];
        const int info = d->level == CML_DIAG_INFO;
        fprintf(stderr, "cumemlab: %s%s%s%s%s\n", info ? "" : cml_diag_level_name(d->level),
                info ? "" : ": ", d->experiment, d->experiment[0] ? ": " : "", d->message);
    }
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

int cml_cli_emit_run(const cml_cli *cli, cml_results *r)
{
    int rc = cml_cli_emit(cli, r);
    size_t waived = 0, shown = 0;
    for (size_t i = 0; i < r->count; i++) {
        waived += r->items[i].state == CML_REC_WAIVED;
        shown += r->items[i].state == CML_REC_OK;
    }
    if (shown || (waived < r->count))
        return rc; /* figures, or failed records (their own lines said so) */
    if (!r->count)
        fprintf(stderr, "cumemlab: no records: the options given leave no variant to run\n");
    else if (r->count == 1)
        fprintf(stderr, "cumemlab: nothing to show: the one record was waived, for the reason "
                        "above\n");
    else
        fprintf(stderr, "cumemlab: nothing to show: all %zu records were waived, for the "
                        "reasons above\n",
                r->count);
    return CML_EXIT_FAIL;
}

/*
 * Progress on stderr, never in the JSON/CSV/HTML (files) nor on stdout:
 *   - on a terminal, one line rewritten in place: "[3/16] stride ... 4.2 s
 *     elapsed" as each experiment of a suite starts, "[3/16] pitch2d 5/16
 *     ... 12.3 s" (or "pitch2d 5/16 ..." outside a suite) as each point of
 *     a sweep starts; only once the run has taken a second (short runs stay
 *     silent), and erased before the table;
 *   - elsewhere (a log, a pipe, CI), plain lines that are never rewritten,
 *     and few: "cumemlab: [3/16] stride ... 4.2 s elapsed" as each
 *     experiment of a suite starts, and within a sweep one line every 10 s
 *     at most; none with -q.
 * C11's timespec_get, not a POSIX clock: the elapsed time is for a person.
 */
#define PROGRESS_LOG_EVERY_S 10.0

static struct {
    int tty, running, shown, quiet;
    struct timespec start;
    double logged;       /* elapsed at the last plain line */
    size_t exp_i, exp_n; /* the suite's experiment, 0 of 0 outside a suite */
} progress = {-1, 0, 0, 0, {0, 0}, 0.0, 0, 0};

static void progress_text(const char *name, size_t point, size_t points, double elapsed)
{
    if (progress.exp_n)
        fprintf(stderr, "[%zu/%zu] ", progress.exp_i + 1, progress.exp_n);
    fprintf(stderr, "%s", name);
    if (points > 1)
        fprintf(stderr, " %zu/%zu", point + 1, points);
    fprintf(stderr, " ... %.1f s elapsed", elapsed);
}

/* starts: an experiment of a suite starts (else a point of a sweep). */
static void progress_draw(const char *name, size_t point, size_t points, int starts)
{
    if (progress.tty < 0)
        progress.tty = isatty(STDERR_FILENO);
    if (!progress.tty && progress.quiet)
        return;
    struct timespec now;
    if (!timespec_get(&now, TIME_UTC))
        return;
    if (!progress.running) {
        progress.start = now;
        progress.running = 1;
        progress.logged = 0.0;
    }
    double elapsed = (double)(now.tv_sec - progress.start.tv_sec) +
                     1e-9 * (double)(now.tv_nsec - progress.start.tv_nsec);
    if (!progress.tty) {
        if (starts ? !progress.exp_n : elapsed - progress.logged < PROGRESS_LOG_EVERY_S)
            return;
        fputs("cumemlab: ", stderr);
        progress_text(name, point, points, elapsed);
        fputc('\n', stderr);
        fflush(stderr);
        progress.logged = elapsed;
        return;
    }
    if (elapsed < 1.0)
        return;
    fputs("\r\033[K", stderr);
    progress_text(name, point, points, elapsed);
    fflush(stderr);
    progress.shown = 1;
}

void cml_progress(size_t i, size_t n, const char *name)
{
    if (!name) {
        if (progress.shown)
            fputs("\r\033[K", stderr);
        fflush(stderr);
        progress.running = progress.shown = 0;
        progress.exp_i = progress.exp_n = 0;
        return;
    }
    progress.exp_i = i;
    progress.exp_n = n;
    progress_draw(name, 0, 0, 1);
}

/* The lab's progress callback (cml_plan.progress). */
static void progress_point(void *user, const char *experiment, size_t point, size_t points)
{
    (void)user;
    progress_draw(experiment, point, points, 0);
}

cml_lab_settings cml_cli_lab_settings(const cml_cli *cli)
{
    cml_lab_settings s;
    memset(&s, 0, sizeof s);
    s.device = cli->device;
    s.model_only = cli->model_only;
    s.counters = cli->counters;
    s.measure_peak = 1;
    s.peak_gbs = (double)cli->peak_gbs;
    s.peak_cache = cli->peak_measure ? CML_PEAK_CACHE_REFRESH : CML_PEAK_CACHE_USE;
    s.where = cli->where;
    s.size_bytes = cli->size_bytes;
    s.reps = cli->reps;
    s.warmup = cli->warmup;
    s.quick = cli->quick;
    s.progress = progress_point;
    progress.quiet = cli->quiet; /* -q: no plain progress lines either */
    return s;
}

int cml_cli_run_experiment(const cml_cli *cli, cml_lab *lab, const cml_experiment *exp,
                           const char *extra_settings, cml_results *r)
{
    cml_param_values pv;
    int rc = cml_cli_experiment_options(cli, exp, extra_settings, &pv);
    if (rc)
        return rc;
    cml_status st = cml_lab_run(lab, exp, &pv, r);
    return st == CML_OK ? CML_EXIT_OK : CML_EXIT_FAIL;
}
