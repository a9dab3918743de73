/*
 * The intervals of the cache-level figures (cml_levels.lo, .hi:
 * docs/model.md §16.8), derived by hand for small kernels: a streaming
 * read (every figure a point, DRAM reads the granules it covers), a
 * streaming write (L2 writes a point; DRAM writes between what must leave
 * a full L2 and everything written), a re-read whose L1 hits depend on
 * how many warps share the L1 while it runs (lo 0, hi every re-read); and
 * the JSON round trip of the intervals: written, read back, a value
 * outside its interval refused with one clear line, a file without them
 * still read.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cumemlab/cache.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report_test_util.h"
#include "test_util.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * KIB)

/* ---- kernels ------------------------------------------------------------ */

enum {
    K_READ,
    K_WRITE16,
    K_REREAD,
    K_STORE_OFF1,
    K_REREAD_CG,
    K_SPREAD,
    K_COLUMN,
    K_LAST_STORE,
    K_PERM,
    K_SAME,
    K_SAME_CG,
    K_SUM
};

typedef struct kargs {
    int kind;
    uint64_t n; /* threads with work */
} kargs;

/*
 *   K_READ:    x = A[i]            (4 bytes a thread: 8 threads a sector)
 *   K_WRITE16: C4[i] = v           (16 bytes a thread, float4: 2 threads a sector)
 *   K_REREAD:  each warp w reads its own 2 KiB, A[w*512 + k*32 + lane] for
 *              k = 0..15 (one 128-byte line an instruction), twice
 *   K_STORE_OFF1: C[i + 1] = v  (4 bytes a thread, one element off alignment)
 *   K_REREAD_CG: K_REREAD through .cg loads (past L1)
 *   K_SPREAD:  C[i] = A[(i % 2^18) * 8 + i / 2^18] through .cg: rows of one
 *              sector, a lane each; column i / 2^18 (each sector is read
 *              again 2^18 threads later, beyond any sample's window)
 *   K_COLUMN:  C[(b*32 + lane) * 8 + w] = v for warp w of block b: a
 *              transpose's column store, each sector's 8 floats from the
 *              8 warps of one block
 *   K_LAST_STORE: x = A[i] for every thread; the grid's last block also
 *              stores C[tid] (256 floats, 32 sectors): stores no window of
 *              the first blocks meets
 *   K_SAME:    x = A[tid] in every block: each block reads the same 1 KiB
 *   K_SAME_CG: K_SAME through .cg loads (past L1)
 *   K_SUM:     C[i] = A[i] + B[i] (4 bytes each: unroll's kernel, U = 1)
 */
static void kernel(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const kargs *a = vargs;
    const uint64_t A = cml_array_base(0), C = cml_array_base(1);
    const uint64_t i = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    if (i >= a->n)
        return;
    switch (a->kind) {
    case K_READ:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 4 * i);
        break;
    case K_WRITE16:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 16, C + 16 * i);
        break;
    case K_STORE_OFF1:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * (i + 1));
        break;
    case K_COLUMN:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                 C + 4 * (((uint64_t)t->bid.x * 32 + t->tid.x % 32) * 8 + t->tid.x / 32));
        break;
    case K_SAME:
    case K_SAME_CG:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD,
                 a->kind == K_SAME ? CML_CACHE_CA : CML_CACHE_CG, 4, A + 4 * t->tid.x);
        break;
    case K_LAST_STORE:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 4 * i);
        if ((uint64_t)t->bid.x + 1u == t->gdim.x)
            cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * t->tid.x);
        break;
    case K_PERM:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CG, 4,
                 A + 4 * (i * UINT64_C(2654435761) % (UINT64_C(1) << 24)));
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    case K_SUM:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 4 * i);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, cml_array_base(2) + 4 * i);
        cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    case K_SPREAD: {
        const uint64_t rows = UINT64_C(1) << 18;
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CG, 4,
                 A + 4 * ((i % rows) * 8 + i / rows));
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    }
    default: {
        const uint64_t warp = i / 32, lane = i % 32;
        const cml_cache op = a->kind == K_REREAD_CG ? CML_CACHE_CG : CML_CACHE_CA;
        for (unsigned pass = 0; pass < 2; pass++)
            for (unsigned k = 0; k < 16; k++)
                cml_emit(e, pass * 16 + k, CML_SPACE_GLOBAL, CML_OP_LOAD, op, 4,
                         A + 4 * (warp * 512 + k * 32 + lane));
        break;
    }
    }
}

static cml_dim3 d1(uint64_t x)
{
    cml_dim3 d = {(uint32_t)x, 1, 1};
    return d;
}

/* The levels of `a` over blocks of 256 threads under c. */
static cml_levels levels_of(const cml_cache_config *c, const kargs *a)
{
    const uint64_t blocks = (a->n + 255) / 256;
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, d1(blocks), d1(256), kernel, a, &k) == CML_OK);
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    CHECK(cml_trace_levels(c, d1(blocks), d1(256), kernel, a, &k, &lv) == CML_OK);
    CHECK(lv.bounded);
    CHECK(cml_levels_bounds_ok(&lv));
    return lv;
}

#define CHECK_RANGE(lv, fig, lo_, val, hi_)                                                  \
    do {                                                                                   \
        CHECK_EQ_U64((lv).lo.fig, lo_);                                                    \
        CHECK_EQ_U64((lv).fig, val);                                                       \
        CHECK_EQ_U64((lv).hi.fig, hi_);                                                    \
    } while (0)

/* ---- a streaming read ---------------------------------------------------- */

/*
 * N = 4097 sectors, read once each (32776 threads, 8 a sector; 129 blocks
 * on 129 of the 132 SMs, so no L1 sees a sector twice): no L1 hit even in
 * an L1 that keeps everything, so L1 hits are the point 0 and L2 reads
 * the point N. DRAM: the 64-byte granules the sectors cover, ceil(N / 2) =
 * 2049 of them, are the compulsory reads (lo), and nothing is read twice
 * even in half the L2 (hi): the point 2049 * 64 = 131136. Nothing written.
 */
static void test_stream_read(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    kargs a = {K_READ, 4097 * 8};
    cml_levels lv = levels_of(&c, &a);
    CHECK_RANGE(lv, l1_hit_sectors, 0, 0, 0);
    CHECK_RANGE(lv, l2_read_sectors, 4097, 4097, 4097);
    CHECK_RANGE(lv, l2_write_sectors, 0, 0, 0);
    CHECK_RANGE(lv, dram_read_bytes, 2049 * 64, 2049 * 64, 2049 * 64);
    CHECK_RANGE(lv, dram_write_bytes, 0, 0, 0);

    /* 32-byte granules: the sectors themselves. */
    c.dram_granule = 32;
    lv = levels_of(&c, &a);
    CHECK_RANGE(lv, dram_read_bytes, 4097 * 32, 4097 * 32, 4097 * 32);

    /* 64 MiB (2^21 sectors, 2^24 threads): the sampled path, the same
     * points scaled from its samples. */
    cml_cache_config_h100(&c);
    kargs big = {K_READ, UINT64_C(1) << 24};
    lv = levels_of(&c, &big);
    CHECK(lv.sampled);
    CHECK_RANGE(lv, l1_hit_sectors, 0, 0, 0);
    CHECK_RANGE(lv, l2_read_sectors, 1u << 21, 1u << 21, 1u << 21);
    CHECK_RANGE(lv, dram_read_bytes, 64 * MIB, 64 * MIB, 64 * MIB);
}

/* ---- a streaming write ----------------------------------------------------- */

/* The H100's configuration with an L2 of 1 MiB (8192 lines) that writes a
 * dirty sector back once 768 KiB came in after it, and the oldest while
 * more than 512 KiB is dirty. */
static void small_l2(cml_cache_config *c)
{
    cml_cache_config_h100(c);
    c->l2_bytes = 1 * MIB;
    c->clean_age_bytes = 768 * KIB;
    c->partial_age_bytes = 768 * KIB;
    c->dirty_max_bytes = 512 * KIB;
}

/*
 * 2 MiB written once in whole sectors (131072 threads of 16 bytes: 65536
 * sectors, 16384 lines), on an L2 of 1 MiB (8192 lines) that writes a
 * dirty sector back once 768 KiB came in after it, and the oldest while
 * more than 512 KiB is dirty:
 *   - L2 writes: every store sector, 65536, a point;
 *   - point: the dirty limit comes first (512 KiB < 768 KiB), so 512 KiB
 *     is still dirty at the end and 2 MiB - 512 KiB = 1.5 MiB went back;
 *   - lo (no horizon: only what has no room leaves): L2 full of dirty
 *     lines, each new line evicts the oldest, 16384 - 8192 lines of 128
 *     bytes: 1 MiB;
 *   - hi (nothing left dirty at the end): all 2 MiB;
 *   - no reads: stores of whole sectors need none.
 */
static void test_stream_write(void)
{
    cml_cache_config c;
    small_l2(&c);
    kargs a = {K_WRITE16, 131072};
    cml_levels lv = levels_of(&c, &a);
    CHECK(!lv.sampled);
    CHECK_RANGE(lv, l2_write_sectors, 65536, 65536, 65536);
    CHECK_RANGE(lv, dram_write_bytes, 1 * MIB, 1536 * KIB, 2 * MIB);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 512 * KIB);
    CHECK_RANGE(lv, dram_read_bytes, 0, 0, 0);
    CHECK_RANGE(lv, l2_read_sectors, 0, 0, 0);

    /* The H100's horizon (35 MiB, dirty limit 24 MiB, on 50 MiB) over
     * 64 MiB (2^22 threads of 16 bytes, sampled): lo 64 - 50 = 14 MiB,
     * point 64 - 24 = 40 MiB, hi 64 MiB. */
    cml_cache_config_h100(&c);
    kargs big = {K_WRITE16, UINT64_C(1) << 22};
    lv = levels_of(&c, &big);
    CHECK(lv.sampled);
    CHECK_RANGE(lv, dram_write_bytes, 14 * MIB, 40 * MIB, 64 * MIB);
}

/* ---- reads and writes through one L2 ---------------------------------------- */

/*
 * C[i] = A[i] + B[i] over 2^19 threads: 2 MiB read from each of A and B,
 * 2 MiB written to C, on an L2 of 1 MiB (horizon 768 KiB, dirty limit
 * 512 KiB, as above). The order L2 gives up its lines in is not known:
 *   - lo: a replacement that gives up every clean line before a dirty one
 *     and no horizon keeps all of L2 dirty at the end: 2 MiB - 1 MiB =
 *     1 MiB written back. (LRU, the reads taking room as they come, would
 *     keep a third of L2 dirty, the share of the insertions that are
 *     writes: 2 MiB - 341 KiB. An H200 keeps more than that: unroll's
 *     blocks of 32 and 64, docs/model-evidence.md §2.3.)
 *   - hi: nothing left dirty at the end: all 2 MiB.
 * The same at the H100's size, sampled: 64 MiB written beside 128 MiB read
 * through 50 MiB of L2: lo 64 - 50 = 14 MiB, hi 64 MiB.
 */
static void test_reads_beside_writes(void)
{
    cml_cache_config c;
    small_l2(&c);
    kargs a = {K_SUM, UINT64_C(1) << 19};
    cml_levels lv = levels_of(&c, &a);
    CHECK_EQ_U64(lv.lo.dram_write_bytes, 1 * MIB);
    CHECK_EQ_U64(lv.hi.dram_write_bytes, 2 * MIB);
    CHECK(lv.dram_write_bytes > 1 * MIB && lv.dram_write_bytes < 2 * MIB);
    CHECK_EQ_U64(lv.lo.l2_write_sectors, 65536);
    CHECK_EQ_U64(lv.hi.l2_write_sectors, 65536);

    cml_cache_config_h100(&c);
    kargs big = {K_SUM, UINT64_C(1) << 24};
    lv = levels_of(&c, &big);
    CHECK(lv.sampled);
    CHECK_EQ_U64(lv.lo.dram_write_bytes, 14 * MIB);
    CHECK_EQ_U64(lv.hi.dram_write_bytes, 64 * MIB);
}

/* ---- reuse that depends on the interleaving -------------------------------- */

/*
 * 128 blocks of 256 threads on 16 SMs: 8 blocks an SM, all resident at
 * once (2048 threads), 64 warps sharing its L1 in lockstep. Each warp
 * reads its 2 KiB (16 lines) and then reads them again: 1024 warps x 32
 * instructions x 4 sectors = 131072 load sectors, 65536 a pass.
 *   - point (248 KiB of L1: 64 warps x 2 KiB = 128 KiB fit): the second
 *     pass hits, 65536 hits, 65536 L2 reads;
 *   - lo (the largest shared carve-out leaves 28 KiB = 224 lines): between
 *     a warp's two reads of a line the SM's warps touch 64 x 16 = 1024
 *     lines, so LRU has let it go: 0 hits, all 131072 sectors read from L2;
 *   - hi (an L1 that keeps every line): every second read hits, 65536.
 * DRAM reads the 2 MiB once in every case (L2 holds it all).
 */
static void test_reuse_interleaving(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.sm_count = 16;
    kargs a = {K_REREAD, 128 * 256};
    cml_levels lv = levels_of(&c, &a);
    CHECK(!lv.sampled);
    CHECK_EQ_U64(lv.resident_blocks, 8);
    CHECK_RANGE(lv, l1_hit_sectors, 0, 65536, 65536);
    CHECK_RANGE(lv, l2_read_sectors, 65536, 65536, 131072);
    CHECK_RANGE(lv, dram_read_bytes, 2 * MIB, 2 * MIB, 2 * MIB);
    CHECK(lv.lo.l1_hit_sectors < lv.hi.l1_hit_sectors);

    /* An L1 the caller fixed is known: at 16 KiB (128 lines) the point is
     * the low end too; only the unbounded L1 keeps the second pass. */
    c.l1_bytes = 16 * KIB;
    lv = levels_of(&c, &a);
    CHECK_RANGE(lv, l1_hit_sectors, 0, 0, 65536);
}

/* ---- blocks that share sectors, on SMs of their own ------------------------ */

/*
 * Which SM the block scheduler gives a block is not known, and Hopper's L2
 * Request Coalescer merges a read with another SM's request for the same
 * sector while it is in flight: the optimistic run takes every SM as one
 * (l1_pooled). K_SAME over 32 blocks on 16 SMs (two an SM, one wave):
 * every block reads the same 32 sectors, 1024 load sectors in all.
 *   - point (block b on SM b mod 16): each SM misses the 32 once, 16 x 32
 *     = 512 L2 reads, the other 512 hit;
 *   - pessimistic: 32 sectors fit any L1: the point again;
 *   - optimistic (one L1): all but the first 32 hit, 992; 32 L2 reads.
 * K_SAME_CG bypasses L1: 1024 L2 reads at the point and the high end, 32
 * at the low end (every later read merged), never a hit. DRAM reads the
 * 1 KiB once, 16 granules, in every case.
 */
static void test_shared_sectors(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.sm_count = 16;
    kargs a = {K_SAME, 32 * 256};
    cml_levels lv = levels_of(&c, &a);
    CHECK(!lv.sampled);
    CHECK_RANGE(lv, l1_hit_sectors, 512, 512, 992);
    CHECK_RANGE(lv, l2_read_sectors, 32, 512, 512);
    CHECK_RANGE(lv, dram_read_bytes, 1 * KIB, 1 * KIB, 1 * KIB);

    kargs g = {K_SAME_CG, 32 * 256};
    lv = levels_of(&c, &g);
    CHECK_RANGE(lv, l1_hit_sectors, 0, 0, 0);
    CHECK_RANGE(lv, l2_read_sectors, 32, 1024, 1024);
    CHECK_RANGE(lv, dram_read_bytes, 1 * KIB, 1 * KIB, 1 * KIB);

    /* Sampled (4096 blocks, 131072 load sectors): the span counts the 32
     * distinct sectors, so the extremes hold without the sample: at most
     * 131072 - 32 = 131040 hits, at least 32 L2 reads. */
    kargs big = {K_SAME, UINT64_C(1) << 20};
    lv = levels_of(&c, &big);
    CHECK(lv.sampled);
    CHECK_EQ_U64(lv.hi.l1_hit_sectors, 131040);
    CHECK_EQ_U64(lv.lo.l2_read_sectors, 32);

    /* Pooling is an extreme of the bounds only; a value other than 0 or 1
     * is refused. */
    c.l1_pooled = 2;
    CHECK(cml_cache_config_check(&c) == CML_EINVAL);
}

/* ---- reuse beyond the sample, in a grid that fits in L2 ------------------ */

/*
 * K_SPREAD over 2^20 threads (4096 blocks: sampled; the window is at most
 * 2^14 warp instructions, 2^18 threads, so it sees every load miss). A
 * warp's 32 lanes read 32 rows: 2^15 warps x 32 = 2^20 L2 read sectors;
 * C: 2^20 x 4 B / 32 = 131072 L2 write sectors. What the grid touches:
 * A's 2^18 rows (8 MiB, every sector and granule) and C (4 MiB), 12 MiB,
 * within the H100's 50 MiB, its halved 25 MiB and its 35 MiB horizon:
 * nothing is evicted, so DRAM reads are the compulsory 8 MiB (point, lo
 * and hi: the window's cold rate would say 32 MiB). Each of A's 2^18
 * sectors is read by 8 warps 2^18 threads apart: at least once in all
 * (every later read merged with one in flight, the L2 Request Coalescer's
 * extreme): L2 reads [262144, 1048576]; .cg, so no L1 hit. No write-back
 * happens (4 MiB dirty, under the 24 MiB limit): writes [0, 0, 4 MiB].
 * The fit rule: with two partitions each line may be held twice, so an
 * L2 of 24 MiB holds the 12 MiB and one 128 bytes smaller does not (the
 * window's rate comes back); a horizon below 12 MiB lets sectors age.
 */
static void test_spread_fits(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    kargs a = {K_SPREAD, UINT64_C(1) << 20};
    cml_levels lv = levels_of(&c, &a);
    CHECK(lv.sampled);
    CHECK_RANGE(lv, l1_hit_sectors, 0, 0, 0);
    CHECK_RANGE(lv, l2_read_sectors, 262144, 1048576, 1048576);
    CHECK_RANGE(lv, l2_write_sectors, 131072, 131072, 131072);
    CHECK_RANGE(lv, dram_read_bytes, 8 * MIB, 8 * MIB, 8 * MIB);
    CHECK_RANGE(lv, dram_write_bytes, 0, 0, 4 * MIB);
    CHECK_EQ_U64(lv.footprint_bytes, 12 * MIB);

    c.l2_partitions = 2;
    c.l2_bytes = 24 * MIB;
    lv = levels_of(&c, &a);
    CHECK_EQ_U64(lv.dram_read_bytes, 8 * MIB);
    c.l2_bytes = 24 * MIB - 128;
    lv = levels_of(&c, &a);
    CHECK(lv.dram_read_bytes > 16 * MIB);

    cml_cache_config_h100(&c);
    c.clean_age_bytes = 12 * MIB - 128;
    lv = levels_of(&c, &a);
    CHECK(lv.dram_write_bytes > 0);
}

/* ---- a gather over a whole array, beyond the window ------------------------ */

/*
 * K_PERM over 2^24 threads: 2^19 warps of one load and one store, 2^20
 * warp instructions (beyond CML_SPAN_INS). Each lane reads its own sector,
 * and the window's loads hardly ever meet a granule twice: every L2 read
 * sector costs a 64-byte granule, whose other half some later block asks
 * for. Carried to the end, the window's rate says 2^24 x 64 = 1 GiB, and
 * so did the optimistic run, the low end: an L2 that keeps everything
 * reads each of A's granules once, 64 MiB. The span pass (granules half of
 * which the window never asked for) counts them: lo = 64 MiB exactly. C
 * (64 MiB) and A do not fit in L2 together: the point keeps the window's
 * rate, above the low end.
 */
static void test_whole_array_gather(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    kargs a = {K_PERM, UINT64_C(1) << 24};
    cml_levels lv = levels_of(&c, &a);
    CHECK(lv.sampled);
    CHECK_EQ_U64(lv.lo.dram_read_bytes, 64 * MIB);
    CHECK(lv.dram_read_bytes > 512 * MIB);
    CHECK_RANGE(lv, l2_write_sectors, UINT64_C(1) << 21, UINT64_C(1) << 21, UINT64_C(1) << 21);
}

/* ---- stores no window meets ------------------------------------------------------ */

/*
 * K_LAST_STORE over 2^22 threads (16384 blocks, sampled): the window of
 * the first blocks meets no store, so there is no rate to carry to the
 * last block's 32 store sectors. Each is taken as dirtied anew and, as
 * the kernel's last stores, still dirty in L2 at its end (1 KiB, within
 * every horizon): no write-back while the kernel runs (the point), each
 * written back once at most (hi 1 KiB). DRAM reads: the 16 MiB of A.
 */
static void test_unseen_stores(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    kargs a = {K_LAST_STORE, UINT64_C(1) << 22};
    cml_levels lv = levels_of(&c, &a);
    CHECK(lv.sampled);
    CHECK_RANGE(lv, l2_write_sectors, 32, 32, 32);
    CHECK_RANGE(lv, dram_write_bytes, 0, 0, 1 * KIB);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 1 * KIB);
    CHECK_RANGE(lv, dram_read_bytes, 16 * MIB, 16 * MIB, 16 * MIB);
}

/* ---- the intervals in results files ------------------------------------------ */

/* The text of `member` in the first object after `key` (the writer's
 * layout between them is its own); NULL, a failed check, if absent. */
static char *member_after(char *text, const char *key, const char *member)
{
    char *p = strstr(text, key);
    char *q = p ? strstr(p, member) : NULL;
    CHECK(q != NULL);
    return q;
}

/* Overwrite the first `from` after `key` with `to` (as long). */
static void replace_after(char *text, const char *key, const char *from, const char *to)
{
    char *q = member_after(text, key, from);
    CHECK(strlen(from) == strlen(to));
    if (q)
        memcpy(q, to, strlen(to));
}

static void test_json(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.sm_count = 16;
    kargs a = {K_REREAD, 128 * 256};
    cml_results r;
    cml_results_init(&r);
    cml_record *rec = cml_results_add(&r, "bounds", "reread");
    CHECK(rec != NULL);
    if (!rec)
        return;
    rec->has_model = 1;
    rec->has_levels = 1;
    rec->cache = c;
    rec->levels = levels_of(&c, &a);
    cml_status st;
    char *text = render_to_memory(cml_report_json, &r, NULL, &st);
    CHECK(st == CML_OK);
    member_after(text, "\"lo\": {", "\"l1_hit_sectors\": 0,");
    member_after(text, "\"lo\": {", "\"l2_read_sectors\": 65536,");
    member_after(text, "\"hi\": {", "\"l1_hit_sectors\": 65536,");
    member_after(text, "\"hi\": {", "\"l2_read_sectors\": 131072,");

    cml_results back;
    char err[640] = "";
    CHECK(cml_results_from_json(text, strlen(text), &back, err, sizeof err) == CML_OK);
    if (back.count == 1) {
        const cml_levels *l = &back.items[0].levels;
        CHECK(l->bounded);
        CHECK_EQ_U64(l->lo.l1_hit_sectors, 0);
        CHECK_EQ_U64(l->hi.l1_hit_sectors, 65536);
        CHECK_EQ_U64(l->hi.l2_read_sectors, 131072);
        CHECK_EQ_U64(l->lo.dram_read_bytes, 2 * MIB);
        cml_results_free(&back);
    }

    /* An upper bound below its value: refused, naming the figure. */
    char *bad = strdup(text);
    replace_after(bad, "\"hi\": {", "\"l1_hit_sectors\": 65536", "\"l1_hit_sectors\": 65535");
    err[0] = '\0';
    CHECK(cml_results_from_json(bad, strlen(bad), &back, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "levels.l1_hit_sectors: 65536 lies outside its interval [0, 65535]");
    CHECK(strchr(err, '\n') == NULL);
    free(bad);

    /* One bound without the other: refused. */
    bad = strdup(text);
    replace_after(bad, "\"hi\": {", "\"hi\"", "\"hx\"");
    CHECK(cml_results_from_json(bad, strlen(bad), &back, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "missing member \"hi\"");
    free(bad);

    /* Neither (a file written before the intervals): read, no interval. */
    bad = strdup(text);
    replace_after(bad, "\"lo\": {", "\"lo\"", "\"lx\"");
    replace_after(bad, "\"hi\": {", "\"hi\"", "\"hx\"");
    CHECK(cml_results_from_json(bad, strlen(bad), &back, err, sizeof err) == CML_OK);
    if (back.count == 1) {
        CHECK(!back.items[0].levels.bounded);
        CHECK(back.items[0].has_levels);
        cml_results_free(&back);
    }
    free(bad);
    free(text);
    cml_results_free(&r);
}

/* ---- partial sectors written back before they are complete ------------------ */

/*
 * K_COLUMN over 16 blocks (one an SM): 512 sectors, each written by the 8
 * warps of its block one float at a time, 4096 store sectors, 16 KiB.
 *   - point (horizons 35 and 12 MiB, far beyond 16 KiB): every sector is
 *     complete long before it could age; all 16 KiB still dirty at the end,
 *     nothing read or written back: DRAM reads 0, writes 0 (hi 16 KiB, all
 *     of it written back by the end).
 *   - pessimistic (the partial horizon at its least, one sector): warp 0 of
 *     a block brings its 32 sectors in partial, and each is merged (a
 *     32-byte read) and written back as the next one comes in; the 32nd
 *     has no successor before warps 1-7 complete it. Warps 1-7 find 31
 *     sectors whole and clean, and dirty them again. So 31 merges a block,
 *     496 in all: reads hi 496 * 32 = 15872; writes hi those 15872 and the
 *     16 KiB dirty at the end, 32256.
 *   - L2 writes: 4096 store sectors at the point; 512 if every store of a
 *     sector its SM stored before merges (lo).
 */
static void test_partial_horizon(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    kargs col = {K_COLUMN, 16 * 256};
    cml_levels lv = levels_of(&c, &col);
    CHECK(!lv.sampled);
    CHECK_RANGE(lv, l2_write_sectors, 512, 4096, 4096);
    CHECK_RANGE(lv, dram_read_bytes, 0, 0, 15872);
    CHECK_RANGE(lv, dram_write_bytes, 0, 0, 32256);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 16 * KIB);

    /* A configuration with no early write-back at all keeps none: the
     * extreme moves only a horizon the model has. */
    c.clean_age_bytes = c.partial_age_bytes = c.dirty_max_bytes = 0;
    lv = levels_of(&c, &col);
    CHECK_RANGE(lv, dram_read_bytes, 0, 0, 0);
    CHECK_RANGE(lv, dram_write_bytes, 0, 0, 16 * KIB);
}

/* ---- requests merged in L1 -------------------------------------------------- */

/*
 * How long L1TEX holds a request, so whether a second request of the same
 * SM for the same sector merges with it, is not known: the lower bounds of
 * L2 writes and of L2 reads past L1 take every such request as merged.
 *   - C[i + 1] = v over 100 blocks of 256 threads (one block an SM): warp w
 *     covers bytes 4*(32w+1) .. 4*(32w+33) - 1, sectors 4w .. 4w+4, five
 *     (the point: 5 * 800 = 4000 L2 writes). Sector 4w+4 is also warp
 *     w+1's first: the 800 warps touch 4*800 + 1 = 3201 sectors, the low
 *     end (every SM as one: neighbouring blocks may share an SM).
 *   - K_REREAD through .cg over 4 blocks: 32 warps each read 64 sectors
 *     twice past L1, 4096 L2 reads at the point, 2048 if every second read
 *     meets the first; no L1 hit either way (a merged request is no hit).
 *   - 2^24 threads of C[i + 1] (the sampled path): 2^19 warps, the point
 *     5 * 2^19 = 2621440, the bound the window's and the rest at its second
 *     half's merged share, one of every five store sectors (every SM as
 *     one): the 4 * 2^19 + 1 = 2097153 sectors the grid touches.
 */
static void test_l1_merge(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    kargs st = {K_STORE_OFF1, 100 * 256};
    cml_levels lv = levels_of(&c, &st);
    CHECK_RANGE(lv, l2_write_sectors, 3201, 4000, 4000);
    CHECK_RANGE(lv, l2_read_sectors, 0, 0, 0);

    kargs cg = {K_REREAD_CG, 4 * 256};
    lv = levels_of(&c, &cg);
    CHECK_RANGE(lv, l2_read_sectors, 2048, 4096, 4096);
    CHECK_RANGE(lv, l1_hit_sectors, 0, 0, 0);

    kargs big = {K_STORE_OFF1, UINT64_C(1) << 24};
    lv = levels_of(&c, &big);
    CHECK(lv.sampled);
    CHECK_RANGE(lv, l2_write_sectors, 2097153, 2621440, 2621440);

    /* The point never merges; a configuration asking for a merge mode the
     * simulator does not have is refused. */
    c.l1_merge = 2;
    CHECK(cml_cache_config_check(&c) == CML_EINVAL);
}

int main(void)
{
    test_stream_read();
    test_stream_write();
    test_reads_beside_writes();
    test_reuse_interleaving();
    test_l1_merge();
    test_shared_sectors();
    test_partial_horizon();
    test_spread_fits();
    test_unseen_stores();
    test_whole_array_gather();
    test_json();
    return cml_test_summary("test_cache_bounds");
}
