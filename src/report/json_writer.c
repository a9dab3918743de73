/* A tiny streaming JSON writer: commas, indentation, escaping, numbers. */
#include "report/json_writer.h"

#include <inttypes.h>
#include <string.h>

#include "report/report_util.h"

void cml_json_init(cml_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->first[0] = 1;
}

static void indent(cml_json *j)
{
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
}

/* Everything a value needs before it: a comma after a sibling and a fresh,
 * indented line, unless it is the value of a key just written (same line). */
static void before_value(cml_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (!j->first[j->depth])
            fputc(',', j->out);
        indent(j);
    }
    j->first[j->depth] = 0;
}

static void open_container(cml_json *j, char c)
{
    before_value(j);
    fputc(c, j->out);
    if (j->depth < CML_JSON_MAX_DEPTH - 1)
        j->depth++;
    j->first[j->depth] = 1;
}

static void close_container(cml_json *j, char c)
{
    int empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty)
        indent(j);
    fputc(c, j->out);
    if (j->depth == 0)
        fputc('\n', j->out);
}

void cml_json_begin_object(cml_json *j) { open_container(j, '{'); }
void cml_json_end_object(cml_json *j) { close_container(j, '}'); }
void cml_json_begin_array(cml_json *j) { open_container(j, '['); }
void cml_json_end_array(cml_json *j) { close_container(j, ']'); }

void cml_json_key(cml_json *j, const char *key)
{
    before_value(j);
    fputc('"', j->out);
    cml_json_escape(j->out, key);
    fputs("\": ", j->out);
    j->after_key = 1;
}

void cml_json_raw(cml_json *j, const char *text, size_t len)
{
    before_value(j);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\t' ||
                   text[len - 1] == '\r'))
        len--;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            indent(j);
        else
            fputc(text[i], j->out);
    }
    if (j->depth == 0)
        fputc('\n', j->out);
}

void cml_json_escape(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned c = *s;
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
            s++;
        } else if (c < 0x20) {
            switch (c) {
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            s++;
        } else if (c < 0x80) {
            fputc((int)c, out);
            s++;
        } else {
            size_t n = cml_rep_utf8_len(s);
            if (n == 0) {
                fputs("\\ufffd", out); /* not UTF-8: replacement character */
                s++;
            } else {
                fwrite(s, 1, n, out);
                s += n;
            }
        }
    }
}

void cml_json_string(cml_json *j, const char *s)
{
    if (!s) {
        cml_json_null(j);
        return;
    }
    before_value(j);
    fputc('"', j->out);
    cml_json_escape(j->out, s);
    fputc('"', j->out);
}

void cml_json_u64(cml_json *j, uint64_t v)
{
    before_value(j);
    fprintf(j->out, "%" PRIu64, v);
}

void cml_json_i64(cml_json *j, int64_t v)
{
    before_value(j);
    fprintf(j->out, "%" PRId64, v);
}

void cml_json_double(cml_json *j, double v)
{
    char buf[CML_NUM_BUF];
    before_value(j);
    if (cml_rep_fmt_double(buf, sizeof buf, v))
        fputs(buf, j->out);
    else
        fputs("null", j->out);
}

void cml_json_bool(cml_json *j, int v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->out);
}

void cml_json_null(cml_json *j)
{
    before_value(j);
    fputs("null", j->out);
}

void cml_json_kv_string(cml_json *j, const char *key, const char *s)
{
    cml_json_key(j, key);
    cml_json_string(j, s);
}

void cml_json_kv_u64(cml_json *j, const char *key, uint64_t v)
{
    cml_json_key(j, key);
    cml_json_u64(j, v);
}

void cml_json_kv_i64(cml_json *j, const char *key, int64_t v)
{
    cml_json_key(j, key);
    cml_json_i64(j, v);
}

void cml_json_kv_double(cml_json *j, const char *key, double v)
{
    cml_json_key(j, key);
    cml_json_double(j, v);
}

void cml_json_kv_bool(cml_json *j, const char *key, int v)
{
    cml_json_key(j, key);
    cml_json_bool(j, v);
}

void cml_json_kv_null(cml_json *j, const char *key)
{
    cml_json_key(j, key);
    cml_json_null(j);
}
