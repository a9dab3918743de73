/*
 * Experiment 19: a stream through DRAM beside a hot set re-read at random
 * (l2_residency_kernels.h), with each way of asking L2 to keep or drop
 * lines, and the device-wide controls of persisting L2 lines.
 *
 * The PTX each policy needs, and where it exists:
 *   ld.global.cs / st.global.cs (__ldcs, __stcs)      every architecture
 *   ld.global.L1::no_allocate                         sm_70
 *   ld.global.L2::128B                                sm_75
 *   ld.global.L2::256B                                sm_80
 *   createpolicy.fractional.L2::evict_{first,last}    sm_80, with
 *   ld/st.global.L2::cache_hint                       sm_80
 * A load with an L2 eviction priority written on the instruction itself
 * (ld.global.L2::evict_last) is accepted by ptxas only as a 256-bit load
 * (.v8.b32, sm_100), so on sm_80..sm_90 a 16-byte access gets its L2
 * priority through createpolicy and L2::cache_hint, as here. Code below an
 * architecture's minimum traps: the host waives those policies there
 * (cml_l2r_min_cc), so a trap means a bug, loudly.
 */
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "experiments/l2_residency/l2_residency_kernels.h"
#include "gpu/gpu_internal.h"

/* ---- loads and stores by policy ---------------------------------------- */

__device__ __forceinline__ float4 ld_plain(const float4 *p)
{
    return *p;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ uint64_t policy_evict_first()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ uint64_t policy_evict_last()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ float4 ld_hint(const float4 *p, uint64_t pol)
{
    float4 v;
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ void st_hint(float4 *p, float4 v, uint64_t pol)
{
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;"
                 :
                 : "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(pol)
                 : "memory");
}
__device__ __forceinline__ float4 ld_256(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
__device__ __forceinline__ float4 ld_128(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
#endif

__device__ __forceinline__ float4 ld_no_allocate(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}

__device__ __forceinline__ float4 add4(float4 a, float4 b)
{
    return make_float4(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y), __fadd_rn(a.z, b.z),
                       __fadd_rn(a.w, b.w));
}

/* ---- the kernel ------------------------------------------------------------ */

template <int P>
__global__ void l2r_kernel(const float4 *__restrict__ x, const float4 *__restrict__ h,
                           float4 *__restrict__ out, uint64_t nv, uint64_t chunks, uint64_t seed)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nv)
        return;
    const float4 *xp = x + i;
    const float4 *hp = h + (uint64_t)(CML_L2R_CHUNK_FLOATS / 4u) * cml_l2r_chunk(seed, i / 32u, chunks) +
                       i % 32u;
    float4 *op = out + i;
    float4 a, b;
    switch (P) {
    case CML_L2R_LDCS:
        __stcs(op, add4(__ldcs(xp), ld_plain(hp)));
        return;
    case CML_L2R_NO_ALLOCATE:
        a = ld_plain(xp);
        b = ld_no_allocate(hp);
        break;
    case CML_L2R_EVICT_FIRST:
    case CML_L2R_EVICT_LAST:
    case CML_L2R_EVICT_BOTH:
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    {
        const bool first = P != CML_L2R_EVICT_LAST, last = P != CML_L2R_EVICT_FIRST;
        const uint64_t pf = first ? policy_evict_first() : 0, pl = last ? policy_evict_last() : 0;
        a = first ? ld_hint(xp, pf) : ld_plain(xp);
        b = last ? ld_hint(hp, pl) : ld_plain(hp);
        if (first)
            st_hint(op, add4(a, b), pf);
        else
            *op = add4(a, b);
        return;
    }
#else
        __trap();
#endif
    case CML_L2R_PREFETCH_128:
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
        a = ld_128(xp);
        b = ld_128(hp);
        break;
#else
        __trap();
#endif
    case CML_L2R_PREFETCH_256:
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        a = ld_256(xp);
        b = ld_256(hp);
        break;
#else
        __trap();
#endif
    default: /* none, window: plain */
        a = ld_plain(xp);
        b = ld_plain(hp);
        break;
    }
    *op = add4(a, b);
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
