/*
 * The "cumemlab-results" schema (docs/json-schema.md) read back into
 * cml_results from the tree of the strict parser (json_parse.c). Errors are
 * one line with the line, column and byte offset of the offending value.
 *
 * The records are converted as the parser streams them (cml_jstream), each
 * record's tree freed once it is a cml_record, so reading a file holds its
 * records and its top level, never the tree of every record. The messages
 * come out as if the whole tree had been read first: a syntax error
 * anywhere wins, then the top level's first error, then the first record's.
 */
#include "report/json_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The results schema                                                 */
/* ------------------------------------------------------------------ */

typedef struct rd {
    char *err;
    size_t errlen;
} rd;

/* An error at value v. */
static int rfail(rd *c, const cml_jval *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int rfail(rd *c, const cml_jval *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_jtext_vlocate(v->line, v->col, v->offset, c->err, c->errlen, fmt, ap);
    va_end(ap);
    return 0;
}

/* An error at member m's name. */
static int kfail(rd *c, const cml_jmember *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int kfail(rd *c, const cml_jmember *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cml_jtext_vlocate(m->key_line, m->key_col, m->key_offset, c->err, c->errlen, fmt, ap);
    va_end(ap);
    return 0;
}

const char *cml_jtype_name(cml_jtype t)
{
    switch (t) {
    case CML_J_NULL: return "null";
    case CML_J_FALSE:
    case CML_J_TRUE: return "a boolean";
    case CML_J_NUMBER: return "a number";
    case CML_J_STRING: return "a string";
    case CML_J_ARRAY: return "an array";
    case CML_J_OBJECT: return "an object";
    }
    return "a value";
}

/* The member `key` of object `o` (whose path is `where`), which must exist. */
static const cml_jval *need(rd *c, const cml_jval *o, const char *where, const char *key)
{
    const cml_jval *v = cml_jobject_get(o, key);
    if (!v)
        rfail(c, o, "%s: missing member \"%s\"", where, key);
    return v;
}

static int need_type(rd *c, const cml_jval *v, const char *where, const char *key, cml_jtype t)
{
    if (v->type == t || (t == CML_J_TRUE && v->type == CML_J_FALSE))
        return 1;
    return rfail(c, v, "%s%s%s: expected %s, found %s", where, key ? "." : "",
                 key ? key : "", cml_jtype_name(t), cml_jtype_name(v->type));
}

static int get_str(rd *c, const cml_jval *o, const char *where, const char *key, char *dst,
                   size_t cap)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_STRING))
        return 0;
    if (v->len >= cap)
        return rfail(c, v, "%s.%s: string of %zu bytes is too long (at most %zu)", where,
                     key, v->len, cap - 1);
    memcpy(dst, v->text, v->len + 1);
    return 1;
}

static int get_u64(rd *c, const cml_jval *o, const char *where, const char *key, uint64_t *out)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_NUMBER))
        return 0;
    if (!cml_jval_u64(v, out))
        return rfail(c, v,
                     "%s.%s: expected an integer in 0..18446744073709551615, found %s", where,
                     key, v->text);
    return 1;
}

static int get_int(rd *c, const cml_jval *o, const char *where, const char *key, int *out)
{
    const cml_jval *v = need(c, o, where, key);
    int64_t x;
    if (!v || !need_type(c, v, where, key, CML_J_NUMBER))
        return 0;
    if (!cml_jval_i64(v, &x) || x < INT_MIN || x > INT_MAX)
        return rfail(c, v, "%s.%s: expected an integer in %d..%d, found %s", where, key,
                     INT_MIN, INT_MAX, v->text);
    *out = (int)x;
    return 1;
}

static int get_unsigned(rd *c, const cml_jval *o, const char *where, const char *key,
                        unsigned *out)
{
    const cml_jval *v = need(c, o, where, key);
    uint64_t x;
    if (!v || !need_type(c, v, where, key, CML_J_NUMBER))
        return 0;
    if (!cml_jval_u64(v, &x) || x > UINT_MAX)
        return rfail(c, v, "%s.%s: expected an integer in 0..%u, found %s", where, key,
                     UINT_MAX, v->text);
    *out = (unsigned)x;
    return 1;
}

static int get_bool(rd *c, const cml_jval *o, const char *where, const char *key, int *out)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_TRUE))
        return 0;
    *out = v->type == CML_J_TRUE;
    return 1;
}

/* A number or null: *isnull says which; *out untouched for null. */
static int num_or_null(rd *c, const cml_jval *v, const char *where, const char *key, double *out,
                       int *isnull)
{
    if (v->type == CML_J_NULL) {
        *isnull = 1;
        return 1;
    }
    *isnull = 0;
    if (v->type != CML_J_NUMBER)
        return rfail(c, v, "%s%s%s: expected a number or null, found %s", where,
                     key ? "." : "", key ? key : "", cml_jtype_name(v->type));
    if (!cml_jval_double(v, out))
        return rfail(c, v, "%s%s%s: number %s is beyond the range of a double", where,
                     key ? "." : "", key ? key : "", v->text);
    return 1;
}

/* A number, or null read as `if_null` (the records' marks for unknown). */
static int get_num(rd *c, const cml_jval *o, const char *where, const char *key, double *out,
                   double if_null)
{
    const cml_jval *v = need(c, o, where, key);
    int isnull;
    if (!v || !num_or_null(c, v, where, key, out, &isnull))
        return 0;
    if (isnull)
        *out = if_null;
    return 1;
}

static int read_device(rd *c, const cml_jval *o, cml_device_facts *d)
{
    const char *w = "device";
    return get_int(c, o, w, "index", &d->index) &&
           get_str(c, o, w, "name", d->name, sizeof d->name) &&
           get_int(c, o, w, "cc_major", &d->cc_major) &&
           get_int(c, o, w, "cc_minor", &d->cc_minor) &&
           (!cml_jobject_get(o, "uuid") || get_str(c, o, w, "uuid", d->uuid, sizeof d->uuid)) &&
           get_int(c, o, w, "sm_count", &d->sm_count) &&
           get_int(c, o, w, "warp_size", &d->warp_size) &&
           get_int(c, o, w, "max_threads_per_block", &d->max_threads_per_block) &&
           get_int(c, o, w, "max_threads_per_sm", &d->max_threads_per_sm) &&
           get_int(c, o, w, "max_blocks_per_sm", &d->max_blocks_per_sm) &&
           get_int(c, o, w, "regs_per_block", &d->regs_per_block) &&
           get_int(c, o, w, "regs_per_sm", &d->regs_per_sm) &&
           get_u64(c, o, w, "shared_per_block", &d->shared_per_block) &&
           get_u64(c, o, w, "shared_per_block_optin", &d->shared_per_block_optin) &&
           get_u64(c, o, w, "shared_per_sm", &d->shared_per_sm) &&
           get_u64(c, o, w, "const_bytes", &d->const_bytes) &&
           get_u64(c, o, w, "l2_bytes", &d->l2_bytes) &&
           get_u64(c, o, w, "l2_persisting_max", &d->l2_persisting_max) &&
           get_u64(c, o, w, "global_bytes", &d->global_bytes) &&
           get_int(c, o, w, "bus_width_bits", &d->bus_width_bits) &&
           get_int(c, o, w, "mem_clock_khz", &d->mem_clock_khz) &&
           get_int(c, o, w, "sm_clock_khz", &d->sm_clock_khz) &&
           get_num(c, o, w, "theoretical_gbs", &d->theoretical_gbs, -1.0) &&
           get_bool(c, o, w, "ecc_enabled", &d->ecc_enabled) &&
           get_int(c, o, w, "driver_version", &d->driver_version) &&
           get_int(c, o, w, "runtime_version", &d->runtime_version) &&
           get_bool(c, o, w, "unified_addressing", &d->unified_addressing) &&
           get_bool(c, o, w, "can_map_host_memory", &d->can_map_host_memory) &&
           get_bool(c, o, w, "managed_memory", &d->managed_memory) &&
           get_bool(c, o, w, "concurrent_managed", &d->concurrent_managed) &&
           get_bool(c, o, w, "global_l1_cache_supported", &d->global_l1_cache_supported) &&
           get_bool(c, o, w, "local_l1_cache_supported", &d->local_l1_cache_supported);
}

/* One of `names` (NULL-terminated); its index into *out. */
static int get_enum(rd *c, const cml_jval *o, const char *where, const char *key,
                    const char *const *names, int *out)
{
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_STRING))
        return 0;
    char allowed[128] = "";
    size_t used = 0;
    for (int i = 0; names[i]; i++) {
        if (strcmp(v->text, names[i]) == 0) {
            *out = i;
            return 1;
        }
        int w = snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"", i ? ", " : "",
                         names[i]);
        if (w > 0 && (size_t)w < sizeof allowed - used)
            used += (size_t)w;
    }
    return rfail(c, v, "%s.%s: unknown value \"%.40s\" (allowed: %s)", where, key,
                 v->text, allowed);
}

/* "256" -> 256; anything that is not a plain decimal integer -> 0. */
static int64_t label_value(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (!*p)
        return 0;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno)
        return 0;
    return (int64_t)v;
}

static int read_params(rd *c, const cml_jval *o, const char *where, cml_record *rec)
{
    if (!need_type(c, o, where, "params", CML_J_OBJECT))
        return 0;
    if (o->count > CML_RECORD_MAX_PARAMS)
        return rfail(c, o, "%s.params: %zu parameters, at most %d", where, o->count,
                     CML_RECORD_MAX_PARAMS);
    for (size_t i = 0; i < o->count; i++) {
        const cml_jmember *m = &o->members[i];
        cml_record_param *p = &rec->params[rec->nparams];
        if (strlen(m->key) >= sizeof p->name)
            return kfail(c, m, "%s.params: name \"%.40s\" is too long (at most %zu)",
                         where, m->key, sizeof p->name - 1);
        if (!m->key[0])
            return kfail(c, m, "%s.params: empty parameter name", where);
        memset(p, 0, sizeof *p);
        memcpy(p->name, m->key, strlen(m->key) + 1);
        const cml_jval *v = &m->value;
        if (v->type == CML_J_STRING) {
            if (v->len == 0 || v->len >= sizeof p->label)
                return rfail(c, v, "%s.params.%s: a choice name of 1..%zu bytes expected",
                             where, m->key, sizeof p->label - 1);
            memcpy(p->label, v->text, v->len + 1);
            p->value = label_value(p->label);
        } else if (v->type == CML_J_NUMBER) {
            if (!cml_jval_i64(v, &p->value))
                return rfail(c, v, "%s.params.%s: expected a 64-bit integer, found %s",
                             where, m->key, v->text);
        } else {
            return rfail(c, v, "%s.params.%s: expected an integer or a string, found %s",
                         where, m->key, cml_jtype_name(v->type));
        }
        rec->nparams++;
    }
    return 1;
}

static int read_timing(rd *c, const cml_jval *t, const char *where, cml_timing *tm)
{
    char w[64];
    snprintf(w, sizeof w, "%s.timing", where);
    double nan = NAN;
    return get_unsigned(c, t, w, "warmup", &tm->warmup) &&
           get_unsigned(c, t, w, "reps", &tm->reps) &&
           get_num(c, t, w, "median_ms", &tm->median_ms, nan) &&
           get_num(c, t, w, "min_ms", &tm->min_ms, nan) &&
           get_num(c, t, w, "max_ms", &tm->max_ms, nan) &&
           get_num(c, t, w, "mean_ms", &tm->mean_ms, nan) &&
           get_num(c, t, w, "cv", &tm->cv, nan);
}

static const char *const class_names[CML_CLASS_COUNT] = {
    "global_ld", "global_st", "local_ld", "local_st", "shared_ld", "shared_st", "const_ld"};

static int read_traffic(rd *c, const cml_jval *o, const char *w, cml_traffic *t)
{
    if (!need_type(c, o, w, NULL, CML_J_OBJECT))
        return 0;
    if (!(get_u64(c, o, w, "instructions", &t->instructions) &&
          get_u64(c, o, w, "requests", &t->requests) &&
          get_u64(c, o, w, "sectors", &t->sectors) && get_u64(c, o, w, "lines", &t->lines) &&
          get_u64(c, o, w, "transactions", &t->transactions) &&
          get_u64(c, o, w, "transaction_bytes", &t->transaction_bytes) &&
          get_u64(c, o, w, "efficiency_bytes", &t->efficiency_bytes) &&
          get_u64(c, o, w, "requested_bytes", &t->requested_bytes) &&
          get_u64(c, o, w, "lane_bytes", &t->lane_bytes) &&
          get_u64(c, o, w, "wavefronts", &t->wavefronts) &&
          get_u64(c, o, w, "ideal_wavefronts", &t->ideal_wavefronts) &&
          get_u64(c, o, w, "bank_conflicts", &t->bank_conflicts) &&
          get_u64(c, o, w, "serialized", &t->serialized)))
        return 0;
    /* The two ratios are derived from the counts: checked for type only. */
    const char *ratios[] = {"sectors_per_request", "efficiency"};
    for (int i = 0; i < 2; i++) {
        const cml_jval *v = cml_jobject_get(o, ratios[i]);
        double d;
        int isnull;
        if (v && !num_or_null(c, v, w, ratios[i], &d, &isnull))
            return 0;
    }
    return 1;
}

/* model.levels.lo or .hi: one bound of each figure with an interval. */
static int read_bound(rd *c, const cml_jval *o, const char *where, const char *key,
                      uint64_t b[CML_LEVEL_FIGURES])
{
    char w[160];
    snprintf(w, sizeof w, "%s.%s", where, key);
    const cml_jval *v = need(c, o, where, key);
    if (!v || !need_type(c, v, where, key, CML_J_OBJECT))
        return 0;
    for (unsigned i = 0; i < CML_LEVEL_FIGURES; i++)
        if (!get_u64(c, v, w, cml_level_figure_name(i), &b[i]))
            return 0;
    return 1;
}

/* model.levels.lo and .hi: both or neither (files written before the
 * intervals have neither), each figure within its interval. */
static int read_bounds(rd *c, const cml_jval *o, const char *w, cml_levels *l)
{
    l->bounded = 0;
    if (!cml_jobject_get(o, "lo") && !cml_jobject_get(o, "hi"))
        return 1;
    uint64_t lo[CML_LEVEL_FIGURES], hi[CML_LEVEL_FIGURES], val[CML_LEVEL_FIGURES];
    if (!read_bound(c, o, w, "lo", lo) || !read_bound(c, o, w, "hi", hi))
        return 0;
    cml_level_bounds v;
    cml_levels_values(l, &v);
    cml_level_bounds_get(&v, val);
    for (unsigned i = 0; i < CML_LEVEL_FIGURES; i++)
        if (lo[i] > val[i] || val[i] > hi[i])
            return rfail(c, o,
                         "%s.%s: %llu lies outside its interval [%llu, %llu] (%s.lo and .hi: "
                         "lo <= value <= hi)",
                         w, cml_level_figure_name(i), (unsigned long long)val[i],
                         (unsigned long long)lo[i], (unsigned long long)hi[i], w);
    cml_level_bounds_set(&l->lo, lo);
    cml_level_bounds_set(&l->hi, hi);
    l->bounded = 1;
    return 1;
}

/* An "assumed" object (the cml_cache_config the model ran under) into k;
 * w names it in errors. */
static int read_assumed(rd *c, const cml_jval *a, const char *w, cml_cache_config *k)
{
    uint64_t sm = 0, threads = 0, blocks = 0, parts = 0, granule = 0, kres = 0;
    if (!(get_u64(c, a, w, "sm_count", &sm) &&
          get_u64(c, a, w, "max_threads_per_sm", &threads) &&
          get_u64(c, a, w, "max_blocks_per_sm", &blocks) &&
          get_u64(c, a, w, "l1_total_bytes", &k->l1_total_bytes) &&
          get_u64(c, a, w, "smem_per_sm", &k->smem_per_sm) &&
          get_u64(c, a, w, "smem_per_block", &k->smem_per_block) &&
          get_u64(c, a, w, "l1_bytes", &k->l1_bytes) &&
          get_u64(c, a, w, "resident_blocks", &kres) &&
          get_u64(c, a, w, "l2_bytes", &k->l2_bytes) &&
          get_u64(c, a, w, "l2_partitions", &parts) &&
          get_u64(c, a, w, "dram_granule", &granule) &&
          get_u64(c, a, w, "clean_age_bytes", &k->clean_age_bytes) &&
          get_u64(c, a, w, "partial_age_bytes", &k->partial_age_bytes) &&
          get_u64(c, a, w, "dirty_max_bytes", &k->dirty_max_bytes)))
        return 0;
    const uint64_t lim = UINT32_MAX;
    if (sm > lim || threads > lim || blocks > lim || parts > lim || granule > lim || kres > lim)
        return rfail(c, a, "%s: a count beyond %llu", w, (unsigned long long)lim);
    k->sm_count = (unsigned)sm;
    k->max_threads_per_sm = (unsigned)threads;
    k->max_blocks_per_sm = (unsigned)blocks;
    k->resident_blocks = (unsigned)kres;
    k->l2_partitions = (unsigned)parts;
    k->dram_granule = (unsigned)granule;
    return 1;
}

/* model.levels: the cache levels and what they assumed (absent in files
 * written before the cache model: no levels). */
static int read_levels(rd *c, const cml_jval *o, const char *where, cml_record *rec)
{
    char w[128], wa[160];
    snprintf(w, sizeof w, "%s.levels", where);
    if (!need_type(c, o, where, "levels", CML_J_OBJECT))
        return 0;
    cml_levels *l = &rec->levels;
    char method[16];
    uint64_t resident = 0;
    if (!(get_u64(c, o, w, "l1_hit_sectors", &l->l1_hit_sectors) &&
          get_u64(c, o, w, "l1_miss_sectors", &l->l1_miss_sectors) &&
          get_u64(c, o, w, "local_hit_sectors", &l->local_hit_sectors) &&
          get_u64(c, o, w, "l2_read_sectors", &l->l2_read_sectors) &&
          get_u64(c, o, w, "l2_write_sectors", &l->l2_write_sectors) &&
          get_u64(c, o, w, "l2_read_hit_sectors", &l->l2_read_hit_sectors) &&
          get_u64(c, o, w, "dram_read_bytes", &l->dram_read_bytes) &&
          get_u64(c, o, w, "dram_write_bytes", &l->dram_write_bytes) &&
          get_u64(c, o, w, "l2_dirty_end_bytes", &l->l2_dirty_end_bytes) &&
          get_u64(c, o, w, "footprint_bytes", &l->footprint_bytes) &&
          get_str(c, o, w, "method", method, sizeof method) &&
          get_bool(c, o, w, "settled", &l->settled) &&
          get_u64(c, o, w, "simulated_blocks", &l->simulated_blocks) &&
          get_u64(c, o, w, "resident_blocks", &resident) &&
          get_u64(c, o, w, "l1_bytes", &l->l1_bytes) && read_bounds(c, o, w, l)))
        return 0;
    if (strcmp(method, "whole") && strcmp(method, "sampled"))
        return rfail(c, o, "%s.method: expected \"whole\" or \"sampled\", found \"%s\"",
                     w, method);
    l->sampled = strcmp(method, "sampled") == 0;
    if (resident > UINT32_MAX)
        return rfail(c, o, "%s.resident_blocks: a count beyond %llu", w,
                     (unsigned long long)UINT32_MAX);
    l->resident_blocks = (unsigned)resident;
    const cml_jval *a = need(c, o, w, "assumed");
    snprintf(wa, sizeof wa, "%s.assumed", w);
    if (!a || !need_type(c, a, w, "assumed", CML_J_OBJECT) || !read_assumed(c, a, wa, &rec->cache))
        return 0;
    rec->has_levels = 1;
    return 1;
}

/* model.sample (absent in files written before sampling, null when every
 * figure is exact). */
static int read_sample(rd *c, const cml_jval *o, const char *where, cml_record *rec)
{
    static const char *const rules[CML_RULES_COUNT] = {"modern", "fermi"};
    char w[128], wr[160], wc[192];
    snprintf(w, sizeof w, "%s.sample", where);
    if (!need_type(c, o, where, "sample", CML_J_OBJECT))
        return 0;
    struct cml_model_sample *s = &rec->sample;
    if (!get_u64(c, o, w, "warps", &s->warps) || !get_u64(c, o, w, "of", &s->of) ||
        !get_num(c, o, w, "confidence", &s->confidence, 0.0))
        return 0;
    if (s->warps == 0 || s->warps > s->of || !(s->confidence > 0.0 && s->confidence < 1.0))
        return rfail(c, o, "%s: expected 0 < warps <= of and 0 < confidence < 1", w);
    const cml_jval *hw = need(c, o, w, "half_width");
    if (!hw || !need_type(c, hw, w, "half_width", CML_J_OBJECT))
        return 0;
    for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
        const cml_jval *set = need(c, hw, w, rules[r]);
        if (!set || !need_type(c, set, w, rules[r], CML_J_OBJECT))
            return 0;
        snprintf(wr, sizeof wr, "%s.half_width.%s", w, rules[r]);
        for (size_t i = 0; i < set->count; i++) {
            const cml_jmember *cm = &set->members[i];
            for (int k = 0; k < (int)CML_CLASS_COUNT; k++) {
                if (strcmp(cm->key, class_names[k]) != 0)
                    continue;
                snprintf(wc, sizeof wc, "%s.%s", wr, cm->key);
                cml_traffic bound;
                memset(&bound, 0, sizeof bound);
                if (!read_traffic(c, &cm->value, wc, &bound))
                    return 0;
                cml_sample_set_half(rec, r, k, &bound);
            }
        }
    }
    return 1;
}

static int read_model(rd *c, const cml_jval *m, const char *where, cml_record *rec)
{
    static const char *const rules[CML_RULES_COUNT] = {"modern", "fermi"};
    char w[96];
    snprintf(w, sizeof w, "%s.model", where);
    if (!need_type(c, m, where, "model", CML_J_OBJECT))
        return 0;
    for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
        const cml_jval *set = need(c, m, w, rules[r]);
        if (!set || !need_type(c, set, w, rules[r], CML_J_OBJECT))
            return 0;
        char ws[128];
        for (size_t i = 0; i < set->count; i++) {
            const cml_jmember *cm = &set->members[i];
            for (int k = 0; k < (int)CML_CLASS_COUNT; k++) {
                if (strcmp(cm->key, class_names[k]) != 0)
                    continue;
                snprintf(ws, sizeof ws, "%s.%s.%s", w, rules[r], cm->key);
                if (!read_traffic(c, &cm->value, ws, &rec->model[r].cls[k]))
                    return 0;
            }
        }
    }
    const cml_jval *lv = cml_jobject_get(m, "levels");
    if (lv && lv->type != CML_J_NULL && !read_levels(c, lv, w, rec))
        return 0;
    /* What the model assumed, beside null levels (files since 2026-11-29):
     * how many blocks share an SM. */
    const cml_jval *as = cml_jobject_get(m, "assumed");
    if (as && !rec->has_levels) {
        char wa[128];
        snprintf(wa, sizeof wa, "%s.assumed", w);
        if (!need_type(c, as, w, "assumed", CML_J_OBJECT) || !read_assumed(c, as, wa, &rec->cache))
            return 0;
    }
    const cml_jval *sm = cml_jobject_get(m, "sample");
    if (sm && sm->type != CML_J_NULL && !read_sample(c, sm, w, rec))
        return 0;
    rec->has_model = 1;
    return 1;
}

static int read_counters(rd *c, const cml_jval *a, const char *where, cml_record *rec)
{
    if (!need_type(c, a, where, "counters", CML_J_ARRAY))
        return 0;
    if (a->count > CML_RECORD_MAX_COUNTERS)
        return rfail(c, a, "%s.counters: %zu counters, at most %d", where, a->count,
                     CML_RECORD_MAX_COUNTERS);
    for (size_t i = 0; i < a->count; i++) {
        char w[96];
        snprintf(w, sizeof w, "%s.counters[%zu]", where, i);
        const cml_jval *o = &a->items[i];
        if (!need_type(c, o, w, NULL, CML_J_OBJECT))
            return 0;
        cml_counter *k = &rec->counters[rec->ncounters];
        memset(k, 0, sizeof *k);
        int isnull;
        const cml_jval *pv;
        if (!get_str(c, o, w, "name", k->name, sizeof k->name) ||
            !get_num(c, o, w, "measured", &k->measured, NAN) ||
            !(pv = need(c, o, w, "predicted")) ||
            !num_or_null(c, pv, w, "predicted", &k->predicted, &isnull))
            return 0;
        k->has_prediction = !isnull;
        if (isnull)
            k->predicted = 0;
        rec->ncounters++;
    }
    return 1;
}

static int read_extra(rd *c, const cml_jval *o, const char *where, cml_record *rec)
{
    const size_t max = sizeof rec->extra / sizeof rec->extra[0];
    if (!need_type(c, o, where, "extra", CML_J_OBJECT))
        return 0;
    if (o->count > max)
        return rfail(c, o, "%s.extra: %zu numbers, at most %zu", where, o->count, max);
    for (size_t i = 0; i < o->count; i++) {
        const cml_jmember *m = &o->members[i];
        char w[128];
        snprintf(w, sizeof w, "%s.extra.%.40s", where, m->key);
        if (strlen(m->key) >= sizeof rec->extra[0].name)
            return kfail(c, m, "%s.extra: name \"%.40s\" is too long (at most %zu)",
                         where, m->key, sizeof rec->extra[0].name - 1);
        if (!need_type(c, &m->value, w, NULL, CML_J_OBJECT))
            return 0;
        unsigned k = rec->nextra;
        memcpy(rec->extra[k].name, m->key, strlen(m->key) + 1);
        if (!get_num(c, &m->value, w, "value", &rec->extra[k].value, NAN) ||
            !get_str(c, &m->value, w, "unit", rec->extra[k].unit, sizeof rec->extra[k].unit))
            return 0;
        rec->nextra++;
    }
    return 1;
}

static int read_record(rd *c, const cml_jval *o, size_t index, cml_results *r)
{
    static const char *const states[] = {"ok", "waived", "failed", NULL};
    static const char *const verifies[] = {"not_run", "passed", "failed", NULL};
    char w[48];
    snprintf(w, sizeof w, "records[%zu]", index);
    if (!need_type(c, o, w, NULL, CML_J_OBJECT))
        return 0;
    cml_record *rec = cml_results_add(r, "", "");
    if (!rec) {
        if (c->err && c->errlen)
            snprintf(c->err, c->errlen, "out of memory reading %s", w);
        return -1;
    }
    int state = 0, verify = 0;
    const cml_jval *v;
    if (!get_str(c, o, w, "experiment", rec->experiment, sizeof rec->experiment) ||
        !get_str(c, o, w, "variant", rec->variant, sizeof rec->variant) ||
        !get_enum(c, o, w, "state", states, &state) ||
        !get_str(c, o, w, "note", rec->note, sizeof rec->note) ||
        !(v = need(c, o, w, "params")) || !read_params(c, v, w, rec) ||
        !get_u64(c, o, w, "bytes_read", &rec->bytes_read) ||
        !get_u64(c, o, w, "bytes_written", &rec->bytes_written) ||
        !get_u64(c, o, w, "grid", &rec->grid) || !get_u64(c, o, w, "block", &rec->block) ||
        !get_num(c, o, w, "occupancy", &rec->occupancy, -1.0))
        return 0;
    rec->state = state == 1 ? CML_REC_WAIVED : state == 2 ? CML_REC_FAILED : CML_REC_OK;

    if (!(v = need(c, o, w, "timing")))
        return 0;
    if (v->type != CML_J_NULL) {
        if (!need_type(c, v, w, "timing", CML_J_OBJECT) || !read_timing(c, v, w, &rec->timing))
            return 0;
        rec->measured = 1;
    }
    if (!get_num(c, o, w, "bandwidth_gbs", &rec->bandwidth_gbs, rec->measured ? NAN : 0.0) ||
        !get_num(c, o, w, "peak_fraction", &rec->peak_fraction, -1.0) ||
        !get_enum(c, o, w, "verify", verifies, &verify))
        return 0;
    rec->verify = verify == 1 ? CML_VERIFY_PASSED : verify == 2 ? CML_VERIFY_FAILED
                                                                : CML_VERIFY_NONE;
    /* peak_class, peak_gbs: absent in files written before the peak classes
     * and in unmeasured records. */
    if ((v = cml_jobject_get(o, "peak_class")) && v->type != CML_J_NULL) {
        char name[16];
        if (!get_str(c, o, w, "peak_class", name, sizeof name))
            return 0;
        rec->peak_class = cml_peak_class_parse(name);
        if (rec->peak_class == CML_PEAK_CLASS_NONE)
            return rfail(c, v,
                         "%s.peak_class: \"%s\" is not read, write, copy, triad, given, "
                         "l2-resident or l1-resident",
                         w, name);
        /* A cache's figure is no share of the DRAM peak: a file saying both
         * contradicts itself. */
        if (cml_peak_class_resident(rec->peak_class) && rec->peak_fraction >= 0)
            return rfail(c, v,
                         "%s.peak_class: \"%s\" beside a peak_fraction (a cache-resident "
                         "record has no share of the DRAM peak)",
                         w, name);
    }
    if (cml_jobject_get(o, "peak_gbs") &&
        !get_num(c, o, w, "peak_gbs", &rec->peak_ref_gbs, 0.0))
        return 0;
    if (!(v = need(c, o, w, "model")))
        return 0;
    if (v->type != CML_J_NULL && !read_model(c, v, w, rec))
        return 0;
    if (!(v = need(c, o, w, "counters")) || !read_counters(c, v, w, rec) ||
        !(v = need(c, o, w, "extra")) || !read_extra(c, v, w, rec) ||
        !get_str(c, o, w, "finding", rec->finding, sizeof rec->finding))
        return 0;
    return 1;
}

/* The run's diagnostics: an array of {level, experiment (a key or null),
 * message}. 1 ok, 0 malformed (message in c), -1 out of memory. */
static int read_diagnostics(rd *c, const cml_jval *v, cml_results *r)
{
    if (!need_type(c, v, "top level", "diagnostics", CML_J_ARRAY))
        return 0;
    for (size_t i = 0; i < v->count; i++) {
        const cml_jval *d = &v->items[i];
        char where[48], level[16], message[sizeof r->diags[0].message];
        char experiment[sizeof r->diags[0].experiment] = "";
        snprintf(where, sizeof where, "diagnostics[%zu]", i);
        if (!need_type(c, d, where, NULL, CML_J_OBJECT) ||
            !get_str(c, d, where, "level", level, sizeof level) ||
            !get_str(c, d, where, "message", message, sizeof message))
            return 0;
        int lv = cml_diag_level_parse(level);
        if (lv < 0)
            return rfail(c, cml_jobject_get(d, "level"),
                         "%s.level: \"%s\" is not info, warning or error", where, level);
        const cml_jval *e = need(c, d, where, "experiment");
        if (!e)
            return 0;
        if (e->type != CML_J_NULL &&
            !get_str(c, d, where, "experiment", experiment, sizeof experiment))
            return 0;
        if (cml_results_diag(r, (cml_diag_level)lv, experiment, "%s", message) != CML_OK)
            return -1;
    }
    return 1;
}

/* The reference of each class: {"read": {"gbs": N, "source": "..."} or
 * null, "write": ..., "copy": ..., "triad": ...}. */
static int read_peak_classes(rd *c, const cml_jval *v, cml_results *r)
{
    if (!need_type(c, v, "top level", "peak_classes", CML_J_OBJECT))
        return 0;
    for (int k = 0; k < CML_PEAK_CLASS_COUNT; k++) {
        const char *name = cml_peak_class_name(k);
        const cml_jval *e = need(c, v, "peak_classes", name);
        if (!e)
            return 0;
        if (e->type == CML_J_NULL)
            continue;
        char where[40];
        snprintf(where, sizeof where, "peak_classes.%s", name);
        if (!need_type(c, e, "peak_classes", name, CML_J_OBJECT) ||
            !get_num(c, e, where, "gbs", &r->peaks.gbs[k], 0.0) ||
            !get_str(c, e, where, "source", r->peaks.source[k], sizeof r->peaks.source[k]))
            return 0;
    }
    return 1;
}

static cml_status read_results(rd *c, const cml_jval *root, cml_results *r)
{
    const char *w = "top level";
    const cml_jval *v;
    char schema[64];
    if (!need_type(c, root, w, NULL, CML_J_OBJECT) ||
        !get_str(c, root, w, "schema", schema, sizeof schema))
        return CML_EINVAL;
    if (strcmp(schema, "cumemlab-results") != 0)
        return rfail(c, cml_jobject_get(root, "schema"),
                     "schema: \"%s\" is not \"cumemlab-results\"", schema),
               CML_EINVAL;
    if (!(v = need(c, root, w, "schema_version")))
        return CML_EINVAL;
    int64_t version;
    if (!cml_jval_i64(v, &version) || version < 1)
        return rfail(c, v, "schema_version: expected a positive integer"), CML_EINVAL;
    if (version != 1)
        return rfail(c, v,
                     "schema_version %lld is newer than this cumemlab reads (version 1)",
                     (long long)version),
               CML_EINVAL;
    if (!get_str(c, root, w, "tool_version", r->tool_version, sizeof r->tool_version) ||
        !get_str(c, root, w, "command_line", r->command_line, sizeof r->command_line) ||
        !get_bool(c, root, w, "model_only", &r->model_only) || !(v = need(c, root, w, "device")))
        return CML_EINVAL;
    if (v->type != CML_J_NULL) {
        if (!need_type(c, v, w, "device", CML_J_OBJECT) || !read_device(c, v, &r->device))
            return CML_EINVAL;
        r->has_device = 1;
    }
    /* peak_given: absent in files written before --peak existed (measured). */
    if (cml_jobject_get(root, "peak_given") && !get_bool(c, root, w, "peak_given", &r->peak_given))
        return CML_EINVAL;
    if (!get_num(c, root, w, "peak_gbs", &r->peak_gbs, 0.0))
        return CML_EINVAL;
    /* peak_classes: absent in older files and where no peak is known. */
    v = cml_jobject_get(root, "peak_classes");
    if (v && !read_peak_classes(c, v, r))
        return CML_EINVAL;
    r->peaks.given = r->peak_given;
    /* diagnostics: absent in files written before the run engine had them. */
    v = cml_jobject_get(root, "diagnostics");
    if (v) {
        int ok = read_diagnostics(c, v, r);
        if (ok < 0)
            return CML_ENOMEM;
        if (!ok)
            return CML_EINVAL;
    }
    /* dram_background: absent in files written before validate measured it
     * (and in any other command's). */
    v = cml_jobject_get(root, "dram_background");
    if (v && !cml_jread_background(v, r, c->err, c->errlen))
        return CML_EINVAL;
    /* experiments: absent in files written before they described their
     * experiments (the reports then go by the registry, chart_plan.h). */
    v = cml_jobject_get(root, "experiments");
    if (v) {
        int ok = cml_jread_experiments(v, r, c->err, c->errlen);
        if (ok < 0)
            return CML_ENOMEM;
        if (!ok)
            return CML_EINVAL;
    }
    /* The records themselves were read as the parser streamed them
     * (on_record): here only that they are there, as an array. */
    if (!(v = need(c, root, w, "records")) || !need_type(c, v, w, "records", CML_J_ARRAY))
        return CML_EINVAL;
    return CML_OK;
}

/* Part of the results reader (json_read.h): the two pieces its entry
 * points (results_read.c) put together. */
int cml_jread_record(const cml_jval *o, size_t index, cml_results *r, char *err, size_t errlen)
{
    rd c = {err, errlen};
    return read_record(&c, o, index, r);
}

cml_status cml_jread_results_top(const cml_jval *root, cml_results *r, char *err, size_t errlen)
{
    rd c = {err, errlen};
    return read_results(&c, root, r);
}
