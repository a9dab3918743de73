/*
 * Experiment 8: 2D arrays and pitch. One kernel per element type (the
 * contract at the top of pitch2d.c), a fill kernel that writes each image
 * element at its place in whatever layout, and a checker that reads every
 * byte of the output buffer: image elements must be in + 1, padding and
 * gaps must still hold the poison.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that pitch2d.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (pitch2d.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * The body: out[y*pitch + x] = in[y*pitch + x] + 1 inside the image, for
 * image blockIdx.z of the batch (images image_stride elements apart). pitch
 * and image_stride are in elements. One plain load (site 0) and one plain
 * store (site 1) per thread inside the image, nothing outside. The input
 * values that the fill kernel, the checker and the host tests share are
 * here too.
 */
#ifndef CML_PITCH2D_BODY_H
#define CML_PITCH2D_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, in the order of the experiment's `type` choices. */
typedef enum cml_p2d_type {
    CML_P2D_U8 = 0, CML_P2D_U16, CML_P2D_F32, CML_P2D_F64, CML_P2D_TYPE_COUNT
} cml_p2d_type;

/* Every image of a batch starts this many bytes after a multiple of this
 * alignment (0): the start a separate cudaMalloc / cudaMallocPitch of each
 * image would give (they align to at least 256 bytes). Because it is a
 * multiple of 128, every image of a batch has the same sectors and lines. */
#define CML_P2D_IMAGE_ALIGN 512u

/*
 * Input element q of a batch (q = (z * height + y) * width + x, the logical
 * index: the same value whatever the layout), never zero, chosen so that
 * in + 1 never equals the poison (all bits set) of its type:
 *   u8  in [1, 253], u16 in [1, 65533], f32 and f64 in [1, 2).
 */
CML_HD unsigned char cml_p2d_in_u8(uint64_t seed, uint64_t q)
{
    return (unsigned char)(1u + cml_random_u32(seed, q) % 253u);
}
CML_HD unsigned short cml_p2d_in_u16(uint64_t seed, uint64_t q)
{
    return (unsigned short)(1u + cml_random_u32(seed, q) % 65533u);
}
CML_HD float cml_p2d_in_f32(uint64_t seed, uint64_t q)
{
    return cml_random_f32(seed, q);
}
/* 1 + m * 2^-52 with 52 random bits m: exact, in [1, 2). */
CML_HD double cml_p2d_in_f64(uint64_t seed, uint64_t q)
{
    uint64_t m = cml_mix64(seed ^ (q * 0xD1B54A32D192ED03ull)) >> 12;
    return 1.0 + (double)m * (1.0 / 4503599627370496.0);
}

/* The bits of out = in + 1 for element q, in the low bytes (the element's
 * little-endian image). */
CML_HD uint64_t cml_p2d_out_bits(int type, uint64_t seed, uint64_t q)
{
    switch (type) {
    case CML_P2D_U8: return (unsigned char)(cml_p2d_in_u8(seed, q) + 1);
    case CML_P2D_U16: return (unsigned short)(cml_p2d_in_u16(seed, q) + 1);
    case CML_P2D_F32: {
        union { float f; uint32_t u; } v;
        v.f = cml_p2d_in_f32(seed, q) + 1;
        return v.u;
    }
    default: {
        union { double d; uint64_t u; } v;
        v.d = cml_p2d_in_f64(seed, q) + 1;
        return v.u;
    }
    }
}

typedef struct cml_pitch2d_launch_args {
    const void *in;
    void *out;
    unsigned width, height;   /* image size in elements and rows             */
    unsigned images;          /* batch size: grid.z                          */
    uint64_t pitch;           /* row length in ELEMENTS (pitch bytes / elem) */
    uint64_t image_stride;    /* elements from one image's start to the next */
    uint64_t alloc_bytes;     /* bytes of each buffer: the checker reads all */
    unsigned bx, by;          /* block shape                                 */
    int type;                 /* cml_p2d_type                                */
} cml_pitch2d_launch_args;

/* Bytes per element of a type (0 for an unknown type). */
CML_HD unsigned cml_p2d_elem(int type)
{
    return type == CML_P2D_U8 ? 1u : type == CML_P2D_U16 ? 2u : type == CML_P2D_F32 ? 4u
         : type == CML_P2D_F64 ? 8u : 0u;
}

/* Launch pitch2d_<type> over grid (ceil(width/bx), ceil(height/by), images)
 * (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_pitch2d_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: bad type). */
CML_LAUNCHER const void *cml_pitch2d_kernel(int type);
/* Write input element q at its place in a->in (padding is left alone) with
 * the value cml_p2d_in_<type>(seed, q); waits for the kernel. */
CML_LAUNCHER cml_status cml_pitch2d_fill(const cml_pitch2d_launch_args *a, uint64_t seed);
/*
 * Check every element-sized slot of a->out[0, alloc_bytes): image elements
 * must hold cml_p2d_out_bits, every other slot (row padding, the gap after
 * each image, the tail of the allocation) the poison (all bits set). Counts
 * wrong slots into d_counters[0] (zeroed by the caller) and the lowest wrong
 * BYTE offset into d_counters[1] (all ones from the caller).
 */
CML_LAUNCHER cml_status cml_pitch2d_check(const cml_pitch2d_launch_args *a, uint64_t seed,
                                          unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

typedef struct cml_pitch2d_args {
    uint64_t width, height; /* image size in elements                        */
    uint64_t pitch;         /* row length in ELEMENTS (pitch bytes / elem)    */
    unsigned elem;          /* element size in bytes: 1, 2, 4 or 8            */
    uint64_t image_stride;  /* ELEMENTS from one image to the next (blockIdx.z) */
} cml_pitch2d_args;

/* One thread of pitch2d_<type> in image blockIdx.z of the batch (see the
 * contract at the top of pitch2d.c; every image of a batch has the same
 * traffic, so the per-instruction model traces image 0 alone). */
void cml_pitch2d_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* Row length in bytes of each layout ("unpadded", "pitch", "pad32",
 * "pad128") for rows of row_bytes; `pitch_align` is the cudaMallocPitch
 * alignment assumed or read from the device. */
uint64_t cml_pitch2d_pitch_bytes(int layout, uint64_t row_bytes, uint64_t pitch_align);

/* Bytes from one image of a batch to the next: pitch_bytes * height rounded
 * up to CML_P2D_IMAGE_ALIGN (512), where a separate allocation would start. */
uint64_t cml_pitch2d_image_stride_bytes(uint64_t pitch_bytes, uint64_t height);

#define CML_PITCH2D_BODY(NAME, T)                                                            \
    CML_BODY void NAME(CML_CTX, const T *in, T *out, unsigned width, unsigned height,         \
                       size_t pitch, size_t image_stride)                                    \
    {                                                                                        \
        unsigned x = CML_BID_X * CML_BDIM_X + CML_TID_X;                                     \
        unsigned y = CML_BID_Y * CML_BDIM_Y + CML_TID_Y;                                     \
        size_t base = (size_t)CML_BID_Z * image_stride;                                      \
        if (x < width && y < height) {                                                       \
            T v = CML_LD(0, CML_LD_PLAIN, T, in, base + (size_t)y * pitch + x);              \
            CML_ST(1, CML_ST_PLAIN, out, base + (size_t)y * pitch + x, (T)(v + 1));          \
        }                                                                                    \
    }

CML_PITCH2D_BODY(cml_pitch2d_u8_body, unsigned char)
CML_PITCH2D_BODY(cml_pitch2d_u16_body, unsigned short)
CML_PITCH2D_BODY(cml_pitch2d_f32_body, float)
CML_PITCH2D_BODY(cml_pitch2d_f64_body, double)

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

#define PITCH2D_KERNEL(NAME, T, BODY)                                                        \
    __global__ void NAME(const T *in, T *out, unsigned width, unsigned height, size_t pitch, \
                         size_t image_stride)                                                \
    {                                                                                        \
        BODY(CML_KERNEL_CTX, in, out, width, height, pitch, image_stride);                   \
    }

PITCH2D_KERNEL(pitch2d_u8, unsigned char, cml_pitch2d_u8_body)
PITCH2D_KERNEL(pitch2d_u16, unsigned short, cml_pitch2d_u16_body)
PITCH2D_KERNEL(pitch2d_f32, float, cml_pitch2d_f32_body)
PITCH2D_KERNEL(pitch2d_f64, double, cml_pitch2d_f64_body)

extern "C" const void *cml_pitch2d_kernel(int type)
{
    switch (type) {
    case CML_P2D_U8: return (const void *)pitch2d_u8;
    case CML_P2D_U16: return (const void *)pitch2d_u16;
    case CML_P2D_F32: return (const void *)pitch2d_f32;
    case CML_P2D_F64: return (const void *)pitch2d_f64;
    default: return NULL;
    }
}

/* The shape fits the buffers: rows inside the pitch, images inside the
 * stride, the whole batch inside the allocation. */
static int shape_ok(const cml_pitch2d_launch_args *a)
{
    const unsigned elem = cml_p2d_elem(a->type);
    if (!elem || a->width == 0 || a->height == 0 || a->images == 0 || a->images > 65535u ||
        a->pitch < a->width || a->image_stride < a->pitch * a->height)
        return 0;
    return (a->image_stride * (a->images - 1u) + a->pitch * (a->height - 1u) + a->width) * elem <=
           a->alloc_bytes;
}

extern "C" cml_status cml_pitch2d_launch(void *vctx)
{
    const cml_pitch2d_launch_args *a = (const cml_pitch2d_launch_args *)vctx;
    if (!shape_ok(a) || a->bx == 0 || a->by == 0 || a->bx * a->by > 1024u)
        return CML_EINVAL;
    const uint64_t gy = ((uint64_t)a->height + a->by - 1) / a->by;
    if (gy > 65535u)
        return CML_EINVAL;
    dim3 grid((a->width + a->bx - 1) / a->bx, (unsigned)gy, a->images), block(a->bx, a->by);
    const size_t p = (size_t)a->pitch, s = (size_t)a->image_stride;
    switch (a->type) {
    case CML_P2D_U8:
        pitch2d_u8<<<grid, block>>>((const unsigned char *)a->in, (unsigned char *)a->out,
                                    a->width, a->height, p, s);
        break;
    case CML_P2D_U16:
        pitch2d_u16<<<grid, block>>>((const unsigned short *)a->in, (unsigned short *)a->out,
                                     a->width, a->height, p, s);
        break;
    case CML_P2D_F32:
        pitch2d_f32<<<grid, block>>>((const float *)a->in, (float *)a->out, a->width, a->height,
                                     p, s);
        break;
    default:
        pitch2d_f64<<<grid, block>>>((const double *)a->in, (double *)a->out, a->width,
                                     a->height, p, s);
        break;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/* ---- fill ----------------------------------------------------------------- */

/* Input element q (logical index) at its place: x, y, z from q, then the
 * layout's offset. Grid-stride over width * height * images elements. */
__global__ void pitch2d_fill(void *in, int type, unsigned width, unsigned height, uint64_t count,
                             uint64_t pitch, uint64_t image_stride, uint64_t seed)
{
    const uint64_t wh = (uint64_t)width * height;
    for (uint64_t q = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; q < count;
         q += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t z = q / wh, r = q % wh;
        const uint64_t at = z * image_stride + (r / width) * pitch + r % width;
        switch (type) {
        case CML_P2D_U8: ((unsigned char *)in)[at] = cml_p2d_in_u8(seed, q); break;
        case CML_P2D_U16: ((unsigned short *)in)[at] = cml_p2d_in_u16(seed, q); break;
        case CML_P2D_F32: ((float *)in)[at] = cml_p2d_in_f32(seed, q); break;
        default: ((double *)in)[at] = cml_p2d_in_f64(seed, q); break;
        }
    }
}

extern "C" cml_status cml_pitch2d_fill(const cml_pitch2d_launch_args *a, uint64_t seed)
{
    if (!shape_ok(a))
        return CML_EINVAL;
    const uint64_t count = (uint64_t)a->width * a->height * a->images;
    pitch2d_fill<<<1024, 256>>>((void *)a->in, a->type, a->width, a->height, count, a->pitch,
                                a->image_stride, seed);
    CML_CU_LAUNCH();
    /* Not timed: wait, so that a fault here is not blamed on the next kernel. */
    CML_CU(cudaDeviceSynchronize());
    return CML_OK;
}

/* ---- checker -------------------------------------------------------------- */

/* Slot j (element-sized) of out: where it falls in the batch decides what it
 * must hold. Reads the slot's bits as an unsigned integer of the element's
 * width. */
__global__ void pitch2d_check(const void *out, int type, unsigned width, unsigned height,
                              unsigned images, uint64_t pitch, uint64_t image_stride,
                              uint64_t slots, uint64_t seed, unsigned long long *bad,
                              unsigned long long *first_bad)
{
    const unsigned elem = cml_p2d_elem(type);
    const uint64_t poison = elem == 8 ? ~0ull : (1ull << (8 * elem)) - 1;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < slots;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t got;
        switch (elem) {
        case 1: got = ((const unsigned char *)out)[j]; break;
        case 2: got = ((const unsigned short *)out)[j]; break;
        case 4: got = ((const uint32_t *)out)[j]; break;
        default: got = ((const unsigned long long *)out)[j]; break;
        }
        const uint64_t z = j / image_stride, r = j % image_stride;
        const uint64_t y = r / pitch, x = r % pitch;
        const int inside = z < images && y < height && x < width;
        const uint64_t want =
            inside ? cml_p2d_out_bits(type, seed, (z * height + y) * width + x) : poison;
        if (got != want) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)(j * elem));
        }
    }
}

extern "C" cml_status cml_pitch2d_check(const cml_pitch2d_launch_args *a, uint64_t seed,
                                        unsigned long long *d_counters)
{
    if (!shape_ok(a))
        return CML_EINVAL;
    const unsigned elem = cml_p2d_elem(a->type);
    pitch2d_check<<<1024, 256>>>(a->out, a->type, a->width, a->height, a->images, a->pitch,
                                 a->image_stride, a->alloc_bytes / elem, seed, d_counters,
                                 d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
