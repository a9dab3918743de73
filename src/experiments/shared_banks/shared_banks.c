/*
 * Experiment 12: shared memory banks (the textbook's checkSmemSquare and
 * checkSmemRectangle).
 *
 * The kernels, whose bodies (shared_banks_body.h) nvcc and the
 * mirror below both compile. Each repeats its shared accesses `iters` times so that the
 * time is spent in shared memory, not in launching or in global memory;
 * every round feeds the next (v), so the compiler can drop none of them.
 *
 * (a) Tiles, after the textbook's checkSmemSquare / checkSmemRectangle.
 *     W = tile columns = blockDim.x, H = tile rows = blockDim.y (32x32, 32x16
 *     or 16x32), P = W + pad words per (padded) row; grid = `blocks` blocks.
 *     "row" = tile[threadIdx.y][threadIdx.x]; "col" = tile[icol][irow], the
 *     transposed coordinates of the thread's linear index:
 *
 *   __global__ void smem_tile_WxH_pP(unsigned *out, int write_col, int read_col, int iters)
 *   {                                                    // static: __shared__ unsigned tile[H * P]
 *                                                        //   (the book's tile[H][P], flattened);
 *                                                        // dynamic (smem_tile_dyn, W, H, P as
 *                                                        //   arguments): extern __shared__, H*P words
 *       unsigned idx = threadIdx.y * blockDim.x + threadIdx.x;
 *       unsigned irow = idx / blockDim.y, icol = idx % blockDim.y;
 *       unsigned row = threadIdx.y * P + threadIdx.x, col = icol * P + irow;
 *       unsigned wr = write_col ? col : row, rd = read_col ? col : row;
 *       unsigned long long g = (unsigned long long)blockIdx.x * W * H + idx;
 *       unsigned v = (unsigned)g;
 *       for (int it = 0; it < iters; it++) {
 *           tile[wr] = v;                                // site 0: shared store
 *           __syncthreads();
 *           v = tile[rd] + 1u;                           // site 1: shared load
 *           __syncthreads();
 *       }
 *       out[g] = v;                                      // site 2: global store
 *   }
 *
 *   With W = H = 32 "col" is tile[threadIdx.x][threadIdx.y], the square
 *   kernels of the book (setRowReadCol etc.); with 32x16 and pad 2 it is the
 *   book's setRowReadColPad for the rectangle. Static kernels exist for the
 *   three shapes with pads 0, 1 and 2; the dynamic form takes any pad. The
 *   model gives both the same figures: the same offsets fall in the same
 *   banks. Round k hands thread t the value of the thread that wrote the
 *   cell t reads, plus one (cml_banks_tile_value computes the result).
 *
 * (b) Strides: blockDim.x = 32 * warps threads (cml_banks_stride_block: up
 *     to 8 warps, as many as fit 48 KiB), T = unsigned, uint2 or uint4 (4,
 *     8 or 16 bytes, one LDS/STS of that width), each thread on its own
 *     element, so no barrier is needed; the accesses are ld/st.volatile.shared
 *     in PTX, which ptxas must issue one by one:
 *
 *   __global__ void smem_stride_E(unsigned *out, int stride, int iters)
 *   {
 *       extern __shared__ T s[];                         // blockDim.x * stride elements
 *       unsigned t = threadIdx.x;
 *       unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + t;
 *       T v = {words g*E/4, g*E/4 + 1, ...};
 *       for (int it = 0; it < iters; it++) {
 *           s[t * stride] = v;                           // site 0: shared store (volatile)
 *           v = s[t * stride] + 1 (every word);          // site 1: shared load (volatile)
 *       }
 *       ((T *)out)[g] = v;                               // site 2: global store, E bytes
 *   }
 *   Word w of out[] ends as w + iters.
 *
 * The mirror emits one round (see shared_banks_body.h); the records multiply the
 * shared classes by iters.
 *
 * Bank arithmetic the findings use: bank(a) = (a / 4) mod 32; a warp's
 * access is served in phases of 32 lanes (4-byte), 16 (8-byte) or 8
 * (16-byte), each phase needing as many wavefronts as the most distinct
 * words any one bank holds. Lane l of a stride-S access of e-byte elements
 * starts at word S*l*e/4; in a phase of p lanes, lanes l and l + p/g share
 * banks, g = gcd(S, p): a g-way conflict.
 */
#include <stdio.h>
#include <string.h>

#include "core/stats.h"
#include "experiments/shared_banks/shared_banks_body.h"
#include "gpu/kernel_info.h"
#include "lab/common.h"

static const char *const pattern_names[] = {"tile", "stride", NULL};
static const char *const tile_names[] = {"32x32", "32x16", "16x32", NULL};
static const unsigned tile_dims[][2] = {{32, 32}, {32, 16}, {16, 32}};
static const char *const access_names[] = {"row-row", "row-col", "col-row", "col-col", NULL};
static const char *const alloc_names[] = {"static", "dynamic", NULL};
static const char *const elem_names[] = {"4", "8", "16", NULL};
static const unsigned elem_bytes[] = {4, 8, 16};

/* One point of the sweep; the options' fields. */
typedef struct banks_settings {
    int64_t alloc, pad, access, tile, stride, wstride, elem, blocks, iters, residency, pattern;
} banks_settings;

/* Declared innermost first (the engine's first option varies fastest), so
 * the records come as they always have: pattern by pattern; a tile by
 * shape, access, pad, then allocation; strides by element size, then
 * stride. 4-byte words sweep `stride`, wider elements `wstride`. */
static const cml_param_def banks_params[] = {
    {"alloc", "tile: static or dynamic shared memory (same addresses for the model)", 0, 0,
     "static", alloc_names, 0, CML_FIELD(banks_settings, alloc), "pattern=tile"},
    {"pad", "tile: words of padding per row (static tiles: 0-2)", 0, 32, "0,1,2", NULL, 0,
     CML_FIELD(banks_settings, pad), "pattern=tile"},
    {"access", "tile: written by rows or columns, then read by rows or columns", 0, 0,
     "row-row,row-col,col-row,col-col", access_names, 0, CML_FIELD(banks_settings, access),
     "pattern=tile"},
    {"tile", "tile: columns x rows (= block shape)", 0, 0, "32x32,32x16,16x32", tile_names, 0,
     CML_FIELD(banks_settings, tile), "pattern=tile"},
    {"stride", "stride: distance between lanes, in 4-byte elements", 1, 64, "1:32,33", NULL, 0,
     CML_FIELD(banks_settings, stride), "elem=4"},
    {"wstride", "stride: distance between lanes for 8- and 16-byte elements, in elements", 1, 32,
     "1,2,4", NULL, 0, CML_FIELD(banks_settings, wstride), "elem=8,16"},
    {"elem", "stride: element bytes (unsigned, uint2, uint4)", 0, 0, "4,8,16", elem_names, 0,
     CML_FIELD(banks_settings, elem), "pattern=stride"},
    {"blocks", "blocks in the grid", 1, 1 << 20, "1024", NULL, CML_PARAM_NOVARIANT,
     CML_FIELD(banks_settings, blocks), NULL},
    {"iters", "rounds of shared store + load inside the kernel", 1, 1 << 16, "256", NULL,
     CML_PARAM_NOVARIANT, CML_FIELD(banks_settings, iters), NULL},
    {"residency", CML_RESIDENCY_HELP, 0, 0, "many", cml_residency_names, 0,
     CML_FIELD(banks_settings, residency), NULL},
    {"pattern", "tile (rows/columns of a word tile) or stride (s[t*stride] per thread)", 0, 0,
     "tile,stride", pattern_names, 0, CML_FIELD(banks_settings, pattern), NULL},
};

/* One round of the kernels' own bodies (shared_banks_body.h). A tile is
 * traced as a 1-D block of W*H threads or as the GPU's (W, H): either way
 * the thread's linear index lin gives its 2-D place in the (W, H) block the
 * body expects (both number threads x fastest, so the warps are the same). */
void cml_banks_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_banks_args *a = vargs;
    unsigned *out = CML_ARRAY(unsigned, 0);
    if (a->kind == CML_BANKS_TILE) {
        const unsigned lin = t->tid.y * t->bdim.x + t->tid.x;
        cml_thread tile_thread = *t;
        tile_thread.tid.x = lin % a->W;
        tile_thread.tid.y = lin / a->W;
        tile_thread.bdim.x = a->W;
        tile_thread.bdim.y = a->H;
        CML_SHARED_EXTERN(unsigned, tile, 0);
        cml_banks_tile_body(CML_MIRROR_CTX(&tile_thread, e), tile, a->W, a->H, a->P, out,
                            a->write_col, a->read_col, 1);
    } else {
        const cml_ctx c = CML_MIRROR_CTX(t, e);
        const int stride = (int)a->stride;
        switch (a->elem) {
        case 4: cml_banks_stride4_body(c, 0, out, stride, 1); break;
        case 8: cml_banks_stride8_body(c, 0, out, stride, 1); break;
        default: cml_banks_stride16_body(c, 0, out, stride, 1); break;
        }
    }
}

/* The loop's rounds: each issues the same shared instructions as the one
 * the mirror emitted. */
static void scale_shared(cml_record *rec, uint64_t iters)
{
    for (int r = 0; r < CML_RULES_COUNT; r++)
        for (int c = CML_CLASS_SHARED_LD; c <= CML_CLASS_SHARED_ST; c++) {
            cml_traffic *t = &rec->model[r].cls[c];
            t->instructions *= iters;
            t->requests *= iters;
            t->lane_bytes *= iters;
            t->requested_bytes *= iters;
            t->wavefronts *= iters;
            t->ideal_wavefronts *= iters;
            t->bank_conflicts *= iters;
        }
}

static unsigned gcd_u(unsigned a, unsigned b)
{
    while (b) {
        unsigned r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static double per_instr(uint64_t v, uint64_t instructions)
{
    return instructions ? (double)v / (double)instructions : 0.0;
}

/* Wavefronts and conflicts per request of the shared loads and stores. */
typedef struct bank_figs {
    double ld_wf, ld_conf, st_wf, st_conf, ideal, st_ideal;
} bank_figs;

static bank_figs figs_of(const cml_record *rec)
{
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    const cml_traffic *st = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_ST];
    bank_figs f;
    f.ld_wf = per_instr(ld->wavefronts, ld->instructions);
    f.ld_conf = per_instr(ld->bank_conflicts, ld->instructions);
    f.st_wf = per_instr(st->wavefronts, st->instructions);
    f.st_conf = per_instr(st->bank_conflicts, st->instructions);
    f.ideal = per_instr(ld->ideal_wavefronts, ld->instructions);
    f.st_ideal = per_instr(st->ideal_wavefronts, st->instructions);
    return f;
}

/* Wavefronts of one round (store + load) over the conflict-free minimum:
 * the slowdown the model predicts where shared memory is the bottleneck. */
static double predicted_slowdown(const bank_figs *f)
{
    const double ideal = f->ideal + f->st_ideal;
    return ideal > 0 ? (f->ld_wf + f->st_wf) / ideal : 0.0;
}

/* Three model extras; the GPU run adds five (a record holds eight), and
 * conflicts per request are in the table's model columns already. */
static void add_fig_extras(cml_record *rec, const bank_figs *f)
{
    cml_record_add_extra(rec, "ld_wavefronts_per_req", f->ld_wf, "");
    cml_record_add_extra(rec, "st_wavefronts_per_req", f->st_wf, "");
    cml_record_add_extra(rec, "predicted_slowdown", predicted_slowdown(f), "x");
}


/* The variant name the records have always had (pattern first). */
static void banks_variant_name(cml_record *rec, const banks_settings *s, unsigned stride)
{
    char v[sizeof rec->variant] = "";
    cml_variant_add_label(v, sizeof v, "pattern", pattern_names[s->pattern]);
    if (s->pattern == CML_BANKS_TILE) {
        cml_variant_add_label(v, sizeof v, "tile", tile_names[s->tile]);
        cml_variant_add_label(v, sizeof v, "access", access_names[s->access]);
        cml_variant_add(v, sizeof v, "pad", s->pad);
        cml_variant_add_label(v, sizeof v, "alloc", alloc_names[s->alloc]);
    } else {
        cml_variant_add(v, sizeof v, "elem", elem_bytes[s->elem]);
        cml_variant_add(v, sizeof v, "stride", stride);
    }
    /* Only the control says so: every other variant keeps its old name. */
    if (s->residency == CML_RESIDENCY_ONE)
        cml_variant_add_label(v, sizeof v, "residency", "one");
    snprintf(rec->variant, sizeof rec->variant, "%s", v);
}

/* The stride of a stride point: `stride` for 4-byte words, `wstride` for
 * wider elements. */
static unsigned stride_of(const banks_settings *s)
{
    return (unsigned)(elem_bytes[s->elem] == 4 ? s->stride : s->wstride);
}

static cml_status tile_variant(cml_record *rec, const banks_settings *s)
{
    const int64_t tile = s->tile, access = s->access, alloc = s->alloc;
    const unsigned pad = (unsigned)s->pad, iters = (unsigned)s->iters;
    const uint64_t blocks = (uint64_t)s->blocks;
    const unsigned W = tile_dims[tile][0], H = tile_dims[tile][1], P = W + pad;
    rec->bytes_read = 0;                      /* nothing is read from global memory */
    rec->bytes_written = 4ull * W * H * blocks; /* out[], one word per thread */

    cml_banks_args args = {CML_BANKS_TILE, W, H, P, access >= 2, access % 2 == 1, 4, 1};
    /* Every block is the same in shared memory; out[] shifts by 4*W*H bytes,
     * a multiple of 128. */
    cml_status st = cml_exp_trace_1d(rec, blocks, W * H, 0, 0, cml_banks_mirror, &args);
    if (st)
        return st;
    scale_shared(rec, iters);
    const bank_figs f = figs_of(rec);
    add_fig_extras(rec, &f);

    /* How each kind of access lays the warp over the banks. */
    char row_how[96], col_how[112], how[224];
    if (W >= CML_WARP_SIZE)
        snprintf(row_how, sizeof row_how, "a row access is %u consecutive words", W);
    else
        snprintf(row_how, sizeof row_how,
                 "a row access is two rows of %u words, %u apart (bank step %u)", W, P,
                 P % CML_SHARED_BANKS);
    snprintf(col_how, sizeof col_how, "a column access steps %u words (bank step %u) per lane%s",
             P, P % CML_SHARED_BANKS, H < CML_WARP_SIZE ? " over two columns" : "");
    if (args.write_col == args.read_col)
        snprintf(how, sizeof how, "%s", args.read_col ? col_how : row_how);
    else
        snprintf(how, sizeof how, "%s; %s", row_how, col_how);
    cml_record_finding(rec,
                       "%s tile, rows of %u+%u words, write %s, read %s: %s. Stores %.2f "
                       "wavefronts per request (%.2f conflicts), loads %.2f (%.2f)%s.",
                       tile_names[tile], W, pad, args.write_col ? "columns" : "rows",
                       args.read_col ? "columns" : "rows", how, f.st_wf, f.st_conf, f.ld_wf,
                       f.ld_conf,
                       alloc == 1 ? "; dynamic shared memory: same offsets, same banks" : "");
    return CML_OK;
}

static cml_status stride_variant(cml_record *rec, const banks_settings *s)
{
    const unsigned elem = elem_bytes[s->elem], stride = stride_of(s);
    const unsigned iters = (unsigned)s->iters;
    const uint64_t blocks = (uint64_t)s->blocks;
    const unsigned block = cml_banks_stride_block(elem, stride);
    rec->bytes_read = 0;
    rec->bytes_written = (uint64_t)elem * block * blocks;

    cml_banks_args args = {CML_BANKS_STRIDE, 0, 0, 0, 0, 0, elem, stride};
    /* out[] shifts by block*elem bytes per block, a multiple of 128. */
    cml_status st = cml_exp_trace_1d(rec, blocks, block, 0, 0, cml_banks_mirror, &args);
    if (st)
        return st;
    scale_shared(rec, iters);
    const bank_figs f = figs_of(rec);
    add_fig_extras(rec, &f);

    /* The arithmetic of the contract comment: phases of p lanes, g-way. */
    const unsigned p = CML_WARP_SIZE * 4u / elem, g = gcd_u(stride, p);
    char how[160];
    if (elem == 4) {
        if (g == 1)
            snprintf(how, sizeof how,
                     "lane l uses bank (%u*l) mod 32 and gcd(%u, 32) = 1, so the 32 lanes use 32 "
                     "banks%s", stride, stride,
                     stride > CML_WARP_SIZE && stride % CML_WARP_SIZE == 1
                         ? " (a stride of 32 padded by one word)"
                         : "");
        else if (g == CML_WARP_SIZE)
            snprintf(how, sizeof how, "%u*l mod 32 = 0: all 32 lanes in bank 0 -> 32-way",
                     stride);
        else
            snprintf(how, sizeof how, "lanes l and l+%u share bank (%u*l) mod 32 -> %u-way",
                     p / g, stride, g);
    } else {
        if (g == 1)
            snprintf(how, sizeof how,
                     "%u-byte lanes go in %u phases of %u lanes (128 B each), and the %u lanes of "
                     "a phase use different banks", elem, CML_WARP_SIZE / p, p, p);
        else
            snprintf(how, sizeof how,
                     "%u-byte lanes go in %u phases of %u lanes; in a phase lanes l and l+%u "
                     "share banks -> %u-way", elem, CML_WARP_SIZE / p, p, p / g, g);
    }
    cml_record_finding(rec,
                       "Stride %u (%u-byte elements): %s: %.2f wavefronts per request (%.0f at "
                       "best), %.2f bank conflicts per request.",
                       stride, elem, how, f.ld_wf, f.ideal, f.ld_conf);
    return CML_OK;
}

/* One point: the record and the model's prediction. */
static cml_status banks_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    (void)ctx;
    const banks_settings *s = vs;
    banks_variant_name(rec, s, s->pattern == CML_BANKS_STRIDE ? stride_of(s) : 0);
    return s->pattern == CML_BANKS_TILE ? tile_variant(rec, s) : stride_variant(rec, s);
}

/* ---- GPU run ----------------------------------------------------------- */

/* Conflict-free references, timed once per sweep: the row-row tile with no
 * padding (each shape and allocation) and stride 1 (each element size). */
#define MAX_BASELINES 16
typedef struct baseline {
    cml_banks_launch_args a;
    double median_ms;
} baseline;

/* The run's state: out[] (grown as needed, never shrunk) and the
 * references timed so far. */
typedef struct banks_gpu {
    cml_dbuf out;
    uint64_t cap; /* words */
    baseline base[MAX_BASELINES];
    size_t nbase;
} banks_gpu;

static cml_status banks_check_cb(void *ctx, unsigned long long *d_counters)
{
    const cml_banks_launch_args *a = ctx;
    return cml_banks_check(a, cml_banks_out_words(a), d_counters);
}

static int same_reference(const cml_banks_launch_args *x, const cml_banks_launch_args *y)
{
    if (x->stride_kind != y->stride_kind || x->blocks != y->blocks || x->iters != y->iters ||
        !x->smem != !y->smem)
        return 0;
    if (x->stride_kind)
        return x->elem == y->elem;
    return x->W == y->W && x->H == y->H && x->dynamic == y->dynamic;
}

/* The reference of a variant: its args with the conflict-free access. */
static cml_banks_launch_args reference_of(const cml_banks_launch_args *a)
{
    cml_banks_launch_args r = *a;
    if (r.stride_kind) {
        r.stride = 1;
        r.block = cml_banks_stride_block(r.elem, 1);
    } else {
        r.P = r.W;
        r.write_col = r.read_col = 0;
    }
    return r;
}

static int is_reference(const cml_banks_launch_args *a)
{
    return a->stride_kind ? a->stride == 1 : (a->P == a->W && !a->write_col && !a->read_col);
}

/* Median time of the reference of `a` (timed now if not yet); < 0 on error. */
static double reference_ms(const cml_plan *plan, banks_gpu *g, const cml_banks_launch_args *a)
{
    for (size_t i = 0; i < g->nbase; i++)
        if (same_reference(&g->base[i].a, a))
            return g->base[i].median_ms;
    if (g->nbase == MAX_BASELINES)
        return -1.0;
    cml_banks_launch_args r = reference_of(a);
    /* A control variant (one block per SM) is set beside a control reference. */
    if (r.smem &&
        cml_gpu_one_block_per_sm(plan->gpu, cml_banks_kernel(&r),
                                 r.stride_kind ? r.block : r.W * r.H, 0, &r.smem) != CML_OK)
        return -1.0;
    cml_timing t;
    unsigned warmup = plan->warmup ? plan->warmup : CML_EXP_WARMUP;
    unsigned reps = plan->reps ? plan->reps : CML_EXP_REPS;
    if (cml_gpu_time(plan->gpu, cml_banks_launch, &r, warmup, reps, &t) != CML_OK)
        return -1.0;
    g->base[g->nbase].a = r;
    g->base[g->nbase].median_ms = t.median_ms;
    g->nbase++;
    return t.median_ms;
}

/* The sentence of a measured variant: the model's wavefronts per warp
 * access beside the measured SM cycles per warp access, and what each
 * extra wavefront cost against the conflict-free reference. */
static void measured_finding(cml_record *rec, const cml_banks_launch_args *a)
{
    const bank_figs f = figs_of(rec);
    const double ns = cml_record_extra(rec, "ns_per_warp_access", -1.0);
    const double cyc = cml_record_extra(rec, "sm_cycles_per_warp_access", -1.0);
    const double extra_cost = cml_record_extra(rec, "cycles_per_extra_wavefront", -1.0);
    const double meas = cml_record_extra(rec, "measured_slowdown", -1.0);
    const double wf = (f.ld_wf + f.st_wf) / 2.0;
    char what[96], timing[96], slow[128] = "";
    if (a->stride_kind)
        snprintf(what, sizeof what, "Stride %u, %u-byte elements (%.2f conflicts per request)",
                 a->stride, a->elem, f.ld_conf);
    else
        snprintf(what, sizeof what, "%ux%u tile, rows of %u+%u, write %s, read %s (%s)", a->W,
                 a->H, a->W, a->P - a->W, a->write_col ? "cols" : "rows",
                 a->read_col ? "cols" : "rows", a->dynamic ? "dynamic" : "static");
    if (cyc > 0)
        snprintf(timing, sizeof timing, "%.3f ns per warp access = %.2f SM cycles", ns, cyc);
    else
        snprintf(timing, sizeof timing, "%.3f ns per warp access", ns);
    if (extra_cost > 0 && meas > 0)
        snprintf(slow, sizeof slow, "; %.2fx the conflict-free %s, %.2f cycles per extra "
                 "wavefront", meas, a->stride_kind ? "stride 1" : "row-row tile", extra_cost);
    else if (meas > 0)
        snprintf(slow, sizeof slow, "; %.2fx the conflict-free %s", meas,
                 a->stride_kind ? "stride 1" : "row-row tile");
    cml_record_finding(rec, "%s: model %.2f wavefronts per warp access (store and load). "
                       "Measured %s%s.", what, wf, timing, slow);
}

/* Measure one variant: poison out[], time, check every word, and set the
 * per-access figures and the slowdown against the conflict-free reference;
 * then the measured sentence. */
static cml_status banks_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const banks_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    banks_gpu *g = ctx->state;
    cml_banks_launch_args a;
    memset(&a, 0, sizeof a);
    a.blocks = (uint64_t)s->blocks;
    a.iters = (unsigned)s->iters;
    if (s->pattern == CML_BANKS_TILE) {
        a.W = tile_dims[s->tile][0];
        a.H = tile_dims[s->tile][1];
        a.P = a.W + (unsigned)s->pad;
        a.write_col = s->access >= 2;
        a.read_col = s->access % 2 == 1;
        a.dynamic = s->alloc == 1;
    } else {
        a.stride_kind = 1;
        a.elem = elem_bytes[s->elem];
        a.stride = stride_of(s);
        a.block = cml_banks_stride_block(a.elem, a.stride);
    }
    const uint64_t words = cml_banks_out_words(&a);
    cml_status st;
    if (!a.stride_kind && !a.dynamic && !cml_banks_has_static(a.W, a.H, a.P)) {
        cml_sweep_waive(ctx, rec, "static shared memory is compiled for pads 0, 1 and 2 only; "
                                  "alloc=dynamic takes any pad");
        return CML_OK;
    }
    if (g->cap < words) {
        cml_gpu_free(plan->gpu, &g->out);
        g->cap = 0;
        if ((st = cml_exp_alloc(plan, rec, &g->out, words * 4)) != CML_OK)
            return st;
        g->cap = words;
    }
    a.out = g->out.ptr;
    const unsigned threads = a.stride_kind ? a.block : a.W * a.H;
    if (s->residency == CML_RESIDENCY_ONE) {
        st = cml_exp_one_block_per_sm(ctx, rec, cml_banks_kernel(&a), threads,
                                      cml_banks_smem(&a), &a.smem);
        if (st)
            return st == CML_EUNSUPPORTED ? CML_OK : st;
    }
    st = cml_gpu_poison(plan->gpu, &g->out);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_banks_launch, &a, cml_banks_kernel(&a), threads,
                      a.smem ? a.smem : cml_banks_smem(&a));
    if (st)
        return st;
    st = cml_exp_verify(plan, rec, banks_check_cb, &a);
    if (st)
        return st;
    const double accesses = (double)a.blocks * (threads / CML_WARP_SIZE) * a.iters * 2.0;
    const double elem = a.stride_kind ? a.elem : 4.0;
    const double ms = rec->timing.median_ms;
    cml_record_add_extra(rec, "ns_per_warp_access", ms * 1e6 / accesses, "ns");
    cml_record_add_extra(rec, "smem_gbs", cml_gbs(accesses * 32.0 * elem, ms), "GB/s");
    const double ref = is_reference(&a) ? ms : reference_ms(plan, g, &a);
    if (ref > 0)
        cml_record_add_extra(rec, "measured_slowdown", ms / ref, "x");
    /* The same time in SM clock cycles per warp access, on every SM at once
     * and at the device's maximum clock (H100s run near it under load): the
     * unit the model's wavefronts are counted in, one per cycle per SM. */
    const double ghz = plan->dev ? plan->dev->sm_clock_khz / 1e6 : 0.0;
    const double sms = plan->dev ? plan->dev->sm_count : 0.0;
    if (ghz > 0 && sms > 0) {
        const bank_figs f = figs_of(rec);
        const double cyc = ms * 1e6 / accesses * sms * ghz;
        cml_record_add_extra(rec, "sm_cycles_per_warp_access", cyc, "cycles");
        /* What each wavefront beyond the reference's costs. */
        const double wf = (f.ld_wf + f.st_wf) / 2.0, ref_wf = (f.ideal + f.st_ideal) / 2.0;
        if (ref > 0 && wf > ref_wf)
            cml_record_add_extra(rec, "cycles_per_extra_wavefront",
                                 (cyc - ref * 1e6 / accesses * sms * ghz) / (wf - ref_wf),
                                 "cycles");
    }
    measured_finding(rec, &a);
    return CML_OK;
}

/*
 * The records of wider elements carry their stride as `stride`, like the
 * 4-byte words: one parameter for the charts and tables to plot, though
 * the option is `wstride` (its own range and default). The engine names a
 * record's parameters after the options, so the name is set here.
 */
static void banks_summary(cml_sweep *ctx, size_t first, size_t last)
{
    for (size_t i = first; i <= last; i++) {
        cml_record *rec = &ctx->out->items[i];
        for (unsigned k = 0; k < rec->nparams; k++)
            if (strcmp(rec->params[k].name, "wstride") == 0)
                snprintf(rec->params[k].name, sizeof rec->params[k].name, "stride");
    }
}

static void banks_release(cml_sweep *ctx)
{
    banks_gpu *g = ctx->state;
    if (ctx->plan->gpu)
        cml_gpu_free(ctx->plan->gpu, &g->out);
}

static const cml_chart_spec banks_charts[] = {
    {.shape = CML_PLOT_SWEEP,
     .title = "Predicted bank conflicts vs stride",
     .xparam = "stride",
     .xname = "stride",
     .xlabel = "stride between lanes (elements)",
     .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER,
     .ylabel = "bank conflicts per request",
     .yfmt = CML_FMT_NUMBER,
     .only_param = "pattern",
     .only_label = "stride",
     .m = {{"predicted", CML_METRIC_SHARED_CONFLICTS, NULL, NULL, 0}},
     .what = "bank conflicts per request",
     .unit = "",
     .describe = 1},
    {.shape = CML_PLOT_SWEEP,
     .title = "Measured kernel time vs stride",
     .xparam = "stride",
     .xname = "stride",
     .xlabel = "stride between lanes (elements)",
     .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER,
     .ylabel = "median time (us)",
     .yfmt = CML_FMT_NUMBER,
     .only_param = "pattern",
     .only_label = "stride",
     .m = {{"measured", CML_METRIC_TIME_US, NULL, NULL, 0}},
     .what = "the kernel time",
     .unit = "us",
     .describe = 1},
    {.shape = CML_PLOT_BARS,
     .title = "Predicted wavefronts per shared load: tiles and padding",
     .ylabel = "wavefronts per request",
     .yfmt = CML_FMT_NUMBER,
     .only_param = "pattern",
     .only_label = "tile",
     .series_param = "pad",
     .m = {{"predicted", CML_METRIC_SHARED_WAVEFRONTS, NULL, NULL, 0}},
     .what = "wavefronts per request",
     .unit = "",
     .describe = 1},
};

/* Every pattern again with one block per SM: the control of the shared
 * counters (docs/model-evidence.md §4.1). */
static const char *const banks_validate_settings[] = {"", "residency=one", NULL};
static const cml_validate_spec banks_validate = {banks_validate_settings, NULL, 0};

const cml_experiment cml_exp_shared_banks = {
    .key = "shared-banks",
    .number = 12,
    .title = "Shared memory banks",
    .summary = "a 32x32 / 32x16 / 16x32 word tile written and read by rows or columns, with and "
               "without padding, and strides 1..33 of 4-, 8- and 16-byte elements: wavefronts, "
               "conflicts, time per warp access",
    .doc = "docs/experiments/shared-banks.md",
    .options = banks_params,
    .noptions = CML_COUNT(banks_params),
    .settings_size = sizeof(banks_settings),
    .state_size = sizeof(banks_gpu),
    .tour = "tile=32x32,32x16 access=row-col pad=0,1,2 stride=1,2,4,32,33 elem=4,8,16",
    .variant = banks_variant,
    .measure = banks_measure,
    .summarize = banks_summary,
    .release = banks_release,
    .charts = banks_charts,
    .ncharts = CML_COUNT(banks_charts),
    .validate = &banks_validate,
};
