/* extern "C" launchers of readonly.cu, callable from C, and the arithmetic
 * and hash that the kernels, the mirror and every checker share. */
#ifndef CML_READONLY_KERNELS_H
#define CML_READONLY_KERNELS_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

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
typedef enum cml_ro_path { CML_RO_CA = 0, CML_RO_CG, CML_RO_NC, CML_RO_PATH_COUNT } cml_ro_path;

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
#endif
