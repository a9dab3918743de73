/*
 * The block-shape what-if (src/trace/trace_shape.h): the fit of each
 * instruction's addresses to B + a tx + b ty + c tz, and the shapes judged
 * by the model, on synthetic launches whose figures are derived by hand
 * below (written as traces and read back, trace_test_util.h) and on the
 * committed traces of the lab's own kernels (tests/data/trace/).
 */
#define _XOPEN_SOURCE 700 /* getpid */
#include "trace_test_util.h"
#include "trace/trace_shape.h"
#include "trace/trace_whatif.h"

#define BASE (UINT64_C(1) << 40) /* a global array, aligned as cudaMalloc's */
#define MAXR 64u                 /* records a case writes at most */

/* A synthetic launch: its records, and what the fit made of it. */
typedef struct launch {
    cml_tf_ins ins[MAXR];
    size_t n;
    cml_trace t;
    cml_tf_model m;
    cml_ws_launch sh;
} launch;

/* Thread t's index in a block of shape b. */
static void index_of(unsigned t, const unsigned b[3], unsigned c[3])
{
    c[0] = t % b[0];
    c[1] = t / b[0] % b[1];
    c[2] = t / (b[0] * b[1]);
}

/* Address of thread (tx, ty, tz) of block blk: an instruction's addresses. */
typedef uint64_t (*addr_fn)(uint64_t blk, const unsigned c[3]);

/* Add the records of warps [w0, w1) of block blk at pc: lane l of warp w
 * is thread 32 w + l, at f(blk, its index). */
static void add_warps(launch *L, unsigned space, unsigned op, uint32_t pc, uint64_t blk,
                      const unsigned b[3], uint32_t w0, uint32_t w1, addr_fn f)
{
    for (uint32_t w = w0; w < w1 && L->n < MAXR; w++) {
        cml_tf_ins r = trace_warp(space, op, 4, blk, w, pc);
        for (unsigned l = 0; l < 32u; l++) {
            unsigned c[3];
            index_of(32u * w + l, b, c);
            r.addr[l] = f(blk, c);
        }
        L->ins[L->n++] = r;
    }
}

/* Write, read back, model and fit L (grid and block as given). 0, or -1. */
static int fit(launch *L, const unsigned grid[3], const unsigned block[3])
{
    if (trace_load(L->ins, L->n, grid, block, &L->t, &L->m) != 0)
        return -1;
    const cml_status rc = cml_ws_launch_fit(&L->t.kernel[0], &L->m, &L->sh);
    CHECK_EQ_I64(rc, CML_OK);
    if (rc == CML_OK)
        return 0;
    cml_tf_model_free(&L->m);
    cml_tf_free(&L->t);
    return -1;
}

static void done(launch *L)
{
    cml_ws_launch_free(&L->sh);
    cml_tf_model_free(&L->m);
    cml_tf_free(&L->t);
}

/* The fit of the instruction at pc (NULL, and a failed check, if none). */
static const cml_ws_site *site_at(const launch *L, uint32_t pc)
{
    for (size_t i = 0; i < L->sh.nsites; i++)
        if (L->sh.site[i].site->pc == pc)
            return &L->sh.site[i];
    CHECK(0);
    return NULL;
}

/* The figures of ws in the 2-D shape (x, y) of launch sh, checked to be
 * taken. */
static cml_traffic in_shape(const cml_ws_launch *sh, const cml_ws_site *ws, unsigned x,
                            unsigned y)
{
    const unsigned s[3] = {x, y, 1};
    cml_traffic t;
    CHECK_EQ_I64(cml_ws_shape_traffic(sh, ws, s, &t), 0);
    return t;
}

static uint64_t rows_16(uint64_t blk, const unsigned c[3])
{
    (void)blk;
    return BASE + 4u * (c[1] * 1024u + c[0]);
}

/*
 * (a) A 16 x 16 block reading float A[y * 1024 + x]: a = 4, b = 4096. Each
 * warp covers 2 rows of 16 floats, 2 x 64 B: 1 request, 4 sectors, 8 warps:
 * 32 sectors for 1024 bytes, nothing wasted. In 32 x 8 a warp covers one
 * row of 32 floats (4 sectors), in 8 x 32 four rows of 32 B (4 sectors),
 * in 4 x 64 eight rows of 16 B (8 sectors): no shape is strictly better,
 * so nothing is shown, though all 8 others were judged.
 */
static void test_rows(void)
{
    launch L = {.n = 0};
    const unsigned grid[3] = {1, 1, 1}, block[3] = {16, 16, 1};
    add_warps(&L, CML_TF_GLOBAL, CML_TF_LOAD, 0, 0, block, 0, 8, rows_16);
    if (fit(&L, grid, block) != 0)
        return;
    const cml_ws_site *ws = site_at(&L, 0);
    if (ws) {
        CHECK_EQ_U64(ws->status, CML_WS_FIT);
        CHECK_EQ_I64(ws->coef[0], 4);
        CHECK_EQ_I64(ws->coef[1], 4096);
        CHECK_EQ_U64(ws->pinned, 3);
        CHECK_EQ_U64(ws->blocks, 1);
        CHECK_EQ_U64(ws->before.requests, 8);
        CHECK_EQ_U64(ws->before.sectors, 32);
        CHECK_EQ_U64(ws->waste_before, 0);
        CHECK_EQ_U64(in_shape(&L.sh, ws, 32, 8).sectors, 32);
        CHECK_EQ_U64(in_shape(&L.sh, ws, 8, 32).sectors, 32);
        CHECK_EQ_U64(in_shape(&L.sh, ws, 4, 64).sectors, 64);
    }
    CHECK_EQ_U64(L.sh.fitted, 1);
    CHECK_EQ_U64(L.sh.shapes, 8);
    CHECK(!cml_ws_has_best(&L.sh));
    cml_wi_list wi;
    CHECK_EQ_I64(cml_wi_site(&L.t.kernel[0], &L.m.sites[0], &wi), CML_OK);
    const size_t before = wi.n;
    cml_wi_shape(&L.sh, &L.m.sites[0], &wi);
    CHECK_EQ_U64(wi.n, before);
    CHECK(wi.launch == &L.sh);
    done(&L);
}

/* out[x * 1024 + y], blocks of 32 x 8 on a grid of 1 x 2: y = 8 blockIdx.y + ty. */
static uint64_t transposed(uint64_t blk, const unsigned c[3])
{
    return BASE + 4u * ((uint64_t)c[0] * 1024u + 8u * blk + c[1]);
}

/*
 * (b) The transposed store out[x * 1024 + y] in blocks of 32 x 8, two
 * blocks along y: a = 4096, b = 4; the bases BASE and BASE + 32 (two
 * residues mod 128, a block each). Per warp (8 a block, 16 in all): in
 * 32 x 8 (and 64 x 4, 128 x 2, 256 x 1) 32 lanes on 32 columns, 32
 * sectors: 512; 16 x 16: 16 columns of 2 floats (8 B), 16 sectors: 256;
 * 8 x 32: 8 of 16 B, 8: 128; 4 x 64: 4 of 32 B at 32 w (+ 32), a sector
 * each, 4: 64; 2 x 128: 2 of 64 B, 2 sectors each: 64; 1 x 256: 128 B, 4
 * sectors: 64. The best, the widest of the three, 4 x 64: 512 -> 64
 * sectors, 2048 bytes asked, 14336 -> 0 wasted.
 */
static void test_transposed(void)
{
    launch L = {.n = 0};
    const unsigned grid[3] = {1, 2, 1}, block[3] = {32, 8, 1};
    add_warps(&L, CML_TF_GLOBAL, CML_TF_STORE, 0, 0, block, 0, 8, transposed);
    add_warps(&L, CML_TF_GLOBAL, CML_TF_STORE, 0, 1, block, 0, 8, transposed);
    if (fit(&L, grid, block) != 0)
        return;
    const cml_ws_site *ws = site_at(&L, 0);
    if (!ws) {
        done(&L);
        return;
    }
    CHECK_EQ_U64(ws->status, CML_WS_FIT);
    CHECK_EQ_I64(ws->coef[0], 4096);
    CHECK_EQ_I64(ws->coef[1], 4);
    CHECK_EQ_U64(ws->blocks, 2);
    CHECK_EQ_U64(ws->nbases, 2);
    /* every thread recorded once: the launch's own shape is the record's */
    CHECK_EQ_U64(ws->before.sectors, L.m.sites[0].traffic.sectors);
    CHECK_EQ_U64(ws->before.sectors, 512);
    CHECK_EQ_U64(ws->before.requests, 16);
    CHECK_EQ_U64(ws->waste_before, 14336);
    static const unsigned x[] = {256, 128, 64, 16, 8, 4, 2, 1};
    static const uint64_t sectors[] = {512, 512, 512, 256, 128, 64, 64, 64};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        CHECK_EQ_U64(in_shape(&L.sh, ws, x[i], 256u / x[i]).sectors, sectors[i]);
    CHECK_EQ_U64(L.sh.shapes, 8);
    CHECK(cml_ws_has_best(&L.sh));
    CHECK_EQ_U64(L.sh.best[0], 4);
    CHECK_EQ_U64(L.sh.best[1], 64);
    CHECK_EQ_U64(L.sh.best[2], 1);
    CHECK_EQ_U64(ws->after.requests, 16);
    CHECK_EQ_U64(ws->after.sectors, 64);
    CHECK_EQ_U64(ws->after.requested_bytes, 2048);
    CHECK_EQ_U64(ws->waste_after, 0);
    CHECK_EQ_U64(L.sh.waste_before, 14336);
    CHECK_EQ_U64(L.sh.waste_after, 0);
    /* as the reports show it */
    cml_wi_list wi;
    CHECK_EQ_I64(cml_wi_site(&L.t.kernel[0], &L.m.sites[0], &wi), CML_OK);
    const size_t n = wi.n;
    cml_wi_shape(&L.sh, &L.m.sites[0], &wi);
    CHECK_EQ_U64(wi.n, n + 1u);
    const cml_wi *w = &wi.item[n];
    CHECK_EQ_U64(w->kind, CML_WI_SHAPE);
    CHECK_EQ_U64(w->warps, 16);
    CHECK_EQ_U64(w->of, 16);
    CHECK_EQ_I64(cml_wi_saved(w), 14336);
    char buf[200];
    cml_wi_describe(w, 4, buf, sizeof buf);
    CHECK_STR_EQ(buf, "blocks of 4 x 64 threads instead of 32 x 8 (if each index is blockIdx * "
                      "blockDim + threadIdx per dimension)");
    CHECK_STR_EQ(cml_wi_name(w->kind), "block_shape");
    done(&L);
}

/* out[z][x][y] of 1024-float rows and 65536-byte planes. */
static uint64_t transposed_3d(uint64_t blk, const unsigned c[3])
{
    (void)blk;
    return BASE + 4u * ((uint64_t)c[0] * 1024u + c[1]) + 65536u * c[2];
}

/*
 * A block of 8 x 4 x 2 storing out[z][x][y]: a = 4096, b = 4, c = 65536
 * (warp 1's first lane is thread (0, 0, 1)). The shapes keep bz = 2 and
 * re-group the 32 threads of each layer, one warp each: (32, 1) 32
 * columns, 32 sectors; (16, 2) 16 of 8 B, 16; the launch's (8, 4) 8 of
 * 16 B, 8; (4, 8) 4 of 32 B, 4; (2, 16) and (1, 32), 4. Two warps: 16
 * sectors -> 8 in 4 x 8 x 2 (the widest of the three), 256 -> 0 bytes
 * wasted.
 */
static void test_three_d(void)
{
    launch L = {.n = 0};
    const unsigned grid[3] = {1, 1, 1}, block[3] = {8, 4, 2};
    add_warps(&L, CML_TF_GLOBAL, CML_TF_STORE, 0, 0, block, 0, 2, transposed_3d);
    if (fit(&L, grid, block) != 0)
        return;
    const cml_ws_site *ws = site_at(&L, 0);
    if (ws) {
        CHECK_EQ_U64(ws->status, CML_WS_FIT);
        CHECK_EQ_U64(ws->pinned, 7);
        CHECK_EQ_I64(ws->coef[0], 4096);
        CHECK_EQ_I64(ws->coef[1], 4);
        CHECK_EQ_I64(ws->coef[2], 65536);
        CHECK_EQ_U64(ws->before.sectors, 16);
        const unsigned s16[3] = {16, 2, 2};
        cml_traffic x;
        CHECK_EQ_I64(cml_ws_shape_traffic(&L.sh, ws, s16, &x), 0);
        CHECK_EQ_U64(x.sectors, 32);
        CHECK_EQ_U64(L.sh.shapes, 5);
        CHECK_EQ_U64(L.sh.best[0], 4);
        CHECK_EQ_U64(L.sh.best[1], 8);
        CHECK_EQ_U64(L.sh.best[2], 2);
        CHECK_EQ_U64(ws->after.sectors, 8);
        CHECK_EQ_U64(L.sh.waste_before, 256);
        CHECK_EQ_U64(L.sh.waste_after, 0);
        cml_wi_list wi;
        memset(&wi, 0, sizeof wi);
        cml_wi_shape(&L.sh, ws->site, &wi);
        char buf[200];
        CHECK_EQ_U64(wi.n, 1);
        cml_wi_describe(&wi.item[0], 4, buf, sizeof buf);
        CHECK_STR_EQ(buf, "blocks of 4 x 8 x 2 threads instead of 8 x 4 x 2 (if each index is "
                          "blockIdx * blockDim + threadIdx per dimension)");
    }
    done(&L);
}

/* A 32 x 32 float tile in shared memory: written tile[ty][tx], read
 * tile[tx][ty]. */
static uint64_t tile_row(uint64_t blk, const unsigned c[3])
{
    (void)blk;
    return 128u * c[1] + 4u * c[0];
}

static uint64_t tile_col(uint64_t blk, const unsigned c[3])
{
    (void)blk;
    return 128u * c[0] + 4u * c[1];
}

/*
 * (c) The column read tile[tx][ty] of a 32 x 32 float tile by a 32 x 32
 * block: a = 128, b = 4: lane l of warp w in bank w, 32 wavefronts, 32
 * warps: 1024, 992 conflicts (126976 bytes). In (bx', 1024 / bx') the
 * warp's lanes take min(32, bx') values of tx (one bank, the same for
 * each) and 32 / min(32, bx') of ty (as many banks): 32 / that many banks
 * wavefronts, 1024 for bx' >= 32, 512 for 16, ..., 32 for 1 x 1024: the
 * best, no conflict.
 *
 * With the row write tile[ty][tx] (a = 4, b = 128) in the same launch, the
 * write wants the opposite: in 16 x 64 its lanes take 16 banks of 2 rows,
 * 2 wavefronts; 8 x 128, 4; 4 x 256, 8; 2 x 512, 16; 1 x 1024, 32. Per
 * warp, write + read: 1 + 32 = 33 in 32 x 32 and every bx' >= 32, 2 + 16
 * = 18, 4 + 8 = 12, 8 + 4 = 12, 16 + 2 = 18, 32 + 1 = 33: 1 x 1024 fixes
 * the read and breaks the write, no better in all; the best is 8 x 128
 * (the wider of the two at 12): write 32 -> 128 wavefronts (96 conflicts,
 * 12288 bytes more), read 1024 -> 256 (224), the launch 992 -> 320
 * conflicts, 126976 -> 40960 bytes.
 */
static void test_shared_tile(void)
{
    const unsigned grid[3] = {1, 1, 1}, block[3] = {32, 32, 1};
    launch L = {.n = 0};
    add_warps(&L, CML_TF_SHARED, CML_TF_LOAD, 16, 0, block, 0, 32, tile_col);
    if (fit(&L, grid, block) != 0)
        return;
    const cml_ws_site *ws = site_at(&L, 16);
    if (ws) {
        CHECK_EQ_U64(ws->status, CML_WS_FIT);
        CHECK_EQ_I64(ws->coef[0], 128);
        CHECK_EQ_I64(ws->coef[1], 4);
        CHECK_EQ_U64(ws->before.wavefronts, 1024);
        CHECK_EQ_U64(ws->before.bank_conflicts, 992);
        CHECK_EQ_U64(in_shape(&L.sh, ws, 16, 64).wavefronts, 512);
        CHECK_EQ_U64(in_shape(&L.sh, ws, 2, 512).wavefronts, 64);
        CHECK_EQ_U64(L.sh.best[0], 1);
        CHECK_EQ_U64(L.sh.best[1], 1024);
        CHECK_EQ_U64(ws->after.requests, 32);
        CHECK_EQ_U64(ws->after.wavefronts, 32);
        CHECK_EQ_U64(ws->after.bank_conflicts, 0);
        CHECK_EQ_U64(L.sh.waste_before, 126976);
        CHECK_EQ_U64(L.sh.waste_after, 0);
    }
    done(&L);

    /* records go by block, then warp: each warp's write, then its read */
    launch P = {.n = 0};
    for (uint32_t w = 0; w < 32; w++) {
        add_warps(&P, CML_TF_SHARED, CML_TF_STORE, 0, 0, block, w, w + 1u, tile_row);
        add_warps(&P, CML_TF_SHARED, CML_TF_LOAD, 16, 0, block, w, w + 1u, tile_col);
    }
    if (fit(&P, grid, block) != 0)
        return;
    const cml_ws_site *wr = site_at(&P, 0), *rd = site_at(&P, 16);
    if (wr && rd) {
        CHECK_EQ_U64(P.sh.fitted, 2);
        CHECK_EQ_U64(P.sh.best[0], 8);
        CHECK_EQ_U64(P.sh.best[1], 128);
        CHECK_EQ_U64(wr->before.wavefronts, 32);
        CHECK_EQ_U64(wr->after.wavefronts, 128);
        CHECK_EQ_U64(wr->after.bank_conflicts, 96);
        CHECK_EQ_U64(in_shape(&P.sh, wr, 1, 1024).wavefronts, 1024);
        CHECK_EQ_U64(rd->after.wavefronts, 256);
        CHECK_EQ_U64(rd->after.bank_conflicts, 224);
        CHECK_EQ_U64(P.sh.waste_before, 126976);
        CHECK_EQ_U64(P.sh.waste_after, 40960);
        /* under the write, the shape wastes more: said, not hidden */
        cml_wi_list wi;
        memset(&wi, 0, sizeof wi);
        cml_wi_shape(&P.sh, wr->site, &wi);
        CHECK_EQ_U64(wi.n, 1);
        CHECK_EQ_I64(cml_wi_saved(&wi.item[0]), -12288);
    }
    done(&P);
}

/* A gather: element (37 t) mod 256 of a float array. */
static uint64_t gather(uint64_t blk, const unsigned c[3])
{
    (void)blk;
    return BASE + 4u * ((37u * (16u * c[1] + c[0])) % 256u);
}

/* A[ty * 1024 + k] in a loop over k (the second pass of it: k = 1). */
static uint64_t loop_k0(uint64_t blk, const unsigned c[3])
{
    (void)blk;
    return BASE + 4096u * c[1];
}

static uint64_t loop_k1(uint64_t blk, const unsigned c[3])
{
    return loop_k0(blk, c) + 4u;
}

/* Rows of 1024 floats in block 0, of 2048 in block 1. */
static uint64_t two_pitches(uint64_t blk, const unsigned c[3])
{
    return BASE + (blk ? 1u << 20 : 0u) + 4u * c[0] + (blk ? 8192u : 4096u) * c[1];
}

/* The fit of the only instruction of a 16 x 16 launch of `blocks` blocks
 * whose warps 0..7 of each block read f, optionally issuing it again with g. */
static cml_ws_status status_of(addr_fn f, addr_fn g, unsigned blocks)
{
    launch L = {.n = 0};
    const unsigned grid[3] = {blocks, 1, 1}, block[3] = {16, 16, 1};
    for (unsigned b = 0; b < blocks; b++)
        for (uint32_t w = 0; w < 8; w++) {
            add_warps(&L, CML_TF_GLOBAL, CML_TF_LOAD, 0, b, block, w, w + 1u, f);
            if (g)
                add_warps(&L, CML_TF_GLOBAL, CML_TF_LOAD, 0, b, block, w, w + 1u, g);
        }
    if (fit(&L, grid, block) != 0)
        return CML_WS_FIT; /* reported by the failed check */
    const cml_ws_site *ws = site_at(&L, 0);
    const cml_ws_status st = ws ? ws->status : CML_WS_FIT;
    CHECK(!cml_ws_has_best(&L.sh));
    CHECK_EQ_U64(L.sh.fitted, 0);
    done(&L);
    return st;
}

/*
 * (d) addresses not affine in the thread index: a gather (tx 7 of row 0
 * at element 259 mod 256 = 3, not 7 x 37), and a load issued twice by each
 * thread at two addresses (a loop); (e) blocks whose rows are 1024 and 2048
 * floats apart (b = 4096 in one, 8192 in the other); and a one-dimensional
 * block, which cannot tell what threadIdx.y would add.
 */
static void test_not_applicable(void)
{
    CHECK_EQ_U64(status_of(gather, NULL, 1), CML_WS_NOT_AFFINE);
    CHECK_EQ_U64(status_of(loop_k0, loop_k1, 1), CML_WS_NOT_AFFINE);
    CHECK_EQ_U64(status_of(two_pitches, NULL, 2), CML_WS_BLOCKS_DIFFER);

    launch L = {.n = 0};
    const unsigned grid[3] = {1, 1, 1}, block[3] = {256, 1, 1};
    add_warps(&L, CML_TF_GLOBAL, CML_TF_LOAD, 0, 0, block, 0, 8, rows_16);
    if (fit(&L, grid, block) != 0)
        return;
    const cml_ws_site *ws = site_at(&L, 0);
    if (ws) {
        CHECK_EQ_U64(ws->status, CML_WS_UNPINNED);
        CHECK_EQ_U64(ws->pinned, 1);
        CHECK_EQ_I64(ws->coef[0], 4);
    }
    CHECK(!cml_ws_has_best(&L.sh));
    done(&L);
}

/* The site of the committed launch at pc. */
static const cml_ws_site *committed_at(const cml_ws_launch *sh, uint32_t pc)
{
    for (size_t i = 0; i < sh->nsites; i++)
        if (sh->site[i].site->pc == pc)
            return &sh->site[i];
    CHECK(0);
    return NULL;
}

/*
 * transpose naive-row on 32 x 32 floats in blocks of 32 x 8, a grid of 1 x
 * 4 (test_trace_model.c): the load in[y * 32 + x] (pc 0: a = 4, b = 128)
 * and the store out[x * 32 + y] (pc 16: a = 128, b = 4), the store's block
 * bases 32 bytes apart (4 residues), the load's on whole lines. Per warp,
 * load + store sectors: 4 + 32 in 32 x 8 and every bx' >= 32; 16 x 16:
 * 4 + 16 (rows of 64 B; pairs of y); 8 x 32: 4 + 8; 4 x 64: 8 + 4; 2 x 128:
 * 16 + 4; 1 x 256: 32 + 4. The best, 8 x 32: the store 1024 -> 256 sectors,
 * the load 128 -> 128; the launch 28672 -> 4096 bytes wasted. The same
 * kernel built with line info (naive-row-lines) gives the same.
 */
static void test_committed_transpose(const char *file, uint32_t load_pc, uint32_t store_pc)
{
    cml_trace t;
    cml_tf_model m;
    if (trace_committed(file, &t, &m) != 0)
        return;
    cml_ws_launch sh;
    CHECK_EQ_I64(cml_ws_launch_fit(&t.kernel[0], &m, &sh), CML_OK);
    const cml_ws_site *ld = committed_at(&sh, load_pc), *st = committed_at(&sh, store_pc);
    if (ld && st) {
        CHECK_EQ_U64(ld->status, CML_WS_FIT);
        CHECK_EQ_U64(st->status, CML_WS_FIT);
        CHECK_EQ_I64(ld->coef[0], 4);
        CHECK_EQ_I64(ld->coef[1], 128);
        CHECK_EQ_I64(st->coef[0], 128);
        CHECK_EQ_I64(st->coef[1], 4);
        CHECK_EQ_U64(st->blocks, 4);
        CHECK_EQ_U64(st->nbases, 4);
        CHECK_EQ_U64(ld->nbases, 1);
        CHECK_EQ_U64(ld->before.sectors, ld->site->traffic.sectors);
        CHECK_EQ_U64(st->before.sectors, st->site->traffic.sectors);
        CHECK_EQ_U64(st->before.sectors, 1024);
        CHECK_EQ_U64(in_shape(&sh, st, 16, 16).sectors, 512);
        CHECK_EQ_U64(in_shape(&sh, ld, 4, 64).sectors, 256);
        CHECK_EQ_U64(in_shape(&sh, ld, 1, 256).sectors, 1024);
        CHECK_EQ_U64(sh.fitted, 2);
        CHECK_EQ_U64(sh.shapes, 8);
        CHECK_EQ_U64(sh.best[0], 8);
        CHECK_EQ_U64(sh.best[1], 32);
        CHECK_EQ_U64(st->after.sectors, 256);
        CHECK_EQ_U64(ld->after.sectors, 128);
        CHECK_EQ_U64(sh.waste_before, 28672);
        CHECK_EQ_U64(sh.waste_after, 4096);
    }
    cml_ws_launch_free(&sh);
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

/*
 * The lab's one-dimensional launches: nothing to re-group. Each load and
 * store is affine in threadIdx.x, b unpinned (a block of one row cannot
 * say what threadIdx.y would add); but the shared tile's column read,
 * 128 (t % 32) + 4 (t / 32) of the linear thread index t, which is no
 * plane in it. `col`: that read's pc, or UINT32_MAX for none.
 */
static void test_committed_1d(const char *file, size_t sites, uint32_t col)
{
    cml_trace t;
    cml_tf_model m;
    if (trace_committed(file, &t, &m) != 0)
        return;
    cml_ws_launch sh;
    CHECK_EQ_I64(cml_ws_launch_fit(&t.kernel[0], &m, &sh), CML_OK);
    CHECK_EQ_U64(sh.nsites, sites);
    for (size_t i = 0; i < sh.nsites; i++) {
        const cml_ws_site *ws = &sh.site[i];
        CHECK_EQ_U64(ws->status, ws->site->pc == col ? CML_WS_NOT_AFFINE : CML_WS_UNPINNED);
        if (ws->site->pc != col)
            CHECK_EQ_U64(ws->pinned, 1);
    }
    CHECK_EQ_U64(sh.fitted, 0);
    CHECK(!cml_ws_has_best(&sh));
    cml_ws_launch_free(&sh);
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

int main(void)
{
    test_rows();
    test_transposed();
    test_three_d();
    test_shared_tile();
    test_not_applicable();
    test_committed_transpose("transpose-naive-row.trace", 0, 16);
    test_committed_transpose("naive-row-lines.trace", 0x120, 0x150);
    test_committed_1d("shared-banks-col.trace", 3, 16);
    test_committed_1d("read-offset.trace", 3, UINT32_MAX);
    test_committed_1d("stride.trace", 2, UINT32_MAX);
    return cml_test_summary("test_trace_shape");
}
