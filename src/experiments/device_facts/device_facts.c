/*
 * Experiment 15: the memory model of this GPU. Every figure is read from the
 * device by the harness (cudaDeviceGetAttribute, see src/gpu/gpu.c), never
 * typed in; the measured peak comes from the lab's quick measurement
 * (src/lab/peak.h), made with experiment 16's kernels.
 * The only constants are the cache line (128 B) and sector (32 B) sizes,
 * which no CUDA attribute reports: they are the architecture's (Volta
 * through Hopper), the same the model uses, and the records say so.
 *
 * A record holds at most 8 named numbers, so the facts come as four records
 * (compute, on-chip memory, device memory, host and software); the complete
 * struct also goes to results->device for the JSON writer.
 *
 * It has no options: the engine makes one point and one record. Without a
 * GPU the variant function makes it the waived "device" record. With one,
 * the measurement (the peak is measured) fills it as the first group and
 * adds the other three at the same point with cml_sweep_add_record, so the
 * engine knows all four as this run's records. `cumemlab device` writes the
 * same four records outside a run (cml_device_facts_record).
 */
#include "experiments/device_facts/device_facts.h"

#include <stdio.h>
#include <string.h>

#include "lab/common.h"
#include "lab/peak.h"

#define KEY "device-facts"
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

static void fill_compute(cml_record *r, const cml_device_facts *f, double peak_gbs)
{
    (void)peak_gbs;
    cml_record_add_extra(r, "sm_count", f->sm_count, "SMs");
    cml_record_add_extra(r, "warp_size", f->warp_size, "threads");
    cml_record_add_extra(r, "max_threads_per_block", f->max_threads_per_block, "threads");
    cml_record_add_extra(r, "max_threads_per_sm", f->max_threads_per_sm, "threads");
    cml_record_add_extra(r, "max_blocks_per_sm", f->max_blocks_per_sm, "blocks");
    cml_record_add_extra(r, "regs_per_block", f->regs_per_block, "registers");
    cml_record_add_extra(r, "regs_per_sm", f->regs_per_sm, "registers");
    cml_record_add_extra(r, "sm_clock", f->sm_clock_khz / 1e3, "MHz");
    cml_record_finding(r,
                       "%s (compute capability %d.%d): %d SMs of up to %d resident threads; "
                       "%d registers per SM, so a thread of a full SM gets %d registers.",
                       f->name, f->cc_major, f->cc_minor, f->sm_count, f->max_threads_per_sm,
                       f->regs_per_sm,
                       f->max_threads_per_sm > 0 ? f->regs_per_sm / f->max_threads_per_sm : 0);
}

static void fill_on_chip(cml_record *r, const cml_device_facts *f, double peak_gbs)
{
    (void)peak_gbs;
    cml_record_add_extra(r, "shared_per_block", (double)f->shared_per_block / KIB, "KiB");
    cml_record_add_extra(r, "shared_per_block_optin", (double)f->shared_per_block_optin / KIB,
                         "KiB");
    cml_record_add_extra(r, "shared_per_sm", (double)f->shared_per_sm / KIB, "KiB");
    cml_record_add_extra(r, "constant", (double)f->const_bytes / KIB, "KiB");
    cml_record_add_extra(r, "l2", (double)f->l2_bytes / MIB, "MiB");
    cml_record_add_extra(r, "l2_persisting_max", (double)f->l2_persisting_max / MIB, "MiB");
    cml_record_add_extra(r, "line_bytes", CML_LINE_BYTES, "B");
    cml_record_add_extra(r, "sector_bytes", CML_SECTOR_BYTES, "B");
    cml_record_finding(r,
                       "%.1f MiB of L2 (up to %.1f MiB can be set aside for persisting data); "
                       "shared memory %.0f KiB per block (%.0f KiB by opt-in), %.0f KiB per SM; "
                       "%.0f KiB of constant memory. Lines of %u B in sectors of %u B are the "
                       "architecture's, not measured.",
                       (double)f->l2_bytes / MIB, (double)f->l2_persisting_max / MIB,
                       (double)f->shared_per_block / KIB, (double)f->shared_per_block_optin / KIB,
                       (double)f->shared_per_sm / KIB, (double)f->const_bytes / KIB,
                       CML_LINE_BYTES, CML_SECTOR_BYTES);
}

/* The measured peak (peak_gbs > 0) makes this record a measured one. */
static void fill_device_memory(cml_record *r, const cml_device_facts *f, double peak_gbs)
{
    cml_record_add_extra(r, "global", (double)f->global_bytes / GIB, "GiB");
    cml_record_add_extra(r, "bus_width", f->bus_width_bits, "bit");
    cml_record_add_extra(r, "memory_clock", f->mem_clock_khz / 1e3, "MHz");
    cml_record_add_extra(r, "theoretical", f->theoretical_gbs, "GB/s");
    if (peak_gbs > 0) {
        cml_record_add_extra(r, "measured_peak", peak_gbs, "GB/s");
        cml_record_add_extra(r, "peak_of_theoretical",
                             f->theoretical_gbs > 0 ? 100.0 * peak_gbs / f->theoretical_gbs : 0.0,
                             "%");
        r->bandwidth_gbs = peak_gbs;
        r->measured = 1;
    }
    cml_record_add_extra(r, "ecc_enabled", f->ecc_enabled, "bool");
    if (peak_gbs > 0)
        cml_record_finding(r,
                           "%.1f GiB on a %d-bit bus at %.0f MHz: 2 x %.0f MHz x %d bit / 8 = "
                           "%.0f GB/s in theory; measured peak %.0f GB/s (%.1f%%)%s.",
                           (double)f->global_bytes / GIB, f->bus_width_bits,
                           f->mem_clock_khz / 1e3, f->mem_clock_khz / 1e3, f->bus_width_bits,
                           f->theoretical_gbs, peak_gbs,
                           f->theoretical_gbs > 0 ? 100.0 * peak_gbs / f->theoretical_gbs : 0.0,
                           f->ecc_enabled ? "; ECC is on" : "");
    else
        cml_record_finding(r,
                           "%.1f GiB on a %d-bit bus at %.0f MHz: 2 x %.0f MHz x %d bit / 8 = "
                           "%.0f GB/s in theory (peak not measured)%s.",
                           (double)f->global_bytes / GIB, f->bus_width_bits,
                           f->mem_clock_khz / 1e3, f->mem_clock_khz / 1e3, f->bus_width_bits,
                           f->theoretical_gbs, f->ecc_enabled ? "; ECC is on" : "");
}

static void fill_host(cml_record *r, const cml_device_facts *f, double peak_gbs)
{
    (void)peak_gbs;
    cml_record_add_extra(r, "driver_version", f->driver_version, "");
    cml_record_add_extra(r, "runtime_version", f->runtime_version, "");
    cml_record_add_extra(r, "unified_addressing", f->unified_addressing, "bool");
    cml_record_add_extra(r, "can_map_host_memory", f->can_map_host_memory, "bool");
    cml_record_add_extra(r, "managed_memory", f->managed_memory, "bool");
    cml_record_add_extra(r, "concurrent_managed", f->concurrent_managed, "bool");
    cml_record_add_extra(r, "global_l1_cache", f->global_l1_cache_supported, "bool");
    cml_record_add_extra(r, "local_l1_cache", f->local_l1_cache_supported, "bool");
    cml_record_finding(r,
                       "CUDA driver %d.%d, runtime %d.%d; unified addressing %s, mapped host "
                       "memory %s, managed memory %s (%s), globals cached in L1 %s.",
                       f->driver_version / 1000, (f->driver_version % 1000) / 10,
                       f->runtime_version / 1000, (f->runtime_version % 1000) / 10,
                       f->unified_addressing ? "yes" : "no", f->can_map_host_memory ? "yes" : "no",
                       f->managed_memory ? "yes" : "no",
                       f->concurrent_managed ? "concurrent with the CPU" : "not concurrent",
                       f->global_l1_cache_supported ? "yes" : "no");
}

/* The four records, in order: each group's variant name and what fills it. */
static const struct facts_group {
    const char *variant;
    void (*fill)(cml_record *r, const cml_device_facts *f, double peak_gbs);
} groups[] = {
    {"compute", fill_compute},
    {"on-chip memory", fill_on_chip},
    {"device memory", fill_device_memory},
    {"host and software", fill_host},
};

/* The group whose record says why the peak is missing. */
enum { GROUP_DEVICE_MEMORY = 2 };

cml_status cml_device_facts_record(const cml_device_facts *f, cml_results *out)
{
    if (!f || !out)
        return CML_EINVAL;
    for (size_t g = 0; g < CML_COUNT(groups); g++) {
        cml_record *r;
        CML_EXP_ADD(r, out, KEY, groups[g].variant);
        groups[g].fill(r, f, out->peak_gbs);
    }
    out->has_device = 1;
    out->device = *f;
    return CML_OK;
}

/* The extra figure of each class's reference (core/peak_class.h). */
static const char *const peak_extra_names[CML_PEAK_CLASS_COUNT] = {"peak_read", "peak_write",
                                                                   "peak_copy", "peak_triad"};

cml_status cml_device_facts_record_gpu(const cml_device_facts *f, const cml_peak_refs *peaks,
                                       cml_results *out)
{
    if (!f || !peaks || !out)
        return CML_EINVAL;
    const double peak = cml_peak_refs_max(peaks);
    for (size_t g = 0; g < CML_COUNT(groups); g++) {
        char variant[96];
        snprintf(variant, sizeof variant, "gpu=%d %s", f->index, groups[g].variant);
        cml_record *r;
        CML_EXP_ADD(r, out, KEY, variant);
        cml_record_add_param(r, "gpu", f->index, "");
        groups[g].fill(r, f, peak);
        for (int c = 0; g == GROUP_DEVICE_MEMORY && c < CML_PEAK_CLASS_COUNT && !peaks->given;
             c++)
            if (peaks->gbs[c] > 0)
                cml_record_add_extra(r, peak_extra_names[c], peaks->gbs[c], "GB/s");
    }
    return CML_OK;
}

/* The one point: without a GPU there is nothing to read, so one waived
 * record carries the two sizes the architecture fixes (which the model
 * uses); with one, the measurement fills it. */
static cml_status facts_variant(cml_sweep *ctx, void *settings, cml_record *rec)
{
    (void)settings;
    if (ctx->plan->gpu) {
        snprintf(rec->variant, sizeof rec->variant, "%s", groups[0].variant);
        return CML_OK;
    }
    snprintf(rec->variant, sizeof rec->variant, "device");
    cml_sweep_waive(ctx, rec, "needs a GPU: the facts are read from the device");
    cml_record_add_extra(rec, "line_bytes", CML_LINE_BYTES, "B");
    cml_record_add_extra(rec, "sector_bytes", CML_SECTOR_BYTES, "B");
    cml_record_add_extra(rec, "warp_size", CML_WARP_SIZE, "threads");
    cml_record_finding(rec, "Without a GPU only the architecture's constants are known: %u-byte "
                            "lines of %u-byte sectors, warps of %u threads.",
                       CML_LINE_BYTES, CML_SECTOR_BYTES, CML_WARP_SIZE);
    return CML_OK;
}

/* With a GPU: the facts, and the measured peak (the plan's if the caller
 * measured it, else the lab's quick measurement now). A peak that
 * cannot be measured leaves the facts standing, with a note saying why. */
static cml_status facts_measure(cml_sweep *ctx, void *settings, cml_record *rec)
{
    (void)settings;
    const cml_plan *plan = ctx->plan;
    cml_results *out = ctx->out;
    const cml_device_facts *f = cml_gpu_facts(plan->gpu);
    double peak = plan->peak_gbs > 0 ? plan->peak_gbs : out->peak_gbs;
    cml_peak_refs refs = plan->peak_gbs > 0 ? plan->peaks : out->peaks;
    cml_status st = CML_OK;
    if (peak <= 0) {
        st = cml_peak_measure(plan, &refs);
        peak = st == CML_OK ? cml_peak_refs_max(&refs) : 0.0;
        for (int c = 0; st == CML_OK && c < CML_PEAK_CLASS_COUNT; c++)
            cml_peak_refs_offer(&out->peaks, c, refs.gbs[c], refs.source[c]);
    }
    if (peak > out->peak_gbs)
        out->peak_gbs = peak;
    /* Adding a record may move out->items: indices from here on. */
    const size_t first = ctx->point;
    groups[0].fill(rec, f, peak);
    for (size_t g = 1; g < CML_COUNT(groups); g++) {
        cml_record *r = cml_sweep_add_record(ctx, &out->items[first], groups[g].variant);
        if (!r)
            return CML_ENOMEM;
        groups[g].fill(r, f, peak);
    }
    /* The reference of each class (core/peak_class.h), beside the largest. */
    for (int c = 0; c < CML_PEAK_CLASS_COUNT && !refs.given; c++)
        if (refs.gbs[c] > 0)
            cml_record_add_extra(&out->items[first + GROUP_DEVICE_MEMORY], peak_extra_names[c],
                                 refs.gbs[c], "GB/s");
    if (st != CML_OK)
        cml_record_note(&out->items[first + GROUP_DEVICE_MEMORY], "peak not measured: %s (%s)",
                        cml_status_str(st), cml_gpu_error(plan->gpu));
    out->has_device = 1;
    out->device = *f;
    return CML_OK;
}

const cml_experiment cml_exp_device_facts = {
    .key = KEY,
    .number = 15,
    .title = "The memory model of this GPU",
    .summary = "SMs, registers, shared and constant memory, L2, bus, clocks, theoretical and "
               "measured peak",
    .doc = "docs/experiments/device-facts.md",
    .tour = "",
    .variant = facts_variant,
    .measure = facts_measure,
    /* No charts and no validate settings: figures read from the device. */
};
