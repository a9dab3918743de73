/*
 * What if (docs/trace.md): for an instruction of a trace, what a change to
 * the code would buy, as the model predicts it. Each transform re-maps the
 * lane addresses of the instruction's recorded warps and runs the model's
 * own per-instruction rules (cml_model_access, unchanged) on the warps it
 * makes; nothing here computes a figure of its own.
 *
 * Whether a transform applies is read from the addresses. A warp's lanes
 * are described as rows: lane l at base + (l / g) * D + (l % g) * size, g
 * lanes reading consecutive elements of a row, rows D bytes apart (g = 32:
 * the warp reads one contiguous run). The example warp (the site's first)
 * sets g and D; every recorded warp of the site that has the same rows is
 * transformed, any other passes unchanged (counted the same before and
 * after), so `before` is the site's own figures.
 *
 *   pad      rows of D bytes padded by k elements: lane l at
 *            base + (l / g) * (D + k * size) + (l % g) * size. Applies to
 *            rows of a 2-D pattern (g < 32, D > g * size); for global and
 *            local memory only where D is a line (128 B) or more, or the
 *            rows are groups of lanes (a single stride under a line is a
 *            structure's, below). k = 1, and the smallest k up to 32 that
 *            leaves no bank conflict (shared) or no sector beyond the
 *            fewest that could hold the bytes (global, local) when that is
 *            not 1. Rows are counted from the warp's first row, which keeps
 *            its place in the banks and its alignment.
 *   soa      a structure of arrays: lanes a fixed stride S apart (g = 1,
 *            size < S < 128) are one field of structures of S bytes; the
 *            field's own packed array puts lane l at C + l * size, C the
 *            first lane's address rounded down to a line (cudaMalloc's
 *            alignment, a warp's 32 elements starting a line).
 *   vector   wider accesses: a warp of 32 active lanes reading (writing) one
 *            contiguous run of 4- or 8-byte elements; w = 2 and 4 times the
 *            size (at most 16 bytes). The site's warp instructions that
 *            cover consecutive runs (bases B, B + 32 * size, ...) are
 *            joined w / size at a time into one instruction of 32 lanes
 *            of w bytes from B, where B is a multiple of w (the alignment
 *            a wide access needs); runs that cannot be joined pass
 *            unchanged. Same bytes, fewer requests.
 *
 *   shape    another block shape of the same threads (trace_shape.h):
 *            one choice per launch, fitted over all its global and shared
 *            loads and stores; shown under each fitted instruction when
 *            the launch's fitted instructions together waste fewer bytes
 *            in it than in the launch's own. Its `before` is not the
 *            site's recorded figures but every thread of the recorded
 *            blocks once in the launch's own shape (the same threads as
 *            `after`).
 */
#ifndef CML_TRACE_WHATIF_H
#define CML_TRACE_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace_model.h"
#include "trace/trace_shape.h"

typedef enum cml_wi_kind {
    CML_WI_PAD = 0,
    CML_WI_SOA,
    CML_WI_VECTOR,
    CML_WI_SHAPE,
    CML_WI_KINDS
} cml_wi_kind;

/* One transform of one instruction, over the site's recorded warps. */
typedef struct cml_wi {
    cml_wi_kind kind;
    unsigned k;            /* pad: elements added to a row; vector: the new
                              width in bytes; soa, shape: 0               */
    unsigned lanes;        /* pad: lanes per row, g (1: one a row)        */
    uint64_t stride;       /* pad: the row pitch D found; soa: the
                              structure's size S; vector, shape: 0 (bytes) */
    unsigned shape[3];     /* shape: the block shape predicted for         */
    unsigned from[3];      /* shape: the launch's own                      */
    uint64_t warps;        /* warp instructions of the site it changed    */
    uint64_t of;           /* warp instructions of the site modelled
                              (shape: both the warps of every thread of
                              the recorded blocks once)                   */
    cml_traffic before;    /* the site's figures as recorded               */
    cml_traffic after;     /* and as the transform would make them        */
    uint64_t waste_before, waste_after; /* cml_tf_waste of each           */
} cml_wi;

/* Pad 1 and the best pad, a structure of arrays, two vector widths, a
 * block shape. */
#define CML_WI_MAX 6u

typedef struct cml_wi_list {
    cml_wi item[CML_WI_MAX];
    size_t n;
    int examined; /* 1: cml_wi_site looked at the site (n may be 0) */
    const cml_ws_launch *launch; /* the site's launch's block-shape what-if
                                    (cml_wi_shape; NULL: not examined)   */
} cml_wi_list;

/*
 * The transforms that apply to site s of launch k (its records in k),
 * into *out (n = 0: none applies, an atomic, or a site the model refused;
 * examined 1, but on an error).
 * CML_OK or CML_ENOMEM.
 */
cml_status cml_wi_site(const cml_tf_kernel *k, const cml_tf_site *s, cml_wi_list *out);

/*
 * The block-shape transform of site s from its launch's what-if l, added
 * to *out (after cml_wi_site) when l has a better shape and s is one of
 * the instructions fitted; out->launch = l either way.
 */
void cml_wi_shape(const cml_ws_launch *l, const cml_tf_site *s, cml_wi_list *out);

/* The fit of site s in l, or NULL. */
const cml_ws_site *cml_wi_shape_site(const cml_ws_launch *l, const cml_tf_site *s);

/* "pad", "soa", "vector", "block_shape". */
const char *cml_wi_name(cml_wi_kind kind);

/* What the change is, in the lab's words: "pad each row of 128 B by 1
 * element (4 B)", "a structure of arrays: the field's own array instead
 * of structures of 16 B", "16-byte accesses (4 elements a lane)", "blocks
 * of 8 x 32 threads instead of 32 x 8 (...the assumption...)". */
void cml_wi_describe(const cml_wi *w, unsigned size, char *buf, size_t len);

/* Bytes saved: waste_before - waste_after (negative: the change wastes
 * more). */
int64_t cml_wi_saved(const cml_wi *w);
/* The same of any two byte counts (a launch's block-shape sums). */
int64_t cml_wi_saved_bytes(uint64_t before, uint64_t after);

#endif
