/*
 * What if (trace_whatif.h): the transforms of an instruction's lane
 * addresses, each run through the model's per-instruction rules. One pass
 * over the launch's records per site: every warp of the site is modelled
 * as recorded and as each transform makes it; the vector transform, which
 * joins several warps' runs into one instruction, gathers the runs' bases
 * in that pass and joins them after it.
 */
#include "trace/trace_whatif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest pad tried, in elements: a row padded by a whole warp's
 * elements is past any bank or sector pattern a smaller pad has not met. */
#define PAD_MAX 32u
#define FULL 0xffffffffu

/* A warp's lanes as rows: lane l at base + (l / g) * d + (l % g) * size. */
typedef struct rows {
    unsigned g;
    uint64_t d;
} rows;

/* Does warp r have these rows? *base: its lane 0's address by them. The
 * arithmetic wraps (unsigned): a hostile address only fails to fit. */
static int fits(const cml_tf_ins *r, const rows *p, uint64_t *base)
{
    unsigned l0 = 0;
    while (l0 < CML_TF_LANES && !((r->active >> l0) & 1u))
        l0++;
    if (l0 == CML_TF_LANES)
        return 0;
    const uint64_t b = r->addr[l0] - (uint64_t)(l0 / p->g) * p->d - (uint64_t)(l0 % p->g) * r->size;
    for (unsigned l = l0; l < CML_TF_LANES; l++)
        if (((r->active >> l) & 1u) &&
            r->addr[l] != b + (uint64_t)(l / p->g) * p->d + (uint64_t)(l % p->g) * r->size)
            return 0;
    *base = b;
    return 1;
}

/* The rows of the example warp: lane 0 and the lanes after it reading
 * consecutive elements make a row (all of them, or up to an inactive lane:
 * one row); the next lane starts the next row. 0 when the warp has none. */
static int rows_of(const cml_tf_ins *r, rows *p)
{
    if (!(r->active & 1u))
        return 0;
    unsigned g = 1;
    while (g < CML_TF_LANES && ((r->active >> g) & 1u) && r->addr[g] - r->addr[g - 1u] == r->size)
        g++;
    if (g == CML_TF_LANES || !((r->active >> g) & 1u)) {
        p->g = CML_TF_LANES;
        p->d = (uint64_t)CML_TF_LANES * r->size;
    } else {
        if (r->addr[g] <= r->addr[0]) /* rows backwards or on top of each other */
            return 0;
        p->g = g;
        p->d = r->addr[g] - r->addr[0];
    }
    uint64_t base;
    return fits(r, p, &base);
}

/* Warp r (with rows p from base) as transform w makes it. */
static void transform(const cml_wi *w, const rows *p, uint64_t base, const cml_tf_ins *r,
                      cml_tf_ins *out)
{
    *out = *r;
    const uint64_t line_base = base & ~(uint64_t)(CML_LINE_BYTES - 1u);
    for (unsigned l = 0; l < CML_TF_LANES; l++) {
        if (!((r->active >> l) & 1u))
            continue;
        if (w->kind == CML_WI_PAD)
            out->addr[l] = base + (uint64_t)(l / p->g) * (p->d + (uint64_t)w->k * r->size) +
                           (uint64_t)(l % p->g) * r->size;
        else /* CML_WI_SOA */
            out->addr[l] = line_base + (uint64_t)l * r->size;
    }
}

/* One warp of 32 lanes of `size` bytes from b (a run as recorded, or
 * joined into wider lanes). */
static void run_warp(const cml_tf_site *s, uint64_t b, unsigned size, cml_tf_ins *out)
{
    memset(out, 0, sizeof *out);
    out->func = s->func;
    out->pc = s->pc;
    out->space = s->space;
    out->op = s->op;
    out->size = (uint8_t)size;
    out->active = FULL;
    for (unsigned l = 0; l < CML_TF_LANES; l++)
        out->addr[l] = b + (uint64_t)l * size;
}

/* Does a pad of k leave nothing to waste on the example warp? Shared: no
 * bank conflict; global and local: no sector beyond the fewest that could
 * hold the bytes asked for. */
static int pad_clean(const cml_tf_site *s, const rows *p, uint64_t base, unsigned k)
{
    cml_wi w = {.kind = CML_WI_PAD, .k = k};
    cml_tf_ins t;
    cml_traffic x;
    transform(&w, p, base, &s->example, &t);
    if (cml_tf_model_ins(&t, &x) != 0)
        return 0;
    if (s->space == CML_TF_SHARED)
        return x.bank_conflicts == 0;
    return x.sectors == (x.requested_bytes + CML_SECTOR_BYTES - 1u) / CML_SECTOR_BYTES;
}

/* The transforms that apply to the example's rows, into out (figures
 * still zero). */
static void choose(const cml_tf_site *s, const rows *p, uint64_t base, cml_wi_list *out)
{
    const uint64_t size = s->size;
    const int grid = p->g < CML_TF_LANES && p->d > p->g * size && p->d % size == 0;
    if (grid && (s->space == CML_TF_SHARED || p->d >= CML_LINE_BYTES || p->g > 1u)) {
        unsigned best = 0;
        for (unsigned k = 1; k <= PAD_MAX && !best; k++)
            if (pad_clean(s, p, base, k))
                best = k;
        out->item[out->n++] = (cml_wi){.kind = CML_WI_PAD, .k = 1, .lanes = p->g, .stride = p->d};
        if (best > 1u)
            out->item[out->n++] =
                (cml_wi){.kind = CML_WI_PAD, .k = best, .lanes = p->g, .stride = p->d};
    }
    if (grid && p->g == 1u && p->d < CML_LINE_BYTES)
        out->item[out->n++] = (cml_wi){.kind = CML_WI_SOA, .lanes = 1, .stride = p->d};
    if (p->g == CML_TF_LANES && s->example.active == FULL && (size == 4u || size == 8u))
        for (unsigned m = 2; m <= 4u && m * size <= 16u; m *= 2u)
            out->item[out->n++] = (cml_wi){.kind = CML_WI_VECTOR, .k = (unsigned)(m * size)};
}

/* ---- the vector transform's runs ---------------------------------------------- */

typedef struct runs {
    uint64_t *base;
    size_t n, cap;
} runs;

static int runs_push(runs *v, uint64_t b)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2u : 256u;
        uint64_t *p = realloc(v->base, cap * sizeof *p);
        if (!p)
            return -1;
        v->base = p;
        v->cap = cap;
    }
    v->base[v->n++] = b;
    return 0;
}

static int by_value(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The index of value v among the n distinct sorted values, or n. */
static size_t find(const uint64_t *val, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2u;
        if (val[mid] < v)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo < n && val[lo] == v ? lo : n;
}

/*
 * Join the runs (v->base sorted, in place made distinct with counts) m at a
 * time into w's wide instructions: in increasing order of base, a base B
 * that is a multiple of w->k starts as many groups as B + j * span
 * (j < m) all have runs left; what is left of B then passes unchanged.
 */
static cml_status join_runs(const cml_tf_site *s, const uint64_t *val, const uint64_t *count,
                            size_t n, cml_wi *w)
{
    const unsigned m = w->k / s->size;
    const uint64_t span = (uint64_t)CML_TF_LANES * s->size;
    uint64_t *left = malloc((n ? n : 1u) * sizeof *left);
    if (!left)
        return CML_ENOMEM;
    memcpy(left, count, n * sizeof *left);
    for (size_t i = 0; i < n; i++) {
        uint64_t groups = val[i] % w->k == 0 ? left[i] : 0;
        size_t at[4] = {i, n, n, n};
        for (unsigned j = 1; j < m && groups; j++) {
            /* a base past the top of the address space joins nothing */
            at[j] = val[i] + j * span > val[i] ? find(val, n, val[i] + j * span) : n;
            if (at[j] == n)
                groups = 0;
            else if (left[at[j]] < groups)
                groups = left[at[j]];
        }
        cml_tf_ins t;
        cml_traffic x;
        if (groups) {
            run_warp(s, val[i], w->k, &t);
            if (cml_tf_model_ins(&t, &x) == 0) {
                cml_traffic_add_scaled(&w->after, &x, groups);
                w->warps += groups * m;
                for (unsigned j = 0; j < m; j++)
                    left[at[j]] -= groups;
            }
        }
        if (left[i]) {
            run_warp(s, val[i], s->size, &t);
            if (cml_tf_model_ins(&t, &x) == 0) /* as recorded: the model took it then */
                cml_traffic_add_scaled(&w->after, &x, left[i]);
        }
    }
    free(left);
    return CML_OK;
}

static cml_status finish_vectors(const cml_tf_site *s, runs *v, cml_wi_list *out)
{
    if (v->n)
        qsort(v->base, v->n, sizeof *v->base, by_value);
    uint64_t *count = malloc((v->n ? v->n : 1u) * sizeof *count);
    if (!count)
        return CML_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (n && v->base[n - 1u] == v->base[i]) {
            count[n - 1u]++;
            continue;
        }
        v->base[n] = v->base[i];
        count[n++] = 1;
    }
    cml_status rc = CML_OK;
    for (size_t i = 0; i < out->n && rc == CML_OK; i++)
        if (out->item[i].kind == CML_WI_VECTOR)
            rc = join_runs(s, v->base, count, n, &out->item[i]);
    free(count);
    return rc;
}

/* ---- one site ------------------------------------------------------------------ */

/* Add warp r (the model's figures x as recorded) to every transform. */
static cml_status add_warp(const cml_tf_site *s, const rows *p, const cml_tf_ins *r,
                           const cml_traffic *x, runs *v, cml_wi_list *out)
{
    uint64_t base = 0;
    const int fit = r->size == s->size && r->space == s->space && r->op == s->op &&
                    fits(r, p, &base);
    int pushed = 0;
    for (size_t i = 0; i < out->n; i++) {
        cml_wi *w = &out->item[i];
        cml_traffic_add(&w->before, x);
        w->of++;
        if (w->kind == CML_WI_VECTOR) {
            if (fit && r->active == FULL) {
                if (!pushed && runs_push(v, base) != 0)
                    return CML_ENOMEM;
                pushed = 1; /* joined, or added as recorded, after the pass */
            } else {
                cml_traffic_add(&w->after, x);
            }
            continue;
        }
        cml_tf_ins t;
        cml_traffic y;
        if (fit) {
            transform(w, p, base, r, &t);
            if (cml_tf_model_ins(&t, &y) == 0) {
                cml_traffic_add(&w->after, &y);
                w->warps++;
                continue;
            }
        }
        cml_traffic_add(&w->after, x);
    }
    return CML_OK;
}

cml_status cml_wi_site(const cml_tf_kernel *k, const cml_tf_site *s, cml_wi_list *out)
{
    memset(out, 0, sizeof *out);
    out->examined = 1;
    rows p;
    cml_traffic x;
    uint64_t base;
    if (s->op == CML_TF_ATOMIC || cml_tf_model_ins(&s->example, &x) != 0 ||
        !rows_of(&s->example, &p) || !fits(&s->example, &p, &base))
        return CML_OK;
    choose(s, &p, base, out);
    if (!out->n)
        return CML_OK;
    runs v = {NULL, 0, 0};
    cml_tf_cursor c;
    cml_tf_ins r;
    cml_status rc = CML_OK;
    cml_tf_cursor_init(&c, k);
    while (rc == CML_OK && cml_tf_next(&c, &r)) {
        if (r.func != s->func || r.pc != s->pc || cml_tf_model_ins(&r, &x) != 0)
            continue; /* another site's, or refused: not in the site's figures */
        rc = add_warp(s, &p, &r, &x, &v, out);
    }
    if (rc == CML_OK)
        rc = finish_vectors(s, &v, out);
    free(v.base);
    if (rc != CML_OK) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    /* a transform no warp took does not apply */
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        cml_wi *w = &out->item[i];
        if (!w->warps)
            continue;
        w->waste_before = cml_tf_waste(s->space, &w->before);
        w->waste_after = cml_tf_waste(s->space, &w->after);
        out->item[kept++] = *w;
    }
    out->n = kept;
    return CML_OK;
}

const cml_ws_site *cml_wi_shape_site(const cml_ws_launch *l, const cml_tf_site *s)
{
    for (size_t i = 0; l && i < l->nsites; i++)
        if (l->site[i].site == s)
            return &l->site[i];
    return NULL;
}

void cml_wi_shape(const cml_ws_launch *l, const cml_tf_site *s, cml_wi_list *out)
{
    out->launch = l;
    const cml_ws_site *ws = cml_wi_shape_site(l, s);
    if (!ws || ws->status != CML_WS_FIT || !cml_ws_has_best(l) || out->n >= CML_WI_MAX)
        return;
    cml_wi *w = &out->item[out->n++];
    memset(w, 0, sizeof *w);
    w->kind = CML_WI_SHAPE;
    memcpy(w->shape, l->best, sizeof w->shape);
    memcpy(w->from, l->block, sizeof w->from);
    w->warps = w->of = ws->before.instructions;
    w->before = ws->before;
    w->after = ws->after;
    w->waste_before = ws->waste_before;
    w->waste_after = ws->waste_after;
}

/* "8 x 32", or "8 x 32 x 2" for a block of several layers. */
static void shape_words(const unsigned b[3], char *buf, size_t len)
{
    if (b[2] > 1u)
        snprintf(buf, len, "%u x %u x %u", b[0], b[1], b[2]);
    else
        snprintf(buf, len, "%u x %u", b[0], b[1]);
}

const char *cml_wi_name(cml_wi_kind kind)
{
    switch (kind) {
    case CML_WI_PAD: return "pad";
    case CML_WI_SOA: return "soa";
    case CML_WI_VECTOR: return "vector";
    case CML_WI_SHAPE: return "block_shape";
    default: return "?";
    }
}

void cml_wi_describe(const cml_wi *w, unsigned size, char *buf, size_t len)
{
    switch (w->kind) {
    case CML_WI_PAD:
        snprintf(buf, len, "pad each row of %llu B by %u element%s (%llu B)",
                 (unsigned long long)w->stride, w->k, w->k == 1 ? "" : "s",
                 (unsigned long long)w->k * size);
        break;
    case CML_WI_SOA:
        snprintf(buf, len, "a structure of arrays: the field's own array instead of "
                           "structures of %llu B",
                 (unsigned long long)w->stride);
        break;
    case CML_WI_VECTOR:
        snprintf(buf, len, "%u-byte accesses (%u elements a lane)", w->k, size ? w->k / size : 0);
        break;
    case CML_WI_SHAPE: {
        char to[48], from[48];
        shape_words(w->shape, to, sizeof to);
        shape_words(w->from, from, sizeof from);
        snprintf(buf, len, "blocks of %s threads instead of %s (if each index is blockIdx * "
                           "blockDim + threadIdx per dimension)",
                 to, from);
        break;
    }
    default: snprintf(buf, len, "?"); break;
    }
}

int64_t cml_wi_saved_bytes(uint64_t before, uint64_t after)
{
    /* a hostile trace's sums may pass INT64_MAX: held there */
    if (before >= after) {
        const uint64_t d = before - after;
        return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
    }
    const uint64_t d = after - before;
    return d > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)d;
}

int64_t cml_wi_saved(const cml_wi *w)
{
    return cml_wi_saved_bytes(w->waste_before, w->waste_after);
}
