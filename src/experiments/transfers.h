/* Experiment 13 (host <-> device transfers): link arithmetic, the mirrors of
 * the zero-copy and managed-memory kernels (transfers.cu), and the analysis
 * of a copy-size sweep, shared by the model and the GPU run. */
#ifndef CML_EXP_TRANSFERS_H
#define CML_EXP_TRANSFERS_H

#include <stddef.h>

#include "experiments/experiment.h"

/* Typical shares of the raw link rate (MODEL.md section 8.3, INFER): pinned
 * cudaMemcpy ~80%; pageable copies 40-80% of pinned, host-dependent. */
#define CML_PCIE_PINNED_SHARE 0.80
#define CML_PCIE_PAGEABLE_LO 0.40
#define CML_PCIE_PAGEABLE_HI 0.80
/* PCIe packet overhead around each 32-byte read completion (TLP header,
 * framing, DLLP share): ~20-30 bytes (MODEL.md section 8.2, INFER). */
#define CML_PCIE_OVERHEAD_LO 20u
#define CML_PCIE_OVERHEAD_HI 30u

/* Unified memory migration granules (MODEL.md section 8.1): host pages of
 * 4 KiB at least, whole 2 MiB VA blocks at most. */
#define CML_UM_PAGE_BYTES 4096u
#define CML_UM_BLOCK_BYTES (2u * 1024u * 1024u)

/* Raw bandwidth of one direction of a PCIe link in GB/s (1e9 B/s):
 * GT/s * lanes * 128/130 (Gen3+ line code) / 8 bits. */
double cml_pcie_raw_gbs(double gts, unsigned lanes);

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

/* Bytes a first touch of `bytes` contiguous bytes starting at a 2 MiB
 * boundary migrates: at least every 4 KiB page, at most every 2 MiB block
 * (MODEL.md section 8.1). */
void cml_um_migration_bounds(uint64_t bytes, uint64_t *low, uint64_t *high);

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
