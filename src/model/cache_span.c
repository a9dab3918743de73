/*
 * What a sampled grid can touch at most: the hull of the addresses each
 * of its global load and store sites touches over the whole grid
 * (cml_kernel_span, cache_internal.h).
 *
 * Why: a sampled grid's DRAM figures are its first blocks' rates carried
 * to the rest (cache_kernel.c). A kernel whose reuse lies farther apart
 * than the window (a gather over a whole array) meets only cold caches in
 * the window and would read every sector from DRAM, though the arrays fit
 * in L2 and only their first touch misses. The hull of each site's
 * addresses bounds the sectors the kernel can touch, so the rates can be
 * capped by it where everything fits (docs/model.md §16.8).
 *
 * The pass runs every thread of the grid once (no cache is simulated) and,
 * in the same pass, marks the sectors the loads touch in a bitmap per
 * array: where the loads and the stores touch apart, their distinct
 * sectors and granules are the compulsory DRAM reads, the lower bound of
 * DRAM reads (cache_bounds.c), exact where the sampled run's rates round
 * it up (pitch2d's byte rows: 2.5%). Only sampled grids of at most
 * CML_SPAN_INS warp instructions get one (cache_internal.h): the
 * experiments' L2-footprint rows on the cards validated (pitch2d's byte
 * rows at an H200's 30 MiB, about 666000; the hot gather and the stride's
 * permutation, about 157000), not their DRAM-footprint ones, whose arrays
 * never fit; and up to CML_SPAN_INS_WIDE those span_worth picks
 * (cache_bounds.c): windows whose rates did not settle (the hot gather's
 * DRAM-footprint rows, 2^20 on an H100, 1966080 on an H200, still meeting
 * cold table sectors at the window's end), windows fetching a granule for
 * every L2 read sector (a gather over a whole array), and local frames
 * that later waves take back. The model-only tour takes 5.0 s with the first
 * limit, 3.1 s at 2^17 and 18.6 s at 2^20 (the development machine,
 * 2026-11-28, one pass; the hulls and the sectors took a pass each
 * before).
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"
#include "model/trace_hook.h"

#include <stdlib.h>
#include <string.h>

/* The hulls are rounded out to the largest DRAM granule: an upper bound of
 * the granules (32 or 64 bytes) a read can fetch. */
#define SPAN_ALIGN UINT64_C(64)

typedef struct hull {
    uint64_t lo, hi; /* bytes [lo, hi); lo > hi: none seen */
} hull;

/* The loads' sectors, a bit each, per array of the mirrors
 * (cml_array_base: array k at (k + 1) << 40), grown as offsets come; a
 * load outside those arrays, or beyond SPAN_MAX_SECTOR_BITS in all, leaves
 * the count unknown. */
#define SPAN_ARRAYS 64u
#define SPAN_MAX_SECTOR_BITS (UINT64_C(1) << 28)
typedef struct sector_bits {
    uint8_t *bits[SPAN_ARRAYS];
    uint64_t cap[SPAN_ARRAYS]; /* bits allocated */
    uint64_t total;            /* of all arrays */
    int lost;                  /* a load the map could not hold */
} sector_bits;

typedef struct span_pass {
    hull h[CML_MAX_SITES][CML_OP_COUNT];
    int other; /* a copy-engine access: addresses the hulls cannot bound */
    uint64_t local_hi; /* local frame offsets, [0, local_hi) of each thread */
    int local_loads, local_stores;
    int bypass_loads; /* a global load past L1 (.cg) */
    int cs_loads;     /* a global .cs (evict-first) load */
    sector_bits loads;
} span_pass;

/* Mark sector `sec` (an offset / 32) of array k; 0 when out of memory. */
static int mark(sector_bits *m, unsigned k, uint64_t sec)
{
    if (sec >= m->cap[k]) {
        uint64_t cap = m->cap[k] ? m->cap[k] : UINT64_C(1) << 16;
        while (cap <= sec)
            cap *= 2u;
        if (m->total - m->cap[k] + cap > SPAN_MAX_SECTOR_BITS) {
            m->lost = 1;
            return 1;
        }
        uint8_t *b = realloc(m->bits[k], cap / 8u);
        if (!b)
            return 0;
        memset(b + m->cap[k] / 8u, 0, (cap - m->cap[k]) / 8u);
        m->total += cap - m->cap[k];
        m->bits[k] = b;
        m->cap[k] = cap;
    }
    m->bits[k][sec >> 3] |= (uint8_t)(1u << (sec & 7u));
    return 1;
}

static void bits_free(sector_bits *m)
{
    for (unsigned k = 0; k < SPAN_ARRAYS; k++)
        free(m->bits[k]);
}

/* Every thread's accesses, once: the hull of each site and op, and the
 * sectors the loads touch. */
static cml_status on_span(void *user, uint64_t block, unsigned warp, unsigned site,
                          const cml_access *a)
{
    span_pass *p = user;
    (void)block;
    (void)warp;
    if (a->space == CML_SPACE_SHARED || a->space == CML_SPACE_CONSTANT)
        return CML_OK; /* never reach L2 */
    if (a->space == CML_SPACE_LOCAL && a->cache != CML_CACHE_BULK && a->op < CML_OP_COUNT) {
        /* A thread's frame offsets: the frame a warp slot holds. */
        for (unsigned l = 0; l < CML_WARP_SIZE; l++)
            if (a->active >> l & 1u && a->addr[l] + a->width > p->local_hi)
                p->local_hi = a->addr[l] + a->width;
        p->local_loads |= a->op == CML_OP_LOAD;
        p->local_stores |= a->op == CML_OP_STORE;
        return CML_OK;
    }
    if (a->space != CML_SPACE_GLOBAL || a->cache == CML_CACHE_BULK || site >= CML_MAX_SITES ||
        a->op >= CML_OP_COUNT) {
        p->other = 1;
        return CML_OK;
    }
    hull *h = &p->h[site][a->op];
    const int load = a->op == CML_OP_LOAD;
    p->bypass_loads |= load && a->cache == CML_CACHE_CG;
    p->cs_loads |= load && a->cache == CML_CACHE_CS;
    uint64_t lo = UINT64_MAX, hi = 0;
    /* Lanes of a coalesced access share sectors: a sector marked by the
     * lane before is not marked again. */
    uint64_t last = UINT64_MAX;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
        if (!(a->active >> l & 1u))
            continue;
        const uint64_t x = a->addr[l], end = x + a->width;
        lo = x < lo ? x : lo;
        hi = end > hi ? end : hi;
        if (!load || p->loads.lost)
            continue;
        const uint64_t first = x / CML_SECTOR_BYTES, final = (end - 1u) / CML_SECTOR_BYTES;
        if (first == last && final == last)
            continue;
        const uint64_t k = (x >> 40) - 1u;
        if ((x >> 40) == 0 || k >= SPAN_ARRAYS || ((end - 1u) >> 40) != (x >> 40)) {
            p->loads.lost = 1;
            continue;
        }
        const uint64_t base = (k + 1u) << 40 >> 5; /* the array's first sector */
        for (uint64_t sec = first; sec <= final; sec++)
            if (!mark(&p->loads, (unsigned)k, sec - base))
                return CML_ENOMEM;
        last = final;
    }
    if (lo < h->lo)
        h->lo = lo;
    if (hi > h->hi)
        h->hi = hi;
    return CML_OK;
}

static int by_lo(const void *x, const void *y)
{
    const hull *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The union of the hulls of ops [op0, op1] over every site, each rounded
 * out to SPAN_ALIGN, as disjoint intervals in address order into out (room
 * for CML_MAX_SITES * CML_OP_COUNT); returns how many. */
static size_t union_of(const span_pass *p, int op0, int op1, hull *out)
{
    hull v[CML_MAX_SITES * CML_OP_COUNT];
    size_t n = 0;
    for (unsigned s = 0; s < CML_MAX_SITES; s++)
        for (int op = op0; op <= op1; op++)
            if (p->h[s][op].lo < p->h[s][op].hi) {
                v[n].lo = p->h[s][op].lo / SPAN_ALIGN * SPAN_ALIGN;
                v[n].hi = (p->h[s][op].hi + SPAN_ALIGN - 1u) / SPAN_ALIGN * SPAN_ALIGN;
                n++;
            }
    qsort(v, n, sizeof v[0], by_lo);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && v[i].lo <= out[m - 1].hi) {
            if (v[i].hi > out[m - 1].hi)
                out[m - 1].hi = v[i].hi;
            continue;
        }
        out[m++] = v[i];
    }
    return m;
}

/* Bytes of that union. */
static uint64_t union_bytes(const span_pass *p, int op0, int op1)
{
    hull v[CML_MAX_SITES * CML_OP_COUNT];
    const size_t n = union_of(p, op0, op1, v);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].hi - v[i].lo;
    return total;
}

/* The distinct sectors and 64-byte granules of the loads' map (arrays
 * start on 2^40, so bits 2g and 2g + 1 are granule g). */
static void count_load_sectors(const sector_bits *m, cml_kernel_span *out)
{
    uint64_t sectors = 0, granules = 0;
    for (unsigned k = 0; k < SPAN_ARRAYS; k++)
        for (uint64_t i = 0; i < m->cap[k] / 8u; i++) {
            const unsigned b = m->bits[k][i];
            for (unsigned g = 0; g < 8u; g += 2u) {
                const unsigned two = (b >> g & 1u) + (b >> (g + 1u) & 1u);
                sectors += two;
                granules += two != 0;
            }
        }
    out->granules_known = 1;
    out->load_sectors = sectors;
    out->load_granules = granules;
}

cml_status cml_kernel_span_get(cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                               const void *args, const cml_kernel_traffic *exact,
                               uint64_t max_ins, cml_kernel_span *out)
{
    memset(out, 0, sizeof *out);
    if (!exact || exact->bulk.instructions)
        return CML_OK;
    uint64_t ins = 0;
    for (int c = 0; c < CML_CLASS_COUNT; c++)
        ins += exact->cls[c].instructions;
    /* A grid simulated whole needs no cap (its counts are exact). */
    if (ins > max_ins || cml_levels_whole(grid, block, exact))
        return CML_OK;
    span_pass *p = calloc(1, sizeof *p);
    if (!p)
        return CML_ENOMEM;
    for (unsigned s = 0; s < CML_MAX_SITES; s++)
        for (int op = 0; op < CML_OP_COUNT; op++) {
            p->h[s][op].lo = UINT64_MAX;
            p->h[s][op].hi = 0;
        }
    const cml_trace_hook hook = {p, on_span};
    const uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    cml_status rc = cml_trace_blocks_hooked(grid, block, 0, 1, nblocks, fn, args, &hook);
    if (rc == CML_OK && !p->other) {
        out->known = 1;
        out->load_bytes = union_bytes(p, CML_OP_LOAD, CML_OP_LOAD);
        out->store_bytes = union_bytes(p, CML_OP_STORE, CML_OP_STORE);
        out->all_bytes = union_bytes(p, CML_OP_LOAD, CML_OP_STORE);
        /* A load of what the kernel stored may be served by L2 (no DRAM
         * read): only loads apart from every store are compulsory. */
        if (out->load_bytes + out->store_bytes == out->all_bytes && !p->loads.lost)
            count_load_sectors(&p->loads, out);
        /* Word-interleaved (cache_sectors.c): a frame word of 32 lanes is
         * 128 bytes, so a warp's frame is 32 times the thread's, in words. */
        out->local_warp_bytes = (p->local_hi + 3u) / 4u * 4u * CML_WARP_SIZE;
        out->local_loads = p->local_loads;
        out->local_stores = p->local_stores;
        out->bypass_loads = p->bypass_loads;
        out->cs_loads = p->cs_loads;
    }
    bits_free(&p->loads);
    free(p);
    return rc;
}

uint64_t cml_kernel_span_compulsory(const cml_kernel_span *s, const cml_cache_config *c)
{
    if (!s || !s->known || !s->granules_known)
        return UINT64_MAX;
    return c->dram_granule == 64 ? s->load_granules * 64u : s->load_sectors * CML_SECTOR_BYTES;
}

uint64_t cml_kernel_span_local(const cml_kernel_span *s, uint64_t warps, uint64_t slots)
{
    if (!s || !s->known)
        return 0;
    return s->local_warp_bytes * (warps < slots ? warps : slots);
}

int cml_kernel_span_fits(const cml_kernel_span *s, const cml_cache_config *c, uint64_t local)
{
    /* Two partitions may hold a line twice (a far read's copy). An L2
     * that gives up what .cs loads read (l2_forget_cs) evicts with room
     * to spare. */
    return s && s->known && !(c->l2_forget_cs && s->cs_loads) &&
           (s->all_bytes + local) * c->l2_partitions <= c->l2_bytes;
}
