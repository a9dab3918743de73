/*
 * Experiment 13: host <-> device transfers (the textbook's memTransfer,
 * pinMemTransfer, sumArrayZerocpy, sumMatrixGPUManaged / Manual and
 * Unified_Memory). Five modes:
 *
 *   link       arithmetic of the PCIe link (MODEL.md section 8.3): what a
 *              copy of each size should take; never a measurement. It is
 *              the prediction beside the measured copies.
 *   copy       cudaMemcpy host-to-device and device-to-host from pageable
 *              (malloc) and pinned (cudaMallocHost, cudaHostAlloc) memory
 *              over a size sweep, and both directions at once on two
 *              streams (pinned only: pageable copies are staged by the
 *              driver and do not overlap); a reference cudaMemcpyAsync from
 *              pinned memory at the largest size in each direction.
 *   zero-copy  a kernel reading mapped host memory (through
 *              cudaHostGetDevicePointer, and through the host pointer under
 *              unified addressing) against the same kernel on device
 *              memory, coalesced, misaligned and strided; the model counts
 *              the sectors and the PCIe packets they become.
 *   managed    cudaMallocManaged data written on the host, then used by a
 *              kernel: first touch (migration on demand), the second run,
 *              cudaMemPrefetchAsync then the kernel, the host reading the
 *              results back, and the same work with cudaMalloc + cudaMemcpy.
 *   alloc      the cost of allocating and freeing each kind of memory.
 *
 * Copies and allocations make no warp traffic, so on the CPU alone they
 * give no record of their own (link stands for them); the zero-copy and
 * managed kernels are traced by their mirrors below.
 *
 * Measurement (GPU run): copies are timed one by one between CUDA events
 * on the stream they run on, after warm-up copies; allocation costs with
 * the monotonic clock; every copy's data is random (cml_random_f32) and
 * compared with memcmp on the host after the timed copies (whole buffers,
 * also at 1 GiB); kernel outputs are poisoned before and verified after.
 * All CUDA calls go through the harness (src/gpu/host_memory.h, gpu.h).
 *
 * CONTRACT of the zero-copy kernel (transfers.cu, sumArrayZerocpy_read):
 *   i = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (i < n) out[i] = in[i * stride + offset];  // site 0: load, site 1: store
 * in: device memory, mapped host memory (cudaHostAlloc(..., cudaHostAllocMapped)
 * through cudaHostGetDevicePointer, or with UVA the host pointer itself);
 * out: device memory. The model counts the sectors of the loads like any
 * global load; each sector the L1 misses becomes a 32 B PCIe read whose
 * completion carries ~20-30 B of packet overhead, and system memory is
 * assumed not cached in L2 (MODEL.md section 8.2; the GPU run checks it).
 *
 * CONTRACT of the managed kernel (sumMatrixGPUManaged_scale):
 *   if (i < n) out[i] = 2 * in[i];                // site 0: load, site 1: store
 */
#define _POSIX_C_SOURCE 200809L /* pthreads and sysconf in strict C11 */

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/random.h"
#include "core/stats.h"
#include "experiments/common.h"
#include "experiments/transfers.h"
#include "experiments/transfers_kernels.h"
#include "gpu/host_memory.h"

enum { MODE_LINK = 0, MODE_COPY, MODE_ZEROCOPY, MODE_MANAGED, MODE_ALLOC };
static const char *const mode_names[] = {"link", "copy", "zero-copy", "managed", "alloc", NULL};

static const char *const link_names[] = {"gen3", "gen4", "gen5", NULL};
static const double link_gts[] = {8.0, 16.0, 32.0}; /* transfer rate per lane */
static const char *const lanes_names[] = {"1", "2", "4", "8", "16", NULL};
static const unsigned lanes_values[] = {1, 2, 4, 8, 16};

/* Memory kinds; each mode uses those that apply to it. */
enum {
    MEM_PAGEABLE = 0, MEM_PINNED, MEM_HOSTALLOC, MEM_DEVICE, MEM_MAPPED, MEM_MAPPED_UVA,
    MEM_MANAGED, MEM_COUNT
};
static const char *const memory_names[] = {"pageable", "pinned", "hostalloc", "device",
                                           "mapped", "mapped-uva", "managed", NULL};
static const cml_mem_kind memory_kind[] = {CML_MEM_PAGEABLE, CML_MEM_PINNED, CML_MEM_HOSTALLOC,
                                           CML_MEM_DEVICE,   CML_MEM_MAPPED, CML_MEM_MAPPED,
                                           CML_MEM_MANAGED};

enum { DIR_H2D = 0, DIR_D2H, DIR_BOTH };
static const char *const dir_names[] = {"h2d", "d2h", "both", NULL};

enum { ACC_COALESCED = 0, ACC_MISALIGNED, ACC_STRIDE8, ACC_STRIDE32, ACC_STRIDE128 };
static const char *const access_names[] = {"coalesced", "misaligned", "stride8", "stride32",
                                           "stride128", NULL};
static const unsigned access_stride[] = {1, 1, 2, 8, 32}; /* floats */
static const unsigned access_offset[] = {0, 11, 0, 0, 0}; /* floats: 44 B = 11 floats */

static const char *const block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
static const unsigned block_sizes[] = {32, 64, 128, 256, 512, 1024};

enum { STEP_FAULT = 0, STEP_WARM, STEP_PREFETCH, STEP_PREFETCHED, STEP_READBACK, STEP_MANUAL,
       STEP_COUNT };
static const char *const step_names[] = {"fault", "warm", "prefetch", "prefetched", "readback",
                                         "manual", NULL};

static const cml_param_def transfers_params[] = {
    {"mode",
     "link (PCIe arithmetic), copy (cudaMemcpy sweep), zero-copy (a kernel reading mapped host "
     "memory), managed (cudaMallocManaged, prefetch), alloc (allocation costs)",
     0, 0, "link,copy,zero-copy,managed,alloc", mode_names, 0},
    {"link", "PCIe generation of the arithmetic (predictions quote the last one listed)", 0, 0,
     "gen4,gen5", link_names, 0},
    {"lanes", "PCIe lanes", 0, 0, "16", lanes_names, 0},
    {"size", "link, copy: bytes per copy (the sweep)", 4096, (int64_t)1 << 32,
     "4K,64K,1M,16M,256M,1G", NULL, 0},
    {"memory",
     "copy: pageable, pinned (cudaMallocHost), hostalloc (cudaHostAlloc); zero-copy: device, "
     "mapped (cudaHostGetDevicePointer), mapped-uva (the host pointer); alloc: device, pinned, "
     "hostalloc, mapped, managed",
     0, 0, "all", memory_names, 0},
    {"direction", "copy: h2d, d2h, or both at once on two streams (pinned memory only)", 0, 0,
     "all", dir_names, 0},
    {"access",
     "zero-copy: coalesced, misaligned (44 B off a line), stride8 / stride32 / stride128 (one "
     "float per 8, 32, 128 B)",
     0, 0, "all", access_names, 0},
    {"block", "zero-copy and managed: threads per block", 0, 0, "256", block_names, 0},
    {"n", "zero-copy: floats read (0: the array read spans 4x the L2 size, whatever the access)",
     0, (int64_t)1 << 28, "0", NULL, 0},
    {"um",
     "managed: bytes of each of the two managed arrays (both together at most 1/8 of the free "
     "device memory and 1 GiB)",
     4096, (int64_t)1 << 29, "64M", NULL, 0},
    {"alloc", "alloc: bytes per allocation", 4096, (int64_t)1 << 30, "4K,1M,64M", NULL, 0},
};

/* Fixed seeds: the same contents on every run. */
#define SEED_COPY 0x7A5F000000000013ull
#define SEED_ZC 0x7A5F000000000014ull
#define SEED_UM 0x7A5F000000000015ull

/* ------------------------------------------------------------------------ */
/* Model                                                                    */
/* ------------------------------------------------------------------------ */

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
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4,
             in + 4 * (i * a->stride + a->offset));
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * i);
}

void cml_um_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_um_args *a = vargs;
    const uint64_t in = cml_array_base(0), out = cml_array_base(1);
    const uint64_t i = cml_gtid(t);
    if (i >= a->n)
        return;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * i);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * i);
}

void cml_um_migration_bounds(uint64_t bytes, uint64_t *low, uint64_t *high)
{
    *low = cml_div_up(bytes, CML_UM_PAGE_BYTES) * CML_UM_PAGE_BYTES;
    *high = cml_div_up(bytes, CML_UM_BLOCK_BYTES) * CML_UM_BLOCK_BYTES;
}

cml_status cml_transfers_half_bandwidth(const double *bytes, const double *ms, size_t n,
                                        cml_halfbw *out)
{
    if (!bytes || !ms || !out || n == 0)
        return CML_EINVAL;
    memset(out, 0, sizeof *out);
    double best = 0.0;
    for (size_t k = 0; k < n; k++) {
        if (!(bytes[k] > 0) || !(ms[k] > 0))
            return CML_EINVAL;
        double gbs = bytes[k] / (ms[k] * 1e-3) / 1e9;
        if (gbs > best) {
            best = gbs;
            out->asym_index = k;
        }
    }
    out->asym_gbs = best;
    const double half = best / 2.0;
    size_t k = 0;
    while (k < n && bytes[k] / (ms[k] * 1e-3) / 1e9 < half)
        k++; /* k < n: the best size itself reaches half */
    out->half_index = k;
    if (k == 0) {
        out->half_bytes = bytes[0];
    } else {
        double b0 = bytes[k - 1] / (ms[k - 1] * 1e-3) / 1e9;
        double b1 = bytes[k] / (ms[k] * 1e-3) / 1e9;
        double f = b1 > b0 ? (half - b0) / (b1 - b0) : 1.0;
        out->half_bytes = exp(log(bytes[k - 1]) + f * (log(bytes[k]) - log(bytes[k - 1])));
    }
    /* t(s) = t0 + s/B at the smallest size; bytes per ms = GB/s * 1e6. */
    double t0_ms = ms[0] - bytes[0] / (best * 1e6);
    if (t0_ms < 0)
        t0_ms = 0;
    out->t0_us = t0_ms * 1e3;
    out->fit_half_bytes = t0_ms * best * 1e6;
    return CML_OK;
}

/* The link the predictions quote: the last one listed. */
typedef struct link_choice {
    int64_t link, lanes_choice;
    double raw_gbs;
} link_choice;

static link_choice predicted_link(const cml_param_values *pv)
{
    const cml_param_list *links = cml_param_get(pv, "link");
    const cml_param_list *lanes = cml_param_get(pv, "lanes");
    link_choice c;
    c.link = links->v[links->count - 1];
    c.lanes_choice = lanes->v[lanes->count - 1];
    c.raw_gbs = cml_pcie_raw_gbs(link_gts[c.link], lanes_values[c.lanes_choice]);
    return c;
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

/* Floats of the zero-copy input array, and the floats each access reads:
 * by default the array spans 4x L2 (the DRAM size of a one-array streaming
 * experiment) whatever the access, so every pattern sweeps the same bytes
 * and none is served from L2; with n given, n floats are read and the array
 * is as large as the widest access needs. */
static uint64_t zc_elements(const cml_plan *plan, const cml_param_values *pv)
{
    const uint64_t n = (uint64_t)cml_param_first(pv, "n");
    if (n == 0)
        return cml_plan_elements(plan, 4, 1);
    const cml_param_list *acc = cml_param_get(pv, "access");
    uint64_t need = 0;
    for (size_t i = 0; i < acc->count; i++) {
        uint64_t e = n * access_stride[acc->v[i]] + access_offset[acc->v[i]];
        if (e > need)
            need = e;
    }
    return need;
}

static uint64_t zc_reads(const cml_param_values *pv, uint64_t elements, int64_t access)
{
    const uint64_t n = (uint64_t)cml_param_first(pv, "n");
    if (n)
        return n;
    uint64_t usable = elements > access_offset[access] ? elements - access_offset[access] : 0;
    uint64_t r = usable / access_stride[access];
    return r ? r : 1;
}

static cml_status zerocopy_variant(cml_results *out, int64_t memory, int64_t access,
                                   link_choice lk, uint64_t n, int64_t block_choice,
                                   size_t *index)
{
    const unsigned block = block_sizes[block_choice];
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "mode", "zero-copy");
    cml_variant_add_label(variant, sizeof variant, "memory", memory_names[memory]);
    cml_variant_add_label(variant, sizeof variant, "access", access_names[access]);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "transfers", variant);
    *index = out->count - 1;
    cml_record_add_param(rec, "mode", MODE_ZEROCOPY, "zero-copy");
    cml_record_add_param(rec, "memory", memory, memory_names[memory]);
    cml_record_add_param(rec, "access", access, access_names[access]);
    cml_record_add_param(rec, "link", lk.link, link_names[lk.link]);
    cml_record_add_param(rec, "lanes", lk.lanes_choice, lanes_names[lk.lanes_choice]);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    rec->bytes_read = 4 * n; /* the floats the kernel uses */
    rec->bytes_written = 4 * n;

    cml_zerocopy_args args = {n, access_stride[access], access_offset[access]};
    /* Blocks differ by 4*block*stride bytes in in[] and 4*block in out[],
     * multiples of 128; the last block may be partial. */
    cml_status st = cml_exp_trace_1d(rec, cml_div_up(n, block), block, 0, 1, cml_zerocopy_mirror,
                                     &args);
    if (st)
        return st;
    const double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    const double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    if (memory == MEM_DEVICE) {
        cml_record_finding(rec,
                           "The baseline: the same kernel reading device memory (cudaMalloc), "
                           "in[i*%u + %u]: %.2f sectors per request, %.1f%% of the fetched bytes "
                           "used, served by HBM through L2.",
                           args.stride, args.offset, spr, eff);
        return CML_OK;
    }
    /* Only the loads cross PCIe; out[] is device memory. */
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const double sectors = (double)ld->sectors, used = (double)ld->requested_bytes;
    const double wire_lo = sectors * (CML_SECTOR_BYTES + CML_PCIE_OVERHEAD_LO);
    const double wire_hi = sectors * (CML_SECTOR_BYTES + CML_PCIE_OVERHEAD_HI);
    const double eff_hi = wire_lo > 0 ? used / wire_lo : 0.0; /* less overhead: better */
    const double eff_lo = wire_hi > 0 ? used / wire_hi : 0.0;
    cml_record_add_extra(rec, "link_efficiency_low", 100.0 * eff_lo, "%");
    cml_record_add_extra(rec, "link_efficiency_high", 100.0 * eff_hi, "%");
    cml_record_add_extra(rec, "useful_gbs_low", lk.raw_gbs * eff_lo, "GB/s");
    cml_record_add_extra(rec, "useful_gbs_high", lk.raw_gbs * eff_hi, "GB/s");
    cml_record_finding(rec,
                       "Arithmetic, not a measurement: thread i reads in[i*%u + %u] from mapped "
                       "host memory (%s), %.2f sectors per request; each is a 32 B PCIe read "
                       "with ~%u-%u B of packet overhead, so %.1f-%.1f%% of the link's bytes are "
                       "data the kernel uses: at most %.1f-%.1f GB/s on %s x%u (if L2 does not "
                       "cache host memory).",
                       args.stride, args.offset,
                       memory == MEM_MAPPED ? "device pointer" : "host pointer, UVA", spr,
                       CML_PCIE_OVERHEAD_LO, CML_PCIE_OVERHEAD_HI, 100.0 * eff_lo,
                       100.0 * eff_hi, lk.raw_gbs * eff_lo, lk.raw_gbs * eff_hi,
                       link_names[lk.link], lanes_values[lk.lanes_choice]);
    return CML_OK;
}

/* Is step s a kernel launch (traced by the model)? */
static int step_is_kernel(int s)
{
    return s == STEP_FAULT || s == STEP_WARM || s == STEP_PREFETCHED || s == STEP_MANUAL;
}

/* One managed-memory record with the model's view of its step. */
static cml_status managed_variant(cml_results *out, uint64_t um, int step, link_choice lk,
                                  int64_t block_choice, size_t *index)
{
    const unsigned block = block_sizes[block_choice];
    const uint64_t n = um / 4;
    const double pinned = lk.raw_gbs * CML_PCIE_PINNED_SHARE; /* GB/s */
    char variant[96] = "", sz[32];
    cml_variant_add_label(variant, sizeof variant, "mode", "managed");
    cml_variant_add(variant, sizeof variant, "um", (long long)um);
    cml_variant_add_label(variant, sizeof variant, "step", step_names[step]);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "transfers", variant);
    *index = out->count - 1;
    cml_record_add_param(rec, "mode", MODE_MANAGED, "managed");
    cml_record_add_param(rec, "um", (int64_t)um, NULL);
    cml_record_add_param(rec, "step", step, step_names[step]);
    cml_record_add_param(rec, "block", block_choice, block_names[block_choice]);
    cml_fmt_bytes(sz, sizeof sz, (double)(4 * n));
    uint64_t lo = 0, hi = 0;
    cml_um_migration_bounds(4 * n, &lo, &hi);
    /* Both arrays are written on the host first (in[] with the data, out[]
     * with the poison), so both migrate when the kernel touches them. */
    lo *= 2;
    hi *= 2;
    switch (step) {
    case STEP_PREFETCH: rec->bytes_read = 8 * n; break;
    case STEP_READBACK: rec->bytes_read = 4 * n; break;
    default:
        rec->bytes_read = 4 * n;
        rec->bytes_written = 4 * n;
        break;
    }
    if (step_is_kernel(step)) {
        cml_um_args args = {n};
        cml_status st =
            cml_exp_trace_1d(rec, cml_div_up(n, block), block, 0, 1, cml_um_mirror, &args);
        if (st)
            return st;
    }
    const double link_ms_lo = (double)lo / (pinned * 1e9) * 1e3;
    const double spr = rec->has_model ? cml_exp_spr(rec, CML_CLASS_GLOBAL_LD) : 0.0;
    switch (step) {
    case STEP_FAULT:
        cml_record_add_extra(rec, "migrate_low_bytes", (double)lo, "B");
        cml_record_add_extra(rec, "migrate_high_bytes", (double)hi, "B");
        cml_record_add_extra(rec, "link_time_ms", link_ms_lo, "ms");
        cml_record_finding(rec,
                           "Model: on first touch in[] and out[] (2 x %s, written on the host) "
                           "migrate on demand in groups of 4 KiB to 2 MiB: %.0f-%.0f MiB over "
                           "PCIe, at least %.2f ms at %s's typical %.1f GB/s, plus the fault "
                           "handling; the kernel itself: %.2f sectors per request.",
                           sz, (double)lo / 1048576.0, (double)hi / 1048576.0, link_ms_lo,
                           link_names[lk.link], pinned, spr);
        break;
    case STEP_WARM:
    case STEP_PREFETCHED:
        cml_record_finding(rec,
                           "Model: %s the pages are resident on the device, so the kernel is a "
                           "device-memory stream: %.2f sectors per request for its loads and "
                           "stores, %.1f%% of the fetched bytes used.",
                           step == STEP_WARM ? "on the second run" : "after the prefetch", spr,
                           100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD));
        break;
    case STEP_PREFETCH:
        cml_record_add_extra(rec, "link_time_ms", link_ms_lo, "ms");
        cml_record_finding(rec,
                           "Model: cudaMemPrefetchAsync moves both arrays (%.0f MiB) as whole "
                           "ranges, at close to a pinned copy: about %.2f ms at %s's typical "
                           "%.1f GB/s.",
                           (double)lo / 1048576.0, link_ms_lo, link_names[lk.link], pinned);
        break;
    case STEP_READBACK:
        cml_record_add_extra(rec, "link_time_ms", link_ms_lo / 2, "ms");
        cml_record_finding(rec,
                           "Model: the host reading out[] (%s) faults its pages back one group "
                           "at a time: at least %.2f ms at the link's typical %.1f GB/s.",
                           sz, link_ms_lo / 2, pinned);
        break;
    default: /* manual */
        cml_record_add_extra(rec, "link_time_ms", link_ms_lo, "ms");
        cml_record_finding(rec,
                           "Model: cudaMalloc + cudaMemcpy of %s in and %s out (pageable host "
                           "memory, staged by the driver): at least %.2f ms at %s's typical "
                           "pinned %.1f GB/s, plus the kernel (%.2f sectors per request).",
                           sz, sz, link_ms_lo, link_names[lk.link], pinned, spr);
        break;
    }
    return CML_OK;
}

/* ------------------------------------------------------------------------ */
/* GPU run: shared helpers                                                  */
/* ------------------------------------------------------------------------ */

typedef struct tctx {
    const cml_plan *plan;
    cml_gpu *g;
    cml_xfer *x;
    link_choice lk;
    double sys_gts;   /* the link Linux reports (0: unknown) */
    int sys_lanes;
} tctx;

static void rec_waive(cml_record *rec, const char *why)
{
    rec->state = CML_REC_WAIVED;
    cml_record_note(rec, "%s", why);
}

/* Mark rec failed with what was being done and the harness's message. */
static cml_status rec_fail(const tctx *t, cml_record *rec, cml_status st, const char *what)
{
    rec->state = CML_REC_FAILED;
    const char *msg = cml_gpu_error(t->g);
    cml_record_note(rec, "%s: %s%s%s", what, cml_status_str(st), *msg ? ": " : "", msg);
    return st;
}

static void rec_measured(cml_record *rec, const cml_timing *tm)
{
    rec->measured = 1;
    rec->timing = *tm;
    double bytes = (double)(rec->bytes_read + rec->bytes_written);
    rec->bandwidth_gbs = tm->median_ms > 0 ? bytes / (tm->median_ms * 1e-3) / 1e9 : NAN;
    rec->peak_fraction = -1.0; /* the device's DRAM peak says nothing about the bus */
}

/* Timing summary of host-side samples. */
static cml_status timing_of(const double *samples, unsigned warmup, unsigned reps,
                            cml_timing *tm)
{
    cml_stats st;
    memset(tm, 0, sizeof *tm);
    cml_status e = cml_stats_compute(samples, reps, &st);
    if (e != CML_OK)
        return e;
    tm->warmup = warmup;
    tm->reps = reps;
    tm->median_ms = st.median;
    tm->min_ms = st.min;
    tm->max_ms = st.max;
    tm->mean_ms = st.mean;
    tm->cv = st.cv;
    return CML_OK;
}

/*
 * Host passes over the copy buffers (fill, poison, compare), split over a
 * few threads: at 1 GiB one pass of one thread takes ~0.15 s on an H100's
 * host, and the default sweep makes about fifty of them. Pure host code;
 * the result does not depend on the split.
 */
enum { HP_FILL = 0, HP_POISON, HP_COMPARE };

typedef struct hp_job {
    int op;
    unsigned char *a;       /* fill / poison target, or the first compared buffer */
    const unsigned char *b; /* the second compared buffer */
    size_t lo, hi;          /* byte range [lo, hi), lo a multiple of 4 */
    size_t total;           /* bytes of the whole buffer (fill: the partial last float) */
    uint64_t seed;
    size_t first_bad;       /* compare: first differing byte, or SIZE_MAX */
} hp_job;

/* Fill [lo, hi) with the random floats of `seed`: element i is
 * cml_random_f32(seed, i); a partial last float gets its first bytes. */
static void hp_fill(hp_job *j)
{
    float *f = (float *)(void *)j->a;
    const size_t whole = j->total / 4;
    for (size_t i = j->lo / 4; i < j->hi / 4 && i < whole; i++)
        f[i] = cml_random_f32(j->seed, i);
    if (j->hi == j->total && j->total % 4) {
        float last = cml_random_f32(j->seed, whole);
        memcpy(j->a + 4 * whole, &last, j->total % 4);
    }
}

static void *hp_run(void *arg)
{
    hp_job *j = arg;
    switch (j->op) {
    case HP_FILL: hp_fill(j); break;
    case HP_POISON: memset(j->a + j->lo, 0xFF, j->hi - j->lo); break;
    default:
        j->first_bad = SIZE_MAX;
        if (memcmp(j->a + j->lo, j->b + j->lo, j->hi - j->lo) != 0) {
            size_t i = j->lo;
            while (i < j->hi && j->a[i] == j->b[i])
                i++;
            j->first_bad = i;
        }
        break;
    }
    return NULL;
}

/* Run one pass over `bytes` on up to 8 threads (one below 32 MiB, or if a
 * thread cannot be started: that part then runs here). Returns the first
 * differing byte of a compare, SIZE_MAX if none. */
static size_t host_pass(int op, void *a, const void *b, size_t bytes, uint64_t seed)
{
    enum { MAX_T = 8 };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = bytes >> 25; /* one thread per 32 MiB */
    if (nt > MAX_T)
        nt = MAX_T;
    if (cpus > 0 && nt > (size_t)cpus)
        nt = (size_t)cpus;
    if (nt == 0)
        nt = 1;
    hp_job jobs[MAX_T];
    pthread_t th[MAX_T];
    int started[MAX_T] = {0};
    const size_t chunk = (bytes / nt + 3) / 4 * 4;
    for (size_t k = 0; k < nt; k++) {
        hp_job *j = &jobs[k];
        j->op = op;
        j->a = a;
        j->b = b;
        j->lo = k * chunk < bytes ? k * chunk : bytes;
        j->hi = (k + 1 == nt || (k + 1) * chunk > bytes) ? bytes : (k + 1) * chunk;
        j->total = bytes;
        j->seed = seed;
        j->first_bad = SIZE_MAX;
        if (k > 0)
            started[k] = pthread_create(&th[k], NULL, hp_run, j) == 0;
    }
    hp_run(&jobs[0]);
    size_t bad = SIZE_MAX;
    for (size_t k = 0; k < nt; k++) {
        if (k > 0) {
            if (started[k])
                pthread_join(th[k], NULL);
            else
                hp_run(&jobs[k]);
        }
        if (jobs[k].first_bad < bad)
            bad = jobs[k].first_bad;
    }
    return bad;
}

static void fill_random(void *p, size_t bytes, uint64_t seed)
{
    (void)host_pass(HP_FILL, p, NULL, bytes, seed);
}

/* Poison a host buffer (every byte 0xFF) before a copy writes it. */
static void host_poison(void *p, size_t bytes)
{
    (void)host_pass(HP_POISON, p, NULL, bytes, 0);
}

/* Whole-buffer comparison (memcmp per part); on a mismatch the first
 * differing byte. */
static int host_same(const void *a, const void *b, size_t bytes, size_t *first_bad)
{
    size_t bad = host_pass(HP_COMPARE, (void *)a, b, bytes, 0);
    if (bad == SIZE_MAX)
        return 1;
    *first_bad = bad;
    return 0;
}

static void rec_verified(cml_record *rec, int ok, size_t first_bad, const char *what)
{
    if (ok) {
        if (rec->verify != CML_VERIFY_FAILED)
            rec->verify = CML_VERIFY_PASSED;
        return;
    }
    rec->verify = CML_VERIFY_FAILED;
    rec->state = CML_REC_FAILED;
    cml_record_note(rec, "verification failed: %s differs from the source from byte %zu on",
                    what, first_bad);
}

/* ------------------------------------------------------------------------ */
/* GPU run: copies                                                          */
/* ------------------------------------------------------------------------ */

/* Repetitions by size: many for latency-bound small copies (microseconds
 * each), few for 1 GiB (20-140 ms each on an H100, cv under 8%): the whole
 * default sweep, verification included, must stay a small part of the
 * suite's minute. --reps/--warmup win. */
static void copy_reps(const cml_plan *plan, size_t bytes, unsigned *warmup, unsigned *reps)
{
    unsigned r = bytes <= ((size_t)1 << 20) ? 50 : bytes <= ((size_t)16 << 20) ? 20
                 : bytes <= ((size_t)256 << 20) ? 5 : 3;
    if (plan->quick)
        r = (r + 1) / 2;
    *reps = plan->reps ? plan->reps : r;
    *warmup = plan->warmup ? plan->warmup : (bytes >= ((size_t)256 << 20) ? 1 : 3);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct values of a list, ascending; returns how many. */
static size_t sorted_unique(const cml_param_list *l, int64_t *v)
{
    memcpy(v, l->v, l->count * sizeof *v);
    qsort(v, l->count, sizeof *v, cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < l->count; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

static int list_has(const cml_param_list *l, int64_t v)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->v[i] == v)
            return 1;
    return 0;
}

static cml_status copy_record(cml_results *out, int64_t memory, int dir, uint64_t size,
                              int async, size_t *index)
{
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "mode", "copy");
    cml_variant_add_label(variant, sizeof variant, "memory", memory_names[memory]);
    cml_variant_add_label(variant, sizeof variant, "direction", dir_names[dir]);
    cml_variant_add(variant, sizeof variant, "size", (long long)size);
    if (async)
        cml_variant_add_label(variant, sizeof variant, "api", "async");
    cml_record *rec;
    CML_EXP_ADD(rec, out, "transfers", variant);
    *index = out->count - 1;
    cml_record_add_param(rec, "mode", MODE_COPY, "copy");
    cml_record_add_param(rec, "memory", memory, memory_names[memory]);
    cml_record_add_param(rec, "direction", dir, dir_names[dir]);
    cml_record_add_param(rec, "size", (int64_t)size, NULL);
    cml_record_add_param(rec, "api", async, async ? "cudaMemcpyAsync" : "cudaMemcpy");
    /* Bytes crossing the bus: each direction's once. */
    rec->bytes_read = dir == DIR_BOTH ? 2 * size : size;
    rec->bytes_written = 0;
    return CML_OK;
}

/* Buffers of one memory kind's sweep, each as large as the largest size
 * that fits (`fit`: sizes[0..fit) can be measured). */
typedef struct copy_bufs {
    cml_mem src, dst;     /* host: src holds the reference data, dst receives */
    cml_mem dev_a, dev_b; /* device: a receives h2d, b the h2d of "both" */
    const unsigned char *ref;
} copy_bufs;

/*
 * Allocate `kind` at the largest of sizes[0..*fit) that succeeds, trying
 * smaller sizes after an out-of-memory failure; *fit drops to the sizes
 * that fit and *why says why the others do not.
 */
static cml_status alloc_fit(const tctx *t, cml_mem *m, cml_mem_kind kind, const int64_t *sizes,
                            size_t *fit, char *why, size_t whylen)
{
    while (*fit > 0) {
        cml_status st = cml_mem_alloc(t->g, m, kind, (size_t)sizes[*fit - 1]);
        if (st == CML_OK)
            return CML_OK;
        if (st != CML_ENOMEM)
            return st;
        if (!why[0])
            snprintf(why, whylen, "%s", cml_gpu_error(t->g));
        (*fit)--;
    }
    return CML_OK;
}

/* One size of one memory kind: h2d, d2h, both (as listed), each verified. */
static cml_status copy_one_size(tctx *t, copy_bufs *b, int64_t memory, uint64_t size,
                                const cml_param_list *dirs, cml_results *out, size_t idx[3])
{
    cml_xfer *x = t->x;
    unsigned warmup, reps;
    copy_reps(t->plan, size, &warmup, &reps);
    int dev_a_valid = 0;
    size_t bad = 0;
    cml_status st;
    for (int d = 0; d < 3; d++) {
        idx[d] = (size_t)-1;
        if (!list_has(dirs, d))
            continue;
        if (d == DIR_BOTH && memory == MEM_PAGEABLE)
            continue; /* pageable copies are staged and serialised: see the file comment */
        if ((st = copy_record(out, memory, d, size, 0, &idx[d])) != CML_OK)
            return st;
        cml_record *rec = &out->items[idx[d]];
        cml_timing tm;
        if (d == DIR_H2D) {
            /* Poison the destination, time, then read it back into the
             * poisoned host buffer and compare with the source. */
            if ((st = cml_xfer_memset(x, b->dev_a.ptr, 0xFF, size)) == CML_OK)
                st = cml_xfer_sync(x);
            if (st == CML_OK)
                st = cml_xfer_time_copy(x, b->dev_a.ptr, b->src.ptr, size, CML_DIR_H2D,
                                        CML_COPY_MEMCPY, warmup, reps, &tm);
            if (st != CML_OK)
                return rec_fail(t, rec, st, "host-to-device copy");
            rec_measured(rec, &tm);
            host_poison(b->dst.ptr, size);
            if ((st = cml_xfer_copy(x, b->dst.ptr, b->dev_a.ptr, size, CML_DIR_D2H)) != CML_OK)
                return rec_fail(t, rec, st, "reading the copy back");
            int ok = host_same(b->dst.ptr, b->ref, size, &bad);
            rec_verified(rec, ok, bad, "the device copy");
            dev_a_valid = ok;
        } else {
            if (!dev_a_valid) {
                /* Give the device buffer the reference data first (untimed). */
                if ((st = cml_xfer_copy(x, b->dev_a.ptr, b->src.ptr, size, CML_DIR_H2D)) != CML_OK)
                    return rec_fail(t, rec, st, "preparing the device buffer");
                dev_a_valid = 1;
            }
            host_poison(b->dst.ptr, size);
            if (d == DIR_D2H) {
                st = cml_xfer_time_copy(x, b->dst.ptr, b->dev_a.ptr, size, CML_DIR_D2H,
                                        CML_COPY_MEMCPY, warmup, reps, &tm);
                if (st != CML_OK)
                    return rec_fail(t, rec, st, "device-to-host copy");
                rec_measured(rec, &tm);
                rec_verified(rec, host_same(b->dst.ptr, b->ref, size, &bad), bad,
                             "the host copy");
            } else {
                if ((st = cml_xfer_memset(x, b->dev_b.ptr, 0xFF, size)) == CML_OK)
                    st = cml_xfer_sync(x);
                if (st == CML_OK)
                    st = cml_xfer_time_both(x, b->dev_b.ptr, b->src.ptr, b->dst.ptr,
                                            b->dev_a.ptr, size, warmup, reps, &tm);
                if (st != CML_OK)
                    return rec_fail(t, rec, st, "copies in both directions");
                rec_measured(rec, &tm);
                rec_verified(rec, host_same(b->dst.ptr, b->ref, size, &bad), bad,
                             "the host copy (d2h half)");
                host_poison(b->dst.ptr, size);
                if ((st = cml_xfer_copy(x, b->dst.ptr, b->dev_b.ptr, size, CML_DIR_D2H)) !=
                    CML_OK)
                    return rec_fail(t, rec, st, "reading the h2d half back");
                rec_verified(rec, host_same(b->dst.ptr, b->ref, size, &bad), bad,
                             "the device copy (h2d half)");
            }
        }
    }
    return CML_OK;
}

/* The reference: cudaMemcpyAsync from pinned memory at `size`, each way. */
static cml_status copy_reference(tctx *t, copy_bufs *b, int64_t memory, uint64_t size,
                                 cml_results *out, size_t ref_idx[2])
{
    unsigned warmup, reps;
    copy_reps(t->plan, size, &warmup, &reps);
    size_t bad = 0;
    for (int d = 0; d < 2; d++) {
        cml_status st = copy_record(out, memory, d, size, 1, &ref_idx[d]);
        if (st != CML_OK)
            return st;
        cml_record *rec = &out->items[ref_idx[d]];
        cml_timing tm;
        if (d == DIR_H2D) {
            if ((st = cml_xfer_memset(t->x, b->dev_a.ptr, 0xFF, size)) == CML_OK)
                st = cml_xfer_sync(t->x);
            if (st == CML_OK)
                st = cml_xfer_time_copy(t->x, b->dev_a.ptr, b->src.ptr, size, CML_DIR_H2D,
                                        CML_COPY_ASYNC, warmup, reps, &tm);
            if (st != CML_OK)
                return rec_fail(t, rec, st, "reference host-to-device copy");
            rec_measured(rec, &tm);
            host_poison(b->dst.ptr, size);
            if ((st = cml_xfer_copy(t->x, b->dst.ptr, b->dev_a.ptr, size, CML_DIR_D2H)) != CML_OK)
                return rec_fail(t, rec, st, "reading the copy back");
        } else {
            host_poison(b->dst.ptr, size);
            st = cml_xfer_time_copy(t->x, b->dst.ptr, b->dev_a.ptr, size, CML_DIR_D2H,
                                    CML_COPY_ASYNC, warmup, reps, &tm);
            if (st != CML_OK)
                return rec_fail(t, rec, st, "reference device-to-host copy");
            rec_measured(rec, &tm);
        }
        rec_verified(rec, host_same(b->dst.ptr, b->ref, size, &bad), bad,
                     d == DIR_H2D ? "the device copy" : "the host copy");
    }
    return CML_OK;
}

static void copy_bufs_free(const tctx *t, copy_bufs *b, int64_t memory)
{
    if (memory != MEM_PAGEABLE)
        cml_mem_free(t->g, &b->src);
    cml_mem_free(t->g, &b->dst);
}

/* Latency or bandwidth, per record, and one sentence per sweep: where half
 * of the asymptotic rate is reached. idx[0..n) are one (memory, direction)
 * sweep's measured records, sizes ascending. */
static void copy_summary(const tctx *t, cml_results *out, const size_t *idx, size_t n)
{
    double bytes[64], ms[64];
    size_t m = 0;
    for (size_t k = 0; k < n && m < 64; k++) {
        const cml_record *r = &out->items[idx[k]];
        if (r->state != CML_REC_OK || !r->measured)
            continue;
        bytes[m] = (double)cml_record_find_param(r, "size")->value;
        if (cml_record_find_param(r, "direction")->value == DIR_BOTH)
            bytes[m] *= 2;
        ms[m++] = r->timing.median_ms;
    }
    cml_halfbw h;
    if (m == 0 || cml_transfers_half_bandwidth(bytes, ms, m, &h) != CML_OK)
        return;
    cml_record *last = NULL;
    for (size_t k = 0; k < n; k++) {
        cml_record *r = &out->items[idx[k]];
        if (r->state != CML_REC_OK || !r->measured)
            continue;
        cml_record_add_extra(r, "of_best_pct", 100.0 * r->bandwidth_gbs / h.asym_gbs, "%");
        /* Both directions at once can use both directions of the link. */
        const double raw = t->lk.raw_gbs *
                           (cml_record_find_param(r, "direction")->value == DIR_BOTH ? 2 : 1);
        cml_record_add_extra(r, "of_link_raw_pct", 100.0 * r->bandwidth_gbs / raw, "%");
        r->finding[0] = '\0';
        last = r;
    }
    if (!last)
        return;
    const cml_record *first = NULL;
    for (size_t k = 0; k < n && !first; k++)
        if (out->items[idx[k]].state == CML_REC_OK && out->items[idx[k]].measured)
            first = &out->items[idx[k]];
    /* Both directions: the fit uses the bytes of both, the sentence the
     * size of each copy, and the link's two directions. */
    const cml_record_param *dir = cml_record_find_param(last, "direction");
    const int both = dir->value == DIR_BOTH;
    const double per = both ? 0.5 : 1.0, raw = t->lk.raw_gbs * (both ? 2 : 1);
    char s_small[40], s_big[40], s_half[40], s_fit[40], s_lo[32], s_hi[32];
    cml_fmt_bytes(s_small, sizeof s_small, bytes[0] * per);
    cml_fmt_bytes(s_big, sizeof s_big, bytes[h.asym_index] * per);
    cml_fmt_bytes(s_half, sizeof s_half, h.half_bytes * per);
    cml_fmt_bytes(s_fit, sizeof s_fit, h.fit_half_bytes * per);
    if (both) {
        strcat(s_small, " each way");
        strcat(s_big, " each way");
    }
    char where[160];
    if (h.half_index == 0) {
        snprintf(where, sizeof where, "already at the smallest size, %s", s_small);
    } else {
        cml_fmt_bytes(s_lo, sizeof s_lo, bytes[h.half_index - 1] * per);
        cml_fmt_bytes(s_hi, sizeof s_hi, bytes[h.half_index] * per);
        snprintf(where, sizeof where, "near %s (between %s: %.1f and %s: %.1f GB/s)", s_half,
                 s_lo, bytes[h.half_index - 1] / (ms[h.half_index - 1] * 1e6), s_hi,
                 bytes[h.half_index] / (ms[h.half_index] * 1e6));
    }
    const cml_record_param *mem = cml_record_find_param(last, "memory");
    cml_record_add_extra(last, "half_bw_bytes", h.half_bytes * per, "B");
    cml_record_add_extra(last, "latency_us", h.t0_us, "us");
    cml_record_finding(last,
                       "%s %s: %s takes %.1f us (%.2f GB/s); the best, %.1f GB/s at %s, is "
                       "%.0f%% of %s x%u's raw rate%s. Half of it is reached %s; t = t0 + s/B "
                       "fits t0 = %.1f us, so s1/2 = t0*B = %s: below it copies are "
                       "latency-bound, above it bandwidth-bound.",
                       mem->label, dir->label, s_small, first->timing.median_ms * 1e3,
                       first->bandwidth_gbs, h.asym_gbs, s_big, 100.0 * h.asym_gbs / raw,
                       link_names[t->lk.link], lanes_values[t->lk.lanes_choice],
                       both ? " (both ways)" : "", where, h.t0_us, s_fit);
}

/* The reference's sentence: how the cudaMemcpy figures at its size and
 * direction compare with it (within 10%: the same DMA path). */
static void reference_finding(const tctx *t, cml_results *out, size_t ref)
{
    cml_record *r = &out->items[ref];
    if (r->state != CML_REC_OK || !r->measured)
        return;
    const int64_t size = cml_record_find_param(r, "size")->value;
    const int64_t dir = cml_record_find_param(r, "direction")->value;
    char cmp[200] = "", sz[32], linkinfo[96] = "";
    int all_within = 1, any = 0;
    for (size_t i = 0; i < out->count; i++) {
        const cml_record *o = &out->items[i];
        const cml_record_param *mode = cml_record_find_param(o, "mode");
        const cml_record_param *api = cml_record_find_param(o, "api");
        if (!mode || mode->value != MODE_COPY || !api || api->value != 0 ||
            o->state != CML_REC_OK || !o->measured ||
            cml_record_find_param(o, "size")->value != size ||
            cml_record_find_param(o, "direction")->value != dir)
            continue;
        const cml_record_param *mem = cml_record_find_param(o, "memory");
        double diff = 100.0 * (o->bandwidth_gbs - r->bandwidth_gbs) / r->bandwidth_gbs;
        if (mem->value != MEM_PAGEABLE) {
            any = 1;
            all_within &= fabs(diff) <= 10.0;
        }
        size_t used = strlen(cmp);
        snprintf(cmp + used, sizeof cmp - used, "%s%s %.1f (%+.1f%%)", used ? ", " : "",
                 mem->label, o->bandwidth_gbs, diff);
    }
    cml_fmt_bytes(sz, sizeof sz, (double)size);
    if (t->sys_gts > 0)
        snprintf(linkinfo, sizeof linkinfo, " Linux reports the link at %.1f GT/s x%d (%.1f GB/s raw).",
                 t->sys_gts, t->sys_lanes, cml_pcie_raw_gbs(t->sys_gts, (unsigned)t->sys_lanes));
    cml_record_finding(r,
                       "Reference, cudaMemcpyAsync from pinned memory, %s %s: %.1f GB/s. "
                       "cudaMemcpy: %s%s.%s",
                       sz, dir_names[dir], r->bandwidth_gbs, cmp[0] ? cmp : "none measured",
                       !any ? "" : all_within ? ": pinned copies within 10%, the same DMA path"
                                              : ": a pinned copy is NOT within 10% of it",
                       linkinfo);
}

static cml_status copy_sweep(tctx *t, const cml_param_values *pv, cml_results *out)
{
    const cml_param_list *mems = cml_param_get(pv, "memory");
    const cml_param_list *dirs = cml_param_get(pv, "direction");
    int64_t sizes[CML_MAX_VALUES];
    size_t nsizes = sorted_unique(cml_param_get(pv, "size"), sizes);
    const uint64_t largest = (uint64_t)sizes[nsizes - 1];
    if (!list_has(mems, MEM_PAGEABLE) && !list_has(mems, MEM_PINNED) &&
        !list_has(mems, MEM_HOSTALLOC))
        return CML_OK; /* no host memory kind to copy from */

    /* Device buffers fit first; sizes beyond a quarter of the free device
     * memory each are left out (two buffers, and room for the rest). */
    size_t free_b = 0;
    cml_status st = cml_gpu_memory_info(t->g, &free_b, NULL);
    if (st != CML_OK)
        return st;
    size_t dev_fit = nsizes;
    while (dev_fit > 0 && (uint64_t)sizes[dev_fit - 1] > free_b / 4)
        dev_fit--;
    copy_bufs b;
    memset(&b, 0, sizeof b);
    char dev_why[320] = "";
    if (dev_fit < nsizes)
        snprintf(dev_why, sizeof dev_why, "the device has %.0f MiB free: copies up to a quarter "
                 "of it are measured", (double)free_b / 1048576.0);
    if ((st = alloc_fit(t, &b.dev_a, CML_MEM_DEVICE, sizes, &dev_fit, dev_why, sizeof dev_why)))
        return st;
    if ((st = alloc_fit(t, &b.dev_b, CML_MEM_DEVICE, sizes, &dev_fit, dev_why, sizeof dev_why)))
        return st;

    /* The reference data: random floats, pageable, at the largest size. */
    unsigned char *ref = malloc(largest + 4);
    if (!ref) {
        cml_mem_free(t->g, &b.dev_a);
        cml_mem_free(t->g, &b.dev_b);
        return CML_ENOMEM;
    }
    fill_random(ref, largest, SEED_COPY);
    b.ref = ref;

    size_t sweep_idx[3][CML_MAX_VALUES];
    size_t ref_idx[2] = {(size_t)-1, (size_t)-1};
    int have_ref = 0;
    for (size_t mi = 0; mi < mems->count && st == CML_OK; mi++) {
        const int64_t memory = mems->v[mi];
        if (memory != MEM_PAGEABLE && memory != MEM_PINNED && memory != MEM_HOSTALLOC)
            continue;
        const cml_mem_kind kind = memory_kind[memory];
        size_t fit = dev_fit;
        char why[320];
        snprintf(why, sizeof why, "%s", dev_why);
        char host_why[320] = "";
        if (memory == MEM_PAGEABLE) {
            b.src.ptr = ref;
            b.src.bytes = largest;
            b.src.kind = CML_MEM_PAGEABLE;
        } else {
            st = alloc_fit(t, &b.src, kind, sizes, &fit, host_why, sizeof host_why);
            if (st == CML_OK && fit)
                memcpy(b.src.ptr, ref, (size_t)sizes[fit - 1]);
        }
        if (st == CML_OK)
            st = alloc_fit(t, &b.dst, kind, sizes, &fit, host_why, sizeof host_why);
        if (st != CML_OK)
            break;
        if (host_why[0])
            snprintf(why, sizeof why, "cannot allocate the host buffers: %s", host_why);
        size_t nsweep = 0;
        for (size_t si = 0; si < nsizes && st == CML_OK; si++) {
            size_t idx[3];
            if (si >= fit) {
                /* WAIVED, with the reason, for each direction asked. */
                for (int d = 0; d < 3; d++) {
                    if (!list_has(dirs, d) || (d == DIR_BOTH && memory == MEM_PAGEABLE))
                        continue;
                    if ((st = copy_record(out, memory, d, (uint64_t)sizes[si], 0, &idx[d])))
                        break;
                    rec_waive(&out->items[idx[d]], why);
                }
                continue;
            }
            st = copy_one_size(t, &b, memory, (uint64_t)sizes[si], dirs, out, idx);
            for (int d = 0; d < 3; d++)
                sweep_idx[d][nsweep] = idx[d];
            nsweep++;
        }
        /* The reference runs with the first pinned kind, at its largest size. */
        if (st == CML_OK && !have_ref && memory != MEM_PAGEABLE && fit > 0) {
            st = copy_reference(t, &b, memory, (uint64_t)sizes[fit - 1], out, ref_idx);
            have_ref = 1;
        }
        copy_bufs_free(t, &b, memory);
        if (st != CML_OK)
            break;
        for (int d = 0; d < 3; d++) {
            size_t list[CML_MAX_VALUES], m = 0;
            for (size_t k = 0; k < nsweep; k++)
                if (sweep_idx[d][k] != (size_t)-1)
                    list[m++] = sweep_idx[d][k];
            if (m)
                copy_summary(t, out, list, m);
        }
    }
    if (st == CML_OK && dirs->given && list_has(dirs, DIR_BOTH) && list_has(mems, MEM_PAGEABLE)) {
        size_t i;
        if ((st = copy_record(out, MEM_PAGEABLE, DIR_BOTH, largest, 0, &i)) == CML_OK)
            rec_waive(&out->items[i], "both directions at once need pinned memory: pageable "
                                      "copies are staged by the driver and do not overlap");
    }
    for (int d = 0; d < 2 && st == CML_OK; d++)
        if (ref_idx[d] != (size_t)-1)
            reference_finding(t, out, ref_idx[d]);
    free(ref);
    cml_mem_free(t->g, &b.dev_a);
    cml_mem_free(t->g, &b.dev_b);
    return st;
}

/* ------------------------------------------------------------------------ */
/* GPU run: zero-copy                                                       */
/* ------------------------------------------------------------------------ */

typedef struct zc_bufs {
    cml_dbuf in_dev;   /* device copy of the input */
    cml_mem in_map;    /* mapped host copy of the same floats */
    void *in_map_dev;  /* its device pointer */
    cml_dbuf out;
    int dev_ready, map_tried;
    char map_why[320];
    uint64_t elements;  /* floats of in[] */
    uint64_t most;      /* the most floats any access reads (out[]) */
} zc_bufs;

typedef struct zc_check_ctx {
    cml_zerocopy_launch_args a;
} zc_check_ctx;

static cml_status zc_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_zerocopy_check(&((zc_check_ctx *)ctx)->a, SEED_ZC, d_counters);
}

/* Measure record `index`: poison out, time, verify, and say what the
 * figures mean against the model and the device-memory baseline. */
static cml_status zc_measure(tctx *t, zc_bufs *z, cml_results *out, size_t index,
                             double device_gbs)
{
    cml_record *rec = &out->items[index];
    const int64_t memory = cml_record_find_param(rec, "memory")->value;
    const int64_t access = cml_record_find_param(rec, "access")->value;
    const uint64_t n = (uint64_t)cml_record_find_param(rec, "n")->value;
    const cml_device_facts *f = t->plan->dev;
    const void *in = NULL;
    if (!z->dev_ready) {
        /* Device input and output, once for the sweep (the record carries
         * the message if they cannot be had). */
        cml_status st = cml_exp_alloc_random(t->plan, rec, &z->in_dev, z->elements, SEED_ZC);
        if (st == CML_OK)
            st = cml_exp_alloc(t->plan, rec, &z->out, z->most * 4);
        if (st != CML_OK)
            return st;
        z->dev_ready = 1;
    }
    if (memory == MEM_DEVICE) {
        in = z->in_dev.ptr;
    } else {
        if (!f->can_map_host_memory) {
            rec_waive(rec, "this device cannot map host memory (cudaDevAttrCanMapHostMemory is "
                           "0): no zero-copy access");
            return CML_OK;
        }
        if (memory == MEM_MAPPED_UVA && !f->unified_addressing) {
            rec_waive(rec, "no unified virtual addressing (cudaDevAttrUnifiedAddressing is 0): "
                           "the host pointer is not a device address here");
            return CML_OK;
        }
        if (!z->map_tried) {
            z->map_tried = 1;
            cml_status st = cml_mem_alloc(t->g, &z->in_map, CML_MEM_MAPPED, z->elements * 4);
            if (st == CML_OK) {
                fill_random(z->in_map.ptr, z->elements * 4, SEED_ZC);
                st = cml_mem_device_pointer(t->g, &z->in_map, &z->in_map_dev);
                if (st != CML_OK)
                    return rec_fail(t, rec, st, "cudaHostGetDevicePointer");
            } else if (st == CML_ENOMEM || st == CML_EUNSUPPORTED) {
                snprintf(z->map_why, sizeof z->map_why, "no mapped host memory: %s",
                         cml_gpu_error(t->g));
            } else {
                return rec_fail(t, rec, st, "mapped host memory");
            }
        }
        if (!z->in_map.ptr) {
            rec_waive(rec, z->map_why);
            return CML_OK;
        }
        in = memory == MEM_MAPPED ? z->in_map_dev : z->in_map.ptr;
    }
    zc_check_ctx c;
    c.a.in = in;
    c.a.out = z->out.ptr;
    c.a.n = n;
    c.a.stride = access_stride[access];
    c.a.offset = access_offset[access];
    c.a.block = block_sizes[cml_record_find_param(rec, "block")->value];
    cml_status st = cml_gpu_poison(t->g, &z->out);
    if (st != CML_OK)
        return rec_fail(t, rec, st, "poisoning the output");
    st = cml_exp_time(t->plan, rec, cml_zerocopy_launch, &c.a, cml_zerocopy_kernel(), c.a.block,
                      0);
    if (st != CML_OK)
        return st;
    st = cml_exp_verify(t->plan, rec, zc_check_cb, &c);
    if (st != CML_OK)
        return st;
    if (memory != MEM_DEVICE)
        rec->peak_fraction = -1.0; /* the DRAM peak is not this path's limit */
    const double med_s = rec->timing.median_ms * 1e-3;
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    const double read_gbs = 4.0 * (double)n / med_s / 1e9;
    const double sector_gbs = (double)ld->sectors * CML_SECTOR_BYTES / med_s / 1e9;
    cml_record_add_extra(rec, "read_gbs", read_gbs, "GB/s");
    cml_record_add_extra(rec, "sector_gbs", sector_gbs, "GB/s");
    const double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    if (memory == MEM_DEVICE) {
        cml_record_finding(rec,
                           "Device memory, in[i*%u + %u]: %.2f sectors per request; the kernel "
                           "reads %.1f GB/s of useful data (%.1f GB/s of sectors), the baseline "
                           "for mapped host memory.",
                           c.a.stride, c.a.offset, spr, read_gbs, sector_gbs);
        return CML_OK;
    }
    double lo = 0, hi = 0;
    for (unsigned e = 0; e < rec->nextra; e++) {
        if (!strcmp(rec->extra[e].name, "useful_gbs_low"))
            lo = rec->extra[e].value;
        if (!strcmp(rec->extra[e].name, "useful_gbs_high"))
            hi = rec->extra[e].value;
    }
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
                       memory == MEM_MAPPED ? "Mapped (device pointer)" : "Mapped (host pointer)",
                       c.a.stride, c.a.offset, spr, read_gbs, sector_gbs,
                       100.0 * sector_gbs / t->lk.raw_gbs, link_names[t->lk.link],
                       lanes_values[t->lk.lanes_choice], lo, hi, verdict, vsdev);
    return CML_OK;
}

/* ------------------------------------------------------------------------ */
/* GPU run: managed memory                                                  */
/* ------------------------------------------------------------------------ */

typedef struct um_check_ctx {
    cml_um_launch_args a;
} um_check_ctx;

static cml_status um_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_um_check(&((um_check_ctx *)ctx)->a, SEED_UM, d_counters);
}

typedef struct um_run {
    cml_mem in, outm;          /* managed */
    cml_dbuf d_in, d_out;      /* manual: device memory */
    float *ref_in, *ref_out;   /* host reference: random, and 2 * random */
    float *hbuf;               /* host buffer the results are read into */
    double samples[STEP_COUNT][16];
    unsigned ns[STEP_COUNT];
} um_run;

static void um_run_free(const tctx *t, um_run *u)
{
    cml_mem_free(t->g, &u->in);
    cml_mem_free(t->g, &u->outm);
    cml_gpu_free(t->g, &u->d_in);
    cml_gpu_free(t->g, &u->d_out);
    free(u->ref_in);
    free(u->ref_out);
    free(u->hbuf);
}

/*
 * One cycle of the managed-memory sequence; `timed` keeps the samples.
 * Steps: host writes in[] and poisons out[] (pages on the host); kernel
 * (first touch: faults); device-side check; poison out[] on the device;
 * kernel again (warm); host copies out[] back (readback) and compares.
 * Then the same with cudaMemPrefetchAsync before the kernel, and the manual
 * cudaMalloc + cudaMemcpy version. Records are failed on a mismatch.
 */
static cml_status um_cycle(tctx *t, um_run *u, uint64_t n, unsigned block, int prefetch_ok,
                           int timed, cml_results *out, const size_t *idx)
{
    const size_t bytes = 4 * n;
    cml_xfer *x = t->x;
    double ms[STEP_COUNT];
    size_t bad = 0;
    cml_status st;
    cml_um_launch_args a = {u->in.ptr, u->outm.ptr, n, block};
    um_check_ctx c = {a};

    /* Without prefetch: first touch, then warm. */
    memcpy(u->in.ptr, u->ref_in, bytes);
    memset(u->outm.ptr, 0xFF, bytes);
    if ((st = cml_xfer_start(x)) || (st = cml_xfer_launch(x, cml_um_launch, &a)) || (st = cml_xfer_stop(x, &ms[0])))
        return rec_fail(t, &out->items[idx[STEP_FAULT]], st, "first-touch kernel");
    st = cml_exp_verify(t->plan, &out->items[idx[STEP_FAULT]], um_check_cb, &c);
    if (st != CML_OK && st != CML_EVERIFY)
        return st;
    if ((st = cml_xfer_memset(x, u->outm.ptr, 0xFF, bytes)) || (st = cml_xfer_start(x)) ||
        (st = cml_xfer_launch(x, cml_um_launch, &a)) || (st = cml_xfer_stop(x, &ms[STEP_WARM])) ||
        (st = cml_xfer_sync(x)))
        return rec_fail(t, &out->items[idx[STEP_WARM]], st, "second kernel run");
    double t0 = cml_host_clock_ms();
    memcpy(u->hbuf, u->outm.ptr, bytes);
    ms[STEP_READBACK] = cml_host_clock_ms() - t0;
    int ok = host_same(u->hbuf, u->ref_out, bytes, &bad);
    rec_verified(&out->items[idx[STEP_WARM]], ok, bad, "out[] read back on the host");
    rec_verified(&out->items[idx[STEP_READBACK]], ok, bad, "out[] read back on the host");

    /* With prefetch. */
    if (prefetch_ok) {
        memcpy(u->in.ptr, u->ref_in, bytes);
        memset(u->outm.ptr, 0xFF, bytes);
        if ((st = cml_xfer_start(x)) || (st = cml_xfer_prefetch(x, u->in.ptr, bytes)) ||
            (st = cml_xfer_prefetch(x, u->outm.ptr, bytes)) ||
            (st = cml_xfer_stop(x, &ms[STEP_PREFETCH])))
            return rec_fail(t, &out->items[idx[STEP_PREFETCH]], st, "cudaMemPrefetchAsync");
        if ((st = cml_xfer_start(x)) || (st = cml_xfer_launch(x, cml_um_launch, &a)) ||
            (st = cml_xfer_stop(x, &ms[STEP_PREFETCHED])) || (st = cml_xfer_sync(x)))
            return rec_fail(t, &out->items[idx[STEP_PREFETCHED]], st, "kernel after prefetch");
        memcpy(u->hbuf, u->outm.ptr, bytes);
        ok = host_same(u->hbuf, u->ref_out, bytes, &bad);
        rec_verified(&out->items[idx[STEP_PREFETCHED]], ok, bad, "out[] read back on the host");
        rec_verified(&out->items[idx[STEP_PREFETCH]], ok, bad, "out[] read back on the host");
    }

    /* Manual: cudaMemcpy in, kernel, cudaMemcpy out, all between one pair
     * of events (pageable host buffers, as the textbook's program). */
    cml_um_launch_args m = {u->d_in.ptr, u->d_out.ptr, n, block};
    memset(u->hbuf, 0xFF, bytes);
    if ((st = cml_gpu_poison(t->g, &u->d_out)) || (st = cml_xfer_start(x)) ||
        (st = cml_xfer_copy(x, u->d_in.ptr, u->ref_in, bytes, CML_DIR_H2D)) ||
        (st = cml_xfer_launch(x, cml_um_launch, &m)) ||
        (st = cml_xfer_copy(x, u->hbuf, u->d_out.ptr, bytes, CML_DIR_D2H)) ||
        (st = cml_xfer_stop(x, &ms[STEP_MANUAL])))
        return rec_fail(t, &out->items[idx[STEP_MANUAL]], st, "cudaMemcpy, kernel, cudaMemcpy");
    rec_verified(&out->items[idx[STEP_MANUAL]], host_same(u->hbuf, u->ref_out, bytes, &bad), bad,
                 "the result copied back");

    if (timed)
        for (int s = 0; s < STEP_COUNT; s++) {
            if (!prefetch_ok && (s == STEP_PREFETCH || s == STEP_PREFETCHED))
                continue;
            if (u->ns[s] < 16)
                u->samples[s][u->ns[s]++] = ms[s];
        }
    return CML_OK;
}

/* Findings of the measured managed steps, against each other and the link. */
static void um_findings(const tctx *t, cml_results *out, const size_t *idx, uint64_t um)
{
    const cml_record *r[STEP_COUNT];
    for (int s = 0; s < STEP_COUNT; s++)
        r[s] = &out->items[idx[s]];
    const double pinned = t->lk.raw_gbs * CML_PCIE_PINNED_SHARE;
    char sz[32];
    cml_fmt_bytes(sz, sizeof sz, (double)um);
#define OK_(s) (r[s]->state == CML_REC_OK && r[s]->measured)
#define MS_(s) (r[s]->timing.median_ms)
    if (OK_(STEP_FAULT)) {
        const double link_ms = 2.0 * (double)um / (pinned * 1e9) * 1e3;
        const double ratio = MS_(STEP_FAULT) / link_ms;
        cml_record_finding(
            (cml_record *)r[STEP_FAULT],
            "First touch: the kernel faults in[] and out[] (2 x %s, written on the host) over "
            "PCIe: %.2f ms, %.1f GB/s, %.1fx the %.2f ms the same bytes take at the link's "
            "typical %.1f GB/s: %s.",
            sz, MS_(STEP_FAULT), r[STEP_FAULT]->bandwidth_gbs, ratio, link_ms, pinned,
            ratio > 2.0 ? "page-fault handling, not the link, sets the pace"
                        : "migration on demand runs close to the link's rate here");
    }
    if (OK_(STEP_WARM)) {
        char more[64] = "";
        if (OK_(STEP_FAULT))
            snprintf(more, sizeof more, "; the first touch took %.0fx longer",
                     MS_(STEP_FAULT) / MS_(STEP_WARM));
        cml_record_finding((cml_record *)r[STEP_WARM],
                           "Second run, pages resident: %.3f ms (%.0f GB/s), device-memory "
                           "speed%s.",
                           MS_(STEP_WARM), r[STEP_WARM]->bandwidth_gbs, more);
    }
    if (OK_(STEP_PREFETCH))
        cml_record_finding((cml_record *)r[STEP_PREFETCH],
                           "cudaMemPrefetchAsync of both arrays: %.2f ms, %.1f GB/s (%.0f%% of "
                           "the link's typical pinned %.1f GB/s): %s.",
                           MS_(STEP_PREFETCH), r[STEP_PREFETCH]->bandwidth_gbs,
                           100.0 * r[STEP_PREFETCH]->bandwidth_gbs / pinned, pinned,
                           r[STEP_PREFETCH]->bandwidth_gbs > 0.5 * pinned
                               ? "whole ranges move at close to copy speed, without faults"
                               : "well below a pinned copy: the driver still migrates in pieces");
    char vs_warm[64] = "";
    if (OK_(STEP_WARM) && OK_(STEP_PREFETCHED)) {
        const double q = MS_(STEP_PREFETCHED) / MS_(STEP_WARM);
        if (q < 1.25)
            snprintf(vs_warm, sizeof vs_warm, ", as the warm run");
        else
            snprintf(vs_warm, sizeof vs_warm, ", %.1fx the warm run", q);
    }
    if (OK_(STEP_PREFETCHED))
        cml_record_finding((cml_record *)r[STEP_PREFETCHED],
                           "Kernel after the prefetch: %.3f ms (%.0f GB/s)%s; prefetch + kernel "
                           "%.2f ms against %.2f ms of first touch.",
                           MS_(STEP_PREFETCHED), r[STEP_PREFETCHED]->bandwidth_gbs, vs_warm,
                           MS_(STEP_PREFETCHED) + (OK_(STEP_PREFETCH) ? MS_(STEP_PREFETCH) : 0),
                           OK_(STEP_FAULT) ? MS_(STEP_FAULT) : 0.0);
    if (OK_(STEP_READBACK))
        cml_record_finding((cml_record *)r[STEP_READBACK],
                           "The host reading out[] back (memcpy, monotonic clock): %.2f ms, "
                           "%.1f GB/s: its pages migrate back on CPU page faults.",
                           MS_(STEP_READBACK), r[STEP_READBACK]->bandwidth_gbs);
    if (OK_(STEP_MANUAL)) {
        char um_total[120] = "";
        if (OK_(STEP_FAULT) && OK_(STEP_READBACK))
            snprintf(um_total, sizeof um_total,
                     " against managed first touch + readback %.2f ms%s",
                     MS_(STEP_FAULT) + MS_(STEP_READBACK),
                     OK_(STEP_PREFETCH) ? " and prefetch + kernel + readback" : "");
        char pf[48] = "";
        if (OK_(STEP_PREFETCH) && OK_(STEP_PREFETCHED) && OK_(STEP_READBACK))
            snprintf(pf, sizeof pf, " %.2f ms",
                     MS_(STEP_PREFETCH) + MS_(STEP_PREFETCHED) + MS_(STEP_READBACK));
        cml_record_finding((cml_record *)r[STEP_MANUAL],
                           "Manual (sumMatrixGPUManual): cudaMemcpy in (pageable), kernel, "
                           "cudaMemcpy out: %.2f ms%s%s.",
                           MS_(STEP_MANUAL), um_total, pf);
    }
#undef OK_
#undef MS_
}

static cml_status managed_measure(tctx *t, uint64_t um, unsigned block, cml_results *out,
                                  const size_t *idx)
{
    const cml_device_facts *f = t->plan->dev;
    const uint64_t n = um / 4;
    const size_t bytes = 4 * n;
    if (!f->managed_memory) {
        for (int s = 0; s < STEP_COUNT; s++)
            rec_waive(&out->items[idx[s]], "this device has no managed memory "
                                           "(cudaDevAttrManagedMemory is 0)");
        return CML_OK;
    }
    /* The safety cap: never ask for managed memory the card might not have. */
    size_t free_b = 0;
    cml_status st = cml_gpu_memory_info(t->g, &free_b, NULL);
    if (st != CML_OK)
        return rec_fail(t, &out->items[idx[0]], st, "cudaMemGetInfo");
    uint64_t cap = free_b / 8;
    if (cap > ((uint64_t)1 << 30))
        cap = (uint64_t)1 << 30;
    if (2 * (uint64_t)bytes > cap) {
        char why[200];
        snprintf(why, sizeof why,
                 "2 x %.1f MiB of managed memory exceeds the cap of %.1f MiB (1/8 of the %.0f MiB "
                 "free on the device, at most 1 GiB)",
                 (double)bytes / 1048576.0, (double)cap / 1048576.0, (double)free_b / 1048576.0);
        for (int s = 0; s < STEP_COUNT; s++)
            rec_waive(&out->items[idx[s]], why);
        return CML_OK;
    }
    const int prefetch_ok = f->concurrent_managed != 0;
    if (!prefetch_ok) {
        rec_waive(&out->items[idx[STEP_PREFETCH]],
                  "cudaMemPrefetchAsync needs concurrent managed access "
                  "(cudaDevAttrConcurrentManagedAccess is 0): managed data migrates at launch");
        rec_waive(&out->items[idx[STEP_PREFETCHED]], out->items[idx[STEP_PREFETCH]].note);
    }
    um_run u;
    memset(&u, 0, sizeof u);
    u.ref_in = malloc(bytes);
    u.ref_out = malloc(bytes);
    u.hbuf = malloc(bytes);
    if (!u.ref_in || !u.ref_out || !u.hbuf) {
        um_run_free(t, &u);
        return CML_ENOMEM;
    }
    for (uint64_t i = 0; i < n; i++) {
        u.ref_in[i] = cml_random_f32(SEED_UM, i);
        u.ref_out[i] = 2.0f * u.ref_in[i]; /* exact: a power of two */
    }
    memset(u.hbuf, 0, bytes); /* touch it now, not inside the timed readback */
    if ((st = cml_mem_alloc(t->g, &u.in, CML_MEM_MANAGED, bytes)) ||
        (st = cml_mem_alloc(t->g, &u.outm, CML_MEM_MANAGED, bytes)) ||
        (st = cml_gpu_alloc(t->g, &u.d_in, bytes)) || (st = cml_gpu_alloc(t->g, &u.d_out, bytes))) {
        um_run_free(t, &u);
        return rec_fail(t, &out->items[idx[0]], st, "managed-memory buffers");
    }
    /* One untimed cycle (its first touch also pays for the driver's first
     * use of the range), then the timed ones. */
    unsigned cycles = t->plan->reps ? t->plan->reps : (t->plan->quick ? 2 : 3);
    if (cycles > 16)
        cycles = 16;
    for (unsigned c = 0; c <= cycles && st == CML_OK; c++)
        st = um_cycle(t, &u, n, block, prefetch_ok, c > 0, out, idx);
    um_run_free(t, &u);
    if (st != CML_OK)
        return st;
    for (int s = 0; s < STEP_COUNT; s++) {
        cml_record *rec = &out->items[idx[s]];
        if (rec->state != CML_REC_OK || u.ns[s] == 0)
            continue;
        cml_timing tm;
        if ((st = timing_of(u.samples[s], 1, u.ns[s], &tm)) != CML_OK)
            return st;
        rec_measured(rec, &tm);
    }
    um_findings(t, out, idx, bytes);
    return CML_OK;
}

/* ------------------------------------------------------------------------ */
/* GPU run: allocation costs                                                */
/* ------------------------------------------------------------------------ */

/* "12.3 us" below a millisecond, "145.8 ms" above. */
static void fmt_us(char *buf, size_t len, double us)
{
    if (us < 1000.0)
        snprintf(buf, len, "%.1f us", us);
    else
        snprintf(buf, len, "%.1f ms", us / 1000.0);
}

static const char *alloc_why(int64_t memory)
{
    switch (memory) {
    case MEM_DEVICE: return "cudaFree synchronises the device: allocate once, outside loops";
    case MEM_MANAGED:
        return "cudaMallocManaged reserves address space; pages are placed where first touched";
    case MEM_MAPPED: return "as pinned memory, plus a mapping into the device's address space";
    default: return "pinning locks and maps every page for DMA up front: reuse pinned buffers";
    }
}

static cml_status alloc_sweep(tctx *t, const cml_param_values *pv, cml_results *out)
{
    const cml_param_list *mems = cml_param_get(pv, "memory");
    int64_t sizes[CML_MAX_VALUES];
    size_t nsizes = sorted_unique(cml_param_get(pv, "alloc"), sizes);
    const cml_device_facts *f = t->plan->dev;
    cml_status st = CML_OK;
    for (size_t mi = 0; mi < mems->count && st == CML_OK; mi++) {
        const int64_t memory = mems->v[mi];
        if (memory == MEM_PAGEABLE || memory == MEM_MAPPED_UVA)
            continue;
        const cml_mem_kind kind = memory_kind[memory];
        size_t first = (size_t)-1, last = (size_t)-1;
        for (size_t si = 0; si < nsizes && st == CML_OK; si++) {
            const uint64_t size = (uint64_t)sizes[si];
            char variant[96] = "";
            cml_variant_add_label(variant, sizeof variant, "mode", "alloc");
            cml_variant_add_label(variant, sizeof variant, "memory", memory_names[memory]);
            cml_variant_add(variant, sizeof variant, "size", (long long)size);
            cml_record *rec;
            CML_EXP_ADD(rec, out, "transfers", variant);
            size_t index = out->count - 1;
            cml_record_add_param(rec, "mode", MODE_ALLOC, "alloc");
            cml_record_add_param(rec, "memory", memory, memory_names[memory]);
            cml_record_add_param(rec, "size", (int64_t)size, NULL);
            if (kind == CML_MEM_MANAGED) {
                size_t free_b = 0;
                if ((st = cml_gpu_memory_info(t->g, &free_b, NULL)) != CML_OK)
                    return rec_fail(t, rec, st, "cudaMemGetInfo");
                uint64_t cap = free_b / 8 < ((uint64_t)1 << 30) ? free_b / 8 : (uint64_t)1 << 30;
                if (!f->managed_memory) {
                    rec_waive(rec, "no managed memory on this device (cudaDevAttrManagedMemory "
                                   "is 0)");
                    continue;
                }
                if (size > cap) {
                    cml_record_note(rec, "%.1f MiB of managed memory exceeds the cap of %.1f MiB "
                                    "(1/8 of the free device memory, at most 1 GiB)",
                                    (double)size / 1048576.0, (double)cap / 1048576.0);
                    rec->state = CML_REC_WAIVED;
                    continue;
                }
            }
            if (kind == CML_MEM_MAPPED && !f->can_map_host_memory) {
                rec_waive(rec, "this device cannot map host memory (cudaDevAttrCanMapHostMemory "
                               "is 0)");
                continue;
            }
            /* Pinning 64 MiB costs ~35 ms and 256 MiB ~140 ms on an H100 host:
             * few rounds for large sizes. */
            unsigned reps = size <= ((uint64_t)1 << 20) ? 10 : 3;
            if (t->plan->quick)
                reps = (reps + 1) / 2;
            if (t->plan->reps)
                reps = t->plan->reps;
            /* One more round first, discarded: the first call of a kind
             * pays for the driver's own set-up. */
            double a_ms[1 + 1024], f_ms[1 + 1024];
            if (reps > 1024)
                reps = 1024;
            st = cml_mem_alloc_cost(t->g, kind, (size_t)size, reps + 1, a_ms, f_ms);
            if (st == CML_ENOMEM) {
                char why[320];
                snprintf(why, sizeof why, "cannot allocate: %s", cml_gpu_error(t->g));
                rec_waive(rec, why);
                st = CML_OK;
                continue;
            }
            if (st != CML_OK)
                return rec_fail(t, rec, st, "allocation cost");
            cml_timing ta, tf;
            if ((st = timing_of(a_ms + 1, 1, reps, &ta)) || (st = timing_of(f_ms + 1, 1, reps, &tf)))
                return st;
            rec = &out->items[index];
            rec->measured = 1;
            rec->timing = ta;
            rec->bandwidth_gbs = NAN; /* no bytes move */
            rec->peak_fraction = -1.0;
            cml_record_add_extra(rec, "alloc_us", ta.median_ms * 1e3, "us");
            cml_record_add_extra(rec, "free_us", tf.median_ms * 1e3, "us");
            if (first == (size_t)-1)
                first = index;
            last = index;
        }
        if (first != (size_t)-1) {
            const cml_record *a = &out->items[first];
            cml_record *b = &out->items[last];
            char s0[32], s1[32];
            cml_fmt_bytes(s0, sizeof s0, (double)cml_record_find_param(a, "size")->value);
            cml_fmt_bytes(s1, sizeof s1, (double)cml_record_find_param(b, "size")->value);
            double a_free = 0, b_free = 0;
            for (unsigned e = 0; e < a->nextra; e++)
                if (!strcmp(a->extra[e].name, "free_us"))
                    a_free = a->extra[e].value;
            for (unsigned e = 0; e < b->nextra; e++)
                if (!strcmp(b->extra[e].name, "free_us"))
                    b_free = b->extra[e].value;
            char ta0[24], ta1[24], tf0[24], tf1[24];
            fmt_us(ta0, sizeof ta0, a->timing.median_ms * 1e3);
            fmt_us(ta1, sizeof ta1, b->timing.median_ms * 1e3);
            fmt_us(tf0, sizeof tf0, a_free);
            fmt_us(tf1, sizeof tf1, b_free);
            cml_record_finding(b,
                               "%s: allocating %s takes %s, %s %s; freeing them %s and %s "
                               "(median, monotonic clock): %s.",
                               cml_mem_kind_api(kind), s0, ta0, s1, ta1, tf0, tf1,
                               alloc_why(memory));
        }
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* The sweep (model and GPU run)                                            */
/* ------------------------------------------------------------------------ */

static cml_status zerocopy_sweep(tctx *t, const cml_plan *plan, const cml_param_values *pv,
                                 cml_results *out)
{
    const cml_param_list *mems = cml_param_get(pv, "memory");
    const cml_param_list *accs = cml_param_get(pv, "access");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const link_choice lk = predicted_link(pv);
    const uint64_t elements = zc_elements(plan, pv);
    zc_bufs z;
    memset(&z, 0, sizeof z);
    z.elements = elements;
    cml_status st = CML_OK;
    for (size_t ai = 0; ai < accs->count; ai++) {
        uint64_t r = zc_reads(pv, elements, accs->v[ai]);
        z.most = r > z.most ? r : z.most;
    }
    for (size_t bi = 0; bi < blocks->count && !st; bi++)
        for (size_t ai = 0; ai < accs->count && !st; ai++) {
            const uint64_t n = zc_reads(pv, elements, accs->v[ai]);
            double device_gbs = 0;
            for (size_t mi = 0; mi < mems->count && !st; mi++) {
                const int64_t memory = mems->v[mi];
                if (memory != MEM_DEVICE && memory != MEM_MAPPED && memory != MEM_MAPPED_UVA)
                    continue;
                size_t index;
                st = zerocopy_variant(out, memory, accs->v[ai], lk, n, blocks->v[bi], &index);
                if (st || !t)
                    continue;
                st = zc_measure(t, &z, out, index, device_gbs);
                if (st == CML_EVERIFY)
                    st = CML_OK; /* a failed record; go on */
                const cml_record *r = &out->items[index];
                if (!st && memory == MEM_DEVICE && r->state == CML_REC_OK && r->measured)
                    device_gbs = r->bandwidth_gbs;
            }
        }
    if (t) {
        cml_gpu_free(t->g, &z.in_dev);
        cml_gpu_free(t->g, &z.out);
        cml_mem_free(t->g, &z.in_map);
    }
    return st;
}

static cml_status managed_sweep(tctx *t, const cml_param_values *pv, cml_results *out)
{
    const cml_param_list *ums = cml_param_get(pv, "um");
    const int64_t block_choice = cml_param_first(pv, "block");
    const link_choice lk = predicted_link(pv);
    cml_status st = CML_OK;
    for (size_t ui = 0; ui < ums->count && !st; ui++) {
        const uint64_t um = (uint64_t)ums->v[ui] / 4 * 4;
        size_t idx[STEP_COUNT];
        for (int s = 0; s < STEP_COUNT; s++)
            idx[s] = (size_t)-1;
        for (int s = 0; s < STEP_COUNT && !st; s++) {
            if (!t && !step_is_kernel(s))
                continue; /* no kernel, no model: measured only */
            st = managed_variant(out, um, s, lk, block_choice, &idx[s]);
        }
        if (!st && t)
            st = managed_measure(t, um, block_sizes[block_choice], out, idx);
        if (st == CML_EVERIFY)
            st = CML_OK;
    }
    return st;
}

static cml_status transfers_sweep(const cml_plan *plan, const cml_param_values *pv,
                                  cml_results *out)
{
    const cml_param_list *modes = cml_param_get(pv, "mode");
    const cml_param_list *links = cml_param_get(pv, "link");
    const cml_param_list *lanes = cml_param_get(pv, "lanes");
    int64_t sizes[CML_MAX_VALUES];
    const size_t nsizes = sorted_unique(cml_param_get(pv, "size"), sizes);
    const size_t before = out->count;

    tctx ctx, *t = NULL;
    if (plan->gpu) {
        memset(&ctx, 0, sizeof ctx);
        ctx.plan = plan;
        ctx.g = plan->gpu;
        ctx.lk = predicted_link(pv);
        if (cml_gpu_pcie_link(ctx.g, &ctx.sys_gts, &ctx.sys_lanes) != CML_OK) {
            ctx.sys_gts = 0;
            ctx.sys_lanes = 0;
        }
        cml_status st = cml_xfer_open(ctx.g, &ctx.x);
        if (st != CML_OK)
            return st;
        t = &ctx;
    }

    cml_status st = CML_OK;
    int measured_only = 0;
    for (size_t mi = 0; mi < modes->count && !st; mi++) {
        switch (modes->v[mi]) {
        case MODE_LINK:
            for (size_t li = 0; li < links->count && !st; li++)
                for (size_t ni = 0; ni < lanes->count && !st; ni++) {
                    for (size_t si = 0; si < nsizes && !st; si++) {
                        st = link_variant(out, links->v[li], lanes->v[ni], (uint64_t)sizes[si]);
                        /* Beside measurements one sentence per link is enough:
                         * the largest size's (the others scale with size). */
                        if (!st && t && si + 1 < nsizes)
                            out->items[out->count - 1].finding[0] = '\0';
                    }
                }
            break;
        case MODE_COPY:
            if (t)
                st = copy_sweep(t, pv, out);
            else
                measured_only = 1;
            break;
        case MODE_ZEROCOPY: st = zerocopy_sweep(t, plan, pv, out); break;
        case MODE_MANAGED: st = managed_sweep(t, pv, out); break;
        default:
            if (t)
                st = alloc_sweep(t, pv, out);
            else
                measured_only = 1;
            break;
        }
    }
    if (!st && measured_only && out->count == before) {
        cml_record *rec;
        CML_EXP_ADD(rec, out, "transfers", "mode=copy,alloc");
        cml_record_add_param(rec, "mode", MODE_COPY, "copy");
        rec_waive(rec, "copies and allocation costs are measurements only (no GPU here); "
                       "mode=link gives the link arithmetic");
        cml_record_finding(rec, "Nothing to predict without a GPU beyond the link arithmetic: "
                                "run with mode=link, or on a GPU.");
    }
    if (t)
        cml_xfer_close(t->x);
    return st;
}

const cml_experiment cml_exp_transfers = {
    "transfers", 13, "Host-device transfers",
    "cudaMemcpy from pageable and pinned memory over sizes, zero-copy kernels on mapped host "
    "memory, managed memory with and without prefetch, allocation costs; the PCIe arithmetic "
    "beside them",
    transfers_params, sizeof transfers_params / sizeof transfers_params[0],
    transfers_sweep, transfers_sweep,
    "mode=link,copy,zero-copy,managed link=gen4,gen5 size=4K,1M,64M access=coalesced,stride32 "
    "um=16M",
};
