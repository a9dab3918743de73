/*
 * `cumemlab validate --json FILE`: the verdicts of src/lab/validate.h as
 * one JSON document (schema "cumemlab-validation", docs/json-schema.md),
 * so that a script reads what validate decided, and why, without parsing
 * its text; and `validate --rules --json FILE`, the explanations
 * themselves (schema "cumemlab-validate-rules"). It lives in the CLI
 * beside list_json.c: the verdicts point into the registry rows (their
 * explanations), which the report layer does not read.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "lab/validate.h"
#include "report/json_writer.h"
#include "report/output_file.h"

/* 2: a counter's verdict is its kind (exact, within-interval, explained,
 * not-judged, unexplained, info), with the model's lo and hi; an
 * explanation names mechanism, direction and bound instead of max_frac;
 * the summary counts values by kind. */
#define VALIDATION_SCHEMA_VERSION 2
#define RULES_SCHEMA_VERSION 1

typedef struct doc {
    const cml_verdicts *v;
    const char *from, *device, *command_line;
} doc;

static void kv_string_or_null(cml_json *j, const char *key, const char *s)
{
    if (s)
        cml_json_kv_string(j, key, s);
    else
        cml_json_kv_null(j, key);
}

void cml_cli_explained_fields(cml_json *j, const cml_explained_diff *e)
{
    kv_string_or_null(j, "variant_has", e->variant_has);
    kv_string_or_null(j, "metric_has", e->metric_has);
    kv_string_or_null(j, "mechanism", e->mechanism);
    cml_json_kv_string(j, "direction", cml_explain_direction_name(e->direction));
    cml_json_kv_double(j, "bound", e->bound_frac);
    kv_string_or_null(j, "control", e->control);
    kv_string_or_null(j, "section", e->section);
}

/* An explanation: the registry entry as list --json writes it, and whether
 * it is the experiment's own or one that holds for every experiment. */
static void write_explanation(cml_json *j, const cml_explained_diff *e, int everywhere)
{
    cml_json_key(j, "explanation");
    if (!e) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    cml_json_kv_string(j, "scope", everywhere ? "everywhere" : "experiment");
    cml_cli_explained_fields(j, e);
    cml_json_end_object(j);
}

/* A number the rule did not use is null, never 0. */
static void kv_number_if(cml_json *j, const char *key, int known, double v)
{
    if (known)
        cml_json_kv_double(j, key, v);
    else
        cml_json_kv_null(j, key);
}

static void write_counter(cml_json *j, const cml_counter_judgement *c)
{
    const int rel = c->rule == CML_RULE_RELATIVE;
    const int differs = c->verdict == CML_CV_EXPLAINED || c->verdict == CML_CV_UNEXPLAINED;
    cml_json_begin_object(j);
    cml_json_kv_string(j, "name", c->name);
    cml_json_kv_string(j, "verdict", cml_counter_verdict_name(c->verdict));
    cml_json_kv_string(j, "rule", cml_rule_name(c->rule));
    cml_json_kv_double(j, "measured", c->measured);
    kv_number_if(j, "predicted", c->has_prediction, c->predicted);
    kv_number_if(j, "difference", c->has_prediction, c->difference);
    kv_number_if(j, "lo", c->rule != CML_RULE_NONE, c->lo);
    kv_number_if(j, "hi", c->rule != CML_RULE_NONE, c->hi);
    kv_number_if(j, "tolerance", rel, c->tolerance);
    /* The floor a value was not judged under, too (its DRAM floor is the
     * record's own: the launch, the reads outside the GPCs). */
    kv_number_if(j, "floor", rel || c->rule == CML_RULE_NOT_JUDGED, c->floor);
    kv_number_if(j, "reference", rel, c->reference);
    kv_number_if(j, "explain_reference", differs, c->explain_reference);
    write_explanation(j, c->why, c->why_everywhere);
    cml_json_end_object(j);
}

static void write_verdict(cml_json *j, const cml_verdict_rec *x)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "subject", cml_verdict_subject_name(x->subject));
    cml_json_kv_string(j, "experiment", x->experiment);
    cml_json_kv_string(j, "variant", x->variant);
    cml_json_kv_string(j, "verdict", cml_verdict_name(x->verdict));
    cml_json_kv_string(j, "reason", x->reason);
    if (x->record != SIZE_MAX)
        cml_json_kv_u64(j, "record", (uint64_t)x->record);
    else
        cml_json_kv_null(j, "record");
    kv_number_if(j, "per", x->subject == CML_SUBJECT_PROBE, x->per);
    write_explanation(j, x->why, x->why_everywhere);
    cml_json_key(j, "counters");
    cml_json_begin_array(j);
    for (unsigned k = 0; k < x->ncounters; k++)
        write_counter(j, &x->counters[k]);
    cml_json_end_array(j);
    cml_json_end_object(j);
}

static cml_status write_doc(FILE *out, const void *ctx)
{
    const doc *d = ctx;
    const cml_verdict_tally t = cml_verdicts_tally(d->v);
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-validation");
    cml_json_kv_i64(&j, "schema_version", VALIDATION_SCHEMA_VERSION);
    cml_json_kv_string(&j, "tool_version", CUMEMLAB_VERSION);
    cml_json_kv_string(&j, "command_line", d->command_line ? d->command_line : "");
    kv_string_or_null(&j, "from", d->from);
    kv_string_or_null(&j, "device", d->device);
    cml_json_key(&j, "summary");
    cml_json_begin_object(&j);
    cml_json_kv_u64(&j, "agree", t.agree);
    cml_json_kv_u64(&j, "differ", t.differ);
    cml_json_kv_u64(&j, "explained", t.explained);
    cml_json_kv_u64(&j, "unexplained", t.unexplained);
    cml_json_kv_u64(&j, "failed", t.failed);
    cml_json_kv_u64(&j, "skipped", t.skipped);
    /* the judged values by kind, and the one count the exit follows */
    cml_json_key(&j, "values");
    cml_json_begin_object(&j);
    for (int k = 0; k < CML_CV_KINDS; k++)
        cml_json_kv_u64(&j, cml_counter_verdict_name((cml_counter_verdict)k), t.values[k]);
    cml_json_kv_u64(&j, "info", t.info);
    cml_json_end_object(&j);
    cml_json_kv_u64(&j, "unexplained_total", cml_verdicts_unexplained(&t));
    cml_json_kv_i64(&j, "exit", cml_verdicts_failing(&t) ? 1 : 0);
    cml_json_end_object(&j);
    cml_json_key(&j, "verdicts");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < d->v->count; i++)
        write_verdict(&j, &d->v->items[i]);
    cml_json_end_array(&j);
    cml_json_end_object(&j);
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}

cml_status cml_validate_write_json(const char *path, const struct cml_verdicts *v,
                                   const char *from, const char *device,
                                   const char *command_line, char *err, size_t errlen)
{
    const doc d = {v, from, device, command_line};
    return cml_output_write(path, write_doc, &d, err, errlen);
}

/* One explanation of the rules document: whose it is, then its fields. */
static void write_rule(cml_json *j, const char *experiment, const cml_explained_diff *e)
{
    cml_json_begin_object(j);
    kv_string_or_null(j, "experiment", experiment);
    cml_json_kv_string(j, "scope", experiment ? "experiment" : "everywhere");
    cml_cli_explained_fields(j, e);
    cml_json_end_object(j);
}

static cml_status write_rules(FILE *out, const void *ctx)
{
    (void)ctx;
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-validate-rules");
    cml_json_kv_i64(&j, "schema_version", RULES_SCHEMA_VERSION);
    cml_json_kv_string(&j, "tool_version", CUMEMLAB_VERSION);
    cml_json_kv_double(&j, "max_bound", CML_EXPLAIN_MAX_BOUND);
    /* "not judged" only under these (src/counters/counter_map.h) */
    cml_json_key(&j, "noise_floor_bytes");
    cml_json_begin_object(&j);
    for (size_t i = 0; i < cml_counter_map_count(); i++) {
        const cml_counter_def *d = cml_counter_map_at(i);
        if (d->kind != CML_CTR_RELATIVE)
            continue;
        const int dram = d->field == CML_CTR_DRAM_READ || d->field == CML_CTR_DRAM_WRITE;
        cml_json_kv_double(&j, d->metric, cml_counter_floor(d) * (dram ? 1.0 : 32.0));
    }
    cml_json_end_object(&j);
    /* The DRAM floors grow with a record's launch by what validate's
     * background control measured (core/dram_background.h). */
    cml_json_kv_string(&j, "dram_floor_growth",
                       "plus the DRAM background control's rate (bytes beyond the floor per "
                       "ms, measured by validate before the experiments: dram_background of "
                       "its records file) times the record's longest timed launch, or if "
                       "more, 32 bytes per L2 read miss (DRAM reads) or L2 write sector (DRAM "
                       "writes) of the units outside the GPCs in the record's own range (to "
                       "device memory, of every unit, less the GPCs' and the forwarded ones; "
                       "read in the replay that reads the DRAM bytes); for DRAM writes, "
                       "plus the lines dirty in L2 at a launch's start: the most the stream "
                       "controls (the L2 flush read again in a range right after the flush) "
                       "wrote beyond the background's rate times their length, less a whole "
                       "262144-byte unit where they caught one");
    cml_json_key(&j, "explanations");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *x = cml_experiment_at(i);
        for (size_t k = 0; x->validate && k < x->validate->nexplained; k++)
            write_rule(&j, x->key, &x->validate->explained[k]);
    }
    size_t n;
    const cml_explained_diff *every = cml_validate_everywhere(&n);
    for (size_t k = 0; k < n; k++)
        write_rule(&j, NULL, &every[k]);
    cml_json_end_array(&j);
    cml_json_end_object(&j);
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}

cml_status cml_validate_write_rules_json(const char *path, char *err, size_t errlen)
{
    return cml_output_write(path, write_rules, NULL, err, errlen);
}
