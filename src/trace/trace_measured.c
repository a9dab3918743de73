/*
 * Measured counters beside the model, per traced launch (trace_measured.h).
 */
#include "trace/trace_measured.h"

#include <math.h>
#include <string.h>

#include "report/report_util.h"
#include "report/svg_chart.h"

const char *cml_tfm_verdict_name(cml_tfm_verdict v)
{
    static const char *const n[] = {"agrees", "differs", "not judged"};
    return (unsigned)v <= CML_TFM_NOT_JUDGED ? n[v] : "?";
}

/* One metric: the model's figure and the verdict. `whole` is 0 when the
 * trace sampled the launch. */
static void judge(const cml_tf_model *m, int whole, cml_tfm_row *row)
{
    const cml_counter_def *d = row->def;
    row->verdict = CML_TFM_NOT_JUDGED;
    if (!d) {
        row->why = "not a metric of the lab's counter map";
        return;
    }
    row->has_model = cml_counter_predict_levels(d, &m->cls, m->has_levels ? &m->levels : NULL,
                                                &row->model);
    if (row->has_model)
        cml_counter_level_bounds(d, m->has_levels ? &m->levels : NULL, row->model, &row->lo,
                                 &row->hi);
    if (!row->has_model) {
        row->why = d->kind == CML_CTR_INFO ? "measured only: the model has no rule for it"
                                           : "the model has no figure for it here";
    } else if (!whole) {
        row->why = "the trace sampled the launch: the model covers only the warps recorded";
    } else if (!isfinite(row->measured)) {
        row->why = "the profiler gave no value";
    } else if (d->kind == CML_CTR_RELATIVE && !cml_counter_judged(d, row->measured, row->hi)) {
        row->why = "both under the noise floor";
    } else {
        int in = row->measured >= row->lo && row->measured <= row->hi;
        row->verdict = in || cml_counter_agrees(d, row->measured, row->model) ? CML_TFM_AGREES
                                                                              : CML_TFM_DIFFERS;
        row->why = "";
    }
}

const cml_tf_counters *cml_tfm_rows(const cml_tf_report *r, size_t k, cml_tfm_row *rows,
                                    size_t *n)
{
    *n = 0;
    const cml_tf_kernel *kn = &r->t->kernel[k];
    const cml_tf_counters *c = cml_tf_counters_of(r->t, kn);
    if (!c || c->error[0])
        return c;
    const int whole = kn->stride == 1 && kn->warps_lost == 0;
    for (size_t i = 0; i < c->n && i < CML_TF_MAX_METRICS; i++) {
        cml_tfm_row *row = &rows[(*n)++];
        memset(row, 0, sizeof *row);
        row->metric = c->metrics[i];
        row->def = cml_counter_map_find(c->metrics[i]);
        row->measured = c->values[i];
        judge(&r->models[k], whole, row);
    }
    return c;
}

void cml_tfm_text(FILE *out, const cml_tf_report *r)
{
    cml_tfm_row rows[CML_TF_MAX_METRICS];
    int header = 0;
    for (size_t k = 0; k < r->t->nkernels; k++) {
        size_t n = 0;
        const cml_tf_counters *c = cml_tfm_rows(r, k, rows, &n);
        if (!c)
            continue;
        if (!header) {
            fputs("\nMeasured counters (CUPTI, kernel replay in a second run) beside the "
                  "model:\n",
                  out);
            header = 1;
        }
        const char *name = cml_tfr_func_name(r->t, r->t->kernel[k].func);
        const cml_tf_pc_counters *pc = cml_tf_pc_counters_of(r->t, &r->t->kernel[k]);
        if (pc && pc->error[0])
            fprintf(out, "  %s per instruction: not measured: %s\n", name, pc->error);
        else if (pc)
            fprintf(out, "  %s per instruction: %zu of its instructions counted (under each "
                         "instruction above)\n",
                    name, pc->npcs);
        if (c->error[0]) {
            fprintf(out, "  %s: not measured: %s\n", name, c->error);
            continue;
        }
        unsigned agree = 0, differ = 0;
        for (size_t i = 0; i < n; i++) {
            agree += rows[i].verdict == CML_TFM_AGREES;
            differ += rows[i].verdict == CML_TFM_DIFFERS;
        }
        fprintf(out, "  %s (%u passes): %u agree, %u differ, %zu not judged\n", name,
                (unsigned)c->passes, agree, differ, n - agree - differ);
        fprintf(out, "    %-52s %16s %16s  %s\n", "metric", "measured", "model", "verdict");
        for (size_t i = 0; i < n; i++) {
            const cml_tfm_row *w = &rows[i];
            char mv[32], pv[32];
            if (!cml_rep_fmt_double(mv, sizeof mv, w->measured))
                snprintf(mv, sizeof mv, "-");
            if (!w->has_model || !cml_rep_fmt_double(pv, sizeof pv, w->model))
                snprintf(pv, sizeof pv, "-");
            fprintf(out, "    %-52s %16s %16s  %s%s%s\n", w->metric, mv, pv,
                    cml_tfm_verdict_name(w->verdict), w->why[0] ? ": " : "", w->why);
        }
    }
    if (header)
        fputs("  (Kernel replay cannot flush L2 between its passes: L2 and DRAM counts see the "
              "caches as the program and the replay left them, the model's are cold.)\n",
              out);
}

void cml_tfm_html(FILE *out, const cml_tf_report *r)
{
    cml_tfm_row rows[CML_TF_MAX_METRICS];
    int open = 0;
    for (size_t k = 0; k < r->t->nkernels; k++) {
        size_t n = 0;
        const cml_tf_counters *c = cml_tfm_rows(r, k, rows, &n);
        if (!c)
            continue;
        if (!open) {
            fputs("<section id=\"measured\"><h2>Measured counters beside the model</h2>\n"
                  "<p>CUPTI's range profiler, kernel replay, in a second run of the program. "
                  "Kernel replay cannot flush L2 between its passes: L2 and DRAM counts see "
                  "the caches as the program and the replay left them, the model's are "
                  "cold.</p>\n",
                  out);
            open = 1;
        }
        fputs("<h3>", out);
        cml_xml_escape(out, cml_tfr_func_name(r->t, r->t->kernel[k].func));
        fputs("</h3>\n", out);
        if (c->error[0]) {
            fputs("<p>Not measured: ", out);
            cml_xml_escape(out, c->error);
            fputs("</p>\n", out);
            continue;
        }
        fputs("<div class=\"scroll\"><table>\n<thead><tr><th>metric</th><th>measured</th>"
              "<th>model</th><th>verdict</th></tr></thead>\n<tbody>\n",
              out);
        for (size_t i = 0; i < n; i++) {
            const cml_tfm_row *w = &rows[i];
            char mv[32], pv[32];
            if (!cml_rep_fmt_double(mv, sizeof mv, w->measured))
                snprintf(mv, sizeof mv, "-");
            if (!w->has_model || !cml_rep_fmt_double(pv, sizeof pv, w->model))
                snprintf(pv, sizeof pv, "-");
            fputs("<tr><th scope=\"row\">", out);
            cml_xml_escape(out, w->metric);
            fprintf(out, "</th><td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s", mv,
                    pv, cml_tfm_verdict_name(w->verdict));
            if (w->why[0]) {
                fputs(": ", out);
                cml_xml_escape(out, w->why);
            }
            fputs("</td></tr>\n", out);
        }
        fputs("</tbody></table></div>\n", out);
    }
    if (open)
        fputs("</section>\n", out);
}

/* "measured_per_instruction": what the PCNT chunk of launch k holds, or
 * null (the values themselves are under each instruction). */
static void pcnt_json(cml_json *j, const cml_tf_report *r, size_t k)
{
    const cml_tf_pc_counters *pc = cml_tf_pc_counters_of(r->t, &r->t->kernel[k]);
    cml_json_key(j, "measured_per_instruction");
    if (!pc) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    cml_json_kv_string(j, "method", "cupti-sass-metrics");
    cml_json_kv_string(j, "error", pc->error);
    cml_json_kv_u64(j, "instructions", pc->npcs);
    cml_json_key(j, "metrics");
    cml_json_begin_array(j);
    for (size_t m = 0; m < pc->nmetrics; m++)
        cml_json_string(j, pc->metrics[m]);
    cml_json_end_array(j);
    cml_json_end_object(j);
}

void cml_tfm_json(cml_json *j, const cml_tf_report *r, size_t k)
{
    pcnt_json(j, r, k);
    cml_tfm_row rows[CML_TF_MAX_METRICS];
    size_t n = 0;
    const cml_tf_counters *c = cml_tfm_rows(r, k, rows, &n);
    cml_json_key(j, "measured");
    if (!c) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    cml_json_kv_string(j, "method", "cupti-kernel-replay");
    cml_json_kv_u64(j, "passes", c->passes);
    cml_json_kv_string(j, "error", c->error);
    cml_json_key(j, "metrics");
    cml_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        const cml_tfm_row *w = &rows[i];
        cml_json_begin_object(j);
        cml_json_kv_string(j, "metric", w->metric);
        cml_json_kv_double(j, "value", w->measured);
        if (w->has_model) {
            cml_json_kv_double(j, "model", w->model);
            cml_json_kv_double(j, "lo", w->lo);
            cml_json_kv_double(j, "hi", w->hi);
        } else {
            cml_json_kv_null(j, "model");
        }
        cml_json_kv_string(j, "verdict", cml_tfm_verdict_name(w->verdict));
        cml_json_kv_string(j, "why", w->why);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
    cml_json_end_object(j);
}

const uint64_t *cml_tfm_pc_values(const cml_tf_report *r, size_t k, const cml_tf_site *s,
                                  const cml_tf_pc_counters **pc)
{
    const cml_tf_kernel *kn = &r->t->kernel[k];
    const cml_tf_pc_counters *c = cml_tf_pc_counters_of(r->t, kn);
    *pc = c;
    if (!c || c->error[0] || s->func != kn->func)
        return NULL;
    size_t row = cml_tf_pc_row(c, s->pc);
    return row == SIZE_MAX ? NULL : c->values + row * c->nmetrics;
}

int cml_tfm_pc_model(const char *metric, const cml_tf_site *s, double *model)
{
    static const char *const space[CML_TF_SPACES] = {"global", "shared", "local"};
    static const char *const op[CML_TF_OPS] = {"ld", "st", "atom"};
    char want[64];
    if (!strcmp(metric, "smsp__sass_inst_executed")) {
        *model = (double)s->records;
        return 1;
    }
    if (s->space >= CML_TF_SPACES || s->op >= CML_TF_OPS)
        return 0;
    snprintf(want, sizeof want, "inst_executed_op_%s_%s", space[s->space], op[s->op]);
    const char *at = strstr(metric, want);
    if (at && at[strlen(want)] == '\0') {
        *model = (double)s->records;
        return 1;
    }
    snprintf(want, sizeof want, "sectors_mem_%s", space[s->space]);
    at = strstr(metric, want);
    if (s->space != CML_TF_SHARED && s->op != CML_TF_ATOMIC && at && at[strlen(want)] == '\0') {
        *model = (double)s->traffic.sectors;
        return 1;
    }
    return 0;
}

void cml_tfm_site_text(FILE *out, const cml_tf_report *r, size_t k, const cml_tf_site *s)
{
    const cml_tf_pc_counters *pc;
    const uint64_t *v = cml_tfm_pc_values(r, k, s, &pc);
    if (pc && pc->error[0] && s->func == r->t->kernel[k].func) {
        fprintf(out, "   measured here: not measured: %s\n", pc->error);
        return;
    }
    if (!v)
        return;
    const cml_tf_kernel *kn = &r->t->kernel[k];
    const int whole = kn->stride == 1 && kn->warps_lost == 0;
    fputs("   measured here (CUPTI SASS metrics, a run of their own):", out);
    for (size_t m = 0; m < pc->nmetrics; m++) {
        if (!v[m])
            continue;
        double model;
        fprintf(out, "\n     %-48s %14llu", pc->metrics[m], (unsigned long long)v[m]);
        if (cml_tfm_pc_model(pc->metrics[m], s, &model))
            fprintf(out, "   model %.0f: %s", model,
                    !whole                   ? "not judged (the trace sampled the launch)"
                    : model == (double)v[m] ? "agrees"
                                             : "differs");
    }
    fputc('\n', out);
}

void cml_tfm_site_json(cml_json *j, const cml_tf_report *r, size_t k, const cml_tf_site *s)
{
    const cml_tf_pc_counters *pc;
    const uint64_t *v = cml_tfm_pc_values(r, k, s, &pc);
    cml_json_key(j, "measured");
    if (!v) {
        cml_json_null(j);
        return;
    }
    const cml_tf_kernel *kn = &r->t->kernel[k];
    const int whole = kn->stride == 1 && kn->warps_lost == 0;
    cml_json_begin_array(j);
    for (size_t m = 0; m < pc->nmetrics; m++) {
        double model;
        cml_json_begin_object(j);
        cml_json_kv_string(j, "metric", pc->metrics[m]);
        cml_json_kv_u64(j, "value", v[m]);
        if (cml_tfm_pc_model(pc->metrics[m], s, &model)) {
            cml_json_kv_double(j, "model", model);
            cml_json_kv_string(j, "verdict", !whole                   ? "not judged"
                                             : model == (double)v[m] ? "agrees"
                                                                      : "differs");
        } else {
            cml_json_kv_null(j, "model");
            cml_json_kv_string(j, "verdict", "not judged");
        }
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
}
