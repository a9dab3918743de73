/*
 * A mirror's launch recorded as a trace (trace_file.h): the lab's own
 * kernels' accesses, as the tracer assembles them, written as the injection
 * library writes a real kernel's. What the lab knows exactly of its own
 * kernels is then what a trace of them must give (tests/test_trace_model.c,
 * and the committed traces of tests/data/trace/ it writes).
 */
#ifndef CML_TRACE_MIRROR_H
#define CML_TRACE_MIRROR_H

#include "cumemlab/model.h"
#include "trace/trace_file.h"

/*
 * Record fn over grid x block as launch `launch` of function `func` (a
 * FUNC chunk written before) into w: every warp, every instruction, each
 * at pc site_pc[site] (the SASS offset of that instruction in a compiled
 * kernel), or with site_pc NULL at 16 * site (a site is one instruction of
 * the kernel's code, and SASS instructions are 16 bytes). `smem`: the
 * kernel's shared memory per block. Constant-memory instructions are not
 * recorded (the Compute Sanitizer API does not report them). CML_EINVAL
 * for a launch the tracer refuses, CML_ENOMEM, CML_EIO when the writer
 * fails.
 */
cml_status cml_tf_write_mirror(cml_tf_writer *w, uint32_t func, uint64_t launch, cml_dim3 grid,
                               cml_dim3 block, uint64_t smem, cml_thread_fn fn,
                               const void *args, const uint32_t *site_pc);

#endif
