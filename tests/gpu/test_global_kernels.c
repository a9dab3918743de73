/*
 * The kernels of experiments 3-7 (aos_soa_body.h, unroll_body.h,
 * parallelism_body.h, stride_body.h, readonly_body.h) on a GPU: every
 * kernel at several sizes, including sizes that are not multiples of the
 * block and offsets and windows reaching
 * the array ends, launched once; the WHOLE output buffer (with a margin past
 * what the kernel may write) is downloaded and compared bit for bit with a
 * host reference computed from cml_random_f32, written the straightforward
 * way (scatters are done forwards on the host, so the device checkers'
 * inverse permutation is checked too). The device checker must agree, and
 * must catch a planted wrong element and a write where nothing may be
 * written. Finally each experiment's tour runs end to end at its default
 * DRAM size and must verify. Without a GPU: "SKIP: <reason>", exit 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "experiments/aos_soa/aos_soa_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "experiments/parallelism/parallelism_body.h"
#include "experiments/readonly/readonly_body.h"
#include "experiments/stride/stride_body.h"
#include "experiments/unroll/unroll_body.h"
#include "gpu/gpu.h"
#include "gpu_test_util.h"
#include "../test_util.h"

#define POISON 0xFFFFFFFFu
#define MARGIN 37u /* floats allocated past the kernel's output: must stay poisoned */

static cml_gpu *g;

static uint32_t rnd(uint64_t seed, uint64_t i)
{
    return bits(cml_random_f32(seed, i));
}

/* A device buffer of `count` floats: random (seeded) or poisoned. */
static int buffer(cml_dbuf *b, uint64_t count, int random, uint64_t seed)
{
    cml_status st = cml_gpu_alloc(g, b, count * sizeof(float));
    if (!st)
        st = random ? cml_gpu_fill_f32(g, b, count, seed) : cml_gpu_poison(g, b);
    if (st)
        fprintf(stderr, "buffer of %llu floats: %s\n", (unsigned long long)count, cml_gpu_error(g));
    CHECK(st == CML_OK);
    return st == CML_OK;
}

/* compare_words on floats. */
static void compare(const char *what, uint64_t cap, want_fn want, const void *ctx)
{
    compare_words(what, "floats", cap, want, ctx);
}

/* check_checker_bytes on float indices (UINT64_MAX: none), 1.0f planted
 * where nothing may be written. */
static void check_checker(const char *what, check_fn fn, void *ctx, cml_dbuf *out,
                          uint64_t written, uint64_t unwritten)
{
    check_checker_bytes(g, what, fn, ctx, out, 4, 4, word_at(written), word_at(unwritten),
                        0x3F800000u);
}

/* ---- experiment 3: aos-soa --------------------------------------------- */

#define SEED_AOS 0x7E57A05ull

static cml_status aos_check_cb(void *ctx, unsigned long long *d)
{
    return cml_aos_soa_check(ctx, SEED_AOS, d);
}

static uint32_t aos_want(const void *ctx, uint64_t q)
{
    const cml_aos_soa_launch_args *a = ctx;
    uint64_t i = a->soa ? q % a->pitch : q / a->fields;
    uint64_t j = a->soa ? q / a->pitch : q % a->fields;
    if (i >= a->n || j >= a->touched)
        return POISON;
    return bits(cml_random_f32(SEED_AOS, q) + cml_aos_soa_addend((unsigned)j));
}

static void test_aos_soa(void)
{
    static const uint64_t sizes[] = {1, 33, 4099, 100003};
    static const unsigned fields[] = {1, 2, 3, 4, 8, 16};
    static const unsigned blocks[] = {256, 96};
    char what[128];
    for (size_t s = 0; s < 4; s++) {
        const uint64_t n = sizes[s], pitch = cml_aos_soa_pitch(n);
        const uint64_t cap = CML_AOS_MAX_FIELDS * pitch + MARGIN;
        cml_dbuf in = {0}, out = {0};
        if (!buffer(&in, cap, 1, SEED_AOS) || !buffer(&out, cap, 0, 0))
            goto done;
        for (int soa = 0; soa < 2; soa++)
            for (size_t f = 0; f < 6; f++)
                for (unsigned ti = 0; ti < 3; ti++) {
                    const unsigned F = fields[f];
                    const unsigned T = ti == 0 ? 1 : ti == 1 ? (F + 1) / 2 : F;
                    if (ti > 0 && T == (ti == 1 ? 1u : (F + 1) / 2))
                        continue;
                    const unsigned block = blocks[(s + f + ti) % 2];
                    cml_aos_soa_launch_args a = {in.ptr, out.ptr, n, pitch, cap, F, T, block, soa};
                    snprintf(what, sizeof what, "aos-soa soa=%d F=%u T=%u n=%llu block=%u", soa,
                             F, T, (unsigned long long)n, block);
                    CHECK(cml_gpu_poison(g, &out) == CML_OK);
                    cml_status st = cml_aos_soa_launch(&a);
                    CHECK(st == CML_OK);
                    if (st || !fetch(g, &out, cap * sizeof(float)))
                        continue;
                    compare(what, cap, aos_want, &a);
                    /* last touched field of the last element; a field that
                     * must stay untouched (or the margin) */
                    uint64_t last = soa ? (uint64_t)(T - 1) * pitch + n - 1 : (n - 1) * F + T - 1;
                    uint64_t idle = T < F ? (soa ? (uint64_t)T * pitch : T) : cap - 1;
                    check_checker(what, aos_check_cb, &a, &out, last, idle);
                }
    done:
        cml_gpu_free(g, &in);
        cml_gpu_free(g, &out);
    }
}

/* ---- experiment 4: unroll ---------------------------------------------- */

#define SEED_UA 0x7E57A1ull
#define SEED_UB 0x7E57B2ull

static cml_status unroll_check_cb(void *ctx, unsigned long long *d)
{
    return cml_unroll_check(ctx, SEED_UA, SEED_UB, d);
}

static uint32_t unroll_want(const void *ctx, uint64_t q)
{
    const cml_unroll_launch_args *a = ctx;
    const uint64_t vec = a->width / 4, e = q / vec, c = q % vec;
    if (e >= a->nv || e + a->offset >= a->nv)
        return POISON;
    const uint64_t src = (e + a->offset) * vec + c;
    return bits(cml_random_f32(SEED_UA, src) + cml_random_f32(SEED_UB, src));
}

static void test_unroll(void)
{
    static const uint64_t sizes[] = {4, 1001, 4099 * 4, (1u << 20) + 12};
    static const unsigned unrolls[] = {1, 2, 4}, widths[] = {4, 8, 16};
    static const unsigned blocks[] = {512, 96};
    char what[160];
    for (size_t s = 0; s < 4; s++) {
        const uint64_t n = sizes[s], cap = n + MARGIN;
        cml_dbuf A = {0}, B = {0}, C = {0};
        if (!buffer(&A, n, 1, SEED_UA) || !buffer(&B, n, 1, SEED_UB) || !buffer(&C, cap, 0, 0))
            goto done;
        for (size_t u = 0; u < 3; u++)
            for (size_t w = 0; w < 3; w++) {
                const unsigned vec = widths[w] / 4;
                const uint64_t nv = n / vec;
                const uint64_t offsets[] = {0, 1, 11, nv > 1 ? nv - 1 : 0, nv, nv + 3};
                for (size_t o = 0; o < 6; o++) {
                    const uint64_t off = offsets[o];
                    const unsigned block = blocks[(o + u) % 2];
                    cml_unroll_launch_args a = {A.ptr, B.ptr, C.ptr, nv, off, cap,
                                                unrolls[u], widths[w], block};
                    snprintf(what, sizeof what, "unroll U=%u W=%u n=%llu offset=%llu block=%u",
                             a.unroll, a.width, (unsigned long long)n, (unsigned long long)off,
                             block);
                    CHECK(cml_gpu_poison(g, &C) == CML_OK);
                    cml_status st = cml_unroll_launch(&a);
                    CHECK(st == CML_OK);
                    if (st || !fetch(g, &C, cap * sizeof(float)))
                        continue;
                    compare(what, cap, unroll_want, &a);
                    uint64_t written = off < nv ? (nv - off) * vec - 1 : UINT64_MAX;
                    uint64_t idle = off > 0 && off < nv ? (nv - off) * vec : cap - 1;
                    check_checker(what, unroll_check_cb, &a, &C, written, idle);
                }
            }
    done:
        cml_gpu_free(g, &A);
        cml_gpu_free(g, &B);
        cml_gpu_free(g, &C);
    }
}

/* ---- experiment 5: parallelism ----------------------------------------- */

#define SEED_PA 0x7E579A1ull
#define SEED_PB 0x7E579B2ull

static cml_status par_check_cb(void *ctx, unsigned long long *d)
{
    return cml_parallelism_check(ctx, SEED_PA, SEED_PB, d);
}

static uint32_t par_want(const void *ctx, uint64_t q)
{
    const cml_parallelism_launch_args *a = ctx;
    return q < a->n ? bits(cml_random_f32(SEED_PA, q) + cml_random_f32(SEED_PB, q)) : POISON;
}

static void test_parallelism(void)
{
    static const uint64_t sizes[] = {1, 1000, 4099, (1u << 20) + 3};
    static const unsigned blocks[] = {32, 96, 256, 1024};
    static const unsigned grids[] = {1, 5, 264};
    char what[128];
    for (size_t s = 0; s < 4; s++) {
        const uint64_t n = sizes[s], cap = n + MARGIN;
        cml_dbuf A = {0}, B = {0}, C = {0};
        if (!buffer(&A, n, 1, SEED_PA) || !buffer(&B, n, 1, SEED_PB) || !buffer(&C, cap, 0, 0))
            goto done;
        for (size_t b = 0; b < 4; b++)
            for (int mode = 0; mode < 4; mode++) { /* one; grid-stride with 3 grids */
                int gs = mode > 0;
                cml_parallelism_launch_args a = {A.ptr, B.ptr, C.ptr, n, cap,
                                                 gs ? grids[mode - 1] : 0, blocks[b], gs};
                snprintf(what, sizeof what, "parallelism %s n=%llu block=%u grid=%u",
                         gs ? "gridstride" : "one", (unsigned long long)n, a.block, a.grid);
                CHECK(cml_gpu_poison(g, &C) == CML_OK);
                cml_status st = cml_parallelism_launch(&a);
                CHECK(st == CML_OK);
                if (st || !fetch(g, &C, cap * sizeof(float)))
                    continue;
                compare(what, cap, par_want, &a);
                check_checker(what, par_check_cb, &a, &C, n - 1, n);
            }
    done:
        cml_gpu_free(g, &A);
        cml_gpu_free(g, &B);
        cml_gpu_free(g, &C);
    }
}

/* ---- experiment 6: stride ---------------------------------------------- */

#define SEED_S 0x7E5757ull

static cml_status stride_check_cb(void *ctx, unsigned long long *d)
{
    return cml_stride_check(ctx, SEED_S, d);
}

/* Host reference of C[0, cap), written forwards like the kernel. */
static void stride_reference(uint32_t *ref, uint64_t cap, const cml_stride_launch_args *a)
{
    for (uint64_t q = 0; q < cap; q++)
        ref[q] = POISON;
    uint64_t full = a->window ? a->n / a->window * a->window : 0;
    uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    for (uint64_t i = 0; i < threads; i++) {
        switch (a->pattern) {
        case CML_STRIDE_READ: ref[i] = rnd(SEED_S, i * a->stride); break;
        case CML_STRIDE_WRITE: ref[i * a->stride] = rnd(SEED_S, i); break;
        case CML_STRIDE_BROADCAST: ref[i] = rnd(SEED_S, i / 32); break;
        case CML_STRIDE_GATHER:
            ref[i] = rnd(SEED_S, cml_stride_perm(i, full, a->window, CML_STRIDE_P));
            break;
        default: ref[cml_stride_perm(i, full, a->window, CML_STRIDE_P)] = rnd(SEED_S, i); break;
        }
    }
}

static void test_stride(void)
{
    static const uint64_t sizes[] = {100, 4096, 4099, (1u << 20) + 7};
    static const uint64_t strides[] = {1, 2, 3, 8, 33, 128};
    static const unsigned blocks[] = {256, 96};
    char what[160];
    for (size_t s = 0; s < 4; s++) {
        const uint64_t n = sizes[s], cap = n + MARGIN;
        uint64_t p2 = 1;
        while (p2 <= n / 2)
            p2 *= 2;
        const uint64_t windows[] = {1, 32, 1024, p2, p2 * 4 /* larger than the array */};
        uint32_t *ref = malloc(cap * sizeof *ref);
        cml_dbuf A = {0}, C = {0};
        CHECK(ref != NULL);
        if (!ref || !buffer(&A, n, 1, SEED_S) || !buffer(&C, cap, 0, 0))
            goto done;
        for (int p = 0; p < CML_STRIDE_PATTERN_COUNT; p++) {
            int strided = p == CML_STRIDE_READ || p == CML_STRIDE_WRITE;
            int windowed = p == CML_STRIDE_GATHER || p == CML_STRIDE_SCATTER;
            size_t count = strided ? 6 : windowed ? 5 : 1;
            for (size_t v = 0; v < count; v++) {
                const unsigned block = blocks[(v + (size_t)p) % 2];
                cml_stride_launch_args a = {A.ptr, C.ptr, n, strided ? strides[v] : 0,
                                            windowed ? windows[v] : 0, cap, block, p};
                snprintf(what, sizeof what, "stride pattern=%d n=%llu s=%llu w=%llu block=%u", p,
                         (unsigned long long)n, (unsigned long long)a.stride,
                         (unsigned long long)a.window, block);
                CHECK(cml_gpu_poison(g, &C) == CML_OK);
                cml_status st = cml_stride_launch(&a);
                CHECK(st == CML_OK);
                if (st || !fetch(g, &C, cap * sizeof(float)))
                    continue;
                stride_reference(ref, cap, &a);
                compare(what, cap, ref_want, ref);
                /* a written element, and an element that must stay poisoned */
                uint64_t written = UINT64_MAX, idle = cap - 1;
                for (uint64_t q = 0; q < cap; q++)
                    if (ref[q] != POISON)
                        written = q;
                for (uint64_t q = 0; q < cap; q++)
                    if (ref[q] == POISON) {
                        idle = q;
                        break;
                    }
                check_checker(what, stride_check_cb, &a, &C, written, idle);
            }
        }
    done:
        free(ref);
        cml_gpu_free(g, &A);
        cml_gpu_free(g, &C);
    }
}

/* ---- experiment 7: read-only ------------------------------------------- */

#define SEED_RA 0x7E520A1ull
#define SEED_RT 0x7E520B2ull

static cml_status ro_check_cb(void *ctx, unsigned long long *d)
{
    return cml_readonly_check(ctx, SEED_RA, SEED_RT, d);
}

static uint32_t ro_want(const void *ctx, uint64_t q)
{
    const cml_readonly_launch_args *a = ctx;
    if (q >= cml_readonly_threads(a->pattern, a->n))
        return POISON;
    switch (a->pattern) {
    case CML_RO_COPY: return rnd(SEED_RA, q);
    case CML_RO_STENCIL: {
        float v[CML_STENCIL_POINTS];
        for (unsigned k = 0; k < CML_STENCIL_POINTS; k++)
            v[k] = cml_random_f32(SEED_RA, q + k);
        return bits(cml_stencil9(v)); /* the host's own arithmetic */
    }
    default: return rnd(SEED_RT, cml_hot_index(q, a->m));
    }
}

static void test_readonly(void)
{
    static const uint64_t sizes[] = {1, 8, 9, 10, 4099, (1u << 20) + 3};
    static const uint64_t tables[] = {32, 4096, 1u << 20};
    static const unsigned blocks[] = {256, 96};
    char what[160];
    cml_dbuf T = {0};
    if (!buffer(&T, 1u << 20, 1, SEED_RT))
        return;
    for (size_t s = 0; s < 6; s++) {
        const uint64_t n = sizes[s], cap = n + MARGIN;
        cml_dbuf A = {0}, C = {0};
        if (!buffer(&A, n, 1, SEED_RA) || !buffer(&C, cap, 0, 0))
            goto done;
        for (int p = 0; p < CML_RO_PATTERN_COUNT; p++)
            for (int path = 0; path < CML_RO_PATH_COUNT; path++)
                for (size_t t = 0; t < (p == CML_RO_HOT_GATHER ? 3u : 1u); t++) {
                    const unsigned block = blocks[(t + (size_t)path) % 2];
                    cml_readonly_launch_args a = {.A = A.ptr, .T = T.ptr, .C = C.ptr, .n = n,
                                                  .m = p == CML_RO_HOT_GATHER ? tables[t] : 0,
                                                  .cap = cap, .block = block, .pattern = p,
                                                  .path = path};
                    snprintf(what, sizeof what, "read-only pattern=%d path=%d n=%llu m=%llu "
                             "block=%u", p, path, (unsigned long long)n,
                             (unsigned long long)a.m, block);
                    CHECK(cml_gpu_poison(g, &C) == CML_OK);
                    cml_status st = cml_readonly_launch(&a);
                    CHECK(st == CML_OK);
                    if (st || !fetch(g, &C, cap * sizeof(float)))
                        continue;
                    compare(what, cap, ro_want, &a);
                    uint64_t outs = cml_readonly_threads(p, n);
                    check_checker(what, ro_check_cb, &a, &C, outs ? outs - 1 : UINT64_MAX, outs);
                }
    done:
        cml_gpu_free(g, &A);
        cml_gpu_free(g, &C);
    }
    cml_gpu_free(g, &T);
}

/* ---- the experiments end to end ---------------------------------------- */

static void test_tours(void)
{
    const cml_experiment *const all[] = {&cml_exp_aos_soa, &cml_exp_unroll, &cml_exp_parallelism,
                                         &cml_exp_stride, &cml_exp_readonly};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        const cml_experiment *x = all[k];
        cml_param_values pv;
        tour_params(x, &pv);
        cml_plan plan;
        gpu_test_plan(&plan, g);
        /* Under compute-sanitizer (CML_QUICK_TEST) every access is checked:
         * small arrays keep the run to seconds. */
        if (getenv("CML_QUICK_TEST"))
            plan.size_bytes = (uint64_t)1 << 20;
        cml_results r;
        tour_run(x, &plan, &pv, &r);
        for (size_t i = 0; i < r.count; i++) {
            const cml_record *rec = &r.items[i];
            check_tour_record(x, rec);
            CHECK(rec->bandwidth_gbs > 0);
            CHECK(rec->occupancy > 0);
            CHECK_STR_CONTAINS(rec->finding, "Measured");
            printf("%-12s %-44s %8.1f GB/s  occ %3.0f%%\n", x->key, rec->variant,
                   rec->bandwidth_gbs, 100.0 * rec->occupancy);
        }
        cml_results_free(&r);
    }
}

int main(void)
{
    int rc = gpu_test_open(&g, "a device is present but cannot be opened");
    if (rc)
        return rc;
    test_aos_soa();
    test_unroll();
    test_parallelism();
    test_stride();
    test_readonly();
    test_tours();
    gpu_test_close(g);
    return cml_test_summary("gpu_test_global_kernels");
}
