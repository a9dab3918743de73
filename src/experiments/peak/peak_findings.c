/*
 * Experiment 16 after the sweep: the class references and what the
 * measured numbers say about them.
 *
 *   - The best verified figure of each class (read, write, copy, triad;
 *     core/peak_class.h) is that class's reference: into results->peaks
 *     (kept when the lab's quick search found more), and every record's
 *     share of peak is taken against its own class.
 *   - The best record of each class says what limits it, from its counters
 *     (read while its size's buffers still existed, cml_peak_read_counters):
 *     how busy DRAM was, how much of the launch the SMs were active (the
 *     ramp and the tail of the last wave), extra DRAM bytes. The mixed
 *     classes also say what the read/write turnarounds cost: the pure
 *     references predict a mix's time as reads at the read speed plus
 *     writes at the write speed.
 *   - For each kernel, the best shape of the losing layout says by how much
 *     and why it lost (one-shot: a fixed cost per block; grid-stride: equal
 *     shares that wait for the slowest block).
 *   - Across sizes, the class-best shape at the sizes it lost at says
 *     whether the short launch (ramp, last wave) or the large array (TLB
 *     reach) cost it.
 * docs/experiments/peak-bandwidth.md explains each.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "counters/counters.h"
#include "experiments/peak/peak_internal.h"

const char *const cml_peak_diag_metrics[PEAK_DIAG_COUNT] = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__cycles_active.avg",
    "sm__cycles_elapsed.avg",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
};

/* A record that holds a figure: measured and verified. */
static int usable(const cml_record *r)
{
    return r->state == CML_REC_OK && r->measured && r->verify == CML_VERIFY_PASSED &&
           r->bandwidth_gbs > 0 && isfinite(r->bandwidth_gbs);
}

/* The bytes a peak kernel touches: each array once per launch, so the
 * bytes it moves. */
static uint64_t touched(const cml_record *r)
{
    return r->bytes_read + r->bytes_written;
}

/* Arrays that fit in the record's L2: a cache's figure, never a DRAM
 * reference (core/record.h, cml_record_residency). */
static int cache_resident(const cml_record *r)
{
    return cml_record_residency(r, touched(r)) != CML_PEAK_CLASS_NONE;
}

/* Append a sentence to rec->finding (cut at its size). */
static void append(cml_record *rec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void append(cml_record *rec, const char *fmt, ...)
{
    size_t used = strlen(rec->finding);
    if (used + 2 >= sizeof rec->finding)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rec->finding + used, sizeof rec->finding - used, fmt, ap);
    va_end(ap);
}

static const peak_settings *settings_of(const cml_sweep *ctx, size_t i)
{
    return cml_sweep_settings_of(ctx, i);
}

/* ---- counters of the class bests --------------------------------------- */

void cml_peak_read_counters(cml_sweep *ctx, size_t first, size_t end)
{
    const cml_plan *plan = ctx->plan;
    peak_state *g = ctx->state;
    if (!plan->profiler || !g->open)
        return;
    size_t best[CML_PEAK_CLASS_COUNT];
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++)
        best[c] = SIZE_MAX;
    for (size_t i = first; i < end && i < ctx->out->count; i++) {
        const cml_record *r = &ctx->out->items[i];
        const peak_settings *s = settings_of(ctx, i);
        if (!s || !usable(r))
            continue;
        int c = cml_peak_op_class((cml_peak_op)s->kernel);
        if (c >= 0 && (best[c] == SIZE_MAX ||
                       r->bandwidth_gbs > ctx->out->items[best[c]].bandwidth_gbs))
            best[c] = i;
    }
    cml_peak_args args[CML_PEAK_CLASS_COUNT];
    void *argp[CML_PEAK_CLASS_COUNT];
    cml_launch_fn fns[CML_PEAK_CLASS_COUNT];
    size_t which[CML_PEAK_CLASS_COUNT], k = 0;
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        if (best[c] == SIZE_MAX)
            continue;
        const peak_settings *s = settings_of(ctx, best[c]);
        const cml_peak_op op = (cml_peak_op)s->kernel;
        g->bench.block = op >= CML_PEAK_KERNEL_OPS ? 256u : (unsigned)s->block;
        if (cml_peak_configure(&g->bench, op, (cml_peak_shape)s->shape, &args[k], NULL) != CML_OK)
            continue;
        argp[k] = &args[k];
        fns[k] = cml_peak_launch;
        which[k++] = best[c];
    }
    if (!k)
        return;
    double values[CML_PEAK_CLASS_COUNT * PEAK_DIAG_COUNT];
    size_t failed = SIZE_MAX;
    if (cml_counters_measure_batch(plan->profiler, k, fns, argp, cml_peak_diag_metrics,
                                   PEAK_DIAG_COUNT, values, &failed) != CML_OK)
        return; /* the findings then say nothing of counters */
    for (size_t j = 0; j < k; j++) {
        cml_record *r = &ctx->out->items[which[j]];
        for (size_t m = 0; m < PEAK_DIAG_COUNT && r->ncounters < CML_RECORD_MAX_COUNTERS; m++) {
            cml_counter *c = &r->counters[r->ncounters++];
            memset(c, 0, sizeof *c);
            snprintf(c->name, sizeof c->name, "%s", cml_peak_diag_metrics[m]);
            c->measured = values[j * PEAK_DIAG_COUNT + m];
        }
    }
}

/* The counter `metric` of rec; NaN if it has none. */
static double counter(const cml_record *rec, size_t metric)
{
    for (unsigned i = 0; i < rec->ncounters && i < CML_RECORD_MAX_COUNTERS; i++)
        if (strcmp(rec->counters[i].name, cml_peak_diag_metrics[metric]) == 0)
            return rec->counters[i].measured;
    return NAN;
}

/* What the counters say limits the class's best record. */
static void limit_sentence(cml_record *rec)
{
    const double rd = counter(rec, PEAK_DIAG_DRAM_READ), wr = counter(rec, PEAK_DIAG_DRAM_WRITE);
    const double busy = counter(rec, PEAK_DIAG_DRAM_BUSY);
    const double act = counter(rec, PEAK_DIAG_SM_ACTIVE), el = counter(rec, PEAK_DIAG_SM_ELAPSED);
    const double occ = counter(rec, PEAK_DIAG_OCCUPANCY);
    const double moved = (double)(rec->bytes_read + rec->bytes_written);
    if (!isfinite(rd) || !isfinite(wr) || moved <= 0) {
        append(rec, " No counters were read (run with --counters on to see its limit).");
        return;
    }
    const double excess = 100.0 * ((rd + wr) / moved - 1.0);
    const double active = el > 0 && isfinite(act) ? 100.0 * act / el : NAN;
    append(rec, " Counters: DRAM moved %+.1f%% of the counted bytes", excess);
    if (isfinite(busy))
        append(rec, ", busy %.1f%% of the launch", busy);
    if (isfinite(active))
        append(rec, "; SMs active %.1f%%", active);
    if (isfinite(occ))
        append(rec, ", occupancy %.0f%%", occ);
    const char *why;
    if (excess > 2.0)
        why = "bytes the algorithm does not need (partial lines, write-allocate reads)";
    else if (isfinite(busy) && busy >= 90.0)
        why = rec->bytes_read && rec->bytes_written
                  ? "DRAM itself: refresh, row switches and the read/write turnarounds"
                  : "DRAM itself: refresh and row switches";
    else if (isfinite(active) && active < 95.0)
        why = "idle SMs: the launch ramp and the tail of the last wave";
    else
        why = "too few bytes in flight to keep DRAM busy";
    append(rec, ". The limit: %s.", why);
}

/* For the mixed classes: the pure references predict a mix's time as its
 * reads at the read speed plus its writes at the write speed. */
static void turnaround_sentence(cml_record *rec, const cml_peak_refs *p)
{
    const double R = p->gbs[CML_PEAK_CLASS_READ], W = p->gbs[CML_PEAK_CLASS_WRITE];
    const double r = (double)rec->bytes_read, w = (double)rec->bytes_written;
    if (!(R > 0) || !(W > 0) || r <= 0 || w <= 0)
        return;
    const double predicted = (r + w) / (r / R + w / W);
    append(rec, " Reads at %.0f and writes at %.0f GB/s predict %.0f GB/s for this mix: it "
                "reached %.1f%% of that, the rest lost to read/write turnarounds.",
           R, W, predicted, 100.0 * rec->bandwidth_gbs / predicted);
}

/* ---- layouts and sizes -------------------------------------------------- */

/* Resident blocks on the whole GPU for rec's kernel (from its occupancy). */
static double resident_blocks(const cml_plan *plan, const cml_record *rec)
{
    if (!plan->dev || rec->block == 0 || !(rec->occupancy > 0))
        return 0.0;
    double per_sm = floor(rec->occupancy * plan->dev->max_threads_per_sm / (double)rec->block + 0.5);
    return per_sm * plan->dev->sm_count;
}

/* For op: at the size of its best record, the best record of each layout;
 * the loser's record says by how much and why. */
static void layout_sentence(cml_sweep *ctx, cml_peak_op op)
{
    cml_results *out = ctx->out;
    size_t top = SIZE_MAX, best[2] = {SIZE_MAX, SIZE_MAX};
    for (size_t i = ctx->first; i < out->count; i++) {
        const peak_settings *s = settings_of(ctx, i);
        if (s && s->kernel == op && usable(&out->items[i]) &&
            (top == SIZE_MAX || out->items[i].bandwidth_gbs > out->items[top].bandwidth_gbs))
            top = i;
    }
    if (top == SIZE_MAX)
        return;
    const int64_t size = settings_of(ctx, top)->size;
    for (size_t i = ctx->first; i < out->count; i++) {
        const peak_settings *s = settings_of(ctx, i);
        if (!s || s->kernel != op || s->size != size || !usable(&out->items[i]))
            continue;
        int l = (int)cml_peak_shape_at((int)s->shape)->layout;
        if (best[l] == SIZE_MAX || out->items[i].bandwidth_gbs > out->items[best[l]].bandwidth_gbs)
            best[l] = i;
    }
    if (best[0] == SIZE_MAX || best[1] == SIZE_MAX)
        return;
    const size_t gs = best[CML_PEAK_GRID_STRIDE], os = best[CML_PEAK_ONE_SHOT];
    const int os_lost = out->items[os].bandwidth_gbs < out->items[gs].bandwidth_gbs;
    const size_t li = os_lost ? os : gs, wi = os_lost ? gs : os;
    cml_record *loser = &out->items[li];
    const cml_record *winner = &out->items[wi];
    const double loss = 100.0 * (1.0 - loser->bandwidth_gbs / winner->bandwidth_gbs);
    const char *lname = cml_peak_shape_name((cml_peak_shape)settings_of(ctx, li)->shape);
    const char *wname = cml_peak_shape_name((cml_peak_shape)settings_of(ctx, wi)->shape);
    if (loss < 0.5) {
        append(loser, " The best %s is within %.1f%% of the best %s: the layout does not "
                      "matter here.",
               lname, loss, wname);
        return;
    }
    if (!os_lost) {
        append(loser, " Grid-stride (best %s) lost %.1f%% to one-shot (%s): its %llu blocks "
                      "each own an equal share, so the launch ends with the slowest SM, where "
                      "one-shot's %llu small blocks go to whichever SM is free.",
               lname, loss, wname, (unsigned long long)loser->grid,
               (unsigned long long)winner->grid);
        return;
    }
    /* Each block holds a resident slot for its lifetime: the launch's extra
     * time, times the slots, over the blocks that passed through them, is
     * what each block cost beyond its bytes. Same size, same bytes. */
    const double slots = resident_blocks(ctx->plan, loser);
    const double dt_ns = (loser->timing.median_ms - winner->timing.median_ms) * 1e6;
    if (slots > 0 && loser->grid > 0 && dt_ns > 0)
        append(loser, " One-shot (best %s) lost %.1f%% to grid-stride (%s): %llu blocks, each "
                      "about %.0f ns longer in its resident slot than its bytes need (its launch%s); "
                      "grid-stride pays that once per slot.",
               lname, loss, wname, (unsigned long long)loser->grid,
               dt_ns * slots / (double)loser->grid,
               op == CML_PEAK_SUM ? ", reduction, fence and atomics" : " and retirement");
    else
        append(loser, " One-shot (best %s) lost %.1f%% to grid-stride (%s): a fixed cost per "
                      "block, paid by %llu blocks.",
               lname, loss, wname, (unsigned long long)loser->grid);
}

/* For the class's best record: the same kernel and shape at the other sizes;
 * a size that lost more than 2% says why. */
static void size_sentences(cml_sweep *ctx, size_t best)
{
    const peak_settings *b = settings_of(ctx, best);
    const cml_record *br = &ctx->out->items[best];
    for (size_t i = ctx->first; i < ctx->out->count; i++) {
        const peak_settings *s = settings_of(ctx, i);
        cml_record *r = &ctx->out->items[i];
        if (i == best || !s || s->kernel != b->kernel || s->shape != b->shape ||
            s->block != b->block || !usable(r))
            continue;
        const double loss = 100.0 * (1.0 - r->bandwidth_gbs / br->bandwidth_gbs);
        if (loss <= 2.0)
            continue;
        char here[16], there[16];
        cml_peak_size_label(here, sizeof here, (uint64_t)s->size);
        cml_peak_size_label(there, sizeof there, (uint64_t)b->size);
        if (s->size < b->size)
            append(r, " At %s this shape lost %.1f%% to %s: a launch of %.0f us pays its ramp "
                      "and its last wave on fewer bytes.",
                   here, loss, there, 1000.0 * r->timing.median_ms);
        else
            append(r, " At %s this shape lost %.1f%% to %s: more pages than the TLBs reach, "
                      "so address translation misses.",
                   here, loss, there);
    }
}

/* ---- the whole run ------------------------------------------------------ */

void cml_peak_finish(cml_sweep *ctx)
{
    cml_results *out = ctx->out;
    const cml_plan *plan = ctx->plan;
    if (!plan->gpu)
        return; /* the model's sentences stand; no figure, no reference */
    size_t best[CML_PEAK_CLASS_COUNT];
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++)
        best[c] = SIZE_MAX;
    for (size_t i = ctx->first; i < out->count; i++) {
        const peak_settings *s = settings_of(ctx, i);
        if (!s || !usable(&out->items[i]) || cache_resident(&out->items[i]))
            continue; /* (arrays that fit in L2 measure L2, not DRAM) */
        int c = cml_peak_op_class((cml_peak_op)s->kernel);
        if (c >= 0 && (best[c] == SIZE_MAX ||
                       out->items[i].bandwidth_gbs > out->items[best[c]].bandwidth_gbs))
            best[c] = i;
    }
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++)
        if (best[c] != SIZE_MAX)
            cml_peak_refs_offer(&out->peaks, c, out->items[best[c]].bandwidth_gbs,
                                out->items[best[c]].variant);
    const double top = cml_peak_refs_max(&out->peaks);
    if (top > out->peak_gbs && !out->peak_given)
        out->peak_gbs = top;
    const double theo = plan->dev ? plan->dev->theoretical_gbs : 0.0;
    for (size_t i = ctx->first; i < out->count; i++) {
        cml_record *r = &out->items[i];
        if (!usable(r))
            continue;
        cml_record_set_peak_touching(r, &out->peaks, touched(r));
        char size[16];
        const peak_settings *s = settings_of(ctx, i);
        cml_peak_size_label(size, sizeof size, s ? (uint64_t)s->size : 0);
        if (cml_peak_class_resident(r->peak_class)) {
            cml_record_finding(r, "%.0f GB/s at %s per array (median of %u, %.3f ms): %s, the "
                                  "arrays fit in L2, so no DRAM reference is taken from it and "
                                  "no share of one given.",
                               r->bandwidth_gbs, size, r->timing.reps, r->timing.median_ms,
                               cml_peak_class_label(r->peak_class));
            continue;
        }
        cml_record_finding(r, "%.0f GB/s at %s per array (median of %u, %.3f ms): %.1f%% of the "
                              "%s reference (%.0f GB/s), %.1f%% of the theoretical %.0f GB/s.",
                           r->bandwidth_gbs, size, r->timing.reps, r->timing.median_ms,
                           r->peak_fraction >= 0 ? 100.0 * r->peak_fraction : 0.0,
                           cml_peak_class_name(r->peak_class), r->peak_ref_gbs,
                           theo > 0 ? 100.0 * r->bandwidth_gbs / theo : 0.0, theo);
    }
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        if (best[c] == SIZE_MAX)
            continue;
        cml_record *r = &out->items[best[c]];
        cml_record_finding(r, "%.0f GB/s, %.1f%% of the theoretical %.0f GB/s: the best %s "
                              "figure%s.",
                           r->bandwidth_gbs, theo > 0 ? 100.0 * r->bandwidth_gbs / theo : 0.0,
                           theo, cml_peak_class_name(c),
                           r->peak_fraction >= 0.9995 ? ", this class's reference"
                                                      : " (the lab's quick search found more)");
        limit_sentence(r);
        if (c == CML_PEAK_CLASS_COPY || c == CML_PEAK_CLASS_TRIAD)
            turnaround_sentence(r, &out->peaks);
        size_sentences(ctx, best[c]);
    }
    for (int op = 0; op < CML_PEAK_KERNEL_OPS; op++)
        layout_sentence(ctx, (cml_peak_op)op);
}
