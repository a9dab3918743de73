/*
 * The blocks of a launch of affine index expressions (cml_expr_shape_of:
 * thread t of block b has first[t] + step * b) as runs of blocks for the
 * exact shortcut (trace_repeat.h), and the threads a guard 0 <= index < n
 * leaves inactive, counted without evaluating them (expr_runs.c).
 */
#ifndef CML_EXPERIMENTS_EXPR_RUNS_H
#define CML_EXPERIMENTS_EXPR_RUNS_H

#include <stdint.h>

#include "lab/trace_repeat.h"

/* One affine expression of the launch. */
typedef struct cml_expr_walk {
    const int64_t *first; /* the values of block 0's threads */
    int64_t step;         /* elements from one block to the next */
} cml_expr_walk;

/*
 * A 1-D launch of `threads` threads in blocks of `block`, whose threads
 * each access elements x[k] (k < nx, `elem` bytes each) of arrays of n
 * elements when every one lies in 0..n-1 (the guard): the blocks whose
 * threads all pass repeat with the line period of the steps (runs with
 * that period), those whose threads all fail issue nothing (period 1),
 * and those in between, and the partial last block, are runs of their
 * own. *inactive gets the threads the guard stops. CML_EUNSUPPORTED when
 * more than `max_single` blocks would be traced one by one (the caller
 * samples instead), or a value does not fit the arithmetic.
 */
cml_status cml_expr_runs(const cml_expr_walk *x, unsigned nx, uint64_t block, uint64_t threads,
                         uint64_t n, uint64_t elem, uint64_t max_single, cml_exp_axis *axis,
                         uint64_t *inactive);

#endif
