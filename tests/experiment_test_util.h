/*
 * Helpers for the CPU tests of experiments: run an experiment on the model
 * alone with its defaults plus a few settings, find a record or an extra
 * figure in what it produced, and check that a bad value is refused. Like
 * test_util.h, everything is static: each test file is one executable.
 */
#ifndef CML_EXPERIMENT_TEST_UTIL_H
#define CML_EXPERIMENT_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "lab/experiment.h"
#include "lab/lab.h"
#include "test_util.h"

/*
 * Run x through the run engine on the model alone (no GPU, no device
 * facts) with its defaults, then the settings "name=list name=list ..."
 * (the tour's syntax; NULL: none) applied. Returns the first failing
 * status, with the engine's message on stderr. *r is initialised only when
 * the settings are accepted; the caller frees it.
 */
static inline cml_status run_model(const cml_experiment *x, const char *settings,
                                   cml_results *r)
{
    cml_param_values pv;
    char err[512] = "";
    cml_status st = cml_lab_options(x, settings, NULL, &pv, err, sizeof err);
    if (st) {
        fprintf(stderr, "%s: %s\n", x->key, err);
        return st;
    }
    cml_results_init(r);
    cml_lab_settings ls;
    memset(&ls, 0, sizeof ls);
    ls.model_only = 1;
    cml_lab lab;
    cml_lab_open(&lab, &ls, r);
    st = cml_lab_run(&lab, x, &pv, r);
    cml_lab_close(&lab);
    for (size_t i = 0; st && i < r->ndiags; i++)
        fprintf(stderr, "%s: %s\n", x->key, r->diags[i].message);
    return st;
}

/*
 * The record of r named `variant`. A record that is not there is a failed
 * check (the message names the variant and how many records there were)
 * and NULL: callers guard what they read with FOUND (test_util.h), so that
 * a renamed or vanished variant fails the test rather than skip its checks.
 */
static inline const cml_record *find(const cml_results *r, const char *variant)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->items[i].variant, variant) == 0)
            return &r->items[i];
    cml_test_checks++;
    cml_test_failures++;
    fprintf(stderr, "no record \"%s\" among the %zu records\n", variant, r->count);
    return NULL;
}

/* The extra figure `name` of rec; a failed check (naming it) and -1 if it
 * has none. */
static inline double extra(const cml_record *rec, const char *name)
{
    for (unsigned i = 0; i < rec->nextra; i++)
        if (strcmp(rec->extra[i].name, name) == 0)
            return rec->extra[i].value;
    cml_test_checks++;
    cml_test_failures++;
    fprintf(stderr, "%s: no extra \"%s\"\n", rec->variant, name);
    return -1.0;
}

/*
 * Three checks: x's defaults are accepted, name=value is refused with
 * CML_EINVAL, and the message names the option (`option`; NULL: "--name").
 */
static inline void check_refused(const cml_experiment *x, const char *name, const char *value,
                                 const char *option)
{
    cml_param_values pv;
    char err[256] = "", opt[64];
    CHECK_EQ_I64(cml_param_defaults(x->options, x->noptions, &pv, err, sizeof err), CML_OK);
    err[0] = '\0';
    CHECK_EQ_I64(cml_param_set(&pv, name, value, err, sizeof err), CML_EINVAL);
    if (!option) {
        snprintf(opt, sizeof opt, "--%s", name);
        option = opt;
    }
    CHECK_STR_CONTAINS(err, option);
}

#endif
