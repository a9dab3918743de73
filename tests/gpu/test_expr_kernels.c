/*
 * The expr experiment on a GPU (src/experiments/expr/expr.c, expr_gpu.c): the
 * built-in set (what validate and the tour run), then user expressions over
 * every operation, space, element size and path, odd thread counts and 2-D
 * blocks, each compiled with NVRTC for this device, launched, timed and
 * checked on the host (expr_gpu.c: loads against a recomputation, stores
 * and copies element by element, poison elsewhere). Every record must be
 * measured and verified, with its compile times recorded. Without a GPU:
 * "SKIP: <reason>", exit 77; without NVRTC too.
 */
#include <stdio.h>
#include <string.h>

#include "lab/common.h"
#include "experiments/expr/expr.h"
#include "gpu/gpu.h"
#include "gpu_test_util.h"
#include "../test_util.h"

static cml_gpu *g;

static double extra_of(const cml_record *rec, const char *name)
{
    for (unsigned i = 0; i < rec->nextra; i++)
        if (!strcmp(rec->extra[i].name, name))
            return rec->extra[i].value;
    return -1.0;
}

/* Run the experiment on plan with `settings`; every record measured,
 * verified, with both compile times. */
static void run(const char *what, cml_plan *plan, const char *settings, size_t want_records)
{
    cml_param_values pv;
    char err[512] = "";
    cml_status st = cml_lab_options(&cml_exp_expr, settings, what, &pv, err, sizeof err);
    if (st)
        fprintf(stderr, "%s: %s\n", what, err);
    CHECK(st == CML_OK);
    if (st)
        return;
    /* the command line's check passes first */
    st = cml_expr_check_all(plan, &pv, err, sizeof err);
    if (st)
        fprintf(stderr, "%s: refused: %s\n", what, err);
    CHECK(st == CML_OK);
    cml_results r;
    tour_run(&cml_exp_expr, plan, &pv, &r);
    if (want_records)
        CHECK_EQ_U64(r.count, want_records);
    for (size_t k = 0; k < r.count; k++) {
        const cml_record *rec = &r.items[k];
        check_tour_record(&cml_exp_expr, rec);
        double first = extra_of(rec, "compile_ms"), again = extra_of(rec, "cached_compile_ms");
        CHECK(first >= 0.0 && again >= 0.0);
        CHECK(rec->bandwidth_gbs > 0.0);
        CHECK(rec->has_model);
        printf("%-10s %-44s %9.1f GB/s  compile %7.2f ms, cached %.4f ms\n", what,
               rec->variant, rec->bandwidth_gbs, first, again);
    }
    cml_results_free(&r);
}

int main(void)
{
    int rc = gpu_test_open(&g, "test_expr_kernels");
    if (rc)
        return rc;
    cml_nvrtc *nv = NULL;
    char why[256];
    if (cml_expr_nvrtc(&nv, why, sizeof why) != CML_OK) {
        printf("SKIP: %s\n", why);
        gpu_test_close(g);
        return 77;
    }
    cml_plan plan;
    gpu_test_plan(&plan, g);

    /* The built-in set, at a moderate size. */
    run("built-in", &plan, "threads=2^22", cml_expr_builtin_count());

    /* User expressions: loads at every width, a partial last block. */
    static const char *const loads[] = {"i", "i*2 + 1", "(i%32)*33", "i/3", "min(i, n - 1)",
                                        "n - 1 - i", "i ^ 1", "lane*4 + (i >> 5)*128"};
    plan.exprs = loads;
    plan.nexprs = CML_COUNT(loads);
    run("loads", &plan, "expr=0:7 elem=1,2,4,8,16 threads=100003 bdx=128", 40);
    run("paths", &plan, "expr=0:2 path=cg,nc,cs threads=65536", 9);
    run("base", &plan, "expr=0,2 base=4,132 threads=65536", 4);

    /* Stores through each path; several threads writing one element. */
    static const char *const stores[] = {"i", "i*2", "i/2", "ty + tx*bdy", "(i*7) % 1000"};
    plan.exprs = stores;
    plan.nexprs = CML_COUNT(stores);
    run("stores", &plan, "expr=0:4 access=store path=wb,cg,cs elem=4,16 bdx=32 bdy=8 threads=50000",
        30);

    /* Copies: dst[idx] = src[i], and with --src (the list's last entry). */
    static const char *const copies[] = {"i*2", "n - 1 - i", "i/2", "n - 1 - i"};
    plan.exprs = copies;
    plan.nexprs = CML_COUNT(copies);
    run("copies", &plan, "expr=0:2 access=copy elem=2,8 threads=40000", 6);
    run("copy-src", &plan, "expr=1,2 access=copy src=4 elem=4 threads=40000 n=40000", 2);

    /* Shared memory: loads and stores, 2-D blocks, conflicts and not. */
    static const char *const shared[] = {"tx*32", "tx*33", "ty + tx*bdy", "lane", "0"};
    plan.exprs = shared;
    plan.nexprs = CML_COUNT(shared);
    run("shared", &plan, "expr=0:4 space=shared access=load,store elem=4,8 bdx=32 bdy=4 "
                         "threads=30000", 20);

    /* Constant memory: broadcast and serialised. */
    static const char *const consts[] = {"0", "lane", "i % 64", "bx % 16"};
    plan.exprs = consts;
    plan.nexprs = CML_COUNT(consts);
    run("constant", &plan, "expr=0:3 space=constant elem=4,16 threads=70000", 8);

    gpu_test_close(g);
    return cml_test_summary("test_expr_kernels");
}
