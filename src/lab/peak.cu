/*
 * The peak bandwidth kernels (the lab's quick measurement and experiment
 * 16), their checker and the sum's reference. peak.h gives the arithmetic
 * of each kernel, why it verifies bit for bit, and the shapes
 * (CML_PEAK_SHAPES): every shape is compiled for every kernel here, from
 * one template per layout.
 *
 * Each kernel's per-thread body is in peak_body.h, written once: each
 * template calls the body of its width and unroll (peak_body<W, U>) with
 * its op and access modes as constants, which the inlined body folds, and
 * the model's mirror (cml_peak_mirror, src/experiments/peak/peak_model.c)
 * runs the same body through the C compiler.
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
#include "lab/peak_body.h"

/* The access modes of a shape: the read-only path (__ldg) and plain
 * write-back stores, or the streaming hints (__ldcs, __stcs: evict-first). */
#define PEAK_LD(CS) ((CS) ? CML_LD_CS : CML_LD_NC)
#define PEAK_ST(CS) ((CS) ? CML_ST_CS : CML_ST_PLAIN)

/* The bodies of width W and unroll U (peak_body.h), by template arguments:
 * a pair without bodies has no kernel. */
template <int W, int U> struct peak_body;
#define PEAK_BODY_SET(W, VT, U)                                                              \
    template <> struct peak_body<W, U> {                                                     \
        static __device__ __forceinline__ void gs(const float *x, const float *y, float *z,  \
                                                  uint64_t n, int op, unsigned ld,           \
                                                  unsigned st)                               \
        {                                                                                    \
            cml_peak_gs_v##W##_u##U(CML_KERNEL_CTX, x, y, z, n, op, ld, st);                 \
        }                                                                                    \
        static __device__ __forceinline__ void os(const float *x, const float *y, float *z,  \
                                                  uint64_t n, int op, unsigned ld,           \
                                                  unsigned st)                               \
        {                                                                                    \
            cml_peak_os_v##W##_u##U(CML_KERNEL_CTX, x, y, z, n, op, ld, st);                 \
        }                                                                                    \
        static __device__ __forceinline__ void sum_gs(const float *x, uint64_t n,            \
                                                      unsigned long long *slots,             \
                                                      unsigned *ticket,                      \
                                                      unsigned long long *result, unsigned ld) \
        {                                                                                    \
            cml_peak_sum_gs_v##W##_u##U(CML_KERNEL_CTX, x, n, slots, ticket, result, ld);    \
        }                                                                                    \
        static __device__ __forceinline__ void sum_os(const float *x, uint64_t n,            \
                                                      unsigned long long *slots,             \
                                                      unsigned *ticket,                      \
                                                      unsigned long long *result, unsigned ld) \
        {                                                                                    \
            cml_peak_sum_os_v##W##_u##U(CML_KERNEL_CTX, x, n, slots, ticket, result, ld);    \
        }                                                                                    \
    };
CML_PEAK_BODY_SETS(PEAK_BODY_SET)
#undef PEAK_BODY_SET

/* ---- elementwise kernels (copy, scale, add, triad, fill) --------------- */

template <int OP, int W, int U, bool CS>
__global__ void peak_gs(const float *__restrict__ x, const float *__restrict__ y,
                        float *__restrict__ z, uint64_t n)
{
    peak_body<W, U>::gs(x, y, z, n, OP, PEAK_LD(CS), PEAK_ST(CS));
}

template <int OP, int W, int U, bool CS>
__global__ void peak_os(const float *__restrict__ x, const float *__restrict__ y,
                        float *__restrict__ z, uint64_t n)
{
    peak_body<W, U>::os(x, y, z, n, OP, PEAK_LD(CS), PEAK_ST(CS));
}

/* ---- the read-only sum ---------------------------------------------------- */

template <int W, int U, bool CS>
__global__ void peak_sum_gs(const float *__restrict__ x, uint64_t n, unsigned long long *slots,
                            unsigned *ticket, unsigned long long *result)
{
    peak_body<W, U>::sum_gs(x, n, slots, ticket, result, PEAK_LD(CS));
}

template <int W, int U, bool CS>
__global__ void peak_sum_os(const float *__restrict__ x, uint64_t n, unsigned long long *slots,
                            unsigned *ticket, unsigned long long *result)
{
    peak_body<W, U>::sum_os(x, n, slots, ticket, result, PEAK_LD(CS));
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
    case CML_PEAK_SCALE: return cml_peak_elem(CML_PEAK_SCALE, xv, 0.0f);
    case CML_PEAK_ADD: return cml_peak_elem(CML_PEAK_ADD, xv, cml_random_f32(seed_y, i));
    case CML_PEAK_TRIAD: return cml_peak_elem(CML_PEAK_TRIAD, xv, cml_random_f32(seed_y, i));
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
        acc += cml_peak_bits_v4(cml_random_f32(seed, i));
    acc = cml_peak_block_sum(CML_KERNEL_CTX, acc, CML_PEAK_SITE_SUM); /* not mirrored: no site */
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
