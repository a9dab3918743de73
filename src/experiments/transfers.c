/*
 * Experiment 13: host <-> device transfers.
 *
 * Copies make no warp traffic: for them the model side is the link
 * arithmetic of MODEL.md section 8.3, stated as arithmetic, never as a
 * measurement. The GPU run (transfers.cu, a later issue) measures
 * cudaMemcpy H2D and D2H from pinned (cudaMallocHost / cudaHostAlloc) and
 * pageable (malloc) memory over the size sweep, and managed memory with and
 * without cudaMemPrefetchAsync.
 *
 * CONTRACT for the zero-copy kernel the mirror below stands for:
 *
 *   // in: mapped pinned host memory, cudaHostAlloc(&h, bytes, cudaHostAllocMapped)
 *   //     and cudaHostGetDevicePointer(&in, h, 0) (or, with UVA, h itself);
 *   //     n * stride floats. out: device memory (cudaMalloc), n floats.
 *   __global__ void zerocopy_read(const float *in, float *out,
 *                                 unsigned long long n, int stride)
 *   {
 *       unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *       if (i < n)
 *           out[i] = in[i * stride];   // site 0: global load served over PCIe,
 *   }                                  // site 1: global store to device memory
 *   stride (floats): coalesced 1, stride32 8 (one float per 32 B sector),
 *   stride128 32 (one float per 128 B line).
 *
 * The model counts the sectors of the loads like any global load; each
 * sector the L1 misses becomes a 32 B PCIe read whose completion carries
 * ~20-30 B of packet overhead, and system memory is assumed not cached in
 * L2 (MODEL.md section 8.2; the GPU run checks it).
 */
#include <stdio.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/transfers.h"

enum { MODE_LINK = 0, MODE_ZEROCOPY };

static const char *const mode_names[] = {"link", "zero-copy", NULL};
static const char *const link_names[] = {"gen3", "gen4", "gen5", NULL};
static const double link_gts[] = {8.0, 16.0, 32.0}; /* transfer rate per lane */
static const char *const lanes_names[] = {"1", "2", "4", "8", "16", NULL};
static const unsigned lanes_values[] = {1, 2, 4, 8, 16};
static const char *const access_names[] = {"coalesced", "stride32", "stride128", NULL};
static const unsigned access_stride[] = {1, 8, 32}; /* floats */
static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

static const cml_param_def transfers_params[] = {
    {"mode", "link (cudaMemcpy arithmetic) or zero-copy (a kernel reading mapped host memory)",
     0, 0, "link,zero-copy", mode_names, 0},
    {"link", "PCIe generation (zero-copy rates are quoted for the last one listed)", 0, 0,
     "gen3,gen4,gen5", link_names, 0},
    {"lanes", "PCIe lanes", 0, 0, "16", lanes_names, 0},
    {"size", "bytes per copy", 4096, (int64_t)1 << 30, "1G", NULL, 0},
    {"access", "zero-copy: coalesced floats, one float per 32 B (stride32) or per 128 B "
               "(stride128)", 0, 0, "coalesced,stride32,stride128", access_names, 0},
    {"block", "zero-copy: threads per block", 0, 0, "256", block_names, 0},
    {"n", "zero-copy: floats read", 32, (int64_t)1 << 30, "2^20", NULL, 0},
};

double cml_pcie_raw_gbs(double gts, unsigned lanes)
{
    return gts * (double)lanes * (128.0 / 130.0) / 8.0;
}

void cml_zerocopy_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_zerocopy_args *a = vargs;
    const uint64_t in = cml_array_base(0), out = cml_array_base(1);
    const uint64_t i = cml_gtid(t);
    if (i >= a->n)
        return;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i * a->stride);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * i);
}

static cml_status link_variant(cml_results *out, int64_t link, int64_t lanes_choice,
                               uint64_t size)
{
    const unsigned lanes = lanes_values[lanes_choice];
    const double raw = cml_pcie_raw_gbs(link_gts[link], lanes);
    const double pinned = raw * CML_PCIE_PINNED_SHARE;
    const double page_lo = pinned * CML_PCIE_PAGEABLE_LO, page_hi = pinned * CML_PCIE_PAGEABLE_HI;
    const double ms = (double)size / (pinned * 1e9) * 1e3;
    char variant[96] = "", sz[32], when[32];
    cml_variant_add_label(variant, sizeof variant, "mode", "link");
    cml_variant_add_label(variant, sizeof variant, "link", link_names[link]);
    cml_variant_add(variant, sizeof variant, "lanes", lanes);
    cml_variant_add(variant, sizeof variant, "size", (long long)size);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "transfers", variant);
    cml_record_add_param(rec, "mode", MODE_LINK, "link");
    cml_record_add_param(rec, "link", link, link_names[link]);
    cml_record_add_param(rec, "lanes", lanes_choice, lanes_names[lanes_choice]);
    cml_record_add_param(rec, "size", (int64_t)size, NULL);
    /* A copy's bandwidth is size / time: count the bytes once. */
    rec->bytes_read = size;
    rec->bytes_written = 0;
    cml_record_add_extra(rec, "raw_gbs", raw, "GB/s");
    cml_record_add_extra(rec, "pinned_typical_gbs", pinned, "GB/s");
    cml_record_add_extra(rec, "pageable_low_gbs", page_lo, "GB/s");
    cml_record_add_extra(rec, "pageable_high_gbs", page_hi, "GB/s");
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
                       link_names[link], lanes, link_gts[link], lanes, raw,
                       100.0 * CML_PCIE_PINNED_SHARE, pinned, sz, when, page_lo, page_hi);
    return CML_OK;
}

static cml_status zerocopy_variant(cml_results *out, int64_t access, int64_t link,
                                   int64_t lanes_choice, uint64_t n, int64_t block_choice)
{
    const unsigned block = block_sizes[block_choice];
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "mode", "zero-copy");
    cml_variant_add_label(variant, sizeof variant, "access", access_names[access]);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "transfers", variant);
    cml_record_add_param(rec, "mode", MODE_ZEROCOPY, "zero-copy");
    cml_record_add_param(rec, "access", access, access_names[access]);
    cml_record_add_param(rec, "link", link, link_names[link]);
    cml_record_add_param(rec, "lanes", lanes_choice, lanes_names[lanes_choice]);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    rec->bytes_read = 4 * n; /* the floats the kernel uses */
    rec->bytes_written = 4 * n;

    cml_zerocopy_args args = {n, access_stride[access]};
    /* Blocks differ by 4*block*stride bytes in in[] and 4*block in out[],
     * multiples of 128; the last block may be partial. */
    cml_status st = cml_exp_trace_1d(rec, cml_div_up(n, block), block, 0, 1, cml_zerocopy_mirror,
                                     &args);
    if (st)
        return st;
    /* Only the loads cross PCIe; out[] is device memory. */
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const double sectors = (double)ld->sectors, used = (double)ld->requested_bytes;
    const double wire_lo = sectors * (CML_SECTOR_BYTES + CML_PCIE_OVERHEAD_LO);
    const double wire_hi = sectors * (CML_SECTOR_BYTES + CML_PCIE_OVERHEAD_HI);
    const double eff_hi = wire_lo > 0 ? used / wire_lo : 0.0; /* less overhead: better */
    const double eff_lo = wire_hi > 0 ? used / wire_hi : 0.0;
    const double raw = cml_pcie_raw_gbs(link_gts[link], lanes_values[lanes_choice]);
    cml_record_add_extra(rec, "pcie_bytes_low", wire_lo, "B");
    cml_record_add_extra(rec, "pcie_bytes_high", wire_hi, "B");
    cml_record_add_extra(rec, "link_efficiency_low", 100.0 * eff_lo, "%");
    cml_record_add_extra(rec, "link_efficiency_high", 100.0 * eff_hi, "%");
    cml_record_add_extra(rec, "useful_gbs_low", raw * eff_lo, "GB/s");
    cml_record_add_extra(rec, "useful_gbs_high", raw * eff_hi, "GB/s");
    cml_record_finding(rec,
                       "Arithmetic, not a measurement: thread i reads in[i*%u] from mapped host "
                       "memory, %.2f sectors per request; each is a 32 B PCIe read with ~%u-%u B "
                       "of packet overhead, so %.1f-%.1f%% of the link's bytes are data the "
                       "kernel uses: at most %.1f-%.1f GB/s on %s x%u (if L2 does not cache host "
                       "memory).",
                       access_stride[access], cml_exp_spr(rec, CML_CLASS_GLOBAL_LD),
                       CML_PCIE_OVERHEAD_LO, CML_PCIE_OVERHEAD_HI, 100.0 * eff_lo, 100.0 * eff_hi,
                       raw * eff_lo, raw * eff_hi, link_names[link], lanes_values[lanes_choice]);
    return CML_OK;
}

static cml_status transfers_model(const cml_plan *plan, const cml_param_values *pv,
                                  cml_results *out)
{
    (void)plan;
    const cml_param_list *modes = cml_param_get(pv, "mode");
    const cml_param_list *links = cml_param_get(pv, "link");
    const cml_param_list *lanes = cml_param_get(pv, "lanes");
    const cml_param_list *sizes = cml_param_get(pv, "size");
    const cml_param_list *accesses = cml_param_get(pv, "access");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const uint64_t n = (uint64_t)cml_param_first(pv, "n");

    for (size_t mi = 0; mi < modes->count; mi++) {
        cml_status st = CML_OK;
        if (modes->v[mi] == MODE_LINK) {
            for (size_t li = 0; li < links->count && !st; li++)
                for (size_t ni = 0; ni < lanes->count && !st; ni++)
                    for (size_t si = 0; si < sizes->count && !st; si++)
                        st = link_variant(out, links->v[li], lanes->v[ni],
                                          (uint64_t)sizes->v[si]);
        } else {
            const int64_t link = links->v[links->count - 1];
            const int64_t lane_choice = lanes->v[lanes->count - 1];
            for (size_t bi = 0; bi < blocks->count && !st; bi++)
                for (size_t ai = 0; ai < accesses->count && !st; ai++)
                    st = zerocopy_variant(out, accesses->v[ai], link, lane_choice, n,
                                          blocks->v[bi]);
        }
        if (st)
            return st;
    }
    return CML_OK;
}

const cml_experiment cml_exp_transfers = {
    "transfers", 13, "Host-device transfers",
    "cudaMemcpy over PCIe from pinned and pageable memory, and zero-copy reads of mapped host "
    "memory: the link arithmetic, then the measurement",
    transfers_params, sizeof transfers_params / sizeof transfers_params[0],
    transfers_model, NULL, "mode=link,zero-copy link=gen4,gen5",
};
