/* The model side of a record (trace.h). */
#include "lab/trace.h"

#include <string.h>

void cml_exp_cache_config(const cml_plan *plan, cml_cache_config *c)
{
    cml_cache_config_h100(c);
    const cml_device_facts *d = plan ? plan->dev : NULL;
    if (!d)
        return;
    if (d->sm_count > 0)
        c->sm_count = (unsigned)d->sm_count;
    if (d->max_threads_per_sm > 0)
        c->max_threads_per_sm = (unsigned)d->max_threads_per_sm;
    if (d->max_blocks_per_sm > 0)
        c->max_blocks_per_sm = (unsigned)d->max_blocks_per_sm;
    if (d->shared_per_sm > 0) {
        /* L1 and shared memory share one array per SM: 28 KiB beyond the
         * largest shared carve-out from sm_80 on, 32 KiB on sm_70 (V100:
         * 128 KiB, up to 96 KiB shared). */
        c->smem_per_sm = d->shared_per_sm;
        c->l1_total_bytes = d->shared_per_sm + (d->cc_major >= 8 ? 28u : 32u) * 1024u;
    }
    if (d->l2_bytes > 0 && d->l2_bytes != c->l2_bytes) {
        /* The write-back horizon and dirty limit were measured on an H100:
         * elsewhere they are taken in the same proportion to L2. */
        const uint64_t from = c->l2_bytes / 1024u, to = d->l2_bytes / 1024u;
        c->clean_age_bytes = c->clean_age_bytes / 1024u * to / from * 1024u;
        c->partial_age_bytes = c->partial_age_bytes / 1024u * to / from * 1024u;
        c->dirty_max_bytes = c->dirty_max_bytes / 1024u * to / from * 1024u;
        c->l2_bytes = d->l2_bytes;
    }
}

cml_status cml_exp_levels(cml_record *rec, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                          const void *args)
{
    const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
    memset(&rec->levels, 0, sizeof rec->levels);
    rec->has_levels = 0;
    if (rec->cache.sm_count == 0) {
        /* A record the run engine did not set up (a test's, a scratch one):
         * an H100, keeping the shared memory the experiment gave. */
        const uint64_t smem = rec->cache.smem_per_block;
        cml_cache_config_h100(&rec->cache);
        rec->cache.smem_per_block = smem;
    }
    if (m->cls[CML_CLASS_GLOBAL_LD].instructions || m->cls[CML_CLASS_GLOBAL_ST].instructions ||
        m->cls[CML_CLASS_LOCAL_LD].instructions || m->cls[CML_CLASS_LOCAL_ST].instructions ||
        m->bulk.instructions) {
        cml_status st = cml_trace_levels(&rec->cache, grid, block, fn, args, m, &rec->levels);
        if (st != CML_OK) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "model (cache levels): %s", cml_status_str(st));
            return st;
        }
    } else {
        /* Nothing reaches L1TEX's global or local path (nor the copy
         * engine) in the mirror: the figures are the model's zeros, with
         * nothing unknown to widen them (docs/model.md §16.8). */
        cml_levels_set_point(&rec->levels);
    }
    rec->has_levels = 1;
    return CML_OK;
}

cml_status cml_exp_trace(cml_record *rec, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                         const void *args)
{
    for (int r = 0; r < CML_RULES_COUNT; r++) {
        memset(&rec->model[r], 0, sizeof rec->model[r]);
        cml_status st = cml_trace_kernel((cml_rules)r, grid, block, fn, args, &rec->model[r]);
        if (st != CML_OK) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "model: %s", cml_status_str(st));
            return st;
        }
    }
    rec->has_model = 1;
    rec->grid = (uint64_t)grid.x * grid.y * grid.z;
    rec->block = (uint64_t)block.x * block.y * block.z;
    return cml_exp_levels(rec, grid, block, fn, args);
}
