/*
 * The hierarchy experiment's cache levels in closed form
 * (hierarchy_levels.c; docs/experiments/hierarchy.md "The cache levels"),
 * against figures derived by hand: every figure and both bounds, for
 * reads in both l2-modes and both load paths, writes and chases, at an
 * L1-resident, an L2-resident and a DRAM-sized working set. A small
 * device keeps the arithmetic short: 2 SMs of 512 threads (2 blocks of 256
 * each, a grid of 4), 64 KiB of L1 per SM, 4 MiB of L2. Then the records
 * of the experiment itself: every one carries its levels, inside their
 * intervals, and a read is classed by its own class.
 */
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "test_util.h"
#include "levels_test_util.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)

static const cml_hier_caps caps = {64 * KIB, 4 * MIB, 0, 2, 1};

/* Every figure exact. */
#define check_levels(what, rec, ...) check_levels_slack(what, rec, 0, __VA_ARGS__)

static void bw(cml_record *rec, uint64_t ws, int op, int path, uint64_t target, int walk,
               cml_hier_plan *p)
{
    memset(rec, 0, sizeof *rec);
    cml_hier_plan_bw(ws, op, caps.sms, 512, target, walk, p);
    CHECK_EQ_I64(cml_hier_model_levels(rec, p, &caps, op, path), CML_OK);
}

static void test_reads(void)
{
    cml_record rec;
    cml_hier_plan p;
    /* L1-resident, slice, ca: 32 rows = 2 pieces of 16, one chunk of 2
     * pieces (the largest divisor of 2 up to 32), read R = 32 / 2 = 16
     * times a block: 512 rows a block; 1 MiB a launch = 2 blocks (a
     * multiple of the 1 chunk), 32768 load sectors, no sums stored (the
     * timed launch stores none). A block touches its 32 KiB chunk, an SM
     * (1 block) 32 KiB <= 0.9 x 64 KiB: it fits. Misses: once per SM
     * 2 x 1024 (the point), once in all 1024, once per block 2 x 1024. The
     * set fits L2: read once (0 when L2 is warm); nothing written. */
    bw(&rec, 32 * KIB, CML_HIER_READ, CML_HIER_CA, MIB, CML_HIER_SLICE, &p);
    CHECK_EQ_U64(p.parts, 1);
    CHECK_EQ_U64(p.chunk, 2);
    CHECK_EQ_U64(p.grid, 2);
    CHECK_EQ_U64(p.per_block, 512);
    check_levels("slice 32K ca", &rec, (want3){30720, 30720, 31744}, (want3){2048, 1024, 2048},
                 (want3){0, 0, 0}, (want3){32768, 0, 32768}, (want3){0, 0, 0});
    CHECK_EQ_U64(rec.levels.footprint_bytes, 32 * KIB);
    /* The same through cg: no L1 hit, every load an L2 read (the point);
     * at least the sectors the grid reads, distinct: the set's 32 rows,
     * 32 x 32 = 1024 (every repeat merged with one in flight, in L1TEX or
     * from another SM in the L2 Request Coalescer). */
    bw(&rec, 32 * KIB, CML_HIER_READ, CML_HIER_CG, MIB, CML_HIER_SLICE, &p);
    check_levels("slice 32K cg", &rec, (want3){0, 0, 0}, (want3){32768, 1024, 32768},
                 (want3){0, 0, 0}, (want3){32768, 0, 32768}, (want3){0, 0, 0});
    /* Shared at the same size: every block walks the whole set; the same
     * footprints, so the same figures (a block needs 32 / 4 + 16 = 24
     * rows, the launch 256). */
    bw(&rec, 32 * KIB, CML_HIER_READ, CML_HIER_CA, MIB, CML_HIER_WHOLE, &p);
    CHECK_EQ_U64(p.parts, 0);
    check_levels("shared 32K ca", &rec, (want3){30720, 28672, 31744}, (want3){2048, 1024, 4096},
                 (want3){128, 128, 128}, (want3){32768, 0, 32768}, (want3){0, 0, 4096});

    /* L2-resident, slice, ca: 1 MiB = 64 pieces, 2 chunks of 32 (pieces
     * 0, 2, 4, ... and 1, 3, 5, ...), read once a block: 512 rows; 4 MiB a
     * launch = 8 blocks, 131072 load sectors. A block reads its 512 KiB
     * chunk, an SM (4 blocks) the whole 1 MiB > 57.6 KiB. LRU: no hit; at
     * most all but the set's 32768 cold misses. 1 MiB fits 0.75 x 4 MiB:
     * the set once. */
    bw(&rec, MIB, CML_HIER_READ, CML_HIER_CA, 4 * MIB, CML_HIER_SLICE, &p);
    CHECK_EQ_U64(p.parts, 2);
    CHECK_EQ_U64(p.chunk, 32);
    CHECK_EQ_U64(p.grid, 8);
    CHECK_EQ_U64(p.per_block, 512);
    check_levels("slice 1M ca", &rec, (want3){0, 0, 98304}, (want3){131072, 32768, 131072},
                 (want3){0, 0, 0}, (want3){MIB, 0, MIB}, (want3){0, 0, 0});
    /* Shared through cg: every block walks all 1024 rows, so the grid
     * reads the 32768 sectors at least once: 32768 at least. */
    bw(&rec, MIB, CML_HIER_READ, CML_HIER_CG, 4 * MIB, CML_HIER_WHOLE, &p);
    check_levels("shared 1M cg", &rec, (want3){0, 0, 0}, (want3){131072, 32768, 131072},
                 (want3){128, 128, 128}, (want3){MIB, 0, MIB}, (want3){0, 0, 4096});
    /* Slice through cg, 3 MiB a launch: 3 rounds over the 2 chunks, 6
     * blocks of 512 rows, 98304 load sectors; the grid reads every one of
     * the 1024 rows, so 32768 L2 reads at least. */
    bw(&rec, MIB, CML_HIER_READ, CML_HIER_CG, 3 * MIB, CML_HIER_SLICE, &p);
    CHECK_EQ_U64(p.grid, 6);
    check_levels("slice 1M cg 3M", &rec, (want3){0, 0, 0}, (want3){98304, 32768, 98304},
                 (want3){0, 0, 0}, (want3){MIB, 0, MIB}, (want3){0, 0, 0});

    /* DRAM-sized, shared beyond L2 = partitioned: 16 MiB = 16384 rows,
     * 16 MiB a launch = 4096 rows a block (once over the set). A block's
     * 4096 KiB are its own; every load is the first of its sector: L1 hit
     * 0 exactly, 524288 L2 reads. 16 MiB + 4 KiB > 1.5 x 4 MiB: DRAM reads
     * every L2 read (16 MiB), at least the set less a warm L2 (12 MiB; the
     * slot-time bound, 16 MiB x (1 - 4 MiB / (16 MiB + 4 KiB)) - 4 MiB,
     * is less). The sums: 4 KiB, written back at most. */
    bw(&rec, 16 * MIB, CML_HIER_READ, CML_HIER_CA, 16 * MIB, CML_HIER_PARTITION, &p);
    CHECK_EQ_U64(p.stream, 1);
    CHECK_EQ_U64(p.per_block, 4096);
    check_levels("partitioned 16M ca", &rec, (want3){0, 0, 0}, (want3){524288, 524288, 524288},
                 (want3){128, 128, 128}, (want3){16 * MIB, 12 * MIB, 16 * MIB},
                 (want3){0, 0, 4096});
    /* Partitioned through cg, twice over the set (32 MiB a launch, 8192
     * loads a block): block b's load j is row b + 4j (mod 16384), so SM 0
     * (blocks 0, 2) reads the even rows, SM 1 the odd ones, each 8192 rows
     * twice: at least 2 x 8192 x 32 = 524288 L2 reads, at most all 1048576.
     * DRAM: every L2 read (32 MiB), at least the set less a warm L2. */
    bw(&rec, 16 * MIB, CML_HIER_READ, CML_HIER_CG, 32 * MIB, CML_HIER_PARTITION, &p);
    CHECK_EQ_U64(p.per_block, 8192);
    check_levels("partitioned 16M cg x2", &rec, (want3){0, 0, 0},
                 (want3){1048576, 524288, 1048576}, (want3){128, 128, 128},
                 (want3){32 * MIB, 12 * MIB, 32 * MIB}, (want3){0, 0, 4096});
    /* Slice at 16 MiB: 1024 pieces, 32 chunks of 32, one round = 32 blocks
     * of 512 KiB = the launch's 16 MiB, every sector read once: L1 hit 0
     * exactly (an SM's 16 blocks touch 8 MiB, and no re-read to hit),
     * 524288 L2 reads. DRAM as partitioned; nothing stored, so nothing
     * written back. */
    bw(&rec, 16 * MIB, CML_HIER_READ, CML_HIER_NC, 16 * MIB, CML_HIER_SLICE, &p);
    CHECK_EQ_U64(p.parts, 32);
    CHECK_EQ_U64(p.grid, 32);
    check_levels("slice 16M nc", &rec, (want3){0, 0, 0}, (want3){524288, 524288, 524288},
                 (want3){0, 0, 0}, (want3){16 * MIB, 12 * MIB, 16 * MIB}, (want3){0, 0, 0});
}

static void test_writes(void)
{
    cml_record rec;
    cml_hier_plan p;
    /* L2-resident write: 1 MiB, 4 parts of 256 rows, a block each; 4 MiB
     * a launch = 1024 rows a block: 131072 store sectors, no load. The set
     * fits L2: it may all stay dirty (0) or go out with every store (4
     * MiB). Full sectors stored: no DRAM read. */
    bw(&rec, MIB, CML_HIER_WRITE, CML_HIER_CA, 4 * MIB, CML_HIER_SLICE, &p);
    CHECK_EQ_U64(p.grid, 4);
    check_levels("write 1M", &rec, (want3){0, 0, 0}, (want3){0, 0, 0},
                 (want3){131072, 131072, 131072}, (want3){0, 0, 0}, (want3){0, 0, 4 * MIB});
    /* L1 sizes are L2's for a write (stores go through): 32 KiB, 2 parts,
     * the grid cut to 2 blocks; 1 MiB a launch = 512 rows a block. */
    bw(&rec, 32 * KIB, CML_HIER_WRITE, CML_HIER_CA, MIB, CML_HIER_SLICE, &p);
    CHECK_EQ_U64(p.grid, 2);
    CHECK_EQ_U64(p.per_block, 512);
    check_levels("write 32K", &rec, (want3){0, 0, 0}, (want3){0, 0, 0},
                 (want3){32768, 32768, 32768}, (want3){0, 0, 0}, (want3){0, 0, MIB});
    /* DRAM-sized: 16 MiB written once, 524288 sectors. Beyond L2 all but an
     * L2's worth goes out (12 MiB, the point); at least 16 MiB x (1 - 4 /
     * 16) - 4 MiB = 8 MiB (the slot-time bound less a dirty L2 at the end). */
    bw(&rec, 16 * MIB, CML_HIER_WRITE, CML_HIER_CA, 16 * MIB, CML_HIER_SLICE, &p);
    check_levels("write 16M", &rec, (want3){0, 0, 0}, (want3){0, 0, 0},
                 (want3){524288, 524288, 524288}, (want3){0, 0, 0},
                 (want3){12 * MIB, 8 * MIB, 16 * MIB});
}

/* A chase record as cml_hier_trace_chase leaves it: 2 warps, each its
 * cursor load and `walk` hops (one sector each), 4 store sectors. */
static void chase(cml_record *rec, uint64_t ws, int path, uint64_t walk)
{
    memset(rec, 0, sizeof *rec);
    rec->has_model = 1;
    rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].sectors = 2 * (walk + 1);
    rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST].sectors = 8;
    CHECK_EQ_I64(cml_hier_chase_levels(rec, ws, 64, walk, path, 1, 2, &caps), CML_OK);
}

static void test_chases(void)
{
    /* Windows: 2 warps from 0 and m / 2, each cut at the other's start. */
    CHECK_EQ_U64(cml_hier_chase_visited(256, 2, 1024), 256);
    CHECK_EQ_U64(cml_hier_chase_visited(16384, 2, 1024), 2048);
    CHECK_EQ_U64(cml_hier_chase_visited(10, 3, 4), 3 + 3 + 4);
    cml_record rec;
    /* L1-resident: 16 KiB, 256 pointers 64 B apart, 1024 hops a warp:
     * each pointer missed once a warp, 2 x (1024 - 256) = 1536 hits; at most
     * all but the 256 pointers' sectors and the cursors' one sector in all
     * (2050 - 257). DRAM: the 256 pointers' 64-byte granules and the
     * cursors' sector (16416) where L2 is cold; at most every L2 read a
     * granule (514 x 64). */
    chase(&rec, 16 * KIB, CML_HIER_CA, 1024);
    check_levels("chase 16K", &rec, (want3){1536, 1536, 1793}, (want3){514, 257, 514},
                 (want3){8, 8, 8}, (want3){16416, 0, 32896}, (want3){0, 0, 256});
    /* Through cg: no hit; L2 reads every load at the point, at least the
     * 256 pointers' sectors and the cursors' one (257) where every request
     * of a sector merges with an earlier one (l1_merge's extreme, any two
     * blocks on one SM). */
    chase(&rec, 16 * KIB, CML_HIER_CG, 1024);
    check_levels("chase 16K cg", &rec, (want3){0, 0, 0}, (want3){2050, 257, 2050},
                 (want3){8, 8, 8}, (want3){16416, 0, 131200}, (want3){0, 0, 256});
    /* L2-resident: 1 MiB, 16384 pointers; 2048 visited, each once. No L1
     * hit under LRU; at most one (all but the 2048 sectors and the
     * cursors' in all), under the slot-time bound's 2 x 1024 x 1024 /
     * 16384 = 128. DRAM: 2048 granules and the cursors' sector. */
    chase(&rec, MIB, CML_HIER_CA, 1024);
    check_levels("chase 1M", &rec, (want3){0, 0, 1}, (want3){2050, 2049, 2050}, (want3){8, 8, 8},
                 (want3){131104, 0, 131200}, (want3){0, 0, 256});
    /* DRAM-sized: 64 MiB, 1 Mi pointers: every L2 read a granule (the
     * point, 2050 x 64); at least the 2048 sectors less a warm L2: 0. */
    chase(&rec, 64 * MIB, CML_HIER_CA, 1024);
    check_levels("chase 64M", &rec, (want3){0, 0, 1}, (want3){2050, 2049, 2050},
                 (want3){8, 8, 8}, (want3){131200, 0, 131200}, (want3){0, 0, 256});
}

/* The experiment's own records: every one has its levels, each figure
 * inside its interval; a measured read at a DRAM size is of the read
 * class, one at an L2 size L2-resident, a chase of none. */
static void test_records(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_hierarchy, "ws=64K,4M,256M op=read,write,copy,chase", &r),
                 CML_OK);
    CHECK_EQ_U64(r.count, 3 * (3 * 2 + 2 + 3));
    for (size_t i = 0; i < r.count; i++) {
        CHECK(r.items[i].has_levels && r.items[i].levels.bounded);
        CHECK(cml_levels_bounds_ok(&r.items[i].levels));
    }
    cml_peak_refs refs;
    memset(&refs, 0, sizeof refs);
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++)
        refs.gbs[c] = 3000.0;
    cml_record *rd = (cml_record *)find(&r, "ws=268435456 path=ca l2-mode=slice op=read");
    if (FOUND(rd)) {
        rd->measured = 1;
        rd->bandwidth_gbs = 3000.0;
        cml_record_set_peak(rd, &refs);
        CHECK_EQ_I64(rd->peak_class, CML_PEAK_CLASS_READ);
    }
    cml_record *l2 = (cml_record *)find(&r, "ws=4194304 path=cg l2-mode=slice op=read");
    if (FOUND(l2)) {
        l2->measured = 1;
        l2->bandwidth_gbs = 9000.0;
        cml_record_set_peak(l2, &refs);
        CHECK_EQ_I64(l2->peak_class, CML_PEAK_CLASS_L2_RESIDENT);
    }
    cml_record *wr = (cml_record *)find(&r, "ws=268435456 op=write");
    if (FOUND(wr)) {
        wr->measured = 1;
        wr->bandwidth_gbs = 3000.0;
        cml_record_set_peak(wr, &refs);
        CHECK_EQ_I64(wr->peak_class, CML_PEAK_CLASS_WRITE);
    }
    cml_results_free(&r);
}

int main(void)
{
    test_reads();
    test_writes();
    test_chases();
    test_records();
    return cml_test_summary("test_hierarchy_levels");
}
