/* Experiment 22 (cluster-smem: distributed shared memory in thread-block
 * clusters against L2): the model mirror and the row. */
#ifndef CML_EXP_CLUSTER_SMEM_H
#define CML_EXP_CLUSTER_SMEM_H

#include "experiments/cluster_smem/cluster_smem_kernels.h"
#include "lab/experiment.h"

/* One launch as the model sees it: a mirror "block" is one block's one
 * round of 16-byte accesses (cluster_smem.c says why). */
typedef struct cml_cluster_args {
    int test, source;
    unsigned cluster, words, passes;
    uint64_t grid;
} cml_cluster_args;

/* Fill (and for the global bandwidth test, every pass's loads) of round
 * t->bid.x % rounds of block t->bid.x / rounds, rounds = words / 1024. */
void cml_cluster_round_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_cluster_smem;

#endif
