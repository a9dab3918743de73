/* The stream hold of the timing harness (gpu.c, time_batch): one thread
 * spins on a flag in mapped host memory until the host has queued a timed
 * sample's launches and sets it, so that the sample's start event and its
 * launches run back to back on the GPU and a pause of the host thread (a
 * preempted vCPU, a page fault) cannot open a gap inside the timed region.
 * After timeout_ns it gives up and says so in *timed_out: the host then
 * times the rest of that measurement without the hold. The same device
 * technique as nvbench's blocking kernel. */
#include <cuda_runtime.h>

#include "gpu/gpu_internal.h"

__global__ void cml_hold_kernel(const volatile int *release, volatile int *timed_out,
                                unsigned long long timeout_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (;;) {
        if (*release)
            return;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) {
            *timed_out = 1;
            return;
        }
        __nanosleep(1000);
    }
}

extern "C" cml_status cml_gpu_launch_hold(const int *release, int *timed_out,
                                          unsigned long long timeout_ns)
{
    cml_hold_kernel<<<1, 1>>>(release, timed_out, timeout_ns);
    CML_CU_LAUNCH();
    return CML_OK;
}
