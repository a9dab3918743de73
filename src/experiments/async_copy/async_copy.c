/*
 * Experiment 21: staging global memory into shared memory asynchronously
 * (Ampere's cp.async, Hopper's Tensor Memory Accelerator) against the
 * classic way through registers, on a streaming reduction and a tiled
 * transpose. docs/experiments/async-copy.md explains what to look for.
 *
 * The kernels and the model's mirror are one source, async_copy_body.h,
 * which says what each thread issues: persistent blocks of 256 threads,
 * block b handling tiles b, b+G, b+2G, ... of 4 KiB each (G blocks: SMs x
 * blocks resident per SM, at most the tiles). Every tile's traffic is every
 * other tile's (tiles are 4096 bytes apart, or 32x32 floats of matrices
 * whose rows start on 128 bytes), so the mirror runs the kernel's body as a
 * launch of one block per tile and one stage (cml_exp_trace_1d checks the
 * claim), then the reduce's end over the real grid. What the LSU counters
 * see is traced: the register path's loads and shared stores and every
 * consumer; cp.async's copies are neither an ld.global nor an st.shared to
 * them (LDGSTS), so their global reads are traced on their own, for their
 * sector figures, and the TMA's copies are no thread's access at all.
 *
 * The reduction sums in double: every input is a multiple of 2^-23 in
 * [1, 2) and n <= 2^29, so every partial sum is exact and any order gives
 * the same bits; the host recomputes each block's sum from the generator.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "experiments/async_copy/async_copy_body.h"
#include "experiments/transpose/transpose_body.h"
#include "gpu/kernel_info.h"
#include "lab/common.h"

/* An H100 80GB HBM3's bandwidth computed from its memory clock and bus
 * (README), for the model when no device says otherwise. */
#define AC_DEFAULT_GBS 3352.0
/* Shared memory per SM of Hopper (228 KiB) and the 1 KiB the system keeps
 * per resident block, for the model when no device says otherwise. */
#define AC_DEFAULT_SMEM_SM 233472u
#define AC_RESERVED_PER_BLOCK 1024u

static const char *const method_names[] = {"reg", "async-ca", "async-cg", "bulk", "tensor", NULL};
static const char *const workload_names[] = {"reduce", "transpose", NULL};

/* One point: the options' fields, then what the variant derives. */
typedef struct async_settings {
    int64_t stages, width, method, resident, workload, n;
    uint64_t nx, ny, tiles;
    unsigned grid, per_sm, pad_smem;
} async_settings;

#define F(m) CML_FIELD(async_settings, m)
static const cml_param_def async_params[] = {
    {"stages", "tiles in flight per block: the register path loads that many before its "
               "barrier, the async paths keep a ring of that many buffers",
     1, 4, "1:4", NULL, 0, F(stages), NULL},
    {"width", "bytes per copy instruction of reg and cp.async: 4, 8 or 16 (async-cg: 16 only)",
     4, 16, "4,8,16", NULL, CML_PARAM_POW2, F(width), "method=reg,async-ca,async-cg"},
    {"method", "reg (load, shared store, __syncthreads), async-ca / async-cg (cp.async, "
               "sm_80+), bulk (cp.async.bulk + mbarrier, sm_90+), tensor (2-D tensor map, sm_90+)",
     0, 0, "reg,async-ca,async-cg,bulk,tensor", method_names, 0, F(method), NULL},
    {"resident", "blocks per SM: 0 = as many as fit, 1..8 = held to that many by reserving "
                 "shared memory",
     0, 8, "0,1", NULL, 0, F(resident), NULL},
    {"workload", "reduce (sum a DRAM-sized array) or transpose (32x32 tiles written "
                 "transposed)",
     0, 0, "reduce,transpose", workload_names, 0, F(workload), NULL},
    {"n", "floats of the input (0: reduce 4x L2, transpose 2x L2 per matrix; whole tiles)", 0,
     (int64_t)1 << 29, "0", NULL, CML_PARAM_NOVARIANT, F(n), NULL},
};
#undef F

/* ---- the model ----------------------------------------------------------- */

/* The sites of a tile's copy into shared memory (the register path's
 * loads and shared stores, cp.async's global reads and shared writes), of
 * their global side alone, of the copy engine's reads, of the consumer and
 * of the reduce's end (async_copy_body.h). */
#define AC_COPY_SITES 0xFFFFFull       /* 0..19 */
#define AC_COPY_READ_SITES 0xFull      /* 0..3 */
#define AC_TMA_SITES (1ull << 36)      /* 36 */
#define AC_CONSUME_SITES 0xFFF00000ull /* 20..31 */
#define AC_END_SITES (7ull << 32)      /* 32..34 */

/* The copy sites the model traces for a method: what the counters see.
 * The register path's loads and shared stores are LSU instructions; an
 * LDGSTS is counted as a global load (requests and sectors equal a load's
 * on an H100) and its shared write as no store at all; the copy engine's
 * reads are no LSU request but L2 serves them (CML_CACHE_BULK). */
static uint64_t copy_sites(int method)
{
    return method == CML_AC_REG                                        ? AC_COPY_SITES
           : method == CML_AC_ASYNC_CA || method == CML_AC_ASYNC_CG ? AC_COPY_READ_SITES
                                                                      : AC_TMA_SITES;
}

/* One launch as the mirror runs it: `tiles` tiles, one stage, the sites
 * it emits. */
typedef struct async_args {
    int workload, method;
    unsigned width;  /* bytes per copy instruction of reg and cp.async */
    uint64_t nx, ny; /* transpose: in[] is ny rows of nx floats */
    uint64_t tiles;  /* 0: no tile (the reduce's end alone) */
    uint64_t sites;
} async_args;

/* The kernel's own body (async_copy_body.h) on the model's arrays in (0)
 * and out (1), the block's shared memory from 0. Traced over one block per
 * tile (gridDim.x = tiles), each block's loop makes one round: its tile,
 * in stage 0. */
static void async_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const async_args *a = vargs;
    const cml_ctx c = CML_MIRROR_CTX_SITES(t, e, a->sites);
    const float *in = CML_ARRAY(const float, 0);
    float *out = CML_ARRAY(float, 1);
    const unsigned stage = cml_ac_stage_bytes(a->workload, a->method, a->width);
    CML_SHARED_ARRAY(unsigned char, raw, stage, 0);
    CML_SHARED_ARRAY(unsigned long long, bar, 1, stage);
    switch (a->method) {
    case CML_AC_REG:
        cml_ac_reg_body(c, in, out, (float *)raw, a->tiles, a->nx, a->ny, a->workload, a->width,
                        1);
        break;
    case CML_AC_ASYNC_CA:
    case CML_AC_ASYNC_CG:
        cml_ac_ldgsts_body(c, in, out, (float *)raw, a->tiles, a->nx, a->ny, a->workload,
                           a->width, 1, a->method == CML_AC_ASYNC_CG);
        break;
    default:
        cml_ac_tma_body(c, NULL, in, out, raw, bar, a->tiles, a->nx, a->ny, a->workload, 1,
                        a->method == CML_AC_TENSOR);
        break;
    }
}

static double per(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* Figures of the model that the findings and the extras use. */
typedef struct async_model {
    double copy_instr;       /* warp instructions that move one tile into shared memory */
    double st_wavefronts;    /* shared-store wavefronts per tile (the register path) */
    double ld_wavefronts;    /* consumer: wavefronts per shared-load request */
    double ldgsts_spr;       /* cp.async: sectors per copy request */
    double inflight, needed; /* bytes in flight per SM: at most / Little's law asks */
} async_model;

/*
 * A copy that bypasses L1 (cp.async.cg, the copy engine) and lands in
 * shared memory at an offset that is not a multiple of 32 bytes puts each
 * 32-byte global sector into two 32-byte chunks of shared memory; L2 then
 * serves the sector once per chunk. On an H100 cp.async.cg always does so
 * (the transpose's rows of 144 bytes: 192 L2 sectors per tile of 128,
 * 1.5x, on every record) and the copy engine sometimes (1.09-1.10x); a
 * copy through L1 (cp.async.ca, the register path) fills the line once.
 * The extra reads of one transpose tile with rows P floats apart: 4 per
 * row (its 4 sectors) that starts off a 32-byte boundary. The second read
 * of a sector hits L2, so DRAM is unchanged.
 */
static uint64_t straddle_reads_per_tile(int workload, int method, unsigned width)
{
    if (workload != CML_AC_TRANSPOSE || (method != CML_AC_ASYNC_CG && method != CML_AC_BULK))
        return 0;
    const unsigned P = cml_ac_pitch(method, width);
    uint64_t extra = 0;
    for (unsigned r = 0; r < CML_AC_SIDE; r++)
        if (r * P * 4u % CML_SECTOR_BYTES)
            extra += CML_AC_SIDE * 4u / CML_SECTOR_BYTES;
    return extra;
}

/* Trace the launch into rec (one block per tile, plus the reduce's end over
 * the real grid) and fill *m. The end's stores (one 8-byte sum per block,
 * each its own sector from its own SM) go to L2 whole: their sectors join
 * the L2 writes, a point, and the dirty bytes stay in L2 (too few to be
 * written back while the kernel runs). */
static cml_status trace_launch(cml_record *rec, const async_args *a, const async_settings *s,
                               async_model *m)
{
    async_args tiles = *a;
    tiles.tiles = s->tiles;
    tiles.sites = copy_sites(a->method) | AC_CONSUME_SITES;
    cml_status st = cml_exp_trace_1d(rec, s->tiles, CML_AC_BLOCK, 0, 0, async_mirror, &tiles);
    if (st)
        return st;
    const cml_kernel_traffic *k = &rec->model[CML_RULES_MODERN];
    const cml_traffic *sl = &k->cls[CML_CLASS_SHARED_LD];
    const cml_traffic *g = &k->cls[CML_CLASS_GLOBAL_LD];
    m->st_wavefronts = per(k->cls[CML_CLASS_SHARED_ST].wavefronts, s->tiles);
    m->ld_wavefronts = per(sl->wavefronts, sl->requests);
    m->copy_instr = a->method == CML_AC_REG
                        ? per(g->instructions + k->cls[CML_CLASS_SHARED_ST].instructions,
                              s->tiles)
                    : a->method >= CML_AC_BULK ? 1.0
                                               : per(g->instructions, s->tiles);
    m->ldgsts_spr = a->method == CML_AC_ASYNC_CA || a->method == CML_AC_ASYNC_CG
                        ? per(g->sectors, g->requests)
                        : 0.0;
    /* The efficiency counter (smsp__sass_average_data_bytes_per_sector_
     * mem_global_op_ld) counts SASS LDG instructions, which an LDGSTS is
     * not (smsp__inst_executed_op_global_ld reads 0 for these kernels on an
     * H100): no efficiency is predicted for cp.async's loads. */
    if (a->method == CML_AC_ASYNC_CA || a->method == CML_AC_ASYNC_CG)
        for (int r = 0; r < CML_RULES_COUNT; r++)
            rec->model[r].cls[CML_CLASS_GLOBAL_LD].efficiency_bytes = 0;
    /* cp.async.cg's straddling sectors are read twice (point and bound);
     * the copy engine's may be (the bound only). */
    const uint64_t straddle = straddle_reads_per_tile(a->workload, a->method, a->width) * s->tiles;
    if (a->method == CML_AC_ASYNC_CG)
        rec->levels.l2_read_sectors += straddle;
    rec->levels.hi.l2_read_sectors += straddle;
    rec->grid = s->grid; /* the launch's, not the traced one block per tile */
    rec->block = CML_AC_BLOCK;
    if (a->workload != CML_AC_REDUCE)
        return CML_OK;
    cml_record *tmp = calloc(1, sizeof *tmp);
    if (!tmp)
        return CML_ENOMEM;
    async_args end = *a;
    end.tiles = 0;
    end.sites = AC_END_SITES;
    st = cml_exp_trace_1d(tmp, s->grid, CML_AC_BLOCK, 0, 0, async_mirror, &end);
    for (int r = 0; !st && r < CML_RULES_COUNT; r++)
        for (int c = 0; c < CML_CLASS_COUNT; c++)
            cml_traffic_add(&rec->model[r].cls[c], &tmp->model[r].cls[c]);
    if (!st) {
        const uint64_t w = tmp->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST].sectors;
        rec->levels.l2_write_sectors += w;
        rec->levels.lo.l2_write_sectors += w;
        rec->levels.hi.l2_write_sectors += w;
        /* The sums are the kernel's last stores: L2 still holds them dirty
         * at its end (the point), and each is written back at most once,
         * during the kernel or after it (the bound). */
        rec->levels.l2_dirty_end_bytes += w * CML_SECTOR_BYTES;
        rec->levels.hi.dram_write_bytes += w * CML_SECTOR_BYTES;
    } else {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model: %s", tmp->note[0] ? tmp->note : cml_status_str(st));
    }
    free(tmp);
    return st;
}

/* ---- sizes and residency ---------------------------------------------- */

/* Static shared memory of a kernel as the model counts it (the device's
 * own figure replaces it on a GPU). */
static unsigned model_static_smem(int workload, int method, unsigned width, unsigned stages)
{
    unsigned b = stages * cml_ac_stage_bytes(workload, method, width);
    if (workload == CML_AC_REDUCE)
        b += 8 * (CML_AC_BLOCK / 32);
    if (method == CML_AC_BULK || method == CML_AC_TENSOR)
        b += 8 * stages + (method == CML_AC_TENSOR && workload == CML_AC_TRANSPOSE ? 896 : 0);
    return b;
}

/* Blocks resident per SM and the shared memory reserved to hold them there:
 * the occupancy calculator's on a GPU, the model's otherwise (threads and
 * shared memory; registers are not known before compiling). */
static cml_status residency(const cml_plan *plan, async_settings *s, int waived)
{
    const unsigned width = (unsigned)s->width, stages = (unsigned)s->stages;
    const unsigned want = (unsigned)s->resident;
    if (plan->gpu && !waived)
        return cml_async_residency((int)s->workload, (int)s->method, (int)width, (int)stages,
                                   want, &s->per_sm, &s->pad_smem);
    const unsigned smem_sm = plan->dev && plan->dev->shared_per_sm
                                 ? (unsigned)plan->dev->shared_per_sm
                                 : AC_DEFAULT_SMEM_SM;
    const unsigned fixed = model_static_smem((int)s->workload, (int)s->method, width, stages) +
                           AC_RESERVED_PER_BLOCK;
    unsigned natural = cml_exp_threads_per_sm(plan) / CML_AC_BLOCK;
    if (smem_sm / fixed < natural)
        natural = smem_sm / fixed;
    s->per_sm = natural ? natural : 1;
    s->pad_smem = 0;
    if (want && want < s->per_sm) {
        s->per_sm = want;
        s->pad_smem = smem_sm / want - fixed;
    }
    return CML_OK;
}

/* n resolved to whole tiles (reduce) or to a square of whole tiles. */
static void resolve_size(const cml_plan *plan, async_settings *s)
{
    if (s->workload == CML_AC_REDUCE) {
        uint64_t n = s->n ? (uint64_t)s->n : cml_plan_elements(plan, 4, 1);
        n = n / CML_AC_TILE_FLOATS * CML_AC_TILE_FLOATS;
        if (n == 0)
            n = CML_AC_TILE_FLOATS;
        s->n = (int64_t)n;
        s->nx = s->ny = 0;
        s->tiles = n / CML_AC_TILE_FLOATS;
        return;
    }
    uint64_t total = s->n ? (uint64_t)s->n : cml_plan_elements(plan, 4, 2);
    uint64_t side = (uint64_t)sqrt((double)total) / CML_AC_SIDE * CML_AC_SIDE;
    if (side == 0)
        side = CML_AC_SIDE;
    s->nx = s->ny = side;
    s->n = (int64_t)(side * side);
    s->tiles = (side / CML_AC_SIDE) * (side / CML_AC_SIDE);
}

static double plan_gbs(const cml_plan *plan)
{
    if (plan->peak_gbs > 0)
        return plan->peak_gbs;
    if (plan->dev && plan->dev->theoretical_gbs > 0)
        return plan->dev->theoretical_gbs;
    return AC_DEFAULT_GBS;
}

/* ---- records ----------------------------------------------------------- */

static const char *method_words(int m)
{
    static const char *const words[] = {
        "Through registers", "cp.async.ca", "cp.async.cg", "TMA (cp.async.bulk)",
        "TMA (tensor map)"};
    return m >= 0 && m < CML_AC_METHOD_COUNT ? words[m] : "?";
}

/* The model's sentence: how a tile moves, what it costs in instructions,
 * shared stores and registers, and bytes in flight against Little's law. */
static void model_finding(cml_record *rec, const async_settings *s, const async_model *m)
{
    char how[160], cols[96] = "";
    const int method = (int)s->method;
    const unsigned stages = (unsigned)s->stages;
    if (method == CML_AC_REG)
        snprintf(how, sizeof how,
                 "%.0f warp instructions per tile (loads, shared stores: %.0f wavefronts) and "
                 "%u B of registers per thread",
                 m->copy_instr, m->st_wavefronts, stages * 16u);
    else if (method <= CML_AC_ASYNC_CG)
        snprintf(how, sizeof how,
                 "%.0f copies per tile (%.2f sectors each) straight into shared memory: no "
                 "register, no shared store",
                 m->copy_instr, m->ldgsts_spr);
    else
        snprintf(how, sizeof how, "one instruction per tile from one thread, none from the "
                                  "other 255");
    if (s->workload == CML_AC_TRANSPOSE)
        snprintf(cols, sizeof cols, " A tile column read takes %.0f wavefront%s.",
                 m->ld_wavefronts, m->ld_wavefronts == 1.0 ? "" : "s");
    char bound[64];
    if (m->inflight >= m->needed)
        snprintf(bound, sizeof bound, "enough to saturate DRAM");
    else
        snprintf(bound, sizeof bound, "latency-bound, ~%.0f%% of DRAM at most",
                 100.0 * m->inflight / m->needed);
    cml_record_finding(rec,
                       "%s: %s. Up to %.0f KiB in flight per SM (%u block%s x %u x 4 KiB, %s) "
                       "against the %.0f KiB Little's law asks: %s.%s",
                       method_words(method), how, m->inflight / 1024.0, s->per_sm,
                       s->per_sm == 1 ? "" : "s", stages,
                       method == CML_AC_REG || stages == 1 ? "none while it computes"
                                                           : "loading while it computes",
                       m->needed / 1024.0, bound, cols);
}

static int width_applies(int method)
{
    return method <= CML_AC_ASYNC_CG;
}

static cml_status async_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    async_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    const int method = (int)s->method;
    if (method == CML_AC_ASYNC_CG && s->width != 16)
        return CML_SKIP_POINT; /* cp.async.cg copies 16 bytes only */
    const unsigned width = width_applies(method) ? (unsigned)s->width : 16u;
    resolve_size(plan, s);
    const int cc = plan->dev ? plan->dev->cc_major * 10 + plan->dev->cc_minor : 0;
    const int waived = plan->dev && cc < cml_ac_min_cc(method);
    cml_status st = residency(plan, s, waived);
    if (st)
        return cml_exp_fail(plan, rec, st);
    uint64_t grid = (uint64_t)cml_exp_sm_count(plan) * s->per_sm;
    s->grid = (unsigned)(grid < s->tiles ? grid : s->tiles);

    /* "workload=reduce method=reg width=16 stages=1 resident=0" */
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "workload",
                          workload_names[s->workload]);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "method", method_names[method]);
    if (width_applies(method))
        cml_variant_add(rec->variant, sizeof rec->variant, "width", (long long)s->width);
    cml_variant_add(rec->variant, sizeof rec->variant, "stages", (long long)s->stages);
    cml_variant_add(rec->variant, sizeof rec->variant, "resident", (long long)s->resident);
    rec->bytes_read = 4 * (uint64_t)s->n;
    rec->bytes_written = s->workload == CML_AC_REDUCE ? 8u * s->grid : 4 * (uint64_t)s->n;
    async_args a = {(int)s->workload, method, width, s->nx, s->ny, 0, 0};
    async_model m;
    st = trace_launch(rec, &a, s, &m);
    if (st)
        return st;
    const double latency_s = CML_AC_DRAM_LATENCY_NS * 1e-9;
    m.needed = latency_s * plan_gbs(plan) * 1e9 / cml_exp_sm_count(plan);
    m.inflight = (double)s->per_sm * (double)s->stages * CML_AC_TILE_BYTES;
    cml_record_add_extra(rec, "tiles", (double)s->tiles, "");
    cml_record_add_extra(rec, "blocks_per_sm", s->per_sm, "");
    cml_record_add_extra(rec, "pad_smem", s->pad_smem, "B");
    cml_record_add_extra(rec, "inflight_kib_per_sm", m.inflight / 1024.0, "KiB");
    cml_record_add_extra(rec, "needed_kib_per_sm", m.needed / 1024.0, "KiB");
    cml_record_add_extra(rec, "copy_instr_per_tile", m.copy_instr, "");
    cml_record_add_extra(rec, "staged_reg_bytes", method == CML_AC_REG ? 16.0 * s->stages : 0.0,
                         "B");
    cml_record_add_extra(rec, "smem_st_wavefronts_per_tile", m.st_wavefronts, "");
    cml_record_add_extra(rec, "smem_ld_wavefronts_per_req", m.ld_wavefronts, "");
    if (method == CML_AC_ASYNC_CA || method == CML_AC_ASYNC_CG)
        cml_record_add_extra(rec, "ldgsts_sectors_per_req", m.ldgsts_spr, "");
    model_finding(rec, s, &m);
    if (waived)
        cml_sweep_waive(ctx, rec, "%s needs compute capability %d.%d, this device is %d.%d",
                        method_names[method], cml_ac_min_cc(method) / 10,
                        cml_ac_min_cc(method) % 10, plan->dev->cc_major, plan->dev->cc_minor);
    return CML_OK;
}

/* ---- GPU run ----------------------------------------------------------- */


enum { SEED_IN = 0xA5C0 };

/* The run's state: the host's sum of every reduce tile, for the input size
 * it was computed for. */
typedef struct async_state {
    double *tile_sums;
    uint64_t tiles;
} async_state;

static cml_status tile_sums(async_state *g, uint64_t tiles)
{
    if (g->tile_sums && g->tiles == tiles)
        return CML_OK;
    free(g->tile_sums);
    g->tiles = 0;
    g->tile_sums = malloc(tiles * sizeof *g->tile_sums);
    if (!g->tile_sums)
        return CML_ENOMEM;
    for (uint64_t t = 0; t < tiles; t++) {
        double sum = 0.0;
        for (uint64_t i = 0; i < CML_AC_TILE_FLOATS; i++)
            sum += (double)cml_random_f32(SEED_IN, t * CML_AC_TILE_FLOATS + i);
        g->tile_sums[t] = sum;
    }
    g->tiles = tiles;
    return CML_OK;
}

typedef struct reduce_check {
    const cml_plan *plan;
    async_state *g;
    const cml_async_launch_args *a;
} reduce_check;

/* The reduce's check, on the host: out[b] for b < grid must be the sum of
 * tiles b, b+grid, ... bit for bit, every double past the grid the poison.
 * Its counts go where the harness reads a device checker's. */
static cml_status reduce_check_cb(void *vctx, unsigned long long *d_counters)
{
    const reduce_check *c = vctx;
    const cml_async_launch_args *a = c->a;
    cml_status st = tile_sums(c->g, a->n / CML_AC_TILE_FLOATS);
    if (st)
        return st;
    double *got = malloc(a->cap * sizeof *got);
    if (!got)
        return CML_ENOMEM;
    cml_dbuf view = {a->out, a->cap * sizeof *got, 0};
    st = cml_gpu_download(c->plan->gpu, got, &view, view.bytes);
    unsigned long long counts[2] = {0, ~0ull};
    for (uint64_t b = 0; !st && b < a->cap; b++) {
        uint64_t want = ~0ull, have;
        if (b < a->grid) {
            double sum = 0.0;
            for (uint64_t t = b; t < c->g->tiles; t += a->grid)
                sum += c->g->tile_sums[t];
            memcpy(&want, &sum, sizeof want);
        }
        memcpy(&have, &got[b], sizeof have);
        if (have != want && counts[0]++ == 0)
            counts[1] = b;
    }
    free(got);
    cml_dbuf dc = {d_counters, sizeof counts, 0};
    return st ? st : cml_gpu_upload(c->plan->gpu, &dc, counts, sizeof counts);
}

static cml_status transpose_check_cb(void *ctx, unsigned long long *d_counters)
{
    const cml_async_launch_args *a = ctx;
    cml_transpose_launch_args t = {a->in, a->out, a->nx, a->ny, a->nx * a->ny, 32, 8,
                                   CML_TR_NAIVE_ROW, 0};
    return cml_transpose_check(&t, SEED_IN, d_counters);
}

/* Doubles the reduce's output holds: one per block of the largest grid. */
static uint64_t reduce_cap(const cml_plan *plan)
{
    uint64_t per_sm = cml_exp_threads_per_sm(plan) / CML_AC_BLOCK;
    return (uint64_t)cml_exp_sm_count(plan) * (per_sm ? per_sm : 1);
}

static cml_status async_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const async_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    const int reduce = s->workload == CML_AC_REDUCE;
    const uint64_t n = (uint64_t)s->n, cap = reduce_cap(plan);
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, n * sizeof(float), SEED_IN);
    cml_dbuf *out = in ? cml_sweep_buffer(ctx, rec, 1, reduce ? cap * 8 : n * 4, 0) : NULL;
    if (!out)
        return CML_ECUDA;
    cml_async_launch_args a;
    memset(&a, 0, sizeof a);
    a.in = in->ptr;
    a.out = out->ptr;
    a.n = n;
    a.nx = s->nx;
    a.ny = s->ny;
    a.cap = cap;
    a.grid = s->grid;
    a.pad_smem = s->pad_smem;
    a.method = (int)s->method;
    a.workload = (int)s->workload;
    a.width = width_applies(a.method) ? (int)s->width : 16;
    a.stages = (int)s->stages;
    const void *kernel = cml_async_kernel(a.workload, a.method, a.width, a.stages);
    cml_kernel_info ki;
    cml_status st = cml_gpu_kernel_info(plan->gpu, kernel, &ki);
    if (!st && a.method == CML_AC_TENSOR)
        st = cml_async_encode_map(&a);
    if (st)
        return cml_exp_fail(plan, rec, st);
    cml_record_add_extra(rec, "regs", ki.regs, "");
    reduce_check rc = {plan, ctx->state, &a};
    st = cml_exp_measure(plan, rec, out, cml_async_launch, &a, kernel, CML_AC_BLOCK, a.pad_smem,
                         reduce ? reduce_check_cb : transpose_check_cb,
                         reduce ? (void *)&rc : (void *)&a);
    if (st)
        return st;
    char text[256];
    snprintf(text, sizeof text,
             "%s, %d stage%s, %u block%s per SM: up to %.0f KiB in flight per SM (%.0f KiB "
             "needed); %d registers per thread, occupancy %.0f%%.",
             method_words(a.method), a.stages, a.stages > 1 ? "s" : "", s->per_sm,
             s->per_sm == 1 ? "" : "s", cml_record_extra(rec, "inflight_kib_per_sm", -1.0),
             cml_record_extra(rec, "needed_kib_per_sm", -1.0), ki.regs,
             rec->occupancy >= 0 ? 100.0 * rec->occupancy : 0.0);
    cml_exp_finding_measured(rec, text);
    return CML_OK;
}

/* ---- the findings across records ------------------------------------- */

/* The register-path record an async record is compared with: same
 * workload, stages and residency, its width (16 for bulk and tensor). */
static const cml_record *reg_twin(cml_sweep *ctx, const async_settings *s)
{
    const int64_t width = width_applies((int)s->method) ? s->width : 16;
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const async_settings *o = cml_sweep_settings_of(ctx, i);
        const cml_record *r = &ctx->out->items[i];
        if (o && o->method == CML_AC_REG && o->width == width && o->stages == s->stages &&
            o->resident == s->resident && o->workload == s->workload && r->measured &&
            r->state == CML_REC_OK)
            return r;
    }
    return NULL;
}

static void append(char *buf, size_t len, const char *fmt, double a, double b)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, fmt, a, b);
}

/* When an async path wins against its register twin, and why: the numbers
 * behind each reason are the records' own. */
static void compare(cml_record *rec, const async_settings *s, const cml_record *reg)
{
    const double ratio = rec->bandwidth_gbs / reg->bandwidth_gbs;
    cml_record_add_extra(rec, "of_reg_pct", 100.0 * ratio, "%");
    char why[256] = "";
    const double regs = cml_record_extra(rec, "regs", -1.0), reg_regs = cml_record_extra(reg, "regs", -1.0);
    if (regs >= 0 && reg_regs > regs)
        append(why, sizeof why, "; %.0f registers per thread, not %.0f", regs, reg_regs);
    if (rec->occupancy > reg->occupancy + 0.01)
        append(why, sizeof why, "; occupancy %.0f%%, not %.0f%%", 100.0 * rec->occupancy,
               100.0 * reg->occupancy);
    if (s->stages > 1)
        append(why, sizeof why, "; %.0f of %.0f tiles stay in flight while it computes",
               (double)s->stages - 1, (double)s->stages);
    if (s->method >= CML_AC_BULK)
        append(why, sizeof why, "; one thread issues a tile (%.0f vs %.0f instructions)", 1.0,
               cml_record_extra(reg, "copy_instr_per_tile", -1.0));
    else
        append(why, sizeof why, "; no register round trip (%.0f shared store wavefronts per "
                                "tile saved, %.0f copies)",
               cml_record_extra(reg, "smem_st_wavefronts_per_tile", -1.0), cml_record_extra(rec, "copy_instr_per_tile", -1.0));
    const double conf = cml_record_extra(rec, "smem_ld_wavefronts_per_req", -1.0),
                 reg_conf = cml_record_extra(reg, "smem_ld_wavefronts_per_req", -1.0);
    if (conf > reg_conf)
        append(why, sizeof why, "; but %.0f wavefronts per tile-column read, not %.0f", conf,
               reg_conf);
    const char *verdict = ratio > 1.02 ? "wins" : ratio < 0.98 ? "loses" : "ties";
    const double inflight = cml_record_extra(rec, "inflight_kib_per_sm", -1.0),
                 needed = cml_record_extra(rec, "needed_kib_per_sm", -1.0);
    cml_record_finding(rec,
                       "%s %s against registers: %.0f vs %.0f GB/s (%+.0f%%)%s.%s",
                       method_words((int)s->method), verdict, rec->bandwidth_gbs,
                       reg->bandwidth_gbs, 100.0 * (ratio - 1.0), why,
                       ratio <= 1.02 && inflight >= needed
                           ? " Both have the bytes in flight DRAM needs: it is the limit."
                           : "");
}

static void async_finish(cml_sweep *ctx)
{
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        cml_record *rec = &ctx->out->items[i];
        const async_settings *s = cml_sweep_settings_of(ctx, i);
        if (!s || s->method == CML_AC_REG || !rec->measured || rec->state != CML_REC_OK)
            continue;
        const cml_record *reg = reg_twin(ctx, s);
        if (reg && reg->bandwidth_gbs > 0)
            compare(rec, s, reg);
    }
}

static void async_release(cml_sweep *ctx)
{
    async_state *g = ctx->state;
    free(g->tile_sums);
    g->tile_sums = NULL;
}

/* Bandwidth against the stages, a line per method (and width, residency),
 * one chart per workload; the bytes in flight the model counts (Little's
 * law's side of it); the registers each variant needs. */
#define AC_BW_CHART(wl)                                                                        \
    {.shape = CML_PLOT_SWEEP, .title = "Measured bandwidth vs stages (" wl ")",               \
     .xparam = "stages", .xname = "stages", .xlabel = "tiles in flight per block",            \
     .xscale = CML_SCALE_LINEAR, .xfmt = CML_FMT_NUMBER, .ylabel = "bandwidth (GB/s)",         \
     .yfmt = CML_FMT_NUMBER, .only_param = "workload", .only_label = wl,                      \
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth",           \
     .unit = "GB/s", .describe = 1}
static const cml_chart_spec async_charts[] = {
    AC_BW_CHART("reduce"),
    AC_BW_CHART("transpose"),
    /* the same for every method: drawn for one, a line per residency and workload */
    {.shape = CML_PLOT_SWEEP, .title = "Predicted bytes in flight per SM vs stages",
     .xparam = "stages", .xname = "stages", .xlabel = "tiles in flight per block",
     .xscale = CML_SCALE_LINEAR, .xfmt = CML_FMT_NUMBER, .ylabel = "KiB in flight per SM",
     .yfmt = CML_FMT_NUMBER, .only_param = "method", .only_label = "bulk",
     .m = {{"in flight", CML_METRIC_EXTRA, "inflight_kib_per_sm", NULL, 1}},
     .what = "bytes in flight per SM", .unit = "KiB", .describe = 0},
    {.shape = CML_PLOT_SWEEP, .title = "Registers per thread vs stages", .xparam = "stages",
     .xname = "stages", .xlabel = "tiles in flight per block", .xscale = CML_SCALE_LINEAR,
     .xfmt = CML_FMT_NUMBER, .ylabel = "registers per thread", .yfmt = CML_FMT_NUMBER,
     .only_param = "workload", .only_label = "reduce",
     .m = {{"registers", CML_METRIC_EXTRA, "regs", NULL, 0}}, .what = "registers per thread",
     .unit = "", .describe = 1},
};

/* Every method, with one block per SM (a second block's accesses add
 * shared wavefronts of their own to the counters, docs/model-evidence.md,
 * 4.3), at the default DRAM-sized footprints and at 4 MiB (in L2; the
 * profiler flushes L2 before each range). cp.async.cg's transpose is left
 * out: its LSU sector count is 1.125x a load's on an H100 (rows that start
 * off a 32-byte boundary in shared memory cost a sector more), which the
 * model does not express (docs/experiments/async-copy.md). */
static const char *const async_validate_settings[] = {
    "method=reg,async-ca,bulk,tensor stages=1,4 resident=1",
    "method=async-cg workload=reduce stages=1,4 resident=1",
    "method=reg,async-ca,async-cg,bulk,tensor width=16 stages=1 resident=1 n=2^20 "
    "workload=reduce",
    "method=reg,async-ca,bulk,tensor width=16 stages=1 resident=1 n=2^20 workload=transpose",
    NULL};
static const cml_validate_spec async_validate = {async_validate_settings, NULL, 0};

const cml_experiment cml_exp_async_copy = {
    .key = "async-copy",
    .number = 21,
    .title = "Asynchronous copies into shared memory",
    .summary = "staging 4 KiB tiles through registers vs cp.async (sm_80) vs TMA bulk and "
               "tensor copies (sm_90), 1-4 stages, on a streaming reduction and a transpose",
    .doc = "docs/experiments/async-copy.md",
    .options = async_params,
    .noptions = CML_COUNT(async_params),
    .settings_size = sizeof(async_settings),
    .state_size = sizeof(async_state),
    .tour = "stages=1,4 width=16 method=reg,async-cg,bulk,tensor resident=1 "
            "workload=reduce,transpose",
    .variant = async_variant,
    .measure = async_measure,
    .finish = async_finish,
    .release = async_release,
    .charts = async_charts,
    .ncharts = CML_COUNT(async_charts),
    .validate = &async_validate,
};
