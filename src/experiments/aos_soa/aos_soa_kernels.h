/* extern "C" launchers of aos_soa.cu, callable from C, and the update both
 * the kernels and every checker apply. */
#ifndef CML_AOS_SOA_KERNELS_H
#define CML_AOS_SOA_KERNELS_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest struct the kernels handle: their per-thread copy of the touched
 * fields is an unrolled register array of this many floats. */
#define CML_AOS_MAX_FIELDS 16u

/* Field j is updated by adding 10 * (j + 1) (the textbook's x += 10,
 * y += 20, continued): a small integer, so the float sum is one rounding
 * that host, kernel and checker all reproduce bit for bit. */
CML_HD float cml_aos_soa_addend(unsigned j)
{
    return (float)(10u * (j + 1u));
}

/* SoA: floats from one field array to the next, n rounded up to 64 floats
 * (256 bytes, cudaMalloc's alignment), so every field array starts where a
 * separately allocated array would: on a line boundary. */
CML_HD uint64_t cml_aos_soa_pitch(uint64_t n)
{
    return (n + 63u) / 64u * 64u;
}

typedef struct cml_aos_soa_launch_args {
    const float *in;   /* AoS: n structs of `fields` floats; SoA: `fields` arrays of `pitch` */
    float *out;        /* same layout as in */
    uint64_t n;        /* elements (structs) */
    uint64_t pitch;    /* SoA only: cml_aos_soa_pitch(n) */
    uint64_t cap;      /* floats allocated in out: the checker checks all of them */
    unsigned fields;   /* F, 1..CML_AOS_MAX_FIELDS */
    unsigned touched;  /* T, 1..F: fields read, updated and written */
    unsigned block;
    int soa;           /* 0: array of structures, 1: structure of arrays */
} cml_aos_soa_launch_args;

/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for fields/touched/block out of range. */
CML_LAUNCHER cml_status cml_aos_soa_launch(void *args);
/* The __global__ function, for the occupancy calculator. */
CML_LAUNCHER const void *cml_aos_soa_kernel(int soa);
/* Count wrong floats of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong float index into d_counters[1] (all ones from
 * the caller): touched fields must hold in + addend, every other float the
 * poison 0xFFFFFFFF. `in` was filled with cml_random_f32(seed, q) at flat
 * float index q. */
CML_LAUNCHER cml_status cml_aos_soa_check(const cml_aos_soa_launch_args *a, uint64_t seed,
                                          unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
