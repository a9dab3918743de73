/*
 * transfers, mode=copy: what a sweep of copy sizes shows (the analysis
 * beside transfers_copy.c's measurements). Per (memory, direction) sweep:
 * each copy's share of the sweep's best rate and of the link's raw rate,
 * where half of the best rate is reached and the latency-bandwidth fit
 * t = t0 + s/B; the reference cudaMemcpyAsync against the cudaMemcpy copies
 * of its size and direction.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/stats.h"
#include "experiments/transfers/transfers_internal.h"

cml_status cml_transfers_half_bandwidth(const double *bytes, const double *ms, size_t n,
                                        cml_halfbw *out)
{
    if (!bytes || !ms || !out || n == 0)
        return CML_EINVAL;
    memset(out, 0, sizeof *out);
    double best = 0.0;
    for (size_t k = 0; k < n; k++) {
        if (!(bytes[k] > 0) || !(ms[k] > 0))
            return CML_EINVAL;
        double gbs = cml_gbs(bytes[k], ms[k]);
        if (gbs > best) {
            best = gbs;
            out->asym_index = k;
        }
    }
    out->asym_gbs = best;
    const double half = best / 2.0;
    size_t k = 0;
    while (k < n && cml_gbs(bytes[k], ms[k]) < half)
        k++; /* k < n: the best size itself reaches half */
    out->half_index = k;
    if (k == 0) {
        out->half_bytes = bytes[0];
    } else {
        double b0 = cml_gbs(bytes[k - 1], ms[k - 1]);
        double b1 = cml_gbs(bytes[k], ms[k]);
        double f = b1 > b0 ? (half - b0) / (b1 - b0) : 1.0;
        out->half_bytes = exp(log(bytes[k - 1]) + f * (log(bytes[k]) - log(bytes[k - 1])));
    }
    /* t(s) = t0 + s/B at the smallest size; bytes per ms = GB/s * 1e6. */
    double t0_ms = ms[0] - bytes[0] / (best * 1e6);
    if (t0_ms < 0)
        t0_ms = 0;
    out->t0_us = t0_ms * 1e3;
    out->fit_half_bytes = t0_ms * best * 1e6;
    return CML_OK;
}

static int is_ref(const tr_copy_state *c, size_t i)
{
    return c->have_ref && (i == c->ref_idx[0] || i == c->ref_idx[1]);
}

/* Latency or bandwidth, per record, and one sentence per sweep: where half
 * of the asymptotic rate is reached. idx[0..n) are one (memory, direction)
 * sweep's records, sizes ascending. */
static void copy_group_summary(cml_sweep *ctx, const size_t *idx, size_t n)
{
    const tr_link *lk = &tr_state_of(ctx)->quoted;
    cml_record *out = ctx->out->items;
    double bytes[64], ms[64];
    size_t m = 0, first = SIZE_MAX, last = SIZE_MAX;
    for (size_t k = 0; k < n && m < 64; k++) {
        const cml_record *r = &out[idx[k]];
        if (r->state != CML_REC_OK || !r->measured)
            continue;
        const tr_settings *s = tr_settings_of(ctx, idx[k]);
        bytes[m] = (double)s->size * (s->direction == DIR_BOTH ? 2 : 1);
        ms[m++] = r->timing.median_ms;
        if (first == SIZE_MAX)
            first = idx[k];
    }
    cml_halfbw h;
    if (m == 0 || cml_transfers_half_bandwidth(bytes, ms, m, &h) != CML_OK)
        return;
    /* Both directions at once can use both directions of the link. */
    const int both = tr_settings_of(ctx, first)->direction == DIR_BOTH;
    const double per = both ? 0.5 : 1.0, raw = lk->raw_gbs * (both ? 2 : 1);
    for (size_t k = 0; k < n; k++) {
        cml_record *r = &out[idx[k]];
        if (r->state != CML_REC_OK || !r->measured)
            continue;
        tr_set_extra(r, "of_best_pct", 100.0 * r->bandwidth_gbs / h.asym_gbs, "%");
        tr_set_extra(r, "of_link_raw_pct", 100.0 * r->bandwidth_gbs / raw, "%");
        r->finding[0] = '\0';
        last = idx[k];
    }
    const tr_settings *ls = tr_settings_of(ctx, last);
    char s_small[40], s_big[40], s_half[40], s_fit[40], s_lo[32], s_hi[32];
    cml_fmt_bytes(s_small, sizeof s_small, bytes[0] * per);
    cml_fmt_bytes(s_big, sizeof s_big, bytes[h.asym_index] * per);
    cml_fmt_bytes(s_half, sizeof s_half, h.half_bytes * per);
    cml_fmt_bytes(s_fit, sizeof s_fit, h.fit_half_bytes * per);
    if (both) {
        strcat(s_small, " each way");
        strcat(s_big, " each way");
    }
    char where[160];
    if (h.half_index == 0) {
        snprintf(where, sizeof where, "already at the smallest size, %s", s_small);
    } else {
        cml_fmt_bytes(s_lo, sizeof s_lo, bytes[h.half_index - 1] * per);
        cml_fmt_bytes(s_hi, sizeof s_hi, bytes[h.half_index] * per);
        snprintf(where, sizeof where, "near %s (between %s: %.1f and %s: %.1f GB/s)", s_half,
                 s_lo, cml_gbs(bytes[h.half_index - 1], ms[h.half_index - 1]), s_hi,
                 cml_gbs(bytes[h.half_index], ms[h.half_index]));
    }
    cml_record *lr = &out[last];
    tr_set_extra(lr, "half_bw_bytes", h.half_bytes * per, "B");
    tr_set_extra(lr, "latency_us", h.t0_us, "us");
    cml_record_finding(lr,
                       "%s %s: %s takes %.1f us (%.2f GB/s); the best, %.1f GB/s at %s, is "
                       "%.0f%% of %s x%u's raw rate%s. Half of it is reached %s; t = t0 + s/B "
                       "fits t0 = %.1f us, so s1/2 = t0*B = %s: below it copies are "
                       "latency-bound, above it bandwidth-bound.",
                       tr_memory_names[ls->memory], tr_dir_names[ls->direction], s_small,
                       out[first].timing.median_ms * 1e3, out[first].bandwidth_gbs, h.asym_gbs,
                       s_big, 100.0 * h.asym_gbs / raw, tr_link_names[lk->link],
                       tr_lanes_values[lk->lanes], both ? " (both ways)" : "", where, h.t0_us,
                       s_fit);
}

/* Sort record indices idx[0..n) by their size, ascending and stable: the
 * analysis reads a sweep smallest first, whatever order the sizes were
 * listed in. */
static void sort_by_size(const cml_sweep *ctx, size_t *idx, size_t n)
{
    for (size_t j = 1; j < n; j++) {
        size_t i = idx[j], k = j;
        for (; k > 0 && tr_settings_of(ctx, idx[k - 1])->size > tr_settings_of(ctx, i)->size; k--)
            idx[k] = idx[k - 1];
        idx[k] = i;
    }
}

/* The reference's sentence: how the cudaMemcpy figures at its size and
 * direction compare with it (within 10%: the same DMA path). Rewritten as
 * the later memory kinds' copies come in. */
static void reference_finding(cml_sweep *ctx, int dir)
{
    const tr_state *st = tr_state_of(ctx);
    const tr_copy_state *c = &st->copy;
    if (!c->have_ref || c->ref_idx[dir] == SIZE_MAX)
        return;
    cml_record *r = &ctx->out->items[c->ref_idx[dir]];
    if (r->state != CML_REC_OK || !r->measured)
        return;
    char cmp[200] = "", sz[32], linkinfo[96] = "";
    int all_within = 1, any = 0;
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const cml_record *o = &ctx->out->items[i];
        const tr_settings *s = tr_settings_of(ctx, i);
        if (!s || s->mode != MODE_COPY || is_ref(c, i) || o->state != CML_REC_OK ||
            !o->measured || s->size != c->ref_size || s->direction != dir)
            continue;
        double diff = 100.0 * (o->bandwidth_gbs - r->bandwidth_gbs) / r->bandwidth_gbs;
        if (s->memory != MEM_PAGEABLE) {
            any = 1;
            all_within &= fabs(diff) <= 10.0;
        }
        size_t used = strlen(cmp);
        snprintf(cmp + used, sizeof cmp - used, "%s%s %.1f (%+.1f%%)", used ? ", " : "",
                 tr_memory_names[s->memory], o->bandwidth_gbs, diff);
    }
    cml_fmt_bytes(sz, sizeof sz, (double)c->ref_size);
    if (st->sys_gts > 0)
        snprintf(linkinfo, sizeof linkinfo,
                 " Linux reports the link at %.1f GT/s x%d (%.1f GB/s raw).", st->sys_gts,
                 st->sys_lanes, cml_pcie_raw_gbs(st->sys_gts, (unsigned)st->sys_lanes));
    cml_record_finding(r,
                       "Reference, cudaMemcpyAsync from pinned memory, %s %s: %.1f GB/s. "
                       "cudaMemcpy: %s%s.%s",
                       sz, tr_dir_names[dir], r->bandwidth_gbs, cmp[0] ? cmp : "none measured",
                       !any ? "" : all_within ? ": pinned copies within 10%, the same DMA path"
                                              : ": a pinned copy is NOT within 10% of it",
                       linkinfo);
}

/* After each (memory, direction) sweep of sizes, records [first, last]. */
void tr_copy_summary(cml_sweep *ctx, size_t first, size_t last)
{
    tr_copy_state *c = &tr_state_of(ctx)->copy;
    if (!ctx->plan->gpu)
        return;
    const tr_settings *s = tr_settings_of(ctx, first);
    if (c->both_waived && c->both_idx >= first && c->both_idx <= last) {
        /* The pageable "both" record stands for the whole sweep: its largest size. */
        tr_settings w = *tr_settings_of(ctx, c->both_idx);
        w.size = (int64_t)c->both_max;
        cml_record *rec = &ctx->out->items[c->both_idx];
        tr_copy_name(rec->variant, sizeof rec->variant, w.memory, w.direction, w.size, 0);
        tr_params(rec, &w, &tr_state_of(ctx)->quoted, 0, 0);
        rec->bytes_read = 2 * (uint64_t)w.size;
        return;
    }
    size_t idx[CML_MAX_VALUES], n = 0;
    for (size_t i = first; i <= last && n < CML_MAX_VALUES; i++)
        idx[n++] = i;
    sort_by_size(ctx, idx, n);
    copy_group_summary(ctx, idx, n);
    /* The reference runs with the first pinned kind, at its largest size. */
    if (!c->have_ref && s->memory != MEM_PAGEABLE) {
        int64_t size = -1;
        for (size_t k = 0; k < n; k++)
            if (ctx->out->items[idx[k]].state != CML_REC_WAIVED)
                size = tr_settings_of(ctx, idx[k])->size;
        if (size > 0)
            tr_copy_reference(ctx, last, s->memory, size);
    }
    reference_finding(ctx, DIR_H2D);
    reference_finding(ctx, DIR_D2H);
}

/* A later link quoted: each sweep's sentence again. */
void tr_copy_requote(cml_sweep *ctx, size_t first, size_t end)
{
    const tr_copy_state *c = &tr_state_of(ctx)->copy;
    if (!ctx->plan->gpu)
        return;
    size_t idx[CML_MAX_VALUES], n = 0;
    for (size_t i = first; i <= end; i++) {
        const tr_settings *s = i < end ? tr_settings_of(ctx, i) : NULL;
        if (s && (s->mode != MODE_COPY || is_ref(c, i)))
            continue;
        if (n && (!s || s->memory != tr_settings_of(ctx, idx[0])->memory ||
                  s->direction != tr_settings_of(ctx, idx[0])->direction)) {
            sort_by_size(ctx, idx, n);
            copy_group_summary(ctx, idx, n);
            n = 0;
        }
        if (s && n < CML_MAX_VALUES)
            idx[n++] = i;
    }
}

