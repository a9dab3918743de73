/*
 * Experiment 9: local memory. Four kernels that put data in local memory
 * and, for each, a register-only twin that computes the same output with
 * the same loop and arithmetic but keeps everything in registers, so their
 * time difference is the cost of the local traffic. A checker recomputes
 * every output float.
 *
 * The kernels' bodies are in local_body.h, which the model's mirror
 * (local.c) compiles too.
 *
 * ptxas's own figures for every kernel here (registers, stack frame, spill
 * stores and loads) are captured at build time by cmake/ptxas_report.cmake,
 * which compiles this file once more with -Xptxas -v; the mirror takes the
 * spill kernel's spill bytes from them.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/local/local.h"
#include "experiments/local/local_body.h"
#include "experiments/local/local_kernels.h"
#include "gpu/gpu_internal.h"

/* ---- per-thread arrays indexed at run time ------------------------------ */

__global__ void local_same_index(const float *in, float *out, unsigned long long n, int K, int s)
{
    cml_local_array_body(CML_KERNEL_CTX, in, out, n, K, s, 0);
}

__global__ void local_lane_varying(const float *in, float *out, unsigned long long n, int K, int s)
{
    cml_local_array_body(CML_KERNEL_CTX, in, out, n, K, s, 1);
}

__global__ void local_struct(const float *in, float *out, unsigned long long n, int K, int s)
{
    cml_local_struct_body(CML_KERNEL_CTX, in, out, n, K, s);
}

/* The register twins: the struct's reads the lane-varying index too. */
__global__ void local_same_index_regs(const float *in, float *out, unsigned long long n, int K,
                                      int s)
{
    cml_local_regs_body(CML_KERNEL_CTX, in, out, n, K, s, 0);
}

__global__ void local_lane_varying_regs(const float *in, float *out, unsigned long long n, int K,
                                        int s)
{
    cml_local_regs_body(CML_KERNEL_CTX, in, out, n, K, s, 1);
}

__global__ void local_struct_regs(const float *in, float *out, unsigned long long n, int K, int s)
{
    cml_local_regs_body(CML_KERNEL_CTX, in, out, n, K, s, 1);
}

/* ---- register spilling --------------------------------------------------- */

/*
 * The register cap: 32 per thread, fewer than the 48 values need.
 * __maxnreg__(32) (CUDA 12.4 and later) is -maxrregcount 32 for this kernel
 * alone, the same on every architecture. __launch_bounds__(1024, 2) asks for
 * the same 65536 / 2048 = 32 registers, but only where an SM can hold 2048
 * threads (sm_70, sm_80, sm_90): for sm_75 (1024 threads per SM) ptxas
 * ignored the second block and gave 53 registers and no spill. On sm_90 the
 * two produce byte-identical code; older toolkits get the launch bound.
 */
#if defined(__CUDACC_VER_MAJOR__) &&                                                           \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define SPILL_CAP __maxnreg__(32)
#else
#define SPILL_CAP __launch_bounds__(1024, 2)
#endif

/* The spill bytes are ptxas's to place: the kernels pass none. */
__global__ void SPILL_CAP local_spill(const float *in, float *out, unsigned long long n)
{
    cml_local_spill_body(CML_KERNEL_CTX, in, out, n, 0, 0);
}

/* One block of 1024 per SM: up to 64 registers, enough for all 48. */
__global__ void __launch_bounds__(1024, 1) local_spill_regs(const float *in, float *out,
                                                           unsigned long long n)
{
    cml_local_spill_body(CML_KERNEL_CTX, in, out, n, 0, 0);
}

/* ---- launchers ----------------------------------------------------------- */

typedef void (*array_kernel)(const float *, float *, unsigned long long, int, int);
typedef void (*spill_kernel)(const float *, float *, unsigned long long);

static const array_kernel arrays[2][3] = {
    {local_same_index, local_lane_varying, local_struct},
    {local_same_index_regs, local_lane_varying_regs, local_struct_regs},
};
static const spill_kernel spills[2] = {local_spill, local_spill_regs};
static const char *const names[2][4] = {
    {"local_same_index", "local_lane_varying", "local_struct", "local_spill"},
    {"local_same_index_regs", "local_lane_varying_regs", "local_struct_regs",
     "local_spill_regs"},
};

static int valid(int pattern, int regs)
{
    return pattern >= 0 && pattern < CML_LK_COUNT && (regs == 0 || regs == 1);
}

extern "C" const void *cml_local_kernel(int pattern, int regs)
{
    if (!valid(pattern, regs))
        return NULL;
    return pattern == CML_LK_SPILL ? (const void *)spills[regs]
                                   : (const void *)arrays[regs][pattern];
}

extern "C" const char *cml_local_kernel_name(int pattern, int regs)
{
    return valid(pattern, regs) ? names[regs][pattern] : NULL;
}

extern "C" cml_status cml_local_launch(void *vctx)
{
    const cml_local_launch_args *a = (const cml_local_launch_args *)vctx;
    if (!valid(a->pattern, a->regs) || a->block == 0 || a->block > 1024 || a->block % 32 ||
        a->n > a->cap)
        return CML_EINVAL;
    if (a->pattern != CML_LK_SPILL &&
        (a->K < 1 || a->K > (int)CML_LOCAL_KMAX || a->s < 0 || a->s >= a->K))
        return CML_EINVAL;
    const uint64_t grid = (a->n + a->block - 1) / a->block;
    if (grid == 0)
        return CML_OK;
    if (grid > 0x7FFFFFFFull)
        return CML_EINVAL;
    if (a->pattern == CML_LK_SPILL)
        spills[a->regs]<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n);
    else
        arrays[a->regs][a->pattern]<<<(unsigned)grid, a->block>>>(a->in, a->out, a->n, a->K,
                                                                  a->s);
    CML_CU_LAUNCH();
    return CML_OK;
}

/* out[j] for j < n: the expected float bit for bit; past n: the poison. */
__global__ void local_check(const float *__restrict__ out, uint64_t n, uint64_t cap, int pattern,
                            int K, uint64_t seed, unsigned long long *bad,
                            unsigned long long *first_bad)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < cap;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t got = __float_as_uint(out[j]);
        int ok = j < n ? got == __float_as_uint(cml_local_expected(pattern, K, j,
                                                                   cml_random_f32(seed, j)))
                       : got == 0xFFFFFFFFu;
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_local_check(const cml_local_launch_args *a, uint64_t seed,
                                      unsigned long long *d_counters)
{
    if (!valid(a->pattern, a->regs) || a->K < 1)
        return CML_EINVAL;
    local_check<<<1024, 256>>>(a->out, a->n, a->cap, a->pattern, a->K, seed, d_counters,
                               d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
