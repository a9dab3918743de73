/*
 * The reader fed in pieces (src/report/json_parse.c, results_file.c,
 * gzip_input.c): a results document read whole from memory and read
 * through a cml_jinput that hands over 1, 2, 3, 5, 7 or 4096 bytes at a
 * time gives the same records, or the same message, for a document full of
 * escapes, surrogate pairs and multi-byte characters and for thousands of
 * mutations of it (every cut of the window falls somewhere new). Also: the
 * streamed array's contract (each element once, in order; the root keeps
 * the count), messages in the order a whole-tree reader gives them (syntax
 * first, then the top level, then the first bad record, wherever the
 * records sit in the text), a read error passed on as it is, and gzip
 * files: one member, two, cut short, corrupt, followed by bytes that are
 * not gzip, read from a file and from standard input; a build without zlib
 * says so. CML_EXPECT_ZLIB (set by the build for ctest) says which build
 * this is, so a build that lost zlib by accident fails here.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(CML_HAVE_ZLIB)
#include <zlib.h>
#endif

#include "core/record.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report_test_util.h"
#include "test_util.h"

static char *render_json(const cml_results *r, size_t *len)
{
    cml_status st;
    char *buf = render_to_memory(cml_report_json, r, len, &st);
    CHECK(st == CML_OK);
    return buf;
}

/* A document of `n` records with every kind of value the schema has, and a
 * finding written with escapes, a surrogate pair and raw UTF-8. */
static char *build_document(size_t n, size_t *len)
{
    cml_results r;
    cml_results_init(&r);
    snprintf(r.command_line, sizeof r.command_line, "cumemlab suite --json \"x y\".json");
    snprintf(r.tool_version, sizeof r.tool_version, "0.1.0");
    r.model_only = 1;
    cml_results_diag(&r, CML_DIAG_WARNING, "stride", "a \"quoted\"\tdiagnostic");
    for (size_t i = 0; i < n; i++) {
        char variant[64];
        snprintf(variant, sizeof variant, "offset=%zu path=ca", i);
        cml_record *a = cml_results_add(&r, i % 3 ? "read-offset" : "stride", variant);
        cml_record_add_param(a, "offset", (int64_t)i, NULL);
        cml_record_add_param(a, "path", 0, "ca");
        a->bytes_read = UINT64_MAX - i;
        a->bytes_written = i * 4;
        a->grid = 32768;
        a->block = 512;
        a->has_model = 1;
        a->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD] =
            (cml_traffic){1048576, 1048576, 5242880 + i, 2097152, 5242880, 167772160, 167772160,
                          134217728, 134217728, 0, 0, 0, 0};
        a->ncounters = 1;
        snprintf(a->counters[0].name, sizeof a->counters[0].name, "l1tex__t_sectors.sum");
        a->counters[0].measured = 5242880.0 + (double)i / 7;
        a->counters[0].has_prediction = i % 2;
        a->counters[0].predicted = 5242880;
        cml_record_add_extra(a, "tiny", -2.5e-7 * (double)(i + 1), "s");
        cml_record_finding(a, "Finding %zu: <html> & \"quotes\", tab\t, newline\n, caf\xc3\xa9 "
                              "\xe2\x82\xac \xf0\x9f\x98\x80.",
                           i);
    }
    char *text = render_json(&r, len);
    cml_results_free(&r);
    /* The writer writes UTF-8 as it is: spell one finding with escapes (the
     * same text, so the records read back alike either way). */
    const char *raw = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
    const char *esc = "caf\\u00E9 \\u20ac \\ud83d\\uDE00";
    char *at = strstr(text, raw);
    if (at) {
        size_t before = (size_t)(at - text), rl = strlen(raw), el = strlen(esc);
        char *out = malloc(*len - rl + el + 1);
        memcpy(out, text, before);
        memcpy(out + before, esc, el);
        memcpy(out + before + el, at + rl, *len - before - rl + 1);
        *len = *len - rl + el;
        free(text);
        text = out;
    }
    return text;
}

/* ------------------------------------------------------------------ */
/* Pieces                                                             */
/* ------------------------------------------------------------------ */

typedef struct pieces {
    const char *text;
    size_t len, pos, step;
    size_t fail_at;            /* a read error once this many bytes are given (0: none) */
} pieces;

static cml_status piece_read(void *ctx, char *buf, size_t cap, size_t *got, char *err,
                             size_t errlen)
{
    pieces *p = ctx;
    if (p->fail_at && p->pos >= p->fail_at) {
        if (err && errlen)
            snprintf(err, errlen, "read failed: the test's input broke at byte %zu", p->pos);
        return CML_EIO;
    }
    size_t n = p->len - p->pos;
    if (n > p->step)
        n = p->step;
    if (n > cap)
        n = cap;
    memcpy(buf, p->text + p->pos, n);
    p->pos += n;
    *got = n;
    return CML_OK;
}

/* text read whole and in pieces of `step`: the same status, message and
 * records. Returns the status. */
static cml_status same_both_ways(const char *text, size_t len, size_t step)
{
    cml_results whole, part;
    char e1[640] = "", e2[640] = "";
    cml_status s1 = cml_results_from_json(text, len, &whole, e1, sizeof e1);
    pieces p = {text, len, 0, step, 0};
    cml_jinput in = {NULL, 0, piece_read, &p};
    cml_status s2 = cml_results_from_input(&in, &part, e2, sizeof e2);
    cml_test_checks++;
    if (s1 != s2 || strcmp(e1, e2) != 0) {
        cml_test_failures++;
        fprintf(stderr, "pieces of %zu: status %d \"%s\", whole %d \"%s\"\n", step, (int)s2, e2,
                (int)s1, e1);
    }
    if (s1 == CML_OK && s2 == CML_OK) {
        size_t n1, n2;
        char *j1 = render_json(&whole, &n1), *j2 = render_json(&part, &n2);
        CHECK(whole.count == part.count && n1 == n2 && memcmp(j1, j2, n1) == 0);
        free(j1);
        free(j2);
    }
    cml_results_free(&whole);
    cml_results_free(&part);
    return s1;
}

static void test_pieces(void)
{
    size_t len;
    char *text = build_document(40, &len);
    CHECK(strstr(text, "\\ud83d\\uDE00") != NULL);
    static const size_t steps[] = {1, 2, 3, 5, 7, 4096};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
        CHECK(same_both_ways(text, len, steps[k]) == CML_OK);
    cml_results r;
    char err[640];
    CHECK(cml_results_from_json(text, len, &r, err, sizeof err) == CML_OK);
    CHECK(r.count == 40 && r.ndiags == 1);
    if (r.count == 40) {
        CHECK(!strcmp(r.items[39].variant, "offset=39 path=ca"));
        CHECK(r.items[39].bytes_read == UINT64_MAX - 39);
        CHECK(strstr(r.items[0].finding, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") != NULL);
    }
    cml_results_free(&r);

    /* Cuts and single-byte changes: whatever the message, the same both
     * ways, wherever a piece ends. */
    char *buf = malloc(len);
    size_t ok = 0, bad = 0;
    for (size_t cut = 0; cut < len; cut += 97) {
        memcpy(buf, text, cut);
        if (same_both_ways(buf, cut, 1 + cut % 7) == CML_OK)
            ok++;
        else
            bad++;
    }
    uint32_t seed = 2718;
    static const char bytes[] = "{}[],:\"\\0123456789.eE+-nultrfasuU \n\x01\xff\xc3\xf0";
    for (int k = 0; k < 3000; k++) {
        memcpy(buf, text, len);
        seed = seed * 1664525u + 1013904223u;
        size_t at = (seed >> 8) % len;
        seed = seed * 1664525u + 1013904223u;
        buf[at] = bytes[(seed >> 8) % (sizeof bytes - 1)];
        if (same_both_ways(buf, len, 1 + (size_t)k % 5) == CML_OK)
            ok++;
        else
            bad++;
    }
    CHECK(ok > 100 && bad > 1000);
    free(buf);

    /* A read error: passed on as it is, with no "line L" of its own. */
    cml_results part;
    pieces p = {text, len, 0, 100, 5000};
    cml_jinput in = {NULL, 0, piece_read, &p};
    CHECK(cml_results_from_input(&in, &part, err, sizeof err) == CML_EIO);
    CHECK(!strcmp(err, "read failed: the test's input broke at byte 5000"));
    CHECK(part.count == 0 && part.items == NULL);
    cml_results_free(&part);
    free(text);
}

/* ------------------------------------------------------------------ */
/* The streamed array                                                 */
/* ------------------------------------------------------------------ */

typedef struct seen {
    size_t n;
    int64_t sum;
    size_t fail_at;            /* refuse this element with CML_ENOMEM (SIZE_MAX: none) */
} seen;

static cml_status count_item(void *ctx, const cml_jval *v, size_t index)
{
    seen *s = ctx;
    int64_t x = 0;
    CHECK(index == s->n);
    if (index == s->fail_at)
        return CML_ENOMEM;
    const cml_jval *a = cml_jobject_get(v, "a");
    CHECK(a && cml_jval_i64(a, &x));
    s->sum += x;
    s->n++;
    return CML_OK;
}

static void test_stream_contract(void)
{
    const char *doc = "{\"x\": [1, {\"records\": [9]}], \"records\": [{\"a\": 1}, {\"a\": 20},\n"
                      " {\"a\": 300, \"b\": [[], {}]}], \"z\": {\"records\": [{\"a\": 4000}]}}";
    seen s = {0, 0, SIZE_MAX};
    cml_jstream st = {"records", count_item, &s, NULL};
    cml_jinput in = {doc, strlen(doc), NULL, NULL};
    cml_jdoc *d;
    char err[256];
    CHECK(cml_jdoc_parse_input(&in, &st, &d, err, sizeof err) == CML_OK);
    /* Only the root's member: nested "records" stay in the tree. */
    CHECK(s.n == 3 && s.sum == 321);
    const cml_jval *rec = cml_jobject_get(cml_jdoc_root(d), "records");
    CHECK(rec && rec->type == CML_J_ARRAY && rec->count == 3 && rec->items == NULL);
    const cml_jval *z = cml_jobject_get(cml_jdoc_root(d), "z");
    CHECK(z && cml_jobject_get(z, "records") && cml_jobject_get(z, "records")->count == 1 &&
          cml_jobject_get(z, "records")->items != NULL);
    cml_jdoc_free(d);

    /* The callback stops the parse with its status. */
    s = (seen){0, 0, 1};
    CHECK(cml_jdoc_parse_input(&in, &st, &d, err, sizeof err) == CML_ENOMEM && d == NULL);
    CHECK(s.n == 1);

    /* A syntax error after the elements still fails the parse. */
    const char *late = "{\"records\": [{\"a\": 1}, {\"a\": 2}], \"b\": tru}";
    cml_jinput in2 = {late, strlen(late), NULL, NULL};
    s = (seen){0, 0, SIZE_MAX};
    CHECK(cml_jdoc_parse_input(&in2, &st, &d, err, sizeof err) == CML_EINVAL && d == NULL);
    CHECK(s.n == 2);
    CHECK_STR_CONTAINS(err, "line 1, column 40 (byte 39): invalid literal");
}

/* Messages in the whole-tree order: the top level's error before a record's
 * even when the records come first; a syntax error after a bad record
 * before both; of two bad records, the first. */
static void test_message_order(void)
{
    static const char *const head =
        "\"schema\": \"cumemlab-results\", \"schema_version\": 1, \"tool_version\": \"0.1.0\", "
        "\"command_line\": \"x\", \"model_only\": true, \"device\": null, \"peak_gbs\": null";
    static const char *const bad_rec = "{\"experiment\": 5}";
    char doc[1024];
    cml_results r;
    char err[640];

    snprintf(doc, sizeof doc, "{\"records\": [%s], %s}", bad_rec, head);
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "records[0].experiment: expected a string, found a number");
    cml_results_free(&r);

    /* The same record, but the top level lacks "schema": that comes first. */
    snprintf(doc, sizeof doc, "{\"records\": [%s], %s}", bad_rec, strchr(head, ',') + 2);
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "line 1, column 1 (byte 0): top level: missing member \"schema\"");
    CHECK(r.count == 0);
    cml_results_free(&r);

    /* A syntax error after the bad record comes first. */
    snprintf(doc, sizeof doc, "{\"records\": [%s], %s, \"extra\": [1,]}", bad_rec, head);
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "trailing comma before ']'");
    cml_results_free(&r);

    /* Two bad records: the first one's message. */
    snprintf(doc, sizeof doc, "{%s, \"records\": [{}, %s]}", head, bad_rec);
    CHECK(cml_results_from_json(doc, strlen(doc), &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "records[0]: missing member \"experiment\"");
    cml_results_free(&r);
}

/* ------------------------------------------------------------------ */
/* gzip                                                               */
/* ------------------------------------------------------------------ */

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

/* Read `path` (or, with `as_stdin`, standard input redirected from it). */
static cml_status read_path(const char *path, int as_stdin, cml_results *r, char *err,
                            size_t errlen)
{
    if (!as_stdin)
        return cml_results_read_file(path, r, err, errlen);
    FILE *f = freopen(path, "rb", stdin);
    CHECK(f != NULL);
    cml_status st = cml_results_read_file("-", r, err, errlen);
    clearerr(stdin);
    return st;
}

#if defined(CML_HAVE_ZLIB)
/* One gzip member of n bytes of text. */
static unsigned char *gzip_member(const char *text, size_t n, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)text;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}
#endif

static void test_gzip(const char *dir, int expect_zlib)
{
    char path[512];
    snprintf(path, sizeof path, "%s/results.json.gz", dir);
    cml_results r;
    char err[640];
    CHECK(cml_results_gzip_supported() == expect_zlib);
#if defined(CML_HAVE_ZLIB)
    size_t len, n1, n2;
    char *text = build_document(300, &len); /* several windows of 64 KiB */
    CHECK(len > 3 * 65536);
    unsigned char *a = gzip_member(text, len / 3, &n1);
    unsigned char *b = gzip_member(text + len / 3, len - len / 3, &n2);
    unsigned char *both = malloc(n1 + n2 + 8);
    memcpy(both, a, n1);
    memcpy(both + n1, b, n2);
    cml_results whole;
    CHECK(cml_results_from_json(text, len, &whole, err, sizeof err) == CML_OK);
    size_t wn;
    char *want = render_json(&whole, &wn);
    cml_results_free(&whole);

    /* Two members make one text, read from a file and from standard input. */
    for (int as_stdin = 0; as_stdin < 2; as_stdin++) {
        write_file(path, both, n1 + n2);
        cml_status st = read_path(path, as_stdin, &r, err, sizeof err);
        if (st != CML_OK)
            fprintf(stderr, "%s\n", err);
        CHECK(st == CML_OK && r.count == 300);
        if (st == CML_OK) {
            size_t gn;
            char *got = render_json(&r, &gn);
            CHECK(gn == wn && memcmp(got, want, wn) == 0);
            free(got);
        }
        cml_results_free(&r);
    }
    /* Cut short inside the second member. */
    write_file(path, both, n1 + n2 / 2);
    CHECK(cml_results_read_file(path, &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "results.json.gz: gzip data cut short");
    cml_results_free(&r);
    /* A flipped byte in the compressed data: corrupt (or a bad CRC). */
    both[n1 / 2] ^= 0x55;
    write_file(path, both, n1 + n2);
    CHECK(cml_results_read_file(path, &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "results.json.gz: gzip data corrupt near compressed byte");
    cml_results_free(&r);
    both[n1 / 2] ^= 0x55;
    /* A whole member followed by bytes that are not gzip. */
    memcpy(both + n1, "garbage!", 8);
    write_file(path, both, n1 + 8);
    CHECK(cml_results_read_file(path, &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "gzip data corrupt");
    cml_results_free(&r);
    /* gzip of text that is not JSON: the parser's message, located. */
    unsigned char *c = gzip_member("{\"a\" 1}", 7, &n1);
    write_file(path, c, n1);
    CHECK(cml_results_read_file(path, &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "results.json.gz: line 1, column 6 (byte 5): expected ':'");
    cml_results_free(&r);
    free(c);
    free(a);
    free(b);
    free(both);
    free(want);
    free(text);
#else
    /* No zlib: the magic bytes are enough to say so, and nothing is read. */
    write_file(path, "\x1f\x8b\x08\x00 anything", 13);
    for (int as_stdin = 0; as_stdin < 2; as_stdin++) {
        CHECK(read_path(path, as_stdin, &r, err, sizeof err) == CML_EUNSUPPORTED);
        CHECK_STR_CONTAINS(err, "compressed with gzip, but this cumemlab was built without zlib");
        CHECK(r.count == 0);
        cml_results_free(&r);
    }
#endif
    /* Plain JSON whose name says .gz is read as JSON: the bytes decide. */
    const char *plain = "{\"schema\": \"other\"}";
    write_file(path, plain, strlen(plain));
    CHECK(cml_results_read_file(path, &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "schema: \"other\" is not \"cumemlab-results\"");
    cml_results_free(&r);
    /* One byte, the first of the magic: not gzip, not JSON. */
    write_file(path, "\x1f", 1);
    CHECK(cml_results_read_file(path, &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "line 1, column 1 (byte 0): unexpected byte 0x1f");
    cml_results_free(&r);
    unlink(path);
}

int main(void)
{
    char dir[] = "/tmp/cml_test_stream_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    const char *want = getenv("CML_EXPECT_ZLIB");
    int expect_zlib = want ? atoi(want) : cml_results_gzip_supported();
    test_pieces();
    test_stream_contract();
    test_message_order();
    test_gzip(dir, expect_zlib);
    rmdir(dir);
    return cml_test_summary("test_json_stream");
}
