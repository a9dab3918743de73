/*
 * Tests of the whole-kernel tracer (cml_trace_kernel, cml_emit): kernel
 * mirrors with hand-derived totals, divergent warps whose instructions must
 * be matched by (site, occurrence), a cross-check against warps assembled by
 * hand, and the error cases.
 */
#include "cumemlab/model.h"
#include "test_util.h"

#include <stdint.h>
#include <string.h>

#define GLD CML_SPACE_GLOBAL, CML_OP_LOAD
#define GST CML_SPACE_GLOBAL, CML_OP_STORE

static cml_dim3 dim3(uint32_t x, uint32_t y, uint32_t z)
{
    cml_dim3 d = {x, y, z};
    return d;
}

/* Trace into a fresh result; checks the status is `want`. */
static cml_kernel_traffic trace(cml_rules r, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                                const void *args, cml_status want, int line)
{
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    cml_status rc = cml_trace_kernel(r, grid, block, fn, args, &k);
    cml_test_checks++;
    if (rc != want) {
        cml_test_failures++;
        fprintf(stderr, "%s:%d: status %s, expected %s\n", __FILE__, line, cml_status_str(rc),
                cml_status_str(want));
    }
    return k;
}

static int all_zero(const cml_kernel_traffic *k)
{
    cml_kernel_traffic z;
    memset(&z, 0, sizeof z);
    return memcmp(&z, k, sizeof z) == 0;
}

/* ---------------------------------------------------------------------- */
/* readOffset: C[i] = A[k] + B[k], k = i + offset, if (k < n)             */
/* ---------------------------------------------------------------------- */
typedef struct read_offset_args {
    uint64_t n;
    uint64_t offset;
    cml_cache cache;
} read_offset_args;

static void read_offset(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const read_offset_args *a = vargs;
    const uint64_t i = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    const uint64_t k = i + a->offset;
    if (k < a->n) {
        cml_emit(e, 0, GLD, a->cache, 4, cml_array_base(0) + 4u * k);
        cml_emit(e, 1, GLD, a->cache, 4, cml_array_base(1) + 4u * k);
        cml_emit(e, 2, GST, CML_CACHE_CA, 4, cml_array_base(2) + 4u * i);
    }
}

static void test_read_offset(void)
{
    const uint64_t n = UINT64_C(1) << 20;
    const cml_dim3 block = dim3(512, 1, 1), grid = dim3((uint32_t)((n + 511) / 512), 1, 1);

    /*
     * Offset 11. n = 2^20 threads = 32768 warps; warp w holds i = 32w..32w+31.
     * Active (k = i + 11 < n): i < n - 11 = 1048565, so warps 0..32766 are
     * full and the last warp (w = 32767, i = 1048544..1048575) has lanes
     * 0..20 active (21 lanes). Every warp issues 3 instructions.
     * Loads of A (and of B, identically): a full warp reads bytes
     * 128w + 44 .. 128w + 171 (relative to the array base, which is
     * line-aligned) -> sectors 4w+1 .. 4w+5 = 5 sectors, lines w, w+1 = 2.
     * The last warp reads bytes 128w + 44 .. 128w + 127 -> sectors 4w+1 ..
     * 4w+3 = 3, line w = 1.
     *   instructions = requests = 32768
     *   sectors = 32767*5 + 3 = 163838;  lines = 32767*2 + 1 = 65535
     *   requested = (n - 11) * 4 = 4194260 = lane bytes
     * for each of A and B: x2 in the global-load class.
     * Store C[i]: full warp bytes 128w .. 128w+127 -> 4 sectors, 1 line; the
     * last warp bytes 128w .. 128w+83 -> 3 sectors, 1 line:
     *   sectors = 32767*4 + 3 = 131071; lines = 32768; requested 4194260.
     */
    read_offset_args args = {n, 11, CML_CACHE_CA};
    cml_kernel_traffic k = trace(CML_RULES_MODERN, grid, block, read_offset, &args, CML_OK,
                                 __LINE__);
    const cml_traffic *ld = &k.cls[CML_CLASS_GLOBAL_LD], *st = &k.cls[CML_CLASS_GLOBAL_ST];
    CHECK_EQ_U64(ld->instructions, 2 * 32768);
    CHECK_EQ_U64(ld->requests, 2 * 32768);
    CHECK_EQ_U64(ld->sectors, 2 * 163838);
    CHECK_EQ_U64(ld->lines, 2 * 65535);
    CHECK_EQ_U64(ld->transactions, 2 * 163838);
    CHECK_EQ_U64(ld->efficiency_bytes, 2 * 32 * 163838);
    CHECK_EQ_U64(ld->requested_bytes, 2 * 4194260);
    CHECK_EQ_U64(ld->lane_bytes, 2 * 4194260);
    /* 4194260 / 5242816 = 0.800003..., shown by ncu as 80%; sectors per
     * request 163838 / 32768 = 4.99994 ("5.00" on the H100, docs/model.md 12.2). */
    CHECK_NEAR(cml_traffic_efficiency(ld), 4194260.0 / 5242816.0, 1e-12);
    CHECK_NEAR(cml_traffic_sectors_per_request(ld), 163838.0 / 32768.0, 1e-12);
    CHECK_EQ_U64(st->instructions, 32768);
    CHECK_EQ_U64(st->sectors, 131071);
    CHECK_EQ_U64(st->lines, 32768);
    CHECK_EQ_U64(st->requested_bytes, 4194260);
    for (unsigned c = 0; c < CML_CLASS_COUNT; c++)
        if (c != CML_CLASS_GLOBAL_LD && c != CML_CLASS_GLOBAL_ST)
            CHECK(k.cls[c].instructions == 0);

    /* Same kernel under the Fermi rules. Cached loads: one 128 B transaction
     * per line: 65535 per array -> 128 * 65535 = 8388480 B each, efficiency
     * 4194260 / 8388480 = 0.5000012 (the book measured 49.81%).
     * Stores: each full warp covers one whole region -> one 128 B
     * transaction; the last warp's bytes 0..83 of its region touch segments
     * 0,1,2 -> also 128 B. 32768 transactions, 4194304 B; efficiency bytes =
     * 32 * segments = 32 * 131071. */
    k = trace(CML_RULES_FERMI, grid, block, read_offset, &args, CML_OK, __LINE__);
    CHECK_EQ_U64(ld->requests, 2 * 32768);
    CHECK_EQ_U64(ld->transactions, 2 * 65535);
    CHECK_EQ_U64(ld->transaction_bytes, 2 * 8388480);
    CHECK_EQ_U64(ld->sectors, 2 * 163838);
    CHECK_NEAR(cml_traffic_efficiency(ld), 4194260.0 / 8388480.0, 1e-12);
    CHECK_EQ_U64(st->transactions, 32768);
    CHECK_EQ_U64(st->transaction_bytes, 4194304);
    CHECK_EQ_U64(st->efficiency_bytes, 32 * 131071);
    /* Uncached (-dlcm=cg): 32 B segments = the sectors: 163838 per array. */
    args.cache = CML_CACHE_CG;
    k = trace(CML_RULES_FERMI, grid, block, read_offset, &args, CML_OK, __LINE__);
    CHECK_EQ_U64(ld->transactions, 2 * 163838);
    CHECK_EQ_U64(ld->transaction_bytes, 2 * 32 * 163838);

    /* Offset 0: all 32768 warps full, 4 sectors and 1 line each, for A, B
     * and C: loads 2 * 131072 sectors, stores 131072; 100%. */
    args.offset = 0;
    args.cache = CML_CACHE_CA;
    k = trace(CML_RULES_MODERN, grid, block, read_offset, &args, CML_OK, __LINE__);
    CHECK_EQ_U64(ld->instructions, 2 * 32768);
    CHECK_EQ_U64(ld->sectors, 2 * 131072);
    CHECK_EQ_U64(ld->lines, 2 * 32768);
    CHECK_EQ_U64(ld->requested_bytes, 2 * 4 * n);
    CHECK_NEAR(cml_traffic_efficiency(ld), 1.0, 1e-12);
    CHECK_EQ_U64(st->sectors, 131072);
    CHECK_NEAR(cml_traffic_efficiency(st), 1.0, 1e-12);

    /* Offset 128: k < n for i < n - 128, i.e. warps 0..32763 (all full:
     * n - 128 is a multiple of 32); warps 32764..32767 execute no access and
     * issue nothing. Each load warp: bytes 128w + 512 .. +639, 4 sectors. */
    args.offset = 128;
    k = trace(CML_RULES_MODERN, grid, block, read_offset, &args, CML_OK, __LINE__);
    CHECK_EQ_U64(ld->instructions, 2 * 32764);
    CHECK_EQ_U64(ld->sectors, 2 * 4 * 32764);
    CHECK_NEAR(cml_traffic_efficiency(ld), 1.0, 1e-12);
    CHECK_EQ_U64(st->instructions, 32764);

    /* The tracer ADDS into *out: tracing twice doubles every count. */
    cml_kernel_traffic twice;
    memset(&twice, 0, sizeof twice);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, grid, block, read_offset, &args, &twice) == CML_OK);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, grid, block, read_offset, &args, &twice) == CML_OK);
    CHECK_EQ_U64(twice.cls[CML_CLASS_GLOBAL_LD].sectors, 2 * ld->sectors);
    CHECK_EQ_U64(twice.cls[CML_CLASS_GLOBAL_ST].instructions, 2 * st->instructions);
}

/* Cross-check: for offsets 0..40 and a small n that is not a multiple of
 * 32, the tracer must equal warps assembled by hand and fed to the model. */
static void test_read_offset_against_direct(void)
{
    const uint64_t n = 1000; /* 2 blocks of 512: 1024 threads, 32 warps */
    for (uint64_t off = 0; off <= 40; off++) {
        read_offset_args args = {n, off, CML_CACHE_CA};
        for (cml_rules r = CML_RULES_MODERN; r < CML_RULES_COUNT; r++) {
            cml_kernel_traffic k = trace(r, dim3(2, 1, 1), dim3(512, 1, 1), read_offset, &args,
                                         CML_OK, __LINE__);
            cml_traffic ld, st;
            memset(&ld, 0, sizeof ld);
            memset(&st, 0, sizeof st);
            for (uint64_t w = 0; w < 32; w++) {
                cml_access a;
                memset(&a, 0, sizeof a);
                a.space = CML_SPACE_GLOBAL;
                a.width = 4;
                for (unsigned l = 0; l < 32; l++)
                    if (32 * w + l + off < n)
                        a.active |= 1u << l;
                if (a.active == 0)
                    continue;
                for (unsigned arr = 0; arr < 2; arr++) {
                    a.op = CML_OP_LOAD;
                    for (unsigned l = 0; l < 32; l++)
                        a.addr[l] = cml_array_base(arr) + 4u * (32 * w + l + off);
                    CHECK(cml_model_access(r, &a, &ld) == CML_OK);
                }
                a.op = CML_OP_STORE;
                for (unsigned l = 0; l < 32; l++)
                    a.addr[l] = cml_array_base(2) + 4u * (32 * w + l);
                CHECK(cml_model_access(r, &a, &st) == CML_OK);
            }
            CHECK(memcmp(&ld, &k.cls[CML_CLASS_GLOBAL_LD], sizeof ld) == 0);
            CHECK(memcmp(&st, &k.cls[CML_CLASS_GLOBAL_ST], sizeof st) == 0);
        }
    }
}

/* ---------------------------------------------------------------------- */
/* A 2D mirror with warps that span rows and a partial warp per block     */
/* ---------------------------------------------------------------------- */
typedef struct copy2d_args {
    uint32_t nx, ny;
} copy2d_args;

/* ix, iy from the 2D grid; if (ix < nx && iy < ny) read A[iy * nx + ix]. */
static void read2d(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const copy2d_args *a = vargs;
    const uint32_t ix = t->bid.x * t->bdim.x + t->tid.x;
    const uint32_t iy = t->bid.y * t->bdim.y + t->tid.y;
    if (ix < a->nx && iy < a->ny)
        cml_emit(e, 0, GLD, CML_CACHE_CA, 4, cml_array_base(0) + 4u * ((uint64_t)iy * a->nx + ix));
}

static void test_2d(void)
{
    /*
     * nx = 24, ny = 8 floats (rows of 96 B), block 12x4 = 48 threads, grid
     * 2x2. Linear thread id t = tx + 12 ty: warp 0 = t 0..31 = rows ty 0, 1
     * (12 threads each) and ty 2 tx 0..7; warp 1 = t 32..47 (16 lanes, a
     * partial warp) = ty 2 tx 8..11 and ty 3. Element (x, y) is at byte
     * 96y + 4x; sector = /32, line = /128. For by = 0 (rows 0..3):
     *  bx=0 warp 0: bytes 0..47, 96..143, 192..223 -> sectors {0,1,3,4,6} = 5,
     *               lines {0,1} = 2
     *  bx=0 warp 1: 224..239, 288..335 -> sectors {7,9,10} = 3, lines {1,2} = 2
     *  bx=1 warp 0: 48..95, 144..191, 240..271 -> sectors {1,2,4,5,7,8} = 6,
     *               lines {0,1,2} = 3
     *  bx=1 warp 1: 272..287, 336..383 -> sectors {8,10,11} = 3, lines {2} = 1
     * by = 1 is the same pattern 384 B (3 lines) further: 17 sectors, 8 lines.
     * Totals: 8 instructions, 34 sectors, 16 lines, requested 24*8*4 = 768 B
     * (no element read twice), lane bytes 768; efficiency 768 / 1088.
     */
    copy2d_args args = {24, 8};
    cml_kernel_traffic k = trace(CML_RULES_MODERN, dim3(2, 2, 1), dim3(12, 4, 1), read2d, &args,
                                 CML_OK, __LINE__);
    const cml_traffic *ld = &k.cls[CML_CLASS_GLOBAL_LD];
    CHECK_EQ_U64(ld->instructions, 8);
    CHECK_EQ_U64(ld->sectors, 34);
    CHECK_EQ_U64(ld->lines, 16);
    CHECK_EQ_U64(ld->requested_bytes, 768);
    CHECK_EQ_U64(ld->lane_bytes, 768);
    CHECK_NEAR(cml_traffic_efficiency(ld), 768.0 / 1088.0, 1e-12);

    /*
     * Same kernel, nx = 20 (the guard cuts columns 20..23 of block bx = 1):
     * rows of 80 B. bx = 1 threads tx 8..11 (x 20..23) are inactive.
     * by = 0, element (x, y) at 80y + 4x:
     *  bx=0 warp 0: x 0..11 of rows 0,1 (0..47, 80..127), row 2 x 0..7
     *     (160..191) -> sectors {0,1,2,3,5} = 5, lines {0,1} = 2
     *  bx=0 warp 1: row 2 x 8..11 (192..207), row 3 x 0..11 (240..287)
     *     -> sectors {6,7,8} = 3, lines {1,2} = 2
     *  bx=1 warp 0: x 12..19 of rows 0,1 (48..79, 128..159), row 2 x 12..19
     *     (lanes tx 0..7 of ty 2: 208..239) -> sectors {1,2,4,6,7} = 5,
     *     lines {0,1} = 2; 24 lanes active
     *  bx=1 warp 1: row 2 x 20..23 inactive; row 3 x 12..19 (288..319)
     *     -> sectors {9} = 1, line {2} = 1; 8 lanes active
     * by = 1: rows 4..7 start at byte 320 = 10 sectors, 2.5 lines: sectors
     * shift by 10 and stay 5, 3, 5, 1; lines (byte ranges + 320):
     *  bx=0 w0: 320..367, 400..447, 480..511 -> lines {2,3} = 2
     *  bx=0 w1: 512..527, 560..607 -> lines {4} = 1
     *  bx=1 w0: 368..399, 448..479, 528..559 -> lines {2,3,4} = 3
     *  bx=1 w1: 608..639 -> {4} = 1
     * Totals: 8 instructions, sectors 2*(5+3+5+1) = 28, lines 2+2+2+1 +
     * 2+1+3+1 = 14, requested 20*8*4 = 640.
     */
    args.nx = 20;
    k = trace(CML_RULES_MODERN, dim3(2, 2, 1), dim3(12, 4, 1), read2d, &args, CML_OK, __LINE__);
    CHECK_EQ_U64(ld->instructions, 8);
    CHECK_EQ_U64(ld->sectors, 28);
    CHECK_EQ_U64(ld->lines, 14);
    CHECK_EQ_U64(ld->requested_bytes, 640);
}

/* Reads A[t] with t the linear thread id in its block (for the 3D case). */
static void read_linear(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)vargs;
    const uint64_t lin = t->tid.x + (uint64_t)t->tid.y * t->bdim.x +
                         (uint64_t)t->tid.z * t->bdim.x * t->bdim.y;
    cml_emit(e, 0, GLD, CML_CACHE_CA, 4, cml_array_base(0) + 4u * lin);
}

static void test_3d_block(void)
{
    /* Block 8x2x3 = 48 threads, linear id t = tx + 8 ty + 16 tz; warp 0 =
     * t 0..31 (tz 0, 1), warp 1 = t 32..47 (tz 2, 16 lanes). Each reads
     * A[t]: warp 0 bytes 0..127 -> 4 sectors; warp 1 bytes 128..191 -> 2
     * sectors. Grid 1x1x2: the second block reads the same addresses. */
    cml_kernel_traffic k = trace(CML_RULES_MODERN, dim3(1, 1, 2), dim3(8, 2, 3), read_linear,
                                 NULL, CML_OK, __LINE__);
    const cml_traffic *ld = &k.cls[CML_CLASS_GLOBAL_LD];
    CHECK_EQ_U64(ld->instructions, 4);
    CHECK_EQ_U64(ld->sectors, 2 * (4 + 2));
    CHECK_EQ_U64(ld->lane_bytes, 2 * 48 * 4);
}

/* ---------------------------------------------------------------------- */
/* Divergence                                                             */
/* ---------------------------------------------------------------------- */
typedef struct gs_args {
    uint64_t n;
} gs_args;

/* Grid-stride loop: for (i = gtid; i < n; i += stride) sum += A[i];
 * then C[gtid] = sum. Site 0 is the load, site 1 the store. */
static void grid_stride(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const gs_args *a = vargs;
    const uint64_t gtid = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    const uint64_t stride = (uint64_t)t->gdim.x * t->bdim.x;
    for (uint64_t i = gtid; i < a->n; i += stride)
        cml_emit(e, 0, GLD, CML_CACHE_CA, 4, cml_array_base(0) + 4u * i);
    cml_emit(e, 1, GST, CML_CACHE_CA, 4, cml_array_base(1) + 4u * gtid);
}

static void test_divergent_loop(void)
{
    /*
     * One block of 64 threads, n = 150: thread t loads t, t+64, and t+128 if
     * t < 22. Warp 0 (t 0..31): iteration 0 i = 0..31 -> bytes 0..127, 4
     * sectors; iteration 1 i = 64..95 -> bytes 256..383, 4 sectors; iteration
     * 2 lanes 0..21 only, i = 128..149 -> bytes 512..599 -> sectors 16..18 =
     * 3, 1 line. Warp 1 (t 32..63): i = 32..63 and 96..127 -> 4 + 4 sectors,
     * no third iteration. Loads: 5 instructions, 19 sectors, 5 lines, 600 B.
     * The store after the loop is the 4th emission of lanes 0..21 and the 3rd
     * of lanes 22..31, yet one instruction (site 1, first execution) of all
     * 32 lanes: 2 store instructions, 4 sectors each. Matching emissions by
     * position instead would mix the store with the loads.
     */
    gs_args args = {150};
    for (cml_rules r = CML_RULES_MODERN; r < CML_RULES_COUNT; r++) {
        cml_kernel_traffic k = trace(r, dim3(1, 1, 1), dim3(64, 1, 1), grid_stride, &args,
                                     CML_OK, __LINE__);
        const cml_traffic *ld = &k.cls[CML_CLASS_GLOBAL_LD], *st = &k.cls[CML_CLASS_GLOBAL_ST];
        CHECK_EQ_U64(ld->instructions, 5);
        CHECK_EQ_U64(ld->sectors, 19);
        CHECK_EQ_U64(ld->lines, 5);
        CHECK_EQ_U64(ld->requested_bytes, 600);
        CHECK_EQ_U64(st->instructions, 2);
        CHECK_EQ_U64(st->sectors, 8);
        CHECK_EQ_U64(st->requested_bytes, 256);
        CHECK_EQ_U64(st->lane_bytes, 256);
    }
    /* Grid of 3 blocks x 64 = 192 threads over n = 1000: thread g loads
     * g + 192j for j = 0..5 when g + 192*5 = g + 960 < 1000, i.e. g < 40 do 6
     * iterations and the others 5. Every element is read once: 1000 lanes x
     * 4 B. Warps (6 of them) issue 5 instructions each plus a 6th for warps
     * holding g < 40: warp 0 (g 0..31, all lanes) and warp 1 (g 32..39, 8
     * lanes) -> 32 instructions. Sector count: iteration j of warp v reads
     * i = 192j + 32v + l: a whole aligned 128 B line -> 4 sectors; the 6th
     * iteration: warp 0 i = 960..991 -> 4 sectors, warp 1 i = 992..999 ->
     * bytes 3968..3999 -> 1 sector. Loads: 30*4 + 4 + 1 = 125 sectors. */
    args.n = 1000;
    cml_kernel_traffic k = trace(CML_RULES_MODERN, dim3(3, 1, 1), dim3(64, 1, 1), grid_stride,
                                 &args, CML_OK, __LINE__);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].instructions, 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].sectors, 125);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].requested_bytes, 4000);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_ST].instructions, 6);
}

/* if (lane even) x = A[i] else x = B[i]; then C[i] = x.  */
static void if_else(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)vargs;
    const uint64_t i = t->tid.x;
    if (i % 2 == 0)
        cml_emit(e, 1, GLD, CML_CACHE_CA, 4, cml_array_base(0) + 4u * i);
    else
        cml_emit(e, 2, GLD, CML_CACHE_CA, 4, cml_array_base(1) + 4u * i);
    cml_emit(e, 3, GST, CML_CACHE_CA, 4, cml_array_base(2) + 4u * i);
}

/* Sites used in an order that lanes disagree on (a mirror bug, but it must
 * not crash): even lanes emit site 0 then 1, odd lanes 1 then 0. */
static void contradictory(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)vargs;
    const uint64_t i = t->tid.x;
    const uint64_t a0 = cml_array_base(0) + 4u * i, a1 = cml_array_base(1) + 4u * i;
    if (i % 2 == 0) {
        cml_emit(e, 0, GLD, CML_CACHE_CA, 4, a0);
        cml_emit(e, 1, GLD, CML_CACHE_CA, 4, a1);
    } else {
        cml_emit(e, 1, GLD, CML_CACHE_CA, 4, a1);
        cml_emit(e, 0, GLD, CML_CACHE_CA, 4, a0);
    }
}

static void test_branches(void)
{
    /* 32 threads: site 1 runs with the 16 even lanes, reading A[0,2,..,30]:
     * bytes 0..123 -> 4 sectors, 64 B; site 2 with the odd lanes, B[1..31]:
     * 4 sectors, 64 B. Then the store of all 32 lanes: 4 sectors, 128 B. */
    cml_kernel_traffic k = trace(CML_RULES_MODERN, dim3(1, 1, 1), dim3(32, 1, 1), if_else, NULL,
                                 CML_OK, __LINE__);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].instructions, 2);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].sectors, 8);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].requested_bytes, 128);
    CHECK_NEAR(cml_traffic_efficiency(&k.cls[CML_CLASS_GLOBAL_LD]), 0.5, 1e-12);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_ST].instructions, 1);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_ST].sectors, 4);

    /* Contradictory order: still one instruction per site with all 32 lanes:
     * A[0..31] and B[0..31] -> 2 instructions, 8 sectors, 256 B. */
    k = trace(CML_RULES_MODERN, dim3(1, 1, 1), dim3(32, 1, 1), contradictory, NULL, CML_OK,
              __LINE__);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].instructions, 2);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].sectors, 8);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].requested_bytes, 256);
}

/* ---------------------------------------------------------------------- */
/* Other spaces in a mirror                                               */
/* ---------------------------------------------------------------------- */

/* A block transposing a 32x32 float tile through shared memory: each thread
 * stores tile[ty][tx] (row access) and loads tile[tx][ty] (column access),
 * with `pad` words of padding per row; a per-thread local array element at
 * a same or lane-dependent index; a constant coefficient. */
typedef struct tile_args {
    unsigned pad;
} tile_args;

static void tile(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const tile_args *a = vargs;
    const uint64_t row = 32u + a->pad;
    cml_emit(e, 0, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4,
             4u * (t->tid.y * row + t->tid.x));
    cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4,
             4u * (t->tid.x * row + t->tid.y));
    cml_emit(e, 2, CML_SPACE_LOCAL, CML_OP_STORE, CML_CACHE_CA, 4, 0);
    cml_emit(e, 3, CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA, 4, 4u * (t->tid.x % 8u));
    cml_emit(e, 4, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 4u * (t->tid.x % 2u));
}

static void test_other_spaces(void)
{
    /*
     * Block 32x32 = 32 warps; warp = one ty, lanes tx 0..31.
     * Shared store tile[ty][tx]: words ty*32 + tx -> 32 banks, 1 wavefront.
     * Shared load tile[tx][ty]: words tx*32 + ty -> all in bank ty, 32
     * distinct -> 32 wavefronts, 31 conflicts, per warp.
     * Local store at offset 0 (same index): 4 sectors. Local load at
     * o = 4*(tx mod 8): physical (o/4*32 + l)*4 = 128*(l mod 8) + 4l: lane l
     * in line (l mod 8), word l of it -> 8 lines, each holding 4 lanes in
     * sectors l/8 -> lanes l and l+8, l+16, l+24 share a line but fall in
     * different sectors -> 32 sectors, 8 lines; 128 B / 1024 B.
     * Constant: 2 distinct addresses -> serialized 2.
     */
    tile_args args = {0};
    cml_kernel_traffic k = trace(CML_RULES_MODERN, dim3(1, 1, 1), dim3(32, 32, 1), tile, &args,
                                 CML_OK, __LINE__);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_ST].instructions, 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_ST].wavefronts, 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_ST].bank_conflicts, 0);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_LD].instructions, 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_LD].wavefronts, 32 * 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_LD].bank_conflicts, 32 * 31);
    CHECK_EQ_U64(k.cls[CML_CLASS_LOCAL_ST].sectors, 32 * 4);
    CHECK_NEAR(cml_traffic_efficiency(&k.cls[CML_CLASS_LOCAL_ST]), 1.0, 1e-12);
    CHECK_EQ_U64(k.cls[CML_CLASS_LOCAL_LD].sectors, 32 * 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_LOCAL_LD].lines, 32 * 8);
    CHECK_NEAR(cml_traffic_efficiency(&k.cls[CML_CLASS_LOCAL_LD]), 0.125, 1e-12);
    CHECK_EQ_U64(k.cls[CML_CLASS_CONST_LD].instructions, 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_CONST_LD].serialized, 64);
    /* One word of padding: column words tx*33 + ty -> bank (tx + ty) mod 32,
     * all different -> 1 wavefront per warp, no conflict. */
    args.pad = 1;
    k = trace(CML_RULES_MODERN, dim3(1, 1, 1), dim3(32, 32, 1), tile, &args, CML_OK, __LINE__);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_LD].wavefronts, 32);
    CHECK_EQ_U64(k.cls[CML_CLASS_SHARED_LD].bank_conflicts, 0);
}

/* ---------------------------------------------------------------------- */
/* Errors                                                                 */
/* ---------------------------------------------------------------------- */
typedef struct err_args {
    unsigned mode;
    unsigned count;
} err_args;

static void faulty(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const err_args *a = vargs;
    const uint64_t base = cml_array_base(0);
    const uint64_t gtid = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    switch (a->mode) {
    case 0: /* `count` emissions of one site per thread */
        for (unsigned j = 0; j < a->count; j++)
            cml_emit(e, 0, GLD, CML_CACHE_CA, 4, base + 4u * (gtid + 32u * j));
        break;
    case 1: /* site out of range */
        cml_emit(e, CML_MAX_SITES, GLD, CML_CACHE_CA, 4, base);
        break;
    case 2: /* site 0 changes width between warps */
        cml_emit(e, 0, GLD, CML_CACHE_CA, gtid < 32 ? 4u : 8u, base + 8u * gtid);
        break;
    case 3: /* site 0 changes width between lanes of one warp */
        cml_emit(e, 0, GLD, CML_CACHE_CA, t->lane == 5 ? 8u : 4u, base + 8u * gtid);
        break;
    case 4: /* site 0 changes op within one thread */
        cml_emit(e, 0, GLD, CML_CACHE_CA, 4, base);
        cml_emit(e, 0, GST, CML_CACHE_CA, 4, base);
        break;
    case 5: /* misaligned lane 7 of the last block */
        cml_emit(e, 0, GLD, CML_CACHE_CA, 4,
                 base + 4u * gtid + (t->bid.x == 1 && t->lane == 7 ? 2u : 0u));
        break;
    case 6: /* bad width */
        cml_emit(e, 0, GLD, CML_CACHE_CA, 3, base);
        break;
    case 7: /* constant store */
        cml_emit(e, 0, CML_SPACE_CONSTANT, CML_OP_STORE, CML_CACHE_CA, 4, 0);
        break;
    case 8: /* bad space / cache values */
        cml_emit(e, 0, (cml_space)7, CML_OP_LOAD, CML_CACHE_CA, 4, 0);
        break;
    case 9: /* site changes cache op between occurrences in divergent lanes */
        cml_emit(e, 0, GLD, t->lane < 16 ? CML_CACHE_CA : CML_CACHE_CG, 4, base);
        if (t->lane < 3)
            cml_emit(e, 1, GLD, CML_CACHE_CA, 4, base);
        break;
    default: break;
    }
}

static void null_emitter(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)t;
    (void)vargs;
    (void)e;
    /* A mirror may be run outside a trace; emitting to NULL must be harmless. */
    cml_emit(NULL, 0, GLD, CML_CACHE_CA, 4, 0);
}

static void test_errors(void)
{
    const cml_dim3 g = dim3(2, 1, 1), b = dim3(64, 1, 1);
    err_args a = {0, CML_MAX_EMITS};
    /* Exactly CML_MAX_EMITS emissions per thread are fine: 256 instructions
     * per warp, 4 warps. */
    cml_kernel_traffic k = trace(CML_RULES_MODERN, g, b, faulty, &a, CML_OK, __LINE__);
    CHECK_EQ_U64(k.cls[CML_CLASS_GLOBAL_LD].instructions, 4 * CML_MAX_EMITS);
    /* One more is an error, and *out is left untouched. */
    a.count = CML_MAX_EMITS + 1;
    cml_kernel_traffic sentinel;
    memset(&sentinel, 0xA5, sizeof sentinel);
    cml_kernel_traffic out = sentinel;
    CHECK(cml_trace_kernel(CML_RULES_MODERN, g, b, faulty, &a, &out) == CML_EINVAL);
    CHECK(memcmp(&out, &sentinel, sizeof out) == 0);

    static const struct {
        unsigned mode;
        cml_status want;
    } cases[] = {
        {1, CML_EINVAL}, {2, CML_EINVAL}, {3, CML_EINVAL},      {4, CML_EINVAL},
        {5, CML_EMISALIGNED}, {6, CML_EINVAL}, {7, CML_EINVAL}, {8, CML_EINVAL},
        {9, CML_EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        a.mode = cases[i].mode;
        for (cml_rules r = CML_RULES_MODERN; r < CML_RULES_COUNT; r++) {
            out = sentinel;
            cml_status rc = cml_trace_kernel(r, g, b, faulty, &a, &out);
            CHECK_EQ_I64(rc, cases[i].want);
            CHECK(memcmp(&out, &sentinel, sizeof out) == 0);
        }
    }

    /* Bad launches and arguments. */
    a.mode = 0;
    a.count = 1;
    k = trace(CML_RULES_MODERN, dim3(0, 1, 1), b, faulty, &a, CML_EINVAL, __LINE__);
    k = trace(CML_RULES_MODERN, g, dim3(64, 0, 1), faulty, &a, CML_EINVAL, __LINE__);
    k = trace(CML_RULES_MODERN, g, dim3(2048, 1, 1), faulty, &a, CML_EINVAL, __LINE__);
    k = trace(CML_RULES_MODERN, g, dim3(32, 32, 2), faulty, &a, CML_EINVAL, __LINE__);
    k = trace(CML_RULES_MODERN, g, dim3(1, 1, 65), faulty, &a, CML_EINVAL, __LINE__);
    k = trace(CML_RULES_MODERN, dim3(1, 65536, 1), b, faulty, &a, CML_EINVAL, __LINE__);
    k = trace(CML_RULES_COUNT, g, b, faulty, &a, CML_EINVAL, __LINE__);
    k = trace(CML_RULES_MODERN, g, b, NULL, &a, CML_EINVAL, __LINE__);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, g, b, faulty, &a, NULL) == CML_EINVAL);
    /* A kernel that emits nothing: OK, all zero. */
    k = trace(CML_RULES_MODERN, g, b, null_emitter, NULL, CML_OK, __LINE__);
    CHECK(all_zero(&k));
}

int main(void)
{
    test_read_offset();
    test_read_offset_against_direct();
    test_2d();
    test_3d_block();
    test_divergent_loop();
    test_branches();
    test_other_spaces();
    test_errors();
    return cml_test_summary("test_model_trace");
}
