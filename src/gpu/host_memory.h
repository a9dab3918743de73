/*
 * Host memory and host <-> device copies for experiment 13 (transfers): the
 * harness's part that allocates each kind of memory (pageable, pinned,
 * mapped, device, managed), hands out device pointers of mapped memory,
 * prefetches managed memory, and times copies with CUDA events.
 *
 * Like gpu.h, this is host code that calls the CUDA runtime so experiments
 * need not: nothing here is CUDA-typed (streams and events live inside the
 * opaque cml_xfer), every call is checked, and a failure leaves a message on
 * the device handle (cml_gpu_error) naming the call and CUDA's error string.
 * A failed allocation (pinned, mapped, device, managed) is not sticky: the
 * runtime's error is cleared, so later calls are not blamed for it.
 */
#ifndef CML_HOST_MEMORY_H
#define CML_HOST_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"
#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of memory a transfer can start or end in. */
typedef enum cml_mem_kind {
    CML_MEM_PAGEABLE = 0, /* malloc: the driver stages copies through pinned buffers */
    CML_MEM_PINNED,       /* cudaMallocHost: page-locked, DMA straight from it */
    CML_MEM_HOSTALLOC,    /* cudaHostAlloc(cudaHostAllocDefault): the same as cudaMallocHost */
    CML_MEM_MAPPED,       /* cudaHostAlloc(cudaHostAllocMapped): pinned, readable by kernels */
    CML_MEM_DEVICE,       /* cudaMalloc */
    CML_MEM_MANAGED,      /* cudaMallocManaged(cudaMemAttachGlobal): migrates on demand */
    CML_MEM_KIND_COUNT
} cml_mem_kind;

/* The allocating call of a kind: "malloc", "cudaMallocHost", ... */
const char *cml_mem_kind_api(cml_mem_kind kind);
/* 1 for the kinds that live in host memory (pageable, pinned, hostalloc, mapped). */
int cml_mem_kind_is_host(cml_mem_kind kind);

typedef struct cml_mem {
    void *ptr;          /* host pointer (host kinds), device or managed pointer */
    size_t bytes;
    cml_mem_kind kind;
    uint64_t seq;       /* allocation number, as cml_dbuf.seq */
} cml_mem;

/*
 * Allocate `bytes` of `kind` into m (bytes == 0 gives a NULL pointer and
 * CML_OK). Out of memory (the host cannot pin that much, the device is
 * full, malloc fails): CML_ENOMEM with a message on g saying how much was
 * asked; other CUDA failures CML_ECUDA. Mapped memory needs
 * cudaDevAttrCanMapHostMemory, managed memory cudaDevAttrManagedMemory:
 * CML_EUNSUPPORTED with a message when the device lacks it.
 */
cml_status cml_mem_alloc(cml_gpu *g, cml_mem *m, cml_mem_kind kind, size_t bytes);
/* Free with the call matching the kind; m is zeroed. NULL or empty: no-op. */
void cml_mem_free(cml_gpu *g, cml_mem *m);

/* The device address of mapped memory (cudaHostGetDevicePointer). */
cml_status cml_mem_device_pointer(cml_gpu *g, const cml_mem *m, void **dptr);

/* Free and total device memory in bytes (cudaMemGetInfo). */
cml_status cml_gpu_memory_info(cml_gpu *g, size_t *free_b, size_t *total_b);

/* The monotonic clock (CLOCK_MONOTONIC) in milliseconds. */
double cml_host_clock_ms(void);

/*
 * The cost of allocating and freeing `bytes` of `kind`: `reps` rounds of
 * allocate, free, each call timed alone with the monotonic clock (the device
 * is idle first, so no earlier work is counted). Samples go to
 * alloc_ms[0..reps) and free_ms[0..reps). The memory is not touched: a
 * pinned or mapped allocation pins every page at once, a pageable, device
 * or managed one only reserves.
 */
cml_status cml_mem_alloc_cost(cml_gpu *g, cml_mem_kind kind, size_t bytes, unsigned reps,
                              double *alloc_ms, double *free_ms);

/*
 * The PCIe link the device reports to the host's operating system (Linux
 * sysfs current_link_speed / current_link_width of its PCI bus id), e.g.
 * 32 GT/s and 16 lanes. CML_EUNSUPPORTED when it cannot be read (another
 * OS, no sysfs, a virtual bus that does not say): a fact of this machine,
 * never required.
 */
cml_status cml_gpu_pcie_link(cml_gpu *g, double *gts, int *width);

/* ---- copies, prefetches and event timing --------------------------- */

/* Events and two streams of their own (non-blocking), for one experiment run. */
typedef struct cml_xfer cml_xfer;

typedef enum cml_dir { CML_DIR_H2D = 0, CML_DIR_D2H } cml_dir;

typedef enum cml_copy_api {
    CML_COPY_MEMCPY = 0, /* cudaMemcpy on the legacy default stream */
    CML_COPY_ASYNC       /* cudaMemcpyAsync on a stream of its own */
} cml_copy_api;

cml_status cml_xfer_open(cml_gpu *g, cml_xfer **out);
void cml_xfer_close(cml_xfer *x);
cml_gpu *cml_xfer_gpu(const cml_xfer *x);

/* One untimed cudaMemcpy (complete on return). */
cml_status cml_xfer_copy(cml_xfer *x, void *dst, const void *src, size_t bytes, cml_dir dir);

/*
 * Time one copy of `bytes` in direction `dir`: `warmup` untimed copies,
 * then `reps` copies each between its own pair of events recorded on the
 * stream the copy runs on, so cudaMemcpy and cudaMemcpyAsync are timed
 * over the same region (from the stream reaching the start event to the
 * copy's completion; for pageable memory that includes the driver's
 * staging). Median, min, max, mean and cv of the reps into out.
 */
cml_status cml_xfer_time_copy(cml_xfer *x, void *dst, const void *src, size_t bytes, cml_dir dir,
                              cml_copy_api api, unsigned warmup, unsigned reps, cml_timing *out);

/*
 * Both directions at once: h_src -> d_dst (cudaMemcpyAsync on stream 1) and
 * d_src -> h_dst (on stream 2), started together: stream 2 waits for the
 * start event of stream 1, stream 1 waits for stream 2's end, and the stop
 * event follows both. Timing as cml_xfer_time_copy; the time covers both
 * copies (2 * bytes moved).
 */
cml_status cml_xfer_time_both(cml_xfer *x, void *d_dst, const void *h_src, void *h_dst,
                              const void *d_src, size_t bytes, unsigned warmup, unsigned reps,
                              cml_timing *out);

/* An event pair on the legacy default stream around whatever is issued
 * between start and stop (launches, copies, prefetches); stop waits for
 * it and gives the elapsed milliseconds. */
cml_status cml_xfer_start(cml_xfer *x);
cml_status cml_xfer_stop(cml_xfer *x, double *ms);

/* Start one kernel through its launcher (a cml_launch_fn of a .cu file)
 * on the legacy stream; the launch status and the runtime's last error are
 * both checked, and a failure's message is kept on the device handle. */
cml_status cml_xfer_launch(cml_xfer *x, cml_launch_fn launch, void *ctx);

/* cudaMemPrefetchAsync of a managed range to this device (CUDA 13: a
 * cudaMemLocation of type device and flags 0), on the legacy stream. Needs
 * cudaDevAttrConcurrentManagedAccess (CML_EUNSUPPORTED otherwise). */
cml_status cml_xfer_prefetch(cml_xfer *x, const void *p, size_t bytes);
/* cudaMemsetAsync on the legacy stream (device or managed memory). */
cml_status cml_xfer_memset(cml_xfer *x, void *p, int value, size_t bytes);
/* Wait for all work on the device (cudaDeviceSynchronize): needed before
 * the host touches managed memory a kernel used. */
cml_status cml_xfer_sync(cml_xfer *x);

#ifdef __cplusplus
}
#endif
#endif
