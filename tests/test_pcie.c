/*
 * The PCIe arithmetic of the model (include/cumemlab/pcie.h), against
 * figures worked out by hand in the comments.
 */
#include <stdint.h>

#include "cumemlab/pcie.h"
#include "test_util.h"

/* 8, 16, 32 GT/s per lane for Gen3, 4, 5; nothing for others. */
static void test_generations(void)
{
    CHECK_NEAR(cml_pcie_gen_gts(3), 8.0, 0);
    CHECK_NEAR(cml_pcie_gen_gts(4), 16.0, 0);
    CHECK_NEAR(cml_pcie_gen_gts(5), 32.0, 0);
    CHECK_NEAR(cml_pcie_gen_gts(2), 0.0, 0);
    CHECK_NEAR(cml_pcie_gen_gts(6), 0.0, 0);
}

/*
 * Raw rate = GT/s x lanes x 128/130 / 8:
 *   Gen5 x16: 32 x 16 / 8 = 64 GB/s of line rate, x 128/130 = 8192/130 = 63.0154
 *   Gen4 x16: 4096/130 = 31.5077     Gen3 x16: 2048/130 = 15.7538
 *   Gen5 x4:  32 x 4 / 8 x 128/130 = 2048/130, the same as Gen3 x16
 *   Gen4 x1:  16 / 8 x 128/130 = 256/130 = 1.9692
 */
static void test_raw(void)
{
    CHECK_NEAR(cml_pcie_raw_gbs(32, 16), 63.0154, 1e-4);
    CHECK_NEAR(cml_pcie_raw_gbs(32, 16), 8192.0 / 130.0, 1e-12);
    CHECK_NEAR(cml_pcie_raw_gbs(16, 16), 31.5077, 1e-4);
    CHECK_NEAR(cml_pcie_raw_gbs(8, 16), 15.7538, 1e-4);
    CHECK_NEAR(cml_pcie_raw_gbs(32, 4), cml_pcie_raw_gbs(8, 16), 1e-12);
    CHECK_NEAR(cml_pcie_raw_gbs(16, 1), 1.9692, 1e-4);
    CHECK_NEAR(cml_pcie_raw_gbs(0, 16), 0.0, 0);
}

/*
 * Gen5 x16 (8192/130 GB/s raw): pinned 80% = 6553.6/130 = 50.4123; pageable
 * 40-80% of that = 2621.44/130 = 20.1649 .. 5242.88/130 = 40.3298.
 * 1 GiB at the pinned rate: 2^30 x 130 / 6553.6e9 s = 0.0212992 s = 21.2992 ms.
 * 64 KiB at 25 GB/s: 65536 / 25e9 s = 2.62144 us = 0.00262144 ms.
 */
static void test_rates_and_times(void)
{
    cml_pcie_rates r;
    cml_pcie_link_rates(8192.0 / 130.0, &r);
    CHECK_NEAR(r.raw_gbs, 63.0154, 1e-4);
    CHECK_NEAR(r.pinned_gbs, 50.4123, 1e-4);
    CHECK_NEAR(r.pageable_low_gbs, 20.1649, 1e-4);
    CHECK_NEAR(r.pageable_high_gbs, 40.3298, 1e-4);
    CHECK_NEAR(cml_pcie_time_ms(1073741824.0, r.pinned_gbs), 21.2992, 1e-9);
    CHECK_NEAR(cml_pcie_time_ms(65536.0, 25.0), 0.00262144, 1e-15);
    CHECK_NEAR(cml_pcie_time_ms(0.0, 25.0), 0.0, 0);
}

/*
 * Zero-copy: each 32 B sector read costs 32 + 20..30 B on the wire.
 *   A coalesced warp, 4 sectors for 128 B used: 128/(4 x 62) = 51.61% ..
 *   128/(4 x 52) = 61.54%.
 *   Misaligned by 44 B, 5 sectors for 128 B: 128/310 = 41.29% .. 128/260 = 49.23%.
 *   One float per 128 B, 1 sector for 4 B: 4/62 = 6.45% .. 4/52 = 7.69%.
 *   No sector: nothing crosses the link.
 */
static void test_zerocopy(void)
{
    double lo = -1, hi = -1;
    cml_pcie_zerocopy_efficiency(4, 128, &lo, &hi);
    CHECK_NEAR(lo, 0.516129, 1e-6);
    CHECK_NEAR(hi, 0.615385, 1e-6);
    cml_pcie_zerocopy_efficiency(5, 128, &lo, &hi);
    CHECK_NEAR(lo, 0.412903, 1e-6);
    CHECK_NEAR(hi, 0.492308, 1e-6);
    /* A whole kernel scales: 2^21 warps like the first. */
    cml_pcie_zerocopy_efficiency(4ull << 21, 128ull << 21, &lo, &hi);
    CHECK_NEAR(lo, 0.516129, 1e-6);
    CHECK_NEAR(hi, 0.615385, 1e-6);
    cml_pcie_zerocopy_efficiency(1, 4, &lo, &hi);
    CHECK_NEAR(lo, 0.064516, 1e-6);
    CHECK_NEAR(hi, 0.076923, 1e-6);
    cml_pcie_zerocopy_efficiency(0, 0, &lo, &hi);
    CHECK_NEAR(lo, 0.0, 0);
    CHECK_NEAR(hi, 0.0, 0);
}

/*
 * First touch migrates whole 4 KiB pages at least, whole 2 MiB blocks at
 * most: 1 B -> 4 KiB .. 2 MiB; 2 MiB + 1 B -> 2 MiB + 4 KiB .. 4 MiB;
 * 3 MiB + 4 KiB -> itself .. 4 MiB; 64 MiB -> 64 MiB either way.
 */
static void test_migration(void)
{
    uint64_t lo = 1, hi = 1;
    cml_um_migration_bounds(0, &lo, &hi);
    CHECK_EQ_U64(lo, 0);
    CHECK_EQ_U64(hi, 0);
    cml_um_migration_bounds(1, &lo, &hi);
    CHECK_EQ_U64(lo, 4096);
    CHECK_EQ_U64(hi, 2097152);
    cml_um_migration_bounds(4096, &lo, &hi);
    CHECK_EQ_U64(lo, 4096);
    CHECK_EQ_U64(hi, 2097152);
    cml_um_migration_bounds(2097152 + 1, &lo, &hi);
    CHECK_EQ_U64(lo, 2097152 + 4096);
    CHECK_EQ_U64(hi, 4194304);
    cml_um_migration_bounds(3145728 + 4096, &lo, &hi);
    CHECK_EQ_U64(lo, 3145728 + 4096);
    CHECK_EQ_U64(hi, 4194304);
    cml_um_migration_bounds(67108864, &lo, &hi);
    CHECK_EQ_U64(lo, 67108864);
    CHECK_EQ_U64(hi, 67108864);
}

int main(void)
{
    test_generations();
    test_raw();
    test_rates_and_times();
    test_zerocopy();
    test_migration();
    return cml_test_summary("test_pcie");
}
