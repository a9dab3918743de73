/*
 * cumemlab memory-traffic model: public API.
 *
 * Pure C11, no CUDA. Given ONE warp-level memory instruction (32 lane
 * addresses, access width, active mask, memory space, load/store, cache
 * operator) the model predicts what the memory system does, under either the
 * modern rules (Volta..Hopper: 32-byte sectors in 128-byte lines, one request
 * per instruction) or the Fermi/Kepler rules that the classic CUDA textbooks
 * teach. See docs/model.md for every rule and the evidence behind it.
 *
 * On top of the per-instruction rules, cml_trace_kernel() runs a C mirror of
 * a kernel thread by thread, assembles the warp instructions exactly as the
 * GPU would issue them (block by block, warp by warp, with inactive lanes) and
 * sums the traffic per memory class, so whole-kernel totals can be compared
 * with hardware counters.
 *
 * Every function returns a cml_status (status.h); none exits or prints.
 */
#ifndef CUMEMLAB_MODEL_H
#define CUMEMLAB_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CML_WARP_SIZE 32u
#define CML_SECTOR_BYTES 32u
#define CML_LINE_BYTES 128u
#define CML_SHARED_BANKS 32u
#define CML_BANK_BYTES 4u

/* Which generation's rules to apply. */
typedef enum cml_rules {
    CML_RULES_MODERN = 0, /* sm_70 .. sm_90: sectors of 32 B, lines of 128 B */
    CML_RULES_FERMI,      /* sm_20 .. sm_35 as the textbooks teach them      */
    CML_RULES_COUNT
} cml_rules;

typedef enum cml_space {
    CML_SPACE_GLOBAL = 0,
    CML_SPACE_LOCAL,     /* addr[] are per-lane byte offsets in the thread's local frame */
    CML_SPACE_SHARED,    /* addr[] are byte offsets in the block's shared memory */
    CML_SPACE_CONSTANT,  /* addr[] are byte offsets in the constant bank */
    CML_SPACE_COUNT
} cml_space;

typedef enum cml_op { CML_OP_LOAD = 0, CML_OP_STORE, CML_OP_COUNT } cml_op;

/* PTX cache operators that change what the model predicts. */
typedef enum cml_cache {
    CML_CACHE_CA = 0, /* default: cache in L1 and L2 (loads), write-back (stores) */
    CML_CACHE_CG,     /* L2 only (ld.global.cg, -dlcm=cg, __ldcg, __stcg)         */
    CML_CACHE_NC,     /* read-only / non-coherent path (__ldg, const __restrict__) */
    CML_CACHE_CS,     /* streaming, evict-first (__ldcs, __stcs)                   */
    CML_CACHE_BULK,   /* a global load by the Tensor Memory Accelerator (sm_90
                         cp.async.bulk, .bulk.tensor): no LSU request, so no class
                         counts it (cml_kernel_traffic.bulk does); it reads L2 as a
                         .cg load does (docs/model.md §16.9)                        */
    CML_CACHE_COUNT
} cml_cache;

/* One warp-level memory instruction. */
typedef struct cml_access {
    cml_space space;
    cml_op op;
    cml_cache cache;
    unsigned width;                /* bytes per lane: 1, 2, 4, 8 or 16 */
    uint32_t active;               /* bit l set: lane l takes part      */
    uint64_t addr[CML_WARP_SIZE];  /* byte address (or offset) per lane */
} cml_access;

/*
 * Traffic of one or many instructions (the model adds into it).
 * Fields that do not apply to a space stay 0.
 */
typedef struct cml_traffic {
    uint64_t instructions;    /* warp instructions with >= 1 active lane           */
    uint64_t requests;        /* modern: 1 per instruction; fermi: 1, 2 or 4 (w=8/16
                                 split into half/quarter warps)                      */
    uint64_t sectors;         /* distinct 32 B sectors per instruction, summed      */
    uint64_t lines;           /* distinct 128 B lines per instruction, summed       */
    uint64_t transactions;    /* memory transactions: modern = sectors; fermi =
                                 128 B lines (cached loads), 32 B segments (L2-only
                                 and read-only loads), 1/2/4-segment stores          */
    uint64_t transaction_bytes; /* bytes those transactions carry                 */
    uint64_t efficiency_bytes;  /* the denominator of the profiler's efficiency
                                 metric (gld/gst_efficiency, ncu .pct)               */
    uint64_t requested_bytes; /* unique bytes the active lanes asked for          */
    uint64_t lane_bytes;      /* width * active lanes (counts duplicates)          */
    uint64_t wavefronts;      /* shared: passes through the 32 banks               */
    uint64_t ideal_wavefronts;/* shared: wavefronts with no conflict               */
    uint64_t bank_conflicts;  /* shared: wavefronts - ideal_wavefronts             */
    uint64_t serialized;      /* constant: accesses after serialization, one per
                                 distinct address                                    */
} cml_traffic;

/*
 * Analyse one instruction and ADD its traffic to *acc.
 * Returns CML_EINVAL for a bad width/space/op/cache, CML_EMISALIGNED if an
 * active lane's address is not a multiple of the width (real hardware faults).
 * An instruction with no active lane adds nothing.
 */
cml_status cml_model_access(cml_rules rules, const cml_access *a, cml_traffic *acc);

/* requested_bytes / efficiency_bytes, in [0, 1]; 0 when nothing moved. */
double cml_traffic_efficiency(const cml_traffic *t);

/* sectors / requests (0 when there was no request). */
double cml_traffic_sectors_per_request(const cml_traffic *t);

/* acc += t, field by field. */
void cml_traffic_add(cml_traffic *acc, const cml_traffic *t);

/* acc += k * t, field by field (k instructions alike). */
void cml_traffic_add_scaled(cml_traffic *acc, const cml_traffic *t, uint64_t k);

/* ---------------------------------------------------------------------- */
/* Whole kernels                                                          */
/* ---------------------------------------------------------------------- */

/* The traffic classes the hardware counts separately. */
typedef enum cml_class {
    CML_CLASS_GLOBAL_LD = 0,
    CML_CLASS_GLOBAL_ST,
    CML_CLASS_LOCAL_LD,
    CML_CLASS_LOCAL_ST,
    CML_CLASS_SHARED_LD,
    CML_CLASS_SHARED_ST,
    CML_CLASS_CONST_LD,
    CML_CLASS_COUNT
} cml_class;

/* "global_ld", "shared_st", ... */
const char *cml_class_name(cml_class c);
/* The class of (space, op); CML_CLASS_COUNT for a constant store or values
 * out of range. */
cml_class cml_class_of(cml_space space, cml_op op);

typedef struct cml_kernel_traffic {
    cml_traffic cls[CML_CLASS_COUNT];
    /* Global loads of cache CML_CACHE_BULK: the copy engine's reads, which
     * no LSU counter sees but L2 serves (the cache levels count them). */
    cml_traffic bulk;
} cml_kernel_traffic;

/*
 * The most shared-memory wavefronts of class `shared` (CML_CLASS_SHARED_LD
 * or _ST) that blocks sharing an SM can add to the pattern's own
 * (cls[shared].wavefronts), which the profiler reports as bank conflicts
 * (docs/model.md §5.2, docs/model-evidence.md §4.3). A wavefront is
 * counted again when another block's access of another kind takes the
 * SM's L1TEX data array in its cycle: at most once for each such access,
 * so at most the kernel's other data-array operations: the other shared
 * class's wavefronts, two for each global or local load sector (its fill
 * and its read), one for each store sector and each copy-engine sector.
 * 0 when at most one block is resident on an SM (`resident_blocks`: a
 * block's own accesses never cost its wavefronts any, measured), or when
 * `shared` is not a shared-memory class.
 */
uint64_t cml_shared_contention_bound(const cml_kernel_traffic *t, cml_class shared,
                                     unsigned resident_blocks);

typedef struct cml_dim3 { uint32_t x, y, z; } cml_dim3;

/* What a thread of the mirrored kernel knows about itself. */
typedef struct cml_thread {
    cml_dim3 tid;    /* threadIdx */
    cml_dim3 bid;    /* blockIdx  */
    cml_dim3 bdim;   /* blockDim  */
    cml_dim3 gdim;   /* gridDim   */
    uint32_t lane;   /* lane in its warp */
} cml_thread;

typedef struct cml_emitter cml_emitter;

/*
 * Called by a kernel mirror for each memory instruction a thread executes.
 * `site` names the instruction in the kernel's code (0..CML_MAX_SITES-1): the
 * k-th execution of a site by one lane is matched with the k-th execution of
 * the same site by the other lanes of its warp, which is how SIMT hardware
 * issues it (lanes that skip it are inactive in that instruction).
 * For CML_SPACE_LOCAL, addr is the byte offset in the thread's local frame.
 */
#define CML_MAX_SITES 64u
void cml_emit(cml_emitter *e, unsigned site, cml_space space, cml_op op,
              cml_cache cache, unsigned width, uint64_t addr);

/* A C mirror of a kernel: emits every memory access one thread makes. */
typedef void (*cml_thread_fn)(const cml_thread *t, const void *args, cml_emitter *e);

/*
 * Run `fn` for every thread of grid x block, assemble warps (threads are
 * numbered x fastest, then y, then z; 32 per warp; the last warp of a block
 * may be partial), analyse each warp instruction under `rules`, and ADD the
 * totals to *out. `fn` is called from one thread, block by block, in order.
 * Fails with the first error of cml_model_access, or CML_EINVAL if a thread
 * emits more than CML_MAX_EMITS accesses or a bad site, or for a launch CUDA
 * would refuse (a zero dimension, more than 1024 threads per block, block z
 * above 64, grid y or z above 65535); on any error *out is left unchanged.
 */
#define CML_MAX_EMITS 256u
cml_status cml_trace_kernel(cml_rules rules, cml_dim3 grid, cml_dim3 block,
                            cml_thread_fn fn, const void *args,
                            cml_kernel_traffic *out);

/*
 * Chosen warps of grid x block: warps[j] is a warp's linear index in the
 * grid (block index, x fastest, times the warps per block, plus the warp's
 * index in its block); its traffic under `rules` is ADDED to *out
 * weights[j] times (weights NULL: once each; a weight of 0 skips the warp).
 * Each warp's threads see their real block index and grid, so the sum over
 * every warp of the grid, once each, equals cml_trace_kernel's; a warp
 * counted k times adds what k warps with its addresses (shifted by whole
 * lines, say) would. CML_EINVAL for a warp outside the grid and the errors
 * of cml_trace_kernel; *out is only changed on success.
 */
cml_status cml_trace_warps(cml_rules rules, cml_dim3 grid, cml_dim3 block,
                           const uint64_t *warps, const uint64_t *weights, size_t count,
                           cml_thread_fn fn, const void *args, cml_kernel_traffic *out);

/*
 * Base address the mirrors use for their k-th global array (k = 0, 1, ...).
 * Aligned like cudaMalloc's results (far beyond 128 B), and far apart.
 */
uint64_t cml_array_base(unsigned k);

#ifdef __cplusplus
}
#endif
#endif
