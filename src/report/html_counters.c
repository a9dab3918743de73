/*
 * The HTML report's table of hardware counters (html_tables.h): a row per
 * record that has counters, a column per counter (the experiment's, in
 * order of first appearance), folded under a <details> like the other data
 * tables. A cell holds what was measured and how it stands against the
 * model:
 *   "= 5898240"                       (class agree)  the model predicts it;
 *   "80553472<br>≠ 79691776 (1.011x)" (class differ) the prediction, and
 *                                                     measured / predicted;
 *   "1474560"                         no prediction for this counter;
 *   "-"                               the record has no such counter.
 * A row per reading, as this table once was, named the counter and the
 * variant again on each of them: the suite's 11,000 readings made 2.7 MB
 * of its 6.8 MB page. A column per counter says each name once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_tables.h"
#include "report/report_util.h"
#include "report/svg_chart.h"

static void esc(FILE *out, const char *s) { cml_xml_escape(out, s); }

/* A count prints whole ("5242880"), anything else with 6 digits. */
static void count_text(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.6g", v);
}

static void write_cell(FILE *out, const cml_counter *ct)
{
    char m[48], p[48];
    if (!ct) {
        fputs("<td class=\"na\">-</td>", out);
        return;
    }
    count_text(m, sizeof m, ct->measured);
    if (!ct->has_prediction || !isfinite(ct->measured)) {
        fprintf(out, "<td>%s</td>", m);
        return;
    }
    if (cml_rep_counter_agrees(ct->measured, ct->predicted)) {
        fprintf(out, "<td class=\"agree\">= %s</td>", m);
        return;
    }
    count_text(p, sizeof p, ct->predicted);
    fprintf(out, "<td class=\"differ\">%s<br>&#8800; %s", m, p);
    if (isfinite(ct->predicted) && ct->predicted != 0)
        fprintf(out, " (%.4gx)", ct->measured / ct->predicted);
    fputs("</td>", out);
}

void cml_html_counters_table(FILE *out, const cml_record *const *recs, size_t n)
{
    /* The counters' names, each once, in order of first appearance. */
    size_t cap = 0, nnames = 0, rows = 0, readings = 0;
    for (size_t i = 0; i < n; i++)
        cap += recs[i]->ncounters < CML_RECORD_MAX_COUNTERS ? recs[i]->ncounters
                                                            : CML_RECORD_MAX_COUNTERS;
    if (cap == 0)
        return;
    const char **names = malloc(cap * sizeof *names);
    if (!names)
        return;
    for (size_t i = 0; i < n; i++) {
        const cml_record *r = recs[i];
        rows += r->ncounters > 0;
        for (unsigned k = 0; k < r->ncounters && k < CML_RECORD_MAX_COUNTERS; k++) {
            size_t j = 0;
            while (j < nnames && strcmp(names[j], r->counters[k].name) != 0)
                j++;
            if (j == nnames)
                names[nnames++] = r->counters[k].name;
            readings++;
        }
    }
    fprintf(out,
            "<details class=\"data\"><summary>Hardware counters beside the model's predictions: "
            "%zu reading%s of %zu counter%s in %zu record%s</summary>\n",
            readings, readings == 1 ? "" : "s", nnames, nnames == 1 ? "" : "s", rows,
            rows == 1 ? "" : "s");
    fputs("<div class=\"scroll\"><table class=\"counters\">\n<caption>Hardware counters beside "
          "the model's predictions (= agrees with the model; &#8800; the model's prediction, "
          "then measured / predicted; a bare number has no prediction)</caption>\n"
          "<thead><tr><th scope=\"col\">variant</th>",
          out);
    for (size_t j = 0; j < nnames; j++) {
        fputs("<th scope=\"col\">", out);
        esc(out, names[j]);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < n; i++) {
        const cml_record *r = recs[i];
        if (r->ncounters == 0)
            continue;
        fputs("<tr><th scope=\"row\">", out);
        esc(out, r->variant);
        fputs("</th>", out);
        for (size_t j = 0; j < nnames; j++)
            write_cell(out, cml_record_find_counter(r, names[j]));
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n</details>\n", out);
    free(names);
}
