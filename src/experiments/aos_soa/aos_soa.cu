/*
 * Experiment 3: array of structures vs structure of arrays (the textbook's
 * simpleMathAoS / simpleMathSoA), generalised to structs of F floats of which
 * the first T are updated, and a checker that recomputes every output float
 * from the counter-based random inputs.
 *
 * The kernels' bodies are in aos_soa_body.h, which the model's mirror
 * (aos_soa.c) compiles too.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/aos_soa/aos_soa_body.h"
#include "experiments/aos_soa/aos_soa_kernels.h"
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
