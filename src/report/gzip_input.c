/*
 * gzip decompression as the text is read (gzip_input.h), through zlib's
 * inflate: the system library, found by the build (CML_HAVE_ZLIB). zlib's
 * gzFile would do the reading itself, but it takes a descriptor and reads
 * it from the start, while standard input has already given up the bytes
 * that showed it was gzip; inflate takes those bytes first, then the rest.
 */
#include "report/gzip_input.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(CML_HAVE_ZLIB)
#include <zlib.h>

#define GZ_CHUNK 65536

struct cml_gzin {
    FILE *f;
    z_stream z;
    int ready;                 /* inflateInit2 succeeded */
    int member_done;           /* the last member ended: more input is a new one */
    int eof;                   /* f has no more bytes */
    unsigned long long consumed; /* compressed bytes given to inflate */
    unsigned char in[GZ_CHUNK];
};

int cml_gzin_supported(void) { return 1; }

cml_status cml_gzin_open(cml_gzin **g, FILE *f, const unsigned char *head, size_t nhead, char *err,
                         size_t errlen)
{
    (void)err;
    (void)errlen;
    *g = NULL;
    cml_gzin *s = calloc(1, sizeof *s);
    if (!s || nhead > sizeof s->in) {
        free(s);
        return CML_ENOMEM;
    }
    s->f = f;
    memcpy(s->in, head, nhead);
    s->z.next_in = s->in;
    s->z.avail_in = (uInt)nhead;
    /* 16 + MAX_WBITS: gzip framing only (a header, a CRC-32 and the size
     * at the end of each member), never raw deflate or zlib data. */
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
        free(s);
        return CML_ENOMEM;
    }
    s->ready = 1;
    *g = s;
    return CML_OK;
}

/* More compressed bytes when inflate has used all it had. */
static cml_status refill(cml_gzin *g, char *err, size_t errlen)
{
    if (g->z.avail_in > 0 || g->eof)
        return CML_OK;
    size_t n = fread(g->in, 1, sizeof g->in, g->f);
    if (n == 0) {
        if (ferror(g->f)) {
            if (err && errlen)
                snprintf(err, errlen, "read failed: %s", strerror(errno));
            return CML_EIO;
        }
        g->eof = 1;
    }
    g->z.next_in = g->in;
    g->z.avail_in = (uInt)n;
    return CML_OK;
}

cml_status cml_gzin_read(cml_gzin *g, char *buf, size_t cap, size_t *got, char *err,
                         size_t errlen)
{
    *got = 0;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    g->z.next_out = (Bytef *)buf;
    g->z.avail_out = (uInt)cap;
    while (g->z.avail_out == cap) {
        cml_status st = refill(g, err, errlen);
        if (st != CML_OK)
            return st;
        if (g->member_done) {
            if (g->z.avail_in == 0)
                return CML_OK; /* the end: the last member was whole */
            /* Another member follows (concatenated gzip files). */
            if (inflateReset(&g->z) != Z_OK)
                return CML_ENOMEM;
            g->member_done = 0;
        }
        if (g->z.avail_in == 0 && g->eof) {
            if (err && errlen)
                snprintf(err, errlen,
                         "gzip data cut short: the file ends inside a compressed member "
                         "(after %llu compressed bytes)",
                         g->consumed);
            return CML_EINVAL;
        }
        uInt before = g->z.avail_in;
        int rc = inflate(&g->z, Z_NO_FLUSH);
        g->consumed += before - g->z.avail_in;
        if (rc == Z_STREAM_END) {
            g->member_done = 1;
        } else if (rc == Z_MEM_ERROR) {
            return CML_ENOMEM;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            if (err && errlen)
                snprintf(err, errlen, "gzip data corrupt near compressed byte %llu: %s",
                         g->consumed, g->z.msg ? g->z.msg : "inflate failed");
            return CML_EINVAL;
        }
    }
    *got = cap - g->z.avail_out;
    return CML_OK;
}

void cml_gzin_close(cml_gzin *g)
{
    if (!g)
        return;
    if (g->ready)
        inflateEnd(&g->z);
    free(g);
}

#else /* no zlib */

struct cml_gzin {
    int unused;
};

int cml_gzin_supported(void) { return 0; }

cml_status cml_gzin_open(cml_gzin **g, FILE *f, const unsigned char *head, size_t nhead, char *err,
                         size_t errlen)
{
    (void)f;
    (void)head;
    (void)nhead;
    *g = NULL;
    if (err && errlen)
        snprintf(err, errlen,
                 "compressed with gzip, but this cumemlab was built without zlib: decompress it "
                 "first (gzip -dk FILE), or install zlib (Debian: zlib1g-dev) and build again");
    return CML_EUNSUPPORTED;
}

cml_status cml_gzin_read(cml_gzin *g, char *buf, size_t cap, size_t *got, char *err,
                         size_t errlen)
{
    (void)g;
    (void)buf;
    (void)cap;
    (void)err;
    (void)errlen;
    *got = 0;
    return CML_EUNSUPPORTED;
}

void cml_gzin_close(cml_gzin *g) { (void)g; }

#endif
