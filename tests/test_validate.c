/*
 * Validation as data (src/lab/validate.h) on hand-built records: the
 * verdicts validate prints and writes, each case the rule it rests on:
 * agreement, a difference an experiment's row explains (by a tolerance and
 * by a measured control), one nothing explains, a counter the record lacks,
 * failed and waived records, a record without counters, a name the
 * registry does not know, and the tally's exit rule.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "lab/validate.h"
#include "test_util.h"

#define LD_SECTORS "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define LD_REQUESTS "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define SLD_WAVES "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define SLD_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define L2_READ "lts__t_sectors_srcunit_tex_op_read.sum"

/* A row of its own: ld sectors up to 1% above the model are explained,
 * shared-load conflicts by a control with residency=one. */
static const cml_explained_diff row_explained[] = {
    {NULL, "global_op_ld.sum", 0.01, "§9.9 test excess", NULL},
    {NULL, "bank_conflicts_pipe_lsu_mem_shared_op_ld", 0, "§9.8 test control", "residency=one"},
};
static const char *const row_settings[] = {"", NULL};
static const cml_validate_spec row_validate = {row_settings, row_explained, 2};
static cml_experiment row = {.key = "test-exp", .validate = &row_validate};

static cml_record *add(cml_results *r, const char *variant)
{
    cml_record *rec = cml_results_add(r, "test-exp", variant);
    rec->state = CML_REC_OK;
    rec->measured = 1;
    rec->has_model = 1;
    return rec;
}

static void counter(cml_record *rec, const char *name, double measured, double predicted)
{
    cml_counter *c = &rec->counters[rec->ncounters++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->measured = measured;
    c->has_prediction = !isnan(predicted);
    c->predicted = isnan(predicted) ? 0 : predicted;
}

static const cml_verdict_rec *judge(const cml_experiment *exp, cml_results *r, size_t i,
                                    cml_verdicts *v)
{
    CHECK(cml_validate_record(exp, r, i, 0, r->count, v) == CML_OK);
    return &v->items[v->count - 1];
}

static void test_agree_and_differ(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "n=1");
    counter(a, LD_REQUESTS, 1000, 1000);
    counter(a, LD_SECTORS, 4000, 4000);
    counter(a, "not_a_mapped_metric.sum", 5, 7); /* not judged, not listed */
    cml_record *b = add(&r, "n=2");
    counter(b, LD_SECTORS, 4020, 4000); /* 0.5% over: explained by the row */
    cml_record *c = add(&r, "n=3");
    counter(c, LD_SECTORS, 4100, 4000); /* 2.5% over: beyond the row's 1% */
    counter(c, LD_REQUESTS, 1000, 1000);
    cml_record *d = add(&r, "n=4");
    counter(d, LD_SECTORS, 3990, 4000); /* under: a max_frac > 0 explains excess only */

    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->subject == CML_SUBJECT_RECORD && x->verdict == CML_VERDICT_AGREE);
    CHECK_EQ_U64(x->record, 0);
    CHECK_EQ_U64(x->ncounters, 2);
    CHECK(x->counters[0].rule == CML_RULE_EXACT && x->counters[0].verdict == CML_CV_AGREE);
    CHECK(x->why == NULL && x->reason[0] == '\0');

    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_EXPLAINED);
    CHECK(x->why == &row_explained[0] && !x->why_everywhere);
    CHECK(x->counters[0].verdict == CML_CV_EXPLAINED);
    CHECK(x->counters[0].difference == 20 && x->counters[0].explain_reference == 4000);

    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED && x->why == NULL);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED && x->counters[0].why == NULL);
    CHECK(x->counters[1].verdict == CML_CV_AGREE);

    x = judge(&row, &r, 3, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);

    /* The same difference in a record of no known row: nothing explains it. */
    x = judge(NULL, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);

    cml_verdict_tally t = cml_verdicts_tally(&v);
    CHECK_EQ_U64(t.agree, 1);
    CHECK_EQ_U64(t.differ, 4);
    CHECK_EQ_U64(t.explained, 1);
    CHECK_EQ_U64(t.unexplained, 3);
    CHECK(cml_verdicts_failing(&t));
    CHECK(cml_validate_record(&row, &r, r.count, 0, r.count, &v) == CML_EINVAL);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* A counter the record lacks is not judged (validate's records leave out
 * a counter that read 0 where the model says 0); a measured value that is
 * not a number (null in a file) never agrees with a prediction. */
static void test_missing_counter(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "n=1");
    counter(a, LD_REQUESTS, 1000, 1000); /* no LD_SECTORS at all */
    cml_record *b = add(&r, "n=2");
    counter(b, LD_SECTORS, NAN, 4000);
    cml_record *c = add(&r, "n=3");
    counter(c, LD_SECTORS, 4000, NAN); /* no prediction: nothing to compare */
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE && x->ncounters == 1);
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE && x->counters[0].rule == CML_RULE_NONE);
    CHECK(x->counters[0].difference == 0);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

static void test_failed_and_skipped(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "n=1");
    a->state = CML_REC_FAILED;
    snprintf(a->note, sizeof a->note, "verification failed: 3 wrong elements");
    cml_record *b = add(&r, "n=2");
    b->state = CML_REC_WAIVED;
    snprintf(b->note, sizeof b->note, "needs 2 GPUs");
    add(&r, "n=3"); /* measured, no counters */
    cml_record *d = add(&r, "n=4");
    d->measured = 0; /* ok but never measured (a model-only record) */
    counter(d, LD_SECTORS, 1, 1);
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_FAILED && !strcmp(x->reason, a->note));
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_SKIPPED && !strcmp(x->reason, "needs 2 GPUs"));
    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_FAILED &&
          !strcmp(x->reason, "no counters read (none in the record)"));
    x = judge(&row, &r, 3, &v);
    CHECK(x->verdict == CML_VERDICT_FAILED && x->ncounters == 0);
    CHECK(cml_verdicts_add_note(&v, CML_SUBJECT_SETTINGS, CML_VERDICT_FAILED, "test-exp",
                                "n=banana", "n: not a number") == CML_OK);
    CHECK(cml_verdicts_add_note(&v, CML_SUBJECT_EXPERIMENT, CML_VERDICT_SKIPPED, "other", "",
                                "no GPU kernels yet") == CML_OK);
    cml_verdict_tally t = cml_verdicts_tally(&v);
    CHECK_EQ_U64(t.failed, 4);
    CHECK_EQ_U64(t.skipped, 2);
    CHECK(cml_verdicts_failing(&t));
    CHECK(!strcmp(cml_verdict_name(v.items[4].verdict), "failed"));
    CHECK(!strcmp(cml_verdict_subject_name(v.items[4].subject), "settings"));
    CHECK(v.items[4].record == SIZE_MAX);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* An explanation with a control holds only when the control record ran
 * and agrees on the counters it names, and only for an excess. */
static void test_control(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "w=1 residency=many");
    counter(a, SLD_WAVES, 1100, 1100);
    counter(a, SLD_CONFLICTS, 110, 100);
    cml_record *b = add(&r, "w=2 residency=many"); /* its control differs */
    counter(b, SLD_CONFLICTS, 110, 100);
    cml_record *c = add(&r, "w=3 residency=many"); /* no control ran */
    counter(c, SLD_CONFLICTS, 110, 100);
    cml_record *d = add(&r, "w=1 residency=many");
    counter(d, SLD_CONFLICTS, 90, 100); /* a shortfall: a control explains excess only */
    cml_record *ca = add(&r, "w=1 residency=one");
    counter(ca, SLD_WAVES, 1100, 1100);
    counter(ca, SLD_CONFLICTS, 100, 100);
    cml_record *cb = add(&r, "w=2 residency=one");
    counter(cb, SLD_CONFLICTS, 104, 100);
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_EXPLAINED && x->why == &row_explained[1]);
    CHECK(x->counters[1].explain_reference == 1100); /* the wavefronts of the same op */
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    x = judge(&row, &r, 3, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    x = judge(&row, &r, 4, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE);
    /* A control outside the records searched explains nothing. */
    CHECK(cml_validate_record(&row, &r, 0, 0, 4, &v) == CML_OK);
    CHECK(v.items[v.count - 1].verdict == CML_VERDICT_UNEXPLAINED);
    /* The differences explained everywhere: shared counters, same control. */
    size_t n;
    const cml_explained_diff *every = cml_validate_everywhere(&n);
    CHECK(n >= 1 && every[0].control != NULL);
    x = judge(NULL, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_EXPLAINED && x->why_everywhere && x->why == &every[0]);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* Cache-level counters: within 1% of the sectors the kernel asks for, or
 * under the floor; the judgement names the rule and its figures. */
static void test_relative(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "n=1");
    a->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].sectors = 1000000;
    counter(a, L2_READ, 509000, 500000); /* 9000 <= 1% of 1e6 */
    cml_record *b = add(&r, "n=2");
    b->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].sectors = 1000000;
    counter(b, L2_READ, 520000, 500000); /* 20000 > 1% of 1e6 and > the floor */
    cml_record *c = add(&r, "n=3");
    counter(c, L2_READ, 900, 100); /* no sectors asked for: the floor (1024) */
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE);
    CHECK(x->counters[0].rule == CML_RULE_RELATIVE);
    CHECK(x->counters[0].reference == 1e6 && x->counters[0].tolerance == 0.01);
    CHECK(x->counters[0].floor > 0);
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED && x->counters[0].explain_reference == 1e6);
    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE && x->counters[0].reference == 900);
    CHECK(!strcmp(cml_rule_name(x->counters[0].rule), "relative"));
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

int main(void)
{
    test_agree_and_differ();
    test_missing_counter();
    test_failed_and_skipped();
    test_control();
    test_relative();
    return cml_test_summary("test_validate");
}
