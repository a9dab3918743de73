/*
 * The GPU harness: devices, facts, buffers, filling, poisoning, event timing
 * and occupancy. The only host code that calls the CUDA runtime (besides the
 * .cu launchers). Every call goes through CML_CU, so a failure leaves a
 * message naming the call, the file and line and CUDA's own error string
 * (cml_gpu_error: one channel for the harness and the launchers alike), and
 * the function returns a status: nothing here exits.
 *
 * All work goes to the legacy default stream (stream 0). Launchers take no
 * stream argument, and the default stream orders every kernel, memset and
 * copy after the one before: exactly what event timing wants, and nothing in
 * this laboratory needs concurrency between kernels.
 */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stats.h"
#include "gpu/gpu_internal.h"

struct cml_gpu {
    int index;
    cml_device_facts facts;
    cudaStream_t stream;     /* 0: the legacy default stream (see above) */
    cudaEvent_t start, stop; /* the pair around each timed launch or batch */
    int *hold;               /* mapped host words: [0] release, [1] timed out; NULL: no hold */
    int *hold_dev;           /* the same words as the device sees them */
    double noise_target;     /* extra samples while cv is above this (0: never) */
    double timed_s;          /* wall seconds inside cml_gpu_time, all calls */
    double phase_s[CML_GPU_PHASES]; /* cml_gpu_phase_seconds */
    unsigned max_reps_factor; /* ... up to this many times the samples asked for */
    int warm_before;         /* an untimed launch right before each sample (set_warm_before) */
    uint64_t allocs;         /* allocation numbers handed out (cml_dbuf.seq) */
    cml_buffer_hook hook;    /* cml_gpu_set_buffer_hook */
    void *hook_user;
    int in_hook;             /* the hook runs no nested hook */
    struct kept { void *ptr; size_t bytes; } *kept; /* freed buffers kept for the hook */
    size_t nkept, kept_cap, kept_bytes;
};

/* A timed sample shorter than this is dominated by event resolution (about
 * half a microsecond), launch gaps and clock jitter, so short launches are
 * timed in batches of back-to-back launches that together last about
 * BATCH_TARGET; the sample is the batch time over the batch size. On an
 * H100, 20 single ~95 us launches gave cv up to 13%; 1 ms samples bring
 * DRAM-sized streaming kernels under 2% (bench/results/). */
#define SHORT_LAUNCH_MS 1.0
#define BATCH_TARGET_MS 1.0
#define MAX_BATCH 1000u
#define WARMUP_TARGET_MS 5.0
#define MAX_WARMUP_LAUNCHES 5000u
/* After WARMUP_TARGET_MS the warm-up goes on, one sample-sized batch at a
 * time, until two batches in a row agree within SETTLED (the clocks and the
 * memory system in their steady state), for at most WARMUP_LIMIT_MS. */
#define SETTLED 0.01
#define WARMUP_LIMIT_MS 25.0
/* Default stopping rule of the samples (cml_gpu_set_noise_limit): at least
 * MIN_SAMPLES (or the samples asked for, if fewer), then stop once the
 * median is pinned to MEDIAN_PRECISION at 95% confidence
 * (cml_stats_median_settled), at most MAX_REPS_FACTOR times the samples
 * asked for. A steady DRAM stream (cv 0.1-0.3%) stops at 5 samples where a
 * fixed count took 20; a noisy kernel takes as many as before or more. */
#define MIN_SAMPLES 5u
#define MEDIAN_PRECISION 0.005
#define MAX_REPS_FACTOR 4u
/* A timed sample's first HOLD_LAUNCHES launches are queued behind the stream
 * hold (hold.cu) before its start event can fire: the GPU then has that many
 * launches of work ahead of the host when the sample starts, so a pause of
 * the host thread does not idle it inside the timed region. On an H100 in a
 * VM, 1 ms samples of 10 us kernels showed single samples 3x the median, and
 * DRAM streaming kernels single samples 10-20% slow, without it. At most 32:
 * more launches behind a blocked stream can fill the launch queue. A hold
 * that outlives HOLD_TIMEOUT_NS (a launcher that waits for the GPU itself)
 * lets go; that measurement goes on without it. */
#define HOLD_LAUNCHES 32u
#define HOLD_TIMEOUT_NS 50000000ull

static void set_err(cml_gpu *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The harness's own messages go where CUDA's do (check.c): one channel,
 * read through cml_gpu_error, whoever failed. */
static void set_err(cml_gpu *g, const char *fmt, ...)
{
    (void)g;
    va_list ap;
    va_start(ap, fmt);
    cml_gpu_set_last_error_v(fmt, ap);
    va_end(ap);
}

const char *cml_gpu_error(const cml_gpu *g)
{
    (void)g;
    return cml_gpu_last_error();
}

/* 13000 -> "13.0", 12040 -> "12.4". */
static void fmt_version(char *buf, size_t len, int v)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

int cml_gpu_count(char *why, size_t whylen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0)
        return n;

    char msg[320];
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv); /* 0 when no driver could be loaded */
    cudaRuntimeGetVersion(&rt);
    char drvs[16], rts[16];
    fmt_version(drvs, sizeof drvs, drv);
    fmt_version(rts, sizeof rts, rt);
    if (e == cudaSuccess || e == cudaErrorNoDevice) {
        snprintf(msg, sizeof msg, "no CUDA device found%s",
                 getenv("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES is set)" : "");
    } else if (e == cudaErrorInsufficientDriver && drv == 0) {
        snprintf(msg, sizeof msg, "no CUDA driver found (libcuda could not be loaded; runtime %s)",
                 rts);
    } else if (e == cudaErrorInsufficientDriver) {
        snprintf(msg, sizeof msg, "CUDA driver too old for this runtime (driver %s, runtime %s)",
                 drvs, rts);
    } else {
        snprintf(msg, sizeof msg, "CUDA initialisation failed: %s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
    }
    (void)cudaGetLastError(); /* the failure is reported here; do not let it linger */
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return 0;
}

/* One attribute into an int. */
static cml_status attr(cml_gpu *g, int *v, enum cudaDeviceAttr a)
{
    CML_CU(cudaDeviceGetAttribute(v, a, g->index));
    return CML_OK;
}

/* Read every fact from the device: attributes, not typed-in tables, so a new
 * GPU reports its own figures. cudaDeviceProp is used only for the name and
 * the global memory size (the fields CUDA 13 removed are read as attributes). */
static cml_status read_facts(cml_gpu *g)
{
    cml_device_facts *f = &g->facts;
    struct cudaDeviceProp prop;
    memset(f, 0, sizeof *f);
    f->index = g->index;
    CML_CU(cudaGetDeviceProperties(&prop, g->index));
    snprintf(f->name, sizeof f->name, "%s", prop.name);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(f->uuid, sizeof f->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    f->global_bytes = (uint64_t)prop.totalGlobalMem;

    int v = 0;
    cml_status st;
#define ATTR_INT(field, a)                                                                     \
    do {                                                                                       \
        if ((st = attr(g, &v, (a))) != CML_OK)                                                 \
            return st;                                                                         \
        f->field = v;                                                                          \
    } while (0)
#define ATTR_U64(field, a)                                                                     \
    do {                                                                                       \
        if ((st = attr(g, &v, (a))) != CML_OK)                                                 \
            return st;                                                                         \
        f->field = (uint64_t)(unsigned)v;                                                      \
    } while (0)
    ATTR_INT(cc_major, cudaDevAttrComputeCapabilityMajor);
    ATTR_INT(cc_minor, cudaDevAttrComputeCapabilityMinor);
    ATTR_INT(sm_count, cudaDevAttrMultiProcessorCount);
    ATTR_INT(warp_size, cudaDevAttrWarpSize);
    ATTR_INT(max_threads_per_block, cudaDevAttrMaxThreadsPerBlock);
    ATTR_INT(max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor);
    ATTR_INT(max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor);
    ATTR_INT(regs_per_block, cudaDevAttrMaxRegistersPerBlock);
    ATTR_INT(regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor);
    ATTR_U64(shared_per_block, cudaDevAttrMaxSharedMemoryPerBlock);
    ATTR_U64(shared_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin);
    ATTR_U64(shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    ATTR_U64(const_bytes, cudaDevAttrTotalConstantMemory);
    ATTR_U64(l2_bytes, cudaDevAttrL2CacheSize);
    ATTR_U64(l2_persisting_max, cudaDevAttrMaxPersistingL2CacheSize);
    ATTR_INT(bus_width_bits, cudaDevAttrGlobalMemoryBusWidth);
    ATTR_INT(mem_clock_khz, cudaDevAttrMemoryClockRate);
    ATTR_INT(sm_clock_khz, cudaDevAttrClockRate);
    ATTR_INT(ecc_enabled, cudaDevAttrEccEnabled);
    ATTR_INT(unified_addressing, cudaDevAttrUnifiedAddressing);
    ATTR_INT(can_map_host_memory, cudaDevAttrCanMapHostMemory);
    ATTR_INT(managed_memory, cudaDevAttrManagedMemory);
    ATTR_INT(concurrent_managed, cudaDevAttrConcurrentManagedAccess);
    ATTR_INT(global_l1_cache_supported, cudaDevAttrGlobalL1CacheSupported);
    ATTR_INT(local_l1_cache_supported, cudaDevAttrLocalL1CacheSupported);
#undef ATTR_INT
#undef ATTR_U64
    CML_CU(cudaDriverGetVersion(&f->driver_version));
    CML_CU(cudaRuntimeGetVersion(&f->runtime_version));

    /* Double data rate: two transfers per memory clock on each bus bit. The
     * driver's "memory clock" is already the one this formula expects on
     * GDDR and HBM parts alike (H100 SXM: 2 * 2619 MHz * 5120 bit / 8 =
     * 3.35 TB/s, its datasheet figure). */
    f->theoretical_gbs = 2.0 * (double)f->mem_clock_khz * 1e3 * (double)f->bus_width_bits / 8.0 / 1e9;
    return CML_OK;
}

cml_status cml_gpu_open(int index, cml_gpu **out, char *err, size_t errlen)
{
    char why[320];
    if (out)
        *out = NULL;
    if (!out) {
        if (err && errlen)
            snprintf(err, errlen, "cml_gpu_open: no output pointer");
        return CML_EINVAL;
    }
    int n = cml_gpu_count(why, sizeof why);
    if (n == 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s", why);
        return CML_ENOGPU;
    }
    if (index < 0 || index >= n) {
        if (err && errlen)
            snprintf(err, errlen, "device %d does not exist: %d CUDA device%s (0..%d)", index, n,
                     n == 1 ? "" : "s", n - 1);
        return CML_EINVAL;
    }
    cml_gpu *g = calloc(1, sizeof *g);
    if (!g) {
        if (err && errlen)
            snprintf(err, errlen, "out of host memory opening device %d", index);
        return CML_ENOMEM;
    }
    g->index = index;
    g->stream = 0;
    g->noise_target = MEDIAN_PRECISION;
    g->max_reps_factor = MAX_REPS_FACTOR;
    cml_status st = CML_OK;
    if (cml_gpu_check(cudaSetDevice(index), "cudaSetDevice(index)", __FILE__, __LINE__)) {
        st = CML_ECUDA;
    }
    if (st == CML_OK)
        st = read_facts(g);
    if (st == CML_OK &&
        cml_gpu_check(cudaEventCreate(&g->start), "cudaEventCreate(&g->start)", __FILE__, __LINE__)) {
        st = CML_ECUDA;
    }
    if (st == CML_OK &&
        cml_gpu_check(cudaEventCreate(&g->stop), "cudaEventCreate(&g->stop)", __FILE__, __LINE__)) {
        st = CML_ECUDA;
    }
    if (st != CML_OK) {
        if (err && errlen)
            snprintf(err, errlen, "device %d: %s", index, cml_gpu_last_error());
        cml_gpu_close(g);
        return st;
    }
    /* The stream hold's two words; without them samples are timed unheld. */
    void *words = NULL;
    if (cudaHostAlloc(&words, 2 * sizeof(int), cudaHostAllocMapped) == cudaSuccess) {
        void *dev = NULL;
        if (cudaHostGetDevicePointer(&dev, words, 0) == cudaSuccess) {
            g->hold = words;
            g->hold_dev = dev;
        } else {
            (void)cudaFreeHost(words);
        }
    }
    (void)cudaGetLastError();
    *out = g;
    return CML_OK;
}

void cml_gpu_close(cml_gpu *g)
{
    if (!g)
        return;
    /* Errors are ignored here: after a kernel fault every call fails, and
     * closing must still release the host side. */
    if (g->start)
        (void)cudaEventDestroy(g->start);
    if (g->stop)
        (void)cudaEventDestroy(g->stop);
    if (g->hold)
        (void)cudaFreeHost(g->hold);
    cml_gpu_release_kept(g);
    free(g->kept);
    (void)cudaGetLastError();
    free(g);
}

const cml_device_facts *cml_gpu_facts(const cml_gpu *g)
{
    return g ? &g->facts : NULL;
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

#define MIB(b) ((double)(b) / (1024.0 * 1024.0))

cml_status cml_gpu_alloc(cml_gpu *g, cml_dbuf *b, size_t bytes)
{
    if (!g || !b)
        return CML_EINVAL;
    b->ptr = NULL;
    b->bytes = 0;
    b->seq = 0;
    if (bytes == 0)
        return CML_OK;
    void *p = NULL;
    const double t0 = cml_gpu_clock();
    cudaError_t e = cudaMalloc(&p, bytes);
    g->phase_s[CML_GPU_PHASE_ALLOC] += cml_gpu_clock() - t0;
    if (e == cudaErrorMemoryAllocation && g->nkept) {
        /* the memory kept for the counters pass goes first */
        (void)cudaGetLastError();
        (void)cml_gpu_buffer_event(g, 0, CML_BUFFER_NEED_MEMORY);
        cml_gpu_release_kept(g);
        e = cudaMalloc(&p, bytes);
    }
    if (e == cudaErrorMemoryAllocation) {
        /* Not a sticky error: clear it, and say how much was asked and how
         * much there is, which is what the user needs to choose a size. */
        (void)cudaGetLastError();
        size_t free_b = 0, total_b = 0;
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
            (void)cudaGetLastError();
            set_err(g, "out of device memory: cannot allocate %.1f MiB on device %d (%s)",
                    MIB(bytes), g->index, g->facts.name);
        } else {
            set_err(g,
                    "out of device memory: cannot allocate %.1f MiB on device %d (%s); "
                    "%.1f MiB free of %.1f MiB",
                    MIB(bytes), g->index, g->facts.name, MIB(free_b), MIB(total_b));
        }
        return CML_ECUDA;
    }
    if (cml_gpu_check(e, "cudaMalloc(&p, bytes)", __FILE__, __LINE__) != CML_OK) {
        return CML_ECUDA;
    }
    b->ptr = p;
    b->bytes = bytes;
    b->seq = cml_gpu_take_alloc_number(g);
    return CML_OK;
}

uint64_t cml_gpu_take_alloc_number(cml_gpu *g)
{
    return g ? ++g->allocs : 0;
}

uint64_t cml_gpu_next_alloc(const cml_gpu *g)
{
    return g ? g->allocs + 1 : 0;
}

void cml_gpu_set_buffer_hook(cml_gpu *g, cml_buffer_hook hook, void *user)
{
    if (!g)
        return;
    g->hook = hook;
    g->hook_user = user;
}

int cml_gpu_buffer_event(cml_gpu *g, uint64_t seq, cml_buffer_event event)
{
    if (!g || !g->hook || g->in_hook)
        return CML_BUFFER_FREE_NOW;
    g->in_hook = 1;
    int r = g->hook(g->hook_user, seq, event);
    g->in_hook = 0;
    return r;
}

/* Whether `bytes` more can be kept: all that is kept within half of the
 * device's free memory now, so that an experiment that sizes its buffers
 * by what is free (cml_gpu_mem_info counts kept memory as free) still
 * finds it, and the rest comes back by CML_BUFFER_NEED_MEMORY. */
static int keep_fits(cml_gpu *g, size_t bytes)
{
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return g->kept_bytes + bytes <= f / 2;
}

static int keep(cml_gpu *g, void *ptr, size_t bytes)
{
    if (g->nkept == g->kept_cap) {
        size_t cap = g->kept_cap ? 2 * g->kept_cap : 64;
        struct kept *k = realloc(g->kept, cap * sizeof *k);
        if (!k)
            return 0;
        g->kept = k;
        g->kept_cap = cap;
    }
    g->kept[g->nkept].ptr = ptr;
    g->kept[g->nkept++].bytes = bytes;
    g->kept_bytes += bytes;
    return 1;
}

void cml_gpu_release_kept(cml_gpu *g)
{
    if (!g)
        return;
    const double t0 = cml_gpu_clock();
    for (size_t i = 0; i < g->nkept; i++)
        (void)cml_gpu_check(cudaFree(g->kept[i].ptr), "cudaFree(kept)", __FILE__, __LINE__);
    g->phase_s[CML_GPU_PHASE_ALLOC] += cml_gpu_clock() - t0;
    g->nkept = 0;
    g->kept_bytes = 0;
}

size_t cml_gpu_kept_bytes(const cml_gpu *g)
{
    return g ? g->kept_bytes : 0;
}

void cml_gpu_free(cml_gpu *g, cml_dbuf *b)
{
    if (!b || !b->ptr)
        return;
    /* The hook is asked first: only memory it wants kept costs a look at
     * the free memory. Kept only where it fits; else the hook hears a plain
     * free, and profiles what reads the buffer before it goes. */
    const int asked = cml_gpu_buffer_event(g, b->seq, CML_BUFFER_FREE_KEEPABLE) == CML_BUFFER_KEEP;
    const int kept = asked && keep_fits(g, b->bytes) && keep(g, b->ptr, b->bytes);
    if (asked && !kept)
        (void)cml_gpu_buffer_event(g, b->seq, CML_BUFFER_FREE);
    if (!kept) {
        const double t0 = cml_gpu_clock();
        /* a failed free leaves its message (cml_gpu_error) for whoever looks */
        (void)cml_gpu_check(cudaFree(b->ptr), "cudaFree(b->ptr)", __FILE__, __LINE__);
        cml_gpu_phase_add(g, CML_GPU_PHASE_ALLOC, cml_gpu_clock() - t0);
    }
    b->ptr = NULL;
    b->bytes = 0;
    b->seq = 0;
}

cml_status cml_gpu_mem_info(cml_gpu *g, size_t *free_bytes, size_t *total_bytes)
{
    size_t f = 0, t = 0;
    if (!g)
        return CML_EINVAL;
    CML_CU(cudaMemGetInfo(&f, &t));
    /* memory kept for the counters pass comes back when asked for */
    f += g->kept_bytes;
    if (free_bytes)
        *free_bytes = f;
    if (total_bytes)
        *total_bytes = t;
    return CML_OK;
}

cml_status cml_gpu_upload(cml_gpu *g, cml_dbuf *dst, const void *src, size_t bytes)
{
    if (!g || !dst || (!src && bytes))
        return CML_EINVAL;
    if (bytes > dst->bytes) {
        set_err(g, "upload of %zu bytes into a buffer of %zu bytes", bytes, dst->bytes);
        return CML_EINVAL;
    }
    const double t0 = cml_gpu_clock();
    if (bytes)
        CML_CU(cudaMemcpy(dst->ptr, src, bytes, cudaMemcpyHostToDevice));
    g->phase_s[CML_GPU_PHASE_COPY] += cml_gpu_clock() - t0;
    return CML_OK;
}

cml_status cml_gpu_download(cml_gpu *g, void *dst, const cml_dbuf *src, size_t bytes)
{
    if (!g || !src || (!dst && bytes))
        return CML_EINVAL;
    if (bytes > src->bytes) {
        set_err(g, "download of %zu bytes from a buffer of %zu bytes", bytes, src->bytes);
        return CML_EINVAL;
    }
    const double t0 = cml_gpu_clock();
    if (bytes)
        CML_CU(cudaMemcpy(dst, src->ptr, bytes, cudaMemcpyDeviceToHost));
    g->phase_s[CML_GPU_PHASE_COPY] += cml_gpu_clock() - t0;
    return CML_OK;
}

cml_status cml_gpu_fill_f32(cml_gpu *g, cml_dbuf *b, size_t count, uint64_t seed)
{
    if (!g || !b)
        return CML_EINVAL;
    if (count > b->bytes / sizeof(float)) {
        set_err(g, "fill of %zu floats into a buffer of %zu bytes", count, b->bytes);
        return CML_EINVAL;
    }
    if (count == 0)
        return CML_OK;
    /* Enough blocks to fill every SM several times over; a grid-stride loop
     * covers the rest, so the grid never depends on the size. */
    const unsigned block = 256;
    size_t want = (count + block - 1) / block;
    size_t cap = (size_t)(g->facts.sm_count > 0 ? g->facts.sm_count : 1) * 8u;
    unsigned grid = (unsigned)(want < cap ? want : cap);
    cml_gpu_clear_last_error();
    const double t0 = cml_gpu_clock();
    cml_status st = cml_gpu_launch_fill_f32((float *)b->ptr, count, seed, grid, block);
    if (st != CML_OK) {
        return st;
    }
    /* Not timed: wait, so a fault in the fill is reported here, not blamed
     * on the kernel that runs next. */
    CML_CU(cudaStreamSynchronize(g->stream));
    g->phase_s[CML_GPU_PHASE_FILL] += cml_gpu_clock() - t0;
    return CML_OK;
}

cml_status cml_gpu_poison(cml_gpu *g, cml_dbuf *b)
{
    if (!g || !b)
        return CML_EINVAL;
    (void)cml_gpu_buffer_event(g, b->seq, CML_BUFFER_POISON);
    const double t0 = cml_gpu_clock();
    if (b->bytes)
        CML_CU(cudaMemsetAsync(b->ptr, 0xFF, b->bytes, g->stream));
    g->phase_s[CML_GPU_PHASE_FILL] += cml_gpu_clock() - t0;
    return CML_OK;
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                   */
/* ------------------------------------------------------------------------ */

/* One launch through the experiment's launcher, checked twice: the status
 * it returns (its own CML_CU_LAUNCH) and the runtime's last error, in case a
 * launcher forgot to look. */
static cml_status launch_checked(cml_gpu *g, cml_launch_fn launch, void *ctx)
{
    cml_gpu_clear_last_error();
    cml_status st = launch(ctx);
    if (st != CML_OK) {
        if (!cml_gpu_last_error()[0])
            set_err(g, "the launcher failed: %s", cml_status_str(st));
        return st;
    }
    CML_CU(cudaGetLastError());
    return CML_OK;
}

/* Let the stream hold go (a no-op without one). */
static void hold_release(cml_gpu *g)
{
    if (g->hold) {
        __atomic_store_n(&g->hold[0], 1, __ATOMIC_SEQ_CST);
    }
}

/* Time `batch` back-to-back launches between one pair of events. *held (in:
 * use the stream hold; out: 0 once it timed out) -- see HOLD_LAUNCHES. */
static cml_status time_batch(cml_gpu *g, cml_launch_fn launch, void *ctx, unsigned batch,
                             double *ms, int *held)
{
    const int hold = held && *held && g->hold;
    if (hold) {
        __atomic_store_n(&g->hold[0], 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&g->hold[1], 0, __ATOMIC_SEQ_CST);
        cml_gpu_clear_last_error();
        if (cml_gpu_launch_hold(g->hold_dev, g->hold_dev + 1, HOLD_TIMEOUT_NS) != CML_OK) {
            return CML_ECUDA;
        }
    }
    cml_status st = CML_OK;
    /* Behind the hold too: it runs, then the sample starts with no gap. */
    if (g->warm_before && held)
        st = launch_checked(g, launch, ctx);
    if (st == CML_OK && cml_gpu_check(cudaEventRecord(g->start, g->stream),
                                      "cudaEventRecord(g->start)", __FILE__, __LINE__)) {
        st = CML_ECUDA;
    }
    for (unsigned k = 0; k < batch && st == CML_OK; k++) {
        if (hold && k == HOLD_LAUNCHES)
            hold_release(g);
        st = launch_checked(g, launch, ctx);
    }
    if (hold)
        hold_release(g); /* on every path: a held stream never outlives this call */
    if (st != CML_OK)
        return st;
    CML_CU(cudaEventRecord(g->stop, g->stream));
    /* A faulting kernel makes this return its error: a message, not a hang. */
    CML_CU(cudaEventSynchronize(g->stop));
    if (hold && __atomic_load_n(&g->hold[1], __ATOMIC_SEQ_CST))
        *held = 0;
    float f = 0.0f;
    CML_CU(cudaEventElapsedTime(&f, g->start, g->stop));
    *ms = (double)f;
    return CML_OK;
}

void cml_gpu_set_warm_before(cml_gpu *g, int on)
{
    if (g)
        g->warm_before = on != 0;
}

void cml_gpu_set_noise_limit(cml_gpu *g, double target_cv, unsigned max_factor)
{
    if (!g)
        return;
    g->noise_target = target_cv > 0 ? target_cv : 0.0;
    g->max_reps_factor = max_factor ? max_factor : 1u;
}

static cml_status time_samples(cml_gpu *g, cml_launch_fn launch, void *ctx, unsigned warmup,
                               unsigned reps, cml_timing *out);

cml_status cml_gpu_time(cml_gpu *g, cml_launch_fn launch, void *ctx, unsigned warmup,
                        unsigned reps, cml_timing *out)
{
    if (!g || !launch || !out || reps == 0) {
        if (g)
            set_err(g, "cml_gpu_time: %s", reps == 0 ? "zero repetitions" : "missing argument");
        return CML_EINVAL;
    }
    memset(out, 0, sizeof *out);
    const double t0 = cml_gpu_clock();
    cml_status st = time_samples(g, launch, ctx, warmup, reps, out);
    g->timed_s += cml_gpu_clock() - t0;
    return st;
}

double cml_gpu_timed_seconds(const cml_gpu *g)
{
    return g ? g->timed_s : 0.0;
}

double cml_gpu_clock(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double cml_gpu_phase_seconds(const cml_gpu *g, cml_gpu_phase phase)
{
    return g && phase < CML_GPU_PHASES ? g->phase_s[phase] : 0.0;
}

void cml_gpu_phase_add(cml_gpu *g, cml_gpu_phase phase, double seconds)
{
    if (g && phase < CML_GPU_PHASES)
        g->phase_s[phase] += seconds;
}

/* cml_gpu_time's work: warm-up, probe, samples until the stopping rule. */
static cml_status time_samples(cml_gpu *g, cml_launch_fn launch, void *ctx, unsigned warmup,
                               unsigned reps, cml_timing *out)
{
    for (unsigned w = 0; w < warmup; w++) {
        cml_status st = launch_checked(g, launch, ctx);
        if (st != CML_OK)
            return st;
    }
    /* A probe launch (one more warm-up) decides between one launch per
     * sample and a batch per sample. */
    double probe = 0.0;
    cml_status st = time_batch(g, launch, ctx, 1, &probe, NULL);
    if (st != CML_OK)
        return st;
    unsigned batch = 1;
    if (probe < SHORT_LAUNCH_MS) {
        double b = BATCH_TARGET_MS / (probe > 1e-4 ? probe : 1e-4);
        batch = b > (double)MAX_BATCH ? MAX_BATCH : (unsigned)b + 1u;
    }

    /* Untimed launches for about WARMUP_TARGET_MS more, so that every timed
     * sample follows several milliseconds of the same work: clocks up, TLBs
     * and caches in the steady state the samples measure. On an H100 the
     * first variant after a fresh allocation still showed 1-2 slow samples
     * (cv 4-5%) after a 1 ms warm-up, and one (cv 2.2%) after 5 ms: so the
     * warm-up then waits, up to WARMUP_LIMIT_MS, for two batches that agree. */
    if (warmup > 0) {
        double n = WARMUP_TARGET_MS / (probe > 1e-4 ? probe : 1e-4);
        unsigned extra = n > (double)MAX_WARMUP_LAUNCHES ? MAX_WARMUP_LAUNCHES : (unsigned)n + 1u;
        double spent = 0.0, prev = -1.0;
        st = time_batch(g, launch, ctx, extra, &spent, NULL);
        while (st == CML_OK && spent < WARMUP_LIMIT_MS) {
            double ms = 0.0;
            st = time_batch(g, launch, ctx, batch, &ms, NULL);
            spent += ms;
            if (prev > 0 && ms <= prev * (1.0 + SETTLED) && prev <= ms * (1.0 + SETTLED))
                break;
            prev = ms;
        }
        if (st != CML_OK)
            return st;
    }

    /* With the stopping rule on: MIN_SAMPLES samples (reps if fewer), then
     * more (every one kept) until the median is pinned to the precision
     * noise_target at 95% confidence, up to max_reps_factor times reps: a
     * single slow sample lifts the cv of a steady kernel, and more samples
     * dilute it instead of hiding it. Off (a user's --reps): exactly reps. */
    unsigned cap = reps, least = reps;
    const int adaptive = g->noise_target > 0 && g->max_reps_factor > 1;
    if (adaptive) {
        cap = reps > UINT32_MAX / g->max_reps_factor ? reps : reps * g->max_reps_factor;
        least = reps < MIN_SAMPLES ? reps : MIN_SAMPLES;
    }
    double *samples = malloc((size_t)cap * sizeof *samples);
    if (!samples) {
        set_err(g, "out of host memory for %u timing samples", cap);
        return CML_ENOMEM;
    }
    cml_stats s;
    unsigned taken = 0;
    int held = 1; /* until a hold times out (a launcher that waits for the GPU) */
    for (;;) {
        double ms = 0.0;
        st = time_batch(g, launch, ctx, batch, &ms, &held);
        if (st != CML_OK) {
            free(samples);
            return st;
        }
        samples[taken++] = ms / (double)batch;
        if (taken < least)
            continue;
        st = cml_stats_compute(samples, taken, &s);
        if (st != CML_OK || taken >= cap ||
            (adaptive ? cml_stats_median_settled(&s, least, g->noise_target) : taken >= reps))
            break;
    }
    if (st == CML_OK)
        st = cml_timing_from_samples(samples, taken, warmup, out);
    free(samples);
    if (st != CML_OK)
        set_err(g, "timing statistics: %s", cml_status_str(st));
    return st;
}

cml_status cml_gpu_occupancy(cml_gpu *g, const void *kernel, unsigned block, size_t smem,
                             double *fraction)
{
    if (!g || !kernel || !fraction || block == 0)
        return CML_EINVAL;
    int blocks = 0;
    CML_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, (int)block, smem));
    int warp = g->facts.warp_size > 0 ? g->facts.warp_size : 32;
    int max_warps = g->facts.max_threads_per_sm / warp;
    int warps_per_block = ((int)block + warp - 1) / warp;
    *fraction = max_warps > 0 ? (double)(blocks * warps_per_block) / (double)max_warps : 0.0;
    return CML_OK;
}
