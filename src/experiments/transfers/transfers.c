/*
 * Experiment 13: host <-> device transfers (the textbook's memTransfer,
 * pinMemTransfer, sumArrayZerocpy, sumMatrixGPUManaged / Manual and
 * Unified_Memory). One row, five modes (`mode`), each in a module of its
 * own (transfers_internal.h lists them):
 *
 *   link       arithmetic of the PCIe link (docs/model.md section 15.3): what a
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
 * managed kernels are traced by their mirrors.
 *
 * How the modes sit on the engine's cross product (src/lab/sweep.c): every
 * option applies only to the modes that use it, and the options are
 * declared so that each mode's records come in the order they always have
 * (size fastest for link and copy; memory, access, block for zero-copy).
 * Two things are not a plain cross product, and this file does them:
 *   - The predictions of copy, zero-copy and managed quote ONE link: the
 *     last link and lanes listed. The engine hands points, not lists, so
 *     link and lanes apply to those modes, declared outermost: a mode's
 *     records are built at the first (link, lanes) and every later one
 *     re-quotes them (their link figures, sentences and, for zero-copy, the
 *     link and lanes parameters) instead of adding records.
 *   - Records carry the parameters they always have (a managed record its
 *     step, a copy its api, an allocation its size): summarize, called
 *     after every sweep of `size` (so after every point of the modes it
 *     does not apply to), writes them over the engine's.
 *
 * Measurement (GPU run): copies are timed one by one between CUDA events
 * on the stream they run on, after warm-up copies; allocation costs with
 * the monotonic clock; every copy's data is random (cml_random_f32) and
 * compared with memcmp on the host after the timed copies (whole buffers,
 * also at 1 GiB; src/gpu/host_fill.h); kernel outputs are poisoned before
 * and verified after. All CUDA calls go through the harness
 * (src/gpu/host_memory.h, gpu.h). Host and device memory a mode keeps
 * across its points lives in the run's state and is freed when the next
 * mode starts or the run ends.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/stats.h"
#include "experiments/transfers/transfers_internal.h"

const char *const tr_mode_names[] = {"link", "copy", "zero-copy", "managed", "alloc", NULL};
const char *const tr_link_names[] = {"gen3", "gen4", "gen5", NULL};
const char *const tr_lanes_names[] = {"1", "2", "4", "8", "16", NULL};
const unsigned tr_lanes_values[] = {1, 2, 4, 8, 16};
const char *const tr_memory_names[] = {"pageable", "pinned", "hostalloc", "device",
                                       "mapped", "mapped-uva", "managed", NULL};
const cml_mem_kind tr_memory_kind[] = {CML_MEM_PAGEABLE, CML_MEM_PINNED, CML_MEM_HOSTALLOC,
                                       CML_MEM_DEVICE,   CML_MEM_MAPPED, CML_MEM_MAPPED,
                                       CML_MEM_MANAGED};
const char *const tr_dir_names[] = {"h2d", "d2h", "both", NULL};
const char *const tr_access_names[] = {"coalesced", "misaligned", "stride8", "stride32",
                                       "stride128", NULL};
const unsigned tr_access_stride[] = {1, 1, 2, 8, 32};
const unsigned tr_access_offset[] = {0, 11, 0, 0, 0}; /* 44 B = 11 floats */
const char *const tr_block_names[] = {"32", "64", "128", "256", "512", "1024", NULL};
const unsigned tr_block_sizes[] = {32, 64, 128, 256, 512, 1024};
const char *const tr_step_names[] = {"fault", "warm", "prefetch", "prefetched", "readback",
                                     "manual", NULL};

/* Which modes an option applies to: see the file comment for the order. */
#define LINKED_MODES "mode=link,copy,zero-copy,managed"

static const cml_param_def transfers_params[] = {
    {"size", "link, copy: bytes per copy (the sweep)", 4096, (int64_t)1 << 32,
     "4K,64K,1M,16M,256M,1G", NULL, 0, CML_FIELD(tr_settings, size), "mode=link,copy"},
    {"direction", "copy: h2d, d2h, or both at once on two streams (pinned memory only)", 0, 0,
     "all", tr_dir_names, 0, CML_FIELD(tr_settings, direction), "mode=copy"},
    {"alloc", "alloc: bytes per allocation", 4096, (int64_t)1 << 30, "4K,1M,64M", NULL, 0,
     CML_FIELD(tr_settings, alloc), "mode=alloc"},
    {"memory",
     "copy: pageable, pinned (cudaMallocHost), hostalloc (cudaHostAlloc); zero-copy: device, "
     "mapped (cudaHostGetDevicePointer), mapped-uva (the host pointer); alloc: device, pinned, "
     "hostalloc, mapped, managed",
     0, 0, "all", tr_memory_names, 0, CML_FIELD(tr_settings, memory),
     "mode=copy,zero-copy,alloc"},
    {"access",
     "zero-copy: coalesced, misaligned (44 B off a line), stride8 / stride32 / stride128 (one "
     "float per 8, 32, 128 B)",
     0, 0, "all", tr_access_names, 0, CML_FIELD(tr_settings, access), "mode=zero-copy"},
    {"block", "zero-copy and managed: threads per block (managed: the first listed)", 0, 0,
     "256", tr_block_names, 0, CML_FIELD(tr_settings, block), "mode=zero-copy,managed"},
    {"n", "zero-copy: floats read (0: the array read spans 4x the L2 size, whatever the access)",
     0, (int64_t)1 << 28, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(tr_settings, n),
     "mode=zero-copy"},
    {"um",
     "managed: bytes of each of the two managed arrays (both together at most 1/8 of the free "
     "device memory and 1 GiB)",
     4096, (int64_t)1 << 29, "64M", NULL, 0, CML_FIELD(tr_settings, um), "mode=managed"},
    {"lanes", "PCIe lanes (copy, zero-copy, managed: the last listed)", 0, 0, "16",
     tr_lanes_names, 0, CML_FIELD(tr_settings, lanes), LINKED_MODES},
    {"link", "PCIe generation of the arithmetic (predictions quote the last one listed)", 0, 0,
     "gen4,gen5", tr_link_names, 0, CML_FIELD(tr_settings, link), LINKED_MODES},
    {"mode",
     "link (PCIe arithmetic), copy (cudaMemcpy sweep), zero-copy (a kernel reading mapped host "
     "memory), managed (cudaMallocManaged, prefetch), alloc (allocation costs)",
     0, 0, "link,copy,zero-copy,managed,alloc", tr_mode_names, 0, CML_FIELD(tr_settings, mode),
     NULL},
};

/* ------------------------------------------------------------------------ */
/* Shared pieces                                                            */
/* ------------------------------------------------------------------------ */

tr_link tr_link_of(int64_t link, int64_t lanes)
{
    tr_link l;
    l.link = link;
    l.lanes = lanes;
    l.raw_gbs = cml_pcie_raw_gbs(cml_pcie_gen_gts(3 + (unsigned)link), tr_lanes_values[lanes]);
    return l;
}

cml_status tr_xfer(cml_sweep *ctx, cml_record *rec, cml_xfer **x)
{
    tr_state *st = tr_state_of(ctx);
    if (!st->x) {
        cml_status e = cml_xfer_open(ctx->plan->gpu, &st->x);
        if (e != CML_OK) {
            st->x = NULL;
            return cml_exp_fail(ctx->plan, rec, e);
        }
    }
    if (!st->sys_read) {
        st->sys_read = 1;
        if (cml_gpu_pcie_link(ctx->plan->gpu, &st->sys_gts, &st->sys_lanes) != CML_OK) {
            st->sys_gts = 0;
            st->sys_lanes = 0;
        }
    }
    *x = st->x;
    return CML_OK;
}

void tr_measured(cml_record *rec, const cml_timing *tm)
{
    rec->measured = 1;
    rec->timing = *tm;
    double bytes = (double)(rec->bytes_read + rec->bytes_written);
    rec->bandwidth_gbs = tm->median_ms > 0 ? cml_gbs(bytes, tm->median_ms) : NAN;
    rec->peak_fraction = -1.0; /* the device's DRAM peak says nothing about the bus */
}

void tr_verified(cml_record *rec, int ok, size_t first_bad, const char *what)
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

void tr_set_extra(cml_record *rec, const char *name, double value, const char *unit)
{
    for (unsigned e = 0; e < rec->nextra; e++)
        if (!strcmp(rec->extra[e].name, name)) {
            rec->extra[e].value = value;
            return;
        }
    cml_record_add_extra(rec, name, value, unit);
}

void tr_params(cml_record *rec, const tr_settings *s, const tr_link *quoted, int64_t step,
               int64_t api)
{
    rec->nparams = 0;
    cml_record_add_param(rec, "mode", s->mode, tr_mode_names[s->mode]);
    switch (s->mode) {
    case MODE_LINK:
        cml_record_add_param(rec, "link", s->link, tr_link_names[s->link]);
        cml_record_add_param(rec, "lanes", s->lanes, tr_lanes_names[s->lanes]);
        cml_record_add_param(rec, "size", s->size, NULL);
        break;
    case MODE_COPY:
        cml_record_add_param(rec, "memory", s->memory, tr_memory_names[s->memory]);
        cml_record_add_param(rec, "direction", s->direction, tr_dir_names[s->direction]);
        cml_record_add_param(rec, "size", s->size, NULL);
        cml_record_add_param(rec, "api", api, api ? "cudaMemcpyAsync" : "cudaMemcpy");
        break;
    case MODE_ZEROCOPY:
        cml_record_add_param(rec, "memory", s->memory, tr_memory_names[s->memory]);
        cml_record_add_param(rec, "access", s->access, tr_access_names[s->access]);
        cml_record_add_param(rec, "link", quoted->link, tr_link_names[quoted->link]);
        cml_record_add_param(rec, "lanes", quoted->lanes, tr_lanes_names[quoted->lanes]);
        cml_record_add_param(rec, "block", s->block, tr_block_names[s->block]);
        cml_record_add_param(rec, "n", s->n, NULL);
        break;
    case MODE_MANAGED:
        cml_record_add_param(rec, "um", s->um, NULL);
        cml_record_add_param(rec, "step", step, tr_step_names[step]);
        cml_record_add_param(rec, "block", s->block, tr_block_names[s->block]);
        break;
    default:
        cml_record_add_param(rec, "memory", s->memory, tr_memory_names[s->memory]);
        cml_record_add_param(rec, "size", s->alloc, NULL);
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* The row's pieces                                                         */
/* ------------------------------------------------------------------------ */

/* The first point of a mode: what the previous mode held on the GPU goes,
 * and its records start here, built at this (link, lanes). */
static void enter_mode(cml_sweep *ctx, const tr_settings *s)
{
    tr_state *st = tr_state_of(ctx);
    tr_copy_free(ctx);
    tr_zc_free(ctx);
    st->started = 1;
    st->mode = s->mode;
    st->mode_first = ctx->point;
    st->combo_link = s->link;
    st->combo_lanes = s->lanes;
    st->later = 0;
    st->quoted = tr_link_of(s->link, s->lanes);
    st->um_block = s->block;
    st->alloc_memory = -1;
}

/* A point at a later link or lanes of a mode that quotes one: the mode's
 * records re-quote it when it differs from what they quote. */
static void requote(cml_sweep *ctx, const tr_settings *s)
{
    tr_state *st = tr_state_of(ctx);
    if (s->link == st->quoted.link && s->lanes == st->quoted.lanes)
        return;
    st->quoted = tr_link_of(s->link, s->lanes);
    switch (s->mode) {
    case MODE_COPY: tr_copy_requote(ctx, st->mode_first, ctx->point); break;
    case MODE_ZEROCOPY: tr_zc_requote(ctx, st->mode_first, ctx->point); break;
    default: tr_um_requote(ctx, st->mode_first, ctx->point); break;
    }
}

static cml_status transfers_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    tr_settings *s = vs;
    tr_state *st = tr_state_of(ctx);
    if (!st->started || s->mode != st->mode)
        enter_mode(ctx, s);
    if (s->mode == MODE_COPY || s->mode == MODE_ZEROCOPY || s->mode == MODE_MANAGED) {
        if (!st->later && (s->link != st->combo_link || s->lanes != st->combo_lanes))
            st->later = 1;
        if (st->later) {
            requote(ctx, s);
            return CML_SKIP_POINT;
        }
    }
    if (!ctx->plan->gpu && (s->mode == MODE_COPY || s->mode == MODE_ALLOC)) {
        /* Measurements only: one record says so, when the run would
         * otherwise have none. */
        if (st->model_waiver || ctx->point != ctx->first)
            return CML_SKIP_POINT;
        st->model_waiver = 1;
        st->waiver_idx = ctx->point;
        snprintf(rec->variant, sizeof rec->variant, "mode=copy,alloc");
        cml_sweep_waive(ctx, rec, "copies and allocation costs are measurements only (no GPU "
                                  "here); mode=link gives the link arithmetic");
        cml_record_finding(rec, "Nothing to predict without a GPU beyond the link arithmetic: "
                                "run with mode=link, or on a GPU.");
        return CML_OK;
    }
    switch (s->mode) {
    case MODE_LINK: return tr_link_variant(ctx, s, rec);
    case MODE_COPY: return tr_copy_variant(ctx, s, rec);
    case MODE_ZEROCOPY: return tr_zc_variant(ctx, s, rec);
    case MODE_MANAGED: return tr_um_variant(ctx, s, rec);
    default: return tr_alloc_variant(ctx, s, rec);
    }
}

static cml_status transfers_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const tr_settings *s = vs;
    switch (s->mode) {
    case MODE_COPY: return tr_copy_measure(ctx, s, rec);
    case MODE_ZEROCOPY: return tr_zc_measure(ctx, s, rec);
    case MODE_MANAGED: return tr_um_measure(ctx, s, rec);
    case MODE_ALLOC: return tr_alloc_measure(ctx, s, rec);
    default: return CML_OK; /* the link arithmetic measures nothing */
    }
}

/* After every sweep of `size`: link and copy records of one sweep, or the
 * records of one point of the other modes. The parameters first, then the
 * mode's summary. */
static void transfers_summary(cml_sweep *ctx, size_t first, size_t last)
{
    tr_state *st = tr_state_of(ctx);
    int steps[STEP_COUNT];
    const size_t nsteps = tr_um_steps(ctx, steps);
    for (size_t i = first; i <= last; i++) {
        cml_record *rec = &ctx->out->items[i];
        const tr_settings *s = tr_settings_of(ctx, i);
        if (st->model_waiver && i == st->waiver_idx) {
            rec->nparams = 0;
            cml_record_add_param(rec, "mode", MODE_COPY, "copy");
            continue;
        }
        int64_t step = s->mode == MODE_MANAGED ? steps[(i - first) % nsteps] : 0;
        tr_params(rec, s, &st->quoted, step, 0);
    }
    switch (tr_settings_of(ctx, first)->mode) {
    case MODE_LINK: tr_link_summary(ctx, first, last); break;
    case MODE_COPY: tr_copy_summary(ctx, first, last); break;
    case MODE_ALLOC: tr_alloc_summary(ctx, last); break;
    default: break;
    }
}

static void transfers_release(cml_sweep *ctx)
{
    tr_state *st = tr_state_of(ctx);
    tr_copy_free(ctx);
    tr_zc_free(ctx);
    if (st->x)
        cml_xfer_close(st->x);
    st->x = NULL;
}

static const cml_textbook_alias transfers_aliases[] = {
    {"memTransfer", "mode=copy memory=pageable direction=h2d,d2h size=16M", {NULL},
     "memTransfer"},
    {"pinMemTransfer", "mode=copy memory=pinned direction=h2d,d2h size=16M", {NULL},
     "pinMemTransfer"},
    {"Unified_Memory", "mode=managed um=64M", {NULL}, "Unified_Memory"},
};

static const char *const link_extras[] = {"raw_gbs", "pinned_typical_gbs", "pageable_high_gbs",
                                          "pageable_low_gbs", NULL};
static const char *const link_legend[] = {"link (raw)", "pinned (typical)", "pageable (high)",
                                          "pageable (low)", NULL};

static const cml_chart_spec transfers_charts[] = {
    {.shape = CML_PLOT_SWEEP,
     .title = "Measured transfer bandwidth vs transfer size",
     .xparam = "size",
     .xname = "size",
     .xlabel = "bytes per transfer",
     .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_BYTES,
     .ylabel = "bandwidth (GB/s)",
     .yfmt = CML_FMT_NUMBER,
     .only_param = "mode",
     .only_label = "copy",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0},
           {NULL, CML_METRIC_NONE, NULL, NULL, 0}},
     .what = "bandwidth",
     .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_EXTRAS,
     .title = "Predicted copy rates by PCIe link (arithmetic)",
     .ylabel = "GB/s",
     .yfmt = CML_FMT_NUMBER,
     .only_param = "mode",
     .only_label = "link",
     .extra_names = link_extras,
     .extra_legend = link_legend,
     .ignore_param = "size"},
    {.shape = CML_PLOT_SWEEP,
     .title = "Measured allocation and free cost vs size",
     .xparam = "size",
     .xname = "size",
     .xlabel = "bytes allocated",
     .xscale = CML_SCALE_LOG2,
     .xfmt = CML_FMT_BYTES,
     .ylabel = "time (us)",
     .yfmt = CML_FMT_NUMBER,
     .only_param = "mode",
     .only_label = "alloc",
     .m = {{"allocate", CML_METRIC_EXTRA, "alloc_us", "to allocate", -1},
           {"free", CML_METRIC_EXTRA, "free_us", "to free", -1}},
     .what = "the time",
     .unit = "us",
     .describe = 0},
};

const cml_experiment cml_exp_transfers = {
    .key = "transfers",
    .number = 13,
    .title = "Host-device transfers",
    .summary = "cudaMemcpy from pageable and pinned memory over sizes, zero-copy kernels on "
               "mapped host memory, managed memory with and without prefetch, allocation "
               "costs; the PCIe arithmetic beside them",
    .doc = "docs/experiments/transfers.md",
    .options = transfers_params,
    .noptions = CML_COUNT(transfers_params),
    .settings_size = sizeof(tr_settings),
    .state_size = sizeof(tr_state),
    .tour = "mode=link,copy,zero-copy,managed link=gen4,gen5 size=4K,1M,64M "
            "access=coalesced,stride32 um=16M",
    .variant = transfers_variant,
    .measure = transfers_measure,
    .summarize = transfers_summary,
    .release = transfers_release,
    .aliases = transfers_aliases,
    .naliases = CML_COUNT(transfers_aliases),
    .charts = transfers_charts,
    .ncharts = CML_COUNT(transfers_charts),
    .validate = NULL, /* transfers have no counters to compare */
};
