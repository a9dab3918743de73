/*
 * What the HTML report draws for an experiment, declared in its registry
 * row (src/experiments/registry.c) and read by the chart planner
 * (src/report/chart_plan.c). Pure data: no drawing code here.
 */
#ifndef CML_CHART_SPEC_H
#define CML_CHART_SPEC_H

typedef enum cml_scale {
    CML_SCALE_LINEAR = 0,
    CML_SCALE_LOG2,       /* ticks at powers of two (sizes, strides, block sizes) */
    CML_SCALE_LOG10       /* ticks at powers of ten */
} cml_scale;

typedef enum cml_tick_format {
    CML_FMT_NUMBER = 0,   /* 0.5, 12, 1500, 25k, 3M */
    CML_FMT_BYTES,        /* 512 B, 4 KiB, 1 MiB, 1 GiB */
    CML_FMT_PERCENT,      /* values already in percent: 12.5% */
    CML_FMT_WHOLE         /* a categorical axis numbered 1, 2, 3 (levels): ticks and
                             gridlines at whole numbers only, never at 1.5 */
} cml_tick_format;

/* A figure taken from each record. */
typedef enum cml_metric_id {
    CML_METRIC_NONE = 0,
    CML_METRIC_BANDWIDTH,        /* measured GB/s */
    CML_METRIC_TIME_US,          /* measured median, microseconds */
    CML_METRIC_EFF_MODERN,       /* predicted efficiency of the worst global class, % */
    CML_METRIC_EFF_FERMI,
    CML_METRIC_SPR_MODERN,       /* predicted sectors per request, worst global class */
    CML_METRIC_CLASS_SPR,        /* sectors per request of class `arg` ("global_ld") */
    CML_METRIC_SHARED_CONFLICTS, /* predicted bank conflicts per shared request */
    CML_METRIC_SHARED_WAVEFRONTS,/* predicted wavefronts per shared request */
    CML_METRIC_CONST_SERIALIZED, /* predicted constant accesses per warp read */
    CML_METRIC_EXTRA,            /* the record's extra figure named `arg` */
    CML_METRIC_OCCUPANCY         /* achieved (else the model's) occupancy, % */
} cml_metric_id;

typedef struct cml_metric_ref {
    const char *name;            /* series prefix when a chart shows two metrics */
    cml_metric_id id;
    const char *arg;
    const char *lead;            /* how a sentence names it: "under the modern rules" */
    int better;                  /* CML_METRIC_EXTRA: 1 higher is better, -1 lower is;
                                    0: no direction (never an experiment's main figure,
                                    src/report/summary.h) */
} cml_metric_ref;

typedef enum cml_chart_shape {
    CML_PLOT_SWEEP = 0,          /* a line per series against a swept parameter */
    CML_PLOT_BARS,               /* grouped bars over the varying parameters */
    CML_PLOT_EXTRAS              /* bars of named extra figures per record */
} cml_chart_shape;

typedef struct cml_chart_spec {
    cml_chart_shape shape;
    const char *title;
    /* sweeps: the x axis */
    const char *xparam, *xname, *xlabel;
    cml_scale xscale;
    cml_tick_format xfmt;
    const char *ylabel;
    cml_tick_format yfmt;
    /* which records: with this choice only; without this parameter */
    const char *only_param, *only_label;
    const char *without_param;
    /* bars: one colour per value of this parameter (NULL: one series) */
    const char *series_param;
    cml_metric_ref m[2];         /* bars use m[0] */
    const char *what, *unit;     /* for the sentences */
    int describe;                /* sentences for the first metric's lines */
    /* extras: the figures drawn, their legend, a parameter left out of the
     * category names */
    const char *const *extra_names;
    const char *const *extra_legend;
    const char *ignore_param;
    /* sweeps: vertical lines across the plot at these extra figures of the
     * records (a capacity, say: the first record that has each), labelled
     * with the names beside them; both NULL-terminated, NULL: none */
    const char *const *xmark_extras;
    const char *const *xmark_labels;
} cml_chart_spec;

/* The chart of an experiment with nothing more specific to draw: measured
 * bandwidth per variant (the report's default too). */
#define CML_CHART_BANDWIDTH_BY_VARIANT                                                     \
    {.shape = CML_PLOT_BARS,                                                               \
     .title = "Measured bandwidth by variant",                                             \
     .ylabel = "bandwidth (GB/s)",                                                         \
     .yfmt = CML_FMT_NUMBER,                                                               \
     .m = {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}},                             \
     .what = "bandwidth",                                                                  \
     .unit = "GB/s",                                                                       \
     .describe = 1}

#endif
