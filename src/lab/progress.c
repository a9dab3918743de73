/*
 * The progress line of a command (lab/progress.h): the engine draws it
 * itself, as each point of a sweep starts (cml_plan.progress, set by
 * cml_lab_open) and as the command's loop over experiments says
 * (cml_progress), so no layer calls back up into the command line for it.
 */
#include "lab/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/*
 * Progress on stderr, never in the JSON/CSV/HTML (files) nor on stdout:
 *   - on a terminal, one line rewritten in place: "[3/16] stride ... 4.2 s
 *     elapsed" as each experiment of a suite starts, "[3/16] pitch2d 5/16
 *     ... 12.3 s" (or "pitch2d 5/16 ..." outside a suite) as each point of
 *     a sweep starts; only once the run has taken a second (short runs stay
 *     silent), and erased before the table;
 *   - elsewhere (a log, a pipe, CI), plain lines that are never rewritten,
 *     and few: "cumemlab: [3/16] stride ... 4.2 s elapsed" as each
 *     experiment of a suite starts, and within a sweep one line every 10 s
 *     at most; none with -q.
 * C11's timespec_get, not a POSIX clock: the elapsed time is for a person.
 */
#define PROGRESS_LOG_EVERY_S 10.0

static struct {
    int tty, running, shown, quiet;
    struct timespec start;
    double logged;       /* elapsed at the last plain line */
    size_t exp_i, exp_n; /* the suite's experiment, 0 of 0 outside a suite */
} progress = {-1, 0, 0, 0, {0, 0}, 0.0, 0, 0};

static void progress_text(const char *name, size_t point, size_t points, double elapsed)
{
    if (progress.exp_n)
        fprintf(stderr, "[%zu/%zu] ", progress.exp_i + 1, progress.exp_n);
    fprintf(stderr, "%s", name);
    if (points > 1)
        fprintf(stderr, " %zu/%zu", point + 1, points);
    fprintf(stderr, " ... %.1f s elapsed", elapsed);
}

/* starts: an experiment of a suite starts (else a point of a sweep). */
static void progress_draw(const char *name, size_t point, size_t points, int starts)
{
    if (progress.tty < 0)
        progress.tty = isatty(STDERR_FILENO);
    if (!progress.tty && progress.quiet)
        return;
    struct timespec now;
    if (!timespec_get(&now, TIME_UTC))
        return;
    if (!progress.running) {
        progress.start = now;
        progress.running = 1;
        progress.logged = 0.0;
    }
    double elapsed = (double)(now.tv_sec - progress.start.tv_sec) +
                     1e-9 * (double)(now.tv_nsec - progress.start.tv_nsec);
    if (!progress.tty) {
        if (starts ? !progress.exp_n : elapsed - progress.logged < PROGRESS_LOG_EVERY_S)
            return;
        fputs("cumemlab: ", stderr);
        progress_text(name, point, points, elapsed);
        fputc('\n', stderr);
        fflush(stderr);
        progress.logged = elapsed;
        return;
    }
    if (elapsed < 1.0)
        return;
    fputs("\r\033[K", stderr);
    progress_text(name, point, points, elapsed);
    fflush(stderr);
    progress.shown = 1;
}

void cml_progress(size_t i, size_t n, const char *name)
{
    if (!name) {
        if (progress.shown)
            fputs("\r\033[K", stderr);
        fflush(stderr);
        progress.running = progress.shown = 0;
        progress.exp_i = progress.exp_n = 0;
        return;
    }
    progress.exp_i = i;
    progress.exp_n = n;
    progress_draw(name, 0, 0, 1);
}

void cml_progress_point(void *user, const char *experiment, size_t point, size_t points)
{
    (void)user;
    progress_draw(experiment, point, points, 0);
}

void cml_progress_quiet(int quiet)
{
    progress.quiet = quiet;
}

