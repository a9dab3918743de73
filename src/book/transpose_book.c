/*
 * The book's transpose (chapter04/transpose.cu): argv[1] the kernel number
 * iKernel (default 0), argv[2..3] the block (default 16 x 16), argv[4..5]
 * the matrix nx x ny (default 2048 x 2048 floats).
 *
 * main() launches warmup<<<grid, block>>>(d_C, d_A, nx, ny), then the
 * kernel iKernel selects, <<<grid, block>>> with grid = (ceil(nx / bx),
 * ceil(ny / by)), except the unrolled ones (4, 5) whose grid.x is
 * ceil(nx / (4 bx)). Each thread of each kernel copies up to four floats
 * out[dst] = in[src] (transpose_book.cu), with unsigned int arithmetic:
 *   warmup, 0 copyRow:     (ix, iy) in range: dst = src = iy*nx + ix
 *   1 copyCol:             dst = src = ix*ny + iy
 *   2 transposeNaiveRow:   src = iy*nx + ix, dst = ix*ny + iy
 *   3 transposeNaiveCol:   src = ix*ny + iy, dst = iy*nx + ix
 *   4 transposeUnroll4Row: ix = bx*4*blockIdx.x + tx; if ix + 3bx < nx and
 *                          iy < ny: src = iy*nx + ix + u*bx, dst = (ix + u*bx)*ny + iy
 *   5 transposeUnroll4Col: the same with src and dst exchanged
 *   6, 7 diagonal:         blk_x = (blockIdx.x + blockIdx.y) % gridDim.x,
 *                          blk_y = blockIdx.x, then as 2 and 3
 * tr_thread() below is that rule; the mirror, the host reference and the
 * byte counts use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "book/transpose_book_kernels.h"
#include "core/random.h"
#include "lab/common.h"

enum { SEED_IN = 0xB00C4 };

#define MAX_SIDE 8192 /* nx * ny * 4 bytes stays far inside the kernels' unsigned int */

typedef struct tr_settings {
    int64_t launch, kernel, blockx, blocky, nx, ny;
} tr_settings;

/* warmup, then the eight kernels by the book's numbers (launch k + 1 is
 * kernel k). */
static const char *const tr_launches[] = {
    "warmup",          "copyRow",           "copyCol",
    "transposeNaiveRow", "transposeNaiveCol", "transposeUnroll4Row",
    "transposeUnroll4Col", "transposeDiagonalRow", "transposeDiagonalCol", NULL};

/* The book's kernelName strings, padded as it pads them. */
static const char *const tr_names[] = {"CopyRow       ", "CopyCol       ", "NaiveRow      ",
                                       "NaiveCol      ", "Unroll4Row    ", "Unroll4Col    ",
                                       "DiagonalRow   ", "DiagonalCol   "};

static const cml_param_def tr_options[] = {
    {"launch", "the kernel launches of the program's main(): warmup, then the kernel selected",
     0, 0, "all", tr_launches, 0, CML_FIELD(tr_settings, launch), NULL},
    {"kernel", "argv[1]: iKernel, the kernel main() runs: 0 copyRow, 1 copyCol, 2 NaiveRow, 3 "
               "NaiveCol, 4 Unroll4Row, 5 Unroll4Col, 6 DiagonalRow, 7 DiagonalCol",
     0, 7, "0", NULL, 0, CML_FIELD(tr_settings, kernel), NULL},
    {"blockx", "argv[2]: block.x (the book's default 16)", 1, 1024, "16", NULL, 0,
     CML_FIELD(tr_settings, blockx), NULL},
    {"blocky", "argv[3]: block.y (the book's default 16)", 1, 1024, "16", NULL, 0,
     CML_FIELD(tr_settings, blocky), NULL},
    {"nx", "argv[4]: matrix columns (the book's default 2048)", 1, MAX_SIDE, "2048", NULL, 0,
     CML_FIELD(tr_settings, nx), NULL},
    {"ny", "argv[5]: matrix rows (the book's default 2048)", 1, MAX_SIDE, "2048", NULL, 0,
     CML_FIELD(tr_settings, ny), NULL},
};

typedef struct tr_args {
    int kernel; /* cml_book_tr_kernel */
    uint32_t nx, ny;
} tr_args;

static void tr_shape(int kernel, const tr_settings *s, cml_dim3 *grid, cml_dim3 *block)
{
    const uint32_t bx = (uint32_t)s->blockx, by = (uint32_t)s->blocky;
    const uint32_t nx = (uint32_t)s->nx, ny = (uint32_t)s->ny;
    *block = cml_dim2(bx, by);
    *grid = cml_dim2((nx + bx - 1) / bx, (ny + by - 1) / by);
    if (kernel == CML_BTR_UNROLL4_ROW || kernel == CML_BTR_UNROLL4_COL)
        grid->x = (nx + bx * 4 - 1) / (bx * 4);
}

/* The floats thread t copies: out[dst[u]] = in[src[u]]; how many. */
static unsigned tr_thread(const tr_args *a, const cml_thread *t, uint32_t src[4], uint32_t dst[4])
{
    const uint32_t bdx = t->bdim.x, bdy = t->bdim.y, nx = a->nx, ny = a->ny;
    uint32_t bidx = t->bid.x, bidy = t->bid.y;
    if (a->kernel == CML_BTR_DIAGONAL_ROW || a->kernel == CML_BTR_DIAGONAL_COL) {
        uint32_t blk_y = t->bid.x, blk_x = (t->bid.x + t->bid.y) % t->gdim.x;
        bidx = blk_x;
        bidy = blk_y;
    }
    if (a->kernel == CML_BTR_UNROLL4_ROW || a->kernel == CML_BTR_UNROLL4_COL) {
        const uint32_t ix = bdx * bidx * 4 + t->tid.x, iy = bdy * bidy + t->tid.y;
        const uint32_t ti = iy * nx + ix, to = ix * ny + iy;
        if (!(ix + 3 * bdx < nx && iy < ny))
            return 0;
        for (uint32_t u = 0; u < 4; u++) {
            const uint32_t row = ti + u * bdx, col = to + ny * u * bdx;
            src[u] = a->kernel == CML_BTR_UNROLL4_ROW ? row : col;
            dst[u] = a->kernel == CML_BTR_UNROLL4_ROW ? col : row;
        }
        return 4;
    }
    const uint32_t ix = bdx * bidx + t->tid.x, iy = bdy * bidy + t->tid.y;
    if (!(ix < nx && iy < ny))
        return 0;
    const uint32_t row = iy * nx + ix, col = ix * ny + iy;
    switch (a->kernel) {
    case CML_BTR_COPY_COL: src[0] = dst[0] = col; break;
    case CML_BTR_NAIVE_ROW: case CML_BTR_DIAGONAL_ROW: src[0] = row; dst[0] = col; break;
    case CML_BTR_NAIVE_COL: case CML_BTR_DIAGONAL_COL: src[0] = col; dst[0] = row; break;
    default: src[0] = dst[0] = row; break; /* warmup, copyRow */
    }
    return 1;
}

static void tr_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const tr_args *a = vargs;
    const uint64_t out = cml_array_base(0), in = cml_array_base(1);
    uint32_t src[4], dst[4];
    const unsigned n = tr_thread(a, t, src, dst);
    for (unsigned u = 0; u < n; u++) {
        cml_emit(e, 2 * u, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4ull * src[u]);
        cml_emit(e, 2 * u + 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                 out + 4ull * dst[u]);
    }
}

/* Calls fn for every thread of the launch (the host's view of the grid). */
static void tr_each(const tr_args *a, cml_dim3 grid, cml_dim3 block,
                    void (*fn)(void *u, const uint32_t *src, const uint32_t *dst, unsigned n),
                    void *user)
{
    cml_thread t;
    memset(&t, 0, sizeof t);
    t.bdim = block;
    t.gdim = grid;
    uint32_t src[4], dst[4];
    for (t.bid.y = 0; t.bid.y < grid.y; t.bid.y++)
        for (t.bid.x = 0; t.bid.x < grid.x; t.bid.x++)
            for (t.tid.y = 0; t.tid.y < block.y; t.tid.y++)
                for (t.tid.x = 0; t.tid.x < block.x; t.tid.x++) {
                    unsigned n = tr_thread(a, &t, src, dst);
                    if (n)
                        fn(user, src, dst, n);
                }
}

static void count_cb(void *u, const uint32_t *src, const uint32_t *dst, unsigned n)
{
    (void)src;
    (void)dst;
    *(uint64_t *)u += n;
}

static int kernel_of(const tr_settings *s)
{
    return s->launch == 0 ? CML_BTR_WARMUP : (int)s->launch - 1;
}

static cml_status tr_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    (void)ctx;
    const tr_settings *s = vs;
    /* main() runs warmup and the kernel iKernel selects; no other. */
    if (s->launch != 0 && s->launch - 1 != s->kernel)
        return CML_SKIP_POINT;
    const int kernel = kernel_of(s);
    cml_dim3 grid, block;
    tr_shape(kernel, s, &grid, &block);
    tr_args a = {kernel, (uint32_t)s->nx, (uint32_t)s->ny};
    cml_status st = cml_exp_trace(rec, grid, block, tr_mirror, &a);
    if (st)
        return st;
    uint64_t moved = 0;
    tr_each(&a, grid, block, count_cb, &moved);
    rec->bytes_read = rec->bytes_written = 4 * moved;
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const cml_traffic *st_ = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
    const uint64_t all = (uint64_t)s->nx * (uint64_t)s->ny;
    char cover[128] = "";
    if (moved != all)
        snprintf(cover, sizeof cover, " It copies %llu of the %llu elements.",
                 (unsigned long long)moved, (unsigned long long)all);
    cml_record_finding(rec,
                       "%s <<<(%u,%u), (%u,%u)>>>: loads %.2f sectors per request (%.1f%% used), "
                       "stores %.2f (%.1f%%); Fermi: loads %.1f%%, stores %.1f%%.%s",
                       tr_launches[s->launch], grid.x, grid.y, block.x, block.y,
                       cml_traffic_sectors_per_request(ld), 100.0 * cml_traffic_efficiency(ld),
                       cml_traffic_sectors_per_request(st_), 100.0 * cml_traffic_efficiency(st_),
                       100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD),
                       100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_ST), cover);
    return CML_OK;
}

typedef struct tr_check {
    const cml_plan *plan;
    tr_args a;
    cml_dim3 grid, block;
    const float *out;
} tr_check;

static void ref_cb(void *u, const uint32_t *src, const uint32_t *dst, unsigned n)
{
    uint32_t *want = u;
    for (unsigned q = 0; q < n; q++)
        want[dst[q]] = cml_book_bits(cml_random_f32(SEED_IN, src[q]));
}

/* The book's transposeHost for exactly this kernel: out where the kernel
 * writes (a copy for the copy kernels), the poison elsewhere. */
static cml_status tr_check_cb(void *vctx, unsigned long long *d_counters)
{
    const tr_check *c = vctx;
    const size_t words = (size_t)c->a.nx * c->a.ny;
    uint32_t *want = malloc(words * sizeof *want);
    if (!want)
        return CML_ENOMEM;
    for (size_t q = 0; q < words; q++)
        want[q] = CML_BOOK_POISON;
    tr_each(&c->a, c->grid, c->block, ref_cb, want);
    cml_status st = cml_book_compare(c->plan->gpu, c->out, want, words, 0.0, d_counters);
    free(want);
    return st;
}

static cml_status tr_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const tr_settings *s = vs;
    const int kernel = kernel_of(s);
    const size_t bytes = (size_t)s->nx * (size_t)s->ny * sizeof(float);
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, bytes, SEED_IN);
    cml_dbuf *out = in ? cml_sweep_buffer(ctx, rec, 1, bytes, 0) : NULL;
    if (!out)
        return CML_ECUDA;
    cml_dim3 grid, block;
    tr_shape(kernel, s, &grid, &block);
    cml_book_tr_launch L;
    memset(&L, 0, sizeof L);
    L.out = out->ptr;
    L.in = in->ptr;
    L.nx = (int)s->nx;
    L.ny = (int)s->ny;
    L.gx = grid.x;
    L.gy = grid.y;
    L.bx = block.x;
    L.by = block.y;
    L.kernel = kernel;
    tr_check chk = {ctx->plan, {kernel, (uint32_t)s->nx, (uint32_t)s->ny}, grid, block, L.out};
    return cml_exp_measure(ctx->plan, rec, out, cml_book_tr_launch_fn, &L,
                           cml_book_tr_kernel_fn(kernel), block.x * block.y, 0, tr_check_cb,
                           &chk);
}

static int tr_check_args(const int64_t *args, char *err, size_t errlen)
{
    /* args: iKernel, blockx, blocky, nx, ny */
    if (args[1] * args[2] > 1024) {
        snprintf(err, errlen, "block %lld x %lld is %lld threads, a block holds at most 1024",
                 (long long)args[1], (long long)args[2], (long long)(args[1] * args[2]));
        return 1;
    }
    return 0;
}

static void tr_print(FILE *out, const cml_book_output *o)
{
    const int64_t ik = o->args[0], nx = o->args[3], ny = o->args[4];
    fprintf(out, "%s starting transpose at device 0: %s  with matrix nx %lld ny %lld with kernel "
                 "%lld\n",
            o->prog->name, cml_book_device_name(o), (long long)nx, (long long)ny, (long long)ik);
    char el[32];
    const cml_record *w = cml_book_record(o, "warmup");
    if (w) {
        cml_book_elapsed(w, el, sizeof el);
        fprintf(out, "warmup         elapsed %s sec\n", el);
    }
    const cml_record *k = ik >= 0 && ik < 8 ? cml_book_record(o, tr_launches[ik + 1]) : NULL;
    if (!k)
        return;
    tr_settings s = {ik + 1, ik, o->args[1], o->args[2], nx, ny};
    cml_dim3 grid, block;
    tr_shape((int)ik, &s, &grid, &block);
    cml_book_elapsed(k, el, sizeof el);
    char bw[32] = "n/a";
    if (k->measured && k->timing.median_ms > 0)
        snprintf(bw, sizeof bw, "%f",
                 2.0 * (double)nx * (double)ny * 4.0 / 1e9 / (k->timing.median_ms * 1e-3));
    fprintf(out, "%s elapsed %s sec <<< grid (%u,%u) block (%u,%u)>>> effective bandwidth %s GB\n",
            tr_names[ik], el, grid.x, grid.y, block.x, block.y, bw);
}

static const cml_experiment tr_row = {
    .key = "transpose.cu",
    .number = 4,
    .title = "The book's transpose.cu",
    .summary = "warmup, then the kernel iKernel selects (copies, naive, unrolled, diagonal)",
    .doc = "docs/textbook.md",
    .options = tr_options,
    .noptions = CML_COUNT(tr_options),
    .settings_size = sizeof(tr_settings),
    .tour = "",
    .variant = tr_variant,
    .measure = tr_measure,
};

const cml_book_program cml_book_transpose = {
    .name = "transpose",
    .file = "chapter04/transpose.cu",
    .args_usage = "[iKernel] [blockx] [blocky] [nx] [ny]",
    .summary = "warmup, then kernel iKernel: 0 copyRow ... 7 transposeDiagonalCol",
    .positional = {"kernel", "blockx", "blocky", "nx", "ny", NULL},
    .row = &tr_row,
    .check_args = tr_check_args,
    .print = tr_print,
};
