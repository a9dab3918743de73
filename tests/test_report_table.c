/*
 * The table reporter's tests (test_report.c has the JSON, CSV and file
 * writer's): hand-built result sets (report_fixtures.h) rendered as the
 * table, then checked by its headers, values, alignment, width, banner,
 * grouped findings and the work it does on a large input; and the
 * reader's size cap.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/record.h"
#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/item_groups.h" /* cml_report_table_work: comparisons the table made */
#include "report/json_read.h"
#include "report/report.h"
#include "report_fixtures.h"
#include "test_util.h"

static void test_table_model_only(void)
{
    cml_results r;
    cml_status st;
    char hl[512], dl[512];
    build_model_only(&r);
    char *t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    show(t);
    CHECK_STR_CONTAINS(t, "cumemlab 0.1.0\n");
    CHECK_STR_CONTAINS(t, "No GPU was used: every figure below is the model's prediction.");
    CHECK_STR_CONTAINS(t, "read-offset (2 records)\n=======================\n");
    CHECK_STR_CONTAINS(t, "bank-conflicts (1 record)");
    /* No measured columns without measurements. */
    CHECK(strstr(t, "GB/s") == NULL && strstr(t, "median") == NULL);
    CHECK_STR_CONTAINS(t, "- global_ld -");
    CHECK_STR_CONTAINS(t, "modern");
    CHECK_STR_CONTAINS(t, "fermi");
    CHECK(line_with(after_summary(t), "sect/req", hl, sizeof hl));
    CHECK_STR_CONTAINS(hl, "offset");
    CHECK_STR_CONTAINS(hl, "trans/req");
    /* A parameter equal in every row is said once above the table. */
    CHECK(strstr(hl, "path") == NULL);
    CHECK_STR_CONTAINS(t, "=======================\nIn every row: path=ca\n");
    CHECK(line_with(after_summary(t), "5.00", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "11");
    CHECK_STR_CONTAINS(dl, "80.0");
    CHECK_STR_CONTAINS(dl, "2.00");
    CHECK_STR_CONTAINS(dl, "50.0");
    /* Right-aligned under their heads. */
    CHECK_EQ_I64(right_edge(dl, "5.00"), right_edge(hl, "sect/req"));
    CHECK_EQ_I64(right_edge(dl, "80.0"), right_edge(hl, "eff %"));
    CHECK_EQ_I64(right_edge(dl, "2.00"), right_edge(hl, "trans/req"));
    CHECK_EQ_I64(right_edge(dl, "11"), right_edge(hl, "offset"));
    CHECK(line_with(after_summary(t), "100.0", dl, sizeof dl)); /* offset 0 */
    CHECK_EQ_I64(right_edge(dl, "4.00"), right_edge(hl, "sect/req"));
    /* Shared: the rules agree, so one set of columns. */
    CHECK_STR_CONTAINS(t, "- both -");
    CHECK_STR_CONTAINS(t, "both: the modern and Fermi rules predict the same");
    CHECK(line_with(after_summary(t), "wf/req", hl, sizeof hl));
    CHECK_STR_CONTAINS(hl, "conflicts");
    CHECK(line_with(after_summary(t), "2.00", dl, sizeof dl));
    /* The shared finding is printed once, wrapped. */
    CHECK_EQ_U64(count_occurrences(after_summary(t), "A start address that is not"), 1);
    CHECK_STR_CONTAINS(t, "Finding: A start address");
    CHECK_STR_CONTAINS(t, "Finding: Stride 2 puts");
    check_lines(t, 130);
    free(t);
    cml_results_free(&r);
}

static void test_table_measured(void)
{
    cml_results r;
    cml_status st;
    char hl[512], dl[512];
    build_measured(&r);
    char *t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    show(t);
    CHECK(strstr(t, "No GPU was used") == NULL);
    CHECK_STR_CONTAINS(t, "GPU 0: NVIDIA H100 80GB HBM3 (compute capability 9.0, 132 SMs)\n");
    CHECK_STR_CONTAINS(t, "memory: 80.0 GiB global, L2 50.0 MiB, bus 5120 bit at 2619 MHz\n");
    CHECK_STR_CONTAINS(t, "theoretical 3352.3 GB/s, measured 3000.5 GB/s (89.5% of theoretical)");
    CHECK_STR_CONTAINS(t, "copy (4 records)");
    /* Variant column (no parameters); measured columns with units. */
    CHECK(line_with(after_summary(t), "median us", hl, sizeof hl));
    CHECK_STR_CONTAINS(hl, "variant");
    CHECK_STR_CONTAINS(hl, "cv %");
    CHECK_STR_CONTAINS(hl, "GB/s");
    CHECK_STR_CONTAINS(hl, "peak %");
    CHECK_STR_CONTAINS(hl, "verify");
    CHECK_STR_CONTAINS(t, "measured");
    CHECK_STR_CONTAINS(t, "- global_st -");
    CHECK(line_with(after_summary(t), "2500.4", dl, sizeof dl));
    CHECK_EQ_I64(right_edge(dl, "500.00"), right_edge(hl, "median us"));
    CHECK_EQ_I64(right_edge(dl, "1.23"), right_edge(hl, "cv %"));
    CHECK_EQ_I64(right_edge(dl, "2500.4"), right_edge(hl, "GB/s"));
    CHECK_EQ_I64(right_edge(dl, "83.3"), right_edge(hl, "peak %"));
    CHECK_EQ_I64(right_edge(dl, " ok"), right_edge(hl, "verify"));
    CHECK_STR_CONTAINS(dl, "5.00");
    CHECK_STR_CONTAINS(dl, "80.0");
    /* The tab in the variant is shown as a space. */
    CHECK_STR_CONTAINS(dl, "copy \"a,b\" q\\z");
    /* Too wide for one panel: the extra column moves to a second one, which
     * repeats the variant and names the state of waived/failed records. */
    CHECK(line_with(after_summary(t), "pitch_bytes B", hl, sizeof hl));
    CHECK_STR_CONTAINS(hl, "variant");
    CHECK(line_with(after_summary(t), "        512", dl, sizeof dl));
    CHECK_EQ_I64(right_edge(dl, "512"), right_edge(hl, "pitch_bytes B"));
    CHECK_STR_CONTAINS(t, "\ntma             (waived)\n");
    CHECK_STR_CONTAINS(t, "\nvec4            (FAILED)\n");
    /* Left out: only the optional totals. */
    CHECK_STR_CONTAINS(t, "(left out to fit 130 columns: global_ld modern requests, ");
    /* Waived and failed rows. */
    CHECK(line_with(after_summary(t), "waived: ", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "tma");
    CHECK_STR_CONTAINS(dl, "waived: needs \"cc >= 9.0\", and this GPU is older");
    CHECK(line_with(after_summary(t), "FAILED: ", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "vec4");
    /* Newline and control character shown as (collapsed) spaces. */
    CHECK_STR_CONTAINS(dl, "FAILED: kernel, \"crashed\" line2\\x caf\xc3\xa9");
    /* Verification failure and a NaN bandwidth. */
    CHECK(line_with(after_summary(t), "median us", hl, sizeof hl));
    CHECK(line_with(after_summary(t), "scalar", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "FAILED");
    CHECK_STR_CONTAINS(dl, "100.00");
    CHECK_EQ_I64(right_edge(dl, "-"), right_edge(hl, "GB/s"));
    /* Counters beside the prediction: one entry per record, the verdict over
     * the predicted ones first, [model X] at the one that differs, the
     * counters without a prediction after |, in the text column. */
    CHECK_STR_CONTAINS(t, "\nCounters (measured on the GPU; \"= N of N agree\" when every counter");
    CHECK(line_with(after_summary(t), "!= 1 of 2 differ: ", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "copy \"a,b\" q\\z");
    CHECK_STR_CONTAINS(dl, "differ: l1tex__t_sectors_ld.sum 5, l1tex__t_requests_st.sum 3 [model 2] "
                           "| DRAMrd 1024.00MiB");
    CHECK(line_with(after_summary(t), "variant         counters", hl, sizeof hl));
    CHECK_EQ_I64(left_edge(dl, "!= 1 of 2"), left_edge(hl, "counters"));
    /* The only non-ASCII bytes are the record's own e-acute; the byte that
     * is not UTF-8 in the finding is shown as '?'. */
    size_t high = 0;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        high += *p >= 0x80;
    CHECK_EQ_U64(high, 2 * count_occurrences(after_summary(t), "\xc3\xa9"));
    CHECK_STR_CONTAINS(t, "Finding: Copy \"with quotes\", commas and a bad byte ? here.");
    check_lines(t, 130);
    free(t);
    cml_results_free(&r);
}

static void test_table_identity(void)
{
    cml_results r;
    cml_status st;
    char hl[512], dl[512];
    cml_results_init(&r);
    const struct { int64_t offset; const char *path; } v[] = { { 0, "ca" }, { 0, "cg" },
                                                               { 11, "ca" } };
    for (size_t i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "offset=%d path=%s", (int)v[i].offset, v[i].path);
        cml_record *rec = cml_results_add(&r, "read-offset", name);
        cml_record_add_param(rec, "offset", v[i].offset, "");
        cml_record_add_param(rec, "path", 0, v[i].path);
        cml_record_add_param(rec, "block", 256, "");
        set_aligned_load(rec, CML_CLASS_GLOBAL_LD);
    }
    char *t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    CHECK_STR_CONTAINS(t, "In every row: block=256\n");
    CHECK(line_with(after_summary(t), "sect/req", hl, sizeof hl));
    CHECK(strstr(hl, "variant") == NULL);
    CHECK(line_with(after_summary(t), " cg ", dl, sizeof dl));
    /* Numbers right-aligned, labels left-aligned. */
    CHECK_EQ_I64(right_edge(dl, "0"), right_edge(hl, "offset"));
    CHECK_EQ_I64(left_edge(dl, "cg"), left_edge(hl, "path"));
    free(t);

    /* Parameters that do not tell two variants apart: the variant names rows. */
    r.items[1].params[1] = r.items[0].params[1];
    t = render(cml_report_table, &r, &st);
    CHECK(line_with(after_summary(t), "sect/req", hl, sizeof hl));
    CHECK_STR_CONTAINS(hl, "variant");
    CHECK_STR_CONTAINS(t, "\noffset=0 path=cg ");
    CHECK(strstr(t, "In every row") == NULL);
    free(t);
    cml_results_free(&r);
}


/* ------------------------------------------------------------------ */
/* Big inputs: linear table layout, the reader's size cap             */
/* ------------------------------------------------------------------ */

/* Findings: each distinct sentence once, in order of first appearance;
 * named by its variant when only one record has it. */
static void test_table_findings_grouped(void)
{
    cml_results r;
    cml_status st;
    cml_results_init(&r);
    const char *f[] = { "Alpha shared.", "Beta alone.", "Alpha shared.", "", "Gamma alone." };
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "v%d", i);
        cml_record *rec = cml_results_add(&r, "stride", name);
        cml_record_add_param(rec, "stride", i, "");
        set_aligned_load(rec, CML_CLASS_GLOBAL_LD);
        cml_record_finding(rec, "%s", f[i]);
    }
    char *t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    const char *want = "Findings:\n  - Alpha shared.\n  - v1: Beta alone.\n  - v4: Gamma alone.\n";
    CHECK_STR_CONTAINS(t, want);
    CHECK_EQ_U64(count_occurrences(after_summary(t), "Alpha shared."), 1);
    free(t);
    cml_results_free(&r);
}

/* n records of one experiment, every parameter value and finding distinct
 * (the worst case for comparing every pair), and a few repeats. */
static void build_many(cml_results *r, size_t n)
{
    cml_results_init(r);
    for (size_t i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "offset=%zu", i);
        cml_record *rec = cml_results_add(r, "read-offset", name);
        if (!rec)
            return;
        cml_record_add_param(rec, "offset", (int64_t)i, "");
        cml_record_add_param(rec, "path", 0, i % 2 ? "cg" : "ca");
        set_aligned_load(rec, CML_CLASS_GLOBAL_LD);
        if (i % 10 == 0)
            cml_record_finding(rec, "Every tenth record says the same.");
        else
            cml_record_finding(rec, "Finding number %zu.", i);
    }
}

static size_t table_work_for(size_t n, char **text)
{
    cml_results r;
    cml_status st;
    build_many(&r, n);
    size_t before = cml_report_table_work();
    *text = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    size_t work = cml_report_table_work() - before;
    cml_results_free(&r);
    return work;
}

/*
 * The table's layout work grows linearly with the records: four times the
 * records, about four times the comparisons (comparing every pair, as the
 * reporter once did, is sixteen times: 100,000 records took minutes). The
 * time itself is measured by bench/bench_table.sh.
 */
static void test_table_linear(void)
{
    char *small, *big;
    size_t w1 = table_work_for(2000, &small);
    size_t w4 = table_work_for(8000, &big);
    CHECK(w1 >= 2000);
    CHECK(w4 <= 5 * w1);
    if (w4 > 5 * w1)
        fprintf(stderr, "table work: %zu for 2000 records, %zu for 8000\n", w1, w4);
    /* And the output is whole: every row, every distinct finding once. */
    CHECK_STR_CONTAINS(big, "read-offset (8000 records)");
    CHECK_STR_CONTAINS(big, "\n  7999  ");
    CHECK_STR_CONTAINS(big, "  - offset=7999: Finding number 7999.\n");
    CHECK_EQ_U64(count_occurrences(after_summary(big), "Every tenth record says the same."), 1);
    CHECK_EQ_U64(count_occurrences(after_summary(big), "Finding number "), 8000 - 800);
    free(small);
    free(big);
}

/* A file over the reader's 1 GiB cap is refused, by name, before it is
 * read (a sparse file: no disk or memory is spent). */
static void test_read_cap(void)
{
    char path[] = "/tmp/cml_test_big_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        CHECK(0);
        return;
    }
    CHECK(ftruncate(fd, (off_t)(1ll << 30) + 1) == 0);
    close(fd);
    cml_results r;
    char err[512] = "";
    CHECK(cml_results_read_file(path, &r, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, path);
    CHECK_STR_CONTAINS(err, "larger than 1 GiB");
    CHECK_EQ_U64(r.count, 0);
    cml_results_free(&r);
    unlink(path);
}

static void test_table_peak_classes(void)
{
    cml_results r;
    cml_results_init(&r);
    r.has_device = 1;
    snprintf(r.device.name, sizeof r.device.name, "GPU");
    r.device.theoretical_gbs = 3352.32;
    r.peak_gbs = 3240;
    CHECK(cml_peak_refs_offer(&r.peaks, CML_PEAK_CLASS_READ, 3130, "kernel=sum"));
    CHECK(cml_peak_refs_offer(&r.peaks, CML_PEAK_CLASS_WRITE, 3240, "kernel=memset"));
    CHECK(cml_peak_refs_offer(&r.peaks, CML_PEAK_CLASS_COPY, 3006, "kernel=memcpy"));
    static const struct { const char *v; uint64_t rd, wr; double gbs; } recs[] = {
        {"sum", 1u << 30, 0, 3130}, {"copy", 1u << 30, 1u << 30, 1503}};
    for (size_t i = 0; i < 2; i++) {
        cml_record *rec = cml_results_add(&r, "peak-bandwidth", recs[i].v);
        rec->bytes_read = recs[i].rd;
        rec->bytes_written = recs[i].wr;
        rec->measured = 1;
        rec->timing.median_ms = 1.0;
        rec->timing.reps = 10;
        rec->bandwidth_gbs = recs[i].gbs;
        rec->verify = CML_VERIFY_PASSED;
        cml_record_set_peak(rec, &r.peaks);
    }
    cml_status st;
    char *t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    CHECK_STR_CONTAINS(t, "peak by class: read 3130.0, write 3240.0, copy 3006.0 GB/s; each "
                          "record's \"peak %\" is of its class\n  (column \"of\")\n");
    char hl[512], dl[512];
    CHECK(line_with(t, "peak %  of", hl, sizeof hl));
    CHECK_STR_CONTAINS(hl, "peak %  of");
    CHECK(line_with(t, "3130.0  ", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "100.0  read");
    /* The table's row (the summary above it names 1503.0 too). */
    CHECK(line_with(t, "50.0  copy", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "1503.0");
    free(t);
    cml_results_free(&r);
}

/* Latency records (extras cycles_per_load and ns_per_load) show their
 * cycles and ns per load in the measured group, and no GB/s, which the
 * bandwidth records beside them keep; the two extras get no column of
 * their own besides. */
static void test_table_latency(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *bw = cml_results_add(&r, "x", "op=read");
    cml_record *lat = cml_results_add(&r, "x", "op=chase");
    cml_record *lat2 = cml_results_add(&r, "x", "op=chase2");
    for (int i = 0; i < 3; i++) {
        cml_record *rec = i == 2 ? lat2 : i ? lat : bw;
        cml_record_add_extra(rec, "sms", 132, "");
        rec->has_model = 1; /* a row of a table, not a card of facts */
        rec->bytes_read = 1u << 20;
        rec->measured = 1;
        rec->timing.median_ms = 2.0;
        rec->timing.reps = 10;
        rec->bandwidth_gbs = 524.3;
        rec->verify = CML_VERIFY_PASSED;
    }
    cml_record_add_extra(lat, "cycles_per_load", 279.25, "cycles");
    cml_record_add_extra(lat, "ns_per_load", 141.5, "ns");
    cml_record_add_extra(lat2, "cycles_per_load", 505.0, "cycles");
    cml_record_add_extra(lat2, "ns_per_load", 255.1, "ns");
    cml_status st;
    char *t = render(cml_report_table, &r, &st);
    CHECK(st == CML_OK);
    char hl[512], dl[512];
    CHECK(line_with(t, "cycles/load", hl, sizeof hl));
    CHECK_STR_CONTAINS(hl, "GB/s  cycles/load  ns/load");
    CHECK(strstr(hl, "cycles_per_load") == NULL && strstr(hl, "ns_per_load") == NULL);
    CHECK(line_with(after_summary(t), "op=chase ", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "279.2");
    CHECK_STR_CONTAINS(dl, "141.5");
    CHECK(strstr(dl, "524.3") == NULL);
    CHECK(line_with(after_summary(t), "op=read ", dl, sizeof dl));
    CHECK_STR_CONTAINS(dl, "524.3");
    free(t);
    cml_results_free(&r);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_table_model_only();
    test_table_measured();
    test_table_peak_classes();
    test_table_latency();
    test_table_identity();
    test_table_findings_grouped();
    test_table_linear();
    test_read_cap();
    return cml_test_summary("test_report_table");
}
