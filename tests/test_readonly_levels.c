/*
 * The cache levels of experiment 7's hot-table gather beyond the span
 * pass's limit for a settled window (CML_SPAN_INS): the DRAM reads' low end
 * is the table, derived by hand, not the window's cold misses carried to
 * the end (docs/model.md §16.8).
 *
 * pattern=hot-gather table=4M n=2^24 on the model's H100: 2^19 warps of one
 * load and one store, 2^20 warp instructions. Every warp reads 32 lines of
 * the table at the same lane offsets, shifted by whole lines
 * (cml_hot_index): over the warps every line is hit by every lane, and the
 * lanes' offsets cover the four sectors of a line, so the loads touch all
 * 131072 sectors, 65536 granules of 64 bytes: the compulsory reads are
 * 4 MiB exactly. The window of the first blocks still meets cold table
 * sectors when it ends (its rates do not settle, and 99% of its loads hit
 * in L2), and its miss rate carried to 2^24 loads says several MiB more:
 * the point keeps it (C, 64 MiB streamed, and the table do not fit in L2
 * together), the low end is the table. L2 writes: C's 2^24 floats, 2^21
 * sectors, a point.
 */
#include <string.h>

#include "lab/common.h"
#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "test_util.h"

#define MIB (UINT64_C(1) << 20)

static void test_hot_gather_table(void)
{
    cml_results r;
    CHECK_EQ_I64(run_model(&cml_exp_readonly, "pattern=hot-gather path=ca,cg table=4M n=2^24", &r),
                 CML_OK);
    const char *names[2] = {"pattern=hot-gather path=ca table=4194304 block=256",
                            "pattern=hot-gather path=cg table=4194304 block=256"};
    for (int k = 0; k < 2; k++) {
        const cml_record *rec = find(&r, names[k]);
        if (!rec)
            continue;
        const cml_levels *lv = &rec->levels;
        CHECK(rec->has_levels && lv->bounded && lv->sampled);
        CHECK(!lv->settled);
        CHECK_EQ_U64(lv->lo.dram_read_bytes, 4 * MIB);
        CHECK(lv->dram_read_bytes > 4 * MIB);
        CHECK_EQ_U64(lv->lo.l2_write_sectors, UINT64_C(1) << 21);
        CHECK_EQ_U64(lv->hi.l2_write_sectors, UINT64_C(1) << 21);
    }
    cml_results_free(&r);
}

int main(void)
{
    test_hot_gather_table();
    return cml_test_summary("test_readonly_levels");
}
