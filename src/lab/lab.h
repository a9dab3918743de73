/*
 * The run engine: open a lab (the GPU when there is one, its facts, the
 * measured peak, the hardware counters), run experiments into a results
 * set, close. The command line, `validate`, the textbook programs and the
 * tests all go through it; none of them opens a device or walks an
 * experiment's options itself.
 *
 * Everything the run had to say about itself (no GPU and so the model
 * alone, counters unavailable and why, an experiment that failed, a waived
 * variant) goes into the results' diagnostics; nothing here prints.
 */
#ifndef CML_LAB_H
#define CML_LAB_H

#include <stddef.h>

#include "lab/experiment.h"
#include "lab/peak_cache.h"

/* What a command asks of the lab, parsed and checked once by the CLI. */
typedef struct cml_lab_settings {
    int device;            /* the GPU to open */
    int model_only;        /* never touch a GPU (--model) */
    int counters;          /* CML_COUNTERS_OFF / _ON / _AUTO */
    int measure_peak;      /* measure the reference peak (or take peak_gbs) */
    double peak_gbs;       /* > 0: the user's reference (--peak), not measured */
    int peak_cache;        /* cml_peak_cache_mode: reuse the kept peak of this GPU (0: never) */
    cml_where where;
    uint64_t size_bytes;
    unsigned reps, warmup; /* 0: the defaults; reps > 0 takes exactly that many */
    int quick;             /* the tour's fewer variants and repetitions */
    int textbook;          /* started by a textbook program name */
    const char *const *exprs; /* index expressions for the expr experiment (plan.exprs) */
    size_t nexprs;
    int progress;          /* draw the progress line (lab/progress.h) */
    int quiet;             /* -q: no plain progress lines on a log or a pipe */
} cml_lab_settings;

typedef struct cml_lab {
    struct cml_gpu *gpu;   /* NULL: the model alone */
    cml_plan plan;
    char why[512];         /* why there is no GPU, or why opening it failed */
} cml_lab;

typedef enum cml_lab_state {
    CML_LAB_FAILED = -1,   /* a GPU is there but could not be used: lab->why */
    CML_LAB_MODEL = 0,     /* no GPU (or --model): the model alone; lab->why */
    CML_LAB_GPU = 1        /* a GPU is open */
} cml_lab_state;

/*
 * Open the lab for `s` and describe it in r: the device, the peak, whether
 * the run is model-only, and diagnostics for what is missing. r must be
 * initialised (cml_results_init). Never prints.
 */
cml_lab_state cml_lab_open(cml_lab *lab, const cml_lab_settings *s, cml_results *r);

/* An experiment's options at their defaults, then the settings text
 * "name=list name=list ..." (NULL or "": none). CML_EINVAL with a one-line
 * message naming the option (and `origin`, when given) in err. */
cml_status cml_lab_options(const cml_experiment *exp, const char *text, const char *origin,
                           cml_param_values *pv, char *err, size_t errlen);

/* Set one option from text; the message names the experiment's options
 * when `name` is not one of them. */
cml_status cml_lab_set_option(const cml_experiment *exp, cml_param_values *pv, const char *name,
                              const char *value, const char *origin, char *err, size_t errlen);

/* The experiment's own check of pv's lists together (cml_experiment.check):
 * CML_OK, or CML_EINVAL with one line in err. Called once every setting is
 * applied, before anything runs. */
cml_status cml_lab_check_options(const cml_experiment *exp, const cml_param_values *pv,
                                 char *err, size_t errlen);

/*
 * Run one experiment over pv into r: on the GPU when the lab has one and
 * the experiment measures, else its model. Failed and waived variants, and
 * an experiment that stops, become diagnostics. Returns CML_OK when every
 * record holds figures (or was waived); CML_EVERIFY when some record
 * failed; the status that stopped the experiment otherwise.
 */
cml_status cml_lab_run(cml_lab *lab, const cml_experiment *exp, const cml_param_values *pv,
                       cml_results *r);

/* The records an experiment's sweep over pv makes at most (its points). */
size_t cml_lab_points(const cml_experiment *exp, const cml_param_values *pv);

/* Free the counters and the device. Safe on a lab that failed to open. */
void cml_lab_close(cml_lab *lab);

#endif
