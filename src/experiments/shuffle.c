/*
 * Experiment 11: warp shuffle (the textbook's simpleShfl and
 * reduceIntegerShfl).
 *
 * CONTRACT: the kernels the mirror below stands for (shuffle.cu is exactly
 * this). Blocks are 1-D, a power of two from 32 to 1024 threads, so every
 * warp is full and threadIdx.x % 32 is the lane. The data are unsigned
 * 32-bit words: sums wrap modulo 2^32 (defined for unsigned in C), so every
 * result is exact whatever the order of the additions, and the checker and
 * the host reference can demand equality.
 *
 *   __global__ void reduce_smem(const unsigned *in, unsigned *out, unsigned long long n)
 *   {
 *       extern __shared__ unsigned smem[];              // blockDim.x words
 *       unsigned tid = threadIdx.x;
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + tid;
 *       smem[tid] = (i < n) ? in[i] : 0u;               // site 0: global load (i < n only)
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
 *   __global__ void reduce_shfl(const unsigned *in, unsigned *out, unsigned long long n)
 *   {
 *       __shared__ unsigned smem[32];
 *       unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + tid;
 *       unsigned v = (i < n) ? in[i] : 0u;              // site 0: global load (i < n only)
 *       for (int off = 16; off > 0; off >>= 1)
 *           v += __shfl_down_sync(0xffffffffu, v, off); // registers only
 *       if (lane == 0)
 *           smem[warp] = v;                             // site 1: shared store, lane 0 of each warp
 *       __syncthreads();
 *       if (warp == 0) {
 *           v = (lane < blockDim.x / 32) ? smem[lane] : 0u;    // site 2: shared load
 *           for (int off = 16; off > 0; off >>= 1)
 *               v += __shfl_down_sync(0xffffffffu, v, off);
 *           if (lane == 0)
 *               out[blockIdx.x] = v;                    // site 3: global store
 *       }
 *   }
 *
 *   The warp sums (one word per 32 elements, out[i / 32]):
 *   __global__ void warp_reduce_smem(const unsigned *in, unsigned *out, unsigned long long n)
 *   {
 *       extern __shared__ unsigned smem[];              // blockDim.x words, 32 per warp
 *       unsigned tid = threadIdx.x, lane = tid % 32;
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + tid;
 *       smem[tid] = (i < n) ? in[i] : 0u;               // site 0: global load (i < n only)
 *                                                       // site 1: shared store
 *       __syncwarp();
 *       for (unsigned s = 16; s > 0; s >>= 1) {         // level L = 0..4
 *           if (lane < s)
 *               smem[tid] += smem[tid + s];             // sites 2+3L, 3+3L (loads), 4+3L (store)
 *           __syncwarp();
 *       }
 *       if (lane == 0 && i < n)
 *           out[i / 32] = smem[tid];                    // site 17: shared load, site 18: global store
 *   }
 *
 *   __global__ void warp_reduce_shfl(const unsigned *in, unsigned *out, unsigned long long n)
 *   {
 *       unsigned lane = threadIdx.x % 32;
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *       unsigned v = (i < n) ? in[i] : 0u;              // site 0: global load (i < n only)
 *       for (int off = 16; off > 0; off >>= 1)
 *           v += __shfl_down_sync(0xffffffffu, v, off); // registers only
 *       if (lane == 0 && i < n)
 *           out[i / 32] = v;                            // site 1: global store
 *   }
 *
 *   The permutations, one kernel each (OP = __shfl_sync with srcLane = arg,
 *   __shfl_up_sync / __shfl_down_sync with delta = arg, __shfl_xor_sync with
 *   laneMask = arg; width a power of two, 2..32):
 *   __global__ void shfl_OP(const unsigned *in, unsigned *out, unsigned long long n,
 *                           int arg, int width)
 *   {
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *       unsigned v = (i < n) ? in[i] : 0u;              // site 0: global load (i < n only)
 *       v = OP(0xffffffffu, v, arg, width);             // every lane takes part
 *       if (i < n)
 *           out[i] = v;                                 // site 1: global store
 *   }
 *   Lane l of out[] then holds lane cml_shfl_source(op, l, arg, width) of
 *   in[] (0 where that lane is past n): the GPU checker and the GPU test
 *   hold the hardware to exactly that table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/common.h"
#include "gpu/gpu_internal.h" /* messages of direct calls into the .cu file */
#include "experiments/shuffle.h"
#include "experiments/shuffle_kernels.h"

#define SITE_TREE0 2u
#define SITE_SMEM_FINAL 32u
#define SITE_SMEM_OUT 33u
#define SITE_WTREE_FINAL 17u
#define SITE_WTREE_OUT 18u

static const char *const op_names[] = {"reduce-smem", "reduce-shfl", "broadcast", "up", "down",
                                       "xor", "warp-reduce-smem", "warp-reduce-shfl", NULL};
static const char *const width_names[] = {"2", "4", "8", "16", "32", NULL};
static const unsigned width_values[] = {2, 4, 8, 16, 32};
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

static const cml_param_def shuffle_params[] = {
    {"op", "reduce-smem / reduce-shfl (block sum by a shared-memory tree or by shuffles), "
           "warp-reduce-smem / warp-reduce-shfl (the same per warp), or a shuffle: broadcast, "
           "up, down, xor", 0, 0,
     "reduce-smem,reduce-shfl,warp-reduce-smem,warp-reduce-shfl,broadcast,up,down,xor",
     op_names, 0},
    {"width", "shuffle width (lanes per group)", 0, 0, "8,32", width_names, 0},
    {"arg", "source lane (broadcast), delta (up, down) or lane mask (xor)", 0, 31, "1", NULL, 0},
    {"block", "threads per block", 0, 0, "256", block_names, 0},
    {"n", "32-bit words (0: in[] and out[] together 4x L2, so the data come from DRAM)", 0,
     (int64_t)1 << 34, "0", NULL, 0},
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
    case CML_SHFL_WREDUCE_SMEM: {
        if (i < a->n)
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
        cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4u * tid);
        unsigned level = 0;
        for (unsigned s = CML_WARP_SIZE / 2; s > 0; s >>= 1, level++) {
            if (lane < s) {
                const unsigned site = SITE_TREE0 + 3 * level;
                cml_emit(e, site, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4u * tid);
                cml_emit(e, site + 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4,
                         4u * (tid + s));
                cml_emit(e, site + 2, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4u * tid);
            }
        }
        if (lane == 0 && i < a->n) {
            cml_emit(e, SITE_WTREE_FINAL, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4,
                     4u * tid);
            cml_emit(e, SITE_WTREE_OUT, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                     out + 4 * (i / CML_WARP_SIZE));
        }
        break;
    }
    case CML_SHFL_WREDUCE_SHFL:
        if (i < a->n)
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
        if (lane == 0 && i < a->n)
            cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                     out + 4 * (i / CML_WARP_SIZE));
        break;
    default: /* the permutations: a shuffle moves registers, no memory */
        if (i < a->n) {
            cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
            cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * i);
        }
        break;
    }
}

/* Shared instructions, wavefronts and conflicts of a reduction, per unit
 * (a block, or a warp for the warp sums). */
typedef struct smem_cost {
    double instructions, wavefronts;
    uint64_t conflicts;
} smem_cost;

static smem_cost smem_cost_of(const cml_kernel_traffic *m, uint64_t units)
{
    const cml_traffic *ld = &m->cls[CML_CLASS_SHARED_LD], *st = &m->cls[CML_CLASS_SHARED_ST];
    smem_cost c;
    c.instructions = (double)(ld->instructions + st->instructions) / (double)units;
    c.wavefronts = (double)(ld->wavefronts + st->wavefronts) / (double)units;
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

/* The other way to compute the same sum: tree <-> shuffle. */
static cml_shfl_op partner_of(cml_shfl_op op)
{
    switch (op) {
    case CML_SHFL_REDUCE_SMEM: return CML_SHFL_REDUCE_SHFL;
    case CML_SHFL_REDUCE_SHFL: return CML_SHFL_REDUCE_SMEM;
    case CML_SHFL_WREDUCE_SMEM: return CML_SHFL_WREDUCE_SHFL;
    default: return CML_SHFL_WREDUCE_SMEM;
    }
}

/* Elements of the sweep: the parameter, or 4x L2 over in[] and out[]. */
static uint64_t shuffle_n(const cml_plan *plan, const cml_param_values *pv)
{
    uint64_t n = (uint64_t)cml_param_first(pv, "n");
    return n ? n : cml_plan_elements(plan, 4, 2);
}

static cml_status reduce_variant(cml_results *out, uint64_t n, cml_shfl_op op,
                                 int64_t block_choice, cml_record **out_rec)
{
    const unsigned block = block_sizes[block_choice];
    const uint64_t nblocks = cml_div_up(n, block);
    const int warp_sum = cml_shfl_is_warp_reduction(op);
    const uint64_t units = warp_sum ? cml_div_up(n, CML_WARP_SIZE) : nblocks;
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "op", op_names[op]);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "shuffle", variant);
    cml_record_add_param(rec, "op", op, op_names[op]);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    rec->bytes_read = 4 * n;
    rec->bytes_written = 4 * units; /* one partial sum per block or warp */

    /* Every block issues the same shared traffic; in[] shifts by 4*block
     * bytes (a multiple of 128); out[b] (block sums) is one lane's 4 bytes,
     * one sector wherever it falls; out[i/32] (warp sums) shifts by
     * 4*block/32 bytes per block but is still one lane's 4 bytes per warp.
     * The last block may be partial. */
    cml_shuffle_args args = {n, op};
    cml_status st = cml_exp_trace_1d(rec, nblocks, block, 0, 1, cml_shuffle_mirror, &args);
    if (st)
        return st;

    /* The other reduction, for the comparison in the sentence. */
    cml_record *other = calloc(1, sizeof *other); /* a record is a few KB */
    if (!other)
        return CML_ENOMEM;
    cml_shuffle_args oargs = {n, partner_of(op)};
    st = cml_exp_trace_1d(other, nblocks, block, 0, 1, cml_shuffle_mirror, &oargs);
    const smem_cost mine = smem_cost_of(&rec->model[CML_RULES_MODERN], units);
    const smem_cost theirs = smem_cost_of(&other->model[CML_RULES_MODERN], units);
    free(other);
    if (st) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model (the other reduction): %s", cml_status_str(st));
        return st;
    }
    const char *unit = warp_sum ? "warp" : "block";
    if (warp_sum) {
        cml_record_add_extra(rec, "smem_instr_per_warp", mine.instructions, "");
        cml_record_add_extra(rec, "smem_wavefronts_per_warp", mine.wavefronts, "");
    } else {
        const unsigned syncs = op == CML_SHFL_REDUCE_SMEM ? 1 + log2u(block) : 1;
        cml_record_add_extra(rec, "smem_instr_per_block", mine.instructions, "");
        cml_record_add_extra(rec, "smem_wavefronts_per_block", mine.wavefronts, "");
        cml_record_add_extra(rec, "syncthreads_per_block", syncs, "");
    }
    if (op == CML_SHFL_REDUCE_SMEM)
        cml_record_finding(rec,
                           "Tree in shared memory: %.1f shared instructions per block of %u "
                           "(%.1f wavefronts, %llu bank conflicts in all) and %u __syncthreads; "
                           "the shuffle reduction needs %.1f (%.1f wavefronts) and 1, since "
                           "__shfl_down_sync exchanges registers and moves no memory.",
                           mine.instructions, block, mine.wavefronts,
                           (unsigned long long)mine.conflicts, 1 + log2u(block),
                           theirs.instructions, theirs.wavefronts);
    else if (op == CML_SHFL_REDUCE_SHFL)
        cml_record_finding(rec,
                           "Shuffle reduction: each warp sums in registers (__shfl_down_sync "
                           "moves no memory), so shared memory only carries one partial per "
                           "warp: %.1f shared instructions per block of %u (%.1f wavefronts, "
                           "%llu conflicts) against %.1f (%.1f wavefronts) for the tree.",
                           mine.instructions, block, mine.wavefronts,
                           (unsigned long long)mine.conflicts, theirs.instructions,
                           theirs.wavefronts);
    else if (op == CML_SHFL_WREDUCE_SMEM)
        cml_record_finding(rec,
                           "Warp sum by a tree in shared memory: %.1f shared instructions per "
                           "%s (%.1f wavefronts, %llu conflicts) and 6 __syncwarp; five "
                           "__shfl_down_sync do the same in registers with %.1f.",
                           mine.instructions, unit, mine.wavefronts,
                           (unsigned long long)mine.conflicts, theirs.instructions);
    else
        cml_record_finding(rec,
                           "Warp sum by five __shfl_down_sync: %.1f shared instructions per %s "
                           "(the tree in shared memory needs %.1f, %.1f wavefronts); the only "
                           "memory traffic is in[] and one word per warp.",
                           mine.instructions, unit, theirs.instructions, theirs.wavefronts);
    *out_rec = rec;
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
                               unsigned arg, int64_t block_choice, cml_record **out_rec)
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
    *out_rec = rec;
    return CML_OK;
}

/* ---- GPU run ----------------------------------------------------------- */

enum { SEED_IN = 0x5AF1 };

/* Device buffers kept across the variants of one sweep (same n): in[] of
 * random words, out[] of n words (the most any op writes). */
typedef struct shuffle_gpu {
    cml_dbuf in, out;
    uint64_t n;
} shuffle_gpu;

static void shuffle_gpu_free(const cml_plan *plan, shuffle_gpu *g)
{
    cml_gpu_free(plan->gpu, &g->in);
    cml_gpu_free(plan->gpu, &g->out);
    g->n = 0;
}

static cml_status shuffle_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_shuffle_check(ctx, SEED_IN, d_counters);
}

/* Mark rec failed. A direct call into the .cu file (not through the
 * harness) leaves its message in the thread's last error: keep it on the
 * device handle first, so the note names the failing CUDA call. */
static cml_status gpu_fail(const cml_plan *plan, cml_record *rec, cml_status st)
{
    if (cml_gpu_last_error()[0])
        cml_gpu_keep_error(plan->gpu);
    rec->state = CML_REC_FAILED;
    cml_record_note(rec, "%s: %s", cml_status_str(st), cml_gpu_error(plan->gpu));
    return st;
}

/* Measure one variant: poison out[], time the kernel, check every word of
 * out[] (outputs exact, the rest still poison). */
static cml_status shuffle_measure(const cml_plan *plan, shuffle_gpu *g, cml_record *rec,
                                  cml_shfl_op op, unsigned block, unsigned width, unsigned arg)
{
    const uint64_t n = (uint64_t)cml_record_find_param(rec, "n")->value;
    cml_status st;
    if (g->n != n) {
        shuffle_gpu_free(plan, g);
        st = cml_exp_alloc(plan, rec, &g->in, n * 4);
        if (!st)
            st = cml_exp_alloc(plan, rec, &g->out, n * 4);
        if (st)
            return st;
        cml_gpu_clear_last_error();
        st = cml_shuffle_fill_u32(g->in.ptr, n, SEED_IN);
        if (st)
            return gpu_fail(plan, rec, st);
        g->n = n;
    }
    cml_shuffle_launch_args a;
    memset(&a, 0, sizeof a);
    a.in = g->in.ptr;
    a.out = g->out.ptr;
    a.n = n;
    a.cap = n;
    a.block = block;
    a.op = (int)op;
    a.arg = (int)arg;
    a.width = (int)width;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++)
        a.src[l] = (unsigned char)(cml_shfl_is_reduction(op) ? l
                                                              : cml_shfl_source(op, l, arg, width));
    st = cml_gpu_poison(plan->gpu, &g->out);
    if (st)
        return gpu_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_shuffle_launch, &a, cml_shuffle_kernel(a.op), block,
                      cml_shuffle_smem(a.op, block));
    if (st)
        return st;
    cml_record_add_extra(rec, "ns_per_element", rec->timing.median_ms * 1e6 / (double)n, "ns");
    return cml_exp_verify(plan, rec, shuffle_check_cb, &a);
}

/* " Measured 0.012 ns per word, 2950.3 GB/s (93% of peak)". */
static void measured_text(const cml_record *rec, char *buf, size_t len)
{
    const uint64_t n = (uint64_t)cml_record_find_param(rec, "n")->value;
    char peak[32] = "";
    if (rec->peak_fraction >= 0)
        snprintf(peak, sizeof peak, " (%.0f%% of peak)", 100.0 * rec->peak_fraction);
    snprintf(buf, len, "Measured %.4f ns per word, %.1f GB/s%s", rec->timing.median_ms * 1e6 / (double)n,
             rec->bandwidth_gbs, peak);
}

static double extra_value(const cml_record *rec, const char *name)
{
    for (unsigned i = 0; i < rec->nextra; i++)
        if (strcmp(rec->extra[i].name, name) == 0)
            return rec->extra[i].value;
    return 0.0;
}

static const cml_record *find_partner(const cml_results *out, const cml_record *rec)
{
    const cml_shfl_op op = (cml_shfl_op)cml_record_find_param(rec, "op")->value;
    const int64_t block = cml_record_find_param(rec, "block")->value;
    const int64_t n = cml_record_find_param(rec, "n")->value;
    for (size_t i = 0; i < out->count; i++) {
        const cml_record *o = &out->items[i];
        const cml_record_param *oop = cml_record_find_param(o, "op");
        if (o != rec && o->measured && o->state == CML_REC_OK && oop &&
            oop->value == (int64_t)partner_of(op) &&
            cml_record_find_param(o, "block")->value == block &&
            cml_record_find_param(o, "n")->value == n)
            return o;
    }
    return NULL;
}

/* The sentence of a measured variant: the model's point in short, the
 * measurement, and for a reduction the time of the other method. Runs after
 * the sweep so that both methods of a pair are measured. */
static void measured_findings(cml_results *out, size_t first)
{
    for (size_t i = first; i < out->count; i++) {
        cml_record *rec = &out->items[i];
        if (!rec->measured || rec->state != CML_REC_OK)
            continue;
        const cml_shfl_op op = (cml_shfl_op)cml_record_find_param(rec, "op")->value;
        const unsigned block = block_sizes[cml_record_find_param(rec, "block")->value];
        char m[96];
        measured_text(rec, m, sizeof m);
        if (!cml_shfl_is_reduction(op)) {
            char srcs[64];
            unsigned own = 0;
            const unsigned width = width_values[cml_record_find_param(rec, "width")->value];
            const unsigned arg = (unsigned)cml_record_find_param(rec, "arg")->value;
            sources_text(srcs, sizeof srcs, op, arg, width, &own);
            cml_record_finding(rec,
                               "%s width %u arg %u: lanes 0-7 got lanes %s (all 32 lanes as PTX "
                               "shfl.sync defines, checked). %s: a shuffle moves registers, so "
                               "the kernel costs what its in[] and out[] streams cost.",
                               op_names[op], width, arg, srcs, m);
            continue;
        }
        const int warp_sum = cml_shfl_is_warp_reduction(op);
        const int tree = op == CML_SHFL_REDUCE_SMEM || op == CML_SHFL_WREDUCE_SMEM;
        const double instr =
            extra_value(rec, warp_sum ? "smem_instr_per_warp" : "smem_instr_per_block");
        char cmp[128] = "";
        const cml_record *p = find_partner(out, rec);
        if (p && p->timing.median_ms > 0)
            snprintf(cmp, sizeof cmp, "; the %s takes %.2fx this time",
                     tree ? "shuffle version" : "shared-memory tree",
                     p->timing.median_ms / rec->timing.median_ms);
        cml_record_finding(rec,
                           "%s sum by %s (block %u): %.1f shared instructions per %s, sums "
                           "exact modulo 2^32. %s%s.",
                           warp_sum ? "Warp" : "Block",
                           tree ? "a shared-memory tree" : "__shfl_down_sync", block, instr,
                           warp_sum ? "warp" : "block", m, cmp);
    }
}

static cml_status shuffle_sweep(const cml_plan *plan, const cml_param_values *pv,
                                cml_results *out)
{
    const cml_param_list *ops = cml_param_get(pv, "op");
    const cml_param_list *widths = cml_param_get(pv, "width");
    const cml_param_list *args = cml_param_get(pv, "arg");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const uint64_t n = shuffle_n(plan, pv);
    const size_t first = out->count;
    shuffle_gpu g = {0};
    cml_status st = CML_OK;

    for (size_t bi = 0; bi < blocks->count && !st; bi++)
        for (size_t oi = 0; oi < ops->count && !st; oi++) {
            const cml_shfl_op op = (cml_shfl_op)ops->v[oi];
            const unsigned block = block_sizes[blocks->v[bi]];
            cml_record *rec = NULL;
            if (cml_shfl_is_reduction(op)) {
                st = reduce_variant(out, n, op, blocks->v[bi], &rec);
                if (!st && plan->gpu)
                    st = shuffle_measure(plan, &g, rec, op, block, 32, 0);
                if (st == CML_EVERIFY)
                    st = CML_OK; /* recorded as a failed variant; go on */
                continue;
            }
            for (size_t wi = 0; wi < widths->count && !st; wi++)
                for (size_t ai = 0; ai < args->count && !st; ai++) {
                    st = perm_variant(out, n, op, widths->v[wi], (unsigned)args->v[ai],
                                      blocks->v[bi], &rec);
                    if (!st && plan->gpu)
                        st = shuffle_measure(plan, &g, rec, op, block,
                                             width_values[widths->v[wi]], (unsigned)args->v[ai]);
                    if (st == CML_EVERIFY)
                        st = CML_OK;
                }
        }
    if (plan->gpu) {
        shuffle_gpu_free(plan, &g);
        if (!st)
            measured_findings(out, first);
    }
    return st;
}

const cml_experiment cml_exp_shuffle = {
    "shuffle", 11, "Warp shuffle",
    "block and warp sums of unsigned words by a shared-memory tree vs by __shfl_down_sync, and "
    "the broadcast, up, down and xor shuffles (width < 32 too), checked lane by lane",
    shuffle_params, sizeof shuffle_params / sizeof shuffle_params[0],
    shuffle_sweep, shuffle_sweep, "op=reduce-smem,reduce-shfl,warp-reduce-smem,warp-reduce-shfl,"
    "xor,up width=8,32",
};
