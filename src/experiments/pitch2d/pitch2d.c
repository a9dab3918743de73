/*
 * Experiment 8: 2D arrays and pitch.
 *
 * The kernels, whose body (pitch2d_body.h) nvcc and the mirror below
 * both compile; one kernel per element type T in {unsigned char, unsigned
 * short, float, double}, named pitch2d_u8, _u16, _f32, _f64:
 *
 *   __global__ void pitch2d_u8(const unsigned char *in, unsigned char *out,
 *                              unsigned width, unsigned height, size_t pitch,
 *                              size_t image_stride)
 *   {   // pitch and image_stride in ELEMENTS: bytes / sizeof(T)
 *       unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
 *       unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
 *       size_t base = (size_t)blockIdx.z * image_stride;   // image z of the batch
 *       if (x < width && y < height)
 *           out[base + (size_t)y * pitch + x] = (T)(in[base + (size_t)y * pitch + x] + 1);
 *   }
 *   // launch: block (bx, by) from --block, grid (ceil(width/bx), ceil(height/by), images)
 *
 * `in` and `out` are two separate allocations with the same layout:
 *   unpadded: cudaMalloc, pitch_bytes = width*sizeof(T)
 *   pitch:    cudaMallocPitch(&p, &pitch_bytes, width*sizeof(T), rows): the
 *             driver's pitch (the model assumes 512-byte alignment when no
 *             GPU is there to ask)
 *   pad32:    cudaMalloc, pitch_bytes = width*sizeof(T) rounded up to 32
 *   pad128:   cudaMalloc, pitch_bytes = width*sizeof(T) rounded up to 128
 * A batch of `images` images (one is the textbook's case; the default is
 * enough images that each array is larger than L2, so the GPU run measures
 * DRAM and not the cache) puts image z at z * image_stride elements, with
 * image_stride * sizeof(T) = pitch_bytes * height rounded up to 512: each
 * image starts where a separate allocation of it would, on a boundary that
 * is a multiple of 128 bytes, so every image has exactly the same sectors
 * and lines and the model counts image 0's blocks once per image.
 * Per thread: one load of in[] (site 0), one store of out[] (site 1), both
 * default cache operators: for the threads inside the image, and nothing
 * for the others (the `if`).
 *
 * What it shows: a warp covers one row segment (bx >= 32) or 32/bx row
 * segments; whether a segment fits its minimum number of 32-byte sectors
 * depends only on where the row starts, y * pitch_bytes mod 32. Rows of 777
 * bytes start at 9y mod 32, so almost every warp straddles one extra sector;
 * padding the rows to a multiple of 32 (or 128, or cudaMallocPitch's
 * alignment) puts every row start on a sector boundary for a few percent
 * more memory.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/pitch2d/pitch2d_body.h"
#include "gpu/pitch.h"
#include "lab/common.h"

enum { LAYOUT_UNPADDED = 0, LAYOUT_PITCH, LAYOUT_PAD32, LAYOUT_PAD128 };

static const char *const layout_names[] = {"unpadded", "pitch", "pad32", "pad128", NULL};
static const char *const type_names[] = {"u8", "u16", "f32", "f64", NULL};
static const unsigned type_bytes[] = {1, 2, 4, 8};

/* Block shapes as choices, so that param.c validates them; the numbers are
 * in the parallel table below. Every shape has a multiple of 32 threads. */
static const char *const block_names[] = {"32x8",  "16x16", "64x4", "128x2", "8x32", "32x4",
                                          "32x16", "32x32", "256x1", "16x8", NULL};
static const unsigned block_dims[][2] = {{32, 8},  {16, 16}, {64, 4}, {128, 2}, {8, 32},
                                         {32, 4},  {32, 16}, {32, 32}, {256, 1}, {16, 8}};

/* One point of the sweep; the options' fields. */
typedef struct pitch2d_settings {
    int64_t block, layout, type, width, height, images;
} pitch2d_settings;

/* Declared fastest-varying first: block shapes within a layout within a
 * type, the order the records have always come in, and the GPU run keeps
 * one pair of buffers for all the shapes of a layout. The variant name
 * keeps its own order (pitch2d_name). */
static const cml_param_def pitch2d_params[] = {
    {"block", "block shape WxH (threads in x and in y)", 0, 0, "32x8,16x16", block_names, 0,
     CML_FIELD(pitch2d_settings, block), NULL},
    {"layout",
     "row layout: unpadded, pitch (cudaMallocPitch), pad32 / pad128 (rows rounded up by hand)",
     0, 0, "unpadded,pitch,pad32,pad128", layout_names, 0, CML_FIELD(pitch2d_settings, layout),
     NULL},
    {"type", "element type: u8 (1 byte), u16, f32 (4 bytes), f64", 0, 0, "u8,f32", type_names, 0,
     CML_FIELD(pitch2d_settings, type), NULL},
    /* Up to 16384 x 16384: the model traces every thread of one image, about
     * 6 s per variant at the largest (40 M threads/s on one core); the
     * lab's point is the row length's alignment, which small images show,
     * and --images makes the arrays as large as DRAM sizing needs. */
    {"width", "image width in elements", 1, 16384, "777", NULL, 0,
     CML_FIELD(pitch2d_settings, width), NULL},
    {"height", "image height in rows", 1, 16384, "555", NULL, 0,
     CML_FIELD(pitch2d_settings, height), NULL},
    {"images",
     "images in the batch, each starting on a 512-byte boundary (0: enough that each array is "
     "larger than L2, or as --where/--size say)",
     0, 65535, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(pitch2d_settings, images), NULL},
};

/* cudaMallocPitch's row alignment when no GPU can be asked: 512 bytes, what
 * it has returned on the GPUs the textbooks describe. With a GPU the run
 * asks the driver for the pitch of each row length instead (pitch_of). */
#define ASSUMED_PITCH_ALIGN 512u

static uint64_t round_up(uint64_t v, uint64_t m)
{
    return cml_div_up(v, m) * m;
}

uint64_t cml_pitch2d_pitch_bytes(int layout, uint64_t row_bytes, uint64_t pitch_align)
{
    switch (layout) {
    case LAYOUT_PITCH: return round_up(row_bytes, pitch_align ? pitch_align : ASSUMED_PITCH_ALIGN);
    case LAYOUT_PAD32: return round_up(row_bytes, 32);
    case LAYOUT_PAD128: return round_up(row_bytes, 128);
    case LAYOUT_UNPADDED:
    default: return row_bytes;
    }
}

uint64_t cml_pitch2d_image_stride_bytes(uint64_t pitch_bytes, uint64_t height)
{
    return round_up(pitch_bytes * height, CML_P2D_IMAGE_ALIGN);
}

/* The kernel of the element size: its own body (pitch2d_body.h) on the
 * model's arrays in and out. */
#define PITCH2D_ARGS(T)                                                                       \
    CML_MIRROR_CTX(t, e), CML_ARRAY(const T, 0), CML_ARRAY(T, 1), (unsigned)a->width,         \
        (unsigned)a->height, (size_t)a->pitch, (size_t)a->image_stride

void cml_pitch2d_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_pitch2d_args *a = vargs;
    switch (a->elem) {
    case 1: cml_pitch2d_u8_body(PITCH2D_ARGS(unsigned char)); break;
    case 2: cml_pitch2d_u16_body(PITCH2D_ARGS(unsigned short)); break;
    case 4: cml_pitch2d_f32_body(PITCH2D_ARGS(float)); break;
    default: cml_pitch2d_f64_body(PITCH2D_ARGS(double)); break;
    }
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Rows y in [0, height) whose start y * pitch_bytes is a multiple of 32:
 * those y that are multiples of 32 / gcd(pitch_bytes, 32). */
static uint64_t sector_aligned_rows(uint64_t pitch_bytes, uint64_t height)
{
    uint64_t period = CML_SECTOR_BYTES / gcd_u64(pitch_bytes, CML_SECTOR_BYTES);
    return cml_div_up(height, period);
}

/* Images in the batch: the parameter, or (0) enough that each of the two
 * arrays holds what cml_plan_elements gives one array of bytes. */
static uint64_t batch_images(const cml_plan *plan, int64_t param, uint64_t image_bytes)
{
    if (param > 0)
        return (uint64_t)param;
    uint64_t want = cml_div_up(cml_plan_elements(plan, 1, 2), image_bytes);
    return want < 1 ? 1 : want > 65535 ? 65535 : want;
}

/* ---- the shape of a point -------------------------------------------------- */

/* The run's state: the pitch the driver gave the last row length asked
 * about, and the buffers of one (type, layout, image size), kept across
 * the block shapes. */
typedef struct pitch2d_state {
    uint64_t asked_row_bytes, asked_pitch; /* asked_pitch 0: not asked yet */
    cml_dbuf in, out;
    cml_pitch2d_launch_args args;          /* the shape in and out were made for */
    int64_t layout;
    int ready;
} pitch2d_state;

/* Everything a point's layout implies, from its (resolved) settings. */
typedef struct pitch2d_geometry {
    unsigned elem, bx, by;
    uint64_t width, height, images;
    uint64_t row_bytes, pitch_bytes, stride_bytes, batch_bytes;
    double overhead;       /* % of memory over unpadded rows */
    const char *pitch_src; /* where the pitch came from, for the finding */
} pitch2d_geometry;

/* The pitch of a layout: by hand, or cudaMallocPitch's (asked of the
 * device when there is one, once per row length; else the assumed
 * alignment). */
static cml_status pitch_of(cml_sweep *ctx, int layout, uint64_t row_bytes, uint64_t *pitch_bytes,
                           const char **src, char *err, size_t errlen)
{
    const cml_plan *plan = ctx->plan;
    pitch2d_state *g = ctx->state;
    *src = "";
    if (layout != LAYOUT_PITCH || !plan->gpu) {
        *pitch_bytes = cml_pitch2d_pitch_bytes(layout, row_bytes, ASSUMED_PITCH_ALIGN);
        if (layout == LAYOUT_PITCH)
            *src = " (cudaMallocPitch: 512 B alignment assumed)";
        return CML_OK;
    }
    if (!g->asked_pitch || g->asked_row_bytes != row_bytes) {
        size_t p = 0;
        cml_status st = cml_gpu_pitch_for(plan->gpu, row_bytes, &p);
        if (st) {
            snprintf(err, errlen, "%s", cml_gpu_error(plan->gpu));
            return st;
        }
        g->asked_row_bytes = row_bytes;
        g->asked_pitch = p;
    }
    *pitch_bytes = g->asked_pitch;
    *src = " (cudaMallocPitch's pitch on this GPU)";
    return CML_OK;
}

/* The geometry of a point whose `images` is resolved. */
static cml_status geometry_of(cml_sweep *ctx, const pitch2d_settings *s, pitch2d_geometry *geo,
                              char *err, size_t errlen)
{
    geo->elem = type_bytes[s->type];
    geo->bx = block_dims[s->block][0];
    geo->by = block_dims[s->block][1];
    geo->width = (uint64_t)s->width;
    geo->height = (uint64_t)s->height;
    geo->images = (uint64_t)s->images;
    geo->row_bytes = geo->width * geo->elem;
    cml_status st = pitch_of(ctx, (int)s->layout, geo->row_bytes, &geo->pitch_bytes,
                             &geo->pitch_src, err, errlen);
    if (st)
        return st;
    geo->stride_bytes = cml_pitch2d_image_stride_bytes(geo->pitch_bytes, geo->height);
    geo->batch_bytes = geo->stride_bytes * geo->images;
    geo->overhead =
        100.0 * (double)(geo->pitch_bytes - geo->row_bytes) / (double)geo->row_bytes;
    return CML_OK;
}

/* The sentence: where rows start, what one warp covers, what the model
 * predicts for it, what the layout costs in memory and, measured, the
 * bandwidth. */
static void pitch2d_finding(cml_record *rec, const pitch2d_settings *s,
                            const pitch2d_geometry *geo)
{
    const unsigned bx = geo->bx, by = geo->by;
    uint64_t aligned = sector_aligned_rows(geo->pitch_bytes, geo->height);
    unsigned segs = bx >= CML_WARP_SIZE ? 1u : CML_WARP_SIZE / bx;
    unsigned seg_bytes = (bx >= CML_WARP_SIZE ? CML_WARP_SIZE : bx) * geo->elem;
    unsigned ideal = segs * (unsigned)cml_div_up(seg_bytes, CML_SECTOR_BYTES);
    double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    double feff = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD);
    char mem[32], batch[32], measured[128] = "";
    cml_fmt_bytes(mem, sizeof mem, (double)(geo->pitch_bytes * geo->height));
    cml_fmt_bytes(batch, sizeof batch, (double)geo->batch_bytes);
    if (rec->measured)
        snprintf(measured, sizeof measured,
                 " Measured %.0f GB/s over a batch of %llu images (%s per array).",
                 rec->bandwidth_gbs, (unsigned long long)geo->images, batch);
    cml_record_finding(rec,
                       "%s%s: rows %llu B apart start on a 32 B sector in %llu of %llu rows; a "
                       "%ux%u warp reads %u row segment%s of %u B (at best %u sector%s): %.2f "
                       "sectors per load request, %.1f%% used (Fermi 128 B lines %.1f%%); "
                       "%s per image, +%.1f%% vs unpadded.%s",
                       layout_names[s->layout], geo->pitch_src,
                       (unsigned long long)geo->pitch_bytes, (unsigned long long)aligned,
                       (unsigned long long)geo->height, bx, by, segs, segs == 1 ? "" : "s",
                       seg_bytes, ideal, ideal == 1 ? "" : "s", spr, eff, feff, mem,
                       geo->overhead, measured);
}

/* "width=777 height=555 type=u8 layout=unpadded block=32x8": the name the
 * variant has always had, whatever order the options are swept in. */
static void pitch2d_name(cml_record *rec, const pitch2d_settings *s)
{
    rec->variant[0] = '\0';
    cml_variant_add(rec->variant, sizeof rec->variant, "width", (long long)s->width);
    cml_variant_add(rec->variant, sizeof rec->variant, "height", (long long)s->height);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "type", type_names[s->type]);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "layout", layout_names[s->layout]);
    cml_variant_add_label(rec->variant, sizeof rec->variant, "block", block_names[s->block]);
}

/* One variant's record with the model's prediction. */
static cml_status pitch2d_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    pitch2d_settings *s = vs;
    s->images = (int64_t)batch_images(ctx->plan, s->images,
                                      (uint64_t)s->width * type_bytes[s->type] *
                                          (uint64_t)s->height);
    pitch2d_name(rec, s);
    pitch2d_geometry geo;
    char err[256] = "";
    if (geometry_of(ctx, s, &geo, err, sizeof err) != CML_OK) {
        /* The device would not say its pitch: this variant fails, the
         * others go on. */
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "asking cudaMallocPitch for the pitch: %s", err);
        return CML_OK;
    }
    /* The algorithm reads and writes each pixel once; padding bytes are
     * never touched, so they are not counted. */
    rec->bytes_read = geo.width * geo.height * geo.elem * geo.images;
    rec->bytes_written = geo.width * geo.height * geo.elem * geo.images;
    cml_record_add_extra(rec, "pitch_bytes", (double)geo.pitch_bytes, "B");
    cml_record_add_extra(rec, "alloc_bytes", (double)(geo.pitch_bytes * geo.height), "B");
    cml_record_add_extra(rec, "overhead", geo.overhead, "%");
    cml_record_add_extra(rec, "rows_sector_aligned",
                         (double)sector_aligned_rows(geo.pitch_bytes, geo.height), "rows");
    cml_record_add_extra(rec, "batch_bytes", (double)geo.batch_bytes, "B");

    /* The batch's grid, its blocks in kinds: every image starts on a
     * 512-byte boundary (the same traffic, see the contract); along a row
     * of blocks each moves by bx elements, down a column by `by` rows of
     * pitch bytes, so they repeat after cml_exp_line_period of each shift;
     * only the last column and row of blocks meet the guards. The caches
     * see the whole batch (L2 holds a small image whole). */
    cml_pitch2d_args args = {geo.width, geo.height, geo.pitch_bytes / geo.elem, geo.elem,
                             geo.stride_bytes / geo.elem};
    const cml_dim3 grid = {(uint32_t)cml_div_up(geo.width, geo.bx),
                           (uint32_t)cml_div_up(geo.height, geo.by), (uint32_t)geo.images};
    const cml_dim3 block = cml_dim2(geo.bx, geo.by);
    const cml_exp_axis axes[3] = {
        cml_exp_axis_ends(grid.x, 0, cml_exp_line_period((uint64_t)geo.bx * geo.elem),
                          geo.width % geo.bx ? 1u : 0u),
        cml_exp_axis_ends(grid.y, 0, cml_exp_line_period(geo.by * geo.pitch_bytes),
                          geo.height % geo.by ? 1u : 0u),
        cml_exp_axis_ends(grid.z, 0, 1, 0)};
    cml_status st = cml_exp_trace_axes(rec, grid, block, axes, cml_pitch2d_mirror, &args, NULL);
    if (st)
        return st;
    pitch2d_finding(rec, s, &geo);
    return CML_OK;
}

/* ---- GPU side ------------------------------------------------------------ */

enum { SEED_IN = 0x2D17C4ull };

static void pitch2d_release(cml_sweep *ctx)
{
    pitch2d_state *g = ctx->state;
    if (ctx->plan->gpu) {
        cml_gpu_free(ctx->plan->gpu, &g->in);
        cml_gpu_free(ctx->plan->gpu, &g->out);
    }
    g->ready = 0;
}

/* One buffer of the layout: pitched (rows of pitch_bytes, enough rows for
 * the batch; the driver must give the pitch it gave the probe) or plain. */
static cml_status alloc_layout(const cml_plan *plan, cml_record *rec, cml_dbuf *b, int layout,
                               const pitch2d_geometry *geo)
{
    cml_status st;
    if (layout == LAYOUT_PITCH) {
        size_t got = 0;
        st = cml_gpu_alloc_pitch(plan->gpu, b, geo->row_bytes,
                                 cml_div_up(geo->batch_bytes, geo->pitch_bytes), &got);
        if (st)
            return cml_exp_fail(plan, rec, st);
        if (got != geo->pitch_bytes) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "cudaMallocPitch gave a pitch of %zu B, the probe %llu B", got,
                            (unsigned long long)geo->pitch_bytes);
            return CML_ECUDA;
        }
        return CML_OK;
    }
    st = cml_gpu_alloc(plan->gpu, b, geo->batch_bytes);
    return st ? cml_exp_fail(plan, rec, st) : CML_OK;
}

/* The launch shape of a point (without the buffers and the block). */
static cml_pitch2d_launch_args launch_shape(const pitch2d_settings *s,
                                            const pitch2d_geometry *geo)
{
    cml_pitch2d_launch_args shape;
    memset(&shape, 0, sizeof shape);
    shape.width = (unsigned)geo->width;
    shape.height = (unsigned)geo->height;
    shape.images = (unsigned)geo->images;
    shape.pitch = geo->pitch_bytes / geo->elem;
    shape.image_stride = geo->stride_bytes / geo->elem;
    shape.type = (int)s->type;
    return shape;
}

/* Whether the buffers in the state were made for this layout and shape. */
static int prepared_for(const pitch2d_state *g, int64_t layout,
                        const cml_pitch2d_launch_args *shape)
{
    return g->ready && g->layout == layout && g->args.width == shape->width &&
           g->args.height == shape->height && g->args.images == shape->images &&
           g->args.pitch == shape->pitch && g->args.image_stride == shape->image_stride &&
           g->args.type == shape->type;
}

/* Allocate in and out for this (type, layout), poison both (padding stays
 * poisoned in both) and fill the image elements of in. */
static cml_status pitch2d_prepare(cml_sweep *ctx, cml_record *rec,
                                  const cml_pitch2d_launch_args *shape, int64_t layout,
                                  const pitch2d_geometry *geo)
{
    const cml_plan *plan = ctx->plan;
    pitch2d_state *g = ctx->state;
    pitch2d_release(ctx);
    cml_status st = alloc_layout(plan, rec, &g->in, (int)layout, geo);
    if (!st)
        st = alloc_layout(plan, rec, &g->out, (int)layout, geo);
    if (st)
        return st;
    g->args = *shape;
    g->args.in = g->in.ptr;
    g->args.out = g->out.ptr;
    g->args.alloc_bytes = g->out.bytes;
    g->layout = layout;
    st = cml_gpu_poison(plan->gpu, &g->in);
    if (!st)
        st = cml_pitch2d_fill(&g->args, SEED_IN);
    if (st)
        return cml_exp_fail(plan, rec, st);
    g->ready = 1;
    return CML_OK;
}

static cml_status pitch2d_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_pitch2d_check(ctx, SEED_IN, d_counters);
}

/* Measure one variant: the buffers of its (type, layout) (made at the
 * first block shape), poison out, time the kernel, check every byte of
 * out. A wrong output is a failed record and the sweep goes on; a CUDA
 * error ends it. */
static cml_status pitch2d_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const pitch2d_settings *s = vs;
    const cml_plan *plan = ctx->plan;
    pitch2d_state *g = ctx->state;
    pitch2d_geometry geo;
    char err[256] = "";
    cml_status st = geometry_of(ctx, s, &geo, err, sizeof err); /* the variant asked already */
    if (st)
        return st;
    const cml_pitch2d_launch_args shape = launch_shape(s, &geo);
    if (!prepared_for(g, s->layout, &shape) &&
        (st = pitch2d_prepare(ctx, rec, &shape, s->layout, &geo)) != CML_OK)
        return st;
    g->args.bx = geo.bx;
    g->args.by = geo.by;
    st = cml_gpu_poison(plan->gpu, &g->out);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_pitch2d_launch, &g->args, cml_pitch2d_kernel(g->args.type),
                      geo.bx * geo.by, 0);
    if (!st)
        st = cml_exp_verify(plan, rec, pitch2d_check_cb, &g->args);
    pitch2d_finding(rec, s, &geo);
    return st;
}

/* Bandwidth and the predicted efficiency, one bar per row layout. */
static const cml_chart_spec pitch2d_charts[] = {
    {.shape = CML_PLOT_BARS, .title = "Measured bandwidth by row layout",
     .ylabel = "bandwidth (GB/s)", .yfmt = CML_FMT_NUMBER, .series_param = "layout",
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, .what = "bandwidth", .unit = "GB/s",
     .describe = 1},
    {.shape = CML_PLOT_BARS, .title = "Predicted efficiency by row layout",
     .ylabel = "bytes used / bytes moved (%)", .yfmt = CML_FMT_PERCENT, .series_param = "layout",
     .m = {{"modern", CML_METRIC_EFF_MODERN, NULL, "under the modern rules", 0}},
     .what = "the predicted efficiency", .unit = "%", .describe = 1},
};

static const char *const pitch2d_validate_settings[] = {"", NULL};
/* Cache levels (docs/model-evidence.md): byte rows that share sectors
 * with the neighbouring block send fewer of them to L2 than L1 misses
 * (§4.7: 3.3-7.6% of the load sectors on the H100 and the H200), and hit
 * in L1 where the two blocks share an SM: inside the model's intervals
 * (docs/model.md §16.8, l1_pooled: any two blocks may share an SM, and the
 * L2 Request Coalescer merges another SM's read in flight). The dirty
 * residue at the end (§4.6) has no control and is not explained (§4.12). */
static const cml_validate_spec pitch2d_validate = {pitch2d_validate_settings, NULL, 0};

const cml_experiment cml_exp_pitch2d = {
    .key = "pitch2d",
    .number = 8,
    .title = "2D arrays and pitch",
    .summary = "out[y*pitch+x] = in[y*pitch+x] + 1 over 777x555 images: unpadded rows vs "
               "cudaMallocPitch vs rows padded to 32 / 128 bytes",
    .doc = "docs/experiments/pitch2d.md",
    .options = pitch2d_params,
    .noptions = CML_COUNT(pitch2d_params),
    .settings_size = sizeof(pitch2d_settings),
    .state_size = sizeof(pitch2d_state),
    .tour = "type=u8 layout=unpadded,pitch,pad128 block=32x8,16x16",
    .variant = pitch2d_variant,
    .measure = pitch2d_measure,
    .release = pitch2d_release,
    .charts = pitch2d_charts,
    .ncharts = CML_COUNT(pitch2d_charts),
    .validate = &pitch2d_validate,
};
