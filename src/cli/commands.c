/* The subcommands: list, model, run, suite/tour, device and the textbook
 * program names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "experiments/device_facts.h"
#include "gpu/gpu.h"

int cml_print_experiment_help(const cml_experiment *exp)
{
    printf("%s (experiment %d): %s\n  %s\n\nOptions:\n", exp->key, exp->spec_number, exp->title,
           exp->summary);
    for (size_t i = 0; i < exp->nparams; i++) {
        char range[256];
        cml_param_describe_range(&exp->params[i], range, sizeof range);
        printf("  --%-10s %s\n  %-12s allowed %s; default %s\n", exp->params[i].name,
               exp->params[i].help, "", range, exp->params[i].def);
    }
    printf("\nValues: a list (0,11,128), a range (0:64 or 0:64:8), sizes with k/M/G or 2^k,\n"
           "names for choices, or 'all'.\n");
    for (size_t i = 0; i < cml_textbook_count(); i++)
        if (!strcmp(cml_textbook_at(i)->experiment, exp->key))
            printf("Textbook name: cumemlab %s\n", cml_textbook_at(i)->usage);
    return CML_EXIT_OK;
}

int cml_cmd_list(const cml_cli *cli)
{
    (void)cli;
    printf("Experiments (cumemlab model NAME / cumemlab run NAME; NAME may be a unique prefix):\n\n");
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *e = cml_experiment_at(i);
        printf("%2d  %-16s %s%s\n    %s\n", e->spec_number, e->key, e->title,
               e->run ? "" : "  [model only so far]", e->summary);
        for (size_t p = 0; p < e->nparams; p++) {
            char range[256];
            cml_param_describe_range(&e->params[p], range, sizeof range);
            printf("      --%-10s %s (%s; default %s)\n", e->params[p].name, e->params[p].help,
                   range, e->params[p].def);
        }
    }
    printf("\nTextbook programs (their original arguments):\n");
    for (size_t i = 0; i < cml_textbook_count(); i++)
        printf("  cumemlab %-36s -> %s\n", cml_textbook_at(i)->usage,
               cml_textbook_at(i)->experiment);
    return CML_EXIT_OK;
}

static const cml_experiment *find_or_complain(const char *name)
{
    const cml_experiment *e = cml_experiment_find(name);
    if (!e)
        fprintf(stderr,
                "cumemlab: unknown or ambiguous experiment '%s' (cumemlab list shows them)\n",
                name);
    return e;
}

int cml_cmd_model(const cml_cli *cli)
{
    if (cli->expr)
        return cml_cmd_expr(cli);
    if (cli->npos != 1) {
        fprintf(stderr, "cumemlab: model: name one experiment (cumemlab list), or give --expr\n");
        return CML_EXIT_USAGE;
    }
    const cml_experiment *exp = find_or_complain(cli->pos[0]);
    if (!exp)
        return CML_EXIT_USAGE;
    if (cli->help)
        return cml_print_experiment_help(exp);
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_plan plan = {0};
    plan.where = cli->where;
    plan.size_bytes = cli->size_bytes;
    int rc = cml_cli_run_experiment(cli, exp, &plan, NULL, &r);
    if (rc != CML_EXIT_USAGE) {
        int erc = cml_cli_emit(cli, &r);
        if (!rc)
            rc = erc;
    }
    cml_results_free(&r);
    return rc;
}

/* Open the GPU for a command that needs one; prints the one-line reason. */
static int need_gpu(const cml_cli *cli, cml_session *s, const char *what)
{
    char why[512] = "";
    int got = cml_session_open(cli, s, 1, why, sizeof why);
    if (got == 1)
        return 1;
    fprintf(stderr, "cumemlab: %s needs a GPU: %s%s\n", what, why,
            got == 0 ? " (cumemlab model NAME shows the model's prediction)" : "");
    return 0;
}

int cml_cmd_run(const cml_cli *cli)
{
    if (cli->npos != 1) {
        fprintf(stderr, "cumemlab: run: name one experiment (cumemlab list)\n");
        return CML_EXIT_USAGE;
    }
    const cml_experiment *exp = find_or_complain(cli->pos[0]);
    if (!exp)
        return CML_EXIT_USAGE;
    if (cli->help)
        return cml_print_experiment_help(exp);
    /* Validate the settings before touching the GPU. */
    cml_param_values pv;
    char err[512];
    if (cml_param_defaults(exp->params, exp->nparams, &pv, err, sizeof err) ||
        cml_cli_apply_settings(cli, exp, &pv))
        return CML_EXIT_USAGE;
    cml_session s;
    if (!need_gpu(cli, &s, "run"))
        return CML_EXIT_FAIL;
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_session_fill(&s, &r);
    int rc = cml_cli_run_experiment(cli, exp, &s.plan, NULL, &r);
    int erc = cml_cli_emit(cli, &r);
    cml_results_free(&r);
    cml_session_close(&s);
    return rc ? rc : erc;
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
    int src = cml_cli_check_suite_settings(cli, short_lists);
    if (src)
        return src;
    cml_session s;
    char why[512] = "";
    int got = cml_session_open(cli, &s, 1, why, sizeof why);
    if (got < 0 || (!tour && got == 0)) {
        fprintf(stderr, "cumemlab: %s needs a GPU: %s\n", tour ? "the tour" : "suite", why);
        return CML_EXIT_FAIL;
    }
    if (got == 0)
        fprintf(stderr,
                "cumemlab: no GPU used (%s): running the model-only tour; every figure below is "
                "a prediction, not a measurement.\n",
                why);
    cml_plan plan = s.plan;
    if (tour)
        plan.quick = 1;
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_session_fill(&s, &r);
    int rc = CML_EXIT_OK;
    size_t n = cml_experiment_count();
    for (size_t i = 0; i < n; i++) {
        const cml_experiment *exp = cml_experiment_at(i);
        cml_progress(i, n, exp->key);
        int erc = cml_cli_run_experiment(cli, exp, &plan, short_lists ? exp->tour : NULL, &r);
        if (erc == CML_EXIT_USAGE)
            erc = CML_EXIT_FAIL; /* a bad built-in setting is our bug, not the user's */
        if (erc && !rc)
            rc = erc;
    }
    cml_progress(n, n, NULL);
    int erc = cml_cli_emit(cli, &r);
    cml_results_free(&r);
    cml_session_close(&s);
    return rc ? rc : erc;
}

int cml_cmd_device(const cml_cli *cli)
{
    if (cli->npos || cli->nsettings) {
        fprintf(stderr, "cumemlab: device takes no arguments besides --device N and --json/--csv\n");
        return CML_EXIT_USAGE;
    }
    cml_session s;
    char why[512] = "";
    int got = cml_session_open(cli, &s, 1, why, sizeof why);
    if (got != 1) {
        fprintf(stderr, "cumemlab: device needs a GPU: %s\n", why);
        return CML_EXIT_FAIL;
    }
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_session_fill(&s, &r);
    int rc = cml_device_facts_record(s.plan.dev, &r) == CML_OK ? CML_EXIT_OK : CML_EXIT_FAIL;
    int erc = cml_cli_emit(cli, &r);
    cml_results_free(&r);
    cml_session_close(&s);
    return rc ? rc : erc;
}

int cml_cmd_textbook(const cml_cli *cli, const cml_textbook_alias *alias)
{
    const cml_experiment *exp = cml_experiment_find(alias->experiment);
    if (!exp) {
        fprintf(stderr, "cumemlab: %s: its experiment %s is not built in\n", alias->name,
                alias->experiment);
        return CML_EXIT_FAIL;
    }
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
    cml_session s;
    char why[512] = "";
    int got = cml_session_open(cli, &s, 1, why, sizeof why);
    if (got < 0) {
        fprintf(stderr, "cumemlab: %s: %s\n", alias->name, why);
        return CML_EXIT_FAIL;
    }
    if (got == 0)
        fprintf(stderr, "cumemlab: %s: no GPU used (%s): showing the model's view.\n",
                alias->name, why);
    cml_plan plan = s.plan;
    plan.textbook = 1;
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_session_fill(&s, &r);
    int rc = cml_cli_run_experiment(cli, exp, &plan, settings, &r);
    if (rc != CML_EXIT_USAGE) {
        /* The classic line first, as the book's program printed it. */
        for (size_t i = 0; i < r.count; i++) {
            const cml_record *rec = &r.items[i];
            if (!rec->measured)
                continue;
            printf("%s <<< %llu, %llu >>> %s elapsed %f sec\n", alias->name,
                   (unsigned long long)rec->grid, (unsigned long long)rec->block, rec->variant,
                   rec->timing.median_ms * 1e-3);
        }
        int erc = cml_cli_emit(cli, &r);
        if (!rc)
            rc = erc;
    }
    cml_results_free(&r);
    cml_session_close(&s);
    return rc;
}
