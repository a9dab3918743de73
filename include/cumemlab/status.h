/*
 * cumemlab: status codes of the model library (libcumemlab-model).
 *
 * Every function of the public API (model.h, expr.h, expr_kernel.h)
 * returns one of these; none exits or prints. cml_status_str() gives each a
 * short constant name for messages.
 *
 * Values 64 .. 127 are reserved for the programs built on the model:
 * cumemlab's own GPU layer uses three of them (no GPU, a CUDA failure, a
 * kernel that computed wrong results), and cml_status_str() names those
 * too. The model itself never returns a reserved value.
 */
#ifndef CUMEMLAB_STATUS_H
#define CUMEMLAB_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_status {
    CML_OK = 0,
    CML_EINVAL = 1,       /* an argument is out of range or malformed */
    CML_EMISALIGNED = 2,  /* a lane address is not a multiple of the access width */
    CML_ENOMEM = 3,       /* host allocation failed */
    CML_EIO = 4,          /* a file could not be written or read */
    CML_EUNSUPPORTED = 5, /* this build or device cannot do it */
    /* Not a status: the last reserved value. It makes the type wide enough
     * to hold the codes 64 .. 127 (C++ included), and is never returned. */
    CML_STATUS_RESERVED_LAST = 127
} cml_status;

/* The first value reserved for programs built on the model. */
#define CML_STATUS_RESERVED_FIRST 64

/* A short constant string naming the status ("misaligned address", ...);
 * "unknown status" for a value that is none of them. Never NULL. */
const char *cml_status_str(cml_status s);

#ifdef __cplusplus
}
#endif
#endif
