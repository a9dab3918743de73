/*
 * The fleet's comparison (fleet.h) on the terminal, as CSV and as JSON
 * (schema "cumemlab-fleet-comparison", docs/json-schema.md).
 *
 * The terminal's first screen is the summary: the GPUs and their groups,
 * then the outliers, each with what points at a cause (how many bandwidth
 * figures, the median deviation, the experiments, the counters that
 * differ, the clocks and temperatures beside the group's, a driver that
 * differs), or the line saying there is none; the failed runs with their
 * diagnostics; then a line per experiment.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/fleet.h"
#include "report/json_writer.h"
#include "report/report.h"

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

/* "SM 1980 / mem 2619 MHz, 31 C, 71 W" of a state; "not known" when absent. */
static void state_text(char *buf, size_t len, const cml_fleet_gpu_state *s)
{
    if (!s->known) {
        snprintf(buf, len, "not known");
        return;
    }
    char sm[16] = "?", mem[16] = "?", temp[24] = "", pw[24] = "";
    if (s->sm_clock_mhz >= 0)
        snprintf(sm, sizeof sm, "%d", s->sm_clock_mhz);
    if (s->mem_clock_mhz >= 0)
        snprintf(mem, sizeof mem, "%d", s->mem_clock_mhz);
    if (s->temperature_c > -1000)
        snprintf(temp, sizeof temp, ", %d C", s->temperature_c);
    if (isfinite(s->power_w))
        snprintf(pw, sizeof pw, ", %.0f W", s->power_w);
    snprintf(buf, len, "SM %s / mem %s MHz%s%s%s%s%s", sm, mem, temp, pw,
             s->reasons[0] && strcmp(s->reasons, "none") ? " (" : "",
             strcmp(s->reasons, "none") ? s->reasons : "",
             s->reasons[0] && strcmp(s->reasons, "none") ? ")" : "");
}

static const char *exit_text(char *buf, size_t len, const cml_fleet_run *run)
{
    if (run->exit_status < 0)
        snprintf(buf, len, "-");
    else if (run->exit_status > 128)
        snprintf(buf, len, "signal %d", run->exit_status - 128);
    else
        snprintf(buf, len, "exit %d", run->exit_status);
    return buf;
}

/* The one screen of summary. */
static void summary(FILE *out, const cml_fleet *f)
{
    const cml_fleet_runs *runs = f->runs;
    fprintf(out, "Fleet: %zu GPU%s", f->ngpus, plural(f->ngpus));
    if (runs->fleet_files)
        fprintf(out, " (%zu fleet file%s%s%s)", runs->fleet_files, plural(runs->fleet_files),
                runs->launcher[0] ? ", launched by " : "", runs->launcher);
    fprintf(out, ", %zu model%s (each GPU compared with the others of its model); threshold "
                 "%g%% on speed (bandwidth, latency), any difference in an exact counter\n",
            f->ngroups, plural(f->ngroups), f->threshold);
    for (size_t k = 0; k < f->ngroups; k++) {
        const cml_fleet_group *g = &f->groups[k];
        fprintf(out, "  %s: %zu GPU%s", g->model, g->n, plural(g->n));
        if (g->n < 2)
            fprintf(out, ": no other %s to compare with\n", g->model);
        else
            fprintf(out, ", %zu figures compared%s%s%s\n", g->nrows,
                    g->n == 2 ? " (two GPUs: the reference is the faster)" : "",
                    g->driver[0] ? ", driver " : "", g->driver);
    }
    for (size_t i = 0; i < f->ngpus; i++) {
        const cml_fleet_gpu *g = &f->gpus[i];
        char ex[24];
        fprintf(out, "  %s%s%s%s%s\n", g->label, g->run->exit_status > 0 ? " (" : "",
                g->run->exit_status > 0 ? exit_text(ex, sizeof ex, g->run) : "",
                g->run->exit_status > 0 ? ")" : "",
                g->failed ? ": no results" : g->outlier ? ": OUTLIER" : "");
    }
    size_t flagged = 0;
    for (size_t i = 0; i < f->ngpus; i++)
        flagged += f->gpus[i].speed_flagged + f->gpus[i].ctr_flagged;
    if (f->noutliers == 0 && flagged == 0) {
        fprintf(out, "No outlier: every figure within %g%% of the fleet's median or inside its "
                     "own spread, every exact counter the same\n",
                f->threshold);
    } else if (f->noutliers == 0) {
        fprintf(out, "No outlier: %zu speed figure%s flagged (below, per experiment); no GPU "
                     "has more than the other GPUs' rate explains (a chance below 0.1%%)\n",
                flagged, plural(flagged));
    } else {
        fprintf(out, "%zu outlier%s:\n", f->noutliers, plural(f->noutliers));
    }
    for (size_t i = 0; i < f->ngpus; i++) {
        const cml_fleet_gpu *g = &f->gpus[i];
        if (!g->outlier)
            continue;
        const cml_fleet_group *grp = &f->groups[g->group];
        fprintf(out, "  %s:\n", g->label);
        if (g->speed_flagged)
            fprintf(out, "    %zu of %zu speed figures flagged (%zu slower, %zu faster), "
                         "median %+.1f%%, in %s; a chance of %.2g at the other GPUs' rate "
                         "(%g)\n",
                    g->speed_flagged, g->speed_compared, g->speed_slower, g->speed_faster,
                    100 * g->median_flagged, g->experiments, g->chance, g->others_flagged);
        else
            fprintf(out, "    no speed figure flagged (of %zu)\n", g->speed_compared);
        if (g->ctr_flagged)
            fprintf(out, "    %zu of %zu exact counters differ from the group's: %s\n",
                    g->ctr_flagged, g->ctr_compared, g->counters);
        const cml_fleet_run *run = g->run;
        if (run->has_gpu && (run->gpu.start.known || run->gpu.end.known)) {
            char a[256], b[256], c[256], d[256];
            state_text(a, sizeof a, &run->gpu.start);
            state_text(b, sizeof b, &run->gpu.end);
            state_text(c, sizeof c, &grp->start);
            state_text(d, sizeof d, &grp->end);
            fprintf(out, "    start %s, end %s\n    (the group's median: start %s, end %s)\n",
                    a, b, c, d);
        }
        if (g->driver[0] && grp->driver[0] && strcmp(g->driver, grp->driver) != 0)
            fprintf(out, "    driver %s, the group's %s\n", g->driver, grp->driver);
    }
    if (f->nfailed) {
        fprintf(out, "Failed: %zu run%s without results\n", f->nfailed, plural(f->nfailed));
        for (size_t i = 0; i < f->ngpus; i++) {
            const cml_fleet_gpu *g = &f->gpus[i];
            char ex[24];
            if (g->failed)
                fprintf(out, "  %s: %s: %s\n", g->label, exit_text(ex, sizeof ex, g->run),
                        g->run->diagnostic[0] ? g->run->diagnostic : "(no diagnostic given)");
        }
    }
}

/* The experiments of group k in order of first appearance: the index of
 * the row where each first appears, or 0 when row r is not one. */
static int first_of_experiment(const cml_fleet *f, const cml_fleet_group *g, size_t r)
{
    for (size_t q = g->first_row; q < r; q++)
        if (strcmp(f->rows[q].experiment, f->rows[r].experiment) == 0)
            return 0;
    return 1;
}

static void experiment_line(FILE *out, const cml_fleet *f, const cml_fleet_group *g, size_t r0)
{
    const char *key = f->rows[r0].experiment;
    size_t nbw = 0, nlat = 0, nctr = 0;
    for (size_t r = r0; r < g->first_row + g->nrows; r++)
        if (strcmp(f->rows[r].experiment, key) == 0)
            f->rows[r].kind == CML_FLEET_BANDWIDTH ? nbw++
            : f->rows[r].kind == CML_FLEET_LATENCY ? nlat++
                                                    : nctr++;
    if (nlat)
        fprintf(out, "  %-22s %4zu bandwidth, %4zu latency, %4zu counter figures: ", key, nbw,
                nlat, nctr);
    else
        fprintf(out, "  %-22s %4zu bandwidth, %4zu counter figures: ", key, nbw, nctr);
    int any = 0;
    for (size_t i = 0; i < g->n; i++) {
        size_t bw = 0, ctr = 0;
        double worst = 0;
        for (size_t r = r0; r < g->first_row + g->nrows; r++) {
            const cml_fleet_row *row = &f->rows[r];
            const cml_fleet_cell *c = &row->cells[i];
            if (strcmp(row->experiment, key) != 0 || !c->flagged)
                continue;
            if (cml_fleet_is_speed(row->kind)) {
                const double d = cml_fleet_speed_deviation(row, c);
                bw++;
                if (fabs(d) > fabs(worst))
                    worst = d;
            } else {
                ctr++;
            }
        }
        if (!bw && !ctr)
            continue;
        fprintf(out, "%s%s", any ? "; " : "flagged ", f->gpus[g->gpus[i]].tag);
        if (bw)
            fprintf(out, " %zu speed (up to %+.1f%%)", bw, 100 * worst);
        if (ctr)
            fprintf(out, " %zu counter%s", ctr, plural(ctr));
        any = 1;
    }
    fputs(any ? "\n" : "none flagged\n", out);
}

cml_status cml_fleet_table(FILE *out, const void *ctx)
{
    const cml_fleet *f = ctx;
    summary(out, f);
    for (size_t k = 0; k < f->ngroups; k++) {
        const cml_fleet_group *g = &f->groups[k];
        if (!g->nrows)
            continue;
        fprintf(out, "Per experiment (%s, %zu GPUs):\n", g->model, g->n);
        for (size_t r = g->first_row; r < g->first_row + g->nrows; r++)
            if (first_of_experiment(f, g, r))
                experiment_line(out, f, g, r);
    }
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                */
/* ------------------------------------------------------------------ */

cml_status cml_fleet_csv(FILE *out, const void *ctx)
{
    const cml_fleet *f = ctx;
    fputs("experiment,variant,figure,gpu,model,value,reference,deviation_pct,flagged\n", out);
    for (size_t r = 0; r < f->nrows; r++) {
        const cml_fleet_row *row = &f->rows[r];
        const cml_fleet_group *g = &f->groups[row->group];
        for (size_t i = 0; i < g->n; i++) {
            const cml_fleet_cell *c = &row->cells[i];
            if (!c->present)
                continue;
            cml_csv_field(out, row->experiment);
            fputc(',', out);
            cml_csv_field(out, row->variant);
            fputc(',', out);
            cml_csv_field(out, cml_fleet_figure_name(row));
            fputc(',', out);
            cml_csv_field(out, f->gpus[g->gpus[i]].label);
            fputc(',', out);
            cml_csv_field(out, g->model);
            fputc(',', out);
            cml_csv_double(out, c->value);
            fputc(',', out);
            cml_csv_double(out, row->reference);
            fputc(',', out);
            cml_csv_double(out, 100 * c->deviation);
            fprintf(out, ",%s\n", c->flagged ? "yes" : "no");
        }
    }
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}

/* ------------------------------------------------------------------ */
/* JSON                                                               */
/* ------------------------------------------------------------------ */

static void json_state(cml_json *j, const char *key, const cml_fleet_gpu_state *s)
{
    cml_json_key(j, key);
    if (!s->known) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    if (s->sm_clock_mhz >= 0)
        cml_json_kv_i64(j, "sm_clock_mhz", s->sm_clock_mhz);
    else
        cml_json_kv_null(j, "sm_clock_mhz");
    if (s->mem_clock_mhz >= 0)
        cml_json_kv_i64(j, "mem_clock_mhz", s->mem_clock_mhz);
    else
        cml_json_kv_null(j, "mem_clock_mhz");
    if (s->temperature_c > -1000)
        cml_json_kv_i64(j, "temperature_c", s->temperature_c);
    else
        cml_json_kv_null(j, "temperature_c");
    cml_json_kv_double(j, "power_w", s->power_w);
    cml_json_end_object(j);
}

static void json_gpu(cml_json *j, const cml_fleet *f, size_t i)
{
    const cml_fleet_gpu *g = &f->gpus[i];
    const cml_fleet_run *run = g->run;
    cml_json_begin_object(j);
    cml_json_kv_u64(j, "id", i);
    cml_json_kv_string(j, "label", g->label);
    cml_json_kv_string(j, "file", run->file);
    if (run->from_fleet) {
        cml_json_kv_i64(j, "rank", run->rank);
        cml_json_kv_string(j, "host", run->host);
        cml_json_kv_i64(j, "exit_status", run->exit_status);
    } else {
        cml_json_kv_null(j, "rank");
        cml_json_kv_null(j, "host");
        cml_json_kv_null(j, "exit_status");
    }
    cml_json_kv_string(j, "diagnostic", run->diagnostic[0] ? run->diagnostic : NULL);
    cml_json_kv_string(j, "model", g->model);
    cml_json_kv_string(j, "driver", g->driver[0] ? g->driver : NULL);
    cml_json_kv_bool(j, "has_results", !g->failed);
    if (g->failed)
        cml_json_kv_null(j, "group");
    else
        cml_json_kv_u64(j, "group", g->group);
    json_state(j, "start", run->has_gpu ? &run->gpu.start : &(cml_fleet_gpu_state){0});
    json_state(j, "end", run->has_gpu ? &run->gpu.end : &(cml_fleet_gpu_state){0});
    cml_json_kv_u64(j, "speed_compared", g->speed_compared);
    cml_json_kv_u64(j, "speed_flagged", g->speed_flagged);
    cml_json_kv_u64(j, "speed_slower", g->speed_slower);
    cml_json_kv_u64(j, "speed_faster", g->speed_faster);
    cml_json_kv_double(j, "median_flagged_deviation_pct", 100 * g->median_flagged);
    cml_json_kv_double(j, "others_flagged", g->others_flagged);
    cml_json_kv_double(j, "chance", g->chance);
    cml_json_kv_u64(j, "counters_compared", g->ctr_compared);
    cml_json_kv_u64(j, "counters_flagged", g->ctr_flagged);
    cml_json_kv_string(j, "experiments_flagged", g->experiments);
    cml_json_kv_string(j, "counters_differing", g->counters);
    cml_json_kv_bool(j, "outlier", g->outlier);
    cml_json_end_object(j);
}

static const char *rule_name(cml_fleet_ref r)
{
    switch (r) {
    case CML_FLEET_REF_MEDIAN: return "median";
    case CML_FLEET_REF_FASTER: return "faster of two";
    case CML_FLEET_REF_MAJORITY: return "majority";
    case CML_FLEET_REF_NONE: return "no majority";
    }
    return "median";
}

static void json_row(cml_json *j, const cml_fleet *f, const cml_fleet_row *row)
{
    const cml_fleet_group *g = &f->groups[row->group];
    cml_json_begin_object(j);
    cml_json_kv_string(j, "experiment", row->experiment);
    cml_json_kv_string(j, "variant", row->variant);
    cml_json_kv_u64(j, "occurrence", row->occurrence);
    cml_json_kv_string(j, "kind", cml_fleet_is_speed(row->kind) ? cml_fleet_figure_name(row)
                                                                 : "counter");
    cml_json_kv_string(j, "figure", cml_fleet_figure_name(row));
    cml_json_kv_u64(j, "group", row->group);
    cml_json_kv_string(j, "rule", rule_name(row->rule));
    cml_json_kv_double(j, "reference", row->reference);
    if (cml_fleet_is_speed(row->kind)) {
        cml_json_kv_double(j, "reference_lo", row->ref_lo);
        cml_json_kv_double(j, "reference_hi", row->ref_hi);
    }
    cml_json_key(j, "values");
    cml_json_begin_array(j);
    for (size_t i = 0; i < g->n; i++) {
        const cml_fleet_cell *c = &row->cells[i];
        if (!c->present)
            continue;
        cml_json_begin_object(j);
        cml_json_kv_u64(j, "gpu", g->gpus[i]);
        cml_json_kv_double(j, "value", c->value);
        if (cml_fleet_is_speed(row->kind)) {
            cml_json_kv_double(j, "lo", c->lo);
            cml_json_kv_double(j, "hi", c->hi);
        }
        cml_json_kv_double(j, "deviation_pct", 100 * c->deviation);
        cml_json_kv_bool(j, "flagged", c->flagged);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
    cml_json_end_object(j);
}

cml_status cml_fleet_json(FILE *out, const void *ctx)
{
    const cml_fleet *f = ctx;
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-fleet-comparison");
    cml_json_kv_i64(&j, "schema_version", 1);
    cml_json_kv_string(&j, "tool_version", cml_fleet_tool_version(f));
    cml_json_kv_double(&j, "threshold_pct", f->threshold);
    cml_json_key(&j, "gpus");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < f->ngpus; i++)
        json_gpu(&j, f, i);
    cml_json_end_array(&j);
    cml_json_key(&j, "groups");
    cml_json_begin_array(&j);
    for (size_t k = 0; k < f->ngroups; k++) {
        const cml_fleet_group *g = &f->groups[k];
        cml_json_begin_object(&j);
        cml_json_kv_string(&j, "model", g->model);
        cml_json_key(&j, "gpus");
        cml_json_begin_array(&j);
        for (size_t i = 0; i < g->n; i++)
            cml_json_u64(&j, g->gpus[i]);
        cml_json_end_array(&j);
        cml_json_kv_string(&j, "driver", g->driver[0] ? g->driver : NULL);
        json_state(&j, "start", &g->start);
        json_state(&j, "end", &g->end);
        cml_json_kv_bool(&j, "compared", g->n >= 2);
        cml_json_end_object(&j);
    }
    cml_json_end_array(&j);
    cml_json_key(&j, "outliers");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < f->ngpus; i++)
        if (f->gpus[i].outlier)
            cml_json_u64(&j, i);
    cml_json_end_array(&j);
    cml_json_key(&j, "figures");
    cml_json_begin_array(&j);
    for (size_t r = 0; r < f->nrows; r++)
        json_row(&j, f, &f->rows[r]);
    cml_json_end_array(&j);
    cml_json_end_object(&j);
    fputc('\n', out);
    return fflush(out) != 0 || ferror(out) ? CML_EIO : CML_OK;
}
