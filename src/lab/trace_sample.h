/*
 * The model of a grid too large to walk and with no period to shorten it
 * (an index like (i*i) % n): a uniform sample of its warps, without
 * replacement, scaled to the grid, with a stated bound on every figure
 * (trace_sample.c; docs/model.md, "Sampled grids").
 */
#ifndef CML_LAB_TRACE_SAMPLE_H
#define CML_LAB_TRACE_SAMPLE_H

#include <stdint.h>

#include "lab/trace.h"

/* An instruction a warp of the kernel may issue, and how often at most. */
typedef struct cml_exp_sample_kind {
    cml_space space;
    cml_op op;
    unsigned width;
    unsigned per_warp;
} cml_exp_sample_kind;

/* Warps traced per rule set by default: the figures' bounds are then
 * within about 1% of a warp's largest possible figure (at 99%). */
#define CML_EXP_SAMPLE_WARPS ((uint64_t)1 << 16)
/* The confidence each figure's interval is stated at. */
#define CML_EXP_SAMPLE_CONFIDENCE 0.99

/*
 * The most one instruction of `kind` can add to each figure under `rules`
 * (at most 32 lanes of at most 16 bytes each, every lane's bytes in one
 * sector and one line, or in four for local memory's interleave): the
 * range a warp's figure lies in, which the bound needs.
 */
void cml_exp_sample_caps(const cml_exp_sample_kind *kind, cml_rules rules, cml_traffic *cap);

/*
 * Hoeffding's inequality for sampling without replacement (Serfling's
 * finite-population factor): a total over N units, each in [0, range],
 * estimated from m of them drawn uniformly without replacement is within
 * the returned half-width of the truth with probability at least
 * `confidence`.
 */
double cml_exp_sample_half_width(uint64_t N, uint64_t m, double range, double confidence);

/*
 * The model of grid x block from `warps` of its warps drawn uniformly
 * without replacement (a fixed seed: the same sample on every run), under
 * both rule sets: rec->model holds the totals scaled to the grid, and
 * rec->sample the sample's size and each figure's half-width at
 * CML_EXP_SAMPLE_CONFIDENCE, from a warp issuing at most `kinds` (each
 * kind's per_warp instructions). A grid of no more warps than that is
 * walked whole instead (exact, no sample). Then the cache levels, scaled by
 * the estimated totals. On error marks the record failed.
 */
cml_status cml_exp_trace_sample(cml_record *rec, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                                const void *args, const cml_exp_sample_kind *kinds,
                                size_t nkinds, uint64_t warps);

/*
 * For a sampled record (rec->sample.warps > 0; otherwise buf gets "" and
 * nothing is added): the extra figures "sampled_warps" and "bound" (the
 * half-width of class c's main figure, sectors, wavefronts or serialized
 * accesses, as a share of it, in %) that the table shows, and a sentence
 * for the finding that states the sample and the bound.
 */
void cml_exp_sample_note(cml_record *rec, cml_class c, char *buf, size_t len);

#endif
