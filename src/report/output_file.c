/*
 * Output files: resolve what a path leads to once (the same rules serve the
 * check before a run, the same-file test and the writer), then write in
 * place or through an unpredictable temporary file renamed into place.
 * See output_file.h for the rules and why.
 */
#define _XOPEN_SOURCE 700 /* POSIX 2008 with XSI: realpath, fchmod, fsync, sigaction */

#include "report/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"

/* snprintf into err when the caller gave room for a message. */
static void set_err(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* "a" + "/" + "b" (just b when a is NULL), malloc'd. */
static char *join(const char *a, const char *b)
{
    size_t na = a ? strlen(a) : 0, nb = strlen(b);
    char *s = malloc(na + nb + 2);
    if (!s)
        return NULL;
    size_t k = 0;
    if (a) {
        memcpy(s, a, na);
        k = na;
        if (na == 0 || a[na - 1] != '/')
            s[k++] = '/';
    }
    memcpy(s + k, b, nb + 1);
    return s;
}

/* Split at the last '/': the folder ("." when there is none) and the last
 * name, both malloc'd. The caller has refused names ending in '/'. */
static int split_path(const char *path, char **dir, char **base)
{
    const char *slash = strrchr(path, '/');
    *base = dup_str(slash ? slash + 1 : path);
    if (!slash) {
        *dir = dup_str(".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        *dir = malloc(n + 1);
        if (*dir) {
            memcpy(*dir, path, n);
            (*dir)[n] = '\0';
        }
    }
    if (*dir && *base)
        return 0;
    free(*dir);
    free(*base);
    *dir = *base = NULL;
    return -1;
}

/* ------------------------------------------------------------------ */
/* What a path leads to                                               */
/* ------------------------------------------------------------------ */

typedef enum target_kind {
    T_STREAM,  /* our own stdout or stderr: written through that FILE */
    T_DEVICE,  /* character device, FIFO, socket: opened and written in place */
    T_REPLACE, /* an existing regular file: replaced through a temporary file */
    T_CREATE   /* a name not there yet: created through a temporary file */
} target_kind;

typedef struct target {
    target_kind kind;
    int fd;              /* T_STREAM: 1 or 2 */
    char *file;          /* T_REPLACE, T_CREATE: the name renamed onto, links followed */
    char *dir, *base;    /* its folder and last name */
    struct stat st;      /* T_STREAM, T_DEVICE, T_REPLACE: what is there */
} target;

static void target_free(target *t)
{
    free(t->file);
    free(t->dir);
    free(t->base);
    t->file = t->dir = t->base = NULL;
}

static int same_inode(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A dangling symlink (chain) is followed to the name it points at, as the
 * shell's `>` does: that is the name to create. malloc'd; NULL with errno. */
static char *follow_dangling(const char *path)
{
    char *cur = dup_str(path);
    for (int hop = 0; cur && hop < 40; hop++) {
        struct stat ls;
        if (lstat(cur, &ls) != 0 || !S_ISLNK(ls.st_mode))
            return cur; /* the name to create (or an error the caller reports) */
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        buf[n] = '\0';
        char *next;
        if (buf[0] == '/') {
            next = dup_str(buf);
        } else {
            char *d, *b;
            if (split_path(cur, &d, &b) != 0) {
                free(cur);
                return NULL;
            }
            next = join(d, buf);
            free(d);
            free(b);
        }
        free(cur);
        cur = next;
    }
    if (cur) {
        free(cur);
        errno = ELOOP;
    } else {
        errno = ENOMEM;
    }
    return NULL;
}

/* The folder of a file to create must exist, be a folder, and (for the
 * writer's temporary file and the rename) be writable and searchable. */
static int check_dir(const char *path, const char *dir, int need_write, char *err, size_t errlen)
{
    struct stat ds;
    if (stat(dir, &ds) != 0) {
        if (errno == ENOENT)
            set_err(err, errlen, "%s: cannot create: folder '%s' does not exist", path, dir);
        else
            set_err(err, errlen, "%s: cannot create: folder '%s': %s", path, dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(ds.st_mode)) {
        set_err(err, errlen, "%s: cannot create: '%s' is not a folder", path, dir);
        return -1;
    }
    /* AT_EACCESS: the effective ids, which are what open() will use. */
    if (need_write && faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
        set_err(err, errlen, "%s: cannot create: folder '%s' is not writable: %s", path, dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * Resolve path into t: CML_OK, or with err set CML_EINVAL (no name),
 * CML_ENOMEM, CML_EIO (anything about the path). need_write: also check
 * that the folder or device can be written (the check and the writer; not
 * the same-file test).
 */
static cml_status resolve(const char *path, target *t, int need_write, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!path || !path[0]) {
        set_err(err, errlen, "no output file name");
        return CML_EINVAL;
    }
    if (strcmp(path, "-") == 0) {
        t->kind = T_STREAM;
        t->fd = STDOUT_FILENO;
        if (fstat(STDOUT_FILENO, &t->st) != 0)
            memset(&t->st, 0, sizeof t->st);
        return CML_OK;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        /* Our own standard output or error, by whatever name (/dev/stdout,
         * /proc/self/fd/1, a link to them, or the file it was redirected
         * to): written through the stream, in place, never replaced, so
         * that what the stream's owner opened keeps receiving it. */
        for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
            struct stat fs;
            if (fstat(fd, &fs) == 0 && same_inode(&fs, &st)) {
                t->kind = T_STREAM;
                t->fd = fd;
                t->st = st;
                return CML_OK;
            }
        }
        t->st = st;
        if (S_ISDIR(st.st_mode)) {
            set_err(err, errlen, "%s: is a directory, not a file", path);
            return CML_EIO;
        }
        if (S_ISBLK(st.st_mode)) {
            /* Writing a report over a disk is never what was meant. */
            set_err(err, errlen, "%s: is a block device; refusing to write a report onto it",
                    path);
            return CML_EIO;
        }
        if (!S_ISREG(st.st_mode)) {
            t->kind = T_DEVICE;
            if (need_write && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0) {
                set_err(err, errlen, "%s: not writable: %s", path, strerror(errno));
                return CML_EIO;
            }
            return CML_OK;
        }
        /* A regular file: replace the file the links lead to, next to it,
         * so that the rename stays on one file system and the link stays. */
        t->kind = T_REPLACE;
        t->file = realpath(path, NULL);
        if (!t->file) {
            set_err(err, errlen, "%s: cannot resolve: %s", path, strerror(errno));
            return CML_EIO;
        }
    } else if (errno == ENOENT) {
        t->kind = T_CREATE;
        size_t n = strlen(path);
        if (path[n - 1] == '/') {
            set_err(err, errlen, "%s: names a folder, not a file", path);
            return CML_EIO;
        }
        t->file = follow_dangling(path);
        if (!t->file) {
            int e = errno;
            set_err(err, errlen, "%s: cannot follow the link: %s", path, strerror(e));
            return e == ENOMEM ? CML_ENOMEM : CML_EIO;
        }
    } else {
        set_err(err, errlen, "%s: cannot use: %s", path, strerror(errno));
        return CML_EIO;
    }
    if (split_path(t->file, &t->dir, &t->base) != 0) {
        target_free(t);
        set_err(err, errlen, "%s: out of memory", path);
        return CML_ENOMEM;
    }
    if (t->base[0] == '\0' || strcmp(t->base, ".") == 0 || strcmp(t->base, "..") == 0) {
        set_err(err, errlen, "%s: names a folder, not a file", path);
        target_free(t);
        return CML_EIO;
    }
    if (t->kind == T_CREATE && check_dir(path, t->dir, need_write, err, errlen) != 0) {
        target_free(t);
        return CML_EIO;
    }
    if (t->kind == T_REPLACE && need_write && check_dir(path, t->dir, 1, err, errlen) != 0) {
        target_free(t);
        return CML_EIO;
    }
    return CML_OK;
}

int cml_output_check(const char *path, char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    target t;
    if (resolve(path, &t, 1, err, errlen) != CML_OK)
        return -1;
    target_free(&t);
    return 0;
}

int cml_output_same(const char *a, const char *b)
{
    target ta, tb;
    cml_status ra = resolve(a, &ta, 0, NULL, 0);
    cml_status rb = resolve(b, &tb, 0, NULL, 0);
    int same;
    if (ra != CML_OK || rb != CML_OK) {
        same = a && b && strcmp(a, b) == 0;
    } else if (ta.kind == T_STREAM && tb.kind == T_STREAM && ta.fd == tb.fd) {
        same = 1; /* also when the stream cannot be fstat'ed */
    } else if (ta.kind == T_DEVICE && tb.kind == T_DEVICE && S_ISCHR(ta.st.st_mode)) {
        /* A character device is written in place, one document after the
         * other: /dev/null discards both and a terminal shows both, so two
         * outputs there take nothing from each other. A FIFO or socket
         * would hand its reader two documents run together: still one. */
        same = 0;
    } else if (ta.kind != T_CREATE && tb.kind != T_CREATE) {
        same = same_inode(&ta.st, &tb.st) && (ta.st.st_ino != 0 || ta.st.st_dev != 0);
    } else if (ta.kind == T_CREATE && tb.kind == T_CREATE) {
        /* Neither exists: the same name in the same folder, resolved. */
        char *da = realpath(ta.dir, NULL), *db = realpath(tb.dir, NULL);
        same = strcmp(ta.base, tb.base) == 0 &&
               (da && db ? strcmp(da, db) == 0 : strcmp(ta.dir, tb.dir) == 0);
        free(da);
        free(db);
    } else {
        same = 0; /* one exists, the other does not */
    }
    if (ra == CML_OK)
        target_free(&ta);
    if (rb == CML_OK)
        target_free(&tb);
    return same;
}

/* ------------------------------------------------------------------ */
/* Signals: no temporary file outlives an interrupted write           */
/* ------------------------------------------------------------------ */

/* The registry the handler reads: written only while the signals are
 * blocked, so the handler never sees it half-written. */
#define REG_PATH_MAX (PATH_MAX + 512)
static char reg_path[REG_PATH_MAX];
static volatile sig_atomic_t reg_armed;
static volatile sig_atomic_t reg_fired;

/* The signals that end the program before it removes the temporary: the
 * asynchronous ones a user sends (blocked while the registry changes), and
 * the faults of a crash (never blocked: a fault while blocked kills the
 * process at once, whatever the handler). */
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP,
                                       SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NSIG_CLEANUP (sizeof cleanup_signals / sizeof cleanup_signals[0])
#define NSIG_ASYNC 3 /* the first three: blocked by block_signals */
static struct sigaction reg_old[NSIG_CLEANUP];
static int reg_installed[NSIG_CLEANUP];

/* Async-signal-safe only: unlink, sigaction, raise. The previous action is
 * put back. A signal that was sent (kill, raise, abort) is raised again: it
 * is blocked while this runs, so it is delivered when the handler returns,
 * and a default action ends the program with the status the shell expects
 * (130 for SIGINT). A fault of the program's own (SIGSEGV at a bad address)
 * is not: returning runs the faulting instruction again, which now meets
 * the previous action (the default, or a sanitizer's report) with the real
 * fault address. */
static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    int saved = errno;
    if (reg_armed) {
        unlink(reg_path);
        reg_armed = 0;
    }
    reg_fired = 1;
    for (size_t i = 0; i < NSIG_CLEANUP; i++)
        if (cleanup_signals[i] == sig && reg_installed[i]) {
            sigaction(sig, &reg_old[i], NULL);
            reg_installed[i] = 0;
        }
    if (!info || info->si_code <= 0) /* SI_USER, SI_TKILL, SI_QUEUE: sent */
        raise(sig);
    errno = saved;
}

static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NSIG_ASYNC; i++)
        sigaddset(&set, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Called with the signals blocked. A signal the program ignores (nohup,
 * a background job) stays ignored. */
static void install_handlers(void)
{
    reg_fired = 0;
    for (size_t i = 0; i < NSIG_CLEANUP; i++) {
        struct sigaction sa, old;
        reg_installed[i] = 0;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 ||
            (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        if (sigaction(cleanup_signals[i], &sa, &reg_old[i]) == 0)
            reg_installed[i] = 1;
    }
}

/* Called with the signals blocked; a pending one is delivered, with the
 * program's own action, once they are unblocked. */
static void remove_handlers(void)
{
    for (size_t i = 0; i < NSIG_CLEANUP; i++)
        if (reg_installed[i]) {
            sigaction(cleanup_signals[i], &reg_old[i], NULL);
            reg_installed[i] = 0;
        }
    reg_armed = 0;
}

/* ------------------------------------------------------------------ */
/* Writing                                                            */
/* ------------------------------------------------------------------ */

/* splitmix64: spreads a seed over 64 bits. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* 64 unpredictable bits: the kernel's random pool when it can be read
 * (once per process), mixed with the time and a counter so that every
 * call differs. O_EXCL, not the name, is what makes creation safe; the
 * randomness only keeps others from occupying the names in advance. */
static uint64_t random64(void)
{
    static uint64_t seed, counter;
    static int seeded;
    if (!seeded) {
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
                seed = 0;
            close(fd);
        }
        seed ^= (uint64_t)getpid() << 32;
        seeded = 1;
    }
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        ts.tv_sec = ts.tv_nsec = 0;
    counter++;
    return mix64(seed ^ mix64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
                 mix64(counter));
}

/*
 * Create the temporary file next to the target: ".NAME.XXXXXXXXXXXX.tmp",
 * the name cut to stay within NAME_MAX. O_EXCL|O_NOFOLLOW: a name someone
 * else made (a file or a symlink to a victim) is never opened, only skipped.
 * Mode 0666, so the kernel applies the umask, as for any new file. Called
 * with the signals blocked: registers the name before they can arrive.
 */
static int create_temp(const target *t, char *err, size_t errlen, const char *path)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t nbase = strlen(t->base);
    if (nbase > 200)
        nbase = 200;
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[16];
        uint64_t r = random64();
        for (int i = 0; i < 12; i++) {
            suffix[i] = digits[r % 36];
            r /= 36;
        }
        suffix[12] = '\0';
        int n = snprintf(reg_path, sizeof reg_path, "%s%s.%.*s.%s.tmp", t->dir,
                         strcmp(t->dir, "/") == 0 ? "" : "/", (int)nbase, t->base, suffix);
        if (n < 0 || (size_t)n >= sizeof reg_path) {
            set_err(err, errlen, "%s: cannot create: path too long", path);
            return -1;
        }
        int fd = open(reg_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            reg_armed = 1;
            return fd;
        }
        if (errno != EEXIST) {
            set_err(err, errlen, "%s: cannot create a temporary file in '%s': %s", path, t->dir,
                    strerror(errno));
            return -1;
        }
    }
    set_err(err, errlen, "%s: cannot create a temporary file in '%s': every name taken", path,
            t->dir);
    return -1;
}

/* Run fn on f, then flush: the status, and the errno of a failed stream. */
static cml_status run_writer(FILE *f, cml_output_fn fn, const void *ctx, int *saved_errno,
                             int *stream_failed)
{
    errno = 0;
    cml_status st = fn(f, ctx);
    *saved_errno = errno;
    *stream_failed = fflush(f) != 0 || ferror(f);
    if (*stream_failed)
        *saved_errno = errno;
    return st;
}

/* The one-line message for a writer status or a failed stream. */
static cml_status writer_error(cml_status st, int stream_failed, int saved, const char *path,
                               char *err, size_t errlen)
{
    if (st != CML_OK) {
        if (st == CML_EIO && saved)
            set_err(err, errlen, "%s: %s: %s", path, cml_status_str(st), strerror(saved));
        else
            set_err(err, errlen, "%s: %s", path, cml_status_str(st));
        return st;
    }
    if (stream_failed) {
        set_err(err, errlen, "%s: write failed: %s", path,
                saved ? strerror(saved) : "unknown error");
        return CML_EIO;
    }
    return CML_OK;
}

/* A socket file cannot be open()ed: connect to it (a stream socket), which
 * is what writing to it in place means. -1 with errno on failure. */
static int open_socket(const char *path)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    if (strlen(path) >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (connect(fd, (const struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* A stream or device: written in place, as `>` would. */
static cml_status write_in_place(const target *t, const char *path, cml_output_fn fn,
                                 const void *ctx, char *err, size_t errlen)
{
    int saved, failed;
    if (t->kind == T_STREAM) {
        FILE *f = t->fd == STDOUT_FILENO ? stdout : stderr;
        cml_status st = run_writer(f, fn, ctx, &saved, &failed);
        return writer_error(st, failed, saved, path, err, errlen);
    }
    /* A FIFO blocks here until it has a reader, like the shell's `>`. */
    int fd = S_ISSOCK(t->st.st_mode) ? open_socket(path)
                                     : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return CML_EIO;
    }
    /* Swapped for a regular file since it was looked at? Writing at its
     * start without truncating would leave a mix: refuse instead. */
    struct stat now;
    if (fstat(fd, &now) != 0 || S_ISREG(now.st_mode) || S_ISDIR(now.st_mode)) {
        close(fd);
        set_err(err, errlen, "%s: changed while being opened; not written", path);
        return CML_EIO;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        set_err(err, errlen, "%s: out of memory", path);
        return CML_ENOMEM;
    }
    cml_status st = run_writer(f, fn, ctx, &saved, &failed);
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    return writer_error(st, failed, saved, path, err, errlen);
}

/* A file: temporary file, fn, sync, rename; nothing left on failure. */
static cml_status write_replace(const target *t, const char *path, cml_output_fn fn,
                                const void *ctx, char *err, size_t errlen)
{
    sigset_t old_mask;
    block_signals(&old_mask);
    install_handlers();
    int fd = create_temp(t, err, errlen, path);
    if (fd < 0) {
        remove_handlers();
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        return CML_EIO;
    }
    sigprocmask(SIG_SETMASK, &old_mask, NULL);

    cml_status st = CML_OK;
    int saved = 0, failed = 0;
    if (t->kind == T_REPLACE) {
        /* The replaced file's permission bits (not set-id or sticky bits: a
         * report is not a program) and, where allowed, its owner and group:
         * root rewriting a user's file must not take it over. */
        if (fchmod(fd, t->st.st_mode & 0777) != 0) {
            set_err(err, errlen, "%s: cannot set the mode of the new file: %s", path,
                    strerror(errno));
            st = CML_EIO;
        } else if (t->st.st_uid != geteuid() || t->st.st_gid != getegid()) {
            if (fchown(fd, t->st.st_uid, t->st.st_gid) != 0) {
                /* Not allowed (not root): the new file stays ours. */
            }
        }
    }
    FILE *f = st == CML_OK ? fdopen(fd, "w") : NULL;
    if (st == CML_OK && !f) {
        set_err(err, errlen, "%s: out of memory", path);
        st = CML_ENOMEM;
    }
    if (f) {
        st = run_writer(f, fn, ctx, &saved, &failed);
        /* On disk before the rename, so that a crash leaves the old file
         * or the new one, never an empty one. */
        if (st == CML_OK && !failed && fsync(fileno(f)) != 0) {
            failed = 1;
            saved = errno;
        }
        if (fclose(f) != 0 && !failed) {
            failed = 1;
            saved = errno;
        }
        st = writer_error(st, failed, saved, path, err, errlen);
    } else {
        close(fd);
    }

    block_signals(&old_mask);
    if (reg_fired && st == CML_OK) {
        /* A signal the program handles itself removed the file meanwhile. */
        set_err(err, errlen, "%s: interrupted; not written", path);
        st = CML_EIO;
    }
    if (st == CML_OK && rename(reg_path, t->file) != 0) {
        set_err(err, errlen, "%s: cannot rename into place: %s", path, strerror(errno));
        st = CML_EIO;
    }
    if (st != CML_OK && reg_armed)
        unlink(reg_path);
    remove_handlers();
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    return st;
}

cml_status cml_output_write(const char *path, cml_output_fn fn, const void *ctx, char *err,
                            size_t errlen)
{
    set_err(err, errlen, "%s", "");
    if (!path || !path[0] || !fn) {
        set_err(err, errlen, "no output file name");
        return CML_EINVAL;
    }
    target t;
    cml_status st = resolve(path, &t, 1, err, errlen);
    if (st != CML_OK)
        return st;
    if (t.kind == T_STREAM || t.kind == T_DEVICE)
        st = write_in_place(&t, path, fn, ctx, err, errlen);
    else
        st = write_replace(&t, path, fn, ctx, err, errlen);
    target_free(&t);
    return st;
}

/* ------------------------------------------------------------------ */
/* The reporters' entry point (report.h)                              */
/* ------------------------------------------------------------------ */

typedef struct report_ctx {
    cml_report_fn writer;
    const cml_results *r;
} report_ctx;

static cml_status call_reporter(FILE *out, const void *ctx)
{
    const report_ctx *c = ctx;
    return c->writer(out, c->r);
}

cml_status cml_report_write_file(const char *path, cml_report_fn writer, const cml_results *r,
                                 char *err, size_t errlen)
{
    if (!writer) {
        set_err(err, errlen, "no reporter");
        return CML_EINVAL;
    }
    report_ctx c = { writer, r };
    return cml_output_write(path, call_reporter, &c, err, errlen);
}
