/*
 * The trace file's writer (trace_file.h). It runs inside the traced
 * program (the injection library), so it depends on libc alone, buffers a
 * chunk in memory and writes it whole, and flushes after each launch: what
 * was written survives the program's end, however it ends.
 */
#include "trace/trace_file.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cml_tf_writer {
    FILE *f;
    int failed;
    uint64_t kernels;
    uint8_t *buf; /* the chunk being built */
    size_t n, cap;
};

/* Room for `more` bytes in the chunk buffer; 0, or -1 (and failed). */
static int reserve(cml_tf_writer *w, size_t more)
{
    if (w->n + more <= w->cap)
        return 0;
    size_t cap = w->cap ? w->cap : 4096u;
    while (cap < w->n + more) {
        if (cap > SIZE_MAX / 2) {
            w->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    uint8_t *b = realloc(w->buf, cap);
    if (!b) {
        w->failed = 1;
        return -1;
    }
    w->buf = b;
    w->cap = cap;
    return 0;
}

static void put_bytes(cml_tf_writer *w, const void *p, size_t len)
{
    if (reserve(w, len) == 0) {
        memcpy(w->buf + w->n, p, len);
        w->n += len;
    }
}

/* Unsigned LEB128: 7 bits a byte, low first, the high bit says more. */
static void put_varint(cml_tf_writer *w, uint64_t v)
{
    uint8_t b[10];
    size_t k = 0;
    do {
        b[k] = (uint8_t)(v & 0x7Fu);
        v >>= 7;
        if (v)
            b[k] |= 0x80u;
        k++;
    } while (v);
    put_bytes(w, b, k);
}

static void put_u32(cml_tf_writer *w, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(w, b, 4);
}

static void put_string(cml_tf_writer *w, const char *s)
{
    const size_t len = s ? strlen(s) : 0;
    if (len > CML_TF_MAX_STRING) {
        w->failed = 1;
        return;
    }
    put_varint(w, len);
    put_bytes(w, s, len);
}

/* Write the chunk built in buf under `tag`, and start the next one. */
static int emit_chunk(cml_tf_writer *w, const char *tag)
{
    uint8_t head[CML_TF_CHUNK_HEADER];
    memcpy(head, tag, 4);
    uint64_t len = w->n;
    for (unsigned i = 0; i < 8; i++)
        head[4 + i] = (uint8_t)(len >> (8 * i));
    if (!w->failed && (fwrite(head, 1, sizeof head, w->f) != sizeof head ||
                       fwrite(w->buf, 1, w->n, w->f) != w->n || fflush(w->f) != 0))
        w->failed = 1;
    w->n = 0;
    return w->failed ? -1 : 0;
}

cml_tf_writer *cml_tf_writer_open(const char *path, const cml_tf_header *h, char *err,
                                  size_t errlen)
{
    cml_tf_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    w->f = fopen(path, "wb");
    if (!w->f) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    put_bytes(w, CML_TF_MAGIC, CML_TF_MAGIC_LEN);
    put_u32(w, CML_TF_VERSION);
    if (!w->failed && fwrite(w->buf, 1, w->n, w->f) != w->n)
        w->failed = 1;
    w->n = 0;
    put_string(w, h->device);
    put_varint(w, h->sm);
    put_varint(w, h->sms);
    put_varint(w, h->l2_bytes);
    put_string(w, h->kernels);
    put_varint(w, h->launch);
    put_varint(w, h->budget);
    put_string(w, h->command);
    if (emit_chunk(w, CML_TF_TAG_HEAD) != 0) {
        snprintf(err, errlen, "%s: cannot write the header", path);
        fclose(w->f);
        free(w->buf);
        free(w);
        return NULL;
    }
    return w;
}

int cml_tf_write_func(cml_tf_writer *w, const cml_tf_func *f)
{
    put_varint(w, f->id);
    put_string(w, f->name);
    put_string(w, f->demangled);
    put_varint(w, f->module);
    put_string(w, f->cubin);
    return emit_chunk(w, CML_TF_TAG_FUNC);
}

/* Records must come by block, then warp; one the reader would refuse is
 * refused here, so that a file written is a file read. */
static int record_ok(const cml_tf_ins *r, const cml_tf_ins *prev)
{
    if (r->space >= CML_TF_SPACES || r->op >= CML_TF_OPS || r->active == 0 ||
        (r->size != 1 && r->size != 2 && r->size != 4 && r->size != 8 && r->size != 16))
        return 0;
    return !prev || r->block > prev->block || (r->block == prev->block && r->warp >= prev->warp);
}

int cml_tf_write_kernel(cml_tf_writer *w, const cml_tf_kernel *k, const cml_tf_ins *ins,
                        size_t n)
{
    put_varint(w, k->func);
    put_varint(w, k->launch);
    for (unsigned d = 0; d < 3; d++)
        put_varint(w, k->grid[d]);
    for (unsigned d = 0; d < 3; d++)
        put_varint(w, k->block[d]);
    put_varint(w, k->smem);
    put_varint(w, k->warps_total);
    put_varint(w, k->stride);
    put_varint(w, k->warps_recorded);
    put_varint(w, k->warps_lost);
    put_varint(w, n);
    for (size_t i = 0; i < n && !w->failed; i++) {
        const cml_tf_ins *r = &ins[i];
        if (!record_ok(r, i ? &ins[i - 1] : NULL)) {
            w->n = 0;
            return -1; /* the file stays as it was: this chunk is not written */
        }
        put_varint(w, r->func);
        put_varint(w, r->pc);
        const uint8_t attr[2] = {cml_tf_attr(r->space, r->op), r->size};
        put_bytes(w, attr, 2);
        put_varint(w, r->block);
        put_varint(w, r->warp);
        put_u32(w, r->active);
        /* The first active lane's address, then each next active lane's
         * difference from the one before: a coalesced warp costs a byte a
         * lane. */
        uint64_t prev = 0;
        int first = 1;
        for (unsigned l = 0; l < CML_TF_LANES; l++) {
            if (!((r->active >> l) & 1u))
                continue;
            put_varint(w, first ? r->addr[l] : cml_tf_zigzag(r->addr[l] - prev));
            prev = r->addr[l];
            first = 0;
        }
    }
    if (emit_chunk(w, CML_TF_TAG_KERN) != 0)
        return -1;
    w->kernels++;
    return 0;
}

/* A double as the 8 little-endian bytes of its IEEE 754 bits. */
static void put_f64(cml_tf_writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t b[8];
    for (unsigned i = 0; i < 8; i++)
        b[i] = (uint8_t)(bits >> (8 * i));
    put_bytes(w, b, 8);
}

int cml_tf_write_counters(cml_tf_writer *w, const cml_tf_counters *c)
{
    if (c->n > CML_TF_MAX_METRICS)
        return -1;
    put_string(w, c->kernel);
    put_varint(w, c->launch);
    put_varint(w, c->passes);
    put_string(w, c->error);
    put_varint(w, c->n);
    for (size_t i = 0; i < c->n; i++) {
        put_string(w, c->metrics[i]);
        put_f64(w, c->values[i]);
    }
    return emit_chunk(w, CML_TF_TAG_CNTR);
}

int cml_tf_write_pc_counters(cml_tf_writer *w, const cml_tf_pc_counters *s)
{
    if (s->nmetrics > CML_TF_MAX_METRICS || s->npcs > CML_TF_MAX_SASS_PCS)
        return -1;
    for (size_t i = 1; i < s->npcs; i++)
        if (s->pcs[i] <= s->pcs[i - 1])
            return -1;
    put_string(w, s->kernel);
    put_varint(w, s->launch);
    put_string(w, s->error);
    put_varint(w, s->nmetrics);
    for (size_t m = 0; m < s->nmetrics; m++)
        put_string(w, s->metrics[m]);
    put_varint(w, s->npcs);
    for (size_t i = 0; i < s->npcs; i++) {
        put_varint(w, s->pcs[i]);
        for (size_t m = 0; m < s->nmetrics; m++)
            put_varint(w, s->values[i * s->nmetrics + m]);
    }
    return emit_chunk(w, CML_TF_TAG_PCNT);
}

int cml_tf_writer_close(cml_tf_writer *w)
{
    if (!w)
        return -1;
    put_varint(w, w->kernels);
    emit_chunk(w, CML_TF_TAG_END);
    int rc = w->failed ? -1 : 0;
    if (fclose(w->f) != 0)
        rc = -1;
    free(w->buf);
    free(w);
    return rc;
}
