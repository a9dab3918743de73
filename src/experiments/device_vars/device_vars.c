/*
 * Experiment 14: device variables (the textbook's globalVariable).
 *
 * The kernels, whose bodies (device_vars_body.h) nvcc and the
 * mirror below both compile, each launched <<<1, 1>>>:
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
 * Host side (extern "C" wrappers in device_vars_body.h's CUDA side, which
 * has the symbols):
 * cudaMemcpyToSymbol(devData or constData, &v, sizeof v), the launch,
 * cudaMemcpyFromSymbol(&r, devData, sizeof r), and the check r == v + 2.0f
 * bit for bit (v random in [1, 2): the sum is exact), plus, for constData,
 * cudaMemcpyFromSymbol of constData == v (the kernel cannot change it).
 * The GPU run times that round trip (the unit of work of this experiment)
 * and the kernel alone. The model sees one warp with one active lane: each
 * global access is one request of one 32-byte sector of which 4 bytes are
 * used.
 */
#include <stdio.h>
#include <string.h>

#include "core/random.h"
#include "experiments/device_vars/device_vars_body.h"
#include "gpu/gpu_internal.h" /* messages of direct calls into the CUDA side */
#include "lab/common.h"

static const char *const var_names[] = {"device", "constant", NULL};

/* One point of the sweep; the option's field. */
typedef struct devvar_settings {
    int64_t var;
} devvar_settings;

static const cml_param_def devvar_params[] = {
    {"var", "device (devData += 2.0f) or constant (devData = constData + 2.0f)", 0, 0,
     "device,constant", var_names, 0, CML_FIELD(devvar_settings, var), NULL},
};

/* The kernels' own bodies (device_vars_body.h). */
void cml_devvar_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_devvar_args *a = vargs;
    if (a->kind == CML_DEVVAR_DEVICE)
        cml_dev_add_body(CML_MIRROR_CTX(t, e));
    else
        cml_const_read_body(CML_MIRROR_CTX(t, e));
}

/* One variant's record with the model's prediction. */
static cml_status devvar_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const devvar_settings *s = vs;
    (void)ctx;
    /* One float read (devData or constData) and one written. */
    rec->bytes_read = 4;
    rec->bytes_written = 4;
    cml_devvar_args args = {(cml_devvar_kind)s->var};
    cml_status st = cml_exp_trace(rec, cml_dim1(1), cml_dim1(1), cml_devvar_mirror, &args);
    if (st)
        return st;
    const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
    const double st_spr = cml_exp_spr(rec, CML_CLASS_GLOBAL_ST);
    const double st_eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, CML_CLASS_GLOBAL_ST);
    if (s->var == CML_DEVVAR_DEVICE) {
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
    return CML_OK;
}

static cml_status devvar_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_devvar_check(ctx, d_counters);
}

/* The GPU side of one variant: time the round trip and the kernel alone,
 * check the values, and say what the time is made of. A wrong value is a
 * failed record and the sweep goes on; a CUDA error ends it. */
static cml_status devvar_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const cml_plan *plan = ctx->plan;
    const cml_devvar_kind kind = (cml_devvar_kind)((const devvar_settings *)vs)->var;
    cml_devvar_launch_args a;
    memset(&a, 0, sizeof a);
    a.kind = (int)kind;
    a.value = cml_random_f32(0xDE7A, (uint64_t)kind); /* in [1, 2): value + 2 is exact */
    cml_timing kernel_only;
    unsigned warmup = plan->warmup ? plan->warmup : CML_EXP_WARMUP;
    unsigned reps = plan->reps ? plan->reps : CML_EXP_REPS;
    cml_status st = cml_gpu_time(plan->gpu, cml_devvar_kernel_launch, &a, warmup, reps,
                                 &kernel_only);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_time(plan, rec, cml_devvar_round_trip, &a, cml_devvar_kernel((int)kind), 1, 0);
    if (st)
        return st;
    cml_record_add_extra(rec, "round_trip_us", rec->timing.median_ms * 1e3, "us");
    cml_record_add_extra(rec, "kernel_only_us", kernel_only.median_ms * 1e3, "us");
    /* A direct call into the .cu file: its CUDA error, if any, is the
     * harness's last error; keep it on the device handle for the note. */
    cml_gpu_clear_last_error();
    st = cml_devvar_prepare_check(&a);
    if (st)
        return cml_exp_fail(plan, rec, st);
    st = cml_exp_verify(plan, rec, devvar_check_cb, &a);
    if (st)
        return st;
    cml_record_finding(rec,
                       "%s = %.6f set by cudaMemcpyToSymbol, %s, devData read back by "
                       "cudaMemcpyFromSymbol: %.6f, exact%s. Measured %.1f us per round trip "
                       "against %.2f us for the one-thread kernel alone: the cost is the two "
                       "4-byte copies and the launch, not the bytes.",
                       kind == CML_DEVVAR_DEVICE ? "devData" : "constData", (double)a.value,
                       kind == CML_DEVVAR_DEVICE ? "devData += 2.0f" : "devData = constData + 2.0f",
                       (double)a.result, kind == CML_DEVVAR_DEVICE ? "" : ", constData unchanged",
                       rec->timing.median_ms * 1e3, kernel_only.median_ms * 1e3);
    return CML_OK;
}

static const cml_textbook_alias devvar_aliases[] = {
    {"globalVariable", "var=device", {NULL}, "globalVariable"},
};

const cml_experiment cml_exp_device_vars = {
    .key = "device-vars",
    .number = 14,
    .title = "Device variables",
    .summary = "a __device__ and a __constant__ float set with cudaMemcpyToSymbol, changed / read "
               "by a one-thread kernel, read back with cudaMemcpyFromSymbol",
    .doc = "docs/experiments/device-vars.md",
    .options = devvar_params,
    .noptions = CML_COUNT(devvar_params),
    .settings_size = sizeof(devvar_settings),
    .tour = "var=device,constant",
    .variant = devvar_variant,
    .measure = devvar_measure,
    .aliases = devvar_aliases,
    .naliases = CML_COUNT(devvar_aliases),
    /* No charts (two one-thread variants, told by their findings) and no
     * validate settings: validate has never run it. */
};
