/*
 * The experiment registry. Adding an experiment means adding one file pair
 * (NAME.c: parameters, model mirror, record building, GPU run; NAME.cu:
 * kernels and extern "C" launchers) and one row in registry.c.
 */
#ifndef CML_EXPERIMENT_H
#define CML_EXPERIMENT_H

#include <stddef.h>

#include "core/param.h"
#include "core/record.h"
#include "cumemlab/model.h"

struct cml_gpu; /* src/gpu/gpu.h; NULL when running on the model alone */
struct cml_counters; /* src/counters/counters.h; NULL when counters are not read */
struct cml_counters_pass; /* src/experiments/counters_pass.h */

/* Whether to read hardware counters (--counters). */
enum { CML_COUNTERS_OFF = 0, CML_COUNTERS_ON = 1, CML_COUNTERS_AUTO = 2 };

/* Where the data of a streaming experiment should live. */
typedef enum cml_where { CML_WHERE_DRAM = 0, CML_WHERE_L2, CML_WHERE_L1 } cml_where;

typedef struct cml_plan {
    struct cml_gpu *gpu;          /* NULL: model only */
    const cml_device_facts *dev;  /* NULL: model only */
    cml_where where;
    uint64_t size_bytes;          /* 0: choose from `where` and the L2 size */
    unsigned warmup, reps;        /* timing; 0 = the experiment's default */
    double peak_gbs;              /* measured peak of this GPU (0 = unknown) */
    int quick;                    /* tour: fewer variants and repetitions */
    int textbook;                 /* started by a textbook program name */
    int counters;                 /* CML_COUNTERS_OFF / _ON / _AUTO as asked for */
    struct cml_counters *profiler;/* open profiler: cml_exp_time adds a counters
                                     pass to every timed variant; NULL: none */
    struct cml_counters_pass *counters_pass; /* where cml_exp_time queues those
                                     passes (counters_pass.h); NULL: at once */
} cml_plan;

typedef cml_status (*cml_experiment_fn)(const cml_plan *plan, const cml_param_values *pv,
                                        cml_results *out);

typedef struct cml_experiment {
    const char *key;           /* stable name: "read-offset" */
    int spec_number;           /* number in SPEC.md */
    const char *title;         /* "Misaligned reads" */
    const char *summary;       /* one line for `cumemlab list` */
    const cml_param_def *params;
    size_t nparams;
    cml_experiment_fn model;   /* predictions on the CPU (always present) */
    cml_experiment_fn run;     /* measurement on the GPU (NULL: model only) */
    const char *tour;          /* parameter settings for the tour, e.g. "offset=0,11,128" */
} cml_experiment;

/* A textbook program name mapped onto an experiment. */
typedef struct cml_textbook_alias {
    const char *name;          /* "readSegment" */
    const char *experiment;    /* "read-offset" */
    const char *fixed;         /* settings always applied: "n=2^20 path=ca" */
    const char *positional[4]; /* names of the program's positional arguments */
    const char *usage;         /* "readSegment [offset] [blocksize]" */
} cml_textbook_alias;

size_t cml_experiment_count(void);
const cml_experiment *cml_experiment_at(size_t i);
/* Exact key, or unique prefix; NULL if none or ambiguous. */
const cml_experiment *cml_experiment_find(const char *key);

size_t cml_textbook_count(void);
const cml_textbook_alias *cml_textbook_at(size_t i);
const cml_textbook_alias *cml_textbook_find(const char *name);

/* Default element count of a streaming experiment: `size_bytes` if given,
 * else by `where` from the L2 size (4x L2 for DRAM), or 2^24 elements when
 * no device facts are known. */
uint64_t cml_plan_elements(const cml_plan *plan, uint64_t elem_bytes, uint64_t arrays);

#endif
