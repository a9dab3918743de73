/*
 * Experiment 19: a stream through DRAM beside a hot set re-read at random,
 * with each way of asking L2 to keep or drop lines, and the device-wide
 * controls of persisting L2 lines.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * model's expectation, the launch arguments and the device-wide L2
 * controls (extern "C", callable from C), the hot-chunk hash the kernel,
 * the mirror and every checker share, the kernel's body, which the C
 * compiler makes the model's mirror (l2_residency.c), and under __CUDACC__
 * the kernels (one per policy), their launchers, checker and L2 controls,
 * which nvcc compiles through the file the build generates for the folder
 * (cmake/experiments.cmake).
 *
 * The kernel, one float4 per thread i < nv (i = blockIdx.x*blockDim.x +
 * threadIdx.x, warp w = i / 32, lane = i % 32):
 *     out[i] = x[i] + h[32 * chunk(w) + lane]          (float4, __fadd_rn)
 * x and out stream through DRAM once per launch; h, the hot set, is read in
 * whole aligned 512-byte chunks, one per warp, chosen by a hash: over a
 * launch every chunk is read about nv / (32 x chunks) times, at random, so
 * whether a chunk is still in L2 when it is read again is what the access
 * policy window and the eviction hints decide (docs/experiments/l2-residency.md).
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
 * (cml_l2r_min_cc), so a trap means a bug, loudly. The mirror models every
 * policy (as on an sm_80 and later); what it sees of each access is its
 * cache operator: cs for __ldcs/__stcs, cg for L1::no_allocate (the line
 * is not kept in L1), ca for the rest.
 */
#ifndef CML_L2_RESIDENCY_BODY_H
#define CML_L2_RESIDENCY_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

/*
 * What the model expects of one launch, in steady state (lines a previous
 * launch left in L2 still there), from the L2 size C, the hot set H, the
 * bytes X streamed (x read, and as many written to out, per launch; the hot
 * set is read X bytes' worth too) and, for a window, the set-aside S, the
 * window's bytes W, hitRatio r and hitProp:
 *   none, prefetch, no-allocate   hot hit = 1 - exp(-4T/H), T solving
 *                                 8T + H(1 - exp(-4T/H)) = C (LRU, by the
 *                                 characteristic-time approximation)
 *   window, persisting            hot hit = min(r W, S) / H
 *   window, streaming             hot hit = 0 (every hot line evict-first)
 *   ldcs, evict-first/-last/both  hot hit = min(1, C / H) (the stream's lines
 *                                 leave first, or the hot lines last)
 *   DRAM read = X + (1 - hit) X, and up to hit x H more when L2 starts cold;
 *   DRAM write = X; L2 hit rate of the reads = hit / 2.
 */
typedef struct cml_l2r_expect {
    double hot_hit;          /* 0..1 */
    double dram_read;        /* bytes, steady state */
    double dram_read_cold;   /* bytes, L2 cold at the start */
    double dram_write;       /* bytes */
    double l2_hit;           /* 0..1, of the read sectors */
} cml_l2r_expect;

/* policy: cml_l2r_policy; ratio 0..1; persisting 1/0 (window only). */
void cml_l2r_expectation(int policy, double l2, double hot, double stream, double set_aside,
                         double window, double ratio, int persisting, cml_l2r_expect *e);

/* The hot hit fraction of plain LRU beside the stream (the first rule). */
double cml_l2r_lru_hit(double l2, double hot);

/* The same for any cache: the fraction of reads of a hot set of `hot`
 * bytes, read uniformly at random, that hit an LRU cache of `cache` bytes
 * when k bytes of lines never read again are inserted per hot byte read
 * (Che's characteristic time u: k u + hot (1 - e^(-u/hot)) = cache, hit =
 * 1 - e^(-u/hot)); k = 0: min(1, cache / hot). cml_l2r_lru_hit is k = 2. */
double cml_l2r_lru_hit_k(double cache, double hot, double k);

/*
 * The record's cache levels in closed form (l2_residency_levels.c,
 * docs/experiments/l2-residency.md "The cache levels"): L1 hit sectors, L2
 * read and write sectors, DRAM bytes read and written, each with its
 * interval, from the kernel's accesses (rec->model's global load and store
 * sectors), the cache configuration (rec->cache) and the policy's own
 * model (cml_l2r_expectation): sizes in bytes, the window's hitRatio
 * `ratio` 0..1 and hitProp persisting (1) or streaming (0). Sets
 * rec->has_levels. CML_EINVAL without the model's traffic or for a size 0.
 */
cml_status cml_l2r_levels(cml_record *rec, int policy, uint64_t l2, uint64_t hot, uint64_t stream,
                          uint64_t set_aside, uint64_t window, double ratio, int persisting);

#ifdef __cplusplus
extern "C" {
#endif

/* How the kernel's accesses ask L2 to keep or drop lines. */
typedef enum cml_l2r_policy {
    CML_L2R_NONE = 0,        /* plain loads and stores: the baseline */
    CML_L2R_WINDOW,          /* plain, on a stream with an access policy window on h */
    CML_L2R_LDCS,            /* x by __ldcs, out by __stcs (streaming: evict first) */
    CML_L2R_EVICT_FIRST,     /* x loads and out stores with an L2::evict_first policy
                                (createpolicy + L2::cache_hint; sm_80) */
    CML_L2R_EVICT_LAST,      /* h loads with an L2::evict_last policy (sm_80) */
    CML_L2R_EVICT_BOTH,      /* both of the above (sm_80) */
    CML_L2R_PREFETCH_128,    /* x and h loads with .L2::128B (sm_75) */
    CML_L2R_PREFETCH_256,    /* x and h loads with .L2::256B (sm_80) */
    CML_L2R_NO_ALLOCATE,     /* h loads with .L1::no_allocate (sm_70) */
    CML_L2R_POLICY_COUNT
} cml_l2r_policy;

/* The compute capability (10 x major + minor) a policy's PTX needs. */
static inline int cml_l2r_min_cc(int policy)
{
    switch (policy) {
    case CML_L2R_WINDOW:
    case CML_L2R_EVICT_FIRST:
    case CML_L2R_EVICT_LAST:
    case CML_L2R_EVICT_BOTH:
    case CML_L2R_PREFETCH_256: return 80;
    case CML_L2R_PREFETCH_128: return 75;
    case CML_L2R_NO_ALLOCATE: return 70;
    default: return 0;
    }
}

#define CML_L2R_CHUNK_FLOATS 128u /* 512 bytes: one warp's float4s */

/* The hot chunk warp w reads, of `chunks` (< 2^32: a 32-bit remainder,
 * cheap on the GPU). */
CML_HD uint64_t cml_l2r_chunk(uint64_t seed, uint64_t w, uint64_t chunks)
{
    return (uint32_t)(cml_mix64(seed ^ (w * 0x9E3779B97F4A7C15ull)) >> 32) % (uint32_t)chunks;
}

/* The index in h of the float that out[e] adds (e: a float index). */
CML_HD uint64_t cml_l2r_hot_index(uint64_t seed, uint64_t chunks, uint64_t e)
{
    const uint64_t v = e / 4u; /* its float4 */
    return CML_L2R_CHUNK_FLOATS * cml_l2r_chunk(seed, v / 32u, chunks) + 4u * (v % 32u) + e % 4u;
}

/* One launch: the ctx of cml_l2r_launch (a cml_launch_fn). */
typedef struct cml_l2r_args {
    const float *x, *h;
    float *out;
    uint64_t nv;       /* float4s of x and out */
    uint64_t chunks;   /* 512-byte chunks of h */
    uint64_t seed;     /* the chunk hash's */
    int policy;        /* cml_l2r_policy */
    unsigned block;
    void *stream;      /* a cudaStream_t (cml_l2r_stream_open); NULL: the legacy stream */
} cml_l2r_args;

CML_LAUNCHER cml_status cml_l2r_launch(void *args);
/* The __global__ function of a policy, for the occupancy calculator. */
CML_LAUNCHER const void *cml_l2r_kernel(int policy);
/* Count wrong floats of out against the generator (x: seed_x, h: seed_h)
 * into d_counters[0], the first wrong index into d_counters[1]. */
CML_LAUNCHER cml_status cml_l2r_check(const cml_l2r_args *a, uint64_t seed_x, uint64_t seed_h,
                                      unsigned long long *d_counters);

/* ---- device-wide persisting L2 (cudaLimitPersistingL2CacheSize) ------- */

/* The limit now, in bytes (cudaDeviceGetLimit). */
CML_LAUNCHER cml_status cml_l2r_limit_get(size_t *bytes);
/* Set it; CML_EUNSUPPORTED (with the driver's words in the harness's
 * message, and the CUDA error cleared) when the device refuses (MIG, MPS,
 * no persisting L2), CML_ECUDA for any other failure. */
CML_LAUNCHER cml_status cml_l2r_limit_set(size_t bytes);
/* Demote every persisting line to normal (cudaCtxResetPersistingL2Cache). */
CML_LAUNCHER cml_status cml_l2r_reset_persisting(void);
/* cudaDevAttrMaxAccessPolicyWindowSize of the current device. */
CML_LAUNCHER cml_status cml_l2r_max_window(size_t *bytes);
/* A blocking stream: it waits for the legacy stream's earlier work and the
 * legacy stream waits for its, so the harness's events on the legacy
 * stream still bracket a launch on it. */
CML_LAUNCHER cml_status cml_l2r_stream_open(void **stream);
CML_LAUNCHER void cml_l2r_stream_close(void *stream);
/* The stream's access policy window (cudaStreamAttributeAccessPolicyWindow):
 * [base, base + bytes), hitRatio, hitProp persisting (1) or streaming (0),
 * missProp streaming. window_clear: num_bytes 0, the window gone. */
CML_LAUNCHER cml_status cml_l2r_window_set(void *stream, const void *base, size_t bytes,
                                           double hit_ratio, int hit_persisting);
CML_LAUNCHER cml_status cml_l2r_window_clear(void *stream);

#ifdef __cplusplus
}
#endif

/* Whether this compilation has sm_75's and sm_80's instructions: the
 * kernel's for those architectures and later; the mirror's, and nvcc's
 * host pass (which generates no device code), always. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define CML_L2R_SM80 1
#else
#define CML_L2R_SM80 0
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 750
#define CML_L2R_SM75 1
#else
#define CML_L2R_SM75 0
#endif

#if defined(__CUDACC__)
/* ---- the kernel's loads and stores by policy (CML_LD_FN, CML_ST_FN) ------ */

#if CML_L2R_SM80
__device__ __forceinline__ uint64_t cml_l2r_policy_evict_first()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ uint64_t cml_l2r_policy_evict_last()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ float4 cml_l2r_ld_hint(const float4 *p, uint64_t pol)
{
    float4 v;
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ void cml_l2r_st_hint(float4 *p, float4 v, uint64_t pol)
{
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;"
                 :
                 : "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(pol)
                 : "memory");
}
__device__ __forceinline__ float4 cml_l2r_ld_256(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
#endif

#if CML_L2R_SM75
__device__ __forceinline__ float4 cml_l2r_ld_128(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
#endif

__device__ __forceinline__ float4 cml_l2r_ld_no_allocate(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}

#else
/* ---- the mirror: a policy is a register of the kernel, nothing the model
 * sees ---------------------------------------------------------------------- */

static inline uint64_t cml_l2r_policy_evict_first(void)
{
    return 0;
}
static inline uint64_t cml_l2r_policy_evict_last(void)
{
    return 0;
}
#endif

CML_BODY float4 cml_l2r_add4(float4 a, float4 b)
{
    return make_float4(CML_FADD_RN(a.x, b.x), CML_FADD_RN(a.y, b.y), CML_FADD_RN(a.z, b.z),
                       CML_FADD_RN(a.w, b.w));
}

/*
 * One float4 per thread i < nv: out[i] = x[i] + h[32 * chunk(i / 32) +
 * i % 32], through the accesses of policy P (a constant in each kernel).
 * Sites: 0 x, 1 h, 2 out.
 */
CML_BODY void cml_l2r_body(CML_CTX, const float4 *x, const float4 *h, float4 *out, uint64_t nv,
                           uint64_t chunks, uint64_t seed, int P)
{
    const uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= nv)
        return;
    const float4 *xp = x + i;
    const float4 *hp =
        h + (uint64_t)(CML_L2R_CHUNK_FLOATS / 4u) * cml_l2r_chunk(seed, i / 32u, chunks) +
        i % 32u;
    float4 *op = out + i;
    float4 a, b;
    switch (P) {
    case CML_L2R_LDCS:
        a = CML_LD(0, CML_LD_CS, float4, xp, 0);
        b = CML_LD(1, CML_LD_PLAIN, float4, hp, 0);
        CML_ST(2, CML_ST_CS, op, 0, cml_l2r_add4(a, b));
        return;
    case CML_L2R_NO_ALLOCATE:
        a = CML_LD(0, CML_LD_PLAIN, float4, xp, 0);
        b = CML_LD_FN(1, CML_CACHE_CG, float4, hp, 0, cml_l2r_ld_no_allocate);
        break;
    case CML_L2R_EVICT_FIRST:
    case CML_L2R_EVICT_LAST:
    case CML_L2R_EVICT_BOTH:
#if CML_L2R_SM80
    {
        const int first = P != CML_L2R_EVICT_LAST, last = P != CML_L2R_EVICT_FIRST;
        const uint64_t pf = first ? cml_l2r_policy_evict_first() : 0,
                       pl = last ? cml_l2r_policy_evict_last() : 0;
        a = first ? CML_LD_FN1(0, CML_CACHE_CA, float4, xp, 0, cml_l2r_ld_hint, pf)
                  : CML_LD(0, CML_LD_PLAIN, float4, xp, 0);
        b = last ? CML_LD_FN1(1, CML_CACHE_CA, float4, hp, 0, cml_l2r_ld_hint, pl)
                 : CML_LD(1, CML_LD_PLAIN, float4, hp, 0);
        if (first)
            CML_ST_FN1(2, CML_CACHE_CA, op, 0, cml_l2r_add4(a, b), cml_l2r_st_hint, pf);
        else
            CML_ST(2, CML_ST_PLAIN, op, 0, cml_l2r_add4(a, b));
        return;
    }
#else
        __trap();
#endif
    case CML_L2R_PREFETCH_128:
#if CML_L2R_SM75
        a = CML_LD_FN(0, CML_CACHE_CA, float4, xp, 0, cml_l2r_ld_128);
        b = CML_LD_FN(1, CML_CACHE_CA, float4, hp, 0, cml_l2r_ld_128);
        break;
#else
        __trap();
#endif
    case CML_L2R_PREFETCH_256:
#if CML_L2R_SM80
        a = CML_LD_FN(0, CML_CACHE_CA, float4, xp, 0, cml_l2r_ld_256);
        b = CML_LD_FN(1, CML_CACHE_CA, float4, hp, 0, cml_l2r_ld_256);
        break;
#else
        __trap();
#endif
    default: /* none, window: plain */
        a = CML_LD(0, CML_LD_PLAIN, float4, xp, 0);
        b = CML_LD(1, CML_LD_PLAIN, float4, hp, 0);
        break;
    }
    CML_ST(2, CML_ST_PLAIN, op, 0, cml_l2r_add4(a, b));
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>
#include <stdarg.h>
#include <string.h>

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
#endif /* __CUDACC__ */

#endif
