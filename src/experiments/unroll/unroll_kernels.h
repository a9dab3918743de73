/* extern "C" launchers of unroll.cu, callable from C. */
#ifndef CML_UNROLL_KERNELS_H
#define CML_UNROLL_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_unroll_launch_args {
    const float *A, *B; /* viewed as float, float2 or float4 by width */
    float *C;
    uint64_t nv;        /* vector elements per array (floats / (width / 4)) */
    uint64_t offset;    /* read offset, in vector elements */
    uint64_t cap;       /* floats allocated in C: the checker checks all of them */
    unsigned unroll;    /* 1, 2 or 4 independent accesses per thread */
    unsigned width;     /* bytes per access: 4, 8 or 16 */
    unsigned block;
} cml_unroll_launch_args;

/* Blocks of a launch: ceil(nv / (block * unroll)); the mirror's grid too. */
static inline uint64_t cml_unroll_grid(uint64_t nv, unsigned block, unsigned unroll)
{
    uint64_t per = (uint64_t)block * unroll;
    return per ? (nv + per - 1) / per : 0;
}

/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for an unroll or width without a kernel. */
CML_LAUNCHER cml_status cml_unroll_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: none). */
CML_LAUNCHER const void *cml_unroll_kernel(unsigned unroll, unsigned width);
/* Count wrong floats of C[0, cap) into d_counters[0] (zeroed by the caller),
 * the lowest wrong float index into d_counters[1] (all ones from the
 * caller): C's vector e must be A[e+offset] + B[e+offset] where e + offset <
 * nv, every other float the poison 0xFFFFFFFF. A and B were filled with
 * cml_random_f32(seed, float index). */
CML_LAUNCHER cml_status cml_unroll_check(const cml_unroll_launch_args *a, uint64_t seed_a,
                                         uint64_t seed_b, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
