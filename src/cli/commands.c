/* The subcommands: list, model, run, suite/tour, device and the textbook
 * program names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "cli/cli.h"
#include "cli/session.h"
#include "lab/progress.h"
#include "lab/lab.h"
#include "experiments/device_facts/device_facts.h"
#include "gpu/gpu.h"

int cml_cmd_list(const cml_cli *cli)
{
    if (cli->npos) {
        fprintf(stderr, "cumemlab: list takes no arguments, not '%s' (cumemlab help NAME shows "
                        "one experiment)\n",
                cli->pos[0]);
        return CML_EXIT_USAGE;
    }
    /* With --json the registry goes to the file (or standard output) as
     * data, and the text listing is not printed beside it. */
    if (cli->json_path)
        return cml_cmd_list_json(cli);
    printf("Experiments (cumemlab model NAME / cumemlab run NAME; NAME may be a unique prefix):\n\n");
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *e = cml_experiment_at(i);
        printf("%2d  %-16s %s%s\n    %s\n", e->number, e->key, e->title,
               e->measure ? "" : "  [model only so far]", e->summary);
        for (size_t p = 0; p < e->noptions; p++) {
            char range[256];
            cml_param_describe_range(&e->options[p], range, sizeof range);
            printf("      --%-10s %s (%s; default %s)\n", e->options[p].name, e->options[p].help,
                   range, e->options[p].def);
        }
    }
    printf("\nThe book's programs, run as the book runs them (cumemlab textbook lists "
           "them):\n");
    for (size_t i = 0; i < cml_book_count(); i++) {
        const cml_book_program *p = cml_book_at(i);
        char usage[96];
        snprintf(usage, sizeof usage, "%s %s", p->name, p->args_usage);
        printf("  cumemlab %-36s %s\n", usage, p->file);
    }
    printf("\nOther textbook names (the lab's experiment on the book's topic):\n");
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *e = cml_experiment_at(i);
        for (size_t k = 0; k < e->naliases; k++)
            printf("  cumemlab %-36s -> %s\n", e->aliases[k].usage, e->key);
    }
    return CML_EXIT_OK;
}

/* Points one `model NAME` answers at most: a record costs the model up to
 * about 65 ms (a naive transpose's cache levels on one core,
 * bench/results/2026-11-27-model-latency.md), so a larger sweep could run
 * for minutes. */
#define MODEL_MAX_POINTS 1024u

/* The sweep's size against MODEL_MAX_POINTS: CML_EXIT_USAGE with one line
 * naming the swept options and their counts when it is larger. */
static int model_points_fit(const cml_experiment *exp, const cml_param_values *pv)
{
    const size_t points = cml_lab_points(exp, pv);
    if (points <= MODEL_MAX_POINTS)
        return CML_EXIT_OK;
    char swept[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < pv->ndefs && used < sizeof swept; i++) {
        if (pv->list[i].count < 2)
            continue;
        int n = snprintf(swept + used, sizeof swept - used, "%s--%s %zu", used ? " x " : "",
                         pv->defs[i].name, pv->list[i].count);
        used += n > 0 ? (size_t)n : 0;
    }
    fprintf(stderr,
            "cumemlab: model %s: %zu points (%s); a model run answers at most %u: sweep fewer "
            "values\n",
            exp->key, points, swept, MODEL_MAX_POINTS);
    return CML_EXIT_USAGE;
}

int cml_cmd_model(const cml_cli *cli)
{
    if (cli->expr || cli->src || cli->show_kernel)
        return cml_cmd_expr(cli);
    static cml_cli_request req; /* static: the options' value lists are large */
    int done;
    int rc = cml_cli_request_one(cli, "model", ", or give --expr", &req, &done);
    if (!done)
        rc = model_points_fit(req.exp, &req.pv);
    if (done || rc)
        return rc;
    req.lab.model_only = 1;
    return cml_cli_run_request(cli, &req, NULL);
}

/*
 * run NAME, the whole path: main.c parsed argv into the typed global
 * settings (option_table.c); cml_cli_request_one (options.c) resolves the
 * experiment and its options once; cml_cli_run_request (session.c) has the
 * lab open the GPU (lab.c), run the experiment through the sweep (sweep.c,
 * the experiment's folder, the harness) and close, and emits the records
 * (report/). No step calls back into the command line: the progress line
 * is the engine's own (lab/progress.c).
 */
int cml_cmd_run(const cml_cli *cli)
{
    /* Index expressions, and the expr experiment itself (whose --block
     * takes XxY), go through expr_cmd.c. */
    const cml_experiment *named = cli->npos == 1 ? cml_experiment_find(cli->pos[0]) : NULL;
    if (cli->nexprs || cli->src || (named && !strcmp(named->key, "expr")))
        return cml_cmd_run_expr(cli);
    static cml_cli_request req; /* static: the options' value lists are large */
    int done;
    int rc = cml_cli_request_one(cli, "run", "", &req, &done);
    if (done)
        return rc;
    return cml_cli_run_request(cli, &req, "run");
}

int cml_cmd_suite(const cml_cli *cli, int tour)
{
    if (cli->npos) {
        fprintf(stderr, "cumemlab: %s takes no experiment name (use run NAME)\n",
                tour ? "tour" : "suite");
        return CML_EXIT_USAGE;
    }
    /* suite --quick: every experiment with the tour's short variant lists. */
    const int short_lists = tour || cli->quick;
    /* Experiment options apply to the experiments that have them. */
    cml_param_values *pvs;
    int src = cml_cli_suite_options(cli, short_lists, &pvs);
    if (src)
        return src;
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_lab_settings ls = cml_cli_lab_settings(cli);
    if (tour)
        ls.quick = 1;
    cml_lab lab;
    cml_lab_state got = cml_lab_open(&lab, &ls, &r);
    if (got == CML_LAB_FAILED || (!tour && got == CML_LAB_MODEL)) {
        if (got == CML_LAB_MODEL) /* suite measures: it has no model-only form */
            fprintf(stderr, "cumemlab: suite needs a GPU: %s (suite measures every experiment; "
                            "without a GPU, cumemlab --model runs the tour on the model alone "
                            "and cumemlab model NAME one experiment)\n",
                    lab.why);
        else
            fprintf(stderr, "cumemlab: %s: %s\n", tour ? "the tour" : "suite", lab.why);
        cml_lab_close(&lab);
        cml_results_free(&r);
        free(pvs);
        return CML_EXIT_FAIL;
    }
    int rc = CML_EXIT_OK;
    size_t n = cml_experiment_count();
    for (size_t i = 0; i < n; i++) {
        const cml_experiment *exp = cml_experiment_at(i);
        cml_progress(i, n, exp->key);
        int erc = cml_cli_exit_of(cml_lab_run(&lab, exp, &pvs[i], &r));
        if (erc && !rc)
            rc = erc;
    }
    cml_progress(n, n, NULL);
    cml_lab_close(&lab);
    free(pvs);
    int erc = cml_cli_emit_run(cli, &r);
    cml_results_free(&r);
    return rc ? rc : erc;
}

int cml_cmd_device(const cml_cli *cli)
{
    if (cli->npos || cli->nsettings) {
        fprintf(stderr, "cumemlab: device takes no arguments besides --device N or --all and "
                        "--json/--csv\n");
        return CML_EXIT_USAGE;
    }
    if (cli->all_gpus && cli->device_given) {
        fprintf(stderr, "cumemlab: device: --all and --device N name different GPUs: give one\n");
        return CML_EXIT_USAGE;
    }
    if (cli->all_gpus)
        return cml_cmd_device_all(cli);
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_lab lab;
    const cml_lab_settings ls = cml_cli_lab_settings(cli);
    if (!cml_cli_open_gpu(&ls, &lab, &r, "device")) {
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    int rc = cml_device_facts_record(lab.plan.dev, &r) == CML_OK ? CML_EXIT_OK : CML_EXIT_FAIL;
    cml_lab_close(&lab);
    int erc = cml_cli_emit(cli, &r);
    cml_results_free(&r);
    return rc ? rc : erc;
}

int cml_cmd_textbook(const cml_cli *cli, const cml_experiment *exp,
                     const cml_textbook_alias *alias)
{
    if (cli->help) {
        printf("cumemlab %s\n  the textbook program, run as experiment %s with %s\n\n",
               alias->usage, exp->key, alias->fixed);
        return cml_print_experiment_help(exp);
    }
    /* Positional arguments become the program's own parameters. */
    char settings[512];
    snprintf(settings, sizeof settings, "%s", alias->fixed);
    for (int i = 0; i < cli->npos; i++) {
        if (i >= 4 || !alias->positional[i]) {
            fprintf(stderr, "cumemlab: %s: too many arguments (usage: cumemlab %s)\n",
                    alias->name, alias->usage);
            return CML_EXIT_USAGE;
        }
        size_t used = strlen(settings);
        snprintf(settings + used, sizeof settings - used, " %s=%s", alias->positional[i],
                 cli->pos[i]);
    }
    /* Bad arguments are refused before anything is opened or said. */
    cml_param_values pv;
    if (cml_cli_experiment_options(cli, exp, settings, &pv))
        return CML_EXIT_USAGE;
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_lab_settings ls = cml_cli_lab_settings(cli);
    ls.textbook = 1;
    cml_lab lab;
    if (cml_lab_open(&lab, &ls, &r) == CML_LAB_FAILED) {
        fprintf(stderr, "cumemlab: %s: %s\n", alias->name, lab.why);
        cml_lab_close(&lab);
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    int rc = cml_cli_exit_of(cml_lab_run(&lab, exp, &pv, &r));
    cml_lab_close(&lab);
    /* The classic line first, as the book's program printed it. */
    FILE *human = cml_cli_human_out(cli);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        if (!rec->measured)
            continue;
        fprintf(human, "%s <<< %llu, %llu >>> %s elapsed %f sec\n", alias->name,
               (unsigned long long)rec->grid, (unsigned long long)rec->block, rec->variant,
               rec->timing.median_ms * 1e-3);
    }
    int erc = cml_cli_emit_run(cli, &r);
    cml_results_free(&r);
    return rc ? rc : erc;
}
