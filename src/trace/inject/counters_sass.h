/*
 * The per-instruction counters of a chosen launch, for the counters
 * library's third run (counters_inject.c, CML_COUNTERS_MODE=sass): CUPTI's
 * SASS metrics API patches the launch's code to count at each instruction
 * (how many times a warp executed it, the sectors it asked for, ...).
 * Patching changes the code the range profiler would count, so this runs
 * in a run of its own. Only built with CUPTI.
 */
#ifndef CML_COUNTERS_SASS_H
#define CML_COUNTERS_SASS_H

#include <cuda.h>
#include <stddef.h>

#include "trace/trace_file.h"

/* Entering the chosen launch of function f: the device's SASS metrics
 * configured (once per device: the instruction counts per space and
 * operation, and every sector, wavefront and bank-conflict count of the
 * chip), f loaded and collection enabled on ctx, every loaded function
 * patched. 0, or -1 with one line in err. */
int cml_sass_begin(CUcontext ctx, CUdevice dev, CUfunction f, char *err, size_t errlen);

/* Leaving it: wait for it, take the values of `kernel`'s own instructions
 * into *out (pcs ascending; free with cml_sass_free), disable collection.
 * 0, or -1 with one line in err. */
int cml_sass_end(CUcontext ctx, const char *kernel, cml_tf_pc_counters *out, char *err,
                 size_t errlen);
void cml_sass_free(cml_tf_pc_counters *s);

#endif
