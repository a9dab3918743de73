/*
 * Experiment 11: warp shuffle (the textbook's simpleShfl and
 * reduceIntegerShfl).
 *
 * The kernels, whose bodies (shuffle_body.h) nvcc and the mirror
 * below both compile. Blocks are 1-D, a power of two from 32 to 1024
 * threads, so every warp is full and threadIdx.x % 32 is the lane. The data are unsigned
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
 *               smem[tid] += smem[tid + s];             // site 3+3L: load smem[tid+s]
 *                                                       // (first: C++17), site 2+3L:
 *                                                       // load smem[tid], site 4+3L:
 *                                                       // store smem[tid]
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

#include "experiments/shuffle/shuffle_body.h"
#include "gpu/gpu_internal.h" /* cml_gpu_clear_last_error: direct calls into the .cu file */
#include "lab/common.h"

static const char *const op_names[] = {"reduce-smem", "reduce-shfl", "broadcast", "up", "down",
                                       "xor", "warp-reduce-smem", "warp-reduce-shfl", NULL};
static const char *const width_names[] = {"2", "4", "8", "16", "32", NULL};
static const unsigned width_values[] = {2, 4, 8, 16, 32};
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

/* One point of the sweep; the options' fields. */
typedef struct shuffle_settings {
    int64_t arg, width, op, block, n;
} shuffle_settings;

/* Declared innermost first (the engine's first option varies fastest): the
 * records come block by block, op by op, then width and arg, as they always
 * have. width and arg only mean something to the permutations. */
#define PERMUTATIONS "op=broadcast,up,down,xor"
static const cml_param_def shuffle_params[] = {
    {"arg", "source lane (broadcast), delta (up, down) or lane mask (xor)", 0, 31, "1", NULL, 0,
     CML_FIELD(shuffle_settings, arg), PERMUTATIONS},
    {"width", "shuffle width (lanes per group)", 0, 0, "8,32", width_names, 0,
     CML_FIELD(shuffle_settings, width), PERMUTATIONS},
    {"op", "reduce-smem / reduce-shfl (block sum by a shared-memory tree or by shuffles), "
           "warp-reduce-smem / warp-reduce-shfl (the same per warp), or a shuffle: broadcast, "
           "up, down, xor", 0, 0,
     "reduce-smem,reduce-shfl,warp-reduce-smem,warp-reduce-shfl,broadcast,up,down,xor",
     op_names, 0, CML_FIELD(shuffle_settings, op), NULL},
    {"block", "threads per block", 0, 0, "256", block_names, 0,
     CML_FIELD(shuffle_settings, block), NULL},
    {"n", "32-bit words (0: in[] and out[] together 4x L2, so the data come from DRAM)", 0,
     (int64_t)1 << 34, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(shuffle_settings, n), NULL},
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

/* The kernels' own bodies (shuffle_body.h) on the model's arrays. */
void cml_shuffle_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_shuffle_args *a = vargs;
    const cml_ctx c = CML_MIRROR_CTX(t, e);
    const unsigned *in = CML_ARRAY(const unsigned, 0);
    unsigned *out = CML_ARRAY(unsigned, 1);
    switch (a->op) {
    case CML_SHFL_REDUCE_SMEM: cml_reduce_smem_body(c, in, out, a->n); break;
    case CML_SHFL_REDUCE_SHFL: cml_reduce_shfl_body(c, in, out, a->n); break;
    case CML_SHFL_WREDUCE_SMEM: cml_warp_reduce_smem_body(c, in, out, a->n); break;
    case CML_SHFL_WREDUCE_SHFL: cml_warp_reduce_shfl_body(c, in, out, a->n); break;
    /* the permutations: the lane and width move registers, no memory */
    case CML_SHFL_BROADCAST: cml_shfl_bcast_body(c, in, out, a->n, 0, 32); break;
    case CML_SHFL_UP: cml_shfl_up_body(c, in, out, a->n, 0, 32); break;
    case CML_SHFL_DOWN: cml_shfl_down_body(c, in, out, a->n, 0, 32); break;
    default: cml_shfl_xor_body(c, in, out, a->n, 0, 32); break;
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


/* The variant name the records have always had: op first, the width and
 * arg of a permutation, then the block. */
static void shuffle_variant_name(cml_record *rec, const shuffle_settings *s)
{
    char v[sizeof rec->variant] = "";
    cml_variant_add_label(v, sizeof v, "op", op_names[s->op]);
    if (!cml_shfl_is_reduction((cml_shfl_op)s->op)) {
        cml_variant_add(v, sizeof v, "width", width_values[s->width]);
        cml_variant_add(v, sizeof v, "arg", s->arg);
    }
    cml_variant_add(v, sizeof v, "block", block_sizes[s->block]);
    snprintf(rec->variant, sizeof rec->variant, "%s", v);
}

static cml_status reduce_variant(cml_record *rec, uint64_t n, cml_shfl_op op,
                                 int64_t block_choice)
{
    const unsigned block = block_sizes[block_choice];
    const uint64_t nblocks = cml_div_up(n, block);
    const int warp_sum = cml_shfl_is_warp_reduction(op);
    const uint64_t units = warp_sum ? cml_div_up(n, CML_WARP_SIZE) : nblocks;
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

static cml_status perm_variant(cml_record *rec, uint64_t n, cml_shfl_op op, unsigned width,
                               unsigned arg, unsigned block)
{
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

/* One point: n resolved (0: in[] and out[] together 4x L2), the record and
 * the model's prediction. */
static cml_status shuffle_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    shuffle_settings *s = vs;
    if (s->n == 0)
        s->n = (int64_t)cml_plan_elements(ctx->plan, 4, 2);
    shuffle_variant_name(rec, s);
    const cml_shfl_op op = (cml_shfl_op)s->op;
    if (cml_shfl_is_reduction(op))
        return reduce_variant(rec, (uint64_t)s->n, op, s->block);
    return perm_variant(rec, (uint64_t)s->n, op, width_values[s->width], (unsigned)s->arg,
                        block_sizes[s->block]);
}

/* ---- GPU run ----------------------------------------------------------- */

enum { SEED_IN = 0x5AF1 };

/* The run's state: the engine keeps in[] (slot 0) and out[] (slot 1, n
 * words: the most any op writes) across the points; in[] holds random
 * words once filled for this n. */
typedef struct shuffle_state {
    uint64_t filled_n;
} shuffle_state;

static cml_status shuffle_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_shuffle_check(ctx, SEED_IN, d_counters);
}

/* Measure one variant: poison out[], time the kernel, check every word of
 * out[] (outputs exact, the rest still poison). */
static cml_status shuffle_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const shuffle_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    shuffle_state *g = ctx->state;
    const uint64_t n = (uint64_t)s->n;
    const cml_shfl_op op = (cml_shfl_op)s->op;
    const int reduction = cml_shfl_is_reduction(op);
    const unsigned block = block_sizes[s->block];
    const unsigned width = reduction ? 32u : width_values[s->width];
    const unsigned arg = reduction ? 0u : (unsigned)s->arg;
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, n * 4, 0);
    cml_dbuf *out = in ? cml_sweep_buffer(ctx, rec, 1, n * 4, 0) : NULL;
    if (!out)
        return CML_ECUDA;
    cml_status st;
    if (g->filled_n != n) {
        /* A direct call into the CUDA side: its message is the thread's last
         * error, which cml_exp_fail reads. */
        cml_gpu_clear_last_error();
        st = cml_shuffle_fill_u32(in->ptr, n, SEED_IN);
        if (st)
            return cml_exp_fail(plan, rec, st);
        g->filled_n = n;
    }
    cml_shuffle_launch_args a;
    memset(&a, 0, sizeof a);
    a.in = in->ptr;
    a.out = out->ptr;
    a.n = n;
    a.cap = n;
    a.block = block;
    a.op = (int)op;
    a.arg = (int)arg;
    a.width = (int)width;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++)
        a.src[l] = (unsigned char)(reduction ? l : cml_shfl_source(op, l, arg, width));
    st = cml_gpu_poison(plan->gpu, out);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_shuffle_launch, &a, cml_shuffle_kernel(a.op), block,
                      cml_shuffle_smem(a.op, block));
    if (st)
        return st;
    cml_record_add_extra(rec, "ns_per_element", rec->timing.median_ms * 1e6 / (double)n, "ns");
    return cml_exp_verify(plan, rec, shuffle_check_cb, &a);
}

/* " Measured 0.012 ns per word, 2950.3 GB/s (93% of peak)". */
static void measured_text(const cml_record *rec, uint64_t n, char *buf, size_t len)
{
    char peak[32] = "";
    if (rec->peak_fraction >= 0)
        snprintf(peak, sizeof peak, " (%.0f%% of peak)", 100.0 * rec->peak_fraction);
    snprintf(buf, len, "Measured %.4f ns per word, %.1f GB/s%s", rec->timing.median_ms * 1e6 / (double)n,
             rec->bandwidth_gbs, peak);
}

/* The first measured record of this run that computes record i's sum the
 * other way (same block and n); NULL if none yet. */
static const cml_record *find_partner(const cml_sweep *ctx, size_t i)
{
    const shuffle_settings *s = cml_sweep_settings_of(ctx, i);
    for (size_t j = ctx->first; j < ctx->out->count; j++) {
        const cml_record *o = &ctx->out->items[j];
        const shuffle_settings *os = cml_sweep_settings_of(ctx, j);
        if (j != i && os && o->measured && o->state == CML_REC_OK &&
            os->op == (int64_t)partner_of((cml_shfl_op)s->op) && os->block == s->block &&
            os->n == s->n)
            return o;
    }
    return NULL;
}

/* The sentence of measured record i: the model's point in short, the
 * measurement, and for a reduction the time of the other method. */
static void measured_finding(cml_sweep *ctx, size_t i)
{
    cml_record *rec = &ctx->out->items[i];
    const shuffle_settings *s = cml_sweep_settings_of(ctx, i);
    if (!s || !rec->measured || rec->state != CML_REC_OK)
        return;
    const cml_shfl_op op = (cml_shfl_op)s->op;
    const unsigned block = block_sizes[s->block];
    char m[96];
    measured_text(rec, (uint64_t)s->n, m, sizeof m);
    if (!cml_shfl_is_reduction(op)) {
        char srcs[64];
        unsigned own = 0;
        const unsigned width = width_values[s->width];
        const unsigned arg = (unsigned)s->arg;
        sources_text(srcs, sizeof srcs, op, arg, width, &own);
        cml_record_finding(rec,
                           "%s width %u arg %u: lanes 0-7 got lanes %s (all 32 lanes as PTX "
                           "shfl.sync defines, checked). %s: a shuffle moves registers, so "
                           "the kernel costs what its in[] and out[] streams cost.",
                           op_names[op], width, arg, srcs, m);
        return;
    }
    const int warp_sum = cml_shfl_is_warp_reduction(op);
    const int tree = op == CML_SHFL_REDUCE_SMEM || op == CML_SHFL_WREDUCE_SMEM;
    const double instr =
        cml_record_extra(rec, warp_sum ? "smem_instr_per_warp" : "smem_instr_per_block", 0.0);
    char cmp[128] = "";
    const cml_record *p = find_partner(ctx, i);
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

/*
 * The measured sentences. A reduction's sentence names the time of the
 * other method, which the sweep may measure later (the ops are swept
 * block by block, tree before shuffle): a record measured now rewrites the
 * sentence of an earlier partner as well, so when the run ends every
 * sentence has seen both methods of its pair.
 */
static void shuffle_summary(cml_sweep *ctx, size_t first, size_t last)
{
    if (!ctx->plan->gpu)
        return;
    for (size_t i = first; i <= last; i++) {
        measured_finding(ctx, i);
        const shuffle_settings *s = cml_sweep_settings_of(ctx, i);
        if (!s || !cml_shfl_is_reduction((cml_shfl_op)s->op))
            continue;
        for (size_t j = ctx->first; j < first; j++) {
            const shuffle_settings *o = cml_sweep_settings_of(ctx, j);
            if (o && o->op == (int64_t)partner_of((cml_shfl_op)s->op) && o->block == s->block &&
                o->n == s->n)
                measured_finding(ctx, j);
        }
    }
}

static const cml_chart_spec shuffle_charts[] = {
    {.shape = CML_PLOT_BARS,
     .title = "Measured bandwidth by shuffle operation",
     .ylabel = "bandwidth (GB/s)",
     .yfmt = CML_FMT_NUMBER,
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}},
     .what = "bandwidth",
     .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_BARS,
     .title = "Predicted shared-memory wavefronts per block",
     .ylabel = "wavefronts per block",
     .yfmt = CML_FMT_NUMBER,
     .m = {{"shared wavefronts", CML_METRIC_EXTRA, "smem_wavefronts_per_block", NULL, -1}},
     .what = "shared-memory wavefronts per block",
     .unit = "",
     .describe = 1},
};

const cml_experiment cml_exp_shuffle = {
    .key = "shuffle",
    .number = 11,
    .title = "Warp shuffle",
    .summary = "block and warp sums of unsigned words by a shared-memory tree vs by "
               "__shfl_down_sync, and the broadcast, up, down and xor shuffles (width < 32 too), "
               "checked lane by lane",
    .doc = "docs/experiments/shuffle.md",
    .options = shuffle_params,
    .noptions = CML_COUNT(shuffle_params),
    .settings_size = sizeof(shuffle_settings),
    .state_size = sizeof(shuffle_state),
    .tour = "op=reduce-smem,reduce-shfl,warp-reduce-smem,warp-reduce-shfl,xor,up width=8,32",
    .variant = shuffle_variant,
    .measure = shuffle_measure,
    .summarize = shuffle_summary,
    .charts = shuffle_charts,
    .ncharts = CML_COUNT(shuffle_charts),
    .validate = NULL, /* no counters row: validate lists it as skipped */
};
