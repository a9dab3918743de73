/*
 * Probe kernels (probe_kernels.cu): one warp-level memory instruction with
 * lane addresses taken from a table, repeated, so that hardware counters can
 * be read per instruction and set beside the model's rule for it (the open
 * questions E1, E2, E4, E5, E7 of docs/model.md §9; docs/model-evidence.md §3).
 *
 * Each warp runs in a block of its own. Warp w, iteration it uses the
 * region at buf + (w * iters + it) * region; lane l's address is that plus
 * off[l] (cml_probe_set_lanes), and the access is predicated on bit l of
 * the active mask, so an instruction with no active lane is still issued.
 * Within an iteration the instruction is issued `repeat` times on the same
 * addresses. Shared-memory kinds use the same offsets in a 32 KiB array.
 * Loads and stores are inline PTX, so width and cache operator are exactly
 * the ones named (ld.global.ca.v4.u32, st.global.cs.u8, ld.shared.v2.u32...).
 */
#ifndef CML_PROBE_KERNELS_H
#define CML_PROBE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_probe_kind {
    CML_PROBE_GLOBAL_LD = 0,
    CML_PROBE_GLOBAL_ST,
    CML_PROBE_ST_THEN_LD, /* st.global.wb then ld.global.ca of the same addresses */
    CML_PROBE_SHARED_LD,
    CML_PROBE_SHARED_ST,
    CML_PROBE_KIND_COUNT
} cml_probe_kind;

#define CML_PROBE_SHARED_BYTES 32768u

typedef struct cml_probe_launch {
    int kind;          /* cml_probe_kind */
    int cache;         /* loads: 0 ca, 1 cg, 2 nc; stores: 0 wb, 1 cg, 2 cs */
    unsigned width;    /* 1, 2, 4, 8 or 16 bytes per lane */
    unsigned repeat;   /* issues per iteration on the same addresses (>= 1) */
    unsigned iters;    /* iterations per warp, each on its own region (>= 1) */
    unsigned warps;    /* warps, one per block (>= 1) */
    uint64_t region;   /* bytes between regions */
    void *buf;         /* device buffer of cml_probe_bytes() bytes (global kinds) */
} cml_probe_launch;

/* Bytes of device memory a launch addresses (regions plus the lane span). */
CML_LAUNCHER uint64_t cml_probe_bytes(const cml_probe_launch *a, uint32_t max_off);

/* Copy the lane offsets (bytes, each a multiple of the width) and the
 * active mask to the kernels' constant table, and wait. Done outside any
 * profiled range: the copy is not part of what is counted. */
CML_LAUNCHER cml_status cml_probe_set_lanes(const uint32_t off[32], uint32_t active);

/* A cml_launch_fn: start one probe kernel (asynchronously). */
CML_LAUNCHER cml_status cml_probe_launch_fn(void *args);

#ifdef __cplusplus
}
#endif
#endif
