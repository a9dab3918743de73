/*
 * The peak kernels on a GPU (peak.h): the bench (three arrays of one size,
 * filled once), launch arguments, poison and verification, one timed
 * variant (experiment 16's records), and the lab's quick search for the
 * class references (cml_peak_measure).
 *
 * Verification: the output is poisoned ONCE before the warm-up and the
 * timed launches, then every element is checked after them. One poison is
 * enough because every launch writes the same values and the checker
 * compares every element bit for bit: an element no launch wrote still
 * holds the poison (a NaN) and fails. A failure makes the record FAILED and
 * gives no bandwidth.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/stats.h"
#include "gpu/gpu_internal.h"
#include "lab/common.h"
#include "lab/peak.h"

/* Fixed seeds: the same inputs on every run, so runs compare. */
#define SEED_X 0x9EA6000000000001ull
#define SEED_Y 0x9EA6000000000002ull

/* Grid-stride grid on a device: SMs x the blocks the occupancy calculator
 * lets reside on one SM (so every SM is full and no block waits), but no
 * more blocks than there are vectors to cover. One-shot: the array. */
cml_status cml_peak_device_grid(cml_gpu *g, cml_peak_op op, cml_peak_shape shape, uint64_t n,
                                unsigned block, unsigned *grid, double *occupancy)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    const cml_peak_shape_def *d = cml_peak_shape_at(shape);
    const void *kernel = cml_peak_kernel(op, shape);
    if (!d || !kernel || block == 0)
        return CML_EINVAL;
    double occ = 0.0;
    cml_status st = cml_gpu_occupancy(g, kernel, block, 0, &occ);
    if (st != CML_OK)
        return st;
    const uint64_t nv = n / (d->width / 4);
    uint64_t gr;
    if (d->layout == CML_PEAK_ONE_SHOT) {
        gr = cml_div_up(nv, (uint64_t)block * d->unroll);
    } else {
        unsigned warp = f->warp_size > 0 ? (unsigned)f->warp_size : 32u;
        double max_warps = (double)f->max_threads_per_sm / warp;
        uint64_t per_sm = (uint64_t)llround(occ * max_warps / (double)cml_div_up(block, warp));
        gr = (uint64_t)f->sm_count * (per_sm ? per_sm : 1);
        uint64_t need = cml_div_up(nv, block);
        if (gr > need)
            gr = need;
    }
    if (gr == 0)
        gr = 1;
    if (gr > 0x7FFFFFFFull)
        return CML_EINVAL; /* beyond gridDim.x: the size is out of the option's range */
    *grid = (unsigned)gr;
    if (occupancy)
        *occupancy = occ;
    return CML_OK;
}

cml_status cml_peak_bench_open(cml_gpu *g, uint64_t n, unsigned block, cml_peak_bench *b)
{
    memset(b, 0, sizeof *b);
    if (!g || n == 0 || block == 0 || block % 32u != 0 || block > 1024)
        return CML_EINVAL;
    b->gpu = g;
    b->n = n;
    b->block = block;
    b->seed_x = SEED_X;
    b->seed_y = SEED_Y;
    size_t bytes = (size_t)n * sizeof(float);
    /* The sum's slots and ticket start at zero; each launch leaves them so. */
    static const unsigned long long zero_slots[CML_PEAK_SUM_SLOTS];
    static const unsigned zero_ticket;
    cml_status st;
    if ((st = cml_gpu_alloc(g, &b->x, bytes)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->y, bytes)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->z, bytes)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->slots, sizeof zero_slots)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->ticket, sizeof zero_ticket)) != CML_OK ||
        (st = cml_gpu_upload(g, &b->slots, zero_slots, sizeof zero_slots)) != CML_OK ||
        (st = cml_gpu_upload(g, &b->ticket, &zero_ticket, sizeof zero_ticket)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->result, sizeof(unsigned long long))) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->reference, sizeof(unsigned long long))) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->counters, 2 * sizeof(unsigned long long))) != CML_OK ||
        (st = cml_gpu_fill_f32(g, &b->x, n, b->seed_x)) != CML_OK ||
        (st = cml_gpu_fill_f32(g, &b->y, n, b->seed_y)) != CML_OK) {
        cml_peak_bench_close(b);
        return st;
    }
    return CML_OK;
}

void cml_peak_bench_close(cml_peak_bench *b)
{
    if (!b || !b->gpu)
        return;
    cml_gpu_free(b->gpu, &b->x);
    cml_gpu_free(b->gpu, &b->y);
    cml_gpu_free(b->gpu, &b->z);
    cml_gpu_free(b->gpu, &b->slots);
    cml_gpu_free(b->gpu, &b->ticket);
    cml_gpu_free(b->gpu, &b->result);
    cml_gpu_free(b->gpu, &b->reference);
    cml_gpu_free(b->gpu, &b->counters);
    b->gpu = NULL;
}

cml_status cml_peak_configure(cml_peak_bench *b, cml_peak_op op, cml_peak_shape shape,
                              cml_peak_args *a, double *occupancy)
{
    memset(a, 0, sizeof *a);
    a->op = op;
    a->shape = shape;
    a->x = b->x.ptr;
    a->y = b->y.ptr;
    a->z = b->z.ptr;
    a->slots = b->slots.ptr;
    a->ticket = b->ticket.ptr;
    a->result = b->result.ptr;
    a->n = b->n;
    a->block = b->block;
    if (occupancy)
        *occupancy = -1.0;
    if (op == CML_PEAK_MEMCPY || op == CML_PEAK_MEMSET)
        return CML_OK;
    return cml_peak_device_grid(b->gpu, op, shape, b->n, b->block, &a->grid, occupancy);
}

cml_status cml_peak_poison(cml_peak_bench *b, const cml_peak_args *a)
{
    return cml_gpu_poison(b->gpu, a->op == CML_PEAK_SUM ? &b->result : &b->z);
}

/* The sum's reference for this bench, computed once from the generator. */
static cml_status reference_sum(cml_peak_bench *b, unsigned long long *out)
{
    if (!b->have_reference) {
        unsigned long long zero = 0;
        cml_status st;
        if ((st = cml_gpu_upload(b->gpu, &b->reference, &zero, sizeof zero)) != CML_OK)
            return st;
        cml_gpu_clear_last_error();
        if ((st = cml_peak_reference_sum(b->n, b->seed_x, b->reference.ptr)) != CML_OK ||
            (st = cml_gpu_download(b->gpu, &b->reference_sum, &b->reference,
                                   sizeof b->reference_sum)) != CML_OK)
            return st;
        b->have_reference = 1;
    }
    *out = b->reference_sum;
    return CML_OK;
}

cml_status cml_peak_verify(cml_peak_bench *b, const cml_peak_args *a, uint64_t *mismatches,
                           uint64_t *first_bad, double *got, double *want)
{
    cml_gpu *g = b->gpu;
    cml_status st;
    *mismatches = 0;
    *first_bad = 0;
    if (a->op == CML_PEAK_SUM) {
        unsigned long long sum = 0, ref = 0;
        if ((st = reference_sum(b, &ref)) != CML_OK ||
            (st = cml_gpu_download(g, &sum, &b->result, sizeof sum)) != CML_OK)
            return st;
        *mismatches = sum == ref ? 0 : 1; /* integers: exact, in any order */
        if (got)
            *got = (double)sum;
        if (want)
            *want = (double)ref;
        return CML_OK;
    }
    unsigned long long c[2] = {0ull, ~0ull};
    if ((st = cml_gpu_upload(g, &b->counters, c, sizeof c)) != CML_OK)
        return st;
    cml_gpu_clear_last_error();
    if ((st = cml_peak_check(a, b->seed_x, b->seed_y, b->counters.ptr)) != CML_OK)
        return st;
    if ((st = cml_gpu_download(g, c, &b->counters, sizeof c)) != CML_OK)
        return st;
    *mismatches = c[0];
    *first_bad = c[0] ? c[1] : 0;
    if (c[0] && c[1] < b->n) {
        /* The wrong value itself, for the message. */
        float v = 0.0f;
        cml_dbuf one = {(char *)b->z.ptr + c[1] * sizeof(float), sizeof(float), 0};
        if ((st = cml_gpu_download(g, &v, &one, sizeof v)) != CML_OK)
            return st;
        if (got)
            *got = v;
        if (want)
            *want = cml_peak_expected(a->op, b->seed_x, b->seed_y, c[1]);
    }
    return CML_OK;
}

/* Poison, time, verify one op/shape on the bench; the timing into *t,
 * *bad the wrong elements, *args the launch made. */
static cml_status run_variant(cml_peak_bench *b, cml_peak_op op, cml_peak_shape shape,
                              unsigned warmup, unsigned reps, cml_peak_args *a, double *occ,
                              cml_timing *t, uint64_t *bad, uint64_t *first, double *got,
                              double *want)
{
    cml_status st = cml_peak_configure(b, op, shape, a, occ);
    if (st == CML_OK)
        st = cml_peak_poison(b, a);
    if (st == CML_OK)
        st = cml_gpu_time(b->gpu, cml_peak_launch, a, warmup, reps, t);
    if (st == CML_OK)
        st = cml_peak_verify(b, a, bad, first, got, want);
    return st;
}

cml_status cml_peak_measure_variant(const cml_plan *plan, cml_peak_bench *b, cml_record *rec,
                                    cml_peak_op op, cml_peak_shape shape, unsigned warmup,
                                    unsigned reps)
{
    cml_peak_args a;
    double occ = -1.0, got = 0.0, want = 0.0;
    uint64_t bad = 0, first = 0;
    cml_status st = run_variant(b, op, shape, warmup, reps, &a, &occ, &rec->timing, &bad, &first,
                                &got, &want);
    if (st != CML_OK)
        return cml_exp_fail(plan, rec, st);
    if (op != CML_PEAK_MEMCPY && op != CML_PEAK_MEMSET) {
        rec->grid = a.grid;
        rec->block = a.block;
        rec->occupancy = occ;
    }
    if (bad) {
        rec->state = CML_REC_FAILED;
        rec->verify = CML_VERIFY_FAILED;
        rec->measured = 0;
        rec->bandwidth_gbs = 0.0;
        if (op == CML_PEAK_SUM)
            cml_record_note(rec, "verification failed: the checksum is %.0f, expected %.0f", got,
                            want);
        else
            cml_record_note(rec,
                            "verification failed: %llu of %llu elements wrong, the first at %llu "
                            "(%.9g, expected %.9g)",
                            (unsigned long long)bad, (unsigned long long)b->n,
                            (unsigned long long)first, got, want);
        return CML_EVERIFY;
    }
    rec->verify = CML_VERIFY_PASSED;
    rec->measured = 1;
    rec->bandwidth_gbs = cml_gbs((double)(rec->bytes_read + rec->bytes_written),
                                 rec->timing.median_ms);
    return CML_OK;
}

/* At least this many floats per array for the quick search (1 GiB): the
 * peak is an asymptote, and at 4x L2 (200 MiB on an H100) a copy lasts
 * ~150 us, so the launch's ramp-up and its last partial wave still cost a
 * few percent. Never more than an eighth of the device memory per array. */
#define QUICK_MIN_FLOATS ((uint64_t)1 << 28)

static uint64_t quick_elements(const cml_plan *plan)
{
    uint64_t n = cml_plan_elements(plan, sizeof(float), 1);
    if (plan->dev) {
        uint64_t want = QUICK_MIN_FLOATS, cap = plan->dev->global_bytes / 8 / sizeof(float);
        if (want > cap)
            want = cap;
        if (n < want)
            n = want;
    }
    return n;
}

cml_status cml_peak_measure(const cml_plan *plan, cml_peak_refs *refs)
{
    if (!plan || !plan->gpu)
        return CML_ENOGPU;
    if (refs)
        memset(refs, 0, sizeof *refs);
    cml_gpu *g = plan->gpu;
    cml_peak_bench b;
    const uint64_t n = quick_elements(plan);
    cml_status st = cml_peak_bench_open(g, n, 256, &b);
    if (st != CML_OK)
        return st;
    /* One kernel per class in every quick shape, and the driver's copy and
     * fill: the references do not depend on which shape won where the
     * defaults were tuned. */
    static const cml_peak_op ops[] = {CML_PEAK_SUM, CML_PEAK_FILL, CML_PEAK_COPY, CML_PEAK_TRIAD,
                                      CML_PEAK_MEMCPY, CML_PEAK_MEMSET};
    char size[16];
    cml_peak_size_label(size, sizeof size, n * sizeof(float));
    int verified = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0] && st == CML_OK; i++) {
        const int driver = ops[i] == CML_PEAK_MEMCPY || ops[i] == CML_PEAK_MEMSET;
        for (int s = 0; s < CML_PEAK_SHAPE_COUNT && st == CML_OK; s++) {
            if (!cml_peak_shape_at(s)->quick || (driver && s > 0))
                continue;
            cml_peak_args a;
            cml_timing t;
            uint64_t bad = 0, first = 0;
            st = run_variant(&b, ops[i], (cml_peak_shape)s, 2, 7, &a, NULL, &t, &bad, &first,
                             NULL, NULL);
            if (st != CML_OK || bad)
                continue; /* never a number from a wrong result */
            verified = 1;
            double bytes = (double)(cml_peak_bytes_read(a.op, n) + cml_peak_bytes_written(a.op, n));
            char source[96];
            if (driver)
                snprintf(source, sizeof source, "kernel=%s size=%s", cml_peak_op_name(a.op), size);
            else
                snprintf(source, sizeof source, "kernel=%s shape=%s size=%s",
                         cml_peak_op_name(a.op), cml_peak_shape_name(a.shape), size);
            if (refs)
                cml_peak_refs_offer(refs, cml_peak_op_class(a.op), cml_gbs(bytes, t.median_ms),
                                    source);
        }
    }
    cml_peak_bench_close(&b);
    if (st != CML_OK)
        return st;
    return verified ? CML_OK : CML_EVERIFY;
}
