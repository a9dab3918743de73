/*
 * Two runs compared (compare.h), as text: the terminal's compact line per
 * experiment and the records found in one run only; the CSV (a row per
 * record); the JSON (schema "cumemlab-comparison", docs/json-schema.md).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/json_writer.h"
#include "report/report.h"
#include "report/report_util.h"
#include "report/text_table.h"

#define TEXT_WIDTH 100
#define NAME_CHARS 24        /* a variant's name in the terminal's table */
#define ONLY_LISTED 12       /* records only in one run named per experiment */

static const char *const run_letter[2] = {"A", "B"};

/* ------------------------------------------------------------------ */
/* Terminal                                                           */
/* ------------------------------------------------------------------ */

static void ratio_cell(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%.2fx", v);
    else
        snprintf(buf, len, "-");
}

/* "1.18x offset=11 ca": a ratio and what names its record, cut at a word. */
static void extreme_cell(char *buf, size_t len, double v, const char *name)
{
    char t[160];
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(t, sizeof t, "%.2fx %s", v, name);
    cml_text_cut_words(buf, len, t, NAME_CHARS + 6);
}

static void run_lines(FILE *out, const cml_comparison *c, int k)
{
    const cml_results *r = c->run[k];
    char text[1400], peak[64] = "";
    if (isfinite(r->peak_gbs) && r->peak_gbs > 0)
        snprintf(peak, sizeof peak, ", peak %.1f GB/s", r->peak_gbs);
    snprintf(text, sizeof text, "%s: %s, %zu record%s, %s%s", c->label[k],
             c->file[k][0] ? c->file[k] : "(not from a file)", r->count, r->count == 1 ? "" : "s",
             r->model_only ? "the model alone" : "measured", peak);
    char prefix[8];
    snprintf(prefix, sizeof prefix, "%s  ", run_letter[k]);
    cml_tt_wrap(out, prefix, text, TEXT_WIDTH, 5);
    if (r->command_line[0])
        cml_tt_wrap(out, "   command: ", r->command_line, TEXT_WIDTH, 5);
}

/* The names of the records of experiment e found in run `side` (0: A)
 * only, up to ONLY_LISTED of them. */
static void only_line(FILE *out, const cml_comparison *c, const cml_cmp_experiment *e, int side)
{
    size_t count = side ? e->only_b : e->only_a, listed = 0, used = 0;
    if (!count)
        return;
    char text[ONLY_LISTED * 100 + 80], prefix[64];
    text[0] = '\0';
    for (size_t i = e->first; i < e->first + e->n && listed < ONLY_LISTED; i++) {
        const cml_cmp_pair *p = &c->pairs[i];
        if (side ? p->a != NULL : p->b != NULL)
            continue;
        int w = snprintf(text + used, sizeof text - used, "%s%s", listed ? ", " : "",
                         cml_cmp_variant(p));
        if (w > 0 && (size_t)w < sizeof text - used)
            used += (size_t)w;
        listed++;
    }
    if (count > listed && used < sizeof text)
        snprintf(text + used, sizeof text - used, ", and %zu more (--json lists them all)",
                 count - listed);
    snprintf(prefix, sizeof prefix, "  %.31s (%zu): ", e->key, count);
    cml_tt_wrap(out, prefix, text, TEXT_WIDTH, 4);
}

enum { C_EXP, C_BOTH, C_ONLY_A, C_ONLY_B, C_BW, C_LOW, C_HIGH, C_TIME, C_CTR, C_MODEL, NCOLS };

static const struct {
    const char *head;
    int right;
} cols[NCOLS] = {
    {"experiment", 0}, {"both", 1},        {"only A", 1},     {"only B", 1},   {"GB/s B/A", 1},
    {"lowest B/A", 0}, {"highest B/A", 0}, {"time B/A", 1}, {"counters", 1}, {"model", 1},
};

cml_status cml_compare_table(FILE *out, const void *ctx)
{
    const cml_comparison *c = ctx;
    fprintf(out, "cumemlab %s: two runs compared, B against A\n",
             c->run[0]->tool_version[0] ? c->run[0]->tool_version : "(version unknown)");
    run_lines(out, c, 0);
    run_lines(out, c, 1);
    if (c->nexps == 0) {
        fputs("\nNo records in either run.\n", out);
        return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
    }
    char (*cell)[NCOLS][64] = malloc(c->nexps * sizeof *cell);
    if (!cell)
        return CML_ENOMEM;
    size_t w[NCOLS];
    for (int k = 0; k < NCOLS; k++)
        w[k] = strlen(cols[k].head);
    for (size_t i = 0; i < c->nexps; i++) {
        const cml_cmp_experiment *e = &c->exps[i];
        snprintf(cell[i][C_EXP], sizeof cell[i][C_EXP], "%s", e->key);
        snprintf(cell[i][C_BOTH], sizeof cell[i][C_BOTH], "%zu", e->both);
        snprintf(cell[i][C_ONLY_A], sizeof cell[i][C_ONLY_A], "%zu", e->only_a);
        snprintf(cell[i][C_ONLY_B], sizeof cell[i][C_ONLY_B], "%zu", e->only_b);
        ratio_cell(cell[i][C_BW], sizeof cell[i][C_BW], e->bw_mean);
        extreme_cell(cell[i][C_LOW], sizeof cell[i][C_LOW], e->bw_min, e->bw_min_name);
        extreme_cell(cell[i][C_HIGH], sizeof cell[i][C_HIGH], e->bw_max, e->bw_max_name);
        ratio_cell(cell[i][C_TIME], sizeof cell[i][C_TIME], e->time_mean);
        snprintf(cell[i][C_CTR], sizeof cell[i][C_CTR], "%zu", e->counters_differ);
        snprintf(cell[i][C_MODEL], sizeof cell[i][C_MODEL], "%zu", e->model_differ);
        for (int k = 0; k < NCOLS; k++) {
            /* control characters of the names as spaces, as the tables show them */
            for (char *q = cell[i][k]; *q; q++)
                if ((unsigned char)*q < 0x20 || *q == 0x7f)
                    *q = ' ';
            size_t d = cml_tt_display_len(cell[i][k]);
            w[k] = d > w[k] ? d : w[k];
        }
    }
    fputc('\n', out);
    for (int row = -2; row < (int)c->nexps; row++) {
        for (int k = 0; k < NCOLS; k++) {
            const char *s = row == -2 ? cols[k].head : row == -1 ? "" : cell[row][k];
            size_t d = row == -1 ? w[k] : cml_tt_display_len(s);
            if (row == -1)
                for (size_t q = 0; q < w[k]; q++)
                    fputc('-', out);
            else if (cols[k].right)
                fprintf(out, "%*s%s", (int)(w[k] - d), "", s);
            else if (k < NCOLS - 1)
                fprintf(out, "%s%*s", s, (int)(w[k] - d), "");
            else
                fputs(s, out);
            fputs(k < NCOLS - 1 ? "  " : "\n", out);
        }
    }
    free(cell);
    cml_tt_wrap(out, "",
                "(GB/s B/A: B's measured bandwidth over A's, the geometric mean over the records "
                "measured in both runs, with the lowest and the highest; time B/A: the same of "
                "the median times; counters, model: records whose hardware counters or model "
                "figures differ)",
                TEXT_WIDTH, 1);
    for (int side = 0; side < 2; side++) {
        size_t total = 0;
        for (size_t i = 0; i < c->nexps; i++)
            total += side ? c->exps[i].only_b : c->exps[i].only_a;
        if (!total)
            continue;
        fprintf(out, "\nOnly in %s (%zu record%s):\n", run_letter[side], total,
                total == 1 ? "" : "s");
        for (size_t i = 0; i < c->nexps; i++)
            only_line(out, c, &c->exps[i], side);
    }
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                */
/* ------------------------------------------------------------------ */

static void csv_double(FILE *out, double v)
{
    char buf[CML_NUM_BUF];
    if (cml_rep_fmt_double(buf, sizeof buf, v))
        fputs(buf, out);
}

static const char *state_or_empty(const cml_record *r)
{
    return r ? cml_rep_state_name(r->state) : "";
}

static const char *where(const cml_cmp_pair *p)
{
    return p->a && p->b ? "both" : p->a ? "a" : "b";
}

/* "name=a/b;..." of the differing counters (an empty side: not there). */
static void csv_counters(FILE *out, const cml_cmp_pair *p)
{
    cml_cmp_counter d[2 * CML_RECORD_MAX_COUNTERS];
    size_t n = cml_cmp_counter_diffs(p, d, sizeof d / sizeof d[0]);
    char buf[2 * CML_RECORD_MAX_COUNTERS * (96 + 2 * CML_NUM_BUF + 4)];
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < sizeof d / sizeof d[0]; i++) {
        char a[CML_NUM_BUF], b[CML_NUM_BUF];
        cml_rep_fmt_double(a, sizeof a, d[i].a);
        cml_rep_fmt_double(b, sizeof b, d[i].b);
        int w = snprintf(buf + used, sizeof buf - used, "%s%s=%s/%s", i ? ";" : "", d[i].name, a, b);
        if (w < 0 || (size_t)w >= sizeof buf - used)
            break;
        used += (size_t)w;
    }
    cml_csv_field(out, buf);
}

/* "modern.global_ld.sectors=5/4;..." of the differing model figures. */
static void csv_model(FILE *out, const cml_cmp_pair *p)
{
    enum { MAXD = 64 };
    cml_cmp_model_diff d[MAXD];
    size_t n = cml_cmp_model_diffs(p, d, MAXD);
    char buf[MAXD * 80];
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < MAXD; i++) {
        int w = snprintf(buf + used, sizeof buf - used, "%s%s.%s.%s=%" PRIu64 "/%" PRIu64,
                         i ? ";" : "", cml_rep_rules_name(d[i].rules), cml_rep_class_name(d[i].cls),
                         d[i].field, d[i].a, d[i].b);
        if (w < 0 || (size_t)w >= sizeof buf - used)
            break;
        used += (size_t)w;
    }
    cml_csv_field(out, buf);
}

cml_status cml_compare_csv(FILE *out, const void *ctx)
{
    const cml_comparison *c = ctx;
    fputs("experiment,variant,in,state_a,state_b,bandwidth_gbs_a,bandwidth_gbs_b,bandwidth_ratio,"
          "median_ms_a,median_ms_b,time_ratio,counters_differ,model_differs,counters,model\n",
          out);
    for (size_t i = 0; i < c->npairs; i++) {
        const cml_cmp_pair *p = &c->pairs[i];
        cml_csv_field(out, cml_cmp_experiment_key(p));
        fputc(',', out);
        cml_csv_field(out, cml_cmp_variant(p));
        fprintf(out, ",%s,%s,%s,", where(p), state_or_empty(p->a), state_or_empty(p->b));
        csv_double(out, p->bw_a);
        fputc(',', out);
        csv_double(out, p->bw_b);
        fputc(',', out);
        csv_double(out, p->bw_ratio);
        fputc(',', out);
        csv_double(out, p->ms_a);
        fputc(',', out);
        csv_double(out, p->ms_b);
        fputc(',', out);
        csv_double(out, p->time_ratio);
        if (p->a && p->b)
            fprintf(out, ",%zu,%d,", p->counters_differ, p->model_differs);
        else
            fputs(",,,", out);
        csv_counters(out, p);
        fputc(',', out);
        csv_model(out, p);
        fputc('\n', out);
    }
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}

/* ------------------------------------------------------------------ */
/* JSON                                                               */
/* ------------------------------------------------------------------ */

static void kv_state(cml_json *j, const char *key, const cml_record *r)
{
    if (r)
        cml_json_kv_string(j, key, cml_rep_state_name(r->state));
    else
        cml_json_kv_null(j, key);
}

/* {"a": x, "b": y, "ratio": y / x} */
static void kv_pair(cml_json *j, const char *key, double a, double b, double ratio)
{
    cml_json_key(j, key);
    cml_json_begin_object(j);
    cml_json_kv_double(j, "a", a);
    cml_json_kv_double(j, "b", b);
    cml_json_kv_double(j, "ratio", ratio);
    cml_json_end_object(j);
}

static void json_run(cml_json *j, const cml_comparison *c, int k)
{
    const cml_results *r = c->run[k];
    cml_json_begin_object(j);
    cml_json_kv_string(j, "run", run_letter[k]);
    cml_json_kv_string(j, "label", c->label[k]);
    cml_json_kv_string(j, "file", c->file[k]);
    cml_json_kv_string(j, "tool_version", r->tool_version);
    cml_json_kv_string(j, "command_line", r->command_line);
    cml_json_kv_bool(j, "model_only", r->model_only);
    if (r->has_device)
        cml_json_kv_string(j, "device", r->device.name);
    else
        cml_json_kv_null(j, "device");
    cml_json_kv_double(j, "peak_gbs", r->peak_gbs > 0 ? r->peak_gbs : NAN);
    cml_json_kv_u64(j, "records", r->count);
    cml_json_end_object(j);
}

static void json_experiment(cml_json *j, const cml_cmp_experiment *e)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "experiment", e->key);
    cml_json_kv_u64(j, "both", e->both);
    cml_json_kv_u64(j, "only_a", e->only_a);
    cml_json_kv_u64(j, "only_b", e->only_b);
    cml_json_key(j, "bandwidth_ratio");
    if (e->bw_n) {
        cml_json_begin_object(j);
        cml_json_kv_u64(j, "records", e->bw_n);
        cml_json_kv_double(j, "geomean", e->bw_mean);
        cml_json_kv_double(j, "min", e->bw_min);
        cml_json_kv_string(j, "min_variant", cml_cmp_variant(e->bw_min_pair));
        cml_json_kv_double(j, "max", e->bw_max);
        cml_json_kv_string(j, "max_variant", cml_cmp_variant(e->bw_max_pair));
        cml_json_end_object(j);
    } else {
        cml_json_null(j);
    }
    cml_json_key(j, "time_ratio");
    if (e->time_n) {
        cml_json_begin_object(j);
        cml_json_kv_u64(j, "records", e->time_n);
        cml_json_kv_double(j, "geomean", e->time_mean);
        cml_json_end_object(j);
    } else {
        cml_json_null(j);
    }
    cml_json_kv_u64(j, "counters_differ", e->counters_differ);
    cml_json_kv_u64(j, "model_differs", e->model_differ);
    cml_json_end_object(j);
}

static void json_pair(cml_json *j, const cml_cmp_pair *p)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "experiment", cml_cmp_experiment_key(p));
    cml_json_kv_string(j, "variant", cml_cmp_variant(p));
    cml_json_kv_string(j, "in", where(p));
    kv_state(j, "state_a", p->a);
    kv_state(j, "state_b", p->b);
    kv_pair(j, "bandwidth_gbs", p->bw_a, p->bw_b, p->bw_ratio);
    kv_pair(j, "median_ms", p->ms_a, p->ms_b, p->time_ratio);
    cml_json_key(j, "counters");
    cml_json_begin_array(j);
    cml_cmp_counter d[2 * CML_RECORD_MAX_COUNTERS];
    size_t n = cml_cmp_counter_diffs(p, d, sizeof d / sizeof d[0]);
    for (size_t i = 0; i < n && i < sizeof d / sizeof d[0]; i++) {
        cml_json_begin_object(j);
        cml_json_kv_string(j, "name", d[i].name);
        cml_json_kv_double(j, "a", d[i].a);
        cml_json_kv_double(j, "b", d[i].b);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
    cml_json_key(j, "model_present");
    cml_json_begin_object(j);
    if (p->a)
        cml_json_kv_bool(j, "a", p->a->has_model);
    else
        cml_json_kv_null(j, "a");
    if (p->b)
        cml_json_kv_bool(j, "b", p->b->has_model);
    else
        cml_json_kv_null(j, "b");
    cml_json_end_object(j);
    cml_json_kv_bool(j, "model_differs", p->model_differs);
    cml_json_key(j, "model");
    cml_json_begin_array(j);
    enum { MAXD = 2 * CML_CLASS_COUNT * 13 };
    cml_cmp_model_diff md[MAXD];
    size_t nm = cml_cmp_model_diffs(p, md, MAXD);
    for (size_t i = 0; i < nm && i < MAXD; i++) {
        cml_json_begin_object(j);
        cml_json_kv_string(j, "rules", cml_rep_rules_name(md[i].rules));
        cml_json_kv_string(j, "class", cml_rep_class_name(md[i].cls));
        cml_json_kv_string(j, "field", md[i].field);
        cml_json_kv_u64(j, "a", md[i].a);
        cml_json_kv_u64(j, "b", md[i].b);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
    cml_json_end_object(j);
}

cml_status cml_compare_json(FILE *out, const void *ctx)
{
    const cml_comparison *c = ctx;
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-comparison");
    cml_json_kv_u64(&j, "schema_version", 1);
    cml_json_key(&j, "runs");
    cml_json_begin_array(&j);
    json_run(&j, c, 0);
    json_run(&j, c, 1);
    cml_json_end_array(&j);
    cml_json_key(&j, "experiments");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < c->nexps; i++)
        json_experiment(&j, &c->exps[i]);
    cml_json_end_array(&j);
    cml_json_key(&j, "records");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < c->npairs; i++)
        json_pair(&j, &c->pairs[i]);
    cml_json_end_array(&j);
    for (int side = 0; side < 2; side++) {
        cml_json_key(&j, side ? "only_in_b" : "only_in_a");
        cml_json_begin_array(&j);
        for (size_t i = 0; i < c->npairs; i++) {
            const cml_cmp_pair *p = &c->pairs[i];
            if (side ? p->a != NULL : p->b != NULL)
                continue;
            cml_json_begin_object(&j);
            cml_json_kv_string(&j, "experiment", cml_cmp_experiment_key(p));
            cml_json_kv_string(&j, "variant", cml_cmp_variant(p));
            cml_json_end_object(&j);
        }
        cml_json_end_array(&j);
    }
    cml_json_end_object(&j); /* and the final newline */
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}
