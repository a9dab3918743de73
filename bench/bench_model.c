/*
 * Throughput of the CPU model: warp instructions analysed per second by
 * cml_model_access() for typical patterns, threads per second through
 * cml_trace_kernel() for a readOffset mirror, and the cache levels: warp
 * instructions per second through the simulator (cml_cache_sim_access) and
 * the time of cml_trace_levels for the same mirror, whole and sampled.
 *
 * Usage: bench_model [log2 threads for the traced kernel, default 24]
 * (the divergent trace uses at most 2^20 threads).
 * Addresses are precomputed (the generator is not timed); each figure is the
 * median of 5 timed runs of about 0.2 s, with min and max beside it.
 */
#include "cumemlab/cache.h"
#include "cumemlab/model.h"
#include "core/random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NINS 1024u /* distinct instructions cycled through (~290 KB) */
#define RUNS 5

/* Seconds on a wall clock (C11 timespec_get; no POSIX needed). */
static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct pattern {
    const char *name;
    cml_space space;
    unsigned width;
    uint64_t base_step; /* base of instruction i: (i mod 64) * base_step (+ B if global) */
    uint64_t offset;    /* added to every lane */
    uint64_t stride;    /* a_l = base + offset + l * stride */
    int random;         /* instead: random 4 B words in 64 MB */
} pattern;

/* Fill ins[] with NINS instructions of the pattern. */
static void build(const pattern *p, cml_access *ins)
{
    const uint64_t B = cml_array_base(0);
    for (unsigned i = 0; i < NINS; i++) {
        cml_access *a = &ins[i];
        memset(a, 0, sizeof *a);
        a->space = p->space;
        a->op = CML_OP_LOAD;
        a->cache = CML_CACHE_CA;
        a->width = p->width;
        a->active = 0xFFFFFFFFu;
        const uint64_t base = (p->space == CML_SPACE_GLOBAL ? B : 0) + (i % 64u) * p->base_step;
        for (unsigned l = 0; l < CML_WARP_SIZE; l++) {
            if (p->random)
                a->addr[l] = B + 4u * (cml_random_u32(12345, (uint64_t)i * 32u + l) % (1u << 24));
            else
                a->addr[l] = base + p->offset + l * p->stride;
        }
    }
}

/* Analyse `reps` passes over ins[]; returns seconds. Exits on a model error
 * (a benchmark of an error path would be meaningless). */
static double time_passes(cml_rules r, const cml_access *ins, unsigned reps, cml_traffic *sink)
{
    double t0 = now();
    for (unsigned k = 0; k < reps; k++)
        for (unsigned i = 0; i < NINS; i++)
            if (cml_model_access(r, &ins[i], sink) != CML_OK) {
                fprintf(stderr, "bench_model: model error\n");
                exit(1);
            }
    return now() - t0;
}

/* Median, min, max of RUNS timings of ~0.2 s each, as instructions/s. */
static void bench_pattern(const pattern *p, cml_rules r, cml_access *ins)
{
    build(p, ins);
    cml_traffic sink;
    memset(&sink, 0, sizeof sink);
    unsigned reps = 1;
    while (time_passes(r, ins, reps, &sink) < 0.05)
        reps *= 2;
    reps *= 4; /* ~0.2 s */
    double rate[RUNS];
    for (int k = 0; k < RUNS; k++)
        rate[k] = (double)reps * NINS / time_passes(r, ins, reps, &sink);
    qsort(rate, RUNS, sizeof rate[0], cmp_double);
    printf("%-34s %-6s %10.1f %8.1f %8.1f %8.2f\n", p->name,
           r == CML_RULES_MODERN ? "modern" : "fermi", rate[RUNS / 2] / 1e6, rate[0] / 1e6,
           rate[RUNS - 1] / 1e6, 1e9 / rate[RUNS / 2]);
    if (sink.instructions == 0) /* keep the work observable */
        printf("?\n");
}

/* The readOffset mirror: C[i] = A[k] + B[k], k = i + offset, if (k < n). */
typedef struct ro_args {
    uint64_t n, offset;
} ro_args;

static void read_offset(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const ro_args *a = vargs;
    const uint64_t i = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    const uint64_t k = i + a->offset;
    if (k < a->n) {
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, cml_array_base(0) + 4u * k);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, cml_array_base(1) + 4u * k);
        cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, cml_array_base(2) + 4u * i);
    }
}

/* Trace the mirror over n = 2^lg threads (block 512), RUNS times. */
static void bench_trace(unsigned lg, uint64_t offset, cml_rules r)
{
    const uint64_t n = UINT64_C(1) << lg;
    ro_args args = {n, offset};
    cml_dim3 grid = {(uint32_t)((n + 511) / 512), 1, 1}, block = {512, 1, 1};
    double secs[RUNS];
    cml_kernel_traffic k;
    for (int run = 0; run < RUNS; run++) {
        memset(&k, 0, sizeof k);
        double t0 = now();
        cml_status rc = cml_trace_kernel(r, grid, block, read_offset, &args, &k);
        secs[run] = now() - t0;
        if (rc != CML_OK) {
            fprintf(stderr, "bench_model: trace failed: %s\n", cml_status_str(rc));
            exit(1);
        }
    }
    qsort(secs, RUNS, sizeof secs[0], cmp_double);
    char name[64];
    snprintf(name, sizeof name, "trace readOffset off=%u 2^%u thr", (unsigned)offset, lg);
    printf("%-34s %-6s %10.1f %8.1f %8.1f %8.2f   (%.3f s per trace)\n",
           name, r == CML_RULES_MODERN ? "modern" : "fermi", (double)n / secs[RUNS / 2] / 1e6,
           (double)n / secs[RUNS - 1] / 1e6, (double)n / secs[0] / 1e6,
           1e9 * secs[RUNS / 2] / (double)n, secs[RUNS / 2]);
    if (k.cls[CML_CLASS_GLOBAL_LD].instructions == 0)
        printf("?\n");
}

/* A mirror whose every warp diverges: even lanes load A[i], odd lanes B[i],
 * then all store C[i] (the tracer's general matching path). */
static void if_else(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    (void)vargs;
    const uint64_t i = (uint64_t)t->bid.x * t->bdim.x + t->tid.x;
    if (i % 2u == 0)
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, cml_array_base(0) + 4u * i);
    else
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, cml_array_base(1) + 4u * i);
    cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, cml_array_base(2) + 4u * i);
}

/* Trace the divergent mirror over 2^lg threads, RUNS times. */
static void bench_trace_divergent(unsigned lg)
{
    const uint64_t n = UINT64_C(1) << lg;
    cml_dim3 grid = {(uint32_t)((n + 511) / 512), 1, 1}, block = {512, 1, 1};
    double secs[RUNS];
    cml_kernel_traffic k;
    for (int run = 0; run < RUNS; run++) {
        memset(&k, 0, sizeof k);
        double t0 = now();
        cml_status rc = cml_trace_kernel(CML_RULES_MODERN, grid, block, if_else, NULL, &k);
        secs[run] = now() - t0;
        if (rc != CML_OK) {
            fprintf(stderr, "bench_model: trace failed: %s\n", cml_status_str(rc));
            exit(1);
        }
    }
    qsort(secs, RUNS, sizeof secs[0], cmp_double);
    char name[64];
    snprintf(name, sizeof name, "trace if/else (divergent) 2^%u thr", lg);
    printf("%-34s %-6s %10.1f %8.1f %8.1f %8.2f   (%.3f s per trace)\n", name, "modern",
           (double)n / secs[RUNS / 2] / 1e6, (double)n / secs[RUNS - 1] / 1e6,
           (double)n / secs[0] / 1e6, 1e9 * secs[RUNS / 2] / (double)n, secs[RUNS / 2]);
}

/* Warp instructions per second through the cache simulator (H100 config):
 * the pattern's NINS instructions, each moved on by `advance` bytes per pass
 * so that a streaming pattern keeps missing, on SMs in turn. */
static void bench_sim(const pattern *p, cml_op op, cml_access *ins)
{
    build(p, ins);
    cml_cache_config c;
    cml_cache_config_h100(&c);
    double rate[RUNS];
    for (int run = 0; run < RUNS; run++) {
        cml_cache_sim *s = NULL;
        if (cml_cache_sim_new(&c, 256, &s) != CML_OK) {
            fprintf(stderr, "bench_model: simulator\n");
            exit(1);
        }
        const uint64_t advance = p->random ? 0 : 64u * p->base_step;
        unsigned passes = 0;
        double t0 = now(), t;
        do {
            for (unsigned i = 0; i < NINS; i++) {
                cml_access a = ins[i];
                a.op = op;
                for (unsigned l = 0; l < CML_WARP_SIZE; l++)
                    a.addr[l] += advance * passes;
                if (cml_cache_sim_access(s, i % c.sm_count, i, &a) != CML_OK) {
                    fprintf(stderr, "bench_model: simulator error\n");
                    exit(1);
                }
            }
            passes++;
            t = now() - t0;
        } while (t < 0.1);
        rate[run] = (double)passes * NINS / t;
        cml_cache_sim_free(s);
    }
    qsort(rate, RUNS, sizeof rate[0], cmp_double);
    printf("%-34s %-6s %10.2f %8.2f %8.2f %8.1f\n", p->name, op == CML_OP_LOAD ? "load" : "store",
           rate[RUNS / 2] / 1e6, rate[0] / 1e6, rate[RUNS - 1] / 1e6, 1e9 / rate[RUNS / 2]);
}

/* cml_trace_levels of the readOffset mirror over 2^lg threads (block 512),
 * H100 config, with its exact traffic traced beforehand (not timed). */
static void bench_levels(unsigned lg, uint64_t offset)
{
    const uint64_t n = UINT64_C(1) << lg;
    ro_args args = {n, offset};
    cml_dim3 grid = {(uint32_t)((n + 511) / 512), 1, 1}, block = {512, 1, 1};
    cml_kernel_traffic k;
    memset(&k, 0, sizeof k);
    if (cml_trace_kernel(CML_RULES_MODERN, grid, block, read_offset, &args, &k) != CML_OK)
        exit(1);
    cml_cache_config c;
    cml_cache_config_h100(&c);
    double secs[RUNS];
    cml_levels lv;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now();
        cml_status rc = cml_trace_levels(&c, grid, block, read_offset, &args, &k, &lv);
        secs[run] = now() - t0;
        if (rc != CML_OK) {
            fprintf(stderr, "bench_model: levels failed: %s\n", cml_status_str(rc));
            exit(1);
        }
    }
    qsort(secs, RUNS, sizeof secs[0], cmp_double);
    printf("levels readOffset off=%u 2^%u thr  %-7s %9.2f ms (min %.2f, max %.2f), %llu blocks "
           "simulated\n",
           (unsigned)offset, lg, lv.sampled ? "sampled" : "whole", 1e3 * secs[RUNS / 2],
           1e3 * secs[0], 1e3 * secs[RUNS - 1], (unsigned long long)lv.simulated_blocks);
}

int main(int argc, char **argv)
{
    unsigned lg = 24;
    if (argc > 1) {
        lg = (unsigned)strtoul(argv[1], NULL, 10);
        if (lg < 10 || lg > 30) {
            fprintf(stderr, "usage: bench_model [log2 threads, 10..30]\n");
            return 2;
        }
    }
    cml_access *ins = malloc(NINS * sizeof *ins);
    if (ins == NULL)
        return 1;

    static const pattern pats[] = {
        {"coalesced 4B loads", CML_SPACE_GLOBAL, 4, 128, 0, 4, 0},
        {"offset-11 4B loads", CML_SPACE_GLOBAL, 4, 128, 44, 4, 0},
        {"stride-32 4B loads", CML_SPACE_GLOBAL, 4, 4096, 0, 128, 0},
        {"random scattered 4B loads", CML_SPACE_GLOBAL, 4, 0, 0, 0, 1},
        {"coalesced 16B loads", CML_SPACE_GLOBAL, 16, 512, 0, 16, 0},
        {"shared column (32x32 float tile)", CML_SPACE_SHARED, 4, 4, 0, 128, 0},
        {"shared float4 consecutive", CML_SPACE_SHARED, 16, 512, 0, 16, 0},
        {"local same-index int", CML_SPACE_LOCAL, 4, 4, 0, 0, 0},
        {"constant, 32 distinct words", CML_SPACE_CONSTANT, 4, 128, 0, 4, 0},
    };
    printf("cml_model_access: warp instructions per second, one core (median of %d runs)\n",
           RUNS);
    printf("%-34s %-6s %10s %8s %8s %8s\n", "pattern (32 active lanes)", "rules", "Minstr/s",
           "min", "max", "ns/instr");
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        bench_pattern(&pats[i], CML_RULES_MODERN, ins);
        if (pats[i].space == CML_SPACE_GLOBAL)
            bench_pattern(&pats[i], CML_RULES_FERMI, ins);
    }

    printf("\ncml_cache_sim_access: warp instructions per second, H100 caches, one core\n");
    printf("%-34s %-6s %10s %8s %8s %8s\n", "pattern (32 active lanes)", "op", "Minstr/s", "min",
           "max", "ns/instr");
    for (size_t i = 0; i < 5; i++) /* the global patterns */
        bench_sim(&pats[i], CML_OP_LOAD, ins);
    bench_sim(&pats[0], CML_OP_STORE, ins);
    free(ins);

    printf("\ncml_trace_levels: one call, H100 caches (the exact traffic traced beforehand)\n");
    bench_levels(18, 11);
    bench_levels(lg, 11);
    bench_levels(lg, 0);

    printf("\ncml_trace_kernel: threads per second, block 512, 3 accesses per thread\n");
    printf("%-34s %-6s %10s %8s %8s %8s\n", "traced kernel", "rules", "Mthr/s", "min", "max",
           "ns/thr");
    bench_trace(lg, 11, CML_RULES_MODERN);
    bench_trace(lg, 0, CML_RULES_MODERN);
    bench_trace(lg, 11, CML_RULES_FERMI);
    bench_trace_divergent(lg > 20 ? 20 : lg);
    return 0;
}
