/* extern "C" launchers of pitch2d.cu, callable from C, and the input values
 * that the fill kernel, the checker and the host tests share. */
#ifndef CML_PITCH2D_KERNELS_H
#define CML_PITCH2D_KERNELS_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

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
#endif
