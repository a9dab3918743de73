/*
 * The trace's measured counters (CNTR chunks, trace_file.h): written and
 * read back exactly, copied into a trace by cml_tf_splice_counters (whole
 * and cut short), refused when hostile, and judged beside the model
 * (trace_measured.h) on a launch whose figures are derived by hand.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "trace/trace_file.h"
#include "trace/trace_measured.h"
#include "trace/trace_model.h"
#include "trace/trace_report.h"

#define REQ_LD "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define SEC_LD "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define INST_LD "smsp__inst_executed_op_global_ld.sum"

static char trace_path[256], counters_path[300];

static void paths(void)
{
    const char *dir = getenv("TMPDIR");
    snprintf(trace_path, sizeof trace_path, "%s/cml_test_cntr_%ld.trace",
             dir && *dir ? dir : "/tmp", (long)getpid());
    snprintf(counters_path, sizeof counters_path, "%s.counters", trace_path);
}

/* A trace of one launch of kernel "k": one warp of 32 threads loading 32
 * consecutive aligned floats, so by hand: 1 request, 4 sectors, 128 bytes
 * asked for and moved. close_it 0 leaves the END chunk out (a program
 * that died). */
static void write_trace(int close_it)
{
    char err[256];
    cml_tf_header h = {"H100", 90, 132, 50u << 20, "", 0, 1u << 20, "./a"};
    cml_tf_writer *w = cml_tf_writer_open(trace_path, &h, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    cml_tf_func f = {0, "k", "", 1, ""};
    CHECK_EQ_I64(cml_tf_write_func(w, &f), 0);
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    k.grid[0] = k.grid[1] = k.grid[2] = 1;
    k.block[0] = 32;
    k.block[1] = k.block[2] = 1;
    k.warps_total = 1;
    k.stride = 1;
    k.warps_recorded = 1;
    cml_tf_ins r;
    memset(&r, 0, sizeof r);
    r.size = 4;
    r.active = 0xFFFFFFFFu;
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = 0x10000u + 4u * l;
    CHECK_EQ_I64(cml_tf_write_kernel(w, &k, &r, 1), 0);
    if (close_it) {
        CHECK_EQ_I64(cml_tf_writer_close(w), 0);
    } else {
        /* what a killed program leaves: the chunks so far (flushed after
         * each), no END */
        FILE *keep = fopen(trace_path, "rb");
        uint8_t buf[4096];
        size_t n = keep ? fread(buf, 1, sizeof buf, keep) : 0;
        if (keep)
            fclose(keep);
        cml_tf_writer_close(w);
        FILE *f2 = fopen(trace_path, "wb");
        if (f2) {
            fwrite(buf, 1, n, f2);
            fclose(f2);
        }
    }
}

/* The counters library's file: a chunk for k (request count right, sector
 * count wrong, one NaN, one metric the map lacks) and one that failed. */
static void write_counters(void)
{
    char err[256];
    cml_tf_header h = {"H100", 90, 132, 50u << 20, "", 0, 0, "./a"};
    cml_tf_writer *w = cml_tf_writer_open(counters_path, &h, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    const char *names[5] = {REQ_LD, SEC_LD, INST_LD, "made__up.sum", "dram__bytes_read.sum"};
    double values[5] = {1.0, 5.0, 1.0, 7.0, NAN};
    cml_tf_counters c = {"k", 0, 6, "", 5, names, values};
    CHECK_EQ_I64(cml_tf_write_counters(w, &c), 0);
    cml_tf_counters bad = {"other", 2, 0, "the profiler is busy", 0, NULL, NULL};
    CHECK_EQ_I64(cml_tf_write_counters(w, &bad), 0);
    const char *many[CML_TF_MAX_METRICS + 1];
    double v[CML_TF_MAX_METRICS + 1];
    for (unsigned i = 0; i <= CML_TF_MAX_METRICS; i++) {
        many[i] = "x";
        v[i] = 0;
    }
    cml_tf_counters too_many = {"k", 1, 1, "", CML_TF_MAX_METRICS + 1u, many, v};
    CHECK_EQ_I64(cml_tf_write_counters(w, &too_many), -1);
    /* Per instruction: the load at pc 0 (the only record's pc) and one at
     * 0x40 the trace did not record; then pcs out of order, refused. */
    const char *sass[4] = {"smsp__sass_inst_executed", "smsp__sass_sectors_mem_global",
                           "smsp__sass_sectors_mem_global_ideal", "smsp__sass_inst_executed_op_global_ld"};
    uint32_t pcs[2] = {0x0, 0x40};
    uint64_t vals[8] = {1, 5, 4, 1, 7, 7, 7, 7};
    cml_tf_pc_counters pc = {"k", 0, "", 4, sass, 2, pcs, vals};
    CHECK_EQ_I64(cml_tf_write_pc_counters(w, &pc), 0);
    uint32_t bad_pcs[2] = {0x40, 0x0};
    cml_tf_pc_counters bad_pc = {"k", 1, "", 4, sass, 2, bad_pcs, vals};
    CHECK_EQ_I64(cml_tf_write_pc_counters(w, &bad_pc), -1);
    CHECK_EQ_I64(cml_tf_writer_close(w), 0);
}

static void check_spliced(int complete)
{
    cml_trace t;
    char err[400] = "";
    CHECK_EQ_I64(cml_tf_read(trace_path, &t, err, sizeof err), 0);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_I64(t.complete, complete);
    CHECK_EQ_U64(t.nkernels, 1);
    CHECK_EQ_U64(t.ncounters, 2);
    if (t.nkernels != 1 || t.ncounters != 2) {
        cml_tf_free(&t);
        return;
    }
    const cml_tf_counters *c = cml_tf_counters_of(&t, &t.kernel[0]);
    CHECK(c == &t.counters[0]);
    if (c) {
        CHECK_EQ_U64(c->passes, 6);
        CHECK_EQ_U64(c->n, 5);
        CHECK(strcmp(c->metrics[1], SEC_LD) == 0);
        CHECK(c->values[1] == 5.0 && isnan(c->values[4]));
    }
    CHECK(strcmp(t.counters[1].error, "the profiler is busy") == 0);
    CHECK_EQ_U64(t.counters[1].launch, 2);

    /* Beside the model of the same launch. */
    cml_tf_model m;
    CHECK_EQ_I64(cml_tf_model_kernel(&t, &t.kernel[0], &m), CML_OK);
    cml_tf_report r = {&t, &m, "t", 3, 10, NULL, NULL, "test"};
    cml_tfm_row rows[CML_TF_MAX_METRICS];
    size_t n = 0;
    CHECK(cml_tfm_rows(&r, 0, rows, &n) == c);
    CHECK_EQ_U64(n, 5);
    if (n == 5) {
        CHECK_EQ_I64(rows[0].verdict, CML_TFM_AGREES); /* 1 request, by hand */
        CHECK(rows[0].model == 1.0);
        CHECK_EQ_I64(rows[1].verdict, CML_TFM_DIFFERS); /* 5 sectors measured, 4 by hand */
        CHECK(rows[1].model == 4.0);
        CHECK_EQ_I64(rows[2].verdict, CML_TFM_NOT_JUDGED); /* INFO: no rule */
        CHECK_EQ_I64(rows[3].verdict, CML_TFM_NOT_JUDGED); /* not in the map */
        CHECK(rows[3].def == NULL);
        CHECK_EQ_I64(rows[4].verdict, CML_TFM_NOT_JUDGED); /* NaN */
    }
    /* Per instruction: the one recorded load, by hand 1 warp instruction
     * and 4 sectors: the count agrees, the 5 sectors measured do not, the
     * ideal sectors have no model figure. */
    CHECK_EQ_U64(t.npcnt, 1);
    const cml_tf_pc_counters *pcc = NULL;
    CHECK(m.nsites == 1);
    const uint64_t *row = m.nsites ? cml_tfm_pc_values(&r, 0, &m.sites[0], &pcc) : NULL;
    CHECK(row != NULL && pcc == &t.pcnt[0]);
    if (row) {
        CHECK_EQ_U64(row[1], 5);
        double model = -1;
        CHECK_EQ_I64(cml_tfm_pc_model(pcc->metrics[0], &m.sites[0], &model), 1);
        CHECK(model == 1.0);
        CHECK_EQ_I64(cml_tfm_pc_model(pcc->metrics[1], &m.sites[0], &model), 1);
        CHECK(model == 4.0);
        CHECK_EQ_I64(cml_tfm_pc_model(pcc->metrics[2], &m.sites[0], &model), 0);
        CHECK_EQ_I64(cml_tfm_pc_model(pcc->metrics[3], &m.sites[0], &model), 1);
        CHECK(model == 1.0);
        CHECK_EQ_U64(cml_tf_pc_row(pcc, 0x40), 1);
        CHECK_EQ_U64(cml_tf_pc_row(pcc, 0x20), SIZE_MAX);
    }
    char *text = NULL;
    size_t tlen = 0;
    FILE *tm = m.nsites ? open_memstream(&text, &tlen) : NULL;
    if (tm) {
        cml_tfm_site_text(tm, &r, 0, &m.sites[0]);
        fclose(tm);
        CHECK(text && strstr(text, "smsp__sass_sectors_mem_global ") &&
              strstr(text, "model 4: differs") && strstr(text, "model 1: agrees"));
    }
    free(text);
    /* The HTML page has the section, each row and its verdict. */
    char *page = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&page, &len);
    CHECK(mem != NULL);
    if (mem) {
        CHECK_EQ_I64(cml_tf_report_html(mem, &r), CML_OK);
        fclose(mem);
        CHECK(page && strstr(page, "<section id=\"measured\">"));
        CHECK(page && strstr(page, SEC_LD "</th><td class=\"num\">5</td><td class=\"num\">4"
                                          "</td><td>differs</td>"));
        CHECK(page && strstr(page, "Every figure is the model's"));
        CHECK(page && !strstr(page, "Bandwidth counts the bytes"));
    }
    free(page);
    /* A sampled launch is never judged. */
    t.kernel[0].stride = 2;
    CHECK(cml_tfm_rows(&r, 0, rows, &n) == c);
    CHECK_EQ_I64(rows[0].verdict, CML_TFM_NOT_JUDGED);
    t.kernel[0].stride = 1;
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

static void test_splice(void)
{
    char err[400] = "";
    write_trace(1);
    write_counters();
    CHECK_EQ_I64(cml_tf_splice_counters(trace_path, counters_path, err, sizeof err), 0);
    check_spliced(1);
    /* A trace cut short keeps its records and gains the counters. */
    write_trace(0);
    CHECK_EQ_I64(cml_tf_splice_counters(trace_path, counters_path, err, sizeof err), 0);
    check_spliced(0);
    /* A counters file that is not a trace: the trace stays as it was. */
    write_trace(1);
    FILE *f = fopen(counters_path, "wb");
    if (f) {
        fputs("not a trace", f);
        fclose(f);
    }
    err[0] = '\0';
    CHECK_EQ_I64(cml_tf_splice_counters(trace_path, counters_path, err, sizeof err), -1);
    CHECK(strstr(err, "not a cumemlab trace") != NULL);
    cml_trace t;
    CHECK_EQ_I64(cml_tf_read(trace_path, &t, err, sizeof err), 0);
    CHECK_EQ_U64(t.ncounters, 0);
    cml_tf_free(&t);
    remove(trace_path);
    remove(counters_path);
}

/* A CNTR chunk claiming 65 metrics is refused, naming the count. */
static void test_hostile(void)
{
    uint8_t b[64];
    size_t n = 0;
    memcpy(b, "CMLTRACE\x01\x00\x00\x00", 12);
    n = 12;
    /* HEAD: device "", sm 0, sms 0, l2 0, filter "", launch 0, budget 0, command "" */
    const uint8_t head[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(b + n, "HEAD", 4);
    b[n + 4] = 8;
    memset(b + n + 5, 0, 7);
    memcpy(b + n + 12, head, 8);
    n += 20;
    /* CNTR: kernel "k", launch 0, passes 1, error "", count 65 */
    const uint8_t cntr[6] = {1, 'k', 0, 1, 0, 65};
    memcpy(b + n, "CNTR", 4);
    b[n + 4] = 6;
    memset(b + n + 5, 0, 7);
    memcpy(b + n + 12, cntr, 6);
    n += 18;
    uint8_t *copy = malloc(n);
    CHECK(copy != NULL);
    if (!copy)
        return;
    memcpy(copy, b, n);
    cml_trace t;
    char err[400] = "";
    CHECK_EQ_I64(cml_tf_parse(copy, n, &t, err, sizeof err), -1);
    CHECK(strstr(err, "CNTR chunk 1") && strstr(err, "metric count is 65"));
    /* A PCNT chunk whose pcs go down: kernel "k", launch 0, error "", no
     * metrics, 2 pcs: 5 then 3. */
    n -= 18;
    const uint8_t pcnt[8] = {1, 'k', 0, 0, 0, 2, 5, 3};
    memcpy(b + n, "PCNT", 4);
    b[n + 4] = 8;
    memset(b + n + 5, 0, 7);
    memcpy(b + n + 12, pcnt, 8);
    n += 20;
    copy = malloc(n);
    CHECK(copy != NULL);
    if (!copy)
        return;
    memcpy(copy, b, n);
    err[0] = '\0';
    CHECK_EQ_I64(cml_tf_parse(copy, n, &t, err, sizeof err), -1);
    CHECK(strstr(err, "PCNT chunk 1") && strstr(err, "pc is 3 (allowed 6.."));
}

int main(void)
{
    paths();
    test_splice();
    test_hostile();
    return cml_test_summary("test_trace_counters");
}
