/*
 * Why do the shared-memory counters of a transpose exceed its pattern?
 * (docs/model-evidence.md §4.3)
 *
 * One 32x32-tile transpose whose shared accesses are fixed: 32 warp-level
 * shared stores and 32 shared loads per block, each one wavefront with the
 * padded tile (pitch 33), the loads 32 wavefronts each with pitch 32. What
 * changes: where the tile's values come from (a global load through L1, an
 * L2-only global load, or computed with no global load), whether the result
 * is stored to global memory, and how many blocks an SM holds at once (two
 * 32x32 blocks, or one when each asks for more than half of the SM's shared
 * memory). Every variant is profiled with cold L2 (cml_counters_measure_batch)
 * and its shared wavefronts are set beside the pattern's; the padded loads'
 * output is checked against the host transpose.
 *
 * Usage: bench_shared_contention [n] (a multiple of 32, default 4096).
 * Needs a GPU and the profiler; says why and exits 2 without them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "counters/counters.h"
#include "gpu/gpu.h"
#include "shared_contention_kernels.h"

#define SEED 7u

static const char *const metrics[] = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
};
#define NMET (sizeof metrics / sizeof metrics[0])

typedef struct variant {
    const char *what;
    unsigned pitch;
    int source, store, one_block;
} variant;

static const variant variants[] = {
    {"padded, ld.ca, store, 2 blocks/SM", 33, CML_SC_LOAD_CA, 1, 0},
    {"padded, ld.cg, store, 2 blocks/SM", 33, CML_SC_LOAD_CG, 1, 0},
    {"padded, ld.ca, no store, 2 blocks/SM", 33, CML_SC_LOAD_CA, 0, 0},
    {"padded, computed, store, 2 blocks/SM", 33, CML_SC_COMPUTED, 1, 0},
    {"padded, ld.ca, store, 1 block/SM", 33, CML_SC_LOAD_CA, 1, 1},
    {"padded, ld.cg, store, 1 block/SM", 33, CML_SC_LOAD_CG, 1, 1},
    {"unpadded, ld.ca, store, 2 blocks/SM", 32, CML_SC_LOAD_CA, 1, 0},
    {"unpadded, computed, store, 2 blocks/SM", 32, CML_SC_COMPUTED, 1, 0},
    {"unpadded, ld.ca, store, 1 block/SM", 32, CML_SC_LOAD_CA, 1, 1},
};
#define NVAR (sizeof variants / sizeof variants[0])

static void pct(char *buf, size_t len, double measured, double pattern)
{
    snprintf(buf, len, "%+.2f%%", pattern > 0 ? 100.0 * (measured - pattern) / pattern : 0.0);
}

/* out[x][y] == in[y][x] for every element; returns the wrong ones. */
static size_t check_transpose(const float *in, const float *out, unsigned n)
{
    size_t wrong = 0;
    for (size_t y = 0; y < n; y++)
        for (size_t x = 0; x < n; x++)
            wrong += out[x * n + y] != in[y * n + x];
    return wrong;
}

int main(int argc, char **argv)
{
    unsigned n = 4096;
    if (argc > 1) {
        char *end = NULL;
        unsigned long v = strtoul(argv[1], &end, 10);
        if (!end || *end || v < 32 || v > 16384 || v % 32) {
            fprintf(stderr, "bench_shared_contention: n must be a multiple of 32 in 32..16384, "
                            "got '%s'\n", argv[1]);
            return 2;
        }
        n = (unsigned)v;
    }
    char why[512];
    cml_gpu *g = NULL;
    if (cml_gpu_open(0, &g, why, sizeof why) != CML_OK) {
        fprintf(stderr, "bench_shared_contention: needs a GPU: %s\n", why);
        return 2;
    }
    const cml_device_facts *f = cml_gpu_facts(g);
    cml_counters *c = NULL;
    if (cml_counters_open(0, &c, why, sizeof why) != CML_OK) {
        fprintf(stderr, "bench_shared_contention: needs the hardware counters: %s\n", why);
        cml_gpu_close(g);
        return 2;
    }
    int rc = 1;
    const size_t count = (size_t)n * n, bytes = count * sizeof(float);
    /* More than half of the SM's shared memory (minus the static tile):
     * one block per SM. */
    const size_t one_block = f->shared_per_sm / 2 + 1024;
    cml_dbuf in = {0}, out = {0};
    float *h_in = malloc(bytes), *h_out = malloc(bytes);
    double *v = calloc(NVAR * NMET, sizeof *v);
    if (!h_in || !h_out || !v) {
        fprintf(stderr, "bench_shared_contention: out of host memory\n");
        goto done;
    }
    if (one_block + 33 * 32 * 4 > f->shared_per_block_optin ||
        cml_sc_allow_smem(one_block) != CML_OK || cml_gpu_alloc(g, &in, bytes) != CML_OK ||
        cml_gpu_alloc(g, &out, bytes) != CML_OK || cml_gpu_fill_f32(g, &in, count, SEED) != CML_OK) {
        fprintf(stderr, "bench_shared_contention: setup failed: %s\n", cml_gpu_error(g));
        goto done;
    }
    cml_sc_launch_args args[NVAR];
    cml_launch_fn fns[NVAR];
    void *ctx[NVAR];
    for (size_t i = 0; i < NVAR; i++) {
        const variant *w = &variants[i];
        cml_sc_launch_args a = {in.ptr, out.ptr, n, w->pitch, w->source, w->store,
                                w->one_block ? one_block : 0};
        args[i] = a;
        fns[i] = cml_sc_launch;
        ctx[i] = &args[i];
    }
    size_t failed;
    if (cml_counters_measure_batch(c, NVAR, fns, ctx, metrics, NMET, v, &failed) != CML_OK) {
        fprintf(stderr, "bench_shared_contention: profiling failed: %s\n", cml_counters_error(c));
        goto done;
    }
    /* The output of a padded, loaded, stored variant: the real transpose. */
    for (size_t i = 0; i < count; i++)
        h_in[i] = cml_random_f32(SEED, i);
    if (cml_gpu_poison(g, &out) != CML_OK || cml_sc_launch(&args[0]) != CML_OK ||
        cml_gpu_download(g, h_out, &out, bytes) != CML_OK) {
        fprintf(stderr, "bench_shared_contention: check run failed: %s\n", cml_gpu_error(g));
        goto done;
    }
    size_t wrong = check_transpose(h_in, h_out, n);

    const double warp_instr = (double)count / 32.0; /* per class: one per warp */
    printf("%s, %d SMs, %zu KiB shared memory per SM; %u x %u floats, L2 flushed before each "
           "variant\n", f->name, f->sm_count, (size_t)(f->shared_per_sm / 1024), n, n);
    printf("pattern: %.0f shared store and %.0f shared load instructions, 1 wavefront each "
           "(32 each for the unpadded loads)\n\n", warp_instr, warp_instr);
    printf("%-40s %12s %12s %9s %12s %12s %9s\n", "variant", "st wavefr", "st confl", "st excess",
           "ld wavefr", "ld confl", "ld excess");
    for (size_t i = 0; i < NVAR; i++) {
        const double *m = v + i * NMET;
        const double ld_pattern = warp_instr * (variants[i].pitch == 32 ? 32.0 : 1.0);
        char es[16], el[16];
        pct(es, sizeof es, m[0], warp_instr);
        pct(el, sizeof el, m[2], ld_pattern);
        printf("%-40s %12.0f %12.0f %9s %12.0f %12.0f %9s", variants[i].what, m[0], m[1], es, m[2],
               m[3], el);
        if (m[4] != warp_instr || m[5] != warp_instr)
            printf("  (instructions %.0f / %.0f, expected %.0f)", m[4], m[5], warp_instr);
        printf("\n");
    }
    printf("\ntranspose check (padded, ld.ca): %zu wrong of %zu\n", wrong, count);
    rc = wrong ? 1 : 0;
done:
    free(h_in);
    free(h_out);
    free(v);
    cml_gpu_free(g, &in);
    cml_gpu_free(g, &out);
    cml_counters_close(c);
    cml_gpu_close(g);
    return rc;
}
