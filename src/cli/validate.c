/*
 * cumemlab validate: the model against this GPU's hardware counters.
 *
 * Runs every deterministic pattern of the experiments that have GPU kernels
 * (each registry row's validate settings) at a moderate
 * size, reads the counters of each variant through CUPTI (cml_exp_time's
 * counters pass, L2 flushed before every range), and judges each counter the
 * counter map marks exact or percent: agree when measured == predicted.
 * Then the probes (src/counters/probes.c) settle docs/model.md's open questions
 * the same way. Prints one line per variant and per probe, the differing
 * counters under it, and `N agree, N differ`. Exit 1 when a row differs
 * and docs/model-evidence.md does not explain it (the rows' explained
 * differences and the table below, each entry pointing to its section), or
 * a run failed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "lab/common.h"
#include "lab/lab.h"
#include "counters/counter_map.h"
#include "counters/counters.h"
#include "counters/probes.h"
#include "gpu/gpu.h"
#include "report/json_read.h"
#include "report/report_util.h"

/*
 * Differences docs/model-evidence.md explains for every experiment alike;
 * each experiment's own explained differences are in its registry row
 * (cml_validate_spec). Kernels that mix shared stores, loads and barriers
 * across warps: the hardware counts a few extra wavefronts, all as bank
 * conflicts, and a different number every run; they are wavefronts lost to
 * the accesses of another block on the same SM (measured: §4.3), which the
 * control run with one block per SM (residency=one) shows each time.
 */
static const cml_explained_diff explained_everywhere[] = {
    {NULL, "_mem_shared_op_", 0, "§4.1 shared counters in mixed kernels", "residency=one"},
};

/* The counter a max_frac tolerance is measured against. */
static void reference_metric(const char *metric, char *buf, size_t len)
{
    const char *k = strstr(metric, "data_bank_conflicts_pipe_lsu");
    if (k)
        snprintf(buf, len, "%.*sdata_pipe_lsu_wavefronts%s", (int)(k - metric), metric,
                 k + strlen("data_bank_conflicts_pipe_lsu"));
    else
        snprintf(buf, len, "%s", metric);
}

/* The records of one experiment's validate runs, where controls are found. */
typedef struct run_set {
    const cml_results *r;
    size_t first, last;
} run_set;

/* The sectors a cache-level counter's 1% is measured against: the load
 * sectors for L1 hits and L2 reads, the store sectors for L2 writes (0 for
 * other counters). */
static double level_reference(const cml_record *rec, const cml_counter_def *d)
{
    const cml_kernel_traffic *m = &rec->model[CML_RULES_MODERN];
    switch (d->field) {
    case CML_CTR_L1_HIT: return (double)m->cls[CML_CLASS_GLOBAL_LD].sectors;
    case CML_CTR_L2_READ:
        return (double)(m->cls[CML_CLASS_GLOBAL_LD].sectors + m->cls[CML_CLASS_LOCAL_LD].sectors);
    case CML_CTR_L2_WRITE:
        return (double)(m->cls[CML_CLASS_GLOBAL_ST].sectors + m->cls[CML_CLASS_LOCAL_ST].sectors);
    default: return 0;
    }
}

/* Whether a counter of rec agrees with the model: exact and percent as the
 * map says; cache-level ones within their tolerance of the sectors the
 * kernel asks for (L1, L2) or of the counter (DRAM), and DRAM only where
 * the model claims it (cml_counter_judged: *judged = 0 elsewhere). */
static int counter_ok(const cml_record *rec, const cml_counter_def *d, const cml_counter *c,
                      int *judged)
{
    *judged = 1;
    if (!c->has_prediction)
        return 1;
    if (d->kind != CML_CTR_RELATIVE)
        return cml_counter_agrees(d, c->measured, c->predicted);
    if (!cml_counter_judged(d, rec->has_levels ? &rec->levels : NULL, rec->cache.l2_bytes)) {
        *judged = 0;
        return 1;
    }
    double ref = level_reference(rec, d);
    if (ref <= 0)
        return cml_counter_agrees(d, c->measured, c->predicted);
    double diff = fabs(c->measured - c->predicted);
    return diff <= cml_counter_tolerance(d) * ref || diff <= cml_counter_floor(d);
}

/* Whether the control record c ran and every counter of it whose name
 * contains `metric_has` (the counters the entry explains) agrees with the
 * model, at least one of them judged: a control without the counters it
 * stands for proves nothing, and does not agree. */
static int control_agrees(const cml_record *c, const char *metric_has)
{
    if (c->state != CML_REC_OK || !c->measured || c->ncounters == 0)
        return 0;
    size_t judged_ones = 0;
    for (unsigned k = 0; k < c->ncounters; k++) {
        const cml_counter *x = &c->counters[k];
        const cml_counter_def *d = cml_counter_map_find(x->name);
        int judged = 0;
        if (!d || !strstr(x->name, metric_has))
            continue;
        if (!counter_ok(c, d, x, &judged))
            return 0;
        judged_ones += judged && x->has_prediction;
    }
    return judged_ones > 0;
}

/* The control record of rec under e (NULL: none ran, or rec is it). */
static const cml_record *find_control(const cml_explained_diff *e, const cml_record *rec,
                                      const run_set *set)
{
    char want[sizeof rec->variant + 64];
    cml_variant_with(rec->variant, e->control, want, sizeof want);
    if (strcmp(want, rec->variant) == 0)
        return NULL;
    for (size_t i = set->first; i < set->last; i++) {
        const cml_record *c = &set->r->items[i];
        if (strcmp(c->experiment, rec->experiment) == 0 && strcmp(c->variant, want) == 0)
            return c;
    }
    return NULL;
}

/* Whether entry e explains the difference (measured vs predicted). */
static int explains(const cml_explained_diff *e, const cml_record *rec, const char *variant,
                    const char *metric, double measured, double predicted, double ref_pred,
                    const run_set *set)
{
    if (e->variant_has && !strstr(variant, e->variant_has))
        return 0;
    if (!strstr(metric, e->metric_has))
        return 0;
    if (e->control) {
        const cml_record *c = rec && set ? find_control(e, rec, set) : NULL;
        if (!c || !control_agrees(c, e->metric_has) || !(measured > predicted))
            return 0;
    }
    if (e->max_frac > 0)
        return measured > predicted && measured - predicted <= e->max_frac * ref_pred;
    if (e->max_frac < 0)
        return fabs(measured - predicted) <= -e->max_frac * ref_pred;
    return 1;
}

/* The entry explaining (measured vs predicted) of `metric` in a record
 * of experiment `exp` (NULL: a probe, which only its own entries explain),
 * or NULL. ref_pred: the predicted value of reference_metric(metric). */
static const cml_explained_diff *explanation(const cml_experiment *exp, const cml_record *rec,
                                             const char *variant, const char *metric,
                                             double measured, double predicted,
                                             double ref_pred, const run_set *set)
{
    if (!exp)
        return NULL;
    const cml_validate_spec *v = exp->validate;
    for (size_t i = 0; v && i < v->nexplained; i++)
        if (explains(&v->explained[i], rec, variant, metric, measured, predicted, ref_pred, set))
            return &v->explained[i];
    for (size_t i = 0; i < CML_COUNT(explained_everywhere); i++)
        if (explains(&explained_everywhere[i], rec, variant, metric, measured, predicted,
                     ref_pred, set))
            return &explained_everywhere[i];
    return NULL;
}

typedef struct tally {
    size_t agree, differ, explained, failed, skipped;
} tally;

/* A short label for a metric in the per-row lines. */
/* One line per record: its counters (measured; "[model X]" where the model
 * says otherwise), the verdict, then one line per differing counter. */
static void judge_record(FILE *out, const cml_record *rec, const run_set *set, tally *t)
{
    if (rec->state == CML_REC_WAIVED) {
        t->skipped++;
        fprintf(out, "%-13s %-44s  waived: %s\n", rec->experiment, rec->variant, rec->note);
        return;
    }
    if (rec->state != CML_REC_OK || !rec->measured) {
        t->failed++;
        fprintf(out, "%-13s %-44s  FAILED: %s\n", rec->experiment, rec->variant, rec->note);
        return;
    }
    if (rec->ncounters == 0) {
        t->failed++;
        fprintf(out, "%-13s %-44s  FAILED: no counters read (%s)\n", rec->experiment,
                rec->variant, rec->note[0] ? rec->note : "none in the record");
        return;
    }
    char line[1024];
    size_t used = 0;
    int differ = 0, unexplained = 0;
    const cml_explained_diff *why_last = NULL;
    for (unsigned k = 0; k < rec->ncounters; k++) {
        const cml_counter *c = &rec->counters[k];
        const cml_counter_def *d = cml_counter_map_find(c->name);
        if (!d)
            continue;
        char mv[32], pv[32];
        cml_rep_counter_value(c->name, c->measured, mv, sizeof mv);
        int judged = 1;
        int ok = counter_ok(rec, d, c, &judged);
        if (!judged) {
            /* Shown with the model's figure, not judged. */
            char shown[sizeof mv];
            cml_rep_counter_value(c->name, c->predicted, pv, sizeof pv);
            snprintf(shown, sizeof shown, "%.12s(~%.12s)", mv, pv);
            memcpy(mv, shown, sizeof mv);
        }
        if (!ok) {
            cml_rep_counter_value(c->name, c->predicted, pv, sizeof pv);
            differ = 1;
            char ref[96];
            double ref_pred = c->predicted;
            reference_metric(c->name, ref, sizeof ref);
            for (unsigned j = 0; j < rec->ncounters; j++)
                if (!strcmp(rec->counters[j].name, ref) && rec->counters[j].has_prediction)
                    ref_pred = rec->counters[j].predicted;
            if (level_reference(rec, d) > 0)
                ref_pred = level_reference(rec, d);
            const cml_explained_diff *why =
                explanation(cml_experiment_find(rec->experiment), rec, rec->variant, c->name,
                            c->measured, c->predicted, ref_pred, set);
            if (why)
                why_last = why;
            else
                unexplained = 1;
        }
        char label[64];
        cml_rep_counter_label(c->name, label, sizeof label);
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, " %s %s%s%s%s", label,
                                     mv, ok ? "" : " [model ", ok ? "" : pv, ok ? "" : "]");
    }
    const char *verdict = !differ ? "agree" : unexplained ? "DIFFER" : "differ (explained)";
    const int why_shown = why_last && !unexplained;
    fprintf(out, "%-13s %-44s %s  => %s%s%s%s%s%s\n", rec->experiment, rec->variant, line,
            verdict, why_shown ? ": " : "", why_shown ? why_last->section : "",
            why_shown && why_last->control ? " (its control " : "",
            why_shown && why_last->control ? why_last->control : "",
            why_shown && why_last->control ? " agrees)" : "");
    if (!differ)
        t->agree++;
    else {
        t->differ++;
        if (!unexplained)
            t->explained++;
    }
}

/* Measured per instruction, with the model's figure where it differs. */
static void judge_probe(FILE *out, const cml_probe_result *r, tally *t)
{
    const cml_probe_def *p = r->def;
    size_t n;
    const char *const *names = cml_probe_metrics(&n);
    char line[1024];
    size_t used = 0;
    int differ = 0, unexplained = 0;
    const char *section = NULL;
    const double per = r->issues ? (double)r->issues : 1.0;
    for (size_t i = 0; i < n; i++) {
        const cml_counter_def *d = cml_counter_map_find(names[i]);
        double v = r->value[i], pred = 0;
        int has = 0;
        cml_counter_def shared_inst = {names[i], -1, CML_CTR_INSTRUCTIONS, CML_CTR_EXACT, ""};
        if (!d) { /* the two shared instruction counters */
            shared_inst.cls = strstr(names[i], "_ld") ? CML_CLASS_SHARED_LD : CML_CLASS_SHARED_ST;
            d = &shared_inst;
        }
        has = cml_counter_predict(d, &r->model, &pred);
        if (isnan(v) || (v == 0 && (!has || pred == 0)))
            continue;
        int ok = !has || cml_counter_agrees(d, v, pred);
        char mv[32], pv[32], label[64];
        cml_rep_counter_label(names[i], label, sizeof label);
        if (d->kind == CML_CTR_PERCENT) {
            snprintf(mv, sizeof mv, "%.2f%%", v);
            snprintf(pv, sizeof pv, "%.2f%%", pred);
        } else {
            snprintf(mv, sizeof mv, "%.3g", v / per);
            snprintf(pv, sizeof pv, "%.3g", pred / per);
        }
        if (!ok) {
            differ = 1;
            char ref[96];
            double ref_pred = pred;
            reference_metric(names[i], ref, sizeof ref);
            const cml_counter_def *rd = cml_counter_map_find(ref);
            if (rd && rd != d)
                (void)cml_counter_predict(rd, &r->model, &ref_pred);
            const cml_explained_diff *why =
                explanation(NULL, NULL, p->id, names[i], v, pred, ref_pred, NULL);
            if (why)
                section = why->section;
            else
                unexplained = 1;
        }
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, " %s %s%s%s%s", label, mv,
                                     ok ? "" : " [model ", ok ? "" : pv, ok ? "" : "]");
    }
    const char *verdict = !differ ? "agree" : unexplained ? "DIFFER" : "differ (explained)";
    fprintf(out, "%-4s %-44s %s  => %s%s%s\n", p->question, p->id, line, verdict,
            section && !unexplained ? ": " : "", section && !unexplained ? section : "");
    if (!differ)
        t->agree++;
    else {
        t->differ++;
        if (!unexplained)
            t->explained++;
    }
}

static const char experiments_heading[] =
    "\nExperiments (measured; [model X] where the model predicts otherwise; ld/st = "
    "global loads/stores, sld/sst shared, lld/lst local; L1hit, L2rd, L2wr in "
    "sectors):\n";

/* The summary and the exit line; returns the exit status they name. */
static int print_summary(FILE *out, const tally *t, int failed_run)
{
    /* The exit status follows the unexplained rows and the failed ones: the
     * summary names both counts, so the line says why it is 0 or 1. */
    const size_t unexplained = t->differ - t->explained;
    fprintf(out, "\n%zu agree, %zu differ (%zu explained in docs/model-evidence.md, %zu "
                 "unexplained), %zu failed, %zu skipped\n",
            t->agree, t->differ, t->explained, unexplained, t->failed, t->skipped);
    int rc = (unexplained || t->failed || failed_run) ? CML_EXIT_FAIL : CML_EXIT_OK;
    fprintf(out, "exit %d: %zu unexplained, %zu failed%s\n", rc ? 1 : 0, unexplained, t->failed,
            failed_run ? ", and a run that did not complete (see above)" : "");
    return rc;
}

/*
 * validate --from FILE: the records of a saved results file judged as
 * validate judges its own runs. The verdicts are the same as a measuring
 * run's when the file is one (validate --json of the records): each
 * record's control is looked for among the file's records of its
 * experiment. A file of other runs (a suite) is judged on what it holds:
 * its own variants and sizes, and only the controls it happens to contain.
 * No probes: a results file does not hold them.
 */
static int validate_from(const cml_cli *cli)
{
    cml_results r;
    char err[640];
    if (cml_results_read_file(cli->from_path, &r, err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: validate --from: %s\n", err);
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    FILE *out = cml_cli_human_out(cli);
    fprintf(out, "cumemlab %s validate --from %s\n", CUMEMLAB_VERSION, cli->from_path);
    fprintf(out, "results of cumemlab %s: %s\n", r.tool_version[0] ? r.tool_version : "(unknown)",
            r.command_line[0] ? r.command_line : "(no command line)");
    if (r.has_device)
        fprintf(out, "device %d: %s (sm_%d%d, %d SMs, L2 %.0f MiB), driver %d, runtime %d\n",
                r.device.index, r.device.name, r.device.cc_major, r.device.cc_minor,
                r.device.sm_count, (double)r.device.l2_bytes / 1048576.0,
                r.device.driver_version, r.device.runtime_version);
    else
        fprintf(out, "no device: %s\n",
                r.model_only ? "the model alone, nothing measured" : "none named in the file");
    fputs(experiments_heading, out);
    tally t = {0};
    const run_set all = {&r, 0, r.count};
    for (size_t e = 0; e < cml_experiment_count(); e++) {
        const cml_experiment *exp = cml_experiment_at(e);
        if (!exp->validate || !exp->measure) {
            fprintf(out, "%-13s %-44s  skipped: %s\n", exp->key, "",
                    exp->measure ? "no deterministic pattern to compare" : "no GPU kernels yet");
            t.skipped++;
            continue;
        }
        size_t n = 0;
        for (size_t k = 0; k < r.count; k++)
            if (!strcmp(r.items[k].experiment, exp->key)) {
                judge_record(out, &r.items[k], &all, &t);
                n++;
            }
        if (!n) {
            fprintf(out, "%-13s %-44s  skipped: no records in the file\n", exp->key, "");
            t.skipped++;
        }
    }
    /* Records of names this cumemlab does not know (a book program, a
     * newer experiment): named once each, not judged. */
    for (size_t k = 0; k < r.count; k++) {
        const char *name = r.items[k].experiment;
        if (cml_experiment_find(name))
            continue;
        size_t first = 0;
        while (strcmp(r.items[first].experiment, name))
            first++;
        if (first == k) {
            fprintf(out, "%-13s %-44s  skipped: not an experiment of this cumemlab\n", name, "");
            t.skipped++;
        }
    }
    int rc = print_summary(out, &t, 0);
    cml_results_free(&r);
    return rc;
}

static void print_usage(void)
{
    printf("cumemlab validate [--device N] [--size BYTES] [--reps N] [--warmup N] [--json FILE]\n"
           "  Runs every deterministic pattern of the experiments with GPU kernels, reads the\n"
           "  hardware counters of each variant (CUPTI range profiler, L2 flushed before each\n"
           "  range), sets them beside the model, then runs the probes of docs/model.md (the open questions).\n"
           "  One line per variant: counters measured (per instruction for probes), [model X]\n"
           "  where the model predicts otherwise, and agree / differ. Default size 32 MiB per\n"
           "  array, 2 repetitions. Exit 1 if a difference is not explained in\n"
           "  docs/model-evidence.md or a run failed, 2 on bad usage.\n"
           "cumemlab validate --from FILE.json[.gz]\n"
           "  Judges the records of a saved results file the same way, without a GPU (no\n"
           "  probes): a file of validate's own runs gives validate's verdicts; another run's\n"
           "  file is judged on the variants and controls it holds.\n");
}

int cml_cmd_validate(const cml_cli *cli)
{
    if (cli->help) {
        print_usage();
        return CML_EXIT_OK;
    }
    if (cli->npos || cli->nsettings) {
        fprintf(stderr, "cumemlab: validate takes no experiment name or settings\n");
        return CML_EXIT_USAGE;
    }
    if (cli->from_path) {
        if (cli->device || cli->size_bytes || cli->reps || cli->warmup) {
            fprintf(stderr, "cumemlab: validate --from judges a saved file: --device, --size, "
                            "--reps and --warmup do not apply\n");
            return CML_EXIT_USAGE;
        }
        return validate_from(cli);
    }
    if (cli->model_only || cli->counters == CML_COUNTERS_OFF) {
        fprintf(stderr, "cumemlab: validate needs the GPU and its counters (no --model, no "
                        "--counters off)\n");
        return CML_EXIT_USAGE;
    }
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_lab_settings ls = cml_cli_lab_settings(cli);
    ls.counters = CML_COUNTERS_ON;
    ls.measure_peak = 0; /* counters, not shares of peak */
    ls.size_bytes = cli->size_bytes ? cli->size_bytes : (uint64_t)32 << 20;
    cml_lab lab;
    if (cml_lab_open(&lab, &ls, &r) != CML_LAB_GPU) {
        fprintf(stderr, "cumemlab: validate needs a GPU with readable counters: %s\n",
                lab.why[0] ? lab.why : "no GPU");
        cml_lab_close(&lab);
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    /* Two samples by default (more while their cv is high, unless --reps). */
    lab.plan.reps = cli->reps ? cli->reps : 2;
    lab.plan.warmup = cli->warmup ? cli->warmup : 1;
    const cml_plan plan = lab.plan;

    FILE *out = cml_cli_human_out(cli);
    const cml_device_facts *dev = plan.dev;
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "cumemlab %s validate, %s\n", CUMEMLAB_VERSION, date);
    fprintf(out, "device %d: %s (sm_%d%d, %d SMs, L2 %.0f MiB), driver %d, runtime %d; "
                 "profiler chip %s\n",
            dev->index, dev->name, dev->cc_major, dev->cc_minor, dev->sm_count,
            (double)dev->l2_bytes / 1048576.0, dev->driver_version, dev->runtime_version,
            cml_counters_chip(plan.profiler));
    fprintf(out, "counters: CUPTI range profiler, user range, user replay, one range per launch; "
                 "L2 flushed before each range by reading %.0f MiB; arrays %.0f MiB\n",
            (double)cml_counters_flush_bytes(plan.profiler) / 1048576.0,
            (double)plan.size_bytes / 1048576.0);
    size_t nmet;
    const char *const *metrics = cml_probe_metrics(&nmet);
    size_t nok = 0;
    for (size_t i = 0; i < nmet; i++) {
        char mwhy[256];
        if (cml_counters_metric_ok(plan.profiler, metrics[i], mwhy, sizeof mwhy))
            nok++;
        else
            fprintf(out, "metric not collectable: %s: %s\n", metrics[i], mwhy);
    }
    fprintf(out, "metrics: %zu of %zu collectable\n", nok, nmet);
    fputs(experiments_heading, out);

    tally t = {0};
    int failed_run = 0;
    for (size_t e = 0; e < cml_experiment_count(); e++) {
        const cml_experiment *exp = cml_experiment_at(e);
        if (!exp->validate || !exp->measure) {
            fprintf(out, "%-13s %-44s  skipped: %s\n", exp->key, "",
                    exp->measure ? "no deterministic pattern to compare" : "no GPU kernels yet");
            t.skipped++;
            continue;
        }
        /* Every settings line first, then the judging: a record's control
         * may come from a later line. */
        const size_t exp_first = r.count;
        for (const char *const *set = exp->validate->settings; *set; set++) {
            cml_param_values pv;
            char err[512];
            if (cml_lab_options(exp, *set, "its validate settings", &pv, err, sizeof err)) {
                fprintf(out, "%-13s %-44s  FAILED: %s (fix the row)\n", exp->key, *set, err);
                t.failed++;
                failed_run = 1;
                continue;
            }
            (void)cml_lab_run(&lab, exp, &pv, &r); /* failures: judged per record below */
        }
        const run_set runs = {&r, exp_first, r.count};
        for (size_t k = exp_first; k < r.count; k++)
            judge_record(out, &r.items[k], &runs, &t);
        fflush(out);
    }

    fprintf(out, "\nProbes (docs/model.md, the open questions; counts per instruction, efficiency in %%):\n");
    for (size_t i = 0; i < cml_probe_count(); i++) {
        cml_probe_result pr;
        char err[512] = "";
        if (cml_probe_run(lab.gpu, plan.profiler, cml_probe_at(i), &pr, err, sizeof err) != CML_OK) {
            fprintf(out, "%-4s %-44s  FAILED: %s\n", cml_probe_at(i)->question,
                    cml_probe_at(i)->id, err);
            t.failed++;
            continue;
        }
        judge_probe(out, &pr, &t);
        fflush(out);
    }

    char timing[512];
    cml_counters_timing(plan.profiler, timing, sizeof timing);
    fprintf(out, "\nprofiler: %s\n", timing);
    int rc = print_summary(out, &t, failed_run);
    cml_lab_close(&lab);
    if (cli->json_path || cli->csv_path) {
        cml_cli quiet = *cli;
        quiet.quiet = 1;
        int erc = cml_cli_emit(&quiet, &r);
        if (!rc)
            rc = erc;
    }
    cml_results_free(&r);
    return rc;
}
