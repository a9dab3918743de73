/*
 * The fleet compared (fleet.h): the GPUs and their labels, the groups of
 * one model, the records lined up across a group's GPUs, each figure's
 * reference and flags by the outlier rule of docs/fleet.md, and what the
 * flags add up to per GPU. The renderers are fleet_text.c (terminal, CSV,
 * JSON) and fleet_html.c.
 */
#include "report/fleet.h"
#include "report/report_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "counters/counter_map.h"

#define NONE ((size_t)-1)

const char *cml_fleet_figure_name(const cml_fleet_row *row)
{
    return row->kind == CML_FLEET_BANDWIDTH ? "bandwidth"
           : row->kind == CML_FLEET_LATENCY ? "latency"
                                             : row->counter;
}

int cml_fleet_is_speed(cml_fleet_kind kind)
{
    return kind == CML_FLEET_BANDWIDTH || kind == CML_FLEET_LATENCY;
}

double cml_fleet_speed_deviation(const cml_fleet_row *row, const cml_fleet_cell *c)
{
    if (!c->present || !cml_fleet_is_speed(row->kind) || !isfinite(c->deviation))
        return NAN;
    return row->kind == CML_FLEET_LATENCY ? 1 / (1 + c->deviation) - 1 : c->deviation;
}

const char *cml_fleet_tool_version(const cml_fleet *f)
{
    for (size_t i = 0; i < f->ngpus; i++)
        if (!f->gpus[i].failed)
            return f->gpus[i].run->results.tool_version;
    return "";
}

/* ------------------------------------------------------------------ */
/* GPUs: labels, models, drivers                                      */
/* ------------------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "GPU-1a2b3c4d" of "GPU-1a2b3c4d-...": enough to tell cards apart. */
static void short_uuid(char *buf, size_t len, const char *uuid)
{
    size_t keep = strncmp(uuid, "GPU-", 4) == 0 ? 12 : 8;
    snprintf(buf, len, "%.*s", (int)keep, uuid);
}

static void append(char *buf, size_t len, const char *fmt, const char *s)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, fmt, s);
}

static void describe_gpu(cml_fleet_gpu *g, const cml_fleet_run *run)
{
    const cml_results *r = run->has_results ? &run->results : NULL;
    const cml_device_facts *d = r && r->has_device ? &r->device : NULL;
    const char *name = run->has_gpu && run->gpu.name[0] ? run->gpu.name : d ? d->name : "";
    const char *uuid = run->has_gpu && run->gpu.uuid[0] ? run->gpu.uuid : d ? d->uuid : "";
    int index = run->has_gpu && run->gpu.index >= 0 ? run->gpu.index : d ? d->index : -1;
    snprintf(g->model, sizeof g->model, "%.127s",
             name[0] ? name : r && r->model_only ? "model only (no GPU)" : "unknown GPU");
    if (run->has_gpu && run->gpu.driver[0])
        snprintf(g->driver, sizeof g->driver, "%s", run->gpu.driver);
    else if (d && d->driver_version > 0)
        snprintf(g->driver, sizeof g->driver, "CUDA %d.%d", d->driver_version / 1000,
                 d->driver_version % 1000 / 10);
    char where[160] = "", idx[24] = "", su[16] = "";
    if (run->from_fleet) {
        snprintf(g->tag, sizeof g->tag, "rank %d", run->rank);
        snprintf(where, sizeof where, "rank %d%s%.100s", run->rank, run->host[0] ? " " : "",
                 run->host);
    } else {
        snprintf(g->tag, sizeof g->tag, "%.63s", base_name(run->file));
        snprintf(where, sizeof where, "%.150s:", base_name(run->file));
    }
    snprintf(g->label, sizeof g->label, "%s", where);
    if (index >= 0) {
        snprintf(idx, sizeof idx, " GPU %d", index);
        append(g->label, sizeof g->label, "%s", idx);
    }
    if (name[0])
        append(g->label, sizeof g->label, " %.80s", name);
    if (uuid[0]) {
        short_uuid(su, sizeof su, uuid);
        append(g->label, sizeof g->label, " (%s)", su);
    }
    g->failed = !run->has_results;
}

/* ------------------------------------------------------------------ */
/* Records lined up: keys (experiment, variant, n-th of that pair)     */
/* ------------------------------------------------------------------ */

/* The records of one group, one slot per GPU for each key. */
typedef struct lineup {
    size_t n;                    /* GPUs in the group */
    const cml_record **recs;     /* nkeys * n */
    size_t *occ;                 /* each key's occurrence of its names */
    size_t nkeys, capkeys;
    /* (experiment, variant) -> its keys, by occurrence */
    size_t *slot;                /* hash table of base ids (NONE: empty) */
    size_t capslot;
    const cml_record **base_rec; /* a record of each base (its names) */
    size_t **base_keys;          /* each base's keys, one per occurrence */
    size_t *base_nkeys, *seen;   /* its key count; occurrences in the current run */
    size_t nbases, capbases;
} lineup;

static void lineup_free(lineup *l)
{
    for (size_t b = 0; b < l->nbases; b++)
        free(l->base_keys[b]);
    free(l->recs), free(l->occ), free(l->slot), free(l->base_rec), free(l->base_keys);
    free(l->base_nkeys), free(l->seen);
}

/* Rehash the table to twice its size; 0 on out of memory. */
static int grow_slots(lineup *l)
{
    size_t cap = l->capslot ? l->capslot * 2 : 64;
    size_t *s = malloc(cap * sizeof *s);
    if (!s)
        return 0;
    for (size_t k = 0; k < cap; k++)
        s[k] = NONE;
    for (size_t b = 0; b < l->nbases; b++) {
        size_t h = (size_t)cml_rep_name_hash(l->base_rec[b]) & (cap - 1);
        while (s[h] != NONE)
            h = (h + 1) & (cap - 1);
        s[h] = b;
    }
    free(l->slot);
    l->slot = s;
    l->capslot = cap;
    return 1;
}

static size_t find_base(lineup *l, const cml_record *rec)
{
    if (2 * (l->nbases + 1) > l->capslot && !grow_slots(l))
        return NONE;
    size_t h = (size_t)cml_rep_name_hash(rec) & (l->capslot - 1);
    while (l->slot[h] != NONE && !cml_rep_same_name(l->base_rec[l->slot[h]], rec))
        h = (h + 1) & (l->capslot - 1);
    if (l->slot[h] != NONE)
        return l->slot[h];
    if (l->nbases == l->capbases) {
        size_t cap = l->capbases ? l->capbases * 2 : 64;
        const cml_record **br = realloc(l->base_rec, cap * sizeof *br);
        if (br)
            l->base_rec = br;
        size_t **bk = realloc(l->base_keys, cap * sizeof *bk);
        if (bk)
            l->base_keys = bk;
        size_t *bn = realloc(l->base_nkeys, cap * sizeof *bn);
        if (bn)
            l->base_nkeys = bn;
        size_t *se = realloc(l->seen, cap * sizeof *se);
        if (se)
            l->seen = se;
        if (!br || !bk || !bn || !se)
            return NONE;
        l->capbases = cap;
    }
    size_t b = l->nbases++;
    l->base_rec[b] = rec;
    l->base_keys[b] = NULL;
    l->base_nkeys[b] = 0;
    l->seen[b] = 0;
    l->slot[h] = b;
    return b;
}

/* The key of the occurrence-th record of base b, made when new. */
static size_t key_of(lineup *l, size_t b, size_t occurrence)
{
    if (occurrence < l->base_nkeys[b])
        return l->base_keys[b][occurrence];
    size_t *bk = realloc(l->base_keys[b], (occurrence + 1) * sizeof *bk);
    if (!bk)
        return NONE;
    l->base_keys[b] = bk;
    if (l->nkeys == l->capkeys) {
        size_t cap = l->capkeys ? l->capkeys * 2 : 64;
        const cml_record **r = realloc(l->recs, cap * l->n * sizeof *r);
        if (r)
            l->recs = r;
        size_t *o = realloc(l->occ, cap * sizeof *o);
        if (o)
            l->occ = o;
        if (!r || !o)
            return NONE;
        l->capkeys = cap;
    }
    size_t k = l->nkeys++;
    for (size_t i = 0; i < l->n; i++)
        l->recs[k * l->n + i] = NULL;
    l->occ[k] = occurrence;
    bk[occurrence] = k;
    l->base_nkeys[b] = occurrence + 1;
    return k;
}

/* Every record of run `pos` that is ok: into its slot. 0 on out of memory. */
static int lineup_add(lineup *l, size_t pos, const cml_results *r)
{
    for (size_t b = 0; b < l->nbases; b++)
        l->seen[b] = 0;
    for (size_t i = 0; i < r->count; i++) {
        const cml_record *rec = &r->items[i];
        size_t b = find_base(l, rec);
        if (b == NONE)
            return 0;
        size_t k = key_of(l, b, l->seen[b]++);
        if (k == NONE)
            return 0;
        /* waived and failed records are not compared */
        if (rec->state == CML_REC_OK)
            l->recs[k * l->n + pos] = rec;
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Figures and the rule                                               */
/* ------------------------------------------------------------------ */

/* The record's speed figure and its band from the timing's spread: its
 * latency (ns per load) when it reports one, else its bandwidth; 0 when it
 * has neither measured. A latency record's bandwidth (the bytes of its
 * dependent loads over the launch) is no figure of the card: a chase on
 * every SM lasts as long as its slowest SM's, a lone warp's depends on the
 * SM it lands on (docs/experiments/hierarchy.md). */
static int speed_of(const cml_record *rec, cml_fleet_kind *kind, double *v, double *lo,
                    double *hi)
{
    if (!rec->measured)
        return 0;
    const double ns = cml_record_extra(rec, "ns_per_load", NAN);
    const int latency = isfinite(ns) && ns > 0;
    if (!latency && (!isfinite(rec->bandwidth_gbs) || rec->bandwidth_gbs <= 0))
        return 0;
    *kind = latency ? CML_FLEET_LATENCY : CML_FLEET_BANDWIDTH;
    const cml_timing *t = &rec->timing;
    double b = latency ? ns : rec->bandwidth_gbs;
    *v = *lo = *hi = b;
    /* bandwidth: bytes / max_ms .. bytes / min_ms, as bandwidth * median /
     * max .. / min, the same whatever bytes the experiment counts; latency:
     * in proportion to the launch's time, latency * min / median .. max /
     * median */
    if (isfinite(t->median_ms) && t->median_ms > 0 && isfinite(t->min_ms) && t->min_ms > 0 &&
        isfinite(t->max_ms) && t->max_ms > 0) {
        double a = latency ? b * (t->min_ms / t->median_ms) : b * (t->median_ms / t->max_ms);
        double c = latency ? b * (t->max_ms / t->median_ms) : b * (t->median_ms / t->min_ms);
        if (isfinite(a) && isfinite(c)) {
            *lo = fmin(b, fmin(a, c));
            *hi = fmax(b, fmax(a, c));
        }
    }
    return 1;
}

/* The exact counter `name` of rec (counters/counter_map.h: the counts
 * `validate` judges exactly); 0 when it has none, or the counter is not
 * exact. */
static int counter_of(const cml_record *rec, const char *name, double *v)
{
    const cml_counter *c = cml_record_find_counter(rec, name);
    if (!c)
        return 0;
    *v = c->measured;
    return isfinite(*v);
}

static int is_exact(const char *name)
{
    const cml_counter_def *d = cml_counter_map_find(name);
    return d && d->kind == CML_CTR_EXACT;
}

typedef struct ranked {
    double v;
    size_t pos;
} ranked;

static int by_value(const void *a, const void *b)
{
    double x = ((const ranked *)a)->v, y = ((const ranked *)b)->v;
    return x < y ? -1 : x > y;
}

/* The speed rule (docs/fleet.md): the reference and its band, then the
 * flags. */
static void judge_speed(cml_fleet_row *row, size_t n, double thr, ranked *tmp)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (row->cells[i].present)
            tmp[m++] = (ranked){row->cells[i].value, i};
    qsort(tmp, m, sizeof *tmp, by_value);
    const cml_fleet_cell *a, *b;
    if (m == 2) {
        row->rule = CML_FLEET_REF_FASTER; /* no majority: the faster of the two */
        a = b = &row->cells[tmp[row->kind == CML_FLEET_LATENCY ? 0 : 1].pos];
        row->reference = a->value;
    } else {
        row->rule = CML_FLEET_REF_MEDIAN;
        a = &row->cells[tmp[(m - 1) / 2].pos];
        b = &row->cells[tmp[m / 2].pos];
        row->reference = (a->value + b->value) / 2;
    }
    row->ref_lo = fmin(a->lo, b->lo);
    row->ref_hi = fmax(a->hi, b->hi);
    for (size_t i = 0; i < n; i++) {
        cml_fleet_cell *c = &row->cells[i];
        if (!c->present)
            continue;
        c->deviation = c->value / row->reference - 1;
        c->flagged = fabs(c->deviation) > thr / 100 && (c->hi < row->ref_lo || c->lo > row->ref_hi);
        row->nflagged += (size_t)c->flagged;
    }
}

/* The counter rule: the value most GPUs hold; none when two values are
 * equally common (nothing is flagged then). */
static void judge_counter(cml_fleet_row *row, size_t n)
{
    size_t best = 0, best_count = 0;
    int tie = 0;
    for (size_t i = 0; i < n; i++) {
        if (!row->cells[i].present)
            continue;
        size_t count = 0;
        for (size_t j = 0; j < n; j++)
            count += row->cells[j].present && row->cells[j].value == row->cells[i].value;
        if (count > best_count) {
            best = i, best_count = count, tie = 0;
        } else if (count == best_count && row->cells[i].value != row->cells[best].value) {
            tie = 1;
        }
    }
    row->rule = tie ? CML_FLEET_REF_NONE : CML_FLEET_REF_MAJORITY;
    row->reference = tie ? NAN : row->cells[best].value;
    for (size_t i = 0; i < n; i++) {
        cml_fleet_cell *c = &row->cells[i];
        if (!c->present || tie)
            continue;
        c->deviation = row->reference != 0 ? c->value / row->reference - 1 : NAN;
        c->flagged = c->value != row->reference;
        row->nflagged += (size_t)c->flagged;
    }
}

static cml_fleet_row *new_row(cml_fleet *f, size_t *cap, size_t group, size_t n,
                              const cml_record *names, size_t occurrence)
{
    if (f->nrows == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        cml_fleet_row *v = realloc(f->rows, c * sizeof *v);
        if (!v)
            return NULL;
        f->rows = v;
        *cap = c;
    }
    cml_fleet_cell *cells = calloc(n, sizeof *cells);
    if (!cells)
        return NULL;
    cml_fleet_row *row = &f->rows[f->nrows++];
    memset(row, 0, sizeof *row);
    row->group = group;
    row->experiment = names->experiment;
    row->variant = names->variant;
    row->occurrence = occurrence;
    row->cells = cells;
    for (size_t i = 0; i < n; i++)
        cells[i].deviation = NAN;
    return row;
}

/* The rows of key k: its speed figure, then each exact counter (in the order
 * the GPUs' records name them), each where two or more GPUs have it. */
static int key_rows(cml_fleet *f, size_t *cap, size_t group, const lineup *l, size_t k)
{
    const cml_record **recs = &l->recs[k * l->n];
    const cml_record *first = NULL;
    size_t have = 0;
    for (size_t i = 0; i < l->n; i++)
        if (recs[i]) {
            have++;
            first = first ? first : recs[i];
        }
    if (have < 2)
        return 1;
    size_t occurrence = l->occ[k];
    double v, lo, hi;
    /* the kind of the first GPU's speed figure; a GPU whose record gives
     * the other kind (it measured no latency) has none to compare */
    cml_fleet_kind kind = CML_FLEET_COUNTER, k1;
    size_t nspeed = 0;
    for (size_t i = 0; i < l->n; i++)
        if (recs[i] && speed_of(recs[i], &k1, &v, &lo, &hi)) {
            kind = kind == CML_FLEET_COUNTER ? k1 : kind;
            nspeed += k1 == kind;
        }
    if (nspeed >= 2) {
        cml_fleet_row *row = new_row(f, cap, group, l->n, first, occurrence);
        if (!row)
            return 0;
        row->kind = kind;
        for (size_t i = 0; i < l->n; i++) {
            cml_fleet_cell *c = &row->cells[i];
            c->present = recs[i] && speed_of(recs[i], &k1, &c->value, &c->lo, &c->hi) &&
                         k1 == kind;
            row->present += (size_t)c->present;
        }
        ranked *tmp = malloc(l->n * sizeof *tmp);
        if (!tmp)
            return 0;
        judge_speed(row, l->n, f->threshold, tmp);
        free(tmp);
    }
    for (size_t i = 0; i < l->n; i++) {
        if (!recs[i])
            continue;
        for (unsigned c = 0; c < recs[i]->ncounters && c < CML_RECORD_MAX_COUNTERS; c++) {
            const char *name = recs[i]->counters[c].name;
            int seen = 0; /* named by an earlier GPU's record: its row is made */
            for (size_t j = 0; j < i && !seen; j++)
                seen = recs[j] && counter_of(recs[j], name, &v);
            size_t n = 0;
            for (size_t j = 0; j < l->n; j++)
                n += recs[j] && counter_of(recs[j], name, &v);
            if (seen || n < 2 || !is_exact(name))
                continue;
            cml_fleet_row *row = new_row(f, cap, group, l->n, first, occurrence);
            if (!row)
                return 0;
            row->kind = CML_FLEET_COUNTER;
            row->counter = name;
            for (size_t j = 0; j < l->n; j++) {
                cml_fleet_cell *cell = &row->cells[j];
                cell->present = recs[j] && counter_of(recs[j], name, &cell->value);
                cell->lo = cell->hi = cell->value;
                row->present += (size_t)cell->present;
            }
            judge_counter(row, l->n);
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Groups and what each GPU's flags add up to                         */
/* ------------------------------------------------------------------ */

/* The median of the known values of one field of the group's states. */
static int median_int(const double *v, size_t n)
{
    double m = cml_stats_median(v, n);
    return isfinite(m) ? (int)lround(m) : -1;
}

/* The group's driver (the most common) and its clocks and temperatures
 * at start and end (the medians of those known). 0 on out of memory. */
static int group_state(cml_fleet *f, cml_fleet_group *g)
{
    size_t best = 0;
    for (size_t i = 0; i < g->n; i++) {
        const char *d = f->gpus[g->gpus[i]].driver;
        size_t count = 0;
        for (size_t j = 0; j < g->n; j++)
            count += strcmp(f->gpus[g->gpus[j]].driver, d) == 0;
        if (d[0] && count > best) {
            best = count;
            snprintf(g->driver, sizeof g->driver, "%s", d);
        }
    }
    double *v = malloc(4 * g->n * sizeof *v);
    if (!v)
        return 0;
    for (int end = 0; end < 2; end++) {
        cml_fleet_gpu_state *s = end ? &g->end : &g->start;
        size_t n[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < g->n; i++) {
            const cml_fleet_run *run = f->gpus[g->gpus[i]].run;
            const cml_fleet_gpu_state *x = end ? &run->gpu.end : &run->gpu.start;
            if (!run->has_gpu || !x->known)
                continue;
            s->known = 1;
            if (x->sm_clock_mhz >= 0)
                v[n[0]++] = x->sm_clock_mhz;
            if (x->mem_clock_mhz >= 0)
                v[g->n + n[1]++] = x->mem_clock_mhz;
            if (x->temperature_c > -1000)
                v[2 * g->n + n[2]++] = x->temperature_c;
            if (isfinite(x->power_w))
                v[3 * g->n + n[3]++] = x->power_w;
        }
        s->sm_clock_mhz = median_int(v, n[0]);
        s->mem_clock_mhz = median_int(v + g->n, n[1]);
        s->temperature_c = n[2] ? median_int(v + 2 * g->n, n[2]) : -1000;
        s->power_w = cml_stats_median(v + 3 * g->n, n[3]);
    }
    free(v);
    return 1;
}

/* "a, b" with b added once; "..." when there is no more room. */
static void add_name(char *list, size_t len, const char *name)
{
    size_t nl = strlen(name), used = strlen(list);
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
        if ((p == list || (p - list >= 2 && p[-2] == ',')) && (p[nl] == ',' || p[nl] == '\0'))
            return;
    if (used >= 3 && strcmp(list + used - 3, "...") == 0)
        return;
    if (used + nl + 2 + 4 >= len) {
        if (used + 5 < len)
            strcat(list, used ? ", ..." : "...");
        return;
    }
    if (used)
        strcat(list, ", ");
    strcat(list, name);
}

/* P(X = j) for X Poisson with mean lambda, in logarithms (exp(-lambda)
 * alone underflows for large means). */
static double poisson_term(double j, double lambda)
{
    return exp(-lambda + j * log(lambda) - lgamma(j + 1));
}

/* P(X >= k) for X Poisson with mean lambda > 0: above the mean, the terms
 * from k up (they fall from there, each from the one before); at or below
 * it, 1 - the terms from k - 1 down to 0 (they fall going down). */
static double poisson_at_least(size_t k, double lambda)
{
    if (k == 0)
        return 1.0;
    double sum = 0, term;
    if ((double)k > lambda) {
        term = poisson_term((double)k, lambda);
        for (double j = (double)k; term > 1e-300 && term > sum * 1e-17; j++) {
            sum += term;
            term *= lambda / (j + 1);
        }
        return fmin(sum, 1.0);
    }
    term = poisson_term((double)k - 1, lambda);
    for (double j = (double)k - 1; j >= 0 && term > 1e-300 && term > sum * 1e-17; j--) {
        sum += term;
        term *= j / lambda;
    }
    return fmax(0.0, 1.0 - sum);
}

/*
 * Per GPU: figures compared and flagged, the median deviation of the
 * flagged speed figures, where they fall; then whether it is named an
 * outlier. A differing exact counter names it. Flagged speed figures
 * name it when so many are unlikely by chance at the rate the other GPUs
 * of its model show in the same comparison: the others are the control,
 * run at the same time under the same conditions, and what they show too
 * (a sample that met a busy moment of the host, copies of ranks of one
 * host sharing its link) is the run's, not this card's. Flags that fall
 * by chance, each figure on its own, count as a Poisson variable; with the
 * others' median count (at least 1) as its mean, the GPU is named when the
 * chance of its count or more is below CML_FLEET_NAME_CHANCE. Measured on
 * healthy H100 pairs: 10 against 12, 5 against 2 flagged (chances 0.30 and
 * 0.053); kept busy, 54 against 5, 42 against 13, 30 against 3 (all below
 * 1e-9) (docs/fleet.md; bench/results/h100x2/). 0 on out of memory.
 */
static int sum_up(cml_fleet *f)
{
    /* the flagged deviations of a GPU (at most a row each), then the other
     * GPUs' counts (at most a GPU each) */
    const size_t cap = f->nrows > f->ngpus ? f->nrows : f->ngpus;
    double *dev = malloc((cap ? cap : 1) * sizeof *dev);
    if (!dev)
        return 0;
    for (size_t gi = 0; gi < f->ngpus; gi++) {
        cml_fleet_gpu *g = &f->gpus[gi];
        g->median_flagged = NAN;
        if (g->failed)
            continue;
        const cml_fleet_group *grp = &f->groups[g->group];
        size_t nd = 0;
        for (size_t r = grp->first_row; r < grp->first_row + grp->nrows; r++) {
            const cml_fleet_row *row = &f->rows[r];
            const cml_fleet_cell *c = &row->cells[g->pos];
            if (!c->present)
                continue;
            if (cml_fleet_is_speed(row->kind)) {
                g->speed_compared++;
                if (c->flagged) {
                    const double d = cml_fleet_speed_deviation(row, c);
                    g->speed_flagged++;
                    g->speed_slower += d < 0;
                    g->speed_faster += d > 0;
                    dev[nd++] = d;
                }
            } else {
                g->ctr_compared++;
                if (c->flagged) {
                    char what[128];
                    g->ctr_flagged++;
                    snprintf(what, sizeof what, "%.63s in %.31s", row->counter, row->experiment);
                    add_name(g->counters, sizeof g->counters, what);
                }
            }
            if (c->flagged)
                add_name(g->experiments, sizeof g->experiments, row->experiment);
        }
        g->median_flagged = cml_stats_median(dev, nd);
    }
    /* Who is named: see name_outliers. */
    for (size_t gi = 0; gi < f->ngpus; gi++) {
        cml_fleet_gpu *g = &f->gpus[gi];
        if (g->failed)
            continue;
        const cml_fleet_group *grp = &f->groups[g->group];
        size_t no = 0;
        for (size_t k = 0; k < grp->n; k++)
            if (grp->gpus[k] != gi)
                dev[no++] = (double)f->gpus[grp->gpus[k]].speed_flagged;
        g->others_flagged = no ? cml_stats_median(dev, no) : 0.0;
        g->chance = poisson_at_least(g->speed_flagged, fmax(g->others_flagged, 1.0));
        g->outlier = g->ctr_flagged > 0 || g->chance < CML_FLEET_NAME_CHANCE;
        f->noutliers += (size_t)g->outlier;
    }
    free(dev);
    return 1;
}

void cml_fleet_free(cml_fleet *f)
{
    for (size_t r = 0; r < f->nrows; r++)
        free(f->rows[r].cells);
    free(f->rows);
    for (size_t g = 0; g < f->ngroups; g++)
        free(f->groups[g].gpus);
    free(f->groups);
    free(f->gpus);
    memset(f, 0, sizeof *f);
}

/* The groups: the GPUs that have results, by model, in order of first
 * appearance. 0 on out of memory. */
static int make_groups(cml_fleet *f)
{
    f->groups = calloc(f->ngpus ? f->ngpus : 1, sizeof *f->groups);
    if (!f->groups)
        return 0;
    for (size_t i = 0; i < f->ngpus; i++) {
        cml_fleet_gpu *g = &f->gpus[i];
        if (g->failed)
            continue;
        size_t k = 0;
        while (k < f->ngroups && strcmp(f->groups[k].model, g->model) != 0)
            k++;
        cml_fleet_group *grp = &f->groups[k];
        if (k == f->ngroups) {
            f->ngroups++;
            snprintf(grp->model, sizeof grp->model, "%s", g->model);
            grp->gpus = malloc(f->ngpus * sizeof *grp->gpus);
            if (!grp->gpus)
                return 0;
        }
        g->group = k;
        g->pos = grp->n;
        grp->gpus[grp->n++] = i;
    }
    return 1;
}

cml_status cml_fleet_build(cml_fleet *f, const cml_fleet_runs *runs, double threshold)
{
    memset(f, 0, sizeof *f);
    f->runs = runs;
    f->threshold = threshold > 0 ? threshold : CML_FLEET_DEFAULT_THRESHOLD;
    f->gpus = calloc(runs->count ? runs->count : 1, sizeof *f->gpus);
    if (!f->gpus)
        return CML_ENOMEM;
    f->ngpus = runs->count;
    for (size_t i = 0; i < runs->count; i++) {
        f->gpus[i].run = &runs->items[i];
        describe_gpu(&f->gpus[i], &runs->items[i]);
        f->nfailed += (size_t)f->gpus[i].failed;
    }
    int ok = make_groups(f);
    size_t cap = 0;
    for (size_t k = 0; ok && k < f->ngroups; k++) {
        cml_fleet_group *grp = &f->groups[k];
        ok = group_state(f, grp);
        grp->first_row = f->nrows;
        lineup l;
        memset(&l, 0, sizeof l);
        l.n = grp->n;
        for (size_t i = 0; ok && grp->n >= 2 && i < grp->n; i++)
            ok = lineup_add(&l, i, &f->gpus[grp->gpus[i]].run->results);
        for (size_t key = 0; ok && key < l.nkeys; key++)
            ok = key_rows(f, &cap, k, &l, key);
        lineup_free(&l);
        grp->nrows = f->nrows - grp->first_row;
    }
    if (ok)
        ok = sum_up(f);
    if (!ok) {
        cml_fleet_free(f);
        return CML_ENOMEM;
    }
    return CML_OK;
}

cml_status cml_fleet_report_file(const char *path, FILE *out, double threshold, char *err,
                                 size_t errlen)
{
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    cml_status st = cml_fleet_read_file(path, &runs, err, errlen);
    if (st == CML_OK) {
        cml_fleet f;
        st = cml_fleet_build(&f, &runs, threshold);
        if (st != CML_OK)
            snprintf(err, errlen, "%s: out of memory comparing the fleet", path);
        else if ((st = cml_fleet_table(out, &f)) != CML_OK)
            snprintf(err, errlen, "cannot write the fleet's comparison");
        cml_fleet_free(&f);
    }
    cml_fleet_runs_free(&runs);
    return st;
}
