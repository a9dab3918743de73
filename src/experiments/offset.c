/*
 * Experiments 1 and 2: misaligned reads and writes (the textbook's
 * readOffset / writeOffset, programs readSegment and writeSegment).
 *
 * Kernels (offset.cu), one thread per element, i = blockIdx.x*blockDim.x +
 * threadIdx.x, k = i + offset:
 *   read-offset:  if (k < n) C[i] = A[k] + B[k];   loads through ca, cg or nc
 *   write-offset: if (k < n) C[k] = A[i] + B[i];   stores through wb, cg or cs
 * The mirrors below emit exactly those accesses, so the model's totals are
 * the kernels' totals, block by block, including the partial last warps.
 */
#include <stdio.h>
#include <string.h>

#include "experiments/common.h"
#include "experiments/offset.h"
#include "experiments/offset_kernels.h"

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

void cml_offset_mirror(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const cml_offset_args *a = vargs;
    const uint64_t A = cml_array_base(0), B = cml_array_base(1), C = cml_array_base(2);
    uint64_t i = cml_gtid(t), k = i + a->offset;
    if (k >= a->n)
        return;
    if (!a->write) {
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, A + 4 * k);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_LOAD, a->cache, 4, B + 4 * k);
        cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, CML_CACHE_CA, 4, C + 4 * i);
    } else {
        cml_emit(e, 0, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, A + 4 * i);
        cml_emit(e, 1, CML_SPACE_GLOBAL, CML_OP_LOAD, CML_CACHE_CA, 4, B + 4 * i);
        cml_emit(e, 2, CML_SPACE_GLOBAL, CML_OP_STORE, a->cache, 4, C + 4 * k);
    }
}

/* The sentence under a variant: where the warp's bytes fall and what that
 * costs under each rule set. */
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
        cml_record_finding(rec,
                           "Offset %llu starts each warp's 128 bytes of %s %u bytes into a "
                           "128-byte line, so they straddle one more 32-byte sector: %.2f sectors "
                           "per request, %.1f%% of fetched bytes used (Fermi %s path: %.1f%%).",
                           (unsigned long long)a->offset, what, shift, spr, eff, path, feff);
    }
}

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
    /* Every block is its predecessor shifted by 4*block bytes in each array
     * (a multiple of 128 for block sizes that are multiples of 32); only the
     * blocks that reach the end of the arrays (guard k < n) differ. */
    uint64_t nblocks = cml_div_up(n, block);
    uint64_t tail = cml_div_up(offset, block) + 2;
    uint64_t head = block % 32 ? nblocks : 1;
    cml_status st =
        cml_exp_trace_1d(rec, nblocks, (unsigned)block, head, tail, cml_offset_mirror, &args);
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
    char measured[400] = "";
    if (best_bw >= 0) {
        double drop = best_bw > 0 ? 100.0 * (best_bw - worst_bw) / best_bw : 0.0;
        double extra = worst_spr > 0 ? 100.0 * (worst_spr - 4.0) / 4.0 : 0.0;
        /* Why the drop is smaller than the extra sectors: the sector a
         * misaligned warp fetches beyond its 128 bytes is the first sector
         * of the next warp's 128 bytes, so the caches serve it again and
         * DRAM moves about the same bytes. */
        snprintf(measured, sizeof measured,
                 " Measured: %.1f GB/s at offset %lld down to %.1f GB/s at offset %lld (%.1f%% "
                 "lower)%s",
                 best_bw, best_off, worst_bw, worst_off, drop,
                 drop < extra / 2
                     ? ": far less than the extra sectors suggest, because the extra sector of one "
                       "warp is the next warp's first and is served again from L1/L2, so DRAM "
                       "moves nearly the same bytes."
                     : ".");
    }
    cml_record_finding(last_rec,
                       "Path %s: %zu of %zu offsets keep each warp's %s on 32-byte sector "
                       "boundaries (4.00 sectors per request, 100%%); the others straddle one "
                       "more sector (up to %.2f per request, %.1f%% of fetched bytes used).%s",
                       path, aligned, total, write ? "writes" : "reads", worst_spr,
                       100.0 * worst_eff, measured);
}

static const cml_textbook_alias read_aliases[] = {
    {"readSegment", "n=2^20 path=ca", {"offset", "block"}, "readSegment [offset] [blocksize]"},
    {"readOffset", "n=2^20 path=ca", {"offset", "block"}, "readOffset [offset] [blocksize]"},
};

static const cml_textbook_alias write_aliases[] = {
    {"writeSegment", "n=2^20 path=wb", {"offset", "block"}, "writeSegment [offset] [blocksize]"},
    {"writeOffset", "n=2^20 path=wb", {"offset", "block"}, "writeOffset [offset] [blocksize]"},
};

/* Bandwidth, efficiency and sectors per request against the offset. */
#define OFFSET_CHARTS(dir)                                                                        \
    {CML_PLOT_SWEEP, "Measured bandwidth vs " dir " offset", "offset", "offset",                  \
     dir " offset (floats)", CML_SCALE_LINEAR, CML_FMT_NUMBER, "bandwidth (GB/s)",                \
     CML_FMT_NUMBER, NULL, NULL, NULL, NULL,                                                      \
     {{"measured", CML_METRIC_BANDWIDTH, NULL, NULL}}, "bandwidth", "GB/s", 1, NULL, NULL, NULL}, \
    {CML_PLOT_SWEEP, "Predicted efficiency vs " dir " offset", "offset", "offset",                \
     dir " offset (floats)", CML_SCALE_LINEAR, CML_FMT_NUMBER, "bytes used / bytes moved (%)",    \
     CML_FMT_PERCENT, NULL, NULL, NULL, NULL,                                                     \
     {{"modern", CML_METRIC_EFF_MODERN, NULL, "under the modern rules"},                         \
      {"Fermi/Kepler", CML_METRIC_EFF_FERMI, NULL, "under the Fermi/Kepler rules"}},             \
     "the predicted efficiency", "%", 1, NULL, NULL, NULL},                                       \
    {CML_PLOT_SWEEP, "Predicted sectors per request vs " dir " offset", "offset", "offset",      \
     dir " offset (floats)", CML_SCALE_LINEAR, CML_FMT_NUMBER, "32-byte sectors per request",     \
     CML_FMT_NUMBER, NULL, NULL, NULL, NULL, {{"modern", CML_METRIC_SPR_MODERN, NULL, NULL}},     \
     "sectors per request", "", 0, NULL, NULL, NULL}

static const cml_chart_spec read_charts[] = {OFFSET_CHARTS("read")};
static const cml_chart_spec write_charts[] = {OFFSET_CHARTS("write")};

static const char *const read_validate_settings[] = {"offset=0:32,128 path=ca,cg,nc", NULL};
static const char *const write_validate_settings[] = {"offset=0:32,128 path=wb,cg,cs", NULL};
static const cml_validate_spec read_validate = {read_validate_settings, NULL, 0};
/* Cache levels (docs/model-evidence.md §4.5, §4.6): the sector two warps
 * share meets in L1 some of the time and leaves as one (up to 1.1% of the
 * store sectors measured); streaming stores keep a little more dirty data
 * in L2 at the end. */
static const cml_explained_diff write_explained[] = {
    {NULL, "lts__t_sectors_srcunit_tex_op_write", -0.02, "§4.5 stores meeting in L1"},
    {"path=cs", "dram__bytes_write", -0.03, "§4.6 the write-back horizon"},
};
static const cml_validate_spec write_validate = {write_validate_settings, write_explained,
                                                 CML_COUNT(write_explained)};

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
    .aliases = read_aliases,
    .naliases = CML_COUNT(read_aliases),
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
    .aliases = write_aliases,
    .naliases = CML_COUNT(write_aliases),
    .charts = write_charts,
    .ncharts = CML_COUNT(write_charts),
    .validate = &write_validate,
};
