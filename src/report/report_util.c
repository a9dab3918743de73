/* Shared helpers of the reporters: round-trip numbers, names, traffic ratios. */
#include "report/report_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * %.15g is exact for most values people type (0.1 stays "0.1"); when it does
 * not read back bit for bit, 16 and then 17 digits do (17 always suffices for
 * IEEE double). A locale with a decimal comma would make "%g" write ','; the
 * round-trip check runs with that same locale, then ',' becomes '.'.
 */
int cml_rep_fmt_double(char *buf, size_t len, double v)
{
    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (!isfinite(v))
        return 0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            break;
    }
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    return 1;
}

/*
 * Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 if the bytes there are not one.
 */
size_t cml_rep_utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2; min = 0x80; cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3; min = 0x800; cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4; min = 0x10000; cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

const char *cml_rep_state_name(cml_record_state s)
{
    switch (s) {
    case CML_REC_OK: return "ok";
    case CML_REC_WAIVED: return "waived";
    case CML_REC_FAILED: return "failed";
    }
    return "failed";
}

const char *cml_rep_verify_name(cml_verify v)
{
    switch (v) {
    case CML_VERIFY_NONE: return "not_run";
    case CML_VERIFY_PASSED: return "passed";
    case CML_VERIFY_FAILED: return "failed";
    }
    return "not_run";
}

const char *cml_rep_rules_name(int rules)
{
    return rules == CML_RULES_FERMI ? "fermi" : "modern";
}

/* Same spelling as cml_class_name() in the model, kept here so the reporters
 * do not need the model library's tables. */
const char *cml_rep_class_name(int cls)
{
    static const char *const names[CML_CLASS_COUNT] = {
        "global_ld", "global_st", "local_ld", "local_st", "shared_ld", "shared_st", "const_ld",
    };
    if (cls < 0 || cls >= (int)CML_CLASS_COUNT)
        return "unknown";
    return names[cls];
}

uint64_t cml_rep_requests(const cml_traffic *t)
{
    return t->requests ? t->requests : t->instructions;
}

/* num / den as a double; 0 when den is 0 (nothing to divide by). */
static int ratio(uint64_t num, uint64_t den, double *out)
{
    if (den == 0)
        return 0;
    *out = (double)num / (double)den;
    return 1;
}

int cml_rep_sectors_per_request(const cml_traffic *t, double *out)
{
    return ratio(t->sectors, cml_rep_requests(t), out);
}

int cml_rep_transactions_per_request(const cml_traffic *t, double *out)
{
    return ratio(t->transactions, cml_rep_requests(t), out);
}

int cml_rep_wavefronts_per_request(const cml_traffic *t, double *out)
{
    return ratio(t->wavefronts, cml_rep_requests(t), out);
}

int cml_rep_serialized_per_request(const cml_traffic *t, double *out)
{
    return ratio(t->serialized, cml_rep_requests(t), out);
}

int cml_rep_efficiency(const cml_traffic *t, double *out)
{
    return ratio(t->requested_bytes, t->efficiency_bytes, out);
}

int cml_rep_percent_of(double part, double whole, double *out)
{
    if (!(isfinite(part) && isfinite(whole) && part > 0 && whole > 0))
        return 0;
    double pct = 100.0 * (part / whole);
    if (!isfinite(pct))
        return 0;
    *out = pct;
    return 1;
}

int cml_rep_class_has_traffic(const cml_record *rec, int cls)
{
    if (!rec->has_model || cls < 0 || cls >= (int)CML_CLASS_COUNT)
        return 0;
    for (int r = 0; r < (int)CML_RULES_COUNT; r++)
        if (rec->model[r].cls[cls].instructions)
            return 1;
    return 0;
}

int cml_rep_counter_agrees(double measured, double predicted)
{
    if (!isfinite(measured) || !isfinite(predicted))
        return 0;
    double d = fabs(measured - predicted);
    double scale = fmax(fabs(measured), fabs(predicted));
    return d <= 1e-6 * scale + 1e-9;
}

void cml_rep_counter_label(const char *metric, char *buf, size_t len)
{
    static const struct { const char *has, *label; } fixed[] = {
        {"inst_executed_op_global_ld", "ld.inst"},
        {"inst_executed_op_global_st", "st.inst"},
        {"inst_executed_op_shared_ld", "sld.inst"},
        {"inst_executed_op_shared_st", "sst.inst"},
        {"_op_ld_lookup_hit", "L1hit"},
        {"srcunit_tex_op_read_lookup_hit", "L2hit"},
        {"lts__t_sectors_srcunit_tex_op_read", "L2rd"},
        {"lts__t_sectors_srcunit_tex_op_write", "L2wr"},
        {"dram__bytes_read", "DRAMrd"},
        {"dram__bytes_write", "DRAMwr"},
        /* L2 read misses by who asked (counter_map.h): before "all", whose
         * name the GPCs' holds. */
        {"srcnode_gpc_aperture_device_op_read_lookup_miss", "L2miss.gpc"},
        {"srcunit_ltcfabric_op_read_lookup_miss", "L2miss.fwd"},
        {"lts__t_sectors_aperture_device_op_read_lookup_miss", "L2miss.all"},
    };
    static const struct { const char *has, *prefix; } space[] = {
        {"mem_global_op_ld", "ld"}, {"mem_global_op_st", "st"},
        {"mem_local_op_ld", "lld"}, {"mem_local_op_st", "lst"},
        {"mem_shared_op_ld", "sld"}, {"mem_shared_op_st", "sst"},
    };
    static const struct { const char *has, *field; } field[] = {
        {"t_requests", "requests"}, {"t_sectors", "sectors"},
        {"average_data_bytes_per_sector", "eff"}, {"wavefronts", "wavefronts"},
        {"bank_conflicts", "bank_conflicts"},
    };
    if (!buf || !len)
        return;
    snprintf(buf, len, "%s", metric ? metric : "");
    if (!metric)
        return;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strstr(metric, fixed[i].has)) {
            snprintf(buf, len, "%s", fixed[i].label);
            return;
        }
    for (size_t i = 0; i < sizeof space / sizeof space[0]; i++) {
        if (!strstr(metric, space[i].has))
            continue;
        for (size_t k = 0; k < sizeof field / sizeof field[0]; k++)
            if (strstr(metric, field[k].has)) {
                snprintf(buf, len, "%s.%s", space[i].prefix, field[k].field);
                return;
            }
    }
}

void cml_rep_counter_value(const char *metric, double v, char *buf, size_t len)
{
    size_t n = metric ? strlen(metric) : 0;
    if (n >= 4 && !strcmp(metric + n - 4, ".pct"))
        snprintf(buf, len, "%.2f%%", v);
    else if (metric && strstr(metric, "bytes"))
        snprintf(buf, len, "%.2fMiB", v / 1048576.0);
    else if (fabs(v - floor(v)) < 1e-9 || fabs(v) >= 1e6)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.2f", v);
}

/* Append "sep label value[ [model X]]" to buf at *used. */
static void append_counter(char *buf, size_t len, size_t *used, const char *sep,
                           const cml_counter *c, int with_model)
{
    char label[64], mv[32], pv[32];
    cml_rep_counter_label(c->name, label, sizeof label);
    cml_rep_counter_value(c->name, c->measured, mv, sizeof mv);
    pv[0] = '\0';
    if (with_model)
        cml_rep_counter_value(c->name, c->predicted, pv, sizeof pv);
    if (*used >= len)
        return;
    int w = snprintf(buf + *used, len - *used, "%s%s %s%s%s%s", sep, label, mv,
                     with_model ? " [model " : "", pv, with_model ? "]" : "");
    if (w > 0)
        *used += (size_t)w < len - *used ? (size_t)w : len - *used - 1;
}

void cml_rep_counters_line(const cml_record *rec, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    buf[0] = '\0';
    unsigned nc = rec->ncounters < CML_RECORD_MAX_COUNTERS ? rec->ncounters
                                                           : CML_RECORD_MAX_COUNTERS;
    unsigned predicted = 0, differ = 0;
    for (unsigned k = 0; k < nc; k++) {
        predicted += rec->counters[k].has_prediction != 0;
        differ += rec->counters[k].has_prediction &&
                  !cml_rep_counter_agrees(rec->counters[k].measured, rec->counters[k].predicted);
    }
    size_t used = 0;
    if (predicted) {
        int w = differ ? snprintf(buf, len, "!= %u of %u differ:", differ, predicted)
                       : snprintf(buf, len, "= %u of %u agree:", predicted, predicted);
        used = w > 0 && (size_t)w < len ? (size_t)w : len - 1;
    }
    int first = 1;
    for (unsigned k = 0; k < nc; k++) {
        const cml_counter *c = &rec->counters[k];
        if (!c->has_prediction)
            continue;
        append_counter(buf, len, &used, first ? (used ? " " : "") : ", ", c,
                       !cml_rep_counter_agrees(c->measured, c->predicted));
        first = 0;
    }
    int info = 1;
    for (unsigned k = 0; k < nc; k++) {
        const cml_counter *c = &rec->counters[k];
        if (c->has_prediction)
            continue;
        append_counter(buf, len, &used, info ? (used ? " | " : "") : ", ", c, 0);
        info = 0;
    }
}

/* A count for a table cell: whole below 10,000, else three figures and
 * k, M or G ("4.19M"). */
static void compact_count(uint64_t v, char *buf, size_t len)
{
    static const char suffix[] = "kMG";
    double x = (double)v;
    unsigned i = 0;
    if (v < 10000u) {
        snprintf(buf, len, "%llu", (unsigned long long)v);
        return;
    }
    for (x /= 1000.0; x >= 1000.0 && i + 1u < sizeof suffix - 1u; i++)
        x /= 1000.0;
    snprintf(buf, len, "%.*f%c", x < 10.0 ? 2 : x < 100.0 ? 1 : 0, x, suffix[i]);
}

static void level_value(unsigned fig, uint64_t v, char *buf, size_t len)
{
    const char *name = cml_level_figure_name(fig);
    if (strstr(name, "bytes"))
        cml_rep_counter_value(name, (double)v, buf, len);
    else
        compact_count(v, buf, len);
}

int cml_rep_levels_wide(const cml_record *rec)
{
    if (!rec->has_levels || !rec->levels.bounded)
        return 0;
    uint64_t lo[CML_LEVEL_FIGURES], hi[CML_LEVEL_FIGURES];
    cml_level_bounds_get(&rec->levels.lo, lo);
    cml_level_bounds_get(&rec->levels.hi, hi);
    for (unsigned i = 0; i < CML_LEVEL_FIGURES; i++)
        if (lo[i] != hi[i])
            return 1;
    return 0;
}

void cml_rep_levels_line(const cml_record *rec, char *buf, size_t len)
{
    /* The counter labels (cml_rep_counter_label), in cml_level_bounds order. */
    static const char *const label[CML_LEVEL_FIGURES] = {"L1hit", "L2rd", "L2wr", "DRAMrd",
                                                         "DRAMwr"};
    if (!buf || !len)
        return;
    buf[0] = '\0';
    if (!rec->has_levels)
        return;
    cml_level_bounds val;
    uint64_t v[CML_LEVEL_FIGURES], lo[CML_LEVEL_FIGURES], hi[CML_LEVEL_FIGURES];
    cml_levels_values(&rec->levels, &val);
    cml_level_bounds_get(&val, v);
    cml_level_bounds_get(&rec->levels.lo, lo);
    cml_level_bounds_get(&rec->levels.hi, hi);
    size_t used = 0;
    for (unsigned i = 0; i < CML_LEVEL_FIGURES && used < len; i++) {
        char pv[32], lv[32] = "", hv[32] = "";
        level_value(i, v[i], pv, sizeof pv);
        const int range = rec->levels.bounded && lo[i] != hi[i];
        if (range) {
            level_value(i, lo[i], lv, sizeof lv);
            level_value(i, hi[i], hv, sizeof hv);
        }
        int w = snprintf(buf + used, len - used, "%s%s %s%s%s%s%s%s", i ? ", " : "", label[i],
                         pv, range ? " [" : "", lv, range ? ", " : "", hv, range ? "]" : "");
        if (w > 0)
            used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
}

int cml_rep_finding_text(const char *finding, char *buf, size_t len)
{
    if (!len)
        return 0;
    size_t n = strlen(finding);
    int cut = n == CML_REP_FINDING_V1_MAX && !strchr(".!?)\"'", finding[n - 1]);
    if (cut) {
        const char *sp = strrchr(finding, ' ');
        n = sp ? (size_t)(sp - finding) : 0;
        while (n > 0 && strchr(" ,;:(", finding[n - 1]))
            n--;
    }
    if (n >= len)
        n = len - 1;
    memcpy(buf, finding, n);
    buf[n] = '\0';
    return cut;
}

/* FNV-1a over experiment and variant. */
uint64_t cml_rep_name_hash(const cml_record *r)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = r->experiment; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    h = (h ^ 0xFF) * 0x100000001b3ull; /* a byte no name holds between the two */
    for (const char *s = r->variant; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

int cml_rep_same_name(const cml_record *x, const cml_record *y)
{
    return strcmp(x->experiment, y->experiment) == 0 && strcmp(x->variant, y->variant) == 0;
}
