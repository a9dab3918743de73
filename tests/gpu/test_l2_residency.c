/*
 * Experiment 19 on the GPU (src/experiments/l2_residency/l2_residency_body.h):
 *   - every policy's kernel at a size that is not a whole block, its whole
 *     output compared with the host's x[e] + h[hot(e)] (the hash the host
 *     and the device share), and the device checker catching a planted
 *     wrong float;
 *   - the persisting-L2 controls: the limit set and read back, restored,
 *     a window set and cleared, a bad hitRatio refused on the host;
 *   - the tour end to end: every record verified (or waived with a reason
 *     on a device without the feature), and the persisting-L2 limit after
 *     the run equal to its value before.
 * Without a GPU: "SKIP: <reason>", 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "experiments/l2_residency/l2_residency_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "gpu_test_util.h"

#define SEED_X 0x5EED000000000001ull
#define SEED_H 0x5EED000000000002ull
#define SEED_C 0x5EED000000000003ull

static uint32_t want_out(const void *ctx, uint64_t e)
{
    const cml_l2r_args *a = ctx;
    volatile float s = cml_random_f32(SEED_X, e);
    s = s + cml_random_f32(SEED_H, cml_l2r_hot_index(a->seed, a->chunks, e));
    return bits(s);
}

static cml_status check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_l2r_check(ctx, SEED_X, SEED_H, d_counters);
}

static void test_kernels(cml_gpu *g, void *stream)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    const int cc = f->cc_major * 10 + f->cc_minor;
    const uint64_t nv = 40000 + 17; /* not a whole block, nor a whole warp */
    const uint64_t chunks = 97;
    cml_dbuf x = {0}, h = {0}, out = {0};
    CHECK(cml_gpu_alloc(g, &x, nv * 16) == CML_OK);
    CHECK(cml_gpu_alloc(g, &h, chunks * 512) == CML_OK);
    CHECK(cml_gpu_alloc(g, &out, nv * 16) == CML_OK);
    CHECK(cml_gpu_fill_f32(g, &x, nv * 4, SEED_X) == CML_OK);
    CHECK(cml_gpu_fill_f32(g, &h, chunks * 128, SEED_H) == CML_OK);
    for (int p = 0; p < CML_L2R_POLICY_COUNT; p++) {
        if (cc < cml_l2r_min_cc(p))
            continue;
        cml_l2r_args a = {x.ptr, h.ptr, out.ptr, nv, chunks, SEED_C, p, 256,
                          p == CML_L2R_WINDOW ? stream : NULL};
        CHECK(cml_gpu_poison(g, &out) == CML_OK);
        cml_status st = cml_l2r_launch(&a);
        if (st != CML_OK)
            fprintf(stderr, "policy %d: %s\n", p, cml_gpu_error(g));
        CHECK(st == CML_OK);
        if (st != CML_OK || !fetch(g, &out, nv * 16))
            continue;
        char what[32];
        snprintf(what, sizeof what, "policy %d", p);
        compare_words(what, "floats", nv * 4, want_out, &a);
        check_checker_bytes(g, what, check_cb, &a, &out, 4, 4, 4 * (nv * 4 - 3), SIZE_MAX, 0);
    }
    cml_gpu_free(g, &x);
    cml_gpu_free(g, &h);
    cml_gpu_free(g, &out);
}

static void test_controls(cml_gpu *g, void *stream)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    size_t before = 0, now = 0, window = 0;
    CHECK(cml_l2r_limit_get(&before) == CML_OK);
    CHECK(cml_l2r_max_window(&window) == CML_OK);
    printf("persisting L2: max %.1f MiB, limit now %.1f MiB, largest window %.1f MiB\n",
           (double)f->l2_persisting_max / 1048576.0, (double)before / 1048576.0,
           (double)window / 1048576.0);
    if (f->l2_persisting_max == 0 || f->cc_major < 8) {
        printf("no persisting L2 here: the controls are not tried\n");
        return;
    }
    cml_status st = cml_l2r_limit_set(f->l2_persisting_max / 2);
    if (st == CML_EUNSUPPORTED) {
        printf("the device refuses a set-aside (%s): not tried\n", cml_gpu_error(g));
        return;
    }
    CHECK(st == CML_OK);
    CHECK(cml_l2r_limit_get(&now) == CML_OK);
    CHECK(now > 0 && now <= f->l2_persisting_max);
    cml_dbuf h = {0};
    CHECK(cml_gpu_alloc(g, &h, 1 << 20) == CML_OK);
    CHECK(cml_l2r_window_set(stream, h.ptr, 1 << 20, 0.5, 1) == CML_OK);
    CHECK(cml_l2r_window_set(stream, h.ptr, 1 << 20, 1.5, 1) == CML_EINVAL);
    CHECK(cml_l2r_window_set(stream, h.ptr, 0, 0.5, 1) == CML_EINVAL);
    CHECK(cml_l2r_window_clear(stream) == CML_OK);
    CHECK(cml_l2r_reset_persisting() == CML_OK);
    CHECK(cml_l2r_limit_set(before) == CML_OK);
    CHECK(cml_l2r_limit_get(&now) == CML_OK);
    CHECK_EQ_U64(now, before);
    cml_gpu_free(g, &h);
}

/* The tour: every record verified or waived for a stated reason, and the
 * limit as it was. The figures are printed for the person running it. */
static void test_tour(cml_gpu *g)
{
    const cml_experiment *x = &cml_exp_l2_residency;
    size_t before = 0, after = 0;
    CHECK(cml_l2r_limit_get(&before) == CML_OK);
    cml_param_values pv;
    tour_params(x, &pv);
    if (getenv("CML_QUICK_TEST")) { /* under compute-sanitizer: a small stream */
        char err[256];
        CHECK(cml_param_set(&pv, "stream", "64M", err, sizeof err) == CML_OK);
    }
    cml_plan plan;
    gpu_test_plan(&plan, g);
    cml_results r;
    if (tour_run(x, &plan, &pv, &r) == CML_OK) {
        for (size_t i = 0; i < r.count; i++) {
            const cml_record *rec = &r.items[i];
            printf("%-58s %8.1f GB/s  %s\n", rec->variant, rec->bandwidth_gbs,
                   rec->state == CML_REC_WAIVED ? rec->note : rec->finding);
            if (rec->state == CML_REC_WAIVED) {
                CHECK(rec->note[0] != '\0');
                continue;
            }
            check_tour_record(x, rec);
        }
        for (size_t i = 0; i < r.ndiags; i++)
            printf("diagnostic: %s\n", r.diags[i].message);
    }
    CHECK(cml_l2r_limit_get(&after) == CML_OK);
    CHECK_EQ_U64(after, before);
    cml_results_free(&r);
}

int main(void)
{
    cml_gpu *g = NULL;
    int rc = gpu_test_open(&g, "test_l2_residency");
    if (rc)
        return rc;
    void *stream = NULL;
    CHECK(cml_l2r_stream_open(&stream) == CML_OK);
    test_kernels(g, stream);
    test_controls(g, stream);
    cml_l2r_stream_close(stream);
    test_tour(g);
    gpu_test_close(g);
    return cml_test_summary("gpu_test_l2_residency");
}
