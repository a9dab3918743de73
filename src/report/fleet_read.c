/*
 * The runs of `report`'s inputs (fleet.h): a "cumemlab-fleet" file (its
 * format: docs/json-schema.md) or a "cumemlab-results" file, told apart by
 * their "schema" member wherever it stands. Both kinds are read in one pass
 * of the streaming parser, the root's "ranks" and "records" streamed (so a
 * file of either kind never has its whole tree held): each rank is
 * converted as soon as it is parsed, its embedded results by the results
 * reader itself (cml_results_from_tree), then its tree is freed; a results
 * file's records go to the results reader's own callback. What the schema
 * turns out not to need is dropped.
 *
 * The file is untrusted: every member is checked for its type and range,
 * and an error is one line naming line, column and member. As in the
 * results reader, a syntax error anywhere wins, then the top level's first
 * error, then the first rank's.
 */
#include "report/fleet.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_read.h"

void cml_fleet_runs_init(cml_fleet_runs *f) { memset(f, 0, sizeof *f); }

void cml_fleet_runs_free(cml_fleet_runs *f)
{
    for (size_t i = 0; i < f->count; i++)
        cml_results_free(&f->items[i].results);
    free(f->items);
    cml_fleet_runs_init(f);
}

static cml_fleet_run *add_run(cml_fleet_runs *f, const char *file)
{
    if (f->count == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        cml_fleet_run *v = realloc(f->items, cap * sizeof *v);
        if (!v)
            return NULL;
        f->items = v;
        f->cap = cap;
    }
    cml_fleet_run *r = &f->items[f->count++];
    memset(r, 0, sizeof *r);
    snprintf(r->file, sizeof r->file, "%s", file ? file : "");
    r->rank = r->local_rank = -1;
    r->exit_status = -1;
    cml_results_init(&r->results);
    return r;
}

/* ------------------------------------------------------------------ */
/* Checked members                                                    */
/* ------------------------------------------------------------------ */

static int fail(char *err, size_t errlen, const cml_jval *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(char *err, size_t errlen, const cml_jval *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_jtext_vlocate(v->line, v->col, v->offset, err, errlen, fmt, ap);
    va_end(ap);
    return 0;
}

typedef struct ck {
    char *err;
    size_t errlen;
    const char *where;         /* "ranks[2]", "ranks[2].gpu.start" */
} ck;

/* The member `key` of o: 1 with *v set (NULL when absent and optional), 0
 * with the error when required and absent. */
static int member(ck *c, const cml_jval *o, const char *key, int required, const cml_jval **v)
{
    *v = cml_jobject_get(o, key);
    if (!*v && required)
        return fail(c->err, c->errlen, o, "%s: missing member \"%s\"", c->where, key);
    return 1;
}

/* An integer in [lo, hi], or null (or absent, when not required) read as
 * `unknown`. */
static int int_member(ck *c, const cml_jval *o, const char *key, int required, int nullable,
                      long long lo, long long hi, int unknown, int *out)
{
    const cml_jval *v;
    int64_t x;
    *out = unknown;
    if (!member(c, o, key, required, &v))
        return 0;
    if (!v || (nullable && v->type == CML_J_NULL))
        return 1;
    if (v->type != CML_J_NUMBER || !cml_jval_i64(v, &x) || x < lo || x > hi)
        return fail(c->err, c->errlen, v, "%s.%s: expected an integer in %lld..%lld%s, found %.40s",
                    c->where, key, lo, hi, nullable ? " or null" : "",
                    v->type == CML_J_NUMBER ? v->text : cml_jtype_name(v->type));
    *out = (int)x;
    return 1;
}

/* A string (one line, at most cap - 1 bytes), or null/absent read as "". */
static int str_member(ck *c, const cml_jval *o, const char *key, int required, char *dst,
                      size_t cap)
{
    const cml_jval *v;
    dst[0] = '\0';
    if (!member(c, o, key, required, &v))
        return 0;
    if (!v || v->type == CML_J_NULL)
        return 1;
    if (v->type != CML_J_STRING)
        return fail(c->err, c->errlen, v, "%s.%s: expected a string or null", c->where, key);
    if (v->len >= cap)
        return fail(c->err, c->errlen, v, "%s.%s: string of %zu bytes is too long (at most %zu)",
                    c->where, key, v->len, cap - 1);
    memcpy(dst, v->text, v->len + 1);
    /* shown on the terminal: one line of text, no control sequences */
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return 1;
}

/* A GPU state: {"sm_clock_mhz", "mem_clock_mhz", "temperature_c",
 * "power_w", "clock_event_reasons"}, each may be null. */
static int read_state(ck *c, const cml_jval *o, cml_fleet_gpu_state *s)
{
    const cml_jval *v;
    s->power_w = NAN;
    if (o->type != CML_J_OBJECT)
        return fail(c->err, c->errlen, o, "%s: expected an object or null", c->where);
    s->known = 1;
    if (!int_member(c, o, "sm_clock_mhz", 0, 1, 0, 100000, -1, &s->sm_clock_mhz) ||
        !int_member(c, o, "mem_clock_mhz", 0, 1, 0, 100000, -1, &s->mem_clock_mhz) ||
        !int_member(c, o, "temperature_c", 0, 1, -273, 1000, -1000, &s->temperature_c) ||
        !member(c, o, "power_w", 0, &v))
        return 0;
    if (v && v->type != CML_J_NULL &&
        (v->type != CML_J_NUMBER || !cml_jval_double(v, &s->power_w) || s->power_w < 0 ||
         s->power_w > 100000))
        return fail(c->err, c->errlen, v, "%s.power_w: expected a number in 0..100000 or null",
                    c->where);
    if (!member(c, o, "clock_event_reasons", 0, &v))
        return 0;
    if (!v || v->type == CML_J_NULL)
        return 1;
    if (v->type != CML_J_ARRAY)
        return fail(c->err, c->errlen, v, "%s.clock_event_reasons: expected an array of strings",
                    c->where);
    size_t used = 0;
    for (size_t i = 0; i < v->count; i++) {
        const cml_jval *e = &v->items[i];
        if (e->type != CML_J_STRING)
            return fail(c->err, c->errlen, e, "%s.clock_event_reasons[%zu]: expected a string",
                        c->where, i);
        int w = snprintf(s->reasons + used, sizeof s->reasons - used, "%s%.40s",
                         i ? ", " : "", e->text);
        if (w > 0 && (size_t)w < sizeof s->reasons - used)
            used += (size_t)w;
    }
    for (char *p = s->reasons; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return 1;
}

static int read_gpu(ck *c, const cml_jval *o, cml_fleet_gpu_info *g)
{
    if (o->type != CML_J_OBJECT)
        return fail(c->err, c->errlen, o, "%s: expected an object or null", c->where);
    if (!int_member(c, o, "index", 0, 1, 0, 1023, -1, &g->index) ||
        !str_member(c, o, "name", 0, g->name, sizeof g->name) ||
        !str_member(c, o, "uuid", 0, g->uuid, sizeof g->uuid) ||
        !str_member(c, o, "serial", 0, g->serial, sizeof g->serial) ||
        !str_member(c, o, "pci_bus_id", 0, g->pci_bus_id, sizeof g->pci_bus_id) ||
        !str_member(c, o, "driver", 0, g->driver, sizeof g->driver) ||
        !int_member(c, o, "cuda_driver_version", 0, 1, 0, INT_MAX, -1,
                    &g->cuda_driver_version))
        return 0;
    const char *names[2] = {"start", "end"};
    cml_fleet_gpu_state *states[2] = {&g->start, &g->end};
    for (int k = 0; k < 2; k++) {
        const cml_jval *v = cml_jobject_get(o, names[k]);
        states[k]->power_w = NAN;
        if (!v || v->type == CML_J_NULL)
            continue;
        char where[80];
        snprintf(where, sizeof where, "%.60s.%s", c->where, names[k]);
        ck sub = {c->err, c->errlen, where};
        if (!read_state(&sub, v, states[k]))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Ranks, streamed                                                    */
/* ------------------------------------------------------------------ */

typedef struct rank_reader {
    cml_fleet_runs ranks;      /* converted so far */
    const char *file;
    cml_status st;             /* CML_EINVAL after the first rank in error */
    char msg[1024];
    char *err;                 /* the caller's, for out of memory */
    size_t errlen;
} rank_reader;

/* 1 read; 0 malformed (msg set); -1 out of memory. */
static int read_rank(rank_reader *rr, const cml_jval *o, size_t index)
{
    char where[48];
    snprintf(where, sizeof where, "ranks[%zu]", index);
    ck c = {rr->msg, sizeof rr->msg, where};
    if (o->type != CML_J_OBJECT)
        return fail(c.err, c.errlen, o, "%s: expected an object", where);
    cml_fleet_run *run = add_run(&rr->ranks, rr->file);
    if (!run)
        return -1;
    run->from_fleet = 1;
    const cml_jval *v;
    if (!int_member(&c, o, "rank", 1, 0, 0, INT_MAX, -1, &run->rank))
        return 0;
    if ((size_t)run->rank != index)
        return fail(c.err, c.errlen, cml_jobject_get(o, "rank"),
                    "%s.rank: %d, but the ranks come in rank order (expected %zu)", where,
                    run->rank, index);
    if (!int_member(&c, o, "local_rank", 0, 1, 0, INT_MAX, -1, &run->local_rank) ||
        !str_member(&c, o, "host", 1, run->host, sizeof run->host) ||
        !int_member(&c, o, "exit_status", 1, 0, 0, 255, -1, &run->exit_status) ||
        !str_member(&c, o, "diagnostic", 0, run->diagnostic, sizeof run->diagnostic) ||
        !member(&c, o, "results", 1, &v))
        return 0;
    if (!cml_jobject_get(o, "host") || cml_jobject_get(o, "host")->type != CML_J_STRING)
        return fail(c.err, c.errlen, cml_jobject_get(o, "host"), "%s.host: expected a string",
                    where);
    if (v->type != CML_J_NULL) {
        if (v->type != CML_J_OBJECT)
            return fail(c.err, c.errlen, v, "%s.results: expected an object or null", where);
        char rwhere[64];
        snprintf(rwhere, sizeof rwhere, "%s.results", where);
        cml_status st = cml_results_from_tree(v, rwhere, &run->results, rr->msg, sizeof rr->msg);
        if (st == CML_ENOMEM)
            return -1;
        if (st != CML_OK)
            return 0;
        run->has_results = 1;
    }
    const cml_jval *g = cml_jobject_get(o, "gpu");
    if (g && g->type != CML_J_NULL) {
        char gwhere[64];
        snprintf(gwhere, sizeof gwhere, "%s.gpu", where);
        ck gc = {rr->msg, sizeof rr->msg, gwhere};
        if (!read_gpu(&gc, g, &run->gpu))
            return 0;
        run->has_gpu = 1;
    }
    return 1;
}

static cml_status on_rank(void *ctx, const cml_jval *element, size_t index)
{
    rank_reader *rr = ctx;
    if (rr->st != CML_OK)
        return CML_OK;
    int ok = read_rank(rr, element, index);
    if (ok < 0) {
        if (rr->err && rr->errlen)
            snprintf(rr->err, rr->errlen, "out of memory reading ranks[%zu]", index);
        return CML_ENOMEM;
    }
    if (!ok)
        rr->st = CML_EINVAL;
    return CML_OK;
}

/* ------------------------------------------------------------------ */
/* The document                                                       */
/* ------------------------------------------------------------------ */

typedef struct doc_reader {
    cml_fleet_runs *out;
    const char *name;
    rank_reader ranks;
    cml_results records;
    cml_jread_records rec;
} doc_reader;

/* A fleet's top level; then its ranks move to the output. */
static cml_status fleet_top(doc_reader *d, const cml_jval *root, char *err, size_t errlen)
{
    ck c = {err, errlen, "top level"};
    const cml_jval *v;
    int version, total;
    if (!int_member(&c, root, "schema_version", 1, 0, 1, INT_MAX, 0, &version))
        return CML_EINVAL;
    if (version != 1)
        return fail(err, errlen, cml_jobject_get(root, "schema_version"),
                    "schema_version %d is newer than this cumemlab reads (version 1)", version),
               CML_EINVAL;
    if (!member(&c, root, "ranks", 1, &v))
        return CML_EINVAL;
    if (v->type != CML_J_ARRAY)
        return fail(err, errlen, v, "ranks: expected an array"), CML_EINVAL;
    char launcher[sizeof d->out->launcher], line[sizeof d->out->command_line], tool[32];
    if (!int_member(&c, root, "ranks_total", 0, 0, 0, INT_MAX, -1, &total) ||
        !str_member(&c, root, "launcher", 0, launcher, sizeof launcher) ||
        !str_member(&c, root, "command_line", 0, line, sizeof line) ||
        !str_member(&c, root, "tool_version", 0, tool, sizeof tool))
        return CML_EINVAL;
    if (total >= 0 && (size_t)total != v->count)
        return fail(err, errlen, cml_jobject_get(root, "ranks_total"),
                    "ranks_total: %d, but \"ranks\" has %zu item%s (one per rank)", total,
                    v->count, v->count == 1 ? "" : "s"),
               CML_EINVAL;
    if (d->ranks.st != CML_OK) {
        snprintf(err, errlen, "%s", d->ranks.msg);
        return d->ranks.st;
    }
    cml_fleet_runs *f = d->out;
    for (size_t i = 0; i < d->ranks.ranks.count; i++) {
        cml_fleet_run *r = add_run(f, d->name);
        if (!r)
            return CML_ENOMEM;
        *r = d->ranks.ranks.items[i];
        cml_results_init(&d->ranks.ranks.items[i].results); /* moved */
    }
    snprintf(f->launcher, sizeof f->launcher, "%s", launcher);
    snprintf(f->command_line, sizeof f->command_line, "%s", line);
    f->fleet_files++;
    return CML_OK;
}

static cml_status parse_doc(const cml_jinput *in, void *ctx, char *err, size_t errlen)
{
    doc_reader *d = ctx;
    cml_jstream records = {"records", cml_jread_on_record, &d->rec, NULL};
    cml_jstream ranks = {"ranks", on_rank, &d->ranks, &records};
    cml_jdoc *doc;
    cml_status st = cml_jdoc_parse_input(in, &ranks, &doc, err, errlen);
    if (st != CML_OK)
        return st;
    const cml_jval *root = cml_jdoc_root(doc);
    const cml_jval *schema = cml_jobject_get(root, "schema");
    if (schema && schema->type == CML_J_STRING && !strcmp(schema->text, "cumemlab-fleet")) {
        st = fleet_top(d, root, err, errlen);
    } else {
        /* anything else is results, or not: the results reader says which,
         * with its own messages */
        st = cml_jread_records_finish(&d->rec, root, err, errlen);
        cml_fleet_run *r = st == CML_OK ? add_run(d->out, d->name) : NULL;
        if (st == CML_OK && !r)
            st = CML_ENOMEM;
        if (r) {
            r->results = d->records;
            r->has_results = 1;
            cml_results_init(&d->records); /* moved */
        }
    }
    cml_jdoc_free(doc);
    return st;
}

static cml_status read_doc(const char *path, const char *text, size_t len, cml_fleet_runs *f,
                           char *err, size_t errlen)
{
    doc_reader d;
    memset(&d, 0, sizeof d);
    d.out = f;
    d.name = path;
    d.ranks.file = path;
    d.ranks.st = CML_OK;
    d.ranks.err = err;
    d.ranks.errlen = errlen;
    cml_results_init(&d.records);
    cml_jread_records_init(&d.rec, &d.records, err, errlen);
    size_t before = f->count;
    cml_status st;
    if (text) {
        cml_jinput in = {text, len, NULL, NULL};
        char msg[1024];
        st = parse_doc(&in, &d, msg, sizeof msg);
        if (st != CML_OK)
            snprintf(err, errlen, "%s: %s", path, msg);
    } else {
        st = cml_json_read_file(path, parse_doc, &d, err, errlen);
    }
    cml_fleet_runs_free(&d.ranks.ranks);
    cml_results_free(&d.records);
    if (st != CML_OK) { /* the runs of this file, if any came in, go again */
        while (f->count > before)
            cml_results_free(&f->items[--f->count].results);
    }
    return st;
}

cml_status cml_fleet_read_file(const char *path, cml_fleet_runs *f, char *err, size_t errlen)
{
    return read_doc(path, NULL, 0, f, err, errlen);
}

cml_status cml_fleet_read_text(const char *text, size_t len, const char *name, cml_fleet_runs *f,
                               char *err, size_t errlen)
{
    return read_doc(name, text ? text : "", len, f, err, errlen);
}
