/*
 * JSON reporter: the whole results set as one document, schema
 * "cumemlab-results" version 1 (docs/json-schema.md documents every field).
 * Numbers are numbers; what is unknown is null, never 0 and never a string.
 */
#include "report/report.h"

#include "core/exp_desc.h"
#include "report/chart_spec_json.h"
#include "report/json_writer.h"
#include "report/report_util.h"

/* A double that is null when it is negative (the records' "unknown" mark). */
static void kv_nonneg(cml_json *j, const char *key, double v)
{
    if (v < 0)
        cml_json_kv_null(j, key);
    else
        cml_json_kv_double(j, key, v);
}

/* A ratio that is null when its denominator was 0. */
static void kv_ratio(cml_json *j, const char *key, int ok, double v)
{
    if (ok)
        cml_json_kv_double(j, key, v);
    else
        cml_json_kv_null(j, key);
}

static void write_device(cml_json *j, const cml_device_facts *d)
{
    cml_json_begin_object(j);
    cml_json_kv_i64(j, "index", d->index);
    cml_json_kv_string(j, "name", d->name);
    cml_json_kv_i64(j, "cc_major", d->cc_major);
    cml_json_kv_i64(j, "cc_minor", d->cc_minor);
    if (d->uuid[0])
        cml_json_kv_string(j, "uuid", d->uuid);
    cml_json_kv_i64(j, "sm_count", d->sm_count);
    cml_json_kv_i64(j, "warp_size", d->warp_size);
    cml_json_kv_i64(j, "max_threads_per_block", d->max_threads_per_block);
    cml_json_kv_i64(j, "max_threads_per_sm", d->max_threads_per_sm);
    cml_json_kv_i64(j, "max_blocks_per_sm", d->max_blocks_per_sm);
    cml_json_kv_i64(j, "regs_per_block", d->regs_per_block);
    cml_json_kv_i64(j, "regs_per_sm", d->regs_per_sm);
    cml_json_kv_u64(j, "shared_per_block", d->shared_per_block);
    cml_json_kv_u64(j, "shared_per_block_optin", d->shared_per_block_optin);
    cml_json_kv_u64(j, "shared_per_sm", d->shared_per_sm);
    cml_json_kv_u64(j, "const_bytes", d->const_bytes);
    cml_json_kv_u64(j, "l2_bytes", d->l2_bytes);
    cml_json_kv_u64(j, "l2_persisting_max", d->l2_persisting_max);
    cml_json_kv_u64(j, "global_bytes", d->global_bytes);
    cml_json_kv_i64(j, "bus_width_bits", d->bus_width_bits);
    cml_json_kv_i64(j, "mem_clock_khz", d->mem_clock_khz);
    cml_json_kv_i64(j, "sm_clock_khz", d->sm_clock_khz);
    kv_nonneg(j, "theoretical_gbs", d->theoretical_gbs);
    cml_json_kv_bool(j, "ecc_enabled", d->ecc_enabled);
    cml_json_kv_i64(j, "driver_version", d->driver_version);
    cml_json_kv_i64(j, "runtime_version", d->runtime_version);
    cml_json_kv_bool(j, "unified_addressing", d->unified_addressing);
    cml_json_kv_bool(j, "can_map_host_memory", d->can_map_host_memory);
    cml_json_kv_bool(j, "managed_memory", d->managed_memory);
    cml_json_kv_bool(j, "concurrent_managed", d->concurrent_managed);
    cml_json_kv_bool(j, "global_l1_cache_supported", d->global_l1_cache_supported);
    cml_json_kv_bool(j, "local_l1_cache_supported", d->local_l1_cache_supported);
    cml_json_end_object(j);
}

/* Every cml_traffic field (in the object the caller opened). */
static void write_counts(cml_json *j, const cml_traffic *t)
{
    cml_json_kv_u64(j, "instructions", t->instructions);
    cml_json_kv_u64(j, "requests", t->requests);
    cml_json_kv_u64(j, "sectors", t->sectors);
    cml_json_kv_u64(j, "lines", t->lines);
    cml_json_kv_u64(j, "transactions", t->transactions);
    cml_json_kv_u64(j, "transaction_bytes", t->transaction_bytes);
    cml_json_kv_u64(j, "efficiency_bytes", t->efficiency_bytes);
    cml_json_kv_u64(j, "requested_bytes", t->requested_bytes);
    cml_json_kv_u64(j, "lane_bytes", t->lane_bytes);
    cml_json_kv_u64(j, "wavefronts", t->wavefronts);
    cml_json_kv_u64(j, "ideal_wavefronts", t->ideal_wavefronts);
    cml_json_kv_u64(j, "bank_conflicts", t->bank_conflicts);
    cml_json_kv_u64(j, "serialized", t->serialized);
}

/* Every cml_traffic field, plus the two ratios people read first. */
void cml_json_traffic(cml_json *j, const cml_traffic *t)
{
    double v = 0;
    int ok;
    cml_json_begin_object(j);
    write_counts(j, t);
    ok = cml_rep_sectors_per_request(t, &v);
    kv_ratio(j, "sectors_per_request", ok, v);
    ok = cml_rep_efficiency(t, &v);
    kv_ratio(j, "efficiency", ok, v);
    cml_json_end_object(j);
}

/* One bound of the five figures that carry an interval (lo or hi). */
static void write_bound(cml_json *j, const char *key, const cml_level_bounds *b)
{
    cml_json_key(j, key);
    cml_json_begin_object(j);
    uint64_t v[CML_LEVEL_FIGURES];
    cml_level_bounds_get(b, v);
    for (unsigned i = 0; i < CML_LEVEL_FIGURES; i++)
        cml_json_kv_u64(j, cml_level_figure_name(i), v[i]);
    cml_json_end_object(j);
}

/* What the model assumed of the GPU and the launch (cml_cache_config). */
static void write_assumed(cml_json *j, const cml_cache_config *c)
{
    cml_json_key(j, "assumed");
    cml_json_begin_object(j);
    cml_json_kv_u64(j, "sm_count", c->sm_count);
    cml_json_kv_u64(j, "max_threads_per_sm", c->max_threads_per_sm);
    cml_json_kv_u64(j, "max_blocks_per_sm", c->max_blocks_per_sm);
    cml_json_kv_u64(j, "l1_total_bytes", c->l1_total_bytes);
    cml_json_kv_u64(j, "smem_per_sm", c->smem_per_sm);
    cml_json_kv_u64(j, "smem_per_block", c->smem_per_block);
    cml_json_kv_u64(j, "l1_bytes", c->l1_bytes);
    cml_json_kv_u64(j, "resident_blocks", c->resident_blocks);
    cml_json_kv_u64(j, "l2_bytes", c->l2_bytes);
    cml_json_kv_u64(j, "l2_partitions", c->l2_partitions);
    cml_json_kv_u64(j, "dram_granule", c->dram_granule);
    cml_json_kv_u64(j, "clean_age_bytes", c->clean_age_bytes);
    cml_json_kv_u64(j, "partial_age_bytes", c->partial_age_bytes);
    cml_json_kv_u64(j, "dirty_max_bytes", c->dirty_max_bytes);
    cml_json_end_object(j);
}

/* The cache levels: the figures, their intervals (when derived), then what
 * the model assumed. */
void cml_json_levels(cml_json *j, const cml_levels *l, const cml_cache_config *c)
{
    cml_json_begin_object(j);
    cml_json_kv_u64(j, "l1_hit_sectors", l->l1_hit_sectors);
    cml_json_kv_u64(j, "l1_miss_sectors", l->l1_miss_sectors);
    cml_json_kv_u64(j, "local_hit_sectors", l->local_hit_sectors);
    cml_json_kv_u64(j, "l2_read_sectors", l->l2_read_sectors);
    cml_json_kv_u64(j, "l2_write_sectors", l->l2_write_sectors);
    cml_json_kv_u64(j, "l2_read_hit_sectors", l->l2_read_hit_sectors);
    cml_json_kv_u64(j, "dram_read_bytes", l->dram_read_bytes);
    cml_json_kv_u64(j, "dram_write_bytes", l->dram_write_bytes);
    cml_json_kv_u64(j, "l2_dirty_end_bytes", l->l2_dirty_end_bytes);
    cml_json_kv_u64(j, "footprint_bytes", l->footprint_bytes);
    cml_json_kv_string(j, "method", l->sampled ? "sampled" : "whole");
    cml_json_kv_bool(j, "settled", l->settled);
    cml_json_kv_u64(j, "simulated_blocks", l->simulated_blocks);
    cml_json_kv_u64(j, "resident_blocks", l->resident_blocks);
    cml_json_kv_u64(j, "l1_bytes", l->l1_bytes);
    if (l->bounded) {
        write_bound(j, "lo", &l->lo);
        write_bound(j, "hi", &l->hi);
    }
    write_assumed(j, c);
    cml_json_end_object(j);
}

/* The sample the model came from (docs/json-schema.md, model.sample):
 * null when every figure is exact. */
static void write_sample(cml_json *j, const cml_record *rec)
{
    const struct cml_model_sample *s = &rec->sample;
    if (!s->warps) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    cml_json_kv_u64(j, "warps", s->warps);
    cml_json_kv_u64(j, "of", s->of);
    cml_json_kv_double(j, "confidence", s->confidence);
    cml_json_kv_string(j, "bound", "hoeffding-serfling");
    cml_json_key(j, "half_width");
    cml_json_begin_object(j);
    for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
        cml_json_key(j, cml_rep_rules_name(r));
        cml_json_begin_object(j);
        for (int c = 0; c < (int)CML_CLASS_COUNT; c++) {
            if (!rec->model[r].cls[c].instructions)
                continue;
            cml_json_key(j, cml_rep_class_name(c));
            cml_traffic bound;
            cml_sample_half(rec, r, c, &bound);
            cml_json_begin_object(j);
            write_counts(j, &bound);
            cml_json_end_object(j);
        }
        cml_json_end_object(j);
    }
    cml_json_end_object(j);
    cml_json_end_object(j);
}

static void write_model(cml_json *j, const cml_record *rec)
{
    if (!rec->has_model) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    for (int r = 0; r < (int)CML_RULES_COUNT; r++) {
        cml_json_key(j, cml_rep_rules_name(r));
        cml_json_begin_object(j);
        for (int c = 0; c < (int)CML_CLASS_COUNT; c++) {
            const cml_traffic *t = &rec->model[r].cls[c];
            if (!t->instructions)
                continue;
            cml_json_key(j, cml_rep_class_name(c));
            cml_json_traffic(j, t);
        }
        cml_json_end_object(j);
    }
    cml_json_key(j, "levels");
    if (rec->has_levels) {
        cml_json_levels(j, &rec->levels, &rec->cache);
    } else {
        cml_json_null(j);
        /* Without levels, what the model assumed still decides how many
         * blocks share an SM (validate's interval of shared counters):
         * written so that `validate --from` judges as the run did. */
        if (rec->cache.max_threads_per_sm)
            write_assumed(j, &rec->cache);
    }
    cml_json_key(j, "sample");
    write_sample(j, rec);
    cml_json_end_object(j);
}

static void write_record(cml_json *j, const cml_record *rec)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "experiment", rec->experiment);
    cml_json_kv_string(j, "variant", rec->variant);
    cml_json_kv_string(j, "state", cml_rep_state_name(rec->state));
    cml_json_kv_string(j, "note", rec->note);

    cml_json_key(j, "params");
    cml_json_begin_object(j);
    for (unsigned i = 0; i < rec->nparams && i < CML_RECORD_MAX_PARAMS; i++) {
        const cml_record_param *p = &rec->params[i];
        if (p->label[0])
            cml_json_kv_string(j, p->name, p->label);
        else
            cml_json_kv_i64(j, p->name, p->value);
    }
    cml_json_end_object(j);

    cml_json_kv_u64(j, "bytes_read", rec->bytes_read);
    cml_json_kv_u64(j, "bytes_written", rec->bytes_written);
    cml_json_kv_u64(j, "grid", rec->grid);
    cml_json_kv_u64(j, "block", rec->block);
    kv_nonneg(j, "occupancy", rec->occupancy);

    cml_json_key(j, "timing");
    if (rec->measured) {
        const cml_timing *t = &rec->timing;
        cml_json_begin_object(j);
        cml_json_kv_u64(j, "warmup", t->warmup);
        cml_json_kv_u64(j, "reps", t->reps);
        cml_json_kv_double(j, "median_ms", t->median_ms);
        cml_json_kv_double(j, "min_ms", t->min_ms);
        cml_json_kv_double(j, "max_ms", t->max_ms);
        cml_json_kv_double(j, "mean_ms", t->mean_ms);
        cml_json_kv_double(j, "cv", t->cv);
        cml_json_end_object(j);
        cml_json_kv_double(j, "bandwidth_gbs", rec->bandwidth_gbs);
        kv_nonneg(j, "peak_fraction", rec->peak_fraction);
        /* Which class's reference the fraction is of (core/peak_class.h);
         * a cache-resident record has the class and no reference. */
        if (rec->peak_class != CML_PEAK_CLASS_NONE && rec->peak_ref_gbs > 0) {
            cml_json_kv_string(j, "peak_class", cml_peak_class_name(rec->peak_class));
            cml_json_kv_double(j, "peak_gbs", rec->peak_ref_gbs);
        } else if (cml_peak_class_resident(rec->peak_class)) {
            cml_json_kv_string(j, "peak_class", cml_peak_class_name(rec->peak_class));
            cml_json_kv_null(j, "peak_gbs");
        } else {
            cml_json_kv_null(j, "peak_class");
            cml_json_kv_null(j, "peak_gbs");
        }
    } else {
        cml_json_null(j);
        cml_json_kv_null(j, "bandwidth_gbs");
        cml_json_kv_null(j, "peak_fraction");
    }
    cml_json_kv_string(j, "verify", cml_rep_verify_name(rec->verify));

    cml_json_key(j, "model");
    write_model(j, rec);

    cml_json_key(j, "counters");
    cml_json_begin_array(j);
    for (unsigned i = 0; i < rec->ncounters && i < CML_RECORD_MAX_COUNTERS; i++) {
        const cml_counter *c = &rec->counters[i];
        cml_json_begin_object(j);
        cml_json_kv_string(j, "name", c->name);
        cml_json_kv_double(j, "measured", c->measured);
        if (c->has_prediction)
            cml_json_kv_double(j, "predicted", c->predicted);
        else
            cml_json_kv_null(j, "predicted");
        cml_json_end_object(j);
    }
    cml_json_end_array(j);

    cml_json_key(j, "extra");
    cml_json_begin_object(j);
    unsigned nextra = rec->nextra;
    if (nextra > sizeof rec->extra / sizeof rec->extra[0])
        nextra = sizeof rec->extra / sizeof rec->extra[0];
    for (unsigned i = 0; i < nextra; i++) {
        cml_json_key(j, rec->extra[i].name);
        cml_json_begin_object(j);
        cml_json_kv_double(j, "value", rec->extra[i].value);
        cml_json_kv_string(j, "unit", rec->extra[i].unit);
        cml_json_end_object(j);
    }
    cml_json_end_object(j);

    cml_json_kv_string(j, "finding", rec->finding);
    cml_json_end_object(j);
}

/* The whole results set as one JSON document; CML_EIO if the stream failed. */
static void write_desc(cml_json *j, const cml_exp_desc *d)
{
    cml_json_begin_object(j);
    cml_json_kv_string(j, "key", d->key);
    if (d->number > 0)
        cml_json_kv_i64(j, "number", d->number);
    else
        cml_json_kv_null(j, "number");
    cml_json_kv_string(j, "title", d->title);
    cml_json_key(j, "charts");
    cml_json_begin_array(j);
    for (size_t i = 0; i < d->ncharts; i++)
        cml_chart_spec_json(j, &d->charts[i]);
    cml_json_end_array(j);
    cml_json_end_object(j);
}

static void write_controls(cml_json *j, const char *key, size_t n, const double *ms,
                           const double *rd, const double *wr)
{
    cml_json_key(j, key);
    cml_json_begin_array(j);
    for (size_t i = 0; i < n && i < CML_DRAM_BACKGROUND_MAX; i++) {
        cml_json_begin_object(j);
        cml_json_kv_double(j, "ms", ms[i]);
        cml_json_kv_double(j, "read_bytes", rd[i]);
        cml_json_kv_double(j, "write_bytes", wr[i]);
        cml_json_end_object(j);
    }
    cml_json_end_array(j);
}

static void write_background(cml_json *j, const cml_dram_background *b)
{
    cml_json_key(j, "dram_background");
    cml_json_begin_object(j);
    write_controls(j, "controls", b->n, b->ms, b->read_bytes, b->write_bytes);
    cml_json_kv_double(j, "read_bytes_per_ms", cml_dram_background_rate(b, 0));
    cml_json_kv_double(j, "write_bytes_per_ms", cml_dram_background_rate(b, 1));
    /* Only where measured: older files stay as they were. */
    if (b->stream_n) {
        write_controls(j, "stream_controls", b->stream_n, b->stream_ms, b->stream_read_bytes,
                       b->stream_write_bytes);
        cml_json_kv_double(j, "dirty_write_bytes", cml_dram_background_dirty(b));
    }
    cml_json_end_object(j);
}

cml_status cml_report_json(FILE *out, const cml_results *r)
{
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-results");
    cml_json_kv_i64(&j, "schema_version", 1);
    cml_json_kv_string(&j, "tool_version", r->tool_version);
    cml_json_kv_string(&j, "command_line", r->command_line);
    cml_json_kv_bool(&j, "model_only", r->model_only);
    cml_json_key(&j, "device");
    if (r->has_device)
        write_device(&j, &r->device);
    else
        cml_json_null(&j);
    if (r->peak_gbs > 0)
        cml_json_kv_double(&j, "peak_gbs", r->peak_gbs);
    else
        cml_json_kv_null(&j, "peak_gbs");
    cml_json_kv_bool(&j, "peak_given", r->peak_gbs > 0 && r->peak_given);
    if (r->peak_gbs > 0) {
        /* The reference of each class, where a peak is known (absent otherwise). */
        cml_json_key(&j, "peak_classes");
        cml_json_begin_object(&j);
        for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
            cml_json_key(&j, cml_peak_class_name(c));
            if (!(r->peaks.gbs[c] > 0)) {
                cml_json_null(&j);
                continue;
            }
            cml_json_begin_object(&j);
            cml_json_kv_double(&j, "gbs", r->peaks.gbs[c]);
            cml_json_kv_string(&j, "source", r->peaks.source[c]);
            cml_json_end_object(&j);
        }
        cml_json_end_object(&j);
    }
    cml_json_key(&j, "diagnostics");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < r->ndiags; i++) {
        const cml_diagnostic *d = &r->diags[i];
        cml_json_begin_object(&j);
        cml_json_kv_string(&j, "level", cml_diag_level_name(d->level));
        if (d->experiment[0])
            cml_json_kv_string(&j, "experiment", d->experiment);
        else
            cml_json_kv_null(&j, "experiment");
        cml_json_kv_string(&j, "message", d->message);
        cml_json_end_object(&j);
    }
    cml_json_end_array(&j);
    /* validate's control of the DRAM noise floor (core/dram_background.h):
     * only where it was measured, so other files stay as they were. */
    if (r->background.n || r->background.stream_n)
        write_background(&j, &r->background);
    /* What a reader needs to draw each experiment (core/exp_desc.h): left
     * out when the results carry none, so that a file of an older version,
     * read and written again, stays as it was. */
    if (r->descs.n) {
        cml_json_key(&j, "experiments");
        cml_json_begin_array(&j);
        for (size_t i = 0; i < r->descs.n; i++)
            write_desc(&j, &r->descs.v[i]);
        cml_json_end_array(&j);
    }
    cml_json_key(&j, "records");
    cml_json_begin_array(&j);
    for (size_t i = 0; i < r->count; i++)
        write_record(&j, &r->items[i]);
    cml_json_end_array(&j);
    cml_json_end_object(&j);
    if (fflush(out) != 0 || ferror(out))
        return CML_EIO;
    return CML_OK;
}
