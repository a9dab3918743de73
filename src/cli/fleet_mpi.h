/*
 * Fleet runs: `mpirun -np N cumemlab COMMAND ... --json fleet.json` (or
 * srun, or MPICH's mpiexec). Each rank runs COMMAND on its node-local GPU
 * and rank 0 writes one "cumemlab-fleet" file with every rank's results,
 * host and GPU, and prints one table (docs/fleet-mpi.md).
 *
 * A process no launcher started is not a fleet: it never calls MPI_Init
 * (cli/fleet_mpi_launch.h says how a launcher is recognised). Built without
 * MPI (-DCUMEMLAB_MPI=OFF, or none found), a launched process says so once
 * and runs alone; only the launcher's rank 0 writes output files.
 */
#ifndef CML_FLEET_MPI_H
#define CML_FLEET_MPI_H

/* 1 when this process was started by an MPI launcher and the command ran
 * as a rank of the fleet: *rc is then the exit status (rank 0: the worst
 * of the ranks'; another rank: its own). 0 when no launcher started it:
 * run the command plainly. */
int cml_fleet_mpi_main(int argc, char **argv, int *rc);

#endif
