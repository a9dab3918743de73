/*
 * A small strict JSON reader (stb-style, no library): a recursive-descent
 * parser for RFC 8259 text into a tree, and on top of it the reader of the
 * "cumemlab-results" schema (docs/json-schema.md) back into cml_results, so a
 * saved run can be rendered again as a table, CSV, JSON or HTML.
 *
 * Strict means: exactly the RFC grammar (no comments, no trailing commas, no
 * single quotes, no NaN/Infinity, no leading zeros, no byte order mark),
 * strings in valid UTF-8 with paired surrogates, no duplicate member names,
 * nesting at most CML_JREAD_MAX_DEPTH deep. Every error is one line naming
 * where it is: "line L, column C (byte B): what", with B counted from 0 and
 * L, C from 1 (C in bytes).
 */
#ifndef CML_JSON_READ_H
#define CML_JSON_READ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

#define CML_JREAD_MAX_DEPTH 64

typedef enum cml_jtype {
    CML_J_NULL = 0,
    CML_J_FALSE,
    CML_J_TRUE,
    CML_J_NUMBER,
    CML_J_STRING,
    CML_J_ARRAY,
    CML_J_OBJECT
} cml_jtype;

typedef struct cml_jmember cml_jmember;

/* One value of the tree. Strings are decoded UTF-8, NUL-terminated (a
 * string holding \u0000 is rejected, so strlen works); numbers keep their
 * text exactly as written, so integers convert without going through a
 * double. `offset` is the byte offset of the value's first character. */
typedef struct cml_jval {
    cml_jtype type;
    size_t offset;
    const char *text;          /* string contents, or the number's text */
    size_t len;                /* bytes of text */
    size_t count;              /* array elements or object members */
    struct cml_jval *items;    /* array elements */
    cml_jmember *members;      /* object members, in document order */
} cml_jval;

struct cml_jmember {
    const char *key;
    size_t key_offset;         /* byte offset of the member name's opening quote */
    cml_jval value;
};

typedef struct cml_jdoc cml_jdoc;

/*
 * Parse `len` bytes of JSON text (not necessarily NUL-terminated). On
 * CML_OK *doc holds the tree (free it with cml_jdoc_free). On a syntax error
 * returns CML_EINVAL, *doc is NULL and err holds the one-line message; on
 * out of memory CML_ENOMEM.
 */
cml_status cml_jdoc_parse(const char *text, size_t len, cml_jdoc **doc, char *err, size_t errlen);
const cml_jval *cml_jdoc_root(const cml_jdoc *doc);
void cml_jdoc_free(cml_jdoc *doc);

/* The member `key` of an object, or NULL (also when v is not an object). */
const cml_jval *cml_jobject_get(const cml_jval *v, const char *key);

/* Exact conversions of a number value: 1 on success; 0 when v is not a
 * number, not an integer in that form (no fraction, no exponent), or out of
 * range. cml_jval_double: 0 when not a number or beyond the double range. */
int cml_jval_u64(const cml_jval *v, uint64_t *out);
int cml_jval_i64(const cml_jval *v, int64_t *out);
int cml_jval_double(const cml_jval *v, double *out);

/* "line L, column C (byte B): " and the message, into err: one line of
 * text (control bytes quoted from the input are shown as '?'). Shared by
 * the parser and the schema reader. */
void cml_jtext_vlocate(const char *text, size_t len, size_t offset, char *err, size_t errlen,
                       const char *fmt, va_list ap);

/* Line and column (both from 1) of byte `offset` in text. */
void cml_jtext_position(const char *text, size_t len, size_t offset, size_t *line, size_t *col);

/*
 * Read a "cumemlab-results" document (schema_version 1) into r, which this
 * initialises (cml_results_init) and the caller frees (cml_results_free),
 * on failure too. Members may come in any order; members this version does
 * not know are skipped (later versions may add some); every member the
 * schema documents must be present with its documented type, except the
 * ratios `sectors_per_request` and `efficiency`, which are recomputed.
 * Strings longer than the record's field are an error, not truncated.
 * Enumerated parameters ("path": "ca") keep their name as the label; the
 * value is the name read as an integer when it is one ("block": "256"),
 * else 0 (the choice's index is the experiment's, not the file's).
 *
 * Returns CML_OK; CML_EINVAL with err = "line L, column C (byte B): what"
 * (what names the member, e.g. "records[3].timing.median_ms: expected a
 * number or null"); CML_ENOMEM.
 * Writing r again with cml_report_json gives the same text as the input
 * when that text was written by cml_report_json.
 */
cml_status cml_results_from_json(const char *text, size_t len, cml_results *r, char *err,
                                 size_t errlen);

/* The same from a file; err starts with the path. CML_EIO when the file
 * cannot be read. "-" reads standard input. */
cml_status cml_results_read_file(const char *path, cml_results *r, char *err, size_t errlen);

#endif
