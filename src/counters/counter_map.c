/*
 * The counter map (counter_map.h): which hardware metric the model predicts
 * with which output. Metric names are Nsight Compute's sm_70..sm_90 names;
 * docs/model.md §12 gives the rule behind each row (§12.1) and the names
 * already accepted on an H100 (§12.2).
 */
#include <math.h>
#include <string.h>

#include "counters/counter_map.h"

static const cml_counter_def map[] = {
    /* Global loads (docs/model.md §2: R-G1 requests, R-G2 sectors, R-G7 efficiency). */
    /* Instructions issued, as SASS: including those whose predicate is off
     * in every lane (an unrolled `if (j < touched)` loop), which send no
     * request and which a C mirror cannot see: informational (E1 in
     * docs/model-evidence.md). The model's instructions are the requests. */
    {"smsp__inst_executed_op_global_ld.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "warp-level global load instructions issued (predicated-off ones included)"},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", CML_CLASS_GLOBAL_LD, CML_CTR_REQUESTS,
     CML_CTR_EXACT, "global load requests into L1TEX (one per instruction)"},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", CML_CLASS_GLOBAL_LD, CML_CTR_SECTORS,
     CML_CTR_EXACT,
     "32-byte sectors the global loads touch (distinct per instruction)"},
    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", CML_CLASS_GLOBAL_LD,
     CML_CTR_EFFICIENCY, CML_CTR_PERCENT,
     "global load efficiency: requested bytes / (32 * sectors), percent"},
    /* Global stores (docs/model.md §4.1: R-S1, R-S2). */
    {"smsp__inst_executed_op_global_st.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "warp-level global store instructions issued (predicated-off ones included)"},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", CML_CLASS_GLOBAL_ST, CML_CTR_REQUESTS,
     CML_CTR_EXACT, "global store requests into L1TEX"},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", CML_CLASS_GLOBAL_ST, CML_CTR_SECTORS,
     CML_CTR_EXACT, "32-byte sectors the global stores touch"},
    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", CML_CLASS_GLOBAL_ST,
     CML_CTR_EFFICIENCY, CML_CTR_PERCENT,
     "global store efficiency: bytes written / (32 * sectors), percent"},
    /* Caches and DRAM: cache state across warps, not predicted per instruction
     * (docs/model.md §13). */
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "global load sectors that hit in L1"},
    {"lts__t_sectors_srcunit_tex_op_read.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "sectors L1TEX read from L2 (global, local and texture misses)"},
    /* Of those, the ones the L2 partition they reached first held (a miss
     * there may still hit in the other partition: docs/model.md §13 R-G5). */
    {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "sectors L1TEX read from L2 that hit in the L2 partition they reached"},
    /* At most the store sectors (L1 is write-through, E5), fewer when stores
     * of different instructions to one sector meet in L1 before leaving it. */
    {"lts__t_sectors_srcunit_tex_op_write.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "sectors L1TEX wrote to L2 (at most the global + local store sectors)"},
    {"dram__bytes_read.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "bytes read from DRAM"},
    {"dram__bytes_write.sum", -1, CML_CTR_NONE, CML_CTR_INFO,
     "bytes written to DRAM (dirty lines may stay in L2 after the kernel)"},
    /* Shared memory (docs/model.md §5: wavefronts and bank conflicts, model S1). */
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", CML_CLASS_SHARED_LD,
     CML_CTR_WAVEFRONTS, CML_CTR_EXACT,
     "shared load wavefronts (passes through the banks)"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", CML_CLASS_SHARED_LD,
     CML_CTR_BANK_CONFLICTS, CML_CTR_EXACT, "shared load bank conflicts"},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", CML_CLASS_SHARED_ST,
     CML_CTR_WAVEFRONTS, CML_CTR_EXACT, "shared store wavefronts"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", CML_CLASS_SHARED_ST,
     CML_CTR_BANK_CONFLICTS, CML_CTR_EXACT, "shared store bank conflicts"},
    /* Local memory (docs/model.md §7). */
    {"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", CML_CLASS_LOCAL_LD, CML_CTR_REQUESTS,
     CML_CTR_EXACT, "local load requests"},
    {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", CML_CLASS_LOCAL_LD, CML_CTR_SECTORS,
     CML_CTR_EXACT, "32-byte sectors of local loads"},
    {"l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", CML_CLASS_LOCAL_ST, CML_CTR_REQUESTS,
     CML_CTR_EXACT, "local store requests"},
    {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", CML_CLASS_LOCAL_ST, CML_CTR_SECTORS,
     CML_CTR_EXACT, "32-byte sectors of local stores"},
};

#define MAP_COUNT (sizeof map / sizeof map[0])

size_t cml_counter_map_count(void)
{
    return MAP_COUNT;
}

const cml_counter_def *cml_counter_map_at(size_t i)
{
    return i < MAP_COUNT ? &map[i] : NULL;
}

const cml_counter_def *cml_counter_map_find(const char *metric)
{
    if (!metric)
        return NULL;
    for (size_t i = 0; i < MAP_COUNT; i++)
        if (strcmp(map[i].metric, metric) == 0)
            return &map[i];
    return NULL;
}

/* The names in an array of their own, filled from the map on first use (the
 * same values every time, so a second filler racing the first is harmless). */
const char *const *cml_counter_map_metrics(void)
{
    static const char *names[MAP_COUNT];
    if (!names[MAP_COUNT - 1])
        for (size_t i = 0; i < MAP_COUNT; i++)
            names[i] = map[i].metric;
    return names;
}

int cml_counter_predict(const cml_counter_def *d, const cml_kernel_traffic *t, double *out)
{
    if (!d || !t || !out)
        return 0;
    if (d->cls < 0 || d->cls >= (int)CML_CLASS_COUNT)
        return 0;
    const cml_traffic *c = &t->cls[d->cls];
    switch (d->field) {
    case CML_CTR_INSTRUCTIONS: *out = (double)c->instructions; return 1;
    case CML_CTR_REQUESTS: *out = (double)c->requests; return 1;
    case CML_CTR_SECTORS: *out = (double)c->sectors; return 1;
    case CML_CTR_WAVEFRONTS: *out = (double)c->wavefronts; return 1;
    case CML_CTR_BANK_CONFLICTS: *out = (double)c->bank_conflicts; return 1;
    case CML_CTR_EFFICIENCY:
        if (c->efficiency_bytes == 0)
            return 0;
        *out = 100.0 * (double)c->requested_bytes / (double)c->efficiency_bytes;
        return 1;
    case CML_CTR_NONE:
    case CML_CTR_FIELD_COUNT:
        break;
    }
    return 0;
}

int cml_counter_agrees(const cml_counter_def *d, double measured, double predicted)
{
    if (!d || d->kind == CML_CTR_INFO)
        return 1;
    if (!isfinite(measured) || !isfinite(predicted))
        return 0;
    if (d->kind == CML_CTR_PERCENT)
        return fabs(measured - predicted) <= 0.01;
    /* Counts are integers; CUPTI hands them over as doubles. */
    return fabs(measured - predicted) < 0.5;
}

const char *cml_ctr_kind_name(cml_ctr_kind k)
{
    switch (k) {
    case CML_CTR_EXACT: return "exact";
    case CML_CTR_PERCENT: return "percent";
    case CML_CTR_INFO: return "info";
    }
    return "invalid";
}

const char *cml_ctr_field_name(cml_ctr_field f)
{
    switch (f) {
    case CML_CTR_NONE: return "-";
    case CML_CTR_INSTRUCTIONS: return "instructions";
    case CML_CTR_REQUESTS: return "requests";
    case CML_CTR_SECTORS: return "sectors";
    case CML_CTR_WAVEFRONTS: return "wavefronts";
    case CML_CTR_BANK_CONFLICTS: return "bank_conflicts";
    case CML_CTR_EFFICIENCY: return "efficiency";
    case CML_CTR_FIELD_COUNT: break;
    }
    return "invalid";
}
