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
 *     kind with its parameter in range;
 *   - a block shape (src/trace/trace_shape.c) has the launch's threads and
 *     is not its own; under it every fitted instruction keeps its
 *     requests and bytes asked (the same threads), the launch wastes
 *     strictly fewer bytes, and the sums are those of the instructions.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_model.h"
#include "trace/trace_shape.h"
#include "trace/trace_whatif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const cml_tf_site *s, const cml_wi_list *l)
{
    if (!l->examined || l->n > CML_WI_MAX)
        abort();
    for (size_t i = 0; i < l->n; i++) {
        const cml_wi *w = &l->item[i];
        if (w->kind == CML_WI_SHAPE) {
            /* before and after on every thread of the recorded blocks once:
             * the same warps, the last of the list, from the launch's fit */
            if (i + 1u != l->n || !l->launch || !cml_ws_has_best(l->launch) ||
                w->warps != w->of || w->before.requests != w->after.requests ||
                w->before.instructions != w->of)
                abort();
            continue;
        }
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

static void check_shape(const cml_tf_kernel *k, const cml_tf_model *m, const cml_ws_launch *sh)
{
    if (sh->nsites != m->nsites)
        abort();
    uint64_t before = 0, after = 0;
    size_t fitted = 0;
    for (size_t i = 0; i < sh->nsites; i++) {
        const cml_ws_site *ws = &sh->site[i];
        if (ws->site != &m->sites[i])
            abort();
        if (ws->status != CML_WS_FIT)
            continue;
        fitted++;
        before += ws->waste_before;
        after += ws->waste_after;
        if (ws->nbases == 0 || ws->nbases > 128u || (ws->pinned & 3u) != 3u)
            abort();
        if (cml_ws_has_best(sh) && (ws->after.requests != ws->before.requests ||
                                    ws->after.requested_bytes != ws->before.requested_bytes))
            abort();
    }
    if (fitted != sh->fitted || before != sh->waste_before)
        abort();
    if (!cml_ws_has_best(sh))
        return;
    const uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    if ((uint64_t)sh->best[0] * sh->best[1] * sh->best[2] != threads ||
        sh->best[0] == k->block[0] || sh->best[2] != k->block[2] ||
        (sh->best[0] & (sh->best[0] - 1u)) != 0 || after != sh->waste_after ||
        sh->waste_after >= sh->waste_before)
        abort();
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
        cml_ws_launch sh;
        const int fitted = cml_ws_launch_fit(&t.kernel[k], &m, &sh) == CML_OK;
        if (fitted)
            check_shape(&t.kernel[k], &m, &sh);
        for (size_t s = 0; s < m.nsites && s < 8u; s++) {
            cml_wi_list l;
            if (cml_wi_site(&t.kernel[k], &m.sites[s], &l) != CML_OK)
                continue;
            if (fitted)
                cml_wi_shape(&sh, &m.sites[s], &l);
            check(&m.sites[s], &l);
        }
        if (fitted)
            cml_ws_launch_free(&sh);
        cml_tf_model_free(&m);
    }
    cml_tf_free(&t);
    return 0;
}
