/*
 * Self-describing results (core/exp_desc.h, docs/json-schema.md
 * "experiments"): a results file carries each experiment's number, title
 * and chart specs, and the reports draw it from the file alone.
 *
 *   - every registry row can be described, and its description survives
 *     JSON and back byte for byte;
 *   - a file whose spec differs from the registry's (a changed title, a key
 *     no registry knows) is drawn by the file's spec, the summary compared
 *     by the file's figure, with the registry's rows handed over or not;
 *   - a file without descriptions (an older version's) is drawn by the
 *     registry, exactly as the same records described by the registry are,
 *     and written again without them;
 *   - hostile values in the new members are refused with one line naming
 *     the member.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/html.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report/summary.h"
#include "report_test_util.h"
#include "test_util.h"

static char *render(cml_report_fn fn, const cml_results *r)
{
    cml_status st;
    char *s = render_to_memory(fn, r, NULL, &st);
    CHECK(st == CML_OK);
    return s;
}

/* A measured record of `key` at offset `offset`. */
static void add_record(cml_results *r, const char *key, int64_t offset, double gbs,
                       double lat_ns)
{
    char v[64];
    snprintf(v, sizeof v, "offset=%lld path=ca", (long long)offset);
    cml_record *rec = cml_results_add(r, key, v);
    cml_record_add_param(rec, "offset", offset, NULL);
    cml_record_add_param(rec, "path", 0, "ca");
    rec->bytes_read = rec->bytes_written = (uint64_t)1 << 26;
    rec->measured = 1;
    rec->bandwidth_gbs = gbs;
    rec->timing.reps = 5;
    rec->timing.median_ms = rec->timing.min_ms = rec->timing.max_ms = rec->timing.mean_ms = 1;
    cml_record_add_extra(rec, "lat_ns", lat_ns, "ns");
    cml_record_add_extra(rec, "mark_x", 1, "");
}

static void make_records(cml_results *r)
{
    cml_results_init(r);
    snprintf(r->tool_version, sizeof r->tool_version, "0.1.0");
    snprintf(r->command_line, sizeof r->command_line, "cumemlab run read-offset");
    const double gbs[] = {100, 80, 90}, lat[] = {400, 900, 500};
    for (int i = 0; i < 3; i++)
        add_record(r, "read-offset", i, gbs[i], lat[i]);
    for (int i = 0; i < 3; i++)
        add_record(r, "from-the-future", i, 50 + i, lat[i]);
}

/* What a file of a later version could say: a retitled read-offset, and an
 * experiment this cumemlab does not know, compared by an extra figure
 * where lower is better. */
static const char *const marks[] = {"mark_x", NULL};
static const char *const mark_labels[] = {"latency mark", NULL};
static const cml_chart_spec file_read_offset[] = {
    {.shape = CML_PLOT_SWEEP, .title = "Bandwidth as the file draws it", .xparam = "offset",
     .xname = "offset", .xlabel = "offset (floats, file)", .ylabel = "GB/s (file)",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth",
     .unit = "GB/s", .describe = 1}};
static const cml_chart_spec file_future[] = {
    {.shape = CML_PLOT_SWEEP, .title = "Latency of a future experiment", .xparam = "offset",
     .xname = "offset", .xlabel = "offset", .ylabel = "latency (ns)",
     .m = {{"latency", CML_METRIC_EXTRA, "lat_ns", NULL, -1}}, .what = "latency", .unit = "ns",
     .describe = 1, .xmark_extras = marks, .xmark_labels = mark_labels}};

static void describe_as_file(cml_results *r)
{
    CHECK(cml_exp_descs_add(&r->descs, "read-offset", 41, "Reads as the file says",
                            file_read_offset, 1, NULL, 0) == CML_OK);
    CHECK(cml_exp_descs_add(&r->descs, "from-the-future", 99, "Future experiment", file_future,
                            1, NULL, 0) == CML_OK);
}

/* Read text into r; CML_OK expected. */
static void read_back(const char *text, cml_results *r)
{
    char err[640];
    cml_status st = cml_results_from_json(text, strlen(text), r, err, sizeof err);
    if (st != CML_OK)
        fprintf(stderr, "%s\n", err);
    CHECK(st == CML_OK);
}

/* Every registry row fits the bounds a reader enforces, and its
 * description goes through JSON and back unchanged. */
static void test_registry_round_trip(void)
{
    cml_results r;
    make_records(&r);
    const cml_experiment *const *rows = cml_registry_rows();
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        char err[160] = "";
        cml_status st = cml_exp_descs_add(&r.descs, rows[i]->key, rows[i]->number,
                                          rows[i]->title, rows[i]->charts,
                                          rows[i]->charts ? rows[i]->ncharts : 0, err, sizeof err);
        if (st != CML_OK)
            fprintf(stderr, "%s: %s\n", rows[i]->key, err);
        CHECK(st == CML_OK);
    }
    CHECK_EQ_U64(r.descs.n, cml_experiment_count());
    char *a = render(cml_report_json, &r);
    cml_results b;
    read_back(a, &b);
    CHECK_EQ_U64(b.descs.n, r.descs.n);
    char *c = render(cml_report_json, &b);
    CHECK_STR_EQ(a, c);
    /* Field by field, through the spec's own writer's form. */
    for (size_t i = 0; i < b.descs.n && i < r.descs.n; i++) {
        CHECK_STR_EQ(b.descs.v[i].key, r.descs.v[i].key);
        CHECK(b.descs.v[i].number == r.descs.v[i].number);
        CHECK_EQ_U64(b.descs.v[i].ncharts, r.descs.v[i].ncharts);
        for (size_t k = 0; k < b.descs.v[i].ncharts; k++) {
            const cml_chart_spec *x = &r.descs.v[i].charts[k], *y = &b.descs.v[i].charts[k];
            CHECK(x->shape == y->shape && x->xscale == y->xscale && x->xfmt == y->xfmt &&
                  x->yfmt == y->yfmt && x->describe == y->describe);
            CHECK(x->m[0].id == y->m[0].id && x->m[1].id == y->m[1].id &&
                  x->m[0].better == y->m[0].better && x->m[1].better == y->m[1].better);
        }
    }
    free(a);
    free(c);
    cml_results_free(&b);
    cml_results_free(&r);
}

/* A file's own specs win over the registry's, and a key no registry knows
 * is drawn by its file's spec; the same with no registry at all. */
static void test_file_spec_wins(void)
{
    const cml_experiment *row = cml_chart_plan_row("read-offset");
    CHECK(row != NULL && row->ncharts > 0);
    const char *registry_title = row && row->ncharts ? row->charts[0].title : "?";

    cml_results r;
    make_records(&r);
    describe_as_file(&r);
    char *json = render(cml_report_json, &r);
    CHECK_STR_CONTAINS(json, "\"experiments\": [");
    cml_results f;
    read_back(json, &f);

    cml_exp_desc d;
    CHECK(cml_chart_plan_describe(&f, "read-offset", &d) == CML_DESC_RESULTS);
    CHECK(d.number == 41 && d.title && !strcmp(d.title, "Reads as the file says"));
    CHECK(cml_chart_plan_describe(&f, "from-the-future", &d) == CML_DESC_RESULTS);

    char *html = render(cml_report_html, &f);
    CHECK_STR_CONTAINS(html, "41. Reads as the file says (read-offset)");
    CHECK_STR_CONTAINS(html, "Bandwidth as the file draws it");
    CHECK_STR_CONTAINS(html, "offset (floats, file)");
    CHECK(strstr(html, registry_title) == NULL);
    CHECK_STR_CONTAINS(html, "99. Future experiment (from-the-future)");
    CHECK_STR_CONTAINS(html, "Latency of a future experiment");
    CHECK_STR_CONTAINS(html, "latency mark");
    /* Not the fallback a key without a description gets. */
    CHECK(strstr(html, "Measured bandwidth by variant") == NULL);

    /* The summary compares the future experiment by the file's figure, an
     * extra one where lower is better. */
    cml_summary s;
    CHECK(cml_summary_build(&f, &s) == CML_OK);
    CHECK_EQ_U64(s.n, 2);
    if (s.n == 2) {
        CHECK(s.rows[1].metric == CML_METRIC_EXTRA && !s.rows[1].higher_is_better);
        CHECK_STR_EQ(cml_summary_row_label(&s.rows[1]), "latency");
        CHECK(s.rows[1].best_value == 400 && s.rows[1].worst_value == 900);
    }
    cml_summary_free(&s);

    /* From the file alone: without the registry's rows, the same page. */
    cml_chart_plan_use_rows(NULL, 0);
    char *alone = render(cml_report_html, &f);
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    CHECK_STR_EQ(alone, html);
    /* And the results as produced draw as their file does. */
    char *direct = render(cml_report_html, &r);
    CHECK_STR_EQ(direct, html);

    free(direct);
    free(alone);
    free(html);
    free(json);
    cml_results_free(&f);
    cml_results_free(&r);
}

/* A file without descriptions: the registry draws it (the explicit
 * fallback), exactly as the same records described by the registry, and
 * it is written again without them. */
static void test_old_file_fallback(void)
{
    cml_results old;
    make_records(&old);
    char *json = render(cml_report_json, &old);
    CHECK(strstr(json, "\"experiments\"") == NULL);
    cml_results f;
    read_back(json, &f);
    CHECK_EQ_U64(f.descs.n, 0);
    char *again = render(cml_report_json, &f);
    CHECK_STR_EQ(again, json);

    cml_exp_desc d;
    CHECK(cml_chart_plan_describe(&f, "read-offset", &d) == CML_DESC_REGISTRY);
    const cml_experiment *row = cml_chart_plan_row("read-offset");
    CHECK(row && d.charts == row->charts && d.number == row->number);
    CHECK(cml_chart_plan_describe(&f, "from-the-future", &d) == CML_DESC_NONE);
    CHECK(d.title == NULL && d.ncharts == 0 && !strcmp(d.key, "from-the-future"));

    cml_results described;
    make_records(&described);
    CHECK(row && cml_exp_descs_add(&described.descs, row->key, row->number, row->title,
                                   row->charts, row->ncharts, NULL, 0) == CML_OK);
    char *h_old = render(cml_report_html, &f), *h_new = render(cml_report_html, &described);
    CHECK_STR_EQ(h_old, h_new);
    char *t_old = render(cml_report_table, &f), *t_new = render(cml_report_table, &described);
    CHECK_STR_EQ(t_old, t_new);
    /* The unknown key: the fallback chart, titled by its key. */
    CHECK_STR_CONTAINS(h_old, "Measured bandwidth by variant");
    CHECK_STR_CONTAINS(h_old, ">from-the-future</h2>");

    free(h_old), free(h_new), free(t_old), free(t_new), free(again), free(json);
    cml_results_free(&described);
    cml_results_free(&f);
    cml_results_free(&old);
}

/* text with the first `from` replaced by `to` (which must be there). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CHECK(at != NULL);
    if (!at)
        return strdup(text);
    size_t a = (size_t)(at - text), fl = strlen(from), tl = strlen(to), n = strlen(text);
    char *out = malloc(n - fl + tl + 1);
    if (!out)
        exit(2);
    memcpy(out, text, a);
    memcpy(out + a, to, tl);
    memcpy(out + a + tl, at + fl, n - a - fl + 1);
    return out;
}

/* `text` refused with one located line containing `what`. */
static void refused(const char *text, const char *what, int line)
{
    cml_results r;
    char err[640];
    cml_status st = cml_results_from_json(text, strlen(text), &r, err, sizeof err);
    cml_results_free(&r);
    if (st != CML_EINVAL || !strstr(err, what) || strncmp(err, "line ", 5) != 0 ||
        strchr(err, '\n')) {
        fprintf(stderr, "test_exp_desc.c:%d: expected an error with \"%s\", got %d: %s\n", line,
                what, (int)st, st == CML_OK ? "(accepted)" : err);
        CHECK(0);
    }
}

static void test_hostile(void)
{
    cml_results r;
    make_records(&r);
    describe_as_file(&r);
    char *base = render(cml_report_json, &r);
    static const struct {
        const char *from, *to, *what;
    } cases[] = {
        {"\"experiments\": [", "\"experiments\": 7, \"x\": [", "experiments: expected an array"},
        {"\"key\": \"read-offset\"", "\"key\": \"\"", "experiments[0].key: 0 bytes"},
        {"\"key\": \"read-offset\"", "\"key\": \"from-the-future\"",
         "experiments[1].key: \"from-the-future\" is described twice"},
        {"\"key\": \"read-offset\"", "\"key\": \"a-key-of-thirty-two-bytes-000000\"",
         "experiments[0].key: 32 bytes"},
        {"\"key\": \"read-offset\"", "\"key\": 1", "experiments[0].key: expected a string"},
        {"\"number\": 41", "\"number\": 0", "experiments[0].number: expected an integer in 1.."},
        {"\"number\": 41", "\"number\": -1", "experiments[0].number"},
        {"\"number\": 41", "\"number\": 1.5", "experiments[0].number"},
        {"\"number\": 41", "\"number\": 2147483648", "experiments[0].number"},
        {"\"number\": 41", "\"number\": 1e999", "experiments[0].number"},
        {"\"number\": 41", "\"number\": \"41\"", "experiments[0].number"},
        {"\"number\": 41,", "", "experiments[0]: missing member \"number\""},
        {"\"title\": \"Reads as the file says\"", "\"title\": \"bell\\u0007\"",
         "experiments[0].title: control character"},
        {"\"title\": \"Reads as the file says\"", "\"title\": [\"x\"]",
         "experiments[0].title: expected a string or null"},
        {"\"charts\": [", "\"charts\": {\"a\": 1}, \"y\": [", "experiments[0].charts: expected an array"},
        {"\"shape\": \"sweep\"", "\"shape\": \"circle\"",
         "experiments[0].charts[0].shape: unknown value \"circle\""},
        {"\"xscale\": \"linear\"", "\"xscale\": \"log3\"", "charts[0].xscale: unknown value"},
        {"\"xscale\": \"linear\",", "", "charts[0]: missing member \"xscale\""},
        {"\"yformat\": \"number\"", "\"yformat\": null", "charts[0].yformat: expected a string"},
        {"\"metric\": \"bandwidth\"", "\"metric\": \"none\"",
         "charts[0].metrics[0].metric: unknown value \"none\""},
        {"\"metric\": \"bandwidth\"", "\"metric\": 3", "metrics[0].metric: expected a string"},
        {"\"better\": null", "\"better\": \"up\"", "metrics[0].better: unknown value \"up\""},
        {"\"better\": null", "\"better\": 1", "metrics[0].better: expected a string or null"},
        {"\"metrics\": [", "\"metrics\": [{}, {}, ", "charts[0].metrics: 3 metrics (at most 2)"},
        {"\"metrics\": [", "\"metrics\": [7, ", "charts[0].metrics[0]: expected an object"},
        {"\"describe\": true", "\"describe\": 1", "charts[0].describe: expected a boolean"},
        {"\"xmark_extras\": null", "\"xmark_extras\": [1]",
         "charts[0].xmark_extras[0]: expected a string"},
        {"\"xmark_extras\": null", "\"xmark_extras\": {}",
         "charts[0].xmark_extras: expected an array of strings or null"},
        {"\"extra_names\": null",
         "\"extra_names\": [\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\","
         "\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]",
         "charts[0].extra_names: 17 strings (at most 16)"},
        {"\"unit\": \"GB/s\"", "\"unit\": \"GB/s\\n\"", "charts[0].unit: control character"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *m = replace(base, cases[i].from, cases[i].to);
        refused(m, cases[i].what, __LINE__);
        free(m);
    }
    /* A text of 256 bytes; 17 charts. */
    char title[300] = "\"title\": \"";
    memset(title + strlen(title), 'x', 256);
    strcpy(title + 10 + 256, "\"");
    char *m = replace(base, "\"title\": \"Reads as the file says\"", title);
    refused(m, "experiments[0].title: string of 256 bytes is too long (at most 255)", __LINE__);
    free(m);
    const char *c0 = strstr(base, "\"charts\": [") + strlen("\"charts\": [");
    const char *c1 = strstr(c0, "\"xmark_labels\": null");
    CHECK(c1 != NULL);
    if (c1) {
        c1 = strchr(c1, '}') + 1; /* the end of charts[0] */
        size_t one = (size_t)(c1 - c0);
        char *many = malloc(17 * (one + 1) + 32);
        size_t used = 0;
        for (int k = 0; k < 17; k++) {
            if (k)
                many[used++] = ',';
            memcpy(many + used, c0, one);
            used += one;
        }
        many[used] = '\0';
        char *chunk = malloc(one + 1);
        memcpy(chunk, c0, one);
        chunk[one] = '\0';
        m = replace(base, chunk, many);
        refused(m, "experiments[0].charts: 17 charts (at most 16)", __LINE__);
        free(m);
        free(chunk);
        free(many);
    }
    free(base);
    cml_results_free(&r);
}

int main(void)
{
    /* The report is handed the registry's rows, as the program does. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_registry_round_trip();
    test_file_spec_wins();
    test_old_file_fallback();
    test_hostile();
    return cml_test_summary("test_exp_desc");
}
