/*
 * cumemlab: a laboratory for GPU memory access patterns.
 * main() only dispatches; every command lives in its own function and
 * returns an exit status (0 ok, 1 a run failed, 2 bad usage).
 */
#include <stdio.h>
#include <string.h>

#include "book/book.h"
#include "cli/cli.h"
#include "cli/fleet_mpi.h"
#include "report/chart_plan.h"
#include "report/output_file.h"

static const char *const usage_text =
    "cumemlab " CUMEMLAB_VERSION " - how memory access patterns decide a GPU kernel's speed\n"
    "\n"
    "Usage:\n"
    "  cumemlab                     the tour: every experiment once (on GPU 0, or with the\n"
    "                               model alone when there is no GPU)\n"
    "  cumemlab list                the experiments, their options and allowed values\n"
    "  cumemlab list --json FILE    the same as data: every registry row (options, charts,\n"
    "                               validate settings, textbook names)\n"
    "  cumemlab model NAME [opts]   the model's prediction for an experiment (no GPU needed)\n"
    "  cumemlab model --expr EXPR   the model's view of any index expression, e.g. 'i*2',\n"
    "                               '(i%32)*33', 'min(i, n-1)', 'tx + ty*bdx'\n"
    "  cumemlab run NAME [opts]     run an experiment on the GPU beside the model\n"
    "  cumemlab run --expr EXPR     your own pattern: compiled at run time, run, verified\n"
    "  cumemlab suite               every experiment, full sweeps, on the GPU\n"
    "  cumemlab tour                the tour (same as no arguments)\n"
    "  cumemlab device              the memory facts of this GPU\n"
    "  cumemlab device --all        every GPU, its peak by class, the links between them\n"
    "  cumemlab report FILE.json    a saved run again: table, --html, --csv, --json\n"
    "  cumemlab report A.json B.json  two saved runs compared record by record\n"
    "  cumemlab validate            the model against this GPU's hardware counters, every\n"
    "                               deterministic pattern (exit 1 on an unexplained difference)\n"
    "  cumemlab validate --from FILE.json  the same judging of a saved run, no GPU needed\n"
    "  cumemlab PROGRAM [args]      the book's program by its name, run as the book runs it\n"
    "                               (readSegment 11 512, transpose 2, checkSmemSquare, ...)\n"
    "  cumemlab textbook            the book's programs and their source files\n"
    "  cumemlab trace [opts] -- PROGRAM [ARGS]  your own program's kernels, every memory\n"
    "                               instruction recorded and run through the model\n"
    "  cumemlab trace --from FILE.trace  a saved trace reported again, no GPU needed\n"
    "  cumemlab help [NAME]         this text, or an experiment's options\n"
    "\n"
    "Options:\n";

/* After the options: what model --expr takes, and the exit codes. */
static const char *const usage_tail =
    "\n"
    "--expr options (model --expr, run --expr; --expr may be given up to 16 times):\n"
    "  --op load|store|copy, --src EXPR (copy: the element read), --space\n"
    "  global|shared|constant (model: also local), --path ca|cg|nc|cs (stores wb|cg|cs),\n"
    "  --elem 1|2|4|8|16, --n N, --threads N, --block X or XxY, --base BYTES,\n"
    "  --show-kernel (model: print the generated CUDA C)\n"
    "\n"
    "Exit status: 0 ok, 1 a run failed (no GPU, CUDA error, wrong output, every record\n"
    "waived), 2 bad usage.\n";

/* The book's programs by name, wrapped at 90 columns. */
static void print_programs(void)
{
    size_t col = 0;
    fputs("\nThe book's programs (cumemlab textbook: their files and arguments):\n", stdout);
    for (size_t i = 0; i < cml_book_count(); i++) {
        const char *name = cml_book_at(i)->name;
        if (col && col + strlen(name) + 2 > 88) {
            fputs(",\n", stdout);
            col = 0;
        } else if (col) {
            fputs(", ", stdout);
            col += 2;
        }
        if (!col) {
            fputs("  ", stdout);
            col = 2;
        }
        fputs(name, stdout);
        col += strlen(name);
    }
    fputs("\n", stdout);
}

void cml_print_help(const char *topic)
{
    (void)topic;
    fputs(usage_text, stdout);
    cml_cli_print_options(stdout);
    print_programs();
    fputs(usage_tail, stdout);
}

/* help NAME for a NAME that is no experiment or program: ambiguous (the
 * experiments it begins) or unknown. */
static void print_no_topic(const char *name)
{
    char matches[512] = "";
    size_t used = 0, n = 0, len = strlen(name);
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const char *key = cml_experiment_at(i)->key;
        if (strncmp(key, name, len) != 0)
            continue;
        int w = snprintf(matches + used, sizeof matches - used, "%s%s", n ? ", " : "", key);
        if (w > 0 && (size_t)w < sizeof matches - used)
            used += (size_t)w;
        n++;
    }
    if (n > 1)
        fprintf(stderr, "cumemlab: help: '%s' is ambiguous: %s\n", name, matches);
    else
        fprintf(stderr, "cumemlab: help: unknown topic '%s' (cumemlab list shows the experiments "
                        "and programs)\n",
                name);
}

/*
 * Every output path, before anything runs: a bad one (no such folder, not
 * writable, a directory) or two outputs naming one file is a usage error,
 * and nothing is run or written (src/report/output_file.h says what may be
 * written to and how).
 */
static int check_outputs(const cml_cli *cli)
{
    const char *outs[5] = {cli->json_path, cli->csv_path, cli->html_path, cli->records_path,
                           cli->trace_out};
    static const char *const names[5] = {"--json", "--csv", "--html", "--records", "--out"};
    for (int a = 0; a < 5; a++) {
        char err[640];
        if (!outs[a])
            continue;
        if (cml_output_check(outs[a], err, sizeof err) != 0) {
            fprintf(stderr, "cumemlab: %s: %s\n", names[a], err);
            return CML_EXIT_USAGE;
        }
        for (int b = 0; b < a; b++)
            if (outs[b] && cml_output_same(outs[a], outs[b])) {
                fprintf(stderr, "cumemlab: %s and %s name the same file: %s\n", names[b],
                        names[a], outs[a]);
                return CML_EXIT_USAGE;
            }
    }
    return CML_EXIT_OK;
}

/* Does an output lead to standard output ("-", /dev/stdout, the file
 * standard output is redirected to)? */
static int machine_on_stdout(const cml_cli *cli)
{
    const char *outs[4] = {cli->json_path, cli->csv_path, cli->html_path, cli->records_path};
    for (int a = 0; a < 4; a++)
        if (outs[a] && cml_output_same(outs[a], "-"))
            return 1;
    return 0;
}

int cml_cli_main(int argc, char **argv, cml_cli_after_parse_fn after_parse, void *ctx)
{
    static cml_cli cli; /* static: large, and zero-initialised; one run per process */
    cli.argv0 = argv[0];
    /* The report knows the experiments by the registry's rows, as data. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    const char *cmd = argc > 1 ? argv[1] : "tour";
    int first = 2;
    if (argc > 1 && cmd[0] == '-') {
        /* options without a subcommand: the tour with those options */
        if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
            printf("cumemlab %s\n", CUMEMLAB_VERSION);
            return CML_EXIT_OK;
        }
        cmd = "tour";
        first = 1;
    }
    cli.command = cmd;
    int rc = cml_cli_parse(&cli, argc, argv, first);
    if (after_parse)
        rc = after_parse(&cli, rc, ctx);
    if (rc)
        return rc;
    rc = check_outputs(&cli);
    if (rc)
        return rc;
    cli.machine_stdout = machine_on_stdout(&cli);

    if (!strcmp(cmd, "help")) {
        if (cli.npos > 1) {
            fprintf(stderr, "cumemlab: help takes one topic (an experiment or a program), not "
                            "'%s'\n", cli.pos[1]);
            return CML_EXIT_USAGE;
        }
        if (cli.npos == 1) {
            /* An experiment by its key first (the book's transpose.cu and the
             * lab's transpose share a name: help shows the experiment and
             * points to the program), then a book's program. */
            const cml_book_program *bp = cml_book_find(cli.pos[0]);
            const cml_experiment *e = cml_experiment_find(cli.pos[0]);
            if (e && (!bp || !strcmp(e->key, cli.pos[0]))) {
                int hrc = cml_print_experiment_help(e);
                if (bp)
                    printf("\nThe book's %s: cumemlab %s --help\n", bp->file, bp->name);
                return hrc;
            }
            if (bp) {
                cli.help = 1;
                return cml_cmd_book(&cli, bp);
            }
            if (!strcmp(cli.pos[0], "trace")) {
                cli.help = 1;
                cli.npos = 0;
                return cml_cmd_trace(&cli);
            }
            const cml_experiment *ae;
            const cml_textbook_alias *a = cml_textbook_find(cli.pos[0], &ae);
            if (a) {
                cli.help = 1;
                return cml_cmd_textbook(&cli, ae, a);
            }
            print_no_topic(cli.pos[0]);
            return CML_EXIT_USAGE;
        }
        cml_print_help(NULL);
        return CML_EXIT_OK;
    }
    if (cli.help && (!strcmp(cmd, "tour") || !strcmp(cmd, "suite") || !strcmp(cmd, "list") ||
                     !strcmp(cmd, "device") || (!strcmp(cmd, "model") && !cli.npos) ||
                     (!strcmp(cmd, "run") && !cli.npos))) {
        cml_print_help(NULL);
        return CML_EXIT_OK;
    }
    if (!strcmp(cmd, "tour"))
        return cml_cmd_suite(&cli, 1);
    if (!strcmp(cmd, "suite"))
        return cml_cmd_suite(&cli, 0);
    if (!strcmp(cmd, "list"))
        return cml_cmd_list(&cli);
    if (!strcmp(cmd, "model"))
        return cml_cmd_model(&cli);
    if (!strcmp(cmd, "run"))
        return cml_cmd_run(&cli);
    if (!strcmp(cmd, "device"))
        return cml_cmd_device(&cli);
    if (!strcmp(cmd, "report"))
        return cml_cmd_report(&cli);
    if (!strcmp(cmd, "validate"))
        return cml_cmd_validate(&cli);
    if (!strcmp(cmd, "textbook"))
        return cml_cmd_textbook_list(&cli);
    if (!strcmp(cmd, "trace"))
        return cml_cmd_trace(&cli);
    const cml_book_program *program = cml_book_find(cmd);
    if (program)
        return cml_cmd_book(&cli, program);
    const cml_experiment *aexp;
    const cml_textbook_alias *alias = cml_textbook_find(cmd, &aexp);
    if (alias)
        return cml_cmd_textbook(&cli, aexp, alias);
    fprintf(stderr, "cumemlab: unknown command '%s' (cumemlab --help)\n", cmd);
    return CML_EXIT_USAGE;
}

/* Under an MPI launcher (mpirun, srun) the fleet runs the command in each
 * rank (cli/fleet_mpi.h); otherwise it runs here. */
int main(int argc, char **argv)
{
    int rc;
    if (cml_fleet_mpi_main(argc, argv, &rc))
        return rc;
    return cml_cli_main(argc, argv, NULL, NULL);
}
