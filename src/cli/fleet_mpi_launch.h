/*
 * Was this process started by an MPI launcher (mpirun, mpiexec, srun), and
 * where does it stand among the ranks? Read from the environment the
 * launcher sets, without initialising MPI: running cumemlab plainly must
 * never call MPI_Init (a singleton MPI_Init is slow, may print warnings and
 * fails where no MPI runtime is configured), so only a process a launcher
 * started goes the fleet's way (docs/fleet-mpi.md).
 *
 * The environment is read through a getenv-like callback so that the
 * decision can be tested with a made-up environment.
 */
#ifndef CML_FLEET_MPI_LAUNCH_H
#define CML_FLEET_MPI_LAUNCH_H

typedef enum cml_fleet_launcher {
    CML_LAUNCH_NONE = 0,
    CML_LAUNCH_OPENMPI, /* Open MPI's mpirun/mpiexec: OMPI_COMM_WORLD_* */
    CML_LAUNCH_PMI,     /* MPICH's hydra (mpiexec): PMI_RANK, PMI_SIZE, MPI_LOCALRANKID */
    CML_LAUNCH_SLURM,   /* srun: SLURM_PROCID, SLURM_STEP_NUM_TASKS/SLURM_NTASKS, SLURM_LOCALID */
    CML_LAUNCH_PMIX     /* any PMIx server (PRRTE, srun --mpi=pmix): PMIX_RANK */
} cml_fleet_launcher;

typedef struct cml_fleet_launch {
    cml_fleet_launcher launcher;
    int rank;       /* this process's rank in the world */
    int size;       /* ranks in the world; -1 when the launcher does not say (PMIx) */
    int local_rank; /* rank among the ranks of this node; -1 when not said */
} cml_fleet_launch;

typedef const char *(*cml_fleet_getenv_fn)(void *ctx, const char *name);

/* Fill *out from the environment `get` reads: 1 when a launcher started
 * this process, 0 when not (out->launcher is then CML_LAUNCH_NONE). A
 * variable that is present but not a non-negative integer (or a rank not
 * below the size) does not count: a launcher is recognised by all of its
 * variables, so a stray one left in a shell does not make a fleet. */
int cml_fleet_launch_detect(cml_fleet_getenv_fn get, void *ctx, cml_fleet_launch *out);

/* The same from the process's own environment. */
int cml_fleet_launch_from_env(cml_fleet_launch *out);

/* "openmpi", "pmi", "slurm", "pmix" (the fleet file's "launcher"); "none". */
const char *cml_fleet_launcher_name(cml_fleet_launcher l);

#endif
