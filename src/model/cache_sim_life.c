/*
 * The cache-level simulator's life (include/cumemlab/cache.h): a new one,
 * reset for the next grid keeping its memory, freed; its totals and
 * statistics read. The simulation itself is cache_sim.c.
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"
#include "model/cache_lru.h"
#include "model/cache_sim_state.h"

#include <stdlib.h>
#include <string.h>

/* Everything of a new simulator for `c` but the memory it holds: s is
 * zeroed but for its caches' arrays, its queues' and the footprint table's
 * buffers, and s->l1 (c->sm_count caches, zeroed or used before). */
static void sim_start(cml_cache_sim *s, const cml_cache_config *c, uint64_t threads)
{
    s->cfg = *c;
    const uint64_t l1 = cml_cache_l1_bytes(c, threads);
    s->l1_lines = (uint32_t)(l1 / CML_LINE_BYTES);
    for (unsigned i = 0; i < c->sm_count; i++)
        if (s->l1[i].cap) /* used before (l1_of sets up the others) */
            lru_clear(&s->l1[i], s->l1_lines);
    s->parts = c->l2_partitions;
    const uint64_t lines = c->l2_bytes / CML_LINE_BYTES / s->parts;
    const uint32_t cap = lines > UINT32_MAX - 1u ? UINT32_MAX - 1u : (uint32_t)lines;
    for (unsigned p = 0; p < s->parts; p++) {
        if (s->l2[p].state)
            lru_clear(&s->l2[p], cap);
        else
            lru_init(&s->l2[p], cap, 1);
    }
    s->age[0] = c->clean_age_bytes / CML_SECTOR_BYTES;
    s->age[1] = (c->partial_age_bytes ? c->partial_age_bytes : c->clean_age_bytes) /
                CML_SECTOR_BYTES;
    s->dirty_max = c->dirty_max_bytes / CML_SECTOR_BYTES;
    s->wake = UINT64_MAX;
    s->tot.resident_blocks = cml_cache_resident_blocks(c, threads);
    s->tot.l1_bytes = l1;
}

cml_status cml_cache_sim_new(const cml_cache_config *c, uint64_t threads, cml_cache_sim **out)
{
    if (!out || cml_cache_config_check(c) != CML_OK)
        return CML_EINVAL;
    *out = NULL;
    cml_cache_sim *s = calloc(1, sizeof *s);
    if (!s)
        return CML_ENOMEM;
    s->l1 = calloc(c->sm_count, sizeof *s->l1);
    if (!s->l1) {
        free(s);
        return CML_ENOMEM;
    }
    sim_start(s, c, threads);
    *out = s;
    return CML_OK;
}

cml_status cml_cache_sim_reset(cml_cache_sim *s, const cml_cache_config *c, uint64_t threads)
{
    if (!s || cml_cache_config_check(c) != CML_OK)
        return CML_EINVAL;
    lru *l1 = s->l1;
    if (c->sm_count != s->cfg.sm_count) {
        lru *fresh = calloc(c->sm_count, sizeof *fresh);
        if (!fresh)
            return CML_ENOMEM; /* s unchanged */
        for (unsigned i = 0; i < s->cfg.sm_count; i++)
            lru_free(&l1[i]);
        free(l1);
        l1 = fresh;
    }
    const lru l2[2] = {s->l2[0], s->l2[1]};
    ring q[2] = {s->q[0], s->q[1]};
    for (unsigned k = 0; k < 2; k++)
        q[k].head = q[k].len = 0;
    uint64_t *seen_tag = s->seen_tag;
    uint8_t *seen_mask = s->seen_mask;
    const size_t seen_cap = s->seen_cap;
    memset(s, 0, sizeof *s);
    s->l1 = l1;
    s->l2[0] = l2[0];
    s->l2[1] = l2[1];
    s->q[0] = q[0];
    s->q[1] = q[1];
    s->seen_tag = seen_tag;
    s->seen_mask = seen_mask;
    s->seen_cap = seen_cap; /* seen_bits 0: the table is set up afresh */
    sim_start(s, c, threads);
    return CML_OK;
}

void cml_cache_sim_free(cml_cache_sim *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->cfg.sm_count; i++)
        lru_free(&s->l1[i]);
    free(s->l1);
    for (unsigned p = 0; p < 2; p++)
        lru_free(&s->l2[p]);
    free(s->q[0].e);
    free(s->q[1].e);
    free(s->seen_tag);
    free(s->seen_mask);
    free(s);
}

void cml_cache_sim_levels(const cml_cache_sim *s, cml_levels *out)
{
    if (!s || !out)
        return;
    *out = s->tot;
    out->l2_dirty_end_bytes = s->dirty * CML_SECTOR_BYTES;
    out->settled = 1;
}

void cml_cache_sim_skip_footprint(cml_cache_sim *s)
{
    s->no_footprint = 1;
}

void cml_cache_sim_stats_get(const cml_cache_sim *s, cml_cache_sim_stats *out)
{
    *out = s->st;
    out->clock = s->clock;
    out->l1_lines = s->l1_lines;
}
