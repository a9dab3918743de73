/*
 * Experiment 16, the model side: the C mirror of every kernel in every
 * shape (src/lab/peak.cu), traced thread by thread under both rule sets.
 * Every access is a whole W-byte vector of a coalesced warp, so the model
 * must predict 100% efficiency whatever the shape; what the shapes change
 * (bytes in flight, blocks, hints) is what the measurement shows. The
 * kernels' names, bytes and shapes are the lab's (src/lab/peak_ops.c).
 */
#include <stdlib.h>
#include <string.h>

#include "experiments/peak/peak_internal.h"
#include "gpu/host_fill.h"

unsigned cml_peak_bytes_per_thread(cml_peak_shape shape)
{
    const cml_peak_shape_def *d = cml_peak_shape_at(shape);
    return d ? d->width * d->unroll : 0;
}

/* ------------------------------------------------------------------------ */
/* The mirror                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Sites: the unrolled body (grid-stride main loop, one-shot body) gives
 * each of its U loads and stores its own instruction: x loads 0..7, y loads
 * 8..15, stores 16..23. The grid-stride remainder loop is 24..26, the
 * trailing floats 27..29, the sum's reductions 30..33 and its result 34.
 * The sum's atomics (slot add, ticket, slot exchange) are not loads or
 * stores in the model's vocabulary and are left out: 3 per block plus 64
 * in the last block.
 */
enum { SITE_X = 0, SITE_Y = 8, SITE_Z = 16, SITE_REST = 24, SITE_TAIL = 27, SITE_SUM = 30 };

typedef struct mirror_ctx {
    cml_emitter *e;
    int needs_x, needs_y, writes;
    cml_cache ld, st;
} mirror_ctx;

/* block_sum() of peak.cu: lane 0 of each warp stores its warp's 8-byte sum
 * to shared memory, then lanes of warp 0 below the warp count load them. */
static void mirror_block_sum(const cml_thread *t, cml_emitter *e, unsigned site)
{
    unsigned w = t->tid.x / 32u, lane = t->tid.x % 32u;
    if (lane == 0)
        cml_emit(e, site, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 8, 8u * w);
    if (w == 0 && lane < t->bdim.x / 32u)
        cml_emit(e, site + 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 8, 8u * lane);
}

/* The accesses of one element step of `width` bytes at vector i. */
static void mirror_step(const mirror_ctx *m, unsigned site, unsigned width, uint64_t i)
{
    const uint64_t X = cml_array_base(0), Y = cml_array_base(1), Z = cml_array_base(2);
    if (m->needs_x)
        cml_emit(m->e, site, CML_SPACE_GLOBAL, CML_OP_LOAD, m->ld, width, X + width * i);
    if (m->needs_y)
        cml_emit(m->e, site + 1, CML_SPACE_GLOBAL, CML_OP_LOAD, m->ld, width, Y + width * i);
    if (m->writes)
        cml_emit(m->e, site + 2, CML_SPACE_GLOBAL, CML_OP_STORE, m->st, width, Z + width * i);
}

/* U vectors at idx[0..m) with all loads before the stores, as the kernels
 * issue them. */
static void mirror_body(const mirror_ctx *m, unsigned width, const uint64_t *idx, unsigned count)
{
    const uint64_t X = cml_array_base(0), Y = cml_array_base(1), Z = cml_array_base(2);
    for (unsigned k = 0; m->needs_x && k < count; k++)
        cml_emit(m->e, SITE_X + k, CML_SPACE_GLOBAL, CML_OP_LOAD, m->ld, width, X + width * idx[k]);
    for (unsigned k = 0; m->needs_y && k < count; k++)
        cml_emit(m->e, SITE_Y + k, CML_SPACE_GLOBAL, CML_OP_LOAD, m->ld, width, Y + width * idx[k]);
    for (unsigned k = 0; m->writes && k < count; k++)
        cml_emit(m->e, SITE_Z + k, CML_SPACE_GLOBAL, CML_OP_STORE, m->st, width, Z + width * idx[k]);
}

void cml_peak_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_peak_mirror_args *a = vargs;
    const cml_peak_shape_def *d = cml_peak_shape_at(a->shape);
    if (!d)
        return;
    const unsigned W = d->width, U = d->unroll, N = W / 4;
    mirror_ctx m = {e, a->op != CML_PEAK_FILL, a->op == CML_PEAK_ADD || a->op == CML_PEAK_TRIAD,
                    a->op != CML_PEAK_SUM, d->streaming ? CML_CACHE_CS : CML_CACHE_NC,
                    d->streaming ? CML_CACHE_CS : CML_CACHE_CA};
    const uint64_t nv = a->n / N, gtid = cml_gtid(t);
    uint64_t idx[8];
    if (d->layout == CML_PEAK_GRID_STRIDE) {
        const uint64_t stride = (uint64_t)t->gdim.x * t->bdim.x;
        uint64_t i = gtid;
        for (; i + (U - 1) * stride < nv; i += U * stride) {
            for (unsigned k = 0; k < U; k++)
                idx[k] = i + k * stride;
            mirror_body(&m, W, idx, U);
        }
        for (; i < nv; i += stride)
            mirror_step(&m, SITE_REST, W, i);
        const uint64_t r = nv * N + gtid;
        if (N > 1 && r < a->n)
            mirror_step(&m, SITE_TAIL, 4, r);
    } else {
        const uint64_t base = (uint64_t)t->bid.x * t->bdim.x * U + t->tid.x;
        unsigned count = 0;
        for (unsigned k = 0; k < U; k++) {
            uint64_t i = base + (uint64_t)k * t->bdim.x;
            if (i < nv)
                idx[count++] = i;
        }
        mirror_body(&m, W, idx, count);
        const uint64_t r = nv * N + t->tid.x;
        if (N > 1 && t->bid.x == 0 && r < a->n)
            mirror_step(&m, SITE_TAIL, 4, r);
    }
    if (a->op == CML_PEAK_SUM) {
        /* The block's reduction; the last block (taken here to be the one
         * with the highest index: which block finishes last varies, its
         * accesses do not) reduces the slots again and stores the result. */
        mirror_block_sum(t, e, SITE_SUM);
        if (t->bid.x == t->gdim.x - 1) {
            mirror_block_sum(t, e, SITE_SUM + 2);
            if (t->tid.x == 0)
                cml_emit(e, SITE_SUM + 4, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 8,
                         cml_array_base(4));
        }
    }
}

unsigned cml_peak_model_grid(const cml_plan *plan, cml_peak_shape shape, uint64_t n,
                             unsigned block)
{
    const cml_peak_shape_def *d = cml_peak_shape_at(shape);
    if (!d || block == 0)
        return 1;
    const uint64_t nv = n / (d->width / 4);
    uint64_t g;
    if (d->layout == CML_PEAK_ONE_SHOT) {
        g = cml_div_up(nv, (uint64_t)block * d->unroll);
    } else {
        uint64_t per_sm = cml_exp_threads_per_sm(plan) / block;
        g = (uint64_t)cml_exp_sm_count(plan) * (per_sm ? per_sm : 1);
        uint64_t need = cml_div_up(nv, block);
        if (g > need)
            g = need;
    }
    if (g > 0x7FFFFFFFull)
        g = 0x7FFFFFFFull;
    return (unsigned)(g ? g : 1);
}

/* The largest n the model traces in full: beyond, tracing costs seconds of
 * CPU per variant and tells nothing new (every access is a whole vector of
 * a whole warp), so a larger run is traced at this size and says so. */
#define TRACE_MAX_N ((uint64_t)1 << 22)

/*
 * The traced n is at most TRACE_MAX_N (for every shape, so that their
 * counts compare in one table) and small enough that no grid-stride thread
 * makes more than CML_MAX_EMITS accesses (the tracer's limit); it keeps n's
 * remainder mod 4, so the trailing floats are traced too.
 */
/* The entry of memo for these inputs, or NULL. */
static struct peak_trace_entry *memo_find(cml_peak_trace_memo *memo, cml_peak_op op,
                                          cml_peak_shape shape, unsigned grid, unsigned block,
                                          uint64_t traced_n)
{
    for (size_t i = 0; memo && i < memo->n; i++) {
        struct peak_trace_entry *e = &memo->items[i];
        if (e->op == (int)op && e->shape == (int)shape && e->grid == grid && e->block == block &&
            e->traced_n == traced_n)
            return e;
    }
    return NULL;
}

/* Remember rec's model (best effort: a full memo only traces again). */
static void memo_add(cml_peak_trace_memo *memo, const cml_record *rec, cml_peak_op op,
                     cml_peak_shape shape, unsigned grid, unsigned block, uint64_t traced_n)
{
    if (!memo)
        return;
    if (memo->n == memo->cap) {
        size_t cap = memo->cap ? 2 * memo->cap : 16;
        struct peak_trace_entry *items = realloc(memo->items, cap * sizeof *items);
        if (!items)
            return;
        memo->items = items;
        memo->cap = cap;
    }
    struct peak_trace_entry *e = &memo->items[memo->n++];
    e->op = (int)op;
    e->shape = (int)shape;
    e->grid = grid;
    e->block = block;
    e->traced_n = traced_n;
    e->has_model = rec->has_model;
    e->has_levels = rec->has_levels;
    memcpy(e->model, rec->model, sizeof e->model);
    e->cache = rec->cache;
    e->levels = rec->levels;
    e->sample = rec->sample;
}

void cml_peak_trace_memo_free(cml_peak_trace_memo *memo)
{
    if (!memo)
        return;
    free(memo->items);
    memset(memo, 0, sizeof *memo);
}

static cml_status trace(cml_record *rec, const cml_peak_shape_def *d,
                        const cml_peak_mirror_args *args, unsigned gs_grid, unsigned block);

/* The n the trace of n floats is made at (below). */
static uint64_t traced_n_of(const cml_peak_shape_def *d, cml_peak_op op, uint64_t n,
                            unsigned gs_grid, unsigned block)
{
    uint64_t cap = TRACE_MAX_N;
    if (d->layout == CML_PEAK_GRID_STRIDE) {
        const uint64_t per_vec = (op == CML_PEAK_ADD || op == CML_PEAK_TRIAD) ? 3 : 2;
        const uint64_t max_vecs = (CML_MAX_EMITS - 16) / per_vec; /* per thread */
        const uint64_t fits = max_vecs * gs_grid * block * (d->width / 4);
        if (fits < cap)
            cap = fits;
    }
    return n > cap + 3 ? cap - cap % 4 + n % 4 : n;
}

/* The prefill's work: jobs[i] traced into recs[i], its status in sts[i]. */
typedef struct prefill {
    const cml_peak_trace_job *jobs;
    const uint64_t *traced;
    cml_record *recs;
    cml_status *sts;
} prefill;

static void prefill_part(void *user, size_t part, size_t lo, size_t hi)
{
    (void)part;
    prefill *pf = user;
    for (size_t i = lo; i < hi; i++) {
        const cml_peak_trace_job *j = &pf->jobs[i];
        const cml_peak_mirror_args a = {j->op, j->shape, pf->traced[i]};
        pf->sts[i] = trace(&pf->recs[i], cml_peak_shape_at(j->shape), &a,
                           j->grid, j->block);
    }
}

void cml_peak_trace_prefill(cml_peak_trace_memo *memo, const cml_cache_config *cache,
                            const cml_peak_trace_job *jobs, size_t njobs)
{
    cml_peak_trace_job *todo = calloc(njobs ? njobs : 1, sizeof *todo);
    uint64_t *traced = calloc(njobs ? njobs : 1, sizeof *traced);
    cml_record *recs = calloc(njobs ? njobs : 1, sizeof *recs);
    cml_status *sts = calloc(njobs ? njobs : 1, sizeof *sts);
    size_t n = 0;
    for (size_t i = 0; todo && traced && recs && sts && i < njobs; i++) {
        const cml_peak_shape_def *d = cml_peak_shape_at(jobs[i].shape);
        if (!d || jobs[i].op >= CML_PEAK_KERNEL_OPS)
            continue;
        const uint64_t tn = traced_n_of(d, jobs[i].op, jobs[i].n, jobs[i].grid, jobs[i].block);
        int seen = memo_find(memo, jobs[i].op, jobs[i].shape, jobs[i].grid, jobs[i].block, tn) != NULL;
        for (size_t k = 0; k < n && !seen; k++)
            seen = todo[k].op == jobs[i].op && todo[k].shape == jobs[i].shape &&
                   todo[k].grid == jobs[i].grid && todo[k].block == jobs[i].block &&
                   traced[k] == tn;
        if (seen)
            continue;
        todo[n] = jobs[i];
        traced[n] = tn;
        recs[n].cache = *cache;
        n++;
    }
    if (n) {
        prefill pf = {todo, traced, recs, sts};
        (void)cml_host_parallel(n, 1, prefill_part, &pf);
        /* a failed trace is made again by its point, which reports it */
        for (size_t i = 0; i < n; i++)
            if (sts[i] == CML_OK)
                memo_add(memo, &recs[i], todo[i].op, todo[i].shape, todo[i].grid, todo[i].block,
                         traced[i]);
    }
    free(todo);
    free(traced);
    free(recs);
    free(sts);
}

cml_status cml_peak_trace(cml_record *rec, cml_peak_op op, cml_peak_shape shape, uint64_t n,
                          unsigned gs_grid, unsigned block, uint64_t *traced_n,
                          cml_peak_trace_memo *memo)
{
    const cml_peak_shape_def *d = cml_peak_shape_at(shape);
    if (!d)
        return CML_EINVAL;
    cml_peak_mirror_args a = {op, shape, n};
    a.n = traced_n_of(d, op, n, gs_grid, block);
    if (a.n != n) {
        cml_record_note(rec, "model traced at n=%llu floats per array, not %llu: every access "
                             "is the same whole vector of a warp, so the shares are the same",
                        (unsigned long long)a.n, (unsigned long long)n);
    }
    if (traced_n)
        *traced_n = a.n;
    const struct peak_trace_entry *e = memo_find(memo, op, shape, gs_grid, block, a.n);
    if (e) {
        memcpy(rec->model, e->model, sizeof rec->model);
        rec->has_model = e->has_model;
        rec->has_levels = e->has_levels;
        rec->cache = e->cache;
        rec->levels = e->levels;
        rec->sample = e->sample;
        return CML_OK;
    }
    cml_status st = trace(rec, d, &a, gs_grid, block);
    if (st == CML_OK)
        memo_add(memo, rec, op, shape, gs_grid, block, a.n);
    return st;
}

/* cml_peak_trace's work: the trace itself. */
static cml_status trace(cml_record *rec, const cml_peak_shape_def *d,
                        const cml_peak_mirror_args *args, unsigned gs_grid, unsigned block)
{
    const cml_peak_mirror_args a = *args;
    if (d->layout == CML_PEAK_ONE_SHOT && block % CML_WARP_SIZE == 0) {
        /* Block b's accesses are block 1's shifted by (b - 1) x block x U x W
         * bytes, a multiple of 128; only block 0 (the trailing floats) and
         * the last block (the guard, the sum's final reduction) differ, and
         * those are traced one by one: O(1) work at any n. */
        const uint64_t nblocks = cml_peak_model_grid(NULL, a.shape, a.n, block);
        return cml_exp_trace_1d(rec, nblocks, block, 1, 1, cml_peak_mirror, &a);
    }
    unsigned grid = d->layout == CML_PEAK_ONE_SHOT ? cml_peak_model_grid(NULL, a.shape, a.n, block)
                                                    : gs_grid;
    for (int r = 0; r < CML_RULES_COUNT; r++) {
        memset(&rec->model[r], 0, sizeof rec->model[r]);
        cml_status st = cml_trace_kernel((cml_rules)r, cml_dim1(grid), cml_dim1(block),
                                         cml_peak_mirror, &a, &rec->model[r]);
        if (st != CML_OK) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "model: %s", cml_status_str(st));
            return st;
        }
    }
    rec->has_model = 1;
    return CML_OK;
}
