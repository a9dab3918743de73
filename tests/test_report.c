/*
 * Reporter tests: hand-built result sets (model-only; measured with counters,
 * a waived and a failed record; strings holding quotes, commas, newlines,
 * backslashes, control characters, non-ASCII and invalid UTF-8) rendered by
 * each reporter into memory, then checked: the JSON with a strict validator
 * written here, the CSV with an RFC 4180 splitter written here (the table:
 * test_report_table.c). And the file writer: success, writer failure,
 * missing folder, full device.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/record.h"
#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report/report_util.h"
#include "report_fixtures.h"
#include "report_test_util.h"
#include "test_util.h"

/* ------------------------------------------------------------------ */
/* A strict JSON validator (RFC 8259), recursive descent               */
/* ------------------------------------------------------------------ */

typedef struct jp {
    const char *s;
    const char *err;
    int depth;
} jp;

static int j_value(jp *p);

static void j_ws(jp *p)
{
    while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
        p->s++;
}

static int j_fail(jp *p, const char *why)
{
    if (!p->err)
        p->err = why;
    return 0;
}

static int j_lit(jp *p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(p->s, lit, n) != 0)
        return j_fail(p, "bad literal");
    p->s += n;
    return 1;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* number = [ "-" ] int [ frac ] [ exp ]; int = "0" / digit1-9 *digit */
static int j_number(jp *p)
{
    if (*p->s == '-')
        p->s++;
    if (*p->s == '0') {
        p->s++;
    } else if (*p->s >= '1' && *p->s <= '9') {
        while (is_digit(*p->s))
            p->s++;
    } else {
        return j_fail(p, "bad number");
    }
    if (*p->s == '.') {
        p->s++;
        if (!is_digit(*p->s))
            return j_fail(p, "bad fraction");
        while (is_digit(*p->s))
            p->s++;
    }
    if (*p->s == 'e' || *p->s == 'E') {
        p->s++;
        if (*p->s == '+' || *p->s == '-')
            p->s++;
        if (!is_digit(*p->s))
            return j_fail(p, "bad exponent");
        while (is_digit(*p->s))
            p->s++;
    }
    return 1;
}

/* Length of a valid UTF-8 sequence at s, 0 if invalid (strict RFC 3629). */
static size_t t_utf8(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n;
    uint32_t cp, min;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) { n = 2; cp = s[0] & 0x1F; min = 0x80; }
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) { n = 3; cp = s[0] & 0x0F; min = 0x800; }
    else if (s[0] >= 0xF0 && s[0] <= 0xF4) { n = 4; cp = s[0] & 0x07; min = 0x10000; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static int j_string(jp *p)
{
    if (*p->s != '"')
        return j_fail(p, "expected string");
    p->s++;
    for (;;) {
        unsigned char c = (unsigned char)*p->s;
        if (c == '\0')
            return j_fail(p, "unterminated string");
        if (c == '"') {
            p->s++;
            return 1;
        }
        if (c < 0x20)
            return j_fail(p, "raw control character in string");
        if (c == '\\') {
            p->s++;
            char e = *p->s;
            if (e == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!is_hex(p->s[i]))
                        return j_fail(p, "bad \\u escape");
                p->s += 5;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                p->s++;
            } else {
                return j_fail(p, "bad escape");
            }
            continue;
        }
        size_t n = t_utf8((const unsigned char *)p->s);
        if (n == 0)
            return j_fail(p, "invalid UTF-8");
        p->s += n;
    }
}

static int j_object(jp *p)
{
    p->s++; /* { */
    j_ws(p);
    if (*p->s == '}') {
        p->s++;
        return 1;
    }
    for (;;) {
        j_ws(p);
        if (!j_string(p))
            return 0;
        j_ws(p);
        if (*p->s != ':')
            return j_fail(p, "expected ':'");
        p->s++;
        if (!j_value(p))
            return 0;
        j_ws(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s == '}') {
            p->s++;
            return 1;
        }
        return j_fail(p, "expected ',' or '}'");
    }
}

static int j_array(jp *p)
{
    p->s++; /* [ */
    j_ws(p);
    if (*p->s == ']') {
        p->s++;
        return 1;
    }
    for (;;) {
        if (!j_value(p))
            return 0;
        j_ws(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s == ']') {
            p->s++;
            return 1;
        }
        return j_fail(p, "expected ',' or ']'");
    }
}

static int j_value(jp *p)
{
    int ok;
    j_ws(p);
    if (++p->depth > 64)
        return j_fail(p, "too deep");
    switch (*p->s) {
    case '{': ok = j_object(p); break;
    case '[': ok = j_array(p); break;
    case '"': ok = j_string(p); break;
    case 't': ok = j_lit(p, "true"); break;
    case 'f': ok = j_lit(p, "false"); break;
    case 'n': ok = j_lit(p, "null"); break;
    default: ok = j_number(p); break;
    }
    p->depth--;
    return ok;
}

/* 1 if text is exactly one JSON value surrounded by optional whitespace. */
static int json_valid(const char *text, const char **err, size_t *at)
{
    jp p = { text, NULL, 0 };
    int ok = j_value(&p);
    if (ok) {
        j_ws(&p);
        if (*p.s != '\0')
            ok = j_fail(&p, "trailing characters");
    }
    if (err)
        *err = p.err;
    if (at)
        *at = (size_t)(p.s - text);
    return ok;
}

static void check_json_valid(const char *doc)
{
    const char *err = NULL;
    size_t at = 0;
    int ok = json_valid(doc, &err, &at);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  JSON invalid at byte %zu: %s: ...%.40s\n", at, err ? err : "?",
                doc + at);
}

/* Every occurrence of "key": is followed by something other than a quote. */
static void check_numeric_key(const char *doc, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    size_t n = strlen(pat), seen = 0;
    for (const char *p = strstr(doc, pat); p; p = strstr(p + n, pat)) {
        seen++;
        CHECK(p[n] != '"');
        if (p[n] == '"')
            fprintf(stderr, "  quoted number for %s: %.60s\n", key, p);
    }
    CHECK(seen > 0);
}

/* ------------------------------------------------------------------ */
/* An RFC 4180 CSV splitter                                            */
/* ------------------------------------------------------------------ */

#define CSV_MAX_FIELDS 128

typedef struct csv_row {
    char *f[CSV_MAX_FIELDS];
    size_t n;
} csv_row;

static void csv_row_free(csv_row *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
}

/*
 * Parse one record at *pp (LF or CRLF ends it). Returns 1 on a record, 0 at
 * the end of input, -1 when malformed (a quote inside an unquoted field,
 * text after a closing quote, an unterminated quoted field).
 */
static int csv_next(const char **pp, csv_row *row)
{
    const char *p = *pp;
    row->n = 0;
    if (*p == '\0')
        return 0;
    for (;;) {
        size_t cap = 64, len = 0;
        char *buf = malloc(cap);
        if (!buf)
            exit(2);
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    free(buf);
                    return -1;
                }
                if (*p == '"') {
                    if (p[1] == '"') {
                        p += 2;
                        buf[len++] = '"';
                    } else {
                        p++;
                        break;
                    }
                } else {
                    buf[len++] = *p++;
                }
                if (len + 1 >= cap) {
                    cap *= 2;
                    buf = realloc(buf, cap);
                    if (!buf)
                        exit(2);
                }
            }
            if (*p != ',' && *p != '\n' && *p != '\r' && *p != '\0') {
                free(buf);
                return -1;
            }
        } else {
            while (*p != ',' && *p != '\n' && *p != '\r' && *p != '\0') {
                if (*p == '"') {
                    free(buf);
                    return -1;
                }
                buf[len++] = *p++;
                if (len + 1 >= cap) {
                    cap *= 2;
                    buf = realloc(buf, cap);
                    if (!buf)
                        exit(2);
                }
            }
        }
        buf[len] = '\0';
        if (row->n == CSV_MAX_FIELDS) {
            free(buf);
            return -1;
        }
        row->f[row->n++] = buf;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\r')
            p++;
        if (*p == '\n')
            p++;
        *pp = p;
        return 1;
    }
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

static void test_fmt_double(void)
{
    char buf[CML_NUM_BUF];
    CHECK(cml_rep_fmt_double(buf, sizeof buf, 0.1) && strcmp(buf, "0.1") == 0);
    CHECK(cml_rep_fmt_double(buf, sizeof buf, 80.0) && strcmp(buf, "80") == 0);
    CHECK(cml_rep_fmt_double(buf, sizeof buf, 1.0 / 3.0) && strtod(buf, NULL) == 1.0 / 3.0);
    CHECK(cml_rep_fmt_double(buf, sizeof buf, 5e-324) && strtod(buf, NULL) == 5e-324);
    CHECK(cml_rep_fmt_double(buf, sizeof buf, 1.7976931348623157e308) &&
          strtod(buf, NULL) == 1.7976931348623157e308);
    CHECK(cml_rep_fmt_double(buf, sizeof buf, -2.5) && strcmp(buf, "-2.5") == 0);
    CHECK(!cml_rep_fmt_double(buf, sizeof buf, NAN) && buf[0] == '\0');
    CHECK(!cml_rep_fmt_double(buf, sizeof buf, INFINITY));
    /* Whatever %g makes of these must be a JSON number. */
    const double vals[] = { 1e300, -1e-300, 123456789012345678.0, 0.0, -0.0, 1e21, 2.5e-7 };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        CHECK(cml_rep_fmt_double(buf, sizeof buf, vals[i]));
        CHECK(json_valid(buf, NULL, NULL));
        CHECK(strtod(buf, NULL) == vals[i]);
    }
}

/* The validator must itself reject what is not JSON. */
static void test_validator(void)
{
    CHECK(json_valid("{\"a\": [1, -0.5e+3, true, false, null, \"x\\u00e9\\n\"]}", NULL, NULL));
    CHECK(json_valid("  [ ]  ", NULL, NULL));
    const char *bad[] = {
        "{\"a\": 01}", "{\"a\": \"\x01\"}", "[1,]", "{\"a\" 1}", "\"\\u12\"", "NaN",
        "{\"a\": 1} x", "[\"\xff\"]", "{\"a\": .5}", "{\"a\": 1.}", "[\"\\x\"]", "{'a': 1}",
        "", "{\"a\": \"1\"", "[-]", "[1e]", "[\"\xc0\xaf\"]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int ok = json_valid(bad[i], NULL, NULL);
        CHECK(!ok);
        if (ok)
            fprintf(stderr, "  validator accepted bad JSON #%zu\n", i);
    }
    const char *p = "a,\"b\"c\n";
    csv_row row = { { 0 }, 0 };
    CHECK(csv_next(&p, &row) == -1);
    csv_row_free(&row);
    p = "a,\"b\"\"\nc\",\n";
    CHECK(csv_next(&p, &row) == 1);
    CHECK(row.n == 3 && strcmp(row.f[1], "b\"\nc") == 0 && row.f[2][0] == '\0');
    csv_row_free(&row);
}

static void test_json_model_only(void)
{
    cml_results r;
    cml_status st;
    build_model_only(&r);
    char *doc = render(cml_report_json, &r, &st);
    CHECK(st == CML_OK);
    check_json_valid(doc);
    CHECK_STR_CONTAINS(doc, "\"schema\": \"cumemlab-results\"");
    CHECK_STR_CONTAINS(doc, "\"schema_version\": 1,");
    CHECK_STR_CONTAINS(doc, "\"tool_version\": \"0.1.0\"");
    CHECK_STR_CONTAINS(doc, "\"model_only\": true");
    CHECK_STR_CONTAINS(doc, "\"device\": null");
    CHECK_STR_CONTAINS(doc, "\"peak_gbs\": null");
    CHECK_STR_CONTAINS(doc, "\"timing\": null");
    CHECK_STR_CONTAINS(doc, "\"occupancy\": null");
    CHECK_STR_CONTAINS(doc, "\"verify\": \"not_run\"");
    CHECK_STR_CONTAINS(doc, "\"state\": \"ok\"");
    CHECK_STR_CONTAINS(doc, "\"offset\": 11");
    CHECK_STR_CONTAINS(doc, "\"path\": \"ca\"");
    CHECK_STR_CONTAINS(doc, "\"sectors_per_request\": 5,");
    CHECK_STR_CONTAINS(doc, "\"efficiency\": 0.8\n");
    CHECK_STR_CONTAINS(doc, "\"efficiency\": 0.5\n");
    CHECK_STR_CONTAINS(doc, "\"bank_conflicts\": 1,");
    CHECK_STR_CONTAINS(doc, "\"counters\": []");
    CHECK_STR_CONTAINS(doc, "\"extra\": {}");
    /* Classes without instructions are left out. */
    CHECK(strstr(doc, "\"global_st\"") == NULL);
    CHECK(strstr(doc, "\"const_ld\"") == NULL);
    CHECK_EQ_U64(count_occurrences(doc, "\"experiment\": "), 3);
    /* Shared traffic: no bytes moved, so efficiency has no denominator. */
    CHECK_STR_CONTAINS(doc, "\"efficiency\": null");
    const char *numeric[] = { "bytes_read", "bytes_written", "grid", "block", "requests",
                              "sectors", "efficiency_bytes", "schema_version", "offset" };
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++)
        check_numeric_key(doc, numeric[i]);
    free(doc);
    cml_results_free(&r);
}

static void test_json_measured(void)
{
    cml_results r;
    cml_status st;
    build_measured(&r);
    char *doc = render(cml_report_json, &r, &st);
    CHECK(st == CML_OK);
    check_json_valid(doc);
    CHECK_STR_CONTAINS(doc, "\"model_only\": false");
    CHECK_STR_CONTAINS(doc, "\"name\": \"NVIDIA H100 80GB HBM3\"");
    CHECK_STR_CONTAINS(doc, "\"sm_count\": 132,");
    CHECK_STR_CONTAINS(doc, "\"l2_bytes\": 52428800,");
    CHECK_STR_CONTAINS(doc, "\"global_bytes\": 85899345920,");
    CHECK_STR_CONTAINS(doc, "\"theoretical_gbs\": 3352.32,");
    CHECK_STR_CONTAINS(doc, "\"ecc_enabled\": true,");
    CHECK_STR_CONTAINS(doc, "\"managed_memory\": false,");
    CHECK_STR_CONTAINS(doc, "\"peak_gbs\": 3000.5,");
    CHECK_STR_CONTAINS(doc, "\"bytes_written\": 18446744073709551615,");
    CHECK_STR_CONTAINS(doc, "\"bytes_read\": 1073741824,");
    CHECK_STR_CONTAINS(doc, "\"occupancy\": 0.75,");
    CHECK_STR_CONTAINS(doc, "\"median_ms\": 0.5,");
    CHECK_STR_CONTAINS(doc, "\"min_ms\": 0.1,");
    CHECK_STR_CONTAINS(doc, "\"max_ms\": 0.625,");
    CHECK_STR_CONTAINS(doc, "\"cv\": 0.0123\n");
    CHECK_STR_CONTAINS(doc, "\"reps\": 20,");
    CHECK_STR_CONTAINS(doc, "\"bandwidth_gbs\": 2500.4,");
    CHECK_STR_CONTAINS(doc, "\"peak_fraction\": 0.8333,");
    CHECK_STR_CONTAINS(doc, "\"bandwidth_gbs\": null,"); /* NaN */
    CHECK_STR_CONTAINS(doc, "\"verify\": \"passed\"");
    CHECK_STR_CONTAINS(doc, "\"verify\": \"failed\"");
    CHECK_STR_CONTAINS(doc, "\"state\": \"waived\"");
    CHECK_STR_CONTAINS(doc, "\"state\": \"failed\"");
    /* Escaping: quotes, backslash, tab, newline, control char; UTF-8 kept. */
    CHECK_STR_CONTAINS(doc, "\"variant\": \"copy \\\"a,b\\\"\\tq\\\\z\"");
    CHECK_STR_CONTAINS(doc, "\"note\": \"kernel, \\\"crashed\\\"\\nline2\\\\x\\u0001 caf\xc3\xa9\"");
    CHECK_STR_CONTAINS(doc, "\"note\": \"needs \\\"cc >= 9.0\\\", and this GPU is older\"");
    CHECK_STR_CONTAINS(doc, "a bad byte \\ufffd here.");
    CHECK_STR_CONTAINS(doc, "\"command_line\": \"cumemlab run copy --csv \\\"out, 1.csv\\\"\"");
    /* Counters and extras. */
    CHECK_STR_CONTAINS(doc, "\"name\": \"l1tex__t_sectors_ld.sum\",");
    CHECK_STR_CONTAINS(doc, "\"measured\": 1073741824,");
    CHECK_STR_CONTAINS(doc, "\"predicted\": null");
    CHECK_STR_CONTAINS(doc, "\"predicted\": 2\n");
    CHECK_STR_CONTAINS(doc, "\"pitch_bytes\": {");
    CHECK_STR_CONTAINS(doc, "\"value\": 512,");
    CHECK_STR_CONTAINS(doc, "\"unit\": \"B\"");
    /* A waived record has no model: null, not an empty object. */
    CHECK_STR_CONTAINS(doc, "\"model\": null");
    CHECK_STR_CONTAINS(doc, "\"global_st\": {");
    const char *numeric[] = { "bytes_read", "bytes_written", "grid", "block", "occupancy",
                              "median_ms", "bandwidth_gbs", "peak_fraction", "measured",
                              "predicted", "value", "sm_count", "l2_bytes", "theoretical_gbs",
                              "sectors_per_request", "efficiency", "reps", "cv" };
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++)
        check_numeric_key(doc, numeric[i]);
    CHECK(strstr(doc, "nan") == NULL && strstr(doc, "NaN") == NULL);
    CHECK(strstr(doc, "inf") == NULL);
    free(doc);

    /* Non-finite timing values are null too. */
    r.items[0].timing.median_ms = INFINITY;
    r.items[0].occupancy = NAN;
    doc = render(cml_report_json, &r, &st);
    check_json_valid(doc);
    CHECK_STR_CONTAINS(doc, "\"median_ms\": null,");
    CHECK(strstr(doc, "\"occupancy\": 0.75") == NULL);
    free(doc);
    cml_results_free(&r);
}

static const char *const CSV_HEADER =
    "experiment,variant,state,note,params,bytes_read,bytes_written,grid,block,occupancy,reps,"
    "median_ms,min_ms,max_ms,cv,bandwidth_gbs,peak_fraction,verify,"
    "modern_global_ld_requests,modern_global_ld_sectors,modern_global_ld_transactions,"
    "modern_global_ld_efficiency,modern_global_st_requests,modern_global_st_sectors,"
    "modern_global_st_transactions,modern_global_st_efficiency,modern_shared_ld_wavefronts,"
    "modern_shared_ld_conflicts,modern_shared_st_wavefronts,modern_shared_st_conflicts,"
    "modern_const_serialized,modern_local_ld_sectors,modern_local_st_sectors,"
    "fermi_global_ld_requests,fermi_global_ld_sectors,fermi_global_ld_transactions,"
    "fermi_global_ld_efficiency,fermi_global_st_requests,fermi_global_st_sectors,"
    "fermi_global_st_transactions,fermi_global_st_efficiency,fermi_shared_ld_wavefronts,"
    "fermi_shared_ld_conflicts,fermi_shared_st_wavefronts,fermi_shared_st_conflicts,"
    "fermi_const_serialized,fermi_local_ld_sectors,fermi_local_st_sectors,counters,finding\n";

/* Index of a header column, -1 if absent. */
static int col_index(const csv_row *header, const char *name)
{
    for (size_t i = 0; i < header->n; i++)
        if (strcmp(header->f[i], name) == 0)
            return (int)i;
    return -1;
}

/* Parse a whole CSV document; rows[0] is the header. Returns the row count,
 * or 0 when malformed. */
static size_t csv_parse_all(const char *doc, csv_row *rows, size_t max)
{
    const char *p = doc;
    size_t n = 0;
    int rc;
    while (n < max && (rc = csv_next(&p, &rows[n])) == 1)
        n++;
    if (n < max && rc == -1)
        return 0;
    return n;
}

static const char *field(const csv_row *rows, size_t row, const char *col)
{
    int c = col_index(&rows[0], col);
    if (c < 0 || (size_t)c >= rows[row].n)
        return "<missing>";
    return rows[row].f[c];
}

static void test_csv(void)
{
    cml_results r;
    cml_status st;
    csv_row rows[8];
    memset(rows, 0, sizeof rows);

    build_measured(&r);
    char *doc = render(cml_report_csv, &r, &st);
    CHECK(st == CML_OK);
    CHECK(strncmp(doc, CSV_HEADER, strlen(CSV_HEADER)) == 0);
    size_t n = csv_parse_all(doc, rows, 8);
    CHECK_EQ_U64(n, 1 + r.count);
    for (size_t i = 1; i < n; i++)
        CHECK_EQ_U64(rows[i].n, rows[0].n);
    CHECK_EQ_U64(rows[0].n, 50);
    if (n == 1 + r.count) {
        CHECK(strcmp(field(rows, 1, "variant"), WEIRD_VARIANT) == 0);
        CHECK(strcmp(field(rows, 1, "bytes_written"), "18446744073709551615") == 0);
        CHECK(strcmp(field(rows, 1, "bytes_read"), "1073741824") == 0);
        CHECK(strcmp(field(rows, 1, "occupancy"), "0.75") == 0);
        CHECK(strcmp(field(rows, 1, "reps"), "20") == 0);
        CHECK(strcmp(field(rows, 1, "median_ms"), "0.5") == 0);
        CHECK(strcmp(field(rows, 1, "cv"), "0.0123") == 0);
        CHECK(strcmp(field(rows, 1, "bandwidth_gbs"), "2500.4") == 0);
        CHECK(strcmp(field(rows, 1, "peak_fraction"), "0.8333") == 0);
        CHECK(strcmp(field(rows, 1, "verify"), "passed") == 0);
        CHECK(strcmp(field(rows, 1, "modern_global_ld_sectors"), "5") == 0);
        CHECK(strcmp(field(rows, 1, "modern_global_ld_efficiency"), "0.8") == 0);
        CHECK(strcmp(field(rows, 1, "fermi_global_ld_transactions"), "2") == 0);
        CHECK(strcmp(field(rows, 1, "fermi_global_ld_efficiency"), "0.5") == 0);
        CHECK(strcmp(field(rows, 1, "modern_shared_ld_wavefronts"), "0") == 0);
        CHECK(strcmp(field(rows, 1, "counters"),
                     "l1tex__t_sectors_ld.sum=5/5;l1tex__t_requests_st.sum=3/2;"
                     "dram__bytes_read.sum=1073741824/") == 0);
        CHECK(strcmp(field(rows, 1, "finding"),
                     "Copy \"with quotes\", commas and a bad byte \xff here.") == 0);
        /* Waived: note round-trips; unknown figures are empty, not 0. */
        CHECK(strcmp(field(rows, 2, "state"), "waived") == 0);
        CHECK(strcmp(field(rows, 2, "note"), "needs \"cc >= 9.0\", and this GPU is older") == 0);
        CHECK(strcmp(field(rows, 2, "median_ms"), "") == 0);
        CHECK(strcmp(field(rows, 2, "occupancy"), "") == 0);
        CHECK(strcmp(field(rows, 2, "modern_global_ld_sectors"), "") == 0);
        CHECK(strcmp(field(rows, 2, "verify"), "not_run") == 0);
        CHECK(strcmp(field(rows, 3, "state"), "failed") == 0);
        CHECK(strcmp(field(rows, 3, "note"), FAILED_NOTE) == 0);
        /* NaN bandwidth and unknown peak fraction: empty. */
        CHECK(strcmp(field(rows, 4, "bandwidth_gbs"), "") == 0);
        CHECK(strcmp(field(rows, 4, "peak_fraction"), "") == 0);
        CHECK(strcmp(field(rows, 4, "median_ms"), "0.1") == 0);
        CHECK(strcmp(field(rows, 4, "verify"), "failed") == 0);
        CHECK(strcmp(field(rows, 4, "modern_global_ld_efficiency"), "1") == 0);
        CHECK(strcmp(field(rows, 4, "counters"), "") == 0);
    }
    /* Quoting as written: quotes doubled inside a quoted field. */
    CHECK_STR_CONTAINS(doc, ",\"copy \"\"a,b\"\"\tq\\z\",");
    CHECK_STR_CONTAINS(doc, "\"kernel, \"\"crashed\"\"\nline2\\x\x01 caf\xc3\xa9\"");
    /* A field with nothing to quote is bare. */
    CHECK_STR_CONTAINS(doc, "\ncopy,tma,waived,");
    for (size_t i = 0; i < n; i++)
        csv_row_free(&rows[i]);
    free(doc);
    cml_results_free(&r);

    build_model_only(&r);
    doc = render(cml_report_csv, &r, &st);
    CHECK(st == CML_OK);
    n = csv_parse_all(doc, rows, 8);
    CHECK_EQ_U64(n, 1 + r.count);
    if (n == 1 + r.count) {
        CHECK(strcmp(field(rows, 1, "params"), "offset=0;path=ca") == 0);
        CHECK(strcmp(field(rows, 2, "params"), "offset=11;path=ca") == 0);
        CHECK(strcmp(field(rows, 2, "reps"), "") == 0);
        CHECK(strcmp(field(rows, 2, "median_ms"), "") == 0);
        CHECK(strcmp(field(rows, 2, "bandwidth_gbs"), "") == 0);
        CHECK(strcmp(field(rows, 2, "modern_global_ld_requests"), "1") == 0);
        CHECK(strcmp(field(rows, 2, "modern_global_ld_efficiency"), "0.8") == 0);
        CHECK(strcmp(field(rows, 3, "modern_shared_ld_wavefronts"), "2") == 0);
        CHECK(strcmp(field(rows, 3, "modern_shared_ld_conflicts"), "1") == 0);
        CHECK(strcmp(field(rows, 3, "modern_global_ld_efficiency"), "") == 0);
    }
    for (size_t i = 0; i < n; i++)
        csv_row_free(&rows[i]);
    free(doc);
    cml_results_free(&r);
}

/* ------------------------------------------------------------------ */
/* cml_report_write_file                                               */
/* ------------------------------------------------------------------ */

static cml_status failing_writer(FILE *out, const cml_results *r)
{
    (void)r;
    fputs("{\"partial\": ", out);
    return CML_EIO;
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Names in dir other than . and .., counted. */
static size_t dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d)
        return (size_t)-1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, m);
    fclose(m);
    fclose(f);
    return buf;
}

static void test_write_file(void)
{
    char dir[] = "/tmp/cml_test_report_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        CHECK(0);
        return;
    }
    cml_results r;
    cml_status st;
    build_measured(&r);
    char path[256], err[256];

    /* Success: the file holds exactly what the reporter writes. */
    snprintf(path, sizeof path, "%s/out.json", dir);
    st = cml_report_write_file(path, cml_report_json, &r, err, sizeof err);
    CHECK(st == CML_OK);
    char *want = render(cml_report_json, &r, &st);
    char *got = slurp(path);
    CHECK(got && strcmp(got, want) == 0);
    free(got);
    free(want);
    CHECK_EQ_U64(dir_entries(dir), 1);

    /* A writer that fails: error, message, no file, no temporary file. */
    char fpath[256];
    snprintf(fpath, sizeof fpath, "%s/fail.json", dir);
    err[0] = '\0';
    st = cml_report_write_file(fpath, failing_writer, &r, err, sizeof err);
    CHECK(st == CML_EIO);
    CHECK(err[0] != '\0');
    CHECK_STR_CONTAINS(err, fpath);
    CHECK(!file_exists(fpath));
    CHECK_EQ_U64(dir_entries(dir), 1);

    /* ... and a file already there is left as it was. */
    st = cml_report_write_file(path, failing_writer, &r, err, sizeof err);
    CHECK(st == CML_EIO);
    got = slurp(path);
    CHECK(got && strncmp(got, "{\n  \"schema\": \"cumemlab-results\"", 32) == 0);
    free(got);
    CHECK_EQ_U64(dir_entries(dir), 1);

    /* A folder that does not exist. */
    char mpath[256];
    snprintf(mpath, sizeof mpath, "%s/missing/out.csv", dir);
    err[0] = '\0';
    st = cml_report_write_file(mpath, cml_report_csv, &r, err, sizeof err);
    CHECK(st == CML_EIO);
    CHECK_STR_CONTAINS(err, "cannot create");
    CHECK_STR_CONTAINS(err, mpath);
    CHECK(!file_exists(mpath));
    CHECK_EQ_U64(dir_entries(dir), 1);

    /* No room for a message is fine too. */
    st = cml_report_write_file(mpath, cml_report_csv, &r, NULL, 0);
    CHECK(st == CML_EIO);

    /* Reporters report a stream that cannot be written. */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        CHECK(cml_report_json(full, &r) == CML_EIO);
        clearerr(full);
        CHECK(cml_report_csv(full, &r) == CML_EIO);
        clearerr(full);
        CHECK(cml_report_table(full, &r) == CML_EIO);
        fclose(full);
    }

    remove(path);
    rmdir(dir);
    cml_results_free(&r);
}

/* Counter labels for every metric of the counter map and the probes, and
 * the one-line form of a record's counters. */
static void test_counter_labels_and_line(void)
{
    static const char *const expect[][2] = {
        {"smsp__inst_executed_op_global_ld.sum", "ld.inst"},
        {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "ld.requests"},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "ld.sectors"},
        {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "ld.eff"},
        {"smsp__inst_executed_op_global_st.sum", "st.inst"},
        {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "st.requests"},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "st.sectors"},
        {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", "st.eff"},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "L1hit"},
        {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "L2hit"},
        {"lts__t_sectors_srcunit_tex_op_read.sum", "L2rd"},
        {"lts__t_sectors_srcunit_tex_op_write.sum", "L2wr"},
        {"dram__bytes_read.sum", "DRAMrd"},
        {"dram__bytes_write.sum", "DRAMwr"},
        {"lts__t_sectors_aperture_device_op_read_lookup_miss.sum", "L2miss.all"},
        {"lts__t_sectors_srcnode_gpc_aperture_device_op_read_lookup_miss.sum", "L2miss.gpc"},
        {"lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum", "L2miss.fwd"},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "sld.wavefronts"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "sld.bank_conflicts"},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "sst.wavefronts"},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "sst.bank_conflicts"},
        {"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", "lld.requests"},
        {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "lld.sectors"},
        {"l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", "lst.requests"},
        {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "lst.sectors"},
        {"smsp__inst_executed_op_shared_ld.sum", "sld.inst"},
        {"smsp__inst_executed_op_shared_st.sum", "sst.inst"},
        {"sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg"}, /* not known: unchanged */
    };
    char buf[64];
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        cml_rep_counter_label(expect[i][0], buf, sizeof buf);
        CHECK(!strcmp(buf, expect[i][1]));
        if (strcmp(buf, expect[i][1]))
            fprintf(stderr, "  %s: label %s, expected %s\n", expect[i][0], buf, expect[i][1]);
    }
    cml_rep_counter_value("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", 80.0,
                          buf, sizeof buf);
    CHECK(!strcmp(buf, "80.00%"));
    cml_rep_counter_value("dram__bytes_read.sum", 157286400.0, buf, sizeof buf);
    CHECK(!strcmp(buf, "150.00MiB"));
    cml_rep_counter_value("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 6143998.0, buf,
                          sizeof buf);
    CHECK(!strcmp(buf, "6143998"));
    cml_rep_counter_value("x.sum", 2.5, buf, sizeof buf);
    CHECK(!strcmp(buf, "2.50"));

    /* read-offset offset=1 as measured on the H100: everything agrees. */
    cml_record rec;
    memset(&rec, 0, sizeof rec);
    const struct { const char *name; double measured, predicted; int has; } c[] = {
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 6143998, 6143998, 1},
        {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", 80, 80, 1},
        {"dram__bytes_read.sum", 157305344, 0, 0},
        {"lts__t_sectors_srcunit_tex_op_read.sum", 6143998, 0, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        snprintf(rec.counters[i].name, sizeof rec.counters[i].name, "%s", c[i].name);
        rec.counters[i].measured = c[i].measured;
        rec.counters[i].predicted = c[i].predicted;
        rec.counters[i].has_prediction = c[i].has;
    }
    rec.ncounters = 4;
    char line[512];
    cml_rep_counters_line(&rec, line, sizeof line);
    CHECK(!strcmp(line, "= 2 of 2 agree: ld.sectors 6143998, ld.eff 80.00% | DRAMrd 150.02MiB, "
                        "L2rd 6143998"));
    /* No prediction at all: no verdict, just the counters. */
    rec.counters[0].has_prediction = rec.counters[1].has_prediction = 0;
    cml_rep_counters_line(&rec, line, sizeof line);
    CHECK(!strcmp(line, "ld.sectors 6143998, ld.eff 80.00%, DRAMrd 150.02MiB, L2rd 6143998"));
    /* A buffer too small is cut, never overrun. */
    char small[16];
    cml_rep_counters_line(&rec, small, sizeof small);
    CHECK(strlen(small) == sizeof small - 1);
    rec.ncounters = 0;
    cml_rep_counters_line(&rec, line, sizeof line);
    CHECK(line[0] == '\0');
}

/* The peak classes: the header lists the reference of each class, and the
 * column "of" names the class each record's "peak %" is of (a read-only
 * record at 3130 GB/s is 100% of the read class; a copy at 1503 GB/s is
 * 50% of the copy's 3006). */
static void test_table_wide(void)
{
    cml_results r;
    cml_status st;
    char dl[512];
    build_wide(&r);
    char *t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    show(t);
    check_lines(t, 130);
    CHECK_STR_CONTAINS(t, "(left out to fit 130 columns: ");
    CHECK_STR_CONTAINS(t, "global_ld modern requests");
    /* ... and brought back where a panel has room. */
    CHECK(line_with(after_summary(t), "wf/req", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "requests");
    /* Two panels, each repeating the variant column. */
    CHECK_EQ_U64(count_occurrences(after_summary(t), "everything at once"), 2);
    CHECK_EQ_U64(count_occurrences(after_summary(t), "\nvariant "), 2);
    /* What matters most stays. */
    CHECK_STR_CONTAINS(t, "GB/s");
    CHECK_STR_CONTAINS(t, "1234.5");
    CHECK_STR_CONTAINS(t, "- const_ld -");
    CHECK_STR_CONTAINS(t, "ser/req");
    CHECK_STR_CONTAINS(t, "3.00");
    CHECK_STR_CONTAINS(t, "- shared_ld -");
    CHECK_STR_CONTAINS(t, "- local_ld -");
    CHECK_STR_CONTAINS(t, "median ms");
    CHECK_STR_CONTAINS(t, "12.500");
    free(t);
    cml_results_free(&r);

    /* No records at all. */
    cml_results_init(&r);
    t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    CHECK_STR_CONTAINS(t, "No records.");
    free(t);
    char *j = render(cml_report_json, &r, &st);
    CHECK(st == CML_OK);
    check_json_valid(j);
    CHECK_STR_CONTAINS(j, "\"records\": []");
    free(j);
    char *c = render(cml_report_csv, &r, &st);
    CHECK(st == CML_OK);
    CHECK(strcmp(c, CSV_HEADER) == 0);
    free(c);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_fmt_double();
    test_validator();
    test_json_model_only();
    test_json_measured();
    test_csv();
    test_table_wide();
    test_write_file();
    test_counter_labels_and_line();
    return cml_test_summary("test_report");
}
