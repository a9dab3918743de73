/*
 * The book's readSegment, readSegmentUnroll and writeSegment (chapter 4):
 * misaligned reads and writes of nElem = 1 << 20 floats, argv[1] the
 * offset (default 0), argv[2] the block size (default 512).
 *
 * What main() launches, in order (grid = (nElem + block - 1) / block):
 *   readSegment:        warmup, readOffset                  <<<grid, block>>>(A, B, C, nElem, offset)
 *   readSegmentUnroll:  warmup, readOffset, then
 *                       readOffsetUnroll2 <<<grid / 2, block>>>(..., nElem / 2, offset)
 *                       readOffsetUnroll4 <<<grid / 4, block>>>(..., nElem / 4, offset)
 *   writeSegment:       warmup, writeOffset, then
 *                       writeOffsetUnroll2 <<<grid / 2, block>>>(..., nElem / 2, offset)
 *                       writeOffsetUnroll4 <<<grid / 4, block>>>(..., nElem / 2, offset)
 * The n the book passes to the unrolled kernels is kept: their guards then
 * leave part of the array untouched (the book's checkResult did not see it,
 * because C still held the previous kernel's result; here C is poisoned
 * before every launch and the untouched part must stay poison).
 *
 * Each thread of kernel K moves U elements (U = 1, 2 or 4): C[dst_u] =
 * A[src_u] + B[src_u], with (unsigned int arithmetic, as the book's):
 *   reads:  i = blockIdx.x * blockDim.x * U + threadIdx.x, k = i + offset,
 *           src_u = k + u * blockDim.x, dst_u = i + u * blockDim.x
 *   writes: i = blockIdx.x * blockDim.x + threadIdx.x (U = 1, 2 or 4 alike),
 *           k = i + offset, src_u = i + u * blockDim.x, dst_u = k + u * blockDim.x
 * guarded by k + (U - 1) * blockDim.x < n. seg_thread() below is that
 * rule; the mirror, the host reference and the byte counts all use it, and
 * read_segment.cu / write_segment.cu are the book's kernels that obey it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "book/segment_kernels.h"
#include "core/random.h"
#include "lab/common.h"

#define NELEM (1u << 20) /* the book's nElem */

enum { SEED_A = 0xB00C1, SEED_B = 0xB00C2 };

typedef struct seg_settings {
    int64_t launch, offset, block;
} seg_settings;

/* The launches of each program, by the book's kernel names, and the
 * kernel each stands for. */
static const char *const read_launches[] = {"warmup", "readOffset", NULL};
static const char *const unroll_launches[] = {"warmup", "readOffset", "readOffsetUnroll2",
                                              "readOffsetUnroll4", NULL};
static const char *const write_launches[] = {"warmup", "writeOffset", "writeOffsetUnroll2",
                                             "writeOffsetUnroll4", NULL};
static const int read_kernels[] = {CML_SEG_READ_WARMUP, CML_SEG_READ_OFFSET};
static const int unroll_kernels[] = {CML_SEG_READ_WARMUP, CML_SEG_READ_OFFSET,
                                     CML_SEG_READ_UNROLL2, CML_SEG_READ_UNROLL4};
static const int write_kernels[] = {CML_SEG_WRITE_WARMUP, CML_SEG_WRITE_OFFSET,
                                    CML_SEG_WRITE_UNROLL2, CML_SEG_WRITE_UNROLL4};

#define SEG_OPTIONS(launches)                                                                    \
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",        \
     launches, 0, CML_FIELD(seg_settings, launch), NULL},                                         \
    {"offset", "argv[1]: the element offset (the book's default 0)", 0, NELEM - 1, "0", NULL, 0, \
     CML_FIELD(seg_settings, offset), NULL},                                                      \
    {"block", "argv[2]: threads per block (the book's default 512)", 1, 1024, "512", NULL, 0,    \
     CML_FIELD(seg_settings, block), NULL}

static const cml_param_def read_options[] = {SEG_OPTIONS(read_launches)};
static const cml_param_def unroll_options[] = {SEG_OPTIONS(unroll_launches)};
static const cml_param_def write_options[] = {SEG_OPTIONS(write_launches)};

/* ---- one launch --------------------------------------------------------- */

typedef struct seg_args {
    int kernel;        /* cml_book_seg_kernel */
    uint32_t n;        /* the n the book passes */
    uint32_t offset;
    cml_cache load;    /* the loads' cache operator: CA as built; CG for -Xptxas -dlcm=cg */
} seg_args;

static int is_write(int kernel)
{
    return kernel >= CML_SEG_WRITE_WARMUP;
}

/* Elements per thread (U) of a kernel. */
static unsigned seg_unroll(int kernel)
{
    switch (kernel) {
    case CML_SEG_READ_UNROLL2: case CML_SEG_WRITE_UNROLL2: return 2;
    case CML_SEG_READ_UNROLL4: case CML_SEG_WRITE_UNROLL4: return 4;
    default: return 1;
    }
}

/* The launch main() makes of a kernel at this block size: grid and n. */
static void seg_shape(int kernel, unsigned block, unsigned *grid, uint32_t *n)
{
    const unsigned g0 = (NELEM + block - 1) / block;
    const unsigned u = seg_unroll(kernel);
    *grid = g0 / u;
    /* nElem / 2 for writeOffsetUnroll4 too: the book's main() passes it */
    *n = u == 1 ? NELEM : (kernel == CML_SEG_READ_UNROLL4 ? NELEM / 4 : NELEM / 2);
}

/* The elements thread (bx, tx) of a block of bd threads moves: U pairs
 * (src, dst) of C[dst] = A[src] + B[src], or 0 when its guard fails. All
 * arithmetic in 32-bit unsigned, as the kernels' unsigned int. */
static unsigned seg_thread(const seg_args *a, uint32_t bx, uint32_t tx, uint32_t bd,
                           uint32_t src[4], uint32_t dst[4])
{
    const unsigned u = seg_unroll(a->kernel);
    const int write = is_write(a->kernel);
    const uint32_t i = bx * bd * (write ? 1u : u) + tx;
    const uint32_t k = i + a->offset;
    if (!(k + (u - 1) * bd < a->n))
        return 0;
    for (unsigned q = 0; q < u; q++) {
        src[q] = (write ? i : k) + q * bd;
        dst[q] = (write ? k : i) + q * bd;
    }
    return u;
}

static void seg_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const seg_args *a = vargs;
    const uint64_t A = cml_array_base(0), B = cml_array_base(1), C = cml_array_base(2);
    uint32_t src[4], dst[4];
    unsigned u = seg_thread(a, t->bid.x, t->tid.x, t->bdim.x, src, dst);
    for (unsigned q = 0; q < u; q++) {
        cml_emit(e, 3 * q, CML_SPACE_GLOBAL, CML_OP_LOAD, a->load, 4, A + 4ull * src[q]);
        cml_emit(e, 3 * q + 1, CML_SPACE_GLOBAL, CML_OP_LOAD, a->load, 4, B + 4ull * src[q]);
        cml_emit(e, 3 * q + 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4ull * dst[q]);
    }
}

/* Threads that pass their guard. */
static uint64_t seg_active(const seg_args *a, unsigned grid, unsigned block)
{
    uint64_t active = 0;
    uint32_t src[4], dst[4];
    for (uint32_t bx = 0; bx < grid; bx++)
        for (uint32_t tx = 0; tx < block; tx++)
            active += seg_thread(a, bx, tx, block, src, dst) ? 1 : 0;
    return active;
}

/* ---- records ------------------------------------------------------------ */

typedef struct seg_program {
    const cml_experiment *row;
    const int *kernels;
} seg_program;

extern const cml_experiment cml_book_row_read_segment, cml_book_row_read_segment_unroll,
    cml_book_row_write_segment;

static int kernel_of(const cml_sweep *ctx, int64_t launch)
{
    if (ctx->exp == &cml_book_row_read_segment)
        return read_kernels[launch];
    if (ctx->exp == &cml_book_row_read_segment_unroll)
        return unroll_kernels[launch];
    return write_kernels[launch];
}

/* The book's figures for its own run at offset 11, block 512 (its default
 * block), beside the model's Fermi column. */
static void seg_quotes(cml_record *rec, const seg_args *a, unsigned grid, unsigned block,
                       char *text, size_t len)
{
    text[0] = '\0';
    if (a->offset != 11 || block != 512)
        return;
    if (a->kernel == CML_SEG_READ_OFFSET) {
        /* The same launch built with -Xptxas -dlcm=cg: loads through L2 only. */
        seg_args cg = *a;
        cg.load = CML_CACHE_CG;
        cml_kernel_traffic t;
        memset(&t, 0, sizeof t);
        double model_cg = -1;
        if (cml_trace_kernel(CML_RULES_FERMI, cml_dim1(grid), cml_dim1(block), seg_mirror, &cg,
                             &t) == CML_OK)
            model_cg = 100.0 * cml_traffic_efficiency(&t.cls[CML_CLASS_GLOBAL_LD]);
        cml_book_quote(rec, "book_fermi_gld_eff", 49.81, "%");
        cml_book_quote(rec, "book_fermi_gld_eff_dlcm_cg", 80.0, "%");
        if (model_cg >= 0)
            cml_record_add_extra(rec, "model_fermi_gld_eff_dlcm_cg", model_cg, "%");
        snprintf(text, len,
                 " The book measured gld_efficiency 49.81%% here (Fermi, cached loads; the "
                 "model's Fermi rules: %.2f%%) and 80%% built with -Xptxas -dlcm=cg (model: "
                 "%.2f%%).",
                 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD), model_cg);
    } else if (a->kernel == CML_SEG_WRITE_OFFSET) {
        cml_book_quote(rec, "book_fermi_gst_eff", 80.0, "%");
        snprintf(text, len,
                 " The book measured gst_efficiency 80%% here (Fermi; the model's Fermi rules: "
                 "%.2f%%).",
                 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_ST));
    }
}

static cml_status seg_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const seg_settings *s = vs;
    const int kernel = kernel_of(ctx, s->launch);
    const unsigned block = (unsigned)s->block;
    unsigned grid;
    seg_args a = {kernel, 0, (uint32_t)s->offset, CML_CACHE_CA};
    seg_shape(kernel, block, &grid, &a.n);
    cml_status st = cml_exp_trace(rec, cml_dim1(grid), cml_dim1(block), seg_mirror, &a);
    if (st)
        return st;
    const uint64_t active = seg_active(&a, grid, block), u = seg_unroll(kernel);
    rec->bytes_read = active * u * 8;
    rec->bytes_written = active * u * 4;
    const cml_class c = is_write(kernel) ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    const char *launch = cml_param_choice(&ctx->exp->options[0], s->launch);
    char quote[320];
    seg_quotes(rec, &a, grid, block, quote, sizeof quote);
    if (active == 0) {
        cml_record_finding(rec,
                           "%s <<<%u, %u>>> with n = %u and offset %u: every thread fails its "
                           "guard, nothing is read or written.",
                           launch, grid, block, a.n, a.offset);
        return CML_OK;
    }
    char guard[128] = "";
    if (active < (uint64_t)grid * block)
        snprintf(guard, sizeof guard, " (%llu of %llu threads pass the guard, n = %u)",
                 (unsigned long long)active, (unsigned long long)grid * block, a.n);
    const cml_traffic *f = &rec->model[CML_RULES_FERMI].cls[c];
    cml_record_finding(rec,
                       "%s, offset %u%s: the %s take %.2f sectors per request (%.1f%% of the "
                       "fetched bytes used); Fermi: %.2f transactions per request (%.1f%%).%s",
                       launch, a.offset, guard, is_write(kernel) ? "stores" : "loads",
                       cml_exp_spr(rec, c), 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, c),
                       f->requests ? (double)f->transactions / (double)f->requests : 0.0,
                       100.0 * cml_exp_eff(rec, CML_RULES_FERMI, c), quote);
    return CML_OK;
}

typedef struct seg_check {
    const cml_plan *plan;
    seg_args a;
    unsigned grid, block;
    const float *C;
} seg_check;

/* The book's sumArraysOnHost for exactly this launch: C[dst] = A[src] +
 * B[src] where a thread passes its guard, poison everywhere else. */
static cml_status seg_check_cb(void *vctx, unsigned long long *d_counters)
{
    const seg_check *c = vctx;
    uint32_t *want = malloc((size_t)NELEM * sizeof *want);
    if (!want)
        return CML_ENOMEM;
    for (size_t q = 0; q < NELEM; q++)
        want[q] = CML_BOOK_POISON;
    uint32_t src[4], dst[4];
    for (uint32_t bx = 0; bx < c->grid; bx++)
        for (uint32_t tx = 0; tx < c->block; tx++) {
            unsigned u = seg_thread(&c->a, bx, tx, c->block, src, dst);
            for (unsigned q = 0; q < u; q++)
                want[dst[q]] = cml_book_bits(cml_random_f32(SEED_A, src[q]) +
                                             cml_random_f32(SEED_B, src[q]));
        }
    cml_status st = cml_book_compare(c->plan->gpu, c->C, want, NELEM, 0.0, d_counters);
    free(want);
    return st;
}

static cml_status seg_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const seg_settings *s = vs;
    const int kernel = kernel_of(ctx, s->launch);
    cml_exp_abc g;
    if (cml_sweep_abc(ctx, rec, NELEM, SEED_A, SEED_B, &g) != CML_OK)
        return CML_ECUDA;
    cml_book_seg_launch L;
    memset(&L, 0, sizeof L);
    L.A = g.A->ptr;
    L.B = g.B->ptr;
    L.C = g.C->ptr;
    L.offset = (int)s->offset;
    L.block = (unsigned)s->block;
    L.kernel = kernel;
    uint32_t n;
    seg_shape(kernel, L.block, &L.grid, &n);
    L.n = (int)n;
    seg_check chk = {ctx->plan, {kernel, n, (uint32_t)s->offset, CML_CACHE_CA}, L.grid, L.block,
                     L.C};
    const int write = is_write(kernel);
    return cml_exp_measure(ctx->plan, rec, g.C,
                           write ? cml_book_write_segment_launch : cml_book_read_segment_launch,
                           &L,
                           write ? cml_book_write_segment_kernel(kernel)
                                 : cml_book_read_segment_kernel(kernel),
                           L.block, 0, seg_check_cb, &chk);
}

/* ---- the programs' own lines -------------------------------------------- */

/* "%-10s <<< %4d, %4d >>> offset %4d elapsed %f sec" with the book's
 * padding of each program (its printf()s line the names up by hand). */
static void seg_lines(FILE *out, const cml_book_output *o, const char *const *launches,
                      const char *const *labels)
{
    fprintf(out, "%s starting reduction at device 0: %s  with array size %u\n", o->prog->name,
            cml_book_device_name(o), NELEM);
    for (size_t k = 0; launches[k]; k++) {
        const cml_record *rec = cml_book_record(o, launches[k]);
        if (!rec)
            continue;
        char el[32];
        cml_book_elapsed(rec, el, sizeof el);
        fprintf(out, "%s<<< %4llu, %4llu >>> offset %4lld elapsed %s sec\n", labels[k],
                (unsigned long long)rec->grid, (unsigned long long)rec->block,
                (long long)cml_book_param(rec, "offset"), el);
    }
}

static void read_print(FILE *out, const cml_book_output *o)
{
    static const char *const labels[] = {"warmup     ", "readOffset "};
    seg_lines(out, o, read_launches, labels);
}

static void unroll_print(FILE *out, const cml_book_output *o)
{
    static const char *const labels[] = {"warmup     ", "readOffset ", "unroll2    ",
                                         "unroll4    "};
    seg_lines(out, o, unroll_launches, labels);
}

static void write_print(FILE *out, const cml_book_output *o)
{
    static const char *const labels[] = {"warmup      ", "writeOffset ", "unroll2     ",
                                         "unroll4     "};
    seg_lines(out, o, write_launches, labels);
}

/* ---- rows and programs --------------------------------------------------- */

#define SEG_ROW(ROW, KEY, TITLE, SUMMARY, OPTIONS) \
    CML_BOOK_ROW(ROW, 4, KEY, TITLE, SUMMARY, OPTIONS, seg)

SEG_ROW(cml_book_row_read_segment, "readSegment.cu", "The book's readSegment.cu",
        "warmup and readOffset: C[i] = A[i + offset] + B[i + offset], 2^20 floats",
        read_options);
SEG_ROW(cml_book_row_read_segment_unroll, "readSegmentUnroll.cu", "The book's readSegmentUnroll.cu",
        "readOffset unrolled 2 and 4 times, with the n the book passes", unroll_options);
SEG_ROW(cml_book_row_write_segment, "writeSegment.cu", "The book's writeSegment.cu",
        "warmup, writeOffset and its unrolled forms: C[i + offset] = A[i] + B[i]",
        write_options);

const cml_book_program cml_book_read_segment = {
    .name = "readSegment",
    .file = "chapter04/readSegment.cu",
    .alias = "readOffset",
    .args_usage = "[offset] [blocksize]",
    .summary = "misaligned reads: warmup, readOffset (nElem 2^20)",
    .positional = {"offset", "block", NULL},
    .row = &cml_book_row_read_segment,
    .print = read_print,
};

const cml_book_program cml_book_read_segment_unroll = {
    .name = "readSegmentUnroll",
    .file = "chapter04/readSegmentUnroll.cu",
    .args_usage = "[offset] [blocksize]",
    .summary = "misaligned reads unrolled: warmup, readOffset, unroll2, unroll4",
    .positional = {"offset", "block", NULL},
    .row = &cml_book_row_read_segment_unroll,
    .print = unroll_print,
};

const cml_book_program cml_book_write_segment = {
    .name = "writeSegment",
    .file = "chapter04/writeSegment.cu",
    .alias = "writeOffset",
    .args_usage = "[offset] [blocksize]",
    .summary = "misaligned writes: warmup, writeOffset, unroll2, unroll4",
    .positional = {"offset", "block", NULL},
    .row = &cml_book_row_write_segment,
    .print = write_print,
};
