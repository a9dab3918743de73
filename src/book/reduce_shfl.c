/*
 * The book's reduceIntegerShfl (chapter 5): size = 1 << ishift ints
 * (argv[1] ishift, default 10), values rand() & 0xFF, blocks of DIM = 128
 * threads, grid = size / 128; main() launches reduceSmem, then reduceShfl,
 * each <<<grid, 128>>>(d_idata, d_odata, size), and adds the grid's
 * partial sums on the host.
 *
 * Memory of one block (reduce_shfl.cu, blockDim.x = 128, so the >= 1024,
 * 512 and 256 steps are skipped):
 *   reduceSmem: load idata[tid] -> smem[tid]; threads < 64: smem[tid] +=
 *     smem[tid + 64] (two shared loads, a store); threads < 32, six volatile
 *     steps smem[tid] += smem[tid + 32, 16, 8, 4, 2, 1]; thread 0 reloads
 *     smem[0] and stores g_odata[blockIdx.x];
 *   reduceShfl: load g_idata[idx]; five shuffles; lane 0 of each warp stores
 *     smem[warp]; threads 0..3 load smem[lane]; thread 0 stores g_odata.
 * ishift is 7..23: whole blocks (the kernels return before their barriers
 * past n) and sums below 2^31 (255 * 2^23).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/programs.h"
#include "book/shfl_kernels.h"
#include "core/random.h"
#include "lab/common.h"

#define DIM CML_BOOK_REDUCE_DIM

enum { SEED_DATA = 0xB00C6 };

typedef struct reduce_settings {
    int64_t launch, ishift;
} reduce_settings;

static const char *const reduce_launches[] = {"reduceSmem", "reduceShfl", NULL};

static const cml_param_def reduce_options[] = {
    {"launch", "the kernel launches of the program's main(), in its order", 0, 0, "all",
     reduce_launches, 0, CML_FIELD(reduce_settings, launch), NULL},
    {"ishift", "argv[1]: log2 of the array size (the book's default 10; whole blocks of 128 "
               "and int sums: 7..23)",
     7, 23, "10", NULL, 0, CML_FIELD(reduce_settings, ishift), NULL},
};

/* The book's input: rand() & 0xFF, here a counter-based stand-in. */
static int input(uint64_t i)
{
    return (int)(cml_random_u32(SEED_DATA, i) & 0xFFu);
}

static void reduce_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const int kernel = *(const int *)vargs;
    const uint64_t idata = cml_array_base(0), odata = cml_array_base(1);
    const uint64_t tid = t->tid.x, idx = (uint64_t)t->bid.x * t->bdim.x + tid;
    cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, idata + 4 * idx);
    if (kernel == CML_RED_SMEM) {
        cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * tid);
        if (tid < 64) {
            cml_emit(e, 2, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * tid);
            cml_emit(e, 3, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * (tid + 64));
            cml_emit(e, 4, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * tid);
        }
        if (tid < 32) {
            static const unsigned strides[] = {32, 16, 8, 4, 2, 1};
            for (unsigned q = 0; q < 6; q++) {
                cml_emit(e, 5 + 3 * q, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * tid);
                cml_emit(e, 6 + 3 * q, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4,
                         4 * (tid + strides[q]));
                cml_emit(e, 7 + 3 * q, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * tid);
            }
        }
        if (tid == 0) {
            cml_emit(e, 23, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 0);
            cml_emit(e, 24, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4,
                     odata + 4ull * t->bid.x);
        }
        return;
    }
    const uint64_t lane = tid % 32, warp = tid / 32;
    if (lane == 0)
        cml_emit(e, 1, CML_SPACE_SHARED, CML_OP_STORE, CML_CACHE_CA, 4, 4 * warp);
    if (tid < 4)
        cml_emit(e, 2, CML_SPACE_SHARED, CML_OP_LOAD, CML_CACHE_CA, 4, 4 * lane);
    if (tid == 0)
        cml_emit(e, 3, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, odata + 4ull * t->bid.x);
}

static cml_status reduce_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    (void)ctx;
    const reduce_settings *s = vs;
    const int kernel = (int)s->launch;
    const uint64_t size = 1ull << s->ishift, grid = size / DIM;
    /* Every block the one before shifted by 512 bytes, the same shared
     * words: one block stands for all, the engine checks three more. */
    cml_status st = cml_exp_trace_1d(rec, grid, DIM, 1, 1, reduce_mirror, &kernel);
    if (st)
        return st;
    rec->bytes_read = 4 * size;
    rec->bytes_written = 4 * grid;
    const cml_traffic *sl = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    const cml_traffic *ss = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_ST];
    cml_record_finding(rec,
                       "%s<<<%llu, %u>>>: per block %.0f shared loads and %.0f shared stores "
                       "(%llu bank conflicts in all)%s.",
                       reduce_launches[kernel], (unsigned long long)grid, DIM,
                       (double)sl->requests / (double)grid, (double)ss->requests / (double)grid,
                       (unsigned long long)(sl->bank_conflicts + ss->bank_conflicts),
                       kernel == CML_RED_SHFL
                           ? ": the shuffles reduce each warp in registers, shared memory only "
                             "passes four warp sums"
                           : ": the tree reduces through shared memory, the last warp without a "
                             "barrier by volatile accesses");
    return CML_OK;
}

typedef struct reduce_check {
    const cml_plan *plan;
    uint64_t grid;
    const int *odata;
} reduce_check;

/* The per-block sums main() adds up: every block's, exactly. */
static cml_status reduce_check_cb(void *vctx, unsigned long long *d_counters)
{
    const reduce_check *c = vctx;
    uint32_t *want = malloc(c->grid * sizeof *want);
    if (!want)
        return CML_ENOMEM;
    for (uint64_t b = 0; b < c->grid; b++) {
        int sum = 0;
        for (uint64_t i = 0; i < DIM; i++)
            sum += input(b * DIM + i);
        want[b] = (uint32_t)sum;
    }
    cml_status st = cml_book_compare(c->plan->gpu, c->odata, want, c->grid, 0.0, d_counters);
    free(want);
    return st;
}

static cml_status reduce_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const reduce_settings *s = vs;
    const uint64_t size = 1ull << s->ishift, grid = size / DIM;
    cml_dbuf *idata = cml_sweep_buffer(ctx, rec, 0, 4 * size, 0);
    cml_dbuf *odata = idata ? cml_sweep_buffer(ctx, rec, 1, 4 * grid, 0) : NULL;
    if (!odata)
        return CML_ECUDA;
    int *h = malloc(4 * size);
    if (!h)
        return CML_ENOMEM;
    for (uint64_t i = 0; i < size; i++)
        h[i] = input(i);
    cml_status st = cml_gpu_upload(ctx->plan->gpu, idata, h, 4 * size);
    free(h);
    if (st)
        return cml_exp_fail(ctx->plan, rec, st);
    cml_book_reduce_launch L = {idata->ptr, odata->ptr, (unsigned)size, (unsigned)grid,
                                (int)s->launch};
    reduce_check chk = {ctx->plan, grid, odata->ptr};
    return cml_exp_measure(ctx->plan, rec, odata, cml_book_reduce_launch_fn, &L,
                           cml_book_reduce_kernel_fn(L.kernel), DIM, 0, reduce_check_cb, &chk);
}

static void reduce_print(FILE *out, const cml_book_output *o)
{
    const uint64_t size = 1ull << o->args[0], grid = size / DIM;
    long long cpu = 0;
    for (uint64_t i = 0; i < size; i++)
        cpu += input(i);
    fprintf(out, "%s starting reduction at device 0: %s     with array size %llu  grid %llu "
                 "block %d\n",
            o->prog->name, cml_book_device_name(o), (unsigned long long)size,
            (unsigned long long)grid, DIM);
    fprintf(out, "cpu reduce          : %lld\n", cpu);
    int failed = 0;
    for (size_t k = 0; reduce_launches[k]; k++) {
        const cml_record *rec = cml_book_record(o, reduce_launches[k]);
        if (!rec)
            continue;
        /* Each block's sum is checked against the host; the total of the
         * checked sums is the book's gpu_sum. */
        const int bad = rec->verify == CML_VERIFY_FAILED || rec->state == CML_REC_FAILED;
        failed |= bad;
        if (bad)
            fprintf(out, "%-20s: (output did not verify) <<<grid %llu block %d>>>\n",
                    reduce_launches[k], (unsigned long long)grid, DIM);
        else
            fprintf(out, "%-20s: %lld <<<grid %llu block %d>>>\n", reduce_launches[k], cpu,
                    (unsigned long long)grid, DIM);
    }
    if (failed)
        fprintf(out, "Test failed!\n");
}

static const cml_experiment reduce_row = {
    .key = "reduceIntegerShfl.cu",
    .number = 5,
    .title = "The book's reduceIntegerShfl.cu",
    .summary = "reduceSmem and reduceShfl: a block sum through shared memory or warp shuffles",
    .doc = "docs/textbook.md",
    .options = reduce_options,
    .noptions = CML_COUNT(reduce_options),
    .settings_size = sizeof(reduce_settings),
    .tour = "",
    .variant = reduce_variant,
    .measure = reduce_measure,
};

const cml_book_program cml_book_reduce_integer_shfl = {
    .name = "reduceIntegerShfl",
    .file = "chapter05/reduceIntegerShfl.cu",
    .args_usage = "[ishift]",
    .summary = "reduceSmem, reduceShfl over 1 << ishift ints (default 2^10), DIM 128",
    .positional = {"ishift", NULL},
    .row = &reduce_row,
    .print = reduce_print,
};
