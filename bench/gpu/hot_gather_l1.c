/*
 * What takes the hot gather's table out of L1 over a long launch that
 * streams through DRAM? (docs/model-evidence.md §4.9)
 *
 * The read-only experiment's gather from a 16 KiB table (C[i] = T[hot(i)],
 * every SM's first touch of the table's 512 sectors its only L1 misses in
 * the model), through .nc, .ca and .cs, beside variants that each change
 * one thing: the output kept in 16 MiB (the same loads and launch, no L2
 * turnover); one .cg load of a table line per block (does a bypassing load
 * drop the line from L1?); the output kept in 16 MiB while every thread
 * reads a stream past L1 (L2 turned over by reads instead of writes); one
 * .cs load of a table line per block (PTX: evict-first in L1; a drop like
 * .cg's?); the base and the read stream again with the table in L2's
 * persisting window (is it the table's own eviction from L2 that costs the
 * L1 hits?). Every launch is profiled with L2 flushed before it; the extra
 * misses are L1's misses less every SM's first touch of a table sector and
 * the variant's own .cg loads. Every output is checked against the host.
 *
 * Usage: bench_hot_gather_l1 [--launch-only] [repeats] (1..10, default 3).
 * Needs a GPU and the profiler; says why and exits 2 without them. With
 * --launch-only it opens no profiler: every launch runs once, alone, for
 * Nsight Compute to measure (`ncu --metrics ... bench_hot_gather_l1
 * --launch-only`: the same kernels under another profiler's flush and
 * replay, docs/model-evidence.md §4.9).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "counters/counters.h"
#include "experiments/readonly/readonly_body.h"
#include "gpu/gpu.h"
#include "hot_gather_l1_kernels.h"

#define SEED_T 11u
#define SEED_B 12u
#define TABLE 4096u           /* floats: 16 KiB, as `--table 16k` */
#define WRAP (UINT64_C(4) << 20) /* floats: 16 MiB of output */

static const char *const metrics[] = {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
    "dram__bytes_write.sum",
};
#define NMET (sizeof metrics / sizeof metrics[0])

typedef struct variant {
    const char *what;
    int kernel, persist;
} variant;

static const variant variants[] = {
    {"base (the experiment)", CML_HG_BASE, 0},
    {"output wrapped in 16 MiB", CML_HG_WRAP, 0},
    {"base + one .cg table load/block", CML_HG_CG_TOUCH, 0},
    {"wrapped + .cg read stream", CML_HG_CG_STREAM, 0},
    {"base + one .cs table load/block", CML_HG_CS_TOUCH, 0},
    {"base, table persisting in L2", CML_HG_BASE, 1},
    {"wrapped + stream, table persisting", CML_HG_CG_STREAM, 1},
};
#define NVAR (sizeof variants / sizeof variants[0])

static const uint64_t sizes[] = {UINT64_C(15728640), UINT64_C(31457280), UINT64_C(62914560),
                                 UINT64_C(125829120)};
#define NSIZE (sizeof sizes / sizeof sizes[0])
#define NMAX UINT64_C(125829120)

/* The variant's own .cg load sectors, which never hit L1: one per block
 * (256 threads) for the table touch, four per warp for the read stream. */
static double bypass_sectors(int kernel, uint64_t n)
{
    if (kernel == CML_HG_CG_TOUCH)
        return (double)(n / 256u);
    return kernel == CML_HG_CG_STREAM ? (double)(n / 8u) : 0.0;
}

/* Wrong outputs of a launch: unwrapped, C[i] = T[hot(i)]; wrapped, C[j] is
 * T[hot(i)] of some i = j mod WRAP (the last writer is not known) and the
 * rest of C keeps the poison. */
static uint64_t check(const float *t, const float *c, uint64_t n, int wraps)
{
    uint64_t wrong = 0;
    if (!wraps) {
        for (uint64_t i = 0; i < n; i++)
            wrong += c[i] != t[cml_hot_index(i, TABLE)];
        return wrong;
    }
    for (uint64_t j = 0; j < WRAP; j++) {
        int found = 0;
        for (uint64_t i = j; i < n && !found; i += WRAP)
            found = c[j] == t[cml_hot_index(i, TABLE)];
        wrong += !found;
    }
    for (uint64_t j = WRAP; j < n; j++) {
        uint32_t bits;
        memcpy(&bits, &c[j], sizeof bits);
        wrong += bits != 0xFFFFFFFFu;
    }
    return wrong;
}

int main(int argc, char **argv)
{
    unsigned repeats = 3;
    int launch_only = 0, arg = 1;
    if (arg < argc && strcmp(argv[arg], "--launch-only") == 0) {
        launch_only = 1;
        arg++;
    }
    if (arg + 1 < argc) {
        fprintf(stderr, "bench_hot_gather_l1: usage: bench_hot_gather_l1 [--launch-only] "
                        "[repeats], got %d arguments\n", argc - 1);
        return 2;
    }
    if (arg < argc) {
        char *end = NULL;
        unsigned long v = strtoul(argv[arg], &end, 10);
        if (!end || *end || v < 1 || v > 10) {
            fprintf(stderr, "bench_hot_gather_l1: repeats must be in 1..10, got '%s'\n",
                    argv[arg]);
            return 2;
        }
        repeats = (unsigned)v;
    }
    char why[512];
    cml_gpu *g = NULL;
    if (cml_gpu_open(0, &g, why, sizeof why) != CML_OK) {
        fprintf(stderr, "bench_hot_gather_l1: needs a GPU: %s\n", why);
        return 2;
    }
    const cml_device_facts *f = cml_gpu_facts(g);
    cml_counters *c = NULL;
    if (!launch_only && cml_counters_open(0, &c, why, sizeof why) != CML_OK) {
        fprintf(stderr, "bench_hot_gather_l1: needs the hardware counters: %s\n", why);
        cml_gpu_close(g);
        return 2;
    }
    int rc = 1, persisting = 0;
    size_t limit_was = 0;
    cml_dbuf T = {0}, B = {0}, C = {0};
    float *h_t = malloc(TABLE * sizeof(float)), *h_c = malloc(NMAX * sizeof(float));
    double v[NVAR * NMET];
    if (!h_t || !h_c) {
        fprintf(stderr, "bench_hot_gather_l1: out of host memory\n");
        goto done;
    }
    if (cml_gpu_alloc(g, &T, TABLE * sizeof(float)) != CML_OK ||
        cml_gpu_alloc(g, &B, NMAX * sizeof(float)) != CML_OK ||
        cml_gpu_alloc(g, &C, NMAX * sizeof(float)) != CML_OK ||
        cml_gpu_fill_f32(g, &T, TABLE, SEED_T) != CML_OK ||
        cml_gpu_fill_f32(g, &B, NMAX, SEED_B) != CML_OK) {
        fprintf(stderr, "bench_hot_gather_l1: setup failed: %s\n", cml_gpu_error(g));
        goto done;
    }
    for (uint64_t i = 0; i < TABLE; i++)
        h_t[i] = cml_random_f32(SEED_T, i);
    /* The persisting window needs L2 set aside (a device-wide limit, given
     * back below), read here and set per session. */
    if (f->l2_persisting_max < (4u << 20) || cml_hg_persist_limit(&limit_was) != CML_OK) {
        fprintf(stderr, "bench_hot_gather_l1: no persisting L2 here: %s\n", cml_gpu_error(g));
        goto done;
    }
    persisting = 1;
    const double first = (double)f->sm_count * TABLE * sizeof(float) / 32.0;
    printf("%s, %d SMs, L2 %.0f MiB; table 16 KiB through .nc, .ca and .cs, 256 threads a "
           "block; L2 flushed before each launch. extra = L1 misses - SMs x 512 (every SM's first "
           "touch of the table) - the variant's own .cg sectors (they never hit)\n\n", f->name,
           f->sm_count, (double)f->l2_bytes / 1048576.0);
    if (!launch_only)
        printf("%-4s %-36s %10s %4s %9s %10s %10s %12s %11s\n", "path", "variant", "n", "rep",
               "extra", "L1 hit", "L1 miss", "L2 rd miss", "DRAM wr MiB");
    static const int paths[] = {CML_HG_NC, CML_HG_CA, CML_HG_CS};
    static const char *const path_name[] = {"ca", "nc", "cs"};
    for (size_t pi = 0; pi < sizeof paths / sizeof paths[0]; pi++)
        for (size_t si = 0; si < NSIZE; si++) {
            const int path = paths[pi];
            const uint64_t n = sizes[si];
            /* .nc at every size; .ca the largest; .cs two */
            if ((path == CML_HG_CA && n != NMAX) || (path == CML_HG_CS && si != 1 && n != NMAX))
                continue;
            for (unsigned r = 0; r < repeats; r++) {
                /* Two sessions: the persisting variants with 4 MiB of L2 set
                 * aside for them (the table is 16 KiB), the others with the
                 * device's own limit. */
                for (int p = 0; p <= 1; p++) {
                    cml_hg_launch_args args[NVAR];
                    cml_launch_fn fns[NVAR];
                    void *ctx[NVAR];
                    size_t idx[NVAR], k = 0;
                    for (size_t j = 0; j < NVAR; j++) {
                        if (variants[j].persist != p)
                            continue;
                        cml_hg_launch_args a = {T.ptr, B.ptr, C.ptr, n, TABLE, WRAP,
                                                variants[j].kernel, path, p};
                        args[k] = a;
                        fns[k] = cml_hg_launch;
                        ctx[k] = &args[k];
                        idx[k++] = j;
                    }
                    size_t failed;
                    if (cml_hg_persist(p ? 4u << 20 : limit_was) != CML_OK) {
                        fprintf(stderr, "bench_hot_gather_l1: %s\n", cml_gpu_error(g));
                        goto done;
                    }
                    if (launch_only) {
                        for (size_t j = 0; j < k; j++) {
                            if (fns[j](ctx[j]) != CML_OK || cml_hg_sync() != CML_OK) {
                                fprintf(stderr, "bench_hot_gather_l1: %s\n", cml_gpu_error(g));
                                goto done;
                            }
                            printf("launched %s %s n %llu rep %u\n", path_name[path],
                                   variants[idx[j]].what, (unsigned long long)n, r);
                        }
                        continue;
                    }
                    if (cml_counters_measure_batch(c, k, fns, ctx, metrics, NMET, v, &failed) !=
                        CML_OK) {
                        fprintf(stderr, "bench_hot_gather_l1: profiling failed: %s %s\n",
                                cml_counters_error(c), cml_gpu_error(g));
                        goto done;
                    }
                    for (size_t j = 0; j < k; j++) {
                        const double *m = v + j * NMET;
                        printf("%-4s %-36s %10llu %4u %9.0f %10.0f %10.0f %12.0f %11.1f\n",
                               path_name[path], variants[idx[j]].what, (unsigned long long)n, r,
                               m[1] - first - bypass_sectors(variants[idx[j]].kernel, n), m[0],
                               m[1], m[2], m[3] / 1048576.0);
                    }
                }
            }
            /* Every variant's output, once per size and path. */
            for (size_t k = 0; k < NVAR; k++) {
                cml_hg_launch_args a = {T.ptr, B.ptr, C.ptr, n, TABLE, WRAP, variants[k].kernel,
                                        path, variants[k].persist};
                const int wraps = a.kernel == CML_HG_WRAP || a.kernel == CML_HG_CG_STREAM;
                if (cml_hg_persist(a.persist ? 4u << 20 : limit_was) != CML_OK ||
                    cml_gpu_poison(g, &C) != CML_OK || cml_hg_launch(&a) != CML_OK ||
                    cml_gpu_download(g, h_c, &C, n * sizeof(float)) != CML_OK) {
                    fprintf(stderr, "bench_hot_gather_l1: check run failed: %s\n",
                            cml_gpu_error(g));
                    goto done;
                }
                const uint64_t wrong = check(h_t, h_c, n, wraps);
                if (wrong) {
                    fprintf(stderr, "bench_hot_gather_l1: %s at n %llu: %llu wrong outputs\n",
                            variants[k].what, (unsigned long long)n, (unsigned long long)wrong);
                    goto done;
                }
            }
        }
    printf("\nevery output checked: 0 wrong\n");
    rc = 0;
done:
    if (persisting && cml_hg_persist(limit_was) != CML_OK) {
        fprintf(stderr, "bench_hot_gather_l1: could not give back the persisting L2 limit: %s\n",
                cml_gpu_error(g));
        rc = 1;
    }
    free(h_t);
    free(h_c);
    cml_gpu_free(g, &T);
    cml_gpu_free(g, &B);
    cml_gpu_free(g, &C);
    cml_counters_close(c);
    cml_gpu_close(g);
    return rc;
}
