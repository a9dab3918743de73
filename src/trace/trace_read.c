/*
 * The trace file's reader (trace_file.h): a file is hostile input. Every
 * read is bounds-checked against the chunk it is in, every varint against
 * its 10 bytes and 64 bits, every count against the bytes that could hold
 * it (so no allocation is sized by a number the file merely claims), every
 * index against what it indexes. The first fault ends the parse with one
 * line naming the byte offset, the chunk and the record.
 *
 * Parsing walks every record of every kernel once, so cml_tf_next, which
 * decodes them again when asked, works on bytes known to be good.
 */
#include "trace/trace_file.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const uint8_t *base;
    size_t pos, end;      /* reading [pos, end) of base */
    const char *chunk;    /* "HEAD chunk", ... for messages */
    size_t chunk_no;      /* its index among the chunks of its tag (from 1) */
    uint64_t record;      /* record index + 1 in a KERN chunk, 0 outside */
    char *err;
    size_t errlen;
    int failed;
} parser;

static void fail(parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (p->record)
        snprintf(p->err, p->errlen, "offset %zu (%s %zu, record %llu): %s", p->pos, p->chunk,
                 p->chunk_no, (unsigned long long)(p->record - 1u), what);
    else if (p->chunk)
        snprintf(p->err, p->errlen, "offset %zu (%s %zu): %s", p->pos, p->chunk, p->chunk_no,
                 what);
    else
        snprintf(p->err, p->errlen, "offset %zu: %s", p->pos, what);
}

static uint64_t get_varint(parser *p, const char *what)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < 10; k++) {
        if (p->pos >= p->end) {
            fail(p, "%s: the chunk ends inside a number", what);
            return 0;
        }
        const uint8_t b = p->base[p->pos++];
        if (k == 9 && b > 1) {
            fail(p, "%s: a number beyond 64 bits", what);
            return 0;
        }
        v |= (uint64_t)(b & 0x7Fu) << (7 * k);
        if (!(b & 0x80u))
            return v;
    }
    fail(p, "%s: a number longer than 10 bytes", what);
    return 0;
}

/* A varint that must lie in [lo, hi]. */
static uint64_t get_range(parser *p, const char *what, uint64_t lo, uint64_t hi)
{
    uint64_t v = get_varint(p, what);
    if (!p->failed && (v < lo || v > hi))
        fail(p, "%s is %llu (allowed %llu..%llu)", what, (unsigned long long)v,
             (unsigned long long)lo, (unsigned long long)hi);
    return p->failed ? lo : v;
}

static const uint8_t *get_bytes(parser *p, size_t n, const char *what)
{
    if (p->failed)
        return NULL;
    if (n > p->end - p->pos) {
        fail(p, "%s: %zu bytes needed, %zu left in the chunk", what, n, p->end - p->pos);
        return NULL;
    }
    const uint8_t *b = p->base + p->pos;
    p->pos += n;
    return b;
}

static uint32_t get_u32(parser *p, const char *what)
{
    const uint8_t *b = get_bytes(p, 4, what);
    return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
             : 0;
}

/* A string, copied and NUL-terminated (NULL on failure). */
static char *get_string(parser *p, const char *what)
{
    const uint64_t len = get_range(p, what, 0, CML_TF_MAX_STRING);
    const uint8_t *b = get_bytes(p, (size_t)len, what);
    if (!b)
        return NULL;
    if (memchr(b, 0, (size_t)len)) {
        fail(p, "%s holds a NUL byte", what);
        return NULL;
    }
    char *s = malloc((size_t)len + 1u);
    if (!s) {
        fail(p, "out of memory");
        return NULL;
    }
    memcpy(s, b, (size_t)len);
    s[len] = '\0';
    return s;
}

/* Function ids are 0, 1, 2, ... in file order (the reader insists), so a
 * lookup is an index. */
const cml_tf_func *cml_tf_func_by_id(const cml_trace *t, uint32_t id)
{
    return id < t->nfuncs ? &t->funcs[id] : NULL;
}

/* Room for one more element in a growing array (doubling: a file of many
 * small chunks costs linear time). */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2u : 16u;
    void *a = c <= SIZE_MAX / size ? realloc(*arr, c * size) : NULL;
    if (!a)
        return -1;
    *arr = a;
    *cap = c;
    return 0;
}

/* ---- records -------------------------------------------------------------- */

/* Decode one record at p->pos (checked against the kernel k and the record
 * before it, prev; NULL for the first). */
static void parse_record(parser *p, const cml_trace *t, const cml_tf_kernel *k,
                         const cml_tf_ins *prev, cml_tf_ins *r)
{
    memset(r, 0, sizeof *r);
    r->func = (uint32_t)get_range(p, "function id", 0, UINT32_MAX);
    if (!p->failed && t && !cml_tf_func_by_id(t, r->func))
        fail(p, "function id %u has no FUNC chunk before it", r->func);
    r->pc = (uint32_t)get_range(p, "pc", 0, UINT32_MAX);
    const uint8_t *attr = get_bytes(p, 2, "the access's attributes");
    if (!attr)
        return;
    r->space = attr[0] & 3u;
    r->op = (attr[0] >> 2) & 3u;
    r->size = attr[1];
    if (attr[0] >> 4)
        fail(p, "attribute byte 0x%02x: bits 4-7 must be 0", attr[0]);
    else if (r->space >= CML_TF_SPACES)
        fail(p, "memory space %u (allowed 0 global, 1 shared, 2 local)", r->space);
    else if (r->op >= CML_TF_OPS)
        fail(p, "operation %u (allowed 0 load, 1 store, 2 atomic)", r->op);
    else if (r->size != 1 && r->size != 2 && r->size != 4 && r->size != 8 && r->size != 16)
        fail(p, "access size %u bytes (allowed 1, 2, 4, 8, 16)", r->size);
    const uint64_t blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
    const uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    const uint64_t warps = (threads + CML_TF_LANES - 1u) / CML_TF_LANES;
    r->block = get_range(p, "block index", 0, blocks - 1u);
    r->warp = (uint32_t)get_range(p, "warp index", 0, warps - 1u);
    r->active = get_u32(p, "active mask");
    if (p->failed)
        return;
    /* Lanes beyond the block's last thread do not exist. */
    const uint64_t lanes = threads - (uint64_t)r->warp * CML_TF_LANES;
    const uint32_t exist = lanes >= 32u ? 0xFFFFFFFFu : (1u << lanes) - 1u;
    if (r->active == 0) {
        fail(p, "active mask 0 (a record has at least one lane)");
        return;
    }
    if (r->active & ~exist) {
        fail(p, "active mask 0x%08x names lanes beyond the block's %llu threads", r->active,
             (unsigned long long)threads);
        return;
    }
    if (prev && (r->block < prev->block || (r->block == prev->block && r->warp < prev->warp))) {
        fail(p, "block %llu warp %u after block %llu warp %u (records go by block, then warp)",
             (unsigned long long)r->block, r->warp, (unsigned long long)prev->block, prev->warp);
        return;
    }
    uint64_t last = 0;
    int first = 1;
    for (unsigned l = 0; l < CML_TF_LANES && !p->failed; l++) {
        if (!((r->active >> l) & 1u))
            continue;
        const uint64_t v = get_varint(p, "lane address");
        r->addr[l] = first ? v : last + cml_tf_unzigzag(v);
        last = r->addr[l];
        first = 0;
    }
}

void cml_tf_cursor_init(cml_tf_cursor *c, const cml_tf_kernel *k)
{
    c->k = k;
    c->pos = 0;
    c->done = 0;
}

int cml_tf_next(cml_tf_cursor *c, cml_tf_ins *out)
{
    if (c->done >= c->k->nins)
        return 0;
    char err[8];
    parser p = {c->k->data, c->pos, c->k->len, NULL, 0, 0, err, sizeof err, 0};
    parse_record(&p, NULL, c->k, NULL, out); /* checked when the file was parsed */
    if (p.failed)
        return 0;
    c->pos = p.pos;
    c->done++;
    return 1;
}

/* ---- chunks --------------------------------------------------------------- */

static void parse_head(parser *p, cml_trace *t)
{
    t->device = get_string(p, "device name");
    t->sm = (uint32_t)get_range(p, "compute capability", 0, 1000);
    t->sms = (uint32_t)get_range(p, "SM count", 0, 65536);
    t->l2_bytes = get_range(p, "L2 size", 0, (uint64_t)1 << 40);
    t->kernels = get_string(p, "kernel filter");
    t->launch = get_varint(p, "launch");
    t->budget = get_varint(p, "budget");
    t->command = get_string(p, "command");
}

static void parse_func(parser *p, cml_trace *t)
{
    cml_tf_func f;
    memset(&f, 0, sizeof f);
    f.id = (uint32_t)get_range(p, "function id", t->nfuncs, t->nfuncs);
    f.name = get_string(p, "function name");
    f.demangled = get_string(p, "demangled name");
    f.module = get_varint(p, "module id");
    f.cubin = get_string(p, "cubin path");
    if (!p->failed) {
        void *fs = t->funcs;
        if (grow(&fs, &t->cap_funcs, t->nfuncs, sizeof *t->funcs) == 0) {
            t->funcs = fs;
            t->funcs[t->nfuncs++] = f;
            return;
        }
        t->funcs = fs;
        fail(p, "out of memory");
    }
    free((char *)f.name);
    free((char *)f.demangled);
    free((char *)f.cubin);
}

static void parse_kern(parser *p, cml_trace *t)
{
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    k.func = (uint32_t)get_range(p, "kernel's function id", 0, UINT32_MAX);
    if (!p->failed && !cml_tf_func_by_id(t, k.func))
        fail(p, "function id %u has no FUNC chunk before it", k.func);
    k.launch = get_varint(p, "launch index");
    /* CUDA's launch limits: a launch outside them never ran. */
    static const char *const gn[3] = {"grid x", "grid y", "grid z"};
    static const char *const bn[3] = {"block x", "block y", "block z"};
    static const uint64_t gmax[3] = {0x7FFFFFFFu, 65535u, 65535u};
    static const uint64_t bmax[3] = {1024u, 1024u, 64u};
    for (unsigned d = 0; d < 3; d++)
        k.grid[d] = (uint32_t)get_range(p, gn[d], 1, gmax[d]);
    for (unsigned d = 0; d < 3; d++)
        k.block[d] = (uint32_t)get_range(p, bn[d], 1, bmax[d]);
    if (!p->failed && (uint64_t)k.block[0] * k.block[1] * k.block[2] > 1024u)
        fail(p, "a block of %llu threads (at most 1024)",
             (unsigned long long)k.block[0] * k.block[1] * k.block[2]);
    k.smem = get_range(p, "shared memory per block", 0, (uint64_t)1 << 32);
    const uint64_t threads = (uint64_t)k.block[0] * k.block[1] * k.block[2];
    const uint64_t all = (uint64_t)k.grid[0] * k.grid[1] * k.grid[2] *
                         ((threads + CML_TF_LANES - 1u) / CML_TF_LANES);
    k.warps_total = get_range(p, "warps of the launch", all, all);
    k.stride = get_range(p, "sampling stride", 1, all);
    k.warps_recorded = get_range(p, "warps recorded", 0, (all + k.stride - 1u) / k.stride);
    k.warps_lost = get_range(p, "warps lost", 0, (all + k.stride - 1u) / k.stride);
    /* A record takes at least 11 bytes: the count cannot exceed the bytes. */
    k.nins = get_range(p, "record count", 0, (p->end - p->pos) / 11u);
    if (p->failed)
        return;
    k.data = p->base + p->pos;
    k.len = p->end - p->pos;
    const size_t start = p->pos;
    cml_tf_ins prev, cur;
    uint64_t warps = 0;
    for (uint64_t i = 0; i < k.nins && !p->failed; i++) {
        p->record = i + 1u;
        parse_record(p, t, &k, i ? &prev : NULL, &cur);
        if (!p->failed && (i == 0 || cur.block != prev.block || cur.warp != prev.warp)) {
            warps++;
            const uint64_t w = cur.block * ((threads + 31u) / 32u) + cur.warp;
            if (w % k.stride != 0)
                fail(p, "warp %llu of the grid is outside the sample (every %llu-th)",
                     (unsigned long long)w, (unsigned long long)k.stride);
        }
        prev = cur;
    }
    p->record = 0;
    if (!p->failed && p->pos != p->end)
        fail(p, "%zu bytes after the last record", p->end - p->pos);
    if (!p->failed && warps != k.warps_recorded)
        fail(p, "the records are of %llu warps, the chunk says %llu", (unsigned long long)warps,
             (unsigned long long)k.warps_recorded);
    if (p->failed)
        return;
    k.len = p->pos - start;
    void *ks = t->kernel;
    int rc = grow(&ks, &t->cap_kernels, t->nkernels, sizeof *t->kernel);
    t->kernel = ks;
    if (rc != 0) {
        fail(p, "out of memory");
        return;
    }
    t->kernel[t->nkernels++] = k;
}

static void free_counters(cml_tf_counters *c)
{
    free((char *)c->kernel);
    free((char *)c->error);
    for (size_t i = 0; c->metrics && i < c->n; i++)
        free((char *)c->metrics[i]);
    free(c->metrics);
    free(c->values);
}

/* A CNTR chunk: any value is kept as it is (NaN, infinite, negative: the
 * reports say what each means), the names and counts are checked. */
static void parse_cntr(parser *p, cml_trace *t)
{
    cml_tf_counters c;
    memset(&c, 0, sizeof c);
    c.kernel = get_string(p, "kernel name");
    c.launch = get_varint(p, "launch index");
    c.passes = (uint32_t)get_range(p, "passes", 0, 1024);
    c.error = get_string(p, "error");
    c.n = (size_t)get_range(p, "metric count", 0, CML_TF_MAX_METRICS);
    if (!p->failed) {
        c.metrics = calloc(c.n ? c.n : 1, sizeof *c.metrics);
        c.values = calloc(c.n ? c.n : 1, sizeof *c.values);
        if (!c.metrics || !c.values)
            fail(p, "out of memory");
    }
    for (size_t i = 0; i < c.n && !p->failed; i++) {
        c.metrics[i] = get_string(p, "metric name");
        const uint8_t *b = get_bytes(p, 8, "metric value");
        if (!b)
            break;
        uint64_t bits = 0;
        for (unsigned k = 0; k < 8; k++)
            bits |= (uint64_t)b[k] << (8 * k);
        memcpy(&c.values[i], &bits, sizeof bits);
    }
    if (!p->failed) {
        void *cs = t->counters;
        int rc = grow(&cs, &t->cap_counters, t->ncounters, sizeof *t->counters);
        t->counters = cs;
        if (rc == 0) {
            t->counters[t->ncounters++] = c;
            return;
        }
        fail(p, "out of memory");
    }
    free_counters(&c);
}

static void free_pcnt(cml_tf_pc_counters *x)
{
    free((char *)x->kernel);
    free((char *)x->error);
    for (size_t i = 0; x->metrics && i < x->nmetrics; i++)
        free((char *)x->metrics[i]);
    free(x->metrics);
    free(x->pcs);
    free(x->values);
}

/* A PCNT chunk: the counts are bounded by the bytes that hold them (a pc
 * row takes at least 1 + nmetrics bytes), the pcs ascending. */
static void parse_pcnt(parser *p, cml_trace *t)
{
    cml_tf_pc_counters x;
    memset(&x, 0, sizeof x);
    x.kernel = get_string(p, "kernel name");
    x.launch = get_varint(p, "launch index");
    x.error = get_string(p, "error");
    x.nmetrics = (size_t)get_range(p, "metric count", 0, CML_TF_MAX_METRICS);
    if (!p->failed && !(x.metrics = calloc(x.nmetrics ? x.nmetrics : 1, sizeof *x.metrics)))
        fail(p, "out of memory");
    for (size_t m = 0; m < x.nmetrics && !p->failed; m++)
        x.metrics[m] = get_string(p, "metric name");
    const size_t row = 1u + x.nmetrics;
    uint64_t most = (p->end - p->pos) / row;
    x.npcs = (size_t)get_range(p, "instruction count", 0,
                               most < CML_TF_MAX_SASS_PCS ? most : CML_TF_MAX_SASS_PCS);
    if (!p->failed) {
        x.pcs = calloc(x.npcs ? x.npcs : 1, sizeof *x.pcs);
        x.values = calloc(x.npcs && x.nmetrics ? x.npcs * x.nmetrics : 1, sizeof *x.values);
        if (!x.pcs || !x.values)
            fail(p, "out of memory");
    }
    for (size_t i = 0; i < x.npcs && !p->failed; i++) {
        x.pcs[i] = (uint32_t)get_range(p, "pc", i ? (uint64_t)x.pcs[i - 1] + 1u : 0, UINT32_MAX);
        for (size_t m = 0; m < x.nmetrics; m++)
            x.values[i * x.nmetrics + m] = get_varint(p, "metric value");
    }
    if (!p->failed) {
        void *xs = t->pcnt;
        int rc = grow(&xs, &t->cap_pcnt, t->npcnt, sizeof *t->pcnt);
        t->pcnt = xs;
        if (rc == 0) {
            t->pcnt[t->npcnt++] = x;
            return;
        }
        fail(p, "out of memory");
    }
    free_pcnt(&x);
}

const cml_tf_pc_counters *cml_tf_pc_counters_of(const cml_trace *t, const cml_tf_kernel *k)
{
    const cml_tf_func *f = cml_tf_func_by_id(t, k->func);
    for (size_t i = 0; f && i < t->npcnt; i++)
        if (t->pcnt[i].launch == k->launch && strcmp(t->pcnt[i].kernel, f->name) == 0)
            return &t->pcnt[i];
    return NULL;
}

size_t cml_tf_pc_row(const cml_tf_pc_counters *s, uint32_t pc)
{
    size_t lo = s ? cml_tf_pc_lower_bound(s->pcs, s->npcs, pc) : 0;
    return s && lo < s->npcs && s->pcs[lo] == pc ? lo : SIZE_MAX;
}

const cml_tf_counters *cml_tf_counters_of(const cml_trace *t, const cml_tf_kernel *k)
{
    const cml_tf_func *f = cml_tf_func_by_id(t, k->func);
    for (size_t i = 0; f && i < t->ncounters; i++)
        if (t->counters[i].launch == k->launch && strcmp(t->counters[i].kernel, f->name) == 0)
            return &t->counters[i];
    return NULL;
}

/* ---- the file --------------------------------------------------------------- */

int cml_tf_parse(uint8_t *bytes, size_t n, cml_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->bytes = bytes;
    t->nbytes = n;
    parser p = {bytes, 0, n, NULL, 0, 0, err, errlen, 0};
    if (n < CML_TF_FILE_HEADER || memcmp(bytes, CML_TF_MAGIC, CML_TF_MAGIC_LEN) != 0) {
        fail(&p, "not a cumemlab trace (it does not begin with \"" CML_TF_MAGIC "\")");
        cml_tf_free(t);
        return -1;
    }
    p.pos = CML_TF_MAGIC_LEN;
    t->version = get_u32(&p, "version");
    if (t->version != CML_TF_VERSION) {
        p.pos = CML_TF_MAGIC_LEN;
        fail(&p, "trace format version %u (this cumemlab reads version %u)", t->version,
             CML_TF_VERSION);
        cml_tf_free(t);
        return -1;
    }
    size_t counts[6] = {0, 0, 0, 0, 0, 0};
    t->whole = CML_TF_FILE_HEADER;
    int ended = 0;
    while (p.pos < n && !p.failed) {
        if (ended) {
            fail(&p, "bytes after the END chunk");
            break;
        }
        p.chunk = NULL;
        p.end = n;
        /* The file ends inside a chunk (its header or its payload) once the
         * HEAD chunk is whole: the program died while the library wrote,
         * and what came before is whole. It is read as an incomplete
         * trace, the bytes of the cut chunk counted and left out. */
        if (counts[0] && n - p.pos < CML_TF_CHUNK_HEADER) {
            t->truncated = n - p.pos;
            break;
        }
        const uint8_t *h = get_bytes(&p, CML_TF_CHUNK_HEADER, "chunk header");
        if (!h) {
            break;
        }
        uint64_t len = 0;
        for (unsigned i = 0; i < 8; i++)
            len |= (uint64_t)h[4 + i] << (8 * i);
        static const char *const tags[6] = {CML_TF_TAG_HEAD, CML_TF_TAG_FUNC, CML_TF_TAG_KERN,
                                            CML_TF_TAG_END, CML_TF_TAG_CNTR, CML_TF_TAG_PCNT};
        static const char *const names[6] = {"HEAD chunk", "FUNC chunk", "KERN chunk",
                                             "END chunk", "CNTR chunk", "PCNT chunk"};
        unsigned tag = 0;
        while (tag < 6 && memcmp(h, tags[tag], 4) != 0)
            tag++;
        if (len > n - p.pos && counts[0]) {
            t->truncated = n - p.pos + CML_TF_CHUNK_HEADER;
            break;
        }
        if (len > n - p.pos) {
            p.pos -= CML_TF_CHUNK_HEADER;
            fail(&p, "a chunk of %llu bytes, %zu left in the file (a truncated file?)",
                 (unsigned long long)len, n - p.pos - CML_TF_CHUNK_HEADER);
            break;
        }
        if (tag == 6) { /* a chunk of a later version: skipped, its length checked */
            p.pos += (size_t)len;
            t->whole = p.pos;
            continue;
        }
        p.chunk = names[tag];
        p.chunk_no = ++counts[tag];
        p.end = p.pos + (size_t)len;
        if (tag == 0 && counts[0] > 1) {
            fail(&p, "a second HEAD chunk");
            break;
        }
        if (tag != 0 && counts[0] == 0) {
            fail(&p, "the first chunk must be HEAD");
            break;
        }
        switch (tag) {
        case 0: parse_head(&p, t); break;
        case 1: parse_func(&p, t); break;
        case 2: parse_kern(&p, t); break;
        case 4: parse_cntr(&p, t); break;
        case 5: parse_pcnt(&p, t); break;
        default:
            t->end_at = p.pos - CML_TF_CHUNK_HEADER;
            if (get_varint(&p, "kernel count") != t->nkernels && !p.failed)
                fail(&p, "the END chunk counts other kernels than the %zu KERN chunks",
                     t->nkernels);
            ended = 1;
            break;
        }
        if (!p.failed && p.pos != p.end)
            fail(&p, "%zu bytes left over in the chunk", p.end - p.pos);
        p.pos = p.end;
        t->whole = p.pos;
    }
    if (!p.failed && counts[0] == 0) {
        p.chunk = NULL;
        fail(&p, "no HEAD chunk");
    }
    t->complete = ended;
    if (p.failed) {
        cml_tf_free(t);
        return -1;
    }
    return 0;
}

int cml_tf_read(const char *path, cml_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    const int std = !strcmp(path, "-");
    FILE *f = std ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2u : 65536u;
            uint8_t *b = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!b) {
                bad = 1;
                break;
            }
            buf = b;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int read_errno = 0;
    if (ferror(f)) {
        bad = 2;
        read_errno = errno;
    }
    if (!std)
        fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: %s", path,
                 bad == 1 ? "out of memory" : read_errno ? strerror(read_errno) : "read error");
        free(buf);
        return -1;
    }
    char why[400];
    if (cml_tf_parse(buf, n, t, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    return 0;
}

void cml_tf_free(cml_trace *t)
{
    free(t->device);
    free(t->kernels);
    free(t->command);
    for (size_t i = 0; i < t->nfuncs; i++) {
        free((char *)t->funcs[i].name);
        free((char *)t->funcs[i].demangled);
        free((char *)t->funcs[i].cubin);
    }
    free(t->funcs);
    free(t->kernel);
    for (size_t i = 0; i < t->ncounters; i++)
        free_counters(&t->counters[i]);
    free(t->counters);
    for (size_t i = 0; i < t->npcnt; i++)
        free_pcnt(&t->pcnt[i]);
    free(t->pcnt);
    free(t->bytes);
    memset(t, 0, sizeof *t);
}

const char *cml_tf_space_name(unsigned space)
{
    static const char *const n[] = {"global", "shared", "local"};
    return space < CML_TF_SPACES ? n[space] : "?";
}

const char *cml_tf_op_name(unsigned op)
{
    static const char *const n[] = {"load", "store", "atomic"};
    return op < CML_TF_OPS ? n[op] : "?";
}
