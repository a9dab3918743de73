/*
 * Output files (src/report/output_file.c): what each kind of target gets
 * (new file, replaced file and its mode, symlink to a file, dangling
 * symlink, /dev/null, a FIFO, a socket, our own stdout under four names, a
 * directory), the old predictable temporary name planted as a symlink,
 * SIGINT and SIGTERM in the middle of a write (in a child process), the
 * check made before a run, and the same-file test. Runs as root or not;
 * the parts that need one or the other say so and are skipped otherwise.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink, mkfifo, fork, sockets, realpath */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/output_file.h"
#include "test_util.h"

static char dir[64];

/* dir + "/" + name, in one of a few rotating buffers. */
static const char *at(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static cml_status write_text(FILE *out, const void *ctx)
{
    fputs((const char *)ctx, out);
    return CML_OK;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int has(const char *path, const char *text)
{
    const char *got = slurp(path);
    return got && strcmp(got, text) == 0;
}

/* Names in dir that look like temporary files (".NAME.XXXX.tmp", the old
 * "NAME.tmp.PID"). */
static size_t temporaries(void)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if ((len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0) || strstr(e->d_name, ".tmp."))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static int is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static cml_status wr(const char *path, const char *text, char *err, size_t errlen)
{
    return cml_output_write(path, write_text, text, err, errlen);
}

/* ------------------------------------------------------------------ */

static void test_files(void)
{
    char err[512];
    /* New file: 0666 & ~umask, whatever the umask. */
    mode_t old = umask(022);
    CHECK(wr(at("new.json"), "one\n", err, sizeof err) == CML_OK);
    CHECK(has(at("new.json"), "one\n"));
    CHECK_EQ_U64(mode_of(at("new.json")), 0644);
    umask(077);
    CHECK(wr(at("private.json"), "p\n", err, sizeof err) == CML_OK);
    CHECK_EQ_U64(mode_of(at("private.json")), 0600);
    umask(old);

    /* Replacing keeps the mode of the file replaced (0600 stays 0600, not
     * 0666 & ~umask), and replaces it: a new inode, renamed over. */
    put(at("keep.json"), "old\n");
    chmod(at("keep.json"), 0600);
    struct stat before, after;
    stat(at("keep.json"), &before);
    CHECK(wr(at("keep.json"), "new\n", err, sizeof err) == CML_OK);
    CHECK(has(at("keep.json"), "new\n"));
    CHECK_EQ_U64(mode_of(at("keep.json")), 0600);
    stat(at("keep.json"), &after);
    CHECK(before.st_ino != after.st_ino);
    chmod(at("keep.json"), 0640);
    CHECK(wr(at("keep.json"), "again\n", err, sizeof err) == CML_OK);
    CHECK_EQ_U64(mode_of(at("keep.json")), 0640);

    /* A symlink to a regular file: the link stays, its target is replaced
     * in the target's folder. */
    mkdir(at("real"), 0755);
    put(at("real/target.json"), "old\n");
    chmod(at("real/target.json"), 0604);
    CHECK(symlink("real/target.json", at("link.json")) == 0);
    CHECK(wr(at("link.json"), "via link\n", err, sizeof err) == CML_OK);
    CHECK(is_link(at("link.json")));
    CHECK(has(at("real/target.json"), "via link\n"));
    CHECK_EQ_U64(mode_of(at("real/target.json")), 0604);

    /* A dangling symlink: the name it points at is created; the link stays. */
    CHECK(symlink("real/later.json", at("dangling.json")) == 0);
    CHECK(wr(at("dangling.json"), "made\n", err, sizeof err) == CML_OK);
    CHECK(is_link(at("dangling.json")));
    CHECK(has(at("real/later.json"), "made\n"));

    /* A directory: refused, clearly. */
    CHECK(wr(at("real"), "x", err, sizeof err) == CML_EIO);
    CHECK_STR_CONTAINS(err, "is a directory");
    CHECK(wr(at("real/"), "x", err, sizeof err) == CML_EIO);
    CHECK(wr("", "x", err, sizeof err) == CML_EINVAL);

    /* A missing folder: named in the message. */
    CHECK(wr(at("nodir/x.csv"), "x", err, sizeof err) == CML_EIO);
    CHECK_STR_CONTAINS(err, "does not exist");
    CHECK_STR_CONTAINS(err, "nodir");

    /* The old predictable name, planted as a symlink to a victim: never
     * followed (the temporary name is random, opened O_EXCL|O_NOFOLLOW). */
    put(at("victim"), "precious\n");
    char planted[600];
    snprintf(planted, sizeof planted, "%s.tmp.%ld", at("out.json"), (long)getpid());
    CHECK(symlink(at("victim"), planted) == 0);
    CHECK(wr(at("out.json"), "report\n", err, sizeof err) == CML_OK);
    CHECK(has(at("victim"), "precious\n"));
    CHECK(has(at("out.json"), "report\n"));
    CHECK(is_link(planted));
    unlink(planted);

    CHECK_EQ_U64(temporaries(), 0);
}

/* Root replacing a user's file leaves it the user's. */
static void test_owner_kept_as_root(void)
{
    if (geteuid() != 0) {
        printf("test_output_file: owner test skipped: not root\n");
        return;
    }
    char err[512];
    put(at("users.json"), "old\n");
    if (chown(at("users.json"), 65534, 65534) != 0) {
        CHECK(0);
        return;
    }
    CHECK(wr(at("users.json"), "new\n", err, sizeof err) == CML_OK);
    struct stat st;
    CHECK(stat(at("users.json"), &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534);
}

/* ------------------------------------------------------------------ */
/* Targets written in place                                           */
/* ------------------------------------------------------------------ */

static void test_devices(void)
{
    char err[512];
    /* /dev/null, directly and through a link: stays a device. */
    CHECK(wr("/dev/null", "x", err, sizeof err) == CML_OK);
    CHECK(symlink("/dev/null", at("null.json")) == 0);
    CHECK(wr(at("null.json"), "x", err, sizeof err) == CML_OK);
    CHECK(is_link(at("null.json")));
    struct stat st;
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    /* /dev/full: in place, so the write fails, and says so. */
    CHECK(wr("/dev/full", "x", err, sizeof err) == CML_EIO);
    CHECK_STR_CONTAINS(err, "/dev/full");

    /* A FIFO: a child reads what is written into it; it stays a FIFO. */
    CHECK(mkfifo(at("pipe"), 0600) == 0);
    pid_t child = fork();
    if (child == 0) {
        const char *got = slurp(at("pipe"));
        _exit(got && strcmp(got, "through the fifo\n") == 0 ? 0 : 1);
    }
    CHECK(wr(at("pipe"), "through the fifo\n", err, sizeof err) == CML_OK);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(stat(at("pipe"), &st) == 0 && S_ISFIFO(st.st_mode));

    /* A socket: connected to and written. */
    int ls = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("sock"));
    CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(ls, 1) == 0);
    CHECK(wr(at("sock"), "to the socket\n", err, sizeof err) == CML_OK);
    int cs = accept(ls, NULL, NULL);
    char buf[64] = "";
    ssize_t n = cs >= 0 ? read(cs, buf, sizeof buf - 1) : -1;
    CHECK(n == 14 && memcmp(buf, "to the socket\n", 14) == 0);
    if (cs >= 0)
        close(cs);
    close(ls);
    CHECK(stat(at("sock"), &st) == 0 && S_ISSOCK(st.st_mode));
}

/* Our standard output by four names, redirected to a regular file: the
 * stream receives the text in order, and the file is never replaced. */
static void test_stdout(void)
{
    char err[512];
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(at("stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(saved >= 0 && fd >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
    close(fd);
    struct stat before, after;
    fstat(STDOUT_FILENO, &before);
    CHECK(symlink("/proc/self/fd/1", at("o.json")) == 0);
    printf("table\n");
    cml_status s1 = wr("-", "dash\n", err, sizeof err);
    cml_status s2 = wr("/dev/stdout", "dev\n", err, sizeof err);
    cml_status s3 = wr(at("o.json"), "link\n", err, sizeof err);
    cml_status s4 = wr(at("stdout.txt"), "name\n", err, sizeof err);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    CHECK(s1 == CML_OK && s2 == CML_OK && s3 == CML_OK && s4 == CML_OK);
    CHECK(has(at("stdout.txt"), "table\ndash\ndev\nlink\nname\n"));
    CHECK(is_link(at("o.json")));
    CHECK(stat(at("stdout.txt"), &after) == 0 && after.st_ino == before.st_ino);
    CHECK_EQ_U64(temporaries(), 0);
}

/* ------------------------------------------------------------------ */
/* Signals during a write                                             */
/* ------------------------------------------------------------------ */

static int caught;
static void on_int(int sig)
{
    (void)sig;
    caught++;
}

/* Writes half, signals itself, writes the rest. */
static cml_status write_then_signal(FILE *out, const void *ctx)
{
    fputs("{\"partial\": ", out);
    fflush(out);
    raise(*(const int *)ctx);
    fputs("true}\n", out);
    return CML_OK;
}

/* In a child: the write is interrupted by sig with its default action.
 * The child dies by sig, the target keeps its old text, no temporary. */
static void test_signal_kills(int sig)
{
    put(at("sig.json"), "old\n");
    pid_t child = fork();
    if (child == 0) {
        signal(sig, SIG_DFL);
        cml_output_write(at("sig.json"), write_then_signal, &sig, NULL, 0);
        _exit(0); /* not reached: the signal ends the child */
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
    CHECK(has(at("sig.json"), "old\n"));
    CHECK_EQ_U64(temporaries(), 0);
}

/* With the program's own handler: it still runs, the write reports the
 * interruption, the target keeps its old text, no temporary; and the
 * handler is the program's again afterwards. */
static void test_signal_handled(void)
{
    char err[512];
    int sig = SIGINT;
    put(at("sig.json"), "old\n");
    struct sigaction sa, prev, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_int;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &prev);
    caught = 0;
    cml_status st = cml_output_write(at("sig.json"), write_then_signal, &sig, err, sizeof err);
    CHECK(st == CML_EIO);
    CHECK_STR_CONTAINS(err, "interrupted");
    CHECK(caught == 1);
    CHECK(has(at("sig.json"), "old\n"));
    CHECK_EQ_U64(temporaries(), 0);
    sigaction(SIGINT, NULL, &now);
    CHECK(now.sa_handler == on_int);
    /* Outside a write, the program's handler alone. */
    raise(SIGINT);
    CHECK(caught == 2);
    sigaction(SIGINT, &prev, NULL);
}

/* ------------------------------------------------------------------ */
/* Before the run: check and same file                                */
/* ------------------------------------------------------------------ */

static void test_check(void)
{
    char err[512];
    CHECK(cml_output_check("-", err, sizeof err) == 0);
    CHECK(cml_output_check("/dev/null", err, sizeof err) == 0);
    CHECK(cml_output_check("/dev/stdout", err, sizeof err) == 0);
    CHECK(cml_output_check(at("fresh.json"), err, sizeof err) == 0);
    CHECK(cml_output_check(at("keep.json"), err, sizeof err) == 0);
    CHECK(cml_output_check(at("pipe"), err, sizeof err) == 0);
    CHECK(cml_output_check(at("link.json"), err, sizeof err) == 0);

    CHECK(cml_output_check(at("nodir/x.csv"), err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "nodir/x.csv: cannot create: folder '");
    CHECK_STR_CONTAINS(err, "nodir' does not exist");
    CHECK(cml_output_check(at("real"), err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "is a directory");
    CHECK(cml_output_check(at("keep.json/x"), err, sizeof err) == -1);
    CHECK(cml_output_check("", err, sizeof err) == -1);
    /* Nothing was written by any of that. */
    struct stat st;
    CHECK(stat(at("fresh.json"), &st) != 0);

    /* A folder that cannot be written: only meaningful when not root
     * (root may write anywhere). */
    mkdir(at("ro"), 0555);
    if (geteuid() != 0) {
        CHECK(cml_output_check(at("ro/x.json"), err, sizeof err) == -1);
        CHECK_STR_CONTAINS(err, "not writable");
        CHECK(wr(at("ro/x.json"), "x", err, sizeof err) == CML_EIO);
    } else {
        printf("test_output_file: read-only folder check skipped: root\n");
    }
    chmod(at("ro"), 0755);

    /* A block device, if this system shows one: refused. */
    static const char *const blk[] = { "/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1" };
    for (size_t i = 0; i < sizeof blk / sizeof blk[0]; i++)
        if (stat(blk[i], &st) == 0 && S_ISBLK(st.st_mode)) {
            CHECK(cml_output_check(blk[i], err, sizeof err) == -1);
            CHECK_STR_CONTAINS(err, "block device");
            break;
        }
}

static void test_same(void)
{
    CHECK(cml_output_same("-", "-"));
    CHECK(cml_output_same("-", "/dev/stdout"));
    /* A character device takes each output in place, one after the other:
     * /dev/null twice (or through a link) is no conflict. A FIFO is: its
     * reader would get two documents run together. */
    CHECK(!cml_output_same("/dev/null", "/dev/null"));
    CHECK(!cml_output_same("/dev/null", at("null.json")));
    CHECK(cml_output_same(at("pipe"), at("pipe")));
    CHECK(cml_output_same(at("keep.json"), at("keep.json")));
    CHECK(cml_output_same(at("link.json"), at("real/target.json")));
    CHECK(cml_output_same(at("real/../keep.json"), at("keep.json")));
    link(at("keep.json"), at("hard.json"));
    CHECK(cml_output_same(at("hard.json"), at("keep.json")));
    CHECK(!cml_output_same(at("keep.json"), at("new.json")));
    /* Not there yet: the same name in the same folder. */
    CHECK(cml_output_same(at("a.json"), at("real/../a.json")));
    CHECK(cml_output_same(at("dangling2.json"), at("real/later2.json")) == 0);
    CHECK(symlink("real/later2.json", at("dangling2.json")) == 0);
    CHECK(cml_output_same(at("dangling2.json"), at("real/later2.json")));
    CHECK(!cml_output_same(at("a.json"), at("b.json")));
    CHECK(!cml_output_same(at("a.json"), at("keep.json")));
    /* Relative and absolute spellings. */
    char cwd[512];
    if (getcwd(cwd, sizeof cwd) && chdir(dir) == 0) {
        CHECK(cml_output_same("a.json", at("a.json")));
        CHECK(cml_output_same("./keep.json", at("keep.json")));
        CHECK(chdir(cwd) == 0);
    }
}

/* Remove everything made under dir (one level of subfolders). */
static void cleanup(void)
{
    static const char *const sub[] = { "real", "ro" };
    for (size_t s = 0; s < 2; s++) {
        DIR *d = opendir(at(sub[s]));
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char p[600];
            snprintf(p, sizeof p, "%s/%s/%s", dir, sub[s], e->d_name);
            if (e->d_name[0] != '.')
                unlink(p);
        }
        if (d)
            closedir(d);
        rmdir(at(sub[s]));
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(at(e->d_name));
    if (d)
        closedir(d);
    rmdir(dir);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/cml_test_output_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_files();
    test_owner_kept_as_root();
    test_devices();
    test_stdout();
    test_signal_kills(SIGINT);
    test_signal_kills(SIGTERM);
    test_signal_handled();
    test_check();
    test_same();
    cleanup();
    return cml_test_summary("test_output_file");
}
