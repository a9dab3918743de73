#define _POSIX_C_SOURCE 200809L /* open_memstream */
/*
 * Cache-resident records: a measured record whose working set fits in L2
 * (or in L1, served there) is classed "l2-resident" ("l1-resident") and
 * never given a share of the DRAM peak — in the record, the terminal table,
 * the JSON (and back through the reader) and the HTML report. The case of
 * issue 23: an expression over a 4 KiB array measured at 4883.7 GB/s was
 * shown as 114% of the copy class's 4283.9 GB/s.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/peak_class.h"
#include "core/record.h"
#include "experiments/registry.h"
#include "report/chart_plan.h"
#include "report/html.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report_test_util.h"
#include "test_util.h"

#define MIB ((uint64_t)1 << 20)

static char *render(cml_report_fn fn, const cml_results *r)
{
    cml_status st;
    char *buf = render_to_memory(fn, r, NULL, &st);
    CHECK(st == CML_OK);
    return buf;
}

/* The run: an H100 (50 MiB L2), its copy reference 4283.9 GB/s. */
static void run_of(cml_results *r)
{
    cml_results_init(r);
    snprintf(r->tool_version, sizeof r->tool_version, "0.1.0");
    r->model_only = 0;
    r->has_device = 1;
    snprintf(r->device.name, sizeof r->device.name, "NVIDIA H100 80GB HBM3");
    r->device.l2_bytes = 50 * MIB;
    r->device.theoretical_gbs = 3352.32;
    CHECK(cml_peak_refs_offer(&r->peaks, CML_PEAK_CLASS_COPY, 4283.9, "kernel=memcpy"));
    CHECK(cml_peak_refs_offer(&r->peaks, CML_PEAK_CLASS_READ, 3130.0, "kernel=sum"));
    r->peak_gbs = cml_peak_refs_max(&r->peaks);
}

/* A measured copy-class record over a working set of `footprint` bytes
 * (the model's, from the cache levels; 0: no levels). */
static cml_record *measured(cml_results *r, const char *variant, uint64_t footprint, double gbs)
{
    cml_record *rec = cml_results_add(r, "expr", variant);
    cml_cache_config_h100(&rec->cache);
    rec->bytes_read = 8 * MIB;
    rec->bytes_written = 8 * MIB;
    rec->measured = 1;
    rec->timing.reps = 20;
    rec->timing.median_ms = 0.004;
    rec->timing.min_ms = 0.004;
    rec->timing.max_ms = 0.004;
    rec->timing.mean_ms = 0.004;
    rec->bandwidth_gbs = gbs;
    rec->verify = CML_VERIFY_PASSED;
    if (footprint) {
        rec->has_levels = 1;
        rec->levels.footprint_bytes = footprint;
        rec->levels.l1_bytes = 256 * 1024;
        rec->levels.l2_write_sectors = 8 * MIB / 32; /* a copy writes through to L2 */
    }
    return rec;
}

static void test_rule(void)
{
    /* Capacities: L1 only when the loads are served there. */
    CHECK_EQ_I64(cml_peak_residency(4096, 256 * 1024, 1, 50 * MIB), CML_PEAK_CLASS_L1_RESIDENT);
    CHECK_EQ_I64(cml_peak_residency(4096, 256 * 1024, 0, 50 * MIB), CML_PEAK_CLASS_L2_RESIDENT);
    CHECK_EQ_I64(cml_peak_residency(50 * MIB, 256 * 1024, 1, 50 * MIB),
                 CML_PEAK_CLASS_L2_RESIDENT);
    CHECK_EQ_I64(cml_peak_residency(50 * MIB + 32, 0, 0, 50 * MIB), CML_PEAK_CLASS_NONE);
    CHECK_EQ_I64(cml_peak_residency(0, 256 * 1024, 1, 50 * MIB), CML_PEAK_CLASS_NONE);
    CHECK_EQ_I64(cml_peak_residency(4096, 0, 0, 0), CML_PEAK_CLASS_NONE);
    CHECK(strcmp(cml_peak_class_name(CML_PEAK_CLASS_L2_RESIDENT), "l2-resident") == 0);
    CHECK(strcmp(cml_peak_class_label(CML_PEAK_CLASS_L1_RESIDENT), "L1-resident") == 0);
    CHECK(strcmp(cml_peak_class_label(CML_PEAK_CLASS_COPY), "copy") == 0);
    CHECK_EQ_I64(cml_peak_class_parse("l1-resident"), CML_PEAK_CLASS_L1_RESIDENT);
    CHECK(!cml_peak_class_resident(CML_PEAK_CLASS_GIVEN));

    cml_results r;
    run_of(&r);
    /* 4 KiB touched: L2-resident, no reference, no share. */
    cml_record *small = measured(&r, "4 KiB", 4096, 4883.7);
    cml_record_set_peak(small, &r.peaks);
    CHECK_EQ_I64(small->peak_class, CML_PEAK_CLASS_L2_RESIDENT);
    CHECK(small->peak_fraction < 0);
    CHECK(small->peak_ref_gbs == 0.0);
    /* Loads that hit in L1, a few stores (a sum per thread): L1-resident. */
    cml_record *l1 = measured(&r, "L1", 64 * 1024, 20000.0);
    l1->levels.l2_write_sectors = 100;
    l1->levels.l1_hit_sectors = 1000;
    l1->levels.l1_miss_sectors = 10;
    cml_record_set_peak(l1, &r.peaks);
    CHECK_EQ_I64(l1->peak_class, CML_PEAK_CLASS_L1_RESIDENT);
    CHECK(l1->peak_fraction < 0);
    /* ... but where the stores (through to L2) outweigh the hits: L2. */
    l1->levels.l2_write_sectors = 995;
    cml_record_set_peak(l1, &r.peaks);
    CHECK_EQ_I64(l1->peak_class, CML_PEAK_CLASS_L2_RESIDENT);
    /* A footprint above one SM's L1 is never L1's. */
    l1->levels.l2_write_sectors = 0;
    l1->levels.footprint_bytes = 256 * 1024 + 32;
    cml_record_set_peak(l1, &r.peaks);
    CHECK_EQ_I64(l1->peak_class, CML_PEAK_CLASS_L2_RESIDENT);
    /* 64 MiB, more than the 50 MiB L2: DRAM, a share of the copy class. */
    cml_record *big = measured(&r, "64 MiB", 64 * MIB, 2141.95);
    cml_record_set_peak(big, &r.peaks);
    CHECK_EQ_I64(big->peak_class, CML_PEAK_CLASS_COPY);
    CHECK_NEAR(big->peak_fraction, 0.5, 1e-9);
    /* No levels: a footprint the caller knows, or none (unchanged rule). */
    cml_record *bare = measured(&r, "bare", 0, 2141.95);
    cml_record_set_peak(bare, &r.peaks);
    CHECK_EQ_I64(bare->peak_class, CML_PEAK_CLASS_COPY);
    cml_record_set_peak_touching(bare, &r.peaks, 16 * MIB);
    CHECK_EQ_I64(bare->peak_class, CML_PEAK_CLASS_L2_RESIDENT);
    /* The device's own L2 decides: 8 MiB fits 50 MiB, not a 4 MiB L2. */
    cml_record *mid = measured(&r, "8 MiB", 8 * MIB, 3000.0);
    mid->cache.l2_bytes = 4 * MIB;
    cml_record_set_peak(mid, &r.peaks);
    CHECK_EQ_I64(mid->peak_class, CML_PEAK_CLASS_COPY);
    /* No references at all (a path the DRAM peak says nothing of): none. */
    cml_record_set_peak(small, NULL);
    CHECK_EQ_I64(small->peak_class, CML_PEAK_CLASS_NONE);
    cml_results_free(&r);
}

/* The table, the JSON and the HTML of one L2-resident and one DRAM record. */
static void test_reports(void)
{
    cml_results r;
    run_of(&r);
    cml_record_set_peak(measured(&r, "i over 4 KiB", 4096, 4883.7), &r.peaks);
    cml_record_set_peak(measured(&r, "i over 64 MiB", 64 * MIB, 2141.95), &r.peaks);

    char *t = render(cml_report_table, &r);
    CHECK_STR_CONTAINS(t, "L2-resident");
    CHECK(strstr(t, "114.0") == NULL); /* 4883.7 / 4283.9, the old share */
    CHECK_STR_CONTAINS(t, "50.0  copy");
    free(t);

    char *j = render(cml_report_json, &r);
    CHECK_STR_CONTAINS(j, "\"peak_class\": \"l2-resident\"");
    CHECK_STR_CONTAINS(j, "\"peak_class\": \"copy\"");
    /* the resident record: fraction and reference both null */
    const char *res = strstr(j, "\"variant\": \"i over 4 KiB\"");
    CHECK(res != NULL);
    if (res) {
        const char *frac = strstr(res, "\"peak_fraction\"");
        CHECK(frac && strncmp(frac, "\"peak_fraction\": null", 21) == 0);
        const char *gbs = strstr(res, "\"peak_gbs\"");
        CHECK(gbs && strncmp(gbs, "\"peak_gbs\": null", 16) == 0);
    }
    /* ... and back through the reader. */
    cml_results back;
    char err[512];
    CHECK(cml_results_from_json(j, strlen(j), &back, err, sizeof err) == CML_OK);
    CHECK_EQ_U64(back.count, 2);
    if (back.count == 2) {
        CHECK_EQ_I64(back.items[0].peak_class, CML_PEAK_CLASS_L2_RESIDENT);
        CHECK(back.items[0].peak_fraction < 0);
        CHECK_EQ_I64(back.items[1].peak_class, CML_PEAK_CLASS_COPY);
    }
    cml_results_free(&back);

    /* A file that says both is refused with a line naming the record. */
    char *bad = strdup(j);
    char *at = bad ? strstr(bad, "\"peak_fraction\": null") : NULL;
    CHECK(at != NULL);
    if (at) {
        memcpy(at, "\"peak_fraction\": 1.14", 21);
        CHECK(cml_results_from_json(bad, strlen(bad), &back, err, sizeof err) != CML_OK);
        CHECK_STR_CONTAINS(err, "a cache-resident record has no share of the DRAM peak");
    }
    free(bad);
    free(j);

    char *h = render(cml_report_html, &r);
    CHECK_STR_CONTAINS(h, "<td class=\"txt\">L2-resident</td>");
    CHECK_STR_CONTAINS(h, "<td class=\"txt\">copy</td>");
    free(h);
    cml_results_free(&r);
}

int main(void)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    test_rule();
    test_reports();
    return cml_test_summary("test_residency");
}
