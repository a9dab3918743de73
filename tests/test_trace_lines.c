/*
 * PCs to source lines (src/trace/trace_lines.h) on a committed cubin:
 * tests/data/trace/lines.cubin, lines.cu compiled by nvcc 13.0 with
 * -lineinfo -arch=sm_90 (two kernels, so each row must find its function
 * through the relocations). The rows below are its line table as binutils'
 * readelf --debug-dump=decodedline prints it, an independent reading of the
 * same bytes. Then damaged copies: every prefix, every byte changed,
 * parsed or refused, never a crash.
 *
 * Then a trace whose function names that cubin: its instructions get their
 * lines in the report (and do when the trace and its cubins have moved).
 *
 * `test_trace_lines CUBIN` prints a cubin's rows as "FUNCTION LINE 0xPC"
 * (0 for a sequence's end), for tests/cli/test_trace_lines.sh, which
 * compares them with readelf's on a cubin the build compiles afresh.
 */
#define _XOPEN_SOURCE 700 /* getpid, mkdir */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"
#include "trace/trace_lines.h"
#include "trace/trace_report.h"
#include "trace/trace_sass.h"

typedef struct row {
    uint32_t pc, line;
} row;

/* naiveRow: lines 3-9 of lines.cu; readOffset: lines 11-18 (0: the end). */
static const row naive_rows[] = {{0x0, 3},   {0x10, 6},  {0x20, 5},  {0x30, 7},
                                 {0x40, 6},  {0x50, 5},  {0x70, 6},  {0x90, 5},
                                 {0xa0, 7},  {0xd0, 8},  {0x160, 9}, {0x200, 0}};
static const row offset_rows[] = {{0x0, 11},  {0x10, 14},  {0x50, 15}, {0x70, 16},
                                  {0x90, 17}, {0x140, 18}, {0x200, 0}};

static void check_rows(const cml_tf_lines *l, const char *func, const row *want, size_t n)
{
    size_t f = 0;
    while (f < l->nfuncs && strcmp(l->funcs[f], func))
        f++;
    CHECK(f < l->nfuncs);
    size_t k = 0;
    for (size_t i = 0; i < l->nrows; i++) {
        if (l->rows[i].func != f)
            continue;
        if (k < n) {
            CHECK_EQ_U64(l->rows[i].pc, want[k].pc);
            CHECK_EQ_U64(l->rows[i].line, want[k].line);
            CHECK(l->rows[i].file < l->nfiles &&
                  strstr(l->files[l->rows[i].file], "lines.cu") != NULL);
        }
        k++;
    }
    CHECK_EQ_U64(k, n);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = malloc(1u << 16);
    *n = f && b ? fread(b, 1, 1u << 16, f) : 0;
    if (f)
        fclose(f);
    return b;
}

static void test_table(void)
{
    cml_tf_lines l;
    char err[300] = "";
    CHECK_EQ_I64(cml_tf_lines_read(CML_TRACE_DATA "/lines.cubin", &l, err, sizeof err), 0);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_U64(l.nfuncs, 2);
    check_rows(&l, "naiveRow", naive_rows, sizeof naive_rows / sizeof naive_rows[0]);
    check_rows(&l, "readOffset", offset_rows, sizeof offset_rows / sizeof offset_rows[0]);
    /* lookups: the row at or before the pc, none past a sequence's end */
    const cml_tf_line *r = cml_tf_lines_find(&l, "naiveRow", 0x168);
    CHECK(r && r->line == 9);
    r = cml_tf_lines_find(&l, "naiveRow", 0xd0);
    CHECK(r && r->line == 8);
    r = cml_tf_lines_find(&l, "naiveRow", 0xcf);
    CHECK(r && r->line == 7);
    r = cml_tf_lines_find(&l, "readOffset", 0x100);
    CHECK(r && r->line == 17);
    CHECK(cml_tf_lines_find(&l, "readOffset", 0x200) == NULL);
    CHECK(cml_tf_lines_find(&l, "nosuch", 0x10) == NULL);
    cml_tf_lines_free(&l);
}

static void test_hostile(void)
{
    size_t n = 0;
    uint8_t *b = slurp(CML_TRACE_DATA "/lines.cubin", &n);
    CHECK(b != NULL && n > 1000);
    if (!b)
        return;
    cml_tf_lines l;
    char err[300];
    CHECK_EQ_I64(cml_tf_lines_parse(b, 10, &l, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "not an ELF file");
    uint8_t *copy = malloc(n);
    /* every prefix (each a buffer of its exact size: ASan sees an overread) */
    for (size_t k = 0; k < n && copy; k += 7) {
        uint8_t *p = malloc(k ? k : 1);
        memcpy(p, b, k);
        if (cml_tf_lines_parse(p, k, &l, err, sizeof err) == 0)
            cml_tf_lines_free(&l);
        free(p);
    }
    /* every byte set to a few values */
    static const uint8_t values[] = {0x00, 0x01, 0x7F, 0x80, 0xFF};
    size_t parsed = 0;
    for (size_t at = 0; at < n && copy; at++) {
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(copy, b, n);
            copy[at] = values[v];
            if (cml_tf_lines_parse(copy, n, &l, err, sizeof err) == 0) {
                parsed++;
                for (size_t i = 0; i < l.nrows; i++)
                    CHECK(l.rows[i].func < l.nfuncs && l.rows[i].file < l.nfiles);
                cml_tf_lines_free(&l);
            } else {
                CHECK(strchr(err, '\n') == NULL);
            }
        }
    }
    CHECK(parsed > 0);
    free(copy);
    free(b);
}

/* A trace of naiveRow (one launch of one warp: its load at 0xd0 and its
 * store at 0x160, lines 8 and 9 by the table above) naming `cubin`. */
static int write_trace(const char *path, const char *cubin)
{
    char err[300];
    cml_tf_header h = {"test", 90, 132, 0, "", 0, 1u << 20, "test_trace_lines"};
    cml_tf_writer *w = cml_tf_writer_open(path, &h, err, sizeof err);
    if (!w)
        return -1;
    cml_tf_func f = {0, "naiveRow", "", 1, cubin};
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    k.grid[0] = k.grid[1] = k.grid[2] = 1;
    k.block[0] = 32;
    k.block[1] = k.block[2] = 1;
    k.warps_total = k.stride = k.warps_recorded = 1;
    cml_tf_ins ins[2];
    memset(ins, 0, sizeof ins);
    for (int i = 0; i < 2; i++) {
        ins[i].pc = i ? 0x160 : 0xd0;
        ins[i].op = i ? CML_TF_STORE : CML_TF_LOAD;
        ins[i].size = 4;
        ins[i].active = 0xFFFFFFFFu;
        for (unsigned l = 0; l < 32; l++)
            ins[i].addr[l] = i ? 4096u + 128u * l : 4u * l;
    }
    int rc = cml_tf_write_func(w, &f) | cml_tf_write_kernel(w, &k, ins, 2);
    return cml_tf_writer_close(w) | rc;
}

/* The report of the trace at path, in buf. */
static void report_text(const char *path, const char *name, char *buf, size_t len)
{
    cml_trace t;
    char err[400];
    buf[0] = '\0';
    if (cml_tf_read(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        CHECK(0);
        return;
    }
    cml_tf_model m;
    cml_tf_sources src;
    CHECK_EQ_I64(cml_tf_model_kernel(&t, &t.kernel[0], &m), CML_OK);
    CHECK_EQ_I64(cml_tf_sources_load(&t, path, &src), CML_OK);
    CHECK_EQ_U64(src.unreadable, 0);
    const char *file = NULL;
    const cml_tf_line *l = cml_tf_sources_find(&src, &t, 0, 0x160, &file);
    CHECK(l && l->line == 9 && file && strstr(file, "lines.cu"));
    /* with a disassembler, the store's SASS (naiveRow +0x160: its EXIT) */
    if (src.disassembled)
        CHECK(cml_tf_sources_sass(&src, &t, 0, 0x160) != NULL);
    cml_tf_report r = {&t, &m, name, 3, 10, &src, NULL, NULL};
    FILE *f = tmpfile();
    if (f) {
        cml_tf_report_text(f, &r);
        rewind(f);
        size_t n = fread(buf, 1, len - 1u, f);
        buf[n] = '\0';
        fclose(f);
        if (src.disassembled)
            CHECK_STR_CONTAINS(buf, "\n   sass     EXIT\n");
    }
    cml_tf_sources_free(&src);
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

static void test_report_lines(void)
{
    char dir[256], path[300], cubins[320], copy[400];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cml_trace_lines_%ld", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/app.trace", dir);
    static char text[16384];
    /* the cubin where the trace names it */
    CHECK_EQ_I64(write_trace(path, CML_TRACE_DATA "/lines.cubin"), 0);
    report_text(path, "app.trace", text, sizeof text);
    CHECK_STR_CONTAINS(text, "#1 naiveRow +0x0160 (lines.cu:9): global store");
    CHECK_STR_CONTAINS(text, "#2 naiveRow +0x00d0 (lines.cu:8): global load");
    /* moved: named where it no longer is, found in app.trace.cubins/ */
    snprintf(cubins, sizeof cubins, "%s/app.trace.cubins", dir);
    mkdir(cubins, 0777);
    snprintf(copy, sizeof copy, "%s/module-1.cubin", cubins);
    size_t n = 0;
    uint8_t *b = slurp(CML_TRACE_DATA "/lines.cubin", &n);
    FILE *f = fopen(copy, "wb");
    CHECK(b && f && fwrite(b, 1, n, f) == n);
    if (f)
        fclose(f);
    free(b);
    CHECK_EQ_I64(write_trace(path, "/nonexistent/app.trace.cubins/module-1.cubin"), 0);
    report_text(path, "app.trace", text, sizeof text);
    CHECK_STR_CONTAINS(text, "(lines.cu:9)");
    remove(copy);
    rmdir(cubins);
    remove(path);
    rmdir(dir);
}

/*
 * PCs to SASS (src/trace/trace_sass.h): tests/data/trace/lines.sass is
 * `nvdisasm -c lines.cubin` (nvdisasm 13.2): 32 instructions in each of
 * the two functions. Then the disassembler itself where one is found.
 */
static void check_sass(const cml_tf_sass *s)
{
    CHECK_EQ_U64(s->nfuncs, 2);
    CHECK_EQ_U64(s->nins, 64);
    const char *x = cml_tf_sass_find(s, "naiveRow", 0x120);
    CHECK(x && !strcmp(x, "LDG.E R3, desc[UR4][R2.64]"));
    x = cml_tf_sass_find(s, "readOffset", 0x130);
    CHECK(x && !strcmp(x, "STG.E desc[UR4][R6.64], R9"));
    x = cml_tf_sass_find(s, "readOffset", 0x80);
    CHECK(x && !strcmp(x, "@P0 EXIT"));
    CHECK(cml_tf_sass_find(s, "readOffset", 0x200) == NULL);
    CHECK(cml_tf_sass_find(s, "nosuch", 0x0) == NULL);
}

static void test_sass(void)
{
    size_t n = 0;
    uint8_t *text = slurp(CML_TRACE_DATA "/lines.sass", &n);
    CHECK(text != NULL && n > 1000);
    if (!text)
        return;
    cml_tf_sass s;
    CHECK_EQ_I64(cml_tf_sass_parse((const char *)text, n, &s), 0);
    check_sass(&s);
    cml_tf_sass_free(&s);
    /* every prefix and a few bytes changed: parsed, never a crash, each
     * instruction's text one line */
    for (size_t k = 0; k < n; k += 13) {
        char *p = malloc(k ? k : 1);
        memcpy(p, text, k);
        p[k ? k / 2 : 0] = k % 2 ? '\n' : '*';
        if (cml_tf_sass_parse(p, k, &s) == 0) {
            for (size_t i = 0; i < s.nins; i++)
                CHECK(s.ins[i].func < s.nfuncs && !strchr(s.ins[i].text, '\n'));
            cml_tf_sass_free(&s);
        }
        free(p);
    }
    free(text);
    char tool[1024], err[300];
    if (cml_tf_nvdisasm(tool, sizeof tool) != 0) {
        printf("test_trace_lines: no nvdisasm: the disassembler's own run is not tested here\n");
        return;
    }
    CHECK_EQ_I64(cml_tf_sass_read(tool, CML_TRACE_DATA "/lines.cubin", &s, err, sizeof err), 0);
    check_sass(&s);
    cml_tf_sass_free(&s);
    CHECK_EQ_I64(cml_tf_sass_read(tool, CML_TRACE_DATA "/lines.cu", &s, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "lines.cu: ");
}

int main(int argc, char **argv)
{
    if (argc == 2) {
        cml_tf_lines l;
        char err[300];
        if (cml_tf_lines_read(argv[1], &l, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        for (size_t i = 0; i < l.nrows; i++)
            printf("%s %u 0x%x\n", l.funcs[l.rows[i].func], l.rows[i].line, l.rows[i].pc);
        cml_tf_lines_free(&l);
        return 0;
    }
    test_table();
    test_hostile();
    test_report_lines();
    test_sass();
    return cml_test_summary("test_trace_lines");
}
