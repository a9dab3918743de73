/*
 * Inside the project: the emitter cml_emit() records into, and the same
 * recording as an inline function. The mirrors compiled from a kernel's
 * body (gpu/kernel_body.h) call it for every access of every thread, with
 * the site and attributes known at compile time: inlined, the checks and
 * the packing fold away (a call to cml_emit cost about 40 instructions, a
 * fifth of tracing a thread). Not part of the public API: the layout may
 * change with the library.
 */
#ifndef CML_MODEL_EMITTER_H
#define CML_MODEL_EMITTER_H

#include "cumemlab/model.h"

struct cml_emitter {
    cml_status err;   /* sticky: the first error of any emission      */
    unsigned lane;    /* lane whose thread is running                 */
    unsigned n;       /* emissions of that thread so far              */
    unsigned cap;     /* emissions meta and ins have room for (grown up to
                         CML_MAX_EMITS as threads need them: most emit a
                         few, and a trace call zeroed 100 KB for 256)    */
    uint32_t *meta;   /* [cap][CML_WARP_SIZE] packed attributes        */
    cml_access *ins;  /* [cap]: ins[k].addr[lane]                      */
};

/* An emission the fast path does not take: room to grow, or an error
 * (trace.c). */
void cml_emit_slow(cml_emitter *e, unsigned site, cml_space space, cml_op op, cml_cache cache,
                   unsigned width, uint64_t addr);

/* Packed attributes of one emission: site 0-7, space 8-11, op 12-15,
 * cache 16-19, width 20-27. 0 means "unseen" to the tracer; a packed 0
 * (width 0) is rejected by the model before it could be mistaken for that. */
static inline uint32_t cml_emit_pack(unsigned site, unsigned space, unsigned op,
                                     unsigned cache, unsigned width)
{
    return (uint32_t)site | (uint32_t)space << 8 | (uint32_t)op << 12 |
           (uint32_t)cache << 16 | (uint32_t)width << 20;
}

/* cml_emit() itself (model.h says what it does). */
static inline void cml_emit_inline(cml_emitter *e, unsigned site, cml_space space, cml_op op,
                                   cml_cache cache, unsigned width, uint64_t addr)
{
    if (e == NULL)
        return;
    const unsigned k = e->n;
    const unsigned fields = (unsigned)space | (unsigned)op | (unsigned)cache;
    if ((k >= e->cap) | (site >= CML_MAX_SITES) | (fields > 0xFu) | (width > 0xFFu)) {
        cml_emit_slow(e, site, space, op, cache, width, addr);
        return;
    }
    e->meta[(size_t)k * CML_WARP_SIZE + e->lane] =
        cml_emit_pack(site, (unsigned)space, (unsigned)op, (unsigned)cache, width);
    e->ins[k].addr[e->lane] = addr;
    e->n = k + 1u;
}

/* cml_array_base(k), inline: (k + 1) * 2^40 (traffic.c says why). */
static inline uint64_t cml_array_base_inline(unsigned k)
{
    return ((uint64_t)k + 1u) << 40;
}

#endif
