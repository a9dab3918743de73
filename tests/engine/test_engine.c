/*
 * The run engine and the experiment contract: a whole experiment defined in
 * one folder of two files inside the tests (tiny/: tiny.c + tiny_body.h) run
 * through the engine, on the model alone everywhere and on the GPU where
 * there is one; the
 * registry's rows checked against the contract; broken rows refused.
 */
#include <stdio.h>
#include <string.h>

#include "../experiment_test_util.h"
#include "lab/common.h"
#include "gpu/gpu.h"
#include "lab/lab.h"
#include "lab/sweep.h"
#include "experiments/registry.h"

/* tiny/tiny.c's row and its count of summaries. The folder has no header
 * that declares them (a row needs none: the registry declares the rows of
 * src/experiments itself, and tiny is not one of them), so the test does. */
extern const cml_experiment cml_exp_tiny;
extern size_t tiny_summaries;

/* Every row of the registry keeps the contract, and names itself fully. */
static void test_registry_rows(void)
{
    char err[512];
    CHECK(cml_experiment_count() >= 17);
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *x = cml_experiment_at(i);
        err[0] = '\0';
        cml_status st = cml_sweep_check_row(x, err, sizeof err);
        if (st)
            fprintf(stderr, "row %s: %s\n", x->key, err);
        CHECK(st == CML_OK);
        CHECK(x->title && x->title[0] && x->summary && x->summary[0]);
        CHECK(x->doc && !strncmp(x->doc, "docs/", 5) && strstr(x->doc, ".md"));
        CHECK(cml_experiment_find(x->key) == x);
        /* its defaults pass its own check of the options together */
        cml_param_values pv;
        CHECK(cml_lab_options(x, NULL, NULL, &pv, err, sizeof err) == CML_OK);
        CHECK(cml_lab_check_options(x, &pv, err, sizeof err) == CML_OK);
        /* its tour's settings are its own options with allowed values */
        st = cml_lab_options(x, x->tour, "its tour", &pv, err, sizeof err);
        if (st == CML_OK)
            st = cml_lab_check_options(x, &pv, err, sizeof err);
        if (st)
            fprintf(stderr, "row %s: %s\n", x->key, err);
        CHECK(st == CML_OK);
        for (size_t k = 0; k < x->naliases; k++) {
            const cml_experiment *owner = NULL;
            CHECK(cml_textbook_find(x->aliases[k].name, &owner) == &x->aliases[k]);
            CHECK(owner == x);
            CHECK(cml_lab_options(x, x->aliases[k].fixed, x->aliases[k].name, &pv, err,
                                  sizeof err) == CML_OK);
        }
        for (const char *const *s = x->validate ? x->validate->settings : NULL; s && *s; s++) {
            CHECK(cml_lab_options(x, *s, "validate", &pv, err, sizeof err) == CML_OK);
            CHECK(cml_lab_check_options(x, &pv, err, sizeof err) == CML_OK);
        }
    }
    CHECK(cml_textbook_find("noSuchProgram", NULL) == NULL);
}

/* The defaults: strides 1, 2, 4 (fastest) at blocks 64 and 128, op copy:
 * k does not apply, so it is swept once and left out. */
static void test_tiny_model_defaults(void)
{
    cml_results r;
    size_t before = tiny_summaries;
    CHECK(run_model(&cml_exp_tiny, NULL, &r) == CML_OK);
    CHECK_EQ_U64(r.count, 6);
    static const char *const names[] = {
        "stride=1 op=copy block=64",  "stride=2 op=copy block=64",  "stride=4 op=copy block=64",
        "stride=1 op=copy block=128", "stride=2 op=copy block=128", "stride=4 op=copy block=128",
    };
    static const double spr[] = {4, 8, 16, 4, 8, 16};
    for (size_t i = 0; i < r.count && i < 6; i++) {
        const cml_record *rec = &r.items[i];
        CHECK(!strcmp(rec->variant, names[i]));
        CHECK(!strcmp(rec->experiment, "tiny"));
        /* stride, op, block, n: not k */
        CHECK_EQ_U64(rec->nparams, 4);
        CHECK(!strcmp(rec->params[3].name, "n") && rec->params[3].value == 65536);
        CHECK(!strcmp(rec->params[1].label, "copy"));
        CHECK_EQ_U64(rec->bytes_read, 4 * 65536);
        CHECK_NEAR(cml_exp_spr(rec, CML_CLASS_GLOBAL_LD), spr[i], 1e-12);
        CHECK_NEAR(cml_exp_spr(rec, CML_CLASS_GLOBAL_ST), 4.0, 1e-12);
        CHECK(!rec->measured && rec->state == CML_REC_OK);
    }
    CHECK_EQ_U64(tiny_summaries - before, 2);
    CHECK(!strcmp(r.items[2].finding, "strides 1..4 at block 64"));
    CHECK(!strcmp(r.items[0].finding, "4.00 load sectors per request"));
    CHECK_EQ_U64(r.ndiags, 0);
    cml_results_free(&r);
}

/* k applies with op=scale only: copy sweeps it once, scale twice. */
static void test_tiny_applies(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_tiny, "op=copy,scale k=2,5 block=64", &r) == CML_OK);
    /* 3 strides x (1 copy + 2 scales) */
    CHECK_EQ_U64(r.count, 9);
    if (r.count == 9) {
        CHECK(!strcmp(r.items[0].variant, "stride=1 op=copy block=64"));
        CHECK(!strcmp(r.items[3].variant, "stride=1 k=2 op=scale block=64"));
        CHECK(!strcmp(r.items[8].variant, "stride=4 k=5 op=scale block=64"));
        CHECK_EQ_U64(r.items[8].nparams, 5);
        CHECK(!strcmp(r.items[8].params[1].name, "k") && r.items[8].params[1].value == 5);
    }
    cml_results_free(&r);
}

/* A point that does not exist is dropped; a waived one becomes a warning. */
static void test_tiny_skip_and_waive(void)
{
    cml_results r;
    CHECK(run_model(&cml_exp_tiny, "stride=1,4 block=48", &r) == CML_OK);
    CHECK_EQ_U64(r.count, 1);
    CHECK(r.count && !strcmp(r.items[0].variant, "stride=1 op=copy block=48"));
    cml_results_free(&r);

    CHECK(run_model(&cml_exp_tiny, "stride=1,4 block=64 n=2^23", &r) == CML_OK);
    CHECK_EQ_U64(r.count, 2);
    if (r.count == 2) {
        CHECK(r.items[0].state == CML_REC_OK && r.items[1].state == CML_REC_WAIVED);
        CHECK_STR_CONTAINS(r.items[1].note, "over 2^24");
    }
    CHECK_EQ_U64(r.ndiags, 1);
    if (r.ndiags == 1) {
        CHECK(r.diags[0].level == CML_DIAG_WARNING);
        CHECK(!strcmp(r.diags[0].experiment, "tiny"));
        CHECK_STR_CONTAINS(r.diags[0].message, "stride=4 op=copy block=64 waived");
    }
    cml_results_free(&r);
}

/* Rows that break the contract are refused before anything runs. */
static void test_broken_rows(void)
{
    char err[256];
    /* stride and op (k's condition names op, which a two-option row lacks) */
    cml_param_def opts[2] = {cml_exp_tiny.options[0], cml_exp_tiny.options[2]};
    cml_experiment row = cml_exp_tiny;
    row.options = opts;
    row.noptions = 2;
    CHECK(cml_sweep_check_row(&row, err, sizeof err) == CML_OK);
    opts[1].field = 0; /* an option without a field */
    CHECK(cml_sweep_check_row(&row, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "--op has no int64_t field");
    opts[1].field = cml_exp_tiny.options[2].field;
    opts[1].applies = "stride=2"; /* names an option declared before it */
    CHECK(cml_sweep_check_row(&row, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "not an option declared after it");
    row = cml_exp_tiny;
    row.settings_size = 8; /* fields past the struct */
    CHECK(cml_sweep_check_row(&row, err, sizeof err) == CML_EINVAL);
    row = cml_exp_tiny;
    row.variant = NULL;
    cml_results r;
    cml_results_init(&r);
    cml_lab_settings ls;
    memset(&ls, 0, sizeof ls);
    ls.model_only = 1;
    cml_lab lab;
    CHECK(cml_lab_open(&lab, &ls, &r) == CML_LAB_MODEL);
    cml_param_values pv;
    CHECK(cml_lab_options(&cml_exp_tiny, NULL, NULL, &pv, err, sizeof err) == CML_OK);
    CHECK(cml_lab_run(&lab, &row, &pv, &r) == CML_EINVAL);
    CHECK_EQ_U64(r.count, 0);
    CHECK(r.ndiags == 1 && r.diags[0].level == CML_DIAG_ERROR);
    cml_lab_close(&lab);
    cml_results_free(&r);
    /* a setting that is not an option names the row's options */
    CHECK(cml_lab_options(&cml_exp_tiny, "width=3", NULL, &pv, err, sizeof err) ==
          CML_EINVAL);
    CHECK_STR_CONTAINS(err, "--width: not an option of tiny (its options: --stride, --k");
}

/* On a GPU: the same experiment measured and verified through the lab. */
static void test_tiny_on_gpu(void)
{
    char why[256];
    if (cml_gpu_count(why, sizeof why) <= 0) {
        printf("test_engine: GPU part skipped: %s\n", why);
        return;
    }
    cml_results r;
    cml_results_init(&r);
    cml_lab_settings ls;
    memset(&ls, 0, sizeof ls);
    ls.counters = CML_COUNTERS_OFF;
    ls.reps = 3;
    cml_lab lab;
    CHECK(cml_lab_open(&lab, &ls, &r) == CML_LAB_GPU);
    cml_param_values pv;
    char err[256];
    CHECK(cml_lab_options(&cml_exp_tiny, "op=copy,scale k=7 n=2^20", NULL, &pv, err,
                          sizeof err) == CML_OK);
    CHECK(cml_lab_run(&lab, &cml_exp_tiny, &pv, &r) == CML_OK);
    CHECK_EQ_U64(r.count, 12);
    for (size_t i = 0; i < r.count; i++) {
        const cml_record *rec = &r.items[i];
        CHECK(rec->measured && rec->verify == CML_VERIFY_PASSED);
        CHECK(rec->bandwidth_gbs > 0 && rec->timing.reps == 3);
        CHECK(rec->occupancy > 0);
    }
    cml_lab_close(&lab);
    cml_results_free(&r);
}

int main(void)
{
    test_registry_rows();
    test_tiny_model_defaults();
    test_tiny_applies();
    test_tiny_skip_and_waive();
    test_broken_rows();
    test_tiny_on_gpu();
    return cml_test_summary("test_engine");
}
