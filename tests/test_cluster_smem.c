/*
 * The model side of experiment 22 (cluster-smem), without a GPU: the
 * grid of whole clusters, the fill, the L2 reads and the chase the model
 * predicts for each source, against figures derived by hand in the
 * comments; a device below compute capability 9.0 waives every variant.
 *
 * Without device facts the model assumes an H100: 132 SMs, 2048 threads and
 * 228 KiB (233472 bytes) of shared memory per SM, an SM clock of 1980 MHz.
 * Blocks of 256 threads with 32 KiB of dynamic shared memory, 64 bytes of
 * static and 1 KiB kept by the system: 233472 / 33856 = 6 blocks per SM,
 * 792 blocks; a block's 8192 words take 8 rounds of one 16-byte access per
 * thread (8 warps each).
 */
#include <stdlib.h>
#include <string.h>

#include "experiments/cluster_smem/cluster_smem_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "lab/sweep.h"
#include "experiment_test_util.h"
#include "test_util.h"

static const cml_traffic *cls(const cml_record *rec, cml_class c)
{
    return &rec->model[CML_RULES_MODERN].cls[c];
}

static void test_defaults(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_cluster_smem, NULL, &r) == CML_OK);
    /* 5 cluster sizes x 2 sources x 2 tests */
    CHECK_EQ_U64(r.count, 20);
    for (size_t i = 0; i < r.count; i++)
        CHECK(r.items[i].state == CML_REC_OK && r.items[i].has_model);
    const cml_record *rec = find(&r, "test=latency source=dsmem cluster=16 smem=32");
    if (FOUND(rec))
        CHECK_EQ_U64(rec->grid, 16); /* the chase: one cluster */
    cml_results_free(&r);
}

/*
 * Bandwidth, 16 passes, clusters of 4: 792 blocks (a multiple of 4).
 *   fill: 792 x 8 rounds x 8 warps = 50688 16-byte shared stores (512
 *   bytes: 4 wavefronts) and as many global stores (16 sectors);
 *   global source: 16 passes of the same: 811008 requests, 12976128
 *   sectors of ld.global.cg;
 *   end, per block: 8 one-lane shared stores, one 8-lane shared load, one
 *   8-byte global store.
 *   shared_st: 50688 + 6336 = 57024 instructions, 202752 + 6336 = 209088
 *   wavefronts; global_st: 51480 requests, 811008 + 792 = 811800 sectors.
 *   Bytes read: 792 x 32 KiB x 16 = 415236096.
 * The dsmem source: the same, less the L2 loads. Clusters of 16: 784
 * blocks (49 whole clusters).
 */
static void test_bandwidth(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_cluster_smem, "test=bandwidth cluster=4,16 source=dsmem,global",
                    &r) == CML_OK);
    CHECK_EQ_U64(r.count, 4);
    const cml_record *g = find(&r, "test=bandwidth source=global cluster=4 smem=32");
    const cml_record *d = find(&r, "test=bandwidth source=dsmem cluster=4 smem=32");
    if (FOUND(g) && FOUND(d)) {
        CHECK_EQ_U64(g->grid, 792);
        CHECK_EQ_U64(g->bytes_read, 415236096ull);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_LD)->requests, 811008);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_LD)->sectors, 12976128ull);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_ST)->requests, 51480);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_ST)->sectors, 811800);
        CHECK_EQ_U64(cls(g, CML_CLASS_SHARED_ST)->instructions, 57024);
        CHECK_EQ_U64(cls(g, CML_CLASS_SHARED_ST)->wavefronts, 209088);
        CHECK_EQ_U64(cls(g, CML_CLASS_SHARED_LD)->wavefronts, 792);
        CHECK_STR_CONTAINS(g->finding, "811008 requests of 16.00 sectors");
        CHECK_EQ_U64(d->bytes_read, g->bytes_read);
        CHECK_EQ_U64(cls(d, CML_CLASS_GLOBAL_LD)->requests, 0);
        CHECK_EQ_U64(cls(d, CML_CLASS_SHARED_ST)->wavefronts, 209088);
        CHECK_NEAR(extra(d, "dsmem_bytes"), 415236096.0, 0);
        CHECK_NEAR(extra(d, "smem_peak_gbs"), 128.0 * 132 * 1.98, 1e-6);
        CHECK_STR_CONTAINS(d->finding, "over the SM-to-SM network");
    }
    const cml_record *big = find(&r, "test=bandwidth source=dsmem cluster=16 smem=32");
    if (FOUND(big))
        CHECK_EQ_U64(big->grid, 784);
    cml_results_free(&r);

    /* Clusters of 1: a block reads its own shared memory. */
    CHECK(run_model(&cml_exp_cluster_smem, "test=bandwidth cluster=1 source=dsmem", &r) ==
          CML_OK);
    CHECK(r.count == 1 && strstr(r.items[0].finding, "its own 32 KiB") != NULL);
    cml_results_free(&r);
}

/*
 * Latency, 1000 steps, clusters of 2: one cluster, 2 blocks.
 *   fill: 2 x 8 x 8 = 128 16-byte loads of the chain (16 sectors each:
 *   2048), 128 shared and 128 global 16-byte stores;
 *   global source: 2 x 1000 one-lane 4-byte loads (1 sector each);
 *   end: thread 0 stores two 8-byte words (1 sector each).
 *   global_ld: 2128 requests, 4048 sectors; global_st: 132 requests, 2052
 *   sectors. Bytes read: 2 x 4 x 1000.
 */
static void test_latency(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_cluster_smem,
                    "test=latency cluster=2 source=dsmem,global steps=1000", &r) == CML_OK);
    CHECK_EQ_U64(r.count, 2);
    const cml_record *g = find(&r, "test=latency source=global cluster=2 smem=32");
    const cml_record *d = find(&r, "test=latency source=dsmem cluster=2 smem=32");
    if (FOUND(g) && FOUND(d)) {
        CHECK_EQ_U64(g->grid, 2);
        CHECK_EQ_U64(g->bytes_read, 8000);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_LD)->requests, 2128);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_LD)->sectors, 4048);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_ST)->requests, 132);
        CHECK_EQ_U64(cls(g, CML_CLASS_GLOBAL_ST)->sectors, 2052);
        CHECK_EQ_U64(cls(d, CML_CLASS_GLOBAL_LD)->requests, 128);
        CHECK_STR_CONTAINS(d->finding, "chases 1000 dependent loads");
    }
    cml_results_free(&r);
}

/*
 * The cache levels (docs/experiments/cluster-smem.md, "What the model
 * expects").
 * Bandwidth, clusters of 4, 792 blocks of 32 KiB (1024 sectors): every
 * block writes its copy before any block reads (the cluster barrier; one
 * wave), so the global source's 16 passes all read L2: 16 x 792 x 1024 =
 * 12976128 sectors, none from DRAM (24.75 MiB of copies in 50 MiB of L2);
 * the dsmem source none. L2 writes: the copies, 792 x 1024 = 811008, and
 * the 792 checksums: 811800. DRAM writes: the copies are 24.75 MiB dirty,
 * 0.75 MiB over the 24 MiB limit: 786432 bytes written back, at most all
 * 25952256.
 * Latency, clusters of 2, 1000 steps: the fill reads the 32 KiB chain
 * (1024 sectors) through L1 in each block; the model puts the blocks on
 * SMs of their own (2048 L2 reads, 32768 bytes from DRAM: the second
 * block's reads hit L2), but 6 blocks of 32 KiB share an SM (228 KiB /
 * 33 KiB), so both may: one read of the chain at least (lower bound 1024
 * fewer, 1024 L1 hits at most). The global source's chase: 2 x 1000 .cg
 * loads of one sector, L2 hits: 4048 in all, at least 3024. L2 writes:
 * 2 x 1024 of the copies, 2 x 2 of the ends: 2052.
 */
static void test_levels(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_cluster_smem, "test=bandwidth cluster=4 source=dsmem,global",
                    &r) == CML_OK);
    static const char *const names[] = {"test=bandwidth source=global cluster=4 smem=32",
                                        "test=bandwidth source=dsmem cluster=4 smem=32"};
    for (int i = 0; i < 2; i++) {
        const cml_record *rec = find(&r, names[i]);
        if (!FOUND(rec))
            continue;
        const cml_levels *lv = &rec->levels;
        const uint64_t reads = i == 0 ? 12976128ull : 0;
        CHECK(rec->has_levels && lv->bounded && cml_levels_bounds_ok(lv));
        CHECK_EQ_U64(lv->l2_read_sectors, reads);
        CHECK_EQ_U64(lv->lo.l2_read_sectors, reads);
        CHECK_EQ_U64(lv->hi.l2_read_sectors, reads);
        CHECK_EQ_U64(lv->l2_write_sectors, 811800);
        CHECK_EQ_U64(lv->lo.l2_write_sectors, 811800);
        CHECK_EQ_U64(lv->hi.l2_write_sectors, 811800);
        CHECK_EQ_U64(lv->dram_read_bytes, 0);
        CHECK_EQ_U64(lv->hi.dram_read_bytes, 0);
        CHECK_EQ_U64(lv->dram_write_bytes, 786432);
        CHECK_EQ_U64(lv->hi.dram_write_bytes, 25952256);
    }
    cml_results_free(&r);

    CHECK(run_model(&cml_exp_cluster_smem,
                    "test=latency cluster=2 source=dsmem,global steps=1000", &r) == CML_OK);
    static const char *const lat[] = {"test=latency source=global cluster=2 smem=32",
                                      "test=latency source=dsmem cluster=2 smem=32"};
    for (int i = 0; i < 2; i++) {
        const cml_record *rec = find(&r, lat[i]);
        if (!FOUND(rec))
            continue;
        const cml_levels *lv = &rec->levels;
        const uint64_t chase = i == 0 ? 2000 : 0;
        CHECK(rec->has_levels && lv->bounded && cml_levels_bounds_ok(lv));
        CHECK_EQ_U64(lv->l2_read_sectors, 2048 + chase);
        CHECK_EQ_U64(lv->lo.l2_read_sectors, 1024 + chase);
        CHECK_EQ_U64(lv->hi.l2_read_sectors, 2048 + chase);
        CHECK_EQ_U64(lv->l1_hit_sectors, 0);
        CHECK_EQ_U64(lv->hi.l1_hit_sectors, 1024);
        CHECK_EQ_U64(lv->l2_write_sectors, 2052);
        CHECK_EQ_U64(lv->dram_read_bytes, 32768);
    }
    cml_results_free(&r);
}

static void test_waived_before_hopper(void)
{
    cml_device_facts f;
    memset(&f, 0, sizeof f);
    f.cc_major = 8;
    f.cc_minor = 0;
    f.sm_count = 108;
    f.max_threads_per_sm = 2048;
    f.shared_per_sm = 167936;
    cml_param_values pv;
    char err[256] = "";
    CHECK(cml_lab_options(&cml_exp_cluster_smem, "cluster=1,2", NULL, &pv, err, sizeof err) ==
          CML_OK);
    cml_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.dev = &f;
    cml_results r;
    cml_results_init(&r);
    CHECK(cml_sweep_run(&cml_exp_cluster_smem, &plan, &pv, &r) == CML_OK);
    CHECK_EQ_U64(r.count, 8);
    for (size_t i = 0; i < r.count; i++) {
        CHECK(r.items[i].state == CML_REC_WAIVED);
        CHECK_STR_CONTAINS(r.items[i].note, "need compute capability 9.0, this device is 8.0");
    }
    /* 167936 / 33856 = 4 blocks per SM on this device: 432 blocks */
    const cml_record *rec = find(&r, "test=bandwidth source=dsmem cluster=2 smem=32");
    if (FOUND(rec))
        CHECK_EQ_U64(rec->grid, 432);
    cml_results_free(&r);
}

static void test_refused(void)
{
    check_refused(&cml_exp_cluster_smem, "cluster", "17", NULL);
    check_refused(&cml_exp_cluster_smem, "cluster", "0", NULL);
    check_refused(&cml_exp_cluster_smem, "smem", "48", NULL);
    check_refused(&cml_exp_cluster_smem, "smem", "256", NULL);
    check_refused(&cml_exp_cluster_smem, "passes", "0", NULL);
    check_refused(&cml_exp_cluster_smem, "test", "throughput", NULL);
}

int main(void)
{
    test_defaults();
    test_bandwidth();
    test_latency();
    test_levels();
    test_waived_before_hopper();
    test_refused();
    return cml_test_summary("test_cluster_smem");
}
