/*
 * The hierarchy experiment without a GPU: the capacity rule against sizes
 * placed by hand, the level read from counter figures, the launch geometry
 * (every row walked, the bytes of a launch), the chase's permutation (one
 * cycle through every slot, and its inverse), the model's counts of whole
 * launches derived by hand, the options' bounds, and the chart's vertical
 * marks at the capacities.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "report/chart_plan.h"
#include "report/svg_chart.h"
#include "test_util.h"
#include "experiments/registry.h"
#include "model/trace_hook.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/*
 * L1 = 256 KiB per SM, L2 = 50 MiB, 132 SMs. The L1 side: up to 0.9 x 256
 * = 230.4 KiB is L1, up to 1.5 x 256 = 384 KiB the edge. The L2 side: up to
 * 0.75 x 50 = 37.5 MiB is L2, up to 75 MiB the edge, DRAM beyond. 132 x 256
 * KiB = 33 MiB of L1 in all does not make 32 MiB an L1 size: every SM walks
 * the whole working set, so one SM's L1 is what must hold it.
 */
static void test_predict(void)
{
    cml_hier_caps c = {256 * KIB, 50 * MIB, 0, 132, 1};
    static const struct {
        int op, path, random;
        uint64_t ws;
        cml_hier_level want;
    } cases[] = {
        {CML_HIER_READ, CML_HIER_CA, 0, 4 * KIB, CML_HIER_L1},
        {CML_HIER_READ, CML_HIER_CA, 0, 64 * KIB, CML_HIER_L1},
        {CML_HIER_READ, CML_HIER_CA, 0, 230 * KIB, CML_HIER_L1},
        {CML_HIER_READ, CML_HIER_CA, 0, 231 * KIB, CML_HIER_L1_L2},
        {CML_HIER_READ, CML_HIER_NC, 0, 384 * KIB, CML_HIER_L1_L2},
        {CML_HIER_READ, CML_HIER_CA, 0, 385 * KIB, CML_HIER_L2},
        {CML_HIER_READ, CML_HIER_CA, 0, 32 * MIB, CML_HIER_L2},
        {CML_HIER_READ, CML_HIER_CA, 0, 37 * MIB + 512 * KIB, CML_HIER_L2},
        {CML_HIER_READ, CML_HIER_CA, 0, 37 * MIB + 513 * KIB, CML_HIER_L2_DRAM},
        {CML_HIER_READ, CML_HIER_CA, 0, 75 * MIB, CML_HIER_L2_DRAM},
        {CML_HIER_READ, CML_HIER_CA, 0, 76 * MIB, CML_HIER_DRAM},
        {CML_HIER_READ, CML_HIER_CA, 0, 32 * GIB, CML_HIER_DRAM},
        /* cg skips L1; stores are written through to L2. */
        {CML_HIER_READ, CML_HIER_CG, 0, 4 * KIB, CML_HIER_L2},
        {CML_HIER_WRITE, CML_HIER_CA, 0, 4 * KIB, CML_HIER_L2},
        {CML_HIER_COPY, CML_HIER_CA, 0, 64 * KIB, CML_HIER_L2},
        {CML_HIER_WRITE, CML_HIER_CA, 0, 128 * MIB, CML_HIER_DRAM},
        {CML_HIER_CHASE, CML_HIER_NC, 1, 64 * KIB, CML_HIER_L1},
        {CML_HIER_CHASE, CML_HIER_CG, 1, 64 * KIB, CML_HIER_L2},
        /* No TLB reach assumed: DRAM at any size. */
        {CML_HIER_CHASE, CML_HIER_CA, 1, 16 * GIB, CML_HIER_DRAM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cml_hier_level got =
            cml_hier_predict(&c, cases[i].op, cases[i].path, cases[i].random, cases[i].ws);
        if (got != cases[i].want)
            fprintf(stderr, "case %zu: %s, want %s\n", i, cml_hier_level_name(got),
                    cml_hier_level_name(cases[i].want));
        CHECK_EQ_I64(got, cases[i].want);
    }
    /* With 1 GiB of TLB reach: a random chase over 2 GiB misses in it, one
     * in address order (a page for 2 MiB of hops) and 1 GiB do not. */
    c.tlb_reach = GIB;
    CHECK_EQ_I64(cml_hier_predict(&c, CML_HIER_CHASE, CML_HIER_CA, 1, 2 * GIB),
                 CML_HIER_DRAM_TLB);
    CHECK_EQ_I64(cml_hier_predict(&c, CML_HIER_CHASE, CML_HIER_CA, 0, 2 * GIB), CML_HIER_DRAM);
    CHECK_EQ_I64(cml_hier_predict(&c, CML_HIER_CHASE, CML_HIER_CA, 1, GIB), CML_HIER_DRAM);
    CHECK_EQ_I64(cml_hier_predict(&c, CML_HIER_READ, CML_HIER_CA, 1, 2 * GIB), CML_HIER_DRAM);

    CHECK(strcmp(cml_hier_level_name(CML_HIER_L2_DRAM), "L2/DRAM") == 0);
    CHECK_NEAR(cml_hier_level_code(CML_HIER_L1_L2), 1.5, 0);
    CHECK_NEAR(cml_hier_level_code(CML_HIER_DRAM_TLB), 4.0, 0);

    /* The capacities of a device: its largest carve-out, its L2. */
    cml_device_facts f;
    memset(&f, 0, sizeof f);
    f.shared_per_sm = 233472;
    f.l2_bytes = 52428800;
    f.sm_count = 114;
    cml_hier_caps_of(&f, 0, &c);
    CHECK_EQ_U64(c.l1_bytes, 233472);
    CHECK_EQ_U64(c.l2_bytes, 52428800);
    CHECK_EQ_U64(c.sms, 114);
    CHECK(c.from_device);
    cml_hier_caps_of(NULL, 7, &c);
    CHECK_EQ_U64(c.l1_bytes, 228 * KIB);
    CHECK_EQ_U64(c.l2_bytes, 50 * MIB);
    CHECK_EQ_U64(c.sms, 132);
    CHECK_EQ_U64(c.tlb_reach, 7);
    CHECK(!c.from_device);
}

static void test_measured(void)
{
    cml_hier_measured m;
    /* 1000 load sectors, 900 hit in L1: L1. */
    cml_hier_counts a = {1000, 900, 100, 0, 0, 0};
    cml_hier_measure_counts(&a, &m);
    CHECK_NEAR(m.l1_hit, 0.9, 1e-12);
    CHECK_NEAR(m.l2_hit, 1.0, 1e-12);
    CHECK_NEAR(m.dram_per_byte, 0.0, 1e-12);
    CHECK_EQ_I64(cml_hier_level_measured(&m, CML_HIER_READ), CML_HIER_L1);
    /* 100 hits, 900 sectors from L2 of which 90 (2880 B) came from DRAM:
     * L2 hit 1 - 2880 / 28800 = 90%, 2880 / 32000 = 0.09 B per B: L2. */
    cml_hier_counts b = {1000, 100, 900, 2880, 0, 0};
    cml_hier_measure_counts(&b, &m);
    CHECK_NEAR(m.l1_hit, 0.1, 1e-12);
    CHECK_NEAR(m.l2_hit, 0.9, 1e-12);
    CHECK_NEAR(m.dram_per_byte, 0.09, 1e-12);
    CHECK_EQ_I64(cml_hier_level_measured(&m, CML_HIER_READ), CML_HIER_L2);
    /* Half the hits: the L1 edge. */
    cml_hier_counts e = {1000, 500, 500, 0, 0, 0};
    cml_hier_measure_counts(&e, &m);
    CHECK_EQ_I64(cml_hier_level_measured(&m, CML_HIER_CHASE), CML_HIER_L1_L2);
    /* A copy of 1000 + 1000 sectors moving 40960 B of DRAM: 0.64 B per B,
     * DRAM; its L1 hits (reads) do not make it an L1 copy. */
    cml_hier_counts c = {1000, 1000, 0, 20480, 1000, 20480};
    cml_hier_measure_counts(&c, &m);
    CHECK_NEAR(m.dram_per_byte, 0.64, 1e-12);
    CHECK_EQ_I64(cml_hier_level_measured(&m, CML_HIER_COPY), CML_HIER_DRAM);
    /* A write of 1000 sectors with 16000 B to DRAM: 0.5, the L2 edge. */
    cml_hier_counts w = {0, 0, 0, 0, 1000, 16000};
    cml_hier_measure_counts(&w, &m);
    CHECK(isnan(m.l1_hit));
    CHECK_EQ_I64(cml_hier_level_measured(&m, CML_HIER_WRITE), CML_HIER_L2_DRAM);
    cml_hier_counts none = {0, 0, 0, 0, 0, 0};
    cml_hier_measure_counts(&none, &m);
    CHECK_EQ_I64(cml_hier_level_measured(&m, CML_HIER_WRITE), CML_HIER_LEVEL_COUNT);

    CHECK(cml_hier_levels_agree(CML_HIER_L1, CML_HIER_L1));
    CHECK(!cml_hier_levels_agree(CML_HIER_L1, CML_HIER_L1_L2));
    CHECK(cml_hier_levels_agree(CML_HIER_L1_L2, CML_HIER_L2));
    CHECK(cml_hier_levels_agree(CML_HIER_L2_DRAM, CML_HIER_DRAM));
    CHECK(!cml_hier_levels_agree(CML_HIER_L2_DRAM, CML_HIER_L1));
    CHECK(cml_hier_levels_agree(CML_HIER_DRAM_TLB, CML_HIER_DRAM));
    CHECK(!cml_hier_levels_agree(CML_HIER_L2, CML_HIER_LEVEL_COUNT));
}

/* Every row of the array is walked by some block, for the per_block the
 * plan chooses (brute force over the blocks). */
static int all_rows_walked(uint64_t rows, uint32_t grid, uint64_t per_block)
{
    unsigned char *seen = calloc(rows, 1);
    if (!seen)
        return 0;
    for (uint64_t b = 0; b < grid; b++)
        for (uint64_t j = 0; j < per_block && j < rows; j++)
            seen[cml_hier_row(b, grid, rows, j)] = 1;
    int all = 1;
    for (uint64_t r = 0; r < rows; r++)
        all &= seen[r];
    free(seen);
    return all;
}

static void test_plan(void)
{
    cml_hier_plan p;
    /* 64 KiB read on 132 SMs of 2048 threads: 1056 blocks; 16 GiB per
     * launch = 16 Mi rows / 1056 = 15887.5 -> 15888 rows a block (a whole
     * number of 16-row steps: 993). */
    cml_hier_plan_bw(64 * KIB, CML_HIER_READ, 132, 2048, 16 * GIB, 0, &p);
    CHECK_EQ_U64(p.grid, 1056);
    CHECK_EQ_U64(p.rows, 64);
    CHECK_EQ_U64(p.per_block, 15888);
    CHECK_EQ_U64(p.launch_bytes, 1056ull * 15888 * 1024);
    /* 1 GiB read, 1 GiB per launch: 1 Mi rows; every row needs 993 + 16 =
     * 1009 rows a block, 1024 in whole steps. */
    cml_hier_plan_bw(GIB, CML_HIER_READ, 132, 2048, GIB, 0, &p);
    CHECK_EQ_U64(p.rows, 1048576);
    CHECK_EQ_U64(p.per_block, 1024);
    CHECK(all_rows_walked(p.rows, p.grid, p.per_block));
    /* Copy: two arrays of ws / 2, each walked per launch. */
    cml_hier_plan_bw(64 * KIB, CML_HIER_COPY, 2, 1024, 64 * KIB, 0, &p);
    CHECK_EQ_U64(p.grid, 8);
    CHECK_EQ_U64(p.rows, 32);
    CHECK_EQ_U64(p.per_block, 32); /* 32 KiB / (8 KiB a row of blocks) = 4, +16 -> 20 -> 32 */
    CHECK_EQ_U64(p.launch_bytes, 2ull * 8 * 32 * 1024);
    /* Sizes the arrays cannot hold in whole rows. */
    cml_hier_plan_bw(3 * KIB, CML_HIER_COPY, 132, 2048, GIB, 0, &p);
    CHECK_EQ_U64(p.rows, 0);
    cml_hier_plan_bw(1000, CML_HIER_READ, 132, 2048, GIB, 0, &p);
    CHECK_EQ_U64(p.rows, 0);
    /* Coverage where rows and blocks do not divide. */
    static const uint64_t rows[] = {17, 100, 1000, 4099, 65536};
    static const uint32_t grids[] = {8, 132, 1056};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
            cml_hier_plan_bw(rows[i] * KIB, CML_HIER_WRITE, grids[g], CML_HIER_BLOCK, 1, 0, &p);
            CHECK_EQ_U64(p.grid, grids[g]);
            CHECK(p.per_block % CML_HIER_STEP == 0);
            CHECK(all_rows_walked(p.rows, p.grid, p.per_block));
        }
    /* Fewer than 16 rows: a step would load one row twice; refused. */
    cml_hier_plan_bw(8 * KIB, CML_HIER_READ, 132, 2048, GIB, 0, &p);
    CHECK_EQ_U64(p.rows, 0);
    /* Partitioned (DRAM) 1 GiB read: 1 Mi rows / 1056 blocks = 993 rows
     * of words per thread, 1008 in whole steps; no extra step needed. */
    cml_hier_plan_bw(GIB, CML_HIER_READ, 132, 2048, GIB, 1, &p);
    CHECK_EQ_U64(p.stream, 1);
    CHECK_EQ_U64(p.rows, 1048576);
    CHECK_EQ_U64(p.per_block, 1008);
    /* Partitioning needs a word per thread: 512 KiB < 1056 KiB stays whole. */
    cml_hier_plan_bw(512 * KIB, CML_HIER_READ, 132, 2048, GIB, 1, &p);
    CHECK_EQ_U64(p.stream, 0);
    /* The sliced read, gpu-l2-cache's chunks (CML_HIER_SLICE = 2). Its
     * 1536 KiB: 96 pieces of 16 KiB, 3 chunks of 32 pieces, a block reads
     * its chunk once (512 rows); 4 GiB a launch = ceil(4096 / 1.5) = 2731
     * rounds of 3 blocks of 1024 threads. */
    cml_hier_plan_bw(1536 * KIB, CML_HIER_READ, 132, 2048, 4 * GIB, 2, &p);
    CHECK_EQ_U64(p.parts, 3);
    CHECK_EQ_U64(p.chunk, 32);
    CHECK_EQ_U64(p.per_block, 512);
    CHECK_EQ_U64(p.grid, 8193);
    CHECK_EQ_U64(p.launch_bytes, 8193ull * 512 * 1024);
    CHECK_EQ_U64(cml_hier_bw_block(CML_HIER_READ, p.chunk), 1024);
    /* Its word: block 4 reads chunk 4 mod 3 = 1; load 6 of thread 1000 is
     * in its second piece (6 / 4 = 1): piece 1 + 3 x 1 = 4, gpu-l2-cache's
     * piece C i + b mod C; row 4 x 16 + 1000 / 256 + 4 x (6 mod 4) = 75,
     * word 75 x 256 + 1000 mod 256 = 19432. */
    CHECK_EQ_U64(cml_hier_chunk_word(4, 1000, 3, 32, 6), 19432);
    /* 528 KiB: 33 pieces, chunks of 11 (the largest divisor up to 32), 3
     * of them; 32 / 11 -> 3 passes, 33 pieces not a whole number of
     * 4-piece steps -> 4 passes, 44 pieces = 704 rows; 3 MiB a launch: 2
     * rounds, 6 blocks. 16 KiB: one piece, read 32 times by each block. */
    cml_hier_plan_bw(528 * KIB, CML_HIER_READ, 132, 2048, 3 * MIB, 2, &p);
    CHECK_EQ_U64(p.parts, 3);
    CHECK_EQ_U64(p.chunk, 11);
    CHECK_EQ_U64(p.per_block, 704);
    CHECK_EQ_U64(p.grid, 6);
    cml_hier_plan_bw(16 * KIB, CML_HIER_READ, 132, 2048, 16 * KIB, 2, &p);
    CHECK(p.parts == 1 && p.chunk == 1 && p.per_block == 512 && p.grid == 1);
    /* A set of whole KiB but not whole pieces has no chunks: refused. */
    cml_hier_plan_bw(20 * KIB, CML_HIER_READ, 132, 2048, GIB, 2, &p);
    CHECK_EQ_U64(p.rows, 0);
    /* Writes keep their parts. */
    cml_hier_plan_bw(1536 * KIB, CML_HIER_WRITE, 132, 2048, 4 * GIB, 2, &p);
    CHECK(p.parts > 0 && p.chunk == 0 && p.grid == p.parts);
    /* The blocks' first rows: spread evenly, on whole steps. */
    CHECK_EQ_U64(cml_hier_block_start(0, 8, 1024), 0);
    CHECK_EQ_U64(cml_hier_block_start(3, 8, 1024), 384);
    CHECK_EQ_U64(cml_hier_block_start(3, 8, 100), 32); /* 37.5 -> 37 -> 32 */
    CHECK_EQ_U64(cml_hier_block_start(5, 8, 8), 0);
    CHECK_EQ_U64(cml_hier_row(5, 8, 8, 13), 5);
    CHECK_EQ_U64(cml_hier_row(7, 8, 100, 20), (80 + 20) % 100); /* 87.5 -> 80 */
}

/* The partitioned launch reads each word exactly once per pass: over the
 * grid's loads in order n = j T + g, loads [pass W, (pass+1) W) hit every
 * word once (brute force on a small grid). */
static void test_stream_once_per_pass(void)
{
    static const uint64_t rowss[] = {8, 40, 1000};
    for (size_t r = 0; r < sizeof rowss / sizeof rowss[0]; r++) {
        cml_hier_plan p;
        cml_hier_plan_bw(rowss[r] * KIB, CML_HIER_READ, 2, 1024, 3 * rowss[r] * KIB, 1, &p);
        CHECK_EQ_U64(p.grid, 8);
        CHECK_EQ_U64(p.stream, 1);
        const uint64_t T = (uint64_t)p.grid * CML_HIER_BLOCK, W = p.rows * CML_HIER_BLOCK;
        const uint64_t loads = T * p.per_block, passes = loads / W;
        CHECK(passes >= 3);
        uint32_t *seen = calloc(W * passes, sizeof *seen);
        CHECK(seen != NULL);
        if (!seen)
            return;
        for (uint64_t b = 0; b < p.grid; b++)
            for (uint64_t t = 0; t < CML_HIER_BLOCK; t++)
                for (uint64_t j = 0; j < p.per_block; j++) {
                    const uint64_t n = j * T + b * CML_HIER_BLOCK + t;
                    const uint64_t w = cml_hier_word(1, 0, b, t, p.grid, p.rows, j);
                    CHECK(w < W);
                    if (n < W * passes && w < W)
                        seen[(n / W) * W + w]++;
                    /* A warp's 32 lanes: 32 consecutive words. */
                    if (t % 32 == 0 && w < W)
                        CHECK_EQ_U64(cml_hier_word(1, 0, b, t + 31, p.grid, p.rows, j), w + 31);
                }
        int once = 1;
        for (uint64_t i = 0; i < W * passes; i++)
            once &= seen[i] == 1;
        CHECK(once);
        free(seen);
    }
    /* Hand-derived: 8 rows, 8 blocks: T = 2048 = W, so thread (3, 5) reads
     * word 3 * 256 + 5 = 773 at every load. 40 rows: W = 10240, its 6th
     * load (j = 5) is 773 + 5 * 2048 = 11013 - 10240 = 773 too (T*5 = W). */
    CHECK_EQ_U64(cml_hier_stream_word(3, 5, 8, 8, 7), 773);
    CHECK_EQ_U64(cml_hier_stream_word(3, 5, 8, 40, 5), 773);
    CHECK_EQ_U64(cml_hier_stream_word(3, 5, 8, 40, 2), 773 + 4096);
}

static void test_perm(void)
{
    static const uint64_t ms[] = {2, 3, 7, 64, 100, 1000, 4097};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        const uint64_t m = ms[i];
        for (int random = 0; random < 2; random++) {
            cml_hier_perm q;
            cml_hier_perm_make(&q, m, random, 0x1234 + m);
            unsigned char *seen = calloc(m, 1);
            CHECK(seen != NULL);
            if (!seen)
                return;
            uint64_t fixed = 0, bad_inverse = 0, outside = 0;
            for (uint64_t p = 0; p < m; p++) {
                uint64_t s = cml_hier_perm_apply(&q, p);
                if (s >= m) {
                    outside++;
                    continue;
                }
                seen[s]++;
                fixed += s == p;
                bad_inverse += cml_hier_perm_invert(&q, s) != p;
            }
            uint64_t once = 0;
            for (uint64_t s = 0; s < m; s++)
                once += seen[s] == 1;
            free(seen);
            CHECK_EQ_U64(outside, 0);
            CHECK_EQ_U64(once, m); /* a bijection: the chase is one cycle of m slots */
            CHECK_EQ_U64(bad_inverse, 0);
            if (!random)
                CHECK_EQ_U64(fixed, m);
            else if (m >= 100)
                CHECK(fixed < m / 10); /* not the address order */
        }
    }
    /* Where the host says a chase ends: K hops from position p. */
    cml_hier_perm q;
    cml_hier_perm_make(&q, 1000, 1, 99);
    uint64_t s = cml_hier_perm_apply(&q, 0);
    for (int k = 0; k < 2500; k++)
        s = cml_hier_perm_apply(&q, (cml_hier_perm_invert(&q, s) + 1) % 1000);
    CHECK_EQ_U64(s, cml_hier_perm_apply(&q, 500));
    /* The inverse of an odd multiplier, modulo 2^64. */
    CHECK_EQ_U64(q.mul1 * q.inv1, 1);
    CHECK_EQ_U64(q.mul2 * q.inv2, 1);
}

/*
 * The chase's table built as the GPU builds it (cml_hier_chase_link, the
 * build kernel's body, at the experiment's seed) on host memory: every slot
 * linked once, every pointer inside the ws bytes on a slot's first byte,
 * one cycle through all m slots; then the kernel's walk from each warp's
 * start (cml_hier_chase_start) for two launches, staying inside. At
 * validate's 32 KiB, hop 64, random: m = 512, an L1 launch walks 2 x 16384
 * = 64 x 512 hops, so every warp ends each launch where it began.
 */
static void chase_table(uint64_t ws, uint64_t hop, int random, uint32_t warps, uint64_t walk)
{
    cml_hier_perm q;
    cml_hier_chase_perm(&q, ws, hop, random);
    CHECK_EQ_U64(q.m, ws / hop);
    uint64_t *table = calloc(ws / 8, 8);
    unsigned char *linked = calloc(q.m, 1), *seen = calloc(q.m, 1);
    CHECK(table && linked && seen);
    if (!table || !linked || !seen) {
        free(table);
        free(linked);
        free(seen);
        return;
    }
    const uint64_t base = (uint64_t)(uintptr_t)table, words = hop / 8;
    uint64_t bad = 0;
    for (uint64_t p = 0; p < q.m; p++) {
        uint64_t slot;
        const uint64_t next = cml_hier_chase_link(&q, p, &slot);
        if (slot >= q.m || next >= q.m) {
            bad++;
            continue;
        }
        linked[slot]++;
        table[slot * words] = base + hop * next;
    }
    uint64_t once = 0;
    for (uint64_t s = 0; s < q.m; s++)
        once += linked[s] == 1;
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(once, q.m);
    /* One cycle: from any slot, m hops through m distinct slots, back. */
    const uint64_t first = base + hop * cml_hier_perm_apply(&q, 0);
    uint64_t ptr = first, hops = 0, outside = 0;
    do {
        const uint64_t off = ptr - base;
        if (ptr < base || off >= ws || off % hop != 0) {
            outside++;
            break;
        }
        seen[off / hop]++;
        ptr = table[off / 8];
        hops++;
    } while (ptr != first && hops <= q.m);
    CHECK_EQ_U64(outside, 0);
    CHECK_EQ_U64(hops, q.m);
    once = 0;
    for (uint64_t s = 0; s < q.m; s++)
        once += seen[s] == 1;
    CHECK_EQ_U64(once, q.m);
    /* Each warp's two launches of `walk` hops (warm and timed walks) from
     * its start, inside the table, ending where the host's check wants. */
    uint64_t wrong = 0;
    for (uint32_t b = 0; b < warps; b++) {
        const uint64_t p0 = (uint64_t)b * q.m / warps;
        ptr = base + hop * cml_hier_chase_start(&q, b, warps);
        for (uint64_t k = 0; k < 2 * walk && ptr >= base && ptr - base < ws; k++)
            ptr = table[(ptr - base) / 8];
        wrong += ptr != base + hop * cml_hier_perm_apply(&q, (p0 + 2 * walk) % q.m);
        if (walk % q.m == 0)
            wrong += ptr != base + hop * cml_hier_chase_start(&q, b, warps);
    }
    CHECK_EQ_U64(wrong, 0);
    free(table);
    free(linked);
    free(seen);
}

static void test_chase_table(void)
{
    /* validate's chase (ws=32K, hop 64, random; 16384 hops at L1 sizes),
     * at L2 sizes (4 MiB, 4096 hops) and in address order. */
    chase_table(32 * KIB, 64, 1, 132, CML_HIER_CHASE_WALKS * 16384);
    chase_table(4 * MIB, 64, 1, 132, CML_HIER_CHASE_WALKS * 4096);
    chase_table(16 * KIB, 128, 0, 132, CML_HIER_CHASE_WALKS * 16384);
    cml_hier_perm q;
    cml_hier_chase_perm(&q, 32 * KIB, 64, 1);
    CHECK_EQ_U64(q.m, 512);
    CHECK_EQ_U64(q.bits, 9);
}

static const cml_traffic *cls(const cml_record *rec, cml_class c)
{
    return &rec->model[CML_RULES_MODERN].cls[c];
}

/*
 * On the model alone (an H100's sizes: 132 SMs of 2048 threads, 1056
 * blocks of 256; 228 KiB of L1, 50 MiB of L2):
 *  - read 64 KiB through ca: L1, 16 GiB a launch: 15888 rows a block, a
 *    load per warp and row: 1056 x 8 x 15888 = 134221824 requests of 4
 *    sectors; the sums: 8448 store requests of 4 sectors;
 *  - write 256 MiB: DRAM, 1 GiB a launch: 262144 rows need 249 + 16 = 265
 *    rows a block, 1 GiB wants 993, 1008 in whole steps: 8448 x 1008 =
 *    8515584 store requests;
 *  - chase 64 KiB: L1, so 16384 hops (at least 4 walks of its 1024
 *    pointers), walked twice (a warm walk, then the timed one), by a warp
 *    on each of the model's 132 SMs: 132 x (2 x 16384 + 1) (the cursor)
 *    = 4325508 load requests of one sector (every lane on one address: 8
 *    of 32 bytes used, 25%), and 132 x 4 = 528 stores (three of 16 B, the
 *    8-byte cursor); bytes: 132 x 8 x 32769 read, 132 x 56 written.
 */
static void test_model_run(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_hierarchy, "ws=64K,256M op=read,write,copy,chase path=ca", &r),
                 CML_OK);
    CHECK_EQ_U64(r.count, 10); /* 2 sizes: 2 read modes, write, copy, chase */
    for (size_t i = 0; i < r.count; i++) {
        CHECK(r.items[i].state == CML_REC_OK);
        CHECK(r.items[i].has_model);
        CHECK(strlen(r.items[i].finding) > 40);
        CHECK(strlen(r.items[i].finding) < sizeof r.items[i].finding - 1);
    }
    const cml_record *rd = find(&r, "ws=65536 path=ca l2-mode=shared op=read");
    if (FOUND(rd)) {
        CHECK_EQ_U64(cls(rd, CML_CLASS_GLOBAL_LD)->requests, 134221824ull);
        CHECK_EQ_U64(cls(rd, CML_CLASS_GLOBAL_LD)->sectors, 4 * 134221824ull);
        CHECK_EQ_U64(cls(rd, CML_CLASS_GLOBAL_ST)->requests, 8448);
        CHECK_EQ_U64(cls(rd, CML_CLASS_GLOBAL_ST)->sectors, 33792);
        CHECK_EQ_U64(rd->bytes_read, 1056ull * 15888 * 1024);
        CHECK_EQ_U64(rd->bytes_written, 0); /* the sums are not counted: a read */
        CHECK_EQ_U64(rd->grid, 1056);
        CHECK_NEAR(extra(rd, "level_pred"), 1.0, 0);
        CHECK_NEAR(extra(rd, "l1_bytes"), 228.0 * 1024, 0);
        CHECK_STR_CONTAINS(rd->finding, "the model says L1");
    }
    const cml_record *wr = find(&r, "ws=268435456 op=write");
    if (FOUND(wr)) {
        /* 256 Ki rows: 1024 parts of 256 rows (the largest divisor of
         * 262144 up to 1056 blocks), a block each; 1 GiB a launch = 1024
         * rows a block, 4 passes of its part; 8 warp stores a row. */
        CHECK_EQ_U64(wr->grid, 1024);
        CHECK_EQ_U64(cls(wr, CML_CLASS_GLOBAL_ST)->requests, 1024ull * 1024 * 8);
        CHECK_EQ_U64(cls(wr, CML_CLASS_GLOBAL_LD)->requests, 0);
        CHECK_EQ_U64(wr->bytes_written, GIB);
        CHECK_NEAR(extra(wr, "level_pred"), 3.0, 0);
        CHECK_STR_CONTAINS(wr->finding, "the model says DRAM");
    }
    const cml_record *cp = find(&r, "ws=65536 op=copy");
    if (FOUND(cp)) {
        CHECK_EQ_U64(cls(cp, CML_CLASS_GLOBAL_LD)->requests,
                     cls(cp, CML_CLASS_GLOBAL_ST)->requests);
        CHECK_NEAR(extra(cp, "level_pred"), 2.0, 0);
        CHECK_STR_CONTAINS(cp->finding, "stores go through to L2");
    }
    const cml_record *ch = find(&r, "ws=65536 hop=64 pattern=random path=ca op=chase");
    if (FOUND(ch)) {
        CHECK_EQ_U64(cls(ch, CML_CLASS_GLOBAL_LD)->requests, 4325508ull);
        CHECK_EQ_U64(cls(ch, CML_CLASS_GLOBAL_LD)->sectors, 4325508ull);
        CHECK_EQ_U64(ch->bytes_read, 34604064ull);
        CHECK_EQ_U64(ch->bytes_written, 7392);
        const cml_record_param *hops = cml_record_find_param(ch, "hops");
        CHECK(hops && hops->value == 16384);
        CHECK_NEAR(cml_traffic_efficiency(cls(ch, CML_CLASS_GLOBAL_LD)), 0.25, 1e-12);
        CHECK_EQ_U64(cls(ch, CML_CLASS_GLOBAL_ST)->requests, 528);
        CHECK_EQ_U64(cls(ch, CML_CLASS_GLOBAL_ST)->sectors, 528);
        CHECK_EQ_U64(ch->grid, 132);
        CHECK_STR_CONTAINS(ch->finding, "A warp on each of 132 SMs follows 16384 pointers");
        CHECK_EQ_U64(ch->block, 32);
        CHECK_NEAR(extra(ch, "level_pred"), 1.0, 0);
    }
    cml_results_free(&r);

    /* The tour, and the default sweep, on the model. */
    cml_param_values pv;
    char err[256];
    CHECK_EQ_I64(cml_lab_options(&cml_exp_hierarchy, cml_exp_hierarchy.tour, "tour", &pv, err,
                                 sizeof err),
                 CML_OK);
    CHECK_EQ_I64(run_model(&cml_exp_hierarchy, cml_exp_hierarchy.tour, &r), CML_OK);
    CHECK_EQ_U64(r.count, 9); /* 3 sizes: 2 read modes, chase */
    cml_results_free(&r);
    CHECK_EQ_I64(run_model(&cml_exp_hierarchy, NULL, &r), CML_OK);
    CHECK_EQ_U64(r.count, 12 * 11); /* 12 sizes: 3 read paths x 2 modes, write, copy, 3 chase paths */
    cml_results_free(&r);

    /* A size the arrays cannot hold: the record fails and says why. */
    CHECK(run_model(&cml_exp_hierarchy, "ws=3000 op=read path=ca l2-mode=slice", &r) != CML_OK);
    CHECK_EQ_U64(r.count, 1);
    CHECK(r.items[0].state == CML_REC_FAILED);
    CHECK_STR_CONTAINS(r.items[0].note, "multiple of 1024");
    cml_results_free(&r);
}

/* The sliced read's body, traced as the model traces it: every load of
 * every lane at the word cml_hier_chunk_word gives, the word the checker
 * and the GPU test's host reference add. The kernel steps its chunk and
 * piece by increments; the formula divides. */
typedef struct chunk_case {
    uint64_t parts, chunk, loads;
    uint32_t blocks;
    uint64_t *next;   /* [blocks][32 warps]: the warp's next load */
    uint64_t wrong, seen;
} chunk_case;

/* A thread of the kernel (its body, its `rotate` as the launcher picks it:
 * per_block rows of 256 threads are `loads` a thread of 1024). */
static void chunk_thread(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const chunk_case *a = vargs;
    const uint64_t per_block = a->loads * CML_HIER_CHUNK_BLOCK / CML_HIER_BLOCK;
    cml_hier_bw_body(CML_MIRROR_CTX(t, e), CML_HIER_READ, CML_HIER_CG, 0, 0, a->parts, a->chunk,
                     cml_hier_chunk_rotates(a->chunk, per_block), 0,
                     CML_ARRAY(const uint32_t, 0), NULL, NULL, a->parts * a->chunk * 16,
                     per_block, a->blocks, 0);
}

static cml_status chunk_listen(void *user, uint64_t block, unsigned warp, unsigned site,
                               const cml_access *acc)
{
    (void)site;
    chunk_case *a = user;
    const uint64_t k = a->next[block * 32 + warp]++;
    for (unsigned l = 0; l < 32; l++) {
        const uint64_t want = cml_array_base(0) +
                              4 * cml_hier_chunk_word(block, warp * 32 + l, a->parts, a->chunk, k);
        a->wrong += !((acc->active >> l) & 1u) || acc->addr[l] != want;
        a->seen++;
    }
    return CML_OK;
}

static void check_chunks(uint64_t parts, uint64_t chunk, uint64_t loads, uint32_t blocks)
{
    chunk_case a = {parts, chunk, loads, blocks, calloc((size_t)blocks * 32, 8), 0, 0};
    CHECK(a.next != NULL);
    if (!a.next)
        return;
    const cml_dim3 grid = {blocks, 1, 1}, block = {CML_HIER_CHUNK_BLOCK, 1, 1};
    const cml_trace_hook hook = {&a, chunk_listen};
    CHECK_EQ_I64(cml_trace_blocks_hooked(grid, block, 0, 1, blocks, chunk_thread, &a, &hook),
                 CML_OK);
    CHECK_EQ_U64(a.seen, (uint64_t)blocks * CML_HIER_CHUNK_BLOCK * loads);
    CHECK_EQ_U64(a.wrong, 0);
    free(a.next);
}

static void test_chunk_walk(void)
{
    /* gpu-l2-cache's 1.5 MiB: 3 chunks of 32 pieces, a block on its own. */
    check_chunks(3, 32, 128, 4);
    /* 528 KiB: chunks of 11, 44 pieces a block: its chunk, then the next
     * three (mod 3). */
    check_chunks(3, 11, 176, 4);
    /* 592 KiB, 37 pieces (a prime): chunks of one piece, a block on from
     * piece b through 32 pieces, none twice. */
    check_chunks(37, 1, 128, 3);
    for (uint64_t q = 1; q < 32; q++)
        CHECK(cml_hier_chunk_word(5, 0, 37, 1, 4 * q) != cml_hier_chunk_word(5, 0, 37, 1, 0));
    /* The formula by hand: block 2 of 3 chunks of 11, its 13th piece (load
     * 4 x 12 + 1) is the second of chunk (2 + 12 / 11) mod 3 = 0: piece 0
     * + 3 x 1 = 3; row 3 x 16 + 0 + 4 x 1 = 52, word 52 x 256 + 7. */
    CHECK_EQ_U64(cml_hier_chunk_word(2, 7, 3, 11, 49), 52 * 256 + 7);
    /* The kernel that moves on: a block's pieces, per_block / 16, past its
     * chunk's (512 rows: 32 pieces). */
    CHECK(!cml_hier_chunk_rotates(32, 512) && cml_hier_chunk_rotates(11, 704) &&
          cml_hier_chunk_rotates(1, 512) && !cml_hier_chunk_rotates(11, 176));
}

/* The groups of a per-hop latency histogram, by hand: a near group of 10
 * bins of 100 hops (bins 30-39: 240-319 cycles of 8), a far one of 16
 * bins of 50 (55-70), one stray hop at bin 200 (under 0.1% of 1801). */
static void test_latency_groups(void)
{
    uint64_t bins[CML_HIER_HIST_BINS] = {0};
    for (unsigned i = 30; i < 40; i++)
        bins[i] = 100;
    for (unsigned i = 55; i < 71; i++)
        bins[i] = 50;
    bins[200] = 1;
    cml_hier_group g[4];
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.001, 4, g, 4), 2);
    /* The near: 1000 hops, half reached at bin 34 (5 x 100); the far: 800,
     * half at its 8th bin, 62. */
    CHECK(g[0].first == 30 && g[0].last == 39 && g[0].hops == 1000 && g[0].median == 34);
    CHECK(g[1].first == 55 && g[1].last == 70 && g[1].hops == 800 && g[1].median == 62);
    /* With no floor the stray hop is a group of its own. */
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.0, 4, g, 4), 3);
    CHECK(g[2].first == 200 && g[2].last == 200 && g[2].hops == 1);
    /* Three empty bins inside a group do not end it (4 do): bins 34-36
     * emptied, the near group 700 hops, half reached at bin 33 (400). */
    bins[34] = bins[35] = bins[36] = 0;
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.001, 4, g, 4), 2);
    CHECK(g[0].first == 30 && g[0].last == 39 && g[0].hops == 700 && g[0].median == 33);
    bins[37] = 0;
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.001, 4, g, 4), 3);
    CHECK(g[0].last == 33 && g[1].first == 38 && g[1].last == 39);
    /* At most `max`; nothing from an empty histogram or bad arguments. */
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.001, 4, g, 1), 1);
    memset(bins, 0, sizeof bins);
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.001, 4, g, 4), 0);
    bins[0] = 5;
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 1.0, 4, g, 4), 0);
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.001, 0, g, 4), 0);
    CHECK_EQ_U64(cml_hier_latency_groups(NULL, CML_HIER_HIST_BINS, 0.001, 4, g, 4), 0);
    CHECK_EQ_U64(cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, 0.001, 4, g, 4), 1);
    CHECK(g[0].first == 0 && g[0].last == 0 && g[0].median == 0 && g[0].hops == 5);
}

static void test_options(void)
{
    check_refused(&cml_exp_hierarchy, "ws", "512", "--ws");
    check_refused(&cml_exp_hierarchy, "ws", "128G", "--ws");
    check_refused(&cml_exp_hierarchy, "hop", "48", "--hop");
    check_refused(&cml_exp_hierarchy, "hop", "256", "--hop");
    check_refused(&cml_exp_hierarchy, "hops", "100", "--hops");
    /* The chase walks 16 hops per unrolled step: 1, 2, 4 and 8 are refused
     * by the declared range, which says so; 0 (by the level) stays. */
    check_refused(&cml_exp_hierarchy, "hops", "8", "allowed: 0 or powers of two in 16..16777216");
    check_refused(&cml_exp_hierarchy, "hops", "0:32", "'1'");
    check_refused(&cml_exp_hierarchy, "op", "scan", "--op");
    check_refused(&cml_exp_hierarchy, "path", "cs", "--path");
    check_refused(&cml_exp_hierarchy, "pattern", "zigzag", "--pattern");
    cml_param_values pv;
    char err[256];
    CHECK_EQ_I64(cml_param_defaults(cml_exp_hierarchy.options, cml_exp_hierarchy.noptions, &pv,
                                    err, sizeof err),
                 CML_OK);
    CHECK_EQ_I64(cml_param_set(&pv, "hops", "0,16,2^24", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_OK);
    /* Sizes in range that an op cannot walk: refused together, before a
     * run, naming the size, the op and what it needs. */
    CHECK_EQ_I64(cml_param_set(&pv, "ws", "1K", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_EINVAL);
    CHECK_STR_CONTAINS(err, "--ws: 1024 does not suit --op read: read needs a multiple of 1024 "
                            "bytes, 16384 at least");
    CHECK_EQ_I64(cml_param_set(&pv, "op", "chase", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_param_set(&pv, "ws", "1500", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_EINVAL);
    CHECK_STR_CONTAINS(err, "a multiple of --hop 64");
    CHECK_EQ_I64(cml_param_set(&pv, "ws", "16K", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_param_set(&pv, "op", "read,write,copy", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_EINVAL);
    CHECK_STR_CONTAINS(err, "--ws: 16384 does not suit --op copy: copy needs a multiple of 2048 "
                            "bytes, 32768 at least");
    /* A slice read needs whole 16 KiB pieces (gpu-l2-cache's); the
     * shared read takes any 1 KiB. */
    CHECK_EQ_I64(cml_param_set(&pv, "ws", "20K", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_param_set(&pv, "op", "read", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_EINVAL);
    CHECK_STR_CONTAINS(err, "--ws: 20480 does not suit --op read: a slice read (--l2-mode "
                            "slice) needs a multiple of 16384 bytes");
    CHECK_EQ_I64(cml_param_set(&pv, "l2-mode", "shared", err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_param_set(&pv, "op", "read,write,copy,chase", err, sizeof err), CML_OK);
    /* Every default size suits every op. */
    CHECK_EQ_I64(cml_param_defaults(cml_exp_hierarchy.options, cml_exp_hierarchy.noptions, &pv,
                                    err, sizeof err),
                 CML_OK);
    CHECK_EQ_I64(cml_lab_check_options(&cml_exp_hierarchy, &pv, err, sizeof err), CML_OK);
    CHECK_EQ_I64(cml_param_set(&pv, "ws", "4K,64K:128K:32K,1G,32G", err, sizeof err), CML_OK);
    int k = cml_param_index(&pv, "ws");
    CHECK(k >= 0);
    if (k >= 0) {
        CHECK_EQ_U64(pv.list[k].count, 6);
        CHECK_EQ_U64(pv.list[k].v[2], 96 * KIB);
        CHECK_EQ_U64(pv.list[k].v[5], 32 * GIB);
    }
}

/* The bandwidth chart: measured lines, and the capacities the records
 * carry drawn as labelled vertical lines. */
/* The level chart of a run on the model alone: titled by the model alone
 * (no counters were read), its level axis ticked at whole levels only. */
static void test_level_chart(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_hierarchy, "ws=16K,256K,48M,1G op=read path=ca", &r), CML_OK);
    const cml_record **recs = calloc(r.count ? r.count : 1, sizeof *recs);
    cml_chart_plan *p = calloc(1, sizeof *p);
    CHECK(recs && p);
    if (recs && p) {
        for (size_t i = 0; i < r.count; i++)
            recs[i] = &r.items[i];
        cml_chart_plan_experiment(p, "hierarchy", recs, r.count);
        const cml_chart *c = NULL;
        for (size_t i = 0; i < p->ncharts; i++)
            if (strstr(p->charts[i].title, "Level serving"))
                c = &p->charts[i];
        CHECK(c != NULL);
        if (c) {
            CHECK(strcmp(c->title, "Level serving the bandwidth series: model") == 0);
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            CHECK(f && cml_chart_svg(f, c) == CML_OK);
            if (f)
                fclose(f);
            /* the y axis's labels: 1, 2, 3 (the edges 1.5 and 2.5 lie between) */
            const char *y = buf ? strstr(buf, "class=\"axis y\"") : NULL;
            const char *end = y ? strstr(y, "</g>") : NULL;
            CHECK(y && end);
            if (y && end) {
                char axis[4096];
                snprintf(axis, sizeof axis, "%.*s", (int)(end - y), y);
                CHECK_STR_CONTAINS(axis, ">1</text>");
                CHECK_STR_CONTAINS(axis, ">3</text>");
                CHECK(strstr(axis, ".5</text>") == NULL);
            }
            free(buf);
        }
        cml_chart_plan_free(p);
    }
    free(p);
    free(recs);
    cml_results_free(&r);
}

static void test_chart_marks(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_hierarchy, "ws=16K,1M,1G op=read path=ca,cg l2-mode=shared", &r), CML_OK);
    const cml_record **recs = calloc(r.count, sizeof *recs);
    CHECK(recs != NULL);
    if (!recs)
        return;
    for (size_t i = 0; i < r.count; i++) {
        r.items[i].measured = 1;
        r.items[i].bandwidth_gbs = 1000.0 * (double)(i + 1);
        recs[i] = &r.items[i];
    }
    cml_chart_plan *p = calloc(1, sizeof *p);
    CHECK(p != NULL);
    if (p) {
        cml_chart_plan_experiment(p, "hierarchy", recs, r.count);
        CHECK(p->ncharts >= 1);
        const cml_chart *c = &p->charts[0];
        CHECK_STR_CONTAINS(c->title, "Bandwidth");
        CHECK_EQ_U64(c->nseries, 2);
        CHECK_EQ_U64(c->nxmarks, 2);
        CHECK_NEAR(c->xmarks[0].x, 228.0 * 1024, 0);
        CHECK(strcmp(c->xmarks[0].label, "L1 per SM") == 0);
        CHECK_NEAR(c->xmarks[1].x, 50.0 * 1024 * 1024, 0);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK(f != NULL);
        if (f) {
            CHECK_EQ_I64(cml_chart_svg(f, c), CML_OK);
            fclose(f);
            /* Both inside the axis (4 KiB .. 1 GiB): two lines, two labels. */
            size_t lines = 0;
            for (const char *s = buf; (s = strstr(s, "class=\"xmark\"")); s++)
                lines++;
            CHECK_EQ_U64(lines, 2);
            CHECK_STR_CONTAINS(buf, ">L1 per SM</text>");
            CHECK_STR_CONTAINS(buf, ">L2</text>");
            free(buf);
        }
        cml_chart_plan_free(p);
        free(p);
    }
    /* A mark outside the x axis is not drawn. */
    cml_chart c;
    cml_chart_init(&c, CML_CHART_LINE, "t", "x", "y");
    c.x.scale = CML_SCALE_LOG2;
    cml_chart_series *s = cml_chart_add_series(&c, "s");
    CHECK(cml_chart_add_point(s, 1024, 1) == CML_OK);
    CHECK(cml_chart_add_point(s, 4096, 2) == CML_OK);
    CHECK(cml_chart_add_xmark(&c, 1e9, "far") == CML_OK);
    CHECK(cml_chart_add_xmark(&c, 2048, "near") == CML_OK);
    CHECK(cml_chart_add_xmark(&c, NAN, "nan") == CML_EINVAL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        CHECK_EQ_I64(cml_chart_svg(f, &c), CML_OK);
        fclose(f);
        CHECK_STR_CONTAINS(buf, ">near</text>");
        CHECK(strstr(buf, ">far</text>") == NULL);
        free(buf);
    }
    cml_chart_free(&c);
    free(recs);
    cml_results_free(&r);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_predict();
    test_measured();
    test_plan();
    test_stream_once_per_pass();
    test_perm();
    test_chase_table();
    test_model_run();
    test_options();
    test_latency_groups();
    test_chunk_walk();
    test_chart_marks();
    test_level_chart();
    return cml_test_summary("test_hierarchy");
}
