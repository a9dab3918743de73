/*
 * What the hierarchy experiment's pointer chase shares between its kernel,
 * its mirror and the host (hierarchy_body.h includes it): the permutation
 * the table is one cycle of, the chain the mirror's loads read, and the bins
 * of the histogram of the timed hops' cycles. Functions of both sides
 * (CML_HD), no kernel.
 */
#ifndef CML_HIERARCHY_CHASE_H
#define CML_HIERARCHY_CHASE_H

#include <stdint.h>

#include "gpu/kernel_body.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The pointer chase visits the m slots of its table in the order
 * sigma(0), sigma(1), ..., sigma(m-1), sigma(0), ...: slot sigma(p) holds the
 * address of slot sigma(p+1 mod m), so the table is one cycle through every
 * slot. `stride` uses sigma(p) = p; `random` a bijection of [0, m): two
 * rounds of multiply-by-odd, xorshift and add on k bits (2^k >= m, every
 * step invertible modulo 2^k), walked again while the value is m or more
 * (cycle walking: a bijection of [0, 2^k) restricted to [0, m) stays one).
 * Its inverse (hierarchy_model.c) lets the host say where a chase of K hops
 * from any slot ends.
 */
typedef struct cml_hier_perm {
    uint64_t m;           /* slots */
    uint64_t mask;        /* 2^k - 1 */
    uint64_t mul1, mul2;  /* odd multipliers */
    uint64_t inv1, inv2;  /* their inverses modulo 2^64 */
    uint64_t add;
    unsigned shift, bits; /* xorshift distance, k */
    int identity;         /* the stride pattern: sigma(p) = p */
} cml_hier_perm;

CML_HD uint64_t cml_hier_perm_round(const cml_hier_perm *q, uint64_t x)
{
    x = (x * q->mul1) & q->mask;
    x ^= x >> q->shift;
    x = (x + q->add) & q->mask;
    x = (x * q->mul2) & q->mask;
    x ^= x >> q->shift;
    return x;
}

/* sigma(p), p < m. */
CML_HD uint64_t cml_hier_perm_apply(const cml_hier_perm *q, uint64_t p)
{
    if (q->identity)
        return p;
    uint64_t x = cml_hier_perm_round(q, p);
    while (x >= q->m)
        x = cml_hier_perm_round(q, x);
    return x;
}

/* The chase's table as the model sees it: the pointer at position `pos` of
 * the cycle (slot sigma(pos mod m), `hop` bytes a slot from `table`), which
 * the slot of position pos - 1 holds. The mirror's loads return it. */
typedef struct cml_hier_chain {
    const cml_hier_perm *perm;
    uint64_t table, hop;
} cml_hier_chain;

CML_HD uint64_t cml_hier_chain_ptr(const cml_hier_chain *c, uint64_t pos)
{
    return c->table + c->hop * cml_hier_perm_apply(c->perm, pos % c->perm->m);
}

/*
 * The per-hop histogram's bins (docs/experiments/hierarchy.md, "Near and far
 * L2"): four a doubling from 16 cycles, bin k = 4 (e - 4) + f for a hop of d
 * cycles with 2^e <= d < 2^(e+1) and f the two bits of d below its leading
 * one, so bin k holds [2^(e-2) (4 + f), 2^(e-2) (5 + f)): [16, 20), [20, 24),
 * ..., [256, 320), ..., [3584, 4096). A hop under 16 cycles counts in bin 0,
 * one of 4096 or more in bin 31. Quarter octaves: 279 and 505 cycles (an
 * H100's near and far L2) fall 3 bins apart, with 2 bins between for the
 * valley; 32 bins, one a lane, so that a hop costs its warp a compare and an
 * add whatever its bin.
 */
#define CML_HIER_HIST_BINS 32u
#define CML_HIER_HIST_LOW 16u
CML_HD unsigned cml_hier_hist_bin(uint64_t d)
{
    if (d < CML_HIER_HIST_LOW)
        return 0;
    unsigned e = 0; /* floor(log2 d) */
#ifdef __CUDA_ARCH__
    e = 63u - (unsigned)__clzll((long long)d);
#else
    while (d >> (e + 1))
        e++;
#endif
    const unsigned k = 4u * (e - 4u) + (unsigned)((d >> (e - 2u)) & 3u);
    return k < CML_HIER_HIST_BINS ? k : CML_HIER_HIST_BINS - 1u;
}
#define CML_HIER_CHASE_MAX_WARPS 4096u
#ifdef __cplusplus
}
#endif

#endif
