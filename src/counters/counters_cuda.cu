/*
 * The CUDA side of the counters layer: context, L2 flush, an empty kernel.
 * Every call is checked through the harness's CML_CU (gpu_internal.h), so a
 * failure leaves a message naming the call in cml_gpu_last_error().
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "counters/counters_cuda.h"
#include "gpu/gpu_internal.h"

typedef CUresult (*ctx_get_current_fn)(CUcontext *);
typedef CUresult (*ctx_get_device_fn)(CUdevice *);

/* Look a driver function up through the runtime (no link to libcuda). */
static int driver_fn(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q);
    return e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn != NULL;
}

extern "C" cml_status cml_ctr_cuda_context(int device, void **ctx, int *cu_device, char *why,
                                           size_t whylen)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(why, whylen, "no CUDA device (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return CML_ENOGPU;
    }
    if (device < 0 || device >= count) {
        snprintf(why, whylen, "device %d does not exist (this machine has %d)", device, count);
        return CML_ENOGPU;
    }
    /* cudaFree(0) creates the primary context if nothing has yet. */
    if ((e = cudaSetDevice(device)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess) {
        snprintf(why, whylen, "cannot use device %d: %s", device, cudaGetErrorString(e));
        return CML_ECUDA;
    }
    void *get_ctx = NULL, *get_dev = NULL;
    if (!driver_fn("cuCtxGetCurrent", &get_ctx) || !driver_fn("cuCtxGetDevice", &get_dev)) {
        snprintf(why, whylen, "the CUDA driver does not provide cuCtxGetCurrent/cuCtxGetDevice");
        return CML_ECUDA;
    }
    CUcontext c = NULL;
    CUdevice d = 0;
    if (((ctx_get_current_fn)get_ctx)(&c) != CUDA_SUCCESS || c == NULL ||
        ((ctx_get_device_fn)get_dev)(&d) != CUDA_SUCCESS) {
        snprintf(why, whylen, "no current CUDA context on device %d", device);
        return CML_ECUDA;
    }
    *ctx = (void *)c;
    *cu_device = (int)d;
    return CML_OK;
}

extern "C" cml_status cml_ctr_cuda_flush_alloc(void **buf, uint64_t *bytes, char *why,
                                               size_t whylen)
{
    int dev = 0, l2 = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    uint64_t want = 3ull * (uint64_t)(l2 > 0 ? l2 : 0);
    if (want < (64ull << 20))
        want = 64ull << 20;
    void *p = NULL;
    if (e == cudaSuccess)
        e = cudaMalloc(&p, (size_t)want);
    /* Written once, so the reads below never touch unmapped or stale data. */
    if (e == cudaSuccess)
        e = cudaMemset(p, 0x5a, (size_t)want);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        if (p)
            cudaFree(p);
        snprintf(why, whylen, "cannot allocate the %llu-byte L2 flush buffer: %s",
                 (unsigned long long)want, cudaGetErrorString(e));
        return CML_ECUDA;
    }
    *buf = p;
    *bytes = want;
    return CML_OK;
}

extern "C" void cml_ctr_cuda_free(void *buf)
{
    if (buf)
        (void)cudaFree(buf);
}

/* Reads 16 bytes per thread per step, L2 only (the L1 of each SM is
 * invalidated at every kernel start anyway). The XOR is stored only if it
 * equals a value it practically never takes, so the loads cannot be removed
 * and nothing is written. */
__global__ void cml_ctr_flush_kernel(const uint4 *p, size_t n, unsigned *sink)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned x = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 v = __ldcg(&p[i]);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x2bad5eedu)
        sink[0] = x;
}

static cml_status flush_launch(void *buf, uint64_t bytes)
{
    if (!buf || bytes < 16)
        return CML_EINVAL;
    int dev = 0, sms = 0;
    CML_CU(cudaGetDevice(&dev));
    CML_CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    unsigned grid = (unsigned)(sms > 0 ? sms : 1) * 4u;
    /* The sink is the buffer's first word: written at most once, never read. */
    cml_ctr_flush_kernel<<<grid, 512>>>((const uint4 *)buf, (size_t)(bytes / 16),
                                        (unsigned *)buf);
    CML_CU_LAUNCH();
    return CML_OK;
}

extern "C" cml_status cml_ctr_cuda_flush(void *buf, uint64_t bytes)
{
    cml_status st = flush_launch(buf, bytes);
    if (st != CML_OK)
        return st;
    CML_CU(cudaDeviceSynchronize());
    return CML_OK;
}

/* The events' part of cml_ctr_cuda_stream: e0, the flush, e1, waited for. */
static cml_status stream_timed(cml_ctr_stream_args *a, cudaEvent_t e0, cudaEvent_t e1)
{
    CML_CU(cudaEventRecord(e0));
    cml_status st = flush_launch(a->buf, a->bytes);
    if (st != CML_OK)
        return st;
    CML_CU(cudaEventRecord(e1));
    CML_CU(cudaEventSynchronize(e1));
    float ms = 0;
    CML_CU(cudaEventElapsedTime(&ms, e0, e1));
    if ((double)ms > a->ms)
        a->ms = (double)ms;
    return CML_OK;
}

extern "C" cml_status cml_ctr_cuda_stream(void *ctx)
{
    cml_ctr_stream_args *a = (cml_ctr_stream_args *)ctx;
    if (!a || !a->buf || a->bytes < 16)
        return CML_EINVAL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    CML_CU(cudaEventCreate(&e0));
    cml_status st = cml_gpu_check((int)cudaEventCreate(&e1), "cudaEventCreate(&e1)", __FILE__,
                                  __LINE__);
    if (st == CML_OK)
        st = stream_timed(a, e0, e1);
    (void)cudaEventDestroy(e0);
    if (e1)
        (void)cudaEventDestroy(e1);
    return st;
}

extern "C" cml_status cml_ctr_cuda_sync(void)
{
    CML_CU(cudaDeviceSynchronize());
    return CML_OK;
}

__global__ void cml_ctr_noop_kernel(void) {}

extern "C" cml_status cml_ctr_cuda_noop(void *ctx)
{
    (void)ctx;
    cml_ctr_noop_kernel<<<1, 32>>>();
    CML_CU_LAUNCH();
    return CML_OK;
}

/* Every thread reads a set L2 holds (`words` 4-byte words, through .cg:
 * past L1, so every load reaches L2) until the global timer passes `ns`:
 * the GPU's L2 busy, and no DRAM access of the kernel's own but the set's
 * first touch. The sum goes to the sink only if it and the timer read
 * values they practically never do, so the loads cannot be removed. */
__global__ void cml_ctr_l2_busy_kernel(unsigned long long ns, const unsigned *set,
                                       unsigned words, unsigned *sink)
{
    unsigned long long t0, t;
    unsigned acc = 0, i = (blockIdx.x * blockDim.x + threadIdx.x) % words;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            unsigned v;
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(set + i));
            acc += v;
            i += blockDim.x;
            if (i >= words)
                i -= words;
        }
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
    if (t == 0x2bad5eed2bad5eedull && acc == 0x2bad5eedu)
        sink[0] = acc;
}

extern "C" cml_status cml_ctr_cuda_l2_busy(void *ctx)
{
    const cml_ctr_busy_args *a = (const cml_ctr_busy_args *)ctx;
    if (!a || !a->set || a->words < 256u)
        return CML_EINVAL;
    /* A block of 256 threads on every SM, all reading the set from L2:
     * the GPU as busy as a kernel whose accesses stay in L2 (the DRAM
     * reads of such kernels grow with their launch, as this control's do:
     * docs/model-evidence.md §2.1). */
    int dev = 0, sms = 0;
    CML_CU(cudaGetDevice(&dev));
    CML_CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cml_ctr_l2_busy_kernel<<<(unsigned)(sms > 0 ? sms : 1), 256>>>(
        a->ns, (const unsigned *)a->set, a->words, (unsigned *)a->set);
    CML_CU_LAUNCH();
    return CML_OK;
}
