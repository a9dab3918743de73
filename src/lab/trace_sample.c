/*
 * Sampled grids (trace_sample.h): m of the grid's N warps drawn uniformly
 * without replacement, traced through cml_trace_warps, every figure scaled
 * by N / m, and the bound that sampling gives on each.
 *
 * The bound: a warp's figure lies in [0, R], R the most its instructions
 * can add (cml_exp_sample_caps, summed over what a warp may issue). For the
 * mean of m of N such values drawn without replacement, Hoeffding's
 * inequality with Serfling's factor gives
 *     P(|mean_m - mean_N| >= e) <= 2 exp(-2 m e^2 / ((1 - (m-1)/N) R^2)),
 * so the total N * mean_N is within
 *     N * R * sqrt((1 - (m-1)/N) * ln(2 / (1 - confidence)) / (2 m))
 * of the estimate with that confidence, each figure on its own. It needs no
 * assumption about the pattern, only R; where warps differ far less than R
 * allows (most patterns), the true error is much smaller than the bound.
 */
#include "lab/trace_sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "lab/trace.h"

void cml_exp_sample_caps(const cml_exp_sample_kind *k, cml_rules rules, cml_traffic *cap)
{
    const uint64_t lanes = CML_WARP_SIZE, w = k->width;
    const int fermi = rules == CML_RULES_FERMI;
    /* A lane's access (w <= 16 bytes, aligned) lies in one sector and one
     * line; a local one is cut into w/4 words, each in a line of its own. */
    const uint64_t per_lane = k->space == CML_SPACE_LOCAL && w > 4u ? w / 4u : 1u;
    memset(cap, 0, sizeof *cap);
    cap->instructions = 1;
    cap->requests = 1;
    cap->requested_bytes = cap->lane_bytes = lanes * w;
    switch (k->space) {
    case CML_SPACE_GLOBAL:
    case CML_SPACE_LOCAL:
        /* Fermi splits 8- and 16-byte accesses into half and quarter warps */
        cap->requests = fermi && w > 4u ? w / 4u : 1u;
        cap->sectors = cap->lines = cap->transactions = lanes * per_lane;
        /* a 32-byte transaction per sector (modern); at most one per line
         * touched, of at most 128 bytes (Fermi) */
        cap->transaction_bytes = cap->efficiency_bytes =
            lanes * per_lane * (fermi ? CML_LINE_BYTES : CML_SECTOR_BYTES);
        break;
    case CML_SPACE_SHARED:
        /* each phase: at most as many distinct words in one bank as it has
         * lanes; the phases together at most 32 */
        cap->wavefronts = cap->bank_conflicts = lanes;
        cap->ideal_wavefronts = 4;
        cap->efficiency_bytes = lanes * CML_SHARED_BANKS * CML_BANK_BYTES;
        break;
    default:
        cap->serialized = lanes;
        break;
    }
}

double cml_exp_sample_half_width(uint64_t N, uint64_t m, double range, double confidence)
{
    if (m == 0 || N == 0)
        return 0.0;
    if (m >= N)
        return 0.0; /* every unit: exact */
    const double fpc = 1.0 - ((double)m - 1.0) / (double)N;
    return (double)N * range * sqrt(fpc * log(2.0 / (1.0 - confidence)) / (2.0 * (double)m));
}

/* A value uniform in 0..bound-1 from the counter *state (rejection keeps
 * it exactly uniform). */
static uint64_t below(uint64_t *state, uint64_t bound)
{
    const uint64_t reject = (0u - bound) % bound; /* 2^64 mod bound */
    for (;;) {
        const uint64_t x = cml_mix64((*state)++);
        if (x >= reject)
            return x % bound;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * m distinct values of 0..N-1, uniformly (Floyd's algorithm: for j from
 * N-m to N-1, draw t in 0..j and take t unless already taken, else j;
 * every m-subset is equally likely), sorted. A hash set of 2^k >= 2m
 * slots finds what was taken. CML_ENOMEM on failure.
 */
static cml_status draw(uint64_t N, uint64_t m, uint64_t seed, uint64_t *out)
{
    size_t slots = 1;
    while (slots < 2u * m)
        slots <<= 1;
    uint64_t *set = malloc(slots * sizeof *set); /* value + 1; 0: empty */
    if (!set)
        return CML_ENOMEM;
    memset(set, 0, slots * sizeof *set);
    uint64_t state = seed;
    size_t n = 0;
    for (uint64_t j = N - m; j < N; j++) {
        uint64_t t = below(&state, j + 1u);
        for (int pass = 0; pass < 2; pass++) {
            size_t h = (size_t)((t * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (slots - 1u);
            while (set[h] && set[h] != t + 1u)
                h = (h + 1u) & (slots - 1u);
            if (!set[h]) {
                set[h] = t + 1u;
                out[n++] = t;
                break;
            }
            t = j; /* t was taken: j never was (every value drawn so far is < j) */
        }
    }
    free(set);
    qsort(out, n, sizeof *out, cmp_u64);
    return CML_OK;
}

/* The ceiling of each figure of one warp: what its instructions may add. */
static void warp_caps(const cml_exp_sample_kind *kinds, size_t nkinds, cml_rules r,
                      cml_kernel_traffic *caps)
{
    memset(caps, 0, sizeof *caps);
    for (size_t k = 0; k < nkinds; k++) {
        const cml_class c = cml_class_of(kinds[k].space, kinds[k].op);
        if (c >= CML_CLASS_COUNT)
            continue;
        cml_traffic one;
        cml_exp_sample_caps(&kinds[k], r, &one);
        cml_traffic_add_scaled(&caps->cls[c], &one, kinds[k].per_warp);
    }
}

/* x * N / m to the nearest integer (the counts stay far below 2^53). */
static uint64_t scale(uint64_t x, uint64_t N, uint64_t m)
{
    return (uint64_t)floor((double)x * (double)N / (double)m + 0.5);
}

cml_status cml_exp_trace_sample(cml_record *rec, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                                const void *args, const cml_exp_sample_kind *kinds,
                                size_t nkinds, uint64_t warps)
{
    const uint64_t threads = (uint64_t)block.x * block.y * block.z;
    const uint64_t wpb = (threads + CML_WARP_SIZE - 1u) / CML_WARP_SIZE;
    const uint64_t N = (uint64_t)grid.x * grid.y * grid.z * wpb;
    memset(&rec->sample, 0, sizeof rec->sample);
    if (warps == 0 || N <= warps)
        return cml_exp_trace(rec, grid, block, fn, args);
    const uint64_t m = warps;
    uint64_t *ids = malloc(m * sizeof *ids);
    cml_status st = ids ? draw(N, m, UINT64_C(0x5A3B1E), ids) : CML_ENOMEM;
    for (int r = 0; st == CML_OK && r < CML_RULES_COUNT; r++) {
        cml_kernel_traffic sum, caps;
        memset(&sum, 0, sizeof sum);
        st = cml_trace_warps((cml_rules)r, grid, block, ids, NULL, m, fn, args, &sum);
        if (st != CML_OK)
            break;
        warp_caps(kinds, nkinds, (cml_rules)r, &caps);
        for (int c = 0; c < CML_CLASS_COUNT; c++) {
            const uint64_t *s = (const uint64_t *)(const void *)&sum.cls[c];
            const uint64_t *cap = (const uint64_t *)(const void *)&caps.cls[c];
            uint64_t *est = (uint64_t *)(void *)&rec->model[r].cls[c];
            cml_traffic bound;
            uint64_t *half = (uint64_t *)(void *)&bound;
            for (size_t f = 0; f < CML_TRAFFIC_FIELDS; f++) {
                est[f] = scale(s[f], N, m);
                half[f] = (uint64_t)ceil(cml_exp_sample_half_width(
                    N, m, (double)cap[f], CML_EXP_SAMPLE_CONFIDENCE));
            }
            cml_sample_set_half(rec, r, c, &bound);
        }
    }
    free(ids);
    if (st != CML_OK) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model: %s", cml_status_str(st));
        return st;
    }
    rec->sample.warps = m;
    rec->sample.of = N;
    rec->sample.confidence = CML_EXP_SAMPLE_CONFIDENCE;
    rec->has_model = 1;
    rec->grid = (uint64_t)grid.x * grid.y * grid.z;
    rec->block = threads;
    return cml_exp_levels(rec, grid, block, fn, args);
}

void cml_exp_sample_note(cml_record *rec, cml_class c, char *buf, size_t len)
{
    buf[0] = '\0';
    const struct cml_model_sample *s = &rec->sample;
    if (!s->warps || c >= CML_CLASS_COUNT)
        return;
    const cml_traffic *t = &rec->model[CML_RULES_MODERN].cls[c];
    cml_traffic bound;
    cml_sample_half(rec, CML_RULES_MODERN, (int)c, &bound);
    const cml_traffic *h = &bound;
    const char *what = "sectors";
    uint64_t v = t->sectors, hv = h->sectors;
    if (c == CML_CLASS_SHARED_LD || c == CML_CLASS_SHARED_ST) {
        what = "wavefronts";
        v = t->wavefronts;
        hv = h->wavefronts;
    } else if (c == CML_CLASS_CONST_LD) {
        what = "serialized accesses";
        v = t->serialized;
        hv = h->serialized;
    }
    const double pct = v ? 100.0 * (double)hv / (double)v : 0.0;
    cml_record_add_extra(rec, "sampled_warps", (double)s->warps, "warps");
    cml_record_add_extra(rec, "bound", pct, "%");
    snprintf(buf, len,
             " Sampled: %llu of %llu warps traced (no period to shorten the walk); with %.0f%% "
             "confidence the grid's %s are %llu +- %llu (%.2f%%), and every other figure within "
             "its own stated bound.",
             (unsigned long long)s->warps, (unsigned long long)s->of, 100.0 * s->confidence, what,
             (unsigned long long)v, (unsigned long long)hv, pct);
}
