/*
 * What a failed CUPTI call means, in one line a user can act on: pure C,
 * no CUPTI header, so that the wording is tested on any machine
 * (tests/test_counters.c). counters.c passes each failure here.
 *
 * The codes are CUPTI's own (cupti_result.h); counters.c checks at compile
 * time that every one below equals its CUPTI_ERROR_* namesake.
 */
#ifndef CML_CUPTI_MESSAGES_H
#define CML_CUPTI_MESSAGES_H

#include <stddef.h>

enum {
    CML_CUPTI_NOT_COMPATIBLE = 14,
    CML_CUPTI_HARDWARE_BUSY = 26,
    CML_CUPTI_NOT_SUPPORTED = 27,
    CML_CUPTI_VIRTUALIZED_DEVICE_NOT_SUPPORTED = 33,
    CML_CUPTI_INSUFFICIENT_PRIVILEGES = 35,
    CML_CUPTI_OLD_PROFILER_API_INITIALIZED = 36,
    CML_CUPTI_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39,
    CML_CUPTI_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES = 40,
    CML_CUPTI_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED = 41,
    CML_CUPTI_CMP_DEVICE_NOT_SUPPORTED = 42
};

/*
 * One line into buf for CUPTI call `call` that returned `result`, whose
 * name (cuptiGetResultString) is `result_name` (NULL: unknown). The common
 * causes are said plainly, each with what to do:
 *   - the counters taken (CUPTI_ERROR_HARDWARE_BUSY): another process is
 *     profiling this GPU — named when `holder` says who (NULL: the driver
 *     did not say) — run again when it ends, or with --counters off;
 *   - no permission (ERR_NVGPUCTRPERM), another profiler in this process,
 *     a device or setup the profiler does not support;
 * anything else as "CALL failed: NAME".
 */
void cml_cupti_explain(char *buf, size_t len, const char *call, int result,
                       const char *result_name, const char *holder);

#endif
