/*
 * The lab's model over a recorded launch: every warp instruction of a trace
 * (trace_file.h) goes through cml_model_access, the same per-instruction
 * rules the lab's own kernels' mirrors go through, summed per instruction
 * of the code (function and pc) and per traffic class; the global and local
 * ones also through the cache levels' simulator, wave by wave as
 * cml_trace_levels runs a whole grid (cache.h, cml_cache_sim_wave). So a
 * trace of a mirror's accesses gives exactly the mirror's figures.
 */
#ifndef CML_TRACE_MODEL_H
#define CML_TRACE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "cumemlab/cache.h"
#include "cumemlab/model.h"
#include "trace/trace_file.h"

/* One instruction of the code, over every warp recorded issuing it. */
typedef struct cml_tf_site {
    uint32_t func, pc;
    uint8_t space, op, size;
    uint64_t records;     /* warp instructions recorded                       */
    uint64_t refused;     /* of them, those the model refused (a misaligned
                             address, a local offset beyond 4 GiB)            */
    cml_traffic traffic;  /* the model's figures (modern rules), summed; zero
                             for atomics, which the model has no rules for   */
    cml_traffic fermi;    /* the same under the Fermi/Kepler rules           */
    uint64_t waste;       /* bytes wasted: global and local, sector bytes
                             moved beyond the bytes asked for; shared, the
                             wavefronts beyond the conflict-free ones, 128
                             bytes each (what a wavefront could have moved)  */
    cml_tf_ins example;   /* the first warp recorded issuing it             */
} cml_tf_site;

typedef struct cml_tf_model {
    cml_kernel_traffic cls;  /* per traffic class (modern rules)             */
    uint64_t records;        /* every record of the launch                   */
    uint64_t atomics;        /* atomic records (not modelled)                */
    uint64_t refused;        /* records the model refused                    */
    cml_cache_config cache;  /* what the cache levels assumed                */
    int has_levels;          /* 1: levels hold the cache levels' figures     */
    cml_levels levels;
    const char *no_levels;   /* why not, when has_levels is 0; what they cover
                                when the launch was sampled; "" otherwise      */
    cml_tf_site *sites;      /* by waste, most first (then function, pc)     */
    size_t nsites;
} cml_tf_model;

/*
 * The model of launch k of trace t into *out (free it with
 * cml_tf_model_free). The cache levels assume an H100
 * (cml_cache_config_h100) with the trace's SM count and L2 size where it
 * has them and the launch's shared memory per block. CML_OK, CML_ENOMEM,
 * or the cache simulator's error (a record the model refuses is counted,
 * not an error).
 */
cml_status cml_tf_model_kernel(const cml_trace *t, const cml_tf_kernel *k, cml_tf_model *out);
void cml_tf_model_free(cml_tf_model *m);

/* The model's access for a record: its space, op, width, mask and lane
 * addresses; cache operator CA (a trace does not tell the cache operator:
 * the modern rules' sectors do not depend on it). Atomics are not
 * converted (returns -1). */
int cml_tf_access(const cml_tf_ins *r, cml_access *a);

/* The model's figures of one record (modern rules) into *t, zeroed first:
 * 0, or -1 when the model refuses it or it is an atomic. What the what-if
 * transforms (trace_whatif.h, trace_shape.h) run on the warps they make. */
int cml_tf_model_ins(const cml_tf_ins *r, cml_traffic *t);

/* The bytes an instruction's figures waste, as cml_tf_site.waste counts
 * them for its space (cml_tf_space): what the ranking and the what-if
 * transforms (trace_whatif.h) both weigh. */
uint64_t cml_tf_waste(unsigned space, const cml_traffic *x);

#endif
