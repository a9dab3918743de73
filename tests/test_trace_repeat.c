/*
 * The exact shortcut of repeating grids (src/lab/trace_repeat.c)
 * and the warp-level tracer under it (cml_trace_warps): for blocks that are
 * not whole warps (33, 47, 100, 1000, 1023 threads: a partial last warp in
 * every block, and consecutive blocks sitting differently on the lines) the
 * shortcut's records are IDENTICAL to a walk of every block, field by
 * field, the model under both rule sets and the cache levels; in 1-D
 * (read-offset and write-offset through the run engine) and in 2-D (rows
 * with a pitch, warps straddling rows, guards on both edges). A wrong
 * claim is caught, not turned into a wrong figure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab/common.h"
#include "experiments/offset/offset_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "test_util.h"

/* ---- the records must be equal, field by field ------------------------------ */

static unsigned mismatches;

static void check_same(const char *what, const cml_record *a, const cml_record *b)
{
    int same = memcmp(a->model, b->model, sizeof a->model) == 0 && a->grid == b->grid &&
               a->block == b->block && a->has_levels == b->has_levels &&
               memcmp(&a->levels, &b->levels, sizeof a->levels) == 0;
    CHECK(same);
    if (!same && mismatches++ < 10) {
        const cml_traffic *x = &a->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
        const cml_traffic *y = &b->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
        fprintf(stderr, "mismatch: %s (model %d, levels %d; store sectors %llu / %llu, dram "
                "read %llu / %llu)\n",
                what, memcmp(a->model, b->model, sizeof a->model) != 0,
                memcmp(&a->levels, &b->levels, sizeof a->levels) != 0,
                (unsigned long long)x->sectors, (unsigned long long)y->sectors,
                (unsigned long long)a->levels.dram_read_bytes,
                (unsigned long long)b->levels.dram_read_bytes);
        for (int r = 0; r < CML_RULES_COUNT; r++)
            for (int c = 0; c < CML_CLASS_COUNT; c++) {
                const uint64_t *u = (const void *)&a->model[r].cls[c],
                               *v = (const void *)&b->model[r].cls[c];
                for (size_t f = 0; f < sizeof(cml_traffic) / 8; f++)
                    if (u[f] != v[f])
                        fprintf(stderr, "  rules %d class %d field %zu: %llu / %llu\n", r, c,
                                f, (unsigned long long)u[f], (unsigned long long)v[f]);
            }
        const unsigned char *p = (const void *)&a->levels, *q = (const void *)&b->levels;
        for (size_t i = 0; i < sizeof a->levels; i += 8)
            if (memcmp(p + i, q + i, 8))
                fprintf(stderr, "  levels differ at byte %zu\n", i);
    }
}

/* ---- 1-D: the offset experiments through the engine ------------------------- */

static void test_offset_odd_blocks(void)
{
    static const unsigned blocks[] = {33, 47, 100, 96, 1000, 1023};
    static const uint64_t sizes[] = {20011, 65536, 300007};
    static const uint64_t offsets[] = {0, 1, 11, 33, 200};
    static const char *const load_paths[] = {"ca", "cg", "nc"};
    static const char *const store_paths[] = {"wb", "cg", "cs"};
    static const cml_cache load_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_NC};
    static const cml_cache store_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_CS};
    char settings[160], what[200];
    for (int write = 0; write < 2; write++)
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
                    const size_t p = (b + s + o) % 3; /* every path, not every combination */
                    snprintf(settings, sizeof settings, "offset=%llu path=%s block=%u n=%llu",
                             (unsigned long long)offsets[o],
                             write ? store_paths[p] : load_paths[p], blocks[b],
                             (unsigned long long)sizes[s]);
                    cml_results r;
                    const cml_experiment *x =
                        write ? &cml_exp_write_offset : &cml_exp_read_offset;
                    CHECK(run_model(x, settings, &r) == CML_OK);
                    CHECK_EQ_U64(r.count, 1);
                    if (r.count == 1) {
                        cml_offset_args a = {sizes[s], offsets[o],
                                             write ? store_cache[p] : load_cache[p], write};
                        cml_record full;
                        memset(&full, 0, sizeof full);
                        CHECK(cml_exp_trace(&full, cml_dim1(cml_div_up(sizes[s], blocks[b])),
                                            cml_dim1(blocks[b]), cml_offset_mirror,
                                            &a) == CML_OK);
                        snprintf(what, sizeof what, "%s %s", x->key, settings);
                        CHECK(r.items[0].state == CML_REC_OK);
                        check_same(what, &r.items[0], &full);
                    }
                    cml_results_free(&r);
                }
}

/* A block of 33 repeats after 32 blocks: the shortcut traces a handful of
 * blocks for a grid of 30,000 (counted, so a fall-back to the whole walk
 * cannot pass unseen). */
static void test_offset_traced_blocks(void)
{
    cml_offset_args a = {33u * 30000u, 11, CML_CACHE_CA, 1};
    const uint64_t nblocks = 30000;
    const cml_exp_axis axes[3] = {cml_exp_axis_ends(nblocks, 1, cml_exp_line_period(4 * 33), 3),
                                  cml_exp_axis_ends(1, 0, 1, 0), cml_exp_axis_ends(1, 0, 1, 0)};
    cml_record rec, full;
    memset(&rec, 0, sizeof rec);
    memset(&full, 0, sizeof full);
    uint64_t traced = 0;
    CHECK(cml_exp_trace_axes(&rec, cml_dim1(nblocks), cml_dim1(33), axes, cml_offset_mirror, &a,
                             &traced) == CML_OK);
    /* 1 head + 32 kinds + 3 tail, and three pairs checked */
    CHECK_EQ_U64(traced, 1 + 32 + 3 + 6);
    CHECK(cml_exp_trace(&full, cml_dim1(nblocks), cml_dim1(33), cml_offset_mirror, &a) ==
          CML_OK);
    check_same("write-offset block=33 n=990000 offset=11", &rec, &full);
    /* figures the shortcut must reproduce: every block a warp of 32 lanes
     * and one of 1, save the last block's one-lane warp (thread n-1, past
     * the guard: no instruction); every thread but the last 11 stores 4
     * bytes of its own */
    const cml_traffic *st = &rec.model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
    CHECK_EQ_U64(st->instructions, 2 * nblocks - 1);
    CHECK_EQ_U64(st->requested_bytes, 4 * (33u * 30000u - 11u));
}

/* ---- 2-D: rows with a pitch, guards on both edges --------------------------- */

typedef struct pitched {
    uint64_t width, height, pitch; /* elements */
    unsigned elem;
} pitched;

static void pitched_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const pitched *p = vargs;
    const uint64_t x = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    const uint64_t y = (uint64_t)t->bid.y * t->bdim.y + t->tid.y;
    if (x >= p->width || y >= p->height)
        return;
    const uint64_t at = (y * p->pitch + x) * p->elem;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, p->elem, cml_array_base(0) + at);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, p->elem, cml_array_base(1) + at);
}

static void test_pitched_2d(void)
{
    static const unsigned shapes[][2] = {{16, 8}, {32, 8}, {8, 32}, {33, 3}, {100, 2}};
    static const uint64_t widths[] = {777, 1024, 300};
    static const uint64_t heights[] = {555, 64};
    static const unsigned elems[] = {1, 4};
    char what[160];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            for (size_t h = 0; h < sizeof heights / sizeof heights[0]; h++)
                for (size_t e = 0; e < 2; e++) {
                    const unsigned bx = shapes[s][0], by = shapes[s][1];
                    pitched p = {widths[w], heights[h], widths[w] + (w == 2 ? 5 : 0), elems[e]};
                    const cml_dim3 grid = cml_dim2(cml_div_up(p.width, bx),
                                                   cml_div_up(p.height, by));
                    const cml_exp_axis axes[3] = {
                        cml_exp_axis_ends(grid.x, 0, cml_exp_line_period(bx * p.elem),
                                          p.width % bx ? 1 : 0),
                        cml_exp_axis_ends(grid.y, 0,
                                          cml_exp_line_period(by * p.pitch * p.elem),
                                          p.height % by ? 1 : 0),
                        cml_exp_axis_ends(1, 0, 1, 0)};
                    cml_record rec, full;
                    memset(&rec, 0, sizeof rec);
                    memset(&full, 0, sizeof full);
                    uint64_t traced = 0;
                    CHECK(cml_exp_trace_axes(&rec, grid, cml_dim2(bx, by), axes, pitched_mirror,
                                             &p, &traced) == CML_OK);
                    CHECK(cml_exp_trace(&full, grid, cml_dim2(bx, by), pitched_mirror, &p) ==
                          CML_OK);
                    snprintf(what, sizeof what, "pitched %ux%u %llux%llu pitch %llu elem %u", bx,
                             by, (unsigned long long)p.width, (unsigned long long)p.height,
                             (unsigned long long)p.pitch, p.elem);
                    check_same(what, &rec, &full);
                    /* the shapes of pitch2d take the shortcut (the others have
                     * periods as long as these small grids: walked whole) */
                    if (s < 3 && h == 0)
                        CHECK(traced * 4 < (uint64_t)grid.x * grid.y);
                }
}

/* ---- a wrong claim is a failed record, not a wrong figure ------------------- */

/* Block b reads 4 bytes at a place that moves by b*b*4 bytes: no period. */
static void squares_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)vargs;
    const uint64_t b = t->bid.x;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
             cml_array_base(0) + 4 * (b * b * 37u + t->tid.x * (b % 3u + 1u)));
}

static void test_wrong_claim(void)
{
    cml_record rec;
    memset(&rec, 0, sizeof rec);
    CHECK(cml_exp_trace_1d_period(&rec, 1000, 64, 0, 0, 4, squares_mirror, NULL) == CML_EINVAL);
    CHECK(rec.state == CML_REC_FAILED);
    CHECK_STR_CONTAINS(rec.note, "repeating-block claim is wrong");
    /* runs that do not add up to the grid */
    cml_exp_axis bad = cml_exp_axis_ends(10, 0, 1, 0);
    const cml_exp_axis axes[3] = {bad, cml_exp_axis_ends(1, 0, 1, 0),
                                  cml_exp_axis_ends(1, 0, 1, 0)};
    memset(&rec, 0, sizeof rec);
    CHECK(cml_exp_trace_axes(&rec, cml_dim1(11), cml_dim1(32), axes, squares_mirror, NULL,
                             NULL) == CML_EINVAL);
    CHECK(rec.state == CML_REC_FAILED);
}

static void test_line_period(void)
{
    CHECK_EQ_U64(cml_exp_line_period(0), 1);
    CHECK_EQ_U64(cml_exp_line_period(128), 1);
    CHECK_EQ_U64(cml_exp_line_period(4 * 32), 1);
    CHECK_EQ_U64(cml_exp_line_period(4 * 33), 32);
    CHECK_EQ_U64(cml_exp_line_period(4 * 100), 8);
    CHECK_EQ_U64(cml_exp_line_period(4 * 48), 2);
    CHECK_EQ_U64(cml_exp_line_period(777), 128);
    CHECK_EQ_U64(cml_exp_line_period(64), 2);
}

/* ---- cml_trace_warps -------------------------------------------------------- */

static void test_trace_warps(void)
{
    pitched p = {777, 555, 777, 1};
    const cml_dim3 grid = cml_dim2(cml_div_up(777, 16), cml_div_up(555, 8)), block = cml_dim2(16, 8);
    const uint64_t wpb = 4, nwarps = (uint64_t)grid.x * grid.y * wpb;
    uint64_t *ids = malloc(nwarps * sizeof *ids), *twice = malloc(nwarps * sizeof *twice);
    CHECK(ids && twice);
    if (!ids || !twice) {
        free(ids);
        free(twice);
        return;
    }
    /* every warp once, in reverse order: the whole walk's totals */
    for (uint64_t w = 0; w < nwarps; w++)
        ids[w] = nwarps - 1u - w;
    for (int r = 0; r < CML_RULES_COUNT; r++) {
        cml_kernel_traffic all, some;
        memset(&all, 0, sizeof all);
        memset(&some, 0, sizeof some);
        CHECK(cml_trace_kernel((cml_rules)r, grid, block, pitched_mirror, &p, &all) == CML_OK);
        CHECK(cml_trace_warps((cml_rules)r, grid, block, ids, NULL, nwarps, pitched_mirror, &p,
                              &some) == CML_OK);
        CHECK(memcmp(&all, &some, sizeof all) == 0);
    }
    /* a weight of k adds k times: the odd warps with weight 2 against the
     * odd warps listed twice */
    size_t n = 0;
    for (uint64_t w = 1; w < nwarps; w += 2) {
        ids[n] = w;
        twice[n++] = 2;
    }
    cml_kernel_traffic weighted, listed;
    memset(&weighted, 0, sizeof weighted);
    memset(&listed, 0, sizeof listed);
    CHECK(cml_trace_warps(CML_RULES_MODERN, grid, block, ids, twice, n, pitched_mirror, &p,
                          &weighted) == CML_OK);
    CHECK(cml_trace_warps(CML_RULES_MODERN, grid, block, ids, NULL, n, pitched_mirror, &p,
                          &listed) == CML_OK);
    CHECK(cml_trace_warps(CML_RULES_MODERN, grid, block, ids, NULL, n, pitched_mirror, &p,
                          &listed) == CML_OK);
    CHECK(memcmp(&weighted, &listed, sizeof listed) == 0);
    CHECK(weighted.cls[CML_CLASS_GLOBAL_LD].sectors > 0);
    /* a warp outside the grid, and nothing changed */
    cml_kernel_traffic before = weighted;
    ids[0] = nwarps;
    CHECK(cml_trace_warps(CML_RULES_MODERN, grid, block, ids, NULL, 1, pitched_mirror, &p,
                          &weighted) == CML_EINVAL);
    CHECK(memcmp(&before, &weighted, sizeof before) == 0);
    free(ids);
    free(twice);
}

int main(void)
{
    test_line_period();
    test_trace_warps();
    test_offset_traced_blocks();
    test_offset_odd_blocks();
    test_pitched_2d();
    test_wrong_claim();
    return cml_test_summary("test_trace_repeat");
}
