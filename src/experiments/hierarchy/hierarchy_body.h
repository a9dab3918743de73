/*
 * The hierarchy experiment (docs/experiments/hierarchy.md): bandwidth and
 * latency against the working set. Everything of its kernels is here,
 * written once (gpu/kernel_body.h): what the kernels, the model and the
 * checkers share (the walk, the chase's permutation), the launchers
 * hierarchy.c calls, the model's functions the tests check, the kernels'
 * bodies, which the C compiler makes the model's mirrors (hierarchy_model.c),
 * and under __CUDACC__ the kernels, launchers and checkers
 * (hierarchy_kernels.h, included at the end), compiled through the file the
 * build generates for the folder (cmake/experiments.cmake).
 *
 * Bandwidth: each thread loads or stores one 4-byte word per row of the
 * working set (a warp instruction is 128 contiguous bytes), 16 rows per
 * unrolled step. The loads are inline PTX (ld.global.ca / .cg / .nc),
 * volatile (the stores too) so that the compiler neither drops nor hoists a
 * re-read of the same address: a working set smaller than what a launch
 * walks is re-read many times inside the kernel, which is what makes a
 * small working set measure L1 or L2 rather than the launch.
 *   read: acc += word (mod 2^32) over the walk, out[thread] = acc; write:
 *   C[i] = cml_hier_write_value(i, key); copy: C[i] = A[i].
 * Latency: one warp follows pointers, `p = *p`, all lanes on the same
 * address, timed inside the kernel with clock64 and %globaltimer.
 */
#ifndef CML_HIERARCHY_BODY_H
#define CML_HIERARCHY_BODY_H

#include <stdint.h>

#include "core/random.h"
#include "core/record.h"
#include "cumemlab/model.h"
#include "gpu/kernel_body.h"
#include "gpu/launcher.h"
#include "lab/experiment.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_hier_op {
    CML_HIER_READ = 0, /* sum every word a thread loads; one sum per thread out */
    CML_HIER_WRITE,    /* store a value computed from the index */
    CML_HIER_COPY,     /* C[i] = A[i] */
    CML_HIER_CHASE,    /* dependent loads: one warp follows pointers */
    CML_HIER_OP_COUNT
} cml_hier_op;

/* Load paths, in the order of the experiment's `path` choices. */
typedef enum cml_hier_path { CML_HIER_CA = 0, CML_HIER_CG, CML_HIER_NC, CML_HIER_PATH_COUNT } cml_hier_path;

/* The cache operator the model gives a load through `path`. */
CML_HD cml_cache cml_hier_path_cache(int path)
{
    return path == CML_HIER_CG ? CML_CACHE_CG : path == CML_HIER_NC ? CML_CACHE_NC : CML_CACHE_CA;
}

/* Threads per block of the bandwidth kernels, and a row: one 4-byte word
 * per thread (1 KiB). A step: the 16 rows of a thread's unrolled iteration. */
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

/*
 * The sliced write and copy (`parts` > 0): the array is cut into `parts`
 * equal contiguous parts of n = rows / parts rows (the plan makes parts
 * divide rows and n >= 16, a step), and block b walks part b mod parts
 * again and again: with as many blocks as parts (the plan's grid), no two
 * blocks (so no two SMs) store to one line. Word of thread t of block b at
 * its j-th store.
 */
CML_HD uint64_t cml_hier_slice_word(uint64_t b, uint64_t t, uint64_t parts, uint64_t rows,
                                    uint64_t j)
{
    const uint64_t n = rows / parts;
    return (b % parts * n + j % n) * CML_HIER_BLOCK + t;
}

/*
 * The sliced read (`parts` chunks of `chunk` pieces; the peers' method,
 * gpu-l2-cache's geometry, its main.cu read line by line): the set is cut
 * into pieces of 16 rows (16 KiB) and chunk c holds pieces c, c + parts,
 * c + 2 parts, ... (a chunk's pieces spread parts x 16 KiB apart, as
 * gpu-l2-cache's 32 pieces of its chunk c are). Block b, of
 * CML_HIER_CHUNK_BLOCK threads (gpu-l2-cache's 1024), reads chunk b mod
 * parts, piece after piece; where a chunk is shorter than gpu-l2-cache's
 * 32 pieces, the chunks after it, (b + 1) mod parts, ... (`per_block`
 * rows in all), until it has read about gpu-l2-cache's 512 KiB: a block
 * meets a piece again only after the whole set (a set of 37 pieces has
 * chunks of one; re-reading one chunk would read one piece 32 times in a
 * row, from L1). The grid is many such blocks that come and go on any SM,
 * as gpu-l2-cache's 200,000.
 * Thread T reads rows T / 256 + 4u (u < 4) of a piece, word T mod 256 of
 * each: a warp's load is 128 contiguous bytes, a piece four loads a thread.
 */
#define CML_HIER_CHUNK_BLOCK 1024u
#define CML_HIER_CHUNK_PIECES 32u /* gpu-l2-cache's chunk: 32 pieces, 512 KiB */
#define CML_HIER_PIECE_LOADS 4u   /* a thread's loads in one piece */

CML_HD uint64_t cml_hier_chunk_word(uint64_t b, uint64_t T, uint64_t parts, uint64_t chunk,
                                    uint64_t j)
{
    const uint64_t q = j / CML_HIER_PIECE_LOADS; /* the block's q-th piece */
    const uint64_t piece = (b + q / chunk) % parts + parts * (q % chunk);
    return (piece * CML_HIER_STEP + T / CML_HIER_BLOCK +
            CML_HIER_PIECE_LOADS * (j % CML_HIER_PIECE_LOADS)) * CML_HIER_BLOCK +
           T % CML_HIER_BLOCK;
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

/* Word of thread t of block b at its j-th access, in any of the three walks
 * of 256-thread blocks (`parts` > 0: a sliced write's or copy's; else
 * `stream`: partitioned; else whole). */
CML_HD uint64_t cml_hier_word(int stream, uint64_t parts, uint64_t b, uint64_t t, uint64_t grid,
                              uint64_t rows, uint64_t j)
{
    if (parts)
        return cml_hier_slice_word(b, t, parts, rows, j);
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
 * Its inverse (hierarchy_model.c) lets the host say where a chase of K hops
 * from any slot ends.
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

/* Position p < m of the cycle: slot sigma(p) (*slot) links to slot sigma(p
 * + 1 mod m), returned; the build kernel and the host's tests build the
 * table from it. */
CML_HD uint64_t cml_hier_chase_link(const cml_hier_perm *q, uint64_t p, uint64_t *slot)
{
    *slot = cml_hier_perm_apply(q, p);
    return cml_hier_perm_apply(q, p + 1 == q->m ? 0 : p + 1);
}

/* The chase's table as the model sees it: the pointer at position `pos` of
 * the cycle (slot sigma(pos mod m), `hop` bytes a slot from `table`), which
 * the slot of position pos - 1 holds. The mirror's loads return it. */
typedef struct cml_hier_chain {
    const cml_hier_perm *perm;
    uint64_t table, hop;
} cml_hier_chain;

CML_HD uint64_t cml_hier_chain_ptr(const cml_hier_chain *c, uint64_t pos)
{
    return c->table + c->hop * cml_hier_perm_apply(c->perm, pos % c->perm->m);
}

/* One bandwidth launch (read, write or copy). */
typedef struct cml_hier_bw_args {
    const uint32_t *A; /* read, copy: the input, rows * 256 words */
    uint32_t *C;       /* write, copy: the output, rows * 256 words */
    uint32_t *out;     /* read: one sum per thread, grid * block words */
    uint64_t rows;     /* rows of 1 KiB in each array */
    uint64_t per_block;/* rows each block walks per launch, a multiple of 16 */
    uint32_t grid;     /* blocks of CML_HIER_BLOCK threads */
    uint32_t key;      /* write: cml_hier_write_value's key */
    int op;            /* CML_HIER_READ, _WRITE or _COPY */
    int path;          /* read: cml_hier_path */
    int stream;        /* the partitioned walk (cml_hier_stream_word; rows >= grid) */
    uint64_t parts;    /* > 0: the sliced walk: writes and copies cml_hier_slice_word's
                          parts (16 rows a part at least, parts dividing rows), reads
                          cml_hier_chunk_word's chunks */
    uint64_t chunk;    /* sliced read: pieces a chunk (rows = parts x chunk x 16) */
    int sums;          /* read: store each thread's sum in out (the sliced read's timed
                          launches store none, as gpu-l2-cache; its checked launch does) */
} cml_hier_bw_args;

/* One pointer-chase launch: `warps` blocks of one warp (one per SM, as the
 * block scheduler spreads a grid of as many small blocks as SMs), warp b
 * following `hops` pointers (a multiple of 16) from cursor[b], then
 * leaving where it stopped in cursor[b] for the next launch and writing
 * its three 16-byte words of out (CML_HIER_CHASE_OUT_WORDS from 6b): the
 * start and end pointers, the SM clock cycles (clock64) and nanoseconds
 * (%globaltimer) the timed hops took, and the SM it ran on. Why every SM:
 * docs/experiments/hierarchy.md, "Latency from every SM". */
#define CML_HIER_CHASE_OUT_WORDS 6u
#define CML_HIER_CHASE_MAX_WARPS 4096u
typedef struct cml_hier_chase_args {
    uint64_t *cursor;  /* `warps` words */
    uint64_t *out;     /* 6 * `warps` words, 16-byte aligned */
    uint64_t hops;
    uint32_t warps;    /* 1 .. CML_HIER_CHASE_MAX_WARPS */
    int path;          /* cml_hier_path of the pointer loads */
} cml_hier_chase_args;

/* Launch one bandwidth kernel (asynchronously); the launch is checked. */
CML_LAUNCHER cml_status cml_hier_bw_launch(void *args);
/* The __global__ function a bandwidth launch runs, for the occupancy
 * calculator (NULL for arguments out of range). */
CML_LAUNCHER const void *cml_hier_bw_kernel(int op, int path, uint64_t rows, int stream,
                                            uint64_t chunk, uint64_t per_block);
/* Threads a block of that launch: CML_HIER_CHUNK_BLOCK for the sliced read. */
CML_HD unsigned cml_hier_bw_block(int op, uint64_t chunk)
{
    return op == CML_HIER_READ && chunk ? CML_HIER_CHUNK_BLOCK : CML_HIER_BLOCK;
}
/* Count wrong words into d_counters[0] (zeroed by the caller) and the lowest
 * wrong index into d_counters[1] (all ones from the caller): read: every
 * thread's sum (A filled with seed); write and copy: every word of C. */
CML_LAUNCHER cml_status cml_hier_bw_check(const cml_hier_bw_args *a, uint64_t seed,
                                          unsigned long long *d_counters);

/* Fill `table` (m slots of hop_words 8-byte words) with the cycle of `perm`:
 * slot sigma(p) points at slot sigma(p + 1 mod m). */
CML_LAUNCHER cml_status cml_hier_chase_build(uint64_t *table, const cml_hier_perm *perm,
                                             uint64_t hop_words);
CML_LAUNCHER cml_status cml_hier_chase_launch(void *args);

/* One launch of the per-hop chase (cml_hier_chase_hist_body): the same
 * warps from the same cursors, `hops` warming, then `hops` each timed on
 * its own into CML_HIER_HIST_BINS bins of CML_HIER_HIST_CYCLES cycles
 * (the last: everything beyond) a warp, hist[b * BINS + bin]. */
#define CML_HIER_HIST_BINS 512u
#define CML_HIER_HIST_CYCLES 8u
typedef struct cml_hier_hist_args {
    uint64_t *cursor;  /* `warps` words, left where the walk stopped */
    uint32_t *hist;    /* warps * CML_HIER_HIST_BINS counts */
    uint64_t hops;     /* a multiple of 16 */
    uint32_t warps;    /* 1 .. CML_HIER_CHASE_MAX_WARPS */
    int path;
} cml_hier_hist_args;
CML_LAUNCHER cml_status cml_hier_chase_hist_launch(const cml_hier_hist_args *args);
CML_LAUNCHER const void *cml_hier_chase_kernel(int path);

#ifdef __cplusplus
}
#endif

#include "experiments/hierarchy/hierarchy_model_decl.h"

/* ---- the kernels' own loads, stores and clocks ----------------------------- */

#ifdef __CUDACC__
/* cml_hier_ld32 and cml_hier_ld64: ld.global.ca, .cg or .nc by `path` (a
 * constant in each kernel, so one load instruction is left). */
#define CML_HIER_LD(name, T, bits, reg)                                                    \
    __device__ __forceinline__ T name(const T *p, int path)                               \
    {                                                                                      \
        T v;                                                                               \
        if (path == CML_HIER_CA)                                                           \
            asm volatile("ld.global.ca.u" bits " %0, [%1];" : "=" reg(v) : "l"(p));        \
        else if (path == CML_HIER_CG)                                                      \
            asm volatile("ld.global.cg.u" bits " %0, [%1];" : "=" reg(v) : "l"(p));        \
        else                                                                               \
            asm volatile("ld.global.nc.u" bits " %0, [%1];" : "=" reg(v) : "l"(p));        \
        return v;                                                                          \
    }
CML_HIER_LD(cml_hier_ld32, uint32_t, "32", "r")
CML_HIER_LD(cml_hier_ld64, uint64_t, "64", "l")
#undef CML_HIER_LD

/* Stores are volatile too: the small arrays' steps store to the same word
 * several times, and a compiler may keep only the last of plain stores. */
__device__ __forceinline__ void cml_hier_st32(uint32_t *p, uint32_t v)
{
    asm volatile("st.global.u32 [%0], %1;" : : "l"(p), "r"(v));
}

#define cml_hier_clock() clock64()
/* clock64 with a memory clobber: the compiler may move no memory access
 * across it, so the per-hop chase's window holds its load and the store
 * that waits for it, nothing of the count around them. (It did not change
 * the 33-42 cycles a timed hop adds on an H200, against 2 in a probe of
 * the same loop: their cause was not found; the host takes them off.) */
__device__ __forceinline__ long long cml_hier_clock_fenced(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
    return t;
}
__device__ __forceinline__ unsigned long long cml_hier_smid(void)
{
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}
__device__ __forceinline__ uint64_t cml_hier_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#else /* the mirror times nothing */
#define cml_hier_clock() 0LL
#define cml_hier_clock_fenced() 0LL
#define cml_hier_smid() 0ull
#define cml_hier_ns() ((uint64_t)0)
#endif

/* ---- the bodies ------------------------------------------------------------ */

/*
 * One unrolled step: rows j .. j + 15 of the walk at p + offs[u] (and q +
 * offs[u]), i the index of p; copies load through ca, reads through `path`.
 * A load of row j is site j mod 16 (its place in the step of 16 rows the
 * mirror traces as a block of its own: j = 16 k + u), the store beside it
 * 16 + j mod 16.
 */
CML_BODY uint32_t cml_hier_step(CML_CTX, int op, int path, const uint32_t *p, uint32_t *q,
                                uint64_t i, uint32_t key, uint32_t acc, const int *offs,
                                uint64_t j)
{
    if (op == CML_HIER_WRITE) {
        CML_UNROLL
        for (int u = 0; u < (int)CML_HIER_STEP; u++)
            CML_ST_FN(16u + (j + u) % 16u, CML_CACHE_CA, q, offs[u],
                      cml_hier_write_value(i + (uint64_t)offs[u], key), cml_hier_st32);
        return acc;
    }
    const int lp = op == CML_HIER_READ ? path : CML_HIER_CA;
    uint32_t v[CML_HIER_STEP];
    CML_UNROLL
    for (int u = 0; u < (int)CML_HIER_STEP; u++)
        v[u] = CML_LD_FN1((j + u) % 16u, cml_hier_path_cache(lp), uint32_t, p, offs[u],
                          cml_hier_ld32, lp);
    CML_UNROLL
    for (int u = 0; u < (int)CML_HIER_STEP; u++) {
        if (op == CML_HIER_READ)
            acc += v[u];
        else
            CML_ST_FN(16u + (j + u) % 16u, CML_CACHE_CA, q, offs[u], v[u], cml_hier_st32);
    }
    return acc;
}

/* One row j at p (and q), i the index of p. */
CML_BODY uint32_t cml_hier_one(CML_CTX, int op, int path, const uint32_t *p, uint32_t *q,
                               uint64_t i, uint32_t key, uint32_t acc, uint64_t j)
{
    if (op == CML_HIER_READ)
        acc += CML_LD_FN1(j % 16u, cml_hier_path_cache(path), uint32_t, p, 0, cml_hier_ld32,
                          path);
    else if (op == CML_HIER_WRITE)
        CML_ST_FN(16u + j % 16u, CML_CACHE_CA, q, 0, cml_hier_write_value(i, key),
                  cml_hier_st32);
    else
        CML_ST_FN(16u + j % 16u, CML_CACHE_CA, q, 0,
                  CML_LD_FN1(j % 16u, CML_CACHE_CA, uint32_t, p, 0, cml_hier_ld32,
                             CML_HIER_CA),
                  cml_hier_st32);
    return acc;
}

/*
 * `count` rows of the per-block walk from row r (a multiple of 16), thread
 * t's word of each, over the `rows` rows from row `base` (0 and the array's
 * rows for the whole walk; a block's part for the sliced one). `small` (1, 2, 4, 8: the array's rows): each step covers
 * 16 / small whole passes from row 0; 0: any array, in segments up to the
 * array's end, 16 rows per step and one at a time for a segment's last rows
 * when it is not a multiple of 16. The kernel walks its block's rows from
 * cml_hier_block_start, the mirror one step of them at a time.
 */
CML_BODY uint32_t cml_hier_walk(CML_CTX, int op, int path, int small, const uint32_t *A,
                                uint32_t *C, uint64_t base, uint64_t rows, uint64_t r,
                                uint64_t count, unsigned t, uint32_t key, uint32_t acc)
{
    int offs[CML_HIER_STEP];
    if (small) {
        CML_UNROLL
        for (int u = 0; u < (int)CML_HIER_STEP; u++)
            offs[u] = (u % (small ? small : 1)) * (int)CML_HIER_BLOCK;
        for (uint64_t j = 0; j < count; j += CML_HIER_STEP)
            acc = cml_hier_step(CML_CTX_ARG, op, path, A + t, C + t, t, key, acc, offs, j);
        return acc;
    }
    CML_UNROLL
    for (int u = 0; u < (int)CML_HIER_STEP; u++)
        offs[u] = u * (int)CML_HIER_BLOCK;
    uint64_t left = count;
    while (left > 0) {
        const uint64_t seg = rows - r < left ? rows - r : left;
        uint64_t i = (base + r) * CML_HIER_BLOCK + t;
        uint64_t k = 0;
        for (; k + CML_HIER_STEP <= seg; k += CML_HIER_STEP, i += CML_HIER_STEP * CML_HIER_BLOCK)
            acc = cml_hier_step(CML_CTX_ARG, op, path, A + i, C + i, i, key, acc, offs,
                                count - left + k);
        for (; k < seg; k++, i += CML_HIER_BLOCK)
            acc = cml_hier_one(CML_CTX_ARG, op, path, A + i, C + i, i, key, acc,
                               count - left + k);
        left -= seg;
        r = 0;
    }
    return acc;
}

/*
 * `count` loads (a multiple of 16) of the partitioned walk from word i (<
 * W): a grid-stride loop, 16 loads in flight per thread, the index stepped
 * by T and wrapped once at W (T <= W) rather than divided.
 */
CML_BODY uint32_t cml_hier_stream(CML_CTX, int op, int path, const uint32_t *A, uint32_t *C,
                                  uint64_t rows, uint32_t grid, uint64_t i, uint64_t count,
                                  uint32_t key, uint32_t acc)
{
    const uint64_t T = (uint64_t)grid * CML_HIER_BLOCK, W = rows * CML_HIER_BLOCK;
    for (uint64_t j = 0; j < count; j += CML_HIER_STEP) {
        uint64_t idx[CML_HIER_STEP];
        CML_UNROLL
        for (int u = 0; u < (int)CML_HIER_STEP; u++) {
            idx[u] = i;
            i += T;
            if (i >= W)
                i -= W;
        }
        if (op == CML_HIER_WRITE) {
            CML_UNROLL
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                CML_ST_FN(16 + u, CML_CACHE_CA, C, idx[u], cml_hier_write_value(idx[u], key),
                          cml_hier_st32);
        } else {
            const int lp = op == CML_HIER_READ ? path : CML_HIER_CA;
            uint32_t v[CML_HIER_STEP];
            CML_UNROLL
            for (int u = 0; u < (int)CML_HIER_STEP; u++)
                v[u] = CML_LD_FN1(u, cml_hier_path_cache(lp), uint32_t, A, idx[u],
                                  cml_hier_ld32, lp);
            CML_UNROLL
            for (int u = 0; u < (int)CML_HIER_STEP; u++) {
                if (op == CML_HIER_READ)
                    acc += v[u];
                else
                    CML_ST_FN(16 + u, CML_CACHE_CA, C, idx[u], v[u], cml_hier_st32);
            }
        }
    }
    return acc;
}

/*
 * Accesses j .. j + count - 1 of block b's sliced write or copy
 * (cml_hier_slice_word): each pass over its part through cml_hier_walk.
 * The kernel walks all of a block's accesses, the mirror one step of them.
 */
CML_BODY uint32_t cml_hier_slice(CML_CTX, int op, int path, const uint32_t *A, uint32_t *C,
                                 uint64_t rows, uint64_t parts, uint64_t b, uint64_t j,
                                 uint64_t count, unsigned t, uint32_t key, uint32_t acc)
{
    const uint64_t n = rows / parts;
    while (count > 0) {
        const uint64_t r = j % n, piece = n - r < count ? n - r : count;
        acc = cml_hier_walk(CML_CTX_ARG, op, path, 0, A, C, b % parts * n, n, r, piece, t, key,
                            acc);
        j += piece;
        count -= piece;
    }
    return acc;
}

/* Whether a sliced read's block moves on to the next chunks: it reads
 * per_block / 16 pieces (cml_hier_bw_body: per_block rows of 256 threads,
 * 4 loads a piece for 1024), more than the chunk's. */
CML_HD int cml_hier_chunk_rotates(uint64_t chunk, uint64_t per_block)
{
    return per_block / (CML_HIER_PIECE_LOADS * CML_HIER_CHUNK_BLOCK / CML_HIER_BLOCK) > chunk;
}

/* The pieces of a pass of cml_hier_chunks that stays in block b's chunk,
 * from its load j on. The piece index is stepped and wrapped by subtraction, not
 * divided (a 64-bit division a piece would cost more issue slots than the
 * loads leave at L2's rate); the wrap never comes in such a pass, but the
 * loop is the one measured (below). */
CML_BODY uint32_t cml_hier_chunk_stay(CML_CTX, int path, const uint32_t *A, uint64_t parts,
                                      uint64_t chunk, uint64_t b, uint64_t j, uint64_t count,
                                      unsigned T, uint32_t acc)
{
    const uint32_t *first = A + (b % parts) * CML_HIER_STEP * CML_HIER_BLOCK + T;
    const uint64_t apart = parts * CML_HIER_STEP * CML_HIER_BLOCK; /* words, piece to piece */
    uint64_t x = j / CML_HIER_PIECE_LOADS % chunk;
    for (uint64_t k = 0; k < count; k += CML_HIER_STEP) {
        CML_UNROLL
        for (int s = 0; s < (int)(CML_HIER_STEP / CML_HIER_PIECE_LOADS); s++) {
            const uint64_t at = x * apart;
            if (++x == chunk)
                x = 0;
            CML_UNROLL
            for (int r = 0; r < (int)CML_HIER_PIECE_LOADS; r++)
                acc += CML_LD_FN1(s * (int)CML_HIER_PIECE_LOADS + r, cml_hier_path_cache(path),
                                  uint32_t, first,
                                  at + (uint64_t)r * CML_HIER_PIECE_LOADS * CML_HIER_BLOCK,
                                  cml_hier_ld32, path);
        }
    }
    return acc;
}

/* The same from piece x of chunk c on, moving on to the next chunk where
 * one ends. */
CML_BODY uint32_t cml_hier_chunk_rotate(CML_CTX, int path, const uint32_t *A, uint64_t parts,
                                        uint64_t chunk, uint64_t c, uint64_t x, uint64_t count,
                                        unsigned T, uint32_t acc)
{
    const uint64_t apart = parts * CML_HIER_STEP * CML_HIER_BLOCK;
    const uint32_t *piece = A + c * CML_HIER_STEP * CML_HIER_BLOCK + T + x * apart;
    for (uint64_t k = 0; k < count; k += CML_HIER_STEP) {
        CML_UNROLL
        for (int s = 0; s < (int)(CML_HIER_STEP / CML_HIER_PIECE_LOADS); s++) {
            CML_UNROLL
            for (int r = 0; r < (int)CML_HIER_PIECE_LOADS; r++)
                acc += CML_LD_FN1(s * (int)CML_HIER_PIECE_LOADS + r, cml_hier_path_cache(path),
                                  uint32_t, piece,
                                  (uint64_t)r * CML_HIER_PIECE_LOADS * CML_HIER_BLOCK,
                                  cml_hier_ld32, path);
            piece += apart;
            if (++x == chunk) { /* on to the next chunk */
                x = 0;
                if (++c == parts)
                    c = 0;
                piece = A + c * CML_HIER_STEP * CML_HIER_BLOCK + T;
            }
        }
    }
    return acc;
}

/*
 * Loads j .. j + count - 1 (j and count multiples of 16) of thread T of
 * block b in the sliced read (cml_hier_chunk_word): 16 loads a step, four
 * pieces, each piece's four loads summed as they come. The shape is
 * measured: the same loads held in an array of 16 and summed after the
 * step, with the pieces' offsets in an array of 4, capped a 1.5 MiB set at
 * 10.7 TB/s on an H200, where this one reads 13.2 and gpu-l2-cache 12.8
 * (bench/results/h200/2026-11-29-slice-chunks/).
 * Loads that stay in one chunk (a chunk of 32 pieces: all of gpu-l2-cache's
 * sizes) take cml_hier_chunk_stay, the loop measured there; the kernels
 * are two, one loop each (cml_hier_bw_body's `rotate`). Other shapes read
 * less at 1.5 MiB, A/B in one call on an H200
 * (bench/results/h200/2026-11-29-final/): the move to the next chunk in
 * the same unrolled step (the chunk's index left the block's uniform
 * registers for every thread's) read 4-7% below gpu-l2-cache at 1.5 and
 * 39.5 MiB; a pointer stepped a piece (half the instructions, both loops
 * in one kernel) 4-5% below this loop alone at 1.5 MiB. This loop beside
 * the rotating one in one kernel compiles with its index in every
 * thread's registers too (SASS; not run); alone it is 1cf02c4's, the same
 * SASS.
 */
CML_BODY uint32_t cml_hier_chunks(CML_CTX, int path, const uint32_t *A, uint64_t parts,
                                  uint64_t chunk, uint64_t b, uint64_t j, uint64_t count,
                                  unsigned T, uint32_t acc)
{
    const uint64_t q = j / CML_HIER_PIECE_LOADS;
    if (q + count / CML_HIER_PIECE_LOADS <= chunk)
        return cml_hier_chunk_stay(CML_CTX_ARG, path, A, parts, chunk, b, j, count, T, acc);
    const uint64_t c = (b + q / chunk) % parts, x = q % chunk; /* the chunk, the piece in it */
    return cml_hier_chunk_rotate(CML_CTX_ARG, path, A, parts, chunk, c, x, count, T, acc);
}

/* A bandwidth kernel's thread: its walk, then the read's sum (site 0) where
 * `sums` asks for it. */
CML_BODY void cml_hier_bw_body(CML_CTX, int op, int path, int small, int stream, uint64_t parts,
                               uint64_t chunk, int rotate, int sums, const uint32_t *A,
                               uint32_t *C, uint32_t *out, uint64_t rows, uint64_t per_block,
                               uint32_t grid, uint32_t key)
{
    const unsigned t = CML_TID_X;
    uint32_t acc = 0;
    if (op == CML_HIER_READ && parts && chunk) {
        /* `rotate` a constant of the kernel (cml_hier_chunk_rotates): each
         * kernel holds one loop (cml_hier_chunks says why) */
        const uint64_t count = per_block * CML_HIER_BLOCK / CML_HIER_CHUNK_BLOCK;
        acc = rotate ? cml_hier_chunk_rotate(CML_CTX_ARG, path, A, parts, chunk,
                                             CML_BID_X % parts, 0, count, t, acc)
                     : cml_hier_chunk_stay(CML_CTX_ARG, path, A, parts, chunk, CML_BID_X, 0,
                                           count, t, acc);
        if (sums)
            CML_ST(0, CML_ST_PLAIN, out, (uint64_t)CML_BID_X * CML_HIER_CHUNK_BLOCK + t, acc);
        return;
    }
    if (parts) {
        acc = cml_hier_slice(CML_CTX_ARG, op, path, A, C, rows, parts, CML_BID_X, 0, per_block,
                             t, key, acc);
    } else if (stream) {
        acc = cml_hier_stream(CML_CTX_ARG, op, path, A, C, rows, grid,
                              (uint64_t)CML_BID_X * CML_HIER_BLOCK + t, per_block, key, acc);
    } else {
        acc = cml_hier_walk(CML_CTX_ARG, op, path, small, A, C, 0, rows,
                            small ? 0 : cml_hier_block_start(CML_BID_X, grid, rows), per_block,
                            t, key, acc);
    }
    if (op == CML_HIER_READ && sums)
        CML_ST(0, CML_ST_PLAIN, out, (uint64_t)CML_BID_X * CML_HIER_BLOCK + t, acc);
}

/* `hops` dependent loads (a multiple of 16, sites 0..15) from p, the pointer
 * at position pos of `chain` (the mirror's); the pointer the last one read. */
CML_BODY uint64_t cml_hier_hops(CML_CTX, int path, uint64_t p, uint64_t hops,
                                const cml_hier_chain *chain, uint64_t pos)
{
    for (uint64_t k = 0; k < hops; k += CML_HIER_STEP) {
        CML_UNROLL
        for (int u = 0; u < (int)CML_HIER_STEP; u++)
            p = CML_LDV_FN1(u, cml_hier_path_cache(path), uint64_t,
                            (const uint64_t *)(uintptr_t)p, 0, cml_hier_ld64, path,
                            cml_hier_chain_ptr(chain, pos + k + u + 1));
    }
    return p;
}

/* The chase kernel's thread (warp b = the block): the cursor load (site 0;
 * the mirror's: the pointer at position `first` of `chain`), the walk that
 * warms, the timed walk, and lane 0's report (sites 1-3: its three 16-byte
 * words of out; 4: its cursor). */
CML_BODY void cml_hier_chase_body(CML_CTX, int path, uint64_t *cursor, uint64_t *out,
                                  uint64_t hops, const cml_hier_chain *chain, uint64_t first)
{
    const uint64_t b = CML_BID_X;
    uint64_t p = CML_LDV_FN1(0, cml_hier_path_cache(path), uint64_t, cursor, b, cml_hier_ld64,
                             path, cml_hier_chain_ptr(chain, first));
    const uint64_t start = p, warm = hops * (CML_HIER_CHASE_WALKS - 1);
    p = cml_hier_hops(CML_CTX_ARG, path, p, warm, chain, first);
    const long long c0 = cml_hier_clock();
    const uint64_t t0 = cml_hier_ns();
    p = cml_hier_hops(CML_CTX_ARG, path, p, hops, chain, first + warm);
    const long long c1 = cml_hier_clock();
    const uint64_t t1 = cml_hier_ns();
    if (CML_TID_X == 0) {
        ulonglong2 *o = (ulonglong2 *)out + 3 * b;
        CML_ST(1, CML_ST_PLAIN, o, 0, make_ulonglong2(start, p));
        CML_ST(2, CML_ST_PLAIN, o, 1, make_ulonglong2((unsigned long long)(c1 - c0), t1 - t0));
        CML_ST(3, CML_ST_PLAIN, o, 2, make_ulonglong2(cml_hier_smid(), 0));
        CML_ST(4, CML_ST_PLAIN, cursor, b, p);
    }
}

/*
 * The per-hop chase (near and far halves of L2, docs/experiments/
 * hierarchy.md "Near and far"): warp b warms with `hops` hops, then times
 * each of `hops` more on its own: clock64, the load, the loaded pointer
 * stored to shared memory (the store waits for the load, so the second
 * clock64 does too), clock64; lane 0 counts the difference into its bin.
 * Timing a hop adds cycles (33-42 on an H200), which the host measures
 * against the untimed chase and takes off. Sites: 16 the cursor, 17 the
 * timed load, 18-21 and 24 shared memory, 22-23 the counts and the cursor out.
 */
CML_BODY void cml_hier_chase_hist_body(CML_CTX, int path, uint64_t *cursor, uint32_t *hist,
                                       uint64_t hops, const cml_hier_chain *chain,
                                       uint64_t first)
{
    CML_SHARED_ARRAY(uint32_t, h, CML_HIER_HIST_BINS, 0);
    CML_SHARED_ARRAY(volatile uint64_t, sink, CML_WARP_SIZE, 4 * CML_HIER_HIST_BINS);
    const unsigned t = CML_TID_X;
    const uint64_t b = CML_BID_X;
    for (unsigned i = t; i < CML_HIER_HIST_BINS; i += CML_WARP_SIZE)
        CML_STS(18, h, i, 0u);
    CML_SYNC();
    uint64_t p = CML_LDV_FN1(16, cml_hier_path_cache(path), uint64_t, cursor, b, cml_hier_ld64,
                             path, cml_hier_chain_ptr(chain, first));
    p = cml_hier_hops(CML_CTX_ARG, path, p, hops, chain, first);
    for (uint64_t k = 0; k < hops; k++) {
        const long long c0 = cml_hier_clock_fenced();
        const uint64_t q = CML_LDV_FN1(17, cml_hier_path_cache(path), uint64_t,
                                       (const uint64_t *)(uintptr_t)p, 0, cml_hier_ld64, path,
                                       cml_hier_chain_ptr(chain, first + hops + k + 1));
        CML_STS(19, sink, t, q);
        const long long c1 = cml_hier_clock_fenced();
        p = q;
        if (t == 0) {
            const uint64_t d = (uint64_t)(c1 - c0) / CML_HIER_HIST_CYCLES;
            const unsigned bin = d < CML_HIER_HIST_BINS ? (unsigned)d : CML_HIER_HIST_BINS - 1;
            CML_STS(21, h, bin, CML_LDS(20, uint32_t, h, bin) + 1u);
        }
    }
    CML_SYNC();
    for (unsigned i = t; i < CML_HIER_HIST_BINS; i += CML_WARP_SIZE)
        CML_ST(22, CML_ST_PLAIN, hist, b * CML_HIER_HIST_BINS + i, CML_LDS(24, uint32_t, h, i));
    if (t == 0)
        CML_ST(23, CML_ST_PLAIN, cursor, b, p);
}

#ifdef __CUDACC__
#include "experiments/hierarchy/hierarchy_kernels.h"
#endif

#endif
