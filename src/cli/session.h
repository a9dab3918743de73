/* What the commands share beyond cli.h: the lab's settings from the
 * options, and running
 * an experiment through the lab. */
#ifndef CML_CLI_SESSION_H
#define CML_CLI_SESSION_H

#include "cli/cli.h"
#include "lab/lab.h"

/* The lab's settings asked for by the command line (peak measured); it
 * also tells the progress lines about -q (none then on a log or a pipe). */
cml_lab_settings cml_cli_lab_settings(const cml_cli *cli);

/* What a command that runs one experiment acts on, resolved from the
 * command line once: the experiment (the registry looked up once), its
 * options parsed and checked, and the lab's settings. */
typedef struct cml_cli_request {
    const cml_experiment *exp;
    cml_param_values pv;
    cml_lab_settings lab;
} cml_cli_request;

/* model NAME / run NAME: resolve the request (cmd names the command in the
 * messages; or_else ends the "name one experiment" line). *done = 0: go
 * on with *req. *done = 1: the command ends with the status returned
 * (the one-line message of a bad name or option printed, or --help's). */
int cml_cli_request_one(const cml_cli *cli, const char *cmd, const char *or_else,
                        cml_cli_request *req, int *done);

/* Open the lab on a GPU for a command that needs one (what: its name):
 * 1; else 0, the lab closed, with the one-line reason printed. */
int cml_cli_open_gpu(const cml_lab_settings *ls, cml_lab *lab, cml_results *r, const char *what);

/* Run a resolved request: the lab opened (needs_gpu: the command's name,
 * refused with one line when there is no GPU; NULL: the model will do),
 * the experiment run, the lab closed, the records emitted. Returns the
 * exit status. */
int cml_cli_run_request(const cml_cli *cli, const cml_cli_request *req, const char *needs_gpu);

/* The exit status of a cml_lab_run: CML_EXIT_FAIL when a record failed or
 * the run stopped (the options were refused before: CML_EXIT_USAGE). */
int cml_cli_exit_of(cml_status st);

#endif
