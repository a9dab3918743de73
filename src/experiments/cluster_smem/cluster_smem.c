/*
 * Experiment 22: distributed shared memory. Hopper's thread-block clusters
 * let a block read the shared memory of the other blocks of its cluster
 * (up to 8 blocks portably, 16 where the device allows) over the SM-to-SM
 * network of a GPC, without going through L2. This sets that path beside
 * L2 for the same bytes: bandwidth and latency, for clusters of 1..16.
 * docs/experiments/cluster-smem.md explains what to look for.
 *
 * The kernels and the model's mirror are one source, cluster_smem_body.h,
 * which says what each thread issues. The mirror traces the launch as
 * grid * rounds blocks, rounds = words / 1024: each is one round of one
 * block (every one issues the same traffic, which cml_exp_trace_1d checks),
 * its fill and, for the global source's bandwidth test, every pass's loads
 * of that round; then the blocks' ends (the checksum, the chase's stores)
 * over the real grid, with the chase's one dependent load (thread 0 of each
 * block) counted `steps` times.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "core/stats.h"
#include "experiments/cluster_smem/cluster_smem_body.h"
#include "lab/common.h"

static const char *const source_names[] = {"dsmem", "global", NULL};
static const char *const test_names[] = {"bandwidth", "latency", NULL};

/* One point: the options' fields, then what the variant derives. */
typedef struct cluster_settings {
    int64_t cluster, source, passes, steps, smem, test;
    unsigned grid, words;
} cluster_settings;

#define F(m) CML_FIELD(cluster_settings, m)
static const cml_param_def cluster_params[] = {
    {"cluster", "blocks per cluster, 1..16 (above 8 only where the device allows "
                "non-portable sizes)",
     1, 16, "1,2,4,8,16", NULL, 0, F(cluster), NULL},
    {"source", "dsmem (the neighbour block's shared memory) or global (the same words "
               "from L2)",
     0, 0, "dsmem,global", source_names, 0, F(source), NULL},
    {"passes", "reads of the neighbour's words per block", 1, 64, "16", NULL,
     CML_PARAM_NOVARIANT, F(passes), "test=bandwidth"},
    {"steps", "dependent loads of the chase", 1, 1 << 22, "2^15", NULL, CML_PARAM_NOVARIANT,
     F(steps), "test=latency"},
    {"smem", "shared memory per block, KiB (a power of two)", 4, 128, "32", NULL,
     CML_PARAM_POW2, F(smem), NULL},
    {"test", "bandwidth (every thread streams) or latency (one thread chases pointers)", 0, 0,
     "bandwidth,latency", test_names, 0, F(test), NULL},
};
#undef F

/* Local shared memory's bandwidth per SM and clock (Volta..Hopper), and the
 * H100's SM clock, for the model when no device says otherwise. */
#define CL_SMEM_BYTES_PER_CLOCK 128.0
#define CL_DEFAULT_SM_KHZ 1980000.0

/* ---- the model ----------------------------------------------------------- */

/* One launch as the model sees it. */
typedef struct cluster_args {
    int test, source;
    unsigned cluster, words, passes;
    uint64_t grid;
} cluster_args;

/* The sites of a round (the fill and the reads), of its fill alone, and
 * of a block's end (cluster_smem_body.h). */
#define CL_ROUND_SITES 0x1Full
#define CL_FILL_SITES 0x7ull
#define CL_END_SITES (~CL_ROUND_SITES)

/* The kernel's own body (cluster_smem_body.h) as thread t of block `block`,
 * over the words [first, end), emitting `sites`: the model's arrays copy
 * (0), chain (1) and out (2), the block's shared memory at 0. The chase
 * makes one load (steps = 1): every one is the same one-lane access, which
 * trace_launch counts `steps` times. */
static void cluster_body(const cml_thread *t, const cluster_args *a, cml_emitter *e,
                         uint64_t sites, uint32_t block, unsigned first, unsigned end)
{
    cml_thread bt = *t;
    bt.bid.x = block;
    const cml_ctx c = CML_MIRROR_CTX_SITES(&bt, e, sites);
    CML_SHARED_EXTERN(uint32_t, buf, 0);
    uint32_t *copy = CML_ARRAY(uint32_t, 0);
    unsigned long long *out = CML_ARRAY(unsigned long long, 2);
    if (a->test == CML_CL_BANDWIDTH)
        cml_cl_bandwidth_body(c, buf, copy, out, 0, a->words, a->passes, first, end, a->cluster,
                              a->source);
    else
        cml_cl_latency_body(c, buf, copy, out, CML_ARRAY(const uint32_t, 1), a->words, 1, first,
                            end, a->cluster, a->source);
}

/* Mirror block t->bid.x: round t->bid.x % rounds of block t->bid.x / rounds
 * (rounds = words / 1024), its fill and reads. */
static void round_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cluster_args *a = vargs;
    const unsigned round = 4 * CML_CL_BLOCK, rounds = a->words / round;
    const unsigned first = t->bid.x % rounds * round;
    cluster_body(t, a, e, CL_ROUND_SITES, t->bid.x / rounds, first, first + round);
}

/* The launch in the order its cluster barrier imposes, for the cache
 * levels: every round's fill (mirror blocks [0, G * rounds)), then every
 * round's reads ([G * rounds, 2 G * rounds)). Traced round by round with
 * fill and reads together, a block would read its neighbour's global copy
 * before the neighbour wrote it, which the model takes for a DRAM read;
 * in the kernel every block of a cluster has written its copy before any
 * reads, and the grid is one wave (all resident at once). */
static void phase_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cluster_args *a = vargs;
    const unsigned round = 4 * CML_CL_BLOCK, rounds = a->words / round;
    const uint64_t fills = a->grid * rounds, k = t->bid.x % fills;
    const unsigned first = (unsigned)(k % rounds) * round;
    cluster_body(t, a, e, t->bid.x < fills ? CL_FILL_SITES : CL_ROUND_SITES & ~CL_FILL_SITES,
                 (uint32_t)(k / rounds), first, first + round);
}

/* The end of a block: the bandwidth test's checksum, the latency test's
 * chase (one load) and two words. */
static void end_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    cluster_body(t, vargs, e, CL_END_SITES, t->bid.x, 0, 0);
}

static void traffic_times(cml_traffic *t, uint64_t k)
{
    t->instructions *= k;
    t->requests *= k;
    t->sectors *= k;
    t->lines *= k;
    t->transactions *= k;
    t->transaction_bytes *= k;
    t->efficiency_bytes *= k;
    t->requested_bytes *= k;
    t->lane_bytes *= k;
    t->wavefronts *= k;
    t->ideal_wavefronts *= k;
    t->bank_conflicts *= k;
    t->serialized *= k;
}

/* L2 sectors read and written beside the traced levels, added to the
 * point and both bounds: traffic whose L2 fate the model knows. */
static void levels_add(cml_record *rec, uint64_t l2_read, uint64_t l2_write)
{
    rec->levels.l2_read_sectors += l2_read;
    rec->levels.lo.l2_read_sectors += l2_read;
    rec->levels.hi.l2_read_sectors += l2_read;
    rec->levels.l2_write_sectors += l2_write;
    rec->levels.lo.l2_write_sectors += l2_write;
    rec->levels.hi.l2_write_sectors += l2_write;
}

/*
 * The model of a launch: the classes from the rounds (cml_exp_trace_1d)
 * and the ends, the cache levels from the rounds in barrier order
 * (phase_mirror), then the ends' L2 traffic: the checksum's and the
 * chase's stores (one sector each, written through to L2) and the chase's
 * `steps` loads, .cg (L1 bypassed) of words the neighbour has just
 * written: each an L2 read that hits, no DRAM.
 *
 * The latency fill's chain (the same `words` for every block) is read
 * through L1: the model places each block on an SM of its own, so every
 * block misses it (the point), but the hardware may place blocks of a
 * cluster on one SM, whose L1 then serves the later ones (an H100 read it
 * from L2 once for clusters of 2 and 4): the interval's optimistic run
 * takes every SM as one (docs/model.md §16.8, l1_pooled), the chain read
 * from L2 once in all.
 */
static cml_status trace_launch(cml_record *rec, const cluster_args *a, unsigned steps)
{
    const uint64_t rounds = a->words / (4 * CML_CL_BLOCK);
    cml_status st =
        cml_exp_trace_1d(rec, a->grid * rounds, CML_CL_BLOCK, 0, 0, round_mirror, a);
    if (!st)
        st = cml_exp_levels(rec, cml_dim1(2 * a->grid * rounds), cml_dim1(CML_CL_BLOCK),
                            phase_mirror, a);
    cml_record *tmp = st ? NULL : calloc(1, sizeof *tmp);
    if (!st && !tmp)
        return CML_ENOMEM;
    if (!st)
        st = cml_exp_trace_1d(tmp, a->grid, CML_CL_BLOCK, 0, 0, end_mirror, a);
    for (int r = 0; !st && r < CML_RULES_COUNT; r++) {
        /* the ends' only loads are the chase's, traced once a block */
        if (a->test == CML_CL_LATENCY)
            traffic_times(&tmp->model[r].cls[CML_CLASS_GLOBAL_LD], steps);
        for (int c = 0; c < CML_CLASS_COUNT; c++)
            cml_traffic_add(&rec->model[r].cls[c], &tmp->model[r].cls[c]);
    }
    if (!st) {
        const cml_kernel_traffic *end = &tmp->model[CML_RULES_MODERN];
        levels_add(rec, end->cls[CML_CLASS_GLOBAL_LD].sectors,
                   end->cls[CML_CLASS_GLOBAL_ST].sectors);
    } else if (tmp) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model: %s", tmp->note[0] ? tmp->note : cml_status_str(st));
    }
    free(tmp);
    rec->grid = a->grid;
    rec->block = CML_CL_BLOCK;
    return st;
}

/* The model's blocks per SM: threads and shared memory (1 KiB kept per
 * block), like the occupancy calculator without registers. */
static unsigned model_per_sm(const cml_plan *plan, unsigned words)
{
    const double smem_sm =
        plan->dev && plan->dev->shared_per_sm ? (double)plan->dev->shared_per_sm : 233472.0;
    unsigned per = cml_exp_threads_per_sm(plan) / CML_CL_BLOCK;
    const unsigned by_smem = (unsigned)(smem_sm / (4.0 * words + 64 + 1024));
    return by_smem < per ? by_smem : per;
}

static double smem_peak_gbs(const cml_plan *plan)
{
    const double khz =
        plan->dev && plan->dev->sm_clock_khz > 0 ? plan->dev->sm_clock_khz : CL_DEFAULT_SM_KHZ;
    return CL_SMEM_BYTES_PER_CLOCK * cml_exp_sm_count(plan) * khz * 1e3 / 1e9;
}

static void model_finding(const cml_plan *plan, cml_record *rec, const cluster_settings *s)
{
    char bytes[32];
    const unsigned kib = (unsigned)s->smem, c = (unsigned)s->cluster;
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const char *whose = c == 1 ? "its own" : "its neighbour's";
    if (s->test == CML_CL_BANDWIDTH) {
        cml_fmt_bytes(bytes, sizeof bytes, (double)rec->bytes_read);
        if (s->source == CML_CL_DSMEM)
            cml_record_finding(rec,
                               "Each of %u blocks reads %s %u KiB %lld times, 16-byte "
                               "ld.shared::cluster (%s in all)%s: no L2 request. The model has "
                               "no figure for that network; local shared memory peaks at %.0f "
                               "GB/s (128 B per clock per SM).",
                               s->grid, whose, kib, (long long)s->passes, bytes,
                               c == 1 ? " through the cluster window"
                                      : " over the SM-to-SM network of the cluster's GPC",
                               smem_peak_gbs(plan));
        else
            cml_record_finding(rec,
                               "The same %s from L2: ld.global.cg (L1 bypassed), %llu requests "
                               "of %.2f sectors, every one through the L2 crossbar all SMs "
                               "share; the global copy (%u KiB per block) was just written, so "
                               "L2 holds it.",
                               bytes, (unsigned long long)ld->requests,
                               cml_traffic_sectors_per_request(ld), kib);
        return;
    }
    if (s->source == CML_CL_DSMEM)
        cml_record_finding(rec,
                           "Thread 0 of each of the %u block%s chases %lld dependent loads "
                           "through %s shared memory (a random cycle over %u KiB)%s. Expected "
                           "between local shared memory (~30 cycles) and L2 (~200-300 cycles; "
                           "docs/model.md, E12).",
                           s->grid, s->grid == 1 ? "" : "s", (long long)s->steps, whose, kib,
                           c == 1 ? ", through the cluster window" : " over the SM-to-SM network");
    else
        cml_record_finding(rec,
                           "Thread 0 of each of the %u block%s chases %lld dependent loads "
                           "through %s slice in L2 (ld.global.cg, one sector each): an L2 hit's "
                           "latency, ~200-300 cycles (docs/model.md, E12), more from the far "
                           "partition.",
                           s->grid, s->grid == 1 ? "" : "s", (long long)s->steps, whose);
}

/* ---- records ----------------------------------------------------------- */

/* What the device allows, or why this variant cannot run: 1 when waived. */
static int device_limits(cml_sweep *ctx, cml_record *rec, cluster_settings *s, cml_status *st)
{
    const cml_plan *plan = ctx->plan;
    *st = CML_OK;
    if (!plan->dev)
        return 0;
    if (plan->dev->cc_major < 9) {
        cml_sweep_waive(ctx, rec, "thread-block clusters need compute capability 9.0, this "
                                  "device is %d.%d",
                        plan->dev->cc_major, plan->dev->cc_minor);
        return 1;
    }
    if (!plan->gpu)
        return 0;
    cml_cluster_launch_args a;
    memset(&a, 0, sizeof a);
    a.cluster = (unsigned)s->cluster;
    a.words = s->words;
    a.test = (int)s->test;
    a.source = (int)s->source;
    int max_cluster = 0, active = 0;
    *st = cml_cluster_limits(&a, &max_cluster, &active);
    if (*st)
        return 1;
    if (s->cluster > max_cluster) {
        cml_sweep_waive(ctx, rec, "a cluster of %lld blocks of 256 threads and %lld KiB is "
                                  "above this device's largest (%d, non-portable sizes "
                                  "allowed)",
                        (long long)s->cluster, (long long)s->smem, max_cluster);
        return 1;
    }
    if (active <= 0) {
        char why[64] = "";
        if (active < 0)
            snprintf(why, sizeof why, " (cudaOccupancyMaxActiveClusters: CUDA error %d)",
                     -active);
        cml_sweep_waive(ctx, rec, "no cluster of %lld blocks with %lld KiB of shared memory "
                                  "each fits this device at once%s",
                        (long long)s->cluster, (long long)s->smem, why);
        return 1;
    }
    cml_record_add_extra(rec, "max_cluster", max_cluster, "");
    cml_record_add_extra(rec, "active_clusters", active, "");
    s->grid = s->test == CML_CL_LATENCY ? (unsigned)s->cluster : (unsigned)(active * s->cluster);
    return 0;
}

static cml_status cluster_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    cluster_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    s->words = (unsigned)(s->smem * 1024 / 4);
    const unsigned c = (unsigned)s->cluster;
    /* the model's grid: every SM full, whole clusters (one cluster for the chase) */
    uint64_t blocks = (uint64_t)cml_exp_sm_count(plan) * model_per_sm(plan, s->words);
    s->grid = s->test == CML_CL_LATENCY ? c : (unsigned)(blocks / c * c);
    if (s->grid == 0)
        s->grid = c;
    /* "test=bandwidth source=dsmem cluster=4 smem=32" */
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "test", test_names[s->test]);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "source", source_names[s->source]);
    cml_variant_add(rec->variant, sizeof rec->variant, "cluster", (long long)c);
    cml_variant_add(rec->variant, sizeof rec->variant, "smem", (long long)s->smem);
    cml_status st;
    const int waived = device_limits(ctx, rec, s, &st);
    if (st)
        return cml_exp_fail(plan, rec, st);
    rec->bytes_read = s->test == CML_CL_BANDWIDTH
                          ? (uint64_t)s->grid * s->words * 4 * (uint64_t)s->passes
                          : (uint64_t)s->grid * 4 * (uint64_t)s->steps;
    rec->bytes_written = 0;
    cluster_args a = {(int)s->test, (int)s->source, c, s->words, (unsigned)s->passes, s->grid};
    st = trace_launch(rec, &a, (unsigned)s->steps);
    if (st)
        return st;
    if (s->test == CML_CL_BANDWIDTH && s->source == CML_CL_DSMEM)
        cml_record_add_extra(rec, "dsmem_bytes", (double)rec->bytes_read, "B");
    cml_record_add_extra(rec, "smem_peak_gbs", smem_peak_gbs(plan), "GB/s");
    (void)waived; /* a waived record keeps the model's explanation */
    model_finding(plan, rec, s);
    return CML_OK;
}

/* ---- GPU run ----------------------------------------------------------- */

enum { SEED_WORDS = 0xC1u, SEED_CHAIN = 0xC4A1u };

/* The run's state: the chase's cycle (host copy), for the words it spans. */
typedef struct cluster_state {
    uint32_t *chain;
    unsigned words;
} cluster_state;

/* A single cycle through all `words` entries (Sattolo's shuffle). */
static cml_status make_chain(cluster_state *g, unsigned words)
{
    if (g->chain && g->words == words)
        return CML_OK;
    free(g->chain);
    g->words = 0;
    g->chain = malloc((size_t)words * sizeof *g->chain);
    if (!g->chain)
        return CML_ENOMEM;
    for (unsigned i = 0; i < words; i++)
        g->chain[i] = i;
    for (unsigned i = words - 1; i > 0; i--) {
        unsigned j = cml_random_u32(SEED_CHAIN, i) % i;
        uint32_t t = g->chain[i];
        g->chain[i] = g->chain[j];
        g->chain[j] = t;
    }
    g->words = words;
    return CML_OK;
}

typedef struct cluster_check {
    const cml_plan *plan;
    const cluster_state *g;
    const cml_cluster_launch_args *a;
    uint64_t cap;
    double cycles; /* latency: the chases' mean clock64 cycles */
} cluster_check;

static unsigned neighbour(unsigned b, unsigned cluster)
{
    const unsigned rank = b % cluster;
    return b - rank + (rank + 1 == cluster ? 0 : rank + 1);
}

/* The host's value of out[q]; `any` set where only "written" is checked
 * (the chase's cycles). */
static uint64_t expected(const cluster_check *c, uint64_t q, int *any)
{
    const cml_cluster_launch_args *a = c->a;
    *any = 0;
    if (a->test == CML_CL_BANDWIDTH) {
        if (q >= a->grid)
            return ~0ull;
        const unsigned nb = neighbour((unsigned)q, a->cluster);
        uint64_t sum = 0;
        for (unsigned i = 0; i < a->words; i++)
            sum += CML_CL_WORD(a->seed, nb, a->words, i);
        return sum * a->passes;
    }
    if (q >= 2u * a->grid)
        return ~0ull;
    if (q % 2) {
        *any = 1;
        return 0;
    }
    const unsigned nb = neighbour((unsigned)(q / 2), a->cluster);
    uint32_t idx = 0, e = 0;
    for (unsigned k = 0; k < a->steps; k++) {
        e = c->g->chain[idx] | (uint32_t)nb << CML_CL_TAG_SHIFT;
        idx = c->g->chain[idx];
    }
    return e;
}

/* On the host: every checksum (or last entry) as recomputed, the cycles
 * written, the rest of out[] still poison. The counts go where the harness
 * reads a device checker's. */
static cml_status cluster_check_cb(void *vctx, unsigned long long *d_counters)
{
    cluster_check *c = vctx;
    uint64_t *got = malloc(c->cap * sizeof *got);
    if (!got)
        return CML_ENOMEM;
    cml_dbuf view = {c->a->out, c->cap * sizeof *got, 0};
    cml_status st = cml_gpu_download(c->plan->gpu, got, &view, view.bytes);
    unsigned long long counts[2] = {0, ~0ull};
    double cycles = 0;
    for (uint64_t q = 0; !st && q < c->cap; q++) {
        int any;
        const uint64_t want = expected(c, q, &any);
        if (any)
            cycles += (double)got[q];
        if ((any ? got[q] == ~0ull : got[q] != want) && counts[0]++ == 0)
            counts[1] = q;
    }
    if (c->a->test == CML_CL_LATENCY)
        c->cycles = cycles / c->a->grid;
    free(got);
    cml_dbuf dc = {d_counters, sizeof counts, 0};
    return st ? st : cml_gpu_upload(c->plan->gpu, &dc, counts, sizeof counts);
}

static cml_status cluster_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const cluster_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    cluster_state *g = ctx->state;
    const uint64_t cap = 2u * (uint64_t)cml_exp_sm_count(plan) *
                         (cml_exp_threads_per_sm(plan) / CML_CL_BLOCK);
    const int latency = s->test == CML_CL_LATENCY;
    cml_dbuf *copy = cml_sweep_buffer(ctx, rec, 0, (size_t)s->grid * s->words * 4, 0);
    cml_dbuf *out = copy ? cml_sweep_buffer(ctx, rec, 1, cap * 8, 0) : NULL;
    cml_dbuf *chain = out && latency ? cml_sweep_buffer(ctx, rec, 2, (size_t)s->words * 4, 0)
                                     : NULL;
    if (!out || (latency && !chain))
        return CML_ECUDA;
    if (latency) {
        cml_status st = make_chain(g, s->words);
        if (st)
            return st;
        st = cml_gpu_upload(plan->gpu, chain, g->chain, (size_t)s->words * 4);
        if (st)
            return cml_exp_fail(plan, rec, st);
    }
    cml_cluster_launch_args a = {copy->ptr, out->ptr, latency ? chain->ptr : NULL,
                                 SEED_WORDS, s->grid, (unsigned)s->cluster, s->words,
                                 (unsigned)s->passes, (unsigned)s->steps, (int)s->test,
                                 (int)s->source};
    cluster_check cc = {plan, g, &a, cap, 0};
    const void *kernel = cml_cluster_kernel(a.test, a.source);
    cml_status st = cml_exp_measure(plan, rec, out, cml_cluster_launch, &a, kernel, CML_CL_BLOCK,
                                    (size_t)s->words * 4, cluster_check_cb, &cc);
    if (st)
        return st;
    char text[256];
    if (latency) {
        const double ns = rec->timing.median_ms * 1e6 / (double)s->steps;
        const double cyc = cc.cycles / (double)s->steps;
        cml_record_add_extra(rec, "cycles_per_load", cyc, "");
        cml_record_add_extra(rec, "ns_per_load", ns, "ns");
        snprintf(text, sizeof text,
                 "%s: %.0f cycles (clock64) and %.0f ns (events) per dependent load.",
                 s->source == CML_CL_DSMEM ? "Distributed shared memory" : "L2", cyc, ns);
        cml_record_finding(rec, "%s", text);
        return CML_OK;
    }
    /* The fill (and the launch) alone, to take out of the read's time. */
    cml_cluster_launch_args fill = a;
    fill.passes = 0;
    cml_timing t;
    unsigned warmup = plan->warmup ? plan->warmup : CML_EXP_WARMUP;
    unsigned reps = plan->reps ? plan->reps : CML_EXP_REPS;
    st = cml_gpu_time(plan->gpu, cml_cluster_launch, &fill, warmup, reps, &t);
    if (st)
        return cml_exp_fail(plan, rec, st);
    cml_record_add_extra(rec, "fill_us", 1e3 * t.median_ms, "us");
    const double read_ms = rec->timing.median_ms - t.median_ms;
    if (read_ms > 0)
        cml_record_add_extra(rec, "read_gbs", cml_gbs((double)rec->bytes_read, read_ms), "GB/s");
    snprintf(text, sizeof text, "%s, clusters of %u: %u blocks read %.0f MiB; the fill alone "
                                "takes %.1f us.",
             s->source == CML_CL_DSMEM ? "Distributed shared memory" : "L2", (unsigned)s->cluster,
             s->grid, (double)rec->bytes_read / (1024.0 * 1024.0), 1e3 * t.median_ms);
    cml_exp_finding_measured(rec, text);
    return CML_OK;
}

/* ---- the findings across records ------------------------------------- */

/* The measured record of (source, cluster) with s's test and size. */
static const cml_record *twin(cml_sweep *ctx, const cluster_settings *s, int64_t source,
                              int64_t cluster)
{
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const cluster_settings *o = cml_sweep_settings_of(ctx, i);
        const cml_record *r = &ctx->out->items[i];
        if (o && o->source == source && o->cluster == cluster && o->test == s->test &&
            o->smem == s->smem && o->passes == s->passes && o->steps == s->steps &&
            r->measured && r->state == CML_REC_OK)
            return r;
    }
    return NULL;
}

/* Each distributed-shared-memory record against L2 at the same cluster
 * size, and against cluster 1 (its own shared memory). */
static void cluster_finish(cml_sweep *ctx)
{
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        cml_record *rec = &ctx->out->items[i];
        const cluster_settings *s = cml_sweep_settings_of(ctx, i);
        if (!s || s->source != CML_CL_DSMEM || !rec->measured || rec->state != CML_REC_OK)
            continue;
        const cml_record *l2 = twin(ctx, s, CML_CL_GLOBAL, s->cluster);
        const cml_record *own = s->cluster > 1 ? twin(ctx, s, CML_CL_DSMEM, 1) : NULL;
        if (!l2)
            continue;
        char ref[96] = "";
        if (s->test == CML_CL_BANDWIDTH) {
            if (own)
                snprintf(ref, sizeof ref, "; its own shared memory (cluster 1): %.0f GB/s",
                         own->bandwidth_gbs);
            cml_record_finding(rec,
                               "Clusters of %lld: the neighbour's shared memory at %.0f GB/s, "
                               "L2 at %.0f GB/s for the same bytes (%.2fx)%s. Local shared "
                               "memory peaks at %.0f GB/s.",
                               (long long)s->cluster, rec->bandwidth_gbs, l2->bandwidth_gbs,
                               l2->bandwidth_gbs > 0 ? rec->bandwidth_gbs / l2->bandwidth_gbs : 0,
                               ref, cml_record_extra(rec, "smem_peak_gbs", -1.0));
        } else {
            const double cyc = cml_record_extra(rec, "cycles_per_load", -1.0),
                         l2cyc = cml_record_extra(l2, "cycles_per_load", -1.0);
            if (own)
                snprintf(ref, sizeof ref, "; its own shared memory (cluster 1): %.0f cycles",
                         cml_record_extra(own, "cycles_per_load", -1.0));
            cml_record_finding(rec,
                               "Clusters of %lld: a dependent load from the neighbour's shared "
                               "memory takes %.0f cycles (%.0f ns), from L2 %.0f cycles (%.0f "
                               "ns): %.2fx%s.",
                               (long long)s->cluster, cyc, cml_record_extra(rec, "ns_per_load", -1.0), l2cyc,
                               cml_record_extra(l2, "ns_per_load", -1.0), l2cyc > 0 ? cyc / l2cyc : 0.0, ref);
        }
    }
}

static void cluster_release(cml_sweep *ctx)
{
    cluster_state *g = ctx->state;
    free(g->chain);
    g->chain = NULL;
}

/* Bandwidth and latency against the cluster size, a line per source. */
static const cml_chart_spec cluster_charts[] = {
    {.shape = CML_PLOT_SWEEP, .title = "Measured bandwidth vs cluster size", .xparam = "cluster",
     .xname = "cluster size", .xlabel = "blocks per cluster", .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_NUMBER, .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER,
     .only_param = "test", .only_label = "bandwidth",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_SWEEP, .title = "Dependent-load latency vs cluster size",
     .xparam = "cluster", .xname = "cluster size", .xlabel = "blocks per cluster",
     .xscale = CML_SCALE_LOG2, .xfmt = CML_FMT_NUMBER, .ylabel = "cycles per load",
     .yfmt = CML_FMT_NUMBER, .only_param = "test", .only_label = "latency",
     .m = {{"latency", CML_METRIC_EXTRA, "cycles_per_load", NULL, -1}}, .what = "latency",
     .unit = "cycles", .describe = 1},
};

const cml_experiment cml_exp_cluster_smem = {
    .key = "cluster-smem",
    .number = 22,
    .title = "Distributed shared memory in clusters",
    .summary = "thread-block clusters of 1..16 blocks (sm_90): reading the neighbour block's "
               "shared memory vs the same bytes from L2, bandwidth and pointer-chase latency",
    .doc = "docs/experiments/cluster-smem.md",
    .options = cluster_params,
    .noptions = CML_COUNT(cluster_params),
    .settings_size = sizeof(cluster_settings),
    .state_size = sizeof(cluster_state),
    .tour = "cluster=1,2,8,16 source=dsmem,global test=bandwidth,latency",
    .variant = cluster_variant,
    .measure = cluster_measure,
    .finish = cluster_finish,
    .release = cluster_release,
    .charts = cluster_charts,
    .ncharts = CML_COUNT(cluster_charts),
};
