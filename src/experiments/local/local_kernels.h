/* extern "C" launchers of local.cu, callable from C, and the arithmetic the
 * spill kernels, the checker and the host tests share. */
#ifndef CML_LOCAL_KERNELS_H
#define CML_LOCAL_KERNELS_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values the spill kernels keep live at once (see local.c's contract): 48
 * fit in the 64 registers a 1024-thread block leaves each thread, so the
 * register twin does not spill, and do not fit in 32, so the capped kernel
 * must. */
#define CML_LOCAL_SPILL_VALUES 48u

/* The spill kernels' arithmetic, one rounding per operation (no FMA
 * contraction on either side): x_{j+1} = 0.75 x_j + 0.5 for j < 48 from
 * x_0 = v, then acc = 0.5 acc + x_j for j = 48 .. 1, from acc = 0. */
CML_HD float cml_local_spill_ref(float v)
{
    float r[CML_LOCAL_SPILL_VALUES], x = v, acc = 0.0f;
    for (unsigned j = 0; j < CML_LOCAL_SPILL_VALUES; j++) {
#if defined(__CUDA_ARCH__)
        x = __fadd_rn(__fmul_rn(x, 0.75f), 0.5f);
#else
        float p = x * 0.75f;
        x = p + 0.5f;
#endif
        r[j] = x;
    }
    for (unsigned j = CML_LOCAL_SPILL_VALUES; j-- > 0;) {
#if defined(__CUDA_ARCH__)
        acc = __fadd_rn(__fmul_rn(acc, 0.5f), r[j]);
#else
        float p = acc * 0.5f;
        acc = p + r[j];
#endif
    }
    return acc;
}

/* Kernels, in the order of the experiment's `pattern` choices. */
typedef enum cml_local_kernel_pattern {
    CML_LK_SAME_INDEX = 0, CML_LK_LANE_VARYING, CML_LK_STRUCT, CML_LK_SPILL, CML_LK_COUNT
} cml_local_kernel_pattern;

typedef struct cml_local_launch_args {
    const float *in;
    float *out;
    uint64_t n;        /* threads with work; out has cap floats */
    uint64_t cap;      /* floats allocated in out: the checker checks all of them */
    int K, s;          /* array length and run-time index (not used by spill) */
    unsigned block;    /* threads per block, a multiple of 32 */
    int pattern;       /* cml_local_kernel_pattern */
    int regs;          /* 1: the register-only twin */
} cml_local_launch_args;

/* Expected out[i] for input v (i % 32 is the lane: blocks are multiples of
 * 32): same-index v + 0 = v; lane-varying and struct v + (float)(lane % K)
 * (the j whose store lands on the index read); spill cml_local_spill_ref. */
CML_HD float cml_local_expected(int pattern, int K, uint64_t i, float v)
{
    switch (pattern) {
    case CML_LK_SAME_INDEX: return v + 0.0f;
    case CML_LK_SPILL: return cml_local_spill_ref(v);
    default: return v + (float)(int)((i % 32u) % (unsigned)K);
    }
}

/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_local_launch(void *args);
/* The __global__ function (NULL: bad pattern), for the occupancy
 * calculator and cudaFuncGetAttributes. */
CML_LAUNCHER const void *cml_local_kernel(int pattern, int regs);
/* Its name as written in local.cu (NULL: bad pattern), to find it in the
 * ptxas table. */
const char *cml_local_kernel_name(int pattern, int regs);
/* Count wrong floats of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong index into d_counters[1] (all ones from the
 * caller): out[i] for i < n must be cml_local_expected bit for bit (in
 * filled with cml_random_f32(seed, i)), the rest the poison. */
CML_LAUNCHER cml_status cml_local_check(const cml_local_launch_args *a, uint64_t seed,
                                        unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
