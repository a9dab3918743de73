/*
 * `cumemlab validate --json FILE`: the verdicts of src/lab/validate.h as
 * one JSON document (schema "cumemlab-validation", docs/json-schema.md),
 * so that a script reads what validate decided, and why, without parsing
 * its text. It lives in the CLI beside list_json.c: the verdicts point
 * into the registry rows (their explanations), which the report layer
 * does not read.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "lab/validate.h"
#include "report/json_writer.h"
#include "report/output_file.h"

#define VALIDATION_SCHEMA_VERSION 1

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
    cml_json_kv_string(j, "section", e->section);
    cml_json_kv_string(j, "scope", everywhere ? "everywhere" : "experiment");
    kv_string_or_null(j, "variant_has", e->variant_has);
    cml_json_kv_string(j, "metric_has", e->metric_has);
    cml_json_kv_double(j, "max_frac", e->max_frac);
    kv_string_or_null(j, "control", e->control);
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
    kv_number_if(j, "tolerance", rel, c->tolerance);
    kv_number_if(j, "floor", rel, c->floor);
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
