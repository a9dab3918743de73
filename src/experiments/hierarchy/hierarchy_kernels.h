/* extern "C" launchers of hierarchy.cu, callable from C, and what the
 * kernels, the model mirror and the checkers share: the walk's geometry,
 * the value a store writes, and the pointer chase's permutation
 * (docs/experiments/hierarchy.md). */
#ifndef CML_HIERARCHY_KERNELS_H
#define CML_HIERARCHY_KERNELS_H

#include <stdint.h>

#include "core/random.h"
#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a bandwidth launch does with its working set. */
typedef enum cml_hier_op {
    CML_HIER_READ = 0, /* sum every word a thread loads; one sum per thread out */
    CML_HIER_WRITE,    /* store a value computed from the index */
    CML_HIER_COPY,     /* C[i] = A[i] */
    CML_HIER_CHASE,    /* dependent loads: one warp follows pointers */
    CML_HIER_OP_COUNT
} cml_hier_op;

/* Load paths, in the order of the experiment's `path` choices. */
typedef enum cml_hier_path { CML_HIER_CA = 0, CML_HIER_CG, CML_HIER_NC, CML_HIER_PATH_COUNT } cml_hier_path;

/* Threads per block of the bandwidth kernels, and a row: one 4-byte word
 * per thread, so a warp's load is 128 contiguous bytes and a block's row is
 * 1 KiB. A step is the 16 rows one unrolled iteration of a thread walks. */
#define CML_HIER_BLOCK 256u
#define CML_HIER_ROW_BYTES 1024u
#define CML_HIER_STEP 16u
/* A chase launch walks its `hops` twice: once to bring the table into the
 * SM it runs on (each launch may land on another SM, with a cold L1), then
 * timed, as gpu-latency warms inside its kernel. */
#define CML_HIER_CHASE_WALKS 2u

/*
 * The walk of the bandwidth kernels. The array holds `rows` rows; every
 * block walks `per_block` rows (a multiple of CML_HIER_STEP) from its own
 * first row, wrapping at the end of the array: row (start + j) mod rows for
 * j < per_block, thread t touching word t of each row. The blocks' first
 * rows are spread evenly over the array (rounded down to a step, so the
 * unrolled steps stay whole where the array is a multiple of a step), so at
 * any moment the SMs read different parts of it. Arrays of 1, 2, 4 or 8 rows
 * are walked from row 0 by a kernel unrolled over them (`small`).
 */
CML_HD uint64_t cml_hier_block_start(uint64_t b, uint64_t grid, uint64_t rows)
{
    if (rows < CML_HIER_STEP || grid == 0)
        return 0;
    return (b * rows / grid) / CML_HIER_STEP * CML_HIER_STEP;
}

/*
 * The partitioned walk (`stream`), used from the L2/DRAM edge on: the grid's
 * T = grid x 256 threads read the array's W = rows x 256 words as one
 * grid-stride loop, thread g = block x 256 + t taking word (g + j T) mod W
 * for its j-th load. Load n = j T + g of the whole grid is word n mod W, so
 * each pass (W consecutive loads) reads every word exactly once, like
 * gpu-l2-cache and STREAM at DRAM sizes; blocks on different SMs never read
 * the same line inside a pass, so no SM's L2 hit on a line another SM just
 * brought in counts as DRAM bandwidth. A warp's load stays 128 contiguous
 * bytes (T and W are multiples of 256 words). Needs W >= T (rows >= grid).
 */
CML_HD uint64_t cml_hier_stream_word(uint64_t b, uint64_t t, uint64_t grid, uint64_t rows,
                                     uint64_t j)
{
    return (b * CML_HIER_BLOCK + t + j * grid * CML_HIER_BLOCK) % (rows * CML_HIER_BLOCK);
}

/* The small-array kernel that walks `rows` rows, or 0 for the general one. */
CML_HD unsigned cml_hier_small_rows(uint64_t rows)
{
    return (rows == 1 || rows == 2 || rows == 4 || rows == 8) ? (unsigned)rows : 0u;
}

/* Row of a block's j-th load (j < per_block). */
CML_HD uint64_t cml_hier_row(uint64_t b, uint64_t grid, uint64_t rows, uint64_t j)
{
    if (cml_hier_small_rows(rows))
        return j % rows;
    return (cml_hier_block_start(b, grid, rows) + j) % rows;
}

/* Word of thread t of block b at its j-th load, in either walk. */
CML_HD uint64_t cml_hier_word(int stream, uint64_t b, uint64_t t, uint64_t grid, uint64_t rows,
                              uint64_t j)
{
    if (stream)
        return cml_hier_stream_word(b, t, grid, rows, j);
    return cml_hier_row(b, grid, rows, j) * CML_HIER_BLOCK + t;
}

/* The word the write kernel stores at index i: cheap (one multiply), and
 * different for every index and key. */
CML_HD uint32_t cml_hier_write_value(uint64_t i, uint32_t key)
{
    return ((uint32_t)i * 0x9E3779B1u) ^ key;
}

/* The 32 bits of input word i (the harness fills it with cml_random_f32). */
CML_HD uint32_t cml_hier_input_word(uint64_t seed, uint64_t i)
{
    union { float f; uint32_t u; } v;
    v.f = cml_random_f32(seed, i);
    return v.u;
}

/*
 * The pointer chase visits the m slots of its table in the order
 * sigma(0), sigma(1), ..., sigma(m-1), sigma(0), ...: slot sigma(p) holds the
 * address of slot sigma(p+1 mod m), so the table is one cycle through every
 * slot. `stride` uses sigma(p) = p; `random` a bijection of [0, m): two
 * rounds of multiply-by-odd, xorshift and add on k bits (2^k >= m, every
 * step invertible modulo 2^k), walked again while the value is m or more
 * (cycle walking: a bijection of [0, 2^k) restricted to [0, m) stays one).
 * Its inverse lets the host say where a chase of K hops from any slot ends.
 */
typedef struct cml_hier_perm {
    uint64_t m;           /* slots */
    uint64_t mask;        /* 2^k - 1 */
    uint64_t mul1, mul2;  /* odd multipliers */
    uint64_t inv1, inv2;  /* their inverses modulo 2^64 */
    uint64_t add;
    unsigned shift, bits; /* xorshift distance, k */
    int identity;         /* the stride pattern: sigma(p) = p */
} cml_hier_perm;

CML_HD uint64_t cml_hier_perm_round(const cml_hier_perm *q, uint64_t x)
{
    x = (x * q->mul1) & q->mask;
    x ^= x >> q->shift;
    x = (x + q->add) & q->mask;
    x = (x * q->mul2) & q->mask;
    x ^= x >> q->shift;
    return x;
}

/* y = x ^ (x >> s) on k bits, undone. */
CML_HD uint64_t cml_hier_unxorshift(uint64_t y, unsigned s, unsigned k)
{
    uint64_t x = y;
    for (unsigned done = s; done < k; done += s)
        x = y ^ (x >> s);
    return x;
}

CML_HD uint64_t cml_hier_perm_unround(const cml_hier_perm *q, uint64_t y)
{
    y = cml_hier_unxorshift(y, q->shift, q->bits);
    y = (y * q->inv2) & q->mask;
    y = (y - q->add) & q->mask;
    y = cml_hier_unxorshift(y, q->shift, q->bits);
    return (y * q->inv1) & q->mask;
}

/* sigma(p), p < m. */
CML_HD uint64_t cml_hier_perm_apply(const cml_hier_perm *q, uint64_t p)
{
    if (q->identity)
        return p;
    uint64_t x = cml_hier_perm_round(q, p);
    while (x >= q->m)
        x = cml_hier_perm_round(q, x);
    return x;
}

/* sigma^-1(s), s < m. */
CML_HD uint64_t cml_hier_perm_invert(const cml_hier_perm *q, uint64_t s)
{
    if (q->identity)
        return s;
    uint64_t x = cml_hier_perm_unround(q, s);
    while (x >= q->m)
        x = cml_hier_perm_unround(q, x);
    return x;
}

/* One bandwidth launch (read, write or copy). */
typedef struct cml_hier_bw_args {
    const uint32_t *A; /* read, copy: the input, rows * 256 words */
    uint32_t *C;       /* write, copy: the output, rows * 256 words */
    uint32_t *out;     /* read: one sum per thread, grid * 256 words */
    uint64_t rows;     /* rows of 1 KiB in each array */
    uint64_t per_block;/* rows each block walks per launch, a multiple of 16 */
    uint32_t grid;     /* blocks of CML_HIER_BLOCK threads */
    uint32_t key;      /* write: cml_hier_write_value's key */
    int op;            /* CML_HIER_READ, _WRITE or _COPY */
    int path;          /* read: cml_hier_path */
    int stream;        /* the partitioned walk (cml_hier_stream_word; rows >= grid) */
} cml_hier_bw_args;

/* One pointer-chase launch: a warp follows `hops` pointers (a multiple of
 * 16) from *cursor, then leaves where it stopped in *cursor for the next
 * launch and writes out[0..3]: the start and end pointers, the SM clock
 * cycles (clock64) and the nanoseconds (%globaltimer) the hops took. */
typedef struct cml_hier_chase_args {
    uint64_t *cursor;  /* one word */
    uint64_t *out;     /* four words, 16-byte aligned */
    uint64_t hops;
    int path;          /* cml_hier_path of the pointer loads */
} cml_hier_chase_args;

/* Launch one bandwidth kernel (asynchronously); the launch is checked. */
CML_LAUNCHER cml_status cml_hier_bw_launch(void *args);
/* The __global__ function a bandwidth launch runs, for the occupancy
 * calculator (NULL for arguments out of range). */
CML_LAUNCHER const void *cml_hier_bw_kernel(int op, int path, uint64_t rows, int stream);
/* Count wrong words into d_counters[0] (zeroed by the caller) and the
 * lowest wrong index into d_counters[1] (all ones from the caller): read:
 * every thread's sum against the sum of the words it walked (A filled with
 * seed); write: every word of C against cml_hier_write_value; copy: every
 * word of C against A's. */
CML_LAUNCHER cml_status cml_hier_bw_check(const cml_hier_bw_args *a, uint64_t seed,
                                          unsigned long long *d_counters);

/* Fill `table` (m slots of hop_words 8-byte words) with the cycle of `perm`:
 * slot sigma(p) points at slot sigma(p + 1 mod m). */
CML_LAUNCHER cml_status cml_hier_chase_build(uint64_t *table, const cml_hier_perm *perm,
                                             uint64_t hop_words);
CML_LAUNCHER cml_status cml_hier_chase_launch(void *args);
CML_LAUNCHER const void *cml_hier_chase_kernel(int path);

#ifdef __cplusplus
}
#endif
#endif
