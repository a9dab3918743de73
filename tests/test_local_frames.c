/*
 * Local memory is backed per resident warp slot, not per warp of the grid
 * (cml_cache_warp_slot, docs/model.md section 7): a block that starts on an
 * SM where one finished reuses its local addresses. Derived by hand:
 *
 * 2 SMs, 2 resident blocks each, blocks of 64 threads (2 warps): 8 warp
 * slots. Each thread stores K = 4 words to local offsets 0, 4, 8, 12: a
 * warp instruction covers 32 lanes x 4 B = 128 B, 4 sectors (word
 * interleave), so a warp's frame is 4 x 4 = 16 sectors, 512 B. A grid of 16
 * blocks (32 warps, 4 times what the SMs hold):
 *   footprint   = 8 slots x 512 B = 4096 B (not 32 warps x 512 B = 16384 B);
 *   L2 writes   = every local store sector, 32 warps x 16 = 512 (the
 *                 traffic does not depend on the addresses).
 */
#include "cumemlab/cache.h"
#include "cumemlab/model.h"
#include "test_util.h"

#include <stdint.h>
#include <string.h>

#define K_WORDS 4u

static void kernel(const cml_thread *t, const void *args, cml_emitter *e)
{
    (void)t;
    (void)args;
    for (unsigned k = 0; k < K_WORDS; k++)
        cml_emit(e, k, CML_SPACE_LOCAL, CML_OP_STORE, CML_CACHE_CA, 4, 4u * k);
}

/* The slot of a warp: SM (block mod SMs) x 4 slots, + wave position
 * ((block / SMs) mod 2) x 2 warps, + warp. */
static void test_slots(void)
{
    CHECK_EQ_U64(cml_cache_warp_slot(2, 2, 2, 0, 0), 0);
    CHECK_EQ_U64(cml_cache_warp_slot(2, 2, 2, 5, 1), 5);  /* SM 1, position 0 */
    CHECK_EQ_U64(cml_cache_warp_slot(2, 2, 2, 7, 1), 7);  /* SM 1, position 1 */
    CHECK_EQ_U64(cml_cache_warp_slot(2, 2, 2, 4, 0), 0);  /* block 0's slots again */
    CHECK_EQ_U64(cml_cache_warp_slot(2, 2, 2, 15, 0), 6); /* SM 1, position 1 */
}

static void test_footprint(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.sm_count = 2;
    c.resident_blocks = 2;
    const cml_dim3 grid = {16, 1, 1}, block = {64, 1, 1};
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, grid, block, kernel, NULL, &k) == CML_OK);
    CHECK_EQ_U64(k.cls[CML_CLASS_LOCAL_ST].sectors, 512);
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    CHECK(cml_trace_levels(&c, grid, block, kernel, NULL, &k, &lv) == CML_OK);
    CHECK_EQ_U64(lv.resident_blocks, 2);
    CHECK_EQ_U64(lv.footprint_bytes, 4096);
    CHECK_EQ_U64(lv.l2_write_sectors, 512);

    /* Blocks that all fit at once (4 blocks): every warp has its own slot,
     * 8 x 512 B again; one block less, 6 warps x 512 B. */
    const cml_dim3 four = {4, 1, 1}, three = {3, 1, 1};
    CHECK(cml_trace_kernel(CML_RULES_MODERN, four, block, kernel, NULL, &k) == CML_OK);
    CHECK(cml_trace_levels(&c, four, block, kernel, NULL, &k, &lv) == CML_OK);
    CHECK_EQ_U64(lv.footprint_bytes, 4096);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, three, block, kernel, NULL, &k) == CML_OK);
    CHECK(cml_trace_levels(&c, three, block, kernel, NULL, &k, &lv) == CML_OK);
    CHECK_EQ_U64(lv.footprint_bytes, 3072);
}

/*
 * The same kernel over 2^15 blocks (65536 warps, 262144 warp instructions:
 * sampled; the window of the first blocks runs one wave or two, and
 * carried to the rest its new frames would say every warp's own). The
 * span pass finds a thread's frame, 16 bytes, so a warp's 512 B, and the
 * grid's local bytes are its 8 slots' frames: 4096 B, the footprint.
 * 4096 B fits every L2 and every horizon: each stored sector is dirtied
 * once (128 sectors) and still dirty at the end, so no DRAM write while
 * the kernel runs (lo, point) and each written back once at most (hi:
 * 4096). L2 writes: every store sector, 65536 warps x 16.
 */
static void test_frames_sampled(void)
{
    cml_cache_config c;
    cml_cache_config_h100(&c);
    c.sm_count = 2;
    c.resident_blocks = 2;
    const cml_dim3 grid = {1u << 15, 1, 1}, block = {64, 1, 1};
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    CHECK(cml_trace_kernel(CML_RULES_MODERN, grid, block, kernel, NULL, &k) == CML_OK);
    cml_levels lv;
    memset(&lv, 0, sizeof lv);
    CHECK(cml_trace_levels(&c, grid, block, kernel, NULL, &k, &lv) == CML_OK);
    CHECK(lv.sampled);
    CHECK_EQ_U64(lv.footprint_bytes, 4096);
    CHECK_EQ_U64(lv.l2_write_sectors, UINT64_C(65536) * 16u);
    CHECK_EQ_U64(lv.lo.dram_write_bytes, 0);
    CHECK_EQ_U64(lv.dram_write_bytes, 0);
    CHECK_EQ_U64(lv.hi.dram_write_bytes, 4096);
    CHECK_EQ_U64(lv.l2_dirty_end_bytes, 4096);
    CHECK_EQ_U64(lv.dram_read_bytes, 0);
}

int main(void)
{
    test_slots();
    test_footprint();
    test_frames_sampled();
    return cml_test_summary("test_local_frames");
}
