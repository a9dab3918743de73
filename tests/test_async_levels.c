/*
 * The cache levels of experiment 21 (async-copy) for every method, without
 * a GPU: what each way of staging a tile asks of L1TEX (requests and
 * sectors: an LDGSTS is a global load request, a copy-engine read none) and
 * of L2 and DRAM (sectors read and written, bytes read and written, each
 * with its interval), at an L2-resident footprint and at a DRAM-sized one,
 * against figures derived by hand in the comments.
 *
 * Without device facts the model assumes an H100 (132 SMs, 50 MiB of L2,
 * DRAM read in 64-byte granules, dirty data written back once 35 MiB have
 * entered L2 after it, at most 24 MiB dirty: docs/model.md §16). Every
 * record here is stages=1 resident=1, validate's settings: one block per
 * SM, a grid of 132.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "lab/common.h"
#include "test_util.h"

#define MIB (UINT64_C(1) << 20)

static const char *const methods[] = {"reg width=16", "async-ca width=16", "async-cg width=16",
                                      "bulk", "tensor"};
#define NMETHODS (sizeof methods / sizeof methods[0])

/* What one record must show: the LSU's global-load requests and sectors,
 * the copy engine's sectors, and each level figure's point and bounds. */
typedef struct want {
    uint64_t requests, sectors, bulk_sectors;
    uint64_t l2_read, l2_read_lo, l2_read_hi;
    uint64_t l2_write, dram_read;
} want;

static void check_record(const cml_results *r, const char *workload, const char *method,
                         const want *w)
{
    char variant[128];
    snprintf(variant, sizeof variant, "workload=%s method=%s stages=1 resident=1", workload,
             method);
    const cml_record *rec = find(r, variant);
    if (!FOUND(rec))
        return;
    const cml_kernel_traffic *k = &rec->model[CML_RULES_MODERN];
    const cml_levels *lv = &rec->levels;
    CHECK(rec->has_levels && lv->bounded);
    CHECK_EQ_U64(rec->grid, 132);
    CHECK_EQ_U64(k->cls[CML_CLASS_GLOBAL_LD].requests, w->requests);
    CHECK_EQ_U64(k->cls[CML_CLASS_GLOBAL_LD].sectors, w->sectors);
    CHECK_EQ_U64(k->bulk.sectors, w->bulk_sectors);
    CHECK_EQ_U64(lv->l1_hit_sectors, 0);
    CHECK_EQ_U64(lv->hi.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv->l2_read_sectors, w->l2_read);
    CHECK_EQ_U64(lv->lo.l2_read_sectors, w->l2_read_lo);
    CHECK_EQ_U64(lv->hi.l2_read_sectors, w->l2_read_hi);
    CHECK_EQ_U64(lv->l2_write_sectors, w->l2_write);
    CHECK_EQ_U64(lv->lo.l2_write_sectors, w->l2_write);
    CHECK_EQ_U64(lv->hi.l2_write_sectors, w->l2_write);
    CHECK_EQ_U64(lv->dram_read_bytes, w->dram_read);
    CHECK_EQ_U64(lv->lo.dram_read_bytes, w->dram_read);
    CHECK_EQ_U64(lv->hi.dram_read_bytes, w->dram_read);
    CHECK(cml_levels_bounds_ok(lv));
}

/* The requests and sectors of method i for `sectors` sectors of input read
 * in 16-byte copies by full warps (512 bytes, 16 sectors, a request): the
 * LSU's for reg and cp.async, the copy engine's for bulk and tensor. */
static want base(size_t i, uint64_t sectors)
{
    want w;
    memset(&w, 0, sizeof w);
    if (i < 3) {
        w.requests = sectors / 16;
        w.sectors = sectors;
    } else {
        w.bulk_sectors = sectors;
    }
    w.l2_read = w.l2_read_lo = w.l2_read_hi = sectors;
    w.dram_read = sectors * 32;
    return w;
}

/*
 * The reduce reads n floats once, cold, and each block stores one 8-byte
 * sum. n = 2^20 (4 MiB, in L2) and n = 2^26 (256 MiB, above 4x L2):
 *   L2 read sectors = 4n / 32 for every method (n/8: 131072, 8388608):
 *   reg and cp.async's loads miss L1 (each sector read once), the copy
 *   engine's reads never enter it. DRAM read = 4n bytes (every 64-byte
 *   granule missed once: 4194304, 268435456). Requests: 8 warps x one
 *   16-byte copy per 4 KiB tile, n/1024 tiles: n/128 (8192, 524288).
 *   L2 writes: the 132 sums, one sector each; DRAM writes: none while
 *   the kernel runs (the point: the 132 dirty sectors stay in L2, 4224
 *   bytes), each written back once at most (hi 132 x 32 = 4224).
 */
static void test_reduce(void)
{
    static const char *const sizes[] = {"n=2^20", "n=2^26"};
    static const uint64_t sectors[] = {131072, 8388608};
    for (size_t z = 0; z < 2; z++) {
        char opts[160];
        snprintf(opts, sizeof opts,
                 "%s workload=reduce method=reg,async-ca,async-cg,bulk,tensor width=16 "
                 "stages=1 resident=1",
                 sizes[z]);
        cml_results r;
        CHECK(run_model(&cml_exp_async_copy, opts, &r) == CML_OK);
        CHECK_EQ_U64(r.count, NMETHODS);
        for (size_t i = 0; i < NMETHODS; i++) {
            want w = base(i, sectors[z]);
            w.l2_write = 132;
            check_record(&r, "reduce", methods[i], &w);
            char variant[128];
            snprintf(variant, sizeof variant, "workload=reduce method=%s stages=1 resident=1",
                     methods[i]);
            const cml_record *rec = find(&r, variant);
            if (FOUND(rec)) {
                CHECK_EQ_U64(rec->levels.dram_write_bytes, 0);
                CHECK_EQ_U64(rec->levels.lo.dram_write_bytes, 0);
                CHECK_EQ_U64(rec->levels.hi.dram_write_bytes, 4224);
                CHECK_EQ_U64(rec->levels.l2_dirty_end_bytes, 4224);
            }
        }
        cml_results_free(&r);
    }
}

/*
 * The transpose reads in[] (n floats) once and writes out[] (n floats)
 * once: n = 2^20 (1024 x 1024, 4 MiB each) and n = 2^26 (8192 x 8192,
 * 256 MiB each). Per 4 KiB tile (n/1024 of them) the reads are 32 rows of
 * 128 bytes: 128 sectors; 8 warps x one 16-byte copy (4 rows of a warp),
 * so n/128 requests (8192, 524288) and n/8 sectors (131072, 8388608).
 *   cp.async.cg lands rows 144 bytes apart in shared memory (36 floats):
 *   the 16 odd rows start 16 bytes off a 32-byte boundary, their 4 sectors
 *   each fall into two shared chunks and L2 serves each twice: 64 more
 *   reads per tile, 192 of 128 (1.5x: 196608, 12582912) as point and upper
 *   bound; the bulk copy (the same rows) may: its upper bound only.
 *   L2 writes: the stores, n/8 sectors. DRAM read 4n.
 *   DRAM writes. 4 MiB: 8 MiB enter L2, under the 35 MiB horizon, and 4
 *   MiB are dirty, under the 24 MiB limit: nothing written back (0); at
 *   most everything written (4 MiB). 256 MiB: half of what enters L2 is
 *   written, so the last 35 MiB hold 17.5 MiB dirty at the end, under the
 *   24 MiB limit: 256 - 17.5 = 238.5 MiB = 250085376 bytes written back,
 *   at most 256 MiB; the same for every method (the copy path changes
 *   nothing L2 sees of the stores).
 */
static void test_transpose(void)
{
    static const char *const sizes[] = {"n=2^20", "n=2^26"};
    static const uint64_t sectors[] = {131072, 8388608};
    static const uint64_t dram_write[] = {0, 250085376};
    for (size_t z = 0; z < 2; z++) {
        char opts[160];
        snprintf(opts, sizeof opts,
                 "%s workload=transpose method=reg,async-ca,async-cg,bulk,tensor width=16 "
                 "stages=1 resident=1",
                 sizes[z]);
        cml_results r;
        CHECK(run_model(&cml_exp_async_copy, opts, &r) == CML_OK);
        CHECK_EQ_U64(r.count, NMETHODS);
        for (size_t i = 0; i < NMETHODS; i++) {
            want w = base(i, sectors[z]);
            w.l2_write = sectors[z];
            const uint64_t straddle = sectors[z] / 2;
            if (!strcmp(methods[i], "async-cg width=16"))
                w.l2_read += straddle;
            if (!strcmp(methods[i], "async-cg width=16") || !strcmp(methods[i], "bulk"))
                w.l2_read_hi += straddle;
            check_record(&r, "transpose", methods[i], &w);
            char variant[128];
            snprintf(variant, sizeof variant, "workload=transpose method=%s stages=1 resident=1",
                     methods[i]);
            const cml_record *rec = find(&r, variant);
            if (FOUND(rec)) {
                CHECK_EQ_U64(rec->levels.dram_write_bytes, dram_write[z]);
                CHECK_EQ_U64(rec->levels.hi.dram_write_bytes, sectors[z] * 32);
            }
        }
        cml_results_free(&r);
    }
}

/* The footprints above are what their names say for the H100's 50 MiB: the
 * DRAM-sized one at least 4x L2, the resident one under it. */
static void test_sizes(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    CHECK_EQ_U64(c.l2_bytes, 50 * MIB);
    CHECK(256 * MIB >= 4 * c.l2_bytes);
    CHECK(8 * MIB < c.l2_bytes);
}

int main(void)
{
    test_sizes();
    test_reduce();
    test_transpose();
    return cml_test_summary("test_async_levels");
}
