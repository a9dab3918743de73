/*
 * Runs of blocks of affine index expressions (expr_runs.h).
 *
 * Block b's values of expression k lie in [lo_k + s_k*b, hi_k + s_k*b]
 * (lo_k, hi_k: block 0's extremes): as b grows the window slides, so a
 * block's kind (every thread in range: CLEAN; some expression wholly out
 * of range: DEAD; otherwise MIXED) changes only where a window edge
 * crosses 0 or n. Those crossings are found by division (each within one
 * block of the quotient; the neighbours are taken as candidates too), the
 * kind is constant between consecutive candidates and checked at both ends
 * of each stretch, and equal neighbours merge.
 */
#include "experiments/expr/expr_runs.h"

#include <stdlib.h>
#include <string.h>

#include "lab/common.h"

enum { DEAD, CLEAN, MIXED };

typedef struct window {
    int64_t lo, hi, step; /* block 0's extremes and the step */
} window;

/* The kind of block b; -1 when a value does not fit (never for blocks of
 * the launch, whose values the caller's shape bounded). */
static int kind_of(const window *w, unsigned nx, uint64_t b, uint64_t n)
{
    int clean = 1;
    for (unsigned k = 0; k < nx; k++) {
        int64_t sb, lo, hi;
        if (__builtin_mul_overflow(w[k].step, (int64_t)b, &sb) ||
            __builtin_add_overflow(w[k].lo, sb, &lo) || __builtin_add_overflow(w[k].hi, sb, &hi))
            return -1;
        if (hi < 0 || (lo >= 0 && (uint64_t)lo >= n))
            return DEAD;
        if (lo < 0 || (uint64_t)hi >= n)
            clean = 0;
    }
    return clean ? CLEAN : MIXED;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Add b and its neighbours, within [0, F], to the candidates. */
static void candidate(uint64_t *c, size_t *nc, int64_t b, uint64_t F)
{
    for (int64_t d = -1; d <= 2; d++) {
        int64_t x;
        if (__builtin_add_overflow(b, d, &x) || x < 0 || (uint64_t)x > F)
            continue;
        c[(*nc)++] = (uint64_t)x;
    }
}

/* Threads of block b (its first `count`) whose index leaves 0..n-1. */
static uint64_t out_of_range(const cml_expr_walk *x, unsigned nx, uint64_t b, uint64_t count,
                             uint64_t n)
{
    uint64_t out = 0;
    for (uint64_t t = 0; t < count; t++) {
        for (unsigned k = 0; k < nx; k++) {
            int64_t sb, v;
            if (__builtin_mul_overflow(x[k].step, (int64_t)b, &sb) ||
                __builtin_add_overflow(x[k].first[t], sb, &v) || v < 0 || (uint64_t)v >= n) {
                out++;
                break;
            }
        }
    }
    return out;
}

cml_status cml_expr_runs(const cml_expr_walk *x, unsigned nx, uint64_t block, uint64_t threads,
                         uint64_t n, uint64_t elem, uint64_t max_single, cml_exp_axis *axis,
                         uint64_t *inactive)
{
    memset(axis, 0, sizeof *axis);
    *inactive = 0;
    if (nx == 0 || nx > 2 || block == 0 || threads == 0)
        return CML_EINVAL;
    const uint64_t F = threads / block, rem = threads % block;
    window w[2];
    uint64_t period = 1;
    for (unsigned k = 0; k < nx; k++) {
        const uint64_t T = F ? block : rem;
        w[k].lo = INT64_MAX;
        w[k].hi = INT64_MIN;
        for (uint64_t t = 0; t < T; t++) {
            w[k].lo = x[k].first[t] < w[k].lo ? x[k].first[t] : w[k].lo;
            w[k].hi = x[k].first[t] > w[k].hi ? x[k].first[t] : w[k].hi;
        }
        w[k].step = x[k].step;
        /* the shift in bytes modulo 128 is all the period needs (128
         * divides 2^64, so the wrapped product has the right residue) */
        const uint64_t p = cml_exp_line_period((uint64_t)x[k].step * elem);
        period = p > period ? p : period;
    }
    cml_status st = CML_OK;
    if (F > 0) {
        /* candidates: 0, F and every window edge's crossings of 0 and n */
        uint64_t c[2 + 2 * 2 * 2 * 4];
        size_t nc = 0;
        c[nc++] = 0;
        c[nc++] = F;
        for (unsigned k = 0; k < nx; k++) {
            if (w[k].step == 0)
                continue;
            const int64_t edges[2] = {w[k].lo, w[k].hi};
            const int64_t marks[2] = {0, n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n};
            for (int e = 0; e < 2; e++)
                for (int m = 0; m < 2; m++) {
                    int64_t d;
                    if (__builtin_sub_overflow(marks[m], edges[e], &d))
                        return CML_EUNSUPPORTED;
                    candidate(c, &nc, d / w[k].step, F);
                }
        }
        qsort(c, nc, sizeof *c, cmp_u64);
        uint64_t single = 0;
        int prev = -2;
        for (size_t i = 0; i + 1 < nc && st == CML_OK; i++) {
            const uint64_t from = c[i], to = c[i + 1];
            if (from == to)
                continue;
            const int kind = kind_of(w, nx, from, n);
            if (kind < 0 || kind_of(w, nx, to - 1u, n) != kind)
                return CML_EUNSUPPORTED; /* a crossing between candidates: cannot be */
            if (kind == MIXED) {
                single += to - from;
                if (single > max_single)
                    return CML_EUNSUPPORTED;
                for (uint64_t b = from; b < to; b++)
                    *inactive += out_of_range(x, nx, b, block, n);
            } else if (kind == DEAD) {
                *inactive += (to - from) * block;
            }
            const uint64_t p = kind == CLEAN ? period : kind == DEAD ? 1u : to - from;
            if (kind == prev) { /* the same kind goes on */
                cml_exp_run *r = &axis->run[axis->nruns - 1u];
                r->count += to - from;
                if (kind == MIXED)
                    r->period = r->count;
                continue;
            }
            st = cml_exp_axis_add(axis, to - from, p);
            prev = kind;
        }
    }
    if (st == CML_OK && rem) {
        *inactive += out_of_range(x, nx, F, rem, n);
        st = cml_exp_axis_add(axis, 1, 1);
    }
    return st == CML_OK ? CML_OK : CML_EUNSUPPORTED;
}
