/*
 * Experiments 1 and 2: misaligned reads and writes, swept over offsets,
 * paths and DRAM-sized arrays (the book's own readSegment and writeSegment
 * run as the book runs them in src/book/segment.c).
 *
 * Kernels (offset_body.h), one thread per element, i = blockIdx.x*blockDim.x +
 * threadIdx.x, k = i + offset:
 *   read-offset:  if (k < n) C[i] = A[k] + B[k];   loads through ca, cg or nc
 *   write-offset: if (k < n) C[k] = A[i] + B[i];   stores through wb, cg or cs
 * The mirror below runs the kernels' own bodies (offset_body.h), so the
 * model's totals are the kernels' totals, block by block, including the
 * partial last warps.
 */
#include <stdio.h>
#include <string.h>

#include "counters/counter_map.h"
#include "experiments/offset/offset_body.h"
#include "lab/common.h"

static const char *const load_paths[] = {"ca", "cg", "nc", NULL};
static const char *const store_paths[] = {"wb", "cg", "cs", NULL};

/* The PTX cache operator each path choice stands for. */
static const cml_cache load_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_NC};
static const cml_cache store_cache[] = {CML_CACHE_CA, CML_CACHE_CG, CML_CACHE_CS};

/* One point of either sweep; the options' fields. */
typedef struct offset_settings {
    int64_t offset, path, block, n;
} offset_settings;

static const cml_param_def read_params[] = {
    {"offset", "element offset of the reads, in floats", 0, 1 << 20, "0:64,128", NULL, 0,
     CML_FIELD(offset_settings, offset), NULL},
    {"path", "load path: ca = L1 and L2 (default), cg = L2 only, nc = read-only (__ldg)", 0, 0,
     "ca,cg,nc", load_paths, 0, CML_FIELD(offset_settings, path), NULL},
    {"block", "threads per block", 32, 1024, "512", NULL, 0, CML_FIELD(offset_settings, block),
     NULL},
    {"n", "elements per array (0: each array larger than L2, 4x L2 in all)", 0,
     (int64_t)1 << 34, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(offset_settings, n), NULL},
};

static const cml_param_def write_params[] = {
    {"offset", "element offset of the writes, in floats", 0, 1 << 20, "0:64,128", NULL, 0,
     CML_FIELD(offset_settings, offset), NULL},
    {"path", "store path: wb = write-back (default), cg = L2 only (__stcg), cs = streaming (__stcs)",
     0, 0, "wb,cg,cs", store_paths, 0, CML_FIELD(offset_settings, path), NULL},
    {"block", "threads per block", 32, 1024, "512", NULL, 0, CML_FIELD(offset_settings, block),
     NULL},
    {"n", "elements per array (0: each array larger than L2, 4x L2 in all)", 0,
     (int64_t)1 << 34, "0", NULL, CML_PARAM_NOVARIANT, CML_FIELD(offset_settings, n), NULL},
};

/* The kernels' own bodies (offset_body.h), on the model's arrays A, B, C. */
void cml_offset_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_offset_args *a = vargs;
    const float *A = CML_ARRAY(const float, 0), *B = CML_ARRAY(const float, 1);
    float *C = CML_ARRAY(float, 2);
    if (!a->write)
        cml_read_offset_body(CML_MIRROR_CTX(t, e), A, B, C, a->n, a->offset, a->cache);
    else
        cml_write_offset_body(CML_MIRROR_CTX(t, e), A, B, C, a->n, a->offset, a->cache);
}

/*
 * What the straddled sector costs below L1, from the record's cache levels
 * (the model's, at variant time), against what an aligned access needs:
 * the bytes asked for in whole sectors. Reads: L2 reads and DRAM; the
 * difference to the sectors asked for hit in L1. Writes: L2 receives every
 * store sector; DRAM writes (during the kernel and after it) what L2 merged.
 */
static void record_levels(const cml_record *rec, int write, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!rec->has_levels)
        return;
    const cml_levels *l = &rec->levels;
    const cml_traffic *t = &rec->model[CML_RULES_MODERN].cls[write ? CML_CLASS_GLOBAL_ST
                                                                   : CML_CLASS_GLOBAL_LD];
    const double ideal = (double)t->requested_bytes / CML_SECTOR_BYTES;
    if (ideal <= 0 || t->sectors <= (uint64_t)(ideal + 0.5))
        return;
    if (write) {
        const double bytes = (double)rec->bytes_written;
        snprintf(buf, len,
                 " L2 receives all %.1f%% more sectors (L1 writes through), but merges the "
                 "halves of a shared sector: DRAM writes %+.1f%%.",
                 100.0 * ((double)l->l2_write_sectors / ideal - 1.0),
                 bytes > 0 ? 100.0 * ((double)(l->dram_write_bytes + l->l2_dirty_end_bytes) /
                                          bytes -
                                      1.0)
                           : 0.0);
    } else if (l->l1_hit_sectors) {
        snprintf(buf, len,
                 " %.1f%% more sectors asked for, but L2 reads %.1f%% more: %.1f%% hit in L1, "
                 "the sector a warp shares with the next; DRAM %+.1f%%.",
                 100.0 * ((double)t->sectors / ideal - 1.0),
                 100.0 * ((double)l->l2_read_sectors / ideal - 1.0),
                 100.0 * (double)l->l1_hit_sectors / (double)t->sectors,
                 rec->bytes_read ? 100.0 * ((double)l->dram_read_bytes / (double)rec->bytes_read -
                                            1.0)
                                 : 0.0);
    } else {
        snprintf(buf, len,
                 " No L1 on this path: L2 reads all %.1f%% more sectors; DRAM %+.1f%% (they "
                 "meet in L2).",
                 100.0 * ((double)l->l2_read_sectors / ideal - 1.0),
                 rec->bytes_read ? 100.0 * ((double)l->dram_read_bytes / (double)rec->bytes_read -
                                            1.0)
                                 : 0.0);
    }
}

/* The sentence under a variant: where the warp's bytes fall and what that
 * costs under each rule set and in the caches. */
static void offset_finding(cml_record *rec, const cml_offset_args *a, const char *path)
{
    const cml_class c = a->write ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    const char *what = a->write ? "writes" : "reads";
    unsigned shift = (unsigned)((a->offset * 4) % CML_LINE_BYTES);
    double spr = cml_exp_spr(rec, c);
    double eff = 100.0 * cml_exp_eff(rec, CML_RULES_MODERN, c);
    double feff = 100.0 * cml_exp_eff(rec, CML_RULES_FERMI, c);
    if (shift % CML_SECTOR_BYTES == 0) {
        cml_record_finding(rec,
                           "Offset %llu keeps each warp's 128 bytes of %s on 32-byte sector "
                           "boundaries (%u bytes into a line): %.2f sectors per request, %.1f%% "
                           "of fetched bytes used (Fermi %s path: %.1f%%).",
                           (unsigned long long)a->offset, what, shift, spr, eff, path, feff);
    } else {
        char caches[200];
        record_levels(rec, a->write, caches, sizeof caches);
        cml_record_finding(rec,
                           "Offset %llu starts each warp's 128 bytes of %s %u bytes into a "
                           "line: one more 32-byte sector, %.2f per request, %.1f%% of fetched "
                           "bytes used (Fermi %s: %.1f%%).%s",
                           (unsigned long long)a->offset, what, shift, spr, eff, path, feff,
                           caches);
    }
}

/* The second row, defined at the end of this file. */
extern const cml_experiment cml_exp_write_offset;

static int is_write(const cml_sweep *ctx)
{
    return ctx->exp == &cml_exp_write_offset;
}

/* One variant's record with the model's prediction. */
static cml_status offset_variant(cml_sweep *ctx, void *vs, cml_record *rec)
{
    offset_settings *s = vs;
    const int write = is_write(ctx);
    if (s->n == 0)
        s->n = (int64_t)cml_plan_elements(ctx->plan, 4, 3);
    const uint64_t n = (uint64_t)s->n, offset = (uint64_t)s->offset, block = (uint64_t)s->block;
    if (offset >= n) {
        /* Every thread fails the guard k < n: there is no access to model
         * or to time, and "0.00 sectors per request" would read as a
         * finding about alignment. */
        cml_sweep_waive(ctx, rec,
                        "offset %llu is at or past the %llu elements of each array: every "
                        "thread is guarded off and nothing is %s",
                        (unsigned long long)offset, (unsigned long long)n,
                        write ? "written" : "read");
        return CML_OK;
    }
    uint64_t active = n - offset;
    rec->bytes_read = 2 * 4 * active;
    rec->bytes_written = 4 * active;

    cml_offset_args args = {n, offset, write ? store_cache[s->path] : load_cache[s->path], write};
    /* Every block is its predecessor shifted by 4*block bytes in each array:
     * a whole number of lines for block sizes that are multiples of 32, and
     * after 32/gcd(block, 32) blocks for the others; only the blocks that
     * reach the end of the arrays (guard k < n) differ. */
    uint64_t nblocks = cml_div_up(n, block);
    uint64_t tail = cml_div_up(offset, block) + 2;
    cml_status st = cml_exp_trace_1d_period(rec, nblocks, (unsigned)block, 1, tail,
                                            cml_exp_line_period(4 * block), cml_offset_mirror,
                                            &args);
    if (st)
        return st;
    offset_finding(rec, &args, cml_param_choice(&ctx->exp->options[1], s->path));
    return CML_OK;
}

enum { SEED_A = 0xA11CE, SEED_B = 0xB0B };

static cml_status offset_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_offset_check(ctx, SEED_A, SEED_B, d_counters);
}

/* Measure one variant: poison C, time the kernel, check every element. The
 * engine keeps A, B and C across the variants of the sweep. */
static cml_status offset_measure(cml_sweep *ctx, void *vs, cml_record *rec)
{
    const offset_settings *s = vs;
    const uint64_t n = (uint64_t)s->n;
    cml_exp_abc g;
    if (cml_sweep_abc(ctx, rec, n, SEED_A, SEED_B, &g) != CML_OK)
        return CML_ECUDA;
    const int write = is_write(ctx);
    cml_offset_launch_args args = {
        g.A->ptr, g.B->ptr, g.C->ptr, n, (uint64_t)s->offset, (unsigned)s->block, write, (int)s->path,
    };
    return cml_exp_measure(ctx->plan, rec, g.C, cml_offset_launch, &args,
                           cml_offset_kernel(write, args.path), args.block, 0, offset_check_cb,
                           &args);
}

/*
 * What the extra sector of a misaligned warp costs further down, from the
 * cache levels of the sweep's records (the counters where measured, else
 * the model): the most misaligned record against the first aligned one.
 * Reads: how many more sectors L1 was asked for, how many more L2 read
 * (the rest hit in L1: the sector a warp shares with the next warp of its
 * block), and DRAM. Writes: L2 receives every store sector (write-through),
 * and DRAM.
 */
static int64_t offset_of(const cml_record *rec)
{
    const cml_record_param *p = cml_record_find_param(rec, "offset");
    return p ? p->value : 0;
}

static void levels_clause(const cml_results *out, size_t first, size_t last, int write,
                          char *buf, size_t len)
{
    const cml_class c = write ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    const cml_record *base = NULL, *worst = NULL;
    for (size_t i = first; i <= last; i++) {
        const cml_record *r = &out->items[i];
        if (r->state != CML_REC_OK || !r->has_levels)
            continue;
        if (!base && cml_exp_eff(r, CML_RULES_MODERN, c) > 0.999)
            base = r;
        if (!worst || cml_exp_spr(r, c) > cml_exp_spr(worst, c))
            worst = r;
    }
    if (!base || !worst || cml_exp_spr(worst, c) <= cml_exp_spr(base, c))
        return;
    const int l2f = write ? CML_CTR_L2_WRITE : CML_CTR_L2_READ;
    const int dramf = write ? CML_CTR_DRAM_WRITE : CML_CTR_DRAM_READ;
    double l2w = 0, l2b = 0, dw = 0, db = 0, hit = 0;
    const int mw = cml_exp_level(worst, l2f, &l2w), mb = cml_exp_level(base, l2f, &l2b);
    if (mw < 0 || mb < 0 || cml_exp_level(worst, dramf, &dw) < 0 ||
        cml_exp_level(base, dramf, &db) < 0 || l2b <= 0 || db <= 0)
        return;
    const double sec_w = (double)worst->model[CML_RULES_MODERN].cls[c].sectors;
    const double sec_b = (double)base->model[CML_RULES_MODERN].cls[c].sectors;
    const double more = 100.0 * (sec_w / sec_b - 1.0);
    const char *src = mw == 1 ? "measured" : "model";
    if (!write && cml_exp_level(worst, CML_CTR_L1_HIT, &hit) >= 0 && hit > 0) {
        snprintf(buf, len,
                 " Offset %lld: %.1f%% more sectors asked for, but L2 read %.1f%% more (%s): "
                 "%.1f%% hit in L1, the sector a warp shares with the next; DRAM %+.1f%%.",
                 (long long)offset_of(worst), more, 100.0 * (l2w / l2b - 1.0), src,
                 sec_w > 0 ? 100.0 * hit / sec_w : 0.0, 100.0 * (dw / db - 1.0));
    } else {
        snprintf(buf, len,
                 " Offset %lld: %.1f%% more sectors %s, L2 %s %.1f%% more (%s); DRAM %+.1f%%.",
                 (long long)offset_of(worst), more, write ? "written" : "asked for",
                 write ? "received" : "read", 100.0 * (l2w / l2b - 1.0), src,
                 100.0 * (dw / db - 1.0));
    }
}

/*
 * Long sweeps get one sentence per path instead of one per offset: how many
 * offsets stay sector-aligned, what the others cost, and (measured) the
 * bandwidth range. Records [first, last] are one path's sweep.
 */
static void offset_summary(cml_sweep *ctx, size_t first, size_t last)
{
    /* Up to 5 offsets read well one sentence each; more get a summary. */
    if (last - first + 1 <= 5)
        return;
    cml_results *out = ctx->out;
    const int write = is_write(ctx);
    const cml_class c = write ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    size_t aligned = 0, total = 0;
    double worst_spr = 0, worst_eff = 1, best_bw = -1, worst_bw = -1;
    long long best_off = 0, worst_off = 0;
    for (size_t i = first; i <= last; i++) {
        cml_record *rec = &out->items[i];
        rec->finding[0] = '\0';
        if (rec->state != CML_REC_OK)
            continue;
        total++;
        double spr = cml_exp_spr(rec, c), eff = cml_exp_eff(rec, CML_RULES_MODERN, c);
        if (eff > 0.999)
            aligned++;
        if (spr > worst_spr)
            worst_spr = spr;
        if (eff < worst_eff)
            worst_eff = eff;
        long long off = (long long)((const offset_settings *)cml_sweep_settings_of(ctx, i))->offset;
        if (rec->measured && (best_bw < 0 || rec->bandwidth_gbs > best_bw)) {
            best_bw = rec->bandwidth_gbs;
            best_off = off;
        }
        if (rec->measured && (worst_bw < 0 || rec->bandwidth_gbs < worst_bw)) {
            worst_bw = rec->bandwidth_gbs;
            worst_off = off;
        }
    }
    if (!total)
        return;
    cml_record *last_rec = &out->items[last];
    const char *path = cml_param_choice(
        &ctx->exp->options[1], ((const offset_settings *)cml_sweep_settings_of(ctx, last))->path);
    char caches[200] = "";
    levels_clause(out, first, last, write, caches, sizeof caches);
    char measured[160] = "";
    if (best_bw >= 0) {
        double drop = best_bw > 0 ? 100.0 * (best_bw - worst_bw) / best_bw : 0.0;
        snprintf(measured, sizeof measured,
                 " Measured %.1f GB/s at offset %lld down to %.1f GB/s at offset %lld (%.1f%% "
                 "lower).",
                 best_bw, best_off, worst_bw, worst_off, drop);
    }
    cml_record_finding(last_rec,
                       "Path %s: %zu of %zu offsets keep each warp's %s on sector boundaries; "
                       "the others straddle one more sector (up to %.2f per request, %.1f%% "
                       "used).%s%s",
                       path, aligned, total, write ? "writes" : "reads", worst_spr,
                       100.0 * worst_eff, caches, measured);
}

/* Bandwidth, efficiency and sectors per request against the offset. */
#define OFFSET_CHARTS(dir)                                                                        \
    {CML_PLOT_SWEEP, "Measured bandwidth vs " dir " offset", "offset", "offset",                  \
     dir " offset (floats)", CML_SCALE_LINEAR, CML_FMT_NUMBER, "bandwidth (GB/s)",                \
     CML_FMT_NUMBER, NULL, NULL, NULL, NULL,                                                      \
     {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL, 0}}, "bandwidth", "GB/s", 1, NULL, NULL,    \
     NULL, NULL, NULL},                                                                           \
    {CML_PLOT_SWEEP, "Predicted efficiency vs " dir " offset", "offset", "offset",                \
     dir " offset (floats)", CML_SCALE_LINEAR, CML_FMT_NUMBER, "bytes used / bytes moved (%)",    \
     CML_FMT_PERCENT, NULL, NULL, NULL, NULL,                                                     \
     {{"modern", CML_METRIC_EFF_MODERN, NULL, "under the modern rules", 0},                      \
      {"Fermi/Kepler", CML_METRIC_EFF_FERMI, NULL, "under the Fermi/Kepler rules", 0}},          \
     "the predicted efficiency", "%", 1, NULL, NULL, NULL, NULL, NULL},                           \
    {CML_PLOT_SWEEP, "Predicted sectors per request vs " dir " offset", "offset", "offset",      \
     dir " offset (floats)", CML_SCALE_LINEAR, CML_FMT_NUMBER, "32-byte sectors per request",     \
     CML_FMT_NUMBER, NULL, NULL, NULL, NULL, {{"modern", CML_METRIC_SPR_MODERN, NULL, NULL, 0}},  \
     "sectors per request", "", 0, NULL, NULL, NULL, NULL, NULL}

static const cml_chart_spec read_charts[] = {OFFSET_CHARTS("read")};
static const cml_chart_spec write_charts[] = {OFFSET_CHARTS("write")};

static const char *const read_validate_settings[] = {"offset=0:32,128 path=ca,cg,nc", NULL};
static const char *const write_validate_settings[] = {"offset=0:32,128 path=wb,cg,cs", NULL};
static const cml_validate_spec read_validate = {read_validate_settings, NULL, 0};
/* Cache levels: the sector two neighbouring warps share meets in L1 some of
 * the time and leaves as one; the model's interval of L2 writes holds that
 * (docs/model.md §16.8, l1_merge; docs/model-evidence.md §4.5). Streaming
 * stores' dirty residue (§4.6) has no control and is not explained (§4.12). */
static const cml_validate_spec write_validate = {write_validate_settings, NULL, 0};

const cml_experiment cml_exp_read_offset = {
    .key = "read-offset",
    .number = 1,
    .title = "Misaligned reads",
    .summary = "C[i] = A[i+offset] + B[i+offset]: offset sweep through the ca, cg and nc load "
               "paths",
    .doc = "docs/experiments/read-offset.md",
    .options = read_params,
    .noptions = CML_COUNT(read_params),
    .settings_size = sizeof(offset_settings),
    .tour = "offset=0,1,11,32,128 path=ca,cg,nc",
    .variant = offset_variant,
    .measure = offset_measure,
    .summarize = offset_summary,
    .charts = read_charts,
    .ncharts = CML_COUNT(read_charts),
    .validate = &read_validate,
};

const cml_experiment cml_exp_write_offset = {
    .key = "write-offset",
    .number = 2,
    .title = "Misaligned writes",
    .summary = "C[i+offset] = A[i] + B[i]: offset sweep through the wb, cg and cs store paths",
    .doc = "docs/experiments/write-offset.md",
    .options = write_params,
    .noptions = CML_COUNT(write_params),
    .settings_size = sizeof(offset_settings),
    .tour = "offset=0,1,11,32,128 path=wb",
    .variant = offset_variant,
    .measure = offset_measure,
    .summarize = offset_summary,
    .charts = write_charts,
    .ncharts = CML_COUNT(write_charts),
    .validate = &write_validate,
};
