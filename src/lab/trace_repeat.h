/*
 * The exact shortcut of a grid whose blocks repeat (trace_repeat.c): one
 * representative of every kind of block, counted as often as its kind
 * occurs, gives the same totals as a walk of every block.
 *
 * Each axis of the grid (x, y, z) is cut into runs of consecutive blocks;
 * in a run with period p, block k moves the traffic of block k - p of the
 * same run (its addresses are those shifted by whole 128-byte lines in
 * every array, and the same lanes are active), and a run with p >= its
 * length is traced block by block. Along one axis the blocks of a run
 * therefore fall into min(p, length) kinds, and a block of the grid is of
 * the kind its three coordinates give: the claim is that the kind alone
 * decides its traffic. Guards against array ends are what makes runs: the
 * blocks they cut are runs of their own.
 */
#ifndef CML_LAB_TRACE_REPEAT_H
#define CML_LAB_TRACE_REPEAT_H

#include <stdint.h>

#include "lab/trace.h"

#define CML_EXP_MAX_RUNS 16

typedef struct cml_exp_run {
    uint64_t count;  /* blocks in the run; runs follow each other from block 0 */
    uint64_t period; /* >= 1; >= count: every block of the run is its own kind */
} cml_exp_run;

typedef struct cml_exp_axis {
    cml_exp_run run[CML_EXP_MAX_RUNS];
    unsigned nruns;
} cml_exp_axis;

/* An axis of n blocks: `head` blocks each its own, then blocks repeating
 * with `period`, then `tail` blocks each its own (head + tail >= n: every
 * block its own). */
cml_exp_axis cml_exp_axis_ends(uint64_t n, uint64_t head, uint64_t period, uint64_t tail);

/* Append a run to an axis; CML_EINVAL when it is full or the run is empty
 * of blocks or has period 0. */
cml_status cml_exp_axis_add(cml_exp_axis *a, uint64_t count, uint64_t period);

/* The fewest blocks k >= 1 for which k * shift_bytes is a whole number of
 * 128-byte lines: the period of blocks whose addresses move by shift_bytes
 * from one block to the next (1 for a shift of 0). */
uint64_t cml_exp_line_period(uint64_t shift_bytes);

/*
 * cml_exp_trace (common.h) for a grid described by `axes` (x, y, z; each
 * must add up to its dimension of grid): the model under both rule sets
 * from one block of each kind, weighted, then the cache levels of the
 * whole grid. Exact when the claim holds; three more blocks per rule set
 * are traced where a run repeats and compared with their kind's
 * representative, and a difference fails the record as a bug in the
 * caller's claim (CML_EINVAL), never a silent error. A grid with about as
 * many kinds as blocks is traced whole. *traced, when not NULL, gets the
 * blocks traced per rule set.
 */
cml_status cml_exp_trace_axes(cml_record *rec, cml_dim3 grid, cml_dim3 block,
                              const cml_exp_axis axes[3], cml_thread_fn fn, const void *args,
                              uint64_t *traced);

/*
 * A 1-D grid of `nblocks` blocks of `block` threads in which every block
 * moves the traffic of the block `period` before it, except the first
 * `head` and the last `tail` (guards at the array ends): cml_exp_trace_axes
 * with one axis. cml_exp_trace_1d (below) is period 1.
 */
cml_status cml_exp_trace_1d_period(cml_record *rec, uint64_t nblocks, unsigned block,
                                   uint64_t head, uint64_t tail, uint64_t period,
                                   cml_thread_fn fn, const void *args);

/*
 * cml_exp_trace for a 1-D grid of `nblocks` blocks of `block` threads in
 * which every block produces the same traffic as block 0 except possibly the
 * first `head` and the last `tail` blocks (guards at the array ends): those
 * are traced exactly, one block stands for the rest, and two more sampled
 * blocks are traced to check the claim (a mismatch is a CML_EINVAL bug
 * report, not a silent error). Exact when the claim holds, and O(head + tail)
 * instead of O(nblocks) work. The claim holds when each block's addresses are
 * the previous block's shifted by a multiple of 128 bytes in every array.
 */
cml_status cml_exp_trace_1d(cml_record *rec, uint64_t nblocks, unsigned block, uint64_t head,
                            uint64_t tail, cml_thread_fn fn, const void *args);

#endif
