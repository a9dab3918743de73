/*
 * The HTML report (html.h): the page. The charts of each experiment come
 * from the chart planner (chart_plan.c: the experiment's registry row ->
 * charts and sentences), its records' tables from html_tables.c; this file
 * writes the document around them: head and style, the header with the
 * device facts, the run's diagnostics, the list of experiments and one
 * section per experiment.
 */
#include "report/html.h"

#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart_plan.h"
#include "report/html_finding.h"
#include "report/html_tables.h"
#include "report/level_table.h"
#include "report/report_util.h"
#include "report/summary.h"
#include "report/svg_chart.h"

static void esc(FILE *out, const char *s) { cml_xml_escape(out, s); }

/* The records of one experiment, in the order of the results. */
typedef struct group {
    const cml_results *run;    /* the results the records are of (their descriptions) */
    const char *key;
    const cml_record **recs;
    size_t n;
} group;

static const char *const css =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#1a1a1a;background:#fafafa;margin:0;line-height:1.45}\n"
    "main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}\n"
    "h1{font-size:1.7em;margin:.4em 0 .2em}h2{font-size:1.3em;margin:1.8em 0 .4em;"
    "border-bottom:2px solid #ddd;padding-bottom:.2em}\n"
    "code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em;"
    "background:#f0f0f0;padding:0 .25em;border-radius:3px}\n"
    ".meta{color:#555}.banner{background:#fff4d6;border:1px solid #e6c35c;padding:.6em .9em;"
    "border-radius:4px}\n.peak{font-size:1.1em}\n"
    "table{border-collapse:collapse;font-size:.86em;background:#fff;margin:.4em 0 1em}\n"
    "caption{text-align:left;font-weight:600;padding:.3em 0}\n"
    "th,td{border:1px solid #d8d8d8;padding:.25em .5em;vertical-align:top}\n"
    "thead th{background:#f1f3f5}tbody tr:nth-child(even){background:#f8f9fa}\n"
    "th[scope=row]{text-align:left;font-weight:normal;white-space:nowrap}\n"
    "table.records td{white-space:nowrap}table.records td.waived,table.records td.failed"
    "{white-space:normal;min-width:16em}\n"
    "td.num,table.records td,table.counters td,table.chart-data td{text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table td.txt,table td.waived,table td.failed{text-align:left}\n"
    ".na{color:#999}.failed,.differ{color:#b00020;font-weight:600}.waived{color:#8a6d00}"
    ".agree{color:#1b7f3b}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:12px 20px}\n"
    "figure{margin:0;background:#fff;border:1px solid #e3e3e3;border-radius:4px;padding:8px;"
    "min-width:0;max-width:100%;box-sizing:border-box}\n"
    "details.data{margin:.4em 0 1em}details.data>summary{cursor:pointer;font-weight:600}\n"
    "table.counters thead th{font-family:ui-monospace,'DejaVu Sans Mono',monospace;"
    "font-weight:normal;font-size:.9em;overflow-wrap:anywhere;min-width:7em}\n"
    "figcaption{font-weight:600;margin:0 0 4px 4px}\n"
    "svg.chart{max-width:100%;height:auto;display:block}\n"
    ".computed{font-size:1.02em}.findings li{margin:.2em 0}.fixed{color:#555;font-size:.9em}\n"
    "nav ol{columns:2;padding-left:0;list-style:none}\n"
    "table.summary{width:100%}table.summary th,table.summary td.by{white-space:nowrap}"
    "table.summary td.finding{width:45%}\n"
    "td.finding details summary,details.chart-data summary{cursor:pointer}"
    "details.chart-data summary{color:#555;font-size:.85em;margin:2px 4px}\n"
    "table.chart-data{font-size:.8em}.cut{color:#999}\n"
    "footer{color:#777;font-size:.85em;margin-top:3em}\n";

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
    cml_fmt_tick(buf, len, (double)b, 0, CML_FMT_BYTES);
}

static void fact_row(FILE *out, const char *name, const char *value)
{
    fputs("<tr><th scope=\"row\">", out);
    esc(out, name);
    fputs("</th><td>", out);
    esc(out, value);
    fputs("</td></tr>\n", out);
}

static void write_header(FILE *out, const cml_results *r, size_t ngroups)
{
    fputs("<header>\n<h1>cumemlab report</h1>\n<p class=\"meta\">cumemlab ", out);
    esc(out, r->tool_version[0] ? r->tool_version : "(version unknown)");
    fprintf(out, " &middot; %zu record%s from %zu experiment%s", r->count, r->count == 1 ? "" : "s",
            ngroups, ngroups == 1 ? "" : "s");
    if (r->command_line[0]) {
        fputs(" &middot; command: <code>", out);
        esc(out, r->command_line);
        fputs("</code>", out);
    }
    fputs("</p>\n", out);
    cml_html_run_peak(out, r);
    fputs("</header>\n", out);
}

void cml_html_run_peak(FILE *out, const cml_results *r)
{
    if (r->model_only)
        fputs("<p class=\"banner\" role=\"note\"><strong>No GPU was used:</strong> every figure "
              "in this report is the model's prediction, not a measurement.</p>\n",
              out);
    if (r->has_device) {
        const cml_device_facts *d = &r->device;
        int theo = isfinite(d->theoretical_gbs) && d->theoretical_gbs > 0;
        int peak = isfinite(r->peak_gbs) && r->peak_gbs > 0;
        fprintf(out, "<p class=\"peak\">%s peak bandwidth: <strong>",
                peak && r->peak_given ? "Reference (given with --peak)" : "Measured");
        if (peak) {
            fprintf(out, "%.1f GB/s</strong>", r->peak_gbs);
            double pct;
            if (theo && cml_rep_percent_of(r->peak_gbs, d->theoretical_gbs, &pct))
                fprintf(out, " (%.1f%% of the theoretical %.1f GB/s)", pct, d->theoretical_gbs);
        } else {
            fputs("not measured</strong>", out);
        }
        int classes = 0;
        for (int c = 0; c < CML_PEAK_CLASS_COUNT && peak && !r->peak_given; c++)
            classes += r->peaks.gbs[c] > 0;
        if (!classes) {
            fputs("; every &ldquo;% of peak&rdquo; below is relative to it.</p>\n", out);
        } else {
            /* One reference per class of traffic (core/peak_class.h). */
            fputs("; each &ldquo;% of peak&rdquo; below is of its record's class "
                  "(&ldquo;peak of&rdquo;):", out);
            for (int c = 0, k = 0; c < CML_PEAK_CLASS_COUNT; c++)
                if (r->peaks.gbs[c] > 0)
                    fprintf(out, "%s %s %.1f", k++ ? "," : "", cml_peak_class_name(c),
                            r->peaks.gbs[c]);
            fputs(" GB/s.</p>\n", out);
        }
    } else if (!r->model_only) {
        fputs("<p class=\"meta\">No device facts in these results.</p>\n", out);
    }
}

void cml_html_device_table(FILE *out, const cml_results *r)
{
    if (r->has_device) {
        const cml_device_facts *d = &r->device;
        char v[320], a[48], b[48];
        int theo = isfinite(d->theoretical_gbs) && d->theoretical_gbs > 0;
        fputs("<div class=\"scroll\"><table class=\"facts\">\n<caption>The GPU</caption>\n"
              "<tbody>\n",
              out);
        snprintf(v, sizeof v, "%d: %s", d->index, d->name);
        fact_row(out, "device", v);
        snprintf(v, sizeof v, "%d.%d (sm_%d%d)", d->cc_major, d->cc_minor, d->cc_major,
                 d->cc_minor);
        fact_row(out, "compute capability", v);
        snprintf(v, sizeof v, "%d SMs, warps of %d threads, up to %d threads per block, %d per SM",
                 d->sm_count, d->warp_size, d->max_threads_per_block, d->max_threads_per_sm);
        fact_row(out, "multiprocessors", v);
        snprintf(v, sizeof v, "%d per block, %d per SM (32-bit)", d->regs_per_block,
                 d->regs_per_sm);
        fact_row(out, "registers", v);
        fmt_bytes(a, sizeof a, d->shared_per_block);
        fmt_bytes(b, sizeof b, d->shared_per_sm);
        snprintf(v, sizeof v, "%s per block, %s per SM", a, b);
        fact_row(out, "shared memory", v);
        fmt_bytes(a, sizeof a, d->const_bytes);
        fact_row(out, "constant memory", a);
        fmt_bytes(a, sizeof a, d->l2_bytes);
        fact_row(out, "L2 cache", a);
        fmt_bytes(a, sizeof a, d->global_bytes);
        snprintf(v, sizeof v, "%s, bus %d bits, memory clock %.0f MHz%s", a, d->bus_width_bits,
                 d->mem_clock_khz / 1000.0, d->ecc_enabled ? ", ECC on" : "");
        fact_row(out, "global memory", v);
        if (theo)
            snprintf(v, sizeof v, "%.1f GB/s", d->theoretical_gbs);
        else
            snprintf(v, sizeof v, "unknown");
        fact_row(out, "theoretical bandwidth", v);
        snprintf(v, sizeof v, "driver %d.%d, runtime %d.%d", d->driver_version / 1000,
                 (d->driver_version % 1000) / 10, d->runtime_version / 1000,
                 (d->runtime_version % 1000) / 10);
        fact_row(out, "CUDA", v);
        fputs("</tbody>\n</table></div>\n", out);
    }
}

void cml_html_anchor(char *buf, size_t len, size_t i, const char *key)
{
    int w = snprintf(buf, len, "exp-%zu-", i + 1);
    size_t n = w > 0 ? (size_t)w : 0;
    for (const char *p = key; *p && n + 1 < len; p++) {
        char ch = *p;
        int okc = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        buf[n++] = okc ? ch : '-';
    }
    buf[n] = '\0';
}

/* The summary's link to the i-th experiment's section. */
static void section_anchor(char *buf, size_t len, size_t i, const char *key, const void *ctx)
{
    (void)ctx;
    cml_html_anchor(buf, len, i, key);
}

/* The run's diagnostics (no GPU, counters unavailable and why, an
 * experiment that failed before it made a record...): one row each, the
 * experiment linked to its section when it has one. Nothing when there are
 * none, so a clean run's page does not change. Levels reuse the colours of
 * the records' states: error as FAILED, warning as waived. */
static void write_diagnostics(FILE *out, const cml_results *r, const group *gs, size_t ng)
{
    if (!r->diags || r->ndiags == 0)
        return;
    fputs("<section class=\"diagnostics\" id=\"diagnostics\" aria-labelledby=\"diagnostics-h\">\n"
          "<h2 id=\"diagnostics-h\">Diagnostics</h2>\n<div class=\"scroll\"><table "
          "class=\"diagnostics\">\n"
          "<thead><tr><th scope=\"col\">level</th><th scope=\"col\">experiment</th>"
          "<th scope=\"col\">message</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->ndiags; i++) {
        const cml_diagnostic *d = &r->diags[i];
        fputs(d->level == CML_DIAG_INFO      ? "<tr><td>"
              : d->level == CML_DIAG_WARNING ? "<tr><td class=\"waived\">"
                                             : "<tr><td class=\"failed\">",
              out);
        esc(out, cml_diag_level_name(d->level));
        fputs("</td><td>", out);
        size_t k = 0;
        while (d->experiment[0] && k < ng && strcmp(gs[k].key, d->experiment) != 0)
            k++;
        if (!d->experiment[0]) {
            fputs("run", out);
        } else if (k < ng) {
            char id[96];
            cml_html_anchor(id, sizeof id, k, gs[k].key);
            fprintf(out, "<a href=\"#%s\">", id);
            esc(out, d->experiment);
            fputs("</a>", out);
        } else {
            esc(out, d->experiment);
        }
        fputs("</td><td>", out);
        esc(out, d->message);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n</section>\n", out);
}

void cml_html_experiment_title(char *buf, size_t len, const cml_results *r, const char *key)
{
    cml_exp_desc d;
    cml_chart_plan_describe(r, key, &d);
    if (d.title && d.number > 0)
        snprintf(buf, len, "%d. %s (%s)", d.number, d.title, key);
    else if (d.title)
        snprintf(buf, len, "%s (%s)", d.title, key);
    else
        snprintf(buf, len, "%s", key);
}

static void group_title(const group *g, char *buf, size_t len)
{
    cml_html_experiment_title(buf, len, g->run, g->key);
}

static void write_findings(FILE *out, const group *g)
{
    /* Each distinct sentence once; named by its variant when only one record has it. */
    size_t shown = 0, total = 0;
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        int dup = 0;
        for (size_t k = 0; k < i && !dup; k++)
            dup = !strcmp(g->recs[k]->finding, r->finding);
        total += r->finding[0] && !dup;
    }
    if (!total)
        return;
    fputs("<ul class=\"findings\">\n", out);
    for (size_t i = 0; i < g->n; i++) {
        const cml_record *r = g->recs[i];
        if (!r->finding[0])
            continue;
        int dup = 0;
        size_t same = 0;
        for (size_t k = 0; k < i && !dup; k++)
            dup = !strcmp(g->recs[k]->finding, r->finding);
        if (dup)
            continue;
        for (size_t k = 0; k < g->n; k++)
            same += !strcmp(g->recs[k]->finding, r->finding);
        if (shown == 4 && total > 5)
            fprintf(out, "</ul>\n<details><summary>%zu more findings</summary>\n"
                         "<ul class=\"findings\">\n",
                    total - shown);
        fputs("<li>", out);
        if (same == 1 && r->variant[0] && g->n > 1) {
            fputs("<strong>", out);
            esc(out, r->variant);
            fputs(":</strong> ", out);
        }
        cml_html_finding(out, r->finding);
        fputs("</li>\n", out);
        shown++;
    }
    fputs(shown > 4 && total > 5 ? "</ul>\n</details>\n" : "</ul>\n", out);
}

static cml_status write_group(FILE *out, const group *g, size_t index)
{
    char id[96], title[160];
    cml_html_anchor(id, sizeof id, index, g->key);
    group_title(g, title, sizeof title);
    fprintf(out,
            "<section class=\"experiment\" id=\"%s\" aria-labelledby=\"%s-h\">\n"
            "<h2 id=\"%s-h\">",
            id, id, id);
    esc(out, title);
    fputs("</h2>\n", out);

    cml_chart_plan *cs = malloc(sizeof *cs);
    if (!cs)
        return CML_ENOMEM;
    cml_chart_plan_results(cs, g->run, g->key, g->recs, g->n);

    size_t waived = 0, failed = 0, measured = 0;
    for (size_t i = 0; i < g->n; i++) {
        waived += g->recs[i]->state == CML_REC_WAIVED;
        failed += g->recs[i]->state == CML_REC_FAILED;
        measured += g->recs[i]->measured;
    }
    fputs("<p class=\"computed\">", out);
    fprintf(out, "%zu record%s", g->n, g->n == 1 ? "" : "s");
    if (measured)
        fprintf(out, ", %zu measured on the GPU", measured);
    else
        fputs(", the model's predictions only", out);
    if (waived)
        fprintf(out, ", %zu waived", waived);
    if (failed)
        fprintf(out, ", <span class=\"failed\">%zu FAILED</span>", failed);
    fputs(".", out);
    for (size_t i = 0; i < cs->nsentences; i++) {
        fputc(' ', out);
        esc(out, cs->sentences[i]);
    }
    fputs("</p>\n", out);
    cml_rep_html_level_table(out, g->recs, g->n); /* an experiment of levels opens with them */
    write_findings(out, g);

    cml_status st = CML_OK;
    if (cs->ncharts) {
        fputs("<div class=\"charts\">\n", out);
        for (size_t i = 0; i < cs->ncharts; i++) {
            fputs("<figure>\n<figcaption>", out);
            esc(out, cs->charts[i].title);
            fputs("</figcaption>\n", out);
            if (cml_chart_svg(out, &cs->charts[i]) != CML_OK)
                st = CML_EIO;
            cml_chart_data_html(out, &cs->charts[i]);
            fputs("</figure>\n", out);
        }
        fputs("</div>\n", out);
    }
    if (cs->oom)
        st = CML_ENOMEM;
    cml_chart_plan_free(cs);
    free(cs);

    /* The data tables, folded: the page opens on the charts and findings,
     * every figure one click away. */
    fprintf(out, "<details class=\"data\"><summary>Every record's figures: %zu row%s</summary>\n",
            g->n, g->n == 1 ? "" : "s");
    cml_html_records_tables(out, g->recs, g->n, title);
    fputs("</details>\n", out);
    cml_html_counters_table(out, g->recs, g->n);
    fputs("</section>\n", out);
    return st;
}

/* Group the records by experiment, in order of first appearance. */
static group *make_groups(const cml_results *r, size_t *ngroups, const cml_record ***storage)
{
    group *gs = malloc((r->count ? r->count : 1) * sizeof *gs);
    const cml_record **all = malloc((r->count ? r->count : 1) * sizeof *all);
    size_t ng = 0, used = 0;
    if (!gs || !all) {
        free(gs);
        free(all);
        return NULL;
    }
    for (size_t i = 0; i < r->count; i++) {
        int seen = 0;
        for (size_t k = 0; k < ng && !seen; k++)
            seen = !strcmp(gs[k].key, r->items[i].experiment);
        if (seen)
            continue;
        group *g = &gs[ng++];
        g->run = r;
        g->key = r->items[i].experiment;
        g->recs = all + used;
        g->n = 0;
        for (size_t k = i; k < r->count; k++)
            if (!strcmp(r->items[k].experiment, g->key))
                all[used + g->n++] = &r->items[k];
        used += g->n;
    }
    *ngroups = ng;
    *storage = all;
    return gs;
}

void cml_html_begin(FILE *out, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"cumemlab\">\n<title>",
          out);
    esc(out, title);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", css);
}

void cml_html_end_note(FILE *out, const char *tool_version, const char *note_html)
{
    fputs("<footer id=\"cml-end\">Written by cumemlab ", out);
    esc(out, tool_version);
    fprintf(out, ". %s Efficiency is bytes used / bytes moved. &ldquo;modern&rdquo; applies "
                 "the rules of Volta to Hopper (32-byte sectors); &ldquo;Fermi&rdquo; those "
                 "of the Fermi/Kepler textbooks.</footer>\n</main>\n</body>\n</html>\n",
            note_html);
}

void cml_html_end(FILE *out, const char *tool_version)
{
    cml_html_end_note(out, tool_version,
                      "Bandwidth counts the bytes each kernel must move (every input read "
                      "once, every output written once) over the median time, in GB/s "
                      "(10<sup>9</sup> bytes per second).");
}

cml_status cml_report_html(FILE *out, const cml_results *r)
{
    size_t ng = 0;
    const cml_record **storage = NULL;
    group *gs = make_groups(r, &ng, &storage);
    if (!gs)
        return CML_ENOMEM;
    char page_title[320];
    snprintf(page_title, sizeof page_title, "cumemlab report%s%s%s", r->has_device ? ": " : "",
             r->has_device ? r->device.name : "",
             !r->has_device && r->model_only ? " (model only)" : "");
    cml_html_begin(out, page_title);
    write_header(out, r, ng);
    write_diagnostics(out, r, gs, ng);
    cml_summary sum;
    if (cml_summary_build(r, &sum) != CML_OK) {
        free((void *)storage);
        free(gs);
        return CML_ENOMEM;
    }
    if (sum.n) {
        fputs("<section class=\"summary\" id=\"summary\" aria-labelledby=\"summary-h\">\n"
              "<h2 id=\"summary-h\">Summary</h2>\n",
              out);
        fputs("<div class=\"scroll\">", out);
        cml_summary_html(out, &sum,
                         "The best and the worst variant of each experiment by its main "
                         "figure (ratio: how many times better the best is)",
                         section_anchor, NULL);
        fputs("</div>\n</section>\n", out);
    }
    cml_summary_free(&sum);
    cml_html_device_table(out, r);
    if (ng) {
        fputs("<nav aria-label=\"experiments\">\n<h2>Experiments</h2>\n<ol>\n", out);
        for (size_t i = 0; i < ng; i++) {
            char id[96], title[160];
            cml_html_anchor(id, sizeof id, i, gs[i].key);
            group_title(&gs[i], title, sizeof title);
            fprintf(out, "<li><a href=\"#%s\">", id);
            esc(out, title);
            fprintf(out, "</a> &middot; %zu record%s</li>\n", gs[i].n, gs[i].n == 1 ? "" : "s");
        }
        fputs("</ol>\n</nav>\n", out);
    } else {
        fputs("<p>No records.</p>\n", out);
    }
    cml_status st = CML_OK;
    for (size_t i = 0; i < ng; i++) {
        cml_status s = write_group(out, &gs[i], i);
        if (s != CML_OK && st == CML_OK)
            st = s;
    }
    cml_html_end(out, r->tool_version);
    free((void *)storage);
    free(gs);
    if (st == CML_OK && (fflush(out) != 0 || ferror(out)))
        st = CML_EIO;
    return st;
}
