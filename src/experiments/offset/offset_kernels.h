/* extern "C" launchers of offset.cu, callable from C. */
#ifndef CML_OFFSET_KERNELS_H
#define CML_OFFSET_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_offset_launch_args {
    const float *A, *B;
    float *C;
    uint64_t n, offset;
    unsigned block;
    int write; /* 0: read-offset, 1: write-offset */
    int path;  /* index into ca|cg|nc (reads) or wb|cg|cs (writes) */
} cml_offset_launch_args;

/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_offset_launch(void *args);
/* The __global__ function, for the occupancy calculator. */
CML_LAUNCHER const void *cml_offset_kernel(int write, int path);
/* Count wrong elements of C into d_counters[0] (zeroed by the caller), the
 * lowest wrong index into d_counters[1] (set to all ones by the caller). */
CML_LAUNCHER cml_status cml_offset_check(const cml_offset_launch_args *a, uint64_t seed_a,
                                         uint64_t seed_b, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
