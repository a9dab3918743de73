/*
 * extern "C" launchers of cluster_smem.cu, callable from C, and the shapes
 * the kernels, the model mirror (cluster_smem.c) and the tests share.
 *
 * Every kernel runs blocks of CML_CL_BLOCK threads in thread-block clusters
 * of `cluster` blocks along x (block rank r = blockIdx.x % cluster). Each
 * block fills its shared memory (`words` 32-bit words) and writes the same
 * words to its slice of `copy` in global memory, the cluster synchronises,
 * and each block reads its neighbour's (rank r+1, wrapping) words, either
 * through distributed shared memory or from the neighbour's global slice
 * (ld.global.cg: from L2, which holds it, just written). A second cluster
 * barrier keeps every block's shared memory alive until its reader is done.
 */
#ifndef CML_CLUSTER_SMEM_KERNELS_H
#define CML_CLUSTER_SMEM_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_cl_source {
    CML_CL_DSMEM = 0, /* mapa + ld.shared::cluster into the neighbour's shared memory */
    CML_CL_GLOBAL,    /* ld.global.cg of the neighbour's global slice (L2)            */
    CML_CL_SOURCE_COUNT
} cml_cl_source;

typedef enum cml_cl_test {
    CML_CL_BANDWIDTH = 0, /* every thread: 16-byte loads of all the neighbour's words,
                             `passes` times, summed into a checksum             */
    CML_CL_LATENCY,       /* thread 0: a chase of `steps` dependent 4-byte loads  */
    CML_CL_TEST_COUNT
} cml_cl_test;

#define CML_CL_BLOCK 256u
#define CML_CL_MAX_CLUSTER 16u /* 8 is portable; 16 needs the non-portable attribute */
/* The chase's entries: the next word's index in the low 16 bits, the block
 * that owns the word above them, so the last entry read names whose shared
 * memory the chase walked. */
#define CML_CL_TAG_SHIFT 16u

/* Word i of block b's data in the bandwidth test: never all zeros, and the
 * host recomputes it (core/random.h). */
#define CML_CL_WORD(seed, b, words, i) cml_random_u32((seed), (uint64_t)(b) * (words) + (i))

typedef struct cml_cluster_launch_args {
    uint32_t *copy;          /* grid * words: each block's words in global memory */
    unsigned long long *out; /* bandwidth: one checksum per block; latency: per block
                                the last entry read and the chase's clock64 cycles */
    const uint32_t *chain;   /* latency: `words` entries, one cycle (host-made) */
    uint64_t seed;           /* bandwidth: the words' seed */
    unsigned grid, cluster;  /* blocks (a multiple of cluster), blocks per cluster */
    unsigned words;          /* per block: a multiple of 4 * CML_CL_BLOCK, <= 65536 */
    unsigned passes, steps;  /* bandwidth: reads of the neighbour's words; latency: loads */
    int test, source;        /* cml_cl_test, cml_cl_source */
} cml_cluster_launch_args;

/* The __global__ function of a test and source; NULL for none. */
CML_LAUNCHER const void *cml_cluster_kernel(int test, int source);
/* What the device allows for a's kernel, block and shared memory: the
 * largest cluster (*max_cluster, with non-portable sizes allowed, an
 * attribute this sets for good, like the dynamic shared memory limit) and
 * how many clusters of a->cluster blocks can be resident at once
 * (*active: 0 when the size is above the largest, minus the CUDA error when
 * cudaOccupancyMaxActiveClusters refuses the configuration). Errors of the
 * other calls name the call. */
CML_LAUNCHER cml_status cml_cluster_limits(const cml_cluster_launch_args *a, int *max_cluster,
                                           int *active);
/* Launch (cudaLaunchKernelEx with the cluster dimension attribute,
 * asynchronously); the launch status is checked. CML_EINVAL for arguments
 * outside the shapes above. */
CML_LAUNCHER cml_status cml_cluster_launch(void *args);

#ifdef __cplusplus
}
#endif
#endif
