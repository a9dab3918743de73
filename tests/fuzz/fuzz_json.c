/*
 * libFuzzer target for the JSON reader (src/report/json_read.c) and the
 * reporters behind it.
 *
 * Each input is parsed twice: as plain JSON into the tree (cml_jdoc_parse,
 * with the number conversions run on every value), and as a
 * "cumemlab-results" document (cml_results_from_json). What parses as
 * results is rendered in every format (terminal table, JSON, CSV, HTML),
 * and its JSON is read back and written again; the results are compared
 * with what was read back (report A.json B.json: src/report/compare.h) and
 * the comparison rendered in every format. Each input is also read as
 * report's inputs are (a fleet file or a results file: fleet.h) and what
 * reads is compared as a fleet and rendered in every format. Besides the
 * sanitizers' own
 * checks, it aborts when an invariant breaks:
 *   - an error is NUL-terminated, "line L, column C (byte B): ..." with B
 *     at most the input's length, whatever the buffer's size, and one line
 *     (control bytes of the input shown as '?');
 *   - every reporter returns CML_OK (or CML_ENOMEM) on a memory stream;
 *   - the JSON cumemlab writes reads back, and writing it again gives the
 *     same bytes (write -> read -> write is exact);
 *   - a run compared with itself read back matches every record with its
 *     twin (nothing only in one run, no counter or model figure differs);
 *   - the reader does not depend on the byte after the input (the input is
 *     copied into a buffer of exactly its size, so ASan sees any overread).
 *
 * The reporters draw an experiment by the rows they are handed
 * (cml_chart_plan_use_rows); the program hands them the registry's, which
 * lives with the GPU code, and this target rows of its own (at the end)
 * with one chart of each shape, under keys the seeds use.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/experiment.h"
#include "report/chart_plan.h"
#include "report/compare.h"
#include "report/fleet.h"
#include "report/html.h"
#include "report/json_read.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static void use_fuzz_rows(void);

/* Abort (a crash libFuzzer reports, with the input) unless cond holds. */
static void require(int cond)
{
    if (!cond)
        abort();
}

/* "line L, column C (byte B): " with B <= len; the message is one line. */
static void check_error(const char *err, size_t errlen, size_t len)
{
    require(memchr(err, '\0', errlen) != NULL);
    if (errlen < 64)
        return; /* cut short: only termination can be checked */
    unsigned long line = 0, col = 0, byte = 0;
    require(sscanf(err, "line %lu, column %lu (byte %lu): ", &line, &col, &byte) == 3);
    require(line >= 1 && col >= 1 && byte <= len);
    /* one line of text: control bytes quoted from the input are shown as '?'
     * (found by this target: input {"a\nb" 1} once gave two lines) */
    for (const char *q = err; *q; q++)
        require((unsigned char)*q >= 0x20 && *q != 0x7f);
}

/* A reporter into memory; NULL when it ran out of memory. */
static char *render(cml_report_fn fn, const cml_results *r, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    cml_status st = fn(f, r);
    require(fclose(f) == 0);
    require(st == CML_OK || st == CML_ENOMEM);
    if (st != CML_OK) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* A comparison's renderer (two runs', a fleet's) into memory (its text is
 * dropped). */
static void render_compare(cml_status (*fn)(FILE *, const void *), const void *c)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return;
    cml_status st = fn(f, c);
    require(fclose(f) == 0);
    require(st == CML_OK || st == CML_ENOMEM);
    free(buf);
}

/* The run against itself read back: every record matched with its twin. */
static void compare_twins(const cml_results *a, const cml_results *b)
{
    cml_comparison c;
    if (cml_compare_build(&c, a, "a.json", b, "b.json") != CML_OK)
        return;
    require(c.npairs == a->count);
    for (size_t i = 0; i < c.npairs; i++) {
        const cml_cmp_pair *p = &c.pairs[i];
        require(p->a && p->b && !strcmp(p->a->variant, p->b->variant));
        require(p->counters_differ == 0 && !p->model_differs);
    }
    render_compare(cml_compare_table, &c);
    render_compare(cml_compare_csv, &c);
    render_compare(cml_compare_json, &c);
    render_compare(cml_compare_html, &c);
    cml_compare_free(&c);
}

/* Every number of the tree through every conversion; strings checked to
 * be as long as they say. */
static void walk(const cml_jval *v, int depth)
{
    require(depth <= CML_JREAD_MAX_DEPTH + 1);
    uint64_t u;
    int64_t i;
    double d;
    switch (v->type) {
    case CML_J_NUMBER:
        (void)cml_jval_u64(v, &u);
        (void)cml_jval_i64(v, &i);
        (void)cml_jval_double(v, &d);
        break;
    case CML_J_STRING: require(strlen(v->text) == v->len); break;
    case CML_J_ARRAY:
        for (size_t k = 0; k < v->count; k++)
            walk(&v->items[k], depth + 1);
        break;
    case CML_J_OBJECT:
        for (size_t k = 0; k < v->count; k++) {
            require(cml_jobject_get(v, v->members[k].key) == &v->members[k].value);
            walk(&v->members[k].value, depth + 1);
        }
        break;
    default: break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    use_fuzz_rows();
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);

    /* The tree, with a full and a tiny error buffer. */
    char err[512], small[8];
    cml_jdoc *doc = NULL;
    memset(err, 0x55, sizeof err);
    cml_status st = cml_jdoc_parse(text, size, &doc, err, sizeof err);
    require(st == CML_OK || st == CML_EINVAL || st == CML_ENOMEM);
    if (st == CML_OK) {
        require(doc != NULL);
        walk(cml_jdoc_root(doc), 0);
        cml_jdoc_free(doc);
    } else {
        require(doc == NULL);
        if (st == CML_EINVAL)
            check_error(err, sizeof err, size);
        memset(small, 0x55, sizeof small);
        require(cml_jdoc_parse(text, size, &doc, small, sizeof small) == st);
        check_error(small, sizeof small, size);
    }

    /* As report's inputs: a fleet file or a results file, compared as a
     * fleet (at the default threshold and at the smallest) and rendered. */
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    memset(err, 0x55, sizeof err);
    st = cml_fleet_read_text(text, size, "f", &runs, err, sizeof err);
    require(st == CML_OK || st == CML_EINVAL || st == CML_ENOMEM);
    if (st == CML_EINVAL) {
        require(strncmp(err, "f: ", 3) == 0);
        check_error(err + 3, sizeof err - 3, size);
    }
    if (st == CML_OK) {
        require(runs.count >= 1);
        const double thresholds[] = {CML_FLEET_DEFAULT_THRESHOLD, CML_FLEET_MIN_THRESHOLD};
        for (size_t t = 0; t < 2; t++) {
            cml_fleet fl;
            if (cml_fleet_build(&fl, &runs, thresholds[t]) != CML_OK)
                continue;
            require(fl.ngpus == runs.count && fl.noutliers <= fl.ngpus);
            render_compare(cml_fleet_table, &fl);
            render_compare(cml_fleet_csv, &fl);
            render_compare(cml_fleet_json, &fl);
            render_compare(cml_fleet_html, &fl);
            cml_fleet_free(&fl);
        }
    } else {
        require(runs.count == 0);
    }
    cml_fleet_runs_free(&runs);

    /* The results. */
    cml_results r;
    memset(err, 0x55, sizeof err);
    st = cml_results_from_json(text, size, &r, err, sizeof err);
    require(st == CML_OK || st == CML_EINVAL || st == CML_ENOMEM);
    if (st == CML_EINVAL)
        check_error(err, sizeof err, size);
    if (st != CML_OK) {
        require(r.count == 0);
        cml_results_free(&r);
        free(text);
        return 0;
    }

    size_t n = 0;
    char *table = render(cml_report_table, &r, &n);
    char *csv = render(cml_report_csv, &r, &n);
    char *html = render(cml_report_html, &r, &n);
    size_t n1 = 0, n2 = 0;
    char *json1 = render(cml_report_json, &r, &n1);
    free(table);
    free(csv);
    free(html);

    /* write -> read -> write: the same bytes. */
    if (json1) {
        cml_results back;
        memset(err, 0x55, sizeof err);
        st = cml_results_from_json(json1, n1, &back, err, sizeof err);
        require(st == CML_OK || st == CML_ENOMEM);
        if (st == CML_OK) {
            require(back.count == r.count);
            compare_twins(&r, &back);
            char *json2 = render(cml_report_json, &back, &n2);
            if (json2) {
                require(n1 == n2 && memcmp(json1, json2, n1) == 0);
                free(json2);
            }
        }
        cml_results_free(&back);
        free(json1);
    }
    cml_results_free(&r);
    free(text);
    return 0;
}

/* ------------------------------------------------------------------ */
/* A registry of the fuzzer's own                                     */
/* ------------------------------------------------------------------ */

static const char *const fuzz_extra_names[] = { "h2d_gbs", "d2h_gbs", NULL };
static const char *const fuzz_extra_legend[] = { "host to device", "device to host", NULL };

static const cml_chart_spec fuzz_sweep[] = {
    { .shape = CML_PLOT_SWEEP, .title = "Measured bandwidth vs offset", .xparam = "offset",
      .xname = "offset", .xlabel = "offset (floats)", .xscale = CML_SCALE_LINEAR,
      .ylabel = "bandwidth (GB/s)", .series_param = "path",
      .m = { { "measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0 },
             { "modern", CML_METRIC_EFF_MODERN, NULL, "under the modern rules", 0 } },
      .what = "bandwidth", .unit = "GB/s", .describe = 1 },
    { .shape = CML_PLOT_SWEEP, .title = "Sectors per request vs size", .xparam = "n",
      .xname = "n", .xlabel = "elements", .xscale = CML_SCALE_LOG2, .xfmt = CML_FMT_BYTES,
      .ylabel = "sectors", .without_param = "block",
      .m = { { "modern", CML_METRIC_SPR_MODERN, NULL, NULL, 0 } }, .what = "sectors per request",
      .unit = "", .describe = 1 },
};

static const cml_chart_spec fuzz_bars[] = {
    { .shape = CML_PLOT_BARS, .title = "Bank conflicts", .ylabel = "conflicts per request",
      .series_param = "stride", .only_param = "path", .only_label = "ca",
      .m = { { "modern", CML_METRIC_SHARED_CONFLICTS, NULL, NULL, 0 } }, .what = "conflicts",
      .unit = "", .describe = 1 },
    { .shape = CML_PLOT_BARS, .title = "Occupancy", .ylabel = "%", .yfmt = CML_FMT_PERCENT,
      .m = { { "achieved", CML_METRIC_OCCUPANCY, NULL, NULL, 0 } }, .what = "occupancy",
      .unit = "%", .describe = 1 },
};

static const cml_chart_spec fuzz_extras[] = {
    { .shape = CML_PLOT_EXTRAS, .title = "Transfer bandwidth", .ylabel = "GB/s",
      .yfmt = CML_FMT_NUMBER, .extra_names = fuzz_extra_names,
      .extra_legend = fuzz_extra_legend, .ignore_param = "bytes", .what = "bandwidth",
      .unit = "GB/s" },
};

static const cml_experiment fuzz_rows[] = {
    { .key = "read-offset", .title = "Misaligned reads", .charts = fuzz_sweep,
      .ncharts = sizeof fuzz_sweep / sizeof fuzz_sweep[0] },
    { .key = "shared-banks", .title = "Shared-memory banks", .charts = fuzz_bars,
      .ncharts = sizeof fuzz_bars / sizeof fuzz_bars[0] },
    { .key = "transfers", .title = "Host-device transfers", .charts = fuzz_extras,
      .ncharts = sizeof fuzz_extras / sizeof fuzz_extras[0] },
};

static const cml_experiment *const fuzz_table[] = {&fuzz_rows[0], &fuzz_rows[1], &fuzz_rows[2]};

/* The reporters' rows; other keys get the planner's fallback charts. */
static void use_fuzz_rows(void)
{
    cml_chart_plan_use_rows(fuzz_table, sizeof fuzz_table / sizeof fuzz_table[0]);
}
