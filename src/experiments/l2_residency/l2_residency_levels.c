/*
 * The l2-residency experiment's cache levels in closed form
 * (docs/experiments/l2-residency.md, "The cache levels"): L1 hit sectors,
 * L2 read and write sectors and DRAM bytes read and written of one launch,
 * each with the interval (lo, hi) that what the model cannot know spans.
 * The LRU cache simulator knows neither the access policy window nor the
 * eviction hints, and its sample of blocks sees none of the hot set's
 * reuse (a chunk is read again about H / 512 warps later), so the figures
 * come from the kernel's accesses and the experiment's own model of the
 * policies (cml_l2r_expectation).
 *
 * Per warp the kernel reads 512 bytes of x (never again), one 512-byte
 * chunk of the hot set at random, and writes 512 bytes of out. What is not
 * known, and what each bound takes:
 *  - L1: the carve-out the driver picks (the model's: the smallest that
 *    holds the blocks; at worst the largest shared one), and whether
 *    .cs lines are really evicted first;
 *  - L2: whether each line is held once or twice (two partitions, far reads
 *    copied into the near half: half the capacity at worst), whether the
 *    stored lines keep their place once written back, whether L2 honours
 *    evict_first, evict_last and streaming as orders or as hints, how much
 *    of the set-aside the persisting lines fill (half, held twice), and
 *    which marked lines outlast the flush before the counters' launch;
 *  - L2 reads: how many hot reads the L2 Request Coalescer merges with
 *    another SM's request still in flight (none, the point; at most all
 *    but each hot sector's first);
 *  - DRAM writes: the write-back horizon and the dirty maximum.
 */
#include <math.h>
#include <string.h>

#include "cumemlab/cache.h"
#include "experiments/l2_residency/l2_residency_body.h"

#define SECTOR 32.0
#define BLOCK_THREADS 256u

/* One figure: its point and interval, the point held inside. */
typedef struct fig {
    uint64_t v, lo, hi;
} fig;

static uint64_t to_u64(double x)
{
    return x <= 0 ? 0 : (uint64_t)llround(x);
}

static fig make(double v, double lo, double hi)
{
    fig f = {to_u64(v), to_u64(lo), to_u64(hi)};
    if (f.hi < f.lo)
        f.hi = f.lo;
    f.v = f.v < f.lo ? f.lo : f.v > f.hi ? f.hi : f.v;
    return f;
}

static double dmin(double a, double b)
{
    return a < b ? a : b;
}

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

/*
 * L1 hits of the hot reads (x is read once and never hits; L1::no_allocate
 * keeps the hot lines out: a point 0). Per SM the hot chunks arrive at
 * random beside k bytes per hot byte of lines that are never read again:
 * x and out (stores of whole sectors allocate in L1, docs/model.md §16),
 * k = 2, or none of them where .cs makes them leave first (ldcs), k = 0.
 * The point: LRU (Che) on the model's L1; hi: no policy holds more than
 * L1 / H of the hot set; lo: LRU on the smallest L1 the driver may leave
 * (the largest shared carve-out), the .cs hint not honoured.
 */
static fig l1_hits(const cml_cache_config *cfg, int policy, double hot, double hot_sectors)
{
    if (policy == CML_L2R_NO_ALLOCATE)
        return make(0, 0, 0);
    const double l1 = (double)cml_cache_l1_bytes(cfg, BLOCK_THREADS);
    const double l1_min = cfg->l1_bytes ? l1 : (double)(cfg->l1_total_bytes - cfg->smem_per_sm);
    const double k = policy == CML_L2R_LDCS ? 0.0 : 2.0;
    return make(hot_sectors * cml_l2r_lru_hit_k(l1, hot, k),
                hot_sectors * cml_l2r_lru_hit_k(l1_min, hot, 2.0),
                hot_sectors * dmin(1.0, l1 / hot));
}

/* The hot hit fraction in L2: point, lo, hi, and the hot bytes that may be
 * in L2 already when the counters' launch starts (at the point, at most). */
typedef struct hot_hits {
    double pt, lo, hi;
    double keep_pt, keep_hi;
} hot_hits;

static void l2_hot_hits(int policy, double C, double H, double X, double S, double W, double r,
                        int persisting, hot_hits *h)
{
    cml_l2r_expect e;
    cml_l2r_expectation(policy, C, H, X, S, W, r, persisting, &e);
    memset(h, 0, sizeof *h);
    h->pt = e.hot_hit;
    /* Plain lines: LRU with every line held twice (lo), the stores' lines
     * leaving L2 once written back, x's alone beside the hot set (hi). */
    const double plain_lo = cml_l2r_lru_hit_k(C / 2, H, 2.0), plain_hi = cml_l2r_lru_hit_k(C, H, 1.0);
    const double cap = dmin(1.0, C / H); /* no policy holds more than L2 */
    switch (policy) {
    case CML_L2R_WINDOW:
        if (!persisting) { /* every hot line streaming: none hit, or as plain ones */
            h->lo = 0;
            h->hi = plain_hi;
            break;
        }
        {
            /* P persisting bytes fill the set-aside (the point), or half of
             * it when held twice (lo); the rest of the hot set, missProp
             * streaming, hits nothing (point, lo) or as plain lines in the
             * rest of L2 (hi). The persisting lines outlast the flush. */
            const double w = r * dmin(W, H), P = dmin(w, S), P_lo = dmin(w, S / 2);
            h->lo = P_lo / H;
            h->hi = (P + (H - P) * cml_l2r_lru_hit_k(C - P, H - P, 1.0)) / H;
            h->keep_pt = h->keep_hi = P;
        }
        break;
    case CML_L2R_LDCS:
    case CML_L2R_EVICT_FIRST:
        /* The stream leaves first (the point: all of L2 for the hot set),
         * or the hint does nothing (plain lo). */
        h->lo = plain_lo;
        h->hi = cap;
        break;
    case CML_L2R_EVICT_LAST:
    case CML_L2R_EVICT_BOTH:
        /* As above; and evict_last lines may outlast the flush's normal
         * ones (the point: they do not). */
        h->lo = plain_lo;
        h->hi = cap;
        h->keep_hi = dmin(H, C);
        break;
    default: /* none, prefetch-128/256, no-allocate: plain */
        h->lo = plain_lo;
        h->hi = plain_hi;
        break;
    }
    h->lo = dmin(h->lo, h->pt);
    h->hi = dmax(h->hi, h->pt);
}

/* DRAM reads of a launch after the flush: x (X, never in L2), the hot reads
 * that miss in steady state ((1 - h) X), and the first touch of the lines
 * that would hit (h H) less what was in L2 already (keep). */
static double dram_read(double X, double H, double h, double keep)
{
    return X + (1.0 - h) * X + dmax(0.0, h * H - keep);
}

cml_status cml_l2r_levels(cml_record *rec, int policy, uint64_t l2, uint64_t hot, uint64_t stream,
                          uint64_t set_aside, uint64_t window, double ratio, int persisting)
{
    if (!rec || !rec->has_model || !l2 || !hot || !stream || !(ratio >= 0 && ratio <= 1) ||
        rec->cache.l1_total_bytes < rec->cache.smem_per_sm)
        return CML_EINVAL;
    const cml_kernel_traffic *t = &rec->model[CML_RULES_MODERN];
    const uint64_t loads = t->cls[CML_CLASS_GLOBAL_LD].sectors;
    const uint64_t stores = t->cls[CML_CLASS_GLOBAL_ST].sectors;
    const double C = (double)l2, H = (double)hot, X = (double)stream, S = (double)set_aside;
    const double W = (double)window, out = (double)stores * SECTOR;

    /* Each warp loads as many sectors of the hot set as of x. */
    const fig hit = l1_hits(&rec->cache, policy, H, (double)loads / 2);
    /* L2 reads: what missed L1. An L2::256B prefetch lets L2 fetch 256
     * bytes for each 128-byte line request; a 512-byte run holds its
     * 256-byte blocks already (the point), but counted per request it is
     * twice the sectors at most (hi). */
    const double l2r_v = (double)(loads - hit.v);
    /* At least: x's sectors and each hot sector once in all. Warps on
     * different SMs read the same hot chunk, and the L2 Request Coalescer
     * merges a read with any SM's request for its sector still in flight
     * (docs/model.md §16.8, l1_pooled): at that extreme every later read
     * of a hot sector merges. */
    const double l2r_lo =
        dmin((double)(loads - hit.hi), (double)loads / 2 + dmin(H / SECTOR, (double)loads / 2));
    const double l2r_hi = (double)(loads - hit.lo) * (policy == CML_L2R_PREFETCH_256 ? 2 : 1);
    const fig l2r = make(l2r_v, l2r_lo, l2r_hi);
    const fig l2w = make((double)stores, (double)stores, (double)stores);

    /* DRAM reads: the policy's hot hits, each end of each unknown, and no
     * more than L2 was asked for (the few hot reads L1 hits never reach it;
     * the runs are whole aligned 512 bytes: no granule fetches more). */
    hot_hits h;
    l2_hot_hits(policy, C, H, X, S, W, ratio, persisting, &h);
    const double hs[3] = {h.lo, h.pt, h.hi}, keeps[2] = {0.0, h.keep_hi};
    double dr_lo = INFINITY, dr_hi = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            const double d = dram_read(X, H, hs[i], keeps[j]);
            dr_lo = dmin(dr_lo, d);
            dr_hi = dmax(dr_hi, d);
        }
    const double most = l2r_hi * SECTOR;
    const double dr_v = dmin(dram_read(X, H, h.pt, h.keep_pt), l2r_v * SECTOR);
    const fig dr = make(dr_v, dmin(dr_lo, most), dmin(dr_hi, most));

    /* DRAM writes: out, less what is still dirty at the end: at the point
     * what was stored within the write-back horizon (the sectors brought
     * into L2 since: DRAM reads and out's own, in proportion), at most the
     * dirty maximum and the L2 the persisting lines leave; lo: all the L2
     * can hold left dirty (no horizon, no limit); hi: none (horizon 0). */
    const cml_cache_config *cfg = &rec->cache;
    double dirty = dmin(out, C - h.keep_pt);
    if (cfg->clean_age_bytes)
        dirty = dmin(dirty, (double)cfg->clean_age_bytes * out / (dr_v + out));
    if (cfg->dirty_max_bytes)
        dirty = dmin(dirty, (double)cfg->dirty_max_bytes);
    const fig dw = make(out - dirty, out - dmin(out, C), out);

    cml_levels *lv = &rec->levels;
    memset(lv, 0, sizeof *lv);
    lv->l1_hit_sectors = hit.v;
    lv->l1_miss_sectors = loads - hit.v;
    lv->l2_read_sectors = l2r.v;
    lv->l2_write_sectors = l2w.v;
    lv->dram_read_bytes = dr.v;
    lv->dram_write_bytes = dw.v;
    const uint64_t dr_sectors = dr.v / 32u;
    lv->l2_read_hit_sectors = l2r.v > dr_sectors ? l2r.v - dr_sectors : 0;
    lv->l2_dirty_end_bytes = stores * 32u - dw.v; /* dw.v <= out, its hi */
    lv->footprint_bytes = stream + hot + stores * 32u;
    lv->resident_blocks = cml_cache_resident_blocks(cfg, BLOCK_THREADS);
    lv->l1_bytes = cml_cache_l1_bytes(cfg, BLOCK_THREADS);
    lv->settled = 1;
    lv->lo = (cml_level_bounds){hit.lo, l2r.lo, l2w.lo, dr.lo, dw.lo};
    lv->hi = (cml_level_bounds){hit.hi, l2r.hi, l2w.hi, dr.hi, dw.hi};
    lv->bounded = 1;
    rec->has_levels = 1;
    return CML_OK;
}
