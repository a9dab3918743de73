/*
 * The table the hierarchy's report opens with (docs/experiments/hierarchy.md,
 * "The opening table"): for each level, L1, L2 (and its near and far halves
 * where the chase's hops show two modes) and DRAM, the bandwidth of the best
 * read and the latency of a chase at a size that level serves, each with the
 * level the model's capacity rule names for its size. Made from the records
 * alone after the sweep (hier_finish), so tests/test_hierarchy_opening.c
 * checks it on a synthetic set.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "lab/common.h"

enum { C_LEVEL, C_GBS, C_READ_AT, C_READ_MODEL, C_CYCLES, C_NS, C_CHASE_AT, C_CHASE_MODEL, NCOLS };

static const char *label(const cml_record *rec, const char *name)
{
    const cml_record_param *p = cml_record_find_param(rec, name);
    return p ? p->label : "";
}

static double ws_of(const cml_record *rec)
{
    const cml_record_param *p = cml_record_find_param(rec, "ws");
    return p ? (double)p->value : NAN;
}

/* The level a record's size is served by: the counters' where they were
 * read, else the model's (level codes: cml_hier_level_code). */
static double served(const cml_record *rec)
{
    const double meas = cml_record_extra(rec, "level_meas", NAN);
    return isnan(meas) ? cml_record_extra(rec, "level_pred", NAN) : meas;
}

static int at_level(const cml_record *rec, double code)
{
    const double l = served(rec);
    return l == code || (code == 3.0 && l == 4.0); /* DRAM+TLB is DRAM's row */
}

static int usable(const cml_record *rec, const char *op)
{
    return rec->state == CML_REC_OK && rec->measured && strcmp(label(rec, "op"), op) == 0;
}

/* The best read at the level: of the l2-mode=slice reads where there are
 * any (the peers' quantity), else of all. NULL: none. */
static const cml_record *best_read(const cml_record *recs, size_t n, double code)
{
    for (int pass = 0; pass < 2; pass++) {
        const cml_record *best = NULL;
        for (size_t i = 0; i < n; i++) {
            const cml_record *r = &recs[i];
            if (!usable(r, "read") || !at_level(r, code) || !(r->bandwidth_gbs > 0) ||
                (pass == 0 && strcmp(label(r, "l2-mode"), "slice") != 0))
                continue;
            if (!best || r->bandwidth_gbs > best->bandwidth_gbs)
                best = r;
        }
        if (best)
            return best;
    }
    return NULL;
}

/* The chase at the level with the smallest set (deepest inside L1, the
 * first past L1 or L2), random order where there is one; with two modes
 * (`modes`) only those that show them. NULL: none. */
static const cml_record *pick_chase(const cml_record *recs, size_t n, double code, int modes)
{
    for (int pass = 0; pass < 2; pass++) {
        const cml_record *pick = NULL;
        for (size_t i = 0; i < n; i++) {
            const cml_record *r = &recs[i];
            if (!usable(r, "chase") || !at_level(r, code) ||
                isnan(cml_record_extra(r, "cycles_per_load", NAN)) ||
                (modes && isnan(cml_record_extra(r, "near_cycles", NAN))) ||
                (pass == 0 && strcmp(label(r, "pattern"), "random") != 0))
                continue;
            if (!pick || ws_of(r) < ws_of(pick))
                pick = r;
        }
        if (pick)
            return pick;
    }
    return NULL;
}

static void bytes_cell(cml_exp_table *t, unsigned row, unsigned col, const cml_record *rec)
{
    char b[32];
    cml_fmt_bytes(b, sizeof b, ws_of(rec));
    cml_table_text(t, row, col, b);
}

static void model_cell(cml_exp_table *t, unsigned row, unsigned col, const cml_record *rec)
{
    const double code = cml_record_extra(rec, "level_pred", NAN);
    const char *name = "-";
    for (int l = 0; l < CML_HIER_LEVEL_COUNT; l++)
        if (cml_hier_level_code((cml_hier_level)l) == code)
            name = cml_hier_level_name((cml_hier_level)l);
    cml_table_text(t, row, col, name);
}

/* One row: `extra` the chase's cycles figure (cycles_per_load, or a mode's). */
static void add_row(cml_exp_table *t, const char *level, const cml_record *rd,
                    const cml_record *ch, const char *extra)
{
    const unsigned r = t->nrows++;
    cml_table_text(t, r, C_LEVEL, level);
    for (unsigned c = 1; c < NCOLS; c++)
        cml_table_number(t, r, c, NAN);
    if (rd) {
        cml_table_number(t, r, C_GBS, rd->bandwidth_gbs);
        bytes_cell(t, r, C_READ_AT, rd);
        model_cell(t, r, C_READ_MODEL, rd);
    }
    if (ch) {
        const double cyc = cml_record_extra(ch, extra, NAN);
        const double per = cml_record_extra(ch, "cycles_per_load", NAN);
        const double ns = cml_record_extra(ch, "ns_per_load", NAN);
        cml_table_number(t, r, C_CYCLES, cyc);
        /* ns at the clock the walk ran at: its ns over its cycles */
        cml_table_number(t, r, C_NS, per > 0 ? cyc * ns / per : NAN);
        bytes_cell(t, r, C_CHASE_AT, ch);
        model_cell(t, r, C_CHASE_MODEL, ch);
    }
}

int cml_hier_opening(const cml_record *recs, size_t n, cml_exp_table *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->experiment, sizeof t->experiment, "hierarchy");
    snprintf(t->title, sizeof t->title,
             "Levels: the best read (l2-mode=slice where run) and the smallest chase (random "
             "where run) at a size each level serves, by the counters where read, else by the "
             "model; model: the level its capacity rule names for that size.");
    static const char *const heads[NCOLS] = {"level",  "GB/s", "read at",  "model (read)",
                                             "cycles", "ns",   "chase at", "model (chase)"};
    static const int decimals[NCOLS] = {0, 0, 0, 0, 1, 1, 0, 0};
    t->ncols = NCOLS;
    for (unsigned c = 0; c < NCOLS; c++) {
        snprintf(t->column[c], sizeof t->column[c], "%s", heads[c]);
        t->decimals[c] = decimals[c];
    }
    static const struct { const char *name; double code; } levels[] = {
        {"L1", 1.0}, {"L2", 2.0}, {"DRAM", 3.0}};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        const cml_record *rd = best_read(recs, n, levels[l].code);
        const cml_record *ch = pick_chase(recs, n, levels[l].code, 0);
        if (rd || ch)
            add_row(t, levels[l].name, rd, ch, "cycles_per_load");
        const cml_record *two = levels[l].code == 2.0 ? pick_chase(recs, n, 2.0, 1) : NULL;
        if (two) {
            add_row(t, "L2 near", NULL, two, "near_cycles");
            add_row(t, "L2 far", NULL, two, "far_cycles");
        }
    }
    return t->nrows > 0;
}
