/*
 * The figures the report's charts take from each record (record_metrics.h):
 * a number per record, NAN when the record does not have it.
 */
#include "report/record_metrics.h"

#include <math.h>
#include <string.h>

#include "report/report_util.h"

static int is_ok(const cml_record *rec) { return rec->state == CML_REC_OK; }

static double m_bandwidth(const cml_record *rec)
{
    if (!is_ok(rec) || !rec->measured || !isfinite(rec->bandwidth_gbs) ||
        cml_rep_latency(rec, NULL, NULL))
        return NAN; /* a latency record's bytes are a few pointers' */
    return rec->bandwidth_gbs;
}

static double m_time_us(const cml_record *rec)
{
    if (!is_ok(rec) || !rec->measured || !isfinite(rec->timing.median_ms))
        return NAN;
    return rec->timing.median_ms * 1e3;
}

/* The global class (loads or stores) with the lower modern efficiency: the
 * access an offset, stride or layout experiment is about. -1 if none. */
static int worst_global(const cml_record *rec)
{
    if (!rec->has_model)
        return -1;
    int best = -1;
    double worst = INFINITY;
    for (int c = CML_CLASS_GLOBAL_LD; c <= CML_CLASS_GLOBAL_ST; c++) {
        double e;
        if (!rec->model[CML_RULES_MODERN].cls[c].instructions ||
            !cml_rep_efficiency(&rec->model[CML_RULES_MODERN].cls[c], &e))
            continue;
        if (e < worst) {
            worst = e;
            best = c;
        }
    }
    return best;
}

static double class_eff(const cml_record *rec, int rules, int c)
{
    double e;
    if (c < 0 || !rec->model[rules].cls[c].instructions ||
        !cml_rep_efficiency(&rec->model[rules].cls[c], &e))
        return NAN;
    return 100.0 * e;
}

static double m_spr_modern(const cml_record *rec)
{
    int c = worst_global(rec);
    double v;
    if (c < 0 || !cml_rep_sectors_per_request(&rec->model[CML_RULES_MODERN].cls[c], &v))
        return NAN;
    return v;
}

static int class_index(const char *name)
{
    for (int c = 0; c < (int)CML_CLASS_COUNT; c++)
        if (strcmp(cml_rep_class_name(c), name) == 0)
            return c;
    return -1;
}

/* arg: a class name; sectors per request under the modern rules. */
static double m_class_spr(const cml_record *rec, const char *arg)
{
    int c = arg ? class_index(arg) : -1;
    double v;
    if (c < 0 || !rec->has_model || !rec->model[CML_RULES_MODERN].cls[c].instructions ||
        !cml_rep_sectors_per_request(&rec->model[CML_RULES_MODERN].cls[c], &v))
        return NAN;
    return v;
}

/* Shared memory: the load class, else the store class. */
static const cml_traffic *shared_traffic(const cml_record *rec)
{
    if (!rec->has_model)
        return NULL;
    const cml_traffic *t = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_LD];
    if (t->instructions)
        return t;
    t = &rec->model[CML_RULES_MODERN].cls[CML_CLASS_SHARED_ST];
    return t->instructions ? t : NULL;
}

static double m_shared_conflicts(const cml_record *rec)
{
    const cml_traffic *t = shared_traffic(rec);
    if (!t || !cml_rep_requests(t))
        return NAN;
    return (double)t->bank_conflicts / (double)cml_rep_requests(t);
}

static double m_shared_wavefronts(const cml_record *rec)
{
    const cml_traffic *t = shared_traffic(rec);
    double v;
    if (!t || !cml_rep_wavefronts_per_request(t, &v))
        return NAN;
    return v;
}

static double m_const_serialized(const cml_record *rec)
{
    double v;
    if (!rec->has_model ||
        !rec->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD].instructions ||
        !cml_rep_serialized_per_request(&rec->model[CML_RULES_MODERN].cls[CML_CLASS_CONST_LD], &v))
        return NAN;
    return v;
}

unsigned cml_rep_nextra(const cml_record *rec)
{
    const unsigned room = (unsigned)(sizeof rec->extra / sizeof rec->extra[0]);
    return rec->nextra < room ? rec->nextra : room;
}

static double m_extra(const cml_record *rec, const char *arg)
{
    if (!is_ok(rec) || !arg)
        return NAN;
    for (unsigned i = 0; i < cml_rep_nextra(rec); i++)
        if (strcmp(rec->extra[i].name, arg) == 0)
            return isfinite(rec->extra[i].value) ? rec->extra[i].value : NAN;
    return NAN;
}

/* Occupancy in percent: the measured launch's, else the model's figure. */
static double m_occupancy(const cml_record *rec)
{
    if (!is_ok(rec))
        return NAN;
    if (rec->occupancy >= 0 && isfinite(rec->occupancy))
        return 100.0 * rec->occupancy;
    double v = m_extra(rec, "model_occupancy");
    return isfinite(v) ? 100.0 * v : NAN;
}

double cml_rep_metric(const cml_record *rec, cml_metric_id id, const char *arg)
{
    switch (id) {
    case CML_METRIC_NONE: return NAN;
    case CML_METRIC_BANDWIDTH: return m_bandwidth(rec);
    case CML_METRIC_TIME_US: return m_time_us(rec);
    case CML_METRIC_EFF_MODERN: return class_eff(rec, CML_RULES_MODERN, worst_global(rec));
    case CML_METRIC_EFF_FERMI: return class_eff(rec, CML_RULES_FERMI, worst_global(rec));
    case CML_METRIC_SPR_MODERN: return m_spr_modern(rec);
    case CML_METRIC_CLASS_SPR: return m_class_spr(rec, arg);
    case CML_METRIC_SHARED_CONFLICTS: return m_shared_conflicts(rec);
    case CML_METRIC_SHARED_WAVEFRONTS: return m_shared_wavefronts(rec);
    case CML_METRIC_CONST_SERIALIZED: return m_const_serialized(rec);
    case CML_METRIC_EXTRA: return m_extra(rec, arg);
    case CML_METRIC_OCCUPANCY: return m_occupancy(rec);
    }
    return NAN;
}

int cml_rep_latency(const cml_record *rec, double *cycles, double *ns)
{
    const double c = cml_record_extra(rec, "cycles_per_load", NAN);
    const double t = cml_record_extra(rec, "ns_per_load", NAN);
    if (cycles)
        *cycles = c;
    if (ns)
        *ns = t;
    return !isnan(c) || !isnan(t);
}
