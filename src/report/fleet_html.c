/*
 * The fleet's comparison (fleet.h) as one self-contained HTML page: the
 * summary (the outliers named, or the line saying there is none), the GPU
 * table with each GPU's driver, clocks and temperatures at start and end
 * and its flags, the failed runs with their diagnostics, then per group
 * and experiment one chart per figure kind (bandwidth; latency; exact counters):
 * x the experiment's records in order, y each GPU's value as % of the
 * figure's reference, every GPU a series of marks (outliers named in the
 * legend), the flagged values drawn again as a series of their own, and
 * the numbers one click away under each chart.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet.h"
#include "report/html.h"
#include "report/svg_chart.h"

static void esc(FILE *out, const char *s) { cml_xml_escape(out, s); }

static void state_td(FILE *out, const cml_fleet_gpu_state *s)
{
    if (!s->known) {
        fputs("<td class=\"na\">-</td>", out);
        return;
    }
    fputs("<td>", out);
    if (s->sm_clock_mhz >= 0)
        fprintf(out, "SM %d MHz", s->sm_clock_mhz);
    if (s->mem_clock_mhz >= 0)
        fprintf(out, ", mem %d MHz", s->mem_clock_mhz);
    if (s->temperature_c > -1000)
        fprintf(out, ", %d&nbsp;&deg;C", s->temperature_c);
    if (isfinite(s->power_w))
        fprintf(out, ", %.0f&nbsp;W", s->power_w);
    if (s->reasons[0] && strcmp(s->reasons, "none") != 0) {
        fputs(" <span class=\"meta\">(", out);
        esc(out, s->reasons);
        fputs(")</span>", out);
    }
    fputs("</td>", out);
}

static void gpu_table(FILE *out, const cml_fleet *f)
{
    fputs("<div class=\"scroll\"><table>\n<caption>The GPUs: each run's card, its state at the "
          "start and the end of the run, and its figures off the group's reference</caption>\n"
          "<tr><th>GPU</th><th>model</th><th>driver</th><th>exit</th><th>start</th>"
          "<th>end</th><th>speed flagged</th><th>counters differing</th><th>verdict</th>"
          "</tr>\n",
          out);
    for (size_t i = 0; i < f->ngpus; i++) {
        const cml_fleet_gpu *g = &f->gpus[i];
        const cml_fleet_run *run = g->run;
        fprintf(out, "<tr%s><td>", g->outlier ? " class=\"differ\"" : "");
        esc(out, g->label);
        fputs("</td><td>", out);
        esc(out, g->model);
        fputs("</td><td>", out);
        esc(out, g->driver[0] ? g->driver : "-");
        if (run->exit_status >= 0)
            fprintf(out, "</td><td class=\"num\">%d</td>", run->exit_status);
        else
            fputs("</td><td class=\"na\">-</td>", out);
        cml_fleet_gpu_state none = {0};
        state_td(out, run->has_gpu ? &run->gpu.start : &none);
        state_td(out, run->has_gpu ? &run->gpu.end : &none);
        if (g->failed) {
            fputs("<td class=\"na\">-</td><td class=\"na\">-</td><td class=\"failed\">no "
                  "results</td></tr>\n",
                  out);
            continue;
        }
        fprintf(out, "<td class=\"num\">%zu of %zu", g->speed_flagged, g->speed_compared);
        if (g->speed_flagged)
            fprintf(out, " (median %+.1f%%)", 100 * g->median_flagged);
        fprintf(out, "</td><td class=\"num\">%zu of %zu</td><td>", g->ctr_flagged,
                g->ctr_compared);
        if (g->outlier)
            fputs("<strong>outlier</strong>", out);
        else if (f->groups[g->group].n < 2)
            fputs("not compared", out);
        else
            fputs("within the rule", out);
        fputs("</td></tr>\n", out);
    }
    fputs("</table></div>\n", out);
}

static void summary(FILE *out, const cml_fleet *f)
{
    fputs("<section class=\"summary\" id=\"summary\" aria-labelledby=\"summary-h\">\n"
          "<h2 id=\"summary-h\">Summary</h2>\n<ul>\n",
          out);
    for (size_t k = 0; k < f->ngroups; k++) {
        const cml_fleet_group *g = &f->groups[k];
        fputs("<li>", out);
        esc(out, g->model);
        fprintf(out, ": %zu GPU%s", g->n, g->n == 1 ? "" : "s");
        if (g->n < 2) {
            fputs(": no other ", out);
            esc(out, g->model);
            fputs(" to compare with", out);
        } else {
            fprintf(out, ", %zu figures compared%s", g->nrows,
                    g->n == 2 ? " (two GPUs: the reference is the faster of the two)" : "");
        }
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
    size_t flagged = 0;
    for (size_t i = 0; i < f->ngpus; i++)
        flagged += f->gpus[i].speed_flagged + f->gpus[i].ctr_flagged;
    if (!f->noutliers && !flagged)
        fprintf(out, "<p><strong>No outlier</strong>: every figure within %g%% of the fleet's "
                     "median or inside its own spread, every exact counter the same.</p>\n",
                f->threshold);
    else if (!f->noutliers)
        fprintf(out, "<p><strong>No outlier</strong>: %zu speed figure%s flagged (in the "
                     "charts below); no GPU has more than the other GPUs' rate explains (a chance "
                     "below 0.1%%).</p>\n",
                flagged, flagged == 1 ? "" : "s");
    for (size_t i = 0; i < f->ngpus; i++) {
        const cml_fleet_gpu *g = &f->gpus[i];
        if (!g->outlier)
            continue;
        const cml_fleet_group *grp = &f->groups[g->group];
        fputs("<p class=\"finding\"><strong>Outlier: ", out);
        esc(out, g->label);
        fputs("</strong>. ", out);
        if (g->speed_flagged) {
            fprintf(out, "%zu of %zu speed figures flagged (%zu slower, %zu faster), median "
                         "%+.1f%%, in ",
                    g->speed_flagged, g->speed_compared, g->speed_slower, g->speed_faster,
                    100 * g->median_flagged);
            esc(out, g->experiments);
            fputs(". ", out);
        }
        if (g->ctr_flagged) {
            fprintf(out, "%zu exact counter%s from the group's: ", g->ctr_flagged,
                    g->ctr_flagged == 1 ? " differs" : "s differ");
            esc(out, g->counters);
            fputs(". ", out);
        }
        if (g->driver[0] && grp->driver[0] && strcmp(g->driver, grp->driver) != 0) {
            fputs("Driver ", out);
            esc(out, g->driver);
            fputs(", the group's ", out);
            esc(out, grp->driver);
            fputs(". ", out);
        }
        fputs("Its clocks and temperatures are in the GPU table beside the group's.</p>\n", out);
    }
    gpu_table(out, f);
    if (f->nfailed) {
        fputs("<div class=\"scroll\"><table>\n<caption>Runs that failed: no results</caption>\n"
              "<tr><th>GPU</th><th>exit</th><th>diagnostic</th></tr>\n",
              out);
        for (size_t i = 0; i < f->ngpus; i++) {
            const cml_fleet_gpu *g = &f->gpus[i];
            if (!g->failed)
                continue;
            fputs("<tr class=\"failed\"><td>", out);
            esc(out, g->label);
            fprintf(out, "</td><td class=\"num\">%d</td><td>", g->run->exit_status);
            esc(out, g->run->diagnostic[0] ? g->run->diagnostic : "(no diagnostic given)");
            fputs("</td></tr>\n", out);
        }
        fputs("</table></div>\n", out);
    }
    fputs("</section>\n", out);
}

/* Each GPU's series: one of its own for up to CML_CHART_MAX_SERIES - 2
 * GPUs (outliers first), the others together in one; the last series
 * holds the flagged values. */
static cml_status chart(FILE *out, const cml_fleet *f, const cml_fleet_group *g, size_t r0,
                        cml_fleet_kind kind)
{
    const char *key = f->rows[r0].experiment;
    char title[160];
    snprintf(title, sizeof title, "%.40s: %s as %% of the %s", key,
             kind == CML_FLEET_BANDWIDTH ? "bandwidth"
             : kind == CML_FLEET_LATENCY ? "latency"
                                         : "exact counters",
             kind == CML_FLEET_COUNTER ? "group's majority value" : "group's median");
    cml_chart c;
    cml_chart_init(&c, CML_CHART_SCATTER, title, "record (in the experiment's order)",
                   "% of the reference");
    c.x.format = CML_FMT_WHOLE;
    c.y.format = CML_FMT_PERCENT;
    c.y.from_zero = 0; /* values near 100%: the differences are the point */
    size_t *series = malloc(g->n * sizeof *series);
    if (!series)
        return CML_ENOMEM;
    const size_t own = CML_CHART_MAX_SERIES - 2;
    size_t others = (size_t)-1;
    for (int pass = 0; pass < 2; pass++) /* outliers first */
        for (size_t i = 0; i < g->n; i++) {
            const cml_fleet_gpu *gpu = &f->gpus[g->gpus[i]];
            if (gpu->outlier != !pass)
                continue;
            char name[112];
            cml_chart_series *s = NULL;
            if (c.nseries < own || (c.nseries == own && g->n == own + 1)) {
                snprintf(name, sizeof name, "%s%s", gpu->tag, gpu->outlier ? ": outlier" : "");
                s = cml_chart_add_series(&c, name);
            } else if (others == (size_t)-1) {
                snprintf(name, sizeof name, "the other %zu GPUs", g->n - own);
                s = cml_chart_add_series(&c, name);
                others = c.nseries - 1;
            }
            series[i] = s ? c.nseries - 1 : others;
            if (s)
                s->look = (int)series[i] + 1;
        }
    cml_chart_series *flagged = NULL;
    cml_status st = CML_OK;
    size_t record = 0;
    const char *last_variant = NULL;
    size_t last_occ = 0;
    for (size_t r = r0; st == CML_OK && r < g->first_row + g->nrows; r++) {
        const cml_fleet_row *row = &f->rows[r];
        if (strcmp(row->experiment, key) != 0)
            continue;
        if (!last_variant || strcmp(last_variant, row->variant) != 0 || last_occ != row->occurrence)
            record++;
        last_variant = row->variant;
        last_occ = row->occurrence;
        if (row->kind != kind || !isfinite(row->reference) || row->reference == 0)
            continue;
        for (size_t i = 0; st == CML_OK && i < g->n; i++) {
            const cml_fleet_cell *cell = &row->cells[i];
            if (!cell->present)
                continue;
            double y = 100 * cell->value / row->reference;
            st = cml_chart_add_point(&c.series[series[i]], (double)record, y);
            if (st == CML_OK && cell->flagged) {
                if (!flagged && (flagged = cml_chart_add_series(&c, "flagged")) != NULL)
                    flagged->look = CML_CHART_MAX_SERIES, flagged->second = 1; /* open
                                                                                  diamonds */
                if (flagged)
                    st = cml_chart_add_point(flagged, (double)record, y);
            }
        }
    }
    free(series);
    if (st == CML_OK && cml_chart_drawable_points(&c) > 0) {
        fputs("<figure>\n<figcaption>", out);
        esc(out, c.title);
        int named = 0;
        for (size_t i = 0; i < g->n; i++) {
            const cml_fleet_gpu *gpu = &f->gpus[g->gpus[i]];
            if (!gpu->outlier)
                continue;
            fputs(named ? ", " : " <span class=\"meta\">(outliers of the group: ", out);
            esc(out, gpu->label);
            named = 1;
        }
        fputs(named ? ")</span>" : "", out);
        fputs("</figcaption>\n", out);
        if (cml_chart_svg(out, &c) != CML_OK)
            st = CML_EIO;
        cml_chart_data_html(out, &c);
        fputs("</figure>\n", out);
    }
    cml_chart_free(&c);
    return st;
}

/* The records the charts number, by their variants. */
static void record_list(FILE *out, const cml_fleet *f, const cml_fleet_group *g, size_t r0)
{
    const char *key = f->rows[r0].experiment, *last = NULL;
    size_t last_occ = 0;
    fputs("<details><summary>The records by number</summary>\n<ol>\n", out);
    for (size_t r = r0; r < g->first_row + g->nrows; r++) {
        const cml_fleet_row *row = &f->rows[r];
        if (strcmp(row->experiment, key) != 0 ||
            (last && strcmp(last, row->variant) == 0 && last_occ == row->occurrence))
            continue;
        last = row->variant;
        last_occ = row->occurrence;
        fputs("<li>", out);
        esc(out, row->variant[0] ? row->variant : "(no variant)");
        fputs("</li>\n", out);
    }
    fputs("</ol>\n</details>\n", out);
}

static cml_status experiments(FILE *out, const cml_fleet *f)
{
    cml_status st = CML_OK;
    for (size_t k = 0; k < f->ngroups; k++) {
        const cml_fleet_group *g = &f->groups[k];
        for (size_t r = g->first_row; st == CML_OK && r < g->first_row + g->nrows; r++) {
            size_t q = g->first_row;
            while (q < r && strcmp(f->rows[q].experiment, f->rows[r].experiment) != 0)
                q++;
            if (q < r)
                continue; /* not the experiment's first row */
            char id[96];
            cml_html_anchor(id, sizeof id, r, f->rows[r].experiment);
            fprintf(out, "<section id=\"%s\">\n<h2>", id);
            esc(out, f->rows[r].experiment);
            fputs(" <span class=\"meta\">(", out);
            esc(out, g->model);
            fprintf(out, ", %zu GPUs)</span></h2>\n", g->n);
            st = chart(out, f, g, r, CML_FLEET_BANDWIDTH);
            if (st == CML_OK)
                st = chart(out, f, g, r, CML_FLEET_LATENCY);
            if (st == CML_OK)
                st = chart(out, f, g, r, CML_FLEET_COUNTER);
            record_list(out, f, g, r);
            fputs("</section>\n", out);
        }
    }
    return st;
}

cml_status cml_fleet_html(FILE *out, const void *ctx)
{
    const cml_fleet *f = ctx;
    char title[96];
    snprintf(title, sizeof title, "cumemlab: a fleet of %zu GPU%s compared", f->ngpus,
             f->ngpus == 1 ? "" : "s");
    cml_html_begin(out, title);
    fputs("<header>\n<h1>", out);
    esc(out, title);
    fprintf(out, "</h1>\n<p class=\"meta\">Threshold %g%% on speed: bandwidth, latency (and outside the "
                 "samples' own spread); any difference in an exact counter. docs/fleet.md "
                 "says the rule.</p>\n",
            f->threshold);
    if (f->runs->command_line[0]) {
        fputs("<p class=\"meta\">", out);
        esc(out, f->runs->command_line);
        fputs("</p>\n", out);
    }
    fputs("</header>\n", out);
    summary(out, f);
    cml_status st = experiments(out, f);
    cml_html_end(out, cml_fleet_tool_version(f));
    if (st == CML_OK && (fflush(out) != 0 || ferror(out)))
        st = CML_EIO;
    return st;
}
