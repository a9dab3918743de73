/*
 * Experiment 19: keeping a hot set in L2. A kernel streams a large array
 * through DRAM (out = x + hot) while it re-reads a hot set larger than the
 * persisting-L2 maximum of the device at random, 512 bytes per warp
 * (l2_residency_kernels.h). Every way of asking L2 to keep or drop lines is
 * tried on the same pattern:
 *   - an access policy window on the hot set (cudaStreamAttributeAccessPolicyWindow
 *     on the stream the kernel runs on), hitRatio 0..1 swept, hitProp
 *     persisting or streaming, missProp streaming, with the persisting
 *     set-aside (cudaLimitPersistingL2CacheSize) at the device's maximum for
 *     the measurement and restored afterwards (l2_residency_gpu.c);
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

#include "experiments/l2_residency/l2_residency_body.h"
#include "experiments/l2_residency/l2_residency_internal.h"

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

void cml_l2r_geometry(const cml_plan *plan, const l2r_settings *s, l2r_geom *g)
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

double cml_l2r_lru_hit(double l2, double hot)
{
    if (hot <= 0)
        return 0.0;
    /* f(T) = 8T + H (1 - e^(-4T/H)) - C rises from -C at T = 0; at T = C/8
     * it is >= 0. Bisection to a relative 1e-12. */
    double lo = 0.0, hi = l2 / 8.0;
    for (int k = 0; k < 200 && hi - lo > 1e-12 * hi; k++) {
        double t = 0.5 * (lo + hi);
        double f = 8.0 * t + hot * (1.0 - exp(-4.0 * t / hot)) - l2;
        if (f < 0)
            lo = t;
        else
            hi = t;
    }
    return 1.0 - exp(-4.0 * 0.5 * (lo + hi) / hot);
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

void cml_l2r_model_finding(const cml_plan *plan, cml_record *rec, const l2r_settings *s,
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
    /* The DRAM bytes this experiment is about come from its own model of the
     * policy window and the hints (cml_l2r_model_finding); the LRU cache
     * simulator knows neither, so the record carries no cache-level figures
     * for validate to judge. */
    rec->has_levels = 0;
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
 * 512-byte runs); L2 and DRAM are information counters. */
static const char *const l2r_validate_settings[] = {"hit-ratio=0,100", NULL};
static const cml_validate_spec l2r_validate = {l2r_validate_settings, NULL, 0};

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
