/*
 * The l2-residency experiment's cache levels in closed form
 * (l2_residency_levels.c; docs/experiments/l2-residency.md "The cache
 * levels"): value, lo and hi of every figure against numbers derived by
 * hand for an H100's geometry, policy by policy, then the records of the
 * experiment itself (every one bounded, the same figures as the direct
 * call).
 *
 * The geometry (no device: an H100 assumed): C = 50 MiB of L2, S = 37.5
 * MiB set-aside, H = 46.875 MiB hot set (49152000 bytes, 96000 chunks),
 * X = 800 MiB streamed; 1638400 warps: loads 2 x 16 = 32 sectors a warp,
 * 52428800 in all, of which 26214400 of the hot set; stores 26214400
 * sectors (out = 838860800 bytes). The cache configuration is the H100's
 * (cml_cache_config_h100): 256 threads a block, 8 blocks an SM, each
 * with the 1 KiB the system keeps: the 8 KiB carve-out, L1 = 248 KiB =
 * 253952 bytes; the largest shared carve-out leaves 256 - 228 = 28 KiB =
 * 28672; write-back horizon 35 MiB, dirty maximum 24 MiB.
 *
 * The LRU fractions (Che, cml_l2r_lru_hit_k; each solved by bisection
 * to 1e-12 and checked here against its defining equation):
 *   L1, k = 2, 248 KiB: 0.00172123354 -> 26214400 x = 45121 sectors
 *   L1, k = 2, 28 KiB:  0.00019443184 -> 5097 sectors
 *   L1 hi: 253952 / 49152000 = 0.0051666667 -> 135441 sectors (and ldcs's
 *     point: with k = 0 the fraction is L1 / H exactly)
 *   L2 plain: lo C/2, k = 2: 0.16726168; point C, k = 2: 0.31372192;
 *     hi C, k = 1: 0.45665530.
 * DRAM read(h, keep) = X + (1 - h) X + max(0, h H - keep); DRAM write =
 * out - min(out, 35 MiB x out / (DRAM read + out), 24 MiB).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cumemlab/cache.h"
#include "experiments/l2_residency/l2_residency_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "test_util.h"
#include "levels_test_util.h"

#define MIB (1024ull * 1024ull)

static const uint64_t C = 50 * MIB, S = 37 * MIB + MIB / 2, H = 49152000, X = 800 * MIB;
static const uint64_t LOADS = 52428800, STORES = 26214400;

/* Every figure within 1: the figures are rounded from doubles. */
#define check_levels(what, rec, ...) check_levels_slack(what, rec, 1, __VA_ARGS__)

/* A record with the kernel's traffic and an H100's caches. */
static void setup(cml_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->has_model = 1;
    cml_kernel_traffic *t = &rec->model[CML_RULES_MODERN];
    t->cls[CML_CLASS_GLOBAL_LD].sectors = LOADS;
    t->cls[CML_CLASS_GLOBAL_ST].sectors = STORES;
    cml_cache_config_h100(&rec->cache);
}

static cml_record rec;

static void levels(int policy, double ratio, int persisting)
{
    setup(&rec);
    CHECK_EQ_I64(cml_l2r_levels(&rec, policy, C, H, X, S, H, ratio, persisting), CML_OK);
}

/* The fractions in the header, from the equations they solve. */
static void test_che(void)
{
    const double h = cml_l2r_lru_hit_k(253952.0, (double)H, 2.0);
    const double u = -log(1.0 - h) * (double)H; /* 2u + H h = L1 */
    CHECK_NEAR(2.0 * u + (double)H * h, 253952.0, 1e-3);
    CHECK_NEAR(h, 0.00172123354, 1e-10);
    CHECK_NEAR(cml_l2r_lru_hit_k(28672.0, (double)H, 2.0), 0.00019443184, 1e-10);
    CHECK_NEAR(cml_l2r_lru_hit_k((double)C / 2, (double)H, 2.0), 0.16726168, 1e-8);
    CHECK_NEAR(cml_l2r_lru_hit_k((double)C, (double)H, 2.0), 0.31372192, 1e-8);
    CHECK_NEAR(cml_l2r_lru_hit_k((double)C, (double)H, 1.0), 0.45665530, 1e-8);
    CHECK(cml_l2r_lru_hit_k((double)C, (double)H, 2.0) == cml_l2r_lru_hit((double)C, (double)H));
    CHECK_NEAR(cml_l2r_lru_hit_k(253952.0, (double)H, 0.0), 253952.0 / (double)H, 1e-15);
    CHECK(cml_l2r_lru_hit_k(2.0 * (double)H, (double)H, 0.0) == 1.0);
    CHECK(cml_l2r_lru_hit_k(0.0, (double)H, 2.0) == 0.0);
}

/* The L1 and L2 figures every ca policy shares: hits 45121 [5097, 135441];
 * L2 reads = loads - hits: 52383679, at most 52423703; at least x's
 * 26214400 sectors and each of the hot set's 1536000 once (every later
 * hot read merged with another SM's in the L2 Request Coalescer):
 * 27750400, every policy. L2 writes the stores, a point. */
#define L2R_LO 27750400
static const want3 HIT = {45121, 5097, 135441}, L2R = {52383679, L2R_LO, 52423703},
                   L2W = {26214400, 26214400, 26214400};

/*
 * none: h = 0.31372192 [0.16726168, 0.45665530], nothing outlasts the
 * flush (keep 0): DRAM read = 800 MiB + 0.68627808 x 800 MiB + 0.31372192 x
 * 46.875 MiB = 1429972637 bytes (1363.73 MiB, cml_l2r_expectation's cold
 * figure); hi at h lo: 1545633580 (1474.03 MiB); lo at h hi: 1317096887
 * (1256.08 MiB). DRAM write: dirty = 35 MiB x 800 / (1363.73 + 800) = 12.94
 * MiB (< 24): 825291569 bytes; lo 800 - 50 MiB = 786432000; hi 838860800.
 */
static void test_none(void)
{
    levels(CML_L2R_NONE, 0, 0);
    check_levels("none", &rec, HIT, L2R, L2W, (want3){1429972637, 1317096887, 1545633580},
                 (want3){825291569, 786432000, 838860800});
    CHECK_EQ_U64(rec.levels.l2_dirty_end_bytes, 838860800 - 825291569);
    CHECK_EQ_U64(rec.levels.l1_bytes, 253952);
}

/*
 * The window, hitProp persisting, at hitRatio 0: nothing persisting,
 * every hot line missProp streaming: h = 0, hi as plain lines (0.45665530).
 * The point 2X = 1600 MiB is more than L2 is asked for: the 45121 sectors
 * L1 hits never reach it: 52383679 x 32 = 1676277728 (1598.62 MiB); hi
 * 52423703 x 32 = 1677558496 (every load but L1's fewest hits); lo
 * 1317096887 as none's. Dirty: 35 x 800 / (1598.62 + 800) = 11.673 MiB:
 * DRAM write 826620390.
 */
static void test_window_0(void)
{
    levels(CML_L2R_WINDOW, 0.0, 1);
    check_levels("window r=0", &rec, HIT, L2R, L2W, (want3){1676277728, 1317096887, 1677558496},
                 (want3){826620390, 786432000, 838860800});
}

/*
 * hitRatio 1: P = min(46.875, 37.5) = 37.5 MiB persisting, h = 0.8, and
 * they outlast the flush (keep P): DRAM read = 800 + 0.2 x 800 = 960 MiB
 * (1006632960, the steady state). lo: h hi = (37.5 + 9.375 x 0.54527372)
 * / 46.875 = 0.90905474 (the rest plain in the 12.5 MiB left, k = 1) with
 * P kept: 800 + 0.0909453 x 800 + (0.90905474 x 46.875 - 37.5) = 877.87
 * MiB = 920511469; hi: the set-aside half used, h = 18.75 / 46.875 = 0.4,
 * none kept: 800 + 480 + 18.75 = 1298.75 MiB = 1361838080. Dirty: min(800,
 * 50 - 37.5, 35 x 800 / 1760, 24) = 12.5 MiB (the L2 the persisting lines
 * leave): DRAM write 787.5 MiB = 825753600.
 */
static void test_window_100(void)
{
    levels(CML_L2R_WINDOW, 1.0, 1);
    check_levels("window r=100", &rec, HIT, L2R, L2W, (want3){1006632960, 920511469, 1361838080},
                 (want3){825753600, 786432000, 838860800});
    CHECK_NEAR(cml_l2r_lru_hit_k(12.5 * MIB, 9.375 * MIB, 1.0), 0.54527372, 1e-8);
}

/*
 * evict-first: the stream leaves first: h = min(1, 50 / 46.875) = 1, the
 * hot set read once after the flush: 846.875 MiB = 888012800 (lo too: no
 * policy holds more); hi: the hint does nothing, plain lo: 1545633580.
 * Dirty 35 x 800 / 1646.875 = 17.002 MiB: DRAM write 821033018.
 * ldcs: the same in L2; its x and out are .cs, evict-first in L1 too
 * (k = 0): L1 hits at their hi, 135441; L2 reads 52293359 (at least
 * 27750400, as every policy).
 */
static void test_evict_first(void)
{
    const want3 dr = {888012800, 888012800, 1545633580}, dw = {821033018, 786432000, 838860800};
    levels(CML_L2R_EVICT_FIRST, 0, 0);
    check_levels("evict-first", &rec, HIT, L2R, L2W, dr, dw);
    levels(CML_L2R_LDCS, 0, 0);
    check_levels("ldcs", &rec, (want3){135441, 5097, 135441},
                 (want3){52293359, L2R_LO, 52423703}, L2W, dr, dw);
    /* evict-last: the hot lines may outlast the flush (up to min(H, C)):
     * lo 800 MiB = 838860800. */
    levels(CML_L2R_EVICT_LAST, 0, 0);
    check_levels("evict-last", &rec, HIT, L2R, L2W, (want3){888012800, 838860800, 1545633580},
                 dw);
}

/* no-allocate: the hot lines stay out of L1, x is never read again: no
 * hit, a point; every load reaches L2 (52428800) but those the L2 Request
 * Coalescer merges (at least 27750400); L2 and DRAM as none. */
static void test_no_allocate(void)
{
    levels(CML_L2R_NO_ALLOCATE, 0, 0);
    check_levels("no-allocate", &rec, (want3){0, 0, 0}, (want3){52428800, L2R_LO, 52428800},
                 L2W, (want3){1429972637, 1317096887, 1545633580},
                 (want3){825291569, 786432000, 838860800});
    /* prefetch-256: L2 reads up to twice the sectors (256 bytes a line
     * request): hi 2 x 52423703 = 104847406. */
    levels(CML_L2R_PREFETCH_256, 0, 0);
    check_levels("prefetch-256", &rec, HIT, (want3){52383679, L2R_LO, 104847406}, L2W,
                 (want3){1429972637, 1317096887, 1545633580},
                 (want3){825291569, 786432000, 838860800});
}

/* Without a write-back horizon the dirty maximum decides: 24 MiB stay
 * dirty, DRAM write 776 MiB = 813694976. Refused: no model, a size 0. */
static void test_dirty_max_and_refused(void)
{
    setup(&rec);
    rec.cache.clean_age_bytes = 0;
    CHECK_EQ_I64(cml_l2r_levels(&rec, CML_L2R_NONE, C, H, X, S, H, 0, 0), CML_OK);
    CHECK_EQ_U64(rec.levels.dram_write_bytes, 813694976);
    setup(&rec);
    rec.has_model = 0;
    CHECK_EQ_I64(cml_l2r_levels(&rec, CML_L2R_NONE, C, H, X, S, H, 0, 0), CML_EINVAL);
    setup(&rec);
    CHECK_EQ_I64(cml_l2r_levels(&rec, CML_L2R_NONE, C, 0, X, S, H, 0, 0), CML_EINVAL);
    CHECK_EQ_I64(cml_l2r_levels(&rec, CML_L2R_WINDOW, C, H, X, S, H, 1.5, 1), CML_EINVAL);
    CHECK(!rec.has_levels);
}

/* The experiment's records carry these figures: policy none and the window
 * at hitRatio 100 as derived above, every record bounded and inside. */
static void test_records(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_l2_residency, NULL, &r), CML_OK);
    const cml_record *none = find(&r, "policy=none hot=125");
    const cml_record *w100 = find(&r, "policy=window hit-prop=persisting hit-ratio=100 hot=125");
    if (FOUND(none) && FOUND(w100)) {
        check_levels("record none", none, HIT, L2R, L2W,
                     (want3){1429972637, 1317096887, 1545633580},
                     (want3){825291569, 786432000, 838860800});
        check_levels("record window r=100", w100, HIT, L2R, L2W,
                     (want3){1006632960, 920511469, 1361838080},
                     (want3){825753600, 786432000, 838860800});
    }
    for (size_t i = 0; i < r.count; i++)
        CHECK(r.items[i].has_levels && r.items[i].levels.bounded &&
              cml_levels_bounds_ok(&r.items[i].levels));
    cml_results_free(&r);
}

int main(void)
{
    test_che();
    test_none();
    test_window_0();
    test_window_100();
    test_evict_first();
    test_no_allocate();
    test_dirty_max_and_refused();
    test_records();
    return cml_test_summary("test_l2_residency_levels");
}
