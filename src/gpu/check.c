/* The one place CUDA errors become messages (BabelStream's CU() idea):
 * file, line, the failing expression and CUDA's own error string. */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdio.h>

#include "gpu/gpu_internal.h"

/* Per thread: a message must describe the call that failed in this thread. */
static _Thread_local char last_error[640];

/* Errors after which the CUDA context is gone: a kernel faulted, and every
 * later call in this process fails with the same code. They often surface
 * at a later synchronising call (cudaEventSynchronize, cudaMemcpy), so the
 * message says what really happened rather than only blaming that call. */
static int is_kernel_fault(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
        return 1;
    default:
        return 0;
    }
}

cml_status cml_gpu_check(int cuda_error, const char *expr, const char *file, int line)
{
    if (cuda_error == cudaSuccess)
        return CML_OK;
    cudaError_t e = (cudaError_t)cuda_error;
    snprintf(last_error, sizeof last_error, "%s failed at %s:%d: %s (%s)%s", expr, file, line,
             cudaGetErrorString(e), cudaGetErrorName(e),
             is_kernel_fault(e) ? "; a kernel faulted, so the CUDA context of this process is "
                                  "lost and later GPU work in it will fail"
                                : "");
    return CML_ECUDA;
}

const char *cml_gpu_last_error(void)
{
    return last_error;
}

void cml_gpu_set_last_error_v(const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
}

void cml_gpu_clear_last_error(void)
{
    last_error[0] = '\0';
}
