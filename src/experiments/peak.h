/*
 * Experiment 16: the peak bandwidth reference. STREAM's four kernels (copy,
 * scale, add, triad), a read-only sum and cudaMemcpy device-to-device, tuned
 * to reach what the memory can do, so every other experiment's bandwidth can
 * be given as a share of this GPU's measured peak.
 *
 * Arrays: x and y are inputs (random, core/random.h), z is the output:
 *   copy   z = x               reads 4n bytes, writes 4n
 *   scale  z = s * x           reads 4n,       writes 4n
 *   add    z = x + y           reads 8n,       writes 4n
 *   triad  z = x + s * y       reads 8n,       writes 4n
 *   sum    sum of x (double)   reads 4n,       writes 0 (one double)
 *   memcpy cudaMemcpy(z, x)    reads 4n,       writes 4n
 * The sum is one kernel: each block reduces its share, adds it atomically
 * into one of CML_PEAK_SUM_SLOTS doubles, and the block that finishes last
 * (a ticket counter) adds the slots into the result and zeroes the slots and
 * the ticket for the next launch: no second launch, no memset.
 * s = 3. Products and sums are rounded separately (__fmul_rn, __fadd_rn,
 * never fused into an FMA), so the verifier recomputes each element bit for
 * bit; the sum is accumulated in double, which is exact for n < 2^29 (the
 * inputs are multiples of 2^-23 in [1, 2)), so it is compared exactly too.
 */
#ifndef CML_EXP_PEAK_H
#define CML_EXP_PEAK_H

#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"
#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_peak_op {
    CML_PEAK_COPY = 0,
    CML_PEAK_SCALE,
    CML_PEAK_ADD,
    CML_PEAK_TRIAD,
    CML_PEAK_SUM,
    CML_PEAK_MEMCPY,
    CML_PEAK_OP_COUNT
} cml_peak_op;

/* How the kernels cover the array. Both use 16-byte (float4) accesses; the
 * < 4 trailing floats of an array whose length is not a multiple of 4 are
 * handled by scalar accesses of the first threads.
 *   grid-stride: grid = SMs x resident blocks per SM (occupancy calculator),
 *                each thread loops over float4 i, i + stride, ...
 *   one-shot:    one pass, CML_PEAK_PER_THREAD float4s per thread, all
 *                loads issued before the first store (bytes in flight). */
typedef enum cml_peak_shape {
    CML_PEAK_GRID_STRIDE = 0,
    CML_PEAK_ONE_SHOT,
    CML_PEAK_SHAPE_COUNT
} cml_peak_shape;

#define CML_PEAK_SCALAR 3.0f
#define CML_PEAK_PER_THREAD 4u
/* Accumulators of the sum (blocks spread their atomics over them, so they
 * do not all queue on one address). At most 64: the last block reads them
 * with its first two warps. */
#define CML_PEAK_SUM_SLOTS 64u

/* One launch: the ctx of cml_peak_launch (a cml_launch_fn). */
typedef struct cml_peak_args {
    cml_peak_op op;
    cml_peak_shape shape;
    const float *x, *y;
    float *z;
    double *slots;    /* sum: CML_PEAK_SUM_SLOTS accumulators, zero between launches */
    unsigned *ticket; /* sum: blocks finished, zero between launches */
    double *result;   /* sum: the total, written by the last block */
    uint64_t n;       /* floats per array */
    unsigned grid, block;
} cml_peak_args;

/* ---- peak.cu: kernels behind extern "C" launchers -------------------- */

/* Launch op (memcpy: cudaMemcpyAsync) on the default stream; the launch
 * status is checked. */
CML_LAUNCHER cml_status cml_peak_launch(void *args);
/* The __global__ function of op/shape, for the
 * occupancy calculator; NULL for memcpy. */
CML_LAUNCHER const void *cml_peak_kernel(cml_peak_op op, cml_peak_shape shape);
/* Count wrong elements of a->z (op copy..triad, memcpy) into d_counters[0]
 * (zeroed by the caller), the lowest wrong index into d_counters[1] (set to
 * all ones by the caller). Every element is compared bit for bit with the
 * value recomputed from the seeds, so poison (0xFF bytes) never passes. */
CML_LAUNCHER cml_status cml_peak_check(const cml_peak_args *a, uint64_t seed_x, uint64_t seed_y,
                                       unsigned long long *d_counters);
/* The exact double sum of cml_random_f32(seed, i), i < n, into *d_sum
 * (zeroed by the caller): the reference of the sum kernel. */
CML_LAUNCHER cml_status cml_peak_reference_sum(uint64_t n, uint64_t seed, double *d_sum);

/* ---- peak.c: host side --------------------------------------------- */

const char *cml_peak_op_name(cml_peak_op op);       /* "copy", ... */
const char *cml_peak_shape_name(cml_peak_shape s);  /* "grid-stride", "one-shot" */
/* Bytes the algorithm must move for n floats per array. */
uint64_t cml_peak_bytes_read(cml_peak_op op, uint64_t n);
uint64_t cml_peak_bytes_written(cml_peak_op op, uint64_t n);
/* What element i of z must hold after op (copy..triad, memcpy), computed on
 * the host with the kernels' rounding. */
float cml_peak_expected(cml_peak_op op, uint64_t seed_x, uint64_t seed_y, uint64_t i);

/* Buffers of one size, allocated once and filled with random inputs. */
typedef struct cml_peak_bench {
    cml_gpu *gpu;
    uint64_t n;
    unsigned block;
    uint64_t seed_x, seed_y;
    cml_dbuf x, y, z;          /* n floats each */
    cml_dbuf slots, result;    /* sum: CML_PEAK_SUM_SLOTS doubles, one double */
    cml_dbuf ticket;           /* sum: the finished-block counter */
    cml_dbuf counters;         /* the checker's two counters */
    cml_dbuf reference;        /* the sum's reference (one double) */
} cml_peak_bench;

/* Allocate and fill (block: threads per block, a multiple of 32). Messages
 * in cml_gpu_error(gpu). */
cml_status cml_peak_bench_open(cml_gpu *gpu, uint64_t n, unsigned block,
                               cml_peak_bench *b);
void cml_peak_bench_close(cml_peak_bench *b);
/* Launch arguments of op/shape on this bench: grid from the occupancy
 * calculator (grid-stride) or the size (one-shot); occupancy (0..1, or -1
 * for memcpy) if wanted. */
cml_status cml_peak_configure(cml_peak_bench *b, cml_peak_op op, cml_peak_shape shape,
                              cml_peak_args *a, double *occupancy);
/* Poison the output of a (z, or the sum's result; never the slots or the
 * ticket, which must stay zero between launches). */
cml_status cml_peak_poison(cml_peak_bench *b, const cml_peak_args *a);
/* Check the outputs of the last launch of a against the seeds: *mismatches
 * wrong elements (for sum: 0 or 1), the first at *first_bad; *got and *want
 * the sum's values (NULL allowed). */
cml_status cml_peak_verify(cml_peak_bench *b, const cml_peak_args *a, uint64_t *mismatches,
                           uint64_t *first_bad, double *got, double *want);

struct cml_plan;
/* Quick peak for other experiments' shares: the copy kernel in both shapes
 * and cudaMemcpy D2D, few repetitions, verified; the best in GB/s. Needs
 * plan->gpu (CML_ENOGPU otherwise). */
cml_status cml_peak_measure(const struct cml_plan *plan, double *peak_gbs);

/* The C mirror of a peak kernel for the model (one thread's accesses). */
typedef struct cml_peak_mirror_args {
    cml_peak_op op;
    cml_peak_shape shape;
    uint64_t n;
} cml_peak_mirror_args;
void cml_peak_mirror(const cml_thread *t, const void *args, cml_emitter *e);

#ifdef __cplusplus
}
#endif

/* The registry's row (not visible to the .cu: cml_experiment is C-only data). */
#ifndef __CUDACC__
#include "experiments/experiment.h"
extern const cml_experiment cml_exp_peak;
#endif

#endif
