/*
 * One rank's command, run in a child process (fleet_mpi.c says why a
 * child): forked, its standard output and error captured to files of a
 * private folder, its --json results written there too, then waited for.
 * What it left is read back: exit status, results, the one line that says
 * why it failed.
 */
#ifndef CML_FLEET_MPI_CHILD_H
#define CML_FLEET_MPI_CHILD_H

#include <stddef.h>

#define CML_FLEET_DIAG 512

typedef struct cml_fleet_child {
    /* in */
    int local_rank;         /* the GPU: local_rank modulo the visible GPUs */
    const char *prefix;     /* "[rank R host] ", before each forwarded line */
    /* out */
    int exit_status;        /* the command's status, or 128 + signal */
    char diagnostic[CML_FLEET_DIAG]; /* why it failed; "" when it did not */
    char *results;          /* the --json text it wrote (malloc'd), or NULL */
    size_t results_len;
    int parsed;             /* its options were accepted: json_path is known */
    char *json_path;        /* --json as given (malloc'd), or NULL */
    char ignored[64];       /* outputs a rank does not write: "--csv --html" */
    double seconds;         /* wall time from fork to its end */
} cml_fleet_child;

/* Run argv's command in a child. Returns 0 when it ran (whatever its
 * status), -1 when it could not be started (no temporary folder, fork
 * failed): then exit_status is 1 and diagnostic says why. The child's
 * standard error is forwarded to this process's, each line prefixed; its
 * standard output too when it wrote no results (the fleet file holds
 * those). Free with cml_fleet_child_free. */
int cml_fleet_child_run(cml_fleet_child *c, int argc, char **argv);
void cml_fleet_child_free(cml_fleet_child *c);

#endif
