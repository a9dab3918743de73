/*
 * Experiment 16's kernels (src/experiments/peak.cu): every kernel in both
 * launch shapes, at sizes that are not multiples of 4 or of the block size
 * (the tails), compared element by element with a host reference on the
 * whole array; the device verifier must catch planted wrong elements and
 * unwritten (poisoned) output; the full experiment at its default DRAM size
 * must verify and give the peak. Without a GPU: "SKIP: <reason>", 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "experiments/experiment.h"
#include "experiments/peak.h"
#include "gpu/gpu.h"
#include "lab/sweep.h"
#include "../test_util.h"

/* Run op/shape once on the bench and compare the whole output on the host. */
static void check_kernel(cml_gpu *g, cml_peak_bench *b, cml_peak_op op, cml_peak_shape shape,
                         float *host)
{
    cml_peak_args a;
    CHECK(cml_peak_configure(b, op, shape, &a, NULL) == CML_OK);
    CHECK(cml_peak_poison(b, &a) == CML_OK);
    cml_status st = cml_peak_launch(&a);
    CHECK(st == CML_OK);
    if (st != CML_OK)
        return;
    uint64_t n = b->n, bad = 0, first = 0;
    if (op == CML_PEAK_SUM) {
        double got = 0, want = 0, host_sum = 0;
        cml_dbuf r = b->result;
        CHECK(cml_gpu_download(g, &got, &r, sizeof got) == CML_OK);
        for (uint64_t i = 0; i < n; i++)
            host_sum += (double)cml_random_f32(b->seed_x, i);
        if (got != host_sum)
            fprintf(stderr, "sum %s n=%llu block=%u: %.17g, host %.17g\n",
                    cml_peak_shape_name(shape), (unsigned long long)n, b->block, got, host_sum);
        CHECK(got == host_sum); /* exact: see peak.h */
        CHECK(cml_peak_verify(b, &a, &bad, &first, &got, &want) == CML_OK);
        CHECK_EQ_U64(bad, 0);
        CHECK(want == host_sum);
        return;
    }
    CHECK(cml_gpu_download(g, host, &b->z, n * sizeof(float)) == CML_OK);
    uint64_t wrong = 0, first_wrong = 0;
    for (uint64_t i = 0; i < n; i++) {
        float want = cml_peak_expected(op, b->seed_x, b->seed_y, i);
        if (memcmp(&host[i], &want, sizeof want) != 0) {
            if (!wrong)
                first_wrong = i;
            wrong++;
        }
    }
    if (wrong)
        fprintf(stderr, "%s %s n=%llu block=%u: %llu wrong, first at %llu\n",
                cml_peak_op_name(op), cml_peak_shape_name(shape), (unsigned long long)n,
                b->block, (unsigned long long)wrong, (unsigned long long)first_wrong);
    CHECK_EQ_U64(wrong, 0);
    CHECK(cml_peak_verify(b, &a, &bad, &first, NULL, NULL) == CML_OK);
    CHECK_EQ_U64(bad, 0);
}

static void test_sizes(cml_gpu *g)
{
    static const uint64_t sizes[] = {1, 3, 4, 5, 31, 1027, 4099, 65536, 1000003, (1u << 22) + 7};
    static const unsigned blocks[] = {256, 96};
    float *host = malloc(((1u << 22) + 7) * sizeof *host);
    CHECK(host != NULL);
    if (!host)
        return;
    for (size_t bi = 0; bi < 2; bi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            cml_peak_bench b;
            cml_status st = cml_peak_bench_open(g, sizes[si], blocks[bi], &b);
            CHECK(st == CML_OK);
            if (st != CML_OK) {
                fprintf(stderr, "bench: %s\n", cml_gpu_error(g));
                continue;
            }
            for (int op = 0; op < CML_PEAK_OP_COUNT; op++)
                for (int s = 0; s < CML_PEAK_SHAPE_COUNT; s++)
                    if (op != CML_PEAK_MEMCPY || s == 0)
                        check_kernel(g, &b, (cml_peak_op)op, (cml_peak_shape)s, host);
            cml_peak_bench_close(&b);
        }
    free(host);
}

static void test_verifier(cml_gpu *g)
{
    const uint64_t n = 1000003;
    cml_peak_bench b;
    CHECK(cml_peak_bench_open(g, n, 256, &b) == CML_OK);
    cml_peak_args a;
    uint64_t bad = 0, first = 0;
    double got = 0, want = 0;

    /* Unwritten output: every element still poison. */
    CHECK(cml_peak_configure(&b, CML_PEAK_TRIAD, CML_PEAK_ONE_SHOT, &a, NULL) == CML_OK);
    CHECK(cml_peak_poison(&b, &a) == CML_OK);
    CHECK(cml_peak_verify(&b, &a, &bad, &first, NULL, NULL) == CML_OK);
    CHECK_EQ_U64(bad, n);
    CHECK_EQ_U64(first, 0);

    /* A correct run, then two planted wrong elements (one off by one ulp). */
    CHECK(cml_peak_launch(&a) == CML_OK);
    CHECK(cml_peak_verify(&b, &a, &bad, &first, NULL, NULL) == CML_OK);
    CHECK_EQ_U64(bad, 0);
    float right = cml_peak_expected(CML_PEAK_TRIAD, b.seed_x, b.seed_y, 777777);
    uint32_t bits;
    memcpy(&bits, &right, sizeof bits);
    bits ^= 1u; /* one ulp */
    float wrong1;
    memcpy(&wrong1, &bits, sizeof wrong1);
    float wrong2 = 0.0f;
    cml_dbuf e1 = {(char *)b.z.ptr + 777777 * sizeof(float), sizeof(float), 0};
    cml_dbuf e2 = {(char *)b.z.ptr + (n - 1) * sizeof(float), sizeof(float), 0};
    CHECK(cml_gpu_upload(g, &e1, &wrong1, sizeof wrong1) == CML_OK);
    CHECK(cml_gpu_upload(g, &e2, &wrong2, sizeof wrong2) == CML_OK);
    CHECK(cml_peak_verify(&b, &a, &bad, &first, &got, &want) == CML_OK);
    CHECK_EQ_U64(bad, 2);
    CHECK_EQ_U64(first, 777777);
    CHECK(got == (double)wrong1 && want == (double)right);

    /* The sum: one input element changed must change the verdict. */
    CHECK(cml_peak_configure(&b, CML_PEAK_SUM, CML_PEAK_GRID_STRIDE, &a, NULL) == CML_OK);
    CHECK(cml_peak_launch(&a) == CML_OK);
    CHECK(cml_peak_verify(&b, &a, &bad, &first, NULL, NULL) == CML_OK);
    CHECK_EQ_U64(bad, 0);
    float x = 1.5f;
    cml_dbuf x1 = {(char *)b.x.ptr + 4242 * sizeof(float), sizeof(float), 0};
    CHECK(cml_gpu_upload(g, &x1, &x, sizeof x) == CML_OK);
    CHECK(cml_peak_launch(&a) == CML_OK);
    CHECK(cml_peak_verify(&b, &a, &bad, &first, &got, &want) == CML_OK);
    CHECK_EQ_U64(bad, 1);
    CHECK(got != want);
    cml_peak_bench_close(&b);
}

/* The experiment itself at its default (DRAM) size: every record verified,
 * a peak set; the figures are printed for the person running the check.
 * CML_QUICK_TEST (set by gpu-check.sh under compute-sanitizer, which slows
 * kernels down many times): a small size and few repetitions. */
static void test_experiment(cml_gpu *g)
{
    const cml_experiment *e = &cml_exp_peak;
    cml_param_values pv;
    char err[256];
    CHECK(cml_param_defaults(e->options, e->noptions, &pv, err, sizeof err) == CML_OK);
    cml_plan plan;
    memset(&plan, 0, sizeof plan);
    if (getenv("CML_QUICK_TEST")) {
        CHECK(cml_param_set(&pv, "n", "1048579", err, sizeof err) == CML_OK);
        plan.warmup = 1;
        plan.reps = 3;
    }
    plan.gpu = g;
    plan.dev = cml_gpu_facts(g);
    plan.where = CML_WHERE_DRAM;
    cml_results out;
    cml_results_init(&out);
    cml_status st = cml_sweep_run(e, &plan, &pv, &out);
    CHECK(st == CML_OK);
    if (st != CML_OK)
        fprintf(stderr, "peak-bandwidth: %s (%s)\n", cml_status_str(st), cml_gpu_error(g));
    CHECK_EQ_U64(out.count, 11); /* 5 kernels x 2 shapes + memcpy */
    double theo = plan.dev->theoretical_gbs, best_kernel = 0, memcpy_gbs = 0;
    printf("%-44s %10s %10s %8s %6s %s\n", "variant", "GB/s", "median ms", "cv", "%theo",
           "verify");
    for (size_t i = 0; i < out.count; i++) {
        const cml_record *r = &out.items[i];
        printf("%-44s %10.1f %10.4f %8.4f %6.1f %s\n", r->variant, r->bandwidth_gbs,
               r->timing.median_ms, r->timing.cv, 100.0 * r->bandwidth_gbs / theo,
               r->verify == CML_VERIFY_PASSED ? "passed" : r->note);
        CHECK(r->state == CML_REC_OK);
        CHECK(r->verify == CML_VERIFY_PASSED);
        CHECK(r->measured);
        CHECK(r->bandwidth_gbs > 0);
        CHECK(r->peak_fraction > 0 && r->peak_fraction <= 1.0);
        if (strstr(r->variant, "memcpy")) {
            memcpy_gbs = r->bandwidth_gbs;
        } else {
            CHECK(r->has_model);
            /* Whole float4s of whole warps: every fetched byte is used. */
            const cml_traffic *ld = &r->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
            CHECK(cml_traffic_efficiency(ld) > 0.999);
            if (r->bandwidth_gbs > best_kernel)
                best_kernel = r->bandwidth_gbs;
        }
    }
    printf("peak %.1f GB/s = %.1f%% of the theoretical %.1f GB/s; best kernel %.1f, memcpy %.1f\n",
           out.peak_gbs, 100.0 * out.peak_gbs / theo, theo, best_kernel, memcpy_gbs);
    for (size_t i = 0; i < out.count; i++)
        printf("  %s\n", out.items[i].finding);
    CHECK(out.peak_gbs > 0);
    if (out.peak_gbs < 0.9 * theo)
        printf("WARN: the peak is below 90%% of the theoretical bandwidth\n");
    if (best_kernel < memcpy_gbs)
        printf("WARN: the best kernel is slower than cudaMemcpy D2D\n");

    double quick = 0;
    CHECK(cml_peak_measure(&plan, &quick) == CML_OK);
    printf("cml_peak_measure: %.1f GB/s\n", quick);
    CHECK(quick > 0.5 * out.peak_gbs);
    cml_results_free(&out);
}

/* The model alone (runs without a GPU too): every kernel's mirror traced,
 * 16 sectors per float4 request, every fetched byte used, exact counts. */
static void test_model(void)
{
    const cml_experiment *e = &cml_exp_peak;
    cml_param_values pv;
    char err[256];
    CHECK(cml_param_defaults(e->options, e->noptions, &pv, err, sizeof err) == CML_OK);
    CHECK(cml_param_set(&pv, "n", "1048579", err, sizeof err) == CML_OK); /* 2^20 + 3 */
    cml_plan plan;
    memset(&plan, 0, sizeof plan);
    cml_results out;
    cml_results_init(&out);
    CHECK(cml_sweep_run(e, &plan, &pv, &out) == CML_OK); /* plan.gpu NULL: the model */
    CHECK_EQ_U64(out.count, 11);
    const uint64_t n = 1048579, n4 = n / 4;
    for (size_t i = 0; i < out.count; i++) {
        const cml_record *r = &out.items[i];
        CHECK(r->state == CML_REC_OK);
        CHECK(!r->measured);
        CHECK(r->finding[0] != '\0');
        if (strstr(r->variant, "memcpy")) {
            CHECK(!r->has_model);
            CHECK_EQ_U64(r->bytes_read + r->bytes_written, 8 * n);
            continue;
        }
        CHECK(r->has_model);
        const cml_record_param *k = cml_record_find_param(r, "kernel");
        CHECK(k != NULL);
        if (!k)
            continue;
        int loads_per_elem = (k->value == CML_PEAK_ADD || k->value == CML_PEAK_TRIAD) ? 2 : 1;
        const cml_traffic *ld = &r->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
        const cml_traffic *st = &r->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
        /* float4 part: n4/32 full warps per array; the 3-float tail: one
         * instruction of 3 lanes and one sector per array. */
        CHECK_EQ_U64(ld->sectors, loads_per_elem * (n4 * 16 / 32 + 1));
        CHECK_EQ_U64(ld->requested_bytes, loads_per_elem * 4 * n);
        CHECK(cml_traffic_efficiency(ld) > 0.9999);
        if (k->value == CML_PEAK_SUM) {
            /* No float stores: the result (one double) only. */
            CHECK_EQ_U64(st->requested_bytes, 8);
            CHECK_EQ_U64(st->requests, 1);
        } else {
            CHECK_EQ_U64(st->requests, n4 / 32 + 1);
            CHECK_EQ_U64(st->sectors, n4 * 16 / 32 + 1);
            CHECK(cml_traffic_efficiency(st) > 0.9999);
        }
        /* Fermi rules: whole 128-byte lines too (quarter-warp requests). */
        CHECK(cml_traffic_efficiency(&r->model[CML_RULES_FERMI].cls[CML_CLASS_GLOBAL_LD]) > 0.99);
    }
    cml_results_free(&out);
}

int main(void)
{
    char why[320];
    test_model();
    if (cml_gpu_count(why, sizeof why) == 0) {
        if (cml_test_failures)
            return cml_test_summary("gpu_test_peak (model part)");
        printf("SKIP: %s (the model part passed, %d checks)\n", why, cml_test_checks);
        return 77;
    }
    cml_gpu *g = NULL;
    char err[512];
    if (cml_gpu_open(0, &g, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cannot open device 0: %s\n", err);
        return 1;
    }
    if (getenv("CML_QUICK_TEST")) /* under compute-sanitizer: no extra samples */
        cml_gpu_set_noise_limit(g, 0.0, 1);
    test_sizes(g);
    test_verifier(g);
    test_experiment(g);
    cml_gpu_close(g);
    return cml_test_summary("gpu_test_peak");
}
