/*
 * The reports of a trace (trace_report.h). The tables are the terminal
 * tables of the results (report/text_table.h), the JSON the results'
 * writer and its figures' objects (report/json_writer.h, cml_json_traffic,
 * cml_json_levels), the sentence about an instruction the one the lab
 * writes for a user's expression (cml_exp_explain), so that a trace reads
 * like the rest of the lab.
 */
#include "trace/trace_report.h"

#include <stdlib.h>
#include <string.h>

#include "lab/common.h"
#include "report/json_writer.h"
#include "report/report.h"
#include "report/report_util.h"
#include "report/text_table.h"
#include "trace/trace_measured.h"
#include "trace/trace_report_util.h"

#define WIDTH 130u

unsigned cml_tf_picture(const cml_tf_ins *r, char line[33])
{
    /* 32 lanes: at most 32 sectors or banks, 32 symbols */
    static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
    uint64_t key[CML_TF_LANES];
    unsigned n = 0;
    for (unsigned l = 0; l < CML_TF_LANES; l++) {
        line[l] = '.';
        if (!((r->active >> l) & 1u))
            continue;
        key[l] = r->space == CML_TF_SHARED ? (r->addr[l] / CML_BANK_BYTES) % CML_SHARED_BANKS
                                           : r->addr[l] / CML_SECTOR_BYTES;
    }
    line[CML_TF_LANES] = '\0';
    /* rank of each lane's key among the distinct keys (banks are their own
     * number) */
    for (unsigned l = 0; l < CML_TF_LANES; l++) {
        if (!((r->active >> l) & 1u))
            continue;
        unsigned below = 0, first = 1;
        for (unsigned m = 0; m < CML_TF_LANES; m++) {
            if (!((r->active >> m) & 1u))
                continue;
            if (key[m] == key[l] && m < l)
                first = 0;
            /* distinct keys below this lane's: count each at its first lane */
            if (key[m] < key[l]) {
                unsigned seen = 0;
                for (unsigned q = 0; q < m && !seen; q++)
                    seen = ((r->active >> q) & 1u) && key[q] == key[m];
                below += !seen;
            }
        }
        n += first;
        const uint64_t v = r->space == CML_TF_SHARED ? key[l] : below;
        line[l] = digits[v % CML_TF_LANES];
    }
    return n;
}

/* ---- text ---------------------------------------------------------------------- */

/* Fills row i of a table (of n rows) into row. */
typedef void (*fill_fn)(const cml_tf_report *r, const void *ctx, size_t i, const cml_tt *tt,
                        cml_tt_row row);

/* Measure every row, fit the table in WIDTH, print it panel by panel. */
static void print_table(FILE *out, cml_tt *tt, cml_tt_row row, const cml_tf_report *r,
                        const void *ctx, size_t n, fill_fn fill)
{
    for (size_t i = 0; i < n; i++) {
        cml_tt_clear(row, tt->ncol);
        fill(r, ctx, i, tt, row);
        cml_tt_measure(tt, row, CML_TT_NO_SPAN);
    }
    const size_t panels = cml_tt_fit(tt, WIDTH);
    for (size_t p = 0; p < panels; p++) {
        if (p)
            fputc('\n', out);
        cml_tt_print_header(tt, out, p);
        for (size_t i = 0; i < n; i++) {
            cml_tt_clear(row, tt->ncol);
            fill(r, ctx, i, tt, row);
            cml_tt_print_row(tt, out, row, CML_TT_NO_SPAN, NULL, WIDTH, p);
        }
    }
    char hidden[512];
    cml_tt_hidden_list(tt, hidden, sizeof hidden);
    if (hidden[0])
        fprintf(out, "(left out to fit %u columns: %s; --json and --csv carry every figure)\n",
                WIDTH, hidden);
}

static void dims(char *buf, size_t len, const uint32_t d[3])
{
    snprintf(buf, len, "%ux%ux%u", d[0], d[1], d[2]);
}

static void print_header(FILE *out, const cml_tf_report *r)
{
    const cml_trace *t = r->t;
    char l2[32] = "";
    if (t->l2_bytes)
        cml_fmt_bytes(l2, sizeof l2, (double)t->l2_bytes);
    fprintf(out, "cumemlab trace: %s\n", r->path);
    fprintf(out, "program: %s\n", t->command[0] ? t->command : "(not recorded)");
    char budget[32];
    cml_fmt_bytes(budget, sizeof budget, (double)t->budget);
    fprintf(out, "device: %s (sm_%u, %u SMs%s%s); kernels: %s; launch %llu of each; "
                 "budget %s\n",
            t->device[0] ? t->device : "unknown", t->sm, t->sms, l2[0] ? ", L2 " : "", l2,
            t->kernels[0] ? t->kernels : "every kernel", (unsigned long long)t->launch + 1u,
            budget);
    if (!t->complete)
        fputs("Incomplete: the trace ends without its END chunk (the program stopped before "
              "the library closed it); every launch it holds is reported.\n",
              out);
    if (t->truncated)
        fprintf(out, "Its last %zu bytes are a chunk cut short (a launch being written when "
                     "the program ended): left out.\n",
                t->truncated);
}

/* The launches' table: its columns, in the order added. */
enum { K_NAME, K_LAUNCH, K_GRID, K_BLOCK, K_WARPS, K_INS, K_LD, K_ST, K_EFF, K_CONF, K_DRAM };

static void kernel_row(const cml_tf_report *r, const void *ctx, size_t k, const cml_tt *tt,
                       cml_tt_row row)
{
    (void)ctx;
    (void)tt;
    const cml_tf_kernel *kn = &r->t->kernel[k];
    const cml_tf_model *m = &r->models[k];
    char buf[64];
    cml_tt_set(row, K_NAME, "%s", cml_tfr_func_name(r->t, kn->func));
    cml_tt_set(row, K_LAUNCH, "%llu", (unsigned long long)kn->launch + 1u);
    dims(buf, sizeof buf, kn->grid);
    cml_tt_set(row, K_GRID, "%s", buf);
    dims(buf, sizeof buf, kn->block);
    cml_tt_set(row, K_BLOCK, "%s", buf);
    cml_tt_set(row, K_WARPS, "%llu of %llu", (unsigned long long)kn->warps_recorded,
               (unsigned long long)kn->warps_total);
    cml_tt_set(row, K_INS, "%llu", (unsigned long long)m->records);
    cml_traffic g;
    memset(&g, 0, sizeof g);
    static const cml_class memory[4] = {CML_CLASS_GLOBAL_LD, CML_CLASS_GLOBAL_ST,
                                        CML_CLASS_LOCAL_LD, CML_CLASS_LOCAL_ST};
    for (unsigned c = 0; c < 4; c++)
        cml_traffic_add(&g, &m->cls.cls[memory[c]]);
    const cml_traffic *ld = &m->cls.cls[CML_CLASS_GLOBAL_LD];
    const cml_traffic *st = &m->cls.cls[CML_CLASS_GLOBAL_ST];
    if (ld->requests)
        cml_tt_set(row, K_LD, "%.2f", cml_traffic_sectors_per_request(ld));
    else
        cml_tt_set(row, K_LD, "-");
    if (st->requests)
        cml_tt_set(row, K_ST, "%.2f", cml_traffic_sectors_per_request(st));
    else
        cml_tt_set(row, K_ST, "-");
    if (g.requests)
        cml_tt_set(row, K_EFF, "%.1f", 100.0 * cml_traffic_efficiency(&g));
    else
        cml_tt_set(row, K_EFF, "-");
    cml_tt_set(row, K_CONF, "%llu",
               (unsigned long long)(m->cls.cls[CML_CLASS_SHARED_LD].bank_conflicts +
                                    m->cls.cls[CML_CLASS_SHARED_ST].bank_conflicts));
    if (m->has_levels)
        cml_tt_set(row, K_DRAM, "%llu",
                   (unsigned long long)(m->levels.dram_read_bytes + m->levels.dram_write_bytes));
    else
        cml_tt_set(row, K_DRAM, "-");
}

static void kernel_table(FILE *out, const cml_tf_report *r)
{
    static cml_tt tt;
    static cml_tt_row row;
    cml_tt_init(&tt, 0);
    cml_tt_add(&tt, NULL, NULL, "kernel", CML_TT_LEFT, CML_TT_KEEP);
    cml_tt_add(&tt, NULL, NULL, "launch", CML_TT_RIGHT, 90);
    cml_tt_add(&tt, NULL, NULL, "grid", CML_TT_RIGHT, 40);
    cml_tt_add(&tt, NULL, NULL, "block", CML_TT_RIGHT, 45);
    cml_tt_add(&tt, NULL, NULL, "warps", CML_TT_RIGHT, 85);
    cml_tt_add(&tt, NULL, NULL, "warp ins", CML_TT_RIGHT, 85);
    cml_tt_add(&tt, "model", NULL, "ld sect/req", CML_TT_RIGHT, 85);
    cml_tt_add(&tt, "model", NULL, "st sect/req", CML_TT_RIGHT, 85);
    cml_tt_add(&tt, "model", NULL, "eff %", CML_TT_RIGHT, 85);
    cml_tt_add(&tt, "model", NULL, "conflicts", CML_TT_RIGHT, 85);
    cml_tt_add(&tt, "model", NULL, "DRAM bytes", CML_TT_RIGHT, 60);
    print_table(out, &tt, row, r, NULL, r->t->nkernels, kernel_row);
}

/* The ranking's table: its columns, in the order added. */
enum { S_RANK, S_NAME, S_PC, S_LINE, S_WHAT, S_WARPS, S_REQ, S_SEC, S_SPR, S_EFF, S_CONF, S_WASTE };

static void site_row(const cml_tf_report *r, const void *ctx, size_t i, const cml_tt *tt,
                     cml_tt_row row)
{
    (void)tt;
    const cml_tf_site *s = ((const cml_tfr_ranked *)ctx)[i].site;
    char spr[32], eff[32];
    cml_tfr_site_figures(s, spr, eff, sizeof spr);
    cml_tt_set(row, S_RANK, "%zu", i + 1u);
    cml_tt_set(row, S_NAME, "%s", cml_tfr_func_name(r->t, s->func));
    cml_tt_set(row, S_PC, "0x%04x", s->pc);
    char line[300];
    cml_tfr_source(r, s, line, sizeof line, NULL);
    cml_tt_set(row, S_LINE, "%s", line[0] ? line : "-");
    cml_tt_set(row, S_WHAT, "%s %s %uB", cml_tf_space_name(s->space), cml_tf_op_name(s->op),
               s->size);
    cml_tt_set(row, S_WARPS, "%llu", (unsigned long long)s->records);
    cml_tt_set(row, S_REQ, "%llu", (unsigned long long)s->traffic.requests);
    cml_tt_set(row, S_SEC, "%llu", (unsigned long long)s->traffic.sectors);
    cml_tt_set(row, S_SPR, "%s", spr);
    cml_tt_set(row, S_EFF, "%s", eff);
    cml_tt_set(row, S_CONF, "%llu", (unsigned long long)s->traffic.bank_conflicts);
    cml_tt_set(row, S_WASTE, "%llu", (unsigned long long)s->waste);
}

static void site_table(FILE *out, const cml_tf_report *r, const cml_tfr_ranked *all, size_t n)
{
    static cml_tt tt;
    static cml_tt_row row;
    cml_tt_init(&tt, 0);
    cml_tt_add(&tt, NULL, NULL, "#", CML_TT_RIGHT, CML_TT_KEEP);
    cml_tt_add(&tt, NULL, NULL, "kernel", CML_TT_LEFT, CML_TT_KEEP);
    cml_tt_add(&tt, NULL, NULL, "pc", CML_TT_RIGHT, CML_TT_KEEP);
    cml_tt_add(&tt, NULL, NULL, "line", CML_TT_LEFT, 96);
    cml_tt_add(&tt, NULL, NULL, "access", CML_TT_LEFT, 95);
    cml_tt_add(&tt, NULL, NULL, "warps", CML_TT_RIGHT, 70);
    cml_tt_add(&tt, "model", NULL, "requests", CML_TT_RIGHT, 75);
    cml_tt_add(&tt, "model", NULL, "sectors", CML_TT_RIGHT, 75);
    cml_tt_add(&tt, "model", NULL, "per req", CML_TT_RIGHT, 90);
    cml_tt_add(&tt, "model", NULL, "eff %", CML_TT_RIGHT, 90);
    cml_tt_add(&tt, "model", NULL, "conflicts", CML_TT_RIGHT, 80);
    cml_tt_add(&tt, "model", NULL, "wasted bytes", CML_TT_RIGHT, CML_TT_KEEP);
    const size_t shown = n < r->ranked ? n : r->ranked;
    print_table(out, &tt, row, r, all, shown, site_row);
    if (n > shown)
        fprintf(out, "(%zu more instructions: --json and --csv carry every one)\n", n - shown);
}

/* The worst instructions one by one: a typical warp's lanes and why. */
static void site_details(FILE *out, const cml_tf_report *r, const cml_tfr_ranked *all, size_t n)
{
    const size_t shown = n < r->top ? n : r->top;
    for (size_t i = 0; i < shown; i++) {
        const cml_tf_site *s = all[i].site;
        const cml_tf_ins *e = &s->example;
        char line[33], why[1024];
        const unsigned distinct = cml_tf_picture(e, line);
        char src[300], at[320] = "";
        if (cml_tfr_source(r, s, src, sizeof src, NULL))
            snprintf(at, sizeof at, " (%s)", src);
        fprintf(out, "\n#%zu %s +0x%04x%s: %s %s of %u bytes a lane, %llu warps\n", i + 1u,
                cml_tfr_func_name(r->t, s->func), s->pc, at, cml_tf_space_name(s->space),
                cml_tf_op_name(s->op), s->size, (unsigned long long)s->records);
        fprintf(out, "   lane     0         1         2         3\n");
        fprintf(out, "            01234567890123456789012345678901\n");
        fprintf(out, "   %-7s  %s   block %llu, warp %u: %u %s\n",
                s->space == CML_TF_SHARED ? "bank" : "sector", line,
                (unsigned long long)e->block, e->warp, distinct,
                s->space == CML_TF_SHARED ? (distinct == 1 ? "bank" : "banks")
                                          : (distinct == 1 ? "sector" : "sectors"));
        const char *sass = cml_tf_sources_sass(r->src, r->t, s->func, s->pc);
        if (sass)
            fprintf(out, "   sass     %s\n", sass);
        cml_tfr_explain(s, why, sizeof why);
        cml_tt_wrap(out, "   ", why, WIDTH, 3);
        cml_tfm_site_text(out, r, all[i].kernel, s);
        cml_tfr_whatif_text(out, r, s, cml_tfr_whatif_of(r, all[i].kernel, s), WIDTH);
    }
}

static void levels_lines(FILE *out, const cml_tf_report *r)
{
    fputs("\nCache levels (the model's, per launch; an H100's caches with this GPU's SMs "
          "and L2 where the trace has them):\n",
          out);
    for (size_t k = 0; k < r->t->nkernels; k++) {
        const cml_tf_model *m = &r->models[k];
        const char *name = cml_tfr_func_name(r->t, r->t->kernel[k].func);
        if (!m->has_levels) {
            fprintf(out, "  %s: none (%s)\n", name, m->no_levels);
            continue;
        }
        const cml_levels *l = &m->levels;
        fprintf(out, "  %s: L1 hits %llu sectors, L2 reads %llu and writes %llu sectors, DRAM "
                     "reads %llu and writes %llu bytes%s%s%s\n",
                name, (unsigned long long)l->l1_hit_sectors,
                (unsigned long long)l->l2_read_sectors, (unsigned long long)l->l2_write_sectors,
                (unsigned long long)l->dram_read_bytes, (unsigned long long)l->dram_write_bytes,
                m->no_levels[0] ? " (" : "", m->no_levels, m->no_levels[0] ? ")" : "");
    }
}

/* Sampling and what the model could not take, said once. */
static void notes(FILE *out, const cml_tf_report *r)
{
    for (size_t k = 0; k < r->t->nkernels; k++) {
        const cml_tf_kernel *kn = &r->t->kernel[k];
        const cml_tf_model *m = &r->models[k];
        const char *name = cml_tfr_func_name(r->t, kn->func);
        if (kn->stride > 1 || kn->warps_lost)
            fprintf(out, "Note: %s was sampled: one warp in %llu was recorded, %llu of those "
                         "left out when the buffer (--budget) filled; its totals are those of "
                         "the %llu warps recorded, of %llu.\n",
                    name, (unsigned long long)kn->stride, (unsigned long long)kn->warps_lost,
                    (unsigned long long)kn->warps_recorded,
                    (unsigned long long)kn->warps_total);
        if (m->atomics)
            fprintf(out, "Note: %s has %llu atomic warp instructions: recorded, not modelled.\n",
                    name, (unsigned long long)m->atomics);
        if (m->refused)
            fprintf(out, "Note: the model refused %llu warp instructions of %s (misaligned, or a "
                         "local offset beyond 4 GiB).\n",
                    (unsigned long long)m->refused, name);
    }
}

cml_status cml_tf_report_text(FILE *out, const void *report)
{
    const cml_tf_report *r = report;
    size_t n = 0;
    cml_tfr_ranked *all = cml_tfr_rank(r, &n);
    if (!all)
        return CML_ENOMEM;
    print_header(out, r);
    if (r->t->nkernels == 0) {
        fputs("\nNo launch was recorded: no kernel ran, or none matched --kernel and "
              "--launch.\n",
              out);
    } else {
        fputs("\nLaunches\n", out);
        kernel_table(out, r);
        fputs("\nInstructions by the bytes they waste (sectors fetched beyond the bytes "
              "used; shared: wavefronts beyond the conflict-free ones, 128 B each)\n",
              out);
        site_table(out, r, all, n);
        site_details(out, r, all, n);
        levels_lines(out, r);
        cml_tfm_text(out, r);
        notes(out, r);
    }
    free(all);
    return ferror(out) ? CML_EIO : CML_OK;
}

/* ---- JSON and CSV ------------------------------------------------------------- */

static void json_dims(cml_json *j, const char *key, const uint32_t d[3])
{
    cml_json_key(j, key);
    cml_json_begin_array(j);
    for (unsigned i = 0; i < 3; i++)
        cml_json_u64(j, d[i]);
    cml_json_end_array(j);
}

static void json_site(cml_json *j, const cml_tf_report *r, size_t k, const cml_tf_site *s)
{
    const cml_trace *t = r->t;
    char why[1024], line[33];
    cml_json_begin_object(j);
    cml_json_kv_string(j, "function", cml_tfr_func_name(t, s->func));
    cml_json_kv_u64(j, "pc", s->pc);
    const char *file = NULL;
    char src[300];
    const uint32_t at = cml_tfr_source(r, s, src, sizeof src, &file);
    cml_json_key(j, "source");
    if (at) {
        cml_json_begin_object(j);
        cml_json_kv_string(j, "file", file);
        cml_json_kv_u64(j, "line", at);
        cml_json_end_object(j);
    } else {
        cml_json_null(j);
    }
    cml_json_kv_string(j, "sass", cml_tf_sources_sass(r->src, t, s->func, s->pc));
    cml_json_kv_string(j, "space", cml_tf_space_name(s->space));
    cml_json_kv_string(j, "op", cml_tf_op_name(s->op));
    cml_json_kv_u64(j, "size", s->size);
    cml_json_kv_u64(j, "warps", s->records);
    cml_json_kv_u64(j, "refused", s->refused);
    cml_json_kv_u64(j, "wasted_bytes", s->waste);
    cml_json_key(j, "modern");
    cml_json_traffic(j, &s->traffic);
    cml_json_key(j, "fermi");
    cml_json_traffic(j, &s->fermi);
    cml_json_key(j, "example");
    cml_json_begin_object(j);
    cml_json_kv_u64(j, "block", s->example.block);
    cml_json_kv_u64(j, "warp", s->example.warp);
    cml_json_kv_u64(j, "active", s->example.active);
    cml_json_key(j, "addresses");
    cml_json_begin_array(j);
    for (unsigned l = 0; l < CML_TF_LANES; l++) {
        if ((s->example.active >> l) & 1u)
            cml_json_u64(j, s->example.addr[l]);
        else
            cml_json_null(j);
    }
    cml_json_end_array(j);
    cml_tf_picture(&s->example, line);
    cml_json_kv_string(j, "picture", line);
    cml_json_end_object(j);
    cml_tfr_explain(s, why, sizeof why);
    cml_json_kv_string(j, "finding", why);
    cml_tfm_site_json(j, r, k, s);
    cml_tfr_whatif_json(j, r, s, cml_tfr_whatif_of(r, k, s));
    cml_json_end_object(j);
}

static void json_kernel(cml_json *j, const cml_tf_report *r, size_t k)
{
    const cml_tf_kernel *kn = &r->t->kernel[k];
    const cml_tf_model *m = &r->models[k];
    const cml_tf_func *f = cml_tf_func_by_id(r->t, kn->func);
    cml_json_begin_object(j);
    cml_json_kv_string(j, "name", f ? f->name : "?");
    cml_json_kv_string(j, "demangled", f ? f->demangled : "");
    cml_json_kv_string(j, "cubin", f ? f->cubin : "");
    cml_json_kv_u64(j, "launch", kn->launch + 1u);
    json_dims(j, "grid", kn->grid);
    json_dims(j, "block", kn->block);
    cml_json_kv_u64(j, "smem_bytes", kn->smem);
    cml_json_kv_u64(j, "warps_total", kn->warps_total);
    cml_json_kv_u64(j, "sample_stride", kn->stride);
    cml_json_kv_u64(j, "warps_recorded", kn->warps_recorded);
    cml_json_kv_u64(j, "warps_lost", kn->warps_lost);
    cml_json_kv_u64(j, "instructions", m->records);
    cml_json_kv_u64(j, "atomics", m->atomics);
    cml_json_kv_u64(j, "refused", m->refused);
    cml_json_key(j, "modern");
    cml_json_begin_object(j);
    for (unsigned c = 0; c < CML_CLASS_COUNT; c++) {
        if (!m->cls.cls[c].instructions)
            continue;
        cml_json_key(j, cml_class_name((cml_class)c));
        cml_json_traffic(j, &m->cls.cls[c]);
    }
    cml_json_end_object(j);
    cml_json_key(j, "levels");
    if (m->has_levels)
        cml_json_levels(j, &m->levels, &m->cache);
    else
        cml_json_null(j);
    cml_json_kv_string(j, "levels_note", m->no_levels);
    cml_tfm_json(j, r, k);
    cml_json_key(j, "instructions_by_waste");
    cml_json_begin_array(j);
    for (size_t s = 0; s < m->nsites; s++)
        json_site(j, r, k, &m->sites[s]);
    cml_json_end_array(j);
    cml_json_end_object(j);
}

cml_status cml_tf_report_json(FILE *out, const void *report)
{
    const cml_tf_report *r = report;
    const cml_trace *t = r->t;
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-trace");
    cml_json_kv_u64(&j, "schema_version", 1);
    cml_json_kv_string(&j, "trace", r->path);
    cml_json_kv_u64(&j, "format_version", t->version);
    cml_json_kv_bool(&j, "complete", t->complete);
    cml_json_kv_u64(&j, "truncated_bytes", t->truncated);
    cml_json_kv_string(&j, "command", t->command);
    cml_json_key(&j, "device");
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "name", t->device);
    cml_json_kv_u64(&j, "sm", t->sm);
    cml_json_kv_u64(&j, "sm_count", t->sms);
    cml_json_kv_u64(&j, "l2_bytes", t->l2_bytes);
    cml_json_end_object(&j);
    cml_json_kv_string(&j, "kernel_filter", t->kernels);
    cml_json_kv_u64(&j, "launch", t->launch + 1u);
    cml_json_kv_u64(&j, "budget_bytes", t->budget);
    cml_json_key(&j, "kernels");
    cml_json_begin_array(&j);
    for (size_t k = 0; k < t->nkernels; k++)
        json_kernel(&j, r, k);
    cml_json_end_array(&j);
    cml_json_end_object(&j);
    fputc('\n', out);
    return ferror(out) ? CML_EIO : CML_OK;
}

/* One CSV row: an instruction's identity, then figures x and waste (the
 * instruction's own, or a transform's prediction), its line and SASS, then
 * the transform's columns (empty for the instruction's own row). */
static void csv_row(FILE *out, const cml_tf_report *r, size_t k, const cml_tf_site *s,
                    const cml_traffic *x, uint64_t waste, const cml_wi_list *l, const cml_wi *w)
{
    double spr = 0, eff = 0;
    const int has_spr = cml_rep_sectors_per_request(x, &spr);
    const int has_eff = cml_rep_efficiency(x, &eff);
    cml_csv_field(out, cml_tfr_func_name(r->t, s->func));
    fprintf(out, ",%llu,%u,%s,%s,%u,%llu,%llu,%llu,%llu,",
            (unsigned long long)r->t->kernel[k].launch + 1u, s->pc, cml_tf_space_name(s->space),
            cml_tf_op_name(s->op), s->size, (unsigned long long)s->records,
            (unsigned long long)s->refused, (unsigned long long)x->requests,
            (unsigned long long)x->sectors);
    if (has_spr)
        cml_csv_double(out, spr);
    fputc(',', out);
    if (has_eff)
        cml_csv_double(out, eff);
    fprintf(out, ",%llu,%llu,%llu,%llu,%llu,", (unsigned long long)x->requested_bytes,
            (unsigned long long)x->wavefronts, (unsigned long long)x->ideal_wavefronts,
            (unsigned long long)x->bank_conflicts, (unsigned long long)waste);
    const char *file = NULL;
    char src[300];
    const uint32_t at = cml_tfr_source(r, s, src, sizeof src, &file);
    if (at) {
        cml_csv_field(out, file);
        fprintf(out, ",%u", at);
    } else {
        fputc(',', out);
    }
    fputc(',', out);
    const char *sass = cml_tf_sources_sass(r->src, r->t, s->func, s->pc);
    if (sass)
        cml_csv_field(out, sass);
    cml_tfr_whatif_csv(out, l, w);
}

cml_status cml_tf_report_csv(FILE *out, const void *report)
{
    const cml_tf_report *r = report;
    fputs("kernel,launch,pc,space,op,size,warps,refused,requests,sectors,sectors_per_request,"
          "efficiency,requested_bytes,wavefronts,ideal_wavefronts,bank_conflicts,wasted_bytes,"
          "file,line,sass," CML_TFR_WHATIF_CSV_COLUMNS "\n",
          out);
    for (size_t k = 0; k < r->t->nkernels; k++) {
        const cml_tf_model *m = &r->models[k];
        for (size_t i = 0; i < m->nsites; i++) {
            const cml_tf_site *s = &m->sites[i];
            const cml_wi_list *l = cml_tfr_whatif_of(r, k, s);
            csv_row(out, r, k, s, &s->traffic, s->waste, l, NULL);
            for (size_t t = 0; l && t < l->n; t++)
                csv_row(out, r, k, s, &l->item[t].after, l->item[t].waste_after, l,
                        &l->item[t]);
        }
    }
    return ferror(out) ? CML_EIO : CML_OK;
}
