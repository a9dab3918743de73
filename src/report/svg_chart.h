/*
 * A small SVG chart writer (stb-style, no library): line, scatter and
 * grouped bar charts with axes, gridlines, ticks at nice numbers, log-scale
 * axes (base 2 for sizes and strides, base 10 for counts), axis labels, a
 * legend, and a tooltip (<title>) on every point and bar. The SVG is meant
 * to be inlined in an HTML page: no script, no external reference, nothing
 * that needs the network; all text is escaped; no coordinate is ever NaN.
 *
 * Build a chart with cml_chart_init, add series and points, write it with
 * cml_chart_svg, release it with cml_chart_free.
 */
#ifndef CML_SVG_CHART_H
#define CML_SVG_CHART_H

#include <stddef.h>
#include <stdio.h>

#include "core/record.h"

#include "core/chart_spec.h"
#include "report/chart_range.h"

#define CML_CHART_MAX_SERIES 12

typedef enum cml_chart_kind {
    CML_CHART_LINE = 0,   /* points joined in x order */
    CML_CHART_SCATTER,    /* points only */
    CML_CHART_BAR         /* x is a category index; one bar per series in each category */
} cml_chart_kind;

/* cml_scale and cml_tick_format: core/chart_spec.h (the registry rows name them). */

typedef struct cml_chart_axis {
    char label[96];
    cml_scale scale;
    cml_tick_format format;
    int from_zero;        /* linear: the range includes 0 */
    int zoom;             /* with from_zero: may leave 0 out to show values that are
                             close to each other (chart_range.h says when) */
} cml_chart_axis;

typedef struct cml_chart_series {
    char name[112];
    double *x, *y;
    size_t n, cap;
    /* Optional, for two runs on one chart: `group` is written as the
     * series' data-group attribute; `look` > 0 draws it with the colour,
     * marker and dash of series look-1 (0: of its own position); `second`
     * draws it as the second of a pair: open markers, a dashed line, a
     * lighter bar. */
    char group[16];
    int look;
    int second;
} cml_chart_series;

#define CML_CHART_MAX_XMARKS 4

/* A vertical line across a line chart at x (a capacity on a size axis). */
typedef struct cml_chart_xmark {
    double x;
    char label[48];
} cml_chart_xmark;

typedef struct cml_chart {
    cml_chart_kind kind;
    char title[160];
    cml_chart_axis x, y;
    cml_chart_series series[CML_CHART_MAX_SERIES];
    size_t nseries;
    char (*categories)[64];  /* bar charts: names along x */
    size_t ncategories, capcategories;
    int diagonal;            /* scatter: draw the line y = x (e.g. predicted = measured) */
    int width, height;       /* of the plot with its axes, before the legend; 0: 640 x 320 */
    cml_chart_xmark xmarks[CML_CHART_MAX_XMARKS]; /* drawn where inside the x axis */
    size_t nxmarks;
} cml_chart;

void cml_chart_init(cml_chart *c, cml_chart_kind kind, const char *title, const char *x_label,
                    const char *y_label);
void cml_chart_free(cml_chart *c);

/* A new series, or NULL when CML_CHART_MAX_SERIES are there already. */
cml_chart_series *cml_chart_add_series(cml_chart *c, const char *name);
/* The series of that name, created when missing (NULL when full). */
cml_chart_series *cml_chart_series_named(cml_chart *c, const char *name);
/* Append a point; CML_ENOMEM on out of memory. Points that are not finite,
 * or not positive on a log axis, are kept but never drawn. */
cml_status cml_chart_add_point(cml_chart_series *s, double x, double y);
/* Line and scatter charts: a labelled vertical line at x; CML_EINVAL when
 * CML_CHART_MAX_XMARKS are there already or x is not finite. */
cml_status cml_chart_add_xmark(cml_chart *c, double x, const char *label);
/* Bar charts: the index of category `name`, added when new; -1 on out of
 * memory. */
long cml_chart_category(cml_chart *c, const char *name);

/* Number of points that would be drawn (finite, positive on log axes). */
size_t cml_chart_drawable_points(const cml_chart *c);

/*
 * Write the chart as one <svg> element (with role="img" and an aria-label
 * naming the chart). A chart with nothing to draw is still a valid SVG:
 * the frame with "no data" in it. CML_EIO if the stream failed.
 */
cml_status cml_chart_svg(FILE *out, const cml_chart *c);

/*
 * Write s as HTML/XML text or attribute content: & < > " ' as entities,
 * control characters other than tab and newline as spaces, bytes that are
 * not UTF-8 as U+FFFD. NULL writes nothing.
 */
void cml_xml_escape(FILE *out, const char *s);

#endif
