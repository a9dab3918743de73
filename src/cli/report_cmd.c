/*
 * cumemlab report FILE.json: a saved run rendered again. The JSON is read
 * back strictly (src/report/json_read.c) into the same records a live run
 * produces, then written like any run: the table on standard output (unless
 * --quiet) and whatever --html, --csv and --json ask for. Nothing is
 * measured or modelled again, so a report made today from last month's file
 * shows last month's numbers, with the command line that produced them.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/json_read.h"

static void report_usage(FILE *out)
{
    fputs("cumemlab report FILE.json [--html FILE] [--csv FILE] [--json FILE] [--quiet]\n"
          "  re-renders results saved with --json: the table on standard output, and the\n"
          "  HTML report, CSV or JSON files asked for. FILE.json may be - (standard input).\n",
          out);
}

int cml_cmd_report(const cml_cli *cli)
{
    if (cli->help) {
        report_usage(stdout);
        return CML_EXIT_OK;
    }
    if (cli->npos != 1) {
        fprintf(stderr, "cumemlab: report: name one results file (saved with --json), e.g. "
                        "cumemlab report results.json --html report.html\n");
        return CML_EXIT_USAGE;
    }
    if (cli->nsettings) {
        const char *name = cli->settings[0].name;
        fprintf(stderr, "cumemlab: report: --%s is not an option of report (it renders a saved "
                        "run; its options: --html, --csv, --json, --quiet)\n",
                name);
        return CML_EXIT_USAGE;
    }
    cml_results r;
    char err[640];
    cml_status st = cml_results_read_file(cli->pos[0], &r, err, sizeof err);
    if (st != CML_OK) {
        fprintf(stderr, "cumemlab: report: %s\n", err);
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    int rc = cml_cli_emit(cli, &r);
    cml_results_free(&r);
    return rc;
}
