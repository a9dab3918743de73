/*
 * Option parsing: a table of the options every subcommand shares, each
 * validated with its range; anything else of the form --name value (or
 * --name=value) is kept for the experiment, which validates it against its
 * own parameter declarations.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* Parse one integer option with the parameter machinery, so ranges and
 * messages look the same everywhere. */
static int parse_number(const char *name, const char *text, int64_t min, int64_t max,
                        int64_t *out)
{
    cml_param_def def = {name, "", min, max, "0", NULL, 0};
    cml_param_list list;
    char err[256];
    if (cml_param_parse(&def, text, &list, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: %s\n", err);
        return 0;
    }
    if (list.count != 1) {
        fprintf(stderr, "cumemlab: --%s: one value expected, got '%s'\n", name, text);
        return 0;
    }
    *out = list.v[0];
    return 1;
}

/* Options that take no value. */
static int flag(cml_cli *cli, const char *name)
{
    if (!strcmp(name, "help") || !strcmp(name, "h")) return cli->help = 1;
    if (!strcmp(name, "quick")) return cli->quick = 1;
    if (!strcmp(name, "model")) return cli->model_only = 1;
    if (!strcmp(name, "quiet") || !strcmp(name, "q")) return cli->quiet = 1;
    return 0;
}

/* The parameter name of a setting ("--offset 11" or "offset=11"). */
static void setting_name(const cml_setting *s, char *name, size_t len)
{
    size_t n = s->value ? strlen(s->name) : strcspn(s->name, "=");
    snprintf(name, len, "%.*s", (int)n, s->name);
}

static void record_command_line(cml_cli *cli, int argc, char **argv)
{
    size_t used = 0;
    cli->command_line[0] = '\0';
    for (int i = 0; i < argc && used + 1 < sizeof cli->command_line; i++) {
        int w = snprintf(cli->command_line + used, sizeof cli->command_line - used, "%s%s",
                         i ? " " : "", argv[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

int cml_cli_parse(cml_cli *cli, int argc, char **argv, int first)
{
    record_command_line(cli, argc, argv);
    cli->device = 0;
    cli->counters = CML_COUNTERS_AUTO;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0' || (arg[1] != '-' && !strchr("hq", arg[1]))) {
            /* positional, or a bare name=value setting */
            const char *eq = strchr(arg, '=');
            if (eq && eq != arg && arg[0] != '-') {
                if (cli->nsettings >= CML_CLI_MAX_SETTINGS) {
                    fprintf(stderr, "cumemlab: too many settings (at most %d)\n",
                            CML_CLI_MAX_SETTINGS);
                    return CML_EXIT_USAGE;
                }
                /* kept as "name=value": split when applied */
                cli->settings[cli->nsettings].name = arg;
                cli->settings[cli->nsettings++].value = NULL;
                continue;
            }
            if (cli->npos >= (int)(sizeof cli->pos / sizeof cli->pos[0])) {
                fprintf(stderr, "cumemlab: too many arguments: '%s'\n", arg);
                return CML_EXIT_USAGE;
            }
            cli->pos[cli->npos++] = arg;
            continue;
        }
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        if (!strcmp(arg, "--")) {
            fprintf(stderr, "cumemlab: '--' is not used by cumemlab\n");
            return CML_EXIT_USAGE;
        }
        char namebuf[64];
        const char *value = NULL;
        const char *eq = strchr(name, '=');
        if (eq) {
            size_t len = (size_t)(eq - name);
            if (len >= sizeof namebuf) {
                fprintf(stderr, "cumemlab: unknown option '%s'\n", arg);
                return CML_EXIT_USAGE;
            }
            memcpy(namebuf, name, len);
            namebuf[len] = '\0';
            name = namebuf;
            value = eq + 1;
        }
        if (!value && flag(cli, name))
            continue;
        if (value && (!strcmp(name, "help") || !strcmp(name, "quick") || !strcmp(name, "model") ||
                      !strcmp(name, "quiet"))) {
            fprintf(stderr, "cumemlab: --%s takes no value\n", name);
            return CML_EXIT_USAGE;
        }
        if (!value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cumemlab: --%s needs a value\n", name);
                return CML_EXIT_USAGE;
            }
            value = argv[++i];
        }
        int64_t v;
        if (!strcmp(name, "json")) {
            cli->json_path = value;
        } else if (!strcmp(name, "csv")) {
            cli->csv_path = value;
        } else if (!strcmp(name, "html")) {
            cli->html_path = value;
        } else if (!strcmp(name, "expr")) {
            cli->expr = value;
        } else if (!strcmp(name, "device")) {
            if (!parse_number("device", value, 0, 63, &v))
                return CML_EXIT_USAGE;
            cli->device = (int)v;
        } else if (!strcmp(name, "size")) {
            if (!parse_number("size", value, 4096, (int64_t)1 << 40, &v))
                return CML_EXIT_USAGE;
            cli->size_bytes = (uint64_t)v;
        } else if (!strcmp(name, "peak")) {
            if (!parse_number("peak", value, 1, 1000000, &v))
                return CML_EXIT_USAGE;
            cli->peak_gbs = (unsigned)v;
        } else if (!strcmp(name, "reps")) {
            if (!parse_number("reps", value, 1, 100000, &v))
                return CML_EXIT_USAGE;
            cli->reps = (unsigned)v;
        } else if (!strcmp(name, "warmup")) {
            if (!parse_number("warmup", value, 0, 1000, &v))
                return CML_EXIT_USAGE;
            cli->warmup = (unsigned)v;
        } else if (!strcmp(name, "counters")) {
            if (!strcmp(value, "auto")) cli->counters = CML_COUNTERS_AUTO;
            else if (!strcmp(value, "on")) cli->counters = CML_COUNTERS_ON;
            else if (!strcmp(value, "off")) cli->counters = CML_COUNTERS_OFF;
            else {
                fprintf(stderr, "cumemlab: --counters: unknown value '%s' (allowed: on|off|auto)\n",
                        value);
                return CML_EXIT_USAGE;
            }
        } else if (!strcmp(name, "where")) {
            if (!strcmp(value, "dram")) cli->where = CML_WHERE_DRAM;
            else if (!strcmp(value, "l2")) cli->where = CML_WHERE_L2;
            else if (!strcmp(value, "l1")) cli->where = CML_WHERE_L1;
            else {
                fprintf(stderr, "cumemlab: --where: unknown value '%s' (allowed: dram|l2|l1)\n",
                        value);
                return CML_EXIT_USAGE;
            }
        } else {
            if (cli->nsettings >= CML_CLI_MAX_SETTINGS) {
                fprintf(stderr, "cumemlab: too many settings (at most %d)\n",
                        CML_CLI_MAX_SETTINGS);
                return CML_EXIT_USAGE;
            }
            /* name may point into a local buffer: keep a copy in cli */
            char *copy = cli->setting_names[cli->nsettings];
            snprintf(copy, sizeof cli->setting_names[0], "%s", name);
            cli->settings[cli->nsettings].name = copy;
            cli->settings[cli->nsettings++].value = value;
        }
    }
    if ((cli->json_path && !*cli->json_path) || (cli->csv_path && !*cli->csv_path)) {
        fprintf(stderr, "cumemlab: --json/--csv: a file name is needed\n");
        return CML_EXIT_USAGE;
    }
    if (cli->html_path && !*cli->html_path) {
        fprintf(stderr, "cumemlab: --html: a file name is needed\n");
        return CML_EXIT_USAGE;
    }
    return CML_EXIT_OK;
}

/* Apply one name/value to an experiment's parameters; one-line message. */
static int apply_one(const cml_experiment *exp, cml_param_values *pv, const char *name,
                     const char *value, const char *origin)
{
    char err[512];
    if (cml_param_index(pv, name) < 0) {
        char known[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < exp->nparams && used + 1 < sizeof known; i++) {
            int w = snprintf(known + used, sizeof known - used, "%s--%s", i ? ", " : "",
                             exp->params[i].name);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        fprintf(stderr, "cumemlab: --%s: not an option of %s%s%s (its options: %s)\n", name,
                exp->key, origin ? " in " : "", origin ? origin : "", known);
        return CML_EXIT_USAGE;
    }
    if (cml_param_set(pv, name, value, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: %s\n", err);
        return CML_EXIT_USAGE;
    }
    return CML_EXIT_OK;
}

int cml_cli_check_suite_settings(const cml_cli *cli, int short_lists)
{
    for (int i = 0; i < cli->nsettings; i++) {
        char name[64];
        setting_name(&cli->settings[i], name, sizeof name);
        int known = 0;
        for (size_t e = 0; e < cml_experiment_count() && !known; e++) {
            const cml_experiment *exp = cml_experiment_at(e);
            for (size_t k = 0; k < exp->nparams && !known; k++)
                known = !strcmp(exp->params[k].name, name);
        }
        if (!known) {
            fprintf(stderr, "cumemlab: --%s: no experiment has this option (see cumemlab help NAME)\n",
                    name);
            return CML_EXIT_USAGE;
        }
    }
    /* Every value within every range it meets, before anything runs. */
    for (size_t e = 0; e < cml_experiment_count(); e++) {
        const cml_experiment *exp = cml_experiment_at(e);
        cml_param_values pv;
        char err[512];
        if (cml_param_defaults(exp->params, exp->nparams, &pv, err, sizeof err) != CML_OK)
            return CML_EXIT_FAIL;
        int rc = cml_cli_apply_text(short_lists ? exp->tour : NULL, exp, &pv, NULL);
        if (!rc)
            rc = cml_cli_apply_settings(cli, exp, &pv);
        if (rc)
            return rc;
    }
    return CML_EXIT_OK;
}

/* Split "name=value" into a bounded name buffer; 0 if malformed. */
static int split_setting(const char *item, size_t len, char *name, size_t namelen,
                         const char **value, size_t *valuelen)
{
    const char *eq = memchr(item, '=', len);
    if (!eq || eq == item || (size_t)(eq - item) >= namelen)
        return 0;
    memcpy(name, item, (size_t)(eq - item));
    name[eq - item] = '\0';
    *value = eq + 1;
    *valuelen = len - (size_t)(eq - item) - 1;
    return 1;
}

int cml_cli_apply_text(const char *text, const cml_experiment *exp, cml_param_values *pv,
                       const char *origin)
{
    const char *p = text ? text : "";
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        char name[64], value[512];
        const char *v;
        size_t vlen;
        if (!split_setting(p, len, name, sizeof name, &v, &vlen) || vlen >= sizeof value) {
            fprintf(stderr, "cumemlab: malformed setting '%.*s'%s%s (expected name=value)\n",
                    (int)len, p, origin ? " in " : "", origin ? origin : "");
            return CML_EXIT_USAGE;
        }
        memcpy(value, v, vlen);
        value[vlen] = '\0';
        int rc = apply_one(exp, pv, name, value, origin);
        if (rc)
            return rc;
        p += len;
    }
    return CML_EXIT_OK;
}

int cml_cli_apply_settings(const cml_cli *cli, const cml_experiment *exp, cml_param_values *pv)
{
    const int where_known = !strcmp(cli->command, "suite") || !strcmp(cli->command, "tour");
    for (int i = 0; i < cli->nsettings; i++) {
        const cml_setting *s = &cli->settings[i];
        char name[64];
        setting_name(s, name, sizeof name);
        if (where_known && cml_param_index(pv, name) < 0)
            continue;
        int rc = s->value ? apply_one(exp, pv, s->name, s->value, NULL)
                          : cml_cli_apply_text(s->name, exp, pv, NULL);
        if (rc)
            return rc;
    }
    return CML_EXIT_OK;
}
