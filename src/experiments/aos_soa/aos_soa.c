/*
 * Experiment 3: array of structures vs structure of arrays (the textbook's
 * simpleMathAoS / simpleMathSoA: struct {float x, y}, x += 10, y += 20),
 * generalised to structs of F floats of which the first T are updated, to
 * show how the waste grows with the struct while the work stays the same.
 *
 * Kernels (bodies in aos_soa_body.h, run by the kernels and by the mirror
 * below), one thread per element, i = blockIdx.x*blockDim.x +
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

#include "experiments/aos_soa/aos_soa_body.h"
#include "lab/common.h"

static const char *const layouts[] = {"aos", "soa", NULL};

/* One point of the sweep; the options' fields. */
typedef struct aos_soa_settings {
    int64_t touched, fields, layout, block, n;
} aos_soa_settings;

/* Declared fastest-varying first: touched within fields within layout
 * within block, the order the records have always come in. The variant
 * name keeps its own order (aos_soa_name). */
static const cml_param_def aos_soa_params[] = {
    {"touched", "fields read, updated and written, T (variants with T > F are skipped)", 1,
     CML_AOS_MAX_FIELDS, "1,2", NULL, 0, CML_FIELD(aos_soa_settings, touched), NULL},
    {"fields", "floats per struct, F (the textbook's {x, y} is 2)", 1, CML_AOS_MAX_FIELDS,
     "2,4,8", NULL, 0, CML_FIELD(aos_soa_settings, fields), NULL},
    {"layout", "aos = array of structs {float f[F]}, soa = F separate float arrays", 0, 0,
     "aos,soa", layouts, 0, CML_FIELD(aos_soa_settings, layout), NULL},
    {"block", "threads per block", 32, 1024, "256", NULL, 0, CML_FIELD(aos_soa_settings, block),
     NULL},
    {"n", "elements (structs) (0: one field array larger than L2, 4x L2 in and out)", 0,
     (int64_t)1 << 32, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(aos_soa_settings, n), NULL},
};

/* The kernels' own bodies (aos_soa_body.h) on the model's arrays in, out. */
void cml_aos_soa_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_aos_soa_args *a = vargs;
    const float *in = CML_ARRAY(const float, 0);
    float *out = CML_ARRAY(float, 1);
    if (a->soa)
        cml_soa_body(CML_MIRROR_CTX(t, e), in, out, a->n, a->pitch, a->touched);
    else
        cml_aos_body(CML_MIRROR_CTX(t, e), in, out, a->n, a->fields, a->touched);
}

/*
 * Every block is the one before it shifted by block*F*4 bytes (AoS) or
 * block*4 bytes in each field array (SoA): a multiple of 128 when the block
 * is a multiple of 32 threads, so only the last block (the i < n guard) can
 * differ. Other block sizes sit differently on the lines from block to
 * block, but the same way again every 32/gcd(block, 32) blocks: that is
 * their period.
 */
cml_status cml_aos_soa_trace(cml_record *rec, const cml_aos_soa_args *a, unsigned block)
{
    uint64_t nblocks = cml_div_up(a->n, block);
    uint64_t tail = nblocks - a->n / block;
    return cml_exp_trace_1d_period(rec, nblocks, block, 0, tail,
                                   cml_exp_line_period(4u * block), cml_aos_soa_mirror, a);
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
        const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
        char why[96] = "";
        if (a->touched > 1 && rec->has_levels && ld->sectors)
            snprintf(why, sizeof why, "; the other fields' loads hit in L1 (%.0f%% of sectors)",
                     100.0 * (double)rec->levels.l1_hit_sectors / (double)ld->sectors);
        else if (a->touched < a->fields && 4u * a->fields <= CML_SECTOR_BYTES)
            snprintf(why, sizeof why, "; each part-written sector is read before write-back");
        snprintf(text, sizeof text,
                 "AoS, %u of %u fields: a warp's load of one field spans %u bytes, %.1f sectors "
                 "per request, %.1f%% used (Fermi 128 B lines: %.1f%%); DRAM moves %.2fx the "
                 "bytes the algorithm needs (model)%s.",
                 a->touched, a->fields, 32 * 4 * a->fields, spr, eff, feff,
                 cml_exp_dram_ratio(rec), why);
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

/* "layout=aos fields=2 touched=1 block=256": the name the variant has
 * always had, whatever order the options are swept in. */
static void aos_soa_name(cml_record *rec, const aos_soa_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add_label(rec->variant, sizeof rec->variant, "layout", layouts[s->layout]);
    cml_variant_add(rec->variant, sizeof rec->variant, "fields", (long long)s->fields);
    cml_variant_add(rec->variant, sizeof rec->variant, "touched", (long long)s->touched);
    cml_variant_add(rec->variant, sizeof rec->variant, "block", (long long)s->block);
}

static cml_aos_soa_args aos_soa_args(const aos_soa_settings *s)
{
    cml_aos_soa_args a = {(uint64_t)s->n, cml_aos_soa_pitch((uint64_t)s->n), (unsigned)s->fields,
                          (unsigned)s->touched, (int)s->layout};
    return a;
}

/* One variant's record with the model's prediction. n = 0: one float
 * array per field larger than L2 (4x L2 over one input and one output
 * field array), so even T = 1 on SoA streams from DRAM. */
static cml_status aos_soa_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    aos_soa_settings *s = vs;
    if (s->touched > s->fields)
        return CML_SKIP_POINT; /* T > F has no meaning; the options are a cross product */
    if (s->n == 0)
        s->n = (int64_t)cml_plan_elements(ctx->plan, 4, 2);
    aos_soa_name(rec, s);
    const cml_aos_soa_args args = aos_soa_args(s);
    rec->bytes_read = 4ull * args.touched * args.n;
    rec->bytes_written = 4ull * args.touched * args.n;
    if (!args.soa)
        cml_record_add_extra(rec, "sector_bytes_per_element",
                             aos_sector_bytes_per_element(args.fields, args.touched), "B");
    cml_status st = cml_aos_soa_trace(rec, &args, (unsigned)s->block);
    if (st)
        return st;
    aos_soa_finding(rec, &args);
    return CML_OK;
}

/* The in and out buffers (the engine's slots 0 and 1) only grow: sized for
 * the largest struct met so far, in both layouts (SoA's padded arrays need
 * F*pitch >= F*n floats), so a sweep over F allocates once per new largest
 * F instead of at every change. */
typedef struct aos_soa_state {
    uint64_t cap; /* floats in each */
} aos_soa_state;

#define SEED_IN 0xA05A0000000001ull

static cml_status aos_soa_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_aos_soa_check(ctx, SEED_IN, d_counters);
}

/* Measure one variant: poison out, time the kernel, check every float. */
static cml_status aos_soa_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const aos_soa_settings *s = vs;
    aos_soa_state *g = ctx->state;
    const cml_aos_soa_args a = aos_soa_args(s);
    uint64_t cap = a.fields * a.pitch;
    if (cap < g->cap)
        cap = g->cap;
    cml_dbuf *p = cml_sweep_buffer(ctx, rec, 0, cap * sizeof(float), SEED_IN);
    if (!p)
        return CML_ECUDA;
    const cml_dbuf in = *p;
    if (!(p = cml_sweep_buffer(ctx, rec, 1, cap * sizeof(float), 0)))
        return CML_ECUDA;
    cml_dbuf out = *p;
    g->cap = cap;
    const unsigned block = (unsigned)s->block;
    cml_aos_soa_launch_args args = {.in = in.ptr, .out = out.ptr, .n = a.n, .pitch = a.pitch,
                                    .cap = cap, .fields = a.fields, .touched = a.touched,
                                    .block = block, .soa = a.soa};
    cml_status st = cml_exp_measure(ctx->plan, rec, &out, cml_aos_soa_launch, &args,
                                    cml_aos_soa_kernel(a.soa), block, 0, aos_soa_check_cb, &args);
    if (st == CML_OK)
        aos_soa_finding(rec, &a);
    return st;
}

/* Bandwidth and efficiency, one bar colour per layout. */
static const cml_chart_spec aos_soa_charts[] = {
    {.shape = CML_PLOT_BARS, .title = "Measured bandwidth: AoS vs SoA",
     .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER, .series_param = "layout",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_BARS, .title = "Predicted efficiency: AoS vs SoA",
     .ylabel = "bytes used / bytes moved (%)", .yfmt = CML_FMT_PERCENT, .series_param = "layout",
     .m = {{"modern", CML_METRIC_EFF_MODERN, NULL, "under the modern rules", 0}},
     .what = "the predicted efficiency", .unit = "%", .describe = 1},
};

static const char *const aos_soa_validate_settings[] = {"layout=aos,soa fields=2,4,8 touched=1,2",
                                                        NULL};
/* No explained differences: touching two fields stores twice into each
 * sector and the stores meet in L1 (docs/model-evidence.md §4.5), up to
 * half of the store sectors (24% and 49% measured for 4 and 8 fields): the
 * model's interval of L2 writes holds that (docs/model.md §16.8, l1_merge:
 * each SM's sectors stored once at its low end). */
static const cml_validate_spec aos_soa_validate = {aos_soa_validate_settings, NULL, 0};

const cml_experiment cml_exp_aos_soa = {
    .key = "aos-soa",
    .number = 3,
    .title = "Array of structures vs structure of arrays",
    .summary = "Update T of F float fields per element, as an array of structs and as F "
               "separate arrays",
    .doc = "docs/experiments/aos-soa.md",
    .options = aos_soa_params,
    .noptions = CML_COUNT(aos_soa_params),
    .settings_size = sizeof(aos_soa_settings),
    .state_size = sizeof(aos_soa_state),
    .tour = "layout=aos,soa fields=2,8 touched=1,2",
    .variant = aos_soa_variant,
    .measure = aos_soa_measure,
    .charts = aos_soa_charts,
    .ncharts = CML_COUNT(aos_soa_charts),
    .validate = &aos_soa_validate,
};
