/*
 * Experiment 9: the bodies of the local-memory kernels and of their
 * register-only twins, written once for the kernels (local.cu) and the
 * model's mirror (local.c): gpu/kernel_body.h.
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

#include "experiments/local/local.h"
#include "experiments/local/local_kernels.h"
#include "gpu/kernel_body.h"

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

#endif
