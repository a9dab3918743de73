/*
 * Inside the model library: what the kernel driver (cache_kernel.c) reads
 * from a simulator to scale a sample to a whole grid. Not public.
 */
#ifndef CML_MODEL_CACHE_INTERNAL_H
#define CML_MODEL_CACHE_INTERNAL_H

#include "cumemlab/cache.h"

typedef struct cml_cache_sim_stats {
    uint64_t clock;           /* sectors brought into L2 (by reads and writes)        */
    uint64_t load_sectors;    /* global and local load sectors fed                    */
    uint64_t store_sectors;   /* global and local store sectors fed                   */
    uint64_t miss_read_bytes; /* DRAM bytes read to serve L2 read misses              */
    uint64_t episodes;        /* times a sector became dirty (clean or absent before) */
    uint64_t partial_now;     /* dirty sectors holding only some of their bytes       */
    uint64_t merges;          /* partial sectors merged with a DRAM read at write-back */
    uint64_t merged_loads;    /* bypassing load sectors merged in L1 (l1_merge)       */
    uint64_t merged_stores;   /* store sectors merged in L1 (l1_merge)                */
    uint64_t l1_fills;        /* lines the L1s took (a free line or a victim's)       */
    uint64_t l1_lines;        /* lines one L1 holds                                   */
} cml_cache_sim_stats;

void cml_cache_sim_stats_get(const cml_cache_sim *s, cml_cache_sim_stats *out);

/* Stop counting the footprint (saves a hash lookup per sector where the
 * caller does not read it). */
void cml_cache_sim_skip_footprint(cml_cache_sim *s);

/* `s` as cml_cache_sim_new(c, threads) would make it, keeping the memory it
 * has: a grid's samples, and grid after grid, reuse one simulator without
 * allocating (and the system zeroing) tens of megabytes each time.
 * CML_EINVAL for a bad configuration, CML_ENOMEM (s unchanged) when the
 * number of SMs changed and their caches cannot be allocated. */
cml_status cml_cache_sim_reset(cml_cache_sim *s, const cml_cache_config *c, uint64_t threads);

/*
 * The most a grid's global accesses can touch (cache_span.c): the union of
 * the hulls of each load site's addresses (load_bytes), each store site's
 * (store_bytes) and all of them (all_bytes), rounded out to 64 bytes.
 * known 0: not computed (a grid too large for the pass, or copy-engine
 * accesses, whose addresses the hulls do not bound).
 */
typedef struct cml_kernel_span {
    int known;
    uint64_t load_bytes, store_bytes, all_bytes;
    /* The distinct 32-byte sectors and 64-byte granules the loads touch,
     * counted exactly (a bitmap per mirror array, in the same pass as the
     * hulls; 0 with granules_known 0: a load outside the mirrors' arrays
     * or beyond the bitmaps' 2^28 bits, or loads and stores touching one
     * range, where L2 may serve a load what a store left): a cold L2 reads
     * each at least once, the compulsory reads. */
    int granules_known;
    uint64_t load_sectors, load_granules;
    /* Local memory, backed per warp slot (cache_sectors.c: a warp's frame
     * word-interleaved, 32 lanes a word): the bytes of one warp's frame,
     * up to the highest offset any thread touches, and whether loads and
     * stores touch it. The grid's local bytes are that frame times the
     * warp slots it runs in (cml_kernel_span_local); the hulls above are
     * of global accesses alone. */
    uint64_t local_warp_bytes;
    int local_loads, local_stores;
    /* Whether any global load bypasses L1 (.cg): such a load never
     * hits, so "every load sector but each sector's first" bounds L1 hits
     * only where none does. */
    int bypass_loads;
    /* Whether any global load is .cs: an L2 that gives up what they read
     * (the l2_forget_cs extreme) may evict though all fits. */
    int cs_loads;
} cml_kernel_span;

/* The local bytes a grid of `warps` warps touches at most, running in
 * `slots` warp slots: each slot's frame (0 without local accesses or
 * with s unknown). */
uint64_t cml_kernel_span_local(const cml_kernel_span *s, uint64_t warps, uint64_t slots);

/* The compulsory DRAM reads of a grid whose L2 starts cold: every granule
 * (c->dram_granule) its loads touch once; UINT64_MAX when not known. */
uint64_t cml_kernel_span_compulsory(const cml_kernel_span *s, const cml_cache_config *c);

/* 1 when cml_trace_levels simulates the grid whole (no sample, so no rate
 * to cap: the span is not needed). */
int cml_levels_whole(cml_dim3 grid, cml_dim3 block, const cml_kernel_traffic *exact);

/* The span of a grid with the exact traffic `exact` (NULL: not computed)
 * and at most max_ins warp instructions (a larger one: not computed).
 * CML_ENOMEM, or a mirror's error. */
cml_status cml_kernel_span_get(cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                               const void *args, const cml_kernel_traffic *exact,
                               uint64_t max_ins, cml_kernel_span *out);

/* The pass's limits, a cost and never a bound's width (cache_span.c
 * says why): every sampled grid up to CML_SPAN_INS warp instructions;
 * up to CML_SPAN_INS_WIDE one whose window's rates did not settle
 * (span_worth, cache_bounds.c). */
#define CML_SPAN_INS (UINT64_C(3) << 18)
#define CML_SPAN_INS_WIDE (UINT64_C(1) << 22)

/* 1 when s is known and all of it, with `local` bytes of local frames
 * (cml_kernel_span_local), fits in c's L2 at once (each line once per
 * partition): no L2 miss but the first touch of a sector. 0 for .cs loads
 * under c->l2_forget_cs. */
int cml_kernel_span_fits(const cml_kernel_span *s, const cml_cache_config *c, uint64_t local);

/*
 * cml_trace_levels under c alone, without its interval (out->bounded 0):
 * the point, or one extreme of cache_bounds.c. *partial_end_bytes: the
 * partially written sectors L2 still holds dirty at the end (a write-back
 * of them after the kernel first reads them from DRAM). Errors as
 * cml_trace_levels.
 */
cml_status cml_trace_levels_run(const cml_cache_config *c, cml_dim3 grid, cml_dim3 block,
                                cml_thread_fn fn, const void *args,
                                const cml_kernel_traffic *exact, cml_levels *out,
                                uint64_t *partial_end_bytes);

/* The same with the grid's span computed once by the caller (NULL: none
 * known): a sampled run caps its DRAM rates by what fits (cache_span.c). */
cml_status cml_trace_levels_run_span(const cml_cache_config *c, cml_dim3 grid, cml_dim3 block,
                                     cml_thread_fn fn, const void *args,
                                     const cml_kernel_traffic *exact,
                                     const cml_kernel_span *span, cml_levels *out,
                                     uint64_t *partial_end_bytes);

#endif
