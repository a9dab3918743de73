/* Result records: a growable array and small helpers for filling records. */
#include "core/record.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy with truncation; always NUL-terminates (dst_len > 0). */
static void copy_str(char *dst, size_t dst_len, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= dst_len)
        n = dst_len - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

void cml_results_init(cml_results *r)
{
    memset(r, 0, sizeof *r);
}

void cml_results_free(cml_results *r)
{
    free(r->items);
    r->items = NULL;
    r->count = r->cap = 0;
    free(r->diags);
    r->diags = NULL;
    r->ndiags = r->diags_cap = 0;
    cml_exp_descs_free(&r->descs);
}

cml_status cml_results_diag(cml_results *r, cml_diag_level level, const char *experiment,
                            const char *fmt, ...)
{
    if (r->ndiags == r->diags_cap) {
        size_t cap = r->diags_cap ? r->diags_cap * 2 : 8;
        cml_diagnostic *d = realloc(r->diags, cap * sizeof *d);
        if (!d)
            return CML_ENOMEM;
        r->diags = d;
        r->diags_cap = cap;
    }
    cml_diagnostic *d = &r->diags[r->ndiags++];
    memset(d, 0, sizeof *d);
    d->level = level;
    copy_str(d->experiment, sizeof d->experiment, experiment);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    return CML_OK;
}

static const char *const diag_levels[] = {"info", "warning", "error"};

const char *cml_diag_level_name(cml_diag_level level)
{
    return (unsigned)level < 3 ? diag_levels[level] : "error";
}

int cml_diag_level_parse(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, diag_levels[i]))
            return i;
    return -1;
}

cml_record *cml_results_add(cml_results *r, const char *experiment, const char *variant)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        cml_record *items = realloc(r->items, cap * sizeof *items);
        if (!items)
            return NULL;
        r->items = items;
        r->cap = cap;
    }
    cml_record *rec = &r->items[r->count++];
    memset(rec, 0, sizeof *rec);
    copy_str(rec->experiment, sizeof rec->experiment, experiment);
    copy_str(rec->variant, sizeof rec->variant, variant);
    rec->occupancy = -1.0;
    rec->peak_fraction = -1.0;
    rec->peak_class = CML_PEAK_CLASS_NONE;
    return rec;
}

void cml_record_add_param(cml_record *rec, const char *name, int64_t value, const char *label)
{
    if (rec->nparams >= CML_RECORD_MAX_PARAMS)
        return;
    cml_record_param *p = &rec->params[rec->nparams++];
    copy_str(p->name, sizeof p->name, name);
    p->value = value;
    copy_str(p->label, sizeof p->label, label);
}

double cml_record_extra(const cml_record *rec, const char *name, double missing)
{
    for (unsigned i = 0; i < rec->nextra; i++)
        if (strcmp(rec->extra[i].name, name) == 0)
            return rec->extra[i].value;
    return missing;
}

void cml_record_add_extra(cml_record *rec, const char *name, double value, const char *unit)
{
    if (rec->nextra >= sizeof rec->extra / sizeof rec->extra[0])
        return;
    copy_str(rec->extra[rec->nextra].name, sizeof rec->extra[0].name, name);
    copy_str(rec->extra[rec->nextra].unit, sizeof rec->extra[0].unit, unit);
    rec->extra[rec->nextra].value = value;
    rec->nextra++;
}

void cml_sample_set_half(cml_record *rec, int rules, int cls, const cml_traffic *half)
{
    const uint64_t *v = (const uint64_t *)(const void *)half;
    float *h = rec->sample.half[rules][cls];
    for (size_t f = 0; f < CML_TRAFFIC_FIELDS; f++) {
        float x = (float)v[f];
        /* (float) rounds to nearest: step up where that went below the count */
        if ((long double)x < (long double)v[f])
            x = nextafterf(x, INFINITY);
        h[f] = x;
    }
}

void cml_sample_half(const cml_record *rec, int rules, int cls, cml_traffic *out)
{
    uint64_t *v = (uint64_t *)(void *)out;
    const float *h = rec->sample.half[rules][cls];
    for (size_t f = 0; f < CML_TRAFFIC_FIELDS; f++)
        /* 2^64 (UINT64_MAX rounded up) has no uint64_t: the largest one */
        v[f] = h[f] >= 0x1p64f ? UINT64_MAX : (uint64_t)h[f];
}

const cml_record_param *cml_record_find_param(const cml_record *rec, const char *name)
{
    for (unsigned i = 0; i < rec->nparams; i++)
        if (strcmp(rec->params[i].name, name) == 0)
            return &rec->params[i];
    return NULL;
}

const cml_counter *cml_record_find_counter(const cml_record *rec, const char *name)
{
    for (unsigned i = 0; i < rec->ncounters && i < CML_RECORD_MAX_COUNTERS; i++)
        if (strcmp(rec->counters[i].name, name) == 0)
            return &rec->counters[i];
    return NULL;
}

double cml_record_counter_value(const cml_record *rec, const char *name)
{
    const cml_counter *c = cml_record_find_counter(rec, name);
    return c ? c->measured : NAN;
}

int cml_record_residency(const cml_record *rec, uint64_t footprint)
{
    uint64_t l1 = 0;
    int l1_served = 0;
    if (rec->has_levels && rec->levels.footprint_bytes) {
        const cml_levels *lv = &rec->levels;
        footprint = lv->footprint_bytes;
        l1 = lv->l1_bytes;
        /* Served by L1: most of the sectors it moves hit there. A store
         * always goes through to L2, a missed load comes from it: L1 must
         * serve more than both together (a read that stores one sum per
         * thread is L1's; a copy is not). */
        l1_served = lv->l1_hit_sectors > lv->l1_miss_sectors + lv->l2_write_sectors;
    }
    return cml_peak_residency(footprint, l1, l1_served, rec->cache.l2_bytes);
}

int cml_record_few_blocks(const cml_record *rec)
{
    const uint64_t sms = rec->cache.sm_count ? rec->cache.sm_count : 132u;
    return rec->grid < sms;
}

void cml_record_set_peak(cml_record *rec, const cml_peak_refs *refs)
{
    cml_record_set_peak_touching(rec, refs, 0);
}

void cml_record_set_peak_touching(cml_record *rec, const cml_peak_refs *refs, uint64_t footprint)
{
    rec->peak_fraction = -1.0;
    rec->peak_class = CML_PEAK_CLASS_NONE;
    rec->peak_ref_gbs = 0.0;
    if (!refs || !rec->measured || !(rec->bandwidth_gbs >= 0) || !isfinite(rec->bandwidth_gbs))
        return; /* (no references: a path the DRAM peak says nothing of) */
    /* A cache's bandwidth is no share of DRAM's (4.9 TB/s over a 4 KiB
     * array is not "114% of peak"). */
    const int resident = cml_record_residency(rec, footprint);
    if (resident != CML_PEAK_CLASS_NONE) {
        rec->peak_class = resident;
        return;
    }
    int used = CML_PEAK_CLASS_NONE;
    double ref = cml_peak_refs_lookup(refs, cml_peak_class_of(rec->bytes_read,
                                                              rec->bytes_written), &used);
    if (!(ref > 0))
        return;
    rec->peak_class = used;
    rec->peak_ref_gbs = ref;
    rec->peak_fraction = rec->bandwidth_gbs / ref;
}

void cml_record_finding(cml_record *rec, const char *fmt, ...)
{
    /* Formatted in a larger buffer first, so that a sentence longer than
     * the field loses whole words, never half of one. */
    char text[2 * sizeof rec->finding];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cml_text_cut_words(rec->finding, sizeof rec->finding, text, sizeof rec->finding);
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int cml_text_cut_words(char *dst, size_t dst_len, const char *src, size_t max_chars)
{
    static const char dots[] = "...";
    if (!dst || dst_len == 0)
        return 0;
    if (!src)
        src = "";
    size_t bytes = strlen(src), chars = 0;
    for (size_t i = 0; i < bytes; i++)
        chars += ((unsigned char)src[i] & 0xC0) != 0x80;
    if (chars <= max_chars && bytes < dst_len) {
        memcpy(dst, src, bytes + 1);
        return 0;
    }
    if (dst_len < sizeof dots || max_chars < 3) {
        dst[0] = '\0'; /* no room even for the dots */
        return 1;
    }
    /* The longest prefix of whole characters within the room left for the
     * dots (`whole`), and the longest that ends a word (`word`). */
    size_t room_chars = max_chars - 3, room_bytes = dst_len - sizeof dots;
    size_t i = 0, n = 0, whole = 0, word = 0;
    while (i < bytes) {
        size_t k = 1;
        while (i + k < bytes && ((unsigned char)src[i + k] & 0xC0) == 0x80)
            k++;
        if (is_space(src[i]) && i > 0 && !is_space(src[i - 1]))
            word = i;
        if (n + 1 > room_chars || i + k > room_bytes)
            break;
        i += k;
        n++;
        whole = i;
    }
    /* A long word (a metric name, a path) is cut between two characters
     * rather than dropped whole when its start would fill the room. */
    size_t len = word && 2 * word >= whole ? word : whole;
    /* No dangling separator before the dots ("word,..."). */
    while (len > 0 && (is_space(src[len - 1]) || strchr(",;:(.", src[len - 1])))
        len--;
    memcpy(dst, src, len);
    memcpy(dst + len, dots, sizeof dots);
    return 1;
}

void cml_record_note(cml_record *rec, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rec->note, sizeof rec->note, fmt, ap);
    va_end(ap);
}
