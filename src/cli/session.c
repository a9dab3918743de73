/*
 * What every command shares: the results header, the lab's settings from
 * the options, running one experiment through the lab, writing the outputs
 * and the progress line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "core/exp_desc.h"
#include "lab/progress.h"
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

int cml_cli_exit_of(cml_status st)
{
    return st == CML_OK ? CML_EXIT_OK : CML_EXIT_FAIL;
}

int cml_cli_open_gpu(const cml_lab_settings *ls, cml_lab *lab, cml_results *r, const char *what)
{
    cml_lab_state got = cml_lab_open(lab, ls, r);
    if (got == CML_LAB_GPU)
        return 1;
    if (got == CML_LAB_MODEL)
        fprintf(stderr, "cumemlab: %s needs a GPU: %s (cumemlab model NAME shows the model's "
                        "prediction)\n",
                what, lab->why);
    else /* a GPU is there: what stopped the run (a busy profiler, say) */
        fprintf(stderr, "cumemlab: %s: %s\n", what, lab->why);
    cml_lab_close(lab);
    return 0;
}

int cml_cli_run_request(const cml_cli *cli, const cml_cli_request *req, const char *needs_gpu)
{
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_lab lab;
    if (!needs_gpu) {
        cml_lab_open(&lab, &req->lab, &r); /* the model runs whatever it finds */
    } else if (!cml_cli_open_gpu(&req->lab, &lab, &r, needs_gpu)) {
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    const int rc = cml_cli_exit_of(cml_lab_run(&lab, req->exp, &req->pv, &r));
    cml_lab_close(&lab);
    const int erc = cml_cli_emit_run(cli, &r);
    cml_results_free(&r);
    return rc ? rc : erc;
}
