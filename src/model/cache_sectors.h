/*
 * Inside the cache-level simulator: a warp instruction cut into the distinct
 * 32-byte sectors it touches, in the order they first appear, with the
 * bytes it covers in each (cache_sectors.c).
 */
#ifndef CML_MODEL_CACHE_SECTORS_H
#define CML_MODEL_CACHE_SECTORS_H

#include "cumemlab/model.h"

#include <stdint.h>

#define FULL_SECTOR 0xFFFFFFFFu

#define MAX_SECTORS (4u * CML_WARP_SIZE)
/* Slots of the table that finds a sector already listed: twice the most
 * sectors an instruction can have, so it is never more than half full. */
#define SECTOR_SLOTS (2u * MAX_SECTORS)

typedef struct cml_sectors {
    unsigned n;
    int hashed;                 /* slot[] lists every sector; until then they ascend */
    uint64_t sec[MAX_SECTORS];
    uint32_t mask[MAX_SECTORS]; /* bytes of the sector the instruction covers */
    uint8_t slot[SECTOR_SLOTS]; /* index + 1 in sec[] of a sector hashed here; 0: empty */
} cml_sectors;

/* The sectors of `a`, issued from warp slot `warp` (cml_cache_warp_slot,
 * which places local memory). CML_EMISALIGNED for an active lane off its width, CML_EINVAL for
 * a local frame offset >= 2^32. The caller has checked the width (1, 2, 4,
 * 8 or 16) and the space (global or local). */
cml_status cml_sectors_of(const cml_access *a, uint64_t warp, cml_sectors *v);

#endif
