/*
 * Experiment 19: the memory hierarchy itself. Bandwidth and latency against
 * the working set, from a few KiB (L1) past L2 to GiBs (DRAM), with the
 * level the model says serves each size and the level the hardware counters
 * say did (docs/experiments/hierarchy.md).
 *
 * Bandwidth (op = read, write, copy): every SM walks the whole working set;
 * a launch walks it many times when it is small (every load after the first
 * pass can hit), once when it is large (hierarchy_body.h says the walk).
 * The loads are inline PTX through ca, cg or nc. Latency (op = chase): a
 * warp on every SM follows a cycle of pointers through the working set
 * (random order or address order), each from its own place in the cycle,
 * timed inside the kernel with clock64 and %globaltimer; the record gives
 * the median over the SMs and the spread.
 *
 * The model (hierarchy_model.c) traces the kernels' bodies as their mirrors
 * and names the level from the device's L1 carve-out and L2 size. After the sweep
 * (finish) the counters read for each record give the measured L1 hit
 * rate, L2 hit rate and DRAM bytes per byte asked for, and the finding says
 * whether they agree with the model.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "lab/common.h"
#include "lab/counters_pass.h"

#define GIB (1024ull * 1024ull * 1024ull)

static const char *const hier_ops[] = {"read", "write", "copy", "chase", NULL};
static const char *const hier_paths[] = {"ca", "cg", "nc", NULL};
static const char *const hier_patterns[] = {"random", "stride", NULL};
/* The reads' two ways of sharing the set among blocks (l2-mode, in the
 * order of cml_hier_read_walk's choice). */
static const char *const hier_modes[] = {"slice", "shared", NULL};
enum { MODE_SLICE = 0, MODE_SHARED };

typedef struct hier_settings {
    int64_t ws, hops, walk, hop, pattern, path, mode, op, tlb;
} hier_settings;

/* The working set first (the charts' x axis), grouped by load path within
 * operation; the chase's own options apply to it alone. */
static const cml_param_def hier_params[] = {
    {"ws", "working set in bytes, walked by every SM: read and write a multiple of 1K from 16K, "
           "copy of 2K from 32K (half source, half destination), chase a multiple of --hop",
     1024, (int64_t)1 << 36, "32K,64K,128K,192K,256K,512K,4M,16M,32M,48M,96M,1G", NULL, 0,
     CML_FIELD(hier_settings, ws), NULL},
    {"hops", "chase: dependent loads per launch (0: by the level, 16K for L1, 4K for L2, 2K "
             "beyond)",
     CML_HIER_STEP, (int64_t)1 << 24, "0", NULL,
     CML_PARAM_POW2 | CML_PARAM_NOVARIANT | CML_PARAM_OR_ZERO, CML_FIELD(hier_settings, hops),
     "op=chase"},
    {"walk", "read, write, copy: bytes each array is walked per launch (0: by the level, about "
             "half a millisecond's worth on an H100)",
     0, (int64_t)1 << 40, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(hier_settings, walk), NULL},
    {"hop", "chase: bytes from one pointer to the next in memory", 8, 128, "64", NULL,
     CML_PARAM_POW2, CML_FIELD(hier_settings, hop), "op=chase"},
    {"pattern", "chase order: random = one random cycle through every pointer, stride = "
                "address order",
     0, 0, "random", hier_patterns, 0, CML_FIELD(hier_settings, pattern), "op=chase"},
    {"path", "loads: ca = L1 and L2, cg = L2 only, nc = read-only path", 0, 0, "ca,cg,nc",
     hier_paths, 0, CML_FIELD(hier_settings, path), "op=read,chase"},
    {"l2-mode", "read: slice = gpu-l2-cache's method (block b of 1024 threads reads chunk b "
                "mod C, 16 KiB pieces C apart; ws a multiple of 16K), shared = every block "
                "reads all of it (the grid partitioned from the L2/DRAM edge on)",
     0, 0, "slice,shared", hier_modes, 0, CML_FIELD(hier_settings, mode), "op=read"},
    {"op", "read, write, copy: bandwidth; chase: latency of dependent loads", 0, 0,
     "read,write,copy,chase", hier_ops, 0, CML_FIELD(hier_settings, op), NULL},
    {"tlb-reach", "bytes the model assumes the TLBs map, for random chases (0: none assumed)", 0,
     (int64_t)1 << 40, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(hier_settings, tlb), NULL},
};

#define SEED_A 0x41E7000000000001ull
#define WRITE_KEY 0x5A17C3E9u

/* Device buffers the experiment holds between points. */
enum { SLOT_A = 0, SLOT_C, SLOT_OUT, SLOT_TABLE, SLOT_CURSOR, SLOT_CHASE_OUT, SLOT_HIST, NSLOTS };

typedef struct hier_state {
    cml_dbuf buf[NSLOTS];
    uint64_t seed[NSLOTS]; /* filled with this seed (0: not filled) */
} hier_state;

/* Finding text, appended to. */
static void add_text(cml_record *rec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_text(cml_record *rec, const char *fmt, ...)
{
    size_t used = strlen(rec->finding);
    if (used + 1 >= sizeof rec->finding)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rec->finding + used, sizeof rec->finding - used, fmt, ap);
    va_end(ap);
}

static void hier_caps(const cml_plan *plan, const hier_settings *s, cml_hier_caps *caps)
{
    cml_hier_caps_of(plan ? plan->dev : NULL, (uint64_t)s->tlb, caps);
}

/* Bytes each array is walked per launch, by the level that should serve
 * it: long enough that a launch lasts about half a millisecond on an H100
 * (L1 ~30 TB/s, L2 ~10 TB/s, DRAM ~3 TB/s), a quarter of it in quick runs. */
static uint64_t bw_target(cml_hier_level level, int quick)
{
    uint64_t t = level <= CML_HIER_L1_L2 ? 16 * GIB : level <= CML_HIER_L2_DRAM ? 4 * GIB : GIB;
    return quick ? t / 4 : t;
}

/* Writes and copies always slice (no two blocks store to one line); reads
 * by their l2-mode. */
static void bw_plan(const cml_plan *plan, const hier_settings *s, const cml_hier_caps *caps,
                    cml_hier_level level, cml_hier_plan *p)
{
    const int walk = s->op != CML_HIER_READ || s->mode == MODE_SLICE ? CML_HIER_SLICE
                     : level >= CML_HIER_L2_DRAM                     ? CML_HIER_PARTITION
                                                                     : CML_HIER_WHOLE;
    cml_hier_plan_bw((uint64_t)s->ws, (int)s->op, caps->sms, cml_exp_threads_per_sm(plan),
                     s->walk ? (uint64_t)s->walk : bw_target(level, plan && plan->quick), walk,
                     p);
}

static void chase_perm(const hier_settings *s, cml_hier_perm *q)
{
    cml_hier_chase_perm(q, (uint64_t)s->ws, (uint64_t)s->hop, s->pattern == 0);
}

/* "it fits the 228.0 KiB of L1 per SM", and the like: why the level. */
static void level_reason(char *buf, size_t len, const cml_hier_caps *c, cml_hier_level level,
                         int op, int path, uint64_t ws)
{
    char l1[32], l2[32];
    cml_fmt_bytes(l1, sizeof l1, (double)c->l1_bytes);
    cml_fmt_bytes(l2, sizeof l2, (double)c->l2_bytes);
    const char *no_l1 = op == CML_HIER_WRITE  ? "stores go through to L2"
                        : op == CML_HIER_COPY ? "its stores go through to L2"
                        : path == CML_HIER_CG ? "cg skips L1"
                                              : NULL;
    switch (level) {
    case CML_HIER_L1:
        snprintf(buf, len, "it fits the %s of L1 per SM", l1);
        break;
    case CML_HIER_L1_L2:
        snprintf(buf, len, "it is %.2fx the %s of L1 per SM, at its edge", (double)ws /
                 (double)c->l1_bytes, l1);
        break;
    case CML_HIER_L2:
        snprintf(buf, len, "%s and it fits the %s L2", no_l1 ? no_l1 : "it exceeds L1", l2);
        break;
    case CML_HIER_L2_DRAM:
        snprintf(buf, len, "it is %.2fx the %s L2, at its edge", (double)ws / (double)c->l2_bytes,
                 l2);
        break;
    case CML_HIER_DRAM_TLB:
        snprintf(buf, len, "it is %.1fx L2 and beyond the TLB reach assumed", (double)ws /
                 (double)c->l2_bytes);
        break;
    default:
        snprintf(buf, len, "it is %.1fx the %s L2", (double)ws / (double)c->l2_bytes, l2);
        break;
    }
}

static void add_level_extras(cml_record *rec, const cml_hier_caps *caps, cml_hier_level level)
{
    cml_record_add_extra(rec, "l1_bytes", (double)caps->l1_bytes, "B");
    cml_record_add_extra(rec, "l2_bytes", (double)caps->l2_bytes, "B");
    cml_record_add_extra(rec, "level_pred", cml_hier_level_code(level), "");
}

/* Can op walk a working set of ws bytes (chase: pointers hop bytes
 * apart)? 1 if so; else 0 with what it needs in `needs`. The variants
 * fail a record by it, and the row's check refuses the command line by it. */
static int ws_fits(uint64_t ws, int op, int mode, uint64_t hop, char *needs, size_t len)
{
    if (op == CML_HIER_CHASE) {
        if (hop && ws % hop == 0 && ws / hop >= 2)
            return 1;
        snprintf(needs, len, "the chase needs at least two pointers %llu bytes apart (a "
                 "multiple of --hop %llu)", (unsigned long long)hop, (unsigned long long)hop);
        return 0;
    }
    cml_hier_plan p;
    cml_hier_plan_bw(ws, op, 1, CML_HIER_BLOCK, 1, 0, &p);
    if (p.rows && op == CML_HIER_READ && mode == MODE_SLICE) {
        cml_hier_plan_bw(ws, op, 1, CML_HIER_BLOCK, 1, CML_HIER_SLICE, &p);
        if (!p.rows) {
            snprintf(needs, len, "a slice read (--l2-mode slice) needs a multiple of %u bytes "
                     "(gpu-l2-cache's pieces of 16 KiB)", CML_HIER_ROW_BYTES * CML_HIER_STEP);
            return 0;
        }
    }
    if (p.rows)
        return 1;
    const unsigned arrays = op == CML_HIER_COPY ? 2 : 1;
    snprintf(needs, len, "%s needs a multiple of %u bytes, %u at least (16 distinct rows per "
             "unrolled step)",
             hier_ops[op], arrays * CML_HIER_ROW_BYTES,
             arrays * CML_HIER_ROW_BYTES * CML_HIER_STEP);
    return 0;
}

static cml_status bw_variant(const cml_plan *plan, const hier_settings *s,
                             const cml_hier_caps *caps, cml_record *rec)
{
    const int op = (int)s->op, path = (int)s->path;
    const uint64_t ws = (uint64_t)s->ws;
    const cml_hier_level level = cml_hier_predict(caps, op, path, 0, ws);
    cml_hier_plan p;
    bw_plan(plan, s, caps, level, &p);
    if (!p.rows) {
        /* (the row's check refuses such a size on the command line) */
        char needs[200] = "";
        ws_fits(ws, op, (int)s->mode, 0, needs, sizeof needs);
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "ws=%llu: %s", (unsigned long long)ws, needs);
        return CML_OK;
    }
    /* What the walk moves: the read's one sum per thread (1 KiB a block)
     * is no part of the bandwidth, as gpu-l2-cache counts none of its
     * output, so a read is of the read class (core/peak_class.h). */
    const uint64_t walked = (uint64_t)p.grid * p.per_block * CML_HIER_ROW_BYTES;
    rec->bytes_read = op == CML_HIER_WRITE ? 0 : walked;
    rec->bytes_written = op == CML_HIER_READ ? 0 : walked;
    add_level_extras(rec, caps, level);
    cml_record_add_extra(rec, "passes", (double)walked / (double)(p.rows * CML_HIER_ROW_BYTES),
                         "x");
    if (p.chunk) {
        cml_record_add_extra(rec, "chunks", (double)p.parts, "");
        cml_record_add_extra(rec, "chunk_bytes", (double)(p.chunk * CML_HIER_STEP *
                                                          CML_HIER_ROW_BYTES), "B");
    } else if (p.parts) {
        cml_record_add_extra(rec, "parts", (double)p.parts, "");
    }
    cml_status st = cml_hier_trace_bw(rec, &p, op, path);
    if (st == CML_OK)
        st = cml_hier_model_levels(rec, &p, caps, op, path);
    if (st)
        return st;
    char w[32], why[160], who[160];
    cml_fmt_bytes(w, sizeof w, (double)ws);
    level_reason(why, sizeof why, caps, level, op, path, ws);
    if (p.chunk)
        snprintf(who, sizeof who, "%u blocks of %u threads, block b on chunk b mod %llu (%llu "
                 "pieces of 16 KiB, %llu KiB apart: gpu-l2-cache's geometry),", (unsigned)p.grid,
                 CML_HIER_CHUNK_BLOCK, (unsigned long long)p.parts, (unsigned long long)p.chunk,
                 (unsigned long long)(p.parts * CML_HIER_STEP));
    else if (p.parts)
        snprintf(who, sizeof who, "%u blocks, each on a part of its own (%llu parts of %llu "
                 "KiB),", (unsigned)p.grid, (unsigned long long)p.parts,
                 (unsigned long long)(p.rows / p.parts));
    else
        snprintf(who, sizeof who, "%s", p.stream ? "The grid, partitioned (each pass every "
                                                   "byte once),"
                                                 : "Every SM");
    static const char *const verbs[2][3] = {{"reads", "writes", "copies"},
                                            {"read", "write", "copy"}};
    cml_record_finding(rec, "%s %s all %s %.0fx per launch%s%s: the model says %s, as %s%s.", who,
                       verbs[p.parts != 0][op],
                       w, (double)walked / (double)(p.rows * CML_HIER_ROW_BYTES),
                       op == CML_HIER_READ ? " through " : "",
                       op == CML_HIER_READ ? hier_paths[path] : "", cml_hier_level_name(level),
                       why, caps->from_device ? "" : " (an H100's sizes: no device read)");
    return CML_OK;
}

/* Hops per launch by level: a launch of a few tenths of a millisecond on an
 * H100 (L1 ~20 ns, L2 ~150 ns, DRAM ~600 ns a hop), and at L1 sizes at least
 * four walks of the whole table, which lets the counters of one launch show
 * the warm level. */
static uint64_t chase_hops(cml_hier_level level)
{
    return level <= CML_HIER_L1_L2 ? 16384 : level <= CML_HIER_L2 ? 4096 : 2048;
}

static cml_status chase_variant(hier_settings *s, const cml_hier_caps *caps, uint32_t warps,
                                cml_record *rec)
{
    const uint64_t ws = (uint64_t)s->ws, hop = (uint64_t)s->hop;
    const int path = (int)s->path, random = s->pattern == 0;
    char needs[200];
    if (!ws_fits(ws, CML_HIER_CHASE, -1, hop, needs, sizeof needs)) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "ws=%llu: %s", (unsigned long long)ws, needs);
        return CML_OK;
    }
    const cml_hier_level level = cml_hier_predict(caps, CML_HIER_CHASE, path, random, ws);
    if (s->hops == 0)
        s->hops = (int64_t)chase_hops(level);
    cml_hier_perm q;
    chase_perm(s, &q);
    rec->bytes_read = 8 * (CML_HIER_CHASE_WALKS * (uint64_t)s->hops + 1) * warps;
    rec->bytes_written = 56 * (uint64_t)warps;
    add_level_extras(rec, caps, level);
    cml_status st = cml_hier_trace_chase(rec, &q, hop, CML_HIER_CHASE_WALKS * (uint64_t)s->hops,
                                         path, warps);
    if (st == CML_OK)
        st = cml_hier_chase_levels(rec, ws, hop, CML_HIER_CHASE_WALKS * (uint64_t)s->hops, path,
                                   random, warps, caps);
    if (st)
        return st;
    char w[32], why[160];
    cml_fmt_bytes(w, sizeof w, (double)ws);
    level_reason(why, sizeof why, caps, level, CML_HIER_CHASE, path, ws);
    cml_record_finding(rec, "A warp on each of %u SMs follows %lld pointers %llu B apart in %s "
                            "order through %s via %s: the model says %s, as %s%s; each load "
                            "waits for the one before.",
                       (unsigned)warps, (long long)s->hops, (unsigned long long)hop, hier_patterns[s->pattern], w,
                       hier_paths[path], cml_hier_level_name(level), why,
                       caps->from_device ? "" : " (an H100's sizes: no device read)");
    return CML_OK;
}

/* A chasing warp on each SM (hierarchy_body.h, cml_hier_chase_args). */
static uint32_t chase_warps(const cml_plan *plan)
{
    const unsigned sms = cml_exp_sm_count(plan);
    return sms < CML_HIER_CHASE_MAX_WARPS ? sms : CML_HIER_CHASE_MAX_WARPS;
}

static cml_status hier_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    hier_settings *s = vs;
    cml_hier_caps caps;
    hier_caps(ctx->plan, s, &caps);
    if (s->op == CML_HIER_CHASE)
        return chase_variant(s, &caps, chase_warps(ctx->plan), rec);
    return bw_variant(ctx->plan, s, &caps, rec);
}

/* ---- the GPU side ---------------------------------------------------------- */

typedef struct buf_need {
    size_t bytes;
    uint64_t seed;
    int fresh; /* a new allocation even when one of that size is held */
} buf_need;

/* What a point needs, and a fraction of the free memory it may take. */
#define FREE_FRACTION 0.8

/* Give back what the point does not need as it is, then take what it
 * needs: the frees first (a free lets the deferred counters pass replay
 * what used the buffer), then a check against the free memory, which waives
 * the point with the figures when it does not fit. */
static cml_status take_buffers(cml_sweep *ctx, cml_record *rec, const buf_need need[NSLOTS])
{
    hier_state *g = ctx->state;
    cml_gpu *gpu = ctx->plan->gpu;
    size_t want = 0;
    for (int k = 0; k < NSLOTS; k++) {
        int keep = g->buf[k].ptr && !need[k].fresh && g->buf[k].bytes == need[k].bytes &&
                   g->seed[k] == need[k].seed;
        if (!keep) {
            cml_gpu_free(gpu, &g->buf[k]);
            g->seed[k] = 0;
            want += need[k].bytes;
        }
    }
    size_t free_b = 0, total_b = 0;
    cml_status st = cml_gpu_mem_info(gpu, &free_b, &total_b);
    if (st)
        return cml_exp_fail(ctx->plan, rec, st);
    if ((double)want > FREE_FRACTION * (double)free_b) {
        char a[32], f[32];
        cml_fmt_bytes(a, sizeof a, (double)want);
        cml_fmt_bytes(f, sizeof f, (double)free_b);
        cml_sweep_waive(ctx, rec, "needs %s of device memory, more than %.0f%% of the %s free", a,
                        100 * FREE_FRACTION, f);
        return CML_OK;
    }
    for (int k = 0; k < NSLOTS; k++) {
        if (g->buf[k].ptr || need[k].bytes == 0)
            continue;
        st = cml_gpu_alloc(gpu, &g->buf[k], need[k].bytes);
        if (!st && need[k].seed)
            st = cml_gpu_fill_f32(gpu, &g->buf[k], need[k].bytes / sizeof(float), need[k].seed);
        if (st) {
            cml_gpu_free(gpu, &g->buf[k]);
            return cml_exp_fail(ctx->plan, rec, st);
        }
        g->seed[k] = need[k].seed;
    }
    return CML_OK;
}

/* The sliced read's timed launches store no sums (as gpu-l2-cache stores
 * none): its check runs one more launch of the same kernel that stores
 * them, into the poisoned out, and checks that: the grid's first blocks,
 * every chunk twice at least (all of a grid of 4096 blocks or fewer), so
 * that out stays small beside 200,000 blocks' 800 MB of sums. */
static uint32_t check_grid(const cml_hier_plan *p)
{
    const uint64_t want = p->parts * 2 > 4096 ? p->parts * 2 : 4096;
    return p->chunk && want < p->grid ? (uint32_t)want : p->grid;
}

static cml_status bw_check_cb(void *vctx, unsigned long long *d_counters)
{
    cml_hier_bw_args a = *(const cml_hier_bw_args *)vctx;
    if (a.op == CML_HIER_READ && !a.sums) {
        cml_hier_plan p = {.grid = a.grid, .parts = a.parts, .chunk = a.chunk};
        a.grid = check_grid(&p);
        a.sums = 1;
        cml_status st = cml_hier_bw_launch(&a);
        if (st != CML_OK)
            return st;
    }
    return cml_hier_bw_check(&a, SEED_A, d_counters);
}

static cml_status bw_measure(cml_sweep *ctx, const hier_settings *s, cml_record *rec)
{
    hier_state *g = ctx->state;
    const int op = (int)s->op, path = (int)s->path;
    cml_hier_caps caps;
    hier_caps(ctx->plan, s, &caps);
    cml_hier_plan p;
    bw_plan(ctx->plan, s, &caps, cml_hier_predict(&caps, op, path, 0, (uint64_t)s->ws), &p);
    const size_t array = (size_t)p.rows * CML_HIER_ROW_BYTES;
    buf_need need[NSLOTS];
    memset(need, 0, sizeof need);
    if (op != CML_HIER_WRITE)
        need[SLOT_A] = (buf_need){array, SEED_A, 0};
    if (op != CML_HIER_READ)
        need[SLOT_C] = (buf_need){array, 0, 0};
    else
        need[SLOT_OUT] = (buf_need){(size_t)check_grid(&p) * cml_hier_bw_block(op, p.chunk) * 4,
                                    0, 0};
    cml_status st = take_buffers(ctx, rec, need);
    if (st || rec->state != CML_REC_OK)
        return st;
    cml_hier_bw_args a = {.A = g->buf[SLOT_A].ptr, .C = g->buf[SLOT_C].ptr,
                          .out = g->buf[SLOT_OUT].ptr, .rows = p.rows, .per_block = p.per_block,
                          .grid = p.grid, .key = WRITE_KEY, .op = op, .path = path,
                          .stream = p.stream, .parts = p.parts, .chunk = p.chunk,
                          .sums = op == CML_HIER_READ && !p.chunk};
    cml_dbuf *out = op == CML_HIER_READ ? &g->buf[SLOT_OUT] : &g->buf[SLOT_C];
    st = cml_exp_measure(ctx->plan, rec, out, cml_hier_bw_launch, &a,
                         cml_hier_bw_kernel(op, path, p.rows, p.stream, p.chunk, p.per_block),
                         cml_hier_bw_block(op, p.chunk), 0, bw_check_cb, &a);
    if (st == CML_OK)
        add_text(rec, " Measured %.0f GB/s.", rec->bandwidth_gbs);
    return st;
}

/* The chase's check: on the host, for every warp, from its last launch's
 * start pointer, where K hops must end (sigma^-1 of the start slot, K more
 * positions), and that it timed its hops; then what it measured. */
typedef struct chase_check_ctx {
    const cml_plan *plan;
    const cml_dbuf *table, *out;
    const cml_hier_perm *perm;
    uint64_t hop, hops;
    uint32_t warps;
    uint64_t *got;      /* CML_HIER_CHASE_OUT_WORDS a warp, as the last launch left them */
} chase_check_ctx;

static int chase_warp_wrong(const chase_check_ctx *c, const uint64_t *w)
{
    const uint64_t base = (uint64_t)(uintptr_t)c->table->ptr, span = c->perm->m * c->hop;
    for (int k = 0; k < 2; k++)
        if (w[k] < base || w[k] - base >= span || (w[k] - base) % c->hop != 0)
            return 1;
    const uint64_t pos = cml_hier_perm_invert(c->perm, (w[0] - base) / c->hop);
    const uint64_t walked = CML_HIER_CHASE_WALKS * c->hops;
    const uint64_t want = cml_hier_perm_apply(c->perm, (pos + walked % c->perm->m) % c->perm->m);
    /* no cycles: the timed loop did not run */
    return (w[1] - base) / c->hop != want || w[2] == 0;
}

static cml_status chase_check_cb(void *vctx, unsigned long long *d_counters)
{
    chase_check_ctx *c = vctx;
    cml_gpu *gpu = c->plan->gpu;
    cml_status st = cml_gpu_download(gpu, c->got, c->out,
                                     (size_t)c->warps * CML_HIER_CHASE_OUT_WORDS * 8);
    if (st)
        return st;
    unsigned long long res[2] = {0, ~0ull};
    for (uint32_t b = 0; b < c->warps; b++)
        if (chase_warp_wrong(c, c->got + (size_t)b * CML_HIER_CHASE_OUT_WORDS)) {
            res[0]++;
            if (res[1] == ~0ull)
                res[1] = b;
        }
    cml_dbuf view = {d_counters, sizeof res, 0};
    return cml_gpu_upload(gpu, &view, res, sizeof res);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* What the warps measured: cycles and ns a load (the median over the
 * warps, the cycles' fastest and slowest), the SMs they ran on. */
static void chase_figures(cml_record *rec, const chase_check_ctx *c)
{
    const uint32_t n = c->warps;
    double *cyc = malloc(3 * (size_t)n * sizeof *cyc);
    if (!cyc)
        return;
    double *ns = cyc + n, *sm = ns + n;
    const double k = (double)c->hops;
    for (uint32_t b = 0; b < n; b++) {
        const uint64_t *w = c->got + (size_t)b * CML_HIER_CHASE_OUT_WORDS;
        cyc[b] = (double)w[2] / k;
        ns[b] = (double)w[3] / k;
        sm[b] = (double)w[4];
    }
    qsort(sm, n, sizeof *sm, cmp_double);
    unsigned sms = 0;
    for (uint32_t b = 0; b < n; b++)
        sms += b == 0 || sm[b] != sm[b - 1];
    const double mc = median(cyc, n), mn = median(ns, n); /* sorts cyc and ns */
    cml_record_add_extra(rec, "cycles_per_load", mc, "cycles");
    cml_record_add_extra(rec, "ns_per_load", mn, "ns");
    cml_record_add_extra(rec, "cycles_min", cyc[0], "cycles");
    cml_record_add_extra(rec, "cycles_max", cyc[n - 1], "cycles");
    cml_record_add_extra(rec, "sms", sms, "");
    if (mn > 0)
        cml_record_add_extra(rec, "sm_clock", 1e3 * mc / mn, "MHz");
    add_text(rec, " Measured %.1f cycles (%.1f ns) per load: the median of %u warps on %u SMs, "
                  "%.1f to %.1f cycles from SM to SM.",
             mc, mn, (unsigned)n, sms, cyc[0], cyc[n - 1]);
    free(cyc);
}

/*
 * Near and far (docs/experiments/hierarchy.md): one more launch of the
 * chase from where it stopped, each hop timed on its own, the warps' bins
 * summed; the groups its latencies fall in (each bin 0.1% of the hops at
 * least, a group ending at 4 bins = 32 cycles below that), those of 5% of
 * the hops or more reported: with two or more, the lowest is the nearer
 * (for an SM, the lines its own L2 half holds), the highest the farther.
 * Timing each hop adds cycles (33-42 on an H200: the mean of the bins
 * against the untimed chase's median), taken off every group's median.
 */
#define GROUP_FLOOR 0.001
#define GROUP_GAP 4u
#define GROUP_SHARE 0.05
#define GROUPS_MAX 8u

static cml_status chase_groups(cml_sweep *ctx, const hier_settings *s, cml_record *rec,
                               uint32_t warps)
{
    hier_state *g = ctx->state;
    const size_t n = (size_t)warps * CML_HIER_HIST_BINS;
    uint32_t *got = malloc(n * sizeof *got);
    uint64_t *bins = calloc(CML_HIER_HIST_BINS, sizeof *bins);
    cml_status st = got && bins ? CML_OK : CML_ENOMEM;
    const cml_hier_hist_args a = {g->buf[SLOT_CURSOR].ptr, g->buf[SLOT_HIST].ptr,
                                  (uint64_t)s->hops, warps, (int)s->path};
    if (st == CML_OK)
        st = cml_hier_chase_hist_launch(&a);
    if (st == CML_OK)
        st = cml_gpu_download(ctx->plan->gpu, got, &g->buf[SLOT_HIST], n * sizeof *got);
    if (st != CML_OK) {
        free(got);
        free(bins);
        return cml_exp_fail(ctx->plan, rec, st);
    }
    uint64_t total = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        bins[i % CML_HIER_HIST_BINS] += got[i];
        total += got[i];
        sum += got[i] * ((double)(i % CML_HIER_HIST_BINS) + 0.5) * CML_HIER_HIST_CYCLES;
    }
    free(got);
    cml_hier_group gr[GROUPS_MAX];
    const unsigned ng = cml_hier_latency_groups(bins, CML_HIER_HIST_BINS, GROUP_FLOOR, GROUP_GAP,
                                                gr, GROUPS_MAX);
    free(bins);
    const double plain = cml_record_extra(rec, "cycles_per_load", NAN);
    if (total != (uint64_t)warps * (uint64_t)s->hops) {
        cml_record_note(rec, "the per-hop chase counted %llu hops of %llu: no groups",
                        (unsigned long long)total,
                        (unsigned long long)((uint64_t)warps * (uint64_t)s->hops));
        return CML_OK;
    }
    if (!isfinite(plain)) {
        cml_record_note(rec, "no cycles per load to set the per-hop chase against: no groups");
        return CML_OK;
    }
    const double extra = sum / (double)total - plain;
    unsigned kept[GROUPS_MAX], nk = 0;
    for (unsigned i = 0; i < ng; i++)
        if ((double)gr[i].hops >= GROUP_SHARE * (double)total)
            kept[nk++] = i;
    if (nk < 2) {
        add_text(rec, " Its hops, each timed, fall in one group (timing a hop added %.1f "
                      "cycles).",
                 extra);
        return CML_OK;
    }
    const cml_hier_group *nr = &gr[kept[0]], *fr = &gr[kept[nk - 1]];
    const double near = ((double)nr->median + 0.5) * CML_HIER_HIST_CYCLES - extra;
    const double far = ((double)fr->median + 0.5) * CML_HIER_HIST_CYCLES - extra;
    const double ns = 100.0 * (double)nr->hops / (double)total;
    const double fs = 100.0 * (double)fr->hops / (double)total;
    /* What the groups are, by the level the model puts the size at: below
     * L2 an L1 hit and a miss differ too, so no halves are named there. */
    const double level = cml_record_extra(rec, "level_pred", 0);
    const char *what = level < 2.0   ? "L1's hits and what misses it, not L2's halves"
                       : level < 2.5 ? "the near and far halves of L2"
                       : level < 3.0 ? "L2's near and far halves and DRAM, at L2's edge"
                                     : "DRAM through the near or the far half of L2";
    /* Three numbers: a chase record holds 9 extras and the counters' verdict
     * adds 4, of the 16 a record has (core/record.h); the rest is said. */
    if (level == 2.0 || level >= 3.0) { /* (at L2's edge the groups mix L2 and DRAM) */
        cml_record_add_extra(rec, "near_cycles", near, "cycles");
        cml_record_add_extra(rec, "far_cycles", far, "cycles");
        cml_record_add_extra(rec, "far_share", fs, "%");
    }
    add_text(rec, " Its hops, each timed, fall in %u groups: the fastest %.0f%% at %.0f cycles, "
                  "the slowest %.0f%% at %.0f (medians; timing a hop added %.1f cycles, taken "
                  "off): %s.",
             nk, ns, near, fs, far, extra, what);
    return CML_OK;
}

static cml_status chase_measure(cml_sweep *ctx, const hier_settings *s, cml_record *rec)
{
    hier_state *g = ctx->state;
    cml_hier_perm q;
    chase_perm(s, &q);
    const uint32_t warps = chase_warps(ctx->plan);
    buf_need need[NSLOTS];
    memset(need, 0, sizeof need);
    /* The kernel reads its addresses from the cursor and the table, and
     * the counters pass replays it later (lab/counters_pass.h): both fresh,
     * so a replay walks its own point's cycle (from where the timed launches
     * stopped: the same figures). A shared cursor sent every replay through
     * the last point's table (validate: 32 KiB chases 0 L1 hits, 277 MB DRAM). */
    need[SLOT_TABLE] = (buf_need){(size_t)s->ws, 0, 1};
    need[SLOT_CURSOR] = (buf_need){8 * (size_t)warps, 0, 1};
    need[SLOT_CHASE_OUT] = (buf_need){8 * CML_HIER_CHASE_OUT_WORDS * (size_t)warps, 0, 0};
    need[SLOT_HIST] = (buf_need){4 * CML_HIER_HIST_BINS * (size_t)warps, 0, 0};
    cml_status st = take_buffers(ctx, rec, need);
    if (st || rec->state != CML_REC_OK)
        return st;
    const uint64_t hop = (uint64_t)s->hop;
    uint64_t *table = g->buf[SLOT_TABLE].ptr;
    st = cml_hier_chase_build(table, &q, hop / 8);
    uint64_t *start = calloc((CML_HIER_CHASE_OUT_WORDS + 1) * (size_t)warps, 8);
    if (!start)
        return cml_exp_fail(ctx->plan, rec, CML_ENOMEM);
    for (uint32_t b = 0; b < warps; b++)
        start[b] = (uint64_t)(uintptr_t)table + hop * cml_hier_chase_start(&q, b, warps);
    if (!st)
        st = cml_gpu_upload(ctx->plan->gpu, &g->buf[SLOT_CURSOR], start, 8 * (size_t)warps);
    if (st) {
        free(start);
        return cml_exp_fail(ctx->plan, rec, st);
    }
    cml_hier_chase_args a = {.cursor = g->buf[SLOT_CURSOR].ptr, .out = g->buf[SLOT_CHASE_OUT].ptr,
                             .hops = (uint64_t)s->hops, .warps = warps, .path = (int)s->path};
    chase_check_ctx c = {ctx->plan, &g->buf[SLOT_TABLE], &g->buf[SLOT_CHASE_OUT], &q, hop,
                         (uint64_t)s->hops, warps, start + warps};
    st = cml_exp_measure(ctx->plan, rec, &g->buf[SLOT_CHASE_OUT], cml_hier_chase_launch, &a,
                         cml_hier_chase_kernel((int)s->path), CML_WARP_SIZE, 0, chase_check_cb,
                         &c);
    /* A latency: no share of any bandwidth peak (its bytes are a few
     * pointers; the table shows its cycles and ns per load instead). */
    if (st == CML_OK && rec->state == CML_REC_OK && rec->measured) {
        chase_figures(rec, &c);
        cml_record_set_peak(rec, NULL);
        st = chase_groups(ctx, s, rec, warps);
    }
    free(start);
    return st;
}

static cml_status hier_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const hier_settings *s = vs;
    if (s->op == CML_HIER_CHASE)
        return chase_measure(ctx, s, rec);
    return bw_measure(ctx, s, rec);
}

/* ---- after the sweep: what the counters say --------------------------------- */

static void counters_verdict(cml_record *rec, const hier_settings *s)
{
    cml_hier_counts c = {
        cml_record_counter_value(rec, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
        cml_record_counter_value(rec, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"),
        cml_record_counter_value(rec, "lts__t_sectors_srcunit_tex_op_read.sum"),
        cml_record_counter_value(rec, "dram__bytes_read.sum"),
        cml_record_counter_value(rec, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
        cml_record_counter_value(rec, "dram__bytes_write.sum"),
    };
    if (!isfinite(c.ld_sectors) || !isfinite(c.dram_read))
        return;
    if (!isfinite(c.st_sectors))
        c.st_sectors = 0;
    if (!isfinite(c.dram_write))
        c.dram_write = 0;
    cml_hier_measured m;
    cml_hier_measure_counts(&c, &m);
    if (isfinite(m.l1_hit))
        cml_record_add_extra(rec, "l1_hit", 100.0 * m.l1_hit, "%");
    if (isfinite(m.l2_hit))
        cml_record_add_extra(rec, "l2_hit", 100.0 * m.l2_hit, "%");
    cml_record_add_extra(rec, "dram_per_byte", m.dram_per_byte, "x");
    /* A chase's counters come from one launch after L2 was flushed: they
     * show the warm level only when its hops walk the table several times. */
    if (s->op == CML_HIER_CHASE && (uint64_t)s->hops < 4 * (uint64_t)(s->ws / s->hop)) {
        add_text(rec, " Counters: one cold launch visits each pointer at most %.1fx, too few to "
                      "show the level.",
                 (double)s->hops / (double)(s->ws / s->hop));
        return;
    }
    cml_hier_level got = cml_hier_level_measured(&m, (int)s->op);
    if (got >= CML_HIER_LEVEL_COUNT)
        return;
    cml_record_add_extra(rec, "level_meas", cml_hier_level_code(got), "");
    double want_code = cml_record_extra(rec, "level_pred", NAN);
    cml_hier_level want = CML_HIER_LEVEL_COUNT;
    for (int l = 0; l < CML_HIER_LEVEL_COUNT; l++)
        if (cml_hier_level_code((cml_hier_level)l) == want_code)
            want = (cml_hier_level)l;
    char l1[24] = "";
    if (isfinite(m.l1_hit) && s->op != CML_HIER_WRITE)
        snprintf(l1, sizeof l1, "L1 hit %.0f%%, ", 100.0 * m.l1_hit);
    add_text(rec, " Counters: %sDRAM %.2f B/B: %s, %s.", l1, m.dram_per_byte,
             cml_hier_level_name(got),
             cml_hier_levels_agree(want, got) ? "as predicted" : "NOT as predicted");
}

/* The plateaus of one series: the median of its records at each level,
 * one line in the run's diagnostics (what a comparison with other
 * benchmarks reads). */
static int same_series(const hier_settings *a, const hier_settings *b)
{
    return a->op == b->op && a->path == b->path && a->pattern == b->pattern && a->hop == b->hop;
}


static void plateaus(cml_sweep *ctx, size_t first)
{
    const hier_settings *s0 = cml_sweep_settings_of(ctx, first);
    if (!s0)
        return;
    const int chase = s0->op == CML_HIER_CHASE;
    char line[600] = "";
    size_t used = 0;
    static const cml_hier_level shown[] = {CML_HIER_L1, CML_HIER_L2, CML_HIER_DRAM};
    for (size_t l = 0; l < sizeof shown / sizeof shown[0]; l++) {
        double v[64], c[64];
        size_t n = 0, off = 0, few = 0;
        for (size_t i = first; i < ctx->out->count && n < 64; i++) {
            const hier_settings *s = cml_sweep_settings_of(ctx, i);
            const cml_record *rec = &ctx->out->items[i];
            if (!s || !same_series(s, s0) || !rec->measured || rec->state != CML_REC_OK ||
                cml_record_extra(rec, "level_pred", NAN) != cml_hier_level_code(shown[l]))
                continue;
            /* A size the counters place elsewhere (an L2 size that still
             * hits L1, say) is not the level's plateau: left out, counted. */
            const double meas = cml_record_extra(rec, "level_meas", NAN);
            if (!isnan(meas) && meas != cml_hier_level_code(shown[l])) {
                off++;
                continue;
            }
            /* A write or copy of a few KiB runs a block a part, fewer
             * blocks than SMs: those SMs' rate, not the level's. */
            if (!chase && cml_record_few_blocks(rec)) {
                few++;
                continue;
            }
            v[n] = chase ? cml_record_extra(rec, "ns_per_load", NAN) : rec->bandwidth_gbs;
            c[n++] = chase ? cml_record_extra(rec, "cycles_per_load", NAN) : 0;
        }
        if (!n)
            continue;
        double med = median(v, n), medc = median(c, n);
        char cyc[48] = "";
        if (chase)
            snprintf(cyc, sizeof cyc, " = %.1f cycles", medc);
        else /* sorted by median(): the largest is the last */
            snprintf(cyc, sizeof cyc, ", max %.0f", v[n - 1]);
        char left[128] = "";
        int lw = 0;
        if (off)
            lw = snprintf(left, sizeof left, "; %zu more the counters place elsewhere", off);
        if (few && lw >= 0 && (size_t)lw < sizeof left)
            snprintf(left + lw, sizeof left - (size_t)lw, "; %zu more on fewer blocks than SMs",
                     few);
        int w = snprintf(line + used, sizeof line - used, "%s%s %.*f %s%s (%zu size%s%s)",
                         used ? ", " : "", cml_hier_level_name(shown[l]), chase ? 1 : 0, med,
                         chase ? "ns" : "GB/s", cyc, n, n == 1 ? "" : "s", left);
        if (w < 0 || (size_t)w >= sizeof line - used)
            break;
        used += (size_t)w;
    }
    if (!used)
        return;
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", hier_ops[s0->op],
             s0->op == CML_HIER_READ || chase ? " " : "",
             s0->op == CML_HIER_READ || chase ? hier_paths[s0->path] : "");
    cml_results_diag(ctx->out, CML_DIAG_INFO, ctx->exp->key, "%s%s%s: median %s", name,
                     chase ? " " : "", chase ? hier_patterns[s0->pattern] : "", line);
}

static void hier_finish(cml_sweep *ctx)
{
    if (!ctx->plan->gpu)
        return;
    if (ctx->plan->counters_pass)
        cml_counters_pass_flush(ctx->plan->counters_pass);
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const hier_settings *s = cml_sweep_settings_of(ctx, i);
        cml_record *rec = &ctx->out->items[i];
        if (s && rec->state == CML_REC_OK && rec->measured)
            counters_verdict(rec, s);
    }
    /* One line per series: its first record starts it. */
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const hier_settings *s = cml_sweep_settings_of(ctx, i);
        int seen = 0;
        for (size_t j = ctx->first; s && j < i && !seen; j++) {
            const hier_settings *t = cml_sweep_settings_of(ctx, j);
            seen = t && same_series(s, t);
        }
        if (s && !seen)
            plateaus(ctx, i);
    }
}

static void hier_release(cml_sweep *ctx)
{
    hier_state *g = ctx->state;
    for (int k = 0; k < NSLOTS; k++)
        if (ctx->plan->gpu)
            cml_gpu_free(ctx->plan->gpu, &g->buf[k]);
}

/* The row's check: every working set listed must suit every op listed
 * (and the chase every --hop), else one line before anything runs. */
static cml_status hier_check(const cml_param_values *pv, char *err, size_t errlen)
{
    const int iws = cml_param_index(pv, "ws"), iop = cml_param_index(pv, "op"),
              ihop = cml_param_index(pv, "hop"), imode = cml_param_index(pv, "l2-mode");
    if (iws < 0 || iop < 0 || ihop < 0 || imode < 0)
        return CML_OK;
    const cml_param_list *ws = &pv->list[iws], *ops = &pv->list[iop], *hops = &pv->list[ihop],
                         *modes = &pv->list[imode];
    for (size_t o = 0; o < ops->count; o++)
        for (size_t w = 0; w < ws->count; w++)
            for (size_t h = 0; h < (ops->v[o] == CML_HIER_CHASE ? hops->count
                                    : ops->v[o] == CML_HIER_READ ? modes->count
                                                                 : 1);
                 h++) {
                char needs[200];
                const int chase = ops->v[o] == CML_HIER_CHASE, read = ops->v[o] == CML_HIER_READ;
                if (ws_fits((uint64_t)ws->v[w], (int)ops->v[o], read ? (int)modes->v[h] : -1,
                            chase ? (uint64_t)hops->v[h] : 0, needs, sizeof needs))
                    continue;
                snprintf(err, errlen, "--ws: %lld does not suit --op %s: %s", (long long)ws->v[w],
                         hier_ops[ops->v[o]], needs);
                return CML_EINVAL;
            }
    return CML_OK;
}

/* ---- the row ---------------------------------------------------------------- */

static const char *const mark_extras[] = {"l1_bytes", "l2_bytes", NULL};
static const char *const mark_labels[] = {"L1 per SM", "L2", NULL};

static const cml_chart_spec hier_charts[] = {
    {.shape = CML_PLOT_SWEEP, .title = "Bandwidth against the working set", .xparam = "ws",
     .xname = "working set", .xlabel = "working set (bytes, every SM walks all of it)",
     .xscale = CML_SCALE_LOG2, .xfmt = CML_FMT_BYTES, .ylabel = "bandwidth (GB/s)",
     .yfmt = CML_FMT_NUMBER, .without_param = "hop",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1, .xmark_extras = mark_extras, .xmark_labels = mark_labels},
    {.shape = CML_PLOT_SWEEP, .title = "Latency of a dependent load against the working set",
     .xparam = "ws", .xname = "working set", .xlabel = "working set (bytes)",
     .xscale = CML_SCALE_LOG2, .xfmt = CML_FMT_BYTES, .ylabel = "ns per load",
     .yfmt = CML_FMT_NUMBER, .only_param = "op", .only_label = "chase",
     .m = {{"measured", CML_METRIC_EXTRA, "ns_per_load", NULL, -1}}, .what = "latency",
     .unit = "ns", .describe = 1, .xmark_extras = mark_extras, .xmark_labels = mark_labels},
    {.shape = CML_PLOT_SWEEP, .title = "Level serving the bandwidth series: model and counters",
     .xparam = "ws", .xname = "working set", .xlabel = "working set (bytes)",
     .xscale = CML_SCALE_LOG2, .xfmt = CML_FMT_BYTES,
     .ylabel = "level (1 L1, 2 L2, 3 DRAM, 4 DRAM+TLB)", .yfmt = CML_FMT_WHOLE,
     .without_param = "hop",
     .m = {{"model", CML_METRIC_EXTRA, "level_pred", "as the model predicts it", 0},
           {"counters", CML_METRIC_EXTRA, "level_meas", "as the counters show it", 0}},
     .what = "level", .unit = "", .xmark_extras = mark_extras, .xmark_labels = mark_labels},
};

/* validate judges each level at an L1 size, an L2-resident one and a
 * DRAM-sized one (5x an H100's L2: issue 22 asks 4x at least). */
static const char *const hier_validate_settings[] = {
    "ws=32K,4M,256M op=read,write,copy path=ca,cg,nc", "ws=32K,4M,256M op=chase path=ca,cg",
    NULL};
static const cml_validate_spec hier_validate = {hier_validate_settings, NULL, 0};

const cml_experiment cml_exp_hierarchy = {
    .key = "hierarchy",
    .number = 19,
    .title = "The memory hierarchy",
    .summary = "Bandwidth (ca/cg/nc reads, writes, copies) and pointer-chase latency from KiBs "
               "to GiBs, with the level serving each size: the model's and the counters'",
    .doc = "docs/experiments/hierarchy.md",
    .options = hier_params,
    .noptions = CML_COUNT(hier_params),
    .settings_size = sizeof(hier_settings),
    .state_size = sizeof(hier_state),
    .tour = "ws=16K,4M,256M op=read,chase path=ca",
    .variant = hier_variant,
    .measure = hier_measure,
    .finish = hier_finish,
    .release = hier_release,
    .charts = hier_charts,
    .ncharts = CML_COUNT(hier_charts),
    .validate = &hier_validate,
    .check = hier_check,
};
