/*
 * The expr experiment on the CPU (src/experiments/expr/expr.c): the mirror of
 * each generated kernel against counts derived by hand, the one-block
 * shortcut against the full trace, the bounds rule (what is refused, and
 * how), the engine's records and labels, and the built-in set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_test_util.h"
#include "experiments/expr/expr.h"
#include "lab/common.h"
#include "test_util.h"

/* Settings at the row's defaults, then "name=value ..." (single values). */
static cml_expr_settings settings(const char *text)
{
    cml_param_values pv;
    char err[256] = "";
    cml_expr_settings s;
    memset(&s, 0, sizeof s);
    CHECK(cml_lab_options(&cml_exp_expr, text, NULL, &pv, err, sizeof err) == CML_OK);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    for (size_t i = 0; i < pv.ndefs; i++)
        *(int64_t *)(void *)((char *)&s + pv.defs[i].field - 1) = pv.list[i].v[0];
    return s;
}

/* A plan of the model alone holding `exprs`. */
static cml_plan plan_of(const char *const *exprs, size_t n)
{
    cml_plan p;
    memset(&p, 0, sizeof p);
    p.exprs = exprs;
    p.nexprs = n;
    return p;
}

/* Resolve expression 0 of `exprs` with `text` settings and trace it. */
static cml_status point(const char *const *exprs, size_t n, const char *text, cml_expr_point *p,
                        cml_record *rec, char *why, size_t len)
{
    cml_plan plan = plan_of(exprs, n);
    cml_expr_settings s = settings(text);
    int too_big = 0;
    memset(rec, 0, sizeof *rec);
    cml_status st = cml_expr_point_resolve(&plan, (uint64_t)1 << 40, 227u * 1024u, &s, p,
                                           &too_big, why, len);
    if (st == CML_OK)
        st = cml_expr_point_trace(p, rec);
    return st;
}

static const cml_traffic *cls(const cml_record *rec, cml_class c)
{
    return &rec->model[CML_RULES_MODERN].cls[c];
}

/* i*2, 4-byte loads, 1024 threads in blocks of 256: each warp reads 32
 * elements 8 bytes apart (8 sectors) and writes 32 results of 8 bytes
 * (256 contiguous bytes: 8 sectors). */
static void test_global_load(void)
{
    const char *const e[] = {"i*2"};
    cml_expr_point p;
    cml_record rec;
    char why[256] = "";
    CHECK(point(e, 1, "threads=1024", &p, &rec, why, sizeof why) == CML_OK);
    CHECK_EQ_U64(p.n, 2047);
    CHECK_EQ_U64(p.grid, 4);
    CHECK(p.uniform);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->requests, 32);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->sectors, 256);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->requested_bytes, 4096);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->requests, 32);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->sectors, 256);
    CHECK_EQ_U64(rec.grid, 4);
    CHECK_EQ_U64(rec.block, 256);
    CHECK_EQ_U64(p.src_bytes, 2048 * 4);
    CHECK_EQ_U64(p.out_bytes, 1024 * 8);
    CHECK_EQ_U64(p.dst_bytes, 0);
    cml_expr_point_free(&p);
}

/* tx*32 in shared memory, one warp per block, two blocks: the tile is 993
 * elements rounded up to whole lines (1024); each thread fills 32 of them
 * (a global load of 4 sectors and a conflict-free shared store per warp
 * each time), then all 32 lanes read bank 0: 32 wavefronts, 31 conflicts. */
static void test_shared(void)
{
    const char *const e[] = {"tx*32"};
    cml_expr_point p;
    cml_record rec;
    char why[256] = "";
    CHECK(point(e, 1, "space=shared threads=64 bdx=32", &p, &rec, why, sizeof why) == CML_OK);
    CHECK_EQ_U64(p.n, 993);
    CHECK_EQ_U64(p.tile_len, 1024);
    CHECK_EQ_U64(p.smem, 4096);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->requests, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->sectors, 256);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_ST)->requests, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_ST)->wavefronts, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_ST)->bank_conflicts, 0);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_LD)->requests, 2);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_LD)->wavefronts, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_LD)->bank_conflicts, 62);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->requests, 2);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->sectors, 16);
    cml_expr_point_free(&p);

    /* The store: poison (64 conflict-free stores), the column (2 stores of
     * 32 wavefronts), then the tile copied out: 64 shared loads and 64
     * global stores of 128 aligned bytes. */
    CHECK(point(e, 1, "space=shared access=store threads=64 bdx=32", &p, &rec, why, sizeof why) ==
          CML_OK);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_ST)->requests, 66);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_ST)->wavefronts, 128);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_ST)->bank_conflicts, 62);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_LD)->requests, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_SHARED_LD)->wavefronts, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->requests, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->sectors, 256);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->requests, 0);
    CHECK_EQ_U64(p.dst_bytes, 2 * 1024 * 4);
    cml_expr_point_free(&p);
}

/* Constant memory: 32 lanes, 32 addresses: serialised 32 times. */
static void test_constant(void)
{
    const char *const e[] = {"lane"};
    cml_expr_point p;
    cml_record rec;
    char why[256] = "";
    CHECK(point(e, 1, "space=constant threads=64 bdx=32", &p, &rec, why, sizeof why) ==
          CML_OK);
    CHECK_EQ_U64(p.n, 32);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_CONST_LD)->requests, 2);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_CONST_LD)->serialized, 64);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->sectors, 16);
    cml_expr_point_free(&p);
}

/* A constant pattern too large to walk and with no period is sampled; the
 * bound of its constant loads comes from the kernel's own instructions
 * (LDC, the plan's main phase): not zero, as when the sample was told of
 * global loads instead. */
static void test_constant_sampled(void)
{
    const char *const e[] = {"(i*i) % 1000"};
    cml_expr_point p;
    cml_record rec;
    char why[256] = "";
    CHECK(point(e, 1, "space=constant threads=2^22", &p, &rec, why, sizeof why) == CML_OK);
    CHECK(rec.sample.warps > 0);
    cml_traffic half;
    cml_sample_half(&rec, CML_RULES_MODERN, CML_CLASS_CONST_LD, &half);
    CHECK(half.serialized > 0);
    CHECK(half.serialized < cls(&rec, CML_CLASS_CONST_LD)->serialized / 100);
    cml_expr_point_free(&p);
}

/* Copies and stores: the written element's stride decides the sectors. */
static void test_copy_and_store(void)
{
    const char *const e[] = {"i*2", "n - 1 - i"};
    cml_expr_point p;
    cml_record rec;
    char why[256] = "";
    /* dst[2i] = src[i]: reads contiguous (4 sectors), writes every other
     * element (8 sectors), n = 511. */
    CHECK(point(e, 1, "access=copy threads=256", &p, &rec, why, sizeof why) == CML_OK);
    CHECK_EQ_U64(p.n, 511);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->sectors, 32);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->sectors, 64);
    CHECK_EQ_U64(rec.bytes_read, 1024);
    CHECK_EQ_U64(rec.bytes_written, 1024);
    cml_expr_point_free(&p);
    /* with --src n - 1 - i (n = the threads: the source uses n) */
    CHECK(point(e, 2, "access=copy src=2 threads=256", &p, &rec, why, sizeof why) != CML_OK);
    CHECK_STR_CONTAINS(why, "past the 256 elements");
    CHECK(point(e, 2, "access=copy src=2 threads=256 n=512", &p, &rec, why, sizeof why) == CML_OK);
    CHECK_EQ_I64(p.src_lo, 256);
    CHECK_EQ_I64(p.src_hi, 511);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->sectors, 32);
    cml_expr_point_free(&p);
    /* the transposed store: lanes 8 elements apart, one sector each */
    const char *const t[] = {"ty + tx*bdy"};
    CHECK(point(t, 1, "access=store threads=256 bdx=32 bdy=8", &p, &rec, why, sizeof why) ==
          CML_OK);
    CHECK_EQ_U64(p.n, 256);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->requests, 8);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_ST)->sectors, 256);
    CHECK_EQ_U64(cls(&rec, CML_CLASS_GLOBAL_LD)->requests, 0);
    cml_expr_point_free(&p);
}

/* Blocks that repeat every few blocks (not whole lines apart, but whole
 * lines `period` blocks apart): the same totals as tracing every block,
 * the period the one the shifts give. */
static void test_period_shortcut(void)
{
    static const struct {
        const char *expr, *set;
        uint64_t period;
    } cases[] = {
        {"i", "threads=50000 bdx=100", 8},         /* 400 bytes a block */
        {"i*3 + 1", "threads=40000 bdx=33", 32},    /* 396 bytes a block */
        {"i", "threads=30000 bdx=40", 4},          /* 160 bytes a block, results 320 */
        {"i + 7", "access=copy threads=30001 bdx=36 elem=2", 16},
        {"(i%32)*33 + bx*8", "threads=20000 bdx=64", 4},
        {"i*3", "access=store threads=25000 bdx=48 elem=2", 4}, /* 288 bytes a block */
    };
    for (size_t k = 0; k < CML_COUNT(cases); k++) {
        const char *const e[] = {cases[k].expr};
        cml_expr_point p;
        cml_record fast, full;
        char why[256] = "";
        CHECK(point(e, 1, cases[k].set, &p, &fast, why, sizeof why) == CML_OK);
        CHECK(!p.uniform);
        CHECK_EQ_U64(p.period, cases[k].period);
        p.period = 0; /* every block */
        memset(&full, 0, sizeof full);
        CHECK(cml_expr_point_trace(&p, &full) == CML_OK);
        if (memcmp(fast.model, full.model, sizeof fast.model) != 0)
            fprintf(stderr, "%s %s: the periodic trace differs\n", cases[k].expr,
                    cases[k].set);
        CHECK(memcmp(fast.model, full.model, sizeof fast.model) == 0);
        CHECK(memcmp(&fast.levels, &full.levels, sizeof fast.levels) == 0);
        cml_expr_point_free(&p);
    }
}

/* One block for all: the same totals as tracing every block, and taken
 * only where it holds. */
static void test_uniform_shortcut(void)
{
    static const struct {
        const char *expr, *set;
        int uniform;
    } cases[] = {
        {"i*2", "threads=10000", 1},
        {"i + 11", "threads=9999 elem=16", 1},
        {"(i%32)*33", "threads=5000", 1},
        {"(i * 5) % 1024", "threads=5000", 0},
        {"i", "threads=5000 bdx=100", 0}, /* blocks 400 bytes apart */
        {"i", "threads=5000 bdx=96", 1},  /* 384 and 768 bytes apart: whole lines */
        {"tx*33", "space=shared access=store threads=3000 bdx=32 bdy=4", 1},
        {"i*2", "access=copy threads=7000 elem=8", 1},
        {"bx % 3", "threads=4096", 0},
    };
    for (size_t k = 0; k < CML_COUNT(cases); k++) {
        const char *const e[] = {cases[k].expr};
        cml_expr_point p;
        cml_record fast, full;
        char why[256] = "";
        CHECK(point(e, 1, cases[k].set, &p, &fast, why, sizeof why) == CML_OK);
        CHECK_EQ_I64(p.uniform, cases[k].uniform);
        p.uniform = 0;
        memset(&full, 0, sizeof full);
        CHECK(cml_expr_point_trace(&p, &full) == CML_OK);
        if (memcmp(fast.model, full.model, sizeof fast.model) != 0)
            fprintf(stderr, "%s %s: the one-block trace differs\n", cases[k].expr,
                    cases[k].set);
        CHECK(memcmp(fast.model, full.model, sizeof fast.model) == 0);
        cml_expr_point_free(&p);
    }
}

/* The bounds rule of a run: refused with one line naming the expression,
 * the range and the limit; size refusals (a waiver on a run) marked. */
static void test_refusals(void)
{
    static const struct {
        const char *expr, *set, *says;
        int too_big;
    } cases[] = {
        {"i - 1", "threads=1024", "reaches elements -1..1022: an index below 0", 0},
        {"i + n", "threads=1024", "reaches elements 1024..2047, past the 1024 elements", 0},
        {"i", "threads=1024 n=100", "past the 100 elements of the array (n, --n)", 0},
        {"i/0", "threads=1024", "at thread 0: division by zero", 0},
        {"i*65536", "threads=2^24", "of arrays, more than", 1},
        {"tx*1024", "space=shared elem=16 bdx=64 threads=64", "shared memory per block", 1},
        {"lane*4096", "space=constant threads=64", "constant bank", 0},
        {"i", "base=4 elem=8 threads=64", "--base 4: must be a multiple of --elem 8", 0},
        {"i", "base=16 space=shared threads=64", "global memory only", 0},
        {"i", "path=wb threads=64", "--path wb: a store path", 0},
        {"i", "path=nc access=store threads=64", "--path nc: a load path", 0},
        {"i", "space=constant access=store threads=64", "read-only", 0},
        {"i", "bdx=64 bdy=32 threads=64", "2048 threads per block", 0},
        {"1 +", "threads=64", "--expr '1 +'", 0},
    };
    for (size_t k = 0; k < CML_COUNT(cases); k++) {
        const char *const e[] = {cases[k].expr};
        cml_plan plan = plan_of(e, 1);
        cml_expr_settings s = settings(cases[k].set);
        cml_expr_point p;
        int too_big = -1;
        char why[256] = "";
        cml_status st = cml_expr_point_resolve(&plan, (uint64_t)1 << 40, 227u * 1024u, &s, &p,
                                               &too_big, why, sizeof why);
        cml_expr_point_free(&p);
        CHECK(st == CML_EINVAL);
        CHECK_STR_CONTAINS(why, cases[k].says);
        CHECK(strchr(why, '\n') == NULL);
        CHECK_EQ_I64(too_big, cases[k].too_big);
    }
    /* the memory limit is the caller's: 1 MiB refuses 2^18 threads' arrays */
    const char *const e[] = {"i"};
    cml_plan plan = plan_of(e, 1);
    cml_expr_settings s = settings("threads=2^18");
    cml_expr_point p;
    int too_big = 0;
    char why[256] = "";
    CHECK(cml_expr_point_resolve(&plan, 1u << 20, 48u * 1024u, &s, &p, &too_big, why,
                                 sizeof why) == CML_EINVAL);
    CHECK(too_big);
    CHECK_STR_CONTAINS(why, "3.0 MiB of arrays, more than the 1.0 MiB");
    cml_expr_point_free(&p);
    /* an index past the list: no point */
    s = settings("expr=3");
    CHECK(cml_expr_point_resolve(&plan, 1u << 20, 48u * 1024u, &s, &p, &too_big, why,
                                 sizeof why) == CML_SKIP_POINT);
    cml_expr_point_free(&p);
}

/* Through the engine: one record per expression, named and labelled by
 * its text; the command line's check over the whole sweep. */
static void test_engine(void)
{
    static const char *const e[] = {"i", "i*2", "(i%32)*33", "i - 5"};
    cml_param_values pv;
    char err[256] = "";
    CHECK(cml_lab_options(&cml_exp_expr, "expr=0:2 threads=4096 elem=4,8", NULL, &pv, err,
                          sizeof err) == CML_OK);
    cml_results r;
    cml_results_init(&r);
    cml_lab_settings ls;
    memset(&ls, 0, sizeof ls);
    ls.model_only = 1;
    ls.exprs = e;
    ls.nexprs = 3;
    cml_lab lab;
    cml_lab_open(&lab, &ls, &r);
    CHECK(cml_expr_check_all(&lab.plan, &pv, err, sizeof err) == CML_OK);
    CHECK(cml_lab_run(&lab, &cml_exp_expr, &pv, &r) == CML_OK);
    CHECK_EQ_U64(r.count, 6);
    static const char *const names[] = {"i", "i*2", "(i%32)*33",
                                        "i elem=8", "i*2 elem=8", "(i%32)*33 elem=8"};
    static const double spr[] = {4, 8, 32, 8, 16, 32};
    for (size_t k = 0; k < r.count && k < 6; k++) {
        const cml_record *rec = &r.items[k];
        CHECK(!strcmp(rec->variant, names[k]));
        CHECK(!strcmp(rec->params[0].name, "expr") && !strcmp(rec->params[0].label, e[k % 3]));
        CHECK_NEAR(cml_exp_spr(rec, CML_CLASS_GLOBAL_LD), spr[k], 1e-12);
        CHECK(rec->state == CML_REC_OK && !rec->measured);
        CHECK(rec->finding[0] != '\0');
    }
    /* the fourth reaches below 0: the check names it */
    ls.nexprs = 4;
    cml_lab_close(&lab);
    cml_results_free(&r);
    cml_results_init(&r);
    cml_lab_open(&lab, &ls, &r);
    CHECK(cml_lab_options(&cml_exp_expr, "expr=0:3 threads=4096", NULL, &pv, err,
                          sizeof err) == CML_OK);
    CHECK(cml_expr_check_all(&lab.plan, &pv, err, sizeof err) == CML_EINVAL);
    CHECK_STR_CONTAINS(err, "--expr 'i - 5' reaches elements -5..4090");
    /* and a run that checks nothing first waives that record, saying why */
    CHECK(cml_lab_run(&lab, &cml_exp_expr, &pv, &r) == CML_OK);
    CHECK_EQ_U64(r.count, 4);
    CHECK(r.count == 4 && r.items[3].state == CML_REC_WAIVED);
    CHECK(r.count == 4 && strstr(r.items[3].note, "refused: --expr 'i - 5'"));
    cml_lab_close(&lab);
    cml_results_free(&r);
}

/* The built-in set: the option's default covers it; every pattern models. */
static void test_builtins(void)
{
    char want[16];
    snprintf(want, sizeof want, "0:%zu", cml_expr_builtin_count() - 1);
    CHECK(!strcmp(cml_exp_expr.options[0].name, "expr"));
    CHECK(!strcmp(cml_exp_expr.options[0].def, want));
    cml_results r;
    CHECK(run_model(&cml_exp_expr, "threads=2^16", &r) == CML_OK);
    CHECK_EQ_U64(r.count, cml_expr_builtin_count());
    for (size_t k = 0; k < r.count; k++)
        CHECK(r.items[k].state == CML_REC_OK && r.items[k].has_model);
    const cml_record *col = find(&r, "shared column: tx*32");
    if (FOUND(col)) {
        const cml_traffic *t = cls(col, CML_CLASS_SHARED_LD);
        CHECK_EQ_U64(t->bank_conflicts, t->requests * 31);
    }
    /* validate's control line names exactly the shared-memory patterns. */
    size_t lo = 0, hi = 0, nshared = 0;
    for (size_t k = 0; k < cml_expr_builtin_count(); k++)
        if (cml_expr_builtin_at(k)->space == CML_EXPR_SP_SHARED) {
            if (!nshared++)
                lo = k;
            hi = k;
        }
    char control[64];
    snprintf(control, sizeof control, "expr=%zu:%zu residency=one", lo, hi);
    CHECK(nshared == hi - lo + 1);
    CHECK(cml_exp_expr.validate && cml_exp_expr.validate->settings[1] &&
          !strcmp(cml_exp_expr.validate->settings[1], control));
    const cml_record *pad = find(&r, "shared padded column: tx*33");
    if (FOUND(pad))
        CHECK_EQ_U64(cls(pad, CML_CLASS_SHARED_LD)->bank_conflicts, 0);
    const cml_record *s32 = find(&r, "stride 32: i*32");
    if (FOUND(s32))
        CHECK_NEAR(cml_exp_spr(s32, CML_CLASS_GLOBAL_LD), 32.0, 1e-12);
    const cml_record *lane = find(&r, "constant per lane: lane");
    if (FOUND(lane))
        CHECK_EQ_U64(cls(lane, CML_CLASS_CONST_LD)->serialized,
                     cls(lane, CML_CLASS_CONST_LD)->requests * 32);
    cml_results_free(&r);
}

/* Every kernel of the built-in set compiles with NVRTC (no GPU needed)
 * for sm_90 without a warning; the compile times, first and cached. */
static void test_builtins_compile(void)
{
    cml_nvrtc *nv = NULL;
    char why[256];
    if (cml_expr_nvrtc(&nv, why, sizeof why) != CML_OK) {
        printf("test_expr_experiment: NVRTC part skipped: %s\n", why);
        return;
    }
    cml_plan plan = plan_of(NULL, 0);
    for (size_t k = 0; k < cml_expr_builtin_count(); k++) {
        char set[64];
        snprintf(set, sizeof set, "expr=%zu threads=4096", k);
        cml_expr_settings s = settings(set);
        cml_expr_point p;
        int too_big = 0;
        why[0] = '\0';
        CHECK(cml_expr_point_resolve(&plan, (uint64_t)1 << 40, 48u * 1024u, &s, &p, &too_big,
                                     why, sizeof why) == CML_OK);
        char *src = NULL;
        CHECK(cml_expr_kernel_source(&p.kernel, &src) == CML_OK);
        cml_nvrtc_result r, again;
        char err[4096] = "";
        cml_status st = src ? cml_nvrtc_compile(nv, src, 9, 0, &r, err, sizeof err) : CML_EINVAL;
        if (st != CML_OK || (r.log && r.log[0]))
            fprintf(stderr, "%s: %s%s\n", p.text, err, st == CML_OK ? r.log : "");
        CHECK(st == CML_OK && r.log && !r.log[0]);
        if (st == CML_OK) {
            CHECK(cml_nvrtc_compile(nv, src, 9, 0, &again, err, sizeof err) == CML_OK);
            CHECK(again.cached && again.cubin == r.cubin);
            printf("  %-22s compiled in %7.2f ms%s, again %.4f ms\n", p.name, r.compile_ms,
                   r.cached ? " (cached)" : "", again.compile_ms);
        }
        free(src);
        cml_expr_point_free(&p);
    }
}

int main(void)
{
    test_global_load();
    test_shared();
    test_constant();
    test_constant_sampled();
    test_copy_and_store();
    test_uniform_shortcut();
    test_period_shortcut();
    test_refusals();
    test_engine();
    test_builtins();
    test_builtins_compile();
    return cml_test_summary("test_expr_experiment");
}
