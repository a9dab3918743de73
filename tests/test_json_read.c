/*
 * The strict JSON reader: the generic parser (every RFC 8259 rule it
 * enforces, each malformed input rejected with its exact line, column and
 * byte offset), exact integer conversions at the 64-bit limits, string
 * escapes and UTF-8, and the results schema: round trips of a hand-built
 * result set full of edge cases, of the model's results as cumemlab writes
 * them today and of the committed measured fixture (gzip)
 * (results -> JSON -> results -> JSON gives the same text), nulls read back
 * as the records' "unknown" marks, and schema errors that name the member.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "cumemlab/cache.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report_test_util.h"
#include "test_util.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

static char *render_json(const cml_results *r)
{
    cml_status st;
    char *buf = render_to_memory(cml_report_json, r, NULL, &st);
    CHECK(st == CML_OK);
    return buf;
}

/* The parse of `text` fails with exactly `where` ("line 1, column 3 (byte 2): ")
 * followed by a message containing `what`. */
static void expect_error(const char *text, size_t len, const char *where, const char *what)
{
    cml_jdoc *doc = (cml_jdoc *)1;
    char err[512] = "";
    cml_status st = cml_jdoc_parse(text, len, &doc, err, sizeof err);
    CHECK(st == CML_EINVAL);
    CHECK(doc == NULL);
    cml_test_checks++;
    if (strncmp(err, where, strlen(where)) != 0 || !strstr(err, what)) {
        cml_test_failures++;
        fprintf(stderr, "input %.40s: error \"%s\", expected \"%s...%s\"\n", text, err, where,
                what);
    }
    CHECK(strchr(err, '\n') == NULL); /* one line */
}

#define EXPECT_ERROR(lit, where, what) expect_error(lit, sizeof(lit) - 1, where, what)

static const cml_jval *parse_ok(const char *text, cml_jdoc **doc)
{
    char err[512] = "";
    cml_status st = cml_jdoc_parse(text, strlen(text), doc, err, sizeof err);
    if (st != CML_OK) {
        fprintf(stderr, "unexpected parse error for %s: %s\n", text, err);
        CHECK(st == CML_OK);
        return NULL;
    }
    return cml_jdoc_root(*doc);
}

/* ------------------------------------------------------------------ */
/* The generic parser                                                 */
/* ------------------------------------------------------------------ */

static void test_malformed(void)
{
    EXPECT_ERROR("", "line 1, column 1 (byte 0): ", "empty input");
    EXPECT_ERROR("   \n ", "line 2, column 2 (byte 5): ", "empty input");
    EXPECT_ERROR("{", "line 1, column 2 (byte 1): ", "expected a member name");
    EXPECT_ERROR("[1,]", "line 1, column 4 (byte 3): ", "trailing comma");
    EXPECT_ERROR("{\"a\":1,}", "line 1, column 8 (byte 7): ", "trailing comma");
    EXPECT_ERROR("[1 2]", "line 1, column 4 (byte 3): ", "expected ',' or ']'");
    EXPECT_ERROR("{\"a\" 1}", "line 1, column 6 (byte 5): ", "expected ':'");
    EXPECT_ERROR("{\"a\":1 \"b\":2}", "line 1, column 8 (byte 7): ", "expected ',' or '}'");
    EXPECT_ERROR("{a:1}", "line 1, column 2 (byte 1): ", "member name in double quotes");
    EXPECT_ERROR("{\"a\":1,\"b\":2,\"a\":3}", "line 1, column 14 (byte 13): ",
                 "duplicate member \"a\"");
    EXPECT_ERROR("[01]", "line 1, column 2 (byte 1): ", "leading zero");
    EXPECT_ERROR("[-]", "line 1, column 3 (byte 2): ", "a digit must follow '-'");
    EXPECT_ERROR("[1.]", "line 1, column 4 (byte 3): ", "decimal point");
    EXPECT_ERROR("[1e+]", "line 1, column 5 (byte 4): ", "exponent");
    EXPECT_ERROR("[.5]", "line 1, column 2 (byte 1): ", "unexpected '.'");
    EXPECT_ERROR("[+1]", "line 1, column 2 (byte 1): ", "unexpected '+'");
    EXPECT_ERROR("\n\n  [tru]", "line 3, column 4 (byte 5): ", "invalid literal");
    EXPECT_ERROR("NaN", "line 1, column 1 (byte 0): ", "unexpected 'N'");
    EXPECT_ERROR("[Infinity]", "line 1, column 2 (byte 1): ", "unexpected 'I'");
    EXPECT_ERROR("['a']", "line 1, column 2 (byte 1): ", "unexpected \"'\"");
    EXPECT_ERROR("[1] x", "line 1, column 5 (byte 4): ", "after the end of the JSON value");
    EXPECT_ERROR("[1]\n// c", "line 2, column 1 (byte 4): ", "after the end");
    EXPECT_ERROR("\xEF\xBB\xBF{}", "line 1, column 1 (byte 0): ", "byte order mark");
    EXPECT_ERROR("\"abc", "line 1, column 5 (byte 4): ", "unterminated string (opened at byte 0)");
    EXPECT_ERROR("[\"a\x01\"]", "line 1, column 4 (byte 3): ", "control character 0x01");
    EXPECT_ERROR("[\"a\nb\"]", "line 1, column 4 (byte 3): ", "control character 0x0a");
    EXPECT_ERROR("[\"\\x\"]", "line 1, column 3 (byte 2): ", "unknown escape '\\x'");
    EXPECT_ERROR("[\"\\u12G4\"]", "line 1, column 7 (byte 6): ", "bad hex digit");
    EXPECT_ERROR("[\"\\ud800\"]", "line 1, column 3 (byte 2): ", "high surrogate");
    EXPECT_ERROR("[\"\\ud800\\u0041\"]", "line 1, column 9 (byte 8): ", "not a low surrogate");
    EXPECT_ERROR("[\"\\udc00\"]", "line 1, column 3 (byte 2): ", "lone low surrogate");
    EXPECT_ERROR("[\"\\u0000\"]", "line 1, column 3 (byte 2): ", "NUL");
    EXPECT_ERROR("[\"\xff\"]", "line 1, column 3 (byte 2): ", "invalid UTF-8 (byte 0xff)");
    /* Overlong, an encoded surrogate, a sequence cut short. */
    EXPECT_ERROR("[\"\xc0\xaf\"]", "line 1, column 3 (byte 2): ", "invalid UTF-8");
    EXPECT_ERROR("[\"\xed\xa0\x80\"]", "line 1, column 3 (byte 2): ", "invalid UTF-8");
    EXPECT_ERROR("[\"\xe2\x82\"]", "line 1, column 3 (byte 2): ", "invalid UTF-8");
    /* A NUL byte inside the text is not whitespace. */
    expect_error("[1,\0 2]", 7, "line 1, column 4 (byte 3): ", "byte 0x00");
    /* Nesting: 64 levels are fine, 65 are not. */
    char deep[200];
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    cml_jdoc *doc;
    char err[256];
    CHECK(cml_jdoc_parse(deep, 128, &doc, err, sizeof err) == CML_OK);
    cml_jdoc_free(doc);
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    expect_error(deep, 130, "line 1, column 65 (byte 64): ", "nesting deeper than 64");
    /* Errors with no room for a message do not crash. */
    CHECK(cml_jdoc_parse("[", 1, &doc, NULL, 0) == CML_EINVAL);
    CHECK(cml_jdoc_parse("[", 1, &doc, err, 1) == CML_EINVAL && err[0] == '\0');
}

static void test_values(void)
{
    cml_jdoc *doc;
    const cml_jval *v =
        parse_ok(" {\"a\": [1, -2.5e3, true, false, null, \"x\"], \"b\": {}} ", &doc);
    CHECK(v && v->type == CML_J_OBJECT && v->count == 2);
    const cml_jval *a = cml_jobject_get(v, "a");
    CHECK(a && a->type == CML_J_ARRAY && a->count == 6 && a->offset == 7);
    if (a && a->count == 6) {
        double d = 0;
        CHECK(a->items[1].type == CML_J_NUMBER && cml_jval_double(&a->items[1], &d) && d == -2500);
        CHECK(a->items[2].type == CML_J_TRUE && a->items[3].type == CML_J_FALSE);
        CHECK(a->items[4].type == CML_J_NULL);
        CHECK(a->items[5].type == CML_J_STRING && !strcmp(a->items[5].text, "x"));
        /* Nulls and non-numbers do not convert. */
        uint64_t u;
        CHECK(!cml_jval_u64(&a->items[4], &u) && !cml_jval_double(&a->items[4], &d));
        CHECK(!cml_jval_u64(&a->items[1], &u)); /* not an integer form */
    }
    CHECK(cml_jobject_get(v, "b") && cml_jobject_get(v, "b")->count == 0);
    CHECK(cml_jobject_get(v, "c") == NULL);
    CHECK(cml_jobject_get(a, "a") == NULL); /* not an object */
    CHECK(v->members[1].key_offset == 44);
    cml_jdoc_free(doc);

    /* 64-bit integers, exactly, at their limits. */
    v = parse_ok("[18446744073709551615, 18446744073709551616, -9223372036854775808, "
                 "-9223372036854775809, 9223372036854775807, 1e3, 0, -0, 1.5]",
                 &doc);
    if (v) {
        uint64_t u = 0;
        int64_t i = 0;
        CHECK(cml_jval_u64(&v->items[0], &u) && u == UINT64_MAX);
        CHECK(!cml_jval_i64(&v->items[0], &i));
        CHECK(!cml_jval_u64(&v->items[1], &u));
        CHECK(cml_jval_i64(&v->items[2], &i) && i == INT64_MIN);
        CHECK(!cml_jval_u64(&v->items[2], &u));
        CHECK(!cml_jval_i64(&v->items[3], &i));
        CHECK(cml_jval_i64(&v->items[4], &i) && i == INT64_MAX);
        CHECK(!cml_jval_u64(&v->items[5], &u)); /* 1e3: a number, not an integer form */
        double d = 0;
        CHECK(cml_jval_double(&v->items[5], &d) && d == 1000);
        CHECK(cml_jval_u64(&v->items[6], &u) && u == 0);
        CHECK(cml_jval_i64(&v->items[7], &i) && i == 0);
        CHECK(!cml_jval_i64(&v->items[8], &i));
        cml_jdoc_free(doc);
    }
    /* Beyond the range of a double: a number, but not one we can use. */
    v = parse_ok("[1e400, 1e-400]", &doc);
    if (v) {
        double d = 1;
        CHECK(!cml_jval_double(&v->items[0], &d));
        CHECK(cml_jval_double(&v->items[1], &d) && d == 0);
        cml_jdoc_free(doc);
    }
    /* Escapes and UTF-8: e acute, a surrogate pair (U+1F600), raw UTF-8. */
    v = parse_ok("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 \xc3\xa9\xe2\x82\xac\"", &doc);
    if (v) {
        const char *want = "\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80 \xc3\xa9\xe2\x82\xac";
        CHECK(v->type == CML_J_STRING && v->len == strlen(want) && !strcmp(v->text, want));
        cml_jdoc_free(doc);
    }
    /* Position arithmetic. */
    size_t line, col;
    cml_jtext_position("ab\ncd\n\nx", 9, 7, &line, &col);
    CHECK(line == 4 && col == 1);
    cml_jtext_position("ab\ncd", 5, 4, &line, &col);
    CHECK(line == 2 && col == 2);
    /* Large objects: duplicate detection stays correct past small sizes. */
    char *big = malloc(20000);
    size_t used = (size_t)sprintf(big, "{");
    for (int k = 0; k < 1000; k++)
        used += (size_t)sprintf(big + used, "%s\"k%d\":%d", k ? "," : "", k, k);
    sprintf(big + used, "}");
    v = parse_ok(big, &doc);
    CHECK(v && v->count == 1000);
    if (v)
        cml_jdoc_free(doc);
    used--;
    used += (size_t)sprintf(big + used, ",\"k500\":1}");
    char err[256];
    CHECK(cml_jdoc_parse(big, strlen(big), &doc, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "duplicate member \"k500\"");
    free(big);
}

/* ------------------------------------------------------------------ */
/* The results schema                                                 */
/* ------------------------------------------------------------------ */

/* A result set that exercises every member and edge of the schema. */
static void build_results(cml_results *r)
{
    cml_results_init(r);
    snprintf(r->command_line, sizeof r->command_line,
             "cumemlab run read-offset --note \"quoted\" \\ back\tslash \x01 caf\xc3\xa9");
    snprintf(r->tool_version, sizeof r->tool_version, "0.1.0");
    r->model_only = 0;
    r->has_device = 1;
    cml_device_facts *d = &r->device;
    d->index = 1;
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
    d->cc_major = 9;
    d->sm_count = 132;
    d->warp_size = 32;
    d->max_threads_per_block = 1024;
    d->regs_per_sm = 65536;
    d->shared_per_block_optin = 232448;
    d->l2_bytes = 52428800;
    d->global_bytes = UINT64_MAX;
    d->bus_width_bits = 5120;
    d->mem_clock_khz = 2619000;
    d->theoretical_gbs = 3352.32;
    d->ecc_enabled = 1;
    d->driver_version = 13000;
    d->concurrent_managed = 1;
    r->peak_gbs = 0.1 + 0.2; /* needs 17 digits to read back */
    r->peak_given = 1;

    cml_record *a = cml_results_add(r, "read-offset", "offset=11 path=ca");
    cml_record_add_param(a, "offset", 11, NULL);
    cml_record_add_param(a, "path", 0, "ca");
    cml_record_add_param(a, "block", 256, "256");
    cml_record_add_param(a, "neg", INT64_MIN, NULL);
    a->bytes_read = UINT64_MAX;
    a->bytes_written = 1;
    a->grid = 32768;
    a->block = 512;
    a->occupancy = 0.75;
    a->measured = 1;
    a->timing = (cml_timing){3, 20, 0.0681, 0.0679, NAN, 0.07, 1e-300};
    a->bandwidth_gbs = 2950.123456789;
    a->peak_fraction = -1; /* unknown */
    a->verify = CML_VERIFY_PASSED;
    a->has_model = 1;
    a->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD] =
        (cml_traffic){1048576, 1048576, 5242880, 2097152, 5242880, 167772160, 167772160,
                      134217728, 134217728, 0, 0, 0, 0};
    a->model[CML_RULES_FERMI].cls[CML_CLASS_SHARED_ST] =
        (cml_traffic){7, 7, 0, 0, 0, 0, 0, 28, 28, 14, 7, 7, UINT64_MAX};
    a->ncounters = 2;
    snprintf(a->counters[0].name, sizeof a->counters[0].name, "l1tex__t_sectors.sum");
    a->counters[0].measured = 5242880;
    a->counters[0].has_prediction = 1;
    a->counters[0].predicted = 5242880;
    snprintf(a->counters[1].name, sizeof a->counters[1].name, "dram__bytes_read.sum");
    a->counters[1].measured = NAN;
    cml_record_add_extra(a, "pitch_bytes", 512, "B");
    cml_record_add_extra(a, "unknown", NAN, "");
    cml_record_add_extra(a, "tiny", -2.5e-7, "s");
    /* Looked up by name; a name the record lacks gives the caller's value. */
    CHECK_NEAR(cml_record_extra(a, "pitch_bytes", -1.0), 512.0, 0.0);
    CHECK_NEAR(cml_record_extra(a, "tiny", -1.0), -2.5e-7, 0.0);
    CHECK_NEAR(cml_record_extra(a, "absent", -1.0), -1.0, 0.0);
    CHECK_NEAR(cml_record_extra(a, "absent", 0.0), 0.0, 0.0);
    cml_record_finding(a, "Finding with <html> & \"quotes\", newline\n and UTF-8 \xe2\x82\xac.");

    cml_record *w = cml_results_add(r, "device-facts", "device");
    w->state = CML_REC_WAIVED;
    cml_record_note(w, "needs a GPU");

    cml_record *f = cml_results_add(r, "stride", "stride=2");
    f->state = CML_REC_FAILED;
    f->verify = CML_VERIFY_FAILED;
    f->measured = 1;
    f->timing = (cml_timing){1, 5, 1, 1, 1, 1, 0};
    f->bandwidth_gbs = NAN;
    f->peak_fraction = 0.5;
    f->has_model = 1; /* a model with no traffic at all: {"modern": {}, "fermi": {}} */
    cml_record_note(f, "mismatch at C[3]");
}

static void test_round_trip_built(void)
{
    cml_results r, back, again;
    build_results(&r);
    char *j1 = render_json(&r);
    char err[512] = "";
    cml_status st = cml_results_from_json(j1, strlen(j1), &back, err, sizeof err);
    if (st != CML_OK)
        fprintf(stderr, "round trip read failed: %s\n", err);
    CHECK(st == CML_OK);
    char *j2 = render_json(&back);
    CHECK(strcmp(j1, j2) == 0);
    if (strcmp(j1, j2) != 0)
        fprintf(stderr, "---- first\n%s\n---- second\n%s\n", j1, j2);

    /* What came back, field by field where the text could hide a loss. */
    CHECK(back.count == 3 && back.has_device && !back.model_only);
    CHECK(back.device.global_bytes == UINT64_MAX);
    CHECK(back.device.theoretical_gbs == 3352.32);
    CHECK(back.peak_gbs == 0.1 + 0.2);
    CHECK(strcmp(back.command_line, r.command_line) == 0);
    CHECK_STR_CONTAINS(back.command_line, "\"quoted\" \\ back\tslash \x01 caf\xc3\xa9");
    if (back.count == 3) {
        const cml_record *a = &back.items[0];
        CHECK(a->bytes_read == UINT64_MAX && a->bytes_written == 1);
        CHECK(a->nparams == 4);
        CHECK(a->params[0].value == 11 && a->params[0].label[0] == '\0');
        CHECK(!strcmp(a->params[1].label, "ca") && a->params[1].value == 0);
        CHECK(!strcmp(a->params[2].label, "256") && a->params[2].value == 256);
        CHECK(a->params[3].value == INT64_MIN);
        CHECK(a->occupancy == 0.75 && a->measured == 1 && a->timing.reps == 20);
        CHECK(isnan(a->timing.max_ms) && a->timing.cv == 1e-300);
        CHECK(a->peak_fraction == -1.0);
        CHECK(a->bandwidth_gbs == 2950.123456789);
        CHECK(a->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].sectors == 5242880);
        CHECK(a->model[CML_RULES_FERMI].cls[CML_CLASS_SHARED_ST].serialized == UINT64_MAX);
        CHECK(a->ncounters == 2 && a->counters[0].has_prediction && !a->counters[1].has_prediction);
        CHECK(isnan(a->counters[1].measured));
        CHECK(a->nextra == 3 && isnan(a->extra[1].value) && a->extra[2].value == -2.5e-7);
        CHECK(!strcmp(a->finding, r.items[0].finding));
        const cml_record *w = &back.items[1];
        CHECK(w->state == CML_REC_WAIVED && !w->measured && !w->has_model);
        CHECK(w->occupancy == -1.0 && w->peak_fraction == -1.0 && w->bandwidth_gbs == 0);
        CHECK(w->verify == CML_VERIFY_NONE && !strcmp(w->note, "needs a GPU"));
        const cml_record *f = &back.items[2];
        CHECK(f->state == CML_REC_FAILED && f->verify == CML_VERIFY_FAILED);
        CHECK(isnan(f->bandwidth_gbs) && f->peak_fraction == 0.5 && f->has_model);
    }
    /* A third pass changes nothing either. */
    CHECK(back.count == 3);
    cml_results_free(&back);
    CHECK(cml_results_from_json(j2, strlen(j2), &again, err, sizeof err) == CML_OK);
    char *j3 = render_json(&again);
    CHECK(strcmp(j2, j3) == 0);
    free(j1);
    free(j2);
    free(j3);
    cml_results_free(&again);
    cml_results_free(&r);

    /* Bytes that are not UTF-8 are written as U+FFFD (the one loss a record
     * can suffer on the way to JSON): read back as U+FFFD, after which the
     * text is stable. */
    cml_results_init(&r);
    cml_record *bad = cml_results_add(&r, "x", "bad \xff byte");
    CHECK(bad != NULL);
    j1 = render_json(&r);
    CHECK_STR_CONTAINS(j1, "\"bad \\ufffd byte\"");
    CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
    CHECK(back.count == 1 && !strcmp(back.items[0].variant, "bad \xef\xbf\xbd byte"));
    j2 = render_json(&back);
    CHECK(cml_results_from_json(j2, strlen(j2), &again, err, sizeof err) == CML_OK);
    j3 = render_json(&again);
    CHECK(strcmp(j2, j3) == 0);
    free(j1);
    free(j2);
    free(j3);
    cml_results_free(&r);
    cml_results_free(&back);
    cml_results_free(&again);

    /* Nothing at all: a model-only run without records. */
    cml_results_init(&r);
    r.model_only = 1;
    j1 = render_json(&r);
    CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
    CHECK(back.count == 0 && back.model_only && !back.has_device && back.peak_gbs == 0);
    j2 = render_json(&back);
    CHECK(strcmp(j1, j2) == 0);
    free(j1);
    free(j2);
    cml_results_free(&back);
}

/* tests/data/NAME, found next to this source file. */
static void data_path(char *buf, size_t len, const char *name)
{
    const char *slash = strrchr(__FILE__, '/');
    if (slash)
        snprintf(buf, len, "%.*s/data/%s", (int)(slash - __FILE__), __FILE__, name);
    else
        snprintf(buf, len, "data/%s", name);
}

/* The model's results of the tour, written at test time by ctest's
 * fixture_results_model into $CML_TEST_GENERATED (tests/CMakeLists.txt),
 * and the measured fixture made from such a file (committed gzip-compressed,
 * decompressed there too): each read back and written again the same; the
 * committed .gz read as it is gives the same records (or, built without
 * zlib, says so). */
static void test_round_trip_fixtures(void)
{
    const char *names[] = {"results-model.json", "results-measured.json"};
    const char *gen = getenv("CML_TEST_GENERATED");
    if (!gen) {
        fprintf(stderr, "test_json_read: CML_TEST_GENERATED is not set: run it through ctest, "
                        "which writes the model's results first (fixture_results_model)\n");
        CHECK(gen != NULL);
        return;
    }
    for (size_t i = 0; i < 2; i++) {
        char path[1024], err[640];
        cml_results r, back;
        snprintf(path, sizeof path, "%s/%s", gen, names[i]);
        cml_status st = cml_results_read_file(path, &r, err, sizeof err);
        if (st != CML_OK)
            fprintf(stderr, "%s\n", err);
        CHECK(st == CML_OK);
        CHECK(r.count > 50);
        CHECK(i == 0 ? r.model_only && !r.has_device : !r.model_only && r.has_device);
        char *j1 = render_json(&r);
        CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
        char *j2 = render_json(&back);
        CHECK(strcmp(j1, j2) == 0);
        /* The model fixture was written by cumemlab itself: byte for byte. */
        if (i == 0) {
            FILE *f = fopen(path, "rb");
            char *orig = calloc(1, 4 << 20);
            size_t n = f && orig ? fread(orig, 1, (4 << 20) - 1, f) : 0;
            if (f)
                fclose(f);
            CHECK(n > 0 && strcmp(orig, j1) == 0);
            free(orig);
        }
        if (i == 1) {
            cml_results gz;
            data_path(path, sizeof path, "results-measured.json.gz");
            const char *want = getenv("CML_EXPECT_ZLIB");
            int zlib = want ? atoi(want) : cml_results_gzip_supported();
            CHECK(cml_results_gzip_supported() == zlib);
            st = cml_results_read_file(path, &gz, err, sizeof err);
            if (zlib) {
                CHECK(st == CML_OK);
                char *j3 = st == CML_OK ? render_json(&gz) : NULL;
                CHECK(j3 && strcmp(j1, j3) == 0);
                free(j3);
            } else {
                CHECK(st == CML_EUNSUPPORTED);
                CHECK_STR_CONTAINS(err, "built without zlib");
            }
            cml_results_free(&gz);
        }
        free(j1);
        free(j2);
        cml_results_free(&r);
        cml_results_free(&back);
    }
    /* A file that is not there, and standard input is "-". */
    char err[640];
    cml_results r;
    CHECK(cml_results_read_file("/nonexistent/cumemlab.json", &r, err, sizeof err) == CML_EIO);
    CHECK_STR_CONTAINS(err, "/nonexistent/cumemlab.json: cannot open");
    cml_results_free(&r);
}

/* A minimal valid document with one record; %s is spliced into the record. */
static const char *const minimal_head =
    "{\"schema\": \"cumemlab-results\", \"schema_version\": 1, \"tool_version\": \"0.1.0\",\n"
    " \"command_line\": \"x\", \"model_only\": true, \"device\": null, \"peak_gbs\": null,\n"
    " \"records\": [{\"experiment\": \"stride\", \"variant\": \"v\", \"state\": \"ok\", "
    "\"note\": \"\",\n  \"params\": {\"stride\": 2}, \"bytes_read\": 8, \"bytes_written\": 8, "
    "\"grid\": 1, \"block\": 32, \"occupancy\": null,\n  \"timing\": ";

static char *minimal(const char *timing, const char *rest)
{
    static const char *const tail_default =
        ", \"bandwidth_gbs\": null, \"peak_fraction\": null, \"verify\": \"not_run\", "
        "\"model\": null, \"counters\": [], \"extra\": {}, \"finding\": \"\"}]}";
    size_t n = strlen(minimal_head) + strlen(timing) + strlen(rest ? rest : tail_default) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%s%s%s", minimal_head, timing, rest ? rest : tail_default);
    return s;
}

/* Reading `doc` fails; the message names `what` at the offset of `at` (the
 * first occurrence of that text in doc, plus `delta`). */
static void expect_schema_error(const char *doc, const char *at, size_t delta, const char *what)
{
    cml_results r;
    char err[640] = "";
    cml_status st = cml_results_from_json(doc, strlen(doc), &r, err, sizeof err);
    CHECK(st == CML_EINVAL);
    CHECK(r.count == 0 && r.items == NULL);
    const char *p = strstr(doc, at);
    size_t off = p ? (size_t)(p - doc) + delta : 0, line, col;
    cml_jtext_position(doc, strlen(doc), off, &line, &col);
    char where[96];
    snprintf(where, sizeof where, "line %zu, column %zu (byte %zu): ", line, col, off);
    cml_test_checks++;
    if (!p || strncmp(err, where, strlen(where)) != 0 || !strstr(err, what)) {
        cml_test_failures++;
        fprintf(stderr, "schema error \"%s\", expected \"%s...%s\"\n", err, where, what);
    }
    cml_results_free(&r);
}

static void test_schema(void)
{
    cml_results r;
    char err[640];
    char *doc = minimal("null", NULL);
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_OK);
    CHECK(r.count == 1 && r.model_only && !r.has_device && r.peak_gbs == 0);
    CHECK(r.count == 1 && r.items[0].params[0].value == 2 && !r.items[0].measured);
    cml_results_free(&r);
    free(doc);

    /* Unknown members are skipped: later versions may add some. */
    doc = minimal("null, \"future\": {\"x\": [1, 2]}", NULL);
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_OK);
    cml_results_free(&r);
    free(doc);

    doc = minimal("{\"warmup\": 1, \"reps\": 2, \"median_ms\": \"fast\", \"min_ms\": 1, "
                  "\"max_ms\": 1, \"mean_ms\": 1, \"cv\": 0}",
                  NULL);
    expect_schema_error(doc, "\"fast\"", 0,
                        "records[0].timing.median_ms: expected a number or null");
    free(doc);

    doc = minimal("{\"warmup\": 1, \"reps\": -2, \"median_ms\": 1, \"min_ms\": 1, "
                  "\"max_ms\": 1, \"mean_ms\": 1, \"cv\": 0}",
                  NULL);
    expect_schema_error(doc, "-2", 0, "records[0].timing.reps: expected an integer in 0..");
    free(doc);

    doc = minimal("{\"warmup\": 1, \"reps\": 2}", NULL);
    expect_schema_error(doc, "{\"warmup\"", 0, "records[0].timing: missing member \"median_ms\"");
    free(doc);

    doc = minimal("null", ", \"bandwidth_gbs\": null, \"peak_fraction\": null, \"verify\": "
                          "\"maybe\", \"model\": null, \"counters\": [], \"extra\": {}, "
                          "\"finding\": \"\"}]}");
    expect_schema_error(doc, "\"maybe\"", 0, "records[0].verify: unknown value \"maybe\"");
    free(doc);

    doc = minimal("null", ", \"bandwidth_gbs\": null, \"peak_fraction\": null, \"verify\": "
                          "\"passed\", \"model\": null, \"counters\": [{\"name\": \"c\", "
                          "\"measured\": 1}], \"extra\": {}, \"finding\": \"\"}]}");
    expect_schema_error(doc, "{\"name\": \"c\"", 0,
                        "records[0].counters[0]: missing member \"predicted\"");
    free(doc);

    /* bytes_read one past UINT64_MAX. */
    const char *big = "\"bytes_read\": 8,";
    doc = minimal("null", NULL);
    char *p = strstr(doc, big);
    size_t n = strlen(doc) + 32;
    char *doc2 = malloc(n);
    snprintf(doc2, n, "%.*s\"bytes_read\": 18446744073709551616,%s", (int)(p - doc), doc,
             p + strlen(big));
    expect_schema_error(doc2, "18446744073709551616", 0,
                        "records[0].bytes_read: expected an integer in 0..18446744073709551615");
    free(doc2);
    free(doc);

    /* Strings longer than the record's field. */
    doc = minimal("null", NULL);
    p = strstr(doc, "\"stride\", \"variant\"");
    n = strlen(doc) + 64;
    doc2 = malloc(n);
    snprintf(doc2, n, "%.*s\"a-name-of-thirty-two-characters!\"%s", (int)(p - doc), doc,
             p + strlen("\"stride\""));
    expect_schema_error(doc2, "\"a-name-of-thirty-two", 0,
                        "records[0].experiment: string of 32 bytes is too long (at most 31)");
    free(doc2);
    free(doc);

    /* The top level. */
    expect_schema_error("[]", "[", 0, "top level: expected an object, found an array");
    expect_schema_error("{\"schema\": \"other\"}", "\"other\"", 0,
                        "schema: \"other\" is not \"cumemlab-results\"");
    expect_schema_error("{\"schema\": \"cumemlab-results\", \"schema_version\": 2}", "2}", 0,
                        "schema_version 2 is newer than this cumemlab reads");
    expect_schema_error("{\"schema\": \"cumemlab-results\", \"schema_version\": 1}", "{", 0,
                        "top level: missing member \"tool_version\"");
    /* A syntax error inside a valid-looking document keeps its offset. */
    doc = minimal("nul", NULL);
    expect_schema_error(doc, "nul,", 0, "invalid literal");
    free(doc);
}

/* Every truncation and thousands of single-byte changes of a real document:
 * each read either succeeds or fails with a located one-line message, and
 * never reads out of bounds (the sanitizer build checks that). */
static void test_mutations(void)
{
    cml_results r;
    build_results(&r);
    char *text = render_json(&r);
    cml_results_free(&r);
    size_t len = strlen(text);
    char *buf = malloc(len);
    char err[640];
    size_t ok = 0, bad = 0, unlocated = 0;
    /* Cuts inside the document proper: dropping only its trailing newline
     * leaves a whole document. */
    size_t body = len;
    while (body > 0 && (text[body - 1] == '\n' || text[body - 1] == ' '))
        body--;
    for (size_t cut = 0; cut < body; cut += 7) {
        memcpy(buf, text, cut); /* not NUL-terminated: the reader must not need it */
        cml_status st = cml_results_from_json(buf, cut, &r, err, sizeof err);
        st == CML_OK ? ok++ : bad++;
        unlocated += st != CML_OK && strncmp(err, "line ", 5) != 0;
        cml_results_free(&r);
    }
    CHECK(ok == 0 && bad > 100); /* no proper prefix of the document is a document */
    uint32_t seed = 12345;
    static const char bytes[] = "{}[],:\"\\0123456789.eE+-nultrfas \n\x01\xff\xc3";
    for (int k = 0; k < 4000; k++) {
        memcpy(buf, text, len);
        seed = seed * 1664525u + 1013904223u;
        size_t at = (seed >> 8) % len;
        seed = seed * 1664525u + 1013904223u;
        buf[at] = bytes[(seed >> 8) % (sizeof bytes - 1)];
        cml_status st = cml_results_from_json(buf, len, &r, err, sizeof err);
        CHECK(st == CML_OK || st == CML_EINVAL);
        st == CML_OK ? ok++ : bad++;
        unlocated += st != CML_OK && strncmp(err, "line ", 5) != 0;
        cml_results_free(&r);
    }
    CHECK(ok > 0 && bad > 1000);
    CHECK(unlocated == 0);
    free(buf);
    free(text);
}

/* The run's diagnostics: written, read back and written again the same;
 * a bad level or a missing member named where it is. */
static void test_diagnostics(void)
{
    cml_results r, back;
    cml_results_init(&r);
    r.model_only = 1;
    CHECK(cml_results_diag(&r, CML_DIAG_INFO, NULL, "no GPU used (none): model only") == CML_OK);
    CHECK(cml_results_diag(&r, CML_DIAG_WARNING, "read-offset", "offset=9 waived: \"x\"\n") ==
          CML_OK);
    CHECK(cml_results_diag(&r, CML_DIAG_ERROR, "stride", "stopped: CUDA error") == CML_OK);
    char *j1 = render_json(&r);
    CHECK_STR_CONTAINS(j1, "\"diagnostics\": [");
    CHECK_STR_CONTAINS(j1, "\"level\": \"warning\"");
    CHECK_STR_CONTAINS(j1, "\"experiment\": null");
    char err[640] = "";
    CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
    CHECK(back.ndiags == 3);
    if (back.ndiags == 3) {
        CHECK(back.diags[0].level == CML_DIAG_INFO && back.diags[0].experiment[0] == '\0');
        CHECK(!strcmp(back.diags[1].experiment, "read-offset"));
        CHECK(!strcmp(back.diags[1].message, "offset=9 waived: \"x\"\n"));
        CHECK(back.diags[2].level == CML_DIAG_ERROR);
    }
    char *j2 = render_json(&back);
    CHECK(strcmp(j1, j2) == 0);
    free(j1);
    free(j2);
    cml_results_free(&r);
    cml_results_free(&back);

    const char *bad_level =
        "{\"schema\": \"cumemlab-results\", \"schema_version\": 1, \"tool_version\": \"x\",\n"
        " \"command_line\": \"x\", \"model_only\": true, \"device\": null, "
        "\"peak_gbs\": null,\n \"diagnostics\": [{\"level\": \"fatal\", \"experiment\": null, "
        "\"message\": \"m\"}], \"records\": []}";
    expect_schema_error(bad_level, "\"fatal\"", 0, "diagnostics[0].level: \"fatal\" is not");
    const char *no_message =
        "{\"schema\": \"cumemlab-results\", \"schema_version\": 1, \"tool_version\": \"x\",\n"
        " \"command_line\": \"x\", \"model_only\": true, \"device\": null, "
        "\"peak_gbs\": null,\n \"diagnostics\": [{\"level\": \"info\", \"experiment\": null}], "
        "\"records\": []}";
    expect_schema_error(no_message, "{\"level\"", 0, "missing member \"message\"");
}

/* The peak classes: the run's reference of each class (null where a class
 * was not measured) and, on a measured record, the class its share of peak
 * is of and that reference; read back exactly, written again the same; an
 * unknown class name is refused where it stands. */
static void test_peak_classes(void)
{
    cml_results r, back;
    cml_results_init(&r);
    r.model_only = 0;
    r.peak_gbs = 3240.25;
    r.peaks.gbs[CML_PEAK_CLASS_READ] = 3131.0 + 1.0 / 3.0; /* 17 digits */
    r.peaks.gbs[CML_PEAK_CLASS_WRITE] = 3240.25;
    r.peaks.gbs[CML_PEAK_CLASS_COPY] = 3006.5;
    snprintf(r.peaks.source[CML_PEAK_CLASS_READ], sizeof r.peaks.source[0],
             "kernel=sum shape=gs-v16-u8 block=256 size=4G");
    snprintf(r.peaks.source[CML_PEAK_CLASS_WRITE], sizeof r.peaks.source[0], "kernel=memset size=1G");
    snprintf(r.peaks.source[CML_PEAK_CLASS_COPY], sizeof r.peaks.source[0], "kernel=memcpy size=1G");
    cml_record *m = cml_results_add(&r, "peak-bandwidth", "kernel=copy");
    m->measured = 1;
    m->timing = (cml_timing){3, 10, 0.5, 0.5, 0.5, 0.5, 0.0};
    m->bytes_read = m->bytes_written = 751625000; /* 1503.25 GB/s at 1 ms: half the copy's */
    m->bandwidth_gbs = 1503.25;
    cml_record_set_peak(m, &r.peaks);
    CHECK_EQ_I64(m->peak_class, CML_PEAK_CLASS_COPY);
    CHECK(m->peak_ref_gbs == 3006.5 && m->peak_fraction == 0.5);
    cml_record *t = cml_results_add(&r, "peak-bandwidth", "kernel=triad");
    t->measured = 1;
    t->timing = m->timing;
    t->bytes_read = 8;
    t->bytes_written = 4;
    t->bandwidth_gbs = 2000;
    cml_record_set_peak(t, &r.peaks); /* triad not measured: the copy's */
    CHECK_EQ_I64(t->peak_class, CML_PEAK_CLASS_COPY);
    cml_record *x = cml_results_add(&r, "transfers", "pinned");
    x->measured = 1;
    x->timing = m->timing;
    x->bandwidth_gbs = 25;
    cml_record_set_peak(x, NULL); /* not a DRAM figure: no class */
    cml_results_add(&r, "stride", "model only");

    char *j1 = render_json(&r), err[512] = "";
    CHECK_STR_CONTAINS(j1, "\"peak_class\": \"copy\",\n      \"peak_gbs\": 3006.5");
    CHECK_STR_CONTAINS(j1, "\"triad\": null");
    CHECK_STR_CONTAINS(j1, "\"source\": \"kernel=memset size=1G\"");
    CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
    char *j2 = render_json(&back);
    CHECK(strcmp(j1, j2) == 0);
    CHECK(back.peaks.gbs[CML_PEAK_CLASS_READ] == 3131.0 + 1.0 / 3.0);
    CHECK(back.peaks.gbs[CML_PEAK_CLASS_TRIAD] == 0 && !back.peaks.given);
    CHECK(!strcmp(back.peaks.source[CML_PEAK_CLASS_COPY], "kernel=memcpy size=1G"));
    if (back.count == 4) {
        CHECK_EQ_I64(back.items[0].peak_class, CML_PEAK_CLASS_COPY);
        CHECK(back.items[0].peak_ref_gbs == 3006.5 && back.items[0].peak_fraction == 0.5);
        CHECK_EQ_I64(back.items[2].peak_class, CML_PEAK_CLASS_NONE);
        CHECK(back.items[2].peak_ref_gbs == 0 && back.items[2].peak_fraction == -1.0);
        CHECK_EQ_I64(back.items[3].peak_class, CML_PEAK_CLASS_NONE);
    }
    CHECK_EQ_U64(back.count, 4);
    cml_results_free(&back);

    /* An unknown class, named where it stands. */
    char *bad = strstr(j1, "\"copy\",\n      \"peak_gbs\"");
    CHECK(bad != NULL);
    if (bad) {
        memcpy(bad + 1, "cop!", 4);
        CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_EINVAL);
        CHECK_STR_CONTAINS(err, "records[0].peak_class: \"cop!\" is not read, write, copy, "
                                "triad, given, l2-resident or l1-resident");
        cml_results_free(&back);
    }
    free(j1);
    free(j2);
    cml_results_free(&r);
}

/* A record with a model but no cache levels (shared-memory traffic only)
 * still carries what the model assumed (model.assumed beside null levels):
 * how many blocks share an SM, which bounds the shared counters validate
 * judges. Written, read back into the record's cache config, stable; a
 * wrong type or a missing member named. */
static void test_assumed_without_levels(void)
{
    cml_results r, back;
    cml_results_init(&r);
    cml_record *a = cml_results_add(&r, "expr", "shared column: tx*32");
    CHECK(a != NULL);
    if (!a)
        return;
    a->has_model = 1;
    a->block = 256;
    a->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD] =
        (cml_traffic){.instructions = 32768, .requests = 32768, .wavefronts = 1048576,
                      .ideal_wavefronts = 32768, .bank_conflicts = 1015808};
    cml_cache_config_h100(&a->cache);
    a->cache.smem_per_block = 4096;
    char *j1 = render_json(&r);
    const char *lv = strstr(j1, "\"levels\": null");
    CHECK(lv != NULL && strstr(lv, "\"assumed\": {") != NULL);
    char err[512] = "";
    CHECK(cml_results_from_json(j1, strlen(j1), &back, err, sizeof err) == CML_OK);
    if (back.count == 1) {
        const cml_record *b = &back.items[0];
        CHECK(!b->has_levels && b->has_model);
        CHECK(b->cache.sm_count == 132 && b->cache.max_threads_per_sm == 2048);
        CHECK(b->cache.smem_per_block == 4096 && b->cache.l2_bytes == a->cache.l2_bytes);
        /* 2048 threads an SM, 256 a block: 8 blocks share it, as in the run. */
        CHECK(cml_cache_resident_blocks(&b->cache, 256) == 8);
        char *j2 = render_json(&back);
        CHECK(strcmp(j1, j2) == 0);
        free(j2);
    }
    cml_results_free(&back);

    /* The object replaced by a number (it holds no nested object, so its
     * first '}' closes it). */
    char *bad = strdup(j1);
    char *at = bad ? strstr(bad, "\"assumed\": {") : NULL;
    CHECK(at != NULL);
    if (at) {
        char *open = strchr(at, '{'), *close = strchr(at, '}');
        *open = '7';
        memmove(open + 1, close + 1, strlen(close + 1) + 1);
        CHECK(cml_results_from_json(bad, strlen(bad), &back, err, sizeof err) == CML_EINVAL);
        CHECK_STR_CONTAINS(err, "model.assumed");
        CHECK(strchr(err, '\n') == NULL);
    }
    free(bad);
    /* A member left out: the line that holds it cut. */
    bad = strdup(j1);
    at = bad ? strstr(bad, "\"sm_count\": 132,") : NULL;
    CHECK(at != NULL);
    if (at) {
        const size_t cut = (size_t)(strchr(at, '\n') - at) + 1;
        memmove(at, at + cut, strlen(at + cut) + 1);
        CHECK(cml_results_from_json(bad, strlen(bad), &back, err, sizeof err) == CML_EINVAL);
        CHECK_STR_CONTAINS(err, "missing member \"sm_count\"");
    }
    free(bad);
    free(j1);
    cml_results_free(&r);
}

int main(void)
{
    test_assumed_without_levels();
    test_diagnostics();
    test_malformed();
    test_values();
    test_round_trip_built();
    test_peak_classes();
    test_round_trip_fixtures();
    test_schema();
    test_mutations();
    return cml_test_summary("test_json_read");
}
