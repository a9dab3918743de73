/*
 * The block-shape what-if (trace_shape.h). Three steps over a launch:
 * a pass over its records reads each instruction's coefficients block by
 * block; a second checks every lane against them and gathers the blocks'
 * bases; then the model runs on the warps each shape makes of every thread
 * of those blocks.
 */
#include "trace/trace_shape.h"

#include <stdlib.h>
#include <string.h>

/* The most threads a block has (CUDA's limit; the reader holds files to it). */
#define MAX_THREADS 1024u
/* Sectors, lines and banks repeat every 128 bytes: blocks whose bases
 * agree modulo it are modelled once, weighted by their number. */
#define PERIOD ((uint64_t)CML_LINE_BYTES)

/* The two's complement value of u (no implementation-defined conversion). */
static int64_t as_signed(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)~u - 1;
}

/* One site's fit while the passes read the records. */
typedef struct fit {
    int64_t bcoef[3];   /* pass 1: the coefficients the block's lanes gave */
    unsigned bpinned;
    uint64_t block;     /* the block being read */
    int in_block;       /* a record of `block` was seen */
    int has_ref;        /* pass 1: ref holds the block's first lane;
                           pass 2: base holds the block's base */
    unsigned ref[3];
    uint64_t ref_addr, base;
    size_t cap;         /* pass 2: room in the site's bases */
} fit;

/* A site's (function, pc) for finding a record's site. */
typedef struct key {
    uint32_t func, pc;
    size_t i;
} key;

static int by_key(const void *pa, const void *pb)
{
    const key *a = pa, *b = pb;
    if (a->func != b->func)
        return a->func < b->func ? -1 : 1;
    return a->pc < b->pc ? -1 : a->pc > b->pc;
}

/* The site of record r among the n sorted keys, or n. */
static size_t site_of(const key *keys, size_t n, const cml_tf_ins *r)
{
    size_t lo = 0, hi = n;
    const key want = {r->func, r->pc, 0};
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2u;
        if (by_key(&keys[mid], &want) < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo < n && by_key(&keys[lo], &want) == 0 ? keys[lo].i : n;
}

/* Thread t's index in a block of shape b. */
static void thread_index(uint64_t t, const unsigned b[3], unsigned c[3])
{
    c[0] = (unsigned)(t % b[0]);
    c[1] = (unsigned)(t / b[0] % b[1]);
    c[2] = (unsigned)(t / ((uint64_t)b[0] * b[1]));
}

/* sum over d of coef[d] * c[d], modulo 2^64 as addresses are. */
static uint64_t offset(const int64_t coef[3], const int64_t c[3])
{
    uint64_t o = 0;
    for (unsigned d = 0; d < 3u; d++)
        o += (uint64_t)coef[d] * (uint64_t)c[d];
    return o;
}

/*
 * One equation between two lanes of a block: the index steps d, the
 * address step da. With every coefficient it involves known (this block's),
 * it checks; with one unknown, it pins it (the step must divide exactly)
 * and compares it with the other blocks' (ws->coef); with more it says
 * nothing. CML_WS_FIT to go on, or why the site does not fit.
 */
static cml_ws_status equation(fit *f, cml_ws_site *ws, const int64_t d[3], uint64_t da)
{
    unsigned unknown = 0, n = 0;
    uint64_t known = 0;
    for (unsigned i = 0; i < 3u; i++) {
        if (!d[i])
            continue;
        if ((f->bpinned >> i) & 1u) {
            known += (uint64_t)f->bcoef[i] * (uint64_t)d[i];
        } else {
            unknown = i;
            n++;
        }
    }
    if (n == 0)
        return known == da ? CML_WS_FIT : CML_WS_NOT_AFFINE;
    if (n > 1)
        return CML_WS_FIT;
    /* |d| <= 1023: the quotient of a positive divisor cannot overflow; a
     * negative divisor's is negated modulo 2^64, as addresses wrap */
    const int64_t rest = as_signed(da - known);
    const int64_t step = d[unknown] < 0 ? -d[unknown] : d[unknown];
    if (rest % step != 0)
        return CML_WS_NOT_AFFINE;
    const uint64_t q = (uint64_t)(rest / step);
    const int64_t value = as_signed(d[unknown] < 0 ? 0u - q : q);
    const unsigned bit = 1u << unknown;
    f->bcoef[unknown] = value;
    f->bpinned |= bit;
    if (ws->pinned & bit)
        return ws->coef[unknown] == value ? CML_WS_FIT : CML_WS_BLOCKS_DIFFER;
    ws->coef[unknown] = value;
    ws->pinned |= bit;
    return CML_WS_FIT;
}

/* Pass 1 over record r of site ws: each active lane against the block's
 * first lane and against the record's previous lane. */
static cml_ws_status read_coefs(fit *f, cml_ws_site *ws, const cml_tf_ins *r, const unsigned b[3])
{
    if (!f->in_block || r->block != f->block) {
        f->in_block = 1;
        f->block = r->block;
        f->bpinned = 0;
        f->has_ref = 0;
        ws->blocks++;
    }
    const uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    int has_prev = 0;
    unsigned prev[3] = {0, 0, 0};
    uint64_t prev_addr = 0;
    for (unsigned l = 0; l < CML_TF_LANES; l++) {
        if (!((r->active >> l) & 1u))
            continue;
        const uint64_t t = (uint64_t)r->warp * CML_TF_LANES + l;
        if (t >= threads)
            return CML_WS_NOT_AFFINE;
        unsigned c[3];
        thread_index(t, b, c);
        if (!f->has_ref) {
            memcpy(f->ref, c, sizeof c);
            f->ref_addr = r->addr[l];
            f->has_ref = 1;
        }
        for (int pair = 0; pair < 2; pair++) {
            const unsigned *o = pair ? prev : f->ref;
            if (pair && !has_prev)
                continue;
            const int64_t d[3] = {(int64_t)c[0] - o[0], (int64_t)c[1] - o[1],
                                  (int64_t)c[2] - o[2]};
            const cml_ws_status st =
                equation(f, ws, d, r->addr[l] - (pair ? prev_addr : f->ref_addr));
            if (st != CML_WS_FIT)
                return st;
        }
        memcpy(prev, c, sizeof c);
        prev_addr = r->addr[l];
        has_prev = 1;
    }
    return CML_WS_FIT;
}

/* Count a block of base `base` in its residue's entry. 0, or -1 (memory). */
static int add_base(fit *f, cml_ws_site *ws, uint64_t base)
{
    for (size_t i = 0; i < ws->nbases; i++)
        if (ws->bases[i].base % PERIOD == base % PERIOD) {
            ws->bases[i].count++;
            return 0;
        }
    if (ws->nbases == f->cap) {
        const size_t cap = f->cap ? f->cap * 2u : 4u;
        cml_ws_base *p = realloc(ws->bases, cap * sizeof *p);
        if (!p)
            return -1;
        ws->bases = p;
        f->cap = cap;
    }
    ws->bases[ws->nbases++] = (cml_ws_base){base, 1};
    return 0;
}

/* Pass 2 over record r: every active lane on its block's base. -1 on out
 * of memory. */
static int check_lanes(fit *f, cml_ws_site *ws, const cml_tf_ins *r, const unsigned b[3])
{
    if (!f->in_block || r->block != f->block) {
        if (f->in_block && f->has_ref && add_base(f, ws, f->base) != 0)
            return -1;
        f->in_block = 1;
        f->block = r->block;
        f->has_ref = 0;
    }
    for (unsigned l = 0; l < CML_TF_LANES && ws->status == CML_WS_FIT; l++) {
        if (!((r->active >> l) & 1u))
            continue;
        unsigned c[3];
        thread_index((uint64_t)r->warp * CML_TF_LANES + l, b, c);
        const int64_t ci[3] = {c[0], c[1], c[2]};
        const uint64_t base = r->addr[l] - offset(ws->coef, ci);
        if (!f->has_ref) {
            f->base = base;
            f->has_ref = 1;
        } else if (base != f->base) {
            ws->status = CML_WS_NOT_AFFINE;
        }
    }
    return 0;
}

/* One pass over launch k's records (pass 1 or 2) for the fitting sites. */
static cml_status pass(const cml_tf_kernel *k, const key *keys, fit *f, cml_ws_launch *out,
                       int second)
{
    cml_tf_cursor c;
    cml_tf_ins r;
    cml_tf_cursor_init(&c, k);
    while (cml_tf_next(&c, &r)) {
        const size_t i = site_of(keys, out->nsites, &r);
        if (i == out->nsites || out->site[i].status != CML_WS_FIT)
            continue;
        cml_ws_site *ws = &out->site[i];
        if (r.space != ws->site->space || r.op != ws->site->op || r.size != ws->site->size) {
            ws->status = CML_WS_NOT_AFFINE; /* one pc, two instructions: a hostile file */
            continue;
        }
        if (second) {
            if (check_lanes(&f[i], ws, &r, k->block) != 0)
                return CML_ENOMEM;
        } else {
            ws->status = read_coefs(&f[i], ws, &r, k->block);
        }
    }
    for (size_t i = 0; second && i < out->nsites; i++)
        if (out->site[i].status == CML_WS_FIT && f[i].in_block && f[i].has_ref &&
            add_base(&f[i], &out->site[i], f[i].base) != 0)
            return CML_ENOMEM;
    return CML_OK;
}

int cml_ws_shape_traffic(const cml_ws_launch *sh, const cml_ws_site *ws, const unsigned shape[3],
                         cml_traffic *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t threads = (uint64_t)shape[0] * shape[1] * shape[2];
    const unsigned need = (shape[0] > 1u ? 1u : 0u) | (shape[1] > 1u ? 2u : 0u) |
                          (shape[2] > 1u ? 4u : 0u);
    if (ws->status != CML_WS_FIT || (ws->pinned & need) != need ||
        threads != (uint64_t)sh->block[0] * sh->block[1] * sh->block[2])
        return -1;
    cml_tf_ins r;
    memset(&r, 0, sizeof r);
    r.func = ws->site->func;
    r.pc = ws->site->pc;
    r.space = ws->site->space;
    r.op = ws->site->op;
    r.size = ws->site->size;
    for (size_t j = 0; j < ws->nbases; j++) {
        for (uint64_t t0 = 0; t0 < threads; t0 += CML_TF_LANES) {
            const uint64_t lanes = threads - t0 < CML_TF_LANES ? threads - t0 : CML_TF_LANES;
            r.active = lanes == CML_TF_LANES ? 0xffffffffu : (1u << lanes) - 1u;
            for (unsigned l = 0; l < lanes; l++) {
                unsigned c[3];
                thread_index(t0 + l, shape, c);
                const int64_t ci[3] = {c[0], c[1], c[2]};
                r.addr[l] = ws->bases[j].base + offset(ws->coef, ci);
            }
            cml_traffic x;
            if (cml_tf_model_ins(&r, &x) != 0)
                return -1;
            cml_traffic_add_scaled(out, &x, ws->bases[j].count);
        }
    }
    return 0;
}

/* The fitted sites' figures in their launch's shape, then each other shape
 * of the same threads, keeping the best (trace_shape.h). */
static void judge(cml_ws_launch *out)
{
    for (size_t i = 0; i < out->nsites; i++) {
        cml_ws_site *ws = &out->site[i];
        if (ws->status != CML_WS_FIT)
            continue;
        if (cml_ws_shape_traffic(out, ws, out->block, &ws->before) != 0) {
            ws->status = CML_WS_REFUSED;
            continue;
        }
        ws->waste_before = cml_tf_waste(ws->site->space, &ws->before);
        out->waste_before += ws->waste_before;
        out->fitted++;
    }
    if (!out->fitted)
        return;
    const unsigned plane = out->block[0] * out->block[1];
    uint64_t best = out->waste_before;
    for (unsigned x = MAX_THREADS; x >= 1u; x /= 2u) {
        if (x > plane || plane % x != 0 || x == out->block[0])
            continue;
        const unsigned shape[3] = {x, plane / x, out->block[2]};
        uint64_t waste = 0;
        int taken = 1;
        for (size_t i = 0; i < out->nsites && taken; i++) {
            cml_traffic y;
            if (out->site[i].status != CML_WS_FIT)
                continue;
            if (cml_ws_shape_traffic(out, &out->site[i], shape, &y) != 0)
                taken = 0; /* the model refuses it (misaligned): not a shape it can judge */
            else
                waste += cml_tf_waste(out->site[i].site->space, &y);
        }
        if (!taken)
            continue;
        out->shapes++;
        if (waste < best) { /* strictly: a tie keeps the wider shape */
            best = waste;
            memcpy(out->best, shape, sizeof shape);
        }
    }
    if (!cml_ws_has_best(out))
        return;
    for (size_t i = 0; i < out->nsites; i++) {
        cml_ws_site *ws = &out->site[i];
        if (ws->status != CML_WS_FIT)
            continue;
        cml_ws_shape_traffic(out, ws, out->best, &ws->after); /* taken above */
        ws->waste_after = cml_tf_waste(ws->site->space, &ws->after);
        out->waste_after += ws->waste_after;
    }
}

/* A global or shared load or store: what a block shape can change. */
static int eligible(const cml_tf_site *s)
{
    return (s->space == CML_TF_GLOBAL || s->space == CML_TF_SHARED) &&
           (s->op == CML_TF_LOAD || s->op == CML_TF_STORE);
}

cml_status cml_ws_launch_fit(const cml_tf_kernel *k, const cml_tf_model *m, cml_ws_launch *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->block, k->block, sizeof out->block);
    if (!m->nsites)
        return CML_OK;
    out->site = calloc(m->nsites, sizeof *out->site);
    fit *f = calloc(m->nsites, sizeof *f);
    key *keys = malloc(m->nsites * sizeof *keys);
    cml_status rc = out->site && f && keys ? CML_OK : CML_ENOMEM;
    const uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    const unsigned need = 3u | (k->block[2] > 1u ? 4u : 0u); /* a and b; c in 3-D */
    if (rc == CML_OK) {
        out->nsites = m->nsites;
        for (size_t i = 0; i < m->nsites; i++) {
            out->site[i].site = &m->sites[i];
            /* a block of more threads than CUDA allows is no shape to re-group */
            out->site[i].status = eligible(&m->sites[i]) && threads && threads <= MAX_THREADS
                                      ? CML_WS_FIT
                                      : CML_WS_SKIPPED;
            keys[i] = (key){m->sites[i].func, m->sites[i].pc, i};
        }
        qsort(keys, m->nsites, sizeof *keys, by_key);
        rc = pass(k, keys, f, out, 0);
    }
    int any = 0; /* a site still fitting: worth the second pass */
    for (size_t i = 0; rc == CML_OK && i < out->nsites; i++) {
        if (out->site[i].status == CML_WS_FIT && (out->site[i].pinned & need) != need)
            out->site[i].status = CML_WS_UNPINNED;
        any |= out->site[i].status == CML_WS_FIT;
        f[i].in_block = 0;
    }
    if (rc == CML_OK && any)
        rc = pass(k, keys, f, out, 1);
    if (rc == CML_OK)
        judge(out);
    free(f);
    free(keys);
    if (rc != CML_OK)
        cml_ws_launch_free(out);
    return rc;
}

void cml_ws_launch_free(cml_ws_launch *l)
{
    for (size_t i = 0; l->site && i < l->nsites; i++)
        free(l->site[i].bases);
    free(l->site);
    memset(l, 0, sizeof *l);
}

int cml_ws_has_best(const cml_ws_launch *l)
{
    return l->best[0] != 0;
}

const char *cml_ws_status_str(cml_ws_status st)
{
    switch (st) {
    case CML_WS_FIT: return "fits";
    case CML_WS_SKIPPED: return "not a global or shared load or store";
    case CML_WS_NOT_AFFINE: return "its addresses are not affine in the thread index";
    case CML_WS_BLOCKS_DIFFER: return "its blocks' addresses step differently";
    case CML_WS_UNPINNED: return "the addresses do not tell how threadIdx.y (or .z) steps them";
    case CML_WS_REFUSED: return "the model refuses its warps (misaligned)";
    default: return "?";
    }
}
