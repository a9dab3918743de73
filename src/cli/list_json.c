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
#include "report/chart_spec_json.h"
#include "report/json_writer.h"
#include "report/output_file.h"

/* 2: an explained difference names mechanism, direction and bound instead
 * of max_frac (src/lab/experiment.h). */
#define REGISTRY_SCHEMA_VERSION 2

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

/* Explained differences (cml_explained_diff) as an array under `key`. */
static void write_explained(cml_json *j, const char *key, const cml_explained_diff *list,
                            size_t n)
{
    cml_json_key(j, key);
    cml_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        cml_json_begin_object(j);
        cml_cli_explained_fields(j, &list[i]);
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
        cml_chart_spec_json(j, &e->charts[i]);
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
