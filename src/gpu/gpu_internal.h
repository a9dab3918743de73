/* Internal to the harness and the .cu launchers. */
#ifndef CML_GPU_INTERNAL_H
#define CML_GPU_INTERNAL_H

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check a CUDA runtime call; on failure remember the message and return
 * CML_ECUDA from the enclosing function. */
#define CML_CU(call)                                                                     \
    do {                                                                                 \
        cml_status cml_st_ = cml_gpu_check((int)(call), #call, __FILE__, __LINE__);      \
        if (cml_st_ != CML_OK)                                                           \
            return cml_st_;                                                              \
    } while (0)

/* Check the launch just made (configuration errors show up here). */
#define CML_CU_LAUNCH() CML_CU(cudaGetLastError())

/* The message of the last failed check, in any thread of this process. */
const char *cml_gpu_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
