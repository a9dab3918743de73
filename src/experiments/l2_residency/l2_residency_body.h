/*
 * Experiment 19: the body of the kernel (l2_residency_kernels.h has its
 * pattern), written once for the kernels (l2_residency.cu, one per policy)
 * and the model's mirror (l2_residency.c): gpu/kernel_body.h.
 *
 * The PTX each policy needs, and where it exists:
 *   ld.global.cs / st.global.cs (__ldcs, __stcs)      every architecture
 *   ld.global.L1::no_allocate                         sm_70
 *   ld.global.L2::128B                                sm_75
 *   ld.global.L2::256B                                sm_80
 *   createpolicy.fractional.L2::evict_{first,last}    sm_80, with
 *   ld/st.global.L2::cache_hint                       sm_80
 * A load with an L2 eviction priority written on the instruction itself
 * (ld.global.L2::evict_last) is accepted by ptxas only as a 256-bit load
 * (.v8.b32, sm_100), so on sm_80..sm_90 a 16-byte access gets its L2
 * priority through createpolicy and L2::cache_hint, as here. Code below an
 * architecture's minimum traps: the host waives those policies there
 * (cml_l2r_min_cc), so a trap means a bug, loudly. The mirror models every
 * policy (as on an sm_80 and later); what it sees of each access is its
 * cache operator: cs for __ldcs/__stcs, cg for L1::no_allocate (the line
 * is not kept in L1), ca for the rest.
 */
#ifndef CML_L2_RESIDENCY_BODY_H
#define CML_L2_RESIDENCY_BODY_H

#include <stdint.h>

#include "experiments/l2_residency/l2_residency_kernels.h"
#include "gpu/kernel_body.h"

/* Whether this compilation has sm_75's and sm_80's instructions: the
 * kernel's for those architectures and later; the mirror's, and nvcc's
 * host pass (which generates no device code), always. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define CML_L2R_SM80 1
#else
#define CML_L2R_SM80 0
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 750
#define CML_L2R_SM75 1
#else
#define CML_L2R_SM75 0
#endif

#if defined(__CUDACC__)
/* ---- the kernel's loads and stores by policy (CML_LD_FN, CML_ST_FN) ------ */

#if CML_L2R_SM80
__device__ __forceinline__ uint64_t cml_l2r_policy_evict_first()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ uint64_t cml_l2r_policy_evict_last()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ float4 cml_l2r_ld_hint(const float4 *p, uint64_t pol)
{
    float4 v;
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ void cml_l2r_st_hint(float4 *p, float4 v, uint64_t pol)
{
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;"
                 :
                 : "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(pol)
                 : "memory");
}
__device__ __forceinline__ float4 cml_l2r_ld_256(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
#endif

#if CML_L2R_SM75
__device__ __forceinline__ float4 cml_l2r_ld_128(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}
#endif

__device__ __forceinline__ float4 cml_l2r_ld_no_allocate(const float4 *p)
{
    float4 v;
    asm volatile("ld.global.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}

#else
/* ---- the mirror: a policy is a register of the kernel, nothing the model
 * sees ---------------------------------------------------------------------- */

static inline uint64_t cml_l2r_policy_evict_first(void)
{
    return 0;
}
static inline uint64_t cml_l2r_policy_evict_last(void)
{
    return 0;
}
#endif

CML_BODY float4 cml_l2r_add4(float4 a, float4 b)
{
    return make_float4(CML_FADD_RN(a.x, b.x), CML_FADD_RN(a.y, b.y), CML_FADD_RN(a.z, b.z),
                       CML_FADD_RN(a.w, b.w));
}

/*
 * One float4 per thread i < nv: out[i] = x[i] + h[32 * chunk(i / 32) +
 * i % 32], through the accesses of policy P (a constant in each kernel).
 * Sites: 0 x, 1 h, 2 out.
 */
CML_BODY void cml_l2r_body(CML_CTX, const float4 *x, const float4 *h, float4 *out, uint64_t nv,
                           uint64_t chunks, uint64_t seed, int P)
{
    const uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    if (i >= nv)
        return;
    const float4 *xp = x + i;
    const float4 *hp =
        h + (uint64_t)(CML_L2R_CHUNK_FLOATS / 4u) * cml_l2r_chunk(seed, i / 32u, chunks) +
        i % 32u;
    float4 *op = out + i;
    float4 a, b;
    switch (P) {
    case CML_L2R_LDCS:
        a = CML_LD(0, CML_LD_CS, float4, xp, 0);
        b = CML_LD(1, CML_LD_PLAIN, float4, hp, 0);
        CML_ST(2, CML_ST_CS, op, 0, cml_l2r_add4(a, b));
        return;
    case CML_L2R_NO_ALLOCATE:
        a = CML_LD(0, CML_LD_PLAIN, float4, xp, 0);
        b = CML_LD_FN(1, CML_CACHE_CG, float4, hp, 0, cml_l2r_ld_no_allocate);
        break;
    case CML_L2R_EVICT_FIRST:
    case CML_L2R_EVICT_LAST:
    case CML_L2R_EVICT_BOTH:
#if CML_L2R_SM80
    {
        const int first = P != CML_L2R_EVICT_LAST, last = P != CML_L2R_EVICT_FIRST;
        const uint64_t pf = first ? cml_l2r_policy_evict_first() : 0,
                       pl = last ? cml_l2r_policy_evict_last() : 0;
        a = first ? CML_LD_FN1(0, CML_CACHE_CA, float4, xp, 0, cml_l2r_ld_hint, pf)
                  : CML_LD(0, CML_LD_PLAIN, float4, xp, 0);
        b = last ? CML_LD_FN1(1, CML_CACHE_CA, float4, hp, 0, cml_l2r_ld_hint, pl)
                 : CML_LD(1, CML_LD_PLAIN, float4, hp, 0);
        if (first)
            CML_ST_FN1(2, CML_CACHE_CA, op, 0, cml_l2r_add4(a, b), cml_l2r_st_hint, pf);
        else
            CML_ST(2, CML_ST_PLAIN, op, 0, cml_l2r_add4(a, b));
        return;
    }
#else
        __trap();
#endif
    case CML_L2R_PREFETCH_128:
#if CML_L2R_SM75
        a = CML_LD_FN(0, CML_CACHE_CA, float4, xp, 0, cml_l2r_ld_128);
        b = CML_LD_FN(1, CML_CACHE_CA, float4, hp, 0, cml_l2r_ld_128);
        break;
#else
        __trap();
#endif
    case CML_L2R_PREFETCH_256:
#if CML_L2R_SM80
        a = CML_LD_FN(0, CML_CACHE_CA, float4, xp, 0, cml_l2r_ld_256);
        b = CML_LD_FN(1, CML_CACHE_CA, float4, hp, 0, cml_l2r_ld_256);
        break;
#else
        __trap();
#endif
    default: /* none, window: plain */
        a = CML_LD(0, CML_LD_PLAIN, float4, xp, 0);
        b = CML_LD(1, CML_LD_PLAIN, float4, hp, 0);
        break;
    }
    CML_ST(2, CML_ST_PLAIN, op, 0, cml_l2r_add4(a, b));
}

#endif
