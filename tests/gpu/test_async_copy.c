/*
 * Experiment 21's kernels (src/experiments/async_copy/async_copy_body.h) on a GPU: every
 * method, width and number of stages on both workloads, at sizes whose
 * tiles do not divide evenly among the blocks (so the rings wrap and the
 * last blocks stop early), with the grid the occupancy calculator gives and
 * with the residency forced to one block per SM; the WHOLE output is
 * downloaded and compared bit for bit with a host reference written here,
 * independently of the experiment's own check. Variants the device cannot
 * run are skipped (the experiment waives them). Then the tour runs through
 * the engine: every record verified (or waived on an older GPU with its
 * reason), with its registers, occupancy and, for the async paths, the
 * comparison with the register path. Without a GPU: "SKIP: <reason>", 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "experiments/async_copy/async_copy_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "gpu/gpu.h"
#include "gpu_test_util.h"
#include "../experiment_test_util.h"
#include "../test_util.h"

#define SEED 0x5EEDu

static cml_gpu *g;
static int quick;

/* reduce: 3001 tiles (a prime: never a multiple of the grid) */
#define REDUCE_N (3001u * CML_AC_TILE_FLOATS)
/* transpose: 1440 x 1440, 45 x 45 = 2025 tiles */
#define SIDE 1440u

static double *tile_sums;    /* the host's sum of every reduce tile */
static uint32_t *transposed; /* the host's transpose of in[] */

static void host_references(void)
{
    tile_sums = malloc(3001 * sizeof *tile_sums);
    transposed = malloc((size_t)SIDE * SIDE * sizeof *transposed);
    CHECK(tile_sums && transposed);
    if (!tile_sums || !transposed)
        return;
    for (uint64_t t = 0; t < 3001; t++) {
        double s = 0.0;
        for (uint64_t i = 0; i < CML_AC_TILE_FLOATS; i++)
            s += (double)cml_random_f32(SEED, t * CML_AC_TILE_FLOATS + i);
        tile_sums[t] = s;
    }
    /* out[] is nx rows of ny floats: row r, column c holds in[c * nx + r] */
    for (uint64_t r = 0; r < SIDE; r++)
        for (uint64_t c = 0; c < SIDE; c++)
            transposed[r * SIDE + c] = bits(cml_random_f32(SEED, c * SIDE + r));
}

typedef struct reduce_want {
    unsigned grid;
} reduce_want;

/* Word q of the reduce's output (doubles, little-endian words): block
 * q / 2's sum of tiles b, b + grid, ..., past the grid the poison. */
static uint32_t want_reduce(const void *ctx, uint64_t q)
{
    const reduce_want *w = ctx;
    const uint64_t b = q / 2;
    if (b >= w->grid)
        return 0xFFFFFFFFu;
    double s = 0.0;
    for (uint64_t t = b; t < 3001; t += w->grid)
        s += tile_sums[t];
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    return q % 2 ? (uint32_t)(u >> 32) : (uint32_t)u;
}

/* One variant launched once on `in` into poisoned `out`, and compared. */
static void check_variant(cml_dbuf *in, cml_dbuf *out, uint64_t cap, int workload, int method,
                          int width, int stages, unsigned resident)
{
    char what[128];
    snprintf(what, sizeof what, "%s method %d width %d stages %d resident %u",
             workload == CML_AC_REDUCE ? "reduce" : "transpose", method, width, stages, resident);
    cml_async_launch_args a;
    memset(&a, 0, sizeof a);
    a.in = in->ptr;
    a.out = out->ptr;
    a.method = method;
    a.workload = workload;
    a.width = width;
    a.stages = stages;
    a.cap = cap;
    uint64_t tiles;
    if (workload == CML_AC_REDUCE) {
        a.n = REDUCE_N;
        tiles = 3001;
    } else {
        a.nx = a.ny = SIDE;
        a.n = (uint64_t)SIDE * SIDE;
        tiles = (SIDE / 32) * (SIDE / 32);
    }
    unsigned per_sm = 0;
    cml_status st =
        cml_async_residency(workload, method, width, stages, resident, &per_sm, &a.pad_smem);
    if (!st && method == CML_AC_TENSOR)
        st = cml_async_encode_map(&a);
    if (st) {
        fprintf(stderr, "%s: %s\n", what, cml_gpu_error(g));
        CHECK(st == CML_OK);
        return;
    }
    if (resident)
        CHECK_EQ_U64(per_sm, resident);
    const uint64_t grid = (uint64_t)cml_gpu_facts(g)->sm_count * per_sm;
    a.grid = (unsigned)(grid < tiles ? grid : tiles);
    CHECK(cml_gpu_poison(g, out) == CML_OK);
    st = cml_async_launch(&a);
    if (st)
        fprintf(stderr, "%s: launch: %s\n", what, cml_gpu_error(g));
    CHECK(st == CML_OK);
    if (workload == CML_AC_REDUCE) {
        reduce_want w = {a.grid};
        if (!st && fetch(g, out, cap * sizeof(double)))
            compare_words(what, "words", 2 * cap, want_reduce, &w);
    } else if (!st && fetch(g, out, a.n * sizeof(float))) {
        compare_words(what, "floats", a.n, ref_want, transposed);
    }
}

static void test_kernels(void)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    const int cc = f->cc_major * 10 + f->cc_minor;
    const uint64_t cap = (uint64_t)f->sm_count * (f->max_threads_per_sm / CML_AC_BLOCK);
    cml_dbuf rin = {0}, tin = {0}, out = {0};
    cml_status st = cml_gpu_alloc(g, &rin, REDUCE_N * sizeof(float));
    if (!st)
        st = cml_gpu_fill_f32(g, &rin, REDUCE_N, SEED);
    if (!st)
        st = cml_gpu_alloc(g, &tin, (size_t)SIDE * SIDE * sizeof(float));
    if (!st)
        st = cml_gpu_fill_f32(g, &tin, (size_t)SIDE * SIDE, SEED);
    if (!st)
        st = cml_gpu_alloc(g, &out, (size_t)SIDE * SIDE * sizeof(float));
    CHECK(st == CML_OK && cap * sizeof(double) <= out.bytes);
    if (st || !tile_sums || !transposed)
        return;
    static const int widths[] = {4, 8, 16};
    unsigned ran = 0, skipped = 0;
    for (int wl = 0; wl < CML_AC_WORKLOAD_COUNT; wl++)
        for (int m = 0; m < CML_AC_METHOD_COUNT; m++)
            for (int wi = 0; wi < 3; wi++)
                for (int s = 1; s <= (int)CML_AC_MAX_STAGES; s++) {
                    const int w = widths[wi];
                    if ((m >= CML_AC_BULK && w != 16) || (m == CML_AC_ASYNC_CG && w != 16))
                        continue; /* no such variant (bulk, tensor: once) */
                    if (quick && ((s != 1 && s != 3) || w == 8))
                        continue;
                    if (cc < cml_ac_min_cc(m)) {
                        skipped++;
                        continue;
                    }
                    /* the ring on many tiles per block, and on one block per SM */
                    check_variant(wl == CML_AC_REDUCE ? &rin : &tin, &out, cap, wl, m, w, s, 0);
                    if (s == 2 || s == 3)
                        check_variant(wl == CML_AC_REDUCE ? &rin : &tin, &out, cap, wl, m, w, s,
                                      1);
                    ran++;
                }
    printf("async-copy kernels: %u variants checked, %u beyond this device (cc %d.%d)\n", ran,
           skipped, f->cc_major, f->cc_minor);
    CHECK(ran > 0);
    cml_gpu_free(g, &rin);
    cml_gpu_free(g, &tin);
    cml_gpu_free(g, &out);
}

/* The tour through the engine: verified, with its figures; on an older GPU
 * the variants it cannot run are waived with their reason. */
static void test_tour(void)
{
    const cml_experiment *x = &cml_exp_async_copy;
    const cml_device_facts *f = cml_gpu_facts(g);
    const int cc = f->cc_major * 10 + f->cc_minor;
    cml_param_values pv;
    tour_params(x, &pv);
    cml_plan plan;
    gpu_test_plan(&plan, g);
    if (quick)
        plan.size_bytes = (uint64_t)4 << 20;
    cml_results r;
    tour_run(x, &plan, &pv, &r);
    CHECK_EQ_U64(r.count, 16);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        const cml_record_param *m = cml_record_find_param(rec, "method");
        CHECK(m != NULL);
        if (!m)
            continue;
        if (cc < cml_ac_min_cc((int)m->value)) {
            CHECK(rec->state == CML_REC_WAIVED);
            CHECK_STR_CONTAINS(rec->note, "needs compute capability");
            continue;
        }
        check_tour_record(x, rec);
        CHECK(rec->occupancy > 0);
        CHECK(extra(rec, "regs") > 0);
        CHECK_NEAR(extra(rec, "blocks_per_sm"), 1, 0); /* the tour's resident=1 */
        if (m->value != CML_AC_REG)
            CHECK_STR_CONTAINS(rec->finding, "against registers");
        printf("%-58s %9.4f ms %8.1f GB/s cv %.2f%% regs %2.0f occ %3.0f%%\n  %s\n", rec->variant,
               rec->timing.median_ms, rec->bandwidth_gbs, 100.0 * rec->timing.cv,
               extra(rec, "regs"), 100.0 * rec->occupancy, rec->finding);
    }
    cml_results_free(&r);
}

int main(void)
{
    int rc = gpu_test_open(&g, "a device is present but cannot be opened");
    if (rc)
        return rc;
    quick = getenv("CML_QUICK_TEST") != NULL;
    host_references();
    test_kernels();
    test_tour();
    free(tile_sums);
    free(transposed);
    gpu_test_close(g);
    return cml_test_summary("gpu_test_async_copy");
}
