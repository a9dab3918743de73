/*
 * The level table (level_table.h). A record's level is what its counters
 * say (`level_meas`, docs/experiments/hierarchy.md) where they said one,
 * else the model's (`level_pred`): the table is the card's hierarchy as
 * measured, and the model's column says where the model put the same
 * sizes, so a disagreement shows as "3 of 4" instead of a quiet number.
 * A results file is untrusted: a code that is not one of the levels', a
 * working set or a figure that is not a finite positive number, counts for
 * no row or no figure.
 */
#include "report/level_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "report/chart_range.h"
#include "report/record_metrics.h"
#include "report/record_params.h"
#include "report/svg_chart.h" /* cml_xml_escape */
#include "report/text_table.h"

static const struct {
    double code;
    const char *name;
} levels[CML_REP_MODEL_LEVELS] = {{1, "L1"},   {1.5, "L1/L2"}, {2, "L2"},
                                  {2.5, "L2/DRAM"}, {3, "DRAM"},  {4, "DRAM+TLB"}};

/* Read series: at most this many (path, mode) pairs a row. */
#define MAX_SERIES 12

/* The index in levels[] of a code, -1 for none. */
static int level_index(double code)
{
    for (int i = 0; i < CML_REP_MODEL_LEVELS; i++)
        if (levels[i].code == code)
            return i;
    return -1;
}

/* The row index of a whole level's code (1 -> 0, ..., 4 -> 3), else -1. */
static int row_of_code(double code)
{
    for (int r = 0; r < CML_REP_LEVELS; r++)
        if (code == (double)(r + 1))
            return r;
    return -1;
}

static double extra(const cml_record *rec, const char *name)
{
    return cml_record_extra(rec, name, NAN);
}

/* The row a record belongs to, -1 for none; *counted: placed by counters. */
static int row_of(const cml_record *rec, int *counted)
{
    const double meas = extra(rec, "level_meas");
    *counted = rec->measured && rec->state == CML_REC_OK && row_of_code(meas) >= 0;
    return *counted ? row_of_code(meas) : row_of_code(extra(rec, "level_pred"));
}

static int measured_ok(const cml_record *rec)
{
    return rec->measured && rec->state == CML_REC_OK;
}

static int positive(double v)
{
    return isfinite(v) && v > 0;
}

/* The median of what `take` gives for the row's records (NAN: none);
 * rows[i]: record i's row (row_of), worked out once. */
typedef double (*take_fn)(const cml_record *rec, const void *arg);

static double median_of(const cml_record *const *recs, size_t n, const int *rows, int row,
                        take_fn take, const void *arg, double *scratch)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i] != row)
            continue;
        const double v = take(recs[i], arg);
        if (positive(v))
            scratch[k++] = v;
    }
    cml_stats st;
    if (k == 0 || cml_stats_compute(scratch, k, &st) != CML_OK)
        return NAN;
    return st.median;
}

static int is_op(const cml_record *rec, const char *op)
{
    return cml_rep_param_is(rec, "op", op);
}

/* A launch of fewer blocks than the GPU has SMs measures those SMs' rate,
 * not the level's (cml_record_few_blocks): in no median. */
static double take_bandwidth(const cml_record *rec, const void *op)
{
    return measured_ok(rec) && is_op(rec, op) && !cml_record_few_blocks(rec) ? rec->bandwidth_gbs
                                                                             : NAN;
}

/* A read series: its path and L2 mode as the records spell them. */
typedef struct series {
    char path[48], mode[48]; /* as cml_rep_param_text writes them: a file's label, whole */
} series;

static void series_of(const cml_record *rec, series *s)
{
    const cml_record_param *p = cml_record_find_param(rec, "path");
    const cml_record_param *m = cml_record_find_param(rec, "l2-mode");
    char t[48] = "";
    if (p)
        cml_rep_param_text(p, t, sizeof t);
    snprintf(s->path, sizeof s->path, "%s", t);
    t[0] = '\0';
    if (m)
        cml_rep_param_text(m, t, sizeof t);
    snprintf(s->mode, sizeof s->mode, "%s", t);
}

static double take_read(const cml_record *rec, const void *arg)
{
    series s;
    series_of(rec, &s);
    const series *want = arg;
    return strcmp(s.path, want->path) == 0 && strcmp(s.mode, want->mode) == 0
               ? take_bandwidth(rec, "read")
               : NAN;
}

static double take_cycles(const cml_record *rec, const void *arg)
{
    (void)arg;
    double c = NAN;
    return measured_ok(rec) && is_op(rec, "chase") && cml_rep_latency(rec, &c, NULL) ? c : NAN;
}

static double take_ns(const cml_record *rec, const void *arg)
{
    (void)arg;
    double t = NAN;
    return measured_ok(rec) && is_op(rec, "chase") && cml_rep_latency(rec, NULL, &t) ? t : NAN;
}

/* The best read series of a row: the peers' method (every SM its own
 * slice, or a file from before the modes) before every SM reading the
 * whole set, which is another quantity (docs/experiments/hierarchy.md). */
static void best_read(const cml_record *const *recs, size_t n, const int *rows, int row,
                      double *scratch, cml_rep_level_row *out)
{
    series seen[MAX_SERIES];
    size_t ns = 0;
    for (size_t i = 0; i < n && ns < MAX_SERIES; i++) {
        if (rows[i] != row || !is_op(recs[i], "read"))
            continue;
        series s;
        series_of(recs[i], &s);
        int dup = 0;
        for (size_t k = 0; k < ns && !dup; k++)
            dup = strcmp(seen[k].path, s.path) == 0 && strcmp(seen[k].mode, s.mode) == 0;
        if (!dup)
            seen[ns++] = s;
    }
    out->read_gbs = NAN;
    out->read_by[0] = '\0';
    for (int shared = 0; shared < 2 && !positive(out->read_gbs); shared++)
        for (size_t k = 0; k < ns; k++) {
            if ((strcmp(seen[k].mode, "shared") == 0) != shared)
                continue;
            const double m = median_of(recs, n, rows, row, take_read, &seen[k], scratch);
            if (positive(m) && !(m <= out->read_gbs)) {
                out->read_gbs = m;
                snprintf(out->read_by, sizeof out->read_by, "%s%s%s", seen[k].path,
                         seen[k].path[0] && seen[k].mode[0] ? " " : "", seen[k].mode);
            }
        }
}

int cml_rep_has_levels_of_records(const cml_record *const *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(extra(recs[i], "level_pred")))
            return 1;
    return 0;
}

int cml_rep_level_rows(const cml_record *const *recs, size_t n, cml_rep_level_row *rows,
                       size_t *edge, size_t *unknown)
{
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    int *row = malloc((n ? n : 1) * sizeof *row);
    if (!scratch || !row) {
        free(scratch);
        free(row);
        return -1;
    }
    *edge = *unknown = 0;
    for (int r = 0; r < CML_REP_LEVELS; r++) {
        cml_rep_level_row *w = &rows[r];
        memset(w, 0, sizeof *w);
        w->code = r + 1;
        w->name = levels[level_index(w->code)].name;
        w->ws_lo = w->ws_hi = NAN;
    }
    for (size_t i = 0; i < n; i++) {
        int counted;
        const int r = row[i] = row_of(recs[i], &counted);
        const double pred = extra(recs[i], "level_pred");
        const int at = level_index(pred);
        if (r < 0) {
            *edge += at >= 0;
            *unknown += at < 0 && !isnan(pred);
            continue;
        }
        cml_rep_level_row *w = &rows[r];
        w->records++;
        w->by_counters += (size_t)counted;
        w->model_here += pred == w->code;
        if (at >= 0 && pred != w->code)
            w->model_elsewhere[at]++;
        w->few_blocks +=
            measured_ok(recs[i]) && !is_op(recs[i], "chase") && cml_record_few_blocks(recs[i]);
        double ws;
        if (cml_rep_param_num(recs[i], "ws", &ws) && positive(ws)) {
            w->ws_lo = !(ws >= w->ws_lo) ? ws : w->ws_lo;
            w->ws_hi = !(ws <= w->ws_hi) ? ws : w->ws_hi;
        }
    }
    for (int r = 0; r < CML_REP_LEVELS; r++) {
        cml_rep_level_row *w = &rows[r];
        best_read(recs, n, row, r, scratch, w);
        w->write_gbs = median_of(recs, n, row, r, take_bandwidth, "write", scratch);
        w->copy_gbs = median_of(recs, n, row, r, take_bandwidth, "copy", scratch);
        w->cycles = median_of(recs, n, row, r, take_cycles, NULL, scratch);
        w->ns = median_of(recs, n, row, r, take_ns, NULL, scratch);
    }
    free(scratch);
    free(row);
    return 0;
}

static void set_num(cml_tt_row row, int c, double v, int decimals)
{
    if (positive(v))
        cml_tt_set(row, c, "%.*f", decimals, v);
    else
        cml_tt_set(row, c, "-");
}

static void sizes_text(const cml_rep_level_row *w, char *buf, size_t len)
{
    if (!positive(w->ws_lo)) {
        snprintf(buf, len, "-");
        return;
    }
    char lo[32], hi[32];
    cml_fmt_tick(lo, sizeof lo, w->ws_lo, 0, CML_FMT_BYTES);
    cml_fmt_tick(hi, sizeof hi, w->ws_hi, 0, CML_FMT_BYTES);
    if (w->ws_lo == w->ws_hi)
        snprintf(buf, len, "%s", lo);
    else
        snprintf(buf, len, "%s - %s", lo, hi);
}

/* "L2, 11 of 12; else L1 1": where the model puts the row's sizes. */
static void model_text(const cml_rep_level_row *w, char *buf, size_t len)
{
    if (w->model_here == w->records) {
        snprintf(buf, len, "%s, all %zu", w->name, w->records);
        return;
    }
    int used = snprintf(buf, len, "%s, %zu of %zu; else", w->name, w->model_here, w->records);
    size_t named = 0;
    for (int l = 0; l < CML_REP_MODEL_LEVELS && used > 0 && (size_t)used < len; l++)
        if (w->model_elsewhere[l]) {
            used += snprintf(buf + used, len - (size_t)used, " %s %zu", levels[l].name,
                             w->model_elsewhere[l]);
            named += w->model_elsewhere[l];
        }
    const size_t none = w->records - w->model_here - named; /* no level code, or another */
    if (none && used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, " none %zu", none);
}

static size_t few_total(const cml_rep_level_row *rows)
{
    size_t k = 0;
    for (int r = 0; r < CML_REP_LEVELS; r++)
        k += rows[r].few_blocks;
    return k;
}

static void caption_text(const cml_rep_level_row *rows, char *buf, size_t len)
{
    size_t counted = 0, placed = 0;
    for (int r = 0; r < CML_REP_LEVELS; r++) {
        counted += rows[r].by_counters;
        placed += rows[r].records;
    }
    snprintf(buf, len,
             "Levels: a row per level, its sizes placed %s; medians over them (reads: the best "
             "path, each SM its own slice before every SM the whole set); \"model\": where the "
             "model puts the same sizes.",
             counted == placed ? "by their counters"
             : counted == 0    ? "by the model (no counters)"
                               : "by their counters, else by the model");
}

/* The rows to print: 1, 0 for records without levels (no table), -1 out
 * of memory (said on `out` in the form's words). */
static int rows_to_print(FILE *out, const char *oom, const cml_record *const *recs, size_t n,
                         cml_rep_level_row *rows, size_t *edge, size_t *unknown)
{
    if (!cml_rep_has_levels_of_records(recs, n))
        return 0;
    if (cml_rep_level_rows(recs, n, rows, edge, unknown) != 0) {
        fputs(oom, out);
        return -1;
    }
    return 1;
}

void cml_rep_print_level_table(FILE *out, const cml_record *const *recs, size_t n,
                               size_t max_width)
{
    cml_rep_level_row rows[CML_REP_LEVELS];
    size_t edge = 0, unknown = 0;
    if (rows_to_print(out, "(out of memory: level table not shown)\n", recs, n, rows, &edge,
                      &unknown) != 1)
        return;
    cml_tt t;
    cml_tt_init(&t, 0);
    enum { C_LEVEL, C_SIZES, C_READ, C_BY, C_WRITE, C_COPY, C_CYC, C_NS, C_MODEL };
    cml_tt_add(&t, "", "", "level", CML_TT_LEFT, CML_TT_KEEP);
    cml_tt_add(&t, "", "", "working sets", CML_TT_LEFT, 90);
    cml_tt_add(&t, "", "read", "GB/s", CML_TT_RIGHT, 80);
    cml_tt_add(&t, "", "read", "by", CML_TT_LEFT, 70);
    cml_tt_add(&t, "", "write", "GB/s", CML_TT_RIGHT, 75);
    cml_tt_add(&t, "", "copy", "GB/s", CML_TT_RIGHT, 60);
    cml_tt_add(&t, "", "latency", "cycles", CML_TT_RIGHT, 80);
    cml_tt_add(&t, "", "latency", "ns", CML_TT_RIGHT, 80);
    cml_tt_add(&t, "", "", "model", CML_TT_LEFT, 85);
    cml_tt_row cells[CML_REP_LEVELS];
    int shown[CML_REP_LEVELS] = {0};
    for (int r = 0; r < CML_REP_LEVELS; r++) {
        const cml_rep_level_row *w = &rows[r];
        if (!w->records)
            continue;
        shown[r] = 1;
        cml_tt_clear(cells[r], t.ncol);
        cml_tt_set(cells[r], C_LEVEL, "%s", w->name);
        char buf[CML_TT_CELL];
        sizes_text(w, buf, sizeof buf);
        cml_tt_set(cells[r], C_SIZES, "%s", buf);
        set_num(cells[r], C_READ, w->read_gbs, 0);
        cml_tt_set(cells[r], C_BY, "%s", positive(w->read_gbs) ? w->read_by : "-");
        set_num(cells[r], C_WRITE, w->write_gbs, 0);
        set_num(cells[r], C_COPY, w->copy_gbs, 0);
        set_num(cells[r], C_CYC, w->cycles, 1);
        set_num(cells[r], C_NS, w->ns, 1);
        model_text(w, buf, sizeof buf);
        cml_tt_set(cells[r], C_MODEL, "%s", buf);
        cml_tt_measure(&t, cells[r], CML_TT_NO_SPAN);
    }
    char caption[400];
    caption_text(rows, caption, sizeof caption);
    cml_tt_wrap(out, "", caption, max_width, 0);
    if (edge)
        fprintf(out, "(%zu record%s at an edge between two levels: in no row.)\n", edge,
                edge == 1 ? "" : "s");
    if (unknown)
        fprintf(out, "(%zu record%s with a level code this report does not know: in no row.)\n",
                unknown, unknown == 1 ? "" : "s");
    const size_t few = few_total(rows);
    if (few)
        fprintf(out,
                "(%zu bandwidth record%s launched fewer blocks than the GPU has SMs, a few SMs' "
                "rate and not the level's: in no median.)\n",
                few, few == 1 ? "" : "s");
    const size_t panels = cml_tt_fit(&t, max_width);
    for (size_t p = 0; p < panels; p++) {
        if (p)
            fputc('\n', out);
        cml_tt_print_header(&t, out, p);
        for (int r = 0; r < CML_REP_LEVELS; r++)
            if (shown[r])
                cml_tt_print_row(&t, out, cells[r], CML_TT_NO_SPAN, NULL, max_width, p);
    }
    fputc('\n', out);
}

static void html_num(FILE *out, double v, int decimals)
{
    if (positive(v))
        fprintf(out, "<td>%.*f</td>", decimals, v);
    else
        fputs("<td class=\"na\">-</td>", out);
}

static void html_text(FILE *out, const char *s)
{
    fputs("<td class=\"txt\">", out);
    cml_xml_escape(out, s);
    fputs("</td>", out);
}

void cml_rep_html_level_table(FILE *out, const cml_record *const *recs, size_t n)
{
    cml_rep_level_row rows[CML_REP_LEVELS];
    size_t edge = 0, unknown = 0;
    if (rows_to_print(out, "<p>(out of memory: level table not shown)</p>\n", recs, n, rows,
                      &edge, &unknown) != 1)
        return;
    char buf[400];
    caption_text(rows, buf, sizeof buf);
    fputs("<div class=\"scroll\"><table class=\"records levels\">\n<caption>", out);
    cml_xml_escape(out, buf);
    if (edge || unknown)
        fprintf(out, " In no row: %zu at an edge between two levels, %zu of a level code this "
                     "report does not know.",
                edge, unknown);
    const size_t few = few_total(rows);
    if (few)
        fprintf(out, " In no median: %zu bandwidth records launched fewer blocks than the GPU "
                     "has SMs (a few SMs' rate, not the level's).",
                few);
    fputs("</caption>\n<thead>\n<tr><td colspan=\"2\"></td>"
          "<th scope=\"colgroup\" colspan=\"2\">read</th><th scope=\"col\">write</th>"
          "<th scope=\"col\">copy</th><th scope=\"colgroup\" colspan=\"2\">latency</th>"
          "<td></td></tr>\n<tr><th scope=\"col\">level</th><th scope=\"col\">working sets</th>"
          "<th scope=\"col\">GB/s</th><th scope=\"col\">by</th><th scope=\"col\">GB/s</th>"
          "<th scope=\"col\">GB/s</th><th scope=\"col\">cycles</th><th scope=\"col\">ns</th>"
          "<th scope=\"col\">model</th></tr>\n</thead>\n<tbody>\n",
          out);
    for (int r = 0; r < CML_REP_LEVELS; r++) {
        const cml_rep_level_row *w = &rows[r];
        if (!w->records)
            continue;
        fputs("<tr><th scope=\"row\">", out);
        cml_xml_escape(out, w->name);
        fputs("</th>", out);
        sizes_text(w, buf, sizeof buf);
        html_text(out, buf);
        html_num(out, w->read_gbs, 0);
        html_text(out, positive(w->read_gbs) ? w->read_by : "-");
        html_num(out, w->write_gbs, 0);
        html_num(out, w->copy_gbs, 0);
        html_num(out, w->cycles, 1);
        html_num(out, w->ns, 1);
        model_text(w, buf, sizeof buf);
        html_text(out, buf);
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n", out);
}
