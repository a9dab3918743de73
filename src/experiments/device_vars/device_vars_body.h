/*
 * Experiment 14 (device variables: the textbook's globalVariable): its
 * kernels, written once (gpu/kernel_body.h). The mirror's arguments; the
 * launch arguments and the launchers and symbol copies that device_vars.c
 * calls; a __device__ and a __constant__ float and the bodies of the two
 * one-thread kernels, which the C compiler makes the model's mirror
 * (device_vars.c); and under __CUDACC__ the kernels and the symbol copies
 * (they need the symbols, so they are wrapped here as extern "C"
 * functions), which nvcc compiles through the file the build generates for
 * the folder (cmake/experiments.cmake).
 *
 * devData is a 4-byte symbol in global memory, aligned at least to 4
 * bytes: one sector whatever its exact address (the mirror puts it at
 * global array 0). constData sits at offset 0 of the module's constant
 * bank.
 */
#ifndef CML_DEVICE_VARS_BODY_H
#define CML_DEVICE_VARS_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"

typedef enum cml_devvar_kind {
    CML_DEVVAR_DEVICE = 0, /* dev_add: devData += 2.0f             */
    CML_DEVVAR_CONSTANT    /* const_read: devData = constData + 2.0f */
} cml_devvar_kind;

typedef struct cml_devvar_args {
    cml_devvar_kind kind;
} cml_devvar_args;

void cml_devvar_mirror(const cml_thread *t, const void *args, cml_emitter *e);

#ifdef __cplusplus
extern "C" {
#endif

/* Which symbol: the __device__ float devData or the __constant__ float
 * constData (values of cml_devvar_kind). */
enum { CML_DEVVAR_SYM_DEVICE = 0, CML_DEVVAR_SYM_CONSTANT = 1 };

/* cudaMemcpyToSymbol(sym, &v, 4) / cudaMemcpyFromSymbol(v, sym, 4), checked. */
CML_LAUNCHER cml_status cml_devvar_set(int sym, float v);
CML_LAUNCHER cml_status cml_devvar_get(int sym, float *v);

typedef struct cml_devvar_launch_args {
    int kind;        /* cml_devvar_kind: 0 dev_add, 1 const_read */
    float value;     /* the value the host sets */
    float result;    /* devData read back by the last round trip */
    float constant;  /* constData read back (const_read only) */
} cml_devvar_launch_args;

/* The kernel alone, <<<1, 1>>> (dev_add changes devData at every launch). */
CML_LAUNCHER cml_status cml_devvar_kernel_launch(void *args);
/*
 * One round trip, the experiment's unit of work: cudaMemcpyToSymbol of
 * `value` into devData (dev_add) or constData (const_read), the kernel,
 * and cudaMemcpyFromSymbol of devData into `result`.
 */
CML_LAUNCHER cml_status cml_devvar_round_trip(void *args);
/* The __global__ function, for the occupancy calculator. */
CML_LAUNCHER const void *cml_devvar_kernel(int kind);
/* Before a check: devData poisoned (0xFFFFFFFF, so that a const_read that
 * never ran cannot pass on an earlier correct value), then one round trip. */
CML_LAUNCHER cml_status cml_devvar_prepare_check(cml_devvar_launch_args *a);
/*
 * Checker (cml_exp_verify's shape): reads devData (and for const_read
 * constData) back with cudaMemcpyFromSymbol; wrong when devData != value +
 * 2.0f bit for bit, or constData != value. d_counters[0] gets the number of
 * wrong values (0..2), d_counters[1] 0 (devData) or 1 (constData) for the
 * first. Fills a->result and a->constant.
 */
CML_LAUNCHER cml_status cml_devvar_check(cml_devvar_launch_args *a, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

CML_DEVICE_VAR(float, devData, 0);
CML_CONSTANT_VAR(float, constData, 0);

/* devData += 2.0f: a load (site 0) and a store (site 1) of devData. */
CML_BODY void cml_dev_add_body(CML_CTX)
{
    float v = CML_LD(0, CML_LD_PLAIN, float, CML_VAR(devData), 0);
    CML_ST(1, CML_ST_PLAIN, CML_VAR(devData), 0, v + 2.0f);
}

/* devData = constData + 2.0f: a constant load (site 0), a store (site 1). */
CML_BODY void cml_const_read_body(CML_CTX)
{
    float c = CML_LDC(0, float, CML_VAR(constData), 0);
    CML_ST(1, CML_ST_PLAIN, CML_VAR(devData), 0, c + 2.0f);
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) --------------------- */
#include <cuda_runtime.h>
#include <string.h>

#include "gpu/gpu_internal.h"

/* devData and constData are declared above, with the kernels' bodies. */

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
#endif /* __CUDACC__ */

#endif
