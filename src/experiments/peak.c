/*
 * Experiment 16: the peak bandwidth reference (host side).
 *
 * For each kernel (copy, scale, add, triad, sum) in each launch shape
 * (grid-stride, one-shot) and for cudaMemcpy device-to-device:
 *   - the model: a C mirror of the kernel (cml_peak_mirror) traced thread by
 *     thread under both rule sets; every access is a whole, aligned float4
 *     of a coalesced warp, so the model must predict 100% efficiency;
 *   - on a GPU: random inputs (filled once), the output poisoned ONCE before
 *     the warm-up and the timed launches, then every element verified after
 *     them. One poison is enough because every launch writes the same values
 *     and the verifier compares every element bit for bit: an element no
 *     launch wrote still holds the poison (a NaN) and fails. A verification
 *     failure makes the record FAILED and gives no bandwidth.
 *   - bandwidth = bytes the algorithm must move / median time per launch.
 * The best verified figure becomes results->peak_gbs, and every record's
 * peak_fraction is its share of it.
 *
 * Arrays: each at least 4x the L2 size (cml_plan_elements with one array)
 * and at least 1 GiB (PEAK_MIN_DRAM_FLOATS), larger than the other
 * experiments' rule of thumb: the peak is a DRAM figure, and longer launches
 * make the launch ramp-up and tail a smaller share of it. --size or n= wins.
 */
#include "experiments/peak.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/random.h"
#include "core/stats.h"
#include "experiments/common.h"
#include "experiments/experiment.h"
#include "gpu/gpu_internal.h"

static const char *const kernel_names[] = {"copy", "scale", "add", "triad", "sum", "memcpy",
                                           NULL};
static const char *const shape_names[] = {"grid-stride", "one-shot", NULL};

/* One point of the sweep; the options' fields. */
typedef struct peak_settings {
    int64_t shape, block, kernel, n;
} peak_settings;

/* Declared innermost first (the engine's first option varies fastest).
 * cudaMemcpy has no launch shape and no block: one record, without them. */
#define KERNELS "kernel=copy,scale,add,triad,sum"
static const cml_param_def peak_params[] = {
    {"shape", "grid-stride (grid = SMs x resident blocks) or one-shot (4 float4 per thread)", 0,
     0, "all", shape_names, 0, CML_FIELD(peak_settings, shape), KERNELS},
    {"block", "threads per block (a multiple of 32)", 32, 1024, "256", NULL, 0,
     CML_FIELD(peak_settings, block), KERNELS},
    {"kernel", "copy, scale, add, triad, sum (read only) or memcpy (cudaMemcpy D2D)", 0, 0,
     "all", kernel_names, 0, CML_FIELD(peak_settings, kernel), NULL},
    {"n", "floats per array (0: each array 4x the L2 size)", 0, (int64_t)1 << 34, "0", NULL,
     CML_PARAM_NOVARIANT, CML_FIELD(peak_settings, n), NULL},
};

/* Fixed seeds: the same inputs on every run, so runs compare. */
#define SEED_X 0x9EA6000000000001ull
#define SEED_Y 0x9EA6000000000002ull

const char *cml_peak_op_name(cml_peak_op op)
{
    return (op >= 0 && op < CML_PEAK_OP_COUNT) ? kernel_names[op] : "?";
}

const char *cml_peak_shape_name(cml_peak_shape s)
{
    return (s >= 0 && s < CML_PEAK_SHAPE_COUNT) ? shape_names[s] : "?";
}

/* The bandwidth table (BabelStream's idea): the bytes each kernel must move
 * live here and nowhere else. */
uint64_t cml_peak_bytes_read(cml_peak_op op, uint64_t n)
{
    switch (op) {
    case CML_PEAK_ADD:
    case CML_PEAK_TRIAD: return 8 * n;
    default: return 4 * n;
    }
}

uint64_t cml_peak_bytes_written(cml_peak_op op, uint64_t n)
{
    return op == CML_PEAK_SUM ? 0 : 4 * n;
}

/* Each rounding is its own statement through a volatile, so no compiler
 * setting can fuse the product and the sum into one FMA (the kernels use
 * __fmul_rn and __fadd_rn for the same reason). */
float cml_peak_expected(cml_peak_op op, uint64_t seed_x, uint64_t seed_y, uint64_t i)
{
    float x = cml_random_f32(seed_x, i);
    volatile float p;
    switch (op) {
    case CML_PEAK_SCALE:
        p = CML_PEAK_SCALAR * x;
        return p;
    case CML_PEAK_ADD: return x + cml_random_f32(seed_y, i);
    case CML_PEAK_TRIAD:
        p = CML_PEAK_SCALAR * cml_random_f32(seed_y, i);
        return x + p;
    default: return x;
    }
}

/* ------------------------------------------------------------------------ */
/* The mirror                                                               */
/* ------------------------------------------------------------------------ */

/* block_sum() of peak.cu: lane 0 of each warp stores its warp's double to
 * shared memory, then lanes of warp 0 below the warp count load them. */
static void mirror_block_sum(const cml_thread *t, cml_emitter *e, unsigned site)
{
    unsigned w = t->tid.x / 32u, lane = t->tid.x % 32u;
    if (lane == 0)
        cml_emit(e, site, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 8, 8u * w);
    if (w == 0 && lane < t->bdim.x / 32u)
        cml_emit(e, site + 1, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 8, 8u * lane);
}

/* The three accesses of one element step: x, y (add, triad), z (not sum). */
static void mirror_step(cml_emitter *e, unsigned site, unsigned width, uint64_t i, int needs_y,
                        int writes)
{
    const uint64_t X = cml_array_base(0), Y = cml_array_base(1), Z = cml_array_base(2);
    cml_emit(e, site, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, width, X + width * i);
    if (needs_y)
        cml_emit(e, site + 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, width, Y + width * i);
    if (writes)
        cml_emit(e, site + 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, width, Z + width * i);
}

/*
 * Sites: the four-wide loops (grid-stride main loop, one-shot body) give
 * each of their unrolled loads and stores its own instruction: x loads 0..3,
 * y loads 4..7, stores 8..11. The grid-stride remainder loop is 12..14, the
 * trailing floats 15..17, the sum's reductions 18..21 and its result 22.
 * The sum's atomics (slot add, ticket, slot exchange) are not loads or
 * stores in the model's vocabulary and are left out: 3 per block plus 64
 * in the last block, against millions of loads.
 */
void cml_peak_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_peak_mirror_args *a = vargs;
    const uint64_t X = cml_array_base(0), Y = cml_array_base(1), Z = cml_array_base(2);
    const uint64_t R = cml_array_base(4);
    const int needs_y = a->op == CML_PEAK_ADD || a->op == CML_PEAK_TRIAD;
    const int writes = a->op != CML_PEAK_SUM;
    const unsigned K = CML_PEAK_PER_THREAD;
    const uint64_t n4 = a->n / 4, gtid = cml_gtid(t);
    uint64_t idx[CML_PEAK_PER_THREAD];
    unsigned m = 0; /* float4s of the four-wide step that are in range */

    if (a->shape == CML_PEAK_GRID_STRIDE) {
        const uint64_t stride = (uint64_t)t->gdim.x * t->bdim.x;
        uint64_t i = gtid;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            for (unsigned k = 0; k < 4; k++)
                cml_emit(e, k, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, 16,
                         X + 16 * (i + k * stride));
            for (unsigned k = 0; needs_y && k < 4; k++)
                cml_emit(e, 4 + k, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, 16,
                         Y + 16 * (i + k * stride));
            for (unsigned k = 0; writes && k < 4; k++)
                cml_emit(e, 8 + k, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 16,
                         Z + 16 * (i + k * stride));
        }
        for (; i < n4; i += stride)
            mirror_step(e, 12, 16, i, needs_y, writes);
        uint64_t r = n4 * 4 + gtid;
        if (r < a->n)
            mirror_step(e, 15, 4, r, needs_y, writes);
    } else {
        const uint64_t base = (uint64_t)t->bid.x * t->bdim.x * K + t->tid.x;
        for (unsigned k = 0; k < K; k++) {
            uint64_t i = base + (uint64_t)k * t->bdim.x;
            if (i < n4) {
                cml_emit(e, k, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, 16, X + 16 * i);
                idx[m++] = i;
            }
        }
        for (unsigned k = 0; needs_y && k < m; k++)
            cml_emit(e, 4 + k, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_NC, 16, Y + 16 * idx[k]);
        for (unsigned k = 0; writes && k < m; k++)
            cml_emit(e, 8 + k, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 16, Z + 16 * idx[k]);
        uint64_t r = n4 * 4 + t->tid.x;
        if (t->bid.x == 0 && r < a->n)
            mirror_step(e, 15, 4, r, needs_y, writes);
    }
    if (!writes) {
        /* The block's reduction; the last block (taken here to be the one
         * with the highest index: which block finishes last varies, its
         * accesses do not) reduces the slots again and stores the result. */
        mirror_block_sum(t, e, 18);
        if (t->bid.x == t->gdim.x - 1) {
            mirror_block_sum(t, e, 20);
            if (t->tid.x == 0)
                cml_emit(e, 22, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 8, R);
        }
    }
}

/* Launch grid of op/shape for n floats without a device at hand: the
 * grid-stride grid fills every SM with resident threads. */
static unsigned model_grid(const cml_plan *plan, cml_peak_shape shape, uint64_t n, unsigned block)
{
    uint64_t n4 = n / 4, g;
    if (shape == CML_PEAK_ONE_SHOT) {
        g = cml_div_up(n4, (uint64_t)block * CML_PEAK_PER_THREAD);
    } else {
        uint64_t per_sm = cml_exp_threads_per_sm(plan) / block;
        g = (uint64_t)cml_exp_sm_count(plan) * (per_sm ? per_sm : 1);
        uint64_t need = cml_div_up(n4, block);
        if (g > need)
            g = need;
    }
    return (unsigned)(g ? g : 1);
}

/* The largest n the model traces in full: beyond, tracing costs seconds of
 * CPU per variant and tells nothing new (every access is a whole float4 of
 * a whole warp), so a larger run is traced at this size and says so. */
#define TRACE_MAX_N ((uint64_t)1 << 24)

/*
 * Trace op/shape at n floats into rec->model under both rule sets. The
 * grid-stride kernel runs over `gs_grid` blocks (the one-shot grid follows
 * from n). The traced n is at most TRACE_MAX_N and small enough that no
 * thread makes more than CML_MAX_EMITS accesses (the tracer's limit); it
 * keeps n's remainder mod 4, so the trailing floats are traced too.
 */
static cml_status peak_trace(cml_record *rec, cml_peak_op op, cml_peak_shape shape, uint64_t n,
                             unsigned gs_grid, unsigned block)
{
    cml_peak_mirror_args a = {op, shape, n};
    uint64_t cap = TRACE_MAX_N;
    if (shape == CML_PEAK_GRID_STRIDE) {
        uint64_t per_elem = (op == CML_PEAK_ADD || op == CML_PEAK_TRIAD) ? 3 : 2;
        uint64_t max_iters = (CML_MAX_EMITS - 16) / per_elem;
        if (max_iters * gs_grid * block * 4 < cap)
            cap = max_iters * gs_grid * block * 4;
    }
    if (n > cap + 3) {
        a.n = cap + n % 4;
        cml_record_note(rec, "model traced at n=%llu floats per array, not %llu: every access "
                             "is the same whole float4 of a warp, so the shares are the same",
                        (unsigned long long)a.n, (unsigned long long)n);
    }
    unsigned grid = shape == CML_PEAK_ONE_SHOT ? model_grid(NULL, shape, a.n, block) : gs_grid;
    for (int r = 0; r < CML_RULES_COUNT; r++) {
        memset(&rec->model[r], 0, sizeof rec->model[r]);
        cml_status st = cml_trace_kernel((cml_rules)r, cml_dim1(grid), cml_dim1(block),
                                         cml_peak_mirror, &a, &rec->model[r]);
        if (st != CML_OK) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "model: %s", cml_status_str(st));
            return st;
        }
    }
    rec->has_model = 1;
    return CML_OK;
}

/* ------------------------------------------------------------------------ */
/* The bench: buffers and launches on a GPU                                 */
/* ------------------------------------------------------------------------ */

/* Grid-stride grid on a device: SMs x the blocks the occupancy calculator
 * lets reside on one SM (so every SM is full and no block waits), but no
 * more blocks than there are float4s to cover. */
static cml_status device_grid(cml_gpu *g, cml_peak_op op, cml_peak_shape shape, uint64_t n,
                              unsigned block, unsigned *grid, double *occupancy)
{
    const cml_device_facts *f = cml_gpu_facts(g);
    double occ = 0.0;
    cml_status st = cml_gpu_occupancy(g, cml_peak_kernel(op, shape), block, 0, &occ);
    if (st != CML_OK)
        return st;
    uint64_t n4 = n / 4, gr;
    if (shape == CML_PEAK_ONE_SHOT) {
        gr = cml_div_up(n4, (uint64_t)block * CML_PEAK_PER_THREAD);
    } else {
        unsigned warp = f->warp_size > 0 ? (unsigned)f->warp_size : 32u;
        double max_warps = (double)f->max_threads_per_sm / warp;
        uint64_t per_sm = (uint64_t)llround(occ * max_warps / (double)cml_div_up(block, warp));
        gr = (uint64_t)f->sm_count * (per_sm ? per_sm : 1);
        uint64_t need = cml_div_up(n4, block);
        if (gr > need)
            gr = need;
    }
    if (gr == 0)
        gr = 1;
    if (gr > 0x7FFFFFFFull)
        return CML_EINVAL; /* beyond gridDim.x: n is out of the parameter's range */
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
    static const double zero_slots[CML_PEAK_SUM_SLOTS];
    static const unsigned zero_ticket;
    cml_status st;
    if ((st = cml_gpu_alloc(g, &b->x, bytes)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->y, bytes)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->z, bytes)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->slots, sizeof zero_slots)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->ticket, sizeof zero_ticket)) != CML_OK ||
        (st = cml_gpu_upload(g, &b->slots, zero_slots, sizeof zero_slots)) != CML_OK ||
        (st = cml_gpu_upload(g, &b->ticket, &zero_ticket, sizeof zero_ticket)) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->result, sizeof(double))) != CML_OK ||
        (st = cml_gpu_alloc(g, &b->reference, sizeof(double))) != CML_OK ||
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
    if (op == CML_PEAK_MEMCPY)
        return CML_OK;
    return device_grid(b->gpu, op, shape, b->n, b->block, &a->grid, occupancy);
}

cml_status cml_peak_poison(cml_peak_bench *b, const cml_peak_args *a)
{
    return cml_gpu_poison(b->gpu, a->op == CML_PEAK_SUM ? &b->result : &b->z);
}

cml_status cml_peak_verify(cml_peak_bench *b, const cml_peak_args *a, uint64_t *mismatches,
                           uint64_t *first_bad, double *got, double *want)
{
    cml_gpu *g = b->gpu;
    cml_status st;
    *mismatches = 0;
    *first_bad = 0;
    if (a->op == CML_PEAK_SUM) {
        double zero = 0.0, sum = 0.0, ref = 0.0;
        if ((st = cml_gpu_upload(g, &b->reference, &zero, sizeof zero)) != CML_OK)
            return st;
        cml_gpu_clear_last_error();
        if ((st = cml_peak_reference_sum(b->n, b->seed_x, b->reference.ptr)) != CML_OK)
            return st;
        if ((st = cml_gpu_download(g, &sum, &b->result, sizeof sum)) != CML_OK ||
            (st = cml_gpu_download(g, &ref, &b->reference, sizeof ref)) != CML_OK)
            return st;
        /* Exact below 2^29 elements (peak.h); beyond, both sums round, in
         * different orders, by far less than one part in 10^12. */
        int ok = b->n < ((uint64_t)1 << 29) ? sum == ref
                                              : fabs(sum - ref) <= 1e-12 * fabs(ref);
        *mismatches = ok ? 0 : 1;
        if (got)
            *got = sum;
        if (want)
            *want = ref;
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
    if (c[0]) {
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

/* ------------------------------------------------------------------------ */
/* Records                                                                  */
/* ------------------------------------------------------------------------ */

static void variant_name(char *buf, size_t len, cml_peak_op op, cml_peak_shape shape,
                         unsigned block)
{
    buf[0] = '\0';
    cml_variant_add_label(buf, len, "kernel", cml_peak_op_name(op));
    if (op != CML_PEAK_MEMCPY) {
        cml_variant_add_label(buf, len, "shape", cml_peak_shape_name(shape));
        cml_variant_add(buf, len, "block", block);
    }
}

/* The sentence of a model-only record. */
static void model_finding(cml_record *rec, cml_peak_op op, cml_peak_shape shape)
{
    if (op == CML_PEAK_MEMCPY) {
        cml_record_finding(rec, "cudaMemcpy device-to-device runs the driver's own copy, so there "
                                "is no kernel to mirror; it moves %llu bytes.",
                           (unsigned long long)(rec->bytes_read + rec->bytes_written));
        return;
    }
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    double feff = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD);
    double seff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST);
    if (op == CML_PEAK_SUM)
        cml_record_finding(rec,
                           "sum (%s): %llu load requests, %.2f sectors each, %.1f%% of fetched "
                           "bytes used (Fermi rules %.1f%%): 16-byte loads of whole warps fill "
                           "whole 128-byte lines.",
                           cml_peak_shape_name(shape), (unsigned long long)ld->requests,
                           cml_exp_spr(rec, CML_CLASS_GLOBAL_LD), eff, feff);
    else
        cml_record_finding(rec,
                           "%s (%s): %llu load requests at %.2f sectors each, loads %.1f%% and "
                           "stores %.1f%% efficient (Fermi rules: loads %.1f%%): 16-byte accesses "
                           "of whole warps fill whole 128-byte lines.",
                           cml_peak_op_name(op), cml_peak_shape_name(shape),
                           (unsigned long long)ld->requests, cml_exp_spr(rec, CML_CLASS_GLOBAL_LD),
                           eff, seff, feff);
}

/* At least this many floats per array for the DRAM peak (1 GiB): the peak
 * is an asymptote, and at 4x L2 (200 MiB on an H100) a copy lasts ~150 us,
 * so the launch's ramp-up and its last partial wave still cost a few
 * percent. Never more than an eighth of the device memory per array. */
#define PEAK_MIN_DRAM_FLOATS ((uint64_t)1 << 28)

/* Floats per array: `given` (the n option) if not 0, else from the plan. */
static uint64_t peak_elements(const cml_plan *plan, uint64_t given)
{
    if (given)
        return given;
    /* L2/L1-resident sizes share the cache among the three arrays. */
    if (plan && plan->where != CML_WHERE_DRAM)
        return cml_plan_elements(plan, sizeof(float), 3);
    /* DRAM: one array of (at least) 4x L2 each. */
    uint64_t n = cml_plan_elements(plan, sizeof(float), 1);
    if (plan && plan->dev && !plan->size_bytes) {
        uint64_t want = PEAK_MIN_DRAM_FLOATS;
        uint64_t cap = plan->dev->global_bytes / 8 / sizeof(float);
        if (want > cap)
            want = cap;
        if (n < want)
            n = want;
    }
    return n;
}

/* One point: n resolved, the record and the model (traced over the grid the
 * GPU run will launch, when a GPU is open). */
static cml_status peak_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    peak_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    s->n = (int64_t)peak_elements(plan, (uint64_t)s->n);
    const uint64_t n = (uint64_t)s->n;
    const cml_peak_op op = (cml_peak_op)s->kernel;
    const cml_peak_shape shape = (cml_peak_shape)s->shape;
    const unsigned block = (unsigned)s->block;
    variant_name(rec->variant, sizeof rec->variant, op, shape, block);
    rec->bytes_read = cml_peak_bytes_read(op, n);
    rec->bytes_written = cml_peak_bytes_written(op, n);
    if (op != CML_PEAK_MEMCPY) {
        if (block % 32u != 0) {
            cml_sweep_waive(ctx, rec, "block=%u: the peak kernels use whole warps (a multiple "
                                      "of 32 threads)", block);
            return CML_OK;
        }
        unsigned grid = model_grid(plan, shape, n, block);
        if (plan->gpu) {
            cml_status st = device_grid(plan->gpu, op, shape, n, block, &grid, NULL);
            if (st != CML_OK)
                return cml_exp_fail(plan, rec, st);
        }
        cml_status st = peak_trace(rec, op, shape, n, grid, block);
        if (st != CML_OK)
            return st;
        rec->grid = grid;
        rec->block = block;
    }
    model_finding(rec, op, shape);
    return CML_OK;
}

/* Time and verify one variant on the bench; fills rec. CML_EVERIFY leaves a
 * FAILED record and lets the sweep go on; CUDA errors stop it. */
static cml_status measure_variant(const cml_plan *plan, cml_peak_bench *b, cml_record *rec,
                                  cml_peak_op op, cml_peak_shape shape, unsigned warmup,
                                  unsigned reps)
{
    cml_gpu *g = b->gpu;
    cml_peak_args a;
    double occ = -1.0;
    cml_status st = cml_peak_configure(b, op, shape, &a, &occ);
    if (st == CML_OK)
        st = cml_peak_poison(b, &a);
    if (st == CML_OK)
        st = cml_gpu_time(g, cml_peak_launch, &a, warmup, reps, &rec->timing);
    uint64_t bad = 0, first = 0;
    double got = 0.0, want = 0.0;
    if (st == CML_OK)
        st = cml_peak_verify(b, &a, &bad, &first, &got, &want);
    if (st != CML_OK)
        return cml_exp_fail(plan, rec, st);
    if (op != CML_PEAK_MEMCPY) {
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
            cml_record_note(rec, "verification failed: the sum is %.17g, expected %.17g", got,
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
    double bytes = (double)(rec->bytes_read + rec->bytes_written);
    rec->bandwidth_gbs = cml_gbs(bytes, rec->timing.median_ms);
    double theo = cml_gpu_facts(g)->theoretical_gbs;
    char size[32];
    cml_fmt_bytes(size, sizeof size, bytes);
    const char *what = op == CML_PEAK_MEMCPY ? "cudaMemcpy device-to-device" : cml_peak_op_name(op);
    char how[48] = "";
    if (op != CML_PEAK_MEMCPY)
        snprintf(how, sizeof how, " (%s)", cml_peak_shape_name(shape));
    cml_record_finding(rec,
                       "%s%s reached %.0f GB/s (%s in %.3f ms, median of %u), %.1f%% of the "
                       "theoretical %.0f GB/s read from the device.",
                       what, how, rec->bandwidth_gbs, size, rec->timing.median_ms, rec->timing.reps,
                       theo > 0 ? 100.0 * rec->bandwidth_gbs / theo : 0.0, theo);
    return CML_OK;
}

/*
 * The run's state: one bench (buffers of n floats, filled once, whatever
 * the block), and where the closing sentences went (peak_summary).
 */
typedef struct peak_state {
    cml_peak_bench bench;
    int open;
    size_t best, memcpy_rec;       /* records holding a closing sentence */
    size_t best_cut, memcpy_cut;   /* 1 + their finding's length before it; 0: none */
} peak_state;

static cml_status peak_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const peak_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    peak_state *g = ctx->state;
    const uint64_t n = (uint64_t)s->n;
    const cml_peak_op op = (cml_peak_op)s->kernel;
    /* cudaMemcpy has no block; the bench wants a valid one all the same. */
    const unsigned block = op == CML_PEAK_MEMCPY ? 256u : (unsigned)s->block;
    if (g->open && g->bench.n != n) {
        cml_peak_bench_close(&g->bench);
        g->open = 0;
    }
    if (!g->open) {
        cml_status st = cml_peak_bench_open(plan->gpu, n, block, &g->bench);
        if (st != CML_OK)
            return cml_exp_fail(plan, rec, st);
        g->open = 1;
    }
    g->bench.block = block;
    const unsigned warmup = plan->warmup ? plan->warmup : 3;
    const unsigned reps = plan->reps ? plan->reps : (plan->quick ? 5 : 30);
    return measure_variant(plan, &g->bench, rec, op, (cml_peak_shape)s->shape, warmup, reps);
}

/*
 * The best verified figure of the run is this GPU's peak: every record's
 * share of it, and a closing sentence on the best record and on memcpy.
 * Called after each sweep of `shape`, so it first takes back the sentences
 * it added last time: when the run ends they stand on the run's best.
 */
static void peak_summary(cml_sweep *ctx, size_t from, size_t to)
{
    (void)from;
    (void)to;
    if (!ctx->plan->gpu)
        return;
    cml_results *out = ctx->out;
    peak_state *st = ctx->state;
    if (st->memcpy_cut)
        out->items[st->memcpy_rec].finding[st->memcpy_cut - 1] = '\0';
    if (st->best_cut)
        out->items[st->best].finding[st->best_cut - 1] = '\0';
    st->best_cut = st->memcpy_cut = 0;
    const cml_device_facts *f = cml_gpu_facts(ctx->plan->gpu);
    const size_t first = ctx->first;
    size_t best = SIZE_MAX, best_kernel = SIZE_MAX, memcpy_rec = SIZE_MAX;
    for (size_t i = first; i < out->count; i++) {
        cml_record *r = &out->items[i];
        const peak_settings *s = cml_sweep_settings_of(ctx, i);
        if (!s || !r->measured || r->verify != CML_VERIFY_PASSED)
            continue;
        if (best == SIZE_MAX || r->bandwidth_gbs > out->items[best].bandwidth_gbs)
            best = i;
        if (s->kernel == CML_PEAK_MEMCPY)
            memcpy_rec = i;
        else if (best_kernel == SIZE_MAX ||
                 r->bandwidth_gbs > out->items[best_kernel].bandwidth_gbs)
            best_kernel = i;
    }
    if (best == SIZE_MAX)
        return;
    double peak = out->items[best].bandwidth_gbs;
    if (peak > out->peak_gbs)
        out->peak_gbs = peak;
    for (size_t i = first; i < out->count; i++) {
        cml_record *r = &out->items[i];
        if (r->measured && r->verify == CML_VERIFY_PASSED)
            r->peak_fraction = r->bandwidth_gbs / out->peak_gbs;
    }
    cml_record *b = &out->items[best];
    size_t used = strlen(b->finding);
    st->best = best;
    st->best_cut = used + 1;
    snprintf(b->finding + used, sizeof b->finding - used,
             " The best figure here: this GPU's measured peak%s.",
             f && f->theoretical_gbs > 0 && peak < 0.9 * f->theoretical_gbs
                 ? " (below 90% of theoretical: clocks, ECC or a busy GPU?)"
                 : "");
    if (memcpy_rec != SIZE_MAX && best_kernel != SIZE_MAX) {
        cml_record *m = &out->items[memcpy_rec];
        const cml_record *k = &out->items[best_kernel];
        used = strlen(m->finding);
        st->memcpy_rec = memcpy_rec;
        st->memcpy_cut = used + 1;
        snprintf(m->finding + used, sizeof m->finding - used,
                 " The best kernel (%.40s) reached %.0f GB/s, %.1f%% of it.", k->variant,
                 k->bandwidth_gbs, 100.0 * k->bandwidth_gbs / m->bandwidth_gbs);
    }
}

static void peak_release(cml_sweep *ctx)
{
    peak_state *g = ctx->state;
    if (g->open)
        cml_peak_bench_close(&g->bench);
    g->open = 0;
}

cml_status cml_peak_measure(const cml_plan *plan, double *peak_gbs)
{
    if (!plan || !plan->gpu)
        return CML_ENOGPU;
    if (peak_gbs)
        *peak_gbs = 0.0;
    cml_gpu *g = plan->gpu;
    cml_peak_bench b;
    cml_status st = cml_peak_bench_open(g, peak_elements(plan, 0), 256, &b);
    if (st != CML_OK)
        return st;
    /* The kernels that reached the most on an H100 (read-only sum and add,
     * one-shot: 92.8% and 90.7% of theoretical), and cudaMemcpy, so the
     * quick figure is the same reference the full experiment finds. */
    static const struct { cml_peak_op op; cml_peak_shape shape; } quick[] = {
        {CML_PEAK_SUM, CML_PEAK_ONE_SHOT},
        {CML_PEAK_ADD, CML_PEAK_ONE_SHOT},
        {CML_PEAK_COPY, CML_PEAK_ONE_SHOT},
        {CML_PEAK_MEMCPY, CML_PEAK_GRID_STRIDE},
    };
    double best = 0.0;
    int verified = 0;
    for (size_t i = 0; i < sizeof quick / sizeof quick[0]; i++) {
        cml_peak_args a;
        cml_timing t;
        uint64_t bad = 0, first = 0;
        st = cml_peak_configure(&b, quick[i].op, quick[i].shape, &a, NULL);
        if (st == CML_OK)
            st = cml_peak_poison(&b, &a);
        if (st == CML_OK)
            st = cml_gpu_time(g, cml_peak_launch, &a, 2, 7, &t);
        if (st == CML_OK)
            st = cml_peak_verify(&b, &a, &bad, &first, NULL, NULL);
        if (st != CML_OK)
            break;
        if (bad)
            continue; /* never a number from a wrong result */
        verified = 1;
        double bytes = (double)(cml_peak_bytes_read(a.op, b.n) + cml_peak_bytes_written(a.op, b.n));
        double gbs = cml_gbs(bytes, t.median_ms);
        if (gbs > best)
            best = gbs;
    }
    cml_peak_bench_close(&b);
    if (st != CML_OK)
        return st;
    if (!verified)
        return CML_EVERIFY;
    if (peak_gbs)
        *peak_gbs = best;
    return CML_OK;
}

static const cml_chart_spec peak_charts[] = {
    {.shape = CML_PLOT_BARS,
     .title = "Measured bandwidth by kernel",
     .ylabel = "bandwidth (GB/s)",
     .yfmt = CML_FMT_NUMBER,
     .series_param = "shape",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL}},
     .what = "bandwidth",
     .unit = "GB/s",
     .describe = 1},
};

const cml_experiment cml_exp_peak = {
    .key = "peak-bandwidth",
    .number = 16,
    .title = "Peak bandwidth reference",
    .summary = "copy, scale, add, triad, sum and cudaMemcpy D2D at full speed: this GPU's "
               "measured peak",
    .doc = "docs/experiments/peak-bandwidth.md",
    .options = peak_params,
    .noptions = CML_COUNT(peak_params),
    .settings_size = sizeof(peak_settings),
    .state_size = sizeof(peak_state),
    .tour = "kernel=all shape=all",
    .variant = peak_variant,
    .measure = peak_measure,
    .summarize = peak_summary,
    .release = peak_release,
    .charts = peak_charts,
    .ncharts = CML_COUNT(peak_charts),
    .validate = NULL, /* no counters row: validate lists it as skipped */
};
