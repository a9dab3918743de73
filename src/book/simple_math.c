/*
 * The book's simpleMathAoS and simpleMathSoA (chapter 4): LEN = 1 << 22
 * pairs (x, y), x += 10 and y += 20, stored as an array of structures
 * (innerStruct[LEN]) or as a structure of arrays (InnerArray: x[LEN], then
 * y[LEN]); argv[1] the block size (default 128), grid = (LEN + block - 1) /
 * block.
 *
 * main() launches warmup then testInnerStruct (AoS), or warmup2 then
 * testInnerArray (SoA), each <<<grid, block>>>(d_A, d_C, LEN). Every
 * thread i < LEN makes two 4-byte loads and two 4-byte stores
 * (simple_math.cu): AoS at bytes 8i and 8i + 4 of each array, so a warp's
 * load of one field spans 256 bytes of which it uses 128; SoA at bytes 4i
 * and 4 * (LEN + i), each warp's load 128 contiguous bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "book/simple_math_kernels.h"
#include "core/random.h"
#include "lab/common.h"

#define LEN CML_BOOK_MATH_LEN

enum { SEED_DATA = 0xB00C3 };

typedef struct math_settings {
    int64_t launch, block;
} math_settings;

static const char *const aos_launches[] = {"warmup", "testInnerStruct", NULL};
static const char *const soa_launches[] = {"warmup2", "testInnerArray", NULL};

#define MATH_OPTIONS(launches)                                                                  \
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",       \
     launches, 0, CML_FIELD(math_settings, launch), NULL},                                       \
    {"block", "argv[1]: threads per block (the book's default 128)", 1, 1024, "128", NULL, 0,   \
     CML_FIELD(math_settings, block), NULL}

static const cml_param_def aos_options[] = {MATH_OPTIONS(aos_launches)};
static const cml_param_def soa_options[] = {MATH_OPTIONS(soa_launches)};

extern const cml_experiment cml_book_row_simple_math_aos, cml_book_row_simple_math_soa;

typedef struct math_args {
    int soa;
    uint32_t n;
} math_args;

static void math_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const math_args *a = vargs;
    const uint64_t data = cml_array_base(0), result = cml_array_base(1);
    const uint32_t i = t->bid.x * t->bdim.x + t->tid.x; /* unsigned int, as the book's */
    if (!(i < a->n))
        return;
    /* AoS: data[i].x, data[i].y at 8i, 8i + 4; SoA: data->x[i], data->y[i] */
    const uint64_t x = a->soa ? 4ull * i : 8ull * i;
    const uint64_t y = a->soa ? 4ull * (LEN + (uint64_t)i) : 8ull * i + 4;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, data + x);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, data + y);
    cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, result + x);
    cml_emit(e, 3, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, result + y);
}

static int kernel_of(const cml_sweep *ctx, int64_t launch)
{
    if (ctx->exp == &cml_book_row_simple_math_aos)
        return launch ? CML_MATH_AOS_STRUCT : CML_MATH_AOS_WARMUP;
    return launch ? CML_MATH_SOA_ARRAY : CML_MATH_SOA_WARMUP2;
}

static cml_status math_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const math_settings *s = vs;
    const int kernel = kernel_of(ctx, s->launch);
    const int soa = kernel >= CML_MATH_SOA_WARMUP2;
    const unsigned block = (unsigned)s->block, grid = (LEN + block - 1) / block;
    math_args a = {soa, LEN};
    cml_status st = cml_exp_trace(rec, cml_dim1(grid), cml_dim1(block), math_mirror, &a);
    if (st)
        return st;
    rec->bytes_read = rec->bytes_written = 8ull * LEN;
    const double ld = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    const double fld = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD);
    const double fst = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_ST);
    char quote[200] = "";
    /* The book's figures for its default run of the main kernel. */
    if ((kernel == CML_MATH_AOS_STRUCT || kernel == CML_MATH_SOA_ARRAY) && block == 128) {
        const double book = soa ? 100.0 : 50.0;
        cml_book_quote(rec, "book_fermi_gld_eff", book, "%");
        cml_book_quote(rec, "book_fermi_gst_eff", book, "%");
        snprintf(quote, sizeof quote,
                 " The book measured gld_efficiency and gst_efficiency %.0f%% (Fermi; the "
                 "model's Fermi rules: %.1f%% and %.1f%%).",
                 book, fld, fst);
    }
    cml_record_finding(rec,
                       "%s: each warp's load of one field %s, %.2f sectors per request, %.1f%% "
                       "of the fetched bytes used (Fermi %.1f%%); the stores alike.%s",
                       cml_param_choice(&ctx->exp->options[0], s->launch),
                       soa ? "is 128 contiguous bytes" : "spans 256 bytes, every other float",
                       cml_exp_spr(rec, CML_CLASS_GLOBAL_LD), ld, fld, quote);
    return CML_OK;
}

typedef struct math_check {
    const cml_plan *plan;
    int soa;
    const void *result;
} math_check;

/* testInnerStructHost / testInnerArrayHost over the whole array: every
 * element is written (the grid covers LEN). */
static cml_status math_check_cb(void *vctx, unsigned long long *d_counters)
{
    const math_check *c = vctx;
    const size_t words = 2ull * LEN;
    uint32_t *want = malloc(words * sizeof *want);
    if (!want)
        return CML_ENOMEM;
    for (size_t i = 0; i < LEN; i++) {
        const size_t x = c->soa ? i : 2 * i, y = c->soa ? LEN + i : 2 * i + 1;
        want[x] = cml_book_bits(cml_random_f32(SEED_DATA, x) + 10.f);
        want[y] = cml_book_bits(cml_random_f32(SEED_DATA, y) + 20.f);
    }
    cml_status st = cml_book_compare(c->plan->gpu, c->result, want, words, 0.0, d_counters);
    free(want);
    return st;
}

static cml_status math_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const math_settings *s = vs;
    const int kernel = kernel_of(ctx, s->launch);
    const size_t bytes = 8ull * LEN;
    cml_dbuf *data = cml_sweep_buffer(ctx, rec, 0, bytes, SEED_DATA);
    cml_dbuf *result = data ? cml_sweep_buffer(ctx, rec, 1, bytes, 0) : NULL;
    if (!result)
        return CML_ECUDA;
    cml_book_math_launch L;
    memset(&L, 0, sizeof L);
    L.data = data->ptr;
    L.result = result->ptr;
    L.n = (int)LEN;
    L.block = (unsigned)s->block;
    L.grid = (LEN + L.block - 1) / L.block;
    L.kernel = kernel;
    math_check chk = {ctx->plan, kernel >= CML_MATH_SOA_WARMUP2, result->ptr};
    return cml_exp_measure(ctx->plan, rec, result, cml_book_math_launch_fn, &L,
                           cml_book_math_kernel_fn(kernel), L.block, 0, math_check_cb, &chk);
}

static void math_lines(FILE *out, const cml_book_output *o, const char *const *launches,
                       const char *const *labels)
{
    fprintf(out, "%s test struct of array at device 0: %s \n", o->prog->name,
            cml_book_device_name(o));
    for (size_t k = 0; launches[k]; k++) {
        const cml_record *rec = cml_book_record(o, launches[k]);
        if (!rec)
            continue;
        char el[32];
        cml_book_elapsed(rec, el, sizeof el);
        fprintf(out, "%s<<< %3llu, %3llu >>> elapsed %s sec\n", labels[k],
                (unsigned long long)rec->grid, (unsigned long long)rec->block, el);
    }
}

static void aos_print(FILE *out, const cml_book_output *o)
{
    static const char *const labels[] = {"warmup      ", "innerstruct "};
    math_lines(out, o, aos_launches, labels);
}

static void soa_print(FILE *out, const cml_book_output *o)
{
    static const char *const labels[] = {"warmup2      ", "innerarray   "};
    math_lines(out, o, soa_launches, labels);
}

#define MATH_ROW(ROW, KEY, TITLE, SUMMARY, OPTIONS) \
    CML_BOOK_ROW(ROW, 4, KEY, TITLE, SUMMARY, OPTIONS, math)

MATH_ROW(cml_book_row_simple_math_aos, "simpleMathAoS.cu", "The book's simpleMathAoS.cu",
         "x += 10, y += 20 on innerStruct[1 << 22]", aos_options);
MATH_ROW(cml_book_row_simple_math_soa, "simpleMathSoA.cu", "The book's simpleMathSoA.cu",
         "x += 10, y += 20 on InnerArray {x[1 << 22], y[1 << 22]}", soa_options);

const cml_book_program cml_book_simple_math_aos = {
    .name = "simpleMathAoS",
    .file = "chapter04/simpleMathAoS.cu",
    .args_usage = "[blocksize]",
    .summary = "array of structures: warmup, testInnerStruct (LEN 2^22)",
    .positional = {"block", NULL},
    .row = &cml_book_row_simple_math_aos,
    .print = aos_print,
};

const cml_book_program cml_book_simple_math_soa = {
    .name = "simpleMathSoA",
    .file = "chapter04/simpleMathSoA.cu",
    .args_usage = "[blocksize]",
    .summary = "structure of arrays: warmup2, testInnerArray (LEN 2^22)",
    .positional = {"block", NULL},
    .row = &cml_book_row_simple_math_soa,
    .print = soa_print,
};
