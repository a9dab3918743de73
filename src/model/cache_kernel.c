/*
 * Whole kernels through the cache levels: the point of cml_trace_levels
 * (cache.h) under one configuration; cache_bounds.c runs it under the
 * extremes that bound it.
 *
 * The schedule: block b runs on SM b mod sm_count (the block scheduler's
 * round robin over the first wave; afterwards a block starts where one
 * finished, which for blocks of equal length is the same SM again). An SM
 * holds `resident` blocks at once, and the blocks that run at once form a
 * group whose warps issue together: instruction 0 of every warp of the
 * group, then instruction 1, ... (a warp that has run out is skipped).
 *
 * A grid of up to CML_LEVELS_FULL_THREADS threads is simulated whole, group
 * by group (all SMs' blocks of one wave at a time). A larger one from two
 * samples, each scaled by the kernel's exact per-instruction totals:
 *   - the blocks of SM 0 (0, P, 2P, ... for P SMs), in waves of `resident`
 *     blocks: its L1 hit rates for global and local loads;
 *   - the grid's first blocks, on their own SMs, in rounds, extended until
 *     the last two rounds agree: the DRAM rates per sector once the caches
 *     have warmed up, the share of L2 insertions that are dirty, and the
 *     footprint per sector.
 * The dirty data L2 still holds at the end is then the dirty share of what
 * L2 holds (its capacity, or the clean-age horizon), capped by the dirty
 * limit and by what was written: docs/model.md, the cache levels.
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"
#include "model/trace_hook.h"

#include <stdlib.h>
#include <string.h>

/* Samples of a large grid, in warp instructions: SM 0's blocks up to
 * REP_INS (at least two waves); the first blocks in rounds of about
 * ROUND_INS, at least MIN_ROUNDS of them, more (up to WINDOW_INS) while the
 * DRAM rates still move. A grid is simulated whole when it has at most
 * CML_LEVELS_FULL_THREADS threads and FULL_INS instructions. */
#define REP_INS (UINT64_C(1) << 11)
/* SM 0's sample goes on past REP_INS, up to this many, until its L1 has
 * taken four times the lines it holds, so that the second half, whose
 * rate the rest of the grid gets, starts with L1 full twice over: before
 * L1 first gives a line up no replacement order has acted, and a line
 * that leaves L1 a capacity's worth of fills after it came (an
 * evict-first line, cache_sim.c l1_load) would be carried at the hit rate
 * of an L1 that never evicts. */
#define L1_TURN_INS (UINT64_C(1) << 14)
#define ROUND_INS (UINT64_C(1) << 9)
#define MIN_ROUNDS 6u
#define WINDOW_INS (UINT64_C(1) << 14)
#define FULL_INS (UINT64_C(1) << 16)
/* A grid of rows of blocks gets a window of four whole rows at least, up
 * to this many instructions. */
#define ROWS_INS (UINT64_C(1) << 16)
/* Instructions buffered before a group is fed to the simulator even if it
 * is not complete (a group of very long blocks). */
#define MAX_BUFFERED (UINT64_C(1) << 16)

/* The model library links nothing but libc: no libm for these. */
static double dmin(double a, double b)
{
    return a < b ? a : b;
}
static double dmax(double a, double b)
{
    return a > b ? a : b;
}
static double dabs(double a)
{
    return a < 0 ? -a : a;
}

/* ---- feeding a group's warps to the simulator, interleaved ---------------- */

typedef struct feeder {
    cml_cache_sim *sim;
    uint64_t first, stride;   /* the group: real blocks first + j * stride */
    unsigned sms;             /* SMs: block b runs on SM b mod sms ... */
    int sm0;                  /* ... or every block on SM 0 */
    unsigned warps_per_block;
    unsigned resident;        /* blocks an SM holds at once (local frames) */
    cml_cache_wave q;         /* the group's warps, buffered */
    uint64_t cur_block;       /* traced index of the block being buffered */
    unsigned cur_warp;
} feeder;

/* The warps of a wave, one instruction of each in turn (cache.h). */
cml_status cml_cache_sim_wave(cml_cache_sim *s, const cml_cache_wave_warp *w, size_t nw,
                              const cml_access *ins)
{
    uint32_t most = 0;
    for (size_t i = 0; i < nw; i++)
        most = w[i].count > most ? w[i].count : most;
    for (uint32_t k = 0; k < most; k++) {
        for (size_t i = 0; i < nw; i++) {
            if (k >= w[i].count)
                continue;
            cml_status rc = cml_cache_sim_access(s, w[i].sm, w[i].uid, &ins[w[i].start + k]);
            if (rc != CML_OK)
                return rc;
        }
    }
    return CML_OK;
}

uint64_t cml_cache_warp_slot(unsigned sms, unsigned resident, unsigned warps_per_block,
                             uint64_t block, unsigned warp)
{
    const uint64_t per_sm = (uint64_t)resident * warps_per_block;
    return (block % sms) * per_sm + (block / sms) % resident * warps_per_block + warp;
}

cml_status cml_cache_wave_begin(cml_cache_wave *q, unsigned sm, uint64_t uid)
{
    if (q->nw == q->wcap) {
        size_t cap = q->wcap ? q->wcap * 2u : 256u;
        cml_cache_wave_warp *w = realloc(q->w, cap * sizeof *w);
        if (!w)
            return CML_ENOMEM;
        q->w = w;
        q->wcap = cap;
    }
    cml_cache_wave_warp *w = &q->w[q->nw++];
    w->start = q->n;
    w->count = 0;
    w->sm = sm;
    w->uid = uid;
    return CML_OK;
}

cml_status cml_cache_wave_add(cml_cache_wave *q, const cml_access *a)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2u : 1024u;
        cml_access *ins = realloc(q->ins, cap * sizeof *ins);
        if (!ins)
            return CML_ENOMEM;
        q->ins = ins;
        q->cap = cap;
    }
    q->ins[q->n++] = *a;
    q->w[q->nw - 1u].count++;
    return CML_OK;
}

cml_status cml_cache_wave_flush(cml_cache_wave *q, cml_cache_sim *s)
{
    cml_status rc = cml_cache_sim_wave(s, q->w, q->nw, q->ins);
    q->n = 0;
    q->nw = 0;
    return rc;
}

void cml_cache_wave_free(cml_cache_wave *q)
{
    free(q->ins);
    free(q->w);
    memset(q, 0, sizeof *q);
}

static cml_status on_issue(void *user, uint64_t block, unsigned warp, unsigned site,
                           const cml_access *a)
{
    feeder *f = user;
    (void)site;
    if (f->q.nw == 0 || block != f->cur_block || warp != f->cur_warp) {
        /* A new warp. A group too large to buffer is fed in parts, at warp
         * boundaries, rather than held whole. */
        if (f->q.n >= MAX_BUFFERED) {
            cml_status rc = cml_cache_wave_flush(&f->q, f->sim);
            if (rc != CML_OK)
                return rc;
        }
        const uint64_t id = f->first + block * f->stride;
        cml_status rc = cml_cache_wave_begin(
            &f->q, f->sm0 ? 0u : (unsigned)(id % f->sms),
            cml_cache_warp_slot(f->sms, f->resident, f->warps_per_block, id, warp));
        if (rc != CML_OK)
            return rc;
        f->cur_block = block;
        f->cur_warp = warp;
    }
    return cml_cache_wave_add(&f->q, a);
}

/* Run blocks first, first + stride, ... (count of them) through f->sim as
 * one group, each on SM id mod P, or all on SM 0. */
static cml_status run_group(feeder *f, cml_thread_fn fn, const void *args, cml_dim3 grid,
                            cml_dim3 block, uint64_t first, uint64_t stride, uint64_t count,
                            int sm0)
{
    cml_trace_hook hook = {f, on_issue};
    f->first = first;
    f->stride = stride;
    f->sm0 = sm0;
    f->q.nw = 0;
    f->q.n = 0;
    cml_status rc = cml_trace_blocks_hooked(grid, block, first, stride, count, fn, args, &hook);
    if (rc == CML_OK)
        rc = cml_cache_wave_flush(&f->q, f->sim);
    return rc;
}

/* ---- the pieces of a grid ---------------------------------------------------- */

typedef struct kernel {
    const cml_cache_config *cfg;
    cml_thread_fn fn;
    const void *args;
    cml_dim3 grid, block;
    uint64_t nblocks, threads;
    uint64_t ins_per_block;  /* warp instructions of a block (from the exact totals) */
    unsigned resident, sms;
    feeder f;
    uint64_t partial_end;    /* bytes of partial sectors still dirty at the end */
    const cml_kernel_span *span; /* what the grid can touch at most; NULL: unknown */
} kernel;

/*
 * What one call leaves for the next on the same thread: its simulator and
 * its feeder's buffers. A sweep models hundreds of grids, each through two
 * fresh simulators of up to tens of megabytes; allocating them anew had the
 * system fault in and zero every page, a fifth of the time (a reset keeps
 * the memory: cml_cache_sim_reset). The memory stays held after the last
 * call: at most what the largest grid so far needed.
 */
static _Thread_local struct {
    cml_cache_sim *sim;
    cml_cache_wave q;
} spare;

/* A fresh simulator in k->f.sim: the one it has, or the spare, reset. */
static cml_status fresh_sim(kernel *k)
{
    if (!k->f.sim) {
        k->f.sim = spare.sim;
        spare.sim = NULL;
    }
    if (k->f.sim) {
        cml_status rc = cml_cache_sim_reset(k->f.sim, k->cfg, k->threads);
        if (rc == CML_OK)
            return rc;
        cml_cache_sim_free(k->f.sim);
        k->f.sim = NULL;
    }
    return cml_cache_sim_new(k->cfg, k->threads, &k->f.sim);
}

/* Consecutive blocks [first, first + count) as one group, each on SM id
 * mod P. A group may be longer than a wave of every SM (the sampled window
 * runs whole rows of a 2-D grid, grid.x blocks long). */
static cml_status run_consecutive(kernel *k, uint64_t first, uint64_t count)
{
    return run_group(&k->f, k->fn, k->args, k->grid, k->block, first, 1u, count, 0);
}

/* Every block, a wave of every SM at a time. */
static cml_status run_full(kernel *k, cml_levels *out)
{
    cml_status rc = fresh_sim(k);
    const uint64_t group = (uint64_t)k->sms * k->resident;
    for (uint64_t b = 0; rc == CML_OK && b < k->nblocks; b += group)
        rc = run_consecutive(k, b, k->nblocks - b < group ? k->nblocks - b : group);
    if (rc != CML_OK)
        return rc;
    cml_cache_sim_levels(k->f.sim, out);
    cml_cache_sim_stats st;
    cml_cache_sim_stats_get(k->f.sim, &st);
    k->partial_end = st.partial_now * CML_SECTOR_BYTES;
    out->simulated_blocks = k->nblocks;
    out->sampled = 0;
    out->settled = 1;
    return CML_OK;
}

/* Hit sectors of all SMs from SM 0's sample: the hits of its sampled
 * blocks, then its later blocks at the rate of the sample's second half,
 * times the SMs (each SM warms its own L1). */
static uint64_t scale_hits(uint64_t total, uint64_t sms, uint64_t fed, uint64_t hits,
                           uint64_t fed_half, uint64_t hits_half)
{
    if (fed == 0 || total == 0)
        return 0;
    const double per_sm = (double)total / (double)sms;
    double h;
    if (per_sm <= (double)fed) {
        h = (double)hits * per_sm / (double)fed;
    } else {
        double rate = fed > fed_half ? (double)(hits - hits_half) / (double)(fed - fed_half)
                                     : (double)hits / (double)fed;
        h = (double)hits + (per_sm - (double)fed) * rate;
    }
    double all = h * (double)sms;
    if (all > (double)total)
        all = (double)total;
    return all <= 0 ? 0 : (uint64_t)(all + 0.5);
}

/* The global and local load sectors fed to SM 0 so far, and their hits. */
typedef struct l1_count {
    uint64_t gfed, ghit, gmerged, lfed, lhit;
} l1_count;

static l1_count l1_counts(const cml_cache_sim *sim)
{
    cml_levels lv;
    cml_cache_sim_levels(sim, &lv);
    l1_count c;
    cml_cache_sim_stats st;
    cml_cache_sim_stats_get(sim, &st);
    /* A bypassing load merged in L1 (the l1_merge extreme) is neither. */
    c.gmerged = st.merged_loads;
    c.gfed = lv.l1_hit_sectors + lv.l1_miss_sectors + c.gmerged;
    c.ghit = lv.l1_hit_sectors;
    /* Local loads: those that hit, and those L2 read beyond the global misses. */
    c.lhit = lv.local_hit_sectors;
    c.lfed = lv.local_hit_sectors + (lv.l2_read_sectors - lv.l1_miss_sectors);
    return c;
}

/* SM 0's blocks (0, P, 2P, ...) in waves: the L1 hits of every SM (the
 * first blocks where every SM is one). */
static cml_status sample_sm0(kernel *k, const cml_kernel_traffic *exact, cml_levels *out,
                             uint64_t *blocks)
{
    cml_status rc = fresh_sim(k);
    if (rc != CML_OK)
        return rc;
    cml_cache_sim_skip_footprint(k->f.sim);
    /* Every SM as one (l1_pooled, cache.h): the grid's first blocks, each
     * beside its neighbours, are the sample of the one L1. */
    const uint64_t sms = k->cfg->l1_pooled ? 1u : k->sms;
    const uint64_t per_sm = (k->nblocks + sms - 1u) / sms;
    uint64_t cap = REP_INS / k->ins_per_block;
    if (cap < 2u * k->resident)
        cap = 2u * k->resident; /* two waves at least: the second meets the first's lines */
    uint64_t most = L1_TURN_INS / k->ins_per_block;
    most = most > cap ? most : cap;
    most = most < per_sm ? most : per_sm;
    /* The counts before each wave: the rate is that of the sample's second
     * half, however long the sample turns out to be. */
    const uint64_t waves = (most + k->resident - 1u) / k->resident;
    l1_count *before = calloc(waves + 1u, sizeof *before);
    if (!before)
        return CML_ENOMEM;
    uint64_t m = 0;
    while (rc == CML_OK && m < most) {
        if (m >= cap) {
            cml_cache_sim_stats st;
            cml_cache_sim_stats_get(k->f.sim, &st);
            if (st.l1_fills >= 4u * st.l1_lines)
                break;
        }
        before[m / k->resident] = l1_counts(k->f.sim);
        uint64_t count = most - m < k->resident ? most - m : k->resident;
        rc = run_group(&k->f, k->fn, k->args, k->grid, k->block, m * sms, sms, count, 1);
        m += count;
    }
    l1_count half = {0, 0, 0, 0, 0};
    for (uint64_t j = k->resident; j < m; j += k->resident)
        if (j >= m / 2 && half.gfed + half.lfed == 0)
            half = before[j / k->resident];
    free(before);
    if (rc != CML_OK)
        return rc;
    const l1_count all = l1_counts(k->f.sim);
    /* The copy engine's sectors bypass L1 as .cg ones do (fed, never hit). */
    const uint64_t gld = exact->cls[CML_CLASS_GLOBAL_LD].sectors + exact->bulk.sectors;
    const uint64_t lld = exact->cls[CML_CLASS_LOCAL_LD].sectors;
    out->l1_hit_sectors = scale_hits(gld, sms, all.gfed, all.ghit, half.gfed, half.ghit);
    const uint64_t missed = gld - out->l1_hit_sectors;
    const uint64_t merged = scale_hits(gld, sms, all.gfed, all.gmerged, half.gfed, half.gmerged);
    out->l1_miss_sectors = missed - (merged < missed ? merged : missed);
    out->local_hit_sectors = scale_hits(lld, sms, all.lfed, all.lhit, half.lfed, half.lhit);
    out->l2_read_sectors = out->l1_miss_sectors + (lld - out->local_hit_sectors);
    *blocks = m;
    return CML_OK;
}

/* What the DRAM estimate reads after each round of the window. */
typedef struct snap {
    cml_cache_sim_stats st;
    cml_levels lv;
} snap;

static void take(const kernel *k, snap *s)
{
    cml_cache_sim_stats_get(k->f.sim, &s->st);
    cml_cache_sim_levels(k->f.sim, &s->lv);
}

static double ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

/* DRAM bytes read per load sector from `a` to `b`. */
static double read_rate(const snap *a, const snap *b)
{
    return ratio((double)(b->st.miss_read_bytes - a->st.miss_read_bytes),
                 (double)(b->st.load_sectors - a->st.load_sectors));
}

static double footprint_rate(const snap *a, const snap *b)
{
    return ratio((double)(b->lv.footprint_bytes - a->lv.footprint_bytes),
                 (double)(b->st.load_sectors + b->st.store_sectors - a->st.load_sectors -
                          a->st.store_sectors));
}

/* Whether two rates agree within 2% (or both are negligible). */
static int settled(double x, double y)
{
    double m = dabs(x) > dabs(y) ? dabs(x) : dabs(y);
    return m < 1e-9 || dabs(x - y) <= 0.02 * m;
}

static uint64_t round_u64(double x)
{
    return x <= 0 ? 0 : (uint64_t)(x + 0.5);
}

static cml_status sampled(kernel *k, const cml_kernel_traffic *exact, cml_levels *out)
{
    memset(out, 0, sizeof *out);
    uint64_t rep_blocks = 0;
    cml_status rc = sample_sm0(k, exact, out, &rep_blocks);
    if (rc != CML_OK)
        return rc;

    /* The window: the first blocks, round after round. */
    rc = fresh_sim(k);
    if (rc != CML_OK)
        return rc;
    uint64_t round = ROUND_INS / k->ins_per_block;
    if (round < 1)
        round = 1;
    /* A grid of rows of blocks: rounds of whole rows where they fit, and
     * halves of whole pairs of rows, so that what a block shares with the
     * blocks above it (a row apart in launch order, e.g. the other sector
     * of a 64-byte DRAM granule) comes into the rates in proportion. */
    const int rows = k->grid.y * (uint64_t)k->grid.z > 1u;
    uint64_t budget = WINDOW_INS;
    if (rows && (uint64_t)k->grid.x * k->ins_per_block * 4u <= ROWS_INS) {
        round = k->grid.x;
        if (budget < round * k->ins_per_block * 4u)
            budget = round * k->ins_per_block * 4u;
    } else if (round > (uint64_t)k->sms * k->resident) {
        round = (uint64_t)k->sms * k->resident;
    }
    const int whole_rows = rows && round == k->grid.x;
    uint64_t max_rounds = budget / (round * k->ins_per_block);
    if (max_rounds < MIN_ROUNDS)
        max_rounds = MIN_ROUNDS;
    /* Rows come in pairs (a 64-byte granule's two sectors a row apart):
     * the rates are taken over whole pairs, so the second half of the
     * window, snaps[r/2] to snaps[r], starts on a pair (r a multiple of 4:
     * with 6 rows the half of rows 3-5 holds two rows whose granule row 2
     * or 4 brought in and one that brought its own, and a transpose that
     * reads each granule once would be carried at 2/3 of its reads). */
    if (whole_rows)
        max_rounds = (max_rounds + 3u) / 4u * 4u;
    snap *snaps = calloc(max_rounds + 1u, sizeof *snaps);
    if (!snaps)
        return CML_ENOMEM;
    take(k, &snaps[0]);
    uint64_t done = 0, r = 0;
    int settled_rates = 0;
    while (rc == CML_OK && done < k->nblocks && r < max_rounds) {
        uint64_t count = k->nblocks - done < round ? k->nblocks - done : round;
        rc = run_consecutive(k, done, count);
        done += count;
        take(k, &snaps[++r]);
        /* Settled: the second half of the window runs at the rates of the
         * quarter before it (a cache still warming up does not). */
        if (whole_rows ? r % 4u == 0 : r >= MIN_ROUNDS) {
            const snap *a = &snaps[whole_rows ? r / 4u / 2u * 2u : r / 4u], *b = &snaps[r / 2],
                       *c = &snaps[r];
            if (settled(read_rate(a, b), read_rate(b, c)) &&
                settled(footprint_rate(a, b), footprint_rate(b, c))) {
                settled_rates = 1;
                break;
            }
        }
    }
    if (rc != CML_OK) {
        free(snaps);
        return rc;
    }
    const snap *w = &snaps[r], *h = &snaps[r / 2];
    const double ld_total = (double)(exact->cls[CML_CLASS_GLOBAL_LD].sectors +
                                     exact->cls[CML_CLASS_LOCAL_LD].sectors +
                                     exact->bulk.sectors);
    const double st_total = (double)(exact->cls[CML_CLASS_GLOBAL_ST].sectors +
                                     exact->cls[CML_CLASS_LOCAL_ST].sectors);
    const double ld_rest = dmax(0.0, ld_total - (double)w->st.load_sectors);
    const double st_rest = dmax(0.0, st_total - (double)w->st.store_sectors);
    const double dst = (double)(w->st.store_sectors - h->st.store_sectors);

    /* Stores merged in L1 (the l1_merge extreme): the window's, then the
     * rest at the rate of its second half, as the other rates (a kernel
     * whose blocks all store one set merges more the longer it runs). */
    out->l2_write_sectors =
        w->st.merged_stores
            ? round_u64(st_total - (double)w->st.merged_stores -
                        st_rest * ratio((double)(w->st.merged_stores - h->st.merged_stores), dst))
            : (uint64_t)st_total;
    out->l2_read_hit_sectors =
        round_u64(ratio((double)(w->lv.l2_read_hit_sectors - h->lv.l2_read_hit_sectors),
                        (double)(w->lv.l2_read_sectors - h->lv.l2_read_sectors)) *
                  (double)out->l2_read_sectors);

    /* DRAM: the window, and the rest at the window's settled rates. Where
     * all the grid can touch fits in L2, nothing is evicted: a read misses
     * only on a sector's first touch, at most the loads' span (a window of
     * cold misses, e.g. a gather over a whole array, would carry its miss
     * rate to reads that hit). */
    /* Local frames come back with every block that takes a finished one's
     * warp slot (cml_cache_warp_slot): the grid's are its slots' frames. */
    const uint64_t wpb = k->f.warps_per_block;
    const uint64_t local = cml_kernel_span_local(k->span, k->nblocks * wpb,
                                                 (uint64_t)k->sms * k->resident * wpb);
    const int fits = cml_kernel_span_fits(k->span, k->cfg, local);
    double miss_read = (double)w->st.miss_read_bytes + ld_rest * read_rate(h, w);
    double episodes = (double)w->st.episodes +
                      st_rest * ratio((double)(w->st.episodes - h->st.episodes), dst);
    /* Stores the window's second half never met (blocks that store their
     * result at their end, past the window: a reduction's sums) have no
     * rate to carry: each of their sectors is taken as dirtied anew, and
     * as the kernel's last stores, still held dirty at the end up to the
     * horizon (written back after the kernel, not while it runs). */
    const double unseen = dst > 0 ? 0.0 : st_rest;
    episodes += unseen;
    if (fits)
        miss_read = dmin(miss_read,
                         (double)(k->span->load_bytes + (k->span->local_loads ? local : 0)));
    /* Dirty sectors by kind: those still partial (or merged partial) and
     * the rest, whole. */
    const double pw = (double)(w->st.partial_now + w->st.merges);
    const double ph = (double)(h->st.partial_now + h->st.merges);
    double partials = pw + st_rest * ratio(pw - ph, dst);
    const double dclock = (double)(w->st.clock - h->st.clock);
    const double share_part = ratio(pw - ph, dclock);
    const double share_whole = ratio((double)(w->st.episodes - h->st.episodes) - (pw - ph), dclock);
    /* What L2 still holds dirty at the end: the dirty share of the last
     * horizon's insertions (whole and partial sectors each on its own),
     * at most the dirty limit and what was written. */
    const double l2_sectors = (double)(k->cfg->l2_bytes / CML_SECTOR_BYTES);
    const double age_whole = (double)(k->cfg->clean_age_bytes / CML_SECTOR_BYTES);
    const double age_part = (double)((k->cfg->partial_age_bytes ? k->cfg->partial_age_bytes
                                                                : k->cfg->clean_age_bytes) /
                                     CML_SECTOR_BYTES);
    const double h_whole = age_whole > 0 && age_whole < l2_sectors ? age_whole : l2_sectors;
    const double h_part = age_part > 0 && age_part < l2_sectors ? age_part : l2_sectors;
    double res_whole = share_whole * h_whole + dmin(unseen, h_whole);
    double res_part = dmin(partials, share_part * h_part);
    if (fits) {
        /* L2 takes in at most the span (nothing is evicted, so nothing comes
         * back): a kind whose horizon is longer never ages, and all of it
         * written is still dirty at the end (the window's dirty share of
         * its insertions, cold misses mostly, would say less). */
        const double taken = (double)((k->span->all_bytes + local) / CML_SECTOR_BYTES);
        const double dmax_s = (double)(k->cfg->dirty_max_bytes / CML_SECTOR_BYTES);
        const double stored =
            (double)((k->span->store_bytes + (k->span->local_stores ? local : 0)) /
                     CML_SECTOR_BYTES);
        if (taken <= h_whole && taken <= h_part && (dmax_s == 0 || stored <= dmax_s)) {
            episodes = dmin(episodes, stored); /* each sector dirtied once */
            partials = dmin(partials, episodes);
        }
        if (taken <= h_whole)
            res_whole = dmax(res_whole, episodes - partials);
        if (taken <= h_part)
            res_part = dmin(partials, episodes);
    }
    /* No more whole sectors stay dirty than were dirtied whole: a horizon
     * longer than the grid's insertions (an L2 that never ages, the
     * optimistic run's) would otherwise count whole sectors the kernel
     * never wrote, and the residue (at most the episodes), shared between
     * the kinds below, would leave the partial ones almost none: every
     * partial sector merged with a read at the end (pitch2d's byte rows,
     * one a row, 2.5% of the reads). */
    res_whole = dmin(res_whole, dmax(0.0, episodes - partials));
    double residue = dmin(episodes, res_whole + res_part);
    if (k->cfg->dirty_max_bytes)
        residue = dmin(residue, (double)(k->cfg->dirty_max_bytes / CML_SECTOR_BYTES));
    const double uncapped = res_whole + res_part;
    const double kept_part = uncapped > 0 ? res_part * dmin(1.0, residue / uncapped) : 0.0;
    out->dram_read_bytes =
        round_u64(miss_read + CML_SECTOR_BYTES * dmax(0.0, partials - kept_part));
    out->dram_write_bytes = round_u64(CML_SECTOR_BYTES * (episodes - residue));
    out->l2_dirty_end_bytes = round_u64(CML_SECTOR_BYTES * residue);
    k->partial_end = round_u64(CML_SECTOR_BYTES * kept_part);
    out->footprint_bytes =
        round_u64((double)w->lv.footprint_bytes + (ld_rest + st_rest) * footprint_rate(h, w));
    if (k->span && k->span->known && out->footprint_bytes > k->span->all_bytes + local)
        out->footprint_bytes = k->span->all_bytes + local;
    out->resident_blocks = w->lv.resident_blocks;
    out->l1_bytes = w->lv.l1_bytes;
    out->simulated_blocks = rep_blocks + done;
    out->sampled = 1;
    out->settled = settled_rates || done == k->nblocks;
    free(snaps);
    return CML_OK;
}

static int valid_grid(cml_dim3 g, cml_dim3 b)
{
    return g.x && g.y && g.z && b.x && b.y && b.z && g.x <= 0x7FFFFFFFu && g.y <= 65535u &&
           g.z <= 65535u && b.x <= 1024u && b.y <= 1024u && b.z <= 64u &&
           (uint64_t)b.x * b.y * b.z <= 1024u;
}

cml_status cml_trace_levels_run(const cml_cache_config *c, cml_dim3 grid, cml_dim3 block,
                                cml_thread_fn fn, const void *args,
                                const cml_kernel_traffic *exact, cml_levels *out,
                                uint64_t *partial_end_bytes)
{
    if (!fn || !out || !valid_grid(grid, block))
        return CML_EINVAL;
    cml_kernel_span span;
    cml_status rc = cml_kernel_span_get(grid, block, fn, args, exact, CML_SPAN_INS, &span);
    if (rc != CML_OK)
        return rc;
    return cml_trace_levels_run_span(c, grid, block, fn, args, exact, &span, out,
                                     partial_end_bytes);
}

int cml_levels_whole(cml_dim3 grid, cml_dim3 block, const cml_kernel_traffic *exact)
{
    uint64_t ins = 0;
    for (int cls = 0; exact && cls < CML_CLASS_COUNT; cls++)
        ins += exact->cls[cls].instructions;
    if (exact)
        ins += exact->bulk.instructions;
    const uint64_t threads = (uint64_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    return threads <= CML_LEVELS_FULL_THREADS && (!exact || ins <= FULL_INS);
}

cml_status cml_trace_levels_run_span(const cml_cache_config *c, cml_dim3 grid, cml_dim3 block,
                                     cml_thread_fn fn, const void *args,
                                     const cml_kernel_traffic *exact,
                                     const cml_kernel_span *span, cml_levels *out,
                                     uint64_t *partial_end_bytes)
{
    if (!fn || !out || cml_cache_config_check(c) != CML_OK || !valid_grid(grid, block))
        return CML_EINVAL;
    kernel k;
    memset(&k, 0, sizeof k);
    k.cfg = c;
    k.fn = fn;
    k.args = args;
    k.span = span;
    k.grid = grid;
    k.block = block;
    k.nblocks = (uint64_t)grid.x * grid.y * grid.z;
    k.threads = (uint64_t)block.x * block.y * block.z;
    k.resident = cml_cache_resident_blocks(c, k.threads);
    k.sms = c->sm_count;
    k.f.warps_per_block = (unsigned)((k.threads + CML_WARP_SIZE - 1u) / CML_WARP_SIZE);
    uint64_t ins = 0;
    for (int cls = 0; exact && cls < CML_CLASS_COUNT; cls++)
        ins += exact->cls[cls].instructions;
    if (exact)
        ins += exact->bulk.instructions;
    k.ins_per_block = ins / k.nblocks ? ins / k.nblocks : 1u;
    const int whole = cml_levels_whole(grid, block, exact);
    if (!whole && !exact)
        return CML_EINVAL;
    k.f.sms = k.sms;
    k.f.resident = k.resident;
    k.f.q = spare.q;
    memset(&spare.q, 0, sizeof spare.q);
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    cml_status rc = whole ? run_full(&k, &lv) : sampled(&k, exact, &lv);
    /* Kept for the next call (the spare was taken: nothing to free). */
    cml_cache_sim_free(spare.sim);
    spare.sim = k.f.sim;
    spare.q = k.f.q;
    if (rc == CML_OK) {
        *out = lv;
        *partial_end_bytes = k.partial_end;
    }
    return rc;
}
