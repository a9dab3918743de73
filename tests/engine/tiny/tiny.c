/*
 * The engine test's experiment: everything a new experiment needs, in one
 * folder of two files (this one, with the row and its host code, and
 * tiny_body.h, with the kernel) and one row, as docs/adding-an-experiment.md
 * describes. out[i] = k * in[i*stride].
 *
 * Options (the first varies fastest): stride, k (only with op=scale: the
 * engine sweeps it once elsewhere and leaves it out of the record), op
 * (copy: k = 1; scale: k given), block, n (not in the variant name; 0 picks
 * a size). It shows each piece of the contract: a typed settings struct, a
 * model mirror, a measurement with engine-owned buffers and a host check,
 * a point that does not exist (CML_SKIP_POINT), a waived variant, and a
 * summary after each stride sweep.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/random.h"
#include "lab/common.h"
#include "tiny/tiny_body.h"

typedef struct tiny_settings {
    int64_t stride, k, op, block, n;
} tiny_settings;

static const char *const ops[] = {"copy", "scale", NULL};

static const cml_param_def tiny_options[] = {
    {"stride", "element stride of the reads", 1, 64, "1,2,4", NULL, 0,
     CML_FIELD(tiny_settings, stride), NULL},
    {"k", "scale factor", 1, 100, "3", NULL, 0, CML_FIELD(tiny_settings, k), "op=scale"},
    {"op", "copy (k = 1) or scale (by --k)", 0, 0, "copy", ops, 0, CML_FIELD(tiny_settings, op),
     NULL},
    {"block", "threads per block (48 with stride 4 does not exist: skipped)", 32, 1024,
     "64,128", NULL, 0, CML_FIELD(tiny_settings, block), NULL},
    {"n", "output elements (0: 2^16; over 2^24 x stride is waived)", 0, (int64_t)1 << 30, "0",
     NULL, CML_PARAM_NOVARIANT, CML_FIELD(tiny_settings, n), NULL},
};

typedef struct tiny_args {
    uint64_t n, stride;
} tiny_args;

/* The model's mirror: the kernel's own body (tiny_body.h), compiled by the
 * C compiler, on fake arrays 0 (in) and 1 (out); k does not move an
 * address, so any value does. */
static void tiny_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const tiny_args *a = vargs;
    tiny_body(CML_MIRROR_CTX(t, e), CML_ARRAY(const float, 0), CML_ARRAY(float, 1), a->n,
              a->stride, 1.0f);
}

/* How many summaries tiny_summarize wrote (tests/engine/test_engine.c
 * declares and reads it). */
size_t tiny_summaries;

static cml_status tiny_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    tiny_settings *s = vs;
    (void)ctx;
    if (s->stride == 4 && s->block == 48)
        return CML_SKIP_POINT;
    if (s->n == 0)
        s->n = 1 << 16;
    if ((uint64_t)s->n * (uint64_t)s->stride > ((uint64_t)1 << 24)) {
        cml_sweep_waive(ctx, rec, "n x stride over 2^24 elements");
        return CML_OK;
    }
    if (s->op == 0)
        s->k = 1;
    rec->bytes_read = rec->bytes_written = 4 * (uint64_t)s->n;
    tiny_args a = {(uint64_t)s->n, (uint64_t)s->stride};
    cml_status st = cml_exp_trace(rec, cml_dim1(cml_div_up(a.n, (uint64_t)s->block)),
                                  cml_dim1((uint64_t)s->block), tiny_mirror, &a);
    if (st)
        return st;
    cml_record_finding(rec, "%.2f load sectors per request",
                       cml_exp_spr(rec, CML_CLASS_GLOBAL_LD));
    return CML_OK;
}

enum { TINY_SEED = 0x71A7 };

static cml_status tiny_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const tiny_settings *s = vs;
    const uint64_t n = (uint64_t)s->n, stride = (uint64_t)s->stride;
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, 4 * n * stride, TINY_SEED);
    cml_dbuf *out = in ? cml_sweep_buffer(ctx, rec, 1, 4 * n, 0) : NULL;
    if (!out)
        return CML_ECUDA;
    cml_status st = cml_gpu_poison(ctx->plan->gpu, out);
    tiny_launch_args a = {in->ptr, out->ptr, n, stride, (float)s->k, (unsigned)s->block};
    if (!st)
        st = cml_exp_time(ctx->plan, rec, tiny_launch, &a, tiny_kernel(), a.block, 0);
    if (st)
        return st;
    /* The host check: every output element against its recomputation. */
    float *host = malloc(4 * n);
    if (!host)
        return CML_ENOMEM;
    st = cml_gpu_download(ctx->plan->gpu, host, out, 4 * n);
    uint64_t wrong = 0;
    for (uint64_t i = 0; !st && i < n; i++)
        wrong += host[i] != (float)s->k * cml_random_f32(TINY_SEED, i * stride);
    free(host);
    if (st)
        return st;
    rec->verify = wrong ? CML_VERIFY_FAILED : CML_VERIFY_PASSED;
    if (wrong) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "%llu wrong elements", (unsigned long long)wrong);
        return CML_EVERIFY;
    }
    return CML_OK;
}

/* After each sweep of the strides: a sentence on the last record. */
static void tiny_summarize(cml_sweep *ctx, size_t first, size_t last)
{
    const tiny_settings *a = cml_sweep_settings_of(ctx, first);
    const tiny_settings *b = cml_sweep_settings_of(ctx, last);
    tiny_summaries++;
    cml_record_finding(&ctx->out->items[last], "strides %lld..%lld at block %lld",
                       (long long)a->stride, (long long)b->stride, (long long)b->block);
}

const cml_experiment cml_exp_tiny = {
    .key = "tiny",
    .number = 99,
    .title = "The engine test's experiment",
    .summary = "out[i] = k * in[i*stride]",
    .doc = "docs/adding-an-experiment.md",
    .options = tiny_options,
    .noptions = CML_COUNT(tiny_options),
    .settings_size = sizeof(tiny_settings),
    .tour = "stride=1,2",
    .variant = tiny_variant,
    .measure = tiny_measure,
    .summarize = tiny_summarize,
};

