/*
 * Every experiment of the registry, run on the model alone with its
 * defaults (what `cumemlab model NAME` gives) and with its tour settings:
 * every record with cache levels carries an interval for each figure
 * (cml_levels.bounded) and every figure lies within it, lo <= value <= hi
 * (docs/model.md §16.8). A record whose levels came without an interval
 * fails, naming it, so an experiment that sets levels by hand must set
 * them too.
 */
#include <stdio.h>

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

int main(void)
{
    size_t with = 0;
    for (size_t i = 0; i < cml_experiment_count(); i++) {
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
     * run that lost its levels would pass the loop above with none). */
    CHECK(with > 300);
    printf("test_levels_every_experiment: %zu records with levels\n", with);
    return cml_test_summary("test_levels_every_experiment");
}
