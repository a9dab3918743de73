/*
 * The shape of an index expression over a launch (cml_expr_shape_of,
 * expr.h): whether every thread's value is its block-0 twin's plus a fixed
 * step per block, and the range the values reach, without evaluating every
 * thread.
 *
 * The program runs once over abstract values:
 *   - affine: thread t of block b has g[t] + step * b, with g[] the values
 *     of block 0's threads computed exactly (the same arithmetic as the
 *     evaluator, so an error there is the evaluator's error at that
 *     thread), and the exact range over every running thread (block 0's
 *     extremes moved by step * (blocks - 1), the partial last block on its
 *     own). i is (t, block), bx (0, 1), tx, ty and lane (t's, 0), the
 *     launch's constants (k, 0).
 *   - interval: a sound bound [lo, hi] on every running thread's value,
 *     and whether an evaluation might fail.
 * An operation keeps affine operands affine where the algebra is exact:
 * + and - always; * by a constant; / and % by a constant m > 0 dividing
 * the step when every value is >= 0 ((g + m*k*b) / m = g/m + k*b); << by
 * a constant of values >= 0; >> by c when 2^c divides the step (floor
 * division); &, | and ^ with a constant below the step's lowest set bit
 * (the step never reaches those bits); min and max when one operand's
 * range lies wholly below the other's; anything on operands that do not
 * change from block to block. A range that no longer fits in 64 bits
 * means some thread overflows: the answer is then "may fail". Everything
 * else falls to interval arithmetic, which never claims a period.
 */
#include "cumemlab/expr.h"
#include "model/expr_program.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Values kept per abstract value at most (depth x threads of a block). */
#define MAX_VECTOR_VALUES ((size_t)1 << 21)

enum { AV_AFF, AV_ITV };

typedef struct aval {
    int kind;
    int64_t step;   /* affine */
    int64_t *g;     /* block 0's values, T of them (kept for intervals too:
                       block 0's failures are found exactly either way) */
    int64_t lo, hi; /* affine: exact range; interval: a bound */
} aval;

typedef struct shape_ctx {
    uint64_t block, T, F, rem, grid; /* T: threads of block 0 evaluated; F: full blocks */
    int vectors;                     /* 0: too large to keep block 0's values */
    size_t depth;                    /* stack slots; pool slot `depth`: constants */
    int may_fail;                    /* an evaluation might fail beyond block 0 */
    uint64_t fail_t;                 /* first failing thread of block 0, UINT64_MAX: none */
    int64_t *pool;                   /* one vector of T values per stack slot */
} shape_ctx;

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static void note_fail(shape_ctx *c, uint64_t t)
{
    if (t < c->fail_t)
        c->fail_t = t;
}

/* The exact range of g[t] + s*b over the running threads; 0 when it does
 * not fit in 64 bits (some thread's value overflows). */
static int aff_range(const shape_ctx *c, const int64_t *g, int64_t s, int64_t *lo, int64_t *hi)
{
    int64_t gmin = INT64_MAX, gmax = INT64_MIN;
    for (uint64_t t = 0; t < c->T; t++) {
        gmin = min64(gmin, g[t]);
        gmax = max64(gmax, g[t]);
    }
    if (c->F == 0) { /* one partial block: block 0 itself */
        *lo = gmin;
        *hi = gmax;
        return 1;
    }
    int64_t span, a, b;
    if (__builtin_mul_overflow(s, (int64_t)(c->F - 1u), &span) ||
        __builtin_add_overflow(gmin, min64(0, span), &a) ||
        __builtin_add_overflow(gmax, max64(0, span), &b))
        return 0;
    if (c->rem) {
        int64_t rmin = INT64_MAX, rmax = INT64_MIN, sf, x, y;
        for (uint64_t t = 0; t < c->rem; t++) {
            rmin = min64(rmin, g[t]);
            rmax = max64(rmax, g[t]);
        }
        if (__builtin_mul_overflow(s, (int64_t)c->F, &sf) ||
            __builtin_add_overflow(rmin, sf, &x) || __builtin_add_overflow(rmax, sf, &y))
            return 0;
        a = min64(a, x);
        b = max64(b, y);
    }
    *lo = a;
    *hi = b;
    return 1;
}

/* v becomes an interval (keeping its range as the bound). */
static void to_itv(aval *v)
{
    v->kind = AV_ITV;
}

/* Finish an affine result: its range, or (overflow) a failure somewhere. */
static void aff_done(shape_ctx *c, aval *r)
{
    if (!aff_range(c, r->g, r->step, &r->lo, &r->hi)) {
        c->may_fail = 1;
        r->lo = INT64_MIN;
        r->hi = INT64_MAX;
        to_itv(r);
    }
}

static int is_const(const aval *v)
{
    return v->kind == AV_AFF && v->step == 0 && v->lo == v->hi;
}

/* Elementwise over block 0 into r->g (r->g may be a->g): g = a op b. */
static void elementwise(shape_ctx *c, unsigned op, const aval *a, const aval *b, aval *r)
{
    for (uint64_t t = 0; t < c->T; t++) {
        int64_t x;
        if (cml_expr_arith(op, a->g[t], b->g[t], &x) != A_OK) {
            note_fail(c, t);
            x = 0;
        }
        r->g[t] = x;
    }
}

/* r->g[t] = a->g[t] op k for every t. */
static void with_const(shape_ctx *c, unsigned op, const aval *a, int64_t k, aval *r)
{
    for (uint64_t t = 0; t < c->T; t++) {
        int64_t x;
        if (cml_expr_arith(op, a->g[t], k, &x) != A_OK) {
            note_fail(c, t);
            x = 0;
        }
        r->g[t] = x;
    }
}

static unsigned low_zero_bits(int64_t s)
{
    uint64_t u = (uint64_t)s;
    unsigned n = 0;
    while (n < 63 && !(u & 1u)) {
        u >>= 1;
        n++;
    }
    return n;
}

/*
 * a op b with both affine, into r (whose vector is a's slot). Returns 1
 * with r affine (or an interval after an overflow), 0 when the algebra
 * does not keep it affine (the caller falls back to intervals).
 */
static int aff_binop(shape_ctx *c, unsigned op, const aval *a, const aval *b, aval *r)
{
    r->kind = AV_AFF;
    if (a->step == 0 && b->step == 0) { /* the same in every block */
        elementwise(c, op, a, b, r);
        r->step = 0;
        aff_done(c, r);
        return 1;
    }
    int64_t s;
    switch (op) {
    case OP_ADD:
    case OP_SUB:
        if ((op == OP_ADD ? __builtin_add_overflow(a->step, b->step, &s)
                          : __builtin_sub_overflow(a->step, b->step, &s)))
            return 0;
        elementwise(c, op, a, b, r);
        r->step = s;
        aff_done(c, r);
        return 1;
    case OP_MUL: {
        const aval *k = is_const(b) ? b : is_const(a) ? a : NULL;
        const aval *v = k == b ? a : b;
        if (!k || __builtin_mul_overflow(v->step, k->lo, &s))
            return 0;
        with_const(c, OP_MUL, v, k->lo, r);
        r->step = s;
        aff_done(c, r);
        return 1;
    }
    case OP_DIV:
    case OP_MOD: {
        if (!is_const(b) || b->lo == 0 || a->lo < 0)
            return 0;
        const int64_t m = b->lo;
        if (m == INT64_MIN || a->step % m != 0 || (op == OP_DIV && m < 0))
            return 0;
        with_const(c, op, a, m, r);
        r->step = op == OP_DIV ? a->step / m : 0;
        aff_done(c, r);
        return 1;
    }
    case OP_SHL: {
        /* (g + s*b) << k = (g << k) + s*2^k*b for values >= 0 */
        if (!is_const(b) || b->lo < 0 || b->lo > 62 || a->lo < 0 ||
            __builtin_mul_overflow(a->step, (int64_t)1 << b->lo, &s))
            return 0;
        with_const(c, OP_SHL, a, b->lo, r);
        r->step = s;
        aff_done(c, r);
        return 1;
    }
    case OP_SHR: {
        if (!is_const(b) || b->lo < 0 || b->lo > 63 ||
            (b->lo > 0 && a->step % ((int64_t)1 << (b->lo > 62 ? 62 : b->lo)) != 0) ||
            (b->lo > 62 && a->step != 0))
            return 0;
        with_const(c, OP_SHR, a, b->lo, r);
        r->step = a->step / ((int64_t)1 << (b->lo > 62 ? 62 : b->lo));
        aff_done(c, r);
        return 1;
    }
    case OP_AND:
    case OP_OR:
    case OP_XOR: {
        const aval *k = is_const(b) ? b : is_const(a) ? a : NULL;
        const aval *v = k == b ? a : b;
        if (!k || k->lo < 0)
            return 0;
        const unsigned low = low_zero_bits(v->step);
        if (low < 63 && (uint64_t)k->lo >= ((uint64_t)1 << low))
            return 0;
        with_const(c, op, v, k->lo, r);
        r->step = op == OP_AND ? 0 : v->step;
        aff_done(c, r);
        return 1;
    }
    case OP_MIN:
    case OP_MAX: {
        const aval *pick;
        if (a->hi <= b->lo)
            pick = op == OP_MIN ? a : b;
        else if (b->hi <= a->lo)
            pick = op == OP_MIN ? b : a;
        else
            return 0;
        if (pick->g != r->g)
            memcpy(r->g, pick->g, c->T * sizeof *r->g);
        r->step = pick->step;
        r->lo = pick->lo;
        r->hi = pick->hi;
        return 1;
    }
    default:
        return 0;
    }
}

/* Largest value with the bits of values up to x set: 2^bits(x) - 1. */
static int64_t fill_bits(int64_t x)
{
    int64_t m = 0;
    while (m < x)
        m = m * 2 + 1;
    return m;
}

/* A sound interval for a op b over a in [alo, ahi], b in [blo, bhi];
 * returns 1 when some pair might make the evaluation fail. */
static int itv_binop(unsigned op, int64_t alo, int64_t ahi, int64_t blo, int64_t bhi, int64_t *lo,
                     int64_t *hi)
{
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    switch (op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV: {
        if (op == OP_DIV && blo <= 0 && bhi >= 0)
            return 1; /* the divisor may be 0 (a divisor range across 0 also
                         holds -1 and 1, the extreme quotients) */
        const int64_t as[2] = {alo, ahi}, bs[2] = {op == OP_SUB ? bhi : blo,
                                                   op == OP_SUB ? blo : bhi};
        int64_t l = INT64_MAX, h = INT64_MIN;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                int64_t x;
                if (cml_expr_arith(op, as[i], bs[j], &x) != A_OK)
                    return 1;
                l = min64(l, x);
                h = max64(h, x);
            }
        *lo = l;
        *hi = h;
        return 0;
    }
    case OP_MOD: {
        if (blo <= 0 && bhi >= 0)
            return 1;
        /* at most |b| - 1 in size, with the sign of the dividend, and never
         * beyond the dividend itself */
        const int64_t m = blo > 0 ? bhi - 1 : (blo == INT64_MIN ? INT64_MAX : -blo - 1);
        *lo = alo >= 0 ? 0 : max64(alo, -m);
        *hi = ahi <= 0 ? 0 : min64(ahi, m);
        return 0;
    }
    case OP_SHL: {
        if (blo < 0 || bhi > 63 || alo < 0)
            return 1;
        int64_t x;
        if (cml_expr_arith(OP_SHL, ahi, bhi, &x) != A_OK)
            return 1;
        *lo = alo == 0 ? 0 : alo << blo;
        *hi = x;
        return 0;
    }
    case OP_SHR: {
        if (blo < 0 || bhi > 63)
            return 1;
        int64_t x1 = 0, x2 = 0, y1 = 0, y2 = 0; /* counts checked: cannot fail */
        cml_expr_arith(OP_SHR, alo, blo, &x1);
        cml_expr_arith(OP_SHR, alo, bhi, &x2);
        cml_expr_arith(OP_SHR, ahi, blo, &y1);
        cml_expr_arith(OP_SHR, ahi, bhi, &y2);
        *lo = min64(x1, x2);
        *hi = max64(y1, y2);
        return 0;
    }
    case OP_AND:
        if (alo >= 0 && blo >= 0) {
            *lo = 0;
            *hi = min64(ahi, bhi);
        } else if (alo >= 0) {
            *lo = 0;
            *hi = ahi;
        } else if (blo >= 0) {
            *lo = 0;
            *hi = bhi;
        }
        return 0;
    case OP_OR:
    case OP_XOR:
        if (alo >= 0 && blo >= 0) {
            *lo = 0;
            *hi = fill_bits(max64(ahi, bhi));
        }
        return 0;
    case OP_MIN:
        *lo = min64(alo, blo);
        *hi = min64(ahi, bhi);
        return 0;
    case OP_MAX:
        *lo = max64(alo, blo);
        *hi = max64(ahi, bhi);
        return 0;
    default:
        return 1;
    }
}

/* A variable of the launch as an abstract value in slot r. */
static void var_value(shape_ctx *c, const cml_expr_launch *l, uint16_t off, aval *r)
{
    r->kind = AV_AFF;
    r->step = 0;
    int64_t k = 0;
    int konst = 1;
    if (off == offsetof(cml_expr_vars, i)) {
        for (uint64_t t = 0; t < c->T; t++)
            r->g[t] = (int64_t)t;
        r->step = (int64_t)c->block;
        konst = 0;
    } else if (off == offsetof(cml_expr_vars, tx) || off == offsetof(cml_expr_vars, ty) ||
               off == offsetof(cml_expr_vars, lane)) {
        for (uint64_t t = 0; t < c->T; t++)
            r->g[t] = (int64_t)(off == offsetof(cml_expr_vars, tx)   ? t % l->bdx
                                : off == offsetof(cml_expr_vars, ty) ? t / l->bdx
                                                                     : t % 32u);
        konst = 0;
    } else if (off == offsetof(cml_expr_vars, bx)) {
        memset(r->g, 0, c->T * sizeof *r->g);
        r->step = 1;
        konst = 0;
    } else if (off == offsetof(cml_expr_vars, bdx)) {
        k = (int64_t)l->bdx;
    } else if (off == offsetof(cml_expr_vars, bdy)) {
        k = (int64_t)l->bdy;
    } else if (off == offsetof(cml_expr_vars, gdx)) {
        k = (int64_t)c->grid;
    } else if (off == offsetof(cml_expr_vars, gdy)) {
        k = 1;
    } else if (off == offsetof(cml_expr_vars, n)) {
        k = l->n;
    } /* by: 0 */
    if (konst)
        for (uint64_t t = 0; t < c->T; t++)
            r->g[t] = k;
    aff_done(c, r);
}

/* The constant operand of a K form as an affine value (the pool's spare
 * vector holds it). */
static void const_value(shape_ctx *c, int64_t k, aval *kv)
{
    kv->kind = AV_AFF;
    kv->step = 0;
    kv->lo = kv->hi = k;
    kv->g = c->vectors ? c->pool + c->depth * c->T : NULL;
    for (uint64_t t = 0; c->vectors && t < c->T; t++)
        kv->g[t] = k;
    if (!c->vectors)
        kv->kind = AV_ITV;
}

/* The interval of a variable (the vectors too large to keep). */
static void var_interval(const shape_ctx *c, const cml_expr_launch *l, uint16_t off, aval *r)
{
    const uint64_t last = l->threads - 1u;
    r->kind = AV_ITV;
    r->g = NULL;
    r->lo = 0;
    if (off == offsetof(cml_expr_vars, i))
        r->hi = (int64_t)last;
    else if (off == offsetof(cml_expr_vars, tx))
        r->hi = (int64_t)(l->bdx - 1u);
    else if (off == offsetof(cml_expr_vars, ty))
        r->hi = (int64_t)(l->bdy - 1u);
    else if (off == offsetof(cml_expr_vars, lane))
        r->hi = 31;
    else if (off == offsetof(cml_expr_vars, bx))
        r->hi = (int64_t)(c->grid - 1u);
    else if (off == offsetof(cml_expr_vars, bdx))
        r->lo = r->hi = (int64_t)l->bdx;
    else if (off == offsetof(cml_expr_vars, bdy))
        r->lo = r->hi = (int64_t)l->bdy;
    else if (off == offsetof(cml_expr_vars, gdx))
        r->lo = r->hi = (int64_t)c->grid;
    else if (off == offsetof(cml_expr_vars, gdy))
        r->lo = r->hi = 1;
    else if (off == offsetof(cml_expr_vars, n))
        r->lo = r->hi = l->n;
    else
        r->hi = 0; /* by */
}

/* Run the program over abstract values; the result in *res. */
static void run(shape_ctx *c, const cml_expr *e, const cml_expr_launch *l, aval *st, aval *res)
{
    size_t sp = 0;
    for (size_t pc = 0; pc < e->n; pc++) {
        const cml_insn *p = &e->code[pc];
        unsigned op = p->op;
        if (op == OP_CONST || op == OP_VAR) {
            aval *r = &st[sp];
            r->g = c->vectors ? c->pool + sp * c->T : NULL;
            if (op == OP_VAR) {
                if (c->vectors)
                    var_value(c, l, p->off, r);
                else
                    var_interval(c, l, p->off, r);
            } else {
                r->kind = c->vectors ? AV_AFF : AV_ITV;
                r->step = 0;
                r->lo = r->hi = p->k;
                for (uint64_t t = 0; c->vectors && t < c->T; t++)
                    r->g[t] = p->k;
            }
            sp++;
            continue;
        }
        if (op == OP_NEG || op == OP_NOT) {
            aval *r = &st[sp - 1];
            if (op == OP_NEG && r->lo == INT64_MIN)
                c->may_fail = 1; /* -INT64_MIN somewhere (block 0: found below) */
            if (r->g) {
                for (uint64_t t = 0; t < c->T; t++) {
                    if (op == OP_NOT)
                        r->g[t] = ~r->g[t];
                    else if (r->g[t] == INT64_MIN)
                        note_fail(c, t);
                    else
                        r->g[t] = -r->g[t];
                }
            }
            if (r->kind == AV_AFF && r->step == INT64_MIN) {
                c->may_fail = 1;
                to_itv(r);
            } else if (r->kind == AV_AFF) {
                r->step = -r->step;
            }
            const int64_t lo = r->lo, hi = r->hi;
            r->lo = op == OP_NOT ? ~hi : (hi == INT64_MIN ? INT64_MAX : -hi);
            r->hi = op == OP_NOT ? ~lo : (lo == INT64_MIN ? INT64_MAX : -lo);
            continue;
        }
        /* binary: the K forms and the power-of-two forms take a constant */
        aval kv, *a, *b;
        if (op >= OP_ADDK) {
            int64_t k = p->k;
            if (op == OP_DIVP2 || op == OP_MODP2) {
                k = (int64_t)1 << p->off;
                op = op == OP_DIVP2 ? OP_DIV : OP_MOD;
            } else {
                op -= OP_K_DELTA;
            }
            const_value(c, k, &kv);
            a = &st[sp - 1];
            b = &kv;
        } else {
            a = &st[sp - 2];
            b = &st[sp - 1];
            sp--;
        }
        aval r = *a; /* the result takes a's slot and vector */
        if (!c->vectors || a->kind != AV_AFF || b->kind != AV_AFF ||
            !aff_binop(c, op, a, b, &r)) {
            int64_t lo, hi;
            if (itv_binop(op, a->lo, a->hi, b->lo, b->hi, &lo, &hi))
                c->may_fail = 1;
            r.kind = AV_ITV;
            r.g = a->g;
            if (c->vectors)
                elementwise(c, op, a, b, &r); /* block 0 exactly: its failures */
            r.lo = lo;
            r.hi = hi;
        }
        *a = r;
    }
    *res = st[0];
}

cml_status cml_expr_shape_of(const cml_expr *e, const cml_expr_launch *l, int64_t *first,
                             cml_expr_shape *out)
{
    if (!e || !l || !out || l->bdx == 0 || l->bdy == 0 || l->threads == 0 ||
        l->bdx > 65536u || l->bdy > 65536u || e->n == 0)
        return CML_EINVAL;
    memset(out, 0, sizeof *out);
    shape_ctx c;
    memset(&c, 0, sizeof c);
    c.block = l->bdx * l->bdy;
    c.grid = l->threads / c.block + (l->threads % c.block ? 1u : 0u);
    c.F = l->threads / c.block;
    c.rem = l->threads % c.block;
    c.T = l->threads < c.block ? l->threads : c.block;
    c.fail_t = UINT64_MAX;
    c.depth = e->stack + 2u;
    c.vectors = c.depth + 1u <= MAX_VECTOR_VALUES / c.T;
    aval *st = calloc(c.depth, sizeof *st);
    if (c.vectors)
        c.pool = malloc((c.depth + 1u) * c.T * sizeof *c.pool);
    if (!st || (c.vectors && !c.pool)) {
        free(st);
        free(c.pool);
        return CML_ENOMEM;
    }
    aval res;
    run(&c, e, l, st, &res);
    out->fails = c.fail_t != UINT64_MAX;
    out->fail_thread = out->fails ? c.fail_t : 0;
    out->bounded = !out->fails && !c.may_fail;
    out->affine = out->bounded && res.kind == AV_AFF;
    out->step = out->affine ? res.step : 0;
    out->lo = out->bounded ? res.lo : INT64_MIN;
    out->hi = out->bounded ? res.hi : INT64_MAX;
    if (out->affine && first)
        memcpy(first, res.g, c.T * sizeof *first);
    free(st);
    free(c.pool);
    return CML_OK;
}
