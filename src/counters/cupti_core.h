/*
 * CUPTI's range profiler, the parts every user of it in cumemlab shares:
 * libcupti loaded once per process (dlopen, CMakeLists.txt says why), one
 * line for a failed call, the device's facts, the host-side configuration
 * of a metric list and the evaluation of a counter data image.
 *
 * Two users: counters.c (the lab's own launches, user replay, one range per
 * launch after an L2 flush) and the trace's counters library
 * (src/trace/inject/counters_inject.c: someone else's launches inside their
 * program, kernel replay). Only built with CUPTI (CML_HAVE_CUPTI).
 */
#ifndef CML_CUPTI_CORE_H
#define CML_CUPTI_CORE_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

/* Every profiler function used: name and parameter struct (all take one
 * pointer). */
#define CML_CUPTI_FUNCS(X)                                                             \
    X(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params)                      \
    X(cuptiProfilerDeInitialize, CUpti_Profiler_DeInitialize_Params)                  \
    X(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params)                        \
    X(cuptiProfilerDeviceSupported, CUpti_Profiler_DeviceSupported_Params)            \
    X(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params) \
    X(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params)             \
    X(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params)         \
    X(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params) \
    X(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params) \
    X(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params)     \
    X(cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params)     \
    X(cuptiProfilerHostGetMetricProperties, CUpti_Profiler_Host_GetMetricProperties_Params) \
    X(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params) \
    X(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params)                    \
    X(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params)                  \
    X(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params) \
    X(cuptiRangeProfilerCounterDataImageInitialize,                                   \
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params)                         \
    X(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params)              \
    X(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params)                      \
    X(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params)                        \
    X(cuptiRangeProfilerPushRange, CUpti_RangeProfiler_PushRange_Params)              \
    X(cuptiRangeProfilerPopRange, CUpti_RangeProfiler_PopRange_Params)                \
    X(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params)            \
    X(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params)

#define CML_CUPTI_FN_FIELD(name, params) CUptiResult (*name)(params *);

/* libcupti's functions, once cml_cupti_load has succeeded. */
typedef struct cml_cupti_lib {
    int tried;          /* dlopen attempted (its outcome is kept) */
    void *lib;
    char why[384];      /* why it could not be loaded */
    int initialized;    /* cuptiProfilerInitialize succeeded */
    int users;          /* open handles */
    CUptiResult (*cuptiGetResultString)(CUptiResult, const char **);
    CML_CUPTI_FUNCS(CML_CUPTI_FN_FIELD)
} cml_cupti_lib;

extern cml_cupti_lib cml_cupti;

/* Load libcupti: $CML_CUPTI_LIBRARY if set, else the library CMake found,
 * else the dynamic loader's search for the usual names. 1, or 0 with the
 * reason in cml_cupti.why. */
int cml_cupti_load(void);

/* cuptiProfilerInitialize once per process (users counted); 0 or -1 with
 * one line in why. cml_cupti_release undoes one use. */
int cml_cupti_acquire(char *why, size_t whylen);
void cml_cupti_release(void);

/* CUPTI's name for r. */
const char *cml_cupti_result(CUptiResult r);
/* One line for a failed call (cupti_messages.h words it). */
void cml_cupti_explain_call(char *buf, size_t len, const char *call, CUptiResult r);

/* What the host side needs to know of a device: the chip's name and its
 * counter availability image (malloc'd, freed by the caller). */
typedef struct cml_cupti_target {
    char chip[64];
    uint8_t *avail;
    size_t avail_size;
} cml_cupti_target;

/* Fill *t for CUDA device `cu_device` (index `device_index` among the
 * devices) with context ctx; checks the device first for a plain reason.
 * 0, or -1 with one line in err. */
int cml_cupti_target_facts(int cu_device, int device_index, CUcontext ctx, cml_cupti_target *t,
                           char *err, size_t errlen);

/* The host-side configuration of one metric list. */
typedef struct cml_cupti_config {
    size_t n;
    char **names;                   /* owned copies */
    CUpti_Profiler_Host_Object *host;
    uint8_t *image;
    size_t image_size;
    size_t passes;
} cml_cupti_config;

/* Build the configuration image for `names` (all known to be collectable
 * on t). 0, or -1 with one line in err; *f is zeroed on failure. */
int cml_cupti_config_build(const cml_cupti_target *t, cml_cupti_config *f, const char *const *names,
                           size_t n, char *err, size_t errlen);
void cml_cupti_config_free(cml_cupti_config *f);

/* 1 if `metric` can be collected on t by the range profiler, else 0 with
 * the reason in why. */
int cml_cupti_metric_ok(const cml_cupti_target *t, const char *metric, char *why, size_t whylen);

/* A counter data image for f on the enabled profiler object obj, holding
 * up to `ranges` ranges: *data (malloc'd) and *size. 0, or -1 with one
 * line in err. It still needs cml_cupti_data_init before each session. */
int cml_cupti_data_alloc(CUpti_RangeProfiler_Object *obj, const cml_cupti_config *f, size_t ranges,
                         uint8_t **data, size_t *size, char *err, size_t errlen);
int cml_cupti_data_init(CUpti_RangeProfiler_Object *obj, uint8_t *data, size_t size, char *err,
                        size_t errlen);

/* Configure the enabled profiler object obj for f with the counter data
 * image (data, size): one nesting level, `range` and `replay` as the
 * caller profiles (the lab: user range and replay; the trace's counters
 * library: auto range, kernel replay), up to `ranges` ranges a pass.
 * 0, or -1 with one line in err. */
int cml_cupti_set_config(CUpti_RangeProfiler_Object *obj, const cml_cupti_config *f, uint8_t *data,
                         size_t size, CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay,
                         size_t ranges, char *err, size_t errlen);

/* After Stop: decode, check that `ranges` ranges were recorded, and
 * evaluate range j's metrics into values[j * f->n + m] for every j.
 * 0, or -1 with one line in err. */
int cml_cupti_decode(CUpti_RangeProfiler_Object *obj, const cml_cupti_config *f, uint8_t *data,
                     size_t size, size_t ranges, double *values, char *err, size_t errlen);

#endif
