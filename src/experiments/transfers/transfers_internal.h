/*
 * What the modules of experiment 13 share (transfers.c and transfers_*.c):
 * the settings struct of the one `transfers` row, the choice tables, the
 * run's state and each mode's entry points. Not for other experiments.
 *
 * The modes and their modules:
 *   link       transfers_link.c      PCIe arithmetic (include/cumemlab/pcie.h)
 *   copy       transfers_copy.c      cudaMemcpy sweep and the reference
 *              transfers_copy_fit.c  half-bandwidth fit, findings
 *   zero-copy  transfers_zerocopy.c  a kernel reading mapped host memory
 *   managed    transfers_managed.c   cudaMallocManaged: first touch, prefetch, manual
 *   alloc      transfers_alloc.c     allocation costs
 */
#ifndef CML_EXP_TRANSFERS_INTERNAL_H
#define CML_EXP_TRANSFERS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "experiments/transfers/transfers.h"
#include "gpu/host_fill.h"
#include "gpu/host_memory.h"
#include "lab/common.h"

/* One point of the sweep: every option's value (choice options: the index
 * into their table below). Declared in this order, the first varying
 * fastest (src/lab/sweep.c). */
typedef struct tr_settings {
    int64_t size, direction, alloc, memory, access, block, n, um, lanes, link, mode;
} tr_settings;

enum { MODE_LINK = 0, MODE_COPY, MODE_ZEROCOPY, MODE_MANAGED, MODE_ALLOC };
enum { LINK_GEN3 = 0, LINK_GEN4, LINK_GEN5 };
enum {
    MEM_PAGEABLE = 0, MEM_PINNED, MEM_HOSTALLOC, MEM_DEVICE, MEM_MAPPED, MEM_MAPPED_UVA,
    MEM_MANAGED, MEM_COUNT
};
enum { DIR_H2D = 0, DIR_D2H, DIR_BOTH };
enum { ACC_COALESCED = 0, ACC_MISALIGNED, ACC_STRIDE8, ACC_STRIDE32, ACC_STRIDE128 };
enum { STEP_FAULT = 0, STEP_WARM, STEP_PREFETCH, STEP_PREFETCHED, STEP_READBACK, STEP_MANUAL,
       STEP_COUNT };

extern const char *const tr_mode_names[];
extern const char *const tr_link_names[];
extern const char *const tr_lanes_names[];
extern const unsigned tr_lanes_values[];
extern const char *const tr_memory_names[];
extern const cml_mem_kind tr_memory_kind[];
extern const char *const tr_dir_names[];
extern const char *const tr_access_names[];
extern const unsigned tr_access_stride[]; /* floats */
extern const unsigned tr_access_offset[]; /* floats */
extern const char *const tr_block_names[];
extern const unsigned tr_block_sizes[];
extern const char *const tr_step_names[];

/* Fixed seeds: the same contents on every run. */
#define TR_SEED_COPY 0x7A5F000000000013ull
#define TR_SEED_ZC 0x7A5F000000000014ull
#define TR_SEED_UM 0x7A5F000000000015ull

/* The link a mode's predictions quote: the last link and lanes listed. */
typedef struct tr_link {
    int64_t link, lanes;   /* choice indices */
    double raw_gbs;
} tr_link;

/* The copy sweep's buffers, kept across its points (transfers_copy.c). */
typedef struct tr_copy_state {
    unsigned char *ref;      /* reference data (random floats), pageable */
    size_t ref_bytes;
    cml_mem dev_a, dev_b;    /* device: a receives h2d and feeds d2h, b the h2d of "both" */
    size_t dev_a_valid;      /* leading bytes of dev_a that hold the reference data */
    int64_t memory;          /* the memory kind src and dst hold */
    cml_mem src, dst;        /* host: src holds the reference data, dst receives */
    size_t free_b;           /* free device memory at the start (0: not read yet) */
    size_t dev_fail, host_fail; /* the smallest size that could not be had (0: none) */
    char dev_why[320], host_why[320];
    int64_t seq_memory;      /* the directions walked in this memory kind, in order */
    int64_t seq[3];
    int nseq;
    int both_waived;         /* the pageable "both" record was written, */
    size_t both_idx;         /* at this index, */
    uint64_t both_max;       /* for sizes up to this */
    int have_ref;            /* the reference records were written: */
    size_t ref_idx[2];       /* h2d, d2h (SIZE_MAX: none) */
    int64_t ref_size;
} tr_copy_state;

/* The zero-copy sweep's buffers (transfers_zerocopy.c). */
typedef struct tr_zc_state {
    cml_dbuf in_dev, out;    /* device input (random floats) and output */
    cml_mem in_map;          /* mapped host copy of the same floats */
    void *in_map_dev;        /* its device pointer */
    size_t map_fail;         /* the smallest size mapped memory could not be had at */
    char map_why[320];
} tr_zc_state;

typedef struct tr_state {
    /* The mode whose points are being walked, and its records. */
    int started;             /* 0 before the first point */
    int64_t mode;
    size_t mode_first;       /* index in out of its first record */
    int64_t combo_link, combo_lanes; /* the link and lanes its records were built at */
    int later;               /* a later link or lanes came: points only re-quote */
    tr_link quoted;
    int model_waiver;        /* the "measurements only" record was written, */
    size_t waiver_idx;       /* at this index */
    int64_t um_block;        /* managed: the block of its first point */
    /* alloc: the current memory kind's measured records */
    int64_t alloc_memory;
    size_t alloc_first, alloc_last;
    /* GPU */
    cml_xfer *x;
    int sys_read;
    double sys_gts;          /* the link Linux reports (0: unknown) */
    int sys_lanes;
    tr_copy_state copy;
    tr_zc_state zc;
} tr_state;

static inline tr_state *tr_state_of(const cml_sweep *ctx) { return ctx->state; }

/* The host passes of gpu/host_fill.h, their time counted in the run's fill
 * and check phases (lab.c's diagnostics). */
static inline void tr_host_fill(cml_gpu *g, void *p, size_t bytes, uint64_t seed)
{
    const double t0 = cml_gpu_clock();
    cml_host_fill_random(p, bytes, seed);
    cml_gpu_phase_add(g, CML_GPU_PHASE_FILL, cml_gpu_clock() - t0);
}
static inline void tr_host_poison(cml_gpu *g, void *p, size_t bytes)
{
    const double t0 = cml_gpu_clock();
    cml_host_poison(p, bytes);
    cml_gpu_phase_add(g, CML_GPU_PHASE_FILL, cml_gpu_clock() - t0);
}
static inline int tr_host_same(cml_gpu *g, const void *a, const void *b, size_t bytes,
                               size_t *first_bad)
{
    const double t0 = cml_gpu_clock();
    int same = cml_host_same(a, b, bytes, first_bad);
    cml_gpu_phase_add(g, CML_GPU_PHASE_CHECK, cml_gpu_clock() - t0);
    return same;
}
static inline const tr_settings *tr_settings_of(const cml_sweep *ctx, size_t i)
{
    return cml_sweep_settings_of(ctx, i);
}

/* transfers.c: shared pieces */
tr_link tr_link_of(int64_t link, int64_t lanes);
/* The harness's copy/event handle of the run, opened on first use. */
cml_status tr_xfer(cml_sweep *ctx, cml_record *rec, cml_xfer **x);
/* Timing into rec: bandwidth over the bus (not the DRAM peak). */
void tr_measured(cml_record *rec, const cml_timing *tm);
/* A host-side comparison's verdict; a mismatch fails the record. */
void tr_verified(cml_record *rec, int ok, size_t first_bad, const char *what);
/* Set extra `name` (replacing its value if the record has it). */
void tr_set_extra(cml_record *rec, const char *name, double value, const char *unit);
/* The record's parameters as they have always been (mode first); `step`
 * for managed records, `api` for copies (1: the reference). */
void tr_params(cml_record *rec, const tr_settings *s, const tr_link *quoted, int64_t step,
               int64_t api);

/* transfers_link.c */
cml_status tr_link_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec);
void tr_link_summary(cml_sweep *ctx, size_t first, size_t last);

/* transfers_copy.c: the measurements */
void tr_copy_name(char *buf, size_t len, int64_t memory, int64_t dir, int64_t size, int api);
cml_status tr_copy_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec);
cml_status tr_copy_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec);
/* The reference records (cudaMemcpyAsync at `size`, each way) after record
 * `like`, measured. */
void tr_copy_reference(cml_sweep *ctx, size_t like, int64_t memory, int64_t size);
void tr_copy_free(cml_sweep *ctx);

/* transfers_copy_fit.c: the analysis of the sweeps */
void tr_copy_summary(cml_sweep *ctx, size_t first, size_t last);
void tr_copy_requote(cml_sweep *ctx, size_t first, size_t end);

/* transfers_zerocopy.c */
cml_status tr_zc_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec);
cml_status tr_zc_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec);
void tr_zc_requote(cml_sweep *ctx, size_t first, size_t end);
void tr_zc_free(cml_sweep *ctx);

/* transfers_managed.c: the steps a point's records stand for, in order */
size_t tr_um_steps(const cml_sweep *ctx, int *steps);
cml_status tr_um_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec);
cml_status tr_um_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec);
void tr_um_requote(cml_sweep *ctx, size_t first, size_t end);

/* transfers_alloc.c */
cml_status tr_alloc_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec);
cml_status tr_alloc_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec);
void tr_alloc_summary(cml_sweep *ctx, size_t index);

#endif
