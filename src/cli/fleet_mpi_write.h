/*
 * Rank 0's side of a fleet run: the "cumemlab-fleet" file made of every
 * rank's item (docs/fleet-mpi.md) and the table, a line per rank.
 */
#ifndef CML_FLEET_MPI_WRITE_H
#define CML_FLEET_MPI_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "cli/fleet_mpi_rank.h"
#include "cumemlab/model.h" /* cml_status */

typedef struct cml_fleet_doc {
    const char *command_line;   /* the ranks' command as rank 0 saw it */
    const char *launcher;       /* "openmpi", "slurm", "pmi", "pmix" */
    int ranks;
    const cml_fleet_rank_row *rows;  /* [ranks], in rank order */
    char *const *items;         /* [ranks]: each rank's item (fleet_mpi_rank.h) */
    const size_t *item_len;
} cml_fleet_doc;

/* Write the fleet file to path (src/report/output_file.h: replaced
 * atomically, or nothing written). CML_OK, or an error with one line in err. */
cml_status cml_fleet_write(const char *path, const cml_fleet_doc *d, char *err, size_t errlen);

/* The table: a line per rank (host, GPU, exit status, records, seconds,
 * SM clock and temperature before -> after, why it failed). */
void cml_fleet_print_table(FILE *out, const cml_fleet_doc *d);

#endif
