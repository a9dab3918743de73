/*
 * transfers, mode=link: the arithmetic of the PCIe link (docs/model.md
 * section 15.3, include/cumemlab/pcie.h) for each link, lane count and copy size.
 * Never a measurement: the prediction set beside the measured copies.
 */
#include <stdio.h>

#include "experiments/transfers/transfers_internal.h"

cml_status tr_link_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec)
{
    (void)ctx;
    const unsigned lanes = tr_lanes_values[s->lanes];
    const double gts = cml_pcie_gen_gts(3 + (unsigned)s->link);
    const uint64_t size = (uint64_t)s->size;
    cml_pcie_rates r;
    cml_pcie_link_rates(cml_pcie_raw_gbs(gts, lanes), &r);
    const double ms = cml_pcie_time_ms((double)size, r.pinned_gbs);
    char sz[32], when[32];
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "mode", "link");
    cml_variant_add_label(rec->variant, sizeof rec->variant, "link", tr_link_names[s->link]);
    cml_variant_add(rec->variant, sizeof rec->variant, "lanes", lanes);
    cml_variant_add(rec->variant, sizeof rec->variant, "size", (long long)size);
    /* A copy's bandwidth is size / time: count the bytes once. */
    rec->bytes_read = size;
    rec->bytes_written = 0;
    cml_record_add_extra(rec, "raw_gbs", r.raw_gbs, "GB/s");
    cml_record_add_extra(rec, "pinned_typical_gbs", r.pinned_gbs, "GB/s");
    cml_record_add_extra(rec, "pageable_low_gbs", r.pageable_low_gbs, "GB/s");
    cml_record_add_extra(rec, "pageable_high_gbs", r.pageable_high_gbs, "GB/s");
    cml_record_add_extra(rec, "pinned_time_ms", ms, "ms");
    cml_fmt_bytes(sz, sizeof sz, (double)size);
    if (ms < 1.0)
        snprintf(when, sizeof when, "%.2f us", ms * 1e3);
    else
        snprintf(when, sizeof when, "%.1f ms", ms);
    cml_record_finding(rec,
                       "Arithmetic, not a measurement: PCIe %s x%u moves %.0f GT/s x %u lanes x "
                       "128/130 / 8 = %.1f GB/s per direction; pinned cudaMemcpy typically gets "
                       "~%.0f%% (%.1f GB/s, %s in %s, plus a per-copy latency this leaves "
                       "out); pageable copies are staged through pinned buffers: %.1f-%.1f GB/s, "
                       "host-dependent.",
                       tr_link_names[s->link], lanes, gts, lanes, r.raw_gbs,
                       100.0 * CML_PCIE_PINNED_SHARE, r.pinned_gbs, sz, when,
                       r.pageable_low_gbs, r.pageable_high_gbs);
    return CML_OK;
}

/* Beside measurements one sentence per link is enough: the largest size's
 * (the others scale with size). Records [first, last] are one link's sizes. */
void tr_link_summary(cml_sweep *ctx, size_t first, size_t last)
{
    if (!ctx->plan->gpu)
        return;
    size_t keep = first;
    for (size_t i = first; i <= last; i++)
        if (tr_settings_of(ctx, i)->size > tr_settings_of(ctx, keep)->size)
            keep = i;
    for (size_t i = first; i <= last; i++)
        if (i != keep)
            ctx->out->items[i].finding[0] = '\0';
}
