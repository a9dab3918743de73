/* Experiment 8 (2D arrays and pitch): the kernel mirror and its arguments,
 * shared with the GPU run (pitch2d.cu through pitch2d_kernels.h). */
#ifndef CML_EXP_PITCH2D_H
#define CML_EXP_PITCH2D_H

#include "lab/experiment.h"

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

extern const cml_experiment cml_exp_pitch2d;

#endif
