/*
 * The command line: options shared by every subcommand, and the commands.
 * Exit status: 0 success, 1 a run failed (no GPU for a GPU command, a CUDA
 * error, a verification failure, nothing to show), 2 bad usage (one line
 * naming the option).
 */
#ifndef CML_CLI_H
#define CML_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "core/param.h"
#include "core/record.h"
#include "experiments/registry.h"

enum { CML_EXIT_OK = 0, CML_EXIT_FAIL = 1, CML_EXIT_USAGE = 2 };

#define CML_CLI_MAX_SETTINGS 32
#define CML_CLI_MAX_EXPRS 16

/* "--name value" pairs meant for an experiment's own parameters. */
typedef struct cml_setting {
    const char *name;
    const char *value;
} cml_setting;

typedef struct cml_cli {
    const char *argv0;
    const char *command;          /* the subcommand as typed */
    const char *json_path, *csv_path;
    const char *html_path;        /* --html FILE: the self-contained HTML report */
    const char *from_path;        /* validate --from FILE: judge a saved results file */
    const char *records_path;     /* validate --records FILE: its records as results JSON */
    int rules;                    /* validate --rules: list the explanations, run nothing */
    int device;
    int device_given;             /* --device was on the command line */
    int all_gpus;                 /* device --all: every GPU of the host */
    uint64_t size_bytes;
    unsigned peak_gbs;        /* --peak: the reference bandwidth, 0 = measure it */
    int peak_measure;         /* --peak measure: measure it even if kept for this GPU */
    cml_where where;
    unsigned reps, warmup;
    int quick;                    /* fewer variants and repetitions */
    int model_only;               /* --model: never touch the GPU */
    int quiet;                    /* no table on stdout */
    double threshold;             /* report --threshold PCT: the fleet's outlier threshold
                                     (0.1..100; 0: not given, the default 3) */
    int machine_stdout;           /* --json/--csv/--html lead to standard output: what
                                     a person reads goes to stderr (cml_cli_human_out) */
    int counters;                 /* --counters: CML_COUNTERS_OFF/_ON/_AUTO (default auto) */
    int help;
    /* model --expr / run --expr: the index expressions in the order given
     * (--expr may be repeated up to CML_CLI_MAX_EXPRS times; expr is the
     * first), --src (what --op copy reads) and --show-kernel */
    const char *expr;
    const char *exprs[CML_CLI_MAX_EXPRS];
    int nexprs;
    const char *src;
    int show_kernel;
    /* trace: --kernel, --launch (1-based; 0: not given), --budget (0: not
     * given), --out, and the program after "--" with its arguments */
    const char *trace_kernel;
    uint64_t trace_launch;
    uint64_t trace_budget;
    const char *trace_out;
    char **program;
    int nprogram;
    /* positional arguments after the subcommand */
    const char *pos[64];          /* report compares any number of runs */
    int npos;
    cml_setting settings[CML_CLI_MAX_SETTINGS];
    char setting_names[CML_CLI_MAX_SETTINGS][64];
    int nsettings;
    char command_line[1024];
} cml_cli;

/*
 * The program: parse argv and run the command it names (main() calls it,
 * and so does each rank of a fleet run, cli/fleet_mpi.h). after_parse, when
 * not NULL, is called once the options are parsed, accepted or not (status
 * 0, or the usage error's, its line printed), and may change cli before
 * anything is checked or run; it returns the status to go on with (0: run).
 * Returns the exit status. Once per process: the parsed options live in
 * static storage.
 */
typedef int (*cml_cli_after_parse_fn)(cml_cli *cli, int status, void *ctx);
int cml_cli_main(int argc, char **argv, cml_cli_after_parse_fn after_parse, void *ctx);

/* argv[0..argc) joined by spaces into buf (truncated to len): the
 * "command_line" the results record. */
void cml_cli_join_args(char *buf, size_t len, int argc, char **argv);

/* The Options section of --help, from the option table. */
void cml_cli_print_options(FILE *out);

/* Parse argv after the subcommand. On error prints one line to stderr
 * ("cumemlab: --reps: ...") and returns CML_EXIT_USAGE. */
int cml_cli_parse(cml_cli *cli, int argc, char **argv, int first);

/* An experiment's options: its defaults, then `extra` ("name=list ...";
 * the tour's or a textbook program's settings), then the command line's
 * settings. In suite and the tour a command-line setting applies to the
 * experiments that have that option and passes the others by. One-line
 * message on stderr and CML_EXIT_USAGE for a bad one. */
int cml_cli_experiment_options(const cml_cli *cli, const cml_experiment *exp, const char *extra,
                               cml_param_values *pv);
/* suite and the tour: every setting is an option of some experiment, and
 * its value is allowed wherever it applies (short_lists: over the tour's
 * variant lists); else one line and CML_EXIT_USAGE. On success *out holds
 * every experiment's options in the registry's order (free it), parsed
 * once: the suite runs on them. */
int cml_cli_suite_options(const cml_cli *cli, int short_lists, cml_param_values **out);

/* Commands. */
int cml_cmd_list(const cml_cli *cli);
/* validate --json FILE: the verdicts (src/lab/validate.h) as JSON, schema
 * cumemlab-validation (docs/json-schema.md). from: the results file judged
 * (NULL: this run measured), device: its name (NULL: none). CML_OK, or an
 * error with one line in err (the file as it was). */
struct cml_verdicts;
cml_status cml_validate_write_json(const char *path, const struct cml_verdicts *v,
                                   const char *from, const char *device,
                                   const char *command_line, char *err, size_t errlen);

/* validate --rules --json FILE: every explanation of every experiment
 * (schema cumemlab-validate-rules, docs/json-schema.md). CML_OK, or an
 * error with one line in err. */
cml_status cml_validate_write_rules_json(const char *path, char *err, size_t errlen);
/* The fields of one explanation (cml_explained_diff) into the object being
 * written: list --json, validate --json and validate --rules write them
 * alike (validate_json.c). */
struct cml_json;
struct cml_explained_diff;
void cml_cli_explained_fields(struct cml_json *j, const struct cml_explained_diff *e);

/* list --json FILE: every registry row as JSON (schema cumemlab-registry). */
int cml_cmd_list_json(const cml_cli *cli);
int cml_cmd_model(const cml_cli *cli);
int cml_cmd_expr(const cml_cli *cli);
int cml_cmd_run_expr(const cml_cli *cli);
int cml_cmd_run(const cml_cli *cli);
int cml_cmd_suite(const cml_cli *cli, int tour);
int cml_cmd_device(const cml_cli *cli);
/* device --all (device_all.c). */
int cml_cmd_device_all(const cml_cli *cli);
int cml_cmd_report(const cml_cli *cli);
int cml_cmd_validate(const cml_cli *cli);
int cml_cmd_textbook(const cml_cli *cli, const cml_experiment *exp,
                     const cml_textbook_alias *alias);
/* The book's programs (src/book/book.h): one run by name, and the list. */
struct cml_book_program;
int cml_cmd_book(const cml_cli *cli, const struct cml_book_program *p);
int cml_cmd_textbook_list(const cml_cli *cli);
/* trace -- PROGRAM [ARGS] and trace --from FILE.trace (trace_cmd.c). */
int cml_cmd_trace(const cml_cli *cli);
void cml_print_help(const char *topic);
int cml_print_experiment_help(const cml_experiment *exp);

/* Shared by the commands: the results header, the outputs (table, the run's
 * diagnostics once on stderr, --json/--csv/--html files). */
/* Where the table and a program's own lines go: standard output, or
 * standard error when a machine format (--json -, --csv /dev/stdout, ...)
 * takes standard output, so that it stays parseable. */
FILE *cml_cli_human_out(const cml_cli *cli);

void cml_cli_results_init(const cml_cli *cli, cml_results *r);
/* The outputs of results this command produced: first each experiment of
 * the records is described from its registry row (cml_cli_describe), so
 * that the files carry how to draw them. */
int cml_cli_emit(const cml_cli *cli, cml_results *r);
/* cml_cli_emit for a command that ran experiments: a run that showed
 * nothing (no record at all, or every record waived) is a failed run, and
 * one line on stderr says so after the waivers' reasons. */
int cml_cli_emit_run(const cml_cli *cli, cml_results *r);
/* The outputs of results read from a file, as they are: described as the
 * file describes them, no more (what a file of an older version lacks, the
 * reports take from the registry as they draw it, and its JSON written
 * again stays as it was). */
int cml_cli_emit_read(const cml_cli *cli, const cml_results *r);
/* Describe each experiment of r's records that r does not describe yet
 * and the registry has a row for (its number, title and charts:
 * core/exp_desc.h). CML_ENOMEM when out of memory. */
cml_status cml_cli_describe(cml_results *r);

#endif
