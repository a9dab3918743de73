/*
 * Kernels of bench/gpu/shared_contention.c: a 32x32-tile transpose whose
 * shared-memory pattern is fixed (one wavefront per warp instruction with
 * the padded tile) while the global traffic around it and the number of
 * blocks that share an SM change.
 */
#ifndef CML_SHARED_CONTENTION_KERNELS_H
#define CML_SHARED_CONTENTION_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the tile's values come from. */
enum { CML_SC_LOAD_CA = 0, CML_SC_LOAD_CG, CML_SC_COMPUTED };

typedef struct cml_sc_launch_args {
    const float *in;   /* n x n */
    float *out;        /* n x n: out[x][y] = in[y][x] */
    unsigned n;        /* a multiple of 32 */
    unsigned pitch;    /* tile row length in words: 33 (padded) or 32 */
    int source;        /* CML_SC_LOAD_CA / _LOAD_CG / _COMPUTED (x ^ y) */
    int store;         /* 1: write out; 0: keep the value (no global store) */
    size_t smem_extra; /* dynamic shared memory that only limits blocks per SM */
} cml_sc_launch_args;

cml_status cml_sc_launch(void *args);
/* Allow up to `bytes` of dynamic shared memory per block. */
cml_status cml_sc_allow_smem(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
