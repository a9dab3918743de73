/*
 * Experiment 22 (cluster-smem): distributed shared memory against L2, in
 * thread-block clusters of 1..16 blocks (cluster_smem_kernels.h has the
 * shapes; cluster_smem.c's mirror emits what these kernels issue per
 * thread: keep them in step). Code for sm_90 only; the host waives the
 * variants a device cannot run.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/cluster_smem/cluster_smem_kernels.h"
#include "gpu/gpu_internal.h"

typedef unsigned long long u64;

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_blocks()
{
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
    return n;
}
/* Every thread of every block of the cluster arrives and waits: what each
 * wrote before is visible to the others after (release / acquire). */
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}
/* The shared::cluster address of the same variable in block `rank`. */
__device__ __forceinline__ unsigned map_rank(unsigned addr, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}
__device__ __forceinline__ uint4 ld_dsmem_v4(unsigned addr)
{
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}
__device__ __forceinline__ unsigned ld_dsmem(unsigned addr)
{
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
    return v;
}
/* L2 only (the L1 would serve the second pass), never hoisted or merged. */
__device__ __forceinline__ uint4 ld_l2_v4(const uint32_t *p)
{
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}
__device__ __forceinline__ unsigned ld_l2(const uint32_t *p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* The bandwidth test's end: the block's checksum into out[blockIdx.x] (lane
 * 0 of each warp stores its warp's sum, warp 0 adds them). */
__device__ __forceinline__ void checksum_epilogue(u64 acc, u64 *out)
{
    __shared__ u64 warp_sums[CML_CL_BLOCK / 32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0)
        warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        u64 v = lane < CML_CL_BLOCK / 32 ? warp_sums[lane] : 0ull;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
#endif

/* Fill, cluster barrier, `passes` reads of all the neighbour's words in
 * 16-byte loads (thread t reads words 4t, 4t + 1024, ...), cluster barrier,
 * checksum. */
template <int SRC>
__global__ void __launch_bounds__(CML_CL_BLOCK)
    cl_bandwidth(uint32_t *copy, u64 *out, u64 seed, unsigned words, unsigned passes)
{
#if __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) uint32_t buf[];
    const unsigned tid = threadIdx.x, rank = cluster_rank(), size = cluster_blocks();
    const unsigned next = rank + 1 == size ? 0 : rank + 1;
    uint32_t *mine = copy + (u64)blockIdx.x * words;
    for (unsigned i = 4 * tid; i < words; i += 4 * CML_CL_BLOCK) {
        const uint4 v = make_uint4(CML_CL_WORD(seed, blockIdx.x, words, i),
                                   CML_CL_WORD(seed, blockIdx.x, words, i + 1),
                                   CML_CL_WORD(seed, blockIdx.x, words, i + 2),
                                   CML_CL_WORD(seed, blockIdx.x, words, i + 3));
        *reinterpret_cast<uint4 *>(buf + i) = v;
        *reinterpret_cast<uint4 *>(mine + i) = v;
    }
    cluster_sync();
    u64 acc = 0;
    if (SRC == CML_CL_DSMEM) {
        const unsigned remote = map_rank(smem_addr(buf), next);
        for (unsigned p = 0; p < passes; p++)
            for (unsigned i = 4 * tid; i < words; i += 4 * CML_CL_BLOCK) {
                const uint4 v = ld_dsmem_v4(remote + 4 * i);
                acc += (u64)v.x + v.y + v.z + v.w;
            }
    } else {
        const uint32_t *theirs = copy + (u64)(blockIdx.x - rank + next) * words;
        for (unsigned p = 0; p < passes; p++)
            for (unsigned i = 4 * tid; i < words; i += 4 * CML_CL_BLOCK) {
                const uint4 v = ld_l2_v4(theirs + i);
                acc += (u64)v.x + v.y + v.z + v.w;
            }
    }
    cluster_sync(); /* the neighbour's shared memory stays until every reader is done */
    checksum_epilogue(acc, out);
#else
    (void)copy, (void)out, (void)seed, (void)words, (void)passes;
#endif
}

/* Fill from the chain (each entry tagged with this block's index), cluster
 * barrier, thread 0 chases `steps` entries of the neighbour's copy timed
 * with clock64, cluster barrier. */
template <int SRC>
__global__ void __launch_bounds__(CML_CL_BLOCK)
    cl_latency(uint32_t *copy, u64 *out, const uint32_t *__restrict__ chain, unsigned words,
               unsigned steps)
{
#if __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) uint32_t buf[];
    const unsigned tid = threadIdx.x, rank = cluster_rank(), size = cluster_blocks();
    const unsigned next = rank + 1 == size ? 0 : rank + 1;
    const uint32_t tag = (uint32_t)blockIdx.x << CML_CL_TAG_SHIFT;
    uint32_t *mine = copy + (u64)blockIdx.x * words;
    for (unsigned i = 4 * tid; i < words; i += 4 * CML_CL_BLOCK) {
        uint4 v = __ldg(reinterpret_cast<const uint4 *>(chain + i));
        v.x |= tag, v.y |= tag, v.z |= tag, v.w |= tag;
        *reinterpret_cast<uint4 *>(buf + i) = v;
        *reinterpret_cast<uint4 *>(mine + i) = v;
    }
    cluster_sync();
    if (tid == 0) {
        const unsigned mask = (1u << CML_CL_TAG_SHIFT) - 1u;
        unsigned idx = 0, e = 0;
        long long t0, t1;
        if (SRC == CML_CL_DSMEM) {
            const unsigned remote = map_rank(smem_addr(buf), next);
            t0 = clock64();
            for (unsigned k = 0; k < steps; k++) {
                e = ld_dsmem(remote + 4 * idx);
                idx = e & mask;
            }
            t1 = clock64();
        } else {
            const uint32_t *theirs = copy + (u64)(blockIdx.x - rank + next) * words;
            t0 = clock64();
            for (unsigned k = 0; k < steps; k++) {
                e = ld_l2(theirs + idx);
                idx = e & mask;
            }
            t1 = clock64();
        }
        out[2 * blockIdx.x] = e;
        out[2 * blockIdx.x + 1] = (u64)(t1 - t0);
    }
    cluster_sync();
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
