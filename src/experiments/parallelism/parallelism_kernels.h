/* extern "C" launchers of parallelism.cu, callable from C. */
#ifndef CML_PARALLELISM_KERNELS_H
#define CML_PARALLELISM_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_parallelism_launch_args {
    const float *A, *B;
    float *C;
    uint64_t n;       /* elements per array */
    uint64_t cap;     /* floats allocated in C: the checker checks all of them */
    unsigned grid;    /* grid-stride: blocks to launch; one-per-thread: ignored */
    unsigned block;
    int gridstride;   /* 0: one element per thread, grid = ceil(n / block) */
} cml_parallelism_launch_args;

/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_parallelism_launch(void *args);
/* The __global__ function, for the occupancy calculator. */
CML_LAUNCHER const void *cml_parallelism_kernel(int gridstride);
/* Count wrong floats of C[0, cap) into d_counters[0] (zeroed by the caller),
 * the lowest wrong index into d_counters[1] (all ones from the caller):
 * C[i] = A[i] + B[i] for i < n, the poison 0xFFFFFFFF beyond. A and B were
 * filled with cml_random_f32(seed_a / seed_b, i). */
CML_LAUNCHER cml_status cml_parallelism_check(const cml_parallelism_launch_args *a, uint64_t seed_a,
                                              uint64_t seed_b, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
