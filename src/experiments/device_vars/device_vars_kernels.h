/* extern "C" launchers of device_vars.cu, callable from C: the symbol
 * copies need the symbols, so they live beside them in the .cu file. */
#ifndef CML_DEVICE_VARS_KERNELS_H
#define CML_DEVICE_VARS_KERNELS_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

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
#endif
