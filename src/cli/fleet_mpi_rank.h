/*
 * What one rank of a fleet has to say once its command has ended: a row of
 * rank 0's table (a fixed-size structure, gathered as bytes: every rank
 * runs this same program) and its item of the fleet file's "ranks" as JSON
 * text (docs/fleet-mpi.md), made where the results are, so rank 0 only
 * splices the texts it receives.
 */
#ifndef CML_FLEET_MPI_RANK_H
#define CML_FLEET_MPI_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "cli/fleet_mpi_child.h"
#include "gpu/nvml_info.h"

typedef struct cml_fleet_rank_row {
    int rank, local_rank;          /* local_rank -1: unknown */
    int exit_status;
    int has_results, has_gpu;
    uint64_t ok, waived, failed;   /* the results' records by state */
    double seconds;                /* the command's wall time */
    int sm_start, sm_end;          /* SM clock (MHz) before and after; -1 unknown */
    int temp_start, temp_end;      /* temperature (C) before and after; -1 unknown */
    char host[256];
    char gpu_name[96];
    char uuid[96];
    char note[192];                /* "NVML not available: ..." */
    char diagnostic[CML_FLEET_DIAG];
} cml_fleet_rank_row;

/* The NVML facts a rank read: before its command and after (ok 0: not
 * available, why says so). */
typedef struct cml_fleet_nvml {
    int ok;
    char why[160];
    cml_nvml_snapshot start, end;
} cml_fleet_nvml;

/*
 * Fill row (rank, local_rank and host set by the caller) from the child's
 * outcome and the NVML facts, and return the rank's item as JSON text
 * (malloc'd, *len bytes; NULL when out of memory). The child's results are
 * kept when they are a "cumemlab-results" object (checked with the strict
 * parser, src/report/json_read.h); results that are not JSON, or not an
 * object, are dropped with a diagnostic; results of another schema (validate's
 * verdicts) are not results and are left out quietly. The GPU is the one the
 * results' "device" names, matched in NVML by its UUID.
 */
char *cml_fleet_rank_item(cml_fleet_rank_row *row, const cml_fleet_child *c, const cml_fleet_nvml *nv,
                          size_t *len);

#endif
