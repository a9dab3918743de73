/*
 * Status codes of cumemlab's GPU layer, outside the model's API.
 *
 * The model's API (include/cumemlab/status.h) never needs a GPU, so it
 * has no code for one. The harness (src/gpu), the counters, the experiments
 * and the command line do: their codes take values from the range status.h
 * reserves for programs built on the model (64 .. 127), so they travel in
 * a cml_status like any other and cml_status_str() names them.
 *
 * They live with the model because the model's cml_status_str() names
 * them (src/model/status.c): the model includes nothing above it. Not
 * installed: a program using libcumemlab-model alone never sees these.
 */
#ifndef CML_MODEL_STATUS_GPU_H
#define CML_MODEL_STATUS_GPU_H

#include "cumemlab/status.h"

#define CML_ENOGPU ((cml_status)64)  /* no usable CUDA device (or a build without CUDA) */
#define CML_ECUDA ((cml_status)65)   /* a CUDA call or launch failed */
#define CML_EVERIFY ((cml_status)66) /* a kernel's output did not match the host reference */

#endif
