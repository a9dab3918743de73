/*
 * Experiment 8: 2D arrays and pitch. One kernel per element type (the
 * contract at the top of pitch2d.c), a fill kernel that writes each image
 * element at its place in whatever layout, and a checker that reads every
 * byte of the output buffer: image elements must be in + 1, padding and
 * gaps must still hold the poison.
 *
 * The kernels' body is in pitch2d_body.h, which the model's mirror
 * (pitch2d.c) compiles too.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/pitch2d/pitch2d_body.h"
#include "experiments/pitch2d/pitch2d_kernels.h"
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
