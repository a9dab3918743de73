/*
 * Tests of what the cache levels reuse to be fast (docs/model.md 16.4):
 *   - a simulator reset (cml_cache_sim_reset) behaves access by access as a
 *     new one, whatever configuration and accesses it had before;
 *   - cml_trace_levels, which keeps its simulator for the next call, gives a
 *     grid the same figures first, after a larger grid and again, and those
 *     figures are the hand-derived ones of docs/model.md 16.6;
 *   - the block ranges the levels trace (cml_trace_blocks_hooked) issue what
 *     a trace of the whole grid issues for those blocks, in the same order.
 */
#include "cumemlab/cache.h"
#include "model/cache_internal.h"
#include "model/trace_hook.h"
#include "test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KIB UINT64_C(1024)

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ---- a reset simulator against a new one -------------------------------- */

/* A small random configuration: caches that fill, both L2 layouts, the
 * early write-back and the dirty limit on or off. */
static void random_config(cml_cache_config *c)
{
    cml_cache_config_h100(c);
    c->sm_count = 1 + (unsigned)(rnd() % 6);
    c->l1_bytes = 128 * (1 + rnd() % 16);
    c->l2_bytes = 128 * (2 + rnd() % 64);
    c->l2_partitions = 1 + (unsigned)(rnd() % 2);
    c->dram_granule = rnd() % 2 ? 64 : 32;
    c->clean_age_bytes = rnd() % 2 ? 32 * (rnd() % 200) : 0;
    c->partial_age_bytes = rnd() % 2 ? 32 * (rnd() % 200) : 0;
    c->dirty_max_bytes = rnd() % 2 ? 32 * (rnd() % 100) : 0;
}

/* A random warp instruction: coalesced, strided or scattered, global or
 * local, load or store, any width and cache operator. */
static void random_access(cml_access *a)
{
    static const unsigned widths[] = {1, 2, 4, 8, 16};
    memset(a, 0, sizeof *a);
    a->space = rnd() % 5 ? CML_SPACE_GLOBAL : CML_SPACE_LOCAL;
    a->op = rnd() % 3 ? CML_OP_LOAD : CML_OP_STORE;
    a->cache = (cml_cache)(rnd() % CML_CACHE_BULK); /* the LSU's operators */
    a->width = widths[rnd() % 5];
    a->active = rnd() % 4 ? 0xFFFFFFFFu : (uint32_t)rnd() | 1u;
    const uint64_t span = 128 * (1 + rnd() % 256), base = rnd() % span;
    const uint64_t stride = a->width * (1 + rnd() % 40);
    const int pattern = (int)(rnd() % 3);
    for (unsigned l = 0; l < 32; l++) {
        uint64_t o = pattern == 0 ? base + l * a->width
                     : pattern == 1 ? base + l * stride
                                    : rnd() % span;
        o = o % span / a->width * a->width;
        a->addr[l] = a->space == CML_SPACE_GLOBAL ? cml_array_base((unsigned)(rnd() % 2)) + o
                                                  : o % 4096 / a->width * a->width;
    }
}

/* Every figure of both simulators equal. */
static int same_state(const cml_cache_sim *x, const cml_cache_sim *y)
{
    cml_levels lx, ly;
    cml_cache_sim_stats sx, sy;
    cml_cache_sim_levels(x, &lx);
    cml_cache_sim_levels(y, &ly);
    cml_cache_sim_stats_get(x, &sx);
    cml_cache_sim_stats_get(y, &sy);
    return memcmp(&lx, &ly, sizeof lx) == 0 && memcmp(&sx, &sy, sizeof sx) == 0;
}

static void test_reset_is_new(void)
{
    cml_cache_sim *reused = NULL;
    cml_cache_config c;
    random_config(&c);
    CHECK(cml_cache_sim_new(&c, 256, &reused) == CML_OK);
    int mismatches = 0, rounds_compared = 0;
    for (int round = 0; round < 150; round++) {
        random_config(&c);
        cml_cache_sim *fresh = NULL;
        CHECK(cml_cache_sim_new(&c, 256, &fresh) == CML_OK);
        CHECK(cml_cache_sim_reset(reused, &c, 256) == CML_OK);
        if (rnd() % 4 == 0) {
            cml_cache_sim_skip_footprint(fresh);
            cml_cache_sim_skip_footprint(reused);
        }
        CHECK(same_state(fresh, reused));
        for (int k = 0; k < 300; k++) {
            cml_access a;
            random_access(&a);
            const unsigned sm = (unsigned)(rnd() % c.sm_count);
            const uint64_t warp = rnd() % 64;
            const cml_status r1 = cml_cache_sim_access(fresh, sm, warp, &a);
            const cml_status r2 = cml_cache_sim_access(reused, sm, warp, &a);
            if (r1 != r2 || !same_state(fresh, reused))
                mismatches++;
        }
        rounds_compared++;
        cml_cache_sim_free(fresh);
    }
    CHECK_EQ_I64(mismatches, 0);
    CHECK_EQ_I64(rounds_compared, 150);
    /* A bad configuration is refused and leaves the simulator usable. */
    cml_cache_config bad = c;
    bad.l2_partitions = 3;
    CHECK(cml_cache_sim_reset(reused, &bad, 256) == CML_EINVAL);
    CHECK(cml_cache_sim_reset(NULL, &c, 256) == CML_EINVAL);

    /* After all that, a reset to one SM and a hand-derived stream: 128 warps
     * each loading 32 consecutive floats (one 128-byte line, 4 sectors). Every
     * sector misses L1; L2 reads each 64-byte granule once, so the second
     * sector of each granule hits: 512 L2 reads, 256 hits, 16 KiB of DRAM. */
    cml_cache_config_h100(&c);
    c.sm_count = 1;
    CHECK(cml_cache_sim_reset(reused, &c, 256) == CML_OK);
    for (unsigned w = 0; w < 128; w++) {
        cml_access a;
        memset(&a, 0, sizeof a);
        a.space = CML_SPACE_GLOBAL;
        a.op = CML_OP_LOAD;
        a.cache = CML_CACHE_CA;
        a.width = 4;
        a.active = 0xFFFFFFFFu;
        for (unsigned l = 0; l < 32; l++)
            a.addr[l] = cml_array_base(0) + 128u * w + 4u * l;
        CHECK(cml_cache_sim_access(reused, 0, w, &a) == CML_OK);
    }
    cml_levels lv;
    cml_cache_sim_levels(reused, &lv);
    CHECK_EQ_U64(lv.l1_hit_sectors, 0);
    CHECK_EQ_U64(lv.l1_miss_sectors, 512);
    CHECK_EQ_U64(lv.l2_read_sectors, 512);
    CHECK_EQ_U64(lv.l2_read_hit_sectors, 256);
    CHECK_EQ_U64(lv.dram_read_bytes, 16 * KIB);
    CHECK_EQ_U64(lv.footprint_bytes, 16 * KIB);
    cml_cache_sim_free(reused);
}

/* ---- cml_trace_levels, call after call ----------------------------------- */

/* C[i] = A[i] for i < n. */
static void copy_kernel(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const uint64_t n = *(const uint64_t *)vargs;
    const uint64_t i = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    if (i >= n)
        return;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, cml_array_base(0) + 4 * i);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, cml_array_base(1) + 4 * i);
}

static cml_status levels_of(uint64_t n, cml_levels *out)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    const cml_dim3 grid = {(uint32_t)(n / 256), 1, 1}, block = {256, 1, 1};
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    cml_status st = cml_trace_kernel(CML_RULES_MODERN, grid, block, copy_kernel, &n, &k);
    return st == CML_OK ? cml_trace_levels(&c, grid, block, copy_kernel, &n, &k, out) : st;
}

static void test_levels_call_after_call(void)
{
    /* docs/model.md 16.6: 32768 threads in 128 blocks of 256, C[i] = A[i]. */
    cml_levels first, large, again;
    CHECK(levels_of(32768, &first) == CML_OK);
    CHECK_EQ_U64(first.l1_hit_sectors, 0);
    CHECK_EQ_U64(first.l2_read_sectors, 4096);
    CHECK_EQ_U64(first.l2_write_sectors, 4096);
    CHECK_EQ_U64(first.dram_read_bytes, 128 * KIB);
    CHECK_EQ_U64(first.dram_write_bytes, 0);
    CHECK(!first.sampled);
    /* A sampled grid in between (its simulator is the one reused next). */
    CHECK(levels_of(UINT64_C(1) << 22, &large) == CML_OK);
    CHECK(large.sampled);
    CHECK_EQ_U64(large.l2_write_sectors, (UINT64_C(1) << 22) / 8);
    CHECK(levels_of(32768, &again) == CML_OK);
    CHECK(memcmp(&first, &again, sizeof first) == 0);
    cml_levels large_again;
    CHECK(levels_of(UINT64_C(1) << 22, &large_again) == CML_OK);
    CHECK(memcmp(&large, &large_again, sizeof large) == 0);
}

/* ---- block ranges --------------------------------------------------------- */

/* Two accesses per thread that name the block and thread (a guard leaves
 * some threads of the last blocks idle). */
static void named_kernel(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)vargs;
    const uint64_t b = ((uint64_t)t->bid.z * t->gdim.y + t->bid.y) * t->gdim.x + t->bid.x;
    const uint64_t i = ((uint64_t)t->tid.z * t->bdim.y + t->tid.y) * t->bdim.x + t->tid.x;
    if (b >= 40 && i % 3 == 0)
        return;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 8,
             cml_array_base(0) + 8 * (b * 1000 + i));
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
             cml_array_base(1) + 4 * (i * 64 + b));
}

typedef struct issued {
    uint64_t block;
    unsigned warp;
    cml_access a;
} issued;

typedef struct listener {
    issued *v;
    size_t n, cap;
} listener;

static cml_status listen(void *user, uint64_t block, unsigned warp, unsigned site,
                         const cml_access *a)
{
    (void)site;
    listener *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        issued *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return CML_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n].block = block;
    l->v[l->n].warp = warp;
    l->v[l->n].a = *a;
    l->n++;
    return CML_OK;
}

/* Same instruction: attributes, mask and the active lanes' addresses. */
static int same_access(const cml_access *x, const cml_access *y)
{
    if (x->space != y->space || x->op != y->op || x->cache != y->cache ||
        x->width != y->width || x->active != y->active)
        return 0;
    for (unsigned l = 0; l < 32; l++)
        if (((x->active >> l) & 1u) && x->addr[l] != y->addr[l])
            return 0;
    return 1;
}

static void test_block_ranges(void)
{
    const cml_dim3 grid = {5, 4, 3}, block = {8, 4, 2}; /* 60 blocks of 64 threads */
    listener whole = {NULL, 0, 0};
    cml_trace_hook hook = {&whole, listen};
    CHECK(cml_trace_kernel_hooked(CML_RULES_MODERN, grid, block, named_kernel, NULL, NULL,
                                  &hook) == CML_OK);
    /* 60 blocks of 2 warps, 2 instructions each. */
    CHECK_EQ_U64(whole.n, 60 * 2 * 2);
    static const uint64_t ranges[][3] = {{0, 1, 60}, {2, 4, 15}, {7, 13, 5}, {59, 1, 1},
                                         {3, 0, 4}, {10, 5, 0}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        const uint64_t first = ranges[r][0], stride = ranges[r][1], count = ranges[r][2];
        listener part = {NULL, 0, 0};
        cml_trace_hook ph = {&part, listen};
        CHECK(cml_trace_blocks_hooked(grid, block, first, stride, count, named_kernel, NULL,
                                      &ph) == CML_OK);
        CHECK_EQ_U64(part.n, count * 4);
        /* Block j of the range is real block first + j * stride: its four
         * instructions are the whole trace's for that block, told j. */
        int matches = 0;
        for (size_t k = 0; k < part.n; k++) {
            const uint64_t j = k / 4, real = first + j * stride;
            const issued *w = &whole.v[real * 4 + k % 4];
            matches += part.v[k].block == j && part.v[k].warp == w->warp &&
                       w->block == real && same_access(&part.v[k].a, &w->a);
        }
        CHECK_EQ_U64((uint64_t)matches, part.n);
        free(part.v);
    }
    /* A block past the grid, a missing listener. */
    listener none = {NULL, 0, 0};
    cml_trace_hook nh = {&none, listen};
    CHECK(cml_trace_blocks_hooked(grid, block, 55, 5, 2, named_kernel, NULL, &nh) ==
          CML_EINVAL);
    CHECK(cml_trace_blocks_hooked(grid, block, 60, 1, 1, named_kernel, NULL, &nh) ==
          CML_EINVAL);
    CHECK(cml_trace_blocks_hooked(grid, block, 0, 1, 1, named_kernel, NULL, NULL) ==
          CML_EINVAL);
    CHECK_EQ_U64(none.n, 0);
    free(whole.v);
}

int main(void)
{
    test_reset_is_new();
    test_levels_call_after_call();
    test_block_ranges();
    return cml_test_summary("test_cache_reuse");
}
