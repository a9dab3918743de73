/*
 * The what-if transforms of a detailed instruction (trace_whatif.h) as the
 * trace's reports show them (trace_report_util.h): a line each in the
 * text, each marked as the model's prediction; an array in the JSON, each
 * transform's figures before and after as the model's traffic objects
 * (cml_json_traffic), as everywhere else in the lab's JSON.
 */
#include <stdio.h>

#include "report/json_writer.h"
#include "report/report.h"
#include "report/text_table.h"
#include "trace/trace_report_util.h"

/* "saves 384 bytes", "saves nothing", "wastes 128 bytes more". */
static void saved_words(const cml_wi *w, char *buf, size_t len)
{
    const int64_t d = cml_wi_saved(w);
    if (d > 0)
        snprintf(buf, len, "saves %lld bytes", (long long)d);
    else if (d == 0)
        snprintf(buf, len, "saves nothing");
    else
        snprintf(buf, len, "wastes %llu bytes more", (unsigned long long)(-(d + 1)) + 1u);
}

void cml_tfr_whatif_line(const cml_tf_site *s, const cml_wi *w, char *buf, size_t len)
{
    char what[160], saved[64];
    cml_wi_describe(w, s->size, what, sizeof what);
    saved_words(w, saved, sizeof saved);
    const cml_traffic *b = &w->before, *a = &w->after;
    if (s->space == CML_TF_SHARED)
        snprintf(buf, len, "%s: requests %llu -> %llu, wavefronts %llu -> %llu, conflicts %llu "
                           "-> %llu; %s (%llu of %llu warps)",
                 what, (unsigned long long)b->requests, (unsigned long long)a->requests,
                 (unsigned long long)b->wavefronts, (unsigned long long)a->wavefronts,
                 (unsigned long long)b->bank_conflicts, (unsigned long long)a->bank_conflicts,
                 saved, (unsigned long long)w->warps, (unsigned long long)w->of);
    else
        snprintf(buf, len, "%s: requests %llu -> %llu, sectors %llu -> %llu (%.2f -> %.2f a "
                           "request), efficiency %.1f%% -> %.1f%%; %s (%llu of %llu warps)",
                 what, (unsigned long long)b->requests, (unsigned long long)a->requests,
                 (unsigned long long)b->sectors, (unsigned long long)a->sectors,
                 cml_traffic_sectors_per_request(b), cml_traffic_sectors_per_request(a),
                 100.0 * cml_traffic_efficiency(b), 100.0 * cml_traffic_efficiency(a), saved,
                 (unsigned long long)w->warps, (unsigned long long)w->of);
}

void cml_tfr_whatif_text(FILE *out, const cml_tf_site *s, const cml_wi_list *l, unsigned width)
{
    if (!l)
        return;
    if (!l->n) {
        fputs("   What if: no change the lab predicts (pad a row, a structure of arrays, wider "
              "accesses) fits these addresses.\n",
              out);
        return;
    }
    fputs("   What if (the model's prediction, on these warps' addresses transformed):\n", out);
    for (size_t i = 0; i < l->n; i++) {
        char line[512];
        cml_tfr_whatif_line(s, &l->item[i], line, sizeof line);
        cml_tt_wrap(out, "   - ", line, width, 5);
    }
}

void cml_tfr_whatif_json(cml_json *j, const cml_tf_site *s, const cml_wi_list *l)
{
    cml_json_key(j, "whatif");
    if (!l) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_array(j);
    for (size_t i = 0; i < l->n; i++) {
        const cml_wi *w = &l->item[i];
        char what[160];
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
        if (w->kind == CML_WI_VECTOR)
            cml_json_kv_null(j, "stride_bytes");
        else
            cml_json_kv_u64(j, "stride_bytes", w->stride);
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
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
}
