/* Experiment 9 (local memory): the kernel mirror and its arguments, shared
 * with the GPU run (local.cu through local_kernels.h), and ptxas's table of
 * the kernels' registers, stack frames and spills (generated at build time
 * by cmake/ptxas_report.cmake). */
#ifndef CML_EXP_LOCAL_H
#define CML_EXP_LOCAL_H

#include "lab/experiment.h"

/* Largest per-thread array: the kernels declare float arr[CML_LOCAL_KMAX]
 * and use the first K elements, so one kernel serves every K. */
#define CML_LOCAL_KMAX 256u

typedef enum cml_local_pattern {
    CML_LOCAL_SAME_INDEX = 0, /* every lane loads arr[s]                */
    CML_LOCAL_LANE_VARYING,   /* lane l loads arr[(l + s) % K]          */
    CML_LOCAL_STRUCT,         /* lane l loads big.f[(l + s) % K]        */
    CML_LOCAL_SPILL           /* register spills: ptxas's spill bytes as
                                 same-index stores and loads            */
} cml_local_pattern;

typedef struct cml_local_args {
    uint64_t n;                 /* threads with work (one element each)   */
    unsigned K;                 /* array length / struct fields used      */
    unsigned s;                 /* run-time index, 0 <= s < K             */
    cml_local_pattern pattern;
    int regs;                   /* 1: the register-only twin (global accesses only) */
    /* Spill: the bytes ptxas spills per thread (its "spill stores" and
     * "spill loads"), each executed once: the spill kernel has no loop. */
    unsigned spill_store_bytes, spill_load_bytes;
    /* Model only: pass on this thread's emissions [emit_lo, emit_hi) and
     * drop the others (the mirror's cml_window, gpu/kernel_body.h), so that
     * a thread making more than CML_MAX_EMITS accesses (K up to 256 stores
     * + 3) is traced in pieces whose totals add up exactly (every lane of a
     * warp makes the same sequence). */
    unsigned emit_lo, emit_hi;
} cml_local_args;

void cml_local_mirror(const cml_thread *t, const void *args, cml_emitter *e);

/* One kernel's figures as ptxas printed them (`nvcc -Xptxas -v`). */
typedef struct cml_ptxas_entry {
    const char *mangled;        /* "_Z16local_same_indexPKfPfyii"         */
    const char *name;           /* "local_same_index"                     */
    int regs;                   /* "Used N registers"                     */
    unsigned stack_bytes;       /* "N bytes stack frame"                  */
    unsigned spill_store_bytes; /* "N bytes spill stores"                 */
    unsigned spill_load_bytes;  /* "N bytes spill loads"                  */
} cml_ptxas_entry;

/* The table for local.cu (entry kernels, then a NULL row), the architecture
 * ptxas compiled for ("sm_90") and "" or the reason the table is empty. */
extern const cml_ptxas_entry cml_local_ptxas[];
extern const unsigned cml_local_ptxas_count;
extern const char cml_local_ptxas_arch[];
extern const char cml_local_ptxas_status[];

/* The row of kernel `name` (as written in local.cu), or NULL. */
const cml_ptxas_entry *cml_local_ptxas_find(const char *name);

extern const cml_experiment cml_exp_local;

#endif
