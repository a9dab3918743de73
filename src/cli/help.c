/* An experiment's help page (cumemlab help NAME, NAME --help): shared by
 * the commands that take an experiment (commands.c, expr_cmd.c) and by
 * main, in a file of its own so that none of them calls another back. */
#include <stdio.h>

#include "cli/cli.h"

int cml_print_experiment_help(const cml_experiment *exp)
{
    printf("%s (experiment %d): %s\n  %s\n  (%s)\n\nOptions:\n", exp->key, exp->number,
           exp->title, exp->summary, exp->doc);
    for (size_t i = 0; i < exp->noptions; i++) {
        const cml_param_def *d = &exp->options[i];
        char range[256];
        cml_param_describe_range(d, range, sizeof range);
        printf("  --%-10s %s\n  %-12s allowed %s; default %s%s%s\n", d->name, d->help, "", range,
               d->def, d->applies ? "; only with " : "", d->applies ? d->applies : "");
    }
    printf("\nValues: a list (0,11,128), a range (0:64 or 0:64:8), sizes with k/M/G/T or 2^k,\n"
           "names for choices, or 'all'.\n");
    for (size_t i = 0; i < exp->naliases; i++)
        printf("Textbook name: cumemlab %s\n", exp->aliases[i].usage);
    return CML_EXIT_OK;
}
