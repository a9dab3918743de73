/*
 * Result records: the one shape every experiment produces and every reporter
 * reads. Experiments never print; reporters only ever see records.
 */
#ifndef CML_RECORD_H
#define CML_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/dram_background.h"
#include "core/exp_desc.h"
#include "core/peak_class.h"
#include "cumemlab/cache.h"
#include "cumemlab/model.h"

#define CML_RECORD_MAX_PARAMS 12
#define CML_RECORD_MAX_COUNTERS 28
/* cml_traffic is a run of uint64_t counts (include/cumemlab/model.h). */
#define CML_TRAFFIC_FIELDS (sizeof(cml_traffic) / sizeof(uint64_t))

/* Facts read from the device (experiment 15). All sizes in bytes. */
typedef struct cml_device_facts {
    int index;
    char name[256];
    char uuid[48];            /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as nvidia-smi
                                 shows it; "" when unknown (files of older versions) */
    int cc_major, cc_minor;
    int sm_count;
    int warp_size;
    int max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
    int regs_per_block, regs_per_sm;
    uint64_t shared_per_block, shared_per_block_optin, shared_per_sm;
    uint64_t const_bytes;
    uint64_t l2_bytes, l2_persisting_max;
    uint64_t global_bytes;
    int bus_width_bits;
    int mem_clock_khz;        /* memory clock as the driver reports it */
    int sm_clock_khz;
    double theoretical_gbs;   /* 2 (DDR) * clock * bus width / 8, in GB/s (1e9) */
    int ecc_enabled;
    int driver_version, runtime_version; /* e.g. 13000 */
    int unified_addressing, can_map_host_memory, managed_memory, concurrent_managed;
    int global_l1_cache_supported, local_l1_cache_supported;
} cml_device_facts;

typedef struct cml_timing {
    unsigned warmup, reps;
    double median_ms, min_ms, max_ms, mean_ms;
    double cv;                /* standard deviation / mean */
} cml_timing;

typedef enum cml_verify { CML_VERIFY_NONE = 0, CML_VERIFY_PASSED, CML_VERIFY_FAILED } cml_verify;

typedef enum cml_record_state {
    CML_REC_OK = 0,     /* produced its figures */
    CML_REC_WAIVED,     /* cannot run here; `note` says why */
    CML_REC_FAILED      /* an error; `note` says what */
} cml_record_state;

typedef struct cml_record_param {
    char name[24];
    int64_t value;
    char label[32];           /* the choice name for enumerated parameters, else "" */
} cml_record_param;

/* A hardware counter beside the model's prediction for it (issue: counters). */
typedef struct cml_counter {
    char name[80];            /* ncu metric name (the longest the lab reads is 66 bytes;
                                 the reader refuses a longer one) */
    double measured;
    int has_prediction;
    double predicted;
} cml_counter;

typedef struct cml_record {
    char experiment[32];      /* registry key, e.g. "read-offset" */
    char variant[96];         /* e.g. "offset=11 path=ca" */
    cml_record_param params[CML_RECORD_MAX_PARAMS];
    unsigned nparams;
    cml_record_state state;
    char note[256];           /* waiver reason or error message */

    /* Bytes the algorithm must move: each input read once, each output once. */
    uint64_t bytes_read, bytes_written;

    /* Launch configuration (0 when not a kernel). */
    uint64_t grid, block;
    double occupancy;         /* achieved theoretical occupancy 0..1, <0 unknown */

    /* Measured on the GPU. */
    int measured;
    cml_timing timing;
    double bandwidth_gbs;     /* (bytes_read + bytes_written) / median time */
    double peak_fraction;     /* bandwidth / peak_ref_gbs, <0 unknown */
    int peak_class;           /* the reference used: cml_peak_class, CML_PEAK_CLASS_NONE */
    double peak_ref_gbs;      /* that reference's bandwidth (0: none) */
    cml_verify verify;

    /* The model's prediction, under both rule sets. */
    int has_model;
    cml_kernel_traffic model[CML_RULES_COUNT];

    /* The cache levels (include/cumemlab/cache.h): what the model assumes
     * about the GPU and launch (set by the run engine from the device, the
     * experiment adds its shared memory; sm_count 0: an H100), and what it
     * predicts for L1, L2 and DRAM under the modern rules. */
    cml_cache_config cache;
    int has_levels;
    cml_levels levels;

    /* The model from a sample of the grid's warps (cml_exp_trace_sample;
     * warps == 0: every figure of `model` is exact): how many of how many
     * warps were traced, and each figure's half-width, the distance from
     * the estimate within which the whole walk's figure lies with
     * probability `confidence`. The half-widths are kept as floats rounded
     * up (cml_sample_set_half): a bound stays a bound at half the bytes,
     * which matters because `report` holds every record it reads
     * (tests/report_memory.c). One per field of cml_traffic, in its order. */
    struct cml_model_sample {
        uint64_t warps, of;
        double confidence;
        float half[CML_RULES_COUNT][CML_CLASS_COUNT][CML_TRAFFIC_FIELDS];
    } sample;

    /* Counters read from the hardware. */
    cml_counter counters[CML_RECORD_MAX_COUNTERS];
    unsigned ncounters;

    /* Free-form numbers an experiment wants reported (e.g. "pitch_bytes"). */
    struct { char name[32]; double value; char unit[12]; } extra[16];
    unsigned nextra;

    char finding[1024];       /* one sentence: what the numbers show and why (files of
                                 cumemlab 0.1.0 held at most 383 bytes of it) */
} cml_record;

/* A run-level message: no GPU (model-only fallback), counters unavailable
 * and why, an experiment that failed before it made a record, a waived
 * variant. The JSON's top-level "diagnostics" array (docs/json-schema.md). */
typedef enum cml_diag_level { CML_DIAG_INFO = 0, CML_DIAG_WARNING, CML_DIAG_ERROR } cml_diag_level;

typedef struct cml_diagnostic {
    cml_diag_level level;
    char experiment[32];      /* registry key; "" for the run as a whole */
    char message[512];
} cml_diagnostic;

typedef struct cml_results {
    cml_record *items;
    size_t count, cap;
    cml_diagnostic *diags;
    size_t ndiags, diags_cap;
    char command_line[1024];
    int has_device;
    cml_device_facts device;
    double peak_gbs;          /* peak bandwidth, 0 if not known: the largest of peaks */
    cml_peak_refs peaks;      /* the reference of each class (core/peak_class.h) */
    int peak_given;           /* 1: peak_gbs came from --peak, not a measurement */
    int model_only;           /* 1: no GPU ran, every figure is a prediction */
    char tool_version[32];
    /* validate's control of the DRAM noise floor (n 0: none measured). */
    cml_dram_background background;
    /* How to draw each experiment of the results (core/exp_desc.h): what
     * the registry row said when the results were produced, or what the
     * file they were read from carries; none in files of older versions. */
    cml_exp_descs descs;
} cml_results;

void cml_results_init(cml_results *r);
void cml_results_free(cml_results *r);
/* Append a zeroed record with experiment/variant set; NULL on out of memory. */
cml_record *cml_results_add(cml_results *r, const char *experiment, const char *variant);

/* Append a diagnostic (experiment NULL or "": the whole run). CML_ENOMEM
 * when it cannot be stored. */
cml_status cml_results_diag(cml_results *r, cml_diag_level level, const char *experiment,
                            const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "info", "warning", "error"; and back (-1 for anything else). */
const char *cml_diag_level_name(cml_diag_level level);
int cml_diag_level_parse(const char *name);

/* Helpers for experiments filling records. */
void cml_record_add_param(cml_record *rec, const char *name, int64_t value, const char *label);
/* A sampled record's half-widths of one class under one rule set, as counts
 * (each the stored float, never less than the bound that was set). */
void cml_sample_half(const cml_record *rec, int rules, int cls, cml_traffic *out);
/* Set them from counts: each rounded up to the next float. */
void cml_sample_set_half(cml_record *rec, int rules, int cls, const cml_traffic *half);
void cml_record_add_extra(cml_record *rec, const char *name, double value, const char *unit);
/* The extra figure `name` of rec, or `missing` when it has none. */
double cml_record_extra(const cml_record *rec, const char *name, double missing);
const cml_record_param *cml_record_find_param(const cml_record *rec, const char *name);

/* The counter named `name` of rec, or NULL; its measured value, or NAN
 * where rec lacks it (not read). */
const cml_counter *cml_record_find_counter(const cml_record *rec, const char *name);
double cml_record_counter_value(const cml_record *rec, const char *name);
/* The cache rec's working set lives in (cml_peak_residency): the model's
 * footprint when rec has the cache levels (L1 when more of its sectors hit
 * there than miss or are stored through to L2), else `footprint` (bytes the
 * caller knows the kernel touches; 0: not known); the capacities are the
 * record's own (rec->cache, the device's or the model's H100).
 * CML_PEAK_CLASS_L2_RESIDENT, _L1_RESIDENT or CML_PEAK_CLASS_NONE. */
int cml_record_residency(const cml_record *rec, uint64_t footprint);
/* 1 if rec's launch had fewer blocks than the GPU has SMs (rec->cache.sm_count,
 * 0 an H100's 132): its bandwidth is those SMs' rate, not a level's (a
 * hierarchy write of a few KiB runs a block a 16 KiB part). */
int cml_record_few_blocks(const cml_record *rec);
/* rec's share of peak against the reference of its class (core/peak_class.h:
 * its bytes read and written pick the class): peak_class, peak_ref_gbs and
 * peak_fraction. Unmeasured, no bandwidth or no reference: fraction -1 and
 * class CML_PEAK_CLASS_NONE. A measured record whose working set fits in a
 * cache (cml_record_residency with `footprint`, 0 when only the model's is
 * known) is classed L2- or L1-resident instead: no reference, fraction -1,
 * never a share of the DRAM peak. */
void cml_record_set_peak(cml_record *rec, const cml_peak_refs *refs);
void cml_record_set_peak_touching(cml_record *rec, const cml_peak_refs *refs,
                                  uint64_t footprint);
/* snprintf into rec->finding / rec->note; a finding too long for its field
 * is cut at a word boundary and ends in "..." (cml_text_cut_words). */
void cml_record_finding(cml_record *rec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cml_record_note(cml_record *rec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Text cut to fit without splitting a word: src whole when it has at most
 * max_chars characters (UTF-8 code points) and fits dst (dst_len bytes,
 * NUL included); else its longest prefix that ends before a space and
 * leaves room for "...", then "..."; where that prefix would fill less
 * than half the room (a long word: a metric name, a path), the text is cut
 * between two characters instead. Returns 1 when the text was cut.
 */
int cml_text_cut_words(char *dst, size_t dst_len, const char *src, size_t max_chars);

#endif
