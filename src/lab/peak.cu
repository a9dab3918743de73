/*
 * The peak bandwidth kernels (the lab's quick measurement and experiment
 * 16), their checker and the sum's reference. peak.h gives the arithmetic
 * of each kernel, why it verifies bit for bit, and the shapes
 * (CML_PEAK_SHAPES): every shape is compiled for every kernel here, from
 * one template per layout.
 *
 * The C mirror (cml_peak_mirror, src/experiments/peak/peak_model.c) emits
 * exactly the accesses of these kernels, site by site; keep them in step.
 *
 * Why these kernels can reach the memory's limit: a warp's accesses cover
 * 32 x W contiguous bytes (whole 128-byte lines for W = 4, 8, 16), so no
 * sector is fetched twice or half used; U independent loads per thread are
 * in flight before the first store. Which shape wins depends on the card
 * (docs/experiments/peak-bandwidth.md, "Why a shape loses"), so all are
 * measured on every card.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "gpu/gpu_internal.h"
#include "lab/peak.h"

/* ---- vectors of W bytes ------------------------------------------------- */

template <int W> struct vec;
template <> struct vec<4> { typedef float T; };
template <> struct vec<8> { typedef float2 T; };
template <> struct vec<16> { typedef float4 T; };

template <class V> __device__ __forceinline__ V zero();
template <> __device__ __forceinline__ float zero<float>() { return 0.0f; }
template <> __device__ __forceinline__ float2 zero<float2>() { return make_float2(0.0f, 0.0f); }
template <> __device__ __forceinline__ float4 zero<float4>()
{
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

/* Loads through the read-only path, or streaming (evict-first) loads. */
template <bool CS, class V> __device__ __forceinline__ V load(const V *p)
{
    return CS ? __ldcs(p) : __ldg(p);
}
/* Plain write-back stores, or streaming stores. */
template <bool CS, class V> __device__ __forceinline__ void store(V *p, V v)
{
    if (CS)
        __stcs(p, v);
    else
        *p = v;
}

/* ---- the element operations, with no contraction into FMA ------------- */

template <int OP> __device__ __forceinline__ float elem(float x, float y)
{
    switch (OP) {
    case CML_PEAK_SCALE: return __fmul_rn(CML_PEAK_SCALAR, x);
    case CML_PEAK_ADD: return __fadd_rn(x, y);
    case CML_PEAK_TRIAD: return __fadd_rn(x, __fmul_rn(CML_PEAK_SCALAR, y));
    case CML_PEAK_FILL: return CML_PEAK_FILL_VALUE;
    default: return x; /* copy */
    }
}

template <int OP> __device__ __forceinline__ float apply(float a, float b)
{
    return elem<OP>(a, b);
}
template <int OP> __device__ __forceinline__ float2 apply(float2 a, float2 b)
{
    return make_float2(elem<OP>(a.x, b.x), elem<OP>(a.y, b.y));
}
template <int OP> __device__ __forceinline__ float4 apply(float4 a, float4 b)
{
    return make_float4(elem<OP>(a.x, b.x), elem<OP>(a.y, b.y), elem<OP>(a.z, b.z),
                       elem<OP>(a.w, b.w));
}

/* The sum's checksum: the words' bit patterns added as unsigned integers. */
__device__ __forceinline__ unsigned long long bits(float a)
{
    return (unsigned long long)__float_as_uint(a);
}
__device__ __forceinline__ unsigned long long bits(float2 a)
{
    return bits(a.x) + bits(a.y);
}
__device__ __forceinline__ unsigned long long bits(float4 a)
{
    return (bits(a.x) + bits(a.y)) + (bits(a.z) + bits(a.w));
}

/* ---- elementwise kernels (copy, scale, add, triad, fill) --------------- */

/*
 * Grid-stride: thread t takes vector t, t + stride, t + 2 stride, ... The
 * main loop takes U of them per iteration, all loads issued before the
 * first store (an unroll pragma on a plain loop would not do it: the
 * compiler guards every unrolled step with its own exit test); the
 * remainder loop takes the last < U; then the < W/4 trailing floats go to
 * the first threads of the grid.
 */
template <int OP, int W, int U, bool CS>
__global__ void peak_gs(const float *__restrict__ x, const float *__restrict__ y,
                        float *__restrict__ z, uint64_t n)
{
    typedef typename vec<W>::T V;
    const bool needs_x = OP != CML_PEAK_FILL;
    const bool needs_y = OP == CML_PEAK_ADD || OP == CML_PEAK_TRIAD;
    const V *xv = (const V *)x;
    const V *yv = (const V *)y;
    V *zv = (V *)z;
    const uint64_t nv = n / (W / 4);
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t t = i;
    for (; i + (U - 1) * stride < nv; i += U * stride) {
        V a[U], b[U];
#pragma unroll
        for (int k = 0; k < U; k++)
            a[k] = needs_x ? load<CS>(xv + i + k * stride) : zero<V>();
#pragma unroll
        for (int k = 0; k < U; k++)
            b[k] = needs_y ? load<CS>(yv + i + k * stride) : a[k];
#pragma unroll
        for (int k = 0; k < U; k++)
            store<CS>(zv + i + k * stride, apply<OP>(a[k], b[k]));
    }
    for (; i < nv; i += stride) {
        const V a = needs_x ? load<CS>(xv + i) : zero<V>();
        const V b = needs_y ? load<CS>(yv + i) : a;
        store<CS>(zv + i, apply<OP>(a, b));
    }
    const uint64_t r = nv * (W / 4) + t;
    if (W > 4 && r < n) {
        float av = needs_x ? load<CS>(x + r) : 0.0f;
        float bv = needs_y ? load<CS>(y + r) : av;
        store<CS>(z + r, elem<OP>(av, bv));
    }
}

/* One-shot: block b covers vectors [b*blockDim*U, (b+1)*blockDim*U); thread
 * t takes base + k*blockDim (k < U), so each of the U accesses is a
 * coalesced warp access; all loads are issued before the first store. The
 * trailing floats go to the first threads of block 0. */
template <int OP, int W, int U, bool CS>
__global__ void peak_os(const float *__restrict__ x, const float *__restrict__ y,
                        float *__restrict__ z, uint64_t n)
{
    typedef typename vec<W>::T V;
    const bool needs_x = OP != CML_PEAK_FILL;
    const bool needs_y = OP == CML_PEAK_ADD || OP == CML_PEAK_TRIAD;
    const V *xv = (const V *)x;
    const V *yv = (const V *)y;
    V *zv = (V *)z;
    const uint64_t nv = n / (W / 4);
    const uint64_t base = (uint64_t)blockIdx.x * blockDim.x * U + threadIdx.x;
    V a[U], b[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
        const uint64_t i = base + (uint64_t)k * blockDim.x;
        a[k] = needs_x && i < nv ? load<CS>(xv + i) : zero<V>();
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
        const uint64_t i = base + (uint64_t)k * blockDim.x;
        b[k] = needs_y && i < nv ? load<CS>(yv + i) : a[k];
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
        const uint64_t i = base + (uint64_t)k * blockDim.x;
        if (i < nv)
            store<CS>(zv + i, apply<OP>(a[k], b[k]));
    }
    const uint64_t r = nv * (W / 4) + threadIdx.x;
    if (W > 4 && blockIdx.x == 0 && r < n) {
        float av = needs_x ? load<CS>(x + r) : 0.0f;
        float bv = needs_y ? load<CS>(y + r) : av;
        store<CS>(z + r, elem<OP>(av, bv));
    }
}

/* ---- the read-only sum ---------------------------------------------------- */

/*
 * Sum of a block's values into thread 0: shuffles within each warp, lane 0
 * of each warp writes its warp's sum to shared memory, warp 0 adds those.
 * Needs blockDim.x a multiple of 32 (full-mask shuffles); the host checks.
 */
__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xFFFFFFFFu, v, off);
    return v;
}

__device__ unsigned long long block_sum(unsigned long long v)
{
    __shared__ unsigned long long warp_sums[32];
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[w] = v;
    __syncthreads();
    v = 0ull;
    if (w == 0) {
        if (lane < (blockDim.x >> 5))
            v = warp_sums[lane];
        v = warp_sum(v);
    }
    return v;
}

/*
 * The end of every sum kernel: thread 0 adds the block's sum into a slot,
 * then takes a ticket; the block with the last ticket adds the slots into
 * *result and zeroes slots and ticket for the next launch. The fence makes
 * the slot update visible to every block before the ticket says it is there.
 */
__device__ void sum_finish(unsigned long long block_total, unsigned long long *slots,
                           unsigned *ticket, unsigned long long *result)
{
    __shared__ int is_last;
    if (threadIdx.x == 0) {
        atomicAdd(&slots[blockIdx.x % CML_PEAK_SUM_SLOTS], block_total);
        __threadfence();
        is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    /* Also orders block_sum's reads of its shared array before the second
     * block_sum below writes it again. */
    __syncthreads();
    if (!is_last)
        return;
    unsigned long long v = 0ull;
    if (threadIdx.x < CML_PEAK_SUM_SLOTS)
        v = atomicExch(&slots[threadIdx.x], 0ull); /* read and zero in one atomic */
    v = block_sum(v);
    if (threadIdx.x == 0) {
        *result = v;
        *ticket = 0u;
    }
}

template <int W, int U, bool CS>
__global__ void peak_sum_gs(const float *__restrict__ x, uint64_t n, unsigned long long *slots,
                            unsigned *ticket, unsigned long long *result)
{
    typedef typename vec<W>::T V;
    const V *xv = (const V *)x;
    const uint64_t nv = n / (W / 4);
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t t = i;
    unsigned long long acc = 0ull;
    for (; i + (U - 1) * stride < nv; i += U * stride) {
        V a[U];
#pragma unroll
        for (int k = 0; k < U; k++)
            a[k] = load<CS>(xv + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; k++)
            acc += bits(a[k]);
    }
    for (; i < nv; i += stride)
        acc += bits(load<CS>(xv + i));
    const uint64_t r = nv * (W / 4) + t;
    if (W > 4 && r < n)
        acc += bits(load<CS>(x + r));
    sum_finish(block_sum(acc), slots, ticket, result);
}

template <int W, int U, bool CS>
__global__ void peak_sum_os(const float *__restrict__ x, uint64_t n, unsigned long long *slots,
                            unsigned *ticket, unsigned long long *result)
{
    typedef typename vec<W>::T V;
    const V *xv = (const V *)x;
    const uint64_t nv = n / (W / 4);
    const uint64_t base = (uint64_t)blockIdx.x * blockDim.x * U + threadIdx.x;
    V a[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
        const uint64_t i = base + (uint64_t)k * blockDim.x;
        a[k] = i < nv ? load<CS>(xv + i) : zero<V>(); /* zero adds nothing */
    }
    unsigned long long acc = 0ull;
#pragma unroll
    for (int k = 0; k < U; k++)
        acc += bits(a[k]);
    const uint64_t r = nv * (W / 4) + threadIdx.x;
    if (W > 4 && blockIdx.x == 0 && r < n)
        acc += bits(load<CS>(x + r));
    sum_finish(block_sum(acc), slots, ticket, result);
}

/* ---- the tables: every kernel in every shape --------------------------- */

typedef void (*elementwise_kernel)(const float *, const float *, float *, uint64_t);
typedef void (*sum_kernel)(const float *, uint64_t, unsigned long long *, unsigned *,
                           unsigned long long *);

template <int OP, int LAYOUT, int W, int U, int CS> struct pick_ew {
    static elementwise_kernel get()
    {
        return LAYOUT == CML_PEAK_ONE_SHOT ? peak_os<OP, W, U, (CS != 0)>
                                           : peak_gs<OP, W, U, (CS != 0)>;
    }
};
template <int LAYOUT, int W, int U, int CS> struct pick_sum {
    static sum_kernel get()
    {
        return LAYOUT == CML_PEAK_ONE_SHOT ? peak_sum_os<W, U, (CS != 0)>
                                           : peak_sum_gs<W, U, (CS != 0)>;
    }
};

#define EW_ROW(OP)                                                                          \
    static elementwise_kernel ew_##OP(int shape)                                           \
    {                                                                                      \
        switch (shape) {                                                                   \
            CML_PEAK_SHAPES(EW_CASE_##OP)                                                  \
        default: return NULL;                                                              \
        }                                                                                  \
    }
#define EW_CASE(OP, ID, LAYOUT, W, U, CS) \
    case ID: return pick_ew<OP, LAYOUT, W, U, CS>::get();
#define EW_CASE_COPY(ID, NAME, LAYOUT, W, U, CS, Q) EW_CASE(CML_PEAK_COPY, ID, LAYOUT, W, U, CS)
#define EW_CASE_SCALE(ID, NAME, LAYOUT, W, U, CS, Q) EW_CASE(CML_PEAK_SCALE, ID, LAYOUT, W, U, CS)
#define EW_CASE_ADD(ID, NAME, LAYOUT, W, U, CS, Q) EW_CASE(CML_PEAK_ADD, ID, LAYOUT, W, U, CS)
#define EW_CASE_TRIAD(ID, NAME, LAYOUT, W, U, CS, Q) EW_CASE(CML_PEAK_TRIAD, ID, LAYOUT, W, U, CS)
#define EW_CASE_FILL(ID, NAME, LAYOUT, W, U, CS, Q) EW_CASE(CML_PEAK_FILL, ID, LAYOUT, W, U, CS)
EW_ROW(COPY)
EW_ROW(SCALE)
EW_ROW(ADD)
EW_ROW(TRIAD)
EW_ROW(FILL)

#define SUM_CASE(ID, NAME, LAYOUT, W, U, CS, Q) \
    case ID: return pick_sum<LAYOUT, W, U, CS>::get();
static sum_kernel sum_of(int shape)
{
    switch (shape) {
        CML_PEAK_SHAPES(SUM_CASE)
    default: return NULL;
    }
}

static elementwise_kernel pick_elementwise(int op, int shape)
{
    switch (op) {
    case CML_PEAK_COPY: return ew_COPY(shape);
    case CML_PEAK_SCALE: return ew_SCALE(shape);
    case CML_PEAK_ADD: return ew_ADD(shape);
    case CML_PEAK_TRIAD: return ew_TRIAD(shape);
    case CML_PEAK_FILL: return ew_FILL(shape);
    default: return NULL;
    }
}

extern "C" const void *cml_peak_kernel(cml_peak_op op, cml_peak_shape shape)
{
    if (op == CML_PEAK_SUM)
        return (const void *)sum_of(shape);
    return (const void *)pick_elementwise(op, shape);
}

extern "C" cml_status cml_peak_launch(void *vctx)
{
    const cml_peak_args *a = (const cml_peak_args *)vctx;
    const size_t bytes = (size_t)a->n * sizeof(float);
    if (a->op == CML_PEAK_MEMCPY) {
        CML_CU(cudaMemcpyAsync(a->z, a->x, bytes, cudaMemcpyDeviceToDevice, 0));
        return CML_OK;
    }
    if (a->op == CML_PEAK_MEMSET) {
        CML_CU(cudaMemsetAsync(a->z, CML_PEAK_MEMSET_BYTE, bytes, 0));
        return CML_OK;
    }
    if (a->grid == 0 || a->block == 0 || a->block % 32u != 0)
        return CML_EINVAL;
    if (a->op == CML_PEAK_SUM) {
        sum_kernel k = sum_of(a->shape);
        if (!k)
            return CML_EINVAL;
        k<<<a->grid, a->block>>>(a->x, a->n, a->slots, a->ticket, a->result);
        CML_CU_LAUNCH();
        return CML_OK;
    }
    elementwise_kernel k = pick_elementwise(a->op, a->shape);
    if (!k)
        return CML_EINVAL;
    k<<<a->grid, a->block>>>(a->x, a->y, a->z, a->n);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* ---- verification ------------------------------------------------------- */

__device__ __forceinline__ float expected(int op, uint64_t seed_x, uint64_t seed_y, uint64_t i)
{
    switch (op) {
    case CML_PEAK_FILL: return CML_PEAK_FILL_VALUE;
    case CML_PEAK_MEMSET:
        return __uint_as_float(0x01010101u * (unsigned)CML_PEAK_MEMSET_BYTE);
    default: break;
    }
    const float xv = cml_random_f32(seed_x, i);
    switch (op) {
    case CML_PEAK_SCALE: return elem<CML_PEAK_SCALE>(xv, 0.0f);
    case CML_PEAK_ADD: return elem<CML_PEAK_ADD>(xv, cml_random_f32(seed_y, i));
    case CML_PEAK_TRIAD: return elem<CML_PEAK_TRIAD>(xv, cml_random_f32(seed_y, i));
    default: return xv; /* copy, memcpy */
    }
}

/* Every element, bit for bit: a NaN from the poison never compares equal. */
__global__ void peak_check(const float *__restrict__ z, uint64_t n, int op, uint64_t seed_x,
                           uint64_t seed_y, unsigned long long *bad, unsigned long long *first_bad)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (__float_as_uint(z[i]) != __float_as_uint(expected(op, seed_x, seed_y, i))) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)i);
        }
    }
}

extern "C" cml_status cml_peak_check(const cml_peak_args *a, uint64_t seed_x, uint64_t seed_y,
                                     unsigned long long *d_counters)
{
    if (a->n == 0)
        return CML_OK;
    uint64_t want = (a->n + 255) / 256;
    unsigned grid = (unsigned)(want < 8192 ? want : 8192);
    peak_check<<<grid, 256>>>(a->z, a->n, (int)a->op, seed_x, seed_y, d_counters,
                              d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* The reference checksum straight from the generator (not from memory), so
 * a wrong input element or a skipped one changes the kernel's sum but not
 * this. Integer sums modulo 2^64: the atomics' order does not matter. */
__global__ void peak_reference_sum(uint64_t n, uint64_t seed, unsigned long long *sum)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned long long acc = 0ull;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        acc += bits(cml_random_f32(seed, i));
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        atomicAdd(sum, acc);
}

extern "C" cml_status cml_peak_reference_sum(uint64_t n, uint64_t seed, unsigned long long *d_sum)
{
    if (n == 0)
        return CML_OK;
    uint64_t want = (n + 255) / 256;
    unsigned grid = (unsigned)(want < 4096 ? want : 4096);
    peak_reference_sum<<<grid, 256>>>(n, seed, d_sum);
    CML_CU_LAUNCH();
    return CML_OK;
}
