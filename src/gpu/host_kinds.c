/*
 * The parts of host_memory.h that need no CUDA: the names of the memory
 * kinds and the host clock. Built with and without the toolkit, so the
 * harness (host_memory.c) and its stand-in (gpu_none.c) share them.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in strict C11 */

#include <time.h>

#include "gpu/host_memory.h"

const char *cml_mem_kind_api(cml_mem_kind kind)
{
    static const char *const names[] = {"malloc", "cudaMallocHost",
                                        "cudaHostAlloc(cudaHostAllocDefault)",
                                        "cudaHostAlloc(cudaHostAllocMapped)", "cudaMalloc",
                                        "cudaMallocManaged"};
    return (kind >= 0 && kind < CML_MEM_KIND_COUNT) ? names[kind] : "?";
}

int cml_mem_kind_is_host(cml_mem_kind kind)
{
    return kind == CML_MEM_PAGEABLE || kind == CML_MEM_PINNED || kind == CML_MEM_HOSTALLOC ||
           kind == CML_MEM_MAPPED;
}

double cml_host_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
