/*
 * Experiment 16's kernels (src/lab/peak.cu): every kernel in every
 * shape, at sizes that are not multiples of 4 or of the block size (the
 * tails), compared element by element with a host reference on the whole
 * array; the device verifier must catch planted wrong elements and
 * unwritten (poisoned) output; the experiment must verify every record and
 * give a reference for every class; the lab's quick search must find every
 * class too. The model part runs without a GPU;
 * then "SKIP: <reason>", 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "lab/experiment.h"
#include "experiments/peak/peak.h"
#include "gpu/gpu.h"
#include "lab/sweep.h"
#include "../test_util.h"

/* Run op/shape once on the bench and compare the whole output on the host;
 * `sum` is the host's checksum of x. */
static void check_kernel(cml_gpu *g, cml_peak_bench *b, cml_peak_op op, cml_peak_shape shape,
                         float *host, uint64_t sum)
{
    cml_peak_args a;
    CHECK(cml_peak_configure(b, op, shape, &a, NULL) == CML_OK);
    CHECK(cml_peak_poison(b, &a) == CML_OK);
    cml_status st = cml_peak_launch(&a);
    CHECK(st == CML_OK);
    if (st != CML_OK) {
        fprintf(stderr, "%s %s: %s\n", cml_peak_op_name(op), cml_peak_shape_name(shape),
                cml_gpu_error(g));
        return;
    }
    uint64_t n = b->n, bad = 0, first = 0;
    if (op == CML_PEAK_SUM) {
        unsigned long long got = 0;
        double dgot = 0, dwant = 0;
        cml_dbuf r = b->result;
        CHECK(cml_gpu_download(g, &got, &r, sizeof got) == CML_OK);
        if (got != sum)
            fprintf(stderr, "sum %s n=%llu block=%u: %llu, host %llu\n",
                    cml_peak_shape_name(shape), (unsigned long long)n, b->block, got,
                    (unsigned long long)sum);
        CHECK(got == sum);
        CHECK(cml_peak_verify(b, &a, &bad, &first, &dgot, &dwant) == CML_OK);
        CHECK_EQ_U64(bad, 0);
        CHECK(dwant == (double)sum);
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
    const size_t nsizes = getenv("CML_QUICK_TEST") ? 8 : sizeof sizes / sizeof sizes[0];
    float *host = malloc(((1u << 22) + 7) * sizeof *host);
    CHECK(host != NULL);
    if (!host)
        return;
    for (size_t bi = 0; bi < 2; bi++)
        for (size_t si = 0; si < nsizes; si++) {
            if (bi == 1 && sizes[si] > 100000)
                continue; /* the second block size at the small sizes only */
            cml_peak_bench b;
            cml_status st = cml_peak_bench_open(g, sizes[si], blocks[bi], &b);
            CHECK(st == CML_OK);
            if (st != CML_OK) {
                fprintf(stderr, "bench: %s\n", cml_gpu_error(g));
                continue;
            }
            const uint64_t sum = cml_peak_expected_sum(b.seed_x, b.n);
            for (int op = 0; op < CML_PEAK_OP_COUNT; op++)
                for (int s = 0; s < CML_PEAK_SHAPE_COUNT; s++)
                    if (op < CML_PEAK_KERNEL_OPS || s == 0)
                        check_kernel(g, &b, (cml_peak_op)op, (cml_peak_shape)s, host, sum);
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
    CHECK(cml_peak_configure(&b, CML_PEAK_TRIAD, CML_PEAK_OS_V16_U4, &a, NULL) == CML_OK);
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

    /* The fill and memset: one element left unwritten is caught. */
    CHECK(cml_peak_configure(&b, CML_PEAK_MEMSET, CML_PEAK_GS_V16_U4, &a, NULL) == CML_OK);
    CHECK(cml_peak_poison(&b, &a) == CML_OK);
    CHECK(cml_peak_launch(&a) == CML_OK);
    CHECK(cml_peak_verify(&b, &a, &bad, &first, NULL, NULL) == CML_OK);
    CHECK_EQ_U64(bad, 0);
    CHECK(cml_gpu_upload(g, &e1, &wrong2, sizeof wrong2) == CML_OK);
    CHECK(cml_peak_verify(&b, &a, &bad, &first, NULL, NULL) == CML_OK);
    CHECK_EQ_U64(bad, 1);

    /* The sum: one input element changed must change the verdict. */
    CHECK(cml_peak_configure(&b, CML_PEAK_SUM, CML_PEAK_GS_V16_U4, &a, NULL) == CML_OK);
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

/* The experiment at its default sizes and shapes: every record verified, a
 * reference for every class, each record against its own class; the figures
 * are printed for the person running the check (their bounds are reported
 * by bench/gpu/timing_report.c). CML_QUICK_TEST (set by gpu-check.sh under
 * compute-sanitizer, which slows kernels down many times): one small size
 * and few repetitions. */
static void test_experiment(cml_gpu *g)
{
    const cml_experiment *e = &cml_exp_peak;
    cml_param_values pv;
    char err[256];
    CHECK(cml_param_defaults(e->options, e->noptions, &pv, err, sizeof err) == CML_OK);
    cml_plan plan;
    memset(&plan, 0, sizeof plan);
    if (getenv("CML_QUICK_TEST")) {
        CHECK(cml_param_set(&pv, "size", "4194316", err, sizeof err) == CML_OK);
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
    CHECK(out.count >= 50); /* 8 shapes x 6 kernels + memcpy + memset, per size */
    const double theo = plan.dev->theoretical_gbs;
    double memcpy_gbs = 0, best_copy_kernel = 0;
    size_t resident = 0;
    printf("%-52s %10s %10s %8s %6s %-6s %s\n", "variant", "GB/s", "median ms", "cv", "%theo",
           "class", "verify");
    for (size_t i = 0; i < out.count; i++) {
        const cml_record *r = &out.items[i];
        printf("%-52s %10.1f %10.4f %8.4f %6.1f %-6s %s\n", r->variant, r->bandwidth_gbs,
               r->timing.median_ms, r->timing.cv, 100.0 * r->bandwidth_gbs / theo,
               cml_peak_class_name(r->peak_class),
               r->verify == CML_VERIFY_PASSED ? "passed" : r->note);
        CHECK(r->state == CML_REC_OK);
        CHECK(r->verify == CML_VERIFY_PASSED);
        CHECK(r->measured);
        CHECK(r->bandwidth_gbs > 0);
        if (cml_record_residency(r, r->bytes_read + r->bytes_written) != CML_PEAK_CLASS_NONE) {
            /* Arrays that fit in L2 (CML_QUICK_TEST's 4 MiB): L2's figure,
             * no share of a DRAM reference, and none set by it. */
            CHECK(cml_peak_class_resident(r->peak_class));
            CHECK(r->peak_fraction < 0);
            resident++;
        } else {
            /* Each record against the best of its own class, found in this run. */
            CHECK(r->peak_fraction > 0 && r->peak_fraction <= 1.0 + 1e-12);
            CHECK_EQ_I64(r->peak_class, cml_peak_class_of(r->bytes_read, r->bytes_written));
        }
        if (strstr(r->variant, "kernel=memcpy"))
            memcpy_gbs = r->bandwidth_gbs > memcpy_gbs ? r->bandwidth_gbs : memcpy_gbs;
        else if (strstr(r->variant, "kernel=copy") && r->bandwidth_gbs > best_copy_kernel)
            best_copy_kernel = r->bandwidth_gbs;
        if (!strstr(r->variant, "kernel=mem")) {
            CHECK(r->has_model);
            /* Whole vectors of whole warps: every fetched byte is used. */
            const cml_traffic *ld = &r->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
            const cml_traffic *sto = &r->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
            CHECK(ld->requests == 0 || cml_traffic_efficiency(ld) > 0.999);
            CHECK(sto->requests <= 1 || cml_traffic_efficiency(sto) > 0.999);
        }
    }
    printf("references:");
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        printf(" %s %.1f GB/s (%.1f%% of theoretical; %s)", cml_peak_class_name(c),
               out.peaks.gbs[c], 100.0 * out.peaks.gbs[c] / theo, out.peaks.source[c]);
        if (resident == out.count) { /* every array in L2: no DRAM reference */
            CHECK(out.peaks.gbs[c] == 0);
            continue;
        }
        CHECK(out.peaks.gbs[c] > 0);
        CHECK(out.peaks.source[c][0] != '\0');
    }
    printf("\nbest copy kernel %.1f GB/s, cudaMemcpy %.1f GB/s\n", best_copy_kernel, memcpy_gbs);
    for (size_t i = 0; i < out.count; i++)
        printf("  %s: %s\n", out.items[i].variant, out.items[i].finding);
    /* How the references compare with the theoretical bandwidth and with
     * each other (a pure stream beats every mix) is a speed: reported by
     * bench/gpu/timing_report.c, not asserted here. */
    CHECK(out.peak_gbs == cml_peak_refs_max(&out.peaks));
    if (best_copy_kernel < memcpy_gbs)
        printf("WARN: the best copy kernel is slower than cudaMemcpy D2D\n");

    cml_peak_refs quick;
    CHECK(cml_peak_measure(&plan, &quick) == CML_OK);
    printf("cml_peak_measure:");
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        printf(" %s %.1f (%s)", cml_peak_class_name(c), quick.gbs[c], quick.source[c]);
        CHECK(quick.gbs[c] > 0); /* against the experiment's: bench/gpu/timing_report.c */
    }
    printf("\n");
    cml_results_free(&out);
}

/* Sectors (or requests) of one array of n floats read or written in W-byte
 * vectors: whole warps cover aligned runs of 32 vectors, so no sector is
 * shared between two instructions except the trailing floats' own one, and
 * `split` runs of 32 that a warp covers with two instructions. */
static uint64_t array_sectors(uint64_t n, unsigned W, uint64_t split)
{
    const uint64_t N = W / 4, nv = n / N;
    return (nv * W + 31) / 32 + (n % N ? 1 : 0) + split;
}
static uint64_t array_requests(uint64_t n, unsigned W, uint64_t split)
{
    const uint64_t N = W / 4, nv = n / N;
    return (nv + 31) / 32 + (n % N ? 1 : 0) + split;
}

/* The runs of 32 vectors a grid-stride warp splits: threads below b =
 * nv - (U-1) x stride take one unrolled iteration (vectors t + k stride,
 * k < U), the others the remainder loop; a warp holding b takes vector
 * group b + k stride (k < U-1) with two instructions, one per loop, when b
 * is not a multiple of 32. (Here every nv < U x stride: one iteration at
 * most.) */
static uint64_t gs_splits(const cml_peak_shape_def *d, uint64_t n, uint64_t grid, unsigned block)
{
    const uint64_t nv = n / (d->width / 4), stride = grid * block;
    if (d->layout != CML_PEAK_GRID_STRIDE || d->unroll == 1 || nv <= (d->unroll - 1) * stride)
        return 0;
    const uint64_t b = nv - (d->unroll - 1) * stride;
    CHECK(b < stride);
    return b % 32 ? d->unroll - 1 : 0;
}

/* The model alone (runs without a GPU too): every kernel's mirror in every
 * shape, exact sectors and requests against the hand-derived counts. */
static void test_model(void)
{
    const cml_experiment *e = &cml_exp_peak;
    cml_param_values pv;
    char err[256];
    CHECK(cml_param_defaults(e->options, e->noptions, &pv, err, sizeof err) == CML_OK);
    CHECK(cml_param_set(&pv, "size", "4194316", err, sizeof err) == CML_OK); /* (2^20 + 3) floats */
    CHECK(cml_param_set(&pv, "shape", "all", err, sizeof err) == CML_OK);
    cml_plan plan;
    memset(&plan, 0, sizeof plan);
    cml_results out;
    cml_results_init(&out);
    CHECK(cml_sweep_run(e, &plan, &pv, &out) == CML_OK); /* plan.gpu NULL: the model */
    CHECK_EQ_U64(out.count, 6 * CML_PEAK_SHAPE_COUNT + 2);
    const uint64_t n = 1048579;
    for (size_t i = 0; i < out.count; i++) {
        const cml_record *r = &out.items[i];
        CHECK(r->state == CML_REC_OK);
        CHECK(!r->measured && r->peak_fraction < 0 && r->peak_class == CML_PEAK_CLASS_NONE);
        CHECK(r->finding[0] != '\0');
        const cml_record_param *k = cml_record_find_param(r, "kernel");
        const cml_record_param *sh = cml_record_find_param(r, "shape");
        CHECK(k != NULL);
        if (!k)
            continue;
        const cml_peak_op op = (cml_peak_op)k->value;
        CHECK_EQ_U64(r->bytes_read, cml_peak_bytes_read(op, n));
        CHECK_EQ_U64(r->bytes_written, cml_peak_bytes_written(op, n));
        if (op >= CML_PEAK_KERNEL_OPS) {
            CHECK(!r->has_model && sh == NULL);
            continue;
        }
        CHECK(r->has_model && sh != NULL);
        if (!sh)
            continue;
        const cml_peak_shape_def *d = cml_peak_shape_at((int)sh->value);
        const unsigned W = d->width;
        const uint64_t split = gs_splits(d, n, r->grid, (unsigned)r->block);
        const uint64_t loads = op == CML_PEAK_FILL ? 0 : (op == CML_PEAK_ADD || op == CML_PEAK_TRIAD) ? 2 : 1;
        const cml_traffic *ld = &r->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
        const cml_traffic *st = &r->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_ST];
        if (ld->sectors != loads * array_sectors(n, W, split) || st->requests == 0)
            fprintf(stderr, "%s: %llu load sectors, %llu store requests\n", r->variant,
                    (unsigned long long)ld->sectors, (unsigned long long)st->requests);
        CHECK_EQ_U64(ld->sectors, loads * array_sectors(n, W, split));
        CHECK_EQ_U64(ld->requests, loads * array_requests(n, W, split));
        CHECK_EQ_U64(ld->requested_bytes, loads * 4 * n);
        if (op == CML_PEAK_SUM) {
            /* No float stores: the checksum (one 8-byte word) only. */
            CHECK_EQ_U64(st->requested_bytes, 8);
            CHECK_EQ_U64(st->requests, 1);
        } else {
            CHECK_EQ_U64(st->requests, array_requests(n, W, split));
            CHECK_EQ_U64(st->sectors, array_sectors(n, W, split));
            CHECK_EQ_U64(st->requested_bytes, 4 * n);
        }
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
