/*
 * cumemlab report FILE.json: a saved run rendered again. The JSON is read
 * back strictly (src/report/json_read.c) into the same records a live run
 * produces, then written like any run: the table on standard output (unless
 * --quiet) and whatever --html, --csv and --json ask for. Nothing is
 * measured or modelled again, so a report made today from last month's file
 * shows last month's numbers, with the command line that produced them.
 *
 * cumemlab report A.json B.json: two saved runs compared record by record
 * (src/report/compare.h): a line per experiment on standard output, and the
 * comparison as --html (both runs on the same charts), --csv and --json
 * (schema "cumemlab-comparison").
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/compare.h"
#include "report/json_read.h"
#include "report/output_file.h"

static void report_usage(FILE *out)
{
    fputs("cumemlab report FILE.json [--html FILE] [--csv FILE] [--json FILE] [--quiet]\n"
          "  re-renders results saved with --json: the table on standard output, and the\n"
          "  HTML report, CSV or JSON files asked for. FILE.json may be - (standard input).\n"
          "cumemlab report A.json B.json [--html FILE] [--csv FILE] [--json FILE] [--quiet]\n"
          "  compares two saved runs record by record (same experiment and variant): a line\n"
          "  per experiment with B's bandwidth and time over A's, the records found in one\n"
          "  run only; --html draws both runs on the same charts, --csv and --json give\n"
          "  every record's comparison (docs/json-schema.md).\n",
          out);
}

/* Read a results file; one line on stderr when it cannot be. */
static int read_run(const char *path, cml_results *r)
{
    char err[640];
    cml_status st = cml_results_read_file(path, r, err, sizeof err);
    if (st != CML_OK) {
        fprintf(stderr, "cumemlab: report: %s\n", err);
        return CML_EXIT_FAIL;
    }
    return CML_EXIT_OK;
}

static int compare(const cml_cli *cli)
{
    if (!strcmp(cli->pos[0], "-") && !strcmp(cli->pos[1], "-")) {
        fprintf(stderr, "cumemlab: report: standard input (-) can be only one of the two runs\n");
        return CML_EXIT_USAGE;
    }
    cml_results a, b;
    int rc = read_run(cli->pos[0], &a);
    if (rc == CML_EXIT_OK)
        rc = read_run(cli->pos[1], &b);
    else
        cml_results_init(&b);
    if (rc != CML_EXIT_OK) {
        cml_results_free(&a);
        cml_results_free(&b);
        return rc;
    }
    cml_comparison c;
    if (cml_compare_build(&c, &a, cli->pos[0], &b, cli->pos[1]) != CML_OK) {
        fprintf(stderr, "cumemlab: report: out of memory comparing the two runs\n");
        rc = CML_EXIT_FAIL;
    } else {
        char err[640];
        FILE *human = cml_cli_human_out(cli);
        if (!cli->quiet && cml_compare_table(human, &c) != CML_OK) {
            fprintf(stderr, "cumemlab: cannot write the comparison to standard %s\n",
                    human == stdout ? "output" : "error");
            rc = CML_EXIT_FAIL;
        }
        fflush(human);
        const struct {
            const char *path, *opt;
            cml_output_fn fn;
        } outs[] = {{cli->json_path, "--json", cml_compare_json},
                    {cli->csv_path, "--csv", cml_compare_csv},
                    {cli->html_path, "--html", cml_compare_html}};
        for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
            if (outs[i].path && cml_output_write(outs[i].path, outs[i].fn, &c, err, sizeof err) != CML_OK) {
                fprintf(stderr, "cumemlab: %s: %s\n", outs[i].opt, err);
                rc = CML_EXIT_FAIL;
            }
    }
    cml_compare_free(&c);
    cml_results_free(&a);
    cml_results_free(&b);
    return rc;
}

int cml_cmd_report(const cml_cli *cli)
{
    if (cli->help) {
        report_usage(stdout);
        return CML_EXIT_OK;
    }
    if (cli->npos != 1 && cli->npos != 2) {
        fprintf(stderr, "cumemlab: report: name one results file (saved with --json), or two to "
                        "compare, e.g. cumemlab report results.json --html report.html\n");
        return CML_EXIT_USAGE;
    }
    if (cli->nsettings) {
        const char *name = cli->settings[0].name;
        fprintf(stderr, "cumemlab: report: --%s is not an option of report (it renders saved "
                        "runs; its options: --html, --csv, --json, --quiet)\n",
                name);
        return CML_EXIT_USAGE;
    }
    if (cli->npos == 2)
        return compare(cli);
    cml_results r;
    if (read_run(cli->pos[0], &r) != CML_EXIT_OK) {
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    int rc = cml_cli_emit_read(cli, &r);
    cml_results_free(&r);
    return rc;
}
