/*
 * A mirror's launch as a trace (trace_mirror.h): the tracer's hook hands
 * over each warp instruction as the warp issues it, block by block and
 * warp by warp, which is the order a trace's records go in.
 */
#include "trace/trace_mirror.h"
#include "model/trace_hook.h"

#include <stdlib.h>
#include <string.h>

typedef struct collect {
    uint32_t func;
    const uint32_t *site_pc;
    cml_tf_ins *ins;
    size_t n, cap;
    uint64_t warps;           /* distinct (block, warp) seen */
    uint64_t last_block;
    unsigned last_warp;
} collect;

static cml_status on_issue(void *user, uint64_t block, unsigned warp, unsigned site,
                           const cml_access *a)
{
    static const uint8_t space[CML_SPACE_COUNT] = {CML_TF_GLOBAL, CML_TF_LOCAL, CML_TF_SHARED,
                                                   CML_TF_SPACES};
    collect *c = user;
    if ((unsigned)a->space >= CML_SPACE_COUNT || space[a->space] == CML_TF_SPACES ||
        a->active == 0)
        return CML_OK; /* constant memory: not in a trace */
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2u : 256u;
        cml_tf_ins *ins = realloc(c->ins, cap * sizeof *ins);
        if (!ins)
            return CML_ENOMEM;
        c->ins = ins;
        c->cap = cap;
    }
    if (c->n == 0 || block != c->last_block || warp != c->last_warp)
        c->warps++;
    c->last_block = block;
    c->last_warp = warp;
    cml_tf_ins *r = &c->ins[c->n++];
    memset(r, 0, sizeof *r);
    r->func = c->func;
    r->pc = c->site_pc ? c->site_pc[site] : 16u * site;
    r->space = space[a->space];
    r->op = a->op == CML_OP_STORE ? CML_TF_STORE : CML_TF_LOAD;
    r->size = (uint8_t)a->width;
    r->active = a->active;
    r->block = block;
    r->warp = warp;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++)
        r->addr[l] = (a->active >> l) & 1u ? a->addr[l] : 0;
    return CML_OK;
}

cml_status cml_tf_write_mirror(cml_tf_writer *w, uint32_t func, uint64_t launch, cml_dim3 grid,
                               cml_dim3 block, uint64_t smem, cml_thread_fn fn,
                               const void *args, const uint32_t *site_pc)
{
    collect c;
    memset(&c, 0, sizeof c);
    c.func = func;
    c.site_pc = site_pc;
    cml_trace_hook hook = {&c, on_issue};
    cml_status rc = cml_trace_kernel_hooked(CML_RULES_MODERN, grid, block, fn, args, NULL, &hook);
    if (rc == CML_OK) {
        const uint64_t threads = (uint64_t)block.x * block.y * block.z;
        cml_tf_kernel k;
        memset(&k, 0, sizeof k);
        k.func = func;
        k.launch = launch;
        k.grid[0] = grid.x;
        k.grid[1] = grid.y;
        k.grid[2] = grid.z;
        k.block[0] = block.x;
        k.block[1] = block.y;
        k.block[2] = block.z;
        k.smem = smem;
        k.warps_total = (uint64_t)grid.x * grid.y * grid.z * ((threads + 31u) / 32u);
        k.stride = 1;
        k.warps_recorded = c.warps;
        if (cml_tf_write_kernel(w, &k, c.ins, c.n) != 0)
            rc = CML_EIO;
    }
    free(c.ins);
    return rc;
}
