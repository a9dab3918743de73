/*
 * Probe kernels: one warp-level memory instruction of exactly the width,
 * cache operator and lane addresses asked for (probe_kernels.h).
 *
 * Every access is inline PTX with a predicate per lane (`@p ld...`): the
 * instruction is issued even when no lane is active (E1), and `asm volatile`
 * keeps each issue, so `repeat` issues of the same addresses are `repeat`
 * instructions, never merged. Nothing else in the kernel touches global or
 * shared memory (the lane table is __constant__, read with LDC), so the
 * counters see only the probed instruction. The values loaded are not used:
 * a volatile asm is never removed, so no store is needed to keep it.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "counters/probe_kernels.h"
#include "gpu/gpu_internal.h"

__constant__ uint32_t cml_probe_off[32];
__constant__ uint32_t cml_probe_active;

#define PRED "{ .reg .pred p; setp.ne.u32 p, %0, 0; "

/* Loads: width 1/2/4 into one register (sub-word loads zero-extend), 8 and 16
 * as .v2/.v4 of 32-bit words. */
#define LD_SCALAR(SPACE, ADDR_C, CACHE, TYPE)                                               \
    asm volatile(PRED "@p ld." SPACE CACHE "." TYPE " %1, [%2]; }"                        \
                 : "+r"(act), "+r"(x0)                                                      \
                 : ADDR_C(addr)                                                             \
                 : "memory")
#define LD_V2(SPACE, ADDR_C, CACHE)                                                         \
    asm volatile(PRED "@p ld." SPACE CACHE ".v2.u32 {%1, %2}, [%3]; }"                    \
                 : "+r"(act), "+r"(x0), "+r"(x1)                                            \
                 : ADDR_C(addr)                                                             \
                 : "memory")
#define LD_V4(SPACE, ADDR_C, CACHE)                                                         \
    asm volatile(PRED "@p ld." SPACE CACHE ".v4.u32 {%1, %2, %3, %4}, [%5]; }"            \
                 : "+r"(act), "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)                        \
                 : ADDR_C(addr)                                                             \
                 : "memory")
#define ST_SCALAR(SPACE, ADDR_C, CACHE, TYPE)                                               \
    asm volatile(PRED "@p st." SPACE CACHE "." TYPE " [%1], %2; }"                        \
                 :                                                                          \
                 : "r"(act), ADDR_C(addr), "r"(x0)                                          \
                 : "memory")
#define ST_V2(SPACE, ADDR_C, CACHE)                                                         \
    asm volatile(PRED "@p st." SPACE CACHE ".v2.u32 [%1], {%2, %3}; }"                    \
                 :                                                                          \
                 : "r"(act), ADDR_C(addr), "r"(x0), "r"(x1)                                 \
                 : "memory")
#define ST_V4(SPACE, ADDR_C, CACHE)                                                         \
    asm volatile(PRED "@p st." SPACE CACHE ".v4.u32 [%1], {%2, %3, %4, %5}; }"            \
                 :                                                                          \
                 : "r"(act), ADDR_C(addr), "r"(x0), "r"(x1), "r"(x2), "r"(x3)               \
                 : "memory")

#define GLOBAL_ADDR(a) "l"(a)
#define SHARED_ADDR(a) "r"(a)

/* One access of `width` bytes with cache operator CACHE (a string such as
 * ".ca", or "" for shared memory). */
#define ACCESS(LD_OR_ST, SPACE, ADDR_C, CACHE)                                              \
    switch (width) {                                                                        \
    case 1: LD_OR_ST##_SCALAR(SPACE, ADDR_C, CACHE, "u8"); break;                           \
    case 2: LD_OR_ST##_SCALAR(SPACE, ADDR_C, CACHE, "u16"); break;                          \
    case 4: LD_OR_ST##_SCALAR(SPACE, ADDR_C, CACHE, "u32"); break;                          \
    case 8: LD_OR_ST##_V2(SPACE, ADDR_C, CACHE); break;                                     \
    default: LD_OR_ST##_V4(SPACE, ADDR_C, CACHE); break;                                    \
    }

__device__ __forceinline__ void global_load(uint64_t addr, unsigned width, int cache, unsigned act,
                                            unsigned &x0, unsigned &x1, unsigned &x2,
                                            unsigned &x3)
{
    switch (cache) {
    case 1: ACCESS(LD, "global", GLOBAL_ADDR, ".cg"); break;
    case 2: ACCESS(LD, "global", GLOBAL_ADDR, ".nc"); break;
    default: ACCESS(LD, "global", GLOBAL_ADDR, ".ca"); break;
    }
}

__device__ __forceinline__ void global_store(uint64_t addr, unsigned width, int cache,
                                             unsigned act, unsigned x0, unsigned x1, unsigned x2,
                                             unsigned x3)
{
    switch (cache) {
    case 1: ACCESS(ST, "global", GLOBAL_ADDR, ".cg"); break;
    case 2: ACCESS(ST, "global", GLOBAL_ADDR, ".cs"); break;
    default: ACCESS(ST, "global", GLOBAL_ADDR, ".wb"); break;
    }
}

__device__ __forceinline__ void shared_load(uint32_t addr, unsigned width, unsigned act,
                                            unsigned &x0, unsigned &x1, unsigned &x2,
                                            unsigned &x3)
{
    ACCESS(LD, "shared", SHARED_ADDR, "");
}

__device__ __forceinline__ void shared_store(uint32_t addr, unsigned width, unsigned act,
                                             unsigned x0, unsigned x1, unsigned x2, unsigned x3)
{
    ACCESS(ST, "shared", SHARED_ADDR, "");
}

/* One warp per block: blockIdx.x is the warp. */
__global__ void __launch_bounds__(32) cml_probe_kernel(cml_probe_launch a)
{
    __shared__ uint4 smem[CML_PROBE_SHARED_BYTES / 16];
    const unsigned lane = threadIdx.x & 31u;
    unsigned act = (cml_probe_active >> lane) & 1u;
    const uint32_t off = cml_probe_off[lane];
    const unsigned width = a.width;
    unsigned x0 = lane, x1 = lane + 1u, x2 = lane + 2u, x3 = lane + 3u;
    const uint32_t saddr = (uint32_t)__cvta_generic_to_shared(smem) + off;
    for (unsigned it = 0; it < a.iters; it++) {
        const uint64_t addr =
            (uint64_t)(uintptr_t)a.buf + ((uint64_t)blockIdx.x * a.iters + it) * a.region + off;
        for (unsigned r = 0; r < a.repeat; r++) {
            switch (a.kind) {
            case CML_PROBE_GLOBAL_LD:
                global_load(addr, width, a.cache, act, x0, x1, x2, x3);
                break;
            case CML_PROBE_GLOBAL_ST:
                global_store(addr, width, a.cache, act, x0, x1, x2, x3);
                break;
            case CML_PROBE_ST_THEN_LD:
                global_store(addr, width, 0, act, x0, x1, x2, x3);
                global_load(addr, width, 0, act, x0, x1, x2, x3);
                break;
            case CML_PROBE_SHARED_LD:
                shared_load(saddr, width, act, x0, x1, x2, x3);
                break;
            default:
                shared_store(saddr, width, act, x0, x1, x2, x3);
                break;
            }
        }
    }
}

extern "C" uint64_t cml_probe_bytes(const cml_probe_launch *a, uint32_t max_off)
{
    return ((uint64_t)a->warps * a->iters - 1) * a->region + max_off + 16u;
}

extern "C" cml_status cml_probe_set_lanes(const uint32_t off[32], uint32_t active)
{
    CML_CU(cudaMemcpyToSymbol(cml_probe_off, off, 32 * sizeof(uint32_t)));
    CML_CU(cudaMemcpyToSymbol(cml_probe_active, &active, sizeof active));
    CML_CU(cudaDeviceSynchronize());
    return CML_OK;
}

extern "C" cml_status cml_probe_launch_fn(void *args)
{
    const cml_probe_launch *a = (const cml_probe_launch *)args;
    if (!a || a->kind < 0 || a->kind >= CML_PROBE_KIND_COUNT || a->warps == 0 || a->iters == 0 ||
        a->repeat == 0)
        return CML_EINVAL;
    if (a->width != 1 && a->width != 2 && a->width != 4 && a->width != 8 && a->width != 16)
        return CML_EINVAL;
    cml_probe_kernel<<<a->warps, 32>>>(*a);
    CML_CU_LAUNCH();
    return CML_OK;
}
