/*
 * The hierarchy chase's per-hop histogram (hierarchy_chase.h's bins,
 * hierarchy_hist.c's reading of them), on synthetic histograms whose
 * medians, modes and valleys are derived by hand below: the bins' edges, a
 * single mode, a mode with a shoulder, two modes with a known valley, the
 * same with noise, a valley too shallow, a second mode too small (and one
 * just large enough), an empty histogram, and what goes into a record.
 */
#include <math.h>
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "test_util.h"

#define NB CML_HIER_HIST_BINS

static void test_bins(void)
{
    /* bin k = 4 (e - 4) + f: 33 = 2^5 + 1 has f = (33 >> 3) & 3 = 0, bin 4;
     * 279 = 2^8 + 23: (279 >> 6) & 3 = 0, bin 16; 320: 5 & 3 = 1, bin 17;
     * 505: 7 & 3 = 3, bin 19; 4095: e = 11, 7 & 3 = 3, bin 31; 4096 would
     * be 32: the last bin. Under 16 cycles: bin 0. */
    CHECK_EQ_U64(cml_hier_hist_bin(0), 0);
    CHECK_EQ_U64(cml_hier_hist_bin(15), 0);
    CHECK_EQ_U64(cml_hier_hist_bin(19), 0);
    CHECK_EQ_U64(cml_hier_hist_bin(20), 1);
    CHECK_EQ_U64(cml_hier_hist_bin(31), 3);
    CHECK_EQ_U64(cml_hier_hist_bin(33), 4);
    CHECK_EQ_U64(cml_hier_hist_bin(279), 16);
    CHECK_EQ_U64(cml_hier_hist_bin(320), 17);
    CHECK_EQ_U64(cml_hier_hist_bin(505), 19);
    CHECK_EQ_U64(cml_hier_hist_bin(4095), 31);
    CHECK_EQ_U64(cml_hier_hist_bin(4096), 31);
    CHECK_EQ_U64(cml_hier_hist_bin(1ull << 40), 31);
    /* Edges: 2^(e-2) (4 + f). */
    CHECK_NEAR(cml_hier_hist_edge(0), 16, 0);
    CHECK_NEAR(cml_hier_hist_edge(1), 20, 0);
    CHECK_NEAR(cml_hier_hist_edge(15), 224, 0);
    CHECK_NEAR(cml_hier_hist_edge(16), 256, 0);
    CHECK_NEAR(cml_hier_hist_edge(19), 448, 0);
    CHECK_NEAR(cml_hier_hist_edge(32), 4096, 0);
    /* Every bin holds its own range and nothing else. */
    for (unsigned k = 0; k < NB; k++) {
        const uint64_t lo = (uint64_t)cml_hier_hist_edge(k), hi = (uint64_t)cml_hier_hist_edge(k + 1);
        CHECK_EQ_U64(cml_hier_hist_bin(lo), k);
        CHECK_EQ_U64(cml_hier_hist_bin(hi - 1), k);
    }
}

static void modes_of(const uint64_t *c, cml_hier_modes *m)
{
    memset(m, 0x5A, sizeof *m); /* every field must be set */
    cml_hier_hist_modes(c, m);
}

static void test_one_mode(void)
{
    uint64_t c[NB] = {0};
    cml_hier_modes m;
    /* Everything in [256, 320): the median halfway, 288. */
    c[16] = 100;
    modes_of(c, &m);
    CHECK_EQ_U64(m.total, 100);
    CHECK_NEAR(m.median, 288.0, 1e-9);
    CHECK(!m.bimodal);
    CHECK(isnan(m.near) && isnan(m.far) && isnan(m.far_fraction));
    /* A shoulder: 30 | 100 | 60 | 20 in bins 15..18. Bin 18 is no second
     * peak: the bin between it and the peak (60) is not lower. The median,
     * the 105th of 210 hops, is the 75th of bin 16's 100: 256 + 64 x 0.75. */
    c[15] = 30;
    c[17] = 60;
    c[18] = 20;
    modes_of(c, &m);
    CHECK_NEAR(m.median, 304.0, 1e-9);
    CHECK(!m.bimodal);
    /* A dip too shallow: 200 | 90 | 150 in bins 16..18: bin 18 is a second
     * peak, but its valley (90) is above half of it (75). */
    memset(c, 0, sizeof c);
    c[16] = 200;
    c[17] = 90;
    c[18] = 150;
    modes_of(c, &m);
    CHECK(!m.bimodal);
    /* Empty. */
    memset(c, 0, sizeof c);
    modes_of(c, &m);
    CHECK_EQ_U64(m.total, 0);
    CHECK(isnan(m.median));
    CHECK(!m.bimodal);
}

static void test_two_modes(void)
{
    /* Bins 15..20: 20 | 200 | 30 | 10 | 150 | 40 (an H100's L2 at 32 MiB
     * in shape: near about 280 cycles, far about 500). Peaks 16 and 19; the
     * deepest valley between them bin 18 [384, 448) with 10, at most half
     * of 150. Below it 250 hops, above 190 (each more than 5% of 450).
     * near: the 125th of 250, the 105th of bin 16's 200: 256 + 64 x 105 / 200
     * = 289.6; far: the 95th of 190, in bin 19: 448 + 64 x 95 / 150 =
     * 488.5333...; far fraction 190 / 440; the median of all, the 225th of
     * 450, the 5th of bin 17's 30: 320 + 64 x 5 / 30. */
    uint64_t c[NB] = {0};
    c[15] = 20;
    c[16] = 200;
    c[17] = 30;
    c[18] = 10;
    c[19] = 150;
    c[20] = 40;
    cml_hier_modes m;
    modes_of(c, &m);
    CHECK_EQ_U64(m.total, 450);
    CHECK(m.bimodal);
    CHECK_EQ_U64(m.valley, 18);
    CHECK_NEAR(m.near, 289.6, 1e-9);
    CHECK_NEAR(m.far, 448.0 + 64.0 * 95.0 / 150.0, 1e-9);
    CHECK_NEAR(m.far_fraction, 190.0 / 440.0, 1e-12);
    CHECK_NEAR(m.median, 320.0 + 64.0 * 5.0 / 30.0, 1e-9);

    /* The same with noise: 2 hops at bin 5, 3 at bin 28. Still peaks 16 and
     * 19 (the stray bins are lower), valley 18; below 252, above 193. near:
     * the 126th of 252, the 104th of bin 16 (22 before it): 256 + 64 x 104 /
     * 200 = 289.28; far: the 96.5th of 193, in bin 19: 448 + 64 x 96.5 / 150. */
    c[5] = 2;
    c[28] = 3;
    modes_of(c, &m);
    CHECK(m.bimodal);
    CHECK_EQ_U64(m.valley, 18);
    CHECK_NEAR(m.near, 289.28, 1e-9);
    CHECK_NEAR(m.far, 448.0 + 64.0 * 96.5 / 150.0, 1e-9);
    CHECK_NEAR(m.far_fraction, 193.0 / 445.0, 1e-12);

    /* The same peak at the other side: the highest peak is the far one. */
    memset(c, 0, sizeof c);
    c[16] = 100;
    c[19] = 300;
    modes_of(c, &m);
    CHECK(m.bimodal);
    CHECK_EQ_U64(m.valley, 17); /* bins 17 and 18 both empty: the first */
    CHECK_NEAR(m.near, 288.0, 1e-9);
    CHECK_NEAR(m.far, 480.0, 1e-9);
    CHECK_NEAR(m.far_fraction, 0.75, 1e-12);
}

static void test_noise_and_small_modes(void)
{
    /* An L1 chase: 1000 hops in [32, 40) and 6 strays (bins 10, 20, 31):
     * the highest stray (3 at bin 10) is a peak behind an empty valley, but
     * the 6 hops beyond it are under 5% of 1006: one mode. Median: the
     * 503rd, in bin 4: 32 + 8 x 503 / 1000. */
    uint64_t c[NB] = {0};
    c[4] = 1000;
    c[10] = 3;
    c[20] = 2;
    c[31] = 1;
    cml_hier_modes m;
    modes_of(c, &m);
    CHECK(!m.bimodal);
    CHECK_NEAR(m.median, 32.0 + 8.0 * 503.0 / 1000.0, 1e-9);
    /* A second mode of 30 hops beside 1000: 30 < 5% of 1030 = 51.5, none;
     * of 60: 60 >= 5% of 1060 = 53, two. */
    memset(c, 0, sizeof c);
    c[16] = 1000;
    c[19] = 30;
    modes_of(c, &m);
    CHECK(!m.bimodal);
    c[19] = 60;
    modes_of(c, &m);
    CHECK(m.bimodal);
    CHECK_NEAR(m.far_fraction, 60.0 / 1060.0, 1e-12);
}

/* What a chase record gets: the two-mode histogram above. */
static void test_record(void)
{
    uint64_t c[NB] = {0};
    c[15] = 20;
    c[16] = 200;
    c[17] = 30;
    c[18] = 10;
    c[19] = 150;
    c[20] = 40;
    cml_record rec;
    memset(&rec, 0, sizeof rec);
    char text[256];
    cml_hier_hist_record(&rec, c, text, sizeof text);
    CHECK_EQ_U64(rec.nextra, 4);
    CHECK_NEAR(cml_record_extra(&rec, "hop_median_cycles", NAN), 320.0 + 64.0 * 5.0 / 30.0, 1e-9);
    CHECK_NEAR(cml_record_extra(&rec, "near_cycles", NAN), 289.6, 1e-9);
    CHECK_NEAR(cml_record_extra(&rec, "far_cycles", NAN), 448.0 + 64.0 * 95.0 / 150.0, 1e-9);
    CHECK_NEAR(cml_record_extra(&rec, "far_fraction", NAN), 190.0 / 440.0, 1e-12);
    /* 1 - 190/440 = 56.8%, 43.2% */
    CHECK_STR_CONTAINS(text, "two modes: near 290 cycles (57% of hops) and far 489 (43%)");
    CHECK_STR_CONTAINS(text, "(384-448 cycles)");
    /* One mode: the median alone. */
    memset(&rec, 0, sizeof rec);
    memset(c, 0, sizeof c);
    c[16] = 100;
    cml_hier_hist_record(&rec, c, text, sizeof text);
    CHECK_EQ_U64(rec.nextra, 1);
    CHECK_STR_CONTAINS(text, "median 288 cycles, one mode");
    /* No hop: nothing. */
    memset(&rec, 0, sizeof rec);
    c[16] = 0;
    cml_hier_hist_record(&rec, c, text, sizeof text);
    CHECK_EQ_U64(rec.nextra, 0);
    CHECK_STR_EQ(text, "");
}

int main(void)
{
    test_bins();
    test_one_mode();
    test_two_modes();
    test_noise_and_small_modes();
    test_record();
    return cml_test_summary("test_hierarchy_hist");
}
