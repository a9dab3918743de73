/* Experiment 19 (L2 residency): the model's expectation, exported for the
 * registry and the tests. */
#ifndef CML_EXP_L2_RESIDENCY_H
#define CML_EXP_L2_RESIDENCY_H

#include <stdint.h>

#include "lab/experiment.h"

/*
 * What the model expects of one launch, in steady state (lines a previous
 * launch left in L2 still there), from the L2 size C, the hot set H, the
 * bytes X streamed (x read, and as many written to out, per launch; the hot
 * set is read X bytes' worth too) and, for a window, the set-aside S, the
 * window's bytes W, hitRatio r and hitProp:
 *   none, prefetch, no-allocate   hot hit = 1 - exp(-4T/H), T solving
 *                                 8T + H(1 - exp(-4T/H)) = C (LRU, by the
 *                                 characteristic-time approximation)
 *   window, persisting            hot hit = min(r W, S) / H
 *   window, streaming             hot hit = 0 (every hot line evict-first)
 *   ldcs, evict-first/-last/both  hot hit = min(1, C / H) (the stream's lines
 *                                 leave first, or the hot lines last)
 *   DRAM read = X + (1 - hit) X, and up to hit x H more when L2 starts cold;
 *   DRAM write = X; L2 hit rate of the reads = hit / 2.
 */
typedef struct cml_l2r_expect {
    double hot_hit;          /* 0..1 */
    double dram_read;        /* bytes, steady state */
    double dram_read_cold;   /* bytes, L2 cold at the start */
    double dram_write;       /* bytes */
    double l2_hit;           /* 0..1, of the read sectors */
} cml_l2r_expect;

/* policy: cml_l2r_policy; ratio 0..1; persisting 1/0 (window only). */
void cml_l2r_expectation(int policy, double l2, double hot, double stream, double set_aside,
                         double window, double ratio, int persisting, cml_l2r_expect *e);

/* The hot hit fraction of plain LRU beside the stream (the first rule). */
double cml_l2r_lru_hit(double l2, double hot);

extern const cml_experiment cml_exp_l2_residency;

#endif
