/*
 * The cache levels' configuration: the H100's, its check, and what follows
 * from it for a launch (resident blocks, L1 capacity). cumemlab/cache.h.
 */
#include "cumemlab/cache.h"

#include <string.h>

#define KIB UINT64_C(1024)

static const unsigned carveout_kib[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

void cml_cache_config_h100(cml_cache_config *c)
{
    memset(c, 0, sizeof *c);
    c->sm_count = 132;
    c->max_threads_per_sm = 2048;
    c->max_blocks_per_sm = 32;
    c->l1_total_bytes = 256 * KIB;
    c->smem_per_sm = 228 * KIB;
    c->l2_bytes = 50 * KIB * KIB;
    c->l2_partitions = 1;
    c->dram_granule = 64;
    /* Measured (docs/model-evidence.md, the cache levels): the dirty data
     * an H100's L2 still holds when a streaming kernel ends. */
    c->clean_age_bytes = 35 * KIB * KIB;
    c->partial_age_bytes = 12 * KIB * KIB;
    c->dirty_max_bytes = 24 * KIB * KIB;
}

cml_status cml_cache_config_check(const cml_cache_config *c)
{
    if (!c || c->sm_count == 0 || c->sm_count > 65536u || c->max_threads_per_sm == 0 ||
        c->max_blocks_per_sm == 0 || c->l1_total_bytes < CML_LINE_BYTES ||
        c->l2_bytes < CML_LINE_BYTES * 2u || (c->l2_partitions != 1 && c->l2_partitions != 2) ||
        (c->dram_granule != 32 && c->dram_granule != 64) || c->smem_per_sm > c->l1_total_bytes ||
        c->smem_per_block > c->smem_per_sm || c->l1_total_bytes > (UINT64_C(1) << 40) ||
        c->l2_bytes > (UINT64_C(1) << 40) || c->l1_bytes > c->l1_total_bytes || c->l1_merge > 1u ||
        c->l1_pooled > 1u || c->l2_forget_cs > 1u)
        return CML_EINVAL;
    return CML_OK;
}

unsigned cml_cache_resident_blocks(const cml_cache_config *c, uint64_t threads)
{
    if (c->resident_blocks)
        return c->resident_blocks;
    const uint64_t whole = threads ? (threads + 31u) / 32u * 32u : 32u;
    uint64_t r = c->max_threads_per_sm / whole;
    if (r > c->max_blocks_per_sm)
        r = c->max_blocks_per_sm;
    /* sm_80 and later keep 1 KiB of shared memory per block for the system. */
    uint64_t by_smem = c->smem_per_sm / (c->smem_per_block + KIB);
    if (by_smem < r)
        r = by_smem;
    return r ? (unsigned)r : 1u;
}

uint64_t cml_cache_l1_bytes(const cml_cache_config *c, uint64_t threads)
{
    uint64_t l1;
    if (c->l1_bytes) {
        l1 = c->l1_bytes;
    } else {
        /* The smallest carve-out (Hopper's steps, capped by the SM's
         * maximum) that holds the resident blocks' shared memory, with the
         * 1 KiB per block the system keeps from sm_80 on: at least 8 KiB,
         * so an H100 kernel without shared memory has 248 KiB of L1. */
        uint64_t need = (c->smem_per_block + KIB) * cml_cache_resident_blocks(c, threads);
        uint64_t carve = c->smem_per_sm;
        for (size_t i = 0; i < sizeof carveout_kib / sizeof carveout_kib[0]; i++) {
            uint64_t step = carveout_kib[i] * KIB;
            if (step >= need && step <= c->smem_per_sm) {
                carve = step;
                break;
            }
        }
        l1 = c->l1_total_bytes > carve ? c->l1_total_bytes - carve : 0;
    }
    l1 = l1 / CML_LINE_BYTES * CML_LINE_BYTES;
    return l1 ? l1 : CML_LINE_BYTES;
}
