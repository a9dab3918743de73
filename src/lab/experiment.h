/*
 * The experiment contract, owned by the engine (src/lab). An experiment is
 * one folder, src/experiments/NAME/ (NAME.c: options, model mirror, record
 * building, measurement, the row; NAME.cu: kernels and extern "C"
 * launchers; their headers), and one line in the registry
 * (src/experiments/registry.c); docs/adding-an-experiment.md walks
 * through it. Experiments include this header; the engine includes no
 * experiment's.
 *
 * The row (cml_experiment) is the one place that names an experiment: key,
 * number, title, summary, doc page, typed options, tour settings, textbook
 * aliases, the charts the report draws and how `validate` treats it. The
 * run engine (src/lab/sweep.c) walks the cross product of the options, hands
 * each point to the experiment as its own settings struct (never a lookup by
 * string), owns the GPU buffers of the run, and collects the records:
 *
 *     for each point of the options' cross product:
 *         rec = new record, params and variant name filled from the point
 *         variant(ctx, settings, rec)      -- the model: always
 *         measure(ctx, settings, rec)      -- the GPU: when one is open
 *     summarize(ctx, first, last)          -- after each innermost sweep
 *     finish(ctx)                          -- after the whole sweep
 *     release(ctx)                         -- the experiment's GPU state
 */
#ifndef CML_EXPERIMENT_H
#define CML_EXPERIMENT_H

#include <stddef.h>

#include "core/chart_spec.h"
#include "core/param.h"
#include "core/record.h"
#include "cumemlab/model.h"

struct cml_gpu; /* src/gpu/gpu.h; NULL when running on the model alone */
struct cml_counters; /* src/counters/counters.h; NULL when counters are not read */
struct cml_counters_pass; /* src/lab/counters_pass.h */

/* Whether to read hardware counters (--counters). */
enum { CML_COUNTERS_OFF = 0, CML_COUNTERS_ON = 1, CML_COUNTERS_AUTO = 2 };

/* Where the data of a streaming experiment should live. */
typedef enum cml_where { CML_WHERE_DRAM = 0, CML_WHERE_L2, CML_WHERE_L1 } cml_where;

/* What a run of an experiment may use: filled by the run engine (src/lab). */
typedef struct cml_plan {
    struct cml_gpu *gpu;          /* NULL: model only */
    const cml_device_facts *dev;  /* NULL: model only */
    cml_where where;
    uint64_t size_bytes;          /* 0: choose from `where` and the L2 size */
    unsigned warmup, reps;        /* timing; 0 = the experiment's default */
    double peak_gbs;              /* measured peak of this GPU: the largest of peaks (0 = unknown) */
    cml_peak_refs peaks;          /* the reference of each class (core/peak_class.h): what a
                                     record's "% of peak" is taken against */
    int quick;                    /* tour: fewer variants and repetitions */
    int textbook;                 /* started by a textbook program name */
    int counters;                 /* CML_COUNTERS_OFF / _ON / _AUTO as asked for */
    struct cml_counters *profiler;/* open profiler: cml_exp_time adds a counters
                                     pass to every timed variant; NULL: none */
    struct cml_counters_pass *counters_pass; /* where cml_exp_time queues those
                                     passes (counters_pass.h); NULL: at once */
    /* Index expressions the user gave (run --expr, --src), as typed: the
     * expr experiment's options index them (src/experiments/expr/expr.c).
     * NULL: none; that experiment then runs its built-in set. */
    const char *const *exprs;
    size_t nexprs;
    /* Told before each point of a sweep (point counts from 0 of points),
     * so that a long run can show how far it got; NULL: nobody asked. */
    void (*progress)(void *user, const char *experiment, size_t point, size_t points);
    void *progress_user;
} cml_plan;

/* One run of one experiment, as the engine hands it to the experiment's
 * pieces. The engine owns it; experiments read `plan` and `state`. */
typedef struct cml_sweep cml_sweep;

struct cml_sweep {
    const cml_plan *plan;       /* plan->gpu NULL: model only */
    void *state;                /* the row's state_size bytes, zeroed at the start */
    cml_results *out;           /* the results the records go into */
    const struct cml_experiment *exp;
    size_t first;               /* index in out of this run's first record */
    size_t point;               /* index in out of the current point's record */
    const cml_param_values *values; /* every option's whole list for this run */
    /* the engine's own bookkeeping (sweep.c) */
    unsigned char **settings;   /* one settings struct per record since `first`, */
    size_t settings_chunks;     /* in chunks that never move (sweep.c) */
    size_t settings_kept;
    struct cml_sweep_buffer **buffers;
    size_t nbuffers;
};

/* Record + model for one point. `settings` is the experiment's settings
 * struct with every option's value at this point; the function may change
 * it (resolve n = 0 to the size it chose, say): the record's parameters and
 * the measurement see the changed values. Return CML_OK, an error (the
 * record is marked failed with the message), or CML_SKIP_POINT to drop the
 * record (a combination that does not exist). */
typedef cml_status (*cml_variant_fn)(cml_sweep *ctx, void *settings, cml_record *rec);

/* Returned by a variant function: no record for this point. */
#define CML_SKIP_POINT ((cml_status)-1)

/* After each sweep of the first option (records first..last, all of one
 * value of every other option): a summary finding, say. */
typedef void (*cml_summary_fn)(cml_sweep *ctx, size_t first, size_t last);

/* A textbook program name mapped onto an experiment. */
typedef struct cml_textbook_alias {
    const char *name;          /* "readSegment" */
    const char *fixed;         /* settings always applied: "n=2^20 path=ca" */
    const char *positional[4]; /* names of the program's positional arguments */
    const char *usage;         /* "readSegment [offset] [blocksize]" */
} cml_textbook_alias;

/*
 * How `validate` treats an experiment: the settings it runs (each a
 * "name=list ..." string like the tour's; "" = the default sweep), and the
 * differences docs/model-evidence.md explains. An explanation names a
 * mechanism (what the hardware does that the model does not), the one
 * direction it moves a counter, a bound and a control run that isolates it
 * (docs/model-evidence.md §4 gives the measured evidence of each):
 *
 * A counter of a record outside the model's interval is explained when the
 * variant contains `variant_has` (NULL: any), the metric contains
 * `metric_has`, the difference lies in `direction` (an EXCESS above the
 * interval's top, a DEFICIT below its bottom) and is at most bound_frac
 * times the reference (0 < bound_frac <= CML_EXPLAIN_MAX_BOUND), and the
 * control variant (the same variant with `control`, "option=value", set;
 * validate's settings run it) has at least one counter the entry names
 * and every one of them inside the model's interval: the difference is
 * shown to come from what the control removes. A control that differs, or
 * that has none of the counters, explains nothing. The reference: the
 * predicted wavefronts of the same shared-memory operation (for a
 * bank-conflict or wavefront counter), the sectors the kernel asks for
 * (for L1 hit and L2 sector counters: loads, or stores for L2 writes),
 * else the predicted counter itself.
 *
 * An entry that is unbounded, wider than CML_EXPLAIN_MAX_BOUND, of no single
 * direction, without a mechanism or without a control is a defect of the
 * row: cml_explained_defect (src/lab/validate.h) names it, validate refuses
 * to run with one and tests/test_validate_rules.c fails on it.
 */
typedef enum cml_explain_direction {
    /* 0 is no direction: a row that leaves it out is a defect */
    CML_EXCESS = 1,          /* measured above the model's interval */
    CML_DEFICIT = 2          /* measured below it */
} cml_explain_direction;

/* The widest an explanation may be: 10% of its reference. */
#define CML_EXPLAIN_MAX_BOUND 0.10

typedef struct cml_explained_diff {
    const char *variant_has;
    const char *metric_has;
    const char *mechanism;     /* one line: what the hardware does that the model does not */
    cml_explain_direction direction;
    double bound_frac;         /* 0 < bound_frac <= CML_EXPLAIN_MAX_BOUND of the reference */
    const char *section;       /* in docs/model-evidence.md */
    const char *control;       /* "option=value" naming the control: required */
} cml_explained_diff;

typedef struct cml_validate_spec {
    const char *const *settings;            /* NULL-terminated */
    const cml_explained_diff *explained;    /* may be NULL */
    size_t nexplained;
} cml_validate_spec;

typedef struct cml_experiment {
    const char *key;           /* stable name: "read-offset" */
    int number;                /* the experiment's number in the lab */
    const char *title;         /* "Misaligned reads" */
    const char *summary;       /* one line for `cumemlab list` */
    const char *doc;           /* its page: "docs/experiments/read-offset.md" */
    const cml_param_def *options;
    size_t noptions;
    size_t settings_size;      /* sizeof the struct the options' fields live in */
    size_t state_size;         /* the run's private state (0: none) */
    const char *tour;          /* the tour's settings, e.g. "offset=0,11,128" */
    cml_variant_fn variant;    /* record and model (always present) */
    cml_variant_fn measure;    /* the GPU measurement (NULL: model only) */
    cml_summary_fn summarize;  /* optional */
    void (*finish)(cml_sweep *ctx);  /* optional: after the whole sweep (not after a fatal
                                        error), e.g. findings across every record */
    void (*release)(cml_sweep *ctx); /* optional: free what `state` holds */
    const cml_textbook_alias *aliases;
    size_t naliases;
    const cml_chart_spec *charts; /* what the HTML report draws */
    size_t ncharts;
    const cml_validate_spec *validate; /* NULL: validate skips it, saying so */
    /* optional: values each within its option's range that the experiment
     * cannot run together (a working set too small for one of the ops
     * listed, say), refused before anything runs: CML_EINVAL with one line
     * naming the option, the value and what it allows in err. pv holds
     * every option's whole list. */
    cml_status (*check)(const cml_param_values *pv, char *err, size_t errlen);
    /* optional: whether a point of the options' cross product makes a record
     * at all (a combination the experiment does not run), from the settings
     * and the run's lists (ctx->values) before any work. The engine neither
     * walks nor counts a point it answers 0 for, so a sweep's size (the
     * progress line, `model`'s limit) is what runs. ctx->plan is NULL when
     * only counting for `model` (no GPU). NULL: every point. */
    int (*keep)(const cml_sweep *ctx, const void *settings);
} cml_experiment;

#define CML_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Default element count of a streaming experiment: `size_bytes` if given,
 * else by `where` from the L2 size (4x L2 for DRAM), or 2^24 elements when
 * no device facts are known. */
uint64_t cml_plan_elements(const cml_plan *plan, uint64_t elem_bytes, uint64_t arrays);

/* ---- what the engine offers the experiment's pieces (src/lab/sweep.c) -- */

/* The settings struct the engine handed over with record `index` of out
 * (index >= ctx->first); NULL for records of other runs. */
const void *cml_sweep_settings_of(const cml_sweep *ctx, size_t index);

/* Another record at the current point (same parameters as `like`), for an
 * experiment that reports more than one figure per point. NULL when out of
 * memory. Pointers into ctx->out move when records are added: use indices
 * across calls. */
cml_record *cml_sweep_add_record(cml_sweep *ctx, const cml_record *like, const char *variant);

/* Mark `rec` waived: this variant cannot run here, and why. */
void cml_sweep_waive(cml_sweep *ctx, cml_record *rec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
