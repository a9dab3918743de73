/*
 * Experiment 7: the read-only cache. Three kernels (streaming copy, a 1-D
 * 9-point stencil read straight from global memory, a gather from a small
 * hot table), each compiled once per load path (ld.global.ca via __ldca,
 * ld.global.cg via __ldcg, ld.global.nc via __ldg) so one binary holds all
 * variants, and a checker that recomputes every output float.
 *
 * The kernels' bodies are in readonly_body.h, which the model's mirror
 * (readonly.c) compiles too. Stores are plain in every variant: only the
 * load path changes.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/readonly/readonly_body.h"
#include "experiments/readonly/readonly_kernels.h"
#include "gpu/gpu_internal.h"

#define COPY_KERNEL(NAME, LD)                                                                 \
    __global__ void NAME(const float *__restrict__ A, float *__restrict__ C, uint64_t n)     \
    {                                                                                         \
        cml_ro_copy_body(CML_KERNEL_CTX, A, C, n, LD);                                        \
    }

#define STENCIL_KERNEL(NAME, LD)                                                              \
    __global__ void NAME(const float *__restrict__ A, float *__restrict__ C, uint64_t outs)  \
    {                                                                                         \
        cml_ro_stencil_body(CML_KERNEL_CTX, A, C, outs, LD);                                  \
    }

#define HOT_KERNEL(NAME, LD)                                                                  \
    __global__ void NAME(const float *__restrict__ T, float *__restrict__ C, uint64_t n,     \
                         uint64_t m)                                                          \
    {                                                                                         \
        cml_ro_hot_body(CML_KERNEL_CTX, T, C, n, m, LD);                                      \
    }

COPY_KERNEL(ro_copy_ca, CML_LD_CA)
COPY_KERNEL(ro_copy_cg, CML_LD_CG)
COPY_KERNEL(ro_copy_nc, CML_LD_NC)
STENCIL_KERNEL(ro_stencil_ca, CML_LD_CA)
STENCIL_KERNEL(ro_stencil_cg, CML_LD_CG)
STENCIL_KERNEL(ro_stencil_nc, CML_LD_NC)
HOT_KERNEL(ro_hot_ca, CML_LD_CA)
HOT_KERNEL(ro_hot_cg, CML_LD_CG)
HOT_KERNEL(ro_hot_nc, CML_LD_NC)

typedef void (*ro_stream_kernel)(const float *, float *, uint64_t);
typedef void (*ro_hot_kernel)(const float *, float *, uint64_t, uint64_t);

static const ro_stream_kernel copies[] = {ro_copy_ca, ro_copy_cg, ro_copy_nc};
static const ro_stream_kernel stencils[] = {ro_stencil_ca, ro_stencil_cg, ro_stencil_nc};
static const ro_hot_kernel hots[] = {ro_hot_ca, ro_hot_cg, ro_hot_nc};

static int valid(int pattern, int path)
{
    return pattern >= 0 && pattern < CML_RO_PATTERN_COUNT && path >= 0 && path < CML_RO_PATH_COUNT;
}

extern "C" const void *cml_readonly_kernel(int pattern, int path)
{
    if (!valid(pattern, path))
        return NULL;
    switch (pattern) {
    case CML_RO_COPY: return (const void *)copies[path];
    case CML_RO_STENCIL: return (const void *)stencils[path];
    default: return (const void *)hots[path];
    }
}

/* m: a power of two, at least one 128-byte line. */
static int table_ok(uint64_t m)
{
    return m >= 32 && (m & (m - 1)) == 0;
}

extern "C" cml_status cml_readonly_launch(void *vctx)
{
    const cml_readonly_launch_args *a = (const cml_readonly_launch_args *)vctx;
    if (!valid(a->pattern, a->path) || a->block == 0 || a->block > 1024)
        return CML_EINVAL;
    if (a->pattern == CML_RO_HOT_GATHER && !table_ok(a->m))
        return CML_EINVAL;
    uint64_t threads = cml_readonly_threads(a->pattern, a->n);
    uint64_t grid = (threads + a->block - 1) / a->block;
    if (grid == 0)
        return CML_OK; /* nothing to do: a zero grid is a launch error */
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    const unsigned g = (unsigned)grid, b = a->block;
    switch (a->pattern) {
    case CML_RO_COPY: copies[a->path]<<<g, b>>>(a->A, a->C, threads); break;
    case CML_RO_STENCIL: stencils[a->path]<<<g, b>>>(a->A, a->C, threads); break;
    default: hots[a->path]<<<g, b>>>(a->T, a->C, threads, a->m); break;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}

/* Checker over C[0, cap): outputs bit for bit, the poison everywhere else
 * (the stencil's last 8 floats, anything past n). */
__global__ void readonly_check(const float *__restrict__ C, uint64_t cap, uint64_t outs,
                               uint64_t m, int pattern, uint64_t seed_a, uint64_t seed_t,
                               unsigned long long *bad, unsigned long long *first_bad)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t got = __float_as_uint(C[j]);
        int ok;
        if (j >= outs) {
            ok = got == 0xFFFFFFFFu;
        } else if (pattern == CML_RO_COPY) {
            ok = got == __float_as_uint(cml_random_f32(seed_a, j));
        } else if (pattern == CML_RO_STENCIL) {
            float v[CML_STENCIL_POINTS];
            for (unsigned k = 0; k < CML_STENCIL_POINTS; k++)
                v[k] = cml_random_f32(seed_a, j + k);
            ok = got == __float_as_uint(cml_stencil9(v));
        } else {
            ok = got == __float_as_uint(cml_random_f32(seed_t, cml_hot_index(j, m)));
        }
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_readonly_check(const cml_readonly_launch_args *a, uint64_t seed_a,
                                         uint64_t seed_t, unsigned long long *d_counters)
{
    if (!valid(a->pattern, a->path) || (a->pattern == CML_RO_HOT_GATHER && !table_ok(a->m)))
        return CML_EINVAL;
    readonly_check<<<1024, 256>>>(a->C, a->cap, cml_readonly_threads(a->pattern, a->n), a->m,
                                  a->pattern, seed_a, seed_t, d_counters, d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
