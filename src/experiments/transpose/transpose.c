/*
 * Experiment 17: matrix transpose (the textbook's transpose program:
 * copyRow, transposeNaiveRow / Col, transposeUnroll4Row / Col,
 * transposeSmem, transposeSmemPad), where global coalescing meets shared
 * memory: a transpose must read one matrix by rows and write the other by
 * columns, unless a shared-memory tile turns the columns into rows.
 *
 * The kernels, whose bodies (transpose_body.h) nvcc and the mirror
 * below both compile. in[] is ny rows of nx floats; a transpose writes out[] as
 * nx rows of ny floats. Indices are unsigned long long; (x, y) is the
 * thread's global 2-D index; the launch shape is cml_tr_shape's.
 *
 *   copy:      if (x < nx && y < ny) out[y*nx + x] = in[y*nx + x];
 *                                             // site 0: global load, site 1: global store
 *   naive-row: if (x < nx && y < ny) out[x*ny + y] = in[y*nx + x];
 *                                             // site 0: load (a row), site 1: store (a column)
 *   naive-col: (grid over out[]: x < ny, y < nx)
 *              if (x < ny && y < nx) out[y*ny + x] = in[x*nx + y];
 *                                             // site 0: load (a column), site 1: store (a row)
 *   unroll4-row: x0 = blockIdx.x*blockDim.x*4 + threadIdx.x;
 *              for k in 0..3: x = x0 + k*blockDim.x;
 *                  if (x < nx && y < ny) out[x*ny + y] = in[y*nx + x];
 *                                             // site 2k: load, site 2k+1: store
 *   unroll4-col: the same over out[]: if (x < ny && y < nx) out[y*ny + x] = in[x*nx + y];
 *   smem / smem-pad: blocks of 32x32 threads, __shared__ float tile[32 * P], P = 32 / 33:
 *       x = blockIdx.x*32 + tx; y = blockIdx.y*32 + ty;
 *       if (x < nx && y < ny) tile[ty*P + tx] = in[y*nx + x];
 *                                             // site 0: global load, site 1: shared store (a row)
 *       __syncthreads();
 *       ox = blockIdx.y*32 + tx; oy = blockIdx.x*32 + ty;
 *       if (ox < ny && oy < nx) out[oy*ny + ox] = tile[tx*P + ty];
 *                                             // site 2: shared load (a column), site 3: global store
 *   (The textbook's guard "if (ix < nx && iy < ny)" around both halves and
 *   the barrier is wrong for non-square matrices and puts __syncthreads
 *   under a condition; these guards are exact: tile cell (r, c) is read
 *   exactly when it was written, because ox < ny <=> y < ny and oy < nx
 *   <=> x < nx for the thread that wrote it.)
 *
 * Effective bandwidth: 2 * nx * ny * 4 bytes (each element read once and
 * written once) over the median time, set beside the copy's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiments/transpose/transpose_body.h"
#include "lab/common.h"

static const char *const kernel_names[] = {"copy",        "naive-row", "naive-col", "unroll4-row",
                                           "unroll4-col", "smem",      "smem-pad",  NULL};
static const char *const block_names[] = {"32x8", "32x16", "32x32", "16x16", NULL};
static const unsigned block_dims[][2] = {{32, 8}, {32, 16}, {32, 32}, {16, 16}};

/* One point of the sweep; the options' fields. */
typedef struct transpose_settings {
    int64_t kernel, block, nx, ny, residency;
} transpose_settings;

static const cml_param_def transpose_params[] = {
    {"kernel", "copy (the reference), naive-row (read rows, write columns), naive-col, "
               "unroll4-row, unroll4-col (4 elements per thread), smem, smem-pad (32x32 tile, "
               "rows of 32 or 33 floats)", 0, 0,
     "copy,naive-row,naive-col,unroll4-row,unroll4-col,smem,smem-pad", kernel_names, 0,
     CML_FIELD(transpose_settings, kernel), NULL},
    {"block", "threads per block for copy, naive and unroll4 (the tile kernels use 32x32)", 0, 0,
     "32x8", block_names, 0, CML_FIELD(transpose_settings, block), NULL},
    {"nx", "columns of in[] (0: square, both matrices together at least 4x L2; 8192 on an H100)",
     0, 1 << 17, "0", NULL, 0, CML_FIELD(transpose_settings, nx), NULL},
    {"ny", "rows of in[] (0: equal to nx)", 0, 1 << 17, "0", NULL, 0,
     CML_FIELD(transpose_settings, ny), NULL},
    {"residency", CML_RESIDENCY_HELP, 0, 0, "many", cml_residency_names, 0,
     CML_FIELD(transpose_settings, residency), NULL},
};

/* The kernels' own bodies (transpose_body.h) on the model's arrays. */
void cml_transpose_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_transpose_args *a = vargs;
    const cml_ctx c = CML_MIRROR_CTX(t, e);
    const float *in = CML_ARRAY(const float, 0);
    float *out = CML_ARRAY(float, 1);
    switch (a->kernel) {
    case CML_TR_COPY: cml_tr_copy_body(c, in, out, a->nx, a->ny); break;
    case CML_TR_NAIVE_ROW: cml_tr_naive_row_body(c, in, out, a->nx, a->ny); break;
    case CML_TR_NAIVE_COL: cml_tr_naive_col_body(c, in, out, a->nx, a->ny); break;
    case CML_TR_UNROLL_ROW: cml_tr_unroll_row_body(c, in, out, a->nx, a->ny); break;
    case CML_TR_UNROLL_COL: cml_tr_unroll_col_body(c, in, out, a->nx, a->ny); break;
    case CML_TR_SMEM: cml_tr_smem_body(c, in, out, a->nx, a->ny); break;
    default: cml_tr_smem_pad_body(c, in, out, a->nx, a->ny); break;
    }
}

/* ---- tracing a 2-D grid ------------------------------------------------ */

/* One block of the real grid traced as a 1x1 grid: the thread sees its real
 * block index and grid size. */
typedef struct one_block {
    const cml_transpose_args *a;
    cml_dim3 bid, gdim;
} one_block;

static void one_block_shim(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const one_block *b = vargs;
    cml_thread real = *t;
    real.bid = b->bid;
    real.gdim = b->gdim;
    cml_transpose_mirror(&real, b->a, e);
}

static void scale_traffic(cml_kernel_traffic *k, uint64_t f)
{
    for (int c = 0; c < CML_CLASS_COUNT; c++) {
        cml_traffic *t = &k->cls[c];
        t->instructions *= f;
        t->requests *= f;
        t->sectors *= f;
        t->lines *= f;
        t->transactions *= f;
        t->transaction_bytes *= f;
        t->efficiency_bytes *= f;
        t->requested_bytes *= f;
        t->lane_bytes *= f;
        t->wavefronts *= f;
        t->ideal_wavefronts *= f;
        t->bank_conflicts *= f;
        t->serialized *= f;
    }
}

/*
 * Why the uniform case is exact: with nx and ny multiples of 32 every row of
 * in[] and out[] starts on a 128-byte line, and with both dimensions
 * multiples of the block's footprint every block is full (no guard cuts a
 * warp). Block (bx, by)'s addresses are then block (0, 0)'s shifted by
 * 4 * (bx * fx) along rows and by whole rows along columns: the contiguous
 * runs of a warp (16 or 32 floats, 64 or 128 bytes) shift by multiples of
 * their own size within 128-byte lines, and the lanes that step across rows
 * are each alone in their sector and line, so every warp instruction touches
 * the same number of sectors, lines, segments and banks. The five sampled
 * blocks check this claim at run time; a mismatch falls back to tracing the
 * whole grid.
 */
cml_status cml_transpose_model(cml_record *rec, const cml_transpose_args *a, unsigned bx,
                               unsigned by, uint64_t *traced_blocks)
{
    cml_dim3 grid, block;
    cml_tr_shape(a->kernel, a->nx, a->ny, bx, by, &grid, &block);
    /* The tile kernels' shared memory takes its carve-out from L1 (the
     * cache levels' L1 capacity): 32 rows of 32 or 33 floats per block. */
    if (a->kernel == CML_TR_SMEM || a->kernel == CML_TR_SMEM_PAD)
        rec->cache.smem_per_block = 32u * (a->kernel == CML_TR_SMEM_PAD ? 33u : 32u) * 4u;
    const uint64_t w = cml_tr_reads_columns(a->kernel) ? a->ny : a->nx;
    const uint64_t h = cml_tr_reads_columns(a->kernel) ? a->nx : a->ny;
    const uint64_t fx = (uint64_t)block.x *
                        ((a->kernel == CML_TR_UNROLL_ROW || a->kernel == CML_TR_UNROLL_COL)
                             ? CML_TR_UNROLL
                             : 1u);
    const uint64_t nblocks = (uint64_t)grid.x * grid.y;
    int uniform = a->nx % 32 == 0 && a->ny % 32 == 0 && w % fx == 0 && h % block.y == 0 &&
                  nblocks > 5;
    if (uniform) {
        const cml_dim3 samples[] = {{0, 0, 0}, {grid.x - 1, 0, 0}, {0, grid.y - 1, 0},
                                    {grid.x - 1, grid.y - 1, 0}, {grid.x / 2, grid.y / 2, 0}};
        for (int r = 0; r < CML_RULES_COUNT && uniform; r++) {
            cml_kernel_traffic first, cur;
            for (size_t s = 0; s < sizeof samples / sizeof samples[0] && uniform; s++) {
                one_block ob = {a, {samples[s].x, samples[s].y, 0}, grid};
                cml_kernel_traffic *dst = s == 0 ? &first : &cur;
                memset(dst, 0, sizeof *dst);
                cml_status st = cml_trace_kernel((cml_rules)r, cml_dim1(1), block,
                                                 one_block_shim, &ob, dst);
                if (st) {
                    rec->state = CML_REC_FAILED;
                    cml_record_note(rec, "model: %s", cml_status_str(st));
                    return st;
                }
                if (s > 0 && memcmp(&first, &cur, sizeof cur) != 0)
                    uniform = 0;
            }
            if (uniform) {
                scale_traffic(&first, nblocks);
                rec->model[r] = first;
            }
        }
    }
    if (uniform) {
        rec->has_model = 1;
        rec->grid = nblocks;
        rec->block = (uint64_t)block.x * block.y;
        *traced_blocks = 5;
        return cml_exp_levels(rec, grid, block, cml_transpose_mirror, a);
    }
    /* Otherwise the blocks still repeat: along x each block's reads and
     * writes move by fx or fx*(rows) floats, along y by block.y or
     * block.y*(columns) floats, so a period of the smaller shift is one
     * of every array's (cml_exp_line_period of a multiple divides it).
     * Only the last column and row of blocks meet the guards. */
    const cml_exp_axis axes[3] = {
        cml_exp_axis_ends(grid.x, 0, cml_exp_line_period(4u * fx), w % fx ? 1u : 0u),
        cml_exp_axis_ends(grid.y, 0, cml_exp_line_period(4u * block.y), h % block.y ? 1u : 0u),
        cml_exp_axis_ends(1, 0, 1, 0)};
    return cml_exp_trace_axes(rec, grid, block, axes, cml_transpose_mirror, a, traced_blocks);
}

/* ---- records ----------------------------------------------------------- */

/* Default matrix: square; with an explicit size or a cache level, the
 * square of that many floats per matrix (a multiple of 128); for DRAM 8192
 * (256 MiB per matrix), doubled until both matrices together are at least
 * 4x L2. */
static uint64_t default_side(const cml_plan *plan)
{
    if (plan && (plan->size_bytes || plan->where != CML_WHERE_DRAM)) {
        uint64_t side = (uint64_t)sqrt((double)cml_plan_elements(plan, 4, 2));
        side = side / 128 * 128;
        return side < 128 ? 128 : side;
    }
    uint64_t side = 8192;
    const uint64_t l2 = plan && plan->dev ? plan->dev->l2_bytes : 0;
    while (2 * side * side * 4 < 4 * l2)
        side *= 2;
    return side;
}

static double traffic_per(uint64_t v, uint64_t requests)
{
    return requests ? (double)v / (double)requests : 0.0;
}

static void transpose_finding(cml_record *rec, cml_tr_kernel k)
{
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const cml_traffic *st = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
    const cml_traffic *sl = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    const cml_traffic *ss = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_ST];
    const double lspr = traffic_per(ld->sectors, ld->requests);
    const double sspr = traffic_per(st->sectors, st->requests);
    const double leff = 100.0 * cml_traffic_efficiency(ld), seff = 100.0 * cml_traffic_efficiency(st);
    const double swf = traffic_per(sl->wavefronts, sl->instructions);
    const double sconf = traffic_per(sl->bank_conflicts, sl->instructions);
    const double stwf = traffic_per(ss->wavefronts, ss->instructions);
    switch (k) {
    case CML_TR_COPY:
        cml_record_finding(rec,
                           "The reference: a copy in the same launch shape, rows in and rows "
                           "out: %.2f sectors per load request and %.2f per store request, "
                           "%.1f%% and %.1f%% of the moved bytes used.",
                           lspr, sspr, leff, seff);
        break;
    case CML_TR_NAIVE_ROW:
    case CML_TR_UNROLL_ROW:
        cml_record_finding(rec,
                           "%sReads rows of in[] (%.2f sectors per request, %.1f%% used) and "
                           "writes columns of out[]: the lanes of a warp write different rows, "
                           "each its own sector, %.2f sectors per request and %.1f%% of the "
                           "written bytes used.",
                           k == CML_TR_UNROLL_ROW ? "Four elements per thread, each as in "
                                                    "naive-row. "
                                                  : "",
                           lspr, leff, sspr, seff);
        break;
    case CML_TR_NAIVE_COL:
    case CML_TR_UNROLL_COL:
        cml_record_finding(rec,
                           "%sReads columns of in[]: the lanes of a warp read different rows, "
                           "%.2f sectors per request, %.1f%% of the fetched bytes used (the rest "
                           "of each sector may still be used from L1/L2 by the next rows); "
                           "writes rows of out[], %.2f sectors per request, %.1f%% used.",
                           k == CML_TR_UNROLL_COL ? "Four elements per thread, each as in "
                                                    "naive-col. "
                                                  : "",
                           lspr, leff, sspr, seff);
        break;
    default:
        cml_record_finding(rec,
                           "Through a 32x32 tile with rows of %u floats: global loads %.2f and "
                           "stores %.2f sectors per request (%.1f%%, %.1f%%): both coalesced. "
                           "The tile is written by rows (%.2f wavefronts per request) and read "
                           "by columns, lanes %u words apart: %.2f wavefronts per request "
                           "(%.2f conflicts).",
                           k == CML_TR_SMEM_PAD ? 33u : 32u, lspr, sspr, leff, seff, stwf,
                           k == CML_TR_SMEM_PAD ? 33u : 32u, swf, sconf);
        break;
    }
}

/* The block choice of the tile kernels, which always use 32x32 threads. */
enum { BLOCK_32X32 = 2 };

/*
 * The run's state. The tile kernels ignore the block option, so they get
 * one record per matrix size, at the first block swept: `block_sweeps`
 * counts the sweeps of `kernel` since nx or ny (as given) last changed.
 * On a GPU: n of the engine's buffers (in[] slot 0, out[] slot 1) and the
 * copy's time per block shape at that n.
 */
typedef struct transpose_state {
    int64_t given_nx, given_ny;
    int seen;
    unsigned block_sweeps;
    uint64_t n;          /* floats in each matrix the copy times are for */
    double copy_ms[4];   /* by block choice; 0: not yet timed */
} transpose_state;

static int is_tile(cml_tr_kernel k)
{
    return k == CML_TR_SMEM || k == CML_TR_SMEM_PAD;
}

/* One point: the matrix size resolved (0: the default side, or the other
 * side), the record and the model's prediction. */
static cml_status transpose_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    transpose_settings *s = vs;
    transpose_state *g = ctx->state;
    if (!g->seen || s->nx != g->given_nx || s->ny != g->given_ny) {
        g->seen = 1;
        g->given_nx = s->nx;
        g->given_ny = s->ny;
        g->block_sweeps = 0;
    }
    const cml_tr_kernel k = (cml_tr_kernel)s->kernel;
    const int tile = is_tile(k);
    if (tile && g->block_sweeps > 0)
        return CML_SKIP_POINT; /* the tile kernels ignore the block: once is enough */
    if (s->nx == 0 && s->ny == 0)
        s->nx = s->ny = (int64_t)default_side(ctx->plan);
    else if (s->nx == 0)
        s->nx = s->ny;
    else if (s->ny == 0)
        s->ny = s->nx;
    if (tile)
        s->block = BLOCK_32X32;
    const uint64_t nx = (uint64_t)s->nx, ny = (uint64_t)s->ny;
    const unsigned bx = block_dims[s->block][0], by = block_dims[s->block][1];
    char variant[sizeof rec->variant] = "";
    cml_variant_add_label(variant, sizeof variant, "kernel", kernel_names[k]);
    cml_variant_add_label(variant, sizeof variant, "block", block_names[s->block]);
    cml_variant_add(variant, sizeof variant, "nx", (long long)nx);
    cml_variant_add(variant, sizeof variant, "ny", (long long)ny);
    /* Only the control says so: every other variant keeps its old name. */
    if (s->residency == CML_RESIDENCY_ONE)
        cml_variant_add_label(variant, sizeof variant, "residency", "one");
    snprintf(rec->variant, sizeof rec->variant, "%s", variant);
    rec->bytes_read = 4 * nx * ny;
    rec->bytes_written = 4 * nx * ny;
    const uint64_t most = (uint64_t)transpose_params[2].max;
    if (nx > most || ny > most) {
        /* --size or --where asked for a square beyond the options' range
         * (--size 1T: 370688 a side); its grid would pass CUDA's 65535
         * rows of blocks. */
        cml_sweep_waive(ctx, rec,
                        "nx=%llu ny=%llu (from --size/--where): beyond the %llu columns and rows "
                        "a transpose takes (--nx, --ny: 0..%llu)",
                        (unsigned long long)nx, (unsigned long long)ny,
                        (unsigned long long)most, (unsigned long long)most);
        return CML_OK;
    }

    cml_transpose_args args = {nx, ny, k};
    uint64_t traced = 0;
    cml_status st = cml_transpose_model(rec, &args, bx, by, &traced);
    if (st)
        return st;
    cml_record_add_extra(rec, "model_blocks_traced", (double)traced, "");
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const cml_traffic *stt = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
    const cml_traffic *sl = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    cml_record_add_extra(rec, "ld_sectors_per_req", traffic_per(ld->sectors, ld->requests), "");
    cml_record_add_extra(rec, "st_sectors_per_req", traffic_per(stt->sectors, stt->requests), "");
    if (tile) {
        cml_record_add_extra(rec, "smem_ld_wavefronts_per_req",
                             traffic_per(sl->wavefronts, sl->instructions), "");
        cml_record_add_extra(rec, "smem_ld_conflicts_per_req",
                             traffic_per(sl->bank_conflicts, sl->instructions), "");
    }
    transpose_finding(rec, k);
    return CML_OK;
}

/* After each sweep of `kernel`: the next block's sweep leaves out the tile
 * kernels. */
static void transpose_summary(cml_sweep *ctx, size_t first, size_t last)
{
    (void)first;
    (void)last;
    transpose_state *g = ctx->state;
    g->block_sweeps++;
}

/* ---- GPU run ----------------------------------------------------------- */

enum { SEED_IN = 0x7A5 };

static cml_status transpose_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_transpose_check(ctx, SEED_IN, d_counters);
}

/* The copy's median time for block choice b (timed now if not yet). */
static double copy_ms(const cml_plan *plan, transpose_state *g,
                      const cml_transpose_launch_args *a, int64_t b)
{
    if (g->copy_ms[b] > 0)
        return g->copy_ms[b];
    cml_transpose_launch_args c = *a;
    c.kernel = CML_TR_COPY;
    c.smem = 0; /* the reference copy runs as it always does */
    c.bx = block_dims[b][0];
    c.by = block_dims[b][1];
    cml_timing t;
    unsigned warmup = plan->warmup ? plan->warmup : CML_EXP_WARMUP;
    unsigned reps = plan->reps ? plan->reps : CML_EXP_REPS;
    if (cml_gpu_time(plan->gpu, cml_transpose_launch, &c, warmup, reps, &t) != CML_OK)
        return -1.0;
    g->copy_ms[b] = t.median_ms;
    return t.median_ms;
}

/* Measure one variant: poison out[], time, check every element, then the
 * rate against the copy's in the same launch shape, and the sentence. */
static cml_status transpose_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const transpose_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    transpose_state *g = ctx->state;
    const cml_tr_kernel k = (cml_tr_kernel)s->kernel;
    const uint64_t nx = (uint64_t)s->nx, ny = (uint64_t)s->ny, n = nx * ny;
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, n * sizeof(float), SEED_IN);
    cml_dbuf *outb = in ? cml_sweep_buffer(ctx, rec, 1, n * sizeof(float), 0) : NULL;
    if (!outb)
        return CML_ECUDA;
    if (g->n != n) {
        g->n = n;
        memset(g->copy_ms, 0, sizeof g->copy_ms);
    }
    const int64_t b = s->block;
    cml_transpose_launch_args a = {in->ptr, outb->ptr, nx, ny, n,
                                   block_dims[b][0], block_dims[b][1], (int)k, 0};
    cml_dim3 grid, block;
    cml_tr_shape((int)k, nx, ny, a.bx, a.by, &grid, &block);
    const void *kernel = cml_transpose_kernel((int)k);
    cml_status st;
    if (s->residency == CML_RESIDENCY_ONE) {
        st = cml_exp_one_block_per_sm(ctx, rec, kernel, block.x * block.y, 0, &a.smem);
        if (st)
            return st == CML_EUNSUPPORTED ? CML_OK : st;
    }
    st = cml_gpu_poison(plan->gpu, outb);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_transpose_launch, &a, kernel, block.x * block.y, a.smem);
    if (st)
        return st;
    st = cml_exp_verify(plan, rec, transpose_check_cb, &a);
    if (st)
        return st;
    if (k == CML_TR_COPY && g->copy_ms[b] <= 0)
        g->copy_ms[b] = rec->timing.median_ms;
    const double ref = copy_ms(plan, g, &a, b);
    if (ref > 0)
        cml_record_add_extra(rec, "of_copy_pct", 100.0 * ref / rec->timing.median_ms, "%");
    /* The sentence: the model's point, then the measurement. */
    char peak[32] = "";
    if (rec->peak_fraction >= 0)
        snprintf(peak, sizeof peak, ", %.0f%% of peak", 100.0 * rec->peak_fraction);
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const cml_traffic *stt = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
    const cml_traffic *sl = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    char smem[64] = "";
    if (sl->instructions)
        snprintf(smem, sizeof smem, ", %.0f wavefront%s per tile column read",
                 traffic_per(sl->wavefronts, sl->instructions),
                 sl->wavefronts == sl->instructions ? "" : "s");
    static const char *const why[CML_TR_KERNEL_COUNT] = {
        "rows in, rows out",
        "each warp writes 32 rows of out[], a sector per float",
        "each warp reads 32 rows of in[], a sector per float, which the next warps find in L1",
        "as naive-row, 4 floats per thread",
        "as naive-col, 4 floats per thread",
        "both sides coalesced, but a tile column sits in one bank",
        "both sides coalesced, and rows of 33 floats spread a tile column over 32 banks",
    };
    cml_record_finding(rec,
                       "%s (%s): loads %.2f, stores %.2f sectors per request%s. Measured %.1f "
                       "GB/s effective (2 x %.0f MiB in %.3f ms%s), %.0f%% of the copy's rate in "
                       "the same launch shape.",
                       kernel_names[k], why[k], traffic_per(ld->sectors, ld->requests),
                       traffic_per(stt->sectors, stt->requests), smem, rec->bandwidth_gbs,
                       (double)rec->bytes_read / (1024.0 * 1024.0), rec->timing.median_ms, peak,
                       ref > 0 ? 100.0 * ref / rec->timing.median_ms : 0.0);
    return CML_OK;
}

/* The report's default chart: the kernels' bandwidth side by side. */
static const cml_chart_spec transpose_charts[] = {CML_CHART_BANDWIDTH_BY_VARIANT};

/* The tile kernels again with one block per SM: their control. */
static const char *const transpose_validate_settings[] = {
    "", "kernel=smem,smem-pad residency=one", NULL};
/* The tile kernels: the excess of shared wavefronts every mixed kernel
 * shows, larger here; with one block per SM the counts equal the pattern,
 * which the control shows each run (and bench/gpu/shared_contention.c one
 * change at a time). Up to 10% of the operation's wavefronts: the unpadded
 * tile's +0.5%, not the padded tile's loads (+22.8%), which stay
 * unexplained (docs/model-evidence.md §4.12), as do the naive-row DRAM
 * figures (§4.11: +10% to +30%, beyond any explanation). */
static const cml_explained_diff transpose_explained[] = {
    {"smem", "_mem_shared_op_",
     "a second tile block on the SM takes shared wavefronts from this block's accesses, counted "
     "as bank conflicts",
     CML_EXCESS, 0.10, "§4.3 transpose tile kernels", "residency=one"},
};
static const cml_validate_spec transpose_validate = {
    transpose_validate_settings, transpose_explained, CML_COUNT(transpose_explained)};

const cml_experiment cml_exp_transpose = {
    .key = "transpose",
    .number = 17,
    .title = "Matrix transpose",
    .summary = "naive transposes (read rows / write columns and the reverse, 1 or 4 elements per "
               "thread) and a 32x32 shared tile with and without padding, against a copy of the "
               "same shape",
    .doc = "docs/experiments/transpose.md",
    .options = transpose_params,
    .noptions = CML_COUNT(transpose_params),
    .settings_size = sizeof(transpose_settings),
    .state_size = sizeof(transpose_state),
    .tour = "kernel=copy,naive-row,naive-col,smem,smem-pad",
    .variant = transpose_variant,
    .measure = transpose_measure,
    .summarize = transpose_summary,
    .charts = transpose_charts,
    .ncharts = CML_COUNT(transpose_charts),
    .validate = &transpose_validate,
};
