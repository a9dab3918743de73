/* Names of status codes, for messages: the model's own (status.h) and the
 * GPU layer's, which take values status.h reserves (status_gpu.h). */
#include "cumemlab/status.h"

#include "model/status_gpu.h"

const char *cml_status_str(cml_status s)
{
    switch (s) {
    case CML_OK: return "ok";
    case CML_EINVAL: return "invalid argument";
    case CML_EMISALIGNED: return "misaligned address";
    case CML_ENOMEM: return "out of host memory";
    case CML_EIO: return "I/O error";
    case CML_EUNSUPPORTED: return "not supported here";
    case CML_STATUS_RESERVED_LAST: break;
    }
    /* Compared as integers: the GPU layer's codes are not enumerators. */
    if (s == CML_ENOGPU)
        return "no usable GPU";
    if (s == CML_ECUDA)
        return "CUDA error";
    if (s == CML_EVERIFY)
        return "verification failed";
    return "unknown status";
}
