/*
 * transfers, mode=copy (the textbook's memTransfer and pinMemTransfer):
 * cudaMemcpy host-to-device and device-to-host from pageable, pinned and
 * hostalloc memory over the sizes, and both directions at once on two
 * streams (pinned kinds only); after the first sweep of the first pinned
 * kind, a reference cudaMemcpyAsync at its largest size in each direction.
 * Measured only. Each (memory, direction) sweep ends with where half of its
 * best rate is reached and the latency-bandwidth fit t = t0 + s/B.
 *
 * The points come memory by memory, direction by direction, size fastest.
 * The buffers (the reference data, two device buffers, the host pair of
 * the current memory kind) are kept in the run's state and grown as the
 * sizes need; every copy's destination is poisoned before and compared in
 * full with the reference data after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "experiments/transfers/transfers_internal.h"
#include "gpu/host_fill.h"

void tr_copy_name(char *buf, size_t len, int64_t memory, int64_t dir, int64_t size, int api)
{
    buf[0] = '\0';
    cml_variant_add_label(buf, len, "mode", "copy");
    cml_variant_add_label(buf, len, "memory", tr_memory_names[memory]);
    cml_variant_add_label(buf, len, "direction", tr_dir_names[dir]);
    cml_variant_add(buf, len, "size", (long long)size);
    if (api)
        cml_variant_add_label(buf, len, "api", "async");
}

cml_status tr_copy_variant(cml_sweep *ctx, tr_settings *s, cml_record *rec)
{
    tr_copy_state *c = &tr_state_of(ctx)->copy;
    if (s->memory != MEM_PAGEABLE && s->memory != MEM_PINNED && s->memory != MEM_HOSTALLOC)
        return CML_SKIP_POINT; /* not a host kind to copy from */
    /* The directions walked in this memory kind so far, in order. */
    if (s->memory != c->seq_memory || c->nseq == 0) {
        c->seq_memory = s->memory;
        c->nseq = 0;
    }
    if (c->nseq == 0 || c->seq[c->nseq - 1] != s->direction)
        if (c->nseq < 3)
            c->seq[c->nseq++] = s->direction;
    if (s->direction == DIR_BOTH && s->memory == MEM_PAGEABLE) {
        /* Pageable copies are staged by the driver and do not overlap. Asked
         * for by a direction list of its own (not the default h2d, d2h,
         * both), one record, at the largest size, says so. */
        int asked = !(c->nseq == 3 && c->seq[0] == DIR_H2D && c->seq[1] == DIR_D2H);
        if ((uint64_t)s->size > c->both_max)
            c->both_max = (uint64_t)s->size;
        if (!asked || c->both_waived)
            return CML_SKIP_POINT;
        c->both_waived = 1;
        c->both_idx = ctx->point;
        cml_sweep_waive(ctx, rec, "both directions at once need pinned memory: pageable "
                                  "copies are staged by the driver and do not overlap");
    }
    tr_copy_name(rec->variant, sizeof rec->variant, s->memory, s->direction, s->size, 0);
    /* Bytes crossing the bus: each direction's once. */
    rec->bytes_read = (uint64_t)s->size * (s->direction == DIR_BOTH ? 2 : 1);
    rec->bytes_written = 0;
    return CML_OK;
}

/* Repetitions by size: many for latency-bound small copies (microseconds
 * each), few for 1 GiB (20-140 ms each on an H100, cv under 8%): the whole
 * default sweep, verification included, must stay a small part of the
 * suite's minute. --reps/--warmup win. */
static void copy_reps(const cml_plan *plan, size_t bytes, unsigned *warmup, unsigned *reps)
{
    unsigned r = bytes <= ((size_t)1 << 20) ? 50 : bytes <= ((size_t)16 << 20) ? 20
                 : bytes <= ((size_t)256 << 20) ? 5 : 3;
    if (plan->quick)
        r = (r + 1) / 2;
    *reps = plan->reps ? plan->reps : r;
    *warmup = plan->warmup ? plan->warmup : (bytes >= ((size_t)256 << 20) ? 1 : 3);
}

static void host_pair_free(cml_gpu *g, tr_copy_state *c)
{
    if (c->memory != MEM_PAGEABLE)
        cml_mem_free(g, &c->src);
    memset(&c->src, 0, sizeof c->src); /* pageable: the reference data itself */
    cml_mem_free(g, &c->dst);
}

/*
 * The buffers for a copy of `size` bytes from `memory`. *why NULL: ready;
 * else the reason it cannot be measured here (the record is waived). The
 * device takes copies up to a quarter of its free memory each (two
 * buffers, and room for the rest); a size that could not be allocated
 * rules out every larger one of the same kind.
 */
static cml_status copy_buffers(cml_sweep *ctx, int64_t memory, size_t size, const char **why)
{
    tr_copy_state *c = &tr_state_of(ctx)->copy;
    cml_gpu *g = ctx->plan->gpu;
    cml_status st;
    *why = NULL;
    if (!c->free_b && (st = cml_gpu_memory_info(g, &c->free_b, NULL)) != CML_OK)
        return st;
    if (size > c->free_b / 4) {
        snprintf(c->dev_why, sizeof c->dev_why, "the device has %.0f MiB free: copies up to a "
                 "quarter of it are measured", (double)c->free_b / 1048576.0);
        *why = c->dev_why;
        return CML_OK;
    }
    if (c->dev_fail && size >= c->dev_fail) {
        *why = c->dev_why;
        return CML_OK;
    }
    if (c->dev_a.bytes < size || c->dev_b.bytes < size) {
        cml_mem_free(g, &c->dev_a);
        cml_mem_free(g, &c->dev_b);
        c->dev_a_valid = 0;
        st = cml_mem_alloc(g, &c->dev_a, CML_MEM_DEVICE, size);
        if (st == CML_OK)
            st = cml_mem_alloc(g, &c->dev_b, CML_MEM_DEVICE, size);
        if (st == CML_ENOMEM) {
            snprintf(c->dev_why, sizeof c->dev_why, "%s", cml_gpu_error(g));
            c->dev_fail = size;
            cml_mem_free(g, &c->dev_a);
            cml_mem_free(g, &c->dev_b);
            *why = c->dev_why;
            return CML_OK;
        }
        if (st != CML_OK)
            return st;
    }
    if (c->ref_bytes < size) {
        /* Random floats, pageable; the same bytes at every size. */
        free(c->ref);
        c->ref_bytes = 0;
        if (!(c->ref = malloc(size + 4)))
            return CML_ENOMEM;
        tr_host_fill(g, c->ref, size, TR_SEED_COPY);
        c->ref_bytes = size;
    }
    if (c->memory != memory) {
        host_pair_free(g, c);
        c->memory = memory;
        c->host_fail = 0;
    }
    if (c->host_fail && size >= c->host_fail) {
        *why = c->host_why;
        return CML_OK;
    }
    const cml_mem_kind kind = tr_memory_kind[memory];
    st = CML_OK;
    if (memory == MEM_PAGEABLE) {
        c->src.ptr = c->ref;
        c->src.bytes = c->ref_bytes;
        c->src.kind = CML_MEM_PAGEABLE;
    } else if (c->src.bytes < size) {
        cml_mem_free(g, &c->src);
        if ((st = cml_mem_alloc(g, &c->src, kind, size)) == CML_OK)
            memcpy(c->src.ptr, c->ref, size);
    }
    if (st == CML_OK && c->dst.bytes < size) {
        cml_mem_free(g, &c->dst);
        st = cml_mem_alloc(g, &c->dst, kind, size);
    }
    if (st == CML_ENOMEM) {
        snprintf(c->host_why, sizeof c->host_why, "cannot allocate the host buffers: %s",
                 cml_gpu_error(g));
        c->host_fail = size;
        host_pair_free(g, c);
        *why = c->host_why;
        return CML_OK;
    }
    return st;
}

/* Give dev_a the reference data up to `size` (untimed) if it lacks it. */
static cml_status dev_a_ready(tr_copy_state *c, cml_xfer *x, size_t size)
{
    if (c->dev_a_valid >= size)
        return CML_OK;
    cml_status st = cml_xfer_copy(x, c->dev_a.ptr, c->src.ptr, size, CML_DIR_H2D);
    if (st == CML_OK)
        c->dev_a_valid = size;
    return st;
}

/* One copy of `size` in `dir` through `api`, timed and verified into rec. */
static cml_status copy_one(cml_sweep *ctx, cml_xfer *x, int64_t dir, size_t size,
                           cml_copy_api api, cml_record *rec)
{
    const cml_plan *plan = ctx->plan;
    tr_copy_state *c = &tr_state_of(ctx)->copy;
    unsigned warmup, reps;
    copy_reps(plan, size, &warmup, &reps);
    size_t bad = 0;
    cml_timing tm;
    cml_status st;
    if (dir == DIR_H2D) {
        /* Poison the destination, time, then read it back into the poisoned
         * host buffer and compare with the source. */
        if ((st = cml_xfer_memset(x, c->dev_a.ptr, 0xFF, size)) == CML_OK)
            st = cml_xfer_sync(x);
        if (st == CML_OK)
            st = cml_xfer_time_copy(x, c->dev_a.ptr, c->src.ptr, size, CML_DIR_H2D, api, warmup,
                                    reps, &tm);
        if (st != CML_OK)
            return cml_exp_fail(plan, rec, st);
        tr_measured(rec, &tm);
        tr_host_poison(plan->gpu, c->dst.ptr, size);
        if ((st = cml_xfer_copy(x, c->dst.ptr, c->dev_a.ptr, size, CML_DIR_D2H)) != CML_OK)
            return cml_exp_fail(plan, rec, st);
        int ok = tr_host_same(plan->gpu, c->dst.ptr, c->ref, size, &bad);
        tr_verified(rec, ok, bad, "the device copy");
        c->dev_a_valid = !ok ? 0 : c->dev_a_valid > size ? c->dev_a_valid : size;
        return CML_OK;
    }
    if ((st = dev_a_ready(c, x, size)) != CML_OK)
        return cml_exp_fail(plan, rec, st);
    tr_host_poison(plan->gpu, c->dst.ptr, size);
    if (dir == DIR_D2H) {
        st = cml_xfer_time_copy(x, c->dst.ptr, c->dev_a.ptr, size, CML_DIR_D2H, api, warmup,
                                reps, &tm);
        if (st != CML_OK)
            return cml_exp_fail(plan, rec, st);
        tr_measured(rec, &tm);
        tr_verified(rec, tr_host_same(plan->gpu, c->dst.ptr, c->ref, size, &bad), bad, "the host copy");
        return CML_OK;
    }
    if ((st = cml_xfer_memset(x, c->dev_b.ptr, 0xFF, size)) == CML_OK)
        st = cml_xfer_sync(x);
    if (st == CML_OK)
        st = cml_xfer_time_both(x, c->dev_b.ptr, c->src.ptr, c->dst.ptr, c->dev_a.ptr, size,
                                warmup, reps, &tm);
    if (st != CML_OK)
        return cml_exp_fail(plan, rec, st);
    tr_measured(rec, &tm);
    tr_verified(rec, tr_host_same(plan->gpu, c->dst.ptr, c->ref, size, &bad), bad,
                "the host copy (d2h half)");
    tr_host_poison(plan->gpu, c->dst.ptr, size);
    if ((st = cml_xfer_copy(x, c->dst.ptr, c->dev_b.ptr, size, CML_DIR_D2H)) != CML_OK)
        return cml_exp_fail(plan, rec, st);
    tr_verified(rec, tr_host_same(plan->gpu, c->dst.ptr, c->ref, size, &bad), bad,
                "the device copy (h2d half)");
    return CML_OK;
}

cml_status tr_copy_measure(cml_sweep *ctx, const tr_settings *s, cml_record *rec)
{
    cml_xfer *x;
    cml_status st = tr_xfer(ctx, rec, &x);
    if (st != CML_OK)
        return st;
    const char *why;
    if ((st = copy_buffers(ctx, s->memory, (size_t)s->size, &why)) != CML_OK)
        return st;
    if (why) {
        cml_sweep_waive(ctx, rec, "%s", why);
        return CML_OK;
    }
    return copy_one(ctx, x, s->direction, (size_t)s->size, CML_COPY_MEMCPY, rec);
}

/* The reference: cudaMemcpyAsync from pinned memory at `size`, each way,
 * two records after `like` (a record of the sweep it follows). */
void tr_copy_reference(cml_sweep *ctx, size_t like, int64_t memory, int64_t size)
{
    tr_copy_state *c = &tr_state_of(ctx)->copy;
    c->have_ref = 1;
    c->ref_size = size;
    c->ref_idx[0] = c->ref_idx[1] = SIZE_MAX;
    tr_settings s = *tr_settings_of(ctx, like);
    s.size = size;
    for (int d = 0; d < 2; d++) {
        char v[96];
        tr_copy_name(v, sizeof v, memory, d, size, 1);
        cml_record *rec = cml_sweep_add_record(ctx, &ctx->out->items[like], v);
        if (!rec)
            return;
        c->ref_idx[d] = ctx->out->count - 1;
        s.direction = d;
        tr_params(rec, &s, &tr_state_of(ctx)->quoted, 0, 1);
        rec->bytes_read = (uint64_t)size;
        cml_xfer *x;
        const char *why;
        cml_status st = tr_xfer(ctx, rec, &x);
        if (st == CML_OK && (st = copy_buffers(ctx, memory, (size_t)size, &why)) != CML_OK)
            cml_exp_fail(ctx->plan, rec, st);
        else if (st == CML_OK && why)
            cml_sweep_waive(ctx, rec, "%s", why);
        else if (st == CML_OK)
            copy_one(ctx, x, d, (size_t)size, CML_COPY_ASYNC, rec);
    }
}

void tr_copy_free(cml_sweep *ctx)
{
    tr_copy_state *c = &tr_state_of(ctx)->copy;
    cml_gpu *g = ctx->plan->gpu;
    if (g) {
        host_pair_free(g, c);
        cml_mem_free(g, &c->dev_a);
        cml_mem_free(g, &c->dev_b);
    }
    free(c->ref);
    memset(c, 0, sizeof *c);
    c->seq_memory = -1;
}
