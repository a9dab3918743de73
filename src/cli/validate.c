/*
 * cumemlab validate: the model against this GPU's hardware counters.
 *
 * Runs every deterministic pattern of the experiments that have GPU kernels
 * (each registry row's validate settings) at two footprints, all its
 * arrays in half of L2 and each array over L2 (validate_experiment), reads the counters of each variant through CUPTI (cml_exp_time's
 * counters pass, L2 flushed before every range), and has the engine judge
 * them (src/lab/validate.c: each counter the counter map marks exact,
 * percent or relative, against the model). Then the probes
 * (src/counters/probes.c) settle docs/model.md's open questions the same
 * way. Prints one line per verdict (variant, probe) with the differing
 * counters in it, then one line per kind of judged value (exact, within
 * interval, explained by a control, not judged, unexplained) and the exit
 * line naming the unexplained count the exit status follows; --json writes
 * the verdicts (validate_json.c). Exit 1 when a value differs and no
 * explanation (a mechanism with its control, docs/model-evidence.md §4)
 * covers it, or a run failed. `validate --from FILE` judges a saved
 * results file the same way; `validate --rules` lists the explanations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "lab/common.h"
#include "lab/lab.h"
#include "lab/validate.h"
#include "counters/counter_map.h"
#include "counters/counters.h"
#include "counters/probes.h"
#include "gpu/gpu.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report/report_util.h"

static const char *verdict_text(cml_verdict v)
{
    return v == CML_VERDICT_AGREE ? "agree" : v == CML_VERDICT_UNEXPLAINED ? "DIFFER"
                                                                        : "differ (explained)";
}

/* A record's line: its counters (measured; "[model X]" where the model
 * says otherwise, "(~X)" beside one the model makes no claim on), then the
 * verdict and, for an explained one, the section that explains it. */
static void print_record(FILE *out, const cml_verdict_rec *v)
{
    if (v->verdict == CML_VERDICT_SKIPPED) {
        fprintf(out, "%-13s %-44s  waived: %s\n", v->experiment, v->variant, v->reason);
        return;
    }
    if (v->verdict == CML_VERDICT_FAILED) {
        fprintf(out, "%-13s %-44s  FAILED: %s\n", v->experiment, v->variant, v->reason);
        return;
    }
    char line[1024] = "";
    size_t used = 0;
    for (unsigned k = 0; k < v->ncounters; k++) {
        const cml_counter_judgement *j = &v->counters[k];
        char mv[32], pv[32];
        cml_rep_counter_value(j->name, j->measured, mv, sizeof mv);
        const int ok = j->verdict != CML_CV_EXPLAINED && j->verdict != CML_CV_UNEXPLAINED;
        if (j->verdict == CML_CV_NOT_JUDGED) {
            /* Shown with the model's figure, not judged. */
            char shown[sizeof mv];
            cml_rep_counter_value(j->name, j->predicted, pv, sizeof pv);
            snprintf(shown, sizeof shown, "%.12s(~%.12s)", mv, pv);
            memcpy(mv, shown, sizeof mv);
        }
        if (!ok)
            cml_rep_counter_value(j->name, j->predicted, pv, sizeof pv);
        char label[64];
        cml_rep_counter_label(j->name, label, sizeof label);
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, " %s %s%s%s%s", label,
                                     mv, ok ? "" : " [model ", ok ? "" : pv, ok ? "" : "]");
    }
    const cml_explained_diff *why = v->verdict == CML_VERDICT_EXPLAINED ? v->why : NULL;
    fprintf(out, "%-13s %-44s %s  => %s%s%s%s%s%s\n", v->experiment, v->variant, line,
            verdict_text(v->verdict), why ? ": " : "", why ? why->section : "",
            why && why->control ? " (its control " : "", why && why->control ? why->control : "",
            why && why->control ? " agrees)" : "");
}

/* A probe's line: measured per instruction, with the model's figure where
 * it differs. */
static void print_probe(FILE *out, const cml_verdict_rec *v)
{
    if (v->verdict == CML_VERDICT_FAILED) {
        fprintf(out, "%-4s %-44s  FAILED: %s\n", v->experiment, v->variant, v->reason);
        return;
    }
    char line[1024] = "";
    size_t used = 0;
    for (unsigned k = 0; k < v->ncounters; k++) {
        const cml_counter_judgement *j = &v->counters[k];
        const cml_counter_def *d = cml_counter_map_find(j->name);
        const int ok = j->verdict != CML_CV_EXPLAINED && j->verdict != CML_CV_UNEXPLAINED;
        char mv[32], pv[32], label[64];
        cml_rep_counter_label(j->name, label, sizeof label);
        if (d && d->kind == CML_CTR_PERCENT) {
            snprintf(mv, sizeof mv, "%.2f%%", j->measured);
            snprintf(pv, sizeof pv, "%.2f%%", j->predicted);
        } else {
            snprintf(mv, sizeof mv, "%.3g", j->measured / v->per);
            snprintf(pv, sizeof pv, "%.3g", j->predicted / v->per);
        }
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, " %s %s%s%s%s", label, mv,
                                     ok ? "" : " [model ", ok ? "" : pv, ok ? "" : "]");
    }
    const cml_explained_diff *why = v->verdict == CML_VERDICT_EXPLAINED ? v->why : NULL;
    fprintf(out, "%-4s %-44s %s  => %s%s%s\n", v->experiment, v->variant, line,
            verdict_text(v->verdict), why ? ": " : "", why ? why->section : "");
}

/* One verdict as validate has always printed it. */
static void print_verdict(FILE *out, const cml_verdict_rec *v)
{
    switch (v->subject) {
    case CML_SUBJECT_RECORD: print_record(out, v); break;
    case CML_SUBJECT_PROBE: print_probe(out, v); break;
    case CML_SUBJECT_EXPERIMENT:
        fprintf(out, "%-13s %-44s  skipped: %s\n", v->experiment, "", v->reason);
        break;
    case CML_SUBJECT_SETTINGS:
        fprintf(out, "%-13s %-44s  FAILED: %s (fix the row)\n", v->experiment, v->variant,
                v->reason);
        break;
    }
}

/* Print the verdicts from *next on, and move *next past them. */
static void print_new(FILE *out, const cml_verdicts *v, size_t *next)
{
    for (; *next < v->count; (*next)++)
        print_verdict(out, &v->items[*next]);
    fflush(out);
}

/* Whether a settings line of some experiment could not run. */
static int run_failed(const cml_verdicts *v)
{
    for (size_t i = 0; i < v->count; i++)
        if (v->items[i].subject == CML_SUBJECT_SETTINGS)
            return 1;
    return 0;
}

/* An experiment validate does not judge, and why (NULL: it judges it). */
static const char *not_judged(const cml_experiment *exp)
{
    if (!exp->validate || !exp->measure)
        return exp->measure ? "no deterministic pattern to compare" : "no GPU kernels yet";
    return NULL;
}

/* Out of memory while judging: said once, and validate fails. */
static int judge_failed(cml_status st)
{
    if (st == CML_OK)
        return 0;
    fprintf(stderr, "cumemlab: validate: out of memory while judging\n");
    return 1;
}

static const char experiments_heading[] =
    "\nExperiments (measured; [model X] where the model predicts otherwise; ld/st = "
    "global loads/stores, sld/sst shared, lld/lst local; L1hit, L2rd, L2wr in "
    "sectors):\n";

/* The summary: one line per kind of judged value, the records' line, and
 * the exit line; returns the exit status it names. The exit follows one
 * count, the unexplained (values, and runs that failed), and the exit
 * line is made from that count alone, so it cannot say 0 while exiting 1. */
static int print_summary(FILE *out, const cml_verdicts *v)
{
    const cml_verdict_tally t = cml_verdicts_tally(v);
    const size_t unexplained = cml_verdicts_unexplained(&t);
    fputc('\n', out);
    for (int k = 0; k < CML_CV_KINDS; k++) {
        fprintf(out, "%-24s %8zu values", cml_counter_kind_label((cml_counter_verdict)k),
                t.values[k]);
        if (k == CML_CV_UNEXPLAINED && t.failed)
            fprintf(out, ", and %zu failed", t.failed);
        fputc('\n', out);
    }
    size_t dram_rows = 0, by_tolerance = 0;
    for (size_t i = 0; i < v->count; i++) {
        int judged = 0;
        for (unsigned c = 0; c < v->items[i].ncounters; c++) {
            const cml_counter_judgement *j = &v->items[i].counters[c];
            judged |= !strncmp(j->name, "dram__bytes", 11) && j->verdict != CML_CV_NOT_JUDGED;
            /* within only by the counter map's fraction: outside the
             * interval by more than the noise floor */
            by_tolerance += j->verdict == CML_CV_WITHIN &&
                            (j->measured < j->lo - j->floor || j->measured > j->hi + j->floor);
        }
        dram_rows += (size_t)judged;
    }
    fprintf(out, "(of the values within interval, %zu only by the counter map's tolerance, 1%% "
                 "of the sectors asked for or 2%% of DRAM bytes, beyond the interval and its "
                 "noise floor)\n",
            by_tolerance);
    fprintf(out, "DRAM judged on %zu records (a DRAM counter above its noise floor)\n", dram_rows);
    fprintf(out, "records: %zu agree, %zu differ (%zu explained in docs/model-evidence.md, %zu "
                 "unexplained), %zu failed%s, %zu skipped\n",
            t.agree, t.differ, t.explained, t.unexplained, t.failed,
            run_failed(v) ? " (a run did not complete, see above)" : "", t.skipped);
    const int rc = unexplained > 0 ? CML_EXIT_FAIL : CML_EXIT_OK;
    fprintf(out, "exit %d: %zu unexplained (%zu values, %zu failed)\n", rc ? 1 : 0, unexplained,
            t.values[CML_CV_UNEXPLAINED], t.failed);
    return rc;
}

/* --json FILE: the verdicts (validate_json.c); 0, or 1 when it cannot be
 * written (said on stderr). */
static int write_verdicts(const cml_cli *cli, const cml_verdicts *v, const char *device)
{
    char err[640];
    if (!cli->json_path)
        return CML_EXIT_OK;
    if (cml_validate_write_json(cli->json_path, v, cli->from_path, device, cli->command_line,
                                err, sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: --json: %s\n", err);
        return CML_EXIT_FAIL;
    }
    return CML_EXIT_OK;
}

/*
 * Judge the records of r as validate judges its own runs: the registry's
 * experiments in order (one line for those validate does not judge), each
 * with r's records of it, their controls looked for among all of r's
 * records of that experiment; then once each name r holds that the
 * registry does not know.
 */
/* The length of a variant without its footprint tag. */
static size_t untagged_len(const char *variant)
{
    const char *t = strstr(variant, CML_FOOTPRINT_TAG);
    return t ? (size_t)(t - variant) : strlen(variant);
}

/* Whether the records [a, a + n) and [b, b + n) of r are the same runs
 * (variant up to its footprint tag, bytes and the model's sectors): an
 * experiment that sizes its arrays itself ran the same twice. */
static int same_runs(const cml_results *r, size_t a, size_t b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const cml_record *x = &r->items[a + i], *y = &r->items[b + i];
        size_t lx = untagged_len(x->variant), ly = untagged_len(y->variant);
        if (lx != ly || strncmp(x->variant, y->variant, lx) ||
            x->bytes_read != y->bytes_read || x->bytes_written != y->bytes_written ||
            memcmp(x->model, y->model, sizeof x->model) != 0)
            return 0;
    }
    return 1;
}

/* Append " footprint=TAG" to the variants of records [from, to), or put
 * TAG in place of the one they carry. */
static void tag_records(cml_results *r, size_t from, size_t to, const char *tag)
{
    char sep_tag[48];
    snprintf(sep_tag, sizeof sep_tag, CML_FOOTPRINT_TAG "%s", tag);
    for (size_t k = from; k < to; k++) {
        cml_record *rec = &r->items[k];
        size_t used = untagged_len(rec->variant);
        if (used + strlen(sep_tag) < sizeof rec->variant)
            memcpy(rec->variant + used, sep_tag, strlen(sep_tag) + 1);
    }
}

/* Run exp's validate settings at the lab's plan (every settings line; a
 * failed line is noted). 1 when out of memory. */
static int run_settings(cml_lab *lab, const cml_experiment *exp, cml_results *r, cml_verdicts *v,
                        FILE *out, size_t *printed)
{
    for (const char *const *set = exp->validate->settings; *set; set++) {
        cml_param_values pv;
        char err[512];
        if (cml_lab_options(exp, *set, "its validate settings", &pv, err, sizeof err)) {
            if (judge_failed(cml_verdicts_add_note(v, CML_SUBJECT_SETTINGS, CML_VERDICT_FAILED,
                                                   exp->key, *set, err)))
                return 1;
            print_new(out, v, printed);
            continue;
        }
        (void)cml_lab_run(lab, exp, &pv, r); /* failures: judged per record below */
    }
    return 0;
}

/*
 * Validate exp at both footprints that matter, unless --size fixed one
 * (both_footprints 0): all its arrays in half of L2, then each larger than
 * L2 and all together 4x L2 or more (cml_plan_elements). Each record's
 * variant carries its footprint (" footprint=l2", "=dram"), so that a saved
 * file's records of two footprints are told apart and a control is looked
 * for at its own footprint. An experiment that sizes its arrays itself runs
 * the same twice: its second runs are dropped and its records say
 * "footprint=own". Every run first, then the judging (a record's control may
 * come from a later settings line). 1 when out of memory.
 */
static int validate_experiment(cml_lab *lab, const cml_experiment *exp, cml_results *r,
                               cml_verdicts *v, int both_footprints, FILE *out, size_t *printed)
{
    const size_t first = r->count;
    if (!both_footprints) {
        if (run_settings(lab, exp, r, v, out, printed))
            return 1;
    } else {
        lab->plan.size_bytes = 0;
        lab->plan.where = CML_WHERE_L2;
        if (run_settings(lab, exp, r, v, out, printed))
            return 1;
        const size_t second = r->count;
        tag_records(r, first, second, "l2");
        lab->plan.where = CML_WHERE_DRAM;
        if (run_settings(lab, exp, r, v, out, printed))
            return 1;
        tag_records(r, second, r->count, "dram");
        if (r->count - second == second - first && same_runs(r, first, second, second - first)) {
            r->count = second;
            tag_records(r, first, second, "own");
        }
    }
    /* Each footprint's records judged among themselves. */
    size_t from = first;
    while (from < r->count) {
        size_t to = from + 1;
        const char *tf = strstr(r->items[from].variant, CML_FOOTPRINT_TAG);
        while (to < r->count) {
            const char *tt = strstr(r->items[to].variant, CML_FOOTPRINT_TAG);
            if ((tf == NULL) != (tt == NULL) || (tf && strcmp(tf, tt)))
                break;
            to++;
        }
        for (size_t k = from; k < to; k++)
            if (judge_failed(cml_validate_record(exp, r, k, from, to, v)))
                return 1;
        from = to;
    }
    print_new(out, v, printed);
    return 0;
}

/* The DRAM background control's line (core/dram_background.h). */
static void print_background(FILE *out, const cml_dram_background *b)
{
    if (!b->n) {
        fprintf(out, "DRAM background: not measured; the DRAM noise floor is %.0f bytes\n",
                CML_NOISE_FLOOR_DRAM_BYTES);
        return;
    }
    fprintf(out, "DRAM background (the control of the DRAM floor: every SM reading 32 KiB "
                 "from L2, no DRAM access of its own):");
    for (size_t i = 0; i < b->n; i++)
        fprintf(out, "%s %.0f ms read %.0f B, written %.0f B", i ? ";" : "", b->ms[i],
                b->read_bytes[i], b->write_bytes[i]);
    if (b->stream_n) {
        fprintf(out, "\n  stream controls (the L2 flush read again right after the flush, "
                     "nothing written), DRAM written:");
        for (size_t i = 0; i < b->stream_n; i++)
            fprintf(out, "%s %.0f B in %.3f ms", i ? ";" : "", b->stream_write_bytes[i],
                    b->stream_ms[i]);
    }
    fprintf(out, "\n  DRAM floor of a record: %.0f bytes + %.0f B/ms read, %.0f B/ms written, "
                 "times its longest timed launch, or, if more, 32 B per L2 read miss (read) or "
                 "L2 write (written) of the units outside the GPCs in its range; written: + "
                 "%.0f B, the lines dirty in L2 at a launch's start (the stream controls' "
                 "most)\n",
            CML_NOISE_FLOOR_DRAM_BYTES, cml_dram_background_rate(b, 0),
            cml_dram_background_rate(b, 1), cml_dram_background_dirty(b));
}

/* The DRAM background control's launches (L2 busy, no DRAM access of
 * their own), ms: from a
 * short kernel to longer than the longest record (the hierarchy's 32 KiB
 * copy, 83 ms). */
static const double background_ms[] = {10, 50, 200};

static int judge_file(const cml_results *r, cml_verdicts *v)
{
    for (size_t e = 0; e < cml_experiment_count(); e++) {
        const cml_experiment *exp = cml_experiment_at(e);
        const char *why = not_judged(exp);
        if (why) {
            if (judge_failed(cml_verdicts_add_note(v, CML_SUBJECT_EXPERIMENT,
                                                   CML_VERDICT_SKIPPED, exp->key, "", why)))
                return 1;
            continue;
        }
        size_t n = 0;
        for (size_t k = 0; k < r->count; k++)
            if (!strcmp(r->items[k].experiment, exp->key)) {
                if (judge_failed(cml_validate_record(exp, r, k, 0, r->count, v)))
                    return 1;
                n++;
            }
        if (!n && judge_failed(cml_verdicts_add_note(v, CML_SUBJECT_EXPERIMENT,
                                                     CML_VERDICT_SKIPPED, exp->key, "",
                                                     "no records in the file")))
            return 1;
    }
    /* Records of names this cumemlab does not know (a book program, a
     * newer experiment): named once each, not judged. */
    for (size_t k = 0; k < r->count; k++) {
        const char *name = r->items[k].experiment;
        if (cml_experiment_find(name))
            continue;
        size_t first = 0;
        while (strcmp(r->items[first].experiment, name))
            first++;
        if (first == k && judge_failed(cml_verdicts_add_note(
                              v, CML_SUBJECT_EXPERIMENT, CML_VERDICT_SKIPPED, name, "",
                              "not an experiment of this cumemlab")))
            return 1;
    }
    return 0;
}

/*
 * validate --from FILE: the records of a saved results file judged as
 * validate judges its own runs. The verdicts are the same as a measuring
 * run's when the file holds that run's records (validate --csv writes
 * them; any run with --counters on and the validate settings): each
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
    print_background(out, &r.background);
    fputs(experiments_heading, out);
    cml_verdicts v;
    cml_verdicts_init(&v);
    int rc = judge_file(&r, &v) ? CML_EXIT_FAIL : CML_EXIT_OK;
    if (!rc) {
        size_t next = 0;
        print_new(out, &v, &next);
        int src = print_summary(out, &v);
        int jrc = write_verdicts(cli, &v, r.has_device ? r.device.name : NULL);
        rc = src ? src : jrc;
    }
    cml_verdicts_free(&v);
    cml_results_free(&r);
    return rc;
}

/* A row whose explanation breaks the rules (cml_explained_defect): said
 * on stderr, one line each; 1 when there is one. validate refuses to judge
 * with such a row, whatever it would have found. */
static int rules_defective(void)
{
    char why[512];
    int bad = 0;
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *x = cml_experiment_at(i);
        for (size_t k = 0; x->validate && k < x->validate->nexplained; k++)
            if (cml_explained_defect(x, &x->validate->explained[k], why, sizeof why)) {
                fprintf(stderr, "cumemlab: validate: %s (fix the row)\n", why);
                bad = 1;
            }
    }
    size_t n;
    const cml_explained_diff *every = cml_validate_everywhere(&n);
    for (size_t k = 0; k < n; k++)
        if (cml_explained_defect(NULL, &every[k], why, sizeof why)) {
            fprintf(stderr, "cumemlab: validate: %s (fix src/lab/validate.c)\n", why);
            bad = 1;
        }
    return bad;
}

/* One explanation as validate --rules prints it. */
static void print_rule(const char *experiment, const cml_explained_diff *e)
{
    printf("%-13s %-20s %-45s %-7s <= %4.1f%%  control %-15s %s\n", experiment,
           e->variant_has ? e->variant_has : "(any)", e->metric_has,
           cml_explain_direction_name(e->direction), 100.0 * e->bound_frac, e->control,
           e->section);
    printf("%-13s   mechanism: %s\n", "", e->mechanism);
}

/* validate --rules [--json FILE]: the explanations, no GPU. */
static int validate_rules(const cml_cli *cli)
{
    if (cli->json_path) {
        char err[640];
        if (cml_validate_write_rules_json(cli->json_path, err, sizeof err) != CML_OK) {
            fprintf(stderr, "cumemlab: --json: %s\n", err);
            return CML_EXIT_FAIL;
        }
        if (cli->machine_stdout || cli->quiet)
            return CML_EXIT_OK;
    }
    printf("Explanations validate accepts (docs/model-evidence.md §4): a difference in the\n"
           "direction named, at most the bound (of the sectors asked for, the operation's\n"
           "wavefronts or the predicted figure), when the control run agrees with the model.\n\n");
    for (size_t i = 0; i < cml_experiment_count(); i++) {
        const cml_experiment *x = cml_experiment_at(i);
        for (size_t k = 0; x->validate && k < x->validate->nexplained; k++)
            print_rule(x->key, &x->validate->explained[k]);
    }
    size_t n;
    const cml_explained_diff *every = cml_validate_everywhere(&n);
    for (size_t k = 0; k < n; k++)
        print_rule("(every one)", &every[k]);
    return CML_EXIT_OK;
}

static void print_usage(void)
{
    printf("cumemlab validate [--device N] [--size BYTES] [--reps N] [--warmup N] [--json FILE]\n"
           "                  [--records FILE] [--csv FILE] [--html FILE]\n"
           "  Runs every deterministic pattern of the experiments with GPU kernels, reads the\n"
           "  hardware counters of each variant (CUPTI range profiler, L2 flushed before each\n"
           "  range), sets them beside the model, then runs the probes of docs/model.md (the open questions).\n"
           "  One line per variant: counters measured (per instruction for probes), [model X]\n"
           "  where the model predicts otherwise, and agree / differ. Every pattern runs at two\n"
           "  footprints: all its arrays in half of L2, and each over L2, all 4x L2 or more\n"
           "  (--size BYTES: that size per array alone); 2 repetitions. Exit 1 if a difference\n"
           "  is not explained in\n"
           "  docs/model-evidence.md or a run failed, 2 on bad usage.\n"
           "  --json writes the verdicts (schema cumemlab-validation, docs/json-schema.md);\n"
           "  --records the records measured (cumemlab-results), --csv and --html likewise.\n"
           "cumemlab validate --rules [--json FILE]\n"
           "  Lists every explanation validate accepts: experiment, variant, counter,\n"
           "  mechanism, direction, bound (at most 10%%) and control; no GPU needed.\n"
           "cumemlab validate --from FILE.json[.gz] [--json FILE]\n"
           "  Judges the records of a saved results file the same way, without a GPU (no\n"
           "  probes): a file of validate's own runs (--records) gives validate's verdicts;\n"
           "  another run's file is judged on the variants and controls it holds.\n");
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
    if (cli->rules && (cli->from_path || cli->device_given || cli->size_bytes || cli->reps ||
                       cli->warmup || cli->records_path || cli->csv_path || cli->html_path)) {
        fprintf(stderr, "cumemlab: validate --rules lists the explanations: --from, --device, "
                        "--size, --reps, --warmup, --records, --csv and --html do not apply\n");
        return CML_EXIT_USAGE;
    }
    if (rules_defective())
        return CML_EXIT_FAIL;
    if (cli->rules)
        return validate_rules(cli);
    if (cli->from_path) {
        if (cli->device || cli->size_bytes || cli->reps || cli->warmup || cli->records_path) {
            fprintf(stderr, "cumemlab: validate --from judges a saved file: --device, --size, "
                            "--reps, --warmup and --records do not apply\n");
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
    ls.size_bytes = cli->size_bytes; /* 0: both footprints (validate_experiment) */
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
    char device[sizeof dev->name]; /* for --json, once the lab is closed */
    snprintf(device, sizeof device, "%s", dev->name);
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
                 "L2 flushed before each range by reading %.0f MiB; ",
            (double)cml_counters_flush_bytes(plan.profiler) / 1048576.0);
    if (plan.size_bytes)
        fprintf(out, "arrays %.0f MiB (--size)\n", (double)plan.size_bytes / 1048576.0);
    else
        fprintf(out, "every experiment at two footprints: footprint=l2, all its arrays in half "
                     "of L2 (%.0f MiB), and footprint=dram, each array over L2 and all 4x L2 "
                     "or more; footprint=own: it sizes its arrays itself\n",
                (double)dev->l2_bytes / 2097152.0);
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
    /* Before the experiments: their DRAM values are judged against it. */
    if (cml_counters_dram_background(plan.profiler, background_ms, CML_COUNT(background_ms),
                                     CML_DRAM_BACKGROUND_MAX, &r.background) != CML_OK) {
        /* The stream controls come last: where only they failed, the busy
         * controls stand and DRAM writes are judged without the lines dirty
         * at a launch's start (a lower floor, never a higher one). */
        const int busy_ok = r.background.n == CML_COUNT(background_ms);
        fprintf(out, "DRAM background control failed: %s\n", cml_counters_error(plan.profiler));
        if (cml_results_diag(&r, CML_DIAG_WARNING, NULL,
                             busy_ok ? "validate: the DRAM background's stream controls failed "
                                       "(%s); DRAM writes are judged without the lines dirty "
                                       "in L2 at a launch's start"
                                     : "validate: the DRAM background control failed (%s); DRAM "
                                       "values are judged against the fixed floor alone",
                             cml_counters_error(plan.profiler)) != CML_OK) {
            cml_lab_close(&lab);
            cml_results_free(&r);
            return CML_EXIT_FAIL;
        }
        if (busy_ok)
            r.background.stream_n = 0;
        else
            memset(&r.background, 0, sizeof r.background);
    }
    print_background(out, &r.background);
    fputs(experiments_heading, out);

    cml_verdicts v;
    cml_verdicts_init(&v);
    size_t printed = 0;
    int oom = 0;
    for (size_t e = 0; e < cml_experiment_count() && !oom; e++) {
        const cml_experiment *exp = cml_experiment_at(e);
        const char *why = not_judged(exp);
        if (why) {
            oom = judge_failed(cml_verdicts_add_note(&v, CML_SUBJECT_EXPERIMENT,
                                                     CML_VERDICT_SKIPPED, exp->key, "", why));
            print_new(out, &v, &printed);
            continue;
        }
        oom = validate_experiment(&lab, exp, &r, &v, !cli->size_bytes, out, &printed);
    }

    fprintf(out, "\nProbes (docs/model.md, the open questions; counts per instruction, efficiency in %%):\n");
    for (size_t i = 0; i < cml_probe_count() && !oom; i++) {
        cml_probe_result pr;
        char err[512] = "";
        const cml_probe_def *p = cml_probe_at(i);
        if (cml_probe_run(lab.gpu, plan.profiler, p, &pr, err, sizeof err) != CML_OK)
            oom = judge_failed(cml_verdicts_add_note(&v, CML_SUBJECT_PROBE, CML_VERDICT_FAILED,
                                                     p->question, p->id, err));
        else
            oom = judge_failed(cml_validate_probe(&pr, &v));
        print_new(out, &v, &printed);
    }

    char timing[512];
    cml_counters_timing(plan.profiler, timing, sizeof timing);
    fprintf(out, "\nprofiler: %s\n", timing);
    int rc = oom ? CML_EXIT_FAIL : print_summary(out, &v);
    cml_lab_close(&lab);
    int jrc = oom ? CML_EXIT_OK : write_verdicts(cli, &v, device);
    if (!rc)
        rc = jrc;
    char err[640];
    if (cli->records_path && cml_report_write_file(cli->records_path, cml_report_json, &r, err,
                                                   sizeof err) != CML_OK) {
        fprintf(stderr, "cumemlab: --records: %s\n", err);
        if (!rc)
            rc = CML_EXIT_FAIL;
    }
    /* --csv and --html: the records themselves, as every command writes them. */
    if (cli->csv_path || cli->html_path) {
        cml_cli quiet = *cli;
        quiet.quiet = 1;
        quiet.json_path = NULL;
        int erc = cml_cli_emit(&quiet, &r);
        if (!rc)
            rc = erc;
    }
    cml_verdicts_free(&v);
    cml_results_free(&r);
    return rc;
}
