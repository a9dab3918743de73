/*
 * The model side of experiments 8-14 (pitch2d, local, constant, shuffle,
 * shared-banks, transfers, device-vars), without a GPU: every experiment
 * runs with its defaults and with its tour settings, produces sound records,
 * and predicts the figures derived by hand in the comments below.
 */
#include <stdlib.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/constant.h"
#include "experiments/device_vars.h"
#include "experiments/local.h"
#include "experiments/pitch2d.h"
#include "experiments/shared_banks.h"
#include "experiments/shuffle.h"
#include "experiments/transfers.h"
#include "test_util.h"

static const cml_experiment *const exps[] = {
    &cml_exp_pitch2d, &cml_exp_local,     &cml_exp_constant,    &cml_exp_shuffle,
    &cml_exp_shared_banks, &cml_exp_transfers, &cml_exp_device_vars,
};

/* Run `x` on the model alone with its defaults plus `settings` (the tour's
 * syntax: "name=list name=list"); CML_OK expected. */
static cml_status run_model(const cml_experiment *x, const char *settings, cml_results *r)
{
    cml_param_values pv;
    char err[256] = "";
    cml_status st = cml_param_defaults(x->params, x->nparams, &pv, err, sizeof err);
    if (st) {
        fprintf(stderr, "%s: defaults: %s\n", x->key, err);
        return st;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", settings ? settings : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return CML_EINVAL;
        *eq = '\0';
        st = cml_param_set(&pv, tok, eq + 1, err, sizeof err);
        if (st) {
            fprintf(stderr, "%s: %s\n", x->key, err);
            return st;
        }
    }
    cml_plan plan;
    memset(&plan, 0, sizeof plan); /* model only: no GPU, no device facts */
    cml_results_init(r);
    return x->model(&plan, &pv, r);
}

static const cml_record *find(const cml_results *r, const char *variant)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->items[i].variant, variant) == 0)
            return &r->items[i];
    fprintf(stderr, "no record \"%s\"\n", variant);
    return NULL;
}

static const cml_traffic *cls(const cml_record *rec, cml_class c)
{
    return &rec->model[CML_RULES_MODERN].cls[c];
}

static double extra(const cml_record *rec, const char *name)
{
    for (unsigned i = 0; i < rec->nextra; i++)
        if (strcmp(rec->extra[i].name, name) == 0)
            return rec->extra[i].value;
    fprintf(stderr, "%s: no extra \"%s\"\n", rec->variant, name);
    return -1.0;
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
        CHECK(x->run == NULL); /* the GPU kernels come later */
        CHECK(x->spec_number == (int)(8 + i));
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
 * pitch2d, 777 x 555 bytes, block 32x8: each warp is 32 consecutive bytes of
 * one row (x = 32*bx + tx, one ty per warp); grid 25 x 70, rows >= 555 idle.
 * Loads per layout: 555 rows x 25 column blocks = 13875 requests.
 * pad128 (pitch 896): every row starts 128-aligned, so a warp's 32 bytes
 * (or the 9 bytes of the last column block, at byte 768) sit in 1 sector:
 * 13875 sectors.
 * unpadded (pitch 777 = 24*32 + 9): row y starts at 9y mod 32 into a sector.
 * Column blocks 0..23 need 1 sector iff 9y = 0 mod 32, i.e. y = 0, 32, ...,
 * 544 (18 rows), else 2: 24 * (2*555 - 18) = 26208. Block 24 (9 bytes at
 * 9y mod 32) straddles iff 9y mod 32 >= 24: 8 residues of 32 per full cycle
 * (17 cycles: 136) plus y = 544..554 (residues 27, 31, 26: 3) = 139, so
 * 555 + 139 = 694. Total 26208 + 694 = 26902 sectors, 1.94 per request.
 */
static void test_pitch2d(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_pitch2d, "type=u8 block=32x8", &r), CML_OK);
    const cml_record *un = find(&r, "width=777 height=555 type=u8 layout=unpadded block=32x8");
    const cml_record *p128 = find(&r, "width=777 height=555 type=u8 layout=pad128 block=32x8");
    const cml_record *pitch = find(&r, "width=777 height=555 type=u8 layout=pitch block=32x8");
    const cml_record *p32 = find(&r, "width=777 height=555 type=u8 layout=pad32 block=32x8");
    if (un && p128 && pitch && p32) {
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_LD)->requests, 13875);
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_LD)->sectors, 26902);
        CHECK_EQ_U64(cls(un, CML_CLASS_GLOBAL_ST)->sectors, 26902);
        CHECK_EQ_U64(cls(p128, CML_CLASS_GLOBAL_LD)->requests, 13875);
        CHECK_EQ_U64(cls(p128, CML_CLASS_GLOBAL_LD)->sectors, 13875);
        CHECK_EQ_U64(cls(p32, CML_CLASS_GLOBAL_LD)->sectors, 13875);
        CHECK_EQ_U64(un->bytes_read, 777u * 555u);
        CHECK_NEAR(extra(un, "pitch_bytes"), 777, 0);
        CHECK_NEAR(extra(un, "overhead"), 0, 1e-9);
        CHECK_NEAR(extra(un, "rows_sector_aligned"), 18, 0);
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
    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(0, 3108, 512), 3108);
    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(1, 3108, 512), 3584);
    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(2, 3108, 512), 3136);
    CHECK_EQ_U64(cml_pitch2d_pitch_bytes(3, 3108, 512), 3200);
}

/*
 * local: physical(l, o) = (o/4 * 32 + l) * 4. Same index: the 32 lanes'
 * words are 128 contiguous bytes, 4 sectors. Lane-varying, K >= 32: 32
 * different offsets, each in its own 128-byte row: 32 sectors. K = 8: 8
 * offsets, each shared by lanes c, c+8, c+16, c+24, which land in sectors
 * c/8 .. c/8 + 3 of their row: still 32. n = 2^20 fills every warp.
 */
static void test_local(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_local, "K=8,32,64,256", &r), CML_OK);
    const unsigned ks[] = {8, 32, 64, 256};
    for (size_t i = 0; i < 4; i++) {
        char v[96];
        snprintf(v, sizeof v, "pattern=same-index K=%u block=256", ks[i]);
        const cml_record *same = find(&r, v);
        snprintf(v, sizeof v, "pattern=lane-varying K=%u block=256", ks[i]);
        const cml_record *lane = find(&r, v);
        snprintf(v, sizeof v, "pattern=struct K=%u block=256", ks[i]);
        const cml_record *st = find(&r, v);
        snprintf(v, sizeof v, "pattern=spill K=%u block=256", ks[i]);
        const cml_record *spill = find(&r, v);
        if (!same || !lane || !st || !spill)
            continue;
        const uint64_t warps = ((uint64_t)1 << 20) / 32;
        CHECK_EQ_U64(cls(same, CML_CLASS_LOCAL_LD)->requests, warps);
        CHECK_EQ_U64(cls(same, CML_CLASS_LOCAL_LD)->sectors, 4 * warps);
        CHECK_EQ_U64(cls(lane, CML_CLASS_LOCAL_LD)->sectors, 32 * warps);
        CHECK_EQ_U64(cls(st, CML_CLASS_LOCAL_LD)->sectors, 32 * warps);
        CHECK_EQ_U64(cls(spill, CML_CLASS_LOCAL_LD)->sectors, 4 * warps);
        /* K stores per thread, each one index for the whole warp; with
         * K = 256 the trace runs in pieces and must still add up. */
        CHECK_EQ_U64(cls(same, CML_CLASS_LOCAL_ST)->requests, ks[i] * warps);
        CHECK_EQ_U64(cls(lane, CML_CLASS_LOCAL_ST)->sectors, 4 * ks[i] * warps);
        CHECK_EQ_U64(cls(same, CML_CLASS_GLOBAL_LD)->sectors, 4 * warps);
        CHECK_NEAR(cml_traffic_efficiency(cls(lane, CML_CLASS_LOCAL_LD)), 0.125, 1e-12);
        CHECK_STR_CONTAINS(same->finding, "4.00 sectors per local load request");
        CHECK_STR_CONTAINS(lane->finding, "32.00 sectors per local load request");
    }
    cml_results_free(&r);
}

/* constant: lane l reads c_tab[(l % k) * stride]: k distinct addresses, so
 * k serialized accesses per warp read; the stencil's coefficients are
 * warp-uniform: 1 per read (constant), 1 sector per request (global). */
static void test_constant(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_constant, "stride=1,3", &r), CML_OK);
    const unsigned ks[] = {1, 2, 4, 8, 16, 32};
    for (size_t i = 0; i < 6; i++) {
        for (unsigned stride = 1; stride <= 3; stride += 2) {
            char v[96];
            snprintf(v, sizeof v, "pattern=serial k=%u stride=%u block=256", ks[i], stride);
            const cml_record *rec = find(&r, v);
            if (!rec)
                continue;
            const cml_traffic *c = cls(rec, CML_CLASS_CONST_LD);
            CHECK_EQ_U64(c->instructions, ((uint64_t)1 << 20) / 32);
            CHECK_EQ_U64(c->serialized, ks[i] * c->instructions);
            CHECK_NEAR(extra(rec, "serialized_per_read"), ks[i], 0);
            CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 4 * c->instructions);
        }
    }
    const cml_record *sc = find(&r, "pattern=stencil coef=constant block=256");
    const cml_record *sr = find(&r, "pattern=stencil coef=readonly block=256");
    const cml_record *sg = find(&r, "pattern=stencil coef=global block=256");
    if (sc && sr && sg) {
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
        CHECK_NEAR(extra(sr, "coef_per_read"), 1, 0);
        CHECK_NEAR(extra(sg, "coef_per_read"), 1, 0);
        CHECK_EQ_U64(cls(sr, CML_CLASS_CONST_LD)->instructions, 0);
        CHECK_STR_CONTAINS(sr->finding, "12.5%");
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
    const cml_record *x32 = find(&r, "op=xor width=32 arg=1 block=256");
    const cml_record *up8 = find(&r, "op=up width=8 arg=1 block=256");
    if (tree && shfl && x32 && up8) {
        /* Block of 256 = 8 warps. Tree: 8 stores; levels s = 128, 64, 32
         * issue 4, 2, 1 warps x 3 instructions; s = 16..1 one warp x 3 each
         * (5 levels); one final load: 8 + 21 + 15 + 1 = 45. Shuffle: 8
         * one-lane stores + 1 load by warp 0 = 9. */
        const uint64_t blocks = ((uint64_t)1 << 20) / 256;
        const cml_traffic *tl = cls(tree, CML_CLASS_SHARED_LD), *ts = cls(tree, CML_CLASS_SHARED_ST);
        CHECK_EQ_U64(tl->instructions + ts->instructions, 45 * blocks);
        CHECK_EQ_U64(tl->bank_conflicts + ts->bank_conflicts, 0);
        const cml_traffic *sl = cls(shfl, CML_CLASS_SHARED_LD), *ss = cls(shfl, CML_CLASS_SHARED_ST);
        CHECK_EQ_U64(sl->instructions + ss->instructions, 9 * blocks);
        CHECK_EQ_U64(cls(tree, CML_CLASS_GLOBAL_ST)->sectors, blocks);
        CHECK_NEAR(extra(tree, "syncthreads_per_block"), 9, 0);
        CHECK_STR_CONTAINS(tree->finding, "45.0 shared instructions");
        CHECK_STR_CONTAINS(shfl->finding, "9.0 shared instructions");
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
}

/* Wavefronts and conflicts per request of one record's shared loads and
 * stores (MODEL.md 4.5). */
static void check_banks(const cml_results *r, const char *variant, double ld_wf, double ld_conf,
                        double st_wf)
{
    const cml_record *rec = find(r, variant);
    if (!rec)
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
    if (s2) {
        CHECK_STR_CONTAINS(s2->finding, "lanes l and l+16 share bank (2*l) mod 32 -> 2-way");
        CHECK_STR_CONTAINS(s2->finding, "2.00 wavefronts per request");
    }
    const cml_record *t0 = find(&r, "pattern=tile tile=32x32 access=row-col pad=0 alloc=static");
    if (t0)
        CHECK_STR_CONTAINS(t0->finding, "loads 32.00 (31.00)");
    cml_results_free(&r);
}

static void test_transfers(void)
{
    CHECK_NEAR(cml_pcie_raw_gbs(8, 16), 8.0 * 16 * 128 / 130 / 8, 1e-12);
    CHECK_NEAR(cml_pcie_raw_gbs(16, 16), 31.5077, 1e-4);
    CHECK_NEAR(cml_pcie_raw_gbs(32, 16), 63.0154, 1e-4);
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_transfers, NULL, &r), CML_OK);
    const cml_record *g5 = find(&r, "mode=link link=gen5 lanes=16 size=1073741824");
    const cml_record *co = find(&r, "mode=zero-copy access=coalesced block=256");
    const cml_record *s32 = find(&r, "mode=zero-copy access=stride32 block=256");
    const cml_record *s128 = find(&r, "mode=zero-copy access=stride128 block=256");
    if (g5 && co && s32 && s128) {
        CHECK(!g5->has_model);
        CHECK_NEAR(extra(g5, "pinned_typical_gbs"), 0.8 * 63.0154, 1e-3);
        CHECK_STR_CONTAINS(g5->finding, "not a measurement");
        CHECK_STR_CONTAINS(co->finding, "not a measurement");
        /* Coalesced: 4 sectors per request, all 32 bytes of each used:
         * 32 / (32 + 30..20) of the link. One float per sector: 4 / (52..62). */
        CHECK_NEAR(cml_exp_spr(co, CML_CLASS_GLOBAL_LD), 4, 0);
        CHECK_NEAR(extra(co, "link_efficiency_low"), 100.0 * 32 / 62, 1e-9);
        CHECK_NEAR(extra(co, "link_efficiency_high"), 100.0 * 32 / 52, 1e-9);
        CHECK_NEAR(cml_exp_spr(s32, CML_CLASS_GLOBAL_LD), 32, 0);
        CHECK_NEAR(extra(s32, "link_efficiency_high"), 100.0 * 4 / 52, 1e-9);
        CHECK_NEAR(cml_exp_spr(s128, CML_CLASS_GLOBAL_LD), 32, 0);
    }
    cml_results_free(&r);
}

/* One thread: each access is one request of one sector, 4 of 32 bytes. */
static void test_device_vars(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_device_vars, NULL, &r), CML_OK);
    const cml_record *dev = find(&r, "var=device");
    const cml_record *con = find(&r, "var=constant");
    if (dev && con) {
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

/* Bad values are refused by the parameter layer, naming the option. */
static void test_invalid_params(void)
{
    static const struct { const cml_experiment *x; const char *name, *value, *option; } bad[] = {
        {&cml_exp_pitch2d, "block", "33x3", "--block"},
        {&cml_exp_pitch2d, "width", "0", "--width"},
        {&cml_exp_pitch2d, "height", "65536", "--height"},
        {&cml_exp_pitch2d, "type", "f16", "--type"},
        {&cml_exp_local, "K", "300", "--K"},
        {&cml_exp_local, "K", "4", "--K"},
        {&cml_exp_local, "pattern", "random", "--pattern"},
        {&cml_exp_constant, "k", "33", "--k"},
        {&cml_exp_constant, "k", "0", "--k"},
        {&cml_exp_constant, "coef", "texture", "--coef"},
        {&cml_exp_constant, "stride", "529", "--stride"},
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
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cml_param_values pv;
        char err[256] = "";
        CHECK_EQ_I64(cml_param_defaults(bad[i].x->params, bad[i].x->nparams, &pv, err, sizeof err),
                     CML_OK);
        err[0] = '\0';
        CHECK_EQ_I64(cml_param_set(&pv, bad[i].name, bad[i].value, err, sizeof err), CML_EINVAL);
        CHECK_STR_CONTAINS(err, bad[i].option);
    }
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
    return cml_test_summary("test_experiments_model");
}
