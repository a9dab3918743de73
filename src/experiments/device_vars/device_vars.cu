/*
 * Experiment 14: device variables (the textbook's globalVariable): a
 * __device__ and a __constant__ float, the two one-thread kernels (their
 * bodies in device_vars_body.h, which the model's mirror in device_vars.c
 * compiles too), and the symbol copies (they need the symbols, so they are
 * wrapped here as extern "C" functions).
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "experiments/device_vars/device_vars_body.h"
#include "experiments/device_vars/device_vars_kernels.h"
#include "gpu/gpu_internal.h"

/* devData and constData are declared in device_vars_body.h, with the
 * kernels' bodies. */

__global__ void dev_add(void)
{
    cml_dev_add_body(CML_KERNEL_CTX);
}

__global__ void const_read(void)
{
    cml_const_read_body(CML_KERNEL_CTX);
}

extern "C" cml_status cml_devvar_set(int sym, float v)
{
    if (sym == CML_DEVVAR_SYM_DEVICE)
        CML_CU(cudaMemcpyToSymbol(devData, &v, sizeof v));
    else if (sym == CML_DEVVAR_SYM_CONSTANT)
        CML_CU(cudaMemcpyToSymbol(constData, &v, sizeof v));
    else
        return CML_EINVAL;
    return CML_OK;
}

extern "C" cml_status cml_devvar_get(int sym, float *v)
{
    if (sym == CML_DEVVAR_SYM_DEVICE)
        CML_CU(cudaMemcpyFromSymbol(v, devData, sizeof *v));
    else if (sym == CML_DEVVAR_SYM_CONSTANT)
        CML_CU(cudaMemcpyFromSymbol(v, constData, sizeof *v));
    else
        return CML_EINVAL;
    return CML_OK;
}

extern "C" const void *cml_devvar_kernel(int kind)
{
    return kind == 0 ? (const void *)dev_add : kind == 1 ? (const void *)const_read : NULL;
}

extern "C" cml_status cml_devvar_kernel_launch(void *vctx)
{
    const cml_devvar_launch_args *a = (const cml_devvar_launch_args *)vctx;
    if (a->kind == 0)
        dev_add<<<1, 1>>>();
    else if (a->kind == 1)
        const_read<<<1, 1>>>();
    else
        return CML_EINVAL;
    CML_CU_LAUNCH();
    return CML_OK;
}

extern "C" cml_status cml_devvar_round_trip(void *vctx)
{
    cml_devvar_launch_args *a = (cml_devvar_launch_args *)vctx;
    cml_status st = cml_devvar_set(a->kind == 0 ? CML_DEVVAR_SYM_DEVICE : CML_DEVVAR_SYM_CONSTANT,
                                   a->value);
    if (st == CML_OK)
        st = cml_devvar_kernel_launch(a);
    if (st == CML_OK)
        st = cml_devvar_get(CML_DEVVAR_SYM_DEVICE, &a->result);
    return st;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

extern "C" cml_status cml_devvar_prepare_check(cml_devvar_launch_args *a)
{
    const uint32_t poison = 0xFFFFFFFFu;
    float p;
    memcpy(&p, &poison, sizeof p);
    cml_status st = cml_devvar_set(CML_DEVVAR_SYM_DEVICE, p);
    return st == CML_OK ? cml_devvar_round_trip(a) : st;
}

extern "C" cml_status cml_devvar_check(cml_devvar_launch_args *a, unsigned long long *d_counters)
{
    cml_status st = cml_devvar_get(CML_DEVVAR_SYM_DEVICE, &a->result);
    if (st == CML_OK && a->kind == 1)
        st = cml_devvar_get(CML_DEVVAR_SYM_CONSTANT, &a->constant);
    if (st != CML_OK)
        return st;
    const float want = a->value + 2.0f; /* the host's own float addition */
    unsigned long long h[2] = {0, ~0ull};
    if (bits_of(a->result) != bits_of(want)) {
        h[0]++;
        h[1] = 0;
    }
    if (a->kind == 1 && bits_of(a->constant) != bits_of(a->value)) {
        h[0]++;
        if (h[1] == ~0ull)
            h[1] = 1;
    }
    CML_CU(cudaMemcpy(d_counters, h, sizeof h, cudaMemcpyHostToDevice));
    return CML_OK;
}
