/*
 * The hierarchy experiment (docs/experiments/hierarchy.md): bandwidth and
 * latency against the working set. This header exports what the CPU tests
 * check: the rule that says which level of the memory hierarchy serves a
 * working set, the level the hardware counters say served it, the launch
 * geometry, the model mirror, and the registry row.
 */
#ifndef CML_EXP_HIERARCHY_H
#define CML_EXP_HIERARCHY_H

#include <stdint.h>

#include "core/record.h"
#include "experiments/hierarchy/hierarchy_kernels.h"
#include "lab/experiment.h"

/* Where the model says the data of a working set comes from. The two
 * edges are the sizes near a capacity where a part is served by each side
 * (set conflicts, a replacement policy that is not quite LRU, L2's two
 * partitions). */
typedef enum cml_hier_level {
    CML_HIER_L1 = 0,
    CML_HIER_L1_L2,      /* the L1 edge */
    CML_HIER_L2,
    CML_HIER_L2_DRAM,    /* the L2 edge */
    CML_HIER_DRAM,
    CML_HIER_DRAM_TLB,   /* random pointers beyond the assumed TLB reach */
    CML_HIER_LEVEL_COUNT
} cml_hier_level;

/* "L1", "L1/L2", "L2", "L2/DRAM", "DRAM", "DRAM+TLB". */
const char *cml_hier_level_name(cml_hier_level level);
/* The level as a number for tables and charts: 1, 1.5, 2, 2.5, 3, 4. */
double cml_hier_level_code(cml_hier_level level);

/* The capacities the rule uses. */
typedef struct cml_hier_caps {
    uint64_t l1_bytes;   /* L1 data cache per SM available to loads */
    uint64_t l2_bytes;
    uint64_t tlb_reach;  /* 0: not assumed (no DRAM+TLB level) */
    unsigned sms;
    int from_device;     /* 0: no device was read; an H100's figures */
} cml_hier_caps;

/* The capacities of `dev` (NULL: an H100 SXM's: 228 KiB, 50 MiB, 132 SMs):
 * L1 per SM = the largest shared-memory carve-out per SM (the unified
 * L1/shared array less the part no carve-out can take; see the doc). */
void cml_hier_caps_of(const cml_device_facts *dev, uint64_t tlb_reach, cml_hier_caps *out);

/* The edges, as fractions of a capacity: a working set up to LOW x capacity
 * fits, one above HIGH x capacity does not, and between the two is the
 * edge. */
#define CML_HIER_L1_LOW 0.9
#define CML_HIER_L1_HIGH 1.5
#define CML_HIER_L2_LOW 0.75
#define CML_HIER_L2_HIGH 1.5

/*
 * The level that serves `ws` bytes walked by every SM (`op` a cml_hier_op,
 * `path` the loads' cml_hier_path, `random`: a chase in random order). L1
 * serves only loads through ca or nc (cg skips it; stores are written
 * through to L2, so write and copy are at best L2); the L1 test compares the
 * whole working set with one SM's L1, because every SM walks all of it.
 */
cml_hier_level cml_hier_predict(const cml_hier_caps *caps, int op, int path, int random,
                                uint64_t ws);

/* What the hardware counters of one launch say (docs/experiments/hierarchy.md):
 * NaN where a figure is not known. */
typedef struct cml_hier_measured {
    double l1_hit;        /* global load sectors that hit in L1 / load sectors */
    double l2_hit;        /* 1 - DRAM bytes read / bytes L1 read from L2 */
    double dram_per_byte; /* DRAM bytes (read + written) / bytes loaded and stored */
} cml_hier_measured;

typedef struct cml_hier_counts {
    double ld_sectors, ld_hit_sectors, l2_read_sectors, dram_read;
    double st_sectors, dram_write;
} cml_hier_counts;

void cml_hier_measure_counts(const cml_hier_counts *c, cml_hier_measured *m);
/* The level those figures show: L1 when at least 80% of the load sectors
 * hit in L1 (the edge from 20%); else L2 when DRAM moved at most 0.2 bytes
 * per byte asked for (the edge up to 0.6); else DRAM. Stores never hit in
 * L1, so a copy is at best L2. CML_HIER_LEVEL_COUNT: not enough figures. */
cml_hier_level cml_hier_level_measured(const cml_hier_measured *m, int op);
/* Whether a measured level agrees with the prediction: the same level, or
 * one of an edge's two sides, or DRAM for DRAM+TLB (counters do not see
 * translation misses). */
int cml_hier_levels_agree(cml_hier_level predicted, cml_hier_level measured);

/* The launch geometry of a bandwidth point. */
typedef struct cml_hier_plan {
    uint64_t rows;       /* 1 KiB rows per array (0: ws does not fit the op's arrays) */
    uint64_t per_block;  /* rows each block walks per launch */
    uint32_t grid;       /* blocks: SMs x resident blocks of 256 threads */
    uint64_t launch_bytes; /* bytes loaded plus bytes stored per launch */
    int stream;          /* the partitioned walk (cml_hier_stream_word) */
} cml_hier_plan;

/* `target` bytes walked per array per launch at least (the working set at
 * least once, by every block together). `partition`: the level is the
 * L2/DRAM edge or beyond, so the grid reads the array partitioned (each
 * pass every byte once) where it holds a word per thread at least; else
 * every block walks all of it. The per-block walk needs 16 rows at least
 * (a step's 16 loads on 16 distinct rows): smaller arrays get rows = 0. */
void cml_hier_plan_bw(uint64_t ws, int op, unsigned sms, unsigned threads_per_sm,
                      uint64_t target, int partition, cml_hier_plan *out);

/* The model of one bandwidth launch or one chase launch, into rec->model. */
cml_status cml_hier_trace_bw(cml_record *rec, const cml_hier_plan *p, int op, int path);
cml_status cml_hier_trace_chase(cml_record *rec, const cml_hier_perm *perm, uint64_t hop,
                                uint64_t hops, int path);

/* The chase's permutation of m slots (random: from `seed`; else the stride
 * order). */
void cml_hier_perm_make(cml_hier_perm *q, uint64_t m, int random, uint64_t seed);

extern const cml_experiment cml_exp_hierarchy;

#endif
