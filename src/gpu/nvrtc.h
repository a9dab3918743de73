/*
 * NVRTC, CUDA's run-time compiler, loaded at run time (dlopen) like CUPTI:
 * cumemlab starts where only the driver is installed, and says "NVRTC not
 * found" instead of failing to load. NVRTC needs no GPU, so the generated
 * kernels are compiled (and tested) on machines without one.
 *
 * Compiled kernels are cached per process, keyed by source and
 * architecture: the second compile of the same kernel costs a lookup.
 */
#ifndef CML_GPU_NVRTC_H
#define CML_GPU_NVRTC_H

#include <stddef.h>

#include "cumemlab/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_nvrtc cml_nvrtc;

/* Load libnvrtc (libnvrtc.so.13, then libnvrtc.so; CML_NVRTC_LIBRARY
 * overrides). CML_EUNSUPPORTED with a one-line reason when it is absent. */
cml_status cml_nvrtc_open(cml_nvrtc **out, char *why, size_t whylen);
void cml_nvrtc_close(cml_nvrtc *c);

/* NVRTC's version, e.g. 13000 for 13.0 (0 when unknown). */
int cml_nvrtc_version(const cml_nvrtc *c);

/* A compiled kernel: the cubin for one architecture, and what it cost. */
typedef struct cml_nvrtc_result {
    const void *cubin;  /* owned by the cache: valid until cml_nvrtc_close */
    size_t cubin_bytes;
    const char *log;    /* the compiler's messages ("" when none): warnings too */
    double compile_ms;  /* this call: 0 + a lookup when cached */
    int cached;         /* 1: found in the cache */
} cml_nvrtc_result;

/*
 * Compile `source` for sm_<cc_major><cc_minor> (a cubin, no PTX JIT at load
 * time). CML_EINVAL with the compiler's log (cut to errlen) when the source
 * does not compile; CML_ENOMEM.
 */
cml_status cml_nvrtc_compile(cml_nvrtc *c, const char *source, int cc_major, int cc_minor,
                             cml_nvrtc_result *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
