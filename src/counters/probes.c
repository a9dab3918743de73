/*
 * The probes (probes.h): the patterns of docs/model.md §2.1, §4.1, §5.1 and
 * the experiments E1, E2, E4, E5, E7 of its §14, one row each (question "1.5"
 * marks a worked example of §2.1). Add a row to add a probe; `cumemlab
 * validate` prints every row with its counters and the model's figures.
 */
#include "counters/probes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters/counter_map.h"
#include "gpu/gpu_internal.h"

enum { LD = CML_PROBE_GLOBAL_LD, ST = CML_PROBE_GLOBAL_ST, STLD = CML_PROBE_ST_THEN_LD,
       SLD = CML_PROBE_SHARED_LD, SST = CML_PROBE_SHARED_ST };

#define ALL 0xffffffffu
/* 2 warps per SM of an H100, 16 regions each: 4224 instructions per issue
 * of a pattern, enough that one stray instruction would show. */
#define W 264u
#define I 16u

static const cml_probe_def probes[] = {
    /* id, question, kind, cache, width, base, a, b, c, d, active, repeat, iters, warps, region */
    /* E1: one request per instruction whatever the width; 1 and 0 active lanes.
     * ptxas turns a lone `@p ld` into a branch around it, so the 0-lane rows
     * issue nothing; an issued all-lanes-off LDG is seen in aos-soa's
     * unrolled loop instead (docs/model-evidence.md E1). */
    {"ld.ca u8, 32 lanes consecutive", "E1", LD, 0, 1, 0, 1, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca u16, 32 lanes consecutive", "E1", LD, 0, 2, 0, 2, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca u32, 32 lanes consecutive", "E1", LD, 0, 4, 0, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca v2.u32, 32 lanes consecutive", "E1", LD, 0, 8, 0, 8, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca v4.u32, 32 lanes consecutive", "E1", LD, 0, 16, 0, 16, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca u32, lane 0 only", "E1", LD, 0, 4, 0, 4, 0, 0, 0, 0x1u, 1, I, W, 0},
    {"ld.ca u32, no lane active (ptxas branches over it)", "E1", LD, 0, 4, 0, 4, 0, 0, 0, 0x0u, 1,
     I, W, 0},
    {"st.wb u32, no lane active (ptxas branches over it)", "E1", ST, 0, 4, 0, 4, 0, 0, 0, 0x0u, 1,
     I, W, 0},
    /* E2: efficiency when lanes share addresses; docs/model.md §2.1's rows. */
    {"ld.ca u32, all lanes one address", "E2", LD, 0, 4, 0, 0, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca u32, 4 lanes per word (8 words)", "E2", LD, 0, 4, 0, 0, 0, 4, 0, ALL, 1, I, W, 0},
    {"ld.ca u32, lanes 0-7 consecutive", "1.5", LD, 0, 4, 0, 4, 0, 0, 0, 0xffu, 1, I, W, 0},
    {"ld.ca u32, offset 11 floats", "1.5", LD, 0, 4, 44, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca u32, stride 2 floats (AoS .x)", "1.5", LD, 0, 4, 0, 8, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.ca u32, one float per line", "1.5", LD, 0, 4, 0, 128, 0, 0, 0, ALL, 1, I, W, 0},
    /* E4: the offset-11 pattern twice in one warp per path. */
    {"ld.ca u32, offset 11, twice", "E4", LD, 0, 4, 44, 4, 0, 0, 0, ALL, 2, I, W, 0},
    {"ld.cg u32, offset 11, twice", "E4", LD, 1, 4, 44, 4, 0, 0, 0, ALL, 2, I, W, 0},
    {"ld.nc u32, offset 11, twice", "E4", LD, 2, 4, 44, 4, 0, 0, 0, ALL, 2, I, W, 0},
    /* E5: stores (docs/model.md §4.1) and what reaches L2 and DRAM (§13). */
    {"st.wb u32, 32 lanes consecutive", "E5", ST, 0, 4, 0, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.wb u32, offset 11 floats", "E5", ST, 0, 4, 44, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.cg u32, offset 11 floats", "E5", ST, 1, 4, 44, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.cs u32, offset 11 floats", "E5", ST, 2, 4, 44, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.wb u32, one float per sector", "E5", ST, 0, 4, 0, 32, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.wb v4.u32, 32 lanes consecutive", "E5", ST, 0, 16, 0, 16, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.wb u32, one float per sector, 8 MiB", "E5", ST, 0, 4, 0, 32, 0, 0, 0, ALL, 1, 32, 256,
     1024},
    {"st.wb u32, one float per sector, 512 MiB", "E5", ST, 0, 4, 0, 32, 0, 0, 0, ALL, 1, 128,
     4096, 1024},
    {"st.wb then ld.ca u32, same addresses", "E5", STLD, 0, 4, 0, 4, 0, 0, 0, ALL, 1, I, W, 0},
    /* E7: shared memory, the rows of docs/model.md §5 and the patterns where
     * S1 and S2 differ (§5.1 a-d). */
    {"ld.shared u32, stride 1 word", "E7", SLD, 0, 4, 0, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared u32, stride 2 words", "E7", SLD, 0, 4, 0, 8, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared u32, stride 32 words", "E7", SLD, 0, 4, 0, 128, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared u32, stride 33 words", "E7", SLD, 0, 4, 0, 132, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared u32, all lanes one word", "E7", SLD, 0, 4, 0, 0, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared u8, consecutive bytes", "E7", SLD, 0, 1, 0, 1, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared v2.u32, consecutive", "E7", SLD, 0, 8, 0, 8, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared v2.u32, stride 2 (16 B)", "E7", SLD, 0, 8, 0, 16, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared v2.u32, all lanes one address (c)", "E7", SLD, 0, 8, 0, 0, 0, 0, 0, ALL, 1, I, W,
     0},
    {"ld.shared v2.u32, double 2*(l%16) (d)", "E7", SLD, 0, 8, 0, 0, 0, 0, 16, ALL, 1, I, W, 0},
    {"ld.shared v4.u32, consecutive", "E7", SLD, 0, 16, 0, 16, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared v4.u32, stride 2 (32 B)", "E7", SLD, 0, 16, 0, 32, 0, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared v4.u32, lanes 0-7 consecutive (a)", "E7", SLD, 0, 16, 0, 16, 0, 0, 0, 0xffu, 1, I,
     W, 0},
    {"ld.shared v4.u32, lane pairs share (b)", "E7", SLD, 0, 16, 0, 0, 16, 0, 0, ALL, 1, I, W, 0},
    {"ld.shared v4.u32, all lanes one address (c)", "E7", SLD, 0, 16, 0, 0, 0, 0, 0, ALL, 1, I, W,
     0},
    {"st.shared u32, stride 1 word", "E7", SST, 0, 4, 0, 4, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.shared u32, stride 32 words", "E7", SST, 0, 4, 0, 128, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.shared v2.u32, consecutive", "E7", SST, 0, 8, 0, 8, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.shared v4.u32, consecutive", "E7", SST, 0, 16, 0, 16, 0, 0, 0, ALL, 1, I, W, 0},
    {"st.shared v4.u32, lane pairs share (b)", "E7", SST, 0, 16, 0, 0, 16, 0, 0, ALL, 1, I, W, 0},
};

#define NPROBES (sizeof probes / sizeof probes[0])

size_t cml_probe_count(void)
{
    return NPROBES;
}

const cml_probe_def *cml_probe_at(size_t i)
{
    return i < NPROBES ? &probes[i] : NULL;
}

const char *const *cml_probe_metrics(size_t *n)
{
    static const char *names[CML_PROBE_MAX_METRICS];
    static size_t count;
    if (!count) {
        size_t m = cml_counter_map_count();
        const char *const *map = cml_counter_map_metrics();
        for (size_t i = 0; i < m && i < CML_PROBE_MAX_METRICS - 2; i++)
            names[count++] = map[i];
        names[count++] = "smsp__inst_executed_op_shared_ld.sum";
        names[count++] = "smsp__inst_executed_op_shared_st.sum";
    }
    if (n)
        *n = count;
    return names;
}

void cml_probe_offsets(const cml_probe_def *d, uint32_t off[32])
{
    for (uint32_t l = 0; l < 32; l++)
        off[l] = d->base + d->a * l + d->b * (l / 2) + d->c * (l / 4) + d->d * (l % 16);
}

static uint64_t region_of(const cml_probe_def *d)
{
    return d->region ? d->region : 4096u;
}

cml_status cml_probe_model(const cml_probe_def *d, cml_kernel_traffic *out, uint64_t *issues)
{
    memset(out, 0, sizeof *out);
    uint32_t off[32];
    cml_probe_offsets(d, off);
    const int shared = d->kind == CML_PROBE_SHARED_LD || d->kind == CML_PROBE_SHARED_ST;
    /* Any line-aligned base: sector and line counts do not depend on it. */
    const uint64_t base = shared ? 0 : cml_array_base(0);
    static const cml_cache load_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_NC};
    static const cml_cache store_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_CS};
    if (d->cache < 0 || d->cache > 2)
        return CML_EINVAL;
    cml_access acc[2];
    int nacc = 0;
    memset(acc, 0, sizeof acc);
    switch (d->kind) {
    case CML_PROBE_GLOBAL_LD:
        acc[nacc++] = (cml_access){CML_SPACE_GLOBAL, CML_OP_LOAD, load_cache[d->cache], d->width,
                                   d->active, {0}};
        break;
    case CML_PROBE_GLOBAL_ST:
        acc[nacc++] = (cml_access){CML_SPACE_GLOBAL, CML_OP_STORE, store_cache[d->cache],
                                   d->width, d->active, {0}};
        break;
    case CML_PROBE_ST_THEN_LD:
        acc[nacc++] = (cml_access){CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, d->width,
                                   d->active, {0}};
        acc[nacc++] = (cml_access){CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, d->width,
                                   d->active, {0}};
        break;
    case CML_PROBE_SHARED_LD:
        acc[nacc++] = (cml_access){CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, d->width,
                                   d->active, {0}};
        break;
    case CML_PROBE_SHARED_ST:
        acc[nacc++] = (cml_access){CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, d->width,
                                   d->active, {0}};
        break;
    default:
        return CML_EINVAL;
    }
    const uint64_t n = (uint64_t)d->warps * d->iters * d->repeat;
    for (int k = 0; k < nacc; k++) {
        for (unsigned l = 0; l < 32; l++)
            acc[k].addr[l] = base + off[l];
        cml_traffic one;
        memset(&one, 0, sizeof one);
        cml_status st = cml_model_access(CML_RULES_MODERN, &acc[k], &one);
        if (st != CML_OK)
            return st;
        cml_class cls = cml_class_of(acc[k].space, acc[k].op);
        if (cls >= CML_CLASS_COUNT)
            return CML_EINVAL;
        cml_traffic *t = &out->cls[cls];
        /* n copies of the same instruction. */
        t->instructions += n * one.instructions;
        t->requests += n * one.requests;
        t->sectors += n * one.sectors;
        t->lines += n * one.lines;
        t->transactions += n * one.transactions;
        t->transaction_bytes += n * one.transaction_bytes;
        t->efficiency_bytes += n * one.efficiency_bytes;
        t->requested_bytes += n * one.requested_bytes;
        t->lane_bytes += n * one.lane_bytes;
        t->wavefronts += n * one.wavefronts;
        t->ideal_wavefronts += n * one.ideal_wavefronts;
        t->bank_conflicts += n * one.bank_conflicts;
        t->serialized += n * one.serialized;
    }
    if (issues)
        *issues = n;
    return CML_OK;
}

cml_status cml_probe_run(cml_gpu *g, cml_counters *c, const cml_probe_def *d, cml_probe_result *r,
                         char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->def = d;
    cml_status st = cml_probe_model(d, &r->model, &r->issues);
    if (st != CML_OK) {
        snprintf(err, errlen, "probe '%s': the model rejects it: %s", d->id, cml_status_str(st));
        return st;
    }
    uint32_t off[32], max_off = 0;
    cml_probe_offsets(d, off);
    for (int l = 0; l < 32; l++)
        if (off[l] > max_off)
            max_off = off[l];
    const int shared = d->kind == CML_PROBE_SHARED_LD || d->kind == CML_PROBE_SHARED_ST;
    if (shared && max_off + d->width > CML_PROBE_SHARED_BYTES) {
        snprintf(err, errlen, "probe '%s': offsets beyond the shared array", d->id);
        return CML_EINVAL;
    }
    if (!shared && max_off + d->width > region_of(d) && d->iters * (uint64_t)d->warps > 1) {
        snprintf(err, errlen, "probe '%s': lanes reach past the region", d->id);
        return CML_EINVAL;
    }
    cml_probe_launch a = {d->kind, d->cache, d->width, d->repeat, d->iters, d->warps,
                          region_of(d), NULL};
    cml_dbuf buf = {0};
    if (!shared) {
        st = cml_gpu_alloc(g, &buf, (size_t)cml_probe_bytes(&a, max_off));
        if (st != CML_OK) {
            snprintf(err, errlen, "probe '%s': %s", d->id, cml_gpu_error(g));
            return st;
        }
        a.buf = buf.ptr;
    }
    st = cml_probe_set_lanes(off, d->active);
    if (st != CML_OK) {
        snprintf(err, errlen, "probe '%s': %s", d->id, cml_gpu_last_error());
    } else {
        size_t n;
        const char *const *names = cml_probe_metrics(&n);
        st = cml_counters_measure(c, cml_probe_launch_fn, &a, names, n, r->value);
        if (st != CML_OK)
            snprintf(err, errlen, "probe '%s': %s", d->id, cml_counters_error(c));
    }
    if (buf.ptr)
        cml_gpu_free(g, &buf);
    return st;
}
