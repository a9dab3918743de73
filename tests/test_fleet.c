/*
 * The fleet's comparison (src/report/fleet.c) on runs built by hand, each
 * number derived by hand from the rule of docs/fleet.md:
 *   - three GPUs: the median is the reference; -10% and +4% outside their
 *     spread are flagged (slower, faster); +5% inside its own spread is not;
 *   - two GPUs: the faster is the reference, only the slower is flagged;
 *   - latency records (an "ns_per_load" extra): the latency is the figure,
 *     not the bandwidth; the lower is the faster; its band scales with the
 *     launch's time; a flagged latency counts as a slower speed figure;
 *   - four GPUs: the mean of the two middle values, the band of both;
 *   - exact counters: any difference from the majority is flagged; two
 *     GPUs that differ have no majority (nothing flagged); a counter that
 *     is not exact (DRAM bytes) is no figure; waived records are skipped;
 *   - who is named: the chance of a GPU's flagged count or more at the
 *     other GPUs' rate (Poisson), below 0.001, at small and larger counts;
 *   - groups by model: a GPU alone is not compared; a failed run is
 *     listed, not compared;
 *   - the fleet reader: a fleet of ranks read from text, its embedded
 *     results by the results reader, errors naming the member inside.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet.h"
#include "report/json_read.h"
#include "test_util.h"

#define SECTORS "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" /* exact */
#define DRAM "dram__bytes_read.sum"                               /* relative */

/* A run of one model with one record per bandwidth given (experiment "e",
 * variants "v0", "v1", ...), each timed with median 1 ms and min/max at
 * median -+ spread (a fraction). */
static cml_fleet_run *add(cml_fleet_runs *f, const char *model, const double *bw, size_t n,
                          double spread)
{
    if (f->count == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 8;
        f->items = realloc(f->items, f->cap * sizeof *f->items);
    }
    cml_fleet_run *run = &f->items[f->count++];
    memset(run, 0, sizeof *run);
    snprintf(run->file, sizeof run->file, "run%zu.json", f->count - 1);
    run->rank = run->local_rank = run->exit_status = -1;
    run->has_results = 1;
    cml_results_init(&run->results);
    run->results.has_device = 1;
    snprintf(run->results.device.name, sizeof run->results.device.name, "%s", model);
    for (size_t i = 0; i < n; i++) {
        char v[24]; /* "v" and any size_t */
        snprintf(v, sizeof v, "v%zu", i);
        cml_record *rec = cml_results_add(&run->results, "e", v);
        rec->measured = 1;
        rec->bandwidth_gbs = bw[i];
        rec->timing = (cml_timing){3, 5, 1.0, 1.0 - spread, 1.0 + spread, 1.0, 0.001};
    }
    return run;
}

static void counter(cml_fleet_run *run, size_t rec, const char *name, double v)
{
    cml_record *r = &run->results.items[rec];
    snprintf(r->counters[r->ncounters].name, sizeof r->counters[0].name, "%s", name);
    r->counters[r->ncounters++].measured = v;
}

static const cml_fleet_row *row_of(const cml_fleet *f, size_t group, const char *variant,
                                   const char *figure)
{
    for (size_t r = 0; r < f->nrows; r++)
        if (f->rows[r].group == group && !strcmp(f->rows[r].variant, variant) &&
            !strcmp(cml_fleet_figure_name(&f->rows[r]), figure))
            return &f->rows[r];
    return NULL;
}

static void test_three(void)
{
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    /* v0: 100, 90, 104 (tight bands: 0.1%); v1: 100, 100, 105 with a 6%
     * spread on the third: its band [105/1.06, 105/0.94] = [99.06, 111.7]
     * reaches the reference's [99.9, 100.1] */
    double a[] = {100, 100}, b[] = {90, 100}, c[] = {104, 105};
    add(&runs, "H100", a, 2, 0.001);
    add(&runs, "H100", b, 2, 0.001);
    cml_fleet_run *rc = add(&runs, "H100", c, 2, 0.001);
    rc->results.items[1].timing.min_ms = 0.94, rc->results.items[1].timing.max_ms = 1.06;
    cml_fleet f;
    CHECK(cml_fleet_build(&f, &runs, 0) == CML_OK);
    CHECK_NEAR(f.threshold, 3.0, 0);
    CHECK_EQ_U64(f.ngroups, 1);
    CHECK_EQ_U64(f.nrows, 2);
    const cml_fleet_row *r0 = row_of(&f, 0, "v0", "bandwidth");
    CHECK(r0 && r0->rule == CML_FLEET_REF_MEDIAN);
    if (r0) {
        CHECK_NEAR(r0->reference, 100, 0);
        CHECK_NEAR(r0->ref_lo, 100 / 1.001, 1e-9);
        CHECK_NEAR(r0->ref_hi, 100 / 0.999, 1e-9);
        CHECK_NEAR(r0->cells[1].deviation, -0.10, 1e-12);
        CHECK(r0->cells[1].flagged);  /* 90: -10%, band [89.9, 90.1] */
        CHECK_NEAR(r0->cells[2].deviation, 0.04, 1e-12);
        CHECK(r0->cells[2].flagged);  /* 104: +4%, band [103.9, 104.1] */
        CHECK(!r0->cells[0].flagged); /* the reference itself */
        CHECK_EQ_U64(r0->nflagged, 2);
    }
    const cml_fleet_row *r1 = row_of(&f, 0, "v1", "bandwidth");
    CHECK(r1 && r1->reference == 100);
    if (r1) {
        CHECK_NEAR(r1->cells[2].deviation, 0.05, 1e-12);
        CHECK(!r1->cells[2].flagged); /* +5%, but inside its own spread */
        CHECK_NEAR(r1->cells[2].lo, 105 / 1.06, 1e-9);
    }
    /* One flagged figure each: no GPU stands out from the others (a GPU is
     * named from 3 flagged figures, more than twice the others' median). */
    CHECK(!f.gpus[1].outlier && !f.gpus[2].outlier && !f.gpus[0].outlier);
    CHECK_EQ_U64(f.noutliers, 0);
    CHECK_EQ_U64(f.gpus[1].speed_compared, 2);
    CHECK_EQ_U64(f.gpus[1].speed_slower, 1);
    CHECK_EQ_U64(f.gpus[2].speed_faster, 1);
    CHECK_NEAR(f.gpus[1].median_flagged, -0.10, 1e-12);
    CHECK(!strcmp(f.gpus[1].experiments, "e"));
    CHECK(!strcmp(f.gpus[1].label, "run1.json: GPU 0 H100"));
    cml_fleet_free(&f);

    /* --threshold 10.5: the -10% and +4% are within it; at 3.9 the +4% is not */
    CHECK(cml_fleet_build(&f, &runs, 10.5) == CML_OK);
    CHECK_EQ_U64(f.noutliers, 0);
    cml_fleet_free(&f);
    CHECK(cml_fleet_build(&f, &runs, 3.9) == CML_OK);
    CHECK(!f.gpus[2].outlier && f.gpus[2].speed_flagged == 1);
    cml_fleet_free(&f);
    cml_fleet_runs_free(&runs);
}

static void test_two_and_four(void)
{
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    double a[] = {100}, b[] = {110};
    add(&runs, "H100", a, 1, 0.001);
    add(&runs, "H100", b, 1, 0.001);
    cml_fleet f;
    CHECK(cml_fleet_build(&f, &runs, 3) == CML_OK);
    const cml_fleet_row *r = row_of(&f, 0, "v0", "bandwidth");
    CHECK(r && r->rule == CML_FLEET_REF_FASTER);
    if (r) {
        CHECK_NEAR(r->reference, 110, 0); /* the faster */
        CHECK_NEAR(r->cells[0].deviation, 100.0 / 110 - 1, 1e-12); /* -9.09% */
        CHECK(r->cells[0].flagged && !r->cells[1].flagged);
    }
    CHECK_EQ_U64(f.gpus[0].speed_flagged, 1); /* one figure: flagged, not named */
    CHECK(!f.gpus[0].outlier && !f.gpus[1].outlier);
    cml_fleet_free(&f);

    /* four: 90, 100, 102, 110 -> median (100 + 102) / 2 = 101, the band
     * [100/1.001, 102/0.999]; 90 (-10.9%) and 110 (+8.9%) are outside it */
    double c[] = {102}, d[] = {90};
    runs.items[1].results.items[0].bandwidth_gbs = 110;
    add(&runs, "H100", c, 1, 0.001);
    add(&runs, "H100", d, 1, 0.001);
    CHECK(cml_fleet_build(&f, &runs, 3) == CML_OK);
    r = row_of(&f, 0, "v0", "bandwidth");
    CHECK(r && r->rule == CML_FLEET_REF_MEDIAN);
    if (r) {
        CHECK_NEAR(r->reference, 101, 1e-12);
        CHECK_NEAR(r->ref_lo, 100 / 1.001, 1e-9);
        CHECK_NEAR(r->ref_hi, 102 / 0.999, 1e-9);
        CHECK_NEAR(r->cells[3].deviation, 90.0 / 101 - 1, 1e-12);
        CHECK(r->cells[3].flagged && r->cells[1].flagged);
        CHECK(!r->cells[0].flagged && !r->cells[2].flagged);
    }
    cml_fleet_free(&f);
    cml_fleet_runs_free(&runs);
}

/*
 * Latency: two GPUs at 280 and 296 ns a load, their bandwidths equal (the
 * bandwidth of a latency record is not compared): the reference is 280 (the
 * faster), 296 is +5.71% in ns, a speed deviation of 280/296 - 1 = -5.41%,
 * flagged and counted slower. Its band: 296 x [0.999, 1.001]. Three GPUs
 * at 280, 296, 290: the median 290; 280 is -3.45% in ns (faster), 296
 * +2.07% (within 3%).
 */
static void test_latency(void)
{
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    double a[] = {0.05}, b[] = {0.05};
    cml_fleet_run *ra = add(&runs, "H100", a, 1, 0.001);
    cml_fleet_run *rb = add(&runs, "H100", b, 1, 0.001);
    cml_record_add_extra(&ra->results.items[0], "ns_per_load", 280, "ns");
    cml_record_add_extra(&rb->results.items[0], "ns_per_load", 296, "ns");
    cml_fleet f;
    CHECK(cml_fleet_build(&f, &runs, 3) == CML_OK);
    CHECK(row_of(&f, 0, "v0", "bandwidth") == NULL);
    const cml_fleet_row *r = row_of(&f, 0, "v0", "latency");
    CHECK(r && r->kind == CML_FLEET_LATENCY && r->rule == CML_FLEET_REF_FASTER);
    if (r) {
        CHECK_NEAR(r->reference, 280, 0);
        CHECK_NEAR(r->cells[1].deviation, 296.0 / 280 - 1, 1e-12);
        CHECK_NEAR(cml_fleet_speed_deviation(r, &r->cells[1]), 280.0 / 296 - 1, 1e-12);
        CHECK_NEAR(r->cells[1].lo, 296 * 0.999, 1e-9);
        CHECK_NEAR(r->cells[1].hi, 296 * 1.001, 1e-9);
        CHECK(r->cells[1].flagged && !r->cells[0].flagged);
    }
    CHECK_EQ_U64(f.gpus[1].speed_flagged, 1);
    CHECK_EQ_U64(f.gpus[1].speed_slower, 1);
    CHECK_EQ_U64(f.gpus[1].speed_compared, 1);
    CHECK_NEAR(f.gpus[1].median_flagged, 280.0 / 296 - 1, 1e-12);
    cml_fleet_free(&f);

    double c[] = {0.05};
    cml_fleet_run *rc = add(&runs, "H100", c, 1, 0.001);
    cml_record_add_extra(&rc->results.items[0], "ns_per_load", 290, "ns");
    CHECK(cml_fleet_build(&f, &runs, 3) == CML_OK);
    r = row_of(&f, 0, "v0", "latency");
    CHECK(r && r->rule == CML_FLEET_REF_MEDIAN);
    if (r) {
        CHECK_NEAR(r->reference, 290, 0);
        CHECK(r->cells[0].flagged && !r->cells[1].flagged && !r->cells[2].flagged);
        CHECK_NEAR(cml_fleet_speed_deviation(r, &r->cells[0]), 290.0 / 280 - 1, 1e-12);
    }
    CHECK_EQ_U64(f.gpus[0].speed_faster, 1);
    cml_fleet_free(&f);
    cml_fleet_runs_free(&runs);
}

/*
 * Who is named (Poisson: the chance of a GPU's count of flagged figures or
 * more, at the mean max(others' median, 1), below 0.001). Eight records: A
 * {100 x 8}, B {100 x 7, 90}, C {90 x 7, 100}. Each figure's median is
 * 100: C is flagged on the first seven (-10%), B on the last. C: 7 against
 * the others' median of {0, 1} = 0.5, so a mean of 1: P(X >= 7) = 1 -
 * e^-1 (1 + 1 + 1/2 + 1/6 + 1/24 + 1/120 + 1/720) = 8.324e-5, named. B: 1
 * against the median of {0, 7} = 3.5: P(X >= 1) = 1 - e^-3.5 = 0.96980,
 * not named. A: none. With C flagged on five only (C {90 x 5, 100 x 3}):
 * P(X >= 5) = 1 - e^-1 (1 + 1 + 1/2 + 1/6 + 1/24) = 0.00366, not named.
 */
static void test_named(void)
{
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    double a[] = {100, 100, 100, 100, 100, 100, 100, 100},
           b[] = {100, 100, 100, 100, 100, 100, 100, 90},
           c[] = {90, 90, 90, 90, 90, 90, 90, 100};
    add(&runs, "H100", a, 8, 0.001);
    add(&runs, "H100", b, 8, 0.001);
    cml_fleet_run *rc = add(&runs, "H100", c, 8, 0.001);
    cml_fleet f;
    CHECK(cml_fleet_build(&f, &runs, 0) == CML_OK);
    CHECK_EQ_U64(f.gpus[0].speed_flagged, 0);
    CHECK_EQ_U64(f.gpus[1].speed_flagged, 1);
    CHECK_EQ_U64(f.gpus[2].speed_flagged, 7);
    CHECK_NEAR(f.gpus[2].others_flagged, 0.5, 0);
    CHECK_NEAR(f.gpus[1].others_flagged, 3.5, 0);
    CHECK_NEAR(f.gpus[2].chance, 8.3241149e-5, 1e-11);
    CHECK_NEAR(f.gpus[1].chance, 1 - exp(-3.5), 1e-12);
    CHECK_NEAR(f.gpus[0].chance, 1.0, 0); /* none flagged */
    CHECK(f.gpus[2].outlier && !f.gpus[1].outlier && !f.gpus[0].outlier);
    CHECK_EQ_U64(f.noutliers, 1);
    CHECK_NEAR(f.gpus[2].median_flagged, -0.10, 1e-12);
    cml_fleet_free(&f);

    rc->results.items[5].bandwidth_gbs = 100;
    rc->results.items[6].bandwidth_gbs = 100;
    CHECK(cml_fleet_build(&f, &runs, 0) == CML_OK);
    CHECK_EQ_U64(f.gpus[2].speed_flagged, 5);
    CHECK_NEAR(f.gpus[2].chance, 0.0036598468, 1e-9);
    CHECK(!f.gpus[2].outlier);
    CHECK_EQ_U64(f.noutliers, 0);
    cml_fleet_free(&f);
    cml_fleet_runs_free(&runs);
}

/* The chance at larger counts, where e^-mean alone is small: five GPUs,
 * each of B, C, D flagged alone on 90 figures of its own, E on 125, A on
 * none (395 records). E: 125 against the others' median of {0, 90, 90, 90}
 * = 90: P(X >= 125) = 0.000279, named; with E at 110: 0.0225, not named;
 * B: 90 against {0, 90, 90, 125}, a mean of 90: P(X >= 90) = 0.51402. */
static void test_named_large(void)
{
    enum { PER = 90, E = 125, N = 3 * PER + E };
    static double v[5][N];
    for (int g = 0; g < 5; g++)
        for (int i = 0; i < N; i++)
            v[g][i] = g > 0 && i >= (g - 1) * PER && i < (g - 1) * PER + (g == 4 ? E : PER)
                          ? 90
                          : 100;
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    for (int g = 0; g < 5; g++)
        add(&runs, "H100", v[g], N, 0.001);
    cml_fleet f;
    CHECK(cml_fleet_build(&f, &runs, 0) == CML_OK);
    CHECK_EQ_U64(f.gpus[4].speed_flagged, E);
    CHECK_NEAR(f.gpus[4].others_flagged, PER, 0);
    CHECK_NEAR(f.gpus[4].chance, 0.000278576, 1e-9);
    CHECK_NEAR(f.gpus[1].chance, 0.5140182, 1e-7);
    CHECK(f.gpus[4].outlier && !f.gpus[1].outlier && !f.gpus[0].outlier);
    cml_fleet_free(&f);
    for (int i = 3 * PER + 110; i < N; i++)
        runs.items[4].results.items[i].bandwidth_gbs = 100;
    CHECK(cml_fleet_build(&f, &runs, 0) == CML_OK);
    CHECK_EQ_U64(f.gpus[4].speed_flagged, 110);
    CHECK_NEAR(f.gpus[4].chance, 0.0225214, 1e-7);
    CHECK(!f.gpus[4].outlier);
    cml_fleet_free(&f);
    cml_fleet_runs_free(&runs);
}

static void test_counters_and_groups(void)
{
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    double bw[] = {100, 100};
    cml_fleet_run *g[3];
    for (int i = 0; i < 3; i++) {
        g[i] = add(&runs, "H100", bw, 2, 0.001);
        counter(g[i], 0, SECTORS, i == 2 ? 64 : 32);
        counter(g[i], 0, DRAM, 1000.0 * (i + 1)); /* differs, but not exact */
        counter(g[i], 1, SECTORS, 32);
    }
    runs.items[1].results.items[1].state = CML_REC_WAIVED; /* not compared */
    add(&runs, "H200", bw, 2, 0.001);               /* a group of one */
    cml_fleet_run *failed = add(&runs, "H100", bw, 0, 0);
    failed->has_results = 0;
    snprintf(failed->diagnostic, sizeof failed->diagnostic, "no CUDA device found");
    cml_fleet f;
    CHECK(cml_fleet_build(&f, &runs, 3) == CML_OK);
    CHECK_EQ_U64(f.ngroups, 2);
    CHECK_EQ_U64(f.groups[0].n, 3);
    CHECK_EQ_U64(f.groups[1].n, 1);
    CHECK_EQ_U64(f.groups[1].nrows, 0);
    CHECK_EQ_U64(f.nfailed, 1);
    CHECK(f.gpus[4].failed && !f.gpus[4].outlier);
    CHECK(!row_of(&f, 0, "v0", DRAM));
    const cml_fleet_row *r = row_of(&f, 0, "v0", SECTORS);
    CHECK(r && r->rule == CML_FLEET_REF_MAJORITY);
    if (r) {
        CHECK_NEAR(r->reference, 32, 0);
        CHECK(r->cells[2].flagged && !r->cells[0].flagged);
        CHECK_NEAR(r->cells[2].deviation, 1.0, 1e-12); /* 64 / 32 - 1 */
    }
    r = row_of(&f, 0, "v1", "bandwidth");
    CHECK(r && r->present == 2 && !r->cells[1].present); /* the waived record */
    CHECK(f.gpus[2].outlier && f.gpus[2].ctr_flagged == 1 && f.gpus[2].speed_flagged == 0);
    CHECK(!strcmp(f.gpus[2].counters, SECTORS " in e"));
    CHECK_EQ_U64(f.noutliers, 1);
    cml_fleet_free(&f);

    /* two GPUs whose exact counter differs: no majority, nothing flagged */
    cml_fleet_runs_free(&runs);
    for (int i = 0; i < 2; i++)
        counter(add(&runs, "H100", bw, 1, 0.001), 0, SECTORS, i ? 64 : 32);
    CHECK(cml_fleet_build(&f, &runs, 3) == CML_OK);
    r = row_of(&f, 0, "v0", SECTORS);
    CHECK(r && r->rule == CML_FLEET_REF_NONE && r->nflagged == 0 && isnan(r->reference));
    CHECK_EQ_U64(f.noutliers, 0);
    cml_fleet_free(&f);
    cml_fleet_runs_free(&runs);
}

static const char *results_text =
    "{\"schema\": \"cumemlab-results\", \"schema_version\": 1, \"tool_version\": \"0.1.0\","
    " \"command_line\": \"x\", \"model_only\": false, \"device\": null, \"peak_gbs\": 0,"
    " \"records\": []}";

static void test_reader(void)
{
    char text[4096], err[512];
    snprintf(text, sizeof text,
             "{\"ranks\": [{\"rank\": 0, \"host\": \"a\", \"exit_status\": 0, \"results\": %s,"
             " \"gpu\": {\"index\": 1, \"name\": \"H100\", \"driver\": \"580.65.06\","
             " \"start\": {\"sm_clock_mhz\": 1980, \"temperature_c\": null, \"power_w\": 71.5,"
             " \"clock_event_reasons\": [\"none\"]}, \"end\": null}, \"extra\": [1]},"
             " {\"rank\": 1, \"host\": \"b\", \"exit_status\": 139, \"diagnostic\": "
             "\"killed by signal 11 (Segmentation fault)\", \"gpu\": null, \"results\": null}],"
             " \"schema_version\": 1, \"schema\": \"cumemlab-fleet\", \"ranks_total\": 2,"
             " \"launcher\": \"slurm\", \"later\": {}}",
             results_text);
    cml_fleet_runs runs;
    cml_fleet_runs_init(&runs);
    CHECK(cml_fleet_read_text(text, strlen(text), "f.json", &runs, err, sizeof err) == CML_OK);
    CHECK_EQ_U64(runs.count, 2);
    CHECK_EQ_U64(runs.fleet_files, 1);
    CHECK(!strcmp(runs.launcher, "slurm"));
    if (runs.count == 2) {
        const cml_fleet_run *r = &runs.items[0];
        CHECK(r->from_fleet && r->rank == 0 && r->has_results && r->has_gpu);
        CHECK(!strcmp(r->results.tool_version, "0.1.0"));
        CHECK(r->gpu.index == 1 && r->gpu.start.known && r->gpu.start.sm_clock_mhz == 1980);
        CHECK(r->gpu.start.mem_clock_mhz == -1 && r->gpu.start.temperature_c == -1000);
        CHECK_NEAR(r->gpu.start.power_w, 71.5, 0);
        CHECK(!r->gpu.end.known && !strcmp(r->gpu.start.reasons, "none"));
        r = &runs.items[1];
        CHECK(r->exit_status == 139 && !r->has_results && !r->has_gpu);
        CHECK(!strcmp(r->diagnostic, "killed by signal 11 (Segmentation fault)"));
    }
    /* a results file is one run */
    CHECK(cml_fleet_read_text(results_text, strlen(results_text), "r.json", &runs, err,
                              sizeof err) == CML_OK);
    CHECK_EQ_U64(runs.count, 3);
    CHECK(runs.count == 3 && !runs.items[2].from_fleet && runs.items[2].rank == -1);
    /* an error inside a rank's results names where; the runs read before stay */
    const char *bad = "{\"schema\": \"cumemlab-fleet\", \"schema_version\": 1, \"ranks\": "
                      "[{\"rank\": 0, \"host\": \"a\", \"exit_status\": 0, \"results\": "
                      "{\"schema\": \"cumemlab-results\", \"schema_version\": 1}}]}";
    CHECK(cml_fleet_read_text(bad, strlen(bad), "bad.json", &runs, err, sizeof err) ==
          CML_EINVAL);
    CHECK(strstr(err, "bad.json: line 1, column 115 (byte 114): ranks[0].results: top level: "
                      "missing member \"tool_version\"") == err);
    CHECK_EQ_U64(runs.count, 3);
    cml_fleet_runs_free(&runs);
}

int main(void)
{
    test_three();
    test_two_and_four();
    test_latency();
    test_named();
    test_named_large();
    test_counters_and_groups();
    test_reader();
    return cml_test_summary("test_fleet");
}
