/*
 * Experiment 9: local memory.
 *
 * CONTRACT: the kernels the mirror below stands for (local.cu, a later
 * issue, must be exactly this). KMAX = CML_LOCAL_KMAX = 256; K and s are
 * run-time arguments (1 <= K <= KMAX, 0 <= s < K), so every index into arr
 * is unknown to the compiler and arr must live in local memory.
 *
 *   __global__ void local_same_index(const float *in, float *out,
 *                                    unsigned long long n, int K, int s)
 *   {
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *       if (i >= n) return;
 *       float arr[KMAX];
 *       float v = in[i];                               // site 0: global load
 *       for (int j = 0; j < K; j++)                    // (not unrolled: K is run-time)
 *           arr[(j + s) % K] = v + (float)j;           // site 1: local store, same index in all lanes
 *       out[i] = arr[s];                               // site 2: local load, same index
 *   }                                                  // site 3: global store
 *
 *   local_lane_varying: the same, but the last line reads
 *       out[i] = arr[(threadIdx.x % 32 + s) % K];      // site 2: lane-dependent index
 *
 *   local_struct: the same as local_lane_varying with the array inside a
 *   per-thread struct, struct big { float f[KMAX]; } b; (stores b.f[(j+s)%K],
 *   then out[i] = b.f[(threadIdx.x % 32 + s) % K]).
 *
 *   local_spill: the body of local_same_index with the array indexed only by
 *   compile-time constants (K fixed, loop fully unrolled, so it could live in
 *   registers), built under __launch_bounds__ / -maxrregcount low enough that
 *   ptxas spills. The compiler decides what spills; the model cannot see it
 *   and uses the same-index mirror, because a spill slot is one per-thread
 *   scalar written and read by every lane at the same frame offset. The GPU
 *   run reports ptxas's own figures (registers, stack frame, spill bytes).
 *
 * Block sizes are multiples of 32, so threadIdx.x % 32 is the lane. arr sits
 * at byte 0 of the thread's local frame; the model maps frame offsets to
 * physical addresses itself (consecutive 4-byte words of one thread are 128
 * bytes apart, the 32 lanes interleaved), so the mirror emits frame offsets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/local.h"

static const char *const pattern_names[] = {"same-index", "lane-varying", "struct", "spill",
                                            NULL};
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

static const cml_param_def local_params[] = {
    {"pattern",
     "same-index (all lanes arr[s]), lane-varying (lane l: arr[(l+s)%K]), struct (the same "
     "through a struct's fields), spill (register spills; modelled as same-index)",
     0, 0, "same-index,lane-varying,struct,spill", pattern_names, 0},
    {"K", "per-thread array length (floats) / struct fields used", 8, CML_LOCAL_KMAX, "32", NULL, 0},
    {"index", "run-time index s (used modulo K)", 0, CML_LOCAL_KMAX - 1, "1", NULL, 0},
    {"block", "threads per block", 0, 0, "256", block_names, 0},
    {"n", "threads, one element of in[] and out[] each", 32, (int64_t)1 << 30, "2^20", NULL, 0},
};

/* A thread's emissions through the window of cml_local_args. */
typedef struct window {
    cml_emitter *e;
    unsigned next, lo, hi;
} window;

static void put(window *w, unsigned site, cml_space space, cml_op op, uint64_t addr)
{
    if (w->next >= w->lo && w->next < w->hi)
        cml_emit(w->e, site, space, op, CML_CACHE_CA, 4, addr);
    w->next++;
}

void cml_local_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_local_args *a = vargs;
    const uint64_t in = cml_array_base(0), out = cml_array_base(1);
    const uint64_t i = cml_gtid(t);
    if (i >= a->n)
        return;
    window w = {e, 0, a->emit_lo, a->emit_hi};
    put(&w, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, in + 4 * i);
    for (unsigned j = 0; j < a->K; j++)
        put(&w, 1, CML_SPACE_LOCAL, CML_OP_STORE, 4u * ((j + a->s) % a->K));
    unsigned idx = a->s;
    if (a->pattern == CML_LOCAL_LANE_VARYING || a->pattern == CML_LOCAL_STRUCT)
        idx = (t->tid.x % CML_WARP_SIZE + a->s) % a->K;
    put(&w, 2, CML_SPACE_LOCAL, CML_OP_LOAD, 4u * idx);
    put(&w, 3, CML_SPACE_GLOBAL, CML_OP_STORE, out + 4 * i);
}

/*
 * Trace the kernel in windows of emissions (see cml_local_args) and add the
 * windows' totals into rec. Exact: every thread with work makes the same
 * sequence of K + 3 accesses, so window k of each lane holds the same
 * instructions, and the model has no state across instructions.
 */
static cml_status local_trace(cml_record *rec, uint64_t nblocks, unsigned block,
                              cml_local_args *a)
{
    const unsigned total = a->K + 3u, step = CML_MAX_EMITS - 6u;
    cml_kernel_traffic sum[CML_RULES_COUNT];
    memset(sum, 0, sizeof sum);
    cml_record *scratch = malloc(sizeof *scratch); /* a record is a few KB */
    if (!scratch)
        return CML_ENOMEM;
    for (unsigned lo = 0; lo < total; lo += step) {
        a->emit_lo = lo;
        a->emit_hi = lo + step;
        memset(scratch, 0, sizeof *scratch);
        /* Blocks differ only by a shift of 4*block bytes (a multiple of 128)
         * in in[] and out[]; the last block may be partial. */
        cml_status st = cml_exp_trace_1d(scratch, nblocks, block, 0, 1, cml_local_mirror, a);
        if (st) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "%s", scratch->note);
            free(scratch);
            return st;
        }
        for (int r = 0; r < CML_RULES_COUNT; r++)
            for (int c = 0; c < CML_CLASS_COUNT; c++)
                cml_traffic_add(&sum[r].cls[c], &scratch->model[r].cls[c]);
    }
    free(scratch);
    memcpy(rec->model, sum, sizeof sum);
    rec->has_model = 1;
    rec->grid = nblocks;
    rec->block = block;
    return CML_OK;
}

static double per_instr(uint64_t v, uint64_t instructions)
{
    return instructions ? (double)v / (double)instructions : 0.0;
}

static void local_finding(cml_record *rec, const cml_local_args *a)
{
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_LOCAL_LD];
    const cml_traffic *st = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_LOCAL_ST];
    const double ld_spr = per_instr(ld->sectors, ld->requests);
    const double st_spr = per_instr(st->sectors, st->requests);
    const double ld_eff = 100.0 * cml_traffic_efficiency(ld);
    /* A warp's 32 four-byte values cannot come in fewer sectors than this. */
    const unsigned best = CML_WARP_SIZE * 4u / CML_SECTOR_BYTES;
    const unsigned distinct = a->K < CML_WARP_SIZE ? a->K : CML_WARP_SIZE;
    switch (a->pattern) {
    case CML_LOCAL_SAME_INDEX:
        cml_record_finding(rec,
                           "All lanes load arr[%u]: local memory interleaves the threads' 4-byte "
                           "words, so the warp's 32 values are 128 contiguous bytes: %.2f sectors "
                           "per local load request (%.1f%% used, %u at best); the %u stores, also "
                           "one index per warp, %.2f sectors per request.",
                           a->s, ld_spr, ld_eff, best, a->K, st_spr);
        break;
    case CML_LOCAL_LANE_VARYING:
    case CML_LOCAL_STRUCT: {
        const int is_struct = a->pattern == CML_LOCAL_STRUCT;
        cml_record_finding(rec,
                           "%s: lane l loads %s[(l+%u)%%%u], %u different frame offsets per warp, "
                           "each in its own 128-byte row of the interleave: %.2f sectors per "
                           "local load request (%.1f%% used) against %u for one index; the "
                           "stores keep %.2f.",
                           is_struct ? "Struct fields sit in the frame like array elements"
                                     : "Lane-varying index",
                           is_struct ? "b.f" : "arr", a->s, a->K, distinct, ld_spr, ld_eff, best,
                           st_spr);
        break;
    }
    case CML_LOCAL_SPILL:
        cml_record_finding(rec,
                           "Spills: ptxas decides what spills (the GPU run reports its spill "
                           "bytes); a spill slot is a per-thread scalar at one frame offset for "
                           "all lanes, so the model counts it as same-index: %.2f sectors per "
                           "local load request, %.2f per store (%.1f%% used).",
                           ld_spr, st_spr, ld_eff);
        break;
    }
}

static cml_status local_model(const cml_plan *plan, const cml_param_values *pv, cml_results *out)
{
    (void)plan;
    const cml_param_list *patterns = cml_param_get(pv, "pattern");
    const cml_param_list *ks = cml_param_get(pv, "K");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const uint64_t n = (uint64_t)cml_param_first(pv, "n");
    const unsigned s_param = (unsigned)cml_param_first(pv, "index");

    for (size_t bi = 0; bi < blocks->count; bi++)
        for (size_t ki = 0; ki < ks->count; ki++)
            for (size_t pi = 0; pi < patterns->count; pi++) {
                const int64_t pattern = patterns->v[pi];
                const unsigned K = (unsigned)ks->v[ki];
                const unsigned block = block_sizes[blocks->v[bi]];
                cml_local_args args = {n, K, s_param % K, (cml_local_pattern)pattern, 0, 0};

                char variant[96] = "";
                cml_variant_add_label(variant, sizeof variant, "pattern", pattern_names[pattern]);
                cml_variant_add(variant, sizeof variant, "K", K);
                cml_variant_add(variant, sizeof variant, "block", block);
                cml_record *rec;
                CML_EXP_ADD(rec, out, "local", variant);
                cml_record_add_param(rec, "pattern", pattern, pattern_names[pattern]);
                cml_record_add_param(rec, "K", K, NULL);
                cml_record_add_param(rec, "index", args.s, NULL);
                cml_record_add_param(rec, "block", blocks->v[bi], block_names[blocks->v[bi]]);
                cml_record_add_param(rec, "n", (int64_t)n, NULL);
                /* The algorithm's bytes: in[] read once, out[] written once;
                 * local traffic is the cost under study, not work. */
                rec->bytes_read = 4 * n;
                rec->bytes_written = 4 * n;

                cml_status st = local_trace(rec, cml_div_up(n, block), block, &args);
                if (st)
                    return st;
                const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
                const double local_bytes =
                    (double)CML_SECTOR_BYTES *
                    (double)(m->cls[CML_CLASS_LOCAL_LD].sectors + m->cls[CML_CLASS_LOCAL_ST].sectors);
                cml_record_add_extra(rec, "local_bytes", local_bytes, "B");
                cml_record_add_extra(rec, "local_per_algo_byte",
                                     local_bytes / (double)(rec->bytes_read + rec->bytes_written),
                                     "x");
                local_finding(rec, &args);
            }
    return CML_OK;
}

const cml_experiment cml_exp_local = {
    "local", 9, "Local memory",
    "per-thread float arrays indexed at run time: same index in all lanes (coalesced) vs "
    "lane-varying indices, large structs and register spills",
    local_params, sizeof local_params / sizeof local_params[0],
    local_model, NULL, "pattern=same-index,lane-varying K=32",
};
