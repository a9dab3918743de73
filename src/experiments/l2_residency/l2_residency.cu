/*
 * Experiment 19: a stream through DRAM beside a hot set re-read at random
 * (l2_residency_kernels.h), with each way of asking L2 to keep or drop
 * lines, and the device-wide controls of persisting L2 lines.
 *
 * The kernel's body, and the PTX each policy needs, are in
 * l2_residency_body.h, which the model's mirror (l2_residency.c) compiles
 * too.
 */
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "experiments/l2_residency/l2_residency_body.h"
#include "experiments/l2_residency/l2_residency_kernels.h"
#include "gpu/gpu_internal.h"

/* ---- the kernel ------------------------------------------------------------ */

/* One kernel per policy P. */
template <int P>
__global__ void l2r_kernel(const float4 *__restrict__ x, const float4 *__restrict__ h,
                           float4 *__restrict__ out, uint64_t nv, uint64_t chunks, uint64_t seed)
{
    cml_l2r_body(CML_KERNEL_CTX, x, h, out, nv, chunks, seed, P);
}

typedef void (*l2r_fn)(const float4 *, const float4 *, float4 *, uint64_t, uint64_t, uint64_t);

static l2r_fn pick(int policy)
{
    switch (policy) {
    case CML_L2R_NONE: return l2r_kernel<CML_L2R_NONE>;
    case CML_L2R_WINDOW: return l2r_kernel<CML_L2R_WINDOW>;
    case CML_L2R_LDCS: return l2r_kernel<CML_L2R_LDCS>;
    case CML_L2R_EVICT_FIRST: return l2r_kernel<CML_L2R_EVICT_FIRST>;
    case CML_L2R_EVICT_LAST: return l2r_kernel<CML_L2R_EVICT_LAST>;
    case CML_L2R_EVICT_BOTH: return l2r_kernel<CML_L2R_EVICT_BOTH>;
    case CML_L2R_PREFETCH_128: return l2r_kernel<CML_L2R_PREFETCH_128>;
    case CML_L2R_PREFETCH_256: return l2r_kernel<CML_L2R_PREFETCH_256>;
    case CML_L2R_NO_ALLOCATE: return l2r_kernel<CML_L2R_NO_ALLOCATE>;
    default: return NULL;
    }
}

extern "C" const void *cml_l2r_kernel(int policy)
{
    return (const void *)pick(policy);
}

extern "C" cml_status cml_l2r_launch(void *vctx)
{
    const cml_l2r_args *a = (const cml_l2r_args *)vctx;
    l2r_fn k = pick(a->policy);
    if (!k || a->block == 0 || a->block % 32u != 0 || a->chunks == 0 || a->nv == 0)
        return CML_EINVAL;
    const uint64_t grid = (a->nv + a->block - 1) / a->block;
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    k<<<(unsigned)grid, a->block, 0, (cudaStream_t)a->stream>>>(
        (const float4 *)a->x, (const float4 *)a->h, (float4 *)a->out, a->nv, a->chunks, a->seed);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* ---- verification ------------------------------------------------------- */

/* Every float of out, bit for bit: x[e] + h[hot(e)] from the generator. */
__global__ void l2r_check(const float *__restrict__ out, uint64_t n, uint64_t chunks, uint64_t seed,
                          uint64_t seed_x, uint64_t seed_h, unsigned long long *bad,
                          unsigned long long *first_bad)
{
    for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (uint64_t)gridDim.x * blockDim.x) {
        const float want = __fadd_rn(cml_random_f32(seed_x, e),
                                     cml_random_f32(seed_h, cml_l2r_hot_index(seed, chunks, e)));
        if (__float_as_uint(out[e]) != __float_as_uint(want)) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)e);
        }
    }
}

extern "C" cml_status cml_l2r_check(const cml_l2r_args *a, uint64_t seed_x, uint64_t seed_h,
                                    unsigned long long *d_counters)
{
    if (a->chunks == 0)
        return CML_EINVAL;
    l2r_check<<<4096, 256>>>(a->out, 4u * a->nv, a->chunks, a->seed, seed_x, seed_h, d_counters,
                             d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* ---- persisting L2 -------------------------------------------------------- */

static void set_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_gpu_set_last_error_v(fmt, ap);
    va_end(ap);
}

extern "C" cml_status cml_l2r_limit_get(size_t *bytes)
{
    CML_CU(cudaDeviceGetLimit(bytes, cudaLimitPersistingL2CacheSize));
    return CML_OK;
}

extern "C" cml_status cml_l2r_limit_set(size_t bytes)
{
    cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes);
    if (e == cudaErrorUnsupportedLimit || e == cudaErrorNotSupported ||
        e == cudaErrorNotPermitted || e == cudaErrorInvalidValue) {
        (void)cudaGetLastError(); /* not sticky: the context is fine */
        set_message("cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, %zu) refused: %s (%s)",
                    bytes, cudaGetErrorString(e), cudaGetErrorName(e));
        return CML_EUNSUPPORTED;
    }
    CML_CU(e);
    return CML_OK;
}

extern "C" cml_status cml_l2r_reset_persisting(void)
{
    CML_CU(cudaDeviceSynchronize()); /* no launch of ours still using the lines */
    CML_CU(cudaCtxResetPersistingL2Cache());
    return CML_OK;
}

extern "C" cml_status cml_l2r_max_window(size_t *bytes)
{
    int dev = 0, v = 0;
    CML_CU(cudaGetDevice(&dev));
    CML_CU(cudaDeviceGetAttribute(&v, cudaDevAttrMaxAccessPolicyWindowSize, dev));
    *bytes = v > 0 ? (size_t)v : 0;
    return CML_OK;
}

extern "C" cml_status cml_l2r_stream_open(void **stream)
{
    cudaStream_t s = NULL;
    CML_CU(cudaStreamCreateWithFlags(&s, cudaStreamDefault));
    *stream = (void *)s;
    return CML_OK;
}

extern "C" void cml_l2r_stream_close(void *stream)
{
    if (!stream)
        return;
    (void)cudaStreamSynchronize((cudaStream_t)stream);
    (void)cudaStreamDestroy((cudaStream_t)stream);
}

static cml_status set_window(void *stream, const void *base, size_t bytes, double ratio,
                             int persisting)
{
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = (void *)base;
    v.accessPolicyWindow.num_bytes = bytes;
    v.accessPolicyWindow.hitRatio = (float)ratio;
    v.accessPolicyWindow.hitProp =
        persisting ? cudaAccessPropertyPersisting : cudaAccessPropertyStreaming;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CML_CU(cudaStreamSetAttribute((cudaStream_t)stream, cudaStreamAttributeAccessPolicyWindow, &v));
    return CML_OK;
}

extern "C" cml_status cml_l2r_window_set(void *stream, const void *base, size_t bytes,
                                         double hit_ratio, int hit_persisting)
{
    if (!stream || !base || bytes == 0 || !(hit_ratio >= 0.0 && hit_ratio <= 1.0))
        return CML_EINVAL;
    return set_window(stream, base, bytes, hit_ratio, hit_persisting);
}

extern "C" cml_status cml_l2r_window_clear(void *stream)
{
    if (!stream)
        return CML_OK;
    return set_window(stream, NULL, 0, 0.0, 0);
}
