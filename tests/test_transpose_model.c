/*
 * The model side of experiment 17 (matrix transpose), without a GPU: every
 * kernel's predicted global sectors per request, efficiency and shared
 * wavefronts against figures derived by hand in the comments, at the
 * default 8192 x 8192 (traced as five sampled blocks, which must equal the
 * full trace) and at 40 x 33, a size that is neither square nor a multiple
 * of 32 (traced in full).
 */
#include <stdlib.h>
#include <string.h>

#include "lab/common.h"
#include "experiments/transpose/transpose_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "test_util.h"

static const cml_traffic *cls(const cml_record *rec, cml_rules rules, cml_class c)
{
    return &rec->model[rules].cls[c];
}

static void test_registry_entry(void)
{
    const cml_experiment *x = &cml_exp_transpose;
    CHECK(strcmp(x->key, "transpose") == 0);
    CHECK_EQ_I64(x->number, 17);
    CHECK(x->variant != NULL && x->measure != NULL);
    CHECK(x->tour && x->tour[0]);
}

/*
 * 8192 x 8192 floats, block 32x8: a warp is 32 consecutive x of one y.
 * Requests per access: 8192 * 8192 / 32 = 2^21.
 *   copy and the rows of every kernel: 32 floats from a 128-byte aligned
 *   row start (8192 * 4 bytes per row): 4 sectors, 100%.
 *   Columns: lane l at row x0 + l, 32 KiB apart: 32 sectors of 32 bytes for
 *   32 * 4 useful bytes: 12.5%. Fermi's cached load of a column: a 128-byte
 *   line per lane, 4 / 128 = 3.125%.
 *   smem: tile[ty*32 + tx] stores: 32 consecutive words, 1 wavefront;
 *   tile[tx*32 + ty] loads: lane l at word 32l + ty, all in bank ty: 32
 *   distinct words in one bank, 32 wavefronts, 31 conflicts. Padded
 *   (33l + ty): bank (l + ty) mod 32, all different: 1 wavefront.
 */
static void test_square(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_transpose, NULL, &r), CML_OK);
    CHECK_EQ_U64(r.count, 7);
    const uint64_t req = (uint64_t)1 << 21;
    const cml_record *copy = find(&r, "kernel=copy block=32x8 nx=8192 ny=8192");
    const cml_record *row = find(&r, "kernel=naive-row block=32x8 nx=8192 ny=8192");
    const cml_record *col = find(&r, "kernel=naive-col block=32x8 nx=8192 ny=8192");
    const cml_record *urow = find(&r, "kernel=unroll4-row block=32x8 nx=8192 ny=8192");
    const cml_record *ucol = find(&r, "kernel=unroll4-col block=32x8 nx=8192 ny=8192");
    const cml_record *sm = find(&r, "kernel=smem block=32x32 nx=8192 ny=8192");
    const cml_record *pad = find(&r, "kernel=smem-pad block=32x32 nx=8192 ny=8192");
    if (!(FOUND(copy) && FOUND(row) && FOUND(col) && FOUND(urow) && FOUND(ucol) && FOUND(sm) &&
          FOUND(pad))) {
        cml_results_free(&r);
        return;
    }
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        CHECK(rec->state == CML_REC_OK);
        CHECK(rec->has_model);
        CHECK_EQ_U64(rec->bytes_read, 4ull * 8192 * 8192);
        CHECK_EQ_U64(rec->bytes_written, 4ull * 8192 * 8192);
        CHECK_NEAR(extra(rec, "model_blocks_traced"), 5, 0); /* uniform: sampled */
        CHECK_EQ_U64(cls(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD)->requests, req);
        CHECK_EQ_U64(cls(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST)->requests, req);
        CHECK(strlen(rec->finding) > 40 && strlen(rec->finding) < sizeof rec->finding - 1);
    }
    CHECK_EQ_U64(cls(copy, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD)->sectors, 4 * req);
    CHECK_EQ_U64(cls(copy, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST)->sectors, 4 * req);
    /* naive-row: rows in, columns out */
    CHECK_EQ_U64(cls(row, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD)->sectors, 4 * req);
    CHECK_EQ_U64(cls(row, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST)->sectors, 32 * req);
    CHECK_NEAR(cml_exp_eff(row, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST), 0.125, 1e-12);
    CHECK_NEAR(extra(row, "st_sectors_per_req"), 32, 0);
    CHECK_STR_CONTAINS(row->finding, "32.00 sectors per request and 12.5%");
    /* naive-col: columns in, rows out */
    CHECK_EQ_U64(cls(col, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD)->sectors, 32 * req);
    CHECK_EQ_U64(cls(col, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST)->sectors, 4 * req);
    CHECK_NEAR(cml_exp_eff(col, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD), 0.125, 1e-12);
    CHECK_NEAR(cml_exp_eff(col, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD), 0.03125, 1e-12);
    /* unrolled: the same per access, a quarter of the threads */
    CHECK_EQ_U64(cls(urow, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST)->sectors, 32 * req);
    CHECK_EQ_U64(cls(ucol, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD)->sectors, 32 * req);
    CHECK_EQ_U64(urow->grid, (8192 / 128) * (8192 / 8));
    CHECK_EQ_U64(row->grid, (8192 / 32) * (8192 / 8));
    /* tiles: both global sides coalesced */
    for (int p = 0; p < 2; p++) {
        const cml_record *t = p ? pad : sm;
        const cml_traffic *sl = cls(t, CML_RULES_MODERN, CML_CLASS_SHARED_LD);
        const cml_traffic *ss = cls(t, CML_RULES_MODERN, CML_CLASS_SHARED_ST);
        CHECK_EQ_U64(cls(t, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD)->sectors, 4 * req);
        CHECK_EQ_U64(cls(t, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST)->sectors, 4 * req);
        CHECK_EQ_U64(t->block, 1024);
        CHECK_EQ_U64(sl->instructions, req);
        CHECK_EQ_U64(ss->instructions, req);
        CHECK_EQ_U64(ss->wavefronts, req);
        CHECK_EQ_U64(ss->bank_conflicts, 0);
        CHECK_EQ_U64(sl->wavefronts, (p ? 1 : 32) * req);
        CHECK_EQ_U64(sl->bank_conflicts, (p ? 0 : 31) * req);
    }
    /* DRAM reads: in[] (256 MiB, 4x an H100's L2) once. A column kernel's
     * block reads one sector per lane; the other sector of its 64-byte
     * granule belongs to the block a grid row (256 blocks, 512 KiB of L2
     * traffic) later, which finds it in L2: every kernel reads exactly
     * 2^28 bytes, what its window's rates carry when they are taken over
     * whole pairs of rows (a half of rows 3-5 would carry 2/3 of it). */
    for (size_t i = 0; i < r.count; i++) {
        CHECK(r.items[i].has_levels);
        CHECK_EQ_U64(r.items[i].levels.dram_read_bytes, UINT64_C(1) << 28);
    }
    CHECK_STR_CONTAINS(sm->finding, "32.00 wavefronts per request (31.00 conflicts)");
    CHECK_STR_CONTAINS(pad->finding, "1.00 wavefronts per request (0.00 conflicts)");
    cml_results_free(&r);
}

/* The sampled trace must be the full trace: the same variants at 1024 x 512
 * traced both ways (the full grid by cml_exp_trace directly). */
static void test_sampling_is_exact(void)
{
    for (int k = 0; k < CML_TR_KERNEL_COUNT; k++) {
        cml_transpose_args a = {1024, 512, (cml_tr_kernel)k};
        cml_record *s = calloc(1, sizeof *s), *f = calloc(1, sizeof *f);
        CHECK(s && f);
        if (!s || !f) {
            free(s);
            free(f);
            return;
        }
        uint64_t traced = 0;
        const unsigned bx = k % 2 ? 16 : 32, by = k % 2 ? 16 : 8;
        CHECK_EQ_I64(cml_transpose_model(s, &a, bx, by, &traced), CML_OK);
        CHECK_EQ_U64(traced, 5);
        cml_dim3 grid, block;
        cml_tr_shape(k, a.nx, a.ny, bx, by, &grid, &block);
        CHECK_EQ_I64(cml_exp_trace(f, grid, block, cml_transpose_mirror, &a), CML_OK);
        CHECK(memcmp(s->model, f->model, sizeof s->model) == 0);
        free(s);
        free(f);
    }
}

/*
 * 40 x 33 (nx = 40 columns, ny = 33 rows), block 32x8: grid 2 x 5, rows
 * 33..39 idle. Loads: each of the 33 rows is a warp of 32 floats and one of
 * 8 (66 requests); a row is 160 bytes = 5 sectors, starting on a sector:
 * 4 + 1 sectors, 165 in all. naive-row stores: out[x*33 + y], lanes 132
 * bytes apart, every active lane its own sector: 40 * 33 = 1320 sectors,
 * 12.5%.
 * smem (grid 2 x 2 of 32x32): loads as above (66 requests, 165 sectors),
 * 66 shared stores of 1 wavefront. Output side: ox = 32*by + tx < 33,
 * oy = 32*bx + ty < 40. by = 0: 40 full warps (oy = 0..39), 128 bytes from
 * byte 132*oy, i.e. 4*(oy mod 8) into a sector: 4 sectors for oy = 0, 8,
 * 16, 24, 32, else 5: 5*4 + 35*5 = 195; by = 1: only tx = 0, 40 one-lane
 * warps of 1 sector: 235 sectors in 80 requests. Shared loads: the 40 full
 * warps read a column, 32 wavefronts each (1 padded); the 40 one-lane
 * warps 1: 1320 wavefronts, 80 ideal, 1240 conflicts (padded: 80, 0).
 */
static void test_odd_size(void)
{
    cml_results r;
    CHECK_EQ_I64(
        run_model(&cml_exp_transpose, "nx=40 ny=33 kernel=naive-row,smem,smem-pad", &r), CML_OK);
    const cml_record *row = find(&r, "kernel=naive-row block=32x8 nx=40 ny=33");
    const cml_record *sm = find(&r, "kernel=smem block=32x32 nx=40 ny=33");
    const cml_record *pad = find(&r, "kernel=smem-pad block=32x32 nx=40 ny=33");
    if (FOUND(row) && FOUND(sm) && FOUND(pad)) {
        CHECK_NEAR(extra(row, "model_blocks_traced"), 10, 0); /* whole grid */
        CHECK_NEAR(extra(sm, "model_blocks_traced"), 4, 0);
        CHECK_EQ_U64(row->bytes_read, 4 * 40 * 33);
        const cml_traffic *ld = cls(row, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
        const cml_traffic *st = cls(row, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST);
        CHECK_EQ_U64(ld->requests, 66);
        CHECK_EQ_U64(ld->sectors, 165);
        CHECK_EQ_U64(st->requests, 66);
        CHECK_EQ_U64(st->sectors, 1320);
        CHECK_NEAR(cml_traffic_efficiency(st), 0.125, 1e-12);
        for (int p = 0; p < 2; p++) {
            const cml_record *t = p ? pad : sm;
            const cml_traffic *gl = cls(t, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
            const cml_traffic *gs = cls(t, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST);
            const cml_traffic *sl = cls(t, CML_RULES_MODERN, CML_CLASS_SHARED_LD);
            const cml_traffic *ss = cls(t, CML_RULES_MODERN, CML_CLASS_SHARED_ST);
            CHECK_EQ_U64(gl->requests, 66);
            CHECK_EQ_U64(gl->sectors, 165);
            CHECK_EQ_U64(ss->instructions, 66);
            CHECK_EQ_U64(ss->wavefronts, 66);
            CHECK_EQ_U64(gs->requests, 80);
            CHECK_EQ_U64(gs->sectors, 235);
            CHECK_EQ_U64(sl->instructions, 80);
            CHECK_EQ_U64(sl->ideal_wavefronts, 80);
            CHECK_EQ_U64(sl->wavefronts, p ? 80 : 1320);
            CHECK_EQ_U64(sl->bank_conflicts, p ? 0 : 1240);
        }
    }
    cml_results_free(&r);
}

/* The tile kernels ignore the block: one record each, in the first
 * block's sweep, at every matrix size swept. */
static void test_tiles_once(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_transpose, "nx=64,96 block=32x8,16x16", &r), CML_OK);
    CHECK_EQ_U64(r.count, 2 * (5 * 2 + 2));
    static const char *const order[] = {
        "kernel=copy block=32x8 nx=64 ny=64",      "kernel=naive-row block=32x8 nx=64 ny=64",
        "kernel=naive-col block=32x8 nx=64 ny=64", "kernel=unroll4-row block=32x8 nx=64 ny=64",
        "kernel=unroll4-col block=32x8 nx=64 ny=64", "kernel=smem block=32x32 nx=64 ny=64",
        "kernel=smem-pad block=32x32 nx=64 ny=64", "kernel=copy block=16x16 nx=64 ny=64",
    };
    for (size_t i = 0; i < sizeof order / sizeof order[0] && i < r.count; i++)
        CHECK_STR_CONTAINS(r.items[i].variant, order[i]);
    if (r.count == 24)
        CHECK_STR_CONTAINS(r.items[17].variant, "kernel=smem block=32x32 nx=96 ny=96");
    size_t tiles = 0;
    for (size_t i = 0; i < r.count; i++)
        tiles += strstr(r.items[i].variant, "block=32x32") != NULL;
    CHECK_EQ_U64(tiles, 4);
    cml_results_free(&r);
}

/* A bad kernel name or size is refused, naming the option. */
static void test_invalid_params(void)
{
    static const struct { const char *name, *value; } bad[] = {
        {"kernel", "tiled"}, {"block", "64x64"}, {"nx", "-1"}, {"ny", "1000000"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_refused(&cml_exp_transpose, bad[i].name, bad[i].value, NULL);
}

int main(void)
{
    test_registry_entry();
    test_square();
    test_sampling_is_exact();
    test_odd_size();
    test_tiles_once();
    test_invalid_params();
    return cml_test_summary("test_transpose_model");
}
