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
 * The pass runs every thread of the grid once (no cache is simulated), so
 * only sampled grids of at most SPAN_INS warp instructions get one (2^20
 * made the model 8x slower over the experiments' defaults, 2^18 the tour
 * 1.6x, and the tests under ASan time out; 2^17: 1.3x): larger ones are mostly the footprint=dram sizes,
 * whose arrays never fit; pitch2d's byte rows at an H200's L2 footprint
 * (about 2^20) go without, their sampled lower bound 2.5% high. Where the loads
 * and the stores touch apart, a second pass counts the sectors and
 * granules the loads touch exactly: the compulsory DRAM reads, the lower
 * bound of DRAM reads (cache_bounds.c), exact where the sampled run's
 * rates round it up (pitch2d's byte rows: 2.5%).
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"
#include "model/trace_hook.h"

#include <stdlib.h>
#include <string.h>

#define SPAN_INS (UINT64_C(1) << 17)
/* The hulls are rounded out to the largest DRAM granule: an upper bound of
 * the granules (32 or 64 bytes) a read can fetch. */
#define SPAN_ALIGN UINT64_C(64)

typedef struct hull {
    uint64_t lo, hi; /* bytes [lo, hi); lo > hi: none seen */
} hull;

typedef struct span_pass {
    hull h[CML_MAX_SITES][CML_OP_COUNT];
    int other; /* a local or bulk access: addresses the hulls cannot bound */
} span_pass;

/* The second pass: a bit per 32-byte sector of the load hulls' union (its
 * disjoint intervals, in address order, with the bits before each). */
#define SPAN_MAX_SECTOR_BITS (UINT64_C(1) << 28)
typedef struct sector_map {
    hull iv[CML_MAX_SITES];
    uint64_t first[CML_MAX_SITES]; /* bit of iv[i].lo */
    size_t n;
    uint8_t *bits;
} sector_map;

static cml_status on_span(void *user, uint64_t block, unsigned warp, unsigned site,
                          const cml_access *a)
{
    span_pass *p = user;
    (void)block;
    (void)warp;
    if (a->space == CML_SPACE_SHARED || a->space == CML_SPACE_CONSTANT)
        return CML_OK; /* never reach L2 */
    if (a->space != CML_SPACE_GLOBAL || a->cache == CML_CACHE_BULK || site >= CML_MAX_SITES ||
        a->op >= CML_OP_COUNT) {
        p->other = 1;
        return CML_OK;
    }
    hull *h = &p->h[site][a->op];
    for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
        if (!(a->active >> l & 1u))
            continue;
        const uint64_t x = a->addr[l], end = x + a->width;
        if (x < h->lo)
            h->lo = x;
        if (end > h->hi)
            h->hi = end;
    }
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

static cml_status on_load_sector(void *user, uint64_t block, unsigned warp, unsigned site,
                                 const cml_access *a)
{
    sector_map *m = user;
    (void)block;
    (void)warp;
    (void)site;
    if (a->space != CML_SPACE_GLOBAL || a->op != CML_OP_LOAD)
        return CML_OK;
    for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
        if (!(a->active >> l & 1u))
            continue;
        /* A lane's bytes lie in one hull (it was built from them). */
        const uint64_t x = a->addr[l], last = x + a->width - 1u;
        size_t i = 0;
        while (i < m->n && !(m->iv[i].lo <= x && x < m->iv[i].hi))
            i++;
        if (i == m->n)
            continue;
        for (uint64_t sec = x / CML_SECTOR_BYTES; sec <= last / CML_SECTOR_BYTES; sec++) {
            const uint64_t b = m->first[i] + sec - m->iv[i].lo / CML_SECTOR_BYTES;
            m->bits[b >> 3] |= (uint8_t)(1u << (b & 7u));
        }
    }
    return CML_OK;
}

/* The distinct sectors and 64-byte granules the loads touch: a second pass
 * marking them in a bitmap over the load hulls (skipped, leaving
 * granules_known 0, when the hulls span more than SPAN_MAX_SECTOR_BITS). */
static cml_status count_load_sectors(const span_pass *p, cml_dim3 grid, cml_dim3 block,
                                     cml_thread_fn fn, const void *args, cml_kernel_span *out)
{
    sector_map m;
    memset(&m, 0, sizeof m);
    hull v[CML_MAX_SITES * CML_OP_COUNT];
    const size_t n = union_of(p, CML_OP_LOAD, CML_OP_LOAD, v);
    uint64_t bits = 0;
    for (size_t i = 0; i < n && i < CML_MAX_SITES; i++) {
        m.iv[i] = v[i];
        m.first[i] = bits;
        bits += (v[i].hi - v[i].lo) / CML_SECTOR_BYTES;
    }
    m.n = n;
    if (n > CML_MAX_SITES || bits > SPAN_MAX_SECTOR_BITS)
        return CML_OK;
    m.bits = calloc(bits / 8u + 1u, 1);
    if (!m.bits)
        return CML_ENOMEM;
    const cml_trace_hook hook = {&m, on_load_sector};
    const uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    cml_status rc = cml_trace_blocks_hooked(grid, block, 0, 1, nblocks, fn, args, &hook);
    if (rc == CML_OK) {
        /* Hulls start on a 64-byte boundary, so bits 2k and 2k+1 of an
         * interval are one granule. */
        uint64_t sectors = 0, granules = 0;
        for (size_t i = 0; i < n; i++) {
            const uint64_t end = i + 1 < n ? m.first[i + 1] : bits;
            for (uint64_t b = m.first[i]; b < end; b += 2) {
                const unsigned two = (m.bits[b >> 3] >> (b & 7u) & 1u) +
                                     (b + 1 < end ? (m.bits[(b + 1) >> 3] >> ((b + 1) & 7u) & 1u)
                                                  : 0u);
                sectors += two;
                granules += two != 0;
            }
        }
        out->granules_known = 1;
        out->load_sectors = sectors;
        out->load_granules = granules;
    }
    free(m.bits);
    return rc;
}

cml_status cml_kernel_span_get(cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                               const void *args, const cml_kernel_traffic *exact,
                               cml_kernel_span *out)
{
    memset(out, 0, sizeof *out);
    if (!exact || exact->bulk.instructions || exact->cls[CML_CLASS_LOCAL_LD].instructions ||
        exact->cls[CML_CLASS_LOCAL_ST].instructions)
        return CML_OK;
    uint64_t ins = 0;
    for (int c = 0; c < CML_CLASS_COUNT; c++)
        ins += exact->cls[c].instructions;
    /* A grid simulated whole needs no cap (its counts are exact). */
    if (ins > SPAN_INS || cml_levels_whole(grid, block, exact))
        return CML_OK;
    span_pass *p = malloc(sizeof *p);
    if (!p)
        return CML_ENOMEM;
    for (unsigned s = 0; s < CML_MAX_SITES; s++)
        for (int op = 0; op < CML_OP_COUNT; op++) {
            p->h[s][op].lo = UINT64_MAX;
            p->h[s][op].hi = 0;
        }
    p->other = 0;
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
        if (out->load_bytes + out->store_bytes == out->all_bytes)
            rc = count_load_sectors(p, grid, block, fn, args, out);
    }
    free(p);
    return rc;
}

uint64_t cml_kernel_span_compulsory(const cml_kernel_span *s, const cml_cache_config *c)
{
    if (!s || !s->known || !s->granules_known)
        return UINT64_MAX;
    return c->dram_granule == 64 ? s->load_granules * 64u : s->load_sectors * CML_SECTOR_BYTES;
}

int cml_kernel_span_fits(const cml_kernel_span *s, const cml_cache_config *c)
{
    /* Two partitions may hold a line twice (a far read's copy). */
    return s && s->known && s->all_bytes * c->l2_partitions <= c->l2_bytes;
}
