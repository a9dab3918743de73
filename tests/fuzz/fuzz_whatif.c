/*
 * libFuzzer target for the model over a trace and the what-if transforms
 * (src/trace/trace_model.c, src/trace/trace_whatif.c): whatever addresses
 * a trace holds (any trace that parses, every lane's address a free 64-bit
 * value) go through the model and through every transform that applies.
 * Besides the sanitizers' checks, it aborts when an invariant breaks:
 *   - a transform's `before` is the site's own figures (the same warps
 *     through the same rules);
 *   - it changed at least one warp and no more than it modelled;
 *   - a pad or a structure of arrays keeps one request a warp; wider
 *     accesses never make more requests, and move the same bytes;
 *   - the transforms are the ones that apply: at most CML_WI_MAX, each
 *     kind with its parameter in range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_model.h"
#include "trace/trace_whatif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const cml_tf_site *s, const cml_wi_list *l)
{
    if (!l->examined || l->n > CML_WI_MAX)
        abort();
    for (size_t i = 0; i < l->n; i++) {
        const cml_wi *w = &l->item[i];
        if (memcmp(&w->before, &s->traffic, sizeof w->before) != 0)
            abort();
        if (w->warps == 0 || w->warps > w->of || w->of > s->records)
            abort();
        switch (w->kind) {
        case CML_WI_PAD:
        case CML_WI_SOA:
            if (w->after.requests != w->before.requests ||
                (w->kind == CML_WI_PAD && (w->k < 1 || w->k > 32)))
                abort();
            break;
        case CML_WI_VECTOR:
            if (w->after.requests > w->before.requests ||
                w->after.requested_bytes != w->before.requested_bytes ||
                (w->k != 2u * s->size && w->k != 4u * s->size) || w->k > 16)
                abort();
            break;
        default: abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    cml_trace t;
    char err[400];
    if (cml_tf_parse(copy, size, &t, err, sizeof err) != 0)
        return 0;
    for (size_t k = 0; k < t.nkernels; k++) {
        cml_tf_model m;
        if (cml_tf_model_kernel(&t, &t.kernel[k], &m) != CML_OK)
            continue;
        for (size_t s = 0; s < m.nsites && s < 8u; s++) {
            cml_wi_list l;
            if (cml_wi_site(&t.kernel[k], &m.sites[s], &l) == CML_OK)
                check(&m.sites[s], &l);
        }
        cml_tf_model_free(&m);
    }
    cml_tf_free(&t);
    return 0;
}
