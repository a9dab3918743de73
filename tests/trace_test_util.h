/*
 * Traces for the tests of the model over a trace and its what-if
 * transforms (test_trace_whatif.c, test_trace_shape.c): synthetic records
 * written as a trace by the writer the injection library uses, read back
 * and modelled, so the code under test sees exactly what `cumemlab trace
 * --from` gives it; and the committed traces of the lab's own kernels
 * (tests/data/trace/, CML_TRACE_DATA). The including file defines
 * _XOPEN_SOURCE 700 (getpid) before its first include.
 */
#ifndef CML_TRACE_TEST_UTIL_H
#define CML_TRACE_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "trace/trace_model.h"

/* A trace of one launch of `grid` blocks of `block` threads holding
 * ins[0..n) (every warp of it recorded), read back into *t and modelled
 * into *m. 0, or -1 (a failed check). */
static inline int trace_load(const cml_tf_ins *ins, size_t n, const unsigned grid[3],
                             const unsigned block[3], cml_trace *t, cml_tf_model *m)
{
    char path[256], err[400];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/cml_trace_test_%ld.trace", dir && *dir ? dir : "/tmp",
             (long)getpid());
    cml_tf_header h = {"test", 90, 132, 0, "", 0, 1u << 20, "test"};
    cml_tf_writer *w = cml_tf_writer_open(path, &h, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return -1;
    cml_tf_func fn = {0, "k", "", 1, ""};
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    memcpy(k.grid, grid, sizeof k.grid);
    memcpy(k.block, block, sizeof k.block);
    const uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    k.warps_total = (uint64_t)grid[0] * grid[1] * grid[2] * ((threads + 31u) / 32u);
    k.stride = 1;
    /* the warps with records: they come by block, then warp */
    for (size_t i = 0; i < n; i++)
        if (i == 0 || ins[i].block != ins[i - 1u].block || ins[i].warp != ins[i - 1u].warp)
            k.warps_recorded++;
    CHECK_EQ_I64(cml_tf_write_func(w, &fn), 0);
    CHECK_EQ_I64(cml_tf_write_kernel(w, &k, ins, n), 0);
    CHECK_EQ_I64(cml_tf_writer_close(w), 0);
    const int rc = cml_tf_read(path, t, err, sizeof err);
    remove(path);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_I64(rc, 0);
    if (rc != 0)
        return -1;
    if (t->nkernels != 1 || cml_tf_model_kernel(t, &t->kernel[0], m) != CML_OK) {
        CHECK(0);
        cml_tf_free(t);
        return -1;
    }
    return 0;
}

/* The committed trace `file` (one launch) read into *t and modelled into
 * *m. 0, or -1 (a failed check). */
static inline int trace_committed(const char *file, cml_trace *t, cml_tf_model *m)
{
    char path[512], err[400];
    snprintf(path, sizeof path, "%s/%s", CML_TRACE_DATA, file);
    if (cml_tf_read(path, t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        CHECK(0);
        return -1;
    }
    if (t->nkernels != 1 || cml_tf_model_kernel(t, &t->kernel[0], m) != CML_OK) {
        CHECK(0);
        cml_tf_free(t);
        return -1;
    }
    return 0;
}

/* A warp instruction of block b, warp w at pc: space, op, size, every
 * lane active, addresses 0. */
static inline cml_tf_ins trace_warp(unsigned space, unsigned op, unsigned size, uint64_t b,
                                    uint32_t w, uint32_t pc)
{
    cml_tf_ins r;
    memset(&r, 0, sizeof r);
    r.space = (uint8_t)space;
    r.op = (uint8_t)op;
    r.size = (uint8_t)size;
    r.block = b;
    r.warp = w;
    r.pc = pc;
    r.active = 0xffffffffu;
    return r;
}

#endif
