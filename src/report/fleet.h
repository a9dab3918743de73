/*
 * The fleet compared (`cumemlab report fleet.json`, or `report A.json B.json
 * C.json ...`): every GPU's figures lined up per experiment and variant,
 * the fleet's median taken within each GPU model, and each GPU whose
 * figure is off by more than a threshold flagged (docs/fleet.md, "The
 * outlier rule", says the rule exactly; this file implements that).
 *
 * The input is a list of runs (cml_fleet_runs): each rank of a
 * "cumemlab-fleet" file (written by the MPI run: docs/json-schema.md), and
 * each plain "cumemlab-results" file, one run each. A rank without results
 * (it failed before writing any) is a run with its diagnostic only.
 *
 * The comparison (cml_fleet) holds, per group of GPUs of one model, a row
 * per figure (the measured bandwidth of a record, its latency for a
 * latency record, or one of its exact counters: counters/counter_map.h, the
 * classification `validate` judges exactly) with each GPU's value, the reference and the flags; per GPU,
 * what its flags add up to. Renderers: the terminal (fleet_text.c), CSV,
 * JSON (schema "cumemlab-fleet-comparison") and HTML (fleet_html.c).
 */
#ifndef CML_REPORT_FLEET_H
#define CML_REPORT_FLEET_H

#include <stddef.h>
#include <stdio.h>

#include "core/record.h"

#define CML_FLEET_DEFAULT_THRESHOLD 3.0 /* percent */
#define CML_FLEET_MIN_THRESHOLD 0.1
#define CML_FLEET_MAX_THRESHOLD 100.0
/* A GPU is named when its count of flagged speed figures, or more, has a
 * chance below this at the other GPUs' rate (fleet.c, sum_up). */
#define CML_FLEET_NAME_CHANCE 0.001

/* A GPU's state read through NVML at the start or the end of its rank's
 * command; a field NVML could not give is -1 (power: NAN). */
typedef struct cml_fleet_gpu_state {
    int known;                 /* the fleet file had this object */
    int sm_clock_mhz, mem_clock_mhz, temperature_c;
    double power_w;
    char reasons[160];         /* clock_event_reasons joined by ", " */
} cml_fleet_gpu_state;

/* The "gpu" object of a rank ("" and -1 where NVML could not say). */
typedef struct cml_fleet_gpu_info {
    int index;
    char name[128], uuid[64], serial[64], pci_bus_id[40], driver[40];
    int cuda_driver_version;
    cml_fleet_gpu_state start, end;
} cml_fleet_gpu_info;

/* One run: a rank of a fleet file, or a results file. */
typedef struct cml_fleet_run {
    char file[512];            /* the file it came from, as given */
    int from_fleet;            /* 1: a rank of a fleet file */
    int rank, local_rank;      /* -1: not a rank (or not known) */
    char host[128];
    int exit_status;
    char diagnostic[512];      /* "" when none */
    int has_gpu;
    cml_fleet_gpu_info gpu;
    int has_results;
    cml_results results;
} cml_fleet_run;

typedef struct cml_fleet_runs {
    cml_fleet_run *items;
    size_t count, cap;
    char launcher[16];         /* of the last fleet file read ("" when none) */
    char command_line[1024];   /* its command line */
    size_t fleet_files;        /* fleet files among the inputs */
} cml_fleet_runs;

void cml_fleet_runs_init(cml_fleet_runs *f);
void cml_fleet_runs_free(cml_fleet_runs *f);

/*
 * Append the runs of one file: a fleet file's ranks, or a results file as
 * one run (which of the two, its "schema" says; both are read in one pass,
 * gzip too, "-" is standard input). A fleet file is read one rank at a
 * time: the tree of a rank is freed once its results are records. CML_OK;
 * CML_EIO when the file cannot be read; CML_EINVAL with err = "PATH: line
 * L, column C (byte B): what", naming the member ("ranks[2].exit_status:
 * expected an integer in 0..255"); CML_ENOMEM. On failure f keeps the runs
 * of the files read before.
 */
cml_status cml_fleet_read_file(const char *path, cml_fleet_runs *f, char *err, size_t errlen);
/* The same from a text in memory (the fuzzer; tests). */
cml_status cml_fleet_read_text(const char *text, size_t len, const char *name, cml_fleet_runs *f,
                               char *err, size_t errlen);
/* The kind of a figure. */
/* The kind of a figure: bandwidth and latency are the speed figures (a
 * record with an "ns_per_load" extra is a latency record: its latency is
 * its speed figure, its bandwidth is not compared). */
typedef enum cml_fleet_kind {
    CML_FLEET_BANDWIDTH = 0,
    CML_FLEET_LATENCY,
    CML_FLEET_COUNTER
} cml_fleet_kind;

/* How a row's reference was chosen. */
typedef enum cml_fleet_ref {
    CML_FLEET_REF_MEDIAN = 0,  /* the median of three or more */
    CML_FLEET_REF_FASTER,      /* two GPUs: the faster (speed figures) */
    CML_FLEET_REF_MAJORITY,    /* counters: the value most GPUs hold */
    CML_FLEET_REF_NONE         /* counters with no majority: nothing flagged */
} cml_fleet_ref;

/* One GPU's value of a row. */
typedef struct cml_fleet_cell {
    int present;
    double value;              /* GB/s, ns per load, or the counter's value */
    double lo, hi;             /* speed: the band the timing's min and max give */
    double deviation;          /* value / reference - 1; NAN where not defined */
    int flagged;               /* off by the rule */
} cml_fleet_cell;

/* One figure of one record across a group's GPUs. */
typedef struct cml_fleet_row {
    size_t group;
    const char *experiment, *variant; /* of the first run that has the record */
    size_t occurrence;         /* the n-th record of that experiment and variant */
    cml_fleet_kind kind;
    const char *counter;       /* the counter's name (CML_FLEET_COUNTER) */
    size_t present;            /* GPUs with the figure */
    double reference;
    double ref_lo, ref_hi;     /* speed: the reference run's band (two middle runs'
                                  union for an even count) */
    cml_fleet_ref rule;
    size_t nflagged;
    cml_fleet_cell *cells;     /* one per GPU of the group, in the group's order */
} cml_fleet_row;

/* A group: the GPUs of one model (device name). */
typedef struct cml_fleet_group {
    char model[128];
    size_t *gpus;              /* indices into cml_fleet.gpus */
    size_t n;
    char driver[40];           /* the driver most of its GPUs have ("" unknown) */
    cml_fleet_gpu_state start, end; /* the medians of its GPUs' (known: any had it) */
    size_t first_row, nrows;   /* its rows: rows[first_row .. first_row + nrows) */
} cml_fleet_group;

/* A GPU (a run) and what its flags add up to. */
typedef struct cml_fleet_gpu {
    const cml_fleet_run *run;
    char label[200];           /* rank/host/GPU index/name/short UUID, or the file */
    char tag[64];              /* short: "rank 2" or the file's name */
    char model[128];
    char driver[40];           /* "580.65.06" (fleet) or "CUDA 13000" (results); "" */
    int failed;                /* no results: listed with its diagnostic */
    size_t group;              /* (when not failed) */
    size_t pos;                /* its place in the group */
    size_t speed_compared, speed_flagged, speed_slower, speed_faster;
    size_t ctr_compared, ctr_flagged;
    double median_flagged;     /* median speed deviation of the flagged speed figures */
    double others_flagged;     /* the median of the other GPUs' of its model: the control */
    double chance;             /* of its flagged count or more at the others' rate */
    int outlier;
    char experiments[512];     /* where its flags fall: "read-offset, stride" */
    char counters[512];        /* the counters that differ: "name (experiment)" */
} cml_fleet_gpu;

typedef struct cml_fleet {
    const cml_fleet_runs *runs;
    double threshold;          /* percent */
    cml_fleet_gpu *gpus;       /* one per run, in the runs' order */
    size_t ngpus, nfailed, noutliers;
    cml_fleet_group *groups;
    size_t ngroups;
    cml_fleet_row *rows;       /* grouped by group, then in record order */
    size_t nrows;
} cml_fleet;

/* Compare the runs (which must outlive f) with threshold (percent).
 * CML_ENOMEM when out of memory (f is then empty and may be freed). */
cml_status cml_fleet_build(cml_fleet *f, const cml_fleet_runs *runs, double threshold);
void cml_fleet_free(cml_fleet *f);

/* The version of cumemlab that wrote the first run with results ("" when
 * none has results): the reports' footers and the JSON's tool_version. */
const char *cml_fleet_tool_version(const cml_fleet *f);

/* The name of a row's figure: "bandwidth", "latency", or the counter's. */
const char *cml_fleet_figure_name(const cml_fleet_row *row);
/* Whether a kind is a speed figure (bandwidth, latency). */
int cml_fleet_is_speed(cml_fleet_kind kind);
/* A speed cell's deviation as a change of speed: negative is slower (a
 * latency 25% above the reference: -20%, the rate of loads it allows);
 * NAN for counters and absent cells. */
double cml_fleet_speed_deviation(const cml_fleet_row *row, const cml_fleet_cell *c);

/* The renderers (cml_output_fn-shaped: ctx is the cml_fleet); CML_EIO when
 * the stream failed. */
cml_status cml_fleet_table(FILE *out, const void *f);
cml_status cml_fleet_csv(FILE *out, const void *f);
cml_status cml_fleet_json(FILE *out, const void *f);
cml_status cml_fleet_html(FILE *out, const void *f);

/*
 * For the MPI run's rank 0, once it has written the fleet file: read it,
 * compare with threshold (percent; 0: the default 3%) and print the
 * comparison's text to out. CML_OK; else err holds one line (the file
 * could not be read, out of memory, or out failed).
 */
cml_status cml_fleet_report_file(const char *path, FILE *out, double threshold, char *err,
                                 size_t errlen);

#endif
