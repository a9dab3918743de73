/* extern "C" launchers of transfers.cu (experiment 13), callable from C. */
#ifndef CML_TRANSFERS_KERNELS_H
#define CML_TRANSFERS_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-copy read: out[i] = in[i*stride + offset] for i < n, one thread per
 * element. `in` is any address the device can read: device memory, the
 * device pointer of mapped host memory, or (with unified addressing) the
 * host pointer of mapped memory itself. */
typedef struct cml_zerocopy_launch_args {
    const float *in;
    float *out;       /* device memory, n floats */
    uint64_t n;
    unsigned stride;  /* floats */
    unsigned offset;  /* floats */
    unsigned block;
} cml_zerocopy_launch_args;

CML_LAUNCHER cml_status cml_zerocopy_launch(void *args);
CML_LAUNCHER const void *cml_zerocopy_kernel(void);
/* Count elements of out that are not cml_random_f32(seed, i*stride+offset)
 * into d_counters[0] (zeroed by the caller), the lowest wrong index into
 * d_counters[1] (all ones from the caller). */
CML_LAUNCHER cml_status cml_zerocopy_check(const cml_zerocopy_launch_args *a, uint64_t seed,
                                           unsigned long long *d_counters);

/* Managed-memory kernel (the textbook's sumMatrixGPUManaged reduced to one
 * input): out[i] = 2 * in[i] for i < n, exact in floating point. */
typedef struct cml_um_launch_args {
    const float *in;
    float *out;
    uint64_t n;
    unsigned block;
} cml_um_launch_args;

CML_LAUNCHER cml_status cml_um_launch(void *args);
CML_LAUNCHER const void *cml_um_kernel(void);
/* Count elements of out that are not 2 * cml_random_f32(seed, i), as
 * cml_zerocopy_check. Reads only out[]: managed pages stay where they are. */
CML_LAUNCHER cml_status cml_um_check(const cml_um_launch_args *a, uint64_t seed,
                                     unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
