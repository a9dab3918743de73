/*
 * The source lines of a trace's functions (trace_sources.h): one line
 * table per saved cubin, read once however many functions it holds.
 */
#include "trace/trace_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read the cubin `named` in the trace: where it says, else
 * TRACE.cubins/BASENAME (the path read in `used`). 0, or -1 with the first
 * error kept in s. */
static int read_cubin(const char *named, const char *trace_path, cml_tf_lines *out,
                      cml_tf_sources *s, char *used, size_t len)
{
    char err[300];
    snprintf(used, len, "%s", named);
    if (cml_tf_lines_read(named, out, err, sizeof err) == 0)
        return 0;
    if (trace_path) {
        const char *base = strrchr(named, '/');
        char moved[1200];
        snprintf(moved, sizeof moved, "%s.cubins/%s", trace_path, base ? base + 1 : named);
        char err2[300];
        if (strcmp(moved, named) != 0 && cml_tf_lines_read(moved, out, err2, sizeof err2) == 0) {
            snprintf(used, len, "%s", moved);
            return 0;
        }
    }
    if (!s->unreadable++)
        snprintf(s->first_error, sizeof s->first_error, "%s", err);
    return -1;
}

cml_status cml_tf_sources_load(const cml_trace *t, const char *trace_path, cml_tf_sources *s)
{
    memset(s, 0, sizeof *s);
    s->nfuncs = t->nfuncs;
    s->of_func = malloc((t->nfuncs ? t->nfuncs : 1u) * sizeof *s->of_func);
    s->tables = calloc(t->nfuncs ? t->nfuncs : 1u, sizeof *s->tables);
    s->sass = calloc(t->nfuncs ? t->nfuncs : 1u, sizeof *s->sass);
    const char **paths = calloc(t->nfuncs ? t->nfuncs : 1u, sizeof *paths);
    if (!s->of_func || !s->tables || !s->sass || !paths) {
        free(paths);
        cml_tf_sources_free(s);
        return CML_ENOMEM;
    }
    char nvdisasm[1200];
    const int have_nvdisasm = cml_tf_nvdisasm(nvdisasm, sizeof nvdisasm) == 0;
    for (size_t f = 0; f < t->nfuncs; f++) {
        const char *cubin = t->funcs[f].cubin;
        s->of_func[f] = -1;
        if (!cubin[0])
            continue;
        size_t k = 0;
        while (k < s->ntables && strcmp(paths[k], cubin))
            k++;
        if (k == s->ntables) {
            char used[1200], err[400];
            if (read_cubin(cubin, trace_path, &s->tables[k], s, used, sizeof used) != 0) {
                /* remembered as unreadable: an empty table */
                memset(&s->tables[k], 0, sizeof s->tables[k]);
            } else if (have_nvdisasm &&
                       cml_tf_sass_read(nvdisasm, used, &s->sass[k], err, sizeof err) == 0) {
                s->disassembled = 1;
            }
            paths[k] = cubin;
            s->ntables++;
        }
        s->of_func[f] = (long)k;
    }
    free(paths);
    return CML_OK;
}

void cml_tf_sources_free(cml_tf_sources *s)
{
    for (size_t k = 0; s->tables && k < s->ntables; k++)
        cml_tf_lines_free(&s->tables[k]);
    for (size_t k = 0; s->sass && k < s->ntables; k++)
        cml_tf_sass_free(&s->sass[k]);
    free(s->tables);
    free(s->sass);
    free(s->of_func);
    memset(s, 0, sizeof *s);
}

const cml_tf_line *cml_tf_sources_find(const cml_tf_sources *s, const cml_trace *t,
                                       uint32_t func, uint32_t pc, const char **file)
{
    if (!s || func >= s->nfuncs || func >= t->nfuncs || s->of_func[func] < 0)
        return NULL;
    const cml_tf_lines *l = &s->tables[s->of_func[func]];
    const cml_tf_line *r = cml_tf_lines_find(l, t->funcs[func].name, pc);
    if (r && file)
        *file = l->files[r->file];
    return r;
}

const char *cml_tf_sources_sass(const cml_tf_sources *s, const cml_trace *t, uint32_t func,
                                uint32_t pc)
{
    if (!s || func >= s->nfuncs || func >= t->nfuncs || s->of_func[func] < 0)
        return NULL;
    return cml_tf_sass_find(&s->sass[s->of_func[func]], t->funcs[func].name, pc);
}
