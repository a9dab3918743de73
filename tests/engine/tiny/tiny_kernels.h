/* extern "C" launcher of tiny.cu (the engine test's own experiment). */
#ifndef CML_TEST_TINY_KERNELS_H
#define CML_TEST_TINY_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tiny_launch_args {
    const float *in;
    float *out;
    uint64_t n, stride;
    float k;          /* out[i] = k * in[i*stride] */
    unsigned block;
} tiny_launch_args;

CML_LAUNCHER cml_status tiny_launch(void *args);
CML_LAUNCHER const void *tiny_kernel(void);

#ifdef __cplusplus
}
#endif
#endif
