/*
 * Validation as data: the model judged against the hardware counters of a
 * run's records (and of the probes), each judgement a verdict the CLI
 * prints and writes as JSON (schema cumemlab-validation,
 * docs/json-schema.md). Pure judging: nothing here runs a kernel, so the
 * CPU tests judge hand-built records and `validate --from` judges a saved
 * results file with the same code as a measuring run.
 *
 * A record's counters are judged one by one, those the counter map knows
 * (src/counters/counter_map.h), and each judged value ends as exactly one
 * kind: exact (equal to the model), within the model's interval (widened
 * by the counter map's measurement tolerance), explained (outside it, by
 * an entry whose control agrees), not judged (a cache-level counter whose
 * measured value and model both lie under its noise floor) or unexplained.
 * A counter that differs is explained by the first entry of the
 * experiment's row (cml_validate_spec) that covers it, else by the
 * entries that hold for every experiment (cml_validate_everywhere), each
 * a mechanism with one direction, a bound of at most 10% and a control run
 * that must itself agree (src/lab/experiment.h, cml_explained_diff).
 */
#ifndef CML_LAB_VALIDATE_H
#define CML_LAB_VALIDATE_H

#include <stddef.h>

#include "core/record.h"
#include "counters/counter_map.h"
#include "counters/probes.h"
#include "lab/experiment.h"

/* A record's (or probe's) verdict. */
typedef enum cml_verdict {
    CML_VERDICT_AGREE = 0,   /* every judged counter equals the model (within its rule) */
    CML_VERDICT_EXPLAINED,   /* some differ, each explained in docs/model-evidence.md */
    CML_VERDICT_UNEXPLAINED, /* a counter differs and nothing explains it */
    CML_VERDICT_FAILED,      /* no figures to judge: the run failed, or no counters */
    CML_VERDICT_SKIPPED      /* not judged: waived, or nothing to compare */
} cml_verdict;

/* What a verdict is about. */
typedef enum cml_verdict_subject {
    CML_SUBJECT_RECORD = 0,  /* one record of an experiment */
    CML_SUBJECT_PROBE,       /* one probe (experiment = its question, variant = its id) */
    CML_SUBJECT_EXPERIMENT,  /* an experiment as a whole: skipped, or no records */
    CML_SUBJECT_SETTINGS     /* a validate settings line that could not run (variant = it) */
} cml_verdict_subject;

/* One counter's judgement: the five kinds of a judged value, in the order
 * validate prints their counts, then the counters that are no judged value
 * at all (the model has no figure for them). */
typedef enum cml_counter_verdict {
    CML_CV_EXACT = 0,        /* measured == the model's figure (a percentage within
                                0.01 points) */
    CML_CV_WITHIN,           /* inside the model's interval, widened by the
                                counter map's tolerance (cml_counter_tolerance) */
    CML_CV_EXPLAINED,        /* outside it, explained by an entry whose control agrees */
    CML_CV_NOT_JUDGED,       /* shown with the model's figure: measured and model both
                                under the counter's noise floor (cml_counter_judged) */
    CML_CV_UNEXPLAINED,
    CML_CV_INFO              /* no prediction: reported, not a judged value */
} cml_counter_verdict;

/* The number of kinds a judged value ends as (CML_CV_EXACT..CML_CV_UNEXPLAINED). */
#define CML_CV_KINDS 5

/* The rule a counter was judged by. */
typedef enum cml_rule {
    CML_RULE_NONE = 0,       /* no prediction (INFO counters, or none made): agrees */
    CML_RULE_EXACT,          /* measured == predicted */
    CML_RULE_PERCENT,        /* within 0.01 percentage points */
    CML_RULE_RELATIVE,       /* lo - slack <= measured <= hi + slack, slack the larger of
                                tolerance * reference and the floor */
    CML_RULE_NOT_JUDGED,     /* a cache-level counter under its noise floor */
    CML_RULE_INTERVAL        /* lo <= measured <= hi, no tolerance: a shared-memory
                                counter where blocks share an SM (lo the pattern's,
                                hi with what other blocks can cost it:
                                cml_shared_contention_bound) */
} cml_rule;

/* What `validate` appends to a record's variant to name the footprint it
 * ran at (" footprint=l2", "=dram", "=own": src/cli/validate.c), so that the
 * records of two footprints are judged, and their controls found, apart. */
#define CML_FOOTPRINT_TAG " footprint="

typedef struct cml_counter_judgement {
    char name[80];
    cml_counter_verdict verdict;
    cml_rule rule;
    double measured;
    int has_prediction;
    double predicted;
    double difference;       /* measured - predicted (0 without a prediction) */
    /* CML_RULE_RELATIVE: the model's interval [lo, hi] (validate.c,
     * model_bounds), the fraction, the floor and what the fraction is of
     * (the sectors asked for; for DRAM, the larger of the two figures) */
    double lo, hi;
    double tolerance, floor, reference;
    /* A differing counter: the value the explanations' bound_frac is of
     * (the predicted wavefronts of the same operation for a shared-memory
     * counter, the sectors asked for for L1/L2, else the prediction) */
    double explain_reference;
    const cml_explained_diff *why; /* the entry that explains it, or NULL */
    int why_everywhere;      /* 1: why is one of cml_validate_everywhere's */
} cml_counter_judgement;

typedef struct cml_verdict_rec {
    cml_verdict_subject subject;
    cml_verdict verdict;
    char experiment[32];     /* registry key; a probe's question ("E5") */
    char variant[256];       /* the record's variant; a probe's id; a settings line */
    char reason[512];        /* failed / skipped: why; "" otherwise */
    size_t record;           /* index of the record in the results judged; SIZE_MAX: none */
    /* the explanation shown for an explained record: its last explained
     * counter's entry (NULL unless verdict is CML_VERDICT_EXPLAINED) */
    const cml_explained_diff *why;
    int why_everywhere;
    double per;              /* probes: the counts are per this many instructions (1: records) */
    cml_counter_judgement *counters; /* the counters the map knows, in the record's order */
    unsigned ncounters;
} cml_verdict_rec;

typedef struct cml_verdicts {
    cml_verdict_rec *items;
    size_t count, cap;
} cml_verdicts;

/* Counts over a verdict list: records (and probes, settings lines,
 * experiments) by verdict, and judged values by kind (values[k] for
 * k < CML_CV_KINDS; info: counters with no prediction). */
typedef struct cml_verdict_tally {
    size_t agree, differ, explained, unexplained, failed, skipped;
    size_t values[CML_CV_KINDS];
    size_t info;
} cml_verdict_tally;

void cml_verdicts_init(cml_verdicts *v);
void cml_verdicts_free(cml_verdicts *v);
cml_verdict_tally cml_verdicts_tally(const cml_verdicts *v);
/* What validate calls unexplained, the one count its exit status follows:
 * the unexplained values, and every record, probe or settings line that
 * failed (nothing shows the model holds there). */
size_t cml_verdicts_unexplained(const cml_verdict_tally *t);
/* 1 iff cml_verdicts_unexplained(t) > 0: validate's exit status. */
int cml_verdicts_failing(const cml_verdict_tally *t);

/*
 * Judge record `index` of r. Its control records (an explanation with a
 * control) are looked for among r's records first..last-1 of the same
 * experiment. exp: the record's registry row (NULL: a name the registry
 * does not know; only the differences explained everywhere apply). Appends
 * one verdict to out; CML_ENOMEM when it cannot.
 */
cml_status cml_validate_record(const cml_experiment *exp, const cml_results *r, size_t index,
                               size_t first, size_t last, cml_verdicts *out);

/* Judge a probe's counters against its model (per instruction in `per`);
 * only the probe's own entries would explain a probe, and it has none. */
cml_status cml_validate_probe(const cml_probe_result *p, cml_verdicts *out);

/* A verdict with no counters: an experiment skipped, a settings line that
 * failed, a probe that could not run. */
cml_status cml_verdicts_add_note(cml_verdicts *out, cml_verdict_subject subject,
                                 cml_verdict verdict, const char *experiment,
                                 const char *variant, const char *reason);

/* The differences docs/model-evidence.md explains for every experiment. */
const cml_explained_diff *cml_validate_everywhere(size_t *n);

/* Whether e breaks the rules of an explanation (src/lab/experiment.h): no
 * metric, mechanism or section, no single direction, a bound that is not
 * in (0, CML_EXPLAIN_MAX_BOUND], no control, or a control that is not
 * "option=value" (or names none of exp's options, exp not NULL). 1 and
 * one line in why naming the defect; 0 when it is sound. */
int cml_explained_defect(const cml_experiment *exp, const cml_explained_diff *e, char *why,
                         size_t len);

/* "excess", "deficit" ("none" for a direction that is neither). */
const char *cml_explain_direction_name(cml_explain_direction d);

/* Names as the JSON writes them: "agree", "differ-explained",
 * "differ-unexplained", "failed", "skipped"; "record", "probe",
 * "experiment", "settings"; "exact", "within-interval", "explained",
 * "not-judged", "unexplained", "info"; "none", "exact", "percent",
 * "relative", "not-judged". cml_counter_kind_label: the kind as
 * validate's summary prints it ("explained by a control"). */
const char *cml_verdict_name(cml_verdict v);
const char *cml_verdict_subject_name(cml_verdict_subject s);
const char *cml_counter_verdict_name(cml_counter_verdict v);
const char *cml_counter_kind_label(cml_counter_verdict v);
const char *cml_rule_name(cml_rule r);

#endif
