/*
 * The level table (src/report/level_table.c): hand-built hierarchy records
 * whose levels, bandwidths and latencies are chosen so that every row's
 * figure is a median worked out below; a record the counters place at
 * another level than the model's; the slice mode before the shared one;
 * an edge and an unknown code in no row; hostile values (inf, negative)
 * counted for no figure; a file with no counters placed by the model.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "report/level_table.h"
#include "test_util.h"

/* One record: op, path, mode ("" none), ws; its levels (NAN: absent). */
static cml_record *add(cml_results *r, const char *op, const char *path, const char *mode,
                       int64_t ws, double pred, double meas, double gbs)
{
    char variant[96];
    snprintf(variant, sizeof variant, "ws=%lld %s %s %s", (long long)ws, op, path, mode);
    cml_record *rec = cml_results_add(r, "hierarchy", variant);
    cml_record_add_param(rec, "ws", ws, "");
    if (path[0])
        cml_record_add_param(rec, "path", 0, path);
    if (mode[0])
        cml_record_add_param(rec, "l2-mode", 0, mode);
    cml_record_add_param(rec, "op", 0, op);
    if (!isnan(pred))
        cml_record_add_extra(rec, "level_pred", pred, "");
    if (!isnan(meas))
        cml_record_add_extra(rec, "level_meas", meas, "");
    rec->measured = 1;
    rec->state = CML_REC_OK;
    rec->bandwidth_gbs = gbs;
    rec->grid = 1056; /* 8 blocks on each of an H100's 132 SMs (cache.sm_count 0) */
    return rec;
}

static void chase(cml_results *r, int64_t ws, double pred, double cycles, double ns)
{
    cml_record *rec = add(r, "chase", "ca", "", ws, pred, NAN, 1.0);
    cml_record_add_extra(rec, "cycles_per_load", cycles, "cycles");
    cml_record_add_extra(rec, "ns_per_load", ns, "ns");
}

static const cml_record **pointers(const cml_results *r)
{
    const cml_record **p = malloc(r->count * sizeof *p);
    for (size_t i = 0; p && i < r->count; i++)
        p[i] = &r->items[i];
    return p;
}

static void build(cml_results *r)
{
    cml_results_init(r);
    /* L1: ca slice 10000 and 12000 (median 11000); inf counts for no
     * figure; the shared mode's 20000 is another quantity, not taken. */
    add(r, "read", "ca", "slice", 32768, 1, 1, 10000);
    add(r, "read", "ca", "slice", 65536, 1, 1, 12000);
    add(r, "read", "ca", "slice", 131072, 1, 1, INFINITY);
    add(r, "read", "ca", "shared", 32768, 1, 1, 20000);
    chase(r, 32768, 1, 33, 16.5);
    chase(r, 65536, 1, 35, 17.5);
    /* L2: cg slice 9000, 8000 (8500); ca slice 7000 and, placed at L2
     * by its counters where the model said L1, 11000 (9000, the best). */
    add(r, "read", "cg", "slice", 32768, 2, 2, 9000);
    add(r, "read", "cg", "slice", 4194304, 2, 2, 8000);
    add(r, "read", "ca", "slice", 4194304, 2, 2, 7000);
    add(r, "read", "ca", "slice", 196608, 1, 2, 11000);
    add(r, "write", "", "", 4194304, 2, 2, 3000);
    add(r, "write", "", "", 8388608, 2, 2, 2000);
    add(r, "write", "", "", 16777216, 2, 2, 4000);
    add(r, "write", "", "", -5, 2, 2, -1.0); /* a hostile ws and figure: no size, no value */
    /* two blocks storing 32 KiB: two SMs' rate, in the row but in no median */
    add(r, "write", "", "", 32768, 2, 2, 104)->grid = 2;
    chase(r, 4194304, 2, 280, 141);
    /* DRAM */
    add(r, "read", "ca", "slice", 1073741824, 3, 3, 3000);
    add(r, "copy", "", "", 1073741824, 3, 3, 2900);
    chase(r, 1073741824, 3, 660, 333);
    /* in no row: the model's edge without counters, a code no level has */
    add(r, "read", "ca", "slice", 262144, 1.5, NAN, 10500);
    add(r, "read", "ca", "slice", 524288, 7, NAN, 10400);
}

static void test_rows(void)
{
    cml_results r;
    build(&r);
    const cml_record **p = pointers(&r);
    CHECK(p != NULL);
    cml_rep_level_row rows[CML_REP_LEVELS];
    size_t edge = 9, unknown = 9;
    CHECK(cml_rep_has_levels_of_records(p, r.count));
    CHECK(cml_rep_level_rows(p, r.count, rows, &edge, &unknown) == 0);
    CHECK_EQ_U64(edge, 1);
    CHECK_EQ_U64(unknown, 1);
    const cml_rep_level_row *l1 = &rows[0], *l2 = &rows[1], *dram = &rows[2], *tlb = &rows[3];
    CHECK_STR_EQ(l1->name, "L1");
    CHECK_EQ_U64(l1->records, 6);
    CHECK_EQ_U64(l1->by_counters, 4); /* the chases have no level_meas */
    CHECK_EQ_U64(l1->model_here, 6);
    CHECK_NEAR(l1->read_gbs, 11000, 0);
    CHECK_STR_EQ(l1->read_by, "ca slice");
    CHECK(isnan(l1->write_gbs) && isnan(l1->copy_gbs));
    CHECK_NEAR(l1->cycles, 34, 0);
    CHECK_NEAR(l1->ns, 17, 0);
    CHECK_NEAR(l1->ws_lo, 32768, 0);
    CHECK_NEAR(l1->ws_hi, 131072, 0);
    CHECK_EQ_U64(l2->records, 10);
    CHECK_EQ_U64(l2->model_here, 9);
    CHECK_EQ_U64(l2->few_blocks, 1);
    CHECK_EQ_U64(l1->few_blocks, 0);
    CHECK_NEAR(l2->read_gbs, 9000, 0);
    CHECK_STR_EQ(l2->read_by, "ca slice");
    CHECK_NEAR(l2->write_gbs, 3000, 0);
    CHECK_NEAR(l2->cycles, 280, 0);
    CHECK_NEAR(l2->ws_lo, 32768, 0);
    CHECK_NEAR(l2->ws_hi, 16777216, 0);
    CHECK_EQ_U64(dram->records, 3);
    CHECK_NEAR(dram->read_gbs, 3000, 0);
    CHECK_NEAR(dram->copy_gbs, 2900, 0);
    CHECK_NEAR(dram->ns, 333, 0);
    CHECK_EQ_U64(tlb->records, 0);
    CHECK_STR_EQ(tlb->name, "DRAM+TLB");

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cml_rep_print_level_table(f, p, r.count, 160);
    fclose(f);
    printf("%s", text);
    CHECK(strstr(text, "by their counters, else by the model") != NULL);
    CHECK(strstr(text, "(1 record at an edge between two levels: in no row.)") != NULL);
    CHECK(strstr(text, "(1 record with a level code this report does not know") != NULL);
    CHECK(strstr(text, "L2, 9 of 10; else L1 1") != NULL);
    CHECK(strstr(text, "(1 bandwidth record launched fewer blocks than the GPU has SMs") != NULL);
    CHECK(strstr(text, "L1, all 6") != NULL);
    CHECK(strstr(text, "32 KiB - 128 KiB") != NULL);
    CHECK(strstr(text, "DRAM+TLB") == NULL); /* no row without records */
    free(text);
    /* the HTML page's table: the same rows */
    f = open_memstream(&text, &len);
    cml_rep_html_level_table(f, p, r.count);
    fclose(f);
    CHECK(strstr(text, "<th scope=\"row\">L2</th><td class=\"txt\">32 KiB - 16 MiB</td>"
                       "<td>9000</td><td class=\"txt\">ca slice</td><td>3000</td>") != NULL);
    CHECK(strstr(text, "L2, 9 of 10; else L1 1</td>") != NULL);
    CHECK(strstr(text, "In no median: 1 bandwidth records launched fewer blocks") != NULL);
    CHECK(strstr(text, "In no row: 1 at an edge between two levels, 1 of a level code") != NULL);
    CHECK(strstr(text, "&quot;model&quot;") != NULL); /* escaped */
    free(text);
    free(p);
    cml_results_free(&r);
}

/* No counters and nothing measured: the model's levels, no figures; a
 * level_meas on a record that was never measured does not place it. */
static void test_model_only(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "read", "ca", "slice", 32768, 1, 3, 5000);
    a->measured = 0;
    cml_record *b = add(&r, "read", "ca", "slice", 1 << 30, 3, NAN, 5000);
    b->measured = 0;
    const cml_record **p = pointers(&r);
    cml_rep_level_row rows[CML_REP_LEVELS];
    size_t edge, unknown;
    CHECK(cml_rep_level_rows(p, r.count, rows, &edge, &unknown) == 0);
    CHECK_EQ_U64(rows[0].records, 1);
    CHECK_EQ_U64(rows[0].by_counters, 0);
    CHECK(isnan(rows[0].read_gbs));
    CHECK_EQ_U64(rows[2].records, 1);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cml_rep_print_level_table(f, p, r.count, 160);
    fclose(f);
    CHECK(strstr(text, "by the model (no counters)") != NULL);
    free(text);
    /* records without levels: no table at all */
    cml_results none;
    cml_results_init(&none);
    cml_results_add(&none, "read-offset", "offset=0");
    const cml_record *q = &none.items[0];
    CHECK(!cml_rep_has_levels_of_records(&q, 1));
    f = open_memstream(&text, &len);
    cml_rep_print_level_table(f, &q, 1, 160);
    fclose(f);
    CHECK_EQ_U64(len, 0);
    free(text);
    cml_results_free(&none);
    free(p);
    cml_results_free(&r);
}

int main(void)
{
    test_rows();
    test_model_only();
    return cml_test_summary("test_level_table");
}
