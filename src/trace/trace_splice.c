/*
 * Copying a counters run's CNTR and PCNT chunks into a trace (trace_file.h,
 * cml_tf_splice_counters). Both files are parsed first, as any trace is
 * (hostile input), so only whole, valid chunks are copied; the new trace is
 * written beside the old one and renamed over it.
 */
#include "trace/trace_file.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of every CNTR and PCNT chunk of c, in order, appended to out. */
static int write_cntr_chunks(FILE *out, const cml_trace *c)
{
    size_t pos = CML_TF_FILE_HEADER;
    while (pos + CML_TF_CHUNK_HEADER <= c->whole) {
        const uint8_t *h = c->bytes + pos;
        uint64_t len = 0;
        for (unsigned i = 0; i < 8; i++)
            len |= (uint64_t)h[4 + i] << (8 * i);
        /* The parse checked every chunk up to c->whole fits. */
        const size_t all = CML_TF_CHUNK_HEADER + (size_t)len;
        if ((memcmp(h, CML_TF_TAG_CNTR, 4) == 0 || memcmp(h, CML_TF_TAG_PCNT, 4) == 0) &&
            fwrite(h, 1, all, out) != all)
            return -1;
        pos += all;
    }
    return 0;
}

int cml_tf_splice_counters(const char *trace_path, const char *counters_path, char *err,
                           size_t errlen)
{
    cml_trace t, c;
    char why[600];
    if (cml_tf_read(trace_path, &t, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (cml_tf_read(counters_path, &c, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        cml_tf_free(&t);
        return -1;
    }
    /* Before END, or after the last whole chunk of a trace cut short (its
     * cut chunk is dropped: the reader left it out too). */
    const size_t keep = t.end_at ? t.end_at : t.whole;
    char tmp[4096];
    int rc = -1;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", trace_path) >= (int)sizeof tmp) {
        snprintf(err, errlen, "%s: the path is too long", trace_path);
        goto out;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        goto out;
    }
    int bad = fwrite(t.bytes, 1, keep, f) != keep || write_cntr_chunks(f, &c) != 0;
    if (!bad && t.end_at)
        bad = fwrite(t.bytes + t.end_at, 1, t.whole - t.end_at, f) != t.whole - t.end_at;
    if (fclose(f) != 0)
        bad = 1;
    if (bad || rename(tmp, trace_path) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        remove(tmp);
        goto out;
    }
    rc = 0;
out:
    cml_tf_free(&t);
    cml_tf_free(&c);
    return rc;
}
