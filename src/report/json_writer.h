/*
 * A tiny streaming JSON writer (stb-style): it keeps the commas, the
 * indentation and the escaping right so the reporter only says what to write.
 * Output is pretty-printed with two-space indentation, one member per line.
 * Write errors are not checked per call: the caller checks ferror() once at
 * the end.
 */
#ifndef CML_JSON_WRITER_H
#define CML_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CML_JSON_MAX_DEPTH 32

typedef struct cml_json {
    FILE *out;
    int depth;
    int first[CML_JSON_MAX_DEPTH]; /* 1 while the container at this depth is empty */
    int after_key;                 /* a key was written; the value follows on its line */
} cml_json;

void cml_json_init(cml_json *j, FILE *out);

void cml_json_begin_object(cml_json *j);
void cml_json_end_object(cml_json *j);
void cml_json_begin_array(cml_json *j);
void cml_json_end_array(cml_json *j);

/* A member name inside an object; the next call writes its value. */
void cml_json_key(cml_json *j, const char *key);

/* Values. Strings are escaped per RFC 8259: quote, backslash and control
 * characters (as \n, \t, ... or \u00XX); valid UTF-8 passes through; bytes
 * that are not valid UTF-8 become U+FFFD. NULL writes null. */
void cml_json_string(cml_json *j, const char *s);
void cml_json_u64(cml_json *j, uint64_t v);
void cml_json_i64(cml_json *j, int64_t v);
/* Shortest round-trip form; NaN and infinities become null. */
void cml_json_double(cml_json *j, double v);
void cml_json_bool(cml_json *j, int v);
void cml_json_null(cml_json *j);

/* key + value in one call. */
void cml_json_kv_string(cml_json *j, const char *key, const char *s);
void cml_json_kv_u64(cml_json *j, const char *key, uint64_t v);
void cml_json_kv_i64(cml_json *j, const char *key, int64_t v);
void cml_json_kv_double(cml_json *j, const char *key, double v);
void cml_json_kv_bool(cml_json *j, const char *key, int v);
void cml_json_kv_null(cml_json *j, const char *key);

/* A value given as JSON text (one whole value the caller has checked: it
 * is not parsed here), written where a value goes, its lines re-indented
 * to the current depth so that a document spliced into another reads like
 * the rest. Only whitespace between tokens changes (a JSON string holds no
 * raw line break); trailing whitespace is dropped. */
void cml_json_raw(cml_json *j, const char *text, size_t len);

/* Write s as the body of a JSON string (no surrounding quotes). */
void cml_json_escape(FILE *out, const char *s);

#endif
