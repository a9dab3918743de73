/*
 * cml_results_read_file (json_read.h): a results file, or standard input,
 * read in pieces into the streaming reader, never whole (and any other
 * document of the lab the same way: cml_json_read_file, a fleet file). A file that starts
 * with gzip's magic bytes is decompressed on the way (gzip_input.c),
 * whatever its name: `report run.json.gz` and `zcat | report -` read alike.
 * The cap on what a results file may hold is counted here, on the JSON text
 * (after decompression).
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat: the size cap */

#include "report/json_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/gzip_input.h"

/*
 * The most a results file may hold: 1 GiB of JSON text. A results file of
 * 100,000 records is about 300 MB; without a cap `cumemlab report
 * /dev/zero` of spaces, a runaway pipe or a small gzip bomb would keep the
 * reader going for ever. docs/json-schema.md names it.
 */
#define MAX_INPUT ((unsigned long long)1 << 30)
#define MAX_INPUT_TEXT "1 GiB"

typedef struct file_input {
    FILE *f;
    unsigned char head[2];     /* read to see whether it is gzip */
    size_t nhead, head_given;
    cml_gzin *gz;
    unsigned long long total;  /* JSON bytes handed to the parser */
    int failed;                /* the input itself failed (not the JSON) */
} file_input;

static cml_status file_read(void *ctx, char *buf, size_t cap, size_t *got, char *err,
                            size_t errlen)
{
    file_input *in = ctx;
    size_t n = 0;
    cml_status st = CML_OK;
    if (in->gz) {
        st = cml_gzin_read(in->gz, buf, cap, &n, err, errlen);
    } else {
        while (in->head_given < in->nhead && n < cap)
            buf[n++] = (char)in->head[in->head_given++];
        if (n < cap) {
            n += fread(buf + n, 1, cap - n, in->f);
            if (n == 0 && ferror(in->f)) {
                if (err && errlen)
                    snprintf(err, errlen, "read failed: %s", strerror(errno));
                st = CML_EIO;
            }
        }
    }
    *got = n;
    in->failed = st != CML_OK;
    if (st != CML_OK)
        return st;
    in->total += n;
    if (in->total > MAX_INPUT) {
        in->failed = 1;
        if (err && errlen)
            snprintf(err, errlen,
                     "larger than %s of JSON%s, the most a results file may hold "
                     "(docs/json-schema.md); read no further",
                     MAX_INPUT_TEXT, in->gz ? " once decompressed" : "");
        return CML_EINVAL;
    }
    return CML_OK;
}

int cml_results_gzip_supported(void) { return cml_gzin_supported(); }

/* A corrupt gzip stream often decompresses to wrong text before its
 * checksum (at the end of the member) can tell: the JSON fails first, at a
 * place that means nothing to the user. When the JSON failed, the rest of
 * the stream is decompressed (and dropped) to see whether the data was to
 * blame, and if it was, the message says so instead. */
static void blame_corruption(file_input *in, char *msg, size_t len)
{
    char gzmsg[256] = "";
    char *scratch = malloc(65536);
    if (!scratch)
        return;
    size_t got = 1;
    cml_status st = CML_OK;
    /* Never past the cap: a gzip bomb is not decompressed to the end. */
    while (st == CML_OK && got > 0 && in->total <= MAX_INPUT) {
        st = cml_gzin_read(in->gz, scratch, 65536, &got, gzmsg, sizeof gzmsg);
        in->total += got;
    }
    free(scratch);
    if (st == CML_EINVAL)
        snprintf(msg, len, "%s", gzmsg);
}

static cml_status parse_results(const cml_jinput *in, void *ctx, char *err, size_t errlen)
{
    return cml_results_from_input(in, ctx, err, errlen);
}

cml_status cml_results_read_file(const char *path, cml_results *r, char *err, size_t errlen)
{
    cml_results_init(r);
    return cml_json_read_file(path, parse_results, r, err, errlen);
}

cml_status cml_json_read_file(const char *path, cml_jfile_parse_fn parse, void *ctx, char *err,
                              size_t errlen)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return CML_EIO;
    }
    file_input fin;
    memset(&fin, 0, sizeof fin);
    fin.f = f;
    char msg[512] = "";
    cml_status st = CML_OK;
    /* A regular file over the cap is refused before reading any of it (a
     * gzip file is judged by what it decompresses to, as it is read). */
    struct stat sb;
    fin.nhead = fread(fin.head, 1, sizeof fin.head, f);
    if (fin.nhead < sizeof fin.head && ferror(f)) {
        snprintf(msg, sizeof msg, "read failed: %s", strerror(errno));
        st = CML_EIO;
    } else if (fin.nhead == 2 && fin.head[0] == CML_GZIP_MAGIC0 &&
               fin.head[1] == CML_GZIP_MAGIC1) {
        st = cml_gzin_open(&fin.gz, f, fin.head, fin.nhead, msg, sizeof msg);
        if (st == CML_ENOMEM)
            snprintf(msg, sizeof msg, "out of memory");
    } else if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
               (unsigned long long)sb.st_size > MAX_INPUT) {
        snprintf(msg, sizeof msg,
                 "larger than %s, the most a results file may hold (docs/json-schema.md); "
                 "not read",
                 MAX_INPUT_TEXT);
        st = CML_EINVAL;
    }
    if (st == CML_OK) {
        cml_jinput in = {NULL, 0, file_read, &fin};
        st = parse(&in, ctx, msg, sizeof msg);
        if (st == CML_EINVAL && fin.gz && !fin.failed)
            blame_corruption(&fin, msg, sizeof msg);
    }
    cml_gzin_close(fin.gz);
    if (!is_stdin)
        fclose(f);
    if (st != CML_OK && err && errlen)
        snprintf(err, errlen, "%s: %s", path, msg);
    return st;
}
