/*
 * The hierarchy experiment's cache levels in closed form
 * (docs/experiments/hierarchy.md, "The cache levels"): L1 hit sectors, L2
 * read and write sectors and DRAM bytes read and written of one launch,
 * each with the interval (lo, hi) that what the model cannot know spans.
 * The sampled simulator cannot follow these kernels: a launch walks the
 * working set thousands of times, far past the blocks it samples, so the
 * figures are derived from the walk itself: how many bytes each block and
 * each SM touch, how many times, and whether that fits L1 or L2.
 *
 * What is not known, and what each bound takes:
 *  - the blocks' interleaving on an SM and the replacement order: a set
 *    that fits (0.9 x L1 or 0.75 x L2, the capacity rule's) misses once
 *    per SM (the point), at least once in all, at most once per block; one
 *    that does not fit misses every time under LRU (the point), and hits
 *    at most what the blocks' re-reads could (the whole set's cold misses
 *    aside) in L1; in L2 at most a capacity's worth per reuse distance
 *    (the slot-time bound: a sector kept through a reuse interval of D
 *    bytes' accesses occupies one of C / 32 slots for it, so C / D of the
 *    accesses hit at most), with the blocks at one pace;
 *  - whether L2 is warm from the launch before (the counters pass flushes
 *    it; a run may not): DRAM reads from 0 up where the set fits;
 *  - the write-back horizon and the dirty maximum: written data still in
 *    L2 at the end is not counted, so DRAM writes span 0 .. every store
 *    sector where the set fits, and lose at most an L2's worth beyond;
 *  - the DRAM read granule (32 or 64 bytes) of a chase's scattered misses;
 *  - how many of a cg load's sectors meet a request for the same sector
 *    still in flight, in L1TEX or, from any SM, in the L2 Request
 *    Coalescer (no second L2 read): none (the point) to every repeat (the
 *    lower bound: the sectors the grid reads, distinct; distinct_rows,
 *    every SM as one, docs/model.md §16.8).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "lab/common.h"

#define SECTOR 32ull
#define GRANULE 64ull

static uint64_t sub0(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* One figure: its point and interval, the point held inside. */
typedef struct fig {
    uint64_t v, lo, hi;
} fig;

static fig make(uint64_t v, uint64_t lo, uint64_t hi)
{
    fig f = {v, lo, hi > lo ? hi : lo};
    f.v = f.v < f.lo ? f.lo : f.v > f.hi ? f.hi : f.v;
    return f;
}

static void store(cml_levels *lv, fig hit, fig l2r, fig l2w, fig dr, fig dw)
{
    lv->l1_hit_sectors = hit.v;
    lv->l2_read_sectors = l2r.v;
    lv->l2_write_sectors = l2w.v;
    lv->dram_read_bytes = dr.v;
    lv->dram_write_bytes = dw.v;
    lv->lo = (cml_level_bounds){hit.lo, l2r.lo, l2w.lo, dr.lo, dw.lo};
    lv->hi = (cml_level_bounds){hit.hi, l2r.hi, l2w.hi, dr.hi, dw.hi};
    lv->bounded = 1;
    lv->settled = 1;
    lv->sampled = 0;
}

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/*
 * Rows the grid reads, distinct (bytes: x 1 KiB). The sliced read reads
 * them all (its grid a multiple of its chunks). The whole walk and the
 * sliced write give block b the circular window of L = min(rows, per_block)
 * rows from its start (cml_hier_block_start; the sliced one (b mod parts)
 * x rows / parts, its parts following one another in memory), so the
 * grid's rows are its windows' lengths, each cut at the next start in
 * address order (as cml_hier_chase_visited cuts the chase's). The
 * partitioned walk reads rows 0 .. grid x per_block - 1 (mod rows). 0 when
 * out of memory.
 */
static uint64_t distinct_rows(const cml_hier_plan *p)
{
    const uint64_t rows = p->rows, B = p->grid, L = min64(rows, p->per_block);
    if (p->stream)
        return min64(B * p->per_block, rows);
    if (p->chunk) /* the sliced read: a grid of whole rounds over every chunk */
        return rows;
    uint64_t *start = malloc(B * sizeof *start), total = 0;
    if (!start)
        return 0;
    for (uint64_t b = 0; b < B; b++)
        start[b] = p->parts ? b % p->parts * (rows / p->parts) : cml_hier_block_start(b, B, rows);
    qsort(start, B, sizeof *start, cmp_u64);
    for (uint64_t i = 0; i < B; i++) {
        const uint64_t next = i + 1 < B ? start[i + 1] : start[0] + rows;
        total += next == start[i] && B > 1 ? 0 : min64(L, next - start[i]);
    }
    free(start);
    return total;
}

/* Loads that miss L1 are L2's reads: the L2 figure mirrors the L1 one. */
static fig l2_reads(uint64_t loads, fig hit)
{
    return make(loads - hit.v, loads - hit.hi, loads - hit.lo);
}

/*
 * DRAM writes of `stored` bytes of store sectors onto `written` distinct
 * bytes, in a launch whose L2 footprint is `foot`: where it fits L2 the
 * written data may all stay dirty (0, the point) or all go out as it is
 * stored; beyond L2 every pass pushes the set through, all but an L2's
 * worth left dirty at the end (the point), at least the slot-time bound.
 */
static fig dram_writes(uint64_t stored, uint64_t written, uint64_t foot, uint64_t l2)
{
    if ((double)foot <= CML_HIER_L2_LOW * (double)l2)
        return make(0, 0, stored);
    const uint64_t lo = foot > l2 ? sub0((uint64_t)((double)stored * (1.0 - (double)l2 /
                                                                               (double)foot)),
                                         l2)
                                  : 0;
    const uint64_t v = foot <= l2 ? 0 : sub0(stored, min64(written, l2));
    return make(v, lo, stored);
}

cml_status cml_hier_model_levels(cml_record *rec, const cml_hier_plan *p,
                                 const cml_hier_caps *caps, int op, int path)
{
    if (!rec || !p || !caps || !p->rows || !p->grid || op < 0 || op >= CML_HIER_CHASE)
        return CML_EINVAL;
    const uint64_t row = CML_HIER_ROW_BYTES, B = p->grid, sms = p->sms ? p->sms : 1;
    const uint64_t set = p->rows * row;                 /* one array's bytes */
    const uint64_t walked = B * p->per_block * row;     /* per array per launch */
    const uint64_t loads = op == CML_HIER_WRITE ? 0 : walked / SECTOR;
    /* A read stores one 4-byte sum per thread: a row (32 sectors) a block;
     * the sliced read's timed launch none (gpu-l2-cache's stores none). */
    const uint64_t sums = op == CML_HIER_READ && !p->chunk ? B * row : 0;
    const uint64_t stores = op == CML_HIER_READ ? sums / SECTOR : walked / SECTOR;
    const uint64_t foot = set * (op == CML_HIER_COPY ? 2 : 1) + sums;

    /* Bytes one block touches (its footprint) and one SM (its blocks',
     * dealt round-robin: ceil(B / SMs) a SM). */
    uint64_t per_block = set; /* the whole walk */
    if (p->parts && op != CML_HIER_READ)
        per_block = set / p->parts; /* its own part, again and again */
    else if (p->parts || p->stream) /* the sliced read's chunks and the partitioned */
        per_block = min64(set, p->per_block * row); /* walk move on: a row's worth a load */
    const uint64_t per_sm_blocks = (B + sms - 1) / sms, used = min64(B, sms);
    const uint64_t per_sm = min64(set, per_sm_blocks * per_block);

    /* L1: loads through ca or nc (a copy's loads are ca). */
    fig hit = make(0, 0, 0);
    const int l1 = op == CML_HIER_COPY || (op == CML_HIER_READ && path != CML_HIER_CG);
    if (l1) {
        const uint64_t miss_lo = set / SECTOR;                          /* each sector once */
        const uint64_t miss_hi = min64(loads, B * per_block / SECTOR);  /* once per block */
        if ((double)per_sm <= CML_HIER_L1_LOW * (double)caps->l1_bytes)
            hit = make(sub0(loads, used * per_sm / SECTOR), sub0(loads, miss_hi),
                       sub0(loads, miss_lo));
        else
            hit = make(0, 0, sub0(loads, miss_lo));
    }
    fig l2r = l2_reads(loads, hit);
    if (op == CML_HIER_READ && path == CML_HIER_CG) {
        /* A cg request meets one for the same sector still in flight (its
         * SM's in L1TEX, any SM's in the L2 Request Coalescer): at most
         * every repeat in the grid merges. */
        const uint64_t rows = distinct_rows(p);
        if (!rows)
            return CML_ENOMEM;
        l2r = make(loads, min64(loads, rows * row / SECTOR), loads);
    }
    const fig l2w = make(stores, stores, stores);

    /* DRAM reads: the set once where it fits L2 (cold; 0 when L2 is still
     * warm), every L2 read beyond it. Full sectors stored need no fetch. */
    fig dr = make(0, 0, 0);
    if (op != CML_HIER_WRITE) {
        const double l2 = (double)caps->l2_bytes;
        const uint64_t warm_lo = sub0(set, caps->l2_bytes);
        if ((double)foot <= CML_HIER_L2_LOW * l2) {
            dr = make(set, 0, set);
        } else {
            uint64_t lo = warm_lo;
            if ((double)foot > l2)
                lo = max64(lo, sub0((uint64_t)((double)(l2r.lo * SECTOR) *
                                               (1.0 - l2 / (double)foot)),
                                    caps->l2_bytes));
            dr = make((double)foot <= l2 ? set : l2r.v * SECTOR, lo, l2r.hi * SECTOR);
        }
    }
    const fig dw = dram_writes(stores * SECTOR, op == CML_HIER_READ ? sums : set, foot,
                               caps->l2_bytes);

    cml_levels *lv = &rec->levels;
    memset(lv, 0, sizeof *lv);
    store(lv, hit, l2r, l2w, dr, dw);
    lv->l1_miss_sectors = loads - hit.v;
    lv->l2_read_hit_sectors = sub0(l2r.v, dr.v / SECTOR);
    lv->l2_dirty_end_bytes = min64(op == CML_HIER_READ ? sums : set, caps->l2_bytes);
    lv->footprint_bytes = foot;
    lv->resident_blocks = (unsigned)per_sm_blocks;
    lv->l1_bytes = caps->l1_bytes;
    rec->has_levels = 1;
    return CML_OK;
}

/*
 * Pointers the warps visit in all: warp b walks `walk` positions of the
 * cycle of m from position b m / warps (as the experiment starts them):
 * the union of the windows, each cut at the next warp's start.
 */
uint64_t cml_hier_chase_visited(uint64_t m, uint32_t warps, uint64_t walk)
{
    uint64_t total = 0;
    for (uint64_t b = 0; b < warps; b++)
        total += min64(walk, (b + 1) * m / warps - b * m / warps);
    return total;
}

cml_status cml_hier_chase_levels(cml_record *rec, uint64_t ws, uint64_t hop, uint64_t walk,
                                 int path, int random, uint32_t warps, const cml_hier_caps *caps)
{
    if (!rec || !caps || !rec->has_model || hop == 0 || ws < 2 * hop || !warps || !walk)
        return CML_EINVAL;
    const cml_kernel_traffic *t = &rec->model[CML_RULES_MODERN];
    const uint64_t loads = t->cls[CML_CLASS_GLOBAL_LD].sectors;
    const uint64_t stores = t->cls[CML_CLASS_GLOBAL_ST].sectors;
    const uint64_t m = ws / hop, W = warps;
    /* Per warp min(m, walk) distinct pointers, in all the union of the
     * warps' windows; a sector holds 32 / hop of them (hop < 32), which
     * address order visits one after another and a random order scatters.
     * The cursor loads are a sector per four warps more. */
    const uint64_t per_warp = min64(m, walk), all = cml_hier_chase_visited(m, warps, walk);
    const uint64_t per_sector = hop >= SECTOR ? 1 : SECTOR / hop;
    const uint64_t all_sectors = (all + per_sector - 1) / per_sector;
    const uint64_t cursor_sectors = (W * 8 + SECTOR - 1) / SECTOR;
    /* Sector misses a warp makes on its first walk of its window: address
     * order one per sector, a random order one per pointer at most. */
    const uint64_t first_misses = random ? per_warp : (per_warp + per_sector - 1) / per_sector;

    fig hit = make(0, 0, 0);
    if (path != CML_HIER_CG) {
        /* A warp alone on its SM (one-warp blocks are spread one to an SM):
         * where the table fits L1, every load after a sector's first hits
         * (more where a random order's pointers share a sector, or warps
         * share an SM: up to all but each sector once in all). Beyond it,
         * address order still hits the rest of a sector it just missed;
         * a random order never under LRU, and under any policy no more
         * than walk x (l1 / hop) / m a warp, no more pointers staying
         * through a cycle of m than l1 / hop (the slot-time bound). */
        const uint64_t most = sub0(loads, all_sectors + cursor_sectors);
        const uint64_t fit = W * (walk - first_misses);
        if ((double)ws <= CML_HIER_L1_LOW * (double)caps->l1_bytes)
            hit = make(fit, fit, most);
        else if (!random)
            hit = make(W * (walk - (walk + per_sector - 1) / per_sector),
                       W * (walk - (walk + per_sector - 1) / per_sector), most);
        else
            hit = make(0, 0,
                       min64(most, W * (uint64_t)ceil((double)walk * (double)caps->l1_bytes /
                                                      (double)hop / (double)m)));
    }
    fig l2r = l2_reads(loads, hit);
    /* .cg: L1TEX may merge a load with an earlier request of its SM for the
     * same sector (docs/model.md §16.8, l1_merge), and which SM each
     * one-warp block lands on is the block scheduler's: at that extreme
     * every visited sector, and the cursors, reach L2 once in all. */
    if (path == CML_HIER_CG)
        l2r = make(l2r.v, min64(l2r.lo, all_sectors + cursor_sectors), l2r.hi);
    const fig l2w = make(stores, stores, stores);
    /* DRAM: the visited pointers' bytes once where the table fits L2 (0
     * when L2 is warm): address order the window's bytes (64 at most a
     * pointer), a random order a granule a pointer (the table's granules
     * at most). Beyond L2, a random order's every L2 read is a miss of a
     * granule; at least every distinct sector but what a warm L2 holds,
     * a sector each, in either order. */
    const uint64_t per_ptr = random ? GRANULE : min64(hop, GRANULE);
    const uint64_t visited = random ? min64(all, ws / GRANULE ? ws / GRANULE : 1) : all;
    const uint64_t cold = visited * per_ptr + cursor_sectors * SECTOR;
    const uint64_t lo = sub0(all_sectors * SECTOR, caps->l2_bytes);
    const uint64_t hi = max64(cold, l2r.hi * GRANULE);
    fig dr;
    if ((double)ws <= (double)caps->l2_bytes || !random)
        dr = make(cold, (double)ws <= CML_HIER_L2_LOW * (double)caps->l2_bytes ? 0 : lo, hi);
    else
        dr = make(l2r.v * GRANULE, lo, hi);
    const fig dw = make(0, 0, stores * SECTOR);

    cml_levels *lv = &rec->levels;
    memset(lv, 0, sizeof *lv);
    store(lv, hit, l2r, l2w, dr, dw);
    lv->l1_miss_sectors = loads - hit.v;
    lv->l2_read_hit_sectors = sub0(l2r.v, dr.v / SECTOR);
    lv->footprint_bytes = ws + W * 8 + stores * SECTOR;
    lv->resident_blocks = 1;
    lv->l1_bytes = caps->l1_bytes;
    rec->has_levels = 1;
    return CML_OK;
}
