/*
 * Validation as data (src/lab/validate.h) on hand-built records: the
 * verdicts validate prints and writes, each case the rule it rests on:
 * agreement (exact, within the interval), a difference an experiment's row
 * explains (a mechanism in one direction, within its bound, whose control
 * agrees), those nothing explains (no control, a control with none of the
 * counters, a control that differs, the wrong direction, beyond the
 * bound), a counter the record lacks, failed and waived records, a record
 * without counters, a name the registry does not know, the values' kinds
 * and the tally's exit rule.
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
#define SST_WAVES "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
#define L2_READ "lts__t_sectors_srcunit_tex_op_read.sum"
#define DRAM_WRITE "dram__bytes_write.sum"

/* A row of its own: shared-load conflicts up to 10% of the operation's
 * wavefronts above the model, with residency=one as the control; L2 reads
 * up to 5% of the load sectors below it, with mode=plain as the control. */
static const cml_explained_diff row_explained[] = {
    {NULL, "bank_conflicts_pipe_lsu_mem_shared_op_ld", "test: another block's accesses",
     CML_EXCESS, 0.10, "§9.8 test control", "residency=one"},
    {"mode=meet", "lts__t_sectors_srcunit_tex_op_read", "test: misses meeting in flight",
     CML_DEFICIT, 0.05, "§9.9 test deficit", "mode=plain"},
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
    counter(b, LD_SECTORS, 4020, 4000); /* an exact counter 20 over: nothing explains it */
    cml_record *c = add(&r, "n=3");
    counter(c, LD_SECTORS, 3990, 4000);
    counter(c, LD_REQUESTS, 1000, 1000);

    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->subject == CML_SUBJECT_RECORD && x->verdict == CML_VERDICT_AGREE);
    CHECK_EQ_U64(x->record, 0);
    CHECK_EQ_U64(x->ncounters, 2);
    CHECK(x->counters[0].rule == CML_RULE_EXACT && x->counters[0].verdict == CML_CV_EXACT);
    CHECK(x->counters[0].lo == 1000 && x->counters[0].hi == 1000);
    CHECK(x->why == NULL && x->reason[0] == '\0');

    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED && x->why == NULL);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED && x->counters[0].why == NULL);
    CHECK(x->counters[0].difference == 20 && x->counters[0].explain_reference == 4000);

    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED);
    CHECK(x->counters[1].verdict == CML_CV_EXACT);

    /* A record of no known row: the same. */
    x = judge(NULL, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);

    cml_verdict_tally t = cml_verdicts_tally(&v);
    CHECK_EQ_U64(t.agree, 1);
    CHECK_EQ_U64(t.differ, 3);
    CHECK_EQ_U64(t.explained, 0);
    CHECK_EQ_U64(t.unexplained, 3);
    /* values: 2 + 1 + 2 + 1 judged; exact: a's 2 and c's requests */
    CHECK_EQ_U64(t.values[CML_CV_EXACT], 3);
    CHECK_EQ_U64(t.values[CML_CV_UNEXPLAINED], 3);
    CHECK_EQ_U64(cml_verdicts_unexplained(&t), 3);
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
    CHECK(x->counters[0].verdict == CML_CV_INFO && x->counters[0].difference == 0);
    /* no prediction: a counter reported, not a judged value of any kind */
    cml_verdict_tally t = cml_verdicts_tally(&v);
    CHECK_EQ_U64(t.info, 1);
    CHECK_EQ_U64(t.values[CML_CV_EXACT] + t.values[CML_CV_WITHIN] + t.values[CML_CV_EXPLAINED] +
                     t.values[CML_CV_NOT_JUDGED] + t.values[CML_CV_UNEXPLAINED],
                 2);
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
    /* No value differs, yet runs failed: they are what is unexplained, and
     * the count the exit follows says 4, never 0 while failing. */
    CHECK_EQ_U64(t.values[CML_CV_UNEXPLAINED], 0);
    CHECK_EQ_U64(cml_verdicts_unexplained(&t), 4);
    CHECK(cml_verdicts_failing(&t));
    CHECK(!strcmp(cml_verdict_name(v.items[4].verdict), "failed"));
    CHECK(!strcmp(cml_verdict_subject_name(v.items[4].subject), "settings"));
    CHECK(v.items[4].record == SIZE_MAX);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* An explanation holds only for a difference in its direction, within its
 * bound, when the control record ran and is itself exact or inside the
 * model's interval on the counters it names (at least one of them). */
static void test_control(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "w=1 residency=many");
    counter(a, SLD_WAVES, 1100, 1100);
    counter(a, SLD_CONFLICTS, 110, 100); /* +10 of 1100 wavefronts: inside 10% */
    cml_record *b = add(&r, "w=2 residency=many"); /* its control differs */
    counter(b, SLD_CONFLICTS, 110, 100);
    cml_record *c = add(&r, "w=3 residency=many"); /* no control ran */
    counter(c, SLD_CONFLICTS, 110, 100);
    cml_record *d = add(&r, "w=1 residency=many");
    counter(d, SLD_CONFLICTS, 90, 100); /* a deficit against an EXCESS entry */
    cml_record *ca = add(&r, "w=1 residency=one");
    counter(ca, SLD_WAVES, 1100, 1100);
    counter(ca, SLD_CONFLICTS, 100, 100);
    cml_record *cb = add(&r, "w=2 residency=one");
    counter(cb, SLD_CONFLICTS, 104, 100);
    cml_record *e = add(&r, "w=4 residency=many"); /* its control has none of the counters */
    counter(e, SLD_WAVES, 1000, 1000);
    counter(e, SLD_CONFLICTS, 150, 100); /* +50 of 1000 wavefronts: inside 10% */
    cml_record *ce = add(&r, "w=4 residency=one");
    counter(ce, LD_REQUESTS, 10, 10); /* agrees, but on nothing the entry names */
    cml_record *f = add(&r, "w=1 residency=many");
    counter(f, SLD_WAVES, 1100, 1100);
    counter(f, SLD_CONFLICTS, 211, 100); /* +111 of 1100: over the 10% bound (110) */
    cml_record *g = add(&r, "w=1 residency=many");
    counter(g, SLD_WAVES, 1100, 1100);
    counter(g, SLD_CONFLICTS, 210, 100); /* +110: exactly the bound */
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_EXPLAINED && x->why == &row_explained[0]);
    CHECK(x->counters[1].verdict == CML_CV_EXPLAINED);
    CHECK(x->counters[1].explain_reference == 1100); /* the wavefronts of the same op */
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    x = judge(&row, &r, 3, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED && x->counters[0].why == NULL);
    x = judge(&row, &r, 4, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE);
    x = judge(&row, &r, 6, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED && x->counters[1].verdict == CML_CV_UNEXPLAINED);
    x = judge(&row, &r, 8, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    x = judge(&row, &r, 9, &v);
    CHECK(x->verdict == CML_VERDICT_EXPLAINED);
    /* A control outside the records searched explains nothing. */
    CHECK(cml_validate_record(&row, &r, 0, 0, 4, &v) == CML_OK);
    CHECK(v.items[v.count - 1].verdict == CML_VERDICT_UNEXPLAINED);
    /* The differences explained everywhere: shared counters, same control. */
    size_t n;
    const cml_explained_diff *every = cml_validate_everywhere(&n);
    CHECK(n >= 1 && every[0].control != NULL && every[0].direction == CML_EXCESS);
    x = judge(NULL, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_EXPLAINED && x->why_everywhere && x->why == &every[0]);
    cml_verdict_tally t = cml_verdicts_tally(&v);
    /* explained: a's and g's conflicts, and a's by the everywhere entry;
     * unexplained: the conflicts of b, c, d, e, f and of a without its
     * control; exact: the wavefront counters of a (3 times), e, f, g and
     * both of ca's counters */
    CHECK_EQ_U64(t.values[CML_CV_EXPLAINED], 3);
    CHECK_EQ_U64(t.values[CML_CV_UNEXPLAINED], 6);
    CHECK_EQ_U64(t.values[CML_CV_EXACT], 8);
    CHECK_EQ_U64(cml_verdicts_unexplained(&t), 6);
    CHECK(cml_verdicts_failing(&t));
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* validate tags each record with its footprint (CML_FOOTPRINT_TAG, last in
 * the variant): the control is found at the record's own footprint, with a
 * control setting the variant lacks put before the tag, never at another
 * footprint. */
static void test_control_footprint(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "w=1 footprint=dram");
    counter(a, SLD_WAVES, 1100, 1100);
    counter(a, SLD_CONFLICTS, 110, 100);
    cml_record *other = add(&r, "w=1 residency=one footprint=l2"); /* another footprint */
    counter(other, SLD_WAVES, 1100, 1100);
    counter(other, SLD_CONFLICTS, 100, 100);
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    cml_record *ca = add(&r, "w=1 residency=one footprint=dram"); /* its own footprint's */
    counter(ca, SLD_WAVES, 1100, 1100);
    counter(ca, SLD_CONFLICTS, 100, 100);
    x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_EXPLAINED && x->why == &row_explained[0]);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* Cache-level counters: inside the model's interval (today the point)
 * widened by 1% of the sectors the kernel asks for or by the noise floor;
 * not judged when both figures lie under the floor; a DEFICIT entry
 * explains a shortfall within its bound when its control agrees, and
 * neither an excess nor a shortfall beyond the bound. */
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
    counter(c, L2_READ, 900, 100); /* both under the floor (1024 sectors): not judged */
    cml_record *c2 = add(&r, "n=4");
    counter(c2, L2_READ, 2000, 1100); /* judged; 900 <= the floor: within */
    cml_record *c3 = add(&r, "n=5");
    counter(c3, DRAM_WRITE, 1048576, 1048576); /* equal: exact */
    /* The deficit entry (mode=meet, control mode=plain, 5% of the load sectors). */
    const double sectors = 1000000;
    static const struct { const char *variant; double measured; cml_verdict want; } meet[] = {
        {"mode=meet k=1", 460000, CML_VERDICT_EXPLAINED},   /* -40000: inside 50000 */
        {"mode=meet k=2", 450000, CML_VERDICT_EXPLAINED},   /* -50000: the bound itself */
        {"mode=meet k=3", 449000, CML_VERDICT_UNEXPLAINED}, /* -51000: over the bound */
        {"mode=meet k=1", 540000, CML_VERDICT_UNEXPLAINED}, /* an excess: wrong direction */
        {"mode=meet k=4", 460000, CML_VERDICT_UNEXPLAINED}, /* its control differs */
    };
    const size_t first_meet = r.count;
    for (size_t i = 0; i < sizeof meet / sizeof meet[0]; i++) {
        cml_record *m = add(&r, meet[i].variant);
        m->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].sectors = (uint64_t)sectors;
        counter(m, L2_READ, meet[i].measured, 500000);
    }
    static const struct { const char *variant; double measured; } plain[] = {
        {"mode=plain k=1", 500000}, {"mode=plain k=2", 504000}, /* within 1% */
        {"mode=plain k=3", 500000}, {"mode=plain k=4", 480000}, /* differs */
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        cml_record *m = add(&r, plain[i].variant);
        m->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].sectors = (uint64_t)sectors;
        counter(m, L2_READ, plain[i].measured, 500000);
    }
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE && x->counters[0].verdict == CML_CV_WITHIN);
    CHECK(x->counters[0].rule == CML_RULE_RELATIVE);
    CHECK(x->counters[0].lo == 500000 && x->counters[0].hi == 500000);
    CHECK(x->counters[0].reference == 1e6 && x->counters[0].tolerance == 0.01);
    CHECK(x->counters[0].floor == 1024);
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED && x->counters[0].explain_reference == 1e6);
    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE && x->counters[0].verdict == CML_CV_NOT_JUDGED);
    CHECK(x->counters[0].rule == CML_RULE_NOT_JUDGED);
    x = judge(&row, &r, 3, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE && x->counters[0].verdict == CML_CV_WITHIN);
    CHECK(x->counters[0].reference == 2000); /* no sectors asked for: the larger figure */
    CHECK(!strcmp(cml_rule_name(x->counters[0].rule), "relative"));
    x = judge(&row, &r, 4, &v);
    CHECK(x->counters[0].verdict == CML_CV_EXACT);
    for (size_t i = 0; i < sizeof meet / sizeof meet[0]; i++) {
        x = judge(&row, &r, first_meet + i, &v);
        if (x->verdict != meet[i].want)
            fprintf(stderr, "meet case %zu: %s\n", i, cml_verdict_name(x->verdict));
        CHECK(x->verdict == meet[i].want);
        CHECK(x->verdict != CML_VERDICT_EXPLAINED || x->why == &row_explained[1]);
    }
    /* the kinds over the records judged here (the controls are looked at,
     * not judged): within a and c2, exact c3, not judged c, explained two
     * deficits, unexplained b and three of the deficit cases */
    cml_verdict_tally t = cml_verdicts_tally(&v);
    CHECK_EQ_U64(t.values[CML_CV_WITHIN], 2);
    CHECK_EQ_U64(t.values[CML_CV_EXACT], 1);
    CHECK_EQ_U64(t.values[CML_CV_NOT_JUDGED], 1);
    CHECK_EQ_U64(t.values[CML_CV_EXPLAINED], 2);
    CHECK_EQ_U64(t.values[CML_CV_UNEXPLAINED], 4);
    CHECK_EQ_U64(t.agree, 4);
    CHECK_EQ_U64(t.explained, 2);
    CHECK_EQ_U64(t.unexplained, 4);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* The model's interval (rec->levels lo/hi) is what a cache-level counter
 * is judged against, scaled as the prediction is to the level figure: L2
 * reads predicted 500000 (the level figure 250000, counted twice) with the
 * bounds [200000, 400000] of the level figure give [400000, 800000]; the
 * load sectors asked for are 1e6, so the slack is 1% of them, 10000. */
static void test_interval(void)
{
    static const struct { double measured; cml_counter_verdict want; } cases[] = {
        {450000, CML_CV_WITHIN},      /* below the point, inside the interval */
        {390000, CML_CV_WITHIN},      /* lo - slack itself */
        {389999, CML_CV_UNEXPLAINED}, /* one under */
        {810000, CML_CV_WITHIN},      /* hi + slack */
        {810001, CML_CV_UNEXPLAINED}, /* one over */
        {500000, CML_CV_WITHIN},      /* the point of an interval that is not one: within */
    };
    cml_results r;
    cml_results_init(&r);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char variant[16];
        snprintf(variant, sizeof variant, "n=%zu", i + 10);
        cml_record *a = add(&r, variant);
        a->model[CML_RULES_MODERN].cls[CML_CLASS_GLOBAL_LD].sectors = 1000000;
        a->has_levels = 1;
        a->levels.bounded = 1;
        a->levels.l2_read_sectors = 250000;
        a->levels.lo.l2_read_sectors = 200000;
        a->levels.hi.l2_read_sectors = 400000;
        counter(a, L2_READ, cases[i].measured, 500000);
    }
    cml_verdicts v;
    cml_verdicts_init(&v);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cml_verdict_rec *x = judge(&row, &r, i, &v);
        CHECK(x->counters[0].lo == 400000 && x->counters[0].hi == 800000);
        if (x->counters[0].verdict != cases[i].want)
            fprintf(stderr, "interval case %zu: %s\n", i, cml_verdict_name(x->verdict));
        CHECK(x->counters[0].verdict == cases[i].want);
    }
    /* Without bounds (a level figure from a simulator's own totals) the
     * claim is the point: the same 450000 is unexplained. */
    r.items[0].levels.bounded = 0;
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->counters[0].lo == 500000 && x->counters[0].hi == 500000);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/*
 * The DRAM floor of a long launch: 262144 bytes, and what the background
 * control (launches keeping L2 busy, core/dram_background.h) shows beyond them, at
 * its rate over the record's longest timed launch. The control: 200 ms with
 * 14 units of 256 KiB written (3670016 B: (3670016 - 262144) / 200 =
 * 17039.36 B/ms) and 1.6 MB read ((1600000 - 262144) / 200 = 6689.28 B/ms;
 * a 50 ms control of 300000 B read, 757.12 B/ms, and one unit written,
 * 0 B/ms, are not the largest rates).
 * The H200's hierarchy 32 KiB write: 786432 B written, 374272 read in a
 * 41 ms launch, the model none:
 *   - write floor 262144 + 17039.36 * 41 = 960757.76, read floor 262144 +
 *     6689.28 * 41 = 536404.48: both under, not judged;
 *   - the same values in a 5 ms launch: floors 347340.8 and 295590.4, both
 *     exceeded: unexplained;
 *   - without a control: the fixed floor, both unexplained.
 * A DRAM figure of 100 MB measured 100.8 MB over a 10 ms launch: judged
 * against the interval widened by 2% as before (the floor only adds where
 * it is the larger slack).
 */
static void test_dram_background(void)
{
    cml_results r;
    cml_results_init(&r);
    static const double max_ms[3] = {41, 5, 41};
    for (int i = 0; i < 3; i++) {
        char variant[16];
        snprintf(variant, sizeof variant, "bg=%d", i);
        cml_record *a = add(&r, variant);
        a->timing.max_ms = max_ms[i];
        a->timing.median_ms = max_ms[i] / 2; /* the longest launch counts, not the median */
        counter(a, DRAM_WRITE, 786432, 0);
        counter(a, "dram__bytes_read.sum", 374272, 0);
    }
    cml_record *big = add(&r, "bg=3");
    big->timing.max_ms = 10;
    counter(big, DRAM_WRITE, 100.8e6, 100e6);
    cml_dram_background bg = {
        .n = 2, .ms = {50, 200}, .read_bytes = {300000, 1.6e6}, .write_bytes = {262144, 3670016}};
    CHECK(cml_dram_background_check(&bg, (char[32]){0}, 32) == NULL);
    CHECK_NEAR(cml_dram_background_rate(&bg, 1), 17039.36, 1e-9);
    CHECK_NEAR(cml_dram_background_rate(&bg, 0), 6689.28, 1e-9);
    cml_verdicts v;
    cml_verdicts_init(&v);
    r.background = bg;
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE);
    CHECK(x->counters[0].verdict == CML_CV_NOT_JUDGED);
    CHECK(x->counters[1].verdict == CML_CV_NOT_JUDGED);
    CHECK_NEAR(x->counters[0].floor, 960757.76, 1e-6);
    CHECK_NEAR(x->counters[1].floor, 536404.48, 1e-6);
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED);
    CHECK(x->counters[1].verdict == CML_CV_UNEXPLAINED);
    CHECK_NEAR(x->counters[0].floor, 347340.8, 1e-6);
    CHECK_NEAR(x->counters[1].floor, 295590.4, 1e-6);
    x = judge(&row, &r, 3, &v);
    CHECK(x->counters[0].verdict == CML_CV_WITHIN);
    CHECK_NEAR(x->counters[0].floor, 262144 + 170393.6, 1e-6);
    memset(&r.background, 0, sizeof r.background);
    x = judge(&row, &r, 2, &v);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED);
    CHECK(x->counters[1].verdict == CML_CV_UNEXPLAINED);
    CHECK(x->counters[0].floor == 262144);

    /* A control a file cannot hold: refused by the check, by name. */
    char what[64];
    cml_dram_background bad = bg;
    bad.ms[1] = 0;
    CHECK_STR_EQ(cml_dram_background_check(&bad, what, sizeof what), "controls[1].ms");
    bad = bg;
    bad.write_bytes[0] = -1;
    CHECK_STR_EQ(cml_dram_background_check(&bad, what, sizeof what), "controls[0].write_bytes");
    bad = bg;
    bad.read_bytes[1] = NAN;
    CHECK_STR_EQ(cml_dram_background_check(&bad, what, sizeof what), "controls[1].read_bytes");
    bad.n = CML_DRAM_BACKGROUND_MAX + 1;
    CHECK(cml_dram_background_check(&bad, what, sizeof what) != NULL);
    CHECK(cml_dram_background_bytes(&bg, 1, NAN) == 0);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/*
 * The lines dirty in L2 at a launch's start (core/dram_background.h): a
 * kernel streaming through L2 writes them back. The H200's reduce
 * (async-copy workload=reduce method=async-cg, validate of 2026-11-29 run
 * 4): 339200 B written in a launch of at most 0.25 ms, the model 4224 at
 * most. The background control as above (17039.36 B/ms written); two
 * stream controls wrote 61440 B in 0.045 ms and 88576 B in 0.047 ms, a
 * third 500 B in 0.05 ms (under its rate x length: it counts 0), a fourth
 * 325120 B in 0.433 ms (a whole unit caught: 325120 - 7378.04288 -
 * 262144 = 55597.95712):
 *   dirty = max(61440 - 17039.36 x 0.045, 88576 - 17039.36 x 0.047, ...)
 *         = max(60673.2288, 87775.15008, 0, 55597.95712) = 87775.15008;
 *   write floor = 262144 + 17039.36 x 0.25 + 87775.15008 = 354178.99008:
 *   the 339200 B are not judged; 380000 B stay unexplained. The read floor
 *   does not take it: 262144 + 6689.28 x 0.25 = 263816.32. Without stream
 *   controls the write floor is 266403.84, and 339200 is unexplained.
 */
static void test_dirty_at_start(void)
{
    cml_results r;
    cml_results_init(&r);
    static const double written[2] = {339200, 380000};
    for (int i = 0; i < 2; i++) {
        char variant[16];
        snprintf(variant, sizeof variant, "dirty=%d", i);
        cml_record *a = add(&r, variant);
        a->timing.max_ms = 0.25;
        counter(a, DRAM_WRITE, written[i], 4224);
        counter(a, "dram__bytes_read.sum", 251664128, 251658240);
    }
    cml_dram_background bg = {
        .n = 2, .ms = {50, 200}, .read_bytes = {300000, 1.6e6}, .write_bytes = {262144, 3670016}};
    bg.stream_n = 4;
    const double sms[4] = {0.045, 0.047, 0.05, 0.433}, swr[4] = {61440, 88576, 500, 325120};
    for (int i = 0; i < 4; i++) {
        bg.stream_ms[i] = sms[i];
        bg.stream_read_bytes[i] = 150e6;
        bg.stream_write_bytes[i] = swr[i];
    }
    CHECK(cml_dram_background_check(&bg, (char[64]){0}, 64) == NULL);
    CHECK_NEAR(cml_dram_background_dirty(&bg), 87775.15008, 1e-6);
    r.background = bg;
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->counters[0].verdict == CML_CV_NOT_JUDGED);
    CHECK_NEAR(x->counters[0].floor, 354178.99008, 1e-6);
    CHECK(x->counters[1].verdict == CML_CV_WITHIN);
    CHECK_NEAR(x->counters[1].floor, 263816.32, 1e-6);
    x = judge(&row, &r, 1, &v);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED);
    r.background.stream_n = 0;
    CHECK(cml_dram_background_dirty(&r.background) == 0);
    x = judge(&row, &r, 0, &v);
    CHECK(x->counters[0].verdict == CML_CV_UNEXPLAINED);
    CHECK_NEAR(x->counters[0].floor, 266403.84, 1e-6);
    /* The unit-catching control alone: its 55597.95712 beyond the unit. */
    cml_dram_background one = bg;
    one.stream_n = 1;
    one.stream_ms[0] = 0.433;
    one.stream_write_bytes[0] = 325120;
    CHECK_NEAR(cml_dram_background_dirty(&one), 55597.95712, 1e-6);

    /* A stream control a file cannot hold: refused by the check, by name;
     * a non-finite one counts for nothing in the sum. */
    char what[64];
    cml_dram_background bad = bg;
    bad.stream_ms[2] = 0;
    CHECK_STR_EQ(cml_dram_background_check(&bad, what, sizeof what), "stream_controls[2].ms");
    bad = bg;
    bad.stream_write_bytes[1] = INFINITY;
    CHECK_STR_EQ(cml_dram_background_check(&bad, what, sizeof what),
                 "stream_controls[1].write_bytes");
    CHECK_NEAR(cml_dram_background_dirty(&bad), 60673.2288, 1e-6);
    bad.stream_n = CML_DRAM_BACKGROUND_MAX + 1;
    CHECK_STR_EQ(cml_dram_background_check(&bad, what, sizeof what),
                 "stream_controls (9, at most 8)");
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/*
 * DRAM reads no SM asked for (docs/model-evidence.md §2.1): after the flush
 * that opens every range, units outside the GPCs read their lines from
 * DRAM again. The H200's 32 KiB write (validate of 2026-11-28, run 1): a
 * 41 ms launch read 398336 bytes, the model none; the background control
 * of that run read 39168, 256256 and 608512 bytes over 10, 50 and 200 ms,
 * a rate of (608512 - 262144) / 200 = 1731.84 B/ms beyond the fixed
 * 262144: a floor of 262144 + 41 x 1731.84 = 333149.44, which the value
 * exceeds. Its range's L2 read misses: 12400 sectors of every unit, 830 of
 * the GPCs (its code and constants), 0 forwarded: 32 x 11570 = 370240
 * bytes outside the GPCs, a floor of 632384, under which it is not judged.
 */
static void test_outside_gpc_reads(void)
{
    cml_results r;
    cml_results_init(&r);
    r.background = (cml_dram_background){.n = 3,
                                         .ms = {10, 50, 200},
                                         .read_bytes = {39168, 256256, 608512},
                                         .write_bytes = {262144, 786432, 3932160}};
    for (int i = 0; i < 5; i++) {
        char variant[16];
        snprintf(variant, sizeof variant, "w=%d", i);
        cml_record *a = add(&r, variant);
        a->timing.max_ms = 41;
        counter(a, "dram__bytes_read.sum", i == 2 ? 33554432.0 + 300000 : 398336, i == 2 ? 33554432 : 0);
        if (i == 0 || i == 1 || i == 4)
            counter(a, CML_METRIC_L2_READ_MISS_DEVICE, i == 4 ? NAN : 12400, NAN);
        if (i == 0 || i == 4)
            counter(a, CML_METRIC_L2_READ_MISS_GPC, 830, NAN);
        if (i == 0 || i == 1 || i == 4)
            counter(a, CML_METRIC_L2_READ_MISS_FABRIC, 0, NAN);
        if (i == 2) {
            /* A kernel reading 32 MiB: 1048576 sectors missed by the GPCs
             * (and their code's 830), the half homed in the other partition
             * missed there again, 100 sectors of the units outside. */
            counter(a, CML_METRIC_L2_READ_MISS_DEVICE, 1048576 + 830 + 524288 + 100, NAN);
            counter(a, CML_METRIC_L2_READ_MISS_GPC, 1048576 + 830, NAN);
            counter(a, CML_METRIC_L2_READ_MISS_FABRIC, 524288, NAN);
        }
        if (i == 3) { /* more misses of the GPCs than of all: another pass's, 0 */
            counter(a, CML_METRIC_L2_READ_MISS_DEVICE, 900, NAN);
            counter(a, CML_METRIC_L2_READ_MISS_GPC, 830, NAN);
            counter(a, CML_METRIC_L2_READ_MISS_FABRIC, 256, NAN);
        }
    }
    CHECK_NEAR(cml_dram_background_rate(&r.background, 0), 1731.84, 1e-9);
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE);
    CHECK(x->counters[0].verdict == CML_CV_NOT_JUDGED);
    CHECK_NEAR(x->counters[0].floor, 632384, 1e-6);
    for (unsigned k = 1; k < x->ncounters; k++)
        CHECK(x->counters[k].verdict == CML_CV_INFO);
    /* Without the GPCs' count the kernel's own misses would count as
     * outside: the control's rate alone. */
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    CHECK_NEAR(x->counters[0].floor, 333149.44, 1e-6);
    /* The forwarded misses are the kernel's: 3200 bytes outside, under the
     * control's 71005.44, which stays the floor. */
    x = judge(&row, &r, 2, &v);
    CHECK_NEAR(x->counters[0].floor, 333149.44, 1e-6);
    CHECK(x->counters[0].verdict == CML_CV_WITHIN);
    x = judge(&row, &r, 3, &v);
    CHECK_NEAR(x->counters[0].floor, 333149.44, 1e-6);
    x = judge(&row, &r, 4, &v); /* a value that is not a number counts for nothing */
    CHECK_NEAR(x->counters[0].floor, 333149.44, 1e-6);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);

    CHECK_NEAR(cml_counter_outside_gpc_bytes(12400, 830, 0), 370240, 0);
    CHECK_NEAR(cml_counter_outside_gpc_bytes(1000, 800, 300), 0, 0);
    CHECK_NEAR(cml_counter_outside_gpc_bytes(1000, -1, 0), 0, 0);
    CHECK_NEAR(cml_counter_outside_gpc_bytes(INFINITY, 0, 0), 0, 0);
    CHECK_NEAR(cml_counter_outside_gpc_bytes(1000, 0, NAN), 0, 0);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/*
 * The DRAM write floor takes the larger of the background's rate and the
 * writes of units outside the GPCs in the record's own range. Hand-derived
 * from an H200 run (bench/results/h200/2026-11-29-slice-chunks/, validate
 * run 3): async-copy's reduce, a 0.26 ms launch whose 132 blocks write
 * 4224 bytes of sums (the model's 4224, a point), measured 289024 bytes
 * written (a 256 KiB unit of the background and 26880). Background controls
 * of 10, 50, 200 ms wrote 262144, 786432, 3932160: a rate of
 * (3932160 - 262144) / 200 = 18350.08 B/ms, 4771.0208 over 0.26 ms; one
 * stream control of 0.4 ms wrote 18688: 18688 - 0.4 x 18350.08 = 11347.968
 * dirty. The floor without the range's own writes: 262144 + 4771.0208 +
 * 11347.968 = 278262.9888, and 4224 + that is under 289024: unexplained.
 * Its range's L2 write sectors: 1200 of every unit, 132 of the GPCs, 66
 * forwarded: 32 x 1002 = 32064 bytes outside the GPCs, over the rate's
 * 4771.0208: a floor of 262144 + 32064 + 11347.968 = 305555.968, over
 * the value and the model's 4224, not judged.
 * 300 sectors of every unit (3264 bytes outside) leave the rate's floor;
 * without the GPCs' count (a file from before them) so does the rest.
 */
static void test_outside_gpc_writes(void)
{
    cml_results r;
    cml_results_init(&r);
    r.background = (cml_dram_background){.n = 3,
                                         .ms = {10, 50, 200},
                                         .read_bytes = {0, 0, 0},
                                         .write_bytes = {262144, 786432, 3932160},
                                         .stream_n = 1,
                                         .stream_ms = {0.4},
                                         .stream_read_bytes = {0},
                                         .stream_write_bytes = {18688}};
    static const double all_units[3] = {1200, 300, 1200};
    for (int i = 0; i < 3; i++) {
        char variant[16];
        snprintf(variant, sizeof variant, "w=%d", i);
        cml_record *a = add(&r, variant);
        a->timing.max_ms = 0.26;
        counter(a, "dram__bytes_write.sum", 289024, 4224);
        counter(a, CML_METRIC_L2_WRITE_DEVICE, all_units[i], NAN);
        if (i != 2)
            counter(a, CML_METRIC_L2_WRITE_GPC, 132, NAN);
        counter(a, CML_METRIC_L2_WRITE_FABRIC, 66, NAN);
    }
    CHECK_NEAR(cml_dram_background_rate(&r.background, 1), 18350.08, 1e-9);
    CHECK_NEAR(cml_dram_background_dirty(&r.background), 11347.968, 1e-9);
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(&row, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE);
    CHECK(x->counters[0].verdict == CML_CV_NOT_JUDGED);
    CHECK_NEAR(x->counters[0].floor, 305555.968, 1e-6);
    x = judge(&row, &r, 1, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    CHECK_NEAR(x->counters[0].floor, 278262.9888, 1e-6);
    x = judge(&row, &r, 2, &v);
    CHECK(x->verdict == CML_VERDICT_UNEXPLAINED);
    CHECK_NEAR(x->counters[0].floor, 278262.9888, 1e-6);
    CHECK_NEAR(cml_counter_outside_gpc_bytes(1200, 132, 66), 32064, 0);
    CHECK_NEAR(cml_counter_outside_gpc_bytes(100, 132, 66), 0, 0);
    CHECK_NEAR(cml_counter_outside_gpc_bytes(NAN, 132, 66), 0, 0);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

/* The kinds' names as the JSON writes them and the summary prints them. */
/*
 * Blocks sharing an SM (docs/model-evidence.md §4.3): a shared counter is
 * judged inside [pattern, pattern + what the other blocks can cost it].
 * The model's kernel: 1000 shared store wavefronts, 1000 shared load
 * wavefronts (no conflict), 500 global load sectors, 400 global store
 * sectors. Two blocks an SM: a shared load's wavefronts can be counted
 * again once per other data-array operation: 1000 store wavefronts + 2 x
 * 500 load sectors (fill and read) + 400 store sectors = 2400, so loads
 * [1000, 3400] and their conflicts [0, 2400]; the stores' own bound is
 * 1000 + 1000 + 400 = 2400 too. One block an SM: a point, as before.
 */
static void shared_kernel(cml_record *rec, unsigned resident)
{
    cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
    m->cls[CML_CLASS_SHARED_ST].wavefronts = 1000;
    m->cls[CML_CLASS_SHARED_LD].wavefronts = 1000;
    m->cls[CML_CLASS_GLOBAL_LD].sectors = 500;
    m->cls[CML_CLASS_GLOBAL_ST].sectors = 400;
    rec->has_levels = 1;
    rec->levels.resident_blocks = resident;
}

static void test_shared_contention(void)
{
    cml_results r;
    cml_results_init(&r);
    cml_record *a = add(&r, "k=1");
    shared_kernel(a, 2);
    counter(a, SLD_WAVES, 1300, 1000);
    counter(a, SLD_CONFLICTS, 300, 0);
    counter(a, SST_WAVES, 1000, 1000);
    cml_record *b = add(&r, "k=2"); /* at the bounds, and one past */
    shared_kernel(b, 2);
    counter(b, SLD_WAVES, 3400, 1000);
    counter(b, SLD_CONFLICTS, 2401, 0);
    counter(b, SST_WAVES, 999, 1000); /* never fewer than the pattern */
    cml_record *c = add(&r, "k=3"); /* one block an SM: the pattern exactly */
    shared_kernel(c, 1);
    counter(c, SLD_WAVES, 1001, 1000);
    cml_verdicts v;
    cml_verdicts_init(&v);
    const cml_verdict_rec *x = judge(NULL, &r, 0, &v);
    CHECK(x->verdict == CML_VERDICT_AGREE);
    CHECK(x->counters[0].rule == CML_RULE_INTERVAL && x->counters[0].verdict == CML_CV_WITHIN);
    CHECK(x->counters[0].lo == 1000 && x->counters[0].hi == 3400);
    CHECK(x->counters[1].lo == 0 && x->counters[1].hi == 2400);
    CHECK(x->counters[1].verdict == CML_CV_WITHIN);
    CHECK(x->counters[2].verdict == CML_CV_EXACT && x->counters[2].hi == 3400);
    CHECK_STR_EQ(cml_rule_name(CML_RULE_INTERVAL), "interval");
    x = judge(NULL, &r, 1, &v);
    CHECK(x->counters[0].verdict == CML_CV_WITHIN);
    CHECK(x->counters[1].verdict == CML_CV_UNEXPLAINED);
    CHECK(x->counters[2].verdict == CML_CV_UNEXPLAINED);
    x = judge(NULL, &r, 2, &v);
    CHECK(x->counters[0].rule == CML_RULE_EXACT && x->counters[0].verdict == CML_CV_UNEXPLAINED);
    CHECK(x->counters[0].lo == 1000 && x->counters[0].hi == 1000);
    CHECK_EQ_U64(cml_shared_contention_bound(&a->model[CML_RULES_MODERN], CML_CLASS_SHARED_ST, 2),
                 2400);
    CHECK_EQ_U64(cml_shared_contention_bound(&a->model[CML_RULES_MODERN], CML_CLASS_GLOBAL_LD, 2),
                 0);
    cml_verdicts_free(&v);
    cml_results_free(&r);
}

static void test_names(void)
{
    static const char *const json[] = {"exact", "within-interval", "explained", "not-judged",
                                       "unexplained", "info"};
    static const char *const label[] = {"exact", "within interval", "explained by a control",
                                        "not judged (~)", "unexplained"};
    for (int k = 0; k <= CML_CV_INFO; k++)
        CHECK_STR_EQ(cml_counter_verdict_name((cml_counter_verdict)k), json[k]);
    for (int k = 0; k < CML_CV_KINDS; k++)
        CHECK_STR_EQ(cml_counter_kind_label((cml_counter_verdict)k), label[k]);
    /* an empty list: nothing unexplained, exit 0 */
    cml_verdicts v;
    cml_verdicts_init(&v);
    cml_verdict_tally t = cml_verdicts_tally(&v);
    CHECK(!cml_verdicts_failing(&t) && cml_verdicts_unexplained(&t) == 0);
}

int main(void)
{
    test_agree_and_differ();
    test_missing_counter();
    test_failed_and_skipped();
    test_control();
    test_control_footprint();
    test_relative();
    test_interval();
    test_dram_background();
    test_dirty_at_start();
    test_outside_gpc_reads();
    test_outside_gpc_writes();
    test_shared_contention();
    test_names();
    return cml_test_summary("test_validate");
}
