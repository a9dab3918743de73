/*
 * The sweep engine: walks the cross product of an experiment's options and
 * calls its pieces at every point (experiment.h says the contract).
 *
 * Order: the first declared option varies fastest, so an experiment lists
 * the option it sweeps first and the ones it groups by after it (offset,
 * then path, then block: one line per path and block on a chart). An
 * option whose `applies` condition does not hold at a point is set to 0,
 * swept once and left out of the record and the variant name.
 */
#include "lab/sweep.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/common.h"

/* A buffer the engine owns for the run: cml_sweep_buffer's slots. */
struct cml_sweep_buffer {
    unsigned slot;
    cml_dbuf buf;
    uint64_t seed; /* filled with this seed (0: not filled) */
};

typedef struct walk {
    cml_sweep *ctx;
    const cml_param_values *pv;
    size_t points, done;         /* for plan->progress: the sweep's size, points begun */
    int counting;                /* a dry walk that only counts the points */
    unsigned char *point;        /* the settings struct being filled */
    int applies[CML_MAX_PARAMS]; /* at the current point */
    cml_status fatal;            /* stops the walk: out of memory, a CUDA error */
} walk;

static int64_t *field_of(const cml_param_def *d, unsigned char *settings)
{
    return (int64_t *)(void *)(settings + (d->field - 1));
}

cml_status cml_sweep_check_row(const cml_experiment *exp, char *err, size_t errlen)
{
    if (!exp->variant) {
        snprintf(err, errlen, "%s: no variant function", exp->key);
        return CML_EINVAL;
    }
    if (exp->noptions > CML_MAX_PARAMS) {
        snprintf(err, errlen, "%s: %zu options (at most %d)", exp->key, exp->noptions,
                 CML_MAX_PARAMS);
        return CML_EINVAL;
    }
    for (size_t i = 0; i < exp->noptions; i++) {
        const cml_param_def *d = &exp->options[i];
        if (d->field == 0 || d->field - 1 + sizeof(int64_t) > exp->settings_size ||
            (d->field - 1) % sizeof(int64_t) != 0) {
            snprintf(err, errlen, "%s: option --%s has no int64_t field inside its settings",
                     exp->key, d->name);
            return CML_EINVAL;
        }
        if (d->applies) {
            const char *eq = strchr(d->applies, '=');
            size_t len = eq ? (size_t)(eq - d->applies) : 0;
            size_t j = i + 1;
            while (j < exp->noptions &&
                   !(strlen(exp->options[j].name) == len &&
                     !strncmp(exp->options[j].name, d->applies, len)))
                j++;
            if (!eq || j == exp->noptions) {
                snprintf(err, errlen,
                         "%s: --%s applies \"%s\": not an option declared after it", exp->key,
                         d->name, d->applies);
                return CML_EINVAL;
            }
            cml_param_list l;
            char perr[256];
            if (cml_param_parse(&exp->options[j], eq + 1, &l, perr, sizeof perr) != CML_OK) {
                snprintf(err, errlen, "%s: --%s applies: %s", exp->key, d->name, perr);
                return CML_EINVAL;
            }
        }
    }
    return CML_OK;
}

/* Whether option `i` applies at the point: its condition names an option
 * declared after it, whose value is already set (checked by check_row). */
static int option_applies(const walk *w, size_t i)
{
    const cml_experiment *exp = w->ctx->exp;
    const char *cond = exp->options[i].applies;
    if (!cond)
        return 1;
    const char *eq = strchr(cond, '=');
    size_t len = (size_t)(eq - cond);
    for (size_t j = i + 1; j < exp->noptions; j++) {
        const cml_param_def *d = &exp->options[j];
        if (strlen(d->name) != len || strncmp(d->name, cond, len) != 0)
            continue;
        if (!w->applies[j])
            return 0;
        cml_param_list l;
        if (cml_param_parse(d, eq + 1, &l, NULL, 0) != CML_OK)
            return 0;
        int64_t v = *field_of(d, w->point);
        for (size_t k = 0; k < l.count; k++)
            if (l.v[k] == v)
                return 1;
        return 0;
    }
    return 0;
}

/*
 * The settings of every record since `first`, in chunks that never move:
 * a variant or measure function holds a pointer to its point's settings
 * while it adds records (cml_sweep_add_record), and that pointer must stay
 * valid (a realloc of one flat array freed it under the function).
 */
#define SETTINGS_CHUNK 64

static unsigned char *settings_slot(const cml_sweep *ctx, size_t k)
{
    size_t sz = ctx->exp->settings_size ? ctx->exp->settings_size : 1;
    return ctx->settings[k / SETTINGS_CHUNK] + (k % SETTINGS_CHUNK) * sz;
}

/* Keep a copy of the settings of record `index` for cml_sweep_settings_of:
 * `settings`, or (NULL) those of record `from`. */
static cml_status keep_settings(cml_sweep *ctx, size_t index, const void *settings, size_t from)
{
    size_t k = index - ctx->first, sz = ctx->exp->settings_size ? ctx->exp->settings_size : 1;
    size_t chunk = k / SETTINGS_CHUNK;
    if (chunk >= ctx->settings_chunks) {
        size_t n = ctx->settings_chunks ? ctx->settings_chunks * 2 : 4;
        while (n <= chunk)
            n *= 2;
        unsigned char **p = realloc(ctx->settings, n * sizeof *p);
        if (!p)
            return CML_ENOMEM;
        for (size_t c = ctx->settings_chunks; c < n; c++)
            p[c] = NULL;
        ctx->settings = p;
        ctx->settings_chunks = n;
    }
    if (!ctx->settings[chunk] && !(ctx->settings[chunk] = calloc(SETTINGS_CHUNK, sz)))
        return CML_ENOMEM;
    if (k >= ctx->settings_kept)
        ctx->settings_kept = k + 1;
    if (!settings)
        settings = settings_slot(ctx, from - ctx->first);
    if (ctx->exp->settings_size)
        memmove(settings_slot(ctx, k), settings, ctx->exp->settings_size);
    return CML_OK;
}

const void *cml_sweep_settings_of(const cml_sweep *ctx, size_t index)
{
    if (index < ctx->first || index - ctx->first >= ctx->settings_kept ||
        index >= ctx->out->count)
        return NULL;
    return settings_slot(ctx, index - ctx->first);
}

cml_record *cml_sweep_add_record(cml_sweep *ctx, const cml_record *like, const char *variant)
{
    /* `like` may live in ctx->out, which the add can move: copy first. */
    cml_record copy = *like;
    cml_record *rec = cml_results_add(ctx->out, ctx->exp->key, variant);
    if (!rec)
        return NULL;
    memcpy(rec->params, copy.params, sizeof rec->params);
    rec->nparams = copy.nparams;
    rec->cache = copy.cache;
    size_t index = ctx->out->count - 1;
    if (keep_settings(ctx, index, NULL, ctx->point) != CML_OK) {
        ctx->out->count--;
        return NULL;
    }
    return &ctx->out->items[index];
}

void cml_sweep_waive(cml_sweep *ctx, cml_record *rec, const char *fmt, ...)
{
    (void)ctx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rec->note, sizeof rec->note, fmt, ap);
    va_end(ap);
    rec->state = CML_REC_WAIVED;
}

/* "name=value" (or the choice's label) of every option that applies and
 * names the variant. */
static void default_variant(const walk *w, char *buf, size_t len)
{
    const cml_experiment *exp = w->ctx->exp;
    buf[0] = '\0';
    for (size_t i = 0; i < exp->noptions; i++) {
        const cml_param_def *d = &exp->options[i];
        if (!w->applies[i] || (d->flags & CML_PARAM_NOVARIANT))
            continue;
        int64_t v = *field_of(d, w->point);
        const char *label = cml_param_choice(d, v);
        if (label)
            cml_variant_add_label(buf, len, d->name, label);
        else
            cml_variant_add(buf, len, d->name, (long long)v);
    }
}

/* The record's parameters: every option that applies, as the variant
 * function left the settings. */
static void fill_params(const walk *w, cml_record *rec, const unsigned char *settings)
{
    const cml_experiment *exp = w->ctx->exp;
    rec->nparams = 0;
    for (size_t i = 0; i < exp->noptions; i++) {
        const cml_param_def *d = &exp->options[i];
        if (!w->applies[i])
            continue;
        int64_t v = *(const int64_t *)(const void *)(settings + (d->field - 1));
        cml_record_add_param(rec, d->name, v, cml_param_choice(d, v));
    }
}

/* Whether a status ends the experiment rather than the one record. */
static int is_fatal(cml_status st)
{
    return st == CML_ENOMEM || st == CML_ECUDA || st == CML_ENOGPU;
}

static void point(walk *w)
{
    cml_sweep *ctx = w->ctx;
    const cml_experiment *exp = ctx->exp;
    if (exp->keep && !exp->keep(ctx, w->point))
        return; /* a combination the experiment does not run */
    if (w->counting) {
        w->points++;
        return;
    }
    if (ctx->plan->progress)
        ctx->plan->progress(ctx->plan->progress_user, exp->key, w->done, w->points);
    w->done++;
    char variant[sizeof ctx->out->items[0].variant];
    default_variant(w, variant, sizeof variant);
    const size_t index = ctx->out->count;
    cml_record *rec = cml_results_add(ctx->out, exp->key, variant);
    ctx->point = index;
    if (!rec || keep_settings(ctx, index, w->point, 0) != CML_OK) {
        w->fatal = CML_ENOMEM;
        return;
    }
    unsigned char *settings = settings_slot(ctx, index - ctx->first); /* never moves */
    fill_params(w, rec, settings);
    cml_exp_cache_config(ctx->plan, &rec->cache);
    const double t0 = cml_gpu_clock();
    cml_status st = exp->variant(ctx, settings, rec);
    cml_gpu_phase_add(ctx->plan->gpu, CML_GPU_PHASE_MODEL, cml_gpu_clock() - t0);
    if (st == CML_SKIP_POINT) {
        ctx->out->count = index; /* this point, and anything added at it, is dropped */
        return;
    }
    /* Parameters as the variant left the settings, on every record of the point. */
    for (size_t i = index; i < ctx->out->count; i++) {
        const unsigned char *s = cml_sweep_settings_of(ctx, i);
        fill_params(w, &ctx->out->items[i], s ? s : settings);
    }
    rec = &ctx->out->items[index];
    if (st != CML_OK) {
        if (rec->state == CML_REC_OK) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "model: %s", cml_status_str(st));
        }
        if (is_fatal(st))
            w->fatal = st;
        return;
    }
    if (!ctx->plan->gpu || !exp->measure || rec->state != CML_REC_OK)
        return;
    st = exp->measure(ctx, settings, rec);
    rec = &ctx->out->items[index];
    if (st != CML_OK) {
        if (rec->state == CML_REC_OK)
            cml_exp_fail(ctx->plan, rec, st);
        if (is_fatal(st))
            w->fatal = st;
    }
}

static void sweep(walk *w, size_t level)
{
    cml_sweep *ctx = w->ctx;
    const cml_experiment *exp = ctx->exp;
    if (level == (size_t)-1) {
        point(w);
        return;
    }
    const cml_param_def *d = &exp->options[level];
    const cml_param_list *l = &w->pv->list[level];
    const size_t group = ctx->out->count;
    w->applies[level] = option_applies(w, level);
    size_t count = w->applies[level] ? l->count : 1;
    for (size_t k = 0; k < count && !w->fatal; k++) {
        *field_of(d, w->point) = w->applies[level] ? l->v[k] : 0;
        sweep(w, level - 1);
    }
    if (level == 0 && exp->summarize && !w->fatal && !w->counting && ctx->out->count > group)
        exp->summarize(ctx, group, ctx->out->count - 1);
}

size_t cml_sweep_points(const cml_experiment *exp, const cml_param_values *pv)
{
    if (exp->noptions == 0)
        return 1;
    cml_results none;
    cml_results_init(&none);
    cml_sweep ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.exp = exp;
    ctx.out = &none;
    ctx.values = pv;
    walk w;
    memset(&w, 0, sizeof w);
    w.ctx = &ctx;
    w.pv = pv;
    w.counting = 1;
    w.point = calloc(1, exp->settings_size ? exp->settings_size : 1);
    if (!w.point)
        return 0;
    sweep(&w, exp->noptions - 1);
    free(w.point);
    return w.points;
}

cml_status cml_sweep_run(const cml_experiment *exp, const cml_plan *plan,
                         const cml_param_values *pv, cml_results *out)
{
    cml_sweep ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.plan = plan;
    ctx.exp = exp;
    ctx.out = out;
    ctx.first = out->count;
    ctx.values = pv;
    walk w;
    memset(&w, 0, sizeof w);
    w.ctx = &ctx;
    w.pv = pv;
    w.point = calloc(1, exp->settings_size ? exp->settings_size : 1);
    if (exp->state_size)
        ctx.state = calloc(1, exp->state_size);
    if (!w.point || (exp->state_size && !ctx.state)) {
        free(w.point);
        free(ctx.state);
        return CML_ENOMEM;
    }
    /* The number of points first (a walk that calls nothing), when someone
     * shows progress: the cross product less what `applies` leaves out. */
    if (plan->progress && exp->noptions) {
        w.counting = 1;
        sweep(&w, exp->noptions - 1);
        w.counting = 0;
    } else {
        w.points = 1;
    }
    if (exp->noptions == 0)
        point(&w);
    else
        sweep(&w, exp->noptions - 1);
    if (exp->noptions == 0 && exp->summarize && !w.fatal && out->count > ctx.first)
        exp->summarize(&ctx, ctx.first, out->count - 1);
    if (exp->finish && !w.fatal)
        exp->finish(&ctx);
    if (exp->release)
        exp->release(&ctx);
    for (size_t i = 0; i < ctx.nbuffers; i++) {
        if (plan->gpu)
            cml_gpu_free(plan->gpu, &ctx.buffers[i]->buf);
        free(ctx.buffers[i]);
    }
    free(ctx.buffers);
    for (size_t c = 0; c < ctx.settings_chunks; c++)
        free(ctx.settings[c]);
    free(ctx.settings);
    free(ctx.state);
    free(w.point);
    return w.fatal;
}

cml_dbuf *cml_sweep_buffer(cml_sweep *ctx, cml_record *rec, unsigned slot, size_t bytes,
                           uint64_t seed)
{
    const cml_plan *plan = ctx->plan;
    struct cml_sweep_buffer *b = NULL;
    for (size_t i = 0; i < ctx->nbuffers; i++)
        if (ctx->buffers[i]->slot == slot)
            b = ctx->buffers[i];
    if (!b) {
        /* One allocation per slot: a pointer the experiment holds to an
         * earlier slot's buffer stays valid when a new slot is added. */
        struct cml_sweep_buffer **p =
            realloc(ctx->buffers, (ctx->nbuffers + 1) * sizeof *ctx->buffers);
        if (p)
            ctx->buffers = p;
        b = p ? calloc(1, sizeof *b) : NULL;
        if (!b) {
            cml_exp_fail(plan, rec, CML_ENOMEM);
            return NULL;
        }
        ctx->buffers[ctx->nbuffers++] = b;
        b->slot = slot;
    }
    if (b->buf.ptr && b->buf.bytes == bytes && b->seed == seed)
        return &b->buf;
    if (b->buf.ptr)
        cml_gpu_free(plan->gpu, &b->buf);
    b->seed = 0;
    cml_status st = cml_gpu_alloc(plan->gpu, &b->buf, bytes);
    if (!st && seed)
        st = cml_gpu_fill_f32(plan->gpu, &b->buf, bytes / sizeof(float), seed);
    if (st) {
        cml_exp_fail(plan, rec, st);
        if (b->buf.ptr)
            cml_gpu_free(plan->gpu, &b->buf);
        return NULL;
    }
    b->seed = seed;
    return &b->buf;
}
