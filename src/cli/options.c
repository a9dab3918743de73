/*
 * The command line's settings, typed, before anything runs: the lab's (from
 * the global options, which option_table.c parsed) and each experiment's
 * own: its defaults, the tour's or a textbook program's settings, then what
 * the user typed, each checked against the experiment's option table. A
 * command resolves them here once and then only opens the lab, runs and
 * emits (cml_cli_request).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "lab/lab.h"

/* The parameter name of a setting ("--offset 11" or "offset=11"). */
static void setting_name(const cml_setting *s, char *name, size_t len)
{
    size_t n = s->value ? strlen(s->name) : strcspn(s->name, "=");
    snprintf(name, len, "%.*s", (int)n, s->name);
}

/* Apply the command line's settings to pv; suite and the tour pass by an
 * experiment that lacks the option (cml_cli_suite_options makes
 * sure some experiment has it). */
static int apply_cli_settings(const cml_cli *cli, const cml_experiment *exp, cml_param_values *pv,
                              int suite)
{
    char err[512];
    for (int i = 0; i < cli->nsettings; i++) {
        const cml_setting *s = &cli->settings[i];
        char name[64];
        setting_name(s, name, sizeof name);
        if (suite && cml_param_index(pv, name) < 0)
            continue;
        cml_status st;
        if (s->value) {
            st = cml_lab_set_option(exp, pv, s->name, s->value, NULL, err, sizeof err);
        } else {
            /* "name=value" as typed: one setting, split at its first '=' */
            const char *eq = strchr(s->name, '=');
            st = cml_lab_set_option(exp, pv, name, eq + 1, NULL, err, sizeof err);
        }
        if (st) {
            fprintf(stderr, "cumemlab: %s\n", err);
            return CML_EXIT_USAGE;
        }
    }
    return CML_EXIT_OK;
}

int cml_cli_experiment_options(const cml_cli *cli, const cml_experiment *exp, const char *extra,
                               cml_param_values *pv)
{
    char err[512];
    if (cml_lab_options(exp, extra, NULL, pv, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: %s: %s\n", exp->key, err);
        return CML_EXIT_USAGE;
    }
    const int suite = !strcmp(cli->command, "suite") || !strcmp(cli->command, "tour");
    int rc = apply_cli_settings(cli, exp, pv, suite);
    if (rc)
        return rc;
    /* Values that are each in range but cannot run together, refused now
     * rather than failing record by record. */
    if (cml_lab_check_options(exp, pv, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: %s\n", err);
        return CML_EXIT_USAGE;
    }
    return CML_EXIT_OK;
}

int cml_cli_suite_options(const cml_cli *cli, int short_lists, cml_param_values **out)
{
    *out = NULL;
    for (int i = 0; i < cli->nsettings; i++) {
        char name[64];
        setting_name(&cli->settings[i], name, sizeof name);
        int known = 0;
        for (size_t e = 0; e < cml_experiment_count() && !known; e++) {
            const cml_experiment *exp = cml_experiment_at(e);
            for (size_t k = 0; k < exp->noptions && !known; k++)
                known = !strcmp(exp->options[k].name, name);
        }
        if (!known) {
            fprintf(stderr, "cumemlab: --%s: no experiment has this option (see cumemlab help NAME)\n",
                    name);
            return CML_EXIT_USAGE;
        }
    }
    /* Every value within every range it meets, before anything runs; the
     * values are kept, so that each experiment runs on what was checked. */
    const size_t n = cml_experiment_count();
    cml_param_values *pv = calloc(n ? n : 1, sizeof *pv);
    if (!pv) {
        fprintf(stderr, "cumemlab: out of memory\n");
        return CML_EXIT_FAIL;
    }
    for (size_t e = 0; e < n; e++) {
        const cml_experiment *exp = cml_experiment_at(e);
        int rc = cml_cli_experiment_options(cli, exp, short_lists ? exp->tour : NULL, &pv[e]);
        if (rc) {
            free(pv);
            return rc;
        }
    }
    *out = pv;
    return CML_EXIT_OK;
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
    s.progress = 1;
    s.quiet = cli->quiet; /* -q: no plain progress lines either */
    return s;
}

int cml_cli_request_one(const cml_cli *cli, const char *cmd, const char *or_else,
                        cml_cli_request *req, int *done)
{
    memset(req, 0, sizeof *req);
    *done = 1;
    if (cli->npos != 1) {
        if (cli->npos == 0)
            fprintf(stderr, "cumemlab: %s: name one experiment (cumemlab list)%s\n", cmd,
                    or_else);
        else
            fprintf(stderr, "cumemlab: %s %s: unexpected argument '%s' (one experiment at a "
                            "time; its options are written --NAME VALUE)\n",
                    cmd, cli->pos[0], cli->pos[1]);
        return CML_EXIT_USAGE;
    }
    req->exp = cml_experiment_find(cli->pos[0]);
    if (!req->exp) {
        fprintf(stderr,
                "cumemlab: unknown or ambiguous experiment '%s' (cumemlab list shows them)\n",
                cli->pos[0]);
        return CML_EXIT_USAGE;
    }
    if (cli->help)
        return cml_print_experiment_help(req->exp);
    int rc = cml_cli_experiment_options(cli, req->exp, NULL, &req->pv);
    if (rc)
        return rc;
    req->lab = cml_cli_lab_settings(cli);
    *done = 0;
    return CML_EXIT_OK;
}
