/*
 * A rank's command in a child process (fleet_mpi_child.h).
 *
 * Why a child: a command that crashes (a fault in a kernel's launcher, an
 * abort in a library) or exits early would otherwise take the rank out of
 * the fleet, and the others would wait for it forever in the gather; as a
 * child it only ends, and the rank reports how. Why it is safe to fork an
 * MPI process here: the child never calls MPI (it runs the command and
 * leaves by _exit, so not even MPI's atexit handlers run in it), and the
 * parent never touches CUDA (CUDA may not be used across a fork once
 * initialised; the child is the first to initialise it). NVML, which the
 * parent reads, is not CUDA and creates no context.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/fleet_mpi_child.h"

#include "gpu/nvml_info.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "gpu/gpu.h"

/* The files of the private folder. */
enum { F_STDOUT, F_STDERR, F_RESULTS, F_JSON_PATH, F_IGNORED, F_COUNT };
static const char *const file_name[F_COUNT] = {"stdout", "stderr", "results.json", "json-path",
                                               "ignored"};

typedef struct child_ctx {
    char path[F_COUNT][4200];
    int local_rank;
} child_ctx;

/* Write text to a new file; what a note could not say is just
 * missing (the parent reads what is there). */
static void write_note(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

/* Does the command's --json hold results? list's and help's do not: with
 * --json, list writes the registry instead of its listing. */
static int writes_results(const cml_cli *cli)
{
    return !cli->help && strcmp(cli->command, "list") != 0 && strcmp(cli->command, "help") != 0;
}

/* The GPUs this process may use, before CUDA starts: the entries of
 * CUDA_VISIBLE_DEVICES when it is set, else every GPU NVML sees; 0 when
 * neither can say. */
static int visible_gpus(const char **list)
{
    *list = getenv("CUDA_VISIBLE_DEVICES");
    if (*list && **list) {
        int n = 1;
        for (const char *p = *list; *p; p++)
            n += *p == ',';
        return n;
    }
    *list = NULL;
    static cml_nvml_snapshot snap; /* large: not on the stack */
    char why[256];
    return cml_nvml_read(&snap, why, sizeof why) ? (int)snap.count : 0;
}

/*
 * The rank's GPU, and only it: the node-local one (local rank modulo the
 * GPUs visible) or the one --device named, made the only GPU the child's
 * CUDA sees (CUDA_VISIBLE_DEVICES, set before CUDA starts), as device 0.
 * Otherwise a command that uses several GPUs (the peer experiment, device
 * --all) would put one rank's work on another rank's card and make both
 * slow. Where the GPUs cannot be counted, or --device names one that is not
 * there, the command runs as given and says why it fails.
 */
static void isolate(cml_cli *cli, int local_rank)
{
    const char *list;
    const int n = visible_gpus(&list);
    const int pick = cli->device_given ? cli->device : n > 0 ? local_rank % n : -1;
    if (n <= 0 || pick < 0 || pick >= n)
        return;
    char one[128];
    if (list) { /* entry `pick` of the list */
        const char *p = list;
        for (int k = 0; k < pick; k++)
            p = strchr(p, ',') + 1;
        const size_t len = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), p);
    } else {
        snprintf(one, sizeof one, "%d", pick);
    }
    if (setenv("CUDA_VISIBLE_DEVICES", one, 1) == 0)
        cli->device = 0;
}

/* In the child, once its options are parsed: note the outputs asked for
 * (rank 0 writes the fleet file where --json said), send the results to
 * the private folder, write no other file (N ranks would overwrite each
 * other's), and take the node-local GPU unless --device named one. */
static int after_parse(cml_cli *cli, int status, void *ctx)
{
    child_ctx *c = ctx;
    if (status)
        return status;
    write_note(c->path[F_JSON_PATH], cli->json_path ? cli->json_path : "");
    char ignored[64] = "";
    if (cli->csv_path)
        strcat(ignored, " --csv");
    if (cli->html_path)
        strcat(ignored, " --html");
    if (cli->records_path)
        strcat(ignored, " --records");
    write_note(c->path[F_IGNORED], ignored[0] ? ignored + 1 : "");
    cli->json_path = writes_results(cli) ? c->path[F_RESULTS] : NULL;
    cli->csv_path = cli->html_path = cli->records_path = NULL;
    if (!cli->model_only && strcmp(cli->command, "model") != 0)
        isolate(cli, c->local_rank);
    return 0;
}

/* The child: its output to the folder's files, then the command. */
static void run_child(child_ctx *c, int argc, char **argv)
{
    int out = open(c->path[F_STDOUT], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(c->path[F_STDERR], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
        _exit(CML_EXIT_FAIL);
    close(out);
    close(err);
    int rc = cml_cli_main(argc, argv, after_parse, c);
    fflush(NULL);
    _exit(rc & 0xff);
}

/* A whole file into memory (NUL-terminated), or NULL when there is none. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n + 1 < cap)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

/* Copy a captured stream to out, each line prefixed; the last non-empty
 * line into last (when not NULL). */
static void forward(const char *path, FILE *out, const char *prefix, char *last, size_t lastlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        /* A line at a time: mpirun merges the ranks' streams in the
         * pieces each writes, so a line written whole stays whole. */
        fprintf(out, "%s%s\n", prefix, line);
        fflush(out);
        if (last && n > 0 && strspn(line, " \t") < (size_t)n)
            snprintf(last, lastlen, "%s", line);
    }
    free(line);
    fclose(f);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* What the child left: status, files, the diagnostic. */
static void collect(cml_fleet_child *c, const child_ctx *x, int wstatus)
{
    size_t len = 0;
    c->results = read_file(x->path[F_RESULTS], &len);
    c->results_len = c->results ? len : 0;
    char *note = read_file(x->path[F_JSON_PATH], &len);
    c->parsed = note != NULL;
    if (note && note[0])
        c->json_path = note;
    else
        free(note);
    note = read_file(x->path[F_IGNORED], &len);
    if (note)
        snprintf(c->ignored, sizeof c->ignored, "%s", note);
    free(note);
    char last[CML_FLEET_DIAG] = "";
    forward(x->path[F_STDERR], stderr, c->prefix, last, sizeof last);
    if (!c->results)
        forward(x->path[F_STDOUT], stdout, c->prefix, NULL, 0);
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        c->exit_status = 128 + sig;
        snprintf(c->diagnostic, sizeof c->diagnostic, "killed by signal %d (%s)", sig,
                 strsignal(sig));
    } else {
        c->exit_status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : CML_EXIT_FAIL;
        /* The command's own line, less the program's name: the table and
         * the file say which rank it was. */
        const char *why = strncmp(last, "cumemlab: ", 10) ? last : last + 10;
        if (c->exit_status && why[0])
            snprintf(c->diagnostic, sizeof c->diagnostic, "%s", why);
        else if (c->exit_status)
            snprintf(c->diagnostic, sizeof c->diagnostic,
                     "exited with status %d, saying nothing on standard error", c->exit_status);
    }
}

static void remove_folder(const child_ctx *x, const char *dir)
{
    for (int i = 0; i < F_COUNT; i++)
        unlink(x->path[i]);
    rmdir(dir);
}

int cml_fleet_child_run(cml_fleet_child *c, int argc, char **argv)
{
    static child_ctx x; /* static: large; one child per process */
    c->exit_status = CML_EXIT_FAIL;
    c->diagnostic[0] = '\0';
    c->results = c->json_path = NULL;
    c->results_len = 0;
    c->parsed = 0;
    c->ignored[0] = '\0';
    c->seconds = 0;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/cumemlab-fleet-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(c->diagnostic, sizeof c->diagnostic,
                 "cannot create a temporary folder in %s: %s", tmp && tmp[0] ? tmp : "/tmp",
                 strerror(errno));
        return -1;
    }
    for (int i = 0; i < F_COUNT; i++)
        snprintf(x.path[i], sizeof x.path[i], "%s/%s", dir, file_name[i]);
    x.local_rank = c->local_rank < 0 ? 0 : c->local_rank;
    fflush(NULL); /* nothing buffered is written twice */
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0)
        run_child(&x, argc, argv);
    if (pid < 0) {
        snprintf(c->diagnostic, sizeof c->diagnostic, "cannot start the command: fork: %s",
                 strerror(errno));
        remove_folder(&x, dir);
        return -1;
    }
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0) {
        if (errno != EINTR) {
            snprintf(c->diagnostic, sizeof c->diagnostic, "lost the command: waitpid: %s",
                     strerror(errno));
            remove_folder(&x, dir);
            return -1;
        }
    }
    c->seconds = now() - t0;
    collect(c, &x, wstatus);
    remove_folder(&x, dir);
    return 0;
}

void cml_fleet_child_free(cml_fleet_child *c)
{
    free(c->results);
    free(c->json_path);
    c->results = c->json_path = NULL;
}
