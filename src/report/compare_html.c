/*
 * Two runs compared (compare.h), as one self-contained HTML page: the runs,
 * a comparison per experiment and each run's summary first; then per
 * experiment both runs drawn on the same charts (each chart of the
 * experiment planned for A's records and for B's, chart_plan.h, then
 * merged: A's series solid, B's dashed with open markers or lighter bars,
 * in the colour of A's series of the same name, the legend naming the run),
 * each chart's numbers one click away, the records side by side, and the
 * counters and model figures that differ.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart_plan.h"
#include "report/compare.h"
#include "report/html.h"
#include "report/report_util.h"
#include "report/summary.h"
#include "report/svg_chart.h"

static void esc(FILE *out, const char *s) { cml_xml_escape(out, s); }

static const char *const letter[2] = {"A", "B"};

static void ratio_td(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "<td class=\"num\">%.3fx</td>", v);
    else
        fputs("<td class=\"num na\">-</td>", out);
}

static void num_td(FILE *out, double v, const char *fmt)
{
    if (!isfinite(v)) {
        fputs("<td class=\"num na\">-</td>", out);
        return;
    }
    fputs("<td class=\"num\">", out);
    fprintf(out, fmt, v);
    fputs("</td>", out);
}

/* The section anchor of an experiment of the comparison, by key. */
static void exp_anchor(char *buf, size_t len, size_t i, const char *key, const void *ctx)
{
    const cml_comparison *c = ctx;
    (void)i;
    for (size_t k = 0; k < c->nexps; k++)
        if (strcmp(c->exps[k].key, key) == 0) {
            cml_html_anchor(buf, len, k, key);
            return;
        }
    cml_html_anchor(buf, len, 0, key);
}

/* ------------------------------------------------------------------ */
/* Both runs on one chart                                             */
/* ------------------------------------------------------------------ */

/* Copy series s of src into m as run `side`'s, named "label: name". */
static int copy_series(cml_chart *m, const cml_chart *src, size_t s, int side, const char *label,
                       int look)
{
    /* A long label (a file's name) is cut at a word with "...", so that the
     * series' own name always stays whole after it. */
    const char *series = src->series[s].name;
    char name[sizeof m->series[0].name], cut[sizeof m->series[0].name];
    const size_t keep = strlen(series) + 2; /* ": " and the series' name */
    const size_t room = keep < sizeof name - 1 ? sizeof name - 1 - keep : 0;
    cml_text_cut_words(cut, room + 1, label, room);
    if (snprintf(name, sizeof name, "%s: %s", cut, series) < 0)
        return -1;
    cml_chart_series *d = cml_chart_add_series(m, name);
    if (!d)
        return 0;
    snprintf(d->group, sizeof d->group, "%s", letter[side]);
    d->look = look;
    d->second = side;
    for (size_t k = 0; k < src->series[s].n; k++) {
        double x = src->series[s].x[k], y = src->series[s].y[k];
        if (src->kind == CML_CHART_BAR) {
            if (!(x >= 0 && x < (double)src->ncategories))
                continue;
            long cat = cml_chart_category(m, src->categories[(size_t)x]);
            if (cat < 0)
                return -1;
            x = (double)cat;
        }
        if (cml_chart_add_point(d, x, y) != CML_OK)
            return -1;
    }
    return 1;
}

/* m := ca and cb (either may be NULL) on one chart. Each run keeps its
 * first series when both have more than fit together. Returns 1 when some
 * were left out, -1 when out of memory. */
static int merge_chart(cml_chart *m, const cml_chart *ca, const cml_chart *cb,
                       const cml_comparison *c)
{
    const cml_chart *base = ca ? ca : cb;
    cml_chart_init(m, base->kind, base->title, base->x.label, base->y.label);
    m->x = base->x;
    m->y = base->y;
    m->diagonal = base->diagonal;
    m->width = base->width;
    m->height = base->height;
    size_t na = ca ? ca->nseries : 0, nb = cb ? cb->nseries : 0;
    size_t ka = na, kb = nb, half = CML_CHART_MAX_SERIES / 2;
    if (na + nb > CML_CHART_MAX_SERIES) {
        ka = na < half ? na : (nb < half ? CML_CHART_MAX_SERIES - nb : half);
        kb = CML_CHART_MAX_SERIES - ka < nb ? CML_CHART_MAX_SERIES - ka : nb;
    }
    /* B's categories after A's: both runs' bars stand in A's order. */
    for (size_t s = 0; s < ka; s++)
        if (copy_series(m, ca, s, 0, c->label[0], (int)s + 1) < 0)
            return -1;
    for (size_t s = 0; s < kb; s++) {
        /* The colour of A's series of the same name, else one of its own. */
        int look = (int)(ka + s) + 1;
        for (size_t q = 0; q < ka; q++)
            if (strcmp(ca->series[q].name, cb->series[s].name) == 0)
                look = (int)q + 1;
        if (copy_series(m, cb, s, 1, c->label[1], look) < 0)
            return -1;
    }
    return ka < na || kb < nb;
}

static void write_chart(FILE *out, const cml_chart *m, int dropped, cml_status *st)
{
    fputs("<figure>\n<figcaption>", out);
    esc(out, m->title);
    if (dropped)
        fprintf(out, " <span class=\"meta\">(the first %d series of each run)</span>",
                CML_CHART_MAX_SERIES / 2);
    fputs("</figcaption>\n", out);
    if (cml_chart_svg(out, m) != CML_OK)
        *st = CML_EIO;
    cml_chart_data_html(out, m);
    fputs("</figure>\n", out);
}

/* The experiment's charts, each run's planned from its own records, drawn
 * together: charts of one title merged, a chart only one run has alone. */
static cml_status write_charts(FILE *out, const cml_comparison *c, const cml_cmp_experiment *e)
{
    const cml_record **recs[2];
    size_t n[2] = {0, 0};
    recs[0] = malloc((e->n ? e->n : 1) * sizeof *recs[0]);
    recs[1] = malloc((e->n ? e->n : 1) * sizeof *recs[1]);
    cml_chart_plan *plan[2] = {calloc(1, sizeof *plan[0]), calloc(1, sizeof *plan[1])};
    if (!recs[0] || !recs[1] || !plan[0] || !plan[1]) {
        free(recs[0]), free(recs[1]), free(plan[0]), free(plan[1]);
        return CML_ENOMEM;
    }
    for (size_t i = e->first; i < e->first + e->n; i++) {
        if (c->pairs[i].a)
            recs[0][n[0]++] = c->pairs[i].a;
        if (c->pairs[i].b)
            recs[1][n[1]++] = c->pairs[i].b;
    }
    for (int k = 0; k < 2; k++)
        cml_chart_plan_results(plan[k], c->run[k], e->key, recs[k], n[k]);
    cml_status st = plan[0]->oom || plan[1]->oom ? CML_ENOMEM : CML_OK;
    if (plan[0]->ncharts || plan[1]->ncharts)
        fputs("<div class=\"charts\">\n", out);
    /* A's charts, each with B's of the same title; then B's others. */
    int paired[CML_PLAN_MAX_CHARTS] = {0};
    for (size_t i = 0; i < plan[0]->ncharts + plan[1]->ncharts; i++) {
        const cml_chart *ca = NULL, *cb = NULL;
        if (i < plan[0]->ncharts) {
            ca = &plan[0]->charts[i];
            for (size_t j = 0; j < plan[1]->ncharts && !cb; j++)
                if (!paired[j] && plan[1]->charts[j].kind == ca->kind &&
                    strcmp(plan[1]->charts[j].title, ca->title) == 0) {
                    paired[j] = 1;
                    cb = &plan[1]->charts[j];
                }
        } else {
            size_t j = i - plan[0]->ncharts;
            if (paired[j])
                continue;
            cb = &plan[1]->charts[j];
        }
        cml_chart m;
        int d = merge_chart(&m, ca, cb, c);
        if (d < 0)
            st = CML_ENOMEM;
        else
            write_chart(out, &m, d, &st);
        cml_chart_free(&m);
    }
    if (plan[0]->ncharts || plan[1]->ncharts)
        fputs("</div>\n", out);
    for (int k = 0; k < 2; k++) {
        cml_chart_plan_free(plan[k]);
        free(plan[k]);
        free(recs[k]);
    }
    return st;
}

/* ------------------------------------------------------------------ */
/* Tables                                                             */
/* ------------------------------------------------------------------ */

static void runs_table(FILE *out, const cml_comparison *c)
{
    fputs("<div class=\"scroll\"><table class=\"runs\">\n<caption>The two runs</caption>\n"
          "<thead><tr>"
          "<th scope=\"col\">run</th><th scope=\"col\">label</th><th scope=\"col\">file</th>"
          "<th scope=\"col\">device</th><th scope=\"col\">records</th>"
          "<th scope=\"col\">peak GB/s</th><th scope=\"col\">cumemlab</th>"
          "<th scope=\"col\">command</th></tr></thead>\n<tbody>\n",
          out);
    for (int k = 0; k < 2; k++) {
        const cml_results *r = c->run[k];
        fprintf(out, "<tr><th scope=\"row\">%s</th><td>", letter[k]);
        esc(out, c->label[k]);
        fputs("</td><td>", out);
        esc(out, c->file[k]);
        fputs("</td><td>", out);
        esc(out, r->has_device ? r->device.name : r->model_only ? "none: the model alone" : "-");
        fprintf(out, "</td><td class=\"num\">%zu</td>", r->count);
        num_td(out, r->peak_gbs > 0 ? r->peak_gbs : NAN, "%.1f");
        fputs("<td>", out);
        esc(out, r->tool_version);
        fputs("</td><td><code>", out);
        esc(out, r->command_line);
        fputs("</code></td></tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n", out);
}

/* A pair's variant, with what sets it apart (only in one run). */
static void variant_th(FILE *out, const cml_cmp_pair *p)
{
    fputs("<th scope=\"row\">", out);
    esc(out, cml_cmp_variant(p));
    fputs("</th>", out);
}

static void experiments_table(FILE *out, const cml_comparison *c)
{
    fputs("<div class=\"scroll\"><table class=\"compare\">\n<caption>Per experiment: B against "
          "A (B/A: the geometric mean over the records measured in both; counters, model: "
          "records whose hardware counters or model figures differ)</caption>\n<thead><tr>"
          "<th scope=\"col\">experiment</th><th scope=\"col\">in both</th>"
          "<th scope=\"col\">only in A</th><th scope=\"col\">only in B</th>"
          "<th scope=\"col\">GB/s B/A</th><th scope=\"col\">lowest B/A</th>"
          "<th scope=\"col\">highest B/A</th><th scope=\"col\">time B/A</th>"
          "<th scope=\"col\">counters</th><th scope=\"col\">model</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < c->nexps; i++) {
        const cml_cmp_experiment *e = &c->exps[i];
        char id[96];
        cml_html_anchor(id, sizeof id, i, e->key);
        fprintf(out, "<tr><th scope=\"row\"><a href=\"#%s\">", id);
        esc(out, e->key);
        fprintf(out, "</a></th><td class=\"num\">%zu</td><td class=\"num\">%zu</td>"
                     "<td class=\"num\">%zu</td>",
                e->both, e->only_a, e->only_b);
        ratio_td(out, e->bw_mean);
        for (int hi = 0; hi < 2; hi++) {
            const cml_cmp_pair *p = hi ? e->bw_max_pair : e->bw_min_pair;
            if (!p) {
                fputs("<td class=\"na\">-</td>", out);
                continue;
            }
            fprintf(out, "<td title=\"");
            esc(out, cml_cmp_variant(p));
            fprintf(out, "\"><span class=\"num\">%.3fx</span> ", hi ? e->bw_max : e->bw_min);
            esc(out, hi ? e->bw_max_name : e->bw_min_name);
            fputs("</td>", out);
        }
        ratio_td(out, e->time_mean);
        fprintf(out, "<td class=\"num%s\">%zu</td><td class=\"num%s\">%zu</td></tr>\n",
                e->counters_differ ? " differ" : "", e->counters_differ,
                e->model_differ ? " differ" : "", e->model_differ);
    }
    fputs("</tbody>\n</table></div>\n", out);
}

/* Every record of the experiment, A beside B. */
static void records_table(FILE *out, const cml_comparison *c, const cml_cmp_experiment *e,
                          const char *title)
{
    double max_ms = 0;
    for (size_t i = e->first; i < e->first + e->n; i++) {
        const cml_cmp_pair *p = &c->pairs[i];
        max_ms = fmax(max_ms, isfinite(p->ms_a) ? p->ms_a : 0);
        max_ms = fmax(max_ms, isfinite(p->ms_b) ? p->ms_b : 0);
    }
    int us = max_ms < 1.0;
    fputs("<div class=\"scroll\"><table class=\"records\">\n<caption>", out);
    esc(out, title);
    fputs(": every record, A beside B</caption>\n<thead><tr><td></td>"
          "<th scope=\"colgroup\" colspan=\"2\">state</th>"
          "<th scope=\"colgroup\" colspan=\"3\">bandwidth (GB/s)</th>",
          out);
    fprintf(out, "<th scope=\"colgroup\" colspan=\"3\">median (%s)</th>", us ? "us" : "ms");
    fputs("<th scope=\"colgroup\" colspan=\"2\">differ</th></tr>\n<tr>"
          "<th scope=\"col\">variant</th><th scope=\"col\">A</th><th scope=\"col\">B</th>"
          "<th scope=\"col\">A</th><th scope=\"col\">B</th><th scope=\"col\">B/A</th>"
          "<th scope=\"col\">A</th><th scope=\"col\">B</th><th scope=\"col\">B/A</th>"
          "<th scope=\"col\">counters</th><th scope=\"col\">model</th></tr>\n</thead>\n<tbody>\n",
          out);
    for (size_t i = e->first; i < e->first + e->n; i++) {
        const cml_cmp_pair *p = &c->pairs[i];
        fputs("<tr>", out);
        variant_th(out, p);
        for (int k = 0; k < 2; k++) {
            const cml_record *r = k ? p->b : p->a;
            if (!r)
                fprintf(out, "<td class=\"na\">only in %s</td>", letter[1 - k]);
            else if (r->state == CML_REC_OK)
                fputs("<td>ok</td>", out);
            else
                fprintf(out, "<td class=\"%s\">%s</td>",
                        r->state == CML_REC_WAIVED ? "waived" : "failed",
                        r->state == CML_REC_WAIVED ? "waived" : "FAILED");
        }
        num_td(out, p->bw_a, "%.1f");
        num_td(out, p->bw_b, "%.1f");
        ratio_td(out, p->bw_ratio);
        num_td(out, p->ms_a * (us ? 1e3 : 1), us ? "%.2f" : "%.3f");
        num_td(out, p->ms_b * (us ? 1e3 : 1), us ? "%.2f" : "%.3f");
        ratio_td(out, p->time_ratio);
        if (p->a && p->b)
            fprintf(out, "<td class=\"num%s\">%zu</td><td%s>%s</td></tr>\n",
                    p->counters_differ ? " differ" : "", p->counters_differ,
                    p->model_differs ? " class=\"differ\"" : "", p->model_differs ? "differs" : "same");
        else
            fputs("<td class=\"na\">-</td><td class=\"na\">-</td></tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n", out);
}

static void value_td(FILE *out, double v)
{
    char buf[48];
    if (!isfinite(v)) {
        fputs("<td class=\"num na\">-</td>", out);
        return;
    }
    cml_rep_fmt_double(buf, sizeof buf, v);
    fprintf(out, "<td class=\"num\">%s</td>", buf);
}

/* The counters that differ and the model's figures that differ. */
static void differences(FILE *out, const cml_comparison *c, const cml_cmp_experiment *e)
{
    if (e->counters_differ) {
        fputs("<div class=\"scroll\"><table class=\"counters\">\n<caption>Hardware counters that "
              "differ (measured)</caption>\n<thead><tr><th scope=\"col\">variant</th>"
              "<th scope=\"col\">counter</th><th scope=\"col\">A</th><th scope=\"col\">B</th>"
              "<th scope=\"col\">B/A</th></tr></thead>\n<tbody>\n",
              out);
        cml_cmp_counter d[2 * CML_RECORD_MAX_COUNTERS];
        for (size_t i = e->first; i < e->first + e->n; i++) {
            const cml_cmp_pair *p = &c->pairs[i];
            size_t n = cml_cmp_counter_diffs(p, d, sizeof d / sizeof d[0]);
            for (size_t k = 0; k < n && k < sizeof d / sizeof d[0]; k++) {
                fputs("<tr>", out);
                variant_th(out, p);
                fputs("<td><code>", out);
                esc(out, d[k].name);
                fputs("</code></td>", out);
                value_td(out, d[k].a);
                value_td(out, d[k].b);
                ratio_td(out, isfinite(d[k].a) && d[k].a != 0 ? d[k].b / d[k].a : NAN);
                fputs("</tr>\n", out);
            }
        }
        fputs("</tbody>\n</table></div>\n", out);
    }
    if (e->model_differ) {
        fputs("<div class=\"scroll\"><table class=\"model\">\n<caption>The model's figures that "
              "differ</caption>\n<thead><tr><th scope=\"col\">variant</th>"
              "<th scope=\"col\">rules</th><th scope=\"col\">class</th><th scope=\"col\">figure</th>"
              "<th scope=\"col\">A</th><th scope=\"col\">B</th></tr></thead>\n<tbody>\n",
              out);
        enum { MAXD = 2 * CML_CLASS_COUNT * 13 };
        cml_cmp_model_diff d[MAXD];
        for (size_t i = e->first; i < e->first + e->n; i++) {
            const cml_cmp_pair *p = &c->pairs[i];
            if (!p->model_differs)
                continue;
            if (p->a->has_model != p->b->has_model) {
                fputs("<tr>", out);
                variant_th(out, p);
                fprintf(out, "<td colspan=\"5\">only %s has a model prediction</td></tr>\n",
                        p->a->has_model ? "A" : "B");
                continue;
            }
            size_t n = cml_cmp_model_diffs(p, d, MAXD);
            for (size_t k = 0; k < n && k < MAXD; k++) {
                fputs("<tr>", out);
                variant_th(out, p);
                fprintf(out, "<td>%s</td><td>%s</td><td>%s</td><td class=\"num\">%llu</td>"
                             "<td class=\"num\">%llu</td></tr>\n",
                        cml_rep_rules_name(d[k].rules), cml_rep_class_name(d[k].cls), d[k].field,
                        (unsigned long long)d[k].a, (unsigned long long)d[k].b);
            }
        }
        fputs("</tbody>\n</table></div>\n", out);
    }
}

/* "Only in A: v1, v2." */
static void only_lists(FILE *out, const cml_comparison *c, const cml_cmp_experiment *e)
{
    for (int side = 0; side < 2; side++) {
        size_t count = side ? e->only_b : e->only_a, shown = 0;
        if (!count)
            continue;
        fprintf(out, "<p class=\"only\"><strong>Only in %s (", letter[side]);
        esc(out, c->label[side]);
        fprintf(out, "):</strong> ");
        for (size_t i = e->first; i < e->first + e->n; i++) {
            const cml_cmp_pair *p = &c->pairs[i];
            if (side ? p->a != NULL : p->b != NULL)
                continue;
            if (shown++)
                fputs(", ", out);
            esc(out, cml_cmp_variant(p));
        }
        fputs(".</p>\n", out);
    }
}

static cml_status write_experiment(FILE *out, const cml_comparison *c, size_t index)
{
    const cml_cmp_experiment *e = &c->exps[index];
    char id[96], title[160];
    cml_html_anchor(id, sizeof id, index, e->key);
    /* Titled as run A describes it, else as B does (an experiment only B
     * has, or A written before files described their experiments). */
    cml_exp_desc d;
    const cml_results *by = c->run[0];
    if (cml_chart_plan_describe(c->run[0], e->key, &d) != CML_DESC_RESULTS &&
        cml_chart_plan_describe(c->run[1], e->key, &d) == CML_DESC_RESULTS)
        by = c->run[1];
    cml_html_experiment_title(title, sizeof title, by, e->key);
    fprintf(out, "<section class=\"experiment\" id=\"%s\" aria-labelledby=\"%s-h\">\n<h2 id=\"%s-h\">",
            id, id, id);
    esc(out, title);
    fprintf(out, "</h2>\n<p class=\"computed\">%zu record%s in both runs, %zu only in A, %zu only "
                 "in B.",
            e->both, e->both == 1 ? "" : "s", e->only_a, e->only_b);
    if (e->bw_n)
        fprintf(out, " Bandwidth B/A over %zu record%s: %.3fx (geometric mean), from %.3fx to "
                     "%.3fx.",
                e->bw_n, e->bw_n == 1 ? "" : "s", e->bw_mean, e->bw_min, e->bw_max);
    if (e->counters_differ || e->model_differ)
        fprintf(out, " Differing: the counters of %zu record%s, the model's figures of %zu.",
                e->counters_differ, e->counters_differ == 1 ? "" : "s", e->model_differ);
    fputs("</p>\n", out);
    only_lists(out, c, e);
    cml_status st = write_charts(out, c, e);
    records_table(out, c, e, title);
    differences(out, c, e);
    fputs("</section>\n", out);
    return st;
}

cml_status cml_compare_html(FILE *out, const void *ctx)
{
    const cml_comparison *c = ctx;
    char title[400];
    snprintf(title, sizeof title, "cumemlab: %s vs %s", c->label[0], c->label[1]);
    cml_html_begin(out, title);
    fputs("<header>\n<h1>cumemlab: two runs compared</h1>\n<p class=\"meta\">B against A: ", out);
    size_t both = 0, oa = 0, ob = 0;
    for (size_t i = 0; i < c->nexps; i++) {
        both += c->exps[i].both;
        oa += c->exps[i].only_a;
        ob += c->exps[i].only_b;
    }
    fprintf(out, "%zu record%s in both, %zu only in A, %zu only in B, from %zu experiment%s.</p>\n",
            both, both == 1 ? "" : "s", oa, ob, c->nexps, c->nexps == 1 ? "" : "s");
    runs_table(out, c);
    for (int k = 0; k < 2; k++) {
        fprintf(out, "<div class=\"run\"><p class=\"meta\"><strong>%s (", letter[k]);
        esc(out, c->label[k]);
        fputs(")</strong></p>\n", out);
        cml_html_run_peak(out, c->run[k]);
        fputs("</div>\n", out);
    }
    fputs("</header>\n", out);
    cml_status st = CML_OK;
    fputs("<section class=\"summary\" id=\"summary\" aria-labelledby=\"summary-h\">\n"
          "<h2 id=\"summary-h\">Summary</h2>\n",
          out);
    if (c->nexps)
        experiments_table(out, c);
    for (int k = 0; k < 2; k++) {
        cml_summary sum;
        if (cml_summary_build(c->run[k], &sum) != CML_OK) {
            st = CML_ENOMEM;
            continue;
        }
        char caption[320];
        snprintf(caption, sizeof caption,
                 "%s (%s): the best and the worst variant of each experiment by its main figure",
                 letter[k], c->label[k]);
        fputs("<div class=\"scroll\">", out);
        cml_summary_html(out, &sum, caption, exp_anchor, c);
        fputs("</div>\n", out);
        cml_summary_free(&sum);
    }
    fputs("</section>\n", out);
    for (int k = 0; k < 2; k++)
        if (c->run[k]->has_device) {
            fprintf(out, "<details class=\"device\"><summary>The GPU of %s (", letter[k]);
            esc(out, c->label[k]);
            fputs(")</summary>\n", out);
            cml_html_device_table(out, c->run[k]);
            fputs("</details>\n", out);
        }
    if (c->nexps) {
        fputs("<nav aria-label=\"experiments\">\n<h2>Experiments</h2>\n<ol>\n", out);
        for (size_t i = 0; i < c->nexps; i++) {
            char id[96];
            cml_html_anchor(id, sizeof id, i, c->exps[i].key);
            fprintf(out, "<li><a href=\"#%s\">", id);
            esc(out, c->exps[i].key);
            fprintf(out, "</a> &middot; %zu in both, %zu only in A, %zu only in B</li>\n",
                    c->exps[i].both, c->exps[i].only_a, c->exps[i].only_b);
        }
        fputs("</ol>\n</nav>\n", out);
    } else {
        fputs("<p>No records in either run.</p>\n", out);
    }
    for (size_t i = 0; i < c->nexps; i++) {
        cml_status s = write_experiment(out, c, i);
        if (s != CML_OK && st == CML_OK)
            st = s;
    }
    cml_html_end(out, c->run[1]->tool_version);
    if (st == CML_OK && (fflush(out) != 0 || ferror(out)))
        st = CML_EIO;
    return st;
}
