/*
 * The results reader's entry points (json_read.h): a whole results
 * document, its records converted as the parser streams them; and a
 * results object embedded in another document (a fleet's rank: fleet.h),
 * read from its tree. Both go through the one schema reader of
 * json_read.c (cml_jread_results_top, cml_jread_record), so a results
 * object means the same wherever it is found.
 */
#include "report/json_read.h"

#include <stdio.h>
#include <string.h>

void cml_jread_records_init(cml_jread_records *rr, cml_results *r, char *err, size_t errlen)
{
    memset(rr, 0, sizeof *rr);
    rr->r = r;
    rr->st = CML_OK;
    rr->err = err;
    rr->errlen = errlen;
}

cml_status cml_jread_on_record(void *ctx, const cml_jval *element, size_t index)
{
    cml_jread_records *rr = ctx;
    if (rr->st != CML_OK)
        return CML_OK;
    int ok = cml_jread_record(element, index, rr->r, rr->msg, sizeof rr->msg);
    if (ok < 0) {
        if (rr->err && rr->errlen)
            snprintf(rr->err, rr->errlen, "%s", rr->msg);
        return CML_ENOMEM;
    }
    if (!ok)
        rr->st = CML_EINVAL;
    return CML_OK;
}

cml_status cml_jread_records_finish(cml_jread_records *rr, const cml_jval *root, char *err,
                                    size_t errlen)
{
    cml_status st = cml_jread_results_top(root, rr->r, err, errlen);
    if (st == CML_OK && rr->st != CML_OK) {
        st = rr->st;
        if (err && errlen)
            snprintf(err, errlen, "%s", rr->msg);
    }
    return st;
}

cml_status cml_results_from_input(const cml_jinput *in, cml_results *r, char *err,
                                  size_t errlen)
{
    cml_results_init(r);
    cml_jread_records rr;
    cml_jread_records_init(&rr, r, err, errlen);
    cml_jstream stream = {"records", cml_jread_on_record, &rr, NULL};
    cml_jdoc *doc;
    cml_status st = cml_jdoc_parse_input(in, &stream, &doc, err, errlen);
    if (st == CML_OK) {
        st = cml_jread_records_finish(&rr, cml_jdoc_root(doc), err, errlen);
        cml_jdoc_free(doc);
    }
    if (st != CML_OK) {
        cml_results_free(r);
        cml_results_init(r);
    }
    return st;
}

cml_status cml_results_from_json(const char *text, size_t len, cml_results *r, char *err,
                                 size_t errlen)
{
    cml_jinput in = {text, len, NULL, NULL};
    return cml_results_from_input(&in, r, err, errlen);
}

/* "line L, column C (byte B): what" -> "line L, column C (byte B): WHERE: what",
 * so that a message from inside an embedded object says which one. */
static void insert_where(char *err, size_t errlen, const char *where)
{
    if (!err || !errlen || !where || !where[0])
        return;
    char *p = strstr(err, "): ");
    char msg[1024];
    if (!p) {
        snprintf(msg, sizeof msg, "%s: %s", where, err);
    } else {
        p += 3;
        snprintf(msg, sizeof msg, "%.*s%s: %s", (int)(p - err), err, where, p);
    }
    snprintf(err, errlen, "%s", msg);
}

cml_status cml_results_from_tree(const cml_jval *root, const char *where, cml_results *r,
                                 char *err, size_t errlen)
{
    cml_results_init(r);
    cml_status st = cml_jread_results_top(root, r, err, errlen);
    if (st == CML_OK) {
        /* the top level said "records" is an array; a tree keeps its items */
        const cml_jval *recs = cml_jobject_get(root, "records");
        for (size_t i = 0; st == CML_OK && recs && recs->items && i < recs->count; i++) {
            int ok = cml_jread_record(&recs->items[i], i, r, err, errlen);
            st = ok < 0 ? CML_ENOMEM : ok == 0 ? CML_EINVAL : CML_OK;
        }
    }
    if (st == CML_EINVAL)
        insert_where(err, errlen, where);
    if (st != CML_OK) {
        cml_results_free(r);
        cml_results_init(r);
    }
    return st;
}
