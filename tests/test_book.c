/*
 * The book's programs (src/book) on the model alone: their arguments read
 * as the book's main() reads argv, and every program's model against
 * counts derived by hand from the book's kernels, sizes and launches.
 *
 * Conventions of the derivations: a warp is 32 consecutive threads of a
 * block; a 4-byte access of lanes whose bytes start B bytes into a 128-byte
 * line touches ceil((B + bytes) / 32) - floor(B / 32) sectors; Fermi's
 * cached loads count 128-byte lines, its stores and L2-only loads 32-byte
 * segments.
 */
#include <stdio.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "lab/common.h"
#include "experiment_test_util.h"
#include "lab/sweep.h"
#include "experiments/registry.h"
#include "test_util.h"

static const cml_traffic *cls(const cml_record *rec, cml_rules r, cml_class c)
{
    return &rec->model[r].cls[c];
}

/* Run program p on the model with its positional arguments (as typed) and
 * the launch list; r initialised here, freed by the caller. */
static int run_program(const cml_book_program *p, const char *const *argv, int argc,
                       cml_results *r)
{
    int64_t args[CML_BOOK_MAX_ARGS];
    char settings[256], err[512];
    cml_status st = cml_book_parse_args(p, argv, argc, args, settings, sizeof settings, err,
                                        sizeof err);
    if (st) {
        fprintf(stderr, "%s: %s\n", p->name, err);
        CHECK(st == CML_OK); /* the arguments must parse: a failed check, not a skip */
        return 0;
    }
    st = run_model(p->row, settings, r);
    CHECK(st == CML_OK);
    return st == CML_OK;
}

/* The record of launch `launch` (its choice name). */
static const cml_record *launch_rec(const cml_results *r, const char *launch)
{
    for (size_t i = 0; i < r->count; i++) {
        const cml_record_param *pr = cml_record_find_param(&r->items[i], "launch");
        if (pr && !strcmp(pr->label, launch))
            return &r->items[i];
    }
    fprintf(stderr, "no record of launch %s\n", launch);
    CHECK(0);
    return NULL;
}

static void expect_global(const cml_record *rec, uint64_t ld_req, uint64_t ld_sec, uint64_t st_req,
                          uint64_t st_sec)
{
    if (!FOUND(rec))
        return;
    const cml_traffic *ld = cls(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    const cml_traffic *st = cls(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST);
    CHECK_EQ_U64(ld->requests, ld_req);
    CHECK_EQ_U64(ld->sectors, ld_sec);
    CHECK_EQ_U64(st->requests, st_req);
    CHECK_EQ_U64(st->sectors, st_sec);
}

static void expect_shared(const cml_record *rec, cml_class c, uint64_t wavefronts,
                          uint64_t conflicts)
{
    if (!FOUND(rec))
        return;
    const cml_traffic *t = cls(rec, CML_RULES_MODERN, c);
    CHECK_EQ_U64(t->wavefronts, wavefronts);
    CHECK_EQ_U64(t->bank_conflicts, conflicts);
    /* bank conflicts are the same under the Fermi rules for 4-byte words */
    CHECK_EQ_U64(cls(rec, CML_RULES_FERMI, c)->wavefronts, wavefronts);
}

/* ---- the table and the arguments ---------------------------------------- */

static void test_table(void)
{
    char err[512];
    CHECK_EQ_U64(cml_book_count(), 15);
    for (size_t i = 0; i < cml_book_count(); i++) {
        const cml_book_program *p = cml_book_at(i);
        err[0] = '\0';
        cml_status st = cml_sweep_check_row(p->row, err, sizeof err);
        if (st)
            fprintf(stderr, "%s: %s\n", p->name, err);
        CHECK(st == CML_OK);
        CHECK(cml_book_find(p->name) == p);
        /* the row is named after the book's file: chapter0N/<key> */
        CHECK(strstr(p->file, p->row->key) != NULL);
        CHECK(!strncmp(p->file, "chapter0", 8));
        CHECK(!strcmp(p->row->options[0].name, "launch"));
        CHECK(p->print != NULL && p->row->measure != NULL);
        /* every positional argument is an option with a default in range */
        int64_t args[CML_BOOK_MAX_ARGS];
        char settings[256];
        CHECK(cml_book_parse_args(p, NULL, 0, args, settings, sizeof settings, err, sizeof err) ==
              CML_OK);
        cml_param_values pv;
        CHECK(cml_lab_options(p->row, settings, p->name, &pv, err, sizeof err) == CML_OK);
        /* no name is both a program and an experiment's textbook alias */
        CHECK(cml_textbook_find(p->name, NULL) == NULL);
    }
    CHECK(cml_book_find("readOffset") == &cml_book_read_segment);
    CHECK(cml_book_find("writeOffset") == &cml_book_write_segment);
    CHECK(cml_book_find("readsegment") == NULL);
    CHECK(cml_book_find("noSuchProgram") == NULL);
}

static void parse_ok(const cml_book_program *p, const char *const *argv, int argc,
                     const char *want_settings)
{
    int64_t args[CML_BOOK_MAX_ARGS];
    char settings[256], err[512] = "";
    cml_status st = cml_book_parse_args(p, argv, argc, args, settings, sizeof settings, err,
                                        sizeof err);
    if (st)
        fprintf(stderr, "%s: %s\n", p->name, err);
    CHECK(st == CML_OK);
    if (!st && strcmp(settings, want_settings)) {
        fprintf(stderr, "%s: settings '%s', want '%s'\n", p->name, settings, want_settings);
        CHECK(0);
    }
}

static void parse_bad(const cml_book_program *p, const char *const *argv, int argc,
                      const char *says)
{
    int64_t args[CML_BOOK_MAX_ARGS];
    char settings[256], err[512] = "";
    CHECK(cml_book_parse_args(p, argv, argc, args, settings, sizeof settings, err, sizeof err) ==
          CML_EINVAL);
    CHECK_STR_CONTAINS(err, says);
    CHECK_STR_CONTAINS(err, p->name);
}

static void test_args(void)
{
    /* the book's defaults, and argv[1], argv[2] in order */
    parse_ok(&cml_book_read_segment, NULL, 0, "offset=0 block=512");
    const char *const a11[] = {"11"};
    parse_ok(&cml_book_read_segment, a11, 1, "offset=11 block=512");
    const char *const a11_128[] = {"11", "128"};
    parse_ok(&cml_book_read_segment, a11_128, 2, "offset=11 block=128");
    parse_ok(&cml_book_simple_math_aos, NULL, 0, "block=128");
    parse_ok(&cml_book_transpose, NULL, 0, "kernel=0 blockx=16 blocky=16 nx=2048 ny=2048");
    const char *const t[] = {"7", "32", "8", "1000", "999"};
    parse_ok(&cml_book_transpose, t, 5, "kernel=7 blockx=32 blocky=8 nx=1000 ny=999");
    parse_ok(&cml_book_reduce_integer_shfl, NULL, 0, "ishift=10");
    parse_ok(&cml_book_sum_array_zerocpy, NULL, 0, "ipower=10");
    parse_ok(&cml_book_sum_matrix_managed, NULL, 0, "ishift=12");
    parse_ok(&cml_book_check_smem_square, NULL, 0, "iprintf=0");
    parse_ok(&cml_book_constant_stencil, NULL, 0, "");

    /* what atoi() would misread is refused, naming the argument */
    const char *const abc[] = {"abc"};
    parse_bad(&cml_book_read_segment, abc, 1, "argument 1 (offset): 'abc' is not an integer");
    const char *const trail[] = {"11abc"};
    parse_bad(&cml_book_read_segment, trail, 1, "'11abc' is not an integer");
    const char *const neg[] = {"-1"};
    parse_bad(&cml_book_read_segment, neg, 1, "out of range (allowed 0..1048575");
    const char *const big[] = {"11", "2000"};
    parse_bad(&cml_book_read_segment, big, 2, "argument 2 (block): '2000' is out of range "
                                              "(allowed 1..1024, the book's default 512");
    const char *const huge[] = {"99999999999999999999"};
    parse_bad(&cml_book_read_segment, huge, 1, "not an integer");
    const char *const three[] = {"1", "2", "3"};
    parse_bad(&cml_book_read_segment, three, 3, "3 arguments given, the program reads 2");
    parse_bad(&cml_book_constant_stencil, a11, 1, "1 argument given, the program reads 0");
    const char *const k9[] = {"9"};
    parse_bad(&cml_book_transpose, k9, 1, "argument 1 (kernel): '9' is out of range (allowed 0..7");
    const char *const blk[] = {"0", "64", "32"};
    parse_bad(&cml_book_transpose, blk, 3, "block 64 x 32 is 2048 threads");
    const char *const six[] = {"6"};
    parse_bad(&cml_book_reduce_integer_shfl, six, 1, "(allowed 7..23");
    const char *const two[] = {"2"};
    parse_bad(&cml_book_check_smem_square, two, 1, "(allowed 0..1");
}

/* ---- chapter 4 ----------------------------------------------------------- */

/*
 * readSegment 11 (block 512, nElem = 2^20, grid 2048): threads i < 2^20 - 11
 * pass k = i + 11 < n. Warps: 32768, the last with 21 lanes. A full warp's
 * loads start 44 bytes into a line: 5 sectors; the last warp's 84 bytes from
 * byte 44: 3. Loads (A and B): 2 * 32768 requests, 2 * (32767 * 5 + 3) =
 * 327676 sectors. Stores C[i] from byte 0: 4 sectors, the last 84 bytes 3:
 * 32767 * 4 + 3 = 131071. Fermi, cached: 2 lines a full warp, 1 the last
 * (bytes 44..127): 65535 lines per array, efficiency 8388520 / (2 * 65535 *
 * 128); built with -dlcm=cg: 32-byte segments, 8388520 / (327676 * 32).
 */
static void test_read_segment(void)
{
    cml_results r;
    const char *const argv[] = {"11", "512"};
    if (!run_program(&cml_book_read_segment, argv, 2, &r))
        return;
    CHECK_EQ_U64(r.count, 2);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        expect_global(rec, 65536, 327676, 32768, 131071);
        CHECK_EQ_U64(rec->grid, 2048);
        CHECK_EQ_U64(rec->block, 512);
        CHECK_EQ_U64(rec->bytes_read, 8ull * (1048576 - 11));
        const cml_traffic *f = cls(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD);
        CHECK_EQ_U64(f->transactions, 2 * 65535);
        CHECK_NEAR(cml_traffic_efficiency(f), 8388520.0 / (2.0 * 65535 * 128), 1e-12);
        CHECK_NEAR(cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD),
                   8388520.0 / (327676.0 * 32), 1e-12);
    }
    const cml_record *rec = launch_rec(&r, "readOffset");
    if (FOUND(rec)) {
        CHECK_NEAR(extra(rec, "book_fermi_gld_eff"), 49.81, 1e-9);
        CHECK_NEAR(extra(rec, "book_fermi_gld_eff_dlcm_cg"), 80.0, 1e-9);
        CHECK_NEAR(extra(rec, "model_fermi_gld_eff_dlcm_cg"), 100.0 * 8388520.0 / (327676.0 * 32),
                   1e-9);
        CHECK_STR_CONTAINS(rec->finding, "49.81%");
    }
    /* the warm-up is the same kernel; the book quotes readOffset only */
    rec = launch_rec(&r, "warmup");
    CHECK(rec && rec->nextra == 0);
    cml_results_free(&r);

    /* offset 0: every warp's 128 bytes on their own line, 4 sectors */
    if (!run_program(&cml_book_read_segment, NULL, 0, &r))
        return;
    rec = launch_rec(&r, "readOffset");
    expect_global(rec, 65536, 262144, 32768, 131072);
    CHECK(rec && rec->nextra == 0);
    cml_results_free(&r);
}

/*
 * readSegmentUnroll 11: readOffsetUnroll2<<<1024, 512>>>(..., n = 2^19, 11):
 * i = 1024b + t passes k + 512 < n for i < 523765: blocks 0..510 whole, 501
 * threads of block 511: 8192 warps (16 in the last block, its last with 21
 * lanes), 4 load instructions each: 32768 requests, per instruction 8191 * 5
 * + 3 sectors: 163832; stores 2 per warp, 8191 * 4 + 3 each: 16384, 65534.
 * readOffsetUnroll4<<<512, 512>>>(..., n = 2^18, 11): i = 2048b + t passes
 * k + 1536 < n for i < 260597: blocks 0..126 and 501 threads of block 127:
 * 2048 warps, 8 loads each (16384 requests, 8 * 10238 = 81904 sectors), 4
 * stores each (8192, 4 * 8191 = 32764); blocks 128..511 do nothing.
 */
static void test_read_segment_unroll(void)
{
    cml_results r;
    const char *const argv[] = {"11"};
    if (!run_program(&cml_book_read_segment_unroll, argv, 1, &r))
        return;
    CHECK_EQ_U64(r.count, 4);
    expect_global(launch_rec(&r, "readOffset"), 65536, 327676, 32768, 131071);
    const cml_record *u2 = launch_rec(&r, "readOffsetUnroll2");
    expect_global(u2, 32768, 163832, 16384, 65534);
    CHECK(u2 && u2->grid == 1024);
    const cml_record *u4 = launch_rec(&r, "readOffsetUnroll4");
    expect_global(u4, 16384, 81904, 8192, 32764);
    CHECK(u4 && u4->grid == 512 && u4->bytes_written == 4ull * 4 * (127 * 512 + 501));
    CHECK(u4 && strstr(u4->finding, "65525 of 262144 threads pass the guard"));
    cml_results_free(&r);
}

/*
 * writeSegment 11: writeOffset stores C[i + 11]: 32767 * 5 + 3 = 163838
 * sectors (80%, the book's gst_efficiency 80% under Fermi's 32-byte
 * segments: 4194260 / (163838 * 32)); loads A[i], B[i] from byte 0: 32767 * 4
 * + 3 each. writeOffsetUnroll2<<<1024, 512>>>(..., n = 2^19): i = 512b + t
 * (the book's index, without the factor 2) passes for i < 523765: 16368
 * warps, the last with 21 lanes; writeOffsetUnroll4<<<512, 512>>>(..., n =
 * 2^19 as the book passes): every one of the 262144 threads passes.
 */
static void test_write_segment(void)
{
    cml_results r;
    const char *const argv[] = {"11"};
    if (!run_program(&cml_book_write_segment, argv, 1, &r))
        return;
    CHECK_EQ_U64(r.count, 4);
    const cml_record *w = launch_rec(&r, "writeOffset");
    expect_global(w, 65536, 2 * (32767 * 4 + 3), 32768, 163838);
    if (FOUND(w)) {
        CHECK_NEAR(cml_exp_eff(w, CML_RULES_FERMI, CML_CLASS_GLOBAL_ST), 4194260.0 / (163838.0 * 32),
                   1e-12);
        CHECK_NEAR(extra(w, "book_fermi_gst_eff"), 80.0, 1e-9);
    }
    expect_global(launch_rec(&r, "writeOffsetUnroll2"), 4 * 16368, 4 * (16367 * 4 + 3), 2 * 16368,
                  2 * (16367 * 5 + 3));
    expect_global(launch_rec(&r, "writeOffsetUnroll4"), 8 * 8192, 8 * 8192 * 4, 4 * 8192,
                  4 * 8192 * 5);
    cml_results_free(&r);
}

/*
 * simpleMathAoS (LEN = 2^22, block 128): 131072 warps, two 4-byte loads of
 * innerStruct fields 8 bytes apart: each spans 256 bytes, 8 sectors, half
 * of them used; Fermi: 2 lines, 50% (the book's gld/gst_efficiency 50%).
 * SoA: x[i] and y[i] each 128 contiguous bytes, 4 sectors, 100%.
 */
static void test_simple_math(void)
{
    cml_results r;
    if (!run_program(&cml_book_simple_math_aos, NULL, 0, &r))
        return;
    CHECK_EQ_U64(r.count, 2);
    const cml_record *aos = launch_rec(&r, "testInnerStruct");
    expect_global(aos, 262144, 2097152, 262144, 2097152);
    if (FOUND(aos)) {
        CHECK_NEAR(cml_exp_eff(aos, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD), 0.5, 1e-12);
        CHECK_NEAR(cml_exp_eff(aos, CML_RULES_FERMI, CML_CLASS_GLOBAL_ST), 0.5, 1e-12);
        CHECK_NEAR(extra(aos, "book_fermi_gld_eff"), 50.0, 1e-9);
        CHECK_NEAR(extra(aos, "book_fermi_gst_eff"), 50.0, 1e-9);
        CHECK_EQ_U64(aos->grid, 32768);
    }
    expect_global(launch_rec(&r, "warmup"), 262144, 2097152, 262144, 2097152);
    cml_results_free(&r);
    if (!run_program(&cml_book_simple_math_soa, NULL, 0, &r))
        return;
    const cml_record *soa = launch_rec(&r, "testInnerArray");
    expect_global(soa, 262144, 1048576, 262144, 1048576);
    if (FOUND(soa))
        CHECK_NEAR(extra(soa, "book_fermi_gld_eff"), 100.0, 1e-9);
    cml_results_free(&r);
}

/*
 * transpose (2048 x 2048, 16 x 16 blocks: grid 128 x 128, 8 warps a block,
 * 131072 warps; a warp is two rows of 16 floats). A row access: 2 x 64
 * bytes, 4 sectors (Fermi: 2 lines, 50% for loads). A column access: 16
 * rows of the matrix, the two threadIdx.y of a warp adjacent floats of one
 * sector: 16 sectors. Unroll4Row: grid 32 x 128, 4 accesses each.
 */
static void test_transpose(void)
{
    static const struct {
        const char *arg, *launch;
        uint64_t ld_sec, st_sec;
    } cases[] = {
        {"0", "copyRow", 524288, 524288},
        {"1", "copyCol", 2097152, 2097152},
        {"2", "transposeNaiveRow", 524288, 2097152},
        {"3", "transposeNaiveCol", 2097152, 524288},
        {"4", "transposeUnroll4Row", 524288, 2097152},
        {"5", "transposeUnroll4Col", 2097152, 524288},
        {"6", "transposeDiagonalRow", 524288, 2097152},
        {"7", "transposeDiagonalCol", 2097152, 524288},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cml_results r;
        const char *const argv[] = {cases[c].arg};
        if (!run_program(&cml_book_transpose, argv, 1, &r))
            return;
        CHECK_EQ_U64(r.count, 2); /* warmup and the kernel selected */
        expect_global(launch_rec(&r, "warmup"), 131072, 524288, 131072, 524288);
        const cml_record *k = launch_rec(&r, cases[c].launch);
        expect_global(k, 131072, cases[c].ld_sec, 131072, cases[c].st_sec);
        if (FOUND(k)) {
            CHECK_EQ_U64(k->grid, c == 4 || c == 5 ? 32 * 128 : 128 * 128);
            CHECK_EQ_U64(k->bytes_read, 4ull * 2048 * 2048);
        }
        cml_results_free(&r);
    }
    /* 1000 x 999 by 32 x 8, Unroll4Col: grid.x = ceil(1000 / 128) = 8; in
     * each row iy < 999, thread ix = 128 bx + tx (tx < 32) copies 4 floats
     * when ix + 96 < 1000: all 32 of blocks 0..6, 8 of block 7 (ix 896..903):
     * 232 threads, 928 of the 1000 floats; the last 72 stay poison. */
    cml_results r;
    const char *const argv[] = {"5", "32", "8", "1000", "999"};
    if (!run_program(&cml_book_transpose, argv, 5, &r))
        return;
    const cml_record *k = launch_rec(&r, "transposeUnroll4Col");
    CHECK(k && k->bytes_written == 4ull * 4 * 232 * 999 && k->grid == 8 * 125);
    cml_results_free(&r);
}

/*
 * sumArrayZerocpy (1024 floats, block 512): 32 warps, 4 sectors a request
 * on either memory. sumMatrixGPU* (4096 x 4096, 32 x 32 blocks): 524288
 * warps; the warm-up (nx = ny = 1) one thread: 2 loads and a store of 1
 * sector each.
 */
static void test_sum_memory(void)
{
    cml_results r;
    if (!run_program(&cml_book_sum_array_zerocpy, NULL, 0, &r))
        return;
    expect_global(launch_rec(&r, "sumArrays"), 64, 256, 32, 128);
    expect_global(launch_rec(&r, "sumArraysZeroCopy"), 64, 256, 32, 128);
    cml_results_free(&r);
    const cml_book_program *m[] = {&cml_book_sum_matrix_managed, &cml_book_sum_matrix_manual};
    for (int i = 0; i < 2; i++) {
        if (!run_program(m[i], NULL, 0, &r))
            return;
        const cml_record *w = launch_rec(&r, "warmup");
        expect_global(w, 2, 2, 1, 1);
        CHECK(w && w->grid == 128 * 128 && w->block == 1024);
        expect_global(launch_rec(&r, "sumMatrixGPU"), 1048576, 4194304, 524288, 2097152);
        cml_results_free(&r);
    }
    /* a side below a warp: 2^3 = 8 columns, one block of 32 x 32 with 64
     * threads inside: 8 rows of 8 floats, a warp one row of 32 B: 1 sector */
    const char *const three[] = {"3"};
    if (!run_program(&cml_book_sum_matrix_manual, three, 1, &r))
        return;
    expect_global(launch_rec(&r, "sumMatrixGPU"), 16, 16, 8, 8);
    cml_results_free(&r);
}

/* ---- chapter 5 ----------------------------------------------------------- */

/*
 * checkSmemSquare: 32 warps, one a row of the 32 x 32 tile. A row is 32
 * banks: 1 wavefront; a column of the unpadded tile one bank 32 times: 32
 * (31 conflicts each, 992 in all); padded by 1, bank (tx * 33 + ty) % 32:
 * 32 banks. checkSmemRectangle: 16 warps; its column reads (irow = idx / 16,
 * icol = idx % 16: word icol * 32 + irow) meet two banks 16 times: 16
 * wavefronts (240 conflicts), tile[32][16] by columns (tx * 16 + ty) too;
 * padded by 2, (2 icol + irow) % 32 is 32 banks. Global: one coalesced
 * store a warp.
 */
static void test_check_smem(void)
{
    static const struct {
        const char *launch;
        uint64_t st_wf, ld_wf;
    } square[] = {{"setColReadCol", 1024, 1024},   {"setRowReadRow", 32, 32},
                  {"setRowReadCol", 32, 1024},      {"setRowReadColDyn", 32, 1024},
                  {"setRowReadColPad", 32, 32},     {"setRowReadColDynPad", 32, 32}},
      rect[] = {{"setRowReadRow", 16, 16},      {"setColReadCol", 256, 256},
                {"setColReadCol2", 256, 256},   {"setRowReadCol", 16, 256},
                {"setRowReadColDyn", 16, 256},  {"setRowReadColPad", 16, 16},
                {"setRowReadColDynPad", 16, 16}};
    cml_results r;
    if (!run_program(&cml_book_check_smem_square, NULL, 0, &r))
        return;
    CHECK_EQ_U64(r.count, 6);
    for (size_t i = 0; i < 6; i++) {
        const cml_record *rec = launch_rec(&r, square[i].launch);
        /* the book's order of launches */
        CHECK(rec == &r.items[i]);
        expect_shared(rec, CML_CLASS_SHARED_ST, square[i].st_wf, square[i].st_wf - 32);
        expect_shared(rec, CML_CLASS_SHARED_LD, square[i].ld_wf, square[i].ld_wf - 32);
        expect_global(rec, 0, 0, 32, 128);
        CHECK(rec && rec->grid == 1 && rec->block == 1024);
    }
    cml_results_free(&r);
    if (!run_program(&cml_book_check_smem_rectangle, NULL, 0, &r))
        return;
    CHECK_EQ_U64(r.count, 7);
    for (size_t i = 0; i < 7; i++) {
        const cml_record *rec = launch_rec(&r, rect[i].launch);
        CHECK(rec == &r.items[i]);
        expect_shared(rec, CML_CLASS_SHARED_ST, rect[i].st_wf, rect[i].st_wf - 16);
        expect_shared(rec, CML_CLASS_SHARED_LD, rect[i].ld_wf, rect[i].ld_wf - 16);
        expect_global(rec, 0, 0, 16, 64);
        CHECK(rec && rec->block == 512);
    }
    cml_results_free(&r);
}

/*
 * constantStencil / constantReadOnly (isize 2^24, BDIM 32: 2^19 warps, one
 * a block). in[] = d_in + 4 starts 16 bytes into a line: a warp's 128 bytes
 * take 5 sectors; the left halo (d_in[32b .. 32b + 3]) and the right one
 * (bytes 144..159 past the block's line) 1 each: 3 load requests, 7 sectors
 * a warp; out[] 1 request, 5 sectors. Shared: 3 stores (the tile, the two
 * halo parts) and 8 loads (smem[sidx +- i]), 1 wavefront each. The
 * read-only kernel adds 4 loads of one coefficient, 1 sector each.
 */
static void test_stencil(void)
{
    const uint64_t w = 1u << 19;
    cml_results r;
    if (!run_program(&cml_book_constant_stencil, NULL, 0, &r))
        return;
    CHECK_EQ_U64(r.count, 1);
    const cml_record *rec = launch_rec(&r, "stencil_1d");
    expect_global(rec, 3 * w, 7 * w, w, 5 * w);
    expect_shared(rec, CML_CLASS_SHARED_LD, 8 * w, 0);
    expect_shared(rec, CML_CLASS_SHARED_ST, 3 * w, 0);
    if (FOUND(rec)) {
        CHECK_EQ_U64(rec->grid, w);
        CHECK_EQ_U64(cls(rec, CML_RULES_MODERN, CML_CLASS_CONST_LD)->serialized, 4 * w);
    }
    cml_results_free(&r);
    if (!run_program(&cml_book_constant_read_only, NULL, 0, &r))
        return;
    CHECK_EQ_U64(r.count, 2);
    expect_global(launch_rec(&r, "stencil_1d"), 3 * w, 7 * w, w, 5 * w);
    rec = launch_rec(&r, "stencil_1d_read_only");
    expect_global(rec, 7 * w, 11 * w, w, 5 * w);
    if (FOUND(rec))
        CHECK_EQ_U64(cls(rec, CML_RULES_MODERN, CML_CLASS_CONST_LD)->requests, 0);
    cml_results_free(&r);
}

/*
 * reduceIntegerShfl (2^10 ints, 8 blocks of 128 = 4 warps): one coalesced
 * load a warp (32 requests, 128 sectors), one store a block. reduceSmem
 * per block: 4 shared stores of the tile, then warps 0-1 two loads and a
 * store (tid < 64), warp 0 six volatile steps of two loads and a store,
 * thread 0 one load: 17 loads, 12 stores, no conflict. reduceShfl: the
 * four lanes 0 store the warp sums (4 stores), lanes 0..3 of warp 0 load
 * them (1 load).
 */
static void test_reduce(void)
{
    cml_results r;
    if (!run_program(&cml_book_reduce_integer_shfl, NULL, 0, &r))
        return;
    const cml_record *smem = launch_rec(&r, "reduceSmem");
    expect_global(smem, 32, 128, 8, 8);
    expect_shared(smem, CML_CLASS_SHARED_LD, 17 * 8, 0);
    expect_shared(smem, CML_CLASS_SHARED_ST, 12 * 8, 0);
    const cml_record *shfl = launch_rec(&r, "reduceShfl");
    expect_global(shfl, 32, 128, 8, 8);
    expect_shared(shfl, CML_CLASS_SHARED_LD, 8, 0);
    expect_shared(shfl, CML_CLASS_SHARED_ST, 4 * 8, 0);
    cml_results_free(&r);
}

/* simpleShfl: 16 ints of 64 bytes (2 sectors) per scalar load or store;
 * the SEGM kernels' 4 lanes 16 bytes apart, 64 bytes: 2 sectors each of 4
 * loads and 4 stores (3 loads for test_shfl_array). */
static void test_simple_shfl(void)
{
    cml_results r;
    if (!run_program(&cml_book_simple_shfl, NULL, 0, &r))
        return;
    CHECK_EQ_U64(r.count, 15);
    expect_global(launch_rec(&r, "bcast"), 1, 2, 1, 2);
    expect_global(launch_rec(&r, "xor_minus_8"), 1, 2, 1, 2);
    expect_global(launch_rec(&r, "int4"), 4, 8, 4, 8);
    expect_global(launch_rec(&r, "swap_inline"), 4, 8, 4, 8);
    const cml_record *a = launch_rec(&r, "array");
    expect_global(a, 3, 6, 4, 8);
    CHECK(a && a->block == 4 && a->grid == 1);
    cml_results_free(&r);
}

int main(void)
{
    test_table();
    test_args();
    test_read_segment();
    test_read_segment_unroll();
    test_write_segment();
    test_simple_math();
    test_transpose();
    test_sum_memory();
    test_check_smem();
    test_stencil();
    test_reduce();
    test_simple_shfl();
    return cml_test_summary("test_book");
}
