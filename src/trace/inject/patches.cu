/*
 * The device side of cumemlab trace's injection library: the functions
 * the Compute Sanitizer API calls before each global, shared and local
 * memory instruction of a patched kernel (sanitizer_patching.h,
 * SanitizerCallbackMemoryAccess), compiled by nvcc --fatbin
 * --compile-as-tools-patch and loaded by inject.c.
 *
 * The API calls a patch from every active thread. One warp instruction
 * becomes one record: the first active lane reserves a slot (one atomic
 * per warp instruction, not per thread) and hands it to the others by a
 * shuffle; each lane then writes its own address into the slot (what a
 * shuffle of 32 addresses to one lane would also end in, written from
 * where they are). A warp outside the sample returns at once, and so does
 * every launch that is not traced (userdata NULL).
 */
#include <sanitizer_patching.h>

#include "trace/inject/inject_layout.h"

/* space: 0 global, 1 shared, 2 local (trace_format.h). */
static __device__ __forceinline__ SanitizerPatchResult record(void *userdata, uint64_t pc,
                                                               void *ptr, uint32_t size,
                                                               uint32_t flags, uint32_t space)
{
    cml_inject_ctl *c = (cml_inject_ctl *)userdata;
    if (c == NULL || (flags & SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH))
        return SANITIZER_PATCH_SUCCESS;
    const uint64_t tid =
        threadIdx.x + (uint64_t)blockDim.x * (threadIdx.y + (uint64_t)blockDim.y * threadIdx.z);
    const uint64_t block =
        blockIdx.x + (uint64_t)gridDim.x * (blockIdx.y + (uint64_t)gridDim.y * blockIdx.z);
    const uint32_t warp = (uint32_t)(tid / 32u);
    const uint64_t wid = block * c->warps_per_block + warp;
    if (wid % c->stride != 0)
        return SANITIZER_PATCH_SUCCESS;
    const unsigned mask = __activemask();
    const unsigned lane = (unsigned)(tid % 32u);
    const unsigned leader = (unsigned)__ffs(mask) - 1u;
    unsigned long long slot = 0;
    if (lane == leader)
        slot = atomicAdd(&c->used, 1ull);
    slot = __shfl_sync(mask, slot, (int)leader);
    if (slot >= c->capacity) {
        const unsigned long long j = wid / c->stride;
        if (lane == leader)
            atomicOr(&c->lost[j / 32u], 1u << (j % 32u));
        return SANITIZER_PATCH_SUCCESS;
    }
    cml_inject_rec *r = &c->recs[slot];
    r->addr[lane] = (uint64_t)(uintptr_t)ptr;
    if (lane == leader) {
        /* read and write: an atomic; read or write alone: a load or a store */
        const uint32_t rw = flags & (SANITIZER_MEMORY_DEVICE_FLAG_READ |
                                     SANITIZER_MEMORY_DEVICE_FLAG_WRITE);
        const uint32_t op = (rw == (SANITIZER_MEMORY_DEVICE_FLAG_READ |
                                    SANITIZER_MEMORY_DEVICE_FLAG_WRITE) ||
                             (flags & SANITIZER_MEMORY_DEVICE_FLAG_ATOMSYS))
                                ? 2u
                                : rw == SANITIZER_MEMORY_DEVICE_FLAG_WRITE ? 1u : 0u;
        r->pc = pc;
        r->block = block;
        r->warp = warp;
        r->active = mask;
        r->attr = space | op << 2;
        r->size = size;
    }
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
cml_trace_global(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
                 const void *data)
{
    (void)data;
    return record(userdata, pc, ptr, size, flags, 0u);
}

extern "C" __device__ __noinline__ SanitizerPatchResult
cml_trace_shared(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
                 const void *data)
{
    (void)data;
    return record(userdata, pc, ptr, size, flags, 1u);
}

extern "C" __device__ __noinline__ SanitizerPatchResult
cml_trace_local(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
                const void *data)
{
    (void)data;
    return record(userdata, pc, ptr, size, flags, 2u);
}
