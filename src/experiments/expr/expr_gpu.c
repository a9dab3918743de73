/*
 * Experiment 18 on the GPU (expr.h): the point's kernel generated
 * (expr_codegen.c), compiled by NVRTC for this device's architecture,
 * loaded through the runtime's library API (gpu/module.h), timed by the
 * harness with its counters pass, and checked on the host:
 *   loads   every thread's 8-byte result equals the fold of the element at
 *           its index, recomputed from the fill's seed;
 *   stores  every element the model says is written holds value(index),
 *           every other one still holds the poison (all bytes 0xFF);
 *   copies  every written element holds the source element of a thread
 *           that writes it (several writers of one element: any of theirs).
 * NVRTC is opened once per process, so its cache of compiled kernels
 * outlives a run: `validate` after the tour compiles nothing twice.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "counters/counters.h"
#include "experiments/expr/expr.h"
#include "gpu/host_fill.h"
#include "gpu/module.h"
#include "gpu/nvrtc.h"
#include "lab/common.h"
#include "lab/counters_pass.h"

enum { SEED_SRC = 0x5EED5 };

/* ---- NVRTC, once per process ------------------------------------------ */

static struct {
    int tried;
    cml_nvrtc *nv;
    char why[256];
    /* the first compile's time of each kernel, by its cached image */
    struct { const void *cubin; double ms; } first[256];
    size_t nfirst;
} proc;

cml_status cml_expr_nvrtc(cml_nvrtc **out, char *why, size_t len)
{
    if (!proc.tried) {
        proc.tried = 1;
        if (cml_nvrtc_open(&proc.nv, proc.why, sizeof proc.why) != CML_OK)
            proc.nv = NULL;
    }
    *out = proc.nv;
    if (!proc.nv) {
        snprintf(why, len, "%s", proc.why);
        return CML_EUNSUPPORTED;
    }
    return CML_OK;
}

static double first_compile_ms(const cml_nvrtc_result *r)
{
    for (size_t k = 0; k < proc.nfirst; k++)
        if (proc.first[k].cubin == r->cubin)
            return proc.first[k].ms;
    if (!r->cached && proc.nfirst < CML_COUNT(proc.first)) {
        proc.first[proc.nfirst].cubin = r->cubin;
        proc.first[proc.nfirst++].ms = r->compile_ms;
    }
    return r->compile_ms;
}

/* ---- host recomputation ----------------------------------------------- */

/* `w` bytes at byte offset `off` of a buffer filled with random floats of
 * `seed` (cml_gpu_fill_f32: float k = cml_random_f32(seed, k)). */
static void src_bytes(uint64_t seed, uint64_t off, unsigned w, unsigned char *out)
{
    for (unsigned k = 0; k < w; k++) {
        uint64_t o = off + k;
        float f = cml_random_f32(seed, o / 4);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        out[k] = (unsigned char)(bits >> (8 * (o % 4)));
    }
}

static uint64_t le(const unsigned char *b, unsigned w)
{
    uint64_t v = 0;
    for (unsigned k = w; k-- > 0;)
        v = v << 8 | b[k];
    return v;
}

/* The kernel's cml_fold of an element's bytes. */
static uint64_t fold(const unsigned char *b, unsigned w)
{
    if (w < 16)
        return le(b, w);
    return (le(b + 4, 4) << 32 | le(b, 4)) ^ (le(b + 12, 4) << 32 | le(b + 8, 4));
}

/* The kernel's cml_value(j) as bytes. */
static void value_bytes(int64_t j, unsigned w, unsigned char *out)
{
    uint64_t h = (uint64_t)j * 0x9E3779B97F4A7C15ull + 1u;
    if (w < 16) {
        for (unsigned k = 0; k < w; k++)
            out[k] = (unsigned char)(h >> (8 * k));
        return;
    }
    uint32_t v[4] = {(uint32_t)h, (uint32_t)(h >> 32), (uint32_t)~h, (uint32_t)(j + 1)};
    for (unsigned k = 0; k < 16; k++)
        out[k] = (unsigned char)(v[k / 4] >> (8 * (k % 4)));
}

static int is_poison(const unsigned char *b, unsigned w)
{
    for (unsigned k = 0; k < w; k++)
        if (b[k] != 0xFF)
            return 0;
    return 1;
}

typedef struct tally {
    unsigned long long bad, first;
} tally;

static void wrong(tally *t, uint64_t index)
{
    if (t->bad++ == 0 || index < t->first)
        t->first = index;
}

/* Bitmaps that parts of a check set at the same time: bytes changed
 * atomically (relaxed: the parts are joined before anything reads them). */
typedef atomic_uchar abyte;

static abyte *bitmap(uint64_t bits)
{
    return calloc(bits / 8 + 1, sizeof(abyte));
}

/* Set bit k; its value before. */
static int bit_set(abyte *m, uint64_t k)
{
    const unsigned char bit = (unsigned char)(1u << (k % 8));
    return (atomic_fetch_or_explicit(&m[k / 8], bit, memory_order_relaxed) & bit) != 0;
}

static int bit_get(abyte *m, uint64_t k)
{
    return (atomic_load_explicit(&m[k / 8], memory_order_relaxed) >> (k % 8)) & 1u;
}

/* The parts' tallies into one: their counts summed, the lowest first. */
static void merge(tally *t, const tally *parts, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (parts[k].bad) {
            if (t->bad == 0 || parts[k].first < t->first)
                t->first = parts[k].first;
            t->bad += parts[k].bad;
        }
}

typedef struct expr_check {
    const cml_plan *plan;
    const cml_expr_point *p;
    cml_dbuf *dst, *out;
    cml_expr_state *st;             /* its host buffer */
} expr_check;

/* The run's host buffer, at least `bytes` long (NULL: out of memory). */
static void *host_buffer(const expr_check *c, size_t bytes)
{
    cml_expr_state *st = c->st;
    if (st->host_bytes < bytes) {
        free(st->host);
        st->host = malloc(bytes);
        st->host_bytes = st->host ? bytes : 0;
    }
    return st->host;
}

/* One check split over the host's cores (cml_host_parallel; tens of
 * millions of threads at DRAM sizes): what the parts share, and each
 * part's own tally. */
typedef struct check_parts {
    const cml_expr_point *p;
    const uint64_t *loaded;         /* loads: the threads' folded results */
    const unsigned char *host;      /* stores: the destination array */
    abyte *written, *several, *matched;
    tally t[CML_HOST_MAX_PARTS];
    int oom[CML_HOST_MAX_PARTS];    /* a part could not get its memory */
} check_parts;

static void check_load_part(void *user, size_t part, size_t lo, size_t hi)
{
    check_parts *cp = user;
    const cml_expr_point *p = cp->p;
    for (uint64_t i = lo; i < hi; i++) {
        int64_t idx = cml_expr_point_eval(p, p->index, i);
        unsigned char b[16];
        src_bytes(SEED_SRC, p->base + (uint64_t)idx * p->elem, p->elem, b);
        if (cp->loaded[i] != fold(b, p->elem))
            wrong(&cp->t[part], i);
    }
}

/* Loads: every thread's folded result against the element it read,
 * recomputed from the fill's seed. */
static cml_status check_load(const expr_check *c, tally *t)
{
    const cml_expr_point *p = c->p;
    uint64_t *host = host_buffer(c, p->out_bytes);
    if (!host)
        return CML_ENOMEM;
    cml_status st = cml_gpu_download(c->plan->gpu, host, c->out, p->out_bytes);
    if (st == CML_OK) {
        check_parts cp;
        memset(&cp, 0, sizeof cp);
        cp.p = p;
        cp.loaded = host;
        merge(t, cp.t, cml_host_parallel(p->threads, 1u << 20, check_load_part, &cp));
    }
    return st;
}

/* The elements the threads write; those written by several. */
static void mark_written_part(void *user, size_t part, size_t lo, size_t hi)
{
    (void)part;
    check_parts *cp = user;
    for (uint64_t i = lo; i < hi; i++) {
        uint64_t k = (uint64_t)cml_expr_point_eval(cp->p, cp->p->index, i);
        if (bit_set(cp->written, k) && cp->several)
            bit_set(cp->several, k);
    }
}

/* Copies: each writer's source element: right for an element with one
 * writer; one match is enough for an element with several. */
static void check_copy_part(void *user, size_t part, size_t lo, size_t hi)
{
    check_parts *cp = user;
    const cml_expr_point *p = cp->p;
    const unsigned w = p->elem;
    unsigned char b[16];
    for (uint64_t i = lo; i < hi; i++) {
        uint64_t k = (uint64_t)cml_expr_point_eval(p, p->index, i);
        int64_t s = p->src ? cml_expr_point_eval(p, p->src, i) : (int64_t)i;
        src_bytes(SEED_SRC, p->base + (uint64_t)s * w, w, b);
        int same = memcmp(cp->host + p->base + k * w, b, w) == 0;
        if (bit_get(cp->several, k)) {
            if (same)
                bit_set(cp->matched, k);
        } else if (!same) {
            wrong(&cp->t[part], k);
        }
    }
}

/* Every element: the value (store), a matched source (copy), or still the
 * poison where no thread writes. */
static void check_elements_part(void *user, size_t part, size_t lo, size_t hi)
{
    check_parts *cp = user;
    const cml_expr_point *p = cp->p;
    const unsigned w = p->elem;
    const int copy = p->kernel.op == CML_EXPR_COPY;
    unsigned char b[16];
    for (uint64_t k = lo; k < hi; k++) {
        const unsigned char *e = cp->host + p->base + k * w;
        if (!bit_get(cp->written, k)) {
            if (!is_poison(e, w))
                wrong(&cp->t[part], k);
        } else if (copy) {
            if (bit_get(cp->several, k) && !bit_get(cp->matched, k))
                wrong(&cp->t[part], k);
        } else {
            value_bytes((int64_t)k, w, b);
            if (memcmp(e, b, w) != 0)
                wrong(&cp->t[part], k);
        }
    }
}

/* Global stores and copies: element k of the n is at dst + base + k*elem. */
static cml_status check_global_write(const expr_check *c, tally *t)
{
    const cml_expr_point *p = c->p;
    const int copy = p->kernel.op == CML_EXPR_COPY;
    check_parts cp;
    memset(&cp, 0, sizeof cp);
    cp.p = p;
    unsigned char *host = host_buffer(c, p->dst_bytes);
    cp.host = host;
    cp.written = bitmap(p->n);
    cp.several = copy ? bitmap(p->n) : NULL;
    cp.matched = copy ? bitmap(p->n) : NULL;
    cml_status st = CML_ENOMEM;
    if (!host || !cp.written || (copy && (!cp.several || !cp.matched)))
        goto done;
    st = cml_gpu_download(c->plan->gpu, host, c->dst, p->dst_bytes);
    if (st != CML_OK)
        goto done;
    /* in three passes, each over all its items before the next reads them */
    (void)cml_host_parallel(p->threads, 1u << 20, mark_written_part, &cp);
    if (copy)
        merge(t, cp.t, cml_host_parallel(p->threads, 1u << 20, check_copy_part, &cp));
    memset(cp.t, 0, sizeof cp.t);
    merge(t, cp.t, cml_host_parallel(p->n, 1u << 20, check_elements_part, &cp));
done:
    free(cp.written);
    free(cp.several);
    free(cp.matched);
    return st;
}

/* Shared stores: each block's tile copied to dst, tile_len elements each;
 * the blocks split over the host's cores, each part with its own map. */
static void check_shared_part(void *user, size_t part, size_t lo, size_t hi)
{
    check_parts *cp = user;
    const cml_expr_point *p = cp->p;
    const unsigned w = p->elem;
    abyte *written = bitmap(p->tile_len);
    if (!written) {
        cp->oom[part] = 1; /* the check fails as out of memory, not as wrong */
        return;
    }
    for (uint64_t b = lo; b < hi; b++) {
        for (uint64_t k = 0; k < p->tile_len / 8 + 1; k++)
            atomic_store_explicit(&written[k], 0, memory_order_relaxed);
        for (uint64_t i = b * p->block; i < (b + 1) * p->block && i < p->threads; i++)
            bit_set(written, (uint64_t)cml_expr_point_eval(p, p->index, i));
        for (uint64_t k = 0; k < p->tile_len; k++) {
            const unsigned char *e = cp->host + (b * p->tile_len + k) * w;
            unsigned char v[16];
            value_bytes((int64_t)k, w, v);
            if (bit_get(written, k) ? memcmp(e, v, w) != 0 : !is_poison(e, w))
                wrong(&cp->t[part], b * p->tile_len + k);
        }
    }
    free(written);
}

static cml_status check_shared_store(const expr_check *c, tally *t)
{
    const cml_expr_point *p = c->p;
    unsigned char *host = host_buffer(c, p->dst_bytes);
    if (!host)
        return CML_ENOMEM;
    cml_status st = cml_gpu_download(c->plan->gpu, host, c->dst, p->dst_bytes);
    if (st == CML_OK) {
        check_parts cp;
        memset(&cp, 0, sizeof cp);
        cp.p = p;
        cp.host = host;
        const size_t parts = cml_host_parallel(p->grid, 64, check_shared_part, &cp);
        merge(t, cp.t, parts);
        for (size_t k = 0; k < parts; k++)
            if (cp.oom[k])
                st = CML_ENOMEM;
    }
    return st;
}

/* The harness's checker contract: the counts go to d_counters[0..1]. */
static cml_status expr_check_cb(void *vctx, unsigned long long *d_counters)
{
    const expr_check *c = vctx;
    tally t = {0, ~0ull};
    cml_status st;
    if (c->p->kernel.op == CML_EXPR_LOAD)
        st = check_load(c, &t);
    else if (c->p->kernel.space == CML_SPACE_SHARED)
        st = check_shared_store(c, &t);
    else
        st = check_global_write(c, &t);
    if (st != CML_OK)
        return st;
    unsigned long long host[2] = {t.bad, t.first};
    cml_dbuf counters = {d_counters, sizeof host, 0};
    return cml_gpu_upload(c->plan->gpu, &counters, host, sizeof host);
}

/* ---- launching -------------------------------------------------------- */

/* Everything a launch needs, copied by the counters pass. */
typedef struct expr_launch {
    const void *kernel;
    cml_dim3 grid, block;
    size_t smem;
    const void *src;
    void *dst;
    void *out;
    long long n, threads, tile_len;
} expr_launch;

static cml_status expr_launch_fn(void *vctx)
{
    expr_launch *a = vctx;
    /* The generated kernel's parameters, in order (expr_kernel.h). */
    void *args[] = {(void *)&a->src, &a->dst, &a->out, &a->n, &a->threads, &a->tile_len};
    return cml_module_launch(a->kernel, a->grid, a->block, a->smem, args);
}

/* The kernel of `cubin`, loaded once per run; a constant-memory kernel
 * gets its bank filled with the same random bytes a source array holds. */
static cml_status load_kernel(cml_sweep *ctx, const cml_nvrtc_result *r, const cml_expr_point *p,
                              const void **kernel)
{
    cml_expr_state *st = ctx->state;
    for (size_t k = 0; k < st->nloaded; k++)
        if (st->loaded[k].cubin == r->cubin) {
            *kernel = st->loaded[k].kernel;
            return CML_OK;
        }
    if (st->nloaded == st->caploaded) {
        size_t cap = st->caploaded ? 2 * st->caploaded : 8;
        cml_expr_loaded *q = realloc(st->loaded, cap * sizeof *q);
        if (!q)
            return CML_ENOMEM;
        st->loaded = q;
        st->caploaded = cap;
    }
    cml_gpu *g = ctx->plan->gpu;
    cml_module *m = NULL;
    cml_status rc = cml_module_load(g, r->cubin, &m);
    if (rc != CML_OK)
        return rc;
    rc = cml_module_kernel(m, CML_EXPR_KERNEL_NAME, kernel);
    if (rc == CML_OK && p->kernel.space == CML_SPACE_CONSTANT) {
        void *bank = NULL;
        size_t bytes = 0;
        rc = cml_module_global(m, CML_EXPR_CONST_NAME, &bank, &bytes);
        unsigned char *host = rc == CML_OK ? malloc(bytes) : NULL;
        if (rc == CML_OK && !host)
            rc = CML_ENOMEM;
        for (size_t o = 0; host && o < bytes; o += 4)
            src_bytes(SEED_SRC, o, bytes - o < 4 ? (unsigned)(bytes - o) : 4, host + o);
        if (rc == CML_OK) {
            cml_dbuf b = {bank, bytes, 0};
            rc = cml_gpu_upload(g, &b, host, bytes);
        }
        free(host);
    }
    if (rc != CML_OK) {
        cml_module_unload(m);
        return rc;
    }
    st->loaded[st->nloaded].cubin = r->cubin;
    st->loaded[st->nloaded].module = m;
    st->loaded[st->nloaded++].kernel = *kernel;
    return CML_OK;
}

/* Generate and compile the point's kernel; its compile times as extras. */
static cml_status compile(cml_sweep *ctx, cml_nvrtc *nv, const cml_expr_point *p,
                          cml_record *rec, cml_nvrtc_result *res)
{
    char *source = NULL;
    cml_status rc = cml_expr_kernel_source(&p->kernel, &source);
    if (rc != CML_OK) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "generating the kernel: %s", cml_status_str(rc));
        return rc;
    }
    const cml_device_facts *dev = ctx->plan->dev;
    char err[1024] = "";
    rc = cml_nvrtc_compile(nv, source, dev->cc_major, dev->cc_minor, res, err, sizeof err);
    cml_nvrtc_result again;
    if (rc == CML_OK)
        rc = cml_nvrtc_compile(nv, source, dev->cc_major, dev->cc_minor, &again, err,
                               sizeof err);
    free(source);
    if (rc != CML_OK) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "NVRTC (sm_%d%d): %s", dev->cc_major, dev->cc_minor, err);
        return rc;
    }
    /* The first compile in this process (what a new expression costs) and
     * a lookup in the cache (what it costs again). */
    cml_record_add_extra(rec, "compile_ms", first_compile_ms(res), "ms");
    cml_record_add_extra(rec, "cached_compile_ms", again.compile_ms, "ms");
    return CML_OK;
}

cml_status cml_expr_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const cml_expr_settings *s = vs;
    cml_expr_state *st = ctx->state;
    if (!st->have_point || st->point_index != ctx->point)
        return CML_EINVAL;
    const cml_expr_point *p = &st->point;
    const cml_plan *plan = ctx->plan;
    cml_nvrtc *nv = NULL;
    char why[256];
    if (cml_expr_nvrtc(&nv, why, sizeof why) != CML_OK) {
        /* Once per run, and the record keeps the model's figures. */
        if (!st->nvrtc_said) {
            st->nvrtc_said = 1;
            if (!strncmp(why, "NVRTC not found", 15))
                cml_results_diag(ctx->out, CML_DIAG_WARNING, ctx->exp->key,
                                 "NVRTC not found: install the CUDA toolkit's nvrtc library; "
                                 "the model is shown instead");
            else
                cml_results_diag(ctx->out, CML_DIAG_WARNING, ctx->exp->key,
                                 "%s; the model is shown instead", why);
        }
        return CML_OK;
    }
    cml_nvrtc_result res;
    cml_status rc = compile(ctx, nv, p, rec, &res);
    if (rc != CML_OK)
        return rc;
    const void *kernel = NULL;
    rc = load_kernel(ctx, &res, p, &kernel);
    if (rc != CML_OK)
        return rc;
    if (p->smem > 48u * 1024u && (rc = cml_module_set_smem(plan->gpu, kernel, p->smem)) != CML_OK)
        return rc;
    size_t smem = p->smem;
    if (s->residency == CML_RESIDENCY_ONE) {
        rc = cml_exp_one_block_per_sm(ctx, rec, kernel, (unsigned)p->block, p->smem, &smem);
        if (rc)
            return rc == CML_EUNSUPPORTED ? CML_OK : rc;
    }
    cml_dbuf *src = NULL, *dst = NULL, *out = NULL;
    if (p->src_bytes && !(src = cml_sweep_buffer(ctx, rec, 0, p->src_bytes, SEED_SRC)))
        return CML_ECUDA;
    if (p->dst_bytes && !(dst = cml_sweep_buffer(ctx, rec, 1, p->dst_bytes, 0)))
        return CML_ECUDA;
    if (p->out_bytes && !(out = cml_sweep_buffer(ctx, rec, 2, p->out_bytes, 0)))
        return CML_ECUDA;
    expr_launch la;
    memset(&la, 0, sizeof la);
    la.kernel = kernel;
    la.grid = cml_dim1(p->grid);
    la.block = cml_dim2(p->bdx, p->bdy);
    la.smem = smem;
    /* The indexed arrays start `base` bytes into their buffers. */
    la.src = src ? (const char *)src->ptr + p->base : NULL;
    la.dst = dst ? (char *)dst->ptr + p->base : NULL;
    la.out = out ? out->ptr : NULL;
    la.n = (long long)p->n;
    la.threads = (long long)p->threads;
    la.tile_len = (long long)p->tile_len;
    expr_check chk = {plan, p, dst, out, ctx->state};
    rc = cml_exp_measure(plan, rec, out ? out : dst, expr_launch_fn, &la, kernel,
                         (unsigned)p->block, smem, expr_check_cb, &chk);
    if (rc != CML_OK)
        return rc;
    char text[sizeof rec->finding];
    snprintf(text, sizeof text, "%s", rec->finding);
    cml_exp_finding_measured(rec, text);
    return CML_OK;
}

void cml_expr_release(cml_sweep *ctx)
{
    cml_expr_state *st = ctx->state;
    /* Queued counters passes launch these kernels: run them before the
     * libraries go (the engine flushes after release, too late for that).
     * Then the profiler lets go of the functions it saw run: it must not
     * outlive the code it points at (counters.h, cml_counters_detach). */
    if (st->nloaded) {
        cml_counters_pass_flush(ctx->plan->counters_pass);
        cml_counters_detach(ctx->plan->profiler);
    }
    for (size_t k = 0; k < st->nloaded; k++)
        cml_module_unload(st->loaded[k].module);
    free(st->host);
    st->host = NULL;
    st->host_bytes = 0;
    free(st->loaded);
    st->loaded = NULL;
    st->nloaded = st->caploaded = 0;
    if (st->have_point)
        cml_expr_point_free(&st->point);
    st->have_point = 0;
}
