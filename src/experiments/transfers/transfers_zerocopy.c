/*
 * transfers, mode=zero-copy: a kernel reading mapped host memory against
 * the same kernel on device memory (the textbook's sumArrayZerocpy).
 *
 * The kernel (its body in transfers_body.h, run by transfers.cu and by
 * the mirror below; sumArrayZerocpy_read):
 *   i = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (i < n) out[i] = in[i * stride + offset];  // site 0: load, site 1: store
 * in: device memory, mapped host memory (cudaHostAlloc(..., cudaHostAllocMapped)
 * through cudaHostGetDevicePointer, or with UVA the host pointer itself);
 * out: device memory. The model counts the sectors of the loads like any
 * global load; each sector the L1 misses becomes a 32 B PCIe read whose
 * completion carries ~20-30 B of packet overhead, and system memory is
 * assumed not cached in L2 (docs/model.md section 15.2; the GPU run checks it).
 */
#include <stdio.h>
#include <string.h>

#include "core/stats.h"
#include "experiments/transfers/transfers_body.h"
#include "experiments/transfers/transfers_internal.h"
#include "experiments/transfers/transfers_kernels.h"
#include "gpu/host_fill.h"

/* The kernel's own body (transfers_body.h) on the model's arrays. */
void cml_zerocopy_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_zerocopy_args *a = vargs;
    cml_zerocopy_read_body(CML_MIRROR_CTX(t, e), CML_ARRAY(const float, 0), CML_ARRAY(float, 1),
                           a->n, a->stride, a->offset);
}

/* Floats each access reads: by default the input array spans 4x L2 (the
 * DRAM size of a one-array streaming experiment) whatever the access, so
 * every pattern sweeps the same bytes and none is served from L2; with n
 * given, n floats are read and the array is as large as the access needs. */
static uint64_t zc_reads(const cml_plan *plan, const tr_settings *s)
{
    if (s->n)
        return (uint64_t)s->n;
    const uint64_t elements = cml_plan_elements(plan, 4, 1);
    const uint64_t offset = tr_access_offset[s->access];
    uint64_t usable = elements > offset ? elements - offset : 0;
    uint64_t r = usable / tr_access_stride[s->access];
    return r ? r : 1;
}

/* The model's figures that depend on the link quoted: the share of the
 * link's bytes the kernel uses and what that allows. */
static void zc_quote_model(cml_record *rec, const tr_settings *s, const tr_link *lk)
{
    const unsigned stride = tr_access_stride[s->access], offset = tr_access_offset[s->access];
    const double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    const double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    if (s->memory == MEM_DEVICE) {
        cml_record_finding(rec,
                           "The baseline: the same kernel reading device memory (cudaMalloc), "
                           "in[i*%u + %u]: %.2f sectors per request, %.1f%% of the fetched bytes "
                           "used, served by HBM through L2.",
                           stride, offset, spr, eff);
        return;
    }
    /* Only the loads cross PCIe; out[] is device memory. */
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    double eff_lo, eff_hi;
    cml_pcie_zerocopy_efficiency(ld->sectors, ld->requested_bytes, &eff_lo, &eff_hi);
    tr_set_extra(rec, "link_efficiency_low", 100.0 * eff_lo, "%");
    tr_set_extra(rec, "link_efficiency_high", 100.0 * eff_hi, "%");
    tr_set_extra(rec, "useful_gbs_low", lk->raw_gbs * eff_lo, "GB/s");
    tr_set_extra(rec, "useful_gbs_high", lk->raw_gbs * eff_hi, "GB/s");
    cml_record_finding(rec,
                       "Arithmetic, not a measurement: thread i reads in[i*%u + %u] from mapped "
                       "host memory (%s), %.2f sectors per request; each is a 32 B PCIe read "
                       "with ~%u-%u B of packet overhead, so %.1f-%.1f%% of the link's bytes are "
                       "data the kernel uses: at most %.1f-%.1f GB/s on %s x%u (if L2 does not "
                       "cache host memory).",
                       stride, offset,
                       s->memory == MEM_MAPPED ? "device pointer" : "host pointer, UVA", spr,
                       CML_PCIE_OVERHEAD_LO, CML_PCIE_OVERHEAD_HI, 100.0 * eff_lo,
                       100.0 * eff_hi, lk->raw_gbs * eff_lo, lk->raw_gbs * eff_hi,
                       tr_link_names[lk->link], tr_lanes_values[lk->lanes]);
}

cml_status tr_zc_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec)
{
    if (s->memory != MEM_DEVICE && s->memory != MEM_MAPPED && s->memory != MEM_MAPPED_UVA)
        return CML_SKIP_POINT; /* a copy or allocation kind */
    const unsigned block = tr_block_sizes[s->block];
    const uint64_t n = zc_reads(ctx->plan, s);
    s->n = (int64_t)n;
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "mode", "zero-copy");
    cml_variant_add_label(rec->variant, sizeof rec->variant, "memory",
                          tr_memory_names[s->memory]);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "access",
                          tr_access_names[s->access]);
    cml_variant_add(rec->variant, sizeof rec->variant, "block", block);
    rec->bytes_read = 4 * n; /* the floats the kernel uses */
    rec->bytes_written = 4 * n;
    cml_zerocopy_args args = {n, tr_access_stride[s->access], tr_access_offset[s->access]};
    /* Blocks differ by 4*block*stride bytes in in[] and 4*block in out[],
     * multiples of 128; the last block may be partial. */
    cml_status st = cml_exp_trace_1d(rec, cml_div_up(n, block), block, 0, 1, cml_zerocopy_mirror,
                                     &args);
    if (st)
        return st;
    /* The cache levels place every array in device memory. Mapped memory is
     * the host's: in[]'s L2 misses cross PCIe, not DRAM, and out[] (device
     * memory, whole sectors) costs DRAM no read. */
    if (s->memory != MEM_DEVICE && rec->has_levels)
        rec->levels.dram_read_bytes = rec->levels.lo.dram_read_bytes =
            rec->levels.hi.dram_read_bytes = 0;
    zc_quote_model(rec, s, &tr_state_of(ctx)->quoted);
    return CML_OK;
}

/* The measured bandwidth of the device-memory record of the same access,
 * block and n measured before record `index` (memory varies fastest), or
 * 0: the mapped records' "N x faster". */
static double zc_device_gbs(const cml_sweep *ctx, size_t index)
{
    const tr_settings *s = tr_settings_of(ctx, index);
    for (size_t i = index; i-- > tr_state_of(ctx)->mode_first;) {
        const tr_settings *o = tr_settings_of(ctx, i);
        const cml_record *r = &ctx->out->items[i];
        if (!o || o->mode != MODE_ZEROCOPY || o->access != s->access || o->block != s->block ||
            o->n != s->n)
            break;
        if (o->memory == MEM_DEVICE)
            return r->state == CML_REC_OK && r->measured ? r->bandwidth_gbs : 0.0;
    }
    return 0.0;
}

/* What the measured figures mean against the model and the baseline. */
static void zc_quote_measured(const cml_sweep *ctx, size_t index, const tr_link *lk)
{
    cml_record *rec = &ctx->out->items[index];
    const tr_settings *s = tr_settings_of(ctx, index);
    const unsigned stride = tr_access_stride[s->access], offset = tr_access_offset[s->access];
    const double ms = rec->timing.median_ms;
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const double read_gbs = cml_gbs(4.0 * (double)s->n, ms);
    const double sector_gbs = cml_gbs((double)ld->sectors * CML_SECTOR_BYTES, ms);
    tr_set_extra(rec, "read_gbs", read_gbs, "GB/s");
    tr_set_extra(rec, "sector_gbs", sector_gbs, "GB/s");
    const double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    if (s->memory == MEM_DEVICE) {
        cml_record_finding(rec,
                           "Device memory, in[i*%u + %u]: %.2f sectors per request; the kernel "
                           "reads %.1f GB/s of useful data (%.1f GB/s of sectors), the baseline "
                           "for mapped host memory.",
                           stride, offset, spr, read_gbs, sector_gbs);
        return;
    }
    double eff_lo, eff_hi;
    cml_pcie_zerocopy_efficiency(ld->sectors, ld->requested_bytes, &eff_lo, &eff_hi);
    const double lo = lk->raw_gbs * eff_lo, hi = lk->raw_gbs * eff_hi;
    const double device_gbs = zc_device_gbs(ctx, index);
    char vsdev[96] = "";
    if (device_gbs > 0)
        snprintf(vsdev, sizeof vsdev, "; on device memory %.0fx faster",
                 rec->bandwidth_gbs > 0 ? device_gbs / rec->bandwidth_gbs : 0.0);
    /* The model charges 20-30 B of packet overhead to every 32 B sector; the
     * hardware may merge a line's sectors into larger reads (faster than
     * the model) or be held back by read latency and outstanding requests
     * when every sector is alone in its line (slower). */
    const char *verdict = read_gbs > hi * 1.05
                              ? "above the model: neighbouring sectors travel in larger reads"
                          : read_gbs < lo * 0.95
                              ? "below the model: lone sectors are limited by read latency and "
                                "requests in flight, not bytes"
                              : "within the model's range";
    cml_record_finding(rec,
                       "%s, in[i*%u + %u]: %.2f sectors per request; %.2f GB/s of useful reads "
                       "over PCIe (%.1f GB/s of sectors, %.0f%% of %s x%u raw); model %.1f-%.1f "
                       "GB/s: %s%s.",
                       s->memory == MEM_MAPPED ? "Mapped (device pointer)"
                                               : "Mapped (host pointer)",
                       stride, offset, spr, read_gbs, sector_gbs,
                       100.0 * sector_gbs / lk->raw_gbs, tr_link_names[lk->link],
                       tr_lanes_values[lk->lanes], lo, hi, verdict, vsdev);
}

static cml_status zc_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_zerocopy_check(ctx, TR_SEED_ZC, d_counters);
}

/* The input as the access needs it, `need` floats: in device memory or in
 * mapped host memory. Buffers only grow, so a sweep allocates them once.
 * NULL with rec failed (a CUDA error: *st) or waived (*st = CML_OK). */
static const void *zc_input(cml_sweep *ctx, const tr_settings *s, cml_record *rec,
                            uint64_t need, cml_status *st)
{
    tr_zc_state *z = &tr_state_of(ctx)->zc;
    const cml_plan *plan = ctx->plan;
    const cml_device_facts *f = plan->dev;
    *st = CML_OK;
    if (s->memory == MEM_DEVICE)
        return z->in_dev.ptr;
    if (!f->can_map_host_memory) {
        cml_sweep_waive(ctx, rec, "this device cannot map host memory "
                                  "(cudaDevAttrCanMapHostMemory is 0): no zero-copy access");
        return NULL;
    }
    if (s->memory == MEM_MAPPED_UVA && !f->unified_addressing) {
        cml_sweep_waive(ctx, rec, "no unified virtual addressing (cudaDevAttrUnifiedAddressing "
                                  "is 0): the host pointer is not a device address here");
        return NULL;
    }
    if (z->in_map.bytes < need * 4) {
        if (z->map_fail && need * 4 >= z->map_fail) {
            cml_sweep_waive(ctx, rec, "%s", z->map_why);
            return NULL;
        }
        cml_mem_free(plan->gpu, &z->in_map);
        z->in_map_dev = NULL;
        *st = cml_mem_alloc(plan->gpu, &z->in_map, CML_MEM_MAPPED, need * 4);
        if (*st == CML_ENOMEM || *st == CML_EUNSUPPORTED) {
            snprintf(z->map_why, sizeof z->map_why, "no mapped host memory: %s",
                     cml_gpu_error(plan->gpu));
            z->map_fail = need * 4;
            cml_sweep_waive(ctx, rec, "%s", z->map_why);
            *st = CML_OK;
            return NULL;
        }
        if (*st == CML_OK) {
            tr_host_fill(plan->gpu, z->in_map.ptr, need * 4, TR_SEED_ZC);
            *st = cml_mem_device_pointer(plan->gpu, &z->in_map, &z->in_map_dev);
        }
        if (*st != CML_OK) {
            cml_exp_fail(plan, rec, *st);
            return NULL;
        }
    }
    return s->memory == MEM_MAPPED ? z->in_map_dev : z->in_map.ptr;
}

/* Measure one record: poison out, time, verify, and say what the figures
 * mean against the model and the device-memory baseline. */
cml_status tr_zc_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec)
{
    tr_zc_state *z = &tr_state_of(ctx)->zc;
    const cml_plan *plan = ctx->plan;
    const uint64_t n = (uint64_t)s->n;
    const uint64_t need = n * tr_access_stride[s->access] + tr_access_offset[s->access];
    cml_status st = CML_OK;
    /* Device input and output first, whatever the memory (the record
     * carries the message if they cannot be had). */
    if (z->in_dev.bytes < need * 4) {
        cml_gpu_free(plan->gpu, &z->in_dev);
        if ((st = cml_exp_alloc_random(plan, rec, &z->in_dev, need, TR_SEED_ZC)) != CML_OK)
            return st;
    }
    if (z->out.bytes < n * 4) {
        cml_gpu_free(plan->gpu, &z->out);
        if ((st = cml_exp_alloc(plan, rec, &z->out, n * 4)) != CML_OK)
            return st;
    }
    const void *in = zc_input(ctx, s, rec, need, &st);
    if (!in)
        return st;
    cml_zerocopy_launch_args a = {in, z->out.ptr, n, tr_access_stride[s->access],
                                  tr_access_offset[s->access], tr_block_sizes[s->block]};
    if ((st = cml_gpu_poison(plan->gpu, &z->out)) != CML_OK)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_zerocopy_launch, &a, cml_zerocopy_kernel(), a.block, 0);
    if (st == CML_OK)
        st = cml_exp_verify(plan, rec, zc_check_cb, &a);
    if (st != CML_OK)
        return st;
    if (s->memory != MEM_DEVICE)
        cml_record_set_peak(rec, NULL); /* the DRAM peak is not this path's limit */
    zc_quote_measured(ctx, ctx->point, &tr_state_of(ctx)->quoted);
    return CML_OK;
}

void tr_zc_requote(cml_sweep *ctx, size_t first, size_t end)
{
    const tr_link *lk = &tr_state_of(ctx)->quoted;
    for (size_t i = first; i < end; i++) {
        cml_record *rec = &ctx->out->items[i];
        const tr_settings *s = tr_settings_of(ctx, i);
        if (!s || s->mode != MODE_ZEROCOPY)
            continue;
        tr_params(rec, s, lk, 0, 0);
        if (!rec->has_model)
            continue;
        zc_quote_model(rec, s, lk);
        if (rec->state == CML_REC_OK && rec->measured)
            zc_quote_measured(ctx, i, lk);
    }
}

void tr_zc_free(cml_sweep *ctx)
{
    tr_zc_state *z = &tr_state_of(ctx)->zc;
    if (ctx->plan->gpu) {
        cml_gpu_free(ctx->plan->gpu, &z->in_dev);
        cml_gpu_free(ctx->plan->gpu, &z->out);
        cml_mem_free(ctx->plan->gpu, &z->in_map);
    }
    memset(z, 0, sizeof *z);
}
