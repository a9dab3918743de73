/* extern "C" launchers of stride.cu, callable from C, and the permutation
 * that the kernels, the mirror and every checker share. */
#ifndef CML_STRIDE_KERNELS_H
#define CML_STRIDE_KERNELS_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

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
#endif
