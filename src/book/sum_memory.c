/*
 * The book's sumArrayZerocpy, sumMatrixGPUManaged and sumMatrixGPUManual
 * (chapter 4): the same additions on different memory.
 *
 *   sumArrayZerocpy [ipower]: nElem = 1 << ipower floats (default 10),
 *     blocks of 512; main() launches sumArrays<<<grid, 512>>>(d_A, d_B,
 *     d_C, nElem) on device memory, then sumArraysZeroCopy with A and B in
 *     mapped, page-locked host memory (cudaHostAllocMapped) read over the
 *     bus, C on the device.
 *   sumMatrixGPUManaged [ishift], sumMatrixGPUManual [ishift]: nx = ny =
 *     1 << ishift (default 12), blocks 32 x 32; main() launches
 *     sumMatrixGPU<<<grid, block>>>(A, B, C, 1, 1) (the book's warm-up:
 *     only thread (0, 0) passes the guard) and then (A, B, C, nx, ny), on
 *     managed memory (cudaMallocManaged, initialised by the host) or on
 *     device memory.
 *
 * Every thread that passes its guard loads A[i] and B[i] and stores C[i]
 * (sum_memory.cu): each warp's 128 contiguous bytes, 4 sectors a request,
 * wherever the memory lives: the counters count the loads the same way; the
 * time is where mapped and managed memory differ. The lab times the median
 * of many launches, so the managed pages have reached the GPU by then (the
 * book timed the first launch, migrations included).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "book/sum_memory_kernels.h"
#include "core/random.h"
#include "gpu/host_memory.h"
#include "lab/common.h"

enum { SEED_A = 0xB00C7, SEED_B = 0xB00C8 };

#define ARRAY_BLOCK 512u /* sumArrayZerocpy's iLen */
#define MATRIX_BLOCK 32u /* sumMatrixGPU*'s dimx = dimy */

typedef struct sum_settings {
    int64_t launch, shift;
} sum_settings;

static const char *const zerocpy_launches[] = {"sumArrays", "sumArraysZeroCopy", NULL};
static const char *const matrix_launches[] = {"warmup", "sumMatrixGPU", NULL};

static const cml_param_def zerocpy_options[] = {
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",
     zerocpy_launches, 0, CML_FIELD(sum_settings, launch), NULL},
    {"ipower", "argv[1]: log2 of the vector size (the book's default 10)", 0, 26, "10", NULL, 0,
     CML_FIELD(sum_settings, shift), NULL},
};
static const cml_param_def matrix_options[] = {
    {"launch", "the kernel launches of the program's main(): the (1, 1) warm-up, then the sum",
     0, 0, "all", matrix_launches, 0, CML_FIELD(sum_settings, launch), NULL},
    {"ishift", "argv[1]: log2 of the matrix side (the book's default 12; its int nBytes holds "
               "up to 14)",
     0, 14, "12", NULL, 0, CML_FIELD(sum_settings, shift), NULL},
};

extern const cml_experiment cml_book_row_sum_array_zerocpy, cml_book_row_sum_matrix_managed,
    cml_book_row_sum_matrix_manual;

/* ---- one launch --------------------------------------------------------- */

typedef struct sum_args {
    int kernel;        /* cml_book_sum_kernel */
    uint32_t nx, ny;   /* the nx (N) and ny the launch passes */
} sum_args;

/* The element thread t adds, or -1 when its guard fails (the kernels'
 * int and unsigned int arithmetic). */
static int64_t sum_thread(const sum_args *a, const cml_thread *t)
{
    if (a->kernel != CML_SUM_MATRIX) {
        const int64_t i = (int64_t)t->bid.x * t->bdim.x + t->tid.x;
        return i < (int64_t)a->nx ? i : -1;
    }
    const uint32_t ix = t->tid.x + t->bid.x * t->bdim.x, iy = t->tid.y + t->bid.y * t->bdim.y;
    return ix < a->nx && iy < a->ny ? (int64_t)(uint32_t)(iy * a->nx + ix) : -1;
}

static void sum_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const uint64_t A = cml_array_base(0), B = cml_array_base(1), C = cml_array_base(2);
    const int64_t i = sum_thread(vargs, t);
    if (i < 0)
        return;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 4 * (uint64_t)i);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 4 * (uint64_t)i);
    cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * (uint64_t)i);
}

/* The launch main() makes: its kernel, arguments and shape; `elems` the
 * floats of each array. */
typedef struct sum_launch_shape {
    sum_args a;
    cml_dim3 grid, block;
    uint64_t elems;
} sum_launch_shape;

static sum_launch_shape sum_shape(const cml_sweep *ctx, const sum_settings *s)
{
    sum_launch_shape L;
    memset(&L, 0, sizeof L);
    if (ctx->exp == &cml_book_row_sum_array_zerocpy) {
        const uint32_t n = 1u << s->shift;
        L.a.kernel = s->launch ? CML_SUM_ZERO_COPY : CML_SUM_ARRAYS;
        L.a.nx = n;
        L.a.ny = 1;
        L.block = cml_dim1(ARRAY_BLOCK);
        L.grid = cml_dim1((n + ARRAY_BLOCK - 1) / ARRAY_BLOCK);
        L.elems = n;
        return L;
    }
    const uint32_t side = 1u << s->shift;
    L.a.kernel = CML_SUM_MATRIX;
    L.a.nx = L.a.ny = s->launch ? side : 1; /* the warm-up passes (1, 1) */
    L.block = cml_dim2(MATRIX_BLOCK, MATRIX_BLOCK);
    L.grid = cml_dim2((side + MATRIX_BLOCK - 1) / MATRIX_BLOCK,
                      (side + MATRIX_BLOCK - 1) / MATRIX_BLOCK);
    L.elems = (uint64_t)side * side;
    return L;
}

static cml_status sum_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const sum_settings *s = vs;
    const sum_launch_shape L = sum_shape(ctx, s);
    cml_status st;
    uint64_t active;
    if (L.a.kernel != CML_SUM_MATRIX) {
        /* blocks of 512 floats: each block the one before shifted by 2 KiB */
        st = cml_exp_trace_1d(rec, L.grid.x, ARRAY_BLOCK, 1, 1, sum_mirror, &L.a);
        active = L.a.nx;
    } else if (L.a.nx == 1) {
        /* The warm-up: only thread (0, 0) of block (0, 0) passes ix < 1 &&
         * iy < 1; every other block makes no access, so block (0, 0) alone
         * is the launch's traffic. */
        st = cml_exp_trace(rec, cml_dim1(1), L.block, sum_mirror, &L.a);
        rec->grid = (uint64_t)L.grid.x * L.grid.y;
        active = 1;
    } else if (L.a.nx % 32 == 0) {
        st = cml_book_trace_uniform_2d(rec, L.grid, L.block, sum_mirror, &L.a);
        active = L.elems;
    } else {
        st = cml_exp_trace(rec, L.grid, L.block, sum_mirror, &L.a);
        active = L.elems;
    }
    if (st)
        return st;
    rec->bytes_read = 8 * active;
    rec->bytes_written = 4 * active;
    const char *where = ctx->exp == &cml_book_row_sum_array_zerocpy
                            ? (s->launch ? "A and B in mapped host memory, read over the bus"
                                         : "A and B in device memory")
                            : ctx->exp == &cml_book_row_sum_matrix_managed
                                  ? "A, B and C in managed memory"
                                  : "A, B and C in device memory";
    cml_record_finding(rec,
                       "%s (%s): %llu thread%s add%s, loads %.2f sectors per request (%.1f%% "
                       "used); the memory's place changes the time, not the requests.",
                       cml_param_choice(&ctx->exp->options[0], s->launch), where,
                       (unsigned long long)active, active == 1 ? "" : "s", active == 1 ? "s" : "",
                       cml_exp_spr(rec, CML_CLASS_GLOBAL_LD),
                       100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD));
    return CML_OK;
}

/* ---- measurement ---------------------------------------------------------- */

/* Mapped (zero-copy) or managed arrays the run owns: freed by release. */
typedef struct sum_state {
    cml_mem A, B, C;
} sum_state;

static void sum_release(cml_sweep *ctx)
{
    sum_state *st = ctx->state;
    cml_gpu *g = ctx->plan->gpu;
    if (!g)
        return;
    cml_mem_free(g, &st->A);
    cml_mem_free(g, &st->B);
    cml_mem_free(g, &st->C);
}

/* Host memory of `kind` for n floats in m, filled by the host with `seed`
 * (as the book's initialData on the host pointer); kept while n stays. */
static cml_status host_array(cml_sweep *ctx, cml_record *rec, cml_mem *m, cml_mem_kind kind,
                             uint64_t n, uint64_t seed)
{
    cml_gpu *g = ctx->plan->gpu;
    if (m->ptr && m->bytes == n * 4 && m->kind == kind)
        return CML_OK;
    cml_mem_free(g, m);
    cml_status st = cml_mem_alloc(g, m, kind, n * 4);
    if (st)
        return cml_exp_fail(ctx->plan, rec, st);
    float *p = m->ptr;
    for (uint64_t i = 0; i < n; i++)
        p[i] = seed ? cml_random_f32(seed, i) : 0.0f;
    return CML_OK;
}

typedef struct sum_check {
    const cml_plan *plan;
    sum_launch_shape L;
    const float *C;
} sum_check;

/* The book's sumArraysOnHost / sumMatrixOnHost where the launch writes,
 * the poison elsewhere (the warm-up writes C[0] only). */
static cml_status sum_check_cb(void *vctx, unsigned long long *d_counters)
{
    const sum_check *c = vctx;
    uint32_t *want = malloc(c->L.elems * sizeof *want);
    if (!want)
        return CML_ENOMEM;
    const uint64_t written = c->L.a.kernel == CML_SUM_MATRIX && c->L.a.nx == 1 ? 1 : c->L.elems;
    for (uint64_t i = 0; i < c->L.elems; i++)
        want[i] = i < written ? cml_book_bits(cml_random_f32(SEED_A, i) + cml_random_f32(SEED_B, i))
                              : CML_BOOK_POISON;
    cml_status st = cml_book_compare(c->plan->gpu, c->C, want, c->L.elems, 0.0, d_counters);
    free(want);
    return st;
}

static cml_status sum_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const sum_settings *s = vs;
    sum_state *state = ctx->state;
    const sum_launch_shape L = sum_shape(ctx, s);
    const size_t bytes = L.elems * 4;
    cml_book_sum_launch K;
    memset(&K, 0, sizeof K);
    cml_dbuf out_view = {0}, *out = NULL;
    if (ctx->exp == &cml_book_row_sum_matrix_managed) {
        if (host_array(ctx, rec, &state->A, CML_MEM_MANAGED, L.elems, SEED_A) ||
            host_array(ctx, rec, &state->B, CML_MEM_MANAGED, L.elems, SEED_B) ||
            host_array(ctx, rec, &state->C, CML_MEM_MANAGED, L.elems, 0))
            return CML_ECUDA;
        K.A = state->A.ptr;
        K.B = state->B.ptr;
        K.C = state->C.ptr;
        out_view = (cml_dbuf){state->C.ptr, bytes, state->C.seq};
        out = &out_view;
    } else {
        cml_exp_abc g;
        if (cml_sweep_abc(ctx, rec, L.elems, SEED_A, SEED_B, &g) != CML_OK)
            return CML_ECUDA;
        K.A = g.A->ptr;
        K.B = g.B->ptr;
        K.C = g.C->ptr;
        out = g.C;
        if (L.a.kernel == CML_SUM_ZERO_COPY) {
            void *dA = NULL, *dB = NULL;
            if (host_array(ctx, rec, &state->A, CML_MEM_MAPPED, L.elems, SEED_A) ||
                host_array(ctx, rec, &state->B, CML_MEM_MAPPED, L.elems, SEED_B))
                return CML_ECUDA;
            cml_status st = cml_mem_device_pointer(ctx->plan->gpu, &state->A, &dA);
            if (!st)
                st = cml_mem_device_pointer(ctx->plan->gpu, &state->B, &dB);
            if (st)
                return cml_exp_fail(ctx->plan, rec, st);
            K.A = dA;
            K.B = dB;
        }
    }
    K.nx = (int)L.a.nx;
    K.ny = (int)L.a.ny;
    K.gx = L.grid.x;
    K.gy = L.grid.y;
    K.bx = L.block.x;
    K.by = L.block.y;
    K.kernel = L.a.kernel;
    sum_check chk = {ctx->plan, L, K.C};
    return cml_exp_measure(ctx->plan, rec, out, cml_book_sum_launch_fn, &K,
                           cml_book_sum_kernel_fn(K.kernel), K.bx * K.by, 0, sum_check_cb, &chk);
}

/* ---- the programs' own lines -------------------------------------------- */

static void zerocpy_print(FILE *out, const cml_book_output *o)
{
    const int ipower = (int)o->args[0];
    const double bytes = 4.0 * (double)(1u << ipower);
    fprintf(out, "Using Device 0: %s ", cml_book_device_name(o));
    if (ipower < 18)
        fprintf(out, "Vector size %u power %d  nbytes  %3.0f KB\n", 1u << ipower, ipower,
                bytes / 1024.0);
    else
        fprintf(out, "Vector size %u power %d  nbytes  %3.0f MB\n", 1u << ipower, ipower,
                bytes / (1024.0 * 1024.0));
}

static void matrix_print(FILE *out, const cml_book_output *o)
{
    const unsigned side = 1u << o->args[0], g = (side + MATRIX_BLOCK - 1) / MATRIX_BLOCK;
    fprintf(out, "%s Starting using Device 0: %s\n", o->prog->name, cml_book_device_name(o));
    fprintf(out, "Matrix size: nx %u ny %u\n", side, side);
    /* main() times its host loops too: not the lab's measurement */
    fprintf(out, "initialization: \t n/a sec\n");
    fprintf(out, "sumMatrix on host:\t n/a sec\n");
    const cml_record *rec = cml_book_record(o, "sumMatrixGPU");
    if (!rec)
        return;
    char el[32];
    cml_book_elapsed(rec, el, sizeof el);
    fprintf(out, "sumMatrix on gpu :\t %s sec <<<(%u,%u), (%u,%u)>>> \n", el, g, g, MATRIX_BLOCK,
            MATRIX_BLOCK);
}

#define SUM_ROW(ROW, KEY, TITLE, SUMMARY, OPTIONS)                                              \
    const cml_experiment ROW = {                                                                \
        .key = KEY,                                                                             \
        .number = 4,                                                                            \
        .title = TITLE,                                                                         \
        .summary = SUMMARY,                                                                     \
        .doc = "docs/textbook.md",                                                              \
        .options = OPTIONS,                                                                     \
        .noptions = CML_COUNT(OPTIONS),                                                         \
        .settings_size = sizeof(sum_settings),                                                  \
        .state_size = sizeof(sum_state),                                                        \
        .tour = "",                                                                             \
        .variant = sum_variant,                                                                 \
        .measure = sum_measure,                                                                 \
        .release = sum_release,                                                                 \
    }

SUM_ROW(cml_book_row_sum_array_zerocpy, "sumArrayZerocpy.cu", "The book's sumArrayZerocpy.cu",
        "C = A + B with A and B in device memory, then in mapped host memory",
        zerocpy_options);
SUM_ROW(cml_book_row_sum_matrix_managed, "sumMatrixGPUManaged.cu",
        "The book's sumMatrixGPUManaged.cu", "a 2-D matrix sum on managed memory",
        matrix_options);
SUM_ROW(cml_book_row_sum_matrix_manual, "sumMatrixGPUManual.cu",
        "The book's sumMatrixGPUManual.cu", "a 2-D matrix sum on device memory", matrix_options);

const cml_book_program cml_book_sum_array_zerocpy = {
    .name = "sumArrayZerocpy",
    .file = "chapter04/sumArrayZerocpy.cu",
    .args_usage = "[ipower]",
    .summary = "sumArrays (device memory), sumArraysZeroCopy (mapped host memory)",
    .positional = {"ipower", NULL},
    .row = &cml_book_row_sum_array_zerocpy,
    .print = zerocpy_print,
};

const cml_book_program cml_book_sum_matrix_managed = {
    .name = "sumMatrixGPUManaged",
    .file = "chapter04/sumMatrixGPUManaged.cu",
    .args_usage = "[ishift]",
    .summary = "sumMatrixGPU on cudaMallocManaged memory: the (1,1) warm-up, then the sum",
    .positional = {"ishift", NULL},
    .row = &cml_book_row_sum_matrix_managed,
    .print = matrix_print,
};

const cml_book_program cml_book_sum_matrix_manual = {
    .name = "sumMatrixGPUManual",
    .file = "chapter04/sumMatrixGPUManual.cu",
    .args_usage = "[ishift]",
    .summary = "sumMatrixGPU on cudaMalloc memory: the (1,1) warm-up, then the sum",
    .positional = {"ishift", NULL},
    .row = &cml_book_row_sum_matrix_manual,
    .print = matrix_print,
};
