/*
 * Experiment 14: device variables (the textbook's globalVariable).
 *
 * CONTRACT: the kernels the mirror below stands for (device_vars.cu, a
 * later issue, must be exactly this), each launched <<<1, 1>>>:
 *
 *   __device__ float devData;
 *   __constant__ float constData;
 *
 *   __global__ void dev_add(void)
 *   {
 *       devData += 2.0f;               // site 0: global load, site 1: global store
 *   }
 *
 *   __global__ void const_read(void)
 *   {
 *       devData = constData + 2.0f;    // site 0: constant load, site 1: global store
 *   }
 *
 * Host side: cudaMemcpyToSymbol(devData or constData, &v, sizeof v), the
 * launch, cudaMemcpyFromSymbol(&r, devData, sizeof r), and the check
 * r == v + 2. The model sees one warp with one active lane: each global
 * access is one request of one 32-byte sector of which 4 bytes are used.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/device_vars.h"

static const char *const var_names[] = {"device", "constant", NULL};

static const cml_param_def devvar_params[] = {
    {"var", "device (devData += 2.0f) or constant (devData = constData + 2.0f)", 0, 0,
     "device,constant", var_names, 0},
};

void cml_devvar_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_devvar_args *a = vargs;
    (void)t;
    /* devData is a 4-byte symbol in global memory, aligned at least to 4
     * bytes: one sector whatever its exact address. constData sits at
     * offset 0 of the module's constant bank. */
    const uint64_t dev_data = cml_array_base(0);
    if (a->kind == CML_DEVVAR_DEVICE)
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, dev_data);
    else
        cml_emit(e, 0, CML_SPACE_CONSTANT, CML_OP_LOAD, CML_CACHE_CA, 4, 0);
    cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, dev_data);
}

static cml_status devvar_model(const cml_plan *plan, const cml_param_values *pv,
                               cml_results *out)
{
    (void)plan;
    const cml_param_list *vars = cml_param_get(pv, "var");
    for (size_t vi = 0; vi < vars->count; vi++) {
        const int64_t var = vars->v[vi];
        char variant[96] = "";
        cml_variant_add_label(variant, sizeof variant, "var", var_names[var]);
        cml_record *rec;
        CML_EXP_ADD(rec, out, "device-vars", variant);
        cml_record_add_param(rec, "var", var, var_names[var]);
        /* One float read (devData or constData) and one written. */
        rec->bytes_read = 4;
        rec->bytes_written = 4;

        cml_devvar_args args = {(cml_devvar_kind)var};
        cml_status st = cml_exp_trace(rec, cml_dim1(1), cml_dim1(1), cml_devvar_mirror, &args);
        if (st)
            return st;
        const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
        const double st_spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_ST);
        const double st_eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST);
        if (var == CML_DEVVAR_DEVICE) {
            cml_record_finding(rec,
                               "devData += 2.0f by one thread: a load and a store with 1 of 32 "
                               "lanes active, %.2f sector per request each, %.1f%% of it used "
                               "(4 of 32 B; Fermi's cached load fetches a 128 B line: %.1f%%); "
                               "cudaMemcpyToSymbol / FromSymbol move the 4 bytes in and out.",
                               cml_exp_spr(rec, CML_CLASS_GLOBAL_LD),
                               100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_LD),
                               100.0 * cml_exp_eff(rec, CML_RULES_FERMI, CML_CLASS_GLOBAL_LD));
        } else {
            const cml_traffic *c = &m->cls[CML_CLASS_CONST_LD];
            const double ser =
                c->instructions ? (double)c->serialized / (double)c->instructions : 0.0;
            cml_record_finding(rec,
                               "constData read by one thread: %.2f constant access per request "
                               "(one address, nothing to serialize); devData = constData + 2.0f "
                               "stores %.2f sector per request, %.1f%% used. cudaMemcpyToSymbol "
                               "fills constData; the kernel cannot change it.",
                               ser, st_spr, st_eff);
        }
    }
    return CML_OK;
}

const cml_experiment cml_exp_device_vars = {
    "device-vars", 14, "Device variables",
    "a __device__ and a __constant__ float set with cudaMemcpyToSymbol, changed / read by a "
    "one-thread kernel, read back with cudaMemcpyFromSymbol",
    devvar_params, sizeof devvar_params / sizeof devvar_params[0],
    devvar_model, NULL, "var=device,constant",
};
