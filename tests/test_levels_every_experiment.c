/*
 * Every experiment of the registry, run on the model alone with its
 * defaults (what `cumemlab model NAME` gives) and with its tour settings:
 * every record with cache levels carries an interval for each figure
 * (cml_levels.bounded) and every figure lies within it, lo <= value <= hi
 * (docs/model.md §16.8). A record whose levels came without an interval
 * fails, naming it, so an experiment that sets levels by hand must set
 * them too.
 *
 * `test_levels_every_experiment K N` runs shard K of N: the experiments
 * whose registry index is K modulo N (ctest runs four, tests/CMakeLists.txt:
 * under ASan on two cores the whole registry took 576-602 s of a 900 s
 * guard, async-copy alone a fifth of it). No argument: every experiment.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cumemlab/cache.h"
#include "experiment_test_util.h"
#include "experiments/registry.h"
#include "test_util.h"

/* The records of r with levels: each bounded, each figure inside. */
static size_t check_results(const cml_experiment *x, const char *settings,
                            const cml_results *r)
{
    size_t with = 0;
    for (size_t i = 0; i < r->count; i++) {
        const cml_record *rec = &r->items[i];
        if (!rec->has_levels)
            continue;
        with++;
        cml_test_checks++;
        if (!rec->levels.bounded || !cml_levels_bounds_ok(&rec->levels)) {
            cml_test_failures++;
            fprintf(stderr, "%s (%s) %s: levels %s\n", x->key, settings ? settings : "defaults",
                    rec->variant, rec->levels.bounded ? "outside their interval" : "unbounded");
        }
    }
    return with;
}

/* "K N" of argv as shard k of n (0 <= k < n <= 64); 0 when malformed. */
static int shard_of(int argc, char **argv, unsigned *k, unsigned *n)
{
    *k = 0;
    *n = 1;
    if (argc == 1)
        return 1;
    char *e1 = NULL, *e2 = NULL;
    const unsigned long a = argc == 3 ? strtoul(argv[1], &e1, 10) : 0,
                        b = argc == 3 ? strtoul(argv[2], &e2, 10) : 0;
    if (argc != 3 || *e1 || *e2 || e1 == argv[1] || e2 == argv[2] || b == 0 || b > 64 || a >= b)
        return 0;
    *k = (unsigned)a;
    *n = (unsigned)b;
    return 1;
}

int main(int argc, char **argv)
{
    unsigned k0, n;
    if (!shard_of(argc, argv, &k0, &n)) {
        fprintf(stderr, "usage: test_levels_every_experiment [K N] (shard K of N, 0 <= K < N <= 64)\n");
        return 2;
    }
    size_t with = 0;
    for (size_t i = k0; i < cml_experiment_count(); i += n) {
        const cml_experiment *x = cml_experiment_at(i);
        const char *runs[2] = {NULL, x->tour};
        for (int k = 0; k < 2; k++) {
            if (k == 1 && !(x->tour && x->tour[0]))
                continue;
            cml_results r;
            cml_status st = run_model(x, runs[k], &r);
            CHECK_EQ_I64(st, CML_OK);
            if (st != CML_OK)
                continue;
            with += check_results(x, runs[k], &r);
            cml_results_free(&r);
        }
    }
    /* The registry's kernels through the caches: hundreds of records (a
     * run that lost its levels would pass the loop above with none): 1242
     * in all on 2026-11-29, every shard of four more than 190. */
    CHECK(with > 300u / n);
    printf("test_levels_every_experiment (shard %u of %u): %zu records with levels\n", k0, n,
           with);
    return cml_test_summary("test_levels_every_experiment");
}
