/*
 * Experiments 1 and 2: the misaligned read and write kernels, one kernel per
 * cache path so that a single binary holds all variants (the textbook had to
 * rebuild with -Xptxas -dlcm=cg), and a checker that recomputes every output
 * element from the counter-based random inputs.
 *
 * The kernels' bodies are in offset_body.h, which the model's mirror
 * (offset.c) compiles too.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/random.h"
#include "experiments/offset/offset_body.h"
#include "experiments/offset/offset_kernels.h"
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
