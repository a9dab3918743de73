/*
 * cumemlab: the arithmetic of the PCIe link between host and device
 * (docs/model.md section 15): what a copy of a given size should take, how
 * much of the link a zero-copy kernel's 32-byte reads can use, and how many
 * bytes unified memory migrates on first touch. Pure C11, no CUDA, no
 * device: predictions to set beside the measurements of experiment 13
 * (src/experiments/transfers*.c), never measurements themselves.
 *
 * Rates are in GB/s (1e9 bytes per second), times in milliseconds.
 */
#ifndef CUMEMLAB_PCIE_H
#define CUMEMLAB_PCIE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Typical shares of the raw link rate (docs/model.md section 15.3, INFER): pinned
 * cudaMemcpy ~80%; pageable copies 40-80% of pinned, host-dependent. */
#define CML_PCIE_PINNED_SHARE 0.80
#define CML_PCIE_PAGEABLE_LO 0.40
#define CML_PCIE_PAGEABLE_HI 0.80
/* PCIe packet overhead around each 32-byte read completion (TLP header,
 * framing, DLLP share): ~20-30 bytes (docs/model.md section 15.2, INFER). */
#define CML_PCIE_OVERHEAD_LO 20u
#define CML_PCIE_OVERHEAD_HI 30u

/* Unified memory migration granules (docs/model.md section 15.1): host pages of
 * 4 KiB at least, whole 2 MiB VA blocks at most. */
#define CML_UM_PAGE_BYTES 4096u
#define CML_UM_BLOCK_BYTES (2u * 1024u * 1024u)

/* Transfer rate per lane of PCIe generation `gen` in GT/s: 3 -> 8, 4 -> 16,
 * 5 -> 32; 0 for a generation this does not know. */
double cml_pcie_gen_gts(unsigned gen);

/* Raw bandwidth of one direction of a link: GT/s x lanes x 128/130 (the
 * line code of Gen3 and later) / 8 bits. */
double cml_pcie_raw_gbs(double gts, unsigned lanes);

/* What copies over a link of raw rate `raw_gbs` typically get. */
typedef struct cml_pcie_rates {
    double raw_gbs;           /* one direction, as cml_pcie_raw_gbs */
    double pinned_gbs;        /* cudaMemcpy from pinned memory: raw x PINNED_SHARE */
    double pageable_low_gbs;  /* from pageable memory: pinned x PAGEABLE_LO .. */
    double pageable_high_gbs; /* .. pinned x PAGEABLE_HI */
} cml_pcie_rates;

void cml_pcie_link_rates(double raw_gbs, cml_pcie_rates *out);

/* Milliseconds `bytes` take at `gbs` (no latency): bytes / (gbs x 1e9) x 1e3. */
double cml_pcie_time_ms(double bytes, double gbs);

/*
 * A kernel reading mapped host memory: `sectors` 32-byte reads cross the
 * link, carrying `used_bytes` the kernel uses. Each read costs 32 B plus
 * OVERHEAD_LO..HI bytes of packet overhead on the wire, so the share of the
 * link's bytes that are used data lies in [*eff_low, *eff_high] (0..1; the
 * low end with the larger overhead). Both 0 when sectors is 0.
 */
void cml_pcie_zerocopy_efficiency(uint64_t sectors, uint64_t used_bytes, double *eff_low,
                                  double *eff_high);

/* Bytes a first touch of `bytes` contiguous bytes starting at a 2 MiB
 * boundary migrates: at least every 4 KiB page, at most every 2 MiB block
 * (docs/model.md section 15.1). */
void cml_um_migration_bounds(uint64_t bytes, uint64_t *low, uint64_t *high);

#ifdef __cplusplus
}
#endif
#endif
