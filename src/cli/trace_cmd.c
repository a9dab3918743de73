/*
 * cumemlab trace [options] -- PROGRAM [ARGS]: run a program with the
 * injection library (src/trace/inject), which records its kernels' memory
 * instructions into a trace file, then report the trace through the model;
 * cumemlab trace --from FILE.trace: report a saved trace, running nothing
 * (docs/trace.md).
 *
 * The program runs as a child with the terminal, standard streams and
 * environment it would have had, plus CUDA_INJECTION64_PATH (how the CUDA
 * driver is told to load a tool's library) and the library's settings
 * (CML_TRACE_*). Its output is its own; cumemlab's report follows it, and
 * cumemlab exits with the program's status (128 + the signal for a program
 * a signal ended) unless that is 0 and the trace could not be reported.
 *
 * The counters (--counters, default auto) come from a second run of the
 * program with the counters library (src/trace/inject/counters_inject.c,
 * CUPTI's kernel replay), and the per-instruction counters from a third
 * (CUPTI's SASS metrics): none can share a run (each one's patches change
 * the code the others count). Those runs' output is not the
 * user's: its standard input is /dev/null, its standard output discarded,
 * and of its standard error only the libraries' own lines are shown. Its
 * CNTR chunks are copied into the trace (cml_tf_splice_counters).
 */
#define _XOPEN_SOURCE 700 /* fork, execvp, waitpid, mkstemp, setenv, readlink */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "counters/counter_map.h"
#include "report/output_file.h"
#include "trace/trace_model.h"
#include "trace/trace_report.h"
#include "trace/trace_report_util.h"

#define LIBRARY "libcumemlab-inject.so"
#define COUNTERS_LIBRARY "libcumemlab-counters.so"
/* Per-instruction counters take a run of the program per kernel: at most
 * this many. */
#define MAX_PCNT_RUNS 10
#define PATCHES "cumemlab-inject-patches.fatbin"
/* Instructions in the ranking, and shown with their lanes. */
#define RANKED 10u
#define DETAILED 3u

static const char *const trace_usage =
    "Usage:\n"
    "  cumemlab trace [options] -- PROGRAM [ARGS]\n"
    "  cumemlab trace --from FILE.trace [--json FILE] [--csv FILE] [--html FILE]\n"
    "\n"
    "Runs PROGRAM with cumemlab's injection library (the Compute Sanitizer API), which\n"
    "records every global, shared and local memory instruction of the kernels chosen\n"
    "(each warp's active lanes and their addresses), then runs the recording through the\n"
    "lab's model: requests, sectors, efficiency, bank conflicts and the cache levels, per\n"
    "instruction and per launch, the instructions ranked by the bytes they waste.\n"
    "PROGRAM's output and exit status pass through. docs/trace.md says more.\n"
    "\n"
    "Options:\n"
    "  --kernel NAME|REGEX   the kernels to record (default: every kernel)\n"
    "  --launch N            the N-th launch of each (1..2147483647; default 1)\n"
    "  --budget BYTES        device memory for a launch's records (1M..64G; default 256M)\n"
    "  --out FILE            keep the trace (and the cubins in FILE.cubins/)\n"
    "  --counters on|off|auto  measure the same launches' counters in a second run\n"
    "                        (CUPTI, kernel replay), and per instruction in a run per\n"
    "                        kernel (SASS metrics, at most 10); default auto: when the\n"
    "                        profiler can\n"
    "  --from FILE           report a saved trace instead of running a program\n"
    "  --json FILE, --csv FILE, --html FILE (a self-contained page: the lanes'\n"
    "                        pictures, the what-if table, bytes wasted per line), --quiet\n";

/* The folder of the running executable ("" when unknown). */
static void exe_dir(char *dir, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1u);
    dir[0] = '\0';
    if (n <= 0)
        return;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
        *slash = '\0';
        snprintf(dir, len, "%s", self);
    }
}

/* The injection library: CML_TRACE_LIBRARY, else beside cumemlab (the
 * build tree), else in the installed library folder. 0, or -1. */
static int find_library(char *lib, size_t len)
{
    const char *env = getenv("CML_TRACE_LIBRARY");
    if (env && *env) {
        snprintf(lib, len, "%s", env);
        return access(lib, R_OK) == 0 ? 0 : -1;
    }
    char dir[PATH_MAX];
    exe_dir(dir, sizeof dir);
    if (!dir[0])
        return -1;
    snprintf(lib, len, "%s/" LIBRARY, dir);
    if (access(lib, R_OK) == 0)
        return 0;
    snprintf(lib, len, "%s/../%s/" LIBRARY, dir, CML_INSTALL_LIBDIR);
    return access(lib, R_OK) == 0 ? 0 : -1;
}

/* The options that only recording uses, refused with --from. */
static int check_usage(const cml_cli *cli)
{
    if (cli->npos) {
        fprintf(stderr, "cumemlab: trace: unexpected argument '%s' (the program comes after "
                        "--: cumemlab trace [options] -- PROGRAM [ARGS])\n",
                cli->pos[0]);
        return CML_EXIT_USAGE;
    }
    if (cli->from_path && cli->program) {
        fprintf(stderr, "cumemlab: trace: --from reports a saved trace; it runs no program "
                        "(drop one of them)\n");
        return CML_EXIT_USAGE;
    }
    if (!cli->from_path && (!cli->program || cli->nprogram == 0)) {
        fprintf(stderr, "cumemlab: trace: name a program after --, or a saved trace with "
                        "--from FILE.trace\n");
        return CML_EXIT_USAGE;
    }
    const char *recording = cli->trace_kernel ? "--kernel"
                            : cli->trace_launch ? "--launch"
                            : cli->trace_budget ? "--budget"
                            : cli->trace_out ? "--out"
                            : cli->counters != CML_COUNTERS_AUTO ? "--counters"
                                             : NULL;
    if (cli->from_path && recording) {
        fprintf(stderr, "cumemlab: trace: %s applies when a program is traced, not to --from\n",
                recording);
        return CML_EXIT_USAGE;
    }
    if (cli->program && cli->machine_stdout) {
        fprintf(stderr, "cumemlab: trace: --json, --csv and --html need a file when a program "
                        "runs (its standard output is the program's own)\n");
        return CML_EXIT_USAGE;
    }
    if (cli->trace_out && cml_output_same(cli->trace_out, "-")) {
        fprintf(stderr, "cumemlab: --out: a file is needed (a trace is binary, not for a "
                        "terminal or a pipe)\n");
        return CML_EXIT_USAGE;
    }
    if (cli->trace_kernel) {
        regex_t re;
        int rc = regcomp(&re, cli->trace_kernel, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[256];
            regerror(rc, &re, why, sizeof why);
            fprintf(stderr, "cumemlab: --kernel: '%s' is not a name or an extended regular "
                            "expression (%s)\n",
                    cli->trace_kernel, why);
            return CML_EXIT_USAGE;
        }
        regfree(&re);
    }
    return CML_EXIT_OK;
}

/* The counters run's settings (NULL: the recording run). */
typedef struct counters_run {
    const char *lib, *out, *log;
    const char *mode; /* "range" (per launch) or "sass" (per instruction) */
    const char *done; /* sass: the kernels counted in earlier runs, a line each */
} counters_run;

/* The metric list of the lab's counter map, comma-separated. */
static void metric_list(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cml_counter_map_count() && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "",
                               cml_counter_map_at(i)->metric);
}

/* In the child: the counters run's environment and streams; 0, or -1. */
static int counters_child(const counters_run *cr)
{
    static char metrics[8192];
    metric_list(metrics, sizeof metrics);
    setenv("CUDA_INJECTION64_PATH", cr->lib, 1);
    setenv("CML_COUNTERS_OUT", cr->out, 1);
    setenv("CML_COUNTERS_METRICS", metrics, 1);
    setenv("CML_COUNTERS_MODE", cr->mode, 1);
    setenv("CML_COUNTERS_DONE", cr->done ? cr->done : "", 1);
    FILE *in = freopen("/dev/null", "r", stdin);
    FILE *o = freopen("/dev/null", "w", stdout);
    FILE *e = freopen(cr->log, "w", stderr);
    return in && o && e ? 0 : -1;
}

/* Run the program with the library (the recording run, or with cr the
 * counters run); its exit status as the shell gives it (128 + signal), or
 * -1 when it could not be started. */
static int run_program(const cml_cli *cli, const char *lib, const char *patches,
                       const char *out, const counters_run *cr)
{
    char num[32];
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cumemlab: trace: cannot start the program: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (cr && counters_child(cr) != 0)
            _exit(127);
        if (!cr) {
            setenv("CUDA_INJECTION64_PATH", lib, 1);
            setenv("CML_TRACE_OUT", out, 1);
            setenv("CML_TRACE_PATCHES", patches, 1);
            setenv("CML_TRACE_CUBINS", cli->trace_out ? "1" : "0", 1);
        }
        setenv("CML_TRACE_KERNEL", cli->trace_kernel ? cli->trace_kernel : "", 1);
        snprintf(num, sizeof num, "%llu",
                 (unsigned long long)(cli->trace_launch ? cli->trace_launch - 1u : 0u));
        setenv("CML_TRACE_LAUNCH", num, 1);
        snprintf(num, sizeof num, "%llu",
                 (unsigned long long)(cli->trace_budget ? cli->trace_budget : 256u << 20));
        setenv("CML_TRACE_BUDGET", num, 1);
        char command[1024];
        cml_cli_join_args(command, sizeof command, cli->nprogram, cli->program);
        setenv("CML_TRACE_COMMAND", command, 1);
        execvp(cli->program[0], cli->program);
        fprintf(stderr, "cumemlab: trace: cannot run '%s': %s\n", cli->program[0],
                strerror(errno));
        _exit(127);
    }
    /* While the program runs, the terminal's interrupt is its business:
     * cumemlab waits, then reports what was traced. */
    struct sigaction ign, old_int, old_quit;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    int status = 0;
    pid_t w;
    do
        w = waitpid(pid, &status, 0);
    while (w < 0 && errno == EINTR);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (w < 0)
        return -1;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "cumemlab: trace: the program%s was ended by signal %d\n",
                cr ? "'s counters run" : "", WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Model every launch of t (read from `path`, shown as `name`) and write
 * the reports. CML_EXIT_OK or _FAIL. */
static int report(const cml_cli *cli, const cml_trace *t, const char *path, const char *name)
{
    cml_tf_model *models = calloc(t->nkernels ? t->nkernels : 1u, sizeof *models);
    if (!models) {
        fprintf(stderr, "cumemlab: trace: out of memory\n");
        return CML_EXIT_FAIL;
    }
    int rc = CML_EXIT_OK;
    for (size_t k = 0; k < t->nkernels && rc == CML_EXIT_OK; k++) {
        cml_status st = cml_tf_model_kernel(t, &t->kernel[k], &models[k]);
        if (st != CML_OK) {
            fprintf(stderr, "cumemlab: trace: %s: the model failed on launch %zu: %s\n", name,
                    k + 1u, cml_status_str(st));
            rc = CML_EXIT_FAIL;
        }
    }
    /* Source lines where the cubins were saved with the trace. */
    cml_tf_sources src;
    if (rc == CML_EXIT_OK && cml_tf_sources_load(t, path, &src) != CML_OK) {
        fprintf(stderr, "cumemlab: trace: out of memory\n");
        rc = CML_EXIT_FAIL;
    } else if (rc == CML_EXIT_OK && src.unreadable) {
        fprintf(stderr, "cumemlab: trace: %zu cubin%s not read, no source lines for %s "
                        "functions: %s\n",
                src.unreadable, src.unreadable == 1 ? "" : "s",
                src.unreadable == 1 ? "its" : "their", src.first_error);
    }
    cml_tf_report r = {t, models, name, DETAILED, RANKED, rc == CML_EXIT_OK ? &src : NULL, NULL,
                       CUMEMLAB_VERSION};
    if (rc == CML_EXIT_OK) {
        cml_status st = cml_tfr_whatif(&r);
        if (st != CML_OK) {
            fprintf(stderr, "cumemlab: trace: %s: the what-if transforms failed: %s\n", name,
                    cml_status_str(st));
            rc = CML_EXIT_FAIL;
        }
    }
    if (rc == CML_EXIT_OK && !cli->quiet &&
        cml_tf_report_text(cml_cli_human_out(cli), &r) != CML_OK)
        rc = CML_EXIT_FAIL;
    const char *paths[3] = {cli->json_path, cli->csv_path, cli->html_path};
    const cml_output_fn fns[3] = {cml_tf_report_json, cml_tf_report_csv, cml_tf_report_html};
    for (int i = 0; i < 3 && rc == CML_EXIT_OK; i++) {
        char err[700];
        if (paths[i] && cml_output_write(paths[i], fns[i], &r, err, sizeof err) != CML_OK) {
            fprintf(stderr, "cumemlab: %s\n", err);
            rc = CML_EXIT_FAIL;
        }
    }
    cml_tfr_whatif_free(&r);
    for (size_t k = 0; k < t->nkernels; k++)
        cml_tf_model_free(&models[k]);
    free(models);
    if (r.src)
        cml_tf_sources_free(&src);
    return rc;
}

/* A temporary file for the trace (TMPDIR or /tmp); 0, or -1. */
static int temp_trace(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/cumemlab-trace-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "cumemlab: trace: cannot create a temporary file in %s: %s\n",
                dir && *dir ? dir : "/tmp", strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

/* Show the lines the libraries wrote into the counters run's log. */
static void show_library_lines(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "cumemlab trace:", 15) == 0)
            fputs(line, stderr);
    if (f)
        fclose(f);
}

/* One counters run in `mode` ("range" or "sass", with the kernels already
 * counted in `done`), its chunks copied into the trace at `out`; the
 * kernel a "sass" run counted into counted[] ("" : none). 1, or 0 when it
 * failed (said). */
static int counters_run_once(const cml_cli *cli, const char *clib, const char *out,
                             const char *cout, const char *log, const char *mode,
                             const char *done, char *counted, size_t counted_len)
{
    remove(cout);
    counters_run cr = {clib, cout, log, mode, done};
    const int st = run_program(cli, clib, NULL, NULL, &cr);
    show_library_lines(log);
    remove(log);
    const char *what = strcmp(mode, "sass") ? "counters run" : "per-instruction counters run";
    char err[700];
    int ok = 0;
    cml_trace c;
    if (st != 0) {
        fprintf(stderr, "cumemlab: trace: counters not measured: the program's %s ended with "
                        "status %d, the first run with 0\n",
                what, st);
    } else if (access(cout, R_OK) != 0) {
        fprintf(stderr, "cumemlab: trace: counters not measured: the counters library wrote "
                        "nothing in the %s (its lines above say why, or CUDA did not load it)\n",
                what);
    } else if (cml_tf_read(cout, &c, err, sizeof err) != 0) {
        fprintf(stderr, "cumemlab: trace: counters not measured: %s\n", err);
    } else {
        if (counted && c.npcnt)
            snprintf(counted, counted_len, "%s", c.pcnt[0].kernel);
        cml_tf_free(&c);
        ok = cml_tf_splice_counters(out, cout, err, sizeof err) == 0;
        if (!ok)
            fprintf(stderr, "cumemlab: trace: counters not measured: %s\n", err);
    }
    remove(cout);
    return ok;
}

/* The counters run, after the recording run ended with `status`, its CNTR
 * chunks copied into the trace at `out`. CML_EXIT_OK, or CML_EXIT_FAIL when
 * --counters on and they could not be measured (with auto: said, not a
 * failure). */
static int measure_counters(const cml_cli *cli, const char *lib, const char *out, int status)
{
    const int must = cli->counters == CML_COUNTERS_ON;
    char clib[PATH_MAX + 64], cout[PATH_MAX + 16], log[PATH_MAX + 16];
    snprintf(clib, sizeof clib, "%s", lib);
    char *slash = strrchr(clib, '/');
    snprintf(slash ? slash + 1 : clib, sizeof clib - (size_t)(slash ? slash + 1 - clib : 0), "%s",
             COUNTERS_LIBRARY);
    const char *why = NULL;
    if (status != 0)
        why = "the program did not end with status 0, so it is not run again";
    else if (access(clib, R_OK) != 0)
        why = "the counters library (" COUNTERS_LIBRARY ") was not built (no CUPTI)";
    if (why) {
        fprintf(stderr, "cumemlab: trace: counters not measured: %s\n", why);
        return must ? CML_EXIT_FAIL : CML_EXIT_OK;
    }
    /* Per launch (the range profiler), then per instruction (SASS
     * metrics), each in runs of its own, as each changes what the other
     * would count; per instruction one kernel a run (counters_inject.c,
     * sass_done, says why), so as many runs as the trace has kernels. */
    cml_trace t;
    char err[700];
    size_t kernels = 0;
    if (cml_tf_read(out, &t, err, sizeof err) == 0) {
        kernels = t.nkernels;
        cml_tf_free(&t);
    }
    snprintf(cout, sizeof cout, "%s.counters", out);
    snprintf(log, sizeof log, "%s.log", out);
    char *done = calloc(1, 1);
    size_t done_len = 0;
    int ok = done != NULL;
    if (ok)
        ok = counters_run_once(cli, clib, out, cout, log, "range", NULL, NULL, 0);
    if (kernels > MAX_PCNT_RUNS) {
        fprintf(stderr, "cumemlab: trace: per-instruction counters for the first %d of the %zu "
                        "kernels recorded (a run of the program each; --kernel chooses "
                        "others)\n",
                MAX_PCNT_RUNS, kernels);
        kernels = MAX_PCNT_RUNS;
    }
    for (size_t run = 0; ok && done && run < kernels; run++) {
        char counted[CML_TF_MAX_STRING + 1] = "";
        ok = counters_run_once(cli, clib, out, cout, log, "sass", done, counted, sizeof counted);
        if (!ok || !counted[0])
            break; /* every chosen kernel counted, or nothing more to count */
        char *more = realloc(done, done_len + strlen(counted) + 2u);
        if (!more)
            break;
        done = more;
        done_len += (size_t)sprintf(done + done_len, "%s\n", counted);
    }
    free(done);
    return !ok && must ? CML_EXIT_FAIL : CML_EXIT_OK;
}

static int trace_program(const cml_cli *cli)
{
    char lib[PATH_MAX + 64], patches[PATH_MAX + 64], tmp[PATH_MAX];
    if (find_library(lib, sizeof lib) != 0) {
        fprintf(stderr, "cumemlab: trace: the injection library (" LIBRARY ") was not found: "
                        "this cumemlab was built without the Compute Sanitizer API "
                        "(scripts/install-deps.sh fetches it; then build again), or set "
                        "CML_TRACE_LIBRARY\n");
        return CML_EXIT_FAIL;
    }
    snprintf(patches, sizeof patches, "%s", lib);
    char *slash = strrchr(patches, '/');
    snprintf(slash ? slash + 1 : patches, sizeof patches - (size_t)(slash ? slash + 1 - patches : 0),
             "%s", PATCHES);
    const char *out = cli->trace_out;
    if (!out) {
        if (temp_trace(tmp, sizeof tmp) != 0)
            return CML_EXIT_FAIL;
        out = tmp;
    } else {
        remove(out); /* no stale trace can pass for this run's */
    }
    const int status = run_program(cli, lib, patches, out, NULL);
    int crc = CML_EXIT_OK;
    if (cli->counters != CML_COUNTERS_OFF)
        crc = measure_counters(cli, lib, out, status);
    cml_trace t;
    char err[600];
    int rc;
    struct stat st;
    if (stat(out, &st) != 0 || st.st_size == 0) {
        fprintf(stderr, "cumemlab: trace: no trace was written: the program made no CUDA call, "
                        "or the CUDA driver did not load the injection library\n");
        rc = CML_EXIT_FAIL;
    } else if (cml_tf_read(out, &t, err, sizeof err) != 0) {
        fprintf(stderr, "cumemlab: trace: %s\n", err);
        rc = CML_EXIT_FAIL;
    } else {
        rc = report(cli, &t, out, cli->trace_out ? cli->trace_out : "(temporary)");
        cml_tf_free(&t);
    }
    if (!cli->trace_out)
        remove(out);
    if (status < 0)
        return CML_EXIT_FAIL;
    return status != 0 ? status : rc != CML_EXIT_OK ? rc : crc;
}

int cml_cmd_trace(const cml_cli *cli)
{
    if (cli->help) {
        fputs(trace_usage, stdout);
        return CML_EXIT_OK;
    }
    int rc = check_usage(cli);
    if (rc)
        return rc;
    if (cli->program)
        return trace_program(cli);
    cml_trace t;
    char err[600];
    if (cml_tf_read(cli->from_path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "cumemlab: trace: %s\n", err);
        return CML_EXIT_FAIL;
    }
    rc = report(cli, &t, cli->from_path, cli->from_path);
    cml_tf_free(&t);
    return rc;
}
