/*
 * The kernels of the book's chapter04/simpleMathAoS.cu and
 * simpleMathSoA.cu, as the book writes them: the structures (innerStruct,
 * two 4-byte-aligned floats, so each field is its own 4-byte load and
 * store; InnerArray, two arrays of LEN floats), the names, parameter types
 * and bodies. The C mirror in simple_math.c emits exactly their accesses.
 */
#include <cuda_runtime.h>

#include "book/simple_math_kernels.h"
#include "gpu/gpu_internal.h"

#define LEN 1<<22

struct innerStruct
{
    float x;
    float y;
};

struct InnerArray
{
    float x[LEN];
    float y[LEN];
};

static __global__ void testInnerStruct(innerStruct *data, innerStruct * result,
                                       const int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
    {
        innerStruct tmp = data[i];
        tmp.x += 10.f;
        tmp.y += 20.f;
        result[i] = tmp;
    }
}

static __global__ void warmup(innerStruct *data, innerStruct * result, const int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
    {
        innerStruct tmp = data[i];
        tmp.x += 10.f;
        tmp.y += 20.f;
        result[i] = tmp;
    }
}

static __global__ void testInnerArray(InnerArray *data, InnerArray * result,
                                      const int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
    {
        float tmpx = data->x[i];
        float tmpy = data->y[i];

        tmpx += 10.f;
        tmpy += 20.f;
        result->x[i] = tmpx;
        result->y[i] = tmpy;
    }
}

static __global__ void warmup2(InnerArray *data, InnerArray * result, const int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
    {
        float tmpx = data->x[i];
        float tmpy = data->y[i];
        tmpx += 10.f;
        tmpy += 20.f;
        result->x[i] = tmpx;
        result->y[i] = tmpy;
    }
}

static_assert(sizeof(innerStruct) == 8, "innerStruct is two floats");
static_assert(sizeof(InnerArray) == 8ull * CML_BOOK_MATH_LEN, "InnerArray is 2 * LEN floats");

extern "C" const void *cml_book_math_kernel_fn(int kernel)
{
    switch (kernel) {
    case CML_MATH_AOS_WARMUP: return (const void *)warmup;
    case CML_MATH_AOS_STRUCT: return (const void *)testInnerStruct;
    case CML_MATH_SOA_WARMUP2: return (const void *)warmup2;
    case CML_MATH_SOA_ARRAY: return (const void *)testInnerArray;
    default: return NULL;
    }
}

extern "C" cml_status cml_book_math_launch_fn(void *vctx)
{
    const cml_book_math_launch *a = (const cml_book_math_launch *)vctx;
    if (a->grid == 0 || a->block == 0 || a->block > 1024 || a->n < 0 ||
        (unsigned)a->n > CML_BOOK_MATH_LEN)
        return CML_EINVAL;
    innerStruct *sd = (innerStruct *)a->data, *sr = (innerStruct *)a->result;
    InnerArray *ad = (InnerArray *)a->data, *ar = (InnerArray *)a->result;
    switch (a->kernel) {
    case CML_MATH_AOS_WARMUP: warmup<<<a->grid, a->block>>>(sd, sr, a->n); break;
    case CML_MATH_AOS_STRUCT: testInnerStruct<<<a->grid, a->block>>>(sd, sr, a->n); break;
    case CML_MATH_SOA_WARMUP2: warmup2<<<a->grid, a->block>>>(ad, ar, a->n); break;
    case CML_MATH_SOA_ARRAY: testInnerArray<<<a->grid, a->block>>>(ad, ar, a->n); break;
    default: return CML_EINVAL;
    }
    CML_CU_LAUNCH();
    return CML_OK;
}
