/*
 * Validation as data (validate.h): the judging `cumemlab validate` does,
 * as verdicts. The rules are the ones docs/model-evidence.md and
 * src/lab/experiment.h (cml_explained_diff) describe; the CLI prints the
 * verdicts (src/cli/validate.c) and writes them (src/cli/validate_json.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/common.h"
#include "lab/validate.h"

/*
 * Differences docs/model-evidence.md explains for every experiment alike;
 * each experiment's own explained differences are in its registry row
 * (cml_validate_spec). Kernels that mix shared stores, loads and barriers
 * across warps: the hardware counts a few extra wavefronts, all as bank
 * conflicts, and a different number every run; they are wavefronts lost to
 * the accesses of another block on the same SM (measured: §4.3), which the
 * control run with one block per SM (residency=one) shows each time. At
 * most 5.0% of the operation's wavefronts measured (constant's stencil on
 * the H200), so 10% bounds it.
 */
static const cml_explained_diff explained_everywhere[] = {
    {NULL, "_mem_shared_op_",
     "a second block on the SM takes wavefronts from this block's shared accesses, counted as "
     "bank conflicts",
     CML_EXCESS, 0.10, "§4.1 shared counters in mixed kernels", "residency=one"},
};

const cml_explained_diff *cml_validate_everywhere(size_t *n)
{
    *n = CML_COUNT(explained_everywhere);
    return explained_everywhere;
}

const char *cml_explain_direction_name(cml_explain_direction d)
{
    return d == CML_EXCESS ? "excess" : d == CML_DEFICIT ? "deficit" : "none";
}

/* Whether `control` ("option=value") names an option of exp: the control
 * variant is that option set to that value, so another name could never
 * be run by validate's settings. */
static int names_option(const cml_experiment *exp, const char *control)
{
    const char *eq = strchr(control, '=');
    for (size_t i = 0; eq && i < exp->noptions; i++)
        if (strlen(exp->options[i].name) == (size_t)(eq - control) &&
            !strncmp(exp->options[i].name, control, (size_t)(eq - control)))
            return 1;
    return 0;
}

int cml_explained_defect(const cml_experiment *exp, const cml_explained_diff *e, char *why,
                         size_t len)
{
    const char *what = NULL;
    if (!e->metric_has || !*e->metric_has)
        what = "names no counter (metric_has)";
    else if (!e->mechanism || !*e->mechanism)
        what = "names no mechanism";
    else if (!e->section || !*e->section)
        what = "names no section of docs/model-evidence.md";
    else if (e->direction != CML_EXCESS && e->direction != CML_DEFICIT)
        what = "has no single direction (excess or deficit)";
    else if (!(e->bound_frac > 0 && e->bound_frac <= CML_EXPLAIN_MAX_BOUND))
        what = "has a bound outside (0, 0.10] of its reference";
    else if (!e->control || !*e->control)
        what = "has no control";
    else if (!strchr(e->control, '=') || strchr(e->control, '=') == e->control ||
             !strchr(e->control, '=')[1] || strchr(e->control, ' '))
        what = "has a control that is not option=value";
    else if (exp && !names_option(exp, e->control))
        what = "has a control that names none of the experiment's options";
    if (!what)
        return 0;
    snprintf(why, len, "%s: explanation (%s, %s) %s", exp ? exp->key : "every experiment",
             e->variant_has ? e->variant_has : "any variant",
             e->metric_has ? e->metric_has : "no counter", what);
    return 1;
}

void cml_verdicts_init(cml_verdicts *v) { memset(v, 0, sizeof *v); }

void cml_verdicts_free(cml_verdicts *v)
{
    for (size_t i = 0; i < v->count; i++)
        free(v->items[i].counters);
    free(v->items);
    memset(v, 0, sizeof *v);
}

/* A zeroed verdict at the end of v; NULL on out of memory. */
static cml_verdict_rec *add(cml_verdicts *v)
{
    if (v->count == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        cml_verdict_rec *p = realloc(v->items, cap * sizeof *p);
        if (!p)
            return NULL;
        v->items = p;
        v->cap = cap;
    }
    cml_verdict_rec *x = &v->items[v->count++];
    memset(x, 0, sizeof *x);
    x->record = SIZE_MAX;
    x->per = 1.0;
    return x;
}

/* Copy text into a fixed field, cut where it does not fit (a file's
 * strings fit the record's fields, which are no longer than these). */
static void set_text(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

cml_status cml_verdicts_add_note(cml_verdicts *out, cml_verdict_subject subject,
                                 cml_verdict verdict, const char *experiment,
                                 const char *variant, const char *reason)
{
    cml_verdict_rec *x = add(out);
    if (!x)
        return CML_ENOMEM;
    x->subject = subject;
    x->verdict = verdict;
    set_text(x->experiment, sizeof x->experiment, experiment);
    set_text(x->variant, sizeof x->variant, variant);
    set_text(x->reason, sizeof x->reason, reason);
    return CML_OK;
}

/* The counter a max_frac tolerance is measured against. */
static void reference_metric(const char *metric, char *buf, size_t len)
{
    const char *k = strstr(metric, "data_bank_conflicts_pipe_lsu");
    if (k)
        snprintf(buf, len, "%.*sdata_pipe_lsu_wavefronts%s", (int)(k - metric), metric,
                 k + strlen("data_bank_conflicts_pipe_lsu"));
    else
        snprintf(buf, len, "%s", metric);
}

/* The sectors a cache-level counter's 1% is measured against: the load
 * sectors for L1 hits and L2 reads, the store sectors for L2 writes (0 for
 * other counters). */
static double level_reference(const cml_record *rec, const cml_counter_def *d)
{
    const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
    switch (d->field) {
    case CML_CTR_L1_HIT: return (double)m->cls[CML_CLASS_GLOBAL_LD].sectors;
    case CML_CTR_L2_READ:
        return (double)m->cls[CML_CLASS_GLOBAL_LD].sectors +
               (double)m->cls[CML_CLASS_LOCAL_LD].sectors;
    case CML_CTR_L2_WRITE:
        return (double)m->cls[CML_CLASS_GLOBAL_ST].sectors +
               (double)m->cls[CML_CLASS_LOCAL_ST].sectors;
    default: return 0;
    }
}

/*
 * The model's interval [lo, hi] for counter c of rec: the one place the
 * judging asks what the model claims. For a cache-level counter of a
 * record whose levels carry bounds (cml_trace_levels: docs/model.md, the
 * bounds of the cache levels), the interval its mechanism gives, taken in
 * the same proportion to the prediction as the level figure's (a
 * prediction that counts the level figure several times, or scaled, has
 * its bounds scaled alike); every other counter's claim is its prediction
 * itself, lo = hi = predicted.
 */
static void model_bounds(const cml_record *rec, const cml_counter *c, double *lo, double *hi)
{
    cml_counter_level_bounds(cml_counter_map_find(c->name), rec->has_levels ? &rec->levels : NULL,
                             c->predicted, lo, hi);
}

/* The DRAM bytes rec's range read for units outside the GPCs
 * (cml_counter_outside_gpc_bytes), where it holds all three L2-miss
 * counters; 0 without them (a file from before them, a GPU that cannot
 * collect one: the kernel's own misses would count as outside). With
 * `write`, the bytes those units wrote into L2 over the range, from the
 * three write counters. */
static double outside_gpc(const cml_record *rec, int write)
{
    const cml_counter *device = cml_record_find_counter(
        rec, write ? CML_METRIC_L2_WRITE_DEVICE : CML_METRIC_L2_READ_MISS_DEVICE);
    const cml_counter *gpc = cml_record_find_counter(
        rec, write ? CML_METRIC_L2_WRITE_GPC : CML_METRIC_L2_READ_MISS_GPC);
    const cml_counter *fabric = cml_record_find_counter(
        rec, write ? CML_METRIC_L2_WRITE_FABRIC : CML_METRIC_L2_READ_MISS_FABRIC);
    if (!device || !gpc || !fabric)
        return 0;
    return cml_counter_outside_gpc_bytes(device->measured, gpc->measured, fabric->measured);
}

/* The noise floor of counter d in rec: the counter map's, and for a DRAM
 * counter what no access of the kernel read or wrote over a launch as long
 * as the record's (docs/model-evidence.md §2.1): the larger of two
 * measures of one mechanism, the units outside the GPCs. The background
 * control (bg; core/dram_background.h): its rate times the longest of the
 * record's timed launches (the profiled launch is another one of the same
 * kernel, its length not read). The record's own range: what those units
 * read from DRAM (read misses) or wrote into L2, which L2 may write back
 * before the range ends (outside_gpc; a window of the counters pass reads
 * them in the replay that reads the DRAM bytes, counter_map.h). Written
 * adds the lines left dirty when the launch began (the stream control). */
static double floor_of(const cml_record *rec, const cml_counter_def *d,
                       const cml_dram_background *bg)
{
    const double f = cml_counter_floor(d);
    if (d->kind != CML_CTR_RELATIVE ||
        (d->field != CML_CTR_DRAM_READ && d->field != CML_CTR_DRAM_WRITE))
        return f;
    const int write = d->field == CML_CTR_DRAM_WRITE;
    double extra = cml_dram_background_bytes(bg, write, rec->timing.max_ms);
    const double outside = outside_gpc(rec, write);
    if (outside > extra)
        extra = outside;
    if (write)
        extra += cml_dram_background_dirty(bg);
    return f + extra;
}

/* The most wavefronts blocks sharing an SM can add to a shared-memory
 * counter d of rec (cml_shared_contention_bound: its wavefronts or its
 * bank conflicts, the same excess); 0 for any other counter, or where the
 * model runs one block an SM. The blocks an SM holds are the model's
 * schedule's (its levels), else its limits for the record's block (the
 * GPU may hold fewer, never more: registers only take blocks away). */
static uint64_t shared_contention(const cml_record *rec, const cml_counter_def *d)
{
    if ((d->field != CML_CTR_WAVEFRONTS && d->field != CML_CTR_BANK_CONFLICTS) ||
        (d->cls != CML_CLASS_SHARED_LD && d->cls != CML_CLASS_SHARED_ST) || !rec->has_model)
        return 0;
    unsigned resident = rec->has_levels ? rec->levels.resident_blocks : 0;
    if (!resident && rec->block && rec->cache.max_threads_per_sm)
        resident = cml_cache_resident_blocks(&rec->cache, rec->block);
    return cml_shared_contention_bound(&rec->model[CML_RULES_MODERN], (cml_class)d->cls,
                                       resident);
}

/* Judge one counter of rec by its map entry d: the rule, and its kind
 * before any explanation. Exact and percent as the map says; cache-level
 * ones inside the model's interval widened by the map's tolerance (of the
 * sectors the kernel asks for for L1 and L2, of the larger figure for
 * DRAM) or its floor (floor_of), and not judged when measured value and
 * model both lie under the floor. */
static void judge_counter(const cml_record *rec, const cml_counter_def *d, const cml_counter *c,
                          const cml_dram_background *bg, cml_counter_judgement *j)
{
    memset(j, 0, sizeof *j);
    set_text(j->name, sizeof j->name, c->name);
    j->measured = c->measured;
    j->has_prediction = c->has_prediction;
    j->predicted = c->has_prediction ? c->predicted : 0;
    j->difference = c->has_prediction ? c->measured - c->predicted : 0;
    j->verdict = CML_CV_EXACT;
    if (!c->has_prediction || d->kind == CML_CTR_INFO) {
        j->rule = CML_RULE_NONE;
        j->verdict = CML_CV_INFO;
        return;
    }
    const uint64_t contention = shared_contention(rec, d);
    if (contention) {
        /* Blocks sharing an SM: the pattern's wavefronts at least, at most
         * those another block's accesses can cost it more. */
        j->rule = CML_RULE_INTERVAL;
        j->lo = c->predicted;
        j->hi = c->predicted + (double)contention;
        if (!(c->measured >= j->lo && c->measured <= j->hi))
            j->verdict = CML_CV_UNEXPLAINED; /* also a NaN */
        else if (c->measured != c->predicted)
            j->verdict = CML_CV_WITHIN;
        return;
    }
    if (d->kind != CML_CTR_RELATIVE) {
        j->rule = d->kind == CML_CTR_PERCENT ? CML_RULE_PERCENT : CML_RULE_EXACT;
        j->lo = j->hi = c->predicted;
        if (!cml_counter_agrees(d, c->measured, c->predicted))
            j->verdict = CML_CV_UNEXPLAINED;
        return;
    }
    model_bounds(rec, c, &j->lo, &j->hi);
    const double floor = floor_of(rec, d, bg);
    if (fabs(c->measured) <= floor && fabs(j->hi) <= floor) {
        j->rule = CML_RULE_NOT_JUDGED;
        j->verdict = CML_CV_NOT_JUDGED;
        j->floor = floor;
        return;
    }
    j->rule = CML_RULE_RELATIVE;
    j->tolerance = cml_counter_tolerance(d);
    j->floor = floor;
    double ref = level_reference(rec, d);
    if (ref <= 0) {
        /* No sectors asked for (DRAM, or none of that kind): the larger of
         * the two figures, as the counter map's own rule has it. */
        double m = fabs(c->measured), h = fabs(j->hi);
        ref = m > h ? m : h;
    }
    j->reference = ref;
    double slack = j->tolerance * ref > j->floor ? j->tolerance * ref : j->floor;
    if (!(c->measured >= j->lo - slack && c->measured <= j->hi + slack))
        j->verdict = CML_CV_UNEXPLAINED; /* also a NaN */
    else if (!(j->lo == j->hi && fabs(c->measured - j->lo) < 0.5))
        j->verdict = CML_CV_WITHIN;
}

/* Whether the control record c ran and every counter of it whose name
 * contains `metric_has` (the counters the entry explains) is exact or
 * inside the model's interval, at least one of them judged: a control
 * without the counters it stands for (none read, none predicted, all under
 * the noise floor) proves nothing, and does not agree. */
static int control_agrees(const cml_record *c, const char *metric_has,
                          const cml_dram_background *bg)
{
    if (c->state != CML_REC_OK || !c->measured || c->ncounters == 0)
        return 0;
    size_t judged_ones = 0;
    for (unsigned k = 0; k < c->ncounters && k < CML_RECORD_MAX_COUNTERS; k++) {
        const cml_counter *x = &c->counters[k];
        const cml_counter_def *d = cml_counter_map_find(x->name);
        if (!d || !strstr(x->name, metric_has))
            continue;
        cml_counter_judgement j;
        judge_counter(c, d, x, bg, &j);
        if (j.verdict == CML_CV_UNEXPLAINED)
            return 0;
        judged_ones += j.verdict == CML_CV_EXACT || j.verdict == CML_CV_WITHIN;
    }
    return judged_ones > 0;
}

/* The records a control is looked for in. */
typedef struct run_set {
    const cml_results *r;
    size_t first, last;
} run_set;

/* The control record of rec under e (NULL: none ran, or rec is it). */
static const cml_record *find_control(const cml_explained_diff *e, const cml_record *rec,
                                      const run_set *set)
{
    /* The control at rec's own footprint: the tag validate put last stays
     * last (a control setting the variant lacks is appended before it). */
    char base[sizeof rec->variant], want[sizeof rec->variant + 64];
    const char *tag = strstr(rec->variant, CML_FOOTPRINT_TAG);
    snprintf(base, sizeof base, "%.*s", (int)(tag ? (size_t)(tag - rec->variant)
                                                  : strlen(rec->variant)),
             rec->variant);
    cml_variant_with(base, e->control, want, sizeof want);
    if (tag && strlen(want) + strlen(tag) < sizeof want)
        strcat(want, tag);
    if (strcmp(want, rec->variant) == 0)
        return NULL;
    for (size_t i = set->first; i < set->last && i < set->r->count; i++) {
        const cml_record *c = &set->r->items[i];
        if (strcmp(c->experiment, rec->experiment) == 0 && strcmp(c->variant, want) == 0)
            return c;
    }
    return NULL;
}

/* Whether entry e explains the differing counter j of rec: the variant and counter it
 * names, a difference in its direction beyond the model's interval and
 * within its bound, and a control that ran and agrees. */
static int explains(const cml_explained_diff *e, const cml_record *rec, const char *variant,
                    const cml_counter_judgement *j, const run_set *set)
{
    if (e->variant_has && !strstr(variant, e->variant_has))
        return 0;
    if (!e->metric_has || !strstr(j->name, e->metric_has))
        return 0;
    const double bound = e->bound_frac * j->explain_reference;
    if (!(e->bound_frac > 0 && e->bound_frac <= CML_EXPLAIN_MAX_BOUND))
        return 0; /* a defective entry explains nothing (cml_explained_defect) */
    if (e->direction == CML_EXCESS) {
        if (!(j->measured > j->hi && j->measured - j->hi <= bound))
            return 0;
    } else if (e->direction == CML_DEFICIT) {
        if (!(j->measured < j->lo && j->lo - j->measured <= bound))
            return 0;
    } else {
        return 0;
    }
    if (!e->control || !rec || !set)
        return 0;
    const cml_record *c = find_control(e, rec, set);
    return c && control_agrees(c, e->metric_has, &set->r->background);
}

/* The entry explaining the differing counter j of a record of experiment
 * `exp` (NULL: a name the registry does not know, which only the entries
 * of every experiment explain), or NULL; *everywhere set when it is one of
 * explained_everywhere. */
static const cml_explained_diff *explanation(const cml_experiment *exp, const cml_record *rec,
                                             const cml_counter_judgement *j, const run_set *set,
                                             int *everywhere)
{
    *everywhere = 0;
    const cml_validate_spec *v = exp ? exp->validate : NULL;
    for (size_t i = 0; v && i < v->nexplained; i++)
        if (explains(&v->explained[i], rec, rec->variant, j, set))
            return &v->explained[i];
    for (size_t i = 0; i < CML_COUNT(explained_everywhere); i++)
        if (explains(&explained_everywhere[i], rec, rec->variant, j, set)) {
            *everywhere = 1;
            return &explained_everywhere[i];
        }
    return NULL;
}

/* The record's verdict from its counters' (the last explanation shown). */
static void conclude(cml_verdict_rec *x)
{
    int differ = 0, unexplained = 0;
    for (unsigned k = 0; k < x->ncounters; k++) {
        const cml_counter_judgement *j = &x->counters[k];
        if (j->verdict == CML_CV_EXPLAINED) {
            differ = 1;
            x->why = j->why;
            x->why_everywhere = j->why_everywhere;
        } else if (j->verdict == CML_CV_UNEXPLAINED) {
            differ = unexplained = 1;
        }
    }
    x->verdict = !differ ? CML_VERDICT_AGREE
                 : unexplained ? CML_VERDICT_UNEXPLAINED
                               : CML_VERDICT_EXPLAINED;
    if (x->verdict != CML_VERDICT_EXPLAINED) {
        x->why = NULL;
        x->why_everywhere = 0;
    }
}

cml_status cml_validate_record(const cml_experiment *exp, const cml_results *r, size_t index,
                               size_t first, size_t last, cml_verdicts *out)
{
    if (index >= r->count)
        return CML_EINVAL;
    const cml_record *rec = &r->items[index];
    cml_verdict_rec *x = add(out);
    if (!x)
        return CML_ENOMEM;
    x->subject = CML_SUBJECT_RECORD;
    x->record = index;
    set_text(x->experiment, sizeof x->experiment, rec->experiment);
    set_text(x->variant, sizeof x->variant, rec->variant);
    if (rec->state == CML_REC_WAIVED) {
        x->verdict = CML_VERDICT_SKIPPED;
        set_text(x->reason, sizeof x->reason, rec->note);
        return CML_OK;
    }
    if (rec->state != CML_REC_OK || !rec->measured) {
        x->verdict = CML_VERDICT_FAILED;
        set_text(x->reason, sizeof x->reason, rec->note);
        return CML_OK;
    }
    const unsigned n = rec->ncounters < CML_RECORD_MAX_COUNTERS ? rec->ncounters
                                                                 : CML_RECORD_MAX_COUNTERS;
    if (n == 0) {
        x->verdict = CML_VERDICT_FAILED;
        snprintf(x->reason, sizeof x->reason, "no counters read (%s)",
                 rec->note[0] ? rec->note : "none in the record");
        return CML_OK;
    }
    cml_counter_judgement *js = calloc(n, sizeof *js);
    if (!js) {
        out->count--;
        return CML_ENOMEM;
    }
    x->counters = js;
    const run_set set = {r, first, last};
    for (unsigned k = 0; k < n; k++) {
        const cml_counter *c = &rec->counters[k];
        const cml_counter_def *d = cml_counter_map_find(c->name);
        if (!d)
            continue; /* not a counter the model speaks of */
        cml_counter_judgement *j = &js[x->ncounters++];
        judge_counter(rec, d, c, &r->background, j);
        if (j->verdict != CML_CV_UNEXPLAINED)
            continue;
        /* What an explanation's bound_frac is of: the predicted wavefronts
         * of the same operation for a conflict counter, the sectors asked
         * for for the cache levels, else the predicted counter itself. */
        char ref[96];
        j->explain_reference = c->predicted;
        reference_metric(c->name, ref, sizeof ref);
        for (unsigned i = 0; i < n; i++)
            if (!strcmp(rec->counters[i].name, ref) && rec->counters[i].has_prediction)
                j->explain_reference = rec->counters[i].predicted;
        if (level_reference(rec, d) > 0)
            j->explain_reference = level_reference(rec, d);
        j->why = explanation(exp, rec, j, &set, &j->why_everywhere);
        if (j->why)
            j->verdict = CML_CV_EXPLAINED;
    }
    conclude(x);
    return CML_OK;
}

cml_status cml_validate_probe(const cml_probe_result *p, cml_verdicts *out)
{
    size_t n;
    const char *const *names = cml_probe_metrics(&n);
    cml_verdict_rec *x = add(out);
    if (!x)
        return CML_ENOMEM;
    x->subject = CML_SUBJECT_PROBE;
    set_text(x->experiment, sizeof x->experiment, p->def->question);
    set_text(x->variant, sizeof x->variant, p->def->id);
    x->per = p->issues ? (double)p->issues : 1.0;
    cml_counter_judgement *js = calloc(n ? n : 1, sizeof *js);
    if (!js) {
        out->count--;
        return CML_ENOMEM;
    }
    x->counters = js;
    for (size_t i = 0; i < n && i < CML_PROBE_MAX_METRICS; i++) {
        const cml_counter_def *d = cml_counter_map_find(names[i]);
        double v = p->value[i], pred = 0;
        cml_counter_def shared_inst = {names[i], -1, CML_CTR_INSTRUCTIONS, CML_CTR_EXACT, ""};
        if (!d) { /* the two shared instruction counters */
            shared_inst.cls = strstr(names[i], "_ld") ? CML_CLASS_SHARED_LD : CML_CLASS_SHARED_ST;
            d = &shared_inst;
        }
        int has = cml_counter_predict(d, &p->model, &pred);
        if (isnan(v) || (v == 0 && (!has || pred == 0)))
            continue; /* not read, or 0 where the model says 0 */
        cml_counter_judgement *j = &js[x->ncounters++];
        set_text(j->name, sizeof j->name, names[i]);
        j->measured = v;
        j->has_prediction = has;
        j->predicted = has ? pred : 0;
        j->difference = has ? v - pred : 0;
        j->rule = !has || d->kind == CML_CTR_INFO ? CML_RULE_NONE
                  : d->kind == CML_CTR_PERCENT   ? CML_RULE_PERCENT
                  : d->kind == CML_CTR_RELATIVE  ? CML_RULE_RELATIVE
                                                 : CML_RULE_EXACT;
        j->lo = j->hi = j->predicted; /* a probe's model is a point (its mirror is exact) */
        if (j->rule == CML_RULE_RELATIVE && !cml_counter_judged(d, v, pred))
            j->rule = CML_RULE_NOT_JUDGED;
        if (j->rule == CML_RULE_RELATIVE) {
            /* the map's own rule: of the larger figure */
            j->tolerance = cml_counter_tolerance(d);
            j->floor = cml_counter_floor(d);
            j->reference = fabs(v) > fabs(pred) ? fabs(v) : fabs(pred);
        }
        j->verdict = j->rule == CML_RULE_NONE         ? CML_CV_INFO
                     : j->rule == CML_RULE_NOT_JUDGED ? CML_CV_NOT_JUDGED
                     : !cml_counter_agrees(d, v, pred) ? CML_CV_UNEXPLAINED
                     : j->rule == CML_RULE_RELATIVE && fabs(v - pred) >= 0.5 ? CML_CV_WITHIN
                                                                             : CML_CV_EXACT;
        if (j->verdict != CML_CV_UNEXPLAINED)
            continue;
        char ref[96];
        j->explain_reference = pred;
        reference_metric(names[i], ref, sizeof ref);
        const cml_counter_def *rd = cml_counter_map_find(ref);
        if (rd && rd != d)
            (void)cml_counter_predict(rd, &p->model, &j->explain_reference);
        /* A probe has no control run beside it, so nothing explains it. */
    }
    conclude(x);
    return CML_OK;
}

cml_verdict_tally cml_verdicts_tally(const cml_verdicts *v)
{
    cml_verdict_tally t = {0};
    for (size_t i = 0; i < v->count; i++) {
        for (unsigned k = 0; k < v->items[i].ncounters; k++) {
            cml_counter_verdict cv = v->items[i].counters[k].verdict;
            if ((unsigned)cv < CML_CV_KINDS)
                t.values[cv]++;
            else
                t.info++;
        }
        switch (v->items[i].verdict) {
        case CML_VERDICT_AGREE: t.agree++; break;
        case CML_VERDICT_EXPLAINED: t.differ++; t.explained++; break;
        case CML_VERDICT_UNEXPLAINED: t.differ++; t.unexplained++; break;
        case CML_VERDICT_FAILED: t.failed++; break;
        case CML_VERDICT_SKIPPED: t.skipped++; break;
        }
    }
    return t;
}

size_t cml_verdicts_unexplained(const cml_verdict_tally *t)
{
    return t->values[CML_CV_UNEXPLAINED] + t->failed;
}

int cml_verdicts_failing(const cml_verdict_tally *t) { return cml_verdicts_unexplained(t) > 0; }

const char *cml_verdict_name(cml_verdict v)
{
    switch (v) {
    case CML_VERDICT_AGREE: return "agree";
    case CML_VERDICT_EXPLAINED: return "differ-explained";
    case CML_VERDICT_UNEXPLAINED: return "differ-unexplained";
    case CML_VERDICT_FAILED: return "failed";
    case CML_VERDICT_SKIPPED: return "skipped";
    }
    return "invalid";
}

const char *cml_verdict_subject_name(cml_verdict_subject s)
{
    switch (s) {
    case CML_SUBJECT_RECORD: return "record";
    case CML_SUBJECT_PROBE: return "probe";
    case CML_SUBJECT_EXPERIMENT: return "experiment";
    case CML_SUBJECT_SETTINGS: return "settings";
    }
    return "invalid";
}

const char *cml_counter_verdict_name(cml_counter_verdict v)
{
    switch (v) {
    case CML_CV_EXACT: return "exact";
    case CML_CV_WITHIN: return "within-interval";
    case CML_CV_EXPLAINED: return "explained";
    case CML_CV_NOT_JUDGED: return "not-judged";
    case CML_CV_UNEXPLAINED: return "unexplained";
    case CML_CV_INFO: return "info";
    }
    return "invalid";
}

const char *cml_counter_kind_label(cml_counter_verdict v)
{
    switch (v) {
    case CML_CV_EXACT: return "exact";
    case CML_CV_WITHIN: return "within interval";
    case CML_CV_EXPLAINED: return "explained by a control";
    case CML_CV_NOT_JUDGED: return "not judged (~)";
    case CML_CV_UNEXPLAINED: return "unexplained";
    case CML_CV_INFO: return "information (no prediction)";
    }
    return "invalid";
}

const char *cml_rule_name(cml_rule r)
{
    switch (r) {
    case CML_RULE_NONE: return "none";
    case CML_RULE_EXACT: return "exact";
    case CML_RULE_PERCENT: return "percent";
    case CML_RULE_RELATIVE: return "relative";
    case CML_RULE_NOT_JUDGED: return "not-judged";
    case CML_RULE_INTERVAL: return "interval";
    }
    return "invalid";
}
