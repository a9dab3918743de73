/*
 * The strict JSON parser (json_read.h): a recursive-descent parser into a
 * tree held in an arena (one free for the whole document), with exact
 * number conversions. Errors are one line with the line, column and byte
 * offset of the offending character. The results schema on top of it is
 * json_read.c.
 */
#include "report/json_read.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
void cml_jtext_vlocate(const char *text, size_t len, size_t offset, char *err, size_t errlen,
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
        cml_jtext_vlocate(p->s, p->len, offset, p->err, p->errlen, fmt, ap);
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

