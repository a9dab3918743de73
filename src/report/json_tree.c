/*
 * The parsed tree (json_read.h): its arena, member lookup, exact number
 * conversions, and the "line L, column C (byte B)" of every message. The
 * parser that builds the tree is json_parse.c.
 */
#include "report/json_tree.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Arena                                                              */
/* ------------------------------------------------------------------ */

/* Blocks of at least 64 KiB; a larger request gets a block of its own.
 * Everything is 16-byte aligned, enough for every type the tree holds. */
struct cml_arena_block {
    struct cml_arena_block *next;
    size_t used, cap;
};

#define ARENA_ALIGN 16
#define ARENA_BLOCK 65536
#define ARENA_HEADER \
    ((sizeof(cml_arena_block) + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN)

void *cml_arena_alloc(cml_arena *a, size_t n)
{
    if (n > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    n = (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    if (n == 0)
        n = ARENA_ALIGN;
    cml_arena_block *b = a->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        if (cap > SIZE_MAX - ARENA_HEADER)
            return NULL;
        b = malloc(ARENA_HEADER + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = a->blocks;
        a->blocks = b;
    }
    void *p = (unsigned char *)b + ARENA_HEADER + b->used;
    b->used += n;
    return p;
}

void cml_arena_reset(cml_arena *a)
{
    cml_arena_block *keep = NULL, *b = a->blocks;
    while (b) {
        cml_arena_block *next = b->next;
        if (!keep && b->cap == ARENA_BLOCK) {
            keep = b;
            keep->used = 0;
            keep->next = NULL;
        } else {
            free(b);
        }
        b = next;
    }
    a->blocks = keep;
}

void cml_arena_free(cml_arena *a)
{
    cml_arena_block *b = a->blocks;
    while (b) {
        cml_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->blocks = NULL;
}

void cml_jdoc_free(cml_jdoc *doc)
{
    if (!doc)
        return;
    cml_arena_free(&doc->arena);
    free(doc);
}

const cml_jval *cml_jdoc_root(const cml_jdoc *doc)
{
    return doc ? &doc->root : NULL;
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

void cml_jtext_vlocate(size_t line, size_t col, size_t offset, char *err, size_t errlen,
                       const char *fmt, va_list ap)
{
    if (!err || errlen == 0)
        return;
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
