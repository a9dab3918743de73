/*
 * Checking a record's five cache-level figures and their intervals against
 * hand-derived values (the closed-form levels of hierarchy and
 * l2-residency). Include after test_util.h.
 */
#ifndef CML_LEVELS_TEST_UTIL_H
#define CML_LEVELS_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cumemlab/cache.h"
#include "core/record.h"

/* Value, lo, hi of one figure. */
typedef struct want3 {
    uint64_t v, lo, hi;
} want3;

/* One check: v, lo and hi each within `slack` of the wanted ones (0:
 * equal; 1 where the figures are rounded from doubles). */
static inline void check_fig(const char *what, const char *fig, uint64_t v, uint64_t lo,
                             uint64_t hi, want3 w, unsigned slack)
{
    const int ok = llabs((long long)(v - w.v)) <= (long long)slack &&
                   llabs((long long)(lo - w.lo)) <= (long long)slack &&
                   llabs((long long)(hi - w.hi)) <= (long long)slack;
    cml_test_checks++;
    if (!ok) {
        cml_test_failures++;
        fprintf(stderr, "%s %s: %llu [%llu, %llu], want %llu [%llu, %llu]\n", what, fig,
                (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi,
                (unsigned long long)w.v, (unsigned long long)w.lo, (unsigned long long)w.hi);
    }
}

/* The record's levels bounded, consistent, and each figure as wanted. */
static inline void check_levels_slack(const char *what, const cml_record *rec, unsigned slack,
                                      want3 hit, want3 l2r, want3 l2w, want3 dr, want3 dw)
{
    const cml_levels *l = &rec->levels;
    CHECK(rec->has_levels && l->bounded);
    CHECK(cml_levels_bounds_ok(l));
    check_fig(what, "L1 hit", l->l1_hit_sectors, l->lo.l1_hit_sectors, l->hi.l1_hit_sectors, hit,
              slack);
    check_fig(what, "L2 read", l->l2_read_sectors, l->lo.l2_read_sectors, l->hi.l2_read_sectors,
              l2r, slack);
    check_fig(what, "L2 write", l->l2_write_sectors, l->lo.l2_write_sectors,
              l->hi.l2_write_sectors, l2w, slack);
    check_fig(what, "DRAM read", l->dram_read_bytes, l->lo.dram_read_bytes, l->hi.dram_read_bytes,
              dr, slack);
    check_fig(what, "DRAM write", l->dram_write_bytes, l->lo.dram_write_bytes,
              l->hi.dram_write_bytes, dw, slack);
}

#endif
