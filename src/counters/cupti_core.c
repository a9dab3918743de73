/*
 * CUPTI's range profiler, the shared parts (cupti_core.h). Without CUPTI at
 * configure time (CML_HAVE_CUPTI undefined) this file is empty: its users
 * are the stub's (counters_stub.c) or not built.
 */
#if defined(CML_HAVE_CUPTI)

#include "counters/cupti_core.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/cupti_messages.h"

cml_cupti_lib cml_cupti;

/* dlsym's void * into a function pointer: POSIX guarantees the
 * representation; memcpy keeps ISO C (and -Wpedantic) out of it. */
static int lookup(const char *name, void *slot, size_t size)
{
    void *sym = dlsym(cml_cupti.lib, name);
    if (!sym) {
        snprintf(cml_cupti.why, sizeof cml_cupti.why,
                 "libcupti has no %s (CUPTI older than CUDA 12.6?)", name);
        return 0;
    }
    memcpy(slot, &sym, size);
    return 1;
}

#define CML_FN_LOOKUP(name, params)                                    \
    if (ok)                                                            \
        ok = lookup(#name, (void *)&cml_cupti.name, sizeof cml_cupti.name);

int cml_cupti_load(void)
{
    if (cml_cupti.tried)
        return cml_cupti.lib != NULL;
    cml_cupti.tried = 1;
    const char *env = getenv("CML_CUPTI_LIBRARY");
    const char *candidates[4];
    size_t nc = 0;
    if (env && *env) {
        candidates[nc++] = env;
    } else {
#ifdef CML_CUPTI_LIBRARY
        candidates[nc++] = CML_CUPTI_LIBRARY;
#endif
        candidates[nc++] = "libcupti.so.13";
        candidates[nc++] = "libcupti.so";
    }
    char first_err[256] = "";
    for (size_t i = 0; i < nc && !cml_cupti.lib; i++) {
        cml_cupti.lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (!cml_cupti.lib && !first_err[0]) {
            const char *e = dlerror();
            snprintf(first_err, sizeof first_err, "%s", e ? e : candidates[i]);
        }
    }
    if (!cml_cupti.lib) {
        snprintf(cml_cupti.why, sizeof cml_cupti.why, "libcupti not found (%s)", first_err);
        return 0;
    }
    int ok = lookup("cuptiGetResultString", (void *)&cml_cupti.cuptiGetResultString,
                    sizeof cml_cupti.cuptiGetResultString);
    CML_CUPTI_FUNCS(CML_FN_LOOKUP)
    if (!ok) {
        dlclose(cml_cupti.lib);
        cml_cupti.lib = NULL;
    }
    return ok;
}

int cml_cupti_acquire(char *why, size_t whylen)
{
    if (!cml_cupti_load()) {
        snprintf(why, whylen, "%s", cml_cupti.why);
        return -1;
    }
    if (!cml_cupti.initialized) {
        CUpti_Profiler_Initialize_Params p = {
            .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CUptiResult r = cml_cupti.cuptiProfilerInitialize(&p);
        if (r != CUPTI_SUCCESS) {
            cml_cupti_explain_call(why, whylen, "cuptiProfilerInitialize", r);
            return -1;
        }
        cml_cupti.initialized = 1;
    }
    cml_cupti.users++;
    return 0;
}

void cml_cupti_release(void)
{
    if (cml_cupti.users > 0 && --cml_cupti.users == 0 && cml_cupti.initialized) {
        CUpti_Profiler_DeInitialize_Params p = {
            .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        (void)cml_cupti.cuptiProfilerDeInitialize(&p);
        cml_cupti.initialized = 0;
    }
}

const char *cml_cupti_result(CUptiResult r)
{
    const char *s = NULL;
    if (cml_cupti.cuptiGetResultString && cml_cupti.cuptiGetResultString(r, &s) == CUPTI_SUCCESS &&
        s)
        return s;
    return "unknown CUPTI error";
}

/* The codes cupti_messages.h explains are CUPTI's own (compared as ints:
 * two enumerations). */
#define SAME(code) ((int)CML_CUPTI_##code == (int)CUPTI_ERROR_##code)
_Static_assert(
               SAME(NOT_COMPATIBLE) &&
               SAME(HARDWARE_BUSY) &&
               SAME(NOT_SUPPORTED) &&
               SAME(VIRTUALIZED_DEVICE_NOT_SUPPORTED) &&
               SAME(INSUFFICIENT_PRIVILEGES) &&
               SAME(OLD_PROFILER_API_INITIALIZED) &&
               SAME(MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) &&
               SAME(VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES) &&
               SAME(CONFIDENTIAL_COMPUTING_NOT_SUPPORTED) &&
               SAME(CMP_DEVICE_NOT_SUPPORTED),
               "cupti_messages.h: a code differs from cupti_result.h");
#undef SAME

/* The driver does not say which process holds busy counters: no holder. */
void cml_cupti_explain_call(char *buf, size_t len, const char *call, CUptiResult r)
{
    cml_cupti_explain(buf, len, call, (int)r, cml_cupti_result(r), NULL);
}

#define CALL(fn, p, label)                                              \
    do {                                                                \
        CUptiResult r_ = cml_cupti.fn(p);                               \
        if (r_ != CUPTI_SUCCESS) {                                      \
            cml_cupti_explain_call(err, errlen, #fn, r_);               \
            goto label;                                                 \
        }                                                               \
    } while (0)

int cml_cupti_target_facts(int cu_device, int device_index, CUcontext ctx, cml_cupti_target *t,
                           char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    CUpti_Profiler_DeviceSupported_Params sup = {
        .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    sup.cuDevice = (CUdevice)cu_device;
    sup.api = CUPTI_PROFILER_RANGE_PROFILING;
    CALL(cuptiProfilerDeviceSupported, &sup, fail);
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        const char *what = sup.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                               ? "its architecture (compute capability 7.5 or newer needed)"
                           : sup.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED
                               ? "a vGPU with profiling disabled"
                           : sup.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "a vGPU"
                           : sup.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                               ? "confidential computing"
                           : sup.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                               ? "a crypto-mining (CMP) device"
                           : sup.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "SLI"
                           : sup.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "WSL"
                                                                               : "this setup";
        snprintf(err, errlen, "the profiler does not support this device: %s", what);
        return -1;
    }
    CUpti_Device_GetChipName_Params chip = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)device_index;
    CALL(cuptiDeviceGetChipName, &chip, fail);
    snprintf(t->chip, sizeof t->chip, "%s", chip.pChipName ? chip.pChipName : "");
    CUpti_Profiler_GetCounterAvailability_Params av = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    av.ctx = ctx;
    CALL(cuptiProfilerGetCounterAvailability, &av, fail);
    t->avail_size = av.counterAvailabilityImageSize;
    t->avail = calloc(t->avail_size ? t->avail_size : 1, 1);
    if (!t->avail) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    av.pCounterAvailabilityImage = t->avail;
    CALL(cuptiProfilerGetCounterAvailability, &av, fail);
    return 0;
fail:
    free(t->avail);
    t->avail = NULL;
    return -1;
}

static void host_free(CUpti_Profiler_Host_Object *h)
{
    if (!h)
        return;
    CUpti_Profiler_Host_Deinitialize_Params p = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = h;
    (void)cml_cupti.cuptiProfilerHostDeinitialize(&p);
}

static int host_new(const cml_cupti_target *t, CUpti_Profiler_Host_Object **out, char *err,
                    size_t errlen)
{
    CUpti_Profiler_Host_Initialize_Params p = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = t->chip;
    p.pCounterAvailabilityImage = t->avail;
    CALL(cuptiProfilerHostInitialize, &p, fail);
    *out = p.pHostObject;
    return 0;
fail:
    return -1;
}

void cml_cupti_config_free(cml_cupti_config *f)
{
    host_free(f->host);
    for (size_t i = 0; f->names && i < f->n; i++)
        free(f->names[i]);
    free(f->names);
    free(f->image);
    memset(f, 0, sizeof *f);
}

int cml_cupti_config_build(const cml_cupti_target *t, cml_cupti_config *f, const char *const *names,
                           size_t n, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->names = calloc(n ? n : 1, sizeof *f->names);
    if (!f->names)
        goto nomem;
    f->n = n;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]) + 1;
        f->names[i] = malloc(len);
        if (!f->names[i])
            goto nomem;
        memcpy(f->names[i], names[i], len);
    }
    if (host_new(t, &f->host, err, errlen) != 0)
        goto fail;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = f->host;
    add.ppMetricNames = (const char **)f->names;
    add.numMetrics = n;
    CALL(cuptiProfilerHostConfigAddMetrics, &add, fail);
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sz.pHostObject = f->host;
    CALL(cuptiProfilerHostGetConfigImageSize, &sz, fail);
    f->image_size = sz.configImageSize;
    f->image = malloc(f->image_size ? f->image_size : 1);
    if (!f->image)
        goto nomem;
    CUpti_Profiler_Host_GetConfigImage_Params img = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    img.pHostObject = f->host;
    img.configImageSize = f->image_size;
    img.pConfigImage = f->image;
    CALL(cuptiProfilerHostGetConfigImage, &img, fail);
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = f->image_size;
    np.pConfigImage = f->image;
    CALL(cuptiProfilerHostGetNumOfPasses, &np, fail);
    f->passes = np.numOfPasses;
    return 0;
nomem:
    snprintf(err, errlen, "out of host memory");
fail:
    cml_cupti_config_free(f);
    return -1;
}

int cml_cupti_metric_ok(const cml_cupti_target *t, const char *metric, char *why, size_t whylen)
{
    /* A host object of its own: the name must exist for this chip AND be
     * schedulable by the range profiler (SASS-patched metrics are not, on
     * some versions), which only adding it to a configuration tells. */
    CUpti_Profiler_Host_Object *h = NULL;
    if (host_new(t, &h, why, whylen) != 0)
        return 0;
    const char *names[1] = {metric};
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = h;
    add.ppMetricNames = names;
    add.numMetrics = 1;
    CUptiResult r = cml_cupti.cuptiProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS)
        snprintf(why, whylen, "%s: %s", r == CUPTI_ERROR_INVALID_METRIC_NAME
                                            ? "not a metric of this chip or not collectable by "
                                              "the range profiler"
                                            : "rejected",
                 cml_cupti_result(r));
    host_free(h);
    return r == CUPTI_SUCCESS;
}

int cml_cupti_data_alloc(CUpti_RangeProfiler_Object *obj, const cml_cupti_config *f, size_t ranges,
                         uint8_t **data, size_t *size, char *err, size_t errlen)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params sz = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    sz.pRangeProfilerObject = obj;
    sz.pMetricNames = (const char **)f->names;
    sz.numMetrics = f->n;
    sz.maxNumOfRanges = ranges;
    sz.maxNumRangeTreeNodes = ranges;
    CALL(cuptiRangeProfilerGetCounterDataSize, &sz, fail);
    *data = calloc(sz.counterDataSize ? sz.counterDataSize : 1, 1);
    *size = sz.counterDataSize;
    if (!*data) {
        snprintf(err, errlen, "out of memory for the counter data image");
        return -1;
    }
    return 0;
fail:
    return -1;
}

int cml_cupti_data_init(CUpti_RangeProfiler_Object *obj, uint8_t *data, size_t size, char *err,
                        size_t errlen)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pRangeProfilerObject = obj;
    init.counterDataSize = size;
    init.pCounterData = data;
    CALL(cuptiRangeProfilerCounterDataImageInitialize, &init, fail);
    return 0;
fail:
    return -1;
}

int cml_cupti_set_config(CUpti_RangeProfiler_Object *obj, const cml_cupti_config *f, uint8_t *data,
                         size_t size, CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay,
                         size_t ranges, char *err, size_t errlen)
{
    CUpti_RangeProfiler_SetConfig_Params cfg = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    cfg.pRangeProfilerObject = obj;
    cfg.configSize = f->image_size;
    cfg.pConfig = f->image;
    cfg.counterDataImageSize = size;
    cfg.pCounterDataImage = data;
    cfg.range = range;
    cfg.replayMode = replay;
    cfg.maxRangesPerPass = ranges;
    cfg.numNestingLevels = 1;
    cfg.minNestingLevel = 1;
    cfg.passIndex = 0;
    cfg.targetNestingLevel = 1;
    CALL(cuptiRangeProfilerSetConfig, &cfg, fail);
    return 0;
fail:
    return -1;
}

int cml_cupti_decode(CUpti_RangeProfiler_Object *obj, const cml_cupti_config *f, uint8_t *data,
                     size_t size, size_t ranges, double *values, char *err, size_t errlen)
{
    CUpti_RangeProfiler_DecodeData_Params dec = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dec.pRangeProfilerObject = obj;
    CALL(cuptiRangeProfilerDecodeData, &dec, fail);
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = data;
    info.counterDataImageSize = size;
    CALL(cuptiRangeProfilerGetCounterDataInfo, &info, fail);
    if (info.numTotalRanges != ranges || dec.numOfRangeDropped > 0) {
        snprintf(err, errlen, "the profiler recorded %zu ranges of %zu (%zu dropped)",
                 info.numTotalRanges, ranges, dec.numOfRangeDropped);
        return -1;
    }
    for (size_t j = 0; j < ranges; j++) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = f->host;
        ev.pCounterDataImage = data;
        ev.counterDataImageSize = size;
        ev.rangeIndex = j;
        ev.ppMetricNames = (const char **)f->names;
        ev.numMetrics = f->n;
        ev.pMetricValues = values + j * f->n;
        CALL(cuptiProfilerHostEvaluateToGpuValues, &ev, fail);
    }
    return 0;
fail:
    return -1;
}

#else
/* ISO C wants a declaration in every translation unit. */
typedef int cml_cupti_core_absent;
#endif /* CML_HAVE_CUPTI */
