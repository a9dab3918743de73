/*
 * Experiment 19's kernel and the device-wide L2 controls it needs (extern
 * "C" from l2_residency.cu, callable from C), and the hot-chunk hash the
 * kernel, the mirror and every checker share.
 *
 * The kernel, one float4 per thread i < nv (i = blockIdx.x*blockDim.x +
 * threadIdx.x, warp w = i / 32, lane = i % 32):
 *     out[i] = x[i] + h[32 * chunk(w) + lane]          (float4, __fadd_rn)
 * x and out stream through DRAM once per launch; h, the hot set, is read in
 * whole aligned 512-byte chunks, one per warp, chosen by a hash: over a
 * launch every chunk is read about nv / (32 x chunks) times, at random, so
 * whether a chunk is still in L2 when it is read again is what the access
 * policy window and the eviction hints decide (docs/experiments/l2-residency.md).
 */
#ifndef CML_L2_RESIDENCY_KERNELS_H
#define CML_L2_RESIDENCY_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

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
#endif
