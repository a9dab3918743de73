/*
 * Inside the cache-level simulator (cache_sim.c, and cache_sim_life.c for
 * setting caches up and freeing them): one cache
 * of 128-byte lines, fully associative with true LRU. A hash table (open
 * addressing, linear probing, backward-shift deletion) finds a line, a
 * doubly linked list keeps the recency order. Arrays grow with the lines
 * actually used, so a cache touching little costs little, and a cache
 * emptied for reuse (lru_clear) keeps them. Static inline functions in a
 * header: they are the simulator's inner loop and must inline there.
 */
#ifndef CML_MODEL_CACHE_LRU_H
#define CML_MODEL_CACHE_LRU_H

#include "cumemlab/model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

typedef struct lru {
    uint32_t cap;           /* lines it holds (0: not yet set up)  */
    uint32_t n, alloc;      /* lines in use, array length          */
    uint32_t head, tail;    /* most and least recently used (listed) */
    uint64_t *tag;          /* line address (address >> 7)        */
    /* The recency order. Until the cache is full nobody asks for it, and a
     * use only stamps the line (stamp[x] = ++now); the first line the cache
     * must give up lists the lines by stamp (lru_list), and from then on
     * the doubly linked list prev/next keeps the order. Moving a line to
     * the head of the list, for every sector, was a tenth of a large
     * grid's time; most caches of a sample never fill. */
    int listed;
    uint64_t now;
    uint64_t *stamp;
    uint32_t *prev, *next;
    uint8_t *valid;         /* sectors holding all 32 bytes        */
    /* L1 only (state == 0): the sectors the SM asked for past L1 while the
     * line was held, for the l1_merge extreme (cache.h): low 4 bits read
     * by loads that bypass L1, high 4 bits stored. */
    uint8_t *asked;
    /* L2 only (state != 0) */
    int state;
    uint8_t *dirty;         /* sectors not yet written back        */
    uint8_t *partial;       /* dirty sectors holding some bytes    */
    uint32_t *bytes;        /* [4 per line] bytes a partial sector holds */
    uint64_t *since;        /* [4 per line] clock when it became dirty    */
    uint8_t *seen;          /* sectors ever touched (the footprint), for the
                               lines of their home partition               */
    uint32_t *slot;         /* hash table: line index + 1, 0 empty  */
    unsigned hbits;         /* table of 2^hbits slots; 0: none set up yet */
    size_t slot_cap;        /* slots allocated (a cache reused keeps them) */
    uint32_t last;          /* the line found last (the sectors of one
                               instruction mostly share lines): checked first */
} lru;

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xFF51AFD7ED558CCD);
    x ^= x >> 33;
    x *= UINT64_C(0xC4CEB9FE1A85EC53);
    x ^= x >> 33;
    return x;
}

/* Where the hash tables look first: Fibonacci hashing (two instructions
 * against mix64's eight; strided lines still spread evenly). Placement in
 * a table changes nothing the simulator reports. */
static inline uint64_t fib_hash(uint64_t x)
{
    return x * UINT64_C(0x9E3779B97F4A7C15);
}

static inline uint32_t home_slot(const lru *l, uint64_t tag)
{
    return (uint32_t)(fib_hash(tag) >> (64 - l->hbits));
}

static inline void lru_free(lru *l)
{
    free(l->tag);
    free(l->stamp);
    free(l->prev);
    free(l->next);
    free(l->valid);
    free(l->asked);
    free(l->dirty);
    free(l->partial);
    free(l->bytes);
    free(l->since);
    free(l->seen);
    free(l->slot);
    memset(l, 0, sizeof *l);
}

/* An empty cache of `cap` lines; nothing is allocated until used. */
static inline void lru_init(lru *l, uint32_t cap, int state)
{
    memset(l, 0, sizeof *l);
    l->cap = cap;
    l->state = state;
    l->head = l->tail = NIL;
    l->last = NIL;
}

/* Empty again, `cap` lines, keeping the memory: no line, no hash table
 * (set up, small, by the next lru_reserve), nothing to clear. */
static inline void lru_clear(lru *l, uint32_t cap)
{
    l->cap = cap;
    l->n = 0;
    l->listed = 0;
    l->now = 0;
    l->head = l->tail = NIL;
    l->last = NIL;
    l->hbits = 0;
}

static inline int grow(void **p, size_t count, size_t size)
{
    void *q = realloc(*p, count * size);
    if (!q)
        return 0;
    *p = q;
    return 1;
}

/* Room for one more line: arrays and hash table. CML_ENOMEM on failure. */
static inline cml_status lru_reserve(lru *l)
{
    if (l->n == l->alloc) {
        uint32_t a = l->alloc ? l->alloc * 2u : 64u;
        if (a > l->cap)
            a = l->cap;
        if (!grow((void **)&l->tag, a, sizeof *l->tag) ||
            !grow((void **)&l->stamp, a, sizeof *l->stamp) ||
            !grow((void **)&l->prev, a, sizeof *l->prev) ||
            !grow((void **)&l->next, a, sizeof *l->next) ||
            !grow((void **)&l->valid, a, sizeof *l->valid))
            return CML_ENOMEM;
        if (!l->state && !grow((void **)&l->asked, a, sizeof *l->asked))
            return CML_ENOMEM;
        if (l->state && (!grow((void **)&l->dirty, a, sizeof *l->dirty) ||
                         !grow((void **)&l->partial, a, sizeof *l->partial) ||
                         !grow((void **)&l->bytes, (size_t)a * 4u, sizeof *l->bytes) ||
                         !grow((void **)&l->since, (size_t)a * 4u, sizeof *l->since) ||
                         !grow((void **)&l->seen, a, sizeof *l->seen)))
            return CML_ENOMEM;
        l->alloc = a;
    }
    /* Keep the table at most half full. It is rebuilt from the lines, so
     * a larger one can reuse the memory (of this or an earlier use). */
    if (l->hbits == 0 || (uint64_t)(l->n + 1u) * 2u > (UINT64_C(1) << l->hbits)) {
        const unsigned bits = l->hbits ? l->hbits + 1u : 7u;
        const size_t size = (size_t)1 << bits;
        if (size > l->slot_cap) {
            uint32_t *s = calloc(size, sizeof *s);
            if (!s)
                return CML_ENOMEM;
            free(l->slot);
            l->slot = s;
            l->slot_cap = size;
        } else {
            memset(l->slot, 0, size * sizeof *l->slot);
        }
        uint32_t *s = l->slot;
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

static inline uint32_t lru_find(lru *l, uint64_t tag)
{
    if (l->last < l->n && l->tag[l->last] == tag)
        return l->last;
    if (!l->hbits)
        return NIL;
    const uint32_t mask = (uint32_t)((UINT64_C(1) << l->hbits) - 1u);
    for (uint32_t h = home_slot(l, tag); l->slot[h]; h = (h + 1u) & mask)
        if (l->tag[l->slot[h] - 1u] == tag)
            return l->last = l->slot[h] - 1u;
    return NIL;
}

static inline void hash_insert(lru *l, uint32_t node)
{
    const uint32_t mask = (uint32_t)((UINT64_C(1) << l->hbits) - 1u);
    uint32_t h = home_slot(l, l->tag[node]);
    while (l->slot[h])
        h = (h + 1u) & mask;
    l->slot[h] = node + 1u;
}

/* Remove a present tag: backward-shift deletion keeps every other key
 * reachable from its home slot without tombstones. */
static inline void hash_remove(lru *l, uint64_t tag)
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

static inline void list_unlink(lru *l, uint32_t x)
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

static inline void list_push_head(lru *l, uint32_t x)
{
    l->prev[x] = NIL;
    l->next[x] = l->head;
    if (l->head != NIL)
        l->prev[l->head] = x;
    l->head = x;
    if (l->tail == NIL)
        l->tail = x;
}

static inline void lru_touch(lru *l, uint32_t x)
{
    if (!l->listed) {
        l->stamp[x] = ++l->now;
        return;
    }
    if (l->head == x)
        return;
    list_unlink(l, x);
    list_push_head(l, x);
}

/* The stamped lines as the list they stand for: sorted by stamp (all
 * distinct; a radix sort, a byte at a time, as many bytes as `now` has),
 * the newest the head. CML_ENOMEM if the scratch cannot be allocated. */
static inline cml_status lru_list(lru *l)
{
    const uint32_t n = l->n;
    uint32_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return CML_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        a[i] = i;
    for (unsigned shift = 0; shift < 64 && (l->now >> shift) != 0; shift += 8) {
        size_t count[257] = {0};
        for (uint32_t i = 0; i < n; i++)
            count[((l->stamp[a[i]] >> shift) & 0xFFu) + 1u]++;
        for (unsigned d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; i++)
            b[count[(l->stamp[a[i]] >> shift) & 0xFFu]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    /* a: oldest first. next points to the older line, prev to the newer. */
    for (uint32_t i = 0; i < n; i++) {
        l->next[a[i]] = i > 0 ? a[i - 1] : NIL;
        l->prev[a[i]] = i + 1 < n ? a[i + 1] : NIL;
    }
    l->tail = n ? a[0] : NIL;
    l->head = n ? a[n - 1] : NIL;
    l->listed = 1;
    free(a);
    free(b);
    return CML_OK;
}

/* The line a new tag will take: a fresh one while there is room (*victim
 * = 0), else the least recently used (*victim = 1, still holding its old
 * state for the caller to write back). NIL on out of memory. */
static inline uint32_t lru_claim(lru *l, int *victim)
{
    if (l->n < l->cap) {
        if (lru_reserve(l) != CML_OK)
            return NIL;
        *victim = 0;
        return l->n;
    }
    if (!l->listed && lru_list(l) != CML_OK)
        return NIL;
    *victim = 1;
    return l->tail;
}

/* Give line x (from lru_claim) the tag `tag`, empty, most recently used. */
static inline void lru_take(lru *l, uint32_t x, int victim, uint64_t tag)
{
    if (victim) {
        hash_remove(l, l->tag[x]);
        list_unlink(l, x);
    } else {
        l->n++;
    }
    l->tag[x] = tag;
    l->valid[x] = 0;
    if (!l->state)
        l->asked[x] = 0;
    if (l->state) {
        l->dirty[x] = 0;
        l->partial[x] = 0;
    }
    hash_insert(l, x);
    if (l->listed)
        list_push_head(l, x);
    else
        l->stamp[x] = ++l->now;
}

#endif
