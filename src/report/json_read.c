/*
 * The strict JSON reader: a recursive-descent parser into a tree held in an
 * arena (one free for the whole document), and the "cumemlab-results"
 * schema read back into cml_results. Errors are one line with the line,
 * column and byte offset of the offending character or value.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat: the size cap of cml_results_read_file */

#include "report/json_read.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Arena                                                              */
/* ------------------------------------------------------------------ */

/* Blocks of at least 64 KiB; a larger request gets a block of its own.
 * Everything is 16-byte aligned, enough for every type the tree holds. */
typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
} arena_block;

#define ARENA_ALIGN 16
#define ARENA_HEADER ((sizeof(arena_block) + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN)

struct cml_jdoc {
    arena_block *blocks;
    cml_jval root;
};

static void *arena_alloc(cml_jdoc *d, size_t n)
{
    n = (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    if (n == 0)
        n = ARENA_ALIGN;
    arena_block *b = d->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        if (cap > SIZE_MAX - ARENA_HEADER)
            return NULL;
        b = malloc(ARENA_HEADER + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = d->blocks;
        d->blocks = b;
    }
    void *p = (unsigned char *)b + ARENA_HEADER + b->used;
    b->used += n;
    return p;
}

void cml_jdoc_free(cml_jdoc *doc)
{
    if (!doc)
        return;
    arena_block *b = doc->blocks;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(doc);
}

const cml_jval *cml_jdoc_root(const cml_jdoc *doc)
{
    return doc ? &doc->root : NULL;
}

/* ------------------------------------------------------------------ */
/* Positions and messages                                             */
/* ------------------------------------------------------------------ */

void cml_jtext_position(const char *text, size_t len, size_t offset, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    if (offset > len)
        offset = len;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* "line L, column C (byte B): " + the message, into err. */
static void vlocate(const char *text, size_t len, size_t offset, char *err, size_t errlen,
                    const char *fmt, va_list ap)
{
    if (!err || errlen == 0)
        return;
    size_t line, col;
    cml_jtext_position(text, len, offset, &line, &col);
    int w = snprintf(err, errlen, "line %zu, column %zu (byte %zu): ", line, col, offset);
    if (w < 0 || (size_t)w >= errlen)
        return;
    vsnprintf(err + w, errlen - (size_t)w, fmt, ap);
    /* The message quotes keys and values from the file: keep it one line of
     * text, so that a hostile file can neither break it nor send control
     * sequences to the terminal. */
    for (char *q = err; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            *q = '?';
}

/* ------------------------------------------------------------------ */
/* Parser                                                             */
/* ------------------------------------------------------------------ */

typedef struct parser {
    const char *s;
    size_t len, pos;
    cml_jdoc *doc;
    char *err;
    size_t errlen;
    int depth;
    cml_status st;             /* CML_OK until the first error */
    char *buf;                 /* scratch for decoding strings */
    size_t bufcap;
} parser;

static int perr(parser *p, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int perr(parser *p, size_t offset, const char *fmt, ...)
{
    if (p->st == CML_OK) {
        p->st = CML_EINVAL;
        va_list ap;
        va_start(ap, fmt);
        vlocate(p->s, p->len, offset, p->err, p->errlen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int oom(parser *p)
{
    if (p->st == CML_OK) {
        p->st = CML_ENOMEM;
        if (p->err && p->errlen)
            snprintf(p->err, p->errlen, "out of memory reading JSON");
    }
    return 0;
}

/* The character at pos, shown readably in a message. */
static const char *show_char(const parser *p, size_t pos, char *buf, size_t len)
{
    if (pos >= p->len)
        snprintf(buf, len, "end of input");
    else {
        unsigned char c = (unsigned char)p->s[pos];
        if (c > 0x20 && c < 0x7f && c != '\'')
            snprintf(buf, len, "'%c'", c);
        else if (c == '\'')
            snprintf(buf, len, "\"'\"");
        else
            snprintf(buf, len, "byte 0x%02x", c);
    }
    return buf;
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int parse_value(parser *p, cml_jval *out);

static int buf_put(parser *p, size_t *n, const void *bytes, size_t k)
{
    if (*n + k + 1 > p->bufcap) {
        size_t cap = p->bufcap ? p->bufcap : 256;
        while (cap < *n + k + 1)
            cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b)
            return oom(p);
        p->buf = b;
        p->bufcap = cap;
    }
    memcpy(p->buf + *n, bytes, k);
    *n += k;
    return 1;
}

/* Copy n bytes into the arena as a NUL-terminated string. */
static const char *arena_str(parser *p, const char *src, size_t n)
{
    char *d = arena_alloc(p->doc, n + 1);
    if (!d) {
        oom(p);
        return NULL;
    }
    if (n)
        memcpy(d, src, n);
    d[n] = '\0';
    return d;
}

static int hex4(parser *p, size_t at, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < 4; i++) {
        if (at + i >= p->len)
            return perr(p, at + i, "unterminated \\u escape (4 hex digits needed)");
        char c = p->s[at + i];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else
            return perr(p, at + i, "bad hex digit in \\u escape (4 hex digits needed)");
        v = v * 16 + d;
    }
    *out = v;
    return 1;
}

/* Length of the valid UTF-8 sequence at pos (RFC 3629), 0 if none. */
static size_t utf8_seq(const parser *p, size_t pos)
{
    const unsigned char *s = (const unsigned char *)p->s + pos;
    size_t avail = p->len - pos;
    unsigned c = s[0];
    size_t n;
    unsigned min;
    unsigned long cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { n = 2; min = 0x80; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; min = 0x800; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; min = 0x10000; cp = c & 0x07; }
    else
        return 0;
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static size_t utf8_encode(unsigned long cp, char *o)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at p->pos (which holds the opening quote): decoded into the
 * arena. */
static int parse_string(parser *p, const char **out, size_t *outlen)
{
    size_t open = p->pos;
    size_t n = 0;
    p->pos++;
    for (;;) {
        if (p->pos >= p->len)
            return perr(p, p->pos, "unterminated string (opened at byte %zu)", open);
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20)
            return perr(p, p->pos,
                        "control character 0x%02x inside a string (must be written as an escape)",
                        c);
        if (c == '\\') {
            size_t at = p->pos;
            if (at + 1 >= p->len)
                return perr(p, at, "unterminated string (opened at byte %zu)", open);
            char e = p->s[at + 1];
            char ch;
            switch (e) {
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case '/': ch = '/'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                unsigned u, lo;
                if (!hex4(p, at + 2, &u))
                    return 0;
                unsigned long cp = u;
                size_t next = at + 6;
                if (u >= 0xDC00 && u <= 0xDFFF)
                    return perr(p, at, "lone low surrogate \\u%04X in a string", u);
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (next + 1 >= p->len || p->s[next] != '\\' || p->s[next + 1] != 'u')
                        return perr(p, at, "high surrogate \\u%04X not followed by a low one", u);
                    if (!hex4(p, next + 2, &lo))
                        return 0;
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return perr(p, next, "high surrogate \\u%04X followed by \\u%04X, not a "
                                    "low surrogate", u, lo);
                    cp = 0x10000 + (((unsigned long)u - 0xD800) << 10) + (lo - 0xDC00);
                    next += 6;
                }
                if (cp == 0)
                    return perr(p, at, "\\u0000 (NUL) inside a string is not supported");
                char enc[4];
                size_t k = utf8_encode(cp, enc);
                if (!buf_put(p, &n, enc, k))
                    return 0;
                p->pos = next;
                continue;
            }
            default:
                return perr(p, at, "unknown escape '\\%c' in a string",
                            (e > 0x20 && e < 0x7f) ? e : '?');
            }
            if (!buf_put(p, &n, &ch, 1))
                return 0;
            p->pos += 2;
            continue;
        }
        size_t k = utf8_seq(p, p->pos);
        if (k == 0)
            return perr(p, p->pos, "invalid UTF-8 (byte 0x%02x) inside a string", c);
        if (!buf_put(p, &n, p->s + p->pos, k))
            return 0;
        p->pos += k;
    }
    const char *s = arena_str(p, n ? p->buf : "", n);
    if (!s)
        return 0;
    *out = s;
    *outlen = n;
    return 1;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(parser *p, cml_jval *out)
{
    size_t start = p->pos, i = p->pos;
    if (i < p->len && p->s[i] == '-')
        i++;
    if (i >= p->len || !is_digit(p->s[i]))
        return perr(p, i, "a digit must follow '-'");
    if (p->s[i] == '0') {
        i++;
        if (i < p->len && is_digit(p->s[i]))
            return perr(p, start, "number with a leading zero");
    } else {
        while (i < p->len && is_digit(p->s[i]))
            i++;
    }
    if (i < p->len && p->s[i] == '.') {
        i++;
        if (i >= p->len || !is_digit(p->s[i]))
            return perr(p, i, "a digit must follow the decimal point");
        while (i < p->len && is_digit(p->s[i]))
            i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
            i++;
        if (i >= p->len || !is_digit(p->s[i]))
            return perr(p, i, "a digit must follow the exponent");
        while (i < p->len && is_digit(p->s[i]))
            i++;
    }
    out->type = CML_J_NUMBER;
    out->text = arena_str(p, p->s + start, i - start);
    if (!out->text)
        return 0;
    out->len = i - start;
    p->pos = i;
    return 1;
}

static int literal(parser *p, const char *word, cml_jtype t, cml_jval *out)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return perr(p, p->pos, "invalid literal (true, false or null expected)");
    p->pos += n;
    out->type = t;
    return 1;
}

/* Growable scratch vectors for the children of one container. */
typedef struct vec {
    void *items;
    size_t count, cap, size;
} vec;

static void *vec_push(parser *p, vec *v)
{
    if (v->count == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        void *items = realloc(v->items, cap * v->size);
        if (!items) {
            oom(p);
            return NULL;
        }
        v->items = items;
        v->cap = cap;
    }
    void *slot = (char *)v->items + v->count * v->size;
    memset(slot, 0, v->size);
    v->count++;
    return slot;
}

/* Move the vector's contents into the arena. */
static void *vec_finish(parser *p, vec *v)
{
    void *dst = NULL;
    if (v->count) {
        dst = arena_alloc(p->doc, v->count * v->size);
        if (!dst)
            oom(p);
        else
            memcpy(dst, v->items, v->count * v->size);
    }
    free(v->items);
    v->items = NULL;
    return dst;
}

static int enter(parser *p)
{
    if (++p->depth > CML_JREAD_MAX_DEPTH)
        return perr(p, p->pos, "nesting deeper than %d levels", CML_JREAD_MAX_DEPTH);
    return 1;
}

/*
 * After an array item or an object member: skip white space, then consume
 * ',' (1: another item follows; a trailing comma is an error) or `close`
 * (0: the container ends). Anything else is an error (-1, message set).
 */
static int after_item(parser *p, char close, const char *what)
{
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ',') {
        p->pos++;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == close) {
            perr(p, p->pos, "trailing comma before '%c'", close);
            return -1;
        }
        return 1;
    }
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    char b[32];
    perr(p, p->pos, "expected ',' or '%c' in %s, found %s", close, what,
         show_char(p, p->pos, b, sizeof b));
    return -1;
}

static int parse_array(parser *p, cml_jval *out)
{
    vec v = {NULL, 0, 0, sizeof(cml_jval)};
    if (!enter(p))
        return 0;
    p->pos++;
    skip_ws(p);
    int ok = 1;
    if (p->pos < p->len && p->s[p->pos] == ']') {
        p->pos++;
    } else {
        for (;;) {
            cml_jval *slot = vec_push(p, &v);
            if (!slot || !parse_value(p, slot)) {
                ok = 0;
                break;
            }
            int next = after_item(p, ']', "an array");
            if (next <= 0) {
                ok = next == 0;
                break;
            }
        }
    }
    p->depth--;
    out->type = CML_J_ARRAY;
    out->count = v.count;
    out->items = vec_finish(p, &v);
    return ok && p->st == CML_OK;
}

typedef struct keyref {
    const char *key;
    size_t offset;
} keyref;

static int keyref_cmp(const void *a, const void *b)
{
    const keyref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Duplicate member names: sorted, so large objects stay O(n log n); the
 * message names the earliest repeated occurrence in the text. */
static int check_duplicates(parser *p, const cml_jmember *m, size_t n)
{
    if (n < 2)
        return 1;
    keyref *k = malloc(n * sizeof *k);
    if (!k)
        return oom(p);
    for (size_t i = 0; i < n; i++) {
        k[i].key = m[i].key;
        k[i].offset = m[i].key_offset;
    }
    qsort(k, n, sizeof *k, keyref_cmp);
    size_t worst = SIZE_MAX;
    const char *name = NULL;
    for (size_t i = 1; i < n; i++)
        if (strcmp(k[i].key, k[i - 1].key) == 0 && k[i].offset < worst) {
            worst = k[i].offset;
            name = k[i].key;
        }
    int ok = 1;
    if (name)
        ok = perr(p, worst, "duplicate member \"%.60s\" in an object", name);
    free(k);
    return ok;
}

static int parse_object(parser *p, cml_jval *out)
{
    vec v = {NULL, 0, 0, sizeof(cml_jmember)};
    if (!enter(p))
        return 0;
    p->pos++;
    skip_ws(p);
    int ok = 1;
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
    } else {
        for (;;) {
            char b[32];
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                ok = perr(p, p->pos, "expected a member name in double quotes, found %s",
                          show_char(p, p->pos, b, sizeof b));
                break;
            }
            cml_jmember *m = vec_push(p, &v);
            if (!m) {
                ok = 0;
                break;
            }
            m->key_offset = p->pos;
            size_t klen;
            if (!parse_string(p, &m->key, &klen)) {
                ok = 0;
                break;
            }
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                ok = perr(p, p->pos, "expected ':' after the member name \"%.60s\", found %s",
                          m->key, show_char(p, p->pos, b, sizeof b));
                break;
            }
            p->pos++;
            if (!parse_value(p, &m->value)) {
                ok = 0;
                break;
            }
            int next = after_item(p, '}', "an object");
            if (next <= 0) {
                ok = next == 0;
                break;
            }
        }
    }
    p->depth--;
    if (ok)
        ok = check_duplicates(p, v.items, v.count);
    out->type = CML_J_OBJECT;
    out->count = v.count;
    out->members = vec_finish(p, &v);
    return ok && p->st == CML_OK;
}

static int parse_value(parser *p, cml_jval *out)
{
    skip_ws(p);
    memset(out, 0, sizeof *out);
    out->offset = p->pos;
    if (p->pos >= p->len)
        return perr(p, p->pos, "unexpected end of input (a value was expected)");
    char c = p->s[p->pos];
    switch (c) {
    case '{': return parse_object(p, out);
    case '[': return parse_array(p, out);
    case '"':
        out->type = CML_J_STRING;
        return parse_string(p, &out->text, &out->len);
    case 't': return literal(p, "true", CML_J_TRUE, out);
    case 'f': return literal(p, "false", CML_J_FALSE, out);
    case 'n': return literal(p, "null", CML_J_NULL, out);
    default:
        if (c == '-' || is_digit(c))
            return parse_number(p, out);
        {
            char b[32];
            return perr(p, p->pos, "unexpected %s (a value was expected)",
                        show_char(p, p->pos, b, sizeof b));
        }
    }
}

cml_status cml_jdoc_parse(const char *text, size_t len, cml_jdoc **doc, char *err, size_t errlen)
{
    *doc = NULL;
    if (err && errlen)
        err[0] = '\0';
    parser p;
    memset(&p, 0, sizeof p);
    p.s = text ? text : "";
    p.len = text ? len : 0;
    p.err = err;
    p.errlen = errlen;
    p.st = CML_OK;
    p.doc = calloc(1, sizeof *p.doc);
    if (!p.doc) {
        oom(&p);
        return p.st;
    }
    if (p.len >= 3 && memcmp(p.s, "\xEF\xBB\xBF", 3) == 0) {
        perr(&p, 0, "byte order mark at the start (JSON text must not begin with one)");
    } else {
        skip_ws(&p);
        if (p.pos >= p.len)
            perr(&p, p.pos, "empty input (a JSON value was expected)");
        else if (parse_value(&p, &p.doc->root)) {
            skip_ws(&p);
            if (p.pos < p.len) {
                char b[32];
                perr(&p, p.pos, "unexpected %s after the end of the JSON value",
                     show_char(&p, p.pos, b, sizeof b));
            }
        }
    }
    free(p.buf);
    if (p.st != CML_OK) {
        cml_jdoc_free(p.doc);
        return p.st;
    }
    *doc = p.doc;
    return CML_OK;
}

const cml_jval *cml_jobject_get(const cml_jval *v, const char *key)
{
    if (!v || v->type != CML_J_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->members[i].key, key) == 0)
            return &v->members[i].value;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Number conversions                                                 */
/* ------------------------------------------------------------------ */

static int is_plain_integer(const cml_jval *v)
{
    if (!v || v->type != CML_J_NUMBER)
        return 0;
    return strpbrk(v->text, ".eE") == NULL;
}

int cml_jval_u64(const cml_jval *v, uint64_t *out)
{
    if (!is_plain_integer(v) || v->text[0] == '-')
        return 0;
    uint64_t x = 0;
    for (const char *s = v->text; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *out = x;
    return 1;
}

int cml_jval_i64(const cml_jval *v, int64_t *out)
{
    if (!is_plain_integer(v))
        return 0;
    int neg = v->text[0] == '-';
    uint64_t x = 0;
    for (const char *s = v->text + neg; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    if (neg) {
        if (x > (uint64_t)INT64_MAX + 1)
            return 0;
        *out = x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x;
    } else {
        if (x > (uint64_t)INT64_MAX)
            return 0;
        *out = (int64_t)x;
    }
    return 1;
}

/* strtod honours the locale's decimal point; JSON's is always '.'. */
int cml_jval_double(const cml_jval *v, double *out)
{
    if (!v || v->type != CML_J_NUMBER)
        return 0;
    char buf[512];
    const char *text = v->text;
    const struct lconv *lc = localeconv();
    char dp = (lc && lc->decimal_point && lc->decimal_point[0]) ? lc->decimal_point[0] : '.';
    if (dp != '.' && strchr(text, '.')) {
        if (v->len >= sizeof buf)
            return 0;
        memcpy(buf, text, v->len + 1);
        *strchr(buf, '.') = dp;
        text = buf;
    }
    errno = 0;
    char *end;
    double d = strtod(text, &end);
    if (*end != '\0' || !isfinite(d))
        return 0;
    *out = d;
    return 1;
}

/* ------------------------------------------------------------------ */
/* The results schema                                                 */
/* ------------------------------------------------------------------ */

typedef struct rd {
    const char *text;
    size_t len;
    char *err;
    size_t errlen;
} rd;

static int rfail(rd *c, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int rfail(rd *c, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlocate(c->text, c->len, offset, c->err, c->errlen, fmt, ap);
    va_end(ap);
    return 0;
}

static const char *type_name(cml_jtype t)
{
    switch (t) {
    case CML_J_NULL: return "null";
    case CML_J_FALSE:
    case CML_J_TRUE: return "a boolean";
    case CML_J_NUMBER: return "a number";
    case CML_J_STRING: return "a string";
    case CML_J_ARRAY: return "an array";
    case CML_J_OBJECT: return "an object";
    }
    return "a value";
}

/* The member `key` of object `o` (whose path is `where`), which must exist. */
static const cml_jval *need(rd *c, const cml_jval *o, const char *where, const char *key)
{
    const cml_jval *v = cml_jobject_get(o, key);
    if (!v)
        rfail(c, o->offset, "%s: missing member \"%s\"", where, key);
    return v;
}

static int need_type(rd *c, const cml_jval *v, const char *where, const char *key, cml_jtype t)
{
    if (v->type == t || (t == CML_J_TRUE && v->type == CML_J_FALSE))
        return 1;
    return rfail(c, v->offset, "%s%s%s: expected %s, found %s", where, key ? "." : "",
                 key ? key : "", type_name(t), type_name(v->type));
}

static int get_str(rd *c, const cml_jval *o, const char *where, const char *key, char *dst,
                   size_t cap)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_STRING))
        return 0;
    if (v->len >= cap)
        return rfail(c, v->offset, "%s.%s: string of %zu bytes is too long (at most %zu)", where,
                     key, v->len, cap - 1);
    memcpy(dst, v->text, v->len + 1);
    return 1;
}

static int get_u64(rd *c, const cml_jval *o, const char *where, const char *key, uint64_t *out)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_NUMBER))
        return 0;
    if (!cml_jval_u64(v, out))
        return rfail(c, v->offset,
                     "%s.%s: expected an integer in 0..18446744073709551615, found %s", where,
                     key, v->text);
    return 1;
}

static int get_int(rd *c, const cml_jval *o, const char *where, const char *key, int *out)
{
    const cml_jval *v = need(c, o, where, key);
    int64_t x;
    if (!v || !need_type(c, v, where, key, CML_J_NUMBER))
        return 0;
    if (!cml_jval_i64(v, &x) || x < INT_MIN || x > INT_MAX)
        return rfail(c, v->offset, "%s.%s: expected an integer in %d..%d, found %s", where, key,
                     INT_MIN, INT_MAX, v->text);
    *out = (int)x;
    return 1;
}

static int get_unsigned(rd *c, const cml_jval *o, const char *where, const char *key,
                        unsigned *out)
{
    const cml_jval *v = need(c, o, where, key);
    uint64_t x;
    if (!v || !need_type(c, v, where, key, CML_J_NUMBER))
        return 0;
    if (!cml_jval_u64(v, &x) || x > UINT_MAX)
        return rfail(c, v->offset, "%s.%s: expected an integer in 0..%u, found %s", where, key,
                     UINT_MAX, v->text);
    *out = (unsigned)x;
    return 1;
}

static int get_bool(rd *c, const cml_jval *o, const char *where, const char *key, int *out)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_TRUE))
        return 0;
    *out = v->type == CML_J_TRUE;
    return 1;
}

/* A number or null: *isnull says which; *out untouched for null. */
static int num_or_null(rd *c, const cml_jval *v, const char *where, const char *key, double *out,
                       int *isnull)
{
    if (v->type == CML_J_NULL) {
        *isnull = 1;
        return 1;
    }
    *isnull = 0;
    if (v->type != CML_J_NUMBER)
        return rfail(c, v->offset, "%s%s%s: expected a number or null, found %s", where,
                     key ? "." : "", key ? key : "", type_name(v->type));
    if (!cml_jval_double(v, out))
        return rfail(c, v->offset, "%s%s%s: number %s is beyond the range of a double", where,
                     key ? "." : "", key ? key : "", v->text);
    return 1;
}

/* A number, or null read as `if_null` (the records' marks for unknown). */
static int get_num(rd *c, const cml_jval *o, const char *where, const char *key, double *out,
                   double if_null)
{
    const cml_jval *v = need(c, o, where, key);
    int isnull;
    if (!v || !num_or_null(c, v, where, key, out, &isnull))
        return 0;
    if (isnull)
        *out = if_null;
    return 1;
}

static int read_device(rd *c, const cml_jval *o, cml_device_facts *d)
{
    const char *w = "device";
    return get_int(c, o, w, "index", &d->index) &&
           get_str(c, o, w, "name", d->name, sizeof d->name) &&
           get_int(c, o, w, "cc_major", &d->cc_major) &&
           get_int(c, o, w, "cc_minor", &d->cc_minor) &&
           get_int(c, o, w, "sm_count", &d->sm_count) &&
           get_int(c, o, w, "warp_size", &d->warp_size) &&
           get_int(c, o, w, "max_threads_per_block", &d->max_threads_per_block) &&
           get_int(c, o, w, "max_threads_per_sm", &d->max_threads_per_sm) &&
           get_int(c, o, w, "max_blocks_per_sm", &d->max_blocks_per_sm) &&
           get_int(c, o, w, "regs_per_block", &d->regs_per_block) &&
           get_int(c, o, w, "regs_per_sm", &d->regs_per_sm) &&
           get_u64(c, o, w, "shared_per_block", &d->shared_per_block) &&
           get_u64(c, o, w, "shared_per_block_optin", &d->shared_per_block_optin) &&
           get_u64(c, o, w, "shared_per_sm", &d->shared_per_sm) &&
           get_u64(c, o, w, "const_bytes", &d->const_bytes) &&
           get_u64(c, o, w, "l2_bytes", &d->l2_bytes) &&
           get_u64(c, o, w, "l2_persisting_max", &d->l2_persisting_max) &&
           get_u64(c, o, w, "global_bytes", &d->global_bytes) &&
           get_int(c, o, w, "bus_width_bits", &d->bus_width_bits) &&
           get_int(c, o, w, "mem_clock_khz", &d->mem_clock_khz) &&
           get_int(c, o, w, "sm_clock_khz", &d->sm_clock_khz) &&
           get_num(c, o, w, "theoretical_gbs", &d->theoretical_gbs, -1.0) &&
           get_bool(c, o, w, "ecc_enabled", &d->ecc_enabled) &&
           get_int(c, o, w, "driver_version", &d->driver_version) &&
           get_int(c, o, w, "runtime_version", &d->runtime_version) &&
           get_bool(c, o, w, "unified_addressing", &d->unified_addressing) &&
           get_bool(c, o, w, "can_map_host_memory", &d->can_map_host_memory) &&
           get_bool(c, o, w, "managed_memory", &d->managed_memory) &&
           get_bool(c, o, w, "concurrent_managed", &d->concurrent_managed) &&
           get_bool(c, o, w, "global_l1_cache_supported", &d->global_l1_cache_supported) &&
           get_bool(c, o, w, "local_l1_cache_supported", &d->local_l1_cache_supported);
}

/* One of `names` (NULL-terminated); its index into *out. */
static int get_enum(rd *c, const cml_jval *o, const char *where, const char *key,
                    const char *const *names, int *out)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_STRING))
        return 0;
    char allowed[128] = "";
    size_t used = 0;
    for (int i = 0; names[i]; i++) {
        if (strcmp(v->text, names[i]) == 0) {
            *out = i;
            return 1;
        }
        int w = snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"", i ? ", " : "",
                         names[i]);
        if (w > 0 && (size_t)w < sizeof allowed - used)
            used += (size_t)w;
    }
    return rfail(c, v->offset, "%s.%s: unknown value \"%.40s\" (allowed: %s)", where, key,
                 v->text, allowed);
}

/* "256" -> 256; anything that is not a plain decimal integer -> 0. */
static int64_t label_value(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (!*p)
        return 0;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno)
        return 0;
    return (int64_t)v;
}

static int read_params(rd *c, const cml_jval *o, const char *where, cml_record *rec)
{
    if (!need_type(c, o, where, "params", CML_J_OBJECT))
        return 0;
    if (o->count > CML_RECORD_MAX_PARAMS)
        return rfail(c, o->offset, "%s.params: %zu parameters, at most %d", where, o->count,
                     CML_RECORD_MAX_PARAMS);
    for (size_t i = 0; i < o->count; i++) {
        const cml_jmember *m = &o->members[i];
        cml_record_param *p = &rec->params[rec->nparams];
        if (strlen(m->key) >= sizeof p->name)
            return rfail(c, m->key_offset, "%s.params: name \"%.40s\" is too long (at most %zu)",
                         where, m->key, sizeof p->name - 1);
        if (!m->key[0])
            return rfail(c, m->key_offset, "%s.params: empty parameter name", where);
        memset(p, 0, sizeof *p);
        memcpy(p->name, m->key, strlen(m->key) + 1);
        const cml_jval *v = &m->value;
        if (v->type == CML_J_STRING) {
            if (v->len == 0 || v->len >= sizeof p->label)
                return rfail(c, v->offset, "%s.params.%s: a choice name of 1..%zu bytes expected",
                             where, m->key, sizeof p->label - 1);
            memcpy(p->label, v->text, v->len + 1);
            p->value = label_value(p->label);
        } else if (v->type == CML_J_NUMBER) {
            if (!cml_jval_i64(v, &p->value))
                return rfail(c, v->offset, "%s.params.%s: expected a 64-bit integer, found %s",
                             where, m->key, v->text);
        } else {
            return rfail(c, v->offset, "%s.params.%s: expected an integer or a string, found %s",
                         where, m->key, type_name(v->type));
        }
        rec->nparams++;
    }
    return 1;
}

static int read_timing(rd *c, const cml_jval *t, const char *where, cml_timing *tm)
{
    char w[64];
    snprintf(w, sizeof w, "%s.timing", where);
    double nan = NAN;
    return get_unsigned(c, t, w, "warmup", &tm->warmup) &&
           get_unsigned(c, t, w, "reps", &tm->reps) &&
           get_num(c, t, w, "median_ms", &tm->median_ms, nan) &&
           get_num(c, t, w, "min_ms", &tm->min_ms, nan) &&
           get_num(c, t, w, "max_ms", &tm->max_ms, nan) &&
           get_num(c, t, w, "mean_ms", &tm->mean_ms, nan) &&
           get_num(c, t, w, "cv", &tm->cv, nan);
}

static const char *const class_names[CML_CLASS_COUNT] = {
    "global_ld", "global_st", "local_ld", "local_st", "shared_ld", "shared_st", "const_ld"};

static int read_traffic(rd *c, const cml_jval *o, const char *w, cml_traffic *t)
{
    if (!need_type(c, o, w, NULL, CML_J_OBJECT))
        return 0;
    if (!(get_u64(c, o, w, "instructions", &t->instructions) &&
          get_u64(c, o, w, "requests", &t->requests) &&
          get_u64(c, o, w, "sectors", &t->sectors) && get_u64(c, o, w, "lines", &t->lines) &&
          get_u64(c, o, w, "transactions", &t->transactions) &&
          get_u64(c, o, w, "transaction_bytes", &t->transaction_bytes) &&
          get_u64(c, o, w, "efficiency_bytes", &t->efficiency_bytes) &&
          get_u64(c, o, w, "requested_bytes", &t->requested_bytes) &&
          get_u64(c, o, w, "lane_bytes", &t->lane_bytes) &&
          get_u64(c, o, w, "wavefronts", &t->wavefronts) &&
          get_u64(c, o, w, "ideal_wavefronts", &t->ideal_wavefronts) &&
          get_u64(c, o, w, "bank_conflicts", &t->bank_conflicts) &&
          get_u64(c, o, w, "serialized", &t->serialized)))
        return 0;
    /* The two ratios are derived from the counts: checked for type only. */
    const char *ratios[] = {"sectors_per_request", "efficiency"};
    for (int i = 0; i < 2; i++) {
        const cml_jval *v = cml_jobject_get(o, ratios[i]);
        double d;
        int isnull;
        if (v && !num_or_null(c, v, w, ratios[i], &d, &isnull))
            return 0;
    }
    return 1;
}

static int read_model(rd *c, const cml_jval *m, const char *where, cml_record *rec)
{
    static const char *const rules[CML_RULES_COUNT] = {"modern", "fermi"};
    char w[96];
    snprintf(w, sizeof w, "%s.model", where);
    if (!need_type(c, m, where, "model", CML_J_OBJECT))
        return 0;
    for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
        const cml_jval *set = need(c, m, w, rules[r]);
        if (!set || !need_type(c, set, w, rules[r], CML_J_OBJECT))
            return 0;
        char ws[128];
        for (size_t i = 0; i < set->count; i++) {
            const cml_jmember *cm = &set->members[i];
            for (int k = 0; k < (int)CML_CLASS_COUNT; k++) {
                if (strcmp(cm->key, class_names[k]) != 0)
                    continue;
                snprintf(ws, sizeof ws, "%s.%s.%s", w, rules[r], cm->key);
                if (!read_traffic(c, &cm->value, ws, &rec->model[r].cls[k]))
                    return 0;
            }
        }
    }
    rec->has_model = 1;
    return 1;
}

static int read_counters(rd *c, const cml_jval *a, const char *where, cml_record *rec)
{
    if (!need_type(c, a, where, "counters", CML_J_ARRAY))
        return 0;
    if (a->count > CML_RECORD_MAX_COUNTERS)
        return rfail(c, a->offset, "%s.counters: %zu counters, at most %d", where, a->count,
                     CML_RECORD_MAX_COUNTERS);
    for (size_t i = 0; i < a->count; i++) {
        char w[96];
        snprintf(w, sizeof w, "%s.counters[%zu]", where, i);
        const cml_jval *o = &a->items[i];
        if (!need_type(c, o, w, NULL, CML_J_OBJECT))
            return 0;
        cml_counter *k = &rec->counters[rec->ncounters];
        memset(k, 0, sizeof *k);
        int isnull;
        const cml_jval *pv;
        if (!get_str(c, o, w, "name", k->name, sizeof k->name) ||
            !get_num(c, o, w, "measured", &k->measured, NAN) ||
            !(pv = need(c, o, w, "predicted")) ||
            !num_or_null(c, pv, w, "predicted", &k->predicted, &isnull))
            return 0;
        k->has_prediction = !isnull;
        if (isnull)
            k->predicted = 0;
        rec->ncounters++;
    }
    return 1;
}

static int read_extra(rd *c, const cml_jval *o, const char *where, cml_record *rec)
{
    const size_t max = sizeof rec->extra / sizeof rec->extra[0];
    if (!need_type(c, o, where, "extra", CML_J_OBJECT))
        return 0;
    if (o->count > max)
        return rfail(c, o->offset, "%s.extra: %zu numbers, at most %zu", where, o->count, max);
    for (size_t i = 0; i < o->count; i++) {
        const cml_jmember *m = &o->members[i];
        char w[128];
        snprintf(w, sizeof w, "%s.extra.%.40s", where, m->key);
        if (strlen(m->key) >= sizeof rec->extra[0].name)
            return rfail(c, m->key_offset, "%s.extra: name \"%.40s\" is too long (at most %zu)",
                         where, m->key, sizeof rec->extra[0].name - 1);
        if (!need_type(c, &m->value, w, NULL, CML_J_OBJECT))
            return 0;
        unsigned k = rec->nextra;
        memcpy(rec->extra[k].name, m->key, strlen(m->key) + 1);
        if (!get_num(c, &m->value, w, "value", &rec->extra[k].value, NAN) ||
            !get_str(c, &m->value, w, "unit", rec->extra[k].unit, sizeof rec->extra[k].unit))
            return 0;
        rec->nextra++;
    }
    return 1;
}

static int read_record(rd *c, const cml_jval *o, size_t index, cml_results *r)
{
    static const char *const states[] = {"ok", "waived", "failed", NULL};
    static const char *const verifies[] = {"not_run", "passed", "failed", NULL};
    char w[48];
    snprintf(w, sizeof w, "records[%zu]", index);
    if (!need_type(c, o, w, NULL, CML_J_OBJECT))
        return 0;
    cml_record *rec = cml_results_add(r, "", "");
    if (!rec) {
        if (c->err && c->errlen)
            snprintf(c->err, c->errlen, "out of memory reading %s", w);
        return -1;
    }
    int state = 0, verify = 0;
    const cml_jval *v;
    if (!get_str(c, o, w, "experiment", rec->experiment, sizeof rec->experiment) ||
        !get_str(c, o, w, "variant", rec->variant, sizeof rec->variant) ||
        !get_enum(c, o, w, "state", states, &state) ||
        !get_str(c, o, w, "note", rec->note, sizeof rec->note) ||
        !(v = need(c, o, w, "params")) || !read_params(c, v, w, rec) ||
        !get_u64(c, o, w, "bytes_read", &rec->bytes_read) ||
        !get_u64(c, o, w, "bytes_written", &rec->bytes_written) ||
        !get_u64(c, o, w, "grid", &rec->grid) || !get_u64(c, o, w, "block", &rec->block) ||
        !get_num(c, o, w, "occupancy", &rec->occupancy, -1.0))
        return 0;
    rec->state = state == 1 ? CML_REC_WAIVED : state == 2 ? CML_REC_FAILED : CML_REC_OK;

    if (!(v = need(c, o, w, "timing")))
        return 0;
    if (v->type != CML_J_NULL) {
        if (!need_type(c, v, w, "timing", CML_J_OBJECT) || !read_timing(c, v, w, &rec->timing))
            return 0;
        rec->measured = 1;
    }
    if (!get_num(c, o, w, "bandwidth_gbs", &rec->bandwidth_gbs, rec->measured ? NAN : 0.0) ||
        !get_num(c, o, w, "peak_fraction", &rec->peak_fraction, -1.0) ||
        !get_enum(c, o, w, "verify", verifies, &verify))
        return 0;
    rec->verify = verify == 1 ? CML_VERIFY_PASSED : verify == 2 ? CML_VERIFY_FAILED
                                                                : CML_VERIFY_NONE;
    if (!(v = need(c, o, w, "model")))
        return 0;
    if (v->type != CML_J_NULL && !read_model(c, v, w, rec))
        return 0;
    if (!(v = need(c, o, w, "counters")) || !read_counters(c, v, w, rec) ||
        !(v = need(c, o, w, "extra")) || !read_extra(c, v, w, rec) ||
        !get_str(c, o, w, "finding", rec->finding, sizeof rec->finding))
        return 0;
    return 1;
}

/* The run's diagnostics: an array of {level, experiment (a key or null),
 * message}. 1 ok, 0 malformed (message in c), -1 out of memory. */
static int read_diagnostics(rd *c, const cml_jval *v, cml_results *r)
{
    if (!need_type(c, v, "top level", "diagnostics", CML_J_ARRAY))
        return 0;
    for (size_t i = 0; i < v->count; i++) {
        const cml_jval *d = &v->items[i];
        char where[48], level[16], message[sizeof r->diags[0].message];
        char experiment[sizeof r->diags[0].experiment] = "";
        snprintf(where, sizeof where, "diagnostics[%zu]", i);
        if (!need_type(c, d, where, NULL, CML_J_OBJECT) ||
            !get_str(c, d, where, "level", level, sizeof level) ||
            !get_str(c, d, where, "message", message, sizeof message))
            return 0;
        int lv = cml_diag_level_parse(level);
        if (lv < 0)
            return rfail(c, cml_jobject_get(d, "level")->offset,
                         "%s.level: \"%s\" is not info, warning or error", where, level);
        const cml_jval *e = need(c, d, where, "experiment");
        if (!e)
            return 0;
        if (e->type != CML_J_NULL &&
            !get_str(c, d, where, "experiment", experiment, sizeof experiment))
            return 0;
        if (cml_results_diag(r, (cml_diag_level)lv, experiment, "%s", message) != CML_OK)
            return -1;
    }
    return 1;
}

static cml_status read_results(rd *c, const cml_jval *root, cml_results *r)
{
    const char *w = "top level";
    const cml_jval *v;
    char schema[64];
    if (!need_type(c, root, w, NULL, CML_J_OBJECT) ||
        !get_str(c, root, w, "schema", schema, sizeof schema))
        return CML_EINVAL;
    if (strcmp(schema, "cumemlab-results") != 0)
        return rfail(c, cml_jobject_get(root, "schema")->offset,
                     "schema: \"%s\" is not \"cumemlab-results\"", schema),
               CML_EINVAL;
    if (!(v = need(c, root, w, "schema_version")))
        return CML_EINVAL;
    int64_t version;
    if (!cml_jval_i64(v, &version) || version < 1)
        return rfail(c, v->offset, "schema_version: expected a positive integer"), CML_EINVAL;
    if (version != 1)
        return rfail(c, v->offset,
                     "schema_version %lld is newer than this cumemlab reads (version 1)",
                     (long long)version),
               CML_EINVAL;
    if (!get_str(c, root, w, "tool_version", r->tool_version, sizeof r->tool_version) ||
        !get_str(c, root, w, "command_line", r->command_line, sizeof r->command_line) ||
        !get_bool(c, root, w, "model_only", &r->model_only) || !(v = need(c, root, w, "device")))
        return CML_EINVAL;
    if (v->type != CML_J_NULL) {
        if (!need_type(c, v, w, "device", CML_J_OBJECT) || !read_device(c, v, &r->device))
            return CML_EINVAL;
        r->has_device = 1;
    }
    /* peak_given: absent in files written before --peak existed (measured). */
    if (cml_jobject_get(root, "peak_given") && !get_bool(c, root, w, "peak_given", &r->peak_given))
        return CML_EINVAL;
    if (!get_num(c, root, w, "peak_gbs", &r->peak_gbs, 0.0))
        return CML_EINVAL;
    /* diagnostics: absent in files written before the run engine had them. */
    v = cml_jobject_get(root, "diagnostics");
    if (v) {
        int ok = read_diagnostics(c, v, r);
        if (ok < 0)
            return CML_ENOMEM;
        if (!ok)
            return CML_EINVAL;
    }
    if (!(v = need(c, root, w, "records")) || !need_type(c, v, w, "records", CML_J_ARRAY))
        return CML_EINVAL;
    for (size_t i = 0; i < v->count; i++) {
        int ok = read_record(c, &v->items[i], i, r);
        if (ok < 0)
            return CML_ENOMEM;
        if (!ok)
            return CML_EINVAL;
    }
    return CML_OK;
}

cml_status cml_results_from_json(const char *text, size_t len, cml_results *r, char *err,
                                 size_t errlen)
{
    cml_results_init(r);
    cml_jdoc *doc;
    cml_status st = cml_jdoc_parse(text, len, &doc, err, errlen);
    if (st != CML_OK)
        return st;
    rd c = {text, len, err, errlen};
    st = read_results(&c, cml_jdoc_root(doc), r);
    cml_jdoc_free(doc);
    if (st != CML_OK) {
        cml_results_free(r);
        cml_results_init(r);
    }
    return st;
}

/*
 * The most cml_results_read_file reads: 1 GiB. A results file of 100,000
 * records is about 300 MB; without a cap `cumemlab report /dev/zero` (or a
 * runaway pipe) reads until memory runs out. docs/json-schema.md names it.
 */
#define CML_JREAD_MAX_INPUT ((size_t)1 << 30)
#define CML_JREAD_MAX_INPUT_TEXT "1 GiB"

cml_status cml_results_read_file(const char *path, cml_results *r, char *err, size_t errlen)
{
    cml_results_init(r);
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return CML_EIO;
    }
    /* A regular file over the cap is refused before reading any of it;
     * anything else (a pipe, a device) is read up to one byte past it. */
    struct stat sb;
    int too_big = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
                  (uintmax_t)sb.st_size > (uintmax_t)CML_JREAD_MAX_INPUT;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    cml_status st = CML_OK;
    while (!too_big) {
        if (cap - len < 65536 && cap <= CML_JREAD_MAX_INPUT) {
            size_t ncap = cap ? cap * 2 : 1 << 20;
            if (ncap > CML_JREAD_MAX_INPUT + 1)
                ncap = CML_JREAD_MAX_INPUT + 1;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                st = CML_ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len > CML_JREAD_MAX_INPUT)
            too_big = 1;
        if (got == 0)
            break;
    }
    int read_failed = ferror(f);
    int saved = errno;
    if (!is_stdin)
        fclose(f);
    if (too_big) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s: larger than %s, the most a results file may hold "
                     "(docs/json-schema.md); not read",
                     path, CML_JREAD_MAX_INPUT_TEXT);
        free(buf);
        return CML_EINVAL;
    }
    if (st == CML_OK && read_failed) {
        if (err && errlen)
            snprintf(err, errlen, "%s: read failed: %s", path, strerror(saved));
        free(buf);
        return CML_EIO;
    }
    if (st == CML_ENOMEM) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", path);
        free(buf);
        return st;
    }
    char msg[512] = "";
    st = cml_results_from_json(buf, len, r, msg, sizeof msg);
    if (st != CML_OK && err && errlen)
        snprintf(err, errlen, "%s: %s", path, msg);
    free(buf);
    return st;
}
