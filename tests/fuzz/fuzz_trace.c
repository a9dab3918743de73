/*
 * libFuzzer target for the trace file's reader (src/trace/trace_read.c):
 * a trace is whatever file --from is given. Besides the sanitizers' own
 * checks, it aborts when an invariant breaks:
 *   - an error is one NUL-terminated line beginning "offset B" with B at
 *     most the input's length;
 *   - what parses walks to its end: every kernel gives exactly the records
 *     it counts, each with a valid space, op, size, a non-empty mask of
 *     lanes that exist, a block and warp inside the launch, in order;
 *   - the reader does not depend on the byte after the input (it is copied
 *     into a buffer of exactly its size, so ASan sees any overread).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_kernel(const cml_tf_kernel *k)
{
    const uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    const uint64_t blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
    cml_tf_cursor c;
    cml_tf_ins r, prev;
    uint64_t n = 0;
    cml_tf_cursor_init(&c, k);
    while (cml_tf_next(&c, &r)) {
        if (r.space >= CML_TF_SPACES || r.op >= CML_TF_OPS || r.active == 0 || r.size == 0 ||
            r.size > 16 || (r.size & (r.size - 1u)) || r.block >= blocks ||
            (uint64_t)r.warp * 32u >= threads)
            abort();
        const uint64_t lanes = threads - (uint64_t)r.warp * 32u;
        if (lanes < 32 && (r.active >> lanes))
            abort();
        if (n && (r.block < prev.block || (r.block == prev.block && r.warp < prev.warp)))
            abort();
        prev = r;
        n++;
    }
    if (n != k->nins)
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
    if (cml_tf_parse(copy, size, &t, err, sizeof err) != 0) {
        unsigned long long at = 0;
        if (sscanf(err, "offset %llu", &at) != 1 || at > size || strchr(err, '\n'))
            abort();
        return 0;
    }
    for (size_t k = 0; k < t.nkernels; k++) {
        check_kernel(&t.kernel[k]);
        const cml_tf_counters *c = cml_tf_counters_of(&t, &t.kernel[k]);
        if (c && (c->launch != t.kernel[k].launch || !c->kernel))
            abort();
    }
    for (size_t i = 0; i < t.ncounters; i++) {
        const cml_tf_counters *c = &t.counters[i];
        if (c->n > CML_TF_MAX_METRICS || !c->kernel || !c->error || (c->n && !c->values))
            abort();
        for (size_t m = 0; m < c->n; m++)
            if (!c->metrics[m])
                abort();
    }
    for (size_t i = 0; i < t.npcnt; i++) {
        const cml_tf_pc_counters *c = &t.pcnt[i];
        if (c->nmetrics > CML_TF_MAX_METRICS || c->npcs > CML_TF_MAX_SASS_PCS || !c->kernel)
            abort();
        for (size_t k = 1; k < c->npcs; k++)
            if (c->pcs[k] <= c->pcs[k - 1] || cml_tf_pc_row(c, c->pcs[k]) != k)
                abort();
    }
    cml_tf_free(&t);
    return 0;
}
