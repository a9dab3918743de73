/*
 * Experiment 23: memory over the link between two GPUs of one host.
 *
 * For every ordered pair of GPUs (gpu, peer) a kernel on `gpu` pulls the
 * peer's memory into its own (op=read) or pushes its own into the peer's
 * (op=write) through peer access, with the lab's sweeps on the remote side:
 * element width, offset and stride, loads through L1 (sm) or at L2 only
 * (sm-cg); the same bytes through the copy engine (cudaMemcpyPeerAsync,
 * method=ce); one direction, or the same transfer from both GPUs at once
 * (dir=both). gpu == peer is the local baseline: the same kernel on the
 * GPU's own memory. Kernels: peer_body.h.
 *
 * The model traces the kernel's own body (exact requests and sectors) and
 * predicts the bytes that cross the link as the sectors that leave the SM
 * for the remote array; the measurement says whether the link carries
 * whole sectors (coalescing costs the link what it costs DRAM) or only the
 * bytes used. A record's bandwidth is the link's: the bytes that crossed
 * per second, each counted once (as nvbandwidth counts a copy), both
 * directions summed with dir=both. docs/experiments/peer.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/peer/peer_body.h"
#include "lab/common.h"
#include "lab/link_counters.h"

static const char *const dir_names[] = {"one", "both", NULL};
static const char *const method_names[] = {"sm", "sm-cg", "ce", NULL};
static const char *const op_names[] = {"read", "write", NULL};
enum { DIR_ONE, DIR_BOTH };
enum { METHOD_SM, METHOD_SM_CG, METHOD_CE };
enum { OP_READ, OP_WRITE };

/* GPU indices the options allow (the default sweep is the pair 0, 1: a
 * larger node names its GPUs, --gpu 0:7 --peer 0:7). */
#define PEER_MAX_GPUS 64
/* The smallest remote array on a GPU: nvbandwidth's default buffer. */
#define PEER_MIN_BYTES (512ull << 20)

typedef struct peer_settings {
    int64_t elem, offset, stride, ilp, passes, dir, method, op, peer, gpu, n;
} peer_settings;

static const cml_param_def peer_params[] = {
    {"elem", "bytes per thread on the link: 4 (float), 8 (float2), 16 (float4)", 4, 16, "4,16",
     NULL, CML_PARAM_POW2, CML_FIELD(peer_settings, elem), "method=sm,sm-cg"},
    {"offset", "first remote element, in elements", 0, 1 << 20, "0,1", NULL, 0,
     CML_FIELD(peer_settings, offset), "method=sm,sm-cg"},
    {"stride", "remote elements between neighbouring threads (1: coalesced)", 1, 1024, "1,2,8",
     NULL, 0, CML_FIELD(peer_settings, stride), "method=sm,sm-cg"},
    {"ilp", "elements each thread moves, a grid's width apart, all loaded before the first store "
            "(1: one per thread; 8: the headline pattern only, as nvbandwidth's copy keeps 12)",
     1, 8, "1,8", NULL, CML_PARAM_POW2, CML_FIELD(peer_settings, ilp), "method=sm,sm-cg"},
    {"passes", "times one launch moves the array (more than 1: the SMs' resident blocks walk "
               "it each pass, as nvbandwidth's copy does 16 times; the headline pattern only)",
     1, 64, "1,16", NULL, 0, CML_FIELD(peer_settings, passes), "method=sm,sm-cg"},
    {"dir", "one: gpu moves data alone; both: the peer does the same towards gpu at once", 0, 0,
     "one,both", dir_names, 0, CML_FIELD(peer_settings, dir), NULL},
    {"method", "sm = a kernel, plain remote loads (through L1); sm-cg = loads at L2 only "
               "(__ldcg); ce = the copy engine (cudaMemcpyPeerAsync)",
     0, 0, "sm,sm-cg,ce", method_names, 0, CML_FIELD(peer_settings, method), NULL},
    {"op", "read = gpu pulls the peer's memory into its own; write = gpu pushes its own into "
           "the peer's",
     0, 0, "read,write", op_names, 0, CML_FIELD(peer_settings, op), NULL},
    {"peer", "the GPU whose memory is remote (equal to gpu: the local baseline)", 0,
     PEER_MAX_GPUS - 1, "0,1", NULL, 0, CML_FIELD(peer_settings, peer), NULL},
    {"gpu", "the GPU that runs the kernel or issues the copy", 0, PEER_MAX_GPUS - 1, "0,1", NULL,
     0, CML_FIELD(peer_settings, gpu), NULL},
    {"n", "elements of the remote array (0: --size, else 4x the L2 size in bytes and at least "
          "512 MiB)", 0, (int64_t)1 << 34, "0",
     NULL, CML_PARAM_NOVARIANT, CML_FIELD(peer_settings, n), NULL},
};

/* ---- the model ------------------------------------------------------- */

void cml_peer_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_peer_args *a = vargs;
    const cml_ctx ctx = CML_MIRROR_CTX(t, e);
#define PEER_MIRROR(W, T, U)                                                                   \
    case W * 16 + U:                                                                           \
        if (a->push)                                                                           \
            cml_peer_push_body_##W##_##U(ctx, CML_ARRAY(const T, 0), CML_ARRAY(T, 1),          \
                                         a->threads, a->stride, a->offset, a->passes);         \
        else                                                                                   \
            cml_peer_pull_body_##W##_##U(ctx, CML_ARRAY(const T, 0), CML_ARRAY(T, 1),          \
                                         a->threads, a->stride, a->offset, a->cache,           \
                                         a->passes);                                           \
        break;
    switch (a->elem * 16 + a->ilp) {
        PEER_MIRROR(4, float, 1) PEER_MIRROR(4, float, 2) PEER_MIRROR(4, float, 4)
        PEER_MIRROR(4, float, 8)
        PEER_MIRROR(8, float2, 1) PEER_MIRROR(8, float2, 2) PEER_MIRROR(8, float2, 4)
        PEER_MIRROR(8, float2, 8)
        PEER_MIRROR(16, float4, 1) PEER_MIRROR(16, float4, 2) PEER_MIRROR(16, float4, 4)
        PEER_MIRROR(16, float4, 8)
    default:
        break;
    }
#undef PEER_MIRROR
}

enum { PEER_BLOCK = 256 };

/* The L2's size: the device's, else an H100's (the model's default). */
static uint64_t l2_bytes(const cml_plan *plan)
{
    return plan->dev && plan->dev->l2_bytes ? plan->dev->l2_bytes : 50ull << 20;
}

/* Blocks of PEER_BLOCK threads the SMs hold at once. */
static uint64_t resident_blocks(const cml_plan *plan)
{
    return (uint64_t)cml_exp_sm_count(plan) * (cml_exp_threads_per_sm(plan) / PEER_BLOCK);
}

/* Threads of a transfer: remote elements offset, offset + stride, ... < n. */
static uint64_t peer_threads(uint64_t n, uint64_t offset, uint64_t stride)
{
    return n > offset ? (n - offset - 1) / stride + 1 : 0;
}

static int list_first(const cml_sweep *ctx, const char *name, int64_t *v)
{
    const int i = cml_param_index(ctx->values, name);
    if (i < 0 || !ctx->values->list[i].count)
        return 0;
    *v = ctx->values->list[i].v[0];
    return 1;
}

/* Whether the user gave option `name` (not its default). */
static int given(const cml_sweep *ctx, const char *name)
{
    const int i = cml_param_index(ctx->values, name);
    return i >= 0 && ctx->values->list[i].given;
}

/* Without a GPU the model's figures are the same for every pair: the first
 * pair of the lists with two GPUs stands for all (the finding says so). */
static int model_pair(const cml_sweep *ctx, const peer_settings *s)
{
    int64_t g = 0;
    if (!list_first(ctx, "gpu", &g) || s->gpu != g)
        return 0;
    const int pi = cml_param_index(ctx->values, "peer");
    for (size_t k = 0; k < ctx->values->list[pi].count; k++)
        if (ctx->values->list[pi].v[k] != g)
            return s->peer == ctx->values->list[pi].v[k];
    return 0;
}

/* The headline pattern: both directions at once and the deeper kernels
 * run only with it. */
static int headline(const peer_settings *s)
{
    return s->method == METHOD_CE || (s->elem == 16 && s->offset == 0 && s->stride == 1);
}

/*
 * The model of a kernel: a grid of a->grid blocks of PEER_BLOCK threads;
 * thread t's slots are elements t + s*span (span: the grid's threads)
 * below `threads`, the same in every pass. Each block is its predecessor
 * shifted by PEER_BLOCK elements in every slot: PEER_BLOCK*elem bytes
 * locally and stride times that remotely, whole lines for 256 threads. The
 * guard cuts the last slot, js: the blocks before block bb have it, block
 * bb in part, the blocks after it not at all. Three runs: the first block
 * of each stands for the rest.
 */
static cml_status trace_one_pass(cml_record *rec, const cml_peer_args *a)
{
    const uint64_t grid = a->grid;
    const uint64_t span = grid * PEER_BLOCK;
    const uint64_t js = (a->threads - 1) / span, bb = (a->threads - js * span) / PEER_BLOCK;
    const uint64_t period = cml_exp_line_period((uint64_t)PEER_BLOCK * a->elem);
    cml_exp_axis x = {0};
    cml_status st = CML_OK;
    if (bb)
        st = cml_exp_axis_add(&x, bb, period);
    if (st == CML_OK && bb < grid)
        st = cml_exp_axis_add(&x, 1, 1);
    if (st == CML_OK && bb + 1 < grid)
        st = cml_exp_axis_add(&x, grid - bb - 1, period);
    if (st)
        return st;
    const cml_exp_axis axes[3] = {x, cml_exp_axis_ends(1, 0, 1, 0), cml_exp_axis_ends(1, 0, 1, 0)};
    const cml_dim3 g = {(unsigned)grid, 1, 1}, b = {PEER_BLOCK, 1, 1};
    return cml_exp_trace_axes(rec, g, b, axes, cml_peer_mirror, a, NULL);
}

/*
 * Several passes (a persistent grid walking the array each pass): every
 * warp instruction of such a kernel is one of the one-pass grid's, moved by
 * whole lines (its span is a multiple of 256 elements, and the guard cuts
 * the same last warp), so one pass is traced on the one-pass grid, each
 * thread within the model's 256 accesses, and counted `passes` times. The
 * cache levels: every pass asks L1 and L2 for the same sectors again (an
 * array of at least twice the L2 size, refused otherwise, leaves nothing of
 * the last pass in either), each pass reads DRAM again, and writes back
 * what it writes as one pass does plus what the pass before left dirty.
 */
static cml_status trace_kernel(cml_record *rec, const cml_peer_args *a, unsigned one_pass_grid)
{
    cml_peer_args one = *a;
    one.passes = 1;
    one.grid = one_pass_grid;
    cml_status st = trace_one_pass(rec, &one);
    if (st != CML_OK || a->passes == 1)
        return st;
    const uint64_t k = a->passes;
    cml_exp_scale_traffic(rec, k);
    if (rec->has_levels) {
        cml_levels *l = &rec->levels;
        l->l1_hit_sectors *= k;
        l->l1_miss_sectors *= k;
        l->local_hit_sectors *= k;
        l->l2_read_sectors *= k;
        l->l2_write_sectors *= k;
        l->l2_read_hit_sectors *= k;
        l->dram_read_bytes *= k;
        l->dram_write_bytes = k * l->dram_write_bytes + (k - 1) * l->l2_dirty_end_bytes;
        /* Each pass within its own interval; the dirty data a pass leaves
         * is in its upper bound (docs/model.md §16.8), so k of them hold
         * the point above. */
        uint64_t b[2][CML_LEVEL_FIGURES];
        cml_level_bounds_get(&l->lo, b[0]);
        cml_level_bounds_get(&l->hi, b[1]);
        for (unsigned i = 0; i < CML_LEVEL_FIGURES; i++) {
            b[0][i] *= k;
            b[1][i] *= k;
        }
        cml_level_bounds_set(&l->lo, b[0]);
        cml_level_bounds_set(&l->hi, b[1]);
    }
    rec->grid = a->grid;
    return CML_OK;
}

/* The bytes that leave the SM for the remote array, predicted: the sectors
 * past L1 (the cache levels) or, without levels, the sectors asked for. */
static double remote_sector_bytes(const cml_record *rec, int push)
{
    if (rec->has_levels)
        return (double)(push ? rec->levels.l2_write_sectors : rec->levels.l2_read_sectors) *
               CML_SECTOR_BYTES;
    const cml_traffic *t =
        &rec->model[CML_RULES_MODERN].cls[push ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD];
    return (double)t->sectors * CML_SECTOR_BYTES;
}

/*
 * The points that run. A GPU the host does not have, or without a GPU
 * (the model's figures are alike for every pair) any pair but the first
 * with two GPUs; a GPU with itself both ways at once; L2-only loads for a
 * push (its remote accesses are stores); and, unless asked for by name,
 * both directions at once and the deeper kernels (ilp, passes) with any but
 * the headline pattern.
 */
static int peer_keep(const cml_sweep *ctx, const void *vs)
{
    const peer_settings *s = vs;
    const int gpu = ctx->plan && ctx->plan->gpu;
    if (!gpu && !model_pair(ctx, s))
        return 0;
    if (gpu) {
        const int gpus = cml_gpu_count(NULL, 0);
        if (s->gpu >= gpus || s->peer >= gpus)
            return 0;
    }
    if (s->dir == DIR_BOTH && s->gpu == s->peer)
        return 0;
    if (s->method == METHOD_SM_CG && s->op == OP_WRITE)
        return 0;
    if (headline(s))
        return 1;
    return !((s->dir == DIR_BOTH && !given(ctx, "dir")) ||
             (s->method != METHOD_CE && s->ilp > 1 && !given(ctx, "ilp")) ||
             (s->method != METHOD_CE && s->passes > 1 && !given(ctx, "passes")));
}

static cml_status peer_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    peer_settings *s = vs;
    const unsigned elem = s->method == METHOD_CE ? 16u : (unsigned)s->elem;
    if (s->n == 0) {
        /* 4x L2 keeps the remote array out of the caches; on a GPU at least
         * nvbandwidth's default buffer, so that the two compare like for
         * like (a link's rate still climbs at a few hundred MiB). */
        uint64_t n = cml_plan_elements(ctx->plan, elem, 1);
        if (ctx->plan->dev && !ctx->plan->size_bytes && n < PEER_MIN_BYTES / elem)
            n = PEER_MIN_BYTES / elem; /* --size (validate's too) wins */
        s->n = (int64_t)n;
    }
    const uint64_t n = (uint64_t)s->n, offset = (uint64_t)s->offset;
    const uint64_t stride = s->method == METHOD_CE ? 1 : (uint64_t)s->stride;
    if (offset >= n) {
        cml_sweep_waive(ctx, rec, "offset %llu is at or past the %llu remote elements",
                        (unsigned long long)offset, (unsigned long long)n);
        return CML_OK;
    }
    const uint64_t threads = peer_threads(n, offset, stride);
    const unsigned sides = s->dir == DIR_BOTH ? 2u : 1u;
    const unsigned passes = s->method == METHOD_CE ? 1u : (unsigned)s->passes;
    const uint64_t useful = threads * elem * sides * passes;
    /* The link's bytes, counted once: remote reads or remote writes. */
    rec->bytes_read = s->op == OP_READ ? useful : 0;
    rec->bytes_written = s->op == OP_WRITE ? useful : 0;
    cml_record_add_extra(rec, "link_useful_bytes", (double)useful, "B");
    const char *where = s->gpu == s->peer ? "its own memory (local baseline)" : "the peer's memory";
    char pair[96];
    if (ctx->plan->gpu)
        snprintf(pair, sizeof pair, "GPU %lld %s %s", (long long)s->gpu,
                 s->op == OP_READ ? "reads" : "writes", where);
    else
        snprintf(pair, sizeof pair, "GPU %lld %s GPU %lld's memory (the model: every pair alike)",
                 (long long)s->gpu, s->op == OP_READ ? "reads" : "writes", (long long)s->peer);
    if (s->method == METHOD_CE) {
        /* The copy engine moves the buffer as a whole: the link carries the
         * bytes, no SM instruction is issued. */
        cml_record_add_extra(rec, "link_sector_bytes", (double)useful, "B");
        cml_record_finding(rec,
                           "%s through the copy engine%s: %.0f MiB that cross the link as they "
                           "are, with no SM involved.",
                           pair, sides == 2 ? ", both directions at once" : "",
                           (double)useful / 1048576.0);
        return CML_OK;
    }
    cml_peer_args args = {threads, stride, offset, elem, (unsigned)s->ilp, passes,
                          cml_peer_grid(threads, (unsigned)s->ilp, PEER_BLOCK, passes,
                                        resident_blocks(ctx->plan)),
                          s->op == OP_WRITE, s->method == METHOD_SM_CG ? CML_CACHE_CG : CML_CACHE_CA};
    if (passes > 1 && threads * elem < 2 * l2_bytes(ctx->plan)) {
        char l2[32];
        cml_fmt_bytes(l2, sizeof l2, (double)l2_bytes(ctx->plan));
        cml_sweep_waive(ctx, rec,
                        "%u passes need arrays of at least twice the L2 (%s), so that no pass "
                        "finds the last one's data in a cache; this one moves %llu bytes",
                        passes, l2, (unsigned long long)(threads * elem));
        return CML_OK;
    }
    cml_status st = trace_kernel(rec, &args, cml_peer_grid(threads, args.ilp, PEER_BLOCK, 1, 0));
    if (st)
        return st;
    const cml_class c = args.push ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    const double link = remote_sector_bytes(rec, args.push) * sides;
    cml_record_add_extra(rec, "link_sector_bytes", link, "B");
    cml_record_finding(rec,
                       "%s with a kernel: %u-byte elements (%lld per thread, %u pass%s), "
                       "stride %llu, offset %llu: %.2f "
                       "sectors per remote %s request, %.1f%% of the sectors' bytes used; "
                       "%.0f MiB leave the SMs in sectors for %.0f MiB used%s.",
                       pair, elem, (long long)s->ilp, passes, passes == 1 ? "" : "es",
                       (unsigned long long)stride,
                       (unsigned long long)offset,
                       cml_exp_spr(rec, c), args.push ? "store" : "load",
                       100.0 * cml_exp_eff(rec, CML_RULES_MODERN, c), link / 1048576.0,
                       (double)useful / 1048576.0, sides == 2 ? ", both directions at once" : "");
    return CML_OK;
}

/* ---- the measurement ------------------------------------------------- */

/* What one run keeps per GPU: the GPU (the lab's own, or opened here), a
 * random source and a destination of `bytes` each. */
typedef struct peer_gpu {
    cml_gpu *gpu;
    int opened;       /* 1: opened here, closed at the end */
    cml_dbuf src, dst;
    size_t bytes;
} peer_gpu;

typedef struct peer_state {
    peer_gpu dev[PEER_MAX_GPUS];
    int lab;          /* the lab's GPU, current between points */
    cml_link_counters nvlink; /* the link's own counters (lab/link_counters.h) */
    int nvlink_said;  /* the run's diagnostic says why there are none */
} peer_state;

static uint64_t src_seed(int dev)
{
    return 0x5EED00ull + (uint64_t)dev;
}

/* The GPU `d` with buffers of at least `bytes`; the current device is d. */
static cml_status peer_ready(cml_sweep *ctx, cml_record *rec, int d, size_t bytes)
{
    peer_state *ps = ctx->state;
    peer_gpu *p = &ps->dev[d];
    if (!p->gpu) {
        if (d == ps->lab) {
            p->gpu = ctx->plan->gpu;
        } else {
            char err[320];
            if (cml_gpu_open(d, &p->gpu, err, sizeof err) != CML_OK) {
                cml_record_note(rec, "%s", err);
                rec->state = CML_REC_FAILED;
                return CML_ECUDA;
            }
            p->opened = 1;
        }
    }
    cml_status st = cml_peer_use(d);
    if (st == CML_OK && p->bytes < bytes) {
        cml_gpu_free(p->gpu, &p->src);
        cml_gpu_free(p->gpu, &p->dst);
        p->bytes = 0;
        st = cml_gpu_alloc(p->gpu, &p->src, bytes);
        if (st == CML_OK)
            st = cml_gpu_alloc(p->gpu, &p->dst, bytes);
        if (st == CML_OK)
            st = cml_gpu_fill_f32(p->gpu, &p->src, bytes / 4, src_seed(d));
        if (st == CML_OK)
            p->bytes = bytes;
    }
    if (st != CML_OK) {
        cml_plan sub = *ctx->plan;
        sub.gpu = p->gpu;
        return cml_exp_fail(&sub, rec, st);
    }
    return CML_OK;
}

/* One destination to check, on its own GPU. */
typedef struct peer_check_ctx {
    const float *dst;
    uint64_t floats, threads, stride, offset, seed;
    int pattern;
    unsigned elem;
} peer_check_ctx;

static cml_status peer_check_cb(void *vctx, unsigned long long *d_counters)
{
    const peer_check_ctx *c = vctx;
    return cml_peer_check(c->dst, c->floats, c->pattern, c->elem, c->threads, c->stride,
                          c->offset, c->seed, d_counters);
}

/* Poison d's destination and queue its check: who writes it (runner) and
 * from where (the source's GPU). */
static cml_status peer_dst(cml_sweep *ctx, cml_record *rec, int d, int src_dev, int pattern,
                           const cml_peer_launch_args *a, peer_check_ctx *out)
{
    peer_state *ps = ctx->state;
    peer_gpu *p = &ps->dev[d];
    cml_status st = cml_peer_use(d);
    if (st == CML_OK)
        st = cml_gpu_poison(p->gpu, &p->dst);
    /* The poison runs on d's stream: one GPU's stream is not ordered with
     * another's, so it must be done before a kernel elsewhere writes. */
    if (st == CML_OK)
        st = cml_peer_sync(d);
    if (st != CML_OK) {
        cml_plan sub = *ctx->plan;
        sub.gpu = p->gpu;
        return cml_exp_fail(&sub, rec, st);
    }
    *out = (peer_check_ctx){p->dst.ptr, p->bytes / 4, a->threads, a->stride, a->offset,
                            src_seed(src_dev), pattern, a->elem};
    return CML_OK;
}

static cml_status peer_access(cml_sweep *ctx, cml_record *rec, int a, int b)
{
    if (a == b)
        return CML_OK;
    cml_gpu_link link;
    cml_status st = cml_gpu_link_between(a, b, &link);
    if (st == CML_OK && !link.peer_access) {
        cml_sweep_waive(ctx, rec,
                        "GPU %d cannot reach GPU %d's memory (cudaDeviceCanAccessPeer says no: "
                        "no NVLink or PCIe peer path between them)",
                        a, b);
        return CML_EUNSUPPORTED;
    }
    if (st == CML_OK)
        st = cml_gpu_enable_peer(a, b);
    return st == CML_OK ? st : cml_exp_fail(ctx->plan, rec, st);
}

static cml_status peer_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const peer_settings *s = vs;
    peer_state *ps = ctx->state;
    const int A = (int)s->gpu, B = (int)s->peer, both = s->dir == DIR_BOTH;
    const int ce = s->method == METHOD_CE, push = s->op == OP_WRITE;
    const unsigned elem = ce ? 16u : (unsigned)s->elem;
    const uint64_t stride = ce ? 1 : (uint64_t)s->stride, offset = (uint64_t)s->offset;
    const uint64_t n = (uint64_t)s->n;
    ps->lab = cml_gpu_facts(ctx->plan->gpu)->index;
    cml_status st = peer_access(ctx, rec, A, B);
    if (st == CML_OK && both)
        st = peer_access(ctx, rec, B, A);
    if (st == CML_OK)
        st = peer_ready(ctx, rec, A, (size_t)n * elem);
    if (st == CML_OK)
        st = peer_ready(ctx, rec, B, (size_t)n * elem);
    if (st != CML_OK) {
        (void)cml_peer_use(ps->lab);
        return st == CML_EUNSUPPORTED ? CML_OK : st;
    }
    cml_peer_launch_args a = {0};
    a.nsides = both ? 2 : 1;
    a.ce = ce;
    a.push = push;
    a.path = s->method == METHOD_SM_CG;
    a.elem = elem;
    a.ilp = ce ? 1u : (unsigned)s->ilp;
    a.passes = ce ? 1u : (unsigned)s->passes;
    a.block = PEER_BLOCK;
    a.threads = peer_threads(n, offset, stride);
    a.stride = stride;
    a.offset = offset;
    a.grid = cml_peer_grid(a.threads, a.ilp, a.block, a.passes, resident_blocks(ctx->plan));
    /* Side k runs on `run`, moving between its memory and `other`'s; its
     * destination's check: the pattern is on the remote side. */
    peer_check_ctx checks[2];
    for (unsigned k = 0; k < a.nsides && st == CML_OK; k++) {
        const int run = k ? B : A, other = k ? A : B;
        const int from = push ? run : other, to = push ? other : run;
        a.side[k] = (cml_peer_side){run, from, to, ps->dev[from].src.ptr, ps->dev[to].dst.ptr};
        st = peer_dst(ctx, rec, to, from, push, &a, &checks[k]);
    }
    if (st == CML_OK && both)
        st = cml_peer_events(A, B, &a.go, &a.done);
    /* Timed on the runner's stream; counters (on the lab's GPU only, where
     * the profiler is) at once, for a kernel in one direction: a queued
     * replay could outlive the peer's buffers. */
    cml_plan sub = *ctx->plan;
    sub.gpu = ps->dev[A].gpu;
    sub.dev = cml_gpu_facts(sub.gpu);
    sub.counters_pass = NULL;
    if (A != ps->lab || ce || both)
        sub.profiler = NULL;
    if (A != B || A != ps->lab)
        memset(&sub.peaks, 0, sizeof sub.peaks); /* a link is no share of DRAM's peak */
    if (st == CML_OK)
        st = cml_peer_use(A);
    /* Each sample right behind an untimed launch of the same copy, as
     * nvbandwidth times its copies: measured on two H100s (NV18), an SM
     * copy timed after an idle gap of a few microseconds moves 0.1-0.17%
     * less over 16 passes of 512 MiB than the same launch queued behind
     * another, for nvbandwidth's kernel and this one alike
     * (bench/results/h100x2/2026-11-28-peer-timing/). */
    cml_gpu_set_warm_before(sub.gpu, 1);
    if (st == CML_OK)
        st = cml_exp_time(&sub, rec, cml_peer_launch, &a,
                          ce ? NULL : cml_peer_kernel(push, a.path, elem, a.ilp), a.block, 0);
    cml_gpu_set_warm_before(sub.gpu, 0);
    for (unsigned k = 0; k < a.nsides && st == CML_OK; k++) {
        const int to = a.side[k].dst_dev;
        cml_plan vplan = *ctx->plan;
        vplan.gpu = ps->dev[to].gpu;
        st = cml_peer_use(to);
        if (st == CML_OK)
            st = cml_exp_verify(&vplan, rec, peer_check_cb, &checks[k]);
    }
    /* The link's own counters: one more launch between two reads. */
    if (st == CML_OK && A != B && rec->state == CML_REC_OK) {
        const char *uuid = cml_gpu_facts(ps->dev[A].gpu)->uuid;
        if (cml_link_counters_before(&ps->nvlink, uuid)) {
            st = cml_peer_use(A);
            if (st == CML_OK)
                st = cml_peer_launch(&a);
            if (st == CML_OK)
                st = cml_peer_sync(A);
            if (st == CML_OK && both)
                st = cml_peer_sync(B);
            if (st == CML_OK)
                cml_link_counters_after(&ps->nvlink, uuid, A, rec,
                                        cml_record_extra(rec, "link_sector_bytes", 0) / a.nsides,
                                        push);
        }
        if (!ps->nvlink.nvml && !ps->nvlink_said) {
            ps->nvlink_said = 1;
            cml_results_diag(ctx->out, CML_DIAG_INFO, ctx->exp->key,
                             "the NVLink counters are not read: %s", ps->nvlink.why);
        }
    }
    if (both)
        cml_peer_events_free(A, B, a.go, a.done);
    (void)cml_peer_use(ps->lab);
    if (st != CML_OK)
        return st == CML_EVERIFY ? CML_OK : st;
    const double ms = rec->timing.median_ms;
    if (ms > 0) {
        cml_record_add_extra(rec, "link_sector_gbs",
                             cml_record_extra(rec, "link_sector_bytes", 0) / (ms * 1e6), "GB/s");
    }
    return CML_OK;
}

/* ---- across the records ----------------------------------------------- */

static const peer_settings *settings_at(cml_sweep *ctx, size_t i)
{
    return cml_sweep_settings_of(ctx, i);
}

/* The measured record of (gpu, peer, op, method, dir) with the headline
 * pattern (16-byte elements, offset 0, stride 1) at depth `ilp` and
 * `passes`, or the fastest of every depth and passes (both 0); NULL when
 * there is none. */
static const cml_record *find_headline(cml_sweep *ctx, const peer_settings *like, int method,
                                       int dir, int64_t ilp, int64_t passes)
{
    const cml_record *best = NULL;
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const peer_settings *s = settings_at(ctx, i);
        const cml_record *r = &ctx->out->items[i];
        if (s && r->state == CML_REC_OK && r->measured && s->gpu == like->gpu &&
            s->peer == like->peer && s->op == like->op && s->method == method && s->dir == dir &&
            headline(s) && (!ilp || s->ilp == ilp) && (!passes || s->passes == passes) &&
            (!best || r->bandwidth_gbs > best->bandwidth_gbs))
            best = r;
    }
    return best;
}

/* Per pair and direction, on the copy engine's record: what an SM copy
 * does beside it, and what both directions at once give. Per strided
 * kernel record: what the link carried, sectors or bytes. */
static void peer_finish(cml_sweep *ctx)
{
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const peer_settings *s = settings_at(ctx, i);
        cml_record *r = &ctx->out->items[i];
        if (!s || r->state != CML_REC_OK || !r->measured || s->gpu == s->peer)
            continue;
        char extra[320] = "";
        if (s->method == METHOD_CE && s->dir == DIR_ONE) {
            const cml_record *sm = find_headline(ctx, s, METHOD_SM, DIR_ONE, 0, 0);
            const cml_record *bi = find_headline(ctx, s, METHOD_CE, DIR_BOTH, 0, 0);
            int used = 0;
            if (sm)
                used += snprintf(extra + used, sizeof extra - (size_t)used,
                                 " The copy engine moves %.1f GB/s, an SM kernel with 16-byte "
                                 "loads %.1f GB/s: %s.",
                                 r->bandwidth_gbs, sm->bandwidth_gbs,
                                 r->bandwidth_gbs >= sm->bandwidth_gbs
                                     ? "the copy engine wins and leaves the SMs free"
                                     : "the kernel wins, at the cost of the SMs it occupies");
            if (bi && used >= 0 && (size_t)used < sizeof extra)
                snprintf(extra + used, sizeof extra - (size_t)used,
                         " Both directions at once: %.1f GB/s in all (%.2fx one direction).",
                         bi->bandwidth_gbs, bi->bandwidth_gbs / r->bandwidth_gbs);
        } else if (s->method != METHOD_CE && !headline(s) && s->dir == DIR_ONE) {
            /* Against the same kernel coalesced: does the link carry the
             * sectors (useful bandwidth falls as sectors grow) or the bytes? */
            const cml_record *h = find_headline(ctx, s, (int)s->method, DIR_ONE, s->ilp, s->passes);
            const double sec = cml_record_extra(r, "link_sector_gbs", -1);
            if (h && sec > 0) {
                const double want = cml_record_extra(r, "link_sector_bytes", 0) /
                                    cml_record_extra(r, "link_useful_bytes", 1);
                snprintf(extra, sizeof extra,
                         " Measured %.1f GB/s used, %.1f GB/s in sectors, against %.1f GB/s "
                         "coalesced: %s.",
                         r->bandwidth_gbs, sec, h->bandwidth_gbs,
                         want > 1.05 && sec > 0.8 * h->bandwidth_gbs
                             ? "the link carries whole sectors, and the unused bytes cost it "
                               "as they cost DRAM"
                         : want > 1.05 ? "fewer bytes cross than whole sectors would need"
                                       : "every sector's bytes are used");
            }
        }
        if (extra[0] && strlen(r->finding) + strlen(extra) < sizeof r->finding)
            strcat(r->finding, extra);
    }
}

static void peer_release(cml_sweep *ctx)
{
    peer_state *ps = ctx->state;
    cml_link_counters_close(&ps->nvlink);
    if (!ctx->plan->gpu)
        return;
    for (int d = 0; d < PEER_MAX_GPUS; d++) {
        peer_gpu *p = &ps->dev[d];
        if (!p->gpu)
            continue;
        (void)cml_peer_use(d);
        cml_gpu_free(p->gpu, &p->src);
        cml_gpu_free(p->gpu, &p->dst);
        if (p->opened)
            cml_gpu_close(p->gpu);
    }
    (void)cml_peer_use(cml_gpu_facts(ctx->plan->gpu)->index);
}

/* validate: the kernels' patterns on the lab's GPU's own memory (the local
 * baseline), where the counters see every access: one GPU is enough, and
 * the levels are the lab's usual ones. Across the link the counters are
 * read too (run peer), but no cache-level model of a peer's memory exists
 * to judge them by. */
static const char *const peer_validate_settings[] = {
    "gpu=0 peer=0 elem=4,16 offset=0,1 stride=1,2,8 ilp=1 passes=1 dir=one method=sm,sm-cg "
    "op=read,write",
    NULL};
static const cml_validate_spec peer_validate = {peer_validate_settings, NULL, 0};

static const cml_chart_spec peer_charts[] = {
    {.shape = CML_PLOT_SWEEP,
     .title = "Link bandwidth vs remote stride",
     .xparam = "stride",
     .xname = "stride",
     .xlabel = "remote elements between neighbouring threads",
     .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER,
     .ylabel = "bytes used per second (GB/s)",
     .yfmt = CML_FMT_NUMBER,
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}},
     .what = "the link's bandwidth",
     .unit = "GB/s",
     .describe = 1},
};

const cml_experiment cml_exp_peer = {
    .key = "peer",
    .number = 23,
    .title = "Memory over the link between GPUs",
    .summary = "a kernel on one GPU reads or writes another's memory (NVLink or PCIe peer "
               "access), beside the copy engine, one direction and both",
    .doc = "docs/experiments/peer.md",
    .options = peer_params,
    .noptions = CML_COUNT(peer_params),
    .settings_size = sizeof(peer_settings),
    .state_size = sizeof(peer_state),
    .tour = "elem=16 offset=0 stride=1 method=sm,ce",
    .keep = peer_keep,
    .variant = peer_variant,
    .measure = peer_measure,
    .finish = peer_finish,
    .release = peer_release,
    .charts = peer_charts,
    .ncharts = CML_COUNT(peer_charts),
    .validate = &peer_validate,
};
