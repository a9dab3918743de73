/*
 * Experiment 3: array of structures vs structure of arrays (the textbook's
 * simpleMathAoS / simpleMathSoA), generalised to structs of F floats of which
 * the first T are updated, and a checker that recomputes every output float
 * from the counter-based random inputs.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * launch arguments and the launchers that aos_soa.c calls, the mirror's
 * arguments, the kernels' bodies, which the C compiler makes the model's
 * mirror (aos_soa.c), and under __CUDACC__ the kernels, their launchers and
 * checker, which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * One thread per element, i = blockIdx.x*blockDim.x + threadIdx.x; the T
 * touched fields are all loaded first (T independent loads in flight, sites
 * 0..T-1), then stored (sites 16..16+T-1). Loads go through __ldca: the ca
 * path, and an inline PTX load the compiler cannot merge into 8- or 16-byte
 * loads (a struct of floats is only 4-byte aligned, so the textbook's
 * compiler emits one 4-byte load per field too) nor turn into an .nc load.
 * Stores plain.
 */
#ifndef CML_AOS_SOA_BODY_H
#define CML_AOS_SOA_BODY_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

typedef struct cml_aos_soa_args {
    uint64_t n;        /* elements (structs) */
    uint64_t pitch;    /* SoA: floats between field arrays, cml_aos_soa_pitch(n) */
    unsigned fields;   /* F */
    unsigned touched;  /* T <= F */
    int soa;
} cml_aos_soa_args;

void cml_aos_soa_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* The model of one launch with `block` threads per block, as the experiment
 * computes it (cml_exp_trace_1d with its head/tail claim when it holds). */
cml_status cml_aos_soa_trace(cml_record *rec, const cml_aos_soa_args *a, unsigned block);

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

/* The first store's site: loads take sites 0..CML_AOS_MAX_FIELDS-1. */
#define CML_AOS_STORE_SITE0 CML_AOS_MAX_FIELDS

/* AoS: struct i is floats in[i*F .. i*F+F-1]; tmp = in[i] field by field,
 * out[i].f_j = tmp.f_j + 10*(j+1), for j < T. */
CML_BODY void cml_aos_body(CML_CTX, const float *in, float *out, uint64_t n, unsigned fields,
                           unsigned touched)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    const float *src = in + i * fields;
    float *dst = out + i * fields;
    float tmp[CML_AOS_MAX_FIELDS];
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            tmp[j] = CML_LD(j, CML_LD_CA, float, src, j);
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            CML_ST(CML_AOS_STORE_SITE0 + j, CML_ST_PLAIN, dst, j, tmp[j] + cml_aos_soa_addend(j));
}

/* SoA: field j of element i is in[j*pitch + i]; the same update on the
 * first T field arrays. */
CML_BODY void cml_soa_body(CML_CTX, const float *in, float *out, uint64_t n, uint64_t pitch,
                           unsigned touched)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    float tmp[CML_AOS_MAX_FIELDS];
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            tmp[j] = CML_LD(j, CML_LD_CA, float, in + (uint64_t)j * pitch, i);
    CML_UNROLL for (unsigned j = 0; j < CML_AOS_MAX_FIELDS; j++)
        if (j < touched)
            CML_ST(CML_AOS_STORE_SITE0 + j, CML_ST_PLAIN, out, (uint64_t)j * pitch + i,
                   tmp[j] + cml_aos_soa_addend(j));
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

__global__ void aos_update(const float *__restrict__ in, float *__restrict__ out, uint64_t n,
                           unsigned fields, unsigned touched)
{
    cml_aos_body(CML_KERNEL_CTX, in, out, n, fields, touched);
}

__global__ void soa_update(const float *__restrict__ in, float *__restrict__ out, uint64_t n,
                           uint64_t pitch, unsigned touched)
{
    cml_soa_body(CML_KERNEL_CTX, in, out, n, pitch, touched);
}

extern "C" const void *cml_aos_soa_kernel(int soa)
{
    return soa ? (const void *)soa_update : (const void *)aos_update;
}

extern "C" cml_status cml_aos_soa_launch(void *vctx)
{
    const cml_aos_soa_launch_args *a = (const cml_aos_soa_launch_args *)vctx;
    if (a->block == 0 || a->block > 1024 || a->fields == 0 || a->fields > CML_AOS_MAX_FIELDS ||
        a->touched == 0 || a->touched > a->fields)
        return CML_EINVAL;
    uint64_t grid = (a->n + a->block - 1) / a->block;
    if (grid == 0)
        return CML_OK; /* nothing to do: a zero grid is a launch error */
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    if (a->soa)
        soa_update<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n, a->pitch, a->touched);
    else
        aos_update<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n, a->fields, a->touched);
    CML_CU_LAUNCH();
    return CML_OK;
}

/*
 * Checker: every float of out[0, cap) is either a touched field, which must
 * be in + addend bit for bit, or must still hold the poison: untouched
 * fields, SoA padding and anything past the layout.
 */
__global__ void aos_soa_check(const float *__restrict__ out, uint64_t cap, uint64_t n,
                              uint64_t pitch, unsigned fields, unsigned touched, int soa,
                              uint64_t seed, unsigned long long *bad,
                              unsigned long long *first_bad)
{
    for (uint64_t q = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; q < cap;
         q += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t i, j;
        if (soa) {
            j = q / pitch;
            i = q % pitch;
        } else {
            i = q / fields;
            j = q % fields;
        }
        int written = i < n && j < touched;
        uint32_t got = __float_as_uint(out[q]);
        int ok;
        if (written)
            ok = got == __float_as_uint(cml_random_f32(seed, q) + cml_aos_soa_addend((unsigned)j));
        else
            ok = got == 0xFFFFFFFFu;
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)q);
        }
    }
}

extern "C" cml_status cml_aos_soa_check(const cml_aos_soa_launch_args *a, uint64_t seed,
                                        unsigned long long *d_counters)
{
    if (a->fields == 0 || (a->soa && a->pitch == 0))
        return CML_EINVAL;
    aos_soa_check<<<1024, 256>>>(a->out, a->cap, a->n, a->pitch, a->fields, a->touched, a->soa,
                                 seed, d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
