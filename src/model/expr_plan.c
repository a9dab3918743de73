/*
 * The plan of a generated kernel (expr_plan.h): made from the kernel's
 * settings, and walked by the model's mirror. expr_codegen.c prints the
 * CUDA C text by walking the same plan.
 */
#include "model/expr_plan.h"

#include <string.h>

#include "model/emitter.h"

/* The model's sites of the kernel's instructions: the only place they are
 * numbered. A site names one instruction of the kernel's code, so each
 * access of every plan keeps its own; the two tile loops' accesses and the
 * upper half of a 16-byte constant element are kernel parts that only some
 * plans have. */
enum {
    S_IDX = 0,      /* the main phase's first access (a copy's load of src[s]) */
    S_OUT = 1,      /* its second: a load's result, a copy's store of dst[idx] */
    S_FILL_LD = 2,  /* the fill: src[j] */
    S_FILL_ST = 3,  /* the fill: tile[j] */
    S_COPY_LD = 4,  /* the copy-out: tile[j] */
    S_COPY_ST = 5,  /* the copy-out: dst[tile + j] */
    S_CONST_HI = 6  /* the upper 8 bytes of a 16-byte constant element */
};

static cml_expr_access acc(cml_expr_array array, cml_expr_index index, unsigned site,
                           cml_space space, cml_op op, unsigned width)
{
    cml_expr_access a;
    memset(&a, 0, sizeof a);
    a.array = (uint8_t)array;
    a.index = (uint8_t)index;
    a.site = (uint8_t)site;
    a.space = space;
    a.op = op;
    a.cache = CML_CACHE_CA;
    a.width = width;
    return a;
}

/* The access through the kernel's path: the cache operator it names, and
 * the intrinsic that spells it. */
static cml_expr_access hinted(cml_expr_access a, cml_cache c)
{
    a.cache = c;
    a.hinted = 1;
    return a;
}

/* A statement storing `st`: a load's element, or a value. */
static cml_expr_stmt loaded(cml_expr_access ld, cml_expr_access st)
{
    cml_expr_stmt s = {CML_XV_LOAD, st.array == CML_XA_OUT, ld, st};
    return s;
}

static cml_expr_stmt valued(cml_expr_value v, cml_expr_access st)
{
    cml_expr_stmt s;
    memset(&s, 0, sizeof s);
    s.value = v;
    s.st = st;
    return s;
}

cml_status cml_expr_plan_make(const cml_expr_kernel *k, cml_expr_plan *pl)
{
    if (!pl || cml_expr_kernel_check(k, NULL, 0) != CML_OK)
        return CML_EINVAL;
    memset(pl, 0, sizeof *pl);
    pl->k = *k;
    const unsigned w = k->elem;
    const cml_space G = CML_SPACE_GLOBAL, SH = CML_SPACE_SHARED, CS = CML_SPACE_CONSTANT;
    const cml_op LD = CML_OP_LOAD, ST = CML_OP_STORE;
    /* a load's result: out[i], 8 bytes, plain */
    const cml_expr_access out = acc(CML_XA_OUT, CML_XI_I, S_OUT, G, ST, 8);
    cml_expr_phase *ph = pl->phase;
    if (k->space == CML_SPACE_SHARED) {
        pl->tile = 1;
        const cml_expr_access tile_j = acc(CML_XA_TILE, CML_XI_J, S_FILL_ST, SH, ST, w);
        ph->kind = CML_XP_FILL;
        ph->stmt = k->op == CML_EXPR_LOAD
                       ? loaded(acc(CML_XA_SRC, CML_XI_J, S_FILL_LD, G, LD, w), tile_j)
                       : valued(CML_XV_POISON, tile_j);
        ph++;
        pl->main = (size_t)(ph - pl->phase);
        ph->kind = CML_XP_MAIN;
        ph->stmt = k->op == CML_EXPR_LOAD
                       ? loaded(acc(CML_XA_TILE, CML_XI_IDX, S_IDX, SH, LD, w), out)
                       : valued(CML_XV_VALUE, acc(CML_XA_TILE, CML_XI_IDX, S_IDX, SH, ST, w));
        ph++;
        if (k->op == CML_EXPR_STORE) {
            ph->kind = CML_XP_COPY;
            ph->stmt = loaded(acc(CML_XA_TILE, CML_XI_J, S_COPY_LD, SH, LD, w),
                              acc(CML_XA_DST, CML_XI_TILE_J, S_COPY_ST, G, ST, w));
            ph++;
        }
    } else {
        pl->main = 0;
        ph->kind = CML_XP_MAIN;
        const cml_cache c = k->cache;
        if (k->space == CML_SPACE_CONSTANT) {
            cml_expr_access x = acc(CML_XA_CONST, CML_XI_IDX, S_IDX, CS, LD, w);
            if (w == 16) { /* LDC moves at most 8 bytes */
                x.split = 1;
                x.site_hi = S_CONST_HI;
            }
            ph->stmt = loaded(x, out);
        } else if (k->op == CML_EXPR_LOAD) {
            ph->stmt = loaded(hinted(acc(CML_XA_SRC, CML_XI_IDX, S_IDX, G, LD, w), c), out);
        } else if (k->op == CML_EXPR_STORE) {
            ph->stmt =
                valued(CML_XV_VALUE, hinted(acc(CML_XA_DST, CML_XI_IDX, S_IDX, G, ST, w), c));
        } else {
            /* src[s] is a plain load; the path is the store's */
            pl->uses_s = 1;
            ph->stmt = loaded(acc(CML_XA_SRC, CML_XI_S, S_IDX, G, LD, w),
                              hinted(acc(CML_XA_DST, CML_XI_IDX, S_OUT, G, ST, w), c));
        }
        ph++;
    }
    pl->nphases = (size_t)(ph - pl->phase);
    return CML_OK;
}

/* The values of the indices for one thread at one point of its walk. */
typedef struct walk_at {
    uint64_t x[CML_XI_COUNT];
} walk_at;

static void emit(const cml_expr_access *a, const cml_expr_plan_thread *th, const walk_at *at,
                 cml_emitter *e)
{
    uint64_t base = 0, size = a->width;
    switch (a->array) {
    case CML_XA_SRC: base = cml_array_base_inline(0) + th->base; break;
    case CML_XA_DST: base = cml_array_base_inline(1) + th->base; break;
    case CML_XA_OUT: base = cml_array_base_inline(2); break;
    default: break; /* the tile and the constant array: offsets in their space */
    }
    const uint64_t addr = base + at->x[a->index] * size;
    if (a->split) {
        cml_emit_inline(e, a->site, a->space, a->op, a->cache, 8, addr);
        cml_emit_inline(e, a->site_hi, a->space, a->op, a->cache, 8, addr + 8);
    } else {
        cml_emit_inline(e, a->site, a->space, a->op, a->cache, a->width, addr);
    }
}

static void emit_stmt(const cml_expr_stmt *s, const cml_expr_plan_thread *th, const walk_at *at,
                      cml_emitter *e)
{
    if (s->value == CML_XV_LOAD)
        emit(&s->ld, th, at, e);
    emit(&s->st, th, at, e);
}

void cml_expr_plan_walk(const cml_expr_plan *pl, size_t phase, const cml_expr_plan_thread *th,
                        cml_emitter *e)
{
    if (phase >= pl->nphases)
        return;
    const cml_expr_phase *ph = &pl->phase[phase];
    walk_at at;
    memset(&at, 0, sizeof at);
    at.x[CML_XI_I] = th->i;
    if (ph->kind != CML_XP_MAIN) {
        /* for (j = t; j < tile_len; j += bdx * bdy), iterations it0..it1-1 */
        for (uint64_t it = th->it0; it < th->it1; it++) {
            const uint64_t j = it * th->block + th->t;
            if (j >= th->tile_len)
                break;
            at.x[CML_XI_J] = j;
            at.x[CML_XI_TILE_J] = th->b * th->tile_len + j;
            emit_stmt(&ph->stmt, th, &at, e);
        }
        return;
    }
    if (th->i >= th->threads)
        return;
    const int64_t idx = th->eval(th->ctx, pl->k.index, th->i);
    if (idx < 0 || (uint64_t)idx >= th->n)
        return; /* the kernel's guard */
    at.x[CML_XI_IDX] = (uint64_t)idx;
    if (pl->uses_s) {
        const int64_t s = pl->k.src ? th->eval(th->ctx, pl->k.src, th->i) : (int64_t)th->i;
        if (s < 0 || (uint64_t)s >= th->n)
            return;
        at.x[CML_XI_S] = (uint64_t)s;
    }
    emit_stmt(&ph->stmt, th, &at, e);
}

static size_t add_insns(const cml_expr_access *a, cml_expr_plan_insn *out)
{
    const cml_expr_plan_insn one = {a->space, a->op, a->split ? 8u : a->width};
    out[0] = one;
    if (a->split)
        out[1] = one;
    return a->split ? 2u : 1u;
}

size_t cml_expr_plan_main_insns(const cml_expr_plan *pl, cml_expr_plan_insn *out)
{
    const cml_expr_stmt *s = &pl->phase[pl->main].stmt;
    size_t n = 0;
    if (s->value == CML_XV_LOAD)
        n += add_insns(&s->ld, out + n);
    n += add_insns(&s->st, out + n);
    return n;
}
