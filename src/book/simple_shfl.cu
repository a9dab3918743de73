/*
 * The kernels of the book's chapter05/simpleShfl.cu that its main()
 * launches, as the book writes them (BDIMX 16, SEGM 4), the shuffles in
 * their _sync form with the mask of the block's lanes (shfl_kernels.h says
 * why). The book's register arrays indexed by a run-time srcIdx or dstIdx
 * stay in registers after ptxas (0 bytes of stack: no local memory); the
 * C mirror in simple_shfl.c emits exactly their global accesses.
 */
#include <cuda_runtime.h>

#include "book/shfl_kernels.h"
#include "gpu/gpu_internal.h"

#define BDIMX 16
#define SEGM  4

/* The lanes of the launch: every kernel here runs one block of at most
 * BDIMX threads in one warp, all of which reach every shuffle. */
#define BLOCK_LANES ((1u << blockDim.x) - 1u)
#define __shfl(v, l, w) __shfl_sync(BLOCK_LANES, (v), (l), (w))
#define __shfl_up(v, d, w) __shfl_up_sync(BLOCK_LANES, (v), (d), (w))
#define __shfl_down(v, d, w) __shfl_down_sync(BLOCK_LANES, (v), (d), (w))
#define __shfl_xor(v, m, w) __shfl_xor_sync(BLOCK_LANES, (v), (m), (w))

static __global__ void test_shfl_broadcast(int *d_out, int *d_in, int const srcLane)
{
    int value = d_in[threadIdx.x];
    value = __shfl(value, srcLane, BDIMX);
    d_out[threadIdx.x] = value;
}

static __global__ void test_shfl_wrap (int *d_out, int *d_in, int const offset)
{
    int value = d_in[threadIdx.x];
    value = __shfl(value, threadIdx.x + offset, BDIMX);
    d_out[threadIdx.x] = value;
}

static __global__ void test_shfl_up(int *d_out, int *d_in, unsigned int const delta)
{
    int value = d_in[threadIdx.x];
    value = __shfl_up (value, delta, BDIMX);
    d_out[threadIdx.x] = value;
}

static __global__ void test_shfl_down(int *d_out, int *d_in, unsigned int const delta)
{
    int value = d_in[threadIdx.x];
    value = __shfl_down (value, delta, BDIMX);
    d_out[threadIdx.x] = value;
}

static __global__ void test_shfl_xor(int *d_out, int *d_in, int const mask)
{
    int value = d_in[threadIdx.x];
    value = __shfl_xor (value, mask, BDIMX);
    d_out[threadIdx.x] = value;
}

static __global__ void test_shfl_xor_array(int *d_out, int *d_in, int const mask)
{
    int idx = threadIdx.x * SEGM;
    int value[SEGM];

    for (int i = 0; i < SEGM; i++) value[i] = d_in[idx + i];

    value[0] = __shfl_xor (value[0], mask, BDIMX);
    value[1] = __shfl_xor (value[1], mask, BDIMX);
    value[2] = __shfl_xor (value[2], mask, BDIMX);
    value[3] = __shfl_xor (value[3], mask, BDIMX);

    for (int i = 0; i < SEGM; i++) d_out[idx + i] = value[i];
}


static __global__ void test_shfl_xor_int4(int *d_out, int *d_in, int const mask)
{
    int idx = threadIdx.x * SEGM;
    int4 value;

    value.x = d_in[idx];
    value.y = d_in[idx + 1];
    value.z = d_in[idx + 2];
    value.w = d_in[idx + 3];

    value.x = __shfl_xor (value.x, mask, BDIMX);
    value.y = __shfl_xor (value.y, mask, BDIMX);
    value.z = __shfl_xor (value.z, mask, BDIMX);
    value.w = __shfl_xor (value.w, mask, BDIMX);

    d_out[idx] = value.x;
    d_out[idx + 1] = value.y;
    d_out[idx + 2] = value.z;
    d_out[idx + 3] = value.w;
}



static __global__ void test_shfl_xor_element(int *d_out, int *d_in, int const mask,
                                             int srcIdx, int dstIdx)
{
    int idx = threadIdx.x * SEGM;
    int value[SEGM];

    for (int i = 0; i < SEGM; i++) value[i] = d_in[idx + i];

    value[srcIdx] = __shfl_xor (value[dstIdx], mask, BDIMX);

    for (int i = 0; i < SEGM; i++) d_out[idx + i] = value[i];
}


static __global__ void test_shfl_xor_array_swap (int *d_out, int *d_in, int const mask,
        int srcIdx, int dstIdx)
{
    int idx = threadIdx.x * SEGM;
    int value[SEGM];

    for (int i = 0; i < SEGM; i++) value[i] = d_in[idx + i];

    bool pred = ((threadIdx.x & 1) != mask);

    if (pred)
    {
        int tmp = value[srcIdx];
        value[srcIdx] = value[dstIdx];
        value[dstIdx] = tmp;
    }

    value[dstIdx] = __shfl_xor (value[dstIdx], mask, BDIMX);

    if (pred)
    {
        int tmp = value[srcIdx];
        value[srcIdx] = value[dstIdx];
        value[dstIdx] = tmp;
    }

    for (int i = 0; i < SEGM; i++) d_out[idx + i] = value[i];
}

__inline__ __device__
void swap(int *value, int laneIdx, int mask, int firstIdx, int secondIdx)
{
    bool pred = ((laneIdx / mask + 1) == 1);

    if (pred)
    {
        int tmp = value[firstIdx];
        value[firstIdx] = value[secondIdx];
        value[secondIdx] = tmp;
    }

    value[secondIdx] = __shfl_xor (value[secondIdx], mask, BDIMX);

    if (pred)
    {
        int tmp = value[firstIdx];
        value[firstIdx] = value[secondIdx];
        value[secondIdx] = tmp;
    }
}

static __global__
void test_shfl_swap (int *d_out, int *d_in, int const mask, int firstIdx,
                     int secondIdx)
{
    int idx = threadIdx.x * SEGM;
    int value[SEGM];

    for (int i = 0; i < SEGM; i++) value[i] = d_in[idx + i];

    swap(value, threadIdx.x, mask, firstIdx, secondIdx);

    for (int i = 0; i < SEGM; i++) d_out[idx + i] = value[i];
}


static __global__ void test_shfl_xor_array_swap_base (int *d_out, int *d_in,
        int const mask, int srcIdx, int dstIdx)
{
    int idx = threadIdx.x * SEGM;
    int value[SEGM];

    for (int i = 0; i < SEGM; i++) value[i] = d_in[idx + i];

    value[dstIdx] = __shfl_xor (value[dstIdx], mask, BDIMX);

    for (int i = 0; i < SEGM; i++) d_out[idx + i] = value[i];
}

static __global__ void test_shfl_array(int *d_out, int *d_in, int const offset)
{
    int idx = threadIdx.x * SEGM;
    int value[SEGM];

    for (int i = 0; i < SEGM; i++) value[i] = d_in[idx + i];

    int lane =  (offset + threadIdx.x) % SEGM;
    value[0] = __shfl (value[3], lane, BDIMX);

    for (int i = 0; i < SEGM; i++) d_out[idx + i] = value[i];
}

extern "C" const void *cml_book_shfl_kernel_fn(int kernel)
{
    switch (kernel) {
    case CML_SH_BROADCAST: return (const void *)test_shfl_broadcast;
    case CML_SH_WRAP: return (const void *)test_shfl_wrap;
    case CML_SH_UP: return (const void *)test_shfl_up;
    case CML_SH_DOWN: return (const void *)test_shfl_down;
    case CML_SH_XOR: return (const void *)test_shfl_xor;
    case CML_SH_XOR_INT4: return (const void *)test_shfl_xor_int4;
    case CML_SH_XOR_ARRAY: return (const void *)test_shfl_xor_array;
    case CML_SH_XOR_ELEMENT: return (const void *)test_shfl_xor_element;
    case CML_SH_SWAP_BASE: return (const void *)test_shfl_xor_array_swap_base;
    case CML_SH_ARRAY_SWAP: return (const void *)test_shfl_xor_array_swap;
    case CML_SH_SWAP: return (const void *)test_shfl_swap;
    case CML_SH_ARRAY: return (const void *)test_shfl_array;
    default: return NULL;
    }
}

extern "C" cml_status cml_book_shfl_launch_fn(void *vctx)
{
    const cml_book_shfl_launch *a = (const cml_book_shfl_launch *)vctx;
    /* BDIMX threads for the scalar kernels, BDIMX / SEGM for the others:
     * BDIMX ints in and out either way; indices into value[] in 0..SEGM-1. */
    const int segm = a->kernel >= CML_SH_XOR_INT4;
    if (a->block != (segm ? BDIMX / SEGM : BDIMX) || a->a2 < 0 || a->a2 >= SEGM || a->a3 < 0 ||
        a->a3 >= SEGM || (a->kernel == CML_SH_SWAP && a->arg == 0))
        return CML_EINVAL;
    int *o = a->out, *i = a->in;
    switch (a->kernel) {
    case CML_SH_BROADCAST: test_shfl_broadcast<<<1, a->block>>>(o, i, a->arg); break;
    case CML_SH_WRAP: test_shfl_wrap<<<1, a->block>>>(o, i, a->arg); break;
    case CML_SH_UP: test_shfl_up<<<1, a->block>>>(o, i, (unsigned)a->arg); break;
    case CML_SH_DOWN: test_shfl_down<<<1, a->block>>>(o, i, (unsigned)a->arg); break;
    case CML_SH_XOR: test_shfl_xor<<<1, a->block>>>(o, i, a->arg); break;
    case CML_SH_XOR_INT4: test_shfl_xor_int4<<<1, a->block>>>(o, i, a->arg); break;
    case CML_SH_XOR_ARRAY: test_shfl_xor_array<<<1, a->block>>>(o, i, a->arg); break;
    case CML_SH_XOR_ELEMENT:
        test_shfl_xor_element<<<1, a->block>>>(o, i, a->arg, a->a2, a->a3);
        break;
    case CML_SH_SWAP_BASE:
        test_shfl_xor_array_swap_base<<<1, a->block>>>(o, i, a->arg, a->a2, a->a3);
        break;
    case CML_SH_ARRAY_SWAP:
        test_shfl_xor_array_swap<<<1, a->block>>>(o, i, a->arg, a->a2, a->a3);
        break;
    case CML_SH_SWAP: test_shfl_swap<<<1, a->block>>>(o, i, a->arg, a->a2, a->a3); break;
    case CML_SH_ARRAY: test_shfl_array<<<1, a->block>>>(o, i, a->arg); break;
    default: return CML_EINVAL;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}
