/*
 * Experiments 3-7 on the CPU: every experiment runs with its defaults on a
 * model-only plan; hand-derived figures (sectors per request, efficiency)
 * come out of the records; and for every mirror, the O(1) traced model the
 * experiment computes (cml_exp_trace_1d with the head/tail counts each file
 * claims) equals a trace of the full grid, at small sizes that are not
 * multiples of the block, with offsets and windows reaching the array ends.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/aos_soa/aos_soa_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "experiments/parallelism/parallelism_body.h"
#include "experiments/readonly/readonly_body.h"
#include "experiments/stride/stride_body.h"
#include "experiments/unroll/unroll_body.h"
#include "experiment_test_util.h"
#include "test_util.h"

static const cml_experiment *const all[] = {&cml_exp_aos_soa, &cml_exp_unroll,
                                            &cml_exp_parallelism, &cml_exp_stride,
                                            &cml_exp_readonly};

/* The one record of a run that must produce exactly one. */
static const cml_record *only(const cml_results *r)
{
    CHECK_EQ_U64(r->count, 1);
    return r->count ? &r->items[0] : NULL;
}

/* ---- defaults ---------------------------------------------------------- */

static void test_defaults(void)
{
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        const cml_experiment *x = all[k];
        cml_results r;
        cml_status st = run_model(x, NULL, &r);
        if (st)
            fprintf(stderr, "%s defaults: %s\n", x->key, cml_status_str(st));
        CHECK(st == CML_OK);
        CHECK(r.count > 0);
        for (size_t i = 0; i < r.count; i++) {
            const cml_record *rec = &r.items[i];
            if (rec->state != CML_REC_OK)
                fprintf(stderr, "%s %s: %s\n", x->key, rec->variant, rec->note);
            CHECK(rec->state == CML_REC_OK);
            CHECK(rec->has_model);
            CHECK(rec->bytes_read > 0 && rec->bytes_written > 0);
            CHECK(rec->finding[0] != '\0');
            CHECK(!rec->measured);
        }
        /* the tour's settings parse and run too */
        cml_results_free(&r);
        st = run_model(x, x->tour, &r);
        CHECK(st == CML_OK);
        CHECK(r.count > 0);
        cml_results_free(&r);
        /* the GPU run measures the model's own records */
        CHECK(x->variant != NULL && x->measure != NULL);
        CHECK(x->noptions <= CML_MAX_PARAMS);
    }
}

/* ---- hand-derived figures ---------------------------------------------- */

static double spr(const cml_record *rec, cml_class c)
{
    return cml_exp_spr(rec, c);
}

static double eff(const cml_record *rec, cml_rules r, cml_class c)
{
    return cml_exp_eff(rec, r, c);
}

static void expect_ld(const char *settings, const cml_experiment *x, double want_spr,
                      double want_eff)
{
    cml_results r;
    CHECK(run_model(x, settings, &r) == CML_OK);
    const cml_record *rec = only(&r);
    if (rec) {
        if (spr(rec, CML_CLASS_GLOBAL_LD) != want_spr ||
            eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD) != want_eff)
            fprintf(stderr, "%s %s: %.4f sectors/request, %.4f efficiency\n", x->key, settings,
                    spr(rec, CML_CLASS_GLOBAL_LD), eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD));
        CHECK_NEAR(spr(rec, CML_CLASS_GLOBAL_LD), want_spr, 1e-12);
        CHECK_NEAR(eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD), want_eff, 1e-12);
    }
    cml_results_free(&r);
}

static void test_aos_soa_figures(void)
{
    /* AoS {x, y}, one field: a warp's 32 x's span 256 bytes = 8 sectors, half used. */
    expect_ld("layout=aos fields=2 touched=1 n=4096 block=128", &cml_exp_aos_soa, 8.0, 0.5);
    /* Both fields (the textbook): still 8 sectors and 50% per load instruction. */
    expect_ld("layout=aos fields=2 touched=2 n=4096 block=128", &cml_exp_aos_soa, 8.0, 0.5);
    expect_ld("layout=aos fields=4 touched=1 n=4096 block=128", &cml_exp_aos_soa, 16.0, 0.25);
    expect_ld("layout=aos fields=8 touched=1 n=4096 block=128", &cml_exp_aos_soa, 32.0, 0.125);
    expect_ld("layout=soa fields=2 touched=1 n=4096 block=128", &cml_exp_aos_soa, 4.0, 1.0);
    expect_ld("layout=soa fields=8 touched=2 n=4096 block=128", &cml_exp_aos_soa, 4.0, 1.0);

    /* Fermi, cached loads: AoS of two floats touching one field is the
     * textbook's 50% (two 128-byte lines per request). */
    cml_results r;
    CHECK(run_model(&cml_exp_aos_soa, "layout=aos fields=2 touched=1 n=4096 block=128", &r) ==
          CML_OK);
    const cml_record *rec = only(&r);
    if (rec) {
        CHECK_NEAR(eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD), 0.5, 1e-12);
        CHECK_EQ_U64(rec->bytes_read, 4 * 4096);
        CHECK_EQ_U64(rec->bytes_written, 4 * 4096);
        /* the stores also only fill half of each sector */
        CHECK_NEAR(spr(rec, CML_CLASS_GLOBAL_ST), 8.0, 1e-12);
        CHECK_STR_CONTAINS(rec->finding, "AoS");
    }
    cml_results_free(&r);

    /* T > F is skipped: fields=2 touched=1,2,4 gives two records */
    CHECK(run_model(&cml_exp_aos_soa, "layout=aos fields=2 touched=1,2,4 n=1024", &r) == CML_OK);
    CHECK_EQ_U64(r.count, 2);
    cml_results_free(&r);
}

static void test_unroll_figures(void)
{
    /* The same data in every variant; threads shrink by U, requests do not. */
    double per_thread[3];
    static const char *const set[] = {
        "unroll=1 width=4 offset=0 n=65536 block=128",
        "unroll=2 width=4 offset=0 n=65536 block=128",
        "unroll=4 width=4 offset=0 n=65536 block=128",
    };
    for (int k = 0; k < 3; k++) {
        cml_results r;
        CHECK(run_model(&cml_exp_unroll, set[k], &r) == CML_OK);
        const cml_record *rec = only(&r);
        per_thread[k] = 0;
        if (rec) {
            const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
            CHECK_EQ_U64(ld->requests, 2 * 65536 / 32);
            CHECK_EQ_U64(rec->grid * rec->block, 65536u >> k);
            per_thread[k] = (double)ld->requests / (double)(rec->grid * rec->block);
            CHECK_NEAR(spr(rec, CML_CLASS_GLOBAL_LD), 4.0, 1e-12);
        }
        cml_results_free(&r);
    }
    CHECK_NEAR(per_thread[1], 2 * per_thread[0], 1e-12);
    CHECK_NEAR(per_thread[2], 4 * per_thread[0], 1e-12);

    /* float4: a warp reads 512 contiguous bytes, 16 sectors, all used */
    expect_ld("unroll=1 width=16 offset=0 n=65536 block=128", &cml_exp_unroll, 16.0, 1.0);
    expect_ld("unroll=4 width=16 offset=0 n=65536 block=128", &cml_exp_unroll, 16.0, 1.0);
    expect_ld("unroll=2 width=8 offset=0 n=65536 block=128", &cml_exp_unroll, 8.0, 1.0);

    /* unroll=3 has no kernel: the parameter itself is refused (exit 2 in the CLI) */
    cml_results r;
    CHECK(run_model(&cml_exp_unroll, "unroll=3 width=4 offset=0 n=4096", &r) == CML_EINVAL);
    CHECK(run_model(&cml_exp_unroll, "unroll=1 width=12 offset=0 n=4096", &r) == CML_EINVAL);
}

static void test_parallelism_figures(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_parallelism, "mode=one,gridstride block=32,1024 n=1048576", &r) ==
          CML_OK);
    CHECK_EQ_U64(r.count, 4); /* one/32, one/1024, gridstride/32, gridstride/1024 */
    if (r.count == 4) {
        /* the same traffic in both modes, coalesced */
        for (int k = 0; k < 2; k++)
            CHECK(memcmp(&r.items[k].model, &r.items[k + 2].model, sizeof r.items[k].model) ==
                  0);
        CHECK_NEAR(spr(&r.items[0], CML_CLASS_GLOBAL_LD), 4.0, 1e-12);
        CHECK_EQ_U64(r.items[0].grid, 1048576 / 32);
        CHECK_EQ_U64(r.items[1].grid, 1048576 / 1024);
        /* grid-stride with an H100's defaults: 132 SMs x 32 blocks of 32
         * threads (the blocks-per-SM cap: half the SM's 2048 threads), and
         * 132 x 2 blocks of 1024 */
        CHECK_EQ_U64(r.items[2].grid, 132 * 32);
        CHECK_EQ_U64(r.items[3].grid, 132 * 2);
        CHECK_STR_CONTAINS(r.items[2].finding, "blocks-per-SM limit");
        CHECK(strstr(r.items[3].finding, "blocks-per-SM limit") == NULL);
    }
    /* a grid-stride grid never exceeds one block per block of elements */
    cml_results_free(&r);
    CHECK(run_model(&cml_exp_parallelism, "mode=gridstride block=256 n=1000", &r) == CML_OK);
    const cml_record *rec = only(&r);
    if (rec)
        CHECK_EQ_U64(rec->grid, 4);
    cml_results_free(&r);
}

static void test_stride_figures(void)
{
    expect_ld("pattern=stride stride=1 n=65536", &cml_exp_stride, 4.0, 1.0);
    expect_ld("pattern=stride stride=2 n=65536", &cml_exp_stride, 8.0, 0.5);
    expect_ld("pattern=stride stride=4 n=65536", &cml_exp_stride, 16.0, 0.25);
    expect_ld("pattern=stride stride=32 n=65536", &cml_exp_stride, 32.0, 0.125);
    expect_ld("pattern=broadcast n=65536", &cml_exp_stride, 1.0, 0.125);
    expect_ld("pattern=gather window=32 n=65536", &cml_exp_stride, 4.0, 1.0);
    expect_ld("pattern=gather window=1024 n=65536", &cml_exp_stride, 32.0, 0.125);
    expect_ld("pattern=gather window=0 n=70000", &cml_exp_stride, 32.0, 0.125);

    cml_results r;
    /* strided and scattered stores */
    CHECK(run_model(&cml_exp_stride, "pattern=stride-write,scatter stride=4 window=1024 n=65536",
                    &r) == CML_OK);
    CHECK_EQ_U64(r.count, 2);
    if (r.count == 2) {
        CHECK_NEAR(spr(&r.items[0], CML_CLASS_GLOBAL_ST), 16.0, 1e-12);
        CHECK_NEAR(spr(&r.items[0], CML_CLASS_GLOBAL_LD), 4.0, 1e-12);
        CHECK_NEAR(spr(&r.items[1], CML_CLASS_GLOBAL_ST), 32.0, 1e-12);
        CHECK_EQ_U64(r.items[0].bytes_read, 4 * (65536 / 4));
    }
    cml_results_free(&r);

    /* broadcast under Fermi's cached loads: 4 of 128 bytes */
    CHECK(run_model(&cml_exp_stride, "pattern=broadcast n=65536", &r) == CML_OK);
    const cml_record *rec = only(&r);
    if (rec) {
        CHECK_NEAR(eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD), 0.03125, 1e-12);
        CHECK_EQ_U64(rec->bytes_read, 4 * 65536 / 32);
    }
    cml_results_free(&r);

    /* window=0 rounds n down to a power of two */
    CHECK(run_model(&cml_exp_stride, "pattern=scatter window=0 n=70000", &r) == CML_OK);
    rec = only(&r);
    if (rec)
        CHECK_EQ_I64(cml_record_find_param(rec, "n")->value, 65536);
    cml_results_free(&r);

    /* a window that is not a power of two is refused as a parameter */
    CHECK(run_model(&cml_exp_stride, "pattern=gather window=48 n=4096", &r) == CML_EINVAL);
}

static void test_readonly_figures(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_readonly, "pattern=copy,stencil path=ca,cg,nc n=65536", &r) ==
          CML_OK);
    CHECK_EQ_U64(r.count, 6);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        int stencil = i >= 3;
        const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
        CHECK_EQ_U64(ld->requests, (stencil ? 9 : 1) * (uint64_t)cml_div_up(stencil ? 65528 : 65536, 32));
        if (!stencil)
            CHECK_NEAR(spr(rec, CML_CLASS_GLOBAL_LD), 4.0, 1e-12);
        CHECK_EQ_U64(rec->bytes_read, 4 * 65536);
    }
    cml_results_free(&r);

    /* the hot table: 32 lanes on 32 different lines of the table */
    expect_ld("pattern=hot-gather path=nc table=16k n=65536", &cml_exp_readonly, 32.0, 0.125);
    expect_ld("pattern=hot-gather path=ca table=4M n=65536", &cml_exp_readonly, 32.0, 0.125);
}

/* ---- the shared arithmetic -------------------------------------------- */

static void test_helpers(void)
{
    CHECK_EQ_U64(CML_STRIDE_P * CML_STRIDE_P_INV, 1); /* modulo 2^64 */
    /* perm is a bijection of [0, n) and P_INV undoes it, with a partial window */
    static const uint64_t windows[] = {1, 2, 32, 64, 1024};
    const uint64_t n = 3000;
    unsigned char *seen = calloc(n, 1);
    CHECK(seen != NULL);
    for (size_t k = 0; seen && k < sizeof windows / sizeof windows[0]; k++) {
        uint64_t w = windows[k], full = n / w * w, bad = 0;
        memset(seen, 0, n);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t p = cml_stride_perm(i, full, w, CML_STRIDE_P);
            if (p >= n || seen[p] || cml_stride_perm(p, full, w, CML_STRIDE_P_INV) != i)
                bad++;
            else
                seen[p] = 1;
        }
        CHECK_EQ_U64(bad, 0);
    }
    free(seen);
    /* the hot index stays in the table and shifts by whole lines per warp */
    for (uint64_t i = 0; i < 4096; i++) {
        uint64_t m = 4096;
        CHECK(cml_hot_index(i, m) < m);
        if (i >= 32)
            CHECK_EQ_U64((cml_hot_index(i, m) - cml_hot_index(i % 32, m)) % 32, 0);
    }
    /* the stencil of constant 1s is 1 (the coefficients sum to 1) */
    float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(cml_stencil9(ones) == 1.0f);
    CHECK_EQ_U64(cml_aos_soa_pitch(1), 64);
    CHECK_EQ_U64(cml_aos_soa_pitch(64), 64);
    CHECK_EQ_U64(cml_aos_soa_pitch(65), 128);
}

/* ---- the traced model equals the full grid ----------------------------- */

static int same_model(const cml_record *a, const cml_record *b)
{
    return memcmp(a->model, b->model, sizeof a->model) == 0 && a->grid == b->grid &&
           a->block == b->block;
}

static unsigned mismatches;

/* rec_1d: the experiment's trace; full: cml_exp_trace of `fn` over grid. */
static void compare(const char *what, cml_status st1, const cml_record *rec_1d, uint64_t grid,
                    unsigned block, cml_thread_fn fn, const void *args)
{
    cml_record full;
    memset(&full, 0, sizeof full);
    cml_status st2 = cml_exp_trace(&full, cml_dim1(grid), cml_dim1(block), fn, args);
    CHECK(st1 == CML_OK);
    CHECK(st2 == CML_OK);
    if (st1 || st2 || !same_model(rec_1d, &full)) {
        if (mismatches++ < 10)
            fprintf(stderr, "trace mismatch: %s (status %s / %s, grid %llu / %llu)\n", what,
                    cml_status_str(st1), cml_status_str(st2),
                    (unsigned long long)rec_1d->grid, (unsigned long long)full.grid);
        CHECK(0);
    }
}

static const unsigned blocks[] = {32, 96, 128, 100};
#define NBLOCKS (sizeof blocks / sizeof blocks[0])

static void test_trace_aos_soa(void)
{
    static const unsigned fields[] = {1, 2, 3, 4, 8, 16};
    static const uint64_t sizes[] = {1, 31, 1000, 4099, 30011};
    char what[160];
    for (int soa = 0; soa < 2; soa++)
        for (size_t f = 0; f < 6; f++)
            for (unsigned ti = 0; ti < 3; ti++) {
                /* T = 1, about half, all */
                unsigned t = ti == 0 ? 1 : ti == 1 ? (fields[f] + 1) / 2 : fields[f];
                if (ti > 0 && t == (ti == 1 ? 1u : (fields[f] + 1) / 2))
                    continue;
                for (size_t s = 0; s < 5; s++)
                    for (size_t b = 0; b < NBLOCKS; b++) {
                        cml_aos_soa_args a = {sizes[s], cml_aos_soa_pitch(sizes[s]), fields[f], t,
                                              soa};
                        cml_record rec;
                        memset(&rec, 0, sizeof rec);
                        cml_status st = cml_aos_soa_trace(&rec, &a, blocks[b]);
                        snprintf(what, sizeof what, "aos-soa soa=%d F=%u T=%u n=%llu block=%u",
                                 soa, a.fields, t, (unsigned long long)a.n, blocks[b]);
                        compare(what, st, &rec, cml_div_up(a.n, blocks[b]), blocks[b],
                                cml_aos_soa_mirror, &a);
                    }
            }
}

static void test_trace_unroll(void)
{
    static const unsigned unrolls[] = {1, 2, 4}, widths[] = {4, 8, 16};
    static const uint64_t sizes[] = {1, 100, 1000, 3001, 30011};
    char what[160];
    for (size_t u = 0; u < 3; u++)
        for (size_t w = 0; w < 3; w++)
            for (size_t s = 0; s < 5; s++) {
                uint64_t nv = sizes[s];
                const uint64_t offsets[] = {0, 1, 11, 37, 500, nv - 1, nv, nv + 5};
                for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
                    for (size_t b = 0; b < NBLOCKS; b++) {
                        cml_unroll_args a = {nv, offsets[o], unrolls[u], widths[w]};
                        cml_record rec;
                        memset(&rec, 0, sizeof rec);
                        cml_status st = cml_unroll_trace(&rec, &a, blocks[b]);
                        snprintf(what, sizeof what, "unroll U=%u W=%u nv=%llu offset=%llu block=%u",
                                 a.unroll, a.width, (unsigned long long)nv,
                                 (unsigned long long)a.offset, blocks[b]);
                        compare(what, st, &rec, cml_unroll_grid(nv, blocks[b], a.unroll),
                                blocks[b], cml_unroll_mirror, &a);
                    }
            }
}

static void test_trace_parallelism(void)
{
    static const uint64_t sizes[] = {1, 1000, 5003, 30011};
    static const uint64_t grids[] = {1, 3, 7};
    char what[160];
    for (size_t s = 0; s < 4; s++)
        for (size_t b = 0; b < NBLOCKS; b++) {
            cml_parallelism_args one = {sizes[s], 0};
            cml_record rec;
            memset(&rec, 0, sizeof rec);
            cml_status st = cml_parallelism_trace(&rec, &one, blocks[b], 0);
            snprintf(what, sizeof what, "parallelism one n=%llu block=%u",
                     (unsigned long long)sizes[s], blocks[b]);
            compare(what, st, &rec, cml_div_up(sizes[s], blocks[b]), blocks[b],
                    cml_parallelism_mirror, &one);
            /* grid-stride: the real loop over a small grid, iteration by iteration */
            for (size_t g = 0; g < 3; g++) {
                cml_parallelism_args gs = {sizes[s], 1};
                /* the loop's 3 accesses per iteration must fit the tracer's
                 * per-thread limit */
                if (3 * cml_div_up(sizes[s], grids[g] * blocks[b]) > CML_MAX_EMITS)
                    continue;
                memset(&rec, 0, sizeof rec);
                st = cml_parallelism_trace(&rec, &gs, blocks[b], grids[g]);
                snprintf(what, sizeof what, "parallelism gridstride n=%llu block=%u grid=%llu",
                         (unsigned long long)sizes[s], blocks[b], (unsigned long long)grids[g]);
                /* the full trace's grid is the grid-stride grid; compare traffic only */
                cml_record full;
                memset(&full, 0, sizeof full);
                cml_status st2 = cml_exp_trace(&full, cml_dim1(grids[g]), cml_dim1(blocks[b]),
                                               cml_parallelism_mirror, &gs);
                CHECK(st == CML_OK && st2 == CML_OK);
                CHECK(memcmp(rec.model, full.model, sizeof rec.model) == 0);
                CHECK_EQ_U64(rec.grid, grids[g]);
                if (memcmp(rec.model, full.model, sizeof rec.model) != 0)
                    fprintf(stderr, "trace mismatch: %s\n", what);
            }
        }
}

static void test_trace_stride(void)
{
    static const uint64_t strides[] = {1, 2, 3, 8, 33};
    static const uint64_t windows[] = {1, 2, 16, 32, 64, 1024, 4096};
    static const uint64_t sizes[] = {100, 4096, 5003, 30011};
    char what[160];
    for (int p = 0; p < CML_STRIDE_PATTERN_COUNT; p++)
        for (size_t s = 0; s < 4; s++)
            for (size_t b = 0; b < NBLOCKS; b++) {
                int strided = p == CML_STRIDE_READ || p == CML_STRIDE_WRITE;
                int windowed = p == CML_STRIDE_GATHER || p == CML_STRIDE_SCATTER;
                size_t count = strided ? 5 : windowed ? 7 : 1;
                for (size_t v = 0; v < count; v++) {
                    cml_stride_args a = {p, sizes[s], strided ? strides[v] : 0,
                                         windowed ? windows[v] : 0};
                    uint64_t threads = cml_stride_threads(p, a.n, a.stride);
                    cml_record rec;
                    memset(&rec, 0, sizeof rec);
                    cml_status st = cml_stride_trace(&rec, &a, blocks[b]);
                    snprintf(what, sizeof what,
                             "stride pattern=%d n=%llu s=%llu w=%llu block=%u", p,
                             (unsigned long long)a.n, (unsigned long long)a.stride,
                             (unsigned long long)a.window, blocks[b]);
                    compare(what, st, &rec, cml_div_up(threads, blocks[b]), blocks[b],
                            cml_stride_mirror, &a);
                }
            }
}

static void test_trace_readonly(void)
{
    static const uint64_t sizes[] = {9, 100, 4099, 20000};
    static const uint64_t tables[] = {32, 1024, 4096};
    static const cml_cache caches[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_NC};
    char what[160];
    for (int p = 0; p < CML_RO_PATTERN_COUNT; p++)
        for (size_t c = 0; c < 3; c++)
            for (size_t s = 0; s < 4; s++)
                for (size_t t = 0; t < (p == CML_RO_HOT_GATHER ? 3u : 1u); t++)
                    for (size_t b = 0; b < NBLOCKS; b++) {
                        cml_readonly_args a = {p, caches[c], sizes[s],
                                               p == CML_RO_HOT_GATHER ? tables[t] : 0};
                        uint64_t threads = cml_readonly_threads(p, a.n);
                        cml_record rec;
                        memset(&rec, 0, sizeof rec);
                        cml_status st = cml_readonly_trace(&rec, &a, blocks[b]);
                        snprintf(what, sizeof what, "read-only pattern=%d cache=%d n=%llu m=%llu "
                                 "block=%u", p, (int)a.cache, (unsigned long long)a.n,
                                 (unsigned long long)a.m, blocks[b]);
                        compare(what, st, &rec, cml_div_up(threads, blocks[b]), blocks[b],
                                cml_readonly_mirror, &a);
                    }
}

/* Every figure of a sampled model within its half-width of the walk's. */
static void check_within(const char *what, const cml_record *s, const cml_record *f)
{
    CHECK(s->sample.warps > 0);
    int inside = 1;
    for (int r = 0; r < CML_RULES_COUNT; r++)
        for (int c = 0; c < CML_CLASS_COUNT; c++) {
            const uint64_t *e = (const uint64_t *)(const void *)&s->model[r].cls[c];
            const uint64_t *t = (const uint64_t *)(const void *)&f->model[r].cls[c];
            cml_traffic bound;
            cml_sample_half(s, r, c, &bound);
            const uint64_t *h = (const uint64_t *)(const void *)&bound;
            for (size_t k = 0; k < sizeof(cml_traffic) / sizeof(uint64_t); k++)
                inside &= (e[k] > t[k] ? e[k] - t[k] : t[k] - e[k]) <= h[k];
        }
    CHECK(inside);
    if (!inside)
        fprintf(stderr, "%s: a sampled figure outside its bound\n", what);
}

/* Blocks that are not whole warps where a warp's traffic has no period
 * short enough (a hot-gather warp spans two hash groups; a gather warp may
 * reach into the next window of 2^21): sampled on a large grid, every
 * figure within its stated bound of the walk. */
static void test_sampled_odd_blocks(void)
{
    const uint64_t n = (uint64_t)1 << 21;
    cml_record *s = calloc(1, sizeof *s), *f = calloc(1, sizeof *f);
    CHECK(s && f);
    if (!s || !f) {
        free(s);
        free(f);
        return;
    }
    cml_readonly_args ro = {CML_RO_HOT_GATHER, CML_CACHE_CA, n, 16384 / 4};
    CHECK(cml_readonly_trace(s, &ro, 33) == CML_OK);
    CHECK(cml_exp_trace(f, cml_dim1(cml_div_up(n, 33)), cml_dim1(33), cml_readonly_mirror, &ro) ==
          CML_OK);
    check_within("hot-gather block=33", s, f);
    memset(s, 0, sizeof *s);
    memset(f, 0, sizeof *f);
    cml_stride_args g = {CML_STRIDE_GATHER, n, 1, n};
    CHECK(cml_stride_trace(s, &g, 100) == CML_OK);
    CHECK(cml_exp_trace(f, cml_dim1(cml_div_up(n, 100)), cml_dim1(100), cml_stride_mirror, &g) ==
          CML_OK);
    check_within("gather window=2^21 block=100", s, f);
    free(s);
    free(f);
}

int main(void)
{
    test_helpers();
    test_aos_soa_figures();
    test_unroll_figures();
    test_parallelism_figures();
    test_stride_figures();
    test_readonly_figures();
    test_trace_aos_soa();
    test_trace_unroll();
    test_trace_parallelism();
    test_trace_stride();
    test_trace_readonly();
    test_sampled_odd_blocks();
    test_defaults();
    return cml_test_summary("test_global_mirrors");
}
