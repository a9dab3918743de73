/*
 * What makes the report faster to read, on the CPU, with figures made by
 * hand: text cut at word boundaries (cml_text_cut_words, a finding too long
 * for its field, a finding cut short in a file of cumemlab 0.1.0), the rule
 * for a value axis's range (chart_range.h) and how a chart marks the 0 it
 * leaves out, every extra figure of a record read (not only the first
 * eight), and the one-screen summary (summary.h): which figure each
 * experiment is compared by, its best and worst variant, their ratio, the
 * finding it shows, and the terminal's layout (one screen for 18
 * experiments, nothing cut mid-word).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/chart_range.h"
#include "report/html.h"
#include "report/html_tables.h"
#include "report/record_metrics.h"
#include "report/report.h"
#include "report/report_util.h"
#include "report/summary.h"
#include "report/svg_chart.h"
#include "test_util.h"

static FILE *mem_open(char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (!f) {
        perror("open_memstream");
        exit(2);
    }
    return f;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + k, needle))
        n++;
    return n;
}

/* ------------------------------------------------------------------ */
/* Text cut at word boundaries                                        */
/* ------------------------------------------------------------------ */

static void check_cut(const char *src, size_t cap, size_t max, const char *want, int want_cut)
{
    char buf[256];
    memset(buf, 'x', sizeof buf);
    int cut = cml_text_cut_words(buf, cap, src, max);
    CHECK_EQ_I64(cut, want_cut);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "  cut \"%s\" (cap %zu, max %zu): got \"%s\", want \"%s\"\n", src, cap,
                max, buf, want);
    CHECK(strcmp(buf, want) == 0);
}

static void test_cut_words(void)
{
    check_cut("hello world foo", 64, 20, "hello world foo", 0);
    /* room for 13 characters and the dots: "the next warp's" is 15 */
    check_cut("the next warp's first sector", 64, 16, "the next...", 1);
    /* no space at all: cut between characters */
    check_cut("abcdefghijklmnop", 64, 10, "abcdefg...", 1);
    /* a long word after a short one: cut inside it rather than keep 6 of 17 */
    check_cut("label: a_very_long_metric_name", 64, 20, "label: a_very_lon...", 1);
    /* characters, not bytes: "cafe" with an e-acute is 4 characters */
    check_cut("caf\xc3\xa9 au lait", 64, 7, "caf\xc3\xa9...", 1);
    /* the buffer is the limit: 8 bytes hold "hell" and the dots */
    check_cut("hello world", 8, 100, "hell...", 1);
    /* no separator left before the dots */
    check_cut("one, two three", 64, 10, "one...", 1);
    check_cut("ends here. And more words", 64, 14, "ends here...", 1);
    /* too small for anything */
    check_cut("hello", 3, 100, "", 1);

    /* A finding longer than its field loses whole words. */
    cml_record rec;
    memset(&rec, 0, sizeof rec);
    char text[1600];
    size_t n = 0;
    while (n + 12 < sizeof text) {
        memcpy(text + n, "sector word ", 12);
        n += 12;
    }
    text[n] = '\0';
    cml_record_finding(&rec, "%s", text);
    size_t len = strlen(rec.finding);
    CHECK(len < sizeof rec.finding && len > sizeof rec.finding - 20);
    CHECK(!strcmp(rec.finding + len - 3, "..."));
    /* what precedes the dots is a prefix of the text that ends a word */
    CHECK(!strncmp(rec.finding, text, len - 3) && text[len - 3] == ' ');
    /* and a sentence that fits is kept whole */
    cml_record_finding(&rec, "Offset %d costs one more sector.", 11);
    CHECK(!strcmp(rec.finding, "Offset 11 costs one more sector."));
}

/* A finding of exactly 383 bytes that does not end a sentence was cut by
 * the field of cumemlab 0.1.0: shown up to its last whole word. */
static void test_legacy_finding(void)
{
    char f[CML_REP_FINDING_V1_MAX + 1], out[1024];
    memset(f, 'a', sizeof f);
    const char *tail = " is the next warp's fi";
    memcpy(f + CML_REP_FINDING_V1_MAX - strlen(tail), tail, strlen(tail));
    f[CML_REP_FINDING_V1_MAX] = '\0';
    CHECK_EQ_I64(cml_rep_finding_text(f, out, sizeof out), 1);
    size_t n = strlen(out);
    CHECK(n == CML_REP_FINDING_V1_MAX - 3 && !strcmp(out + n - 15, "the next warp's"));
    /* the same length ending a sentence: whole */
    f[CML_REP_FINDING_V1_MAX - 1] = '.';
    CHECK_EQ_I64(cml_rep_finding_text(f, out, sizeof out), 0);
    CHECK(!strcmp(out, f));
    /* any other length: whole */
    CHECK_EQ_I64(cml_rep_finding_text("the next warp's fi", out, sizeof out), 0);
    CHECK(!strcmp(out, "the next warp's fi"));

    /* The table and the HTML mark it. */
    f[CML_REP_FINDING_V1_MAX - 1] = 'i';
    cml_results r;
    cml_results_init(&r);
    cml_record *rec = cml_results_add(&r, "mystery", "v");
    snprintf(rec->finding, sizeof rec->finding, "%s", f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = mem_open(&buf, &len);
    CHECK(cml_report_table(m, &r) == CML_OK);
    fclose(m);
    CHECK_STR_CONTAINS(buf, "\n  is the next warp's...\n");
    CHECK(strstr(buf, "warp's fi") == NULL);
    free(buf);
    m = mem_open(&buf, &len);
    CHECK(cml_report_html(m, &r) == CML_OK);
    fclose(m);
    CHECK_STR_CONTAINS(buf, "the next warp&#39;s<span class=\"cut\" title=\"the file holds only "
                            "the first 383 bytes of this finding\">&hellip;</span>");
    CHECK(strstr(buf, "warp&#39;s fi") == NULL);
    free(buf);
    cml_results_free(&r);
}

/* ------------------------------------------------------------------ */
/* The range of a value axis                                          */
/* ------------------------------------------------------------------ */

static void check_range(double lo, double hi, int from_zero, int zoom, double want_lo,
                        double want_hi, double want_step, int want_broken)
{
    cml_axis_range a;
    cml_axis_range_choose(lo, hi, from_zero, zoom, 7, &a);
    if (fabs(a.lo - want_lo) > 1e-9 || fabs(a.hi - want_hi) > 1e-9 ||
        fabs(a.step - want_step) > 1e-9 || a.broken != want_broken)
        fprintf(stderr, "  range [%g, %g] zero %d zoom %d: got %g..%g step %g broken %d\n", lo, hi,
                from_zero, zoom, a.lo, a.hi, a.step, a.broken);
    CHECK_NEAR(a.lo, want_lo, 1e-9);
    CHECK_NEAR(a.hi, want_hi, 1e-9);
    CHECK_NEAR(a.step, want_step, 1e-9);
    CHECK_EQ_I64(a.broken, want_broken);
    CHECK(a.nticks >= 2 && a.nticks <= 7);
    CHECK_NEAR(a.ticks[0], a.lo, 1e-9);
    CHECK_NEAR(a.ticks[a.nticks - 1], a.hi, 1e-9);
}

static void test_axis_range(void)
{
    /* Bandwidth within 3%: from 2540.7 - (2620 - 2540.7) / 4 = 2520.9,
     * down to the tick 2520, in steps of 20. */
    check_range(2540.7, 2620, 1, 1, 2520, 2620, 20, 1);
    /* Not asked to zoom: from 0 (ticks of 500 up to 3000). */
    check_range(2540.7, 2620, 1, 0, 0, 3000, 500, 0);
    /* Values far apart: from 0 all the same. */
    check_range(100, 2620, 1, 1, 0, 3000, 500, 0);
    /* Exactly 15% apart: zoomed (85 - 15/4 = 81.25, ticks of 5 from 80). */
    check_range(85, 100, 1, 1, 80, 100, 5, 1);
    /* Just over 15%: from 0 (ticks of 20). */
    check_range(84.9, 100, 1, 1, 0, 100, 20, 0);
    /* All equal: 5% either side (950..1050 -> 940..1060, ticks of 20). */
    check_range(1000, 1000, 1, 1, 940, 1060, 20, 1);
    /* Small values: 10..11 -> from 9.75 -> 9.5, ticks of 0.5. */
    check_range(10, 11, 1, 1, 9.5, 11, 0.5, 1);
    /* Negative values never zoom; an axis not from 0 keeps its data range. */
    check_range(-5, -4, 1, 1, -5, 0, 1, 0);
    check_range(2540, 2620, 0, 0, 2540, 2620, 20, 0);
}

/* A categorical axis (CML_FMT_WHOLE): ticks at whole numbers only. */
static void check_whole(double lo, double hi, size_t max, double want_lo, double want_hi,
                        double want_step)
{
    cml_axis_range a;
    cml_axis_range_whole(lo, hi, max, &a);
    CHECK_NEAR(a.lo, want_lo, 0);
    CHECK_NEAR(a.hi, want_hi, 0);
    CHECK_NEAR(a.step, want_step, 0);
    CHECK(a.nticks >= 2 && a.nticks <= max);
    for (size_t i = 0; i < a.nticks; i++)
        CHECK(a.ticks[i] == floor(a.ticks[i]) && a.ticks[i] == want_lo + (double)i * want_step);
}

static void test_axis_whole(void)
{
    /* The hierarchy's levels: 1 .. 3, with the edges 1.5 and 2.5 between
     * ticks, never ticks of their own. */
    check_whole(1, 3, 7, 1, 3, 1);
    check_whole(1.5, 2.5, 7, 1, 3, 1);
    check_whole(1, 4, 7, 1, 4, 1);
    /* One level: a tick either side of it. */
    check_whole(2, 2, 7, 2, 3, 1);
    /* More categories than ticks: every k-th (1, 8, ..., 43 for 1..40). */
    check_whole(1, 40, 7, 1, 43, 7);
    /* Nothing a category can be: the ordinary axis, finite. */
    cml_axis_range a;
    cml_axis_range_whole(-1e300, 1e300, 7, &a);
    CHECK(a.nticks >= 2 && isfinite(a.lo) && isfinite(a.hi));
}

static char *svg_of(const cml_chart *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    CHECK(cml_chart_svg(f, c) == CML_OK);
    fclose(f);
    return buf;
}

/* A bar chart of close bandwidths starts near them and says so; the same
 * chart not asked to zoom starts at 0. */
static void test_chart_break(void)
{
    cml_chart c;
    cml_chart_init(&c, CML_CHART_BAR, "bandwidth", "", "GB/s");
    cml_chart_series *s = cml_chart_add_series(&c, "measured");
    cml_chart_add_point(s, (double)cml_chart_category(&c, "offset=0"), 2620);
    cml_chart_add_point(s, (double)cml_chart_category(&c, "offset=11"), 2540.7);
    c.y.zoom = 1;
    char *svg = svg_of(&c);
    CHECK_STR_CONTAINS(svg, ">y axis starts at 2520, not 0</text>");
    CHECK(count(svg, "<g class=\"axis-break\">") == 1);
    CHECK_STR_CONTAINS(svg, "text-anchor=\"end\">2520</text>");
    CHECK(strstr(svg, ">0</text>") == NULL);
    free(svg);
    c.y.zoom = 0;
    svg = svg_of(&c);
    CHECK(strstr(svg, "axis starts at") == NULL && strstr(svg, "axis-break") == NULL);
    CHECK_STR_CONTAINS(svg, "text-anchor=\"end\">0</text>");
    free(svg);
    cml_chart_free(&c);
}

/* ------------------------------------------------------------------ */
/* Every extra figure                                                 */
/* ------------------------------------------------------------------ */

static void test_all_extras(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *rec = cml_results_add(&r, "mystery", "v");
    for (int k = 0; k < 12; k++) {
        char name[16];
        snprintf(name, sizeof name, "e%d", k);
        cml_record_add_extra(rec, name, 100 + k, "B");
    }
    CHECK_EQ_U64(cml_rep_nextra(rec), 12);
    CHECK_NEAR(cml_rep_metric(rec, CML_METRIC_EXTRA, "e11"), 111, 0);
    CHECK_NEAR(cml_rep_metric(rec, CML_METRIC_EXTRA, "e8"), 108, 0);
    const cml_record *one = rec;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    cml_html_records_tables(f, &one, 1, "mystery");
    fclose(f);
    CHECK_STR_CONTAINS(buf, "<th scope=\"col\">e11 (B)</th>");
    CHECK_STR_CONTAINS(buf, "<td>111</td>");
    free(buf);
    cml_results_free(&r);
}

/* ------------------------------------------------------------------ */
/* The summary                                                        */
/* ------------------------------------------------------------------ */

static cml_record *measured(cml_results *r, const char *exp, const char *variant, double gbs,
                            double ms, uint64_t bytes)
{
    cml_record *rec = cml_results_add(r, exp, variant);
    rec->measured = 1;
    rec->verify = CML_VERIFY_PASSED;
    rec->bandwidth_gbs = gbs;
    rec->timing.median_ms = ms;
    rec->bytes_read = bytes;
    return rec;
}

/* A model-only record of efficiency eff (requested / moved bytes). */
static cml_record *modelled(cml_results *r, const char *exp, int64_t stride, double eff)
{
    char v[32];
    snprintf(v, sizeof v, "stride=%lld", (long long)stride);
    cml_record *rec = cml_results_add(r, exp, v);
    cml_record_add_param(rec, "pattern", 0, "stride");
    cml_record_add_param(rec, "stride", stride, "");
    rec->has_model = 1;
    for (int rules = 0; rules < (int)CML_RULES_COUNT; rules++) {
        cml_traffic *t = &rec->model[rules].cls[CML_CLASS_GLOBAL_LD];
        t->instructions = t->requests = 100;
        t->sectors = (uint64_t)(400 / eff);
        t->efficiency_bytes = 12800 * (uint64_t)(1 / eff);
        t->requested_bytes = 12800;
    }
    return rec;
}

static const cml_summary_row *row_of(const cml_summary *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->rows[i].experiment, key))
            return &s->rows[i];
    return NULL;
}

static void test_summary_rows(void)
{
    cml_results r;
    cml_results_init(&r);
    /* read-offset, measured: by bandwidth (its first chart). */
    const int64_t offs[] = {0, 11, 32};
    const double gbs[] = {2620, 2540, 2600};
    for (int i = 0; i < 3; i++) {
        char v[32];
        snprintf(v, sizeof v, "offset=%lld", (long long)offs[i]);
        cml_record *rec = measured(&r, "read-offset", v, gbs[i], 0.1, 1 << 24);
        cml_record_add_param(rec, "offset", offs[i], "");
        cml_record_add_param(rec, "path", 0, "ca");
        if (i == 2)
            cml_record_finding(rec, "The sweep's sentence.");
    }
    /* constant: the serial records by time (its first measured chart),
     * the stencil's bandwidth left aside. */
    const int64_t ks[] = {1, 32};
    for (int i = 0; i < 2; i++) {
        char v[32];
        snprintf(v, sizeof v, "k=%lld", (long long)ks[i]);
        cml_record *rec = measured(&r, "constant", v, 10, 0.010 * (1 + 3 * i), 1 << 24);
        cml_record_add_param(rec, "pattern", 0, "serial");
        cml_record_add_param(rec, "k", ks[i], "");
        cml_record_finding(rec, "k = %lld: serialized %lld times.", (long long)ks[i],
                           (long long)ks[i]);
    }
    cml_record *st = measured(&r, "constant", "coef=constant", 3000, 0.001, 1 << 24);
    cml_record_add_param(st, "pattern", 0, "stencil");
    /* stride, model only: by the modern efficiency. */
    modelled(&r, "stride", 1, 1.0);
    modelled(&r, "stride", 8, 0.125);
    modelled(&r, "stride", 2, 0.5);
    /* unknown to the registry: bandwidth when enough bytes move... */
    measured(&r, "mystery", "fast", 500, 1, 1 << 20);
    measured(&r, "mystery", "slow", 250, 2, 1 << 20);
    /* ... time when they do not (a one-thread kernel) */
    measured(&r, "tiny", "plain", 0.0004, 0.019, 8);
    measured(&r, "tiny", "constant", 0.0005, 0.017, 8);
    /* one record: nothing to compare */
    cml_record *lone = cml_results_add(&r, "alone", "only");
    cml_record_finding(lone, "Nothing to compare.");

    cml_summary s;
    CHECK(cml_summary_build(&r, &s) == CML_OK);
    CHECK_EQ_U64(s.n, 6);
    const cml_summary_row *w = row_of(&s, "read-offset");
    CHECK(w && w->metric == CML_METRIC_BANDWIDTH && w->higher_is_better);
    CHECK(w && w->best == &r.items[0] && w->worst == &r.items[1]);
    CHECK(w && !strcmp(w->best_name, "offset=0") && !strcmp(w->worst_name, "offset=11"));
    CHECK_NEAR(w ? w->ratio : 0, 2620.0 / 2540.0, 1e-12);
    /* offset 11 has no sentence: the next one after it explains */
    CHECK(w && w->explained == &r.items[2]);

    w = row_of(&s, "constant");
    CHECK(w && w->metric == CML_METRIC_TIME_US && !w->higher_is_better && w->compared == 2);
    CHECK_NEAR(w ? w->best_value : 0, 10, 1e-9);
    CHECK_NEAR(w ? w->worst_value : 0, 40, 1e-9);
    CHECK_NEAR(w ? w->ratio : 0, 4, 1e-12);
    CHECK(w && !strcmp(w->best_name, "k=1") && !strcmp(w->worst_name, "k=32"));
    CHECK(w && w->explained == &r.items[4]);

    w = row_of(&s, "stride");
    CHECK(w && w->metric == CML_METRIC_EFF_MODERN && w->higher_is_better);
    CHECK_NEAR(w ? w->best_value : 0, 100, 1e-9);
    CHECK_NEAR(w ? w->worst_value : 0, 12.5, 1e-9);
    CHECK_NEAR(w ? w->ratio : 0, 8, 1e-12);
    CHECK(w && !strcmp(w->worst_name, "stride=8"));

    w = row_of(&s, "mystery");
    CHECK(w && w->metric == CML_METRIC_BANDWIDTH);
    CHECK_NEAR(w ? w->ratio : 0, 2, 1e-12);
    CHECK(w && !strcmp(w->best_name, "fast"));
    w = row_of(&s, "tiny");
    CHECK(w && w->metric == CML_METRIC_TIME_US);
    CHECK(w && !strcmp(w->best_name, "constant") && !strcmp(w->worst_name, "plain"));
    CHECK_NEAR(w ? w->ratio : 0, 19.0 / 17.0, 1e-12);
    w = row_of(&s, "alone");
    CHECK(w && w->metric == CML_METRIC_NONE && !w->best && isnan(w->ratio));
    CHECK(w && w->explained == lone);

    /* The terminal: a row each, the findings on lines of their own (there
     * is room for them: 6 experiments). */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    cml_summary_print(f, &s, 130, 30);
    fclose(f);
    CHECK_STR_CONTAINS(buf, "\nexperiment   by       best             worst             ratio\n"
                            "-----------  -------  ---------------  ----------------  -----\n"
                            "read-offset  GB/s     2620.0 offset=0  2540.0 offset=11  1.03x\n"
                            "    The sweep's sentence.\n"
                            "constant     time us  10.0 k=1         40.0 k=32         4.00x\n"
                            "    k = 32: serialized 32 times.\n"
                            "stride       eff %    100.0 stride=1   12.5 stride=8     8.00x\n"
                            "mystery      GB/s     500.0 fast       250.0 slow        2.00x\n"
                            "tiny         time us  17.0 constant    19.0 plain        1.12x\n"
                            "alone        -        -                -                     -\n"
                            "    Nothing to compare.\n");
    /* nothing was cut: no note */
    CHECK(strstr(buf, "findings cut") == NULL);
    free(buf);
    cml_summary_free(&s);
    cml_results_free(&r);
}

/* A run on the model alone: every experiment by a figure of the model,
 * also those whose charts draw only measured ones (the fallback to the
 * model's efficiency) and those whose model figure is an extra with a
 * declared direction; labelled by what the chart calls it. */
static void test_summary_model_only(void)
{
    cml_results r;
    cml_results_init(&r);
    r.model_only = 1;
    /* transpose charts measured bandwidth alone */
    modelled(&r, "transpose", 1, 1.0);
    modelled(&r, "transpose", 32, 0.125);
    /* unroll's bytes in flight: higher is better */
    static const double flight[] = {8, 128, 32};
    for (int i = 0; i < 3; i++) {
        char v[32];
        snprintf(v, sizeof v, "unroll=%d", 1 << i);
        cml_record *rec = cml_results_add(&r, "unroll", v);
        cml_record_add_param(rec, "unroll", 1 << i, "");
        cml_record_add_extra(rec, "bytes_in_flight_per_thread", flight[i], "B");
    }
    /* shuffle's shared wavefronts per block: lower is better */
    static const char *const ops[] = {"reduce-smem", "reduce-shfl"};
    static const double wf[] = {45, 9};
    for (int i = 0; i < 2; i++) {
        cml_record *rec = cml_results_add(&r, "shuffle", ops[i]);
        cml_record_add_param(rec, "op", i, ops[i]);
        cml_record_add_extra(rec, "smem_wavefronts_per_block", wf[i], "");
    }
    /* device-vars: two variants with the same efficiency name both */
    cml_record *a = modelled(&r, "device-vars", 1, 0.125);
    cml_record *b = modelled(&r, "device-vars", 2, 0.125);

    cml_summary s;
    CHECK(cml_summary_build(&r, &s) == CML_OK);
    const cml_summary_row *w = row_of(&s, "transpose");
    CHECK(w && w->metric == CML_METRIC_EFF_MODERN);
    CHECK_NEAR(w ? w->ratio : 0, 8, 1e-12);
    w = row_of(&s, "unroll");
    CHECK(w && w->metric == CML_METRIC_EXTRA && w->higher_is_better);
    CHECK(w && !strcmp(cml_summary_row_label(w), "bytes in flight"));
    CHECK_NEAR(w ? w->best_value : 0, 128, 1e-12);
    CHECK_NEAR(w ? w->ratio : 0, 16, 1e-12);
    CHECK(w && !strcmp(w->best_name, "unroll=2") && !strcmp(w->worst_name, "unroll=1"));
    w = row_of(&s, "shuffle");
    CHECK(w && w->metric == CML_METRIC_EXTRA && !w->higher_is_better);
    CHECK(w && !strcmp(cml_summary_row_label(w), "shared wavefronts"));
    CHECK(w && !strcmp(w->best_name, "reduce-shfl") && !strcmp(w->worst_name, "reduce-smem"));
    CHECK_NEAR(w ? w->ratio : 0, 5, 1e-12);
    w = row_of(&s, "device-vars");
    CHECK(w && w->metric == CML_METRIC_EFF_MODERN && w->best == a && w->worst == b);
    CHECK_NEAR(w ? w->ratio : 0, 1, 1e-12);
    /* none of them "-" */
    for (size_t i = 0; i < s.n; i++)
        CHECK(s.rows[i].metric != CML_METRIC_NONE);
    cml_summary_free(&s);
    cml_results_free(&r);
}

/* 18 experiments with long findings: one screen (at most 30 lines, none
 * over 130 columns), a row each, findings cut at a word boundary. */
static void test_summary_one_screen(void)
{
    cml_results r;
    cml_results_init(&r);
    const char *finding = "Each request touches 32.00 sectors of 32 B for 128 useful bytes (at "
                          "least 4.00 needed): 12.5% of the fetched bytes are used, because the "
                          "lanes' bytes are spread over more sectors than they fill.";
    for (int e = 0; e < 18; e++) {
        char key[32];
        snprintf(key, sizeof key, "experiment-%02d", e);
        measured(&r, key, "variant fast", 2000 + e, 1, 1 << 24);
        cml_record *slow = measured(&r, key, "variant slow", 1000, 2, 1 << 24);
        cml_record_finding(slow, "%s", finding);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open(&buf, &len);
    CHECK(cml_report_table(f, &r) == CML_OK);
    fclose(f);
    const char *start = strstr(buf, "\nSummary: ");
    const char *end = start ? strstr(start + 1, "\n\n") : NULL;
    CHECK(start && end);
    if (!start || !end) {
        free(buf);
        cml_results_free(&r);
        return;
    }
    size_t lines = 0, rows = 0, cut = 0;
    for (const char *p = start + 1; p <= end;) {
        const char *nl = strchr(p, '\n');
        size_t w = (size_t)(nl - p);
        CHECK(w <= 130);
        lines++;
        if (!strncmp(p, "experiment-", 11)) {
            rows++;
            /* the finding ends the row: a prefix of it that ends a word */
            const char *fs = strstr(p, "Each request");
            CHECK(fs && fs < nl);
            if (fs && fs < nl && nl - fs > 3 && !strncmp(nl - 3, "...", 3)) {
                size_t keep = (size_t)(nl - 3 - fs);
                CHECK(!strncmp(fs, finding, keep));
                CHECK(finding[keep] == ' ' || finding[keep] == ',' || finding[keep] == '(');
                cut++;
            }
        }
        p = nl + 1;
    }
    CHECK(lines <= 30);
    CHECK_EQ_U64(rows, 18);
    CHECK_EQ_U64(cut, 18);
    CHECK_STR_CONTAINS(start, "(findings cut to fit: each in full under its experiment below)");
    CHECK_STR_CONTAINS(start, "\nexperiment-17  GB/s  2017.0 variant fast  1000.0 variant slow  2.02x  "
                              "Each request");
    free(buf);
    cml_results_free(&r);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_cut_words();
    test_legacy_finding();
    test_axis_range();
    test_chart_break();
    test_all_extras();
    test_axis_whole();
    test_summary_rows();
    test_summary_model_only();
    test_summary_one_screen();
    return cml_test_summary("test_summary");
}
