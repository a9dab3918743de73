/*
 * Experiment 22 (cluster-smem): distributed shared memory against L2, in
 * thread-block clusters of 1..16 blocks.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * shapes and the launch arguments the kernels, the model's mirror
 * (cluster_smem.c) and the tests share, the launchers' prototypes (extern
 * "C", callable from C), the kernels' per-thread bodies, which the C
 * compiler makes the model's mirror, and under __CUDACC__ the kernels and
 * their launchers, which nvcc compiles through the file the build generates
 * for the folder (cmake/experiments.cmake). Code for sm_90 only: below it
 * the kernels are empty, and the host waives the variants a device cannot
 * run.
 *
 * Every kernel runs blocks of CML_CL_BLOCK threads in thread-block clusters
 * of `cluster` blocks along x (block rank r = blockIdx.x % cluster). Each
 * block fills its shared memory (`words` 32-bit words) and writes the same
 * words to its slice of `copy` in global memory, the cluster synchronises,
 * and each block reads its neighbour's (rank r+1, wrapping) words, either
 * through distributed shared memory or from the neighbour's global slice
 * (ld.global.cg: from L2, which holds it, just written). A second cluster
 * barrier keeps every block's shared memory alive until its reader is done.
 *
 * The bodies walk a block's words in rounds of 4 * CML_CL_BLOCK (thread t:
 * the 16 bytes at word 4t of each round), over the words [first, end): the
 * kernels walk all of them (0, words), the mirror one round at a time
 * (cluster_smem.c traces each round of each block as a block of its own).
 * Sites:
 *   0  latency fill: the 16-byte __ldg of chain[i]
 *   1  fill: the 16-byte shared store at word i
 *   2  fill: the same 16 bytes stored at copy[b * words + i]
 *   3  bandwidth, global source, every pass: the 16-byte ld.global.cg of the
 *      neighbour's copy[nb * words + i]
 *   4  bandwidth, dsmem source, every pass: the 16-byte ld.shared::cluster of
 *      the neighbour's word i (emits nothing: gpu/kernel_body.h says why)
 *   5, 6, 7  bandwidth end: lane 0 of each warp stores its warp's 8-byte sum
 *      at 8 * warp, warp 0's lanes 0..7 load them, thread 0 stores out[b]
 *   8  latency, dsmem: thread 0's dependent 4-byte ld.shared::cluster (emits
 *      nothing)
 *   9  latency, global: thread 0's dependent 4-byte ld.global.cg
 *   10, 11  latency end: thread 0 stores out[2b] and out[2b + 1]
 * where nb is the neighbour, rank (b % cluster) + 1 wrapping.
 */
#ifndef CML_CLUSTER_SMEM_BODY_H
#define CML_CLUSTER_SMEM_BODY_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/kernel_body_async.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_cl_source {
    CML_CL_DSMEM = 0, /* mapa + ld.shared::cluster into the neighbour's shared memory */
    CML_CL_GLOBAL,    /* ld.global.cg of the neighbour's global slice (L2)            */
    CML_CL_SOURCE_COUNT
} cml_cl_source;

typedef enum cml_cl_test {
    CML_CL_BANDWIDTH = 0, /* every thread: 16-byte loads of all the neighbour's words,
                             `passes` times, summed into a checksum             */
    CML_CL_LATENCY,       /* thread 0: a chase of `steps` dependent 4-byte loads  */
    CML_CL_TEST_COUNT
} cml_cl_test;

#define CML_CL_BLOCK 256u
#define CML_CL_MAX_CLUSTER 16u /* 8 is portable; 16 needs the non-portable attribute */
/* The chase's entries: the next word's index in the low 16 bits, the block
 * that owns the word above them, so the last entry read names whose shared
 * memory the chase walked. */
#define CML_CL_TAG_SHIFT 16u

/* Word i of block b's data in the bandwidth test: never all zeros, and the
 * host recomputes it (core/random.h). */
#define CML_CL_WORD(seed, b, words, i) cml_random_u32((seed), (uint64_t)(b) * (words) + (i))

typedef struct cml_cluster_launch_args {
    uint32_t *copy;          /* grid * words: each block's words in global memory */
    unsigned long long *out; /* bandwidth: one checksum per block; latency: per block
                                the last entry read and the chase's clock64 cycles */
    const uint32_t *chain;   /* latency: `words` entries, one cycle (host-made) */
    uint64_t seed;           /* bandwidth: the words' seed */
    unsigned grid, cluster;  /* blocks (a multiple of cluster), blocks per cluster */
    unsigned words;          /* per block: a multiple of 4 * CML_CL_BLOCK, <= 65536 */
    unsigned passes, steps;  /* bandwidth: reads of the neighbour's words; latency: loads */
    int test, source;        /* cml_cl_test, cml_cl_source */
} cml_cluster_launch_args;

/* The __global__ function of a test and source; NULL for none. */
CML_LAUNCHER const void *cml_cluster_kernel(int test, int source);
/* What the device allows for a's kernel, block and shared memory: the
 * largest cluster (*max_cluster, with non-portable sizes allowed, an
 * attribute this sets for good, like the dynamic shared memory limit) and
 * how many clusters of a->cluster blocks can be resident at once
 * (*active: 0 when the size is above the largest, minus the CUDA error when
 * cudaOccupancyMaxActiveClusters refuses the configuration). Errors of the
 * other calls name the call. */
CML_LAUNCHER cml_status cml_cluster_limits(const cml_cluster_launch_args *a, int *max_cluster,
                                           int *active);
/* Launch (cudaLaunchKernelEx with the cluster dimension attribute,
 * asynchronously); the launch status is checked. CML_EINVAL for arguments
 * outside the shapes above. */
CML_LAUNCHER cml_status cml_cluster_launch(void *args);

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__)
/* L2 only (the L1 would serve the second pass), never hoisted or merged:
 * the global source's loads (CML_LD_FN). */
__device__ __forceinline__ uint4 cml_cl_ld_l2_v4(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}
__device__ __forceinline__ unsigned cml_cl_ld_l2(const uint32_t *p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}
#endif

/*
 * The bandwidth test: fill, cluster barrier, `passes` reads of all the
 * neighbour's words in 16-byte loads (thread t reads words 4t, 4t + 1024,
 * ...), cluster barrier, the block's checksum into out[blockIdx.x] (lane 0
 * of each warp stores its warp's sum, warp 0 adds them). buf is the block's
 * dynamic shared memory; SRC a cml_cl_source (a constant in each kernel);
 * cluster the cluster's size, for the mirror (the kernel reads its own).
 */
CML_BODY void cml_cl_bandwidth_body(CML_CTX, uint32_t *buf, uint32_t *copy,
                                    unsigned long long *out, uint64_t seed, unsigned words,
                                    unsigned passes, unsigned first, unsigned end,
                                    unsigned cluster, int SRC)
{
    const unsigned tid = CML_TID_X, rank = CML_CLUSTER_RANK(CML_BID_X % cluster),
                   size = CML_CLUSTER_SIZE(cluster);
    const unsigned next = rank + 1 == size ? 0 : rank + 1;
    uint32_t *mine = copy + (uint64_t)CML_BID_X * words;
    for (unsigned i = first + 4 * tid; i < end; i += 4 * CML_CL_BLOCK) {
        const uint4 v = make_uint4(CML_CL_WORD(seed, CML_BID_X, words, i),
                                   CML_CL_WORD(seed, CML_BID_X, words, i + 1),
                                   CML_CL_WORD(seed, CML_BID_X, words, i + 2),
                                   CML_CL_WORD(seed, CML_BID_X, words, i + 3));
        CML_STS(1, (uint4 *)(buf + i), 0, v);
        CML_ST(2, CML_ST_PLAIN, (uint4 *)(mine + i), 0, v);
    }
    CML_CLUSTER_SYNC();
    unsigned long long acc = 0;
    if (SRC == CML_CL_DSMEM) {
        const unsigned remote = CML_CLUSTER_MAP(CML_SHARED_SPACE(buf), next);
        for (unsigned p = 0; p < passes; p++)
            for (unsigned i = first + 4 * tid; i < end; i += 4 * CML_CL_BLOCK) {
                const uint4 v = CML_LDS_CLUSTER(4, uint4, remote + 4 * i);
                acc += (unsigned long long)v.x + v.y + v.z + v.w;
            }
    } else {
        const uint32_t *theirs = copy + (uint64_t)(CML_BID_X - rank + next) * words;
        for (unsigned p = 0; p < passes; p++)
            for (unsigned i = first + 4 * tid; i < end; i += 4 * CML_CL_BLOCK) {
                const uint4 v = CML_LD_FN(3, CML_CACHE_CG, uint4, (const uint4 *)(theirs + i), 0,
                                          cml_cl_ld_l2_v4);
                acc += (unsigned long long)v.x + v.y + v.z + v.w;
            }
    }
    CML_CLUSTER_SYNC(); /* the neighbour's shared memory stays until every reader is done */
    CML_SHARED_ARRAY(unsigned long long, warp_sums, CML_CL_BLOCK / 32, 0);
    const unsigned lane = CML_TID_X & 31u, warp = CML_TID_X >> 5;
    for (int o = 16; o > 0; o >>= 1)
        acc += CML_SHFL_DOWN(0xffffffffu, acc, o);
    if (lane == 0)
        CML_STS(5, warp_sums, warp, acc);
    CML_SYNC();
    if (warp == 0) {
        unsigned long long v =
            lane < CML_CL_BLOCK / 32 ? CML_LDS(6, unsigned long long, warp_sums, lane) : 0ull;
        for (int o = 16; o > 0; o >>= 1)
            v += CML_SHFL_DOWN(0xffffffffu, v, o);
        if (lane == 0)
            CML_ST(7, CML_ST_PLAIN, out, CML_BID_X, v);
    }
}

/*
 * The latency test: fill from the chain (each entry tagged with this
 * block's index), cluster barrier, thread 0 chases `steps` entries of the
 * neighbour's copy timed with clock64 and stores the last entry and the
 * cycles, cluster barrier. Arguments as for the bandwidth body.
 */
CML_BODY void cml_cl_latency_body(CML_CTX, uint32_t *buf, uint32_t *copy,
                                  unsigned long long *out, const uint32_t *chain,
                                  unsigned words, unsigned steps, unsigned first, unsigned end,
                                  unsigned cluster, int SRC)
{
    const unsigned tid = CML_TID_X, rank = CML_CLUSTER_RANK(CML_BID_X % cluster),
                   size = CML_CLUSTER_SIZE(cluster);
    const unsigned next = rank + 1 == size ? 0 : rank + 1;
    const uint32_t tag = (uint32_t)CML_BID_X << CML_CL_TAG_SHIFT;
    uint32_t *mine = copy + (uint64_t)CML_BID_X * words;
    for (unsigned i = first + 4 * tid; i < end; i += 4 * CML_CL_BLOCK) {
        uint4 v = CML_LD(0, CML_LD_NC, uint4, (const uint4 *)(chain + i), 0);
        v.x |= tag, v.y |= tag, v.z |= tag, v.w |= tag;
        CML_STS(1, (uint4 *)(buf + i), 0, v);
        CML_ST(2, CML_ST_PLAIN, (uint4 *)(mine + i), 0, v);
    }
    CML_CLUSTER_SYNC();
    if (tid == 0) {
        const unsigned mask = (1u << CML_CL_TAG_SHIFT) - 1u;
        unsigned idx = 0, e = 0;
        long long t0, t1;
        if (SRC == CML_CL_DSMEM) {
            const unsigned remote = CML_CLUSTER_MAP(CML_SHARED_SPACE(buf), next);
            t0 = CML_CLOCK64();
            for (unsigned k = 0; k < steps; k++) {
                e = CML_LDS_CLUSTER(8, unsigned, remote + 4 * idx);
                idx = e & mask;
            }
            t1 = CML_CLOCK64();
        } else {
            const uint32_t *theirs = copy + (uint64_t)(CML_BID_X - rank + next) * words;
            t0 = CML_CLOCK64();
            for (unsigned k = 0; k < steps; k++) {
                e = CML_LD_FN(9, CML_CACHE_CG, unsigned, theirs, idx, cml_cl_ld_l2);
                idx = e & mask;
            }
            t1 = CML_CLOCK64();
        }
        CML_ST(10, CML_ST_PLAIN, out, 2 * CML_BID_X, e);
        CML_ST(11, CML_ST_PLAIN, out, 2 * CML_BID_X + 1, (unsigned long long)(t1 - t0));
    }
    CML_CLUSTER_SYNC();
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

typedef unsigned long long u64;

template <int SRC>
__global__ void __launch_bounds__(CML_CL_BLOCK)
    cl_bandwidth(uint32_t *copy, u64 *out, u64 seed, unsigned words, unsigned passes)
{
#if __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) uint32_t buf[];
    cml_cl_bandwidth_body(CML_KERNEL_CTX, buf, copy, out, seed, words, passes, 0, words, 0,
                          SRC);
#else
    (void)copy, (void)out, (void)seed, (void)words, (void)passes;
#endif
}

template <int SRC>
__global__ void __launch_bounds__(CML_CL_BLOCK)
    cl_latency(uint32_t *copy, u64 *out, const uint32_t *__restrict__ chain, unsigned words,
               unsigned steps)
{
#if __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) uint32_t buf[];
    cml_cl_latency_body(CML_KERNEL_CTX, buf, copy, out, chain, words, steps, 0, words, 0, SRC);
#else
    (void)copy, (void)out, (void)chain, (void)words, (void)steps;
#endif
}

typedef void (*bw_kernel)(uint32_t *, u64 *, u64, unsigned, unsigned);
typedef void (*lat_kernel)(uint32_t *, u64 *, const uint32_t *, unsigned, unsigned);

static const bw_kernel bw_kernels[CML_CL_SOURCE_COUNT] = {cl_bandwidth<CML_CL_DSMEM>,
                                                          cl_bandwidth<CML_CL_GLOBAL>};
static const lat_kernel lat_kernels[CML_CL_SOURCE_COUNT] = {cl_latency<CML_CL_DSMEM>,
                                                            cl_latency<CML_CL_GLOBAL>};

extern "C" const void *cml_cluster_kernel(int test, int source)
{
    if (source < 0 || source >= CML_CL_SOURCE_COUNT)
        return NULL;
    if (test == CML_CL_BANDWIDTH)
        return (const void *)bw_kernels[source];
    if (test == CML_CL_LATENCY)
        return (const void *)lat_kernels[source];
    return NULL;
}

/* A launch configuration for a's grid, block, shared memory and cluster. */
static void config_of(const cml_cluster_launch_args *a, unsigned grid, cudaLaunchConfig_t *cfg,
                      cudaLaunchAttribute *attr)
{
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = dim3(grid, 1, 1);
    cfg->blockDim = dim3(CML_CL_BLOCK, 1, 1);
    cfg->dynamicSmemBytes = (size_t)a->words * sizeof(uint32_t);
    cfg->stream = 0;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = a->cluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

extern "C" cml_status cml_cluster_limits(const cml_cluster_launch_args *a, int *max_cluster,
                                         int *active)
{
    const void *k = cml_cluster_kernel(a->test, a->source);
    if (!k || a->cluster == 0 || a->words == 0)
        return CML_EINVAL;
    int dev = 0, optin = 0;
    CML_CU(cudaGetDevice(&dev));
    CML_CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaFuncAttributes fa;
    CML_CU(cudaFuncGetAttributes(&fa, k));
    CML_CU(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CML_CU(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                optin - (int)fa.sharedSizeBytes));
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    config_of(a, a->cluster, &cfg, &attr);
    cfg.numAttrs = 0; /* the largest cluster of this configuration, whatever its size */
    *max_cluster = 0;
    *active = 0;
    CML_CU(cudaOccupancyMaxPotentialClusterSize(max_cluster, k, &cfg));
    if ((int)a->cluster > *max_cluster)
        return CML_OK;
    cfg.numAttrs = 1;
    /* A size the calculator refuses is an answer, not a failure: the error
     * (negated) says why, and is cleared so that no later check sees it. */
    const cudaError_t e = cudaOccupancyMaxActiveClusters(active, k, &cfg);
    if (e != cudaSuccess) {
        *active = -(int)e;
        (void)cudaGetLastError();
    }
    return CML_OK;
}

extern "C" cml_status cml_cluster_launch(void *vctx)
{
    const cml_cluster_launch_args *a = (const cml_cluster_launch_args *)vctx;
    if (a->cluster == 0 || a->cluster > CML_CL_MAX_CLUSTER || a->grid == 0 ||
        a->grid % a->cluster || a->words == 0 || a->words % (4 * CML_CL_BLOCK) ||
        a->words > (1u << CML_CL_TAG_SHIFT) || !a->copy || !a->out ||
        a->source < 0 || a->source >= CML_CL_SOURCE_COUNT ||
        (a->test == CML_CL_LATENCY && !a->chain))
        return CML_EINVAL;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    config_of(a, a->grid, &cfg, &attr);
    if (a->test == CML_CL_BANDWIDTH)
        CML_CU(cudaLaunchKernelEx(&cfg, bw_kernels[a->source], a->copy, a->out, a->seed, a->words,
                                  a->passes));
    else if (a->test == CML_CL_LATENCY)
        CML_CU(cudaLaunchKernelEx(&cfg, lat_kernels[a->source], a->copy, a->out, a->chain,
                                  a->words, a->steps));
    else
        return CML_EINVAL;
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
