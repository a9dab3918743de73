/*
 * A warp instruction's sectors for the cache levels (cache_sectors.h).
 */
#include "model/cache_sectors.h"

#include <string.h>

_Static_assert(SECTOR_SLOTS == 256u, "sector_slot() hashes to 8 bits");
static unsigned sector_slot(uint64_t sec)
{
    return (unsigned)((sec * UINT64_C(0x9E3779B97F4A7C15)) >> 56);
}

/* Where sector `sec` is listed in the table, or the empty slot for it. */
static unsigned find_slot(const cml_sectors *v, uint64_t sec)
{
    unsigned h = sector_slot(sec);
    while (v->slot[h] && v->sec[v->slot[h] - 1u] != sec)
        h = (h + 1u) % SECTOR_SLOTS;
    return h;
}

/* Add the bytes `m` of sector `sec` to the list, which keeps the order in
 * which sectors first appear (the order the levels see them). A lane
 * mostly continues the previous lane's sector (the callers look at that
 * first), or starts one past every sector listed (rows and columns of a
 * matrix, in lane order): while they ascend, a sector above the last
 * cannot be listed yet. Otherwise a small hash table finds it (a linear
 * search cost 32 * 31 / 2 comparisons for a warp touching 32 sectors). */
static void add_sector(cml_sectors *v, uint64_t sec, uint32_t m)
{
    if (v->n && v->sec[v->n - 1u] == sec) {
        v->mask[v->n - 1u] |= m;
        return;
    }
    if (!v->hashed && v->n && sec < v->sec[v->n - 1u]) {
        /* Not ascending any more: list what came before in the table. */
        memset(v->slot, 0, sizeof v->slot);
        for (unsigned i = 0; i < v->n; i++)
            v->slot[find_slot(v, v->sec[i])] = (uint8_t)(i + 1u);
        v->hashed = 1;
    }
    if (v->hashed) {
        const unsigned h = find_slot(v, sec);
        if (v->slot[h]) {
            v->mask[v->slot[h] - 1u] |= m;
            return;
        }
        v->slot[h] = (uint8_t)(v->n + 1u);
    }
    v->sec[v->n] = sec;
    v->mask[v->n] = m;
    v->n++;
}

/* `bytes` bytes (at most 4) at `addr`, within one sector. */
static void add_chunk(cml_sectors *v, uint64_t addr, unsigned bytes)
{
    add_sector(v, addr >> 5, ((1u << bytes) - 1u) << (addr & 31u));
}

/* Local memory: frame offset o of lane l of warp w lies at word-interleaved
 * address base(w) + (floor(o/4)*32 + l)*4 + o%4 (docs/model.md section 7),
 * each warp slot's frames (w: cml_cache_warp_slot, so that blocks running
 * one after another on an SM reuse them) in a region of their own above
 * every global array. */
#define LOCAL_REGION_BITS 37u
static uint64_t local_base(uint64_t warp)
{
    return (UINT64_C(1) << 63) | ((warp & ((UINT64_C(1) << 26) - 1u)) << LOCAL_REGION_BITS);
}

cml_status cml_sectors_of(const cml_access *a, uint64_t warp, cml_sectors *v)
{
    const unsigned w = a->width;
    v->n = 0;
    v->hashed = 0;
    if (a->space == CML_SPACE_GLOBAL && a->active == 0xFFFFFFFFu &&
        a->addr[0] <= UINT64_MAX - 32u * w) {
        /* A coalesced warp, the commonest instruction: lane l at
         * addr[0] + l * w, aligned. It covers [addr[0], addr[0] + 32 w) in
         * lane order, so its sectors ascend and each holds one run of the
         * bytes: no lane needs looking at twice. */
        const uint64_t a0 = a->addr[0];
        uint64_t off = a0 & (w - 1u);
        for (unsigned l = 1; l < CML_WARP_SIZE; l++)
            off |= a->addr[l] ^ (a0 + (uint64_t)l * w);
        if (off == 0) {
            const uint64_t end = a0 + 32u * w;
            for (uint64_t sec = a0 >> 5; sec <= (end - 1u) >> 5; sec++) {
                const uint64_t lo = sec << 5 > a0 ? sec << 5 : a0;
                const uint64_t hi = (sec << 5) + 32u < end ? (sec << 5) + 32u : end;
                const unsigned bytes = (unsigned)(hi - lo);
                v->sec[v->n] = sec;
                v->mask[v->n] = (bytes == 32u ? FULL_SECTOR : ((1u << bytes) - 1u))
                                << (lo & 31u);
                v->n++;
            }
            return CML_OK;
        }
    }
    if (a->space == CML_SPACE_GLOBAL) {
        /* Every lane, the hot loop: its bytes, and the previous lane's
         * sector checked here (w <= 16, so the mask fits). */
        const uint32_t wm = (1u << w) - 1u;
        for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
            if (!((a->active >> l) & 1u))
                continue;
            const uint64_t o = a->addr[l];
            if (o & (w - 1u)) /* w is a power of two (checked by the caller) */
                return CML_EMISALIGNED;
            const uint64_t sec = o >> 5;
            const uint32_t m = wm << (o & 31u);
            if (v->n && v->sec[v->n - 1u] == sec)
                v->mask[v->n - 1u] |= m;
            else
                add_sector(v, sec, m);
        }
        return CML_OK;
    }
    for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
        if (!((a->active >> l) & 1u))
            continue;
        const uint64_t o = a->addr[l];
        if (o & (w - 1u))
            return CML_EMISALIGNED;
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
