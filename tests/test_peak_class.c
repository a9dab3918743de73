/*
 * The peak classes (src/core/peak_class.c): which reference a record's
 * "% of peak" is taken against, by its mix of bytes read and written, with
 * figures derived by hand (docs/experiments/peak-bandwidth.md, "Peak
 * classes").
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/peak_class.h"
#include "core/record.h"
#include "test_util.h"

static void test_class_rule(void)
{
    /* Pure classes. */
    CHECK_EQ_I64(cml_peak_class_of(4096, 0), CML_PEAK_CLASS_READ);
    CHECK_EQ_I64(cml_peak_class_of(0, 4096), CML_PEAK_CLASS_WRITE);
    CHECK_EQ_I64(cml_peak_class_of(0, 0), CML_PEAK_CLASS_NONE);
    /* STREAM's mixes: copy and scale 1:1, add and triad 2:1. */
    CHECK_EQ_I64(cml_peak_class_of(4, 4), CML_PEAK_CLASS_COPY);
    CHECK_EQ_I64(cml_peak_class_of(8, 4), CML_PEAK_CLASS_TRIAD);
    /* The boundary is the midpoint 7/12 of 1/2 and 2/3: 7 read for 5
     * written is exactly on it (copy); 8 for 5 (0.615) is past it. */
    CHECK_EQ_I64(cml_peak_class_of(7, 5), CML_PEAK_CLASS_COPY);
    CHECK_EQ_I64(cml_peak_class_of(8, 5), CML_PEAK_CLASS_TRIAD);
    CHECK_EQ_I64(cml_peak_class_of(699, 500), CML_PEAK_CLASS_COPY);   /* 0.5830 */
    CHECK_EQ_I64(cml_peak_class_of(701, 500), CML_PEAK_CLASS_TRIAD);  /* 0.5837 */
    /* A mix is never held against a pure class, however lopsided. */
    CHECK_EQ_I64(cml_peak_class_of(1, 1000000), CML_PEAK_CLASS_COPY);
    CHECK_EQ_I64(cml_peak_class_of(1000000, 1), CML_PEAK_CLASS_TRIAD);
    /* A stride-8 gather that reads 8x what it writes; an AoS update. */
    CHECK_EQ_I64(cml_peak_class_of(32, 4), CML_PEAK_CLASS_TRIAD);
    CHECK_EQ_I64(cml_peak_class_of(32, 32), CML_PEAK_CLASS_COPY);
    /* Byte counts near 2^62 neither overflow nor round the wrong way. */
    const uint64_t big = (uint64_t)1 << 62;
    CHECK_EQ_I64(cml_peak_class_of(big, big), CML_PEAK_CLASS_COPY);
    CHECK_EQ_I64(cml_peak_class_of(big + 1, big), CML_PEAK_CLASS_COPY);
    CHECK_EQ_I64(cml_peak_class_of(UINT64_MAX, UINT64_MAX / 2), CML_PEAK_CLASS_TRIAD);
}

static void test_names(void)
{
    static const char *const names[] = {"read", "write", "copy", "triad", "given"};
    for (int c = 0; c <= CML_PEAK_CLASS_GIVEN; c++) {
        CHECK(strcmp(cml_peak_class_name(c), names[c]) == 0);
        CHECK_EQ_I64(cml_peak_class_parse(names[c]), c);
    }
    CHECK(strcmp(cml_peak_class_name(CML_PEAK_CLASS_NONE), "-") == 0);
    CHECK(strcmp(cml_peak_class_name(99), "-") == 0);
    CHECK_EQ_I64(cml_peak_class_parse("Read"), CML_PEAK_CLASS_NONE);
    CHECK_EQ_I64(cml_peak_class_parse(""), CML_PEAK_CLASS_NONE);
    CHECK_EQ_I64(cml_peak_class_parse(NULL), CML_PEAK_CLASS_NONE);
}

/* References of an H100-like run: read 3130, write 3240, copy 3006; no
 * triad measured. */
static cml_peak_refs refs_of_run(void)
{
    cml_peak_refs p;
    memset(&p, 0, sizeof p);
    CHECK(cml_peak_refs_offer(&p, CML_PEAK_CLASS_READ, 3130, "kernel=sum"));
    CHECK(cml_peak_refs_offer(&p, CML_PEAK_CLASS_WRITE, 3200, "kernel=fill"));
    CHECK(cml_peak_refs_offer(&p, CML_PEAK_CLASS_WRITE, 3240, "kernel=memset"));
    CHECK(!cml_peak_refs_offer(&p, CML_PEAK_CLASS_WRITE, 3239.9, "kernel=fill shape=x"));
    CHECK(cml_peak_refs_offer(&p, CML_PEAK_CLASS_COPY, 3006, "kernel=memcpy"));
    CHECK(!cml_peak_refs_offer(&p, CML_PEAK_CLASS_TRIAD, 0, "nothing"));
    CHECK(!cml_peak_refs_offer(&p, CML_PEAK_CLASS_TRIAD, NAN, "nothing"));
    CHECK(!cml_peak_refs_offer(&p, CML_PEAK_CLASS_GIVEN, 5000, "not a class"));
    return p;
}

static void test_lookup(void)
{
    cml_peak_refs p = refs_of_run();
    CHECK(strcmp(p.source[CML_PEAK_CLASS_WRITE], "kernel=memset") == 0);
    CHECK(p.source[CML_PEAK_CLASS_TRIAD][0] == '\0');
    CHECK(cml_peak_refs_max(&p) == 3240);
    int used = -2;
    CHECK(cml_peak_refs_lookup(&p, CML_PEAK_CLASS_READ, &used) == 3130);
    CHECK_EQ_I64(used, CML_PEAK_CLASS_READ);
    CHECK(cml_peak_refs_lookup(&p, CML_PEAK_CLASS_COPY, &used) == 3006);
    CHECK_EQ_I64(used, CML_PEAK_CLASS_COPY);
    /* No triad reference: the other mixed class stands in. */
    CHECK(cml_peak_refs_lookup(&p, CML_PEAK_CLASS_TRIAD, &used) == 3006);
    CHECK_EQ_I64(used, CML_PEAK_CLASS_COPY);
    /* A pure class never borrows. */
    p.gbs[CML_PEAK_CLASS_READ] = 0;
    CHECK(cml_peak_refs_lookup(&p, CML_PEAK_CLASS_READ, &used) == 0);
    CHECK_EQ_I64(used, CML_PEAK_CLASS_NONE);
    CHECK(cml_peak_refs_lookup(&p, CML_PEAK_CLASS_NONE, &used) == 0);
    CHECK(cml_peak_refs_lookup(NULL, CML_PEAK_CLASS_COPY, &used) == 0);
    CHECK_EQ_I64(used, CML_PEAK_CLASS_NONE);
    /* --peak 3000: one reference for every class, marked given, and no
     * measurement replaces it. */
    cml_peak_refs_given(&p, 3000);
    CHECK(p.given && p.gbs[CML_PEAK_CLASS_TRIAD] == 3000);
    CHECK(!cml_peak_refs_offer(&p, CML_PEAK_CLASS_READ, 3500, "kernel=sum"));
    CHECK(cml_peak_refs_lookup(&p, CML_PEAK_CLASS_WRITE, &used) == 3000);
    CHECK_EQ_I64(used, CML_PEAK_CLASS_GIVEN);
}

/* A record's share of peak: bandwidth / its class's reference. */
static void test_record(void)
{
    cml_peak_refs p = refs_of_run();
    cml_results r;
    cml_results_init(&r);
    cml_record *rec = cml_results_add(&r, "x", "copy");
    CHECK_EQ_I64(rec->peak_class, CML_PEAK_CLASS_NONE);
    rec->bytes_read = rec->bytes_written = 1u << 20;
    rec->bandwidth_gbs = 1503;
    cml_record_set_peak(rec, &p); /* not measured */
    CHECK(rec->peak_fraction == -1.0 && rec->peak_class == CML_PEAK_CLASS_NONE);
    rec->measured = 1;
    cml_record_set_peak(rec, &p);
    CHECK(rec->peak_fraction == 0.5 && rec->peak_ref_gbs == 3006);
    CHECK_EQ_I64(rec->peak_class, CML_PEAK_CLASS_COPY);
    /* A read-only kernel at 3130 GB/s is 100% of the read class, though
     * it is 96.6% of the largest reference (3240). */
    rec->bytes_written = 0;
    rec->bandwidth_gbs = 3130;
    cml_record_set_peak(rec, &p);
    CHECK(rec->peak_fraction == 1.0 && rec->peak_class == CML_PEAK_CLASS_READ);
    /* 8:4 reads 2/3: triad, which the copy stands in for here. */
    rec->bytes_read = 8;
    rec->bytes_written = 4;
    rec->bandwidth_gbs = 2254.5;
    cml_record_set_peak(rec, &p);
    CHECK(rec->peak_fraction == 0.75 && rec->peak_class == CML_PEAK_CLASS_COPY);
    /* No bandwidth, or a NaN one: no share. */
    rec->bandwidth_gbs = NAN;
    cml_record_set_peak(rec, &p);
    CHECK(rec->peak_fraction == -1.0 && rec->peak_class == CML_PEAK_CLASS_NONE);
    rec->bandwidth_gbs = 100;
    rec->bytes_read = rec->bytes_written = 0;
    cml_record_set_peak(rec, &p);
    CHECK(rec->peak_fraction == -1.0 && rec->peak_ref_gbs == 0);
    cml_results_free(&r);
}

int main(void)
{
    test_class_rule();
    test_names();
    test_lookup();
    test_record();
    return cml_test_summary("test_peak_class");
}
