/*
 * The trace file (src/trace/trace_file.h, docs/trace-format.md): a small
 * file written out byte by byte from the format's description, which the
 * writer must produce exactly and the reader must read back field by field;
 * then the same file damaged in the ways a hostile or truncated file is
 * (each fault named with its offset and chunk), every prefix of it and
 * every single-byte change of it parsed without a crash (the sanitizer
 * build runs this too; tests/fuzz/fuzz_trace.c goes further).
 */
#define _XOPEN_SOURCE 700 /* getpid */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace_file.h"
#include "test_util.h"

/* The file, by hand. A 2 x 40-thread grid (two warps a block, the second
 * of 8 lanes); three records: a coalesced float load of warp 0 of block 0
 * at 0x1000, the same instruction in warp 1 (lanes 0-7, at 0x1080), and a
 * shared store by lanes 0 and 2 of block 1 at offsets 128 and 0. */
static uint8_t expect[512];
static size_t nexpect;

static void b(const char *bytes, size_t n)
{
    memcpy(expect + nexpect, bytes, n);
    nexpect += n;
}
#define B(...)                                                                             \
    do {                                                                                   \
        const char x_[] = {__VA_ARGS__};                                                   \
        b(x_, sizeof x_);                                                                  \
    } while (0)
/* A chunk header: the tag, then the payload's length as a little-endian u64. */
static void chunk(const char *tag, unsigned len)
{
    b(tag, 4);
    B((char)len, 0, 0, 0, 0, 0, 0, 0);
}

static void build_expected(void)
{
    nexpect = 0;
    b("CMLTRACE", 8);
    B(1, 0, 0, 0);
    chunk("HEAD", 18);
    B(4, 'H', '1', '0', '0');     /* device */
    B(90);                        /* sm 9.0 */
    B((char)0x84, 1);             /* 132 SMs: 4 | 1 << 7 */
    B(0);                         /* L2 size not known */
    B(0);                         /* kernel filter "" */
    B(0);                         /* launch 0 */
    B((char)0x80, (char)0x80, 0x40); /* budget 2^20: 0, 0, 64 in 7-bit groups */
    B(3, '.', '/', 'a');          /* command */
    chunk("FUNC", 6);
    B(0, 1, 'k', 0, 7, 0);        /* id 0, "k", no demangled name, module 7, no cubin */
    chunk("KERN", 90);
    B(0, 0, 2, 1, 1, 40, 1, 1, 0); /* func, launch, grid 2x1x1, block 40x1x1, smem */
    B(4, 1, 3, 0, 3);             /* 4 warps, stride 1, 3 recorded, 0 lost, 3 records */
    /* record 0: func 0, pc 16, global load, 4 bytes, block 0, warp 0, all lanes */
    B(0, 16, 0, 4, 0, 0, (char)0xFF, (char)0xFF, (char)0xFF, (char)0xFF);
    B((char)0x80, 0x20);          /* lane 0 at 0x1000 (0 | 32 << 7) */
    for (int l = 1; l < 32; l++)
        B(8);                     /* +4: zigzag 8 */
    /* record 1: the same in warp 1, lanes 0-7 at 0x1080 */
    B(0, 16, 0, 4, 0, 1, (char)0xFF, 0, 0, 0, (char)0x80, 0x21);
    for (int l = 1; l < 8; l++)
        B(8);
    /* record 2: pc 32, shared (1) store (1 << 2), block 1, warp 0, lanes 0 and
     * 2 at 128 and 0 (-128: zigzag 255) */
    B(0, 32, 5, 4, 1, 0, 5, 0, 0, 0, (char)0x80, 1, (char)0xFF, 1);
    chunk("END ", 1);
    B(1);
}

static cml_tf_ins records[3];

static void build_records(void)
{
    memset(records, 0, sizeof records);
    for (int i = 0; i < 3; i++) {
        records[i].pc = i < 2 ? 16 : 32;
        records[i].size = 4;
    }
    records[0].active = 0xFFFFFFFFu;
    for (int l = 0; l < 32; l++)
        records[0].addr[l] = 0x1000u + 4u * (unsigned)l;
    records[1].warp = 1;
    records[1].active = 0xFFu;
    for (int l = 0; l < 8; l++)
        records[1].addr[l] = 0x1080u + 4u * (unsigned)l;
    records[2].space = CML_TF_SHARED;
    records[2].op = CML_TF_STORE;
    records[2].block = 1;
    records[2].active = 5u;
    records[2].addr[0] = 128;
    records[2].addr[2] = 0;
}

static const char *tmp_path(void)
{
    static char path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/cml_test_trace_%ld.trace", dir && *dir ? dir : "/tmp",
             (long)getpid());
    return path;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc(4096);
    *n = f && buf ? fread(buf, 1, 4096, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static cml_tf_kernel kernel_desc(void)
{
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    k.grid[0] = 2;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = 40;
    k.block[1] = k.block[2] = 1;
    k.warps_total = 4;
    k.stride = 1;
    k.warps_recorded = 3;
    return k;
}

static void test_writer_bytes(void)
{
    const char *path = tmp_path();
    char err[256] = "";
    cml_tf_header h = {"H100", 90, 132, 0, "", 0, 1u << 20, "./a"};
    cml_tf_writer *w = cml_tf_writer_open(path, &h, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    cml_tf_func f = {0, "k", "", 7, ""};
    CHECK_EQ_I64(cml_tf_write_func(w, &f), 0);
    cml_tf_kernel k = kernel_desc();
    /* a record out of order is refused, and nothing of it is written */
    cml_tf_ins swapped[2] = {records[2], records[0]};
    CHECK_EQ_I64(cml_tf_write_kernel(w, &k, swapped, 2), -1);
    CHECK_EQ_I64(cml_tf_write_kernel(w, &k, records, 3), 0);
    CHECK_EQ_I64(cml_tf_writer_close(w), 0);
    size_t n = 0;
    uint8_t *got = slurp(path, &n);
    CHECK_EQ_U64(n, nexpect);
    CHECK(got && n == nexpect && memcmp(got, expect, n) == 0);
    for (size_t i = 0; got && i < n && i < nexpect; i++)
        if (got[i] != expect[i]) {
            fprintf(stderr, "byte %zu: 0x%02x, expected 0x%02x\n", i, got[i], expect[i]);
            break;
        }
    free(got);
    remove(path);
}

/* Parse a copy of bytes; the error line in err. */
static int parse_copy(const uint8_t *bytes, size_t n, cml_trace *t, char *err, size_t len)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return -1;
    memcpy(copy, bytes, n);
    return cml_tf_parse(copy, n, t, err, len);
}

static void test_reader(void)
{
    cml_trace t;
    char err[400] = "";
    CHECK_EQ_I64(parse_copy(expect, nexpect, &t, err, sizeof err), 0);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    CHECK_STR_EQ(t.device ? t.device : "", "H100");
    CHECK_EQ_U64(t.sm, 90);
    CHECK_EQ_U64(t.sms, 132);
    CHECK_EQ_U64(t.budget, 1u << 20);
    CHECK_STR_EQ(t.command ? t.command : "", "./a");
    CHECK_EQ_I64(t.complete, 1);
    CHECK_EQ_U64(t.nfuncs, 1);
    CHECK_EQ_U64(t.nkernels, 1);
    if (t.nfuncs == 1 && t.nkernels == 1) {
        CHECK_STR_EQ(t.funcs[0].name, "k");
        CHECK_EQ_U64(t.funcs[0].module, 7);
        const cml_tf_kernel *k = &t.kernel[0];
        CHECK_EQ_U64(k->grid[0], 2);
        CHECK_EQ_U64(k->block[0], 40);
        CHECK_EQ_U64(k->warps_total, 4);
        CHECK_EQ_U64(k->warps_recorded, 3);
        CHECK_EQ_U64(k->nins, 3);
        cml_tf_cursor c;
        cml_tf_cursor_init(&c, k);
        cml_tf_ins r;
        for (int i = 0; i < 3; i++) {
            CHECK_EQ_I64(cml_tf_next(&c, &r), 1);
            CHECK_EQ_U64(r.pc, records[i].pc);
            CHECK_EQ_U64(r.space, records[i].space);
            CHECK_EQ_U64(r.op, records[i].op);
            CHECK_EQ_U64(r.active, records[i].active);
            CHECK_EQ_U64(r.block, records[i].block);
            CHECK_EQ_U64(r.warp, records[i].warp);
            CHECK(memcmp(r.addr, records[i].addr, sizeof r.addr) == 0);
        }
        CHECK_EQ_I64(cml_tf_next(&c, &r), 0);
    }
    cml_tf_free(&t);
}

/* The offset of the n-th (from 0) occurrence of a 4-byte tag. */
static size_t tag_at(const char *tag)
{
    for (size_t i = 0; i + 4 <= nexpect; i++)
        if (memcmp(expect + i, tag, 4) == 0)
            return i;
    return 0;
}

/* The file with byte `at` set to v: refused, with `msg` in the error. */
static void refused(size_t at, uint8_t v, const char *msg)
{
    uint8_t bad[512];
    memcpy(bad, expect, nexpect);
    bad[at] = v;
    cml_trace t;
    char err[400] = "";
    CHECK_EQ_I64(parse_copy(bad, nexpect, &t, err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, msg);
}

static void test_hostile(void)
{
    const size_t kern = tag_at("KERN") + 12, rec0 = kern + 14, rec2 = kern + 14 + 43 + 19;
    refused(0, 'X', "offset 0: not a cumemlab trace");
    refused(8, 2, "offset 8: trace format version 2 (this cumemlab reads version 1)");
    refused(tag_at("HEAD") + 4, 200, "offset 12: a chunk of 200 bytes");
    refused(tag_at("HEAD") + 12, 32,
            "offset 25 (HEAD chunk 1): device name: 32 bytes needed, 17 left in the chunk");
    refused(kern + 2, 0, "offset 75 (KERN chunk 1): grid x is 0 (allowed 1..2147483647)");
    refused(kern + 5, 0, "block x is 0 (allowed 1..1024)");
    refused(rec0 + 2, 0x03, "record 0): memory space 3");
    refused(rec0 + 2, 0x0C, "record 0): operation 3");
    refused(rec0 + 2, 0x10, "bits 4-7 must be 0");
    refused(rec0 + 3, 3, "record 0): access size 3 bytes (allowed 1, 2, 4, 8, 16)");
    refused(rec0 + 0, 1, "function id 1 has no FUNC chunk before it");
    refused(rec0 + 4, 2, "block index is 2 (allowed 0..1)");
    refused(rec0 + 5, 2, "warp index is 2 (allowed 0..1)");
    refused(kern + 14 + 43 + 7, 1, "names lanes beyond the block's 40 threads");
    refused(rec2 + 4, 0, "record 2): block 0 warp 0 after block 0 warp 1");
    refused(kern + 11, 2, "the records are of 3 warps, the chunk says 2");
    refused(rec2 + 6, 0, "active mask 0");
    refused(kern + 13, 2, "bytes after the last record");
    refused(tag_at("END ") + 12, 2, "the END chunk counts other kernels");
    refused(tag_at("FUNC") + 12, 1, "function id is 1 (allowed 0..0)");
    refused(tag_at("FUNC") + 12 + 1, 0x80, "FUNC chunk 1");
    refused(tag_at("HEAD"), 'F', "the first chunk must be HEAD");
}

/* Every prefix: one cut before the HEAD chunk is whole is no trace; any
 * later cut reads as an incomplete trace of the chunks before the cut (the
 * bytes of a chunk cut short counted); nothing crashes. */
static void test_prefixes(void)
{
    const size_t head_end = tag_at("FUNC"), kern = tag_at("KERN"), end = tag_at("END ");
    for (size_t n = 0; n < nexpect; n++) {
        cml_trace t;
        char err[400] = "";
        int rc = parse_copy(expect, n, &t, err, sizeof err);
        CHECK_EQ_I64(rc, n >= head_end ? 0 : -1);
        if (rc == 0) {
            CHECK_EQ_I64(t.complete, 0);
            CHECK_EQ_U64(t.nkernels, n >= end ? 1u : 0u);
            CHECK_EQ_U64(t.nfuncs, n >= kern ? 1u : 0u);
            const size_t last = n >= end ? end : n >= kern ? kern : head_end;
            CHECK_EQ_U64(t.truncated, n - last);
            cml_tf_free(&t);
        }
    }
}

/* Every byte changed to every value: parsed or refused, never a crash, and
 * what parses walks to its end. */
static void test_mutations(void)
{
    uint8_t bad[512];
    size_t parsed = 0;
    for (size_t at = 0; at < nexpect; at++) {
        for (unsigned v = 0; v < 256; v++) {
            memcpy(bad, expect, nexpect);
            bad[at] = (uint8_t)v;
            cml_trace t;
            char err[400];
            if (parse_copy(bad, nexpect, &t, err, sizeof err) != 0)
                continue;
            parsed++;
            for (size_t k = 0; k < t.nkernels; k++) {
                cml_tf_cursor c;
                cml_tf_ins r;
                uint64_t n = 0;
                cml_tf_cursor_init(&c, &t.kernel[k]);
                while (cml_tf_next(&c, &r))
                    n++;
                CHECK_EQ_U64(n, t.kernel[k].nins);
            }
            cml_tf_free(&t);
        }
    }
    /* an address byte changed keeps the file valid: many variants parse */
    CHECK(parsed > 1000);
}

int main(void)
{
    build_expected();
    build_records();
    test_writer_bytes();
    test_reader();
    test_hostile();
    test_prefixes();
    test_mutations();
    return cml_test_summary("test_trace_file");
}
