/*
 * Chart specs as JSON (chart_spec_json.h). The name tables are indexed by
 * the enums' values, so that writing is a lookup and reading
 * (json_read_experiments.c) the same table searched.
 */
#include "report/chart_spec_json.h"

#include <stddef.h>

const char *const cml_chart_shape_names[] = {
    [CML_PLOT_SWEEP] = "sweep", [CML_PLOT_BARS] = "bars", [CML_PLOT_EXTRAS] = "extras", NULL};

const char *const cml_chart_scale_names[] = {[CML_SCALE_LINEAR] = "linear",
                                             [CML_SCALE_LOG2] = "log2",
                                             [CML_SCALE_LOG10] = "log10", NULL};

const char *const cml_chart_format_names[] = {[CML_FMT_NUMBER] = "number",
                                              [CML_FMT_BYTES] = "bytes",
                                              [CML_FMT_PERCENT] = "percent",
                                              [CML_FMT_WHOLE] = "whole", NULL};

const char *const cml_chart_metric_names[] = {
    [CML_METRIC_NONE] = "none",
    [CML_METRIC_BANDWIDTH] = "bandwidth",
    [CML_METRIC_TIME_US] = "time_us",
    [CML_METRIC_EFF_MODERN] = "efficiency_modern",
    [CML_METRIC_EFF_FERMI] = "efficiency_fermi",
    [CML_METRIC_SPR_MODERN] = "sectors_per_request_modern",
    [CML_METRIC_CLASS_SPR] = "class_sectors_per_request",
    [CML_METRIC_SHARED_CONFLICTS] = "shared_conflicts",
    [CML_METRIC_SHARED_WAVEFRONTS] = "shared_wavefronts",
    [CML_METRIC_CONST_SERIALIZED] = "constant_serialized",
    [CML_METRIC_EXTRA] = "extra",
    [CML_METRIC_OCCUPANCY] = "occupancy",
    NULL};

/* names[v], or NULL for a value past the table (a row that is not one). */
static const char *name_of(const char *const *names, int v)
{
    for (int i = 0; names[i]; i++)
        if (i == v)
            return names[i];
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

void cml_chart_spec_json(cml_json *j, const cml_chart_spec *c)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "shape", name_of(cml_chart_shape_names, (int)c->shape));
    cml_json_kv_string(j, "title", c->title);
    cml_json_kv_string(j, "xparam", c->xparam);
    cml_json_kv_string(j, "xname", c->xname);
    cml_json_kv_string(j, "xlabel", c->xlabel);
    cml_json_kv_string(j, "xscale", name_of(cml_chart_scale_names, (int)c->xscale));
    cml_json_kv_string(j, "xformat", name_of(cml_chart_format_names, (int)c->xfmt));
    cml_json_kv_string(j, "ylabel", c->ylabel);
    cml_json_kv_string(j, "yformat", name_of(cml_chart_format_names, (int)c->yfmt));
    cml_json_kv_string(j, "only_param", c->only_param);
    cml_json_kv_string(j, "only_label", c->only_label);
    cml_json_kv_string(j, "without_param", c->without_param);
    cml_json_kv_string(j, "series_param", c->series_param);
    /* m[1] is used only by sweeps that draw two metrics; an unused one
     * (CML_METRIC_NONE) is left out rather than written as "none". */
    cml_json_key(j, "metrics");
    cml_json_begin_array(j);
    for (size_t i = 0; i < sizeof c->m / sizeof c->m[0]; i++) {
        const cml_metric_ref *m = &c->m[i];
        if (m->id == CML_METRIC_NONE)
            continue;
        cml_json_begin_object(j);
        cml_json_kv_string(j, "name", m->name);
        cml_json_kv_string(j, "metric", name_of(cml_chart_metric_names, (int)m->id));
        cml_json_kv_string(j, "arg", m->arg);
        cml_json_kv_string(j, "lead", m->lead);
        /* The direction of an extra figure, which the summary compares by
         * (summary.h); the other metrics' is their own. */
        cml_json_kv_string(j, "better", m->better > 0 ? "higher" : m->better < 0 ? "lower" : NULL);
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
