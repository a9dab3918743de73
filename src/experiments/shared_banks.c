/*
 * Experiment 12: shared memory banks.
 *
 * CONTRACT: the kernels the mirror below stands for (shared_banks.cu, a
 * later issue, must be exactly this).
 *
 * (a) Tiles, after the textbook's checkSmemSquare / checkSmemRectangle.
 *     W = tile columns = blockDim.x, H = tile rows = blockDim.y (32x32, 32x16
 *     or 16x32), P = W + pad ints per (padded) row; grid = `blocks` blocks.
 *     "row" = tile[threadIdx.y][threadIdx.x]; "col" = tile[icol][irow], the
 *     transposed coordinates of the thread's linear index:
 *
 *   __global__ void smem_tile_<write>_<read>(int *out)   // static: __shared__ int tile[H][P];
 *   {                                                     // dynamic: extern __shared__ int tile[]
 *                                                         //   (H*P ints), tile[r][c] = tile[r*P + c]
 *       unsigned idx = threadIdx.y * blockDim.x + threadIdx.x;
 *       unsigned irow = idx / blockDim.y, icol = idx % blockDim.y;
 *       tile[<write>] = idx;                              // site 0: shared store
 *       __syncthreads();
 *       out[blockIdx.x * blockDim.x * blockDim.y + idx] = tile[<read>];
 *   }                                                     // site 1: shared load, site 2: global store
 *
 *   With W = H = 32 "col" is tile[threadIdx.x][threadIdx.y], the square
 *   kernels of the book (setRowReadCol etc.); with 32x16 and pad 2 it is the
 *   book's setRowReadColPad for the rectangle. Static kernels need W, H and
 *   P at compile time (instantiate the pads the tour uses, 0, 1 and 2); the
 *   dynamic form takes any pad. The model gives both the same figures: the
 *   same offsets fall in the same banks.
 *
 * (b) Strides, one warp per block (blockDim.x = 32), T = int, long long or
 *     int4 (4, 8 or 16 bytes):
 *
 *   __global__ void smem_stride_<T>(T *out, int stride)
 *   {
 *       extern __shared__ T s[];                         // 32 * stride elements
 *       unsigned l = threadIdx.x;
 *       s[l * stride] = <T built from l>;                // site 0: shared store
 *       __syncthreads();
 *       out[blockIdx.x * 32 + l] = s[l * stride];        // site 1: shared load, site 2: global store
 *   }
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

#include "experiments/common.h"
#include "experiments/shared_banks.h"

static const char *const pattern_names[] = {"tile", "stride", NULL};
static const char *const tile_names[] = {"32x32", "32x16", "16x32", NULL};
static const unsigned tile_dims[][2] = {{32, 32}, {32, 16}, {16, 32}};
static const char *const access_names[] = {"row-row", "row-col", "col-row", "col-col", NULL};
static const char *const alloc_names[] = {"static", "dynamic", NULL};
static const char *const elem_names[] = {"4", "8", "16", NULL};
static const unsigned elem_bytes[] = {4, 8, 16};

static const cml_param_def banks_params[] = {
    {"pattern", "tile (rows/columns of an int tile) or stride (one warp, s[l*stride])", 0, 0,
     "tile,stride", pattern_names, 0},
    {"tile", "tile: columns x rows (= block shape)", 0, 0, "32x32,32x16,16x32", tile_names, 0},
    {"access", "tile: written by rows or columns, then read by rows or columns", 0, 0,
     "row-row,row-col,col-row,col-col", access_names, 0},
    {"pad", "tile: ints of padding per row", 0, 32, "0,1,2", NULL, 0},
    {"alloc", "tile: static or dynamic shared memory (same addresses for the model)", 0, 0,
     "static", alloc_names, 0},
    {"stride", "stride: distance between lanes, in 4-byte elements", 1, 64, "1:32,33", NULL, 0},
    {"elem", "stride: element bytes (int, long long, int4)", 0, 0, "4,8,16", elem_names, 0},
    {"wstride", "stride: distance between lanes for 8- and 16-byte elements, in elements", 1, 32,
     "1,2,4", NULL, 0},
    {"blocks", "blocks in the grid", 1, 1 << 20, "1024", NULL, 0},
};

void cml_banks_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_banks_args *a = vargs;
    const uint64_t out = cml_array_base(0);
    const uint64_t lin = (uint64_t)t->tid.y * t->bdim.x + t->tid.x;
    if (a->kind == CML_BANKS_TILE) {
        const uint64_t tx = lin % a->W, ty = lin / a->W;
        const uint64_t irow = lin / a->H, icol = lin % a->H;
        const uint64_t row_word = ty * a->P + tx, col_word = icol * a->P + irow;
        const uint64_t wr = a->write_col ? col_word : row_word;
        const uint64_t rd = a->read_col ? col_word : row_word;
        cml_emit(e, 0, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * wr);
        cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * rd);
        cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                 out + 4 * ((uint64_t)t->bid.x * a->W * a->H + lin));
    } else {
        const uint64_t off = (uint64_t)a->elem * a->stride * lin;
        cml_emit(e, 0, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, a->elem, off);
        cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, a->elem, off);
        cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, a->elem,
                 out + (uint64_t)a->elem * ((uint64_t)t->bid.x * CML_WARP_SIZE + lin));
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
    double ld_wf, ld_conf, st_wf, st_conf, ideal;
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
    return f;
}

static void add_fig_extras(cml_record *rec, const bank_figs *f)
{
    cml_record_add_extra(rec, "ld_wavefronts_per_req", f->ld_wf, "");
    cml_record_add_extra(rec, "ld_conflicts_per_req", f->ld_conf, "");
    cml_record_add_extra(rec, "st_wavefronts_per_req", f->st_wf, "");
    cml_record_add_extra(rec, "st_conflicts_per_req", f->st_conf, "");
}

static cml_status tile_variant(cml_results *out, int64_t tile, int64_t access, unsigned pad,
                               int64_t alloc, uint64_t blocks)
{
    const unsigned W = tile_dims[tile][0], H = tile_dims[tile][1], P = W + pad;
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "pattern", "tile");
    cml_variant_add_label(variant, sizeof variant, "tile", tile_names[tile]);
    cml_variant_add_label(variant, sizeof variant, "access", access_names[access]);
    cml_variant_add(variant, sizeof variant, "pad", pad);
    cml_variant_add_label(variant, sizeof variant, "alloc", alloc_names[alloc]);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "shared-banks", variant);
    cml_record_add_param(rec, "pattern", CML_BANKS_TILE, "tile");
    cml_record_add_param(rec, "tile", tile, tile_names[tile]);
    cml_record_add_param(rec, "access", access, access_names[access]);
    cml_record_add_param(rec, "pad", pad, NULL);
    cml_record_add_param(rec, "alloc", alloc, alloc_names[alloc]);
    cml_record_add_param(rec, "blocks", (int64_t)blocks, NULL);
    rec->bytes_read = 0;                      /* nothing is read from global memory */
    rec->bytes_written = 4ull * W * H * blocks; /* out[], one int per thread */

    cml_banks_args args = {CML_BANKS_TILE, W, H, P, access >= 2, access % 2 == 1, 4, 1};
    /* Every block is the same in shared memory; out[] shifts by 4*W*H bytes,
     * a multiple of 128. */
    cml_status st = cml_exp_trace_1d(rec, blocks, W * H, 0, 0, cml_banks_mirror, &args);
    if (st)
        return st;
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
                       "%s tile, rows of %u+%u ints, write %s, read %s: %s. Stores %.2f "
                       "wavefronts per request (%.2f conflicts), loads %.2f (%.2f)%s.",
                       tile_names[tile], W, pad, args.write_col ? "columns" : "rows",
                       args.read_col ? "columns" : "rows", how, f.st_wf, f.st_conf, f.ld_wf,
                       f.ld_conf,
                       alloc == 1 ? "; dynamic shared memory: same offsets, same banks" : "");
    return CML_OK;
}

static cml_status stride_variant(cml_results *out, int64_t elem_choice, unsigned stride,
                                 uint64_t blocks)
{
    const unsigned elem = elem_bytes[elem_choice];
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "pattern", "stride");
    cml_variant_add(variant, sizeof variant, "elem", elem);
    cml_variant_add(variant, sizeof variant, "stride", stride);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "shared-banks", variant);
    cml_record_add_param(rec, "pattern", CML_BANKS_STRIDE, "stride");
    cml_record_add_param(rec, "elem", elem_choice, elem_names[elem_choice]);
    cml_record_add_param(rec, "stride", stride, NULL);
    cml_record_add_param(rec, "blocks", (int64_t)blocks, NULL);
    rec->bytes_read = 0;
    rec->bytes_written = (uint64_t)elem * CML_WARP_SIZE * blocks;

    cml_banks_args args = {CML_BANKS_STRIDE, 0, 0, 0, 0, 0, elem, stride};
    /* out[] shifts by 32*elem bytes per block, a multiple of 128. */
    cml_status st = cml_exp_trace_1d(rec, blocks, CML_WARP_SIZE, 0, 0, cml_banks_mirror, &args);
    if (st)
        return st;
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

static cml_status banks_model(const cml_plan *plan, const cml_param_values *pv, cml_results *out)
{
    (void)plan;
    const cml_param_list *patterns = cml_param_get(pv, "pattern");
    const cml_param_list *tiles = cml_param_get(pv, "tile");
    const cml_param_list *accesses = cml_param_get(pv, "access");
    const cml_param_list *pads = cml_param_get(pv, "pad");
    const cml_param_list *allocs = cml_param_get(pv, "alloc");
    const cml_param_list *strides = cml_param_get(pv, "stride");
    const cml_param_list *elems = cml_param_get(pv, "elem");
    const cml_param_list *wstrides = cml_param_get(pv, "wstride");
    const uint64_t blocks = (uint64_t)cml_param_first(pv, "blocks");

    for (size_t pi = 0; pi < patterns->count; pi++) {
        cml_status st = CML_OK;
        if (patterns->v[pi] == CML_BANKS_TILE) {
            for (size_t ti = 0; ti < tiles->count && !st; ti++)
                for (size_t ai = 0; ai < accesses->count && !st; ai++)
                    for (size_t di = 0; di < pads->count && !st; di++)
                        for (size_t li = 0; li < allocs->count && !st; li++)
                            st = tile_variant(out, tiles->v[ti], accesses->v[ai],
                                              (unsigned)pads->v[di], allocs->v[li], blocks);
        } else {
            for (size_t ei = 0; ei < elems->count && !st; ei++) {
                /* 4-byte words sweep `stride`; wider elements `wstride`. */
                const cml_param_list *sl = elem_bytes[elems->v[ei]] == 4 ? strides : wstrides;
                for (size_t si = 0; si < sl->count && !st; si++)
                    st = stride_variant(out, elems->v[ei], (unsigned)sl->v[si], blocks);
            }
        }
        if (st)
            return st;
    }
    return CML_OK;
}

const cml_experiment cml_exp_shared_banks = {
    "shared-banks", 12, "Shared memory banks",
    "a 32x32 / 32x16 int tile written and read by rows or columns, with and without padding, "
    "and one warp at strides 1..33 of 4-, 8- and 16-byte elements: wavefronts and conflicts",
    banks_params, sizeof banks_params / sizeof banks_params[0],
    banks_model, NULL,
    "tile=32x32,32x16 access=row-col pad=0,1,2 stride=1,2,4,32,33 elem=4,8,16",
};
