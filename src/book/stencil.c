/*
 * The book's constantStencil and constantReadOnly (chapter 5): a 1-D
 * stencil of RADIUS 4 over isize = 1 << 24 floats, blocks of BDIM = 32
 * threads, the input and output allocations isize + 2 * RADIUS floats and
 * the kernels launched on d_in + RADIUS and d_out + RADIUS (16 bytes in).
 *
 * main() launches (stencil.cu; no arguments):
 *   constantStencil:  stencil_1d<<<min(maxGridSize[0], isize / 32), 32>>>(in, out, isize),
 *                     a grid-stride loop; every GPU since compute capability 3.0 has
 *                     maxGridSize[0] = 2^31 - 1, so the grid is isize / 32 and each
 *                     thread makes one pass (Fermi's 65535 would make it loop);
 *   constantReadOnly: stencil_1d<<<isize / 32, 32>>>(in, out), then
 *                     stencil_1d_read_only<<<isize / 32, 32>>>(in, out, d_coef).
 *
 * Each thread (idx = blockIdx.x * 32 + threadIdx.x, sidx = threadIdx.x + 4):
 *   in[idx] -> smem[sidx]; threads 0..3 also in[idx - 4] -> smem[sidx - 4] and
 *   in[idx + 32] -> smem[sidx + 32]; barrier; for i = 1..4: the coefficient i
 *   (__constant__ coef[i], or dcoef[i] through the read-only path: every lane
 *   the same address) and smem[sidx + i], smem[sidx - i]; out[idx] = tmp.
 * `in` and `out` start 16 bytes into their 128-byte lines, so each warp's
 * 128 bytes of in[] and out[] straddle five 32-byte sectors; the left halo
 * (4 floats, 16 bytes) and the right one (16 bytes at byte 144 of the
 * block's line pair) one sector each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "book/stencil_kernels.h"
#include "core/random.h"
#include "lab/common.h"

#define RADIUS CML_BOOK_RADIUS
#define BDIM CML_BOOK_BDIM
#define ISIZE CML_BOOK_ISIZE
#define WORDS (ISIZE + 2 * RADIUS) /* floats of each allocation */

enum { SEED_IN = 0xB00C5 };

/* Sites of the mirror: one per memory instruction of the kernels. */
enum {
    SITE_IN = 0, SITE_SMEM, SITE_HALO_L, SITE_SMEM_L, SITE_HALO_R, SITE_SMEM_R,
    SITE_TAP = 6,                    /* + 3 (i - 1) + {0: coefficient, 1: sidx+i, 2: sidx-i} */
    SITE_OUT = SITE_TAP + 3 * RADIUS
};

/* The book's a1..a4 (a0 = 0 is never read). */
static const float book_coef[RADIUS + 1] = {0.00000f, 0.80000f, -0.20000f, 0.03809f, -0.00357f};

typedef struct stencil_settings {
    int64_t launch;
} stencil_settings;

static const char *const loop_launches[] = {"stencil_1d", NULL};
static const char *const ro_launches[] = {"stencil_1d", "stencil_1d_read_only", NULL};

static const cml_param_def loop_options[] = {
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",
     loop_launches, 0, CML_FIELD(stencil_settings, launch), NULL},
};
static const cml_param_def ro_options[] = {
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",
     ro_launches, 0, CML_FIELD(stencil_settings, launch), NULL},
};

typedef struct stencil_args {
    int kernel; /* cml_book_stencil_kernel */
} stencil_args;

static void stencil_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const stencil_args *a = vargs;
    const uint64_t in = cml_array_base(0) + 4 * RADIUS, out = cml_array_base(1) + 4 * RADIUS;
    const uint64_t dcoef = cml_array_base(2);
    const int64_t tx = t->tid.x, step = (int64_t)t->gdim.x * t->bdim.x;
    const int64_t sidx = tx + RADIUS;
    for (int64_t idx = (int64_t)t->bid.x * t->bdim.x + tx; idx < (int64_t)ISIZE; idx += step) {
        cml_emit(e, SITE_IN, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * idx);
        cml_emit(e, SITE_SMEM, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * sidx);
        if (tx < RADIUS) {
            cml_emit(e, SITE_HALO_L, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
                     in + 4 * (idx - RADIUS));
            cml_emit(e, SITE_SMEM_L, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4,
                     4 * (sidx - RADIUS));
            cml_emit(e, SITE_HALO_R, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
                     in + 4 * (idx + BDIM));
            cml_emit(e, SITE_SMEM_R, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4,
                     4 * (sidx + BDIM));
        }
        for (int64_t i = 1; i <= RADIUS; i++) {
            const unsigned s = SITE_TAP + 3 * (unsigned)(i - 1);
            if (a->kernel == CML_ST_READ_ONLY)
                cml_emit(e, s, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, 4, dcoef + 4 * i);
            else
                cml_emit(e, s, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * i);
            cml_emit(e, s + 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * (sidx + i));
            cml_emit(e, s + 2, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * (sidx - i));
        }
        cml_emit(e, SITE_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * idx);
        if (a->kernel != CML_ST_LOOP)
            break;
    }
}

extern const cml_experiment cml_book_row_constant_stencil, cml_book_row_constant_read_only;

static int kernel_of(const cml_sweep *ctx, int64_t launch)
{
    if (ctx->exp == &cml_book_row_constant_stencil)
        return CML_ST_LOOP;
    return launch ? CML_ST_READ_ONLY : CML_ST_CONST;
}

/* Every GPU of compute capability 3.0 and later allows 2^31 - 1 blocks in
 * x, so main()'s min(maxGridSize[0], isize / 32) is isize / 32. */
static unsigned stencil_grid(void)
{
    return ISIZE / BDIM;
}

static cml_status stencil_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const stencil_settings *s = vs;
    stencil_args a = {kernel_of(ctx, s->launch)};
    /* Every block is the one before shifted by 128 bytes in each array, the
     * same shared words and coefficients: one block stands for all (the
     * engine checks three more), and the first and last are traced. */
    cml_status st = cml_exp_trace_1d(rec, stencil_grid(), BDIM, 1, 1, stencil_mirror, &a);
    if (st)
        return st;
    rec->bytes_read = rec->bytes_written = 4ull * ISIZE;
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const cml_traffic *sl = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    const uint64_t warps = stencil_grid();
    cml_record_finding(rec,
                       "%s: in[] and out[] start 16 bytes into a line, so each warp's 128 bytes "
                       "take 5 sectors (80%% used); with the halo %.2f load sectors per warp%s; "
                       "%.0f shared loads per warp, %llu bank conflicts.",
                       cml_param_choice(&ctx->exp->options[0], s->launch),
                       (double)ld->sectors / (double)warps,
                       a.kernel == CML_ST_READ_ONLY
                           ? " (4 of them the coefficients, one sector each, the read-only path)"
                           : " (the coefficients are __constant__ operands: one address a warp)",
                       (double)sl->requests / (double)warps,
                       (unsigned long long)sl->bank_conflicts);
    return CML_OK;
}

typedef struct stencil_check {
    const cml_plan *plan;
    const float *out;
} stencil_check;

/* The book's cpu_stencil_1d on this launch's indices: out[RADIUS + idx]
 * for idx < isize, the poison in the RADIUS words at either end. Compared
 * within the book's epsilon 1e-6 (the GPU contracts to FMA). */
static cml_status stencil_check_cb(void *vctx, unsigned long long *d_counters)
{
    const stencil_check *c = vctx;
    uint32_t *want = malloc((size_t)WORDS * sizeof *want);
    float *h_in = malloc((size_t)WORDS * sizeof *h_in);
    if (!want || !h_in) {
        free(want);
        free(h_in);
        return CML_ENOMEM;
    }
    for (size_t q = 0; q < WORDS; q++) {
        h_in[q] = cml_random_f32(SEED_IN, q);
        want[q] = CML_BOOK_POISON;
    }
    for (size_t q = RADIUS; q < (size_t)ISIZE + RADIUS; q++) {
        float tmp = 0.0f;
        for (size_t i = 1; i <= RADIUS; i++)
            tmp += book_coef[i] * (h_in[q + i] - h_in[q - i]);
        want[q] = cml_book_bits(tmp);
    }
    free(h_in);
    cml_status st = cml_book_compare(c->plan->gpu, c->out, want, WORDS, 1e-6, d_counters);
    free(want);
    return st;
}

static cml_status stencil_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const stencil_settings *s = vs;
    const int kernel = kernel_of(ctx, s->launch);
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, (size_t)WORDS * 4, SEED_IN);
    cml_dbuf *out = in ? cml_sweep_buffer(ctx, rec, 1, (size_t)WORDS * 4, 0) : NULL;
    cml_dbuf *coef = out ? cml_sweep_buffer(ctx, rec, 2, (RADIUS + 1) * 4, 0) : NULL;
    if (!coef)
        return CML_ECUDA;
    cml_status st = cml_book_stencil_setup(coef->ptr);
    if (st)
        return cml_exp_fail(ctx->plan, rec, st);
    cml_book_stencil_launch L;
    memset(&L, 0, sizeof L);
    L.in = in->ptr;
    L.out = out->ptr;
    L.coef = coef->ptr;
    L.isize = (int)ISIZE;
    L.grid = stencil_grid();
    L.kernel = kernel;
    stencil_check chk = {ctx->plan, out->ptr};
    return cml_exp_measure(ctx->plan, rec, out, cml_book_stencil_launch_fn, &L,
                           cml_book_stencil_kernel_fn(kernel), BDIM, 0, stencil_check_cb, &chk);
}

static void stencil_print(FILE *out, const cml_book_output *o)
{
    fprintf(out, "%s starting transpose at device 0: %s array size: %u (grid, block) %u,%u \n",
            o->prog->name, cml_book_device_name(o), ISIZE, stencil_grid(), BDIM);
}

#define STENCIL_ROW(ROW, KEY, TITLE, SUMMARY, OPTIONS) \
    CML_BOOK_ROW(ROW, 5, KEY, TITLE, SUMMARY, OPTIONS, stencil)

STENCIL_ROW(cml_book_row_constant_stencil, "constantStencil.cu", "The book's constantStencil.cu",
            "stencil_1d, RADIUS 4, coefficients in __constant__ memory, on d_in + RADIUS",
            loop_options);
STENCIL_ROW(cml_book_row_constant_read_only, "constantReadOnly.cu",
            "The book's constantReadOnly.cu",
            "stencil_1d and stencil_1d_read_only: __constant__ vs const __restrict__ "
            "coefficients",
            ro_options);

const cml_book_program cml_book_constant_stencil = {
    .name = "constantStencil",
    .file = "chapter05/constantStencil.cu",
    .args_usage = "",
    .summary = "stencil_1d over 2^24 floats, BDIM 32, coef[] in __constant__",
    .positional = {NULL},
    .row = &cml_book_row_constant_stencil,
    .print = stencil_print,
};

const cml_book_program cml_book_constant_read_only = {
    .name = "constantReadOnly",
    .file = "chapter05/constantReadOnly.cu",
    .args_usage = "",
    .summary = "stencil_1d, then stencil_1d_read_only (coefficients by __ldg)",
    .positional = {NULL},
    .row = &cml_book_row_constant_read_only,
    .print = stencil_print,
};
