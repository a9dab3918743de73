/*
 * Experiments 1 and 2 (misaligned reads and writes): their kernels, written
 * once (gpu/kernel_body.h). The launch arguments and the launchers that
 * offset.c calls; the mirror's arguments; the bodies of the read and write
 * kernels, one thread per element (i = blockIdx.x*blockDim.x + threadIdx.x,
 * k = i + offset), which the C compiler makes the model's mirror (offset.c);
 * and under __CUDACC__ the kernels, one per cache path so that a single
 * binary holds all variants (the textbook had to rebuild with
 * -Xptxas -dlcm=cg), their launchers and a checker that recomputes every
 * output element from the counter-based random inputs, which nvcc compiles
 * through the file the build generates for the folder
 * (cmake/experiments.cmake).
 */
#ifndef CML_OFFSET_BODY_H
#define CML_OFFSET_BODY_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model's mirror of either kernel (offset.c), and its arguments. */
typedef struct cml_offset_args {
    uint64_t n, offset;
    cml_cache cache; /* load path (read-offset) or store path (write-offset) */
    int write;
} cml_offset_args;

void cml_offset_mirror(const cml_thread *t, const void *args, cml_emitter *e);

typedef struct cml_offset_launch_args {
    const float *A, *B;
    float *C;
    uint64_t n, offset;
    unsigned block;
    int write; /* 0: read-offset, 1: write-offset */
    int path;  /* index into ca|cg|nc (reads) or wb|cg|cs (writes) */
} cml_offset_launch_args;

/* Launch one kernel (asynchronously); the launch status is checked. */
CML_LAUNCHER cml_status cml_offset_launch(void *args);
/* The __global__ function, for the occupancy calculator. */
CML_LAUNCHER const void *cml_offset_kernel(int write, int path);
/* Count wrong elements of C into d_counters[0] (zeroed by the caller), the
 * lowest wrong index into d_counters[1] (set to all ones by the caller). */
CML_LAUNCHER cml_status cml_offset_check(const cml_offset_launch_args *a, uint64_t seed_a,
                                         uint64_t seed_b, unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif

/* read-offset: if (k < n) C[i] = A[k] + B[k]; loads through `ld` (ca, cg
 * or nc), the store plain. */
CML_BODY void cml_read_offset_body(CML_CTX, const float *A, const float *B, float *C, uint64_t n,
                                   uint64_t offset, unsigned ld)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    uint64_t k = i + offset;
    if (k < n) {
        float a = CML_LD(0, ld, float, A, k);
        float b = CML_LD(1, ld, float, B, k);
        CML_ST(2, CML_ST_PLAIN, C, i, a + b);
    }
}

/* write-offset: if (k < n) C[k] = A[i] + B[i]; plain loads, the store
 * through `st` (wb, cg or cs). */
CML_BODY void cml_write_offset_body(CML_CTX, const float *A, const float *B, float *C,
                                    uint64_t n, uint64_t offset, unsigned st)
{
    uint64_t i = (uint64_t)CML_BID_X * CML_BDIM_X + CML_TID_X;
    uint64_t k = i + offset;
    if (k < n) {
        float a = CML_LD(0, CML_LD_PLAIN, float, A, i);
        float b = CML_LD(1, CML_LD_PLAIN, float, B, i);
        CML_ST(2, st, C, k, a + b);
    }
}

#ifdef __CUDACC__
/* ---- the kernels and their launchers (nvcc only) ------------------------ */
#include <cuda_runtime.h>

#include "core/random.h"
#include "gpu/gpu_internal.h"

/* One kernel per cache path, so that a single binary holds all variants;
 * the loads (read-offset) or the store (write-offset) through the path. */
#define READ_OFFSET_KERNEL(NAME, LD)                                                         \
    __global__ void NAME(const float *__restrict__ A, const float *__restrict__ B,          \
                         float *__restrict__ C, uint64_t n, uint64_t offset)                 \
    {                                                                                        \
        cml_read_offset_body(CML_KERNEL_CTX, A, B, C, n, offset, LD);                        \
    }

#define WRITE_OFFSET_KERNEL(NAME, ST)                                                        \
    __global__ void NAME(const float *__restrict__ A, const float *__restrict__ B,          \
                         float *__restrict__ C, uint64_t n, uint64_t offset)                 \
    {                                                                                        \
        cml_write_offset_body(CML_KERNEL_CTX, A, B, C, n, offset, ST);                       \
    }

READ_OFFSET_KERNEL(readOffset_ca, CML_LD_CA)
READ_OFFSET_KERNEL(readOffset_cg, CML_LD_CG)
READ_OFFSET_KERNEL(readOffset_nc, CML_LD_NC)
WRITE_OFFSET_KERNEL(writeOffset_wb, CML_ST_PLAIN)
WRITE_OFFSET_KERNEL(writeOffset_cg, CML_ST_CG)
WRITE_OFFSET_KERNEL(writeOffset_cs, CML_ST_CS)

typedef void (*offset_kernel)(const float *, const float *, float *, uint64_t, uint64_t);

static offset_kernel pick(int write, int path)
{
    static const offset_kernel reads[] = {readOffset_ca, readOffset_cg, readOffset_nc};
    static const offset_kernel writes[] = {writeOffset_wb, writeOffset_cg, writeOffset_cs};
    if (path < 0 || path > 2)
        return NULL;
    return write ? writes[path] : reads[path];
}

extern "C" const void *cml_offset_kernel(int write, int path)
{
    return (const void *)pick(write, path);
}

extern "C" cml_status cml_offset_launch(void *vctx)
{
    const cml_offset_launch_args *a = (const cml_offset_launch_args *)vctx;
    offset_kernel k = pick(a->write, a->path);
    if (!k || a->block == 0)
        return CML_EINVAL;
    uint64_t grid = (a->n + a->block - 1) / a->block;
    k<<<(unsigned)grid, a->block>>>(a->A, a->B, a->C, a->n, a->offset);
    CML_CU_LAUNCH();
    return CML_OK;
}

/*
 * Checker: every element of C is either the expected sum (where the kernel
 * writes) or still the poison pattern 0xFFFFFFFF (where it must not write).
 * Mismatches are counted; the first bad index is kept for the message.
 */
__global__ void offset_check(const float *__restrict__ C, uint64_t n, uint64_t offset, int write,
                             uint64_t seed_a, uint64_t seed_b, unsigned long long *bad,
                             unsigned long long *first_bad)
{
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += (uint64_t)gridDim.x * blockDim.x) {
        float got = C[j];
        uint32_t got_bits = __float_as_uint(got);
        int written;
        float want = 0.0f;
        if (!write) {
            written = j + offset < n;
            if (written)
                want = cml_random_f32(seed_a, j + offset) + cml_random_f32(seed_b, j + offset);
        } else {
            written = j >= offset;
            if (written)
                want = cml_random_f32(seed_a, j - offset) + cml_random_f32(seed_b, j - offset);
        }
        int ok = written ? (__float_as_uint(want) == got_bits) : (got_bits == 0xFFFFFFFFu);
        if (!ok) {
            atomicAdd(bad, 1ull);
            atomicMin(first_bad, (unsigned long long)j);
        }
    }
}

extern "C" cml_status cml_offset_check(const cml_offset_launch_args *a, uint64_t seed_a,
                                       uint64_t seed_b, unsigned long long *d_counters)
{
    offset_check<<<1024, 256>>>(a->C, a->n, a->offset, a->write, seed_a, seed_b, d_counters,
                                d_counters + 1);
    CML_CU_LAUNCH();
    return CML_OK;
}
#endif /* __CUDACC__ */

#endif
