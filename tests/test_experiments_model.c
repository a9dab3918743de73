/*
 * The model side of experiments 8-14 (pitch2d, local, constant, shuffle,
 * shared-banks, transfers, device-vars), without a GPU: every experiment
 * runs with its defaults and with its tour settings, produces sound records,
 * and predicts the figures derived by hand in the comments below.
 */
#include <stdlib.h>
#include <string.h>

#include "lab/common.h"
#include "experiments/constant/constant_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiments/device_vars/device_vars_body.h"
#include "experiments/local/local_body.h"
#include "experiments/pitch2d/pitch2d_body.h"
#include "experiments/shared_banks/shared_banks_body.h"
#include "experiments/shuffle/shuffle_body.h"
#include "experiments/transfers/transfers.h"
#include "experiments/transpose/transpose_body.h"
#include "experiment_test_util.h"
#include "test_util.h"

static const cml_experiment *const exps[] = {
    &cml_exp_pitch2d, &cml_exp_local,     &cml_exp_constant,    &cml_exp_shuffle,
    &cml_exp_shared_banks, &cml_exp_transfers, &cml_exp_device_vars,
};

static const cml_traffic *cls(const cml_record *rec, cml_class c)
{
    return &rec->model[CML_RULES_MODERN].cls[c];
}

/* Every record of a run: produced, named, explained in one untruncated
 * sentence; traced records carry a model. */
static void check_records(const cml_experiment *x, const cml_results *r)
{
    CHECK(r->count > 0);
    for (size_t i = 0; i < r->count; i++) {
        const cml_record *rec = &r->items[i];
        CHECK(rec->state == CML_REC_OK);
        CHECK(strcmp(rec->experiment, x->key) == 0);
        CHECK(rec->variant[0] != '\0');
        CHECK(rec->nparams > 0);
        CHECK(strlen(rec->finding) > 40);
        CHECK(strlen(rec->finding) < sizeof rec->finding - 1); /* not cut off */
        CHECK(rec->measured == 0);
        const cml_record_param *mode = cml_record_find_param(rec, "mode");
        if (!(mode && strcmp(mode->label, "link") == 0)) /* link arithmetic: no kernel */
            CHECK(rec->has_model);
    }
}

static void test_all_defaults_and_tours(void)
{
    for (size_t i = 0; i < sizeof exps / sizeof exps[0]; i++) {
        const cml_experiment *x = exps[i];
        /* Every row builds its records and model; the GPU measures them. */
        CHECK(x->variant != NULL);
        CHECK(x->number == (int)(8 + i));
        CHECK(x->tour && x->tour[0]);
        cml_results r;
        CHECK_EQ_I64(run_model(x, NULL, &r), CML_OK);
        check_records(x, &r);
        cml_results_free(&r);
        CHECK_EQ_I64(run_model(x, x->tour, &r), CML_OK);
        check_records(x, &r);
        cml_results_free(&r);
    }
}

/*
 * pitch2d, 777 x 555 bytes, block 32x8, one image: each warp is 32
 * consecutive bytes of one row (x = 32*bx + tx, one ty per warp); grid
 * 25 x 70, rows >= 555 idle. Loads per layout: 555 rows x 25 column blocks
 * = 13875 requests.
 * pad128 (pitch 896): every row starts 128-aligned, so a warp's 32 bytes
 * (or the 9 bytes of the last column block, at byte 768) sit in 1 sector:
 * 13875 sectors.
 * unpadded (pitch 777 = 24*32 + 9): row y starts at 9y mod 32 into a sector.
 * Column blocks 0..23 need 1 sector iff 9y = 0 mod 32, i.e. y = 0, 32, ...,
 * 544 (18 rows), else 2: 24 * (2*555 - 18) = 26208. Block 24 (9 bytes at
 * 9y mod 32) straddles iff 9y mod 32 >= 24: 8 residues of 32 per full cycle
 * (17 cycles: 136) plus y = 544..554 (residues 27, 31, 26: 3) = 139, so
 * 555 + 139 = 694. Total 26208 + 694 = 26902 sectors, 1.94 per request.
 * A batch of 3 images starts each image on a 512-byte boundary (image
 * stride = 777 * 555 = 431235 B rounded up to 431616): three times the
 * traffic of one image, exactly.
 * Without a GPU and with images=0 the batch fills the model's default array
 * of 2^24 bytes: ceil(16777216 / 431235) = 39 u8 images, and
 * ceil(16777216 / (3108 * 555 = 1724940)) = 10 f32 images.
 */
static void test_pitch2d(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_pitch2d, "type=u8 block=32x8 images=1", &r), CML_OK);
    const cml_record *un = find(&r, "width=777 height=555 type=u8 layout=unpadded block=32x8");
    const cml_record *p128 = find(&r, "width=777 height=555 type=u8 layout=pad128 block=32x8");
    const cml_record *pitch = find(&r, "width=777 height=555 type=u8 layout=pitch block=32x8");
    const cml_record *p32 = find(&r, "width=777 height=555 type=u8 layout=pad32 block=32x8");
    if (FOUND(un) && FOUND(p128) && FOUND(pitch) && FOUND(p32)) {
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_LD)->requests, 13875);
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_LD)->sectors, 26902);
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_ST)->sectors, 26902);
        CHECK_EQ_U64(cls(p128, CML_CLASS_GLOBAL_LD)->requests, 13875);
        CHECK_EQ_U64(cls(p128, CML_CLASS_GLOBAL_LD)->sectors, 13875);
        CHECK_EQ_U64(cls(p32, CML_CLASS_GLOBAL_LD)->sectors, 13875);
        CHECK_EQ_U64(un->bytes_read, 777u * 555u);
        CHECK_EQ_U64(un->grid, 25u * 70u);
        CHECK_NEAR(extra(un, "pitch_bytes"), 777, 0);
        CHECK_NEAR(extra(un, "overhead"), 0, 1e-9);
        CHECK_NEAR(extra(un, "rows_sector_aligned"), 18, 0);
        CHECK_NEAR(extra(un, "batch_bytes"), 431616, 0);
        CHECK_NEAR(extra(p128, "pitch_bytes"), 896, 0);
        CHECK_NEAR(extra(p128, "alloc_bytes"), 896.0 * 555, 0);
        CHECK_NEAR(extra(p128, "overhead"), 100.0 * 119 / 777, 1e-9);
        CHECK_NEAR(extra(p32, "pitch_bytes"), 800, 0);
        CHECK_NEAR(extra(pitch, "pitch_bytes"), 1024, 0); /* 512-byte alignment assumed */
        CHECK_STR_CONTAINS(pitch->finding, "512 B alignment assumed");
        CHECK_STR_CONTAINS(un->finding, "1.94 sectors per load request");
        CHECK_STR_CONTAINS(un->finding, "18 of 555 rows");
    }
    cml_results_free(&r);

    CHECK_EQ_I64(run_model(&cml_exp_pitch2d, "type=u8 block=32x8 layout=unpadded images=3", &r),
                 CML_OK);
    un = find(&r, "width=777 height=555 type=u8 layout=unpadded block=32x8");
    if (FOUND(un)) {
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_LD)->requests, 3 * 13875);
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_LD)->sectors, 3 * 26902);
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_ST)->sectors, 3 * 26902);
        CHECK_EQ_U64(un->bytes_written, 3u * 777u * 555u);
        CHECK_EQ_U64(un->grid, 3u * 25u * 70u);
        CHECK_NEAR(extra(un, "batch_bytes"), 3.0 * 431616, 0);
        CHECK_STR_CONTAINS(un->finding, "1.94 sectors per load request");
    }
    cml_results_free(&r);

    /* The compulsory DRAM reads, the lower bound of DRAM reads (the span
     * pass counts the granules the loads touch; docs/model.md §16.8): with
     * cudaMallocPitch's 1024-byte rows a row's 777 bytes lie in granules
     * 0..12 of 64 bytes (832 B), and the images (1024 x 555 bytes apart)
     * share none: 4 x 555 x 832 = 1847040 B, though the sampled point
     * reads more (its window's rates). */
    CHECK_EQ_I64(run_model(&cml_exp_pitch2d, "type=u8 block=32x8 layout=pitch images=4", &r),
                 CML_OK);
    pitch = find(&r, "width=777 height=555 type=u8 layout=pitch block=32x8");
    if (FOUND(pitch)) {
        CHECK(pitch->has_levels && pitch->levels.bounded);
        CHECK_EQ_U64(pitch->levels.lo.dram_read_bytes, 4u * 555u * 832u);
        CHECK(pitch->levels.dram_read_bytes >= pitch->levels.lo.dram_read_bytes);
    }
    cml_results_free(&r);

    CHECK_EQ_I64(run_model(&cml_exp_pitch2d, "block=32x8 layout=unpadded", &r), CML_OK);
    const cml_record *u8 = find(&r, "width=777 height=555 type=u8 layout=unpadded block=32x8");
    const cml_record *f32 = find(&r, "width=777 height=555 type=f32 layout=unpadded block=32x8");
    if (FOUND(u8) && FOUND(f32)) {
        CHECK_EQ_I64(cml_record_find_param(u8, "images")->value, 39);
        CHECK_EQ_I64(cml_record_find_param(f32, "images")->value, 10);
    }
    cml_results_free(&r);

    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(0, 3108, 512), 3108);
    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(1, 3108, 512), 3584);
    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(2, 3108, 512), 3136);
    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(3, 3108, 512), 3200);
    CHECK_EQ_U64(cml_pitch2d_image_stride_bytes(896, 555), 497664);  /* 497280 -> 972 * 512 */
    CHECK_EQ_U64(cml_pitch2d_image_stride_bytes(1024, 555), 568320); /* already a multiple */
}

/*
 * local: physical(l, o) = (o/4 * 32 + l) * 4. Same index: the 32 lanes'
 * words are 128 contiguous bytes, 4 sectors. Lane-varying, K >= 32: 32
 * different offsets, each in its own 128-byte row: 32 sectors. K = 8: 8
 * offsets, each shared by lanes c, c+8, c+16, c+24, which land in sectors
 * c/8 .. c/8 + 3 of their row: still 32. n = 2^20 fills every warp.
 * Register twins: no local access, the same in[] and out[] traffic.
 * Spill: ptxas's spill bytes per thread (from the build-time table), each
 * 4-byte slot one same-index store and load: 4 sectors per request, so
 * sectors per warp = spill bytes per thread. The array kernels' frames hold
 * arr[256]: at least 1024 bytes of stack, and no spills.
 */
static void test_local(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_local, "K=8,32,64,256", &r), CML_OK);
    const unsigned ks[] = {8, 32, 64, 256};
    const uint64_t warps = ((uint64_t)1 << 20) / 32;
    for (size_t i = 0; i < 4; i++) {
        char v[96];
        snprintf(v, sizeof v, "pattern=same-index K=%u block=256 impl=local", ks[i]);
        const cml_record *same = find(&r, v);
        snprintf(v, sizeof v, "pattern=lane-varying K=%u block=256 impl=local", ks[i]);
        const cml_record *lane = find(&r, v);
        snprintf(v, sizeof v, "pattern=struct K=%u block=256 impl=local", ks[i]);
        const cml_record *st = find(&r, v);
        snprintf(v, sizeof v, "pattern=lane-varying K=%u block=256 impl=registers", ks[i]);
        const cml_record *twin = find(&r, v);
        if (!FOUND(same) || !FOUND(lane) || !FOUND(st) || !FOUND(twin))
            continue;
        CHECK_EQ_U64(cls(same, CML_CLASS_LOCAL_LD)->requests, warps);
        CHECK_EQ_U64(cls(same, CML_CLASS_LOCAL_LD)->sectors, 4 * warps);
        CHECK_EQ_U64(cls(lane, CML_CLASS_LOCAL_LD)->sectors, 32 * warps);
        CHECK_EQ_U64(cls(st, CML_CLASS_LOCAL_LD)->sectors, 32 * warps);
        /* K stores per thread, each one index for the whole warp; with
         * K = 256 the trace runs in pieces and must still add up. */
        CHECK_EQ_U64(cls(same, CML_CLASS_LOCAL_ST)->requests, ks[i] * warps);
        CHECK_EQ_U64(cls(lane, CML_CLASS_LOCAL_ST)->sectors, 4 * ks[i] * warps);
        CHECK_EQ_U64(cls(same, CML_CLASS_GLOBAL_LD)->sectors, 4 * warps);
        CHECK_NEAR(cml_traffic_efficiency(cls(lane, CML_CLASS_LOCAL_LD)), 0.125, 1e-12);
        CHECK_NEAR(extra(same, "local_bytes"), 32.0 * (4 + 4 * ks[i]) * warps, 0);
        CHECK_STR_CONTAINS(same->finding, "4.00 sectors per local load request");
        CHECK_STR_CONTAINS(lane->finding, "32.00 sectors per local load request");
        CHECK_EQ_U64(cls(twin, CML_CLASS_LOCAL_LD)->requests, 0);
        CHECK_EQ_U64(cls(twin, CML_CLASS_LOCAL_ST)->requests, 0);
        CHECK_EQ_U64(cls(twin, CML_CLASS_GLOBAL_LD)->sectors, 4 * warps);
        CHECK_EQ_U64(cls(twin, CML_CLASS_GLOBAL_ST)->sectors, 4 * warps);
#if !defined(CML_NO_CUDA) /* ptxas's figures: none in a build without CUDA */
        CHECK(extra(same, "stack_bytes") >= 1024);
        CHECK_NEAR(extra(same, "spill_stores"), 0, 0);
        CHECK_NEAR(extra(twin, "stack_bytes"), 0, 0);
#endif
    }

#if defined(CML_NO_CUDA)
    /* Without CUDA there is no ptxas: an empty table that says so, and the
     * spill kernel's traffic is not modelled (a note says so, not a 0). */
    CHECK_EQ_U64(cml_local_ptxas_count, 0);
    CHECK_STR_CONTAINS(cml_local_ptxas_status, "without CUDA");
    const cml_record *nospill = find(&r, "pattern=spill block=256 impl=local");
    CHECK(nospill && strstr(nospill->note, "no ptxas figures"));
    cml_results_free(&r);
    return;
#endif
    /* The build-time ptxas table: every kernel of local_body.h is there. */
    if (cml_local_ptxas_status[0])
        fprintf(stderr, "ptxas table: %s\n", cml_local_ptxas_status);
    CHECK(cml_local_ptxas_status[0] == '\0');
    CHECK(cml_local_ptxas_count >= 8);
    const cml_ptxas_entry *sp = cml_local_ptxas_find("local_spill");
    const cml_ptxas_entry *sr = cml_local_ptxas_find("local_spill_regs");
    const cml_ptxas_entry *ar = cml_local_ptxas_find("local_struct");
    CHECK(sp && sr && ar);
    const cml_record *spill = find(&r, "pattern=spill block=256 impl=local");
    const cml_record *spill_twin = find(&r, "pattern=spill block=256 impl=registers");
    if (sp && sr && ar && FOUND(spill) && FOUND(spill_twin)) {
        CHECK(sp->regs <= 32);                 /* __maxnreg__(32) */
        CHECK(sp->spill_store_bytes > 0);
        CHECK(sp->spill_load_bytes > 0);
        CHECK(sr->regs <= 64);                 /* __launch_bounds__(1024, 1) */
        CHECK_EQ_U64(sr->spill_store_bytes, 0);
        CHECK_EQ_U64(sr->stack_bytes, 0);
        CHECK(ar->stack_bytes >= 1024);
        CHECK_STR_CONTAINS(sp->mangled, "local_spill");
        CHECK_EQ_U64(cls(spill, CML_CLASS_LOCAL_ST)->sectors, warps * sp->spill_store_bytes);
        CHECK_EQ_U64(cls(spill, CML_CLASS_LOCAL_LD)->sectors, warps * sp->spill_load_bytes);
        CHECK_EQ_U64(cls(spill, CML_CLASS_LOCAL_ST)->requests, warps * sp->spill_store_bytes / 4);
        CHECK_NEAR(extra(spill, "spill_stores"), sp->spill_store_bytes, 0);
        CHECK_NEAR(extra(spill, "regs"), sp->regs, 0);
        CHECK_EQ_U64(cls(spill_twin, CML_CLASS_LOCAL_LD)->requests, 0);
        CHECK_EQ_I64(cml_record_find_param(spill, "K")->value, 48);
    }
    cml_results_free(&r);
}

/* constant: lane l reads c_tab[(l % k) * stride]: k distinct addresses, so
 * k serialized accesses per warp read; the stencil's coefficients are
 * warp-uniform: 1 per read (constant), 1 sector per request (global).
 * Lines of the k addresses (bytes 4 * stride * l, l < k): stride 1, k = 32:
 * bytes 0..124, 1 line; stride 3, k = 32: bytes 0..372, lines 0..2 = 3;
 * stride 3, k = 8: bytes 0..84, 1 line; stride 3, k = 16: 0..180, 2.
 * n = 0 without a GPU: the serial kernel is L2-resident, half of an
 * assumed 16 MiB for two float arrays = 2^21 floats each; the stencil
 * streams the DRAM default, 2^24 floats. */
static void test_constant(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_constant, "stride=1,3 n=2^20", &r), CML_OK);
    const unsigned ks[] = {1, 2, 4, 8, 16, 32};
    const unsigned lines3[] = {1, 1, 1, 1, 2, 3};
    for (size_t i = 0; i < 6; i++) {
        for (unsigned stride = 1; stride <= 3; stride += 2) {
            char v[96];
            snprintf(v, sizeof v, "pattern=serial k=%u stride=%u block=256", ks[i], stride);
            const cml_record *rec = find(&r, v);
            if (!FOUND(rec))
                continue;
            const cml_traffic *c = cls(rec, CML_CLASS_CONST_LD);
            CHECK_EQ_U64(c->instructions, ((uint64_t)1 << 20) / 32);
            CHECK_EQ_U64(c->serialized, ks[i] * c->instructions);
            CHECK_NEAR(extra(rec, "serialized_per_read"), ks[i], 0);
            CHECK_NEAR(extra(rec, "lines_per_read"), stride == 1 ? 1 : lines3[i], 0);
            CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 4 * c->instructions);
        }
    }
    const cml_record *sc = find(&r, "pattern=stencil coef=constant block=256");
    const cml_record *sr = find(&r, "pattern=stencil coef=readonly block=256");
    const cml_record *sg = find(&r, "pattern=stencil coef=global block=256");
    if (FOUND(sc) && FOUND(sr) && FOUND(sg)) {
        const uint64_t warps = ((uint64_t)1 << 20) / 32, blocks = ((uint64_t)1 << 20) / 256;
        const cml_traffic *c = cls(sc, CML_CLASS_CONST_LD);
        CHECK_EQ_U64(c->instructions, 9 * warps);
        CHECK_EQ_U64(c->serialized, c->instructions);
        /* Tile: one store per warp plus two halo stores per block, nine
         * loads per warp, all conflict-free. */
        CHECK_EQ_U64(cls(sc, CML_CLASS_SHARED_ST)->instructions, warps + 2 * blocks);
        CHECK_EQ_U64(cls(sc, CML_CLASS_SHARED_LD)->instructions, 9 * warps);
        CHECK_EQ_U64(cls(sc, CML_CLASS_SHARED_LD)->bank_conflicts, 0);
        CHECK_EQ_U64(cls(sc, CML_CLASS_SHARED_LD)->wavefronts, 9 * warps);
        /* in[]: 4 sectors per warp (aligned), 1 per halo load. */
        CHECK_EQ_U64(cls(sc, CML_CLASS_GLOBAL_LD)->sectors, 4 * warps + 2 * blocks);
        /* read-only and plain: 9 more uniform loads per warp, 1 sector each. */
        CHECK_EQ_U64(cls(sr, CML_CLASS_GLOBAL_LD)->instructions, warps + 2 * blocks + 9 * warps);
        CHECK_EQ_U64(cls(sr, CML_CLASS_GLOBAL_LD)->sectors, 4 * warps + 2 * blocks + 9 * warps);
        CHECK_NEAR(extra(sc, "coef_accesses_per_read"), 1, 0);
        CHECK_NEAR(extra(sr, "coef_sectors_per_read"), 1, 0);
        CHECK_NEAR(extra(sg, "coef_sectors_per_read"), 1, 0);
        CHECK_EQ_U64(cls(sr, CML_CLASS_CONST_LD)->instructions, 0);
        CHECK_STR_CONTAINS(sr->finding, "12.5%");
    }
    cml_results_free(&r);

    CHECK_EQ_I64(run_model(&cml_exp_constant, "k=32 block=256", &r), CML_OK);
    const cml_record *s1 = find(&r, "pattern=serial k=32 stride=1 block=256");
    const cml_record *s32 = find(&r, "pattern=serial k=32 stride=32 block=256");
    const cml_record *st = find(&r, "pattern=stencil coef=constant block=256");
    if (FOUND(s1) && FOUND(s32) && FOUND(st)) {
        CHECK_EQ_I64(cml_record_find_param(s1, "n")->value, (int64_t)1 << 21);
        CHECK_EQ_I64(cml_record_find_param(st, "n")->value, (int64_t)1 << 24);
        CHECK_NEAR(extra(s1, "lines_per_read"), 1, 0);
        CHECK_NEAR(extra(s32, "lines_per_read"), 32, 0); /* 128 B apart */
        CHECK_NEAR(extra(s32, "span_bytes"), 31 * 128 + 4, 0);
    }
    cml_results_free(&r);
}

static void test_shuffle(void)
{
    /* PTX shfl.sync source lanes, width 32 and 8. */
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_XOR, 0, 1, 32), 1);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_XOR, 5, 1, 32), 4);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_XOR, 3, 16, 32), 19);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_XOR, 0, 8, 8), 0);  /* later group: own value */
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_XOR, 8, 8, 8), 0);  /* earlier group: allowed */
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_UP, 9, 1, 8), 8);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_UP, 8, 1, 8), 8);   /* first of its group */
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_UP, 0, 3, 32), 0);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_DOWN, 6, 1, 8), 7);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_DOWN, 7, 1, 8), 7);  /* last of its group */
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_DOWN, 31, 1, 32), 31);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_BROADCAST, 13, 1, 8), 9);
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_BROADCAST, 13, 9, 8), 9); /* src taken mod width */
    CHECK_EQ_U64(cml_shfl_source(CML_SHFL_BROADCAST, 30, 0, 32), 0);

    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_shuffle, NULL, &r), CML_OK);
    const cml_record *tree = find(&r, "op=reduce-smem block=256");
    const cml_record *shfl = find(&r, "op=reduce-shfl block=256");
    const cml_record *wtree = find(&r, "op=warp-reduce-smem block=256");
    const cml_record *wshfl = find(&r, "op=warp-reduce-shfl block=256");
    const cml_record *x32 = find(&r, "op=xor width=32 arg=1 block=256");
    const cml_record *up8 = find(&r, "op=up width=8 arg=1 block=256");
    if (FOUND(tree) && FOUND(shfl) && FOUND(wtree) && FOUND(wshfl) && FOUND(x32) &&
        FOUND(up8)) {
        /* n = 0 without a GPU: the model's default of 2^24 words per array.
         * Block of 256 = 8 warps. Tree: 8 stores; levels s = 128, 64, 32
         * issue 4, 2, 1 warps x 3 instructions; s = 16..1 one warp x 3 each
         * (5 levels); one final load: 8 + 21 + 15 + 1 = 45. Shuffle: 8
         * one-lane stores + 1 load by warp 0 = 9. */
        const uint64_t n = (uint64_t)1 << 24, blocks = n / 256, warps = n / 32;
        const cml_traffic *tl = cls(tree, CML_CLASS_SHARED_LD), *ts = cls(tree, CML_CLASS_SHARED_ST);
        CHECK_EQ_U64(tl->instructions + ts->instructions, 45 * blocks);
        CHECK_EQ_U64(tl->bank_conflicts + ts->bank_conflicts, 0);
        const cml_traffic *sl = cls(shfl, CML_CLASS_SHARED_LD), *ss = cls(shfl, CML_CLASS_SHARED_ST);
        CHECK_EQ_U64(sl->instructions + ss->instructions, 9 * blocks);
        CHECK_EQ_U64(cls(tree, CML_CLASS_GLOBAL_ST)->sectors, blocks);
        CHECK_EQ_U64(tree->bytes_read, 4 * n);
        CHECK_EQ_U64(tree->bytes_written, 4 * blocks);
        CHECK_NEAR(extra(tree, "syncthreads_per_block"), 9, 0);
        CHECK_STR_CONTAINS(tree->finding, "45.0 shared instructions");
        CHECK_STR_CONTAINS(shfl->finding, "9.0 shared instructions");
        /* Warp sums. Tree per warp: 1 store, 5 levels of 3 (lanes < 16, 8,
         * 4, 2, 1: contiguous words, 1 wavefront each), 1 final load by
         * lane 0: 17 instructions, 17 wavefronts. Shuffles: none. Each warp
         * stores one word: one request of one sector per warp. */
        const cml_traffic *wl = cls(wtree, CML_CLASS_SHARED_LD);
        const cml_traffic *ws = cls(wtree, CML_CLASS_SHARED_ST);
        CHECK_EQ_U64(wl->instructions + ws->instructions, 17 * warps);
        CHECK_EQ_U64(wl->wavefronts + ws->wavefronts, 17 * warps);
        CHECK_EQ_U64(wl->bank_conflicts + ws->bank_conflicts, 0);
        CHECK_EQ_U64(cls(wshfl, CML_CLASS_SHARED_LD)->instructions, 0);
        CHECK_EQ_U64(cls(wshfl, CML_CLASS_SHARED_ST)->instructions, 0);
        CHECK_EQ_U64(cls(wshfl, CML_CLASS_GLOBAL_ST)->requests, warps);
        CHECK_EQ_U64(cls(wshfl, CML_CLASS_GLOBAL_ST)->sectors, warps);
        CHECK_EQ_U64(wshfl->bytes_written, 4 * warps);
        CHECK_NEAR(extra(wtree, "smem_instr_per_warp"), 17, 0);
        CHECK_STR_CONTAINS(wtree->finding, "17.0 shared instructions per warp");
        CHECK_STR_CONTAINS(wshfl->finding, "0.0 shared instructions per warp");
        /* Permutations: in[] and out[] only. */
        CHECK_EQ_U64(cls(x32, CML_CLASS_SHARED_LD)->instructions, 0);
        CHECK_EQ_U64(cls(x32, CML_CLASS_GLOBAL_LD)->sectors,
                     4 * cls(x32, CML_CLASS_GLOBAL_LD)->requests);
        CHECK_STR_CONTAINS(x32->finding, "__shfl_xor_sync(mask, v, 1, 32): butterfly, lane l gets "
                                         "lane l^1");
        CHECK_STR_CONTAINS(x32->finding, "1,0,3,2,5,4,7,6");
        CHECK_STR_CONTAINS(up8->finding, "0,0,1,2,3,4,5,6; 4 of 32 lanes keep");
    }
    cml_results_free(&r);

    /* A partial last warp: n = 100 words, block 32: warps of 32, 32, 32, 4.
     * The warp sums store ceil(100/32) = 4 words; the tree's last warp has
     * 4 loads from in[] but all 32 lanes in shared memory. */
    CHECK_EQ_I64(run_model(&cml_exp_shuffle, "n=100 block=32 op=warp-reduce-smem,warp-reduce-shfl",
                           &r), CML_OK);
    wtree = find(&r, "op=warp-reduce-smem block=32");
    wshfl = find(&r, "op=warp-reduce-shfl block=32");
    if (FOUND(wtree) && FOUND(wshfl)) {
        CHECK_EQ_U64(cls(wtree, CML_CLASS_GLOBAL_LD)->requests, 4);
        CHECK_EQ_U64(cls(wtree, CML_CLASS_GLOBAL_LD)->lane_bytes, 400);
        CHECK_EQ_U64(cls(wtree, CML_CLASS_SHARED_ST)->instructions, 4 * 6);
        CHECK_EQ_U64(cls(wshfl, CML_CLASS_GLOBAL_ST)->requests, 4);
        CHECK_EQ_U64(wshfl->bytes_written, 16);
    }
    cml_results_free(&r);
}

/* Wavefronts and conflicts per request of one record's shared loads and
 * stores (docs/model.md §5, worked examples). */
static void check_banks(const cml_results *r, const char *variant, double ld_wf, double ld_conf,
                        double st_wf)
{
    const cml_record *rec = find(r, variant);
    if (!FOUND(rec))
        return;
    const cml_traffic *ld = cls(rec, CML_CLASS_SHARED_LD), *st = cls(rec, CML_CLASS_SHARED_ST);
    CHECK(ld->instructions > 0);
    CHECK_NEAR((double)ld->wavefronts / (double)ld->instructions, ld_wf, 0);
    CHECK_NEAR((double)ld->bank_conflicts / (double)ld->instructions, ld_conf, 0);
    CHECK_NEAR((double)st->wavefronts / (double)st->instructions, st_wf, 0);
}

static void test_shared_banks(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_shared_banks, "alloc=static,dynamic", &r), CML_OK);
    /* 32x32 ints, rows written, columns read: lanes 32 words apart, one
     * bank, 32-way; one word of padding makes the step 33: no conflict. */
    check_banks(&r, "pattern=tile tile=32x32 access=row-col pad=0 alloc=static", 32, 31, 1);
    check_banks(&r, "pattern=tile tile=32x32 access=row-col pad=1 alloc=static", 1, 0, 1);
    check_banks(&r, "pattern=tile tile=32x32 access=row-col pad=0 alloc=dynamic", 32, 31, 1);
    check_banks(&r, "pattern=tile tile=32x32 access=col-row pad=0 alloc=static", 1, 0, 32);
    check_banks(&r, "pattern=tile tile=32x32 access=row-row pad=0 alloc=static", 1, 0, 1);
    check_banks(&r, "pattern=tile tile=32x32 access=col-col pad=1 alloc=static", 1, 0, 1);
    /* Step 34: lanes l and l+16 share bank 2l mod 32: 2-way. */
    check_banks(&r, "pattern=tile tile=32x32 access=row-col pad=2 alloc=static", 2, 1, 1);
    /* 32x16: a column read covers two columns of 16 rows: 16-way; pad 1
     * overlaps the two halves (2-way); the textbook's pad 2 separates them. */
    check_banks(&r, "pattern=tile tile=32x16 access=row-col pad=0 alloc=static", 16, 15, 1);
    check_banks(&r, "pattern=tile tile=32x16 access=row-col pad=1 alloc=static", 2, 1, 1);
    check_banks(&r, "pattern=tile tile=32x16 access=row-col pad=2 alloc=static", 1, 0, 1);
    /* 16x32 rows of 17: the warp's second row starts at bank 17, so word 32
     * meets word 0's bank: the padding costs the row access a conflict. */
    check_banks(&r, "pattern=tile tile=16x32 access=row-row pad=1 alloc=static", 2, 1, 2);
    /* Strides of 4-byte words: gcd(stride, 32)-way. */
    check_banks(&r, "pattern=stride elem=4 stride=1", 1, 0, 1);
    check_banks(&r, "pattern=stride elem=4 stride=2", 2, 1, 2);
    check_banks(&r, "pattern=stride elem=4 stride=3", 1, 0, 1);
    check_banks(&r, "pattern=stride elem=4 stride=8", 8, 7, 8);
    check_banks(&r, "pattern=stride elem=4 stride=32", 32, 31, 32);
    check_banks(&r, "pattern=stride elem=4 stride=33", 1, 0, 1);
    /* 8-byte: half-warp phases, 2 wavefronts at best; 16-byte: 4. */
    check_banks(&r, "pattern=stride elem=8 stride=1", 2, 0, 2);
    check_banks(&r, "pattern=stride elem=8 stride=2", 4, 2, 4);
    check_banks(&r, "pattern=stride elem=8 stride=4", 8, 6, 8);
    check_banks(&r, "pattern=stride elem=16 stride=1", 4, 0, 4);
    check_banks(&r, "pattern=stride elem=16 stride=2", 8, 4, 8);
    check_banks(&r, "pattern=stride elem=16 stride=4", 16, 12, 16);
    const cml_record *s2 = find(&r, "pattern=stride elem=4 stride=2");
    if (FOUND(s2)) {
        CHECK_STR_CONTAINS(s2->finding, "lanes l and l+16 share bank (2*l) mod 32 -> 2-way");
        CHECK_STR_CONTAINS(s2->finding, "2.00 wavefronts per request");
    }
    const cml_record *t0 = find(&r, "pattern=tile tile=32x32 access=row-col pad=0 alloc=static");
    if (FOUND(t0)) {
        CHECK_STR_CONTAINS(t0->finding, "loads 32.00 (31.00)");
        /* The kernel repeats store + load iters = 256 times: 1024 blocks x
         * 32 warps x 256 rounds loads, 32 wavefronts each; one global
         * store per warp. Model slowdown: (1 + 32) / (1 + 1) wavefronts. */
        const uint64_t ins = 1024ull * 32 * 256;
        CHECK_EQ_U64(cls(t0, CML_CLASS_SHARED_LD)->instructions, ins);
        CHECK_EQ_U64(cls(t0, CML_CLASS_SHARED_LD)->wavefronts, 32 * ins);
        CHECK_EQ_U64(cls(t0, CML_CLASS_SHARED_ST)->wavefronts, ins);
        CHECK_EQ_U64(cls(t0, CML_CLASS_GLOBAL_ST)->requests, 1024ull * 32);
        CHECK_NEAR(extra(t0, "predicted_slowdown"), 16.5, 1e-12);
    }
    /* Strides: blocks of up to 8 warps within 48 KiB of shared memory:
     * stride 32 of words is 4 KiB per warp -> 8 warps; 16-byte stride 4 is
     * 2 KiB per warp -> 8 warps. Loads: 1024 blocks x 8 warps x 256. */
    const cml_record *s32 = find(&r, "pattern=stride elem=4 stride=32");
    const cml_record *w4 = find(&r, "pattern=stride elem=16 stride=4");
    if (FOUND(s32) && FOUND(w4)) {
        const uint64_t ins = 1024ull * 8 * 256;
        CHECK_EQ_U64(s32->block, 256);
        CHECK_EQ_U64(cls(s32, CML_CLASS_SHARED_LD)->instructions, ins);
        CHECK_EQ_U64(cls(s32, CML_CLASS_SHARED_LD)->wavefronts, 32 * ins);
        CHECK_EQ_U64(s32->bytes_written, 4ull * 256 * 1024);
        CHECK_NEAR(extra(s32, "predicted_slowdown"), 32, 1e-12);
        CHECK_EQ_U64(cls(w4, CML_CLASS_SHARED_ST)->wavefronts, 16 * ins);
        CHECK_NEAR(extra(w4, "predicted_slowdown"), 4, 1e-12); /* 16 of 4 ideal */
        CHECK_EQ_U64(cls(w4, CML_CLASS_GLOBAL_ST)->sectors, 1024ull * 8 * 16); /* 512 B a warp */
    }
    cml_results_free(&r);

    /* The block size of a stride kernel: 48 KiB / (32 * stride * elem)
     * warps, 1 to 8. */
    CHECK_EQ_U64(cml_banks_stride_block(4, 1), 256);
    CHECK_EQ_U64(cml_banks_stride_block(4, 64), 192);   /* 8 KiB per warp: 6 */
    CHECK_EQ_U64(cml_banks_stride_block(16, 32), 96);   /* 16 KiB: 3 */
    CHECK_EQ_U64(cml_banks_stride_block(16, 128), 32);  /* 64 KiB: at least 1 */
    /* Tile arithmetic shared by kernels, checker and mirror: square tile,
     * rows written, columns read: thread t gets what thread
     * writer(cell(t)) wrote = the transposed thread; after 2 rounds back
     * to itself: value = out index + 2. */
    CHECK_EQ_U64(cml_banks_cell(33, 32, 32, 33, 1), 1 * 33 + 1);
    CHECK_EQ_U64(cml_banks_writer(cml_banks_cell(5, 32, 32, 32, 1), 32, 32, 32, 0), 5 * 32);
    CHECK_EQ_U64(cml_banks_tile_value(3, 5, 32, 32, 32, 0, 1, 1), 3 * 1024 + 160 + 1);
    CHECK_EQ_U64(cml_banks_tile_value(3, 5, 32, 32, 32, 0, 1, 2), 3 * 1024 + 5 + 2);
    /* 32x16 tile, rows written, columns read: t = 1 reads cell (1, 0) =
     * word P = 32, written by thread 32 (row 1, column 0). */
    CHECK_EQ_U64(cml_banks_tile_value(0, 1, 32, 16, 32, 0, 1, 1), 32 + 1);
}

/*
 * transfers. Link: GT/s x lanes x 128/130 / 8. Zero-copy, per warp request
 * of 32 floats (128 useful bytes) with 20-30 B of PCIe overhead per 32 B
 * sector: coalesced 4 sectors -> 128 / (4 x 62..52) = 51.6-61.5%;
 * misaligned by 44 B: 5 sectors -> 128 / (5 x 62..52) = 41.3-49.2%;
 * stride 8 B: 8 sectors -> 25.8-30.8%; stride 32 / 128 B: 32 sectors, 4 B
 * used of each -> 4 / 62..52 = 6.45-7.69%. Managed, 64 MiB per array: both
 * arrays migrate, 2 x 64 MiB = 134217728 B whether in 4 KiB pages or 2 MiB
 * blocks, at gen5's 0.8 x 63.0154 GB/s: 2.6624 ms.
 */
static void test_transfers(void)
{
    CHECK_NEAR(cml_pcie_raw_gbs(8, 16), 8.0 * 16 * 128 / 130 / 8, 1e-12);
    CHECK_NEAR(cml_pcie_raw_gbs(16, 16), 31.5077, 1e-4);
    CHECK_NEAR(cml_pcie_raw_gbs(32, 16), 63.0154, 1e-4);
    CHECK_NEAR(cml_pcie_raw_gbs(32, 4), 63.0154 / 4, 1e-4);
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_transfers, NULL, &r), CML_OK);
    const cml_record *g5 = find(&r, "mode=link link=gen5 lanes=16 size=1073741824");
    const cml_record *g4 = find(&r, "mode=link link=gen4 lanes=16 size=4096");
    const cml_record *co = find(&r, "mode=zero-copy memory=mapped access=coalesced block=256");
    const cml_record *mis = find(&r, "mode=zero-copy memory=mapped access=misaligned block=256");
    const cml_record *s8 = find(&r, "mode=zero-copy memory=mapped-uva access=stride8 block=256");
    const cml_record *s32 = find(&r, "mode=zero-copy memory=mapped access=stride32 block=256");
    const cml_record *s128 = find(&r, "mode=zero-copy memory=mapped access=stride128 block=256");
    const cml_record *dev = find(&r, "mode=zero-copy memory=device access=coalesced block=256");
    const cml_record *fault = find(&r, "mode=managed um=67108864 step=fault");
    const cml_record *warm = find(&r, "mode=managed um=67108864 step=warm");
    /* 2 links x 6 sizes, 5 accesses x 3 memories, 4 managed kernel steps;
     * copies and allocations are measurements only. */
    CHECK_EQ_U64(r.count, 12 + 15 + 4);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record_param *m = cml_record_find_param(&r.items[i], "mode");
        CHECK(m && strcmp(m->label, "copy") != 0 && strcmp(m->label, "alloc") != 0);
    }
    if (FOUND(g5) && FOUND(g4) && FOUND(co) && FOUND(mis) && FOUND(s8) && FOUND(s32) &&
        FOUND(s128) && FOUND(dev) && FOUND(fault) && FOUND(warm)) {
        CHECK(!g5->has_model);
        CHECK_NEAR(extra(g5, "pinned_typical_gbs"), 0.8 * 63.0154, 1e-3);
        CHECK_NEAR(extra(g5, "pinned_time_ms"), 1073741824.0 / (0.8 * 63.0154e9) * 1e3, 1e-3);
        CHECK_NEAR(extra(g4, "pageable_low_gbs"), 0.4 * 0.8 * 31.5077, 1e-3);
        CHECK_STR_CONTAINS(g5->finding, "not a measurement");
        CHECK_STR_CONTAINS(co->finding, "not a measurement");
        CHECK_NEAR(cml_exp_spr(co, CML_CLASS_GLOBAL_LD), 4, 0);
        CHECK_NEAR(extra(co, "link_efficiency_low"), 100.0 * 32 / 62, 1e-9);
        CHECK_NEAR(extra(co, "link_efficiency_high"), 100.0 * 32 / 52, 1e-9);
        CHECK_NEAR(extra(co, "useful_gbs_high"), 63.0154 * 32 / 52, 1e-3);
        /* Misaligned: n = 2^24 - 11 reads, 524287 full warps of 5 sectors;
         * the last warp's 21 lanes start 44 B into a line: bytes 44..127,
         * sectors 1-3. */
        CHECK_EQ_U64(cls(mis, CML_CLASS_GLOBAL_LD)->requests, 524288);
        CHECK_EQ_U64(cls(mis, CML_CLASS_GLOBAL_LD)->sectors, 524287ull * 5 + 3);
        CHECK_NEAR(extra(mis, "link_efficiency_low"),
                   100.0 * 4 * (16777216.0 - 11) / ((524287.0 * 5 + 3) * 62), 1e-9);
        CHECK_NEAR(extra(mis, "link_efficiency_high"),
                   100.0 * 4 * (16777216.0 - 11) / ((524287.0 * 5 + 3) * 52), 1e-9);
        CHECK_NEAR(cml_exp_spr(s8, CML_CLASS_GLOBAL_LD), 8, 0);
        CHECK_NEAR(extra(s8, "link_efficiency_low"), 100.0 * 128 / (8 * 62), 1e-9);
        CHECK_STR_CONTAINS(s8->finding, "host pointer, UVA");
        CHECK_NEAR(cml_exp_spr(s32, CML_CLASS_GLOBAL_LD), 32, 0);
        CHECK_NEAR(extra(s32, "link_efficiency_high"), 100.0 * 4 / 52, 1e-9);
        CHECK_NEAR(cml_exp_spr(s128, CML_CLASS_GLOBAL_LD), 32, 0);
        CHECK_NEAR(extra(s128, "link_efficiency_low"), 100.0 * 4 / 62, 1e-9);
        /* Device memory: the same sectors, no link figures. */
        CHECK_NEAR(cml_exp_spr(dev, CML_CLASS_GLOBAL_LD), 4, 0);
        CHECK_EQ_U64(dev->nextra, 0);
        CHECK_STR_CONTAINS(dev->finding, "baseline");
        /* Model-only sizes: 2^24 floats (64 MiB) in[], read whole when coalesced,
         * one float in 32 with stride 128 B. */
        CHECK_EQ_U64(cml_record_find_param(co, "n")->value, (uint64_t)1 << 24);
        CHECK_EQ_U64(cml_record_find_param(s128, "n")->value, (uint64_t)1 << 19);
        CHECK_EQ_U64(cml_record_find_param(mis, "n")->value, ((uint64_t)1 << 24) - 11);
        CHECK_EQ_U64(cls(co, CML_CLASS_GLOBAL_LD)->sectors, ((uint64_t)1 << 24) / 8);
        CHECK_EQ_U64(cls(s128, CML_CLASS_GLOBAL_LD)->sectors, (uint64_t)1 << 19);
        /* Managed. */
        CHECK(fault->has_model && warm->has_model);
        CHECK_NEAR(cml_exp_spr(fault, CML_CLASS_GLOBAL_LD), 4, 0);
        CHECK_NEAR(cml_exp_spr(fault, CML_CLASS_GLOBAL_ST), 4, 0);
        CHECK_NEAR(extra(fault, "migrate_low_bytes"), 134217728.0, 0);
        CHECK_NEAR(extra(fault, "migrate_high_bytes"), 134217728.0, 0);
        CHECK_NEAR(extra(fault, "link_time_ms"), 2.6624, 1e-4);
        CHECK_EQ_U64(fault->bytes_read + fault->bytes_written, 2 * 67108864ull);
        CHECK_STR_CONTAINS(fault->finding, "128-128 MiB");
        CHECK_STR_CONTAINS(warm->finding, "resident");
    }
    cml_results_free(&r);

    /* 3 MiB + 4 KiB per array: 4 KiB pages cover it exactly, 2 MiB blocks
     * round it up to 4 MiB; and a link without the prediction of gen5. */
    CHECK_EQ_I64(run_model(&cml_exp_transfers, "mode=managed,copy um=3149824 link=gen4", &r),
                 CML_OK);
    CHECK_EQ_U64(r.count, 4);
    const cml_record *f2 = find(&r, "mode=managed um=3149824 step=fault");
    if (FOUND(f2)) {
        CHECK_NEAR(extra(f2, "migrate_low_bytes"), 2.0 * 3149824, 0);
        CHECK_NEAR(extra(f2, "migrate_high_bytes"), 2.0 * 4194304, 0);
        CHECK_NEAR(extra(f2, "link_time_ms"), 2.0 * 3149824 / (0.8 * 31.5077e9) * 1e3, 1e-6);
    }
    cml_results_free(&r);

    /* Only measured modes on the CPU: one waived record saying so. */
    CHECK_EQ_I64(run_model(&cml_exp_transfers, "mode=copy,alloc", &r), CML_OK);
    CHECK_EQ_U64(r.count, 1);
    if (r.count == 1) {
        CHECK(r.items[0].state == CML_REC_WAIVED);
        CHECK_STR_CONTAINS(r.items[0].note, "measurements only");
    }
    cml_results_free(&r);

    /* n given: n floats read whatever the access. */
    CHECK_EQ_I64(run_model(&cml_exp_transfers, "mode=zero-copy n=1000 access=stride32 "
                                                "memory=mapped block=128", &r), CML_OK);
    CHECK_EQ_U64(r.count, 1);
    if (r.count == 1) {
        CHECK_EQ_U64(cls(&r.items[0], CML_CLASS_GLOBAL_LD)->requests, 1000 / 32 + 1);
        CHECK_EQ_U64(cls(&r.items[0], CML_CLASS_GLOBAL_LD)->sectors, 1000);
    }
    cml_results_free(&r);

    uint64_t lo = 0, hi = 0;
    cml_um_migration_bounds(1, &lo, &hi);
    CHECK_EQ_U64(lo, 4096);
    CHECK_EQ_U64(hi, 2097152);
    cml_um_migration_bounds(2097152 + 4096, &lo, &hi);
    CHECK_EQ_U64(lo, 2097152 + 4096);
    CHECK_EQ_U64(hi, 4194304);

    /* Half bandwidth. Bandwidths 1, 5, 20, 40 GB/s at 1e3..1e6 B (times
     * bytes / (GB/s x 1e6) ms): the best 40, half 20 reached exactly at
     * 1e5 B; t0 = 0.001 ms - 1000 B / 40e6 B/ms = 0.975 us, s1/2 = t0 x B =
     * 0.000975 ms x 40e6 B/ms = 39000 B. */
    const double b1[] = {1e3, 1e4, 1e5, 1e6};
    const double t1[] = {1e3 / 1e6, 1e4 / 5e6, 1e5 / 20e6, 1e6 / 40e6};
    cml_halfbw h;
    CHECK_EQ_I64(cml_transfers_half_bandwidth(b1, t1, 4, &h), CML_OK);
    CHECK_NEAR(h.asym_gbs, 40, 1e-9);
    CHECK_EQ_U64(h.asym_index, 3);
    CHECK_EQ_U64(h.half_index, 2);
    CHECK_NEAR(h.half_bytes, 1e5, 1e-6);
    CHECK_NEAR(h.t0_us, 0.975, 1e-9);
    CHECK_NEAR(h.fit_half_bytes, 39000, 1e-6);
    /* 10 and 30 GB/s around the half (20): halfway in bandwidth, so the
     * geometric mean of the sizes, sqrt(1e4 x 1e5). */
    const double t2[] = {1e3 / 1e6, 1e4 / 10e6, 1e5 / 30e6, 1e6 / 40e6};
    CHECK_EQ_I64(cml_transfers_half_bandwidth(b1, t2, 4, &h), CML_OK);
    CHECK_NEAR(h.half_bytes, sqrt(1e9), 1e-6);
    /* The best before the end (the asymptote is the best figure), and half
     * already reached at the smallest size. */
    const double b3[] = {1e6, 1e7, 1e8};
    const double t3[] = {1e6 / 30e6, 1e7 / 50e6, 1e8 / 45e6};
    CHECK_EQ_I64(cml_transfers_half_bandwidth(b3, t3, 3, &h), CML_OK);
    CHECK_NEAR(h.asym_gbs, 50, 1e-9);
    CHECK_EQ_U64(h.asym_index, 1);
    CHECK_EQ_U64(h.half_index, 0);
    CHECK_NEAR(h.half_bytes, 1e6, 0);
    CHECK_NEAR(h.t0_us, 1e3 * (1e6 / 30e6 - 1e6 / 50e6), 1e-9);
    /* Bad input. */
    const double zero[] = {0.0};
    CHECK_EQ_I64(cml_transfers_half_bandwidth(b1, t1, 0, &h), CML_EINVAL);
    CHECK_EQ_I64(cml_transfers_half_bandwidth(b1, zero, 1, &h), CML_EINVAL);
    CHECK_EQ_I64(cml_transfers_half_bandwidth(zero, t1, 1, &h), CML_EINVAL);

    /* Bad values name the option. */
    static const struct { const char *name, *value; } bad[] = {
        {"mode", "dma"}, {"memory", "texture"}, {"direction", "sideways"},
        {"access", "stride64"}, {"um", "1k"}, {"alloc", "2G"}, {"n", "-1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_refused(&cml_exp_transfers, bad[i].name, bad[i].value, NULL);
}

/* One thread: each access is one request of one sector, 4 of 32 bytes. */
static void test_device_vars(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_device_vars, NULL, &r), CML_OK);
    const cml_record *dev = find(&r, "var=device");
    const cml_record *con = find(&r, "var=constant");
    if (FOUND(dev) && FOUND(con)) {
        CHECK_EQ_U64(cls(dev, CML_CLASS_GLOBAL_LD)->requests, 1);
        CHECK_EQ_U64(cls(dev, CML_CLASS_GLOBAL_LD)->sectors, 1);
        CHECK_EQ_U64(cls(dev, CML_CLASS_GLOBAL_ST)->sectors, 1);
        CHECK_NEAR(cml_exp_eff(dev, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD), 0.125, 1e-12);
        CHECK_NEAR(cml_exp_eff(dev, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD), 0.03125, 1e-12);
        CHECK_EQ_U64(cls(con, CML_CLASS_CONST_LD)->serialized, 1);
        CHECK_EQ_U64(cls(con, CML_CLASS_GLOBAL_LD)->requests, 0);
        CHECK_EQ_U64(cls(con, CML_CLASS_GLOBAL_ST)->sectors, 1);
        CHECK_STR_CONTAINS(dev->finding, "1.00 sector per request");
    }
    cml_results_free(&r);
}

/* The control of validate: one option of a variant set to another value,
 * and the controls' variants named apart from the variants they control,
 * with the same model figures (residency changes where blocks run, not
 * what they access). */
static void test_control_variants(void)
{
    char buf[160];
    cml_variant_with("pattern=stencil coef=constant block=256", "residency=one", buf, sizeof buf);
    CHECK_STR_EQ(buf, "pattern=stencil coef=constant block=256 residency=one");
    cml_variant_with("kernel=smem residency=many nx=64", "residency=one", buf, sizeof buf);
    CHECK_STR_EQ(buf, "kernel=smem residency=one nx=64");
    cml_variant_with("a=1 xresidency=many", "residency=one", buf, sizeof buf);
    CHECK_STR_EQ(buf, "a=1 xresidency=many residency=one");
    cml_variant_with("residency=many", "residency=one", buf, sizeof buf);
    CHECK_STR_EQ(buf, "residency=one");
    cml_variant_with("", "residency=one", buf, sizeof buf);
    CHECK_STR_EQ(buf, "residency=one");

    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_constant, "pattern=stencil residency=many,one n=2^16", &r),
                 CML_OK);
    const cml_record *all = find(&r, "pattern=stencil coef=constant block=256");
    const cml_record *one = find(&r, "pattern=stencil coef=constant block=256 residency=one");
    if (FOUND(all) && FOUND(one))
        CHECK(memcmp(&all->model, &one->model, sizeof all->model) == 0);
    cml_results_free(&r);
    CHECK_EQ_I64(run_model(&cml_exp_transpose, "kernel=smem,copy residency=one nx=256", &r),
                 CML_OK);
    CHECK(find(&r, "kernel=smem block=32x32 nx=256 ny=256 residency=one") != NULL);
    CHECK(find(&r, "kernel=copy block=32x8 nx=256 ny=256 residency=one") != NULL);
    cml_results_free(&r);
    CHECK_EQ_I64(run_model(&cml_exp_shared_banks, "pattern=stride elem=4 stride=2 residency=one",
                           &r), CML_OK);
    CHECK(find(&r, "pattern=stride elem=4 stride=2 residency=one") != NULL);
    cml_results_free(&r);
}

/* Bad values are refused by the parameter layer, naming the option. */
static void test_invalid_params(void)
{
    static const struct { const cml_experiment *x; const char *name, *value, *option; } bad[] = {
        {&cml_exp_pitch2d, "block", "33x3", "--block"},
        {&cml_exp_pitch2d, "width", "0", "--width"},
        {&cml_exp_pitch2d, "height", "16385", "--height"},
        {&cml_exp_pitch2d, "width", "65536", "--width"},
        {&cml_exp_pitch2d, "type", "f16", "--type"},
        {&cml_exp_local, "K", "300", "--K"},
        {&cml_exp_local, "K", "4", "--K"},
        {&cml_exp_local, "pattern", "random", "--pattern"},
        {&cml_exp_constant, "k", "33", "--k"},
        {&cml_exp_constant, "k", "0", "--k"},
        {&cml_exp_constant, "coef", "texture", "--coef"},
        {&cml_exp_constant, "stride", "529", "--stride"},
        {&cml_exp_constant, "residency", "two", "--residency"},
        {&cml_exp_shuffle, "width", "3", "--width"},
        {&cml_exp_shuffle, "arg", "32", "--arg"},
        {&cml_exp_shuffle, "block", "100", "--block"},
        {&cml_exp_shared_banks, "stride", "0", "--stride"},
        {&cml_exp_shared_banks, "elem", "32", "--elem"},
        {&cml_exp_shared_banks, "pad", "-1", "--pad"},
        {&cml_exp_shared_banks, "tile", "64x64", "--tile"},
        {&cml_exp_transfers, "link", "gen6", "--link"},
        {&cml_exp_transfers, "size", "1k", "--size"},
        {&cml_exp_device_vars, "var", "texture", "--var"},
        {&cml_exp_device_vars, "nope", "1", "--nope"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_refused(bad[i].x, bad[i].name, bad[i].value, bad[i].option);
}

int main(void)
{
    test_all_defaults_and_tours();
    test_pitch2d();
    test_local();
    test_constant();
    test_shuffle();
    test_shared_banks();
    test_transfers();
    test_device_vars();
    test_invalid_params();
    test_control_variants();
    return cml_test_summary("test_experiments_model");
}
