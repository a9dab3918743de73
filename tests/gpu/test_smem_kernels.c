/*
 * The kernels of experiments 11 (shuffle), 12 (shared-banks), 14
 * (device-vars) and 17 (transpose) on a GPU. Every kernel runs at several
 * sizes, including sizes that are not multiples of 32 or of the block; the
 * WHOLE output buffer (with a margin past what the kernel may write) is
 * downloaded and compared with a host reference written the plain way:
 * shuffles lane by lane from cml_shfl_source (the model's reading of PTX
 * shfl.sync, itself checked against hand values in the CPU tests) and a few
 * hand-written lanes from the CUDA documentation, sums modulo 2^32, the
 * shared tile simulated round by round, transposes element by element. The
 * device checker must agree, and must catch a planted wrong word and a
 * write where only the poison may be. Finally each experiment's tour runs
 * end to end and must verify. Without a GPU: "SKIP: <reason>", exit 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "lab/common.h"
#include "experiments/device_vars/device_vars_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiments/shared_banks/shared_banks_body.h"
#include "experiments/shuffle/shuffle_body.h"
#include "experiments/transpose/transpose_body.h"
#include "gpu/gpu.h"
#include "gpu/kernel_info.h"
#include "gpu_test_util.h"
#include "../test_util.h"

#define POISON 0xFFFFFFFFu
#define MARGIN 37u /* words allocated past the kernel's output: must stay poisoned */

static cml_gpu *g;
static int quick; /* CML_QUICK_TEST (under compute-sanitizer): the largest sizes left out */

/* A poisoned device buffer of `words` 32-bit words. */
static int buffer(cml_dbuf *b, uint64_t words)
{
    cml_status st = cml_gpu_alloc(g, b, words * 4);
    if (!st)
        st = cml_gpu_poison(g, b);
    if (st)
        fprintf(stderr, "buffer of %llu words: %s\n", (unsigned long long)words, cml_gpu_error(g));
    CHECK(st == CML_OK);
    return st == CML_OK;
}

/* fetched[0, cap) against ref[0, cap) (compare_words). */
static void compare(const char *what, const uint32_t *ref, uint64_t cap)
{
    compare_words(what, "words", cap, ref_want, ref);
}

/* check_checker_bytes on word indices, 0x12345678 planted where only the
 * poison may be. */
static void check_checker(const char *what, check_fn fn, void *ctx, cml_dbuf *out,
                          uint64_t written, uint64_t unwritten)
{
    check_checker_bytes(g, what, fn, ctx, out, 4, 4, word_at(written), word_at(unwritten),
                        0x12345678u);
}

/* ---- experiment 11: shuffle -------------------------------------------- */

#define SEED_SH 0x5A0F1ull

static cml_status shuffle_check_cb(void *ctx, unsigned long long *d)
{
    return cml_shuffle_check(ctx, SEED_SH, d);
}

/* Host reference of out[0, cap) for one launch. */
static void shuffle_reference(uint32_t *ref, const cml_shuffle_launch_args *a)
{
    for (uint64_t q = 0; q < a->cap; q++)
        ref[q] = POISON;
    const cml_shfl_op op = (cml_shfl_op)a->op;
    if (cml_shfl_is_reduction(op)) {
        const uint64_t span = cml_shfl_is_warp_reduction(op) ? 32 : a->block;
        for (uint64_t i = 0; i < a->n; i++) {
            uint32_t *o = &ref[i / span];
            *o = (i % span == 0 ? 0u : *o) + cml_random_u32(SEED_SH, i); /* wraps mod 2^32 */
        }
        return;
    }
    for (uint64_t i = 0; i < a->n; i++) {
        const uint64_t src =
            i / 32 * 32 + cml_shfl_source(op, (unsigned)(i % 32), (unsigned)a->arg,
                                          (unsigned)a->width);
        ref[i] = src < a->n ? cml_random_u32(SEED_SH, src) : 0u;
    }
}

/* Lanes written out from the CUDA Programming Guide's wording, without
 * cml_shfl_source: n >= 64 words, the first two warps. */
static void shuffle_hand_lanes(const cml_shuffle_launch_args *a)
{
#define IN(i) cml_random_u32(SEED_SH, (i))
    if (a->op == CML_SHFL_DOWN && a->width == 8 && a->arg == 1) {
        CHECK_EQ_U64(fetched[6], IN(7));   /* lane 6 gets lane 7 */
        CHECK_EQ_U64(fetched[7], IN(7));   /* last of its group: keeps its own */
        CHECK_EQ_U64(fetched[31], IN(31));
        CHECK_EQ_U64(fetched[32], IN(33)); /* next warp */
    }
    if (a->op == CML_SHFL_UP && a->width == 8 && a->arg == 3) {
        CHECK_EQ_U64(fetched[2], IN(2));   /* lanes 0-2 of a group keep their own */
        CHECK_EQ_U64(fetched[11], IN(8));
        CHECK_EQ_U64(fetched[10], IN(10));
    }
    if (a->op == CML_SHFL_XOR && a->width == 8 && a->arg == 16) {
        /* laneMask beyond the group: an earlier group may be read, a later
         * one may not (the lane keeps its own value). */
        CHECK_EQ_U64(fetched[16], IN(0));
        CHECK_EQ_U64(fetched[0], IN(0));
        CHECK_EQ_U64(fetched[31], IN(15));
    }
    if (a->op == CML_SHFL_BROADCAST && a->width == 16 && a->arg == 3) {
        CHECK_EQ_U64(fetched[0], IN(3));
        CHECK_EQ_U64(fetched[15], IN(3));
        CHECK_EQ_U64(fetched[16], IN(19)); /* srcLane is within the lane's own group */
        CHECK_EQ_U64(fetched[63], IN(51));
    }
    if (a->op == CML_SHFL_BROADCAST && a->width == 32 && a->arg == 31) {
        CHECK_EQ_U64(fetched[0], IN(31));
        CHECK_EQ_U64(fetched[40], IN(63));
    }
#undef IN
}

static void shuffle_one(cml_dbuf *in, cml_dbuf *out, uint32_t *ref, uint64_t n, int op,
                        unsigned block, int width, int arg)
{
    char what[128];
    cml_shuffle_launch_args a;
    memset(&a, 0, sizeof a);
    a.in = in->ptr;
    a.out = out->ptr;
    a.n = n;
    a.cap = n + MARGIN;
    a.block = block;
    a.op = op;
    a.arg = arg;
    a.width = width;
    for (unsigned l = 0; l < 32; l++)
        a.src[l] = (unsigned char)(cml_shfl_is_reduction((cml_shfl_op)op)
                                       ? l
                                       : cml_shfl_source((cml_shfl_op)op, l, (unsigned)arg,
                                                         (unsigned)width));
    snprintf(what, sizeof what, "shuffle op=%d n=%llu block=%u width=%d arg=%d", op,
             (unsigned long long)n, block, width, arg);
    CHECK(cml_gpu_poison(g, out) == CML_OK);
    cml_status st = cml_shuffle_launch(&a);
    CHECK(st == CML_OK);
    if (st || !fetch(g, out, a.cap * 4))
        return;
    shuffle_reference(ref, &a);
    compare(what, ref, a.cap);
    if (n >= 64)
        shuffle_hand_lanes(&a);
    const uint64_t outs = cml_shuffle_outputs(op, n, block);
    check_checker(what, shuffle_check_cb, &a, out, outs - 1, outs);
}

static void test_shuffle(void)
{
    static const uint64_t sizes[] = {32, 100, 4099, (1u << 20) + 7};
    static const unsigned blocks[] = {32, 256, 1024};
    static const int widths[] = {2, 4, 8, 16, 32};
    static const int args[] = {0, 1, 3, 7, 16, 31};
    for (size_t s = 0; s < (quick ? 3u : 4u); s++) {
        const uint64_t n = sizes[s], cap = n + MARGIN;
        cml_dbuf in = {0}, out = {0};
        uint32_t *ref = malloc(cap * sizeof *ref);
        CHECK(ref != NULL);
        if (!ref || !buffer(&in, n) || !buffer(&out, cap))
            goto done;
        /* The fill itself: every word is cml_random_u32(seed, i). */
        CHECK(cml_shuffle_fill_u32(in.ptr, n, SEED_SH) == CML_OK);
        if (fetch(g, &in, n * 4)) {
            uint64_t wrong = 0;
            for (uint64_t i = 0; i < n; i++)
                wrong += fetched[i] != cml_random_u32(SEED_SH, i);
            CHECK_EQ_U64(wrong, 0);
        }
        for (int op = CML_SHFL_REDUCE_SMEM; op < CML_SHFL_OP_COUNT; op++) {
            if (cml_shfl_is_reduction((cml_shfl_op)op)) {
                for (size_t b = 0; b < 3; b++)
                    shuffle_one(&in, &out, ref, n, op, blocks[b], 32, 0);
                continue;
            }
            const int big = s == 3;
            for (size_t w = big ? 2 : 0; w < 5; w += big ? 2 : 1)
                for (size_t k = 0; k < 6; k += big ? 3 : 1)
                    shuffle_one(&in, &out, ref, n, op, blocks[(w + k) % 2], widths[w], args[k]);
        }
        /* The lanes from the documentation, launched explicitly. */
        if (n >= 64) {
            shuffle_one(&in, &out, ref, n, CML_SHFL_DOWN, 256, 8, 1);
            shuffle_one(&in, &out, ref, n, CML_SHFL_UP, 256, 8, 3);
            shuffle_one(&in, &out, ref, n, CML_SHFL_XOR, 256, 8, 16);
            shuffle_one(&in, &out, ref, n, CML_SHFL_BROADCAST, 256, 16, 3);
        }
        /* Bad arguments are refused, not launched. */
        cml_shuffle_launch_args bad = {in.ptr, out.ptr, n, cap, 100, CML_SHFL_XOR, 1, 8, {0}};
        CHECK_EQ_I64(cml_shuffle_launch(&bad), CML_EINVAL);
        bad.block = 256;
        bad.width = 3;
        CHECK_EQ_I64(cml_shuffle_launch(&bad), CML_EINVAL);
    done:
        free(ref);
        cml_gpu_free(g, &in);
        cml_gpu_free(g, &out);
    }
}

/* ---- experiment 12: shared-banks --------------------------------------- */

static cml_status banks_check_cb(void *ctx, unsigned long long *d)
{
    const cml_banks_launch_args *a = ctx;
    return cml_banks_check(a, cml_banks_out_words(a) + MARGIN, d);
}

/* The tile kernel simulated literally: a shared array, all stores of a
 * round, then all loads. */
static void tile_reference(uint32_t *ref, uint64_t cap, const cml_banks_launch_args *a)
{
    const unsigned W = a->W, H = a->H, P = a->P, T = W * H;
    uint32_t *tile = malloc((size_t)H * P * sizeof *tile), *v = malloc(T * sizeof *v);
    CHECK(tile && v);
    for (uint64_t q = 0; q < cap; q++)
        ref[q] = POISON;
    if (tile && v)
        for (uint64_t b = 0; b < a->blocks; b++) {
            for (unsigned t = 0; t < T; t++)
                v[t] = (uint32_t)(b * T + t);
            for (unsigned it = 0; it < a->iters; it++) {
                for (unsigned t = 0; t < T; t++) {
                    unsigned tx = t % W, ty = t / W, irow = t / H, icol = t % H;
                    tile[a->write_col ? icol * P + irow : ty * P + tx] = v[t];
                }
                for (unsigned t = 0; t < T; t++) {
                    unsigned tx = t % W, ty = t / W, irow = t / H, icol = t % H;
                    v[t] = tile[a->read_col ? icol * P + irow : ty * P + tx] + 1u;
                }
            }
            for (unsigned t = 0; t < T; t++)
                ref[b * T + t] = v[t];
        }
    free(tile);
    free(v);
}

static void banks_one(cml_dbuf *out, uint32_t *ref, cml_banks_launch_args *a, const char *what)
{
    const uint64_t words = cml_banks_out_words(a), cap = words + MARGIN;
    a->out = out->ptr;
    CHECK(cml_gpu_poison(g, out) == CML_OK);
    cml_status st = cml_banks_launch(a);
    CHECK(st == CML_OK);
    if (st) {
        fprintf(stderr, "%s: launch %s\n", what, cml_gpu_error(g));
        return;
    }
    if (!fetch(g, out, cap * 4))
        return;
    if (a->stride_kind) {
        for (uint64_t w = 0; w < cap; w++)
            ref[w] = w < words ? (uint32_t)(w + a->iters) : POISON;
    } else {
        tile_reference(ref, cap, a);
    }
    compare(what, ref, cap);
    check_checker(what, banks_check_cb, a, out, words - 1, words);
}

static void test_shared_banks(void)
{
    static const unsigned shapes[][2] = {{32, 32}, {32, 16}, {16, 32}};
    static const unsigned pads[] = {0, 1, 2, 5};
    static const struct { uint64_t blocks; unsigned iters; } runs[] = {{1, 1}, {3, 2}, {2, 7}};
    static const unsigned elems[] = {4, 8, 16};
    static const unsigned strides[] = {1, 2, 3, 8, 32, 33};
    const uint64_t cap = 8u * 1024 * 4 + MARGIN; /* the largest output below, in words */
    cml_dbuf out = {0};
    uint32_t *ref = malloc(cap * sizeof *ref);
    char what[160];
    CHECK(ref != NULL);
    if (!ref || !buffer(&out, cap))
        goto done;
    for (size_t s = 0; s < 3; s++)
        for (size_t p = 0; p < 4; p++)
            for (int access = 0; access < 4; access++)
                for (int dyn = 0; dyn < 2; dyn++) {
                    cml_banks_launch_args a;
                    memset(&a, 0, sizeof a);
                    a.W = shapes[s][0];
                    a.H = shapes[s][1];
                    a.P = a.W + pads[p];
                    a.write_col = access >= 2;
                    a.read_col = access % 2;
                    a.dynamic = dyn;
                    const size_t r = (s + p + (size_t)access) % 3;
                    a.blocks = runs[r].blocks;
                    a.iters = runs[r].iters;
                    snprintf(what, sizeof what, "tile %ux%u P=%u w%d r%d %s blocks=%llu iters=%u",
                             a.W, a.H, a.P, a.write_col, a.read_col, dyn ? "dynamic" : "static",
                             (unsigned long long)a.blocks, a.iters);
                    if (!dyn && pads[p] > 2) { /* not compiled: refused */
                        a.out = out.ptr;
                        CHECK(!cml_banks_has_static(a.W, a.H, a.P));
                        CHECK_EQ_I64(cml_banks_launch(&a), CML_EINVAL);
                        continue;
                    }
                    banks_one(&out, ref, &a, what);
                }
    for (size_t e = 0; e < 3; e++)
        for (size_t k = 0; k < 6; k++)
            for (size_t r = 0; r < 2; r++) {
                cml_banks_launch_args a;
                memset(&a, 0, sizeof a);
                a.stride_kind = 1;
                a.elem = elems[e];
                a.stride = strides[k];
                a.block = cml_banks_stride_block(a.elem, a.stride);
                a.blocks = r ? 4 : 1;
                a.iters = r ? 3 : 1;
                snprintf(what, sizeof what, "stride elem=%u stride=%u block=%u blocks=%llu "
                         "iters=%u", a.elem, a.stride, a.block, (unsigned long long)a.blocks,
                         a.iters);
                CHECK(cml_banks_out_words(&a) + MARGIN <= cap);
                banks_one(&out, ref, &a, what);
            }
done:
    free(ref);
    cml_gpu_free(g, &out);
}

/* ---- experiment 17: transpose ------------------------------------------ */

#define SEED_TR 0x7A5E5ull

static cml_status transpose_check_cb(void *ctx, unsigned long long *d)
{
    return cml_transpose_check(ctx, SEED_TR, d);
}

static void test_transpose(void)
{
    static const uint64_t dims[][2] = {{1, 1},   {40, 33},  {33, 40},    {100, 7},
                                       {7, 100}, {128, 256}, {1000, 777}, {2048, 2048}};
    static const unsigned blocks[][2] = {{32, 8}, {16, 16}, {32, 32}};
    char what[128];
    for (size_t d = 0; d < sizeof dims / sizeof dims[0] - (quick ? 2u : 0u); d++) {
        const uint64_t nx = dims[d][0], ny = dims[d][1], n = nx * ny, cap = n + MARGIN;
        cml_dbuf in = {0}, out = {0};
        uint32_t *ref = malloc(cap * sizeof *ref), *tref = malloc(cap * sizeof *tref);
        CHECK(ref && tref);
        if (!ref || !tref || !buffer(&in, n) || !buffer(&out, cap))
            goto done;
        CHECK(cml_gpu_fill_f32(g, &in, n, SEED_TR) == CML_OK);
        /* References: the copy, and the transpose written forwards. */
        for (uint64_t q = 0; q < cap; q++)
            ref[q] = tref[q] = POISON;
        for (uint64_t y = 0; y < ny; y++)
            for (uint64_t x = 0; x < nx; x++) {
                ref[y * nx + x] = bits(cml_random_f32(SEED_TR, y * nx + x));
                tref[x * ny + y] = bits(cml_random_f32(SEED_TR, y * nx + x));
            }
        for (int k = 0; k < CML_TR_KERNEL_COUNT; k++)
            for (size_t b = 0; b < 3; b++) {
                if ((k == CML_TR_SMEM || k == CML_TR_SMEM_PAD) && b > 0)
                    continue; /* 32x32 whatever the block */
                cml_transpose_launch_args a = {in.ptr, out.ptr, nx, ny, cap, blocks[b][0],
                                               blocks[b][1], k, 0};
                snprintf(what, sizeof what, "transpose kernel=%d %llux%llu block=%ux%u", k,
                         (unsigned long long)nx, (unsigned long long)ny, a.bx, a.by);
                CHECK(cml_gpu_poison(g, &out) == CML_OK);
                cml_status st = cml_transpose_launch(&a);
                CHECK(st == CML_OK);
                if (st || !fetch(g, &out, cap * 4))
                    continue;
                compare(what, k == CML_TR_COPY ? ref : tref, cap);
                check_checker(what, transpose_check_cb, &a, &out, n - 1, n);
            }
        /* The control launch (residency=one): one block per SM, the same
         * output. */
        {
            const void *kern = cml_transpose_kernel(CML_TR_SMEM_PAD);
            cml_transpose_launch_args a = {in.ptr, out.ptr, nx, ny, cap, 32, 32,
                                           CML_TR_SMEM_PAD, 0};
            CHECK_EQ_I64(cml_gpu_one_block_per_sm(g, kern, 1024, 0, &a.smem), CML_OK);
            const cml_device_facts *f = cml_gpu_facts(g);
            double occ = 0;
            CHECK_EQ_I64(cml_gpu_occupancy(g, kern, 1024, a.smem, &occ), CML_OK);
            CHECK_NEAR(occ, 1024.0 / f->max_threads_per_sm, 1e-9);
            CHECK(cml_gpu_poison(g, &out) == CML_OK);
            CHECK_EQ_I64(cml_transpose_launch(&a), CML_OK);
            if (fetch(g, &out, cap * 4))
                compare("transpose smem-pad, one block per SM", tref, cap);
        }
        cml_transpose_launch_args bad = {in.ptr, out.ptr, nx, ny, cap, 64, 32, CML_TR_NAIVE_ROW, 0};
        CHECK_EQ_I64(cml_transpose_launch(&bad), CML_EINVAL); /* 2048 threads */
    done:
        free(ref);
        free(tref);
        cml_gpu_free(g, &in);
        cml_gpu_free(g, &out);
    }
}

/* ---- experiment 14: device-vars ---------------------------------------- */

static cml_status devvar_check_cb(void *ctx, unsigned long long *d)
{
    return cml_devvar_check(ctx, d);
}

static void test_device_vars(void)
{
    float v = 0.0f;
    /* The symbols hold what is copied in. */
    CHECK(cml_devvar_set(CML_DEVVAR_SYM_DEVICE, 1.75f) == CML_OK);
    CHECK(cml_devvar_get(CML_DEVVAR_SYM_DEVICE, &v) == CML_OK);
    CHECK_EQ_U64(bits(v), bits(1.75f));
    CHECK(cml_devvar_set(CML_DEVVAR_SYM_CONSTANT, 0.625f) == CML_OK);
    CHECK(cml_devvar_get(CML_DEVVAR_SYM_CONSTANT, &v) == CML_OK);
    CHECK_EQ_U64(bits(v), bits(0.625f));
    CHECK_EQ_I64(cml_devvar_set(7, 1.0f), CML_EINVAL);

    /* devData += 2.0f persists from launch to launch. */
    cml_devvar_launch_args a = {CML_DEVVAR_DEVICE, 1.0f, 0.0f, 0.0f};
    CHECK(cml_devvar_set(CML_DEVVAR_SYM_DEVICE, 1.0f) == CML_OK);
    CHECK(cml_devvar_kernel_launch(&a) == CML_OK);
    CHECK(cml_devvar_kernel_launch(&a) == CML_OK);
    CHECK(cml_devvar_get(CML_DEVVAR_SYM_DEVICE, &v) == CML_OK);
    CHECK_EQ_U64(bits(v), bits(5.0f));

    /* The round trip and the checker, for both kernels; then a planted
     * wrong devData, and a planted wrong constData. */
    for (int kind = 0; kind < 2; kind++) {
        a.kind = kind;
        a.value = cml_random_f32(0xDE7A, (uint64_t)kind);
        CHECK(cml_devvar_round_trip(&a) == CML_OK);
        CHECK_EQ_U64(bits(a.result), bits(a.value + 2.0f));
        CHECK(cml_devvar_prepare_check(&a) == CML_OK);
        unsigned long long bad, first;
        if (!device_check(g, devvar_check_cb, &a, &bad, &first))
            continue;
        CHECK_EQ_U64(bad, 0);
        if (kind == 1)
            CHECK_EQ_U64(bits(a.constant), bits(a.value));
        CHECK(cml_devvar_set(CML_DEVVAR_SYM_DEVICE, a.value + 2.5f) == CML_OK);
        if (device_check(g, devvar_check_cb, &a, &bad, &first)) {
            CHECK_EQ_U64(bad, 1);
            CHECK_EQ_U64(first, 0);
        }
        if (kind == 1) {
            CHECK(cml_devvar_prepare_check(&a) == CML_OK);
            CHECK(cml_devvar_set(CML_DEVVAR_SYM_CONSTANT, a.value + 1.0f) == CML_OK);
            if (device_check(g, devvar_check_cb, &a, &bad, &first)) {
                CHECK_EQ_U64(bad, 1);
                CHECK_EQ_U64(first, 1);
            }
        }
    }
}

/* ---- the experiments end to end ---------------------------------------- */

static void test_tours(void)
{
    const cml_experiment *const all[] = {&cml_exp_shuffle, &cml_exp_shared_banks,
                                         &cml_exp_transpose, &cml_exp_device_vars};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        const cml_experiment *x = all[k];
        cml_param_values pv;
        char err[256] = "";
        CHECK(x->measure != NULL);
        if (!x->measure)
            continue;
        tour_params(x, &pv);
        cml_plan plan;
        gpu_test_plan(&plan, g);
        /* Small arrays keep the run short (and seconds under compute-sanitizer). */
        plan.size_bytes = quick ? (uint64_t)1 << 20 : (uint64_t)16 << 20;
        if (quick && x == &cml_exp_shared_banks) {
            CHECK(cml_param_set(&pv, "blocks", "8", err, sizeof err) == CML_OK);
            CHECK(cml_param_set(&pv, "iters", "4", err, sizeof err) == CML_OK);
        }
        cml_results r;
        tour_run(x, &plan, &pv, &r);
        for (size_t i = 0; i < r.count; i++) {
            const cml_record *rec = &r.items[i];
            check_tour_record(x, rec);
            CHECK(rec->has_model);
            CHECK(rec->timing.median_ms > 0);
            CHECK_STR_CONTAINS(rec->finding, "Measured");
            CHECK(strlen(rec->finding) < sizeof rec->finding - 1); /* not cut off */
            /* Every figure the run adds made it into the record (8 extras at most). */
            if (x == &cml_exp_shared_banks && plan.dev->sm_clock_khz > 0)
                CHECK_STR_CONTAINS(rec->finding, "SM cycles");
            printf("%-13s %-60s %9.4f ms %8.1f GB/s\n  %s\n", x->key, rec->variant,
                   rec->timing.median_ms, rec->bandwidth_gbs, rec->finding);
        }
        cml_results_free(&r);
    }
}

int main(void)
{
    int rc = gpu_test_open(&g, "a device is present but cannot be opened");
    if (rc)
        return rc;
    quick = getenv("CML_QUICK_TEST") != NULL;
    test_shuffle();
    test_shared_banks();
    test_transpose();
    test_device_vars();
    test_tours();
    gpu_test_close(g);
    return cml_test_summary("gpu_test_smem_kernels");
}
