/*
 * The model over a trace (src/trace/trace_model.h), on traces of the lab's
 * own kernels: each committed trace of tests/data/trace/ is a mirror's
 * launch recorded as the injection library records a real one
 * (cml_tf_write_mirror), so what the model makes of the trace must be what
 * the lab knows of that kernel:
 *   - the figures derived by hand below, per instruction (pc) and kernel;
 *   - the experiment's own record for the same launch, run through the
 *     engine on the model alone: every class's requests, sectors and
 *     wavefronts, and the cache levels' figures, equal.
 * The traces are written again here and must be the committed bytes (so
 * the format, the writer and the mirrors cannot drift from them unseen).
 * `test_trace_model --write DIR` writes them (how they were made).
 */
#define _XOPEN_SOURCE 700 /* getpid */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment_rows.h" /* the rows, declared by the build */
#include "experiment_test_util.h"
#include "experiments/offset/offset_body.h"
#include "experiments/shared_banks/shared_banks_body.h"
#include "experiments/stride/stride_body.h"
#include "experiments/transpose/transpose_body.h"
#include "test_util.h"
#include "trace/trace_mirror.h"
#include "trace/trace_model.h"
#include "trace/trace_report.h"

/* One trace: a file name, the kernel's name, its launch, the experiment
 * and the settings that make the same launch. */
typedef struct fixture {
    const char *file, *kernel;
    const cml_experiment *exp;
    const char *settings;
    cml_dim3 grid, block;
    uint64_t smem;
    cml_thread_fn fn;
    const void *args;
    const char *cubin;       /* the module's cubin the trace names ("": none) */
    const uint32_t *site_pc; /* the sites' SASS offsets there (NULL: 16 * site) */
} fixture;

#define NFIX 5

/* naiveRow of tests/data/trace/lines.cu is the lab's naive-row transpose:
 * its load (site 0) and store (site 1) are at 0x120 and 0x150 of
 * lines.cubin (tests/data/trace/lines.sass), lines 8 of lines.cu both. */
static const uint32_t naive_row_pcs[2] = {0x120, 0x150};

/* read-offset, offset 1: C[i] = A[i+1] + B[i+1], i < 2047, 4 blocks of 512 */
static const cml_offset_args offset_args = {2048, 1, CML_CACHE_CA, 0};
/* stride 2: C[i] = A[2i], 2048 threads in 8 blocks of 256 */
static const cml_stride_args stride_args = {CML_STRIDE_READ, 4096, 2, 0};
/* transpose naive-row on 32 x 32 floats, blocks of 32 x 8: out[x*32 + y] = in[y*32 + x] */
static const cml_transpose_args transpose_args = {32, 32, CML_TR_NAIVE_ROW};
/* a 32 x 32 word tile written by rows and read by columns, 2 blocks, one round */
static const cml_banks_args banks_args = {CML_BANKS_TILE, 32, 32, 32, 0, 1, 4, 1};

static fixture fixtures[NFIX];

static void make_fixtures(void)
{
    const cml_dim3 one = {1, 1, 1};
    fixture f[NFIX] = {
        {"read-offset.trace", "readOffset", &cml_exp_read_offset,
         "offset=1 n=2048 block=512 path=ca", {4, 1, 1}, {512, 1, 1}, 0, cml_offset_mirror,
         &offset_args, "", NULL},
        {"stride.trace", "stride", &cml_exp_stride, "pattern=stride stride=2 n=4096 block=256",
         {8, 1, 1}, {256, 1, 1}, 0, cml_stride_mirror, &stride_args, "", NULL},
        {"transpose-naive-row.trace", "transposeNaiveRow", &cml_exp_transpose,
         "kernel=naive-row block=32x8 nx=32 ny=32", one, one, 0, cml_transpose_mirror,
         &transpose_args, "", NULL},
        {"shared-banks-col.trace", "smemTileRowCol", &cml_exp_shared_banks,
         "pattern=tile tile=32x32 access=row-col pad=0 alloc=static blocks=2 iters=1",
         {2, 1, 1}, {1024, 1, 1}, 32 * 32 * 4, cml_banks_mirror, &banks_args, "", NULL},
        {"naive-row-lines.trace", "naiveRow", &cml_exp_transpose,
         "kernel=naive-row block=32x8 nx=32 ny=32", one, one, 0, cml_transpose_mirror,
         &transpose_args, "tests/data/trace/lines.cubin", naive_row_pcs},
    };
    cml_tr_shape(CML_TR_NAIVE_ROW, 32, 32, 32, 8, &f[2].grid, &f[2].block);
    f[4].grid = f[2].grid;
    f[4].block = f[2].block;
    memcpy(fixtures, f, sizeof f);
}

/* Write fixture f's trace to path: 0, or -1. */
static int write_fixture(const fixture *f, const char *path)
{
    char err[256];
    /* An H100's SMs and L2 (cml_cache_config_h100), as the model assumes. */
    cml_tf_header h = {"model (the lab's mirror)", 90, 132, 50u << 20, "", 0, 256u << 20,
                       "test_trace_model --write"};
    cml_tf_writer *w = cml_tf_writer_open(path, &h, err, sizeof err);
    if (!w) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    cml_tf_func fn = {0, f->kernel, "", 1, f->cubin};
    int rc = cml_tf_write_func(w, &fn);
    if (rc == 0 && cml_tf_write_mirror(w, 0, 0, f->grid, f->block, f->smem, f->fn, f->args,
                                       f->site_pc) != CML_OK)
        rc = -1;
    if (cml_tf_writer_close(w) != 0)
        rc = -1;
    return rc;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1u << 16, len = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        size_t got = fread(b + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
        if (len == cap) {
            uint8_t *nb = realloc(b, cap * 2u);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
            cap *= 2u;
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* The committed trace is the one written now, byte for byte. */
static void check_committed(const fixture *f)
{
    char fresh[512], committed[512];
    const char *dir = getenv("TMPDIR");
    snprintf(fresh, sizeof fresh, "%s/cml_trace_%ld_%s", dir && *dir ? dir : "/tmp",
             (long)getpid(), f->file);
    snprintf(committed, sizeof committed, "%s/%s", CML_TRACE_DATA, f->file);
    CHECK_EQ_I64(write_fixture(f, fresh), 0);
    size_t na = 0, nb = 0;
    uint8_t *a = slurp(fresh, &na), *b = slurp(committed, &nb);
    CHECK(a != NULL && b != NULL);
    CHECK_EQ_U64(na, nb);
    if (a && b && (na != nb || memcmp(a, b, na) != 0)) {
        cml_test_failures++;
        fprintf(stderr, "%s: differs from the trace written now (test_trace_model --write "
                        "tests/data/trace writes it again)\n", committed);
    }
    free(a);
    free(b);
    remove(fresh);
}

/* The model of the committed trace's only launch. */
static int model_of(const fixture *f, cml_trace *t, cml_tf_model *m)
{
    char path[512], err[400];
    snprintf(path, sizeof path, "%s/%s", CML_TRACE_DATA, f->file);
    if (cml_tf_read(path, t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        CHECK(0);
        return -1;
    }
    CHECK_EQ_U64(t->nkernels, 1);
    CHECK_EQ_I64(t->complete, 1);
    if (t->nkernels != 1 || cml_tf_model_kernel(t, &t->kernel[0], m) != CML_OK) {
        CHECK(0);
        cml_tf_free(t);
        return -1;
    }
    return 0;
}

/* The model's figures of the trace equal the experiment's record of the
 * same launch: every class, and the cache levels. */
static void check_against_record(const fixture *f, const cml_tf_model *m)
{
    cml_results r;
    CHECK_EQ_I64(run_model(f->exp, f->settings, &r), CML_OK);
    CHECK_EQ_U64(r.count, 1);
    if (r.count != 1) {
        cml_results_free(&r);
        return;
    }
    const cml_record *rec = &r.items[0];
    for (unsigned c = 0; c < CML_CLASS_COUNT; c++) {
        const cml_traffic *x = &m->cls.cls[c], *y = &rec->model[CML_RULES_MODERN].cls[c];
        if (x->requests != y->requests || x->sectors != y->sectors ||
            x->wavefronts != y->wavefronts || x->bank_conflicts != y->bank_conflicts ||
            x->requested_bytes != y->requested_bytes || x->instructions != y->instructions)
            fprintf(stderr, "%s: class %s differs from the record %s\n", f->file,
                    cml_class_name((cml_class)c), rec->variant);
        CHECK_EQ_U64(x->instructions, y->instructions);
        CHECK_EQ_U64(x->requests, y->requests);
        CHECK_EQ_U64(x->sectors, y->sectors);
        CHECK_EQ_U64(x->requested_bytes, y->requested_bytes);
        CHECK_EQ_U64(x->wavefronts, y->wavefronts);
        CHECK_EQ_U64(x->bank_conflicts, y->bank_conflicts);
    }
    /* every fixture touches global memory: the levels have figures to compare */
    CHECK_EQ_I64(m->has_levels, 1);
    CHECK_EQ_I64(rec->has_levels, 1);
    if (m->has_levels && rec->has_levels) {
        CHECK_EQ_U64(m->levels.l1_hit_sectors, rec->levels.l1_hit_sectors);
        CHECK_EQ_U64(m->levels.l2_read_sectors, rec->levels.l2_read_sectors);
        CHECK_EQ_U64(m->levels.l2_write_sectors, rec->levels.l2_write_sectors);
        CHECK_EQ_U64(m->levels.dram_read_bytes, rec->levels.dram_read_bytes);
        CHECK_EQ_U64(m->levels.dram_write_bytes, rec->levels.dram_write_bytes);
        CHECK_EQ_U64(m->levels.footprint_bytes, rec->levels.footprint_bytes);
        CHECK_EQ_I64(rec->levels.sampled, 0);
    }
    cml_results_free(&r);
}

/* The site at pc, or a failed check and NULL. */
static const cml_tf_site *site_at(const cml_tf_model *m, uint32_t pc)
{
    for (size_t i = 0; i < m->nsites; i++)
        if (m->sites[i].pc == pc)
            return &m->sites[i];
    cml_test_failures++;
    fprintf(stderr, "no instruction at pc %u\n", pc);
    return NULL;
}

/*
 * read-offset, offset 1, n 2048, blocks of 512: 64 warps; i < 2047 (the
 * last warp has 31 lanes). A and B loads (sites 0, 1): 32 floats from 4
 * bytes past a sector boundary span 5 sectors (the last warp: bytes 4..127
 * of its 128, 4 sectors): 63 * 5 + 4 = 319 sectors for 2047 * 4 = 8188
 * bytes asked, 10208 moved, 2020 wasted each. C store (site 2): aligned, 4
 * sectors a warp (the last: 124 bytes in 4 sectors): 256 sectors, 4 bytes
 * wasted.
 */
static void test_read_offset(const fixture *f)
{
    cml_trace t;
    cml_tf_model m;
    if (model_of(f, &t, &m) != 0)
        return;
    CHECK_EQ_U64(m.records, 192);
    CHECK_EQ_U64(m.nsites, 3);
    const cml_tf_site *a = site_at(&m, 0), *b = site_at(&m, 16), *c = site_at(&m, 32);
    if (FOUND(a) && FOUND(b) && FOUND(c)) {
        CHECK_EQ_U64(a->traffic.requests, 64);
        CHECK_EQ_U64(a->traffic.sectors, 319);
        CHECK_EQ_U64(a->traffic.requested_bytes, 8188);
        CHECK_EQ_U64(a->waste, 2020);
        CHECK_EQ_U64(b->traffic.sectors, 319);
        CHECK_EQ_U64(c->op, CML_TF_STORE);
        CHECK_EQ_U64(c->traffic.requests, 64);
        CHECK_EQ_U64(c->traffic.sectors, 256);
        CHECK_EQ_U64(c->waste, 4);
    }
    /* ranked by waste: the loads (pc order between equals), then the store */
    CHECK_EQ_U64(m.sites[0].pc, 0);
    CHECK_EQ_U64(m.sites[1].pc, 16);
    CHECK_EQ_U64(m.sites[2].pc, 32);
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_GLOBAL_LD].sectors, 638);
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_GLOBAL_ST].sectors, 256);
    check_against_record(f, &m);
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

/*
 * stride 2: 2048 threads, 64 warps. A[2i]: lanes 8 bytes apart span 256
 * bytes, 8 sectors a request for 128 bytes asked: 512 sectors, 8192 bytes
 * wasted. C[i]: 4 sectors a request, 256, none wasted.
 */
static void test_stride(const fixture *f)
{
    cml_trace t;
    cml_tf_model m;
    if (model_of(f, &t, &m) != 0)
        return;
    CHECK_EQ_U64(m.records, 128);
    CHECK_EQ_U64(m.nsites, 2);
    const cml_tf_site *top = m.nsites ? &m.sites[0] : NULL;
    if (FOUND(top)) {
        CHECK_EQ_U64(top->op, CML_TF_LOAD);
        CHECK_EQ_U64(top->traffic.requests, 64);
        CHECK_EQ_U64(top->traffic.sectors, 512);
        CHECK_EQ_U64(top->waste, 8192);
        CHECK_NEAR(cml_traffic_efficiency(&top->traffic), 0.5, 1e-12);
    }
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_GLOBAL_ST].sectors, 256);
    check_against_record(f, &m);
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

/*
 * transpose naive-row, 32 x 32 floats, blocks of 32 x 8 (a grid of 1 x 4):
 * 32 warps, each one row y of 32 x. Load in[y*32 + x]: 4 sectors. Store
 * out[x*32 + y]: lanes 128 bytes apart, 32 sectors for 128 bytes asked:
 * 1024 sectors, 32 * (1024 - 128) = 28672 bytes wasted: the worst.
 */
static void test_transpose(const fixture *f)
{
    cml_trace t;
    cml_tf_model m;
    if (model_of(f, &t, &m) != 0)
        return;
    CHECK_EQ_U64(t.kernel[0].grid[0], 1);
    CHECK_EQ_U64(t.kernel[0].grid[1], 4);
    CHECK_EQ_U64(m.records, 64);
    const cml_tf_site *top = m.nsites ? &m.sites[0] : NULL;
    if (FOUND(top)) {
        CHECK_EQ_U64(top->op, CML_TF_STORE);
        CHECK_EQ_U64(top->pc, f->site_pc ? f->site_pc[1] : 16u);
        CHECK_EQ_U64(top->traffic.requests, 32);
        CHECK_EQ_U64(top->traffic.sectors, 1024);
        CHECK_EQ_U64(top->waste, 28672);
        CHECK_EQ_U64(top->example.addr[1] - top->example.addr[0], 128);
    }
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_GLOBAL_LD].sectors, 128);
    check_against_record(f, &m);
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

/*
 * A 32 x 32 word tile, 2 blocks of 1024 threads, 64 warps. Row store
 * tile[ty][tx]: 32 consecutive words, 1 wavefront. Column load
 * tile[lane][warp]: 32 words 128 bytes apart, all in one bank: 32
 * wavefronts, 31 conflicts: 64 * 31 = 1984 conflicts, 253952 bytes of
 * wavefronts wasted, the worst. The global store: 4 sectors a warp.
 */
static void test_banks(const fixture *f)
{
    cml_trace t;
    cml_tf_model m;
    if (model_of(f, &t, &m) != 0)
        return;
    CHECK_EQ_U64(m.records, 192);
    CHECK_EQ_U64(m.nsites, 3);
    const cml_tf_site *top = m.nsites ? &m.sites[0] : NULL;
    if (FOUND(top)) {
        CHECK_EQ_U64(top->space, CML_TF_SHARED);
        CHECK_EQ_U64(top->op, CML_TF_LOAD);
        CHECK_EQ_U64(top->traffic.requests, 64);
        CHECK_EQ_U64(top->traffic.wavefronts, 2048);
        CHECK_EQ_U64(top->traffic.bank_conflicts, 1984);
        CHECK_EQ_U64(top->waste, 253952);
    }
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_SHARED_ST].wavefronts, 64);
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_SHARED_ST].bank_conflicts, 0);
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_GLOBAL_ST].sectors, 256);
    check_against_record(f, &m);
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

/*
 * The lanes' picture (trace_report.h): sectors numbered by address among
 * the warp's, whatever the lanes' order; banks by their number; '.' for
 * an inactive lane.
 */
static void test_picture(void)
{
    cml_tf_ins r;
    char line[33];
    memset(&r, 0, sizeof r);
    r.size = 4;
    r.active = 0xFFFFFFFFu;
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = 1u << 20 | (31u - l) * 64u; /* descending, a sector each */
    CHECK_EQ_U64(cml_tf_picture(&r, line), 32);
    CHECK_STR_EQ(line, "vutsrqponmlkjihgfedcba9876543210");
    r.active = 0x0000FFF0u; /* lanes 4-15, floats 4 apart from 0x1010: sectors 0 and 1 */
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = 0x1000u + 4u * l;
    CHECK_EQ_U64(cml_tf_picture(&r, line), 2);
    CHECK_STR_EQ(line, "....000011111111................");
    r.space = CML_TF_SHARED; /* 8-byte words: lane l at bank 2l mod 32 */
    r.size = 8;
    r.active = 0xFFFFFFFFu;
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = 8u * l;
    CHECK_EQ_U64(cml_tf_picture(&r, line), 16);
    CHECK_STR_EQ(line, "02468acegikmoqsu02468acegikmoqsu");
}

/*
 * A sampled launch: 8 warps of 32 threads, every other warp recorded
 * (stride 2), warp 6 lost to a full buffer: warps 0, 2 and 4 have records.
 * The reader takes it; the report says which share of the launch it is.
 */
static void test_sampled(void)
{
    char path[256], err[400];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/cml_sampled_%ld.trace", dir && *dir ? dir : "/tmp",
             (long)getpid());
    cml_tf_header h = {"test", 90, 132, 0, "", 0, 1u << 20, "sampled"};
    cml_tf_writer *w = cml_tf_writer_open(path, &h, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    cml_tf_func fn = {0, "k", "", 1, ""};
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    k.grid[0] = 2;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = 128;
    k.block[1] = k.block[2] = 1;
    k.warps_total = 8;
    k.stride = 2;
    k.warps_recorded = 3;
    k.warps_lost = 1;
    cml_tf_ins ins[3];
    memset(ins, 0, sizeof ins);
    for (unsigned i = 0; i < 3; i++) {
        const unsigned wid = 2u * i; /* warps 0, 2 (block 0) and 4 (block 1, warp 0) */
        ins[i].block = wid / 4u;
        ins[i].warp = wid % 4u;
        ins[i].size = 4;
        ins[i].active = 0xFFFFFFFFu;
        for (unsigned l = 0; l < 32; l++)
            ins[i].addr[l] = 128u * (32u * wid + l); /* a sector per lane */
    }
    CHECK_EQ_I64(cml_tf_write_func(w, &fn), 0);
    CHECK_EQ_I64(cml_tf_write_kernel(w, &k, ins, 3), 0);
    CHECK_EQ_I64(cml_tf_writer_close(w), 0);
    cml_trace t;
    CHECK_EQ_I64(cml_tf_read(path, &t, err, sizeof err), 0);
    remove(path);
    if (t.nkernels != 1) {
        CHECK(0);
        return;
    }
    cml_tf_model m;
    CHECK_EQ_I64(cml_tf_model_kernel(&t, &t.kernel[0], &m), CML_OK);
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_GLOBAL_LD].requests, 3);
    CHECK_EQ_U64(m.cls.cls[CML_CLASS_GLOBAL_LD].sectors, 96);
    CHECK_EQ_I64(m.has_levels, 1);
    CHECK_STR_EQ(m.no_levels, "of the recorded warps only: the launch was sampled");
    cml_tf_report r = {&t, &m, "sampled.trace", 3, 10, NULL, NULL, NULL};
    static char text[16384];
    FILE *f = tmpfile();
    if (f) {
        CHECK_EQ_I64(cml_tf_report_text(f, &r), CML_OK);
        rewind(f);
        text[fread(text, 1, sizeof text - 1u, f)] = '\0';
        fclose(f);
    }
    CHECK_STR_CONTAINS(text, "Note: k was sampled: one warp in 2 was recorded, 1 of those left "
                             "out when the buffer (--budget) filled; its totals are those of "
                             "the 3 warps recorded, of 8.");
    cml_tf_model_free(&m);
    cml_tf_free(&t);
}

int main(int argc, char **argv)
{
    make_fixtures();
    if (argc == 3 && !strcmp(argv[1], "--write")) {
        for (unsigned i = 0; i < NFIX; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", argv[2], fixtures[i].file);
            if (write_fixture(&fixtures[i], path) != 0)
                return 1;
            printf("wrote %s\n", path);
        }
        return 0;
    }
    for (unsigned i = 0; i < NFIX; i++)
        check_committed(&fixtures[i]);
    test_read_offset(&fixtures[0]);
    test_stride(&fixtures[1]);
    test_transpose(&fixtures[2]);
    test_banks(&fixtures[3]);
    /* the same transpose at the SASS offsets of lines.cubin: the store,
     * at 0x150, first */
    test_transpose(&fixtures[4]);
    test_picture();
    test_sampled();
    return cml_test_summary("test_trace_model");
}
