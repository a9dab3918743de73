/*
 * The table the hierarchy's report opens with (hierarchy_opening.c), made
 * from a synthetic run whose records are chosen to test each rule: the
 * best read of l2-mode=slice though a shared read is faster, the counters'
 * level over the model's (a 48 MiB read the model puts at the L2/DRAM edge
 * and the counters at DRAM), the smallest random chase though a smaller
 * stride one exists, the near and far rows from the chase that shows two
 * modes, ns at each walk's own clock, and records that failed or were not
 * measured left out.
 */
#include <math.h>
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "test_util.h"

#define KIB 1024ll
#define MIB (1024ll * KIB)

static cml_record recs[16];
static size_t nrec;

static cml_record *add(const char *op, int64_t ws, const char *mode_name, const char *mode,
                       double pred, double meas)
{
    cml_record *r = &recs[nrec++];
    memset(r, 0, sizeof *r);
    snprintf(r->experiment, sizeof r->experiment, "hierarchy");
    r->state = CML_REC_OK;
    r->measured = 1;
    cml_record_add_param(r, "ws", ws, "");
    if (mode_name)
        cml_record_add_param(r, mode_name, 0, mode);
    cml_record_add_param(r, "op", 0, op);
    cml_record_add_extra(r, "level_pred", pred, "");
    if (!isnan(meas))
        cml_record_add_extra(r, "level_meas", meas, "");
    return r;
}

static void chase(int64_t ws, const char *pattern, double pred, double cycles, double ns)
{
    cml_record *r = add("chase", ws, "pattern", pattern, pred, NAN);
    cml_record_add_extra(r, "cycles_per_load", cycles, "cycles");
    cml_record_add_extra(r, "ns_per_load", ns, "ns");
}

static void check_text(const cml_exp_table *t, unsigned row, unsigned col, const char *want)
{
    CHECK_STR_EQ(t->cell[row][col].text, want);
}

static void check_num(const cml_exp_table *t, unsigned row, unsigned col, double want)
{
    CHECK_STR_EQ(t->cell[row][col].text, "");
    if (isnan(want))
        CHECK(isnan(t->cell[row][col].value));
    else
        CHECK_NEAR(t->cell[row][col].value, want, 1e-9);
}

int main(void)
{
    /* Reads: L1 64 KiB (slice 20000, shared 25000: slice wins), L2 4 MiB
     * and 16 MiB slice (8000, 8500: the best, 16 MiB) and a 4 MiB shared
     * one of 12000 (not the peers' quantity), DRAM: 256 MiB (3000) and 48
     * MiB (3100, counters DRAM, the model's L2/DRAM edge: the best). */
    add("read", 64 * KIB, "l2-mode", "slice", 1, 1)->bandwidth_gbs = 20000;
    add("read", 64 * KIB, "l2-mode", "shared", 1, 1)->bandwidth_gbs = 25000;
    add("read", 4 * MIB, "l2-mode", "slice", 2, 2)->bandwidth_gbs = 8000;
    add("read", 4 * MIB, "l2-mode", "shared", 2, 2)->bandwidth_gbs = 12000;
    add("read", 16 * MIB, "l2-mode", "slice", 2, 2)->bandwidth_gbs = 8500;
    add("read", 256 * MIB, "l2-mode", "slice", 3, 3)->bandwidth_gbs = 3000;
    add("read", 48 * MIB, "l2-mode", "slice", 2.5, 3)->bandwidth_gbs = 3100;
    /* A failed read and one the GPU did not measure: neither counts. */
    cml_record *bad = add("read", 8 * MIB, "l2-mode", "slice", 2, 2);
    bad->bandwidth_gbs = 99999;
    bad->state = CML_REC_FAILED;
    add("read", 8 * MIB, "l2-mode", "slice", 2, NAN)->measured = 0;
    /* Chases (no counters: the model's level): L1 16 KiB stride (30
     * cycles) and 32 KiB random (35, 17.5 ns: the random one); L2 4 MiB
     * (280, 140 ns) and 32 MiB with two modes (390 cycles, 195 ns; near
     * 279, far 505); DRAM 256 MiB (600, 300 ns). */
    chase(16 * KIB, "stride", 1, 30, 15);
    chase(32 * KIB, "random", 1, 35, 17.5);
    chase(4 * MIB, "random", 2, 280, 140);
    chase(32 * MIB, "random", 2, 390, 195);
    cml_record_add_extra(&recs[nrec - 1], "near_cycles", 279, "cycles");
    cml_record_add_extra(&recs[nrec - 1], "far_cycles", 505, "cycles");
    chase(256 * MIB, "random", 3, 600, 300);

    cml_exp_table t;
    CHECK_EQ_I64(cml_hier_opening(recs, nrec, &t), 1);
    CHECK_STR_EQ(t.experiment, "hierarchy");
    CHECK_EQ_U64(t.ncols, 8);
    CHECK_STR_EQ(t.column[1], "GB/s");
    CHECK_STR_EQ(t.column[7], "model (chase)");
    CHECK_EQ_U64(t.nrows, 5);
    /* L1 */
    check_text(&t, 0, 0, "L1");
    check_num(&t, 0, 1, 20000);
    check_text(&t, 0, 2, "64.0 KiB");
    check_text(&t, 0, 3, "L1");
    check_num(&t, 0, 4, 35);
    check_num(&t, 0, 5, 17.5);
    check_text(&t, 0, 6, "32.0 KiB");
    check_text(&t, 0, 7, "L1");
    /* L2: the best slice read (16 MiB), the smallest chase (4 MiB) */
    check_text(&t, 1, 0, "L2");
    check_num(&t, 1, 1, 8500);
    check_text(&t, 1, 2, "16.0 MiB");
    check_num(&t, 1, 4, 280);
    check_num(&t, 1, 5, 140);
    check_text(&t, 1, 6, "4.0 MiB");
    /* Near and far from the 32 MiB chase, ns at its 2 cycles a ns:
     * 279 x 195 / 390 = 139.5, 505 x 195 / 390 = 252.5; no bandwidth. */
    check_text(&t, 2, 0, "L2 near");
    check_num(&t, 2, 1, NAN);
    check_num(&t, 2, 2, NAN);
    check_num(&t, 2, 4, 279);
    check_num(&t, 2, 5, 139.5);
    check_text(&t, 2, 6, "32.0 MiB");
    check_text(&t, 2, 7, "L2");
    check_text(&t, 3, 0, "L2 far");
    check_num(&t, 3, 4, 505);
    check_num(&t, 3, 5, 252.5);
    /* DRAM: the 48 MiB read, placed by the counters, the model's edge beside */
    check_text(&t, 4, 0, "DRAM");
    check_num(&t, 4, 1, 3100);
    check_text(&t, 4, 2, "48.0 MiB");
    check_text(&t, 4, 3, "L2/DRAM");
    check_num(&t, 4, 4, 600);
    check_num(&t, 4, 5, 300);
    check_text(&t, 4, 7, "DRAM");

    /* Without the two-mode chase: no near and far rows. */
    CHECK_EQ_I64(cml_hier_opening(recs, nrec - 2, &t), 1);
    CHECK_EQ_U64(t.nrows, 3);
    CHECK_STR_EQ(t.cell[2][0].text, "DRAM");
    CHECK(isnan(t.cell[2][4].value)); /* no DRAM chase among them */
    /* Nothing measured: no table. */
    for (size_t i = 0; i < nrec; i++)
        recs[i].measured = 0;
    CHECK_EQ_I64(cml_hier_opening(recs, nrec, &t), 0);
    CHECK_EQ_U64(t.nrows, 0);
    return cml_test_summary("test_hierarchy_opening");
}
