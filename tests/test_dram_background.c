/*
 * The DRAM background control in a results file (core/dram_background.h,
 * docs/json-schema.md "dram_background"): written only where validate
 * measured it, read back exactly and written again the same; every value a
 * file cannot hold (a length of 0 or over a minute, negative or missing
 * bytes, too many controls, a wrong type) refused with one line naming the
 * member where it stands.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_read.h"
#include "report/report.h"
#include "report_test_util.h"
#include "test_util.h"

static char *render_json(const cml_results *r)
{
    cml_status st;
    char *text = render_to_memory(cml_report_json, r, NULL, &st);
    CHECK(st == CML_OK && text != NULL);
    return text;
}

static void test_round_trip(void)
{
    cml_results r, back;
    cml_results_init(&r);
    r.model_only = 1;
    char *none = render_json(&r);
    CHECK(strstr(none, "dram_background") == NULL); /* other files stay as they were */
    free(none);
    cml_dram_background bg = {.n = 3,
                              .ms = {10, 50, 200},
                              .read_bytes = {81920, 300000, 1.6e6},
                              .write_bytes = {0, 262144, 3670016}};
    r.background = bg;
    char *j1 = render_json(&r);
    CHECK_STR_CONTAINS(j1, "\"dram_background\": {");
    /* (3670016 - 262144) / 200 and (1600000 - 262144) / 200: the 10 ms
     * control's 81920 read are under the fixed part. */
    CHECK_STR_CONTAINS(j1, "\"write_bytes_per_ms\": 17039.36");
    CHECK_STR_CONTAINS(j1, "\"read_bytes_per_ms\": 6689.28");
    char err[640] = "";
    CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
    CHECK_EQ_U64(back.background.n, 3);
    CHECK(back.background.ms[2] == 200 && back.background.write_bytes[2] == 3670016);
    CHECK(back.background.read_bytes[0] == 81920);
    char *j2 = render_json(&back);
    CHECK(strcmp(j1, j2) == 0);
    CHECK(strstr(j1, "stream_controls") == NULL); /* only where measured */
    free(j1);
    free(j2);
    cml_results_free(&back);

    /* With stream controls: 40000 - 17039.36 x 0.05 = 39148.032 and
     * 30000 - 17039.36 x 0.04 = 29318.4257 beyond the rate: the larger. */
    r.background.stream_n = 2;
    r.background.stream_ms[0] = 0.05;
    r.background.stream_ms[1] = 0.04;
    r.background.stream_read_bytes[0] = 1.5e8;
    r.background.stream_read_bytes[1] = 1.6e8;
    r.background.stream_write_bytes[0] = 40000;
    r.background.stream_write_bytes[1] = 30000;
    j1 = render_json(&r);
    CHECK_STR_CONTAINS(j1, "\"stream_controls\": [");
    CHECK_STR_CONTAINS(j1, "\"dirty_write_bytes\": 39148.032");
    CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
    CHECK_EQ_U64(back.background.stream_n, 2);
    CHECK(back.background.stream_ms[1] == 0.04 && back.background.stream_read_bytes[1] == 1.6e8);
    CHECK(back.background.stream_write_bytes[0] == 40000);
    j2 = render_json(&back);
    CHECK(strcmp(j1, j2) == 0);
    free(j1);
    free(j2);
    cml_results_free(&back);
    cml_results_free(&r);
}

/* A document whose dram_background is `bg`: refused, the error at `at`
 * (the first occurrence of it) and saying `what`. */
static void expect_refused(const char *bg, const char *at, const char *what)
{
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"schema\": \"cumemlab-results\", \"schema_version\": 1, \"tool_version\": "
             "\"x\",\n \"command_line\": \"x\", \"model_only\": false, \"device\": null, "
             "\"peak_gbs\": null,\n \"diagnostics\": [],\n \"dram_background\": %s,\n "
             "\"records\": []}",
             bg);
    cml_results r;
    char err[640] = "";
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_EINVAL);
    const char *p = strstr(doc, "\"dram_background\": ");
    p = p ? strstr(p + 19, at) : NULL;
    size_t line, col;
    const size_t off = p ? (size_t)(p - doc) : 0;
    cml_jtext_position(doc, strlen(doc), off, &line, &col);
    char where[96];
    snprintf(where, sizeof where, "line %zu, column %zu (byte %zu): ", line, col, off);
    cml_test_checks++;
    if (!p || strncmp(err, where, strlen(where)) != 0 || !strstr(err, what) ||
        strchr(err, '\n')) {
        cml_test_failures++;
        fprintf(stderr, "dram_background %s: \"%s\", expected \"%s...%s\"\n", bg, err, where,
                what);
    }
    cml_results_free(&r);
}

static void test_hostile(void)
{
    expect_refused("[]", "[]", "dram_background: expected an object or null");
    expect_refused("{}", "{}", "missing member \"controls\"");
    expect_refused("{\"controls\": 3}", "3", "dram_background.controls: expected an array");
    expect_refused("{\"controls\": [1]}", "1", "controls[0]: expected an object");
    expect_refused("{\"controls\": [{\"ms\": 10, \"read_bytes\": 5}]}", "{\"ms\"",
                   "controls[0]: missing member \"write_bytes\"");
    expect_refused("{\"controls\": [{\"ms\": \"10\", \"read_bytes\": 5, \"write_bytes\": 0}]}",
                   "\"10\"", "controls[0].ms: expected a number");
    expect_refused("{\"controls\": [{\"ms\": 0, \"read_bytes\": 5, \"write_bytes\": 0}]}",
                   "{\"ms\"", "dram_background.controls[0].ms: out of range");
    expect_refused("{\"controls\": [{\"ms\": 60001, \"read_bytes\": 5, \"write_bytes\": 0}]}",
                   "{\"ms\"", "controls[0].ms: out of range");
    expect_refused("{\"controls\": [{\"ms\": 5, \"read_bytes\": 5, \"write_bytes\": 0}, "
                   "{\"ms\": 5, \"read_bytes\": -1, \"write_bytes\": 0}]}",
                   "{\"ms\": 5, \"read_bytes\": -1", "controls[1].read_bytes: out of range");
    expect_refused("{\"controls\": [{\"ms\": 5, \"read_bytes\": 1e999, \"write_bytes\": 0}]}",
                   "1e999", "controls[0].read_bytes: expected a number");
    char many[1024] = "{\"controls\": [";
    for (int i = 0; i < CML_DRAM_BACKGROUND_MAX + 1; i++)
        strcat(many, i ? ", {\"ms\": 1, \"read_bytes\": 0, \"write_bytes\": 0}"
                       : "{\"ms\": 1, \"read_bytes\": 0, \"write_bytes\": 0}");
    strcat(many, "]}");
    expect_refused(many, "[", "9 controls, at most 8");

    /* The stream controls: the same rules under their own name. */
    const char *ok = "{\"controls\": [{\"ms\": 5, \"read_bytes\": 5, \"write_bytes\": 0}], ";
    char doc_s[1200];
    snprintf(doc_s, sizeof doc_s, "%s\"stream_controls\": {}}", ok);
    expect_refused(doc_s, "{}}", "dram_background.stream_controls: expected an array");
    snprintf(doc_s, sizeof doc_s, "%s\"stream_controls\": [true]}", ok);
    expect_refused(doc_s, "true", "stream_controls[0]: expected an object");
    snprintf(doc_s, sizeof doc_s,
             "%s\"stream_controls\": [{\"ms\": 0.05, \"write_bytes\": 0}]}", ok);
    expect_refused(doc_s, "{\"ms\": 0.05", "stream_controls[0]: missing member \"read_bytes\"");
    snprintf(doc_s, sizeof doc_s,
             "%s\"stream_controls\": [{\"ms\": 0.05, \"read_bytes\": 1, \"write_bytes\": "
             "-3}]}",
             ok);
    expect_refused(doc_s, "{\"ms\": 0.05", "stream_controls[0].write_bytes: out of range");
    snprintf(doc_s, sizeof doc_s,
             "%s\"stream_controls\": [{\"ms\": -1, \"read_bytes\": 1, \"write_bytes\": 3}]}",
             ok);
    expect_refused(doc_s, "{\"ms\": -1", "stream_controls[0].ms: out of range");
    char many_s[1024];
    snprintf(many_s, sizeof many_s, "%s\"stream_controls\": %s", ok,
             strstr(many, "["));
    expect_refused(many_s, "[{\"ms\": 1", "stream_controls: 9 controls, at most 8");

    /* null: no control, read as a file without it. */
    const char *doc = "{\"schema\": \"cumemlab-results\", \"schema_version\": 1, "
                      "\"tool_version\": \"x\", \"command_line\": \"x\", \"model_only\": true, "
                      "\"device\": null, \"peak_gbs\": null, \"dram_background\": null, "
                      "\"records\": []}";
    cml_results r;
    char err[640] = "";
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_OK);
    CHECK_EQ_U64(r.background.n, 0);
    cml_results_free(&r);
}

int main(void)
{
    test_round_trip();
    test_hostile();
    return cml_test_summary("test_dram_background");
}
