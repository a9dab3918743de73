/*
 * `cumemlab list --json FILE`: every registry row as one JSON document
 * (schema "cumemlab-registry", docs/json-schema.md), so that scripts read
 * the experiments' options, charts and validate settings from the program
 * instead of parsing its C source. It lives in the CLI because the CLI is
 * the layer that reads the registry for `list`; the report layer never
 * does (its writer and output-file code are only used here).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "lab/validate.h"
#include "report/json_writer.h"
#include "report/output_file.h"

#define REGISTRY_SCHEMA_VERSION 1

/* Names for the chart spec's enums (src/core/chart_spec.h), written as
 * strings so that a reader need not know the C values. */
static const char *shape_name(cml_chart_shape s)
{
    switch (s) {
    case CML_PLOT_SWEEP: return "sweep";
    case CML_PLOT_BARS: return "bars";
    case CML_PLOT_EXTRAS: return "extras";
    }
    return NULL;
}

static const char *scale_name(cml_scale s)
{
    switch (s) {
    case CML_SCALE_LINEAR: return "linear";
    case CML_SCALE_LOG2: return "log2";
    case CML_SCALE_LOG10: return "log10";
    }
    return NULL;
}

static const char *format_name(cml_tick_format f)
{
    switch (f) {
    case CML_FMT_NUMBER: return "number";
    case CML_FMT_BYTES: return "bytes";
    case CML_FMT_PERCENT: return "percent";
    case CML_FMT_WHOLE: return "whole";
    }
    return NULL;
}

static const char *metric_name(cml_metric_id id)
{
    switch (id) {
    case CML_METRIC_NONE: return "none";
    case CML_METRIC_BANDWIDTH: return "bandwidth";
    case CML_METRIC_TIME_US: return "time_us";
    case CML_METRIC_EFF_MODERN: return "efficiency_modern";
    case CML_METRIC_EFF_FERMI: return "efficiency_fermi";
    case CML_METRIC_SPR_MODERN: return "sectors_per_request_modern";
    case CML_METRIC_CLASS_SPR: return "class_sectors_per_request";
    case CML_METRIC_SHARED_CONFLICTS: return "shared_conflicts";
    case CML_METRIC_SHARED_WAVEFRONTS: return "shared_wavefronts";
    case CML_METRIC_CONST_SERIALIZED: return "constant_serialized";
    case CML_METRIC_EXTRA: return "extra";
    case CML_METRIC_OCCUPANCY: return "occupancy";
    }
    return NULL;
}

/* A NULL-terminated list of strings as an array; NULL as null. */
static void string_list(cml_json *j, const char *key, const char *const *list)
{
    cml_json_key(j, key);
    if (!list) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_array(j);
    for (size_t i = 0; list[i]; i++)
        cml_json_string(j, list[i]);
    cml_json_end_array(j);
}

static void write_option(cml_json *j, const cml_param_def *d)
{
    char allowed[256];
    cml_param_describe_range(d, allowed, sizeof allowed);
    cml_json_begin_object(j);
    cml_json_kv_string(j, "name", d->name);
    cml_json_kv_string(j, "help", d->help);
    /* An option of named choices takes their indices (src/core/param.c),
     * whatever the row's min and max say: its values are `choices`. */
    if (d->choices) {
        cml_json_kv_null(j, "min");
        cml_json_kv_null(j, "max");
    } else {
        cml_json_kv_i64(j, "min", d->min);
        cml_json_kv_i64(j, "max", d->max);
    }
    cml_json_kv_string(j, "allowed", allowed);
    cml_json_kv_string(j, "default", d->def);
    string_list(j, "choices", d->choices);
    cml_json_kv_bool(j, "pow2", (d->flags & CML_PARAM_POW2) != 0);
    cml_json_kv_bool(j, "in_variant", (d->flags & CML_PARAM_NOVARIANT) == 0);
    cml_json_kv_string(j, "applies", d->applies);
    cml_json_end_object(j);
}

static void write_alias(cml_json *j, const cml_textbook_alias *a)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "name", a->name);
    cml_json_kv_string(j, "fixed", a->fixed);
    cml_json_key(j, "positional");
    cml_json_begin_array(j);
    for (size_t i = 0; i < CML_COUNT(a->positional) && a->positional[i]; i++)
        cml_json_string(j, a->positional[i]);
    cml_json_end_array(j);
    cml_json_kv_string(j, "usage", a->usage);
    cml_json_end_object(j);
}

static void write_chart(cml_json *j, const cml_chart_spec *c)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "shape", shape_name(c->shape));
    cml_json_kv_string(j, "title", c->title);
    cml_json_kv_string(j, "xparam", c->xparam);
    cml_json_kv_string(j, "xname", c->xname);
    cml_json_kv_string(j, "xlabel", c->xlabel);
    cml_json_kv_string(j, "xscale", scale_name(c->xscale));
    cml_json_kv_string(j, "xformat", format_name(c->xfmt));
    cml_json_kv_string(j, "ylabel", c->ylabel);
    cml_json_kv_string(j, "yformat", format_name(c->yfmt));
    cml_json_kv_string(j, "only_param", c->only_param);
    cml_json_kv_string(j, "only_label", c->only_label);
    cml_json_kv_string(j, "without_param", c->without_param);
    cml_json_kv_string(j, "series_param", c->series_param);
    /* m[1] is used only by sweeps that draw two metrics; an unused one
     * (CML_METRIC_NONE) is left out rather than written as "none". */
    cml_json_key(j, "metrics");
    cml_json_begin_array(j);
    for (size_t i = 0; i < CML_COUNT(c->m); i++) {
        const cml_metric_ref *m = &c->m[i];
        if (m->id == CML_METRIC_NONE)
            continue;
        cml_json_begin_object(j);
        cml_json_kv_string(j, "name", m->name);
        cml_json_kv_string(j, "metric", metric_name(m->id));
        cml_json_kv_string(j, "arg", m->arg);
        cml_json_kv_string(j, "lead", m->lead);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
    cml_json_kv_string(j, "what", c->what);
    cml_json_kv_string(j, "unit", c->unit);
    cml_json_kv_bool(j, "describe", c->describe);
    string_list(j, "extra_names", c->extra_names);
    string_list(j, "extra_legend", c->extra_legend);
    cml_json_kv_string(j, "ignore_param", c->ignore_param);
    string_list(j, "xmark_extras", c->xmark_extras);
    string_list(j, "xmark_labels", c->xmark_labels);
    cml_json_end_object(j);
}

/* Explained differences (cml_explained_diff) as an array under `key`. */
static void write_explained(cml_json *j, const char *key, const cml_explained_diff *list,
                            size_t n)
{
    cml_json_key(j, key);
    cml_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        const cml_explained_diff *e = &list[i];
        cml_json_begin_object(j);
        cml_json_kv_string(j, "variant_has", e->variant_has);
        cml_json_kv_string(j, "metric_has", e->metric_has);
        cml_json_kv_double(j, "max_frac", e->max_frac);
        cml_json_kv_string(j, "section", e->section);
        cml_json_kv_string(j, "control", e->control);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
}

static void write_validate(cml_json *j, const cml_validate_spec *v)
{
    cml_json_key(j, "validate");
    if (!v) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    string_list(j, "settings", v->settings);
    write_explained(j, "explained", v->explained, v->nexplained);
    cml_json_end_object(j);
}

static void write_experiment(cml_json *j, const cml_experiment *e)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "key", e->key);
    cml_json_kv_i64(j, "number", e->number);
    cml_json_kv_string(j, "title", e->title);
    cml_json_kv_string(j, "summary", e->summary);
    cml_json_kv_string(j, "doc", e->doc);
    cml_json_kv_bool(j, "model_only", e->measure == NULL);
    cml_json_key(j, "options");
    cml_json_begin_array(j);
    for (size_t i = 0; i < e->noptions; i++)
        write_option(j, &e->options[i]);
    cml_json_end_array(j);
    cml_json_kv_string(j, "tour", e->tour);
    cml_json_key(j, "aliases");
    cml_json_begin_array(j);
    for (size_t i = 0; i < e->naliases; i++)
        write_alias(j, &e->aliases[i]);
    cml_json_end_array(j);
    cml_json_key(j, "charts");
    cml_json_begin_array(j);
    for (size_t i = 0; i < e->ncharts; i++)
        write_chart(j, &e->charts[i]);
    cml_json_end_array(j);
    write_validate(j, e->validate);
    cml_json_end_object(j);
}

/* The document (a cml_output_fn: ctx is unused, the registry is static). */
static cml_status write_registry(FILE *out, const void *ctx)
{
    (void)ctx;
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-registry");
    cml_json_kv_i64(&j, "schema_version", REGISTRY_SCHEMA_VERSION);
    cml_json_kv_string(&j, "tool_version", CUMEMLAB_VERSION);
    cml_json_key(&j, "experiments");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < cml_experiment_count(); i++)
        write_experiment(&j, cml_experiment_at(i));
    cml_json_end_array(&j);
    /* The differences validate explains in every experiment alike (the
     * engine's, src/lab/validate.c), in no row. */
    size_t n;
    const cml_explained_diff *every = cml_validate_everywhere(&n);
    write_explained(&j, "explained_everywhere", every, n);
    cml_json_end_object(&j);
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}

int cml_cmd_list_json(const cml_cli *cli)
{
    char err[640];
    if (cml_output_write(cli->json_path, write_registry, NULL, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: --json: %s\n", err);
        return CML_EXIT_FAIL;
    }
    return CML_EXIT_OK;
}
