/* Experiment 9 (local memory): the kernel mirror and its arguments, shared
 * with the GPU run (local.cu, a later issue). */
#ifndef CML_EXP_LOCAL_H
#define CML_EXP_LOCAL_H

#include "experiments/experiment.h"

/* Largest per-thread array: the kernels declare float arr[CML_LOCAL_KMAX]
 * and use the first K elements, so one kernel serves every K. */
#define CML_LOCAL_KMAX 256u

typedef enum cml_local_pattern {
    CML_LOCAL_SAME_INDEX = 0, /* every lane loads arr[s]                */
    CML_LOCAL_LANE_VARYING,   /* lane l loads arr[(l + s) % K]          */
    CML_LOCAL_STRUCT,         /* lane l loads big.f[(l + s) % K]        */
    CML_LOCAL_SPILL           /* register spills: modelled as same-index */
} cml_local_pattern;

typedef struct cml_local_args {
    uint64_t n;                 /* threads with work (one element each)   */
    unsigned K;                 /* array length / struct fields used      */
    unsigned s;                 /* run-time index, 0 <= s < K             */
    cml_local_pattern pattern;
    /* Model only: pass on this thread's emissions [emit_lo, emit_hi) and
     * drop the others, so that a thread making more than CML_MAX_EMITS
     * accesses (K up to 256 stores + 3) is traced in pieces whose totals add
     * up exactly (every lane of a warp makes the same sequence). */
    unsigned emit_lo, emit_hi;
} cml_local_args;

void cml_local_mirror(const cml_thread *t, const void *args, cml_emitter *e);

extern const cml_experiment cml_exp_local;

#endif
