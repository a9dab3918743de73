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

/* The exit status of a cml_lab_run: CML_EXIT_FAIL when a record failed or
 * the run stopped (the options were refused before: CML_EXIT_USAGE). */
int cml_cli_exit_of(cml_status st);

#endif
