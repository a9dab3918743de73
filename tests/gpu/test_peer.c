/*
 * Experiment 23's kernels (src/experiments/peer/peer_body.h) on a GPU: each
 * width's pull and push, on GPU 0's own memory and, where the host has a
 * second GPU that GPU 0 can reach, across the link (GPU 0 pulls from and
 * pushes to GPU 1), launched once with an offset and a stride, the whole
 * destination compared with a host reference written here (every element
 * moved from the right source element, the rest still poison); the device
 * checker passes that output and counts one planted error. Then the tour
 * runs through the engine: every record verified, or waived with the
 * reason (no peer path). Without a GPU: "SKIP: <reason>", exit 77.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "experiments/peer/peer_body.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "lab/common.h"
#include "gpu/gpu.h"
#include "gpu_test_util.h"
#include "../experiment_test_util.h"
#include "../test_util.h"

#define N 40000u    /* remote elements */
#define OFFSET 5u
#define STRIDE 3u
#define SEED 0xC0FFEEu

static cml_gpu *g;

/* Float q of the destination: which source float lands there, or none. */
static uint32_t want(int push, unsigned elem, uint64_t threads, uint64_t q)
{
    const unsigned per = elem / 4;
    const uint64_t k = q / per, c = q % per;
    if (push) {
        if (k < OFFSET || (k - OFFSET) % STRIDE || (k - OFFSET) / STRIDE >= threads)
            return 0xFFFFFFFFu;
        return bits(cml_random_f32(SEED, (k - OFFSET) / STRIDE * per + c));
    }
    if (k >= threads)
        return 0xFFFFFFFFu;
    return bits(cml_random_f32(SEED, (k * STRIDE + OFFSET) * per + c));
}

/* The source on `src_dev`, the destination on `dst_dev`, the kernel on
 * GPU 0 (the current device); dst_gpu is the destination's cml_gpu. */
static void check_move(cml_gpu *src_gpu, int src_dev, cml_gpu *dst_gpu, int dst_dev, int push,
                       unsigned elem, unsigned ilp, unsigned passes)
{
    const size_t bytes = (size_t)N * elem;
    const uint64_t threads = (N - OFFSET - 1) / STRIDE + 1;
    cml_dbuf src = {0}, dst = {0}, counters = {0};
    CHECK(cml_peer_use(src_dev) == CML_OK);
    CHECK(cml_gpu_alloc(src_gpu, &src, bytes) == CML_OK);
    CHECK(cml_gpu_fill_f32(src_gpu, &src, bytes / 4, SEED) == CML_OK);
    CHECK(cml_peer_use(dst_dev) == CML_OK);
    CHECK(cml_gpu_alloc(dst_gpu, &dst, bytes) == CML_OK);
    CHECK(cml_gpu_poison(dst_gpu, &dst) == CML_OK);
    CHECK(cml_peer_sync(dst_dev) == CML_OK); /* before a kernel on another GPU writes it */
    CHECK(cml_peer_use(0) == CML_OK);
    cml_peer_launch_args a = {0};
    a.side[0] = (cml_peer_side){0, src_dev, dst_dev, src.ptr, dst.ptr};
    a.nsides = 1;
    a.push = push;
    a.path = 1;
    a.elem = elem;
    a.ilp = ilp;
    a.passes = passes;
    a.block = 128;
    a.threads = threads;
    a.stride = STRIDE;
    a.offset = OFFSET;
    /* Several passes: 5 resident blocks walk the array, each thread over
     * many slots, the last cut inside a block. */
    a.grid = cml_peer_grid(threads, ilp, a.block, passes, 5);
    CHECK(cml_peer_launch(&a) == CML_OK);
    /* The copy back below runs on the destination's GPU, which a kernel on
     * GPU 0 does not wait for: under compute-sanitizer's slower kernels a
     * push into GPU 1 was read before it landed (a third of it poison). */
    CHECK(cml_peer_sync(0) == CML_OK);
    CHECK(cml_peer_use(dst_dev) == CML_OK);
    size_t wrong = 0;
    if (fetch(dst_gpu, &dst, bytes)) {
        for (uint64_t q = 0; q < bytes / 4; q++)
            wrong += fetched[q] != want(push, elem, threads, q);
    }
    CHECK_EQ_U64(wrong, 0);
    /* The device checker: 0 wrong on this output, then 1 after a planted
     * error (a written float turned into another value). */
    unsigned long long host[2] = {0, ~0ull};
    CHECK(cml_gpu_alloc(dst_gpu, &counters, sizeof host) == CML_OK);
    for (int plant = 0; plant < 2; plant++) {
        if (plant) {
            const uint64_t q = push ? (uint64_t)OFFSET * (elem / 4) : 0;
            float f = 12345.0f;
            CHECK(cml_gpu_upload(dst_gpu, &(cml_dbuf){(char *)dst.ptr + q * 4, 4, 0}, &f, 4) ==
                  CML_OK);
        }
        host[0] = 0;
        host[1] = ~0ull;
        CHECK(cml_gpu_upload(dst_gpu, &counters, host, sizeof host) == CML_OK);
        CHECK(cml_peer_check(dst.ptr, bytes / 4, push, elem, threads, STRIDE, OFFSET, SEED,
                             counters.ptr) == CML_OK);
        CHECK(cml_gpu_download(dst_gpu, host, &counters, sizeof host) == CML_OK);
        CHECK_EQ_U64(host[0], (uint64_t)plant);
    }
    printf("peer: GPU 0 %s, %u-byte elements, %u per thread, %u pass%s in %u blocks, GPU %d -> "
           "GPU %d: %zu floats as the host reference\n",
           push ? "pushes" : "pulls", elem, ilp, passes, passes == 1 ? "" : "es", a.grid, src_dev,
           dst_dev, bytes / 4);
    cml_gpu_free(dst_gpu, &counters);
    cml_gpu_free(dst_gpu, &dst);
    CHECK(cml_peer_use(src_dev) == CML_OK);
    cml_gpu_free(src_gpu, &src);
    CHECK(cml_peer_use(0) == CML_OK);
}

static void test_kernels(void)
{
    static const unsigned elems[] = {4, 8, 16};
    /* 8 per thread: the guard cuts the last segment inside a block (N
     * elements are no multiple of 8 x 128). */
    for (int push = 0; push < 2; push++)
        for (size_t e = 0; e < 3; e++)
            for (unsigned ilp = 1; ilp <= 8; ilp *= 8)
                for (unsigned passes = 1; passes <= 3; passes += 2)
                    check_move(g, 0, g, 0, push, elems[e], ilp, passes);
    cml_gpu_link link;
    if (cml_gpu_count(NULL, 0) < 2 || cml_gpu_link_between(0, 1, &link) != CML_OK ||
        !link.peer_access) {
        printf("peer: no second GPU that GPU 0 can reach: the link part is not run\n");
        return;
    }
    cml_gpu *g1 = NULL;
    char err[320];
    CHECK(cml_gpu_open(1, &g1, err, sizeof err) == CML_OK);
    CHECK(cml_peer_use(0) == CML_OK);
    CHECK(cml_gpu_enable_peer(0, 1) == CML_OK);
    if (!g1)
        return;
    for (size_t e = 0; e < 3; e++) {
        check_move(g1, 1, g, 0, 0, elems[e], 8, 3); /* pull: GPU 1's memory into GPU 0's */
        check_move(g, 0, g1, 1, 1, elems[e], 8, 3); /* push: GPU 0's into GPU 1's */
    }
    cml_gpu_close(g1);
    CHECK(cml_peer_use(0) == CML_OK);
}

static void test_tour(void)
{
    const cml_experiment *x = &cml_exp_peer;
    cml_param_values pv;
    tour_params(x, &pv);
    char err[256];
    /* A small array: the tour checks every point, not the link's speed. */
    CHECK(cml_param_set(&pv, "n", "1M", err, sizeof err) == CML_OK);
    cml_plan plan;
    gpu_test_plan(&plan, g);
    cml_results r;
    tour_run(x, &plan, &pv, &r);
    const int gpus = cml_gpu_count(NULL, 0);
    /* Per ordered pair of two GPUs: op 2 x dir 2 x (kernels at 1 and 8
     * per thread, 1 and 16 passes: 4; the copy engine: 1) = 20; per GPU
     * with itself, one direction: 10. */
    const uint64_t others = gpus >= 2 ? 2 : 0, diagonal = gpus >= 2 ? 2 : 1;
    CHECK_EQ_U64(r.count, others * 20 + diagonal * 10);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        if (rec->state == CML_REC_WAIVED) {
            /* No peer path, or several passes over an array this small (1M
             * elements: under twice the L2, refused so that no pass reads the
             * last one's data from a cache). */
            const cml_record_param *passes = cml_record_find_param(rec, "passes");
            CHECK(strstr(rec->note, "cannot reach") != NULL ||
                  (passes && passes->value > 1 &&
                   strstr(rec->note, "need arrays of at least twice the L2") != NULL));
            printf("%-56s waived: %s\n", rec->variant, rec->note);
            continue;
        }
        check_tour_record(x, rec);
        CHECK(extra(rec, "link_useful_bytes") > 0.0);
        printf("%-56s %9.4f ms %9.1f GB/s\n  %s\n", rec->variant, rec->timing.median_ms,
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
    return cml_test_summary("gpu_test_peer");
}
