/*
 * Access macros of kernel_body.h for thread-block clusters (sm_90) and
 * asynchronous copies into shared memory (cp.async, sm_80; the bulk and
 * tensor copies, sm_90), in a header of their own: only cluster-smem and
 * async-copy use them, and kernel_body.h stays the common vocabulary.
 * The two halves are kernel_body.h's: under __CUDACC__ the instruction the
 * kernel issued before (the exact PTX), else what the model's mirror emits
 * for it (kernel_body.h says how the two compilations stay one kernel).
 */
#ifndef CML_GPU_KERNEL_BODY_ASYNC_H
#define CML_GPU_KERNEL_BODY_ASYNC_H

#include "gpu/kernel_body.h"

#if defined(__CUDACC__)
/* ---- the kernel ------------------------------------------------------- */

/* ---- clusters (experiments/cluster_smem/cluster_smem_body.h) --------- */

/* Thread-block clusters (sm_90; cluster-smem's kernels read the shared
 * memory of another block of their cluster): the block's rank in its
 * cluster and the cluster's size (%cluster_ctarank, %cluster_nctarank),
 * the barrier of every thread of the cluster's blocks (what each wrote
 * before, shared memory included, is visible to all after: release,
 * acquire), the shared::cluster address of the same shared
 * variable in block `rank` (mapa; `a` a shared-space address,
 * CML_SHARED_SPACE) and a load from such an address (ld.shared::cluster,
 * distributed shared memory, over the SM-to-SM network). T is unsigned or
 * uint4 (4 or 16 bytes). A cml_thread has no cluster, so the body names the
 * rank and size the mirror is to use (the kernel ignores them), as CML_LDV
 * names a loaded value. The model has no class for distributed shared
 * memory (neither the block's shared memory nor L1 and L2 see it): the
 * mirror emits nothing for CML_LDS_CLUSTER, and an experiment reports those
 * bytes itself. Below sm_90 the instructions do not exist: there these
 * trap, and a kernel must not reach them (its __global__ function guards
 * by architecture). */
#define CML_CLUSTER_RANK(mirror_rank) cml_body_cluster_rank()
#define CML_CLUSTER_SIZE(mirror_size) cml_body_cluster_size()
#define CML_CLUSTER_SYNC() cml_body_cluster_sync()
#define CML_CLUSTER_MAP(a, rank) cml_body_cluster_map((a), (rank))
#define CML_LDS_CLUSTER(site, T, a) ((void)(site), cml_body_ld_cluster<T>(a))

static __device__ __forceinline__ unsigned cml_body_cluster_rank()
{
#if __CUDA_ARCH__ >= 900
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
#else
    __trap();
    return 0;
#endif
}
static __device__ __forceinline__ unsigned cml_body_cluster_size()
{
#if __CUDA_ARCH__ >= 900
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
    return n;
#else
    __trap();
    return 0;
#endif
}
static __device__ __forceinline__ void cml_body_cluster_sync()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
#else
    __trap();
#endif
}
static __device__ __forceinline__ unsigned cml_body_cluster_map(unsigned a, unsigned rank)
{
#if __CUDA_ARCH__ >= 900
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(rank));
    return r;
#else
    (void)a, (void)rank;
    __trap();
    return 0;
#endif
}
template <typename T> static __device__ __forceinline__ T cml_body_ld_cluster(unsigned a);
template <> __device__ __forceinline__ unsigned cml_body_ld_cluster<unsigned>(unsigned a)
{
#if __CUDA_ARCH__ >= 900
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];\n" : "=r"(v) : "r"(a) : "memory");
    return v;
#else
    (void)a;
    __trap();
    return 0;
#endif
}
template <> __device__ __forceinline__ uint4 cml_body_ld_cluster<uint4>(unsigned a)
{
#if __CUDA_ARCH__ >= 900
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(a)
                 : "memory");
    return v;
#else
    (void)a;
    __trap();
    return make_uint4(0, 0, 0, 0);
#endif
}

/* The SM's cycle counter (clock64), to time a stretch of the kernel from
 * inside it; the mirror's is 0. */
#define CML_CLOCK64() clock64()

/* ---- asynchronous copies (experiments/async_copy/async_copy_body.h) ---- */

/* Asynchronous copies into shared memory (sm_80, sm_90; async-copy's
 * kernels stage their tiles with them: the PTX is what they issued before
 * their bodies were written once):
 *  - CML_CP_ASYNC(site_ld, site_st, cache, W, a, p, i): cp.async (LDGSTS)
 *    of W bytes (4, 8 or 16) from global p + i to shared-space address a
 *    (CML_SHARED_SPACE), .ca (cache CML_CACHE_CA) or .cg (CML_CACHE_CG,
 *    16 bytes only); no register holds the data. The mirror emits what it
 *    moves: a W-byte global load with `cache` (site_ld) and a W-byte shared
 *    store (site_st). The LSU counters count an LDGSTS's global side as a
 *    load (l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_ld: equal to
 *    a load's on an H100) but its shared side as no store, so a mirror
 *    that reports their figures keeps site_ld and leaves site_st out
 *    (CML_MIRROR_CTX_SITES);
 *  - CML_CP_ASYNC_COMMIT(): closes this thread's group of copies;
 *    CML_CP_ASYNC_WAIT(n): waits until at most n of its groups are pending
 *    (n a constant of the kernel, 0..7);
 *  - mbarriers by shared-space address (sm_90): CML_MBAR_INIT(a, count),
 *    CML_MBAR_FENCE_INIT() (the initialised barriers visible to the async
 *    proxy, the TMA unit), CML_MBAR_EXPECT_TX(a, bytes) (one arrival that
 *    expects `bytes` of transactions in the current phase), CML_MBAR_WAIT(a,
 *    parity) (until the phase of that parity has completed), and
 *    CML_FENCE_PROXY_ASYNC() (this thread's shared-memory accesses ordered
 *    before later async-proxy ones);
 *  - the Tensor Memory Accelerator (sm_90): CML_CP_ASYNC_BULK(site, a, p,
 *    i, bytes, bar) copies `bytes` (a multiple of 16) from global p + i to
 *    shared address a, and CML_CP_ASYNC_TENSOR_2D(site, a, map, c0, c1,
 *    bar, p, i, row_bytes, rows, pitch) the box at (c0, c1) of the tensor
 *    map at `map` (the address of a __grid_constant__ CUtensorMap), each
 *    completing on the mbarrier at shared address bar. The map is opaque
 *    to the mirror, so the body names the box's global side for it (the
 *    kernel ignores it): `rows` runs of `row_bytes` from p + i, `pitch`
 *    bytes apart. One thread's instruction moves a whole tile with no
 *    load or store of any thread: no LSU class counts it, but L2 serves
 *    it. The mirror emits, at `site`, one 16-byte global load of cache
 *    CML_CACHE_BULK per 32-byte sector the copy touches (a sector is read
 *    from L2 whole: the sectors touched are what L2 sees; the 16 bytes
 *    only keep the emission within the model's widths).
 * The mirror has no group, barrier or phase: but for the copies, these
 * are nothing there (their arguments evaluated). Below the architecture
 * they need they trap: a kernel must not reach them (its __global__
 * function guards by architecture). */
#define CML_CP_ASYNC(site_ld, site_st, cache, W, a, p, i)                                    \
    ((void)(site_ld), (void)(site_st), cml_body_cp_async((cache), (W), (a), (p) + (i)))
#define CML_CP_ASYNC_COMMIT() cml_body_cp_async_commit()
#define CML_CP_ASYNC_WAIT(n) cml_body_cp_async_wait(n)
#define CML_MBAR_INIT(a, count) cml_body_mbar_init((a), (count))
#define CML_MBAR_FENCE_INIT() cml_body_mbar_fence_init()
#define CML_MBAR_EXPECT_TX(a, bytes) cml_body_mbar_expect_tx((a), (bytes))
#define CML_MBAR_WAIT(a, parity) cml_body_mbar_wait((a), (parity))
#define CML_FENCE_PROXY_ASYNC() cml_body_fence_proxy_async()
#define CML_CP_ASYNC_BULK(site, a, p, i, bytes, bar)                                         \
    ((void)(site), cml_body_cp_async_bulk((a), (p) + (i), (bytes), (bar)))
#define CML_CP_ASYNC_TENSOR_2D(site, a, map, c0, c1, bar, p, i, row_bytes, rows, pitch)      \
    ((void)(site), (void)(p), (void)(i), (void)(row_bytes), (void)(rows), (void)(pitch),     \
     cml_body_cp_async_tensor_2d((a), (map), (c0), (c1), (bar)))

static __device__ __forceinline__ void cml_body_cp_async(cml_cache cache, unsigned W,
                                                         unsigned dst, const void *src)
{
#if __CUDA_ARCH__ >= 800
    if (cache == CML_CACHE_CG)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    else if (W == 4)
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(4)
                     : "memory");
    else if (W == 8)
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(8)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(16)
                     : "memory");
#else
    (void)cache, (void)W, (void)dst, (void)src;
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#else
    __trap();
#endif
}
/* The count is an immediate of the instruction: one asm per value, of
 * which the kernel's constant keeps one. */
static __device__ __forceinline__ void cml_body_cp_async_wait(unsigned n)
{
#if __CUDA_ARCH__ >= 800
    switch (n) {
    case 0: asm volatile("cp.async.wait_group %0;\n" ::"n"(0) : "memory"); break;
    case 1: asm volatile("cp.async.wait_group %0;\n" ::"n"(1) : "memory"); break;
    case 2: asm volatile("cp.async.wait_group %0;\n" ::"n"(2) : "memory"); break;
    case 3: asm volatile("cp.async.wait_group %0;\n" ::"n"(3) : "memory"); break;
    case 4: asm volatile("cp.async.wait_group %0;\n" ::"n"(4) : "memory"); break;
    case 5: asm volatile("cp.async.wait_group %0;\n" ::"n"(5) : "memory"); break;
    case 6: asm volatile("cp.async.wait_group %0;\n" ::"n"(6) : "memory"); break;
    default: asm volatile("cp.async.wait_group %0;\n" ::"n"(7) : "memory"); break;
    }
#else
    (void)n;
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_mbar_init(unsigned bar, unsigned count)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
    (void)bar, (void)count;
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_mbar_fence_init()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#else
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_mbar_expect_tx(unsigned bar, unsigned bytes)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
#else
    (void)bar, (void)bytes;
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_mbar_wait(unsigned bar, unsigned parity)
{
#if __CUDA_ARCH__ >= 900
    unsigned done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
#else
    (void)bar, (void)parity;
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_fence_proxy_async()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_cp_async_bulk(unsigned dst, const void *src,
                                                              unsigned bytes, unsigned bar)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];\n" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
#else
    (void)dst, (void)src, (void)bytes, (void)bar;
    __trap();
#endif
}
static __device__ __forceinline__ void cml_body_cp_async_tensor_2d(unsigned dst, const void *map,
                                                                   int c0, int c1, unsigned bar)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
#else
    (void)dst, (void)map, (void)c0, (void)c1, (void)bar;
    __trap();
#endif
}

#else
/* ---- the mirror ------------------------------------------------------- */

/* ---- clusters --------------------------------------------------------- */

/* Thread-block clusters: the rank and size the body names for the mirror;
 * the barrier is none (the model runs each thread to its end), the mapped
 * address the address itself, and a load of distributed shared memory
 * emits nothing (no class of the model counts it: see the kernel's side).
 * Its site and address are evaluated. */
#define CML_CLUSTER_RANK(mirror_rank) ((unsigned)(mirror_rank))
#define CML_CLUSTER_SIZE(mirror_size) ((unsigned)(mirror_size))
#define CML_CLUSTER_SYNC() ((void)0)
#define CML_CLUSTER_MAP(a, rank) ((void)(rank), (unsigned)(a))
#define CML_LDS_CLUSTER(site, T, a) ((void)(site), (void)(a), (T){0})

#define CML_CLOCK64() ((long long)0)

/* ---- asynchronous copies ---------------------------------------------- */

/* Asynchronous copies (see the kernel's side): cp.async as the global load
 * and the shared store it makes, each with its site; the copy engine's as
 * the sectors it reads (cml_body_bulk_read); the rest nothing. */
#define CML_CP_ASYNC(site_ld, site_st, cache, W, a, p, i)                                    \
    (cml_body_emit(cml_ctx_, (site_ld), CML_SPACE_GLOBAL, CML_OP_LOAD, (cache), (W),         \
                   CML_ADDR((p) + (i))),                                                     \
     cml_body_emit(cml_ctx_, (site_st), CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, (W),   \
                   (uint64_t)(a)))
#define CML_CP_ASYNC_COMMIT() ((void)0)
#define CML_CP_ASYNC_WAIT(n) ((void)(n))
#define CML_MBAR_INIT(a, count) ((void)(a), (void)(count))
#define CML_MBAR_FENCE_INIT() ((void)0)
#define CML_MBAR_EXPECT_TX(a, bytes) ((void)(a), (void)(bytes))
#define CML_MBAR_WAIT(a, parity) ((void)(a), (void)(parity))
#define CML_FENCE_PROXY_ASYNC() ((void)0)
#define CML_CP_ASYNC_BULK(site, a, p, i, bytes, bar)                                         \
    ((void)(a), (void)(bar),                                                                 \
     cml_body_bulk_read(cml_ctx_, (site), CML_ADDR((p) + (i)), (bytes), 1u, 0u))
#define CML_CP_ASYNC_TENSOR_2D(site, a, map, c0, c1, bar, p, i, row_bytes, rows, pitch)      \
    ((void)(a), (void)(map), (void)(c0), (void)(c1), (void)(bar),                            \
     cml_body_bulk_read(cml_ctx_, (site), CML_ADDR((p) + (i)), (row_bytes), (rows), (pitch)))

/* The copy engine's global side: `rows` runs of `bytes` from `addr`, each
 * `pitch` bytes after the one before (16-byte aligned, as PTX requires),
 * as one 16-byte CML_CACHE_BULK load per 32-byte sector a run touches:
 * at the sector's start, or at the run's where it starts inside one. */
static inline void cml_body_bulk_read(cml_ctx c, unsigned site, uint64_t addr, uint64_t bytes,
                                      unsigned rows, uint64_t pitch)
{
    for (unsigned r = 0; r < rows; r++) {
        const uint64_t lo = addr + r * pitch, hi = lo + bytes;
        for (uint64_t s = lo & ~(uint64_t)(CML_SECTOR_BYTES - 1u); s < hi; s += CML_SECTOR_BYTES)
            cml_body_emit(c, site, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_BULK, 16u,
                          s > lo ? s : lo);
    }
}

#endif /* __CUDACC__ */
#endif
