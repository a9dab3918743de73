/*
 * Every constant of the cache-level model (src/model/cache_sim.c,
 * cache_kernel.c, include/cumemlab/cache.h) pinned by a small access
 * pattern whose figures are derived by hand from it: move the constant by a
 * realistic amount, either way, and a figure below changes. The H100
 * configuration (cml_cache_config_h100) is used as it is, except for fields
 * that are not the constant under test (noted where set).
 *
 *   constant                                 value            pinned by
 *   write-back horizon (clean_age_bytes)     35 MiB           test_horizon
 *   partial-sector horizon                   12 MiB           test_partial_age
 *   dirty maximum                            24 MiB           test_dirty_max
 *   L2 capacity; one L2 (l2_partitions)      50 MiB; 1        test_l2_capacity
 *   DRAM granule                             64 B             test_granule
 *   L1 and shared memory per SM              256 KiB          test_carveout
 *   carve-out steps (carveout_kib)           0, 8 .. 228 KiB  test_carveout
 *   shared memory each block keeps           1 KiB            test_carveout,
 *                                                             test_residency
 *   threads, blocks, shared memory per SM    2048, 32, 228 KiB test_residency
 *   SMs                                      132              test_sm_count
 *   local region of a warp                   2^37 B           test_local_regions
 *   (LOCAL_REGION_BITS)
 *   whole simulation (CML_LEVELS_FULL_THREADS, 2^18 threads,   test_whole_limits
 *   FULL_INS)                                2^16 instructions
 *   feed buffer (MAX_BUFFERED)               2^16 instructions test_feed_buffer
 *   SM 0's sample (REP_INS), two waves       2^11 instructions test_samples
 *   window rounds (ROUND_INS, MIN_ROUNDS)    2^9 instructions, 6 test_samples
 *   window length (WINDOW_INS)               2^14 instructions test_window
 *   rows of blocks (ROWS_INS)                2^16 instructions test_rows
 *   rates that agree (settled)               within 2%        test_settled
 *
 * Step 0 of the carve-out is never chosen (every block keeps 1 KiB, so the
 * need is at least that); moved up to a size a need fits, the 8 KiB case
 * sees it. Not pinned: the partition hash and an SM's near half (two
 * partitions are an option, off by default; tests/test_cache_model.c
 * exercises the rule), and the sizes of hash tables and queues (they change
 * speed, not figures).
 *
 * Sizes: KiB and MiB are 2^10 and 2^20 bytes; a sector is 32 bytes.
 */
#include "cumemlab/cache.h"
#include "test_util.h"

#include <stdint.h>
#include <string.h>

#define KIB UINT64_C(1024)
#define MIB (KIB * KIB)
#define SECTORS(bytes) ((bytes) / 32u)

/* ---- the simulator, fed directly ------------------------------------------ */

/* A warp instruction of 32 lanes (those below `lanes` active), lane l at
 * base + step * l. */
static cml_access warp_at(cml_space space, cml_op op, cml_cache cache, unsigned width,
                          uint64_t base, uint64_t step, unsigned lanes)
{
    cml_access a;
    memset(&a, 0, sizeof a);
    a.space = space;
    a.op = op;
    a.cache = cache;
    a.width = width;
    a.active = lanes >= 32 ? 0xFFFFFFFFu : (UINT32_C(1) << lanes) - 1u;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++)
        a.addr[l] = base + step * l;
    return a;
}

static cml_cache_sim *sim_for(const cml_cache_config *c, uint64_t threads)
{
    cml_cache_sim *s = NULL;
    CHECK(cml_cache_sim_new(c, threads, &s) == CML_OK);
    return s;
}

/* `bytes` from `base` on SM 0 in 16-byte lanes: whole sectors, 512 bytes an
 * instruction (half = 0), or the first 16 bytes of each sector, 32 sectors
 * an instruction (half = 1). */
static void stream(cml_cache_sim *s, cml_op op, uint64_t base, uint64_t bytes, int half)
{
    const uint64_t step = half ? 32 : 16, span = step * CML_WARP_SIZE;
    int ok = 1;
    for (uint64_t at = 0; at < bytes && ok; at += span) {
        cml_access a = warp_at(CML_SPACE_GLOBAL, op, CML_CACHE_CG, 16, base + at, step, 32);
        ok = cml_cache_sim_access(s, 0, 0, &a) == CML_OK;
    }
    CHECK(ok);
}

/* ---- the write-back constants ----------------------------------------------- */

/*
 * The horizon: a dirty sector goes back to DRAM once 35 MiB (1146880
 * sectors) have been brought into L2 after it became dirty. 8 MiB written
 * whole (262144 sectors, dirty since insertion 1, 2, ..., 262144), then
 * 32 MiB of fresh lines read (1048576 insertions): the clock ends at
 * 1310720, and the sectors dirty since at most 1310720 - 1146880 = 163840
 * have aged out: 163840 x 32 B = 5 MiB written back, 3 MiB still dirty.
 * (A 25 MiB horizon writes back all 8 MiB, a 45 MiB one nothing.) 40 MiB
 * in all: no eviction; 8 MiB dirty: below the dirty maximum.
 */
static void test_horizon(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    cml_cache_sim *s = sim_for(&c, 256);
    if (!s)
        return;
    stream(s, CML_OP_STORE, cml_array_base(0), 8 * MIB, 0);
    stream(s, CML_OP_LOAD, cml_array_base(1), 32 * MIB, 0);
    cml_levels lv;
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l2_write_sectors, SECTORS(8 * MIB));
    CHECK_EQ_U64(lv.dram_write_bytes, 5 * MIB);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 3 * MIB);
    CHECK_EQ_U64(lv.dram_read_bytes, 32 * MIB); /* every read a miss; no merge */
    cml_cache_sim_free(s);
}

/*
 * The partial horizon: a sector holding some of its bytes goes back after
 * 12 MiB (393216 sectors) of insertions, merged with a 32-byte DRAM read.
 * 131072 sectors half written (dirty since 1..131072), then 10 MiB of fresh
 * lines read (327680 insertions): the clock ends at 458752, and the sectors
 * dirty since at most 458752 - 393216 = 65536 have aged: 65536 x 32 B =
 * 2 MiB written back, each merged (2 MiB read beside the 10 MiB), 65536
 * sectors (2 MiB) still dirty. (20 MiB: nothing written; 8 MiB: all 4 MiB.)
 */
static void test_partial_age(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    cml_cache_sim *s = sim_for(&c, 256);
    if (!s)
        return;
    stream(s, CML_OP_STORE, cml_array_base(0), 131072 * 32, 1);
    stream(s, CML_OP_LOAD, cml_array_base(1), 10 * MIB, 0);
    cml_levels lv;
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l2_write_sectors, 131072);
    CHECK_EQ_U64(lv.dram_write_bytes, 2 * MIB);
    CHECK_EQ_U64(lv.dram_read_bytes, 10 * MIB + 2 * MIB);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 2 * MIB);
    cml_cache_sim_free(s);
}

/*
 * The dirty maximum: while more than 24 MiB (786432 sectors) are dirty, the
 * oldest go back. 32 MiB written whole (1048576 sectors) and nothing else:
 * 8 MiB written back, 24 MiB dirty at the end. None ages on the 35 MiB
 * horizon first: the clock ends at 1048576, below 1 + 1146880. (40 MiB:
 * nothing written back; 20 MiB: 12 MiB.)
 */
static void test_dirty_max(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    cml_cache_sim *s = sim_for(&c, 256);
    if (!s)
        return;
    stream(s, CML_OP_STORE, cml_array_base(0), 32 * MIB, 0);
    cml_levels lv;
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.dram_write_bytes, 8 * MIB);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 24 * MIB);
    CHECK_EQ_U64(lv.dram_read_bytes, 0);
    cml_cache_sim_free(s);
}

/* ---- capacities ----------------------------------------------------------------- */

/*
 * Lines 0 .. want+63 of a fresh array read on SM 0, one sector each (32
 * lines an instruction), through `cache`; then line 64 and line 63 again.
 * In a cache of `want` lines, least recently used replaced, line 64 is the
 * oldest still held and line 63 the newest evicted: returns 1 (line 64 hit,
 * line 63 missed). A larger cache returns 3 (both hit), a smaller one 0.
 * Hits are L1's for .ca, L2's for .cg.
 */
static unsigned probe(const cml_cache_config *c, uint64_t threads, cml_cache cache, uint64_t want)
{
    cml_cache_sim *s = sim_for(c, threads);
    if (!s)
        return 99;
    const uint64_t A = cml_array_base(0), n = want + 64;
    int ok = 1;
    for (uint64_t line = 0; line < n && ok; line += 32) {
        const unsigned lanes = n - line < 32 ? (unsigned)(n - line) : 32u;
        cml_access a =
            warp_at(CML_SPACE_GLOBAL, CML_OP_LOAD, cache, 4, A + 128 * line, 128, lanes);
        ok = cml_cache_sim_access(s, 0, 0, &a) == CML_OK;
    }
    unsigned got = 0;
    for (unsigned k = 0; k < 2 && ok; k++) {
        cml_levels before, after;
        cml_cache_sim_levels(s, &before);
        cml_access a = warp_at(CML_SPACE_GLOBAL, CML_OP_LOAD, cache, 4, A + 128 * (64 - k), 0, 1);
        ok = cml_cache_sim_access(s, 0, 0, &a) == CML_OK;
        cml_cache_sim_levels(s, &after);
        const uint64_t hit = cache == CML_CACHE_CG
                                 ? after.l2_read_hit_sectors - before.l2_read_hit_sectors
                                 : after.l1_hit_sectors - before.l1_hit_sectors;
        got |= (unsigned)hit << k;
    }
    CHECK(ok);
    cml_cache_sim_free(s);
    return got;
}

/* One L2 of 50 MiB: 409600 lines. (Two partitions of 25 MiB each, or 45
 * or 55 MiB, give 0 or 3.) */
static void test_l2_capacity(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    CHECK_EQ_U64(probe(&c, 256, CML_CACHE_CG, 50 * MIB / 128), 1);
}

/* A read miss fetches the 64-byte granule around its sector: 32 lanes on
 * 32 lines, one sector each, read 32 x 64 B = 2048 B (32-byte granules:
 * 1024). */
static void test_granule(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    cml_cache_sim *s = sim_for(&c, 256);
    if (!s)
        return;
    cml_access a =
        warp_at(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CG, 4, cml_array_base(0), 128, 32);
    CHECK(cml_cache_sim_access(s, 0, 0, &a) == CML_OK);
    cml_levels lv;
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l2_read_sectors, 32);
    CHECK_EQ_U64(lv.dram_read_bytes, 32 * 64);
    cml_cache_sim_free(s);
}

/*
 * L1 capacity = 256 KiB of L1 and shared memory, less the smallest
 * carve-out step (8, 16, 32, 64, 100, 132, 164, 196, 228 KiB) that holds
 * the resident blocks' shared memory, each block's plus the 1 KiB it keeps.
 * Blocks of 1024 threads: 2 resident (2048 threads per SM). Each case puts
 * the need exactly on a step, so a step moved down (the need no longer
 * fits: the next step) or up (a larger carve-out) changes the capacity.
 */
static void test_carveout(void)
{
    static const struct {
        uint64_t threads, smem_kib, l1_kib;
        const char *why;
    } cases[] = {
        {1024, 0, 248, "2 x (0 + 1) = 2 KiB: step 8"},
        {1024, 7, 240, "2 x (7 + 1) = 16 KiB: step 16"},
        {1024, 15, 224, "2 x 16 = 32 KiB: step 32"},
        {1024, 31, 192, "2 x 32 = 64 KiB: step 64"},
        {1024, 49, 156, "2 x 50 = 100 KiB: step 100"},
        {1024, 65, 124, "2 x 66 = 132 KiB: step 132"},
        {1024, 81, 92, "2 x 82 = 164 KiB: step 164"},
        {1024, 97, 60, "2 x 98 = 196 KiB: step 196"},
        /* 32 blocks of 64 threads, no shared memory: the 1 KiB each keeps
         * is the whole need, 32 KiB (none kept: 0 KiB, step 0, 256 KiB of
         * L1; 2 KiB each: step 64). */
        {64, 0, 224, "32 x (0 + 1) = 32 KiB: step 32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cml_cache_config c;
        cml_cache_config_h100(&c);
        c.smem_per_block = cases[i].smem_kib * KIB;
        const uint64_t lines = cases[i].l1_kib * KIB / 128;
        CHECK_EQ_U64(cml_cache_l1_bytes(&c, cases[i].threads), cases[i].l1_kib * KIB);
        const unsigned got = probe(&c, cases[i].threads, CML_CACHE_CA, lines);
        if (got != 1)
            fprintf(stderr, "carve-out case %zu (%s): probe %u\n", i, cases[i].why, got);
        CHECK_EQ_U64(got, 1);
    }
    /* The last step, 228 KiB, is the H100's whole shared memory, which is
     * also what a need beyond every step gets: it shows on an SM with more.
     * 256 KiB of shared memory in 288 KiB: 2 blocks of 113 + 1 KiB = 228 KiB,
     * step 228, 60 KiB of L1 (step 220: none fits, 256 KiB, 32 KiB of L1;
     * step 236: 52 KiB). */
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.l1_total_bytes = 288 * KIB;
    c.smem_per_sm = 256 * KIB;
    c.smem_per_block = 113 * KIB;
    CHECK_EQ_U64(cml_cache_l1_bytes(&c, 1024), 60 * KIB);
    CHECK_EQ_U64(probe(&c, 1024, CML_CACHE_CA, 60 * KIB / 128), 1);
}

/* ---- whole kernels -------------------------------------------------------------- */

enum { K_LINES, K_STREAM, K_SQRT, K_FRESH };

typedef struct kargs {
    int kind;
    unsigned count; /* K_LINES: lines read in turn; K_STREAM: loads per thread */
    uint64_t fresh; /* K_FRESH: F, below */
} kargs;

static uint64_t isqrt(uint64_t v)
{
    uint64_t r = 0;
    while ((r + 1) * (r + 1) <= v)
        r++;
    return r;
}

/*
 * Every load 4 bytes per lane, 32 lanes on one line: 4 sectors a warp
 * instruction. With b the block's linear index and i the thread's:
 *   K_LINES:  instruction j (j < count) reads line j, the same for every warp
 *   K_STREAM: load k (k < count) reads float i + k x (threads in the grid)
 *   K_SQRT:   (one warp per block) reads line isqrt(b)
 *   K_FRESH:  (one warp per block) reads line b when b < 1024 or
 *             1536 <= b < 1536 + F ("fresh"), else line 0
 */
static void kernel(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const kargs *a = vargs;
    const uint64_t A = cml_array_base(0);
    const uint64_t b = (uint64_t)t->bid.y * t->gdim.x + t->bid.x;
    const uint64_t i = b * t->bdim.x + t->tid.x;
    const uint64_t lane = 4u * t->lane;
    switch (a->kind) {
    case K_LINES:
        for (unsigned j = 0; j < a->count; j++)
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 128u * j + lane);
        break;
    case K_STREAM: {
        const uint64_t all = (uint64_t)t->gdim.x * t->gdim.y * t->bdim.x;
        for (unsigned k = 0; k < a->count; k++)
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 4u * (i + k * all));
        break;
    }
    case K_SQRT:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 128u * isqrt(b) + lane);
        break;
    default: {
        const int fresh = b < 1024 || (b >= 1536 && b < 1536 + a->fresh);
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
                 A + 128u * (fresh ? b : 0) + lane);
        break;
    }
    }
}

static cml_dim3 dim(uint32_t x, uint32_t y)
{
    cml_dim3 d = {x, y, 1};
    return d;
}

/* The kernels' exact totals, by hand: `ins` warp instructions of global
 * loads, 4 sectors each (all that cml_trace_levels reads of them). */
static cml_kernel_traffic hand_exact(uint64_t ins)
{
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    k.cls[CML_CLASS_GLOBAL_LD].instructions = ins;
    k.cls[CML_CLASS_GLOBAL_LD].requests = ins;
    k.cls[CML_CLASS_GLOBAL_LD].sectors = 4 * ins;
    return k;
}

/* The levels of a kernel; `exact` NULL: simulated whole. */
static cml_levels levels(const cml_cache_config *c, cml_dim3 grid, uint32_t threads,
                         const kargs *a, const cml_kernel_traffic *exact)
{
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    CHECK(cml_trace_levels(c, grid, dim(threads, 1), kernel, a, exact, &lv) == CML_OK);
    return lv;
}

/* The hand totals are the tracer's, on grids small enough to trace. */
static void test_hand_totals(void)
{
    static const kargs ks[] = {{K_STREAM, 3, 0}, {K_SQRT, 0, 0}, {K_FRESH, 0, 600}};
    static const uint32_t threads[] = {256, 32, 32};
    for (size_t i = 0; i < 3; i++) {
        const cml_dim3 g = dim(3000 / threads[i] + 1, 2);
        cml_kernel_traffic k;
        memset(&k, 0, sizeof k);
        CHECK(cml_trace_kernel(CML_RULES_MODERN, g, dim(threads[i], 1), kernel, &ks[i], &k) ==
              CML_OK);
        const uint64_t warps = (uint64_t)g.x * g.y * threads[i] / 32;
        const cml_kernel_traffic h = hand_exact(warps * (ks[i].kind == K_STREAM ? 3 : 1));
        CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].instructions,
                     h.cls[CML_CLASS_GLOBAL_LD].instructions);
        CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].sectors, h.cls[CML_CLASS_GLOBAL_LD].sectors);
    }
}

/*
 * Residency: blocks on one SM run in groups of R (threads, blocks and
 * shared memory per SM), their warps in turn. K_LINES with 2 lines and an
 * L1 of one line (l1_bytes and sm_count are not under test here): in each
 * group the first warp misses each line and the others hit, so L1 hits =
 * 2 x 4 x (warps - groups). Each pair of cases puts B blocks at R (one
 * group: an R one lower splits it) and at R + 1 (two groups: an R one
 * higher joins them).
 */
static void test_residency(void)
{
    static const struct {
        uint32_t threads;
        uint64_t smem_kib, blocks, hits;
        const char *why;
    } cases[] = {
        /* 2048 threads per SM: 16 blocks of 128 (4 warps). */
        {128, 0, 16, 8 * (64 - 1), "2048 / 128 = 16 resident: one group"},
        {128, 0, 17, 8 * (68 - 2), "16 + 1: two groups"},
        /* 32 blocks per SM: 32 blocks of 32 threads (2048 / 32 = 64 by threads). */
        {32, 0, 32, 8 * (32 - 1), "32 resident: one group"},
        {32, 0, 33, 8 * (33 - 2), "32 + 1: two groups"},
        /* 228 KiB of shared memory per SM, 1 KiB kept per block:
         * 228 / (56 + 1) = 4 exactly; 228 / (45 + 1) = 4.96. */
        {32, 56, 4, 8 * (4 - 1), "228 / 57 = 4 resident: one group"},
        {32, 45, 5, 8 * (5 - 2), "228 / 46 = 4 resident: two groups"},
    };
    const kargs a = {K_LINES, 2, 0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cml_cache_config c;
        cml_cache_config_h100(&c);
        c.sm_count = 1;
        c.l1_bytes = 128;
        c.smem_per_block = cases[i].smem_kib * KIB;
        cml_levels lv = levels(&c, dim((uint32_t)cases[i].blocks, 1), cases[i].threads, &a, NULL);
        if (lv.l1_hit_sectors != cases[i].hits)
            fprintf(stderr, "residency case %zu (%s): %u resident\n", i, cases[i].why,
                    lv.resident_blocks);
        CHECK_EQ_U64(lv.l1_hit_sectors, cases[i].hits);
    }
}

/* 132 SMs: block b on SM b mod 132. 133 one-warp blocks reading line 0:
 * each SM's first warp misses, block 132 (SM 0's second) hits: 4 sectors.
 * (140 SMs: no hit; 124: blocks 124..132 hit, 36.) L2 reads the 132 misses. */
static void test_sm_count(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    const kargs a = {K_LINES, 1, 0};
    cml_levels lv = levels(&c, dim(133, 1), 32, &a, NULL);
    CHECK_EQ_U64(lv.l1_hit_sectors, 4);
    CHECK_EQ_U64(lv.l2_read_sectors, 132 * 4);
}

/*
 * Local memory: warp w's frames start at 2^63 + (w mod 2^26) x 2^37 (a
 * region of 2^37 bytes, what offsets below 2^32 word-interleaved over 32
 * lanes need). Warp 0 stores 32 lanes at offset 2^31 (128 bytes at region
 * offset 2^31 x 32 = 2^36: 4 whole sectors, held in L1) and at offset 0;
 * warp 1 then reads its offset 0 (2^37 further: a miss; regions of 2^36
 * would put it on warp 0's line at 2^36: 4 hits), warp 2^25 its offset 0
 * (2^62 further: a miss; regions of 2^38 would wrap it onto warp 0's
 * frames: 4 hits), and warp 0 its own offset 2^31 (4 hits).
 */
static void test_local_regions(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    cml_cache_sim *s = sim_for(&c, 256);
    if (!s)
        return;
    cml_access hi =
        warp_at(CML_SPACE_LOCAL, CML_OP_STORE, CML_CACHE_CA, 4, UINT64_C(1) << 31, 0, 32);
    cml_access lo = warp_at(CML_SPACE_LOCAL, CML_OP_STORE, CML_CACHE_CA, 4, 0, 0, 32);
    CHECK(cml_cache_sim_access(s, 0, 0, &hi) == CML_OK);
    CHECK(cml_cache_sim_access(s, 0, 0, &lo) == CML_OK);
    static const uint64_t warps[] = {1, UINT64_C(1) << 25};
    cml_levels lv;
    for (size_t k = 0; k < 2; k++) {
        cml_access ld = warp_at(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 0, 32);
        CHECK(cml_cache_sim_access(s, 0, warps[k], &ld) == CML_OK);
        cml_cache_sim_levels(s, &lv);
        CHECK_EQ_U64(lv.local_hit_sectors, 0);
    }
    hi.op = CML_OP_LOAD;
    CHECK(cml_cache_sim_access(s, 0, 0, &hi) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.local_hit_sectors, 4);
    cml_cache_sim_free(s);
}

/*
 * Whole simulation for at most 2^18 threads and 2^16 warp instructions,
 * samples beyond. K_STREAM, blocks of 256 threads (8 warps):
 *   1 load:    1024 blocks (2^18 threads) whole, 1025 sampled;
 *   256 loads: 32 blocks (256 warps x 256 = 2^16 instructions) whole,
 *              33 blocks (67584) sampled.
 */
static void test_whole_limits(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    static const struct {
        unsigned loads;
        uint32_t blocks;
        int sampled;
    } cases[] = {{1, 1024, 0}, {1, 1025, 1}, {256, 32, 0}, {256, 33, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const kargs a = {K_STREAM, cases[i].loads, 0};
        const cml_kernel_traffic k = hand_exact((uint64_t)cases[i].blocks * 8 * cases[i].loads);
        cml_levels lv = levels(&c, dim(cases[i].blocks, 1), 256, &a, &k);
        CHECK_EQ_I64(lv.sampled, cases[i].sampled);
        if (!cases[i].sampled)
            CHECK_EQ_U64(lv.simulated_blocks, cases[i].blocks);
    }
}

/*
 * The warps of a group are fed in turn, one instruction each; a group that
 * has buffered 2^16 instructions is fed at the next warp's start and the
 * rest buffered anew. One SM holding 384 one-warp blocks at once
 * (resident_blocks, sm_count and l1_bytes are not under test), each warp
 * reading lines 0..255 (256 instructions) through an L1 of one line: warps
 * 0..255 (2^16 instructions) are fed together, then warps 256..383. In each
 * part the first warp misses every line and the others hit: L1 hits = 256 x
 * 4 x (384 - 2). (A buffer of 2^17: one part, 383; of 2^15: three, 381.)
 */
static void test_feed_buffer(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.sm_count = 1;
    c.resident_blocks = 384;
    c.l1_bytes = 128;
    const kargs a = {K_LINES, 256, 0};
    cml_levels lv = levels(&c, dim(384, 1), 32, &a, NULL);
    CHECK(!lv.sampled);
    CHECK_EQ_U64(lv.l1_hit_sectors, 256 * 4 * (384 - 2));
}

/*
 * The samples of a large grid, counted in blocks (simulated_blocks):
 *   SM 0's blocks, up to 2^11 warp instructions (at least two waves), and
 *   on, a wave at a time up to 2^14, until SM 0's L1 has taken four times
 *   its lines;
 *   the window: rounds of 2^9 instructions, the rates checked from the 6th
 *   round on (a stream's settle at once).
 * K_STREAM, 1 load, 2^17 blocks of 256 threads (8 instructions a block, 8
 * resident): SM 0's 993 blocks; each warp's load takes a new line, 8 a
 * block, so the 248 KiB L1 (1984 lines) has taken 4 x 1984 = 7936 after
 * 992 blocks (past 2048 / 8 = 256); rounds of 512 / 8 = 64 blocks, 6 of
 * them: 992 + 384 = 1376. (Twice the lines: 496 + 384 = 880; 2^11
 * without the L1's turns: 640; ROUND_INS 2^10 or 2^8: 1760, 1184; 8 or 4
 * rounds: 1504, 1248.)
 * 256 loads, 1024 blocks of 1024 threads (8192 instructions a block, 2
 * resident): 2048 / 8192 is no block, so two waves, 4 blocks, and 2^14 /
 * 8192 = 2 blocks is no more; rounds of one block, 6 of them: 10. (One
 * wave or three: 8, 12.)
 */
static void test_samples(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    const kargs a = {K_STREAM, 1, 0};
    const uint32_t blocks = UINT32_C(1) << 17;
    cml_kernel_traffic k = hand_exact((uint64_t)blocks * 8);
    cml_levels lv = levels(&c, dim(blocks, 1), 256, &a, &k);
    CHECK(lv.sampled && lv.settled);
    CHECK_EQ_U64(lv.simulated_blocks, 992 + 6 * 64);
    const kargs b = {K_STREAM, 256, 0};
    k = hand_exact(1024ull * 32 * 256);
    lv = levels(&c, dim(1024, 1), 1024, &b, &k);
    CHECK(lv.sampled);
    CHECK_EQ_U64(lv.resident_blocks, 2);
    CHECK_EQ_U64(lv.simulated_blocks, 2 * 2 + 6);
}

/*
 * The window ends after 2^14 instructions if the rates never settle.
 * K_SQRT, 2^20 one-warp blocks: block b reads line isqrt(b), so new lines
 * (128 B of DRAM each) come ever more rarely: over blocks [B, 2B) about
 * (sqrt 2 - 1) sqrt B of them, the rate per sector falling by sqrt 2 from
 * one half of the window to the next, never within 2%. Rounds of 512
 * blocks, 16384 / 512 = 32 rounds: 16384 blocks, beside SM 0's: its L1
 * takes a line only every sqrt(132 b) or so blocks (about 1000 lines by
 * block 2^20 / 132), never four times 1984, so all 7944 of its blocks
 * (2^20 / 132 rounded up, fewer than 2^14): 24328, not settled. (Window
 * 2^15: 40712; 2^13: 16136.)
 */
static void test_window(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    const kargs a = {K_SQRT, 0, 0};
    const uint32_t blocks = UINT32_C(1) << 20;
    const cml_kernel_traffic k = hand_exact(blocks);
    cml_levels lv = levels(&c, dim(blocks, 1), 32, &a, &k);
    CHECK(lv.sampled);
    CHECK_EQ_I64(lv.settled, 0);
    CHECK_EQ_U64(lv.simulated_blocks, 7944 + 32 * 512);
}

/*
 * A 2-D grid whose rows take at most 2^16 instructions for four rows is
 * sampled in rounds of whole rows, four of them at least (and here at
 * most: a budget of four rows). K_STREAM, 4 loads, blocks of 256 threads
 * (32 instructions), 8 rows: 512 blocks a row (512 x 32 x 4 = 2^16): 4
 * rows, 2048 blocks; 513 a row: rounds of 512 / 32 = 16 blocks, 6 of them,
 * 96. SM 0's sample: 32 blocks (4096 or 4104 / 132) either way. (ROWS_INS
 * 2^15: 128 for the first; 2^17: 32 + 4 x 513 = 2084 for the second.)
 * A row longer than a wave of the SMs' resident blocks (132 x 8 = 1056)
 * once overran the window's scratch (sized for one wave): 1 load, blocks of
 * 256 threads (8 instructions), 2048 a row (2048 x 8 x 4 = 2^16): 4 rows,
 * 8192 blocks, beside SM 0's 125 (16384 / 132, below the 2048 / 8 = 256
 * cap): 8317, and the sanitizers see no write past the scratch.
 */
static void test_rows(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    const kargs a = {K_STREAM, 4, 0};
    static const struct {
        uint32_t row;
        uint64_t simulated;
    } cases[] = {{512, 32 + 4 * 512}, {513, 32 + 6 * 16}};
    for (size_t i = 0; i < 2; i++) {
        const cml_kernel_traffic k = hand_exact((uint64_t)cases[i].row * 8 * 8 * 4);
        cml_levels lv = levels(&c, dim(cases[i].row, 8), 256, &a, &k);
        CHECK(lv.sampled);
        CHECK_EQ_U64(lv.simulated_blocks, cases[i].simulated);
    }
    const kargs one = {K_STREAM, 1, 0};
    const cml_kernel_traffic k = hand_exact(2048ull * 8 * 8);
    cml_levels lv = levels(&c, dim(2048, 8), 256, &one, &k);
    CHECK(lv.sampled);
    CHECK_EQ_U64(lv.simulated_blocks, 125 + 4 * 2048);
}

/*
 * The rates have settled when the window's second half runs within 2% of
 * the quarter before it. K_FRESH, 16384 one-warp blocks, rounds of 512
 * blocks; a fresh line costs 128 B of DRAM and 128 B of footprint per 4
 * sectors, line 0 again nothing. At round 6 the quarter is blocks
 * [512, 1536) (512 fresh: 16 B a sector) and the half [1536, 3072) (F
 * fresh: F / 48 B a sector):
 *   F = 756: 15.75, 1.56% below 16: settled, 6 x 512 = 3072 blocks;
 *   F = 745: 15.52, 2.99% below: not; the rates then part (round 7: 16
 *   against 745 x 128 / 8192 = 11.6, ...) until both halves are past the
 *   fresh lines, at round 20 (quarter [2560, 5120)): 10240 blocks.
 * SM 0's sample: 125 blocks. (Within 1%: 10240 for the first; within 4%:
 * 3072 for the second.)
 */
static void test_settled(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    static const struct {
        uint64_t fresh, window;
    } cases[] = {{756, 3072}, {745, 10240}};
    const cml_kernel_traffic k = hand_exact(16384);
    for (size_t i = 0; i < 2; i++) {
        const kargs a = {K_FRESH, 0, cases[i].fresh};
        cml_levels lv = levels(&c, dim(16384, 1), 32, &a, &k);
        CHECK(lv.sampled && lv.settled);
        CHECK_EQ_U64(lv.simulated_blocks, 125 + cases[i].window);
    }
}

int main(void)
{
    test_horizon();
    test_partial_age();
    test_dirty_max();
    test_l2_capacity();
    test_granule();
    test_carveout();
    test_hand_totals();
    test_residency();
    test_sm_count();
    test_local_regions();
    test_whole_limits();
    test_feed_buffer();
    test_samples();
    test_window();
    test_rows();
    test_settled();
    return cml_test_summary("test_cache_constants");
}
