/*
 * What the trace's reports share (trace_report_util.h): the ranking over
 * every launch, the names and lines of an instruction, its figures as the
 * tables show them, the lab's sentence about it and the what-if
 * transforms of the detailed ones.
 */
#include "trace/trace_report_util.h"

#include <stdlib.h>
#include <string.h>

#include "lab/common.h"

static int by_waste(const void *pa, const void *pb)
{
    const cml_tfr_ranked *a = pa, *b = pb;
    if (a->site->waste != b->site->waste)
        return a->site->waste > b->site->waste ? -1 : 1;
    if (a->kernel != b->kernel)
        return a->kernel < b->kernel ? -1 : 1;
    return a->site->pc < b->site->pc ? -1 : a->site->pc > b->site->pc;
}

/* Every instruction of every launch, most waste first (NULL: none or no
 * memory; *n says which). */
cml_tfr_ranked *cml_tfr_rank(const cml_tf_report *r, size_t *n)
{
    size_t total = 0;
    for (size_t k = 0; k < r->t->nkernels; k++)
        total += r->models[k].nsites;
    *n = total;
    cml_tfr_ranked *all = malloc((total ? total : 1u) * sizeof *all);
    if (!all)
        return NULL;
    size_t i = 0;
    for (size_t k = 0; k < r->t->nkernels; k++)
        for (size_t s = 0; s < r->models[k].nsites; s++) {
            all[i].kernel = k;
            all[i++].site = &r->models[k].sites[s];
        }
    qsort(all, total, sizeof *all, by_waste);
    return all;
}

/* The name a person reads: demangled when known. */
const char *cml_tfr_func_name(const cml_trace *t, uint32_t id)
{
    const cml_tf_func *f = cml_tf_func_by_id(t, id);
    if (!f)
        return "?";
    return f->demangled[0] ? f->demangled : f->name;
}

/* The site's source line: buf = "FILE:LINE" (the file's last component),
 * "" when the trace has no line for it; *full the whole file name. */
uint32_t cml_tfr_source(const cml_tf_report *r, const cml_tf_site *s, char *buf, size_t len,
                          const char **full)
{
    const char *file = NULL;
    const cml_tf_line *l = cml_tf_sources_find(r->src, r->t, s->func, s->pc, &file);
    buf[0] = '\0';
    if (full)
        *full = l ? file : NULL;
    if (!l)
        return 0;
    const char *base = strrchr(file, '/');
    snprintf(buf, len, "%s:%u", base ? base + 1 : file, l->line);
    return l->line;
}

static cml_class site_class(const cml_tf_site *s)
{
    static const cml_space space[CML_TF_SPACES] = {CML_SPACE_GLOBAL, CML_SPACE_SHARED,
                                                   CML_SPACE_LOCAL};
    return cml_class_of(space[s->space % CML_TF_SPACES],
                        s->op == CML_TF_STORE ? CML_OP_STORE : CML_OP_LOAD);
}

/* The lab's sentence about one instruction (its figures as a record's). */
void cml_tfr_explain(const cml_tf_site *s, char *buf, size_t len)
{
    if (s->op == CML_TF_ATOMIC) {
        snprintf(buf, len, "An atomic: recorded, but the model has no rules for atomics, so "
                           "it has no figures.");
        return;
    }
    if (s->traffic.instructions == 0) {
        snprintf(buf, len, "The model refused every warp of it (%llu): a misaligned address "
                           "or a local offset beyond 4 GiB, which the hardware would fault on.",
                 (unsigned long long)s->refused);
        return;
    }
    cml_record *rec = calloc(1, sizeof *rec);
    if (!rec) {
        snprintf(buf, len, "(out of memory)");
        return;
    }
    const cml_class c = site_class(s);
    rec->model[CML_RULES_MODERN].cls[c] = s->traffic;
    rec->model[CML_RULES_FERMI].cls[c] = s->fermi;
    cml_exp_explain(rec, c, buf, len);
    free(rec);
}

/* One instruction's main figures, as the table shows them: per request,
 * sectors (shared: wavefronts) and the efficiency; "-" without a request
 * (an atomic, or every warp refused). */
void cml_tfr_site_figures(const cml_tf_site *s, char *spr, char *eff, size_t len)
{
    const cml_traffic *x = &s->traffic;
    snprintf(spr, len, "-");
    snprintf(eff, len, "-");
    if (!x->requests)
        return;
    if (s->space == CML_TF_SHARED) {
        snprintf(spr, len, "%.2f wf", (double)x->wavefronts / (double)x->requests);
        return;
    }
    snprintf(spr, len, "%.2f", cml_traffic_sectors_per_request(x));
    snprintf(eff, len, "%.1f", 100.0 * cml_traffic_efficiency(x));
}


cml_status cml_tfr_whatif(cml_tf_report *r)
{
    const cml_trace *t = r->t;
    const size_t nk = t->nkernels ? t->nkernels : 1u;
    cml_tfr_whatifs *w = calloc(1, sizeof *w);
    r->whatif = w;
    if (!w)
        return CML_ENOMEM;
    w->site = calloc(nk, sizeof *w->site);
    w->shape = calloc(nk, sizeof *w->shape);
    cml_status rc = w->site && w->shape ? CML_OK : CML_ENOMEM;
    for (size_t k = 0; k < t->nkernels && rc == CML_OK; k++) {
        w->site[k] = calloc(r->models[k].nsites ? r->models[k].nsites : 1u, sizeof *w->site[k]);
        if (!w->site[k])
            rc = CML_ENOMEM;
    }
    size_t n = 0;
    cml_tfr_ranked *all = rc == CML_OK ? cml_tfr_rank(r, &n) : NULL;
    if (!all)
        rc = CML_ENOMEM;
    for (size_t i = 0; rc == CML_OK && i < n && i < r->top; i++) {
        const size_t k = all[i].kernel;
        const size_t s = (size_t)(all[i].site - r->models[k].sites);
        rc = cml_wi_site(&t->kernel[k], all[i].site, &w->site[k][s]);
        /* the block shape is one choice per launch: fitted once over all
         * of its instructions, for the first of them detailed */
        if (rc == CML_OK && !w->shape[k].site && r->models[k].nsites)
            rc = cml_ws_launch_fit(&t->kernel[k], &r->models[k], &w->shape[k]);
        if (rc == CML_OK)
            cml_wi_shape(&w->shape[k], all[i].site, &w->site[k][s]);
    }
    free(all);
    if (rc != CML_OK)
        cml_tfr_whatif_free(r);
    return rc;
}

void cml_tfr_whatif_free(cml_tf_report *r)
{
    cml_tfr_whatifs *w = r->whatif;
    if (!w)
        return;
    for (size_t k = 0; k < r->t->nkernels; k++) {
        if (w->site)
            free(w->site[k]);
        if (w->shape)
            cml_ws_launch_free(&w->shape[k]);
    }
    free(w->site);
    free(w->shape);
    free(w);
    r->whatif = NULL;
}

const cml_wi_list *cml_tfr_whatif_of(const cml_tf_report *r, size_t k, const cml_tf_site *s)
{
    if (!r->whatif || k >= r->t->nkernels || !r->whatif->site[k])
        return NULL;
    const cml_tf_model *m = &r->models[k];
    if (s < m->sites || s >= m->sites + m->nsites)
        return NULL;
    const cml_wi_list *l = &r->whatif->site[k][s - m->sites];
    return l->examined ? l : NULL;
}
