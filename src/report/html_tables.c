/*
 * The HTML report's tables (html_tables.h).
 */
#include "report/html_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/record_metrics.h"
#include "report/record_params.h"
#include "report/report_util.h"
#include "report/svg_chart.h"

typedef cml_rep_names names;

/* Records of one table: an experiment's, or those of one signature. */
typedef struct group {
    const cml_record *const *recs;
    size_t n;
} group;

static void esc(FILE *out, const char *s) { cml_xml_escape(out, s); }

typedef enum col_kind {
    COL_PARAM, COL_VARIANT, COL_STATE, COL_MEDIAN, COL_CV, COL_GBS, COL_PEAK, COL_PEAK_REF,
    COL_VERIFY,
    COL_OCC, COL_MODEL, COL_EXTRA
} col_kind;

typedef enum model_what { W_SPR, W_TPR, W_EFF, W_WF, W_CONF, W_SER } model_what;

typedef struct col {
    col_kind kind;
    int cls, rules;
    model_what what;
    char name[40];             /* parameter or extra name */
    char group[48];
    char head[64];
} col;

#define MAX_COLS 80

typedef struct table_layout {
    col cols[MAX_COLS];
    size_t n;
    int median_us;             /* every median below 1 ms: show microseconds */
} table_layout;

static col *add_col(table_layout *L, col_kind k, const char *grp, const char *head)
{
    if (L->n >= MAX_COLS)
        return NULL;
    col *c = &L->cols[L->n++];
    memset(c, 0, sizeof *c);
    c->kind = k;
    snprintf(c->group, sizeof c->group, "%s", grp);
    snprintf(c->head, sizeof c->head, "%s", head);
    return c;
}

/* 1 if the varying parameters tell every record apart. */
static int params_identify(const group *g, const names *vary)
{
    if (vary->n == 0)
        return g->n <= 1;
    for (size_t i = 0; i < g->n; i++)
        for (size_t k = i + 1; k < g->n; k++) {
            char a[256], b[256];
            cml_rep_param_key(g->recs[i], vary, 0, a, sizeof a);
            cml_rep_param_key(g->recs[k], vary, 0, b, sizeof b);
            if (strcmp(a, b) == 0)
                return 0;
        }
    return 1;
}

static double model_value(const cml_record *rec, const col *c)
{
    const cml_traffic *t = &rec->model[c->rules].cls[c->cls];
    double v;
    if (!rec->has_model || !t->instructions)
        return NAN;
    switch (c->what) {
    case W_SPR: return cml_rep_sectors_per_request(t, &v) ? v : NAN;
    case W_TPR: return cml_rep_transactions_per_request(t, &v) ? v : NAN;
    case W_EFF: return cml_rep_efficiency(t, &v) ? 100.0 * v : NAN;
    case W_WF: return cml_rep_wavefronts_per_request(t, &v) ? v : NAN;
    case W_CONF:
        return cml_rep_requests(t) ? (double)t->bank_conflicts / (double)cml_rep_requests(t) : NAN;
    case W_SER: return cml_rep_serialized_per_request(t, &v) ? v : NAN;
    }
    return NAN;
}

/* Shared or constant figures differ between the rule sets somewhere. */
static int rules_differ(const group *g, int cls, model_what what)
{
    col a, b;
    memset(&a, 0, sizeof a);
    a.cls = cls;
    a.what = what;
    b = a;
    a.rules = CML_RULES_MODERN;
    b.rules = CML_RULES_FERMI;
    for (size_t i = 0; i < g->n; i++) {
        double x = model_value(g->recs[i], &a), y = model_value(g->recs[i], &b);
        if (isfinite(x) != isfinite(y) || (isfinite(x) && x != y))
            return 1;
    }
    return 0;
}

static int class_in_group(const group *g, int cls)
{
    for (size_t i = 0; i < g->n; i++)
        if (cml_rep_class_has_traffic(g->recs[i], cls))
            return 1;
    return 0;
}

static void build_table(table_layout *L, const group *g, const names *vary)
{
    memset(L, 0, sizeof *L);
    if (params_identify(g, vary) && vary->n) {
        for (size_t j = 0; j < vary->n; j++) {
            col *c = add_col(L, COL_PARAM, "", vary->v[j]);
            if (c)
                snprintf(c->name, sizeof c->name, "%s", vary->v[j]);
        }
    } else {
        add_col(L, COL_VARIANT, "", "variant");
    }
    int any_state = 0, any_measured = 0, any_peak = 0, any_occ = 0, any_ref = 0, any_resident = 0;
    double max_median = 0;
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        any_state |= r->state != CML_REC_OK;
        if (r->measured) {
            any_measured = 1;
            if (isfinite(r->timing.median_ms) && r->timing.median_ms > max_median)
                max_median = r->timing.median_ms;
        }
        any_peak |= r->measured && r->peak_fraction >= 0;
        any_ref |= r->measured && r->peak_class != CML_PEAK_CLASS_NONE;
        any_resident |= r->measured && cml_peak_class_resident(r->peak_class);
        any_occ |= r->occupancy >= 0;
    }
    if (any_state)
        add_col(L, COL_STATE, "", "state");
    if (any_measured) {
        L->median_us = max_median < 1.0;
        add_col(L, COL_MEDIAN, "measured", L->median_us ? "median (us)" : "median (ms)");
        add_col(L, COL_CV, "measured", "cv (%)");
        add_col(L, COL_GBS, "measured", "GB/s");
        /* A cache-resident record: "L2-resident" where the class would be,
         * and no share of the DRAM peak. */
        if (any_peak || any_resident)
            add_col(L, COL_PEAK, "measured", "% of peak");
        if ((any_peak && any_ref) || any_resident) /* which class's reference (core/peak_class.h) */
            add_col(L, COL_PEAK_REF, "measured", "peak of");
        add_col(L, COL_VERIFY, "measured", "verify");
    }
    if (any_occ)
        add_col(L, COL_OCC, "launch", "occupancy (%)");
    for (int cls = 0; cls < (int)CML_CLASS_COUNT; cls++) {
        if (!class_in_group(g, cls))
            continue;
        const char *cn = cml_rep_class_name(cls);
        char grp[48];
        col *c;
        if (cls <= CML_CLASS_LOCAL_ST) {
            snprintf(grp, sizeof grp, "model %s, modern", cn);
            if ((c = add_col(L, COL_MODEL, grp, "sect/req"))) { c->cls = cls; c->what = W_SPR; }
            if ((c = add_col(L, COL_MODEL, grp, "eff (%)"))) { c->cls = cls; c->what = W_EFF; }
            snprintf(grp, sizeof grp, "model %s, Fermi", cn);
            if ((c = add_col(L, COL_MODEL, grp, "trans/req"))) {
                c->cls = cls; c->what = W_TPR; c->rules = CML_RULES_FERMI;
            }
            if ((c = add_col(L, COL_MODEL, grp, "eff (%)"))) {
                c->cls = cls; c->what = W_EFF; c->rules = CML_RULES_FERMI;
            }
        } else if (cls <= CML_CLASS_SHARED_ST) {
            int differ = rules_differ(g, cls, W_WF) || rules_differ(g, cls, W_CONF);
            for (int r = 0; r < (differ ? 2 : 1); r++) {
                snprintf(grp, sizeof grp, "model %s, %s", cn,
                         differ ? (r ? "Fermi" : "modern") : "both rule sets");
                if ((c = add_col(L, COL_MODEL, grp, "wf/req"))) {
                    c->cls = cls; c->what = W_WF; c->rules = r;
                }
                if ((c = add_col(L, COL_MODEL, grp, "conflicts/req"))) {
                    c->cls = cls; c->what = W_CONF; c->rules = r;
                }
            }
        } else {
            int differ = rules_differ(g, cls, W_SER);
            for (int r = 0; r < (differ ? 2 : 1); r++) {
                snprintf(grp, sizeof grp, "model %s, %s", cn,
                         differ ? (r ? "Fermi" : "modern") : "both rule sets");
                if ((c = add_col(L, COL_MODEL, grp, "ser/req"))) {
                    c->cls = cls; c->what = W_SER; c->rules = r;
                }
            }
        }
    }
    /* Extra numbers: the union of names, in order of appearance. */
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        for (unsigned k = 0; k < cml_rep_nextra(r); k++) {
            int seen = 0;
            for (size_t j = 0; j < L->n; j++)
                seen |= L->cols[j].kind == COL_EXTRA && !strcmp(L->cols[j].name, r->extra[k].name);
            if (seen)
                continue;
            char head[64];
            if (r->extra[k].unit[0])
                snprintf(head, sizeof head, "%.40s (%.12s)", r->extra[k].name, r->extra[k].unit);
            else
                snprintf(head, sizeof head, "%.40s", r->extra[k].name);
            col *c = add_col(L, COL_EXTRA, "more figures", head);
            if (c)
                snprintf(c->name, sizeof c->name, "%s", r->extra[k].name);
        }
    }
}

/* Numbers are the rule in these tables: the style right-aligns every cell
 * (html.c), and the few that hold text say so (class txt), which keeps
 * the suite's page 300 KB smaller than a class on every number. */
static void num_cell(FILE *out, double v, const char *fmt)
{
    if (!isfinite(v)) {
        fputs("<td class=\"na\">-</td>", out);
        return;
    }
    fputs("<td>", out);
    fprintf(out, fmt, v);
    fputs("</td>", out);
}

/* A count prints whole ("5242880"), anything else with 6 digits. */
static void count_cell(FILE *out, double v)
{
    if (isfinite(v) && v == floor(v) && fabs(v) < 1e15)
        num_cell(out, v, "%.0f");
    else
        num_cell(out, v, "%.6g");
}

static void write_cell(FILE *out, const table_layout *L, const col *c, const cml_record *r,
                       int first)
{
    char t[64];
    int ok = r->state == CML_REC_OK;
    switch (c->kind) {
    case COL_PARAM: {
        const cml_record_param *p = cml_record_find_param(r, c->name);
        if (p)
            cml_rep_param_text(p, t, sizeof t);
        else
            snprintf(t, sizeof t, "-");
        fputs(first ? "<th scope=\"row\">" : "<td class=\"txt\">", out);
        esc(out, t);
        fputs(first ? "</th>" : "</td>", out);
        return;
    }
    case COL_VARIANT:
        fputs("<th scope=\"row\">", out);
        esc(out, r->variant);
        fputs("</th>", out);
        return;
    case COL_STATE:
        if (r->state == CML_REC_OK) {
            fputs("<td class=\"txt\">ok</td>", out);
        } else {
            fputs(r->state == CML_REC_WAIVED ? "<td class=\"waived\">waived: "
                                             : "<td class=\"failed\">FAILED: ",
                  out);
            esc(out, r->note);
            fputs("</td>", out);
        }
        return;
    case COL_MEDIAN:
        num_cell(out, ok && r->measured ? r->timing.median_ms * (L->median_us ? 1e3 : 1) : NAN,
                 L->median_us ? "%.2f" : "%.3f");
        return;
    case COL_CV:
        num_cell(out, ok && r->measured ? 100.0 * r->timing.cv : NAN, "%.2f");
        return;
    case COL_GBS:
        num_cell(out, cml_rep_metric(r, CML_METRIC_BANDWIDTH, NULL), "%.1f");
        return;
    case COL_PEAK:
        num_cell(out, ok && r->measured && r->peak_fraction >= 0 ? 100.0 * r->peak_fraction : NAN,
                 "%.1f");
        return;
    case COL_PEAK_REF:
        if (ok && r->measured && r->peak_class != CML_PEAK_CLASS_NONE)
            fprintf(out, "<td class=\"txt\">%s</td>", cml_peak_class_label(r->peak_class));
        else
            fputs("<td class=\"na\">-</td>", out);
        return;
    case COL_VERIFY:
        fputs(r->verify == CML_VERIFY_PASSED   ? "<td class=\"txt\">passed</td>"
              : r->verify == CML_VERIFY_FAILED ? "<td class=\"failed\">FAILED</td>"
                                               : "<td class=\"na\">-</td>",
              out);
        return;
    case COL_OCC:
        num_cell(out, r->occupancy >= 0 ? 100.0 * r->occupancy : NAN, "%.1f");
        return;
    case COL_MODEL:
        num_cell(out, ok ? model_value(r, c) : NAN, c->what == W_EFF ? "%.1f" : "%.2f");
        return;
    case COL_EXTRA: {
        double v = NAN;
        for (unsigned k = 0; k < cml_rep_nextra(r); k++)
            if (!strcmp(r->extra[k].name, c->name))
                v = r->extra[k].value;
        count_cell(out, v);
        return;
    }
    }
}

static void write_records_table(FILE *out, const group *g, const char *caption)
{
    const char *exclude[] = {NULL};
    names vary;
    cml_rep_varying_params(g->recs, g->n, exclude, &vary);
    table_layout *L = malloc(sizeof *L);
    if (!L)
        return;
    build_table(L, g, &vary);

    /* Parameters that are the same in every row, said once. */
    if (g->n > 1 && g->recs[0]->nparams) {
        int said = 0;
        const cml_record *r0 = g->recs[0];
        for (unsigned k = 0; k < r0->nparams && k < CML_RECORD_MAX_PARAMS; k++) {
            int varies = 0;
            for (size_t j = 0; j < vary.n; j++)
                varies |= !strcmp(vary.v[j], r0->params[k].name);
            if (varies)
                continue;
            char t[48];
            cml_rep_param_text(&r0->params[k], t, sizeof t);
            fputs(said ? ", " : "<p class=\"fixed\">The same in every row: ", out);
            esc(out, r0->params[k].name);
            fputs(" = ", out);
            esc(out, t);
            said = 1;
        }
        if (said)
            fputs(".</p>\n", out);
    }
    fputs("<div class=\"scroll\"><table class=\"records\">\n<caption>", out);
    esc(out, caption);
    fputs("</caption>\n<thead>\n<tr>", out);
    for (size_t i = 0; i < L->n;) {
        size_t j = i + 1;
        while (j < L->n && !strcmp(L->cols[j].group, L->cols[i].group))
            j++;
        if (L->cols[i].group[0]) {
            fprintf(out, "<th scope=\"colgroup\" colspan=\"%zu\">", j - i);
            esc(out, L->cols[i].group);
            fputs("</th>", out);
        } else {
            fprintf(out, "<td colspan=\"%zu\"></td>", j - i);
        }
        i = j;
    }
    fputs("</tr>\n<tr>", out);
    for (size_t i = 0; i < L->n; i++) {
        fputs("<th scope=\"col\">", out);
        esc(out, L->cols[i].head);
        fputs("</th>", out);
    }
    fputs("</tr>\n</thead>\n<tbody>\n", out);
    for (size_t r = 0; r < g->n; r++) {
        fputs("<tr>", out);
        for (size_t i = 0; i < L->n; i++)
            write_cell(out, L, &L->cols[i], g->recs[r], i == 0);
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n", out);
    free(L);
}

/* The parameter names of a record, joined: records that carry the same
 * parameters share a table (a transfer sweep and a zero-copy kernel do not
 * need each other's columns). */
static void param_signature(const cml_record *rec, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < rec->nparams && k < CML_RECORD_MAX_PARAMS; k++) {
        int w = snprintf(buf + used, len - used, "%s,", rec->params[k].name);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

void cml_html_records_tables(FILE *out, const cml_record *const *recs, size_t n,
                             const char *title)
{
    const group whole_g = {recs, n};
    const group *g = &whole_g;
    const cml_record **part = malloc((g->n ? g->n : 1) * sizeof *part);
    char *done = calloc(g->n ? g->n : 1, 1);
    if (!part || !done) {
        free(part);
        free(done);
        return;
    }
    const char *exclude[] = {NULL};
    names whole;
    cml_rep_varying_params(g->recs, g->n, exclude, &whole);
    size_t nparts = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (done[i])
            continue;
        char sig[CML_RECORD_MAX_PARAMS * 25], other[CML_RECORD_MAX_PARAMS * 25];
        param_signature(g->recs[i], sig, sizeof sig);
        group sub = {part, 0};
        for (size_t k = i; k < g->n; k++) {
            if (done[k])
                continue;
            param_signature(g->recs[k], other, sizeof other);
            if (strcmp(sig, other) == 0) {
                part[sub.n++] = g->recs[k];
                done[k] = 1;
            }
        }
        nparts++;
        /* Caption: the choices that are the same in this table but vary in
         * the experiment ("mode = copy"), when the experiment has several. */
        char caption[320];
        size_t used = (size_t)snprintf(caption, sizeof caption, "%s", title);
        int tagged = 0;
        if (sub.n < g->n) {
            names inner;
            cml_rep_varying_params(sub.recs, sub.n, exclude, &inner);
            for (size_t j = 0; j < whole.n && used < sizeof caption; j++) {
                int varies = 0;
                for (size_t q = 0; q < inner.n; q++)
                    varies |= !strcmp(inner.v[q], whole.v[j]);
                const cml_record_param *p = cml_record_find_param(sub.recs[0], whole.v[j]);
                if (varies || !p || !p->label[0])
                    continue;
                int w = snprintf(caption + used, sizeof caption - used, "%s%s = %s",
                                 tagged ? ", " : ": ", p->name, p->label);
                if (w > 0)
                    used += (size_t)w;
                tagged = 1;
            }
        }
        if (!tagged && used < sizeof caption)
            snprintf(caption + used, sizeof caption - used, nparts > 1 || sub.n < g->n
                                                                ? ": more records"
                                                                : ": every record");
        write_records_table(out, &sub, caption);
    }
    free(part);
    free(done);
}
