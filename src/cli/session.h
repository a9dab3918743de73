/* What the commands share beyond cli.h: the lab's settings from the
 * options, and the progress line. */
#ifndef CML_CLI_SESSION_H
#define CML_CLI_SESSION_H

#include "cli/cli.h"
#include "lab/lab.h"

/* The lab's settings asked for by the command line (peak measured); it
 * also tells the progress lines about -q (none then on a log or a pipe). */
cml_lab_settings cml_cli_lab_settings(const cml_cli *cli);

/* Run one experiment through the lab: its defaults, then extra_settings
 * ("name=list ..."; the tour's, a textbook program's), then the command
 * line's settings. Prints a usage message and returns CML_EXIT_USAGE for a
 * bad setting; CML_EXIT_FAIL when a record failed or the run stopped. */
int cml_cli_run_experiment(const cml_cli *cli, cml_lab *lab, const cml_experiment *exp,
                           const char *extra_settings, cml_results *r);

void cml_progress(size_t i, size_t n, const char *name);

#endif
