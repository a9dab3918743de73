/*
 * Experiment 16, the model side: the C mirror of every kernel in every
 * shape, the kernels' own bodies (src/lab/peak_body.h, which peak.cu's
 * kernels inline) compiled by the C compiler, traced thread by thread
 * under both rule sets.
 * Every access is a whole W-byte vector of a coalesced warp, so the model
 * must predict 100% efficiency whatever the shape; what the shapes change
 * (bytes in flight, blocks, hints) is what the measurement shows. The
 * kernels' names, bytes and shapes are the lab's (src/lab/peak_ops.c).
 */
#include <stdlib.h>
#include <string.h>

#include "experiments/peak/peak_internal.h"
#include "gpu/host_fill.h"
#include "lab/peak_body.h"

unsigned cml_peak_bytes_per_thread(cml_peak_shape shape)
{
    const cml_peak_shape_def *d = cml_peak_shape_at(shape);
    return d ? d->width * d->unroll : 0;
}

/* ------------------------------------------------------------------------ */
/* The mirror                                                               */
/* ------------------------------------------------------------------------ */

/* The bodies of one width and unroll (lab/peak_body.h), as the kernels of
 * peak.cu pick them by their template arguments. */
typedef void (*ew_body)(cml_ctx, const float *, const float *, float *, uint64_t, int, unsigned,
                        unsigned);
typedef void (*sum_body)(cml_ctx, const float *, uint64_t, unsigned long long *, unsigned *,
                         unsigned long long *, unsigned);
typedef struct peak_bodies {
    unsigned width, unroll;
    ew_body gs, os;
    sum_body sum_gs, sum_os;
} peak_bodies;

#define BODY_ROW(W, VT, U)                                                                  \
    {W, U, cml_peak_gs_v##W##_u##U, cml_peak_os_v##W##_u##U, cml_peak_sum_gs_v##W##_u##U,    \
     cml_peak_sum_os_v##W##_u##U},
static const peak_bodies bodies[] = {CML_PEAK_BODY_SETS(BODY_ROW)};
#undef BODY_ROW

static const peak_bodies *bodies_of(unsigned width, unsigned unroll)
{
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        if (bodies[i].width == width && bodies[i].unroll == unroll)
            return &bodies[i];
    return NULL;
}

/*
 * One thread of op in the shape: the kernel's body on the model's arrays
 * (x, y, z: 0, 1, 2; the sum's slots 3, result 4, ticket 5), with the
 * shape's access modes. The sum's ticket protocol is left out with its
 * atomics (CML_PEAK_MODEL_SITES); the model takes the block with the
 * highest index to finish last (cml_peak_sum_finish).
 */
void cml_peak_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_peak_mirror_args *a = vargs;
    const cml_peak_shape_def *d = cml_peak_shape_at(a->shape);
    const peak_bodies *b = d ? bodies_of(d->width, d->unroll) : NULL;
    if (!b)
        return;
    const cml_ctx c = CML_MIRROR_CTX_SITES(t, e, CML_PEAK_MODEL_SITES);
    const unsigned ld = d->streaming ? CML_LD_CS : CML_LD_NC;
    const unsigned st = d->streaming ? CML_ST_CS : CML_ST_PLAIN;
    const int one_shot = d->layout == CML_PEAK_ONE_SHOT;
    const float *x = CML_ARRAY(const float, 0), *y = CML_ARRAY(const float, 1);
    if (a->op == CML_PEAK_SUM)
        (one_shot ? b->sum_os : b->sum_gs)(c, x, a->n, CML_ARRAY(unsigned long long, 3),
                                           CML_ARRAY(unsigned, 5),
                                           CML_ARRAY(unsigned long long, 4), ld);
    else
        (one_shot ? b->os : b->gs)(c, x, y, CML_ARRAY(float, 2), a->n, (int)a->op, ld, st);
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
