/*
 * The one-screen summary (summary.h): per experiment, the best and the
 * worst variant by its main figure, their ratio and the explaining finding;
 * written for the terminal and as an HTML table.
 */
#include "report/summary.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart_plan.h"
#include "report/html_finding.h"
#include "report/record_metrics.h"
#include "report/record_params.h"
#include "report/report_util.h"
#include "report/svg_chart.h"
#include "report/text_table.h"

int cml_summary_direction(cml_metric_id id)
{
    switch (id) {
    case CML_METRIC_BANDWIDTH:
    case CML_METRIC_EFF_MODERN:
    case CML_METRIC_EFF_FERMI:
    case CML_METRIC_OCCUPANCY: return 1;
    case CML_METRIC_TIME_US:
    case CML_METRIC_SPR_MODERN:
    case CML_METRIC_CLASS_SPR:
    case CML_METRIC_SHARED_CONFLICTS:
    case CML_METRIC_SHARED_WAVEFRONTS:
    case CML_METRIC_CONST_SERIALIZED: return -1;
    case CML_METRIC_NONE:
    case CML_METRIC_EXTRA: return 0;
    }
    return 0;
}

const char *cml_summary_metric_label(cml_metric_id id)
{
    switch (id) {
    case CML_METRIC_BANDWIDTH: return "GB/s";
    case CML_METRIC_TIME_US: return "time us";
    case CML_METRIC_EFF_MODERN: return "eff %";
    case CML_METRIC_EFF_FERMI: return "Fermi eff %";
    case CML_METRIC_OCCUPANCY: return "occup. %";
    case CML_METRIC_SPR_MODERN:
    case CML_METRIC_CLASS_SPR: return "sect/req";
    case CML_METRIC_SHARED_CONFLICTS: return "conflicts";
    case CML_METRIC_SHARED_WAVEFRONTS: return "wf/req";
    case CML_METRIC_CONST_SERIALIZED: return "ser/req";
    case CML_METRIC_NONE:
    case CML_METRIC_EXTRA: return "-";
    }
    return "-";
}

void cml_summary_fmt_value(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (a >= 10)
        snprintf(buf, len, "%.1f", v);
    else if (a >= 1 || v == 0)
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "%.3g", v);
}

const char *cml_summary_row_label(const cml_summary_row *row)
{
    if (row->metric == CML_METRIC_EXTRA && row->metric_name[0])
        return row->metric_name;
    return cml_summary_metric_label(row->metric);
}

/* The direction of a chart's figure: an extra's as its metric declares. */
static int ref_direction(const cml_metric_ref *m)
{
    if (m->id == CML_METRIC_EXTRA)
        return m->better > 0 ? 1 : m->better < 0 ? -1 : 0;
    return cml_summary_direction(m->id);
}

static int is_measured(cml_metric_id id)
{
    return id == CML_METRIC_BANDWIDTH || id == CML_METRIC_TIME_US;
}

/* ------------------------------------------------------------------ */
/* Building                                                           */
/* ------------------------------------------------------------------ */

/* The records of one experiment, in the results' order. */
typedef struct group {
    const cml_record **recs;
    size_t n;
} group;

/* Compare g's records that spec sp draws by metric m; 1 when at least two
 * carry it (row filled), else 0. sel: room for g->n pointers. */
static int try_metric(cml_summary_row *row, const group *g, const cml_chart_spec *sp,
                      const cml_metric_ref *m, uint64_t min_bytes, const cml_record **sel)
{
    int dir = ref_direction(m);
    size_t n = 0, ib = 0, iw = 0;
    double vb = NAN, vw = NAN;
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *rec = g->recs[i];
        if (!cml_chart_spec_selects(sp, rec) || rec->bytes_read + rec->bytes_written < min_bytes)
            continue;
        double v = cml_rep_metric(rec, m->id, m->arg);
        if (!isfinite(v))
            continue;
        /* Ties: the first record keeps the place. */
        if (n == 0 || (dir > 0 ? v > vb : v < vb)) {
            vb = v;
            ib = n;
        }
        if (n == 0 || (dir > 0 ? v < vw : v > vw)) {
            vw = v;
            iw = n;
        }
        sel[n++] = rec;
    }
    if (n < 2)
        return 0;
    if (vb == vw)
        iw = n - 1; /* all alike: the first and the last, and a ratio of 1 says so */
    row->metric = m->id;
    row->metric_arg = m->arg;
    /* An extra figure by its series' name, or where that only says whose
     * it is ("model", "measured"), by what the chart draws. */
    const int generic = !m->name || !strcmp(m->name, "model") || !strcmp(m->name, "measured");
    if (generic && sp->what)
        snprintf(row->metric_name, sizeof row->metric_name, "%s%s%s%s", sp->what,
                 m->name ? " (" : "", m->name ? m->name : "", m->name ? ")" : "");
    else
        snprintf(row->metric_name, sizeof row->metric_name, "%s",
                 m->name ? m->name : m->arg ? m->arg : "");
    row->higher_is_better = dir > 0;
    row->compared = n;
    row->best = sel[ib];
    row->worst = sel[iw];
    row->best_value = vb;
    row->worst_value = vw;
    double num = dir > 0 ? vb : vw, den = dir > 0 ? vw : vb;
    row->ratio = num > 0 && den > 0 ? num / den : NAN;
    /* Named by what tells the compared records apart. */
    const char *exclude[] = {"n", NULL};
    cml_rep_names vary;
    cml_rep_varying_params(sel, n, exclude, &vary);
    cml_rep_param_key(row->best, &vary, 1, row->best_name, sizeof row->best_name);
    cml_rep_param_key(row->worst, &vary, 1, row->worst_name, sizeof row->worst_name);
    if (!row->best_name[0] || !strcmp(row->best_name, row->worst_name)) {
        snprintf(row->best_name, sizeof row->best_name, "%s", row->best->variant);
        snprintf(row->worst_name, sizeof row->worst_name, "%s", row->worst->variant);
    }
    return 1;
}

/* The specs an experiment is compared by: its registry row's charts, else
 * the measured bandwidth (and time) of every variant. */
static const cml_chart_spec fallback_specs[] = {
    CML_CHART_BANDWIDTH_BY_VARIANT,
    {.shape = CML_PLOT_BARS,
     .title = "Measured time by variant",
     .m = {{"measured", CML_METRIC_TIME_US, NULL, NULL, 0}}},
};

/* Where nothing was measured: the model's own figures of every record,
 * in this order (summary.h). */
static const cml_chart_spec model_specs[] = {
    {.shape = CML_PLOT_BARS, .m = {{"model", CML_METRIC_EFF_MODERN, NULL, NULL, 0}}},
    {.shape = CML_PLOT_BARS, .m = {{"model", CML_METRIC_SPR_MODERN, NULL, NULL, 0}}},
    {.shape = CML_PLOT_BARS, .m = {{"model", CML_METRIC_SHARED_WAVEFRONTS, NULL, NULL, 0}}},
    {.shape = CML_PLOT_BARS, .m = {{"model", CML_METRIC_CONST_SERIALIZED, NULL, NULL, 0}}},
};

/* Bandwidth over fewer bytes than this is not what a variant is about (a
 * one-thread kernel that updates a variable, say): the fallback compares
 * such variants by their time. */
#define FALLBACK_MIN_BYTES ((uint64_t)1 << 20)

static void choose_metric(cml_summary_row *row, const cml_results *r, const group *g,
                          const cml_record **sel)
{
    /* The charts the results describe the experiment by (for a file of an
     * older version, the registry's: cml_chart_plan_describe). */
    cml_exp_desc d;
    cml_chart_plan_describe(r, row->experiment, &d);
    const cml_chart_spec *specs = d.charts;
    size_t nspecs = d.charts ? d.ncharts : 0;
    /* Measured figures first, then the model's, each in the charts' order. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nspecs; i++)
            for (int k = 0; k < 2; k++) {
                const cml_metric_ref *m = &specs[i].m[k];
                if (m->id == CML_METRIC_NONE || !ref_direction(m) ||
                    is_measured(m->id) != (pass == 0))
                    continue;
                if (try_metric(row, g, &specs[i], m, 0, sel))
                    return;
            }
    /* No chart to go by: bandwidth where the variants move enough bytes for
     * it to mean something, else their time. */
    for (size_t i = 0; i < CML_COUNT(fallback_specs); i++)
        if (try_metric(row, g, &fallback_specs[i], &fallback_specs[i].m[0],
                       fallback_specs[i].m[0].id == CML_METRIC_BANDWIDTH ? FALLBACK_MIN_BYTES : 0,
                       sel))
            return;
    /* Nothing measured: the model's main figure of every record. */
    for (size_t i = 0; i < CML_COUNT(model_specs); i++)
        if (try_metric(row, g, &model_specs[i], &model_specs[i].m[0], 0, sel))
            return;
}

/* The record whose finding explains the row: the worst's, else the next
 * finding after it, else the last before it. */
static const cml_record *explaining(const cml_summary_row *row, const group *g)
{
    size_t at = g->n;
    for (size_t i = 0; row->worst && i < g->n; i++)
        if (g->recs[i] == row->worst) {
            at = i;
            break;
        }
    if (at == g->n) /* nothing compared: the experiment's last finding */
        at = g->n - 1;
    for (size_t i = at; i < g->n; i++)
        if (g->recs[i]->finding[0])
            return g->recs[i];
    for (size_t i = at; i-- > 0;)
        if (g->recs[i]->finding[0])
            return g->recs[i];
    return NULL;
}

cml_status cml_summary_build(const cml_results *r, cml_summary *s)
{
    s->rows = NULL;
    s->n = 0;
    if (r->count == 0)
        return CML_OK;
    size_t *gi = malloc(r->count * sizeof *gi);
    size_t *first = malloc(r->count * sizeof *first);
    size_t *count = calloc(r->count, sizeof *count);
    const cml_record **all = malloc(r->count * sizeof *all);
    const cml_record **sel = malloc(r->count * sizeof *sel);
    cml_summary_row *rows = calloc(r->count, sizeof *rows);
    size_t ng = 0;
    if (!gi || !first || !count || !all || !sel || !rows) {
        free(gi), free(first), free(count), free(all), free(sel), free(rows);
        return CML_ENOMEM;
    }
    /* Each record's experiment, in order of first appearance (the last
     * experiment seen is tried first: records come in runs). */
    for (size_t i = 0; i < r->count; i++) {
        const char *key = r->items[i].experiment;
        size_t k = i ? gi[i - 1] : 0;
        if (!i || strcmp(r->items[first[k]].experiment, key) != 0)
            for (k = 0; k < ng && strcmp(r->items[first[k]].experiment, key) != 0; k++)
                ;
        if (k == ng)
            first[ng++] = i;
        gi[i] = k;
        count[k]++;
    }
    /* The records of group k at all[start[k]..): `first` becomes the start. */
    size_t start = 0;
    for (size_t k = 0; k < ng; k++) {
        rows[k].experiment = r->items[first[k]].experiment;
        rows[k].nrecords = count[k];
        first[k] = start;
        start += count[k];
        count[k] = 0;
    }
    for (size_t i = 0; i < r->count; i++)
        all[first[gi[i]] + count[gi[i]]++] = &r->items[i];
    for (size_t k = 0; k < ng; k++) {
        group g = {all + first[k], count[k]};
        cml_summary_row *row = &rows[k];
        row->metric = CML_METRIC_NONE;
        row->ratio = row->best_value = row->worst_value = NAN;
        choose_metric(row, r, &g, sel);
        row->explained = explaining(row, &g);
    }
    free(gi), free(first), free(count), free(all), free(sel);
    s->rows = rows;
    s->n = ng;
    return CML_OK;
}

void cml_summary_free(cml_summary *s)
{
    free(s->rows);
    s->rows = NULL;
    s->n = 0;
}

/* ------------------------------------------------------------------ */
/* The terminal                                                       */
/* ------------------------------------------------------------------ */

#define KEY_LEN sizeof(((const cml_record *)0)->experiment)
#define FINDING_LEN sizeof(((const cml_record *)0)->finding)

/* Control characters as spaces, bytes that are not UTF-8 as '?' (as the
 * tables show them). */
static void clean(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        size_t k = cml_rep_utf8_len(p);
        if (k == 0) {
            *p++ = '?';
        } else {
            if (*p < 0x20 || *p == 0x7f)
                *p = ' ';
            p += k;
        }
    }
}

/* The shown text of a row's finding ("" when none), cleaned. */
static void finding_of(const cml_summary_row *row, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!row->explained || len < 4)
        return;
    if (cml_rep_finding_text(row->explained->finding, buf, len - 3))
        strcat(buf, "...");
    clean(buf);
}

static void ratio_text(const cml_summary_row *row, char *buf, size_t len)
{
    if (row->metric != CML_METRIC_NONE && isfinite(row->ratio))
        snprintf(buf, len, "%.2fx", row->ratio);
    else
        snprintf(buf, len, "-");
}

/* "2620.0 offset=0 ca", cut to `max` characters at a word boundary. */
static void side_text(const cml_summary_row *row, int best, size_t max, char *buf, size_t len)
{
    char t[160];
    if (row->metric == CML_METRIC_NONE) {
        snprintf(buf, len, "-");
        return;
    }
    char v[48];
    cml_summary_fmt_value(v, sizeof v, best ? row->best_value : row->worst_value);
    snprintf(t, sizeof t, "%s %s", v, best ? row->best_name : row->worst_name);
    clean(t);
    cml_text_cut_words(buf, len, t, max);
}

static void pad(FILE *out, const char *s, size_t width)
{
    fputs(s, out);
    for (size_t w = cml_tt_display_len(s); w < width; w++)
        fputc(' ', out);
}

/* The prefix of p that fits `room` characters and ends a word; its length
 * in bytes (0 when the first word alone is longer). */
static size_t fitting_words(const char *p, size_t room)
{
    size_t chars = 0, cut = 0;
    for (size_t i = 0; p[i]; i++) {
        if (((unsigned char)p[i] & 0xC0) == 0x80)
            continue;
        if (p[i] == ' ' && i > 0 && p[i - 1] != ' ')
            cut = i;
        if (++chars > room)
            return cut;
    }
    return strlen(p);
}

/* text on at most max_lines lines of `width` after `indent` spaces, the
 * last cut at a word boundary with "..." when it does not fit. Returns 1
 * when cut. */
static int print_lines(FILE *out, size_t indent, const char *text, size_t width, size_t max_lines)
{
    size_t room = width > indent + 10 ? width - indent : 10;
    const char *p = text;
    for (size_t line = 0; line < max_lines; line++) {
        while (*p == ' ')
            p++;
        if (!*p)
            return 0;
        char buf[1200];
        int cut = 0;
        size_t take = fitting_words(p, room);
        if (line + 1 == max_lines || take == 0 || take == strlen(p)) {
            cut = cml_text_cut_words(buf, sizeof buf, p, room);
            take = strlen(p);
        } else {
            memcpy(buf, p, take);
            buf[take] = '\0';
        }
        fprintf(out, "%*s%s\n", (int)indent, "", buf);
        p += take;
        if (cut)
            return 1;
    }
    return 0;
}

void cml_summary_print(FILE *out, const cml_summary *s, size_t width, size_t max_lines)
{
    if (!s->n)
        return;
    /* Lines of its own for each finding when the screen has room: a title,
     * the head and its rule, a note, then each row with k lines under it. */
    size_t k = max_lines > 4 + s->n ? (max_lines - 4 - s->n) / s->n : 0;
    if (k > 3)
        k = 3;
    size_t wexp = strlen("experiment"), wby = strlen("by");
    for (size_t i = 0; i < s->n; i++) {
        char key[KEY_LEN];
        snprintf(key, sizeof key, "%s", s->rows[i].experiment);
        clean(key);
        size_t w = cml_tt_display_len(key);
        wexp = w > wexp ? w : wexp;
        w = strlen(cml_summary_row_label(&s->rows[i]));
        wby = w > wby ? w : wby;
    }
    /* best and worst share what the key, the metric, the ratio and (on the
     * row) the finding leave. */
    size_t fixed = wexp + 2 + wby + 2 + 9 + 2 + (k ? 0 : 20); /* ratio: "1234.56x" */
    size_t side_max = k ? 40 : 30;
    if (fixed + 2 * (side_max + 2) > width)
        side_max = width > fixed + 2 * 12 ? (width - fixed) / 2 - 2 : 10;
    size_t wbest = strlen("best"), wworst = strlen("worst"), wratio = strlen("ratio");
    char (*cells)[3][128] = malloc(s->n * sizeof *cells);
    if (!cells)
        return;
    for (size_t i = 0; i < s->n; i++) {
        side_text(&s->rows[i], 1, side_max, cells[i][0], sizeof cells[i][0]);
        side_text(&s->rows[i], 0, side_max, cells[i][1], sizeof cells[i][1]);
        ratio_text(&s->rows[i], cells[i][2], sizeof cells[i][2]);
        size_t w = cml_tt_display_len(cells[i][0]);
        wbest = w > wbest ? w : wbest;
        w = cml_tt_display_len(cells[i][1]);
        wworst = w > wworst ? w : wworst;
        w = strlen(cells[i][2]);
        wratio = w > wratio ? w : wratio;
    }
    size_t row_w = wexp + 2 + wby + 2 + wbest + 2 + wworst + 2 + wratio;
    fputs("Summary: the best and the worst variant of each experiment by its main figure "
          "(ratio: how many times better the best is)\n",
          out);
    pad(out, "experiment", wexp + 2);
    pad(out, "by", wby + 2);
    pad(out, "best", wbest + 2);
    pad(out, "worst", wworst + 2);
    fprintf(out, "%*s%s\n", (int)(wratio - strlen("ratio")), "", k ? "ratio" : "ratio  finding");
    const size_t ws[] = {wexp, wby, wbest, wworst, wratio};
    for (size_t c = 0; c < 5; c++) {
        for (size_t d = 0; d < ws[c]; d++)
            fputc('-', out);
        fputs(c < 4 ? "  " : k ? "\n" : "  -------\n", out);
    }
    int cut_any = 0;
    for (size_t i = 0; i < s->n; i++) {
        const cml_summary_row *row = &s->rows[i];
        char key[KEY_LEN], finding[FINDING_LEN + 4];
        snprintf(key, sizeof key, "%s", row->experiment);
        clean(key);
        finding_of(row, finding, sizeof finding);
        pad(out, key, wexp + 2);
        pad(out, cml_summary_row_label(row), wby + 2);
        pad(out, cells[i][0], wbest + 2);
        pad(out, cells[i][1], wworst + 2);
        fprintf(out, "%*s%s", (int)(wratio - strlen(cells[i][2])), "", cells[i][2]);
        if (k) {
            fputc('\n', out);
            if (finding[0])
                cut_any |= print_lines(out, 4, finding, width, k);
        } else if (finding[0] && width > row_w + 2 + 12) {
            char t[sizeof finding];
            cut_any |= cml_text_cut_words(t, sizeof t, finding, width - row_w - 2);
            fprintf(out, "  %s\n", t);
        } else {
            fputc('\n', out);
            cut_any |= finding[0] != '\0';
        }
    }
    if (cut_any)
        fputs("(findings cut to fit: each in full under its experiment below)\n", out);
    free(cells);
}

/* ------------------------------------------------------------------ */
/* HTML                                                               */
/* ------------------------------------------------------------------ */

#define HTML_FINDING_CHARS 100
#define HTML_NAME_CHARS 40

void cml_summary_html(FILE *out, const cml_summary *s, const char *caption,
                      cml_summary_anchor_fn anchor_of, const void *ctx)
{
    if (!s->n)
        return;
    fputs("<table class=\"summary\">\n<caption>", out);
    cml_xml_escape(out, caption);
    fputs("</caption>\n<thead><tr><th scope=\"col\">experiment</th><th scope=\"col\">by</th>"
          "<th scope=\"col\">best</th><th scope=\"col\">worst</th>"
          "<th scope=\"col\">ratio</th><th scope=\"col\">finding</th></tr></thead>\n"
          "<tbody>\n",
          out);
    for (size_t i = 0; i < s->n; i++) {
        const cml_summary_row *row = &s->rows[i];
        fputs("<tr><th scope=\"row\">", out);
        if (anchor_of) {
            char id[96];
            anchor_of(id, sizeof id, i, row->experiment, ctx);
            fprintf(out, "<a href=\"#%s\">", id);
        }
        cml_xml_escape(out, row->experiment);
        fputs(anchor_of ? "</a></th>" : "</th>", out);
        fputs("<td class=\"by\">", out);
        cml_xml_escape(out, cml_summary_row_label(row));
        fputs("</td>", out);
        for (int b = 1; b >= 0; b--) {
            if (row->metric == CML_METRIC_NONE) {
                fputs("<td class=\"na\">-</td>", out);
                continue;
            }
            /* A long name (an index expression, say) cut at a word, whole
             * in the cell's tooltip. */
            const char *name = b ? row->best_name : row->worst_name;
            char v[48], shown[sizeof row->best_name];
            cml_summary_fmt_value(v, sizeof v, b ? row->best_value : row->worst_value);
            if (cml_text_cut_words(shown, sizeof shown, name, HTML_NAME_CHARS)) {
                fputs("<td title=\"", out);
                cml_xml_escape(out, name);
                fputs("\">", out);
            } else {
                fputs("<td>", out);
            }
            fprintf(out, "<span class=\"num\">%s</span> ", v);
            cml_xml_escape(out, shown);
            fputs("</td>", out);
        }
        char ratio[32];
        ratio_text(row, ratio, sizeof ratio);
        fprintf(out, "<td class=\"num\">%s</td><td class=\"finding\">", ratio);
        if (row->explained) {
            const char *f = row->explained->finding;
            char start[HTML_FINDING_CHARS * 4 + 8];
            if (cml_tt_display_len(f) <= HTML_FINDING_CHARS) {
                cml_html_finding(out, f);
            } else {
                /* The start, cut at a word; the whole sentence one click away. */
                cml_text_cut_words(start, sizeof start, f, HTML_FINDING_CHARS);
                fputs("<details><summary>", out);
                cml_xml_escape(out, start);
                fputs("</summary>", out);
                cml_html_finding(out, f);
                fputs("</details>", out);
            }
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}
