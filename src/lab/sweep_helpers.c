/*
 * The helpers of common.h that act through the run's sweep (sweep.c): its
 * buffers and its waivers. A file of their own, so that the sweep, which
 * calls common.c, is not called back from there.
 */
#include "lab/common.h"

#include "gpu/kernel_info.h"

cml_status cml_exp_one_block_per_sm(cml_sweep *ctx, cml_record *rec, const void *kernel,
                                    unsigned block, size_t smem, size_t *dyn)
{
    const cml_plan *plan = ctx->plan;
    cml_status st = cml_gpu_one_block_per_sm(plan->gpu, kernel, block, smem, dyn);
    if (st == CML_EUNSUPPORTED)
        cml_sweep_waive(ctx, rec, "%s", cml_gpu_error(plan->gpu));
    else if (st)
        cml_exp_fail(plan, rec, st);
    return st;
}

cml_status cml_sweep_abc(cml_sweep *ctx, cml_record *rec, uint64_t n, uint64_t seed_a,
                         uint64_t seed_b, cml_exp_abc *g)
{
    const size_t bytes = n * sizeof(float);
    g->A = cml_sweep_buffer(ctx, rec, 0, bytes, seed_a);
    g->B = g->A ? cml_sweep_buffer(ctx, rec, 1, bytes, seed_b) : NULL;
    g->C = g->B ? cml_sweep_buffer(ctx, rec, 2, bytes, 0) : NULL;
    return g->C ? CML_OK : CML_ECUDA;
}
