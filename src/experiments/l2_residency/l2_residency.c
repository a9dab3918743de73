/*
 * Experiment 19: keeping a hot set in L2. A kernel streams a large array
 * through DRAM (out = x + hot) while it re-reads a hot set larger than the
 * persisting-L2 maximum of the device at random, 512 bytes per warp
 * (l2_residency_body.h). Every way of asking L2 to keep or drop lines is
 * tried on the same pattern:
 *   - an access policy window on the hot set (cudaStreamAttributeAccessPolicyWindow
 *     on the stream the kernel runs on), hitRatio 0..1 swept, hitProp
 *     persisting or streaming, missProp streaming, with the persisting
 *     set-aside (cudaLimitPersistingL2CacheSize) at the device's maximum for
 *     the measurement and restored afterwards (the measurement, below);
 *   - per-access hints: __ldcs/__stcs, L2::evict_first / L2::evict_last
 *     policies (createpolicy + L2::cache_hint), the L2::128B and L2::256B
 *     prefetch sizes, L1::no_allocate.
 * The model here says, from the L2 size, the set-aside and the hot set, how
 * many hot reads should hit and so how many bytes DRAM should read
 * (cml_l2r_expectation); on a GPU the counters say how many it did.
 * docs/experiments/l2-residency.md explains each rule.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters/counter_map.h"
#include "counters/counters.h"
#include "experiments/l2_residency/l2_residency_body.h"
#include "gpu/gpu_internal.h"
#include "lab/common.h"
#include "lab/counters_pass.h"

/* One point of the sweep; the options' fields (declared innermost first). */
typedef struct l2r_settings {
    int64_t ratio, prop, policy, hot, stream;
} l2r_settings;

/* hit-prop's choices, in order. */
enum { L2R_PROP_PERSISTING = 0, L2R_PROP_STREAMING };

/* The sizes of one point: from the device, or an H100's when there is none
 * (model only: `assumed` says so in the finding). */
typedef struct l2r_geom {
    uint64_t l2, persist_max;  /* bytes; persist_max 0: the device has no persisting L2 */
    uint64_t hot, chunks;      /* the hot set: bytes, 512-byte chunks */
    uint64_t stream, nv;       /* x and out: bytes each, float4s */
    int assumed;
} l2r_geom;

static void cml_l2r_geometry(const cml_plan *plan, const l2r_settings *s, l2r_geom *g);

/* The run's state: the stream the window is set on, and the persisting-L2
 * limit as it was before the experiment touched it. */
typedef struct l2r_state {
    void *stream;
    int have_before, changed;
    size_t limit_before;
    size_t max_window;         /* cudaDevAttrMaxAccessPolicyWindowSize; 0: not read */
} l2r_state;

/* Fixed seeds: x, h, and the chunk hash. */
#define L2R_SEED_X 0x12E5000000000001ull
#define L2R_SEED_H 0x12E5000000000002ull
#define L2R_SEED_CHUNK 0x12E5000000000003ull

/* The model's sentence for rec (and its extras), with the set-aside and
 * the window's bytes (a window covers at most
 * cudaDevAttrMaxAccessPolicyWindowSize), both in MiB. */
static void cml_l2r_model_finding(const cml_plan *plan, cml_record *rec, const l2r_settings *s,
                           const l2r_geom *g, double set_aside, double window);

/* The measurement (the second part of this file, before the row). */
static cml_status cml_l2r_measure(cml_sweep *ctx, void *settings, cml_record *rec);
static void cml_l2r_finish(cml_sweep *ctx);
static void cml_l2r_release(cml_sweep *ctx);

static const char *const policy_names[] = {"none",        "window",       "ldcs",
                                           "evict-first", "evict-last",   "evict-first-last",
                                           "prefetch-128", "prefetch-256", "no-allocate", NULL};
static const char *const prop_names[] = {"persisting", "streaming", NULL};

static const cml_param_def l2r_params[] = {
    {"hit-ratio", "window: percent of the window's accesses given hitProp (hitRatio x 100)", 0,
     100, "0,25,50,75,100", NULL, 0, CML_FIELD(l2r_settings, ratio), "policy=window"},
    {"hit-prop", "window: hitProp of those accesses (missProp is streaming)", 0, 0,
     "persisting,streaming", prop_names, 0, CML_FIELD(l2r_settings, prop), "policy=window"},
    {"policy",
     "none, window (access policy window on the hot set), ldcs (__ldcs/__stcs on the stream), "
     "evict-first (stream), evict-last (hot set), evict-first-last (L2::cache_hint policies), "
     "prefetch-128, prefetch-256 (L2 prefetch size), no-allocate (L1::no_allocate on the hot set)",
     0, 0, "all", policy_names, 0, CML_FIELD(l2r_settings, policy), NULL},
    {"hot", "hot set, percent of the device's persisting-L2 maximum (persistingL2CacheMaxSize)",
     10, 1000, "125", NULL, 0, CML_FIELD(l2r_settings, hot), NULL},
    {"stream", "bytes streamed through x and out each (0: 16x the L2 size)", 0, (int64_t)1 << 36,
     "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(l2r_settings, stream), NULL},
};

#define MIB (1024.0 * 1024.0)
/* Without a device: an H100's L2 (50 MiB) and its persisting maximum (3/4
 * of it), said in the finding. */
#define ASSUMED_L2 ((uint64_t)50 << 20)

static void cml_l2r_geometry(const cml_plan *plan, const l2r_settings *s, l2r_geom *g)
{
    memset(g, 0, sizeof *g);
    const cml_device_facts *d = plan ? plan->dev : NULL;
    g->assumed = !d || d->l2_bytes == 0;
    g->l2 = g->assumed ? ASSUMED_L2 : d->l2_bytes;
    g->persist_max = g->assumed ? g->l2 / 4 * 3 : d->l2_persisting_max;
    /* A device without persisting L2 still gets a hot set of the same
     * proportions (its window variants are waived). */
    const uint64_t base = g->persist_max ? g->persist_max : g->l2 / 4 * 3;
    uint64_t hot = base * (uint64_t)s->hot / 100;
    hot -= hot % (CML_L2R_CHUNK_FLOATS * 4);
    g->hot = hot ? hot : CML_L2R_CHUNK_FLOATS * 4;
    g->chunks = g->hot / (CML_L2R_CHUNK_FLOATS * 4);
    uint64_t stream = s->stream ? (uint64_t)s->stream : 16 * g->l2;
    if (d && d->global_bytes && stream > d->global_bytes / 8)
        stream = d->global_bytes / 8;
    stream -= stream % 512; /* whole warps of float4s */
    g->stream = stream ? stream : 512;
    g->nv = g->stream / 16;
}

/* ---- the model ------------------------------------------------------------ */

double cml_l2r_lru_hit_k(double cache, double hot, double k)
{
    if (hot <= 0 || cache <= 0)
        return 0.0;
    if (k <= 0) /* only hot lines compete: the cache holds its size of them */
        return cache < hot ? cache / hot : 1.0;
    /* f(u) = k u + H (1 - e^(-u/H)) - C rises from -C at u = 0; at u = C/k
     * it is >= 0. Bisection to a relative 1e-12. */
    double lo = 0.0, hi = cache / k;
    for (int n = 0; n < 200 && hi - lo > 1e-12 * hi; n++) {
        double u = 0.5 * (lo + hi);
        double f = k * u + hot * (1.0 - exp(-u / hot)) - cache;
        if (f < 0)
            lo = u;
        else
            hi = u;
    }
    return 1.0 - exp(-0.5 * (lo + hi) / hot);
}

double cml_l2r_lru_hit(double l2, double hot)
{
    /* Per 4 hot bytes read, 4 bytes of x read and 4 of out written: k = 2. */
    return cml_l2r_lru_hit_k(l2, hot, 2.0);
}

void cml_l2r_expectation(int policy, double l2, double hot, double stream, double set_aside,
                         double window, double ratio, int persisting, cml_l2r_expect *e)
{
    double hit;
    switch (policy) {
    case CML_L2R_WINDOW: {
        double w = window < hot ? window : hot;
        double p = ratio * w;
        hit = persisting && hot > 0 ? (p < set_aside ? p : set_aside) / hot : 0.0;
        break;
    }
    case CML_L2R_LDCS:
    case CML_L2R_EVICT_FIRST:
    case CML_L2R_EVICT_LAST:
    case CML_L2R_EVICT_BOTH: hit = hot > l2 ? l2 / hot : 1.0; break;
    default: hit = cml_l2r_lru_hit(l2, hot); break;
    }
    if (hit > 1.0)
        hit = 1.0;
    e->hot_hit = hit;
    e->dram_read = stream + (1.0 - hit) * stream;
    e->dram_read_cold = e->dram_read + hit * hot;
    e->dram_write = stream;
    e->l2_hit = hit / 2.0;
}

/* Why the model expects what it does, per policy (short: the measured half
 * of the sentence follows it). */
static void why(char *buf, size_t len, const l2r_settings *s, const l2r_geom *g,
                double set_aside, double window, const cml_l2r_expect *e)
{
    const double H = (double)g->hot / MIB;
    const double p = (double)s->ratio / 100.0 * (window < H ? window : H);
    switch (s->policy) {
    case CML_L2R_WINDOW:
        if (s->prop == L2R_PROP_STREAMING)
            snprintf(buf, len, "hitProp streaming makes the hot lines evict-first: none hit");
        else
            snprintf(buf, len, "hitRatio %.2f marks %.1f MiB persisting, %s the %.1f MiB "
                               "set-aside: %.0f%% hit (best at %.2f)",
                     (double)s->ratio / 100.0, p, p <= set_aside ? "within" : "beyond",
                     set_aside, 100.0 * e->hot_hit, set_aside / H < 1.0 ? set_aside / H : 1.0);
        return;
    case CML_L2R_LDCS:
    case CML_L2R_EVICT_FIRST:
        snprintf(buf, len, "the stream's lines leave L2 first: min(1, L2/hot) = %.0f%% hit",
                 100.0 * e->hot_hit);
        return;
    case CML_L2R_EVICT_LAST:
    case CML_L2R_EVICT_BOTH:
        snprintf(buf, len, "the hot lines leave L2 last: %.0f%% hit, unless the untouched "
                           "set-aside caps them", 100.0 * e->hot_hit);
        return;
    case CML_L2R_PREFETCH_128:
    case CML_L2R_PREFETCH_256:
        snprintf(buf, len, "a prefetch size changes what a miss fetches, not what stays: "
                           "%.0f%% hit, as without hints", 100.0 * e->hot_hit);
        return;
    case CML_L2R_NO_ALLOCATE:
        snprintf(buf, len, "L1 holds little of the hot set: %.0f%% hit in L2, as without hints",
                 100.0 * e->hot_hit);
        return;
    default:
        snprintf(buf, len, "no hints: LRU beside 2 bytes of stream per hot byte keeps %.0f%% "
                           "of the hot reads in L2", 100.0 * e->hot_hit);
        return;
    }
}

static void cml_l2r_model_finding(const cml_plan *plan, cml_record *rec, const l2r_settings *s,
                           const l2r_geom *g, double set_aside, double window)
{
    (void)plan;
    cml_l2r_expect e;
    cml_l2r_expectation((int)s->policy, (double)g->l2, (double)g->hot, (double)g->stream,
                        set_aside * MIB, window * MIB, (double)s->ratio / 100.0,
                        s->prop == L2R_PROP_PERSISTING, &e);
    cml_record_add_extra(rec, "hot_set", (double)g->hot / MIB, "MiB");
    cml_record_add_extra(rec, "persist_max", (double)g->persist_max / MIB, "MiB");
    cml_record_add_extra(rec, "hot_hit_pred", 100.0 * e.hot_hit, "%");
    cml_record_add_extra(rec, "l2_hit_pred", 100.0 * e.l2_hit, "%");
    cml_record_add_extra(rec, "dram_read_pred", e.dram_read / MIB, "MiB");
    cml_record_add_extra(rec, "dram_read_cold", e.dram_read_cold / MIB, "MiB");
    char reason[160];
    why(reason, sizeof reason, s, g, set_aside, window, &e);
    cml_record_finding(rec,
                       "Hot %.1f MiB (%lld%% of the %.1f MiB persisting max%s), read %.0fx per "
                       "launch beside %.0f MiB of stream; %s: DRAM should read %.0f MiB.",
                       (double)g->hot / MIB, (long long)s->hot, (double)g->persist_max / MIB,
                       g->assumed ? ", an H100's: no device" : "",
                       (double)g->stream / (double)g->hot, (double)g->stream / MIB, reason,
                       e.dram_read / MIB);
}

/* The kernel's own body (l2_residency_body.h), on the model's arrays x,
 * h and out. */
typedef struct l2r_mirror_args {
    uint64_t nv, chunks;
    int policy;
} l2r_mirror_args;

static void l2r_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const l2r_mirror_args *a = vargs;
    cml_l2r_body(CML_MIRROR_CTX(t, e), CML_ARRAY(const float4, 0), CML_ARRAY(const float4, 1),
                 CML_ARRAY(float4, 2), a->nv, a->chunks, L2R_SEED_CHUNK, a->policy);
}

static void variant_name(cml_record *rec, const l2r_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "policy", policy_names[s->policy]);
    if (s->policy == CML_L2R_WINDOW) {
        cml_variant_add_label(rec->variant, sizeof rec->variant, "hit-prop",
                              prop_names[s->prop]);
        cml_variant_add(rec->variant, sizeof rec->variant, "hit-ratio", s->ratio);
    }
    cml_variant_add(rec->variant, sizeof rec->variant, "hot", s->hot);
}

#define BLOCK 256u

static cml_status l2r_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    l2r_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    l2r_geom g;
    cml_l2r_geometry(plan, s, &g);
    s->stream = (int64_t)g.stream;
    variant_name(rec, s);
    /* Each input read once, each output written once. */
    rec->bytes_read = g.stream + g.hot;
    rec->bytes_written = g.stream;
    if (plan->dev) {
        const int cc = plan->dev->cc_major * 10 + plan->dev->cc_minor;
        if (cc < cml_l2r_min_cc((int)s->policy)) {
            cml_sweep_waive(ctx, rec, "policy=%s needs sm_%d (this device is sm_%d)",
                            policy_names[s->policy], cml_l2r_min_cc((int)s->policy), cc);
            return CML_OK;
        }
        if (s->policy == CML_L2R_WINDOW && g.persist_max == 0) {
            cml_sweep_waive(ctx, rec, "this device has no persisting L2 "
                                      "(persistingL2CacheMaxSize is 0)");
            return CML_OK;
        }
    }
    l2r_mirror_args a = {g.nv, g.chunks, (int)s->policy};
    const uint64_t nblocks = cml_div_up(g.nv, BLOCK);
    /* Every full block has the same traffic: each warp reads whole aligned
     * 512-byte runs of x and of one hot chunk, and writes one of out. */
    cml_status st = cml_exp_trace_1d(rec, nblocks, BLOCK, 0, g.nv % BLOCK ? 1 : 0, l2r_mirror, &a);
    if (st != CML_OK)
        return st;
    /* The cache levels come from the experiment's own model of the window
     * and the hints (l2_residency_levels.c), not from the LRU simulator's
     * sample, which knows neither and sees none of the hot set's reuse. */
    st = cml_l2r_levels(rec, (int)s->policy, g.l2, g.hot, g.stream, g.persist_max, g.hot,
                        (double)s->ratio / 100.0, s->prop == L2R_PROP_PERSISTING);
    if (st != CML_OK)
        return cml_exp_fail(plan, rec, st);
    cml_l2r_model_finding(plan, rec, s, &g, (double)g.persist_max / MIB, (double)g.hot / MIB);
    return CML_OK;
}

static const char *const dram_extras[] = {"dram_read_pred", "dram_read", NULL};
static const char *const dram_legend[] = {"model", "measured", NULL};

static const cml_chart_spec l2r_charts[] = {
    {.shape = CML_PLOT_SWEEP,
     .title = "DRAM reads per launch against the window's hitRatio",
     .xparam = "hit-ratio",
     .xname = "hit-ratio",
     .xlabel = "hitRatio (%)",
     .ylabel = "DRAM read (MiB)",
     .yfmt = CML_FMT_NUMBER,
     .only_param = "policy",
     .only_label = "window",
     .m = {{"model", CML_METRIC_EXTRA, "dram_read_pred", "the model's", -1},
           {"measured", CML_METRIC_EXTRA, "dram_read", "measured", -1}},
     .what = "DRAM reads",
     .unit = "MiB",
     .describe = 1},
    {.shape = CML_PLOT_EXTRAS,
     .title = "DRAM reads per launch by policy: model and measured",
     .ylabel = "MiB",
     .yfmt = CML_FMT_NUMBER,
     .extra_names = dram_extras,
     .extra_legend = dram_legend,
     .ignore_param = "hot"},
    {.shape = CML_PLOT_BARS,
     .title = "Measured bandwidth by policy",
     .ylabel = "bandwidth (GB/s)",
     .yfmt = CML_FMT_NUMBER,
     .series_param = "policy",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}},
     .what = "bandwidth",
     .unit = "GB/s",
     .describe = 1},
};

/* The requests and sectors of every load and store are the model's (whole
 * 512-byte runs); L1 hits, L2 sectors and DRAM bytes are judged against the
 * intervals of l2_residency_levels.c, at both ends of the window's sweep. */
static const char *const l2r_validate_settings[] = {"hit-ratio=0,100", NULL};
static const cml_validate_spec l2r_validate = {l2r_validate_settings, NULL, 0};

/* ---- the measurement ------------------------------------------------------
 *
 * Experiment 19 on a GPU: one variant's measurement, the device-wide
 * persisting-L2 limit around the window variants, and the findings across
 * the records (does the window keep the hot set, which hint moved the DRAM
 * bytes and by how much).
 *
 * A window variant changes device-wide state, so it is measured in one
 * piece, every step's failure still reaching the end:
 *   1. the counters of earlier variants read now (their replays must not
 *      see the window or the set-aside);
 *   2. persisting lines demoted, the limit set to the device's maximum and
 *      read back (the set-aside the model uses), the window set on the
 *      experiment's stream;
 *   3. poison, time, verify; this variant's counters read while the window
 *      and the set-aside hold;
 *   4. ALWAYS: the window cleared, persisting lines demoted, the limit set
 *      back to its value before the experiment and read back: a different
 *      value fails the record (and the release tries again).
 * The stream is a blocking one, so the harness's events on the legacy
 * stream still bracket each launch (l2_residency_body.h).
 */

#define MIB (1024.0 * 1024.0)

static cml_status l2r_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_l2r_check(ctx, L2R_SEED_X, L2R_SEED_H, d_counters);
}

/* The window's bytes: the hot set, at most cudaDevAttrMaxAccessPolicyWindowSize. */
static uint64_t window_bytes(const l2r_state *st, const l2r_geom *g)
{
    return g->hot < st->max_window || !st->max_window ? g->hot : st->max_window;
}

/* Step 2: the set-aside and the window. *set_aside: the limit read back. */
static cml_status window_begin(l2r_state *st, const l2r_geom *g, const cml_l2r_args *a,
                               const l2r_settings *s, size_t *set_aside)
{
    cml_status r;
    if (!st->have_before) {
        if ((r = cml_l2r_limit_get(&st->limit_before)) != CML_OK)
            return r;
        st->have_before = 1;
    }
    if (!st->max_window && (r = cml_l2r_max_window(&st->max_window)) != CML_OK)
        return r;
    if ((r = cml_l2r_reset_persisting()) != CML_OK)
        return r;
    st->changed = 1; /* from here on the teardown must run */
    if ((r = cml_l2r_limit_set(g->persist_max)) != CML_OK ||
        (r = cml_l2r_limit_get(set_aside)) != CML_OK)
        return r;
    return cml_l2r_window_set(a->stream, a->h, window_bytes(st, g), (double)s->ratio / 100.0,
                              s->prop == L2R_PROP_PERSISTING);
}

/* Step 4, whatever happened before: back to the state before. The limit is
 * set only when it differs (a device that refused to change it is not asked
 * again). CML_OK only when it reads back as it was. */
static cml_status window_end(l2r_state *st, cml_record *rec)
{
    cml_status r1 = cml_l2r_window_clear(st->stream);
    cml_status r2 = cml_l2r_reset_persisting();
    size_t now = st->limit_before;
    cml_status r3 = st->have_before ? cml_l2r_limit_get(&now) : CML_OK;
    if (r3 == CML_OK && now != st->limit_before) {
        r3 = cml_l2r_limit_set(st->limit_before);
        if (r3 == CML_OK)
            r3 = cml_l2r_limit_get(&now);
    }
    if (r1 != CML_OK || r2 != CML_OK || r3 != CML_OK) {
        if (rec && rec->state != CML_REC_FAILED) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "restoring the persisting-L2 state failed: %s",
                            cml_gpu_last_error());
        }
        return r1 ? r1 : r2 ? r2 : r3;
    }
    if (now != st->limit_before) {
        if (rec) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "the persisting-L2 limit is %zu bytes after the run, %zu before",
                            now, st->limit_before);
        }
        return CML_EINVAL;
    }
    st->changed = 0;
    return CML_OK;
}

/* Measured figures into extras and the finding's second half. */
static void measured_finding(cml_record *rec)
{
    const double rd = cml_record_counter_value(rec, "dram__bytes_read.sum");
    const double wr = cml_record_counter_value(rec, "dram__bytes_write.sum");
    const double l2 = cml_record_counter_value(rec, "lts__t_sectors_srcunit_tex_op_read.sum");
    const double hit = cml_record_counter_value(rec, CML_METRIC_L2_READ_HIT_TEX);
    const double stream = (double)rec->bytes_written;
    size_t used = strlen(rec->finding);
    if (!isfinite(rd)) {
        snprintf(rec->finding + used, sizeof rec->finding - used,
                 " Measured %.0f GB/s (--counters on shows the DRAM bytes).",
                 rec->bandwidth_gbs);
        return;
    }
    /* What the stream must read is known; the rest of the DRAM reads are hot
     * reads that missed L2. */
    double hot_hit = 1.0 - (rd - stream) / stream;
    hot_hit = hot_hit < 0 ? 0 : hot_hit > 1 ? 1 : hot_hit;
    cml_record_add_extra(rec, "dram_read", rd / MIB, "MiB");
    if (isfinite(wr))
        cml_record_add_extra(rec, "dram_write", wr / MIB, "MiB");
    cml_record_add_extra(rec, "hot_hit", 100.0 * hot_hit, "%");
    char lookup[64] = "";
    if (isfinite(l2) && l2 > 0 && isfinite(hit)) {
        cml_record_add_extra(rec, "l2_hit", 100.0 * hit / l2, "%");
        snprintf(lookup, sizeof lookup, " (L2 lookups %.0f%%)",
                 100.0 * hit / l2);
    }
    snprintf(rec->finding + used, sizeof rec->finding - used,
             " Measured: DRAM read %.0f MiB, %.0f%% of hot reads hit%s, %.0f GB/s.",
             rd / MIB, 100.0 * hot_hit, lookup, rec->bandwidth_gbs);
}

static cml_status cml_l2r_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const l2r_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    l2r_state *st = ctx->state;
    l2r_geom g;
    cml_l2r_geometry(plan, s, &g);
    cml_dbuf *x = cml_sweep_buffer(ctx, rec, 0, g.stream, L2R_SEED_X);
    cml_dbuf *h = x ? cml_sweep_buffer(ctx, rec, 1, g.hot, L2R_SEED_H) : NULL;
    cml_dbuf *out = h ? cml_sweep_buffer(ctx, rec, 2, g.stream, 0) : NULL;
    if (!out)
        return CML_ECUDA;
    const int window = s->policy == CML_L2R_WINDOW;
    cml_status r;
    if (window && !st->stream && (r = cml_l2r_stream_open(&st->stream)) != CML_OK)
        return cml_exp_fail(plan, rec, r);
    cml_l2r_args a = {x->ptr,   h->ptr, out->ptr, g.nv, g.chunks, L2R_SEED_CHUNK, (int)s->policy,
                      256u, window ? st->stream : NULL};
    if (!window) {
        /* Lines an earlier window left persisting would be hits for free
         * (only a device with persisting L2 has any, or the call). */
        if (g.persist_max && plan->dev->cc_major >= 8 &&
            (r = cml_l2r_reset_persisting()) != CML_OK)
            return cml_exp_fail(plan, rec, r);
        /* The measured half of the finding comes in finish, once the
         * queued counters are read. */
        return cml_exp_measure(plan, rec, out, cml_l2r_launch, &a, cml_l2r_kernel(a.policy),
                               a.block, 0, l2r_check_cb, &a);
    }
    cml_counters_pass_flush(plan->counters_pass);
    size_t set_aside = 0;
    r = window_begin(st, &g, &a, s, &set_aside);
    if (r == CML_OK) {
        r = cml_exp_measure(plan, rec, out, cml_l2r_launch, &a, cml_l2r_kernel(a.policy),
                            a.block, 0, l2r_check_cb, &a);
        cml_counters_pass_flush(plan->counters_pass);
    }
    char refused[256];
    snprintf(refused, sizeof refused, "%s", cml_gpu_last_error());
    cml_status back = st->changed ? window_end(st, rec) : CML_OK;
    if (r == CML_EUNSUPPORTED && back == CML_OK) {
        cml_sweep_waive(ctx, rec, "%s", refused);
        return CML_OK;
    }
    if (r != CML_OK)
        return rec->state == CML_REC_OK ? cml_exp_fail(plan, rec, r) : r;
    if (back != CML_OK)
        return back == CML_ECUDA ? back : CML_EVERIFY;
    /* The model again with the set-aside the device gave. */
    const double given = (double)set_aside / MIB;
    const uint64_t wbytes = window_bytes(st, &g);
    const double window_mib = (double)wbytes / MIB;
    rec->nextra = 0;
    /* The levels too: the set-aside may be rounded, the window cut. */
    r = cml_l2r_levels(rec, (int)s->policy, g.l2, g.hot, g.stream, set_aside, wbytes,
                       (double)s->ratio / 100.0, s->prop == L2R_PROP_PERSISTING);
    if (r != CML_OK)
        return cml_exp_fail(plan, rec, r);
    cml_l2r_model_finding(plan, rec, s, &g, given, window_mib);
    cml_record_add_extra(rec, "set_aside", given, "MiB");
    cml_record_add_extra(rec, "window", window_mib, "MiB");
    measured_finding(rec);
    return CML_OK;
}

/* ---- across the records ------------------------------------------------------ */

static const l2r_settings *settings_of(const cml_sweep *ctx, size_t i)
{
    return cml_sweep_settings_of(ctx, i);
}

static double extra_of(const cml_record *rec, const char *name)
{
    for (unsigned i = 0; i < rec->nextra; i++)
        if (strcmp(rec->extra[i].name, name) == 0)
            return rec->extra[i].value;
    return NAN;
}

static void append(cml_record *rec, const char *text)
{
    size_t used = strlen(rec->finding);
    snprintf(rec->finding + used, sizeof rec->finding - used, "%s", text);
}

/* Records of one hot size: [first, end). Each says how far its DRAM reads
 * moved from the baseline's (policy none); the best window says whether
 * windows keep the hot set, the best hint that it moved DRAM reads most. */
static void compare(cml_sweep *ctx, size_t first, size_t end)
{
    cml_results *out = ctx->out;
    size_t base = SIZE_MAX, best_window = SIZE_MAX, best_hint = SIZE_MAX;
    for (size_t i = first; i < end; i++) {
        const l2r_settings *s = settings_of(ctx, i);
        if (s && s->policy == CML_L2R_NONE && isfinite(extra_of(&out->items[i], "dram_read")))
            base = i;
    }
    if (base == SIZE_MAX)
        return;
    const double b = extra_of(&out->items[base], "dram_read");
    for (size_t i = first; i < end; i++) {
        const l2r_settings *s = settings_of(ctx, i);
        cml_record *r = &out->items[i];
        const double d = extra_of(r, "dram_read");
        if (i == base || !s || !isfinite(d) || r->state != CML_REC_OK)
            continue;
        char text[96];
        snprintf(text, sizeof text, " DRAM reads %+.1f%% (%+.0f MiB) against no hint.",
                 100.0 * (d / b - 1.0), d - b);
        append(r, text);
        size_t *best = s->policy == CML_L2R_WINDOW ? &best_window : &best_hint;
        if (*best == SIZE_MAX || d < extra_of(&out->items[*best], "dram_read"))
            *best = i;
    }
    if (best_window != SIZE_MAX) {
        cml_record *w = &out->items[best_window];
        append(w, extra_of(w, "dram_read") < 0.97 * b
                      ? " The best window: it keeps part of the hot set in L2."
                      : " The best window, and it keeps no more than no hint.");
    }
    if (best_hint != SIZE_MAX && extra_of(&out->items[best_hint], "dram_read") < b)
        append(&out->items[best_hint], " The hint that saved most DRAM reads.");
}

static void cml_l2r_finish(cml_sweep *ctx)
{
    const cml_plan *plan = ctx->plan;
    l2r_state *st = ctx->state;
    if (!plan->gpu)
        return;
    /* The queued counters passes, while the buffers exist: the findings
     * need them. */
    cml_counters_pass_flush(plan->counters_pass);
    cml_results *out = ctx->out;
    for (size_t i = ctx->first; i < out->count; i++) {
        const l2r_settings *s = settings_of(ctx, i);
        cml_record *r = &out->items[i];
        if (s && s->policy != CML_L2R_WINDOW && r->state == CML_REC_OK && r->measured)
            measured_finding(r);
    }
    /* One comparison per hot size (the option after policy). */
    size_t first = ctx->first;
    for (size_t i = ctx->first + 1; i <= out->count; i++) {
        const l2r_settings *a = settings_of(ctx, first);
        const l2r_settings *b = i < out->count ? settings_of(ctx, i) : NULL;
        if (!a || !b || a->hot != b->hot) {
            compare(ctx, first, i);
            first = i;
        }
    }
    /* The check after the run: the limit as it was before. */
    if (st->have_before) {
        size_t now = 0;
        if (cml_l2r_limit_get(&now) != CML_OK || now != st->limit_before)
            cml_results_diag(out, CML_DIAG_ERROR, ctx->exp->key,
                             "the persisting-L2 limit is %zu bytes after the run, %zu before",
                             now, st->limit_before);
    }
}

static void cml_l2r_release(cml_sweep *ctx)
{
    l2r_state *st = ctx->state;
    if (st->changed && ctx->plan->gpu)
        (void)window_end(st, NULL); /* after a fatal error: try to leave the device as it was */
    if (st->stream)
        cml_l2r_stream_close(st->stream);
    st->stream = NULL;
}

const cml_experiment cml_exp_l2_residency = {
    .key = "l2-residency",
    .number = 20,
    .title = "Keeping a hot set in L2",
    .summary = "a stream beside a re-read hot set larger than the persisting-L2 maximum: the "
               "access policy window (hitRatio, hitProp) and per-access eviction hints, "
               "DRAM bytes against the model",
    .doc = "docs/experiments/l2-residency.md",
    .options = l2r_params,
    .noptions = CML_COUNT(l2r_params),
    .settings_size = sizeof(l2r_settings),
    .state_size = sizeof(l2r_state),
    .tour = "hit-ratio=0,50,100",
    .variant = l2r_variant,
    .measure = cml_l2r_measure,
    .finish = cml_l2r_finish,
    .release = cml_l2r_release,
    .charts = l2r_charts,
    .ncharts = CML_COUNT(l2r_charts),
    .validate = &l2r_validate,
};
