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

static const cml_param_def read_params[] = {
    {"offset", "element offset of the reads, in floats", 0, 1 << 20, "0:64,128", NULL, 0},
    {"path", "load path: ca = L1 and L2 (default), cg = L2 only, nc = read-only (__ldg)", 0, 0,
     "ca,cg,nc", load_paths, 0},
    {"block", "threads per block", 32, 1024, "512", NULL, 0},
    {"n", "elements per array (0: each array larger than L2, 4x L2 in all)", 0,
     (int64_t)1 << 34, "0", NULL, 0},
};

static const cml_param_def write_params[] = {
    {"offset", "element offset of the writes, in floats", 0, 1 << 20, "0:64,128", NULL, 0},
    {"path", "store path: wb = write-back (default), cg = L2 only (__stcg), cs = streaming (__stcs)",
     0, 0, "wb,cg,cs", store_paths, 0},
    {"block", "threads per block", 32, 1024, "512", NULL, 0},
    {"n", "elements per array (0: each array larger than L2, 4x L2 in all)", 0,
     (int64_t)1 << 34, "0", NULL, 0},
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

/* One variant's record with the model's prediction; *out_rec for the GPU
 * run to add its measurement to. */
static cml_status offset_variant(const cml_plan *plan, const cml_param_values *pv, int write,
                                 int64_t offset, int64_t path, int64_t block, cml_results *out,
                                 cml_record **out_rec)
{
    const char *key = write ? "write-offset" : "read-offset";
    const cml_param_def *defs = write ? write_params : read_params;
    const char *label = cml_param_choice(&defs[1], path);
    uint64_t n = (uint64_t)cml_param_first(pv, "n");
    if (n == 0)
        n = cml_plan_elements(plan, 4, 3);
    char variant[96] = "";
    cml_variant_add(variant, sizeof variant, "offset", offset);
    cml_variant_add_label(variant, sizeof variant, "path", label);
    cml_variant_add(variant, sizeof variant, "block", block);
    cml_record *rec;
    CML_EXP_ADD(rec, out, key, variant);
    cml_record_add_param(rec, "offset", offset, NULL);
    cml_record_add_param(rec, "path", path, label);
    cml_record_add_param(rec, "block", block, NULL);
    cml_record_add_param(rec, "n", (int64_t)n, NULL);
    uint64_t active = (uint64_t)offset < n ? n - (uint64_t)offset : 0;
    rec->bytes_read = 2 * 4 * active;
    rec->bytes_written = 4 * active;

    cml_offset_args args = {n, (uint64_t)offset, write ? store_cache[path] : load_cache[path], write};
    /* Every block is its predecessor shifted by 4*block bytes in each array
     * (a multiple of 128 for block sizes that are multiples of 32); only the
     * blocks that reach the end of the arrays (guard k < n) differ. */
    uint64_t nblocks = cml_div_up(n, (uint64_t)block);
    uint64_t tail = cml_div_up((uint64_t)offset, (uint64_t)block) + 2;
    uint64_t head = (uint64_t)block % 32 ? nblocks : 1;
    cml_status st = cml_exp_trace_1d(rec, nblocks, (unsigned)block, head, tail,
                                     cml_offset_mirror, &args);
    if (st)
        return st;
    offset_finding(rec, &args, label);
    *out_rec = rec;
    return CML_OK;
}

enum { SEED_A = 0xA11CE, SEED_B = 0xB0B };

static cml_status offset_check_cb(void *ctx, unsigned long long *d_counters)
{
    return cml_offset_check(ctx, SEED_A, SEED_B, d_counters);
}

/* Measure one variant: poison C, time the kernel, check every element. */
static cml_status offset_measure(const cml_plan *plan, cml_exp_abc *g, cml_record *rec, int write)
{
    uint64_t n = (uint64_t)cml_record_find_param(rec, "n")->value;
    cml_status st = cml_exp_abc_ensure(plan, rec, g, n, SEED_A, SEED_B);
    if (st)
        return st;
    cml_offset_launch_args args = {
        g->A.ptr, g->B.ptr, g->C.ptr, n,
        (uint64_t)cml_record_find_param(rec, "offset")->value,
        (unsigned)cml_record_find_param(rec, "block")->value, write,
        (int)cml_record_find_param(rec, "path")->value,
    };
    return cml_exp_measure(plan, rec, &g->C, cml_offset_launch, &args,
                           cml_offset_kernel(write, args.path), args.block, 0, offset_check_cb,
                           &args);
}

/*
 * Long sweeps get one sentence per path instead of one per offset: how many
 * offsets stay sector-aligned, what the others cost, and (measured) the
 * bandwidth range. Records [first, last] are one path's sweep.
 */
static void offset_summary(cml_results *out, size_t first, size_t last, int write)
{
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
        long long off = (long long)cml_record_find_param(rec, "offset")->value;
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
    const char *path = cml_record_find_param(last_rec, "path")->label;
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

static cml_status offset_sweep(const cml_plan *plan, const cml_param_values *pv, int write,
                               cml_results *out)
{
    const cml_param_list *offs = cml_param_get(pv, "offset");
    const cml_param_list *paths = cml_param_get(pv, "path");
    const cml_param_list *blocks = cml_param_get(pv, "block");
    cml_exp_abc g = {0};
    cml_status st = CML_OK;
    for (size_t b = 0; b < blocks->count && !st; b++)
        for (size_t p = 0; p < paths->count && !st; p++) {
            size_t first = out->count;
            for (size_t o = 0; o < offs->count && !st; o++) {
                cml_record *rec;
                st = offset_variant(plan, pv, write, offs->v[o], paths->v[p], blocks->v[b], out,
                                    &rec);
                if (!st && plan->gpu) {
                    st = offset_measure(plan, &g, rec, write);
                    if (st == CML_EVERIFY)
                        st = CML_OK; /* recorded as a failed variant; go on */
                }
            }
            /* Up to 5 offsets read well one sentence each; more get a summary. */
            if (!st && offs->count > 5)
                offset_summary(out, first, out->count - 1, write);
        }
    if (plan->gpu)
        cml_exp_abc_free(plan, &g);
    return st;
}

static cml_status read_model(const cml_plan *plan, const cml_param_values *pv, cml_results *out)
{
    return offset_sweep(plan, pv, 0, out);
}

static cml_status write_model(const cml_plan *plan, const cml_param_values *pv, cml_results *out)
{
    return offset_sweep(plan, pv, 1, out);
}

const cml_experiment cml_exp_read_offset = {
    "read-offset", 1, "Misaligned reads",
    "C[i] = A[i+offset] + B[i+offset]: offset sweep through the ca, cg and nc load paths",
    read_params, sizeof read_params / sizeof read_params[0],
    read_model, read_model, "offset=0,1,11,32,128 path=ca,cg,nc",
};

const cml_experiment cml_exp_write_offset = {
    "write-offset", 2, "Misaligned writes",
    "C[i+offset] = A[i] + B[i]: offset sweep through the wb, cg and cs store paths",
    write_params, sizeof write_params / sizeof write_params[0],
    write_model, write_model, "offset=0,1,11,32,128 path=wb",
};
