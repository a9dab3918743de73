/*
 * The kernels of experiments 8-10 (pitch2d_body.h, local_body.h, constant_body.h) on a
 * GPU: every kernel at several sizes, including images whose width and
 * height are not multiples of the block, batches of images, thread counts
 * that are not multiples of the block and stencils one block long; each
 * launched once, the WHOLE output buffer (with padding, gaps and a margin
 * the kernel must not write) downloaded and compared bit for bit with a
 * host reference computed from the shared value functions (the stencil and
 * the spill chain with one rounding per operation, so the comparison is
 * exact). The device checker must agree, and must catch a planted wrong
 * element and a write where nothing may be written. The runtime's figures
 * for the local kernels (cudaFuncGetAttributes) must match the build-time
 * ptxas table. Finally each experiment's tour runs end to end and must
 * verify. Without a GPU: "SKIP: <reason>", exit 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "lab/common.h"
#include "experiments/constant/constant_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiments/local/local_body.h"
#include "experiments/pitch2d/pitch2d_body.h"
#include "gpu/gpu.h"
#include "gpu/kernel_info.h"
#include "gpu/pitch.h"
#include "gpu_test_util.h"
#include "../test_util.h"

#define POISON 0xFFFFFFFFu
#define MARGIN 37u /* floats allocated past the kernel's output: must stay poisoned */

static cml_gpu *g;
static int quick; /* CML_QUICK_TEST (under compute-sanitizer): the small sizes only */

/* check_checker_bytes with a value of 0x3F in the element's highest byte
 * planted where nothing may be written. */
static void check_checker(const char *what, check_fn fn, void *ctx, cml_dbuf *out, size_t unit,
                          size_t index_unit, size_t written, size_t unwritten)
{
    check_checker_bytes(g, what, fn, ctx, out, unit, index_unit, written, unwritten,
                        (uint64_t)0x3F << (8 * (unit - 1)));
}

/* ---- experiment 8: pitch2d --------------------------------------------- */

#define SEED_P 0x7E5797ull

static cml_status p2d_check_cb(void *ctx, unsigned long long *d)
{
    return cml_pitch2d_check(ctx, SEED_P, d);
}

/* Pitch of a layout for rows of row_bytes: by hand, or the driver's. */
static size_t p2d_pitch(int layout, size_t row_bytes)
{
    if (layout != 1)
        return (size_t)cml_pitch2d_pitch_bytes(layout, row_bytes, 512);
    size_t p = 0;
    CHECK(cml_gpu_pitch_for(g, row_bytes, &p) == CML_OK);
    return p;
}

/* A buffer of the layout holding `batch` bytes (pitched rows for layout 1). */
static int p2d_alloc(cml_dbuf *b, int layout, size_t row_bytes, size_t pitch, size_t batch)
{
    cml_status st;
    if (layout == 1) {
        size_t got = 0;
        st = cml_gpu_alloc_pitch(g, b, row_bytes, (batch + pitch - 1) / pitch, &got);
        CHECK_EQ_U64(got, pitch); /* the probe and the allocation agree */
    } else {
        st = cml_gpu_alloc(g, b, batch);
    }
    if (st)
        fprintf(stderr, "pitch2d buffer of %zu bytes: %s\n", batch, cml_gpu_error(g));
    CHECK(st == CML_OK);
    return st == CML_OK;
}

static void test_pitch2d(void)
{
    static const unsigned shapes[][3] = {{1, 1, 1}, {33, 7, 2}, {100, 17, 3}, {64, 64, 2},
                                         {777, 555, 1}};
    static const unsigned blocks[][2] = {{32, 8}, {16, 16}, {8, 32}, {256, 1}};
    char what[160];
    const size_t nshapes = sizeof shapes / sizeof shapes[0] - (quick ? 1 : 0);
    for (size_t si = 0; si < nshapes; si++)
        for (int type = 0; type < CML_P2D_TYPE_COUNT; type++)
            for (int layout = 0; layout < 4; layout++) {
                const unsigned W = shapes[si][0], H = shapes[si][1], Z = shapes[si][2];
                const unsigned elem = cml_p2d_elem(type);
                const size_t row = (size_t)W * elem, pitch = p2d_pitch(layout, row);
                CHECK(pitch >= row);
                if (pitch < row || pitch % elem)
                    continue;
                const size_t stride = cml_pitch2d_image_stride_bytes(pitch, H);
                CHECK_EQ_U64(stride % CML_P2D_IMAGE_ALIGN, 0);
                cml_dbuf in = {0}, out = {0};
                if (!p2d_alloc(&in, layout, row, pitch, stride * Z) ||
                    !p2d_alloc(&out, layout, row, pitch, stride * Z))
                    goto next;
                cml_pitch2d_launch_args a = {in.ptr, out.ptr, W, H, Z, pitch / elem,
                                             stride / elem, out.bytes, 0, 0, type};
                CHECK(cml_gpu_poison(g, &in) == CML_OK);
                CHECK(cml_pitch2d_fill(&a, SEED_P) == CML_OK);
                for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
                    a.bx = blocks[bi][0];
                    a.by = blocks[bi][1];
                    snprintf(what, sizeof what, "pitch2d %ux%u x%u type=%d layout=%d pitch=%zu "
                             "block=%ux%u", W, H, Z, type, layout, pitch, a.bx, a.by);
                    CHECK(cml_gpu_poison(g, &out) == CML_OK);
                    cml_status st = cml_pitch2d_launch(&a);
                    CHECK(st == CML_OK);
                    if (st || !fetch(g, &out, out.bytes))
                        continue;
                    /* Host reference, slot by slot, written the plain way:
                     * image elements from (z, y, x), everything else poison. */
                    size_t wrong = 0, first = 0, last_elem = 0, pad = SIZE_MAX;
                    for (size_t at = 0; at + elem <= out.bytes; at += elem) {
                        const size_t z = at / stride, y = (at % stride) / pitch;
                        const size_t xb = (at % stride) % pitch;
                        uint64_t want = elem == 8 ? ~0ull : (1ull << (8 * elem)) - 1;
                        if (z < Z && y < H && xb < row) {
                            const uint64_t q = ((uint64_t)z * H + y) * W + xb / elem;
                            want = cml_p2d_out_bits(type, SEED_P, q);
                            last_elem = at;
                        } else if (pad == SIZE_MAX) {
                            pad = at;
                        }
                        uint64_t got = 0;
                        memcpy(&got, (const unsigned char *)fetched + at, elem);
                        if (got != want && !wrong++)
                            first = at;
                    }
                    if (wrong)
                        fprintf(stderr, "%s: %zu wrong slots, first at byte %zu\n", what, wrong,
                                first);
                    CHECK_EQ_U64(wrong, 0);
                    check_checker(what, p2d_check_cb, &a, &out, elem, 1, last_elem, pad);
                }
            next:
                cml_gpu_free(g, &in);
                cml_gpu_free(g, &out);
            }
}

/* ---- experiment 9: local ------------------------------------------------ */

#define SEED_L 0x7E5710ull

typedef struct local_ctx {
    cml_local_launch_args a;
    uint64_t seed;
} local_ctx;

static cml_status local_check_cb(void *ctx, unsigned long long *d)
{
    const local_ctx *c = ctx;
    return cml_local_check(&c->a, c->seed, d);
}

static void test_local(void)
{
    static const uint64_t sizes[] = {1, 33, 1000, 4099, (1u << 20) + 3};
    static const int ks[] = {8, 31, 256};
    static const unsigned blocks[] = {256, 96, 32, 1024};
    char what[160];
    const size_t nsizes = sizeof sizes / sizeof sizes[0] - (quick ? 2 : 0);
    for (size_t si = 0; si < nsizes; si++) {
        const uint64_t n = sizes[si], cap = n + MARGIN;
        cml_dbuf in = {0}, out = {0};
        cml_status st = cml_gpu_alloc(g, &in, n * sizeof(float));
        if (!st)
            st = cml_gpu_fill_f32(g, &in, n, SEED_L);
        if (!st)
            st = cml_gpu_alloc(g, &out, cap * sizeof(float));
        CHECK(st == CML_OK);
        if (st)
            goto done;
        for (int p = 0; p < CML_LK_COUNT; p++)
            for (int regs = 0; regs < 2; regs++)
                for (size_t ki = 0; ki < (p == CML_LK_SPILL ? 1u : 3u); ki++) {
                    const int K = p == CML_LK_SPILL ? (int)CML_LOCAL_SPILL_VALUES : ks[ki];
                    const int s = (int)(ki == 0 ? 0 : ki == 1 ? K - 1 : 5);
                    const unsigned block = blocks[(si + ki + (size_t)regs) % 4];
                    local_ctx c = {{in.ptr, out.ptr, n, cap, K, s, block, p, regs}, SEED_L};
                    snprintf(what, sizeof what, "local pattern=%d regs=%d n=%llu K=%d s=%d "
                             "block=%u", p, regs, (unsigned long long)n, K, s, block);
                    CHECK(cml_gpu_poison(g, &out) == CML_OK);
                    st = cml_local_launch(&c.a);
                    CHECK(st == CML_OK);
                    if (st || !fetch(g, &out, cap * sizeof(float)))
                        continue;
                    uint64_t wrong = 0, first = 0;
                    for (uint64_t q = 0; q < cap; q++) {
                        uint32_t want = POISON;
                        if (q < n) {
                            const float v = cml_random_f32(SEED_L, q);
                            if (p == CML_LK_SPILL)
                                want = bits(cml_local_spill_ref(v));
                            else if (p == CML_LK_SAME_INDEX)
                                want = bits(v); /* arr[s] holds v + 0 */
                            else /* the store with j = lane % K lands on the index read */
                                want = bits(v + (float)(int)((q % 32) % (uint64_t)K));
                        }
                        if (fetched[q] != want && !wrong++)
                            first = q;
                    }
                    if (wrong)
                        fprintf(stderr, "%s: %llu wrong floats, first at %llu (0x%08x)\n", what,
                                (unsigned long long)wrong, (unsigned long long)first,
                                fetched[first]);
                    CHECK_EQ_U64(wrong, 0);
                    check_checker(what, local_check_cb, &c, &out, 4, 4, 4 * (n - 1), 4 * n);
                }
    done:
        cml_gpu_free(g, &in);
        cml_gpu_free(g, &out);
    }

    /* The runtime's view of each local kernel against ptxas's, when the
     * table was built for the architecture that runs. */
    for (int p = 0; p < CML_LK_COUNT; p++)
        for (int regs = 0; regs < 2; regs++) {
            const char *name = cml_local_kernel_name(p, regs);
            const cml_ptxas_entry *e = cml_local_ptxas_find(name);
            cml_kernel_info ki;
            CHECK(e != NULL);
            CHECK(cml_gpu_kernel_info(g, cml_local_kernel(p, regs), &ki) == CML_OK);
            char arch[16];
            snprintf(arch, sizeof arch, "sm_%d", ki.binary_version);
            printf("%-24s ptxas(%s) %3d regs %5u B stack %4u/%4u B spill | runtime(%s) %3d regs "
                   "%5zu B local\n", name, cml_local_ptxas_arch, e ? e->regs : -1,
                   e ? e->stack_bytes : 0, e ? e->spill_store_bytes : 0,
                   e ? e->spill_load_bytes : 0, arch, ki.regs, ki.local_bytes);
            if (e && strcmp(arch, cml_local_ptxas_arch) == 0) {
                CHECK_EQ_I64(ki.regs, e->regs);
                CHECK_EQ_U64(ki.local_bytes, e->stack_bytes);
            }
        }
    /* A bad pattern or K is refused, not launched. */
    cml_local_launch_args bad = {NULL, NULL, 32, 32, 0, 0, 32, CML_LK_SAME_INDEX, 0};
    CHECK_EQ_I64(cml_local_launch(&bad), CML_EINVAL);
    bad.K = 8;
    bad.s = 8;
    CHECK_EQ_I64(cml_local_launch(&bad), CML_EINVAL);
}

/* ---- experiment 10: constant -------------------------------------------- */

#define SEED_CI 0x7E5C01ull
#define SEED_CT 0x7E5C02ull
#define SEED_CC 0x7E5C03ull
#define LEAD 32u

static cml_status const_check_cb(void *ctx, unsigned long long *d)
{
    return cml_constant_check(ctx, SEED_CI, SEED_CT, SEED_CC, d);
}

/* Host reference of out[q] (POISON past n); ctx: the launch arguments. */
static uint32_t const_want(const void *ctx, uint64_t q)
{
    const cml_constant_launch_args *a = ctx;
    if (q >= a->n)
        return POISON;
    if (a->pattern == CML_CONST_SERIAL) {
        const uint64_t t = ((q % 32) % (uint64_t)a->k) * (uint64_t)a->stride;
        return bits(cml_random_f32(SEED_CI, a->in_first + q) + cml_random_f32(SEED_CT, t));
    }
    float v[CML_CONST_TAPS], c[CML_CONST_TAPS];
    for (unsigned j = 0; j < CML_CONST_TAPS; j++) {
        v[j] = cml_random_f32(SEED_CI, a->in_first + q - CML_STENCIL_RADIUS + j);
        c[j] = cml_random_f32(SEED_CC, j);
    }
    return bits(cml_const_stencil_ref(v, c));
}

static void const_run(const char *what, cml_constant_launch_args *a, cml_dbuf *out)
{
    CHECK(cml_gpu_poison(g, out) == CML_OK);
    cml_status st = cml_constant_launch(a);
    CHECK(st == CML_OK);
    if (st || !fetch(g, out, a->cap * sizeof(float)))
        return;
    compare_words(what, "floats", a->cap, const_want, a);
    check_checker(what, const_check_cb, a, out, 4, 4, a->n ? 4 * (a->n - 1) : SIZE_MAX,
                  4 * a->n);
}

static void test_constant(void)
{
    static const uint64_t sizes[] = {1, 33, 4099, (1u << 20) + 5};
    static const int ks[] = {1, 2, 3, 5, 8, 32};
    static const int strides[] = {1, 3, 32, 526};
    static const unsigned blocks[] = {256, 96, 32, 1024};
    char what[160];
    const uint64_t nmax = 37u * 1024u;
    cml_dbuf in = {0}, out = {0}, coef = {0};
    const uint64_t inbuf = ((1u << 20) + 5 > nmax ? (1u << 20) + 5 : nmax) + 2 * LEAD;
    cml_status st = cml_gpu_alloc(g, &in, inbuf * sizeof(float));
    if (!st)
        st = cml_gpu_fill_f32(g, &in, inbuf, SEED_CI);
    if (!st)
        st = cml_gpu_alloc(g, &out, (inbuf + MARGIN) * sizeof(float));
    if (!st)
        st = cml_gpu_alloc(g, &coef, CML_CONST_TAPS * sizeof(float));
    if (!st)
        st = cml_constant_upload(SEED_CT, SEED_CC, (float *)coef.ptr);
    if (st)
        fprintf(stderr, "constant buffers: %s\n", cml_gpu_error(g));
    CHECK(st == CML_OK);
    if (st)
        goto done;
    const size_t nsizes = sizeof sizes / sizeof sizes[0] - (quick ? 1 : 0);
    for (size_t si = 0; si < nsizes; si++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (size_t ti = 0; ti < sizeof strides / sizeof strides[0]; ti++) {
                cml_constant_launch_args a;
                memset(&a, 0, sizeof a);
                a.in = (const float *)in.ptr;
                a.out = (float *)out.ptr;
                a.n = sizes[si];
                a.cap = sizes[si] + MARGIN;
                a.k = ks[ki];
                a.stride = strides[ti];
                a.block = blocks[(si + ki + ti) % 4];
                a.pattern = CML_CONST_SERIAL;
                snprintf(what, sizeof what, "constant serial n=%llu k=%d stride=%d block=%u",
                         (unsigned long long)a.n, a.k, a.stride, a.block);
                const_run(what, &a, &out);
            }
    for (size_t bi = 0; bi < 4; bi++)
        for (unsigned mult = 1; mult <= 37; mult += 18) /* 1, 19, 37 blocks */
            for (int cw = CML_COEF_CONSTANT; cw <= CML_COEF_GLOBAL; cw++) {
                cml_constant_launch_args a;
                memset(&a, 0, sizeof a);
                a.in_first = LEAD;
                a.in = (const float *)in.ptr + LEAD;
                a.out = (float *)out.ptr;
                a.coef = (const float *)coef.ptr;
                a.block = blocks[bi];
                a.n = (uint64_t)mult * a.block;
                a.cap = a.n + MARGIN;
                a.pattern = CML_CONST_STENCIL;
                a.coef_where = cw;
                snprintf(what, sizeof what, "constant stencil n=%llu coef=%d block=%u",
                         (unsigned long long)a.n, cw, a.block);
                const_run(what, &a, &out);
            }
    {
        /* Refused, not launched: a stencil n that is not a multiple of the
         * block, k = 0, a stride past the table. */
        cml_constant_launch_args a;
        memset(&a, 0, sizeof a);
        a.in = (const float *)in.ptr + LEAD;
        a.out = (float *)out.ptr;
        a.n = 100;
        a.cap = 200;
        a.block = 64;
        a.pattern = CML_CONST_STENCIL;
        CHECK_EQ_I64(cml_constant_launch(&a), CML_EINVAL);
        a.pattern = CML_CONST_SERIAL;
        a.k = 0;
        a.stride = 1;
        CHECK_EQ_I64(cml_constant_launch(&a), CML_EINVAL);
        a.k = 2;
        a.stride = 527;
        CHECK_EQ_I64(cml_constant_launch(&a), CML_EINVAL);
    }
done:
    cml_gpu_free(g, &in);
    cml_gpu_free(g, &out);
    cml_gpu_free(g, &coef);
}

/* ---- the experiments end to end ---------------------------------------- */

static void test_tours(void)
{
    const cml_experiment *const all[] = {&cml_exp_pitch2d, &cml_exp_local, &cml_exp_constant};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        const cml_experiment *x = all[k];
        cml_param_values pv;
        char err[256] = "";
        CHECK(x->measure != NULL);
        if (!x->measure)
            continue;
        tour_params(x, &pv);
        /* local's n is its own parameter, not sized by the plan. */
        if (quick && x == &cml_exp_local)
            CHECK(cml_param_set(&pv, "n", "4096", err, sizeof err) == CML_OK);
        cml_plan plan;
        gpu_test_plan(&plan, g);
        /* Under compute-sanitizer (CML_QUICK_TEST) every access is checked:
         * small arrays keep the run to seconds. */
        if (quick)
            plan.size_bytes = (uint64_t)1 << 20;
        cml_results r;
        tour_run(x, &plan, &pv, &r);
        for (size_t i = 0; i < r.count; i++) {
            const cml_record *rec = &r.items[i];
            check_tour_record(x, rec);
            CHECK(rec->has_model);
            CHECK(rec->bandwidth_gbs > 0);
            CHECK(rec->occupancy > 0);
            CHECK(strlen(rec->finding) < sizeof rec->finding - 1); /* not cut off */
            const cml_record_param *impl = cml_record_find_param(rec, "impl");
            if (!impl || impl->value == 0)
                CHECK_STR_CONTAINS(rec->finding, "Measured");
            printf("%-9s %-58s %8.1f GB/s  occ %3.0f%%\n", x->key, rec->variant,
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
    quick = getenv("CML_QUICK_TEST") != NULL;
    test_pitch2d();
    test_local();
    test_constant();
    test_tours();
    gpu_test_close(g);
    return cml_test_summary("gpu_test_space_kernels");
}
