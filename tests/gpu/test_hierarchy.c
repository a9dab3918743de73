/*
 * The hierarchy experiment's kernels on a GPU (hierarchy_body.h):
 *  - the pointer chase ends where the host says: K hops from the slot it
 *    started at, through sigma^-1 and sigma, for random and address order,
 *    and the next launch starts where the last one stopped, for one warp
 *    and for a warp on every SM, each naming an SM the device has (no
 *    timing is asserted here: bench/hierarchy_sanity.py checks the cycles
 *    and the clock of a run's records);
 *  - the read kernel's per-thread sums equal sums the host computes from
 *    the fill's formula, for the small-array kernels and the general one
 *    (arrays that are and are not a multiple of a 16-row step); its device
 *    checker agrees and catches a planted wrong sum;
 *  - write and copy fill every word of their output as the host says;
 *  - the tour runs end to end, every record (3 sizes x 2 l2-modes of
 *    reads, 3 chases) present and verified.
 * Without a GPU: "SKIP: <reason>", exit 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab/common.h"
#include "experiments/hierarchy/hierarchy_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "gpu/gpu.h"
#include "gpu_test_util.h"
#include "../test_util.h"

#define SEED 0x77AA000000000005ull

static cml_gpu *g;

static cml_status check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_hier_bw_check(ctx, SEED, d_counters);
}

/* `warps` warps (one a block), warp w starting at position 5 + 1000w of
 * the cycle: each must end K hops on, leave its cursor there, time its
 * hops and name an SM the device has. */
static void test_chase(uint64_t ws, uint64_t hop, int random, int path, uint32_t warps,
                       unsigned sm_count)
{
    cml_hier_perm q;
    cml_hier_perm_make(&q, ws / hop, random, 42 + ws);
    cml_dbuf table = {0}, cursor = {0}, out = {0};
    CHECK(cml_gpu_alloc(g, &table, ws) == CML_OK);
    CHECK(cml_gpu_alloc(g, &cursor, 8 * (size_t)warps) == CML_OK);
    CHECK(cml_gpu_alloc(g, &out, 8 * CML_HIER_CHASE_OUT_WORDS * (size_t)warps) == CML_OK);
    uint64_t *pos = calloc(warps, sizeof *pos), *cur = calloc(warps, sizeof *cur);
    uint64_t *got = calloc((size_t)warps * CML_HIER_CHASE_OUT_WORDS, sizeof *got);
    CHECK(pos && cur && got);
    if (table.ptr && cursor.ptr && out.ptr && pos && cur && got) {
        const uint64_t base = (uint64_t)(uintptr_t)table.ptr;
        CHECK(cml_hier_chase_build(table.ptr, &q, hop / 8) == CML_OK);
        for (uint32_t w = 0; w < warps; w++) {
            pos[w] = (5 + 1000ull * w) % q.m;
            cur[w] = base + hop * cml_hier_perm_apply(&q, pos[w]);
        }
        CHECK(cml_gpu_upload(g, &cursor, cur, 8 * (size_t)warps) == CML_OK);
        cml_hier_chase_args a = {cursor.ptr, out.ptr, 4096, warps, path};
        for (int launch = 0; launch < 2; launch++) {
            CHECK(cml_hier_chase_launch(&a) == CML_OK);
            CHECK(cml_gpu_download(g, got, &out, 8 * CML_HIER_CHASE_OUT_WORDS * (size_t)warps) ==
                  CML_OK);
            CHECK(cml_gpu_download(g, cur, &cursor, 8 * (size_t)warps) == CML_OK);
            for (uint32_t w = 0; w < warps; w++) {
                const uint64_t *o = got + (size_t)w * CML_HIER_CHASE_OUT_WORDS;
                const uint64_t want_start = base + hop * cml_hier_perm_apply(&q, pos[w]);
                pos[w] = (pos[w] + CML_HIER_CHASE_WALKS * 4096) % q.m; /* warm + timed walk */
                const uint64_t want_end = base + hop * cml_hier_perm_apply(&q, pos[w]);
                if (o[0] != want_start || o[1] != want_end)
                    fprintf(stderr,
                            "chase ws=%llu hop=%llu random=%d path=%d warp %u launch %d: start "
                            "%llx end %llx, want %llx %llx\n",
                            (unsigned long long)ws, (unsigned long long)hop, random, path, w,
                            launch, (unsigned long long)o[0], (unsigned long long)o[1],
                            (unsigned long long)want_start, (unsigned long long)want_end);
                CHECK_EQ_U64(o[0], want_start);
                CHECK_EQ_U64(o[1], want_end);
                CHECK_EQ_U64(cur[w], want_end);
                /* The timed loop ran (its cycles written); how many cycles
                 * a load takes is timing: bench/hierarchy_sanity.py. */
                CHECK(o[2] > 0);
                CHECK(o[4] < sm_count);
                CHECK_EQ_U64(o[5], 0);
            }
        }
        /* The per-hop chase from there: every warp's bins count its 4096
         * timed hops, and it leaves its cursor 2 x 4096 on (warm + timed). */
        cml_dbuf hist = {0};
        const size_t nb = (size_t)warps * CML_HIER_HIST_BINS;
        uint32_t *bins = malloc(nb * sizeof *bins);
        CHECK(bins && cml_gpu_alloc(g, &hist, nb * 4) == CML_OK);
        if (bins && hist.ptr) {
            CHECK(cml_gpu_poison(g, &hist) == CML_OK);
            const cml_hier_hist_args h = {cursor.ptr, hist.ptr, 4096, warps, path};
            CHECK(cml_hier_chase_hist_launch(&h) == CML_OK);
            CHECK(cml_gpu_download(g, bins, &hist, nb * 4) == CML_OK);
            CHECK(cml_gpu_download(g, cur, &cursor, 8 * (size_t)warps) == CML_OK);
            for (uint32_t w = 0; w < warps; w++) {
                uint64_t n = 0;
                for (unsigned i = 0; i < CML_HIER_HIST_BINS; i++)
                    n += bins[(size_t)w * CML_HIER_HIST_BINS + i];
                CHECK_EQ_U64(n, 4096);
                pos[w] = (pos[w] + 2 * 4096) % q.m;
                CHECK_EQ_U64(cur[w], base + hop * cml_hier_perm_apply(&q, pos[w]));
            }
            const cml_hier_hist_args bad = {cursor.ptr, hist.ptr, 100, warps, path};
            CHECK(cml_hier_chase_hist_launch(&bad) == CML_EINVAL); /* not whole steps */
        }
        free(bins);
        cml_gpu_free(g, &hist);
    }
    free(pos);
    free(cur);
    free(got);
    cml_gpu_free(g, &table);
    cml_gpu_free(g, &cursor);
    cml_gpu_free(g, &out);
}

/* A launch of `op` over ws bytes on a grid of `grid` blocks walking at
 * least `walk` bytes per array, the blocks sharing the set by `how`
 * (CML_HIER_WHOLE, _PARTITION, _SLICE); the whole output compared with
 * the host. */
static void test_bw(int op, int path, uint64_t ws, unsigned grid, uint64_t walk, int how)
{
    cml_hier_plan p;
    cml_hier_plan_bw(ws, op, grid, CML_HIER_BLOCK, walk, how, &p);
    CHECK(p.rows > 0 && p.stream == (how == CML_HIER_PARTITION) &&
          (p.parts > 0) == (how == CML_HIER_SLICE) &&
          (p.chunk > 0) == (how == CML_HIER_SLICE && op == CML_HIER_READ));
    const unsigned block = cml_hier_bw_block(op, p.chunk);
    const uint64_t words = p.rows * CML_HIER_BLOCK;
    cml_dbuf A = {0}, C = {0}, out = {0};
    if (op != CML_HIER_WRITE) {
        CHECK(cml_gpu_alloc(g, &A, words * 4) == CML_OK);
        CHECK(A.ptr && cml_gpu_fill_f32(g, &A, words, SEED) == CML_OK);
    }
    if (op != CML_HIER_READ)
        CHECK(cml_gpu_alloc(g, &C, words * 4) == CML_OK);
    else
        CHECK(cml_gpu_alloc(g, &out, (size_t)p.grid * block * 4) == CML_OK);
    cml_dbuf *res = op == CML_HIER_READ ? &out : &C;
    if (res->ptr && (op == CML_HIER_WRITE || A.ptr)) {
        CHECK(cml_gpu_poison(g, res) == CML_OK);
        cml_hier_bw_args a = {A.ptr, C.ptr, out.ptr, p.rows, p.per_block, p.grid, 0xC0FFEEu,
                              op, path, p.stream, p.parts, p.chunk, 1};
        CHECK(cml_hier_bw_launch(&a) == CML_OK);
        char what[96];
        snprintf(what, sizeof what, "op=%d path=%d ws=%llu grid=%u per_block=%llu parts=%llu",
                 op, path, (unsigned long long)ws, p.grid, (unsigned long long)p.per_block,
                 (unsigned long long)p.parts);
        if (op == CML_HIER_READ) {
            const uint64_t n = (uint64_t)p.grid * block;
            const uint64_t loads = p.per_block * CML_HIER_BLOCK / block; /* a thread's */
            uint32_t *want = malloc(n * sizeof *want);
            CHECK(want != NULL);
            if (want && fetch(g, &out, n * 4)) {
                /* Walk every block's rows, as the kernel is meant to. */
                for (uint64_t b = 0; b < p.grid; b++)
                    for (uint64_t t = 0; t < block; t++) {
                        uint32_t acc = 0;
                        for (uint64_t j = 0; j < loads; j++)
                            acc += cml_hier_input_word(
                                SEED, p.chunk ? cml_hier_chunk_word(b, t, p.parts, p.chunk, j)
                                              : cml_hier_word(p.stream, 0, b, t, p.grid,
                                                              p.rows, j));
                        want[b * block + t] = acc;
                    }
                compare_words(what, "sums", n, ref_want, want);
                check_checker_bytes(g, what, check_cb, &a, &out, 4, 4, 4 * (n / 3), SIZE_MAX, 0);
            }
            free(want);
        } else if (fetch(g, &C, words * 4)) {
            uint32_t *want = malloc(words * sizeof *want);
            CHECK(want != NULL);
            for (uint64_t i = 0; want && i < words; i++)
                want[i] = op == CML_HIER_WRITE ? cml_hier_write_value(i, 0xC0FFEEu)
                                               : cml_hier_input_word(SEED, i);
            if (want) {
                compare_words(what, "words", words, ref_want, want);
                check_checker_bytes(g, what, check_cb, &a, &C, 4, 4, 4 * (words - 1), SIZE_MAX,
                                    0);
            }
            free(want);
        }
    }
    cml_gpu_free(g, &A);
    cml_gpu_free(g, &C);
    cml_gpu_free(g, &out);
}

static void test_tour(void)
{
    cml_param_values pv;
    tour_params(&cml_exp_hierarchy, &pv);
    cml_plan plan;
    gpu_test_plan(&plan, g);
    /* Under compute-sanitizer every access is checked: short launches. */
    if (getenv("CML_QUICK_TEST")) {
        char err[256];
        CHECK(cml_param_set(&pv, "walk", "1M", err, sizeof err) == CML_OK);
        CHECK(cml_param_set(&pv, "hops", "256", err, sizeof err) == CML_OK);
    }
    cml_results r;
    tour_run(&cml_exp_hierarchy, &plan, &pv, &r);
    CHECK_EQ_U64(r.count, 3 * 2 + 3); /* ws=16K,4M,256M op=read,chase path=ca */
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        check_tour_record(&cml_exp_hierarchy, rec);
        CHECK_STR_CONTAINS(rec->finding, "Measured");
        printf("%-48s %10.1f GB/s  %s\n", rec->variant, rec->bandwidth_gbs, rec->finding);
    }
    cml_results_free(&r);
}

int main(void)
{
    int rc = gpu_test_open(&g, "a device is present but cannot be opened");
    if (rc)
        return rc;
    const unsigned sms = (unsigned)cml_gpu_facts(g)->sm_count;
    test_chase(64 * 1024, 64, 1, CML_HIER_CA, 1, sms);
    test_chase(40 * 1024, 128, 0, CML_HIER_CG, 3, sms);
    test_chase(1024 * 1024, 8, 1, CML_HIER_NC, sms, sms); /* as the experiment runs it */
    /* 16 rows (the least), a multiple of a step, and not. */
    test_bw(CML_HIER_READ, CML_HIER_CA, 16 * 1024, 4, 64 * 1024, CML_HIER_WHOLE);
    test_bw(CML_HIER_READ, CML_HIER_CA, 64 * 1024, 5, 256 * 1024, CML_HIER_WHOLE);
    test_bw(CML_HIER_READ, CML_HIER_CG, 37 * 1024, 6, 64 * 1024, CML_HIER_WHOLE);
    test_bw(CML_HIER_WRITE, CML_HIER_CA, 101 * 1024, 7, 16 * 1024, CML_HIER_WHOLE);
    test_bw(CML_HIER_COPY, CML_HIER_CA, 200 * 1024, 9, 16 * 1024, CML_HIER_WHOLE);
    /* Partitioned, rows a multiple of the grid's and not. */
    test_bw(CML_HIER_READ, CML_HIER_NC, 64 * 1024, 4, 256 * 1024, CML_HIER_PARTITION);
    test_bw(CML_HIER_READ, CML_HIER_CG, 37 * 1024, 6, 100 * 1024, CML_HIER_PARTITION);
    test_bw(CML_HIER_WRITE, CML_HIER_CA, 101 * 1024, 7, 300 * 1024, CML_HIER_PARTITION);
    test_bw(CML_HIER_COPY, CML_HIER_CA, 200 * 1024, 9, 256 * 1024, CML_HIER_PARTITION);
    /* Sliced reads, gpu-l2-cache's chunks (cml_hier_plan_bw's rule): 16
     * KiB, one piece read 32 times by one block; 64 KiB, one chunk of 4
     * pieces read 8 times; 2 MiB, 4 chunks of 32 pieces, 8 blocks; 528
     * KiB, 33 pieces: 3 chunks of 11, a block reading 4 of them, its own
     * and the next three (44 pieces, a whole number of 16-load steps), 6
     * blocks. Sliced writes and copies, a
     * block of 256 threads a "SM" here, the grid cut to their parts (37
     * rows: no 2 equal parts, one of 37 rows, one block; 1024 rows on 132:
     * 64 parts of 16; a 200 KiB copy: 100 rows, 5 parts of 20). */
    test_bw(CML_HIER_READ, CML_HIER_CA, 16 * 1024, 5, 16 * 1024, CML_HIER_SLICE);
    test_bw(CML_HIER_READ, CML_HIER_CA, 64 * 1024, 5, 256 * 1024, CML_HIER_SLICE);
    test_bw(CML_HIER_READ, CML_HIER_CG, 2048 * 1024, 8, 4096 * 1024, CML_HIER_SLICE);
    test_bw(CML_HIER_READ, CML_HIER_NC, 528 * 1024, 2, 3 * 1024 * 1024, CML_HIER_SLICE);
    test_bw(CML_HIER_WRITE, CML_HIER_CA, 37 * 1024, 7, 100 * 1024, CML_HIER_SLICE);
    test_bw(CML_HIER_WRITE, CML_HIER_CA, 1024 * 1024, 132, 4 * 1024 * 1024, CML_HIER_SLICE);
    test_bw(CML_HIER_COPY, CML_HIER_CA, 200 * 1024, 9, 256 * 1024, CML_HIER_SLICE);
    test_tour();
    gpu_test_close(g);
    return cml_test_summary("gpu_test_hierarchy");
}
