/* Experiment 13 (host <-> device transfers): the mirrors of the zero-copy and
 * managed-memory kernels (transfers.cu) and the analysis of a copy-size
 * sweep, shared by the model and the GPU run. The link arithmetic is the
 * model's (include/cumemlab/pcie.h); the modules are listed in
 * transfers_internal.h. */
#ifndef CML_EXP_TRANSFERS_H
#define CML_EXP_TRANSFERS_H

#include <stddef.h>

#include "cumemlab/pcie.h"
#include "lab/experiment.h"

/* The zero-copy kernel: out[i] = in[i*stride + offset], i < n. */
typedef struct cml_zerocopy_args {
    uint64_t n;       /* floats read (one per thread) */
    unsigned stride;  /* in floats: 1, 2 (8 B), 8 (32 B) or 32 (128 B) */
    unsigned offset;  /* in floats: 0, or 11 (44 B: the textbook's misaligned warp) */
} cml_zerocopy_args;

void cml_zerocopy_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The managed-memory kernel: out[i] = 2 * in[i], i < n. */
typedef struct cml_um_args {
    uint64_t n;
} cml_um_args;

void cml_um_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/*
 * Latency and bandwidth of a copy-size sweep: sizes bytes[0..n) ascending,
 * median times ms[0..n). The asymptotic bandwidth is the best of the sweep
 * (asym_gbs, at index asym_index). half_bytes is where half of it is first
 * reached, interpolated linearly in bandwidth over log(size) between the
 * two sizes around it (half_index: the first size at or above half; 0 means
 * already at the smallest size, and half_bytes is then that size). The
 * latency-bandwidth fit t(s) = t0 + s/B with B = asym_gbs and t0 from the
 * smallest size gives t0_us (>= 0) and fit_half_bytes = t0 * B, the size at
 * which latency and transfer time are equal. CML_EINVAL for n == 0 or a
 * non-positive time or size.
 */
typedef struct cml_halfbw {
    double asym_gbs;
    size_t asym_index;
    double half_bytes;
    size_t half_index;
    double t0_us;
    double fit_half_bytes;
} cml_halfbw;

cml_status cml_transfers_half_bandwidth(const double *bytes, const double *ms, size_t n,
                                        cml_halfbw *out);

extern const cml_experiment cml_exp_transfers;

#endif
