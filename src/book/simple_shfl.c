/*
 * The book's simpleShfl (chapter 5): sixteen ints 0..15 (BDIMX 16) through
 * the warp shuffles, fifteen launches of one block in main()'s order, each
 * printed by main() under its label. The scalar kernels run 16 threads,
 * each moving d_in[threadIdx.x]; the SEGM kernels run 4 threads, each
 * moving d_in[4 * threadIdx.x .. + 3] (a register array of four).
 *
 * The shuffles follow PTX's shfl rules (shfl_src below): width 16 makes
 * lanes 0..15 one segment; a source lane outside it (or, for up and down,
 * past its edge) gives the thread its own value. Memory: one 4-byte load
 * and store per thread for the scalar kernels; four loads and four stores
 * per thread for the SEGM ones (three loads for test_shfl_array, whose
 * value[0] is overwritten before use), 16 bytes apart across the four
 * lanes (simple_shfl.cu; ptxas keeps the arrays in registers).
 */
#include <stdio.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "book/shfl_kernels.h"
#include "lab/common.h"

#define BDIMX CML_BOOK_SHFL_BDIMX
#define SEGM CML_BOOK_SHFL_SEGM

typedef struct shfl_settings {
    int64_t launch;
} shfl_settings;

/* main()'s launches: the kernel, its arguments, and what main() prints. */
typedef struct shfl_step {
    const char *name;  /* the launch option's choice */
    int kernel;        /* cml_book_shfl_kernel */
    int arg, a2, a3;
    int init_first;    /* main() prints initialData before it */
    const char *label; /* main()'s label */
} shfl_step;

static const shfl_step steps[] = {
    {"bcast", CML_SH_BROADCAST, 2, 0, 0, 0, "shfl bcast\t\t: "},
    {"wrap_right", CML_SH_WRAP, -2, 0, 0, 0, "shfl wrap right\t\t: "},
    {"up", CML_SH_UP, 2, 0, 0, 0, "shfl up \t\t: "},
    {"wrap_left", CML_SH_WRAP, 2, 0, 0, 0, "shfl wrap left\t\t: "},
    {"wrap_2", CML_SH_WRAP, 2, 0, 0, 0, "shfl wrap 2\t\t: "},
    {"down", CML_SH_DOWN, 2, 0, 0, 0, "shfl down \t\t: "},
    {"xor_1", CML_SH_XOR, 1, 0, 0, 1, "shfl xor 1\t\t: "},
    {"xor_minus_8", CML_SH_XOR, -8, 0, 0, 0, "shfl xor -1\t\t: "},
    {"int4", CML_SH_XOR_INT4, 1, 0, 0, 1, "shfl int4 1\t\t: "},
    {"array_1", CML_SH_XOR_ARRAY, 1, 0, 0, 1, "shfl array 1\t\t: "},
    {"idx", CML_SH_XOR_ELEMENT, 1, 0, 3, 1, "shfl idx \t\t: "},
    {"swap_base", CML_SH_SWAP_BASE, 1, 0, 3, 0, "shfl swap base\t\t: "},
    {"swap_0_3", CML_SH_ARRAY_SWAP, 1, 0, 3, 0, "shfl swap 0 3\t\t: "},
    {"swap_inline", CML_SH_SWAP, 1, 0, 3, 0, "shfl swap inline\t: "},
    {"array", CML_SH_ARRAY, 1, 0, 0, 1, "shfl array \t\t: "},
};
#define NSTEPS (sizeof steps / sizeof steps[0])

static const char *const shfl_launches[NSTEPS + 1] = {
    "bcast", "wrap_right", "up",        "wrap_left", "wrap_2",      "down",  "xor_1", "xor_minus_8",
    "int4",  "array_1",    "idx",       "swap_base", "swap_0_3",    "swap_inline", "array", NULL};

static const char *const kernel_names[CML_SH_KERNEL_COUNT] = {
    "test_shfl_broadcast", "test_shfl_wrap",        "test_shfl_up",
    "test_shfl_down",      "test_shfl_xor",         "test_shfl_xor_int4",
    "test_shfl_xor_array", "test_shfl_xor_element", "test_shfl_xor_array_swap_base",
    "test_shfl_xor_array_swap", "test_shfl_swap",   "test_shfl_array"};

static const cml_param_def shfl_options[] = {
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",
     shfl_launches, 0, CML_FIELD(shfl_settings, launch), NULL},
};

static int is_segm(int kernel)
{
    return kernel >= CML_SH_XOR_INT4;
}

static unsigned step_block(const shfl_step *s)
{
    return is_segm(s->kernel) ? BDIMX / SEGM : BDIMX;
}

/* ---- PTX's shfl.sync rules, width 16 ------------------------------------ */

typedef enum { SH_IDX, SH_UP, SH_DOWN, SH_BFLY } shfl_mode;

/* The lane `lane` reads with operand b at width w (c = ((32 - w) << 8) |
 * clamp, clamp 0 for up and 31 otherwise, as CUDA's headers build it). */
static unsigned shfl_src(shfl_mode mode, unsigned lane, int b, unsigned w)
{
    const unsigned segmask = (32u - w) & 31u, bval = (unsigned)b & 31u;
    const unsigned cval = mode == SH_UP ? 0u : 31u;
    const int max_lane = (int)((lane & segmask) | (cval & ~segmask));
    const unsigned min_lane = lane & segmask;
    int j = (int)lane, pval = 0;
    switch (mode) {
    case SH_UP: j = (int)lane - (int)bval; pval = j >= max_lane; break;
    case SH_DOWN: j = (int)(lane + bval); pval = j <= max_lane; break;
    case SH_BFLY: j = (int)(lane ^ bval); pval = j <= max_lane; break;
    case SH_IDX: j = (int)(min_lane | (bval & ~segmask)); pval = j <= max_lane; break;
    }
    return pval ? (unsigned)j : lane;
}

/* main()'s output of step s from the book's input 0..15. */
static void shfl_reference(const shfl_step *s, int out[BDIMX])
{
    int in[BDIMX];
    for (int i = 0; i < BDIMX; i++)
        in[i] = i;
    if (!is_segm(s->kernel)) {
        for (unsigned t = 0; t < BDIMX; t++) {
            unsigned j = t;
            switch (s->kernel) {
            case CML_SH_BROADCAST: j = shfl_src(SH_IDX, t, s->arg, BDIMX); break;
            case CML_SH_WRAP: j = shfl_src(SH_IDX, t, (int)t + s->arg, BDIMX); break;
            case CML_SH_UP: j = shfl_src(SH_UP, t, s->arg, BDIMX); break;
            case CML_SH_DOWN: j = shfl_src(SH_DOWN, t, s->arg, BDIMX); break;
            default: j = shfl_src(SH_BFLY, t, s->arg, BDIMX); break;
            }
            out[t] = in[j];
        }
        return;
    }
    const unsigned lanes = BDIMX / SEGM;
    int v[BDIMX / SEGM][SEGM], w[BDIMX / SEGM][SEGM];
    for (unsigned t = 0; t < lanes; t++)
        for (unsigned k = 0; k < SEGM; k++)
            v[t][k] = in[t * SEGM + k];
    const int mask = s->arg, a = s->a2, b = s->a3;
    /* the swap kernels' predicate: lanes that swap before and after */
    int pred[BDIMX / SEGM] = {0};
    for (unsigned t = 0; t < lanes; t++) {
        if (s->kernel == CML_SH_ARRAY_SWAP)
            pred[t] = (int)(t & 1u) != mask;
        else if (s->kernel == CML_SH_SWAP)
            pred[t] = (int)t / mask + 1 == 1;
        if (pred[t]) {
            int tmp = v[t][a];
            v[t][a] = v[t][b];
            v[t][b] = tmp;
        }
    }
    memcpy(w, v, sizeof w);
    for (unsigned t = 0; t < lanes; t++) {
        const unsigned j = shfl_src(SH_BFLY, t, mask, BDIMX);
        switch (s->kernel) {
        case CML_SH_XOR_INT4:
        case CML_SH_XOR_ARRAY:
            for (unsigned k = 0; k < SEGM; k++)
                w[t][k] = v[j][k];
            break;
        case CML_SH_XOR_ELEMENT: w[t][a] = v[j][b]; break;
        case CML_SH_SWAP_BASE: case CML_SH_ARRAY_SWAP: case CML_SH_SWAP: w[t][b] = v[j][b]; break;
        case CML_SH_ARRAY: {
            const unsigned lane = (unsigned)(s->arg + (int)t) % SEGM;
            w[t][0] = v[shfl_src(SH_IDX, t, (int)lane, BDIMX)][3];
            break;
        }
        default: break;
        }
    }
    for (unsigned t = 0; t < lanes; t++) {
        if (pred[t]) {
            int tmp = w[t][a];
            w[t][a] = w[t][b];
            w[t][b] = tmp;
        }
        for (unsigned k = 0; k < SEGM; k++)
            out[t * SEGM + k] = w[t][k];
    }
}

/* ---- model, records, measurement --------------------------------------- */

static void shfl_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const int kernel = *(const int *)vargs;
    const uint64_t out = cml_array_base(0), in = cml_array_base(1);
    const uint64_t tx = t->tid.x;
    if (!is_segm(kernel)) {
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * tx);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, out + 4 * tx);
        return;
    }
    for (unsigned k = kernel == CML_SH_ARRAY ? 1 : 0; k < SEGM; k++)
        cml_emit(e, k, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, in + 4 * (SEGM * tx + k));
    for (unsigned k = 0; k < SEGM; k++)
        cml_emit(e, SEGM + k, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                 out + 4 * (SEGM * tx + k));
}

static cml_status shfl_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    (void)ctx;
    const shfl_settings *s = vs;
    const shfl_step *st = &steps[s->launch];
    cml_status rc = cml_exp_trace(rec, cml_dim1(1), cml_dim1(step_block(st)), shfl_mirror,
                                  &st->kernel);
    if (rc)
        return rc;
    rec->bytes_read = st->kernel == CML_SH_ARRAY ? 4 * 12 : 4 * BDIMX;
    rec->bytes_written = 4 * BDIMX;
    const cml_traffic *ld = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD];
    char args[48];
    if (st->kernel >= CML_SH_XOR_ELEMENT && st->kernel <= CML_SH_SWAP)
        snprintf(args, sizeof args, "%d, %d, %d", st->arg, st->a2, st->a3);
    else
        snprintf(args, sizeof args, "%d", st->arg);
    cml_record_finding(rec,
                       "%s<<<1, %u>>>(d_out, d_in, %s): the shuffle moves registers, not memory; "
                       "%llu load request%s of %.2f sectors each for the %u ints%s.",
                       kernel_names[st->kernel], step_block(st), args,
                       (unsigned long long)ld->requests, ld->requests == 1 ? "" : "s",
                       cml_traffic_sectors_per_request(ld), BDIMX,
                       is_segm(st->kernel) ? " (four lanes, 16 bytes apart)" : "");
    return CML_OK;
}

typedef struct shfl_check {
    const cml_plan *plan;
    const shfl_step *step;
    const int *out;
} shfl_check;

static cml_status shfl_check_cb(void *vctx, unsigned long long *d_counters)
{
    const shfl_check *c = vctx;
    int ref[BDIMX];
    uint32_t want[BDIMX];
    shfl_reference(c->step, ref);
    for (int i = 0; i < BDIMX; i++)
        want[i] = (uint32_t)ref[i];
    return cml_book_compare(c->plan->gpu, c->out, want, BDIMX, 0.0, d_counters);
}

static cml_status shfl_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const shfl_settings *s = vs;
    const shfl_step *st = &steps[s->launch];
    cml_dbuf *in = cml_sweep_buffer(ctx, rec, 0, 4 * BDIMX, 0);
    cml_dbuf *out = in ? cml_sweep_buffer(ctx, rec, 1, 4 * BDIMX, 0) : NULL;
    if (!out)
        return CML_ECUDA;
    int h_in[BDIMX];
    for (int i = 0; i < BDIMX; i++)
        h_in[i] = i; /* the book's h_inData */
    cml_status rc = cml_gpu_upload(ctx->plan->gpu, in, h_in, sizeof h_in);
    if (rc)
        return cml_exp_fail(ctx->plan, rec, rc);
    cml_book_shfl_launch L = {out->ptr, in->ptr, st->arg, st->a2, st->a3, step_block(st),
                              st->kernel};
    shfl_check chk = {ctx->plan, st, out->ptr};
    return cml_exp_measure(ctx->plan, rec, out, cml_book_shfl_launch_fn, &L,
                           cml_book_shfl_kernel_fn(st->kernel), L.block, 0, shfl_check_cb, &chk);
}

static void print_data(FILE *out, const int *v)
{
    for (int i = 0; i < BDIMX; i++)
        fprintf(out, "%2d ", v[i]);
    fprintf(out, "\n");
}

/* main()'s printout: the input, then each launch's output under its label
 * (the values the GPU's output was checked against). */
static void shfl_print(FILE *out, const cml_book_output *o)
{
    int in[BDIMX];
    for (int i = 0; i < BDIMX; i++)
        in[i] = i;
    fprintf(out, "> %s Starting.at Device 0: %s\n", o->prog->name, cml_book_device_name(o));
    fprintf(out, "initialData\t\t: ");
    print_data(out, in);
    for (size_t k = 0; k < NSTEPS; k++) {
        if (!cml_book_record(o, steps[k].name))
            continue;
        int v[BDIMX];
        shfl_reference(&steps[k], v);
        if (steps[k].init_first) {
            fprintf(out, "initialData\t\t: ");
            print_data(out, in);
        }
        fprintf(out, "%s", steps[k].label);
        print_data(out, v);
    }
}

static const cml_experiment shfl_row = {
    .key = "simpleShfl.cu",
    .number = 5,
    .title = "The book's simpleShfl.cu",
    .summary = "broadcast, wrap, up, down, xor and register-array shuffles of 16 ints",
    .doc = "docs/textbook.md",
    .options = shfl_options,
    .noptions = CML_COUNT(shfl_options),
    .settings_size = sizeof(shfl_settings),
    .tour = "",
    .variant = shfl_variant,
    .measure = shfl_measure,
};

const cml_book_program cml_book_simple_shfl = {
    .name = "simpleShfl",
    .file = "chapter05/simpleShfl.cu",
    .args_usage = "",
    .summary = "fifteen shuffle launches of one block (BDIMX 16, SEGM 4)",
    .positional = {NULL},
    .row = &shfl_row,
    .print = shfl_print,
};
