/*
 * transfers, mode=alloc: the cost of allocating and freeing each kind of
 * memory (device, pinned, hostalloc, mapped, managed), each call timed
 * alone with the monotonic clock (cml_mem_alloc_cost). Measured only.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/stats.h"
#include "experiments/transfers/transfers_internal.h"

cml_status tr_alloc_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec)
{
    (void)ctx;
    if (s->memory == MEM_PAGEABLE || s->memory == MEM_MAPPED_UVA)
        return CML_SKIP_POINT; /* malloc costs nothing to see; mapped-uva is mapped */
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "mode", "alloc");
    cml_variant_add_label(rec->variant, sizeof rec->variant, "memory",
                          tr_memory_names[s->memory]);
    cml_variant_add(rec->variant, sizeof rec->variant, "size", (long long)s->alloc);
    return CML_OK;
}

cml_status tr_alloc_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec)
{
    const cml_plan *plan = ctx->plan;
    const cml_device_facts *f = plan->dev;
    const cml_mem_kind kind = tr_memory_kind[s->memory];
    const uint64_t size = (uint64_t)s->alloc;
    cml_status st;
    if (kind == CML_MEM_MANAGED) {
        size_t free_b = 0;
        if ((st = cml_gpu_memory_info(plan->gpu, &free_b, NULL)) != CML_OK)
            return cml_exp_fail(plan, rec, st);
        uint64_t cap = free_b / 8 < ((uint64_t)1 << 30) ? free_b / 8 : (uint64_t)1 << 30;
        if (!f->managed_memory) {
            cml_sweep_waive(ctx, rec, "no managed memory on this device "
                                      "(cudaDevAttrManagedMemory is 0)");
            return CML_OK;
        }
        if (size > cap) {
            cml_sweep_waive(ctx, rec, "%.1f MiB of managed memory exceeds the cap of %.1f MiB "
                                      "(1/8 of the free device memory, at most 1 GiB)",
                            (double)size / 1048576.0, (double)cap / 1048576.0);
            return CML_OK;
        }
    }
    if (kind == CML_MEM_MAPPED && !f->can_map_host_memory) {
        cml_sweep_waive(ctx, rec, "this device cannot map host memory "
                                  "(cudaDevAttrCanMapHostMemory is 0)");
        return CML_OK;
    }
    /* Pinning 64 MiB costs ~35 ms and 256 MiB ~140 ms on an H100 host: few
     * rounds for large sizes. */
    unsigned reps = size <= ((uint64_t)1 << 20) ? 10 : 3;
    if (plan->quick)
        reps = (reps + 1) / 2;
    if (plan->reps)
        reps = plan->reps;
    /* One more round first, discarded: the first call of a kind pays for
     * the driver's own set-up. */
    double a_ms[1 + 1024], f_ms[1 + 1024];
    if (reps > 1024)
        reps = 1024;
    st = cml_mem_alloc_cost(plan->gpu, kind, (size_t)size, reps + 1, a_ms, f_ms);
    if (st == CML_ENOMEM) {
        cml_sweep_waive(ctx, rec, "cannot allocate: %s", cml_gpu_error(plan->gpu));
        return CML_OK;
    }
    if (st != CML_OK)
        return cml_exp_fail(plan, rec, st);
    cml_timing ta, tf;
    if ((st = cml_timing_from_samples(a_ms + 1, reps, 1, &ta)) ||
        (st = cml_timing_from_samples(f_ms + 1, reps, 1, &tf)))
        return st;
    rec->measured = 1;
    rec->timing = ta;
    rec->bandwidth_gbs = NAN; /* no bytes move */
    rec->peak_fraction = -1.0;
    cml_record_add_extra(rec, "alloc_us", ta.median_ms * 1e3, "us");
    cml_record_add_extra(rec, "free_us", tf.median_ms * 1e3, "us");
    return CML_OK;
}

/* "12.3 us" below a millisecond, "145.8 ms" above. */
static void fmt_us(char *buf, size_t len, double us)
{
    if (us < 1000.0)
        snprintf(buf, len, "%.1f us", us);
    else
        snprintf(buf, len, "%.1f ms", us / 1000.0);
}

static const char *alloc_why(int64_t memory)
{
    switch (memory) {
    case MEM_DEVICE: return "cudaFree synchronises the device: allocate once, outside loops";
    case MEM_MANAGED:
        return "cudaMallocManaged reserves address space; pages are placed where first touched";
    case MEM_MAPPED: return "as pinned memory, plus a mapping into the device's address space";
    default: return "pinning locks and maps every page for DMA up front: reuse pinned buffers";
    }
}

static double free_us(const cml_record *rec)
{
    for (unsigned e = 0; e < rec->nextra; e++)
        if (!strcmp(rec->extra[e].name, "free_us"))
            return rec->extra[e].value;
    return 0.0;
}

/* One sentence per memory kind, on its last measured record: the first and
 * the last size's costs. Record `index` is the newest; the sentence moves
 * to it from the one before. */
void tr_alloc_summary(cml_sweep *ctx, size_t index)
{
    tr_state *st = tr_state_of(ctx);
    const tr_settings *s = tr_settings_of(ctx, index);
    cml_record *out = ctx->out->items;
    if (!ctx->plan->gpu)
        return;
    if (s->memory != st->alloc_memory) {
        st->alloc_memory = s->memory;
        st->alloc_first = st->alloc_last = SIZE_MAX;
    }
    if (out[index].state != CML_REC_OK || !out[index].measured)
        return;
    if (st->alloc_first == SIZE_MAX)
        st->alloc_first = index;
    if (st->alloc_last != SIZE_MAX)
        out[st->alloc_last].finding[0] = '\0';
    st->alloc_last = index;
    const cml_record *a = &out[st->alloc_first];
    cml_record *b = &out[index];
    char s0[32], s1[32], ta0[24], ta1[24], tf0[24], tf1[24];
    cml_fmt_bytes(s0, sizeof s0, (double)tr_settings_of(ctx, st->alloc_first)->alloc);
    cml_fmt_bytes(s1, sizeof s1, (double)s->alloc);
    fmt_us(ta0, sizeof ta0, a->timing.median_ms * 1e3);
    fmt_us(ta1, sizeof ta1, b->timing.median_ms * 1e3);
    fmt_us(tf0, sizeof tf0, free_us(a));
    fmt_us(tf1, sizeof tf1, free_us(b));
    cml_record_finding(b,
                       "%s: allocating %s takes %s, %s %s; freeing them %s and %s "
                       "(median, monotonic clock): %s.",
                       cml_mem_kind_api(tr_memory_kind[s->memory]), s0, ta0, s1, ta1, tf0, tf1,
                       alloc_why(s->memory));
}
