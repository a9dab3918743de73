/*
 * Hand-built result sets for the reporter tests (test_report.c: JSON, CSV,
 * files; test_report_table.c: the table): records with and without the
 * model and counters, and the output of a reporter in memory. Static
 * functions: each test program takes what it uses.
 */
#ifndef CML_REPORT_FIXTURES_H
#define CML_REPORT_FIXTURES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "report/report.h"
#include "report_test_util.h"
#include "test_util.h"

/* ------------------------------------------------------------------ */
/* Rendering into memory                                              */
/* ------------------------------------------------------------------ */

/* Run a reporter into a malloc'd, NUL-terminated buffer (caller frees). */
static char *render(cml_report_fn fn, const cml_results *r, cml_status *st)
{
    return render_to_memory(fn, r, NULL, st);
}

/* With CML_TEST_SHOW set, print rendered tables (to look at them). */
static inline void show(const char *text)
{
    if (getenv("CML_TEST_SHOW"))
        fputs(text, stdout);
}

static inline size_t count_occurrences(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + k, needle))
        n++;
    return n;
}


/* ------------------------------------------------------------------ */
/* Hand-built records                                                  */
/* ------------------------------------------------------------------ */

/* Modern: 1 request, 5 sectors, 128 of 160 bytes useful (80.0 %).
 * Fermi: 2 transactions of 128 B, 128 of 256 bytes useful (50.0 %). */
static inline void set_misaligned_load(cml_record *rec, int cls)
{
    rec->has_model = 1;
    cml_traffic *m = &rec->model[CML_RULES_MODERN].cls[cls];
    m->instructions = 1;
    m->requests = 1;
    m->sectors = 5;
    m->lines = 2;
    m->transactions = 5;
    m->transaction_bytes = 160;
    m->efficiency_bytes = 160;
    m->requested_bytes = 128;
    m->lane_bytes = 128;
    cml_traffic *f = &rec->model[CML_RULES_FERMI].cls[cls];
    f->instructions = 1;
    f->requests = 1;
    f->sectors = 5;
    f->lines = 2;
    f->transactions = 2;
    f->transaction_bytes = 256;
    f->efficiency_bytes = 256;
    f->requested_bytes = 128;
    f->lane_bytes = 128;
}

static inline void set_aligned_load(cml_record *rec, int cls)
{
    rec->has_model = 1;
    for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
        cml_traffic *t = &rec->model[r].cls[cls];
        t->instructions = 1;
        t->requests = 1;
        t->sectors = 4;
        t->lines = 1;
        t->transactions = r == CML_RULES_MODERN ? 4 : 1;
        t->transaction_bytes = 128;
        t->efficiency_bytes = 128;
        t->requested_bytes = 128;
        t->lane_bytes = 128;
    }
}

static inline void set_shared(cml_record *rec, int cls, uint64_t wavefronts)
{
    rec->has_model = 1;
    for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
        cml_traffic *t = &rec->model[r].cls[cls];
        t->instructions = 1;
        t->requests = 1;
        t->wavefronts = wavefronts;
        t->ideal_wavefronts = 1;
        t->bank_conflicts = wavefronts - 1;
        t->requested_bytes = 128;
        t->lane_bytes = 128;
    }
}

static const char *const OFFSET_FINDING =
    "A start address that is not a multiple of 32 bytes makes each warp touch one more sector "
    "than it needs, so efficiency drops from 100% to 80% while the textbook rules predict 50%; "
    "this sentence is long on purpose so the table reporter has to wrap it.";

static inline void build_model_only(cml_results *r)
{
    cml_results_init(r);
    r->model_only = 1;
    snprintf(r->tool_version, sizeof r->tool_version, "0.1.0");
    snprintf(r->command_line, sizeof r->command_line, "cumemlab run read-offset --model-only");

    cml_record *a = cml_results_add(r, "read-offset", "offset=0 path=ca");
    cml_record_add_param(a, "offset", 0, "");
    cml_record_add_param(a, "path", 0, "ca");
    a->bytes_read = 4096;
    a->grid = 128;
    a->block = 256;
    set_aligned_load(a, CML_CLASS_GLOBAL_LD);
    cml_record_finding(a, "%s", OFFSET_FINDING);

    cml_record *b = cml_results_add(r, "read-offset", "offset=11 path=ca");
    cml_record_add_param(b, "offset", 11, "");
    cml_record_add_param(b, "path", 0, "ca");
    b->bytes_read = 4096;
    b->grid = 128;
    b->block = 256;
    set_misaligned_load(b, CML_CLASS_GLOBAL_LD);
    cml_record_finding(b, "%s", OFFSET_FINDING);

    cml_record *c = cml_results_add(r, "bank-conflicts", "stride=2");
    cml_record_add_param(c, "stride", 2, "");
    set_shared(c, CML_CLASS_SHARED_LD, 2);
    cml_record_finding(c, "Stride 2 puts two lanes in each bank: two wavefronts per request.");
}

#define FAILED_NOTE "kernel, \"crashed\"\nline2\\x\x01 caf\xc3\xa9"
#define WEIRD_VARIANT "copy \"a,b\"\tq\\z"

static inline void build_measured(cml_results *r)
{
    cml_results_init(r);
    snprintf(r->tool_version, sizeof r->tool_version, "0.1.0");
    snprintf(r->command_line, sizeof r->command_line, "cumemlab run copy --csv \"out, 1.csv\"");
    r->has_device = 1;
    cml_device_facts *d = &r->device;
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
    d->cc_major = 9;
    d->cc_minor = 0;
    d->sm_count = 132;
    d->warp_size = 32;
    d->l2_bytes = 50ull << 20;
    d->global_bytes = 80ull << 30;
    d->bus_width_bits = 5120;
    d->mem_clock_khz = 2619000;
    d->theoretical_gbs = 3352.32;
    d->ecc_enabled = 1;
    d->driver_version = 13000;
    d->runtime_version = 13000;
    r->peak_gbs = 3000.5;

    /* 0: measured, verified, with counters and a model for loads and stores. */
    cml_record *a = cml_results_add(r, "copy", WEIRD_VARIANT);
    a->bytes_read = 1u << 30;
    a->bytes_written = UINT64_MAX;
    a->grid = 4096;
    a->block = 256;
    a->occupancy = 0.75;
    a->measured = 1;
    a->timing.warmup = 3;
    a->timing.reps = 20;
    a->timing.median_ms = 0.5;
    a->timing.min_ms = 0.1;
    a->timing.max_ms = 0.625;
    a->timing.mean_ms = 0.51;
    a->timing.cv = 0.0123;
    a->bandwidth_gbs = 2500.4;
    a->peak_fraction = 0.8333;
    a->verify = CML_VERIFY_PASSED;
    set_misaligned_load(a, CML_CLASS_GLOBAL_LD);
    set_aligned_load(a, CML_CLASS_GLOBAL_ST);
    cml_record_add_extra(a, "pitch_bytes", 512, "B");
    a->ncounters = 3;
    snprintf(a->counters[0].name, sizeof a->counters[0].name, "l1tex__t_sectors_ld.sum");
    a->counters[0].measured = 5;
    a->counters[0].has_prediction = 1;
    a->counters[0].predicted = 5;
    snprintf(a->counters[1].name, sizeof a->counters[1].name, "l1tex__t_requests_st.sum");
    a->counters[1].measured = 3;
    a->counters[1].has_prediction = 1;
    a->counters[1].predicted = 2;
    snprintf(a->counters[2].name, sizeof a->counters[2].name, "dram__bytes_read.sum");
    a->counters[2].measured = 1073741824.0;
    a->counters[2].has_prediction = 0;
    cml_record_finding(a, "Copy \"with quotes\", commas and a bad byte \xff here.");

    /* 1: waived. */
    cml_record *b = cml_results_add(r, "copy", "tma");
    b->state = CML_REC_WAIVED;
    cml_record_note(b, "needs \"cc >= 9.0\", and this GPU is older");

    /* 2: failed, with an awkward note. */
    cml_record *c = cml_results_add(r, "copy", "vec4");
    c->state = CML_REC_FAILED;
    cml_record_note(c, "%s", FAILED_NOTE);

    /* 3: measured, but the output did not verify and the bandwidth is NaN. */
    cml_record *e = cml_results_add(r, "copy", "scalar");
    e->bytes_read = 1024;
    e->bytes_written = 1024;
    e->measured = 1;
    e->timing.reps = 5;
    e->timing.median_ms = 0.1;
    e->timing.min_ms = 0.1;
    e->timing.max_ms = 0.1;
    e->timing.mean_ms = 0.1;
    e->timing.cv = 0;
    e->bandwidth_gbs = NAN;
    e->verify = CML_VERIFY_FAILED;
    set_aligned_load(e, CML_CLASS_GLOBAL_LD);
}

/* A record with traffic in every class, measured: too wide for 130 columns
 * unless the reporter leaves some columns out. */
static inline void build_wide(cml_results *r)
{
    cml_results_init(r);
    cml_record *a = cml_results_add(r, "kitchen-sink", "everything at once");
    a->measured = 1;
    a->timing.reps = 10;
    a->timing.median_ms = 12.5;
    a->timing.cv = 0.01;
    a->bandwidth_gbs = 1234.5;
    a->peak_fraction = 0.5;
    a->verify = CML_VERIFY_PASSED;
    set_misaligned_load(a, CML_CLASS_GLOBAL_LD);
    set_misaligned_load(a, CML_CLASS_GLOBAL_ST);
    set_misaligned_load(a, CML_CLASS_LOCAL_LD);
    set_shared(a, CML_CLASS_SHARED_LD, 4);
    a->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD].instructions = 1;
    a->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD].requests = 1;
    a->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD].serialized = 3;
    a->model[CML_RULES_FERMI].cls[CML_CLASS_CONST_LD] =
        a->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD];
}


/* ---- reading the table's text ---------------------------------------- */

/* Left edge of needle in line, or -1. */
static inline long left_edge(const char *line, const char *needle)
{
    const char *p = strstr(line, needle);
    return p ? (long)(p - line) : -1;
}

/* The text after the summary the table leads with (the tables), or all
 * of it when there is no summary. */
static inline const char *after_summary(const char *text)
{
    const char *p = strstr(text, "\nSummary: ");
    const char *e = p ? strstr(p + 1, "\n\n") : NULL;
    return e ? e : text;
}

/* The line of text that contains needle (copied into line), or 0. */
static inline int line_with(const char *text, const char *needle, char *line, size_t len)
{
    const char *p = strstr(text, needle);
    if (!p)
        return 0;
    const char *b = p;
    while (b > text && b[-1] != '\n')
        b--;
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - b) : strlen(b);
    if (n >= len)
        n = len - 1;
    memcpy(line, b, n);
    line[n] = '\0';
    return 1;
}

/* Column just past the first occurrence of needle in line, or -1. */
static inline long right_edge(const char *line, const char *needle)
{
    const char *p = strstr(line, needle);
    return p ? (long)(p - line) + (long)strlen(needle) : -1;
}

/* Every line at most max display columns, no trailing spaces, no control
 * characters but newline. */
static inline void check_lines(const char *text, size_t max)
{
    size_t col = 0, line = 1, bad = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') {
            if (p > (const unsigned char *)text && p[-1] == ' ') {
                fprintf(stderr, "  line %zu ends in a space\n", line);
                bad++;
            }
            col = 0;
            line++;
            continue;
        }
        if (*p < 0x20 || *p == 0x7F) {
            fprintf(stderr, "  line %zu holds control character 0x%02x\n", line, *p);
            bad++;
        }
        if ((*p & 0xC0) != 0x80 && ++col == max + 1) {
            fprintf(stderr, "  line %zu wider than %zu columns\n", line, max);
            bad++;
        }
    }
    CHECK(bad == 0);
}

#endif
