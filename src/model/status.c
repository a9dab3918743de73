/* Names of status codes, for messages. */
#include "cumemlab/model.h"

const char *cml_status_str(cml_status s)
{
    switch (s) {
    case CML_OK: return "ok";
    case CML_EINVAL: return "invalid argument";
    case CML_EMISALIGNED: return "misaligned address";
    case CML_ENOMEM: return "out of host memory";
    case CML_ENOGPU: return "no usable GPU";
    case CML_ECUDA: return "CUDA error";
    case CML_EVERIFY: return "verification failed";
    case CML_EIO: return "I/O error";
    case CML_EUNSUPPORTED: return "not supported here";
    }
    return "unknown status";
}
