/*
 * What CUDA says about the path between two GPUs of the host (gpu.h:
 * cml_gpu_link_between): whether one can reach the other's memory, the
 * driver's rank of the path and whether atomics work across it. The device
 * command's topology (--all) and the peer experiment ask here; NVLink
 * counts and PCIe paths come from NVML (gpu/nvml_info.h).
 */
#include <cuda_runtime_api.h>

#include "gpu/gpu_internal.h"

/* The pairs this process enabled: CUDA answers a second enable with an
 * error (cudaErrorPeerAccessAlreadyEnabled), which compute-sanitizer
 * reports as one, so each pair is enabled once. Access lasts as long as the
 * context, which the lab never destroys. */
#define MAX_GPUS 64
static unsigned char enabled[MAX_GPUS][MAX_GPUS];

cml_status cml_gpu_enable_peer(int a, int b)
{
    if (a < 0 || b < 0 || a >= MAX_GPUS || b >= MAX_GPUS || a == b)
        return CML_EINVAL;
    if (__atomic_load_n(&enabled[a][b], __ATOMIC_ACQUIRE))
        return CML_OK;
    int cur = 0;
    CML_CU(cudaGetDevice(&cur));
    CML_CU(cudaSetDevice(a));
    const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError(); /* enabled by someone else in this process */
    const cml_status st = e == cudaErrorPeerAccessAlreadyEnabled
                              ? CML_OK
                              : cml_gpu_check((int)e, "cudaDeviceEnablePeerAccess(b, 0)", __FILE__,
                                              __LINE__);
    CML_CU(cudaSetDevice(cur));
    if (st == CML_OK)
        __atomic_store_n(&enabled[a][b], 1, __ATOMIC_RELEASE);
    return st;
}

cml_status cml_gpu_link_between(int a, int b, cml_gpu_link *out)
{
    out->peer_access = 0;
    out->performance_rank = -1;
    out->native_atomics = 0;
    if (a == b)
        return CML_EINVAL;
    CML_CU(cudaDeviceCanAccessPeer(&out->peer_access, a, b));
    if (!out->peer_access)
        return CML_OK;
    /* The attributes are defined only where there is access. */
    CML_CU(cudaDeviceGetP2PAttribute(&out->performance_rank, cudaDevP2PAttrPerformanceRank, a, b));
    CML_CU(cudaDeviceGetP2PAttribute(&out->native_atomics, cudaDevP2PAttrNativeAtomicSupported,
                                     a, b));
    return CML_OK;
}
