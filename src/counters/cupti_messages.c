/* One line per failed CUPTI call (cupti_messages.h). */
#include "counters/cupti_messages.h"

#include <stdio.h>

void cml_cupti_explain(char *buf, size_t len, const char *call, int result,
                       const char *result_name, const char *holder)
{
    if (!buf || len == 0)
        return;
    const char *name = result_name && *result_name ? result_name : "unknown CUPTI error";
    if (!call || !*call)
        call = "CUPTI";
    switch (result) {
    case CML_CUPTI_HARDWARE_BUSY:
        /* The GPU is there and works; its performance counters are held by
         * another profiling session (Nsight Compute, a DCGM profiling
         * module, another cumemlab with --counters), one at a time. */
        snprintf(buf, len,
                 "the GPU's performance counters are taken: another process is profiling this "
                 "GPU (%s%s; %s: %s); run again when it ends, or without counters: "
                 "--counters off",
                 holder && *holder ? "held by " : "the driver does not say which",
                 holder && *holder ? holder : "", call, name);
        return;
    case CML_CUPTI_INSUFFICIENT_PRIVILEGES:
    case CML_CUPTI_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        snprintf(buf, len,
                 "no permission to read GPU performance counters (ERR_NVGPUCTRPERM; %s): run "
                 "as root or load the driver with NVreg_RestrictProfilingToAdminUsers=0",
                 call);
        return;
    case CML_CUPTI_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CML_CUPTI_OLD_PROFILER_API_INITIALIZED:
        snprintf(buf, len,
                 "another profiler is attached to this process (Nsight Compute, Nsight "
                 "Systems, compute-sanitizer or another CUPTI client; %s: %s)",
                 call, name);
        return;
    case CML_CUPTI_NOT_SUPPORTED:
    case CML_CUPTI_NOT_COMPATIBLE:
    case CML_CUPTI_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CML_CUPTI_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CML_CUPTI_CMP_DEVICE_NOT_SUPPORTED:
        snprintf(buf, len, "the profiler does not support this device or setup (%s: %s)", call,
                 name);
        return;
    default:
        snprintf(buf, len, "%s failed: %s", call, name);
        return;
    }
}
