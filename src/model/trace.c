/*
 * The whole-kernel tracer: cml_emit(), cml_trace_kernel() and
 * cml_trace_warps() (chosen warps of a grid, each counted a given number of
 * times: what the exact shortcuts of repeating grids and the samples of the
 * others are built on).
 *
 * A kernel mirror is a C function run once per thread; it calls cml_emit()
 * for every memory access the thread makes. The tracer runs the 32 threads of
 * a warp one after the other, then assembles their emissions into warp
 * instructions the way SIMT hardware issues them: the k-th execution of site s
 * by any lane belongs to warp instruction (s, k), and the lanes that did not
 * execute it are inactive in it. Each instruction goes through
 * cml_model_access() and is added to the traffic class of its space and op.
 *
 * Storage is laid out for the common case. Emission k of lane l goes to
 * ins[k].addr[l] (a cml_access per emission index) and meta[k][l] (site, space,
 * op, cache and width packed in 32 bits). When every lane that emitted at all
 * emitted the same sequence of sites (no divergence), instruction k IS ins[k]
 * with its active mask filled in: checking that costs one comparison per
 * emission, and nothing is copied or searched (warp_fast). Only a divergent
 * warp takes the general matching path (warp_slow). Buffers are allocated
 * once per trace call, the emissions' grown as threads need them and the
 * general path's on its first warp. Mirrors compiled from a kernel body
 * record through the inline cml_emit_inline (model/emitter.h).
 */
#include "cumemlab/model.h"
#include "model/emitter.h"
#include "model/trace_hook.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define WARP CML_WARP_SIZE
/* A divergent warp has at most 32 * CML_MAX_EMITS distinct instructions. */
#define MAX_SLOTS (CML_MAX_EMITS * CML_WARP_SIZE)
/* Emissions per thread the buffers first have room for (they grow). */
#define FIRST_EMITS 16u
/* Keys (site, occurrence) of the general path. */
#define NKEYS (CML_MAX_SITES * CML_MAX_EMITS)
#define NO_SLOT 0xFFFFu

/* Everything one trace call needs; allocated once per call. */
typedef struct tracer {
    cml_emitter e;
    cml_rules rules;
    unsigned count[WARP];              /* emissions per lane of the current warp */
    uint32_t site_meta[CML_MAX_SITES]; /* attributes each site must keep; 0 = unseen */
    cml_kernel_traffic tot;            /* added to *out only on success */
    int traffic;                       /* run the per-instruction model */
    uint64_t weight;                   /* times each instruction counts (cml_trace_warps) */
    const cml_trace_hook *hook;        /* NULL: nobody listens */
    uint64_t block;                    /* linear index of the block being traced */
    unsigned warp;                     /* warp of that block being assembled */
    /* General path (divergent warps). */
    uint16_t *lane_slot;  /* [WARP][CML_MAX_EMITS]: instruction of each emission */
    uint16_t *key_slot;   /* [NKEYS]: instruction of key (site, occurrence)       */
    uint32_t *key_stamp;  /* [NKEYS]: key_slot valid iff == stamp                  */
    uint32_t stamp;
    uint32_t *slot_meta;  /* [MAX_SLOTS] */
    uint32_t *slot_mask;  /* [MAX_SLOTS] lanes taking part */
    uint8_t *slot_lanes;  /* [MAX_SLOTS] popcount of slot_mask */
    uint8_t *slot_heads;  /* [MAX_SLOTS] lanes whose next emission is this slot */
    uint8_t *slot_done;   /* [MAX_SLOTS] */
} tracer;

/*
 * Record one access of the running thread. Never fails loudly: an emission
 * that cannot be recorded (too many, a site >= CML_MAX_SITES, attributes that
 * do not fit the packing) sets a sticky CML_EINVAL that the tracer reports
 * after the warp, and is dropped. Attributes that fit but are invalid (a width
 * of 3, a constant store, an unknown space) are recorded and rejected with
 * CML_EINVAL when the instruction is analysed. A NULL emitter is ignored.
 * Hot (every access of every thread): the checks are one branch.
 */
void cml_emit(cml_emitter *e, unsigned site, cml_space space, cml_op op, cml_cache cache,
              unsigned width, uint64_t addr)
{
    cml_emit_inline(e, site, space, op, cache, width, addr);
}

/* The buffers full (or the emission invalid): twice the room, zeroed as
 * they were allocated, up to CML_MAX_EMITS; beyond that, or for attributes
 * that do not fit, the sticky CML_EINVAL (CML_ENOMEM if memory runs out). */
void cml_emit_slow(cml_emitter *e, unsigned site, cml_space space, cml_op op, cml_cache cache,
                   unsigned width, uint64_t addr)
{
    const unsigned fields = (unsigned)space | (unsigned)op | (unsigned)cache;
    if (e->n >= CML_MAX_EMITS || site >= CML_MAX_SITES || fields > 0xFu || width > 0xFFu) {
        if (e->err == CML_OK)
            e->err = CML_EINVAL;
        return;
    }
    const unsigned cap = e->cap * 2u < CML_MAX_EMITS ? e->cap * 2u : CML_MAX_EMITS;
    uint32_t *meta = realloc(e->meta, (size_t)cap * WARP * sizeof *meta);
    if (meta)
        e->meta = meta;
    cml_access *ins = meta ? realloc(e->ins, (size_t)cap * sizeof *ins) : NULL;
    if (!ins) {
        if (e->err == CML_OK)
            e->err = CML_ENOMEM;
        return;
    }
    e->ins = ins;
    memset(meta + (size_t)e->cap * WARP, 0, (size_t)(cap - e->cap) * WARP * sizeof *meta);
    memset(ins + e->cap, 0, (size_t)(cap - e->cap) * sizeof *ins);
    e->cap = cap;
    cml_emit_inline(e, site, space, op, cache, width, addr);
}

/*
 * Analyse one assembled instruction: `acc` holds its addresses (inactive lanes
 * are ignored), `meta` its attributes, `mask` its lanes. Checks that the site
 * keeps the attributes it had the first time it was seen (a site names one
 * instruction of the kernel's code, so its space/op/cache/width cannot vary).
 */
static cml_status issue(tracer *t, uint32_t meta, uint32_t mask, cml_access *acc)
{
    const unsigned site = meta & 0xFFu;
    if (t->site_meta[site] == 0)
        t->site_meta[site] = meta;
    else if (t->site_meta[site] != meta)
        return CML_EINVAL;
    acc->space = (cml_space)((meta >> 8) & 0xFu);
    acc->op = (cml_op)((meta >> 12) & 0xFu);
    acc->cache = (cml_cache)((meta >> 16) & 0xFu);
    acc->width = (meta >> 20) & 0xFFu;
    acc->active = mask;
    cml_class c = cml_class_of(acc->space, acc->op);
    if (c >= CML_CLASS_COUNT)
        return CML_EINVAL; /* constant store */
    /* The copy engine's reads are no LSU request: a total of their own. */
    cml_traffic *into = acc->cache == CML_CACHE_BULK ? &t->tot.bulk : &t->tot.cls[c];
    if (t->traffic && t->weight == 1) {
        cml_status rc = cml_model_access(t->rules, acc, into);
        if (rc != CML_OK)
            return rc;
    } else if (t->traffic) {
        cml_traffic one;
        memset(&one, 0, sizeof one);
        cml_status rc = cml_model_access(t->rules, acc, &one);
        if (rc != CML_OK)
            return rc;
        cml_traffic_add_scaled(into, &one, t->weight);
    }
    return t->hook ? t->hook->issue(t->hook->user, t->block, t->warp, site, acc) : CML_OK;
}

/*
 * The common case: every lane of the warp's first nl lanes emitted either
 * nothing or the same sequence of attributes. Then instruction k is ins[k]
 * with the emitting lanes active. Sets *handled to false (and issues nothing)
 * when the warp diverged.
 */
static cml_status warp_fast(tracer *t, unsigned nl, bool *handled)
{
    unsigned n = 0;
    uint32_t mask = 0;
    for (unsigned l = 0; l < nl; l++) {
        const unsigned c = t->count[l];
        if (c == 0)
            continue;
        if (n == 0)
            n = c;
        else if (c != n) {
            *handled = false;
            return CML_OK;
        }
        mask |= 1u << l;
    }
    *handled = true;
    if (mask == 0)
        return CML_OK;

    unsigned first = 0;
    while (!((mask >> first) & 1u))
        first++;
    /* Usually every lane emitted (mask = lanes 0..nl-1): a plain comparison
     * of whole rows; otherwise only the emitting lanes are compared. */
    const bool all = mask == (nl == WARP ? 0xFFFFFFFFu : (1u << nl) - 1u);
    uint32_t diff = 0;
    for (unsigned k = 0; k < n; k++) {
        const uint32_t *row = t->e.meta + (size_t)k * WARP;
        const uint32_t m0 = row[first];
        if (all && nl == WARP) {
            for (unsigned l = 0; l < WARP; l++)
                diff |= row[l] ^ m0;
        } else {
            for (unsigned l = 0; l < nl; l++)
                diff |= (row[l] ^ m0) & (0u - ((mask >> l) & 1u));
        }
    }
    if (diff != 0) {
        *handled = false;
        return CML_OK;
    }
    for (unsigned k = 0; k < n; k++) {
        cml_status rc = issue(t, t->e.meta[(size_t)k * WARP + first], mask, &t->e.ins[k]);
        if (rc != CML_OK)
            return rc;
    }
    return CML_OK;
}

/* Issue instruction `s` of a divergent warp: gather each lane's address from
 * the emission its cursor points at (cursor[l] must be that emission). */
static cml_status issue_slot(tracer *t, uint16_t s, const unsigned *cursor)
{
    cml_access acc;
    memset(&acc, 0, sizeof acc);
    const uint32_t mask = t->slot_mask[s];
    for (unsigned l = 0; l < WARP; l++)
        if ((mask >> l) & 1u)
            acc.addr[l] = t->e.ins[cursor[l]].addr[l];
    t->slot_done[s] = 1;
    return issue(t, t->slot_meta[s], mask, &acc);
}

/* The general path's buffers (NULL members are fine; all NULL after). */
static void slow_free(tracer *t)
{
    free(t->lane_slot);
    free(t->key_slot);
    free(t->key_stamp);
    free(t->slot_meta);
    free(t->slot_mask);
    free(t->slot_lanes);
    free(t->slot_heads);
    free(t->slot_done);
    t->lane_slot = NULL;
    t->key_slot = NULL;
    t->key_stamp = NULL;
    t->slot_meta = NULL;
    t->slot_mask = NULL;
    t->slot_lanes = NULL;
    t->slot_heads = NULL;
    t->slot_done = NULL;
}

/* The buffers of the general path, on first use. */
static cml_status slow_buffers(tracer *t)
{
    if (t->lane_slot)
        return CML_OK;
    t->lane_slot = calloc((size_t)WARP * CML_MAX_EMITS, sizeof *t->lane_slot);
    t->key_slot = calloc(NKEYS, sizeof *t->key_slot);
    t->key_stamp = calloc(NKEYS, sizeof *t->key_stamp);
    t->slot_meta = calloc(MAX_SLOTS, sizeof *t->slot_meta);
    t->slot_mask = calloc(MAX_SLOTS, sizeof *t->slot_mask);
    t->slot_lanes = calloc(MAX_SLOTS, 1);
    t->slot_heads = calloc(MAX_SLOTS, 1);
    t->slot_done = calloc(MAX_SLOTS, 1);
    if (!t->lane_slot || !t->key_slot || !t->key_stamp || !t->slot_meta || !t->slot_mask ||
        !t->slot_lanes || !t->slot_heads || !t->slot_done) {
        slow_free(t);
        return CML_ENOMEM;
    }
    return CML_OK;
}

/*
 * A divergent warp. First number the instructions: lane by lane, emission by
 * emission, key (site, occurrence of that site in this lane) -> slot, slots
 * numbered in order of first appearance. Then issue them in an order every
 * lane agrees with (a topological merge of the 32 lane sequences): a slot is
 * ready when it is the next emission of every lane taking part; among ready
 * slots the earliest-numbered goes first. So an instruction executed only by
 * some lanes (an if without else, an extra loop iteration) comes out between
 * the instructions around it, as the hardware issues it. Lane sequences that
 * contradict each other (only possible if a mirror reuses a site number in
 * two places) cannot all be honoured: the rest is issued in slot order.
 */
static cml_status warp_slow(tracer *t, unsigned nl)
{
    cml_status brc = slow_buffers(t);
    if (brc != CML_OK)
        return brc;
    if (++t->stamp == 0) { /* stamps wrapped: forget every key */
        memset(t->key_stamp, 0, (size_t)NKEYS * sizeof *t->key_stamp);
        t->stamp = 1;
    }
    unsigned nslots = 0;
    uint16_t occ[CML_MAX_SITES];
    for (unsigned l = 0; l < nl; l++) {
        memset(occ, 0, sizeof occ);
        for (unsigned j = 0; j < t->count[l]; j++) {
            const uint32_t m = t->e.meta[(size_t)j * WARP + l];
            const unsigned site = m & 0xFFu;
            const size_t key = (size_t)site * CML_MAX_EMITS + occ[site]++;
            if (t->key_stamp[key] != t->stamp) {
                t->key_stamp[key] = t->stamp;
                t->key_slot[key] = (uint16_t)nslots;
                t->slot_meta[nslots] = m;
                t->slot_mask[nslots] = 0;
                t->slot_lanes[nslots] = 0;
                t->slot_heads[nslots] = 0;
                t->slot_done[nslots] = 0;
                nslots++;
            }
            const uint16_t s = t->key_slot[key];
            if (t->slot_meta[s] != m)
                return CML_EINVAL; /* one site, two different accesses */
            t->slot_mask[s] |= 1u << l;
            t->slot_lanes[s]++;
            t->lane_slot[(size_t)l * CML_MAX_EMITS + j] = s;
        }
    }

    unsigned cursor[WARP] = {0};
    for (unsigned l = 0; l < nl; l++)
        if (t->count[l] > 0)
            t->slot_heads[t->lane_slot[(size_t)l * CML_MAX_EMITS]]++;

    for (unsigned issued = 0; issued < nslots; issued++) {
        uint16_t best = NO_SLOT;
        for (unsigned l = 0; l < nl; l++) {
            if (cursor[l] >= t->count[l])
                continue;
            const uint16_t s = t->lane_slot[(size_t)l * CML_MAX_EMITS + cursor[l]];
            if (t->slot_heads[s] == t->slot_lanes[s] && s < best)
                best = s;
        }
        if (best == NO_SLOT)
            goto contradiction;
        cml_status rc = issue_slot(t, best, cursor);
        if (rc != CML_OK)
            return rc;
        const uint32_t mask = t->slot_mask[best];
        for (unsigned l = 0; l < nl; l++) {
            if (!((mask >> l) & 1u))
                continue;
            if (++cursor[l] < t->count[l])
                t->slot_heads[t->lane_slot[(size_t)l * CML_MAX_EMITS + cursor[l]]]++;
        }
    }
    return CML_OK;

contradiction:
    /* Issue what is left in slot order, finding each lane's emission of the
     * slot by search (pathological input only). */
    for (unsigned s = 0; s < nslots; s++) {
        if (t->slot_done[s])
            continue;
        unsigned where[WARP] = {0};
        const uint32_t mask = t->slot_mask[s];
        for (unsigned l = 0; l < nl; l++) {
            if (!((mask >> l) & 1u))
                continue;
            for (unsigned j = 0; j < t->count[l]; j++)
                if (t->lane_slot[(size_t)l * CML_MAX_EMITS + j] == s)
                    where[l] = j;
        }
        cml_status rc = issue_slot(t, (uint16_t)s, where);
        if (rc != CML_OK)
            return rc;
    }
    return CML_OK;
}

/* Release everything the tracer allocated. */
static void tracer_free(tracer *t)
{
    free(t->e.meta);
    free(t->e.ins);
    slow_free(t);
}

/* Allocate the buffers of one trace call (zeroed); CML_ENOMEM on failure.
 * The emissions' grow with the threads' (cml_emit_slow), those of the
 * general path wait for the first divergent warp (slow_buffers): zeroing
 * 350 KB cost more than a small trace (the cache levels trace a grid in
 * dozens of groups of blocks, each a call). */
static cml_status tracer_init(tracer *t, cml_rules rules)
{
    memset(t, 0, sizeof *t);
    t->rules = rules;
    t->e.cap = FIRST_EMITS;
    t->e.meta = calloc((size_t)FIRST_EMITS * WARP, sizeof *t->e.meta);
    t->e.ins = calloc(FIRST_EMITS, sizeof *t->e.ins);
    if (!t->e.meta || !t->e.ins) {
        tracer_free(t);
        return CML_ENOMEM;
    }
    return CML_OK;
}

/* CUDA's launch limits (sm_30 and later): a launch outside them fails on the
 * GPU ("invalid configuration argument"), so a mirror of it is rejected too. */
static bool valid_launch(cml_dim3 grid, cml_dim3 block)
{
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 ||
        block.z == 0)
        return false;
    if (grid.x > 0x7FFFFFFFu || grid.y > 65535u || grid.z > 65535u)
        return false;
    if (block.x > 1024u || block.y > 1024u || block.z > 64u)
        return false;
    return (uint64_t)block.x * block.y * block.z <= 1024u;
}

/*
 * Run the threads of one warp (threads base .. base + nl - 1 of the block
 * th->bid holds; `linear` is what a hook is told it is) and issue its
 * instructions.
 * Threads are numbered x fastest, then y, then z.
 */
static cml_status trace_warp(tracer *t, cml_thread_fn fn, const void *args, cml_thread *th,
                             uint64_t linear, uint32_t base, unsigned nl)
{
    const cml_dim3 block = th->bdim;
    uint32_t tx = base % block.x, ty = base / block.x % block.y,
             tz = base / block.x / block.y;
    t->block = linear;
    t->warp = base / WARP;
    for (unsigned l = 0; l < nl; l++) {
        th->tid.x = tx;
        th->tid.y = ty;
        th->tid.z = tz;
        th->lane = l;
        t->e.lane = l;
        t->e.n = 0;
        fn(th, args, &t->e);
        t->count[l] = t->e.n;
        if (++tx == block.x) { /* next thread: x fastest, then y, z */
            tx = 0;
            if (++ty == block.y) {
                ty = 0;
                tz++;
            }
        }
    }
    if (t->e.err != CML_OK)
        return t->e.err;
    bool handled = false;
    cml_status rc = warp_fast(t, nl, &handled);
    if (rc == CML_OK && !handled)
        rc = warp_slow(t, nl);
    return rc;
}

/* The thread description every warp of a launch starts from: the launch's
 * grid and block, the rest set per block and lane. */
static cml_thread launch_thread(cml_dim3 grid, cml_dim3 block)
{
    cml_thread th;
    memset(&th, 0, sizeof th);
    th.bdim = block;
    th.gdim = grid;
    return th;
}

/* Every warp of the block th->bid (its `linear` number in the trace), the
 * last one partial when the block is not a multiple of 32 threads. */
static cml_status trace_block(tracer *t, cml_thread_fn fn, const void *args, cml_thread *th,
                              uint64_t linear, uint32_t nthreads)
{
    cml_status rc = CML_OK;
    for (uint32_t base = 0; base < nthreads && rc == CML_OK; base += WARP) {
        const unsigned nl = nthreads - base < WARP ? nthreads - base : WARP;
        rc = trace_warp(t, fn, args, th, linear, base, nl);
    }
    return rc;
}

/* A tracer for one call (NULL: out of memory, *rc says so). */
static tracer *tracer_new(cml_rules rules, int traffic, const cml_trace_hook *hook,
                          cml_status *rc)
{
    tracer *t = malloc(sizeof *t);
    *rc = t ? tracer_init(t, rules) : CML_ENOMEM;
    if (*rc != CML_OK) {
        free(t);
        return NULL;
    }
    t->traffic = traffic;
    t->hook = hook;
    t->weight = 1;
    return t;
}

/* Add what the tracer counted to *out (on success only), and free it. */
static cml_status tracer_finish(tracer *t, cml_status rc, cml_kernel_traffic *out)
{
    if (rc == CML_OK && out != NULL) {
        for (unsigned c = 0; c < CML_CLASS_COUNT; c++)
            cml_traffic_add(&out->cls[c], &t->tot.cls[c]);
        cml_traffic_add(&out->bulk, &t->tot.bulk);
    }
    tracer_free(t);
    free(t);
    return rc;
}

/*
 * Trace a whole grid (see model.h). Returns CML_EINVAL for NULL arguments, a
 * bad rule set or a launch CUDA would refuse, CML_ENOMEM, or the first error
 * of an emission or of cml_model_access. *out is only changed on success.
 */
cml_status cml_trace_kernel(cml_rules rules, cml_dim3 grid, cml_dim3 block, cml_thread_fn fn,
                            const void *args, cml_kernel_traffic *out)
{
    if (out == NULL)
        return CML_EINVAL;
    return cml_trace_kernel_hooked(rules, grid, block, fn, args, out, NULL);
}

cml_status cml_trace_kernel_hooked(cml_rules rules, cml_dim3 grid, cml_dim3 block,
                                   cml_thread_fn fn, const void *args, cml_kernel_traffic *out,
                                   const cml_trace_hook *hook)
{
    if (fn == NULL || (out == NULL && hook == NULL) ||
        (unsigned)rules >= (unsigned)CML_RULES_COUNT || !valid_launch(grid, block) ||
        (hook != NULL && hook->issue == NULL))
        return CML_EINVAL;
    cml_status rc;
    tracer *t = tracer_new(rules, out != NULL, hook, &rc);
    if (t == NULL)
        return rc;

    const uint32_t nthreads = block.x * block.y * block.z;
    cml_thread th = launch_thread(grid, block);
    for (uint32_t bz = 0; bz < grid.z && rc == CML_OK; bz++) {
        for (uint32_t by = 0; by < grid.y && rc == CML_OK; by++) {
            for (uint32_t bx = 0; bx < grid.x && rc == CML_OK; bx++) {
                const uint64_t linear = ((uint64_t)bz * grid.y + by) * grid.x + bx;
                const cml_dim3 bid = {bx, by, bz};
                th.bid = bid;
                rc = trace_block(t, fn, args, &th, linear, nthreads);
            }
        }
    }
    return tracer_finish(t, rc, out);
}

cml_status cml_trace_blocks_hooked(cml_dim3 grid, cml_dim3 block, uint64_t first,
                                   uint64_t stride, uint64_t count, cml_thread_fn fn,
                                   const void *args, const cml_trace_hook *hook)
{
    if (fn == NULL || hook == NULL || hook->issue == NULL || !valid_launch(grid, block))
        return CML_EINVAL;
    const uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    /* The last block, first + (count - 1) * stride, inside the grid. */
    if (count > 0 && (first >= nblocks ||
                      (stride && count - 1u > (nblocks - 1u - first) / stride)))
        return CML_EINVAL;
    cml_status rc;
    tracer *t = tracer_new(CML_RULES_MODERN, 0, hook, &rc);
    if (t == NULL)
        return rc;
    const uint32_t nthreads = block.x * block.y * block.z;
    cml_thread th = launch_thread(grid, block);
    for (uint64_t j = 0; j < count && rc == CML_OK; j++) {
        const uint64_t id = first + j * stride;
        const cml_dim3 bid = {(uint32_t)(id % grid.x), (uint32_t)(id / grid.x % grid.y),
                              (uint32_t)(id / grid.x / grid.y)};
        th.bid = bid;
        rc = trace_block(t, fn, args, &th, j, nthreads);
    }
    return tracer_finish(t, rc, NULL);
}

/*
 * Single warps of a grid, each counted `weights[j]` times (see model.h). The
 * warps are traced in the order given; each sees the real block index and
 * grid size, so the sum is exactly the traffic those warps have in the full
 * walk.
 */
cml_status cml_trace_warps(cml_rules rules, cml_dim3 grid, cml_dim3 block, const uint64_t *warps,
                           const uint64_t *weights, size_t count, cml_thread_fn fn,
                           const void *args, cml_kernel_traffic *out)
{
    if (fn == NULL || out == NULL || (warps == NULL && count > 0) ||
        (unsigned)rules >= (unsigned)CML_RULES_COUNT || !valid_launch(grid, block))
        return CML_EINVAL;
    const uint32_t nthreads = block.x * block.y * block.z;
    const uint64_t per_block = (nthreads + WARP - 1u) / WARP;
    const uint64_t nwarps = (uint64_t)grid.x * grid.y * grid.z * per_block;
    for (size_t j = 0; j < count; j++)
        if (warps[j] >= nwarps)
            return CML_EINVAL;
    cml_status rc;
    tracer *t = tracer_new(rules, 1, NULL, &rc);
    if (t == NULL)
        return rc;
    cml_thread th = launch_thread(grid, block);
    for (size_t j = 0; j < count && rc == CML_OK; j++) {
        const uint64_t linear = warps[j] / per_block;
        const uint32_t base = (uint32_t)(warps[j] % per_block) * WARP;
        const cml_dim3 bid = {(uint32_t)(linear % grid.x), (uint32_t)(linear / grid.x % grid.y),
                              (uint32_t)(linear / grid.x / grid.y)};
        th.bid = bid;
        t->weight = weights ? weights[j] : 1u;
        if (t->weight == 0)
            continue;
        const unsigned nl = nthreads - base < WARP ? nthreads - base : WARP;
        rc = trace_warp(t, fn, args, &th, linear, base, nl);
    }
    return tracer_finish(t, rc, out);
}
