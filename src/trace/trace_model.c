/*
 * The model over a recorded launch (trace_model.h). One pass over the
 * records: each goes through cml_model_access into its site's figures and
 * its class's, and (global and local ones) into the wave being gathered
 * for the cache simulator; a wave is fed when the records reach the next
 * wave's blocks (records come by block, so a wave's are contiguous).
 */
#include "trace/trace_model.h"

#include <stdlib.h>
#include <string.h>

/* Bytes a shared-memory wavefront moves at most: 32 banks of 4 bytes. */
#define WAVEFRONT_BYTES (CML_SHARED_BANKS * CML_BANK_BYTES)

int cml_tf_access(const cml_tf_ins *r, cml_access *a)
{
    static const cml_space space[CML_TF_SPACES] = {CML_SPACE_GLOBAL, CML_SPACE_SHARED,
                                                   CML_SPACE_LOCAL};
    if (r->op == CML_TF_ATOMIC || r->space >= CML_TF_SPACES || r->op >= CML_TF_OPS)
        return -1;
    memset(a, 0, sizeof *a);
    a->space = space[r->space];
    a->op = r->op == CML_TF_STORE ? CML_OP_STORE : CML_OP_LOAD;
    a->cache = CML_CACHE_CA;
    a->width = r->size;
    a->active = r->active;
    memcpy(a->addr, r->addr, sizeof a->addr);
    return 0;
}

int cml_tf_model_ins(const cml_tf_ins *r, cml_traffic *t)
{
    cml_access a;
    memset(t, 0, sizeof *t);
    if (cml_tf_access(r, &a) != 0)
        return -1;
    return cml_model_access(CML_RULES_MODERN, &a, t) == CML_OK ? 0 : -1;
}

/* ---- sites by (function, pc): an open-addressing table of indices ------- */

typedef struct site_table {
    cml_tf_site *sites;
    size_t n, cap;       /* sites */
    uint32_t *slot;      /* [nslots]: site index + 1, 0 empty */
    size_t nslots;
} site_table;

static size_t hash(uint32_t func, uint32_t pc, size_t nslots)
{
    uint64_t h = ((uint64_t)func << 32 | pc) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (nslots - 1u);
}

static cml_status rehash(site_table *st)
{
    size_t ns = st->nslots ? st->nslots * 2u : 64u;
    uint32_t *slot = calloc(ns, sizeof *slot);
    if (!slot)
        return CML_ENOMEM;
    for (size_t i = 0; i < st->n; i++) {
        size_t h = hash(st->sites[i].func, st->sites[i].pc, ns);
        while (slot[h])
            h = (h + 1u) & (ns - 1u);
        slot[h] = (uint32_t)(i + 1u);
    }
    free(st->slot);
    st->slot = slot;
    st->nslots = ns;
    return CML_OK;
}

/* The site of r, made on first sight (its first record is its example). */
static cml_tf_site *site_of(site_table *st, const cml_tf_ins *r)
{
    if (st->n * 2u >= st->nslots && rehash(st) != CML_OK)
        return NULL;
    size_t h = hash(r->func, r->pc, st->nslots);
    while (st->slot[h]) {
        cml_tf_site *s = &st->sites[st->slot[h] - 1u];
        if (s->func == r->func && s->pc == r->pc)
            return s;
        h = (h + 1u) & (st->nslots - 1u);
    }
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2u : 16u;
        cml_tf_site *s = realloc(st->sites, cap * sizeof *s);
        if (!s)
            return NULL;
        st->sites = s;
        st->cap = cap;
    }
    cml_tf_site *s = &st->sites[st->n];
    memset(s, 0, sizeof *s);
    s->func = r->func;
    s->pc = r->pc;
    s->space = r->space;
    s->op = r->op;
    s->size = r->size;
    s->example = *r;
    st->slot[h] = (uint32_t)++st->n;
    return s;
}

/* ---- the waves of the cache levels ------------------------------------------ */

typedef struct waves {
    cml_cache_sim *sim;
    unsigned sms;
    uint64_t wave_blocks;      /* blocks resident at once on every SM */
    uint64_t warps_per_block;
    uint64_t wave_end;         /* the current wave is blocks below this */
    cml_cache_wave q;          /* the current wave's warps (cache.h) */
    uint64_t last_block;
    uint32_t last_warp;
} waves;

/* Add one global or local instruction of block b, warp w. */
static cml_status wave_add(waves *v, uint64_t b, uint32_t warp, const cml_access *a)
{
    if (b >= v->wave_end) {
        cml_status rc = cml_cache_wave_flush(&v->q, v->sim);
        if (rc != CML_OK)
            return rc;
        v->wave_end = (b / v->wave_blocks + 1u) * v->wave_blocks;
    }
    if (v->q.nw == 0 || b != v->last_block || warp != v->last_warp) {
        const unsigned resident = (unsigned)(v->wave_blocks / v->sms);
        cml_status rc = cml_cache_wave_begin(
            &v->q, (unsigned)(b % v->sms),
            cml_cache_warp_slot(v->sms, resident, (unsigned)v->warps_per_block, b, warp));
        if (rc != CML_OK)
            return rc;
        v->last_block = b;
        v->last_warp = warp;
    }
    return cml_cache_wave_add(&v->q, a);
}

/* The cache levels' assumptions for launch k of t (trace_model.h). */
static void cache_config(const cml_trace *t, const cml_tf_kernel *k, cml_cache_config *c)
{
    cml_cache_config_h100(c);
    if (t->sms)
        c->sm_count = t->sms;
    if (t->l2_bytes >= CML_LINE_BYTES)
        c->l2_bytes = t->l2_bytes;
    c->smem_per_block = k->smem;
}

uint64_t cml_tf_waste(unsigned space, const cml_traffic *x)
{
    if (space == CML_TF_SHARED)
        return x->bank_conflicts * WAVEFRONT_BYTES;
    return x->sectors * CML_SECTOR_BYTES > x->requested_bytes
               ? x->sectors * CML_SECTOR_BYTES - x->requested_bytes
               : 0;
}

static int by_waste(const void *pa, const void *pb)
{
    const cml_tf_site *a = pa, *b = pb;
    if (a->waste != b->waste)
        return a->waste > b->waste ? -1 : 1;
    if (a->func != b->func)
        return a->func < b->func ? -1 : 1;
    return a->pc < b->pc ? -1 : a->pc > b->pc;
}

cml_status cml_tf_model_kernel(const cml_trace *t, const cml_tf_kernel *k, cml_tf_model *out)
{
    memset(out, 0, sizeof *out);
    out->no_levels = "";
    site_table st;
    memset(&st, 0, sizeof st);
    waves v;
    memset(&v, 0, sizeof v);
    cache_config(t, k, &out->cache);
    const uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    cml_status rc = CML_OK;
    if (cml_cache_config_check(&out->cache) != CML_OK) {
        out->no_levels = "the launch's shared memory per block is more than an SM has";
    } else {
        rc = cml_cache_sim_new(&out->cache, threads, &v.sim);
        v.sms = out->cache.sm_count;
        v.wave_blocks = (uint64_t)v.sms * cml_cache_resident_blocks(&out->cache, threads);
        v.warps_per_block = (threads + CML_WARP_SIZE - 1u) / CML_WARP_SIZE;
    }
    cml_tf_cursor c;
    cml_tf_ins r;
    cml_tf_cursor_init(&c, k);
    int memory = 0; /* any global or local instruction (the levels have something to say) */
    while (rc == CML_OK && cml_tf_next(&c, &r)) {
        out->records++;
        cml_tf_site *s = site_of(&st, &r);
        if (!s) {
            rc = CML_ENOMEM;
            break;
        }
        s->records++;
        cml_access a;
        if (cml_tf_access(&r, &a) != 0) {
            out->atomics++;
            continue;
        }
        cml_traffic one;
        memset(&one, 0, sizeof one);
        if (cml_model_access(CML_RULES_MODERN, &a, &one) != CML_OK) {
            s->refused++;
            out->refused++;
            continue;
        }
        cml_traffic_add(&s->traffic, &one);
        /* the textbook's rules beside them (a valid access under the modern
         * rules is valid under the Fermi rules too) */
        cml_model_access(CML_RULES_FERMI, &a, &s->fermi);
        cml_traffic_add(&out->cls.cls[cml_class_of(a.space, a.op)], &one);
        /* Shared instructions too: the simulator passes them by, but they
         * hold their warp's turn in the interleave, as in a mirror's. */
        if (v.sim) {
            memory |= a.space != CML_SPACE_SHARED;
            rc = wave_add(&v, r.block, r.warp, &a);
        }
    }
    if (rc == CML_OK && v.sim)
        rc = cml_cache_wave_flush(&v.q, v.sim);
    if (rc == CML_OK && v.sim && memory) {
        cml_cache_sim_levels(v.sim, &out->levels);
        out->levels.simulated_blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
        out->levels.settled = 1;
        out->has_levels = 1;
        if (k->stride > 1 || k->warps_lost)
            out->no_levels = "of the recorded warps only: the launch was sampled";
    } else if (rc == CML_OK && v.sim) {
        out->no_levels = "no global or local memory instruction";
    }
    cml_cache_sim_free(v.sim);
    cml_cache_wave_free(&v.q);
    free(st.slot);
    if (rc != CML_OK) {
        free(st.sites);
        memset(out, 0, sizeof *out);
        return rc;
    }
    for (size_t i = 0; i < st.n; i++)
        st.sites[i].waste = cml_tf_waste(st.sites[i].space, &st.sites[i].traffic);
    if (st.n)
        qsort(st.sites, st.n, sizeof *st.sites, by_waste);
    out->sites = st.sites;
    out->nsites = st.n;
    return CML_OK;
}

void cml_tf_model_free(cml_tf_model *m)
{
    free(m->sites);
    memset(m, 0, sizeof *m);
}
