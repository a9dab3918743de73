/*
 * Kernels of bench/gpu/hot_gather_l1.c: the read-only experiment's hot
 * gather (C[i] = T[cml_hot_index(i, m)], experiments/readonly) and four
 * variants that change one thing beside it (docs/model-evidence.md §4.9).
 */
#ifndef CML_HOT_GATHER_L1_KERNELS_H
#define CML_HOT_GATHER_L1_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CML_HG_BASE = 0, /* C[i] = T[hot(i)]: the experiment's kernel                     */
    CML_HG_WRAP,     /* C[i mod w] = T[hot(i)]: the same loads, the output stays in L2 */
    CML_HG_CG_TOUCH, /* base, and thread 0 of each block loads one table line (.cg)   */
    CML_HG_CG_STREAM, /* wrap, and every thread loads B[i] (.cg): L2 turned over by reads */
    CML_HG_CS_TOUCH, /* base, and thread 0 of each block loads one table line (.cs)   */
    CML_HG_KERNELS
};

/* The gather's load path. */
enum { CML_HG_CA = 0, CML_HG_NC, CML_HG_CS, CML_HG_PATHS };

typedef struct cml_hg_launch_args {
    const float *T;  /* the table, m floats */
    const float *B;  /* CML_HG_CG_STREAM: n floats read past L1 */
    float *C;        /* n floats (CML_HG_WRAP, _CG_STREAM: the first w) */
    uint64_t n, m, w; /* elements (a multiple of 256), table floats, wrap (powers of two) */
    int kernel;      /* CML_HG_* */
    int path;        /* CML_HG_CA, _NC or _CS: the gather's loads of the table */
    int persist;     /* 1: the table in L2's persisting window (cml_hg_persist first) */
} cml_hg_launch_args;

cml_status cml_hg_launch(void *args);
/* Wait for the launches so far (checked). */
cml_status cml_hg_sync(void);
/* The L2 set aside for persisting lines now (a device-wide limit). */
cml_status cml_hg_persist_limit(size_t *bytes);
/* Set it to `bytes`, the lines persisting so far reset to normal first. */
cml_status cml_hg_persist(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
