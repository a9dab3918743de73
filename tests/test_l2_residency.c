/*
 * The model side of experiment 19 (L2 residency), without a GPU: the
 * expected hot hits and DRAM bytes of each policy against figures derived
 * by hand in the comments, the requests and sectors of the mirror, the
 * hot-chunk hash the kernel and the checkers share, the waivers on devices
 * without the features, and bad option values refused.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/l2_residency/l2_residency_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/sweep.h"
#include "experiment_test_util.h"
#include "test_util.h"

#define MIB (1024.0 * 1024.0)

/*
 * LRU beside the stream: T solves 8T + H (1 - e^(-4T/H)) = C, hit =
 * 1 - e^(-4T/H). With H = 4 and T = 1: hit = 1 - e^-1 = 0.632121, and
 * C = 8 + 4 x 0.632121 = 10.528482. A hot set far below L2 hits always;
 * one far above it almost never.
 */
static void test_lru(void)
{
    const double hit = 1.0 - exp(-1.0), c = 8.0 + 4.0 * hit;
    CHECK_NEAR(cml_l2r_lru_hit(c, 4.0), hit, 1e-9);
    CHECK(cml_l2r_lru_hit(50 * MIB, 1 * MIB) > 0.999999);
    CHECK(cml_l2r_lru_hit(50 * MIB, 5000 * MIB) < 0.011);
    CHECK(cml_l2r_lru_hit(50 * MIB, 0.0) == 0.0);
    /* More hot set, fewer hits. */
    CHECK(cml_l2r_lru_hit(50 * MIB, 20 * MIB) > cml_l2r_lru_hit(50 * MIB, 40 * MIB));
}

/*
 * An H100's sizes: C = 50 MiB L2, S = 37.5 MiB set-aside, H = 46.875 MiB
 * hot set (125% of S), X = 800 MiB streamed (hot reads: 800 MiB too).
 *   window persisting r = 0.75: 35.16 MiB persisting <= S: hit 0.75;
 *     DRAM read 800 + 0.25 x 800 = 1000 MiB; cold +0.75 x 46.875 = 1035.16;
 *   r = 1: 46.875 > S: hit 37.5 / 46.875 = 0.8, read 960 MiB;
 *   window 32 MiB only (the device's maximum), r = 1: 32 / 46.875 = 0.6827;
 *   streaming: hit 0, read 1600 MiB;
 *   ldcs / evict-*: H < C: hit 1, read 800 MiB, cold 846.875;
 *   a hot set of 100 MiB under evict-last: hit 50/100, read 1200 MiB;
 *   L2 hit of the reads = hit / 2 (x never hits).
 */
static void test_expectation(void)
{
    const double C = 50 * MIB, S = 37.5 * MIB, H = 46.875 * MIB, X = 800 * MIB;
    cml_l2r_expect e;
    cml_l2r_expectation(CML_L2R_WINDOW, C, H, X, S, H, 0.75, 1, &e);
    CHECK_NEAR(e.hot_hit, 0.75, 1e-12);
    CHECK_NEAR(e.dram_read / MIB, 1000.0, 1e-9);
    CHECK_NEAR(e.dram_read_cold / MIB, 1035.15625, 1e-9);
    CHECK_NEAR(e.dram_write / MIB, 800.0, 1e-9);
    CHECK_NEAR(e.l2_hit, 0.375, 1e-12);
    cml_l2r_expectation(CML_L2R_WINDOW, C, H, X, S, H, 1.0, 1, &e);
    CHECK_NEAR(e.hot_hit, 0.8, 1e-12);
    CHECK_NEAR(e.dram_read / MIB, 960.0, 1e-9);
    cml_l2r_expectation(CML_L2R_WINDOW, C, H, X, S, 32 * MIB, 1.0, 1, &e);
    CHECK_NEAR(e.hot_hit, 32.0 / 46.875, 1e-12);
    cml_l2r_expectation(CML_L2R_WINDOW, C, H, X, S, H, 1.0, 0, &e);
    CHECK(e.hot_hit == 0.0);
    CHECK_NEAR(e.dram_read / MIB, 1600.0, 1e-9);
    cml_l2r_expectation(CML_L2R_WINDOW, C, H, X, S, H, 0.0, 1, &e);
    CHECK(e.hot_hit == 0.0);
    static const int protect[] = {CML_L2R_LDCS, CML_L2R_EVICT_FIRST, CML_L2R_EVICT_LAST,
                                  CML_L2R_EVICT_BOTH};
    for (size_t i = 0; i < sizeof protect / sizeof protect[0]; i++) {
        cml_l2r_expectation(protect[i], C, H, X, S, H, 0.0, 0, &e);
        CHECK(e.hot_hit == 1.0);
        CHECK_NEAR(e.dram_read / MIB, 800.0, 1e-9);
        CHECK_NEAR(e.dram_read_cold / MIB, 846.875, 1e-9);
    }
    cml_l2r_expectation(CML_L2R_EVICT_LAST, C, 100 * MIB, X, S, H, 0.0, 0, &e);
    CHECK_NEAR(e.hot_hit, 0.5, 1e-12);
    CHECK_NEAR(e.dram_read / MIB, 1200.0, 1e-9);
    /* No hint, the prefetch sizes and L1::no_allocate: LRU. */
    const double lru = cml_l2r_lru_hit(C, H);
    static const int plain[] = {CML_L2R_NONE, CML_L2R_PREFETCH_128, CML_L2R_PREFETCH_256,
                                CML_L2R_NO_ALLOCATE};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        cml_l2r_expectation(plain[i], C, H, X, S, H, 0.0, 0, &e);
        CHECK(e.hot_hit == lru);
    }
    CHECK(lru > 0.2 && lru < 0.5);
}

/* The kernel's hot index: float e of out adds h[128 chunk(e/128) + e%128]
 * (a warp's 32 float4s are 128 floats), every chunk in range and used. */
static void test_hash(void)
{
    const uint64_t chunks = 1000, seed = 42;
    CHECK_EQ_U64(cml_l2r_hot_index(seed, chunks, 0), 128 * cml_l2r_chunk(seed, 0, chunks));
    CHECK_EQ_U64(cml_l2r_hot_index(seed, chunks, 127), 128 * cml_l2r_chunk(seed, 0, chunks) + 127);
    CHECK_EQ_U64(cml_l2r_hot_index(seed, chunks, 128 + 5),
                 128 * cml_l2r_chunk(seed, 1, chunks) + 5);
    unsigned char *seen = calloc(chunks, 1);
    uint64_t distinct = 0, outside = 0;
    for (uint64_t w = 0; w < 20 * chunks; w++) {
        uint64_t c = cml_l2r_chunk(seed, w, chunks);
        outside += c >= chunks;
        if (c < chunks && !seen[c]) {
            seen[c] = 1;
            distinct++;
        }
    }
    free(seen);
    CHECK_EQ_U64(outside, 0);
    /* 20 draws per chunk: each is missed with probability e^-20. */
    CHECK_EQ_U64(distinct, chunks);
}

/*
 * Through the engine, on the model alone (an H100's sizes assumed): 18
 * records; X = 16 x 50 MiB = 800 MiB, nv = 800 MiB / 16 B = 52428800
 * float4s, 1638400 warps: per array 1638400 requests of 16 sectors
 * (26214400): loads x and the hot chunk, stores out. Bytes: x and the hot
 * set read once (800 + 46.875 MiB), out written (800 MiB).
 */
static void test_engine_run(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_l2_residency, NULL, &r), CML_OK);
    CHECK_EQ_U64(r.count, 18);
    const cml_record *none = find(&r, "policy=none hot=125");
    const cml_record *w75 = find(&r, "policy=window hit-prop=persisting hit-ratio=75 hot=125");
    const cml_record *wst = find(&r, "policy=window hit-prop=streaming hit-ratio=100 hot=125");
    const cml_record *last = find(&r, "policy=evict-last hot=125");
    if (!(FOUND(none) && FOUND(w75) && FOUND(wst) && FOUND(last))) {
        cml_results_free(&r);
        return;
    }
    const uint64_t warps = 1638400;
    const cml_traffic *ld = &none->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const cml_traffic *st = &none->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
    CHECK_EQ_U64(ld->requests, 2 * warps);
    CHECK_EQ_U64(ld->sectors, 2 * 16 * warps);
    CHECK_EQ_U64(st->requests, warps);
    CHECK_EQ_U64(st->sectors, 16 * warps);
    CHECK_EQ_U64(none->bytes_read, (uint64_t)(846.875 * MIB));
    CHECK_EQ_U64(none->bytes_written, (uint64_t)800 << 20);
    CHECK_NEAR(extra(none, "hot_set"), 46.875, 1e-9);
    CHECK_NEAR(extra(none, "persist_max"), 37.5, 1e-9);
    CHECK_NEAR(extra(w75, "hot_hit_pred"), 75.0, 1e-9);
    CHECK_NEAR(extra(w75, "dram_read_pred"), 1000.0, 1e-9);
    CHECK_NEAR(extra(wst, "dram_read_pred"), 1600.0, 1e-9);
    CHECK_NEAR(extra(last, "dram_read_pred"), 800.0, 1e-9);
    CHECK_STR_CONTAINS(w75->finding, "35.2 MiB persisting, within the 37.5 MiB set-aside: 75% hit");
    CHECK_STR_CONTAINS(none->finding, "an H100's: no device");
    for (size_t i = 0; i < r.count; i++)
        CHECK(r.items[i].state == CML_REC_OK && !r.items[i].measured);
    cml_results_free(&r);
}

/* A device without the features: sm_75 waives the window, the L2::256B
 * prefetch and the cache-hint policies; a device with no persisting L2
 * waives the window only. Sizes come from the device: L2 4 MiB, persisting
 * max 3 MiB, hot 150% = 4.5 MiB. */
static void test_waivers(void)
{
    cml_device_facts dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = 7;
    dev.cc_minor = 5;
    dev.l2_bytes = (uint64_t)4 << 20;
    dev.l2_persisting_max = (uint64_t)3 << 20;
    dev.global_bytes = (uint64_t)16 << 30;
    dev.sm_count = 40;
    dev.max_threads_per_sm = 1024;
    cml_param_values pv;
    char err[256];
    CHECK_EQ_I64(cml_lab_options(&cml_exp_l2_residency, "hit-ratio=50 hot=150", NULL, &pv, err,
                                 sizeof err),
                 CML_OK);
    for (int pass = 0; pass < 2; pass++) {
        cml_plan plan;
        memset(&plan, 0, sizeof plan);
        plan.dev = &dev;
        cml_results r;
        cml_results_init(&r);
        CHECK_EQ_I64(cml_sweep_run(&cml_exp_l2_residency, &plan, &pv, &r), CML_OK);
        CHECK_EQ_U64(r.count, 10);
        unsigned waived = 0;
        for (size_t i = 0; i < r.count; i++) {
            const cml_record *rec = &r.items[i];
            if (rec->state == CML_REC_WAIVED) {
                waived++;
                CHECK(strstr(rec->note, pass ? "no persisting L2" : "needs sm_80") != NULL);
            } else {
                CHECK_NEAR(extra(rec, "hot_set"), 4.5, 1e-9);
            }
        }
        /* sm_75: window x2, evict-first, evict-last, evict-first-last,
         * prefetch-256; sm_80 without persisting L2: the two windows. */
        CHECK_EQ_U64(waived, pass ? 2 : 6);
        cml_results_free(&r);
        dev.cc_major = 8;
        dev.cc_minor = 0;
        dev.l2_persisting_max = 0;
    }
}

static void test_refused(void)
{
    check_refused(&cml_exp_l2_residency, "hot", "5", NULL);
    check_refused(&cml_exp_l2_residency, "hit-ratio", "101", NULL);
    check_refused(&cml_exp_l2_residency, "hit-prop", "normal", NULL);
    check_refused(&cml_exp_l2_residency, "policy", "evict-some", NULL);
}

int main(void)
{
    test_lru();
    test_expectation();
    test_hash();
    test_engine_run();
    test_waivers();
    test_refused();
    return cml_test_summary("test_l2_residency");
}
