/*
 * Tests of the per-instruction model, cml_model_access(), and the traffic
 * helpers. Every expected value is derived by hand in the comment above its
 * check (notation: B = a base aligned far beyond 128 B, a_l = lane l's byte
 * address, "sector" = floor(a/32), "line" = floor(a/128)); a randomised
 * comparison with a brute-force reference closes the file.
 */
#include "cumemlab/model.h"
#include "test_util.h"

#include <stdint.h>
#include <string.h>

#define FULL 0xFFFFFFFFu

static const uint64_t B = UINT64_C(1) << 40;

/* An instruction with a_l = base + stride * l for every lane. */
static cml_access affine(cml_space sp, cml_op op, cml_cache c, unsigned w, uint64_t base,
                         uint64_t stride, uint32_t active)
{
    cml_access a;
    memset(&a, 0, sizeof a);
    a.space = sp;
    a.op = op;
    a.cache = c;
    a.width = w;
    a.active = active;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++)
        a.addr[l] = base + stride * l;
    return a;
}

/* Run one instruction on a fresh accumulator; checks the status is `want`. */
static cml_traffic run_one(cml_rules r, const cml_access *a, cml_status want, int line)
{
    cml_traffic t;
    memset(&t, 0, sizeof t);
    cml_status rc = cml_model_access(r, a, &t);
    if (rc != want) {
        cml_test_failures++;
        fprintf(stderr, "%s:%d: status %s, expected %s\n", __FILE__, line, cml_status_str(rc),
                cml_status_str(want));
    }
    cml_test_checks++;
    return t;
}
#define RUN(r, a) run_one((r), &(a), CML_OK, __LINE__)

static int traffic_is_zero(const cml_traffic *t)
{
    cml_traffic z;
    memset(&z, 0, sizeof z);
    return memcmp(&z, t, sizeof z) == 0;
}

/* ---------------------------------------------------------------------- */
/* Global loads: the readOffset figures                                   */
/* ---------------------------------------------------------------------- */
static void test_read_offsets(void)
{
    /* Offset 0: a_l = B + 4l, bytes 0..127 -> sectors 0..3 (4), line 0 (1).
     * Unique bytes 128. Modern: 128/(4*32) = 100%. Fermi CA: 1 line of 128 B
     * -> 100%. Fermi CG: 4 segments of 32 B -> 100%. */
    cml_access a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 4, FULL);
    cml_traffic t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.instructions, 1);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_EQ_U64(t.transactions, 4);
    CHECK_EQ_U64(t.transaction_bytes, 128);
    CHECK_EQ_U64(t.efficiency_bytes, 128);
    CHECK_EQ_U64(t.requested_bytes, 128);
    CHECK_EQ_U64(t.lane_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    CHECK_NEAR(cml_traffic_sectors_per_request(&t), 4.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.transactions, 1);
    CHECK_EQ_U64(t.transaction_bytes, 128);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    a.cache = CML_CACHE_CG;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 4);
    CHECK_EQ_U64(t.transaction_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* Offset 11 floats: a_l = B + 44 + 4l, bytes 44..171.
     * Sectors floor(44/32) = 1 .. floor(171/32) = 5 -> 5; lines {0, 1} -> 2.
     * Modern: 128 / (5*32 = 160) = 80%. Fermi CA: 2 lines = 256 B -> 50%.
     * Fermi CG (and NC, CS: 32 B path): 5 segments = 160 B -> 80%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 44, 4, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 5);
    CHECK_EQ_U64(t.lines, 2);
    CHECK_EQ_U64(t.transactions, 5);
    CHECK_EQ_U64(t.efficiency_bytes, 160);
    CHECK_EQ_U64(t.requested_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.8, 1e-12);
    CHECK_NEAR(cml_traffic_sectors_per_request(&t), 5.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 2);
    CHECK_EQ_U64(t.transaction_bytes, 256);
    CHECK_EQ_U64(t.efficiency_bytes, 256);
    CHECK_EQ_U64(t.sectors, 5);
    CHECK_EQ_U64(t.lines, 2);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);
    for (cml_cache c = CML_CACHE_CG; c < CML_CACHE_COUNT; c++) {
        a.cache = c;
        t = RUN(CML_RULES_FERMI, a);
        CHECK_EQ_U64(t.transactions, 5);
        CHECK_EQ_U64(t.transaction_bytes, 160);
        CHECK_NEAR(cml_traffic_efficiency(&t), 0.8, 1e-12);
    }

    /* Offset 128 floats = 512 B = 4 whole lines: same as offset 0. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 512, 4, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    a.cache = CML_CACHE_CG;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 4);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
}

/* Modern rules: the cache operator changes none of the counted fields. */
static void test_modern_cache_invariance(void)
{
    cml_access a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 44, 4, FULL);
    cml_traffic ref = RUN(CML_RULES_MODERN, a);
    for (cml_cache c = CML_CACHE_CG; c < CML_CACHE_COUNT; c++) {
        a.cache = c;
        cml_traffic t = RUN(CML_RULES_MODERN, a);
        CHECK(memcmp(&t, &ref, sizeof t) == 0);
    }
}

/* ---------------------------------------------------------------------- */
/* Global stores                                                          */
/* ---------------------------------------------------------------------- */
static void test_stores(void)
{
    /* Offset-11 float store: bytes 44..171 as for the load: modern 5 sectors,
     * 80%. Fermi: segments 1..5 in 32 B units; region 0 (bytes 0..127) holds
     * segments 1,2,3 -> not in one 64 B half -> one 128 B transaction; region 1
     * (128..255) holds its segments 0,1 (bytes 128..171) -> the lower 64 B half
     * -> one 64 B transaction. Transactions 2, bytes 128 + 64 = 192.
     * efficiency_bytes = 32 * 5 segments = 160 -> 128/160 = 80% (the book's
     * gst_efficiency). */
    cml_access a = affine(CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, B + 44, 4, FULL);
    cml_traffic t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.sectors, 5);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.8, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.transactions, 2);
    CHECK_EQ_U64(t.transaction_bytes, 192);
    CHECK_EQ_U64(t.efficiency_bytes, 160);
    CHECK_EQ_U64(t.sectors, 5);
    CHECK_EQ_U64(t.lines, 2);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.8, 1e-12);

    /* Aligned store: one region, all 4 segments -> one 128 B transaction. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, B, 4, FULL);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 1);
    CHECK_EQ_U64(t.transaction_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* Lanes 0..7 of a_l = B + 4l: bytes 0..31 = segment 0 only -> 32 B. */
    a.active = 0x000000FFu;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 1);
    CHECK_EQ_U64(t.transaction_bytes, 32);
    /* Lanes 0..15: bytes 0..63 = segments 0,1 = the lower half -> 64 B. */
    a.active = 0x0000FFFFu;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transaction_bytes, 64);
    /* Lanes 16..31: bytes 64..127 = segments 2,3 = the upper half -> 64 B. */
    a.active = 0xFFFF0000u;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transaction_bytes, 64);
    /* Lanes 8..23: bytes 32..95 = segments 1,2: two segments that straddle
     * the halves -> 128 B, though only 64 B are written (efficiency still
     * 64 / (2*32) = 100%, as the profiler counted segments). */
    a.active = 0x00FFFF00u;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transaction_bytes, 128);
    CHECK_EQ_U64(t.efficiency_bytes, 64);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* Offset 8 floats (32 B): bytes 32..159. Region 0: segments 1,2,3 -> 128 B;
     * region 1: segment 0 (bytes 128..159) -> 32 B. 160 B in 2 transactions. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, B + 32, 4, FULL);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 2);
    CHECK_EQ_U64(t.transaction_bytes, 160);

    /* float4 store, a_l = B + 16l: 4 requests (quarter warps), each 8 lanes *
     * 16 B = one full 128 B region -> 4 transactions of 128 B; 16 segments. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 16, B, 16, FULL);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 4);
    CHECK_EQ_U64(t.transactions, 4);
    CHECK_EQ_U64(t.transaction_bytes, 512);
    CHECK_EQ_U64(t.efficiency_bytes, 512);
    CHECK_EQ_U64(t.sectors, 16);
    CHECK_EQ_U64(t.lines, 4);
    /* Modern: one request, 16 sectors, 100% (docs/model.md 4.1). */
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.sectors, 16);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* One float per sector, a_l = B + 32l (docs/model.md 4.1): 32 sectors, 12.5%.
     * Fermi: each region gets 4 lanes, one per segment -> 128 B each, 8
     * regions = 1024 B; segments 32 -> efficiency 128/1024 = 12.5%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, B, 32, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 32);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.125, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 8);
    CHECK_EQ_U64(t.transaction_bytes, 1024);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.125, 1e-12);
}

/* ---------------------------------------------------------------------- */
/* Other global patterns                                                  */
/* ---------------------------------------------------------------------- */
static void test_global_patterns(void)
{
    /* All 32 lanes on one float (B + 28): 1 sector, 1 line, unique 4 B,
     * lane bytes 128. Modern 4/32 = 12.5%; Fermi CA 4/128 = 3.125%;
     * Fermi CG 4/32 = 12.5%. */
    cml_access a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 28, 0, FULL);
    cml_traffic t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 1);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_EQ_U64(t.requested_bytes, 4);
    CHECK_EQ_U64(t.lane_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.125, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.03125, 1e-12);
    a.cache = CML_CACHE_CG;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.125, 1e-12);

    /* AoS {float x, y}, read x: a_l = B + 8l, bytes 0..251 -> every sector
     * 0..7 holds the x of 4 lanes -> 8 sectors, 2 lines, 128 B useful of 256:
     * 50%. Reading y (B + 8l + 4) is the same. Fermi CA: 2 lines, 256 B, 50%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 8, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 8);
    CHECK_EQ_U64(t.lines, 2);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 2);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 4, 8, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 8);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);
    /* AoS store of x: modern 8 sectors 50%; Fermi: two full regions of 4
     * segments -> 2 x 128 B; efficiency 128 / (8*32) = 50%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, B, 8, FULL);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transaction_bytes, 256);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);

    /* 8-byte coalesced, a_l = B + 8l: bytes 0..255 -> 8 sectors, 2 lines,
     * 256 B useful -> 100%. Fermi: 2 requests (half-warps), each 16 lanes *
     * 8 B = bytes 0..127 / 128..255 = 1 line each -> 2 x 128 B -> 100%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 8, B, 8, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.sectors, 8);
    CHECK_EQ_U64(t.lines, 2);
    CHECK_EQ_U64(t.requested_bytes, 256);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 2);
    CHECK_EQ_U64(t.transactions, 2);
    CHECK_EQ_U64(t.transaction_bytes, 256);
    CHECK_EQ_U64(t.sectors, 8);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* 16-byte coalesced, a_l = B + 16l: bytes 0..511 -> 16 sectors, 4 lines,
     * 100%. Fermi: 4 requests of 8 lanes = 128 B = 1 line each -> 100%;
     * CG: 4 segments per request -> 16 transactions of 32 B. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 16, B, 16, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.sectors, 16);
    CHECK_EQ_U64(t.lines, 4);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 4);
    CHECK_EQ_U64(t.transactions, 4);
    CHECK_EQ_U64(t.transaction_bytes, 512);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    a.cache = CML_CACHE_CG;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 16);
    CHECK_EQ_U64(t.transaction_bytes, 512);
    /* Only lanes 0..7 of the float4 load: quarter-warp 0 only -> 1 request. */
    a.active = 0xFFu;
    a.cache = CML_CACHE_CA;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.transactions, 1);
    /* Lanes 0 and 31 only: quarter-warps 0 and 3 -> 2 requests. */
    a.active = 0x80000001u;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 2);
    CHECK_EQ_U64(t.transactions, 2);

    /* Strides of 2, 4, 32 floats (a_l = B + 8l, 16l, 128l), 4 B each:
     * stride 2: bytes 0..251 -> 8 sectors, 128/256 = 50%;
     * stride 4: bytes 0..499 -> sectors 0..15 (16), lines 4, 128/512 = 25%;
     * stride 32: one lane per line -> 32 sectors, 32 lines, 128/1024 = 12.5%;
     * Fermi CA stride 32: 32 lines -> 128/4096 = 3.125%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 8, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 8);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 16, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 16);
    CHECK_EQ_U64(t.lines, 4);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.25, 1e-12);
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 128, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 32);
    CHECK_EQ_U64(t.lines, 32);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.125, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transactions, 32);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.03125, 1e-12);

    /* Chars, a_l = B + l (w = 1): bytes 0..31 -> 1 sector, 1 line, 100%;
     * Fermi CA 32/128 = 25%. Shorts, a_l = B + 2l: bytes 0..63 -> 2 sectors,
     * 100%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 1, B, 1, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 1);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_EQ_U64(t.requested_bytes, 32);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.25, 1e-12);
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 2, B, 2, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 2);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* Lanes 0..7 of a_l = B + 4l: bytes 0..31 -> 1 sector, 32 B, 100%;
     * lane bytes 32. Fermi CA: 1 line -> 32/128 = 25%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 4, 0xFFu);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.instructions, 1);
    CHECK_EQ_U64(t.sectors, 1);
    CHECK_EQ_U64(t.lane_bytes, 32);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.25, 1e-12);
    /* Even lanes only: 0, 8, ..., 120 -> sectors 0..3 (4), 64 B -> 50%. */
    a.active = 0x55555555u;
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.requested_bytes, 64);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);
    /* Lanes 5..20 of the offset-11 warp: bytes 44+20 = 64 .. 44+80+3 = 127
     * -> sectors 2, 3 -> 2 sectors, 1 line, 64 B -> 100%. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 44, 4, 0x001FFFE0u);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 2);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* Reversed coalesced warp, a_l = B + 4(31 - l): the same 4 sectors. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 124, (uint64_t)0 - 4u, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_EQ_U64(t.requested_bytes, 128);
    /* A permutation inside one line (lane l reads word (l * 7) mod 32): still
     * 4 sectors, 1 line, 100%. */
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = B + 4u * ((l * 7u) % 32u);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
}

/* ---------------------------------------------------------------------- */
/* Validation                                                             */
/* ---------------------------------------------------------------------- */
static void test_validation(void)
{
    cml_access a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 4, FULL);
    cml_traffic t;

    /* Misaligned: a 4-byte access at B + 4l + 2; an 8-byte access at B + 4;
     * only the last lane misaligned (non-affine warp). *acc stays zero. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 2, 4, FULL);
    for (cml_rules r = CML_RULES_MODERN; r < CML_RULES_COUNT; r++) {
        t = run_one(r, &a, CML_EMISALIGNED, __LINE__);
        CHECK(traffic_is_zero(&t));
    }
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 8, B + 4, 8, FULL);
    t = run_one(CML_RULES_MODERN, &a, CML_EMISALIGNED, __LINE__);
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 8, B, 4, FULL); /* odd lanes */
    t = run_one(CML_RULES_MODERN, &a, CML_EMISALIGNED, __LINE__);
    /* ... but only active lanes count: the even lanes alone are aligned. */
    a.active = 0x55555555u;
    t = run_one(CML_RULES_MODERN, &a, CML_OK, __LINE__);
    a = affine(CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, B, 4, FULL);
    a.addr[31] = B + 1001;
    a.addr[3] = B + 800; /* not affine any more */
    t = run_one(CML_RULES_FERMI, &a, CML_EMISALIGNED, __LINE__);
    CHECK(traffic_is_zero(&t));
    /* Misaligned shared, local and constant are rejected too. */
    a = affine(CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 16, 8, 16, FULL);
    t = run_one(CML_RULES_MODERN, &a, CML_EMISALIGNED, __LINE__);
    a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 8, 4, 0, FULL);
    t = run_one(CML_RULES_MODERN, &a, CML_EMISALIGNED, __LINE__);
    a = affine(CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 2, 0, FULL);
    t = run_one(CML_RULES_MODERN, &a, CML_EMISALIGNED, __LINE__);

    /* Bad widths, spaces, ops, caches, rules, constant stores, NULLs. */
    const unsigned bad_w[] = {0, 3, 5, 6, 12, 32, 64};
    for (size_t i = 0; i < sizeof bad_w / sizeof bad_w[0]; i++) {
        a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, bad_w[i], B, 64, FULL);
        t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
        CHECK(traffic_is_zero(&t));
    }
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B, 4, FULL);
    a.space = CML_SPACE_COUNT;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
    a.space = (cml_space)-1;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
    a.space = CML_SPACE_GLOBAL;
    a.op = CML_OP_COUNT;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
    a.op = CML_OP_LOAD;
    a.cache = CML_CACHE_COUNT;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
    /* The copy engine only reads global memory: a bulk store, or a bulk
     * access of any other space, is no instruction. */
    a.cache = CML_CACHE_BULK;
    a.op = CML_OP_STORE;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
    a.op = CML_OP_LOAD;
    a.space = CML_SPACE_SHARED;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
    a.space = CML_SPACE_LOCAL;
    t = run_one(CML_RULES_FERMI, &a, CML_EINVAL, __LINE__);
    a.space = CML_SPACE_GLOBAL;
    a.cache = CML_CACHE_CA;
    t = run_one(CML_RULES_COUNT, &a, CML_EINVAL, __LINE__);
    a.space = CML_SPACE_CONSTANT;
    a.op = CML_OP_STORE;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);
    CHECK(cml_model_access(CML_RULES_MODERN, NULL, &t) == CML_EINVAL);
    a.op = CML_OP_LOAD;
    CHECK(cml_model_access(CML_RULES_MODERN, &a, NULL) == CML_EINVAL);
    /* Local offsets beyond any real frame are invalid. */
    a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 4, UINT64_C(1) << 33, 0, FULL);
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);

    /* No active lane: CML_OK and nothing added, even with odd addresses;
     * argument errors are still reported first. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 1, 4, 0);
    for (cml_space sp = CML_SPACE_GLOBAL; sp < CML_SPACE_COUNT; sp++) {
        a.space = sp;
        t = run_one(CML_RULES_MODERN, &a, CML_OK, __LINE__);
        CHECK(traffic_is_zero(&t));
        t = run_one(CML_RULES_FERMI, &a, CML_OK, __LINE__);
        CHECK(traffic_is_zero(&t));
    }
    a.width = 3;
    t = run_one(CML_RULES_MODERN, &a, CML_EINVAL, __LINE__);

    /* The model ADDS: two runs into one accumulator give twice the counts. */
    a = affine(CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 44, 4, FULL);
    memset(&t, 0, sizeof t);
    CHECK(cml_model_access(CML_RULES_MODERN, &a, &t) == CML_OK);
    CHECK(cml_model_access(CML_RULES_MODERN, &a, &t) == CML_OK);
    CHECK_EQ_U64(t.instructions, 2);
    CHECK_EQ_U64(t.sectors, 10);
    CHECK_EQ_U64(t.requested_bytes, 256);
    /* A failing call leaves the accumulator as it was. */
    cml_traffic before = t;
    a.addr[0] += 1;
    CHECK(cml_model_access(CML_RULES_MODERN, &a, &t) == CML_EMISALIGNED);
    CHECK(memcmp(&before, &t, sizeof t) == 0);
}

/* ---------------------------------------------------------------------- */
/* Shared memory (model S1, docs/model.md 5 and its worked examples)      */
/* ---------------------------------------------------------------------- */
static void check_shared(uint64_t base, uint64_t stride, unsigned w, uint32_t active,
                         uint64_t wf, uint64_t ideal, int line)
{
    for (cml_op op = CML_OP_LOAD; op < CML_OP_COUNT; op++) {
        for (cml_rules r = CML_RULES_MODERN; r < CML_RULES_COUNT; r++) {
            cml_access a = affine(CML_SPACE_SHARED, op, CML_CACHE_CA, w, base, stride, active);
            cml_traffic t = run_one(r, &a, CML_OK, line);
            if (t.wavefronts != wf || t.ideal_wavefronts != ideal ||
                t.bank_conflicts != wf - ideal || t.instructions != 1 || t.requests != 1 ||
                t.sectors != 0 || t.lines != 0 || t.efficiency_bytes != 128u * wf) {
                cml_test_failures++;
                fprintf(stderr,
                        "%s:%d: shared stride %" PRIu64 " w %u: wavefronts %" PRIu64
                        " ideal %" PRIu64 " conflicts %" PRIu64 ", expected %" PRIu64
                        " %" PRIu64 "\n",
                        __FILE__, line, stride, w, t.wavefronts, t.ideal_wavefronts,
                        t.bank_conflicts, wf, ideal);
            }
            cml_test_checks++;
        }
    }
}

/* check_shared for one operation only (loads and stores differ for 8- and
 * 16-byte accesses whose lane pairs share an address). */
static void check_shared_op(cml_op op, uint64_t base, uint64_t stride, unsigned w,
                            uint32_t active, uint64_t wf, uint64_t ideal, int line)
{
    for (cml_rules r = CML_RULES_MODERN; r < CML_RULES_COUNT; r++) {
        cml_access a = affine(CML_SPACE_SHARED, op, CML_CACHE_CA, w, base, stride, active);
        cml_traffic t = run_one(r, &a, CML_OK, line);
        if (t.wavefronts != wf || t.ideal_wavefronts != ideal || t.bank_conflicts != wf - ideal) {
            cml_test_failures++;
            fprintf(stderr, "%s:%d: shared %s stride %" PRIu64 " w %u: wavefronts %" PRIu64
                    " ideal %" PRIu64 ", expected %" PRIu64 " %" PRIu64 "\n", __FILE__, line,
                    op == CML_OP_LOAD ? "load" : "store", stride, w, t.wavefronts,
                    t.ideal_wavefronts, wf, ideal);
        }
        cml_test_checks++;
    }
}

static void test_shared(void)
{
    /* docs/model.md 5 (worked examples), 32 active lanes, word(a) = a/4,
     * bank = word mod 32:
     * a = 4l: words 0..31, one per bank -> 1 wavefront. */
    check_shared(0, 4, 4, FULL, 1, 1, __LINE__);
    /* a = 8l: words 2l; lanes l and l+16 share bank 2l mod 32 with different
     * words -> 2 distinct words in a bank -> 2 wavefronts, 1 conflict. */
    check_shared(0, 8, 4, FULL, 2, 1, __LINE__);
    /* a = 4*33*l (32x32 tile with one word of padding, column access):
     * words 33l, bank l -> 1 wavefront. */
    check_shared(0, 132, 4, FULL, 1, 1, __LINE__);
    /* a = 128l (column of an unpadded 32x32 float tile): words 32l, all in
     * bank 0, 32 distinct -> 32 wavefronts, 31 conflicts. */
    check_shared(0, 128, 4, FULL, 32, 1, __LINE__);
    /* Broadcast: every lane on word 5 -> 1 wavefront. */
    check_shared(20, 0, 4, FULL, 1, 1, __LINE__);
    /* Chars, a = l: words 0..7 -> 1. */
    check_shared(0, 1, 1, FULL, 1, 1, __LINE__);
    /* Doubles, a = 8l: half-warp 0 words 0..31, half-warp 1 words 32..63,
     * one per bank in each -> 1 + 1 = 2 wavefronts, ideal 2. */
    check_shared(0, 8, 8, FULL, 2, 2, __LINE__);
    /* Doubles at stride 2, a = 16l: half-warp 0 lanes t = 0..15 use words 4t,
     * 4t+1: for t = 0..7 banks 0,1,4,5,...,28,29; t = 8..15 the same banks
     * with words + 32 -> 2 distinct per bank -> 2 per half, 4 total, ideal 2,
     * conflicts 2. */
    check_shared(0, 16, 8, FULL, 4, 2, __LINE__);
    /* float4, a = 16l: quarter q lanes 8q..8q+7 use 32 consecutive words ->
     * 1 per quarter, 4 total, ideal 4. */
    check_shared(0, 16, 16, FULL, 4, 4, __LINE__);
    /* float4 at stride 2, a = 32l: quarter 0 words 8t..8t+3 (t = 0..7): t = 0..3
     * banks 0-3, 8-11, 16-19, 24-27; t = 4..7 the same banks, words + 32 -> 2
     * per quarter, 8 total, ideal 4, conflicts 4. */
    check_shared(0, 32, 16, FULL, 8, 4, __LINE__);
    /* docs/model.md 5.1 (a): only lanes 0..7 of a consecutive LDS.128 -> one phase
     * active, 1 wavefront (S1; S2 would say 4). */
    check_shared(0, 16, 16, 0xFFu, 1, 1, __LINE__);
    /* 5.1 (c): all lanes one address. Stores keep S1: STS.64 -> 2 phases of
     * 1 = 2, STS.128 -> 4. Loads, as measured on the H100 (E7): lane pairs
     * share an address, so phases are twice as wide: LDS.64 -> 1 phase of 2
     * words in 2 banks = 1; LDS.128 -> 2 phases of 1 = 2. */
    check_shared_op(CML_OP_STORE, 64, 0, 8, FULL, 2, 2, __LINE__);
    check_shared_op(CML_OP_STORE, 64, 0, 16, FULL, 4, 4, __LINE__);
    check_shared_op(CML_OP_LOAD, 64, 0, 8, FULL, 1, 1, __LINE__);
    check_shared_op(CML_OP_LOAD, 64, 0, 16, FULL, 2, 2, __LINE__);
    /* 4.3 (b): LDS.128 with T0 = T1 (a = 16*(l/2): 16 distinct float4):
     * phases of 16 lanes hold 8 float4 = 32 words in 32 banks -> 1 each,
     * 2 in all (measured 2). The store of the same pattern keeps S1:
     * quarters of 8 lanes, 4 float4 = 16 words each -> 4. */
    {
        cml_access a = affine(CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 16, 0, 0, FULL);
        for (unsigned l = 0; l < 32; l++)
            a.addr[l] = 16u * (l / 2);
        cml_traffic t = run_one(CML_RULES_MODERN, &a, CML_OK, __LINE__);
        CHECK_EQ_U64(t.wavefronts, 2);
        CHECK_EQ_U64(t.bank_conflicts, 0);
        a.op = CML_OP_STORE;
        t = run_one(CML_RULES_MODERN, &a, CML_OK, __LINE__);
        CHECK_EQ_U64(t.wavefronts, 4);
    }
    /* A lone lane: 1 wavefront. */
    check_shared(4096, 4, 4, 1u << 17, 1, 1, __LINE__);

    /* Multicast, a = 4*(l/4): 4 lanes per word, words 0..7 in banks 0..7 ->
     * 1 wavefront. */
    cml_access a = affine(CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 0, FULL);
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = 4u * (l / 4u);
    cml_traffic t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.wavefronts, 1);
    CHECK_EQ_U64(t.bank_conflicts, 0);
    CHECK_EQ_U64(t.requested_bytes, 32);
    CHECK_EQ_U64(t.lane_bytes, 128);
    /* Multicast of two words in ONE bank, a = 128 * (l mod 2): words 0 and 32
     * both in bank 0 -> 2 wavefronts. */
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = 128u * (l % 2u);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.wavefronts, 2);
    CHECK_EQ_U64(t.bank_conflicts, 1);
    /* docs/model.md 5.1 (d): LDS.64 with lane l reading double 2*(l mod 16):
     * a = 16*(l mod 16); each half-warp: words 4t, 4t+1 for t = 0..15 ->
     * 2-way as for the stride-2 doubles -> 2 per half, 4 in all (S1). */
    a.width = 8;
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = 16u * (l % 16u);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.wavefronts, 4);
    CHECK_EQ_U64(t.ideal_wavefronts, 2);
    CHECK_EQ_U64(t.bank_conflicts, 2);

    /* Shared efficiency = unique bytes / (128 B * wavefronts):
     * a = 4l: 128 / 128 = 100%; column a = 128l: 128 / 4096 = 3.125%;
     * broadcast: 4 / 128 = 3.125%. */
    a = affine(CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 4, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    a = affine(CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 128, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.03125, 1e-12);
    a = affine(CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 0, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.03125, 1e-12);
}

/* ---------------------------------------------------------------------- */
/* Constant memory                                                        */
/* ---------------------------------------------------------------------- */
static void test_constant(void)
{
    /* One address for all lanes: 1 request, serialized 1, unique 4 B. */
    cml_access a = affine(CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 64, 0, FULL);
    cml_traffic t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.instructions, 1);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.serialized, 1);
    CHECK_EQ_U64(t.requested_bytes, 4);
    CHECK_EQ_U64(t.lane_bytes, 128);
    CHECK_EQ_U64(t.sectors, 0);
    /* Two addresses (a = 4*(l mod 2)): serialized 2, 8 B. */
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = 4u * (l % 2u);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.serialized, 2);
    CHECK_EQ_U64(t.requested_bytes, 8);
    /* 32 distinct (a = 4l): serialized 32. */
    a = affine(CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 4, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.serialized, 32);
    CHECK_EQ_U64(t.requested_bytes, 128);
    /* Lanes 0..3 only, 4 distinct: serialized 4. */
    a.active = 0xFu;
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.serialized, 4);
}

/* ---------------------------------------------------------------------- */
/* Local memory                                                           */
/* ---------------------------------------------------------------------- */
static void test_local(void)
{
    /* Same index, int at frame offset 0 for all lanes: physical(l, 0) =
     * (0*32 + l)*4 = 4l -> bytes 0..127 -> 4 sectors, 1 line; requested
     * 4*32 = 128 -> 100%. */
    cml_access a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 0, FULL);
    cml_traffic t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.lines, 1);
    CHECK_EQ_U64(t.requested_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    /* Fermi: one request, one 128 B line -> 100%; the store: one full region
     * -> one 128 B transaction. */
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 1);
    CHECK_EQ_U64(t.transactions, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    a.op = CML_OP_STORE;
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.transaction_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* Same index at offset 8 (word 2): physical 256 + 4l -> 4 sectors. */
    a = affine(CML_SPACE_LOCAL, CML_OP_STORE, CML_CACHE_CA, 4, 8, 0, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);

    /* Lane-varying index, lane l reads int arr[l] (o_l = 4l): physical =
     * (l*32 + l)*4 = 132l: consecutive lanes 132 B apart -> 32 sectors,
     * 32 lines; 128 / 1024 = 12.5%. */
    a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 4, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 32);
    CHECK_EQ_U64(t.lines, 32);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.125, 1e-12);
    /* Same array, lanes reading arr[l mod 2]: o = 0 or 4 -> physical 4l for
     * even lanes (row 0) and 128 + 4l for odd lanes (row 1): 16 lanes in each
     * 128 B row, spread over all 4 sectors of each -> 8 sectors, 2 lines;
     * 128 B requested (lanes never share local bytes) / 256 = 50%. */
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = 4u * (l % 2u);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 8);
    CHECK_EQ_U64(t.lines, 2);
    CHECK_EQ_U64(t.requested_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.5, 1e-12);

    /* Same index, w = 8 at o = 8: words 2 and 3 -> rows 2, 3 = physical bytes
     * 256..511 -> 8 sectors, 2 lines, 256 B -> 100%. */
    a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 8, 8, 0, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 8);
    CHECK_EQ_U64(t.lines, 2);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    /* Same index, w = 16 at o = 0: words 0..3 -> bytes 0..511 -> 16 sectors,
     * 4 lines, 100%. Fermi: 4 requests of 8 lanes; each touches 32 B in each
     * of rows 0..3 = 4 lines -> 16 lines of 128 B = 2048 B for 512 B: 25%. */
    a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 16, 0, 0, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 16);
    CHECK_EQ_U64(t.lines, 4);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
    t = RUN(CML_RULES_FERMI, a);
    CHECK_EQ_U64(t.requests, 4);
    CHECK_EQ_U64(t.transactions, 16);
    CHECK_EQ_U64(t.sectors, 16);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.25, 1e-12);

    /* Same index char at o = 1: physical (0*32 + l)*4 + 1 = 4l + 1 -> one byte
     * in each word of row 0 -> 4 sectors for 32 B: 25% (word interleave;
     * docs/model.md 7 leaves byte interleave open, E9). */
    a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 1, 1, 0, FULL);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 4);
    CHECK_EQ_U64(t.requested_bytes, 32);
    CHECK_NEAR(cml_traffic_efficiency(&t), 0.25, 1e-12);

    /* Lanes 0..7, same index int: physical 0..31 -> 1 sector, 100%. */
    a = affine(CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 4, 0, 0, 0xFFu);
    t = RUN(CML_RULES_MODERN, a);
    CHECK_EQ_U64(t.sectors, 1);
    CHECK_NEAR(cml_traffic_efficiency(&t), 1.0, 1e-12);
}

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */
/* ---------------------------------------------------------------------- */
static void test_helpers(void)
{
    cml_traffic z;
    memset(&z, 0, sizeof z);
    CHECK_NEAR(cml_traffic_efficiency(&z), 0.0, 0.0);
    CHECK_NEAR(cml_traffic_sectors_per_request(&z), 0.0, 0.0);
    CHECK_NEAR(cml_traffic_efficiency(NULL), 0.0, 0.0);

    cml_traffic a, b;
    uint64_t *pa = (uint64_t *)&a, *pb = (uint64_t *)&b;
    const size_t nf = sizeof a / sizeof(uint64_t);
    for (size_t i = 0; i < nf; i++) {
        pa[i] = i + 1;
        pb[i] = 100 * (i + 1);
    }
    cml_traffic_add(&a, &b);
    for (size_t i = 0; i < nf; i++)
        CHECK_EQ_U64(pa[i], 101 * (i + 1));

    CHECK(strcmp(cml_class_name(CML_CLASS_GLOBAL_LD), "global_ld") == 0);
    CHECK(strcmp(cml_class_name(CML_CLASS_SHARED_ST), "shared_st") == 0);
    CHECK(strcmp(cml_class_name(CML_CLASS_CONST_LD), "const_ld") == 0);
    CHECK(strcmp(cml_class_name(CML_CLASS_COUNT), "invalid") == 0);
    CHECK(cml_class_of(CML_SPACE_GLOBAL, CML_OP_LOAD) == CML_CLASS_GLOBAL_LD);
    CHECK(cml_class_of(CML_SPACE_GLOBAL, CML_OP_STORE) == CML_CLASS_GLOBAL_ST);
    CHECK(cml_class_of(CML_SPACE_LOCAL, CML_OP_LOAD) == CML_CLASS_LOCAL_LD);
    CHECK(cml_class_of(CML_SPACE_LOCAL, CML_OP_STORE) == CML_CLASS_LOCAL_ST);
    CHECK(cml_class_of(CML_SPACE_SHARED, CML_OP_LOAD) == CML_CLASS_SHARED_LD);
    CHECK(cml_class_of(CML_SPACE_SHARED, CML_OP_STORE) == CML_CLASS_SHARED_ST);
    CHECK(cml_class_of(CML_SPACE_CONSTANT, CML_OP_LOAD) == CML_CLASS_CONST_LD);
    CHECK(cml_class_of(CML_SPACE_CONSTANT, CML_OP_STORE) == CML_CLASS_COUNT);
    CHECK(cml_class_of(CML_SPACE_COUNT, CML_OP_LOAD) == CML_CLASS_COUNT);
    for (unsigned k = 0; k < 8; k++) {
        CHECK(cml_array_base(k) % 4096u == 0);
        CHECK(cml_array_base(k + 1) - cml_array_base(k) >= (UINT64_C(1) << 32));
    }
}

/* ---------------------------------------------------------------------- */
/* Randomised comparison with a brute-force reference                     */
/* ---------------------------------------------------------------------- */
static uint64_t rng_state = 0x243F6A8885A308D3u;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Number of distinct values of f(x) over x in v[0..n), quadratic and obvious. */
static uint64_t distinct_shift(const uint64_t *v, size_t n, unsigned shift)
{
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && (v[j] >> shift) != (v[i] >> shift))
            j++;
        d += j == i;
    }
    return d;
}

/* Unique bytes by marking every byte (addresses kept small by the caller). */
static uint64_t unique_bytes(const uint64_t *v, size_t n, unsigned w, uint64_t lo)
{
    static unsigned char seen[1u << 16];
    memset(seen, 0, sizeof seen);
    uint64_t u = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < w; b++) {
            size_t k = (size_t)(v[i] + b - lo);
            u += !seen[k];
            seen[k] = 1;
        }
    return u;
}

/* Fermi reference for one request (lanes as given). */
static void ref_fermi_request(const uint64_t *v, size_t n, int store, int cached, uint64_t *tr,
                              uint64_t *tb, uint64_t *eb)
{
    if (!store) {
        uint64_t t = distinct_shift(v, n, cached ? 7 : 5);
        *tr += t;
        *tb += t * (cached ? 128u : 32u);
        *eb += t * (cached ? 128u : 32u);
        return;
    }
    /* Per region: mark segments, then size by the 1/2/4-segment rule. */
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && (v[j] >> 7) != (v[i] >> 7))
            j++;
        if (j != i)
            continue; /* region already done */
        unsigned seg[4] = {0, 0, 0, 0};
        for (size_t k = 0; k < n; k++)
            if ((v[k] >> 7) == (v[i] >> 7))
                seg[(v[k] >> 5) & 3u] = 1;
        unsigned cnt = seg[0] + seg[1] + seg[2] + seg[3];
        unsigned bytes = cnt == 1 ? 32u : (!(seg[2] | seg[3]) || !(seg[0] | seg[1])) ? 64u : 128u;
        *tr += 1;
        *tb += bytes;
        *eb += 32u * cnt;
    }
}

static void test_random_against_reference(void)
{
    static const unsigned widths[] = {1, 2, 4, 8, 16};
    unsigned mismatches = 0;
    for (unsigned iter = 0; iter < 20000; iter++) {
        const unsigned w = widths[rnd() % 5];
        const uint64_t base = B + 4096u;
        cml_access a;
        memset(&a, 0, sizeof a);
        a.space = CML_SPACE_GLOBAL;
        a.op = (rnd() & 1u) ? CML_OP_STORE : CML_OP_LOAD;
        a.cache = (cml_cache)(rnd() % CML_CACHE_BULK); /* the LSU's operators */
        a.width = w;
        /* Mask: full, contiguous run, or random. */
        switch (rnd() % 3) {
        case 0: a.active = FULL; break;
        case 1: {
            unsigned lo = (unsigned)(rnd() % 32), len = 1u + (unsigned)(rnd() % (32u - lo));
            a.active = (uint32_t)(((UINT64_C(1) << len) - 1u) << lo);
            break;
        }
        default: a.active = (uint32_t)rnd(); break;
        }
        /* Addresses: affine with a random (possibly negative) stride, or
         * random within a window small enough to collide. */
        const uint64_t span = 1u << (6 + rnd() % 8); /* 64 B .. 8 KB */
        if (rnd() & 1u) {
            int64_t stride = (int64_t)(rnd() % 9) * (int64_t)w * ((rnd() & 1u) ? 1 : -1);
            if (rnd() % 4 == 0)
                stride = (int64_t)w * (int64_t)(rnd() % 40);
            for (unsigned l = 0; l < 32; l++)
                a.addr[l] = base + 20000u + (uint64_t)((int64_t)l * stride);
        } else {
            for (unsigned l = 0; l < 32; l++)
                a.addr[l] = base + (rnd() % (span / w)) * w;
        }
        if (rnd() % 4 == 0) { /* nearly sorted: swap two lanes */
            unsigned x = (unsigned)(rnd() % 32), y = (unsigned)(rnd() % 32);
            uint64_t tmp = a.addr[x];
            a.addr[x] = a.addr[y];
            a.addr[y] = tmp;
        }

        uint64_t v[32];
        size_t n = 0;
        for (unsigned l = 0; l < 32; l++)
            if ((a.active >> l) & 1u)
                v[n++] = a.addr[l];
        if (n == 0)
            continue;
        const uint64_t sectors = distinct_shift(v, n, 5), lines = distinct_shift(v, n, 7);
        const uint64_t uniq = unique_bytes(v, n, w, base);

        cml_traffic t;
        memset(&t, 0, sizeof t);
        int bad = cml_model_access(CML_RULES_MODERN, &a, &t) != CML_OK;
        bad |= t.sectors != sectors || t.lines != lines || t.requested_bytes != uniq ||
               t.transactions != sectors || t.efficiency_bytes != 32u * sectors ||
               t.lane_bytes != (uint64_t)w * n || t.requests != 1;

        /* Fermi, request by request. */
        const unsigned g = w <= 4 ? 32u : 128u / w;
        uint64_t req = 0, tr = 0, tb = 0, eb = 0;
        for (unsigned lo = 0; lo < 32; lo += g) {
            uint64_t gv[32];
            size_t gn = 0;
            for (unsigned l = lo; l < lo + g; l++)
                if ((a.active >> l) & 1u)
                    gv[gn++] = a.addr[l];
            if (gn == 0)
                continue;
            req++;
            ref_fermi_request(gv, gn, a.op == CML_OP_STORE, a.cache == CML_CACHE_CA, &tr, &tb,
                              &eb);
        }
        memset(&t, 0, sizeof t);
        bad |= cml_model_access(CML_RULES_FERMI, &a, &t) != CML_OK;
        bad |= t.requests != req || t.transactions != tr || t.transaction_bytes != tb ||
               t.efficiency_bytes != eb || t.sectors != sectors || t.lines != lines ||
               t.requested_bytes != uniq;

        /* Shared memory: S1 by brute force, phase by phase, bank by bank,
         * with phases twice as wide for 8/16-byte loads whose active lane
         * pairs (l, l^1) share an address (measured on the H100, E7). */
        a.space = CML_SPACE_SHARED;
        uint64_t wf = 0, ideal = 0;
        unsigned gs = g, pairs = 0, unequal = 0;
        for (unsigned l = 0; l < 32; l += 2)
            if (((a.active >> l) & 3u) == 3u) {
                pairs++;
                unequal |= a.addr[l] != a.addr[l + 1];
            }
        if (a.op == CML_OP_LOAD && w >= 8 && pairs && !unequal)
            gs = 2 * g;
        for (unsigned lo = 0; lo < 32; lo += gs) {
            uint64_t words[64];
            size_t nw = 0;
            for (unsigned l = lo; l < lo + gs; l++)
                if ((a.active >> l) & 1u)
                    for (unsigned j = 0; j < (w >= 4 ? w / 4 : 1u); j++)
                        words[nw++] = a.addr[l] / 4 + j;
            if (nw == 0)
                continue;
            ideal++;
            uint64_t most = 0;
            for (unsigned bank = 0; bank < 32; bank++) {
                uint64_t inbank[32];
                size_t nb = 0;
                for (size_t i = 0; i < nw; i++)
                    if (words[i] % 32 == bank)
                        inbank[nb++] = words[i];
                uint64_t d = distinct_shift(inbank, nb, 0);
                most = d > most ? d : most;
            }
            wf += most;
        }
        memset(&t, 0, sizeof t);
        bad |= cml_model_access(CML_RULES_MODERN, &a, &t) != CML_OK;
        bad |= t.wavefronts != wf || t.ideal_wavefronts != ideal || t.requested_bytes != uniq;

        /* Local memory: frame offsets o_l = a_l - base (aligned, < 64 KB),
         * mapped byte by byte through the word interleave. */
        {
            uint64_t phys[4 * 32];
            size_t np = 0;
            for (unsigned l = 0; l < 32; l++) {
                if (!((a.active >> l) & 1u))
                    continue;
                const uint64_t o = a.addr[l] - base;
                if (w >= 4)
                    for (unsigned j = 0; j < w / 4; j++)
                        phys[np++] = ((o / 4 + j) * 32 + l) * 4;
                else
                    phys[np++] = ((o / 4) * 32 + l) * 4 + o % 4;
            }
            const uint64_t lsec = distinct_shift(phys, np, 5), llin = distinct_shift(phys, np, 7);
            cml_access loc = a;
            loc.space = CML_SPACE_LOCAL;
            for (unsigned l = 0; l < 32; l++)
                loc.addr[l] = a.addr[l] - base;
            memset(&t, 0, sizeof t);
            bad |= cml_model_access(CML_RULES_MODERN, &loc, &t) != CML_OK;
            bad |= t.sectors != lsec || t.lines != llin || t.requested_bytes != (uint64_t)w * n ||
                   t.efficiency_bytes != 32u * lsec || t.requests != 1;
            /* Fermi local: requests by width; loads as cached (128 B lines),
             * stores by the segment rule, over each request's chunks. */
            uint64_t lreq = 0, ltr = 0, ltb = 0, leb = 0;
            for (unsigned lo = 0; lo < 32; lo += g) {
                uint64_t gp[4 * 32];
                size_t gn = 0;
                for (unsigned l = lo; l < lo + g; l++) {
                    if (!((a.active >> l) & 1u))
                        continue;
                    const uint64_t o = a.addr[l] - base;
                    if (w >= 4)
                        for (unsigned j = 0; j < w / 4; j++)
                            gp[gn++] = ((o / 4 + j) * 32 + l) * 4;
                    else
                        gp[gn++] = ((o / 4) * 32 + l) * 4 + o % 4;
                }
                if (gn == 0)
                    continue;
                lreq++;
                ref_fermi_request(gp, gn, a.op == CML_OP_STORE, 1, &ltr, &ltb, &leb);
            }
            memset(&t, 0, sizeof t);
            bad |= cml_model_access(CML_RULES_FERMI, &loc, &t) != CML_OK;
            bad |= t.requests != lreq || t.transactions != ltr || t.transaction_bytes != ltb ||
                   t.efficiency_bytes != leb || t.sectors != lsec || t.lines != llin;
        }

        /* Constant memory: distinct addresses. */
        if (a.op == CML_OP_LOAD) {
            a.space = CML_SPACE_CONSTANT;
            memset(&t, 0, sizeof t);
            bad |= cml_model_access(CML_RULES_MODERN, &a, &t) != CML_OK;
            bad |= t.serialized != distinct_shift(v, n, 0);
        }
        if (bad && mismatches++ < 5)
            fprintf(stderr, "random case %u (w %u, op %d, cache %d, mask %08x) mismatches\n",
                    iter, w, (int)a.op, (int)a.cache, (unsigned)a.active);
    }
    CHECK_EQ_U64(mismatches, 0);
}

int main(void)
{
    test_read_offsets();
    test_modern_cache_invariance();
    test_stores();
    test_global_patterns();
    test_validation();
    test_shared();
    test_constant();
    test_local();
    test_helpers();
    test_random_against_reference();
    return cml_test_summary("test_model_access");
}
