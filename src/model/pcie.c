/* PCIe link arithmetic (include/cumemlab/pcie.h). The expressions keep the
 * order of operations the transfers experiment has always used, so its
 * figures stay the same to the last bit. */
#include "cumemlab/pcie.h"

#include "cumemlab/model.h"

double cml_pcie_gen_gts(unsigned gen)
{
    switch (gen) {
    case 3: return 8.0;
    case 4: return 16.0;
    case 5: return 32.0;
    default: return 0.0;
    }
}

double cml_pcie_raw_gbs(double gts, unsigned lanes)
{
    return gts * (double)lanes * (128.0 / 130.0) / 8.0;
}

void cml_pcie_link_rates(double raw_gbs, cml_pcie_rates *out)
{
    out->raw_gbs = raw_gbs;
    out->pinned_gbs = raw_gbs * CML_PCIE_PINNED_SHARE;
    out->pageable_low_gbs = out->pinned_gbs * CML_PCIE_PAGEABLE_LO;
    out->pageable_high_gbs = out->pinned_gbs * CML_PCIE_PAGEABLE_HI;
}

double cml_pcie_time_ms(double bytes, double gbs)
{
    return bytes / (gbs * 1e9) * 1e3;
}

void cml_pcie_zerocopy_efficiency(uint64_t sectors, uint64_t used_bytes, double *eff_low,
                                  double *eff_high)
{
    const double s = (double)sectors, used = (double)used_bytes;
    const double wire_lo = s * (CML_SECTOR_BYTES + CML_PCIE_OVERHEAD_LO);
    const double wire_hi = s * (CML_SECTOR_BYTES + CML_PCIE_OVERHEAD_HI);
    /* Less overhead: the better share. */
    *eff_high = wire_lo > 0 ? used / wire_lo : 0.0;
    *eff_low = wire_hi > 0 ? used / wire_hi : 0.0;
}

void cml_um_migration_bounds(uint64_t bytes, uint64_t *low, uint64_t *high)
{
    *low = (bytes + CML_UM_PAGE_BYTES - 1) / CML_UM_PAGE_BYTES * CML_UM_PAGE_BYTES;
    *high = (bytes + CML_UM_BLOCK_BYTES - 1) / CML_UM_BLOCK_BYTES * CML_UM_BLOCK_BYTES;
}
