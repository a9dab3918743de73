/*
 * Every numeric field of real results files set to extreme values, one
 * field at a time and all of its occurrences at once, through the reader
 * and every reporter (table, JSON, CSV, HTML, and two runs compared), and
 * through the judging of `validate --from` (src/lab/validate.c).
 *
 * A results file is untrusted input: whatever number stands in it, `report`
 * gives a clear error or a correct report, never a crash. A chart's tick
 * step that overflowed to infinity once made a NaN tick count that wrote
 * past ticks[] (src/report/chart_range.c); the fuzzer did not find it
 * because its seeds held no extreme values. This test holds them all:
 * +-DBL_MAX, the smallest subnormal, 0, -1, the largest unsigned 64-bit
 * counter, and the texts the reader must refuse (NaN, 1e999).
 *
 * The files are given on the command line (tests/CMakeLists.txt passes the
 * fixtures and a committed suite's results). Each is reduced first to a few
 * records per experiment that together hold every numeric field the file
 * has (the reduction keeps the test fast under the sanitizers and changes
 * no field's kind); the test fails if any field of the file is left out.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/registry.h"
#include "lab/validate.h"
#include "report/chart_plan.h"
#include "report/compare.h"
#include "report/html.h"
#include "report/json_read.h"
#include "report/report.h"
#include "report_test_util.h"
#include "test_util.h"

/* A number in a JSON text: where it stands and its field's path with the
 * array indices left out ("records[].counters.global_ld.sectors"). */
typedef struct num_site {
    size_t offset, len;
    size_t id;   /* the path's index among the text's distinct paths */
    int first;   /* the path's first site in the text */
    char path[160];
} num_site;

typedef struct site_list {
    num_site *v;
    size_t n, cap;
} site_list;

static void sites_add(site_list *s, size_t offset, size_t len, const char *path)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) {
            perror("realloc");
            exit(2);
        }
    }
    num_site *e = &s->v[s->n++];
    e->offset = offset;
    e->len = len;
    snprintf(e->path, sizeof e->path, "%s", path);
}

static void collect(const cml_jval *v, const char *path, site_list *out)
{
    char sub[160];
    switch (v->type) {
    case CML_J_NUMBER: sites_add(out, v->offset, v->len, path); break;
    case CML_J_ARRAY:
        snprintf(sub, sizeof sub, "%s[]", path);
        for (size_t k = 0; k < v->count; k++)
            collect(&v->items[k], sub, out);
        break;
    case CML_J_OBJECT:
        for (size_t k = 0; k < v->count; k++) {
            snprintf(sub, sizeof sub, "%s.%s", path, v->members[k].key);
            collect(&v->members[k].value, sub, out);
        }
        break;
    default: break;
    }
}

/* A set of field paths (open addressing, FNV-1a): a suite's results hold
 * 300,000 numbers in a few hundred distinct paths. */
typedef struct path_set {
    const char **slot;
    size_t *id;
    size_t cap, n;
} path_set;

static size_t path_hash(const char *p)
{
    size_t h = 1469598103934665603u;
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    return h;
}

/* The path's id (its order of first use); `added` says whether it is new
 * (the set keeps a copy). */
static size_t path_intern(path_set *s, const char *path, int *added)
{
    if (2 * (s->n + 1) > s->cap) {
        path_set g = {calloc(s->cap ? 2 * s->cap : 1024, sizeof *g.slot),
                      calloc(s->cap ? 2 * s->cap : 1024, sizeof *g.id),
                      s->cap ? 2 * s->cap : 1024, 0};
        if (!g.slot || !g.id)
            exit(2);
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i]) {
                size_t h = path_hash(s->slot[i]) & (g.cap - 1);
                while (g.slot[h])
                    h = (h + 1) & (g.cap - 1);
                g.slot[h] = s->slot[i];
                g.id[h] = s->id[i];
            }
        g.n = s->n;
        free(s->slot);
        free(s->id);
        *s = g;
    }
    size_t h = path_hash(path) & (s->cap - 1);
    while (s->slot[h] && strcmp(s->slot[h], path) != 0)
        h = (h + 1) & (s->cap - 1);
    *added = !s->slot[h];
    if (*added) {
        if (!(s->slot[h] = strdup(path)))
            exit(2);
        s->id[h] = s->n++;
    }
    return s->id[h];
}

/* Whether the set holds `path`. */
static int path_find(const path_set *s, const char *path)
{
    if (!s->cap)
        return 0;
    size_t h = path_hash(path) & (s->cap - 1);
    while (s->slot[h] && strcmp(s->slot[h], path) != 0)
        h = (h + 1) & (s->cap - 1);
    return s->slot[h] != NULL;
}

static void path_set_free(path_set *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free((char *)s->slot[i]);
    free(s->slot);
    free(s->id);
}

static char *render(cml_report_fn fn, const cml_results *r, size_t *len)
{
    cml_status st;
    char *buf = render_to_memory(fn, r, len, &st);
    CHECK(st == CML_OK);
    return buf;
}

/* "nan" or "inf" as a word of its own ("-nan", "inf%", "=\"nan\""): a
 * reporter printed a non-finite number instead of saying it has none. */
static const char *non_finite_word(const char *text)
{
    static const char *const words[] = {"nan", "inf"};
    for (size_t w = 0; w < 2; w++)
        for (const char *p = text; (p = strstr(p, words[w])) != NULL; p++) {
            int before = p > text && isalpha((unsigned char)p[-1]);
            int after = isalpha((unsigned char)p[3]);
            if (!before && !after)
                return p;
        }
    return NULL;
}

static size_t count_non_finite(const char *text)
{
    size_t n = 0;
    for (const char *p = text; (p = non_finite_word(p)) != NULL; p += 3)
        n++;
    return n;
}

/* The words the unmutated document's own strings hold (a note quoting a
 * failed check, say) are the data's, not a reporter's: only more of them
 * than the base renders with is a fault. */
static void check_finite_output(const char *what, const char *text, size_t base_words,
                                const char *field, const char *value)
{
    size_t n = count_non_finite(text);
    CHECK(n <= base_words);
    if (n > base_words) {
        const char *bad = text;
        for (size_t k = 0; k <= base_words; k++)
            bad = non_finite_word(k ? bad + 3 : bad);
        fprintf(stderr, "  %s with %s = %s printed \"%.60s\"\n", what, field, value,
                bad - text > 40 ? bad - 40 : text);
    }
}

typedef struct tally {
    size_t read, refused;
} tally;

/* One mutated document through the reader and every reporter. */
/* The non-finite words of each output of the unmutated document: the four
 * reporters, then the comparison's four renderers. */
typedef struct base_words {
    size_t n[8];
} base_words;

static void try_document(const char *text, size_t len, const cml_results *base,
                         const char *field, const char *value, tally *t, base_words *bw,
                         int learn)
{
    cml_results r;
    char err[640] = "";
    cml_status st = cml_results_from_json(text, len, &r, err, sizeof err);
    if (st != CML_OK) {
        /* refused: one located line */
        CHECK(st == CML_EINVAL);
        CHECK(strncmp(err, "line ", 5) == 0 && strchr(err, '\n') == NULL);
        t->refused++;
        cml_results_free(&r);
        return;
    }
    t->read++;
    static const struct {
        const char *name;
        cml_report_fn fn;
    } reporters[] = {{"table", cml_report_table},
                     {"json", cml_report_json},
                     {"csv", cml_report_csv},
                     {"html", cml_report_html}};
    for (size_t k = 0; k < sizeof reporters / sizeof reporters[0]; k++) {
        size_t n = 0;
        char *out = render(reporters[k].fn, &r, &n);
        if (!out)
            continue;
        if (k == 1) {
            /* what cumemlab writes, it reads back */
            cml_results back;
            CHECK(cml_results_from_json(out, n, &back, err, sizeof err) == CML_OK);
            cml_results_free(&back);
        } else if (learn) {
            bw->n[k] = count_non_finite(out);
        } else {
            check_finite_output(reporters[k].name, out, bw->n[k], field, value);
        }
        free(out);
    }
    /* validate --from judges the same records: one verdict each, whatever
     * the numbers (src/lab/validate.c). */
    cml_verdicts v;
    cml_verdicts_init(&v);
    for (size_t i = 0; i < r.count; i++)
        CHECK(cml_validate_record(cml_experiment_find(r.items[i].experiment), &r, i, 0, r.count,
                                  &v) == CML_OK);
    CHECK(v.count == r.count);
    for (size_t i = 0; i < v.count; i++)
        CHECK(v.items[i].record == i && v.items[i].verdict <= CML_VERDICT_SKIPPED &&
              v.items[i].ncounters <= CML_RECORD_MAX_COUNTERS);
    cml_verdicts_free(&v);
    cml_comparison c;
    if (cml_compare_build(&c, base, "a.json", &r, "b.json") == CML_OK) {
        cml_status (*const cmp[])(FILE *, const void *) = {cml_compare_table, cml_compare_csv,
                                                          cml_compare_json, cml_compare_html};
        for (size_t k = 0; k < sizeof cmp / sizeof cmp[0]; k++) {
            char *buf = NULL;
            size_t n = 0;
            FILE *f = open_memstream(&buf, &n);
            if (!f)
                exit(2);
            CHECK(cmp[k](f, &c) == CML_OK);
            CHECK(fclose(f) == 0);
            if (learn)
                bw->n[4 + k] = count_non_finite(buf);
            else if (k != 2)
                check_finite_output("comparison", buf, bw->n[4 + k], field, value);
            free(buf);
        }
        cml_compare_free(&c);
    }
    cml_results_free(&r);
}

/* The records kept: for each experiment its first two, and any record
 * that holds a numeric field no kept record has. */
static void reduce(cml_results *r)
{
    char *text = render(cml_report_json, r, NULL);
    cml_jdoc *doc = NULL;
    char err[640];
    CHECK(cml_jdoc_parse(text, strlen(text), &doc, err, sizeof err) == CML_OK);
    const cml_jval *recs = doc ? cml_jobject_get(cml_jdoc_root(doc), "records") : NULL;
    CHECK(recs != NULL && recs->type == CML_J_ARRAY && recs->count == r->count);
    if (!recs || recs->count != r->count) {
        cml_jdoc_free(doc);
        free(text);
        return;
    }
    path_set seen = {0};
    size_t kept = 0;
    for (size_t i = 0; i < r->count; i++) {
        site_list mine = {0};
        collect(&recs->items[i], "records[]", &mine);
        size_t same_exp = 0;
        for (size_t j = 0; j < kept; j++)
            same_exp += strcmp(r->items[j].experiment, r->items[i].experiment) == 0;
        int keep = same_exp < 2;
        for (size_t k = 0; k < mine.n && !keep; k++)
            keep = path_find(&seen, mine.v[k].path) == 0;
        if (keep) {
            for (size_t k = 0; k < mine.n; k++) {
                int added;
                path_intern(&seen, mine.v[k].path, &added);
            }
            r->items[kept++] = r->items[i];
        }
        free(mine.v);
    }
    r->count = kept;
    path_set_free(&seen);
    cml_jdoc_free(doc);
    free(text);
}

/* The distinct field paths of a text's numbers, in order of first use;
 * each site's `id` is set to its path's index, `first` to whether it is
 * the path's first site. */
static size_t distinct_paths(site_list *s, const char ***out)
{
    const char **paths = calloc(s->n ? s->n : 1, sizeof *paths);
    path_set set = {0};
    for (size_t i = 0; i < s->n; i++) {
        int added;
        s->v[i].id = path_intern(&set, s->v[i].path, &added);
        s->v[i].first = added;
        if (added)
            paths[s->v[i].id] = s->v[i].path;
    }
    size_t n = set.n;
    path_set_free(&set);
    *out = paths;
    return n;
}

/* `text` with `value` at the sites whose path is picked (pick[id]): every
 * such site, or (all = 0) only each path's first. */
static char *mutate(const char *text, const site_list *s, const unsigned char *pick, int all,
                    const char *value, size_t *len)
{
    size_t tl = strlen(text), vl = strlen(value), cap = tl + 1;
    for (size_t i = 0; i < s->n; i++)
        cap += vl;
    char *out = malloc(cap);
    if (!out)
        exit(2);
    size_t o = 0, from = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!pick[s->v[i].id] || !(all || s->v[i].first))
            continue;
        memcpy(out + o, text + from, s->v[i].offset - from);
        o += s->v[i].offset - from;
        memcpy(out + o, value, vl);
        o += vl;
        from = s->v[i].offset + s->v[i].len;
    }
    memcpy(out + o, text + from, tl - from);
    o += tl - from;
    out[o] = '\0';
    *len = o;
    return out;
}

/* Fields mutated together in one rendered document: every GROUPS-th field,
 * so that the fields of one record (which stand next to each other) fall
 * into different documents and one does not hide another's path. */
#define GROUPS 8

static void test_file(const char *file)
{
    /* The first four also go into every occurrence of the fields at once
     * (a chart whose every point is extreme); the rest into the first only. */
    static const char *const values[] = {
        "1.7976931348623157e308", "-1.7976931348623157e308", "4.9406564584124654e-324",
        "0", "-1", "18446744073709551615", "-9223372036854775808", "NaN", "1e999"};
    cml_results full;
    char err[640];
    cml_status st = cml_results_read_file(file, &full, err, sizeof err);
    if (st != CML_OK)
        fprintf(stderr, "%s\n", err);
    CHECK(st == CML_OK);
    if (st != CML_OK)
        return;

    /* Every field of the whole file, to check the reduction kept them all. */
    char *full_text = render(cml_report_json, &full, NULL);
    cml_jdoc *doc = NULL;
    site_list all_sites = {0};
    CHECK(cml_jdoc_parse(full_text, strlen(full_text), &doc, err, sizeof err) == CML_OK);
    if (doc)
        collect(cml_jdoc_root(doc), "", &all_sites);
    cml_jdoc_free(doc);
    const char **all_paths;
    size_t nall = distinct_paths(&all_sites, &all_paths);

    reduce(&full);
    char *text = render(cml_report_json, &full, NULL);
    site_list sites = {0};
    doc = NULL;
    CHECK(cml_jdoc_parse(text, strlen(text), &doc, err, sizeof err) == CML_OK);
    if (doc)
        collect(cml_jdoc_root(doc), "", &sites);
    cml_jdoc_free(doc);
    const char **paths;
    size_t npaths = distinct_paths(&sites, &paths);
    CHECK_EQ_U64(npaths, nall); /* the reduction left no field out */

    tally t = {0, 0};
    base_words bw = {{0}};
    try_document(text, strlen(text), &full, "", "", &t, &bw, 1);
    t.read = 0;
    unsigned char *one = calloc(npaths + 1, 1), *pick = calloc(npaths + 1, 1);
    /* Accepted alone: [0] in its first occurrence, [1] in every one (a
     * value one record holds may be outside another's interval: model.
     * levels.lo and .hi). */
    unsigned char *accepted[2] = {calloc(npaths + 1, 1), calloc(npaths + 1, 1)};
    size_t rendered = 0, lost = 0;
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
        /* The reader alone, one field at a time: accepted or refused with
         * one located line. */
        for (int all = 0; all < 2 - (v >= 4); all++)
            for (size_t p = 0; p < npaths; p++) {
                size_t len;
                one[p] = 1;
                char *m = mutate(text, &sites, one, all, values[v], &len);
                one[p] = 0;
                cml_results r;
                st = cml_results_from_json(m, len, &r, err, sizeof err);
                accepted[all][p] = st == CML_OK;
                if (st != CML_OK) {
                    CHECK(st == CML_EINVAL);
                    CHECK(strncmp(err, "line ", 5) == 0 && strchr(err, '\n') == NULL);
                    t.refused++;
                }
                cml_results_free(&r);
                free(m);
            }
        /* Every reporter over the accepted fields, GROUPS documents. */
        for (int all = 0; all < 2 - (v >= 4); all++)
            for (size_t g = 0; g < GROUPS; g++) {
                char names[160] = "";
                for (size_t p = 0; p < npaths; p++) {
                    pick[p] = accepted[all][p] && p % GROUPS == g;
                    if (pick[p] && !names[0])
                        snprintf(names, sizeof names, "%s (and every %dth field after it)",
                                 paths[p], GROUPS);
                }
                if (!names[0])
                    continue;
                size_t len, refused = t.refused;
                char *m = mutate(text, &sites, pick, all, values[v], &len);
                try_document(m, len, &full, names, values[v], &t, &bw, 0);
                free(m);
                rendered++;
                lost += t.refused > refused;
            }
    }
    printf("%s: %zu records kept of the file's, %zu numeric fields, %zu field mutations "
           "refused by the reader, %zu documents rendered\n",
           file, full.count, npaths, t.refused, rendered);
    CHECK(lost == 0); /* fields each accepted alone are accepted together */
    CHECK(npaths > 20 && t.read == rendered && t.refused > 0);
    free(one);
    free(accepted[0]);
    free(accepted[1]);
    free(pick);
    free(paths);
    free(all_paths);
    free(sites.v);
    free(all_sites.v);
    free(text);
    free(full_text);
    cml_results_free(&full);
}

int main(int argc, char **argv)
{
    /* The report draws each experiment by its registry row. */
    cml_chart_plan_use_rows(cml_registry_rows(), cml_experiment_count());
    CHECK(argc > 1); /* the files to mutate come from tests/CMakeLists.txt */
    for (int i = 1; i < argc; i++)
        test_file(argv[i]);
    return cml_test_summary("test_report_mutations");
}
