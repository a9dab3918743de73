/*
 * The cache-level simulator: cml_cache_sim_* (include/cumemlab/cache.h).
 *
 * Each warp instruction is cut into its distinct 32-byte sectors (with the
 * bytes it covers in each), which then go through:
 *   - the L1 of the issuing SM: 128-byte lines with a valid bit per sector,
 *     filled one sector at a time, fully associative, least recently used
 *     line replaced. Loads with .ca, .nc and .cs (and local loads) look up
 *     and fill it, a .cs hit without renewing the line (evict-first); .cg
 *     loads bypass it and drop its copy of the line. Stores write through: a store
 *     that covers a whole sector leaves it valid in L1 (allocating the line
 *     for the default write-back path), other stores update what is there.
 *   - L2 (one cache, or two halves): 128-byte lines, per-sector valid, dirty
 *     and partial bits and, for a partially written sector, its byte mask.
 *     A read miss fetches a DRAM granule (one or two sectors); a write needs
 *     no read (write-allocate without fetch); a dirty sector goes back to
 *     DRAM when its line is evicted, when it has aged (clean_age_bytes of
 *     later insertions) or when too much is dirty (dirty_max_bytes), and a
 *     partial one is first merged with a 32-byte DRAM read.
 * With l1_merge (an extreme for the bounds, never the point), a request an
 * SM sends past L1 for a sector it asked for before (a store, or a load
 * that bypasses L1) merges with the earlier one and costs L2 nothing more;
 * with l1_pooled as well, every SM is SM 0 (one L1, one set of requests).
 * docs/model.md ("The cache levels") gives the evidence for each rule.
 *
 * Every cache is fully associative with true LRU (cache_lru.h); an
 * instruction's sectors come from cache_sectors.c, the configuration from
 * cache_config.c; the simulator's state is cache_sim_state.h, and making,
 * resetting and freeing one cache_sim_life.c.
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"
#include "model/cache_lru.h"
#include "model/cache_sectors.h"
#include "model/cache_sim_state.h"

#include <stdlib.h>
#include <string.h>

/* ---- footprint ----------------------------------------------------------
 *
 * The sectors ever touched, per line. A line in L2 keeps its own mask
 * (lru.seen, on its home partition); the table below holds the masks of
 * the lines that left L2, written when one leaves and read when L2 takes a
 * line back. So the table is looked up once per line L2 takes or gives up,
 * not once per sector (a sector reaches L2, or an L1 which it filled
 * through L2, before it can be touched again), and not at all while no
 * line has left: a line L2 takes then was never touched before.
 */

/* Beside the sectors (bits 0-3): some L1 took the line once (l1_filter). */
#define SEEN_IN_L1 0x40u

/* The slot of `line` in the table, added (empty) if absent; SIZE_MAX on
 * out of memory. */
static size_t seen_slot(cml_cache_sim *s, uint64_t line)
{
    if (!s->seen_bits || (s->seen_n + 1u) * 2u > ((size_t)1 << s->seen_bits)) {
        const unsigned bits = s->seen_bits ? s->seen_bits + 1u : 10u;
        const size_t size = (size_t)1 << bits;
        if (!s->seen_bits && size <= s->seen_cap) {
            /* Empty after a reset: the memory of an earlier use. */
            memset(s->seen_mask, 0, size);
            s->seen_bits = bits;
            return seen_slot(s, line);
        }
        uint64_t *t = malloc(size * sizeof *t);
        uint8_t *m = calloc(size, 1);
        if (!t || !m) {
            free(t);
            free(m);
            return SIZE_MAX;
        }
        for (size_t i = 0; s->seen_bits && i < ((size_t)1 << s->seen_bits); i++) {
            if (!s->seen_mask[i])
                continue;
            size_t h = (size_t)(fib_hash(s->seen_tag[i]) >> (64 - bits));
            while (m[h])
                h = (h + 1u) & (size - 1u);
            t[h] = s->seen_tag[i];
            m[h] = s->seen_mask[i];
        }
        free(s->seen_tag);
        free(s->seen_mask);
        s->seen_tag = t;
        s->seen_mask = m;
        s->seen_bits = bits;
        s->seen_cap = size;
    }
    const size_t mask = ((size_t)1 << s->seen_bits) - 1u;
    size_t h = (size_t)(fib_hash(line) >> (64 - s->seen_bits));
    while (s->seen_mask[h] && s->seen_tag[h] != line)
        h = (h + 1u) & mask;
    if (!s->seen_mask[h]) {
        /* Bit 7 marks the slot used before a sector is recorded. */
        s->seen_tag[h] = line;
        s->seen_mask[h] = 0x80u;
        s->seen_n++;
    }
    return h;
}

/* Line x of partition p just took `tag`: its mask from the table. */
static cml_status seen_load(cml_cache_sim *s, lru *l, uint32_t x)
{
    if (s->no_footprint)
        return CML_OK;
    if (!s->seen_n) {
        l->seen[x] = 0;
        return CML_OK;
    }
    const size_t h = seen_slot(s, l->tag[x]);
    if (h == SIZE_MAX)
        return CML_ENOMEM;
    l->seen[x] = (uint8_t)(s->seen_mask[h] & (0x0Fu | SEEN_IN_L1));
    return CML_OK;
}

/* Line x of partition p leaves L2: its mask into the table. */
static cml_status seen_store(cml_cache_sim *s, lru *l, uint32_t x)
{
    if (s->no_footprint)
        return CML_OK;
    const size_t h = seen_slot(s, l->tag[x]);
    if (h == SIZE_MAX)
        return CML_ENOMEM;
    s->seen_mask[h] |= l->seen[x];
    return CML_OK;
}

/* Sector `bit` of home line x is touched. */
static void seen_mark(cml_cache_sim *s, lru *l, uint32_t x, uint8_t bit)
{
    if (!s->no_footprint && !(l->seen[x] & bit)) {
        l->seen[x] |= bit;
        s->tot.footprint_bytes += CML_SECTOR_BYTES;
    }
}

/* The partition an address lives in (its home), and the one an SM reaches
 * first (its near half: SMs are numbered by GPC, the first half near
 * partition 0). */
static unsigned home_of(const cml_cache_sim *s, uint64_t line)
{
    return s->parts == 1 ? 0u : (unsigned)(mix64(line ^ UINT64_C(0x5BD1E995)) >> 63);
}

static unsigned near_of(const cml_cache_sim *s, unsigned sm)
{
    return s->parts == 1 ? 0u : (unsigned)((uint64_t)sm * s->parts / s->cfg.sm_count);
}

/* ---- L2 ------------------------------------------------------------------ */

static unsigned popcount8(unsigned m)
{
    unsigned c = 0;
    for (; m; m &= m - 1u)
        c++;
    return c;
}

/* Write sector k of line x of partition p back to DRAM (merging a partial
 * one with a read first); it stays in L2, clean. */
static void write_back(cml_cache_sim *s, lru *l, uint32_t x, unsigned k)
{
    const uint8_t bit = (uint8_t)(1u << k);
    s->tot.dram_write_bytes += CML_SECTOR_BYTES;
    if (l->partial[x] & bit) {
        s->tot.dram_read_bytes += CML_SECTOR_BYTES;
        s->st.merges++;
        s->st.partial_now--;
        l->partial[x] &= (uint8_t)~bit;
        l->valid[x] |= bit;
    }
    l->dirty[x] &= (uint8_t)~bit;
    s->dirty--;
}

/* A line leaves L2: its dirty sectors go to DRAM (partial ones merged). */
static void l2_evict(cml_cache_sim *s, lru *l, uint32_t x)
{
    const unsigned d = l->dirty[x];
    s->tot.dram_write_bytes += (uint64_t)CML_SECTOR_BYTES * popcount8(d);
    s->tot.dram_read_bytes += (uint64_t)CML_SECTOR_BYTES * popcount8(l->partial[x]);
    s->st.merges += popcount8(l->partial[x]);
    s->st.partial_now -= popcount8(l->partial[x]);
    s->dirty -= popcount8(d);
}

/* Line `tag` in partition p, brought in (empty) if absent; NIL on ENOMEM.
 * A line of its home partition carries its footprint mask in and out. */
static uint32_t l2_line(cml_cache_sim *s, unsigned p, uint64_t tag)
{
    lru *l = &s->l2[p];
    uint32_t x = lru_find(l, tag);
    if (x != NIL) {
        lru_touch(l, x);
        return x;
    }
    int victim = 0;
    x = lru_claim(l, &victim);
    if (x == NIL)
        return NIL;
    if (victim) {
        l2_evict(s, l, x);
        if (home_of(s, l->tag[x]) == p && seen_store(s, l, x) != CML_OK)
            return NIL;
    }
    lru_take(l, x, victim, tag);
    if (home_of(s, tag) == p && seen_load(s, l, x) != CML_OK)
        return NIL;
    return x;
}

/* Whether an entry of queue k still describes a dirty sector: its line
 * holds `tag`, the sector is dirty since `since`, and (partial queue) is
 * still partial or (whole queue) is whole. */
static int entry_live(const cml_cache_sim *s, unsigned k, const dirty_entry *e)
{
    const lru *l = &s->l2[e->part];
    if (e->node >= l->n || l->tag[e->node] != e->tag || !(l->dirty[e->node] >> e->sector & 1u) ||
        l->since[(size_t)e->node * 4u + e->sector] != e->since)
        return 0;
    return (unsigned)(l->partial[e->node] >> e->sector & 1u) == k;
}

/* Room for one more entry in queue k: entries that no longer describe a
 * dirty sector are dropped first when they are most of it. */
static cml_status ring_room(cml_cache_sim *s, unsigned k)
{
    ring *r = &s->q[k];
    if (r->len < r->cap)
        return CML_OK;
    const int compact = r->len > 4u * (s->dirty + 1024u);
    const size_t cap = compact ? r->cap : (r->cap ? r->cap * 2u : 1024u);
    dirty_entry *n = malloc(cap * sizeof *n);
    if (!n)
        return CML_ENOMEM;
    size_t w = 0;
    uint64_t lo = UINT64_MAX;
    for (size_t i = 0; i < r->len; i++) {
        const dirty_entry *e = &r->e[(r->head + i) % r->cap];
        if (!compact || entry_live(s, k, e)) {
            n[w++] = *e;
            lo = e->since < lo ? e->since : lo;
        }
    }
    s->lo[k] = lo;
    free(r->e);
    r->e = n;
    r->cap = cap;
    r->head = 0;
    r->len = w;
    return r->len < r->cap ? CML_OK : ring_room(s, k);
}

static cml_status queue_push(cml_cache_sim *s, unsigned k, dirty_entry e)
{
    if (!s->age[0] && !s->age[1] && !s->dirty_max)
        return CML_OK; /* nothing ever ages: no need to remember the order */
    cml_status rc = ring_room(s, k);
    if (rc != CML_OK)
        return rc;
    ring *r = &s->q[k];
    if (r->len == 0 || e.since < s->lo[k])
        s->lo[k] = e.since;
    if (s->age[k] && s->lo[k] + s->age[k] < s->wake)
        s->wake = s->lo[k] + s->age[k];
    r->e[(r->head + r->len) % r->cap] = e;
    r->len++;
    return CML_OK;
}

static void ring_pop(ring *r)
{
    r->head = (r->head + 1u) % r->cap;
    r->len--;
}

/* The clock at which an entry may first have aged (wake): the earliest
 * lo[k] + age[k]. */
static void set_wake(cml_cache_sim *s)
{
    s->wake = UINT64_MAX;
    for (unsigned k = 0; k < 2; k++)
        if (s->q[k].len && s->age[k] && s->lo[k] + s->age[k] < s->wake)
            s->wake = s->lo[k] + s->age[k];
}

/* The early write-back an H100 shows: a dirty sector goes back to DRAM
 * once it has aged (whole and partial sectors on horizons of their own),
 * and the oldest go while too much is dirty. */
static void clean_now(cml_cache_sim *s)
{
    for (;;) {
        const dirty_entry *head[2] = {NULL, NULL};
        for (unsigned k = 0; k < 2; k++) {
            ring *r = &s->q[k];
            while (r->len && !entry_live(s, k, &r->e[r->head]))
                ring_pop(r);
            if (r->len)
                head[k] = &r->e[r->head];
            /* The partial queue is pushed in clock order: its head bounds it. */
            if (k == 1 && r->len)
                s->lo[1] = head[1]->since;
        }
        int pick = -1;
        for (unsigned k = 0; k < 2; k++)
            if (head[k] && s->age[k] && s->clock - head[k]->since >= s->age[k])
                pick = (int)k;
        if (pick < 0 && s->dirty_max && s->dirty > s->dirty_max)
            pick = !head[0] ? 1 : !head[1] ? 0 : head[1]->since < head[0]->since ? 1 : 0;
        if (pick < 0 || !head[pick]) {
            set_wake(s);
            return;
        }
        write_back(s, &s->l2[head[pick]->part], head[pick]->node, head[pick]->sector);
        ring_pop(&s->q[pick]);
    }
}

/* Called for every sector L2 sees. While nothing can be old enough (the
 * clock short of wake) and the dirty data is within its limit, nothing goes
 * back, and the entries that no longer describe a dirty sector are left for
 * a later call to drop. That changes nothing: an entry that stopped
 * describing a dirty sector never describes one again (a sector dirtied
 * anew at the same clock follows a write-back of the entry itself, which is
 * popped, or starts whole, which a partial entry does not describe; a line
 * taken again is filled first, which moves the clock). */
static inline void clean(cml_cache_sim *s)
{
    if (s->clock < s->wake && !(s->dirty_max && s->dirty > s->dirty_max))
        return;
    clean_now(s);
}

/* Fill the DRAM granule around sector k of line x in partition p: every
 * sector of it not held whole is read (32 bytes each), a partial one merged
 * (it stays dirty, and ages as a whole sector from then on). */
static cml_status fill_granule(cml_cache_sim *s, unsigned p, uint32_t x, unsigned k)
{
    lru *l = &s->l2[p];
    const unsigned g = s->cfg.dram_granule / CML_SECTOR_BYTES;
    const unsigned first = k / g * g;
    for (unsigned j = first; j < first + g; j++) {
        const uint8_t bit = (uint8_t)(1u << j);
        if (l->valid[x] & bit)
            continue;
        s->tot.dram_read_bytes += CML_SECTOR_BYTES;
        s->st.miss_read_bytes += CML_SECTOR_BYTES;
        l->valid[x] |= bit;
        if (l->partial[x] & bit) {
            l->partial[x] &= (uint8_t)~bit;
            s->st.partial_now--;
            dirty_entry e = {l->tag[x], l->since[(size_t)x * 4u + j], x, (uint8_t)p, (uint8_t)j};
            cml_status rc = queue_push(s, 0, e);
            if (rc != CML_OK)
                return rc;
        } else {
            s->clock++;
        }
    }
    return CML_OK;
}

/* A sector L1TEX reads from L2 for SM `sm`. */
static cml_status l2_read(cml_cache_sim *s, unsigned sm, uint64_t sector, uint32_t *home_line)
{
    const uint64_t tag = sector >> 2;
    const unsigned k = (unsigned)(sector & 3u);
    const uint8_t bit = (uint8_t)(1u << k);
    const unsigned home = home_of(s, tag), near = near_of(s, sm);
    s->tot.l2_read_sectors++;
    if (home != near) {
        /* A far address: a copy in the near half answers first (its
         * sector came through the home line, which marked it seen). */
        uint32_t c = lru_find(&s->l2[near], tag);
        if (c != NIL && (s->l2[near].valid[c] & bit)) {
            lru_touch(&s->l2[near], c);
            s->tot.l2_read_hit_sectors++;
            return CML_OK;
        }
    }
    uint32_t x = l2_line(s, home, tag);
    if (x == NIL)
        return CML_ENOMEM;
    *home_line = x;
    lru *l = &s->l2[home];
    seen_mark(s, l, x, bit);
    if (l->valid[x] & bit) {
        s->tot.l2_read_hit_sectors++;
    } else {
        cml_status rc = fill_granule(s, home, x, k);
        if (rc != CML_OK)
            return rc;
    }
    if (home != near) {
        uint32_t c = l2_line(s, near, tag);
        if (c == NIL)
            return CML_ENOMEM;
        if (!(s->l2[near].valid[c] & bit))
            s->clock++;
        s->l2[near].valid[c] |= bit;
    }
    clean(s);
    return CML_OK;
}

/* The l2_forget_cs extreme (cache.h): after a .cs load read `sector`, L2
 * gives up the clean sectors of its line, in its home half and in the
 * reader's near copy; dirty and partial ones stay until written back. */
static void l2_forget(cml_cache_sim *s, unsigned sm, uint64_t sector)
{
    const uint64_t tag = sector >> 2;
    const unsigned parts[2] = {home_of(s, tag), near_of(s, sm)};
    for (unsigned i = 0; i < (parts[0] == parts[1] ? 1u : 2u); i++) {
        lru *l = &s->l2[parts[i]];
        const uint32_t x = lru_find(l, tag);
        if (x != NIL)
            l->valid[x] &= l->dirty[x];
    }
}

/* A sector L1TEX writes to L2, `mask` the bytes written; `count` 0: merged
 * in L1 with an earlier store of the sector (l1_merge), so not a write L2
 * counts, but its bytes still reach the line. */
static cml_status l2_write(cml_cache_sim *s, unsigned sm, uint64_t sector, uint32_t mask,
                           int count, uint32_t *home_line)
{
    const uint64_t tag = sector >> 2;
    const unsigned k = (unsigned)(sector & 3u);
    const uint8_t bit = (uint8_t)(1u << k);
    const unsigned home = home_of(s, tag), near = near_of(s, sm);
    s->tot.l2_write_sectors += (uint64_t)(count != 0);
    if (home != near) {
        /* A copy in the writer's half would go stale: it is dropped. */
        uint32_t c = lru_find(&s->l2[near], tag);
        if (c != NIL)
            s->l2[near].valid[c] &= (uint8_t)~bit;
    }
    uint32_t x = l2_line(s, home, tag);
    if (x == NIL)
        return CML_ENOMEM;
    *home_line = x;
    lru *l = &s->l2[home];
    seen_mark(s, l, x, bit);
    const size_t b = (size_t)x * 4u + k;
    if (l->dirty[x] & bit) {
        if (l->partial[x] & bit) {
            l->bytes[b] |= mask;
            if (l->bytes[b] == FULL_SECTOR) {
                /* Completed: it ages as a whole sector from now on, dirty
                 * since it first was. */
                l->partial[x] &= (uint8_t)~bit;
                l->valid[x] |= bit;
                s->st.partial_now--;
                dirty_entry e = {tag, l->since[b], x, (uint8_t)home, (uint8_t)k};
                cml_status rc = queue_push(s, 0, e);
                if (rc != CML_OK)
                    return rc;
            }
        }
        clean(s);
        return CML_OK;
    }
    /* A new dirty sector: held whole already, or brought in by the write. */
    if (!(l->valid[x] & bit)) {
        s->clock++;
        if (mask == FULL_SECTOR) {
            l->valid[x] |= bit;
        } else {
            l->partial[x] |= bit;
            l->bytes[b] = mask;
            s->st.partial_now++;
        }
    }
    s->st.episodes++;
    l->dirty[x] |= bit;
    l->since[b] = s->clock;
    s->dirty++;
    dirty_entry e = {tag, s->clock, x, (uint8_t)home, (uint8_t)k};
    cml_status rc = queue_push(s, (l->partial[x] >> k) & 1u, e);
    clean(s);
    return rc;
}

/* ---- L1 ------------------------------------------------------------------ */

static lru *l1_of(cml_cache_sim *s, unsigned sm)
{
    lru *l = &s->l1[sm];
    if (!l->cap)
        lru_init(l, s->l1_lines, 0);
    return l;
}

/* Whether L1 lookups may be skipped for lines no L1 ever took: the home
 * line in L2 says so (SEEN_IN_L1 of its footprint mask, kept in the table
 * while the line is out of L2). Only with one L2 (a read served by a near
 * copy never sees the home line) and the footprint counted. */
static int l1_filter(const cml_cache_sim *s)
{
    return s->parts == 1 && !s->no_footprint;
}

/* An L1 takes line `tag`, whose home line in L2 is x2 (NIL: unknown). */
static void l1_took(cml_cache_sim *s, uint32_t x2)
{
    if (l1_filter(s) && x2 != NIL)
        s->l2[0].seen[x2] |= SEEN_IN_L1;
}

/* L1 `l` takes line `tag` (not held; an LRU victim makes room: L1 writes
 * through, so nothing goes back), whose home line in L2 is x2. */
static cml_status l1_take_line(cml_cache_sim *s, lru *l, uint64_t tag, uint32_t x2, uint32_t *x)
{
    int victim = 0;
    *x = lru_claim(l, &victim);
    if (*x == NIL)
        return CML_ENOMEM;
    lru_take(l, *x, victim, tag);
    l1_took(s, x2);
    s->st.l1_fills++;
    return CML_OK;
}

/* A load sector through L1: 1 on a hit; else it is read from L2 and filled.
 * `renews`: whether the load makes the line the most recently used. A .cs
 * (evict-first) load does not: it fills a new line as the newest like any
 * load, and then its hits leave the line where it is, so a line only .cs
 * loads use leaves L1 a capacity's worth of fills after it came, however
 * often it is hit. Measured on an H200 (docs/model-evidence.md §4.9): a
 * gather of a 16 KiB table through __ldcs loses 3.2% and 4.0% of its L1
 * hits at 31.5 M and 125.8 M threads, which this order derives. */
static cml_status l1_load(cml_cache_sim *s, unsigned sm, uint64_t sector, int renews, int *hit)
{
    lru *l = l1_of(s, sm);
    const uint64_t tag = sector >> 2;
    const uint8_t bit = (uint8_t)(1u << (sector & 3u));
    uint32_t x = lru_find(l, tag);
    if (x != NIL && (l->valid[x] & bit)) {
        if (renews)
            lru_touch(l, x);
        *hit = 1;
        return CML_OK;
    }
    *hit = 0;
    uint32_t x2 = NIL;
    cml_status rc = l2_read(s, sm, sector, &x2);
    if (rc != CML_OK)
        return rc;
    if (x == NIL) {
        rc = l1_take_line(s, l, tag, x2, &x);
        if (rc != CML_OK)
            return rc;
    } else if (renews) {
        lru_touch(l, x);
    }
    l->valid[x] |= bit;
    return CML_OK;
}

/* A .cg load drops its SM's L1 copy of the whole line (valid sectors
 * cleared; the line keeps its place and its merge marks): measured on an
 * H200, every .cg load of a hot table line that .nc or .ca loads keep in L1
 * cost them 3.7-3.8 of the line's 4 sectors again (docs/model-evidence.md
 * §4.9). x2: the line's home line in L2 (NIL: unknown, no filter). */
static void l1_drop(cml_cache_sim *s, unsigned sm, uint64_t sector, uint32_t x2)
{
    if (l1_filter(s) && x2 != NIL && !(s->l2[0].seen[x2] & SEEN_IN_L1))
        return;
    lru *l = l1_of(s, sm);
    const uint32_t x = lru_find(l, sector >> 2);
    if (x != NIL)
        l->valid[x] = 0;
}

/* The l1_merge extreme (cache.h): whether the SM asked for `sector` past
 * L1 before, as a bypassing load (kind 0) or a store (kind 1), while its
 * L1 held the line. A lookup only: l1_ask marks it. */
static int l1_asked(cml_cache_sim *s, unsigned sm, uint64_t sector, unsigned kind)
{
    lru *l = l1_of(s, sm);
    const uint32_t x = lru_find(l, sector >> 2);
    return x != NIL && (l->asked[x] >> ((sector & 3u) + 4u * kind) & 1u);
}

/* Marks `sector` asked for (kind as l1_asked), taking its line into L1 if
 * L1 does not hold it; x2: the line's home line in L2. */
static cml_status l1_ask(cml_cache_sim *s, unsigned sm, uint64_t sector, unsigned kind,
                         uint32_t x2)
{
    lru *l = l1_of(s, sm);
    const uint64_t tag = sector >> 2;
    uint32_t x = lru_find(l, tag);
    if (x == NIL) {
        cml_status rc = l1_take_line(s, l, tag, x2, &x);
        if (rc != CML_OK)
            return rc;
    } else {
        lru_touch(l, x);
    }
    l->asked[x] |= (uint8_t)(1u << ((sector & 3u) + 4u * kind));
    return CML_OK;
}

/* A store sector in L1: a whole sector stored through the default path is
 * held afterwards (allocating its line); other stores update what is held.
 * x2: the line's home line in L2 (l2_write found it). Most stored lines
 * were never in an L1 (a matrix written by columns): no lookup for them. */
static cml_status l1_store(cml_cache_sim *s, unsigned sm, uint64_t sector, int whole,
                           int allocate, uint32_t x2)
{
    lru *l = l1_of(s, sm);
    const uint64_t tag = sector >> 2;
    const uint8_t bit = (uint8_t)(1u << (sector & 3u));
    const int absent = l1_filter(s) && !(s->l2[0].seen[x2] & SEEN_IN_L1);
    uint32_t x = absent ? NIL : lru_find(l, tag);
    if (x == NIL) {
        if (!(whole && allocate))
            return CML_OK;
        cml_status rc = l1_take_line(s, l, tag, x2, &x);
        if (rc != CML_OK)
            return rc;
    } else {
        lru_touch(l, x);
    }
    if (whole)
        l->valid[x] |= bit;
    return CML_OK;
}

/* ---- instructions --------------------------------------------------------- */

cml_status cml_cache_sim_access(cml_cache_sim *s, unsigned sm, uint64_t warp,
                                const cml_access *a)
{
    if (!s || !a || sm >= s->cfg.sm_count || (unsigned)a->space >= (unsigned)CML_SPACE_COUNT ||
        (unsigned)a->op >= (unsigned)CML_OP_COUNT ||
        (unsigned)a->cache >= (unsigned)CML_CACHE_COUNT ||
        (a->width != 1 && a->width != 2 && a->width != 4 && a->width != 8 && a->width != 16))
        return CML_EINVAL;
    if (a->space == CML_SPACE_CONSTANT && a->op != CML_OP_LOAD)
        return CML_EINVAL;
    if (a->active == 0 || a->space == CML_SPACE_SHARED || a->space == CML_SPACE_CONSTANT)
        return CML_OK;
    /* The pooled extreme: every SM's requests through SM 0's L1 and merge
     * marks (cache.h, l1_pooled). */
    if (s->cfg.l1_pooled)
        sm = 0;
    cml_sectors v;
    cml_status rc = cml_sectors_of(a, warp, &v);
    if (rc != CML_OK)
        return rc;
    const int local = a->space == CML_SPACE_LOCAL;
    for (unsigned i = 0; i < v.n && rc == CML_OK; i++) {
        const int merge = s->cfg.l1_merge != 0;
        if (a->op == CML_OP_STORE) {
            s->st.store_sectors++;
            const int merged = merge && l1_asked(s, sm, v.sec[i], 1);
            s->st.merged_stores += (uint64_t)merged;
            uint32_t x2 = NIL;
            rc = l2_write(s, sm, v.sec[i], v.mask[i], !merged, &x2);
            if (rc == CML_OK && merge && !merged)
                rc = l1_ask(s, sm, v.sec[i], 1, x2);
            if (rc == CML_OK)
                rc = l1_store(s, sm, v.sec[i], v.mask[i] == FULL_SECTOR,
                              local || a->cache == CML_CACHE_CA, x2);
            continue;
        }
        s->st.load_sectors++;
        /* .cg bypasses L1 and drops what L1 held of the line (l1_drop);
         * the copy engine's reads never enter it. A .cs load looks L1 up
         * and fills it (l1_load: evict-first). */
        if (!local && (a->cache == CML_CACHE_CG || a->cache == CML_CACHE_BULK)) {
            const int drops = a->cache == CML_CACHE_CG;
            if (merge && l1_asked(s, sm, v.sec[i], 0)) {
                s->st.merged_loads++;
                if (drops)
                    l1_drop(s, sm, v.sec[i], NIL);
                continue;
            }
            s->tot.l1_miss_sectors++;
            uint32_t x2 = NIL;
            rc = l2_read(s, sm, v.sec[i], &x2);
            if (rc == CML_OK && drops)
                l1_drop(s, sm, v.sec[i], x2);
            if (rc == CML_OK && merge)
                rc = l1_ask(s, sm, v.sec[i], 0, x2);
            continue;
        }
        int hit = 0;
        const int cs = !local && a->cache == CML_CACHE_CS;
        rc = l1_load(s, sm, v.sec[i], !cs, &hit);
        if (rc == CML_OK && cs && !hit && s->cfg.l2_forget_cs)
            l2_forget(s, sm, v.sec[i]);
        if (local)
            s->tot.local_hit_sectors += (uint64_t)hit;
        else if (hit)
            s->tot.l1_hit_sectors++;
        else
            s->tot.l1_miss_sectors++;
    }
    return rc;
}
