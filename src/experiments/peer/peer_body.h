/*
 * Experiment 23 (memory over the link between two GPUs): its kernels,
 * written once (gpu/kernel_body.h). A kernel on GPU `gpu` moves data
 * between its own memory and GPU `peer`'s through peer access: a pull
 * (op=read) loads the peer's array with the pattern and stores its own
 * contiguously, a push (op=write) loads its own contiguously and stores the
 * peer's array with the pattern. Thread i touches element k = i*stride +
 * offset of the patterned (remote) array and element i of the local one.
 * Elements are 4, 8 or 16 bytes (float, float2, float4), one per thread.
 *
 * Under __CUDACC__: the kernels, one per width, direction and load path;
 * the launchers (a kernel, the copy engine's cudaMemcpyPeerAsync, either
 * one on both GPUs at once), the device and peer-access helpers, and the
 * checker, which recomputes every element of the destination from the
 * counter-based random source (core/random.h).
 */
#ifndef CML_PEER_BODY_H
#define CML_PEER_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model's mirror of a kernel (peer.c), and its arguments. */
typedef struct cml_peer_args {
    uint64_t threads, stride, offset;
    unsigned elem;   /* 4, 8 or 16 */
    unsigned ilp;    /* elements per thread: 1, 2, 4 or 8 */
    unsigned passes; /* times the array is moved */
    unsigned grid;   /* blocks (cml_peer_grid) */
    int push;        /* 0: pull (remote loads), 1: push (remote stores) */
    cml_cache cache; /* the remote loads' path (pull) */
} cml_peer_args;

void cml_peer_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* Blocks of a kernel of `block` threads: one pass covers `threads`
 * elements, `ilp` per thread; more passes use at most `resident` blocks
 * (what the SMs hold at once), each walking the array. */
static inline unsigned cml_peer_grid(uint64_t threads, unsigned ilp, unsigned block,
                                     unsigned passes, uint64_t resident)
{
    const uint64_t per_block = (uint64_t)ilp * block;
    uint64_t g = (threads + per_block - 1) / per_block;
    if (passes > 1 && resident && g > resident)
        g = resident;
    return (unsigned)(g ? g : 1);
}

/* One side of a transfer: the GPU that runs it and its arrays. `src` and
 * `dst` are device pointers on either GPU (peer access makes the remote one
 * reachable); for the copy engine, src_dev and dst_dev name their GPUs. */
typedef struct cml_peer_side {
    int runner, src_dev, dst_dev;
    const void *src;
    void *dst;
} cml_peer_side;

enum { CML_PEER_MAX_SIDES = 2 };

typedef struct cml_peer_launch_args {
    cml_peer_side side[CML_PEER_MAX_SIDES]; /* side[0] runs on the current GPU */
    unsigned nsides;                         /* 1: one direction, 2: both at once */
    int ce;                                  /* 1: cudaMemcpyPeerAsync, 0: a kernel */
    int push, path;                          /* kernel: direction, load path (0 ca, 1 cg) */
    unsigned elem, block, ilp, passes, grid; /* grid: cml_peer_grid */
    uint64_t threads, stride, offset;
    /* both at once: side[1] starts after `go` (recorded on side 0's GPU)
     * and side 0's stream waits for `done` (recorded on side 1's GPU), so
     * side 0's events time both. Created by cml_peer_events. */
    void *go, *done;
} cml_peer_launch_args;

CML_LAUNCHER cml_status cml_peer_launch(void *args);
/* The __global__ function of a kernel (occupancy); NULL for a bad choice. */
CML_LAUNCHER const void *cml_peer_kernel(int push, int path, unsigned elem, unsigned ilp);
/* Make `dev` the current device; cml_peer_sync also waits for its work
 * (a poison on one GPU is not ordered before a kernel on another). */
CML_LAUNCHER cml_status cml_peer_use(int dev);
CML_LAUNCHER cml_status cml_peer_sync(int dev);
/* The two events of both-at-once runs: go on `a`, done on `b` (each made
 * on its own GPU); the current device is `a` again on return. */
CML_LAUNCHER cml_status cml_peer_events(int a, int b, void **go, void **done);
CML_LAUNCHER void cml_peer_events_free(int a, int b, void *go, void *done);
/*
 * Check the destination `dst` of `floats` floats on the current device:
 * destination element k (of elem bytes) must hold source element
 * (k - offset) / stride when k >= offset, (k - offset) % stride == 0 and
 * that is below `threads` (pattern = 1: a push's remote array), or element
 * k * stride + offset (pattern = 0: a pull's local array, `threads`
 * elements written), of a source filled with cml_random_f32(seed, float
 * index); every other float must still be the poison (0xFFFFFFFF). Counts
 * into d_counters[0], lowest wrong float index into d_counters[1].
 */
CML_LAUNCHER cml_status cml_peer_check(const float *dst, uint64_t floats, int pattern,
                                       unsigned elem, uint64_t threads, uint64_t stride,
                                       uint64_t offset, uint64_t seed,
                                       unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

/* One body per element type and depth U. A thread's slots are elements
 * t, t + span, t + 2*span, ... (span: the grid's threads) below `threads`,
 * taken U at a time, all U loaded before the first store, so that U
 * elements per thread are in flight (1: one per thread; nvbandwidth's copy
 * kernel keeps 12). The whole array is moved `passes` times in one launch:
 * with one pass the grid covers the array (each thread its U slots); with
 * more, the grid is what the SMs hold at once and walks the whole array
 * each pass, so that no pass finds the last one's data in a cache and the
 * link never drains between passes (as nvbandwidth's copy kernel loops).
 * The pull loads the remote array with the pattern through `ld` and stores
 * the local one; the push stores the remote array with the pattern. */
/* The pull's loop, with the remote index of local element k given by
 * INDEX(k). A copy (stride 1, offset 0) runs the loop with k itself: the
 * 64-bit multiply and add of the patterned index cost the SM read 0.1% of
 * the link in a standalone probe (bench/results/h100x2/2026-11-28-peer-timing),
 * which is what kept the copy below nvbandwidth's. The branch is uniform (the
 * same for every thread of the launch) and the addresses are the same. */
#define CML_PEER_DENSE(k) (k)
#define CML_PEER_PATTERNED(k) ((k) * stride + offset)
#define CML_PEER_PULL_LOOP(T, U, INDEX)                                                         \
    for (unsigned p = 0; p < passes; p++)                                                       \
        for (uint64_t b = t; b < threads; b += (U) * span) {                                    \
            T v[U];                                                                             \
            CML_UNROLL for (int j = 0; j < (U); j++) if (b + j * span < threads)                \
                v[j] = CML_LD(0, ld, T, src, INDEX(b + j * span));                              \
            CML_UNROLL for (int j = 0; j < (U); j++) if (b + j * span < threads)                \
                CML_ST(1, CML_ST_PLAIN, dst, b + j * span, v[j]);                               \
        }

#define CML_PEER_BODIES(W, T, U)                                                                \
    CML_BODY void cml_peer_pull_body_##W##_##U(CML_CTX, const T *src, T *dst, uint64_t threads, \
                                               uint64_t stride, uint64_t offset, unsigned ld,   \
                                               unsigned passes)                                 \
    {                                                                                           \
        const uint64_t t = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;                        \
        const uint64_t span = (uint64_t)CML_GDIM_X * CML_BDIM_X;                                \
        if (stride == 1 && offset == 0) { /* the copy: no index arithmetic per element */     \
            CML_PEER_PULL_LOOP(T, U, CML_PEER_DENSE)                                            \
        } else {                                                                                \
            CML_PEER_PULL_LOOP(T, U, CML_PEER_PATTERNED)                                        \
        }                                                                                       \
    }                                                                                           \
    CML_BODY void cml_peer_push_body_##W##_##U(CML_CTX, const T *src, T *dst, uint64_t threads, \
                                               uint64_t stride, uint64_t offset,                \
                                               unsigned passes)                                 \
    {                                                                                           \
        const uint64_t t = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;                        \
        const uint64_t span = (uint64_t)CML_GDIM_X * CML_BDIM_X;                                \
        for (unsigned p = 0; p < passes; p++)                                                   \
            for (uint64_t b = t; b < threads; b += (U) * span) {                                \
                T v[U];                                                                         \
                CML_UNROLL for (int j = 0; j < (U); j++) if (b + j * span < threads)            \
                    v[j] = CML_LD(0, CML_LD_PLAIN, T, src, b + j * span);                       \
                CML_UNROLL for (int j = 0; j < (U); j++) if (b + j * span < threads)            \
                    CML_ST(1, CML_ST_PLAIN, dst, (b + j * span) * stride + offset, v[j]);       \
            }                                                                                   \
    }

/* The widths and depths a kernel is built for (the `elem` and `ilp` options),
 * each stamped by name (tests/cli/test_kernel_bodies.py reads them here). */
CML_PEER_BODIES(4, float, 1)
CML_PEER_BODIES(4, float, 2)
CML_PEER_BODIES(4, float, 4)
CML_PEER_BODIES(4, float, 8)
CML_PEER_BODIES(8, float2, 1)
CML_PEER_BODIES(8, float2, 2)
CML_PEER_BODIES(8, float2, 4)
CML_PEER_BODIES(8, float2, 8)
CML_PEER_BODIES(16, float4, 1)
CML_PEER_BODIES(16, float4, 2)
CML_PEER_BODIES(16, float4, 4)
CML_PEER_BODIES(16, float4, 8)

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) ------------------------ */
#include <cuda_runtime.h>

#include "core/random.h"
#include "gpu/gpu_internal.h"

/* method=sm is the plain load a CUDA programmer writes (and nvbandwidth's
 * copy kernel), through L1 by default, not __ldca; neither of the pull's
 * pointers is __restrict__: with the destination restricted alone, nvcc
 * still proved the const source read-only and made the plain load an
 * LDG.E.128.CONSTANT (ld.global.nc, the read-only path: the SASS of
 * peerPull16_ca_8 on sm_90), where nvbandwidth's kernel has LDG.E.128. */
#define PEER_PULL_KERNEL(NAME, W, T, U, LD)                                                     \
    __global__ void NAME(const T *src, T *dst, uint64_t threads,                                \
                         uint64_t stride, uint64_t offset, unsigned passes)                     \
    {                                                                                           \
        cml_peer_pull_body_##W##_##U(CML_KERNEL_CTX, src, dst, threads, stride, offset, LD,     \
                                     passes);                                                   \
    }
#define PEER_PUSH_KERNEL(NAME, W, T, U)                                                         \
    __global__ void NAME(const T *__restrict__ src, T *__restrict__ dst, uint64_t threads,      \
                         uint64_t stride, uint64_t offset, unsigned passes)                     \
    {                                                                                           \
        cml_peer_push_body_##W##_##U(CML_KERNEL_CTX, src, dst, threads, stride, offset,         \
                                     passes);                                                   \
    }
/* Each kernel by its name (tests/cli/test_kernel_bodies.py finds them here):
 * pull through L1, pull at L2, push; per width and depth. */
PEER_PULL_KERNEL(peerPull4_ca_1, 4, float, 1, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull4_cg_1, 4, float, 1, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush4_1, 4, float, 1)
PEER_PULL_KERNEL(peerPull4_ca_2, 4, float, 2, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull4_cg_2, 4, float, 2, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush4_2, 4, float, 2)
PEER_PULL_KERNEL(peerPull4_ca_4, 4, float, 4, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull4_cg_4, 4, float, 4, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush4_4, 4, float, 4)
PEER_PULL_KERNEL(peerPull4_ca_8, 4, float, 8, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull4_cg_8, 4, float, 8, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush4_8, 4, float, 8)
PEER_PULL_KERNEL(peerPull8_ca_1, 8, float2, 1, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull8_cg_1, 8, float2, 1, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush8_1, 8, float2, 1)
PEER_PULL_KERNEL(peerPull8_ca_2, 8, float2, 2, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull8_cg_2, 8, float2, 2, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush8_2, 8, float2, 2)
PEER_PULL_KERNEL(peerPull8_ca_4, 8, float2, 4, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull8_cg_4, 8, float2, 4, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush8_4, 8, float2, 4)
PEER_PULL_KERNEL(peerPull8_ca_8, 8, float2, 8, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull8_cg_8, 8, float2, 8, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush8_8, 8, float2, 8)
PEER_PULL_KERNEL(peerPull16_ca_1, 16, float4, 1, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull16_cg_1, 16, float4, 1, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush16_1, 16, float4, 1)
PEER_PULL_KERNEL(peerPull16_ca_2, 16, float4, 2, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull16_cg_2, 16, float4, 2, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush16_2, 16, float4, 2)
PEER_PULL_KERNEL(peerPull16_ca_4, 16, float4, 4, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull16_cg_4, 16, float4, 4, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush16_4, 16, float4, 4)
PEER_PULL_KERNEL(peerPull16_ca_8, 16, float4, 8, CML_LD_PLAIN)
PEER_PULL_KERNEL(peerPull16_cg_8, 16, float4, 8, CML_LD_CG)
PEER_PUSH_KERNEL(peerPush16_8, 16, float4, 8)

/* Every kernel has the same parameters, as untyped pointers. */
typedef void (*peer_kernel)(const void *, void *, uint64_t, uint64_t, uint64_t, unsigned);

#define PEER_DEPTHS(NAME) {(peer_kernel)NAME##_1, (peer_kernel)NAME##_2, (peer_kernel)NAME##_4,  \
                           (peer_kernel)NAME##_8}

static peer_kernel pick(int push, int path, unsigned elem, unsigned ilp)
{
    const int w = elem == 4 ? 0 : elem == 8 ? 1 : elem == 16 ? 2 : -1;
    const int d = ilp == 1 ? 0 : ilp == 2 ? 1 : ilp == 4 ? 2 : ilp == 8 ? 3 : -1;
    if (w < 0 || d < 0 || path < 0 || path > 1)
        return NULL;
    static const peer_kernel pulls[3][2][4] = {
        {PEER_DEPTHS(peerPull4_ca), PEER_DEPTHS(peerPull4_cg)},
        {PEER_DEPTHS(peerPull8_ca), PEER_DEPTHS(peerPull8_cg)},
        {PEER_DEPTHS(peerPull16_ca), PEER_DEPTHS(peerPull16_cg)}};
    static const peer_kernel pushes[3][4] = {PEER_DEPTHS(peerPush4), PEER_DEPTHS(peerPush8),
                                             PEER_DEPTHS(peerPush16)};
    return push ? pushes[w][d] : pulls[w][path][d];
}

extern "C" const void *cml_peer_kernel(int push, int path, unsigned elem, unsigned ilp)
{
    return (const void *)pick(push, path, elem, ilp);
}

extern "C" cml_status cml_peer_use(int dev)
{
    CML_CU(cudaSetDevice(dev));
    return CML_OK;
}

extern "C" cml_status cml_peer_sync(int dev)
{
    CML_CU(cudaSetDevice(dev));
    CML_CU(cudaDeviceSynchronize());
    return CML_OK;
}

extern "C" cml_status cml_peer_events(int a, int b, void **go, void **done)
{
    cudaEvent_t g = NULL, d = NULL;
    CML_CU(cudaSetDevice(b));
    CML_CU(cudaEventCreateWithFlags(&d, cudaEventDisableTiming));
    CML_CU(cudaSetDevice(a));
    CML_CU(cudaEventCreateWithFlags(&g, cudaEventDisableTiming));
    *go = (void *)g;
    *done = (void *)d;
    return CML_OK;
}

extern "C" void cml_peer_events_free(int a, int b, void *go, void *done)
{
    if (go) {
        (void)cudaSetDevice(a);
        (void)cudaEventDestroy((cudaEvent_t)go);
    }
    if (done) {
        (void)cudaSetDevice(b);
        (void)cudaEventDestroy((cudaEvent_t)done);
    }
    (void)cudaSetDevice(a);
    (void)cudaGetLastError();
}

/* One side on the current device's legacy stream. */
static cml_status launch_side(const cml_peer_launch_args *a, const cml_peer_side *s)
{
    const size_t bytes = (size_t)a->threads * a->elem;
    if (a->ce) {
        CML_CU(cudaMemcpyPeerAsync(s->dst, s->dst_dev, s->src, s->src_dev, bytes, 0));
        return CML_OK;
    }
    peer_kernel k = pick(a->push, a->path, a->elem, a->ilp);
    if (!k || a->block == 0)
        return CML_EINVAL;
    if (a->grid == 0 || a->passes == 0)
        return CML_EINVAL;
    k<<<a->grid, a->block>>>(s->src, s->dst, a->threads, a->stride, a->offset, a->passes);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* Side 0 on the current GPU; with two sides, side 1 on its GPU starts with
 * side 0 (it waits for `go`, recorded just before side 0's launch) and side
 * 0's stream waits for it to end (`done`): the timing events on side 0's
 * stream then cover both transfers, each launch pair running at once. */
extern "C" cml_status cml_peer_launch(void *vctx)
{
    const cml_peer_launch_args *a = (const cml_peer_launch_args *)vctx;
    if (a->nsides == 1)
        return launch_side(a, &a->side[0]);
    if (a->nsides != 2 || !a->go || !a->done)
        return CML_EINVAL;
    const int here = a->side[0].runner, there = a->side[1].runner;
    CML_CU(cudaEventRecord((cudaEvent_t)a->go, 0));
    cml_status st = launch_side(a, &a->side[0]);
    if (st != CML_OK)
        return st;
    CML_CU(cudaSetDevice(there));
    CML_CU(cudaStreamWaitEvent(0, (cudaEvent_t)a->go, 0));
    st = launch_side(a, &a->side[1]);
    if (st == CML_OK && cudaEventRecord((cudaEvent_t)a->done, 0) != cudaSuccess)
        st = cml_gpu_check((int)cudaGetLastError(), "cudaEventRecord(done)", __FILE__, __LINE__);
    CML_CU(cudaSetDevice(here));
    if (st != CML_OK)
        return st;
    CML_CU(cudaStreamWaitEvent(0, (cudaEvent_t)a->done, 0));
    return CML_OK;
}

__global__ void peer_check(const float *__restrict__ dst, uint64_t floats, int pattern,
                           unsigned per, uint64_t threads, uint64_t stride, uint64_t offset,
                           uint64_t seed, unsigned long long *bad, unsigned long long *first_bad)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < floats;
         j += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t k = j / per, c = j % per;
        int written;
        uint64_t from = 0;
        if (pattern) {
            written = k >= offset && (k - offset) % stride == 0 && (k - offset) / stride < threads;
            if (written)
                from = (k - offset) / stride;
        } else {
            written = k < threads;
            from = k * stride + offset;
        }
        const uint32_t got = __float_as_uint(dst[j]);
        const int ok = written ? got == __float_as_uint(cml_random_f32(seed, from * per + c))
                               : got == 0xFFFFFFFFu;
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_peer_check(const float *dst, uint64_t floats, int pattern,
                                     unsigned elem, uint64_t threads, uint64_t stride,
                                     uint64_t offset, uint64_t seed,
                                     unsigned long long *d_counters)
{
    if (elem < 4 || elem % 4 || stride == 0)
        return CML_EINVAL;
    peer_check<<<1024, 256>>>(dst, floats, pattern, elem / 4, threads, stride, offset, seed,
                              d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
