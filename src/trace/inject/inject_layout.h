/*
 * What the injection library's host side (inject.c) and its device patch
 * (patches.cu) share: the control block and the record of one warp-level
 * memory instruction, in device memory. C and CUDA C alike.
 */
#ifndef CML_TRACE_INJECT_LAYOUT_H
#define CML_TRACE_INJECT_LAYOUT_H

#include <stdint.h>

/* One warp instruction as the patch writes it: the first active lane
 * fills the header, every active lane its own address. */
typedef struct cml_inject_rec {
    uint64_t pc;         /* absolute, as the API reports it                */
    uint64_t block;      /* linear block index (x fastest)                 */
    uint32_t warp;       /* warp in the block                              */
    uint32_t active;     /* __activemask() in the patch                    */
    uint32_t attr;       /* space | op << 2, as trace_format.h             */
    uint32_t size;       /* bytes per lane                                 */
    uint64_t addr[32];
} cml_inject_rec;

/* The control block of one traced launch (the patches' userdata). */
typedef struct cml_inject_ctl {
    unsigned long long used;      /* records reserved (may pass capacity)  */
    unsigned long long capacity;  /* records the buffer holds              */
    unsigned long long stride;    /* warps recorded: linear index % stride == 0 */
    unsigned long long warps_per_block;
    unsigned int *lost;           /* bit j: sampled warp j (index / stride)
                                     lost a record to a full buffer        */
    cml_inject_rec *recs;
} cml_inject_ctl;

#endif
