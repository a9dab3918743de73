/*
 * The model side of experiment 23 (peer), without a GPU: which points the
 * model answers, the bytes a record counts, and the sectors that leave the
 * SMs for the remote array, against figures derived by hand below.
 *
 * Without device facts the remote array holds n = 2^24 elements (the
 * engine's size without a device), one thread per remote element read or
 * written: threads = (n - offset - 1) / stride + 1, 256 per block.
 */
#include <string.h>

#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "experiment_test_util.h"
#include "test_util.h"

#define N (1ull << 24)

static const cml_traffic *cls(const cml_record *rec, cml_class c)
{
    return &rec->model[CML_RULES_MODERN].cls[c];
}

/*
 * The default sweep on the model alone: one pair (gpu 0, peer 1) stands
 * for all; the local baseline (gpu == peer) needs a GPU. Copy engine: op 2
 * x dir 2 = 4. Kernels (read: sm, sm-cg; write: sm: 3) in one direction,
 * one element per thread and one pass: elem 2 x offset 2 x stride 3, less
 * the headline pattern (16-byte, offset 0, stride 1): 11 x 3 = 33; the
 * headline pattern at 1 and 8 per thread, 1 and 16 passes: 3 x 4 = 12.
 * Both at once, the headline pattern only: 3 x 4 = 12. 61 records.
 */
static void test_defaults(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_peer, NULL, &r) == CML_OK);
    CHECK_EQ_U64(r.count, 61);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        CHECK(rec->state == CML_REC_OK);
        CHECK(strstr(rec->variant, "peer=1 gpu=0") != NULL);
        CHECK(strstr(rec->variant, "method=sm-cg op=write") == NULL);
    }
    /* The copy engine, both ways: 2 x 2^24 x 16 bytes over the link,
     * counted once each, as remote reads. */
    const cml_record *ce = find(&r, "dir=both method=ce op=read peer=1 gpu=0");
    if (FOUND(ce)) {
        CHECK_EQ_U64(ce->bytes_read, 2 * N * 16);
        CHECK_EQ_U64(ce->bytes_written, 0);
        CHECK_NEAR(extra(ce, "link_sector_bytes"), 2.0 * N * 16, 0.5);
        CHECK(!ce->has_model || cls(ce, CML_CLASS_GLOBAL_LD)->requests == 0);
    }
    cml_results_free(&r);
}

/*
 * Pull, 4-byte elements, offset 1, stride 1: 2^24 - 1 threads, 524288
 * warps, the last of 31 lanes. A full warp's 128 bytes start 4 bytes into a
 * sector: 5 sectors; the last warp's 124 bytes end at a line: 4.
 * Sectors asked for: 524287 x 5 + 4 = 2621439.
 * Through L1 (sm): a block's 256 floats from byte 4 span 33 sectors, the
 * sector two warps of a block share hitting in L1; 65536 blocks, the last
 * missing its final float (one sector fewer): 65536 x 33 - 1 = 2162687
 * sectors leave the SMs, 69205984 bytes. At L2 only (sm-cg): every sector
 * asked for, 2621439 x 32 = 83886048.
 * Push, the same pattern on the stores: L1 writes through, 83886048.
 * Bytes used: (2^24 - 1) x 4 = 67108860.
 */
static void test_misaligned(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_peer,
                    "elem=4 offset=1 stride=1 ilp=1 passes=1 dir=one method=sm,sm-cg op=read,write", &r) ==
          CML_OK);
    CHECK_EQ_U64(r.count, 3);
    const cml_record *ca = find(&r, "elem=4 offset=1 stride=1 ilp=1 passes=1 dir=one method=sm op=read peer=1 "
                                    "gpu=0");
    if (FOUND(ca)) {
        CHECK_EQ_U64(cls(ca, CML_CLASS_GLOBAL_LD)->requests, 524288);
        CHECK_EQ_U64(cls(ca, CML_CLASS_GLOBAL_LD)->sectors, 2621439);
        CHECK_EQ_U64(ca->bytes_read, (N - 1) * 4);
        CHECK_NEAR(extra(ca, "link_useful_bytes"), 67108860.0, 0.5);
        CHECK_NEAR(extra(ca, "link_sector_bytes"), 69205984.0, 0.5);
    }
    const cml_record *cg = find(&r, "elem=4 offset=1 stride=1 ilp=1 passes=1 dir=one method=sm-cg op=read "
                                    "peer=1 gpu=0");
    if (FOUND(cg))
        CHECK_NEAR(extra(cg, "link_sector_bytes"), 83886048.0, 0.5);
    const cml_record *push = find(&r, "elem=4 offset=1 stride=1 ilp=1 passes=1 dir=one method=sm op=write "
                                      "peer=1 gpu=0");
    if (FOUND(push)) {
        CHECK_EQ_U64(cls(push, CML_CLASS_GLOBAL_ST)->sectors, 2621439);
        CHECK_EQ_U64(push->bytes_written, (N - 1) * 4);
        CHECK_EQ_U64(push->bytes_read, 0);
        CHECK_NEAR(extra(push, "link_sector_bytes"), 83886048.0, 0.5);
    }
    cml_results_free(&r);
}

/*
 * Stride 8, 4-byte elements, offset 0: 2^21 threads, 65536 warps, each
 * lane in its own sector (32 bytes apart): 32 sectors per request,
 * 2097152 sectors, 12.5% of their bytes used; 64 MiB in sectors for 8 MiB
 * used. 16-byte elements at stride 2: 2^23 threads, lanes 32 bytes apart,
 * each filling half a sector: 32 sectors per request, 50%.
 * Both at once (16-byte, stride 1): twice the bytes of one direction.
 */
static void test_strided(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_peer, "elem=4,16 offset=0 stride=1,2,8 ilp=1 passes=1 method=sm "
                                   "op=read",
                    &r) == CML_OK);
    /* one direction: 2 x 3; both: 16-byte stride 1 only */
    CHECK_EQ_U64(r.count, 7);
    const cml_record *s8 = find(&r, "elem=4 offset=0 stride=8 ilp=1 passes=1 dir=one method=sm op=read peer=1 "
                                    "gpu=0");
    if (FOUND(s8)) {
        CHECK_EQ_U64(cls(s8, CML_CLASS_GLOBAL_LD)->requests, 65536);
        CHECK_EQ_U64(cls(s8, CML_CLASS_GLOBAL_LD)->sectors, 2097152);
        CHECK_NEAR(cml_exp_eff(s8, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD), 0.125, 1e-9);
        CHECK_NEAR(extra(s8, "link_sector_bytes"), 64.0 * 1048576, 0.5);
        CHECK_NEAR(extra(s8, "link_useful_bytes"), 8.0 * 1048576, 0.5);
    }
    const cml_record *v2 = find(&r, "elem=16 offset=0 stride=2 ilp=1 passes=1 dir=one method=sm op=read "
                                    "peer=1 gpu=0");
    if (FOUND(v2)) {
        CHECK_EQ_U64(cls(v2, CML_CLASS_GLOBAL_LD)->requests, (1ull << 23) / 32);
        CHECK_NEAR(cml_exp_spr(v2, CML_CLASS_GLOBAL_LD), 32.0, 1e-9);
        CHECK_NEAR(cml_exp_eff(v2, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD), 0.5, 1e-9);
    }
    const cml_record *one = find(&r, "elem=16 offset=0 stride=1 ilp=1 passes=1 dir=one method=sm op=read peer=1 "
                                     "gpu=0");
    const cml_record *both = find(&r, "elem=16 offset=0 stride=1 ilp=1 passes=1 dir=both method=sm op=read "
                                      "peer=1 gpu=0");
    if (FOUND(one) && FOUND(both)) {
        CHECK_EQ_U64(one->bytes_read, N * 16);
        CHECK_EQ_U64(both->bytes_read, 2 * N * 16);
        CHECK_NEAR(extra(both, "link_sector_bytes"), 2.0 * extra(one, "link_sector_bytes"), 0.5);
    }
    cml_results_free(&r);
}

/*
 * Eight elements per thread, 16-byte elements, offset 1 (16 bytes), at L2:
 * 2^24 - 1 threads' worth of elements in 8192 blocks (2^21 threads, span
 * 2^21); the guard cuts segment 7 inside the last block (bb = 8191). The
 * same warps as one element per thread: 524288 requests, 524287 of 17
 * sectors (512 bytes from byte 16) and the last of 16: 8912895 sectors,
 * whichever thread moves them. Asked for by name, a deeper kernel runs
 * with any pattern.
 */
static void test_depth(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_peer, "elem=16 offset=1 stride=1 ilp=1,8 passes=1 dir=one method=sm-cg "
                                   "op=read",
                    &r) == CML_OK);
    CHECK_EQ_U64(r.count, 2);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->requests, 524288);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 8912895);
        CHECK_NEAR(extra(rec, "link_sector_bytes"), 8912895.0 * 32, 0.5);
    }
    const cml_record *deep = find(&r, "elem=16 offset=1 stride=1 ilp=8 passes=1 dir=one method=sm-cg "
                                      "op=read peer=1 gpu=0");
    if (FOUND(deep))
        CHECK_EQ_U64(deep->grid, 8192);
    cml_results_free(&r);
}

/*
 * Sixteen passes, 16-byte elements, eight per thread, at L2: the grid is
 * what the SMs hold at once, without device facts an H100's 132 SMs of
 * 2048 threads: 132 x 8 = 1056 blocks of 256 (fewer than the 8192 one pass
 * would take). Each pass moves all 2^24 elements in 524288 warp requests
 * of 16 sectors: 16 x 524288 = 8388608 requests, 134217728 sectors,
 * 2^32 bytes over the link.
 */
static void test_passes(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_peer, "elem=16 offset=0 stride=1 ilp=8 passes=16 dir=one "
                                   "method=sm-cg op=read",
                    &r) == CML_OK);
    CHECK_EQ_U64(r.count, 1);
    const cml_record *rec = find(&r, "elem=16 offset=0 stride=1 ilp=8 passes=16 dir=one "
                                     "method=sm-cg op=read peer=1 gpu=0");
    if (FOUND(rec)) {
        CHECK_EQ_U64(rec->grid, 1056);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->requests, 8388608);
        CHECK_EQ_U64(cls(rec, CML_CLASS_GLOBAL_LD)->sectors, 134217728);
        CHECK_EQ_U64(rec->bytes_read, 1ull << 32);
        CHECK_NEAR(extra(rec, "link_sector_bytes"), 4294967296.0, 0.5);
    }
    cml_results_free(&r);
}

/* The model answers the first pair of the lists with two GPUs. */
static void test_pairs(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_peer, "gpu=3 peer=3,5,6 method=ce dir=one op=read", &r) == CML_OK);
    CHECK_EQ_U64(r.count, 1);
    if (r.count)
        CHECK_STR_EQ(r.items[0].variant, "dir=one method=ce op=read peer=5 gpu=3");
    cml_results_free(&r);
    /* Only one GPU named: no pair, no record. */
    CHECK(run_model(&cml_exp_peer, "gpu=2 peer=2", &r) == CML_OK);
    CHECK_EQ_U64(r.count, 0);
    cml_results_free(&r);
}

static void test_refused(void)
{
    check_refused(&cml_exp_peer, "elem", "32", NULL);
    check_refused(&cml_exp_peer, "elem", "6", NULL);
    check_refused(&cml_exp_peer, "stride", "0", NULL);
    check_refused(&cml_exp_peer, "gpu", "64", NULL);
    check_refused(&cml_exp_peer, "method", "dma", NULL);
}

int main(void)
{
    test_defaults();
    test_misaligned();
    test_strided();
    test_depth();
    test_passes();
    test_pairs();
    test_refused();
    return cml_test_summary("test_peer");
}
