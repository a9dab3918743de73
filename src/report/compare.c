/*
 * Two runs compared (compare.h): matching records, the figures of each
 * pair, what each experiment's pairs add up to, and the runs' labels. The
 * renderers are compare_text.c (terminal, CSV, JSON) and compare_html.c.
 */
#include "report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/record_metrics.h"
#include "report/record_params.h"
#include "report/report_util.h"

#define NONE ((size_t)-1)

const char *cml_cmp_variant(const cml_cmp_pair *p) { return p->a ? p->a->variant : p->b->variant; }

const char *cml_cmp_experiment_key(const cml_cmp_pair *p)
{
    return p->a ? p->a->experiment : p->b->experiment;
}

/* ------------------------------------------------------------------ */
/* Labels                                                             */
/* ------------------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* What a run ran on: its device, or that no GPU was used. */
static const char *device_label(const cml_results *r)
{
    if (r->has_device && r->device.name[0])
        return r->device.name;
    return r->model_only ? "model only" : "no device";
}

/* Device names where they tell the runs apart, else file names, else
 * paths, else the letters. */
static void make_labels(cml_comparison *c)
{
    const char *d[2] = {device_label(c->run[0]), device_label(c->run[1])};
    const char *f[2] = {base_name(c->file[0]), base_name(c->file[1])};
    const char *use[2];
    if (strcmp(d[0], d[1]) != 0) {
        use[0] = d[0];
        use[1] = d[1];
    } else if (f[0][0] && f[1][0] && strcmp(f[0], f[1]) != 0) {
        use[0] = f[0];
        use[1] = f[1];
    } else if (c->file[0][0] && c->file[1][0] && strcmp(c->file[0], c->file[1]) != 0) {
        use[0] = c->file[0];
        use[1] = c->file[1];
    } else {
        use[0] = "A";
        use[1] = "B";
    }
    for (int k = 0; k < 2; k++)
        cml_text_cut_words(c->label[k], sizeof c->label[k], use[k], 60);
}

/* ------------------------------------------------------------------ */
/* Matching                                                           */
/* ------------------------------------------------------------------ */

/*
 * match[i] := the record of b matched with record i of a (NONE: none). The
 * n-th record of a name in a gets the n-th of that name in b. Linear time
 * expected: an open-addressing table of b's names, each slot holding the
 * next unmatched record of its name (next[] chains b's records of one name
 * in order). -1 when out of memory.
 */
static int match_records(const cml_results *a, const cml_results *b, size_t *match,
                         unsigned char *used_b)
{
    size_t cap = 16;
    while (cap < 2 * b->count + 2)
        cap *= 2;
    size_t *name = malloc(cap * sizeof *name), *cur = malloc(cap * sizeof *cur);
    size_t *next = malloc((b->count ? b->count : 1) * sizeof *next);
    size_t *last = malloc(cap * sizeof *last);
    if (!name || !cur || !next || !last) {
        free(name), free(cur), free(next), free(last);
        return -1;
    }
    for (size_t k = 0; k < cap; k++)
        name[k] = cur[k] = last[k] = NONE;
    for (size_t i = 0; i < b->count; i++) {
        size_t h = (size_t)cml_rep_name_hash(&b->items[i]) & (cap - 1);
        while (name[h] != NONE && !cml_rep_same_name(&b->items[name[h]], &b->items[i]))
            h = (h + 1) & (cap - 1);
        next[i] = NONE;
        if (name[h] == NONE) {
            name[h] = cur[h] = i;
        } else {
            next[last[h]] = i;
        }
        last[h] = i;
    }
    for (size_t i = 0; i < a->count; i++) {
        match[i] = NONE;
        size_t h = (size_t)cml_rep_name_hash(&a->items[i]) & (cap - 1);
        while (name[h] != NONE && !cml_rep_same_name(&b->items[name[h]], &a->items[i]))
            h = (h + 1) & (cap - 1);
        if (name[h] != NONE && cur[h] != NONE) {
            match[i] = cur[h];
            used_b[cur[h]] = 1;
            cur[h] = next[cur[h]];
        }
    }
    free(name), free(cur), free(next), free(last);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The figures of a pair                                              */
/* ------------------------------------------------------------------ */

static double median_ms(const cml_record *r)
{
    if (!r || r->state != CML_REC_OK || !r->measured || !isfinite(r->timing.median_ms) ||
        r->timing.median_ms <= 0)
        return NAN;
    return r->timing.median_ms;
}

static double ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && a > 0 ? b / a : NAN;
}

static unsigned ncounters(const cml_record *r)
{
    return r->ncounters < CML_RECORD_MAX_COUNTERS ? r->ncounters : CML_RECORD_MAX_COUNTERS;
}

/* The `nth` (from 0) counter of that name in r; NULL if none. */
static const cml_counter *find_counter(const cml_record *r, const char *name, unsigned nth)
{
    for (unsigned k = 0; k < ncounters(r); k++)
        if (strcmp(r->counters[k].name, name) == 0 && nth-- == 0)
            return &r->counters[k];
    return NULL;
}

/* How many counters of r before index k have the same name as counter k. */
static unsigned occurrence(const cml_record *r, unsigned k)
{
    unsigned n = 0;
    for (unsigned i = 0; i < k; i++)
        n += strcmp(r->counters[i].name, r->counters[k].name) == 0;
    return n;
}

size_t cml_cmp_counter_diffs(const cml_cmp_pair *p, cml_cmp_counter *out, size_t max)
{
    size_t n = 0;
    if (!p->a || !p->b)
        return 0;
    for (int side = 0; side < 2; side++) {
        const cml_record *x = side ? p->b : p->a, *y = side ? p->a : p->b;
        for (unsigned k = 0; k < ncounters(x); k++) {
            /* the n-th counter of a name beside the n-th of that name */
            const cml_counter *cx = &x->counters[k];
            const cml_counter *cy = find_counter(y, cx->name, occurrence(x, k));
            if (side && cy)
                continue; /* compared from A's side */
            if (cy && (cml_rep_counter_agrees(cx->measured, cy->measured) ||
                       (isnan(cx->measured) && isnan(cy->measured))))
                continue;
            if (n < max) {
                out[n].name = cx->name;
                out[n].a = side ? NAN : cx->measured;
                out[n].b = side ? cx->measured : cy ? cy->measured : NAN;
            }
            n++;
        }
    }
    return n;
}

static const struct traffic_field {
    const char *name;
    size_t offset;
} traffic_fields[] = {
    {"instructions", offsetof(cml_traffic, instructions)},
    {"requests", offsetof(cml_traffic, requests)},
    {"sectors", offsetof(cml_traffic, sectors)},
    {"lines", offsetof(cml_traffic, lines)},
    {"transactions", offsetof(cml_traffic, transactions)},
    {"transaction_bytes", offsetof(cml_traffic, transaction_bytes)},
    {"efficiency_bytes", offsetof(cml_traffic, efficiency_bytes)},
    {"requested_bytes", offsetof(cml_traffic, requested_bytes)},
    {"lane_bytes", offsetof(cml_traffic, lane_bytes)},
    {"wavefronts", offsetof(cml_traffic, wavefronts)},
    {"ideal_wavefronts", offsetof(cml_traffic, ideal_wavefronts)},
    {"bank_conflicts", offsetof(cml_traffic, bank_conflicts)},
    {"serialized", offsetof(cml_traffic, serialized)},
};

static uint64_t field_of(const cml_traffic *t, size_t offset)
{
    uint64_t v;
    memcpy(&v, (const unsigned char *)t + offset, sizeof v);
    return v;
}

size_t cml_cmp_model_diffs(const cml_cmp_pair *p, cml_cmp_model_diff *out, size_t max)
{
    size_t n = 0;
    if (!p->a || !p->b || !p->a->has_model || !p->b->has_model)
        return 0;
    for (int rules = 0; rules < (int)CML_RULES_COUNT; rules++)
        for (int cls = 0; cls < (int)CML_CLASS_COUNT; cls++) {
            const cml_traffic *ta = &p->a->model[rules].cls[cls];
            const cml_traffic *tb = &p->b->model[rules].cls[cls];
            for (size_t f = 0; f < sizeof traffic_fields / sizeof traffic_fields[0]; f++) {
                uint64_t va = field_of(ta, traffic_fields[f].offset);
                uint64_t vb = field_of(tb, traffic_fields[f].offset);
                if (va == vb)
                    continue;
                if (n < max) {
                    out[n].rules = rules;
                    out[n].cls = cls;
                    out[n].field = traffic_fields[f].name;
                    out[n].a = va;
                    out[n].b = vb;
                }
                n++;
            }
        }
    return n;
}

static void pair_figures(cml_cmp_pair *p)
{
    p->bw_a = p->a ? cml_rep_metric(p->a, CML_METRIC_BANDWIDTH, NULL) : NAN;
    p->bw_b = p->b ? cml_rep_metric(p->b, CML_METRIC_BANDWIDTH, NULL) : NAN;
    p->bw_ratio = ratio(p->bw_a, p->bw_b);
    p->ms_a = median_ms(p->a);
    p->ms_b = median_ms(p->b);
    p->time_ratio = ratio(p->ms_a, p->ms_b);
    p->counters_differ = cml_cmp_counter_diffs(p, NULL, 0);
    p->model_differs = p->a && p->b &&
                       (p->a->has_model != p->b->has_model || cml_cmp_model_diffs(p, NULL, 0) > 0);
}

/* ------------------------------------------------------------------ */
/* Building                                                           */
/* ------------------------------------------------------------------ */

static void sum_experiment(cml_comparison *c, cml_cmp_experiment *e, const cml_record **recs)
{
    double lb = 0, lt = 0;
    e->bw_min = e->bw_max = NAN;
    for (size_t i = e->first; i < e->first + e->n; i++) {
        const cml_cmp_pair *p = &c->pairs[i];
        e->both += p->a && p->b;
        e->only_a += !p->b;
        e->only_b += !p->a;
        e->counters_differ += p->counters_differ > 0;
        e->model_differ += p->model_differs != 0;
        if (isfinite(p->bw_ratio) && p->bw_ratio > 0) {
            lb += log(p->bw_ratio);
            if (!e->bw_n || p->bw_ratio < e->bw_min) {
                e->bw_min = p->bw_ratio;
                e->bw_min_pair = p;
            }
            if (!e->bw_n || p->bw_ratio > e->bw_max) {
                e->bw_max = p->bw_ratio;
                e->bw_max_pair = p;
            }
            e->bw_n++;
        }
        if (isfinite(p->time_ratio) && p->time_ratio > 0) {
            lt += log(p->time_ratio);
            e->time_n++;
        }
    }
    e->bw_mean = e->bw_n ? exp(lb / (double)e->bw_n) : NAN;
    e->time_mean = e->time_n ? exp(lt / (double)e->time_n) : NAN;
    /* The lowest and the highest named by what varies among the
     * experiment's records (recs: room for its pairs' records). */
    if (!e->bw_n)
        return;
    size_t n = 0;
    for (size_t i = e->first; i < e->first + e->n; i++)
        recs[n++] = c->pairs[i].a ? c->pairs[i].a : c->pairs[i].b;
    const char *exclude[] = {"n", NULL};
    cml_rep_names vary;
    cml_rep_varying_params(recs, n, exclude, &vary);
    const cml_cmp_pair *ends[2] = {e->bw_min_pair, e->bw_max_pair};
    char *names[2] = {e->bw_min_name, e->bw_max_name};
    for (int k = 0; k < 2; k++) {
        const cml_record *r = ends[k]->a ? ends[k]->a : ends[k]->b;
        cml_rep_param_key(r, &vary, 1, names[k], sizeof e->bw_min_name);
        if (!names[k][0])
            snprintf(names[k], sizeof e->bw_min_name, "%s", r->variant);
    }
}

cml_status cml_compare_build(cml_comparison *c, const cml_results *a, const char *path_a,
                             const cml_results *b, const char *path_b)
{
    memset(c, 0, sizeof *c);
    c->run[0] = a;
    c->run[1] = b;
    snprintf(c->file[0], sizeof c->file[0], "%s", path_a ? path_a : "");
    snprintf(c->file[1], sizeof c->file[1], "%s", path_b ? path_b : "");
    make_labels(c);
    size_t total = a->count + b->count;
    size_t *match = malloc((a->count ? a->count : 1) * sizeof *match);
    unsigned char *used_b = calloc(b->count ? b->count : 1, 1);
    cml_cmp_pair *flat = malloc((total ? total : 1) * sizeof *flat);
    size_t *gi = malloc((total ? total : 1) * sizeof *gi);
    const char **keys = malloc((total ? total : 1) * sizeof *keys);
    c->pairs = malloc((total ? total : 1) * sizeof *c->pairs);
    c->exps = calloc(total ? total : 1, sizeof *c->exps);
    if (!match || !used_b || !flat || !gi || !keys || !c->pairs || !c->exps ||
        match_records(a, b, match, used_b) != 0) {
        free(match), free(used_b), free(flat), free(gi), free(keys);
        cml_compare_free(c);
        return CML_ENOMEM;
    }
    /* A's records in A's order (matched or not), then B's unmatched ones. */
    size_t n = 0;
    for (size_t i = 0; i < a->count; i++) {
        memset(&flat[n], 0, sizeof flat[n]);
        flat[n].a = &a->items[i];
        flat[n++].b = match[i] != NONE ? &b->items[match[i]] : NULL;
    }
    for (size_t i = 0; i < b->count; i++)
        if (!used_b[i]) {
            memset(&flat[n], 0, sizeof flat[n]);
            flat[n++].b = &b->items[i];
        }
    /* Grouped by experiment, in order of first appearance; stable. */
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        const char *key = cml_cmp_experiment_key(&flat[i]);
        size_t k = i ? gi[i - 1] : 0;
        if (!i || strcmp(keys[k], key) != 0)
            for (k = 0; k < ng && strcmp(keys[k], key) != 0; k++)
                ;
        if (k == ng) {
            keys[ng] = key;
            c->exps[ng].key = key;
            ng++;
        }
        gi[i] = k;
        c->exps[k].n++;
    }
    size_t start = 0;
    for (size_t k = 0; k < ng; k++) {
        c->exps[k].first = start;
        start += c->exps[k].n;
        c->exps[k].n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        cml_cmp_experiment *e = &c->exps[gi[i]];
        c->pairs[e->first + e->n++] = flat[i];
    }
    c->npairs = n;
    c->nexps = ng;
    for (size_t i = 0; i < n; i++)
        pair_figures(&c->pairs[i]);
    const cml_record **recs = malloc((n ? n : 1) * sizeof *recs);
    if (!recs) {
        free(match), free(used_b), free(flat), free(gi), free(keys);
        cml_compare_free(c);
        return CML_ENOMEM;
    }
    for (size_t k = 0; k < ng; k++)
        sum_experiment(c, &c->exps[k], recs);
    free(match), free(used_b), free(flat), free(gi), free(keys), free(recs);
    return CML_OK;
}

void cml_compare_free(cml_comparison *c)
{
    free(c->pairs);
    free(c->exps);
    c->pairs = NULL;
    c->exps = NULL;
    c->npairs = c->nexps = 0;
}
