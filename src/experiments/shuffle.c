/*
 * Experiment 11: warp shuffle.
 *
 * CONTRACT: the kernels the mirror below stands for (shuffle.cu, a later
 * issue, must be exactly this). Blocks are 1-D, a power of two from 32 to
 * 1024 threads, so every warp is full and threadIdx.x % 32 is the lane.
 *
 *   __global__ void reduce_smem(const float *in, float *out, unsigned long long n)
 *   {
 *       extern __shared__ float smem[];                 // blockDim.x floats
 *       unsigned tid = threadIdx.x;
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + tid;
 *       smem[tid] = (i < n) ? in[i] : 0.0f;             // site 0: global load (i < n only)
 *                                                       // site 1: shared store
 *       __syncthreads();
 *       for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {   // tree level L = 0, 1, ...
 *           if (tid < s)
 *               smem[tid] += smem[tid + s];             // site 2+3L: load smem[tid],
 *                                                       // site 3+3L: load smem[tid+s],
 *                                                       // site 4+3L: store smem[tid]
 *           __syncthreads();
 *       }
 *       if (tid == 0)
 *           out[blockIdx.x] = smem[0];                  // site 32: shared load, site 33: global store
 *   }
 *   (One site per tree level is the model's bookkeeping; on the GPU the loop
 *   body is the same three instructions at every level, issued by the warps
 *   that still have a lane with tid < s.)
 *
 *   __global__ void reduce_shfl(const float *in, float *out, unsigned long long n)
 *   {
 *       __shared__ float smem[32];
 *       unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + tid;
 *       float v = (i < n) ? in[i] : 0.0f;               // site 0: global load (i < n only)
 *       for (int off = 16; off > 0; off >>= 1)
 *           v += __shfl_down_sync(0xffffffffu, v, off); // registers only
 *       if (lane == 0)
 *           smem[warp] = v;                             // site 1: shared store, lane 0 of each warp
 *       __syncthreads();
 *       if (warp == 0) {
 *           v = (lane < blockDim.x / 32) ? smem[lane] : 0.0f;  // site 2: shared load
 *           for (int off = 16; off > 0; off >>= 1)
 *               v += __shfl_down_sync(0xffffffffu, v, off);
 *           if (lane == 0)
 *               out[blockIdx.x] = v;                    // site 3: global store
 *       }
 *   }
 *
 *   The permutations, one kernel each (OP = __shfl_sync with srcLane = arg,
 *   __shfl_up_sync / __shfl_down_sync with delta = arg, __shfl_xor_sync with
 *   laneMask = arg; width a power of two, 2..32):
 *   __global__ void shfl_OP(const float *in, float *out, unsigned long long n,
 *                           int arg, int width)
 *   {
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *       float v = (i < n) ? in[i] : 0.0f;               // site 0: global load (i < n only)
 *       v = OP(0xffffffffu, v, arg, width);             // every lane takes part
 *       if (i < n)
 *           out[i] = v;                                 // site 1: global store
 *   }
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/shuffle.h"

#define SITE_TREE0 2u
#define SITE_SMEM_FINAL 32u
#define SITE_SMEM_OUT 33u

static const char *const op_names[] = {"reduce-smem", "reduce-shfl", "broadcast", "up",
                                       "down", "xor", NULL};
static const char *const width_names[] = {"2", "4", "8", "16", "32", NULL};
static const unsigned width_values[] = {2, 4, 8, 16, 32};
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

static const cml_param_def shuffle_params[] = {
    {"op", "reduce-smem / reduce-shfl (block sum by a shared-memory tree or by shuffles), or "
           "a shuffle: broadcast, up, down, xor", 0, 0,
     "reduce-smem,reduce-shfl,broadcast,up,down,xor", op_names, 0},
    {"width", "shuffle width (lanes per group)", 0, 0, "8,32", width_names, 0},
    {"arg", "source lane (broadcast), delta (up, down) or lane mask (xor)", 0, 31, "1", NULL, 0},
    {"block", "threads per block", 0, 0, "256", block_names, 0},
    {"n", "elements", 32, (int64_t)1 << 30, "2^20", NULL, 0},
};

unsigned cml_shfl_source(cml_shfl_op op, unsigned lane, unsigned arg, unsigned width)
{
    /* PTX shfl.sync: c[12:8] = segmask = 32 - width; c[4:0] = 0x1f except
     * for .up (0), which is how CUDA's intrinsics build the operand. */
    const int segmask = (int)(CML_WARP_SIZE - width) & 0x1f;
    const int cval = op == CML_SHFL_UP ? 0 : 0x1f;
    const int l = (int)lane, b = (int)(arg & 0x1fu);
    const int max_lane = (l & segmask) | (cval & ~segmask);
    const int min_lane = l & segmask;
    int j = l, ok = 0;
    switch (op) {
    case CML_SHFL_UP: j = l - b; ok = j >= max_lane; break;
    case CML_SHFL_DOWN: j = l + b; ok = j <= max_lane; break;
    case CML_SHFL_XOR: j = l ^ b; ok = j <= max_lane; break;
    case CML_SHFL_BROADCAST: j = min_lane | (b & ~segmask); ok = j <= max_lane; break;
    default: break;
    }
    return ok ? (unsigned)j : lane;
}

void cml_shuffle_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_shuffle_args *a = vargs;
    const uint64_t in = cml_array_base(0), out = cml_array_base(1);
    const uint64_t i = cml_gtid(t);
    const unsigned tid = t->tid.x, lane = tid % CML_WARP_SIZE, warp = tid / CML_WARP_SIZE;
    switch (a->op) {
    case CML_SHFL_REDUCE_SMEM: {
        if (i < a->n)
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
        cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4u * tid);
        unsigned level = 0;
        for (unsigned s = t->bdim.x / 2; s > 0; s >>= 1, level++) {
            if (tid < s) {
                const unsigned site = SITE_TREE0 + 3 * level;
                cml_emit(e, site, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4u * tid);
                cml_emit(e, site + 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4,
                         4u * (tid + s));
                cml_emit(e, site + 2, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4u * tid);
            }
        }
        if (tid == 0) {
            cml_emit(e, SITE_SMEM_FINAL, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 0);
            cml_emit(e, SITE_SMEM_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                     out + 4u * t->bid.x);
        }
        break;
    }
    case CML_SHFL_REDUCE_SHFL:
        if (i < a->n)
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
        if (lane == 0)
            cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4u * warp);
        if (warp == 0) {
            if (lane < t->bdim.x / CML_WARP_SIZE)
                cml_emit(e, 2, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4u * lane);
            if (lane == 0)
                cml_emit(e, 3, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                         out + 4u * t->bid.x);
        }
        break;
    default: /* the permutations: a shuffle moves registers, no memory */
        if (i < a->n) {
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
            cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * i);
        }
        break;
    }
}

/* Shared instructions, wavefronts and conflicts of a reduction, per block. */
typedef struct smem_cost {
    double instructions, wavefronts;
    uint64_t conflicts;
} smem_cost;

static smem_cost smem_cost_of(const cml_kernel_traffic *m, uint64_t nblocks)
{
    const cml_traffic *ld = &m->cls[CML_CLASS_SHARED_LD], *st = &m->cls[CML_CLASS_SHARED_ST];
    smem_cost c;
    c.instructions = (double)(ld->instructions + st->instructions) / (double)nblocks;
    c.wavefronts = (double)(ld->wavefronts + st->wavefronts) / (double)nblocks;
    c.conflicts = ld->bank_conflicts + st->bank_conflicts;
    return c;
}

static unsigned log2u(unsigned v)
{
    unsigned r = 0;
    while (v > 1) {
        v >>= 1;
        r++;
    }
    return r;
}

static cml_status reduce_variant(cml_results *out, uint64_t n, cml_shfl_op op,
                                 int64_t block_choice)
{
    const unsigned block = block_sizes[block_choice];
    const uint64_t nblocks = cml_div_up(n, block);
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "op", op_names[op]);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "shuffle", variant);
    cml_record_add_param(rec, "op", op, op_names[op]);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    rec->bytes_read = 4 * n;
    rec->bytes_written = 4 * nblocks; /* one partial sum per block */

    /* Every block issues the same shared traffic; in[] shifts by 4*block
     * bytes (a multiple of 128); out[b] is one lane's 4 bytes, one sector
     * wherever it falls. The last block may be partial. */
    cml_shuffle_args args = {n, op};
    cml_status st = cml_exp_trace_1d(rec, nblocks, block, 0, 1, cml_shuffle_mirror, &args);
    if (st)
        return st;

    /* The other reduction, for the comparison in the sentence. */
    cml_record *other = calloc(1, sizeof *other); /* a record is a few KB */
    if (!other)
        return CML_ENOMEM;
    cml_shuffle_args oargs = {n, op == CML_SHFL_REDUCE_SMEM ? CML_SHFL_REDUCE_SHFL
                                                            : CML_SHFL_REDUCE_SMEM};
    st = cml_exp_trace_1d(other, nblocks, block, 0, 1, cml_shuffle_mirror, &oargs);
    const smem_cost mine = smem_cost_of(&rec->model[CML_RULES_MODERN], nblocks);
    const smem_cost theirs = smem_cost_of(&other->model[CML_RULES_MODERN], nblocks);
    free(other);
    if (st) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model (the other reduction): %s", cml_status_str(st));
        return st;
    }
    const unsigned syncs = op == CML_SHFL_REDUCE_SMEM ? 1 + log2u(block) : 1;
    cml_record_add_extra(rec, "smem_instr_per_block", mine.instructions, "");
    cml_record_add_extra(rec, "smem_wavefronts_per_block", mine.wavefronts, "");
    cml_record_add_extra(rec, "syncthreads_per_block", syncs, "");
    if (op == CML_SHFL_REDUCE_SMEM)
        cml_record_finding(rec,
                           "Tree in shared memory: %.1f shared instructions per block of %u "
                           "(%.1f wavefronts, %llu bank conflicts in all) and %u __syncthreads; "
                           "the shuffle reduction needs %.1f (%.1f wavefronts) and 1, since "
                           "__shfl_down_sync exchanges registers and moves no memory.",
                           mine.instructions, block, mine.wavefronts,
                           (unsigned long long)mine.conflicts, syncs, theirs.instructions,
                           theirs.wavefronts);
    else
        cml_record_finding(rec,
                           "Shuffle reduction: each warp sums in registers (__shfl_down_sync "
                           "moves no memory), so shared memory only carries one partial per "
                           "warp: %.1f shared instructions per block of %u (%.1f wavefronts, "
                           "%llu conflicts) against %.1f (%.1f wavefronts) for the tree.",
                           mine.instructions, block, mine.wavefronts,
                           (unsigned long long)mine.conflicts, theirs.instructions,
                           theirs.wavefronts);
    return CML_OK;
}

/* "1,0,3,2,5,4,7,6": the source lanes of lanes 0..7. */
static void sources_text(char *buf, size_t len, cml_shfl_op op, unsigned arg, unsigned width,
                         unsigned *own)
{
    size_t used = 0;
    buf[0] = '\0';
    *own = 0;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
        unsigned src = cml_shfl_source(op, l, arg, width);
        *own += src == l;
        if (l < 8 && used < len) {
            int w = snprintf(buf + used, len - used, "%s%u", l ? "," : "", src);
            if (w > 0)
                used += (size_t)w;
        }
    }
}

static cml_status perm_variant(cml_results *out, uint64_t n, cml_shfl_op op, int64_t width_choice,
                               unsigned arg, int64_t block_choice)
{
    const unsigned block = block_sizes[block_choice], width = width_values[width_choice];
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "op", op_names[op]);
    cml_variant_add(variant, sizeof variant, "width", width);
    cml_variant_add(variant, sizeof variant, "arg", arg);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "shuffle", variant);
    cml_record_add_param(rec, "op", op, op_names[op]);
    cml_record_add_param(rec, "width", width_choice, width_names[width_choice]);
    cml_record_add_param(rec, "arg", arg, NULL);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    rec->bytes_read = 4 * n;
    rec->bytes_written = 4 * n;

    cml_shuffle_args args = {n, op};
    cml_status st = cml_exp_trace_1d(rec, cml_div_up(n, block), block, 0, 1, cml_shuffle_mirror,
                                     &args);
    if (st)
        return st;

    char srcs[64], what[96];
    unsigned own = 0;
    sources_text(srcs, sizeof srcs, op, arg, width, &own);
    cml_record_add_extra(rec, "lanes_keeping_own", own, "lanes");
    switch (op) {
    case CML_SHFL_BROADCAST:
        snprintf(what, sizeof what, "__shfl_sync(mask, v, %u, %u): broadcast, lane l gets lane %u "
                 "of its group", arg, width, arg % width);
        break;
    case CML_SHFL_UP:
        snprintf(what, sizeof what, "__shfl_up_sync(mask, v, %u, %u): shift, lane l gets lane "
                 "l-%u in its group", arg, width, arg);
        break;
    case CML_SHFL_DOWN:
        snprintf(what, sizeof what, "__shfl_down_sync(mask, v, %u, %u): shift, lane l gets lane "
                 "l+%u in its group", arg, width, arg);
        break;
    default:
        snprintf(what, sizeof what, "__shfl_xor_sync(mask, v, %u, %u): butterfly, lane l gets "
                 "lane l^%u", arg, width, arg);
        break;
    }
    cml_record_finding(rec,
                       "%s (groups of %u lanes): lanes 0-7 get lanes %s; %u of 32 lanes keep "
                       "their own value. A shuffle moves registers, not memory: the only traffic "
                       "is in[] and out[], %.2f and %.2f sectors per request.",
                       what, width, srcs, own, cml_exp_spr(rec, CML_CLASS_GLOBAL_LD),
                       cml_exp_spr(rec, CML_CLASS_GLOBAL_ST));
    return CML_OK;
}

static cml_status shuffle_model(const cml_plan *plan, const cml_param_values *pv,
                                cml_results *out)
{
    (void)plan;
    const cml_param_list *ops = cml_param_get(pv, "op");
    const cml_param_list *widths = cml_param_get(pv, "width");
    const cml_param_list *args = cml_param_get(pv, "arg");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const uint64_t n = (uint64_t)cml_param_first(pv, "n");

    for (size_t bi = 0; bi < blocks->count; bi++)
        for (size_t oi = 0; oi < ops->count; oi++) {
            const cml_shfl_op op = (cml_shfl_op)ops->v[oi];
            cml_status st = CML_OK;
            if (op == CML_SHFL_REDUCE_SMEM || op == CML_SHFL_REDUCE_SHFL) {
                st = reduce_variant(out, n, op, blocks->v[bi]);
            } else {
                for (size_t wi = 0; wi < widths->count && !st; wi++)
                    for (size_t ai = 0; ai < args->count && !st; ai++)
                        st = perm_variant(out, n, op, widths->v[wi], (unsigned)args->v[ai],
                                          blocks->v[bi]);
            }
            if (st)
                return st;
        }
    return CML_OK;
}

const cml_experiment cml_exp_shuffle = {
    "shuffle", 11, "Warp shuffle",
    "block sum by a shared-memory tree vs by __shfl_down_sync, and the broadcast, up, down "
    "and xor shuffles (width < 32 too): what memory each moves",
    shuffle_params, sizeof shuffle_params / sizeof shuffle_params[0],
    shuffle_model, NULL, "op=reduce-smem,reduce-shfl,xor,up width=8,32",
};
