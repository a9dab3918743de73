/*
 * PCs to SASS (trace_sass.h): nvdisasm run without a shell, its output
 * read through a pipe and parsed line by line.
 */
#define _XOPEN_SOURCE 700 /* fork, execv, pipe, waitpid, access */
#include "trace/trace_sass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The disassembler the build found ("" when none). */
#ifndef CML_NVDISASM_BUILD
#define CML_NVDISASM_BUILD ""
#endif

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2u : 64u;
    void *a = realloc(*arr, c * size);
    if (!a)
        return -1;
    *arr = a;
    *cap = c;
    return 0;
}

static char *copy(const char *s, size_t n)
{
    char *c = malloc(n + 1u);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* The first occurrence of pat in the n bytes at l (not NUL-terminated),
 * or NULL. */
static const char *find(const char *l, size_t n, const char *pat)
{
    const size_t m = strlen(pat);
    for (size_t i = 0; i + m <= n; i++)
        if (l[i] == pat[0] && !memcmp(l + i, pat, m))
            return l + i;
    return NULL;
}

/* One line: a function's section, or an instruction of the current one. */
static int parse_line(const char *l, size_t n, cml_tf_sass *out, size_t *cap_f, size_t *cap_i)
{
    static const char section[] = ".section\t.text.";
    const char *sec = find(l, n, section);
    if (sec) {
        const char *name = sec + sizeof section - 1u;
        size_t len = 0;
        while (name + len < l + n && name[len] != ',' && name[len] != '\t' && name[len] != ' ')
            len++;
        if (grow((void **)&out->funcs, out->nfuncs, cap_f, sizeof *out->funcs) != 0)
            return -1;
        char *f = copy(name, len);
        if (!f)
            return -1;
        out->funcs[out->nfuncs++] = f;
        return 0;
    }
    /* "        /" "*0130*" "/   STG.E ... ;": spaces, the offset, the text */
    size_t i = 0;
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    if (!out->nfuncs || i + 4 > n || l[i] != '/' || l[i + 1] != '*')
        return 0;
    i += 2;
    uint32_t pc = 0;
    size_t digits = 0;
    for (; i < n && digits < 9; i++, digits++) {
        const char c = l[i];
        const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            break;
        pc = pc * 16u + (uint32_t)v;
    }
    if (digits == 0 || digits > 8 || i + 2 > n || l[i] != '*' || l[i + 1] != '/')
        return 0;
    i += 2;
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    size_t end = i;
    while (end < n && l[end] != ';')
        end++;
    while (end > i && (l[end - 1] == ' ' || l[end - 1] == '\t'))
        end--;
    if (end == i)
        return 0;
    if (grow((void **)&out->ins, out->nins, cap_i, sizeof *out->ins) != 0)
        return -1;
    char *text = copy(l + i, end - i);
    if (!text)
        return -1;
    out->ins[out->nins].func = (uint32_t)(out->nfuncs - 1u);
    out->ins[out->nins].pc = pc;
    out->ins[out->nins++].text = text;
    return 0;
}

int cml_tf_sass_parse(const char *text, size_t n, cml_tf_sass *out)
{
    memset(out, 0, sizeof *out);
    size_t cap_f = 0, cap_i = 0;
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(text + at, '\n', n - at);
        const size_t len = nl ? (size_t)(nl - (text + at)) : n - at;
        if (parse_line(text + at, len, out, &cap_f, &cap_i) != 0) {
            cml_tf_sass_free(out);
            return -1;
        }
        at += len + 1u;
    }
    return 0;
}

int cml_tf_nvdisasm(char *buf, size_t len)
{
    const char *env = getenv("CML_NVDISASM");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return access(buf, X_OK) == 0 ? 0 : -1;
    }
    if (CML_NVDISASM_BUILD[0] && access(CML_NVDISASM_BUILD, X_OK) == 0) {
        snprintf(buf, len, "%s", CML_NVDISASM_BUILD);
        return 0;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const size_t n = strcspn(path, ":");
        snprintf(buf, len, "%.*s/nvdisasm", (int)n, path);
        if (n && access(buf, X_OK) == 0)
            return 0;
        path += n + (path[n] == ':');
    }
    buf[0] = '\0';
    return -1;
}

int cml_tf_sass_read(const char *nvdisasm, const char *cubin, cml_tf_sass *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(err, errlen, "%s: cannot run %s: %s", cubin, nvdisasm, strerror(errno));
        return -1;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        snprintf(err, errlen, "%s: cannot run %s: %s", cubin, nvdisasm, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        /* its complaints are ours to word (err): not on the user's terminal */
        FILE *null = freopen("/dev/null", "w", stderr);
        (void)null;
        /* a name that begins with '-' is a file, not an option */
        char path[4200];
        snprintf(path, sizeof path, "%s%s", cubin[0] == '-' ? "./" : "", cubin);
        char *const argv[] = {(char *)nvdisasm, (char *)"-c", path, NULL};
        execv(nvdisasm, argv);
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 1u << 16, n = 0;
    char *text = malloc(cap);
    ssize_t got = 1;
    while (text && got > 0) {
        if (n == cap) {
            char *t = realloc(text, cap * 2u);
            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            cap *= 2u;
        }
        got = read(fd[0], text + n, cap - n);
        if (got < 0 && errno == EINTR)
            got = 1;
        else if (got > 0)
            n += (size_t)got;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!text || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "%s: %s %s", cubin, nvdisasm,
                 !text ? "out of memory" : "failed on it (is it a cubin it knows?)");
        free(text);
        return -1;
    }
    const int rc = cml_tf_sass_parse(text, n, out);
    free(text);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory", cubin);
    return rc;
}

void cml_tf_sass_free(cml_tf_sass *s)
{
    for (size_t i = 0; i < s->nfuncs; i++)
        free(s->funcs[i]);
    for (size_t i = 0; i < s->nins; i++)
        free(s->ins[i].text);
    free(s->funcs);
    free(s->ins);
    memset(s, 0, sizeof *s);
}

const char *cml_tf_sass_find(const cml_tf_sass *s, const char *func, uint32_t pc)
{
    for (size_t i = 0; i < s->nins; i++)
        if (s->ins[i].pc == pc && !strcmp(s->funcs[s->ins[i].func], func))
            return s->ins[i].text;
    return NULL;
}
