/*
 * Experiment 18: your own access pattern, measured. An index expression
 * (cumemlab run --expr, or the built-in set) becomes a CUDA C kernel
 * (include/cumemlab/expr_kernel.h), compiled at run time with NVRTC for the
 * device's own architecture, loaded (gpu/module.h), timed, verified and
 * read by the counters beside the model's mirror of that same kernel.
 *
 * expr.c: the options, the built-in set, the mirror and the record.
 * expr_bounds.c: resolving a point (the bounds rule:
 * docs/experiments/expr.md) and the command line's check of a sweep.
 * expr_gpu.c: compiling, loading, launching and verifying.
 */
#ifndef CML_EXP_EXPR_H
#define CML_EXP_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/expr.h"
#include "cumemlab/expr_kernel.h"
#include "gpu/nvrtc.h"
#include "lab/experiment.h"

extern const cml_experiment cml_exp_expr;

/* The options' fields, in the row's option order. */
typedef struct cml_expr_settings {
    int64_t expr, src, path, op, space, elem, bdx, bdy, threads, n, base, residency;
} cml_expr_settings;

/* Values of the path option (names: cml_expr_path_choices): auto is ca for
 * loads, wb for stores. */
enum { CML_EXPR_PATH_AUTO = 0, CML_EXPR_PATH_CA, CML_EXPR_PATH_CG, CML_EXPR_PATH_NC,
       CML_EXPR_PATH_CS, CML_EXPR_PATH_WB };
extern const char *const cml_expr_path_choices[];

/* Values of the space option, and the model's space of each. */
enum { CML_EXPR_SP_GLOBAL = 0, CML_EXPR_SP_SHARED, CML_EXPR_SP_CONSTANT };
static inline cml_space cml_expr_space(int64_t v)
{
    return v == CML_EXPR_SP_SHARED     ? CML_SPACE_SHARED
           : v == CML_EXPR_SP_CONSTANT ? CML_SPACE_CONSTANT
                                       : CML_SPACE_GLOBAL;
}

/* The built-in set (the validate set): each pattern with its own
 * operation, space (CML_EXPR_SP_*) and block. */
typedef struct cml_expr_builtin {
    const char *name, *text;
    cml_expr_op op;
    int space;
    unsigned bdx, bdy;
} cml_expr_builtin;
size_t cml_expr_builtin_count(void);
const cml_expr_builtin *cml_expr_builtin_at(size_t k); /* NULL past the end */

/*
 * One point of the sweep, resolved: the expressions parsed, the launch, the
 * array length n every index lies in, the range reached, the device
 * buffers. Made by cml_expr_point_resolve, freed by cml_expr_point_free.
 */
typedef struct cml_expr_point {
    const char *text, *src_text;  /* the index (and copy source) as typed */
    const char *name;             /* a built-in pattern's name; NULL for the user's */
    cml_expr *index, *src;        /* parsed; src NULL: the copy reads element i */
    cml_expr_kernel kernel;       /* what the generator makes of them */
    unsigned elem;                /* bytes per element */
    uint64_t bdx, bdy, block;     /* block shape; block = bdx * bdy threads */
    uint64_t grid;                /* blocks (1-D grid) */
    uint64_t full_blocks;         /* blocks whose threads all run (i < threads) */
    uint64_t threads;             /* threads that run: i < threads */
    uint64_t n;                   /* elements of each indexed array: every index < n */
    uint64_t tile_len;            /* shared: elements of the block's tile (n rounded up
                                     to whole 128-byte lines); 0 elsewhere */
    uint64_t base;                /* byte offset of the indexed arrays (global) */
    int64_t lo, hi;               /* the index's range over every running thread */
    int64_t src_lo, src_hi;       /* copy: the source's range (i when no --src) */
    int uniform;                  /* every full block moves block 0's traffic shifted
                                     by whole 128-byte lines: the model traces one */
    uint64_t period;              /* otherwise, when > 1: every full block moves the
                                     traffic of the block `period` before it shifted
                                     by whole lines, and the model traces `period`
                                     blocks; else no period (the model walks the
                                     grid, or samples its warps when it is large) */
    int range_bound;              /* lo..hi (src_lo..src_hi) are sound bounds from
                                     interval arithmetic, not the range reached (a
                                     large grid with no period, model only) */
    uint64_t src_bytes, dst_bytes, out_bytes; /* device buffers (0: not used) */
    size_t smem;                  /* dynamic shared memory per block */
} cml_expr_point;

/*
 * Resolve settings `s` into a point (the settings are updated with what was
 * resolved: n, threads, the built-in pattern's op/space/block, the path).
 * Evaluates the index over every thread that runs. Returns CML_OK;
 * CML_SKIP_POINT when s->expr names no expression; CML_EINVAL with one line
 * in `why` when the point is refused (bad combination, an index below 0 or
 * at n or beyond, an evaluation error, more memory than `mem_limit` bytes or
 * more shared memory than `smem_limit`); *too_big set when the refusal is
 * only the size (the device cannot hold it). On any return but CML_OK the
 * point holds nothing (text and name stay set for a message).
 */
cml_status cml_expr_point_resolve(const cml_plan *plan, uint64_t mem_limit, uint64_t smem_limit,
                                  cml_expr_settings *s, cml_expr_point *p, int *too_big,
                                  char *why, size_t len);
void cml_expr_point_free(cml_expr_point *p);

/* The model: the mirror of the generated kernel over the point's launch,
 * under both rule sets, into rec->model (and rec->grid, rec->block, and
 * bytes_read/bytes_written: the bytes its global instructions ask for). */
cml_status cml_expr_point_trace(const cml_expr_point *p, cml_record *rec);

/* Evaluate an expression of the point for thread i of the launch (errors
 * cannot happen: resolving evaluated every thread). */
int64_t cml_expr_point_eval(const cml_expr_point *p, const cml_expr *e, uint64_t i);

/* The threads of a point whose --threads is 0 (the default): in global
 * memory one per float of an array sized like the streaming experiments'
 * (--where, --size: cml_plan_elements), shared and constant 2^20. model
 * --expr takes the same default, so that it models what run --expr runs. */
uint64_t cml_expr_default_threads(const cml_plan *plan, int space);

/* The limits a run refuses by: 90% of the device memory free now (the
 * model alone: 1 TiB), and the shared memory a block may opt in to (the
 * model alone: 227 KiB, an H100's). */
uint64_t cml_expr_mem_limit(const cml_plan *plan);
uint64_t cml_expr_smem_limit(const cml_plan *plan);

/*
 * Resolve every point of pv's cross product (the command line's check
 * before anything runs or is compiled). CML_EINVAL with the first refusal
 * in `why` (one line naming the expression, the range and the limit).
 */
cml_status cml_expr_check_all(const cml_plan *plan, const cml_param_values *pv, char *why,
                              size_t len);

/* ---- expr_gpu.c ----------------------------------------------------- */

/* The per-process NVRTC (its cache of compiled kernels lives as long as
 * the process). CML_OK, or the reason it is unavailable in `why`. */
cml_status cml_expr_nvrtc(cml_nvrtc **out, char *why, size_t len);

/* The measure and release pieces of the row. */
cml_status cml_expr_measure(cml_sweep *ctx, void *settings, cml_record *rec);
void cml_expr_release(cml_sweep *ctx);

/* The run's state (the row's state_size). */
struct cml_module;
typedef struct cml_expr_loaded {
    const void *cubin;            /* the NVRTC cache's image: the key */
    struct cml_module *module;
    const void *kernel;
} cml_expr_loaded;

typedef struct cml_expr_state {
    cml_expr_point point;         /* the current point, for measure */
    size_t point_index;           /* its record; (size_t)-1: none */
    int have_point;
    uint64_t mem_limit, smem_limit; /* taken once, when the run starts */
    int limits_taken;
    cml_expr_loaded *loaded;      /* modules loaded in this run */
    size_t nloaded, caploaded;
    int nvrtc_said;               /* the "NVRTC not found" diagnostic is given */
    unsigned char *host;          /* the checks' copy of a result, kept for the run: */
    size_t host_bytes;            /* a fresh one per point paid its page faults each time */
} cml_expr_state;

#endif
