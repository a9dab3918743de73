/*
 * Tests of the cache levels (include/cumemlab/cache.h): whole kernels with
 * hand-derived L1 hit sectors, L2 read and write sectors and DRAM bytes
 * (contiguous, offset 11, strides 2 and 32, an array of 2-float structs
 * touching one field, a broadcast), the simulator's rules one by one (L1
 * bypass, stores, partial sectors, granules, eviction, the early
 * write-back, two partitions), the sampled estimate of a large grid against
 * the same figures derived by hand, and a randomized property test.
 */
#include "cumemlab/cache.h"
#include "test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KIB UINT64_C(1024)
#define MIB (KIB * KIB)

/* ---- kernels ------------------------------------------------------------ */

enum { K_OFFSET, K_STRIDE, K_AOS_WRITE, K_BROADCAST };

typedef struct kargs {
    int kind;
    uint64_t n;      /* threads with work */
    uint64_t offset; /* K_OFFSET: elements */
    uint64_t stride; /* K_STRIDE: elements */
    cml_cache cache; /* the loads' operator */
} kargs;

/*
 *   K_OFFSET:    if (i + off < n + off) C[i] = A[i + off]   (n threads with work)
 *   K_STRIDE:    C[i] = A[i * s]
 *   K_AOS_WRITE: S[i].x = A[i]   (S an array of {float x, y}: half of each sector)
 *   K_BROADCAST: C[i] = A[0]
 */
static void kernel(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const kargs *a = vargs;
    const uint64_t A = cml_array_base(0), C = cml_array_base(1);
    const uint64_t i = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    if (i >= a->n)
        return;
    switch (a->kind) {
    case K_OFFSET:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, A + 4 * (i + a->offset));
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    case K_STRIDE:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, A + 4 * i * a->stride);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    case K_AOS_WRITE:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, A + 4 * i);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 8 * i);
        break;
    default:
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, A);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
        break;
    }
}

static cml_dim3 d1(uint64_t x)
{
    cml_dim3 d = {(uint32_t)x, 1, 1};
    return d;
}

/* The levels of `a` over blocks of 256 threads under config c. */
static cml_levels levels_of(const cml_cache_config *c, const kargs *a, uint64_t threads)
{
    const uint64_t blocks = (threads + 255) / 256;
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, d1(blocks), d1(256), kernel, a, &k) == CML_OK);
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    CHECK(cml_trace_levels(c, d1(blocks), d1(256), kernel, a, &k, &lv) == CML_OK);
    /* Every load sector hits or misses L1 exactly once. */
    CHECK_EQ_U64(lv.l1_hit_sectors + lv.l1_miss_sectors, k.cls[CML_CLASS_GLOBAL_LD].sectors);
    return lv;
}

/* ---- whole kernels, by hand ---------------------------------------------- */

/* 32768 threads in 128 blocks of 256: fewer blocks than the 132 SMs, so
 * each block runs alone on its SM and every L1 starts cold. */
static void test_contiguous(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    kargs a = {K_OFFSET, 32768, 0, 0, CML_CACHE_CA};
    cml_levels lv = levels_of(&c, &a, 32768);
    CHECK(!lv.sampled && lv.settled);
    CHECK_EQ_U64(lv.simulated_blocks, 128);
    /* Each warp reads 4 sectors nobody else reads: no hit. */
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l2_read_sectors, 32768 / 8);
    CHECK_EQ_U64(lv.l2_write_sectors, 32768 / 8);
    /* 128 KiB read once in 64-byte granules; the 128 KiB written stay
     * dirty in L2 (far below the write-back horizon). */
    CHECK_EQ_U64(lv.dram_read_bytes, 128 * KIB);
    CHECK_EQ_U64(lv.dram_write_bytes, 0);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 128 * KIB);
    CHECK_EQ_U64(lv.footprint_bytes, 256 * KIB);
    /* Half of the L2 reads find the other sector of a granule a read
     * before them fetched. */
    CHECK_EQ_U64(lv.l2_read_hit_sectors, 32768 / 16);
    /* H100: 8 resident blocks of 256 threads, 248 KiB of L1 beside the
     * 8 KiB carve-out their 1 KiB of system shared memory needs. */
    CHECK_EQ_U64(lv.resident_blocks, 8);
    CHECK_EQ_U64(lv.l1_bytes, 248 * KIB);
}

static void test_offset11(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    /* Threads 0..32756 read A[i + 11] (floats 11..32767, bytes 44..131071). */
    kargs a = {K_OFFSET, 32768 - 11, 11, 0, CML_CACHE_CA};
    cml_levels lv = levels_of(&c, &a, 32768);
    /* A warp's 128 bytes start 44 bytes into a line: 5 sectors, the last
     * shared with the next warp of the block, which finds it in L1: 7 hits
     * per block of 8 warps (the last warp reads 21 floats in 3 sectors, the
     * first still the previous warp's). 1023 warps x 5 + 3 = 5118 sectors. */
    CHECK_EQ_U64(lv.l1_hit_sectors, 7 * 128);
    CHECK_EQ_U64(lv.l1_miss_sectors, 5118 - 7 * 128);
    /* L2 sees the 4095 distinct sectors once, and the 127 sectors two
     * blocks (two SMs) share twice. */
    CHECK_EQ_U64(lv.l2_read_sectors, 4095 + 127);
    /* The sectors 1..4095 in granules: 0..4095, 128 KiB. */
    CHECK_EQ_U64(lv.dram_read_bytes, 128 * KIB);
    /* The stores: 32757 floats, 4095 sectors (the last warp's 21 floats in 3). */
    CHECK_EQ_U64(lv.l2_write_sectors, 1023 * 4 + 3);

    /* Through .cg nothing hits: every sector goes to L2. */
    a.cache = CML_CACHE_CG;
    lv = levels_of(&c, &a, 32768);
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l2_read_sectors, 5118);
    CHECK_EQ_U64(lv.dram_read_bytes, 128 * KIB);
    /* .nc is the same L1 as .ca on sm_70 and later. */
    a.cache = CML_CACHE_NC;
    lv = levels_of(&c, &a, 32768);
    CHECK_EQ_U64(lv.l1_hit_sectors, 7 * 128);
}

static void test_strides(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    /* Stride 2: a warp's 32 floats 8 bytes apart: 8 sectors, each half
     * used, none shared. 16384 threads read 128 KiB of A whole. */
    kargs a = {K_STRIDE, 16384, 0, 2, CML_CACHE_CA};
    cml_levels lv = levels_of(&c, &a, 16384);
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l2_read_sectors, 16384 / 32 * 8);
    CHECK_EQ_U64(lv.dram_read_bytes, 128 * KIB);
    CHECK_EQ_U64(lv.l2_write_sectors, 16384 / 8);
    /* Stride 32: one float per 128-byte line, each lane its own sector,
     * and DRAM delivers the 64-byte granule around each: 64 bytes per lane. */
    kargs b = {K_STRIDE, 4096, 0, 32, CML_CACHE_CA};
    lv = levels_of(&c, &b, 4096);
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l2_read_sectors, 4096);
    CHECK_EQ_U64(lv.dram_read_bytes, 4096 * 64);
    CHECK_EQ_U64(lv.footprint_bytes, 4096 * 32 + 4096 * 4);
    /* With 32-byte granules, a sector per lane. */
    c.dram_granule = 32;
    lv = levels_of(&c, &b, 4096);
    CHECK_EQ_U64(lv.dram_read_bytes, 4096 * 32);
}

static void test_aos_partial(void)
{
    /* S[i].x = A[i] over 4096 structs of 8 bytes: each store sector gets
     * 16 of its 32 bytes. An L2 of 32 lines without early write-back
     * evicts most of them while they are still partial: each then costs a
     * 32-byte merge read before its 32-byte write. */
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.l2_bytes = 32 * 128;
    c.clean_age_bytes = c.partial_age_bytes = c.dirty_max_bytes = 0;
    kargs a = {K_AOS_WRITE, 4096, 0, 0, CML_CACHE_CA};
    cml_levels lv = levels_of(&c, &a, 4096);
    const uint64_t st = 4096 * 8 / 32; /* 1024 partial sectors */
    CHECK_EQ_U64(lv.l2_write_sectors, st);
    CHECK_EQ_U64(lv.l2_read_sectors, 4096 / 8);
    /* Each partial sector dirtied once: written back during the kernel or
     * still dirty at its end. */
    CHECK_EQ_U64(lv.dram_write_bytes + lv.l2_dirty_end_bytes, st * 32);
    CHECK(lv.dram_write_bytes > 0 && lv.l2_dirty_end_bytes > 0);
    CHECK(lv.l2_dirty_end_bytes <= 32 * 128);
    /* Reads: A's 16 KiB, and one merge per sector written back. */
    CHECK_EQ_U64(lv.dram_read_bytes, 16 * KIB + lv.dram_write_bytes);

    /* Stores that cover whole sectors need no merge. */
    kargs b = {K_OFFSET, 4096, 0, 0, CML_CACHE_CA};
    lv = levels_of(&c, &b, 4096);
    CHECK_EQ_U64(lv.dram_read_bytes, 16 * KIB);
    CHECK_EQ_U64(lv.dram_write_bytes + lv.l2_dirty_end_bytes, 16 * KIB);
}

static void test_broadcast(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    /* Every lane reads A[0]: one sector per warp. 16 blocks on 16 SMs: the
     * first warp of each misses, the other 7 hit; L2 fetches the granule
     * once and serves the other 15 SMs from it. */
    kargs a = {K_BROADCAST, 4096, 0, 0, CML_CACHE_CA};
    cml_levels lv = levels_of(&c, &a, 4096);
    CHECK_EQ_U64(lv.l1_hit_sectors, 16 * 7);
    CHECK_EQ_U64(lv.l2_read_sectors, 16);
    CHECK_EQ_U64(lv.l2_read_hit_sectors, 15);
    CHECK_EQ_U64(lv.dram_read_bytes, 64);
    CHECK_EQ_U64(lv.l2_write_sectors, 4096 / 8);
}

/* ---- the simulator's rules -------------------------------------------------- */

static cml_access warp(cml_op op, cml_cache cache, unsigned width, uint64_t base, uint64_t step)
{
    cml_access a;
    memset(&a, 0, sizeof a);
    a.space = CML_SPACE_GLOBAL;
    a.op = op;
    a.cache = cache;
    a.width = width;
    a.active = 0xFFFFFFFFu;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++)
        a.addr[l] = base + step * l;
    return a;
}

static cml_cache_sim *sim(const cml_cache_config *c)
{
    cml_cache_sim *s = NULL;
    CHECK(cml_cache_sim_new(c, 256, &s) == CML_OK);
    return s;
}

static void test_rules(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    const uint64_t A = cml_array_base(0);
    cml_levels lv;

    /* A store of whole sectors leaves them in L1: a load after it hits
     * (measured, docs/model-evidence.md E5); a partial store does not. */
    cml_cache_sim *s = sim(&c);
    cml_access st = warp(CML_OP_STORE, CML_CACHE_CA, 4, A, 4);
    cml_access ld = warp(CML_OP_LOAD, CML_CACHE_CA, 4, A, 4);
    CHECK(cml_cache_sim_access(s, 0, 0, &st) == CML_OK);
    CHECK(cml_cache_sim_access(s, 0, 0, &ld) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l1_hit_sectors, 4);
    CHECK_EQ_U64(lv.l2_read_sectors, 0);
    CHECK_EQ_U64(lv.l2_write_sectors, 4);
    /* On another SM the same load misses L1 and hits L2 (written there). */
    CHECK(cml_cache_sim_access(s, 1, 1, &ld) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l2_read_sectors, 4);
    CHECK_EQ_U64(lv.l2_read_hit_sectors, 4);
    CHECK_EQ_U64(lv.dram_read_bytes, 0);
    cml_cache_sim_free(s);

    s = sim(&c);
    cml_access half = warp(CML_OP_STORE, CML_CACHE_CA, 4, A, 8); /* 16 B of each sector */
    cml_access ld8 = warp(CML_OP_LOAD, CML_CACHE_CA, 4, A, 8);
    CHECK(cml_cache_sim_access(s, 0, 0, &half) == CML_OK);
    CHECK(cml_cache_sim_access(s, 0, 0, &ld8) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l2_read_sectors, 8);
    /* L2 held the 8 sectors partially: each read merges it with DRAM. */
    CHECK_EQ_U64(lv.dram_read_bytes, 8 * 32);
    cml_cache_sim_free(s);

    /* .cg loads bypass L1; .ca, .nc and .cs fill it (docs/model.md §16.2:
     * the H200's __ldcs gather hits on 96% of its sectors). */
    static const cml_cache ops[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_NC, CML_CACHE_CS};
    static const uint64_t hits[] = {4, 0, 4, 4};
    for (unsigned k = 0; k < 4; k++) {
        s = sim(&c);
        cml_access x = warp(CML_OP_LOAD, ops[k], 4, A, 4);
        CHECK(cml_cache_sim_access(s, 0, 0, &x) == CML_OK);
        CHECK(cml_cache_sim_access(s, 0, 0, &x) == CML_OK);
        cml_cache_sim_levels(s, &lv);
        CHECK_EQ_U64(lv.l1_hit_sectors, hits[k]);
        CHECK_EQ_U64(lv.l2_read_sectors, 8 - hits[k]);
        cml_cache_sim_free(s);
    }

    /* A .cg load drops the L1 copy of its whole line: a .nc warp reading
     * line 0 misses 4, hits 4; one lane's .cg load of sector 0 (one L1
     * miss, one L2 read); the .nc warp again misses all 4 sectors. A .cs
     * load does not drop, as measured: it hits sector 0 (one L1 hit, no L2
     * read) and the .nc warp hits 4. L2 reads 4 + 1 + 4 and 4 + 0. */
    static const cml_cache bypass[] = {CML_CACHE_CG, CML_CACHE_CS};
    for (unsigned k = 0; k < 2; k++) {
        s = sim(&c);
        cml_access nc = warp(CML_OP_LOAD, CML_CACHE_NC, 4, A, 4);
        cml_access one_lane = warp(CML_OP_LOAD, bypass[k], 4, A, 4);
        one_lane.active = 1u;
        CHECK(cml_cache_sim_access(s, 0, 0, &nc) == CML_OK);
        CHECK(cml_cache_sim_access(s, 0, 0, &nc) == CML_OK);
        CHECK(cml_cache_sim_access(s, 0, 0, &one_lane) == CML_OK);
        CHECK(cml_cache_sim_access(s, 0, 0, &nc) == CML_OK);
        cml_cache_sim_levels(s, &lv);
        CHECK_EQ_U64(lv.l1_hit_sectors, k == 0 ? 4 : 9);
        CHECK_EQ_U64(lv.l2_read_sectors, k == 0 ? 9 : 4);
        /* Another SM's copy stays: its .nc warp after the .cg load hits
         * (the .cs load hits too). */
        CHECK(cml_cache_sim_access(s, 1, 1, &nc) == CML_OK);
        CHECK(cml_cache_sim_access(s, 0, 0, &one_lane) == CML_OK);
        CHECK(cml_cache_sim_access(s, 1, 1, &nc) == CML_OK);
        cml_cache_sim_levels(s, &lv);
        CHECK_EQ_U64(lv.l1_hit_sectors, k == 0 ? 4 + 4 : 9 + 1 + 4);
        cml_cache_sim_free(s);
    }

    /* A .cs hit does not renew its line; a .ca hit does. An L1 of two
     * lines, one lane a load (sector 0 of lines X, Y, Z): .cs X (miss,
     * fill), .ca Y (miss, fill: Y newest), .cs X (hit, X stays the
     * oldest), .ca Z (miss: evicts X, where LRU would evict Y), .cs X
     * (miss again, evicting Y). Hits 1, L2 reads 4; renewing, as LRU
     * does, would give 2 and 3. Then .ca Y (miss: evicts Z, X being
     * newer), .ca X (hit: renews X), .ca Z (miss: evicts Y), .ca X
     * (hit). Hits 3, L2 reads 6; were X's .ca hit not to renew it, Z
     * would evict X and the last load miss: 2 and 7. */
    cml_cache_config two = c;
    two.l1_bytes = 256;
    s = sim(&two);
    cml_access X = warp(CML_OP_LOAD, CML_CACHE_CS, 4, A, 4), Y = X, Z = X;
    X.active = Y.active = Z.active = 1u;
    Y.addr[0] = A + 128;
    Z.addr[0] = A + 256;
    Y.cache = Z.cache = CML_CACHE_CA;
    const cml_access *seq1[] = {&X, &Y, &X, &Z, &X};
    for (unsigned i = 0; i < 5; i++)
        CHECK(cml_cache_sim_access(s, 0, 0, seq1[i]) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l1_hit_sectors, 1);
    CHECK_EQ_U64(lv.l2_read_sectors, 4);
    cml_access Xca = X;
    Xca.cache = CML_CACHE_CA;
    const cml_access *seq2[] = {&Y, &Xca, &Z, &Xca};
    for (unsigned i = 0; i < 4; i++)
        CHECK(cml_cache_sim_access(s, 0, 0, seq2[i]) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l1_hit_sectors, 3);
    CHECK_EQ_U64(lv.l2_read_sectors, 6);
    cml_cache_sim_free(s);

    /* The l2_forget_cs extreme (the pessimistic bound's): L2 keeps no
     * clean sector of a line a .cs load read. One lane reads sector 0 of
     * line X on SM 0, then on SM 1 (its own L1 misses): 64 bytes of DRAM
     * each time (a granule), 128 in all; without the extreme the second
     * read hits L2 (64). .ca reads are kept either way (64). A sector
     * stored whole first is dirty and stays: both .cs reads hit L2 (0). */
    for (unsigned forget = 0; forget < 2; forget++) {
        static const cml_cache rd[] = {CML_CACHE_CS, CML_CACHE_CA};
        for (unsigned k = 0; k < 2; k++) {
            cml_cache_config f = c;
            f.l2_forget_cs = forget;
            s = sim(&f);
            cml_access r = warp(CML_OP_LOAD, rd[k], 4, A, 4);
            r.active = 1u;
            CHECK(cml_cache_sim_access(s, 0, 0, &r) == CML_OK);
            CHECK(cml_cache_sim_access(s, 1, 1, &r) == CML_OK);
            cml_cache_sim_levels(s, &lv);
            CHECK_EQ_U64(lv.dram_read_bytes, forget && k == 0 ? 128 : 64);
            cml_cache_sim_free(s);
        }
        cml_cache_config f = c;
        f.l2_forget_cs = forget;
        s = sim(&f);
        cml_access st8 = warp(CML_OP_STORE, CML_CACHE_CA, 4, A, 4);
        st8.active = 0xFFu; /* lanes 0-7: sector 0 whole */
        cml_access r = warp(CML_OP_LOAD, CML_CACHE_CS, 4, A, 4);
        r.active = 1u;
        CHECK(cml_cache_sim_access(s, 0, 0, &st8) == CML_OK);
        CHECK(cml_cache_sim_access(s, 1, 1, &r) == CML_OK);
        CHECK(cml_cache_sim_access(s, 2, 2, &r) == CML_OK);
        cml_cache_sim_levels(s, &lv);
        CHECK_EQ_U64(lv.dram_read_bytes, 0);
        CHECK_EQ_U64(lv.l2_read_sectors, 2);
        cml_cache_sim_free(s);
    }

    /* An L1 of one line: the second line evicts the first. */
    cml_cache_config one = c;
    one.l1_bytes = 128;
    s = sim(&one);
    cml_access l0 = warp(CML_OP_LOAD, CML_CACHE_CA, 4, A, 4);
    cml_access l1 = warp(CML_OP_LOAD, CML_CACHE_CA, 4, A + 128, 4);
    CHECK(cml_cache_sim_access(s, 0, 0, &l0) == CML_OK);
    CHECK(cml_cache_sim_access(s, 0, 0, &l1) == CML_OK);
    CHECK(cml_cache_sim_access(s, 0, 0, &l0) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l1_bytes, 128);
    cml_cache_sim_free(s);

    /* Shared and constant accesses are not the caches' business; errors. */
    s = sim(&c);
    cml_access sh = warp(CML_OP_LOAD, CML_CACHE_CA, 4, 0, 4);
    sh.space = CML_SPACE_SHARED;
    CHECK(cml_cache_sim_access(s, 0, 0, &sh) == CML_OK);
    cml_access bad = warp(CML_OP_LOAD, CML_CACHE_CA, 4, A + 2, 4);
    CHECK(cml_cache_sim_access(s, 0, 0, &bad) == CML_EMISALIGNED);
    bad = warp(CML_OP_LOAD, CML_CACHE_CA, 3, A, 4);
    CHECK(cml_cache_sim_access(s, 0, 0, &bad) == CML_EINVAL);
    CHECK(cml_cache_sim_access(s, c.sm_count, 0, &ld) == CML_EINVAL);
    CHECK(cml_cache_sim_access(NULL, 0, 0, &ld) == CML_EINVAL);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l2_read_sectors + lv.l2_write_sectors, 0);
    cml_cache_sim_free(s);
    cml_cache_sim_free(NULL);

    /* Configs out of range. */
    cml_cache_config b = c;
    b.l2_partitions = 3;
    CHECK(cml_cache_config_check(&b) == CML_EINVAL);
    b = c;
    b.dram_granule = 128;
    CHECK(cml_cache_config_check(&b) == CML_EINVAL);
    b = c;
    b.sm_count = 0;
    CHECK(cml_cache_sim_new(&b, 256, &s) == CML_EINVAL);
    CHECK(cml_cache_config_check(&c) == CML_OK);
}

/* The early write-back: a dirty sector goes back once clean_age bytes have
 * been brought in after it, or while more than dirty_max is dirty. */
static void test_write_back(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.clean_age_bytes = 4 * 128; /* 16 sectors */
    c.partial_age_bytes = 0;     /* the same */
    c.dirty_max_bytes = 0;
    const uint64_t A = cml_array_base(0), C = cml_array_base(1);
    cml_cache_sim *s = sim(&c);
    cml_access st = warp(CML_OP_STORE, CML_CACHE_CA, 4, C, 4); /* 4 sectors dirty */
    CHECK(cml_cache_sim_access(s, 0, 0, &st) == CML_OK);
    cml_levels lv;
    /* 12 more sectors brought in (3 lines read): not yet 16. */
    for (unsigned k = 0; k < 3; k++) {
        cml_access ld = warp(CML_OP_LOAD, CML_CACHE_CG, 4, A + 128 * k, 4);
        CHECK(cml_cache_sim_access(s, 0, 0, &ld) == CML_OK);
    }
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.dram_write_bytes, 0);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 128);
    /* 4 more: the stored sectors have aged 16 sectors and go back. */
    cml_access ld = warp(CML_OP_LOAD, CML_CACHE_CG, 4, A + 128 * 3, 4);
    CHECK(cml_cache_sim_access(s, 0, 0, &ld) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.dram_write_bytes, 128);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 0);
    cml_cache_sim_free(s);

    /* At most 2 dirty sectors: storing 4 writes the oldest 2 back at once. */
    c.clean_age_bytes = 0;
    c.dirty_max_bytes = 64;
    s = sim(&c);
    CHECK(cml_cache_sim_access(s, 0, 0, &st) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.dram_write_bytes, 64);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 64);
    cml_cache_sim_free(s);

    /* Partial sectors on a horizon of their own: 8 partial sectors (16 B
     * each) age out after 8 sectors brought in, merged with a read each. */
    c.dirty_max_bytes = 0;
    c.clean_age_bytes = 1024 * 128;
    c.partial_age_bytes = 2 * 128;
    s = sim(&c);
    cml_access half = warp(CML_OP_STORE, CML_CACHE_CA, 4, C, 8);
    CHECK(cml_cache_sim_access(s, 0, 0, &half) == CML_OK);
    CHECK(cml_cache_sim_access(s, 0, 0, &st) == CML_OK); /* whole: not partial */
    cml_access two = warp(CML_OP_LOAD, CML_CACHE_CG, 4, A, 8); /* 8 sectors in */
    CHECK(cml_cache_sim_access(s, 0, 0, &two) == CML_OK);
    cml_cache_sim_levels(s, &lv);
    /* The first 4 of the 8 partial sectors were completed by the whole
     * store (same addresses): only the 4 in the second line age out. */
    CHECK_EQ_U64(lv.dram_write_bytes, 4 * 32);
    CHECK_EQ_U64(lv.dram_read_bytes, 4 * 32 + 8 * 32);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 4 * 32);
    cml_cache_sim_free(s);
}

/* Two partitions: a read from an SM of the other half leaves a copy in
 * its half, which answers the next read; DRAM is read once. */
static void test_partitions(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.l2_partitions = 2;
    const uint64_t A = cml_array_base(0);
    cml_cache_sim *s = sim(&c);
    cml_access ld = warp(CML_OP_LOAD, CML_CACHE_CG, 4, A, 4);
    CHECK(cml_cache_sim_access(s, 0, 0, &ld) == CML_OK);
    CHECK(cml_cache_sim_access(s, c.sm_count - 1, 1, &ld) == CML_OK);
    CHECK(cml_cache_sim_access(s, c.sm_count - 1, 1, &ld) == CML_OK);
    cml_levels lv;
    cml_cache_sim_levels(s, &lv);
    CHECK_EQ_U64(lv.l2_read_sectors, 12);
    CHECK_EQ_U64(lv.l2_read_hit_sectors, 8 + 2); /* 2: the granules' other sectors */
    CHECK_EQ_U64(lv.dram_read_bytes, 128);
    cml_cache_sim_free(s);
}

/* ---- a large grid: the sampled estimate against figures by hand ----------- */

static void test_sampled(void)
{
    /* Offset 11 over 2^22 threads (16384 blocks): far above the whole-
     * simulation limit. An L2 of 1 MiB without early write-back: the
     * stream's dirty share (half of what is brought in) of L2 is still
     * dirty at the end. */
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.l2_bytes = MIB;
    c.clean_age_bytes = c.partial_age_bytes = c.dirty_max_bytes = 0;
    const uint64_t n = UINT64_C(1) << 22;
    kargs a = {K_OFFSET, n - 11, 11, 0, CML_CACHE_CA};
    cml_levels lv = levels_of(&c, &a, n);
    CHECK(lv.sampled && lv.settled);
    const uint64_t warps = n / 32, blocks = n / 256;
    /* 7 hits per block, as in the small grid; the sectors: 5 per warp, 3
     * for the last; L2: the distinct sectors plus the ones two blocks share. */
    CHECK_EQ_U64(lv.l1_hit_sectors, 7 * blocks);
    const uint64_t sectors = (warps - 1) * 5 + 3;
    CHECK_EQ_U64(lv.l2_read_sectors, sectors - 7 * blocks);
    CHECK_EQ_U64(lv.l2_write_sectors, (warps - 1) * 4 + 3);
    /* DRAM: A read once (n floats in granules); C written but for the
     * residue, half of L2 (to a sector: the estimate is rounded). */
    CHECK_NEAR(lv.dram_read_bytes, 4.0 * n, 64);
    CHECK_NEAR(lv.l2_dirty_end_bytes, MIB / 2, 32);
    CHECK_NEAR(lv.dram_write_bytes + lv.l2_dirty_end_bytes, 4.0 * (n - 11), 64);
    CHECK_NEAR(lv.footprint_bytes, 8.0 * n, 2 * 64);

    /* Without the exact totals a large grid cannot be scaled. */
    CHECK(cml_trace_levels(&c, d1(blocks), d1(256), kernel, &a, NULL, &lv) == CML_EINVAL);
    cml_dim3 bad = {1, 1, 0};
    CHECK(cml_trace_levels(&c, bad, d1(256), kernel, &a, NULL, &lv) == CML_EINVAL);
}

/* Rows of 8192 one-warp blocks: C[y][x] = A[y][x], 8 rows. */
static void rows_kernel(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)vargs;
    const uint64_t at = 4 * (((uint64_t)t->bid.y * t->gdim.x + t->bid.x) * 32 + t->tid.x);
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, cml_array_base(0) + at);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, cml_array_base(1) + at);
}

/* A row of blocks wider than a wave of every SM (8192 > 132 SMs x 32
 * blocks): the sample's rounds are whole rows, more blocks than one wave's
 * scratch held before it grew (a heap overflow until then). */
static void test_wide_rows(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    const cml_dim3 grid = {8192, 8, 1}, block = {32, 1, 1};
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, grid, block, rows_kernel, NULL, &k) == CML_OK);
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    CHECK(cml_trace_levels(&c, grid, block, rows_kernel, NULL, &k, &lv) == CML_OK);
    const uint64_t warps = 8192u * 8u;
    CHECK(lv.sampled);
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l2_read_sectors, 4 * warps);
    CHECK_EQ_U64(lv.l2_write_sectors, 4 * warps);
    CHECK_NEAR(lv.dram_read_bytes, 128.0 * warps, 64);
}

/* ---- a randomized property test ---------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_random(void)
{
    static const unsigned widths[] = {1, 2, 4, 8, 16};
    for (int round = 0; round < 40; round++) {
        cml_cache_config c;
        cml_cache_config_h100(&c);
        c.sm_count = 1 + (unsigned)(rnd() % 8);
        c.l1_bytes = 128 * (1 + rnd() % 16);
        c.l2_bytes = 128 * (2 + rnd() % 64);
        c.l2_partitions = 1 + (unsigned)(rnd() % 2);
        c.dram_granule = rnd() % 2 ? 64 : 32;
        c.clean_age_bytes = rnd() % 2 ? 32 * (rnd() % 200) : 0;
        c.partial_age_bytes = rnd() % 2 ? 32 * (rnd() % 200) : 0;
        c.dirty_max_bytes = rnd() % 2 ? 32 * (rnd() % 100) : 0;
        cml_cache_sim *s = sim(&c);
        cml_traffic ld, st;
        memset(&ld, 0, sizeof ld);
        memset(&st, 0, sizeof st);
        for (int k = 0; k < 400; k++) {
            cml_access a;
            memset(&a, 0, sizeof a);
            a.space = CML_SPACE_GLOBAL;
            a.op = rnd() % 3 ? CML_OP_LOAD : CML_OP_STORE;
            a.cache = (cml_cache)(rnd() % CML_CACHE_BULK); /* the LSU's operators */
            a.width = widths[rnd() % 5];
            a.active = (uint32_t)rnd() | 1u;
            const uint64_t span = 128 * (1 + rnd() % 64);
            for (unsigned l = 0; l < 32; l++)
                a.addr[l] = cml_array_base(rnd() % 2) + (rnd() % span) / a.width * a.width;
            CHECK(cml_cache_sim_access(s, (unsigned)(rnd() % c.sm_count), rnd() % 64, &a) ==
                  CML_OK);
            CHECK(cml_model_access(CML_RULES_MODERN, &a, a.op == CML_OP_LOAD ? &ld : &st) ==
                  CML_OK);
        }
        cml_levels lv;
        cml_cache_sim_levels(s, &lv);
        /* Every load sector hits or misses L1; the misses are L2's reads;
         * every store sector is an L2 write. */
        CHECK_EQ_U64(lv.l1_hit_sectors + lv.l1_miss_sectors, ld.sectors);
        CHECK_EQ_U64(lv.l2_read_sectors, lv.l1_miss_sectors);
        CHECK_EQ_U64(lv.l2_write_sectors, st.sectors);
        CHECK(lv.l2_read_hit_sectors <= lv.l2_read_sectors);
        /* A sector is written back at most once per time it became dirty,
         * and each write is a store sector. */
        CHECK(lv.dram_write_bytes + lv.l2_dirty_end_bytes <= 32 * lv.l2_write_sectors);
        /* DRAM reads: the granule around each L2 read miss, and one merge
         * per partial sector: at most granule bytes per L2 read that missed
         * plus 32 per L2 write. */
        CHECK(lv.dram_read_bytes <=
              (uint64_t)c.dram_granule * (lv.l2_read_sectors - lv.l2_read_hit_sectors) +
                  32 * lv.l2_write_sectors);
        CHECK(lv.footprint_bytes <= 32 * (ld.sectors + st.sectors));
        CHECK(lv.l2_dirty_end_bytes <= c.l2_bytes);
        if (c.dirty_max_bytes)
            CHECK(lv.l2_dirty_end_bytes <= c.dirty_max_bytes);
        cml_cache_sim_free(s);
    }
}

int main(void)
{
    test_contiguous();
    test_offset11();
    test_strides();
    test_aos_partial();
    test_broadcast();
    test_rules();
    test_write_back();
    test_partitions();
    test_sampled();
    test_wide_rows();
    test_random();
    return cml_test_summary("test_cache_model");
}
