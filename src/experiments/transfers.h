/* Experiment 13 (host <-> device transfers): link arithmetic and the
 * zero-copy kernel mirror, shared with the GPU run (transfers.cu, later). */
#ifndef CML_EXP_TRANSFERS_H
#define CML_EXP_TRANSFERS_H

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

/* Raw bandwidth of one direction of a PCIe link in GB/s (1e9 B/s):
 * GT/s * lanes * 128/130 (Gen3+ line code) / 8 bits. */
double cml_pcie_raw_gbs(double gts, unsigned lanes);

typedef struct cml_zerocopy_args {
    uint64_t n;       /* floats read (one per thread) */
    unsigned stride;  /* in floats: 1, 8 (32 B) or 32 (128 B) */
} cml_zerocopy_args;

void cml_zerocopy_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_transfers;

#endif
