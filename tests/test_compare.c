/*
 * Two runs compared (src/report/compare.h) on the committed fixtures
 * tests/data/compare-a.json and compare-b.json (made by
 * tests/data/make_compare_fixtures.py, whose header lists the figures):
 * the matching (records in both runs, only in A, only in B, repeated
 * names), the ratios B / A of every pair and each experiment's geometric
 * mean, lowest and highest, the counters and model figures that differ,
 * the runs' labels (device names, else file names, else paths), and each
 * renderer's output: the terminal line per experiment, the CSV rows, the
 * JSON (parsed back and checked), the HTML page with both runs on every
 * chart.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/compare.h"
#include "report/json_read.h"
#include "test_util.h"

static void data_path(char *buf, size_t len, const char *name)
{
    const char *slash = strrchr(__FILE__, '/');
    if (slash)
        snprintf(buf, len, "%.*s/data/%s", (int)(slash - __FILE__), __FILE__, name);
    else
        snprintf(buf, len, "data/%s", name);
}

static int read_fixture(const char *name, cml_results *r)
{
    char path[1024], err[640];
    data_path(path, sizeof path, name);
    cml_status st = cml_results_read_file(path, r, err, sizeof err);
    if (st != CML_OK)
        fprintf(stderr, "%s\n", err);
    return st == CML_OK;
}

static char *render(cml_status (*fn)(FILE *, const void *), const cml_comparison *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        exit(2);
    CHECK(fn(f, c) == CML_OK);
    fclose(f);
    if (getenv("CML_TEST_SHOW"))
        fputs(buf, stdout);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + k, needle))
        n++;
    return n;
}

static const cml_cmp_pair *pair_named(const cml_comparison *c, const char *variant)
{
    for (size_t i = 0; i < c->npairs; i++)
        if (!strcmp(cml_cmp_variant(&c->pairs[i]), variant))
            return &c->pairs[i];
    return NULL;
}

/* ------------------------------------------------------------------ */

static void test_fixtures(const cml_comparison *c)
{
    CHECK(!strcmp(c->label[0], "NVIDIA H100 80GB HBM3"));
    CHECK(!strcmp(c->label[1], "NVIDIA H200"));
    CHECK_EQ_U64(c->npairs, 7);
    CHECK_EQ_U64(c->nexps, 2);
    /* Grouped by experiment; A's order, then what only B has. */
    static const char *const order[] = {
        "offset=0 path=ca block=512", "offset=11 path=ca block=512", "offset=32 path=ca block=512",
        "offset=128 path=ca block=512", "pattern=stride stride=1 block=256",
        "pattern=stride stride=2 block=256", "pattern=stride stride=8 block=256"};
    for (size_t i = 0; i < 7 && i < c->npairs; i++)
        CHECK(!strcmp(cml_cmp_variant(&c->pairs[i]), order[i]));

    const cml_cmp_pair *p = pair_named(c, "offset=0 path=ca block=512");
    CHECK(p && p->a && p->b);
    CHECK_NEAR(p ? p->bw_a : 0, 2000, 0);
    CHECK_NEAR(p ? p->bw_b : 0, 2500, 0);
    CHECK_NEAR(p ? p->bw_ratio : 0, 1.25, 1e-12);
    CHECK_NEAR(p ? p->time_ratio : 0, 0.8, 1e-12);
    p = pair_named(c, "offset=32 path=ca block=512");
    CHECK(p && p->a && !p->b && isnan(p->bw_ratio) && isnan(p->time_ratio));
    p = pair_named(c, "offset=128 path=ca block=512");
    CHECK(p && !p->a && p->b && isnan(p->bw_a) && p->bw_b == 2450);

    const cml_cmp_experiment *e = &c->exps[0];
    CHECK(!strcmp(e->key, "read-offset"));
    CHECK_EQ_U64(e->both, 2);
    CHECK_EQ_U64(e->only_a, 1);
    CHECK_EQ_U64(e->only_b, 1);
    CHECK_EQ_U64(e->bw_n, 2);
    CHECK_NEAR(e->bw_mean, sqrt(1.25 * 1.5), 1e-12);
    CHECK_NEAR(e->bw_min, 1.25, 1e-12);
    CHECK_NEAR(e->bw_max, 1.5, 1e-12);
    CHECK(!strcmp(e->bw_min_name, "offset=0") && !strcmp(e->bw_max_name, "offset=11"));
    CHECK_NEAR(e->time_mean, sqrt(0.8 / 1.5), 1e-12);
    CHECK_EQ_U64(e->counters_differ, 0);
    CHECK_EQ_U64(e->model_differ, 0);

    e = &c->exps[1];
    CHECK(!strcmp(e->key, "stride"));
    CHECK_EQ_U64(e->both, 3);
    CHECK_EQ_U64(e->only_a + e->only_b, 0);
    CHECK_NEAR(e->bw_mean, cbrt(1.5), 1e-12);
    CHECK(!strcmp(e->bw_min_name, "stride=2")); /* the first of the two at 1.00x */
    CHECK(!strcmp(e->bw_max_name, "stride=1"));
    CHECK_EQ_U64(e->counters_differ, 1);
    CHECK_EQ_U64(e->model_differ, 1);

    /* stride=2: the sectors counter, 100 in A, 120 in B. */
    p = pair_named(c, "pattern=stride stride=2 block=256");
    cml_cmp_counter d[8];
    CHECK(p && cml_cmp_counter_diffs(p, d, 8) == 1);
    CHECK(p && !strcmp(d[0].name, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
    CHECK(p && d[0].a == 100 && d[0].b == 120);
    CHECK(p && !p->model_differs);
    /* stride=8: the model's modern global_ld sectors, 1000 more in B. */
    p = pair_named(c, "pattern=stride stride=8 block=256");
    cml_cmp_model_diff m[8];
    CHECK(p && p->model_differs && p->counters_differ == 0);
    CHECK(p && cml_cmp_model_diffs(p, m, 8) == 1);
    CHECK(p && m[0].rules == CML_RULES_MODERN && m[0].cls == CML_CLASS_GLOBAL_LD);
    CHECK(p && !strcmp(m[0].field, "sectors") && m[0].b == m[0].a + 1000);
}

static void test_terminal(const cml_comparison *c)
{
    char *t = render(cml_compare_table, c);
    CHECK_STR_CONTAINS(t, "cumemlab 0.1.0: two runs compared, B against A\n");
    CHECK_STR_CONTAINS(t, "\nA  NVIDIA H100 80GB HBM3: ");
    CHECK_STR_CONTAINS(t, "\nB  NVIDIA H200: ");
    CHECK_STR_CONTAINS(t, "\nexperiment   both  only A  only B  GB/s B/A  lowest B/A      highest B/A  "
                          "    time B/A  counters  model\n");
    CHECK_STR_CONTAINS(t, "\nread-offset     2       1       1     1.37x  1.25x offset=0  1.50x "
                          "offset=11     0.73x         0      0\n");
    CHECK_STR_CONTAINS(t, "\nstride          3       0       0     1.14x  1.00x stride=2  1.50x "
                          "stride=1      0.87x         1      1\n");
    CHECK_STR_CONTAINS(t, "\nOnly in A (1 record):\n  read-offset (1): offset=32 path=ca block=512\n");
    CHECK_STR_CONTAINS(t, "\nOnly in B (1 record):\n  read-offset (1): offset=128 path=ca block=512\n");
    free(t);
}

static void test_csv(const cml_comparison *c)
{
    char *t = render(cml_compare_csv, c);
    const char *head = "experiment,variant,in,state_a,state_b,bandwidth_gbs_a,bandwidth_gbs_b,"
                       "bandwidth_ratio,median_ms_a,median_ms_b,time_ratio,counters_differ,"
                       "model_differs,counters,model\n";
    CHECK(!strncmp(t, head, strlen(head)));
    CHECK_EQ_U64(count(t, "\n"), 8);
    CHECK_STR_CONTAINS(t, "\nread-offset,offset=0 path=ca block=512,both,ok,ok,2000,2500,1.25,"
                          "0.100663296,0.0805306368,0.8,0,0,,\n");
    CHECK_STR_CONTAINS(t, "\nread-offset,offset=32 path=ca block=512,a,ok,,1900,,,");
    CHECK_STR_CONTAINS(t, "\nread-offset,offset=128 path=ca block=512,b,,ok,,2450,,,");
    CHECK_STR_CONTAINS(t, ",1000,1000,1,0.067108864,0.067108864,1,1,0,"
                          "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum=100/120,\n");
    CHECK_STR_CONTAINS(t, ",1,0,1,,modern.global_ld.sectors=2097152/2098152\n");
    free(t);
}

static double num_at(const cml_jval *o, const char *key)
{
    double v = NAN;
    const cml_jval *m = cml_jobject_get(o, key);
    if (!m || !cml_jval_double(m, &v))
        return NAN;
    return v;
}

static void test_json(const cml_comparison *c)
{
    char *t = render(cml_compare_json, c);
    cml_jdoc *doc = NULL;
    char err[256];
    CHECK(cml_jdoc_parse(t, strlen(t), &doc, err, sizeof err) == CML_OK);
    if (!doc) {
        fprintf(stderr, "%s\n", err);
        free(t);
        return;
    }
    const cml_jval *root = cml_jdoc_root(doc);
    const cml_jval *v = cml_jobject_get(root, "schema");
    CHECK(v && !strcmp(v->text, "cumemlab-comparison"));
    CHECK_NEAR(num_at(root, "schema_version"), 1, 0);
    const cml_jval *runs = cml_jobject_get(root, "runs");
    CHECK(runs && runs->count == 2);
    if (runs && runs->count == 2) {
        v = cml_jobject_get(&runs->items[1], "label");
        CHECK(v && !strcmp(v->text, "NVIDIA H200"));
        CHECK_NEAR(num_at(&runs->items[1], "peak_gbs"), 4000, 0);
        CHECK_NEAR(num_at(&runs->items[0], "records"), 6, 0);
    }
    const cml_jval *exps = cml_jobject_get(root, "experiments");
    CHECK(exps && exps->count == 2);
    if (exps && exps->count == 2) {
        const cml_jval *bw = cml_jobject_get(&exps->items[0], "bandwidth_ratio");
        CHECK(bw && bw->type == CML_J_OBJECT);
        if (bw && bw->type == CML_J_OBJECT) {
            CHECK_NEAR(num_at(bw, "geomean"), sqrt(1.875), 1e-12);
            CHECK_NEAR(num_at(bw, "min"), 1.25, 0);
            v = cml_jobject_get(bw, "max_variant");
            CHECK(v && !strcmp(v->text, "offset=11 path=ca block=512"));
        }
        CHECK_NEAR(num_at(&exps->items[1], "counters_differ"), 1, 0);
        CHECK_NEAR(num_at(&exps->items[1], "model_differs"), 1, 0);
    }
    const cml_jval *recs = cml_jobject_get(root, "records");
    CHECK(recs && recs->count == 7);
    if (recs && recs->count == 7) {
        v = cml_jobject_get(&recs->items[3], "in");
        CHECK(v && !strcmp(v->text, "b"));
        v = cml_jobject_get(&recs->items[3], "state_a");
        CHECK(v && v->type == CML_J_NULL);
        const cml_jval *bw = cml_jobject_get(&recs->items[0], "bandwidth_gbs");
        CHECK(bw && num_at(bw, "ratio") == 1.25 && num_at(bw, "b") == 2500);
        const cml_jval *ctr = cml_jobject_get(&recs->items[5], "counters");
        CHECK(ctr && ctr->count == 1);
        if (ctr && ctr->count == 1)
            CHECK(num_at(&ctr->items[0], "a") == 100 && num_at(&ctr->items[0], "b") == 120);
        const cml_jval *mod = cml_jobject_get(&recs->items[6], "model");
        CHECK(mod && mod->count == 1);
        if (mod && mod->count == 1) {
            v = cml_jobject_get(&mod->items[0], "field");
            CHECK(v && !strcmp(v->text, "sectors"));
            CHECK(num_at(&mod->items[0], "b") - num_at(&mod->items[0], "a") == 1000);
        }
    }
    for (int side = 0; side < 2; side++) {
        const cml_jval *only = cml_jobject_get(root, side ? "only_in_b" : "only_in_a");
        CHECK(only && only->count == 1);
        if (only && only->count == 1) {
            v = cml_jobject_get(&only->items[0], "variant");
            CHECK(v && !strcmp(v->text, side ? "offset=128 path=ca block=512"
                                             : "offset=32 path=ca block=512"));
        }
    }
    cml_jdoc_free(doc);
    free(t);
}

/* Every chart draws both runs: each <svg> holds series of group A and B. */
static void test_html(const cml_comparison *c)
{
    char *t = render(cml_compare_html, c);
    CHECK(!strncmp(t, "<!DOCTYPE html>", 15));
    CHECK(strstr(t, "<script") == NULL && strstr(t, "http://") == NULL);
    CHECK_STR_CONTAINS(t, "<title>cumemlab: NVIDIA H100 80GB HBM3 vs NVIDIA H200</title>");
    size_t charts = 0, both = 0;
    for (const char *p = strstr(t, "<svg class=\"chart\""); p; p = strstr(p + 1, "<svg class=\"chart\"")) {
        const char *end = strstr(p, "</svg>");
        if (!end)
            break;
        size_t n = (size_t)(end - p);
        char *svg = malloc(n + 1);
        memcpy(svg, p, n);
        svg[n] = '\0';
        charts++;
        both += strstr(svg, "data-group=\"A\"") && strstr(svg, "data-group=\"B\"") &&
                strstr(svg, ">NVIDIA H100 80GB HBM3: ") && strstr(svg, ">NVIDIA H200: ");
        free(svg);
    }
    CHECK(charts >= 6);
    CHECK_EQ_U64(both, charts);
    /* Each chart with its numbers, both runs' columns. */
    CHECK_EQ_U64(count(t, "<details class=\"chart-data\">"), charts);
    CHECK_STR_CONTAINS(t, "<th scope=\"col\">NVIDIA H100 80GB HBM3: bandwidth</th>"
                          "<th scope=\"col\">NVIDIA H200: bandwidth</th>");
    /* The comparison table, the lists, and both runs' summaries. */
    CHECK_STR_CONTAINS(t, "<td class=\"num\">1.369x</td>");
    CHECK_STR_CONTAINS(t, "<strong>Only in A (NVIDIA H100 80GB HBM3):</strong> offset=32 path=ca "
                          "block=512.</p>");
    CHECK_STR_CONTAINS(t, "<strong>Only in B (NVIDIA H200):</strong> offset=128 path=ca "
                          "block=512.</p>");
    CHECK_STR_CONTAINS(t, "<caption>A (NVIDIA H100 80GB HBM3): the best and the worst variant");
    CHECK_STR_CONTAINS(t, "<caption>B (NVIDIA H200): the best and the worst variant");
    CHECK_STR_CONTAINS(t, "<td><code>l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum</code></td>"
                          "<td class=\"num\">100</td><td class=\"num\">120</td>"
                          "<td class=\"num\">1.200x</td>");
    CHECK_STR_CONTAINS(t, "<td>modern</td><td>global_ld</td><td>sectors</td>"
                          "<td class=\"num\">2097152</td><td class=\"num\">2098152</td>");
    CHECK(count(t, "<svg") == count(t, "</svg>") && count(t, "<table") == count(t, "</table>"));
    free(t);
}

/* A label too long for a legend name (a series is named "label: name", at
 * most 111 bytes): in every <title> that names one of run A's series (the
 * legend's and the points') the label is cut at a word with "..." and the
 * series' own name follows whole; before, the name was cut at 111 bytes
 * and the series' name lost. */
static void test_long_label(cml_comparison *c)
{
    char saved[sizeof c->label[0]];
    memcpy(saved, c->label[0], sizeof saved);
    snprintf(c->label[0], sizeof c->label[0], "%s",
             "results of the long weekend run on the lab machine under the desk, with every "
             "experiment and every setting, kept for the record");
    char *t = render(cml_compare_html, c);
    const char *const start = "<title>results of the long weekend run";
    size_t names = 0, cut = 0, whole = 0;
    for (const char *q = strstr(t, start); q; q = strstr(q + 1, start)) {
        const char *lt = strchr(q + 7, '<');
        char name[256];
        const size_t n = lt ? (size_t)(lt - q - 7) : sizeof name;
        names++;
        if (n >= sizeof name)
            continue;
        memcpy(name, q + 7, n);
        name[n] = '\0';
        cut += !strstr(name, "kept for the record") && strstr(name, "...: ");
        /* the legend's entries: the cut label and the series, nothing more */
        whole += strstr(name, "...: modern") == name + n - 11 ||
                 strstr(name, "...: Fermi/Kepler") == name + n - 17;
    }
    CHECK(names > 0);
    CHECK_EQ_U64(cut, names); /* tooltips too: the same name, then the point */
    CHECK(whole >= 2);
    free(t);
    memcpy(c->label[0], saved, sizeof saved);
}

/* The labels: device names, else file names, else paths, else A and B;
 * and the n-th record of a name matched with the n-th of that name. */
static void test_labels_and_repeats(void)
{
    cml_results a, b;
    cml_results_init(&a);
    cml_results_init(&b);
    cml_results_add(&a, "x", "same");
    cml_results_add(&a, "x", "same");
    cml_results_add(&b, "x", "same");
    cml_results_add(&b, "y", "new");
    a.model_only = b.model_only = 1;
    cml_comparison c;
    CHECK(cml_compare_build(&c, &a, "runs/2026-11-01.json", &b, "runs/2026-11-24.json") == CML_OK);
    CHECK(!strcmp(c.label[0], "2026-11-01.json") && !strcmp(c.label[1], "2026-11-24.json"));
    CHECK_EQ_U64(c.npairs, 3);
    CHECK(c.npairs == 3 && c.pairs[0].a == &a.items[0] && c.pairs[0].b == &b.items[0]);
    CHECK(c.npairs == 3 && c.pairs[1].a == &a.items[1] && !c.pairs[1].b);
    CHECK(c.npairs == 3 && !c.pairs[2].a && c.pairs[2].b == &b.items[1]);
    CHECK(c.nexps == 2 && c.exps[0].both == 1 && c.exps[0].only_a == 1 && c.exps[1].only_b == 1);
    cml_compare_free(&c);
    CHECK(cml_compare_build(&c, &a, "old/run.json", &b, "new/run.json") == CML_OK);
    CHECK(!strcmp(c.label[0], "old/run.json") && !strcmp(c.label[1], "new/run.json"));
    cml_compare_free(&c);
    CHECK(cml_compare_build(&c, &a, "run.json", &b, "run.json") == CML_OK);
    CHECK(!strcmp(c.label[0], "A") && !strcmp(c.label[1], "B"));
    cml_compare_free(&c);
    /* A device beside the model alone: named by what they ran on. */
    b.model_only = 0;
    b.has_device = 1;
    snprintf(b.device.name, sizeof b.device.name, "NVIDIA H100 PCIe");
    CHECK(cml_compare_build(&c, &a, "a.json", &b, "b.json") == CML_OK);
    CHECK(!strcmp(c.label[0], "model only") && !strcmp(c.label[1], "NVIDIA H100 PCIe"));
    cml_compare_free(&c);
    cml_results_free(&a);
    cml_results_free(&b);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    cml_results a, b;
    if (!read_fixture("compare-a.json", &a) || !read_fixture("compare-b.json", &b)) {
        CHECK(0);
        return cml_test_summary("test_compare");
    }
    cml_comparison c;
    CHECK(cml_compare_build(&c, &a, "compare-a.json", &b, "compare-b.json") == CML_OK);
    test_fixtures(&c);
    test_terminal(&c);
    test_csv(&c);
    test_json(&c);
    test_html(&c);
    test_long_label(&c);
    cml_compare_free(&c);
    cml_results_free(&a);
    cml_results_free(&b);
    test_labels_and_repeats();
    return cml_test_summary("test_compare");
}
