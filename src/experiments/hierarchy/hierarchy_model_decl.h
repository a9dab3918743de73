/*
 * The hierarchy experiment's model (hierarchy_model.c, hierarchy_levels.c):
 * the capacity rule, the level the counters show, the launch geometry,
 * the mirrors' tracing and the cache levels in closed form, and the
 * chase's permutation. Plain C, no kernel in it: hierarchy_body.h (the
 * kernels and what they share with the model) includes it, so that every
 * user of the experiment's kernels sees its model too.
 */
#ifndef CML_HIERARCHY_MODEL_DECL_H
#define CML_HIERARCHY_MODEL_DECL_H

#include <stdint.h>

#include "core/record.h"
#include "cumemlab/model.h"

struct cml_hier_perm;

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

/* The capacities of `dev` (NULL: an H100 SXM's). */
void cml_hier_caps_of(const cml_device_facts *dev, uint64_t tlb_reach, cml_hier_caps *out);

/* The edges, as fractions of a capacity: a working set up to LOW x capacity
 * fits, one above HIGH x capacity does not, and between the two is the
 * edge. */
#define CML_HIER_L1_LOW 0.9
#define CML_HIER_L1_HIGH 1.5
#define CML_HIER_L2_LOW 0.75
#define CML_HIER_L2_HIGH 1.5

/* The level that serves `ws` bytes walked by every SM (`op` a cml_hier_op,
 * `path` the loads' cml_hier_path, `random`: a chase in random order). */
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
/* The level those figures show (CML_HIER_LEVEL_COUNT: not enough figures). */
cml_hier_level cml_hier_level_measured(const cml_hier_measured *m, int op);
/* Whether a measured level agrees with the prediction. */
int cml_hier_levels_agree(cml_hier_level predicted, cml_hier_level measured);

typedef struct cml_hier_plan {
    uint64_t rows;       /* 1 KiB rows per array (0: ws does not fit the op's arrays) */
    uint64_t per_block;  /* rows each block walks per launch */
    uint32_t grid;       /* blocks launched: SMs x resident blocks of 256 threads, or
                            the parts of a sliced write or copy, or the sliced read's
                            blocks of 1024 (a multiple of its chunks) */
    uint32_t sms;        /* SMs of the device the grid spreads over */
    uint64_t launch_bytes; /* bytes loaded plus bytes stored per launch */
    int stream;          /* the partitioned walk (cml_hier_stream_word) */
    uint64_t parts;      /* > 0: the sliced walk: a write's or copy's parts
                            (cml_hier_slice_word), a read's chunks (cml_hier_chunk_word) */
    uint64_t chunk;      /* the sliced read: pieces of 16 rows a chunk */
} cml_hier_plan;

/* How the blocks share the working set (the `l2-mode` of reads). */
enum {
    CML_HIER_WHOLE = 0,  /* every block walks the whole set (`shared`) */
    CML_HIER_PARTITION,  /* the same up to the L2/DRAM edge, from it the partitioned walk */
    CML_HIER_SLICE       /* every block its own part (`slice`) */
};

/* `target` bytes walked per array per launch at least; `walk`: one of the
 * three above (the partitioned walk where the array holds a word per
 * thread; the sliced write or copy cuts min(grid, rows / 16) parts, the
 * sliced read gpu-l2-cache's chunks: rows a multiple of 16, else rows = 0). */
void cml_hier_plan_bw(uint64_t ws, int op, unsigned sms, unsigned threads_per_sm,
                      uint64_t target, int walk, cml_hier_plan *out);

/* The model of one bandwidth launch or one chase launch, into rec->model. */
cml_status cml_hier_trace_bw(cml_record *rec, const cml_hier_plan *p, int op, int path);
cml_status cml_hier_trace_chase(cml_record *rec, const struct cml_hier_perm *perm, uint64_t hop,
                                uint64_t hops, int path, uint32_t warps);

/* The cache levels of one launch in closed form, into rec->levels with
 * their intervals (hierarchy_levels.c, docs/experiments/hierarchy.md "The
 * cache levels"): a bandwidth launch of plan p; a chase of `walk` hops a
 * warp (its warm and timed walks) over ws bytes of pointers hop apart,
 * after cml_hier_trace_chase (its load and store sectors are the traced
 * ones). And the pointers the chase's warps visit in all (the union of
 * their windows of `walk` from b m / warps). */
cml_status cml_hier_model_levels(cml_record *rec, const cml_hier_plan *p,
                                 const cml_hier_caps *caps, int op, int path);
cml_status cml_hier_chase_levels(cml_record *rec, uint64_t ws, uint64_t hop, uint64_t walk,
                                 int path, int random, uint32_t warps, const cml_hier_caps *caps);
uint64_t cml_hier_chase_visited(uint64_t m, uint32_t warps, uint64_t walk);

/* The chase's permutation of m slots (random: from `seed`; else the stride
 * order), and sigma^-1(s), s < m. */
void cml_hier_perm_make(struct cml_hier_perm *q, uint64_t m, int random, uint64_t seed);
uint64_t cml_hier_perm_invert(const struct cml_hier_perm *q, uint64_t s);
/* The experiment's chase over ws bytes of pointers hop apart: its
 * permutation (the seed from ws and hop), and the slot warp b of `warps`
 * starts its first launch at (position b m / warps of the cycle: the warps
 * as far apart as the cycle allows). */
void cml_hier_chase_perm(struct cml_hier_perm *q, uint64_t ws, uint64_t hop, int random);
uint64_t cml_hier_chase_start(const struct cml_hier_perm *q, uint32_t b, uint32_t warps);

/* The groups of a per-hop latency histogram (docs/experiments/hierarchy.md,
 * "Near and far"): runs of bins each holding at least `floor` of all the
 * hops, a run ending where `gap` bins or more in a row hold fewer. Each
 * group: its first and last bin, its hops, and its median bin (where half
 * its hops are reached). At most `max` groups, in bin order; returns how
 * many (0 for an empty histogram or bad arguments). */
typedef struct cml_hier_group {
    unsigned first, last, median;
    uint64_t hops;
} cml_hier_group;
unsigned cml_hier_latency_groups(const uint64_t *bins, unsigned n, double floor, unsigned gap,
                                 cml_hier_group *out, unsigned max);

#endif
