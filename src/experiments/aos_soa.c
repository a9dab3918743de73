/*
 * Experiment 3: array of structures vs structure of arrays (the textbook's
 * simpleMathAoS / simpleMathSoA: struct {float x, y}, x += 10, y += 20),
 * generalised to structs of F floats of which the first T are updated, to
 * show how the waste grows with the struct while the work stays the same.
 *
 * Kernels (aos_soa.cu), one thread per element, i = blockIdx.x*blockDim.x +
 * threadIdx.x, addend_j = 10*(j+1), all T loads before the T stores:
 *   aos: if (i < n) { for j < T: tmp_j = in[i*F + j];          (site j)
 *                     for j < T: out[i*F + j] = tmp_j + addend_j; } (site 16+j)
 *   soa: if (i < n) { for j < T: tmp_j = in[j*pitch + i];      (site j)
 *                     for j < T: out[j*pitch + i] = tmp_j + addend_j; }
 * Loads are 4-byte __ldca (ca), stores plain (write-back). The struct is
 * 4-byte aligned, so a field is one 4-byte load, exactly as the textbook's
 * compiler emits it. SoA's F arrays live in one buffer, `pitch` floats apart
 * (n rounded up to 64), so each starts on a line like a separate cudaMalloc.
 *
 * The algorithm must move T fields in and T fields out per element (8T
 * bytes); the rest of the struct is not the kernel's business, and AoS still
 * drags it through the memory system because sectors come whole.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/aos_soa.h"
#include "experiments/aos_soa_kernels.h"
#include "experiments/common.h"

static const char *const layouts[] = {"aos", "soa", NULL};

static const cml_param_def aos_soa_params[] = {
    {"layout", "aos = array of structs {float f[F]}, soa = F separate float arrays", 0, 0,
     "aos,soa", layouts, 0},
    {"fields", "floats per struct, F (the textbook's {x, y} is 2)", 1, CML_AOS_MAX_FIELDS,
     "2,4,8", NULL, 0},
    {"touched", "fields read, updated and written, T (variants with T > F are skipped)", 1,
     CML_AOS_MAX_FIELDS, "1,2", NULL, 0},
    {"block", "threads per block", 32, 1024, "256", NULL, 0},
    {"n", "elements (structs) (0: one field array larger than L2, 4x L2 in and out)", 0,
     (int64_t)1 << 32, "0", NULL, 0},
};

/* Load sites are 0..T-1, store sites MAX_FIELDS..MAX_FIELDS+T-1. */
#define STORE_SITE0 CML_AOS_MAX_FIELDS

void cml_aos_soa_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_aos_soa_args *a = vargs;
    const uint64_t IN = cml_array_base(0), OUT = cml_array_base(1);
    uint64_t i = cml_gtid(t);
    if (i >= a->n)
        return;
    for (unsigned j = 0; j < a->touched; j++) {
        uint64_t q = a->soa ? (uint64_t)j * a->pitch + i : i * a->fields + j;
        cml_emit(e, j, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, IN + 4 * q);
    }
    for (unsigned j = 0; j < a->touched; j++) {
        uint64_t q = a->soa ? (uint64_t)j * a->pitch + i : i * a->fields + j;
        cml_emit(e, STORE_SITE0 + j, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, OUT + 4 * q);
    }
}

/*
 * Every block is the one before it shifted by block*F*4 bytes (AoS) or
 * block*4 bytes in each field array (SoA): a multiple of 128 when the block
 * is a multiple of 32 threads, so only the last block (the i < n guard) can
 * differ. Other block sizes put warps across block boundaries differently
 * from block to block, so those are traced in full.
 */
cml_status cml_aos_soa_trace(cml_record *rec, const cml_aos_soa_args *a, unsigned block)
{
    uint64_t nblocks = cml_div_up(a->n, block);
    if (block % CML_WARP_SIZE != 0)
        return cml_exp_trace(rec, cml_dim1(nblocks), cml_dim1(block), cml_aos_soa_mirror, a);
    uint64_t tail = nblocks - a->n / block;
    return cml_exp_trace_1d(rec, nblocks, block, 0, tail, cml_aos_soa_mirror, a);
}

/* Bytes of whole 32-byte sectors the AoS kernel's loads touch per element:
 * the sectors under bytes [0, 4T) of every 4F-byte struct. The pattern
 * repeats every 32/gcd(4F, 32) structs (a whole number of sectors), so one
 * period is counted; ranges ascend, so a sector shared with the previous
 * range is the only possible repeat. */
static double aos_sector_bytes_per_element(unsigned fields, unsigned touched)
{
    unsigned sz = 4 * fields, g = sz, b = CML_SECTOR_BYTES;
    while (b) {
        unsigned r = g % b;
        g = b;
        b = r;
    }
    unsigned period = CML_SECTOR_BYTES / g;
    uint64_t count = 0, last = UINT64_MAX;
    for (unsigned e = 0; e < period; e++) {
        uint64_t s0 = (uint64_t)e * sz / CML_SECTOR_BYTES;
        uint64_t s1 = ((uint64_t)e * sz + 4 * touched - 1) / CML_SECTOR_BYTES;
        if (s0 == last)
            s0++;
        if (s1 >= s0)
            count += s1 - s0 + 1;
        last = s1;
    }
    return (double)count * CML_SECTOR_BYTES / period;
}

/* The model's sentence, and the measured bandwidth when there is one. */
static void aos_soa_finding(cml_record *rec, const cml_aos_soa_args *a)
{
    char text[384];
    double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    double feff = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD);
    if (!a->soa) {
        double fetched = aos_sector_bytes_per_element(a->fields, a->touched);
        snprintf(text, sizeof text,
                 "AoS, %u of %u fields: a warp's load of one field spans %u bytes, %.1f sectors "
                 "per request, %.1f%% used (Fermi 128 B lines: %.1f%%); the sectors touched "
                 "carry %.0f B per element for the %u B read, %.2fx what the algorithm needs.",
                 a->touched, a->fields, 32 * 4 * a->fields, spr, eff, feff, fetched,
                 4 * a->touched, fetched / (4.0 * a->touched));
    } else {
        unsigned idle = a->fields - a->touched;
        char rest[64];
        if (idle)
            snprintf(rest, sizeof rest, "the %u untouched array%s never fetched", idle,
                     idle == 1 ? " is" : "s are");
        else
            snprintf(rest, sizeof rest, "every byte fetched is a byte needed");
        snprintf(text, sizeof text,
                 "SoA, %u of %u fields: each field is its own array, so a warp's load is 128 "
                 "contiguous bytes: %.1f sectors per request, %.1f%% used (Fermi: %.1f%%), and "
                 "%s.",
                 a->touched, a->fields, spr, eff, feff, rest);
    }
    cml_exp_finding_measured(rec, text);
}

/* Elements of a sweep: the n parameter, else one float array per field
 * larger than L2 (4x L2 over one input and one output field array), so even
 * T = 1 on SoA streams from DRAM. */
static uint64_t aos_soa_n(const cml_plan *plan, const cml_param_values *pv)
{
    uint64_t n = (uint64_t)cml_param_first(pv, "n");
    return n ? n : cml_plan_elements(plan, 4, 2);
}

/* One variant's record with the model's prediction. */
static cml_status aos_soa_variant(const cml_plan *plan, const cml_param_values *pv, int soa,
                                  unsigned fields, unsigned touched, unsigned block,
                                  cml_results *out, cml_record **out_rec)
{
    uint64_t n = aos_soa_n(plan, pv);
    char variant[96] = "";
    cml_variant_add_label(variant, sizeof variant, "layout", layouts[soa]);
    cml_variant_add(variant, sizeof variant, "fields", fields);
    cml_variant_add(variant, sizeof variant, "touched", touched);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, "aos-soa", variant);
    cml_record_add_param(rec, "layout", soa, layouts[soa]);
    cml_record_add_param(rec, "fields", fields, NULL);
    cml_record_add_param(rec, "touched", touched, NULL);
    cml_record_add_param(rec, "block", block, NULL);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    rec->bytes_read = 4ull * touched * n;
    rec->bytes_written = 4ull * touched * n;
    if (!soa)
        cml_record_add_extra(rec, "sector_bytes_per_element",
                             aos_sector_bytes_per_element(fields, touched), "B");

    cml_aos_soa_args args = {n, cml_aos_soa_pitch(n), fields, touched, soa};
    cml_status st = cml_aos_soa_trace(rec, &args, block);
    if (st)
        return st;
    aos_soa_finding(rec, &args);
    *out_rec = rec;
    return CML_OK;
}

/* Device buffers kept across the variants of one sweep: sized once for the
 * largest struct of the sweep, in both layouts (SoA's padded arrays need
 * F*pitch >= F*n floats). */
typedef struct aos_soa_gpu {
    cml_dbuf in, out;
    uint64_t cap; /* floats in each */
} aos_soa_gpu;

#define SEED_IN 0xA05A0000000001ull

static void aos_soa_gpu_free(const cml_plan *plan, aos_soa_gpu *g)
{
    cml_gpu_free(plan->gpu, &g->in);
    cml_gpu_free(plan->gpu, &g->out);
    g->cap = 0;
}

static cml_status aos_soa_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_aos_soa_check(ctx, SEED_IN, d_counters);
}

/* Measure one variant: poison out, time the kernel, check every float. */
static cml_status aos_soa_measure(const cml_plan *plan, aos_soa_gpu *g, cml_record *rec,
                                  const cml_aos_soa_args *a, unsigned block, uint64_t cap)
{
    if (g->cap < cap) {
        aos_soa_gpu_free(plan, g);
        cml_status st = cml_exp_alloc_random(plan, rec, &g->in, cap, SEED_IN);
        if (!st)
            st = cml_exp_alloc(plan, rec, &g->out, cap * sizeof(float));
        if (st)
            return st;
        g->cap = cap;
    }
    cml_aos_soa_launch_args args = {.in = g->in.ptr, .out = g->out.ptr, .n = a->n,
                                    .pitch = a->pitch, .cap = g->cap, .fields = a->fields,
                                    .touched = a->touched, .block = block, .soa = a->soa};
    cml_status st = cml_gpu_poison(plan->gpu, &g->out);
    if (st) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "%s", cml_gpu_error(plan->gpu));
        return st;
    }
    st = cml_exp_time(plan, rec, cml_aos_soa_launch, &args, cml_aos_soa_kernel(a->soa), block, 0);
    if (st)
        return st;
    st = cml_exp_verify(plan, rec, aos_soa_check_cb, &args);
    if (st == CML_OK)
        aos_soa_finding(rec, a);
    return st;
}

static cml_status aos_soa_sweep(const cml_plan *plan, const cml_param_values *pv,
                                cml_results *out)
{
    const cml_param_list *lay = cml_param_get(pv, "layout");
    const cml_param_list *fl = cml_param_get(pv, "fields");
    const cml_param_list *tl = cml_param_get(pv, "touched");
    const cml_param_list *bl = cml_param_get(pv, "block");
    uint64_t n = aos_soa_n(plan, pv);
    uint64_t maxf = 0;
    for (size_t f = 0; f < fl->count; f++)
        if ((uint64_t)fl->v[f] > maxf)
            maxf = (uint64_t)fl->v[f];
    const uint64_t cap = maxf * cml_aos_soa_pitch(n);

    aos_soa_gpu g = {0};
    cml_status st = CML_OK;
    for (size_t b = 0; b < bl->count && !st; b++)
        for (size_t l = 0; l < lay->count && !st; l++)
            for (size_t f = 0; f < fl->count && !st; f++)
                for (size_t t = 0; t < tl->count && !st; t++) {
                    unsigned fields = (unsigned)fl->v[f], touched = (unsigned)tl->v[t];
                    if (touched > fields)
                        continue; /* T > F has no meaning; the list is a cross product */
                    cml_record *rec;
                    int soa = (int)lay->v[l];
                    unsigned block = (unsigned)bl->v[b];
                    st = aos_soa_variant(plan, pv, soa, fields, touched, block, out, &rec);
                    if (!st && plan->gpu) {
                        cml_aos_soa_args a = {n, cml_aos_soa_pitch(n), fields, touched, soa};
                        st = aos_soa_measure(plan, &g, rec, &a, block, cap);
                        if (st == CML_EVERIFY)
                            st = CML_OK; /* recorded as a failed variant; go on */
                    }
                }
    if (plan->gpu)
        aos_soa_gpu_free(plan, &g);
    return st;
}

const cml_experiment cml_exp_aos_soa = {
    "aos-soa", 3, "Array of structures vs structure of arrays",
    "Update T of F float fields per element, as an array of structs and as F separate arrays",
    aos_soa_params, sizeof aos_soa_params / sizeof aos_soa_params[0],
    aos_soa_sweep, aos_soa_sweep, "layout=aos,soa fields=2,8 touched=1,2",
};
