/*
 * The peak by class kept between runs (src/lab/peak_cache.c): what is
 * stored reads back exactly for the same GPU, any change of the key (UUID,
 * name, driver, runtime, clocks) makes the lab measure again, and a damaged
 * or hostile file is never trusted.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/peak_cache.h"
#include "test_util.h"

static char dir[160];

static cml_device_facts facts(void)
{
    cml_device_facts d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    snprintf(d.uuid, sizeof d.uuid, "GPU-5b5c1f3e-8a1d-4a6e-9f1a-0123456789ab");
    d.driver_version = 13000;
    d.runtime_version = 13000;
    d.sm_clock_khz = 1980000;
    d.mem_clock_khz = 2619000;
    return d;
}

static cml_peak_refs refs(void)
{
    cml_peak_refs r;
    memset(&r, 0, sizeof r);
    const double gbs[CML_PEAK_CLASS_COUNT] = {4528.7, 4703.8, 4305.4, 4444.3};
    const char *src[CML_PEAK_CLASS_COUNT] = {"sum grid-stride v16 u4 cs", "fill one-shot v16",
                                             "memcpy", "triad one-shot v16"};
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        r.gbs[c] = gbs[c];
        snprintf(r.source[c], sizeof r.source[c], "%s", src[c]);
    }
    return r;
}

static void write_file(const char *text)
{
    cml_device_facts d = facts();
    char path[1200], why[256];
    CHECK(cml_peak_cache_path(&d, path, sizeof path, why, sizeof why) == CML_OK);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_round_trip(void)
{
    cml_device_facts d = facts();
    cml_peak_refs r = refs(), got;
    char why[512] = "", when[64] = "";
    CHECK(cml_peak_cache_load(&d, &got, when, sizeof when, why, sizeof why) == CML_EINVAL);
    CHECK_STR_CONTAINS(why, "no entry yet");
    CHECK(cml_peak_cache_store(&d, &r, why, sizeof why) == CML_OK);
    memset(&got, 0, sizeof got);
    CHECK(cml_peak_cache_load(&d, &got, when, sizeof when, why, sizeof why) == CML_OK);
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        CHECK(got.gbs[c] == r.gbs[c]); /* %.17g: exact */
        CHECK_STR_EQ(got.source[c], r.source[c]);
    }
    CHECK(!got.given);
    CHECK_STR_CONTAINS(when, " UTC");
    /* The path: the folder given, the UUID in the name. */
    char path[1200];
    CHECK(cml_peak_cache_path(&d, path, sizeof path, why, sizeof why) == CML_OK);
    CHECK_STR_CONTAINS(path, dir);
    CHECK_STR_CONTAINS(path, "/peak-GPU-5b5c1f3e-8a1d-4a6e-9f1a-0123456789ab.txt");
}

/* Each part of the key changed alone: not this entry, and the reason named. */
static void test_key(void)
{
    static const char *const reasons[] = {"the GPU's name", "the driver", "the runtime",
                                          "the SM clock", "the memory clock"};
    for (size_t k = 0; k < sizeof reasons / sizeof reasons[0]; k++) {
        cml_device_facts d = facts();
        switch (k) {
        case 0: snprintf(d.name, sizeof d.name, "NVIDIA H100 80GB HBM3"); break;
        case 1: d.driver_version = 12080; break;
        case 2: d.runtime_version = 12080; break;
        case 3: d.sm_clock_khz = 1755000; break;
        case 4: d.mem_clock_khz = 2619001; break;
        }
        cml_peak_refs got;
        char why[512] = "", when[64];
        CHECK(cml_peak_cache_load(&d, &got, when, sizeof when, why, sizeof why) == CML_EINVAL);
        CHECK_STR_CONTAINS(why, reasons[k]);
    }
    /* Another UUID is another file: no entry for it. */
    cml_device_facts other = facts();
    other.uuid[10] = 'f';
    cml_peak_refs got;
    char why[512] = "", when[64];
    CHECK(cml_peak_cache_load(&other, &got, when, sizeof when, why, sizeof why) == CML_EINVAL);
    CHECK_STR_CONTAINS(why, "no entry yet");
    /* No UUID (a file of an older version, a device that gave none): unsupported. */
    other.uuid[0] = '\0';
    CHECK(cml_peak_cache_load(&other, &got, when, sizeof when, why, sizeof why) ==
          CML_EUNSUPPORTED);
    cml_peak_refs r = refs();
    CHECK(cml_peak_cache_store(&other, &r, why, sizeof why) == CML_EUNSUPPORTED);
    /* A UUID that would leave the folder is never a file name. */
    snprintf(other.uuid, sizeof other.uuid, "../../etc/x");
    char path[1200];
    CHECK(cml_peak_cache_path(&other, path, sizeof path, why, sizeof why) == CML_EUNSUPPORTED);
}

/* Damaged or hostile class lines: the entry is refused whole. */
static void test_hostile(void)
{
    static const char key[] = "cumemlab-peak-cache 1\nsearch 1\n"
                              "uuid GPU-5b5c1f3e-8a1d-4a6e-9f1a-0123456789ab\nname NVIDIA H200\n"
                              "driver 13000\nruntime 13000\nsm_clock_khz 1980000\n"
                              "mem_clock_khz 2619000\nmeasured 2026-11-27 14:30 UTC\n";
    static const char *const bodies[] = {
        "read nan x\nwrite 1 x\ncopy 1 x\ntriad 1 x\n",
        "read 1e999 x\nwrite 1 x\ncopy 1 x\ntriad 1 x\n",
        "read -5 x\nwrite 1 x\ncopy 1 x\ntriad 1 x\n",
        "read 0 x\nwrite 1 x\ncopy 1 x\ntriad 1 x\n",
        "read 1 x\nread 2 x\ncopy 1 x\ntriad 1 x\n",   /* a class twice */
        "read 1 x\nwrite 1 x\ncopy 1 x\n",              /* a class missing */
        "read 1 x\nwrite 1 x\ncopy 1 x\ngiven 1 x\n",   /* not a measured class */
        "read 1 x\nwrite 1 x\ncopy 1 x\ntriad 1 x\nbogus\n",
        "read 5000000 x\nwrite 1 x\ncopy 1 x\ntriad 1 x\n", /* beyond any memory */
        "",
    };
    for (size_t k = 0; k < sizeof bodies / sizeof bodies[0]; k++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", key, bodies[k]);
        write_file(text);
        cml_device_facts d = facts();
        cml_peak_refs got = refs();
        char why[512] = "", when[64];
        cml_status st = cml_peak_cache_load(&d, &got, when, sizeof when, why, sizeof why);
        CHECK(st == CML_EINVAL);
        if (st == CML_OK)
            fprintf(stderr, "  hostile body %zu was trusted\n", k);
        CHECK(why[0] != '\0');
    }
    /* A truncated key, and text that is no cache at all. */
    write_file("cumemlab-peak-cache 1\nsearch 1\n");
    cml_device_facts d = facts();
    cml_peak_refs got;
    char why[512] = "", when[64];
    CHECK(cml_peak_cache_load(&d, &got, when, sizeof when, why, sizeof why) == CML_EINVAL);
    write_file("\x01\x02\xff garbage\n");
    CHECK(cml_peak_cache_load(&d, &got, when, sizeof when, why, sizeof why) == CML_EINVAL);
    CHECK_STR_CONTAINS(why, "the file format");
    /* A given reference (--peak) is never kept as a measurement. */
    cml_peak_refs given = refs();
    given.given = 1;
    CHECK(cml_peak_cache_store(&d, &given, why, sizeof why) == CML_EINVAL);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/cml-peak-cache-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    char sub[sizeof dir + 8];
    snprintf(sub, sizeof sub, "%s/a/b", dir); /* the folder is made as needed */
    setenv("CUMEMLAB_CACHE_DIR", sub, 1);
    snprintf(dir, sizeof dir, "%.150s", sub);
    test_round_trip();
    test_key();
    test_hostile();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%.*s'", (int)(strlen(sub) - 4), sub);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", sub);
    return cml_test_summary("test_peak_cache");
}
