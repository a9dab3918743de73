/*
 * The peak bandwidth references, the engine's (src/lab): the lab measures
 * them before a run (cml_peak_measure), and experiment 16 (peak-bandwidth,
 * src/experiments/peak/) sweeps the same kernels on the same bench. One
 * kernel per class of traffic, each in several shapes and at several sizes,
 * and the driver's own cudaMemcpy and cudaMemset, so that every other
 * experiment's bandwidth can be given as a share of what this GPU really
 * does for the same mix of reads and writes (core/peak_class.h).
 *
 * Arrays: x and y are inputs (random, core/random.h), z is the output:
 *   copy   z = x               reads 4n bytes, writes 4n   class copy
 *   scale  z = s * x           reads 4n,       writes 4n   class copy
 *   add    z = x + y           reads 8n,       writes 4n   class triad
 *   triad  z = x + s * y       reads 8n,       writes 4n   class triad
 *   sum    checksum of x       reads 4n,       writes 0    class read
 *   fill   z = f               reads 0,        writes 4n   class write
 *   memcpy cudaMemcpy(z, x)    reads 4n,       writes 4n   class copy
 *   memset cudaMemset(z, 0x40) reads 0,        writes 4n   class write
 * s = 3, f = 1.25. Products and sums are rounded separately (__fmul_rn,
 * __fadd_rn, never fused into an FMA), so the verifier recomputes each
 * element bit for bit. The sum adds the 32-bit patterns of the floats as
 * unsigned integers modulo 2^64: exact and independent of the order of the
 * additions, so it is compared exactly with a sum computed from the
 * generator (not from memory), and it costs one integer add per word on any
 * GPU (a double accumulator is slow where FP64 is). It is one kernel: each
 * block reduces its share, adds it atomically into one of
 * CML_PEAK_SUM_SLOTS slots, and the block that finishes last (a ticket
 * counter) adds the slots into the result and zeroes slots and ticket for
 * the next launch: no second launch, no memset.
 *
 * Shapes (CML_PEAK_SHAPES): how the kernel covers the array.
 *   grid-stride "gs-vW-uU": grid = SMs x the blocks the occupancy calculator
 *     lets reside on one SM (every SM full, no block waiting); each thread
 *     loops over vector i, i + stride, ..., U of them per iteration with all
 *     U loads issued before the first store.
 *   one-shot "os-vW-uU": one pass, U vectors per thread (one coalesced warp
 *     access each), all loads before the stores; the grid covers the array.
 * W is the access width in bytes (4: float, 8: float2, 16: float4); "-cs"
 * marks the streaming cache hints (__ldcs loads, __stcs stores: evict-first)
 * instead of the read-only path (__ldg) and plain write-back stores. The < W/4
 * trailing floats of an array whose length is not a multiple of W/4 are
 * handled by scalar accesses of the first threads.
 */
#ifndef CML_LAB_PEAK_H
#define CML_LAB_PEAK_H

#include <stdint.h>

#include "core/peak_class.h"
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
    CML_PEAK_FILL,
    CML_PEAK_MEMCPY,
    CML_PEAK_MEMSET,
    CML_PEAK_OP_COUNT
} cml_peak_op;

/* The kernels (not the driver's calls): ops below this have shapes. */
#define CML_PEAK_KERNEL_OPS CML_PEAK_MEMCPY

typedef enum cml_peak_layout { CML_PEAK_GRID_STRIDE = 0, CML_PEAK_ONE_SHOT } cml_peak_layout;

/*
 * X(ID, name, layout, width bytes, unroll, streaming hints, quick): every
 * shape, each compiled for every kernel. `quick`: tried by the lab's quick
 * search (cml_peak_measure) as well; it holds both layouts, so no layout
 * tuned on one card decides another card's peak.
 */
#define CML_PEAK_SHAPES(X)                                          \
    X(CML_PEAK_GS_V16_U4, "gs-v16-u4", CML_PEAK_GRID_STRIDE, 16, 4, 0, 1) \
    X(CML_PEAK_OS_V16_U4, "os-v16-u4", CML_PEAK_ONE_SHOT, 16, 4, 0, 1)    \
    X(CML_PEAK_GS_V16_U1, "gs-v16-u1", CML_PEAK_GRID_STRIDE, 16, 1, 0, 0) \
    X(CML_PEAK_GS_V16_U2, "gs-v16-u2", CML_PEAK_GRID_STRIDE, 16, 2, 0, 0) \
    X(CML_PEAK_GS_V16_U8, "gs-v16-u8", CML_PEAK_GRID_STRIDE, 16, 8, 0, 1) \
    X(CML_PEAK_GS_V16_U4_CS, "gs-v16-u4-cs", CML_PEAK_GRID_STRIDE, 16, 4, 1, 1) \
    X(CML_PEAK_OS_V16_U1, "os-v16-u1", CML_PEAK_ONE_SHOT, 16, 1, 0, 1)    \
    X(CML_PEAK_OS_V16_U2, "os-v16-u2", CML_PEAK_ONE_SHOT, 16, 2, 0, 0)    \
    X(CML_PEAK_OS_V16_U8, "os-v16-u8", CML_PEAK_ONE_SHOT, 16, 8, 0, 0)    \
    X(CML_PEAK_OS_V16_U4_CS, "os-v16-u4-cs", CML_PEAK_ONE_SHOT, 16, 4, 1, 0) \
    X(CML_PEAK_GS_V8_U4, "gs-v8-u4", CML_PEAK_GRID_STRIDE, 8, 4, 0, 0)   \
    X(CML_PEAK_OS_V8_U1, "os-v8-u1", CML_PEAK_ONE_SHOT, 8, 1, 0, 0)      \
    X(CML_PEAK_GS_V4_U4, "gs-v4-u4", CML_PEAK_GRID_STRIDE, 4, 4, 0, 0)   \
    X(CML_PEAK_OS_V4_U1, "os-v4-u1", CML_PEAK_ONE_SHOT, 4, 1, 0, 0)

#define CML_PEAK_SHAPE_ENUM(ID, NAME, LAYOUT, W, U, CS, QUICK) ID,
typedef enum cml_peak_shape { CML_PEAK_SHAPES(CML_PEAK_SHAPE_ENUM) CML_PEAK_SHAPE_COUNT } cml_peak_shape;
#undef CML_PEAK_SHAPE_ENUM

typedef struct cml_peak_shape_def {
    const char *name;
    cml_peak_layout layout;
    unsigned width, unroll; /* bytes per access; accesses per thread per iteration */
    int streaming;          /* __ldcs / __stcs instead of __ldg / plain stores */
    int quick;              /* in the lab's quick search */
} cml_peak_shape_def;

/* The shape's row; NULL for an id out of range. */
const cml_peak_shape_def *cml_peak_shape_at(int shape);

#define CML_PEAK_SCALAR 3.0f
#define CML_PEAK_FILL_VALUE 1.25f
#define CML_PEAK_MEMSET_BYTE 0x40 /* every float 0x40404040 = 3.0039215f */
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
    unsigned long long *slots;  /* sum: CML_PEAK_SUM_SLOTS accumulators, zero between launches */
    unsigned *ticket;           /* sum: blocks finished, zero between launches */
    unsigned long long *result; /* sum: the checksum, written by the last block */
    uint64_t n;                 /* floats per array */
    unsigned grid, block;
} cml_peak_args;

/* ---- peak.cu: kernels behind extern "C" launchers -------------------- */

/* Launch op (memcpy: cudaMemcpyAsync, memset: cudaMemsetAsync) on the
 * default stream; the launch status is checked. */
CML_LAUNCHER cml_status cml_peak_launch(void *args);
/* The __global__ function of op/shape, for the occupancy calculator; NULL
 * for memcpy, memset and anything out of range. */
CML_LAUNCHER const void *cml_peak_kernel(cml_peak_op op, cml_peak_shape shape);
/* Count wrong elements of a->z (every op but sum) into d_counters[0]
 * (zeroed by the caller), the lowest wrong index into d_counters[1] (set to
 * all ones by the caller). Every element is compared bit for bit with the
 * value recomputed from the seeds, so poison (0xFF bytes) never passes. */
CML_LAUNCHER cml_status cml_peak_check(const cml_peak_args *a, uint64_t seed_x, uint64_t seed_y,
                                       unsigned long long *d_counters);
/* The checksum of the sum kernel straight from the generator: the sum of
 * the bit patterns of cml_random_f32(seed, i), i < n, modulo 2^64, into
 * *d_sum (zeroed by the caller). */
CML_LAUNCHER cml_status cml_peak_reference_sum(uint64_t n, uint64_t seed,
                                               unsigned long long *d_sum);

/* ---- peak.c: host side --------------------------------------------- */

const char *cml_peak_op_name(cml_peak_op op);       /* "copy", ... */
const char *cml_peak_shape_name(cml_peak_shape s);  /* "gs-v16-u4", ... */
/* The class of op's traffic (core/peak_class.h). */
int cml_peak_op_class(cml_peak_op op);
/* Bytes the algorithm must move for n floats per array. */
uint64_t cml_peak_bytes_read(cml_peak_op op, uint64_t n);
uint64_t cml_peak_bytes_written(cml_peak_op op, uint64_t n);
/* What element i of z must hold after op (every op but sum), computed on
 * the host with the kernels' rounding. */
float cml_peak_expected(cml_peak_op op, uint64_t seed_x, uint64_t seed_y, uint64_t i);
/* The sum's checksum of x's first n elements, on the host. */
uint64_t cml_peak_expected_sum(uint64_t seed_x, uint64_t n);

/* Buffers of one size, allocated once and filled with random inputs. */
typedef struct cml_peak_bench {
    cml_gpu *gpu;
    uint64_t n;
    unsigned block;
    uint64_t seed_x, seed_y;
    cml_dbuf x, y, z;          /* n floats each */
    cml_dbuf slots, result;    /* sum: CML_PEAK_SUM_SLOTS counters, one checksum */
    cml_dbuf ticket;           /* sum: the finished-block counter */
    cml_dbuf counters;         /* the checker's two counters */
    cml_dbuf reference;        /* the sum's reference checksum */
    int have_reference;        /* reference computed for this n and seed */
    unsigned long long reference_sum;
} cml_peak_bench;

/* Allocate and fill (block: threads per block, a multiple of 32). Messages
 * in cml_gpu_error(gpu). */
cml_status cml_peak_bench_open(cml_gpu *gpu, uint64_t n, unsigned block,
                               cml_peak_bench *b);
void cml_peak_bench_close(cml_peak_bench *b);
/* Launch arguments of op/shape on this bench: grid from the occupancy
 * calculator (grid-stride) or the size (one-shot); occupancy (0..1, or -1
 * for memcpy and memset) if wanted. */
cml_status cml_peak_configure(cml_peak_bench *b, cml_peak_op op, cml_peak_shape shape,
                              cml_peak_args *a, double *occupancy);
/* Poison the output of a (z, or the sum's result; never the slots or the
 * ticket, which must stay zero between launches). */
cml_status cml_peak_poison(cml_peak_bench *b, const cml_peak_args *a);
/* Check the outputs of the last launch of a against the seeds: *mismatches
 * wrong elements (for sum: 0 or 1), the first at *first_bad; *got and *want
 * the first wrong value and the expected one (for sum: the checksums),
 * NULL allowed. */
cml_status cml_peak_verify(cml_peak_bench *b, const cml_peak_args *a, uint64_t *mismatches,
                           uint64_t *first_bad, double *got, double *want);

/* The grid of op/shape on a device: the grid-stride grid from the occupancy
 * calculator, the one-shot grid from the size (peak_bench.c). */
cml_status cml_peak_device_grid(cml_gpu *g, cml_peak_op op, cml_peak_shape shape, uint64_t n,
                                unsigned block, unsigned *grid, double *occupancy);

struct cml_plan;
struct cml_record;
/* Time and verify one variant on the bench into rec (bandwidth, timing,
 * grid, occupancy); CML_EVERIFY leaves a FAILED record. */
cml_status cml_peak_measure_variant(const struct cml_plan *plan, cml_peak_bench *b,
                                    struct cml_record *rec, cml_peak_op op, cml_peak_shape shape,
                                    unsigned warmup, unsigned reps);

/* "1G", "256M", "12345": a size for variant names and sentences. */
void cml_peak_size_label(char *buf, size_t len, uint64_t bytes);

/*
 * The lab's quick search for the class references: every kernel of each
 * class in the quick shapes (both layouts), and cudaMemcpy and cudaMemset,
 * at one DRAM size, few repetitions, every output verified; the best of
 * each class into *refs (sources named). Needs plan->gpu (CML_ENOGPU
 * otherwise); CML_EVERIFY when no variant verified.
 */
cml_status cml_peak_measure(const struct cml_plan *plan, cml_peak_refs *refs);

#ifdef __cplusplus
}
#endif

#endif
