/*
 * The counter map (counter_map.h): which hardware metric the model predicts
 * with which output. Metric names are Nsight Compute's sm_70..sm_90 names;
 * docs/model.md §12 gives the rule behind each row (§12.1) and the names
 * already accepted on an H100 (§12.2); the cache-level rows, the section
 * "The cache levels".
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
    /* Caches and DRAM: the cache levels (cumemlab/cache.h, docs/model.md
     * "The cache levels"), cache state across warps and blocks. */
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", -1, CML_CTR_L1_HIT,
     CML_CTR_RELATIVE, "global load sectors that hit in L1"},
    {"lts__t_sectors_srcunit_tex_op_read.sum", -1, CML_CTR_L2_READ, CML_CTR_RELATIVE,
     "sectors L1TEX read from L2 (global and local loads that missed L1)"},
    /* Of those, the ones that hit in the L2 partition they reached first
     * (a miss there may still hit in the other partition): l2-residency's
     * L2 hit rate (docs/experiments/l2-residency.md); not predicted. */
    {CML_METRIC_L2_READ_HIT_TEX, -1, CML_CTR_NONE, CML_CTR_INFO,
     "sectors L1TEX read from L2 that hit in the partition they reached first"},
    /* The store sectors (L1 is write-through, E5); fewer when stores of
     * different instructions to one sector meet in L1 before leaving it. */
    {"lts__t_sectors_srcunit_tex_op_write.sum", -1, CML_CTR_L2_WRITE, CML_CTR_RELATIVE,
     "sectors L1TEX wrote to L2 (the global + local store sectors)"},
    {CML_METRIC_DRAM_READ, -1, CML_CTR_DRAM_READ, CML_CTR_RELATIVE,
     "bytes read from DRAM (L2 read misses in 64-byte pieces, partial-sector merges)"},
    {CML_METRIC_DRAM_WRITE, -1, CML_CTR_DRAM_WRITE, CML_CTR_RELATIVE,
     "bytes written to DRAM during the kernel (dirty data L2 still holds is not)"},
    /* Who asked L2 for the sectors it read from DRAM (docs/model-evidence.md
     * §2.1): read beside the DRAM bytes, never predicted. After the L2 flush
     * that opens every range, units outside the GPCs (not the kernel's
     * loads, instructions or constants) read their lines from DRAM again,
     * more the longer the launch; validate takes what they missed as DRAM
     * reads no SM asked for (cml_counter_outside_gpc_bytes). */
    {CML_METRIC_L2_READ_MISS_DEVICE, -1, CML_CTR_NONE, CML_CTR_INFO,
     "L2 read misses to device memory, sectors, of every unit"},
    {CML_METRIC_L2_READ_MISS_GPC, -1, CML_CTR_NONE, CML_CTR_INFO,
     "L2 read misses to device memory, sectors, of the GPCs' requests (loads, code, constants)"},
    {CML_METRIC_L2_READ_MISS_FABRIC, -1, CML_CTR_NONE, CML_CTR_INFO,
     "L2 read misses, sectors, of requests the other L2 partition forwarded"},
    /* Who wrote into L2, the same way: lines units outside the GPCs wrote
     * during the range, which L2 may write back to DRAM before it ends
     * (cml_counter_outside_gpc_bytes; validate's DRAM write floor). */
    {CML_METRIC_L2_WRITE_DEVICE, -1, CML_CTR_NONE, CML_CTR_INFO,
     "L2 write sectors to device memory, of every unit"},
    {CML_METRIC_L2_WRITE_GPC, -1, CML_CTR_NONE, CML_CTR_INFO,
     "L2 write sectors to device memory, of the GPCs' stores"},
    {CML_METRIC_L2_WRITE_FABRIC, -1, CML_CTR_NONE, CML_CTR_INFO,
     "L2 write sectors of requests the other L2 partition forwarded"},
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
    return cml_counter_predict_levels(d, t, NULL, out);
}

int cml_counter_predict_levels(const cml_counter_def *d, const cml_kernel_traffic *t,
                               const cml_levels *lv, double *out)
{
    if (!d || !t || !out)
        return 0;
    switch (d->field) {
    case CML_CTR_L1_HIT: if (!lv) return 0; *out = (double)lv->l1_hit_sectors; return 1;
    case CML_CTR_L2_READ: if (!lv) return 0; *out = (double)lv->l2_read_sectors; return 1;
    case CML_CTR_L2_WRITE: if (!lv) return 0; *out = (double)lv->l2_write_sectors; return 1;
    case CML_CTR_DRAM_READ: if (!lv) return 0; *out = (double)lv->dram_read_bytes; return 1;
    case CML_CTR_DRAM_WRITE: if (!lv) return 0; *out = (double)lv->dram_write_bytes; return 1;
    default: break;
    }
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
    default:
        break;
    }
    return 0;
}

static int is_dram(const cml_counter_def *d)
{
    return d->field == CML_CTR_DRAM_READ || d->field == CML_CTR_DRAM_WRITE;
}

double cml_counter_tolerance(const cml_counter_def *d)
{
    if (!d || d->kind != CML_CTR_RELATIVE)
        return 0;
    return is_dram(d) ? 0.02 : 0.01;
}

static const char *const windows[CML_COUNTER_WINDOWS][CML_COUNTER_WINDOW_METRICS] = {
    {CML_METRIC_DRAM_READ, CML_METRIC_L2_READ_MISS_DEVICE, CML_METRIC_L2_READ_MISS_GPC,
     CML_METRIC_L2_READ_MISS_FABRIC},
    {CML_METRIC_DRAM_WRITE, CML_METRIC_L2_WRITE_DEVICE, CML_METRIC_L2_WRITE_GPC,
     CML_METRIC_L2_WRITE_FABRIC},
};

const char *const *cml_counter_window(size_t w)
{
    return w < CML_COUNTER_WINDOWS ? windows[w] : NULL;
}

int cml_counter_kept_at_zero(const cml_counter_def *d)
{
    if (!d)
        return 0;
    if (!strcmp(d->metric, CML_METRIC_L2_READ_HIT_TEX))
        return 1;
    /* the windows' counters but the DRAM bytes, which the model predicts */
    for (size_t w = 0; w < CML_COUNTER_WINDOWS; w++)
        for (size_t m = 1; m < CML_COUNTER_WINDOW_METRICS; m++)
            if (!strcmp(d->metric, windows[w][m]))
                return 1;
    return 0;
}

double cml_counter_outside_gpc_bytes(double device, double gpc, double fabric)
{
    if (!(isfinite(device) && isfinite(gpc) && isfinite(fabric)) || device < 0 || gpc < 0 ||
        fabric < 0)
        return 0;
    const double outside = device - gpc - fabric;
    return outside > 0 ? 32.0 * outside : 0;
}

double cml_counter_floor(const cml_counter_def *d)
{
    if (!d || d->kind != CML_CTR_RELATIVE)
        return 0;
    return is_dram(d) ? CML_NOISE_FLOOR_DRAM_BYTES : CML_NOISE_FLOOR_SECTOR_BYTES / 32.0;
}

int cml_counter_judged(const cml_counter_def *d, double measured, double model_hi)
{
    if (!d || d->kind != CML_CTR_RELATIVE)
        return 1;
    const double floor = cml_counter_floor(d);
    return !(fabs(measured) <= floor && fabs(model_hi) <= floor);
}

int cml_counter_agrees(const cml_counter_def *d, double measured, double predicted)
{
    if (!d || d->kind == CML_CTR_INFO)
        return 1;
    if (!isfinite(measured) || !isfinite(predicted))
        return 0;
    if (d->kind == CML_CTR_PERCENT)
        return fabs(measured - predicted) <= 0.01;
    if (d->kind == CML_CTR_RELATIVE) {
        double big = fabs(measured) > fabs(predicted) ? fabs(measured) : fabs(predicted);
        double diff = fabs(measured - predicted);
        return diff <= cml_counter_tolerance(d) * big || diff <= cml_counter_floor(d);
    }
    /* Counts are integers; CUPTI hands them over as doubles. */
    return fabs(measured - predicted) < 0.5;
}

const char *cml_ctr_kind_name(cml_ctr_kind k)
{
    switch (k) {
    case CML_CTR_EXACT: return "exact";
    case CML_CTR_PERCENT: return "percent";
    case CML_CTR_INFO: return "info";
    case CML_CTR_RELATIVE: return "relative";
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
    case CML_CTR_L1_HIT: return "l1_hit_sectors";
    case CML_CTR_L2_READ: return "l2_read_sectors";
    case CML_CTR_L2_WRITE: return "l2_write_sectors";
    case CML_CTR_DRAM_READ: return "dram_read_bytes";
    case CML_CTR_DRAM_WRITE: return "dram_write_bytes";
    case CML_CTR_FIELD_COUNT: break;
    }
    return "invalid";
}

void cml_counter_level_bounds(const cml_counter_def *d, const cml_levels *lv, double predicted,
                              double *lo, double *hi)
{
    *lo = *hi = predicted;
    if (!d || !lv || !lv->bounded)
        return;
    uint64_t v, l, h;
    switch (d->field) {
#define CML_BOUNDS_OF(f) (v = lv->f, l = lv->lo.f, h = lv->hi.f)
    case CML_CTR_L1_HIT: CML_BOUNDS_OF(l1_hit_sectors); break;
    case CML_CTR_L2_READ: CML_BOUNDS_OF(l2_read_sectors); break;
    case CML_CTR_L2_WRITE: CML_BOUNDS_OF(l2_write_sectors); break;
    case CML_CTR_DRAM_READ: CML_BOUNDS_OF(dram_read_bytes); break;
    case CML_CTR_DRAM_WRITE: CML_BOUNDS_OF(dram_write_bytes); break;
#undef CML_BOUNDS_OF
    default: return;
    }
    if (!(l <= v && v <= h))
        return; /* no interval around its point (the reader refuses such files) */
    if (v > 0) {
        const double scale = predicted / (double)v;
        *lo = (double)l * scale;
        *hi = (double)h * scale;
    } else if (predicted == 0) {
        *lo = (double)l;
        *hi = (double)h;
    }
}
