/*
 * cumemlab cache-level model: public API.
 *
 * Pure C11, no CUDA. Where model.h counts what each warp instruction asks of
 * L1TEX, this header follows the sectors further: through an L1 per SM, the
 * shared L2 and DRAM, with cache state kept across instructions, warps and
 * blocks. It predicts per kernel the figures the hardware counts there:
 * global-load sectors that hit in L1, sectors L1 reads from and writes to
 * L2, and DRAM bytes read and written. docs/model.md ("The cache levels")
 * states every assumption and where it fails.
 *
 * Two ways in:
 *   - the simulator (cml_cache_sim_*): feed it warp instructions, each with
 *     the SM that issues it, in the order they reach the memory system, and
 *     read the totals. Exact for the model's rules; its cost is linear in the
 *     sectors fed.
 *   - whole kernels (cml_trace_levels): a kernel mirror (model.h) run over a
 *     grid, its blocks placed on SMs as the block scheduler does and the
 *     warps of an SM's resident blocks interleaved. Small grids are simulated
 *     whole; large ones from samples (one SM's blocks and the first blocks
 *     of the grid), scaled by the exact per-instruction totals.
 *
 * Every function returns a cml_status (status.h); none exits or prints.
 */
#ifndef CUMEMLAB_CACHE_H
#define CUMEMLAB_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/model.h"
#include "cumemlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the model assumes about the GPU and the kernel's launch. */
typedef struct cml_cache_config {
    unsigned sm_count;           /* SMs the blocks are spread over                  */
    unsigned max_threads_per_sm; /* resident threads per SM (H100: 2048)            */
    unsigned max_blocks_per_sm;  /* resident blocks per SM (H100: 32)               */
    uint64_t l1_total_bytes;     /* L1 and shared memory together per SM (256 KiB)  */
    uint64_t smem_per_sm;        /* the most shared memory an SM can have (228 KiB) */
    uint64_t smem_per_block;     /* the kernel's shared memory per block            */
    uint64_t l1_bytes;           /* L1 data capacity per SM; 0: l1_total_bytes minus
                                    the carve-out the resident blocks need          */
    unsigned resident_blocks;    /* blocks an SM runs at once; 0: from the limits   */
    uint64_t l2_bytes;           /* L2 capacity (H100: 50 MiB)                      */
    unsigned l2_partitions;      /* 1: one shared L2 (default); 2: two halves, each
                                    address homed in one, far reads copied into the
                                    reader's half (docs/model.md, the cache levels) */
    unsigned dram_granule;       /* bytes a read miss fetches from DRAM: 32 or 64   */
    uint64_t clean_age_bytes;    /* L2 writes a dirty sector back once this many bytes
                                    have been brought into L2 after it became dirty;
                                    0: only when evicted                            */
    uint64_t partial_age_bytes;  /* the same horizon for a partially written sector;
                                    0: clean_age_bytes                              */
    uint64_t dirty_max_bytes;    /* and writes back the oldest dirty sector while more
                                    than this is dirty; 0: no limit                 */
    unsigned l1_merge;           /* 1: L1TEX merges a sector request with an earlier
                                    one of the same SM while L1 holds the line: a
                                    store sector the SM stored before is no new L2
                                    write, a .cg (bypassing) load sector it read
                                    before no new L2 read (nor an L1 hit). How long a
                                    request waits to merge is not known: the optimistic
                                    extreme of cache_bounds.c takes it as forever, the
                                    point as never (0)                               */
    unsigned l1_pooled;          /* 1: every SM's requests meet in one L1 and one set
                                    of requests past it, as if one SM: a sector any
                                    SM took may hit (the block scheduler placed the
                                    blocks sharing it on one SM), and a read past L1
                                    merges with any SM's earlier one (the L2 Request
                                    Coalescer found it in flight). The optimistic
                                    extreme of cache_bounds.c; the point runs each
                                    SM alone (0)                                      */
    unsigned l2_forget_cs;       /* 1: L2 keeps no clean sector of a line a .cs load
                                    read (PTX: .cs allocates evict-first in L1 and
                                    L2; how strongly L2 honours it is not known, and
                                    an LRU over the whole L2 has no set whose first
                                    victim it could be): the next read of the line
                                    goes to DRAM. The pessimistic extreme of
                                    cache_bounds.c; the point keeps the line as LRU
                                    (0)                                              */
} cml_cache_config;

/*
 * An H100 SXM (132 SMs, 2048 threads and 32 blocks per SM, 256 KiB of L1
 * and shared memory per SM of which up to 228 KiB shared, 50 MiB L2, DRAM
 * read in 64-byte pieces) with the write-back behaviour measured on one
 * (docs/model-evidence.md, the cache levels); no shared memory.
 */
void cml_cache_config_h100(cml_cache_config *c);

/* CML_EINVAL unless every field is in range (sm_count 1..65536, positive
 * limits, l1 and l2 of at least one 128-byte line, 1 or 2 partitions, a
 * granule of 32 or 64, smem_per_block <= smem_per_sm <= l1_total_bytes). */
cml_status cml_cache_config_check(const cml_cache_config *c);

/* Blocks of `threads` threads one SM holds at once under c (>= 1), and the
 * L1 capacity left beside their shared memory (a multiple of 128 bytes). */
unsigned cml_cache_resident_blocks(const cml_cache_config *c, uint64_t threads);
uint64_t cml_cache_l1_bytes(const cml_cache_config *c, uint64_t threads);

/* One bound of each figure that carries an interval (cml_levels.lo, .hi):
 * docs/model.md §16.8 derives each, from the mechanism the model cannot
 * know exactly, by running the same simulator under its extreme. */
typedef struct cml_level_bounds {
    uint64_t l1_hit_sectors;
    uint64_t l2_read_sectors;
    uint64_t l2_write_sectors;
    uint64_t dram_read_bytes;
    uint64_t dram_write_bytes;
} cml_level_bounds;

/* The model's figures for one kernel (or for what a simulator was fed). */
typedef struct cml_levels {
    uint64_t l1_hit_sectors;     /* global-load sectors that hit in L1
                                    (l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit) */
    uint64_t l1_miss_sectors;    /* global-load sectors that missed (or bypassed) L1  */
    uint64_t local_hit_sectors;  /* local-load sectors that hit in L1                 */
    uint64_t l2_read_sectors;    /* sectors L1TEX read from L2: global and local loads
                                    that missed L1 (lts__t_sectors_srcunit_tex_op_read) */
    uint64_t l2_write_sectors;   /* sectors L1TEX wrote to L2: global and local store
                                    sectors (lts__t_sectors_srcunit_tex_op_write)      */
    uint64_t l2_read_hit_sectors;/* of l2_read_sectors, those L2 held                  */
    uint64_t dram_read_bytes;    /* read misses (granules) and partial-sector merges   */
    uint64_t dram_write_bytes;   /* dirty sectors written back while the kernel ran    */
    uint64_t l2_dirty_end_bytes; /* written data still dirty in L2 when it ended        */
    uint64_t footprint_bytes;    /* distinct 32-byte sectors the kernel touched, x 32   */
    /* How they were obtained. */
    unsigned resident_blocks;    /* blocks per SM the schedule used                    */
    uint64_t l1_bytes;           /* L1 capacity per SM used                            */
    uint64_t simulated_blocks;   /* blocks run through the caches                      */
    int sampled;                 /* 0: every block simulated; 1: scaled from samples   */
    int settled;                 /* 1: whole, or the sample's DRAM rates had settled;
                                    0: they still moved when the sample ended (reuse
                                    farther apart than the sample: DRAM figures and the
                                    footprint are rough)                              */
    /* The interval of each figure of cml_level_bounds: lo <= figure <= hi.
     * Set (bounded = 1) by cml_trace_levels; a simulator's own totals
     * (cml_cache_sim_levels) are exact for its configuration and have none
     * (bounded = 0, lo and hi zero). */
    int bounded;
    cml_level_bounds lo, hi;
} cml_levels;

/* The figures of cml_level_bounds as an array, in its order, and each one's
 * name (its member's, and its key in results files); NULL past the last. */
#define CML_LEVEL_FIGURES 5u
void cml_level_bounds_get(const cml_level_bounds *b, uint64_t out[CML_LEVEL_FIGURES]);
void cml_level_bounds_set(cml_level_bounds *b, const uint64_t v[CML_LEVEL_FIGURES]);
const char *cml_level_figure_name(unsigned i);

/* The figures of l that carry an interval, as a cml_level_bounds. */
void cml_levels_values(const cml_levels *l, cml_level_bounds *out);

/* 1 when l has no interval, or every figure lies within it; else 0. */
int cml_levels_bounds_ok(const cml_levels *l);

/* Every interval of l made the point it holds (bounded = 1): for figures
 * set by hand where nothing is unknown (a test's, a mirror with nothing
 * of the mechanisms in play). */
void cml_levels_set_point(cml_levels *l);

/* ---------------------------------------------------------------------- */
/* The simulator                                                          */
/* ---------------------------------------------------------------------- */

typedef struct cml_cache_sim cml_cache_sim;

/* A simulator with cold caches for threads-per-block `threads` (it sets
 * the L1 capacity beside the blocks' shared memory). CML_EINVAL for a bad
 * config, CML_ENOMEM. */
cml_status cml_cache_sim_new(const cml_cache_config *c, uint64_t threads, cml_cache_sim **out);
void cml_cache_sim_free(cml_cache_sim *s);

/*
 * One warp instruction, issued on SM `sm` (< sm_count) by the warp whose
 * local frame is `warp` (the warp's resident slot in the machine,
 * cml_cache_warp_slot: warps that share a slot share local addresses, as on
 * the GPU). Global and local loads and stores go through the caches;
 * shared and constant accesses are ignored. Returns CML_EINVAL for an
 * invalid access or SM, CML_EMISALIGNED as cml_model_access, CML_ENOMEM.
 */
cml_status cml_cache_sim_access(cml_cache_sim *s, unsigned sm, uint64_t warp,
                                const cml_access *a);

/*
 * The warps of a wave (blocks that are resident at once), as
 * cml_trace_levels feeds a whole grid: instruction 0 of every warp in the
 * order given, then instruction 1 of each, ... (a warp that has run out is
 * passed by). Warp i's instructions are ins[w[i].start .. + w[i].count),
 * issued on SM w[i].sm from resident slot w[i].uid. For addresses
 * recorded from a real kernel (cumemlab trace): fed wave by wave, blocks
 * [0, P*R), [P*R, 2*P*R), ... with P SMs and R = cml_cache_resident_blocks,
 * block b on SM b mod P and warps in block order, they go through the
 * caches as a mirror of the same accesses does in cml_trace_levels.
 * Errors as cml_cache_sim_access; the instructions before it were fed.
 */
typedef struct cml_cache_wave_warp {
    size_t start;   /* its first instruction in ins                    */
    uint32_t count; /* its instructions                                */
    unsigned sm;    /* the SM it runs on                               */
    uint64_t uid;   /* its resident slot (cml_cache_warp_slot): places
                       the warp's local memory                         */
} cml_cache_wave_warp;
cml_status cml_cache_sim_wave(cml_cache_sim *s, const cml_cache_wave_warp *w, size_t nw,
                              const cml_access *ins);

/* The warps of a wave as they arrive, each a run of instructions, for
 * cml_cache_sim_wave: what a kernel mirror's blocks and a recorded launch
 * (cumemlab trace) both collect. All zero is an empty buffer; its memory is
 * kept between flushes and freed by cml_cache_wave_free. */
typedef struct cml_cache_wave {
    cml_access *ins;
    size_t n, cap;              /* instructions */
    cml_cache_wave_warp *w;
    size_t nw, wcap;            /* warps */
} cml_cache_wave;
/*
 * The resident slot of warp `warp` of block `block` (blocks of
 * `warps_per_block` warps, block b on SM b mod `sms`, `resident` blocks per
 * SM in lockstep waves): SM * (resident * warps_per_block) + the block's
 * wave position (b / sms) mod resident * warps_per_block + warp. The GPU
 * backs local memory per resident thread slot, not per thread of the grid:
 * a block that starts where one finished takes its frames, so the grid's
 * local footprint is at most SMs x resident warps x frame.
 */
uint64_t cml_cache_warp_slot(unsigned sms, unsigned resident, unsigned warps_per_block,
                             uint64_t block, unsigned warp);
/* Start a warp on SM `sm`, `uid` as cml_cache_wave_warp's. CML_ENOMEM. */
cml_status cml_cache_wave_begin(cml_cache_wave *q, unsigned sm, uint64_t uid);
/* An instruction of the warp begun last (one must have been). CML_ENOMEM. */
cml_status cml_cache_wave_add(cml_cache_wave *q, const cml_access *a);
/* Feed the buffered warps through s (cml_cache_sim_wave), then empty the
 * buffer, whatever it returns. */
cml_status cml_cache_wave_flush(cml_cache_wave *q, cml_cache_sim *s);
void cml_cache_wave_free(cml_cache_wave *q);

/* The totals so far. Dirty data still in L2 is not written: it is
 * l2_dirty_end_bytes (a kernel's counters stop before it is written). */
void cml_cache_sim_levels(const cml_cache_sim *s, cml_levels *out);

/* ---------------------------------------------------------------------- */
/* Whole kernels                                                          */
/* ---------------------------------------------------------------------- */

/*
 * The levels of a kernel mirror run over grid x block (the same launch as
 * cml_trace_kernel, same limits). Blocks go to SMs in launch order, round
 * robin (block b on SM b mod sm_count); an SM runs its blocks in waves of
 * resident_blocks, and the warps of a wave advance together, one
 * instruction each in turn.
 *
 * `exact`: the kernel's modern-rule traffic from cml_trace_kernel (or
 * cml_exp_trace_1d). Grids of up to CML_LEVELS_FULL_THREADS threads are
 * simulated whole and `exact` may be NULL. Larger grids need it: L1 hit
 * rates come from one SM's blocks, DRAM rates from the grid's first blocks,
 * each scaled to the exact sector totals (out->sampled = 1).
 *
 * out->lo and out->hi bound each figure (out->bounded = 1): the same
 * schedule run again with the mechanisms the model cannot know exactly at
 * their extremes (docs/model.md §16.8), on the same path (whole or
 * sampled) as the point.
 */
#define CML_LEVELS_FULL_THREADS (UINT64_C(1) << 18)
cml_status cml_trace_levels(const cml_cache_config *c, cml_dim3 grid, cml_dim3 block,
                            cml_thread_fn fn, const void *args, const cml_kernel_traffic *exact,
                            cml_levels *out);

#ifdef __cplusplus
}
#endif
#endif
