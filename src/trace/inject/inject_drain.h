/*
 * The host side of a traced launch's buffer, with no CUDA in it: the
 * records the patches wrote (inject_layout.h) become the trace's
 * (trace_file.h). Plain C, so that tests/test_inject_drain.c runs it
 * everywhere (the rest of the injection library needs a GPU).
 */
#ifndef CML_TRACE_INJECT_DRAIN_H
#define CML_TRACE_INJECT_DRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "trace/inject/inject_layout.h"
#include "trace/trace_file.h"

/* A traced launch, as the drain needs it. */
typedef struct cml_inject_launch {
    uint32_t grid[3], block[3];
    uint64_t warps_per_block;
    uint64_t stride;          /* the sample (cml_inject_ctl.stride)            */
    uint64_t pc, size;        /* the kernel's first PC and its bytes           */
    uint32_t func;            /* the kernel's FUNC id                          */
    uint32_t outside;         /* the FUNC id of PCs outside the kernel         */
} cml_inject_launch;

/*
 * The n records of recs (in the order their slots were taken) into out
 * (room for n), by block, then warp, each warp's in slot order (the order
 * it issued them). Left out: the warps whose bit is set in lost
 * (lost_words words, bit j for the sample's warp j = warp index / stride,
 * all their records), and records no valid trace holds (a block, warp or
 * lane the launch does not have, a size other than 1, 2, 4, 8, 16, a bad
 * space or op, no lane). PCs inside the kernel become offsets in it
 * (func = l->func); others keep their low 32 bits under l->outside, and
 * *outside counts them. k gets the launch's description and counts
 * (warps recorded and lost; func, launch and smem are the caller's).
 * Returns the records written, or (size_t)-1 when out of memory.
 */
size_t cml_inject_drain(const cml_inject_launch *l, const cml_inject_rec *recs, size_t n,
                        const unsigned *lost, size_t lost_words, cml_tf_ins *out,
                        cml_tf_kernel *k, size_t *outside);

#endif
