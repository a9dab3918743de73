/*
 * Small pieces the three reporters share: number formatting that round-trips,
 * names for states and classes, and the ratios the model's traffic implies.
 * Computed here from cml_traffic fields directly, so the reporters do not
 * depend on the model library's implementation.
 */
#ifndef CML_REPORT_UTIL_H
#define CML_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

/* Enough for any double in the shortest round-trip form ("-1.2345678901234567e-308"). */
#define CML_NUM_BUF 40

/*
 * Format a finite double in the shortest form that strtod reads back to the
 * same value (trying 15, 16, then 17 significant digits), always with '.' as
 * the decimal point, in a form that is a valid JSON number. Returns 1, or 0
 * (and an empty buffer) when v is NaN or infinite.
 */
int cml_rep_fmt_double(char *buf, size_t len, double v);

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 if the bytes there are not one
 * (including a sequence cut short by the terminating NUL). */
size_t cml_rep_utf8_len(const unsigned char *s);

/* "ok", "waived", "failed". */
const char *cml_rep_state_name(cml_record_state s);
/* A record's name (experiment and variant) as a hash, and whether two
 * records have the same name: how runs are lined up record by record
 * (compare.c, fleet.c). */
uint64_t cml_rep_name_hash(const cml_record *r);
int cml_rep_same_name(const cml_record *x, const cml_record *y);
/* "passed", "failed", "not_run". */
const char *cml_rep_verify_name(cml_verify v);
/* "modern", "fermi". */
const char *cml_rep_rules_name(int rules);
/* "global_ld", "global_st", "local_ld", "local_st", "shared_ld", "shared_st", "const_ld". */
const char *cml_rep_class_name(int cls);

/* requests if any, else instructions: the denominator of the per-request ratios. */
uint64_t cml_rep_requests(const cml_traffic *t);
/* Each ratio writes *out and returns 1, or returns 0 when the denominator is 0. */
int cml_rep_sectors_per_request(const cml_traffic *t, double *out);
int cml_rep_transactions_per_request(const cml_traffic *t, double *out);
int cml_rep_wavefronts_per_request(const cml_traffic *t, double *out);
int cml_rep_serialized_per_request(const cml_traffic *t, double *out);
/* requested_bytes / efficiency_bytes, a fraction in [0, 1]. */
int cml_rep_efficiency(const cml_traffic *t, double *out);
/* 100 * part / whole when both are finite and positive and the share is a
 * finite number (a results file may hold 5e-324 or 1.8e308); else 0. */
int cml_rep_percent_of(double part, double whole, double *out);

/* 1 if the record carries a model prediction with instructions in class cls
 * under either rule set. */
int cml_rep_class_has_traffic(const cml_record *rec, int cls);

/* 1 if measured and predicted agree to one part in a million (counters are
 * counts: in practice this means equal). 0 if either is not finite. */
int cml_rep_counter_agrees(double measured, double predicted);

/*
 * A counter's short label, from its ncu metric name: "ld.sectors",
 * "st.requests", "ld.eff" (global), "lld.", "lst." (local), "sld.", "sst."
 * (shared, "wavefronts" and "bank_conflicts"), "ld.inst", "sld.inst",
 * "L1hit", "L2rd", "L2wr", "DRAMrd", "DRAMwr", the L2 read misses of
 * every unit, the GPCs and forwarded ones "L2miss.all", ".gpc", ".fwd";
 * any other name unchanged.
 */
void cml_rep_counter_label(const char *metric, char *buf, size_t len);

/* A counter's value for reading: percentages (".pct") with two decimals and
 * '%', byte counts in MiB ("12.50MiB"), other counts as integers. */
void cml_rep_counter_value(const char *metric, double v, char *buf, size_t len);

/*
 * One record's counters on one line, for tables: the verdict over those
 * with a prediction ("= 6 of 6 agree" / "!= 1 of 6 differ"; nothing when
 * none has one), then each predicted counter as "label measured", with
 * " [model X]" where it disagrees, then "|" and the counters the model has
 * no figure for. Empty when the record has no counters.
 */
void cml_rep_counters_line(const cml_record *rec, char *buf, size_t len);

/*
 * A record's cache levels on one line, for tables: "L1hit 0, L2rd 4.19M,
 * L2wr 2.10M, DRAMrd 128.00MiB, DRAMwr 52.33MiB [47.33MiB, 64.00MiB]",
 * each figure's interval [lo, hi] after it where that is not a point
 * (docs/model.md §16.8). Empty when the record has no levels.
 */
void cml_rep_levels_line(const cml_record *rec, char *buf, size_t len);
/* 1 when some figure of rec's levels has an interval that is not a point. */
int cml_rep_levels_wide(const cml_record *rec);

/*
 * A record's finding as the reporters show it. Files written by cumemlab
 * 0.1.0 held at most CML_REP_FINDING_V1_MAX bytes of a finding and cut a
 * longer one there, mid-word; a finding of exactly that length that does
 * not end a sentence is such a cut: shown up to its last whole word, and
 * the function returns 1 (the caller marks it: "..." in text, an ellipsis
 * with an explanation in HTML). Otherwise the text unchanged, 0.
 */
#define CML_REP_FINDING_V1_MAX 383
int cml_rep_finding_text(const char *finding, char *buf, size_t len);

#endif
