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
 *
 * The text need not be in memory: the parser reads it in pieces through a
 * cml_jinput (a file, or gzip through zlib: results_file.c) and never looks
 * behind its position, and the results reader hands each record to the
 * schema as soon as it is parsed, then frees its tree. Reading a results
 * file holds the records it made and a window of 64 KiB, never the text or
 * the tree of the whole file.
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
 * double. `offset` is the byte offset of the value's first character, and
 * `line`, `col` its line and column (from 1; the column in bytes), kept so
 * that a message can name them once the text has been read past. A
 * streamed array (cml_jstream) keeps its count, but not its items: they
 * went to the callback (items is NULL). */
typedef struct cml_jval {
    cml_jtype type;
    size_t offset, line, col;
    const char *text;          /* string contents, or the number's text */
    size_t len;                /* bytes of text */
    size_t count;              /* array elements or object members */
    struct cml_jval *items;    /* array elements */
    cml_jmember *members;      /* object members, in document order */
} cml_jval;

struct cml_jmember {
    const char *key;
    size_t key_offset;         /* byte offset of the member name's opening quote */
    size_t key_line, key_col;  /* and its line and column */
    cml_jval value;
};

typedef struct cml_jdoc cml_jdoc;

/*
 * Where the text comes from: all of it in memory (`text`, `len`; `read`
 * NULL), or pulled in pieces: read(ctx, buf, cap, &got, err, errlen) puts
 * up to cap bytes into buf and returns CML_OK with got = 0 at the end of
 * the text; any other status stops the parse with err set (one line) by
 * read, e.g. a file that cannot be read or a corrupt gzip stream.
 */
typedef struct cml_jinput {
    const char *text;
    size_t len;
    cml_status (*read)(void *ctx, char *buf, size_t cap, size_t *got, char *err, size_t errlen);
    void *ctx;
} cml_jinput;

/*
 * An array streamed instead of kept: when the root is an object, the value
 * of its member `key`, if an array, has each element parsed into a scratch
 * tree, passed to item(ctx, element, index) and freed. item returns CML_OK
 * to go on; any other status stops the parse with that status (item sets
 * err). Elements reach item only once they are whole and well-formed; an
 * error later in the text still fails the parse. `next` (or NULL) chains
 * another root member streamed to a callback of its own: a file that may
 * be results ("records") or a fleet ("ranks") is read in one pass with
 * both streamed (fleet_read.c).
 */
typedef struct cml_jstream {
    const char *key;
    cml_status (*item)(void *ctx, const cml_jval *element, size_t index);
    void *ctx;
    const struct cml_jstream *next;
} cml_jstream;

/*
 * Parse `len` bytes of JSON text (not necessarily NUL-terminated). On
 * CML_OK *doc holds the tree (free it with cml_jdoc_free). On a syntax error
 * returns CML_EINVAL, *doc is NULL and err holds the one-line message; on
 * out of memory CML_ENOMEM.
 */
cml_status cml_jdoc_parse(const char *text, size_t len, cml_jdoc **doc, char *err, size_t errlen);

/* The same from `in`, with `stream` (or NULL) naming an array to stream;
 * a status of in->read other than CML_OK is returned as it is. */
cml_status cml_jdoc_parse_input(const cml_jinput *in, const cml_jstream *stream, cml_jdoc **doc,
                                char *err, size_t errlen);
const cml_jval *cml_jdoc_root(const cml_jdoc *doc);
void cml_jdoc_free(cml_jdoc *doc);

/* The member `key` of an object, or NULL (also when v is not an object). */
const cml_jval *cml_jobject_get(const cml_jval *v, const char *key);

/* "null", "a boolean", "a number", "a string", "an array", "an object":
 * for the messages of the schema readers. */
const char *cml_jtype_name(cml_jtype t);

/* Exact conversions of a number value: 1 on success; 0 when v is not a
 * number, not an integer in that form (no fraction, no exponent), or out of
 * range. cml_jval_double: 0 when not a number or beyond the double range. */
int cml_jval_u64(const cml_jval *v, uint64_t *out);
int cml_jval_i64(const cml_jval *v, int64_t *out);
int cml_jval_double(const cml_jval *v, double *out);

/* "line L, column C (byte B): " and the message, into err: one line of
 * text (control bytes quoted from the input are shown as '?'). Shared by
 * the parser and the schema reader. */
void cml_jtext_vlocate(size_t line, size_t col, size_t offset, char *err, size_t errlen,
                       const char *fmt, va_list ap);

/* Line and column (both from 1) of byte `offset` in text (for a text in
 * memory; the parser counts them as it reads). */
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

/* The same from any input (a file read in pieces, gzip: results_file.c),
 * the records converted one by one as they are parsed. */
cml_status cml_results_from_input(const cml_jinput *in, cml_results *r, char *err,
                                  size_t errlen);

/*
 * The same from a file; err starts with the path. "-" reads standard input.
 * A file that starts with gzip's magic bytes (1f 8b) is decompressed as it
 * is read, whatever its name; a cumemlab built without zlib says so and
 * reads nothing (cml_results_gzip_supported). CML_EIO when the file cannot
 * be read; CML_EINVAL for a file over 1 GiB (of JSON text, decompressed),
 * corrupt or cut-short gzip data, or JSON that is not results.
 */
cml_status cml_results_read_file(const char *path, cml_results *r, char *err, size_t errlen);

/* Part of the results reader (json_read_experiments.c): the top-level
 * "experiments" array v read into r's descriptions (core/exp_desc.h). 1
 * read; 0 malformed, with err = "line L, column C (byte B): what" naming
 * the member ("experiments[2].charts[0].xscale: unknown value ..."); -1 out
 * of memory. */
int cml_jread_experiments(const cml_jval *v, cml_results *r, char *err, size_t errlen);

/* Part of the results reader (json_read_background.c): the top-level
 * "dram_background" v (an object or null) read into r->background. 1 read;
 * 0 malformed, with err = "line L, column C (byte B): what" naming the
 * member ("dram_background.controls[1].ms: out of range ..."). */
int cml_jread_background(const cml_jval *v, cml_results *r, char *err, size_t errlen);

/*
 * A results object embedded in another document (a fleet file's
 * ranks[i].results: fleet.h), read from its parsed tree by the same schema
 * reader. On error, err = "line L, column C (byte B): WHERE: what" (where:
 * e.g. "ranks[2].results"), r empty.
 */
cml_status cml_results_from_tree(const cml_jval *root, const char *where, cml_results *r,
                                 char *err, size_t errlen);

/*
 * The pieces of the entry points (results_read.c), for a reader that
 * streams a results document's records beside something else (fleet_read.c
 * reads a file that may be results or a fleet in one pass):
 * cml_jread_on_record is the cml_jstream callback of "records" (ctx: a
 * cml_jread_records set up by cml_jread_records_init); once the parse is
 * done, cml_jread_records_finish reads the top level and returns the first
 * error (the top level's, then the first record's).
 */
typedef struct cml_jread_records {
    cml_results *r;
    cml_status st;             /* CML_EINVAL after the first record in error */
    char msg[1024];            /* its message */
    char *err;                 /* the caller's, for out of memory */
    size_t errlen;
} cml_jread_records;
void cml_jread_records_init(cml_jread_records *rr, cml_results *r, char *err, size_t errlen);
cml_status cml_jread_on_record(void *ctx, const cml_jval *element, size_t index);
cml_status cml_jread_records_finish(cml_jread_records *rr, const cml_jval *root, char *err,
                                    size_t errlen);

/* The schema reader's two halves (json_read.c): the top level of a results
 * object (every member but the records, which it only checks to be an
 * array), and one record appended to r (1 read; 0 malformed, err set; -1
 * out of memory). */
cml_status cml_jread_results_top(const cml_jval *root, cml_results *r, char *err, size_t errlen);
int cml_jread_record(const cml_jval *o, size_t index, cml_results *r, char *err, size_t errlen);

/* The file reader of cml_results_read_file, for any document: the file (or
 * "-") opened, decompressed when it is gzip, capped at 1 GiB of JSON, and
 * handed to parse(in, ctx, msg, msglen) as a cml_jinput. err = "PATH: what"
 * on failure; parse's status, or CML_EIO when the file cannot be read. */
typedef cml_status (*cml_jfile_parse_fn)(const cml_jinput *in, void *ctx, char *err,
                                         size_t errlen);
cml_status cml_json_read_file(const char *path, cml_jfile_parse_fn parse, void *ctx, char *err,
                              size_t errlen);

/* 1 when this cumemlab reads gzip-compressed results (built with zlib). */
int cml_results_gzip_supported(void);

#endif
