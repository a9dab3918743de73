/*
 * The peak bandwidth kernels' per-thread bodies, written once
 * (gpu/kernel_body.h): nvcc inlines them into the kernels of peak.cu (the
 * lab's quick peak and experiment 16), the C compiler makes them the
 * model's mirror (cml_peak_mirror, src/experiments/peak/peak_model.c). The
 * engine owns the kernels, so their bodies are here beside peak.cu; the
 * experiment's folder includes this header, never the reverse.
 *
 * One set of bodies (both layouts, elementwise and sum) per pair of width
 * W (4, 8, 16 bytes: float, float2, float4) and unroll U (1, 2, 4, 8),
 * from one macro (CML_PEAK_BODIES), as there is one kernel per pair: U
 * sizes the register arrays a[U], b[U]. The rest of a kernel's template
 * arguments are values the kernel passes as constants, which the inlined
 * body folds as the template did:
 *   op      the element operation (cml_peak_op);
 *   ld, st  the access modes: CML_LD_NC / CML_ST_PLAIN (__ldg, plain
 *           write-back stores) or CML_LD_CS / CML_ST_CS (__ldcs, __stcs:
 *           the "-cs" shapes' streaming hints).
 * (U too could be a value, with arrays of 8 slots of which the unrolled
 * loops touch U: the machine code is the same for U > 1, but for U = 1
 * the one vector reaches registers at another point of the optimisation
 * and the float4 checksum's additions are associated differently.)
 *
 * Sites: the unrolled body (grid-stride main loop, one-shot body) gives
 * each of its U loads and stores its own instruction: x loads 0..7, y loads
 * 8..15, stores 16..23. The grid-stride remainder loop is 24..26, the
 * trailing floats 27..29, the sum's two block reductions 30..33 and its
 * result 34. The sum's ticket protocol is 35..40: the flag is_last through
 * shared memory (35, 36) and the ticket's reset (37), which the mirror
 * leaves out with the atomics that drive them (the slot add 38, the ticket
 * 39, the slot exchange 40: not loads or stores in the model's vocabulary,
 * CML_ATOMIC_*): CML_PEAK_MODEL_SITES.
 */
#ifndef CML_LAB_PEAK_BODY_H
#define CML_LAB_PEAK_BODY_H

#include <stdint.h>

#include "gpu/kernel_body.h"
#include "lab/peak.h"

enum {
    CML_PEAK_SITE_X = 0,
    CML_PEAK_SITE_Y = 8,
    CML_PEAK_SITE_Z = 16,
    CML_PEAK_SITE_REST = 24,
    CML_PEAK_SITE_TAIL = 27,
    CML_PEAK_SITE_SUM = 30,
    CML_PEAK_SITE_RESULT = 34,
    CML_PEAK_SITE_IS_LAST = 35,
    CML_PEAK_SITE_TICKET_RESET = 37,
    CML_PEAK_SITE_SLOT_ADD = 38,
    CML_PEAK_SITE_TICKET = 39,
    CML_PEAK_SITE_SLOT_EXCH = 40
};

/* The sites the model is given: all but the ticket protocol's. */
#define CML_PEAK_MODEL_SITES                                                                \
    (~(((uint64_t)3 << CML_PEAK_SITE_IS_LAST) | ((uint64_t)1 << CML_PEAK_SITE_TICKET_RESET)))

/* The bytes of shared memory before the flag is_last: the block sum's 32
 * warp sums, which the compiler places first. */
#define CML_PEAK_IS_LAST_OFFSET 256u

/* ---- the element operations, with no contraction into FMA -------------- */

CML_BODY float cml_peak_elem(int op, float x, float y)
{
    switch (op) {
    case CML_PEAK_SCALE: return CML_FMUL_RN(CML_PEAK_SCALAR, x);
    case CML_PEAK_ADD: return CML_FADD_RN(x, y);
    case CML_PEAK_TRIAD: return CML_FADD_RN(x, CML_FMUL_RN(CML_PEAK_SCALAR, y));
    case CML_PEAK_FILL: return CML_PEAK_FILL_VALUE;
    default: return x; /* copy */
    }
}

/* Per vector type: zero, the operation on each component, and the sum's
 * checksum of its words' bit patterns. */
CML_BODY float cml_peak_zero_v4(void)
{
    return 0.0f;
}
CML_BODY float2 cml_peak_zero_v8(void)
{
    return make_float2(0.0f, 0.0f);
}
CML_BODY float4 cml_peak_zero_v16(void)
{
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

CML_BODY float cml_peak_apply_v4(int op, float a, float b)
{
    return cml_peak_elem(op, a, b);
}
CML_BODY float2 cml_peak_apply_v8(int op, float2 a, float2 b)
{
    return make_float2(cml_peak_elem(op, a.x, b.x), cml_peak_elem(op, a.y, b.y));
}
CML_BODY float4 cml_peak_apply_v16(int op, float4 a, float4 b)
{
    return make_float4(cml_peak_elem(op, a.x, b.x), cml_peak_elem(op, a.y, b.y),
                       cml_peak_elem(op, a.z, b.z), cml_peak_elem(op, a.w, b.w));
}

CML_BODY unsigned long long cml_peak_bits_v4(float a)
{
    return (unsigned long long)CML_FLOAT_AS_UINT(a);
}
CML_BODY unsigned long long cml_peak_bits_v8(float2 a)
{
    return cml_peak_bits_v4(a.x) + cml_peak_bits_v4(a.y);
}
CML_BODY unsigned long long cml_peak_bits_v16(float4 a)
{
    return (cml_peak_bits_v4(a.x) + cml_peak_bits_v4(a.y)) +
           (cml_peak_bits_v4(a.z) + cml_peak_bits_v4(a.w));
}

/* ---- the read-only sum's reductions -------------------------------------- */

/*
 * Sum of a block's values into thread 0: shuffles within each warp, lane 0
 * of each warp writes its warp's sum to shared memory (site), warp 0 loads
 * those (site + 1) and adds them. Needs blockDim.x a multiple of 32
 * (full-mask shuffles); the host checks.
 */
CML_BODY unsigned long long cml_peak_warp_sum(unsigned long long v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += CML_SHFL_DOWN(0xFFFFFFFFu, v, off);
    return v;
}

CML_BODY unsigned long long cml_peak_block_sum(CML_CTX, unsigned long long v, unsigned site)
{
    CML_SHARED_ARRAY(unsigned long long, warp_sums, 32, 0);
    const unsigned lane = CML_TID_X & 31u, w = CML_TID_X >> 5;
    v = cml_peak_warp_sum(v);
    if (lane == 0)
        CML_STS(site, warp_sums, w, v);
    CML_SYNC();
    v = 0ull;
    if (w == 0) {
        if (lane < (CML_BDIM_X >> 5))
            v = CML_LDS(site + 1, unsigned long long, warp_sums, lane);
        v = cml_peak_warp_sum(v);
    }
    return v;
}

/*
 * The end of every sum kernel: thread 0 adds the block's sum into a slot,
 * then takes a ticket; the block with the last ticket adds the slots into
 * *result and zeroes slots and ticket for the next launch. The fence makes
 * the slot update visible to every block before the ticket says it is there.
 * The model takes the blocks to finish in the order of their index (which
 * block finishes last varies, its accesses do not): the ticket of block b
 * is b, the last block the one with the highest index.
 */
CML_BODY void cml_peak_sum_finish(CML_CTX, unsigned long long block_total,
                                  unsigned long long *slots, unsigned *ticket,
                                  unsigned long long *result)
{
    CML_SHARED_ARRAY(int, is_last, 1, CML_PEAK_IS_LAST_OFFSET);
    if (CML_TID_X == 0) {
        (void)CML_ATOMIC_ADD(CML_PEAK_SITE_SLOT_ADD, slots, CML_BID_X % CML_PEAK_SUM_SLOTS,
                             block_total, 0ull);
        CML_THREADFENCE();
        CML_STS(CML_PEAK_SITE_IS_LAST, is_last, 0,
                CML_ATOMIC_ADD(CML_PEAK_SITE_TICKET, ticket, 0, 1u, CML_BID_X) ==
                    CML_GDIM_X - 1);
    }
    /* Also orders block_sum's reads of its shared array before the second
     * block_sum below writes it again. */
    CML_SYNC();
    if (!CML_LDSV(CML_PEAK_SITE_IS_LAST + 1, int, is_last, 0, CML_BID_X == CML_GDIM_X - 1))
        return;
    unsigned long long v = 0ull;
    if (CML_TID_X < CML_PEAK_SUM_SLOTS) /* read and zero in one atomic */
        v = CML_ATOMIC_EXCH(CML_PEAK_SITE_SLOT_EXCH, slots, CML_TID_X, 0ull, 0ull);
    v = cml_peak_block_sum(CML_CTX_ARG, v, CML_PEAK_SITE_SUM + 2);
    if (CML_TID_X == 0) {
        CML_ST(CML_PEAK_SITE_RESULT, CML_ST_PLAIN, result, 0, v);
        CML_ST(CML_PEAK_SITE_TICKET_RESET, CML_ST_PLAIN, ticket, 0, 0u);
    }
}

/* ---- the kernels' bodies, one set per width and unroll ------------------- */

/*
 * One set per pair of W (bytes per access: VT is float, float2 or float4)
 * and U (vectors per thread per iteration), as there is one kernel per
 * pair: U sizes the register arrays a[U], b[U], so it is a constant on
 * both sides, and W names the helpers above. x, y, z are the float arrays
 * (n floats each), viewed as VT. In every body all loads of a thread's U
 * vectors are issued before the first store (unrolled loops over the
 * register arrays: an unroll pragma on one plain loop would not do it, the
 * compiler guards every unrolled step with its own exit test), so U loads
 * are in flight together.
 *
 * cml_peak_gs_vW_uU: grid-stride. Thread t takes vector t, t + stride, ...;
 * the main loop U of them per iteration, the remainder loop the last < U;
 * then the < W/4 trailing floats go to the first threads of the grid.
 *
 * cml_peak_os_vW_uU: one-shot. Block b covers vectors [b*blockDim*U,
 * (b+1)*blockDim*U); thread t takes base + k*blockDim (k < U), so each of
 * the U accesses is a coalesced warp access. The trailing floats go to the
 * first threads of block 0.
 *
 * cml_peak_sum_gs_vW_uU, cml_peak_sum_os_vW_uU: the same coverage, loads
 * only, the words' bit patterns added into the block's sum (a zero vector
 * past the end adds nothing), then cml_peak_sum_finish.
 */
#define CML_PEAK_BODIES(W, VT, U)                                                            \
    CML_BODY void cml_peak_gs_v##W##_u##U(CML_CTX, const float *x, const float *y, float *z, \
                                          uint64_t n, int op, unsigned ld, unsigned st)      \
    {                                                                                        \
        const int needs_x = op != CML_PEAK_FILL;                                             \
        const int needs_y = op == CML_PEAK_ADD || op == CML_PEAK_TRIAD;                      \
        const VT *xv = (const VT *)x;                                                        \
        const VT *yv = (const VT *)y;                                                        \
        VT *zv = (VT *)z;                                                                    \
        const uint64_t nv = n / ((W) / 4);                                                   \
        const uint64_t stride = (uint64_t)CML_GDIM_X * CML_BDIM_X;                           \
        uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;                           \
        const uint64_t t = i;                                                                \
        for (; i + ((U) - 1) * stride < nv; i += (U) * stride) {                             \
            VT a[U], b[U];                                                                   \
            CML_UNROLL for (int k = 0; k < (U); k++)                                         \
                a[k] = needs_x ? CML_LD(CML_PEAK_SITE_X + k, ld, VT, xv + i, k * stride)     \
                               : cml_peak_zero_v##W();                                       \
            CML_UNROLL for (int k = 0; k < (U); k++)                                         \
                b[k] = needs_y ? CML_LD(CML_PEAK_SITE_Y + k, ld, VT, yv + i, k * stride)     \
                               : a[k];                                                       \
            CML_UNROLL for (int k = 0; k < (U); k++)                                         \
                CML_ST(CML_PEAK_SITE_Z + k, st, zv + i, k * stride,                          \
                       cml_peak_apply_v##W(op, a[k], b[k]));                                 \
        }                                                                                    \
        for (; i < nv; i += stride) {                                                        \
            const VT a = needs_x ? CML_LD(CML_PEAK_SITE_REST, ld, VT, xv, i)                 \
                                 : cml_peak_zero_v##W();                                     \
            const VT b = needs_y ? CML_LD(CML_PEAK_SITE_REST + 1, ld, VT, yv, i) : a;        \
            CML_ST(CML_PEAK_SITE_REST + 2, st, zv, i, cml_peak_apply_v##W(op, a, b));        \
        }                                                                                    \
        const uint64_t r = nv * ((W) / 4) + t;                                               \
        if ((W) > 4 && r < n) {                                                              \
            float av = needs_x ? CML_LD(CML_PEAK_SITE_TAIL, ld, float, x, r) : 0.0f;         \
            float bv = needs_y ? CML_LD(CML_PEAK_SITE_TAIL + 1, ld, float, y, r) : av;       \
            CML_ST(CML_PEAK_SITE_TAIL + 2, st, z, r, cml_peak_elem(op, av, bv));             \
        }                                                                                    \
    }                                                                                        \
                                                                                             \
    CML_BODY void cml_peak_os_v##W##_u##U(CML_CTX, const float *x, const float *y, float *z, \
                                          uint64_t n, int op, unsigned ld, unsigned st)      \
    {                                                                                        \
        const int needs_x = op != CML_PEAK_FILL;                                             \
        const int needs_y = op == CML_PEAK_ADD || op == CML_PEAK_TRIAD;                      \
        const VT *xv = (const VT *)x;                                                        \
        const VT *yv = (const VT *)y;                                                        \
        VT *zv = (VT *)z;                                                                    \
        const uint64_t nv = n / ((W) / 4);                                                   \
        const uint64_t base = (uint64_t)CML_BID_X * CML_BDIM_X * (U) + CML_TID_X;            \
        VT a[U], b[U];                                                                       \
        CML_UNROLL for (int k = 0; k < (U); k++)                                             \
        {                                                                                    \
            const uint64_t i = base + (uint64_t)k * CML_BDIM_X;                              \
            a[k] = needs_x && i < nv ? CML_LD(CML_PEAK_SITE_X + k, ld, VT, xv, i)            \
                                     : cml_peak_zero_v##W();                                 \
        }                                                                                    \
        CML_UNROLL for (int k = 0; k < (U); k++)                                             \
        {                                                                                    \
            const uint64_t i = base + (uint64_t)k * CML_BDIM_X;                              \
            b[k] = needs_y && i < nv ? CML_LD(CML_PEAK_SITE_Y + k, ld, VT, yv, i) : a[k];    \
        }                                                                                    \
        CML_UNROLL for (int k = 0; k < (U); k++)                                             \
        {                                                                                    \
            const uint64_t i = base + (uint64_t)k * CML_BDIM_X;                              \
            if (i < nv)                                                                      \
                CML_ST(CML_PEAK_SITE_Z + k, st, zv, i, cml_peak_apply_v##W(op, a[k], b[k])); \
        }                                                                                    \
        const uint64_t r = nv * ((W) / 4) + CML_TID_X;                                       \
        if ((W) > 4 && CML_BID_X == 0 && r < n) {                                            \
            float av = needs_x ? CML_LD(CML_PEAK_SITE_TAIL, ld, float, x, r) : 0.0f;         \
            float bv = needs_y ? CML_LD(CML_PEAK_SITE_TAIL + 1, ld, float, y, r) : av;       \
            CML_ST(CML_PEAK_SITE_TAIL + 2, st, z, r, cml_peak_elem(op, av, bv));             \
        }                                                                                    \
    }                                                                                        \
                                                                                             \
    CML_BODY void cml_peak_sum_gs_v##W##_u##U(CML_CTX, const float *x, uint64_t n,           \
                                              unsigned long long *slots, unsigned *ticket,   \
                                              unsigned long long *result, unsigned ld)       \
    {                                                                                        \
        const VT *xv = (const VT *)x;                                                        \
        const uint64_t nv = n / ((W) / 4);                                                   \
        const uint64_t stride = (uint64_t)CML_GDIM_X * CML_BDIM_X;                           \
        uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;                           \
        const uint64_t t = i;                                                                \
        unsigned long long acc = 0ull;                                                       \
        for (; i + ((U) - 1) * stride < nv; i += (U) * stride) {                             \
            VT a[U];                                                                         \
            CML_UNROLL for (int k = 0; k < (U); k++)                                         \
                a[k] = CML_LD(CML_PEAK_SITE_X + k, ld, VT, xv + i, k * stride);              \
            CML_UNROLL for (int k = 0; k < (U); k++)                                         \
                acc += cml_peak_bits_v##W(a[k]);                                             \
        }                                                                                    \
        for (; i < nv; i += stride)                                                          \
            acc += cml_peak_bits_v##W(CML_LD(CML_PEAK_SITE_REST, ld, VT, xv, i));            \
        const uint64_t r = nv * ((W) / 4) + t;                                               \
        if ((W) > 4 && r < n)                                                                \
            acc += cml_peak_bits_v4(CML_LD(CML_PEAK_SITE_TAIL, ld, float, x, r));            \
        cml_peak_sum_finish(CML_CTX_ARG,                                                    \
                            cml_peak_block_sum(CML_CTX_ARG, acc, CML_PEAK_SITE_SUM), slots, \
                            ticket, result);                                                 \
    }                                                                                        \
                                                                                             \
    CML_BODY void cml_peak_sum_os_v##W##_u##U(CML_CTX, const float *x, uint64_t n,           \
                                              unsigned long long *slots, unsigned *ticket,   \
                                              unsigned long long *result, unsigned ld)       \
    {                                                                                        \
        const VT *xv = (const VT *)x;                                                        \
        const uint64_t nv = n / ((W) / 4);                                                   \
        const uint64_t base = (uint64_t)CML_BID_X * CML_BDIM_X * (U) + CML_TID_X;            \
        VT a[U];                                                                             \
        CML_UNROLL for (int k = 0; k < (U); k++)                                             \
        {                                                                                    \
            const uint64_t i = base + (uint64_t)k * CML_BDIM_X;                              \
            a[k] = i < nv ? CML_LD(CML_PEAK_SITE_X + k, ld, VT, xv, i)                       \
                          : cml_peak_zero_v##W(); /* zero adds nothing */                    \
        }                                                                                    \
        unsigned long long acc = 0ull;                                                       \
        CML_UNROLL for (int k = 0; k < (U); k++)                                             \
            acc += cml_peak_bits_v##W(a[k]);                                                 \
        const uint64_t r = nv * ((W) / 4) + CML_TID_X;                                       \
        if ((W) > 4 && CML_BID_X == 0 && r < n)                                              \
            acc += cml_peak_bits_v4(CML_LD(CML_PEAK_SITE_TAIL, ld, float, x, r));            \
        cml_peak_sum_finish(CML_CTX_ARG,                                                    \
                            cml_peak_block_sum(CML_CTX_ARG, acc, CML_PEAK_SITE_SUM), slots, \
                            ticket, result);                                                 \
    }

/* X(W, VT, U): every pair of width and unroll a shape may take (U <= 8:
 * the unrolled body's sites, CML_PEAK_SITE_*), each one set of bodies;
 * the kernels (peak.cu) and the mirror pick theirs from this list. */
#define CML_PEAK_BODY_SETS(X)                                                                \
    X(4, float, 1) X(4, float, 2) X(4, float, 4) X(4, float, 8)                              \
    X(8, float2, 1) X(8, float2, 2) X(8, float2, 4) X(8, float2, 8)                          \
    X(16, float4, 1) X(16, float4, 2) X(16, float4, 4) X(16, float4, 8)

CML_PEAK_BODY_SETS(CML_PEAK_BODIES)

#endif
