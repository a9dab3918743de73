/*
 * The HTML report of a trace (trace_report.h, cml_tf_report_html): one
 * self-contained page in the lab's style, the document, its style and
 * footer being the results report's own (report/html.h) and its charts the
 * lab's SVG charts (report/svg_chart.h, each with its numbers one click
 * away, cml_chart_data_html). In order: the one-screen summary (each
 * launch's worst instruction, its line, the bytes it wastes and the change
 * the model predicts buys most), the launches, the instructions ranked by
 * the bytes they waste, each detailed instruction with its lanes' picture
 * (a table of the 32 lanes, each cell the sector or bank the lane's bytes
 * are in, as the text's picture numbers them, with the address one hover
 * away), its SASS, the lab's sentence and its what-if transforms, then per
 * launch a bar chart of the bytes wasted per source line (per PC where the
 * trace has no line). Every string from the trace is escaped.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/svg_chart.h"
#include "trace/trace_measured.h"
#include "trace/trace_report.h"
#include "trace/trace_report_util.h"

static void esc(FILE *out, const char *s) { cml_xml_escape(out, s); }

/* Sectors (banks) told apart by colour, as the eye follows them along the
 * warp; eight tints repeat, the cell's character names it exactly. */
static const char *const tints[8] = {"#cfe2ff", "#ffe0b3", "#d3f0d3", "#f7d4d4",
                                     "#e5d9f2", "#fff3b0", "#d0eeee", "#eadccc"};

static void site_name(FILE *out, const cml_tf_report *r, const cml_tf_site *s)
{
    char line[300];
    esc(out, cml_tfr_func_name(r->t, s->func));
    fprintf(out, " +0x%04x", s->pc);
    if (cml_tfr_source(r, s, line, sizeof line, NULL)) {
        fputs(" (", out);
        esc(out, line);
        fputc(')', out);
    }
}

static void header(FILE *out, const cml_tf_report *r)
{
    const cml_trace *t = r->t;
    fputs("<header>\n<h1>cumemlab trace</h1>\n<p class=\"meta\">", out);
    fputs("cumemlab ", out);
    esc(out, r->tool_version ? r->tool_version : "(version unknown)");
    fputs(" &middot; trace <code>", out);
    esc(out, r->path);
    fputs("</code> &middot; program <code>", out);
    esc(out, t->command[0] ? t->command : "(not recorded)");
    fputs("</code> &middot; device ", out);
    esc(out, t->device[0] ? t->device : "unknown");
    fprintf(out, " (sm_%u, %u SMs)</p>\n", t->sm, t->sms);
    fputs("<p class=\"banner\" role=\"note\">Every figure on this page is the lab's model "
          "applied to the addresses the program's warps used (docs/trace.md); the "
          "&ldquo;what if&rdquo; figures are the model's prediction for the code "
          "changed.</p>\n",
          out);
    if (!t->complete)
        fputs("<p class=\"banner\">Incomplete: the trace ends without its END chunk (the "
              "program stopped before the library closed it); every launch it holds is "
              "reported.</p>\n",
              out);
    if (t->truncated)
        fprintf(out, "<p class=\"banner\">Its last %zu bytes are a chunk cut short: left "
                     "out.</p>\n",
                t->truncated);
    fputs("</header>\n", out);
}

/* The what-if transform that saves the most bytes (else the fewest
 * requests), or NULL when none saves bytes or requests. */
static const cml_wi *best_whatif(const cml_wi_list *l)
{
    const cml_wi *best = NULL;
    for (size_t i = 0; l && i < l->n; i++) {
        const cml_wi *w = &l->item[i];
        if (cml_wi_saved(w) <= 0 && w->after.requests >= w->before.requests)
            continue;
        if (!best || cml_wi_saved(w) > cml_wi_saved(best) ||
            (cml_wi_saved(w) == cml_wi_saved(best) && w->after.requests < best->after.requests))
            best = w;
    }
    return best;
}

/* The one-screen summary: per launch, its worst instruction. */
static void summary(FILE *out, const cml_tf_report *r, const cml_tfr_ranked *all, size_t n)
{
    fputs("<section id=\"summary\" aria-labelledby=\"summary-h\">\n<h2 id=\"summary-h\">"
          "Summary</h2>\n<div class=\"scroll\"><table class=\"summary\">\n<thead><tr>"
          "<th>launch</th><th>warp instructions</th><th>bytes wasted</th><th>worst "
          "instruction</th><th>it wastes</th><th>why</th><th>the change that buys most "
          "(the model's prediction)</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t k = 0; k < r->t->nkernels; k++) {
        const cml_tf_model *m = &r->models[k];
        uint64_t waste = 0;
        for (size_t s = 0; s < m->nsites; s++)
            waste += m->sites[s].waste;
        const cml_tf_site *worst = NULL;
        for (size_t i = 0; i < n && !worst; i++)
            if (all[i].kernel == k)
                worst = all[i].site;
        fputs("<tr><th scope=\"row\">", out);
        esc(out, cml_tfr_func_name(r->t, r->t->kernel[k].func));
        fprintf(out, " #%" PRIu64 "</th><td class=\"num\">%" PRIu64 "</td><td class=\"num\">"
                     "%" PRIu64 "</td>",
                r->t->kernel[k].launch + 1u, m->records, waste);
        if (!worst) {
            fputs("<td class=\"na\" colspan=\"4\">no memory instruction recorded</td></tr>\n",
                  out);
            continue;
        }
        char why[1024], line[512];
        cml_tfr_explain(worst, why, sizeof why);
        fputs("<td class=\"txt\">", out);
        site_name(out, r, worst);
        fprintf(out, "</td><td class=\"num\">%" PRIu64 "</td><td class=\"txt\">", worst->waste);
        esc(out, why);
        fputs("</td><td class=\"txt\">", out);
        const cml_wi *b = best_whatif(cml_tfr_whatif_of(r, k, worst));
        if (b) {
            cml_tfr_whatif_line(worst, b, line, sizeof line);
            esc(out, line);
        } else {
            fputs("<span class=\"na\">none the model predicts would help</span>", out);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table></div>\n</section>\n", out);
}

static void launches(FILE *out, const cml_tf_report *r)
{
    fputs("<section id=\"launches\"><h2>Launches</h2>\n<div class=\"scroll\"><table>\n"
          "<thead><tr><th>kernel</th><th>launch</th><th>grid</th><th>block</th><th>warps "
          "recorded</th><th>warp instructions</th><th>global load sectors/request</th>"
          "<th>global store sectors/request</th><th>bank conflicts</th><th>DRAM bytes</th>"
          "</tr></thead>\n<tbody>\n",
          out);
    for (size_t k = 0; k < r->t->nkernels; k++) {
        const cml_tf_kernel *kn = &r->t->kernel[k];
        const cml_tf_model *m = &r->models[k];
        const cml_traffic *ld = &m->cls.cls[CML_CLASS_GLOBAL_LD];
        const cml_traffic *st = &m->cls.cls[CML_CLASS_GLOBAL_ST];
        fputs("<tr><th scope=\"row\">", out);
        esc(out, cml_tfr_func_name(r->t, kn->func));
        fprintf(out, "</th><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%ux%ux%u</td>"
                     "<td class=\"num\">%ux%ux%u</td><td class=\"num\">%" PRIu64 " of %" PRIu64
                     "</td><td class=\"num\">%" PRIu64 "</td>",
                kn->launch + 1u, kn->grid[0], kn->grid[1], kn->grid[2], kn->block[0],
                kn->block[1], kn->block[2], kn->warps_recorded, kn->warps_total, m->records);
        const cml_traffic *cls[2] = {ld, st};
        for (int c = 0; c < 2; c++)
            if (cls[c]->requests)
                fprintf(out, "<td class=\"num\">%.2f</td>",
                        cml_traffic_sectors_per_request(cls[c]));
            else
                fputs("<td class=\"na\">-</td>", out);
        fprintf(out, "<td class=\"num\">%" PRIu64 "</td>",
                m->cls.cls[CML_CLASS_SHARED_LD].bank_conflicts +
                    m->cls.cls[CML_CLASS_SHARED_ST].bank_conflicts);
        if (m->has_levels)
            fprintf(out, "<td class=\"num\">%" PRIu64 "</td>",
                    m->levels.dram_read_bytes + m->levels.dram_write_bytes);
        else
            fputs("<td class=\"na\">-</td>", out);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div>\n</section>\n", out);
}

static void ranking(FILE *out, const cml_tf_report *r, const cml_tfr_ranked *all, size_t n)
{
    const size_t shown = n < r->ranked ? n : r->ranked;
    fputs("<section id=\"instructions\"><h2>Instructions by the bytes they waste</h2>\n"
          "<p>Global and local memory: the sector bytes moved beyond the bytes the lanes asked "
          "for; shared memory: the wavefronts beyond the conflict-free ones, 128 B each.</p>\n"
          "<div class=\"scroll\"><table>\n<thead><tr><th>#</th><th>instruction</th>"
          "<th>access</th><th>warps</th><th>requests</th><th>sectors</th><th>per request</th>"
          "<th>efficiency %</th><th>conflicts</th><th>wasted bytes</th></tr></thead>\n"
          "<tbody>\n",
          out);
    for (size_t i = 0; i < shown; i++) {
        const cml_tf_site *s = all[i].site;
        char spr[32], eff[32];
        cml_tfr_site_figures(s, spr, eff, sizeof spr);
        if (i < r->top)
            fprintf(out, "<tr><td class=\"num\"><a href=\"#ins-%zu\">%zu</a></td>", i + 1u,
                    i + 1u);
        else
            fprintf(out, "<tr><td class=\"num\">%zu</td>", i + 1u);
        fputs("<td class=\"txt\">", out);
        site_name(out, r, s);
        fprintf(out, "</td><td class=\"txt\">%s %s %uB</td><td class=\"num\">%" PRIu64
                     "</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%" PRIu64
                     "</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
                     "<td class=\"num\">%" PRIu64 "</td><td class=\"num\">%" PRIu64
                     "</td></tr>\n",
                cml_tf_space_name(s->space), cml_tf_op_name(s->op), s->size, s->records,
                s->traffic.requests, s->traffic.sectors, spr, eff, s->traffic.bank_conflicts,
                s->waste);
    }
    fputs("</tbody></table></div>\n", out);
    if (n > shown)
        fprintf(out, "<p class=\"meta\">%zu more instructions: --json and --csv carry every "
                     "one.</p>\n",
                n - shown);
    fputs("</section>\n", out);
}

/* The lanes' picture: a row of lane numbers, a row of the sector (bank)
 * each lane's bytes are in, as cml_tf_picture numbers them, tinted by it;
 * each cell's title gives the lane's address. */
static void picture(FILE *out, const cml_tf_site *s)
{
    const cml_tf_ins *e = &s->example;
    char line[33];
    const unsigned distinct = cml_tf_picture(e, line);
    const int shared = s->space == CML_TF_SHARED;
    fprintf(out, "<div class=\"scroll\"><table class=\"lanes\" style=\"font-family:ui-monospace,"
                 "'DejaVu Sans Mono',monospace;text-align:center\">\n<caption>Block %" PRIu64
                 ", warp %u: the %s each lane's bytes are in (%u %s%s)</caption>\n<tr>"
                 "<th scope=\"row\">lane</th>",
            e->block, e->warp, shared ? "bank" : "sector", distinct,
            shared ? "bank" : "sector", distinct == 1 ? "" : "s");
    for (unsigned l = 0; l < CML_TF_LANES; l++)
        fprintf(out, "<td>%u</td>", l);
    fprintf(out, "</tr>\n<tr><th scope=\"row\">%s</th>", shared ? "bank" : "sector");
    for (unsigned l = 0; l < CML_TF_LANES; l++) {
        if (line[l] == '.') {
            fputs("<td class=\"na\" title=\"inactive\">.</td>", out);
            continue;
        }
        /* the symbol is 0-9 then a-v: its value picks the tint */
        const unsigned v = line[l] <= '9' ? (unsigned)(line[l] - '0') : 10u + (unsigned)(line[l] - 'a');
        fprintf(out, "<td style=\"background:%s\" title=\"lane %u: 0x%" PRIx64 "\">%c</td>",
                tints[v % 8u], l, e->addr[l], line[l]);
    }
    fputs("</tr>\n</table></div>\n", out);
}

/* The what-if transforms of a detailed instruction, as a table. */
static void whatif(FILE *out, const cml_tf_report *r, const cml_tf_site *s,
                   const cml_wi_list *l)
{
    if (!l)
        return;
    if (!l->n) {
        fputs("<p><strong>What if:</strong> no change the lab predicts (pad a row, a structure "
              "of arrays, wider accesses, another block shape) fits these addresses.</p>\n",
              out);
        return;
    }
    const int shared = s->space == CML_TF_SHARED;
    fprintf(out, "<div class=\"scroll\"><table class=\"whatif\">\n<caption>What if (the model's "
                 "prediction, on these warps' addresses transformed)</caption>\n<thead><tr>"
                 "<th>change</th><th>warps changed</th><th>requests</th><th>%s</th><th>%s</th>"
                 "<th>bytes saved</th></tr></thead>\n<tbody>\n",
            shared ? "wavefronts" : "sectors", shared ? "bank conflicts" : "efficiency %");
    for (size_t i = 0; i < l->n; i++) {
        const cml_wi *w = &l->item[i];
        const cml_traffic *b = &w->before, *a = &w->after;
        char what[200];
        cml_wi_describe(w, s->size, what, sizeof what);
        fputs("<tr><td class=\"txt\">", out);
        esc(out, what);
        fprintf(out, "</td><td class=\"num\">%" PRIu64 " of %" PRIu64 "</td><td class=\"num\">%"
                     PRIu64 " &rarr; %" PRIu64 "</td>",
                w->warps, w->of, b->requests, a->requests);
        if (shared)
            fprintf(out, "<td class=\"num\">%" PRIu64 " &rarr; %" PRIu64 "</td><td class=\"num\">%"
                         PRIu64 " &rarr; %" PRIu64 "</td>",
                    b->wavefronts, a->wavefronts, b->bank_conflicts, a->bank_conflicts);
        else
            fprintf(out, "<td class=\"num\">%" PRIu64 " &rarr; %" PRIu64 "</td><td class=\"num\">"
                         "%.1f &rarr; %.1f</td>",
                    b->sectors, a->sectors, 100.0 * cml_traffic_efficiency(b),
                    100.0 * cml_traffic_efficiency(a));
        fprintf(out, "<td class=\"num\">%" PRId64 "</td></tr>\n", cml_wi_saved(w));
    }
    fputs("</tbody></table></div>\n", out);
    char line[1024];
    if (cml_tfr_whatif_launch_line(r, s, l, line, sizeof line)) {
        fputs("<p class=\"computed\">", out);
        esc(out, line);
        fputs("</p>\n", out);
    }
}

static void details(FILE *out, const cml_tf_report *r, const cml_tfr_ranked *all, size_t n)
{
    const size_t shown = n < r->top ? n : r->top;
    if (!shown)
        return;
    fputs("<section id=\"details\"><h2>The worst instructions, lane by lane</h2>\n", out);
    for (size_t i = 0; i < shown; i++) {
        const cml_tf_site *s = all[i].site;
        fprintf(out, "<article id=\"ins-%zu\">\n<h3>#%zu ", i + 1u, i + 1u);
        site_name(out, r, s);
        fprintf(out, ": %s %s of %u bytes a lane, %" PRIu64 " warps</h3>\n",
                cml_tf_space_name(s->space), cml_tf_op_name(s->op), s->size, s->records);
        picture(out, s);
        const char *sass = cml_tf_sources_sass(r->src, r->t, s->func, s->pc);
        if (sass) {
            fputs("<p>SASS: <code>", out);
            esc(out, sass);
            fputs("</code></p>\n", out);
        }
        char why[1024];
        cml_tfr_explain(s, why, sizeof why);
        fputs("<p class=\"computed\">", out);
        esc(out, why);
        fputs("</p>\n", out);
        whatif(out, r, s, cml_tfr_whatif_of(r, all[i].kernel, s));
        fputs("</article>\n", out);
    }
    fputs("</section>\n", out);
}

/* Launch k's bytes wasted per source line (per PC where the trace has no
 * line for it), in code order, as a bar chart. */
static cml_status line_chart(FILE *out, const cml_tf_report *r, size_t k)
{
    const cml_tf_model *m = &r->models[k];
    const char *name = cml_tfr_func_name(r->t, r->t->kernel[k].func);
    char title[160];
    snprintf(title, sizeof title, "%s: bytes wasted per %s", name, "source line or PC");
    cml_chart c;
    cml_chart_init(&c, CML_CHART_BAR, title, "", "bytes wasted");
    c.y.format = CML_FMT_BYTES;
    cml_chart_series *wasted = cml_chart_add_series(&c, "bytes wasted");
    /* in code order: the sites sorted by pc (they are by waste) */
    const cml_tf_site **by_pc = malloc((m->nsites ? m->nsites : 1u) * sizeof *by_pc);
    double *sum = calloc(m->nsites ? m->nsites : 1u, sizeof *sum);
    cml_status st = wasted && by_pc && sum ? CML_OK : CML_ENOMEM;
    for (size_t s = 0; st == CML_OK && s < m->nsites; s++) {
        size_t at = s;
        while (at > 0 && (by_pc[at - 1u]->func > m->sites[s].func ||
                          (by_pc[at - 1u]->func == m->sites[s].func &&
                           by_pc[at - 1u]->pc > m->sites[s].pc))) {
            by_pc[at] = by_pc[at - 1u];
            at--;
        }
        by_pc[at] = &m->sites[s];
    }
    for (size_t s = 0; st == CML_OK && s < m->nsites; s++) {
        char label[300];
        if (!cml_tfr_source(r, by_pc[s], label, sizeof label, NULL))
            snprintf(label, sizeof label, "pc 0x%04x", by_pc[s]->pc);
        const long cat = cml_chart_category(&c, label);
        if (cat < 0)
            st = CML_ENOMEM;
        else
            sum[cat] += (double)by_pc[s]->waste;
    }
    for (size_t i = 0; st == CML_OK && i < c.ncategories; i++)
        st = cml_chart_add_point(wasted, (double)i, sum[i]);
    if (st == CML_OK) {
        fputs("<figure>\n<figcaption>", out);
        esc(out, title);
        fputs("</figcaption>\n", out);
        st = cml_chart_svg(out, &c);
        cml_chart_data_html(out, &c);
        fputs("</figure>\n", out);
    }
    free(by_pc);
    free(sum);
    cml_chart_free(&c);
    return st;
}

cml_status cml_tf_report_html(FILE *out, const void *report)
{
    const cml_tf_report *r = report;
    size_t n = 0;
    cml_tfr_ranked *all = cml_tfr_rank(r, &n);
    if (!all)
        return CML_ENOMEM;
    char title[400];
    snprintf(title, sizeof title, "cumemlab trace: %s", r->path);
    cml_html_begin(out, title);
    header(out, r);
    cml_status st = CML_OK;
    if (r->t->nkernels == 0) {
        fputs("<p>No launch was recorded: no kernel ran, or none matched --kernel and "
              "--launch.</p>\n",
              out);
    } else {
        summary(out, r, all, n);
        launches(out, r);
        ranking(out, r, all, n);
        details(out, r, all, n);
        cml_tfm_html(out, r);
        fputs("<section id=\"lines\"><h2>Bytes wasted, line by line</h2>\n<div "
              "class=\"charts\">\n",
              out);
        for (size_t k = 0; k < r->t->nkernels && st == CML_OK; k++)
            st = line_chart(out, r, k);
        fputs("</div>\n</section>\n", out);
    }
    cml_html_end_note(out, r->tool_version ? r->tool_version : "(version unknown)",
                      "Every figure is the model's (the lab's rules run on the lane addresses "
                      "the program's warps used), except the measured counters, which come "
                      "from CUPTI in a second run of the program (kernel replay). A sector is "
                      "32 bytes; wasted bytes are sector bytes moved beyond the bytes asked "
                      "for, and for shared memory 128 bytes per wavefront beyond the "
                      "conflict-free ones.");
    free(all);
    if (st == CML_OK && (fflush(out) != 0 || ferror(out)))
        st = CML_EIO;
    return st;
}
