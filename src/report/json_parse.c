/*
 * The strict JSON parser (json_read.h): recursive descent into a tree held
 * in an arena (json_tree.c), over a window of the text that only moves
 * forward. The parser looks at most a few bytes ahead of its position and
 * never behind it (numbers and strings are copied out as they are read), so
 * a text read in pieces (cml_jinput: a file, gzip) is held 64 KiB at a
 * time, never whole. The elements of a streamed array (cml_jstream: the
 * results' "records", a fleet's "ranks") are parsed into a scratch arena,
 * handed to a callback and freed, so the tree of a results file is only its
 * top level.
 *
 * Errors are one line with the line, column and byte offset of the
 * offending character. Lines are counted as the parser goes: a newline can
 * only be white space (inside a string it is an error), so skip_ws is the
 * one place that moves to a new line, and every value and member name
 * records where it started for the messages of the schema reader.
 */
#include "report/json_tree.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The window's size when the text is read in pieces, and how far past its
 * position the parser may look (a \uXXXX\uXXXX pair: 12 bytes). */
#define WINDOW 65536
#define LOOKAHEAD 32

typedef struct parser {
    const char *win;           /* bytes [base, base + n) of the text */
    size_t base, n;
    int more;                  /* the input may hold bytes past the window */
    const cml_jinput *in;
    char *own;                 /* the window's storage when reading in pieces */
    size_t pos;                /* offset of the next byte, from the text's start */
    size_t line, line_start;   /* pos's line (from 1) and the offset where it starts */
    cml_jdoc *doc;
    cml_arena *cur;            /* where values go: the document's arena or scratch */
    cml_arena scratch;         /* one element of the streamed array */
    const cml_jstream *stream;
    const cml_jstream *stream_next; /* the value about to be parsed is streamed to it */
    char *err;
    size_t errlen;
    int depth;
    cml_status st;             /* CML_OK until the first error */
    char *buf;                 /* scratch for decoding strings and numbers */
    size_t bufcap;
} parser;

/* ------------------------------------------------------------------ */
/* The window                                                         */
/* ------------------------------------------------------------------ */

/* Byte i (i >= pos, i < pos + LOOKAHEAD) read into the window: everything
 * before pos is dropped (the parser never looks back), then pieces are read
 * until i is in or the input ends. -1 at the end or after a read error
 * (which sets st and err: a parse that stops there reports the read error,
 * not the end it appears to be). */
static int fill(parser *p, size_t i)
{
    if (!p->more || p->st != CML_OK)
        return -1;
    size_t drop = p->pos - p->base;
    if (drop > p->n)
        drop = p->n;
    memmove(p->own, p->own + drop, p->n - drop);
    p->base += drop;
    p->n -= drop;
    p->win = p->own;
    while (i - p->base >= p->n && p->more) {
        size_t got = 0;
        cml_status st = p->in->read(p->in->ctx, p->own + p->n, WINDOW + LOOKAHEAD - p->n, &got,
                                    p->err, p->errlen);
        if (st != CML_OK) {
            p->st = st;
            p->more = 0;
            return -1;
        }
        if (got == 0)
            p->more = 0;
        p->n += got;
    }
    return i - p->base < p->n ? (unsigned char)p->win[i - p->base] : -1;
}

/* Byte i of the text (0..255), or -1 past its end. */
static inline int at(parser *p, size_t i)
{
    size_t k = i - p->base;
    if (k < p->n)
        return (unsigned char)p->win[k];
    return fill(p, i);
}

/* ------------------------------------------------------------------ */
/* Messages                                                           */
/* ------------------------------------------------------------------ */

static void perr_v(parser *p, size_t line, size_t col, size_t offset, const char *fmt,
                   va_list ap)
{
    if (p->st == CML_OK) {
        p->st = CML_EINVAL;
        cml_jtext_vlocate(line, col, offset, p->err, p->errlen, fmt, ap);
    }
}

/* An error at `offset`, on the line the parser is on. */
static int perr(parser *p, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int perr(parser *p, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    perr_v(p, p->line, offset - p->line_start + 1, offset, fmt, ap);
    va_end(ap);
    return 0;
}

/* An error at a place recorded earlier (a member name). */
static int perr_at(parser *p, size_t line, size_t col, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static int perr_at(parser *p, size_t line, size_t col, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    perr_v(p, line, col, offset, fmt, ap);
    va_end(ap);
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
static const char *show_char(parser *p, size_t pos, char *buf, size_t len)
{
    int c = at(p, pos);
    if (c < 0)
        snprintf(buf, len, "end of input");
    else if (c > 0x20 && c < 0x7f && c != '\'')
        snprintf(buf, len, "'%c'", c);
    else if (c == '\'')
        snprintf(buf, len, "\"'\"");
    else
        snprintf(buf, len, "byte 0x%02x", (unsigned)c);
    return buf;
}

/* ------------------------------------------------------------------ */
/* Parser                                                             */
/* ------------------------------------------------------------------ */

static void skip_ws(parser *p)
{
    for (;;) {
        int c = at(p, p->pos);
        if (c == '\n') {
            p->pos++;
            p->line++;
            p->line_start = p->pos;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            p->pos++;
        } else {
            return;
        }
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
    char *d = cml_arena_alloc(p->cur, n + 1);
    if (!d) {
        oom(p);
        return NULL;
    }
    if (n)
        memcpy(d, src, n);
    d[n] = '\0';
    return d;
}

static int hex4(parser *p, size_t from, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < 4; i++) {
        int c = at(p, from + i);
        if (c < 0)
            return perr(p, from + i, "unterminated \\u escape (4 hex digits needed)");
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else
            return perr(p, from + i, "bad hex digit in \\u escape (4 hex digits needed)");
        v = v * 16 + d;
    }
    *out = v;
    return 1;
}

/* Length of the valid UTF-8 sequence at pos (RFC 3629), 0 if none. */
static size_t utf8_seq(parser *p, size_t pos)
{
    unsigned c = (unsigned)at(p, pos);
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
    for (size_t i = 1; i < n; i++) {
        int s = at(p, pos + i);
        if (s < 0 || (s & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | ((unsigned)s & 0x3F);
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

/* \uXXXX (and its low surrogate) at `from`, the backslash: encoded into
 * the scratch buffer; pos moves past it. */
static int parse_u_escape(parser *p, size_t from, size_t *n)
{
    unsigned u, lo;
    if (!hex4(p, from + 2, &u))
        return 0;
    unsigned long cp = u;
    size_t next = from + 6;
    if (u >= 0xDC00 && u <= 0xDFFF)
        return perr(p, from, "lone low surrogate \\u%04X in a string", u);
    if (u >= 0xD800 && u <= 0xDBFF) {
        if (at(p, next) != '\\' || at(p, next + 1) != 'u')
            return perr(p, from, "high surrogate \\u%04X not followed by a low one", u);
        if (!hex4(p, next + 2, &lo))
            return 0;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return perr(p, next, "high surrogate \\u%04X followed by \\u%04X, not a low surrogate",
                        u, lo);
        cp = 0x10000 + (((unsigned long)u - 0xD800) << 10) + (lo - 0xDC00);
        next += 6;
    }
    if (cp == 0)
        return perr(p, from, "\\u0000 (NUL) inside a string is not supported");
    char enc[4];
    size_t k = utf8_encode(cp, enc);
    if (!buf_put(p, n, enc, k))
        return 0;
    p->pos = next;
    return 1;
}

/* A string at p->pos (which holds the opening quote): decoded into the
 * arena. */
static int parse_string(parser *p, const char **out, size_t *outlen)
{
    size_t open = p->pos;
    size_t n = 0;
    p->pos++;
    for (;;) {
        int c = at(p, p->pos);
        if (c < 0)
            return perr(p, p->pos, "unterminated string (opened at byte %zu)", open);
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20)
            return perr(p, p->pos,
                        "control character 0x%02x inside a string (must be written as an escape)",
                        (unsigned)c);
        if (c == '\\') {
            size_t from = p->pos;
            int e = at(p, from + 1);
            char ch;
            switch (e) {
            case -1: return perr(p, from, "unterminated string (opened at byte %zu)", open);
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case '/': ch = '/'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u':
                if (!parse_u_escape(p, from, &n))
                    return 0;
                continue;
            default:
                return perr(p, from, "unknown escape '\\%c' in a string",
                            (e > 0x20 && e < 0x7f) ? e : '?');
            }
            if (!buf_put(p, &n, &ch, 1))
                return 0;
            p->pos += 2;
            continue;
        }
        size_t k = utf8_seq(p, p->pos);
        if (k == 0)
            return perr(p, p->pos, "invalid UTF-8 (byte 0x%02x) inside a string", (unsigned)c);
        char bytes[4];
        for (size_t i = 0; i < k; i++)
            bytes[i] = (char)at(p, p->pos + i);
        if (!buf_put(p, &n, bytes, k))
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

static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* The byte at pos into the number's text, and on. */
static int take(parser *p, size_t *n)
{
    char c = (char)at(p, p->pos);
    p->pos++;
    return buf_put(p, n, &c, 1);
}

static int digits(parser *p, size_t *n)
{
    while (is_digit(at(p, p->pos)))
        if (!take(p, n))
            return 0;
    return 1;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, its text kept as written. */
static int parse_number(parser *p, cml_jval *out)
{
    size_t start = p->pos, n = 0;
    if (at(p, p->pos) == '-' && !take(p, &n))
        return 0;
    int c = at(p, p->pos);
    if (!is_digit(c))
        return perr(p, p->pos, "a digit must follow '-'");
    if (c == '0') {
        if (!take(p, &n))
            return 0;
        if (is_digit(at(p, p->pos)))
            return perr(p, start, "number with a leading zero");
    } else if (!digits(p, &n)) {
        return 0;
    }
    if (at(p, p->pos) == '.') {
        if (!take(p, &n))
            return 0;
        if (!is_digit(at(p, p->pos)))
            return perr(p, p->pos, "a digit must follow the decimal point");
        if (!digits(p, &n))
            return 0;
    }
    c = at(p, p->pos);
    if (c == 'e' || c == 'E') {
        if (!take(p, &n))
            return 0;
        c = at(p, p->pos);
        if ((c == '+' || c == '-') && !take(p, &n))
            return 0;
        if (!is_digit(at(p, p->pos)))
            return perr(p, p->pos, "a digit must follow the exponent");
        if (!digits(p, &n))
            return 0;
    }
    out->type = CML_J_NUMBER;
    out->text = arena_str(p, p->buf, n);
    if (!out->text)
        return 0;
    out->len = n;
    return 1;
}

static int literal(parser *p, const char *word, cml_jtype t, cml_jval *out)
{
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++)
        if (at(p, p->pos + i) != (unsigned char)word[i])
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
        dst = cml_arena_alloc(p->cur, v->count * v->size);
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
    if (at(p, p->pos) == ',') {
        p->pos++;
        skip_ws(p);
        if (at(p, p->pos) == close) {
            perr(p, p->pos, "trailing comma before '%c'", close);
            return -1;
        }
        return 1;
    }
    if (at(p, p->pos) == close) {
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
    if (at(p, p->pos) == ']') {
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

/* The streamed array: each element into the scratch arena, to the
 * callback, then freed; the tree keeps the count only. */
static int parse_array_streamed(parser *p, const cml_jstream *to, cml_jval *out)
{
    if (!enter(p))
        return 0;
    p->pos++;
    skip_ws(p);
    size_t count = 0;
    int ok = 1;
    if (at(p, p->pos) == ']') {
        p->pos++;
    } else {
        for (;;) {
            cml_jval item;
            cml_arena *keep = p->cur;
            p->cur = &p->scratch;
            int got = parse_value(p, &item);
            p->cur = keep;
            if (got) {
                cml_status st = to->item(to->ctx, &item, count);
                if (st != CML_OK && p->st == CML_OK)
                    p->st = st; /* item wrote the message */
                got = st == CML_OK;
            }
            cml_arena_reset(&p->scratch);
            if (!got) {
                ok = 0;
                break;
            }
            count++;
            int next = after_item(p, ']', "an array");
            if (next <= 0) {
                ok = next == 0;
                break;
            }
        }
    }
    p->depth--;
    out->type = CML_J_ARRAY;
    out->count = count;
    out->items = NULL;
    return ok && p->st == CML_OK;
}

typedef struct keyref {
    const char *key;
    const cml_jmember *m;
} keyref;

static int keyref_cmp(const void *a, const void *b)
{
    const keyref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->m->key_offset < y->m->key_offset ? -1 : x->m->key_offset > y->m->key_offset;
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
        k[i].m = &m[i];
    }
    qsort(k, n, sizeof *k, keyref_cmp);
    const cml_jmember *worst = NULL;
    for (size_t i = 1; i < n; i++)
        if (strcmp(k[i].key, k[i - 1].key) == 0 &&
            (!worst || k[i].m->key_offset < worst->key_offset))
            worst = k[i].m;
    int ok = 1;
    if (worst)
        ok = perr_at(p, worst->key_line, worst->key_col, worst->key_offset,
                     "duplicate member \"%.60s\" in an object", worst->key);
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
    if (at(p, p->pos) == '}') {
        p->pos++;
    } else {
        for (;;) {
            char b[32];
            if (at(p, p->pos) != '"') {
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
            m->key_line = p->line;
            m->key_col = p->pos - p->line_start + 1;
            size_t klen;
            if (!parse_string(p, &m->key, &klen)) {
                ok = 0;
                break;
            }
            skip_ws(p);
            if (at(p, p->pos) != ':') {
                ok = perr(p, p->pos, "expected ':' after the member name \"%.60s\", found %s",
                          m->key, show_char(p, p->pos, b, sizeof b));
                break;
            }
            p->pos++;
            /* A root object's member the caller streams (the first of the
             * chain that names it). */
            p->stream_next = p->depth == 1 ? p->stream : NULL;
            while (p->stream_next && strcmp(m->key, p->stream_next->key) != 0)
                p->stream_next = p->stream_next->next;
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
    const cml_jstream *stream = p->stream_next;
    p->stream_next = NULL;
    skip_ws(p);
    memset(out, 0, sizeof *out);
    out->offset = p->pos;
    out->line = p->line;
    out->col = p->pos - p->line_start + 1;
    int c = at(p, p->pos);
    switch (c) {
    case -1: return perr(p, p->pos, "unexpected end of input (a value was expected)");
    case '{': return parse_object(p, out);
    case '[': return stream ? parse_array_streamed(p, stream, out) : parse_array(p, out);
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

static void parse_document(parser *p)
{
    if (at(p, 0) == 0xEF && at(p, 1) == 0xBB && at(p, 2) == 0xBF) {
        perr(p, 0, "byte order mark at the start (JSON text must not begin with one)");
        return;
    }
    skip_ws(p);
    if (at(p, p->pos) < 0) {
        perr(p, p->pos, "empty input (a JSON value was expected)");
        return;
    }
    if (!parse_value(p, &p->doc->root))
        return;
    skip_ws(p);
    if (at(p, p->pos) >= 0) {
        char b[32];
        perr(p, p->pos, "unexpected %s after the end of the JSON value",
             show_char(p, p->pos, b, sizeof b));
    }
}

cml_status cml_jdoc_parse_input(const cml_jinput *in, const cml_jstream *stream, cml_jdoc **doc,
                                char *err, size_t errlen)
{
    *doc = NULL;
    if (err && errlen)
        err[0] = '\0';
    parser p;
    memset(&p, 0, sizeof p);
    p.line = 1;
    p.err = err;
    p.errlen = errlen;
    p.st = CML_OK;
    p.stream = stream;
    p.in = in;
    if (in->read) {
        p.own = malloc(WINDOW + LOOKAHEAD);
        p.win = p.own;
        p.more = 1;
    } else {
        p.win = in->text ? in->text : "";
        p.n = in->text ? in->len : 0;
    }
    p.doc = calloc(1, sizeof *p.doc);
    if (!p.doc || (in->read && !p.own)) {
        oom(&p);
    } else {
        p.cur = &p.doc->arena;
        parse_document(&p);
    }
    free(p.buf);
    free(p.own);
    cml_arena_free(&p.scratch);
    if (p.st != CML_OK) {
        cml_jdoc_free(p.doc);
        return p.st;
    }
    *doc = p.doc;
    return CML_OK;
}

cml_status cml_jdoc_parse(const char *text, size_t len, cml_jdoc **doc, char *err, size_t errlen)
{
    cml_jinput in = {text, len, NULL, NULL};
    return cml_jdoc_parse_input(&in, NULL, doc, err, errlen);
}
