/* extern "C" launchers of constant.cu, callable from C, and the stencil
 * arithmetic that the kernels, the checker and the host tests share. */
#ifndef CML_CONSTANT_KERNELS_H
#define CML_CONSTANT_KERNELS_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel families, in the order of the experiment's `pattern` choices. */
typedef enum cml_const_pattern { CML_CONST_SERIAL = 0, CML_CONST_STENCIL } cml_const_pattern;

/* Stencil taps: 2 * radius + 1 with radius 4 (constant.h's
 * CML_STENCIL_RADIUS, repeated here so that this header stands alone). */
#define CML_CONST_TAPS 9u

/*
 * One output of the 9-point stencil from its nine inputs v[0..8] (in[i-4]
 * .. in[i+4]) and coefficients c[0..8], in the kernels' fixed order:
 * sum = 0, then sum += c[j] * v[j] for j = 0..8, every product and sum
 * rounded to float on its own. On the device __fmul_rn/__fadd_rn forbid
 * FMA contraction; on the host each operation is its own statement (ISO C
 * does not contract across statements, x86-64 evaluates float in float).
 * Kernel, device checker and host reference therefore agree bit for bit.
 */
CML_HD float cml_const_stencil_ref(const float *v, const float *c)
{
    float sum = 0.0f;
    for (unsigned j = 0; j < CML_CONST_TAPS; j++) {
#if defined(__CUDA_ARCH__)
        sum = __fadd_rn(sum, __fmul_rn(c[j], v[j]));
#else
        float p = c[j] * v[j];
        sum = sum + p;
#endif
    }
    return sum;
}

typedef struct cml_constant_launch_args {
    const float *in;     /* in[0]: the first input element                       */
    float *out;
    const float *coef;   /* stencil: the 9 coefficients in global memory           */
    uint64_t n;          /* threads (outputs); the stencil's is a multiple of block */
    uint64_t cap;        /* floats allocated in out: the checker checks all of them */
    uint64_t in_first;   /* in[i] = cml_random_f32(seed_in, in_first + i)          */
    int k, stride;       /* serial: lane l reads c_tab[(l % k) * stride]           */
    unsigned block;      /* threads per block, a multiple of 32                    */
    int pattern;         /* cml_const_pattern                                      */
    int coef_where;      /* stencil: cml_coef_where (constant, readonly, global)   */
    size_t smem;         /* stencil: dynamic shared memory to launch with (0: the
                            tile's own; more: cml_gpu_one_block_per_sm's figure) */
} cml_constant_launch_args;

/* Fill the __constant__ table (c_tab[q] = cml_random_f32(seed_tab, q), all
 * CML_CONST_TAB_FLOATS of it) and the coefficients (c_coef[j] and, when
 * d_coef is not NULL, d_coef[j] = cml_random_f32(seed_coef, j)) with
 * cudaMemcpyToSymbol / cudaMemcpy. Synchronous. */
CML_LAUNCHER cml_status cml_constant_upload(uint64_t seed_tab, uint64_t seed_coef, float *d_coef);
/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_constant_launch(void *args);
/* The __global__ function (NULL: bad choice), for the occupancy
 * calculator; *smem gets its dynamic shared memory at `block` threads. */
CML_LAUNCHER const void *cml_constant_kernel(int pattern, int coef_where, unsigned block,
                                             size_t *smem);
/* Count wrong floats of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong index into d_counters[1] (all ones from the
 * caller): outputs bit for bit, the poison past n. */
CML_LAUNCHER cml_status cml_constant_check(const cml_constant_launch_args *a, uint64_t seed_in,
                                           uint64_t seed_tab, uint64_t seed_coef,
                                           unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
