/*
 * The cache-level simulator: cml_cache_sim_* (include/cumemlab/cache.h).
 *
 * Each warp instruction is cut into its distinct 32-byte sectors (with the
 * bytes it covers in each), which then go through:
 *   - the L1 of the issuing SM: 128-byte lines with a valid bit per sector,
 *     filled one sector at a time, fully associative, least recently used
 *     line replaced. Loads with .ca and .nc (and local loads) look up and
 *     fill it; .cg and .cs loads bypass it. Stores write through: a store
 *     that covers a whole sector leaves it valid in L1 (allocating the line
 *     for the default write-back path), other stores update what is there.
 *   - L2 (one cache, or two halves): 128-byte lines, per-sector valid, dirty
 *     and partial bits and, for a partially written sector, its byte mask.
 *     A read miss fetches a DRAM granule (one or two sectors); a write needs
 *     no read (write-allocate without fetch); a dirty sector goes back to
 *     DRAM when its line is evicted, when it has aged (clean_age_bytes of
 *     later insertions) or when too much is dirty (dirty_max_bytes), and a
 *     partial one is first merged with a 32-byte DRAM read.
 * docs/model.md ("The cache levels") gives the evidence for each rule.
 *
 * Every cache is fully associative with true LRU: a hash table (open
 * addressing, linear probing, backward-shift deletion) finds a line, a
 * doubly linked list keeps the recency order. Arrays grow with the lines
 * actually used, so a simulator touching little costs little.
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define KIB UINT64_C(1024)
#define FULL_SECTOR 0xFFFFFFFFu

/* ---- one LRU cache of lines ------------------------------------------- */

typedef struct lru {
    uint32_t cap;           /* lines it holds (0: not yet set up)  */
    uint32_t n, alloc;      /* lines in use, array length          */
    uint32_t head, tail;    /* most and least recently used        */
    uint64_t *tag;          /* line address (address >> 7)        */
    uint32_t *prev, *next;
    uint8_t *valid;         /* sectors holding all 32 bytes        */
    /* L2 only (state != 0) */
    int state;
    uint8_t *dirty;         /* sectors not yet written back        */
    uint8_t *partial;       /* dirty sectors holding some bytes    */
    uint32_t *bytes;        /* [4 per line] bytes a partial sector holds */
    uint64_t *since;        /* [4 per line] clock when it became dirty    */
    uint32_t *slot;         /* hash table: line index + 1, 0 empty  */
    unsigned hbits;
    uint32_t last;          /* the line found last (the sectors of one
                               instruction mostly share lines): checked first */
} lru;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xFF51AFD7ED558CCD);
    x ^= x >> 33;
    x *= UINT64_C(0xC4CEB9FE1A85EC53);
    x ^= x >> 33;
    return x;
}

static uint32_t home_slot(const lru *l, uint64_t tag)
{
    return (uint32_t)(mix64(tag) >> (64 - l->hbits));
}

static void lru_free(lru *l)
{
    free(l->tag);
    free(l->prev);
    free(l->next);
    free(l->valid);
    free(l->dirty);
    free(l->partial);
    free(l->bytes);
    free(l->since);
    free(l->slot);
    memset(l, 0, sizeof *l);
}

/* An empty cache of `cap` lines; nothing is allocated until used. */
static void lru_init(lru *l, uint32_t cap, int state)
{
    memset(l, 0, sizeof *l);
    l->cap = cap;
    l->state = state;
    l->head = l->tail = NIL;
    l->last = NIL;
}

static int grow(void **p, size_t count, size_t size)
{
    void *q = realloc(*p, count * size);
    if (!q)
        return 0;
    *p = q;
    return 1;
}

/* Room for one more line: arrays and hash table. CML_ENOMEM on failure. */
static cml_status lru_reserve(lru *l)
{
    if (l->n == l->alloc) {
        uint32_t a = l->alloc ? l->alloc * 2u : 64u;
        if (a > l->cap)
            a = l->cap;
        if (!grow((void **)&l->tag, a, sizeof *l->tag) ||
            !grow((void **)&l->prev, a, sizeof *l->prev) ||
            !grow((void **)&l->next, a, sizeof *l->next) ||
            !grow((void **)&l->valid, a, sizeof *l->valid))
            return CML_ENOMEM;
        if (l->state && (!grow((void **)&l->dirty, a, sizeof *l->dirty) ||
                         !grow((void **)&l->partial, a, sizeof *l->partial) ||
                         !grow((void **)&l->bytes, (size_t)a * 4u, sizeof *l->bytes) ||
                         !grow((void **)&l->since, (size_t)a * 4u, sizeof *l->since)))
            return CML_ENOMEM;
        l->alloc = a;
    }
    /* Keep the table at most half full. */
    if (l->slot == NULL || (uint64_t)(l->n + 1u) * 2u > (UINT64_C(1) << l->hbits)) {
        unsigned bits = l->slot ? l->hbits + 1u : 7u;
        uint32_t *s = calloc((size_t)1 << bits, sizeof *s);
        if (!s)
            return CML_ENOMEM;
        free(l->slot);
        l->slot = s;
        l->hbits = bits;
        const uint32_t mask = (uint32_t)((UINT64_C(1) << bits) - 1u);
        for (uint32_t i = 0; i < l->n; i++) {
            uint32_t h = home_slot(l, l->tag[i]);
            while (s[h])
                h = (h + 1u) & mask;
            s[h] = i + 1u;
        }
    }
    return CML_OK;
}

static uint32_t lru_find(lru *l, uint64_t tag)
{
    if (l->last < l->n && l->tag[l->last] == tag)
        return l->last;
    if (!l->slot)
        return NIL;
    const uint32_t mask = (uint32_t)((UINT64_C(1) << l->hbits) - 1u);
    for (uint32_t h = home_slot(l, tag); l->slot[h]; h = (h + 1u) & mask)
        if (l->tag[l->slot[h] - 1u] == tag)
            return l->last = l->slot[h] - 1u;
    return NIL;
}

static void hash_insert(lru *l, uint32_t node)
{
    const uint32_t mask = (uint32_t)((UINT64_C(1) << l->hbits) - 1u);
    uint32_t h = home_slot(l, l->tag[node]);
    while (l->slot[h])
        h = (h + 1u) & mask;
    l->slot[h] = node + 1u;
}

/* Remove a present tag: backward-shift deletion keeps every other key
 * reachable from its home slot without tombstones. */
static void hash_remove(lru *l, uint64_t tag)
{
    const uint32_t mask = (uint32_t)((UINT64_C(1) << l->hbits) - 1u);
    uint32_t i = home_slot(l, tag);
    while (l->tag[l->slot[i] - 1u] != tag)
        i = (i + 1u) & mask;
    l->slot[i] = 0;
    for (uint32_t j = (i + 1u) & mask; l->slot[j]; j = (j + 1u) & mask) {
        uint32_t k = home_slot(l, l->tag[l->slot[j] - 1u]);
        /* Move slot j to the hole at i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!stays) {
            l->slot[i] = l->slot[j];
            l->slot[j] = 0;
            i = j;
        }
    }
}

static void list_unlink(lru *l, uint32_t x)
{
    if (l->prev[x] != NIL)
        l->next[l->prev[x]] = l->next[x];
    else
        l->head = l->next[x];
    if (l->next[x] != NIL)
        l->prev[l->next[x]] = l->prev[x];
    else
        l->tail = l->prev[x];
}

static void list_push_head(lru *l, uint32_t x)
{
    l->prev[x] = NIL;
    l->next[x] = l->head;
    if (l->head != NIL)
        l->prev[l->head] = x;
    l->head = x;
    if (l->tail == NIL)
        l->tail = x;
}

static void lru_touch(lru *l, uint32_t x)
{
    if (l->head == x)
        return;
    list_unlink(l, x);
    list_push_head(l, x);
}

/* The line a new tag will take: a fresh one while there is room (*victim
 * = 0), else the least recently used (*victim = 1, still holding its old
 * state for the caller to write back). NIL on out of memory. */
static uint32_t lru_claim(lru *l, int *victim)
{
    if (l->n < l->cap) {
        if (lru_reserve(l) != CML_OK)
            return NIL;
        *victim = 0;
        return l->n;
    }
    *victim = 1;
    return l->tail;
}

/* Give line x (from lru_claim) the tag `tag`, empty, most recently used. */
static void lru_take(lru *l, uint32_t x, int victim, uint64_t tag)
{
    if (victim) {
        hash_remove(l, l->tag[x]);
        list_unlink(l, x);
    } else {
        l->n++;
    }
    l->tag[x] = tag;
    l->valid[x] = 0;
    if (l->state) {
        l->dirty[x] = 0;
        l->partial[x] = 0;
    }
    hash_insert(l, x);
    list_push_head(l, x);
}

/* ---- the simulator ----------------------------------------------------- */

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
    /* Lines ever touched in L2, with the sectors touched: the footprint. */
    uint64_t *seen_tag;
    uint8_t *seen_mask;
    unsigned seen_bits;
    size_t seen_n;
    size_t seen_last;       /* slot of the line recorded last */
    cml_levels tot;
    cml_cache_sim_stats st;  /* clock is kept in `clock` above */
    int no_footprint;
};

static const unsigned carveout_kib[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

void cml_cache_config_h100(cml_cache_config *c)
{
    memset(c, 0, sizeof *c);
    c->sm_count = 132;
    c->max_threads_per_sm = 2048;
    c->max_blocks_per_sm = 32;
    c->l1_total_bytes = 256 * KIB;
    c->smem_per_sm = 228 * KIB;
    c->l2_bytes = 50 * KIB * KIB;
    c->l2_partitions = 1;
    c->dram_granule = 64;
    /* Measured (docs/model-evidence.md, the cache levels): the dirty data
     * an H100's L2 still holds when a streaming kernel ends. */
    c->clean_age_bytes = 35 * KIB * KIB;
    c->partial_age_bytes = 12 * KIB * KIB;
    c->dirty_max_bytes = 24 * KIB * KIB;
}

cml_status cml_cache_config_check(const cml_cache_config *c)
{
    if (!c || c->sm_count == 0 || c->sm_count > 65536u || c->max_threads_per_sm == 0 ||
        c->max_blocks_per_sm == 0 || c->l1_total_bytes < CML_LINE_BYTES ||
        c->l2_bytes < CML_LINE_BYTES * 2u || (c->l2_partitions != 1 && c->l2_partitions != 2) ||
        (c->dram_granule != 32 && c->dram_granule != 64) || c->smem_per_sm > c->l1_total_bytes ||
        c->smem_per_block > c->smem_per_sm || c->l1_total_bytes > (UINT64_C(1) << 40) ||
        c->l2_bytes > (UINT64_C(1) << 40) || c->l1_bytes > c->l1_total_bytes)
        return CML_EINVAL;
    return CML_OK;
}

unsigned cml_cache_resident_blocks(const cml_cache_config *c, uint64_t threads)
{
    if (c->resident_blocks)
        return c->resident_blocks;
    const uint64_t whole = threads ? (threads + 31u) / 32u * 32u : 32u;
    uint64_t r = c->max_threads_per_sm / whole;
    if (r > c->max_blocks_per_sm)
        r = c->max_blocks_per_sm;
    /* sm_80 and later keep 1 KiB of shared memory per block for the system. */
    uint64_t by_smem = c->smem_per_sm / (c->smem_per_block + KIB);
    if (by_smem < r)
        r = by_smem;
    return r ? (unsigned)r : 1u;
}

uint64_t cml_cache_l1_bytes(const cml_cache_config *c, uint64_t threads)
{
    uint64_t l1;
    if (c->l1_bytes) {
        l1 = c->l1_bytes;
    } else {
        /* The smallest carve-out (Hopper's steps, capped by the SM's
         * maximum) that holds the resident blocks' shared memory, with the
         * 1 KiB per block the system keeps from sm_80 on: at least 8 KiB,
         * so an H100 kernel without shared memory has 248 KiB of L1. */
        uint64_t need = (c->smem_per_block + KIB) * cml_cache_resident_blocks(c, threads);
        uint64_t carve = c->smem_per_sm;
        for (size_t i = 0; i < sizeof carveout_kib / sizeof carveout_kib[0]; i++) {
            uint64_t step = carveout_kib[i] * KIB;
            if (step >= need && step <= c->smem_per_sm) {
                carve = step;
                break;
            }
        }
        l1 = c->l1_total_bytes > carve ? c->l1_total_bytes - carve : 0;
    }
    l1 = l1 / CML_LINE_BYTES * CML_LINE_BYTES;
    return l1 ? l1 : CML_LINE_BYTES;
}

cml_status cml_cache_sim_new(const cml_cache_config *c, uint64_t threads, cml_cache_sim **out)
{
    if (!out || cml_cache_config_check(c) != CML_OK)
        return CML_EINVAL;
    *out = NULL;
    cml_cache_sim *s = calloc(1, sizeof *s);
    if (!s)
        return CML_ENOMEM;
    s->cfg = *c;
    s->l1 = calloc(c->sm_count, sizeof *s->l1);
    if (!s->l1) {
        free(s);
        return CML_ENOMEM;
    }
    const uint64_t l1 = cml_cache_l1_bytes(c, threads);
    s->l1_lines = (uint32_t)(l1 / CML_LINE_BYTES);
    s->parts = c->l2_partitions;
    const uint64_t lines = c->l2_bytes / CML_LINE_BYTES / s->parts;
    for (unsigned p = 0; p < s->parts; p++)
        lru_init(&s->l2[p], lines > UINT32_MAX - 1u ? UINT32_MAX - 1u : (uint32_t)lines, 1);
    s->age[0] = c->clean_age_bytes / CML_SECTOR_BYTES;
    s->age[1] = (c->partial_age_bytes ? c->partial_age_bytes : c->clean_age_bytes) /
                CML_SECTOR_BYTES;
    s->dirty_max = c->dirty_max_bytes / CML_SECTOR_BYTES;
    s->tot.resident_blocks = cml_cache_resident_blocks(c, threads);
    s->tot.l1_bytes = l1;
    *out = s;
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
}

/* ---- footprint ---------------------------------------------------------- */

static cml_status seen_add(cml_cache_sim *s, uint64_t line, unsigned sector)
{
    if (!s->seen_tag || (s->seen_n + 1u) * 2u > ((size_t)1 << s->seen_bits)) {
        unsigned bits = s->seen_tag ? s->seen_bits + 1u : 10u;
        size_t size = (size_t)1 << bits;
        uint64_t *t = malloc(size * sizeof *t);
        uint8_t *m = calloc(size, 1);
        if (!t || !m) {
            free(t);
            free(m);
            return CML_ENOMEM;
        }
        for (size_t i = 0; s->seen_tag && i < ((size_t)1 << s->seen_bits); i++) {
            if (!s->seen_mask[i])
                continue;
            size_t h = (size_t)(mix64(s->seen_tag[i]) >> (64 - bits));
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
        s->seen_last = 0;
    }
    const size_t mask = ((size_t)1 << s->seen_bits) - 1u;
    size_t h = s->seen_last;
    if (!(s->seen_mask[h] && s->seen_tag[h] == line)) {
        h = (size_t)(mix64(line) >> (64 - s->seen_bits));
        while (s->seen_mask[h] && s->seen_tag[h] != line)
            h = (h + 1u) & mask;
        s->seen_last = h;
    }
    if (!s->seen_mask[h]) {
        s->seen_tag[h] = line;
        s->seen_n++;
    }
    /* Bit 7 marks the slot used even before a sector is recorded. */
    uint8_t bit = (uint8_t)(1u << sector);
    if (!(s->seen_mask[h] & bit))
        s->tot.footprint_bytes += CML_SECTOR_BYTES;
    s->seen_mask[h] |= (uint8_t)(bit | 0x80u);
    return CML_OK;
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

/* Line `tag` in partition p, brought in (empty) if absent; NIL on ENOMEM. */
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
    if (victim)
        l2_evict(s, l, x);
    lru_take(l, x, victim, tag);
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
    for (size_t i = 0; i < r->len; i++) {
        const dirty_entry *e = &r->e[(r->head + i) % r->cap];
        if (!compact || entry_live(s, k, e))
            n[w++] = *e;
    }
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
    r->e[(r->head + r->len) % r->cap] = e;
    r->len++;
    return CML_OK;
}

static void ring_pop(ring *r)
{
    r->head = (r->head + 1u) % r->cap;
    r->len--;
}

/* The early write-back an H100 shows: a dirty sector goes back to DRAM
 * once it has aged (whole and partial sectors on horizons of their own),
 * and the oldest go while too much is dirty. */
static void clean(cml_cache_sim *s)
{
    for (;;) {
        const dirty_entry *head[2] = {NULL, NULL};
        for (unsigned k = 0; k < 2; k++) {
            ring *r = &s->q[k];
            while (r->len && !entry_live(s, k, &r->e[r->head]))
                ring_pop(r);
            if (r->len)
                head[k] = &r->e[r->head];
        }
        int pick = -1;
        for (unsigned k = 0; k < 2; k++)
            if (head[k] && s->age[k] && s->clock - head[k]->since >= s->age[k])
                pick = (int)k;
        if (pick < 0 && s->dirty_max && s->dirty > s->dirty_max)
            pick = !head[0] ? 1 : !head[1] ? 0 : head[1]->since < head[0]->since ? 1 : 0;
        if (pick < 0 || !head[pick])
            return;
        write_back(s, &s->l2[head[pick]->part], head[pick]->node, head[pick]->sector);
        ring_pop(&s->q[pick]);
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
static cml_status l2_read(cml_cache_sim *s, unsigned sm, uint64_t sector)
{
    const uint64_t tag = sector >> 2;
    const unsigned k = (unsigned)(sector & 3u);
    const uint8_t bit = (uint8_t)(1u << k);
    const unsigned home = home_of(s, tag), near = near_of(s, sm);
    s->tot.l2_read_sectors++;
    if (home != near) {
        /* A far address: a copy in the near half answers first. */
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
    lru *l = &s->l2[home];
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

/* A sector L1TEX writes to L2, `mask` the bytes written. */
static cml_status l2_write(cml_cache_sim *s, unsigned sm, uint64_t sector, uint32_t mask)
{
    const uint64_t tag = sector >> 2;
    const unsigned k = (unsigned)(sector & 3u);
    const uint8_t bit = (uint8_t)(1u << k);
    const unsigned home = home_of(s, tag), near = near_of(s, sm);
    s->tot.l2_write_sectors++;
    if (home != near) {
        /* A copy in the writer's half would go stale: it is dropped. */
        uint32_t c = lru_find(&s->l2[near], tag);
        if (c != NIL)
            s->l2[near].valid[c] &= (uint8_t)~bit;
    }
    uint32_t x = l2_line(s, home, tag);
    if (x == NIL)
        return CML_ENOMEM;
    lru *l = &s->l2[home];
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

/* A load sector through L1: 1 on a hit; else it is read from L2 and filled. */
static cml_status l1_load(cml_cache_sim *s, unsigned sm, uint64_t sector, int *hit)
{
    lru *l = l1_of(s, sm);
    const uint64_t tag = sector >> 2;
    const uint8_t bit = (uint8_t)(1u << (sector & 3u));
    uint32_t x = lru_find(l, tag);
    if (x != NIL && (l->valid[x] & bit)) {
        lru_touch(l, x);
        *hit = 1;
        return CML_OK;
    }
    *hit = 0;
    cml_status rc = l2_read(s, sm, sector);
    if (rc != CML_OK)
        return rc;
    if (x == NIL) {
        int victim = 0;
        x = lru_claim(l, &victim);
        if (x == NIL)
            return CML_ENOMEM;
        lru_take(l, x, victim, tag); /* L1 is write-through: nothing to write back */
    } else {
        lru_touch(l, x);
    }
    l->valid[x] |= bit;
    return CML_OK;
}

/* A store sector in L1: a whole sector stored through the default path is
 * held afterwards (allocating its line); other stores update what is held. */
static cml_status l1_store(cml_cache_sim *s, unsigned sm, uint64_t sector, int whole,
                           int allocate)
{
    lru *l = l1_of(s, sm);
    const uint64_t tag = sector >> 2;
    const uint8_t bit = (uint8_t)(1u << (sector & 3u));
    uint32_t x = lru_find(l, tag);
    if (x == NIL) {
        if (!(whole && allocate))
            return CML_OK;
        int victim = 0;
        x = lru_claim(l, &victim);
        if (x == NIL)
            return CML_ENOMEM;
        lru_take(l, x, victim, tag);
    } else {
        lru_touch(l, x);
    }
    if (whole)
        l->valid[x] |= bit;
    return CML_OK;
}

/* ---- instructions --------------------------------------------------------- */

#define MAX_SECTORS (4u * CML_WARP_SIZE)

typedef struct sectors {
    unsigned n;
    uint64_t sec[MAX_SECTORS];
    uint32_t mask[MAX_SECTORS]; /* bytes of the sector the instruction covers */
} sectors;

static void add_chunk(sectors *v, uint64_t addr, unsigned bytes)
{
    const uint64_t sec = addr >> 5;
    const uint32_t m = (bytes >= 32u ? FULL_SECTOR : ((1u << bytes) - 1u)) << (addr & 31u);
    if (v->n && v->sec[v->n - 1u] == sec) {
        v->mask[v->n - 1u] |= m;
        return;
    }
    for (unsigned i = 0; i + 1u < v->n; i++) {
        if (v->sec[i] == sec) {
            v->mask[i] |= m;
            return;
        }
    }
    v->sec[v->n] = sec;
    v->mask[v->n] = m;
    v->n++;
}

/* Local memory: frame offset o of lane l of warp w lies at word-interleaved
 * address base(w) + (floor(o/4)*32 + l)*4 + o%4 (docs/model.md section 7),
 * each warp's frames in a region of their own above every global array. */
#define LOCAL_REGION_BITS 37u
static uint64_t local_base(uint64_t warp)
{
    return (UINT64_C(1) << 63) | ((warp & ((UINT64_C(1) << 26) - 1u)) << LOCAL_REGION_BITS);
}

static cml_status decompose(const cml_access *a, uint64_t warp, sectors *v)
{
    const unsigned w = a->width;
    v->n = 0;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
        if (!((a->active >> l) & 1u))
            continue;
        const uint64_t o = a->addr[l];
        if (o % w)
            return CML_EMISALIGNED;
        if (a->space == CML_SPACE_GLOBAL) {
            add_chunk(v, o, w);
            continue;
        }
        if (o >= (UINT64_C(1) << 32))
            return CML_EINVAL;
        const uint64_t base = local_base(warp);
        if (w < 4u) {
            add_chunk(v, base + ((o >> 2) * CML_WARP_SIZE + l) * 4u + (o & 3u), w);
        } else {
            for (unsigned j = 0; j < w / 4u; j++)
                add_chunk(v, base + (((o >> 2) + j) * CML_WARP_SIZE + l) * 4u, 4u);
        }
    }
    return CML_OK;
}

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
    sectors v;
    cml_status rc = decompose(a, warp, &v);
    if (rc != CML_OK)
        return rc;
    const int local = a->space == CML_SPACE_LOCAL;
    for (unsigned i = 0; i < v.n && rc == CML_OK; i++) {
        if (!s->no_footprint) {
            rc = seen_add(s, v.sec[i] >> 2, (unsigned)(v.sec[i] & 3u));
            if (rc != CML_OK)
                break;
        }
        if (a->op == CML_OP_STORE) {
            s->st.store_sectors++;
            rc = l2_write(s, sm, v.sec[i], v.mask[i]);
            if (rc == CML_OK)
                rc = l1_store(s, sm, v.sec[i], v.mask[i] == FULL_SECTOR,
                              local || a->cache == CML_CACHE_CA);
            continue;
        }
        s->st.load_sectors++;
        if (!local && (a->cache == CML_CACHE_CG || a->cache == CML_CACHE_CS)) {
            s->tot.l1_miss_sectors++;
            rc = l2_read(s, sm, v.sec[i]);
            continue;
        }
        int hit = 0;
        rc = l1_load(s, sm, v.sec[i], &hit);
        if (local)
            s->tot.local_hit_sectors += (uint64_t)hit;
        else if (hit)
            s->tot.l1_hit_sectors++;
        else
            s->tot.l1_miss_sectors++;
    }
    return rc;
}
