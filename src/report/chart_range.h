/*
 * The range of a chart's linear value axis, and where its ticks go: a pure
 * function of the data range, so that a test can check the rule on numbers
 * made by hand.
 *
 * The rule, for values in [lo, hi]:
 *   - An axis that should show 0 (from_zero: counts, fractions, bandwidth)
 *     runs from 0 to just above hi.
 *   - Except where the chart asks to show differences (zoom: the charts of
 *     measured bandwidth and time) and every value is positive and within
 *     CML_AXIS_ZOOM_SPREAD (15%) of the largest, hi - lo <= 0.15 hi: drawn
 *     from 0, such values would differ by a sliver of the plot's height.
 *     The axis then starts below the smallest value by a quarter of the
 *     spread (by 5% of the value when all are equal), at the nice tick at
 *     or below that, and `broken` says that 0 is left out: the chart marks
 *     the break on its axis and says where the axis starts. Where that
 *     tick would be 0 or less, the axis simply starts at 0.
 *   - Otherwise the range is [lo, hi] (a single value v gets v +- 50%).
 * The ends are then widened to ticks at nice numbers (cml_nice_ticks): the
 * first tick at or below the start, the last at or above the end.
 *
 * The ticks themselves (nice and logarithmic) and their labels live here
 * too; the chart writer (svg_chart.h) draws with them and includes this
 * header, never the reverse.
 */
#ifndef CML_REPORT_CHART_RANGE_H
#define CML_REPORT_CHART_RANGE_H

#include <stddef.h>

#include "core/chart_spec.h"

#define CML_CHART_MAX_TICKS 16
#define CML_AXIS_ZOOM_SPREAD 0.15

typedef struct cml_axis_range {
    double lo, hi;                      /* the axis: its first and last tick */
    double step;                        /* between ticks */
    double ticks[CML_CHART_MAX_TICKS];
    size_t nticks;
    int broken;                         /* 1: from_zero asked, but the axis starts above 0 */
} cml_axis_range;

/* The axis for data in [lo, hi] (finite, lo <= hi) with at most max_ticks
 * (2..CML_CHART_MAX_TICKS) ticks, by the rule above. */
void cml_axis_range_choose(double lo, double hi, int from_zero, int zoom, size_t max_ticks,
                           cml_axis_range *out);

/* The same for a categorical axis numbered by whole numbers (CML_FMT_WHOLE:
 * levels 1, 2, 3): from floor(lo) to ceil(hi) — no 0 unless a category is
 * 0 — with ticks at whole numbers only, every one where they fit in
 * max_ticks, else every k-th; never a tick at 1.5. */
void cml_axis_range_whole(double lo, double hi, size_t max_ticks, cml_axis_range *out);

/*
 * Ticks at "nice" numbers (1, 2 or 5 times a power of ten) covering
 * [lo, hi], at most max_ticks (>= 2) of them: writes them to ticks (room for
 * max_ticks), the step to *step, and returns how many. The first tick is
 * <= lo and the last >= hi. lo == hi gives the single tick lo (step 0).
 */
size_t cml_nice_ticks(double lo, double hi, size_t max_ticks, double *ticks, double *step);

/*
 * Ticks at powers of `base` (2 or 10) covering [lo, hi] (both > 0), every
 * k-th power so at most max_ticks appear; returns how many (0 if lo or hi
 * is not positive).
 */
size_t cml_log_ticks(double lo, double hi, double base, size_t max_ticks, double *ticks);

/* Format a tick value: `step` (0 for log axes) decides the decimals. */
void cml_fmt_tick(char *buf, size_t len, double v, double step, cml_tick_format fmt);

#endif
