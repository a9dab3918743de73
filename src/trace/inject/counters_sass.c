/*
 * Per-instruction counters through CUPTI's SASS metrics API
 * (counters_sass.h). libcupti is the one cupti_core.c loaded; the SASS
 * metrics functions are looked up in it here, once.
 */
#include "trace/inject/counters_sass.h"

#include <cupti_sass_metrics.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/cupti_core.h"
#include "trace/inject/inject_common.h"

#define SASS_FUNCS(X)                                                              \
    X(cuptiSassMetricsGetNumOfMetrics, CUpti_SassMetrics_GetNumOfMetrics_Params)   \
    X(cuptiSassMetricsGetMetrics, CUpti_SassMetrics_GetMetrics_Params)             \
    X(cuptiSassMetricsSetConfig, CUpti_SassMetricsSetConfig_Params)                \
    X(cuptiSassMetricsUnsetConfig, CUpti_SassMetricsUnsetConfig_Params)            \
    X(cuptiSassMetricsEnable, CUpti_SassMetricsEnable_Params)                      \
    X(cuptiSassMetricsDisable, CUpti_SassMetricsDisable_Params)                    \
    X(cuptiSassMetricsGetDataProperties, CUpti_SassMetricsGetDataProperties_Params) \
    X(cuptiSassMetricsFlushData, CUpti_SassMetricsFlushData_Params)

#define FIELD(name, params) CUptiResult (*name)(params *);
static struct {
    int tried, ok;
    SASS_FUNCS(FIELD)
} fn;

#define LOOKUP(name, params)                                        \
    if (ok) {                                                       \
        void *sym_ = dlsym(cml_cupti.lib, #name);                   \
        ok = sym_ != NULL;                                          \
        if (ok)                                                     \
            memcpy(&fn.name, &sym_, sizeof fn.name);                \
    }

/* The metrics of the device configured, in one order for every launch. */
#define MAX_SASS_METRICS 16
static struct {
    int have;
    CUdevice dev;
    size_t n;
    char *names[MAX_SASS_METRICS];
    uint64_t ids[MAX_SASS_METRICS];
    CUdevice dev_now; /* the device configured for the launch being counted */
} cfg;

#define CALL(name, p)                                                   \
    do {                                                                \
        CUptiResult r_ = fn.name(p);                                    \
        if (r_ != CUPTI_SUCCESS) {                                      \
            cml_cupti_explain_call(err, errlen, #name, r_);             \
            goto fail;                                                  \
        }                                                               \
    } while (0)

/* Whether a SASS metric is one the trace wants beside the model's figures:
 * the warp instructions executed (all, and per space and operation), and
 * every sector, wavefront and bank-conflict count (H100, CUDA 13: 79 SASS
 * metrics, most of them instruction counts by kind). */
static int wanted(const char *name)
{
    static const char *const exact[] = {
        "smsp__sass_inst_executed",          "smsp__sass_inst_executed_op_global_ld",
        "smsp__sass_inst_executed_op_global_st", "smsp__sass_inst_executed_op_shared_ld",
        "smsp__sass_inst_executed_op_shared_st", "smsp__sass_inst_executed_op_local_ld",
        "smsp__sass_inst_executed_op_local_st"};
    static const char *const parts[] = {"sectors_mem_", "wavefronts_mem_shared", "bank_conflicts"};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(name, exact[i]))
            return 1;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strstr(name, parts[i]))
            return 1;
    return 0;
}

/* The configuration set on the device for one launch; unset at its end. */
static int set_config(CUdevice dev, char *err, size_t errlen)
{
    CUpti_SassMetrics_Config configs[MAX_SASS_METRICS];
    for (size_t m = 0; m < cfg.n; m++) {
        configs[m].metricId = cfg.ids[m];
        configs[m].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    }
    CUpti_SassMetricsSetConfig_Params set = {
        .structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    set.numOfMetricConfig = cfg.n;
    set.pConfigs = configs;
    set.deviceIndex = (uint32_t)dev;
    CALL(cuptiSassMetricsSetConfig, &set);
    return 0;
fail:
    return -1;
}

static void unset_config(CUdevice dev)
{
    CUpti_SassMetricsUnsetConfig_Params unset = {
        .structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    unset.deviceIndex = (uint32_t)dev;
    (void)fn.cuptiSassMetricsUnsetConfig(&unset);
}

/* The metrics to count on dev, chosen once. */
static int configure(CUdevice dev, char *err, size_t errlen)
{
    CUpti_SassMetrics_MetricDetails *all = NULL;
    if (cfg.have && cfg.dev == dev)
        return 0;
    if (cfg.have) {
        snprintf(err, errlen, "a second device: per-instruction counters are read on one");
        return -1;
    }
    CUpti_Device_GetChipName_Params chip = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)dev;
    CUptiResult r = cml_cupti.cuptiDeviceGetChipName(&chip);
    if (r != CUPTI_SUCCESS) {
        cml_cupti_explain_call(err, errlen, "cuptiDeviceGetChipName", r);
        return -1;
    }
    CUpti_SassMetrics_GetNumOfMetrics_Params num = {
        .structSize = CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
    num.pChipName = chip.pChipName;
    CALL(cuptiSassMetricsGetNumOfMetrics, &num);
    all = calloc(num.numOfMetrics ? num.numOfMetrics : 1, sizeof *all);
    if (!all) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    CUpti_SassMetrics_GetMetrics_Params get = {
        .structSize = CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
    get.pChipName = chip.pChipName;
    get.pMetricsList = all;
    get.numOfMetrics = num.numOfMetrics;
    CALL(cuptiSassMetricsGetMetrics, &get);
    for (size_t i = 0; i < num.numOfMetrics; i++) {
        cml_inj_step("SASS metric", all[i].pMetricName);
        if (!all[i].pMetricName || !wanted(all[i].pMetricName) || cfg.n == MAX_SASS_METRICS)
            continue;
        char *copy = malloc(strlen(all[i].pMetricName) + 1u);
        if (!copy)
            break;
        strcpy(copy, all[i].pMetricName);
        cfg.names[cfg.n] = copy;
        cfg.ids[cfg.n] = all[i].metricId;
        cfg.n++;
    }
    if (cfg.n == 0) {
        snprintf(err, errlen, "the chip's %zu SASS metrics count no memory instruction",
                 num.numOfMetrics);
        goto fail;
    }
    cfg.have = 1;
    cfg.dev = dev;
    free(all);
    return 0;
fail:
    free(all);
    return -1;
}

static int take(CUcontext ctx, const char *kernel, cml_tf_pc_counters *out, char *err,
                size_t errlen);

static void disable(CUcontext ctx)
{
    CUpti_SassMetricsDisable_Params dis = {
        .structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dis.ctx = ctx;
    (void)fn.cuptiSassMetricsDisable(&dis);
}

int cml_sass_begin(CUcontext ctx, CUdevice dev, CUfunction f, char *err, size_t errlen)
{
    if (!fn.tried) {
        fn.tried = 1;
        int ok = cml_cupti.lib != NULL;
        SASS_FUNCS(LOOKUP)
        fn.ok = ok;
    }
    if (!fn.ok) {
        snprintf(err, errlen, "libcupti has no SASS metrics API (CUDA 12.4 or newer needed)");
        return -1;
    }
    if (configure(dev, err, errlen) != 0 || set_config(dev, err, errlen) != 0)
        return -1;
    /* Configured, enabled, disabled and unset around each launch: a
     * configuration kept from one launch to the next counted nothing for
     * the second kernel on the H100 (CUDA 13, trace_program's gather after
     * scale), whether enabled once or around each launch, lazily or not.
     * The launch's function loaded first (CUDA loads code at its first
     * launch), then collection enabled with every loaded function patched
     * at once, and disabled at the launch's end. Patching lazily (at a
     * function's first execution) counted nothing for the second kernel of
     * a module on the H100 (CUDA 13, trace_program's gather after scale),
     * enabled around each launch or once for the run; patching at once
     * without loading first counted nothing for a kernel whose module was
     * not loaded yet. */
    if (f && cuFuncLoad(f) != CUDA_SUCCESS) {
        /* The runtime launches a CUkernel (a context-free handle) where the
         * driver's parameter says CUfunction: its function in this context
         * is loaded by asking for it. */
        CUfunction in_ctx = NULL;
        if (cuKernelGetFunction(&in_ctx, (CUkernel)(void *)f) != CUDA_SUCCESS || !in_ctx ||
            cuFuncLoad(in_ctx) != CUDA_SUCCESS) {
            snprintf(err, errlen, "cannot load the launch's function (cuFuncLoad, "
                                  "cuKernelGetFunction)");
            unset_config(dev);
            return -1;
        }
    }
    CUpti_SassMetricsEnable_Params en = {.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    en.enableLazyPatching = 0;
    CUptiResult er = fn.cuptiSassMetricsEnable(&en);
    if (er != CUPTI_SUCCESS) {
        cml_cupti_explain_call(err, errlen, "cuptiSassMetricsEnable", er);
        unset_config(dev);
        return -1;
    }
    cfg.dev_now = dev;
    /* Nothing of another launch is kept (none ran since the enable). */
    cml_tf_pc_counters none;
    if (take(ctx, NULL, &none, err, errlen) != 0) {
        disable(ctx);
        unset_config(dev);
        return -1;
    }
    cml_sass_free(&none);
    return 0;
}

void cml_sass_free(cml_tf_pc_counters *s)
{
    free(s->pcs);
    free(s->values);
    s->pcs = NULL;
    s->values = NULL;
}

/* The row of pc in the table being built (rows kept ascending); SIZE_MAX
 * when out of memory. */
static size_t row_of(cml_tf_pc_counters *s, size_t *cap, uint32_t pc)
{
    size_t lo = cml_tf_pc_lower_bound(s->pcs, s->npcs, pc);
    if (lo < s->npcs && s->pcs[lo] == pc)
        return lo;
    if (s->npcs == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        uint32_t *p = realloc(s->pcs, c * sizeof *p);
        if (p)
            s->pcs = p;
        uint64_t *v = realloc(s->values, c * cfg.n * sizeof *v);
        if (v)
            s->values = v;
        if (!p || !v)
            return SIZE_MAX;
        *cap = c;
    }
    memmove(s->pcs + lo + 1, s->pcs + lo, (s->npcs - lo) * sizeof *s->pcs);
    memmove(s->values + (lo + 1) * cfg.n, s->values + lo * cfg.n,
            (s->npcs - lo) * cfg.n * sizeof *s->values);
    s->pcs[lo] = pc;
    memset(s->values + lo * cfg.n, 0, cfg.n * sizeof *s->values);
    s->npcs++;
    return lo;
}

/* Wait for the context's work, flush the records CUPTI holds, and keep
 * those of `kernel`'s own instructions in *out (NULL: keep none). */
static int take(CUcontext ctx, const char *kernel, cml_tf_pc_counters *out, char *err,
                size_t errlen)
{
    CUpti_SassMetrics_Data *data = NULL;
    size_t nrec = 0, cap = 0;
    memset(out, 0, sizeof *out);
    out->nmetrics = cfg.n;
    out->metrics = (const char **)cfg.names;
    CUresult cr = cuCtxSynchronize();
    if (cr != CUDA_SUCCESS) {
        const char *s = NULL;
        cuGetErrorString(cr, &s);
        snprintf(err, errlen, "the launch failed: %s", s ? s : "unknown CUDA error");
        goto fail;
    }
    CUpti_SassMetricsGetDataProperties_Params props = {
        .structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    props.ctx = ctx;
    CALL(cuptiSassMetricsGetDataProperties, &props);
    nrec = props.numOfPatchedInstructionRecords;
    if (nrec && props.numOfInstances) {
        data = calloc(nrec, sizeof *data);
        if (!data) {
            snprintf(err, errlen, "out of host memory");
            goto fail;
        }
        for (size_t i = 0; i < nrec; i++) {
            /* what cupti_sass_metrics.h says this field holds */
            data[i].structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
            data[i].pInstanceValues = calloc(props.numOfInstances, sizeof *data[i].pInstanceValues);
            if (!data[i].pInstanceValues) {
                nrec = i; /* what fail frees */
                snprintf(err, errlen, "out of host memory");
                goto fail;
            }
        }
        CUpti_SassMetricsFlushData_Params flush = {
            .structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
        flush.ctx = ctx;
        flush.numOfPatchedInstructionRecords = nrec;
        flush.numOfInstances = props.numOfInstances;
        flush.pMetricsData = data;
        CALL(cuptiSassMetricsFlushData, &flush);
        /* Every instance of every record of the kernel's own code, summed
         * per (pc, metric); code of functions it calls is left out. */
        for (size_t i = 0; i < nrec; i++) {
            if (cml_inj_verbose)
                fprintf(stderr, "cumemlab trace: [step] SASS record of %s +0x%x (%s)\n",
                        data[i].functionName ? data[i].functionName : "?", data[i].pcOffset,
                        kernel ? kernel : "flushed away");
            if (!kernel || !data[i].functionName || strcmp(data[i].functionName, kernel) != 0)
                continue;
            size_t row = row_of(out, &cap, data[i].pcOffset);
            if (row == SIZE_MAX) {
                snprintf(err, errlen, "out of host memory");
                goto fail;
            }
            for (size_t k = 0; k < props.numOfInstances; k++)
                for (size_t m = 0; m < cfg.n; m++)
                    if (data[i].pInstanceValues[k].metricId == cfg.ids[m])
                        out->values[row * cfg.n + m] += data[i].pInstanceValues[k].value;
        }
    }
    for (size_t i = 0; data && i < nrec; i++) {
        free((void *)data[i].functionName);
        free(data[i].pInstanceValues);
    }
    free(data);
    return 0;
fail:
    for (size_t i = 0; data && i < nrec; i++) {
        free((void *)data[i].functionName);
        free(data[i].pInstanceValues);
    }
    free(data);
    cml_sass_free(out);
    out->npcs = 0;
    return -1;
}

int cml_sass_end(CUcontext ctx, const char *kernel, cml_tf_pc_counters *out, char *err,
                 size_t errlen)
{
    int rc = take(ctx, kernel, out, err, errlen);
    disable(ctx);
    unset_config(cfg.dev_now);
    return rc;
}
