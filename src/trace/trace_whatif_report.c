/*
 * The what-if transforms of a detailed instruction (trace_whatif.h) as the
 * trace's reports show them (trace_report_util.h): a line each in the
 * text, each marked as the model's prediction; an array in the JSON, each
 * transform's figures before and after as the model's traffic objects
 * (cml_json_traffic), as everywhere else in the lab's JSON; the CSV's
 * what-if columns. A block shape is one choice per launch, so its line is
 * followed by what it does to the launch's fitted instructions together.
 */
#include <stdarg.h>
#include <stdio.h>

#include "report/json_writer.h"
#include "report/report.h"
#include "report/text_table.h"
#include "trace/trace_report_util.h"

/* "saves 384 bytes", "saves nothing", "wastes 128 bytes more". */
static void saved_words(int64_t d, char *buf, size_t len)
{
    if (d > 0)
        snprintf(buf, len, "saves %lld bytes", (long long)d);
    else if (d == 0)
        snprintf(buf, len, "saves nothing");
    else
        snprintf(buf, len, "wastes %llu bytes more", (unsigned long long)(-(d + 1)) + 1u);
}

void cml_tfr_whatif_line(const cml_tf_site *s, const cml_wi *w, char *buf, size_t len)
{
    char what[200], saved[64], warps[96];
    cml_wi_describe(w, s->size, what, sizeof what);
    saved_words(cml_wi_saved(w), saved, sizeof saved);
    if (w->kind == CML_WI_SHAPE) /* before and after on the same threads, not as recorded */
        snprintf(warps, sizeof warps, "every thread of the recorded blocks once: %llu warps",
                 (unsigned long long)w->of);
    else
        snprintf(warps, sizeof warps, "%llu of %llu warps", (unsigned long long)w->warps,
                 (unsigned long long)w->of);
    const cml_traffic *b = &w->before, *a = &w->after;
    if (s->space == CML_TF_SHARED)
        snprintf(buf, len, "%s: requests %llu -> %llu, wavefronts %llu -> %llu, conflicts %llu "
                           "-> %llu; %s (%s)",
                 what, (unsigned long long)b->requests, (unsigned long long)a->requests,
                 (unsigned long long)b->wavefronts, (unsigned long long)a->wavefronts,
                 (unsigned long long)b->bank_conflicts, (unsigned long long)a->bank_conflicts,
                 saved, warps);
    else
        snprintf(buf, len, "%s: requests %llu -> %llu, sectors %llu -> %llu (%.2f -> %.2f a "
                           "request), efficiency %.1f%% -> %.1f%%; %s (%s)",
                 what, (unsigned long long)b->requests, (unsigned long long)a->requests,
                 (unsigned long long)b->sectors, (unsigned long long)a->sectors,
                 cml_traffic_sectors_per_request(b), cml_traffic_sectors_per_request(a),
                 100.0 * cml_traffic_efficiency(b), 100.0 * cml_traffic_efficiency(a), saved,
                 warps);
}

/* printf at *at in buf, *at moved on (held at the end when it fills). */
static void appendf(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    *at = n < 0 ? len : *at + (size_t)n;
}

/* The launch's other fitted instructions named in the launch line. */
#define OTHERS_NAMED 4u

int cml_tfr_whatif_launch_line(const cml_tf_report *r, const cml_tf_site *s,
                               const cml_wi_list *l, char *buf, size_t len)
{
    const cml_ws_launch *sh = l ? l->launch : NULL;
    if (!sh || !cml_ws_has_best(sh) || sh->fitted < 2u || !cml_wi_shape_site(sh, s) ||
        cml_wi_shape_site(sh, s)->status != CML_WS_FIT)
        return 0;
    char saved[64];
    size_t at = 0;
    saved_words(cml_wi_saved_bytes(sh->waste_before, sh->waste_after), saved, sizeof saved);
    appendf(buf, len, &at, "the block shape is one choice for the launch; its %zu fitted "
                           "instructions together: wasted bytes %llu -> %llu, %s",
            sh->fitted, (unsigned long long)sh->waste_before,
            (unsigned long long)sh->waste_after, saved);
    size_t named = 0;
    for (size_t i = 0; i < sh->nsites; i++) {
        const cml_ws_site *o = &sh->site[i];
        if (o->status != CML_WS_FIT || o->site == s)
            continue;
        if (named++ == OTHERS_NAMED) {
            appendf(buf, len, &at, "; and %zu more", sh->fitted - 1u - OTHERS_NAMED);
            break;
        }
        const int shared = o->site->space == CML_TF_SHARED;
        saved_words(cml_wi_saved_bytes(o->waste_before, o->waste_after), saved, sizeof saved);
        appendf(buf, len, &at, "; %s +0x%04x %s %s: %s %llu -> %llu, %s",
                cml_tfr_func_name(r->t, o->site->func), o->site->pc,
                cml_tf_space_name(o->site->space), cml_tf_op_name(o->site->op),
                shared ? "wavefronts" : "sectors",
                (unsigned long long)(shared ? o->before.wavefronts : o->before.sectors),
                (unsigned long long)(shared ? o->after.wavefronts : o->after.sectors), saved);
    }
    return 1;
}

void cml_tfr_whatif_text(FILE *out, const cml_tf_report *r, const cml_tf_site *s,
                         const cml_wi_list *l, unsigned width)
{
    if (!l)
        return;
    if (!l->n) {
        fputs("   What if: no change the lab predicts (pad a row, a structure of arrays, wider "
              "accesses, another block shape) fits these addresses.\n",
              out);
        return;
    }
    fputs("   What if (the model's prediction, on these warps' addresses transformed):\n", out);
    for (size_t i = 0; i < l->n; i++) {
        char line[1024];
        cml_tfr_whatif_line(s, &l->item[i], line, sizeof line);
        cml_tt_wrap(out, "   - ", line, width, 5);
        if (l->item[i].kind == CML_WI_SHAPE &&
            cml_tfr_whatif_launch_line(r, s, l, line, sizeof line))
            cml_tt_wrap(out, "     ", line, width, 5);
    }
}

/* [x, y, z] */
static void json_dims(cml_json *j, const char *key, const unsigned d[3])
{
    cml_json_key(j, key);
    cml_json_begin_array(j);
    for (unsigned i = 0; i < 3u; i++)
        cml_json_u64(j, d[i]);
    cml_json_end_array(j);
}

/* One fitted instruction of the launch under the block shape. */
static void json_shape_site(cml_json *j, const cml_tf_report *r, const cml_ws_site *o)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "function", cml_tfr_func_name(r->t, o->site->func));
    cml_json_kv_u64(j, "pc", o->site->pc);
    cml_json_kv_string(j, "space", cml_tf_space_name(o->site->space));
    cml_json_kv_string(j, "op", cml_tf_op_name(o->site->op));
    cml_json_key(j, "thread_coefficients_bytes");
    cml_json_begin_array(j);
    for (unsigned d = 0; d < 3u; d++) {
        if ((o->pinned >> d) & 1u)
            cml_json_i64(j, o->coef[d]);
        else
            cml_json_null(j);
    }
    cml_json_end_array(j);
    cml_json_kv_u64(j, "blocks", o->blocks);
    cml_json_key(j, "before");
    cml_json_traffic(j, &o->before);
    cml_json_key(j, "after");
    cml_json_traffic(j, &o->after);
    cml_json_kv_u64(j, "wasted_bytes_before", o->waste_before);
    cml_json_kv_u64(j, "wasted_bytes_after", o->waste_after);
    cml_json_kv_i64(j, "saved_bytes", cml_wi_saved_bytes(o->waste_before, o->waste_after));
    cml_json_end_object(j);
}

/* A block shape's members (null for the other transforms). */
static void json_shape(cml_json *j, const cml_tf_report *r, const cml_wi_list *l,
                       const cml_wi *w)
{
    if (w->kind != CML_WI_SHAPE || !l->launch) {
        cml_json_kv_null(j, "block_shape");
        cml_json_kv_null(j, "block_shape_from");
        cml_json_kv_null(j, "launch");
        return;
    }
    const cml_ws_launch *sh = l->launch;
    json_dims(j, "block_shape", w->shape);
    json_dims(j, "block_shape_from", w->from);
    cml_json_key(j, "launch");
    cml_json_begin_object(j);
    cml_json_kv_u64(j, "instructions_fitted", sh->fitted);
    cml_json_kv_u64(j, "shapes_judged", sh->shapes);
    cml_json_kv_u64(j, "wasted_bytes_before", sh->waste_before);
    cml_json_kv_u64(j, "wasted_bytes_after", sh->waste_after);
    cml_json_kv_i64(j, "saved_bytes", cml_wi_saved_bytes(sh->waste_before, sh->waste_after));
    cml_json_key(j, "instructions");
    cml_json_begin_array(j);
    for (size_t i = 0; i < sh->nsites; i++)
        if (sh->site[i].status == CML_WS_FIT)
            json_shape_site(j, r, &sh->site[i]);
    cml_json_end_array(j);
    cml_json_end_object(j);
}

void cml_tfr_whatif_json(cml_json *j, const cml_tf_report *r, const cml_tf_site *s,
                         const cml_wi_list *l)
{
    cml_json_key(j, "whatif");
    if (!l) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_array(j);
    for (size_t i = 0; i < l->n; i++) {
        const cml_wi *w = &l->item[i];
        char what[200];
        cml_wi_describe(w, s->size, what, sizeof what);
        cml_json_begin_object(j);
        cml_json_kv_string(j, "transform", cml_wi_name(w->kind));
        cml_json_kv_string(j, "description", what);
        if (w->kind == CML_WI_PAD) {
            cml_json_kv_u64(j, "pad_elements", w->k);
            cml_json_kv_u64(j, "lanes_per_row", w->lanes);
        } else {
            cml_json_kv_null(j, "pad_elements");
            cml_json_kv_null(j, "lanes_per_row");
        }
        if (w->kind == CML_WI_PAD || w->kind == CML_WI_SOA)
            cml_json_kv_u64(j, "stride_bytes", w->stride);
        else
            cml_json_kv_null(j, "stride_bytes");
        if (w->kind == CML_WI_VECTOR)
            cml_json_kv_u64(j, "width_bytes", w->k);
        else
            cml_json_kv_null(j, "width_bytes");
        cml_json_kv_u64(j, "warps_changed", w->warps);
        cml_json_kv_u64(j, "warps", w->of);
        cml_json_key(j, "before");
        cml_json_traffic(j, &w->before);
        cml_json_key(j, "after");
        cml_json_traffic(j, &w->after);
        cml_json_kv_u64(j, "wasted_bytes_before", w->waste_before);
        cml_json_kv_u64(j, "wasted_bytes_after", w->waste_after);
        cml_json_kv_i64(j, "saved_bytes", cml_wi_saved(w));
        json_shape(j, r, l, w);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
}

void cml_tfr_whatif_csv(FILE *out, const cml_wi_list *l, const cml_wi *w)
{
    if (!w) {
        fputs(",,,,,,,,,,\n", out);
        return;
    }
    fprintf(out, ",%s,", cml_wi_name(w->kind));
    if (w->kind == CML_WI_PAD)
        fprintf(out, "%u", w->k);
    fputc(',', out);
    if (w->kind == CML_WI_PAD || w->kind == CML_WI_SOA)
        fprintf(out, "%llu", (unsigned long long)w->stride);
    fputc(',', out);
    if (w->kind == CML_WI_VECTOR)
        fprintf(out, "%u", w->k);
    fprintf(out, ",%llu,%lld", (unsigned long long)w->warps, (long long)cml_wi_saved(w));
    if (w->kind == CML_WI_SHAPE && l && l->launch)
        fprintf(out, ",%u,%u,%u,%lld\n", w->shape[0], w->shape[1], w->shape[2],
                (long long)cml_wi_saved_bytes(l->launch->waste_before,
                                              l->launch->waste_after));
    else
        fputs(",,,,\n", out);
}
