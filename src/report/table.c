/*
 * Terminal reporter: a header block (tool, device, peak bandwidth, or the
 * model-only banner), then per experiment (records grouped by consecutive
 * experiment name) one aligned table whose columns follow what the records
 * carry, a table of hardware counters beside the model's predictions when
 * any were read, and the findings, wrapped at ~100 columns.
 *
 * Plain ASCII apart from what the records themselves contain. Figures use
 * fixed decimals per column: time 3 (ms) or 2 (us), cv 2, GB/s 1, % 1,
 * per-request ratios 2.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/item_groups.h"
#include "report/level_table.h"
#include "report/record_metrics.h"
#include "report/table_banner.h"
#include "report/report_util.h"
#include "report/summary.h"
#include "report/text_table.h"

#define TABLE_MAX_WIDTH 130   /* columns of lowest priority go beyond this */
#define TEXT_WIDTH 100        /* findings and the header block wrap here */
#define MAX_EXTRA_COLS 8
#define SUMMARY_MAX_LINES 30  /* the summary the tables follow: one screen */

/* What a column shows. */
typedef enum col_kind {
    K_PARAM, K_VARIANT,
    K_MEDIAN, K_CV, K_GBS, K_CYCLES, K_NS, K_PEAK, K_PEAK_REF, K_VERIFY,
    K_REQUESTS, K_SECTORS, K_SECT_PER_REQ, K_EFF, K_TRANS_PER_REQ,
    K_WF_PER_REQ, K_CONFLICTS, K_SER_PER_REQ,
    K_EXTRA
} col_kind;

typedef struct col_spec {
    col_kind kind;
    int idx;      /* K_PARAM: parameter index; K_EXTRA: extra column; model: class */
    int rules;    /* model columns: CML_RULES_* */
} col_spec;

/* The columns of one experiment's table and how to fill them. */
typedef struct layout {
    cml_tt tt;
    col_spec spec[CML_TT_MAX_COLS];
    size_t nid;                       /* identity columns (parameters or variant) */
    int time_us;                      /* median in microseconds, else milliseconds */
    char extra_name[MAX_EXTRA_COLS][32];
    size_t nextra;
    unsigned fixed[CML_RECORD_MAX_PARAMS]; /* parameters equal in every record */
    unsigned nfixed;
} layout;

/* Add a column with its spec; silently ignored when the table is full. */
static void add_col(layout *L, col_spec s, const char *g0, const char *g1, const char *head,
                    cml_tt_align align, int priority)
{
    int c = cml_tt_add(&L->tt, g0, g1, head, align, priority);
    if (c >= 0)
        L->spec[c] = s;
}

static col_spec spec(col_kind k, int idx, int rules)
{
    col_spec s = { k, idx, rules };
    return s;
}

static unsigned nparams(const cml_record *rec)
{
    return rec->nparams < CML_RECORD_MAX_PARAMS ? rec->nparams : CML_RECORD_MAX_PARAMS;
}

static int params_equal(const cml_record *a, const cml_record *b)
{
    cml_report_table_count();
    for (unsigned i = 0; i < nparams(a); i++)
        if (a->params[i].value != b->params[i].value ||
            strcmp(a->params[i].label, b->params[i].label) != 0)
            return 0;
    return 1;
}

/* The parameters' values and labels (names are checked equal apart). */
static uint64_t params_hash(const void *items, size_t i)
{
    const cml_record *rec = ((const cml_record *const *)items)[i];
    uint64_t h = CML_FNV_START;
    for (unsigned k = 0; k < nparams(rec); k++) {
        h = cml_fnv(h, &rec->params[k].value, sizeof rec->params[k].value);
        h = cml_fnv(h, rec->params[k].label, strlen(rec->params[k].label) + 1);
    }
    return h;
}

static int params_item_eq(const void *items, size_t i, size_t j)
{
    const cml_record *const *recs = items;
    return params_equal(recs[i], recs[j]);
}

/* Does parameter k have the same value in every record? */
static int param_constant(const cml_record *const *recs, size_t n, unsigned k)
{
    for (size_t i = 1; i < n && cml_report_table_count(); i++)
        if (recs[i]->params[k].value != recs[0]->params[k].value ||
            strcmp(recs[i]->params[k].label, recs[0]->params[k].label) != 0)
            return 0;
    return 1;
}

/*
 * Parameter columns replace the variant when every record has the same
 * parameters, in the same order, and they tell the records apart at least
 * as well as the variant names do.
 */
static int params_identify(const cml_record *const *recs, size_t n)
{
    unsigned np = nparams(recs[0]);
    if (np == 0)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if (nparams(recs[i]) != np)
            return 0;
        for (unsigned k = 0; k < np; k++)
            if (strcmp(recs[i]->params[k].name, recs[0]->params[k].name) != 0)
                return 0;
    }
    /* Records with equal parameters must have equal variants: each equal
     * to the first of its group. Out of memory: name rows by variant. */
    size_t *first = malloc(n * sizeof *first);
    int ok = first && cml_group_first(recs, n, params_hash, params_item_eq, NULL, first) == 0;
    for (size_t i = 0; ok && i < n; i++) {
        cml_report_table_count();
        ok = strcmp(recs[i]->variant, recs[first[i]]->variant) == 0;
    }
    free(first);
    return ok;
}

/* Do the two rule sets predict the same for class c in every record? */
static int rules_agree(const cml_record *const *recs, size_t n, int c)
{
    for (size_t i = 0; i < n; i++) {
        if (!recs[i]->has_model)
            continue;
        const cml_traffic *m = &recs[i]->model[CML_RULES_MODERN].cls[c];
        const cml_traffic *f = &recs[i]->model[CML_RULES_FERMI].cls[c];
        if (cml_rep_requests(m) != cml_rep_requests(f) || m->wavefronts != f->wavefronts ||
            m->bank_conflicts != f->bank_conflicts || m->serialized != f->serialized)
            return 0;
    }
    return 1;
}

static int is_ok(const cml_record *rec) { return rec->state == CML_REC_OK; }

/* Model columns for class c: what matters for its memory space. */
static void add_class_cols(layout *L, const cml_record *const *recs, size_t n, int c)
{
    const char *g0 = cml_rep_class_name(c);
    switch (c) {
    case CML_CLASS_GLOBAL_LD: case CML_CLASS_GLOBAL_ST:
    case CML_CLASS_LOCAL_LD: case CML_CLASS_LOCAL_ST:
        add_col(L, spec(K_REQUESTS, c, CML_RULES_MODERN), g0, "modern", "requests",
                CML_TT_RIGHT, 15);
        add_col(L, spec(K_SECTORS, c, CML_RULES_MODERN), g0, "modern", "sectors",
                CML_TT_RIGHT, 20);
        add_col(L, spec(K_SECT_PER_REQ, c, CML_RULES_MODERN), g0, "modern", "sect/req",
                CML_TT_RIGHT, 80);
        add_col(L, spec(K_EFF, c, CML_RULES_MODERN), g0, "modern", "eff %", CML_TT_RIGHT, 80);
        add_col(L, spec(K_TRANS_PER_REQ, c, CML_RULES_FERMI), g0, "fermi", "trans/req",
                CML_TT_RIGHT, 60);
        add_col(L, spec(K_EFF, c, CML_RULES_FERMI), g0, "fermi", "eff %", CML_TT_RIGHT, 70);
        break;
    case CML_CLASS_SHARED_LD: case CML_CLASS_SHARED_ST:
        if (rules_agree(recs, n, c)) {
            add_col(L, spec(K_WF_PER_REQ, c, CML_RULES_MODERN), g0, "both", "wf/req",
                    CML_TT_RIGHT, 80);
            add_col(L, spec(K_CONFLICTS, c, CML_RULES_MODERN), g0, "both", "conflicts",
                    CML_TT_RIGHT, 50);
        } else {
            for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
                add_col(L, spec(K_WF_PER_REQ, c, r), g0, cml_rep_rules_name(r), "wf/req",
                        CML_TT_RIGHT, r ? 70 : 80);
                add_col(L, spec(K_CONFLICTS, c, r), g0, cml_rep_rules_name(r), "conflicts",
                        CML_TT_RIGHT, r ? 40 : 50);
            }
        }
        break;
    default: /* constant */
        if (rules_agree(recs, n, c)) {
            add_col(L, spec(K_SER_PER_REQ, c, CML_RULES_MODERN), g0, "both", "ser/req",
                    CML_TT_RIGHT, 80);
        } else {
            for (int r = 0; r < (int)CML_RULES_COUNT; r++)
                add_col(L, spec(K_SER_PER_REQ, c, r), g0, cml_rep_rules_name(r), "ser/req",
                        CML_TT_RIGHT, r ? 70 : 80);
        }
        break;
    }
}

/* Choose the columns for records recs[0..n) from what they carry. */
static void build_layout(layout *L, const cml_record *const *recs, size_t n)
{
    memset(L->spec, 0, sizeof L->spec);
    cml_tt_init(&L->tt, 0);
    L->nextra = 0;
    L->time_us = 0;
    L->nfixed = 0;

    /* Identity: parameter columns, or the variant name. Parameters equal in
     * every record are said once above the table instead (unless nothing
     * varies: then they are the row's name). */
    if (params_identify(recs, n)) {
        unsigned np = nparams(recs[0]);
        for (unsigned k = 0; k < np && n > 1; k++)
            if (param_constant(recs, n, k))
                L->fixed[L->nfixed++] = k;
        if (L->nfixed == np)
            L->nfixed = 0;
        for (unsigned k = 0; k < np; k++) {
            int fixed = 0;
            for (unsigned f = 0; f < L->nfixed; f++)
                fixed |= L->fixed[f] == k;
            if (fixed)
                continue;
            int labelled = 0;
            for (size_t i = 0; i < n; i++)
                labelled |= recs[i]->params[k].label[0] != '\0';
            add_col(L, spec(K_PARAM, (int)k, 0), NULL, NULL, recs[0]->params[k].name,
                    labelled ? CML_TT_LEFT : CML_TT_RIGHT, CML_TT_KEEP);
        }
    } else {
        add_col(L, spec(K_VARIANT, 0, 0), NULL, NULL, "variant", CML_TT_LEFT, CML_TT_KEEP);
    }
    L->nid = L->tt.ncol;

    /* Measured figures, when any record has them. */
    int measured = 0, peak = 0, ref = 0, resident = 0, latency = 0, bandwidth = 0;
    double max_median = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_ok(recs[i]) || !recs[i]->measured)
            continue;
        measured = 1;
        if (cml_rep_latency(recs[i], NULL, NULL))
            latency = 1;
        else
            bandwidth = 1;
        peak |= recs[i]->peak_fraction >= 0;
        ref |= recs[i]->peak_class != CML_PEAK_CLASS_NONE;
        resident |= cml_peak_class_resident(recs[i]->peak_class);
        if (isfinite(recs[i]->timing.median_ms) && recs[i]->timing.median_ms > max_median)
            max_median = recs[i]->timing.median_ms;
    }
    if (measured) {
        L->time_us = max_median < 1.0;
        add_col(L, spec(K_MEDIAN, 0, 0), "measured", NULL,
                L->time_us ? "median us" : "median ms", CML_TT_RIGHT, 90);
        add_col(L, spec(K_CV, 0, 0), "measured", NULL, "cv %", CML_TT_RIGHT, 45);
        /* A latency record's figure is its time per dependent load
         * (cml_rep_latency), not the bytes its few pointers moved. */
        if (bandwidth)
            add_col(L, spec(K_GBS, 0, 0), "measured", NULL, "GB/s", CML_TT_RIGHT, 95);
        if (latency) {
            add_col(L, spec(K_CYCLES, 0, 0), "measured", NULL, "cycles/load", CML_TT_RIGHT, 95);
            add_col(L, spec(K_NS, 0, 0), "measured", NULL, "ns/load", CML_TT_RIGHT, 95);
        }
        /* A cache-resident record shows where its bytes live in the "of"
         * column, and no share of the DRAM peak. */
        if (peak || resident)
            add_col(L, spec(K_PEAK, 0, 0), "measured", NULL, "peak %", CML_TT_RIGHT, 85);
        if ((peak && ref) || resident) /* which class's reference (core/peak_class.h) */
            add_col(L, spec(K_PEAK_REF, 0, 0), "measured", NULL, "of", CML_TT_LEFT, 80);
        add_col(L, spec(K_VERIFY, 0, 0), "measured", NULL, "verify", CML_TT_RIGHT, 92);
    }

    /* The model's prediction, per class that has traffic here. */
    for (int c = 0; c < (int)CML_CLASS_COUNT; c++) {
        int traffic = 0;
        for (size_t i = 0; i < n && !traffic; i++)
            traffic = is_ok(recs[i]) && cml_rep_class_has_traffic(recs[i], c);
        if (traffic)
            add_class_cols(L, recs, n, c);
    }

    /* Extra numbers, one column per distinct name. */
    for (size_t i = 0; i < n; i++) {
        unsigned ne = recs[i]->nextra;
        if (ne > sizeof recs[i]->extra / sizeof recs[i]->extra[0])
            ne = sizeof recs[i]->extra / sizeof recs[i]->extra[0];
        if (!is_ok(recs[i]))
            continue;
        for (unsigned e = 0; e < ne; e++) {
            const char *name = recs[i]->extra[e].name;
            if (latency && (strcmp(name, "cycles_per_load") == 0 ||
                            strcmp(name, "ns_per_load") == 0))
                continue; /* in the measured group already */
            size_t k = 0;
            while (k < L->nextra && strcmp(L->extra_name[k], name) != 0)
                k++;
            if (k < L->nextra || L->nextra == MAX_EXTRA_COLS)
                continue;
            snprintf(L->extra_name[k], sizeof L->extra_name[k], "%s", name);
            L->nextra++;
            char head[CML_TT_LABEL + 16]; /* cml_tt_add truncates to CML_TT_LABEL */
            const char *unit = recs[i]->extra[e].unit;
            snprintf(head, sizeof head, "%s%s%s", name, unit[0] ? " " : "", unit);
            add_col(L, spec(K_EXTRA, (int)k, 0), NULL, NULL, head, CML_TT_RIGHT, 55);
        }
    }
}

/* A fixed-decimals figure, or "-" when it is not a finite number. */
static void set_fixed(cml_tt_row row, int c, int decimals, double v)
{
    if (isfinite(v))
        cml_tt_set(row, c, "%.*f", decimals, v);
    else
        cml_tt_set(row, c, "-");
}

/* A free-form number: integers in full, others with 6 significant digits. */
static void set_number(cml_tt_row row, int c, double v)
{
    if (!isfinite(v))
        cml_tt_set(row, c, "-");
    else if (v == floor(v) && fabs(v) < 1e15)
        cml_tt_set(row, c, "%.0f", v);
    else
        cml_tt_set(row, c, "%.6g", v);
}

static void fill_model_cell(cml_tt_row row, int c, const col_spec *s, const cml_record *rec)
{
    if (!rec->has_model || !rec->model[s->rules].cls[s->idx].instructions) {
        cml_tt_set(row, c, "-");
        return;
    }
    const cml_traffic *t = &rec->model[s->rules].cls[s->idx];
    double v = NAN;
    int ok = 1;
    switch (s->kind) {
    case K_REQUESTS: cml_tt_set(row, c, "%" PRIu64, cml_rep_requests(t)); return;
    case K_SECTORS: cml_tt_set(row, c, "%" PRIu64, t->sectors); return;
    case K_CONFLICTS: cml_tt_set(row, c, "%" PRIu64, t->bank_conflicts); return;
    case K_SECT_PER_REQ: ok = cml_rep_sectors_per_request(t, &v); break;
    case K_TRANS_PER_REQ: ok = cml_rep_transactions_per_request(t, &v); break;
    case K_WF_PER_REQ: ok = cml_rep_wavefronts_per_request(t, &v); break;
    case K_SER_PER_REQ: ok = cml_rep_serialized_per_request(t, &v); break;
    case K_EFF:
        ok = cml_rep_efficiency(t, &v);
        set_fixed(row, c, 1, ok ? 100.0 * v : NAN);
        return;
    default: break;
    }
    set_fixed(row, c, 2, ok ? v : NAN);
}

/*
 * Fill a row for rec (only its identity cells when span is NULL). Waived and failed records keep their identity cells
 * and put "waived: note" / "FAILED: note" where the figures would be:
 * returns the column the span starts at (CML_TT_NO_SPAN if none).
 */
static size_t fill_row(const layout *L, const cml_record *rec, cml_tt_row row, char *span,
                       size_t span_len)
{
    cml_tt_clear(row, L->tt.ncol);
    for (size_t c = 0; c < L->tt.ncol; c++) {
        const col_spec *s = &L->spec[c];
        int ci = (int)c;
        if (c >= L->nid && (!is_ok(rec) || !span))
            break;
        switch (s->kind) {
        case K_PARAM: {
            const cml_record_param *p = &rec->params[s->idx];
            if (p->label[0])
                cml_tt_set(row, ci, "%s", p->label);
            else
                cml_tt_set(row, ci, "%" PRId64, p->value);
            break;
        }
        case K_VARIANT: cml_tt_set(row, ci, "%s", rec->variant); break;
        case K_MEDIAN:
            if (rec->measured)
                set_fixed(row, ci, L->time_us ? 2 : 3,
                          rec->timing.median_ms * (L->time_us ? 1000.0 : 1.0));
            else
                cml_tt_set(row, ci, "-");
            break;
        case K_CV: set_fixed(row, ci, 2, rec->measured ? 100.0 * rec->timing.cv : NAN); break;
        case K_GBS:
            set_fixed(row, ci, 1, rec->measured && !cml_rep_latency(rec, NULL, NULL)
                                      ? rec->bandwidth_gbs
                                      : NAN);
            break;
        case K_CYCLES:
        case K_NS: {
            double cyc = NAN, ns = NAN;
            if (rec->measured)
                cml_rep_latency(rec, &cyc, &ns);
            set_fixed(row, ci, 1, s->kind == K_CYCLES ? cyc : ns);
            break;
        }
        case K_PEAK:
            set_fixed(row, ci, 1,
                      rec->measured && rec->peak_fraction >= 0 ? 100.0 * rec->peak_fraction
                                                               : NAN);
            break;
        case K_PEAK_REF:
            cml_tt_set(row, ci, "%s",
                       rec->measured && (rec->peak_fraction >= 0 ||
                                         cml_peak_class_resident(rec->peak_class))
                           ? cml_peak_class_label(rec->peak_class)
                           : "-");
            break;
        case K_VERIFY:
            cml_tt_set(row, ci, "%s",
                       rec->verify == CML_VERIFY_PASSED   ? "ok"
                       : rec->verify == CML_VERIFY_FAILED ? "FAILED"
                                                          : "-");
            break;
        case K_EXTRA: {
            const char *name = L->extra_name[s->idx];
            unsigned ne = rec->nextra;
            if (ne > sizeof rec->extra / sizeof rec->extra[0])
                ne = sizeof rec->extra / sizeof rec->extra[0];
            cml_tt_set(row, ci, "-");
            for (unsigned e = 0; e < ne; e++)
                if (strcmp(rec->extra[e].name, name) == 0) {
                    set_number(row, ci, rec->extra[e].value);
                    break;
                }
            break;
        }
        default: fill_model_cell(row, ci, s, rec); break;
        }
    }
    if (is_ok(rec) || !span)
        return CML_TT_NO_SPAN;
    const char *what = rec->state == CML_REC_WAIVED ? "waived" : "FAILED";
    if (rec->note[0])
        snprintf(span, span_len, "%s: %s", what, rec->note);
    else
        snprintf(span, span_len, "%s", what);
    return L->nid;
}

/* Note under a table that had to leave columns out. */
static void print_hidden(FILE *out, const cml_tt *t)
{
    char list[1024];
    cml_tt_hidden_list(t, list, sizeof list);
    if (!list[0])
        return;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "(left out to fit %d columns: ", TABLE_MAX_WIDTH);
    char text[1200];
    snprintf(text, sizeof text, "%s; --json and --csv carry every figure)", list);
    cml_tt_wrap(out, prefix, text, TEXT_WIDTH, 1);
}

/* What the abbreviations of the model columns shown mean. */
static void print_legend(FILE *out, const layout *L)
{
    static const struct { col_kind kind; const char *text; } terms[] = {
        { K_REQUESTS, "requests, sectors: totals over the kernel" },
        { K_SECT_PER_REQ, "sect/req: 32-byte sectors per request" },
        { K_EFF, "eff: bytes requested / bytes moved" },
        { K_TRANS_PER_REQ, "trans/req: memory transactions per request (Fermi/Kepler rules)" },
        { K_WF_PER_REQ, "wf/req: shared-memory wavefronts per request" },
        { K_CONFLICTS, "conflicts: bank conflicts (extra wavefronts)" },
        { K_SER_PER_REQ, "ser/req: constant accesses after serialization per request" },
    };
    char text[1024];
    size_t n = 0;
    int both = 0;
    text[0] = '\0';
    for (size_t k = 0; k < sizeof terms / sizeof terms[0]; k++) {
        int used = 0;
        for (size_t c = 0; c < L->tt.ncol; c++)
            if (!L->tt.col[c].hidden && L->spec[c].kind == terms[k].kind)
                used = 1;
        if (!used)
            continue;
        int w = snprintf(text + n, sizeof text - n, "%s%s", n ? "; " : "", terms[k].text);
        if (w > 0 && (size_t)w < sizeof text - n)
            n += (size_t)w;
    }
    for (size_t c = 0; c < L->tt.ncol; c++)
        if (!L->tt.col[c].hidden && strcmp(L->tt.col[c].group[1], "both") == 0)
            both = 1;
    if (both) {
        int w = snprintf(text + n, sizeof text - n, "%s%s", n ? "; " : "",
                         "both: the modern and Fermi rules predict the same");
        if (w > 0 && (size_t)w < sizeof text - n)
            n += (size_t)w;
    }
    if (n)
        cml_tt_wrap(out, "Model (predicted): ", text, TEXT_WIDTH, 2);
}

/* "In every row: block=512, n=16777216" for the parameters left out of the
 * columns because they never change. */
static void print_fixed(FILE *out, const layout *L, const cml_record *rec)
{
    char text[CML_RECORD_MAX_PARAMS * 64];
    size_t n = 0;
    text[0] = '\0';
    for (unsigned f = 0; f < L->nfixed; f++) {
        const cml_record_param *p = &rec->params[L->fixed[f]];
        int w;
        if (p->label[0])
            w = snprintf(text + n, sizeof text - n, "%s%s=%s", f ? ", " : "", p->name, p->label);
        else
            w = snprintf(text + n, sizeof text - n, "%s%s=%" PRId64, f ? ", " : "", p->name,
                         p->value);
        if (w < 0 || (size_t)w >= sizeof text - n)
            break;
        n += (size_t)w;
    }
    if (n)
        cml_tt_wrap(out, "In every row: ", text, TEXT_WIDTH, 2);
}

/* The main table of one experiment, in as many panels as its width needs. */
static void print_main_table(FILE *out, const cml_record *const *recs, size_t n)
{
    layout L;
    cml_tt_row row;
    char span[320];
    build_layout(&L, recs, n);
    print_fixed(out, &L, recs[0]);
    for (size_t i = 0; i < n; i++) {
        size_t from = fill_row(&L, recs[i], row, span, sizeof span);
        cml_tt_measure(&L.tt, row, from);
    }
    size_t panels = cml_tt_fit(&L.tt, TABLE_MAX_WIDTH);
    for (size_t p = 0; p < panels; p++) {
        if (p)
            fputc('\n', out);
        cml_tt_print_header(&L.tt, out, p);
        for (size_t i = 0; i < n; i++) {
            size_t from = fill_row(&L, recs[i], row, span, sizeof span);
            /* The note in full once; later panels just name the state. */
            if (p && from != CML_TT_NO_SPAN)
                snprintf(span, sizeof span, "%s",
                         recs[i]->state == CML_REC_WAIVED ? "(waived)" : "(FAILED)");
            cml_tt_print_row(&L.tt, out, row, from, span, TABLE_MAX_WIDTH, p);
        }
    }
    print_hidden(out, &L.tt);
    print_legend(out, &L);
}

/* A table of one text column beside the identity columns: per record for
 * which has() holds, the line line() writes, under a wrapped title. */
typedef int (*row_has_fn)(const cml_record *rec);
typedef void (*row_line_fn)(const cml_record *rec, char *buf, size_t len);

static void print_line_table(FILE *out, const cml_record *const *recs, size_t n,
                             const char *head, const char *title, row_has_fn has,
                             row_line_fn line)
{
    layout L;
    cml_tt_row row;
    size_t any = 0;
    for (size_t i = 0; i < n; i++)
        any += is_ok(recs[i]) && has(recs[i]);
    if (!any)
        return;

    /* Identity columns as in the main table, then the line as text. */
    build_layout(&L, recs, n);
    L.tt.ncol = L.nid;
    size_t c_text = (size_t)cml_tt_add(&L.tt, NULL, NULL, head, CML_TT_LEFT, CML_TT_KEEP);
    for (size_t i = 0; i < n; i++) {
        if (!is_ok(recs[i]) || !has(recs[i]))
            continue;
        cml_tt_clear(row, L.tt.ncol);
        fill_row(&L, recs[i], row, NULL, 0);
        cml_tt_measure(&L.tt, row, c_text);
    }
    cml_tt_fit(&L.tt, TABLE_MAX_WIDTH);
    fputc('\n', out);
    cml_tt_wrap(out, "", title, 100, 0);
    fputc('\n', out);
    cml_tt_print_header(&L.tt, out, 0);
    char text[2048];
    for (size_t i = 0; i < n; i++) {
        const cml_record *rec = recs[i];
        if (!is_ok(rec) || !has(rec))
            continue;
        cml_tt_clear(row, L.tt.ncol);
        fill_row(&L, rec, row, NULL, 0);
        line(rec, text, sizeof text);
        cml_tt_print_row(&L.tt, out, row, c_text, text, TABLE_MAX_WIDTH, 0);
    }
}

static int has_counters(const cml_record *rec)
{
    return rec->ncounters != 0;
}

/* Hardware counters beside the model's prediction: one entry per record,
 * its counters on one wrapped line (cml_rep_counters_line). */
static void print_counter_table(FILE *out, const cml_record *const *recs, size_t n)
{
    print_line_table(out, recs, n, "counters",
                     "Counters (measured on the GPU; \"= N of N agree\" when every counter the "
                     "model predicts equals it, [model X] where one does not; after |, counters "
                     "the model has no figure for):",
                     has_counters, cml_rep_counters_line);
}

/* The model's cache levels where some figure is an interval: every figure,
 * its [lo, hi] after it where it is not a point (cml_rep_levels_line). */
static void print_levels_table(FILE *out, const cml_record *const *recs, size_t n)
{
    print_line_table(out, recs, n, "cache levels",
                     "Cache levels (the model's figures, with [lo, hi] where a mechanism it "
                     "cannot know exactly widens one: docs/model.md 16.8):",
                     cml_rep_levels_wide, cml_rep_levels_line);
}

static int has_finding(const void *items, size_t i)
{
    return ((const cml_record *)items)[i].finding[0] != '\0';
}

static uint64_t finding_hash(const void *items, size_t i)
{
    const char *f = ((const cml_record *)items)[i].finding;
    return cml_fnv(CML_FNV_START, f, strlen(f));
}

static int finding_eq(const void *items, size_t i, size_t j)
{
    const cml_record *recs = items;
    return strcmp(recs[i].finding, recs[j].finding) == 0;
}

/* The findings: each distinct sentence once, in order of first appearance,
 * named by the variant when only one record has it (none when out of memory). */
static void print_findings(FILE *out, const cml_record *recs, size_t n)
{
    size_t *first = malloc(n * sizeof *first), *shared = calloc(n, sizeof *shared);
    size_t distinct = 0;
    if (first && shared && cml_group_first(recs, n, finding_hash, finding_eq, has_finding, first) == 0)
        for (size_t i = 0; i < n && cml_report_table_count(); i++)
            if (first[i] != CML_NO_INDEX) {
                shared[first[i]]++;
                distinct += first[i] == i;
            }
    if (distinct > 0) {
        fputc('\n', out);
        if (distinct > 1)
            fputs("Findings:\n", out);
        for (size_t i = 0; i < n; i++) {
            if (first[i] != i)
                continue; /* none, or printed already */
            char prefix[128];
            if (distinct == 1)
                snprintf(prefix, sizeof prefix, "Finding: ");
            else if (shared[i] == 1 && recs[i].variant[0])
                snprintf(prefix, sizeof prefix, "  - %s: ", recs[i].variant);
            else
                snprintf(prefix, sizeof prefix, "  - ");
            char text[sizeof recs[i].finding + 4];
            if (cml_rep_finding_text(recs[i].finding, text, sizeof text - 4))
                strcat(text, "...");
            cml_tt_wrap(out, prefix, text, TEXT_WIDTH, distinct == 1 ? 2 : 4);
        }
    }
    free(first);
    free(shared);
}

/* Records that carry only named numbers (device facts, link arithmetic)
 * read better as a list than as a table with one column per name. */
static int is_fact(const cml_record *rec)
{
    return !rec->has_model && !rec->ncounters && rec->nextra > 0 && rec->state == CML_REC_OK;
}

static void print_fact(FILE *out, const cml_record *rec)
{
    fprintf(out, "%s\n", rec->variant);
    for (unsigned k = 0; k < rec->nextra; k++)
        fprintf(out, "  %-34s %14.6g %s\n", rec->extra[k].name, rec->extra[k].value,
                rec->extra[k].unit);
    if (rec->measured) {
        /* a results file may hold any number: "-" for what is not one */
        char bw[40] = "-", cv[40] = "-";
        const int latency = cml_rep_latency(rec, NULL, NULL); /* its extras say it above */
        if (isfinite(rec->bandwidth_gbs))
            snprintf(bw, sizeof bw, "%.1f", rec->bandwidth_gbs);
        if (isfinite(100.0 * rec->timing.cv))
            snprintf(cv, sizeof cv, "%.2f%%", 100.0 * rec->timing.cv);
        if (!latency)
            fprintf(out, "  %-34s %14s GB/s (median of %u, cv %s)\n", "measured bandwidth", bw,
                    rec->timing.reps, cv);
    }
}

static void print_experiment(FILE *out, const cml_record *recs, size_t n)
{
    char title[96];
    snprintf(title, sizeof title, "%s (%zu record%s)", recs[0].experiment, n, n == 1 ? "" : "s");
    fputc('\n', out);
    cml_tt_wrap(out, "", title, SIZE_MAX, 0); /* shows control characters as spaces */
    for (size_t i = cml_tt_display_len(title); i > 0; i--)
        fputc('=', out);
    fputc('\n', out);
    /* Fact records as lists, the others in the table: pointers to them,
     * not copies (a record is ~7 KB; 100,000 of them would be 700 MB). */
    const cml_record **rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) {
        fputs("(out of memory: table not shown)\n", out);
        return;
    }
    size_t nrows = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_fact(&recs[i]))
            print_fact(out, &recs[i]);
        else
            rows[nrows++] = &recs[i];
    }
    if (nrows) {
        if (nrows < n)
            fputc('\n', out);
        /* An experiment of levels opens with them (level_table.h). */
        cml_rep_print_level_table(out, rows, nrows, TABLE_MAX_WIDTH);
        print_main_table(out, rows, nrows);
        print_levels_table(out, rows, nrows);
        print_counter_table(out, rows, nrows);
    }
    free(rows);
    print_findings(out, recs, n);
}

/* Header block, then each run of consecutive records of one experiment as a
 * table; CML_EIO if the stream failed. */
cml_status cml_report_table(FILE *out, const cml_results *r)
{
    cml_report_banner(out, r, TEXT_WIDTH);
    if (r->count == 0)
        fputs("\nNo records.\n", out);
    /* The one-screen summary first; the tables follow. */
    cml_summary sum;
    if (cml_summary_build(r, &sum) != CML_OK) {
        fputs("\n(out of memory: no summary)\n", out);
    } else if (sum.n) {
        fputc('\n', out);
        cml_summary_print(out, &sum, TABLE_MAX_WIDTH, SUMMARY_MAX_LINES);
    }
    cml_summary_free(&sum);
    size_t i = 0;
    while (i < r->count) {
        size_t j = i + 1;
        while (j < r->count && strcmp(r->items[j].experiment, r->items[i].experiment) == 0 &&
               cml_report_table_count())
            j++;
        print_experiment(out, &r->items[i], j - i);
        i = j;
    }
    if (fflush(out) != 0 || ferror(out))
        return CML_EIO;
    return CML_OK;
}
