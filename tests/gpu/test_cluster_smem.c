/*
 * Experiment 22's kernels (src/experiments/cluster_smem/cluster_smem_body.h) on a GPU: the
 * device's cluster limits; each test and source at clusters of 1, 2, 3 and
 * the largest the device allows, launched once, the whole output compared
 * with a host reference written here (every block's checksum of its
 * neighbour's words, every chase's last entry, whose tag names the block
 * whose memory it walked), the rest of the output still poison. Then the
 * tour runs through the engine: every record verified, or waived with the
 * reason (a GPU below sm_90; a cluster size above the device's largest).
 * Without a GPU: "SKIP: <reason>", exit 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "experiments/cluster_smem/cluster_smem_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "gpu/gpu.h"
#include "gpu_test_util.h"
#include "../experiment_test_util.h"
#include "../test_util.h"

#define WORDS 4096u /* 16 KiB per block */
#define SEED 0xBEEFu
#define PASSES 3u
#define STEPS 777u

static cml_gpu *g;
static uint32_t chain[WORDS];

/* A single cycle through WORDS entries, made here (not by the experiment). */
static void make_cycle(void)
{
    uint32_t order[WORDS];
    for (uint32_t i = 0; i < WORDS; i++)
        order[i] = i;
    for (uint32_t i = WORDS - 1; i > 0; i--) {
        uint32_t j = cml_random_u32(7, i) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < WORDS; i++)
        chain[order[i]] = order[(i + 1) % WORDS];
}

typedef struct expect {
    unsigned grid, cluster;
    int test;
} expect;

static unsigned next_block(unsigned b, unsigned cluster)
{
    return b / cluster * cluster + (b % cluster + 1) % cluster;
}

/* Word q of out[] (u64 little-endian words). */
static uint32_t want_out(const void *ctx, uint64_t q)
{
    const expect *x = ctx;
    const uint64_t k = q / 2;
    uint64_t v;
    if (x->test == CML_CL_BANDWIDTH) {
        if (k >= x->grid)
            return 0xFFFFFFFFu;
        const unsigned nb = next_block((unsigned)k, x->cluster);
        v = 0;
        for (unsigned i = 0; i < WORDS; i++)
            v += cml_random_u32(SEED, (uint64_t)nb * WORDS + i);
        v *= PASSES;
    } else {
        if (k >= 2u * x->grid)
            return 0xFFFFFFFFu;
        if (k % 2)
            return fetched[q]; /* the cycles: checked apart */
        const unsigned nb = next_block((unsigned)(k / 2), x->cluster);
        uint32_t idx = 0;
        for (unsigned s = 0; s + 1 < STEPS; s++)
            idx = chain[idx];
        v = chain[idx] | (uint64_t)nb << CML_CL_TAG_SHIFT;
    }
    return q % 2 ? (uint32_t)(v >> 32) : (uint32_t)v;
}

static void check_launch(cml_dbuf *copy, cml_dbuf *out, const cml_dbuf *dchain, int test,
                         int source, unsigned cluster)
{
    char what[96];
    snprintf(what, sizeof what, "%s %s cluster %u", test ? "latency" : "bandwidth",
             source ? "global" : "dsmem", cluster);
    cml_cluster_launch_args a = {copy->ptr, out->ptr, dchain->ptr, SEED, 0, cluster, WORDS,
                                 PASSES, STEPS, test, source};
    int max_cluster = 0, active = 0;
    cml_status st = cml_cluster_limits(&a, &max_cluster, &active);
    CHECK(st == CML_OK);
    CHECK((int)cluster <= max_cluster && active > 0);
    if (st || (int)cluster > max_cluster || active <= 0) {
        fprintf(stderr, "%s: limits %d, active %d: %s\n", what, max_cluster, active,
                cml_gpu_error(g));
        return;
    }
    a.grid = test == CML_CL_LATENCY ? 2 * cluster : (unsigned)active * cluster;
    CHECK((size_t)a.grid * WORDS * 4 <= copy->bytes);
    CHECK(cml_gpu_poison(g, out) == CML_OK);
    st = cml_cluster_launch(&a);
    if (st)
        fprintf(stderr, "%s: launch: %s\n", what, cml_gpu_error(g));
    CHECK(st == CML_OK);
    if (st || !fetch(g, out, out->bytes))
        return;
    expect x = {a.grid, cluster, test};
    compare_words(what, "words", out->bytes / 4, want_out, &x);
    if (test == CML_CL_LATENCY)
        for (unsigned b = 0; b < a.grid; b++) {
            uint64_t cycles = fetched[4 * b + 2] | (uint64_t)fetched[4 * b + 3] << 32;
            /* At least a cycle a step; the upper bound only outside the
             * sanitizers (CML_QUICK_TEST), which slow every access. */
            CHECK(cycles >= STEPS);
            if (!getenv("CML_QUICK_TEST"))
                CHECK(cycles < (uint64_t)STEPS * 100000u);
        }
}

static void test_kernels(void)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    if (f->cc_major < 9) {
        printf("cluster-smem kernels: compute capability %d.%d has no clusters: skipped\n",
               f->cc_major, f->cc_minor);
        return;
    }
    make_cycle();
    cml_dbuf copy = {0}, out = {0}, dchain = {0};
    const size_t blocks = (size_t)f->sm_count * (f->max_threads_per_sm / CML_CL_BLOCK);
    cml_status st = cml_gpu_alloc(g, &copy, blocks * WORDS * 4);
    if (!st)
        st = cml_gpu_alloc(g, &out, 2 * blocks * 8);
    if (!st)
        st = cml_gpu_alloc(g, &dchain, sizeof chain);
    if (!st)
        st = cml_gpu_upload(g, &dchain, chain, sizeof chain);
    CHECK(st == CML_OK);
    if (!st) {
        /* the largest cluster this kernel may use, non-portable sizes allowed */
        cml_cluster_launch_args q = {copy.ptr, out.ptr, dchain.ptr, SEED, 0, 8, WORDS, 1, 1,
                                     CML_CL_BANDWIDTH, CML_CL_DSMEM};
        int max_cluster = 0, active = 0;
        CHECK(cml_cluster_limits(&q, &max_cluster, &active) == CML_OK);
        CHECK(max_cluster >= 8); /* 8 is portable on every sm_90 device */
        CHECK(active > 0);
        printf("cluster-smem: largest cluster %d, %d clusters of 8 resident\n", max_cluster,
               active);
        const unsigned sizes[] = {1, 2, 3, (unsigned)max_cluster};
        for (int test = 0; test < CML_CL_TEST_COUNT; test++)
            for (int source = 0; source < CML_CL_SOURCE_COUNT; source++)
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                    check_launch(&copy, &out, &dchain, test, source, sizes[k]);
    }
    cml_gpu_free(g, &copy);
    cml_gpu_free(g, &out);
    cml_gpu_free(g, &dchain);
}

static void test_tour(void)
{
    const cml_experiment *x = &cml_exp_cluster_smem;
    const cml_device_facts *f = cml_gpu_facts(g);
    cml_param_values pv;
    tour_params(x, &pv);
    if (getenv("CML_QUICK_TEST")) {
        char err[256];
        CHECK(cml_param_set(&pv, "passes", "2", err, sizeof err) == CML_OK);
        CHECK(cml_param_set(&pv, "steps", "256", err, sizeof err) == CML_OK);
    }
    cml_plan plan;
    gpu_test_plan(&plan, g);
    cml_results r;
    tour_run(x, &plan, &pv, &r);
    CHECK_EQ_U64(r.count, 16);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        if (rec->state == CML_REC_WAIVED) {
            const cml_record_param *c = cml_record_find_param(rec, "cluster");
            CHECK(f->cc_major < 9 || (c && c->value > 8));
            CHECK(strstr(rec->note, "compute capability 9.0") || strstr(rec->note, "largest") ||
                  strstr(rec->note, "fits this device"));
            printf("%-48s waived: %s\n", rec->variant, rec->note);
            continue;
        }
        check_tour_record(x, rec);
        const cml_record_param *t = cml_record_find_param(rec, "test");
        if (t && t->value == CML_CL_LATENCY) {
            CHECK(extra(rec, "cycles_per_load") > 1.0);
            CHECK(extra(rec, "ns_per_load") > 0.0);
        } else {
            CHECK(extra(rec, "fill_us") > 0.0);
        }
        printf("%-48s %9.4f ms %9.1f GB/s\n  %s\n", rec->variant, rec->timing.median_ms,
               rec->bandwidth_gbs, rec->finding);
    }
    cml_results_free(&r);
}

int main(void)
{
    int rc = gpu_test_open(&g, "a device is present but cannot be opened");
    if (rc)
        return rc;
    test_kernels();
    test_tour();
    gpu_test_close(g);
    return cml_test_summary("gpu_test_cluster_smem");
}
