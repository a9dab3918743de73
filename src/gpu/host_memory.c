/*
 * Host memory and host <-> device copies (see host_memory.h): allocation of
 * every kind of memory, mapped device pointers, managed prefetch, event
 * timing of copies on the legacy stream and on streams of our own, and the
 * allocation-cost loop timed with the monotonic clock.
 *
 * Messages: failures go through cml_gpu_check (the expression text names
 * what was attempted and how much), the harness's one error channel
 * (cml_gpu_error), exactly as CML_CU does.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in strict C11 */

#include "gpu/host_memory.h"

#include <ctype.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stats.h"
#include "gpu/gpu_internal.h"

struct cml_xfer {
    cml_gpu *g;
    cudaStream_t s1, s2;     /* non-blocking: they never wait for the legacy stream */
    cudaEvent_t start, stop; /* around each timed copy or region */
    cudaEvent_t done2;       /* end of stream 2's copy (both directions) */
};

#define MIB(b) ((double)(b) / (1024.0 * 1024.0))

/* Record a failure described by `what` (a sentence fragment naming the
 * call and the size) as if CUDA call `what` had returned e; clear the
 * runtime's last error so that the next check is not blamed for it. */
static cml_status fail(cml_gpu *g, cudaError_t e, const char *what, const char *file, int line)
{
    (void)cudaGetLastError();
    (void)g;
    cml_status st = cml_gpu_check((int)e, what, file, line);
    return st == CML_OK ? CML_ECUDA : st;
}
#define FAIL(g, e, ...)                                                                  \
    do {                                                                                 \
        char what_[200];                                                                 \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                      \
        return fail((g), (e), what_, __FILE__, __LINE__);                                \
    } while (0)

/* The allocating call alone (timed by the cost loop). */
static cudaError_t raw_alloc(cml_mem_kind kind, void **p, size_t bytes)
{
    switch (kind) {
    case CML_MEM_PAGEABLE:
        *p = malloc(bytes);
        return *p ? cudaSuccess : cudaErrorMemoryAllocation;
    case CML_MEM_PINNED: return cudaMallocHost(p, bytes);
    case CML_MEM_HOSTALLOC: return cudaHostAlloc(p, bytes, cudaHostAllocDefault);
    case CML_MEM_MAPPED: return cudaHostAlloc(p, bytes, cudaHostAllocMapped);
    case CML_MEM_DEVICE: return cudaMalloc(p, bytes);
    case CML_MEM_MANAGED: return cudaMallocManaged(p, bytes, cudaMemAttachGlobal);
    default: return cudaErrorInvalidValue;
    }
}

static cudaError_t raw_free(cml_mem_kind kind, void *p)
{
    switch (kind) {
    case CML_MEM_PAGEABLE: free(p); return cudaSuccess;
    case CML_MEM_PINNED:
    case CML_MEM_HOSTALLOC:
    case CML_MEM_MAPPED: return cudaFreeHost(p);
    case CML_MEM_DEVICE:
    case CML_MEM_MANAGED: return cudaFree(p);
    default: return cudaErrorInvalidValue;
    }
}

/* Can this device hold `kind` at all? Managed memory is also refused past
 * half of the free device memory: a managed allocation larger than the card
 * can hang the GPU, not only this process. */
static cml_status kind_allowed(cml_gpu *g, cml_mem_kind kind, size_t bytes)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    if (kind < 0 || kind >= CML_MEM_KIND_COUNT)
        return CML_EINVAL;
    if (kind == CML_MEM_MAPPED && !f->can_map_host_memory) {
        (void)fail(g, cudaErrorNotSupported,
                   "mapped host memory (cudaDevAttrCanMapHostMemory is 0 on this device)",
                   __FILE__, __LINE__);
        return CML_EUNSUPPORTED;
    }
    if (kind == CML_MEM_MANAGED) {
        if (!f->managed_memory) {
            (void)fail(g, cudaErrorNotSupported,
                       "managed memory (cudaDevAttrManagedMemory is 0 on this device)", __FILE__,
                       __LINE__);
            return CML_EUNSUPPORTED;
        }
        size_t free_b = 0, total_b = 0;
        CML_CU(cudaMemGetInfo(&free_b, &total_b));
        if (bytes > free_b / 2) {
            char what[200];
            snprintf(what, sizeof what,
                     "cudaMallocManaged of %.1f MiB refused: only %.1f MiB of device memory "
                     "free (managed allocations stay under half of it)",
                     MIB(bytes), MIB(free_b));
            (void)fail(g, cudaErrorMemoryAllocation, what, __FILE__, __LINE__);
            return CML_ENOMEM;
        }
    }
    return CML_OK;
}

cml_status cml_mem_alloc(cml_gpu *g, cml_mem *m, cml_mem_kind kind, size_t bytes)
{
    if (!g || !m)
        return CML_EINVAL;
    m->ptr = NULL;
    m->bytes = 0;
    m->kind = kind;
    m->seq = 0;
    if (bytes == 0)
        return CML_OK;
    cml_status st = kind_allowed(g, kind, bytes);
    if (st != CML_OK)
        return st;
    void *p = NULL;
    const double t0 = cml_gpu_clock();
    cudaError_t e = raw_alloc(kind, &p, bytes);
    cml_gpu_phase_add(g, CML_GPU_PHASE_ALLOC, cml_gpu_clock() - t0);
    if (e == cudaErrorMemoryAllocation) {
        /* Say how much was asked (and, for the device, how much there is):
         * what the user needs to choose a size. */
        size_t free_b = 0, total_b = 0;
        char what[200];
        (void)cudaGetLastError();
        if (kind == CML_MEM_DEVICE && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
            snprintf(what, sizeof what, "cudaMalloc of %.1f MiB (%.1f MiB free of %.1f MiB)",
                     MIB(bytes), MIB(free_b), MIB(total_b));
        else
            snprintf(what, sizeof what, "%s of %.1f MiB%s", cml_mem_kind_api(kind), MIB(bytes),
                     cml_mem_kind_is_host(kind) && kind != CML_MEM_PAGEABLE
                         ? " (the host could not pin that much memory)"
                         : "");
        (void)fail(g, e, what, __FILE__, __LINE__);
        return CML_ENOMEM;
    }
    if (e != cudaSuccess) {
        char what[200];
        snprintf(what, sizeof what, "%s of %.1f MiB", cml_mem_kind_api(kind), MIB(bytes));
        return fail(g, e, what, __FILE__, __LINE__);
    }
    m->ptr = p;
    m->bytes = bytes;
    m->seq = cml_gpu_take_alloc_number(g);
    return CML_OK;
}

void cml_mem_free(cml_gpu *g, cml_mem *m)
{
    if (!m || !m->ptr)
        return;
    (void)cml_gpu_buffer_event(g, m->seq, CML_BUFFER_FREE); /* never kept: freed now */
    const double t0 = cml_gpu_clock();
    cudaError_t e = raw_free(m->kind, m->ptr);
    cml_gpu_phase_add(g, CML_GPU_PHASE_ALLOC, cml_gpu_clock() - t0);
    if (e != cudaSuccess) {
        char what[120];
        snprintf(what, sizeof what, "freeing %s memory", cml_mem_kind_api(m->kind));
        (void)fail(g, e, what, __FILE__, __LINE__);
    }
    m->ptr = NULL;
    m->bytes = 0;
    m->seq = 0;
}

cml_status cml_mem_device_pointer(cml_gpu *g, const cml_mem *m, void **dptr)
{
    if (!g || !m || !dptr)
        return CML_EINVAL;
    *dptr = NULL;
    if (m->kind != CML_MEM_MAPPED)
        FAIL(g, cudaErrorInvalidValue, "cudaHostGetDevicePointer of %s memory (not mapped)",
             cml_mem_kind_api(m->kind));
    CML_CU(cudaHostGetDevicePointer(dptr, m->ptr, 0));
    return CML_OK;
}

cml_status cml_gpu_memory_info(cml_gpu *g, size_t *free_b, size_t *total_b)
{
    (void)g; /* the current device: the one g opened */
    size_t f = 0, t = 0;
    CML_CU(cudaMemGetInfo(&f, &t));
    if (free_b)
        *free_b = f;
    if (total_b)
        *total_b = t;
    return CML_OK;
}

cml_status cml_mem_alloc_cost(cml_gpu *g, cml_mem_kind kind, size_t bytes, unsigned reps,
                              double *alloc_ms, double *free_ms)
{
    if (!g || !alloc_ms || !free_ms || reps == 0 || bytes == 0)
        return CML_EINVAL;
    cml_status st = kind_allowed(g, kind, bytes);
    if (st != CML_OK)
        return st;
    /* Nothing queued: cudaFree and cudaFreeHost synchronise the device,
     * and would otherwise count earlier work as their own. */
    CML_CU(cudaDeviceSynchronize());
    for (unsigned r = 0; r < reps; r++) {
        void *p = NULL;
        double t0 = cml_host_clock_ms();
        cudaError_t e = raw_alloc(kind, &p, bytes);
        double t1 = cml_host_clock_ms();
        if (e != cudaSuccess) {
            char what[200];
            snprintf(what, sizeof what, "%s of %.1f MiB%s", cml_mem_kind_api(kind), MIB(bytes),
                     e == cudaErrorMemoryAllocation && kind != CML_MEM_PAGEABLE &&
                             cml_mem_kind_is_host(kind)
                         ? " (the host could not pin that much memory)"
                         : "");
            st = fail(g, e, what, __FILE__, __LINE__);
            return e == cudaErrorMemoryAllocation ? CML_ENOMEM : st;
        }
        e = raw_free(kind, p);
        double t2 = cml_host_clock_ms();
        if (e != cudaSuccess) {
            char what[120];
            snprintf(what, sizeof what, "freeing %.1f MiB of %s memory", MIB(bytes),
                     cml_mem_kind_api(kind));
            return fail(g, e, what, __FILE__, __LINE__);
        }
        alloc_ms[r] = t1 - t0;
        free_ms[r] = t2 - t1;
    }
    return CML_OK;
}

cml_status cml_gpu_pcie_link(cml_gpu *g, double *gts, int *width)
{
    if (!g || !gts || !width)
        return CML_EINVAL;
    *gts = 0;
    *width = 0;
#if defined(__linux__)
    char bus[64];
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, cml_gpu_facts(g)->index) != cudaSuccess) {
        (void)cudaGetLastError();
        return CML_EUNSUPPORTED;
    }
    /* sysfs names devices in lower case: "0000:3b:00.0". */
    for (char *c = bus; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    char path[160], line[64];
    double speed = 0;
    long lanes = 0;
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/current_link_speed", bus);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(line, sizeof line, f))
            speed = strtod(line, NULL); /* "32.0 GT/s PCIe" */
        fclose(f);
    }
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/current_link_width", bus);
    f = fopen(path, "r");
    if (f) {
        if (fgets(line, sizeof line, f))
            lanes = strtol(line, NULL, 10);
        fclose(f);
    }
    if (speed <= 0 || lanes <= 0)
        return CML_EUNSUPPORTED;
    *gts = speed;
    *width = (int)lanes;
    return CML_OK;
#else
    return CML_EUNSUPPORTED;
#endif
}

/* ---- copies and timing ------------------------------------------------- */

cml_status cml_xfer_open(cml_gpu *g, cml_xfer **out)
{
    if (!g || !out)
        return CML_EINVAL;
    *out = NULL;
    cml_xfer *x = calloc(1, sizeof *x);
    if (!x)
        return CML_ENOMEM;
    x->g = g;
    cml_status st = CML_OK;
#define OPEN_STEP(call)                                                                        \
    do {                                                                                       \
        if (st == CML_OK && cml_gpu_check((int)(call), #call, __FILE__, __LINE__) != CML_OK) \
            st = CML_ECUDA;                                                                    \
    } while (0)
    OPEN_STEP(cudaStreamCreateWithFlags(&x->s1, cudaStreamNonBlocking));
    OPEN_STEP(cudaStreamCreateWithFlags(&x->s2, cudaStreamNonBlocking));
    OPEN_STEP(cudaEventCreate(&x->start));
    OPEN_STEP(cudaEventCreate(&x->stop));
    OPEN_STEP(cudaEventCreateWithFlags(&x->done2, cudaEventDisableTiming));
#undef OPEN_STEP
    if (st != CML_OK) {
        cml_xfer_close(x);
        return st;
    }
    *out = x;
    return CML_OK;
}

void cml_xfer_close(cml_xfer *x)
{
    if (!x)
        return;
    /* Errors ignored: after a fault every call fails, and the host side
     * must still be released. */
    if (x->s1)
        (void)cudaStreamSynchronize(x->s1);
    if (x->s2)
        (void)cudaStreamSynchronize(x->s2);
    if (x->start)
        (void)cudaEventDestroy(x->start);
    if (x->stop)
        (void)cudaEventDestroy(x->stop);
    if (x->done2)
        (void)cudaEventDestroy(x->done2);
    if (x->s1)
        (void)cudaStreamDestroy(x->s1);
    if (x->s2)
        (void)cudaStreamDestroy(x->s2);
    (void)cudaGetLastError();
    free(x);
}

cml_gpu *cml_xfer_gpu(const cml_xfer *x)
{
    return x ? x->g : NULL;
}

static enum cudaMemcpyKind memcpy_kind(cml_dir dir)
{
    return dir == CML_DIR_H2D ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
}

cml_status cml_xfer_copy(cml_xfer *x, void *dst, const void *src, size_t bytes, cml_dir dir)
{
    if (!x || (bytes && (!dst || !src)))
        return CML_EINVAL;
    if (bytes)
        CML_CU(cudaMemcpy(dst, src, bytes, memcpy_kind(dir)));
    return CML_OK;
}

/* One copy through `api`; the async one on stream 1. */
static cml_status issue_copy(cml_xfer *x, void *dst, const void *src, size_t bytes, cml_dir dir,
                             cml_copy_api api)
{
    if (api == CML_COPY_ASYNC)
        CML_CU(cudaMemcpyAsync(dst, src, bytes, memcpy_kind(dir), x->s1));
    else
        CML_CU(cudaMemcpy(dst, src, bytes, memcpy_kind(dir)));
    return CML_OK;
}

/* Samples into a cml_timing. */
static cml_status summarise(cml_gpu *g, const double *samples, unsigned warmup, unsigned reps,
                            cml_timing *out)
{
    cml_status st = cml_timing_from_samples(samples, reps, warmup, out);
    if (st != CML_OK)
        FAIL(g, cudaErrorInvalidValue, "timing statistics of %u samples (%s)", reps,
             cml_status_str(st));
    return CML_OK;
}

cml_status cml_xfer_time_copy(cml_xfer *x, void *dst, const void *src, size_t bytes, cml_dir dir,
                              cml_copy_api api, unsigned warmup, unsigned reps, cml_timing *out)
{
    if (!x || !out || reps == 0 || bytes == 0 || !dst || !src)
        return CML_EINVAL;
    memset(out, 0, sizeof *out);
    cudaStream_t s = api == CML_COPY_ASYNC ? x->s1 : 0;
    cml_status st = CML_OK;
    for (unsigned w = 0; w < warmup && st == CML_OK; w++)
        st = issue_copy(x, dst, src, bytes, dir, api);
    if (st == CML_OK && api == CML_COPY_ASYNC)
        CML_CU(cudaStreamSynchronize(s));
    if (st != CML_OK)
        return st;
    double *samples = malloc((size_t)reps * sizeof *samples);
    if (!samples)
        return CML_ENOMEM;
    for (unsigned r = 0; r < reps && st == CML_OK; r++) {
        float ms = 0.0f;
        cml_status cs = cml_gpu_check((int)cudaEventRecord(x->start, s), "cudaEventRecord(start)",
                                      __FILE__, __LINE__);
        if (cs == CML_OK)
            cs = issue_copy(x, dst, src, bytes, dir, api);
        if (cs == CML_OK)
            cs = cml_gpu_check((int)cudaEventRecord(x->stop, s), "cudaEventRecord(stop)",
                               __FILE__, __LINE__);
        if (cs == CML_OK)
            cs = cml_gpu_check((int)cudaEventSynchronize(x->stop), "cudaEventSynchronize(stop)",
                               __FILE__, __LINE__);
        if (cs == CML_OK)
            cs = cml_gpu_check((int)cudaEventElapsedTime(&ms, x->start, x->stop),
                               "cudaEventElapsedTime", __FILE__, __LINE__);
        if (cs != CML_OK) {
            st = cs;
            break;
        }
        samples[r] = (double)ms;
    }
    if (st == CML_OK)
        st = summarise(x->g, samples, warmup, reps, out);
    free(samples);
    return st;
}

/* Both copies of one round, ordered so that they start together and the
 * stop event follows both (see host_memory.h). */
static cml_status issue_both(cml_xfer *x, void *d_dst, const void *h_src, void *h_dst,
                             const void *d_src, size_t bytes, int timed)
{
    if (timed)
        CML_CU(cudaEventRecord(x->start, x->s1));
    else
        CML_CU(cudaEventRecord(x->done2, x->s1));
    CML_CU(cudaStreamWaitEvent(x->s2, timed ? x->start : x->done2, 0));
    CML_CU(cudaMemcpyAsync(d_dst, h_src, bytes, cudaMemcpyHostToDevice, x->s1));
    CML_CU(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, x->s2));
    CML_CU(cudaEventRecord(x->done2, x->s2));
    CML_CU(cudaStreamWaitEvent(x->s1, x->done2, 0));
    if (timed)
        CML_CU(cudaEventRecord(x->stop, x->s1));
    return CML_OK;
}

cml_status cml_xfer_time_both(cml_xfer *x, void *d_dst, const void *h_src, void *h_dst,
                              const void *d_src, size_t bytes, unsigned warmup, unsigned reps,
                              cml_timing *out)
{
    if (!x || !out || reps == 0 || bytes == 0 || !d_dst || !h_src || !h_dst || !d_src)
        return CML_EINVAL;
    memset(out, 0, sizeof *out);
    cml_status st = CML_OK;
    for (unsigned w = 0; w < warmup && st == CML_OK; w++)
        st = issue_both(x, d_dst, h_src, h_dst, d_src, bytes, 0);
    if (st != CML_OK)
        return st;
    CML_CU(cudaStreamSynchronize(x->s1));
    double *samples = malloc((size_t)reps * sizeof *samples);
    if (!samples)
        return CML_ENOMEM;
    for (unsigned r = 0; r < reps && st == CML_OK; r++) {
        float ms = 0.0f;
        st = issue_both(x, d_dst, h_src, h_dst, d_src, bytes, 1);
        if (st != CML_OK)
            break;
        cml_status cs = cml_gpu_check((int)cudaEventSynchronize(x->stop),
                                      "cudaEventSynchronize(stop)", __FILE__, __LINE__);
        if (cs == CML_OK)
            cs = cml_gpu_check((int)cudaEventElapsedTime(&ms, x->start, x->stop),
                               "cudaEventElapsedTime", __FILE__, __LINE__);
        if (cs != CML_OK) {
            st = cs;
            break;
        }
        samples[r] = (double)ms;
    }
    if (st == CML_OK)
        st = summarise(x->g, samples, warmup, reps, out);
    free(samples);
    return st;
}

cml_status cml_xfer_start(cml_xfer *x)
{
    if (!x)
        return CML_EINVAL;
    CML_CU(cudaEventRecord(x->start, 0));
    return CML_OK;
}

cml_status cml_xfer_stop(cml_xfer *x, double *ms)
{
    if (!x || !ms)
        return CML_EINVAL;
    float f = 0.0f;
    CML_CU(cudaEventRecord(x->stop, 0));
    /* A faulting kernel makes this return its error: a message, not a hang. */
    CML_CU(cudaEventSynchronize(x->stop));
    CML_CU(cudaEventElapsedTime(&f, x->start, x->stop));
    *ms = (double)f;
    return CML_OK;
}

cml_status cml_xfer_launch(cml_xfer *x, cml_launch_fn launch, void *ctx)
{
    if (!x || !launch)
        return CML_EINVAL;
    cml_gpu_clear_last_error();
    cml_status st = launch(ctx);
    if (st != CML_OK) {
        if (!cml_gpu_last_error()[0])
            (void)fail(x->g, cudaErrorInvalidValue, "the launcher refused its arguments",
                       __FILE__, __LINE__);
        return st;
    }
    CML_CU(cudaGetLastError());
    return CML_OK;
}

cml_status cml_xfer_prefetch(cml_xfer *x, const void *p, size_t bytes)
{
    if (!x || (bytes && !p))
        return CML_EINVAL;
    const cml_device_facts *f = cml_gpu_facts(x->g);
    if (!f->concurrent_managed) {
        (void)fail(x->g, cudaErrorNotSupported,
                   "cudaMemPrefetchAsync (cudaDevAttrConcurrentManagedAccess is 0 on this "
                   "device)",
                   __FILE__, __LINE__);
        return CML_EUNSUPPORTED;
    }
    if (!bytes)
        return CML_OK;
#if CUDART_VERSION >= 13000
    /* CUDA 13: the destination is a cudaMemLocation, plus flags (none). */
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = cudaMemLocationTypeDevice;
    loc.id = f->index;
    CML_CU(cudaMemPrefetchAsync(p, bytes, loc, 0, 0));
#else
    CML_CU(cudaMemPrefetchAsync(p, bytes, f->index, 0));
#endif
    return CML_OK;
}

cml_status cml_xfer_memset(cml_xfer *x, void *p, int value, size_t bytes)
{
    if (!x || (bytes && !p))
        return CML_EINVAL;
    if (bytes)
        CML_CU(cudaMemsetAsync(p, value, bytes, 0));
    return CML_OK;
}

cml_status cml_xfer_sync(cml_xfer *x)
{
    if (!x)
        return CML_EINVAL;
    CML_CU(cudaDeviceSynchronize());
    return CML_OK;
}
