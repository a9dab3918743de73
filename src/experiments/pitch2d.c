/*
 * Experiment 8: 2D arrays and pitch.
 *
 * CONTRACT: the kernels the mirror below stands for (pitch2d.cu, a later
 * issue, must be exactly this; one kernel per element type T in
 * {unsigned char, unsigned short, float, double}, named pitch2d_u8, _u16,
 * _f32, _f64):
 *
 *   __global__ void pitch2d_u8(const unsigned char *in, unsigned char *out,
 *                              unsigned width, unsigned height, size_t pitch)
 *   {   // pitch in ELEMENTS: pitch_bytes / sizeof(T)
 *       unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
 *       unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
 *       if (x < width && y < height)
 *           out[(size_t)y * pitch + x] = in[(size_t)y * pitch + x] + 1;
 *   }
 *   // launch: block (bx, by) from --block, grid (ceil(width/bx), ceil(height/by))
 *
 * `in` and `out` are two separate allocations with the same layout:
 *   unpadded: cudaMalloc(width*sizeof(T)*height), pitch_bytes = width*sizeof(T)
 *   pitch:    cudaMallocPitch(&p, &pitch_bytes, width*sizeof(T), height)
 *   pad32:    cudaMalloc, pitch_bytes = width*sizeof(T) rounded up to 32
 *   pad128:   cudaMalloc, pitch_bytes = width*sizeof(T) rounded up to 128
 * Per thread: one load of in[] (site 0), one store of out[] (site 1), both
 * default cache operators. The mirror emits exactly these two accesses for
 * the threads inside the image, and nothing for the others (the `if`).
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

#include "experiments/common.h"
#include "experiments/pitch2d.h"

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

static const cml_param_def pitch2d_params[] = {
    {"width", "image width in elements", 1, 65536, "777", NULL, 0},
    {"height", "image height in rows (grid.y must stay <= 65535)", 1, 65535, "555", NULL, 0},
    {"type", "element type: u8 (1 byte), u16, f32 (4 bytes), f64", 0, 0, "u8,f32", type_names, 0},
    {"layout",
     "row layout: unpadded, pitch (cudaMallocPitch), pad32 / pad128 (rows rounded up by hand)",
     0, 0, "unpadded,pitch,pad32,pad128", layout_names, 0},
    {"block", "block shape WxH (threads in x and in y)", 0, 0, "32x8,16x16", block_names, 0},
};

/*
 * cudaMallocPitch's row alignment. cml_device_facts has no field for it
 * (cudaDeviceProp has texturePitchAlignment, but cudaMallocPitch may align
 * more than that), so the model assumes 512 bytes, what cudaMallocPitch has
 * returned on the GPUs the textbooks describe; the GPU run records the real
 * pitch it got. Kept as a function so a device field can be used once one
 * exists.
 */
static uint64_t pitch_alignment(const cml_plan *plan, int *assumed)
{
    (void)plan;
    *assumed = 1;
    return 512;
}

static uint64_t round_up(uint64_t v, uint64_t m)
{
    return cml_div_up(v, m) * m;
}

uint64_t cml_pitch2d_pitch_bytes(int layout, uint64_t row_bytes, uint64_t pitch_align)
{
    switch (layout) {
    case LAYOUT_PITCH: return round_up(row_bytes, pitch_align ? pitch_align : 512);
    case LAYOUT_PAD32: return round_up(row_bytes, 32);
    case LAYOUT_PAD128: return round_up(row_bytes, 128);
    case LAYOUT_UNPADDED:
    default: return row_bytes;
    }
}

void cml_pitch2d_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_pitch2d_args *a = vargs;
    const uint64_t in = cml_array_base(0), out = cml_array_base(1);
    uint64_t x = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    uint64_t y = (uint64_t)t->bid.y * t->bdim.y + t->tid.y;
    if (x >= a->width || y >= a->height)
        return;
    uint64_t off = (y * a->pitch + x) * a->elem;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, a->elem, in + off);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, a->elem, out + off);
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

/* The sentence: where rows start, what one warp covers, what the model
 * predicts for it, and what the layout costs in memory. */
static void pitch2d_finding(cml_record *rec, const char *layout, int assumed, uint64_t pitch_bytes,
                            uint64_t height, unsigned elem, unsigned bx, unsigned by,
                            double overhead)
{
    uint64_t aligned = sector_aligned_rows(pitch_bytes, height);
    unsigned segs = bx >= CML_WARP_SIZE ? 1u : CML_WARP_SIZE / bx;
    unsigned seg_bytes = (bx >= CML_WARP_SIZE ? CML_WARP_SIZE : bx) * elem;
    unsigned ideal = segs * (unsigned)cml_div_up(seg_bytes, CML_SECTOR_BYTES);
    double spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_LD);
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD);
    double feff = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD);
    char mem[32];
    cml_fmt_bytes(mem, sizeof mem, (double)(pitch_bytes * height));
    cml_record_finding(rec,
                       "%s%s: rows %llu B apart start on a 32 B sector in %llu of %llu rows; a "
                       "%ux%u warp reads %u row segment%s of %u B (at best %u sector%s): %.2f "
                       "sectors per load request, %.1f%% used (Fermi 128 B lines %.1f%%); "
                       "%s per array, +%.1f%% vs unpadded.",
                       layout, assumed ? " (cudaMallocPitch: 512 B alignment assumed)" : "",
                       (unsigned long long)pitch_bytes, (unsigned long long)aligned,
                       (unsigned long long)height, bx, by, segs, segs == 1 ? "" : "s", seg_bytes,
                       ideal, ideal == 1 ? "" : "s", spr, eff, feff, mem, overhead);
}

static cml_status pitch2d_model(const cml_plan *plan, const cml_param_values *pv,
                                cml_results *out)
{
    const cml_param_list *types = cml_param_get(pv, "type");
    const cml_param_list *layouts = cml_param_get(pv, "layout");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    const uint64_t width = (uint64_t)cml_param_first(pv, "width");
    const uint64_t height = (uint64_t)cml_param_first(pv, "height");
    int assumed = 0;
    const uint64_t align = pitch_alignment(plan, &assumed);

    for (size_t ti = 0; ti < types->count; ti++)
        for (size_t bi = 0; bi < blocks->count; bi++)
            for (size_t li = 0; li < layouts->count; li++) {
                const int64_t type = types->v[ti], layout = layouts->v[li];
                const int64_t block = blocks->v[bi];
                const unsigned elem = type_bytes[type];
                const unsigned bx = block_dims[block][0], by = block_dims[block][1];
                const uint64_t row_bytes = width * elem;
                const uint64_t pitch_bytes =
                    cml_pitch2d_pitch_bytes((int)layout, row_bytes, align);
                const uint64_t alloc = pitch_bytes * height;
                const double overhead =
                    100.0 * (double)(pitch_bytes - row_bytes) / (double)row_bytes;

                char variant[96] = "";
                cml_variant_add(variant, sizeof variant, "width", (long long)width);
                cml_variant_add(variant, sizeof variant, "height", (long long)height);
                cml_variant_add_label(variant, sizeof variant, "type", type_names[type]);
                cml_variant_add_label(variant, sizeof variant, "layout", layout_names[layout]);
                cml_variant_add_label(variant, sizeof variant, "block", block_names[block]);
                cml_record *rec;
                CML_EXP_ADD(rec, out, "pitch2d", variant);
                cml_record_add_param(rec, "width", (int64_t)width, NULL);
                cml_record_add_param(rec, "height", (int64_t)height, NULL);
                cml_record_add_param(rec, "type", type, type_names[type]);
                cml_record_add_param(rec, "layout", layout, layout_names[layout]);
                cml_record_add_param(rec, "block", block, block_names[block]);
                /* The algorithm reads and writes each pixel once; padding
                 * bytes are never touched, so they are not counted. */
                rec->bytes_read = width * height * elem;
                rec->bytes_written = width * height * elem;
                cml_record_add_extra(rec, "pitch_bytes", (double)pitch_bytes, "B");
                cml_record_add_extra(rec, "alloc_bytes", (double)alloc, "B");
                cml_record_add_extra(rec, "overhead", overhead, "%");
                cml_record_add_extra(rec, "rows_sector_aligned",
                                     (double)sector_aligned_rows(pitch_bytes, height), "rows");

                cml_pitch2d_args args = {width, height, pitch_bytes / elem, elem};
                cml_status st = cml_exp_trace(rec, cml_dim2(cml_div_up(width, bx),
                                                            cml_div_up(height, by)),
                                              cml_dim2(bx, by), cml_pitch2d_mirror, &args);
                if (st)
                    return st;
                pitch2d_finding(rec, layout_names[layout],
                                layout == LAYOUT_PITCH ? assumed : 0, pitch_bytes, height, elem,
                                bx, by, overhead);
            }
    return CML_OK;
}

const cml_experiment cml_exp_pitch2d = {
    "pitch2d", 8, "2D arrays and pitch",
    "out[y*pitch+x] = in[y*pitch+x] + 1 over a 777x555 image: unpadded rows vs "
    "cudaMallocPitch vs rows padded to 32 / 128 bytes",
    pitch2d_params, sizeof pitch2d_params / sizeof pitch2d_params[0],
    pitch2d_model, NULL, "type=u8 layout=unpadded,pitch,pad128 block=32x8,16x16",
};
