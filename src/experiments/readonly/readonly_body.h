/*
 * Experiment 7: the read-only cache. Three kernels (streaming copy, a 1-D
 * 9-point stencil read straight from global memory, a gather from a small
 * hot table), each compiled once per load path (ld.global.ca via __ldca,
 * ld.global.cg via __ldcg, ld.global.nc via __ldg, ld.global.cs via
 * __ldcs) so one binary holds all variants, and a checker that recomputes
 * every output float.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that readonly.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (readonly.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * One thread per output, i = blockIdx.x * blockDim.x + threadIdx.x; loads
 * through `ld` (ca, cg, nc or cs), stores plain in every variant: only the
 * load path changes. The arithmetic and hash that the kernels, the mirror
 * and every checker share are here too.
 */
#ifndef CML_READONLY_BODY_H
#define CML_READONLY_BODY_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

typedef struct cml_readonly_args {
    int pattern;      /* cml_ro_pattern (above) */
    cml_cache cache;  /* the loads' path: CA, CG, NC or CS */
    uint64_t n;       /* see cml_readonly_launch_args */
    uint64_t m;       /* hot-gather: table floats, a power of two >= 32 */
} cml_readonly_args;

void cml_readonly_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_readonly_trace(cml_record *rec, const cml_readonly_args *a, unsigned block);

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_ro_pattern {
    CML_RO_COPY = 0,    /* C[i] = A[i], i < n                      */
    CML_RO_STENCIL,     /* C[i] = sum_k c_k A[i+k], k < 9, i < n-8 */
    CML_RO_HOT_GATHER,  /* C[i] = T[hot(i)], i < n, T of m floats  */
    CML_RO_PATTERN_COUNT
} cml_ro_pattern;

/* Load paths, in the order of the experiment's `path` choices. */
typedef enum cml_ro_path {
    CML_RO_CA = 0,
    CML_RO_CG,
    CML_RO_NC,
    CML_RO_CS,
    CML_RO_PATH_COUNT
} cml_ro_path;

#define CML_STENCIL_POINTS 9u

/* Coefficient k of the 9-point stencil: 1 2 3 4 12 4 3 2 1, over 32 (they
 * sum to 1, so outputs stay in [1, 2) like the inputs). */
CML_HD float cml_stencil_coef(unsigned k)
{
    switch (k) {
    case 0: case 8: return 1.0f / 32.0f;
    case 1: case 7: return 2.0f / 32.0f;
    case 2: case 6: return 3.0f / 32.0f;
    case 3: case 5: return 4.0f / 32.0f;
    default: return 12.0f / 32.0f;
    }
}

/*
 * The stencil of v[0..8], in one fixed order: acc = c0*v0, then acc +=
 * ck*vk for k = 1..8, every product and sum rounded to float on its own.
 * On the device __fmul_rn/__fadd_rn forbid fusing into FMA; on the host each
 * operation is its own statement (no contraction across statements in ISO C,
 * and x86-64 SSE evaluates float in float). So kernel, device checker and
 * host reference agree bit for bit, and the comparison is exact.
 */
CML_HD float cml_stencil9(const float *v)
{
#if defined(__CUDA_ARCH__)
    float acc = __fmul_rn(cml_stencil_coef(0), v[0]);
#pragma unroll
    for (unsigned k = 1; k < CML_STENCIL_POINTS; k++)
        acc = __fadd_rn(acc, __fmul_rn(cml_stencil_coef(k), v[k]));
    return acc;
#else
    float acc = cml_stencil_coef(0) * v[0];
    for (unsigned k = 1; k < CML_STENCIL_POINTS; k++) {
        float p = cml_stencil_coef(k) * v[k];
        acc = acc + p;
    }
    return acc;
#endif
}

/*
 * Table index of element i for a table of m floats (m a power of two, at
 * least 32): (H(lane) + 32 * G(warp)) mod m, with i's lane = i mod 32 and
 * warp = i / 32, and H, G multiplicative hashes. Every warp puts its lanes
 * at the same pseudo-random spread (32 different lines of the table for the
 * sizes this experiment uses), shifted by a pseudo-random multiple of 128
 * bytes modulo the table: over the warps the whole table is hit evenly, and
 * because the shift maps lines onto lines, every warp has exactly the same
 * sectors and lines per request, which keeps the model exact at O(1) cost.
 */
CML_HD uint64_t cml_hot_index(uint64_t i, uint64_t m)
{
    uint64_t h = ((i % 32u + 1u) * 0xD1B54A32D192ED03ull) >> 40;
    uint64_t g = ((i / 32u) * 0x9E3779B97F4A7C15ull) >> 24;
    return (h + 32u * g) & (m - 1u);
}

typedef struct cml_readonly_launch_args {
    const float *A;   /* copy, stencil: the input of n floats */
    const float *T;   /* hot-gather: the table of m floats */
    float *C;
    uint64_t n;       /* copy, hot-gather: elements; stencil: inputs (outputs n - 8) */
    uint64_t m;       /* hot-gather: table floats, a power of two >= 32 */
    uint64_t cap;     /* floats allocated in C: the checker checks all of them */
    unsigned block;
    int pattern;      /* cml_ro_pattern */
    int path;         /* cml_ro_path */
} cml_readonly_launch_args;

/* Threads (outputs) of a launch: n, or n - 8 for the stencil (0 if n <= 8). */
static inline uint64_t cml_readonly_threads(int pattern, uint64_t n)
{
    if (pattern == CML_RO_STENCIL)
        return n > CML_STENCIL_POINTS - 1 ? n - (CML_STENCIL_POINTS - 1) : 0;
    return n;
}

/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_readonly_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: none). */
CML_LAUNCHER const void *cml_readonly_kernel(int pattern, int path);
/* Count wrong floats of C[0, cap) into d_counters[0] (zeroed by the caller),
 * the lowest wrong index into d_counters[1] (all ones from the caller):
 * outputs must match bit for bit (A filled with cml_random_f32(seed_a, i),
 * T with cml_random_f32(seed_t, i)), every other float must be the poison. */
CML_LAUNCHER cml_status cml_readonly_check(const cml_readonly_launch_args *a, uint64_t seed_a,
                                           uint64_t seed_t, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

/* i < n: C[i] = A[i] */
CML_BODY void cml_ro_copy_body(CML_CTX, const float *A, float *C, uint64_t n, unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, ld, float, A, i);
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

/* i < n - 8: C[i] = stencil(A[i .. i+8]); nine loads (sites 0-8), each
 * input element is read by nine threads (the re-use a cache can serve). */
CML_BODY void cml_ro_stencil_body(CML_CTX, const float *A, float *C, uint64_t outs, unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < outs) {
        float v[CML_STENCIL_POINTS];
        CML_UNROLL for (unsigned k = 0; k < CML_STENCIL_POINTS; k++)
            v[k] = CML_LD(k, ld, float, A + i, k);
        CML_ST(CML_STENCIL_POINTS, CML_ST_PLAIN, C, i, cml_stencil9(v));
    }
}

/* i < n: C[i] = T[hot(i)] */
CML_BODY void cml_ro_hot_body(CML_CTX, const float *T, float *C, uint64_t n, uint64_t m,
                              unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i < n) {
        float v = CML_LD(0, ld, float, T, cml_hot_index(i, m));
        CML_ST(1, CML_ST_PLAIN, C, i, v);
    }
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

#define COPY_KERNEL(NAME, LD)                                                                 \
    __global__ void NAME(const float *__restrict__ A, float *__restrict__ C, uint64_t n)     \
    {                                                                                         \
        cml_ro_copy_body(CML_KERNEL_CTX, A, C, n, LD);                                        \
    }

#define STENCIL_KERNEL(NAME, LD)                                                              \
    __global__ void NAME(const float *__restrict__ A, float *__restrict__ C, uint64_t outs)  \
    {                                                                                         \
        cml_ro_stencil_body(CML_KERNEL_CTX, A, C, outs, LD);                                  \
    }

#define HOT_KERNEL(NAME, LD)                                                                  \
    __global__ void NAME(const float *__restrict__ T, float *__restrict__ C, uint64_t n,     \
                         uint64_t m)                                                          \
    {                                                                                         \
        cml_ro_hot_body(CML_KERNEL_CTX, T, C, n, m, LD);                                      \
    }

COPY_KERNEL(ro_copy_ca, CML_LD_CA)
COPY_KERNEL(ro_copy_cg, CML_LD_CG)
COPY_KERNEL(ro_copy_nc, CML_LD_NC)
COPY_KERNEL(ro_copy_cs, CML_LD_CS)
STENCIL_KERNEL(ro_stencil_ca, CML_LD_CA)
STENCIL_KERNEL(ro_stencil_cg, CML_LD_CG)
STENCIL_KERNEL(ro_stencil_nc, CML_LD_NC)
STENCIL_KERNEL(ro_stencil_cs, CML_LD_CS)
HOT_KERNEL(ro_hot_ca, CML_LD_CA)
HOT_KERNEL(ro_hot_cg, CML_LD_CG)
HOT_KERNEL(ro_hot_nc, CML_LD_NC)
HOT_KERNEL(ro_hot_cs, CML_LD_CS)

typedef void (*ro_stream_kernel)(const float *, float *, uint64_t);
typedef void (*ro_hot_kernel)(const float *, float *, uint64_t, uint64_t);

static const ro_stream_kernel copies[] = {ro_copy_ca, ro_copy_cg, ro_copy_nc, ro_copy_cs};
static const ro_stream_kernel stencils[] = {ro_stencil_ca, ro_stencil_cg, ro_stencil_nc,
                                            ro_stencil_cs};
static const ro_hot_kernel hots[] = {ro_hot_ca, ro_hot_cg, ro_hot_nc, ro_hot_cs};

static int valid(int pattern, int path)
{
    return pattern >= 0 && pattern < CML_RO_PATTERN_COUNT && path >= 0 && path < CML_RO_PATH_COUNT;
}

extern "C" const void *cml_readonly_kernel(int pattern, int path)
{
    if (!valid(pattern, path))
        return NULL;
    switch (pattern) {
    case CML_RO_COPY: return (const void *)copies[path];
    case CML_RO_STENCIL: return (const void *)stencils[path];
    default: return (const void *)hots[path];
    }
}

/* m: a power of two, at least one 128-byte line. */
static int table_ok(uint64_t m)
{
    return m >= 32 && (m & (m - 1)) == 0;
}

extern "C" cml_status cml_readonly_launch(void *vctx)
{
    const cml_readonly_launch_args *a = (const cml_readonly_launch_args *)vctx;
    if (!valid(a->pattern, a->path) || a->block == 0 || a->block > 1024)
        return CML_EINVAL;
    if (a->pattern == CML_RO_HOT_GATHER && !table_ok(a->m))
        return CML_EINVAL;
    uint64_t threads = cml_readonly_threads(a->pattern, a->n);
    uint64_t grid = (threads + a->block - 1) / a->block;
    if (grid == 0)
        return CML_OK; /* nothing to do: a zero grid is a launch error */
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    const unsigned g = (unsigned)grid, b = a->block;
    switch (a->pattern) {
    case CML_RO_COPY: copies[a->path]<<<g, b>>>(a->A, a->C, threads); break;
    case CML_RO_STENCIL: stencils[a->path]<<<g, b>>>(a->A, a->C, threads); break;
    default: hots[a->path]<<<g, b>>>(a->T, a->C, threads, a->m); break;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/* Checker over C[0, cap): outputs bit for bit, the poison everywhere else
 * (the stencil's last 8 floats, anything past n). */
__global__ void readonly_check(const float *__restrict__ C, uint64_t cap, uint64_t outs,
                               uint64_t m, int pattern, uint64_t seed_a, uint64_t seed_t,
                               unsigned long long *bad, unsigned long long *first_bad)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t got = __float_as_uint(C[j]);
        int ok;
        if (j >= outs) {
            ok = got == 0xFFFFFFFFu;
        } else if (pattern == CML_RO_COPY) {
            ok = got == __float_as_uint(cml_random_f32(seed_a, j));
        } else if (pattern == CML_RO_STENCIL) {
            float v[CML_STENCIL_POINTS];
            for (unsigned k = 0; k < CML_STENCIL_POINTS; k++)
                v[k] = cml_random_f32(seed_a, j + k);
            ok = got == __float_as_uint(cml_stencil9(v));
        } else {
            ok = got == __float_as_uint(cml_random_f32(seed_t, cml_hot_index(j, m)));
        }
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_readonly_check(const cml_readonly_launch_args *a, uint64_t seed_a,
                                         uint64_t seed_t, unsigned long long *d_counters)
{
    if (!valid(a->pattern, a->path) || (a->pattern == CML_RO_HOT_GATHER && !table_ok(a->m)))
        return CML_EINVAL;
    readonly_check<<<1024, 256>>>(a->C, a->cap, cml_readonly_threads(a->pattern, a->n), a->m,
                                  a->pattern, seed_a, seed_t, d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
