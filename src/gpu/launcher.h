/*
 * CML_LAUNCHER: marks the declaration of a function that only a build with
 * CUDA compiles, and that C code calls: the extern "C" launchers, checkers
 * and __global__ getters that CUDA code defines (an experiment's, declared
 * in its NAME_body.h, or in the old form's NAME_kernels.h: src/experiments/
 * NAME/; the harness's own kernels in gpu_internal.h, the
 * counters' CUDA side, the probes), and the functions of a src/gpu .c file
 * that includes a CUDA header and has no stand-in in gpu_none.c (module.h).
 *
 * With CUDA (the normal build) it is empty: an ordinary declaration.
 *
 * Without CUDA (cmake -DCUMEMLAB_CUDA=OFF, or no nvcc: CMake defines
 * CML_NO_CUDA) none of those files is compiled, so the functions do not
 * exist. The declaration becomes a weak reference: the program links, and the
 * function's address is NULL. That is safe because every such function is
 * reached only through an open GPU (a cml_gpu from cml_gpu_open), and in a
 * build without CUDA cml_gpu_open always fails (src/gpu/gpu_none.c): the
 * experiments run on the model alone and never call them. (Calling one
 * there would jump to address 0: a crash, never a wrong result. The CPU
 * tests run every experiment on the model alone, so such a call shows.)
 *
 * A function that host code calls WITHOUT a GPU (on the model-only path,
 * or on a cleanup path with NULL handles) must not carry the macro: give it
 * a definition for the build without CUDA instead, in gpu_none.c (the
 * harness) or the experiment's NAME_none.c beside its .cu (e.g. the kernel
 * names the local experiment looks up in ptxas's table: local_none.c). An
 * unmarked function without one fails the link of that build, so none is
 * forgotten silently.
 */
#ifndef CML_GPU_LAUNCHER_H
#define CML_GPU_LAUNCHER_H

#if defined(CML_NO_CUDA) && !defined(__CUDACC__)
#define CML_LAUNCHER __attribute__((weak))
#else
#define CML_LAUNCHER
#endif

#endif
