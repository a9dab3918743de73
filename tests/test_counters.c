#define _POSIX_C_SOURCE 200809L /* setenv */
/*
 * The counters layer on the CPU: the counter map (every metric names a
 * valid class and field, kinds and fields agree, predictions computed from
 * the model match hand-derived figures), agreement rules, the probes' model
 * figures, and "unavailable" answered cleanly: without a GPU, with libcupti
 * missing (CML_CUPTI_LIBRARY pointing nowhere) or in a build without CUPTI,
 * open returns CML_ENOGPU / CML_EUNSUPPORTED with a one-line reason and a
 * NULL handle, and the other entry points accept NULL without crashing.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counter_map.h"
#include "counters/counters.h"
#include "counters/cupti_messages.h"
#include "counters/probes.h"
#include "core/record.h"
#include "gpu/gpu.h"
#include "test_util.h"

static const cml_counter_def *find(const char *m)
{
    const cml_counter_def *d = cml_counter_map_find(m);
    CHECK(d != NULL);
    return d;
}

static void test_map_shape(void)
{
    size_t n = cml_counter_map_count();
    CHECK(n >= 20);
    CHECK(n <= CML_RECORD_MAX_COUNTERS);
    const char *const *names = cml_counter_map_metrics();
    for (size_t i = 0; i < n; i++) {
        const cml_counter_def *d = cml_counter_map_at(i);
        CHECK(d != NULL);
        if (!d)
            continue;
        CHECK(d->metric && *d->metric);
        CHECK(d->meaning && *d->meaning);
        CHECK(strlen(d->metric) < sizeof(((cml_counter *)0)->name));
        /* ncu rollups: counts end in .sum, ratios in .pct */
        size_t len = strlen(d->metric);
        CHECK(len > 4 && (!strcmp(d->metric + len - 4, ".sum") ||
                          !strcmp(d->metric + len - 4, ".pct")));
        CHECK(names[i] == d->metric);
        CHECK(cml_counter_map_find(d->metric) == d);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(cml_counter_map_at(j)->metric, d->metric) != 0);
        CHECK(d->kind == CML_CTR_EXACT || d->kind == CML_CTR_PERCENT || d->kind == CML_CTR_INFO ||
              d->kind == CML_CTR_RELATIVE);
        CHECK(d->field >= CML_CTR_NONE && d->field < CML_CTR_FIELD_COUNT);
        if (d->kind == CML_CTR_INFO) {
            CHECK(d->field == CML_CTR_NONE);
        } else if (d->kind == CML_CTR_RELATIVE) {
            /* Cache levels: whole-kernel figures across classes. */
            CHECK(d->cls == -1);
            CHECK(d->field >= CML_CTR_L1_HIT && d->field <= CML_CTR_DRAM_WRITE);
        } else {
            CHECK(d->field != CML_CTR_NONE);
            CHECK(d->cls >= 0 && d->cls < (int)CML_CLASS_COUNT);
        }
        CHECK((d->kind == CML_CTR_PERCENT) == (d->field == CML_CTR_EFFICIENCY));
        CHECK((d->kind == CML_CTR_PERCENT) == (strstr(d->metric, ".pct") != NULL));
        CHECK(strcmp(cml_ctr_kind_name(d->kind), "invalid") != 0);
        /* Kept at 0: only the L2 hit and the L2 read-miss and write
         * counters by who asked (a 0 there is a figure, absence means not
         * read). */
        CHECK(cml_counter_kept_at_zero(d) ==
              (d->kind == CML_CTR_INFO && (strstr(d->metric, "op_read_lookup_") != NULL ||
                                           strstr(d->metric, "op_write.sum") != NULL)));
        CHECK(strcmp(cml_ctr_field_name(d->field), "invalid") != 0);
        /* The class in the name is the class in the map
         * (l1tex__..._mem_global_op_ld, smsp__inst_executed_op_global_ld). */
        static const char *const space_of[] = {"global", "global", "local", "local", "shared",
                                               "shared", "const"};
        if (d->cls >= 0 && d->cls < (int)CML_CLASS_COUNT) {
            const int store = d->cls == CML_CLASS_GLOBAL_ST || d->cls == CML_CLASS_LOCAL_ST ||
                              d->cls == CML_CLASS_SHARED_ST;
            char a[32], b[32];
            snprintf(a, sizeof a, "%s_op_%s", space_of[d->cls], store ? "st" : "ld");
            snprintf(b, sizeof b, "op_%s_%s", space_of[d->cls], store ? "st" : "ld");
            CHECK(strstr(d->metric, a) != NULL || strstr(d->metric, b) != NULL);
        }
    }
    CHECK(cml_counter_map_at(n) == NULL);
    CHECK(cml_counter_map_find("no_such_metric.sum") == NULL);
    CHECK(cml_counter_map_find(NULL) == NULL);

    /* The metrics docs/model.md §12.1 names for the map are all in. */
    static const char *const needed[] = {
        "smsp__inst_executed_op_global_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
        "lts__t_sectors_srcunit_tex_op_read.sum",
        "lts__t_sectors_srcunit_tex_op_write.sum",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
    };
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        CHECK(cml_counter_map_find(needed[i]) != NULL);
    CHECK(find("dram__bytes_read.sum")->kind == CML_CTR_RELATIVE);
    CHECK(find("dram__bytes_read.sum")->field == CML_CTR_DRAM_READ);
    CHECK(find("dram__bytes_write.sum")->field == CML_CTR_DRAM_WRITE);
    CHECK(find("lts__t_sectors_srcunit_tex_op_read.sum")->field == CML_CTR_L2_READ);
    CHECK(find("lts__t_sectors_srcunit_tex_op_write.sum")->field == CML_CTR_L2_WRITE);
    CHECK(find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum")->field ==
          CML_CTR_L1_HIT);
    CHECK(find("smsp__inst_executed_op_global_ld.sum")->kind == CML_CTR_INFO);
    CHECK(find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")->field == CML_CTR_SECTORS);
    CHECK(find("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")->field ==
          CML_CTR_BANK_CONFLICTS);
}

/* One warp instruction through the model, added to t's class. */
static void model_one(cml_kernel_traffic *t, cml_space space, cml_op op, unsigned width,
                      uint64_t base, uint64_t step, uint32_t active)
{
    cml_access a;
    memset(&a, 0, sizeof a);
    a.space = space;
    a.op = op;
    a.cache = CML_CACHE_CA;
    a.width = width;
    a.active = active;
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = base + step * l;
    CHECK(cml_model_access(CML_RULES_MODERN, &a, &t->cls[cml_class_of(space, op)]) == CML_OK);
}

static void test_predict(void)
{
    cml_kernel_traffic t;
    memset(&t, 0, sizeof t);
    /* docs/model.md §2.1: float offset 11 -> 1 request, 5 sectors, 80%; a coalesced
     * float4 store -> 16 sectors, 100%; shared stride 32 words -> 32
     * wavefronts, 31 conflicts. */
    model_one(&t, CML_SPACE_GLOBAL, CML_OP_LOAD, 4, cml_array_base(0) + 44, 4, 0xffffffffu);
    model_one(&t, CML_SPACE_GLOBAL, CML_OP_STORE, 16, cml_array_base(1), 16, 0xffffffffu);
    model_one(&t, CML_SPACE_SHARED, CML_OP_LOAD, 4, 0, 128, 0xffffffffu);
    double v = -1;
    /* Issued SASS instructions: informational (predicated-off ones count). */
    CHECK(!cml_counter_predict(find("smsp__inst_executed_op_global_ld.sum"), &t, &v));
    CHECK(cml_counter_predict(find("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), &t, &v) &&
          v == 1);
    CHECK(cml_counter_predict(find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), &t, &v) &&
          v == 5);
    CHECK(cml_counter_predict(find("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"),
                              &t, &v));
    CHECK_NEAR(v, 80.0, 1e-9);
    CHECK(cml_counter_predict(find("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), &t, &v) &&
          v == 16);
    CHECK(cml_counter_predict(find("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"),
                              &t, &v));
    CHECK_NEAR(v, 100.0, 1e-9);
    /* Cache-level metrics: no prediction without the levels. */
    CHECK(!cml_counter_predict(find("lts__t_sectors_srcunit_tex_op_write.sum"), &t, &v));
    CHECK(cml_counter_predict(find("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), &t,
                              &v) &&
          v == 32);
    CHECK(cml_counter_predict(find("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), &t,
                              &v) &&
          v == 31);
    /* No prediction: INFO metrics, cache levels without levels, and a
     * percentage of a class without traffic. */
    CHECK(!cml_counter_predict(find("dram__bytes_read.sum"), &t, &v));
    CHECK(!cml_counter_predict(find("lts__t_sectors_srcunit_tex_op_read.sum"), &t, &v));
    CHECK(!cml_counter_predict(find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"),
                               &t, &v));
    cml_kernel_traffic empty;
    memset(&empty, 0, sizeof empty);
    const cml_counter_def *st_pct =
        find("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct");
    CHECK(!cml_counter_predict(st_pct, &empty, &v));
    CHECK(cml_counter_predict(find("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"), &empty, &v) &&
          v == 0);
    CHECK(!cml_counter_predict(NULL, &t, &v));
    CHECK(!cml_counter_predict(find("dram__bytes_write.sum"), NULL, &v));

    /* With the levels, each cache metric reads its field; the others are
     * predicted as without. */
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    lv.l1_hit_sectors = 11;
    lv.l2_read_sectors = 22;
    lv.l2_write_sectors = 33;
    lv.dram_read_bytes = 44;
    lv.dram_write_bytes = 55;
    CHECK(cml_counter_predict_levels(
              find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"), &t, &lv, &v) &&
          v == 11);
    CHECK(cml_counter_predict_levels(find("lts__t_sectors_srcunit_tex_op_read.sum"), &t, &lv, &v) &&
          v == 22);
    CHECK(cml_counter_predict_levels(find("lts__t_sectors_srcunit_tex_op_write.sum"), &t, &lv,
                                     &v) &&
          v == 33);
    CHECK(cml_counter_predict_levels(find("dram__bytes_read.sum"), &t, &lv, &v) && v == 44);
    CHECK(cml_counter_predict_levels(find("dram__bytes_write.sum"), &t, &lv, &v) && v == 55);
    CHECK(cml_counter_predict_levels(find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), &t,
                                     &lv, &v) &&
          v == 5);
    CHECK(!cml_counter_predict_levels(find("smsp__inst_executed_op_global_ld.sum"), &t, &lv, &v));

    /* Which figures validate judges: every cache-level counter but one whose
     * measured value and model both lie at or under its noise floor
     * (262144 bytes for DRAM, 1024 sectors = 32 KiB for L1 and L2), whatever
     * the footprint; other kinds always. */
    const cml_counter_def *dr = find("dram__bytes_read.sum");
    const cml_counter_def *l1 = find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum");
    const cml_counter_def *ldsec = find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    CHECK(cml_counter_floor(dr) == CML_NOISE_FLOOR_DRAM_BYTES && CML_NOISE_FLOOR_DRAM_BYTES == 262144.0);
    CHECK(cml_counter_floor(l1) == 1024.0 && CML_NOISE_FLOOR_SECTOR_BYTES == 32768.0);
    CHECK(!cml_counter_judged(dr, 262144.0, 0.0));
    CHECK(!cml_counter_judged(dr, 9216.0, 262144.0));
    CHECK(cml_counter_judged(dr, 262145.0, 0.0));
    CHECK(cml_counter_judged(dr, 0.0, 262145.0));
    CHECK(!cml_counter_judged(l1, 1024.0, 1000.0));
    CHECK(cml_counter_judged(l1, 1025.0, 1000.0));
    CHECK(cml_counter_judged(dr, NAN, 0.0));
    CHECK(cml_counter_judged(ldsec, 0.0, 0.0)); /* exact counters are always judged */
}

static void test_agree(void)
{
    const cml_counter_def *sec = find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    const cml_counter_def *pct =
        find("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
    const cml_counter_def *info = find("smsp__inst_executed_op_global_ld.sum");
    CHECK(cml_counter_agrees(sec, 1310720.0, 1310720.0));
    CHECK(!cml_counter_agrees(sec, 1310719.0, 1310720.0));
    CHECK(!cml_counter_agrees(sec, NAN, 5.0));
    CHECK(cml_counter_agrees(pct, 80.004, 80.0));
    CHECK(!cml_counter_agrees(pct, 80.5, 80.0));
    CHECK(!cml_counter_agrees(pct, 12.5, 400.0));
    CHECK(cml_counter_agrees(info, 123.0, 0.0));
    /* Relative: 1% for L1 and L2 (floor 1024 sectors), 2% for DRAM (floor
     * 256 KiB), of the larger value. */
    const cml_counter_def *l2w = find("lts__t_sectors_srcunit_tex_op_write.sum");
    const cml_counter_def *dw = find("dram__bytes_write.sum");
    CHECK(cml_counter_tolerance(l2w) == 0.01 && cml_counter_tolerance(dw) == 0.02);
    CHECK(cml_counter_tolerance(sec) == 0.0);
    CHECK(cml_counter_agrees(l2w, 1000000.0, 990000.0));
    CHECK(!cml_counter_agrees(l2w, 1000000.0, 989000.0));
    CHECK(cml_counter_agrees(l2w, 5000.0, 4000.0)); /* within the floor */
    CHECK(!cml_counter_agrees(l2w, 5000.0, 3900.0));
    CHECK(cml_counter_agrees(dw, 100e6, 98.1e6));
    CHECK(!cml_counter_agrees(dw, 100e6, 97.9e6));
    CHECK(cml_counter_agrees(dw, 0.0, 262144.0));
    CHECK(!cml_counter_agrees(dw, 0.0, 262145.0));
}

/* Hand-derived per-instruction figures of some probes (the model must give
 * exactly these), and every probe well formed. */
static void test_probes(void)
{
    size_t nm;
    const char *const *m = cml_probe_metrics(&nm);
    CHECK(nm == cml_counter_map_count() + 2);
    CHECK(nm <= CML_PROBE_MAX_METRICS);
    CHECK(!strcmp(m[nm - 2], "smsp__inst_executed_op_shared_ld.sum"));
    CHECK(cml_probe_count() >= 30);
    int seen_e1 = 0, seen_e2 = 0, seen_e4 = 0, seen_e5 = 0, seen_e7 = 0;
    for (size_t i = 0; i < cml_probe_count(); i++) {
        const cml_probe_def *d = cml_probe_at(i);
        cml_kernel_traffic t;
        uint64_t issues = 0;
        CHECK(cml_probe_model(d, &t, &issues) == CML_OK);
        CHECK_EQ_U64(issues, (uint64_t)d->warps * d->iters * d->repeat);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(cml_probe_at(j)->id, d->id) != 0);
        seen_e1 |= !strcmp(d->question, "E1");
        seen_e2 |= !strcmp(d->question, "E2");
        seen_e4 |= !strcmp(d->question, "E4");
        seen_e5 |= !strcmp(d->question, "E5");
        seen_e7 |= !strcmp(d->question, "E7");
        const cml_traffic *ld = &t.cls[CML_CLASS_GLOBAL_LD], *st = &t.cls[CML_CLASS_GLOBAL_ST];
        const cml_traffic *sld = &t.cls[CML_CLASS_SHARED_LD];
        if (!strcmp(d->id, "ld.ca u32, offset 11 floats")) {
            CHECK_EQ_U64(ld->requests, issues);
            CHECK_EQ_U64(ld->sectors, 5 * issues);
            CHECK_NEAR(cml_traffic_efficiency(ld), 0.8, 1e-12);
        }
        if (!strcmp(d->id, "ld.ca u32, offset 11, twice"))
            CHECK_EQ_U64(ld->sectors, 5 * issues);
        if (!strcmp(d->id, "ld.ca v4.u32, 32 lanes consecutive")) {
            CHECK_EQ_U64(ld->requests, issues);
            CHECK_EQ_U64(ld->sectors, 16 * issues);
        }
        if (!strcmp(d->id, "ld.ca u32, all lanes one address"))
            CHECK_EQ_U64(ld->sectors, issues);
        if (!strcmp(d->id, "ld.ca u32, no lane active (ptxas branches over it)"))
            CHECK_EQ_U64(ld->instructions, 0);
        if (!strcmp(d->id, "st.wb u32, one float per sector")) {
            CHECK_EQ_U64(st->sectors, 32 * issues);
            CHECK_NEAR(cml_traffic_efficiency(st), 0.125, 1e-12);
        }
        if (!strcmp(d->id, "st.wb u32, one float per sector, 512 MiB"))
            CHECK_EQ_U64(issues * 1024, (uint64_t)512 << 20);
        if (!strcmp(d->id, "ld.shared u32, stride 32 words")) {
            CHECK_EQ_U64(sld->wavefronts, 32 * issues);
            CHECK_EQ_U64(sld->bank_conflicts, 31 * issues);
        }
        if (!strcmp(d->id, "ld.shared u32, stride 33 words"))
            CHECK_EQ_U64(sld->bank_conflicts, 0);
        if (!strcmp(d->id, "ld.shared v4.u32, consecutive"))
            CHECK_EQ_U64(sld->wavefronts, 4 * issues);
    }
    CHECK(seen_e1 && seen_e2 && seen_e4 && seen_e5 && seen_e7);
    uint32_t off[32];
    cml_probe_offsets(cml_probe_at(0), off);
    CHECK_EQ_U64(off[31], 31); /* u8 consecutive: lane l at byte l */
}

/* Without a GPU, or without CUPTI, or with libcupti missing: a clean
 * "unavailable", never a crash. */
static void test_unavailable(void)
{
    char why[512];
    cml_counters *c = (cml_counters *)&why; /* must be overwritten with NULL */
    char gwhy[256];
    int gpus = cml_gpu_count(gwhy, sizeof gwhy);

    /* libcupti missing at run time: only testable before the library was
     * first loaded in this process, and only where the device check passes. */
    setenv("CML_CUPTI_LIBRARY", "/nonexistent/libcupti.so.13", 1);
    why[0] = '\0';
    cml_status st = cml_counters_open(0, &c, why, sizeof why);
    CHECK(st != CML_OK);
    CHECK(c == NULL);
    CHECK(why[0] != '\0');
    CHECK(strchr(why, '\n') == NULL);
    if (!cml_counters_built()) {
        CHECK(st == CML_EUNSUPPORTED);
        CHECK_STR_CONTAINS(why, "built without CUPTI");
    } else if (gpus == 0) {
        CHECK(st == CML_ENOGPU || st == CML_EUNSUPPORTED);
    } else {
        CHECK(st == CML_EUNSUPPORTED);
        CHECK_STR_CONTAINS(why, "libcupti not found");
    }
    printf("unavailable (%s): %s\n", cml_status_str(st), why);
    unsetenv("CML_CUPTI_LIBRARY");

    /* Every entry point with a NULL handle or bad arguments. */
    double v[3] = {1, 2, 3};
    const char *names[3] = {"dram__bytes_read.sum", "x.sum", "y.sum"};
    CHECK(cml_counters_measure(NULL, NULL, NULL, names, 3, v) != CML_OK);
    CHECK(cml_counters_metric_ok(NULL, "dram__bytes_read.sum", why, sizeof why) == 0);
    CHECK(!strcmp(cml_counters_error(NULL), ""));
    CHECK(!strcmp(cml_counters_chip(NULL), ""));
    CHECK(cml_counters_passes(NULL) == 0);
    CHECK(cml_counters_flush_bytes(NULL) == 0);
    CHECK(cml_counters_open(0, NULL, why, sizeof why) == CML_EINVAL);
    cml_counters_close(NULL);
}

/* The line a failed CUPTI call becomes: a busy profiler says the counters
 * are taken by another process (by whom when known) and how to go on. */
static void test_messages(void)
{
    char line[512];
    cml_cupti_explain(line, sizeof line, "cuptiRangeProfilerEnable", CML_CUPTI_HARDWARE_BUSY,
                      "CUPTI_ERROR_HARDWARE_BUSY", NULL);
    CHECK_STR_CONTAINS(line, "performance counters are taken: another process is profiling "
                             "this GPU");
    CHECK_STR_CONTAINS(line, "the driver does not say which");
    CHECK_STR_CONTAINS(line, "cuptiRangeProfilerEnable: CUPTI_ERROR_HARDWARE_BUSY");
    CHECK_STR_CONTAINS(line, "--counters off");
    CHECK(strstr(line, "needs a GPU") == NULL);
    cml_cupti_explain(line, sizeof line, "cuptiRangeProfilerEnable", CML_CUPTI_HARDWARE_BUSY,
                      "CUPTI_ERROR_HARDWARE_BUSY", "ncu (pid 4242)");
    CHECK_STR_CONTAINS(line, "(held by ncu (pid 4242); cuptiRangeProfilerEnable");
    CHECK(strstr(line, "does not say") == NULL);

    cml_cupti_explain(line, sizeof line, "cuptiProfilerInitialize",
                      CML_CUPTI_INSUFFICIENT_PRIVILEGES, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES",
                      NULL);
    CHECK_STR_CONTAINS(line, "no permission to read GPU performance counters (ERR_NVGPUCTRPERM");
    cml_cupti_explain(line, sizeof line, "cuptiProfilerInitialize",
                      CML_CUPTI_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "X", NULL);
    CHECK_STR_CONTAINS(line, "another profiler is attached to this process");
    cml_cupti_explain(line, sizeof line, "cuptiProfilerInitialize", CML_CUPTI_NOT_SUPPORTED, "X",
                      NULL);
    CHECK_STR_CONTAINS(line, "the profiler does not support this device");
    /* Anything else: the call and CUPTI's own name, or "unknown". */
    cml_cupti_explain(line, sizeof line, "cuptiRangeProfilerStart", 999, "CUPTI_ERROR_FOO",
                      NULL);
    CHECK(strcmp(line, "cuptiRangeProfilerStart failed: CUPTI_ERROR_FOO") == 0);
    cml_cupti_explain(line, sizeof line, "cuptiRangeProfilerStart", 999, NULL, NULL);
    CHECK(strcmp(line, "cuptiRangeProfilerStart failed: unknown CUPTI error") == 0);
    /* A small buffer is cut, never overrun. */
    char tiny[8];
    cml_cupti_explain(tiny, sizeof tiny, "x", CML_CUPTI_HARDWARE_BUSY, "y", NULL);
    CHECK(strlen(tiny) == sizeof tiny - 1);
}

int main(void)
{
    test_messages();
    test_map_shape();
    test_predict();
    test_agree();
    test_probes();
    test_unavailable();
    return cml_test_summary("test_counters");
}
