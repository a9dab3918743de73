/*
 * The chase's per-hop histogram, read (docs/experiments/hierarchy.md, "Near
 * and far L2"): the median hop, and where the hops fall in two modes (an
 * H100's L2 at 32 MiB: the SM's near partition and the far one) each mode's
 * median and share. The split is found in the data, never at a cycle count
 * written here: the deepest valley between the histogram's two highest
 * peaks. Plain C on 32 counts, tested on synthetic histograms
 * (tests/test_hierarchy_hist.c).
 */
#include <math.h>
#include <stdio.h>

#include "experiments/hierarchy/hierarchy_body.h"

/* A second mode must stand out: the valley down to at most half of the lower
 * peak, and at least 5% of the hops on each side of it (a stray hop or a
 * handful, an interrupt or a refresh, is no mode). */
#define VALLEY_MAX 0.5
#define MODE_MIN 0.05

double cml_hier_hist_edge(unsigned k)
{
    if (k > CML_HIER_HIST_BINS)
        k = CML_HIER_HIST_BINS;
    const unsigned e = 4u + k / 4u, f = k % 4u;
    return (double)(1ull << (e - 2u)) * (double)(4u + f);
}

/* The q-quantile of the hops in bins a..b, linear within its bin (a bin's
 * hops spread evenly over its range; bin 0's and 31's clamped hops taken as
 * inside it). NaN when those bins are empty. */
static double quantile(const uint64_t *c, unsigned a, unsigned b, double q)
{
    double n = 0;
    for (unsigned k = a; k <= b; k++)
        n += (double)c[k];
    if (n <= 0)
        return NAN;
    const double want = q * n;
    double run = 0;
    for (unsigned k = a; k <= b; k++) {
        if (c[k] && run + (double)c[k] >= want) {
            const double lo = cml_hier_hist_edge(k), hi = cml_hier_hist_edge(k + 1);
            return lo + (hi - lo) * (want - run) / (double)c[k];
        }
        run += (double)c[k];
    }
    return cml_hier_hist_edge(b + 1);
}

static uint64_t sum(const uint64_t *c, unsigned a, unsigned b)
{
    uint64_t s = 0;
    for (unsigned k = a; k <= b && k < CML_HIER_HIST_BINS; k++)
        s += c[k];
    return s;
}

/* The lowest count strictly between bins i < j, and the first bin that has it. */
static uint64_t valley(const uint64_t *c, unsigned i, unsigned j, unsigned *at)
{
    uint64_t v = UINT64_MAX;
    for (unsigned k = i + 1; k < j; k++)
        if (c[k] < v) {
            v = c[k];
            *at = k;
        }
    return v;
}

void cml_hier_hist_modes(const uint64_t *c, cml_hier_modes *m)
{
    const unsigned B = CML_HIER_HIST_BINS;
    m->total = sum(c, 0, B - 1);
    m->median = quantile(c, 0, B - 1, 0.5);
    m->bimodal = 0;
    m->near = m->far = m->far_fraction = NAN;
    m->valley = 0;
    if (!m->total)
        return;
    unsigned p1 = 0;
    for (unsigned k = 1; k < B; k++)
        if (c[k] > c[p1])
            p1 = k;
    /* The second peak: the highest bin that a dip separates from the first
     * (a bin on the first peak's slope has none: no bin between them is
     * lower than it). */
    unsigned p2 = B, at = 0;
    for (unsigned j = 0; j < B; j++) {
        if (j + 1 >= p1 && j <= p1 + 1)
            continue; /* the peak and its neighbours: nothing between */
        const uint64_t v = j < p1 ? valley(c, j, p1, &at) : valley(c, p1, j, &at);
        if (c[j] > v && (p2 == B || c[j] > c[p2]))
            p2 = j;
    }
    if (p2 == B)
        return;
    const unsigned lo = p1 < p2 ? p1 : p2, hi = p1 < p2 ? p2 : p1;
    const uint64_t v = valley(c, lo, hi, &m->valley);
    const uint64_t below = sum(c, 0, m->valley - 1), above = sum(c, m->valley + 1, B - 1);
    if ((double)v > VALLEY_MAX * (double)c[p2] ||
        (double)(below < above ? below : above) < MODE_MIN * (double)m->total)
        return;
    m->bimodal = 1;
    m->near = quantile(c, 0, m->valley - 1, 0.5);
    m->far = quantile(c, m->valley + 1, B - 1, 0.5);
    m->far_fraction = (double)above / (double)(below + above);
}

void cml_hier_hist_record(cml_record *rec, const uint64_t *counts, char *text, size_t len)
{
    cml_hier_modes m;
    cml_hier_hist_modes(counts, &m);
    text[0] = '\0';
    if (!m.total)
        return;
    cml_record_add_extra(rec, "hop_median_cycles", m.median, "cycles");
    if (!m.bimodal) {
        snprintf(text, len, " Per hop: median %.0f cycles, one mode.", m.median);
        return;
    }
    cml_record_add_extra(rec, "near_cycles", m.near, "cycles");
    cml_record_add_extra(rec, "far_cycles", m.far, "cycles");
    cml_record_add_extra(rec, "far_fraction", m.far_fraction, "");
    snprintf(text, len,
             " Per hop: median %.0f cycles, two modes: near %.0f cycles (%.0f%% of hops) and far "
             "%.0f (%.0f%%), split at the histogram's deepest valley (%.0f-%.0f cycles).",
             m.median, m.near, 100.0 * (1.0 - m.far_fraction), m.far, 100.0 * m.far_fraction,
             cml_hier_hist_edge(m.valley), cml_hier_hist_edge(m.valley + 1));
}
