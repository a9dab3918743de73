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
 *
 * cumemlab report FLEET.json, or A.json B.json C.json ...: a fleet compared
 * (src/report/fleet.h): every GPU against the median of its model's GPUs,
 * the outliers named (docs/fleet.md). Each input may be a results file or
 * a fleet file (one run per rank); the reader tells them by their schema.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/compare.h"
#include "report/fleet.h"
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
          "  every record's comparison (docs/json-schema.md).\n"
          "cumemlab report FLEET.json | A.json B.json C.json ... [--threshold PCT] [...]\n"
          "  compares a fleet: every GPU of a fleet file (written by an MPI run), or of\n"
          "  three or more saved runs (two with --threshold), against the median of the\n"
          "  GPUs of its model; names each GPU whose bandwidth is off by more than PCT\n"
          "  percent (default 3) and outside its samples' spread, or whose exact counters\n"
          "  differ (docs/fleet.md). Outliers are findings: the exit status is 0.\n",
          out);
}

/* Every run of the inputs (fleet files: one per rank); one line on stderr
 * when a file cannot be read. */
static int read_runs(const cml_cli *cli, cml_fleet_runs *runs)
{
    char err[1024];
    for (int i = 0; i < cli->npos; i++)
        if (cml_fleet_read_file(cli->pos[i], runs, err, sizeof err) != CML_OK) {
            fprintf(stderr, "cumemlab: report: %s\n", err);
            return CML_EXIT_FAIL;
        }
    return CML_EXIT_OK;
}

/* The terminal's text and the files asked for, by one set of renderers. */
static int emit(const cml_cli *cli, const void *ctx, cml_output_fn table, cml_output_fn json,
                cml_output_fn csv, cml_output_fn html, const char *what)
{
    int rc = CML_EXIT_OK;
    char err[640];
    FILE *human = cml_cli_human_out(cli);
    if (!cli->quiet && table(human, ctx) != CML_OK) {
        fprintf(stderr, "cumemlab: cannot write the %s to standard %s\n", what,
                human == stdout ? "output" : "error");
        rc = CML_EXIT_FAIL;
    }
    fflush(human);
    const struct {
        const char *path, *opt;
        cml_output_fn fn;
    } outs[] = {{cli->json_path, "--json", json},
                {cli->csv_path, "--csv", csv},
                {cli->html_path, "--html", html}};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        if (outs[i].path && cml_output_write(outs[i].path, outs[i].fn, ctx, err, sizeof err) != CML_OK) {
            fprintf(stderr, "cumemlab: %s: %s\n", outs[i].opt, err);
            rc = CML_EXIT_FAIL;
        }
    return rc;
}

static int compare(const cml_cli *cli, const cml_fleet_runs *runs)
{
    cml_comparison c;
    int rc;
    if (cml_compare_build(&c, &runs->items[0].results, cli->pos[0], &runs->items[1].results,
                          cli->pos[1]) != CML_OK) {
        fprintf(stderr, "cumemlab: report: out of memory comparing the two runs\n");
        rc = CML_EXIT_FAIL;
    } else {
        rc = emit(cli, &c, cml_compare_table, cml_compare_json, cml_compare_csv,
                  cml_compare_html, "comparison");
    }
    cml_compare_free(&c);
    return rc;
}

static int fleet(const cml_cli *cli, const cml_fleet_runs *runs)
{
    cml_fleet f;
    int rc;
    if (cml_fleet_build(&f, runs, cli->threshold) != CML_OK) {
        fprintf(stderr, "cumemlab: report: out of memory comparing the fleet\n");
        rc = CML_EXIT_FAIL;
    } else {
        rc = emit(cli, &f, cml_fleet_table, cml_fleet_json, cml_fleet_csv, cml_fleet_html,
                  "fleet's comparison");
    }
    cml_fleet_free(&f);
    return rc;
}

int cml_cmd_report(const cml_cli *cli)
{
    if (cli->help) {
        report_usage(stdout);
        return CML_EXIT_OK;
    }
    if (cli->npos < 1) {
        fprintf(stderr, "cumemlab: report: name one results file (saved with --json), two to "
                        "compare, or a fleet (a fleet file, or three or more results files), "
                        "e.g. cumemlab report results.json --html report.html\n");
        return CML_EXIT_USAGE;
    }
    if (cli->nsettings) {
        const char *name = cli->settings[0].name;
        fprintf(stderr, "cumemlab: report: --%s is not an option of report (it renders saved "
                        "runs; its options: --html, --csv, --json, --quiet, --threshold)\n",
                name);
        return CML_EXIT_USAGE;
    }
    int stdin_uses = 0;
    for (int i = 0; i < cli->npos; i++)
        stdin_uses += !strcmp(cli->pos[i], "-");
    if (stdin_uses > 1) {
        fprintf(stderr, "cumemlab: report: standard input (-) can be only one of the runs\n");
        return CML_EXIT_USAGE;
    }
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    int rc = read_runs(cli, &runs);
    /* A fleet: a fleet file among the inputs, three runs or more, or two
     * with --threshold (the fleet's rule for two: docs/fleet.md). */
    int is_fleet = runs.fleet_files > 0 || cli->npos >= 3 || (cli->npos == 2 && cli->threshold > 0);
    if (rc != CML_EXIT_OK) {
        /* said */
    } else if (!is_fleet && cli->threshold > 0) {
        fprintf(stderr, "cumemlab: report: --threshold compares a fleet (a fleet file, or two "
                        "or more results files); %s is one run\n",
                cli->pos[0]);
        rc = CML_EXIT_USAGE;
    } else if (is_fleet) {
        rc = fleet(cli, &runs);
    } else if (cli->npos == 2) {
        rc = compare(cli, &runs);
    } else {
        rc = cml_cli_emit_read(cli, &runs.items[0].results);
    }
    cml_fleet_runs_free(&runs);
    return rc;
}
