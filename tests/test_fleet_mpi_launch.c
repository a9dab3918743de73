/*
 * Which MPI launcher started the process, read from a made-up environment
 * (src/cli/fleet_mpi_launch.h): none; Open MPI's, MPICH hydra's, srun's and
 * a PMIx server's variables; the precedence where several are set at once
 * (mpirun inside a Slurm job, hydra's proxies started by srun, srun
 * --mpi=pmix); and what does not make a fleet (a stray variable, a rank
 * that is not a number or not below the size, sbatch's batch step).
 */
#include "cli/fleet_mpi_launch.h"

#include "test_util.h"

/* An environment of NAME=VALUE strings, NULL-terminated. */
static const char *lookup(void *ctx, const char *name)
{
    const char *const *env = ctx;
    size_t n = strlen(name);
    for (; *env; env++)
        if (!strncmp(*env, name, n) && (*env)[n] == '=')
            return *env + n + 1;
    return NULL;
}

/* Detect in env; check the launcher, rank, size and local rank. */
static void expect(const char *const *env, cml_fleet_launcher l, int rank, int size, int local)
{
    cml_fleet_launch got;
    int launched = cml_fleet_launch_detect(lookup, (void *)env, &got);
    CHECK_EQ_I64(launched, l != CML_LAUNCH_NONE);
    CHECK_STR_EQ(cml_fleet_launcher_name(got.launcher), cml_fleet_launcher_name(l));
    if (l == CML_LAUNCH_NONE)
        return;
    CHECK_EQ_I64(got.rank, rank);
    CHECK_EQ_I64(got.size, size);
    CHECK_EQ_I64(got.local_rank, local);
}

int main(void)
{
    const char *none[] = {"HOME=/root", "PATH=/usr/bin", NULL};
    expect(none, CML_LAUNCH_NONE, 0, 0, 0);

    const char *ompi[] = {"OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK=3",
                          "OMPI_COMM_WORLD_LOCAL_RANK=1", NULL};
    expect(ompi, CML_LAUNCH_OPENMPI, 3, 4, 1);
    const char *ompi_no_local[] = {"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=0", NULL};
    expect(ompi_no_local, CML_LAUNCH_OPENMPI, 0, 2, -1);
    /* mpirun in an sbatch script: the job's SLURM_* and Open MPI's PMIX_RANK
     * beside Open MPI's own variables, which win. */
    const char *ompi_in_slurm[] = {"SLURM_STEP_ID=0",        "SLURM_PROCID=0",
                                   "SLURM_NTASKS=8",         "SLURM_LOCALID=0",
                                   "PMIX_RANK=5",            "OMPI_COMM_WORLD_SIZE=8",
                                   "OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_LOCAL_RANK=1",
                                   NULL};
    expect(ompi_in_slurm, CML_LAUNCH_OPENMPI, 5, 8, 1);

    const char *hydra[] = {"PMI_SIZE=6", "PMI_RANK=4", "MPI_LOCALRANKID=0", NULL};
    expect(hydra, CML_LAUNCH_PMI, 4, 6, 0);
    /* hydra's proxies started by srun, one per node: SLURM_PROCID counts
     * nodes, PMI_RANK ranks. */
    const char *hydra_srun[] = {"SLURM_STEP_ID=1", "SLURM_PROCID=1", "SLURM_NTASKS=2",
                                "PMI_SIZE=16",     "PMI_RANK=9",     "MPI_LOCALRANKID=1", NULL};
    expect(hydra_srun, CML_LAUNCH_PMI, 9, 16, 1);

    const char *srun[] = {"SLURM_STEP_ID=3", "SLURM_PROCID=2", "SLURM_STEP_NUM_TASKS=4",
                          "SLURM_NTASKS=16", "SLURM_LOCALID=0", NULL};
    expect(srun, CML_LAUNCH_SLURM, 2, 4, 0); /* the step's tasks, not the job's */
    const char *srun_ntasks[] = {"SLURM_STEP_ID=0", "SLURM_PROCID=1", "SLURM_NTASKS=2",
                                 "SLURM_LOCALID=1", NULL};
    expect(srun_ntasks, CML_LAUNCH_SLURM, 1, 2, 1);
    /* srun --mpi=pmix: Slurm's variables name the launcher. */
    const char *srun_pmix[] = {"SLURM_STEP_ID=0", "SLURM_PROCID=1", "SLURM_NTASKS=2",
                               "SLURM_LOCALID=1", "PMIX_RANK=1", NULL};
    expect(srun_pmix, CML_LAUNCH_SLURM, 1, 2, 1);
    /* The batch script of sbatch: a job, not a step srun started. */
    const char *batch[] = {"SLURM_STEP_ID=4294967294", "SLURM_PROCID=0", "SLURM_NTASKS=4",
                           "SLURM_LOCALID=0", NULL};
    expect(batch, CML_LAUNCH_NONE, 0, 0, 0);
    const char *slurm_no_step[] = {"SLURM_PROCID=0", "SLURM_NTASKS=4", NULL};
    expect(slurm_no_step, CML_LAUNCH_NONE, 0, 0, 0);

    const char *pmix[] = {"PMIX_RANK=7", NULL};
    expect(pmix, CML_LAUNCH_PMIX, 7, -1, -1);

    /* A fleet of one is a fleet (the file is written all the same). */
    const char *one[] = {"OMPI_COMM_WORLD_SIZE=1", "OMPI_COMM_WORLD_RANK=0", NULL};
    expect(one, CML_LAUNCH_OPENMPI, 0, 1, -1);

    /* What does not make a fleet. */
    const char *stray_rank[] = {"OMPI_COMM_WORLD_RANK=0", NULL};
    expect(stray_rank, CML_LAUNCH_NONE, 0, 0, 0);
    const char *rank_past_size[] = {"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=2", NULL};
    expect(rank_past_size, CML_LAUNCH_NONE, 0, 0, 0);
    const char *not_numbers[] = {"PMI_SIZE=4x", "PMI_RANK=1", "PMIX_RANK=-1",
                                 "OMPI_COMM_WORLD_SIZE=", "OMPI_COMM_WORLD_RANK=0", NULL};
    expect(not_numbers, CML_LAUNCH_NONE, 0, 0, 0);
    const char *zero_size[] = {"PMI_SIZE=0", "PMI_RANK=0", NULL};
    expect(zero_size, CML_LAUNCH_NONE, 0, 0, 0);
    const char *huge[] = {"OMPI_COMM_WORLD_SIZE=99999999999", "OMPI_COMM_WORLD_RANK=0", NULL};
    expect(huge, CML_LAUNCH_NONE, 0, 0, 0);

    CHECK_STR_EQ(cml_fleet_launcher_name(CML_LAUNCH_PMIX), "pmix");
    CHECK_STR_EQ(cml_fleet_launcher_name(CML_LAUNCH_PMI), "pmi");
    return cml_test_summary("test_fleet_mpi_launch");
}
