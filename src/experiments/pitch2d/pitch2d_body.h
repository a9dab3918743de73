/*
 * Experiment 8: the body of the pitched 2D kernels, written once for the
 * kernels (pitch2d.cu, one per element type) and the model's mirror
 * (pitch2d.c): gpu/kernel_body.h.
 *
 * out[y*pitch + x] = in[y*pitch + x] + 1 inside the image, for image
 * blockIdx.z of the batch (images image_stride elements apart). pitch and
 * image_stride are in elements. One plain load (site 0) and one plain store
 * (site 1) per thread inside the image, nothing outside.
 */
#ifndef CML_PITCH2D_BODY_H
#define CML_PITCH2D_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/kernel_body.h"

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

#endif
