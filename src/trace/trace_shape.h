/*
 * What if the launch had another block shape (docs/trace.md, "What if"):
 * the same threads per block grouped differently into warps, as the model
 * predicts it. The block shape is one choice per kernel, so the what-if is
 * made per launch: every global and shared load and store of the launch is
 * fitted, and a shape is judged by the sum over the fitted ones (a shape
 * that fixes a load and breaks the store is no win).
 *
 * The fit. Lane l of a record (block b, warp w) is thread t = 32 w + l of
 * its block: tx = t % bx, ty = (t / bx) % by, tz = t / (bx by). An
 * instruction fits when, in every recorded block, every active lane of
 * every record is at
 *     addr = B_block + a tx + b ty + c tz
 * in integers (signed bytes), with the same (a, b, c) in every block. The
 * coefficients are read from lanes that differ in one index (or in two
 * once the other's coefficient is known), block by block; then every lane
 * is checked against them (a block whose warps cannot pin a coefficient
 * still checks against the others'). An instruction a thread issues more
 * than once at different addresses (a loop) does not fit: its addresses
 * are not a function of the thread index.
 *
 * The assumption: each index is blockIdx * blockDim + threadIdx in each
 * dimension, so that under another shape the same per-thread coefficients
 * hold. The blocks keep their recorded bases B (so the alignment is the
 * real one; blocks whose bases differ mod 128, the period of sectors,
 * lines and banks, are each modelled, weighted by their number).
 *
 * The shapes. The same threads per block: (bx', by', bz) with bx' a power
 * of two dividing bx * by (1 to 1024) and by' = bx * by / bx', the
 * launch's own left out. Each needs a and b read from the addresses (and
 * c when bz > 1): a one-dimensional block cannot say what threadIdx.y
 * would add, so it gets none. For each shape, each fitted instruction's
 * warps (32 consecutive thread ids of a block, lane addresses as above)
 * go through the model's unchanged rules (cml_model_access, the
 * instruction's space, direction and width), every thread once; the
 * launch's own shape the same way, so the two are on the same threads.
 * The best shape wastes the fewest bytes summed over the fitted
 * instructions (cml_tf_waste: sectors beyond the bytes asked for, bank
 * conflicts), ties to the widest bx'; it is kept only when strictly
 * better than the launch's own.
 */
#ifndef CML_TRACE_SHAPE_H
#define CML_TRACE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace_model.h"

typedef enum cml_ws_status {
    CML_WS_FIT = 0,       /* affine in the thread index, one (a, b, c) for every block */
    CML_WS_SKIPPED,       /* not a global or shared load or store                     */
    CML_WS_NOT_AFFINE,    /* a lane off its block's fit (a gather, a loop)             */
    CML_WS_BLOCKS_DIFFER, /* two blocks' lanes give different coefficients            */
    CML_WS_UNPINNED,      /* a coefficient the shapes need could not be read (a
                             one-dimensional block, or warps sampled too thinly)       */
    CML_WS_REFUSED        /* the model refused a warp of the launch's own shape        */
} cml_ws_status;

/* Recorded blocks of an instruction whose bases agree modulo 128 (the
 * period of sectors, lines and banks): one base of theirs, and how many. */
typedef struct cml_ws_base {
    uint64_t base, count;
} cml_ws_base;

/* One instruction of the launch (a site of its model). */
typedef struct cml_ws_site {
    const cml_tf_site *site;
    cml_ws_status status;
    int64_t coef[3];      /* a, b, c: bytes per step of threadIdx.x, .y, .z      */
    unsigned pinned;      /* bit d: coef[d] was read from the addresses          */
    uint64_t blocks;      /* recorded blocks with the instruction                */
    cml_ws_base *bases;   /* fitted: their bases, by residue modulo 128          */
    size_t nbases;
    cml_traffic before;   /* fitted: every thread of those blocks once, in the
                             launch's shape                                       */
    cml_traffic after;    /* and in the best shape (zero when there is none)      */
    uint64_t waste_before, waste_after; /* cml_tf_waste of each                 */
} cml_ws_site;

typedef struct cml_ws_launch {
    unsigned block[3];    /* the launch's shape                                   */
    unsigned best[3];     /* the best shape; all 0 when none is strictly better   */
    cml_ws_site *site;    /* site[i]: the model's sites[i]                        */
    size_t nsites;
    size_t fitted;        /* sites with status CML_WS_FIT                         */
    size_t shapes;        /* shapes the model took on every fitted site           */
    uint64_t waste_before, waste_after; /* summed over the fitted sites         */
} cml_ws_launch;

/*
 * The block-shape what-if of launch k, whose model is m, into *out (free
 * it with cml_ws_launch_free). CML_OK or CML_ENOMEM (*out then empty).
 */
cml_status cml_ws_launch_fit(const cml_tf_kernel *k, const cml_tf_model *m, cml_ws_launch *out);
void cml_ws_launch_free(cml_ws_launch *l);

/*
 * The model's figures of every thread of fitted site ws's recorded blocks
 * once, grouped into warps by `shape` (the same threads as the launch's),
 * into *out: 0, or -1 when the model refuses a warp (or ws is not fitted,
 * or shape is not the launch's threads in a shape the coefficients cover).
 */
int cml_ws_shape_traffic(const cml_ws_launch *l, const cml_ws_site *ws, const unsigned shape[3],
                         cml_traffic *out);

/* Does l predict a better shape? */
int cml_ws_has_best(const cml_ws_launch *l);

/* "fits", "not a global or shared load or store", ... */
const char *cml_ws_status_str(cml_ws_status st);

#endif
