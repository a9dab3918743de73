/*
 * What local_body.h's CUDA side defines that host code calls WITHOUT a
 * GPU, for a build without CUDA (the exception to gpu/launcher.h's rule:
 * every other function of that side is a weak reference there, reached
 * only through an open device). It answers as the CUDA side would when no
 * kernel was compiled. The build compiles a folder's NAME_none.c only
 * without CUDA (cmake/experiments.cmake).
 */
#include <stddef.h>

#include "experiments/local/local_body.h"

#if !defined(CML_NO_CUDA)
#error "local_none.c belongs to a build without CUDA (CML_NO_CUDA)"
#endif

/* local.c looks its kernels up in ptxas's table on the model-only path;
 * without nvcc there is neither a kernel nor a table (the local experiment
 * then says "no ptxas figures"). */
const char *cml_local_kernel_name(int pattern, int regs)
{
    (void)pattern;
    (void)regs;
    return NULL;
}
