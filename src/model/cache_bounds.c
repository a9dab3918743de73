/*
 * The interval of every cache-level figure: cml_trace_levels (cache.h).
 *
 * The point comes from the model's configuration (cache_kernel.c). Beyond
 * L1 the GPU's figures move with mechanisms the model cannot know exactly:
 * the L1 capacity the driver carves out and the blocks' interleaving on an
 * SM, the replacement order of L1 and L2, the partition copies that take
 * room in L2, the write-back horizon. Each bound is the same schedule run
 * again with those mechanisms at the extreme that moves its figure the
 * most, never a width fitted to a measurement (docs/model.md §16.8):
 *   - optimistic: an L1 and an L2 that never give a line up, one L2, no
 *     write-back while the kernel runs: no replacement order, interleaving
 *     or copy hits more in L1 or reads less from DRAM (only compulsory
 *     misses are left); and L1TEX merging every request an SM sends past
 *     L1 (a store, a load that bypasses L1) with an earlier one of the
 *     same sector (l1_merge): how long a request waits in L1TEX, and so
 *     whether a second one meets it, is not known, and the GPU shows such
 *     merges (misaligned stores, a .cg stencil: docs/model.md §16.8);
 *     and every SM as one (l1_pooled): which SM the block scheduler
 *     gives a block is not known, so blocks that share a sector may share
 *     an SM and hit in its L1; and the L2 Request Coalescer merges a read
 *     with another SM's request for its sector still in flight (the H200
 *     counts it: docs/model-evidence.md §4.7), for a time not known;
 *   - write floor: no write-back horizon, and dirty data leaves L2 only
 *     when L2 is full of it: a replacement that gives up every clean line
 *     before a dirty one (the order L2 picks its victims in is not known),
 *     run as an L2 that never gives a line up with a dirty limit of L2's
 *     size (the oldest dirty sector written back while more is dirty). The
 *     least any horizon or replacement writes back: an LRU floor, reads
 *     taking room as they come, was not (unroll's blocks of 32 and 64 on an
 *     H200 kept 1.4-1.8 MiB more dirty than it: docs/model-evidence.md
 *     §2.3);
 *   - pessimistic: the smallest L1 (the largest shared-memory carve-out)
 *     under the schedule's most crowded interleaving, and an L2 halved by
 *     copies (every line held in both partitions), a partial sector
 *     written back (merged with a read) as soon as another comes in,
 *     every dirty sector written back by the end.
 * Each interval is the hull of the point and its extremes, so it holds the
 * point also where a sampled run's scaling rounds a bound past it.
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"

#include <assert.h>

/* A cache no kernel fills: 2^36 bytes, 2^29 lines (the simulator counts
 * lines in 32 bits), and within cml_cache_config_check's 2^40. */
#define UNBOUNDED_BYTES (UINT64_C(1) << 36)

void cml_level_bounds_get(const cml_level_bounds *b, uint64_t v[CML_LEVEL_FIGURES])
{
    v[0] = b->l1_hit_sectors;
    v[1] = b->l2_read_sectors;
    v[2] = b->l2_write_sectors;
    v[3] = b->dram_read_bytes;
    v[4] = b->dram_write_bytes;
}

void cml_level_bounds_set(cml_level_bounds *b, const uint64_t v[CML_LEVEL_FIGURES])
{
    b->l1_hit_sectors = v[0];
    b->l2_read_sectors = v[1];
    b->l2_write_sectors = v[2];
    b->dram_read_bytes = v[3];
    b->dram_write_bytes = v[4];
}

const char *cml_level_figure_name(unsigned i)
{
    static const char *const names[CML_LEVEL_FIGURES] = {
        "l1_hit_sectors", "l2_read_sectors", "l2_write_sectors", "dram_read_bytes",
        "dram_write_bytes"};
    return i < CML_LEVEL_FIGURES ? names[i] : NULL;
}

void cml_levels_values(const cml_levels *l, cml_level_bounds *out)
{
    out->l1_hit_sectors = l->l1_hit_sectors;
    out->l2_read_sectors = l->l2_read_sectors;
    out->l2_write_sectors = l->l2_write_sectors;
    out->dram_read_bytes = l->dram_read_bytes;
    out->dram_write_bytes = l->dram_write_bytes;
}

int cml_levels_bounds_ok(const cml_levels *l)
{
    if (!l->bounded)
        return 1;
    cml_level_bounds val;
    cml_levels_values(l, &val);
    uint64_t v[CML_LEVEL_FIGURES], lo[CML_LEVEL_FIGURES], hi[CML_LEVEL_FIGURES];
    cml_level_bounds_get(&val, v);
    cml_level_bounds_get(&l->lo, lo);
    cml_level_bounds_get(&l->hi, hi);
    for (unsigned i = 0; i < CML_LEVEL_FIGURES; i++)
        if (lo[i] > v[i] || v[i] > hi[i])
            return 0;
    return 1;
}

void cml_levels_set_point(cml_levels *l)
{
    cml_levels_values(l, &l->lo);
    l->hi = l->lo;
    l->bounded = 1;
}

/* ---- the extremes ----------------------------------------------------------- */

static void optimistic(cml_cache_config *c)
{
    c->l1_total_bytes = UNBOUNDED_BYTES;
    c->l1_bytes = UNBOUNDED_BYTES;
    c->l2_bytes = UNBOUNDED_BYTES;
    c->l2_partitions = 1;
    c->clean_age_bytes = c->partial_age_bytes = c->dirty_max_bytes = 0;
    c->l1_merge = 1;
    c->l1_pooled = 1;
}

static void write_floor(cml_cache_config *c)
{
    c->dirty_max_bytes = c->l2_bytes;
    c->l2_bytes = UNBOUNDED_BYTES;
    c->l2_partitions = 1;
    c->clean_age_bytes = c->partial_age_bytes = 0;
}

static void pessimistic(cml_cache_config *c)
{
    /* A capacity the caller fixed is known: only the carve-out the driver
     * picks is not (it may give shared memory more than the blocks ask). */
    if (!c->l1_bytes) {
        const uint64_t l1 = c->l1_total_bytes - c->smem_per_sm;
        c->l1_bytes = l1 >= CML_LINE_BYTES ? l1 : CML_LINE_BYTES;
    }
    /* The horizon of a partial sector is not known (it is a time, and the
     * kernel's pace sets how much comes into L2 in it): at its least, a
     * sector one store left partial is merged with a DRAM read and written
     * back as soon as another sector comes in, before the stores that
     * would complete it (a transpose's column, 8 warps to a sector; the
     * GPU shows it: docs/model-evidence.md §4.11). Merged, it is whole, so
     * this costs at most one read and one write per partial sector. */
    if (c->partial_age_bytes || c->clean_age_bytes)
        c->partial_age_bytes = CML_SECTOR_BYTES;
    /* A .cs line may be L2's first victim (PTX: evict-first), taken out
     * by the next line its set receives: at the extreme L2 keeps none of
     * its clean sectors after the read ([MEASURED] H200 2026-11-29: the
     * 16 KiB table gathered through __ldcs while 120 MiB stream out is read
     * from DRAM 27 times, not once; docs/model-evidence.md §4.9). */
    c->l2_forget_cs = 1;
    /* Two partitions already place every copy: nothing more to take. */
    if (c->l2_partitions == 1) {
        const uint64_t half = c->l2_bytes / 2u / CML_LINE_BYTES * CML_LINE_BYTES;
        c->l2_bytes = half >= 2u * CML_LINE_BYTES ? half : 2u * CML_LINE_BYTES;
    }
}

static uint64_t umin(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t umax(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Whether a sampled grid beyond CML_SPAN_INS gets the span pass. A cost
 * choice, never a bound's width: the bounds hold with the span or without
 * it, the span only narrows them. The pass runs every thread once: the
 * model-only tour takes 8-9 s with this rule (7 grids get it: the hot
 * gathers, the whole-array gathers of stride and expr, the local frames),
 * 6 s without it, 12-13 s when any excess of DRAM bytes over the L2 read
 * sectors counts as overfetch, 45 s when every grid up to
 * CML_SPAN_INS_WIDE gets it (the development machine, 2026-11-28). It is
 * spent where the window of the first blocks says least about the rest:
 * rates that did not settle (a gather over a table meets cold sectors to
 * the window's end and would carry their misses to the rest of the grid),
 * granules half of which the window never asked for, and local frames
 * that later waves take back. */
static int span_worth(const cml_levels *pt, const cml_cache_config *c,
                      const cml_kernel_traffic *exact, uint64_t nblocks)
{
    /* Local frames a later wave's blocks take back from the first's (the
     * window of the first blocks never reaches a second wave): what the
     * grid touches is its slots' frames, not a frame a block. */
    const int local = exact && (exact->cls[CML_CLASS_LOCAL_LD].instructions ||
                                exact->cls[CML_CLASS_LOCAL_ST].instructions);
    /* Every L2 read sector a 64-byte granule of its own from DRAM, whose
     * other sector no load of the window asked for: a gather over a
     * whole array, whose later blocks may ask for it. (A misaligned
     * stream fetches a few more bytes than it reads, not twice.) */
    const int overfetch = pt->dram_read_bytes >= 2u * CML_SECTOR_BYTES * pt->l2_read_sectors &&
                          pt->l2_read_sectors > 0;
    return pt->sampled &&
           (!pt->settled || overfetch ||
            (local && nblocks > (uint64_t)c->sm_count * pt->resident_blocks));
}

cml_status cml_trace_levels(const cml_cache_config *c, cml_dim3 grid, cml_dim3 block,
                            cml_thread_fn fn, const void *args, const cml_kernel_traffic *exact,
                            cml_levels *out)
{
    if (!out || cml_cache_config_check(c) != CML_OK)
        return CML_EINVAL;
    cml_levels pt, opt, flo, pes;
    /* Partial sectors left dirty: only the point's and the pessimistic
     * run's are read (the others write back no more than the point). */
    uint64_t pt_part = 0, pes_part = 0, unused = 0;
    cml_cache_config co = *c, cf = *c, cp = *c;
    optimistic(&co);
    write_floor(&cf);
    pessimistic(&cp);
    /* What the grid can touch, once for the four runs (cache_span.c). */
    cml_kernel_span sp;
    cml_status rc = cml_kernel_span_get(grid, block, fn, args, exact, CML_SPAN_INS, &sp);
    if (rc == CML_OK)
        rc = cml_trace_levels_run_span(c, grid, block, fn, args, exact, &sp, &pt, &pt_part);
    /* A larger grid gets the span where span_worth says so (up to
     * CML_SPAN_INS_WIDE), and the point is run again with it. */
    if (rc == CML_OK && !sp.known &&
        span_worth(&pt, c, exact, (uint64_t)grid.x * grid.y * grid.z)) {
        rc = cml_kernel_span_get(grid, block, fn, args, exact, CML_SPAN_INS_WIDE, &sp);
        if (rc == CML_OK && sp.known)
            rc = cml_trace_levels_run_span(c, grid, block, fn, args, exact, &sp, &pt, &pt_part);
    }
    if (rc == CML_OK)
        rc = cml_trace_levels_run_span(&co, grid, block, fn, args, exact, &sp, &opt, &unused);
    if (rc == CML_OK)
        rc = cml_trace_levels_run_span(&cf, grid, block, fn, args, exact, &sp, &flo, &unused);
    if (rc == CML_OK)
        rc = cml_trace_levels_run_span(&cp, grid, block, fn, args, exact, &sp, &pes, &pes_part);
    if (rc != CML_OK)
        return rc;

    cml_level_bounds *lo = &pt.lo, *hi = &pt.hi;
    /* L1: no L1 hits more than one that keeps every line (only each SM's
     * first touch of a sector misses); the smallest L1 under the crowded
     * schedule hits least (LRU: a smaller cache holds a subset). */
    lo->l1_hit_sectors = umin(pt.l1_hit_sectors, pes.l1_hit_sectors);
    hi->l1_hit_sectors = umax(pt.l1_hit_sectors, opt.l1_hit_sectors);
    /* L2 reads are L1's misses (global and local), and the loads that
     * bypass L1 but for those merged with an earlier request of the SM:
     * the same two runs. */
    lo->l2_read_sectors = umin(pt.l2_read_sectors, opt.l2_read_sectors);
    hi->l2_read_sectors = umax(pt.l2_read_sectors, pes.l2_read_sectors);
    /* A sampled run sees reuse only inside its sample (a gather over a
     * whole array meets a sector again far from its first touch). Where
     * the span counted the loads' distinct sectors, the extreme of every
     * SM as one is known without the sample: no fewer L2 reads than the
     * sectors (none of them stored by the grid: granules_known), and where
     * every global load looks up L1, no more hits than every load sector
     * but each sector's first touch. */
    if (opt.sampled && sp.known && sp.granules_known && exact) {
        const uint64_t gld = exact->cls[CML_CLASS_GLOBAL_LD].sectors;
        if (!sp.bypass_loads)
            hi->l1_hit_sectors =
                umax(hi->l1_hit_sectors, gld > sp.load_sectors ? gld - sp.load_sectors : 0);
        lo->l2_read_sectors = umin(lo->l2_read_sectors, sp.load_sectors);
    }
    /* L2 writes: every store sector at most (no merging, the point); at
     * least those no earlier store to the sector took along (the
     * optimistic run's merging, every SM as one: any two blocks may share
     * an SM). */
    lo->l2_write_sectors = umin(pt.l2_write_sectors, opt.l2_write_sectors);
    hi->l2_write_sectors = pt.l2_write_sectors;
    /* DRAM reads: compulsory misses at least (the optimistic run's, and
     * where the span pass counted them, every granule the loads touch
     * once: exact where the sampled run's rates round above it); at most
     * the pessimistic caches' misses with every partial sector merged by
     * the end. */
    lo->dram_read_bytes =
        umin(umin(pt.dram_read_bytes, opt.dram_read_bytes), cml_kernel_span_compulsory(&sp, c));
    hi->dram_read_bytes =
        umax(pt.dram_read_bytes + pt_part, pes.dram_read_bytes + pes_part);
    /* DRAM writes: what no horizon or replacement keeps (L2 full of dirty
     * data) at least;
     * at most every dirty sector written back, none left at the end. */
    lo->dram_write_bytes = umin(pt.dram_write_bytes, flo.dram_write_bytes);
    hi->dram_write_bytes = umax(pt.dram_write_bytes + pt.l2_dirty_end_bytes,
                                pes.dram_write_bytes + pes.l2_dirty_end_bytes);
    pt.bounded = 1;
    assert(cml_levels_bounds_ok(&pt));
    *out = pt;
    return CML_OK;
}
