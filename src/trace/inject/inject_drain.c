/*
 * The host side of a traced launch's buffer (inject_drain.h).
 */
#include "trace/inject/inject_drain.h"

#include <stdlib.h>
#include <string.h>

/* Slot numbers sorted by the records' block and warp, then slot. */
typedef struct key {
    uint64_t block;
    uint32_t warp;
    size_t slot;
} key;

static int by_warp(const void *pa, const void *pb)
{
    const key *a = pa, *b = pb;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->warp != b->warp)
        return a->warp < b->warp ? -1 : 1;
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

static unsigned popcount(unsigned v)
{
    unsigned c = 0;
    for (; v; v &= v - 1u)
        c++;
    return c;
}

/* A record the trace can hold (see inject_drain.h). */
static int valid(const cml_inject_launch *l, const cml_inject_rec *r, uint64_t nblocks,
                 uint64_t threads)
{
    const unsigned sz = r->size;
    if (r->block >= nblocks || r->warp >= l->warps_per_block || r->active == 0)
        return 0;
    if (sz != 1 && sz != 2 && sz != 4 && sz != 8 && sz != 16)
        return 0;
    if ((r->attr & 3u) > 2u || (r->attr >> 2) > 2u)
        return 0;
    const uint64_t lanes = threads - (uint64_t)r->warp * 32u;
    return lanes >= 32u || !(r->active >> lanes);
}

size_t cml_inject_drain(const cml_inject_launch *l, const cml_inject_rec *recs, size_t n,
                        const unsigned *lost, size_t lost_words, cml_tf_ins *out,
                        cml_tf_kernel *k, size_t *outside)
{
    const uint64_t nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    const uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    key *order = malloc((n ? n : 1u) * sizeof *order);
    if (!order)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        order[i].block = recs[i].block;
        order[i].warp = recs[i].warp;
        order[i].slot = i;
    }
    qsort(order, n, sizeof *order, by_warp);
    size_t m = 0;
    uint64_t warps = 0, lost_warps = 0;
    *outside = 0;
    for (size_t j = 0; j < lost_words; j++)
        lost_warps += popcount(lost[j]);
    for (size_t i = 0; i < n; i++) {
        const cml_inject_rec *r = &recs[order[i].slot];
        if (!valid(l, r, nblocks, threads))
            continue;
        const uint64_t j = (r->block * l->warps_per_block + r->warp) / l->stride;
        if (j / 32u >= lost_words || ((lost[j / 32u] >> (j % 32u)) & 1u))
            continue; /* a warp that lost records: left out whole */
        cml_tf_ins *t = &out[m];
        memset(t, 0, sizeof *t);
        if (r->pc >= l->pc && r->pc - l->pc < l->size) {
            t->func = l->func;
            t->pc = (uint32_t)(r->pc - l->pc);
        } else {
            t->func = l->outside;
            t->pc = (uint32_t)r->pc;
            (*outside)++;
        }
        t->space = (uint8_t)(r->attr & 3u);
        t->op = (uint8_t)(r->attr >> 2);
        t->size = (uint8_t)r->size;
        t->active = r->active;
        t->block = r->block;
        t->warp = r->warp;
        for (unsigned lane = 0; lane < CML_TF_LANES; lane++)
            if ((r->active >> lane) & 1u)
                t->addr[lane] = r->addr[lane];
        if (m == 0 || t->block != out[m - 1].block || t->warp != out[m - 1].warp)
            warps++;
        m++;
    }
    free(order);
    memcpy(k->grid, l->grid, sizeof k->grid);
    memcpy(k->block, l->block, sizeof k->block);
    k->warps_total = nblocks * l->warps_per_block;
    k->stride = l->stride;
    k->warps_recorded = warps;
    k->warps_lost = lost_warps;
    return m;
}
