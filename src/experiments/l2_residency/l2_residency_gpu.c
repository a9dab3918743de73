/*
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
 * stream still bracket each launch (l2_residency_kernels.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters/counters.h"
#include "experiments/l2_residency/l2_residency_internal.h"
#include "gpu/gpu_internal.h"
#include "lab/counters_pass.h"

#define MIB (1024.0 * 1024.0)

double cml_l2r_counter(const cml_record *rec, const char *metric)
{
    for (unsigned i = 0; i < rec->ncounters && i < CML_RECORD_MAX_COUNTERS; i++)
        if (strcmp(rec->counters[i].name, metric) == 0)
            return rec->counters[i].measured;
    return NAN;
}

static cml_status l2r_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_l2r_check(ctx, L2R_SEED_X, L2R_SEED_H, d_counters);
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
    size_t w = g->hot < st->max_window || !st->max_window ? g->hot : st->max_window;
    return cml_l2r_window_set(a->stream, a->h, w, (double)s->ratio / 100.0,
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
    const double rd = cml_l2r_counter(rec, "dram__bytes_read.sum");
    const double wr = cml_l2r_counter(rec, "dram__bytes_write.sum");
    const double l2 = cml_l2r_counter(rec, "lts__t_sectors_srcunit_tex_op_read.sum");
    const double hit = cml_l2r_counter(rec, "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum");
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

cml_status cml_l2r_measure(cml_sweep *ctx, void *vs, cml_record *rec)
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
    const double window_mib =
        (double)(g.hot < st->max_window || !st->max_window ? g.hot : st->max_window) / MIB;
    rec->nextra = 0;
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

void cml_l2r_finish(cml_sweep *ctx)
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

void cml_l2r_release(cml_sweep *ctx)
{
    l2r_state *st = ctx->state;
    if (st->changed && ctx->plan->gpu)
        (void)window_end(st, NULL); /* after a fatal error: try to leave the device as it was */
    if (st->stream)
        cml_l2r_stream_close(st->stream);
    st->stream = NULL;
}
