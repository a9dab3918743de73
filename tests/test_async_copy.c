/*
 * The model side of experiment 21 (async-copy), without a GPU: every path's
 * predicted LSU traffic, the copies cp.async issues, the shared-memory bank
 * pattern of each transpose tile layout, the bytes in flight against
 * Little's law and the residency the reserved shared memory forces, all
 * against figures derived by hand in the comments; the variants a device
 * of compute capability 7.5 or 8.0 cannot run are waived with the reason.
 *
 * Without device facts the model assumes an H100: 132 SMs, 2048 threads and
 * 228 KiB of shared memory per SM, 3352 GB/s; blocks of 256 threads, so 8
 * blocks per SM and a grid of at most 1056 blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "experiments/async_copy/async_copy_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "lab/sweep.h"
#include "experiment_test_util.h"
#include "test_util.h"

static const cml_traffic *cls(const cml_record *rec, cml_class c)
{
    return &rec->model[CML_RULES_MODERN].cls[c];
}

/* Little's law's bytes per SM: 800 ns x 3352 GB/s / 132 SMs, in KiB. */
#define NEEDED_KIB (800e-9 * 3352e9 / 132.0 / 1024.0)

static void test_defaults(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_async_copy, NULL, &r) == CML_OK);
    /* 4 stages x (reg 3 widths + async-ca 3 + async-cg 1 + bulk + tensor)
     * x 2 residencies x 2 workloads: async-cg's widths 4 and 8 do not exist */
    CHECK_EQ_U64(r.count, 4 * 9 * 2 * 2);
    for (size_t i = 0; i < r.count; i++) {
        CHECK(r.items[i].state == CML_REC_OK);
        CHECK(r.items[i].has_model);
    }
    CHECK_EQ_U64(r.ndiags, 0);
    cml_results_free(&r);
}

/*
 * reduce, n = 2^22: 4096 tiles, grid min(1056, 4096) = 1056.
 * reg, width 16, 1 stage: per tile each of 8 warps issues one 16-byte load
 * (512 contiguous bytes: 16 sectors) and one 16-byte shared store (4
 * wavefronts), and the consumer one 16-byte shared load (4 wavefronts).
 *   global_ld: 8 * 4096 = 32768 requests, 524288 sectors.
 *   The epilogue, per block: 8 one-lane 8-byte shared stores, one 8-lane
 *   8-byte shared load (64 bytes: 1 wavefront), one 8-byte global store.
 *   shared_st: 32768 + 8 * 1056 = 41216 instructions, 131072 + 8448 =
 *   139520 wavefronts; shared_ld: 32768 + 1056 = 33824 requests, 131072 +
 *   1056 = 132128 wavefronts; global_st: 1056 requests, 1056 sectors.
 *   In flight: 8 blocks x 1 x 4 KiB = 32 KiB per SM, above 19.8: saturating.
 */
static void test_reduce_reg(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_async_copy,
                    "n=2^22 workload=reduce method=reg width=16 stages=1 resident=0",
                    &r) == CML_OK);
    const cml_record *rec = find(&r, "workload=reduce method=reg width=16 stages=1 resident=0");
    if (FOUND(rec)) {
        CHECK_EQ_U64(rec->grid, 1056);
        CHECK_EQ_U64(rec->bytes_read, 4u << 22);
        CHECK_EQ_U64(rec->bytes_written, 8 * 1056);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->requests, 32768);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 524288);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_ST)->instructions, 41216);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_ST)->wavefronts, 139520);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_LD)->requests, 33824);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_LD)->wavefronts, 132128);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_LD)->bank_conflicts, 0);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_ST)->requests, 1056);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_ST)->sectors, 1056);
        CHECK_NEAR(extra(rec, "tiles"), 4096, 0);
        CHECK_NEAR(extra(rec, "blocks_per_sm"), 8, 0);
        CHECK_NEAR(extra(rec, "pad_smem"), 0, 0);
        CHECK_NEAR(extra(rec, "copy_instr_per_tile"), 16, 0);
        CHECK_NEAR(extra(rec, "staged_reg_bytes"), 16, 0);
        CHECK_NEAR(extra(rec, "smem_st_wavefronts_per_tile"), 32, 0);
        CHECK_NEAR(extra(rec, "smem_ld_wavefronts_per_req"), 4, 0);
        CHECK_NEAR(extra(rec, "inflight_kib_per_sm"), 32, 1e-9);
        CHECK_NEAR(extra(rec, "needed_kib_per_sm"), NEEDED_KIB, 1e-9);
        CHECK_STR_CONTAINS(rec->finding, "16 warp instructions per tile");
        CHECK_STR_CONTAINS(rec->finding, "enough to saturate DRAM");
    }
    cml_results_free(&r);
}

/*
 * cp.async.ca, width 4, 2 stages: no st.shared of the tile, and the
 * copies counted as the global loads they are to L1TEX (an LDGSTS request
 * is one of l1tex__t_requests_pipe_lsu_mem_global_op_ld): 4 per thread per
 * tile, 8 warps: 32 per tile, each 32 lanes x 4 bytes = one 128-byte line,
 * 4 sectors: 32 x 4096 = 131072 requests, 524288 sectors. Shared stores:
 * the epilogue's 8448 alone. In flight: 8 x 2 x 4 KiB = 64 KiB per SM.
 * cp.async.cg exists for 16 bytes only: its width 4 is no record.
 */
static void test_reduce_async(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_async_copy,
                    "n=2^22 workload=reduce method=async-ca width=4 stages=2 resident=0",
                    &r) == CML_OK);
    const cml_record *rec =
        find(&r, "workload=reduce method=async-ca width=4 stages=2 resident=0");
    if (FOUND(rec)) {
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->requests, 131072);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 524288);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_ST)->wavefronts, 8448);
        CHECK_NEAR(extra(rec, "copy_instr_per_tile"), 32, 0);
        CHECK_NEAR(extra(rec, "ldgsts_sectors_per_req"), 4, 0);
        CHECK_NEAR(extra(rec, "staged_reg_bytes"), 0, 0);
        CHECK_NEAR(extra(rec, "smem_st_wavefronts_per_tile"), 0, 0);
        CHECK_NEAR(extra(rec, "inflight_kib_per_sm"), 64, 1e-9);
        CHECK_STR_CONTAINS(rec->finding, "no register, no shared store");
        CHECK_STR_CONTAINS(rec->finding, "loading while it computes");
    }
    cml_results_free(&r);

    CHECK(run_model(&cml_exp_async_copy,
                    "n=2^22 workload=reduce method=async-cg width=4,8,16 stages=1 resident=0",
                    &r) == CML_OK);
    CHECK_EQ_U64(r.count, 1);
    CHECK(r.count == 1 &&
          !strcmp(r.items[0].variant, "workload=reduce method=async-cg width=16 stages=1 "
                                      "resident=0"));
    cml_results_free(&r);

    /* TMA: one instruction per tile, no LSU request; the copy engine's
     * reads are the tile's 128 sectors: 4096 x 128 = 524288. Bulk and
     * tensor have no width. */
    CHECK(run_model(&cml_exp_async_copy, "n=2^22 workload=reduce method=bulk stages=3 resident=0",
                    &r) == CML_OK);
    rec = find(&r, "workload=reduce method=bulk stages=3 resident=0");
    if (FOUND(rec)) {
        CHECK_NEAR(extra(rec, "copy_instr_per_tile"), 1, 0);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->requests, 0);
        CHECK_EQ_U64(rec->model[CML_RULES_MODERN].bulk.sectors, 524288);
        CHECK_STR_CONTAINS(rec->finding, "none from the other 255");
    }
    cml_results_free(&r);
}

/*
 * resident=1: one block per SM, held there by reserving the rest of the
 * SM's 228 KiB: reg, width 16, 4 stages has 4 x 4096 + 64 bytes of static
 * shared memory, plus 1 KiB the system keeps per block: pad = 233472 -
 * 17472 = 216000. Grid 132. In flight: 1 x 4 x 4 KiB = 16 KiB of the
 * 19.84 needed: latency-bound at 16 / 19.84 = 81% at most.
 */
static void test_resident(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_async_copy,
                    "n=2^22 workload=reduce method=reg width=16 stages=4 resident=1",
                    &r) == CML_OK);
    const cml_record *rec = r.count == 1 ? &r.items[0] : NULL;
    if (FOUND(rec)) {
        CHECK_EQ_U64(rec->grid, 132);
        CHECK_NEAR(extra(rec, "blocks_per_sm"), 1, 0);
        CHECK_NEAR(extra(rec, "pad_smem"), 216000, 0);
        CHECK_NEAR(extra(rec, "inflight_kib_per_sm"), 16, 1e-9);
        CHECK_NEAR(extra(rec, "staged_reg_bytes"), 64, 0);
        CHECK_STR_CONTAINS(rec->finding, "latency-bound, ~81% of DRAM at most");
        CHECK_STR_CONTAINS(rec->finding, "1 block x 4 x 4 KiB");
    }
    cml_results_free(&r);
}

/*
 * transpose, n = 2^20: 1024 x 1024, 32 x 32 = 1024 tiles, grid 1024.
 * Consumer, per tile: 8 warps x 4 rows of out[]: 32 shared loads of a tile
 * column (lane l reads row l) and 32 stores of 128 contiguous bytes (4
 * sectors): global_st 32768 requests, 131072 sectors. The column's banks
 * are (l * P + c) mod 32: P = 33 (reg): all 32, 1 wavefront; P = 34
 * (cp.async of 8 bytes): 16 banks, 2; P = 36 (16 bytes, bulk): 8 banks, 4;
 * the tensor map's swizzle: chunk (c/4) ^ (l%8): 8 banks, 4.
 * reg width 4: 4 loads per thread per tile (a warp: one 128-byte row, 4
 * sectors) and 4 scalar stores into rows of 33 (1 wavefront): 32768 load
 * requests, 131072 sectors; 32768 store wavefronts, no conflict.
 * reg width 16: one float4 per thread (a warp: 4 rows of 128 bytes, 16
 * sectors): 8192 requests, 131072 sectors; its 4 scalar stores per thread
 * hit banks (row + 4 (l % 8) + j) mod 32: all different, 1 wavefront.
 * cp.async width 8: 2 copies per thread, 16 per tile, 8 sectors each.
 */
static void test_transpose_layouts(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_async_copy,
                    "n=2^20 workload=transpose method=reg,async-ca,async-cg,bulk,tensor "
                    "width=4,8,16 stages=2 resident=0",
                    &r) == CML_OK);
    CHECK_EQ_U64(r.count, 9);
    static const struct {
        const char *variant;
        double wavefronts;
    } layouts[] = {
        {"workload=transpose method=reg width=4 stages=2 resident=0", 1},
        {"workload=transpose method=reg width=16 stages=2 resident=0", 1},
        {"workload=transpose method=async-ca width=4 stages=2 resident=0", 1},
        {"workload=transpose method=async-ca width=8 stages=2 resident=0", 2},
        {"workload=transpose method=async-ca width=16 stages=2 resident=0", 4},
        {"workload=transpose method=async-cg width=16 stages=2 resident=0", 4},
        {"workload=transpose method=bulk stages=2 resident=0", 4},
        {"workload=transpose method=tensor stages=2 resident=0", 4},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        const cml_record *rec = find(&r, layouts[i].variant);
        if (!FOUND(rec))
            continue;
        CHECK_EQ_U64(rec->grid, 1024);
        CHECK_EQ_U64(rec->bytes_written, 4u << 20);
        CHECK_NEAR(extra(rec, "smem_ld_wavefronts_per_req"), layouts[i].wavefronts, 0);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_LD)->requests, 32768);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_ST)->requests, 32768);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_ST)->sectors, 131072);
    }
    const cml_record *rec = find(&r, "workload=transpose method=reg width=4 stages=2 resident=0");
    if (FOUND(rec)) {
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->requests, 32768);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 131072);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_ST)->wavefronts, 32768);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_ST)->bank_conflicts, 0);
        CHECK_NEAR(extra(rec, "copy_instr_per_tile"), 64, 0);
        CHECK_STR_CONTAINS(rec->finding, "A tile column read takes 1 wavefront.");
    }
    rec = find(&r, "workload=transpose method=reg width=16 stages=2 resident=0");
    if (FOUND(rec)) {
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->requests, 8192);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 131072);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_ST)->instructions, 32768);
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_ST)->bank_conflicts, 0);
    }
    rec = find(&r, "workload=transpose method=async-ca width=8 stages=2 resident=0");
    if (FOUND(rec)) {
        CHECK_EQ_U64(cls(rec, CML_CLASS_SHARED_LD)->bank_conflicts, 32768);
        CHECK_NEAR(extra(rec, "copy_instr_per_tile"), 16, 0);
        CHECK_NEAR(extra(rec, "ldgsts_sectors_per_req"), 8, 0);
        CHECK_STR_CONTAINS(rec->finding, "A tile column read takes 2 wavefronts.");
    }
    cml_results_free(&r);
}

/* The mirror's tensor layout against the swizzle's definition: cell (r, c)
 * of every row r < 8 lands in a different 16-byte chunk for one c, and rows
 * 8 apart in the same one. */
static void test_swizzle(void)
{
    for (unsigned c = 0; c < 32; c++) {
        unsigned seen = 0;
        for (unsigned row = 0; row < 8; row++) {
            unsigned cell = cml_ac_swizzle(row, c);
            CHECK_EQ_U64(cell / 32, row);
            CHECK_EQ_U64(cell % 4, c % 4);
            seen |= 1u << ((cell % 32) / 4);
            CHECK_EQ_U64(cml_ac_swizzle(row + 8, c) % 32, cell % 32);
        }
        CHECK_EQ_U64(seen, 0xFFu);
    }
    CHECK_EQ_U64(cml_ac_pitch(CML_AC_REG, 16), 33);
    CHECK_EQ_U64(cml_ac_pitch(CML_AC_ASYNC_CA, 8), 34);
    CHECK_EQ_U64(cml_ac_pitch(CML_AC_BULK, 0), 36);
    CHECK_EQ_U64(cml_ac_stage_bytes(CML_AC_TRANSPOSE, CML_AC_REG, 4), 32 * 33 * 4);
}

/* A device's facts without a GPU: what it cannot run is waived, with the
 * reason; the rest uses its SMs. */
static cml_status run_with_facts(const char *settings, const cml_device_facts *f, cml_results *r)
{
    cml_param_values pv;
    char err[512] = "";
    cml_status st = cml_lab_options(&cml_exp_async_copy, settings, NULL, &pv, err, sizeof err);
    if (st) {
        fprintf(stderr, "%s\n", err);
        return st;
    }
    cml_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.dev = f;
    cml_results_init(r);
    return cml_sweep_run(&cml_exp_async_copy, &plan, &pv, r);
}

static void test_waivers(void)
{
    cml_device_facts f;
    memset(&f, 0, sizeof f);
    f.cc_major = 8;
    f.cc_minor = 0;
    f.sm_count = 108;
    f.max_threads_per_sm = 2048;
    f.shared_per_sm = 167936;
    f.l2_bytes = 40u << 20;
    cml_results r;
    CHECK(run_with_facts("n=2^22 workload=reduce method=reg,async-ca,bulk,tensor width=16 "
                         "stages=1 resident=0",
                         &f, &r) == CML_OK);
    CHECK_EQ_U64(r.count, 4);
    if (r.count == 4) {
        CHECK(r.items[0].state == CML_REC_OK && r.items[1].state == CML_REC_OK);
        CHECK_EQ_U64(r.items[0].grid, 108 * 8);
        for (int i = 2; i < 4; i++) {
            CHECK(r.items[i].state == CML_REC_WAIVED);
            CHECK_STR_CONTAINS(r.items[i].note, "needs compute capability 9.0, this device is 8.0");
            CHECK(r.items[i].has_model); /* the model still explains it */
        }
    }
    cml_results_free(&r);

    f.cc_major = 7;
    f.cc_minor = 5;
    CHECK(run_with_facts("n=2^22 workload=transpose method=reg,async-cg stages=1 resident=0", &f,
                         &r) == CML_OK);
    CHECK_EQ_U64(r.count, 4); /* reg at widths 4, 8, 16; async-cg at 16 */
    if (r.count == 4) {
        CHECK(r.items[2].state == CML_REC_OK);
        CHECK(r.items[3].state == CML_REC_WAIVED);
        CHECK_STR_CONTAINS(r.items[3].note, "async-cg needs compute capability 8.0");
    }
    cml_results_free(&r);
}

static void test_refused(void)
{
    check_refused(&cml_exp_async_copy, "width", "32", NULL);
    check_refused(&cml_exp_async_copy, "width", "12", NULL);
    check_refused(&cml_exp_async_copy, "stages", "5", NULL);
    check_refused(&cml_exp_async_copy, "resident", "9", NULL);
    check_refused(&cml_exp_async_copy, "method", "ldg", NULL);
    check_refused(&cml_exp_async_copy, "n", "2^30", NULL);
}

int main(void)
{
    test_defaults();
    test_reduce_reg();
    test_reduce_async();
    test_resident();
    test_transpose_layouts();
    test_swizzle();
    test_waivers();
    test_refused();
    return cml_test_summary("test_async_copy");
}
