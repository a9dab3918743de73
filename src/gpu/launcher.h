/*
 * CML_LAUNCHER: marks the declaration of a function that a .cu file
 * defines and C code calls (the extern "C" launchers, checkers and
 * __global__ getters of src/experiments/NAME_kernels.h, the harness's own
 * kernels in gpu_internal.h, the counters' CUDA side).
 *
 * With CUDA (the normal build) it is empty: an ordinary declaration.
 *
 * Without CUDA (cmake -DCUMEMLAB_CUDA=OFF, or no nvcc: CMake defines
 * CML_NO_CUDA) no .cu file is compiled, so these functions do not exist.
 * The declaration becomes a weak reference: the program links, and the
 * function's address is NULL. That is safe because every such function is
 * reached only through an open GPU (a cml_gpu from cml_gpu_open), and in a
 * build without CUDA cml_gpu_open always fails (src/gpu/gpu_none.c): the
 * experiments run on the model alone and never call them.
 *
 * A .cu function that host code calls WITHOUT a GPU (on the model-only
 * path) must not carry the macro: give it a definition for the build
 * without CUDA in src/gpu/kernels_none.c instead (e.g. the kernel names the
 * local experiment looks up in ptxas's table).
 */
#ifndef CML_GPU_LAUNCHER_H
#define CML_GPU_LAUNCHER_H

#if defined(CML_NO_CUDA) && !defined(__CUDACC__)
#define CML_LAUNCHER __attribute__((weak))
#else
#define CML_LAUNCHER
#endif

#endif
