/*
 * Experiment 9: local memory. Four kernels that put data in local memory
 * and, for each, a register-only twin that computes the same output with
 * the same loop and arithmetic but keeps everything in registers, so their
 * time difference is the cost of the local traffic. A checker recomputes
 * every output float.
 *
 * Everything of its kernels is here, written once (gpu/kernel_body.h): the
 * mirror's arguments and ptxas's table of the kernels' registers, stack
 * frames and spills (generated at build time by cmake/ptxas_report.cmake,
 * which compiles the folder's kernels once more with -Xptxas -v; the mirror
 * takes the spill kernel's spill bytes from it), the launch arguments and
 * the launchers that local.c calls, the kernels' bodies, which the C
 * compiler makes the model's mirror (local.c), and under __CUDACC__ the
 * kernels, their launchers and checker, which nvcc compiles through the
 * file the build generates for the folder (cmake/experiments.cmake).
 *
 * KMAX = CML_LOCAL_KMAX = 256; K and s are run-time arguments (1 <= K <=
 * KMAX, 0 <= s < K), so every index into the array is unknown to the
 * compiler and the array must live in local memory, at byte 0 of the
 * thread's frame. Blocks are multiples of 32, so threadIdx.x % 32 is the
 * lane. Sites: 0 in[i], 1 the local stores, 2 the local loads, 3 out[i]
 * (the twins have only 0 and 3).
 */
#ifndef CML_LOCAL_BODY_H
#define CML_LOCAL_BODY_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

/* Largest per-thread array: the kernels declare float arr[CML_LOCAL_KMAX]
 * and use the first K elements, so one kernel serves every K. */
#define CML_LOCAL_KMAX 256u

typedef enum cml_local_pattern {
    CML_LOCAL_SAME_INDEX = 0, /* every lane loads arr[s]                */
    CML_LOCAL_LANE_VARYING,   /* lane l loads arr[(l + s) % K]          */
    CML_LOCAL_STRUCT,         /* lane l loads big.f[(l + s) % K]        */
    CML_LOCAL_SPILL           /* register spills: ptxas's spill bytes as
                                 same-index stores and loads            */
} cml_local_pattern;

typedef struct cml_local_args {
    uint64_t n;                 /* threads with work (one element each)   */
    unsigned K;                 /* array length / struct fields used      */
    unsigned s;                 /* run-time index, 0 <= s < K             */
    cml_local_pattern pattern;
    int regs;                   /* 1: the register-only twin (global accesses only) */
    /* Spill: the bytes ptxas spills per thread (its "spill stores" and
     * "spill loads"), each executed once: the spill kernel has no loop. */
    unsigned spill_store_bytes, spill_load_bytes;
    /* Model only: pass on this thread's emissions [emit_lo, emit_hi) and
     * drop the others (the mirror's cml_window, gpu/kernel_body.h), so that
     * a thread making more than CML_MAX_EMITS accesses (K up to 256 stores
     * + 3) is traced in pieces whose totals add up exactly (every lane of a
     * warp makes the same sequence). */
    unsigned emit_lo, emit_hi;
} cml_local_args;

void cml_local_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* One kernel's figures as ptxas printed them (`nvcc -Xptxas -v`). */
typedef struct cml_ptxas_entry {
    const char *mangled;        /* "_Z16local_same_indexPKfPfyii"         */
    const char *name;           /* "local_same_index"                     */
    int regs;                   /* "Used N registers"                     */
    unsigned stack_bytes;       /* "N bytes stack frame"                  */
    unsigned spill_store_bytes; /* "N bytes spill stores"                 */
    unsigned spill_load_bytes;  /* "N bytes spill loads"                  */
} cml_ptxas_entry;

/* The table of the kernels below (entry kernels, then a NULL row), the architecture
 * ptxas compiled for ("sm_90") and "" or the reason the table is empty. */
extern const cml_ptxas_entry cml_local_ptxas[];
extern const unsigned cml_local_ptxas_count;
extern const char cml_local_ptxas_arch[];
extern const char cml_local_ptxas_status[];

/* The row of kernel `name` (as written below), or NULL. */
const cml_ptxas_entry *cml_local_ptxas_find(const char *name);

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
/* Its name as written below (NULL: bad pattern), to find it in the
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

/* The struct kernel's per-thread struct: its fields sit in the frame like
 * array elements, and a field chosen at run time is a local load. */
struct cml_local_big {
    float f[CML_LOCAL_KMAX];
};

/*
 * local_same_index (lane_varying 0) and local_lane_varying (1): K stores
 * of v + j at (j + s) % K, then one load, of arr[s] or of arr[(lane + s) %
 * K]. The loop is kept rolled (K is a run-time value anyway) so that the
 * twin's loop is the same.
 */
CML_BODY void cml_local_array_body(CML_CTX, const float *in, float *out, unsigned long long n,
                                   int K, int s, int lane_varying)
{
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    CML_LOCAL_ARRAY(float, arr, CML_LOCAL_KMAX, 0);
    float v = CML_LD(0, CML_LD_PLAIN, float, in, i);
    CML_NOUNROLL for (int j = 0; j < K; j++)
        CML_STL(1, arr, (j + s) % K, v + (float)j);
    if (lane_varying)
        CML_ST(3, CML_ST_PLAIN, out, i, CML_LDL(2, float, arr, (CML_TID_X % 32 + s) % K));
    else
        CML_ST(3, CML_ST_PLAIN, out, i, CML_LDL(2, float, arr, s));
}

/* local_struct: local_lane_varying through the struct's fields. */
CML_BODY void cml_local_struct_body(CML_CTX, const float *in, float *out, unsigned long long n,
                                    int K, int s)
{
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    CML_LOCAL_ARRAY(struct cml_local_big, b, 1, 0);
    float v = CML_LD(0, CML_LD_PLAIN, float, in, i);
    CML_NOUNROLL for (int j = 0; j < K; j++)
        CML_STL(1, b->f, (j + s) % K, v + (float)j);
    CML_ST(3, CML_ST_PLAIN, out, i, CML_LDL(2, float, b->f, (CML_TID_X % 32 + s) % K));
}

/*
 * The register twins of the three (lane_varying 0: same-index; 1: lane-
 * varying and struct): the same loop, index arithmetic and additions, but
 * the value the load would return is selected as the loop passes it, so
 * nothing needs an address and there is no local access at all.
 */
CML_BODY void cml_local_regs_body(CML_CTX, const float *in, float *out, unsigned long long n,
                                  int K, int s, int lane_varying)
{
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    float v = CML_LD(0, CML_LD_PLAIN, float, in, i), r = 0.0f;
    int want = lane_varying ? (int)((CML_TID_X % 32 + s) % K) : s;
    CML_NOUNROLL for (int j = 0; j < K; j++)
        if ((j + s) % K == want)
            r = v + (float)j;
    CML_ST(3, CML_ST_PLAIN, out, i, r);
}

/*
 * Register spilling (local_spill under a 32-register cap, and its twin
 * local_spill_regs with room for all values): 48 values computed in one
 * order and consumed in the reverse order, so all 48 are live at once;
 * every index is a compile-time constant (fully unrolled), so r[] is
 * registers, not an array in memory. ptxas does not recompute a chain of
 * dependent operations to save registers: when the registers run out it
 * spills, spill_st bytes of stores and spill_ld bytes of loads per thread
 * (its figures, for the mirror; the kernel passes 0: ptxas places them).
 * The kernel has no loop left, so each spill runs once per thread. Rounded
 * operations keep FMA contraction out, so the host reference is exact.
 */
CML_BODY void cml_local_spill_body(CML_CTX, const float *in, float *out, unsigned long long n,
                                   unsigned spill_st, unsigned spill_ld)
{
    unsigned long long i = (unsigned long long)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= n)
        return;
    float r[CML_LOCAL_SPILL_VALUES], x = CML_LD(0, CML_LD_PLAIN, float, in, i), acc = 0.0f;
    CML_UNROLL for (int j = 0; j < (int)CML_LOCAL_SPILL_VALUES; j++) {
        x = CML_FADD_RN(CML_FMUL_RN(x, 0.75f), 0.5f);
        r[j] = x;
    }
    CML_SPILL_ST(1, 0, spill_st);
    CML_UNROLL for (int j = (int)CML_LOCAL_SPILL_VALUES - 1; j >= 0; j--)
        acc = CML_FADD_RN(CML_FMUL_RN(acc, 0.5f), r[j]);
    CML_SPILL_LD(2, 0, spill_ld);
    CML_ST(3, CML_ST_PLAIN, out, i, acc);
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>

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
#endif /* __CUDACC__ */

#endif
