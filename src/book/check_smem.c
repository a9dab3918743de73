/*
 * The book's checkSmemSquare and checkSmemRectangle (chapter 5): one block
 * of 32 x 32 (or 32 x 16) threads, grid (1, 1), each kernel launched once
 * by main(), in its order, into an int[BDIMX * BDIMY] output; argv[1]
 * iprintf (default 0: print nothing; 1: print each kernel's output).
 *
 * Each thread stores one int into a shared tile, waits at the barrier,
 * loads one int from the tile and stores it to out[] (check_smem_square.cu,
 * check_smem_rectangle.cu). smem_thread() below gives, per kernel, the word
 * it stores (and the value), the word it loads and the output index; the
 * mirror, the host reference and the printed output use it. With 4-byte
 * banks (every GPU since Maxwell; Kepler's 8-byte mode is not modelled,
 * docs/model.md §5.3) word w is in bank w % 32: a warp reading a column of
 * the unpadded 32-wide tile hits one bank 32 times (32 wavefronts), the
 * padded one (33 words a row) 32 banks once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/check_smem_kernels.h"
#include "book/book.h"
#include "book/programs.h"
#include "lab/common.h"

typedef struct smem_settings {
    int64_t launch, iprintf;
} smem_settings;

/* main()'s order of launches in each file. */
static const char *const square_launches[] = {"setColReadCol",    "setRowReadRow",
                                              "setRowReadCol",    "setRowReadColDyn",
                                              "setRowReadColPad", "setRowReadColDynPad", NULL};
static const int square_kernels[] = {CML_SQ_COL_COL,     CML_SQ_ROW_ROW,     CML_SQ_ROW_COL,
                                     CML_SQ_ROW_COL_DYN, CML_SQ_ROW_COL_PAD, CML_SQ_ROW_COL_DYN_PAD};
static const char *const square_labels[] = {"set col read col   ", "set row read row   ",
                                            "set row read col   ", "set row read col dyn",
                                            "set row read col pad", "set row read col DP "};
static const char *const rect_launches[] = {"setRowReadRow",    "setColReadCol",
                                            "setColReadCol2",   "setRowReadCol",
                                            "setRowReadColDyn", "setRowReadColPad",
                                            "setRowReadColDynPad", NULL};
static const int rect_kernels[] = {CML_RE_ROW_ROW,     CML_RE_COL_COL,     CML_RE_COL_COL2,
                                   CML_RE_ROW_COL,     CML_RE_ROW_COL_DYN, CML_RE_ROW_COL_PAD,
                                   CML_RE_ROW_COL_DYN_PAD};
static const char *const rect_labels[] = {"setRowReadRow       ", "setColReadCol       ",
                                          "setColReadCol2      ", "setRowReadCol       ",
                                          "setRowReadColDyn    ", "setRowReadColPad    ",
                                          "setRowReadColDynPad "};

#define SMEM_OPTIONS(launches)                                                                  \
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",       \
     launches, 0, CML_FIELD(smem_settings, launch), NULL},                                       \
    {"iprintf", "argv[1]: 1 prints each kernel's output as the book does (default 0)", 0, 1,    \
     "0", NULL, 0, CML_FIELD(smem_settings, iprintf), NULL}

static const cml_param_def square_options[] = {SMEM_OPTIONS(square_launches)};
static const cml_param_def rect_options[] = {SMEM_OPTIONS(rect_launches)};

static int is_rect(int kernel)
{
    return kernel >= CML_RE_ROW_ROW;
}

/* What thread (tx, ty) of kernel k does: tile[st] = val; barrier;
 * out[g] = tile[ld]. Word indices into the tile, with the book's
 * BDIMX/BDIMY/IPAD of each file and its blockDim arithmetic. */
typedef struct smem_op {
    uint32_t st, val, ld, g;
} smem_op;

static smem_op smem_thread(int k, uint32_t tx, uint32_t ty)
{
    const uint32_t bdx = 32, bdy = is_rect(k) ? 16 : 32;
    const uint32_t idx = ty * bdx + tx, irow = idx / bdy, icol = idx % bdy;
    smem_op o = {ty * bdx + tx, idx, ty * bdx + tx, idx};
    switch (k) {
    case CML_SQ_ROW_ROW: case CML_RE_ROW_ROW: break; /* tile[ty][tx] both ways */
    case CML_SQ_COL_COL: o.st = o.ld = tx * 32 + ty; break;   /* tile[32][32][tx][ty] */
    case CML_RE_COL_COL: o.st = o.ld = tx * 16 + ty; break;   /* tile[32][16][tx][ty] */
    case CML_SQ_ROW_COL: o.ld = tx * 32 + ty; break;          /* tile[tx][ty] */
    case CML_SQ_ROW_COL_DYN: o.ld = tx * bdy + ty; break;     /* col_idx */
    case CML_SQ_ROW_COL_PAD: o.st = ty * 33 + tx; o.ld = tx * 33 + ty; break;
    case CML_SQ_ROW_COL_DYN_PAD:
        o.st = ty * (bdx + 1) + tx;
        o.ld = tx * (bdx + 1) + ty;
        break;
    case CML_RE_COL_COL2: o.st = o.ld = icol * 32 + irow; break; /* tile[16][32][icol][irow] */
    case CML_RE_ROW_COL: o.ld = icol * 32 + irow; break;
    case CML_RE_ROW_COL_DYN: o.ld = icol * bdx + irow; break;
    case CML_RE_ROW_COL_PAD: o.st = ty * 34 + tx; o.ld = icol * 34 + irow; break;
    case CML_RE_ROW_COL_DYN_PAD:
        o.st = ty * (bdx + 2) + tx;
        o.ld = icol * (bdx + 2) + irow;
        break;
    default: break;
    }
    return o;
}

static void smem_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const int k = *(const int *)vargs;
    const uint64_t out = cml_array_base(0);
    const smem_op o = smem_thread(k, t->tid.x, t->tid.y);
    cml_emit(e, 0, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4ull * o.st);
    cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4ull * o.ld);
    cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4ull * o.g);
}

/* The whole output of kernel k, as the GPU computes it: every store, then
 * (after the barrier) every load. out holds 32 * BDIMY ints. */
static void smem_reference(int k, uint32_t *out)
{
    static uint32_t tile[34 * 32];
    const uint32_t bdy = is_rect(k) ? 16 : 32;
    for (size_t q = 0; q < sizeof tile / sizeof tile[0]; q++)
        tile[q] = CML_BOOK_POISON;
    for (uint32_t ty = 0; ty < bdy; ty++)
        for (uint32_t tx = 0; tx < 32; tx++) {
            smem_op o = smem_thread(k, tx, ty);
            tile[o.st] = o.val;
        }
    for (uint32_t ty = 0; ty < bdy; ty++)
        for (uint32_t tx = 0; tx < 32; tx++) {
            smem_op o = smem_thread(k, tx, ty);
            out[o.g] = tile[o.ld];
        }
}

extern const cml_experiment cml_book_row_check_smem_square, cml_book_row_check_smem_rectangle;

static int kernel_of(const cml_sweep *ctx, int64_t launch)
{
    return ctx->exp == &cml_book_row_check_smem_square ? square_kernels[launch]
                                                       : rect_kernels[launch];
}

static cml_status smem_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const smem_settings *s = vs;
    const int k = kernel_of(ctx, s->launch);
    const unsigned bdy = is_rect(k) ? 16 : 32;
    cml_status st = cml_exp_trace(rec, cml_dim1(1), cml_dim2(32, bdy), smem_mirror, &k);
    if (st)
        return st;
    rec->bytes_read = 0;
    rec->bytes_written = 4ull * 32 * bdy;
    const cml_traffic *sl = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    const cml_traffic *ss = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_ST];
    cml_record_finding(rec,
                       "%s <<<1, (32,%u)>>>: %llu warps store %.0f wavefront%s each (%llu bank "
                       "conflicts in all) and load %.0f each (%llu conflicts): %s.",
                       cml_param_choice(&ctx->exp->options[0], s->launch), bdy,
                       (unsigned long long)ss->requests,
                       (double)ss->wavefronts / (double)ss->requests,
                       ss->wavefronts == ss->requests ? "" : "s",
                       (unsigned long long)ss->bank_conflicts,
                       (double)sl->wavefronts / (double)sl->requests,
                       (unsigned long long)sl->bank_conflicts,
                       sl->bank_conflicts + ss->bank_conflicts
                           ? "lanes of a warp meet in a bank, which serves them one after "
                             "another"
                           : "every lane of a warp in a bank of its own");
    return CML_OK;
}

typedef struct smem_check {
    const cml_plan *plan;
    int kernel;
    const int *out;
} smem_check;

static cml_status smem_check_cb(void *vctx, unsigned long long *d_counters)
{
    const smem_check *c = vctx;
    uint32_t want[32 * 32];
    const size_t words = 32u * (is_rect(c->kernel) ? 16u : 32u);
    smem_reference(c->kernel, want);
    return cml_book_compare(c->plan->gpu, c->out, want, words, 0.0, d_counters);
}

static cml_status smem_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const smem_settings *s = vs;
    const int k = kernel_of(ctx, s->launch);
    const int rect = is_rect(k);
    cml_dbuf *out = cml_sweep_buffer(ctx, rec, 0, 4u * 32u * (rect ? 16u : 32u), 0);
    if (!out)
        return CML_ECUDA;
    cml_book_smem_launch L = {out->ptr, 0, k};
    /* the dynamic tiles main() asks for: BDIMX * BDIMY, (BDIMX + IPAD) * BDIMY ints */
    if (k == CML_SQ_ROW_COL_DYN || k == CML_RE_ROW_COL_DYN)
        L.smem = 4u * 32u * (rect ? 16u : 32u);
    if (k == CML_SQ_ROW_COL_DYN_PAD)
        L.smem = 4u * 33u * 32u;
    if (k == CML_RE_ROW_COL_DYN_PAD)
        L.smem = 4u * 34u * 16u;
    smem_check chk = {ctx->plan, k, out->ptr};
    return cml_exp_measure(ctx->plan, rec, out,
                           rect ? cml_book_smem_rectangle_launch : cml_book_smem_square_launch,
                           &L,
                           rect ? cml_book_smem_rectangle_kernel(k) : cml_book_smem_square_kernel(k),
                           32u * (rect ? 16u : 32u), L.smem, smem_check_cb, &chk);
}

static void smem_lines(FILE *out, const cml_book_output *o, int rect)
{
    const char *const *launches = rect ? rect_launches : square_launches;
    const char *const *labels = rect ? rect_labels : square_labels;
    const int *kernels = rect ? rect_kernels : square_kernels;
    const unsigned bdy = rect ? 16 : 32;
    /* Bank Mode: 4-byte banks are the only mode since Maxwell (the book's
     * cudaDeviceGetSharedMemConfig is deprecated and answers that). */
    fprintf(out, "%s at device 0: %s with Bank Mode:4-Byte <<< grid (1,1) block (32,%u)>>>\n",
            o->prog->name, cml_book_device_name(o), bdy);
    if (!o->args[0])
        return;
    /* iprintf: each kernel's output, the values the GPU's output was
     * checked against (the record says whether it matched). */
    for (size_t k = 0; launches[k]; k++) {
        if (!cml_book_record(o, launches[k]))
            continue;
        uint32_t v[32 * 32];
        smem_reference(kernels[k], v);
        fprintf(out, "%s: ", labels[k]);
        for (unsigned q = 0; q < 32u * bdy; q++)
            fprintf(out, rect ? "%4d" : "%5d", (int)v[q]);
        fprintf(out, rect ? "\n\n" : "\n");
    }
}

static void square_print(FILE *out, const cml_book_output *o)
{
    smem_lines(out, o, 0);
}

static void rect_print(FILE *out, const cml_book_output *o)
{
    smem_lines(out, o, 1);
}

#define SMEM_ROW(ROW, KEY, TITLE, SUMMARY, OPTIONS) \
    CML_BOOK_ROW(ROW, 5, KEY, TITLE, SUMMARY, OPTIONS, smem)

SMEM_ROW(cml_book_row_check_smem_square, "checkSmemSquare.cu", "The book's checkSmemSquare.cu",
         "a 32 x 32 shared tile by rows and columns, static, dynamic, padded", square_options);
SMEM_ROW(cml_book_row_check_smem_rectangle, "checkSmemRectangle.cu",
         "The book's checkSmemRectangle.cu",
         "a 32 x 16 shared tile by rows and columns, static, dynamic, padded", rect_options);

const cml_book_program cml_book_check_smem_square = {
    .name = "checkSmemSquare",
    .file = "chapter05/checkSmemSquare.cu",
    .args_usage = "[iprintf]",
    .summary = "one 32x32 block, six tile kernels, once each (IPAD 1)",
    .positional = {"iprintf", NULL},
    .row = &cml_book_row_check_smem_square,
    .print = square_print,
};

const cml_book_program cml_book_check_smem_rectangle = {
    .name = "checkSmemRectangle",
    .file = "chapter05/checkSmemRectangle.cu",
    .args_usage = "[iprintf]",
    .summary = "one 32x16 block, seven tile kernels, once each (IPAD 2)",
    .positional = {"iprintf", NULL},
    .row = &cml_book_row_check_smem_rectangle,
    .print = rect_print,
};
