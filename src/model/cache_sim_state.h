/*
 * Inside the cache-level simulator: its state, shared by the simulation
 * (cache_sim.c) and the functions that make, reset and free a simulator
 * and read its totals (cache_sim_life.c). Not public.
 */
#ifndef CML_MODEL_CACHE_SIM_STATE_H
#define CML_MODEL_CACHE_SIM_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/cache.h"
#include "model/cache_internal.h"
#include "model/cache_lru.h"

/* A dirty sector waiting to age: valid while its line still holds `tag`
 * and the sector is dirty since `since`. */
typedef struct dirty_entry {
    uint64_t tag, since;
    uint32_t node;
    uint8_t part, sector;
} dirty_entry;

/* A FIFO of dirty_entry, growing as needed. */
typedef struct ring {
    dirty_entry *e;
    size_t head, len, cap;
} ring;

struct cml_cache_sim {
    cml_cache_config cfg;
    uint32_t l1_lines;
    lru *l1;                /* [sm_count], set up on first use */
    lru l2[2];
    unsigned parts;
    uint64_t clock;         /* sectors brought into L2 so far */
    uint64_t age[2];        /* write-back horizon in sectors: [0] whole, [1] partial
                               sectors; 0: off */
    uint64_t dirty_max;     /* in sectors; 0: off */
    uint64_t dirty;         /* dirty sectors now */
    ring q[2];              /* dirty sectors, oldest first: [0] whole, [1] partial */
    uint64_t lo[2];         /* no entry of q[k] is dirty since before lo[k] */
    uint64_t wake;          /* no entry can have aged before the clock gets here:
                               at most lo[k] + age[k] of every queue that ages */
    /* Lines ever touched in L2, with the sectors touched: the footprint. */
    uint64_t *seen_tag;
    uint8_t *seen_mask;
    unsigned seen_bits;     /* 2^seen_bits slots; 0: none set up yet */
    size_t seen_cap;        /* slots allocated (kept by a reset) */
    size_t seen_n;
    cml_levels tot;
    cml_cache_sim_stats st;  /* clock is kept in `clock` above */
    int no_footprint;
};

#endif
