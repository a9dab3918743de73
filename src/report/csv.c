/*
 * CSV reporter: a fixed header, one row per record, RFC 4180 quoting (a field
 * holding a comma, a quote, CR or LF is quoted and its quotes doubled). Rows
 * end with LF. A value that is unknown is an empty cell, never 0. The columns
 * are documented in docs/json-schema.md ("CSV").
 */
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

#include "report/report_util.h"

/* The model columns, per rule set; `what` picks the figure. */
enum csv_fig { FIG_REQUESTS, FIG_SECTORS, FIG_TRANSACTIONS, FIG_EFFICIENCY, FIG_WAVEFRONTS,
               FIG_CONFLICTS, FIG_SERIALIZED };

static const struct csv_model_col {
    int cls;
    enum csv_fig fig;
    const char *name;
} model_cols[] = {
    { CML_CLASS_GLOBAL_LD, FIG_REQUESTS, "global_ld_requests" },
    { CML_CLASS_GLOBAL_LD, FIG_SECTORS, "global_ld_sectors" },
    { CML_CLASS_GLOBAL_LD, FIG_TRANSACTIONS, "global_ld_transactions" },
    { CML_CLASS_GLOBAL_LD, FIG_EFFICIENCY, "global_ld_efficiency" },
    { CML_CLASS_GLOBAL_ST, FIG_REQUESTS, "global_st_requests" },
    { CML_CLASS_GLOBAL_ST, FIG_SECTORS, "global_st_sectors" },
    { CML_CLASS_GLOBAL_ST, FIG_TRANSACTIONS, "global_st_transactions" },
    { CML_CLASS_GLOBAL_ST, FIG_EFFICIENCY, "global_st_efficiency" },
    { CML_CLASS_SHARED_LD, FIG_WAVEFRONTS, "shared_ld_wavefronts" },
    { CML_CLASS_SHARED_LD, FIG_CONFLICTS, "shared_ld_conflicts" },
    { CML_CLASS_SHARED_ST, FIG_WAVEFRONTS, "shared_st_wavefronts" },
    { CML_CLASS_SHARED_ST, FIG_CONFLICTS, "shared_st_conflicts" },
    { CML_CLASS_CONST_LD, FIG_SERIALIZED, "const_serialized" },
    { CML_CLASS_LOCAL_LD, FIG_SECTORS, "local_ld_sectors" },
    { CML_CLASS_LOCAL_ST, FIG_SECTORS, "local_st_sectors" },
};
#define N_MODEL_COLS (sizeof model_cols / sizeof model_cols[0])

/* Write one field, quoted only when it must be. */
void cml_csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void field_str(FILE *out, const char *s) { cml_csv_field(out, s); }

static void sep(FILE *out) { fputc(',', out); }

static void field_u64(FILE *out, uint64_t v)
{
    fprintf(out, "%" PRIu64, v);
}

/* A double, or an empty cell when it is not finite. */
void cml_csv_double(FILE *out, double v)
{
    char buf[CML_NUM_BUF];
    if (cml_rep_fmt_double(buf, sizeof buf, v))
        fputs(buf, out);
}

static void field_double(FILE *out, double v) { cml_csv_double(out, v); }

/* A double that is unknown when negative. */
static void field_nonneg(FILE *out, double v)
{
    if (v >= 0)
        field_double(out, v);
}

/* "name=value;name=value", value = label for enumerated parameters. */
static void field_params(FILE *out, const cml_record *rec)
{
    char buf[CML_RECORD_MAX_PARAMS * 80];
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < rec->nparams && i < CML_RECORD_MAX_PARAMS; i++) {
        const cml_record_param *p = &rec->params[i];
        int w;
        if (p->label[0])
            w = snprintf(buf + n, sizeof buf - n, "%s%s=%s", i ? ";" : "", p->name, p->label);
        else
            w = snprintf(buf + n, sizeof buf - n, "%s%s=%" PRId64, i ? ";" : "", p->name,
                         p->value);
        if (w < 0 || (size_t)w >= sizeof buf - n)
            break; /* cannot happen: the buffer holds every name and label */
        n += (size_t)w;
    }
    field_str(out, buf);
}

/* "name=measured/predicted;..." (predicted empty when there is none). */
static void field_counters(FILE *out, const cml_record *rec)
{
    char buf[CML_RECORD_MAX_COUNTERS * (96 + 2 * CML_NUM_BUF + 4)];
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < rec->ncounters && i < CML_RECORD_MAX_COUNTERS; i++) {
        const cml_counter *c = &rec->counters[i];
        char m[CML_NUM_BUF], p[CML_NUM_BUF];
        cml_rep_fmt_double(m, sizeof m, c->measured);
        p[0] = '\0';
        if (c->has_prediction)
            cml_rep_fmt_double(p, sizeof p, c->predicted);
        int w = snprintf(buf + n, sizeof buf - n, "%s%s=%s/%s", i ? ";" : "", c->name, m, p);
        if (w < 0 || (size_t)w >= sizeof buf - n)
            break;
        n += (size_t)w;
    }
    field_str(out, buf);
}

static void field_model(FILE *out, const cml_record *rec, int rules, const struct csv_model_col *mc)
{
    if (!rec->has_model)
        return;
    const cml_traffic *t = &rec->model[rules].cls[mc->cls];
    double v;
    switch (mc->fig) {
    case FIG_REQUESTS: field_u64(out, cml_rep_requests(t)); break;
    case FIG_SECTORS: field_u64(out, t->sectors); break;
    case FIG_TRANSACTIONS: field_u64(out, t->transactions); break;
    case FIG_EFFICIENCY:
        if (cml_rep_efficiency(t, &v))
            field_double(out, v);
        break;
    case FIG_WAVEFRONTS: field_u64(out, t->wavefronts); break;
    case FIG_CONFLICTS: field_u64(out, t->bank_conflicts); break;
    case FIG_SERIALIZED: field_u64(out, t->serialized); break;
    }
}

static void write_header(FILE *out)
{
    fputs("experiment,variant,state,note,params,bytes_read,bytes_written,grid,block,occupancy,"
          "reps,median_ms,min_ms,max_ms,cv,bandwidth_gbs,peak_fraction,verify", out);
    for (int r = 0; r < (int)CML_RULES_COUNT; r++)
        for (size_t k = 0; k < N_MODEL_COLS; k++)
            fprintf(out, ",%s_%s", cml_rep_rules_name(r), model_cols[k].name);
    fputs(",counters,finding\n", out);
}

static void write_row(FILE *out, const cml_record *rec)
{
    field_str(out, rec->experiment);
    sep(out); field_str(out, rec->variant);
    sep(out); field_str(out, cml_rep_state_name(rec->state));
    sep(out); field_str(out, rec->note);
    sep(out); field_params(out, rec);
    sep(out); field_u64(out, rec->bytes_read);
    sep(out); field_u64(out, rec->bytes_written);
    sep(out); field_u64(out, rec->grid);
    sep(out); field_u64(out, rec->block);
    sep(out); field_nonneg(out, rec->occupancy);
    if (rec->measured) {
        sep(out); field_u64(out, rec->timing.reps);
        sep(out); field_double(out, rec->timing.median_ms);
        sep(out); field_double(out, rec->timing.min_ms);
        sep(out); field_double(out, rec->timing.max_ms);
        sep(out); field_double(out, rec->timing.cv);
        sep(out); field_double(out, rec->bandwidth_gbs);
        sep(out); field_nonneg(out, rec->peak_fraction);
    } else {
        fputs(",,,,,,,", out);
    }
    sep(out); field_str(out, cml_rep_verify_name(rec->verify));
    for (int r = 0; r < (int)CML_RULES_COUNT; r++)
        for (size_t k = 0; k < N_MODEL_COLS; k++) {
            sep(out);
            field_model(out, rec, r, &model_cols[k]);
        }
    sep(out); field_counters(out, rec);
    sep(out); field_str(out, rec->finding);
    fputc('\n', out);
}

/* Header plus one row per record; CML_EIO if the stream failed. */
cml_status cml_report_csv(FILE *out, const cml_results *r)
{
    write_header(out);
    for (size_t i = 0; i < r->count; i++)
        write_row(out, &r->items[i]);
    if (fflush(out) != 0 || ferror(out))
        return CML_EIO;
    return CML_OK;
}
