/*
 * Run-time compiled kernels and the profiler in one process: `expr` (which
 * loads NVRTC-compiled libraries and unloads them at its end), then other
 * experiments with the hardware counters on, then `expr` again, through the
 * lab as the command line runs them.
 *
 * Once this faulted inside libcuda: the first experiment profiled after
 * `expr` unloaded its libraries crashed, and so did a second `expr` run;
 * `expr` was moved last in the registry to dodge it. This test is the
 * reproduction that has to pass wherever `expr` stands.
 *
 * Without a GPU it is skipped (77); with a GPU whose profiler cannot run
 * here (another process holds it, no permission) it is skipped saying why.
 */
#include "../test_util.h"
#include "lab/lab.h"

#include <stdio.h>
#include <stdlib.h>

#include "experiments/registry.h"
#include "gpu/gpu.h"

/* The experiment `key` over its tour into r; every record measured and
 * verified, and (where the experiment reads them) counters beside it. */
static void run_one(cml_lab *lab, const char *key, cml_results *r, int want_counters)
{
    const cml_experiment *x = cml_experiment_find(key);
    CHECK(x != NULL);
    if (!x)
        return;
    cml_param_values pv;
    char err[512] = "";
    cml_status st = cml_lab_options(x, x->tour, "its tour", &pv, err, sizeof err);
    if (st)
        fprintf(stderr, "%s: %s\n", key, err);
    CHECK(st == CML_OK);
    size_t before = r->count;
    st = cml_lab_run(lab, x, &pv, r);
    if (st)
        fprintf(stderr, "%s: %s: %s\n", key, cml_status_str(st), cml_gpu_error(lab->gpu));
    CHECK(st == CML_OK);
    size_t measured = 0, counted = 0;
    for (size_t i = before; i < r->count; i++) {
        const cml_record *rec = &r->items[i];
        if (rec->state == CML_REC_WAIVED)
            continue;
        if (rec->state != CML_REC_OK || rec->verify == CML_VERIFY_FAILED)
            fprintf(stderr, "%s %s: state %d verify %d: %s\n", key, rec->variant,
                    (int)rec->state, (int)rec->verify, rec->note);
        CHECK(rec->state == CML_REC_OK);
        CHECK(rec->verify != CML_VERIFY_FAILED);
        measured += rec->measured != 0;
        counted += rec->ncounters > 0;
    }
    printf("%s: %zu records, %zu measured, %zu with counters\n", key, r->count - before,
           measured, counted);
    CHECK(measured > 0);
    if (want_counters)
        CHECK(counted > 0);
}

int main(void)
{
    char why[512] = "";
    if (cml_gpu_count(why, sizeof why) == 0) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    static const char *const exprs[] = {"i", "i*2", "(i%32)*33"};
    cml_lab_settings s = {0};
    s.device = 0;
    s.counters = CML_COUNTERS_ON;
    s.peak_gbs = 1000.0; /* a given reference: the peak is not what is tested */
    s.quick = 1;
    s.exprs = exprs;
    s.nexprs = CML_COUNT(exprs);
    cml_results r;
    cml_results_init(&r);
    cml_lab lab;
    cml_lab_state ls = cml_lab_open(&lab, &s, &r);
    if (ls != CML_LAB_GPU) {
        /* The profiler taken or not permitted here: not this test's subject. */
        printf("SKIP: %s\n", lab.why[0] ? lab.why : "the lab did not open the GPU");
        cml_lab_close(&lab);
        cml_results_free(&r);
        return 77;
    }
    /* expr, then experiments profiled after its libraries are gone, then
     * expr again and once more after it. */
    run_one(&lab, "expr", &r, 1);
    run_one(&lab, "read-offset", &r, 1);
    run_one(&lab, "shared-banks", &r, 1);
    run_one(&lab, "expr", &r, 1);
    run_one(&lab, "expr", &r, 1);
    run_one(&lab, "stride", &r, 1);
    cml_lab_close(&lab);
    cml_results_free(&r);
    return cml_test_summary("gpu_test_expr_fault");
}
