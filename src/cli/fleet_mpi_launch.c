/* Launcher detection from the environment (fleet_mpi_launch.h). */
#include "cli/fleet_mpi_launch.h"

#include <stdlib.h>
#include <string.h>

/* The batch script of an sbatch job runs as a step of its own with this id
 * (Slurm's SLURM_BATCH_SCRIPT): its SLURM_* variables describe the job,
 * not a step srun launched, so they make no fleet. */
#define SLURM_BATCH_STEP "4294967294"

/* A non-negative decimal int, or -1 (absent, empty, not a number, too big). */
static int env_int(cml_fleet_getenv_fn get, void *ctx, const char *name)
{
    const char *s = get(ctx, name);
    if (!s || *s < '0' || *s > '9')
        return -1;
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > 1000000000L)
            return -1;
    }
    return (int)v;
}

/* A rank and size that belong together (size -1: unknown). */
static int set(cml_fleet_launch *out, cml_fleet_launcher l, int rank, int size, int local)
{
    if (rank < 0 || (size >= 0 && rank >= size) || size == 0)
        return 0;
    out->launcher = l;
    out->rank = rank;
    out->size = size;
    out->local_rank = local;
    return 1;
}

int cml_fleet_launch_detect(cml_fleet_getenv_fn get, void *ctx, cml_fleet_launch *out)
{
    out->launcher = CML_LAUNCH_NONE;
    out->rank = 0;
    out->size = 1;
    out->local_rank = -1;
    /* Open MPI first: its mpirun inside a Slurm allocation (or an sbatch
     * script) leaves the job's SLURM_* variables in the ranks' environment,
     * and Open MPI 4/5 sets PMIX_RANK as well; its own variables are the
     * ones that describe the ranks it started. */
    int size = env_int(get, ctx, "OMPI_COMM_WORLD_SIZE");
    int rank = env_int(get, ctx, "OMPI_COMM_WORLD_RANK");
    if (size > 0 && set(out, CML_LAUNCH_OPENMPI, rank, size,
                        env_int(get, ctx, "OMPI_COMM_WORLD_LOCAL_RANK")))
        return 1;
    /* MPICH's hydra before Slurm: under Slurm hydra starts its proxies with
     * srun, one per node, so SLURM_PROCID counts nodes there, not ranks. */
    size = env_int(get, ctx, "PMI_SIZE");
    rank = env_int(get, ctx, "PMI_RANK");
    if (size > 0 && set(out, CML_LAUNCH_PMI, rank, size, env_int(get, ctx, "MPI_LOCALRANKID")))
        return 1;
    /* srun: a step of its own (SLURM_STEP_ID), not the batch script. */
    const char *step = get(ctx, "SLURM_STEP_ID");
    if (env_int(get, ctx, "SLURM_STEP_ID") >= 0 && strcmp(step, SLURM_BATCH_STEP) != 0) {
        size = env_int(get, ctx, "SLURM_STEP_NUM_TASKS");
        if (size < 0)
            size = env_int(get, ctx, "SLURM_NTASKS");
        rank = env_int(get, ctx, "SLURM_PROCID");
        if (size > 0 && set(out, CML_LAUNCH_SLURM, rank, size, env_int(get, ctx, "SLURM_LOCALID")))
            return 1;
    }
    /* A PMIx server alone says the rank; MPI_Init says the rest. */
    rank = env_int(get, ctx, "PMIX_RANK");
    if (rank >= 0 && set(out, CML_LAUNCH_PMIX, rank, -1, -1))
        return 1;
    out->launcher = CML_LAUNCH_NONE;
    return 0;
}

static const char *real_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

int cml_fleet_launch_from_env(cml_fleet_launch *out)
{
    return cml_fleet_launch_detect(real_getenv, NULL, out);
}

const char *cml_fleet_launcher_name(cml_fleet_launcher l)
{
    switch (l) {
    case CML_LAUNCH_OPENMPI: return "openmpi";
    case CML_LAUNCH_PMI: return "pmi";
    case CML_LAUNCH_SLURM: return "slurm";
    case CML_LAUNCH_PMIX: return "pmix";
    case CML_LAUNCH_NONE: break;
    }
    return "none";
}
