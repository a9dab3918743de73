/*
 * Inside the model library: cml_trace_kernel with a listener that sees
 * every warp instruction as the tracer assembles it (the cache levels use
 * it to feed their simulator). Not part of the public API.
 */
#ifndef CML_MODEL_TRACE_HOOK_H
#define CML_MODEL_TRACE_HOOK_H

#include "cumemlab/model.h"

typedef struct cml_trace_hook {
    void *user;
    /* One warp instruction, in the order the warp issues it: `block` is
     * the block's linear index in the traced grid (x fastest), `warp` the
     * warp's index in its block, `site` the mirror's site that issued it.
     * A status other than CML_OK ends the trace with that status. */
    cml_status (*issue)(void *user, uint64_t block, unsigned warp, unsigned site,
                        const cml_access *a);
} cml_trace_hook;

/*
 * cml_trace_kernel, and every assembled instruction handed to hook->issue
 * (hook may be NULL). With out == NULL the per-instruction model is not
 * run (the hook alone sees the instructions; an invalid one is still
 * reported by whatever the hook does with it).
 */
cml_status cml_trace_kernel_hooked(cml_rules rules, cml_dim3 grid, cml_dim3 block,
                                   cml_thread_fn fn, const void *args, cml_kernel_traffic *out,
                                   const cml_trace_hook *hook);

/*
 * The same listener over some blocks of a grid, each run with its real
 * block index: blocks first, first + stride, ... (count of them), in that
 * order. The listener's `block` is the position in that list (0, 1, ...).
 * Rules CML_RULES_MODERN, no traffic model. CML_EINVAL for a launch CUDA
 * would refuse, a block beyond the grid or a NULL hook.
 */
cml_status cml_trace_blocks_hooked(cml_dim3 grid, cml_dim3 block, uint64_t first,
                                   uint64_t stride, uint64_t count, cml_thread_fn fn,
                                   const void *args, const cml_trace_hook *hook);

#endif
