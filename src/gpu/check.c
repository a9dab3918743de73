/* The one place CUDA errors become messages (BabelStream's CU() idea):
 * file, line, the failing expression and CUDA's own error string. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "gpu/gpu_internal.h"

static char last_error[512];

cml_status cml_gpu_check(int cuda_error, const char *expr, const char *file, int line)
{
    if (cuda_error == cudaSuccess)
        return CML_OK;
    snprintf(last_error, sizeof last_error, "%s failed at %s:%d: %s (%s)", expr, file, line,
             cudaGetErrorString((cudaError_t)cuda_error), cudaGetErrorName((cudaError_t)cuda_error));
    return CML_ECUDA;
}

const char *cml_gpu_last_error(void)
{
    return last_error;
}
