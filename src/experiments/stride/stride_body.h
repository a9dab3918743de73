/*
 * Experiment 6: strided and scattered access. Five kernels (strided read,
 * strided write, warp broadcast, windowed gather and scatter) and one checker
 * that recomputes every element of C, written or not.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that stride.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (stride.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * One thread per element processed, i = blockIdx.x * blockDim.x +
 * threadIdx.x; loads __ldca (site 0, the ca path), stores plain (site 1).
 * The permutation that the kernels, the mirror and every checker share is
 * here too.
 */
#ifndef CML_STRIDE_BODY_H
#define CML_STRIDE_BODY_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

typedef struct cml_stride_args {
    int pattern;      /* cml_stride_pattern (above) */
    uint64_t n;       /* see cml_stride_launch_args */
    uint64_t stride;  /* read/write */
    uint64_t window;  /* gather/scatter: a power of two */
} cml_stride_args;

void cml_stride_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_stride_trace(cml_record *rec, const cml_stride_args *a, unsigned block);

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_stride_pattern {
    CML_STRIDE_READ = 0,   /* C[i] = A[i*s],   i < n/s */
    CML_STRIDE_WRITE,      /* C[i*s] = A[i],   i < n/s */
    CML_STRIDE_BROADCAST,  /* C[i] = A[i/32],  i < n   */
    CML_STRIDE_GATHER,     /* C[i] = A[perm(i)]        */
    CML_STRIDE_SCATTER,    /* C[perm(i)] = A[i]        */
    CML_STRIDE_PATTERN_COUNT
} cml_stride_pattern;

/*
 * The odd multiplier P of the permutation and its inverse modulo 2^64.
 * perm(i) = (i/W)*W + ((i%W)*P)%W is a bijection of each window of W
 * elements for W a power of two (P odd is invertible modulo 2^k).
 * P mod 32 = 3 shuffles a 32-element window (lane l -> 3l mod 32); a window
 * of 1024 puts the 32 lanes of a warp on 32 different sectors (31 lines:
 * putting them on 32 lines needs P = 1 mod 32, which would leave a
 * 32-element window unshuffled); larger windows put them on 32 lines far
 * apart. P's high bits are the golden ratio's, to spread lanes over a large
 * window.
 */
#define CML_STRIDE_P 0x9E3779B97F4A7C63ull
#define CML_STRIDE_P_INV 0x8F9D73FE4243E54Bull

/*
 * perm(i) with window w (a power of two) and mul = CML_STRIDE_P (or
 * CML_STRIDE_P_INV for the inverse) over [0, n); full = (n / w) * w. The
 * elements of a last partial window, i >= full, stay in place, so perm is a
 * bijection of [0, n) for any n. (i % w) * P % w == (i * P) % w: the
 * product may wrap modulo 2^64, and w divides 2^64, so the result is exact
 * for any i.
 */
CML_HD uint64_t cml_stride_perm(uint64_t i, uint64_t full, uint64_t w, uint64_t mul)
{
    if (i >= full)
        return i;
    return (i & ~(w - 1u)) | ((i * mul) & (w - 1u));
}

typedef struct cml_stride_launch_args {
    const float *A;
    float *C;
    uint64_t n;        /* read/write: the strided array's elements (threads: n / stride);
                          broadcast, gather, scatter: elements (threads: n) */
    uint64_t stride;   /* read/write */
    uint64_t window;   /* gather/scatter: a power of two */
    uint64_t cap;      /* floats allocated in C: the checker checks all of them */
    unsigned block;
    int pattern;       /* cml_stride_pattern */
} cml_stride_launch_args;

/* Threads (elements processed) of a launch: n / stride or n. */
static inline uint64_t cml_stride_threads(int pattern, uint64_t n, uint64_t stride)
{
    if (pattern == CML_STRIDE_READ || pattern == CML_STRIDE_WRITE)
        return stride ? n / stride : 0;
    return n;
}

/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for a bad pattern, stride 0 or a window that is not a power
 * of two. */
CML_LAUNCHER cml_status cml_stride_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: none). */
CML_LAUNCHER const void *cml_stride_kernel(int pattern);
/* Count wrong floats of C[0, cap) into d_counters[0] (zeroed by the caller),
 * the lowest wrong index into d_counters[1] (all ones from the caller):
 * every element the pattern writes must hold its A element (A filled with
 * cml_random_f32(seed, index)), every other float the poison 0xFFFFFFFF. */
CML_LAUNCHER cml_status cml_stride_check(const cml_stride_launch_args *a, uint64_t seed,
                                         unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

/* i < m = n / s: C[i] = A[i*s] */
CML_BODY void cml_stride_read_body(CML_CTX, const float *A, float *C, uint64_t m, uint64_t s)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < m) {
        float v = CML_LD(0, CML_LD_CA, float, A, i * s);
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < m = n / s: C[i*s] = A[i] */
CML_BODY void cml_stride_write_body(CML_CTX, const float *A, float *C, uint64_t m, uint64_t s)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < m) {
        float v = CML_LD(0, CML_LD_CA, float, A, i);
        CML_ST(1, CML_ST_PLAIN, C, i * s, v);
    }
}

/* i < n: C[i] = A[i/32] (every lane of an aligned warp on one address) */
CML_BODY void cml_stride_broadcast_body(CML_CTX, const float *A, float *C, uint64_t n)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_CA, float, A, i / 32u);
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < n: C[i] = A[perm(i)] */
CML_BODY void cml_stride_gather_body(CML_CTX, const float *A, float *C, uint64_t n, uint64_t full,
                                     uint64_t w)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_CA, float, A, cml_stride_perm(i, full, w, CML_STRIDE_P));
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < n: C[perm(i)] = A[i] */
CML_BODY void cml_stride_scatter_body(CML_CTX, const float *A, float *C, uint64_t n, uint64_t full,
                                      uint64_t w)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, CML_LD_CA, float, A, i);
        CML_ST(1, CML_ST_PLAIN, C, cml_stride_perm(i, full, w, CML_STRIDE_P), v);
    }
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

__global__ void stride_read(const float *__restrict__ A, float *__restrict__ C, uint64_t m,
                            uint64_t s)
{
    cml_stride_read_body(CML_KERNEL_CTX, A, C, m, s);
}

__global__ void stride_write(const float *__restrict__ A, float *__restrict__ C, uint64_t m,
                             uint64_t s)
{
    cml_stride_write_body(CML_KERNEL_CTX, A, C, m, s);
}

__global__ void stride_broadcast(const float *__restrict__ A, float *__restrict__ C, uint64_t n)
{
    cml_stride_broadcast_body(CML_KERNEL_CTX, A, C, n);
}

__global__ void stride_gather(const float *__restrict__ A, float *__restrict__ C, uint64_t n,
                              uint64_t full, uint64_t w)
{
    cml_stride_gather_body(CML_KERNEL_CTX, A, C, n, full, w);
}

__global__ void stride_scatter(const float *__restrict__ A, float *__restrict__ C, uint64_t n,
                               uint64_t full, uint64_t w)
{
    cml_stride_scatter_body(CML_KERNEL_CTX, A, C, n, full, w);
}

extern "C" const void *cml_stride_kernel(int pattern)
{
    switch (pattern) {
    case CML_STRIDE_READ: return (const void *)stride_read;
    case CML_STRIDE_WRITE: return (const void *)stride_write;
    case CML_STRIDE_BROADCAST: return (const void *)stride_broadcast;
    case CML_STRIDE_GATHER: return (const void *)stride_gather;
    case CML_STRIDE_SCATTER: return (const void *)stride_scatter;
    default: return NULL;
    }
}

static int window_ok(uint64_t w)
{
    return w != 0 && (w & (w - 1)) == 0;
}

extern "C" cml_status cml_stride_launch(void *vctx)
{
    const cml_stride_launch_args *a = (const cml_stride_launch_args *)vctx;
    if (a->block == 0 || a->block > 1024 || a->pattern < 0 ||
        a->pattern >= CML_STRIDE_PATTERN_COUNT)
        return CML_EINVAL;
    if ((a->pattern == CML_STRIDE_READ || a->pattern == CML_STRIDE_WRITE) && a->stride == 0)
        return CML_EINVAL;
    if ((a->pattern == CML_STRIDE_GATHER || a->pattern == CML_STRIDE_SCATTER) &&
        !window_ok(a->window))
        return CML_EINVAL;
    uint64_t threads = cml_stride_threads(a->pattern, a->n, a->stride);
    uint64_t grid = (threads + a->block - 1) / a->block;
    if (grid == 0)
        return CML_OK; /* nothing to do: a zero grid is a launch error */
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    const unsigned g = (unsigned)grid, b = a->block;
    const uint64_t full = a->window ? a->n / a->window * a->window : 0;
    switch (a->pattern) {
    case CML_STRIDE_READ: stride_read<<<g, b>>>(a->A, a->C, threads, a->stride); break;
    case CML_STRIDE_WRITE: stride_write<<<g, b>>>(a->A, a->C, threads, a->stride); break;
    case CML_STRIDE_BROADCAST: stride_broadcast<<<g, b>>>(a->A, a->C, a->n); break;
    case CML_STRIDE_GATHER: stride_gather<<<g, b>>>(a->A, a->C, a->n, full, a->window); break;
    default: stride_scatter<<<g, b>>>(a->A, a->C, a->n, full, a->window); break;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/*
 * Checker over C[0, cap): for each element j, the A index the pattern
 * stores into it, or "unwritten" (then j must still hold the poison). For
 * the scatter, the element stored into j is the one perm sends there:
 * perm's inverse, the same formula with P's inverse.
 */
__global__ void stride_check(const float *__restrict__ C, uint64_t cap, uint64_t n, uint64_t s,
                             uint64_t full, uint64_t w, int pattern, uint64_t seed,
                             unsigned long long *bad, unsigned long long *first_bad)
{
    const uint64_t m = s ? n / s : 0;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        int written = 0;
        uint64_t src = 0;
        switch (pattern) {
        case CML_STRIDE_READ:
            written = j < m;
            src = j * s;
            break;
        case CML_STRIDE_WRITE:
            written = j < m * s && j % s == 0;
            src = j / s;
            break;
        case CML_STRIDE_BROADCAST:
            written = j < n;
            src = j / 32u;
            break;
        case CML_STRIDE_GATHER:
            written = j < n;
            src = written ? cml_stride_perm(j, full, w, CML_STRIDE_P) : 0;
            break;
        default:
            written = j < n;
            src = written ? cml_stride_perm(j, full, w, CML_STRIDE_P_INV) : 0;
            break;
        }
        uint32_t got = __float_as_uint(C[j]);
        int ok = written ? got == __float_as_uint(cml_random_f32(seed, src)) : got == 0xFFFFFFFFu;
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_stride_check(const cml_stride_launch_args *a, uint64_t seed,
                                       unsigned long long *d_counters)
{
    if (a->pattern < 0 || a->pattern >= CML_STRIDE_PATTERN_COUNT)
        return CML_EINVAL;
    if ((a->pattern == CML_STRIDE_GATHER || a->pattern == CML_STRIDE_SCATTER) &&
        !window_ok(a->window))
        return CML_EINVAL;
    uint64_t s = (a->pattern == CML_STRIDE_READ || a->pattern == CML_STRIDE_WRITE) ? a->stride : 0;
    if ((a->pattern == CML_STRIDE_READ || a->pattern == CML_STRIDE_WRITE) && s == 0)
        return CML_EINVAL;
    uint64_t full = a->window ? a->n / a->window * a->window : 0;
    stride_check<<<1024, 256>>>(a->C, a->cap, a->n, s, full, a->window, a->pattern, seed,
                                d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
