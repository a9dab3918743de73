/*
 * One source per kernel: a kernel's per-thread body is written once, in a
 * header (src/experiments/NAME/NAME_body.h), and compiled twice. In an
 * experiment folder of the two-file form (docs/adding-an-experiment.md)
 * that header holds the kernels whole: after the bodies, under
 * `#ifdef __CUDACC__`, the __global__ functions that call them and their
 * extern "C" launchers, compiled once through the file the build generates
 * for the folder (cmake/experiments.cmake); the old form's NAME.cu
 * includes the header for the bodies alone.
 *
 *  - nvcc compiles it into the __global__ function: every CML_LD / CML_ST
 *    is the load or store the experiment names (a plain dereference, __ldca,
 *    __ldcg, __ldg, __ldcs, __stcg, __stcs, __stwb), on the kernel's own
 *    pointers, and the body is inlined, so the kernel's machine code is what
 *    the hand-written kernel gave (scripts/sass-check.sh proves it).
 *  - the C compiler compiles it into the model's mirror (cml_thread_fn):
 *    every access becomes cml_emit(site, space, op, cache, width, address)
 *    and nothing is read or written. Global arrays are fake pointers at
 *    cml_array_base(k) (CML_ARRAY), so the address the mirror emits is the
 *    pointer arithmetic the kernel does: base + index * element size.
 *
 * Before, the kernel (NAME.cu) and its mirror (NAME.c) were written apart
 * and had to be kept in step by hand; a drift showed only on a GPU.
 *
 * A body is a function:
 *
 *   CML_BODY void my_body(CML_CTX, const float *A, float *C, uint64_t n, unsigned ld)
 *   {
 *       uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
 *       if (i < n) {
 *           float a = CML_LD(0, ld, float, A, i);    site 0: A[i] through `ld`
 *           CML_ST(1, CML_ST_PLAIN, C, i, a + 1.0f); site 1: C[i] = ..., plain
 *       }
 *   }
 *
 * called by the kernel as my_body(CML_KERNEL_CTX, A, C, n, CML_LD_CG) and
 * by the mirror as my_body(CML_MIRROR_CTX(t, e), CML_ARRAY(const float, 0),
 * CML_ARRAY(float, 1), a->n, a->cache).
 *
 * A global access that the modes cannot spell (inline PTX: an L2 eviction
 * policy, an L2 prefetch size, L1::no_allocate) is the kernel's own device
 * function, CML_LD_FN / CML_ST_FN, which the mirror emits with the cache
 * operator it is given (CML_LDV_FN: and the value it must use, as CML_LDV).
 *
 * A body may call another body, passing on its context as CML_CTX_ARG: a
 * kernel's whole body, and the part of it a mirror runs alone (a step of a
 * walk too long for one thread of the tracer, say).
 *
 * The other accesses: shared memory (CML_SHARED_ARRAY, CML_SHARED_EXTERN,
 * CML_LDS, CML_STS, and by shared-space address CML_LDS_VOLATILE,
 * CML_STS_VOLATILE; another block's of the cluster: CML_CLUSTER_MAP,
 * CML_LDS_CLUSTER, in gpu/kernel_body_async.h), local memory (CML_LOCAL_ARRAY, CML_LDL, CML_STL: a
 * per-thread array the compiler must place in the thread's frame, and
 * CML_SPILL_ST / CML_SPILL_LD: the spill traffic ptxas adds, which no line
 * of the source names), constant memory (CML_CONSTANT_ARRAY, CML_LDC) and a
 * module's variables (CML_DEVICE_VAR, CML_CONSTANT_VAR, CML_VAR); warp
 * shuffles (CML_SHFL*) move registers and emit nothing; asynchronous copies
 * into shared memory (CML_CP_ASYNC and the TMA's, with their groups and
 * barriers) are in gpu/kernel_body_async.h, with the clusters' macros. A mirror may emit
 * only some of a body's sites (CML_MIRROR_CTX_SITES), to report a part of
 * the kernel's traffic on its own, or only a window of each thread's
 * emissions (CML_MIRROR_CTX_WINDOW), to trace a thread that makes more
 * than the tracer's CML_MAX_EMITS accesses in pieces.
 *
 * Rules that keep the two compilations the same kernel:
 *  - the access mode (which instruction, and so which cache operator) is a
 *    value: a constant in the kernel's call, which the inlined body folds
 *    (one kernel per path, as before); in the mirror a run-time value, of
 *    which only the cache operator counts (so a mirror may pass the
 *    cml_cache of its arguments where a mode is asked for);
 *  - one load per statement where two loads meet in an expression: C leaves
 *    the order of `x + y`'s operands open, and the order of the emissions is
 *    the order of the warp's instructions in the model's caches;
 *  - a loaded value is 0 in the mirror (nothing is read). Where an address
 *    depends on loaded data, CML_LDV names the value the mirror must use
 *    (the kernel ignores it): the counter-based fill (core/random.h) makes
 *    it computable;
 *  - __syncthreads is CML_SYNC() (a cluster's barrier CML_CLUSTER_SYNC()):
 *    the model runs each thread to its end, so it is no boundary there.
 */
#ifndef CML_GPU_KERNEL_BODY_H
#define CML_GPU_KERNEL_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"

/*
 * Access modes: the cache operator the model sees in the low 4 bits, and
 * CML_MODE_INSN where the kernel spells it with an intrinsic rather than a
 * plain dereference (both are CML_CACHE_CA for the model, but the compiler
 * may turn a plain load of a const __restrict__ pointer into ld.global.nc,
 * never an __ldca).
 */
#define CML_MODE_INSN 0x10u
#define CML_MODE_CACHE(m) ((cml_cache)((unsigned)(m) & 0xFu))
#define CML_LD_PLAIN ((unsigned)CML_CACHE_CA)                  /* *p          */
#define CML_LD_CA ((unsigned)CML_CACHE_CA | CML_MODE_INSN)      /* __ldca(p)   */
#define CML_LD_CG ((unsigned)CML_CACHE_CG | CML_MODE_INSN)      /* __ldcg(p)   */
#define CML_LD_NC ((unsigned)CML_CACHE_NC | CML_MODE_INSN)      /* __ldg(p)    */
#define CML_LD_CS ((unsigned)CML_CACHE_CS | CML_MODE_INSN)      /* __ldcs(p)   */
#define CML_ST_PLAIN ((unsigned)CML_CACHE_CA)                  /* *p = v      */
#define CML_ST_WB ((unsigned)CML_CACHE_CA | CML_MODE_INSN)      /* __stwb(p, v) */
#define CML_ST_CG ((unsigned)CML_CACHE_CG | CML_MODE_INSN)      /* __stcg(p, v) */
#define CML_ST_CS ((unsigned)CML_CACHE_CS | CML_MODE_INSN)      /* __stcs(p, v) */

#if defined(__CUDACC__)
/* ---- the kernel ------------------------------------------------------- */

/* The mirror's context; nothing on the GPU (an unnamed empty parameter). */
struct cml_ctx {
};
#define CML_BODY static __device__ __forceinline__
#define CML_CTX cml_ctx
#define CML_KERNEL_CTX cml_ctx()
#define CML_CTX_ARG cml_ctx()

#define CML_TID_X threadIdx.x
#define CML_TID_Y threadIdx.y
#define CML_TID_Z threadIdx.z
#define CML_BID_X blockIdx.x
#define CML_BID_Y blockIdx.y
#define CML_BID_Z blockIdx.z
#define CML_BDIM_X blockDim.x
#define CML_BDIM_Y blockDim.y
#define CML_BDIM_Z blockDim.z
#define CML_GDIM_X gridDim.x
#define CML_GDIM_Y gridDim.y
#define CML_GDIM_Z gridDim.z

#define CML_UNROLL _Pragma("unroll")
#define CML_NOUNROLL _Pragma("unroll 1")
#define CML_SYNC() __syncthreads()
#define CML_SYNCWARP() __syncwarp()

/* A float product and sum rounded on their own (no FMA contraction), so
 * that checkers and host references agree with the kernel bit for bit. */
#define CML_FMUL_RN(a, b) __fmul_rn((a), (b))
#define CML_FADD_RN(a, b) __fadd_rn((a), (b))

/* Warp shuffles: registers, no memory (the mirror returns the lane's own
 * value). The arguments are __shfl_*_sync's, width optional. */
#define CML_SHFL(...) __shfl_sync(__VA_ARGS__)
#define CML_SHFL_UP(...) __shfl_up_sync(__VA_ARGS__)
#define CML_SHFL_DOWN(...) __shfl_down_sync(__VA_ARGS__)
#define CML_SHFL_XOR(...) __shfl_xor_sync(__VA_ARGS__)

/* T's own type, so that a store converts its value as `*p = v` would. */
template <typename T> struct cml_body_same {
    typedef T type;
};

template <typename T> static __device__ __forceinline__ T cml_body_ld(unsigned m, const T *p)
{
    switch (m) {
    case CML_LD_CA: return __ldca(p);
    case CML_LD_CG: return __ldcg(p);
    case CML_LD_NC: return __ldg(p);
    case CML_LD_CS: return __ldcs(p);
    default: return *p;
    }
}

template <typename T>
static __device__ __forceinline__ void cml_body_st(unsigned m, T *p,
                                                   typename cml_body_same<T>::type v)
{
    switch (m) {
    case CML_ST_WB: __stwb(p, v); break;
    case CML_ST_CG: __stcg(p, v); break;
    case CML_ST_CS: __stcs(p, v); break;
    default: *p = v; break;
    }
}

/* Global memory: p[i] through mode m; T is p's element type. The site is
 * evaluated and dropped (no code), so a variable that only computes sites
 * counts as used. */
#define CML_LD(site, m, T, p, i) ((void)(site), cml_body_ld<T>((m), (p) + (i)))
#define CML_LDV(site, m, T, p, i, mirror_value) ((void)(site), cml_body_ld<T>((m), (p) + (i)))
#define CML_ST(site, m, p, i, v) ((void)(site), cml_body_st((m), (p) + (i), (v)))

/* Global memory through a device function of the body's own (inline PTX
 * for what the modes lack): the kernel calls fn(p + i) or fn(p + i, arg)
 * for a load, fn(p + i, v) or fn(p + i, v, arg) for a store; the mirror
 * emits the access with `cache` (a cml_cache: the cache operator the model
 * gives that instruction) and evaluates arg, but never names fn, which may
 * be defined for the kernel alone (under __CUDACC__, or an architecture).
 * CML_LDV_FN, CML_LDV_FN1: such a load whose value an address depends on,
 * with the value the mirror must use, as CML_LDV (here not compiled). */
#define CML_LD_FN(site, cache, T, p, i, fn) ((void)(site), (void)(cache), fn((p) + (i)))
#define CML_LD_FN1(site, cache, T, p, i, fn, arg)                                          \
    ((void)(site), (void)(cache), fn((p) + (i), (arg)))
#define CML_LDV_FN(site, cache, T, p, i, fn, mirror_value)                                 \
    ((void)(site), (void)(cache), fn((p) + (i)))
#define CML_LDV_FN1(site, cache, T, p, i, fn, arg, mirror_value)                           \
    ((void)(site), (void)(cache), fn((p) + (i), (arg)))
#define CML_ST_FN(site, cache, p, i, v, fn) ((void)(site), (void)(cache), fn((p) + (i), (v)))
#define CML_ST_FN1(site, cache, p, i, v, fn, arg)                                          \
    ((void)(site), (void)(cache), fn((p) + (i), (v), (arg)))

/* Shared memory: an array of the block (declared in the body: a static
 * allocation, at `offset` bytes into the block's shared memory as the
 * compiler lays it out, which the mirror must be told), and p[i] on it. */
#define CML_SHARED_ARRAY(T, name, count, offset) __shared__ T name[count]
/* The block's dynamic shared memory (the launch's third argument). */
#define CML_SHARED_EXTERN(T, name, offset) extern __shared__ T name[]
#define CML_LDS(site, T, p, i) ((void)(site), (p)[i])
#define CML_STS(site, p, i, v) ((void)(site), (p)[i] = (v))

/* Shared memory by 32-bit shared-space byte address, through PTX
 * ld/st.volatile.shared: ptxas must issue every one (a plain store followed
 * by a load of the same address would be forwarded in registers). T is
 * unsigned, uint2 or uint4 (one LDS/STS of 4, 8 or 16 bytes). The address
 * of a shared array: CML_SHARED_SPACE(p). */
#define CML_SHARED_SPACE(p) ((unsigned)__cvta_generic_to_shared(p))
#define CML_LDS_VOLATILE(site, T, a) ((void)(site), cml_body_ld_vs<T>(a))
#define CML_STS_VOLATILE(site, a, v) ((void)(site), cml_body_st_vs((a), (v)))

static __device__ __forceinline__ void cml_body_st_vs(unsigned a, unsigned x)
{
    asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(x) : "memory");
}
static __device__ __forceinline__ void cml_body_st_vs(unsigned a, uint2 x)
{
    asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %2};" ::"r"(a), "r"(x.x), "r"(x.y)
                 : "memory");
}
static __device__ __forceinline__ void cml_body_st_vs(unsigned a, uint4 x)
{
    asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(x.x),
                 "r"(x.y), "r"(x.z), "r"(x.w)
                 : "memory");
}
template <typename T> static __device__ __forceinline__ T cml_body_ld_vs(unsigned a);
template <> __device__ __forceinline__ unsigned cml_body_ld_vs<unsigned>(unsigned a)
{
    unsigned x;
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
    return x;
}
template <> __device__ __forceinline__ uint2 cml_body_ld_vs<uint2>(unsigned a)
{
    uint2 x;
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x.x), "=r"(x.y) : "r"(a)
                 : "memory");
    return x;
}
template <> __device__ __forceinline__ uint4 cml_body_ld_vs<uint4>(unsigned a)
{
    uint4 x;
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w)
                 : "r"(a)
                 : "memory");
    return x;
}

/* Local memory: a per-thread array (declared in the body) that the
 * compiler must place in the thread's frame (it is indexed at run time), at
 * `offset` bytes into the frame, which the mirror must be told; p[i] on it.
 * T may be a struct (count 1; its fields by p->f). */
#define CML_LOCAL_ARRAY(T, name, count, offset) T name[count]
#define CML_LDL(site, T, p, i) ((void)(site), (p)[i])
#define CML_STL(site, p, i, v) ((void)(site), (p)[i] = (v))

/* Register spills: the local stores and loads ptxas adds when a kernel's
 * live values do not fit its registers. No line of the source names them,
 * so the kernel has nothing here (ptxas places them); their size is known
 * only from ptxas's figures (-Xptxas -v), which the mirror is given. */
#define CML_SPILL_ST(site, offset, bytes) ((void)(site), (void)(offset), (void)(bytes))
#define CML_SPILL_LD(site, offset, bytes) ((void)(site), (void)(offset), (void)(bytes))

/* Constant memory: a __constant__ array (file scope: the host sets it with
 * cudaMemcpyToSymbol), and p[i] on it. */
#define CML_CONSTANT_ARRAY(T, name, count, offset) __constant__ T name[count]
#define CML_LDC(site, T, p, i) ((void)(site), (p)[i])

/* Variables of a module (file scope): a __device__ one, which the mirror
 * places at global array k, and a __constant__ one; CML_VAR(name) is its
 * address, for the accesses above. */
#define CML_DEVICE_VAR(T, name, k) __device__ T name
#define CML_CONSTANT_VAR(T, name, offset) __constant__ T name
#define CML_VAR(name) (&(name))

/* ---- added for the peak kernels (src/lab/peak_body.h) ------------------ */

/* A float's bit pattern as an unsigned integer (peak's checksum adds the
 * words' patterns); the mirror's values are 0 and never read. */
#define CML_FLOAT_AS_UINT(x) __float_as_uint(x)

/* A shared load whose value the mirror must know: a flag that another
 * thread of the block stored (the model runs each thread on its own, so
 * no store's value reaches another thread's load). The kernel ignores
 * mirror_value, as CML_LDV does. */
#define CML_LDSV(site, T, p, i, mirror_value) ((void)(site), (p)[i])

/* Atomics on global p[i] (atomicAdd, atomicExch). The model has no atomic
 * access (its ops are loads and stores), so the mirror emits nothing for
 * them and takes mirror_value as the value returned (what the old value
 * would be in the order the model assumes); the site names the
 * instruction all the same (evaluated and dropped). __threadfence orders
 * memory between blocks, which the model does not see. */
#define CML_ATOMIC_ADD(site, p, i, v, mirror_value) ((void)(site), atomicAdd((p) + (i), (v)))
#define CML_ATOMIC_EXCH(site, p, i, v, mirror_value) ((void)(site), atomicExch((p) + (i), (v)))
#define CML_THREADFENCE() __threadfence()

#else
/* ---- the mirror ------------------------------------------------------- */

#include "model/emitter.h"

/* A window on a thread's emissions: the ones numbered [lo, hi) from 0 (of
 * those its sites keep) are passed on, the others dropped; `next` counts
 * them (0 before the thread runs). A thread that makes more accesses than
 * the tracer holds (CML_MAX_EMITS) is traced once per window, and the
 * totals add up exactly where every lane of a warp makes the same sequence
 * of instructions (window k of each lane then holds the same ones). */
typedef struct cml_window {
    unsigned lo, hi, next;
} cml_window;

/* The thread the model runs, where its accesses go, which of its sites
 * (bit s: site s) are emitted: all of them, or a part of the kernel whose
 * traffic the experiment reports on its own (CML_MIRROR_CTX_SITES), and
 * which window of them (CML_MIRROR_CTX_WINDOW; NULL: all). */
typedef struct cml_ctx {
    const cml_thread *t;
    cml_emitter *e;
    uint64_t sites;
    cml_window *window;
} cml_ctx;
#define CML_BODY static inline
#define CML_CTX cml_ctx cml_ctx_
#define CML_MIRROR_CTX(t, e) ((cml_ctx){(t), (e), ~(uint64_t)0, NULL})
#define CML_CTX_ARG cml_ctx_
#define CML_MIRROR_CTX_SITES(t, e, sites) ((cml_ctx){(t), (e), (sites), NULL})
#define CML_MIRROR_CTX_WINDOW(t, e, w) ((cml_ctx){(t), (e), ~(uint64_t)0, (w)})

/* cml_emit for the sites the context keeps (a site past the mask's 64 is
 * passed on, for cml_emit to refuse), within its window. */
static inline void cml_body_emit(cml_ctx c, unsigned site, cml_space space, cml_op op,
                                 cml_cache cache, unsigned width, uint64_t addr)
{
    if (site < 64u && !((c.sites >> site) & 1u))
        return;
    if (c.window) {
        const unsigned k = c.window->next++;
        if (k < c.window->lo || k >= c.window->hi)
            return;
    }
    cml_emit_inline(c.e, site, space, op, cache, width, addr);
}

/* Global array k of the model, as a pointer of type T * (never read). */
#define CML_ARRAY(T, k) ((T *)(uintptr_t)cml_array_base_inline(k))

#define CML_TID_X (cml_ctx_.t->tid.x)
#define CML_TID_Y (cml_ctx_.t->tid.y)
#define CML_TID_Z (cml_ctx_.t->tid.z)
#define CML_BID_X (cml_ctx_.t->bid.x)
#define CML_BID_Y (cml_ctx_.t->bid.y)
#define CML_BID_Z (cml_ctx_.t->bid.z)
#define CML_BDIM_X (cml_ctx_.t->bdim.x)
#define CML_BDIM_Y (cml_ctx_.t->bdim.y)
#define CML_BDIM_Z (cml_ctx_.t->bdim.z)
#define CML_GDIM_X (cml_ctx_.t->gdim.x)
#define CML_GDIM_Y (cml_ctx_.t->gdim.y)
#define CML_GDIM_Z (cml_ctx_.t->gdim.z)

#define CML_UNROLL
#define CML_NOUNROLL
#define CML_SYNC() ((void)0)
#define CML_SYNCWARP() ((void)0)

/* One rounding each: a cast to float drops any extra range and precision
 * (C11 6.3.1.8); the mirror's values are never read anyway. */
#define CML_FMUL_RN(a, b) ((float)((a) * (b)))
#define CML_FADD_RN(a, b) ((float)((a) + (b)))

/* Uses its arguments (the shuffle's lane, delta or width) and nothing else. */
static inline int cml_body_use(int n, ...)
{
    return n;
}
#define CML_SHFL(mask, v, ...) ((void)cml_body_use(0, (mask), __VA_ARGS__), (v))
#define CML_SHFL_UP(mask, v, ...) ((void)cml_body_use(0, (mask), __VA_ARGS__), (v))
#define CML_SHFL_DOWN(mask, v, ...) ((void)cml_body_use(0, (mask), __VA_ARGS__), (v))
#define CML_SHFL_XOR(mask, v, ...) ((void)cml_body_use(0, (mask), __VA_ARGS__), (v))

/* CUDA's vector types, for the bodies' values (never read in the mirror);
 * a C file that has CUDA's own (vector_types.h) keeps them. */
#if !defined(__VECTOR_TYPES_H__)
typedef struct float2 {
    float x, y;
} float2;
typedef struct float4 {
    float x, y, z, w;
} float4;

typedef struct uint2 {
    unsigned x, y;
} uint2;
typedef struct uint4 {
    unsigned x, y, z, w;
} uint4;

static inline uint2 make_uint2(unsigned x, unsigned y)
{
    uint2 v = {x, y};
    return v;
}

static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
    uint4 v = {x, y, z, w};
    return v;
}

typedef struct ulonglong2 {
    unsigned long long x, y;
} ulonglong2;

static inline ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y)
{
    ulonglong2 v = {x, y};
    return v;
}

static inline float2 make_float2(float x, float y)
{
    float2 v = {x, y};
    return v;
}

static inline float4 make_float4(float x, float y, float z, float w)
{
    float4 v = {x, y, z, w};
    return v;
}
#endif

#define CML_ADDR(p) ((uint64_t)(uintptr_t)(p))

/* The access's emission; its value is T's zero (or the mirror's value). */
#define CML_LD(site, m, T, p, i)                                                           \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_GLOBAL, CML_OP_LOAD, CML_MODE_CACHE(m),     \
                   (unsigned)sizeof *((p) + (i)), CML_ADDR((p) + (i))),                    \
     (T){0})
#define CML_LDV(site, m, T, p, i, mirror_value)                                            \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_GLOBAL, CML_OP_LOAD, CML_MODE_CACHE(m),     \
                   (unsigned)sizeof *((p) + (i)), CML_ADDR((p) + (i))),                    \
     (T)(mirror_value))
/* The value is evaluated first: the loads in it come before the store. */
#define CML_ST(site, m, p, i, v)                                                           \
    ((void)(v), cml_body_emit(cml_ctx_, (site), CML_SPACE_GLOBAL, CML_OP_STORE,            \
                              CML_MODE_CACHE(m), (unsigned)sizeof *((p) + (i)),            \
                              CML_ADDR((p) + (i))))

/* A device function's access: `cache` as given, fn not named (its
 * argument evaluated, after the stored value). */
#define CML_LD_FN(site, cache, T, p, i, fn)                                                \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_GLOBAL, CML_OP_LOAD, (cache),               \
                   (unsigned)sizeof *((p) + (i)), CML_ADDR((p) + (i))),                    \
     (T){0})
#define CML_LD_FN1(site, cache, T, p, i, fn, arg)                                          \
    ((void)(arg), CML_LD_FN(site, cache, T, p, i, fn))
#define CML_LDV_FN(site, cache, T, p, i, fn, mirror_value)                                 \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_GLOBAL, CML_OP_LOAD, (cache),               \
                   (unsigned)sizeof *((p) + (i)), CML_ADDR((p) + (i))),                    \
     (T)(mirror_value))
#define CML_LDV_FN1(site, cache, T, p, i, fn, arg, mirror_value)                           \
    ((void)(arg), CML_LDV_FN(site, cache, T, p, i, fn, mirror_value))
#define CML_ST_FN(site, cache, p, i, v, fn)                                                \
    ((void)(v), cml_body_emit(cml_ctx_, (site), CML_SPACE_GLOBAL, CML_OP_STORE, (cache),   \
                              (unsigned)sizeof *((p) + (i)), CML_ADDR((p) + (i))))
#define CML_ST_FN1(site, cache, p, i, v, fn, arg)                                          \
    ((void)(v), (void)(arg), CML_ST_FN(site, cache, p, i, 0, fn))

/* Shared memory: a fake pointer at CML_SHARED_BASE + offset; the model
 * sees byte offsets in the block's shared memory. The base is far from the
 * global arrays' (cml_array_base) and from 0, so pointer arithmetic on it
 * never wraps. */
#define CML_SHARED_BASE ((uint64_t)1 << 62)
#define CML_SHARED_ARRAY(T, name, count, offset)                                           \
    T *const name = (T *)(uintptr_t)(CML_SHARED_BASE + (offset))
#define CML_SHARED_EXTERN(T, name, offset)                                                 \
    T *const name = (T *)(uintptr_t)(CML_SHARED_BASE + (offset))
#define CML_SHARED_ADDR(p) (CML_ADDR(p) - CML_SHARED_BASE)
#define CML_LDS(site, T, p, i)                                                             \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA,          \
                   (unsigned)sizeof *((p) + (i)), CML_SHARED_ADDR((p) + (i))),             \
     (T){0})
#define CML_STS(site, p, i, v)                                                             \
    ((void)(v), cml_body_emit(cml_ctx_, (site), CML_SPACE_SHARED, CML_OP_STORE,            \
                              CML_CACHE_CA, (unsigned)sizeof *((p) + (i)),                 \
                              CML_SHARED_ADDR((p) + (i))))

/* Shared memory by shared-space byte address: the model's offset itself
 * (a shared array's address is its offset). */
#define CML_SHARED_SPACE(p) ((unsigned)CML_SHARED_ADDR(p))
#define CML_LDS_VOLATILE(site, T, a)                                                       \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA,          \
                   (unsigned)sizeof(T), (uint64_t)(a)),                                    \
     (T){0})
#define CML_STS_VOLATILE(site, a, v)                                                       \
    ((void)(v), cml_body_emit(cml_ctx_, (site), CML_SPACE_SHARED, CML_OP_STORE,            \
                              CML_CACHE_CA, (unsigned)sizeof(v), (uint64_t)(a)))

/* Local memory: the model sees byte offsets in the thread's frame (it
 * places the frames itself: consecutive 4-byte words of one thread 128
 * bytes apart, the lanes interleaved), from `offset` for the array. */
#define CML_LOCAL_BASE ((uint64_t)1 << 60)
#define CML_LOCAL_ARRAY(T, name, count, offset)                                            \
    T *const name = (T *)(uintptr_t)(CML_LOCAL_BASE + (offset))
#define CML_LOCAL_ADDR(p) (CML_ADDR(p) - CML_LOCAL_BASE)
#define CML_LDL(site, T, p, i)                                                             \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_LOCAL, CML_OP_LOAD, CML_CACHE_CA,           \
                   (unsigned)sizeof *((p) + (i)), CML_LOCAL_ADDR((p) + (i))),              \
     (T){0})
#define CML_STL(site, p, i, v)                                                             \
    ((void)(v), cml_body_emit(cml_ctx_, (site), CML_SPACE_LOCAL, CML_OP_STORE,             \
                              CML_CACHE_CA, (unsigned)sizeof *((p) + (i)),                 \
                              CML_LOCAL_ADDR((p) + (i))))

/* Register spills, as ptxas's figures give them: `bytes` of the frame from
 * `offset`, one 4-byte access per slot, once per thread where the macro
 * stands (ptxas counts the bytes of its spill instructions, not how often
 * they run: exact for spills outside any loop). A slot is the same
 * per-thread scalar in every lane, so a warp's spill is one frame offset,
 * 128 contiguous bytes; where ptxas spills 8 or 16 bytes at once the
 * sectors are the same and the requests fewer. */
static inline void cml_body_spill(cml_ctx c, unsigned site, cml_op op, unsigned offset,
                                  unsigned bytes)
{
    for (unsigned o = 0; o < bytes; o += 4u)
        cml_body_emit(c, site, CML_SPACE_LOCAL, op, CML_CACHE_CA, 4u, (uint64_t)offset + o);
}
#define CML_SPILL_ST(site, offset, bytes)                                                  \
    cml_body_spill(cml_ctx_, (site), CML_OP_STORE, (offset), (bytes))
#define CML_SPILL_LD(site, offset, bytes)                                                  \
    cml_body_spill(cml_ctx_, (site), CML_OP_LOAD, (offset), (bytes))

/* Constant memory: the model sees byte offsets in the constant bank, from
 * `offset` for the array (an integer constant cast to a pointer: a
 * constant initializer at file scope). */
#define CML_CONST_BASE ((uint64_t)1 << 61)
#define CML_CONSTANT_ARRAY(T, name, count, offset)                                         \
    static T *const name = (T *)(uintptr_t)(CML_CONST_BASE + (offset))
#define CML_LDC(site, T, p, i)                                                             \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA,        \
                   (unsigned)sizeof *((p) + (i)), CML_ADDR((p) + (i)) - CML_CONST_BASE),   \
     (T){0})

/* Variables of a module: their type and place, as a typedef and an enum
 * (so that the declaration takes its `;` as in CUDA), and CML_VAR their
 * fake address: global array k, or `offset` in the constant bank. */
#define CML_DEVICE_VAR(T, name, k)                                                         \
    typedef T name##_cml_type;                                                             \
    enum { name##_cml_const = 0, name##_cml_at = (k) }
#define CML_CONSTANT_VAR(T, name, offset)                                                  \
    typedef T name##_cml_type;                                                             \
    enum { name##_cml_const = 1, name##_cml_at = (offset) }
#define CML_VAR(name)                                                                      \
    ((name##_cml_type *)(uintptr_t)(name##_cml_const                                       \
                                        ? CML_CONST_BASE + (uint64_t)name##_cml_at         \
                                        : cml_array_base((unsigned)name##_cml_at)))

/* ---- added for the peak kernels (src/lab/peak_body.h) ------------------ */

/* A float's bit pattern (a union: C11 defines reading the other member). */
static inline unsigned cml_body_float_as_uint(float x)
{
    union {
        float f;
        unsigned u;
    } v;
    v.f = x;
    return v.u;
}
#define CML_FLOAT_AS_UINT(x) cml_body_float_as_uint(x)

/* A shared load emitted as CML_LDS, its value the mirror's. */
#define CML_LDSV(site, T, p, i, mirror_value)                                              \
    (cml_body_emit(cml_ctx_, (site), CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA,          \
                   (unsigned)sizeof *((p) + (i)), CML_SHARED_ADDR((p) + (i))),             \
     (T)(mirror_value))

/* Atomics: no emission (the model has no atomic access); the operands are
 * evaluated, the value is mirror_value. */
#define CML_ATOMIC_ADD(site, p, i, v, mirror_value)                                        \
    ((void)(site), (void)((p) + (i)), (void)(v), (mirror_value))
#define CML_ATOMIC_EXCH(site, p, i, v, mirror_value)                                       \
    ((void)(site), (void)((p) + (i)), (void)(v), (mirror_value))
#define CML_THREADFENCE() ((void)0)

#endif /* __CUDACC__ */
#endif
